//! Coding agents: Claude Code, Gemini CLI and Codex, one process per event.
//!
//! Each agent runs a command hook per event with the event as JSON on stdin
//! and reads a JSON reply from stdout (`policy hook AGENT --policy PATH`).
//! Tool calls go through [`tool_call::decide_call`], so the canonical rules
//! that guard chibi guard these agents too.
//!
//! Replies never say "allow": an explicit allow overrides the user's own
//! permission settings, and a guard without an opinion must stay out of the
//! way. What each agent is told:
//!
//! | verdict    | Claude Code                  | Gemini CLI                     | Codex |
//! |------------|------------------------------|--------------------------------|-------|
//! | deny       | `permissionDecision: deny`   | `decision: deny`               | `permissionDecision: deny` |
//! | ask        | `permissionDecision: ask` (deny under `bypassPermissions`) | deny | deny |
//! | rewrite    | `ask` with `updatedInput`    | `hookSpecificOutput.tool_input`| deny |
//! | no opinion | `{}`                         | `{}`                           | `{}` |
//!
//! Why, from runs of the real agents (../shared/fixtures/*/README.md):
//! Gemini CLI 0.61 has `decision: ask`, but it hung a headless `--yolo` run
//! until killed, so an ask is a deny there. Codex 0.169 treats `ask` as
//! unsupported and runs the command, so an ask is a deny; it applies a
//! rewrite only with `allow` + `updatedInput`, and we never say allow, so a
//! rewrite is denied (running the call unrewritten would skip what the
//! policy asked for). A rewrite on Claude Code asks rather than allows, so
//! the user sees the rewritten call; under `claude -p` (no user to ask)
//! Claude Code refuses an asked call, rewrites included.
//!
//! The project root never comes from a field the model controls: see
//! [`project_root`].
//!
//! A failure (policy does not load, malformed event, a rule that errors,
//! the deadline) denies tool calls unless the policy says `on_error:
//! fail_open`, exactly as on chibi's permission hooks; every reply is exit
//! status 0 with JSON, so no agent mistakes a crash for consent.

use super::tool_call::{self, CallDecision, Harness, PolicySource, Verdict};
use crate::catalogue::tools::{gemini_request_key, GeminiKey};
use crate::catalogue::FailureMode;
use crate::decision_log;
use crate::engine::{self, Prepared};
use crate::eval::DecideContext;
use crate::watchdog::Watchdog;
use serde_json::{json, Map, Value as Json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The reply to one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub json: Json,
    pub stderr: Vec<String>,
    /// For the decision log: deny, ask, modify, none or error.
    pub kind: &'static str,
    pub matched: Vec<String>,
    pub rule: Option<String>,
    /// The deciding rule's reason as the policy wrote it, for the log.
    pub reason_template: Option<String>,
    /// Why the policy could not decide, for the log.
    pub error: Option<String>,
    /// Log-only rules that matched: what they would have done.
    pub logged: Vec<crate::eval::Logged>,
}

impl Reply {
    fn nothing() -> Reply {
        Reply {
            json: json!({}),
            stderr: Vec::new(),
            kind: "none",
            matched: Vec::new(),
            rule: None,
            reason_template: None,
            error: None,
            logged: Vec::new(),
        }
    }
}

/// The event name a tool call arrives under, per agent.
fn tool_event(harness: Harness) -> &'static str {
    match harness {
        Harness::Gemini => "BeforeTool",
        _ => "PreToolUse",
    }
}

/// The environment variable that names the project root for every agent,
/// over what the agent itself says.
pub const PROJECT_ROOT_VAR: &str = "HOOK_POLICY_PROJECT_ROOT";

