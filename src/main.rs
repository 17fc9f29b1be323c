//! The `policy` command line: the entry point and the dispatch. Each
//! command lives in its own module under `src/cli/`.
//!
//! The binary is also the chibi plugin: a copy installed by `policy install
//! chibi` finds its manifest beside itself and speaks the plugin protocol
//! instead of parsing a command line. That check comes first and is cheap,
//! because chibi starts a fresh process for every hook call. `policy
//! install` prefers the lean `policy-hook` (src/hook_main.rs) for that copy.
//!
//! For the same reason the binary has no Rust `main` runtime (`no_main`):
//! std's start-up (stack-guard discovery through `/proc/self/maps`, an
//! alternate signal stack, a stdio check) costs about 50 µs of a plugin
//! call's 1 ms and buys nothing here. The only part we need, ignoring
//! SIGPIPE, is `cli::start`. Arguments and the environment work as usual
//! (glibc hands them to std before `main`).
#![no_main]

use clap::Parser;
use hook_policy::cli::{self, Cli, Command};

#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    cli::start();
    cli::finish(run())
}

fn run() -> u8 {
    // Whole-policy checks with exact positions (`policy-hook` goes without).
    hook_policy::expr::use_reference_parser();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(status) = cli::chibi_plugin_call(&args) {
        return status.code();
    }
    let status = match Cli::parse().command {
        Command::Check(args) => cli::check::run(args),
        Command::Eval(args) => cli::eval::run(args, false),
        Command::Explain(args) => cli::eval::run(args, true),
        Command::Test(args) => cli::test::run(args),
        Command::Schema(args) => cli::reference::schema(args),
        Command::Hooks(args) => cli::reference::hooks(args),
        Command::Adapters(args) => cli::reference::adapters(args),
        Command::Packs(args) => cli::packs::run(args),
        Command::Install { harness } => cli::install::run(harness),
        Command::Uninstall(args) => cli::install::uninstall(args),
        Command::Doctor(args) => cli::doctor::run(args),
        Command::Hook(args) => cli::serve::hook(args),
        Command::Serve { harness } => cli::serve::serve(harness),
        Command::Init(args) => cli::init::run(args),
        Command::Completions(args) => cli::completions::run(args),
    };
    status.code()
}
