//! Vim's command language given on the command line (`vim -c '!rm -rf /'
//! -c q`, `nvim --headless +'call system("...")' +q`).
//!
//! Every `-c CMD`, `--cmd CMD` and `+CMD` is an Ex command, and Ex commands
//! reach the shell in many ways: `:!cmd`, `:r !cmd`, `:w !cmd`, a range
//! filter `:%!cmd`, `:terminal cmd`, the functions `system()`,
//! `systemlist()`, `job_start()`/`jobstart()`, and the embedded languages
//! (`:py3`, `:lua`, `:perl`, `:ruby`). They also delete, write and read
//! files (`delete(p, 'rf')`, `writefile(l, p)`, `:w p`, `:r p`). Each is
//! handed back as the command or the code that does the same, so the
//! ordinary rules apply; embedded code goes to the interpreter it names
//! (`:py3 CODE` as `python3 -c CODE`). `:execute` and `execute()` of a
//! literal string are read as more Ex commands; of anything else, opaque.
//! Files run with `-S` or `:source` are not read.

use super::super::launchers::{Launch, Nested};
use super::super::words::Word;
use super::super::OpaqueKind;

/// Deepest `:execute` and `:global` nesting followed.
const MAX_DEPTH: usize = 8;

/// The Ex commands `vim`/`nvim` are given: every `-c CMD`, `--cmd CMD`
/// and `+CMD` (not `+N` or `+/pattern`, which move the cursor).
pub fn code_pieces(args: &[Word]) -> Vec<Word> {
    let mut pieces = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        i += 1;
        if text == "--" {
            break;
        }
        if text == "-c" || text == "--cmd" {
            pieces.extend(args.get(i).cloned());
            i += 1;
        } else if let Some(command) = text.strip_prefix('+') {
            if !command.is_empty() && !command.starts_with(|c: char| c.is_ascii_digit() || c == '/')
            {
                pieces.push(Word {
                    text: command.to_string(),
                    ..word.clone()
                });
            }
        }
    }
    pieces
}

/// Reads the Ex commands in `code` (one per line); what they run, delete,
/// write and read goes to `launch`.
pub fn read(code: &str, literal: bool, label: &str, launch: &mut Launch) {
    let mut reader = Reader {
        literal,
        label,
        launch,
    };
    for line in code.lines() {
        reader.commands(line, 0);
    }
}

struct Reader<'a> {
    literal: bool,
    label: &'a str,
    launch: &'a mut Launch,
}

