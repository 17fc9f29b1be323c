//! The `policy` command line, one module per command (the way cargo and
//! ruff lay theirs out): `src/main.rs` only parses and dispatches, and each
//! command's arguments live beside the code that runs it.
//!
//! It is part of the library so that tests can call a command directly.

pub mod args;
pub mod check;
pub mod completions;
pub mod doctor;
pub mod eval;
pub mod init;
pub mod install;
pub mod install_hooks;
pub(crate) mod output;
pub mod packs;
pub mod reference;
pub mod serve;
pub mod test;

use clap::{Parser, Subcommand};

/// The exit statuses `policy` documents. Not `std::process::ExitCode`:
/// the binary has no std `main` runtime (see `src/main.rs`), so the status
/// is returned from our own `main` as a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitStatus {
    /// Clean, passed, or answered.
    Success = 0,
    /// The command ran and found problems: lint errors, failed tests,
    /// coverage too low, a broken stream.
    Problems = 1,
    /// The command could not run: bad arguments, unreadable input, a
    /// policy that does not load.
    CouldNotRun = 2,
    /// `policy doctor` only: nothing broken, but an agent found on the
    /// machine has no hook-policy entry.
    Unguarded = 3,
}

impl ExitStatus {
    /// The status an adapter's run loop returned (they return 0 or 1).
    pub fn from_adapter(code: i32) -> ExitStatus {
        match code {
            0 => ExitStatus::Success,
            1 => ExitStatus::Problems,
            _ => ExitStatus::CouldNotRun,
        }
    }

    pub fn code(self) -> u8 {
        self as u8
    }
}

#[derive(Parser)]
#[command(
    name = "policy",
    version,
    about = "YAML + CEL guardrails for AI agent hooks"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Validate policy files and directories, reporting every problem.
    ///
    /// Exit status: 0 clean, 1 problems found, 2 could not run.
    Check(check::CheckArgs),
    /// Decide one payload and print the reply the harness would get.
    Eval(eval::EvalArgs),
    /// Like `eval --explain`: show how the decision was reached.
    Explain(eval::EvalArgs),
    /// Run the policy tests (`*.test.yaml`) found under the paths.
    ///
    /// Exit status: 0 all passed, 1 a case failed or coverage is too low, 2 could not run.
    Test(test::TestArgs),
    /// Print the JSON Schema of the policy format (or, with --tests, of test files).
    Schema(reference::SchemaArgs),
    /// List the hook points, their payloads and effects.
    Hooks(reference::HooksArgs),
    /// Make a harness use a policy.
    Install {
        #[command(subcommand)]
        harness: install::InstallTarget,
    },
    /// Check that every agent found here runs hook-policy, and that its hook
    /// answers: one harmless and one dangerous recorded event are sent
    /// through each installed command.
    ///
    /// Exit status: 0 all guarded, 1 an installed hook is broken, 2 could
    /// not run, 3 an agent found here is not guarded.
    Doctor(doctor::DoctorArgs),
    /// Remove what `policy install AGENT --settings FILE` added.
    Uninstall(install::UninstallArgs),
    /// Answer one hook event of a coding agent (stdin: the event; stdout: the reply).
    ///
    /// This is the command an agent's settings run (`policy install AGENT`
    /// writes it). Exits 0 with a JSON reply, except for Windsurf, whose
    /// hooks block by exit status 2 (the reason on stderr).
    Hook(serve::HookArgs),
    /// Serve a long-running harness over stdio.
    Serve {
        #[command(subcommand)]
        harness: serve::ServeTarget,
    },
    /// Show how each harness's tools map onto the canonical hooks.
    Adapters(reference::AdaptersArgs),
    /// List the guardrail packs shipped in this binary, or show one.
    Packs(packs::PacksArgs),
    /// Create a starting policy, its tests and the schemas editors use.
    Init(init::InitArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
}

/// What every binary of the package does first. They have no Rust `main`
/// runtime (see `src/main.rs`); the one part of it needed here is ignoring
/// SIGPIPE, so that writing to a closed pipe is an error and not death.
pub fn start() {
    // SAFETY: setting a signal's disposition before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// What returning from std's `main` would do: flush buffered stdout.
pub fn finish(status: u8) -> std::ffi::c_int {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::ffi::c_int::from(status)
}

/// A chibi plugin call, answered, if this process is one: the installed
/// copy finds its manifest beside itself (see `adapters::chibi`). Checked
/// first, and cheaply, because chibi starts a process for every hook call.
pub fn chibi_plugin_call(args: &[String]) -> Option<ExitStatus> {
    use crate::adapters::chibi;
    if !(args.is_empty() || args == ["--schema"]) {
        return None;
    }
    let manifest = chibi::Manifest::for_plugin_call(args)?;
    let inv = chibi::Invocation::from_env(args);
    let code = chibi::run_plugin(
        &manifest,
        &inv,
        &mut std::io::stdin().lock(),
        // Not locked for the whole call: the deadline watchdog may need to
        // print the reply instead (see src/watchdog.rs).
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    Some(ExitStatus::from_adapter(code))
}
