//! PicoClaw: one long-running process, JSON-RPC 2.0 over stdio.
//!
//! `policy serve picoclaw --policy PATH` answers PicoClaw's hook requests,
//! one JSON message per line each way:
//!
//! | method              | canonical question                         | reply |
//! |---------------------|--------------------------------------------|-------|
//! | `hook.hello`        | —                                          | `{ok: true, name}` |
//! | `hook.before_llm`   | `pre_api_request` (request merges)         | `modify` with the request, its `options` merged; else `continue` |
//! | `hook.before_tool`  | the tool call ([`tool_call::decide_call`]) | `deny_tool` with the reason, `modify` with rewritten arguments, else `continue` |
//! | `hook.approve_tool` | the tool call, native `picoclaw.approve_tool` | `approved: false` with the reason, else `approved: true` |
//! | `hook.after_llm`, `hook.after_tool` | —                          | `continue` |
//! | `hook.runtime_event`, `hook.event` (notifications) | —           | none |
//!
//! PicoClaw reverts tool-definition changes made in before_llm, so tool
//! filtering (`pre_api_tools`) is enforced when a hidden tool is called.
//!
//! Requests are decided side by side by a small pool of workers, each by
//! a deadline below PicoClaw's interceptor timeout (`HOOK_POLICY_DEADLINE_MS`,
//! 3 s by default); a request still undecided then gets its hook's failure
//! reply ([`pool`]). Replies carry the request's id, and PicoClaw matches
//! them by id, so they may leave in any order.
//!
//! Faults never stop the server: a line that is not JSON gets a parse error
//! (-32700), a message that is not a request an invalid-request error
//! (-32600), an unknown method method-not-found (-32601). A hook call is
//! never answered with an error, which PicoClaw takes as "skip this hook"
//! (for before_tool: run the tool): an unknown `hook.*` method, or a line
//! that is not JSON but whose id and `hook.*` method can be read, gets the
//! reply every hook method takes as a refusal or as nothing. A line longer than
//! we read (32 MiB) is consumed and answered, to the id at its head, with
//! the failure reply of its method; a reply longer than PicoClaw reads
//! (1 MiB) is cut or replaced by that failure reply ([`framing`]). A tool
//! call the policy cannot decide is denied (PicoClaw skips an interceptor
//! that errors or times out, which would fail open, so we answer instead).
//!
//! The project root is PicoClaw's workspace ([`workspace`]), never the
//! process's working directory. Each decision is written to the decision
//! log when `HOOK_POLICY_LOG` or the policy's `settings.log` names one.
//!
//! The policy files are polled for changes: a valid edit is compiled and
//! swapped in between two requests; an invalid one is reported on stderr and
//! the last good policy stays in force.

mod framing;
mod output;
mod pool;
pub mod workspace;

use super::tool_call::{self, Harness, PolicySource, Verdict};
use crate::catalogue::FailureMode;
use crate::decision_log;
use crate::diagnostic::Diagnostic;
use crate::engine::{self, Prepared};
use crate::eval::DecideContext;
use crate::model::OnError;
use crate::watchdog::{self, Watchdog};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value as Json};
use std::borrow::Cow;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// How often policy files are looked at; `HOOK_POLICY_WATCH_MS` overrides.
pub const WATCH_ENV: &str = "HOOK_POLICY_WATCH_MS";
const DEFAULT_WATCH: Duration = Duration::from_millis(500);

/// The policy in force, swapped whole when the files change. Every request
/// reads it, from several workers at once; only a reload writes it.
pub struct LivePolicy {
    current: RwLock<Arc<Prepared>>,
}

impl LivePolicy {
    pub fn new(prepared: Prepared) -> LivePolicy {
        LivePolicy {
            current: RwLock::new(Arc::new(prepared)),
        }
    }

