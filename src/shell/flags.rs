//! Option flags of a command, normalised so spelling does not matter.
//!
//! `rm -rf`, `rm -fr`, `rm -r -f`, `rm -Rf` and `rm --recursive --force`
//! are the same request. Policies ask "is -r or --recursive present?" through
//! [`SimpleCommand::has_flag`](super::SimpleCommand::has_flag) instead of
//! matching argument strings. Everything after a `--` terminator is an
//! operand (`rm -- -rf` removes a file named `-rf`), so scanning stops there.
//!
//! The scan does not know each program's option grammar: a value that looks
//! like a cluster (`git commit -m -rf`) counts as flags. That errs towards
//! seeing a flag, which is the safe side for a guard. In the same spirit:
//!
//! - A word with an expansion in it still contributes its literal letters:
//!   `-rf${IFS}/` and `-r${EMPTY}f` reach `rm` as `-rf` in practice, so they
//!   count as `-r` and `-f`. What the expansion itself may add is unknown.
//! - A long option matches any spec it abbreviates (`--rec`, `--forc`):
//!   getopt_long and argparse accept unambiguous prefixes, and an ambiguous
//!   one makes the program refuse to run, so seeing the flag is harmless.

use super::words::Word;
use super::SimpleCommand;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// Short and long flags found in `args` (all literal) before `--`.
#[cfg(test)]
pub fn collect<'a>(args: impl IntoIterator<Item = &'a str>) -> (BTreeSet<char>, BTreeSet<String>) {
    let mut short = BTreeSet::new();
    let mut long = BTreeSet::new();
    for arg in options_part(args) {
        add_flags(arg, &mut short, &mut long);
    }
    (short, long)
}

/// Short and long flags of shell words before a literal `--`. A word with
/// expansions counts with the expansions removed (`-r${X}f` is `-rf`); it
/// never ends the options, since what it expands to is unknown.
pub fn collect_words<'a>(
    args: impl IntoIterator<Item = &'a Word>,
) -> (BTreeSet<char>, BTreeSet<String>) {
    let mut short = BTreeSet::new();
    let mut long = BTreeSet::new();
    for word in args {
        if word.literal && word.text == "--" {
            break;
        }
        let text = if word.literal {
            Cow::Borrowed(word.text.as_str())
        } else {
            Cow::Owned(without_expansions(&word.text))
        };
        add_flags(&text, &mut short, &mut long);
    }
    (short, long)
}

fn add_flags(arg: &str, short: &mut BTreeSet<char>, long: &mut BTreeSet<String>) {
    if let Some(name) = arg.strip_prefix("--") {
        let name = name.split('=').next().unwrap_or_default();
        if !name.is_empty() {
            long.insert(name.to_string());
        }
    } else if let Some(cluster) = arg.strip_prefix('-') {
        short.extend(cluster.chars());
    }
}

