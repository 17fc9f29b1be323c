//! Properties of the shell, URL and path analyses that must hold for every
//! spelling, not just the ones in the corpora: generated inputs, 256 cases
//! per property so the suite stays fast.

mod common;

use hook_policy::compile::CompiledPolicy;
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::{decide, DecideContext};
use hook_policy::paths;
use hook_policy::shell;
use hook_policy::url_class::{classify, UrlClass};
use proptest::prelude::*;
use serde_json::json;
use std::net::Ipv4Addr;

const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/proj",
    home: Some("/home/user"),
};

/// 256 cases per property; `PROPTEST_CASES=N` runs more for a deeper look.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        // Shrinking a shell line through the whole engine is slow; the
        // failing input is printed either way.
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    }
}

thread_local! {
    static SHELL_POLICY: CompiledPolicy = {
        match engine::prepare(&[common::repo().join("policies")], Some("pre_shell_exec")) {
            Prepared::Ready(policy) => policy,
            Prepared::Broken { message, .. } => panic!("shipped policies do not load: {message}"),
        }
    };
}

/// The rule of the shipped policies that denies `line`, if any.
fn denying_rule(line: &str) -> Option<String> {
    let payload = json!({"tool_name": "shell_exec", "command": line});
    SHELL_POLICY.with(|policy| {
        decide(policy, "pre_shell_exec", &payload, CTX)
            .deny
            .map(|w| w.rule)
    })
}

// ---------------------------------------------------------------- shell

/// Command lines with a known verdict: dangerous ones in several flag
/// spellings, and harmless ones that mention the same words. Recursive
/// deletes name absolute targets: a wrapper that can change directory
/// (`sudo`, `env`) rightly makes a relative target unknown, a change toward
/// denial that this property is not about.
fn core_command() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "rm -rf /",
        "rm -fr /srv",
        "rm -r -f /x",
        "rm -R --force /x",
        "rm --recursive --force /x",
        "/bin/rm -Rf /x",
        "rm --rec -f /x",
        "git push --force origin main",
        "chmod 777 x",
        "ls -la",
        "rm notes.txt",
        "rmdir build",
        "echo rm -rf /",
        "grep -r 'rm -rf' .",
        "cargo test",
    ])
}

/// Wrappers that run the next command unchanged.
fn wrapper() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "sudo",
        "sudo -u root",
        "sudo -E --",
        "doas",
        "env X=1",
        "env -i PATH=/bin",
        "nohup",
        "time",
        "nice -n 5",
        "nice -5",
        "timeout 3",
        "timeout -s KILL 10",
        "command",
        "exec",
        "stdbuf -oL",
        "setsid",
        "ionice -c3",
        "taskset -c 0",
        "chrt -f 1",
        "pkexec",
    ])
}

/// Places a command can sit in a line and still run.
fn context() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{}",
        "ls; {}",
        "true && {}",
        "false || {}",
        "({})",
        "{ {}; }",
        "echo $({})",
        "echo `{}`",
        "bash -c '{}'",
        "sh -c \"{}\"",
        "if true; then {}; fi",
        "for i in 1; do {}; done",
        "f() { {}; }",
        "cat x | {}",
    ])
}

proptest! {
    #![proptest_config(config())]

    /// Wrapping a command in any stack of wrappers, inside any context,
    /// never turns a denial into an allow, nor an allow into a denial.
    #[test]
    fn wrappers_and_contexts_never_change_the_verdict(
        core in core_command(),
        assignment in any::<bool>(),
        wrappers in prop::collection::vec(wrapper(), 0..4),
        place in context(),
    ) {
        // A context with double quotes cannot hold the single-quoted grep.
        prop_assume!(!(place.contains('"') || place.contains('\'')) || !core.contains('\''));
        let plain = denying_rule(core);
        // Assignments only go first: `nohup X=1 rm` would run a program
        // named `X=1`.
        let mut words: Vec<&str> = Vec::new();
        if assignment {
            words.push("X=1");
        }
        words.extend(&wrappers);
        words.push(core);
        let command = words.join(" ");
        let line = place.replace("{}", &command);
        prop_assert_eq!(denying_rule(&line), plain, "line: {}", line);
    }
}

