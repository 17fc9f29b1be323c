//! Emacs Lisp given on the command line (`emacs --batch --eval '(...)'`,
//! `emacsclient -e '(...)'`).
//!
//! Emacs is a Lisp interpreter with a file library: `(delete-directory "~"
//! t)` deletes a tree as surely as `rm -rf ~`, `(insert-file-contents
//! ".env")` followed by `(princ (buffer-string))` prints a secret as
//! surely as `cat`, and `(shell-command "...")` runs shell code. The code
//! is read as s-expressions; every call of a function that deletes,
//! writes, copies, reads a file or runs a program comes back as the
//! command that does the same, so the ordinary rules apply. Paths built
//! with `expand-file-name`, `concat`, `file-name-concat` and `(getenv
//! "HOME")` are worked out; a name bound once with `setq`/`let` to a known
//! string stands for it. A function called by a name only known at run
//! time (`(funcall (intern x))`) and code read from a string that is not
//! literal make the line opaque. Files loaded with `-l` are not read.

use super::super::launchers::{Launch, Nested};
use super::super::words::Word;
use super::super::OpaqueKind;
use super::urls;

/// Deepest list nesting read; deeper code is reported as too complex.
const MAX_DEPTH: usize = 64;

/// Where `emacs`/`emacsclient` take Lisp code from their arguments:
/// every `--eval EXPR` (`-eval`, `--eval=EXPR`, `--execute`) for emacs;
/// for emacsclient, every operand after `-e`/`--eval`.
pub fn code_pieces(program: &str, args: &[Word]) -> Vec<Word> {
    let mut pieces = Vec::new();
    if program == "emacsclient" {
        // Options of emacsclient that take a separate value.
        const VALUED: &[&str] = &[
            "-s",
            "-f",
            "-a",
            "-d",
            "-T",
            "-F",
            "--socket-name",
            "--server-file",
            "--alternate-editor",
            "--display",
            "--tramp",
            "--frame-parameters",
        ];
        let mut eval = false;
        let mut i = 0;
        while let Some(word) = args.get(i) {
            let text = word.text.as_str();
            i += 1;
            if text == "-e" || text == "--eval" {
                eval = true;
            } else if VALUED.contains(&text) {
                i += 1;
            } else if eval && !text.starts_with('-') {
                pieces.push(word.clone());
            }
        }
        return pieces;
    }
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        i += 1;
        match text {
            "--eval" | "-eval" | "--execute" | "-execute" => {
                if let Some(code) = args.get(i) {
                    pieces.push(code.clone());
                }
                i += 1;
            }
            _ => {
                if let Some(code) = text
                    .strip_prefix("--eval=")
                    .or_else(|| text.strip_prefix("--execute="))
                {
                    pieces.push(Word {
                        text: code.to_string(),
                        ..word.clone()
                    });
                }
            }
        }
    }
    pieces
}

/// An s-expression.
#[derive(Debug, Clone, PartialEq)]
enum Sexp {
    List(Vec<Sexp>),
    Str(String),
    Atom(String),
    /// `'x`, `` `x ``, `#'x`: the form, not evaluated here.
    Quoted(Box<Sexp>),
}

/// Reads Lisp `code`; what it runs, deletes, writes and reads goes to `launch`.
pub fn read(code: &str, literal: bool, label: &str, launch: &mut Launch) {
    let forms = match parse(code) {
        Ok(forms) => forms,
        Err(why) => {
            launch
                .opaque
                .push((OpaqueKind::TooComplex, format!("`{label}`: {why}")));
            return;
        }
    };
    let mut reader = Reader {
        literal,
        label,
        launch,
        bindings: Vec::new(),
    };
    reader.learn_bindings(&forms);
    for form in &forms {
        reader.walk(form, 0);
    }
}

struct Reader<'a> {
    literal: bool,
    label: &'a str,
    launch: &'a mut Launch,
    /// Names bound exactly once to a string known before run time.
    bindings: Vec<(String, String)>,
}

