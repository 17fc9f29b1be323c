//! `policy-hook`: the hook calls of `policy` and nothing else, for the
//! copy `policy install` puts where a harness runs it (see
//! `src/adapters/hook_binary.rs` for why and when).
//!
//! It answers a chibi plugin call (the manifest beside the copy) and
//! `hook AGENT --policy-list FILE` (what installed entries run), exactly as
//! `policy` does, through the same library code. What it leaves out is
//! what a hook call never needs and every process start pays for in
//! relocations: the command-line parser (the `hook` arguments are read by
//! `HookArgs::from_words`), `policy check` and the other commands, and CEL's
//! reference parser (`expr::use_reference_parser` is never called, so the
//! linker drops it). Like `policy`, it has no Rust `main` runtime.
#![no_main]

use hook_policy::adapters::hook_binary;
use hook_policy::cli::{self, serve::HookArgs, ExitStatus};

#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    cli::start();
    cli::finish(run().code())
}

fn run() -> ExitStatus {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(status) = cli::chibi_plugin_call(&args) {
        return status;
    }
    match args.first().map(String::as_str) {
        Some("hook") => match HookArgs::from_words(&args[1..]) {
            Ok(hook) => cli::serve::hook(hook),
            Err(e) => {
                eprintln!(
                    "error: {e}\n  usage: {} hook AGENT --policy-list FILE",
                    hook_binary::LEAN
                );
                ExitStatus::CouldNotRun
            }
        },
        Some("--version" | "-V") => {
            println!("{}", hook_binary::version_line());
            ExitStatus::Success
        }
        _ => {
            eprintln!(
                "error: {} only answers hook calls (a chibi plugin call, or `hook AGENT --policy-list FILE`)\n  help: run `policy` for everything else; `policy install` sets up hooks",
                hook_binary::LEAN
            );
            ExitStatus::CouldNotRun
        }
    }
}