    pub fn get(&self) -> Arc<Prepared> {
        self.current
            .read()
            .map(|g| g.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    fn set(&self, prepared: Prepared) {
        match self.current.write() {
            Ok(mut g) => *g = Arc::new(prepared),
            Err(p) => *p.into_inner() = Arc::new(prepared),
        }
    }
}

/// What identifies the policy files' content, cheaply.
pub fn fingerprint(paths: &[PathBuf]) -> Vec<(PathBuf, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let files = crate::load::discover(paths).unwrap_or_default();
    files
        .into_iter()
        .map(|f| {
            let m = std::fs::metadata(&f).ok();
            let (size, mtime, ino) = m.map_or((0, 0, 0), |m| {
                (
                    m.size(),
                    m.mtime_nsec() + m.mtime() * 1_000_000_000,
                    m.ino() as i64,
                )
            });
            (f, size, mtime, ino)
        })
        .collect()
}

/// Watches the policy files and swaps in each valid edit. `seen` is
/// [`fingerprint`] taken *before* `live` was loaded: an edit made while it
/// loaded is then still a change (taken after, it would never be picked up).
pub fn watch(paths: Vec<PathBuf>, live: Arc<LivePolicy>, seen: Vec<(PathBuf, u64, i64, i64)>) {
    let every = std::env::var(WATCH_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_WATCH, Duration::from_millis);
    let _ = std::thread::Builder::new()
        .name("hook-policy-watch".into())
        .spawn(move || {
            let mut seen = seen;
            loop {
                std::thread::sleep(every);
                let now = fingerprint(&paths);
                if now == seen {
                    continue;
                }
                seen = now;
                match engine::prepare(&paths, None) {
                    ready @ Prepared::Ready(_) => {
                        live.set(ready);
                        eprintln!("hook-policy: picoclaw: policy reloaded");
                    }
                    Prepared::Broken { message, diagnostics } => {
                        eprintln!("hook-policy: picoclaw: the edited policy does not load; keeping the last good one: {message}");
                        for d in diagnostics.iter().filter(|d| d.is_error()) {
                            eprintln!("  {}", describe(d));
                        }
                    }
                }
            }
        });
}

fn describe(d: &Diagnostic) -> String {
    match d.location() {
        Some((file, Some((line, col)))) => format!("{file}:{line}:{col}: {}", d.message),
        Some((file, None)) => format!("{file}: {}", d.message),
        None => d.message.clone(),
    }
}

fn error(id: Json, code: i64, message: &str) -> Json {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn result(id: Json, result: Json) -> Json {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Per-server settings.
pub struct ServeContext {
    /// PicoClaw's workspace (see [`workspace`]).
    pub project_root: String,
    pub home: Option<String>,
    /// The context `pre_api_tools`/`pre_api_request` rules see; without it,
    /// the request's `meta.AgentID`, else `default`.
    pub context_name: Option<String>,
}

impl ServeContext {
    fn decide_context(&self) -> DecideContext<'_> {
        DecideContext {
            harness: Harness::PicoClaw.name(),
            project_root: &self.project_root,
            home: self.home.as_deref(),
        }
    }

    fn context_of<'a>(&'a self, params: &'a Json) -> &'a str {
        self.context_name
            .as_deref()
            .or_else(|| {
                params
                    .get("meta")
                    .and_then(|m| m.get("AgentID"))
                    .and_then(Json::as_str)
            })
            .filter(|s| !s.is_empty())
            .unwrap_or("default")
    }
}

/// A request a policy decides: `hook.before_tool`, `hook.approve_tool` or
/// `hook.before_llm`.
pub struct Request {
    /// The id as it came (the JSON text of a number or a string), echoed
    /// back verbatim.
    id: Box<RawValue>,
    method: Decided,
    params: Json,
    /// The line as read, kept only while a decision log is written.
    line: Option<Vec<u8>>,
    received: Instant,
}

#[derive(Clone, Copy, PartialEq)]
enum Decided {
    BeforeTool,
    ApproveTool,
    BeforeLlm,
}

impl Decided {
    fn of(method: &str) -> Option<Decided> {
        match method {
            "hook.before_tool" => Some(Decided::BeforeTool),
            "hook.approve_tool" => Some(Decided::ApproveTool),
            "hook.before_llm" => Some(Decided::BeforeLlm),
            _ => None,
        }
    }

    /// The name in the decision log.
    fn log_name(self) -> &'static str {
        match self {
            Decided::BeforeTool => "before_tool",
            Decided::ApproveTool => "approve_tool",
            Decided::BeforeLlm => "before_llm",
        }
    }
}

/// What a request was answered, and what the decision log says of it.
pub struct Answer {
    line: Vec<u8>,
    log: Option<Logged>,
}

struct Logged {
    hook: &'static str,
    kind: &'static str,
    matched: Vec<String>,
    logged: Vec<crate::eval::Logged>,
    rule: Option<String>,
    error: Option<String>,
    payload: Vec<u8>,
    micros: u128,
}

/// The result of one decision, before it becomes a reply.
struct Outcome {
    answer: Json,
    matched: Vec<String>,
    rule: Option<String>,
    error: Option<String>,
    /// Log-only rules that matched: what they would have done.
    logged: Vec<crate::eval::Logged>,
}

impl Outcome {
    fn quiet(answer: Json) -> Outcome {
        Outcome {
            answer,
            matched: Vec::new(),
            rule: None,
            error: None,
            logged: Vec::new(),
        }
    }
}

/// The decision log's word for an answer, as the other adapters log it:
/// what PicoClaw is told (`deny`, `modify`), else `error` when the decision
/// failed, else `none`.
fn decision_kind(answer: &Json, failed: bool) -> &'static str {
    if answer["action"] == "deny_tool" || answer["approved"] == false {
        "deny"
    } else if answer["action"] == "modify" {
        "modify"
    } else if failed {
        "error"
    } else {
        "none"
    }
}

/// The reply a method gets when it cannot be decided (a deadline passed, a
/// line too long to read, a reply too long for PicoClaw to read): the
/// failure mode of its hook. Tool calls are guarded by permission and
/// tool-gate hooks, which deny unless the policy says `on_error: fail_open`;
/// LLM requests change nothing. For a method we could not read, one reply
/// that every PicoClaw method takes as a refusal or as nothing: `deny_tool`
/// with `approved: false` (before_llm and the after_ hooks log the action as
/// unsupported and go on unchanged; approve_tool reads only `approved`).
fn failure_answer(method: Option<Decided>, on_error: Option<OnError>, why: &str) -> Json {
    let gate = crate::catalogue::hook("pre_tool").expect("catalogued");
    let closed = engine::failure_mode(gate, on_error) == FailureMode::Closed;
    let reason = format!("hook-policy could not decide, so it denies (fail closed): {why}");
    match (method, closed) {
        (Some(Decided::BeforeTool), true) => json!({"action": "deny_tool", "reason": reason}),
        (Some(Decided::ApproveTool), true) => json!({"approved": false, "reason": reason}),
        (Some(Decided::ApproveTool), false) => json!({"approved": true}),
        (Some(_), _) => json!({"action": "continue"}),
        (None, _) => json!({"action": "deny_tool", "approved": false, "reason": reason}),
    }
}

/// The failure reply to one request line, to the id and method at its head
/// (what `policy eval --harness picoclaw` prints past its deadline); `None`
/// when the line names no id.
pub fn failure_reply_to(line: &[u8], on_error: Option<OnError>, why: &str) -> Option<Json> {
    let h = framing::scan_head(line);
    let method = h.method.as_deref().and_then(Decided::of);
    h.id.filter(|id| !id.is_null())
        .map(|id| result(id, failure_answer(method, on_error, why)))
}

fn on_error_of(live: &LivePolicy) -> Option<OnError> {
    match &*live.get() {
        Prepared::Ready(p) => p.on_error,
        Prepared::Broken { .. } => None,
    }
}

/// The decision log in force: `HOOK_POLICY_LOG`, else the policy's
/// `settings.log` (which a reload may change). The environment is read once:
/// it is asked on every line.
fn log_path(live: &LivePolicy) -> Option<PathBuf> {
    static FROM_ENV: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FROM_ENV
        .get_or_init(decision_log::from_env)
        .clone()
        .or_else(|| match &*live.get() {
            Prepared::Ready(p) => p.log.clone(),
            Prepared::Broken { .. } => None,
        })
}

/// The decisions of one server, shared by its workers.
struct Decider {
    live: Arc<LivePolicy>,
    sc: ServeContext,
    out: output::Output,
}

impl Decider {
    fn decide_now(&self, req: &Request) -> Outcome {
        match req.method {
            Decided::BeforeLlm => before_llm(&self.live, &req.params, &self.sc),
            Decided::BeforeTool | Decided::ApproveTool => tool(
                &self.live,
                &req.params,
                req.method == Decided::ApproveTool,
                &self.sc,
            ),
        }
    }

