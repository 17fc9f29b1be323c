//! Programs that run other commands given to them as data.
//!
//! Unlike wrappers, these do more than run one command unchanged: a shell
//! parses a code string (`bash -c '...'`, a heredoc, `eval`), and `xargs`,
//! `find -exec` and friends run a command built from their arguments. The
//! launcher is reported as a command itself, and what it runs is handed back
//! as nested work (a string to parse, or argv words) labelled with how it was
//! reached. A shell that reads its commands from standard input cannot be
//! analysed and is reported as opaque.

use super::long_options::{LongOptions, Takes};
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
    /// Files the command hands on as a whole (a container runner's bind
    /// mount sources).
    pub reads: Vec<Word>,
    /// Files and directories it lets what it runs write (a container
    /// runner's writable bind mounts).
    pub writes: Vec<Word>,
    /// The container the nested work runs in, with its host mounts.
    pub container: Option<super::containers::Container>,
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
        "parallel" | "sem" | "env_parallel" => parallel(program, args, &mut launch),
        "watch" => watch(args, &mut launch),
        "flock" => flock(args, &mut launch),
        "su" | "runuser" => switch_user(program, args, &mut launch),
        "trap" => trap(args, &mut launch),
        "alias" => alias(args, &mut launch),
        "ssh" => super::tool_launchers::ssh(args, &mut launch),
        "sqlite3" => super::tool_launchers::sqlite(args, &mut launch),
        "docker" | "docker-compose" | "podman" | "podman-compose" | "nerdctl" => {
            super::containers::inspect(program, args, &mut launch)
        }
        "finch" | "colima" | "buildah" | "nerdctl.lima" | "docker.lima" | "podman.lima"
        | "kubectl.lima" => container_front_end(program, args, &mut launch),
        "kubectl" | "oc" => super::tool_launchers::container_exec(program, args, &mut launch),
        "scp" | "sftp" => super::tool_launchers::copy_over_ssh(program, args, &mut launch),
        "rsync" => super::tool_launchers::rsync(args, &mut launch),
        "mosh" => super::tool_launchers::mosh(args, &mut launch),
        "sg" => super::tool_launchers::sg(args, &mut launch),
        "entr" => super::tool_launchers::entr(args, &mut launch),
        "bwrap" => super::tool_launchers::bwrap(args, &mut launch),
        "gdb" => super::tool_launchers::gdb_commands(args, &mut launch),
        "man" => super::tool_launchers::man(args, &mut launch),
        "rimraf" => super::tool_launchers::rimraf(program, args, &mut launch),
        "shx" => super::tool_launchers::shx(args, &mut launch),
        "cmake" => super::tool_launchers::cmake(args, &mut launch),
        "sops" => super::tool_launchers::sops(args, &mut launch),
        "mysql" | "mariadb" | "psql" => {
            super::tool_launchers::sql_client(program, args, &mut launch)
        }
        "osascript" => super::tool_launchers::osascript(args, &mut launch),
        "cmd" => super::cmd_exe::cmd(args, &mut launch),
        "npm" => npm_exec(args, &mut launch),
        "script" => script_command(args, &mut launch),
        "at" | "batch" => at_job(program, args, input, &mut launch),
        "screen" => screen(args, &mut launch),
        "tmux" => tmux(args, &mut launch),
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" | "pnpm" | "yarn"
        | "conda" | "mamba" | "micromamba" => tool_runner(program, args, &mut launch),
        "npx" | "bunx" | "pnpx" => package_runner(program, args, &mut launch),
        "git" => super::config_commands::git(args, &mut launch),
        p if super::tool_launchers::has_code_options(p) => {
            super::tool_launchers::code_options(p, args, &mut launch)
        }
        "export" | "declare" | "typeset" | "readonly" | "local" => {
            super::config_commands::exported(args, &mut launch)
        }
        _ => {
            super::stream_programs::inspect(program, args, &mut launch);
            super::inline::inspect(program, args, input, &mut launch)
        }
    }
    launch
}

