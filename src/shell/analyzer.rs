//! Driving one analysis: parse, walk, strip wrappers, follow nested code.
//!
//! Nested code (`bash -c` strings, `eval`, heredocs fed to shells, `xargs`
//! and `find -exec` commands) is queued as work items instead of handled by
//! recursion, so hostile nesting is bounded by the depth limit, never by the
//! Rust stack. Every command carries a sort key (its position in its script,
//! appended to the key of the command that launched it) so the final list is
//! in source order with nested commands right after their launcher.

use super::assigned::certain_text;
use super::config_commands;
use super::containers::{self, Mount};
use super::cwd::Places;
use super::launchers::{self, Nested};
use super::syntax::{self, Budget, ParseFailure, Route};
use super::targets;
use super::tool_launchers;
use super::walk::{self, Input};
use super::words::Word;
use super::wrappers::{self, program_name};
use super::{
    flags, Opaque, OpaqueKind, ShellAnalysis, SimpleCommand, Target, MAX_COMMANDS, MAX_DEPTH,
    MAX_INPUT_BYTES,
};

/// Most times one script is parsed again with misread newlines shown as
/// `;` (see `walk::Walked::misread_newlines`); each round fixes at least one.
const MAX_NEWLINE_REPAIRS: usize = 16;

/// Where a piece of work sits: how it was reached and its sort key.
#[derive(Debug, Clone, Default)]
struct Context {
    via: Vec<String>,
    key: Vec<u32>,
    /// Inside code only known at run time (`bash -c "$X; rm -rf {}"`): its
    /// words read as written, so no path in it is known.
    dynamic: bool,
    /// The directories this script or command starts in, relative to the
    /// project root (empty: the root).
    places: Places,
    /// Run by `find -execdir`/`-okdir`: in the directory of each file found,
    /// so only `{}` (the file) is known.
    execdir: bool,
    /// Variables this code starts with a certain value in its environment
    /// (later entries win): exported earlier on the line or assigned in
    /// front of the command that runs it (see `assigned`).
    environment: Vec<(String, String)>,
    /// Inside a container: its bind mounts, through which paths are read
    /// as the host paths they stand for (see `containers`).
    mounts: Vec<Mount>,
    /// Run by a container exec at the top of the line (`docker exec -it
    /// web bash`): its standard input is what the exec hands on, which is
    /// the agent's own unless the line feeds it (see `feeds_standard_input`).
    exec_input: bool,
}

enum Job {
    Script {
        source: String,
        context: Context,
    },
    Argv {
        words: Vec<Word>,
        launched: Launched,
        context: Context,
    },
}

/// What the launcher of an argv command says about it.
#[derive(Debug, Clone, Default)]
struct Launched {
    /// The library call it stands for (see [`SimpleCommand::call`]).
    call: Option<String>,
    /// The launcher adds arguments at run time.
    appended: bool,
    /// What `{}` stands for (find's starting points).
    fill: Vec<Word>,
    /// Wrapper options before this index were already read both ways
    /// (see `wrappers::Stripped::alternatives`).
    reading_from: usize,
}

/// A command as found, before wrappers are removed.
struct Candidate {
    words: Vec<Word>,
    assignments: Vec<(String, Word)>,
    input: Option<Input>,
    /// Files its redirections write.
    writes: Vec<Word>,
    /// Files its redirections open for reading besides standard input.
    reads: Vec<String>,
    /// Where it runs, relative to its script's start.
    places: Places,
    /// What its script exported before it (see `walk::FoundCommand`).
    exported: Vec<(String, String)>,
    launched: Launched,
    context: Context,
}

impl Candidate {
    /// Inside a container, the paths under its bind mounts read as the
    /// host paths they stand for, once, before anything looks at them.
    fn seen_from_host(mut self) -> Candidate {
        let mounts = &self.context.mounts;
        if mounts.is_empty() {
            return self;
        }
        let host = |w: &Word| containers::host_word(w, mounts);
        self.words = self.words.iter().map(host).collect();
        self.writes = self.writes.iter().map(host).collect();
        self.assignments = (self.assignments.iter())
            .map(|(name, value)| (name.clone(), host(value)))
            .collect();
        let host_text = |text: &String| host(&Word::literal(text.as_str())).text;
        self.reads = self.reads.iter().map(host_text).collect();
        if let Some(Input::File(path)) = &self.input {
            self.input = Some(Input::File(host_text(path)));
        }
        self
    }
}

