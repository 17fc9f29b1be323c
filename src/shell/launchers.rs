//! Programs that run other commands given to them as data.
//!
//! Unlike wrappers, these do more than run one command unchanged: a shell
//! parses a code string (`bash -c '...'`, a heredoc, `eval`), and `xargs`,
//! `find -exec` and friends run a command built from their arguments. The
//! launcher is reported as a command itself, and what it runs is handed back
//! as nested work (a string to parse, or argv words) labelled with how it was
//! reached. A shell that reads its commands from standard input cannot be
//! analysed and is reported as opaque.

use super::walk::Input;
use super::words::Word;
use super::OpaqueKind;
use std::ops::Range;

/// Work found inside one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nested {
    /// Shell code to parse; `literal` when it is known exactly.
    Script {
        source: String,
        via: String,
        literal: bool,
    },
    /// A command given as words (program first).
    Argv {
        words: Vec<Word>,
        via: String,
        /// For a command that stands for a library call in interpreter
        /// code (`shutil.rmtree`), the call.
        call: Option<String>,
        /// The launcher adds arguments at run time (`xargs rm` without `-I`).
        appended: bool,
        /// What `{}` stands for: `find`'s starting points, whose contents
        /// `find -exec` hands to the command.
        fill: Vec<Word>,
    },
}

/// What a command launches, and what about it cannot be known.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Launch {
    pub nested: Vec<Nested>,
    pub opaque: Vec<(OpaqueKind, String)>,
    /// Argument ranges that belong to the launched command, not to the
    /// launcher: they do not count as the launcher's flags.
    pub foreign: Vec<Range<usize>>,
}

impl Launch {
    fn argv(&mut self, args: &[Word], range: Range<usize>, via: impl Into<String>) {
        self.argv_filled(args, range, via, None, false);
    }

    /// Like `argv`, for commands whose `placeholder` (`{}`) is replaced at
    /// run time by input or file names: words holding it are not known.
    fn argv_filled(
        &mut self,
        args: &[Word],
        range: Range<usize>,
        via: impl Into<String>,
        placeholder: Option<&str>,
        appended: bool,
    ) {
        let words = args[range.clone()]
            .iter()
            .map(|w| match placeholder {
                Some(p) if !p.is_empty() && w.text.contains(p) => Word {
                    literal: false,
                    ..w.clone()
                },
                _ => w.clone(),
            })
            .collect();
        self.nested.push(Nested::Argv {
            words,
            via: via.into(),
            call: None,
            appended,
            fill: Vec::new(),
        });
        self.foreign.push(range);
    }

    fn joined(&mut self, args: &[Word], range: Range<usize>, via: &str) {
        self.nested.push(joined_script(&args[range.clone()], via));
        self.foreign.push(range);
    }
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "rbash", "yash", "posh", "fish",
];

/// True for the shells whose `-c` code and scripts are followed.
pub fn is_shell(program: &str) -> bool {
    SHELLS.contains(&program)
}

/// Inspect a command whose wrappers were already removed; `appended` when
/// the launcher that runs it adds arguments at run time.
pub fn inspect(program: &str, args: &[Word], input: Option<&Input>, appended: bool) -> Launch {
    let mut launch = Launch::default();
    match program {
        p if SHELLS.contains(&p) => shell(p, args, input, appended, &mut launch),
        // `eval -- code` is `eval code`.
        "eval" => {
            let skip = usize::from(args.first().is_some_and(|w| w.text == "--"));
            launch.joined(args, skip..args.len(), "eval");
        }
        "source" | "." => sourced_file(program, args, &mut launch),
        "xargs" => xargs(args, &mut launch),
        "find" => find_exec(args, &mut launch),
        "parallel" => parallel(args, &mut launch),
        "watch" => watch(args, &mut launch),
        "flock" => flock(args, &mut launch),
        "su" | "runuser" => switch_user(program, args, &mut launch),
        "trap" => trap(args, &mut launch),
        "alias" => alias(args, &mut launch),
        "ssh" => ssh(args, &mut launch),
        "script" => script_command(args, &mut launch),
        "at" | "batch" => at_job(program, args, input, &mut launch),
        "screen" => screen(args, &mut launch),
        "tmux" => tmux(args, &mut launch),
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" | "pnpm" | "yarn"
        | "conda" | "mamba" | "micromamba" => tool_runner(program, args, &mut launch),
        "npx" | "bunx" | "pnpx" => package_runner(program, args, &mut launch),
        _ => super::inline::inspect(program, args, input, &mut launch),
    }
    launch
}

/// `eval a b c` runs the words joined by spaces; `parallel`/`watch`/`ssh` do the same.
fn joined_script(words: &[Word], via: &str) -> Nested {
    let source = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Nested::Script {
        source,
        via: via.to_string(),
        literal: words.iter().all(|w| w.literal),
    }
}