/// The project root of an event, from a source the model cannot steer:
/// [`PROJECT_ROOT_VAR`] when set; else Claude Code's `CLAUDE_PROJECT_DIR`
/// and Gemini CLI's `GEMINI_PROJECT_DIR` (each sets it for its hooks), then
/// the event's `cwd`; for Codex the hook's own working directory, which
/// Codex sets to the session's directory (codex-rs/hooks/src/engine/
/// command_runner.rs), because its event `cwd` is the directory the model
/// chose for that call (`workdir`, fixtures/codex/workdir_probe).
pub fn project_root(harness: Harness, event: &Json) -> String {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let event_cwd = || {
        event
            .get("cwd")
            .and_then(Json::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
    };
    let process_dir = || {
        std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string())
    };
    env(PROJECT_ROOT_VAR)
        .or_else(|| match harness {
            Harness::ClaudeCode => env("CLAUDE_PROJECT_DIR").or_else(event_cwd),
            Harness::Gemini => env("GEMINI_PROJECT_DIR").or_else(event_cwd),
            _ => process_dir(),
        })
        .or_else(process_dir)
        .unwrap_or_else(|| "/".into())
}

/// Decides one event from raw stdin bytes.
pub fn handle(
    harness: Harness,
    source: &mut PolicySource,
    input: &Result<Vec<u8>, String>,
    context_name: &str,
    home: Option<&str>,
) -> Reply {
    let event = match input
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|b| engine::parse_payload(b))
    {
        Ok(v) => v,
        Err(e) => {
            // We cannot tell which event this was; a tool call is what
            // matters, so answer as to one.
            return failure(harness, source_on_error(source), &e);
        }
    };
    let Some(name) = event.get("hook_event_name").and_then(Json::as_str) else {
        // Every event of these agents names itself; one that does not could
        // be a tool call, so it is answered as one that cannot be decided.
        return failure(
            harness,
            source_on_error(source),
            "the event has no hook_event_name",
        );
    };
    if name == tool_event(harness) {
        return tool_use(harness, source, &event, context_name, home);
    }
    if harness == Harness::Gemini && name == "BeforeModel" {
        return gemini_before_model(source, &event, context_name, home);
    }
    if quiet_events(harness).contains(&name) {
        // Events with nothing a policy decides today.
        return Reply::nothing();
    }
    // Another agent's tool event: the entry is in the wrong agent's
    // settings. Deny in the words of the agent that sent it, which would
    // not read our own agent's deny (Claude Code's `decision` takes only
    // `approve` or `block`; Gemini reads no `hookSpecificOutput` decision).
    let sender = match name {
        "BeforeTool" => Some(Harness::Gemini),
        "PreToolUse" => Some(Harness::ClaudeCode),
        _ => None,
    };
    if let Some(sender) = sender {
        return failure(
            sender,
            source_on_error(source),
            &format!(
                "a `{name}` event reached `policy hook {}`, whose agent does not send it: the hook entry is in another agent's settings; install it there with `policy install AGENT`",
                harness.name(),
            ),
        );
    }
    // A name we do not know (a renamed event, other capitals, a newer
    // agent): it may be a tool call, so it is not waved through.
    failure(
        harness,
        source_on_error(source),
        &format!(
            "unknown event `{}`: {} sends {} for tool calls; check the hook entry",
            name.chars().take(64).collect::<String>(),
            harness.title(),
            tool_event(harness)
        ),
    )
}

/// The documented events of each agent that carry nothing a policy decides
/// today: they get no opinion. Any other event name fails closed.
fn quiet_events(harness: Harness) -> &'static [&'static str] {
    match harness {
        // Gemini CLI's hook events (docs/hooks of gemini-cli), BeforeTool
        // and BeforeModel aside.
        Harness::Gemini => &[
            "AfterTool",
            "BeforeAgent",
            "AfterAgent",
            "AfterModel",
            "BeforeToolSelection",
            "SessionStart",
            "SessionEnd",
            "Notification",
            "PreCompress",
        ],
        // Claude Code's hook events, PreToolUse aside; Codex uses the same
        // names for the ones it has.
        _ => &[
            "PostToolUse",
            "PostToolUseFailure",
            "PermissionRequest",
            "Notification",
            "UserPromptSubmit",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
            "SessionStart",
            "SessionEnd",
        ],
    }
}

fn source_on_error(source: &mut PolicySource) -> Option<crate::model::OnError> {
    match source.get("pre_tool") {
        Prepared::Ready(p) => p.on_error,
        Prepared::Broken { .. } => None,
    }
}