/// The literal text of a word whose expansions are kept as written: `$NAME`,
/// `$1`, `$@`, `${...}`, `$(...)`, `$((...))` and `` `...` `` removed.
pub fn without_expansions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                for inner in chars.by_ref() {
                    if inner == '`' {
                        break;
                    }
                }
            }
            '$' => match chars.peek().copied() {
                Some(open @ ('{' | '(')) => {
                    let close = if open == '{' { '}' } else { ')' };
                    let mut depth = 0usize;
                    for inner in chars.by_ref() {
                        if inner == open {
                            depth += 1;
                        } else if inner == close {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                    }
                }
                Some(n) if n.is_ascii_alphabetic() || n == '_' => {
                    while chars
                        .peek()
                        .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_')
                    {
                        chars.next();
                    }
                }
                Some(n) if n.is_ascii_digit() || "@*#?$!-".contains(n) => {
                    chars.next();
                }
                _ => out.push('$'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// Arguments up to (not including) the first `--`.
fn options_part<'a>(args: impl IntoIterator<Item = &'a str>) -> impl Iterator<Item = &'a str> {
    args.into_iter().take_while(|a| *a != "--")
}

/// See [`SimpleCommand::has_flag`].
pub fn matches_spec(command: &SimpleCommand, spec: &str) -> bool {
    spec.split('|').map(str::trim).any(|alt| {
        if let Some(long) = alt.strip_prefix("--") {
            let long = long.split('=').next().unwrap_or_default();
            // `--rec` is `--recursive` to getopt_long when unambiguous.
            !long.is_empty()
                && command
                    .long_flags
                    .iter()
                    .any(|given| long.starts_with(given.as_str()))
        } else if let Some(short) = alt.strip_prefix('-') {
            let mut chars = short.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => command.short_flags.contains(&c),
                // `-delete`, `-exec`: a whole single-dash word.
                (Some(_), Some(_)) => {
                    options_part(command.args.iter().map(String::as_str)).any(|a| a == alt)
                }
                _ => false,
            }
        } else {
            false
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(args: &[&str]) -> SimpleCommand {
        let (short_flags, long_flags) = collect(args.iter().copied());
        SimpleCommand {
            program: "rm".into(),
            program_path: "rm".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            wrappers: vec![],
            via: vec![],
            assignments: vec![],
            short_flags,
            long_flags,
            call: None,
            targets: vec![],
            writes: vec![],
            reads: vec![],
        }
    }

    #[test]
    fn clusters_and_separate_flags_are_the_same() {
        for args in [
            &["-rf", "/"][..],
            &["-fr", "/"],
            &["-r", "-f", "/"],
            &["-Rfv", "/"],
        ] {
            let c = command(args);
            assert!(c.has_flag("-r|-R"), "{args:?}");
            assert!(c.has_flag("-f"), "{args:?}");
        }
        assert!(command(&["-Rfv"]).short_flags.contains(&'v'));
    }

    #[test]
    fn long_flags_ignore_values() {
        let c = command(&["--recursive", "--force=yes"]);
        assert!(c.has_flag("-r|--recursive"));
        assert!(c.has_flag("--force"));
        assert!(!c.has_flag("--verbose"));
        assert_eq!(c.long_flags.len(), 2);
    }

    #[test]
    fn long_flags_match_their_abbreviations() {
        let c = command(&["--rec", "--f", "x"]);
        assert!(c.has_flag("-r|--recursive"));
        assert!(c.has_flag("--force"));
        let c = command(&["--recursive-ish"]);
        assert!(!c.has_flag("--recursive"));
        assert!(!command(&["--", "--rec"]).has_flag("--recursive"));
    }

    fn dynamic(text: &str) -> Word {
        Word {
            text: text.into(),
            literal: false,
            pattern: false,
        }
    }

    #[test]
    fn expansions_inside_a_flag_word_leave_its_letters() {
        assert_eq!(without_expansions("-rf${IFS}/"), "-rf/");
        assert_eq!(without_expansions("-r${X:-a}f"), "-rf");
        assert_eq!(without_expansions("-r$Xf"), "-r");
        assert_eq!(without_expansions("-r$(echo x)f`y`"), "-rf");
        assert_eq!(without_expansions("--for$1ce"), "--force");
        assert_eq!(without_expansions("a$"), "a$");
        let words = [Word::literal("-r"), dynamic("-${E}f"), dynamic("--recu$X")];
        let (short, long) = collect_words(&words);
        assert!(short.contains(&'r') && short.contains(&'f'));
        assert!(long.contains("recu"));
        // Only a literal `--` ends the options.
        let words = [dynamic("-$X-"), dynamic("--$X"), Word::literal("-f")];
        assert!(collect_words(&words).0.contains(&'f'));
        let words = [Word::literal("--"), Word::literal("-f")];
        assert!(collect_words(&words).0.is_empty());
    }

    #[test]
    fn double_dash_ends_options() {
        let c = command(&["--", "-rf"]);
        assert!(c.short_flags.is_empty());
        assert!(!c.has_flag("-r|-f|-rf"));
        let c = command(&["-i", "--", "--force"]);
        assert!(c.has_flag("-i"));
        assert!(!c.has_flag("--force"));
    }

    #[test]
    fn single_dash_words_match_whole_arguments() {
        let c = command(&[".", "-name", "x", "-delete"]);
        assert!(c.has_flag("-delete"));
        assert!(!c.has_flag("-exec"));
        // Clusters still contribute their letters.
        assert!(c.has_flag("-d"));
    }

    #[test]
    fn operands_and_empty_specs_do_not_match() {
        let c = command(&["-", "file"]);
        assert!(c.short_flags.is_empty());
        assert!(!c.has_flag(""));
        assert!(!c.has_flag("file"));
        assert!(!c.has_flag("-"));
    }
}
