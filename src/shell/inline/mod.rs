//! Code handed to interpreters on the command line: `python -c`, `node -e`,
//! `perl -e`, `ruby -e`, `php -r`, awk programs, sed scripts, and programs
//! fed to an interpreter through a heredoc or here-string.
//!
//! `python -c "import shutil; shutil.rmtree('/')"` deletes as much as
//! `rm -rf /`; a guard that only looks at shell syntax sees `python`. This
//! module finds the code an interpreter is given (option by option, per
//! interpreter) and reads it with [`code::analyze`]: shell code and
//! commands it runs come back as nested work, so the ordinary rules about
//! `rm` apply to them; destructive library calls come back as the command
//! that does the same (`shutil.rmtree(p)` as `rm -r -f -- p`, with the
//! library function named in `call`); code that cannot be read is opaque.
//!
//! Scripts named by a path (`python tool.py`, `node server.js`) and modules
//! (`python -m pytest`) are not read: the analysis never touches files.

mod code;
mod lexer;
mod sed;
mod sinks;
mod urls;

pub use lexer::Lang;

use super::launchers::{Launch, Nested};
use super::walk::Input;
use super::words::Word;
use super::OpaqueKind;

/// Which interpreter a program name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interpreter {
    Python,
    Node,
    Bun,
    Deno,
    Perl,
    Ruby,
    Php,
    Awk,
    Sed,
}

