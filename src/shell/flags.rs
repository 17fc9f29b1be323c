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
//! seeing a flag, which is the safe side for a guard.

use super::SimpleCommand;
use std::collections::BTreeSet;

/// Short and long flags found in `args` before `--`.
pub fn collect<'a>(args: impl IntoIterator<Item = &'a str>) -> (BTreeSet<char>, BTreeSet<String>) {
    let mut short = BTreeSet::new();
    let mut long = BTreeSet::new();
    for arg in options_part(args) {
        if let Some(name) = arg.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or_default();
            if !name.is_empty() {
                long.insert(name.to_string());
            }
        } else if let Some(cluster) = arg.strip_prefix('-') {
            short.extend(cluster.chars());
        }
    }
    (short, long)
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
            !long.is_empty() && command.long_flags.contains(long)
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
