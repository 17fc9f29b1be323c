//! Plain lines are read without the bash parser (src/shell/simple.rs); a
//! plain line must analyse exactly as when the parser reads it, or a
//! policy decides differently on it: an allow where the parser would have
//! found what a rule denies. Checked on every line of the corpora and the
//! packs' test payloads, and on generated lines inside the plain subset and
//! just outside it.

mod corpus_support;

use hook_policy::shell;
use proptest::prelude::*;
use serde_json::Value as Json;
use std::path::Path;

/// Every command line the repository's tests know: the shell, benign and
/// dangerous corpora, and the `command` of every pack and policy test.
fn known_lines() -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for (file, columns) in [("shell.tsv", 4), ("benign.tsv", 2), ("dangerous.tsv", 3)] {
        let cases = corpus_support::read(file, columns);
        lines.extend(cases.iter().map(|c| c.field(columns - 1).to_string()));
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["packs", "policies"] {
        let mut files: Vec<_> = std::fs::read_dir(repo.join(dir))
            .unwrap_or_else(|e| panic!("{dir}/: {e}"))
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.to_string_lossy().ends_with(".test.yaml"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("test file");
            let tree: Json =
                serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            collect_commands(&tree, &mut lines);
        }
    }
    lines
}

/// Every string under a `command` key.
fn collect_commands(value: &Json, into: &mut Vec<String>) {
    match value {
        Json::Object(map) => {
            for (key, item) in map {
                match (key.as_str(), item) {
                    ("command", Json::String(line)) => into.push(line.clone()),
                    _ => collect_commands(item, into),
                }
            }
        }
        Json::Array(items) => items.iter().for_each(|i| collect_commands(i, into)),
        _ => {}
    }
}

/// The line analyses alike with and without the plain reading.
fn agrees(line: &str) -> bool {
    shell::analyze(line) == shell::analyze_exact(line)
}