    /// An outcome as a reply line PicoClaw can read, with its log entry.
    fn answer(&self, req: &Request, outcome: Outcome) -> Answer {
        let mut error = outcome.error;
        let mut kind = decision_kind(&outcome.answer, error.is_some());
        if kind == "none" && !outcome.logged.is_empty() {
            // Only log-only rules had something to say.
            kind = "log";
        }
        let line = framing::fit_result(&req.id, &outcome.answer, |why| {
            eprintln!("hook-policy: picoclaw: {}: {why}", req.method.log_name());
            let fallback = failure_answer(Some(req.method), on_error_of(&self.live), why);
            error = Some(why.to_string());
            kind = decision_kind(&fallback, true);
            fallback
        });
        let log = req.line.as_ref().map(|payload| Logged {
            hook: req.method.log_name(),
            kind,
            matched: outcome.matched,
            logged: outcome.logged,
            rule: outcome.rule,
            error,
            payload: payload.clone(),
            micros: req.received.elapsed().as_micros(),
        });
        Answer { line, log }
    }
}

impl Decider {
    /// A line's answer: what it is told at once (protocol business,
    /// faults), or its decision. `expired` answers a request past its
    /// deadline instead of deciding it; a line that is not a request to
    /// decide gets the same answer either way.
    fn answer_line(&self, incoming: &Incoming, expired: Option<Duration>) -> Answer {
        let keep = log_path(&self.live).is_some();
        match dispatch(&incoming.line, keep, &self.live) {
            Dispatch::Now(reply) => Answer {
                line: reply.map_or_else(Vec::new, |reply| {
                    framing::fit(&reply, |why| {
                        failure_answer(None, on_error_of(&self.live), why)
                    })
                }),
                log: None,
            },
            Dispatch::Decide(mut req) => {
                req.received = incoming.received;
                let outcome = match expired {
                    None => self.decide_now(&req),
                    Some(deadline) => self.past_deadline(&req, deadline),
                };
                self.answer(&req, outcome)
            }
        }
    }

    fn past_deadline(&self, req: &Request, deadline: Duration) -> Outcome {
        let why = format!(
            "the decision took longer than {} ms (limit exceeded; {} sets it)",
            deadline.as_millis(),
            watchdog::ENV_VAR
        );
        eprintln!("hook-policy: picoclaw: {}: {why}", req.method.log_name());
        let on_error = on_error_of(&self.live);
        let answer = failure_answer(Some(req.method), on_error, &why);
        Outcome {
            answer,
            matched: Vec::new(),
            rule: None,
            error: Some(why),
            logged: Vec::new(),
        }
    }
}

impl pool::Server<Incoming, Answer> for Decider {
    fn decide(&self, incoming: &Incoming) -> Answer {
        self.answer_line(incoming, None)
    }

    fn expired(&self, incoming: &Incoming, deadline: Duration) -> Answer {
        self.answer_line(incoming, Some(deadline))
    }

