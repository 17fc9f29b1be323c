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
//! Faults never stop the server: a line that is not JSON gets a parse error
//! (-32700), a message that is not a request an invalid-request error
//! (-32600), an unknown method method-not-found (-32601), a line over 1 MiB
//! is read to its end and refused (-32600). A tool call the policy cannot
//! decide is denied (PicoClaw skips an interceptor that errors, which would
//! fail open, so we answer instead).
//!
//! The policy files are polled for changes: a valid edit is compiled and
//! swapped in between two requests; an invalid one is reported on stderr and
//! the last good policy stays in force.

use super::tool_call::{self, Harness, PolicySource, Verdict};
use crate::catalogue::FailureMode;
use crate::diagnostic::Diagnostic;
use crate::engine::{self, Prepared};
use crate::eval::DecideContext;
use serde_json::{json, Map, Value as Json};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// PicoClaw's own limit on a message line.
pub const MAX_LINE: usize = 1024 * 1024;

/// How often policy files are looked at; `HOOK_POLICY_WATCH_MS` overrides.
pub const WATCH_ENV: &str = "HOOK_POLICY_WATCH_MS";
const DEFAULT_WATCH: Duration = Duration::from_millis(500);

/// The policy in force, swapped whole when the files change.
pub struct LivePolicy {
    current: Mutex<Arc<Prepared>>,
}

impl LivePolicy {
    pub fn new(prepared: Prepared) -> LivePolicy {
        LivePolicy {
            current: Mutex::new(Arc::new(prepared)),
        }
    }

    pub fn get(&self) -> Arc<Prepared> {
        self.current
            .lock()
            .map(|g| g.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    fn set(&self, prepared: Prepared) {
        match self.current.lock() {
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

/// Handles one line; `None` for notifications, which get no reply.
/// Per-server settings.
pub struct ServeContext<'a> {
    pub project_root: &'a str,
    pub home: Option<&'a str>,
    /// The context `pre_api_tools`/`pre_api_request` rules see; without it,
    /// the request's `meta.AgentID`, else `default`.
    pub context_name: Option<&'a str>,
}

fn context_of<'a>(sc: &'a ServeContext<'_>, params: &'a Json) -> &'a str {
    sc.context_name
        .or_else(|| {
            params
                .get("meta")
                .and_then(|m| m.get("AgentID"))
                .and_then(Json::as_str)
        })
        .filter(|s| !s.is_empty())
        .unwrap_or("default")
}

pub fn handle_line(live: &LivePolicy, line: &[u8], sc: &ServeContext<'_>) -> Option<Json> {
    let msg: Json = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Some(error(Json::Null, -32700, &format!("parse error: {e}"))),
    };
    let Some(obj) = msg.as_object() else {
        return Some(error(
            Json::Null,
            -32600,
            "invalid request: not a JSON object",
        ));
    };
    let id = obj.get("id").cloned().unwrap_or(Json::Null);
    let Some(method) = obj.get("method").and_then(Json::as_str) else {
        if obj.contains_key("result") || obj.contains_key("error") {
            return None; // a response to nothing we asked: drop it
        }
        return Some(error(id, -32600, "invalid request: no method"));
    };
    // A request without an id is a notification. (PicoClaw's events may
    // carry id 0; they are recognised by method. A request with id 0 is
    // still answered: silence would make PicoClaw skip us, failing open.)
    let notification = id.is_null();
    if !(id.is_null() || id.is_string() || id.is_number()) {
        return Some(error(Json::Null, -32600, "invalid request: bad id"));
    }
    let empty = Json::Object(Map::new());
    let params = obj.get("params").unwrap_or(&empty);
    let answer = match method {
        "hook.hello" => json!({"ok": true, "name": "hook-policy"}),
        "hook.runtime_event" | "hook.event" => return None,
        "hook.after_llm" | "hook.after_tool" => json!({"action": "continue"}),
        "hook.before_llm" => before_llm(live, params, sc),
        "hook.before_tool" | "hook.approve_tool" => {
            let approval = method == "hook.approve_tool";
            tool(live, params, approval, sc)
        }
        _ => {
            if notification {
                return None;
            }
            return Some(error(id, -32601, &format!("method not found: {method}")));
        }
    };
    if notification && method != "hook.hello" {
        return None;
    }
    Some(result(id, answer))
}

fn tool(live: &LivePolicy, params: &Json, approval: bool, sc: &ServeContext<'_>) -> Json {
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
        return deny("hook-policy could not decide, so it denies (fail closed): the request has no tool name or no arguments object".into());
    }
    let mut source = PolicySource::compiled(live.get());
    let ctx = DecideContext {
        harness: Harness::PicoClaw.name(),
        project_root: sc.project_root,
        home: sc.home,
    };
    let context = context_of(sc, params);
    let d = tool_call::decide_call(
        &mut source,
        Harness::PicoClaw,
        name,
        args,
        params,
        approval,
        context,
        ctx,
    );
    for n in &d.notes {
        eprintln!("hook-policy: picoclaw: {n}");
    }
    match (d.verdict, approval) {
        (Verdict::Deny(reason) | Verdict::Ask(reason), _) => deny(reason),
        (Verdict::Rewrite(args), false) => {
            json!({"action": "modify", "call": {"tool": name, "arguments": args}})
        }
        // An approver answers yes or no; with nothing against the call, yes.
        (_, true) => json!({"approved": true}),
        (_, false) => json!({"action": "continue"}),
    }
}