#[test]
fn plain_lines_of_the_corpora_analyse_as_the_parser_reads_them() {
    let lines = known_lines();
    assert!(lines.len() > 2000, "only {} known lines", lines.len());
    let mut plain = 0;
    let mut differ = Vec::new();
    for line in &lines {
        // Also as one stage of a pipeline and after `&&`, where most
        // lines stand in an agent's longer commands, and after directory
        // changes that succeed or may fail.
        for candidate in [
            line.clone(),
            format!("{line} 2>&1 | tail -20 && ls"),
            format!("cd src/a && {line}"),
            format!("cd /tmp || true; {line}"),
        ] {
            if !shell::reads_without_parser(&candidate) {
                continue;
            }
            plain += 1;
            if !agrees(&candidate) {
                differ.push(candidate);
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} plain lines analyse differently without the parser:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // The typical lines an agent runs are plain: if few were, the plain
    // reading would save nothing and this test would compare little.
    eprintln!(
        "{plain} of {} corpus lines read without the parser",
        lines.len() * 4
    );
    assert!(
        plain * 3 > lines.len() * 2,
        "only {plain} of {} lines were read without the parser",
        lines.len() * 4
    );
}

#[test]
fn typical_agent_lines_are_read_without_the_parser() {
    for line in [
        "cargo test --all 2>&1 | tail -20",
        "git status && git diff",
        "npm run build",
        "grep -rn 'TODO' src | head -20",
        "RUST_BACKTRACE=1 cargo test -- --nocapture > test.log 2>&1",
        "git commit -m \"fix: the parser's fast path\"",
    ] {
        assert!(shell::reads_without_parser(line), "{line}");
        assert!(agrees(line), "{line}");
    }
}

#[test]
fn lines_that_change_directory_are_read_without_the_parser() {
    for line in [
        "cd src && cargo test",
        "cd frontend && npm run build > build.log 2>&1",
        "cd frontend && npm run build | tail -20 2>&1",
        "cd /tmp; rm -rf build",
        "cd / && rm -rf usr",
        "cd .. && rm -rf target",
        "cd ~ && rm -rf proj",
        "cd && rm -rf Documents",
        "cd /tmp/a/b; rm -rf ../x",
        "cd /nowhere || rm -rf ../x",
        "cd src; cd ..; rm -rf .git",
        "cd - && rm -rf build",
        "cd ~other && rm -rf x",
        "pushd /etc && rm -rf ssl",
        "popd; rm -rf build",
        "command cd / && rm -rf usr",
        "builtin cd -P -- /srv && rm -rf data",
        "CDPATH=/ cd etc; rm -rf ssl",
        "ls | cd /; rm -rf dist",
        "cd / 2>/dev/null && rm -rf usr",
        "cd > log / && rm -rf usr",
        "eval 'cd /'; rm -rf usr",
        "cd 'my dir' && cat < .env > out",
        "cd src && bash -c 'cd .. && rm -rf build'",
    ] {
        assert!(shell::reads_without_parser(line), "{line}");
        assert!(agrees(line), "{line}");
    }
    // The directory change is seen: the same `rm` acts elsewhere.
    let class = |line: &str| {
        let analysis = shell::analyze(line);
        let rm = analysis
            .commands
            .iter()
            .find(|c| c.program == "rm")
            .unwrap();
        shell::resolve_target(&rm.targets[0], "/home/u/proj", Some("/home/u")).class
    };
    assert_eq!(class("cd / && rm -rf usr"), shell::TargetClass::System);
    assert_eq!(class("cd /tmp && rm -rf x"), shell::TargetClass::Temp);
    assert_eq!(class("cd - && rm -rf x"), shell::TargetClass::Unknown);
    assert_eq!(
        class("cd src && rm -rf x"),
        shell::TargetClass::InsideProject
    );
    // `lastpipe`, which lets a pipeline's last stage move the shell, and
    // lines the grammar groups otherwise than bash, still need the tree: a
    // redirected stage before a `|` after `&&` or `||` (the whole list so
    // far is piped on), a pipeline of three stages before `&&` or `||` (the
    // list becomes its last stage).
    for line in [
        "shopt -s lastpipe; true | cd /; rm -rf usr",
        "cd frontend && npm run build 2>&1 | tail -20",
        "cd / || ls > f | rm -rf usr",
        "cd && cd | cd 2>/dev/null |cd 2>/dev/null",
        "true | true | true && cd /; rm -rf usr",
        "cd | cd | rm -rf x || cd && cd 2>/dev/null",
    ] {
        assert!(!shell::reads_without_parser(line), "{line}");
        assert!(agrees(line), "{line}");
    }
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512);
    ProptestConfig {
        cases,
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    }
}

/// Program names in the subset (no `=`, no reserved word, nothing that
/// spells a directory change).
fn program() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "cargo",
        "git",
        "npm",
        "grep",
        "rm",
        "sudo",
        "env",
        "xargs",
        "find",
        "bash",
        "sh",
        "python3",
        "tail",
        "head",
        "'rm'",
        "\"sudo\"",
        "r'm'",
        "/bin/rm",
        "./x",
        "ls",
        "cp",
        "mv",
        "chmod",
        "tee",
        "ssh",
        "timeout",
        "nohup",
        "alias",
        "command",
        "builtin",
        "exec",
        "nice",
        "1",
        "--",
        "x:y",
        "~",
        "~/bin/tool",
        "a,b",
        "+x",
        "_",
        "CP",
        "test",
        "true",
        "kill",
        "curl",
        "wget",
        "dd",
        "tar",
        "git-lfs",
        "sed",
        "awk",
    ])
}

/// Arguments in the subset, keywords and assignment look-alikes included.
fn argument() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "-rf",
        "/",
        "~",
        "~/",
        "-r",
        "-f",
        "--all",
        "-20",
        "20",
        "2",
        "src",
        ".",
        "..",
        "-c",
        "ls",
        "rm",
        "'rm -rf /'",
        "\"rm -rf /\"",
        "'a|b'",
        "\"a;b\"",
        "'$x'",
        "\"it's\"",
        "'*'",
        "''",
        "\"\"",
        "a'b'c",
        "\"a\"'b'",
        "--x=1",
        "X=1",
        "A=b=c",
        "x=",
        "=x",
        "-exec",
        "-i",
        "-e",
        "s/a/b/",
        "origin",
        "main",
        "--force",
        "-9",
        "+%Y",
        "a,b",
        "@",
        "if",
        "then",
        "done",
        "do",
        "in",
        "for",
        "esac",
        "fi",
        "export",
        "time",
        "/etc/passwd",
        "~/.claude/settings.json",
        ".git",
        "node_modules",
        "-delete",
        "--",
        "-o",
        "out",
        "777",
        "u+w",
        "-R",
        "root",
        "user@host",
        "host:/x",
        "-q",
        "%s",
        "1",
        "'#'",
        "\"#x\"",
        "'\\'",
        "'{a,b}'",
        "\"[x]\"",
        "-n",
        "dotglob",
        "HOME=/",
    ])
}

