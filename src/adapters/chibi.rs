//! chibi: subprocess plugins, one process per hook call.
//!
//! chibi runs `PLUGIN --schema` once at start, then the plugin once per hook
//! event with `CHIBI_HOOK=<hook>` and the payload as JSON on stdin, and once
//! per model tool call with `CHIBI_TOOL_NAME` set. A non-zero exit or a
//! non-JSON reply is ignored by chibi, which would make a broken guard fail
//! open: this adapter therefore always exits 0 with a JSON reply, and a
//! failure becomes a denial on the permission hooks (unless the policy says
//! `on_error: fail_open`).
//!
//! Installation copies the hook binary (`policy-hook` when built alongside,
//! see `hook_binary`, else `policy`) into `<home>/plugins/hook-policy/`
//! (chibi only runs files that really live there) beside a manifest naming
//! the policy; the copy finds the manifest next to itself and runs as a plugin.

use super::chibi_turn;
use super::tool_call::{self, PolicySource};
use crate::catalogue::{self, EffectKind, FailureMode, HookClass, HookPoint};
use crate::decision_log;
use crate::engine::{self, failure_mode, Outcome, Prepared};
use crate::eval::{DecideContext, Decision};
use crate::model::OnError;
use crate::watchdog::Watchdog;
use serde_json::{json, Map, Value as Json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub const HARNESS: &str = "chibi";
/// The plugin's name: chibi also offers every plugin to the model as a tool
/// of this name, so it must be a valid tool name.
pub const PLUGIN_NAME: &str = "hook_policy";
pub const PLUGIN_DIR: &str = "hook-policy";
pub const MANIFEST: &str = "hook-policy.json";

/// What `policy install chibi` writes next to the plugin binary.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    pub harness: String,
    /// Policy files or directories, absolute.
    pub policy: Vec<PathBuf>,
    /// Why the manifest could not be read, when it could not: the plugin
    /// then answers as one whose policy does not load.
    #[serde(skip)]
    pub broken: Option<String>,
}

impl Manifest {
    /// The manifest of a plugin call, if this process is one: the manifest
    /// beside the running executable, or, when chibi is plainly the caller
    /// (`--schema`, `CHIBI_HOOK` or `CHIBI_TOOL_NAME` set) and the manifest
    /// is missing or unreadable, a broken one. A plugin that cannot find its
    /// policy must still register and deny: failing its `--schema` would
    /// make chibi drop it and run every tool unguarded, and a usage error
    /// on a hook call is a non-zero exit chibi ignores.
    pub fn for_plugin_call(args: &[String]) -> Option<Manifest> {
        let path = crate::current_exe()?.parent()?.join(MANIFEST);
        let read = match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let called_by_chibi = args == ["--schema"]
                    || ["CHIBI_HOOK", "CHIBI_TOOL_NAME"]
                        .iter()
                        .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
                if !called_by_chibi {
                    return None;
                }
                Err(format!("{} is missing", path.display()))
            }
            Err(e) => Err(format!("{} cannot be read: {e}", path.display())),
            Ok(text) => match serde_json::from_str::<Manifest>(&text) {
                Ok(m) if m.harness == HARNESS && !m.policy.is_empty() => Ok(m),
                Ok(_) => Err(format!("{} does not name a chibi policy", path.display())),
                Err(e) => Err(format!("{} is damaged: {e}", path.display())),
            },
        };
        Some(read.unwrap_or_else(|why| Manifest {
            harness: HARNESS.into(),
            policy: Vec::new(),
            broken: Some(format!(
                "the plugin's manifest {why}; run `policy install chibi` again"
            )),
        }))
    }

    /// The whole policy, for `--schema` and the model's tool call.
    fn prepare_all(&self) -> Prepared {
        match self.broken() {
            Some(broken) => broken,
            None => engine::prepare(&self.policy, None),
        }
    }

    /// The policy for one hook, through the call's cache lookup.
    fn prepare_hook(&self, hook: &str, lookup: &crate::cache::Lookup) -> Prepared {
        self.broken().unwrap_or_else(|| lookup.prepare(hook))
    }

    fn broken(&self) -> Option<Prepared> {
        self.broken.as_ref().map(|message| Prepared::Broken {
            message: message.clone(),
            diagnostics: Vec::new(),
        })
    }
}

