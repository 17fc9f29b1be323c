//! .NET static methods called from PowerShell (`[IO.File]::ReadAllText('.env')`).
//!
//! PowerShell reaches the whole .NET library: `[System.IO.File]::Delete(p)`
//! removes a file as surely as `Remove-Item`, and `[IO.File]::ReadAllBytes(
//! '~/.ssh/id_rsa')` prints a key as surely as `Get-Content`. Cmdlets are
//! read by their names; these calls are read by type and method, and each
//! comes back as the command that does the same (`rm -f -- p`, `cat -- p`),
//! so the rules about those commands apply. Only file, directory, process
//! and environment methods are listed: the rest of the library neither
//! deletes, writes, runs nor reveals, and URLs anywhere in the code are
//! already taken as fetches.

use super::{word, Found, PsWord};

/// `[Type]::Method(args)`, as found in the code: the type in lower case
/// without its `system.` namespace, the method in lower case, and the
/// argument text between the parentheses; `written` as in the code.
#[derive(Debug, Clone)]
pub(super) struct StaticCall {
    pub written: String,
    pub type_name: String,
    pub method: String,
    pub args: String,
}

/// What a call does, as a command.
pub(super) enum Action {
    /// `program flags -- operands`.
    Library {
        program: &'static str,
        flags: &'static [&'static str],
        operands: Vec<PsWord>,
    },
    /// A program started with these words.
    Run(Vec<PsWord>),
    /// The environment read as `env` or `printenv NAME` would print it.
    Environment(Vec<PsWord>),
}

/// The name of a static call that ends `text` just before its `(`
/// (`[System.IO.File]::ReadAllText`), its type and its method.
pub(super) fn callee(text: &str) -> Option<(&str, String, String)> {
    let open = text.rfind('[')?;
    let (type_name, method) = text[open + 1..].split_once("]::")?;
    let plain = |s: &str, extra: char| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == extra)
    };
    if !plain(type_name, '.') || !plain(method, '_') {
        return None;
    }
    let type_name = type_name.to_ascii_lowercase();
    let type_name = type_name
        .strip_prefix("system.")
        .unwrap_or(&type_name)
        .to_string();
    Some((&text[open..], type_name, method.to_ascii_lowercase()))
}

/// What `call` does, if it touches files, starts a program or reveals the
/// environment.
pub(super) fn action(call: &StaticCall) -> Option<Action> {
    let args = arguments(&call.args);
    let first = |n: usize| args.iter().take(n).cloned().collect::<Vec<_>>();
    let library = |program, flags, operands: Vec<PsWord>| {
        (!operands.is_empty()).then_some(Action::Library {
            program,
            flags,
            operands,
        })
    };
    let literal = |text: &str| PsWord {
        text: text.to_string(),
        known: true,
        quoted: false,
        items: vec![text.to_string()],
    };
    match (call.type_name.as_str(), call.method.as_str()) {
        ("io.file" | "microsoft.visualbasic.fileio.filesystem", method) => match method {
            "readalltext" | "readallbytes" | "readalllines" | "readlines" | "openread"
            | "opentext" | "open" | "readalltextasync" | "readallbytesasync"
            | "readalllinesasync" | "readlinesasync" => library("cat", &[], first(1)),
            "writealltext"
            | "writeallbytes"
            | "writealllines"
            | "appendalltext"
            | "appendalllines"
            | "create"
            | "createtext"
            | "appendtext"
            | "openwrite"
            | "writealltextasync"
            | "writeallbytesasync"
            | "writealllinesasync"
            | "appendalltextasync"
            | "appendalllinesasync"
            | "setattributes" => library("tee", &[], first(1)),
            "delete" | "deletefile" => library("rm", &["-f"], first(1)),
            "copy" | "copyfile" => library("cp", &[], first(2)),
            "move" | "movefile" | "replace" => library("mv", &[], first(2)),
            "createsymboliclink" => library("ln", &["-s"], vec_rev(first(2))),
            "deletedirectory" => library("rm", &["-r", "-f"], first(1)),
            "copydirectory" => library("cp", &["-r"], first(2)),
            "movedirectory" => library("mv", &[], first(2)),
            _ => None,
        },
        ("io.directory", method) => match method {
            // `Delete(path, $true)` deletes the tree; without it, an
            // empty directory.
            "delete" if args.get(1).is_some_and(|r| !is_false(r)) => {
                library("rm", &["-r", "-f"], first(1))
            }
            "delete" => library("rmdir", &[], first(1)),
            "move" => library("mv", &[], first(2)),
            "createsymboliclink" => library("ln", &["-s"], vec_rev(first(2))),
            _ => None,
        },
        // Streams opened on a path read or write it.
        ("io.streamreader" | "io.filestream", "new") => library("cat", &[], first(1)),
        ("io.streamwriter", "new") => library("tee", &[], first(1)),
        ("diagnostics.process", "start") => {
            let mut words = first(1);
            if words.is_empty() {
                return None;
            }
            // The second argument is one string of arguments.
            if let Some(rest) = args.get(1) {
                words.extend(rest.text.split_whitespace().map(|part| PsWord {
                    text: part.to_string(),
                    items: vec![part.to_string()],
                    ..rest.clone()
                }));
            }
            Some(Action::Run(words))
        }
        ("environment", "getenvironmentvariables") => {
            Some(Action::Environment(vec![literal("env")]))
        }
        ("environment", "getenvironmentvariable") => {
            let mut words = vec![literal("printenv")];
            words.extend(first(1));
            Some(Action::Environment(words))
        }
        _ => None,
    }
}