fn failure(harness: Harness, on_error: Option<crate::model::OnError>, message: &str) -> Reply {
    let hook = crate::catalogue::hook("pre_tool").expect("catalogued");
    let note = format!("hook-policy: {}: {message}", harness.name());
    if engine::failure_mode(hook, on_error) == FailureMode::Open {
        return Reply {
            stderr: vec![note],
            kind: "error",
            error: Some(message.to_string()),
            ..Reply::nothing()
        };
    }
    let reason = format!("hook-policy could not decide, so it denies (fail closed): {message}");
    Reply {
        json: deny_json(harness, &reason),
        stderr: vec![note],
        kind: "error",
        error: Some(message.to_string()),
        ..Reply::nothing()
    }
}

fn deny_json(harness: Harness, reason: &str) -> Json {
    match harness {
        Harness::Gemini => json!({"decision": "deny", "reason": reason}),
        _ => json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}),
    }
}

fn tool_use(
    harness: Harness,
    source: &mut PolicySource,
    event: &Json,
    context_name: &str,
    home: Option<&str>,
) -> Reply {
    let tool = event.get("tool_name").and_then(Json::as_str).unwrap_or("");
    let empty = Json::Object(Map::new());
    let args = event.get("tool_input").unwrap_or(&empty);
    if tool.is_empty() || !args.is_object() {
        return failure(
            harness,
            source_on_error(source),
            "the event has no tool_name or no tool_input object",
        );
    }
    let root = project_root(harness, event);
    let ctx = DecideContext {
        harness: harness.name(),
        project_root: &root,
        home,
    };
    let d = tool_call::decide_call(
        source,
        &tool_call::ToolCall {
            harness,
            tool,
            arguments: args,
            native_payload: event,
            approval: false,
            context_name,
        },
        ctx,
    );
    // Claude Code in bypassPermissions mode runs a call a hook asks about
    // without asking (anthropics/claude-code#77212): there an ask denies.
    let mode = event.get("permission_mode").and_then(Json::as_str);
    let d = match d.verdict {
        Verdict::Ask(reason) if harness == Harness::ClaudeCode && mode == Some("bypassPermissions") => {
            CallDecision {
                verdict: Verdict::Deny(format!(
                    "{reason} (this needs the user's approval, and Claude Code in bypassPermissions mode does not ask)"
                )),
                ..d
            }
        }
        _ => d,
    };
    render(harness, d)
}

fn render(harness: Harness, d: CallDecision) -> Reply {
    let stderr: Vec<String> = d
        .notes
        .iter()
        .map(|n| format!("hook-policy: {}: {n}", harness.name()))
        .collect();
    let (json, kind) = match (&d.verdict, harness) {
        (Verdict::NoOpinion, _) => (json!({}), "none"),
        (Verdict::Deny(reason), _) => (deny_json(harness, reason), "deny"),
        (Verdict::Ask(reason), _) => (
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": reason,
            }}),
            "ask",
        ),
        (Verdict::Rewrite(args), Harness::ClaudeCode) => (
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": format!(
                    "hook-policy rewrote the arguments of this call [hook-policy rule: {}]",
                    d.matched.join(", ")
                ),
                "updatedInput": args,
            }}),
            "modify",
        ),
        (Verdict::Rewrite(args), Harness::Gemini) => {
            (json!({"hookSpecificOutput": {"tool_input": args}}), "modify")
        }
        (Verdict::Rewrite(_), _) => (
            deny_json(
                harness,
                &format!(
                    "the policy rewrites the arguments of this call, which {} hooks cannot do, so it is denied [hook-policy rule: {}]",
                    harness.title(),
                    d.matched.join(", ")
                ),
            ),
            "deny",
        ),
    };
    Reply {
        json,
        stderr,
        kind: match (d.failed, kind) {
            (true, _) => "error",
            // Only log-only rules had something to say.
            (false, "none") if !d.logged.is_empty() => "log",
            (false, kind) => kind,
        },
        error: (d.failed || !d.notes.is_empty()).then(|| d.notes.join("; ")),
        matched: d.matched,
        rule: d.rule,
        reason_template: d.reason_template,
        logged: d.logged,
    }
}