pub struct Analyzer {
    commands: Vec<(Vec<u32>, SimpleCommand)>,
    opaque: Vec<Opaque>,
    jobs: Vec<Job>,
    budget: Budget,
    route: Route,
    /// The line starts with a PowerShell cmdlet (or pipes into `iex`) and is also read as
    /// PowerShell from its raw text (see `run`).
    powershell_line: bool,
    /// Some command on the line reads standard input the line gives it
    /// (see [`feeds_standard_input`]).
    feeds_input: bool,
}

impl Analyzer {
    pub fn run(line: &str, route: Route) -> ShellAnalysis {
        let mut analyzer = Analyzer {
            commands: Vec::new(),
            opaque: Vec::new(),
            jobs: Vec::new(),
            budget: Budget::default(),
            route,
            powershell_line: false,
            feeds_input: feeds_standard_input(line),
        };
        if line.len() > MAX_INPUT_BYTES {
            analyzer.note(
                OpaqueKind::TooComplex,
                format!(
                    "command line is {} bytes; the limit is {MAX_INPUT_BYTES}",
                    line.len()
                ),
            );
        } else {
            if line.contains('\0') {
                analyzer.note(
                    OpaqueKind::ParseError,
                    "the line contains a NUL byte, which no shell is handed as written".into(),
                );
            }
            analyzer.jobs.push(Job::Script {
                source: line.to_string(),
                context: Context {
                    places: Places::start(),
                    ..Context::default()
                },
            });
            // A line that starts with a cmdlet (or pipes into `iex`) is
            // PowerShell's: read its raw text as PowerShell too (bash would
            // strip the backslashes of `C:\Users\u\...`), and its cmdlets
            // are not read again from the words bash made of them. The bash reading still stands
            // for everything else on the line.
            if super::inline::reads_as_powershell(line) {
                analyzer.powershell_line = true;
                analyzer.jobs.push(Job::Argv {
                    words: vec![
                        Word::literal("pwsh"),
                        Word::literal("-NoProfile"),
                        Word::literal("-Command"),
                        Word::literal(line),
                    ],
                    launched: Launched::default(),
                    context: Context {
                        places: Places::start(),
                        ..Context::default()
                    },
                });
            }
        }
        while let Some(job) = analyzer.jobs.pop() {
            match job {
                Job::Script { source, context } => analyzer.script(&source, context),
                Job::Argv {
                    words,
                    launched,
                    context,
                } => analyzer.command(
                    Candidate {
                        words,
                        assignments: Vec::new(),
                        input: None,
                        writes: Vec::new(),
                        reads: Vec::new(),
                        places: Places::start(),
                        exported: Vec::new(),
                        launched,
                        context,
                    }
                    .seen_from_host(),
                ),
            }
        }
        // A line that sets HOME, PWD or TMPDIR (`TMPDIR=/ rm -rf $TMPDIR/x`,
        // `export HOME=/`) changes what `~` and those variables name.
        let sets_places = ["HOME=", "PWD=", "TMPDIR="]
            .iter()
            .any(|v| line.contains(v));
        // `$(pwd)` is the directory the command runs in only while `pwd`
        // is the builtin: a line naming pwd any other way (a function
        // `pwd() {...}`, `enable -n pwd`, `alias pwd=`) leaves it unknown.
        let pwd_elsewhere = line.matches("pwd").count()
            != line.matches("$(pwd)").count() + line.matches("`pwd`").count();
        let mut analysis = analyzer.finish();
        for command in &mut analysis.commands {
            // A command run on another machine acts on its paths, not ours.
            let remote = command.via.iter().any(|v| v.starts_with("ssh"));
            if sets_places || remote {
                for target in command
                    .targets
                    .iter_mut()
                    .chain(&mut command.writes)
                    .chain(&mut command.reads)
                {
                    if remote {
                        target.literal = false;
                    }
                    target.place_unknown = true;
                }
            }
            if pwd_elsewhere {
                for target in command
                    .targets
                    .iter_mut()
                    .chain(&mut command.writes)
                    .chain(&mut command.reads)
                    .filter(|t| t.text.contains("$(pwd)") || t.text.contains("`pwd`"))
                {
                    target.place_unknown = true;
                }
            }
        }
        analysis
    }