fn interpreter(program: &str) -> Option<Interpreter> {
    let versioned = |name: &str, base: &str| {
        name.strip_prefix(base)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    Some(match program {
        p if versioned(p, "python") || versioned(p, "pypy") => Interpreter::Python,
        "node" | "nodejs" => Interpreter::Node,
        "bun" => Interpreter::Bun,
        "deno" => Interpreter::Deno,
        p if versioned(p, "perl") => Interpreter::Perl,
        "ruby" | "jruby" | "truffleruby" => Interpreter::Ruby,
        p if versioned(p, "php") => Interpreter::Php,
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => Interpreter::Awk,
        "sed" | "gsed" => Interpreter::Sed,
        _ => return None,
    })
}

/// Where an interpreter's program comes from.
enum Source {
    /// Code on the command line (one or more pieces, joined by newlines).
    Code(Vec<Word>),
    /// Standard input.
    Stdin,
    /// A file, a module, or nothing to run (`--version`).
    Elsewhere,
}

/// If `program` is an interpreter, what its code runs, added to `launch`.
pub fn inspect(program: &str, args: &[Word], input: Option<&Input>, launch: &mut Launch) {
    let Some(kind) = interpreter(program) else {
        return;
    };
    let (source, flag) = match kind {
        Interpreter::Python => options(
            args,
            "c",
            Some('m'),
            "WX",
            "hV",
            &["help", "version"],
            &["check-hash-based-pycs"],
        ),
        Interpreter::Node => node_options(args),
        Interpreter::Bun => match args.first().map(|w| w.text.as_str()) {
            Some("-e" | "--eval" | "-p" | "--print") => (code_after(args, 0), "-e"),
            _ => (Source::Elsewhere, ""),
        },
        Interpreter::Deno => match args.first().map(|w| w.text.as_str()) {
            Some("eval") => (
                args.iter()
                    .skip(1)
                    .find(|w| !w.text.starts_with('-'))
                    .map_or(Source::Elsewhere, |w| Source::Code(vec![w.clone()])),
                "eval",
            ),
            _ => (Source::Elsewhere, ""),
        },
        Interpreter::Perl => options(
            args,
            "eE",
            None,
            "iIMmx0lCdD",
            "vhV",
            &["help", "version"],
            &[],
        ),
        Interpreter::Ruby => options(
            args,
            "e",
            None,
            "rICEFix0lW",
            "vh",
            &["help", "version"],
            &["encoding", "external-encoding", "internal-encoding"],
        ),
        Interpreter::Php => options(
            args,
            "rRBE",
            None,
            "dctzS",
            "fvhimlsa",
            &[
                "help",
                "version",
                "info",
                "modules",
                "file",
                "server",
                "interactive",
            ],
            &["define", "php-ini", "docroot", "zend-extension"],
        ),
        Interpreter::Awk => awk_options(args),
        Interpreter::Sed => sed_options(args),
    };
    let label = match (kind, &source) {
        (_, Source::Stdin) => format!("{program} <<"),
        (Interpreter::Awk | Interpreter::Sed, _) => program.to_string(),
        _ => format!("{program} {flag}"),
    };
    let code = match source {
        Source::Elsewhere => return,
        Source::Code(pieces) => {
            let literal = pieces.iter().all(|w| w.literal);
            let text = pieces
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            (text, literal)
        }
        Source::Stdin => match input {
            Some(Input::Heredoc { body, literal }) => (body.clone(), *literal),
            Some(Input::HereString(word)) => (word.text.clone(), word.literal),
            Some(Input::File(path)) if super::launchers::is_stream_path(path) => {
                launch.opaque.push((
                    OpaqueKind::ShellFromStdin,
                    format!("`{program}` runs code read from `{path}`"),
                ));
                return;
            }
            // `python < script.py` runs a file, like `python script.py`.
            Some(Input::File(_)) => return,
            None => {
                launch.opaque.push((
                    OpaqueKind::ShellFromStdin,
                    format!("`{program}` reads the code it runs from standard input"),
                ));
                return;
            }
        },
    };
    let (text, literal) = code;
    if !literal {
        launch.opaque.push((
            OpaqueKind::DynamicEval,
            format!("code for `{label}` is only known at run time"),
        ));
    }
    if kind == Interpreter::Sed {
        let found = sed::analyze(&text);
        for reason in found.opaque {
            launch.opaque.push((OpaqueKind::DynamicEval, reason));
        }
        for command in found.commands {
            launch.nested.push(Nested::Script {
                source: command,
                via: format!("{label} e"),
                literal,
            });
        }
        // `w file` writes the file: reported as `tee -- file`.
        for file in found.writes {
            launch.nested.push(Nested::Argv {
                words: vec![
                    Word::literal("tee"),
                    Word::literal("--"),
                    Word {
                        text: file,
                        literal,
                        pattern: false,
                    },
                ],
                via: format!("{label} w"),
                call: Some("sed w".into()),
                appended: false,
                fill: Vec::new(),
            });
        }
        return;
    }
    let lang = match kind {
        Interpreter::Python => Lang::Python,
        Interpreter::Node | Interpreter::Bun | Interpreter::Deno => Lang::JavaScript,
        Interpreter::Perl => Lang::Perl,
        Interpreter::Ruby => Lang::Ruby,
        Interpreter::Php => Lang::Php,
        _ => Lang::Awk,
    };
    if lang == Lang::Awk {
        // `print > "file"` and `>> "file"` write the file: reported as
        // `tee -- file` (a comparison with a string reads the same, and
        // only adds a write nobody guards).
        for file in awk_output_files(&text) {
            launch.nested.push(Nested::Argv {
                words: vec![
                    Word::literal("tee"),
                    Word::literal("--"),
                    Word {
                        text: file,
                        literal,
                        pattern: false,
                    },
                ],
                via: format!("{label} >"),
                call: Some("awk print >".into()),
                appended: false,
                fill: Vec::new(),
            });
        }
    }
    let found = code::analyze(lang, &text);
    for reason in found.opaque {
        launch
            .opaque
            .push((OpaqueKind::DynamicEval, format!("`{label}`: {reason}")));
    }
    // Code only known at run time: none of its words is known either.
    let known = |mut words: Vec<Word>| {
        if !literal {
            for word in &mut words {
                word.literal = false;
            }
        }
        words
    };
    for effect in found.effects {
        launch.nested.push(match effect {
            code::Effect::Shell {
                source,
                literal: code_literal,
                call,
            } => Nested::Script {
                source,
                via: format!("{label}: {call}"),
                literal: literal && code_literal,
            },
            code::Effect::Argv { words, call } => Nested::Argv {
                words: known(words),
                via: format!("{label}: {call}"),
                call: None,
                appended: false,
                fill: Vec::new(),
            },
            code::Effect::Library { words, call } => Nested::Argv {
                words: known(words),
                via: label.clone(),
                call: Some(call),
                appended: false,
                fill: Vec::new(),
            },
        });
    }
}

/// Reads getopt-style options. `code` letters take the program text
/// (attached or the next word); `module` names a module to run instead;
/// `valued` letters take a value (attached or the next word); `stop` letters and `stop_long` options mean the
/// interpreter runs no code given here. The first operand is a script.
fn options(
    args: &[Word],
    code: &str,
    module: Option<char>,
    valued: &str,
    stop: &str,
    stop_long: &[&str],
    long_valued: &[&str],
) -> (Source, &'static str) {
    let mut pieces = Vec::new();
    let mut flag = "";
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if !word.literal && i + 1 < args.len() && pieces.is_empty() {
            // An option only known at run time could be `-c`.
            return (Source::Code(vec![word.clone()]), "");
        }
        if text == "-" {
            return (Source::Stdin, "");
        }
        if text == "--" || !text.starts_with('-') {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if stop_long.contains(&name) {
                return (Source::Elsewhere, "");
            }
            i += if !long.contains('=') && long_valued.contains(&name) {
                2
            } else {
                1
            };
            continue;
        }
        let cluster: Vec<char> = text[1..].chars().collect();
        let mut consumed = 1;
        let mut at = 0;
        while let Some(&letter) = cluster.get(at) {
            let rest: String = cluster[at + 1..].iter().collect();
            at += 1;
            if code.contains(letter) {
                flag = code_flag(letter);
                if rest.is_empty() {
                    match args.get(i + 1) {
                        Some(next) => pieces.push(next.clone()),
                        None => return (Source::Elsewhere, ""),
                    }
                    consumed = 2;
                } else {
                    pieces.push(Word {
                        text: rest,
                        ..word.clone()
                    });
                }
                // Python and PHP stop reading options at their code.
                if letter == 'c' || letter == 'r' {
                    return (Source::Code(pieces), flag);
                }
                break;
            }
            if Some(letter) == module {
                // `python -m module`: a module, not code given here.
                return (Source::Elsewhere, "");
            }
            if matches!(letter, 'l' | '0') && valued.contains(letter) {
                // Perl and Ruby `-l[octal]`, `-0[digits]`: only digits attach.
                while cluster
                    .get(at)
                    .is_some_and(|c| c.is_ascii_hexdigit() && !code.contains(*c))
                {
                    at += 1;
                }
                continue;
            }
            if valued.contains(letter) {
                if rest.is_empty() && !"ix".contains(letter) {
                    consumed = 2;
                }
                break;
            }
            if stop.contains(letter) {
                return (Source::Elsewhere, "");
            }
        }
        i += consumed;
    }
    if !pieces.is_empty() {
        return (Source::Code(pieces), flag);
    }
    match args.get(i).map(|w| w.text.as_str()) {
        Some("--") if args.len() > i + 1 => (Source::Elsewhere, ""),
        Some("--") | None => (Source::Stdin, ""),
        Some(_) => (Source::Elsewhere, ""),
    }
}

