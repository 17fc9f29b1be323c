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
mod elisp;
mod lexer;
mod powershell;
mod sed;
mod sinks;
mod tcl;
mod urls;
mod vim_ex;

pub use lexer::Lang;

/// True when `line` starts with a PowerShell cmdlet (`Remove-Item -Recurse
/// C:\Users\u\AppData\Local\Temp\x`, `iex 'git reset --hard'`) or
/// pipes into Invoke-Expression (`'git reset --hard' | iex`): a line for
/// PowerShell, whose backslashes bash would have taken as escapes and
/// whose pipes bash would hand to other programs.
pub fn reads_as_powershell(line: &str) -> bool {
    let first = line
        .trim_start()
        .split(|c: char| c.is_whitespace() || c == ';' || c == '|')
        .next()
        .unwrap_or("");
    powershell::is_cmdlet(&first.to_ascii_lowercase()) || powershell::pipes_into_eval(line)
}

/// `program flags -- operands`, the command a library call (`call`) of
/// code read by `label` amounts to; nothing when it names no operand.
pub(super) fn push_library(
    launch: &mut Launch,
    program: &str,
    flags: &[&str],
    operands: Vec<Word>,
    label: &str,
    call: &str,
) {
    if operands.is_empty() {
        return;
    }
    let mut words = vec![Word::literal(program)];
    words.extend(flags.iter().map(|f| Word::literal(*f)));
    words.push(Word::literal("--"));
    words.extend(operands);
    launch.nested.push(Nested::Argv {
        words,
        via: label.to_string(),
        call: Some(call.to_string()),
        appended: false,
        fill: Vec::new(),
    });
}

/// The commands `analyze` finds on `line`, as `program args...`: what
/// the readers' tests compare.
#[cfg(test)]
pub(super) fn line_commands(line: &str) -> Vec<String> {
    super::analyze(line)
        .commands
        .iter()
        .map(|c| format!("{} {}", c.program, c.args.join(" ")))
        .collect()
}

/// True for a cmdlet name (`Remove-Item`), in any case.
pub fn is_cmdlet(program: &str) -> bool {
    powershell::is_cmdlet(&program.to_ascii_lowercase())
}

use super::launchers::{Launch, Nested};
use super::walk::Input;
use super::words::Word;
use super::OpaqueKind;

/// How an interpreter's code is read once found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// By [`code::analyze`] in this language.
    Code(Lang),
    /// sed scripts: `e` runs commands, `w` writes files.
    Sed,
    /// Tcl scripts: commands and words, like a shell's.
    Tcl,
    /// PowerShell: cmdlets, aliases and native programs.
    PowerShell,
    /// Emacs Lisp: s-expressions calling the file and process functions.
    Lisp,
    /// Vim's Ex commands: `:!`, `system()`, embedded languages.
    VimEx,
}

/// Where an interpreter's options say its program is.
enum Options {
    /// getopt-style short options (see [`options`]).
    Getopt(Getopt),
    Node,
    /// `bun -e CODE`.
    Bun,
    /// `deno eval CODE`.
    Deno,
    Awk,
    Sed,
    PowerShell,
    /// `emacs --eval EXPR`, `emacsclient -e EXPR...`.
    Emacs,
    /// `vim -c CMD`, `--cmd CMD`, `+CMD`.
    Vim,
}

/// getopt-style options: `code` letters (and `long_code` options) take the
/// program text; `module` names a module to run instead; `valued` letters
/// and `long_valued` options take a value; `stop` letters and `stop_long`
/// options mean the interpreter runs no code given here (`--version`, a
/// file named by an option).
struct Getopt {
    code: &'static str,
    long_code: &'static [&'static str],
    module: Option<char>,
    valued: &'static str,
    stop: &'static str,
    stop_long: &'static [&'static str],
    long_valued: &'static [&'static str],
    /// Letters that, with no code and no script, make the interpreter
    /// exit instead of reading standard input (`lua -v`).
    no_stdin: &'static str,
}