/// A value worked out from an expression: its text and whether it is
/// certain (a literal string, or built from literal strings only).
struct Value {
    text: String,
    known: bool,
}

impl Reader<'_> {
    /// `(setq NAME VALUE)`, `(let ((NAME VALUE)) ...)`, `(defvar NAME
    /// VALUE)`: names bound once, anywhere, to a value worked out here.
    fn learn_bindings(&mut self, forms: &[Sexp]) {
        let mut seen: Vec<(String, Option<String>)> = Vec::new();
        let mut note = |name: &str, value: Option<String>| {
            match seen.iter_mut().find(|(n, _)| n == name) {
                // Bound twice: the value is not one thing.
                Some(entry) => entry.1 = None,
                None => seen.push((name.to_string(), value)),
            }
        };
        let mut stack: Vec<&Sexp> = forms.iter().collect();
        while let Some(form) = stack.pop() {
            let Sexp::List(items) = form else {
                if let Sexp::Quoted(inner) = form {
                    stack.push(inner);
                }
                continue;
            };
            let head = match items.first() {
                Some(Sexp::Atom(head)) => head.as_str(),
                _ => "",
            };
            match head {
                "setq" | "setq-local" | "setq-default" | "setf" => {
                    for pair in items[1..].chunks(2) {
                        if let [Sexp::Atom(name), value] = pair {
                            note(name, self.known_string(value));
                        }
                    }
                }
                "let" | "let*" => {
                    if let Some(Sexp::List(bindings)) = items.get(1) {
                        for binding in bindings {
                            match binding {
                                Sexp::List(pair) => {
                                    if let [Sexp::Atom(name), value] = pair.as_slice() {
                                        note(name, self.known_string(value));
                                    } else if let [Sexp::Atom(name)] = pair.as_slice() {
                                        note(name, None);
                                    }
                                }
                                Sexp::Atom(name) => note(name, None),
                                _ => {}
                            }
                        }
                    }
                }
                "defvar" | "defconst" | "defcustom" => {
                    if let [_, Sexp::Atom(name), value, ..] = items.as_slice() {
                        note(name, self.known_string(value));
                    }
                }
                // A name that a loop or a function argument binds.
                "dolist" | "dotimes" => {
                    if let Some(Sexp::List(spec)) = items.get(1) {
                        if let Some(Sexp::Atom(name)) = spec.first() {
                            note(name, None);
                        }
                    }
                }
                _ => {}
            }
            stack.extend(items.iter());
        }
        self.bindings = seen
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| (name, v)))
            .collect();
    }

    fn known_string(&self, value: &Sexp) -> Option<String> {
        let value = self.value(value);
        value.known.then_some(value.text)
    }

    /// What `expr` evaluates to, as far as it can be told here.
    fn value(&self, expr: &Sexp) -> Value {
        let unknown = |text: &str| Value {
            text: text.to_string(),
            known: false,
        };
        match expr {
            Sexp::Str(text) => Value {
                text: home_spelling(text),
                known: true,
            },
            Sexp::Atom(name) => match name.as_str() {
                "user-emacs-directory" => Value {
                    text: "~/.emacs.d/".into(),
                    known: true,
                },
                _ => match self.bindings.iter().find(|(n, _)| n == name) {
                    // Shown, but not certain: the binding may not run first.
                    Some((_, value)) => unknown(value),
                    None => unknown(name),
                },
            },
            Sexp::Quoted(_) => unknown("'..."),
            Sexp::List(items) => {
                let Some(Sexp::Atom(head)) = items.first() else {
                    return unknown("(...)");
                };
                let args: Vec<Value> = items[1..].iter().map(|a| self.value(a)).collect();
                let all_known = args.iter().all(|a| a.known);
                match head.as_str() {
                    "expand-file-name" => match args.as_slice() {
                        [name] => Value {
                            text: name.text.clone(),
                            known: name.known,
                        },
                        [name, dir, ..] => Value {
                            text: join_path(&dir.text, &name.text),
                            known: all_known,
                        },
                        [] => unknown("(expand-file-name)"),
                    },
                    "concat" => Value {
                        text: args.iter().map(|a| a.text.as_str()).collect(),
                        known: all_known,
                    },
                    "file-name-concat" => Value {
                        text: args
                            .iter()
                            .map(|a| a.text.trim_end_matches('/'))
                            .collect::<Vec<_>>()
                            .join("/"),
                        known: all_known,
                    },
                    "getenv" if matches!(args.as_slice(), [a] if a.known && a.text == "HOME") => {
                        Value {
                            text: "~".into(),
                            known: true,
                        }
                    }
                    "substitute-in-file-name"
                    | "file-truename"
                    | "abbreviate-file-name"
                    | "directory-file-name"
                    | "file-name-as-directory"
                    | "convert-standard-filename" => match args.into_iter().next() {
                        Some(arg) => Value {
                            text: home_spelling(&arg.text),
                            known: arg.known,
                        },
                        None => unknown("(...)"),
                    },
                    _ => unknown("(...)"),
                }
            }
        }
    }

    fn word(&self, expr: &Sexp) -> Word {
        let value = self.value(expr);
        Word {
            text: value.text,
            literal: self.literal && value.known,
            pattern: false,
        }
    }

    fn opaque(&mut self, kind: OpaqueKind, why: String) {
        self.launch
            .opaque
            .push((kind, format!("`{}`: {why}", self.label)));
    }

    fn walk(&mut self, form: &Sexp, depth: usize) {
        match form {
            Sexp::Str(text) => {
                for url in urls::destinations(text) {
                    self.push_argv(
                        vec![
                            Word::literal("curl"),
                            Word::literal("--"),
                            Word {
                                text: url,
                                literal: self.literal,
                                pattern: false,
                            },
                        ],
                        Some("URL in the code"),
                    );
                }
            }
            Sexp::Atom(_) => {}
            Sexp::Quoted(inner) => self.walk(inner, depth + 1),
            Sexp::List(items) => {
                if depth > MAX_DEPTH {
                    self.opaque(
                        OpaqueKind::TooComplex,
                        format!("Lisp nested deeper than {MAX_DEPTH} levels"),
                    );
                    return;
                }
                if let Some(Sexp::Atom(head)) = items.first() {
                    self.call(head, &items[1..], depth);
                }
                for item in items {
                    self.walk(item, depth + 1);
                }
            }
        }
    }

    /// One call `(name args...)`.
    fn call(&mut self, name: &str, args: &[Sexp], depth: usize) {
        let nth = |n: usize| args.get(n).map(|a| self.word(a));
        let from = |n: usize| {
            args.iter()
                .skip(n)
                .map(|a| self.word(a))
                .collect::<Vec<_>>()
        };
        match name {
            "shell-command"
            | "shell-command-to-string"
            | "async-shell-command"
            | "call-process-shell-command"
            | "process-file-shell-command" => self.shell(args.first(), name),
            "start-process-shell-command" | "start-file-process-shell-command" => {
                self.shell(args.get(2), name)
            }
            "call-process" | "process-file" => {
                let mut words: Vec<Word> = nth(0).into_iter().collect();
                words.extend(from(4));
                self.push_argv(words, None);
            }
            "call-process-region" => {
                let mut words: Vec<Word> = nth(2).into_iter().collect();
                words.extend(from(6));
                self.push_argv(words, None);
            }
            "start-process" | "start-file-process" => self.push_argv(from(2), None),
            "process-lines" | "process-lines-ignore-status" => self.push_argv(from(0), None),
            "make-process" | "make-pipe-process" => {
                let command = args
                    .iter()
                    .position(|a| a == &Sexp::Atom(":command".into()))
                    .and_then(|at| args.get(at + 1));
                match command.map(list_items) {
                    Some(Some(items)) => {
                        let words = items.iter().map(|a| self.word(a)).collect();
                        self.push_argv(words, None);
                    }
                    Some(None) => self.opaque(
                        OpaqueKind::DynamicEval,
                        format!("`{name}` runs a command only known at run time"),
                    ),
                    None => {}
                }
            }
            "insert-file-contents"
            | "insert-file-contents-literally"
            | "insert-file"
            | "insert-file-literally"
            | "find-file"
            | "find-file-noselect"
            | "find-file-literally"
            | "find-file-read-only"
            | "find-file-other-window"
            | "view-file"
            | "f-read"
            | "f-read-text"
            | "f-read-bytes" => self.library("cat", &[], nth(0).into_iter().collect(), name),
            "write-region" | "append-to-file" => {
                self.library("tee", &[], nth(2).into_iter().collect(), name)
            }
            "write-file" | "with-temp-file" | "f-touch" => {
                self.library("tee", &[], nth(0).into_iter().collect(), name)
            }
            "f-write" | "f-write-text" | "f-append-text" | "f-append" => {
                self.library("tee", &[], nth(2).into_iter().collect(), name)
            }
            "f-write-bytes" | "f-append-bytes" => {
                self.library("tee", &[], nth(1).into_iter().collect(), name)
            }
            "delete-file" => self.library("rm", &["-f"], nth(0).into_iter().collect(), name),
            "delete-directory" | "f-delete" => {
                let recursive = args.get(1).is_some_and(|a| !is_nil(a));
                let (program, flags): (&str, &[&str]) = match (name, recursive) {
                    (_, true) => ("rm", &["-r", "-f"]),
                    ("f-delete", false) => ("rm", &["-f"]),
                    _ => ("rmdir", &[]),
                };
                self.library(program, flags, nth(0).into_iter().collect(), name)
            }
            "copy-file" => self.library("cp", &[], from(0).into_iter().take(2).collect(), name),
            "copy-directory" | "f-copy" => {
                self.library("cp", &["-r"], from(0).into_iter().take(2).collect(), name)
            }
            "rename-file" | "f-move" => {
                self.library("mv", &[], from(0).into_iter().take(2).collect(), name)
            }
            "make-symbolic-link" | "f-symlink" => {
                self.library("ln", &["-s"], from(0).into_iter().take(2).collect(), name)
            }
            "add-name-to-file" => {
                self.library("ln", &[], from(0).into_iter().take(2).collect(), name)
            }
            // Printing the environment.
            "getenv" => {
                if let Some(variable) = nth(0).filter(|w| w.text != "HOME") {
                    self.push_argv(vec![Word::literal("printenv"), variable], Some(name));
                }
            }
            "princ" | "prin1" | "print" | "message" | "pp" | "insert" | "format"
                if args
                    .iter()
                    .any(|a| a == &Sexp::Atom("process-environment".into())) =>
            {
                self.push_argv(vec![Word::literal("env")], Some(name));
            }
            // More code: `(eval (read "..."))`, `(funcall 'f ...)`.
            "eval" => match args.first() {
                Some(Sexp::Quoted(_)) | None => {}
                Some(Sexp::List(inner)) if is_read_of_string(inner).is_some() => {
                    let (code, literal) = is_read_of_string(inner).unwrap_or_default();
                    if literal {
                        match parse(&code) {
                            Ok(forms) => {
                                for form in &forms {
                                    self.walk(form, depth + 1);
                                }
                            }
                            Err(why) => self.opaque(OpaqueKind::TooComplex, why),
                        }
                    } else {
                        self.opaque(
                            OpaqueKind::DynamicEval,
                            "`eval` runs code only known at run time".into(),
                        );
                    }
                }
                Some(_) => self.opaque(
                    OpaqueKind::DynamicEval,
                    "`eval` runs code only known at run time".into(),
                ),
            },
            "funcall" | "apply" => match args.first() {
                Some(Sexp::Quoted(inner)) if matches!(**inner, Sexp::Atom(_)) => {
                    let Sexp::Atom(function) = &**inner else {
                        return;
                    };
                    let mut rest: Vec<Sexp> = args[1..].to_vec();
                    // `apply`'s last argument is a list of more arguments.
                    if name == "apply" {
                        if let Some(items) = rest.last().and_then(list_items) {
                            rest.pop();
                            rest.extend(items);
                        }
                    }
                    let function = function.clone();
                    self.call(&function, &rest, depth + 1);
                }
                Some(Sexp::List(lambda)) if matches!(lambda.first(), Some(Sexp::Atom(h)) if h == "lambda") =>
                    {}
                Some(_) => self.opaque(
                    OpaqueKind::DynamicEval,
                    format!("`{name}` calls a function named at run time"),
                ),
                None => {}
            },
            _ => {}
        }
    }

    fn shell(&mut self, code: Option<&Sexp>, call: &str) {
        let Some(code) = code else { return };
        let value = self.value(code);
        self.launch.nested.push(Nested::Script {
            source: value.text,
            via: format!("{}: {call}", self.label),
            literal: self.literal && value.known,
        });
    }

    fn library(&mut self, program: &str, flags: &[&str], operands: Vec<Word>, call: &str) {
        super::push_library(self.launch, program, flags, operands, self.label, call);
    }

    fn push_argv(&mut self, words: Vec<Word>, call: Option<&str>) {
        if words.is_empty() {
            return;
        }
        let via = match call {
            Some(_) => self.label.to_string(),
            None => format!("{}: {}", self.label, "call-process"),
        };
        self.launch.nested.push(Nested::Argv {
            words,
            via,
            call: call.map(str::to_string),
            appended: false,
            fill: Vec::new(),
        });
    }
}

