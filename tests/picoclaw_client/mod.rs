//! A PicoClaw process-hook client, as faithful to PicoClaw's Go code as a
//! test can make it (sipeed/picoclaw, pkg/agent: hook_process.go, hooks.go,
//! hook_mount.go, pipeline_execute.go, pipeline_llm.go). It drives the real
//! `policy serve picoclaw` and reports what PicoClaw would then do, so a test
//! asserts outcomes a user would notice ("the tool ran", "the call was denied
//! after 60 s"), not only bytes on a pipe.
//!
//! What it reproduces, and where PicoClaw does it:
//! - Start: `exec.Command` with `Dir` and `Env` appended to the environment,
//!   then `hook.hello {name, version: 1, modes}` with a 5 s timeout
//!   (`NewProcessHook`, `hello`).
//! - Writing: one `json.Marshal` of `{jsonrpc, id, method, params}` (struct
//!   field order; map keys sorted; `<`, `>`, `&`, U+2028, U+2029 escaped as
//!   `\uXXXX`) plus `\n`, of any length (`send`). Ids count up from 1
//!   (`nextID.Add(1)`); notifications carry none.
//! - Reading: a `bufio.Scanner` with a 1 MiB buffer (`readLoop`,
//!   `processHookReadBufferSize`). A line that does not fit ends the read
//!   loop for good: every later call waits for its timeout. A line that does
//!   not decode is logged and skipped; a reply whose id is 0 or null is
//!   dropped; a reply for an id nobody waits for is dropped.
//! - Timeouts (`hooks.go`): interceptors 5 s, approvals 60 s. An interceptor
//!   that errors or times out is skipped, so the tool runs (fail open); an
//!   approver that errors or times out denies.
//! - Outcomes (`pipeline_execute.go`): `deny_tool` skips the tool with the
//!   reason; `continue`/`modify` run it (with `call` when given); approval
//!   `approved: false` skips it.
//! - Close: stdin closed, then a kill if the process has not ended after
//!   2 s (`Close`, `processHookCloseTimeout`).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `processHookReadBufferSize`: the longest line PicoClaw reads, newline included.
pub const READ_BUFFER: usize = 1024 * 1024;
/// `defaultHookInterceptorTimeout`.
pub const INTERCEPTOR_TIMEOUT: Duration = Duration::from_secs(5);
/// `defaultHookApprovalTimeout`.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);
/// `processHookCloseTimeout`.
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);
/// The hello timeout `NewProcessHook` uses without a context.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// How a process hook is configured (`hooks.processes.<name>`).
pub struct HookConfig {
    pub command: Vec<String>,
    pub dir: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub modes: Vec<&'static str>,
    pub interceptor_timeout: Duration,
    pub approval_timeout: Duration,
}

impl HookConfig {
    /// `policy serve picoclaw --policy POLICY`, intercepting what the
    /// install snippet intercepts.
    pub fn serve(policy: &Path) -> HookConfig {
        HookConfig {
            command: vec![
                env!("CARGO_BIN_EXE_policy").into(),
                "serve".into(),
                "picoclaw".into(),
                "--policy".into(),
                policy.display().to_string(),
            ],
            dir: None,
            env: Vec::new(),
            modes: vec!["llm", "tool", "approve"],
            interceptor_timeout: INTERCEPTOR_TIMEOUT,
            approval_timeout: APPROVAL_TIMEOUT,
        }
    }

    pub fn arg(mut self, a: &str) -> HookConfig {
        self.command.push(a.into());
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> HookConfig {
        self.env.push((k.into(), v.into()));
        self
    }

    pub fn dir(mut self, d: &Path) -> HookConfig {
        self.dir = Some(d.to_path_buf());
        self
    }
}

/// A decoded reply (`processHookRPCMessage`).
#[derive(Debug, Clone)]
pub struct RpcReply {
    pub result: Option<Value>,
    pub error: Option<Value>,
    /// When the read loop got it.
    pub at: Instant,
}

/// Why a call produced no result.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// No reply before the timeout (`ctx.Done()`).
    Timeout,
    /// The reply carried an error object.
    Rpc(String),
    /// The process ended (`failPending`).
    Exited,
}

type Pending = Arc<Mutex<HashMap<u64, Sender<RpcReply>>>>;

/// A mounted process hook.
pub struct ProcessHook {
    child: Child,
    stdin: Mutex<Option<ChildStdin>>,
    pending: Pending,
    next_id: AtomicU64,
    stderr: Arc<Mutex<String>>,
    /// Set when the read loop ended on a line over the buffer.
    reader_died: Arc<AtomicBool>,
    /// Lines the read loop could not decode, and replies it dropped.
    pub dropped: Arc<Mutex<Vec<String>>>,
    config: HookConfig,
}