/// The reply to a hook call, and what to report on stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub json: Json,
    pub stderr: Vec<String>,
}

/// Turns an outcome into exactly what chibi expects for this hook. `{}`
/// means "no opinion": chibi has no explicit allow, and none is ever sent.
pub fn reply(
    hook: &HookPoint,
    outcome: &Outcome,
    on_error: Option<OnError>,
    payload: Option<&Json>,
) -> Reply {
    let mode = failure_mode(hook, on_error);
    match outcome {
        Outcome::Failed(message) => failure_reply(hook, mode, message),
        Outcome::Decided(decision) => {
            if let Some(errors) = decision.error_summary() {
                // A permission hook with a denial from a rule that did work
                // denies with that reason; otherwise the failure rules apply.
                let already_stops = decision.deny.is_some() || decision.block.is_some();
                if !(already_stops && mode == FailureMode::Closed) {
                    return failure_reply(
                        hook,
                        mode,
                        &format!("a rule failed at run time: {errors}"),
                    );
                }
                let mut r = decided_reply(hook, decision, payload);
                r.stderr
                    .push(format!("hook-policy: {}: {errors}", hook.name));
                return r;
            }
            decided_reply(hook, decision, payload)
        }
    }
}

fn failure_reply(hook: &HookPoint, mode: FailureMode, message: &str) -> Reply {
    let note = format!("hook-policy: {}: {message}", hook.name);
    let json = match (hook.class, mode) {
        (HookClass::Permission, FailureMode::Closed) => json!({
            "denied": true,
            "reason": format!("hook-policy could not decide, so it denies (fail closed): {message}"),
        }),
        (HookClass::ToolGate, FailureMode::Closed) => json!({
            "block": true,
            "message": format!("hook-policy could not decide, so it blocks (fail closed): {message}"),
        }),
        _ => json!({}),
    };
    Reply {
        json,
        stderr: vec![note],
    }
}

fn decided_reply(hook: &HookPoint, d: &Decision, payload: Option<&Json>) -> Reply {
    let mut out = Map::new();
    let mut stderr = Vec::new();
    match hook.class {
        HookClass::Permission => {
            if let Some(deny) = &d.deny {
                out.insert("denied".into(), Json::Bool(true));
                out.insert(
                    "reason".into(),
                    Json::String(with_rule(&deny.value, &deny.rule)),
                );
            } else if let Some(ask) = &d.ask {
                // chibi has no "ask" reply, but saying nothing hands the
                // operation to its own permission handler, which prompts the
                // user (and approves only in trust mode, where the user chose
                // not to be asked).
                stderr.push(format!(
                    "hook-policy: {}: rule `{}` asks for confirmation ({}); chibi's own permission prompt decides",
                    hook.name, ask.rule, ask.value
                ));
            }
        }
        HookClass::ToolGate => {
            if let Some(block) = &d.block {
                out.insert("block".into(), Json::Bool(true));
                out.insert(
                    "message".into(),
                    Json::String(with_rule(&block.value, &block.rule)),
                );
            } else if !d.arguments.is_empty() {
                // chibi replaces the arguments wholesale: start from the call's own.
                let mut args = payload
                    .and_then(|p| p.get("arguments"))
                    .and_then(Json::as_object)
                    .cloned()
                    .unwrap_or_default();
                for (key, won) in &d.arguments {
                    args.insert(key.clone(), won.value.clone());
                }
                out.insert("arguments".into(), Json::Object(args));
            }
        }
        HookClass::ToolFilter => {
            let offered: Vec<String> = payload
                .map(|p| {
                    crate::eval::decide::offered_tools(p)
                        .into_iter()
                        .map(|(n, _)| n.to_string())
                        .collect()
                })
                .unwrap_or_default();
            if let Some(include) = &d.include {
                let kept: Vec<String> = include
                    .iter()
                    .filter(|n| !d.exclude.contains(n))
                    .cloned()
                    .collect();
                if kept.is_empty() {
                    // Say it both ways: an empty allowlist must never read as "no filter".
                    out.insert("include".into(), json!([]));
                    out.insert("exclude".into(), json!(offered));
                } else {
                    out.insert("include".into(), json!(kept));
                }
            } else if !d.exclude.is_empty() {
                out.insert("exclude".into(), json!(d.exclude));
            }
        }
        HookClass::Fuel => {
            if let Some(delta) = d.fuel_delta {
                out.insert("fuel_delta".into(), json!(delta));
            }
            if let Some(fuel) = &d.fuel {
                out.insert("fuel".into(), json!(fuel.value));
            }
            if let Some(fallback) = &d.fallback {
                out.insert("fallback".into(), json!(fallback.value.as_str()));
            }
        }
        HookClass::RequestMerge => {
            if !d.request.is_empty() {
                let body: Map<String, Json> = d
                    .request
                    .iter()
                    .map(|(k, w)| (k.clone(), w.value.clone()))
                    .collect();
                out.insert("request_body".into(), Json::Object(body));
            }
        }
        HookClass::Observe => {}
    }
    Reply {
        json: Json::Object(out),
        stderr,
    }
}