fn assignment() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "A=1",
        "RUST_LOG=debug",
        "HOME=/",
        "TMPDIR=/",
        "X='a b'",
        "Y=\"c d\"",
        "BASH_ENV=x",
        "P=a=b",
        "Q=~",
    ])
}

fn redirection() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "2>&1",
        ">&2",
        "1>&2",
        "> f",
        ">f",
        ">> log",
        "2> err",
        "2>/dev/null",
        "< in",
        "1> out",
        "&> all",
        "&>> all",
        "> ~/.claude/settings.json",
        "> 'a b'",
        "< \"x y\"",
        "> .git/config",
        ">/",
        "> -",
        "2> -",
        "> a=b",
        "> ~",
        ">'x'",
        "&> f",
    ])
}

fn operator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        " | ", "|", " || ", "||", " && ", "&&", " ; ", ";", " |",
    ])
}

/// One simple command of the subset: assignments, program, then
/// arguments and redirections in any order.
fn plain_command() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(assignment(), 0..2),
        program(),
        prop::collection::vec(prop_oneof![3 => argument(), 1 => redirection()], 0..6),
    )
        .prop_map(|(mut assignments, program, rest)| {
            // After an assignment the subset takes no `:` in the program.
            if program.contains(':') {
                assignments.clear();
            }
            let mut words: Vec<&str> = assignments;
            words.push(program);
            words.extend(rest);
            words.join(" ")
        })
}

/// A command that may change directory (or, for `eval`, run code that
/// does), with the operands and flags `cd` reads, a redirection perhaps
/// before its operand, or a command that acts on a relative path there.
fn directory_command() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec![
        "",
        "",
        "builtin ",
        "command ",
        "command builtin ",
        "-p ",
        "CDPATH=/ ",
        "A=1 ",
        "cdx=1 ",
    ]);
    let program = prop::sample::select(vec![
        "cd", "cd", "cd", "pushd", "popd", "chdir", "CD", "'cd'", "eval", "builtin",
    ]);
    let operand = prop::sample::select(vec![
        "/", "/tmp/a/b", "/tmp/", "..", ".", "src", "src/a", "./x", "~", "~/", "~/x", "~other",
        "-", "-P", "-L", "-e", "-@", "-LP", "-x", "--", "+1", "-1", "'a b'", "\"/etc\"", "''",
        "'cd /'", "'ls'", "'$HOME'", "x=1", "abcd", "cd",
    ]);
    let redirection = prop::sample::select(vec!["", "", "2>/dev/null", "> log", "2>&1", "< in"]);
    let acts = prop::sample::select(vec![
        "rm -rf x",
        "rm -rf ../x",
        "rm -rf /tmp/y",
        "rm -rf ~/z",
        "cat < .env",
        "echo hi > out.txt",
        "bash -c 'rm -rf build'",
        "ls",
    ]);
    prop_oneof![
        3 => (
            prefix,
            program,
            prop::collection::vec(operand, 0..3),
            redirection,
            0..4usize,
        )
            .prop_map(|(prefix, program, operands, redirection, at)| {
                let mut words: Vec<&str> = vec![program];
                words.extend(operands);
                if !redirection.is_empty() {
                    words.insert(at.clamp(1, words.len()), redirection);
                }
                format!("{prefix}{}", words.join(" "))
            }),
        2 => acts.prop_map(str::to_string),
    ]
}

fn plain_line() -> impl Strategy<Value = String> {
    (
        plain_command(),
        prop::collection::vec((operator(), plain_command()), 0..4),
        prop::sample::select(vec!["", " ", "  "]),
    )
        .prop_map(|(first, rest, margin)| {
            let mut line = format!("{margin}{first}");
            for (op, command) in rest {
                line.push_str(op);
                line.push_str(&command);
            }
            line.push_str(margin);
            line
        })
}