fn code_flag(letter: char) -> &'static str {
    match letter {
        'c' => "-c",
        'e' => "-e",
        'E' => "-E",
        'r' => "-r",
        'R' => "-R",
        'B' => "-B",
        _ => "-e",
    }
}

/// The word after `args[at]` as code.
fn code_after(args: &[Word], at: usize) -> Source {
    args.get(at + 1)
        .map_or(Source::Elsewhere, |w| Source::Code(vec![w.clone()]))
}

fn node_options(args: &[Word]) -> (Source, &'static str) {
    const VALUED: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--input-type",
        "-C",
        "--conditions",
        "--env-file",
        "--title",
        "--redirect-warnings",
        "--stack-size",
    ];
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        match text {
            "-e" | "--eval" | "-p" | "--print" | "-pe" => return (code_after(args, i), "-e"),
            "-" => return (Source::Stdin, ""),
            "-v" | "--version" | "-h" | "--help" | "-c" | "--check" => {
                return (Source::Elsewhere, "")
            }
            "--" => break,
            _ if text.starts_with("--eval=") || text.starts_with("--print=") => {
                let code = text.split_once('=').map(|(_, c)| c).unwrap_or("");
                let word = Word {
                    text: code.to_string(),
                    ..word.clone()
                };
                return (Source::Code(vec![word]), "-e");
            }
            _ if VALUED.contains(&text) => i += 2,
            _ if text.starts_with('-') => i += 1,
            _ => return (Source::Elsewhere, ""),
        }
    }
    match args.get(i) {
        Some(w) if w.text == "--" && args.len() > i + 1 => (Source::Elsewhere, ""),
        _ => (Source::Stdin, ""),
    }
}