fn with_rule(text: &str, rule: &str) -> String {
    format!("{text} [hook-policy rule: {rule}]")
}

/// Everything one plugin process needs from its environment.
pub struct Invocation {
    pub hook: Option<String>,
    pub tool: Option<String>,
    pub project_root: String,
    pub schema: bool,
}

impl Invocation {
    pub fn from_env(args: &[String]) -> Invocation {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let project_root = var("CHIBI_PROJECT_ROOT")
            .or_else(|| {
                std::env::current_dir()
                    .ok()
                    .map(|d| d.display().to_string())
            })
            .unwrap_or_else(|| "/".into());
        Invocation {
            hook: var("CHIBI_HOOK"),
            tool: var("CHIBI_TOOL_NAME"),
            project_root,
            schema: args.iter().any(|a| a == "--schema"),
        }
    }
}

/// Runs one plugin call: prints the reply on stdout, notes on stderr.
/// Always returns exit status 0 (see the module docs).
pub fn run_plugin(
    manifest: &Manifest,
    inv: &Invocation,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    if inv.schema {
        let prepared = manifest.prepare_all();
        let _ = writeln!(stdout, "{}", plugin_schema(&prepared, &manifest.policy));
        if let Prepared::Broken { message, .. } = &prepared {
            let _ = writeln!(stderr, "hook-policy: {message}");
        }
        return 0;
    }
    let input = read_bounded(stdin);
    if let Some(hook_name) = &inv.hook {
        let Some(hook) = catalogue::hook(hook_name) else {
            // Not a hook we know: no opinion (and chibi only sends what we registered).
            let _ = writeln!(
                stderr,
                "hook-policy: unknown hook `{hook_name}`; replying with no change"
            );
            let _ = writeln!(stdout, "{{}}");
            return 0;
        };
        let deadline = Watchdog::deadline_from_env();
        let watchdog = Watchdog::arm(
            deadline,
            Box::new(move |on_error, message| {
                let r = failure_reply(hook, failure_mode(hook, on_error), message);
                (format!("{}\n", r.json), r.stderr.join("\n") + "\n")
            }),
        );
        let reply = hook_call(manifest, hook, &input, &inv.project_root, Some(&watchdog));
        for line in &reply.stderr {
            let _ = writeln!(stderr, "{line}");
        }
        let _ = writeln!(stdout, "{}", reply.json);
        return 0;
    }
    // Called by the model as a tool: the arguments are the JSON on stdin.
    let _ = writeln!(stdout, "{}", tool_answer(manifest, &input));
    0
}