impl Reader<'_> {
    /// One line of Ex commands separated by `|`.
    fn commands(&mut self, line: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.opaque(
                OpaqueKind::TooComplex,
                format!("Ex commands nested deeper than {MAX_DEPTH} levels"),
            );
            return;
        }
        let mut rest = line;
        while !rest.trim().is_empty() {
            rest = self.command(rest, depth);
        }
    }

    /// Reads the first command of `text`; returns what follows its `|`.
    fn command<'t>(&mut self, text: &'t str, depth: usize) -> &'t str {
        let text = skip_range(text.trim_start().trim_start_matches([':', ' ', '\t']));
        let text = skip_modifiers(text);
        // `:!cmd` and a range filter `:%!cmd`: the rest of the line is shell code.
        if let Some(code) = text.strip_prefix('!') {
            self.shell(code, "!");
            return "";
        }
        let name_len = text
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(text.len());
        let name = &text[..name_len];
        let after = text[name_len..]
            .strip_prefix('!')
            .unwrap_or(&text[name_len..]);
        let argument = after.trim_start();
        // Commands that take `|` as part of their argument.
        match name {
            "r" | "re" | "rea" | "read" | "w" | "wr" | "wri" | "writ" | "write"
                if argument.starts_with('!') =>
            {
                self.shell(&argument[1..], &format!("{name} !"));
                return "";
            }
            "ter" | "term" | "termi" | "termin" | "termina" | "terminal" => {
                let code = skip_plus_options(argument);
                if !code.is_empty() {
                    self.shell(code, "terminal");
                }
                return "";
            }
            "py" | "pyt" | "pyth" | "pytho" | "python" | "py3" | "python3" | "pyx" | "pythonx" => {
                self.code("python3", "-c", argument);
                return "";
            }
            "lua" => {
                self.code("lua", "-e", argument);
                return "";
            }
            "pe" | "per" | "perl" => {
                self.code("perl", "-e", argument);
                return "";
            }
            "rub" | "ruby" => {
                self.code("ruby", "-e", argument);
                return "";
            }
            "norm" | "norma" | "normal" => {
                // Keys typed in Normal mode may open the command line.
                if argument.contains([':', '!', 'Q']) {
                    self.opaque(
                        OpaqueKind::DynamicEval,
                        "`:normal` types keys that may run commands".into(),
                    );
                }
                return "";
            }
            "g" | "gl" | "glo" | "glob" | "globa" | "global" | "v" | "vg" | "vglo" | "vglob"
            | "vgloba" | "vglobal" => {
                // `:g/pattern/cmd`: cmd runs on every matching line.
                let mut chars = argument.chars();
                if let Some(delimiter) = chars.next() {
                    let pattern_and_command = chars.as_str();
                    if let Some(end) = pattern_and_command.find(delimiter) {
                        self.commands(&pattern_and_command[end + 1..], depth + 1);
                    }
                }
                return "";
            }
            "bufdo" | "windo" | "tabdo" | "argdo" | "cdo" | "cfdo" | "ldo" | "lfdo" => {
                self.commands(argument, depth + 1);
                return "";
            }
            _ => {}
        }
        let (argument, next) = split_bar(argument);
        match name {
            "exe" | "exec" | "execu" | "execut" | "execute" => match single_string(argument) {
                Some(commands) => self.commands(&commands, depth + 1),
                None => self.opaque(
                    OpaqueKind::DynamicEval,
                    "`:execute` runs commands only known at run time".into(),
                ),
            },
            "w" | "wr" | "wri" | "writ" | "write" | "wq" | "x" | "xi" | "xit" | "sav" | "sa"
            | "savea" | "saveas" | "up" | "upd" | "update" => {
                let file = argument.trim_start_matches(">>").trim();
                if !file.is_empty() {
                    self.library("tee", &[], vec![self.path(file)], &format!(":{name}"));
                }
            }
            "r" | "re" | "rea" | "read" | "e" | "ed" | "edi" | "edit" | "sp" | "spl" | "split"
            | "vs" | "vsp" | "vsplit" | "tabe" | "tabedit" | "new" | "vne" | "vnew" | "vie"
            | "view" | "sv" | "sview" | "fin" | "find" => {
                let file = skip_plus_options(argument);
                if !file.is_empty() {
                    self.library("cat", &[], vec![self.path(file)], &format!(":{name}"));
                }
            }
            _ => self.functions(argument, depth),
        }
        next
    }

    /// Calls of Vim functions that run commands or touch files in an
    /// expression (`call system('...')`, `echo delete('x', 'rf')`).
    fn functions(&mut self, expression: &str, depth: usize) {
        let mut search = 0;
        while let Some(open) = expression[search..].find('(').map(|i| i + search) {
            search = open + 1;
            let start = expression[..open]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let name = &expression[start..open];
            if name.is_empty() || (start > 0 && expression[..start].ends_with('#')) {
                continue;
            }
            let args = arguments(&expression[open + 1..]);
            let first = args.first().map(String::as_str);
            match name {
                "system" | "systemlist" => match first.and_then(single_string) {
                    Some(code) => self.shell(&code, name),
                    None => self.opaque(
                        OpaqueKind::DynamicEval,
                        format!("`{name}()` runs a command only known at run time"),
                    ),
                },
                "job_start" | "jobstart" | "termopen" | "term_start" => match first {
                    Some(list) if list.trim_start().starts_with('[') => match list_strings(list) {
                        Some(words) => {
                            let words = words.into_iter().map(|w| self.word(&w, true)).collect();
                            self.push(words, None);
                        }
                        None => self.opaque(
                            OpaqueKind::DynamicEval,
                            format!("`{name}()` runs a command only known at run time"),
                        ),
                    },
                    Some(text) => match single_string(text) {
                        Some(code) => self.shell(&code, name),
                        None => self.opaque(
                            OpaqueKind::DynamicEval,
                            format!("`{name}()` runs a command only known at run time"),
                        ),
                    },
                    None => {}
                },
                "execute" => match first.and_then(single_string) {
                    Some(commands) => self.commands(&commands, depth + 1),
                    None => self.opaque(
                        OpaqueKind::DynamicEval,
                        "`execute()` runs commands only known at run time".into(),
                    ),
                },
                "libcall" | "libcallnr" => self.opaque(
                    OpaqueKind::DynamicEval,
                    format!("`{name}()` calls into a library"),
                ),
                "delete" => {
                    let flags = args
                        .get(1)
                        .and_then(|f| single_string(f))
                        .unwrap_or_default();
                    let (program, options): (&str, &[&str]) = if flags.contains("rf") {
                        ("rm", &["-r", "-f"])
                    } else if flags == "d" {
                        ("rmdir", &[])
                    } else {
                        ("rm", &["-f"])
                    };
                    if let Some(path) = first {
                        self.library(program, options, vec![self.value(path)], "delete()");
                    }
                }
                "readfile" | "readblob" => {
                    if let Some(path) = first {
                        self.library("cat", &[], vec![self.value(path)], "readfile()");
                    }
                }
                "writefile" => {
                    if let Some(path) = args.get(1) {
                        self.library("tee", &[], vec![self.value(path)], "writefile()");
                    }
                }
                "rename" | "filecopy" => {
                    if let [from, to, ..] = args.as_slice() {
                        let program = if name == "rename" { "mv" } else { "cp" };
                        let operands = vec![self.value(from), self.value(to)];
                        self.library(program, &[], operands, &format!("{name}()"));
                    }
                }
                _ => {}
            }
        }
    }

    /// A file name written after an Ex command: `~` and `$HOME` are home.
    fn path(&self, text: &str) -> Word {
        let text = text.replace("\\ ", " ");
        let known = !text.contains(['$', '%', '#', '`', '<']);
        let text = match text.strip_prefix("$HOME") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
            _ => text,
        };
        self.word(&text, known || text.starts_with('~'))
    }

    /// The value of an expression argument: strings, `$HOME` and
    /// `expand('...')` joined with `.` or `..` are worked out; anything
    /// else is shown as written, not known.
    fn value(&self, expression: &str) -> Word {
        let expression = expression.trim();
        match concatenation(expression) {
            Some(text) => self.path(&text),
            None => self.word(expression, false),
        }
    }

    fn word(&self, text: &str, known: bool) -> Word {
        Word {
            text: text.to_string(),
            literal: self.literal && known,
            pattern: false,
        }
    }

    fn shell(&mut self, code: &str, call: &str) {
        let code = code.trim();
        if code.is_empty() {
            return;
        }
        self.launch.nested.push(Nested::Script {
            source: code.to_string(),
            via: format!("{}: {call}", self.label),
            literal: self.literal,
        });
    }

    /// Code in an embedded language, handed to its interpreter.
    fn code(&mut self, program: &str, flag: &str, code: &str) {
        let code = code.trim();
        // `:py3 << EOF` takes the following lines, which a `-c` cannot give.
        if code.is_empty() || code.starts_with("<<") {
            return;
        }
        let words = vec![
            Word::literal(program),
            Word::literal(flag),
            self.word(code, true),
        ];
        self.push(words, None);
    }

    fn library(&mut self, program: &str, flags: &[&str], operands: Vec<Word>, call: &str) {
        super::push_library(self.launch, program, flags, operands, self.label, call);
    }

    fn push(&mut self, words: Vec<Word>, call: Option<&str>) {
        if words.is_empty() {
            return;
        }
        self.launch.nested.push(Nested::Argv {
            words,
            via: self.label.to_string(),
            call: call.map(str::to_string),
            appended: false,
            fill: Vec::new(),
        });
    }

    fn opaque(&mut self, kind: OpaqueKind, why: String) {
        self.launch
            .opaque
            .push((kind, format!("`{}`: {why}", self.label)));
    }
}