proptest! {
    #![proptest_config(config())]

    /// A redirection takes one word; redirections anywhere after the
    /// program (`rm > /dev/null -rf /`, `rm 2>&1 -r -f /`) never turn a
    /// denial into an allow.
    #[test]
    fn redirections_between_arguments_never_change_the_verdict(
        core in core_command().prop_filter("splits on spaces", |c| !c.contains('\'')),
        redirects in prop::collection::vec(
            (prop::sample::select(vec!["> /dev/null", "2>&1", "&>/tmp/log", ">>out", "<<< x", ">&2", "2>/dev/null"]), any::<prop::sample::Index>()),
            1..3,
        ),
        in_pipeline in any::<bool>(),
    ) {
        let plain = denying_rule(core);
        // Insert each redirection at a word boundary after the program.
        let mut words: Vec<String> = core.split(' ').map(str::to_string).collect();
        for (redirect, at) in &redirects {
            let at = 1 + at.index(words.len());
            words.insert(at, redirect.to_string());
        }
        let mut line = words.join(" ");
        if in_pipeline {
            line = format!("ls | {line} | cat");
        }
        // Denials stay denials (a few redirection mixes the grammar cannot
        // parse, such as `<<<` after `>`, are denied as unknowable instead);
        // allowed lines stay allowed unless they became unparseable.
        match (plain, denying_rule(&line)) {
            (Some(_), denied) => prop_assert!(denied.is_some(), "line: {}", line),
            (None, None) => {}
            (None, Some(rule)) => prop_assert_eq!(rule, "core.opaque-command", "line: {}", line),
        }
    }
}

/// Pieces of shell text chosen to trip a lexer that tracks pipes: every
/// meaning `|` has in bash (pipe, `||`, `|&`, `>|`, case patterns, `[[ =~ ]]`,
/// arithmetic, subscripts, parameter patterns, extended globs, heredoc
/// text, comments, quotes) and the structures around it.
fn shell_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "cat f",
        "grep -E 'a|b'",
        "rm -rf /",
        "sort -rn",
        "head -5",
        "xargs rm",
        "sh",
        "awk '{print $1}'",
        "echo \"x|y\"",
        "echo $'a\\'|b'",
        "a\\|b",
        "$(ls | wc -l)",
        "`ls | wc`",
        "\"$(a | b)\"",
        "<(a | b)",
        "${x//a|b/c}",
        "$((1|2))",
        "((x|y))",
        "arr[x|y]=1",
        "[[ $x =~ a|b ]]",
        "[ x",
        "]",
        "[",
        "case $x in a|b) c;; esac",
        "ls @(a|b)",
        "cat <<E\nx|y\nE\n",
        "# c | d\n",
        "if",
        "then",
        "fi",
        "do",
        "done",
        "for x in a b",
        "while",
        "{",
        "}",
        "(",
        ")",
        "!",
        "x=1",
        "f()",
        "'",
        "\"",
        "`",
        "&",
        "&&",
        "|",
        "||",
        "|&",
        ">|",
        ";",
        "\n",
        " ",
        "2>&1",
        "> f",
        "<<< s",
        "coproc",
        "time",
        "eval 'a | b | c'",
        "bash -c 'a | b | c'",
        "\"${y:-'|'}\"",
        "*.[ch]",
        "[!a]",
        "a[1]=2",
        "${#x}",
        "${x:-$(a | b)}",
        "${x",
        "}",
        "x[",
        "]|",
    ])
}

proptest! {
    #![proptest_config(config())]

    /// The pipeline shortcut (pipes shown to the parser as `;`, see
    /// src/shell/view.rs) never changes an analysis: every generated line
    /// analyses exactly as when parsed as written, or is opaque both ways.
    #[test]
    fn the_pipeline_shortcut_never_changes_the_analysis(
        pieces in prop::collection::vec(shell_piece(), 1..14),
        joins in prop::collection::vec(prop::sample::select(vec![" | ", " ", "|", " |& ", ";", "\n"]), 14),
    ) {
        let mut line = String::new();
        for (piece, join) in pieces.iter().zip(&joins) {
            line.push_str(piece);
            line.push_str(join);
        }
        let (fast, exact) = (shell::analyze(&line), shell::analyze_exact(&line));
        // Around a syntax error the two parses recover differently, so what
        // they make out of the rest may differ; neither may vouch for the
        // line. Every other line must come out the same.
        let broken = |a: &shell::ShellAnalysis| a.has_opaque(shell::OpaqueKind::ParseError);
        if broken(&fast) || broken(&exact) {
            prop_assert!(fast.is_opaque() && exact.is_opaque(), "line: {:?}", line);
        } else {
            prop_assert_eq!(fast, exact, "line: {:?}", line);
        }
    }
}

