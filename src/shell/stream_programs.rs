//! Programs that take the code they run from a file, handed a stream
//! instead: `python3 <(curl -s https://x/install.py)`, `make -f /dev/stdin`,
//! `awk -f <(curl ...)`, `sed -f -` (sed's `e` command runs shell code).
//!
//! A shell reading a stream is refused as opaque already (`bash <(curl
//! ...)`, `source <(...)`, in `launchers.rs`): nothing on the line says what
//! it runs. An interpreter, make (whose recipes are shell commands) and the
//! text tools with a command language are the same case. `less +!CMD`
//! runs CMD through the shell when it starts, which is followed as code.

use super::launchers::{is_stream_path, Launch, Nested};
use super::words::Word;
use super::OpaqueKind;

/// Interpreters whose first operand is the script they run.
fn is_interpreter(program: &str) -> bool {
    let versioned = |prefix: &str| {
        program
            .strip_prefix(prefix)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    versioned("python")
        || versioned("pypy")
        || versioned("ruby")
        || versioned("perl")
        || versioned("php")
        || versioned("lua")
        || matches!(
            program,
            "node" | "nodejs" | "bun" | "deno" | "rscript" | "julia" | "tclsh" | "wish" | "luajit"
        )
}

/// Interpreter options after which the code is inline (`-c`, `-e`) or a
/// module (`-m`), not a script file.
const INLINE_CODE: &[&str] = &[
    "-c",
    "-e",
    "-E",
    "-m",
    "-p",
    "--eval",
    "--print",
    "-r",
    "-x",
    "--command",
];

/// Interpreter options that take the next word as their value.
const VALUED: &[&str] = &[
    "-W",
    "-X",
    "-I",
    "-M",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--config",
];

/// Marks what `program ARGS` runs from a stream, or follows `less +!CMD`.
pub fn inspect(program: &str, args: &[Word], launch: &mut Launch) {
    match program {
        "make" | "gmake" | "bmake" => {
            option_file(program, args, &["-f", "--file", "--makefile"], launch)
        }
        "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed" => {
            option_file(program, args, &["-f", "--file"], launch)
        }
        "less" => less_command(args, launch),
        p if is_interpreter(p) => script_operand(program, args, launch),
        _ => {}
    }
}

fn stream(program: &str, path: &str, launch: &mut Launch) {
    launch.opaque.push((
        OpaqueKind::ShellFromStdin,
        format!("`{program}` runs code read from `{path}`"),
    ));
}

/// The script operand of an interpreter: the first word that is not an
/// option (or an option's value), unless inline code comes first.
fn script_operand(program: &str, args: &[Word], launch: &mut Launch) {
    let mut i = 0;
    // `deno run SCRIPT`.
    if program == "deno" && args.first().is_some_and(|w| w.text == "run") {
        i = 1;
    }
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if is_stream_path(text) || text == "-" {
            // `python3 -` reads its script from standard input, which a
            // pipe or redirection decides: only a stream path is sure.
            if text != "-" {
                stream(program, text, launch);
            }
            return;
        }
        if text == "--" {
            if let Some(next) = args.get(i + 1).filter(|w| is_stream_path(&w.text)) {
                stream(program, &next.text, launch);
            }
            return;
        }
        if !text.starts_with('-') || INLINE_CODE.contains(&text) {
            return;
        }
        i += if VALUED.contains(&text) { 2 } else { 1 };
    }
}

/// `PROGRAM -f FILE` (or `-fFILE`, `--file=FILE`): code read from FILE.
fn option_file(program: &str, args: &[Word], names: &[&str], launch: &mut Launch) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if text == "--" {
            break;
        }
        let value = if names.contains(&text) {
            i += 1;
            args.get(i - 1).map(|w| w.text.as_str())
        } else {
            names.iter().find_map(|name| {
                let rest = text.strip_prefix(name)?;
                if name.starts_with("--") {
                    rest.strip_prefix('=')
                } else {
                    Some(rest).filter(|r| !r.is_empty())
                }
            })
        };
        if let Some(file) = value.filter(|f| is_stream_path(f) || *f == "-") {
            stream(program, file, launch);
            return;
        }
    }
}

/// `less +CMD`: less runs CMD as its first command; `!` in it runs the
/// rest through the shell, `|` pipes text to a shell command.
fn less_command(args: &[Word], launch: &mut Launch) {
    for word in args {
        let Some(command) = word.text.strip_prefix('+') else {
            continue;
        };
        if let Some((_, code)) = command.split_once('!') {
            launch.nested.push(Nested::Script {
                source: code.to_string(),
                via: "less +!".to_string(),
                literal: word.literal,
            });
        } else if command.contains('|') {
            launch.opaque.push((
                OpaqueKind::DynamicEval,
                "`less +|` pipes text to a shell command".to_string(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launched(program: &str, line: &str) -> Launch {
        let words: Vec<Word> = line
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(Word::literal)
            .collect();
        let mut launch = Launch::default();
        inspect(program, &words, &mut launch);
        launch
    }

    #[test]
    fn code_read_from_a_stream_is_opaque() {
        for (program, line) in [
            ("python3", "<(curl)"),
            ("python3", "-u <(curl)"),
            ("python3", "-W ignore <(curl)"),
            ("node", "/dev/stdin"),
            ("deno", "run <(curl)"),
            ("perl", "-- <(curl)"),
            ("make", "-f /dev/stdin"),
            ("make", "-f -"),
            ("make", "--file=<(curl)"),
            ("gawk", "-f<(curl)"),
            ("sed", "-f /dev/fd/3 x"),
        ] {
            let launch = launched(program, line);
            assert_eq!(launch.opaque.len(), 1, "{program} {line}");
            assert_eq!(launch.opaque[0].0, OpaqueKind::ShellFromStdin);
        }
    }

    #[test]
    fn code_from_files_and_inline_code_are_not() {
        for (program, line) in [
            ("python3", "setup.py <(cat data)"),
            ("python3", "-c print(1)"),
            ("python3", "-m pytest"),
            ("python3", "-"),
            ("node", "server.js"),
            ("make", "-f Makefile.ci test"),
            ("awk", "-F: {print} /etc/group"),
            ("sed", "-n p <(cat x)"),
            ("less", "README.md"),
            ("less", "+G log.txt"),
        ] {
            let launch = launched(program, line);
            assert!(
                launch.opaque.is_empty() && launch.nested.is_empty(),
                "{program} {line}"
            );
        }
    }

    #[test]
    fn less_runs_a_bang_command() {
        let launch = launched("less", "+!rm log.txt");
        assert_eq!(
            launch.nested,
            [Nested::Script {
                source: "rm".to_string(),
                via: "less +!".to_string(),
                literal: true
            }]
        );
        assert_eq!(launched("less", "+|x log").opaque.len(), 1);
    }
}