const GETOPT: Getopt = Getopt {
    code: "",
    long_code: &[],
    module: None,
    valued: "",
    stop: "",
    stop_long: &["help", "version"],
    long_valued: &[],
    no_stdin: "",
};

/// One interpreter: its program names (`versioned`: also with a version
/// suffix, `python3.12`, `lua5.4`), how its options give the program, and
/// how the program is read.
struct Interpreter {
    names: &'static [&'static str],
    versioned: bool,
    options: Options,
    reads: Reads,
}

/// The interpreters whose inline code is read. Adding one whose code is a
/// language [`code::analyze`] reads is a row here and its sinks in
/// `sinks.rs`.
const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        names: &["python", "pypy"],
        versioned: true,
        options: Options::Getopt(Getopt {
            code: "c",
            module: Some('m'),
            valued: "WX",
            stop: "hV",
            long_valued: &["check-hash-based-pycs"],
            ..GETOPT
        }),
        reads: Reads::Code(Lang::Python),
    },
    Interpreter {
        names: &["node", "nodejs"],
        versioned: false,
        options: Options::Node,
        reads: Reads::Code(Lang::JavaScript),
    },
    Interpreter {
        names: &["bun"],
        versioned: false,
        options: Options::Bun,
        reads: Reads::Code(Lang::JavaScript),
    },
    Interpreter {
        names: &["deno"],
        versioned: false,
        options: Options::Deno,
        reads: Reads::Code(Lang::JavaScript),
    },
    Interpreter {
        names: &["perl"],
        versioned: true,
        options: Options::Getopt(Getopt {
            code: "eE",
            valued: "iIMmx0lCdD",
            stop: "vhV",
            ..GETOPT
        }),
        reads: Reads::Code(Lang::Perl),
    },
    Interpreter {
        names: &["ruby", "jruby", "truffleruby"],
        versioned: false,
        options: Options::Getopt(Getopt {
            code: "e",
            valued: "rICEFix0lW",
            stop: "vh",
            long_valued: &["encoding", "external-encoding", "internal-encoding"],
            ..GETOPT
        }),
        reads: Reads::Code(Lang::Ruby),
    },
    Interpreter {
        names: &["php"],
        versioned: true,
        options: Options::Getopt(Getopt {
            code: "rRBE",
            valued: "dctzS",
            stop: "fvhimlsa",
            stop_long: &[
                "help",
                "version",
                "info",
                "modules",
                "file",
                "server",
                "interactive",
            ],
            long_valued: &["define", "php-ini", "docroot", "zend-extension"],
            ..GETOPT
        }),
        reads: Reads::Code(Lang::Php),
    },
    Interpreter {
        // `lua [-e stat] [-l mod] [script]`; luajit's `-b` compiles a file.
        names: &["lua", "luajit"],
        versioned: true,
        options: Options::Getopt(Getopt {
            code: "e",
            valued: "lj",
            stop: "b",
            no_stdin: "v",
            ..GETOPT
        }),
        reads: Reads::Code(Lang::Lua),
    },
    Interpreter {
        // `Rscript -e EXPR`, `R -e EXPR`; `R -f FILE` and `R CMD ...` run
        // files and tools.
        names: &["rscript", "r"],
        versioned: false,
        options: Options::Getopt(Getopt {
            code: "e",
            valued: "dg",
            stop: "f",
            stop_long: &["help", "version", "file"],
            long_valued: &["encoding", "debugger", "gui", "args"],
            ..GETOPT
        }),
        reads: Reads::Code(Lang::R),
    },
    Interpreter {
        // `julia -e CODE`, `-E CODE`, `--eval CODE`; `-O2`, `-g1` take
        // only attached values.
        names: &["julia"],
        versioned: false,
        options: Options::Getopt(Getopt {
            code: "eE",
            long_code: &["eval", "print"],
            module: Some('m'),
            valued: "JHLtpC",
            stop: "vh",
            stop_long: &["help", "version", "help-hidden", "module"],
            long_valued: &[
                "sysimage",
                "home",
                "load",
                "threads",
                "gcthreads",
                "procs",
                "machine-file",
                "cpu-target",
                "startup-file",
                "handle-signals",
                "sysimage-native-code",
                "compiled-modules",
                "pkgimages",
                "history-file",
                "color",
                "depwarn",
                "warn-overwrite",
                "warn-scope",
                "inline",
                "check-bounds",
                "math-mode",
                "heap-size-hint",
                "trace-compile",
                "bug-report",
                "min-optlevel",
            ],
            ..GETOPT
        }),
        reads: Reads::Code(Lang::Julia),
    },
    Interpreter {
        // tclsh and wish read a file or standard input; jimsh takes `-e`,
        // expect `-c`.
        names: &["tclsh", "wish", "jimsh", "expect"],
        versioned: true,
        options: Options::Getopt(Getopt {
            code: "ec",
            valued: "D",
            stop: "fbv",
            ..GETOPT
        }),
        reads: Reads::Tcl,
    },
    Interpreter {
        names: &["pwsh", "powershell", "pwsh-preview"],
        versioned: false,
        options: Options::PowerShell,
        reads: Reads::PowerShell,
    },
    Interpreter {
        names: &["emacs", "emacsclient"],
        versioned: false,
        options: Options::Emacs,
        reads: Reads::Lisp,
    },
    Interpreter {
        names: &[
            "vim", "nvim", "vi", "gvim", "mvim", "vimdiff", "nvim-qt", "view", "ex", "evim", "rvim",
        ],
        versioned: false,
        options: Options::Vim,
        reads: Reads::VimEx,
    },
    Interpreter {
        names: &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        versioned: false,
        options: Options::Awk,
        reads: Reads::Code(Lang::Awk),
    },
    Interpreter {
        names: &["sed", "gsed"],
        versioned: false,
        options: Options::Sed,
        reads: Reads::Sed,
    },
];