/// One hook call from raw stdin bytes to the reply, logged when a decision
/// log is configured. With a watchdog, the reply is claimed from it before
/// the log line is written: if the deadline answered instead, it wrote the
/// call's line, and this never returns.
pub fn hook_call(
    manifest: &Manifest,
    hook: &HookPoint,
    input: &Result<Vec<u8>, String>,
    project_root: &str,
    watchdog: Option<&Watchdog>,
) -> Reply {
    let started = std::time::Instant::now();
    let (mut reply, facts) = decide_call(manifest, hook, input, project_root, watchdog);
    if let Some(w) = watchdog {
        if !w.claim() {
            w.yield_forever();
        }
    }
    if let Some(log) = &facts.log {
        let record = decision_log::Record {
            harness: HARNESS,
            hook: hook.name,
            decision: match decision_kind(&reply.json, facts.error.is_some()) {
                "none" if !facts.logged.is_empty() => "log",
                kind => kind,
            },
            matched: &facts.matched,
            logged: &facts.logged,
            rule: facts.rule.as_deref(),
            reason_template: facts.reason_template.as_deref(),
            error: facts.error.as_deref(),
            payload: log.payload,
            micros: started.elapsed().as_micros(),
        };
        let json = record.to_json_with(&decision_log::rfc3339_now(), &log.payload_sha256);
        if let Err(e) = decision_log::append_line(&log.path, &decision_log::line(&json)) {
            reply.stderr.push(format!(
                "hook-policy: cannot write the decision log {}: {e}",
                log.path.display()
            ));
        }
    }
    reply
}

/// What the decision log needs to know beyond the reply.
#[derive(Default)]
struct CallFacts<'a> {
    log: Option<LogTarget<'a>>,
    matched: Vec<String>,
    logged: Vec<crate::eval::Logged>,
    rule: Option<String>,
    reason_template: Option<String>,
    error: Option<String>,
}

/// Where this call's log line goes, and the payload it identifies.
struct LogTarget<'a> {
    path: PathBuf,
    payload: &'a [u8],
    payload_sha256: String,
}

impl<'a> LogTarget<'a> {
    /// Sets the log up for the call, and gives the watchdog the line it
    /// writes should the deadline pass (rendered now: a signal handler
    /// cannot allocate).
    fn new(
        path: PathBuf,
        hook: &HookPoint,
        input: &'a Result<Vec<u8>, String>,
        watchdog: Option<&Watchdog>,
    ) -> LogTarget<'a> {
        let payload: &[u8] = input.as_deref().unwrap_or(&[]);
        let payload_sha256 = decision_log::digest(payload);
        if let Some(w) = watchdog {
            let time = decision_log::rfc3339_at(w.fires_at());
            w.log_to(&path, |on_error| {
                let failed = failure_reply(hook, failure_mode(hook, on_error), w.message());
                let record = decision_log::Record {
                    harness: HARNESS,
                    hook: hook.name,
                    decision: decision_kind(&failed.json, true),
                    matched: &[],
                    logged: &[],
                    rule: None,
                    reason_template: None,
                    error: Some(w.message()),
                    payload,
                    micros: w.deadline().as_micros(),
                };
                decision_log::line(&record.to_json_with(&time, &payload_sha256))
            });
        }
        LogTarget {
            path,
            payload,
            payload_sha256,
        }
    }
}

/// The log file: `HOOK_POLICY_LOG`, else the policy's `settings.log`.
fn log_path(configured: Option<&PathBuf>) -> Option<PathBuf> {
    decision_log::destination(configured.map(PathBuf::as_path))
}

fn decision_kind(reply: &Json, failed: bool) -> &'static str {
    if reply.get("denied") == Some(&Json::Bool(true)) {
        "deny"
    } else if reply.get("block") == Some(&Json::Bool(true)) {
        "block"
    } else if failed {
        "error"
    } else if reply.as_object().is_some_and(|o| !o.is_empty()) {
        "modify"
    } else {
        "none"
    }
}