/// `(read "CODE")` or `(car (read-from-string "CODE"))`: the code, and
/// whether it is a literal string.
fn is_read_of_string(items: &[Sexp]) -> Option<(String, bool)> {
    match items {
        [Sexp::Atom(read), arg] if read == "read" || read == "read-from-string" => match arg {
            Sexp::Str(code) => Some((code.clone(), true)),
            _ => Some((String::new(), false)),
        },
        [Sexp::Atom(car), Sexp::List(inner)] if car == "car" => is_read_of_string(inner),
        _ => None,
    }
}

/// The items of `'(a b)` or `(list a b)`.
fn list_items(expr: &Sexp) -> Option<Vec<Sexp>> {
    match expr {
        Sexp::Quoted(inner) => match &**inner {
            Sexp::List(items) => Some(items.clone()),
            _ => None,
        },
        Sexp::List(items) => match items.first() {
            Some(Sexp::Atom(head)) if head == "list" => Some(items[1..].to_vec()),
            _ => None,
        },
        _ => None,
    }
}

fn is_nil(expr: &Sexp) -> bool {
    matches!(expr, Sexp::Atom(a) if a == "nil")
        || matches!(expr, Sexp::Quoted(inner) if matches!(&**inner, Sexp::List(items) if items.is_empty()))
        || matches!(expr, Sexp::List(items) if items.is_empty())
}

