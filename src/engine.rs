//! Load, compile and decide in one call, with the failure rules applied.
//!
//! Failures are values here, never panics or early exits: a policy that does
//! not load, a payload that is not JSON, a condition that fails at run time.
//! Each adapter turns an [`Outcome`] into its harness's reply, and the failure
//! mode of the hook class (see `catalogue::HookClass::default_failure`, the
//! policy's `on_error`) decides whether that reply denies or says nothing.

use crate::catalogue::{self, FailureMode, HookClass, HookPoint};
use crate::compile::{compile, CompiledPolicy};
use crate::diagnostic::Diagnostic;
use crate::eval::{decide, decide_for_reply, DecideContext, Decision};
use crate::load;
use crate::model::OnError;
use serde_json::Value as Json;
use std::path::PathBuf;

/// The largest payload read from a harness. chibi's `pre_api_request`
/// carries the whole conversation; 32 MiB leaves room for long sessions
/// while bounding what a runaway input can make us hold.
pub const MAX_PAYLOAD_BYTES: usize = 32 * 1024 * 1024;

/// How to see every problem of a policy, from this build: the plugin
/// build (`cargo plugin-build`) has no `policy check` of its own.
pub const CHECK_COMMAND: &str = if cfg!(feature = "reference-parser") {
    "`policy check`"
} else {
    "`policy check` from a default build (`cargo run --release -- check`)"
};

/// A policy ready to decide, or why it is not.
pub enum Prepared {
    Ready(CompiledPolicy),
    Broken {
        message: String,
        diagnostics: Vec<Diagnostic>,
    },
}

/// Loads and compiles the policy for one hook (or all, with `None`).
/// Any error, in any file, makes the policy broken: half a policy is not
/// what its author reviewed.
pub fn prepare(paths: &[PathBuf], only_hook: Option<&str>) -> Prepared {
    let mode = if only_hook.is_some() {
        load::Mode::Run
    } else {
        load::Mode::Check
    };
    let (set, diags) = load::load_with(paths, mode);
    prepare_loaded(set, diags, only_hook)
}

/// Compiles an already loaded set (see [`prepare`]).
pub fn prepare_loaded(
    set: load::PolicySet,
    diags: Vec<Diagnostic>,
    only_hook: Option<&str>,
) -> Prepared {
    prepare_loaded_ref(&set, diags, only_hook)
}

/// [`prepare_loaded`] for a set the caller keeps.
pub fn prepare_loaded_ref(
    set: &load::PolicySet,
    mut diags: Vec<Diagnostic>,
    only_hook: Option<&str>,
) -> Prepared {
    if !diags.iter().any(Diagnostic::is_error) {
        let (policy, more) = compile(set, only_hook);
        diags.extend(more);
        if !diags.iter().any(Diagnostic::is_error) {
            return Prepared::Ready(policy);
        }
    }
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
    let first = errors[0];
    let mut message = match first.location() {
        Some((file, Some((line, col)))) => format!("{file}:{line}:{col}: {}", first.message),
        Some((file, None)) => format!("{file}: {}", first.message),
        None => first.message.clone(),
    };
    if errors.len() > 1 {
        message.push_str(&format!(
            " (and {} more; run {CHECK_COMMAND})",
            errors.len() - 1
        ));
    }
    Prepared::Broken {
        message,
        diagnostics: diags,
    }
}

/// The result of one hook call.
pub enum Outcome {
    Decided(Decision),
    /// The policy could not decide; the message says why.
    Failed(String),
}

/// Failure mode in force for a hook, given the policy's setting.
pub fn failure_mode(hook: &HookPoint, on_error: Option<OnError>) -> FailureMode {
    match (hook.class, on_error) {
        (HookClass::Permission | HookClass::ToolGate, Some(OnError::FailOpen)) => FailureMode::Open,
        (HookClass::Permission | HookClass::ToolGate, _) => FailureMode::Closed,
        _ => FailureMode::Open,
    }
}

/// Parses a payload, refusing what is not a JSON object of sane size.
pub fn parse_payload(bytes: &[u8]) -> Result<Json, String> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(format!(
            "payload is {} bytes; the limit is {MAX_PAYLOAD_BYTES}",
            bytes.len()
        ));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("payload is empty".into());
    }
    let value: Json =
        serde_json::from_slice(bytes).map_err(|e| format!("payload is not valid JSON: {e}"))?;
    if !value.is_object() {
        return Err("payload is not a JSON object".into());
    }
    Ok(value)
}

/// Decides a payload already parsed.
pub fn run(policy: &CompiledPolicy, hook: &str, payload: &Json, ctx: DecideContext<'_>) -> Outcome {
    if catalogue::hook(hook).is_none() {
        return Outcome::Failed(format!("unknown hook point `{hook}`"));
    }
    Outcome::Decided(decide(policy, hook, payload, ctx))
}

/// [`run`] for a caller that records nothing but the reply (no decision
/// log, no explanation): see [`decide_for_reply`].
pub fn run_for_reply(
    policy: &CompiledPolicy,
    hook: &str,
    payload: &Json,
    ctx: DecideContext<'_>,
) -> Outcome {
    if catalogue::hook(hook).is_none() {
        return Outcome::Failed(format!("unknown hook point `{hook}`"));
    }
    Outcome::Decided(decide_for_reply(policy, hook, payload, ctx))
}