fn decide_call<'a>(
    manifest: &Manifest,
    hook: &HookPoint,
    input: &'a Result<Vec<u8>, String>,
    project_root: &str,
    watchdog: Option<&Watchdog>,
) -> (Reply, CallFacts<'a>) {
    // A log named by the environment is known before the policy loads: a
    // deadline passing while it loads is logged too.
    let mut log = log_path(None).map(|path| LogTarget::new(path, hook, input, watchdog));
    // Installed plugins keep their cache beside themselves (see src/cache.rs).
    // One lookup for the call: `pre_tool` asks the tool filter too.
    let cache_dir = plugin_dir().map(|d| d.join("cache"));
    let lookup = crate::cache::Lookup::new(&manifest.policy, cache_dir.as_deref());
    let policy = match manifest.prepare_hook(hook.name, &lookup) {
        Prepared::Ready(p) => {
            if let Some(w) = watchdog {
                w.set_on_error(p.on_error);
            }
            p
        }
        Prepared::Broken { message, .. } => {
            let message = format!("the policy does not load: {message}");
            let reply = reply(hook, &Outcome::Failed(message.clone()), None, None);
            return (
                reply,
                CallFacts {
                    log,
                    error: Some(message),
                    ..CallFacts::default()
                },
            );
        }
    };
    if log.is_none() {
        log = log_path(policy.log.as_ref()).map(|path| LogTarget::new(path, hook, input, watchdog));
    }
    let mut facts = CallFacts {
        log,
        ..CallFacts::default()
    };
    let payload = match input
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|bytes| engine::parse_payload(bytes))
    {
        Ok(p) => p,
        Err(e) => {
            facts.error = Some(e.clone());
            if let (true, Some(dir)) = (hook.name == "pre_api_tools", plugin_dir()) {
                // This turn's facts are unknown: never leave the last turn's.
                chibi_turn::forget(&dir.join(TURNS_DIR));
            }
            return (
                reply(hook, &Outcome::Failed(e), policy.on_error, None),
                facts,
            );
        }
    };
    let home = crate::paths::home_dir();
    let ctx = DecideContext {
        harness: HARNESS,
        project_root,
        home: home.as_deref(),
    };
    // Without a log, only the reply is told: a final deny can stop the
    // rules that could not change it (the dangerous lines are the ones
    // many rules match).
    let outcome = if facts.log.is_none() {
        engine::run_for_reply(&policy, hook.name, &payload, ctx)
    } else {
        engine::run(&policy, hook.name, &payload, ctx)
    };
    if let Outcome::Decided(d) = &outcome {
        facts.matched = d.matched.clone();
        facts.logged = d.logged.clone();
        facts.error = d.error_summary();
        facts.rule = d.deny.as_ref().or(d.block.as_ref()).map(|w| w.rule.clone());
        facts.reason_template = facts
            .rule
            .as_ref()
            .and_then(|id| policy.find_rule(id))
            .and_then(|r| r.reason_source.clone());
    }
    let mut reply = reply(hook, &outcome, policy.on_error, Some(&payload));
    match hook.name {
        "pre_api_tools" => {
            if let Some(dir) = plugin_dir() {
                if let Err(e) = chibi_turn::remember(&dir.join(TURNS_DIR), &payload) {
                    reply.stderr.push(format!("hook-policy: {e}"));
                }
            }
        }
        "pre_tool" if reply.json.get("block").is_none() => {
            if let Some(tool) = payload.get("tool_name").and_then(Json::as_str) {
                tool_filter_gate(lookup, tool, ctx, &mut reply, &mut facts);
            }
        }
        _ => {}
    }
    // One call per process: the OS reclaims this memory faster than freeing
    // a large compiled policy and payload piece by piece would.
    std::mem::forget(policy);
    std::mem::forget(payload);
    (reply, facts)
}