    /// Logs, then replies: a decision PicoClaw heard of is in the log, and
    /// log lines follow the order of the replies. A line answered with
    /// nothing (a notification) writes nothing.
    fn send(&self, answer: Answer) {
        if let (Some(l), Some(path)) = (answer.log, log_path(&self.live)) {
            let record = decision_log::Record {
                harness: Harness::PicoClaw.name(),
                hook: l.hook,
                decision: l.kind,
                matched: &l.matched,
                logged: &l.logged,
                rule: l.rule.as_deref(),
                reason_template: None,
                error: l.error.as_deref(),
                payload: &l.payload,
                micros: l.micros,
            };
            if let Err(e) = decision_log::append(&path, &record) {
                eprintln!(
                    "hook-policy: picoclaw: cannot write the decision log {}: {e}",
                    path.display()
                );
            }
        }
        if !answer.line.is_empty() {
            self.out.write(&answer.line);
        }
    }
}

/// What the reader does with one line.
enum Dispatch {
    /// Answer at once (or say nothing, for `None`).
    Now(Option<Json>),
    /// Give it to the pool.
    Decide(Request),
}

/// The fields of a request that the server reads, in one pass over the
/// line, without the message's own tree: the id kept as its text, the
/// method borrowed, only `params` built (the rules need it). Other fields
/// are skipped.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    /// Present (`null` included, as the tree reads it), or absent.
    #[serde(default, deserialize_with = "present")]
    params: Option<Json>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Json>, D::Error> {
    Json::deserialize(d).map(Some)
}

/// Sorts one line: protocol business is answered at once, decisions go to
/// the pool. `keep_line` keeps the raw line for the decision log.
fn dispatch(line: &[u8], keep_line: bool, live: &LivePolicy) -> Dispatch {
    match decided_request(line, keep_line) {
        Some(req) => Dispatch::Decide(req),
        None => dispatch_tree(line, keep_line, live),
    }
}

/// A line as the reader hands it to the pool: read, not yet parsed. The
/// worker that takes it parses it ([`dispatch`]), so every allocation of
/// the request's tree is made and freed on one thread (the allocator's
/// per-thread cache serves them; a tree built by the reader and dropped by
/// a worker took its slow, locked path for each node), and the parsing of
/// several lines proceeds side by side instead of one after another on the
/// reader.
pub struct Incoming {
    line: Box<[u8]>,
    received: Instant,
}

/// The common case, read cheaply: a whole, valid request object with a
/// number or string id and a method a policy decides. Anything else
/// (notifications, other methods, faults of every kind, a key given twice)
/// is `None` and goes through [`dispatch_tree`], which reads the message as
/// a tree and answers it as it always has.
fn decided_request(line: &[u8], keep_line: bool) -> Option<Request> {
    // Validated as a whole first, as the tree would be: serde skips the
    // fields it does not keep without checking their UTF-8.
    let text = std::str::from_utf8(line).ok()?;
    if text.trim_start().as_bytes().first() != Some(&b'{') {
        return None; // a struct would also be read from an array
    }
    let env: Envelope = serde_json::from_str(text).ok()?;
    let id = env.id?;
    if !matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')) {
        return None;
    }
    let method = Decided::of(&env.method?)?;
    let mut params = env.params.unwrap_or_else(|| Json::Object(Map::new()));
    if method != Decided::BeforeLlm {
        normalise_arguments(&mut params);
    }
    Some(Request {
        id: id.to_owned(),
        method,
        params,
        line: keep_line.then(|| line.to_vec()),
        received: Instant::now(),
    })
}

/// Sorts a line that is not a plain decided request (see
/// [`decided_request`]) by reading it as a tree.
fn dispatch_tree(line: &[u8], keep_line: bool, live: &LivePolicy) -> Dispatch {
    let msg: Json = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            // A hook call whose id and method can still be read gets its
            // failure reply: an error (or no reply PicoClaw can match)
            // would make it skip us, and a skipped before_tool runs.
            let h = framing::scan_head(line);
            if let (Some(id), Some(method)) = (&h.id, &h.method) {
                if !id.is_null() && method.starts_with("hook.") {
                    let why = format!("the request is not valid JSON: {e}");
                    eprintln!("hook-policy: picoclaw: {method}: {why}");
                    let answer = failure_answer(Decided::of(method), on_error_of(live), &why);
                    return Dispatch::Now(Some(result(id.clone(), answer)));
                }
            }
            return Dispatch::Now(Some(error(
                Json::Null,
                -32700,
                &format!("parse error: {e}"),
            )));
        }
    };
    let Json::Object(mut obj) = msg else {
        return Dispatch::Now(Some(error(
            Json::Null,
            -32600,
            "invalid request: not a JSON object",
        )));
    };
    let id = obj.get("id").cloned().unwrap_or(Json::Null);
    let Some(method) = obj.get("method").and_then(Json::as_str).map(str::to_string) else {
        if obj.contains_key("result") || obj.contains_key("error") {
            return Dispatch::Now(None); // a response to nothing we asked: drop it
        }
        return Dispatch::Now(Some(error(id, -32600, "invalid request: no method")));
    };
    // A request without an id is a notification. (PicoClaw's events may
    // carry id 0; they are recognised by method. A request with id 0 is
    // still answered: silence would make PicoClaw skip us, failing open.)
    let notification = id.is_null();
    if !(id.is_null() || id.is_string() || id.is_number()) {
        return Dispatch::Now(Some(error(Json::Null, -32600, "invalid request: bad id")));
    }
    let answer = match method.as_str() {
        "hook.hello" => json!({"ok": true, "name": "hook-policy"}),
        "hook.runtime_event" | "hook.event" => return Dispatch::Now(None),
        "hook.after_llm" | "hook.after_tool" => json!({"action": "continue"}),
        m => match Decided::of(m) {
            Some(_) if notification => return Dispatch::Now(None),
            Some(decided) => {
                let mut params = obj.remove("params").unwrap_or_else(|| json!({}));
                if decided != Decided::BeforeLlm {
                    normalise_arguments(&mut params);
                }
                // The id as JSON text, as the fast path keeps it (a number
                // or a string always has one; failing that, the failure
                // reply, never an error PicoClaw would skip us for).
                let Ok(raw_id) = serde_json::value::to_raw_value(&id) else {
                    let answer =
                        failure_answer(Some(decided), on_error_of(live), "the id cannot be echoed");
                    return Dispatch::Now(Some(result(id, answer)));
                };
                return Dispatch::Decide(Request {
                    id: raw_id,
                    method: decided,
                    params,
                    line: keep_line.then(|| line.to_vec()),
                    received: Instant::now(),
                });
            }
            None if notification => return Dispatch::Now(None),
            // A hook method we do not know (a renamed or newer hook point):
            // PicoClaw skips an interceptor that answers with an error, and a
            // skipped tool hook lets the tool run, so it gets the reply every
            // hook method takes as a refusal or as nothing.
            None if method.starts_with("hook.") => {
                let why = format!(
                    "unknown hook method `{}`",
                    method.chars().take(64).collect::<String>()
                );
                eprintln!("hook-policy: picoclaw: {why}");
                failure_answer(None, on_error_of(live), &why)
            }
            None => {
                return Dispatch::Now(Some(error(
                    id,
                    -32601,
                    &format!("method not found: {method}"),
                )))
            }
        },
    };
    if notification && method != "hook.hello" {
        return Dispatch::Now(None);
    }
    Dispatch::Now(Some(result(id, answer)))
}