/// Gemini's BeforeModel is chibi's `pre_api_request`: the rules' `request`
/// keys become generation settings of the outgoing request.
fn gemini_before_model(
    source: &mut PolicySource,
    event: &Json,
    context_name: &str,
    home: Option<&str>,
) -> Reply {
    let body = event
        .get("llm_request")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let payload = json!({"context_name": context_name, "request_body": body});
    let root = project_root(Harness::Gemini, event);
    let ctx = DecideContext {
        harness: Harness::Gemini.name(),
        project_root: &root,
        home,
    };
    let policy = match source.get("pre_api_request") {
        Prepared::Ready(p) => p,
        Prepared::Broken { message, .. } => {
            // A request merge fails open: change nothing, say why.
            return Reply {
                stderr: vec![format!(
                    "hook-policy: gemini: the policy does not load: {message}"
                )],
                kind: "error",
                error: Some(format!("the policy does not load: {message}")),
                ..Reply::nothing()
            };
        }
    };
    let d = match engine::run(policy, "pre_api_request", &payload, ctx) {
        engine::Outcome::Decided(d) if d.error_summary().is_none() => d,
        engine::Outcome::Decided(d) => {
            return Reply {
                stderr: vec![format!(
                    "hook-policy: gemini: {}",
                    d.error_summary().unwrap_or_default()
                )],
                kind: "error",
                error: d.error_summary(),
                ..Reply::nothing()
            }
        }
        engine::Outcome::Failed(m) => {
            return Reply {
                stderr: vec![format!("hook-policy: gemini: {m}")],
                kind: "error",
                error: Some(m),
                ..Reply::nothing()
            }
        }
    };
    if d.request.is_empty() {
        return Reply::nothing();
    }
    // Gemini sets temperature, maxOutputTokens, topP and topK from the
    // reply's config, unsetting the ones left out: start from the incoming
    // config and change only the rule's keys.
    let incoming = event
        .pointer("/llm_request/config")
        .and_then(Json::as_object)
        .cloned()
        .unwrap_or_default();
    let mut config = incoming.clone();
    let mut model = None;
    let mut stderr = Vec::new();
    for (key, won) in &d.request {
        match gemini_request_key(key) {
            Some(GeminiKey::Config(k)) => {
                config.insert(k.into(), won.value.clone());
            }
            Some(GeminiKey::Model) => model = Some(won.value.clone()),
            None => stderr.push(format!(
                "hook-policy: gemini: request key `{key}` (rule {}) is not applied: Gemini CLI takes only model, temperature, maxOutputTokens, topP and topK from a BeforeModel reply",
                won.rule
            )),
        }
    }
    let mut request = Map::new();
    if let Some(m) = model {
        request.insert("model".into(), m);
    }
    if config != incoming {
        request.insert("config".into(), Json::Object(config));
    }
    if request.is_empty() {
        return Reply {
            stderr,
            matched: d.matched.clone(),
            ..Reply::nothing()
        };
    }
    Reply {
        json: json!({"hookSpecificOutput": {"llm_request": request}}),
        stderr,
        kind: "modify",
        matched: d.matched.clone(),
        rule: d.request.first().map(|(_, w)| w.rule.clone()),
        reason_template: None,
        error: None,
        logged: d.logged.clone(),
    }
}

/// Where a one-process-per-event agent keeps its policy cache.
pub fn cache_dir() -> Option<PathBuf> {
    // Relative values are ignored, as the XDG specification says: they
    // would put the cache in the project the hook runs in, whose files a
    // cloned repository can supply.
    let absolute = |v: &str| {
        std::env::var_os(v)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let base = absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|h| h.join(".cache")))?;
    Some(base.join("hook-policy"))
}

/// Where a hook call finds its policy: paths given on the command line, or
/// a list file written by `policy install` (one path a line), which lets
/// the installed command stay the same when the policy changes.
#[derive(Debug, Clone)]
pub enum PolicyFrom {
    Paths(Vec<PathBuf>),
    List(PathBuf),
}

