//! `policy serve picoclaw` end to end: the real binary, JSON-RPC 2.0 over
//! its stdin and stdout, one message per line. Every read has a timeout, so
//! a server that hangs fails the test instead of blocking it.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one reply may take (a debug build on a loaded machine).
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a policy edit may take to be noticed (polled every 50 ms).
const RELOAD_TIMEOUT: Duration = Duration::from_secs(10);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hook-policy-picoclaw-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Replaces `name` the way editors do: a new file renamed over the old.
    fn replace(&self, name: &str, text: &str) -> PathBuf {
        let tmp = self.0.join(format!(".{name}.tmp"));
        let path = self.0.join(name);
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `policy serve picoclaw`.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    next_id: i64,
}

impl Server {
    fn start(policy: &Path) -> Server {
        Server::start_with(policy, &[], &[])
    }

    fn start_with(policy: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_policy"));
        cmd.args(["serve", "picoclaw", "--policy"])
            .arg(policy)
            .args(args)
            .current_dir(repo())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("policy serve picoclaw starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 1000,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.send_raw(line.as_bytes());
    }

    /// The next reply line, parsed; panics after [`REPLY_TIMEOUT`].
    fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(REPLY_TIMEOUT) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {line}")),
            Err(RecvTimeoutError::Timeout) => panic!(
                "no reply within {REPLY_TIMEOUT:?}; stderr:\n{}",
                self.stderr()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "the server closed stdout; status {:?}; stderr:\n{}",
                self.child.try_wait(),
                self.stderr()
            ),
        }
    }

    /// Sends a request with a fresh numeric id; the reply must carry that id.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        let reply = self.call_with_id(id, method, params);
        reply["result"].clone()
    }

    fn call_with_id(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.recv();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], id, "reply to the wrong request: {reply}");
        reply
    }

    fn before_tool(&mut self, tool: &str, arguments: Value) -> Value {
        self.call(
            "hook.before_tool",
            json!({"tool": tool, "arguments": arguments}),
        )
    }

    fn approve_tool(&mut self, tool: &str, arguments: Value) -> Value {
        self.call(
            "hook.approve_tool",
            json!({"tool": tool, "arguments": arguments}),
        )
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until stderr contains `needle`.
    fn wait_for_stderr(&self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let s = self.stderr();
            if s.contains(needle) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "stderr never said {needle:?}:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes stdin and waits for the process to end.
    fn close(mut self, timeout: Duration) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {timeout:?} of stdin closing"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn shipped() -> Server {
    Server::start(&repo().join("policies"))
}

fn assert_denied(reply: &Value, needle: &str) {
    assert_eq!(reply["action"], "deny_tool", "{reply}");
    let reason = reply["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("no reason: {reply}"));
    assert!(reason.contains(needle), "{reason}");
}

fn assert_continue(reply: &Value) {
    assert_eq!(reply, &json!({"action": "continue"}));
}

// --- conversations with the shipped policies ---------------------------------

#[test]
fn hello_names_the_server() {
    let mut s = shipped();
    assert_eq!(
        s.call("hook.hello", json!({})),
        json!({"ok": true, "name": "hook-policy"})
    );
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn before_tool_denies_rm_rf_in_every_spelling_and_lets_ls_through() {
    let mut s = shipped();
    for command in [
        "rm -rf /",
        "sudo rm -fr /",
        "bash -c 'rm -r -f ~'",
        "rm --recursive --force /etc",
        "cd / && rm -R -f srv",
    ] {
        let reply = s.before_tool("exec", json!({"command": command}));
        assert_denied(&reply, "core.recursive-force-delete");
        assert!(
            reply["reason"]
                .as_str()
                .unwrap()
                .contains("core.recursive-force-delete"),
            "{reply}"
        );
    }
    assert_continue(&s.before_tool("exec", json!({"command": "ls -la"})));
    assert_continue(&s.before_tool("exec", json!({"command": "rm -f one-file.txt"})));
    // network.yaml: internal URLs; a public one is fine.
    assert_denied(
        &s.before_tool(
            "web_fetch",
            json!({"url": "http://169.254.169.254/latest/meta-data/"}),
        ),
        "metadata",
    );
    assert_denied(
        &s.before_tool("web_fetch", json!({"url": "http://127.0.0.1:8080/admin"})),
        "public internet",
    );
    assert_continue(&s.before_tool("web_fetch", json!({"url": "https://example.com/"})));
    // tools.yaml: chibi's context rules leave PicoClaw's agents their file
    // tools; the readonly context still cannot write.
    assert_continue(&s.before_tool("read_file", json!({"path": "README.md"})));
    assert_denied(
        &s.call(
            "hook.before_tool",
            json!({"tool": "write_file", "arguments": {"path": "a.md", "content": "x"}, "meta": {"AgentID": "readonly"}}),
        ),
        "not offered",
    );
    let coding = s.call(
        "hook.before_tool",
        json!({"tool": "read_file", "arguments": {"path": "README.md"}, "meta": {"AgentID": "coding"}}),
    );
    assert_continue(&coding);
    // files.yaml still guards the coding context.
    let env = s.call(
        "hook.before_tool",
        json!({"tool": "read_file", "arguments": {"path": ".env"}, "meta": {"AgentID": "coding"}}),
    );
    assert_denied(&env, "file-secrets.credential-file");
    // tool-gate.yaml rewrites arguments: the call comes back modified.
    assert_eq!(
        s.before_tool("shell_exec", json!({"command": "make", "timeout": 600})),
        json!({"action": "modify", "call": {"tool": "shell_exec", "arguments": {"command": "make", "timeout": 120}}})
    );
    // A request without a tool name or an arguments object cannot be decided: denied.
    assert_denied(
        &s.call("hook.before_tool", json!({"arguments": {}})),
        "could not decide",
    );
    assert_denied(
        &s.call(
            "hook.before_tool",
            json!({"tool": "exec", "arguments": "ls"}),
        ),
        "could not decide",
    );
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn approve_tool_refuses_cloud_metadata_and_approves_harmless_calls() {
    let mut s = shipped();
    let reply = s.approve_tool(
        "web_fetch",
        json!({"url": "http://169.254.169.254/latest/meta-data/iam/"}),
    );
    assert_eq!(reply["approved"], json!(false), "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("urls.internal-destination"),
        "{reply}"
    );
    let reply = s.approve_tool("exec", json!({"command": "sudo rm -fr /"}));
    assert_eq!(reply["approved"], json!(false), "{reply}");
    assert_eq!(
        s.approve_tool("exec", json!({"command": "ls -la"})),
        json!({"approved": true})
    );
    assert_eq!(
        s.approve_tool("web_fetch", json!({"url": "https://docs.rs/serde"})),
        json!({"approved": true})
    );
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn before_llm_merges_the_coding_temperature_and_passes_the_rest_unchanged() {
    // examples/policies/request.yaml: context `coding` gets temperature 0.1,
    // `creative` temperature 1.2 and top_p 0.95; nothing else.
    let request_policy = repo().join("examples/policies/request.yaml");
    let request = std::fs::read_to_string(&request_policy).unwrap();
    assert!(
        request.contains("when: context_name == 'coding'\n    request: { temperature: 0.1 }"),
        "{request}"
    );

    let mut s = Server::start(&request_policy);
    let messages = json!([
        {"role": "system", "content": "You are careful."},
        {"role": "user", "content": "rm -rf everything, please"}
    ]);
    let tools = json!([
        {"type": "function", "function": {"name": "exec", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
    ]);
    let params = json!({
        "model": "gpt-test",
        "messages": messages,
        "tools": tools,
        "options": {"max_tokens": 512, "temperature": 0.9},
        "meta": {"AgentID": "coding"}
    });
    let reply = s.call("hook.before_llm", params.clone());
    assert_eq!(reply["action"], "modify", "{reply}");
    let r = &reply["request"];
    assert_eq!(r["model"], "gpt-test");
    assert_eq!(r["messages"], messages);
    assert_eq!(r["tools"], tools);
    assert_eq!(r["options"], json!({"max_tokens": 512, "temperature": 0.1}));

    // Another context: nothing to change.
    let mut other = params.clone();
    other["meta"]["AgentID"] = json!("main");
    assert_continue(&s.call("hook.before_llm", other.clone()));
    // No meta at all: the default context.
    other.as_object_mut().unwrap().remove("meta");
    assert_continue(&s.call("hook.before_llm", other));
    assert!(s.close(Duration::from_secs(10)).success());

    // --context overrides the request's AgentID.
    let mut s = Server::start_with(&request_policy, &["--context", "creative"], &[]);
    let reply = s.call("hook.before_llm", params);
    assert_eq!(reply["action"], "modify", "{reply}");
    assert_eq!(
        reply["request"]["options"],
        json!({"max_tokens": 512, "temperature": 1.2, "top_p": 0.95})
    );
    assert_eq!(reply["request"]["messages"], messages);
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn after_hooks_continue_and_notifications_get_no_reply() {
    let mut s = shipped();
    assert_continue(&s.call(
        "hook.after_tool",
        json!({"tool": "exec", "arguments": {"command": "ls"}, "result": {"ok": true}}),
    ));
    assert_continue(&s.call("hook.after_llm", json!({"response": {"content": "hi"}})));

    // Notifications (no id) get no reply: the next line read answers the
    // request sent right after them.
    for method in [
        "hook.runtime_event",
        "hook.event",
        "hook.before_tool",
        "hook.some_future_event",
    ] {
        s.send(&json!({"jsonrpc": "2.0", "method": method, "params": {"kind": "turn_start"}}));
        let reply = s.call_with_id(json!(format!("after-{method}")), "hook.hello", json!({}));
        assert_eq!(reply["result"]["ok"], json!(true), "{reply}");
    }
    // PicoClaw's events may carry id 0: recognised by method, still silent.
    s.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "hook.runtime_event", "params": {}}));
    let reply = s.call_with_id(json!(77), "hook.hello", json!({}));
    assert_eq!(reply["result"]["ok"], json!(true), "{reply}");
    // A response to nothing the server asked is dropped.
    s.send(&json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    let reply = s.call_with_id(json!(78), "hook.hello", json!({}));
    assert_eq!(reply["result"]["ok"], json!(true), "{reply}");
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn every_id_type_is_echoed_back() {
    let mut s = shipped();
    for id in [
        json!(1),
        json!(0),
        json!(-7),
        json!(9007199254740993u64),
        json!(2.5),
        json!("abc"),
        json!(""),
        json!("ü-🦀"),
    ] {
        let reply = s.call_with_id(id.clone(), "hook.hello", json!({}));
        assert_eq!(reply["id"], id);
        assert!(reply["result"].is_object(), "{reply}");
        let reply = s.call_with_id(
            id.clone(),
            "hook.before_tool",
            json!({"tool": "exec", "arguments": {"command": "rm -rf /"}}),
        );
        assert_eq!(reply["result"]["action"], "deny_tool", "{reply}");
        let reply = s.call_with_id(id.clone(), "no.such.method", json!({}));
        assert_eq!(reply["error"]["code"], -32601, "{reply}");
    }
    // An id that is neither a number nor a string is an invalid request.
    s.send(&json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "hook.hello"}));
    let reply = s.recv();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(reply["id"], Value::Null);
    assert!(s.close(Duration::from_secs(10)).success());
}

// --- faults ------------------------------------------------------------------

#[test]
fn faults_get_json_rpc_errors_and_the_server_keeps_serving() {
    let mut s = shipped();
    // Not JSON: parse error, id null.
    for bad in [
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ",
        "nope",
        "{'single': 1}",
        "\u{0}\u{1}",
    ] {
        s.send_raw(format!("{bad}\n").as_bytes());
        let reply = s.recv();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
        assert_eq!(reply["error"]["code"], -32700, "{bad:?}: {reply}");
        assert_continue(&s.before_tool("exec", json!({"command": "ls"})));
    }
    // Not bytes of UTF-8 either.
    s.send_raw(b"\xff\xfe{}\n");
    assert_eq!(s.recv()["error"]["code"], -32700);
    // JSON but not a request object.
    for bad in [
        "[]",
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hook.hello\"}]",
        "42",
        "\"hook.hello\"",
        "null",
    ] {
        s.send_raw(format!("{bad}\n").as_bytes());
        let reply = s.recv();
        assert_eq!(reply["error"]["code"], -32600, "{bad}: {reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
    }
    // An object without a method keeps its id.
    s.send(&json!({"jsonrpc": "2.0", "id": 31, "params": {}}));
    let reply = s.recv();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(reply["id"], 31);
    // Unknown method: -32601 with the same id.
    let reply = s.call_with_id(json!(32), "frobnicate", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");
    let reply = s.call_with_id(json!("x-33"), "frobnicate", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    // An unknown hook method is not an error, which PicoClaw would answer
    // by skipping the hook (and running the tool): it is refused.
    let reply = s.call_with_id(json!(35), "hook.frobnicate", json!({}));
    assert_eq!(reply["result"]["action"], "deny_tool", "{reply}");
    assert_eq!(reply["result"]["approved"], false, "{reply}");
    // Blank lines are ignored, not answered.
    s.send_raw(b"\n   \n\t\n");
    let reply = s.call_with_id(json!(34), "hook.hello", json!({}));
    assert!(reply["result"].is_object(), "{reply}");
    // CRLF line endings are accepted.
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":35,\"method\":\"hook.hello\"}\r\n");
    let reply = s.recv();
    assert_eq!(reply["id"], 35, "{reply}");
    assert!(reply["result"].is_object(), "{reply}");
    assert_denied(
        &s.before_tool("exec", json!({"command": "rm -rf /"})),
        "core.recursive-force-delete",
    );
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn long_lines_are_decided_and_lines_over_the_limit_answered_by_their_head() {
    // PicoClaw writes lines of any size; 1 MiB is only what it reads.
    const MIB: usize = 1024 * 1024;
    let mut s = shipped();
    let pad = "x".repeat(MIB + 100);
    let reply = s.call_with_id(
        json!(40),
        "hook.before_tool",
        json!({"tool": "exec", "arguments": {"command": "ls", "pad": pad}}),
    );
    assert_eq!(reply["result"]["action"], "continue", "{reply}");

    // Over the 32 MiB payload limit: the id and method are read from the
    // head of the line, and the call gets its failure reply.
    let pad = "x".repeat(32 * MIB + 100);
    let mut line = json!({"jsonrpc": "2.0", "id": 41, "method": "hook.before_tool",
        "params": {"tool": "exec", "arguments": {"command": "ls", "pad": pad}}})
    .to_string();
    line.push('\n');
    s.send_raw(line.as_bytes());
    let reply = s.recv();
    assert_eq!(reply["id"], 41, "{reply}");
    assert_eq!(reply["result"]["action"], "deny_tool", "{reply}");
    assert!(
        reply["result"]["reason"]
            .as_str()
            .unwrap()
            .contains("33554432"),
        "{reply}"
    );

    // Garbage over the limit has no id to answer; the next request in the
    // same write is served normally.
    let mut bytes = vec![b'y'; 32 * MIB + 100];
    bytes.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"hook.hello\"}\n");
    s.send_raw(&bytes);
    let reply = s.recv();
    assert_eq!(reply["id"], 42, "{reply}");
    assert!(reply["result"].is_object(), "{reply}");
    assert!(s.stderr().contains("cannot be answered"), "{}", s.stderr());
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn closing_stdin_ends_the_process_with_status_0_promptly() {
    let mut s = shipped();
    assert!(s.call("hook.hello", json!({}))["ok"] == json!(true));
    let started = Instant::now();
    let status = s.close(Duration::from_secs(5));
    assert_eq!(status.code(), Some(0));
    assert!(started.elapsed() < Duration::from_secs(5));

    // Also when the last line has no newline, and when nothing was ever sent.
    let mut s = shipped();
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hook.hello\"}");
    drop(s.stdin.take());
    let reply = s.recv();
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(s.close(Duration::from_secs(5)).code(), Some(0));
    let s = shipped();
    assert_eq!(s.close(Duration::from_secs(5)).code(), Some(0));
}

#[test]
fn every_request_piped_before_stdin_closes_is_answered() {
    // Requests are decided side by side; the server must not end while an
    // answer is still on its way out.
    let policy = repo().join("policies");
    let mut input = String::new();
    for id in 1..=3000 {
        let command = if id % 3 == 0 { "rm -rf /" } else { "ls -la" };
        input.push_str(
            &json!({"jsonrpc": "2.0", "id": id, "method": "hook.before_tool",
                "params": {"tool": "exec", "arguments": {"command": command}}})
            .to_string(),
        );
        input.push('\n');
    }
    let out = common_run(&policy, input.as_bytes());
    let mut ids: Vec<i64> = out
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(v["result"].is_object(), "{v}");
            v["id"].as_i64().unwrap()
        })
        .collect();
    ids.sort();
    let missing: Vec<i64> = (1..=3000)
        .filter(|i| ids.binary_search(i).is_err())
        .collect();
    assert!(missing.is_empty(), "no reply to ids {missing:?}");
    assert_eq!(ids.len(), 3000, "some id answered twice");
}

/// Runs the server over `input` with stdin then closed; its stdout.
fn common_run(policy: &Path, input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_policy"))
        .args(["serve", "picoclaw", "--policy"])
        .arg(policy)
        // A loaded machine and a debug build: no deadline answers here.
        .env("HOOK_POLICY_DEADLINE_MS", "120000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

// --- policies that change or do not load --------------------------------------

const BASE: &str = "version: 1
rules:
  - id: no-curl
    hook: pre_shell_exec
    when: command.contains('curl')
    deny: \"no curl\"
";

const WITH_DENY: &str = "version: 1
rules:
  - id: no-curl
    hook: pre_shell_exec
    when: command.contains('curl')
    deny: \"no curl\"
  - id: no-hello-reload
    hook: pre_shell_exec
    when: command.contains('hello-reload')
    deny: \"hello-reload is now forbidden\"
";

const BAD_CEL: &str = "version: 1
rules:
  - id: no-hello-reload
    hook: pre_shell_exec
    when: 'command.contains(\"hello-reload\"'
    deny: \"broken\"
";

const BAD_YAML: &str = "version: 1
rules:
  - id: a
   hook: pre_shell_exec
";

/// Sends the call until `done` holds for its reply; panics after [`RELOAD_TIMEOUT`].
fn poll_until(s: &mut Server, command: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + RELOAD_TIMEOUT;
    loop {
        let reply = s.before_tool("exec", json!({"command": command}));
        if done(&reply) {
            return reply;
        }
        assert!(
            Instant::now() < deadline,
            "{what} not seen within {RELOAD_TIMEOUT:?}; last reply {reply}; stderr:\n{}",
            s.stderr()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[test]
fn hot_reload_swaps_in_valid_edits_and_keeps_the_last_good_policy() {
    let dir = TempDir::new("reload");
    dir.replace("policy.yaml", BASE);
    let mut s = Server::start_with(dir.path(), &[], &[("HOOK_POLICY_WATCH_MS", "50")]);
    assert_continue(&s.before_tool("exec", json!({"command": "echo hello-reload"})));
    assert_denied(
        &s.before_tool("exec", json!({"command": "curl https://example.com"})),
        "no curl",
    );

    // A valid edit (a different size, and a new file renamed over the old).
    assert_ne!(BASE.len(), WITH_DENY.len());
    dir.replace("policy.yaml", WITH_DENY);
    let reply = poll_until(&mut s, "echo hello-reload", "the reloaded deny rule", |r| {
        r["action"] == "deny_tool"
    });
    assert_denied(&reply, "hello-reload is now forbidden");
    s.wait_for_stderr("policy reloaded", RELOAD_TIMEOUT);

    // An invalid edit: bad CEL. The last good policy stays in force and
    // stderr says what is wrong, and where.
    assert_ne!(WITH_DENY.len(), BAD_CEL.len());
    dir.replace("policy.yaml", BAD_CEL);
    let err = s.wait_for_stderr("does not load", RELOAD_TIMEOUT);
    assert!(err.contains("keeping the last good one"), "{err}");
    assert!(
        err.contains("policy.yaml:5"),
        "the diagnostic names the file and line:\n{err}"
    );
    assert_denied(
        &s.before_tool("exec", json!({"command": "echo hello-reload"})),
        "hello-reload is now forbidden",
    );
    assert_denied(
        &s.before_tool("exec", json!({"command": "curl x"})),
        "no curl",
    );
    assert_continue(&s.before_tool("exec", json!({"command": "ls"})));

    // Invalid YAML: still the last good policy.
    let seen = s.stderr().matches("does not load").count();
    dir.replace("policy.yaml", BAD_YAML);
    let deadline = Instant::now() + RELOAD_TIMEOUT;
    while s.stderr().matches("does not load").count() == seen {
        assert!(
            Instant::now() < deadline,
            "the YAML error was never reported:\n{}",
            s.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    s.wait_for_stderr("policy.yaml:4", RELOAD_TIMEOUT);
    assert_denied(
        &s.before_tool("exec", json!({"command": "echo hello-reload"})),
        "hello-reload is now forbidden",
    );

    // Fixed again, back to the base policy: the extra rule is gone.
    dir.replace("policy.yaml", BASE);
    poll_until(&mut s, "echo hello-reload", "the base policy again", |r| {
        r["action"] == "continue"
    });
    assert_denied(
        &s.before_tool("exec", json!({"command": "curl x"})),
        "no curl",
    );
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn an_edit_made_while_the_server_starts_is_picked_up() {
    // The files' fingerprint must be taken before the policy is loaded, or
    // an edit landing while it loads is never seen (it was, under load).
    // Edits at several moments of startup cover the window either way.
    for delay_ms in [0u64, 2, 4, 6, 8, 10, 14, 20] {
        let dir = TempDir::new("startup-edit");
        dir.replace("policy.yaml", BASE);
        let mut s = Server::start_with(dir.path(), &[], &[("HOOK_POLICY_WATCH_MS", "20")]);
        std::thread::sleep(Duration::from_millis(delay_ms));
        dir.replace("policy.yaml", WITH_DENY);
        let reply = poll_until(
            &mut s,
            "echo hello-reload",
            "the edit made at startup",
            |r| r["action"] == "deny_tool",
        );
        assert_denied(&reply, "hello-reload is now forbidden");
        assert!(s.close(Duration::from_secs(10)).success());
    }
}

#[test]
fn a_policy_broken_at_start_denies_tool_calls_and_lets_llm_requests_through() {
    let dir = TempDir::new("broken");
    dir.replace("policy.yaml", BAD_YAML);
    let mut s = Server::start_with(dir.path(), &[], &[("HOOK_POLICY_WATCH_MS", "50")]);
    for command in ["ls", "echo hi"] {
        let reply = s.before_tool("exec", json!({"command": command}));
        assert_denied(&reply, "hook-policy could not decide");
        assert!(
            reply["reason"].as_str().unwrap().contains("fail closed"),
            "{reply}"
        );
    }
    assert_denied(
        &s.before_tool("web_fetch", json!({"url": "https://example.com/"})),
        "could not decide",
    );
    let reply = s.approve_tool("exec", json!({"command": "ls"}));
    assert_eq!(reply["approved"], json!(false), "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("hook-policy could not decide"),
        "{reply}"
    );
    let reply = s.call(
        "hook.before_llm",
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [], "options": {}, "meta": {"AgentID": "coding"}}),
    );
    assert_continue(&reply);
    assert_eq!(s.call("hook.hello", json!({}))["ok"], json!(true));
    // stderr is read by another thread: wait for the line, do not race it.
    s.wait_for_stderr("tool calls are denied until it does", RELOAD_TIMEOUT);

    // Once fixed, the policy is picked up.
    dir.replace("policy.yaml", BASE);
    poll_until(&mut s, "ls", "the repaired policy", |r| {
        r["action"] == "continue"
    });
    assert_denied(
        &s.before_tool("exec", json!({"command": "curl x"})),
        "no curl",
    );
    assert!(s.close(Duration::from_secs(10)).success());
}

#[test]
fn a_missing_policy_path_denies_tool_calls() {
    let dir = TempDir::new("missing");
    let mut s = Server::start(&dir.path().join("nothing-here.yaml"));
    assert_denied(
        &s.before_tool("exec", json!({"command": "ls"})),
        "could not decide",
    );
    assert!(s.close(Duration::from_secs(10)).success());
}