/// Go omits an empty `arguments` map (`omitempty` on `ToolCallHookRequest`
/// and `ToolApprovalRequest` in pkg/agent/hooks.go), so a call without
/// arguments has no `arguments` key; rules see `{}` instead, as they would
/// for the same call from any other harness.
fn normalise_arguments(params: &mut Json) {
    if let Some(obj) = params.as_object_mut() {
        match obj.get("arguments") {
            None | Some(Json::Null) => {
                obj.insert("arguments".into(), Json::Object(Map::new()));
            }
            Some(_) => {}
        }
    }
}

/// Decides one line on the calling thread: what a worker would answer, or
/// the immediate reply; `None` when nothing is said. (The server proper
/// decides concurrently; this is its single-request form, which the fuzz
/// target `jsonrpc_line` drives.)
pub fn handle_line(live: &LivePolicy, line: &[u8], sc: &ServeContext) -> Option<Json> {
    match dispatch(line, false, live) {
        Dispatch::Now(reply) => reply,
        Dispatch::Decide(req) => {
            let outcome = match req.method {
                Decided::BeforeLlm => before_llm(live, &req.params, sc),
                m => tool(live, &req.params, m == Decided::ApproveTool, sc),
            };
            let id = serde_json::from_str(req.id.get()).unwrap_or(Json::Null);
            Some(result(id, outcome.answer))
        }
    }
}

fn tool(live: &LivePolicy, params: &Json, approval: bool, sc: &ServeContext) -> Outcome {
    let deny = |reason: String| {
        if approval {
            json!({"approved": false, "reason": reason})
        } else {
            json!({"action": "deny_tool", "reason": reason})
        }
    };
    let name = params.get("tool").and_then(Json::as_str).unwrap_or("");
    let empty = Json::Object(Map::new());
    let args = params.get("arguments").unwrap_or(&empty);
    if name.is_empty() || !args.is_object() {
        let why = "the request has no tool name or no arguments object";
        return Outcome {
            answer: deny(format!(
                "hook-policy could not decide, so it denies (fail closed): {why}"
            )),
            matched: Vec::new(),
            rule: None,
            error: Some(why.into()),
            logged: Vec::new(),
        };
    }
    let mut source = PolicySource::compiled(live.get());
    let context = sc.context_of(params);
    let d = tool_call::decide_call(
        &mut source,
        &tool_call::ToolCall {
            harness: Harness::PicoClaw,
            tool: name,
            arguments: args,
            native_payload: params,
            approval,
            context_name: context,
        },
        sc.decide_context(),
    );
    for n in &d.notes {
        eprintln!("hook-policy: picoclaw: {n}");
    }
    let error = d.failed.then(|| d.notes.join("; "));
    let answer = match (d.verdict, approval) {
        (Verdict::Deny(reason) | Verdict::Ask(reason), _) => deny(reason),
        (Verdict::Rewrite(args), false) => {
            json!({"action": "modify", "call": {"tool": name, "arguments": args}})
        }
        // An approver answers yes or no; with nothing against the call, yes.
        (_, true) => json!({"approved": true}),
        (_, false) => json!({"action": "continue"}),
    };
    Outcome {
        answer,
        matched: d.matched,
        rule: d.rule,
        error,
        logged: d.logged,
    }
}

