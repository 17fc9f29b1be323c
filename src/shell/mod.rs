//! Static analysis of an agent's shell command line.
//!
//! Policies must decide whether a command line may run. Matching the raw text
//! (`line.contains("rm -rf")`) is trivially bypassed: `r\m -fr /`,
//! `sudo env rm -r -f /`, `bash -c 'rm -rf /'` and `$(rm -rf /)` all delete
//! the same files while never containing that substring. This module parses
//! the line with a real bash grammar (tree-sitter-bash, see
//! `docs/shell-parser-choice.md`; plain lines such as `cargo test 2>&1 |
//! tail -20` are split without it, exactly as it would, see `simple.rs`)
//! and reports every simple command that may run, with its program name
//! unquoted and normalised, its arguments, and its flags, after seeing
//! through wrappers (`sudo`, `env`, `timeout`, ...) and into nested code
//! (`$(...)`, `bash -c '...'`, `eval`, `xargs`, `find -exec`, ...).
//!
//! What cannot be known without running the line (a program named by a
//! variable, `eval "$x"`, `curl ... | sh`) is not guessed: it is reported in
//! [`ShellAnalysis::opaque`], so a policy can refuse or ask instead of
//! allowing something it cannot see. Anything the analysis gives up on
//! (parse errors, size and depth limits) is reported the same way.
//!
//! Code given to interpreters on the line (`python -c`, `node -e`, `perl -e`,
//! awk programs, sed's `e`, heredocs fed to `python3 -`) is read too (see
//! `inline/`): the commands it runs are reported like any other, and the
//! library calls that delete or move files are reported as the command that
//! does the same, with [`SimpleCommand::call`] naming the call. What a
//! destructive command acts on is kept in [`SimpleCommand::targets`] and
//! located against a project root with [`resolve_target`].
//!
//! Not tracked: aliases and functions defined in earlier lines or rc files
//! (a name is taken as the program it spells), `$PATH` lookups, scripts run
//! from files (`python tool.py`), and what other programs do with their
//! arguments (`git` aliases, `make` recipes).

mod analyzer;
mod ansi_c;
mod assigned;
mod cmd_exe;
mod config_commands;
mod container_build;
mod containers;
mod cwd;
mod find_expr;
mod flags;
mod glob_cover;
mod inline;
mod launchers;
mod long_options;
mod simple;
mod split;
mod stream_programs;
mod syntax;
mod targets;
mod tool_launchers;
mod view;
mod walk;
mod words;
mod wrappers;

use serde::Serialize;
use std::collections::BTreeSet;

pub use targets::{
    resolve as resolve_target, resolve_all as resolve_target_all, ResolvedTarget, Target,
    TargetClass,
};
pub use wrappers::program_name;

/// Longest command line analysed; longer lines are refused as [`OpaqueKind::TooComplex`].
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// Deepest nesting followed: substitutions and re-parsed code strings each add one level.
pub const MAX_DEPTH: usize = 16;
/// Most simple commands reported for one line.
pub const MAX_COMMANDS: usize = 10_000;

/// Everything found in one command line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShellAnalysis {
    /// Every simple command that may run, in source order (a command before
    /// the commands nested inside it).
    pub commands: Vec<SimpleCommand>,
    /// Why parts of the line cannot be known statically; empty means the
    /// line was fully understood.
    pub opaque: Vec<Opaque>,
}

/// One reason the analysis is incomplete.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Opaque {
    pub kind: OpaqueKind,
    /// Human-readable explanation naming the offending text.
    pub detail: String,
}

/// Category of an [`Opaque`] finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum OpaqueKind {
    /// The parser rejected (part of) the line; commands found are partial.
    ParseError,
    /// The program to run is computed at run time (`$CMD`, `"$@"`, `$(...)`, globs).
    DynamicProgram,
    /// Code handed to `eval`, `sh -c`, a heredoc, ... is not a literal string.
    DynamicEval,
    /// A shell (or `parallel`) reads the commands it runs from its standard input.
    ShellFromStdin,
    /// Input size, nesting depth, command count or parser work over the limits.
    TooComplex,
}

