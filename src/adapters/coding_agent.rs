//! Coding agents: Claude Code, Gemini CLI and Codex, one process per event.
//!
//! Each agent runs a command hook per event with the event as JSON on stdin
//! and reads a JSON reply from stdout (`policy hook AGENT --policy PATH`).
//! Tool calls go through [`tool_call::decide_call`], so the canonical rules
//! that guard chibi guard these agents too.
//!
//! Replies never say "allow": an explicit allow overrides the user's own
//! permission settings, and a guard without an opinion must stay out of the
//! way. What each agent can be told:
//!
//! | verdict    | Claude Code                  | Gemini CLI                     | Codex |
//! |------------|------------------------------|--------------------------------|-------|
//! | deny       | `permissionDecision: deny`   | `decision: deny`               | `permissionDecision: deny` |
//! | ask        | `permissionDecision: ask`    | deny (no way to ask)           | deny (no way to ask) |
//! | rewrite    | `ask` with `updatedInput`    | `hookSpecificOutput.tool_input`| deny (no way to rewrite) |
//! | no opinion | `{}`                         | `{}`                           | `{}` |
//!
//! A rewrite on Claude Code asks rather than allows, so the user sees the
//! rewritten call; on Codex a rewrite cannot be applied, and running the
//! unrewritten call would skip what the policy asked for, so it is denied.
//!
//! A failure (policy does not load, malformed event, a rule that errors,
//! the deadline) denies tool calls unless the policy says `on_error:
//! fail_open`, exactly as on chibi's permission hooks; every reply is exit
//! status 0 with JSON, so no agent mistakes a crash for consent.

use super::tool_call::{self, CallDecision, Harness, PolicySource, Verdict};
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
    let name = event
        .get("hook_event_name")
        .and_then(Json::as_str)
        .unwrap_or("");
    if name == tool_event(harness) {
        return tool_use(harness, source, &event, context_name, home);
    }
    if harness == Harness::Gemini && name == "BeforeModel" {
        return gemini_before_model(source, &event, context_name, home);
    }
    // Other events carry nothing a policy decides today.
    Reply::nothing()
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
            ..Reply::nothing()
        };
    }
    let reason = format!("hook-policy could not decide, so it denies (fail closed): {message}");
    Reply {
        json: deny_json(harness, &reason),
        stderr: vec![note],
        kind: "error",
        matched: Vec::new(),
        rule: None,
        logged: Vec::new(),
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
    let cwd = event
        .get("cwd")
        .and_then(Json::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|_| "/".into())
        });
    let ctx = DecideContext {
        harness: harness.name(),
        project_root: &cwd,
        home,
    };
    let d = tool_call::decide_call(source, harness, tool, args, event, false, context_name, ctx);
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
        matched: d.matched,
        rule: d.rule,
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
    let cwd = event
        .get("cwd")
        .and_then(Json::as_str)
        .unwrap_or("/")
        .to_string();
    let ctx = DecideContext {
        harness: Harness::Gemini.name(),
        project_root: &cwd,
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
                ..Reply::nothing()
            }
        }
        engine::Outcome::Failed(m) => {
            return Reply {
                stderr: vec![format!("hook-policy: gemini: {m}")],
                kind: "error",
                ..Reply::nothing()
            }
        }
    };
    if d.request.is_empty() {
        return Reply::nothing();
    }
    let mut request = Map::new();
    let mut config = Map::new();
    for (key, won) in &d.request {
        match gemini_config_key(key) {
            Some(k) => {
                config.insert(k.into(), won.value.clone());
            }
            None => {
                request.insert(key.clone(), won.value.clone());
            }
        }
    }
    if !config.is_empty() {
        request.insert("config".into(), Json::Object(config));
    }
    Reply {
        json: json!({"hookSpecificOutput": {"llm_request": request}}),
        stderr: Vec::new(),
        kind: "modify",
        matched: d.matched.clone(),
        rule: None,
        logged: d.logged.clone(),
    }
}

/// chibi's request keys (OpenAI style) and their Gemini generation-config names.
fn gemini_config_key(key: &str) -> Option<&'static str> {
    Some(match key {
        "temperature" => "temperature",
        "max_tokens" | "max_output_tokens" | "maxOutputTokens" => "maxOutputTokens",
        "top_p" | "topP" => "topP",
        "top_k" | "topK" => "topK",
        "stop" | "stop_sequences" | "stopSequences" => "stopSequences",
        _ => return None,
    })
}

/// Where a one-process-per-event agent keeps its policy cache.
pub fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("hook-policy"))
}

/// Runs one hook call of a coding agent; always exit status 0.
pub fn run(
    harness: Harness,
    policy: &[PathBuf],
    context_name: &str,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let input = super::chibi::read_bounded(stdin);
    let deadline = Watchdog::deadline_from_env();
    let watchdog = Watchdog::arm(
        deadline,
        Box::new(move |on_error, message| {
            let r = failure(harness, on_error, message);
            (format!("{}\n", r.json), r.stderr.join("\n") + "\n")
        }),
    );
    let started = std::time::Instant::now();
    let cache = cache_dir();
    let mut source = PolicySource::per_hook(policy.to_vec(), cache.as_deref());
    watchdog.set_on_error(source_on_error(&mut source));
    let home = std::env::var("HOME").ok();
    let mut reply = handle(harness, &mut source, &input, context_name, home.as_deref());
    log_call(harness, &mut source, &input, &mut reply, started);
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
    for line in &reply.stderr {
        let _ = writeln!(stderr, "{line}");
    }
    let _ = writeln!(stdout, "{}", reply.json);
    let _ = stdout.flush();
    std::mem::forget(source);
    0
}