/// before_llm: `request` rules merge into the request's `options` (the
/// model name goes to `model`); messages and tools pass through unchanged.
fn before_llm(live: &LivePolicy, params: &Json, sc: &ServeContext<'_>) -> Json {
    let continue_ = json!({"action": "continue"});
    let prepared = live.get();
    let policy = match &*prepared {
        Prepared::Ready(p) => p,
        Prepared::Broken { message, .. } => {
            // Request merges fail open.
            eprintln!("hook-policy: picoclaw: before_llm: the policy does not load: {message}");
            return continue_;
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
    let payload = json!({"context_name": context_of(sc, params), "request_body": body});
    let ctx = DecideContext {
        harness: Harness::PicoClaw.name(),
        project_root: sc.project_root,
        home: sc.home,
    };
    let hook = crate::catalogue::hook("pre_api_request").expect("catalogued");
    let d = match engine::run(policy, "pre_api_request", &payload, ctx) {
        engine::Outcome::Decided(d) if d.error_summary().is_none() => d,
        engine::Outcome::Decided(d) => {
            debug_assert_eq!(
                engine::failure_mode(hook, policy.on_error),
                FailureMode::Open
            );
            eprintln!(
                "hook-policy: picoclaw: before_llm: {}",
                d.error_summary().unwrap_or_default()
            );
            return continue_;
        }
        engine::Outcome::Failed(m) => {
            eprintln!("hook-policy: picoclaw: before_llm: {m}");
            return continue_;
        }
    };
    if d.request.is_empty() {
        return continue_;
    }
    let mut request = Map::new();
    for key in ["model", "messages", "tools"] {
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
    json!({"action": "modify", "request": request})
}

/// Reads one line of at most [`MAX_LINE`] bytes. `Ok(None)` at end of input;
/// `Err(n)` when the line was longer (it has been consumed).
fn read_line(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Result<(), usize>>> {
    buf.clear();
    let mut too_long = 0usize;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(if buf.is_empty() && too_long == 0 {
                None
            } else if too_long > 0 {
                Some(Err(too_long))
            } else {
                Some(Ok(()))
            });
        }
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if too_long == 0 && buf.len() + part.len() <= MAX_LINE {
            buf.extend_from_slice(part);
        } else {
            too_long = too_long.max(buf.len()) + part.len();
            buf.clear();
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            return Ok(Some(if too_long > 0 { Err(too_long) } else { Ok(()) }));
        }
    }
}

/// Serves until stdin closes. Returns the process exit status.
pub fn serve(
    paths: &[PathBuf],
    context_name: Option<&str>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> i32 {
    let seen = fingerprint(paths);
    let prepared = engine::prepare(paths, None);
    if let Prepared::Broken { message, .. } = &prepared {
        eprintln!("hook-policy: picoclaw: the policy does not load; tool calls are denied until it does: {message}");
    }
    let live = Arc::new(LivePolicy::new(prepared));
    watch(paths.to_vec(), live.clone(), seen);
    let project_root = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/".into());
    let home = std::env::var("HOME").ok();
    let sc = ServeContext {
        project_root: &project_root,
        home: home.as_deref(),
        context_name,
    };
    let mut line = Vec::new();
    loop {
        let reply = match read_line(input, &mut line) {
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("hook-policy: picoclaw: cannot read stdin: {e}");
                return 1;
            }
            Ok(Some(Err(n))) => Some(error(
                Json::Null,
                -32600,
                &format!("invalid request: the line is {n} bytes; the limit is {MAX_LINE}"),
            )),
            Ok(Some(Ok(()))) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                handle_line(&live, &line, &sc)
            }
        };
        if let Some(reply) = reply {
            let mut text = reply.to_string();
            text.push('\n');
            if output
                .write_all(text.as_bytes())
                .and_then(|_| output.flush())
                .is_err()
            {
                // PicoClaw went away.
                return 0;
            }
        }
    }
}

/// The `hooks.processes` entry for PicoClaw's configuration.
pub fn config_snippet(exe: &std::path::Path, policy: &[PathBuf]) -> Json {
    let mut command = vec![exe.display().to_string(), "serve".into(), "picoclaw".into()];
    for p in policy {
        command.push("--policy".into());
        command.push(p.display().to_string());
    }
    json!({"hooks": {"processes": {"hook-policy": {
        "enabled": true,
        "priority": 0,
        "transport": "stdio",
        "command": command,
        "observe": [],
        "intercept": ["before_llm", "before_tool", "approve_tool"],
    }}}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_consumed_and_refused_and_the_next_line_is_read() {
        let mut data = vec![b'x'; MAX_LINE + 10];
        data.extend_from_slice(b"\n{\"a\":1}\n");
        let mut input = std::io::Cursor::new(data);
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buf).unwrap(),
            Some(Err(MAX_LINE + 10))
        );
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), Some(Ok(())));
        assert_eq!(buf, b"{\"a\":1}");
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), None);
    }
}
