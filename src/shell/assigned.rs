//! Variables a script sets to a known value before it uses them.
//!
//! `U=http://169.254.169.254/latest/meta-data; curl $U` fetches the
//! metadata address as surely as writing it after `curl`, and
//! `F=.env; cat $F` prints the file; read word by word, `$U` and `$F` said
//! nothing. A later `$NAME` or `${NAME}` is shown with the value when the
//! value is certain there:
//!
//! - the assignment is a statement of its own at the top of the script
//!   (`U=...;`, `export U=...;`), or starts a list there (`U=... &&`), so
//!   it runs before everything after it, whatever succeeded or failed (not
//!   later in a list, nor inside `if`, a loop, a group, a function, a
//!   pipeline, a background job or a subshell);
//! - the value is literal and stays one word unquoted: no expansion, no
//!   blank, no glob character, not empty;
//! - nothing else on the line names it: the name appears nowhere but in
//!   that assignment and in `$NAME`/`${NAME}` (`read U`, `for U in`,
//!   `U=y` elsewhere, `${U:-y}` leave it as written).
//!
//! Builtins that set a name computed at run time (`read "$n"`, `printf -v
//! "$n"`, `eval`, `source`, `declare -n`, arithmetic) could still change
//! it. The value is shown all the same: it is the value the line wrote,
//! and showing it can only add what rules see. Left as written, `$U` says
//! nothing, so a line that merely held one of those words (`echo "please
//! read this"`, `source venv/bin/activate`) hid `U=...; curl $U` from
//! every rule; and a value changed out of sight is one no rule could see
//! either way.
//!
//! A shell the line starts inherits the exported ones:
//! `export U=http://169.254.169.254/; bash -c 'curl $U'`, also exported
//! by a later `export U` or by `set -a`, and the assignments written in
//! front of the command that starts it (`F=.env bash -c 'cat $F'`,
//! `env U=... sh -c '...'`, taken by the analyser). In that shell's code
//! the value is seen under the same conditions, with no assignment of its
//! own: nothing in the code may set the name.
//!
//! Otherwise the word stays as written, as before. A word given a value
//! keeps `literal: false`, so whatever treats an unknown word with care
//! (a delete target, a program name) still does: the value only adds what
//! rules can see in the text.

use super::walk::{FoundCommand, Input};
use super::words::{self, Word};
use tree_sitter::Node;

/// The certain values known so far in one script's walk.
#[derive(Debug, Default)]
pub struct Assigned {
    /// Set by the script itself, in the order it sets them.
    values: Vec<Value>,
    /// From the environment the script was started with.
    inherited: Vec<(String, String)>,
    /// `set -a` (`set -o allexport`) somewhere on the line: every
    /// assignment may be exported.
    exports_all: bool,
}

#[derive(Debug)]
struct Value {
    name: String,
    text: String,
    exported: bool,
}

impl Assigned {
    /// The values a script whose code is `src` starts with: those of
    /// `environment` (later entries win) that nothing in `src` may change.
    pub fn inheriting(environment: &[(String, String)], src: &str) -> Assigned {
        let mut assigned = Assigned {
            exports_all: src.contains("set -a") || src.contains("allexport"),
            ..Assigned::default()
        };
        if environment.is_empty() || !src.contains('$') {
            return assigned;
        }
        for (at, (name, value)) in environment.iter().enumerate() {
            let overridden = environment[at + 1..].iter().any(|(n, _)| n == name);
            if !overridden && only_assigned_once(name, usize::MAX, src) {
                assigned.inherited.push((name.clone(), value.clone()));
            }
        }
        assigned
    }

    /// The values a process started now would find in its environment.
    pub fn exported(&self) -> Vec<(String, String)> {
        self.values
            .iter()
            .filter(|v| v.exported || self.exports_all)
            .map(|v| (v.name.clone(), v.text.clone()))
            .collect()
    }