/// `~` for the home directory spelled `$HOME` or `~/`.
fn home_spelling(text: &str) -> String {
    match text
        .strip_prefix("$HOME")
        .or_else(|| text.strip_prefix("${HOME}"))
    {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
        _ => text.to_string(),
    }
}

/// `name` under `dir`, as `expand-file-name` joins them: an absolute or
/// home name stands alone.
fn join_path(dir: &str, name: &str) -> String {
    if name.starts_with('/') || name.starts_with('~') || dir.is_empty() {
        return name.to_string();
    }
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// The forms of `code`, or why it cannot be read.
fn parse(code: &str) -> Result<Vec<Sexp>, String> {
    let chars: Vec<char> = code.chars().collect();
    let mut at = 0;
    let mut forms = Vec::new();
    loop {
        skip_blank(&chars, &mut at);
        if at >= chars.len() {
            return Ok(forms);
        }
        if chars[at] == ')' || chars[at] == ']' {
            // A stray closing bracket: Emacs reports it; nothing runs after.
            return Ok(forms);
        }
        forms.push(form(&chars, &mut at, 0)?);
    }
}

fn skip_blank(chars: &[char], at: &mut usize) {
    while let Some(&c) = chars.get(*at) {
        if c.is_whitespace() {
            *at += 1;
        } else if c == ';' {
            while chars.get(*at).is_some_and(|&c| c != '\n') {
                *at += 1;
            }
        } else {
            break;
        }
    }
}

fn form(chars: &[char], at: &mut usize, depth: usize) -> Result<Sexp, String> {
    if depth > MAX_DEPTH {
        return Err(format!("Lisp nested deeper than {MAX_DEPTH} levels"));
    }
    skip_blank(chars, at);
    let Some(&c) = chars.get(*at) else {
        return Err("the code ends inside a form".into());
    };
    match c {
        '(' | '[' => {
            let close = if c == '(' { ')' } else { ']' };
            *at += 1;
            let mut items = Vec::new();
            loop {
                skip_blank(chars, at);
                match chars.get(*at) {
                    None => return Ok(Sexp::List(items)),
                    Some(&c) if c == close || c == ')' || c == ']' => {
                        *at += 1;
                        // `(quote x)` and `(function f)` are `'x` and `#'f`.
                        if let [Sexp::Atom(head), _] = items.as_slice() {
                            if head == "quote" || head == "function" {
                                return Ok(Sexp::Quoted(Box::new(items.remove(1))));
                            }
                        }
                        return Ok(Sexp::List(items));
                    }
                    Some(_) => items.push(form(chars, at, depth + 1)?),
                }
            }
        }
        '\'' | '`' => {
            *at += 1;
            Ok(Sexp::Quoted(Box::new(form(chars, at, depth + 1)?)))
        }
        '#' if chars.get(*at + 1) == Some(&'\'') => {
            *at += 2;
            Ok(Sexp::Quoted(Box::new(form(chars, at, depth + 1)?)))
        }
        ',' => {
            *at += 1;
            if chars.get(*at) == Some(&'@') {
                *at += 1;
            }
            form(chars, at, depth + 1)
        }
        '"' => {
            *at += 1;
            let mut text = String::new();
            while let Some(&c) = chars.get(*at) {
                *at += 1;
                match c {
                    '"' => return Ok(Sexp::Str(text)),
                    '\\' => {
                        if let Some(&next) = chars.get(*at) {
                            *at += 1;
                            match next {
                                'n' => text.push('\n'),
                                't' => text.push('\t'),
                                // A backslash and newline continue the string.
                                '\n' => {}
                                other => text.push(other),
                            }
                        }
                    }
                    other => text.push(other),
                }
            }
            Ok(Sexp::Str(text))
        }
        '?' => {
            // A character: `?a`, `?\n`, `?\(`.
            *at += 1;
            if chars.get(*at) == Some(&'\\') {
                *at += 1;
            }
            *at += 1;
            Ok(Sexp::Atom("?".into()))
        }
        _ => {
            let mut name = String::new();
            while let Some(&c) = chars.get(*at) {
                if c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '"' | '\'' | ';') {
                    break;
                }
                if c == '\\' {
                    *at += 1;
                    if let Some(&next) = chars.get(*at) {
                        name.push(next);
                        *at += 1;
                    }
                    continue;
                }
                name.push(c);
                *at += 1;
            }
            Ok(Sexp::Atom(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    use super::super::line_commands as commands;

    #[test]
    fn file_functions_are_their_commands() {
        for (line, want) in [
            (
                r#"emacs --batch --eval '(progn (insert-file-contents ".env") (princ (buffer-string)))'"#,
                "cat -- .env",
            ),
            (
                r#"emacs -batch -eval '(delete-directory "~" t)'"#,
                "rm -r -f -- ~",
            ),
            (
                r#"emacs --batch --eval='(delete-directory (expand-file-name ".ssh" "~") t)'"#,
                "rm -r -f -- ~/.ssh",
            ),
            (
                r#"emacs --batch --eval '(delete-directory "build")'"#,
                "rmdir -- build",
            ),
            (
                r#"emacs -Q --batch --eval '(with-temp-buffer (insert-file-contents (concat (getenv "HOME") "/.aws/credentials")) (message "%s" (buffer-string)))'"#,
                "cat -- ~/.aws/credentials",
            ),
            (
                r#"emacs --batch --eval '(let ((f "~/.ssh/id_rsa")) (find-file f) (princ (buffer-string)))'"#,
                "cat -- ~/.ssh/id_rsa",
            ),
            (
                r#"emacs --batch --eval '(write-region "x" nil "~/.bashrc" t)'"#,
                "tee -- ~/.bashrc",
            ),
            (
                r#"emacs --batch --eval '(copy-file ".env" "/tmp/e")'"#,
                "cp -- .env /tmp/e",
            ),
            (
                r#"emacs --batch --eval '(shell-command "rm -rf ~")'"#,
                "rm -rf ~",
            ),
            (
                r#"emacs --batch --eval '(call-process "rm" nil nil nil "-rf" "/")'"#,
                "rm -rf /",
            ),
            (
                r#"emacs --batch --eval '(make-process :name "x" :command (list "git" "push" "--force"))'"#,
                "git push --force",
            ),
            (
                r#"emacs --batch --eval '(funcall (quote delete-file) ".git/config")'"#,
                "rm -f -- .git/config",
            ),
            (
                r#"emacs --batch --eval '(apply #'"'"'delete-directory "~" (list t))'"#,
                "rm -r -f -- ~",
            ),
            (
                r#"emacs --batch --eval '(eval (read "(delete-file \"~/.ssh/id_rsa\")"))'"#,
                "rm -f -- ~/.ssh/id_rsa",
            ),
            (
                r#"emacsclient -e '(delete-file "~/.ssh/id_rsa")'"#,
                "rm -f -- ~/.ssh/id_rsa",
            ),
            (
                r#"emacs --batch --eval '(princ (getenv "AWS_SECRET_ACCESS_KEY"))'"#,
                "printenv AWS_SECRET_ACCESS_KEY",
            ),
            (
                r#"emacs --batch --eval '(url-retrieve-synchronously "http://169.254.169.254/latest/meta-data/")'"#,
                "curl -- http://169.254.169.254/latest/meta-data/",
            ),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
            assert!(!analyze(line).is_opaque(), "{line}: {:?}", analyze(line));
        }
    }

    #[test]
    fn names_only_known_at_run_time_are_opaque() {
        for line in [
            r#"emacs --batch --eval '(funcall (intern "delete-file") "x")'"#,
            r#"emacs --batch --eval '(eval (read (getenv "CODE")))'"#,
            r#"emacs --batch --eval "$CODE""#,
            r#"emacs --batch --eval '(make-process :name "x" :command cmd)'"#,
        ] {
            assert!(analyze(line).is_opaque(), "{line}: {:?}", analyze(line));
        }
    }

    #[test]
    fn ordinary_emacs_lines_add_nothing() {
        for line in [
            "emacs --batch -l test.el -f ert-run-tests-batch-and-exit",
            "emacs -Q --batch --eval '(byte-compile-file \"init.el\")'",
            "emacs --batch --eval '(message \"%s\" emacs-version)'",
            "emacs --batch --eval '(progn (find-file \"README.org\") (org-md-export-to-markdown))'",
            "emacsclient -n notes.txt",
        ] {
            let analysis = analyze(line);
            assert!(!analysis.is_opaque(), "{line}: {analysis:?}");
            assert!(
                analysis
                    .commands
                    .iter()
                    .all(|c| c.program.starts_with("emacs") || c.program == "cat"),
                "{line}: {:?}",
                commands(line)
            );
        }
    }
}