/// One call in flight.
pub struct InFlight {
    pub id: u64,
    rx: Receiver<RpcReply>,
    pending: Pending,
    sent: Instant,
    timeout: Duration,
}

impl InFlight {
    /// Waits as `ProcessHook.call` does: until the reply or the timeout,
    /// counted from when the call was made.
    pub fn wait(self) -> (Result<Value, CallError>, Duration) {
        let (r, _) = self.wait_at();
        r
    }

    /// [`InFlight::wait`], with the time the reply (or the timeout) came.
    pub fn wait_at(self) -> ((Result<Value, CallError>, Duration), Instant) {
        let left = self.timeout.saturating_sub(self.sent.elapsed());
        let mut at = None;
        let r = match self.rx.recv_timeout(left) {
            Ok(RpcReply {
                error: Some(e),
                at: t,
                ..
            }) => {
                at = Some(t);
                Err(CallError::Rpc(
                    e.get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                ))
            }
            Ok(RpcReply { result, at: t, .. }) => {
                at = Some(t);
                Ok(result.unwrap_or(Value::Null))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.pending.lock().unwrap().remove(&self.id);
                Err(CallError::Timeout)
            }
            Err(RecvTimeoutError::Disconnected) => Err(CallError::Exited),
        };
        let at = at.unwrap_or_else(Instant::now);
        ((r, at.duration_since(self.sent)), at)
    }
}

/// What PicoClaw does with a tool call after before_tool.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeTool {
    /// `deny_tool`: the tool is skipped; the model sees the reason.
    Denied(String),
    /// `continue` / `modify`: the tool runs, with these arguments.
    Runs { tool: String, arguments: Value },
    /// The interceptor errored or timed out: PicoClaw skips it and the tool
    /// runs as the model asked (fail open).
    Skipped(CallError),
    /// Any other action (abort_turn, respond, ...).
    Other(Value),
}

/// What PicoClaw does after approve_tool.
#[derive(Debug, Clone, PartialEq)]
pub enum Approval {
    Approved,
    Denied(String),
    /// The approver errored (denied) or timed out (denied, after the timeout).
    Failed(CallError),
}

/// What PicoClaw does with an LLM request after before_llm.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeLlm {
    /// The request goes out with these options and this model.
    Sent {
        model: Value,
        options: Value,
    },
    Skipped(CallError),
    Other(Value),
}