/// Where the turn facts live, beside the plugin (see `chibi_turn`).
const TURNS_DIR: &str = "turns";

/// The directory the installed plugin lives in.
fn plugin_dir() -> Option<PathBuf> {
    crate::current_exe().and_then(|exe| exe.parent().map(Path::to_path_buf))
}

/// `pre_tool`'s second question, as at every harness's tool gate: would
/// the policy's `pre_api_tools` rules offer this tool in this turn? If not,
/// the model called a hidden tool by name, and the call is blocked. Asked
/// through the lookup that prepared `pre_tool` (the files are examined
/// once), and not at all when that lookup found no `pre_api_tools` rule in
/// the policy: without one nothing is hidden, nothing matches and nothing
/// fails, which is the answer already.
fn tool_filter_gate(
    lookup: crate::cache::Lookup,
    tool: &str,
    ctx: DecideContext<'_>,
    reply: &mut Reply,
    facts: &mut CallFacts<'_>,
) {
    if lookup.has_rules_on("pre_api_tools") == Some(false) {
        return;
    }
    let dir = plugin_dir();
    let turn = dir
        .as_deref()
        .and_then(|d| chibi_turn::recall(&d.join(TURNS_DIR)));
    let mut source = PolicySource::through(lookup);
    // Types as chibi gives them: built-in tools by the catalogue, the rest
    // are plugins (hook-policy's own tool among them).
    let tool_type = catalogue::CHIBI_TOOLS
        .iter()
        .find(|(name, _)| *name == tool)
        .map_or("plugin", |(_, ty)| *ty);
    let recorded = turn.is_some();
    let gate = tool_call::offered(
        &mut source,
        &[(tool.to_string(), tool_type)],
        turn.unwrap_or_default(),
        ctx,
    );
    facts.matched.extend(gate.matched);
    if let Some(note) = gate.note {
        let why = if recorded {
            ""
        } else {
            " (no pre_api_tools call recorded this turn's context)"
        };
        reply.stderr.push(format!(
            "hook-policy: pre_tool asked the tool filter: {note}{why}"
        ));
    }
    if let Some((message, rule)) = gate.refused {
        reply.json = json!({"block": true, "message": message});
        facts.reason_template = None;
        facts.rule = rule;
    }
    std::mem::forget(source);
}

/// Reads all of stdin (chibi writes the whole payload before timing us, and
/// an unread pipe could block it), keeping at most the payload limit.
pub fn read_bounded(stdin: &mut dyn Read) -> Result<Vec<u8>, String> {
    let mut kept = Vec::new();
    let limit = engine::MAX_PAYLOAD_BYTES as u64 + 1;
    stdin
        .take(limit)
        .read_to_end(&mut kept)
        .map_err(|e| format!("cannot read the payload: {e}"))?;
    if kept.len() as u64 == limit {
        // Drain the rest so the writer is not left blocked, then refuse.
        let drained = std::io::copy(stdin, &mut std::io::sink()).unwrap_or(0);
        return Err(format!(
            "payload is {} bytes or more; the limit is {}",
            kept.len() as u64 + drained,
            engine::MAX_PAYLOAD_BYTES
        ));
    }
    Ok(kept)
}

