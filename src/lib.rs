//! hook-policy: YAML + CEL guardrails for AI agent harness hooks.
//!
//! The stages, each in its own module: [`load`] (YAML with spans) →
//! [`check`] (schema, hooks, effects, CEL) → [`compile`] (decision tree per
//! hook point) → [`eval`] (decide one payload) → [`adapters`] (speak a
//! harness's protocol). [`catalogue`] is the data all of them read; [`cli`]
//! is the command line on top of them all.

// Diagnostics travel in `Err` and decisions in `Outcome` once per call, on
// cold paths: boxing them would only add noise.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]
pub mod adapters;
pub mod bytes;
pub mod cache;
pub mod catalogue;
pub mod check;
pub mod cli;
pub mod compile;
pub mod decision_log;
pub mod diagnostic;
pub mod doctor;
pub mod engine;
pub mod eval;
pub mod explain;
pub mod expr;
pub mod load;
pub mod matchers;
pub mod model;
pub mod packs;
pub mod paths;
pub mod render;
pub mod shell;
pub mod testing;
pub mod url_class;
pub mod watchdog;

/// This build's identity: a hash of the sources and build settings
/// (build.rs). `policy install` installs the lean `policy-hook` only when
/// it reports the same one (`adapters::hook_binary`).
pub const BUILD_ID: &str = env!("HOOK_POLICY_BUILD_ID");

/// The running executable's path, read once: an installed plugin needs it
/// for its manifest, its cache directory and its cache key, and each
/// lookup is a `readlink` of `/proc/self/exe`.
pub fn current_exe() -> Option<&'static std::path::Path> {
    static EXE: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| std::env::current_exe().ok()).as_deref()
}