/// `text` after a line range (`%`, `1,$`, `.`, `'<,'>`, `/pat/`).
fn skip_range(text: &str) -> &str {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '%' | '.' | '$' | ',' | ';' | '+' | '-' | ' ')
        });
        let trimmed = if let Some(mark) = trimmed.strip_prefix('\'') {
            mark.get(1..).unwrap_or("")
        } else {
            trimmed
        };
        let trimmed = match trimmed.strip_prefix('/') {
            Some(pattern) => pattern.find('/').map_or("", |end| &pattern[end + 1..]),
            None => trimmed,
        };
        if trimmed.len() == rest.len() {
            return rest;
        }
        rest = trimmed;
    }
}

/// `text` after command modifiers (`silent!`, `keepjumps`, `noautocmd`).
fn skip_modifiers(text: &str) -> &str {
    const MODIFIERS: &[&str] = &[
        "silent!",
        "silent",
        "sil!",
        "sil",
        "keepjumps",
        "keepj",
        "keepalt",
        "keepa",
        "keeppatterns",
        "keepp",
        "noautocmd",
        "noa",
        "unsilent",
        "uns",
        "vertical",
        "vert",
        "topleft",
        "to",
        "botright",
        "bo",
        "tab",
        "lockmarks",
        "loc",
        "noswapfile",
        "nos",
        "hide",
        "hid",
        "confirm",
        "conf",
        "browse",
        "bro",
    ];
    let mut rest = text.trim_start();
    'outer: loop {
        for modifier in MODIFIERS {
            if let Some(after) = rest.strip_prefix(modifier) {
                if after.is_empty() || after.starts_with([' ', '\t', ':']) {
                    rest = skip_range(after.trim_start_matches([' ', '\t', ':']));
                    continue 'outer;
                }
            }
        }
        return rest;
    }
}