/// The `--schema` answer: name, description, and exactly the hooks the
/// policy needs. A broken policy still registers the permission hooks and
/// `pre_tool`, so that failing closed actually happens.
pub fn plugin_schema(prepared: &Prepared, paths: &[PathBuf]) -> Json {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let (hooks, description) = match prepared {
        Prepared::Ready(policy) => {
            let n = policy.rules.len();
            (
                // Only chibi's own hook points; other harnesses' native
                // events never fire here.
                with_tool_gate(
                    policy
                        .hooks()
                        .into_iter()
                        .filter(|h| catalogue::hook(h).is_some_and(|hp| hp.harness.is_none()))
                        .collect(),
                ),
                format!(
                    "Guardrail policy ({n} rule{}, from {}). Call this tool to list the active rules.",
                    if n == 1 { "" } else { "s" },
                    shown.join(", ")
                ),
            )
        }
        Prepared::Broken { message, .. } => (
            catalogue::HOOKS
                .iter()
                .filter(|h| h.harness.is_none())
                .filter(|h| matches!(h.class, HookClass::Permission | HookClass::ToolGate))
                .map(|h| h.name)
                .collect(),
            format!("Guardrail policy FAILED TO LOAD, denying guarded operations: {message}"),
        ),
    };
    json!({
        "name": PLUGIN_NAME,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {
                "hook": { "type": "string", "description": "Only list the rules of this hook point (for example pre_shell_exec)." }
            },
            "additionalProperties": false
        },
        "hooks": hooks,
    })
}

/// A tool filter needs `pre_tool` too: there, a hidden tool the model calls
/// by name is blocked (see `tool_filter_gate`).
fn with_tool_gate(mut hooks: Vec<&'static str>) -> Vec<&'static str> {
    if hooks.contains(&"pre_api_tools") && !hooks.contains(&"pre_tool") {
        hooks.push("pre_tool");
        hooks.sort_by_key(|h| catalogue::HOOKS.iter().position(|hp| hp.name == *h));
    }
    hooks
}

/// What the model gets when it calls the plugin as a tool: the active
/// rules, or only those of the hook named by the `hook` argument. The
/// answer is read by the model, so bad arguments get a sentence saying
/// what to send instead, never an empty or partial list.
pub fn tool_answer(manifest: &Manifest, input: &Result<Vec<u8>, String>) -> String {
    let only = match tool_hook_argument(input) {
        Ok(only) => only,
        Err(message) => return format!("hook-policy: {message}"),
    };
    let policy = match manifest.prepare_all() {
        Prepared::Broken { message, .. } => {
            return format!("The guardrail policy failed to load: {message}")
        }
        Prepared::Ready(policy) => policy,
    };
    let rules: Vec<_> = policy
        .rules
        .iter()
        .filter(|r| only.is_none_or(|h| r.hooks.contains(&h)))
        .collect();
    let mut out = match only {
        Some(h) if rules.is_empty() => {
            return format!("No active guardrail rules (hook-policy) on hook `{h}`.")
        }
        Some(h) => format!("Active guardrail rules (hook-policy) on hook `{h}`:\n"),
        None => String::from("Active guardrail rules (hook-policy):\n"),
    };
    for rule in rules {
        let effects: Vec<&str> = EffectKind::ALL
            .iter()
            .filter(|e| effect_present(&rule.effects, **e))
            .map(|e| e.key())
            .collect();
        out.push_str(&format!(
            "- {} [{}; {}]",
            rule.id,
            rule.hooks.join(", "),
            effects.join(", ")
        ));
        if let Some(d) = &rule.description {
            out.push_str(": ");
            out.push_str(d);
        }
        out.push('\n');
    }
    out
}

/// The `hook` argument of a tool call: `None` for all hooks (no arguments,
/// `{}`, or `"hook": null`), else a catalogued hook name.
fn tool_hook_argument(input: &Result<Vec<u8>, String>) -> Result<Option<&'static str>, String> {
    const USAGE: &str =
        r#"send {} for every rule, or {"hook": "pre_shell_exec"} for the rules of one hook"#;
    let bytes = input
        .as_ref()
        .map_err(|e| format!("cannot read the tool arguments ({e}); {USAGE}"))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let args: Json = serde_json::from_slice(bytes)
        .map_err(|e| format!("the tool arguments are not valid JSON ({e}); {USAGE}"))?;
    let Json::Object(args) = args else {
        return Err(format!("the tool arguments must be a JSON object; {USAGE}"));
    };
    if let Some(other) = args.keys().find(|k| *k != "hook") {
        return Err(format!(
            "unknown argument `{other}`: the only argument is `hook`; {USAGE}"
        ));
    }
    let name = match args.get("hook") {
        None | Some(Json::Null) => return Ok(None),
        Some(Json::String(name)) => name,
        Some(other) => {
            return Err(format!(
                "`hook` must be a hook name (a string), not {other}; {USAGE}"
            ))
        }
    };
    match catalogue::hook(name) {
        Some(hook) => Ok(Some(hook.name)),
        None => {
            let hint = crate::diagnostic::did_you_mean(name, catalogue::hook_names())
                .map(|h| format!(" Did you mean `{h}`?"))
                .unwrap_or_default();
            let known: Vec<&str> = catalogue::HOOKS
                .iter()
                .filter(|h| h.harness.is_none())
                .map(|h| h.name)
                .collect();
            Err(format!(
                "unknown hook `{name}`.{hint} {USAGE}; chibi's hooks: {}",
                known.join(", ")
            ))
        }
    }
}