/// `CreateSymbolicLink(link, target)` as `ln -s -- target link`.
fn vec_rev(mut words: Vec<PsWord>) -> Vec<PsWord> {
    words.reverse();
    words
}

fn is_false(word: &PsWord) -> bool {
    matches!(word.text.to_ascii_lowercase().as_str(), "$false" | "0")
}

/// The arguments of a call: the text between its parentheses cut at the
/// commas outside quotes and brackets, each read as a PowerShell word.
/// `[IO.Path]::Combine(a, b)` and `Join-Path a b` in an argument are the
/// joined path.
fn arguments(text: &str) -> Vec<PsWord> {
    split_top_level(text)
        .iter()
        .map(|part| argument(part.trim()))
        .collect()
}

fn argument(text: &str) -> PsWord {
    let lower = text.to_ascii_lowercase();
    let inside = lower
        .strip_prefix("[io.path]::combine(")
        .or_else(|| lower.strip_prefix("[system.io.path]::combine("))
        .and_then(|rest| rest.strip_suffix(')'))
        .map(|rest| &text[text.len() - 1 - rest.len()..text.len() - 1]);
    if let Some(parts) = inside {
        let parts: Vec<PsWord> = split_top_level(parts)
            .iter()
            .map(|p| argument(p.trim()))
            .collect();
        let joined = parts
            .iter()
            .map(|p| p.text.trim_end_matches(['/', '\\']))
            .collect::<Vec<_>>()
            .join("/");
        return PsWord {
            known: parts.iter().all(|p| p.known),
            quoted: true,
            items: vec![joined.clone()],
            text: joined,
        };
    }
    let chars: Vec<char> = text.chars().collect();
    let mut found = Found::default();
    let (word, next) = word(&chars, 0, &mut found);
    if next < chars.len() {
        // More than one word (`$a + '.env'`): only known at run time.
        return PsWord {
            known: false,
            ..word
        };
    }
    word
}

/// `text` cut at the commas that are not inside quotes or brackets.
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            },
        }
        current.push(c);
    }
    if !current.trim().is_empty() || !parts.is_empty() {
        parts.push(current);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::callee;

    #[test]
    fn callee_reads_type_and_method_in_any_case() {
        assert_eq!(
            callee("[System.IO.File]::ReadAllText"),
            Some((
                "[System.IO.File]::ReadAllText",
                "io.file".into(),
                "readalltext".into()
            ))
        );
        assert_eq!(
            callee("$x=[io.directory]::Delete"),
            Some((
                "[io.directory]::Delete",
                "io.directory".into(),
                "delete".into()
            ))
        );
        assert_eq!(callee("Get-Content"), None);
        assert_eq!(callee("[int]::"), None);
    }
}