fn shell(program: &str, args: &[Word], input: Option<&Input>, appended: bool, launch: &mut Launch) {
    let mut has_c = false;
    let mut reads_stdin_flag = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(text) = word.static_text() else {
            if i + 1 < args.len() && !has_c {
                launch.opaque.push((
                    OpaqueKind::DynamicEval,
                    format!(
                        "`{program}` options are decided at run time (`{}`)",
                        word.text
                    ),
                ));
                return;
            }
            break;
        };
        if text == "--" || text == "-" {
            i += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long {
                "help" | "version" => return,
                "rcfile" | "init-file" => i += 2,
                "command" => {
                    // fish spells -c as --command.
                    has_c = true;
                    i += 1;
                }
                _ if long.starts_with("command=") => {
                    let source = long.trim_start_matches("command=").to_string();
                    push_shell_string(program, source, word.literal, launch);
                    return;
                }
                _ => i += 1,
            }
            continue;
        }
        let Some(cluster) = text
            .strip_prefix('-')
            .or_else(|| text.strip_prefix('+'))
            .filter(|c| !c.is_empty())
        else {
            break;
        };
        let mut consumed = 1;
        for flag in cluster.chars() {
            match flag {
                'c' => has_c = true,
                's' | 'i' => reads_stdin_flag = true,
                // `-o option` and `-O shopt_option` take the next word.
                'o' | 'O' => consumed += 1,
                _ => {}
            }
        }
        i += consumed;
    }
    let operand = args.get(i);
    if has_c {
        match operand {
            Some(code) => push_shell_string(program, code.text.clone(), code.literal, launch),
            // `xargs sh -c`: the code is the first argument added at run
            // time. Written alone, `bash -c` only fails (it needs an argument).
            None if !appended => {}
            None => launch.opaque.push((
                OpaqueKind::DynamicEval,
                format!(
                    "`{program} -c` without code here takes it from arguments added at run time"
                ),
            )),
        }
        return;
    }
    match operand {
        Some(script) if !reads_stdin_flag => {
            if is_stream_path(&script.text) {
                launch.opaque.push((
                    OpaqueKind::ShellFromStdin,
                    format!("`{program}` runs a script read from `{}`", script.text),
                ));
            }
        }
        _ => stdin_script(program, input, launch),
    }
}

fn push_shell_string(program: &str, source: String, literal: bool, launch: &mut Launch) {
    launch.nested.push(Nested::Script {
        source,
        via: format!("{program} -c"),
        literal,
    });
}

/// A shell with no command string and no script file reads its commands
/// from standard input.
fn stdin_script(program: &str, input: Option<&Input>, launch: &mut Launch) {
    match input {
        Some(Input::Heredoc { body, literal }) => launch.nested.push(Nested::Script {
            source: body.clone(),
            via: format!("{program} <<"),
            literal: *literal,
        }),
        Some(Input::HereString(word)) => launch.nested.push(Nested::Script {
            source: word.text.clone(),
            via: format!("{program} <<<"),
            literal: word.literal,
        }),
        Some(Input::File(path)) => launch.opaque.push((
            OpaqueKind::ShellFromStdin,
            format!("`{program}` runs commands read from file `{path}`"),
        )),
        None => launch.opaque.push((
            OpaqueKind::ShellFromStdin,
            format!("`{program}` without -c or a script reads commands from standard input"),
        )),
    }
}

/// Paths that are really a stream of someone else's output.
pub(super) fn is_stream_path(path: &str) -> bool {
    path.starts_with("<(")
        || path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || path.starts_with("/proc/self/fd/")
}

fn sourced_file(program: &str, args: &[Word], launch: &mut Launch) {
    if let Some(file) = args.first() {
        if is_stream_path(&file.text) {
            launch.opaque.push((
                OpaqueKind::ShellFromStdin,
                format!("`{program}` runs commands read from `{}`", file.text),
            ));
        }
    }
}

/// Generic option scanner for launchers: returns the index of the first
/// operand. `short_value`/`long_value` options take the next word when their
/// value is not attached. A word not known statically ends the options.
fn first_operand(args: &[Word], short_value: &str, long_value: &[&str]) -> usize {
    let mut i = 0;
    while let Some(text) = args.get(i).and_then(Word::static_text) {
        if text == "--" {
            return i + 1;
        }
        if let Some(long) = text.strip_prefix("--") {
            let takes_next = !long.contains('=') && long_value.contains(&long);
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return i;
        };
        let mut consumed = 1;
        for (at, flag) in cluster.char_indices() {
            if short_value.contains(flag) {
                if cluster.len() == at + flag.len_utf8() {
                    consumed = 2;
                }
                break;
            }
        }
        i += consumed;
    }
    i
}