    fn finish(mut self) -> ShellAnalysis {
        self.commands.sort_by(|a, b| a.0.cmp(&b.0));
        // Where aliases are expanded (the shells some agents run commands
        // in enable them), `alias r=rm; r -rf ~` runs rm: a name the line
        // defines as an alias and also runs is not known statically.
        let aliases: Vec<String> = self
            .commands
            .iter()
            .filter(|(_, c)| c.program == "alias")
            .flat_map(|(_, c)| c.args.iter())
            .filter_map(|a| a.split_once('=').map(|(name, _)| name.to_ascii_lowercase()))
            .filter(|name| !name.is_empty() && !name.starts_with('-'))
            .collect();
        if let Some(name) = aliases.iter().find(|name| {
            self.commands
                .iter()
                .any(|(_, c)| &c.program == *name && !c.via.iter().any(|v| v == "alias"))
        }) {
            let detail = format!("`{name}` is defined as an alias on the line: where aliases are expanded it runs what the alias stands for");
            self.note(OpaqueKind::DynamicProgram, detail);
        }
        ShellAnalysis {
            commands: self.commands.into_iter().map(|(_, c)| c).collect(),
            opaque: self.opaque,
        }
    }

    /// Record an opaque finding once.
    fn note(&mut self, kind: OpaqueKind, detail: String) {
        if !self
            .opaque
            .iter()
            .any(|o| o.kind == kind && o.detail == detail)
        {
            self.opaque.push(Opaque { kind, detail });
        }
    }

    fn note_in(&mut self, kind: OpaqueKind, detail: String, via: &[String]) {
        let detail = match via.last() {
            Some(last) => format!("{detail} (inside `{last}`)"),
            None => detail,
        };
        self.note(kind, detail);
    }

    fn room_left(&self) -> usize {
        MAX_COMMANDS.saturating_sub(self.commands.len())
    }

    fn script(&mut self, source: &str, context: Context) {
        // A plain line is read without the parser (see `simple.rs`); the
        // exact route always parses, as the reference it is tested against.
        let plain = match self.route {
            Route::Fast => super::simple::commands(source, self.room_left() + 1),
            Route::Exact => None,
        };
        let Some(walked) = plain.or_else(|| self.parse_and_walk(source, &context)) else {
            return;
        };
        for (index, command) in walked.commands.into_iter().enumerate() {
            let mut via = context.via.clone();
            via.extend(command.via.iter().map(|l| l.to_string()));
            let mut key = context.key.clone();
            key.push(u32::try_from(index).unwrap_or(u32::MAX));
            let candidate = Candidate {
                words: command.words,
                assignments: command.assignments,
                input: command.input,
                writes: command.writes,
                reads: command.reads,
                places: command.places,
                exported: command.exported,
                launched: Launched::default(),
                context: Context {
                    via,
                    key,
                    dynamic: context.dynamic,
                    places: context.places.clone(),
                    execdir: false,
                    environment: context.environment.clone(),
                    mounts: context.mounts.clone(),
                    exec_input: false,
                },
            };
            self.command(candidate.seen_from_host());
        }
    }