/// Front ends that run a container tool in a Lima virtual machine, which
/// shares the user's home directory, or that stand for another tool: finch
/// (nerdctl's commands under its own name), Lima's `nerdctl.lima`,
/// `docker.lima`, `podman.lima` and `kubectl.lima` scripts (`lima nerdctl
/// "$@"`), `colima nerdctl -- ...` and `colima ssh -- ...`, and `buildah
/// bud`/`build` and `buildah run` (podman's build and run). The tool's command is followed as if
/// run here, so every rule about the tool applies.
fn container_front_end(program: &str, args: &[Word], launch: &mut Launch) {
    // The words the tool's command starts with, and where the front end's
    // own words end.
    let (tool, from): (&[&str], usize) = match program {
        "finch" => (&["nerdctl"], 0),
        "colima" => match subcommand_after(args, 0, COLIMA_VALUES) {
            Some((at, "nerdctl")) => (&["nerdctl"], command_after(args, at + 1)),
            Some((at, "ssh")) => (&[], command_after(args, at + 1)),
            _ => return,
        },
        "buildah" => match subcommand_after(args, 0, BUILDAH_VALUES) {
            Some((at, "bud" | "build")) => (&["podman", "build"], at + 1),
            // `buildah run [options] CONTAINER [--] COMMAND`: podman
            // run's options (mounts, capabilities, devices, `--pid`).
            Some((at, "run")) => (&["podman", "run"], at + 1),
            _ => return,
        },
        "docker.lima" => (&["docker"], 0),
        "podman.lima" => (&["podman"], 0),
        "kubectl.lima" => (&["kubectl"], 0),
        _ => (&["nerdctl"], 0),
    };
    let mut words: Vec<Word> = tool.iter().copied().map(Word::literal).collect();
    words.extend(args[from..].iter().cloned());
    if words.is_empty() {
        return;
    }
    launch.nested.push(Nested::Argv {
        words,
        via: program.to_string(),
        call: None,
        appended: false,
        fill: Vec::new(),
    });
    launch.foreign.push(from..args.len());
}

/// The first word from `at` on that is no option, skipping the values of
/// `values`; with its text when static.
fn subcommand_after<'a>(args: &'a [Word], at: usize, values: &[&str]) -> Option<(usize, &'a str)> {
    let mut i = at;
    while let Some(word) = args.get(i) {
        let text = word.static_text()?;
        if !text.starts_with('-') {
            return Some((i, text));
        }
        i += if values.contains(&text) { 2 } else { 1 };
    }
    None
}

/// Where the command after a subcommand's own options starts: after `--`
/// when there is one, else at the first word that is no option.
fn command_after(args: &[Word], at: usize) -> usize {
    if let Some(dash) = args[at..].iter().position(|w| w.literal && w.text == "--") {
        return at + dash + 1;
    }
    subcommand_after(args, at, COLIMA_VALUES).map_or(args.len(), |(i, _)| i)
}

/// Options of colima that take a value.
const COLIMA_VALUES: &[&str] = &["-p", "--profile"];

/// Options of buildah before its subcommand that take a value.
const BUILDAH_VALUES: &[&str] = &[
    "--root",
    "--runroot",
    "--storage-driver",
    "--storage-opt",
    "--log-level",
    "--registries-conf",
    "--registries-conf-dir",
    "--short-name-alias-conf",
    "--cgroup-manager",
    "--userns-uid-map",
    "--userns-gid-map",
];

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

/// Most readings of one launcher's options (see [`operand_starts`]).
const MAX_READINGS: usize = 8;