fn xargs(args: &[Word], launch: &mut Launch) {
    // BSD xargs also has `-J replstr`, `-R max` and `-S size`.
    let start = first_operand(
        args,
        "adEIJLnPRSs",
        &[
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
    );
    if start < args.len() {
        let replace = xargs_replace_string(&args[..start]);
        // Without a replace string the input is appended to the command.
        let appended = replace.is_none();
        launch.argv_filled(
            args,
            start..args.len(),
            "xargs",
            replace.as_deref(),
            appended,
        );
    }
}

/// The string `xargs -I R` / `-i[R]` / `--replace[=R]` (BSD: `-J R`)
/// replaces with input.
fn xargs_replace_string(options: &[Word]) -> Option<String> {
    let mut found = None;
    let mut words = options.iter().map(|w| w.text.as_str());
    while let Some(text) = words.next() {
        if let Some(value) = text.strip_prefix("--replace") {
            // An empty `--replace=` is read as `{}` so the input is not
            // missed (fail closed: `{}` then stands for unknown text).
            let value = value.strip_prefix('=').filter(|v| !v.is_empty());
            found = Some(value.unwrap_or("{}").to_string());
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            if let Some(at) = cluster.find(['I', 'i', 'J']) {
                let rest = &cluster[at + 1..];
                found = Some(match (&cluster[at..=at], rest.is_empty()) {
                    ("I" | "J", true) => words.next().unwrap_or("{}").to_string(),
                    ("i", true) => "{}".to_string(),
                    _ => rest.to_string(),
                });
            }
        }
    }
    found
}

fn find_exec(args: &[Word], launch: &mut Launch) {
    let starting_points: Vec<Word> = super::targets::operands("find", args)
        .into_iter()
        .map(|t| Word {
            text: t.text,
            literal: t.literal,
            pattern: t.pattern,
        })
        .collect();
    let mut i = 0;
    while i < args.len() {
        let action = args[i].text.as_str();
        if !matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < args.len() {
            let t = args[end].text.as_str();
            if t == ";" || (t == "+" && end > start && args[end - 1].text == "{}") {
                break;
            }
            end += 1;
        }
        if end > start {
            launch.argv_filled(
                args,
                start..end,
                format!("find {action}"),
                Some("{}"),
                false,
            );
            if let Some(Nested::Argv { fill, .. }) = launch.nested.last_mut() {
                *fill = starting_points.clone();
            }
        }
        i = end + 1;
    }
}

fn parallel(args: &[Word], launch: &mut Launch) {
    let start = first_operand(
        args,
        "jPSadEILNnsC",
        &[
            "jobs",
            "sshlogin",
            "arg-file",
            "delimiter",
            "colsep",
            "results",
            "joblog",
            "timeout",
            "delay",
            "halt",
            "tmpdir",
            "workdir",
            "wd",
            "env",
            "basefile",
            "return",
            "sshloginfile",
            "memfree",
            "load",
            "nice",
            "retries",
            "tagstring",
            "max-args",
            "max-replace-args",
            "max-lines",
            "max-chars",
            "replace",
        ],
    );
    let end = args[start.min(args.len())..]
        .iter()
        .position(|w| is_input_separator(&w.text))
        .map_or(args.len(), |p| start + p);
    let inputs = parallel_inputs(&args[end.min(args.len())..]);
    if start >= end {
        match inputs {
            // `parallel ::: 'cmd 1' 'cmd 2'` runs each argument as a command line.
            ParallelInput::Known(lines) => {
                for line in lines {
                    launch.nested.push(Nested::Script {
                        source: line.text.clone(),
                        via: "parallel :::".into(),
                        literal: line.literal,
                    });
                }
            }
            ParallelInput::Unknown(from) => launch.opaque.push((
                OpaqueKind::ShellFromStdin,
                format!("`parallel` without a command runs the lines of {from} as commands"),
            )),
        }
        return;
    }
    let replace = parallel_replace_string(&args[..start]);
    let command = &args[start..end];
    launch.foreign.push(start..end);
    // parallel joins the command's words with spaces and hands the line to
    // a shell; a word holding blanks (`bash -c 'rm -rf {}'`) is also read
    // as one word, as a reader of the line would take it. Both are analysed.
    let mut readings = vec![true];
    let blank = |w: &Word| w.text.contains([' ', '\t', '\n']);
    if !blank(&command[0]) && command[1..].iter().any(blank) {
        readings.push(false);
    }
    let values: Vec<Option<&Word>> = match &inputs {
        ParallelInput::Known(values) if !values.is_empty() => values
            .iter()
            .take(MAX_PARALLEL_VALUES)
            .map(|v| Some(*v))
            .collect(),
        _ => vec![None],
    };
    let has_placeholder = command
        .iter()
        .any(|w| w.text.contains(replace.as_str()) || has_parallel_placeholder(&w.text));
    for value in values {
        for &joined in &readings {
            // parallel quotes input values it puts into the line it hands to a shell.
            let mut words: Vec<Word> = command
                .iter()
                .map(|w| fill_parallel(w, &replace, value, joined))
                .collect();
            if !has_placeholder {
                // Without a replacement string the input is appended.
                words.push(match value {
                    Some(v) if joined => Word {
                        text: shell_quote(&v.text),
                        ..v.clone()
                    },
                    Some(v) => v.clone(),
                    None => Word {
                        text: replace.clone(),
                        literal: false,
                        pattern: false,
                    },
                });
            }
            if joined {
                launch.nested.push(joined_script(&words, "parallel"));
            } else {
                launch.nested.push(Nested::Argv {
                    words,
                    via: "parallel".into(),
                    call: None,
                    appended: false,
                    fill: Vec::new(),
                });
            }
        }
    }
}

/// Most `:::` values followed one by one; more make the command unknown.
const MAX_PARALLEL_VALUES: usize = 32;

/// `:::`, `:::+`, `::::` and `::::+` start parallel's input sources.
fn is_input_separator(text: &str) -> bool {
    matches!(text, ":::" | ":::+" | "::::" | "::::+")
}

/// What parallel reads its arguments from.
enum ParallelInput<'a> {
    /// `::: a b c`: the words (empty for a bare `:::`).
    Known(Vec<&'a Word>),
    /// Standard input or files (`::::`); named for messages.
    Unknown(&'static str),
}

fn parallel_inputs(sources: &[Word]) -> ParallelInput<'_> {
    if sources.is_empty() {
        return ParallelInput::Unknown("its standard input");
    }
    let mut values = Vec::new();
    let mut from_file = false;
    for word in sources {
        match word.text.as_str() {
            ":::" | ":::+" => from_file = false,
            "::::" | "::::+" => {
                from_file = true;
                if !values.is_empty() || sources.len() > 1 {
                    return ParallelInput::Unknown("the files after `::::`");
                }
            }
            _ if from_file => return ParallelInput::Unknown("the files after `::::`"),
            _ => values.push(word),
        }
    }
    if from_file && values.is_empty() && sources.len() > 1 {
        return ParallelInput::Unknown("the files after `::::`");
    }
    ParallelInput::Known(values)
}

/// The replacement string (`-I R`, `--replace=R`; `{}` by default).
fn parallel_replace_string(options: &[Word]) -> String {
    let mut found = "{}".to_string();
    let mut words = options.iter().map(|w| w.text.as_str());
    while let Some(text) = words.next() {
        if let Some(value) = text.strip_prefix("--replace") {
            found = value.strip_prefix('=').unwrap_or("{}").to_string();
        } else if let Some(rest) = text.strip_prefix("-I") {
            found = if rest.is_empty() {
                words.next().unwrap_or("{}").to_string()
            } else {
                rest.to_string()
            };
        } else if text == "-i" {
            found = "{}".to_string();
        }
    }
    found
}

/// parallel's other replacement strings: `{.}`, `{/}`, `{//}`, `{/.}`,
/// `{#}`, `{%}`, `{1}`, `{2.}`, ...
fn has_parallel_placeholder(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'{'
            && bytes[i + 1..]
                .iter()
                .position(|&c| c == b'}')
                .is_some_and(|len| {
                    len > 0
                        && bytes[i + 1..i + 1 + len]
                            .iter()
                            .all(|c| b"./#%0123456789".contains(c))
                })
    })
}