    /// Parse `source` and find its commands, noting what the parse could
    /// not make out; `None` when the parser's work budget ran out.
    fn parse_and_walk(&mut self, source: &str, context: &Context) -> Option<walk::Walked> {
        let over_budget = |analyzer: &mut Analyzer, context: &Context| {
            let detail = "parser work limit reached; the rest was not analysed".to_string();
            analyzer.note_in(OpaqueKind::TooComplex, detail, &context.via);
            None
        };
        let mut route = self.route;
        // The pipeline shortcut shows pipes as `;`, which would let a `cd`
        // in a pipeline stage seem to move the shell: a line that may
        // change directory is read as written.
        if super::cwd::may_change_directory(source) {
            route = Route::Exact;
        }
        let (parsed, walked) = 'parse: loop {
            let mut parsed = match syntax::parse(source, &mut self.budget, route) {
                Ok(parsed) => parsed,
                Err(ParseFailure::OverBudget) => return over_budget(self, context),
                Err(ParseFailure::NoLanguage(e)) => {
                    self.note(
                        OpaqueKind::ParseError,
                        format!("bash grammar unavailable: {e}"),
                    );
                    return None;
                }
            };
            // One more than the room left, so hitting the limit is noticed.
            let mut walked = walk::commands(
                &parsed.tree,
                source,
                self.room_left() + 1,
                &context.environment,
            );
            for _ in 0..MAX_NEWLINE_REPAIRS {
                if walked.misread_newlines.is_empty() {
                    break;
                }
                let misread = std::mem::take(&mut walked.misread_newlines);
                let comments = std::mem::take(&mut walked.comments_before_misread);
                parsed = match syntax::reparse_with_terminators(
                    parsed,
                    &misread,
                    &comments,
                    &mut self.budget,
                ) {
                    Ok(Some(parsed)) => parsed,
                    // The flattened pipes no longer hold: read the line as written.
                    Ok(None) => {
                        route = Route::Exact;
                        continue 'parse;
                    }
                    Err(_) => return over_budget(self, context),
                };
                walked = walk::commands(
                    &parsed.tree,
                    source,
                    self.room_left() + 1,
                    &context.environment,
                );
            }
            // Text the tree left out may be a command: never from the
            // shortcut (read the line as written), a parse error otherwise.
            if !walked.dropped_text.is_empty() && route == Route::Fast && parsed.is_flattened() {
                route = Route::Exact;
                continue 'parse;
            }
            break (parsed, walked);
        };
        if let Some(error) = syntax::first_error(&parsed.tree, source) {
            self.note_in(OpaqueKind::ParseError, error, &context.via);
        } else if let Some(&at) = walked.dropped_text.first() {
            let line = line_of(source, at);
            self.note_in(
                OpaqueKind::ParseError,
                format!("the bash grammar left out part of line {line}"),
                &context.via,
            );
        } else if !walked.stray_words.is_empty() {
            let words = excerpt(&walked.stray_words.join(" "));
            self.note_in(
                OpaqueKind::ParseError,
                format!("words after the redirection of a compound command or function (`{words}`): bash refuses the line"),
                &context.via,
            );
        } else if let Some(&at) = walked.misread_newlines.first() {
            let line = line_of(source, at);
            self.note_in(
                OpaqueKind::ParseError,
                format!("the bash grammar reads the newline ending line {line} as a blank"),
                &context.via,
            );
        }
        Some(walked)
    }

    fn command(&mut self, candidate: Candidate) {
        let Candidate {
            words,
            assignments,
            input,
            writes,
            reads: other_reads,
            places,
            exported,
            launched,
            context,
        } = candidate;
        if context.via.len() > MAX_DEPTH {
            self.note(
                OpaqueKind::TooComplex,
                format!("nesting deeper than {MAX_DEPTH} levels was not analysed"),
            );
            return;
        }
        if self.room_left() == 0 {
            self.note(
                OpaqueKind::TooComplex,
                format!("more than {MAX_COMMANDS} commands; the rest was not analysed"),
            );
            return;
        }
        let stripped = wrappers::strip_reading(words, launched.reading_from);
        // A wrapper option we cannot place may take the next word as its
        // value (`sudo --us root rm -rf /`): that reading is a command too.
        for (words, reading_from) in &stripped.alternatives {
            let mut via = context.via.clone();
            via.push("wrapper option read with a value".into());
            self.command(Candidate {
                words: words.clone(),
                assignments: assignments.clone(),
                input: input.clone(),
                writes: writes.clone(),
                reads: other_reads.clone(),
                places: places.clone(),
                exported: exported.clone(),
                launched: Launched {
                    reading_from: *reading_from,
                    ..launched.clone()
                },
                context: Context {
                    via,
                    ..context.clone()
                },
            });
        }
        // Where the command runs, relative to the project root: its place in
        // its script seen from where the script started, unless a wrapper
        // changes directory (`sudo -i`, `env -C`, `systemd-run`).
        let places = if stripped.moves_cwd {
            Places::unknown()
        } else {
            places.seen_from(&context.places)
        };
        let Some((program_word, arg_words)) = stripped.words.split_first() else {
            // Assignments alone (`EDITOR='rm -rf ~'; git commit`): no
            // command here, but what their values run may run later.
            let mut launch = launchers::Launch::default();
            config_commands::from_assignments(
                assignments.iter().chain(&stripped.assignments),
                &mut launch,
            );
            for (kind, detail) in launch.opaque {
                self.note_in(kind, detail, &context.via);
            }
            for (index, nested) in launch.nested.into_iter().enumerate() {
                self.queue_nested(nested, &context, &places, index);
            }
            return;
        };
        let program_path = program_word.text.clone();
        let program = if program_word.is_static() {
            // Shell builtins keep their case (`CD` is not `cd`), which
            // `cwd` checks on the words as written.
            program_name(&program_path)
        } else {
            let why = if program_word.literal {
                "is a glob or brace pattern"
            } else {
                "is only known at run time"
            };
            self.note_in(
                OpaqueKind::DynamicProgram,
                format!("program `{}` {why}", excerpt(&program_path)),
                &context.via,
            );
            program_path.clone()
        };
        // A shell first runs the file these name (bash: BASH_ENV for every
        // script, ENV when interactive or as sh): code the line does not show.
        let startup_file = assignments
            .iter()
            .chain(&stripped.assignments)
            .find(|(name, _)| name == "BASH_ENV" || name == "ENV");
        if let (Some((name, _)), true) = (startup_file, launchers::is_shell(&program)) {
            self.note_in(
                OpaqueKind::DynamicEval,
                format!(
                    "`{program}` first runs the file `{name}` names, which the line does not show"
                ),
                &context.via,
            );
        }
        // A program a top-level container exec runs reads the terminal the
        // exec hands on: the agent cannot type into it, so it runs nothing
        // the line does not show unless the line feeds it input.
        let reads_nothing_hidden = context.exec_input && !self.feeds_input;
        if let (Some(wrapper), false) = (&stripped.interactive_shell, reads_nothing_hidden) {
            self.note_in(
                OpaqueKind::ShellFromStdin,
                format!("`{wrapper}` without a command starts a shell reading standard input"),
                &context.via,
            );
        }
        // What a shell it starts finds in its environment: what the line
        // exported, then what is assigned in front of the command.
        let mut environment = context.environment.clone();
        environment.extend(exported);
        environment.extend(
            assignments
                .iter()
                .chain(&stripped.assignments)
                .filter_map(|(name, value)| Some((name.clone(), certain_text(value)?.to_string()))),
        );
        let mut launch = if self.powershell_line && super::inline::is_cmdlet(&program) {
            launchers::Launch::default()
        } else {
            launchers::inspect(&program, arg_words, input.as_ref(), launched.appended)
        };
        // `GIT_SSH_COMMAND='...' git fetch`: code the command runs from its environment.
        config_commands::from_assignments(
            assignments.iter().chain(&stripped.assignments),
            &mut launch,
        );
        let args: Vec<String> = arg_words.iter().map(|w| w.text.clone()).collect();
        let own_args = arg_words
            .iter()
            .enumerate()
            .filter(|(i, _)| !launch.foreign.iter().any(|r| r.contains(i)))
            .map(|(_, w)| w);
        let (short_flags, long_flags) = flags::collect_words(own_args);
        let assignments = assignments
            .into_iter()
            .chain(stripped.assignments)
            .map(|(name, value)| (name, value.text))
            .collect();

        for (kind, detail) in launch.opaque {
            if kind == OpaqueKind::ShellFromStdin && reads_nothing_hidden {
                continue;
            }
            self.note_in(kind, detail, &context.via);
        }
        // What it launches starts where it runs; a login shell (`su -`,
        // `runuser -l`) starts in the other user's home.
        let login = matches!(program.as_str(), "su" | "runuser")
            && arg_words.iter().any(|w| {
                w.text == "-"
                    || w.text == "--login"
                    || (w.text.starts_with('-')
                        && !w.text.starts_with("--")
                        && w.text.contains('l'))
            });
        let container = launch.container.take();
        let nested_places = if login || container.as_ref().is_some_and(|c| c.elsewhere) {
            Places::unknown()
        } else {
            places.clone()
        };
        let mut nested_context = Context {
            environment,
            ..context.clone()
        };
        if let Some(container) = container {
            nested_context.mounts = container.mounts;
            nested_context.environment = container.environment;
        }
        for (index, nested) in launch.nested.into_iter().enumerate() {
            self.queue_nested(nested, &nested_context, &nested_places, index);
        }
        let mut targets = if targets::has_targets(&program) {
            command_targets(&program, arg_words, &launched)
        } else {
            Vec::new()
        };
        let mut writes: Vec<Target> = writes.iter().map(Target::written).collect();
        writes.extend(targets::written_operands(&program, arg_words));
        writes.extend(launch.writes.iter().map(Target::written));
        let stdin_file = match &input {
            Some(Input::File(path)) => Some(path),
            _ => None,
        };
        let mut reads: Vec<Target> = stdin_file
            .into_iter()
            .chain(&other_reads)
            .filter(|path| !launchers::is_stream_path(path))
            .map(|path| Target::read_from(path))
            .collect();
        reads.extend(
            targets::read_operands(&program, arg_words)
                .into_iter()
                .filter(|t| !launchers::is_stream_path(&t.text)),
        );
        reads.extend(launch.reads.iter().map(Target::written));
        for target in targets.iter_mut().chain(&mut writes).chain(&mut reads) {
            if context.execdir && !target.contents {
                target.run_in(&Places::unknown());
            } else {
                target.run_in(&places);
            }
        }
        if context.dynamic {
            for target in targets.iter_mut().chain(&mut writes).chain(&mut reads) {
                target.literal = false;
            }
        }
        self.commands.push((
            context.key,
            SimpleCommand {
                program,
                program_path,
                args,
                wrappers: stripped.wrappers,
                via: context.via,
                assignments,
                short_flags,
                long_flags,
                call: launched.call,
                targets,
                writes,
                reads,
            },
        ));
    }

    fn queue_nested(&mut self, nested: Nested, parent: &Context, places: &Places, index: usize) {
        if parent.via.len() >= MAX_DEPTH {
            self.note(
                OpaqueKind::TooComplex,
                format!("nesting deeper than {MAX_DEPTH} levels was not analysed"),
            );
            return;
        }
        let label = match &nested {
            Nested::Script { via, .. } | Nested::Argv { via, .. } => via.clone(),
        };
        let mut key = parent.key.clone();
        key.push(u32::try_from(index).unwrap_or(u32::MAX));
        let mut via = parent.via.clone();
        via.push(label.clone());
        let literal = match &nested {
            Nested::Script { literal, .. } => *literal,
            Nested::Argv { .. } => true,
        };
        let context = Context {
            via,
            key,
            dynamic: parent.dynamic || !literal,
            places: places.clone(),
            execdir: label == "find -execdir" || label == "find -okdir",
            environment: parent.environment.clone(),
            mounts: parent.mounts.clone(),
            exec_input: parent.via.is_empty() && tool_launchers::hands_on_input(&label),
        };
        let job = match nested {
            Nested::Script {
                source, literal, ..
            } => {
                if !literal {
                    self.note_in(
                        OpaqueKind::DynamicEval,
                        format!(
                            "code for `{label}` is only known at run time: `{}`",
                            excerpt(&source)
                        ),
                        &parent.via,
                    );
                }
                Job::Script { source, context }
            }
            Nested::Argv {
                words,
                call,
                appended,
                fill,
                ..
            } => Job::Argv {
                words,
                launched: Launched {
                    call,
                    appended,
                    fill,
                    reading_from: 0,
                },
                context,
            },
        };
        self.jobs.push(job);
    }
}