/// Where the command of `xargs`/`parallel` may start: one index per way
/// of reading options whose arity is [`Takes::Unsure`] (`--max-p 4` may be
/// `--max-procs 4`). More readings than [`MAX_READINGS`] make the launched
/// command unknown.
fn operand_starts(
    program: &str,
    args: &[Word],
    short_value: &str,
    long: &LongOptions,
    launch: &mut Launch,
) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut pending = vec![0];
    while let Some(from) = pending.pop() {
        if starts.len() + pending.len() >= MAX_READINGS {
            launch.opaque.push((
                OpaqueKind::TooComplex,
                format!("`{program}` options can be read more than {MAX_READINGS} ways"),
            ));
            break;
        }
        let mut i = from;
        while let Some(text) = args.get(i).and_then(Word::static_text) {
            if text == "--" {
                i += 1;
                break;
            }
            if let Some(name) = text.strip_prefix("--") {
                if name.contains('=') {
                    i += 1;
                    continue;
                }
                match long.takes(name) {
                    Takes::Value => i += 2,
                    Takes::Flag => i += 1,
                    Takes::Unsure => {
                        pending.push(i + 2);
                        i += 1;
                    }
                }
                continue;
            }
            let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
                break;
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
        if !starts.contains(&i) {
            starts.push(i);
        }
    }
    starts.sort_unstable();
    starts
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

/// GNU xargs' long options, all of them (BSD xargs has none).
/// xargs' short options that take a value (BSD xargs also has `-J
/// replstr`, `-R max` and `-S size`).
pub(super) const XARGS_SHORT_VALUES: &str = "adEIJLnPRSs";

pub(super) const XARGS_LONG: LongOptions = LongOptions {
    value: &[
        "arg-file",
        "delimiter",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
    ],
    // `--eof`, `--replace` and `--max-lines` take a value only after `=`.
    flag: &[
        "null",
        "eof",
        "replace",
        "max-lines",
        "interactive",
        "no-run-if-empty",
        "open-tty",
        "exit",
        "show-limits",
        "verbose",
        "help",
        "version",
    ],
    complete: true,
    ignore_case: false,
};

fn xargs(args: &[Word], launch: &mut Launch) {
    for start in operand_starts("xargs", args, XARGS_SHORT_VALUES, &XARGS_LONG, launch) {
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
}

/// The string `xargs -I R` / `-i[R]` / `--replace[=R]` (BSD: `-J R`)
/// replaces with input.
fn xargs_replace_string(options: &[Word]) -> Option<String> {
    let mut found = None;
    let mut words = options.iter().map(|w| w.text.as_str());
    while let Some(text) = words.next() {
        if let Some((_, value)) = text
            .strip_prefix("--")
            .map(|long| long.split_once('=').unwrap_or((long, "")))
            .filter(|(name, _)| !name.is_empty() && "replace".starts_with(name))
        {
            // `--rep` is `--replace`. An empty `--replace=` is read as `{}`
            // so the input is not missed (fail closed: `{}` then stands for
            // unknown text).
            found = Some(if value.is_empty() { "{}" } else { value }.to_string());
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
    // What `{}` stands for: the files under the starting points (not the
    // points themselves, which `operands` adds for a find acting beyond
    // its tests).
    let starting_points: Vec<Word> = super::targets::operands("find", args)
        .into_iter()
        .filter(|t| t.contents)
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

/// GNU parallel's long options that take a value, and common ones that
/// do not. The list is not complete (parallel has well over a hundred), so
/// anything else is read both ways.
const PARALLEL_LONG: LongOptions = LongOptions {
    value: &[
        "jobs",
        "max-procs",
        "sshlogin",
        "sshloginfile",
        "slf",
        "arg-file",
        "arg-sep",
        "arg-file-sep",
        "delimiter",
        "colsep",
        "results",
        "res",
        "output-as-files",
        "joblog",
        "timeout",
        "delay",
        "halt",
        "halt-on-error",
        "tmpdir",
        "tempdir",
        "workdir",
        "wd",
        "env",
        "basefile",
        "bf",
        "return",
        "memfree",
        "memsuspend",
        "load",
        "nice",
        "retries",
        "tagstring",
        "ctag",
        "ctagstring",
        "max-args",
        "max-replace-args",
        "max-chars",
        "extensionreplace",
        "er",
        "basenamereplace",
        "bnr",
        "dirnamereplace",
        "dnr",
        "basenameextensionreplace",
        "bner",
        "seqreplace",
        "slotreplace",
        "rpl",
        "parens",
        "block",
        "block-size",
        "blocksize",
        "blocktimeout",
        "bt",
        "recend",
        "recstart",
        "header",
        "ssh",
        "sshdelay",
        "termseq",
        "term-seq",
        "transferfile",
        "tf",
        "trc",
        "trim",
        "shard",
        "bin",
        "group-by",
        "filter",
        "limit",
        "profile",
        "semaphorename",
        "id",
        "semaphoretimeout",
        "st",
        "sqlmaster",
        "sqlworker",
        "sqlandworker",
        "sql",
        "total-jobs",
        "total",
        "template",
        "tmpl",
        "compress-program",
        "decompress-program",
        "shell-completion",
    ],
    flag: &[
        "keep-order",
        "line-buffer",
        "lb",
        "group",
        "ungroup",
        "tag",
        "bar",
        "progress",
        "eta",
        "verbose",
        "dry-run",
        "dryrun",
        "null",
        "quote",
        "xargs",
        "pipe",
        "pipe-part",
        "plus",
        "no-run-if-empty",
        "shuf",
        "will-cite",
        "nonall",
        "onall",
        "fg",
        "bg",
        "wait",
        "semaphore",
        "tty",
        "tmux",
        "tmuxpane",
        "csv",
        "cat",
        "fifo",
        "round-robin",
        "round",
        "link",
        "xapply",
        "keep",
        "files",
        "files0",
        "resume",
        "resume-failed",
        "retry-failed",
        "interactive",
        "shebang",
        "shebang-wrap",
        "skip-first-line",
        "compress",
        "cleanup",
        "transfer",
        "silent",
        "latest-line",
        "color",
        "color-failed",
        "plain",
        "regexp",
        "remove-rec-sep",
        "rrs",
        "help",
        "version",
        "citation",
    ],
    complete: false,
    ignore_case: true,
};

/// GNU parallel, its `sem` (`parallel --semaphore`) and `env_parallel`.
fn parallel(program: &str, args: &[Word], launch: &mut Launch) {
    let semaphore = program == "sem";
    for start in operand_starts("parallel", args, "jPSadEILNnsCJUD", &PARALLEL_LONG, launch) {
        parallel_from(start, semaphore, args, launch);
    }
}

/// One reading of a parallel line whose command starts at `start`.
fn parallel_from(start: usize, semaphore: bool, args: &[Word], launch: &mut Launch) {
    let end = args[start.min(args.len())..]
        .iter()
        .position(|w| is_input_separator(&w.text))
        .map_or(args.len(), |p| start + p);
    let inputs = parallel_inputs(&args[end.min(args.len())..]);
    let strings = ReplacementStrings::from_options(&args[..start.min(args.len())]);
    // A command that is only the replacement string (`parallel {} ::: 'cmd'`)
    // runs each value as a command line, as no command does.
    let only_value = end == start + 1 && args[start].text == strings.replace;
    if start >= end || (only_value && !semaphore) {
        match inputs {
            // `sem --wait` only waits.
            _ if semaphore => {}
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
    // `sem` runs its command once, as written.
    let values: Vec<Option<&Word>> = match &inputs {
        _ if semaphore => Vec::new(),
        ParallelInput::Known(values) if !values.is_empty() => values
            .iter()
            .take(MAX_PARALLEL_VALUES)
            .map(|v| Some(*v))
            .collect(),
        _ => vec![None],
    };
    if semaphore {
        for &joined in &readings {
            push_parallel_command(command.to_vec(), joined, launch);
        }
        return;
    }
    let has_placeholder = command.iter().any(|w| strings.certain(&w.text));
    for value in values {
        for &joined in &readings {
            // parallel quotes input values it puts into the line it hands to a shell.
            let mut words: Vec<Word> = command
                .iter()
                .map(|w| strings.fill(w, value, joined))
                .collect();
            if !has_placeholder {
                // Without a replacement string the input is appended.
                words.push(match value {
                    Some(v) if joined => Word {
                        text: shell_quote(&v.text),
                        ..v.clone()
                    },
                    Some(v) => v.clone(),
                    None if joined => Word::literal(RUN_TIME_VALUE),
                    None => Word {
                        text: strings.replace.clone(),
                        literal: false,
                        pattern: false,
                    },
                });
            }
            push_parallel_command(words, joined, launch);
        }
    }
}

fn push_parallel_command(words: Vec<Word>, joined: bool, launch: &mut Launch) {
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

/// What parallel replaces in its command: `{}` (or the `-I` string) by the
/// input value, and derived forms (`{.}`, `{//}`, `{=perl=}`, strings set by
/// `--dnr`, `--rpl`, ...) by text computed from it at run time.
struct ReplacementStrings {
    /// The string replaced by the value itself.
    replace: String,
    /// Strings replaced by text derived from the value (`--er`, `--bnr`,
    /// `--dnr`, `--bner`, `--seqreplace`, `--slotreplace`, `--rpl` tags).
    derived: Vec<String>,
    /// `--plus`, `--rpl`, `--parens` or `--header` make more `{...}` forms
    /// replacement strings than are listed here.
    open_ended: bool,
}

impl ReplacementStrings {
    fn from_options(options: &[Word]) -> Self {
        let mut strings = ReplacementStrings {
            replace: "{}".into(),
            derived: Vec::new(),
            open_ended: false,
        };
        let mut words = options.iter().map(|w| w.text.as_str()).peekable();
        while let Some(text) = words.next() {
            if let Some(long) = text.strip_prefix("--") {
                let (name, attached) = match long.split_once('=') {
                    Some((name, value)) => (name.to_ascii_lowercase(), Some(value)),
                    None => (long.to_ascii_lowercase(), None),
                };
                let takes_value = PARALLEL_LONG.takes(&name) == Takes::Value;
                let mut value = || {
                    attached
                        .map(str::to_string)
                        .or_else(|| words.next().map(str::to_string))
                        .unwrap_or_default()
                };
                match name.as_str() {
                    // `--replace [R]`: Getopt::Long takes a next word that is
                    // not an option as the optional value.
                    "replace" => {
                        strings.replace = match attached {
                            Some(v) if !v.is_empty() => v.to_string(),
                            Some(_) => "{}".to_string(),
                            None => match words.peek() {
                                Some(next) if !next.starts_with('-') => {
                                    words.next().unwrap_or("{}").to_string()
                                }
                                _ => "{}".to_string(),
                            },
                        }
                    }
                    "extensionreplace"
                    | "er"
                    | "basenamereplace"
                    | "bnr"
                    | "dirnamereplace"
                    | "dnr"
                    | "basenameextensionreplace"
                    | "bner"
                    | "seqreplace"
                    | "slotreplace" => {
                        let v = value();
                        if !v.is_empty() {
                            strings.derived.push(v);
                        }
                    }
                    "rpl" => {
                        let v = value();
                        if let Some(tag) = v.split_whitespace().next() {
                            strings.derived.push(tag.to_string());
                        }
                        strings.open_ended = true;
                    }
                    "plus" | "parens" | "header" => {
                        strings.open_ended = true;
                        if takes_value && attached.is_none() {
                            words.next();
                        }
                    }
                    _ if takes_value && attached.is_none() => {
                        words.next();
                    }
                    _ => {}
                }
            } else if let Some(rest) = text.strip_prefix("-I") {
                strings.replace = if rest.is_empty() {
                    words.next().unwrap_or("{}").to_string()
                } else {
                    rest.to_string()
                };
            } else if let Some(rest) = text.strip_prefix("-U") {
                let v = if rest.is_empty() {
                    words.next().unwrap_or_default().to_string()
                } else {
                    rest.to_string()
                };
                if !v.is_empty() {
                    strings.derived.push(v);
                }
            } else if text == "-i" {
                strings.replace = "{}".to_string();
            }
        }
        strings
    }

    /// `text` holds a replacement string parallel surely replaces, so the
    /// input is not appended.
    fn certain(&self, text: &str) -> bool {
        text.contains(self.replace.as_str())
            || self.derived.iter().any(|d| text.contains(d.as_str()))
            || has_parallel_placeholder(text)
    }

    /// `text` may hold one: certain ones, or any `{...}` when the options
    /// allow more forms than are known here. Such words are only known at
    /// run time; an uncertain one does not stop the input being appended.
    fn possible(&self, text: &str) -> bool {
        self.certain(text) || (self.open_ended && braced(text))
    }

    /// A command word with the input value put in for the replacement
    /// string. Words holding a value only known at run time (from standard
    /// input, or derived from it: `{.}`, `{=perl=}`) are data parallel
    /// quotes: in the line it hands to a shell (`joined`) they read as a
    /// quoted expansion, so the code around them stays known; as a word of
    /// their own they are not literal.
    fn fill(&self, word: &Word, value: Option<&Word>, joined: bool) -> Word {
        if !self.possible(&word.text) {
            return word.clone();
        }
        let derived = has_parallel_placeholder(&word.text)
            || self.derived.iter().any(|d| word.text.contains(d.as_str()))
            || (self.open_ended && braced(&word.text.replace(self.replace.as_str(), "")));
        match value {
            Some(v) if !derived => Word {
                text: word.text.replace(
                    self.replace.as_str(),
                    &if joined {
                        shell_quote(&v.text)
                    } else {
                        v.text.clone()
                    },
                ),
                literal: word.literal && v.literal,
                pattern: word.pattern || v.pattern,
            },
            _ if joined => Word {
                text: self.marked(&word.text),
                ..word.clone()
            },
            _ => Word {
                literal: false,
                ..word.clone()
            },
        }
    }

    /// `text` with each replacement string written as a quoted expansion
    /// (see [`RUN_TIME_VALUE`]).
    fn marked(&self, text: &str) -> String {
        let mut out = text.replace(self.replace.as_str(), RUN_TIME_VALUE);
        for d in &self.derived {
            out = out.replace(d.as_str(), RUN_TIME_VALUE);
        }
        let mut marked = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(open) = rest.find('{') {
            let group = &rest[open..];
            let len = placeholder_len(group).or_else(|| {
                self.open_ended
                    .then(|| group.find('}').map(|c| c + 1))
                    .flatten()
            });
            match len {
                Some(len) => {
                    marked.push_str(&rest[..open]);
                    marked.push_str(RUN_TIME_VALUE);
                    rest = &group[len..];
                }
                None => {
                    marked.push_str(&rest[..=open]);
                    rest = &group[1..];
                }
            }
        }
        marked.push_str(rest);
        marked
    }
}

/// How a value only known at run time is written into the line parallel
/// hands to a shell: a quoted expansion of a variable no shell sets, so
/// paths holding it are unknown and the code around it is not.
const RUN_TIME_VALUE: &str = "\"${parallel_input}\"";

/// The length of the built-in replacement string `text` starts with.
fn placeholder_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let rest = &bytes[1..];
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if rest.get(digits) == Some(&b'=') {
        return text[2 + digits..].find("=}").map(|at| 2 + digits + at + 2);
    }
    let len = rest.iter().position(|&c| c == b'}')?;
    (len > 0 && rest[..len].iter().all(|c| b"./#%0123456789".contains(c))).then_some(len + 2)
}

/// A `{` later closed by `}`.
fn braced(text: &str) -> bool {
    text.find('{')
        .is_some_and(|open| text[open + 1..].contains('}'))
}

/// parallel's built-in replacement strings other than `{}`: `{.}`, `{/}`,
/// `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`, `{2.}`, ..., and perl expressions
/// `{=...=}`, `{3=...=}`.
fn has_parallel_placeholder(text: &str) -> bool {
    text.match_indices('{')
        .any(|(at, _)| placeholder_len(&text[at..]).is_some())
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
    for start in operand_starts(program, rest, "pnC", &TOOL_RUNNER_LONG, launch) {
        let start = start + 1;
        if start < args.len() {
            launch.argv(
                args,
                start..args.len(),
                format!("{program} {}", args[0].text),
            );
        }
    }
}

/// Long options of `uv run`, `poetry run`, `bundle exec`, `pnpm exec`,
/// `conda run`, ... before the command.
const TOOL_RUNNER_LONG: LongOptions = LongOptions {
    value: &[
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
    flag: &[
        "frozen",
        "locked",
        "no-sync",
        "isolated",
        "all-packages",
        "all-extras",
        "no-dev",
        "no-project",
        "offline",
        "quiet",
        "verbose",
        "silent",
        "recursive",
        "workspace-root",
        "no-capture-output",
        "live-stream",
    ],
    complete: false,
    ignore_case: false,
};

/// `npx [options] command args...`; `npx -c 'code'` runs code in a shell.
/// `npm exec ...` and `npm x ...` are `npx ...`.
fn npm_exec(args: &[Word], launch: &mut Launch) {
    if !args
        .first()
        .is_some_and(|w| w.text == "exec" || w.text == "x")
    {
        return;
    }
    let mut inner = Launch::default();
    package_runner("npm exec", &args[1..], &mut inner);
    launch.nested.extend(inner.nested);
    launch.opaque.extend(inner.opaque);
    launch
        .foreign
        .extend(inner.foreign.into_iter().map(|r| r.start + 1..r.end + 1));
}

fn package_runner(program: &str, args: &[Word], launch: &mut Launch) {
    if let Some(code) = option_value(args, 'c', &["call"]) {
        launch.nested.push(Nested::Script {
            source: code.text.clone(),
            via: format!("{program} -c"),
            literal: code.literal,
        });
        return;
    }
    // npm's option parser takes abbreviations too (`--pack` is `--package`).
    const LONG: LongOptions = LongOptions {
        value: &["package", "node-options"],
        flag: &[
            "yes",
            "no",
            "quiet",
            "ignore-existing",
            "prefer-offline",
            "prefer-online",
        ],
        complete: false,
        ignore_case: false,
    };
    for start in operand_starts(program, args, "p", &LONG, launch) {
        if start < args.len() {
            launch.argv(args, start..args.len(), program);
        }
    }
}

fn watch(args: &[Word], launch: &mut Launch) {
    const LONG: LongOptions = LongOptions {
        value: &["interval", "equexit"],
        flag: &[
            "differences",
            "exec",
            "beep",
            "errexit",
            "chgexit",
            "color",
            "no-color",
            "no-title",
            "no-wrap",
            "no-linewrap",
            "precise",
            "help",
            "version",
        ],
        complete: false,
        ignore_case: false,
    };
    for start in operand_starts("watch", args, "nq", &LONG, launch) {
        let exec_mode = args[..start.min(args.len())].iter().any(|w| {
            (w.text.len() > 3 && "--exec".starts_with(w.text.as_str()))
                || (!w.text.starts_with("--") && w.text.starts_with('-') && w.text.contains('x'))
        });
        if start >= args.len() {
            continue;
        }
        if exec_mode {
            launch.argv(args, start..args.len(), "watch");
        } else {
            launch.joined(args, start..args.len(), "watch");
        }
    }
}

/// `flock [options] FILE COMMAND [ARGS]` or `flock [options] FILE -c 'code'`;
/// flock only looks for `-c` right after the file.
fn flock(args: &[Word], launch: &mut Launch) {
    const LONG: LongOptions = LongOptions {
        value: &["timeout", "wait", "conflict-exit-code"],
        flag: &[
            "shared",
            "exclusive",
            "nonblock",
            "nb",
            "unlock",
            "close",
            "no-fork",
            "verbose",
            "fcntl",
            "help",
            "version",
        ],
        complete: false,
        ignore_case: false,
    };
    for file in operand_starts("flock", args, "wE", &LONG, launch) {
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
        // A value derived at run time reads as a quoted expansion in the
        // line: the code around it stays known.
        let launch = inspect("parallel", &args("cp {} {.}.bak ::: a"), None);
        assert_eq!(
            scripts(&launch),
            [("parallel", "cp a \"${parallel_input}\".bak")]
        );
        assert!(matches!(
            &launch.nested[0],
            Nested::Script { literal: true, .. }
        ));
    }

    #[test]
    fn parallel_values_computed_at_run_time_are_unknown() {
        let line = |text: &str| {
            scripts(&inspect("parallel", &args(text), None))[0]
                .1
                .to_string()
        };
        // Perl expressions, positional or not.
        assert_eq!(
            line("rm -rf {=s:a:/:=} ::: a"),
            "rm -rf \"${parallel_input}\""
        );
        assert_eq!(
            line("rm -rf {1=$_=1=} ::: a"),
            "rm -rf \"${parallel_input}\""
        );
        // Strings defined by options stand for a value derived from the input.
        for options in ["--dnr D", "--er D", "-U D", "--bnr D", "--seqreplace D"] {
            assert_eq!(
                line(&format!("{options} rm -rf D ::: a")),
                "rm -rf \"${parallel_input}\"",
                "{options}"
            );
        }
        // With --rpl, --plus or --header any braces may be one; the input
        // is still appended, since they may not be.
        assert_eq!(
            line("--header : rm -rf {a} ::: a"),
            "rm -rf \"${parallel_input}\" a"
        );
        // A command that is only the replacement string runs the values.
        let mut words = args("{} :::");
        words.push(Word::literal("rm -rf /"));
        assert_eq!(
            scripts(&inspect("parallel", &words, None)),
            [("parallel :::", "rm -rf /")]
        );
    }

    #[test]
    fn sem_and_env_parallel_are_parallel() {
        let launch = inspect("sem", &args("-j4 rm -rf /"), None);
        assert_eq!(scripts(&launch), [("parallel", "rm -rf /")]);
        assert!(inspect("sem", &args("--wait"), None).nested.is_empty());
        assert!(inspect("sem", &args("--wait"), None).opaque.is_empty());
        let launch = inspect("env_parallel", &args("rm -rf ::: /"), None);
        assert_eq!(scripts(&launch), [("parallel", "rm -rf /")]);
    }

    #[test]
    fn launcher_options_of_unknown_arity_are_read_both_ways() {
        // xargs knows all its long options, so prefixes are read as them.
        let launch = inspect("xargs", &args("--max-p 4 rm -rf"), None);
        assert_eq!(
            argvs(&launch),
            [(
                "xargs".to_string(),
                vec!["rm".to_string(), "-rf".to_string()]
            )]
        );
        let launch = inspect("xargs", &args("--nu rm -rf"), None);
        assert_eq!(argvs(&launch)[0].1[0], "rm");
        assert_eq!(xargs_replace_string(&args("--rep")), Some("{}".into()));
        assert_eq!(xargs_replace_string(&args("--re=X")), Some("X".into()));
        // parallel's list is partial: an unlisted option is read both ways.
        let launch = inspect("parallel", &args("--frob 4 rm -rf ::: /"), None);
        assert_eq!(
            scripts(&launch),
            [("parallel", "4 rm -rf /"), ("parallel", "rm -rf /")]
        );
        // Getopt::Long ignores case.
        let launch = inspect("parallel", &args("--JOBS 4 rm -rf ::: /"), None);
        assert_eq!(scripts(&launch), [("parallel", "rm -rf /")]);
        // watch and flock (getopt_long) and npx (npm's parser) take
        // abbreviations too.
        let launch = inspect("watch", &args("--int 5 rm -rf /"), None);
        assert!(scripts(&launch).contains(&("watch", "rm -rf /")));
        let launch = inspect("flock", &args("--time 5 /tmp/l rm -rf /"), None);
        assert!(argvs(&launch).iter().any(|(_, w)| w[0] == "rm"));
        let launch = inspect("npx", &args("--pack cowsay rm -rf /"), None);
        assert!(argvs(&launch).iter().any(|(_, w)| w[0] == "rm"));
        // Too many ways to read a line make it unknown.
        let many = "--a --b --c --d --e --f --g --h rm -rf ::: /";
        let launch = inspect("parallel", &args(many), None);
        assert_eq!(launch.opaque[0].0, OpaqueKind::TooComplex);
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
    fn commands_run_in_containers_are_followed_only_after_exec_as_the_subcommand() {
        let ran = |program: &str, line: &str| {
            argvs(&inspect(program, &args(line), None))
                .into_iter()
                .map(|(via, words)| format!("{via}: {}", words.join(" ")))
                .collect::<Vec<_>>()
        };
        for (program, line, expected) in [
            (
                "docker",
                "exec app rm -rf /data",
                "docker exec: rm -rf /data",
            ),
            (
                "docker",
                "exec -it -u root -e A=1 app rm -rf /d",
                "docker exec: rm -rf /d",
            ),
            (
                "docker",
                "--context prod container exec -w /x app ls",
                "docker exec: ls",
            ),
            (
                "docker",
                "compose -f c.yml exec --index 2 db rm -rf /d",
                "docker exec: rm -rf /d",
            ),
            (
                "podman",
                "exec --user=root app rm -rf /d",
                "podman exec: rm -rf /d",
            ),
            (
                "kubectl",
                "exec pod -- rm -rf /data",
                "kubectl exec: rm -rf /data",
            ),
            (
                "kubectl",
                "-n prod exec -it pod -c app -- sh -c x",
                "kubectl exec: sh -c x",
            ),
            (
                "kubectl",
                "exec pod -c app -- rm -rf /d",
                "kubectl exec: rm -rf /d",
            ),
        ] {
            assert_eq!(ran(program, line), [expected], "{program} {line}");
        }
        // `exec` as a word of another subcommand's command (`run`'s
        // command is followed as `run`'s, see `containers`), or no command.
        assert_eq!(
            ran("docker", "run alpine exec rm -rf /x"),
            ["docker run: exec rm -rf /x"]
        );
        for (program, line) in [
            ("docker", "exec -it app"),
            ("kubectl", "logs exec -- rm -rf /"),
            ("kubectl", "exec pod --"),
        ] {
            assert!(ran(program, line).is_empty(), "{program} {line}");
        }
        let launch = inspect("docker", &args("exec -it app rm -rf /d"), None);
        assert_eq!(launch.foreign, [Range { start: 3, end: 6 }]);
    }

    #[test]
    fn sqlite_shell_dot_commands_are_read_as_shell_code() {
        let launch = inspect("sqlite3", &with_code("x.db", ".shell rm -rf ~"), None);
        assert_eq!(scripts(&launch), [("sqlite3 .shell", "rm -rf ~")]);
        let launch = inspect("sqlite3", &with_code("x.db -cmd", ".system  curl x"), None);
        assert_eq!(scripts(&launch), [("sqlite3 .shell", "curl x")]);
        for plain in [".tables", ".shellx y", "select '.shell rm -rf ~'", ".shell"] {
            let launch = inspect("sqlite3", &with_code("x.db", plain), None);
            assert!(scripts(&launch).is_empty(), "{plain}");
        }
    }

    #[test]
    fn launched_arguments_are_marked_foreign() {
        let launch = inspect("xargs", &args("-0 rm -rf"), None);
        assert_eq!(launch.foreign, [Range { start: 1, end: 3 }]);
    }

    #[test]
    fn sops_runs_its_command_through_the_shell() {
        let run = |line: &str| -> Vec<(String, Vec<String>, Vec<String>)> {
            crate::shell::analyze(line)
                .commands
                .into_iter()
                .skip(1)
                .map(|c| (c.program, c.args, c.via))
                .collect()
        };
        for (line, via) in [
            ("sops exec-env secrets.yaml 'rm -rf ~'", "sops exec-env"),
            (
                "sops exec-env --pristine s.yaml 'rm -rf ~'",
                "sops exec-env",
            ),
            (
                "sops exec-file --user me s.yaml 'rm -rf ~'",
                "sops exec-file",
            ),
            (
                "sops --config c.yaml exec-env s.yaml -- 'rm -rf ~'",
                "sops exec-env",
            ),
        ] {
            let found = run(line);
            assert_eq!(found.len(), 1, "{line}: {found:?}");
            assert_eq!(found[0].0, "rm", "{line}");
            assert_eq!(found[0].1, ["-rf", "~"], "{line}");
            assert_eq!(found[0].2, [via], "{line}");
        }
        // Other subcommands run nothing.
        assert!(run("sops -d secrets.yaml").is_empty());
        assert!(run("sops edit secrets.yaml").is_empty());
    }

    #[test]
    fn tools_that_run_shell_code_from_their_options_are_followed() {
        let runs_rm = |line: &str| {
            crate::shell::analyze(line)
                .commands
                .iter()
                .any(|c| c.program == "rm" && c.args == ["-rf", "~"] && !c.via.is_empty())
        };
        for line in [
            "mysql -e 'system rm -rf ~'",
            "mysql -u root --execute='select 1; \\! rm -rf ~'",
            "mariadb -e\"\\! rm -rf ~\"",
            "psql -c '\\! rm -rf ~'",
            "tar --to-command='rm -rf ~' -xf a.tar",
            "tar -xf a.tar --to-command 'rm -rf ~'",
            "tar -cf x.tar . --checkpoint=1 --checkpoint-action=exec='rm -rf ~'",
            "tar -I 'rm -rf ~' -cf x.tar .",
            "zip x.zip a -T -TT 'rm -rf ~'",
            "osascript -e 'do shell script \"rm -rf ~\"'",
        ] {
            assert!(runs_rm(line), "{line}");
        }
        for line in [
            "mysql -e 'select \"system rm -rf ~\"'",
            "psql -c 'select 1' -e",
            "tar --checkpoint=1 --checkpoint-action=echo='rm -rf ~' -xf a.tar",
            "osascript -e 'display dialog \"rm -rf ~\"'",
        ] {
            assert!(!runs_rm(line), "{line}");
        }
    }

    #[test]
    fn find_writes_the_files_its_fprint_actions_name() {
        let a = crate::shell::analyze("find . -name '*.rs' -fprint out.txt -fls ~/.bashrc");
        let writes: Vec<&str> = a.commands[0]
            .writes
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(writes, ["out.txt", "~/.bashrc"]);
    }
}