    /// Learn the values `statement` sets, if it is an assignment statement
    /// standing at the top of the script.
    pub fn note(&mut self, statement: Node<'_>, src: &str) {
        // Most statements are commands: leave them before any tree walk.
        if !matches!(
            statement.kind(),
            "variable_assignment" | "variable_assignments" | "declaration_command"
        ) {
            return;
        }
        let Some(top) = unconditional_top(statement) else {
            return;
        };
        let after = words::slice(src, statement.end_byte(), src.len()).trim_start();
        let leads_list = top != statement && (after.starts_with("&&") || after.starts_with("||"));
        if !stands_alone(top, src) || !(top == statement || leads_list) {
            return;
        }
        let mut cursor = statement.walk();
        let assignments: Vec<Node<'_>> = match statement.kind() {
            "variable_assignment" => vec![statement],
            "variable_assignments" => statement
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "variable_assignment")
                .collect(),
            "declaration_command" => {
                let keyword = statement.child(0).map(|k| words::node_text(k, src));
                let children: Vec<Node<'_>> = statement.named_children(&mut cursor).collect();
                if keyword != Some("export") {
                    return;
                }
                // `U=x; export U`: the value known already goes to children.
                if children.iter().all(|c| c.kind() == "variable_name") {
                    for child in children {
                        let name = words::node_text(child, src);
                        self.values
                            .iter_mut()
                            .filter(|v| v.name == name)
                            .for_each(|v| v.exported = true);
                    }
                    return;
                }
                if children.iter().any(|c| c.kind() != "variable_assignment") {
                    return;
                }
                children
            }
            _ => return,
        };
        let exported = statement.kind() == "declaration_command";
        for assignment in assignments {
            if let Some((name, text)) = certain_value(assignment, src) {
                self.values.push(Value {
                    name,
                    text,
                    exported,
                });
            }
        }
    }

    /// `command` with the known values in place of their expansions.
    pub fn apply(&self, mut command: FoundCommand) -> FoundCommand {
        // `cat $(echo .env)`: a substitution that only prints a literal.
        for word in command.words.iter_mut().chain(&mut command.writes) {
            if !word.literal && (word.text.contains("echo") || word.text.contains("printf")) {
                word.text = printed_literals(&word.text);
            }
        }
        if self.values.is_empty() && self.inherited.is_empty() {
            return command;
        }
        command.exported = self.exported();
        for word in command.words.iter_mut().chain(&mut command.writes) {
            self.fill_word(word);
        }
        for (_, value) in &mut command.assignments {
            self.fill_word(value);
        }
        match &mut command.input {
            Some(Input::File(path)) => *path = self.fill(path),
            Some(Input::HereString(word)) => self.fill_word(word),
            _ => {}
        }
        for path in &mut command.reads {
            *path = self.fill(path);
        }
        command
    }

    fn fill_word(&self, word: &mut Word) {
        // A literal word holds no expansion: any `$` in it was quoted.
        if !word.literal {
            word.text = self.fill(&word.text);
        }
    }

    /// `text` with each `$NAME` and `${NAME}` of a known name replaced.
    fn fill(&self, text: &str) -> String {
        if !text.contains('$') {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, braced) = match after.strip_prefix('{') {
                Some(inner) => (inner.split('}').next().unwrap_or(""), true),
                None => (&after[..name_length(after)], false),
            };
            let closed = !braced || after[1 + name.len()..].starts_with('}');
            match self.value(name).filter(|_| closed && !name.is_empty()) {
                Some(value) => {
                    out.push_str(value);
                    rest = &after[name.len() + if braced { 2 } else { 0 }..];
                }
                None => {
                    // `$$` is one parameter: its second `$` starts nothing.
                    let skip = if after.starts_with('$') { 2 } else { 1 };
                    out.push_str(&rest[at..at + skip]);
                    rest = &rest[at + skip..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    fn value(&self, name: &str) -> Option<&str> {
        let own = self.values.iter().find(|v| v.name == name);
        own.map(|v| v.text.as_str()).or_else(|| {
            self.inherited
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        })
    }
}

/// `text` with each `$(echo WORD...)`, `` `echo WORD...` `` and
/// `$(printf WORD)` whose words are plain literals (letters, digits and
/// `. _ - / ~ + , : @ %`, optionally in simple quotes) replaced by what it
/// prints, without the newline (which the substitution drops).
fn printed_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let open = ["$(", "`"]
            .iter()
            .filter_map(|o| rest.find(o).map(|at| (at, *o)))
            .min();
        let Some((at, opener)) = open else {
            break;
        };
        let closer = if opener == "`" { '`' } else { ')' };
        let inner_start = at + opener.len();
        let printed = rest[inner_start..].find(closer).and_then(|len| {
            let inner = &rest[inner_start..inner_start + len];
            Some((printed_by(inner)?, inner_start + len + 1))
        });
        match printed {
            Some((value, end)) => {
                out.push_str(&rest[..at]);
                out.push_str(&value);
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[..inner_start]);
                rest = &rest[inner_start..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// What `echo WORD...` or `printf WORD` prints, when every word is a
/// plain literal.
fn printed_by(command: &str) -> Option<String> {
    let mut words = command.split_whitespace();
    let program = words.next()?;
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-/~+,:@".contains(c);
    let unquote = |w: &str| -> Option<String> {
        let bare = ['\'', '"']
            .iter()
            .find_map(|q| w.strip_prefix(*q).and_then(|x| x.strip_suffix(*q)))
            .unwrap_or(w);
        (!bare.is_empty() && bare.chars().all(plain)).then(|| bare.to_string())
    };
    let args: Vec<String> = words.map(unquote).collect::<Option<_>>()?;
    match program {
        // `echo -n x` prints x; other options (`-e`) are read as words here.
        "echo" => {
            let args: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .skip_while(|a| *a == "-n")
                .collect();
            (!args.is_empty()).then(|| args.join(" "))
        }
        "printf" if args.len() == 1 && !args[0].starts_with('-') => Some(args[0].clone()),
        _ => None,
    }
}

/// The top-level statement within which `statement` runs whatever else
/// happens: itself when it stands at the top of the script, or the list it
/// starts (`U=x && curl $U`, `U=x || exit; curl $U`).
fn unconditional_top(statement: Node<'_>) -> Option<Node<'_>> {
    let mut node = statement;
    loop {
        let parent = node.parent()?;
        match parent.kind() {
            "program" => return Some(node),
            "list" if parent.child(0) == Some(node) => node = parent,
            _ => return None,
        }
    }
}

/// True when only `;`, a newline or the script's ends surround
/// `statement` in the source: not `&` (a background job sets nothing in
/// the shell), and not a `|` or `&&` the parser was shown as `;` (see
/// `view::flatten_pipes`), which the tree alone would not tell.
fn stands_alone(statement: Node<'_>, src: &str) -> bool {
    let before = words::slice(src, 0, statement.start_byte()).trim_end_matches([' ', '\t']);
    let after = words::slice(src, statement.end_byte(), src.len()).trim_start_matches([' ', '\t']);
    (before.is_empty() || before.ends_with(['\n', ';']))
        && (after.is_empty() || after.starts_with(['\n', ';']))
}

/// Length of the variable name `text` starts with (0 if none).
fn name_length(text: &str) -> usize {
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        return 0;
    }
    text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len())
}

/// The name and value of `assignment` when the value is certain wherever
/// the script uses the name after it (see the module docs).
fn certain_value(assignment: Node<'_>, src: &str) -> Option<(String, String)> {
    let name_node = assignment.child_by_field_name("name")?;
    let name = words::node_text(name_node, src);
    let operator_at = name_node.end_byte();
    // `U+=x` appends to a value from elsewhere; `U[1]=x` is an array.
    let operator = src.get(operator_at..).unwrap_or("");
    if name_node.kind() != "variable_name" || !operator.starts_with('=') {
        return None;
    }
    let value = words::from_node(assignment.child_by_field_name("value")?, src);
    let text = certain_text(&value)?;
    only_assigned_once(name, name_node.start_byte(), src)
        .then(|| (name.to_string(), text.to_string()))
}

/// The text of an assigned value that stays one word wherever it is
/// expanded unquoted: literal, not empty, no blank, no glob character, no
/// `~` after the start (which bash expands in an assignment only).
pub fn certain_text(value: &Word) -> Option<&str> {
    let text = value.static_text()?;
    let splits = |c: char| c.is_whitespace() || matches!(c, '*' | '?' | '[' | '$' | '`');
    let tilde_inside = text.chars().skip(1).any(|c| c == '~');
    (!text.is_empty() && !text.contains(splits) && !tilde_inside).then_some(text)
}

/// True when `name` appears in `src` only as the assignment at `at` and
/// as `$name` or `${name}`.
fn only_assigned_once(name: &str, at: usize, src: &str) -> bool {
    let bytes = src.as_bytes();
    let is_name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(found) = src[from..].find(name) {
        let start = from + found;
        let end = start + name.len();
        from = end;
        let bounded = (start == 0 || !is_name_byte(bytes[start - 1]))
            && bytes.get(end).is_none_or(|&b| !is_name_byte(b));
        if !bounded || start == at {
            continue;
        }
        let before = &src[..start];
        // `\$NAME` is text here, but the code of a shell the line starts
        // (`bash -c "curl \$U"`) expands it: a use, never an assignment.
        let plain_use = before.ends_with('$') && !before.ends_with("$$");
        let braced_use = before.ends_with("${") && src[end..].starts_with('}');
        // `export NAME` passes the value on without changing it.
        let exported = before.ends_with("export ")
            && src[end..].starts_with([' ', ';', '\n', '&', '|'])
            || before.ends_with("export ") && end == src.len();
        if !(plain_use || braced_use || exported) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    fn args_of(line: &str, program: &str) -> Vec<String> {
        let a = analyze(line);
        a.commands
            .iter()
            .find(|c| c.program == program)
            .map(|c| c.args.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_certain_value_is_seen_where_it_is_used() {
        let url = "http://169.254.169.254/latest/meta-data";
        assert_eq!(args_of(&format!("U={url}; curl $U"), "curl"), [url]);
        assert_eq!(
            args_of(&format!("U={url}\ncurl -s \"${{U}}/x\""), "curl"),
            ["-s", &format!("{url}/x")]
        );
        assert_eq!(args_of("export T=/; rm -rf \"$T\"", "rm"), ["-rf", "/"]);
        assert_eq!(args_of("A=a B=.env; cat $A $B", "cat"), ["a", ".env"]);
        assert_eq!(args_of(&format!("U={url} && curl $U"), "curl"), [url]);
        assert_eq!(
            args_of(&format!("U={url} || exit; a && curl $U"), "curl"),
            [url]
        );
        // Inside substitutions and pipelines that come later.
        assert_eq!(args_of("F=.env; echo $(cat $F) | wc", "cat"), [".env"]);
        // `$$` is the process id, then the letter.
        assert_eq!(args_of("U=x; echo $$U", "echo"), ["$$U"]);
        // Words that merely contain a builtin's name change nothing.
        assert_eq!(
            args_of(&format!("U={url}; curl $U; echo ready # already"), "curl"),
            [url]
        );
    }

    #[test]
    fn a_value_that_may_differ_is_left_as_written() {
        for (line, program, expected) in [
            // Not a statement of its own at the top of the script.
            ("true && U=x; curl $U", "curl", "$U"),
            ("if a; then U=x; fi; curl $U", "curl", "$U"),
            ("(U=x); curl $U", "curl", "$U"),
            ("{ U=x; }; curl $U", "curl", "$U"),
            ("U=x & curl $U", "curl", "$U"),
            ("a | U=x; curl $U", "curl", "$U"),
            ("a | b | U=x; curl $U", "curl", "$U"),
            ("U=x | curl $U", "curl", "$U"),
            ("a && U=x && curl $U", "curl", "$U"),
            ("a | b | U=x && curl $U", "curl", "$U"),
            ("U=x && a & curl $U", "curl", "$U"),
            // Used before it is set, or set for one command only.
            ("curl $U; U=x", "curl", "$U"),
            ("U=x curl $U", "curl", "$U"),
            // Not one literal word.
            ("U=$(cat f); curl $U", "curl", "$U"),
            ("U='a b'; curl $U", "curl", "$U"),
            ("U=*.txt; cat $U", "cat", "$U"),
            ("U=; curl x$U", "curl", "x$U"),
            ("U+=x; curl $U", "curl", "$U"),
            // Set again, or by a name computed at run time.
            ("U=x; U=y; curl $U", "curl", "$U"),
            ("U=x; read U; curl $U", "curl", "$U"),
            ("U=x; read -r a U; curl $U", "curl", "$U"),
            ("U=x; for U in a; do :; done; curl $U", "curl", "$U"),
            ("U=x; printf -v U y; curl $U", "curl", "$U"),
            ("U=x; eval 'U=y'; curl $U", "curl", "$U"),
            ("U=x; echo ${U:-y}; curl $U", "curl", "$U"),
            // Quoted, `$U` is text.
            ("U=x; curl '$U'", "curl", "$U"),
        ] {
            assert_eq!(
                args_of(line, program).last().map(String::as_str),
                Some(expected),
                "{line}"
            );
        }
    }

    #[test]
    fn a_name_set_out_of_sight_still_shows_the_value_the_line_wrote() {
        for line in [
            "U=x; read n; curl $U",
            "U=x; echo \"please read this\"; curl $U",
            "U=x; while read l; do echo $l; done < f; curl $U",
            "U=x; printf -v \"$n\" y; curl $U",
            "U=x; eval \"$c\"; curl $U",
            "U=x; . ./env.sh; curl $U",
            "U=x; source venv/bin/activate; curl $U",
            "U=x; export \"$n=y\"; curl $U",
            "U=x; declare -a list=(a b); curl $U",
            "U=x; a[n]=1; curl $U",
            "U=x; : $((n)); curl $U",
            "U=x; $'\\x72ead' n; curl $U",
        ] {
            assert_eq!(
                args_of(line, "curl").last().map(String::as_str),
                Some("x"),
                "{line}"
            );
        }
    }

    #[test]
    fn a_substitution_that_only_prints_a_literal_is_that_literal() {
        for line in [
            "cat $(echo .env)",
            "cat `echo .env`",
            "cat \"$(echo '.env')\"",
            "cat $(echo -n .env)",
            "cat $(printf .env)",
            "cat $(echo .e)nv",
        ] {
            assert_eq!(args_of(line, "cat"), [".env"], "{line}");
        }
        for (line, kept) in [
            ("cat $(echo $F)", "$(echo $F)"),
            ("cat $(printf %s .env)", "$(printf %s .env)"),
            ("cat $(echo a; rm x)", "$(echo a; rm x)"),
            ("cat $(echo)", "$(echo)"),
        ] {
            assert_eq!(args_of(line, "cat"), [kept], "{line}");
        }
    }

    #[test]
    fn a_shell_the_line_starts_sees_what_it_was_given() {
        let url = "http://169.254.169.254/latest/meta-data";
        for line in [
            format!("export U={url}; bash -c 'curl $U'"),
            format!("export U={url}\nsh -c 'curl \"${{U}}\"'"),
            format!("U={url}; export U; bash -c 'curl $U'"),
            format!("set -a; U={url}; bash -c 'curl $U'"),
            format!("U={url} bash -c 'curl $U'"),
            format!("env U={url} sh -c 'curl \"$U\"'"),
            format!("sudo U={url} bash -c 'curl $U'"),
            // Passed on through every level, and through xargs.
            format!("export U={url}; bash -c \"sh -c 'curl \\$U'\""),
            format!("U={url} xargs -I{{}} sh -c 'curl $U/{{}}' < ids"),
        ] {
            assert_eq!(
                args_of(&line, "curl")
                    .last()
                    .map(String::as_str)
                    .map(|a| a.starts_with(url)),
                Some(true),
                "{line}"
            );
        }
        assert_eq!(args_of("F=.env bash -c 'cat $F'", "cat"), [".env"]);
    }

    #[test]
    fn a_shell_that_may_change_what_it_was_given_keeps_the_word() {
        for line in [
            // Not exported: the child sees its own environment's U.
            "U=x; bash -c 'curl $U'",
            // Set again, or possibly, in the child.
            "export U=x; bash -c 'true && U=y; curl $U'",
            "export U=x; bash -c 'read U; curl $U'",
            "U=x bash -c 'for U in a; do curl $U; done'",
            // Not one certain word.
            "U='a b' bash -c 'curl $U'",
            "U=$V bash -c 'curl $U'",
            // The assignment is for another command.
            "U=x true; bash -c 'curl $U'",
        ] {
            assert_eq!(
                args_of(line, "curl").last().map(String::as_str),
                Some("$U"),
                "{line}"
            );
        }
    }

    #[test]
    fn a_value_keeps_the_word_unknown_for_what_needs_certainty() {
        let a = analyze("D=build; rm -rf $D");
        let rm = a.commands.iter().find(|c| c.program == "rm").unwrap();
        assert_eq!(rm.targets[0].text, "build");
        assert!(!rm.targets[0].literal);
    }
}