impl PolicyFrom {
    /// The policy paths, or why they cannot be known.
    pub fn paths(&self) -> Result<Vec<PathBuf>, String> {
        match self {
            PolicyFrom::Paths(p) => Ok(p.clone()),
            PolicyFrom::List(file) => read_policy_list(file),
        }
    }
}

/// The paths of a policy list file: one a line; blank lines and `#`
/// comments skipped. An empty list is an error (nothing would guard).
pub fn read_policy_list(file: &Path) -> Result<Vec<PathBuf>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        format!(
            "cannot read the policy list {}: {e}; run `policy install` again",
            file.display()
        )
    })?;
    let paths: Vec<PathBuf> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(PathBuf::from)
        .collect();
    if paths.is_empty() {
        return Err(format!(
            "the policy list {} names no policy",
            file.display()
        ));
    }
    Ok(paths)
}

/// Runs one hook call of a coding agent; always exit status 0.
pub fn run(
    harness: Harness,
    policy: &PolicyFrom,
    context_name: &str,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    use super::hook_command::{configured_log, failure_decision, CallLog, Entry};
    let input = super::chibi::read_bounded(stdin);
    let deadline = Watchdog::deadline_from_env();
    let watchdog = Watchdog::arm(
        deadline,
        Box::new(move |on_error, message| failure_text(harness, on_error, message)),
    );
    let started = std::time::Instant::now();
    let new_log = |path| CallLog::new(path, harness, &input, event_name, event_ids);
    // A log named by the environment is known before the policy loads: a
    // deadline passing while it loads is logged too.
    let mut log = decision_log::from_env().map(new_log);
    if let Some(l) = &log {
        l.arm(&watchdog, failure_decision);
    }
    let cache = cache_dir();
    let mut source = match policy.paths() {
        Ok(paths) => PolicySource::per_hook(paths, cache.as_deref()),
        Err(message) => PolicySource::broken(message),
    };
    watchdog.set_on_error(source_on_error(&mut source));
    if log.is_none() {
        log = configured_log(&mut source).map(new_log);
        if let Some(l) = &log {
            l.arm(&watchdog, failure_decision);
        }
    }
    if log.is_none() {
        // Only the reply is told: a final deny can end its hook's rules.
        source.reply_only();
    }
    let home = crate::paths::home_dir();
    let mut reply = handle(harness, &mut source, &input, context_name, home.as_deref());
    // Claimed before the line is written: whoever answers logs the call.
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
    if let Some(l) = &log {
        let entry = Entry {
            decision: reply.kind,
            matched: &reply.matched,
            logged: &reply.logged,
            rule: reply.rule.as_deref(),
            reason_template: reply.reason_template.as_deref(),
            error: reply.error.as_deref(),
        };
        if let Err(e) = l.write(&entry, started) {
            reply.stderr.push(e);
        }
    }
    for line in &reply.stderr {
        let _ = writeln!(stderr, "{line}");
    }
    let _ = writeln!(stdout, "{}", reply.json);
    let _ = stdout.flush();
    std::mem::forget(source);
    0
}

/// The reply to an event that cannot be decided, as stdout and stderr text
/// (what the deadline prints, and `policy eval --harness` past its deadline).
pub fn failure_text(
    harness: Harness,
    on_error: Option<crate::model::OnError>,
    message: &str,
) -> (String, String) {
    let r = failure(harness, on_error, message);
    (format!("{}\n", r.json), r.stderr.join("\n") + "\n")
}

/// The event's own name, for the decision log.
fn event_name(event: &Json) -> Option<&str> {
    event.get("hook_event_name").and_then(Json::as_str)
}

/// The ids the event carries, for the decision log: session, turn (Codex's
/// turn, Claude Code's prompt), tool call.
fn event_ids(event: &Json) -> [Option<&str>; 3] {
    let id = |k: &str| event.get(k).and_then(Json::as_str);
    [
        id("session_id"),
        id("turn_id").or_else(|| id("prompt_id")),
        id("tool_use_id"),
    ]
}

/// The context name tool-filter rules see from a coding agent unless
/// `--context` says otherwise: these agents are coding agents.
pub const DEFAULT_CONTEXT: &str = "coding";