/// `text` after `++opt` arguments and `+cmd` (`:e ++enc=utf8 file`).
fn skip_plus_options(text: &str) -> &str {
    let mut rest = text.trim();
    while rest.starts_with('+') {
        rest = rest
            .find(char::is_whitespace)
            .map_or("", |end| rest[end..].trim_start());
    }
    rest
}

/// The argument up to a `|` outside strings, and what follows it.
fn split_bar(text: &str) -> (&str, &str) {
    let mut quote: Option<char> = None;
    for (at, c) in text.char_indices() {
        match quote {
            Some('"') if c == '\\' => {}
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '|' => return (&text[..at], &text[at + 1..]),
            None => {}
        }
    }
    (text, "")
}

/// The arguments of a call whose text starts after its `(`: cut at the
/// commas outside strings and brackets, up to the closing `)`.
fn arguments(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            current.push(c);
            if escaped {
                escaped = false;
            } else if q == '"' && c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

/// The text of `expression` when it is one string literal: `'...'` (where
/// `''` is a quote) or `"..."` (with backslash escapes).
fn single_string(expression: &str) -> Option<String> {
    let expression = expression.trim();
    if let Some(body) = expression
        .strip_prefix('\'')
        .and_then(|rest| rest.strip_suffix('\''))
    {
        if body.replace("''", "").contains('\'') {
            return None;
        }
        return Some(body.replace("''", "'"));
    }
    let body = expression.strip_prefix('"')?.strip_suffix('"')?;
    let mut text = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => text.push('\n'),
                Some('t') => text.push('\t'),
                Some(other) => text.push(other),
                None => return None,
            },
            '"' => return None,
            other => text.push(other),
        }
    }
    Some(text)
}

/// The text of `a . b .. c` where every term is a string, `$HOME` or
/// `expand()` of a string.
fn concatenation(expression: &str) -> Option<String> {
    let mut text = String::new();
    let mut rest = expression.trim();
    loop {
        let (term, after) = if let Some(after) = rest.strip_prefix("$HOME") {
            ("~".to_string(), after)
        } else if let Some(after) = rest.strip_prefix("expand(") {
            let end = string_end(after)?;
            let inner = single_string(&after[..end])?;
            (inner, after[end..].trim_start().strip_prefix(')')?)
        } else {
            let end = string_end(rest)?;
            (single_string(&rest[..end])?, &rest[end..])
        };
        text.push_str(&term);
        rest = after.trim_start();
        if rest.is_empty() {
            return Some(text);
        }
        rest = rest
            .strip_prefix("..")
            .or_else(|| rest.strip_prefix('.'))?
            .trim_start();
    }
}