/// A command word with the input value put in for `replace`; words holding
/// a replacement string that is not filled in are only known at run time.
fn fill_parallel(word: &Word, replace: &str, value: Option<&Word>, quote: bool) -> Word {
    let other = has_parallel_placeholder(&word.text);
    if !word.text.contains(replace) && !other {
        return word.clone();
    }
    match value {
        Some(v) if !other => Word {
            text: word.text.replace(
                replace,
                &if quote {
                    shell_quote(&v.text)
                } else {
                    v.text.clone()
                },
            ),
            literal: word.literal && v.literal,
            pattern: word.pattern || v.pattern,
        },
        _ => Word {
            literal: false,
            ..word.clone()
        },
    }
}

/// `text` quoted for a shell when it holds anything but plain characters.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Project tool runners run the command after their subcommand in the
/// project's environment: `uv run python -c ...`, `poetry run pytest`,
/// `bundle exec rake`, `pnpm exec tsc`, `conda run -n env python x.py`.
fn tool_runner(program: &str, args: &[Word], launch: &mut Launch) {
    let subcommand = args.first().map(|w| w.text.as_str());
    let runs = match program {
        "bundle" => subcommand == Some("exec"),
        "pnpm" | "yarn" => matches!(subcommand, Some("exec" | "dlx")),
        _ => subcommand == Some("run"),
    };
    if !runs {
        return;
    }
    let rest = &args[1..];
    let start = 1 + first_operand(
        rest,
        "pnC",
        &[
            "with",
            "with-requirements",
            "with-editable",
            "python",
            "project",
            "directory",
            "package",
            "extra",
            "group",
            "env-file",
            "index",
            "index-url",
            "name",
            "prefix",
            "cwd",
            "env",
            "filter",
            "dir",
        ],
    );
    if start < args.len() {
        launch.argv(
            args,
            start..args.len(),
            format!("{program} {}", args[0].text),
        );
    }
}

/// `npx [options] command args...`; `npx -c 'code'` runs code in a shell.
fn package_runner(program: &str, args: &[Word], launch: &mut Launch) {
    if let Some(code) = option_value(args, 'c', &["call"]) {
        launch.nested.push(Nested::Script {
            source: code.text.clone(),
            via: format!("{program} -c"),
            literal: code.literal,
        });
        return;
    }
    let start = first_operand(args, "p", &["package", "node-options"]);
    if start < args.len() {
        launch.argv(args, start..args.len(), program);
    }
}

fn watch(args: &[Word], launch: &mut Launch) {
    let start = first_operand(args, "nq", &["interval", "equexit"]);
    let exec_mode = args[..start.min(args.len())].iter().any(|w| {
        w.text == "--exec"
            || (!w.text.starts_with("--") && w.text.starts_with('-') && w.text.contains('x'))
    });
    if start >= args.len() {
        return;
    }
    if exec_mode {
        launch.argv(args, start..args.len(), "watch");
    } else {
        launch.joined(args, start..args.len(), "watch");
    }
}

/// `flock [options] FILE COMMAND [ARGS]` or `flock [options] FILE -c 'code'`;
/// flock only looks for `-c` right after the file.
fn flock(args: &[Word], launch: &mut Launch) {
    let file = first_operand(args, "wE", &["timeout", "wait", "conflict-exit-code"]);
    let start = file + 1;
    match args.get(start).map(|w| w.text.as_str()) {
        Some("-c" | "--command") => {
            if let Some(code) = args.get(start + 1) {
                launch.nested.push(Nested::Script {
                    source: code.text.clone(),
                    via: "flock -c".into(),
                    literal: code.literal,
                });
            }
        }
        Some(_) => launch.argv(args, start..args.len(), "flock"),
        None => {}
    }
}

/// `su [-] [user] -c 'code'`, `runuser -l user -c 'code'`.
fn switch_user(program: &str, args: &[Word], launch: &mut Launch) {
    let code = option_value(args, 'c', &["command", "session-command"]);
    match code {
        Some(code) => launch.nested.push(Nested::Script {
            source: code.text.clone(),
            via: format!("{program} -c"),
            literal: code.literal,
        }),
        None if args
            .iter()
            .any(|a| a.text == "--help" || a.text == "--version") => {}
        None => launch.opaque.push((
            OpaqueKind::ShellFromStdin,
            format!("`{program}` without -c starts a shell reading standard input"),
        )),
    }
}

