//! `cmd /c CODE`: Windows' command interpreter, reached from Git Bash or
//! PowerShell (`cmd /c type %USERPROFILE%\.ssh\id_rsa`, `cmd /c rd /s /q
//! C:\Users\me`).
//!
//! Its code is translated into the shell code the rules already judge:
//! the built-in commands that read, copy, move and delete files become
//! `cat`, `cp`, `mv` and `rm` (with `-r` for `/s`), its switches (`/q`)
//! are dropped, the home directory's variables become `~` and `&` between
//! commands becomes `;`. Other programs keep their words. The translation
//! follows cmd's rules only as far as the guard needs: what it cannot read
//! (a `^` escape, `%VAR%` other than the home's, parentheses) makes the
//! code unknown rather than guessed.

use super::launchers::{Launch, Nested};
use super::words::Word;
use super::OpaqueKind;

/// Follows `cmd /c CODE` and `cmd /k CODE` (switches before them, such as
/// `/s` or `/q`, are cmd's own).
pub fn cmd(args: &[Word], launch: &mut Launch) {
    let Some(at) = args.iter().position(|w| {
        let t = w.text.to_ascii_lowercase();
        t == "/c" || t == "/k" || t == "/r"
    }) else {
        return;
    };
    let code: Vec<&str> = args[at + 1..].iter().map(|w| w.text.as_str()).collect();
    if code.is_empty() {
        return;
    }
    let literal = args[at + 1..].iter().all(|w| w.literal);
    match translate(&code.join(" ")) {
        Some(source) => launch.nested.push(Nested::Script {
            source,
            via: "cmd /c".to_string(),
            literal,
        }),
        None => launch.opaque.push((
            OpaqueKind::DynamicEval,
            "`cmd /c` code this guard cannot read (escapes, variables or blocks)".to_string(),
        )),
    }
}

/// The shell code for cmd's `code`, or `None` when it uses what is not
/// translated.
fn translate(code: &str) -> Option<String> {
    if code.contains(['^', '(', ')']) {
        return None;
    }
    let code = home_variables(code)?;
    let mut out = String::new();
    let mut rest = code.as_str();
    loop {
        let (command, separator, after) = next_command(rest);
        out.push_str(&command_line(command)?);
        match separator {
            Some(sep) => {
                out.push(' ');
                out.push_str(sep);
                out.push(' ');
                rest = after;
            }
            None => return Some(out),
        }
    }
}

/// `code` with the home's variables as `~`; `None` for any other `%VAR%`.
fn home_variables(code: &str) -> Option<String> {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(start) = rest.find('%') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find('%')?;
        let name = after[..end].to_ascii_lowercase();
        match name.as_str() {
            "userprofile" | "home" => out.push('~'),
            "homedrive" => {}
            "homepath" => out.push('~'),
            "cd" => out.push('.'),
            _ => return None,
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    // `%HOMEDRIVE%%HOMEPATH%` is the home too.
    Some(out)
}

/// The first command of `code`, the separator after it (as the shell
/// writes it) and the code after that. Separators inside double quotes do
/// not count.
fn next_command(code: &str) -> (&str, Option<&'static str>, &str) {
    let mut quoted = false;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => quoted = !quoted,
            b'&' | b'|' if !quoted => {
                let double = bytes.get(i + 1) == Some(&bytes[i]);
                let sep = match (bytes[i], double) {
                    (b'&', true) => "&&",
                    (b'&', false) => ";",
                    (_, true) => "||",
                    (_, false) => "|",
                };
                let skip = if double { 2 } else { 1 };
                return (&code[..i], Some(sep), &code[i + skip..]);
            }
            _ => {}
        }
        i += 1;
    }
    (code, None, "")
}

/// One command in shell words, with cmd's file built-ins named as the
/// shell's programs.
fn command_line(command: &str) -> Option<String> {
    let words = split_words(command)?;
    let Some((first, args)) = words.split_first() else {
        return Some(String::new());
    };
    let name = first.to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    let switches: Vec<String> = args
        .iter()
        .filter(|a| a.starts_with('/') && a.len() <= 3)
        .map(|a| a.to_ascii_lowercase())
        .collect();
    let operands = args
        .iter()
        .filter(|a| !(a.starts_with('/') && a.len() <= 3))
        .map(|a| quoted(a));
    let recursive = switches.iter().any(|s| s == "/s");
    let program: Vec<&str> = match name {
        "type" | "more" => vec!["cat"],
        "del" | "erase" => {
            if recursive {
                vec!["rm", "-r", "-f"]
            } else {
                vec!["rm", "-f"]
            }
        }
        "rd" | "rmdir" => {
            if recursive {
                vec!["rm", "-r", "-f"]
            } else {
                vec!["rmdir"]
            }
        }
        "copy" | "xcopy" | "robocopy" => vec!["cp", "-r"],
        "move" | "ren" | "rename" => vec!["mv"],
        "findstr" => vec!["grep"],
        // Anything else keeps its name and switches.
        _ => {
            let mut line = vec![quoted(first)];
            line.extend(args.iter().map(|a| quoted(a)));
            return Some(line.join(" "));
        }
    };
    let mut line: Vec<String> = program.into_iter().map(str::to_string).collect();
    line.push("--".to_string());
    line.extend(operands);
    Some(line.join(" "))
}

/// cmd's words: blanks split them, double quotes group them.
fn split_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return None;
    }
    if started {
        words.push(word);
    }
    Some(words)
}

/// A word for the shell: single-quoted, but a leading `~` (the home)
/// outside the quotes.
fn quoted(word: &str) -> String {
    let (home, rest) = match word.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with(['/', '\\']) => ("~", rest),
        _ => ("", word),
    };
    if rest.is_empty() {
        return home.to_string();
    }
    format!("{home}'{}'", rest.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_builtins_become_the_shells_programs() {
        for (code, expected) in [
            (r"type %USERPROFILE%\.ssh\id_rsa", r"cat -- ~'\.ssh\id_rsa'"),
            (r"rd /s /q C:\Users\me", r"rm -r -f -- 'C:\Users\me'"),
            (r"del /f .env", "rm -f -- '.env'"),
            (
                r#"copy "%HOMEDRIVE%%HOMEPATH%\.aws\credentials" x.txt & dir"#,
                r"cp -r -- ~'\.aws\credentials' 'x.txt' ; 'dir'",
            ),
            ("npm test && echo ok", "'npm' 'test' && 'echo' 'ok'"),
        ] {
            assert_eq!(translate(code).as_deref(), Some(expected), "{code}");
        }
    }

    #[test]
    fn what_is_not_translated_is_unknown() {
        for code in ["type %SECRET_FILE%", "echo ^& x", "(type .env)", "type \"x"] {
            assert_eq!(translate(code), None, "{code}");
        }
    }
}