/// True when a command on `line` may read standard input the line itself
/// gives it: a pipe (`|`, `|&`, but not `||`), any input redirection or
/// here-document (`<`, `<<`, `<<<`, `<&`, `< <(...)`), an output process
/// substitution (`>(cmd)` reads what is written to it) or a coprocess.
/// Read from the raw text, quotes and all, so a `|` in a string only
/// makes the answer more careful.
fn feeds_standard_input(line: &str) -> bool {
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'|' {
            let run = bytes[at..].iter().take_while(|&&b| b == b'|').count();
            if run != 2 || bytes.get(at + run) == Some(&b'&') {
                return true;
            }
            at += run;
            continue;
        }
        at += 1;
    }
    line.contains('<') || line.contains(">(") || line.contains("coproc")
}

/// The targets of a destructive command: its operands, with `{}` standing
/// for the contents of find's starting points, and an unknown one for
/// arguments a launcher adds at run time.
fn command_targets(program: &str, args: &[Word], launched: &Launched) -> Vec<Target> {
    let mut found = Vec::new();
    for target in targets::operands(program, args) {
        if !target.literal && target.text.contains("{}") && !launched.fill.is_empty() {
            found.extend(launched.fill.iter().map(|w| Target {
                contents: true,
                ..Target::written(w)
            }));
        } else {
            found.push(target);
        }
    }
    if launched.appended {
        found.push(Target::unknown("(arguments added at run time)"));
    }
    found
}

/// 1-based line number of byte `at` in `source`.
fn line_of(source: &str, at: usize) -> usize {
    crate::bytes::count(b'\n', &source.as_bytes()[..at.min(source.len())]) + 1
}

/// Enough of a long text to recognise it in a one-line message.
fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    let mut chars = text.chars();
    let mut short: String = chars
        .by_ref()
        .take(MAX_CHARS)
        .map(|c| if c == '\n' { '⏎' } else { c })
        .collect();
    if chars.next().is_some() {
        short.push_str("...");
    }
    short
}