fn log_call(
    harness: Harness,
    source: &mut PolicySource,
    input: &Result<Vec<u8>, String>,
    reply: &mut Reply,
    started: std::time::Instant,
) {
    let configured = match source.get("pre_tool") {
        Prepared::Ready(p) => p.log.clone(),
        Prepared::Broken { .. } => None,
    };
    let Some(path) = std::env::var_os(decision_log::ENV_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or(configured)
    else {
        return;
    };
    let record = decision_log::Record {
        harness: harness.name(),
        hook: "tool_call",
        decision: reply.kind,
        matched: &reply.matched,
        logged: &reply.logged,
        rule: reply.rule.as_deref(),
        reason_template: None,
        error: None,
        payload: input.as_deref().unwrap_or(&[]),
        micros: started.elapsed().as_micros(),
    };
    if let Err(e) = decision_log::append(&path, &record) {
        reply.stderr.push(format!(
            "hook-policy: cannot write the decision log {}: {e}",
            path.display()
        ));
    }
}

/// The settings entry that makes an agent call `policy hook AGENT`.
/// The context name tool-filter rules see from a coding agent unless
/// `--context` says otherwise: these agents are coding agents.
pub const DEFAULT_CONTEXT: &str = "coding";

pub fn settings_entry(harness: Harness, exe: &Path, policy: &[PathBuf]) -> Json {
    let mut command = format!(
        "{} hook {}",
        shell_quote(&exe.display().to_string()),
        harness.name()
    );
    for p in policy {
        command.push_str(" --policy ");
        command.push_str(&shell_quote(&p.display().to_string()));
    }
    let hook = json!({"type": "command", "command": command});
    match harness {
        Harness::ClaudeCode => json!({"hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [hook]}],
        }}),
        Harness::Gemini => {
            let named = json!({"type": "command", "command": command, "name": "hook-policy"});
            json!({"hooks": {
                "BeforeTool": [{"matcher": ".*", "hooks": [named.clone()]}],
                "BeforeModel": [{"hooks": [named]}],
            }})
        }
        Harness::Codex => json!({"hooks": {
            "PreToolUse": [{"hooks": [hook]}],
        }}),
        Harness::PicoClaw => unreachable!("PicoClaw is configured by `policy install picoclaw`"),
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:=@".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Whether a settings hook entry is ours (any earlier install).
fn is_ours(entry: &Json, harness: Harness) -> bool {
    let needle = format!(" hook {}", harness.name());
    entry
        .get("hooks")
        .and_then(Json::as_array)
        .is_some_and(|hs| {
            hs.iter().any(|h| {
                h.get("command")
                    .and_then(Json::as_str)
                    .is_some_and(|c| c.contains(&needle) && c.contains("--policy"))
            })
        })
}

/// Merges `entry` into the settings file, replacing earlier hook-policy
/// entries and keeping everything else. The file is written whole to a
/// temporary file and renamed; the previous version is kept as `*.bak`.
pub fn merge_settings(harness: Harness, settings: &Path, entry: &Json) -> Result<String, String> {
    let mut doc = match std::fs::read_to_string(settings) {
        Ok(text) if text.trim().is_empty() => json!({}),
        Ok(text) => serde_json::from_str::<Json>(&text).map_err(|e| {
            format!(
                "{} is not valid JSON ({e}); fix it or pass another --settings file, nothing was changed",
                settings.display()
            )
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(format!("cannot read {}: {e}", settings.display())),
    };
    let Some(root) = doc.as_object_mut() else {
        return Err(format!(
            "{} is not a JSON object; nothing was changed",
            settings.display()
        ));
    };
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(format!(
            "`hooks` in {} is not an object; nothing was changed",
            settings.display()
        ));
    };
    for (event, groups) in entry["hooks"].as_object().into_iter().flatten() {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(format!(
                "`hooks.{event}` in {} is not a list; nothing was changed",
                settings.display()
            ));
        };
        list.retain(|g| !is_ours(g, harness));
        list.extend(groups.as_array().into_iter().flatten().cloned());
    }
    if let Some(dir) = settings.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if settings.exists() {
        let bak = settings.with_extension("json.bak");
        std::fs::copy(settings, &bak)
            .map_err(|e| format!("cannot back up to {}: {e}", bak.display()))?;
    }
    let tmp = settings.with_extension("json.hook-policy.tmp");
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, settings)
        .map_err(|e| format!("cannot replace {}: {e}", settings.display()))?;
    Ok(format!(
        "merged the hook-policy entry into {} (previous version kept as .bak)",
        settings.display()
    ))
}