/// before_llm: `request` rules merge into the request's `options` (the
/// model name goes to `model`); messages and tools pass through unchanged.
fn before_llm(live: &LivePolicy, params: &Json, sc: &ServeContext) -> Outcome {
    let continue_ = || Outcome::quiet(json!({"action": "continue"}));
    let failed = |message: String| Outcome {
        error: Some(message),
        ..continue_()
    };
    let prepared = live.get();
    let policy = match &*prepared {
        Prepared::Ready(p) => p,
        Prepared::Broken { message, .. } => {
            // Request merges fail open.
            eprintln!("hook-policy: picoclaw: before_llm: the policy does not load: {message}");
            return failed(format!("the policy does not load: {message}"));
        }
    };
    let mut body = Map::new();
    for key in ["model", "messages", "tools"] {
        if let Some(v) = params.get(key) {
            body.insert(key.into(), v.clone());
        }
    }
    if let Some(options) = params.get("options").and_then(Json::as_object) {
        for (k, v) in options {
            body.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let payload = json!({"context_name": sc.context_of(params), "request_body": body});
    let hook = crate::catalogue::hook("pre_api_request").expect("catalogued");
    let d = match engine::run(policy, "pre_api_request", &payload, sc.decide_context()) {
        engine::Outcome::Decided(d) if d.error_summary().is_none() => d,
        engine::Outcome::Decided(d) => {
            debug_assert_eq!(
                engine::failure_mode(hook, policy.on_error),
                FailureMode::Open
            );
            let m = d.error_summary().unwrap_or_default();
            eprintln!("hook-policy: picoclaw: before_llm: {m}");
            return failed(m);
        }
        engine::Outcome::Failed(m) => {
            eprintln!("hook-policy: picoclaw: before_llm: {m}");
            return failed(m);
        }
    };
    if d.request.is_empty() {
        return Outcome {
            matched: d.matched,
            logged: d.logged,
            ..continue_()
        };
    }
    let mut request = Map::new();
    for key in [
        "meta",
        "context",
        "model",
        "messages",
        "tools",
        "graceful_terminal",
    ] {
        if let Some(v) = params.get(key) {
            request.insert(key.into(), v.clone());
        }
    }
    let mut options = params
        .get("options")
        .and_then(Json::as_object)
        .cloned()
        .unwrap_or_default();
    for (key, won) in d.request {
        if key == "model" {
            request.insert(key, won.value);
        } else {
            options.insert(key, won.value);
        }
    }
    request.insert("options".into(), Json::Object(options));
    Outcome {
        answer: json!({"action": "modify", "request": request}),
        matched: d.matched,
        rule: None,
        error: None,
        logged: d.logged,
    }
}

/// How many requests are decided at once. Decisions take microseconds to
/// milliseconds; the pool is there so that one slow decision does not hold
/// up the others, not for throughput.
const WORKERS: usize = 4;
/// Workers that may be written off (stuck past their deadline) and
/// replaced; past that, requests still get their failure reply on time.
const SPARE_WORKERS: usize = 8;

/// PicoClaw skips an interceptor after 5 s by default
/// (`defaultHookInterceptorTimeout`, pkg/agent/hooks.go;
/// `hooks.defaults.interceptor_timeout_ms` changes it).
pub const PICOCLAW_INTERCEPTOR_TIMEOUT: Duration = Duration::from_secs(5);

/// The deadline of one request when `HOOK_POLICY_DEADLINE_MS` is not set:
/// below PicoClaw's interceptor timeout, with room for the time a request
/// spends in pipes and in the queue, so the answer is ours and not a skip.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(3);

/// Serves until stdin closes. Returns the process exit status.
pub fn serve(
    paths: &[PathBuf],
    context_name: Option<&str>,
    workspace: Option<&Path>,
    input: &mut dyn BufRead,
    output: Box<dyn Write + Send>,
) -> i32 {
    let deadline = Watchdog::deadline_from_env_or(DEFAULT_DEADLINE);
    if deadline >= PICOCLAW_INTERCEPTOR_TIMEOUT {
        eprintln!(
            "hook-policy: picoclaw: {} is {} ms, not below PicoClaw's interceptor timeout ({} ms by default): a slow before_tool would be skipped and the tool run",
            watchdog::ENV_VAR,
            deadline.as_millis(),
            PICOCLAW_INTERCEPTOR_TIMEOUT.as_millis()
        );
    }
    serve_with_deadline(paths, context_name, workspace, input, output, deadline)
}

/// [`serve`] with each request's deadline given.
fn serve_with_deadline(
    paths: &[PathBuf],
    context_name: Option<&str>,
    workspace: Option<&Path>,
    input: &mut dyn BufRead,
    output: Box<dyn Write + Send>,
    deadline: Duration,
) -> i32 {
    let seen = fingerprint(paths);
    let prepared = engine::prepare(paths, None);
    if let Prepared::Broken { message, .. } = &prepared {
        eprintln!("hook-policy: picoclaw: the policy does not load; tool calls are denied until it does: {message}");
    }
    let live = Arc::new(LivePolicy::new(prepared));
    watch(paths.to_vec(), live.clone(), seen);
    let sc = ServeContext {
        project_root: workspace::resolve(workspace).display().to_string(),
        home: crate::paths::home_dir(),
        context_name: context_name.map(str::to_string),
    };
    let decider = Arc::new(Decider {
        live: live.clone(),
        sc,
        out: output::Output::new(output),
    });
    let workers = pool::Pool::start(decider.clone(), WORKERS, SPARE_WORKERS, deadline);
    let mut line = Vec::new();
    let status = loop {
        if decider.out.gone() {
            break 0; // PicoClaw went away
        }
        let read = framing::read_line(input, &mut line, framing::READ_LIMIT);
        let reply = match read {
            Ok(None) => break 0,
            Err(e) => {
                eprintln!("hook-policy: picoclaw: cannot read stdin: {e}");
                break 1;
            }
            Ok(Some(framing::Line::TooLong { len, head })) => too_long(&live, len, &head),
            Ok(Some(framing::Line::Whole)) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                // Parsed and answered by a worker (see [`Incoming`]).
                workers.submit(Incoming {
                    line: line.as_slice().into(),
                    received: Instant::now(),
                });
                None
            }
        };
        if line.capacity() > 4 * framing::PICOCLAW_READ_LIMIT {
            line = Vec::new(); // do not hold on to a huge buffer
        }
        if let Some(reply) = reply {
            decider.out.write(&framing::fit(&reply, |why| {
                failure_answer(None, on_error_of(&live), why)
            }));
        }
    };
    workers.finish();
    status
}

/// The answer to a line too long to read: the failure reply of its method,
/// to the id at its head. Without a readable id nothing can be matched, so
/// the error goes to stderr (PicoClaw logs it) and PicoClaw's own timeout
/// decides.
fn too_long(live: &LivePolicy, len: usize, head: &[u8]) -> Option<Json> {
    let why = format!(
        "the request is {len} bytes; the limit is {}",
        framing::READ_LIMIT
    );
    let h = framing::scan_head(head);
    let method = h.method.as_deref().and_then(Decided::of);
    eprintln!(
        "hook-policy: picoclaw: {}: {why}",
        h.method.as_deref().unwrap_or("a request")
    );
    match h.id {
        Some(id) if !id.is_null() => {
            if let (Some(m), Some(path)) = (method, log_path(live)) {
                let record = decision_log::Record {
                    harness: Harness::PicoClaw.name(),
                    hook: m.log_name(),
                    decision: "error",
                    matched: &[],
                    logged: &[],
                    rule: None,
                    reason_template: None,
                    error: Some(&why),
                    payload: head,
                    micros: 0,
                };
                if let Err(e) = decision_log::append(&path, &record) {
                    eprintln!(
                        "hook-policy: picoclaw: cannot write the decision log {}: {e}",
                        path.display()
                    );
                }
            }
            Some(result(id, failure_answer(method, on_error_of(live), &why)))
        }
        _ => {
            eprintln!("hook-policy: picoclaw: no id in the first bytes of the line; it cannot be answered");
            None
        }
    }
}

/// The `hooks.processes` entry for PicoClaw's configuration. The server
/// runs in the workspace and is told it (`--workspace`), so relative paths
/// are judged where PicoClaw's tools resolve them.
pub fn config_snippet(exe: &Path, policy: &[PathBuf], workspace: &Path) -> Json {
    let mut command = vec![exe.display().to_string(), "serve".into(), "picoclaw".into()];
    for p in policy {
        command.push("--policy".into());
        command.push(p.display().to_string());
    }
    command.push("--workspace".into());
    command.push(workspace.display().to_string());
    json!({"hooks": {"processes": {"hook-policy": {
        "enabled": true,
        "priority": 0,
        "transport": "stdio",
        "command": command,
        "dir": workspace.display().to_string(),
        "observe": [],
        "intercept": ["before_llm", "before_tool", "approve_tool"],
    }}}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_without_arguments_get_empty_ones() {
        let mut p = json!({"tool": "list_dir"});
        normalise_arguments(&mut p);
        assert_eq!(p, json!({"tool": "list_dir", "arguments": {}}));
        let mut p = json!({"tool": "x", "arguments": {"a": 1}});
        normalise_arguments(&mut p);
        assert_eq!(p["arguments"], json!({"a": 1}));
    }

    /// What a dispatch hands to the pool, comparable.
    fn decided(d: Dispatch) -> Option<(Json, &'static str, Json)> {
        match d {
            Dispatch::Decide(r) => Some((
                serde_json::from_str(r.id.get()).unwrap(),
                r.method.log_name(),
                r.params,
            )),
            Dispatch::Now(_) => None,
        }
    }

    #[test]
    fn the_envelope_read_decides_as_the_tree_read() {
        let live = LivePolicy::new(Prepared::Broken {
            message: "none".into(),
            diagnostics: Vec::new(),
        });
        // Read cheaply: the same request the tree gives.
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"hook.before_tool","params":{"tool":"exec","arguments":{"command":"ls"},"meta":{"AgentID":"main"}}}"#,
            r#"{"params":{"tool":"read_file"},"method":"hook.approve_tool","id":"a\"b\u00fc","jsonrpc":"2.0"}"#,
            r#" { "id" : -2.5e3 , "method" : "hook.before\u005ftool" , "params" : null } "#,
            r#"{"id":0,"method":"hook.before_tool"}"#,
            r#"{"id":1,"method":"hook.before_tool","params":[1,2]}"#,
            r#"{"id":1,"method":"hook.before_llm","params":{"model":"m","extra":{"a":[true,null]}}}"#,
            r#"{"id":9007199254740993,"method":"hook.before_tool","params":{"tool":"x","arguments":null}}"#,
        ] {
            let fast =
                decided_request(line.as_bytes(), false).map(|r| decided(Dispatch::Decide(r)));
            let tree = decided(dispatch_tree(line.as_bytes(), false, &live));
            assert!(fast.is_some(), "{line}");
            assert_eq!(fast.unwrap(), tree, "{line}");
        }
        // Everything else is left to the tree, which answers it as before.
        for line in [
            r#"{"id":1,"method":"hook.hello","params":{}}"#,
            r#"{"method":"hook.before_tool","params":{}}"#,
            r#"{"id":null,"method":"hook.before_tool","params":{}}"#,
            r#"{"id":{"a":1},"method":"hook.before_tool"}"#,
            r#"{"id":1,"method":"hook.before_tool","method":"hook.hello"}"#,
            r#"{"id":1,"method":"hook.before_tool","params":{"a":1}"#,
            r#"[{"id":1,"method":"hook.before_tool"}]"#,
            r#"{"id":1,"method":7}"#,
        ] {
            assert!(decided_request(line.as_bytes(), false).is_none(), "{line}");
        }
        // Not UTF-8 in a field the envelope skips: not valid JSON.
        let bad = b"{\"id\":1,\"method\":\"hook.before_tool\",\"x\":\"\xff\"}";
        assert!(decided_request(bad, false).is_none());
        // A key given twice: the tree takes the last, and so still decides.
        let twice = r#"{"id":1,"method":"hook.hello","method":"hook.before_tool"}"#;
        assert!(decided(dispatch_tree(twice.as_bytes(), false, &live)).is_some());
    }

    /// A sink the server writes its replies into, readable afterwards.
    #[derive(Clone, Default)]
    struct Collected(Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Collected {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Lines of every kind, each of its own id where it has one: requests
    /// to decide (denied, allowed, URLs a rule classifies, LLM requests),
    /// protocol business, notifications and faults.
    fn mixed_lines(round: u64) -> Vec<String> {
        let id = |n: u64| round * 100 + n;
        let call = |n: u64, method: &str, params: Json| {
            json!({"jsonrpc": "2.0", "id": id(n), "method": method, "params": params}).to_string()
        };
        let exec = |c: &str| json!({"tool": "exec", "arguments": {"command": c}, "meta": {"AgentID": "main", "SessionKey": format!("s{round}")}});
        let fetch =
            |u: &str| json!({"tool": "web_fetch", "arguments": {"url": u, "maxChars": 20000}});
        let read = |p: &str| json!({"tool": "read_file", "arguments": {"path": p}});
        vec![
            call(1, "hook.before_tool", exec("rm -rf /")),
            call(2, "hook.before_tool", exec("ls -la")),
            call(3, "hook.before_tool", exec("git push --force origin main")),
            call(
                4,
                "hook.before_tool",
                fetch("http://169.254.169.254/latest/meta-data/"),
            ),
            call(5, "hook.before_tool", fetch("https://docs.rs/serde/")),
            call(6, "hook.before_tool", fetch("http://0x7f000001/")),
            call(7, "hook.approve_tool", fetch("http://[::ffff:10.0.0.1]/")),
            call(8, "hook.before_tool", read(".env")),
            call(9, "hook.before_tool", read("src/main.rs")),
            call(10, "hook.approve_tool", exec("sudo bash")),
            call(
                11,
                "hook.before_llm",
                json!({"model": "m", "options": {"temperature": 0.9}, "meta": {"AgentID": "coding"}}),
            ),
            call(12, "hook.before_tool", json!({"tool": "list_dir"})),
            call(13, "hook.before_tool", json!({"tool": "", "arguments": {}})),
            call(14, "hook.hello", json!({})),
            call(15, "hook.after_tool", json!({})),
            call(16, "hook.some_new_hook", json!({})),
            call(17, "tools/list", json!({})),
            json!({"jsonrpc": "2.0", "method": "hook.runtime_event", "params": {}}).to_string(),
            json!({"jsonrpc": "2.0", "method": "hook.before_tool", "params": exec("rm -rf /")})
                .to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"hook.before_tool","params":{{"tool":"exec""#,
                id(18)
            ),
            format!(
                r#"{{"id":{},"method":"hook.hello","method":"hook.before_tool","params":{}}}"#,
                id(19),
                exec("rm -rf ~")
            ),
            format!(
                r#"{{"id":"s-{}","method":"hook.before_tool","params":{}}}"#,
                id(20),
                fetch("file:///etc/shadow")
            ),
            "[1,2]".to_string(),
            "not json".to_string(),
        ]
    }

    #[test]
    fn concurrent_lines_get_the_answers_each_line_gets_alone() {
        let dir = std::env::temp_dir().join(format!("hook-policy-serve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let policies = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies")];
        let lines: Vec<String> = (1..=12).flat_map(mixed_lines).collect();
        let mut input = lines.join("\n").into_bytes();
        input.push(b'\n');

        // Served: the pool's workers parse and decide side by side.
        let sink = Collected::default();
        let status = serve_with_deadline(
            &policies,
            None,
            Some(&dir),
            &mut std::io::Cursor::new(input),
            Box::new(sink.clone()),
            Duration::from_secs(600),
        );
        assert_eq!(status, 0);
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let mut served: Vec<Json> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();

        // Alone: each line answered on this thread, one after another.
        let live = LivePolicy::new(engine::prepare(&policies, None));
        assert!(matches!(&*live.get(), Prepared::Ready(_)));
        let sc = ServeContext {
            project_root: workspace::resolve(Some(&dir)).display().to_string(),
            home: crate::paths::home_dir(),
            context_name: None,
        };
        let alone: Vec<Json> = lines
            .iter()
            .filter_map(|l| handle_line(&live, l.as_bytes(), &sc))
            .collect();
        let _ = std::fs::remove_dir_all(&dir);

        // The same answers, each exactly once, in whatever order.
        assert_eq!(served.len(), alone.len(), "{out}");
        for want in &alone {
            let at = served.iter().position(|got| got == want);
            let at = at.unwrap_or_else(|| panic!("no served reply equals {want}\nserved:\n{out}"));
            served.swap_remove(at);
        }
        // A real mix: denials, allowances, protocol answers and errors.
        let text = alone.iter().map(Json::to_string).collect::<String>();
        for needle in [
            "deny_tool",
            "\"continue\"",
            "\"approved\":false",
            "hook-policy\"",
            "-32700",
            "-32600",
            "-32601",
            "could not decide",
        ] {
            assert!(text.contains(needle), "no {needle} among the answers");
        }
    }

    #[test]
    fn failure_answers_follow_each_hooks_failure_mode() {
        let open = Some(OnError::FailOpen);
        assert_eq!(
            failure_answer(Some(Decided::BeforeTool), None, "x")["action"],
            "deny_tool"
        );
        assert_eq!(
            failure_answer(Some(Decided::ApproveTool), None, "x")["approved"],
            false
        );
        assert_eq!(
            failure_answer(Some(Decided::BeforeLlm), None, "x")["action"],
            "continue"
        );
        assert_eq!(
            failure_answer(Some(Decided::BeforeTool), open, "x")["action"],
            "continue"
        );
        assert_eq!(
            failure_answer(Some(Decided::ApproveTool), open, "x")["approved"],
            true
        );
        let unknown = failure_answer(None, open, "x");
        assert_eq!(
            (&unknown["action"], &unknown["approved"]),
            (&json!("deny_tool"), &json!(false))
        );
    }
}