fn interpreter(program: &str) -> Option<&'static Interpreter> {
    // Every command of every line asks, so by a map rather than a walk of
    // the table; a versioned name (`python3.12`) is looked up without its
    // version (no name in the table ends in a digit or a dot: see the test
    // `interpreter_names_do_not_end_in_a_version`).
    static BY_NAME: std::sync::OnceLock<std::collections::HashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut map = std::collections::HashMap::new();
        for (at, interpreter) in INTERPRETERS.iter().enumerate() {
            for name in interpreter.names {
                map.entry(*name).or_insert(at);
            }
        }
        map
    });
    if let Some(&at) = by_name.get(program) {
        return Some(&INTERPRETERS[at]);
    }
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if base.len() == program.len() {
        return None;
    }
    by_name
        .get(base)
        .map(|&at| &INTERPRETERS[at])
        .filter(|interpreter| interpreter.versioned)
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
    // A PowerShell cmdlet run by a tool that runs PowerShell lines
    // (`Remove-Item -Recurse -Force C:/Users/u`): read as PowerShell.
    if powershell::is_cmdlet(program) {
        let mut words = vec![Word::literal(program)];
        words.extend(args.iter().cloned());
        let literal = words.iter().all(|w| w.literal);
        let line = words
            .iter()
            .map(|w| powershell::quote(&w.text))
            .collect::<Vec<_>>()
            .join(" ");
        powershell::read(&line, literal, program, launch);
        return;
    }
    let Some(kind) = interpreter(program) else {
        return;
    };
    let (source, flag) = match &kind.options {
        Options::Getopt(getopt) => options(args, getopt),
        Options::Node => node_options(args),
        Options::Bun => match args.first().map(|w| w.text.as_str()) {
            Some("-e" | "--eval" | "-p" | "--print") => (code_after(args, 0), "-e"),
            _ => (Source::Elsewhere, ""),
        },
        Options::Deno => match args.first().map(|w| w.text.as_str()) {
            Some("eval") => (
                args.iter()
                    .skip(1)
                    .find(|w| !w.text.starts_with('-'))
                    .map_or(Source::Elsewhere, |w| Source::Code(vec![w.clone()])),
                "eval",
            ),
            _ => (Source::Elsewhere, ""),
        },
        Options::Awk => awk_options(args),
        Options::Sed => sed_options(args),
        Options::Vim => {
            let pieces = vim_ex::code_pieces(args);
            if pieces.is_empty() {
                (Source::Elsewhere, "")
            } else {
                (Source::Code(pieces), "-c")
            }
        }
        Options::Emacs => {
            let pieces = elisp::code_pieces(program, args);
            if pieces.is_empty() {
                (Source::Elsewhere, "")
            } else {
                (Source::Code(pieces), "--eval")
            }
        }
        Options::PowerShell => {
            let (source, flag) = powershell::options(program, args);
            match source {
                powershell::Source::Code(words) => (Source::Code(words), flag),
                powershell::Source::Stdin => (Source::Stdin, flag),
                powershell::Source::Elsewhere => (Source::Elsewhere, flag),
                powershell::Source::Unreadable(why) => {
                    launch.opaque.push((OpaqueKind::DynamicEval, why));
                    return;
                }
            }
        }
    };
    let label = match (kind, &source) {
        (_, Source::Stdin) => format!("{program} <<"),
        (_, _) if matches!(kind.options, Options::Awk | Options::Sed) => program.to_string(),
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
    if kind.reads == Reads::Sed {
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
    let lang = match kind.reads {
        Reads::Code(lang) => lang,
        Reads::Tcl => {
            tcl::read(&text, literal, &label, launch);
            return;
        }
        Reads::PowerShell => {
            powershell::read(&text, literal, &label, launch);
            return;
        }
        Reads::Lisp => {
            elisp::read(&text, literal, &label, launch);
            return;
        }
        Reads::VimEx => {
            vim_ex::read(&text, literal, &label, launch);
            return;
        }
        Reads::Sed => return,
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
        // `getline [var] < "file"` reads the file, as `cat -- file`.
        for file in awk_input_files(&text) {
            launch.nested.push(Nested::Argv {
                words: vec![
                    Word::literal("cat"),
                    Word::literal("--"),
                    Word {
                        text: file,
                        literal,
                        pattern: false,
                    },
                ],
                via: format!("{label} <"),
                call: Some("awk getline <".into()),
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

/// Reads getopt-style options (see [`Getopt`]). The first operand is a
/// script.
fn options(args: &[Word], getopt: &Getopt) -> (Source, &'static str) {
    let Getopt {
        code,
        long_code,
        module,
        valued,
        stop,
        stop_long,
        long_valued,
        no_stdin,
    } = getopt;
    let mut exits = false;
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
            if long_code.contains(&name) {
                match long.split_once('=') {
                    Some((_, value)) => pieces.push(Word {
                        text: value.to_string(),
                        ..word.clone()
                    }),
                    None => match args.get(i + 1) {
                        Some(next) => pieces.push(next.clone()),
                        None => return (Source::Elsewhere, ""),
                    },
                }
                flag = "-e";
                i += if long.contains('=') { 1 } else { 2 };
                continue;
            }
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
            if Some(letter) == *module {
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
            exits |= no_stdin.contains(letter);
        }
        i += consumed;
    }
    if !pieces.is_empty() {
        return (Source::Code(pieces), flag);
    }
    match args.get(i).map(|w| w.text.as_str()) {
        Some("--") if args.len() > i + 1 => (Source::Elsewhere, ""),
        Some("--") | None if exits => (Source::Elsewhere, ""),
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

/// The text of a double-quoted string whose opening `"` is already read,
/// up to its closing `"`, with `\\x` read as `x`: the string syntax awk and
/// AppleScript share.
pub(super) fn double_quoted_body(after_quote: &str) -> String {
    let mut body = String::new();
    let mut chars = after_quote.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => body.extend(chars.next()),
            c => body.push(c),
        }
    }
    body
}

/// The string files an awk program reads with `getline < "f"` or
/// `getline var < "f"`.
fn awk_input_files(program: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in program.match_indices("getline") {
        let rest = program[at + "getline".len()..].trim_start();
        let name = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let rest = rest[name..].trim_start();
        let Some(rest) = rest.strip_prefix('<') else {
            continue;
        };
        let Some(string) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        out.push(double_quoted_body(string));
    }
    out
}

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