/// Where the string literal at the start of `text` ends (after its quote).
fn string_end(text: &str) -> Option<usize> {
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && text[at + 1..].starts_with('\'') {
                chars.next();
                continue;
            }
            return Some(at + 1);
        }
    }
    None
}

/// The strings of a list literal `['rm', '-rf', '/']`, if all are strings.
fn list_strings(list: &str) -> Option<Vec<String>> {
    let body = list.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut text = body.to_string();
    text.push(')');
    arguments(&text)
        .iter()
        .map(|item| single_string(item))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    use super::super::line_commands as commands;

    #[test]
    fn shell_escapes_are_read_as_shell_code() {
        for (line, want) in [
            ("vim -c '!rm -rf /' -c q", "rm -rf /"),
            ("vim -es -c ':silent !rm -rf ~' -c 'qa!'", "rm -rf ~"),
            ("nvim --headless +'r !cat .env' +'%p' +q", "cat .env"),
            ("vim -c '%!git push --force' -c wq x", "git push --force"),
            (r#"vim -c 'call system("rm -rf ~")' -c q"#, "rm -rf ~"),
            (
                "nvim --headless -c \"lua os.execute('rm -rf ~')\" -c q",
                "rm -rf ~",
            ),
            (
                "vim -c 'py3 import shutil; shutil.rmtree(\"/home/u\")' -c q",
                "rm -r -f -- /home/u",
            ),
            (r#"vim -c 'exe "!rm -rf /"' -c q"#, "rm -rf /"),
            (
                "vim -c 'call jobstart([\"git\", \"reset\", \"--hard\"])'",
                "git reset --hard",
            ),
            ("vim -c 'terminal ++close rm -rf ~'", "rm -rf ~"),
            ("vim -c 'g/^/!rm -rf ~' x", "rm -rf ~"),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
            assert!(!analyze(line).is_opaque(), "{line}: {:?}", analyze(line));
        }
    }

    #[test]
    fn file_functions_and_commands_are_their_commands() {
        for (line, want) in [
            (
                "vim -c \"call delete(expand('~/.ssh'), 'rf')\" -c q",
                "rm -r -f -- ~/.ssh",
            ),
            ("vim -es -c 'r .env' -c '%p' -c 'q!'", "cat -- .env"),
            (
                "vim -c \"call writefile(['x'], $HOME . '/.bashrc')\"",
                "tee -- ~/.bashrc",
            ),
            ("vim -c 'w >> ~/.bashrc' -c q notes", "tee -- ~/.bashrc"),
            (
                "vim -c \"echo readfile('/home/u/.aws/credentials')\" -c q",
                "cat -- /home/u/.aws/credentials",
            ),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
        }
    }

    #[test]
    fn run_time_commands_are_opaque() {
        for line in [
            "vim -c 'call system(g:cmd)'",
            "vim -c 'exe g:cmd'",
            "vim -c 'normal :!rm -rf ~'",
            // The buffer piped into a shell runs as its commands.
            "vim --cmd 'w !sh' x",
        ] {
            assert!(analyze(line).is_opaque(), "{line}: {:?}", analyze(line));
        }
    }

    #[test]
    fn editing_lines_add_nothing() {
        for line in [
            "vim +42 src/main.rs",
            "vim +/TODO src/main.rs",
            "vim -c 'set number' -c 'normal G' README.md",
            "nvim --headless -c 'PlugInstall' -c 'qa'",
            "vim -c 'wq' notes.txt",
            "nvim --headless +'Lazy! sync' +qa",
            "vim -c '%s/foo/bar/g' -c 'wq' src/lib.rs",
        ] {
            let analysis = analyze(line);
            assert!(!analysis.is_opaque(), "{line}: {analysis:?}");
            let found = commands(line);
            assert!(
                found
                    .iter()
                    .all(|c| c.starts_with("vim") || c.starts_with("nvim")),
                "{line}: {found:?}"
            );
        }
    }
}