/// Text just outside the subset: expansions, globs, quoting the subset
/// does not take, other operators and blanks, non-ASCII.
fn near_miss() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "$x",
        "${x}",
        "$(ls)",
        "`ls`",
        "*",
        "?",
        "[a]",
        "[",
        "]",
        "{a,b}",
        "{",
        "}",
        "\\",
        "\\ ",
        "#",
        " #c",
        "!",
        "(",
        ")",
        "&",
        " & ",
        "|&",
        ";;",
        "<<",
        "<< EOF",
        "<<<",
        "<&0",
        "<>",
        ">|",
        "\u{e9}",
        "12>f",
        "x>f",
        "\"$x\"",
        "'",
        "\"",
        "^",
        "\t",
        "\n",
        "\r",
        "\u{b}",
        "\u{c}",
        "\0",
        "=",
        "==",
        "=~",
        "+=",
        "a+=1",
        "x=",
        "2>&",
        ">&f",
        ">&-",
        ">>&2",
        "&>&2",
        "&>>",
        ">",
        "<",
        "2< in",
        "3<> f",
        "cd",
        "eval",
        " cd x && ",
        "-",
        "--",
        "~",
        "\"!\"",
        "\"\\\"\"",
        "'\n'",
        "\"\t\"",
        "\u{2003}",
        "\u{ff52}\u{ff4d}",
        "2>&1&",
        "a&&",
        "&&b",
        "||",
        "|",
        "_=1",
        "x@y",
        "x%y",
        "%1",
        "@x",
        "0< in",
        "0>f",
        " - 2>&1",
        "- 1>f",
        "-",
    ])
}

/// Lines of the subset that change directory between commands that act
/// on relative paths.
fn moving_line() -> impl Strategy<Value = String> {
    let command = prop_oneof![2 => directory_command(), 1 => plain_command()];
    (
        command.clone(),
        prop::collection::vec((operator(), command), 1..5),
    )
        .prop_map(|(first, rest)| {
            let mut line = first;
            for (op, command) in rest {
                line.push_str(op);
                line.push_str(&command);
            }
            line
        })
}

proptest! {
    #![proptest_config(config())]

    /// Lines that change directory analyse alike with and without the
    /// plain reading: each command is placed where the walk over the tree
    /// places it (most are read, see the test after this block).
    #[test]
    fn lines_that_change_directory_are_read_as_the_parser_reads_them(line in moving_line()) {
        prop_assert_eq!(shell::analyze(&line), shell::analyze_exact(&line), "line: {:?}", line);
    }

    /// Every line of the subset's grammar is read without the parser, and
    /// exactly as the parser reads it.
    #[test]
    fn lines_of_the_subset_are_read_as_the_parser_reads_them(line in plain_line()) {
        prop_assert!(shell::reads_without_parser(&line), "not read: {:?}", line);
        prop_assert_eq!(shell::analyze(&line), shell::analyze_exact(&line), "line: {:?}", line);
    }

    /// With text from just outside the subset mixed in, a line read
    /// without the parser still analyses as the parser reads it.
    #[test]
    fn near_misses_are_left_to_the_parser_or_read_alike(
        pieces in prop::collection::vec(
            prop_oneof![
                2 => plain_command(),
                1 => operator().prop_map(str::to_string),
                1 => redirection().prop_map(str::to_string),
                2 => near_miss().prop_map(str::to_string),
            ],
            1..8,
        ),
        joins in prop::collection::vec(prop::sample::select(vec!["", " "]), 8),
    ) {
        let mut line = String::new();
        for (piece, join) in pieces.iter().zip(&joins) {
            line.push_str(piece);
            line.push_str(join);
        }
        if shell::reads_without_parser(&line) {
            prop_assert_eq!(shell::analyze(&line), shell::analyze_exact(&line), "line: {:?}", line);
        }
    }
}

/// The comparison above is not vacuous: most generated lines that change
/// directory are read without the parser (the rest have a redirected
/// stage before a `|` after `&&` or `||`, or a `-` before a descriptor).
#[test]
fn most_generated_lines_that_change_directory_are_read_without_the_parser() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = moving_line();
    let total = 400;
    let mut read = 0;
    for _ in 0..total {
        let line = strategy.new_tree(&mut runner).expect("a line").current();
        if shell::reads_without_parser(&line) {
            read += 1;
            assert!(agrees(&line), "{line:?}");
        }
    }
    assert!(
        read * 3 > total * 2,
        "only {read} of {total} lines were read"
    );
}