/// `alias name=value`: the value is read as code (it runs wherever the
/// name is used); a line that also uses the name is opaque (see the
/// analyzer's `finish`).
fn alias(args: &[Word], launch: &mut Launch) {
    for word in args {
        let Some((name, value)) = word.text.split_once('=') else {
            continue;
        };
        if name.is_empty() || name.starts_with('-') {
            continue;
        }
        launch.nested.push(Nested::Script {
            source: value.to_string(),
            via: "alias".into(),
            literal: word.literal,
        });
    }
}

fn trap(args: &[Word], launch: &mut Launch) {
    let args = match args.first() {
        Some(w) if w.text == "--" => &args[1..],
        _ => args,
    };
    // `trap -p`, `trap -l`, `trap - SIG` and `trap SIG` (reset) run nothing.
    if args.len() < 2 || args[0].text.starts_with('-') {
        return;
    }
    launch.nested.push(Nested::Script {
        source: args[0].text.clone(),
        via: "trap".into(),
        literal: args[0].literal,
    });
}

/// `ssh [options] host command...` runs the joined words in a remote shell.
fn ssh(args: &[Word], launch: &mut Launch) {
    let host = first_operand(args, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
    if host + 1 < args.len() {
        launch.joined(args, host + 1..args.len(), "ssh");
    }
}

/// `at TIME` and `batch` read the job's shell commands from standard input
/// (or `-f FILE`) and run them later; `-l`, `-r`, `-d` and `-c` only manage
/// queued jobs.
fn at_job(program: &str, args: &[Word], input: Option<&Input>, launch: &mut Launch) {
    let mut i = 0;
    while let Some(text) = args.get(i).and_then(Word::static_text) {
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        if cluster == "-" {
            break;
        }
        for (at, flag) in cluster.char_indices() {
            match flag {
                'f' => return,
                'l' | 'r' | 'd' | 'c' | 'V' => return,
                'q' | 't' if cluster.len() == at + 1 => {
                    i += 1;
                    break;
                }
                'q' | 't' => break,
                _ => {}
            }
        }
        i += 1;
    }
    stdin_script(program, input, launch);
}

/// `screen [options] [cmd [args]]` runs `cmd` in a new window; `-X stuff
/// TEXT` types TEXT into a running session's shell. Attaching, listing and
/// other `-X` commands run nothing.
fn screen(args: &[Word], launch: &mut Launch) {
    let mut i = 0;
    while let Some(text) = args.get(i).and_then(Word::static_text) {
        if text == "-Logfile" {
            i += 2;
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        if matches!(cluster, "ls" | "list" | "wipe" | "version") {
            return;
        }
        let mut consumed = 1;
        for (at, flag) in cluster.char_indices() {
            match flag {
                'X' => {
                    let command = args.get(i + 1).map(|w| w.text.as_str());
                    if command == Some("stuff") {
                        typed_text(args, i + 2..args.len(), "screen -X stuff", launch);
                    }
                    return;
                }
                'r' | 'x' | 'R' | 'Q' | 'v' => return,
                'S' | 'c' | 'e' | 'E' | 'h' | 'p' | 's' | 'T' | 't' => {
                    if cluster.len() == at + flag.len_utf8() {
                        consumed = 2;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += consumed;
    }
    if i < args.len() {
        launch.argv(args, i..args.len(), "screen");
    }
}

/// Keystrokes sent to a shell (`screen -X stuff`, `tmux send-keys`): the
/// words are joined into the text the shell will read, with key names that
/// end or break a line (`Enter`, `C-m`, `^M`, ...) read as newlines. The
/// text is analysed whether or not it is submitted: a later keystroke can
/// submit it.
fn typed_text(args: &[Word], range: Range<usize>, via: &str, launch: &mut Launch) {
    let Some(words) = args.get(range.clone()) else {
        return;
    };
    if words.is_empty() {
        return;
    }
    let mut source = String::new();
    for word in words {
        match word.text.as_str() {
            "Space" => source.push(' '),
            key if is_key_name(key) => source.push('\n'),
            text => source.push_str(&unescape_keys(text)),
        }
    }
    launch.nested.push(Nested::Script {
        source,
        via: via.to_string(),
        literal: words.iter().all(|w| w.literal),
    });
    launch.foreign.push(range);
}

/// tmux and screen key names (not literal text).
fn is_key_name(word: &str) -> bool {
    const NAMES: &[&str] = &[
        "Enter", "Escape", "Tab", "BTab", "BSpace", "Up", "Down", "Left", "Right", "Home", "End",
        "IC", "DC", "Insert", "Delete", "NPage", "PageDown", "PgDn", "PPage", "PageUp", "PgUp",
    ];
    let modified = ["C-", "M-", "S-"]
        .iter()
        .any(|m| word.len() > m.len() && word.starts_with(m));
    let caret = word.len() == 2 && word.starts_with('^');
    let function_key = word.len() <= 3
        && word.starts_with('F')
        && word.len() > 1
        && word[1..].bytes().all(|b| b.is_ascii_digit());
    NAMES.contains(&word)
        || word.starts_with("KP") && word.len() > 2
        || modified
        || caret
        || function_key
}

/// screen's `stuff` escapes for line ends (`\n`, `\r`, `^M`, `\015`).
fn unescape_keys(text: &str) -> String {
    text.replace("\\n", "\n")
        .replace("\\r", "\n")
        .replace("^M", "\n")
        .replace("^J", "\n")
        .replace("\\015", "\n")
        .replace("\\012", "\n")
}

/// tmux runs shell commands for several of its commands, and `send-keys`
/// types into a pane. Commands chain with a `;` word (`\;` in the shell).
fn tmux(args: &[Word], launch: &mut Launch) {
    // Global options; `-c shell-command` runs it like `sh -c`.
    let mut i = 0;
    while let Some(text) = args.get(i).and_then(Word::static_text) {
        if text == "--" {
            i += 1;
            break;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        let mut consumed = 1;
        for (at, flag) in cluster.char_indices() {
            if "LSfcT".contains(flag) {
                let rest = &cluster[at + flag.len_utf8()..];
                let code = if rest.is_empty() {
                    consumed = 2;
                    args.get(i + 1).cloned()
                } else {
                    Some(Word {
                        text: rest.to_string(),
                        ..args[i].clone()
                    })
                };
                if flag == 'c' {
                    if let Some(code) = code {
                        launch.nested.push(Nested::Script {
                            source: code.text.clone(),
                            via: "tmux -c".into(),
                            literal: code.literal,
                        });
                    }
                }
                break;
            }
        }
        i += consumed;
    }
    let mut start = i;
    while start < args.len() {
        let end = args[start..]
            .iter()
            .position(|w| w.text == ";")
            .map_or(args.len(), |p| start + p);
        tmux_command(args, start, end, launch);
        start = end + 1;
    }
}

/// One tmux command, `args[start..end]`, command name first.
fn tmux_command(args: &[Word], start: usize, end: usize, launch: &mut Launch) {
    let Some(name) = args.get(start).map(|w| w.text.as_str()) else {
        return;
    };
    // Options taking a value, per command.
    let value_options = match name {
        "new-session" | "new" => "cefFnstxy",
        "new-window" | "neww" => "cefFnt",
        "split-window" | "splitw" => "ceFlt",
        "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => "cet",
        "run-shell" | "run" => "cdt",
        "display-popup" | "popup" => "bcdehsStTwxy",
        "pipe-pane" | "pipep" => "t",
        "if-shell" | "if" => "t",
        "send-keys" | "send" => "cNt",
        _ => return,
    };
    let operands_at = start + 1;
    let options = &args[operands_at..end];
    let first = operands_at + first_operand(options, value_options, &[]);
    if first >= end {
        return;
    }
    let via = format!("tmux {name}");
    match name {
        "send-keys" | "send" => {
            let copy_mode = options[..first - operands_at]
                .iter()
                .any(|w| w.text.starts_with('-') && w.text.contains('X'));
            if !copy_mode {
                typed_text(args, first..end, &via, launch);
            }
        }
        // `if-shell COMMAND TMUX-COMMAND...`: only the first word is shell code.
        "if-shell" | "if" => launch.joined(args, first..first + 1, &via),
        _ => launch.joined(args, first..end, &via),
    }
}

/// util-linux `script -c 'code' [file]`.
fn script_command(args: &[Word], launch: &mut Launch) {
    if let Some(code) = option_value(args, 'c', &["command"]) {
        launch.nested.push(Nested::Script {
            source: code.text.clone(),
            via: "script -c".into(),
            literal: code.literal,
        });
    }
}

/// Value of `-X value`, `-Xvalue`, a cluster ending in X (`-lc value`),
/// `--long value` or `--long=value`, searched anywhere in the arguments
/// (su and flock accept options after their operands).
fn option_value(args: &[Word], short: char, long: &[&str]) -> Option<Word> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if text == "--" {
            return None;
        }
        if let Some(l) = text.strip_prefix("--") {
            if let Some((name, value)) = l.split_once('=') {
                if long.contains(&name) {
                    return Some(Word {
                        text: value.to_string(),
                        ..word.clone()
                    });
                }
            } else if long.contains(&l) {
                return args.get(i + 1).cloned();
            }
        } else if let Some(cluster) = text.strip_prefix('-') {
            if let Some(at) = cluster.find(short) {
                let rest = &cluster[at + short.len_utf8()..];
                return if rest.is_empty() {
                    args.get(i + 1).cloned()
                } else {
                    Some(Word {
                        text: rest.to_string(),
                        ..word.clone()
                    })
                };
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command written on the line (no launcher adds arguments).
    fn inspect(program: &str, args: &[Word], input: Option<&Input>) -> Launch {
        super::inspect(program, args, input, false)
    }

    fn args(line: &str) -> Vec<Word> {
        line.split_whitespace().map(Word::literal).collect()
    }

    fn scripts(launch: &Launch) -> Vec<(&str, &str)> {
        launch
            .nested
            .iter()
            .filter_map(|n| match n {
                Nested::Script { source, via, .. } => Some((via.as_str(), source.as_str())),
                Nested::Argv { .. } => None,
            })
            .collect()
    }

    fn argvs(launch: &Launch) -> Vec<(String, Vec<String>)> {
        launch
            .nested
            .iter()
            .filter_map(|n| match n {
                Nested::Argv { words, via, .. } => {
                    Some((via.clone(), words.iter().map(|w| w.text.clone()).collect()))
                }
                Nested::Script { .. } => None,
            })
            .collect()
    }

    fn with_code(prefix: &str, code: &str) -> Vec<Word> {
        let mut words = args(prefix);
        words.push(Word::literal(code));
        words
    }

    #[test]
    fn shell_c_is_found_inside_clusters_and_after_valued_options() {
        for prefix in [
            "-c",
            "-lc",
            "-ec",
            "-xc",
            "-cx",
            "-o pipefail -c",
            "--norc -c",
            "-O extglob -c",
        ] {
            let launch = inspect("bash", &with_code(prefix, "rm x"), None);
            assert_eq!(scripts(&launch), [("bash -c", "rm x")], "{prefix}");
            assert!(launch.opaque.is_empty(), "{prefix}");
        }
    }

    #[test]
    fn shell_without_code_reads_stdin_unless_given_a_script() {
        for a in ["", "-s", "-i", "-l", "-s -- x"] {
            let launch = inspect("sh", &args(a), None);
            assert_eq!(launch.opaque[0].0, OpaqueKind::ShellFromStdin, "{a:?}");
        }
        for a in [
            "script.sh",
            "-x script.sh arg",
            "--version",
            "-o errexit script.sh",
        ] {
            assert!(inspect("sh", &args(a), None).opaque.is_empty(), "{a:?}");
        }
        let heredoc = Input::Heredoc {
            body: "rm x\n".into(),
            literal: true,
        };
        let launch = inspect("bash", &[], Some(&heredoc));
        assert_eq!(scripts(&launch), [("bash <<", "rm x\n")]);
    }

    #[test]
    fn dynamic_shell_options_are_opaque() {
        let mut words = vec![Word {
            text: "$OPTS".into(),
            literal: false,
            pattern: false,
        }];
        words.push(Word::literal("x"));
        let launch = inspect("bash", &words, None);
        assert_eq!(launch.opaque[0].0, OpaqueKind::DynamicEval);
    }

    #[test]
    fn find_exec_commands_end_at_their_terminators() {
        let launch = inspect(
            "find",
            &args(". -exec rm -f {} ; -name x -execdir chmod 600 {} + -ok echo ;"),
            None,
        );
        let found = argvs(&launch);
        assert_eq!(found.len(), 3);
        assert_eq!(
            found[0],
            (
                "find -exec".into(),
                vec!["rm".into(), "-f".into(), "{}".into()]
            )
        );
        assert_eq!(found[1].0, "find -execdir");
        assert_eq!(found[1].1, ["chmod", "600", "{}"]);
        assert_eq!(found[2].1, ["echo"]);
        // A `+` that does not follow `{}` is an argument.
        let launch = inspect("find", &args(". -exec expr 1 + 1 ;"), None);
        assert_eq!(argvs(&launch)[0].1, ["expr", "1", "+", "1"]);
    }

    #[test]
    fn an_empty_xargs_replace_string_stands_for_braces() {
        assert_eq!(xargs_replace_string(&args("--replace=")), Some("{}".into()));
        assert_eq!(xargs_replace_string(&args("--replace=@")), Some("@".into()));
    }

    #[test]
    fn xargs_skips_its_options_and_their_values() {
        let launch = inspect("xargs", &args("-0 -n 1 -P4 -I {} rm -rf {}"), None);
        assert_eq!(argvs(&launch)[0].1, ["rm", "-rf", "{}"]);
        let launch = inspect("xargs", &args("--max-args 2 --null rm"), None);
        assert_eq!(argvs(&launch)[0].1, ["rm"]);
        assert!(inspect("xargs", &args("-0"), None).nested.is_empty());
    }

    #[test]
    fn placeholders_filled_at_run_time_are_not_literal() {
        let literal_flags = |launch: &Launch| -> Vec<bool> {
            match &launch.nested[0] {
                Nested::Argv { words, .. } => words.iter().map(|w| w.literal).collect(),
                Nested::Script { .. } => vec![],
            }
        };
        let launch = inspect("xargs", &args("-I % sh -c %"), None);
        assert_eq!(literal_flags(&launch), [true, true, false]);
        let launch = inspect("xargs", &args("-i sh -c {}"), None);
        assert_eq!(literal_flags(&launch), [true, true, false]);
        let launch = inspect("xargs", &args("--replace=@@ cp @@ @@.bak"), None);
        assert_eq!(literal_flags(&launch), [true, false, false]);
        // Without a replace string `{}` is an ordinary word to xargs.
        let launch = inspect("xargs", &args("echo {}"), None);
        assert_eq!(literal_flags(&launch), [true, true]);
        let launch = inspect("find", &args(". -exec sh -c {} ;"), None);
        assert_eq!(literal_flags(&launch), [true, true, false]);
    }

    #[test]
    fn eval_skips_its_double_dash_and_shells_need_their_code() {
        let mut words = args("--");
        words.push(Word::literal("rm -rf /"));
        assert_eq!(
            scripts(&inspect("eval", &words, None)),
            [("eval", "rm -rf /")]
        );
        // `xargs sh -c`: the code is added at run time; alone, `sh -c` fails.
        let launch = super::inspect("sh", &args("-c"), None, true);
        assert_eq!(launch.opaque[0].0, OpaqueKind::DynamicEval);
        let launch = inspect("sh", &args("-c"), None);
        assert!(launch.opaque.is_empty() && launch.nested.is_empty());
    }

    #[test]
    fn parallel_command_ends_at_triple_colon_and_needs_one() {
        let launch = inspect("parallel", &args("-j 4 rm -rf {} ::: a b"), None);
        assert_eq!(
            scripts(&launch),
            [("parallel", "rm -rf a"), ("parallel", "rm -rf b")]
        );
        let launch = inspect("parallel", &args("-j 4"), None);
        assert_eq!(launch.opaque[0].0, OpaqueKind::ShellFromStdin);
        // Without a command, the arguments are the command lines.
        let mut words = args(":::");
        words.push(Word::literal("echo ok"));
        words.push(Word::literal("true"));
        let launch = inspect("parallel", &words, None);
        assert_eq!(
            scripts(&launch),
            [("parallel :::", "echo ok"), ("parallel :::", "true")]
        );
        assert!(inspect("parallel", &args(":::"), None).opaque.is_empty());
        // Input values are quoted into the line; unfilled placeholders are not literal.
        let mut words = args("bash -c");
        words.push(Word::literal("rm -rf {}"));
        words.extend(args("::: /"));
        let launch = inspect("parallel", &words, None);
        assert_eq!(scripts(&launch), [("parallel", "bash -c rm -rf /")]);
        assert_eq!(argvs(&launch)[0].1, ["bash", "-c", "rm -rf /"]);
        // A whole command line in one word is only read as a line.
        let mut words = vec![Word::literal("gzip -9 {}")];
        words.extend(args("::: a.log"));
        let launch = inspect("parallel", &words, None);
        assert_eq!(scripts(&launch), [("parallel", "gzip -9 a.log")]);
        assert!(argvs(&launch).is_empty());
        let launch = inspect("parallel", &args("cp {} {.}.bak ::: 'a b'"), None);
        assert!(matches!(
            &launch.nested[0],
            Nested::Script { literal: false, .. }
        ));
    }

    #[test]
    fn trap_runs_its_first_argument_later() {
        assert_eq!(
            scripts(&inspect(
                "trap",
                &with_code("--", "rm x")
                    .into_iter()
                    .chain(args("EXIT"))
                    .collect::<Vec<_>>(),
                None
            )),
            [("trap", "rm x")]
        );
        assert!(inspect("trap", &args("-p"), None).nested.is_empty());
        assert!(inspect("trap", &args("- EXIT"), None).nested.is_empty());
        assert!(inspect("trap", &args("INT"), None).nested.is_empty());
    }

    #[test]
    fn su_and_flock_code_strings() {
        let launch = inspect("su", &with_code("- root -c", "rm x"), None);
        assert_eq!(scripts(&launch), [("su -c", "rm x")]);
        let launch = inspect("su", &args("--command=ls root"), None);
        assert_eq!(scripts(&launch), [("su -c", "ls")]);
        let launch = inspect("flock", &with_code("-w 5 /tmp/l -c", "rm x"), None);
        assert_eq!(scripts(&launch), [("flock -c", "rm x")]);
        // Without -c right after the file, the rest is the command itself.
        let launch = inspect("flock", &args("/tmp/l tar -cf a.tar d"), None);
        assert_eq!(argvs(&launch)[0].1, ["tar", "-cf", "a.tar", "d"]);
    }

    #[test]
    fn at_jobs_run_their_standard_input() {
        let here = Input::HereString(Word::literal("rm -rf /"));
        let launch = inspect("at", &args("now + 1 minute"), Some(&here));
        assert_eq!(scripts(&launch), [("at <<<", "rm -rf /")]);
        let launch = inspect("batch", &[], None);
        assert_eq!(launch.opaque[0].0, OpaqueKind::ShellFromStdin);
        let launch = inspect("at", &args("-q b -m now"), None);
        assert_eq!(launch.opaque[0].0, OpaqueKind::ShellFromStdin);
        for a in ["-f job.sh now", "-l", "-r 3", "-c 3", "-mf job.sh now"] {
            let launch = inspect("at", &args(a), None);
            assert!(launch.opaque.is_empty() && launch.nested.is_empty(), "{a}");
        }
    }

    #[test]
    fn screen_runs_its_command_and_stuffed_text() {
        let launch = inspect("screen", &args("-dmS job -L rm -rf /"), None);
        assert_eq!(argvs(&launch)[0].1, ["rm", "-rf", "/"]);
        let launch = inspect("screen", &args("-S job -X stuff rm\\ -rf\\ /^M"), None);
        assert_eq!(launch.nested.len(), 1);
        for a in ["-ls", "-r job", "-x", "-S job -X quit", "-dmS job"] {
            assert!(inspect("screen", &args(a), None).nested.is_empty(), "{a}");
        }
    }

    #[test]
    fn tmux_shell_commands_and_keys_are_followed() {
        let launch = inspect("tmux", &with_code("new-session -d -s x", "rm -rf /"), None);
        assert_eq!(scripts(&launch), [("tmux new-session", "rm -rf /")]);
        let launch = inspect("tmux", &args("-L sock new -d rm -rf /"), None);
        assert_eq!(scripts(&launch), [("tmux new", "rm -rf /")]);
        let mut words = args("send-keys -t 0");
        words.push(Word::literal("rm -rf /"));
        words.push(Word::literal("Enter"));
        let launch = inspect("tmux", &words, None);
        assert_eq!(scripts(&launch), [("tmux send-keys", "rm -rf /\n")]);
        // Chained commands, and `-c` before the command.
        let mut words = args("new -d ; split-window -h");
        words.push(Word::literal("rm -rf /"));
        let launch = inspect("tmux", &words, None);
        assert_eq!(scripts(&launch), [("tmux split-window", "rm -rf /")]);
        let launch = inspect("tmux", &with_code("-c", "rm -rf /"), None);
        assert_eq!(scripts(&launch), [("tmux -c", "rm -rf /")]);
        let launch = inspect("tmux", &with_code("run-shell -b", "rm -rf /"), None);
        assert_eq!(scripts(&launch), [("tmux run-shell", "rm -rf /")]);
        // Commands that run nothing.
        for a in [
            "ls",
            "attach -t 0",
            "kill-server",
            "new -d",
            "send-keys -X cancel",
        ] {
            assert!(inspect("tmux", &args(a), None).nested.is_empty(), "{a}");
        }
    }

    #[test]
    fn launched_arguments_are_marked_foreign() {
        let launch = inspect("xargs", &args("-0 rm -rf"), None);
        assert_eq!(launch.foreign, [Range { start: 1, end: 3 }]);
    }
}