/// One simple command (program plus arguments) that may run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimpleCommand {
    /// Program name: unquoted, unescaped, basename, in ASCII lower case
    /// (`/usr/bin/rm`, `'rm'`, `r\m`, `"r"m` and `RM` are all `rm`: file
    /// systems that ignore case, macOS and Windows by default, run `rm` for
    /// `RM`). A dynamic program is kept as written minus quotes (`$CMD`).
    pub program: String,
    /// Program as written, unquoted (`/usr/bin/rm`).
    pub program_path: String,
    /// Unquoted, unescaped words after the program (wrappers removed).
    /// Expansions are kept as written, minus quotes.
    pub args: Vec<String>,
    /// Wrappers seen through, outermost first (`["sudo", "env"]`).
    pub wrappers: Vec<String>,
    /// How a nested command was reached, outermost first (`["bash -c", "$()"]`).
    pub via: Vec<String>,
    /// `NAME=value` assignments in front of the command (and given to `env`/`sudo`).
    pub assignments: Vec<(String, String)>,
    /// Single-letter flags from `-x` clusters in `args` before `--`.
    pub short_flags: BTreeSet<char>,
    /// Long flags from `--name[=value]` in `args` before `--`.
    pub long_flags: BTreeSet<String>,
    /// For a command that stands for a library call made by interpreter
    /// code (`shutil.rmtree('/')` is `rm -r -f -- /`), the call as written
    /// with its module (`shutil.rmtree`); `None` for a command the line runs.
    pub call: Option<String>,
    /// The paths a destructive command (`rm`, `mv`, `chmod`, `find`, ...)
    /// acts on, as written; empty for other programs. See [`resolve_target`].
    pub targets: Vec<Target>,
    /// Other paths the command writes, creates or links: files its
    /// redirections write (`> f`, `>> f`, `&> f`), `cp`/`install`/`ln`
    /// destinations (and `ln`'s sources), `tee` files, `sed -i`/`perl -i`
    /// files, `curl -o`/`wget -O` outputs, files given to editors.
    pub writes: Vec<Target>,
    /// Files its redirections open for reading (`cat < .env`, `3< .env`,
    /// `<> .env`) and files an option makes it read as input (`curl -K`,
    /// `wget -i`, `ssh -F`, sqlite3's `.read`), so a rule about reading
    /// files sees them as well as file arguments.
    pub reads: Vec<Target>,
}

impl SimpleCommand {
    /// True if any alternative of `spec` is present; alternatives are
    /// separated by `|`, e.g. `"-r|-R|--recursive"`.
    ///
    /// `-x` matches a short flag (also inside clusters such as `-rf`),
    /// `--name` matches a long flag (with or without `=value`), and a
    /// single-dash word such as `-delete` matches that exact argument before
    /// `--` (find and java style options).
    pub fn has_flag(&self, spec: &str) -> bool {
        flags::matches_spec(self, spec)
    }

    /// [`SimpleCommand::targets`] located against a project root and home
    /// (a target the command may act on from several directories once per
    /// directory).
    pub fn resolved_targets(&self, root: &str, home: Option<&str>) -> Vec<ResolvedTarget> {
        self.targets
            .iter()
            .flat_map(|t| targets::resolve_all(t, root, home))
            .collect()
    }
}

impl ShellAnalysis {
    /// True when some part of the line could not be known statically.
    pub fn is_opaque(&self) -> bool {
        !self.opaque.is_empty()
    }

    /// Why part of the line was never looked at (over a size, nesting,
    /// count or work limit), if so. Unlike other opacity, which names what
    /// cannot be known, this hides commands in plain sight: a padded line
    /// can end in `rm -rf /`. So "no such command" cannot be concluded.
    pub fn unanalysed(&self) -> Option<&str> {
        self.opaque
            .iter()
            .find(|o| o.kind == OpaqueKind::TooComplex)
            .map(|o| o.detail.as_str())
    }

    /// Program names of all commands, in order.
    pub fn programs(&self) -> impl Iterator<Item = &str> {
        self.commands.iter().map(|c| c.program.as_str())
    }

    /// True if an opaque finding of this kind was recorded.
    pub fn has_opaque(&self, kind: OpaqueKind) -> bool {
        self.opaque.iter().any(|o| o.kind == kind)
    }
}

/// Analyse one shell command line (bash syntax). Never panics; problems are
/// reported in [`ShellAnalysis::opaque`].
pub fn analyze(line: &str) -> ShellAnalysis {
    analyzer::Analyzer::run(line, syntax::Route::Fast)
}

/// [`analyze`] without the pipeline shortcut (see `src/shell/view.rs`):
/// every script is parsed as written. Both must always agree; this exists
/// so tests and fuzz targets can check that they do.
#[doc(hidden)]
pub fn analyze_exact(line: &str) -> ShellAnalysis {
    analyzer::Analyzer::run(line, syntax::Route::Exact)
}

/// True when the top-level parse of `line` takes the pipeline shortcut;
/// tests use it to show that their comparisons are not vacuous.
#[doc(hidden)]
pub fn takes_pipeline_shortcut(line: &str) -> bool {
    syntax::takes_shortcut(line)
}

/// True when `line` is read without the bash parser (see
/// `src/shell/simple.rs`); tests use it to show that their comparisons
/// with [`analyze_exact`] are not vacuous.
#[doc(hidden)]
pub fn reads_without_parser(line: &str) -> bool {
    simple::commands(line, MAX_COMMANDS + 1).is_some()
}