fn effect_present(fx: &crate::compile::Effects, e: EffectKind) -> bool {
    match e {
        EffectKind::Deny => fx.deny.is_some(),
        EffectKind::Ask => fx.ask.is_some(),
        EffectKind::Block => fx.block.is_some(),
        EffectKind::Arguments => fx.arguments.is_some(),
        EffectKind::Tools => fx.tools.is_some(),
        EffectKind::FuelDelta => fx.fuel_delta.is_some(),
        EffectKind::Fuel => fx.fuel.is_some(),
        EffectKind::Fallback => fx.fallback.is_some(),
        EffectKind::Request => fx.request.is_some(),
    }
}

/// Installs the running binary as a chibi plugin using `policy`.
/// Returns a description of what was done.
pub fn install(home: &Path, policy: &[PathBuf]) -> Result<String, String> {
    let mut absolute = Vec::new();
    for p in policy {
        let abs = std::fs::canonicalize(p)
            .map_err(|e| format!("cannot find policy {}: {e}", p.display()))?;
        absolute.push(abs);
    }
    // Refuse to install a policy that does not load: chibi would deny everything.
    if let Prepared::Broken { message, .. } = engine::prepare(&absolute, None) {
        return Err(format!(
            "the policy does not load, fix it first ({}): {message}",
            engine::CHECK_COMMAND
        ));
    }
    let dir = home.join("plugins").join(PLUGIN_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // `policy-hook` when it was built with this binary (see hook_binary).
    let source = super::hook_binary::Source::find()?;
    let exe = &source.path;
    let target = dir.join(PLUGIN_DIR);
    // Write beside, then rename: a chibi starting meanwhile never sees half a binary.
    let tmp = dir.join(format!(".{PLUGIN_DIR}.tmp"));
    std::fs::copy(exe, &tmp)
        .map_err(|e| format!("cannot copy {} to {}: {e}", exe.display(), tmp.display()))?;
    set_executable(&tmp)?;
    std::fs::rename(&tmp, &target)
        .map_err(|e| format!("cannot move the plugin into place: {e}"))?;
    let manifest = Manifest {
        harness: HARNESS.into(),
        policy: absolute.clone(),
        broken: None,
    };
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    // Beside, then renamed, as the binary: a half-written manifest would
    // make calls meanwhile deny as a damaged one.
    let tmp = dir.join(format!(".{MANIFEST}.tmp"));
    std::fs::write(&tmp, text + "\n")
        .and_then(|()| std::fs::rename(&tmp, dir.join(MANIFEST)))
        .map_err(|e| format!("cannot write the manifest: {e}"))?;
    let shown: Vec<String> = absolute.iter().map(|p| p.display().to_string()).collect();
    Ok(format!(
        "installed {} ({})\n  policy: {}\nchibi loads it at its next start; edits to the policy take effect on the next hook call.",
        target.display(),
        source.describe(),
        shown.join(", ")
    ))
}

#[cfg(unix)]
fn set_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make the plugin executable: {e}"))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> Result<(), String> {
    Ok(())
}