impl ProcessHook {
    /// `NewProcessHook`: spawn, start the readers, say hello.
    pub fn mount(config: HookConfig) -> Result<ProcessHook, CallError> {
        let mut cmd = Command::new(&config.command[0]);
        cmd.args(&config.command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(d) = &config.dir {
            cmd.current_dir(d);
        }
        for (k, v) in &config.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("the hook process starts");
        let stdout = child.stdout.take().unwrap();
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let reader_died = Arc::new(AtomicBool::new(false));
        let dropped = Arc::new(Mutex::new(Vec::new()));
        {
            let (pending, died, dropped) = (pending.clone(), reader_died.clone(), dropped.clone());
            std::thread::spawn(move || read_loop(stdout, pending, died, dropped));
        }
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let sink = stderr.clone();
            let mut err = child.stderr.take().unwrap();
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    sink.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        let hook = ProcessHook {
            stdin: Mutex::new(child.stdin.take()),
            child,
            pending,
            next_id: AtomicU64::new(0),
            stderr,
            reader_died,
            dropped,
            config,
        };
        let modes = hook.config.modes.clone();
        let hello = hook.start(
            "hook.hello",
            json!({"name": "hook-policy", "version": 1, "modes": modes}),
            HELLO_TIMEOUT,
        );
        match hello.wait().0 {
            Ok(_) => Ok(hook),
            Err(e) => Err(e),
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn reader_died(&self) -> bool {
        self.reader_died.load(Ordering::SeqCst)
    }

    /// Writes raw bytes to the hook's stdin (for lines PicoClaw would write
    /// but this client's encoder would not produce, such as huge ones).
    pub fn write_raw(&self, bytes: &[u8]) {
        let mut stdin = self.stdin.lock().unwrap();
        let s = stdin.as_mut().expect("stdin open");
        s.write_all(bytes).unwrap();
        s.flush().unwrap();
    }

    /// Registers an id and writes the request (`call` up to the select).
    pub fn start(&self, method: &str, params: Value, timeout: Duration) -> InFlight {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let (tx, rx) = mpsc::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let line = go_line(Some(id), method, &params);
        let sent = Instant::now();
        self.write_raw(&line);
        InFlight {
            id,
            rx,
            pending: self.pending.clone(),
            sent,
            timeout,
        }
    }

    /// Like [`ProcessHook::start`], with the line built by the caller (a
    /// request bigger than is convenient to build as a `Value`).
    pub fn start_raw_call(
        &self,
        _method: &str,
        timeout: Duration,
        line: impl FnOnce(u64) -> Vec<u8>,
    ) -> InFlight {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let (tx, rx) = mpsc::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let line = line(id);
        let sent = Instant::now();
        self.write_raw(&line);
        InFlight {
            id,
            rx,
            pending: self.pending.clone(),
            sent,
            timeout,
        }
    }

    /// A notification (`notify`): no id, no reply awaited.
    pub fn notify(&self, method: &str, params: Value) {
        self.write_raw(&go_line(None, method, &params));
    }

    pub fn start_before_tool(&self, params: Value) -> InFlight {
        self.start("hook.before_tool", params, self.config.interceptor_timeout)
    }

    pub fn start_approve_tool(&self, params: Value) -> InFlight {
        self.start("hook.approve_tool", params, self.config.approval_timeout)
    }

    /// `BeforeTool` as `pipeline_execute.go` sees it.
    pub fn before_tool(&self, params: Value) -> (BeforeTool, Duration) {
        let tool = params["tool"].as_str().unwrap_or("").to_string();
        let args = params.get("arguments").cloned().unwrap_or(json!({}));
        let (r, took) = self.start_before_tool(params).wait();
        (before_tool_outcome(r, &tool, &args), took)
    }

    pub fn approve_tool(&self, params: Value) -> (Approval, Duration) {
        let (r, took) = self.start_approve_tool(params).wait();
        (approval_outcome(r), took)
    }

    pub fn before_llm(&self, params: Value) -> (BeforeLlm, Duration) {
        let (r, took) = self
            .start(
                "hook.before_llm",
                params.clone(),
                self.config.interceptor_timeout,
            )
            .wait();
        let out = match r {
            Err(e) => BeforeLlm::Skipped(e),
            Ok(v) => match v["action"].as_str().unwrap_or("continue") {
                "continue" | "modify" | "" => {
                    let req = if v["request"].is_object() {
                        &v["request"]
                    } else {
                        &params
                    };
                    BeforeLlm::Sent {
                        model: req["model"].clone(),
                        options: req["options"].clone(),
                    }
                }
                _ => BeforeLlm::Other(v),
            },
        };
        (out, took)
    }

    /// `Close`: stdin closed, then a kill after 2 s. True when the process
    /// ended on its own.
    pub fn close(mut self) -> bool {
        drop(self.stdin.lock().unwrap().take());
        let deadline = Instant::now() + CLOSE_TIMEOUT;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for ProcessHook {
    fn drop(&mut self) {
        if let Ok(mut s) = self.stdin.lock() {
            drop(s.take());
        }
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

pub fn before_tool_outcome(r: Result<Value, CallError>, tool: &str, args: &Value) -> BeforeTool {
    match r {
        Err(e) => BeforeTool::Skipped(e),
        Ok(v) => match v["action"].as_str().unwrap_or("") {
            "" | "continue" | "modify" => {
                let call = &v["call"];
                if call.is_object() {
                    BeforeTool::Runs {
                        tool: call["tool"].as_str().unwrap_or("").to_string(),
                        arguments: call.get("arguments").cloned().unwrap_or(json!({})),
                    }
                } else {
                    BeforeTool::Runs {
                        tool: tool.to_string(),
                        arguments: args.clone(),
                    }
                }
            }
            "deny_tool" => BeforeTool::Denied(v["reason"].as_str().unwrap_or("").to_string()),
            _ => BeforeTool::Other(v),
        },
    }
}

pub fn approval_outcome(r: Result<Value, CallError>) -> Approval {
    match r {
        Err(e) => Approval::Failed(e),
        // Go decodes into ApprovalDecision: a missing `approved` is false.
        Ok(v) if v["approved"] == json!(true) => Approval::Approved,
        Ok(v) => Approval::Denied(v["reason"].as_str().unwrap_or("").to_string()),
    }
}

/// The line Go's `json.Marshal` writes for a message, newline included.
pub fn go_line(id: Option<u64>, method: &str, params: &Value) -> Vec<u8> {
    let mut s = String::from("{\"jsonrpc\":\"2.0\",");
    if let Some(id) = id {
        s.push_str(&format!("\"id\":{id},"));
    }
    s.push_str(&format!("\"method\":{},", Value::from(method)));
    s.push_str("\"params\":");
    s.push_str(&go_params(method, params));
    s.push('}');
    let mut out = go_escape(&s).into_bytes();
    out.push(b'\n');
    out
}

/// Params in the field order of PicoClaw's Go structs (`ToolCallHookRequest`,
/// `ToolApprovalRequest`, `LLMHookRequest`), with `omitempty` honoured;
/// nested maps are `map[string]any`, whose keys Go sorts (as serde_json does).
fn go_params(method: &str, p: &Value) -> String {
    let order: &[(&str, bool)] = match method {
        "hook.before_tool" => &[
            ("meta", false),
            ("context", true),
            ("tool", false),
            ("arguments", true),
            ("channel", true),
            ("chat_id", true),
        ],
        "hook.approve_tool" => &[
            ("meta", false),
            ("context", true),
            ("tool", false),
            ("arguments", true),
        ],
        "hook.before_llm" => &[
            ("meta", false),
            ("context", true),
            ("model", false),
            ("messages", true),
            ("tools", true),
            ("options", true),
            ("graceful_terminal", true),
        ],
        "hook.hello" => &[("name", false), ("version", false), ("modes", true)],
        _ => return p.to_string(),
    };
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        _ => false,
    };
    let mut parts = Vec::new();
    for (key, omitempty) in order {
        let v = p.get(*key).cloned().unwrap_or(match *key {
            // HookMeta is a struct: never omitted.
            "meta" => json!({"AgentID": "", "TurnID": "", "ParentTurnID": "", "SessionKey": "", "Iteration": 0, "TracePath": "", "Source": ""}),
            "tool" | "model" => json!(""),
            _ => Value::Null,
        });
        if *omitempty && empty(&v) {
            continue;
        }
        parts.push(format!("{}:{}", Value::from(*key), v));
    }
    format!("{{{}}}", parts.join(","))
}

/// Go's JSON string escaping beyond serde_json's: HTML characters and the
/// two JavaScript line terminators become `\uXXXX`. (They only occur inside
/// strings, so escaping the whole text is safe.)
pub fn go_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// `readLoop`: a Scanner whose buffer grows to 1 MiB; a longer line stops
/// the loop (`bufio.ErrTooLong`) and nothing is read again.
fn read_loop(
    mut stdout: impl Read,
    pending: Pending,
    died: Arc<AtomicBool>,
    dropped: Arc<Mutex<Vec<String>>>,
) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        while let Some(nl) = buf.iter().position(|&b| b == b'\n') {
            if nl + 1 > READ_BUFFER {
                break;
            }
            let line: Vec<u8> = buf.drain(..=nl).collect();
            deliver(&line[..line.len() - 1], &pending, &dropped);
        }
        if buf.len() >= READ_BUFFER || buf.iter().position(|&b| b == b'\n').is_some() {
            died.store(true, Ordering::SeqCst);
            // The pipe is no longer read; the process may block writing.
            return;
        }
        match stdout.read(&mut chunk) {
            Ok(0) | Err(_) => {
                if !buf.is_empty() && buf.len() < READ_BUFFER {
                    let line = std::mem::take(&mut buf);
                    deliver(&line, &pending, &dropped);
                }
                // `waitLoop` -> `failPending`: every waiting call ends.
                pending.lock().unwrap().clear();
                return;
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// One line into `processHookRPCMessage`: `id` is a `uint64`, so a string,
/// negative or fractional id fails the whole decode, and null or absent is 0.
fn deliver(line: &[u8], pending: &Pending, dropped: &Arc<Mutex<Vec<String>>>) {
    let text = String::from_utf8_lossy(line).to_string();
    let Ok(msg) = serde_json::from_slice::<Value>(line) else {
        dropped.lock().unwrap().push(format!("undecodable: {text}"));
        return;
    };
    let Some(obj) = msg.as_object() else {
        dropped.lock().unwrap().push(format!("undecodable: {text}"));
        return;
    };
    let id = match obj.get("id") {
        None | Some(Value::Null) => 0,
        Some(v) => match v.as_u64() {
            Some(n) => n,
            None => {
                dropped
                    .lock()
                    .unwrap()
                    .push(format!("undecodable id: {text}"));
                return;
            }
        },
    };
    if id == 0 {
        dropped.lock().unwrap().push(format!("id 0/null: {text}"));
        return;
    }
    let reply = RpcReply {
        result: obj.get("result").cloned().filter(|v| !v.is_null()),
        error: obj.get("error").cloned().filter(|v| !v.is_null()),
        at: Instant::now(),
    };
    match pending.lock().unwrap().remove(&id) {
        Some(tx) => {
            let _ = tx.send(reply);
        }
        None => dropped
            .lock()
            .unwrap()
            .push(format!("nobody waits: {text}")),
    }
}