/// awk: the program is the first operand unless `-f`/`--file` names one;
/// gawk's `-e`/`--source` give program text too.
fn awk_options(args: &[Word]) -> (Source, &'static str) {
    let mut pieces = Vec::new();
    let mut from_file = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        let (name, attached) = match text.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (long.to_string(), None),
            },
            None => {
                let letter = text[1..].chars().next().unwrap_or(' ');
                let rest = &text[1 + letter.len_utf8()..];
                (
                    letter.to_string(),
                    (!rest.is_empty()).then(|| rest.to_string()),
                )
            }
        };
        let takes_value = matches!(
            name.as_str(),
            "f" | "file"
                | "e"
                | "source"
                | "v"
                | "assign"
                | "F"
                | "field-separator"
                | "i"
                | "include"
                | "l"
                | "load"
                | "E"
                | "exec"
        );
        if matches!(name.as_str(), "f" | "file" | "E" | "exec") {
            from_file = true;
        }
        if matches!(name.as_str(), "version" | "help" | "V") {
            return (Source::Elsewhere, "");
        }
        let value = if takes_value && attached.is_none() {
            args.get(i + 1).cloned()
        } else {
            attached.map(|text| Word {
                text,
                ..word.clone()
            })
        };
        if matches!(name.as_str(), "e" | "source") {
            if let Some(value) = value {
                pieces.push(value);
            }
        }
        i += if takes_value && text.len() == 2
            || (takes_value && text.starts_with("--") && !text.contains('='))
        {
            2
        } else {
            1
        };
    }
    if !pieces.is_empty() {
        return (Source::Code(pieces), "");
    }
    if from_file {
        return (Source::Elsewhere, "");
    }
    match args.get(i) {
        Some(program) => (Source::Code(vec![program.clone()]), ""),
        None => (Source::Elsewhere, ""),
    }
}

/// sed: scripts from `-e`/`--expression`, else the first operand;
/// `-f` reads a file and `--sandbox` refuses `e`.
fn sed_options(args: &[Word]) -> (Source, &'static str) {
    let mut pieces = Vec::new();
    let mut from_file = false;
    let mut first_operand = None;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        i += 1;
        if text == "--" {
            if first_operand.is_none() {
                first_operand = args.get(i).cloned();
            }
            break;
        }
        if text == "--sandbox" {
            return (Source::Elsewhere, "");
        }
        if let Some(long) = text.strip_prefix("--") {
            match long.split_once('=') {
                Some(("expression", v)) => pieces.push(Word {
                    text: v.to_string(),
                    ..word.clone()
                }),
                Some(("file", _)) => from_file = true,
                None if long == "expression" => {
                    pieces.extend(args.get(i).cloned());
                    i += 1;
                }
                None if long == "file" => {
                    from_file = true;
                    i += 1;
                }
                None if long == "line-length" => i += 1,
                _ => {}
            }
            continue;
        }
        if text.starts_with('-') && text.len() > 1 {
            let cluster = &text[1..];
            for (at, letter) in cluster.char_indices() {
                let rest = &cluster[at + letter.len_utf8()..];
                match letter {
                    'e' | 'f' | 'l' => {
                        let value = if rest.is_empty() {
                            i += 1;
                            args.get(i - 1).cloned()
                        } else {
                            Some(Word {
                                text: rest.to_string(),
                                ..word.clone()
                            })
                        };
                        match letter {
                            'e' => pieces.extend(value),
                            'f' => from_file = true,
                            _ => {}
                        }
                        break;
                    }
                    // `-i[SUFFIX]`: the rest is the suffix.
                    'i' => break,
                    _ => {}
                }
            }
            continue;
        }
        if first_operand.is_none() {
            first_operand = Some(word.clone());
        }
    }
    if !pieces.is_empty() {
        return (Source::Code(pieces), "");
    }
    if from_file {
        return (Source::Elsewhere, "");
    }
    match first_operand {
        Some(script) => (Source::Code(vec![script]), ""),
        None => (Source::Elsewhere, ""),
    }
}

#[cfg(test)]
mod tests;

/// The string files an awk program redirects output to (`> "f"`, `>> "f"`).
fn awk_output_files(program: &str) -> Vec<String> {
    let bytes = program.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'>' {
            let mut j = i + 1;
            if bytes.get(j) == Some(&b'>') {
                j += 1;
            }
            while bytes.get(j).is_some_and(|b| *b == b' ' || *b == b'\t') {
                j += 1;
            }
            if bytes.get(j) == Some(&b'"') {
                let start = j + 1;
                let mut end = start;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                if let Some(file) = program.get(start..end.min(bytes.len())) {
                    out.push(file.replace("\\\"", "\""));
                }
                i = end;
            }
        }
        i += 1;
    }
    out
}