/// Spellings of a program name that bash reads as that name.
fn spell(name: &str, how: u8) -> String {
    let (head, tail) = name.split_at(1);
    match how % 9 {
        0 => format!("'{name}'"),
        1 => format!("\"{name}\""),
        2 => format!("\\{name}"),
        3 => name.chars().map(|c| format!("\\{c}")).collect(),
        4 => format!("{head}''{tail}"),
        5 => format!("\"{head}\"'{tail}'"),
        6 => format!(
            "$'{}'",
            name.bytes()
                .map(|b| format!("\\x{b:02x}"))
                .collect::<String>()
        ),
        7 => format!("{head}\\\n{tail}"),
        _ => format!("/usr/local/bin/{name}"),
    }
}

proptest! {
    #![proptest_config(config())]

    /// Quoting or escaping the program name never changes the programs found.
    #[test]
    fn quoting_the_program_never_changes_the_programs_found(
        name in "[a-z][a-z0-9_]{1,8}",
        how in any::<u8>(),
        args in "( -[a-z]{1,3}| [a-z./]{1,6}){0,3}",
    ) {
        let plain = shell::analyze(&format!("{name}{args}"));
        let plain_programs: Vec<&str> = plain.programs().collect();
        // Keywords (`if`, `do`), wrappers and launchers are not plain programs.
        prop_assume!(plain_programs == vec![name.as_str()] && !plain.is_opaque());
        let line = format!("{}{args}", spell(&name, how));
        let spelled = shell::analyze(&line);
        let spelled_programs: Vec<&str> = spelled.programs().collect();
        prop_assert_eq!(spelled_programs, plain_programs, "line: {:?}", line);
        prop_assert_eq!(&spelled.commands[0].args, &plain.commands[0].args);
    }

    /// The same flags in any cluster order or split give the same flag sets.
    #[test]
    fn flag_clusters_are_order_and_split_independent(
        flags in prop::collection::btree_set(prop::char::range('a', 'z'), 1..6),
        split in any::<u64>(),
    ) {
        let letters: Vec<char> = flags.iter().copied().collect();
        let cluster: String = letters.iter().rev().collect();
        let mut pieces = Vec::new();
        let mut current = String::from("-");
        for (i, c) in letters.iter().enumerate() {
            current.push(*c);
            if split >> i & 1 == 1 {
                pieces.push(std::mem::replace(&mut current, String::from("-")));
            }
        }
        if current.len() > 1 {
            pieces.push(current);
        }
        let a = shell::analyze(&format!("tool -{cluster} x"));
        let b = shell::analyze(&format!("tool {} x", pieces.join(" ")));
        prop_assert_eq!(&a.commands[0].short_flags, &b.commands[0].short_flags);
        for c in letters {
            let spec = format!("-{c}");
            prop_assert!(b.commands[0].has_flag(&spec));
        }
    }

    /// The analysis never panics (nor crashes in the grammar's C code) for
    /// any text: arbitrary Unicode, and shell syntax mixed with characters
    /// from every plane (`echo {` before U+E01A7 once crashed the parser).
    #[test]
    fn any_text_is_analysed_without_panicking(line in prop_oneof![
        "\\PC{0,120}",
        "[{}()$`'\"\\\\;|&<>#=*?!~ \n\ta-z0-9\u{e9}\u{a0}\u{2003}\u{1f600}\u{e01a7}\u{10ffff}-]{0,60}",
    ]) {
        let analysis = shell::analyze(&line);
        prop_assert!(analysis.commands.len() <= shell::MAX_COMMANDS);
    }
}

// ------------------------------------------------------ interpreter code

/// Pieces of interpreter code: sink names, quoting, brackets and escapes
/// of every language read, in any order.
fn code_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "os.system(",
        "subprocess.run([",
        "__import__(",
        "getattr(",
        "exec(",
        "eval(",
        "require(",
        "execSync(",
        "shutil.rmtree(",
        "fs.rmSync(",
        "system ",
        "qx{",
        "qw(",
        "s/a/b/e",
        "%x(",
        "%w[",
        "`",
        "'",
        "\"",
        "'''",
        "f'{",
        "${",
        "#{",
        "\\",
        "\\x7",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ";",
        "\n",
        " ",
        "+",
        ".",
        "->",
        "::",
        "=",
        ":",
        "|",
        "| getline",
        "rm -rf /",
        "x",
        "$x",
        "@a",
        "# c",
        "// c",
        "/* c",
        "/re/",
        "import os as o",
        "from os import *",
        "const {a: b} = ",
        "$f(",
        "send(:",
        "1e ",
    ])
}

