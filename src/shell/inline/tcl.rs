//! Tcl scripts (`tclsh`, `wish`, `expect -c`, `jimsh -e`): commands and
//! words, like a shell's.
//!
//! A Tcl script is a list of commands separated by newlines and `;`; a
//! command is words separated by blanks, where `{...}` is taken as it is,
//! `"..."` and bare words substitute `$var` and `[command]`. What runs
//! other programs is `exec` (its words are a command, `|` a pipe to the
//! next one) and `open "|cmd"`; `file delete -force` deletes trees; `eval`,
//! `uplevel` and `if`/`foreach` bodies are more Tcl. Words holding a
//! substitution are only known at run time; a command substituted with
//! `[...]` runs too and is read.

use super::super::launchers::{Launch, Nested};
use super::super::words::Word;
use super::super::OpaqueKind;

/// Deepest `[...]`, `eval` or body nesting followed.
const MAX_DEPTH: usize = 16;

/// Reads `script`; what it runs and deletes goes to `launch`.
pub fn read(script: &str, literal: bool, label: &str, launch: &mut Launch) {
    read_at(script, literal, label, launch, 0);
}

fn read_at(script: &str, literal: bool, label: &str, launch: &mut Launch, depth: usize) {
    if depth > MAX_DEPTH {
        launch.opaque.push((
            OpaqueKind::TooComplex,
            format!("`{label}`: Tcl code nested deeper than {MAX_DEPTH} levels"),
        ));
        return;
    }
    let chars: Vec<char> = script.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let (words, substituted, next) = command(&chars, at);
        at = next;
        for inner in substituted {
            read_at(&inner, literal, label, launch, depth + 1);
        }
        let words: Vec<Word> = words
            .into_iter()
            .map(|(text, known)| Word {
                text,
                literal: literal && known,
                pattern: false,
            })
            .collect();
        run(&words, literal, label, launch, depth);
    }
}

/// What one Tcl command does.
fn run(words: &[Word], literal: bool, label: &str, launch: &mut Launch, depth: usize) {
    let Some(name) = words.first() else {
        return;
    };
    let args = &words[1..];
    match name.text.as_str() {
        "exec" => {
            // Options first (`-ignorestderr`, `-keepnewline`, `--`).
            let mut start = 0;
            while let Some(w) = args.get(start) {
                if w.text == "--" {
                    start += 1;
                    break;
                }
                if !w.text.starts_with('-') {
                    break;
                }
                start += 1;
            }
            for command in args[start..].split(|w| w.text == "|" || w.text == "|&") {
                let command: Vec<Word> = command
                    .iter()
                    .filter(|w| !is_redirection(&w.text))
                    .cloned()
                    .collect();
                push_argv(launch, command, &format!("{label}: exec"));
            }
        }
        "open" => {
            if let Some(target) = args.first() {
                if let Some(command) = target.text.strip_prefix('|') {
                    let words = super::super::split::env_split_string(command);
                    let words = words
                        .into_iter()
                        .map(|w| Word {
                            literal: w.literal && target.literal,
                            ..w
                        })
                        .collect();
                    push_argv(launch, words, &format!("{label}: open |"));
                } else if args.get(1).is_some_and(|mode| {
                    mode.text.contains(['w', 'a', '+']) || mode.text.contains("WRONLY")
                }) {
                    super::push_library(launch, "tee", &[], vec![target.clone()], label, "open");
                }
            }
        }
        "file" => {
            let Some(sub) = args.first() else { return };
            let rest: Vec<Word> = args[1..]
                .iter()
                .filter(|w| w.text != "--")
                .cloned()
                .collect();
            let force = rest.iter().any(|w| w.text == "-force");
            let operands: Vec<Word> = rest.into_iter().filter(|w| w.text != "-force").collect();
            match sub.text.as_str() {
                // `-force` deletes directories that are not empty.
                "delete" => {
                    let flags: &[&str] = if force { &["-r", "-f"] } else { &["-f"] };
                    super::push_library(launch, "rm", flags, operands, label, "file delete");
                }
                "rename" => super::push_library(launch, "mv", &[], operands, label, "file rename"),
                "copy" => super::push_library(launch, "cp", &[], operands, label, "file copy"),
                "link" => super::push_library(launch, "ln", &["-s"], operands, label, "file link"),
                _ => {}
            }
        }
        // Bodies of control structures and `eval`'s words are Tcl code.
        "eval" | "uplevel" | "if" | "while" | "for" | "foreach" | "catch" | "try" | "proc"
        | "after" | "namespace" | "time" | "dict" | "lmap" | "switch" => {
            for word in args {
                if word.literal && word.text.contains(|c: char| c.is_whitespace()) {
                    read_at(&word.text, literal, label, launch, depth + 1);
                } else if matches!(name.text.as_str(), "eval" | "uplevel") && !word.literal {
                    launch.opaque.push((
                        OpaqueKind::DynamicEval,
                        format!(
                            "`{label}`: `{}` runs code only known at run time",
                            name.text
                        ),
                    ));
                }
            }
        }
        "source" | "load" | "interp" => launch.opaque.push((
            OpaqueKind::DynamicEval,
            format!(
                "`{label}`: `{}` runs code the line does not show",
                name.text
            ),
        )),
        _ if !name.literal => launch.opaque.push((
            OpaqueKind::DynamicEval,
            format!("`{label}`: a command named at run time (`{}`)", name.text),
        )),
        _ => {}
    }
}