/// Complete statements that do nothing dangerous, and a destructive call,
/// per interpreter.
fn harmless_prefix() -> impl Strategy<Value = (&'static str, &'static str, &'static str)> {
    prop::sample::select(vec![
        (
            "python3 -c",
            "import json; print(json.dumps({'a': [1, 2]}))\n",
            "import os\nos.system('rm -rf /')",
        ),
        (
            "python3 -c",
            "x = f'{1+1}' # os.system('no')\n",
            "__import__('shutil').rmtree('/')",
        ),
        (
            "python3 -c",
            "s = '''a\nb'''\n",
            "import subprocess as s; s.run(['rm', '-rf', '/'])",
        ),
        (
            "node -e",
            "const r = /['\"]/g; console.log(`a${1}`);",
            "require('child_process').execSync('rm -rf /')",
        ),
        (
            "node -e",
            "/* x */ let o = {recursive: false};",
            "require('fs').rmSync('/', {recursive: true})",
        ),
        (
            "perl -e",
            "my @a = qw(a b); print \"@a\\n\"; s/x/y/;",
            "system('rm -rf /');",
        ),
        ("perl -e", "print q{a)b}; # system('no')\n", "qx{rm -rf /};"),
        (
            "ruby -e",
            "puts %w[a b].join(\",\"); x = :sym;",
            "system(\"rm -rf /\")",
        ),
        (
            "php -r",
            "echo \"a\" . 'b'; // system('no')\n",
            "passthru(\"rm -rf /\");",
        ),
        (
            "awk",
            "BEGIN { n = split(\"a,b\", p, \",\") } ",
            "BEGIN { system(\"rm -rf /\") }",
        ),
    ])
}

/// `code` as one single-quoted shell word.
fn single_quoted(code: &str) -> String {
    format!("'{}'", code.replace('\'', "'\\''"))
}

proptest! {
    #![proptest_config(config())]

    /// Code of any shape given to any interpreter is read without panicking
    /// and within the limits.
    #[test]
    fn any_interpreter_code_is_read_without_panicking(
        interpreter in prop::sample::select(vec!["python3 -c", "node -e", "perl -e", "ruby -e", "php -r", "awk", "sed", "bun -e"]),
        pieces in prop::collection::vec(code_piece(), 0..40),
    ) {
        let code: String = pieces.concat();
        let analysis = shell::analyze(&format!("{interpreter} {}", single_quoted(&code)));
        prop_assert!(analysis.commands.len() <= shell::MAX_COMMANDS);
        let program = interpreter.split(' ').next().unwrap_or(interpreter);
        let _ = shell::analyze(&format!("{program} <<'EOF'\n{code}\nEOF"));
    }

    /// Complete harmless statements before a destructive call never hide
    /// it from the shipped rules, and alone they are let through.
    #[test]
    fn harmless_statements_never_hide_a_destructive_call(
        (interpreter, prefix, call) in harmless_prefix(),
        repeat in 0usize..4,
    ) {
        let code = format!("{}{call}", prefix.repeat(repeat));
        let line = format!("{interpreter} {}", single_quoted(&code));
        prop_assert!(denying_rule(&line).is_some(), "{}", line);
        let harmless = format!("{interpreter} {}", single_quoted(&prefix.repeat(repeat.max(1))));
        prop_assert_eq!(denying_rule(&harmless), None, "{}", harmless);
    }
}

// ---------------------------------------------------------------- URLs

/// An IPv4 address spelled with each of its parts in a chosen radix.
fn radix_part(value: u32, radix: u8) -> String {
    match radix % 3 {
        0 => value.to_string(),
        1 => format!("0x{value:x}"),
        _ => format!("0{value:o}"),
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every WHATWG spelling of an IPv4 address (one number, two, three or
    /// four parts, each decimal, hex or octal) classifies like the dotted
    /// quad, and normalises to it; so does its IPv4-mapped IPv6 form.
    #[test]
    fn every_spelling_of_an_ipv4_address_classifies_alike(
        n in any::<u32>(),
        parts in 1usize..=4,
        radixes in prop::collection::vec(any::<u8>(), 4),
    ) {
        let ip = Ipv4Addr::from(n);
        let [a, b, c, d] = ip.octets().map(u32::from);
        let values: Vec<u32> = match parts {
            1 => vec![n],
            2 => vec![a, n & 0x00ff_ffff],
            3 => vec![a, b, (c << 8) | d],
            _ => vec![a, b, c, d],
        };
        let spelled: Vec<String> = values
            .iter()
            .zip(&radixes)
            .map(|(v, r)| radix_part(*v, *r))
            .collect();
        let dotted = classify(&format!("http://{ip}/"));
        let other = classify(&format!("http://{}/", spelled.join(".")));
        prop_assert_eq!(other.class, dotted.class, "{}", spelled.join("."));
        prop_assert_eq!(&other.host, &ip.to_string());
        let mapped = classify(&format!("http://[::ffff:{ip}]/"));
        prop_assert_eq!(mapped.class, dotted.class);
        // The class follows the address, not the spelling: loopback is 127/8.
        prop_assert_eq!(dotted.class == UrlClass::Loopback, a == 127);
    }

    /// Userinfo in front of an internal address never makes it public.
    #[test]
    fn userinfo_never_hides_the_host(
        user in "[a-z]{1,8}(\\.[a-z]{2,4})?",
        backslash in any::<bool>(),
        host in prop::sample::select(vec!["127.0.0.1", "10.0.0.1", "169.254.169.254", "[::1]", "localhost"]),
    ) {
        let sep = if backslash { "\\@" } else { "@" };
        let info = classify(&format!("http://{user}{sep}{host}/"));
        prop_assert!(info.class.is_internal(), "{:?}", info);
    }

    /// Classification never panics, whatever the text.
    #[test]
    fn any_text_is_classified_without_panicking(text in "\\PC{0,80}") {
        let info = classify(&text);
        prop_assert_eq!(info.class == UrlClass::Invalid, info.error.is_some());
    }
}

// ---------------------------------------------------------------- paths

fn path_text() -> impl Strategy<Value = String> {
    let segment = prop::sample::select(vec![
        "a", "b", "src", ".", "..", "", ".env", "~", "x y", "%2e%2e", "\\", "...", "proj",
    ]);
    (
        prop::sample::select(vec!["", "/", "~/", "./", "../", "//"]),
        prop::collection::vec(segment, 0..10),
        any::<bool>(),
    )
        .prop_map(|(start, segments, trailing)| {
            let mut text = format!("{start}{}", segments.join("/"));
            if trailing {
                text.push('/');
            }
            text
        })
}

proptest! {
    #![proptest_config(config())]

    /// Normalising is idempotent and the result is absolute, with no empty,
    /// `.` or `..` component; `is_within` and `inspect` agree on it.
    #[test]
    fn normalising_is_idempotent_and_leaves_no_dot_segments(
        raw in path_text(),
        root in prop::sample::select(vec!["/proj", "/", "/home/user/proj", "proj/"]),
    ) {
        let once = paths::normalize(&raw, root, Some("/home/user"));
        let twice = paths::normalize(&once, root, Some("/home/user"));
        prop_assert_eq!(&twice, &once);
        prop_assert!(once.starts_with('/'), "{:?}", once);
        if once != "/" {
            for part in once[1..].split('/') {
                prop_assert!(!matches!(part, "" | "." | ".."), "{:?} from {:?}", once, raw);
            }
        }
        let info = paths::inspect(&raw, root, Some("/home/user"));
        prop_assert_eq!(info.within_root, paths::is_within(&once, root));
    }

    /// A sibling whose name starts with the directory's name is never
    /// inside it, however it is reached; a real child always is.
    #[test]
    fn is_within_is_not_fooled_by_a_sibling_prefix(
        dir in "[a-z]{1,6}",
        suffix in "[-._a-z0-9]{1,4}",
        child in "[a-z]{1,6}",
        base in prop::sample::select(vec!["", "/home/u", "/srv/x/y"]),
    ) {
        let dir = format!("{base}/{dir}");
        let name = dir.rsplit('/').next().unwrap_or_default().to_string();
        let inside = [format!("{dir}/{child}"), format!("{dir}/"), format!("{dir}/./{child}/..")];
        for path in &inside {
            prop_assert!(paths::is_within(path, &dir), "{} should be within {}", path, dir);
        }
        let sibling = format!("{dir}{suffix}");
        let outside = [
            format!("{sibling}/{child}"),
            sibling.clone(),
            format!("{dir}/../{name}{suffix}/{child}"),
            paths::normalize(&format!("../{name}{suffix}/{child}"), &dir, None),
        ];
        for path in &outside {
            prop_assert!(!paths::is_within(path, &dir), "{} should not be within {}", path, dir);
        }
    }
}