fn is_redirection(text: &str) -> bool {
    text.starts_with(['<', '>']) || text.starts_with("2>") || text == "&"
}

fn push_argv(launch: &mut Launch, words: Vec<Word>, via: &str) {
    if words.is_empty() {
        return;
    }
    launch.nested.push(Nested::Argv {
        words,
        via: via.to_string(),
        call: None,
        appended: false,
        fill: Vec::new(),
    });
}

/// One command from `at`: its words (text, known before run time), the
/// scripts substituted with `[...]` in it, and where the next command starts.
fn command(chars: &[char], mut at: usize) -> (Vec<(String, bool)>, Vec<String>, usize) {
    let mut words = Vec::new();
    let mut substituted = Vec::new();
    loop {
        // Blanks and line continuations between words.
        while at < chars.len() {
            match chars[at] {
                ' ' | '\t' | '\r' => at += 1,
                '\\' if chars.get(at + 1) == Some(&'\n') => at += 2,
                _ => break,
            }
        }
        match chars.get(at) {
            None => return (words, substituted, at),
            Some('\n' | ';') => return (words, substituted, at + 1),
            // A comment where a command starts.
            Some('#') if words.is_empty() => {
                while at < chars.len() && chars[at] != '\n' {
                    at += if chars[at] == '\\' { 2 } else { 1 };
                }
                continue;
            }
            _ => {}
        }
        let (word, next) = word(chars, at, &mut substituted);
        words.push(word);
        at = next.max(at + 1);
    }
}

/// One word from `at`: `{...}` as written, `"..."` and bare words with
/// backslashes decoded and substitutions marked unknown.
fn word(chars: &[char], at: usize, substituted: &mut Vec<String>) -> ((String, bool), usize) {
    if chars[at] == '{' {
        let mut depth = 0;
        let mut i = at;
        while i < chars.len() {
            match chars[i] {
                '\\' => i += 1,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let text: String = chars[at + 1..i].iter().collect();
                        return ((text, true), i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let text: String = chars[at + 1..].iter().collect();
        return ((text, true), chars.len());
    }
    let quoted = chars[at] == '"';
    let mut i = if quoted { at + 1 } else { at };
    let mut text = String::new();
    let mut known = true;
    while i < chars.len() {
        let c = chars[i];
        if quoted && c == '"' {
            return ((text, known), i + 1);
        }
        if !quoted && (c.is_whitespace() || c == ';') {
            break;
        }
        match c {
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    text.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                i += 2;
                continue;
            }
            '$' => known = false,
            '[' => {
                known = false;
                let mut depth = 0;
                let start = i;
                while i < chars.len() {
                    match chars[i] {
                        '\\' => i += 1,
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                let end = i.min(chars.len());
                substituted.push(chars[start + 1..end].iter().collect());
                text.extend(&chars[start..end.min(chars.len())]);
                i = end + 1;
                continue;
            }
            _ => {}
        }
        text.push(c);
        i += 1;
    }
    ((text, known), i)
}

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    fn programs(line: &str) -> Vec<String> {
        analyze(line)
            .commands
            .iter()
            .map(|c| format!("{} {}", c.program, c.args.join(" ")))
            .collect()
    }

    #[test]
    fn exec_and_file_delete_run_and_delete() {
        let found = programs("tclsh <<< 'exec rm -rf ~'");
        assert!(found.contains(&"rm -rf ~".to_string()), "{found:?}");
        let found = programs("expect -c 'spawn ssh x; file delete -force ~/.ssh'");
        assert!(
            found.contains(&"rm -r -f -- ~/.ssh".to_string()),
            "{found:?}"
        );
        let found = programs("tclsh <<< 'set f [open \"|rm -rf /\" r]'");
        assert!(found.contains(&"rm -rf /".to_string()), "{found:?}");
        let found = programs("tclsh <<< 'if {1} { exec git reset --hard }'");
        assert!(found.contains(&"git reset --hard".to_string()), "{found:?}");
        let found = programs("tclsh <<< 'puts [exec rm -rf ~]'");
        assert!(found.contains(&"rm -rf ~".to_string()), "{found:?}");
    }

    #[test]
    fn ordinary_tcl_runs_nothing_and_unknown_commands_are_opaque() {
        let a = analyze("tclsh <<< 'puts {hello world}; set x 1'");
        assert!(!a.is_opaque());
        assert!(analyze("tclsh <<< '$cmd rm -rf ~'").is_opaque());
        assert!(analyze("echo 'exec rm -rf ~' | tclsh").is_opaque());
        assert!(!analyze("tclsh build.tcl").is_opaque());
    }
}
