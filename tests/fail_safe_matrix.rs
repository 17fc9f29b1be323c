//! The fail-safe matrix, cell by cell, through the installed chibi plugin:
//! every hook class against every way a call can fail. The rule (README,
//! "When something goes wrong"): permission hooks deny and `pre_tool`
//! blocks, with a reason naming the problem; tool filtering, fuel and
//! request merges change nothing and say why on stderr. The plugin always
//! exits 0 with one JSON object, because chibi ignores anything else.

mod common;

use common::*;
use serde_json::{json, Value};
use std::process::{Command, Stdio};

/// One hook of each class, with the payload chibi would send.
fn hooks() -> Vec<(&'static str, Value)> {
    vec![
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": "ls"}),
        ),
        (
            "pre_file_read",
            json!({"tool_name": "file_head", "path": "/tmp/a"}),
        ),
        (
            "pre_file_write",
            json!({"tool_name": "write_file", "path": "/tmp/a", "content": "x"}),
        ),
        (
            "pre_fetch_url",
            json!({"tool_name": "fetch_url", "url": "https://example.com/", "safety": "safe"}),
        ),
        (
            "pre_tool",
            json!({"tool_name": "shell_exec", "arguments": {"command": "ls"}}),
        ),
        (
            "pre_api_tools",
            json!({"context_name": "default", "tools": [{"name": "shell_exec", "type": "shell"}]}),
        ),
        (
            "pre_agentic_loop",
            json!({"context_name": "default", "current_fallback": "call_user", "message": "hi", "fuel_remaining": 10}),
        ),
        (
            "post_tool_batch",
            json!({"context_name": "default", "current_fallback": "call_user", "tool_calls": []}),
        ),
        (
            "pre_api_request",
            json!({"context_name": "default", "request_body": {"messages": []}}),
        ),
    ]
}

/// A rule per hook, with `WHEN` as every condition.
fn policy_with(when: &str) -> String {
    format!(
        "version: 1
rules:
  - id: shell
    hook: pre_shell_exec
    when: {when}
    deny: \"x\"
  - id: reads
    hook: [pre_file_read, pre_file_write]
    when: {when}
    deny: \"x\"
  - id: fetch
    hook: pre_fetch_url
    when: {when}
    deny: \"x\"
  - id: gate
    hook: pre_tool
    when: {when}
    block: \"x\"
  - id: filter
    hook: pre_api_tools
    when: {when}
    tools: {{ exclude: [shell_exec] }}
  - id: fuel
    hook: [pre_agentic_loop, post_tool_batch]
    when: {when}
    fuel_delta: -1
  - id: temp
    hook: pre_api_request
    when: {when}
    request: {{ temperature: 0 }}
"
    )
}

fn install(policy: &str) -> (TempDir, ChibiHome, std::path::PathBuf) {
    let dir = TempDir::new("matrix");
    let p = dir.write("policy.yaml", policy);
    let home = ChibiHome::install(&[&p]);
    (dir, home, p)
}

/// Asserts the cell: the failure reply for the hook's class, naming `why`.
fn assert_fails_safe(hook: &str, out: &std::process::Output, why: &str, cell: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{cell}: exit status; stderr: {}",
        stderr(out)
    );
    let reply = stdout_json(out);
    let err = stderr(out);
    assert!(!err.contains("panicked"), "{cell}: {err}");
    match hook {
        "pre_shell_exec" | "pre_file_read" | "pre_file_write" | "pre_fetch_url" => {
            assert_eq!(reply["denied"], json!(true), "{cell}: {reply}");
            let reason = reply["reason"].as_str().unwrap_or("");
            assert!(
                reason.contains("fail closed") && reason.contains(why),
                "{cell}: {reason}"
            );
        }
        "pre_tool" => {
            assert_eq!(reply["block"], json!(true), "{cell}: {reply}");
            let message = reply["message"].as_str().unwrap_or("");
            assert!(
                message.contains("fail closed") && message.contains(why),
                "{cell}: {message}"
            );
        }
        _ => {
            assert_eq!(reply, json!({}), "{cell}: changes nothing");
            assert!(err.contains(why), "{cell}: stderr must say why: {err}");
        }
    }
}

const NEVER: &str = "hook == 'never'";

#[test]
fn a_missing_unreadable_or_invalid_policy_fails_safe_on_every_hook() {
    type Breaker = fn(&std::path::Path);
    let breakers: [(&str, Breaker, &str); 3] = [
        (
            "missing",
            |p| std::fs::remove_file(p).unwrap(),
            "policy.yaml",
        ),
        (
            "unreadable",
            |p| {
                // A symlink to itself: opening it fails (ELOOP) even for root,
                // for whom permission bits would not stop the read.
                std::fs::remove_file(p).unwrap();
                std::os::unix::fs::symlink(p, p).unwrap();
            },
            "policy.yaml",
        ),
        (
            "invalid",
            |p| std::fs::write(p, "version: 1\nrules: [\n").unwrap(),
            "policy.yaml:",
        ),
    ];
    for (name, breaker, why) in breakers {
        let (_dir, home, path) = install(&policy_with(NEVER));
        breaker(&path);
        for (hook, payload) in hooks() {
            let out = home.hook(hook, &payload);
            assert_fails_safe(hook, &out, why, &format!("policy {name} x {hook}"));
        }
    }
}

#[test]
fn a_bad_payload_fails_safe_on_every_hook() {
    let (_dir, home, _) = install(&policy_with(NEVER));
    let mut too_large = b"{\"command\":\"".to_vec();
    too_large.resize(33 * 1024 * 1024, b'a');
    too_large.extend_from_slice(b"\"}");
    let too_deep = "[".repeat(100_000).into_bytes();
    let cases: [(&str, &[u8], &str); 6] = [
        ("empty", b"", "empty"),
        ("malformed", b"{\"command\": ", "not valid JSON"),
        ("not an object", b"[1]", "not a JSON object"),
        (
            "not UTF-8",
            b"{\"command\": \"\xff\xfe\"}",
            "not valid JSON",
        ),
        ("too large", &too_large, "limit"),
        ("too deeply nested", &too_deep, "recursion limit"),
    ];
    for (name, body, why) in cases {
        for (hook, _) in hooks() {
            let out = home.hook_raw(hook, body);
            assert_fails_safe(hook, &out, why, &format!("payload {name} x {hook}"));
        }
    }
}

#[test]
fn a_condition_failing_at_run_time_fails_safe_on_every_hook() {
    // `int("pre_shell_exec")` passes every static check and fails when run.
    let (_dir, home, _) = install(&policy_with("int(hook) > 0"));
    for (hook, payload) in hooks() {
        let out = home.hook(hook, &payload);
        assert_fails_safe(hook, &out, "int", &format!("run-time error x {hook}"));
    }
}

#[test]
fn a_decision_over_its_deadline_fails_safe() {
    // Two nested loops over a long list: minutes of work, a few bytes of
    // policy. The deadline answers for the stuck computation.
    let policy = "version: 1
rules:
  - id: slow-shell
    hook: pre_shell_exec
    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))
    deny: \"x\"
  - id: slow-fuel
    hook: post_tool_batch
    when: tool_calls.exists(a, tool_calls.exists(b, a.name + b.name == 'never'))
    fuel_delta: -1
";
    let (_dir, home, _) = install(policy);
    let words = vec!["w"; 20_000].join(" ");
    let calls: Vec<Value> = (0..20_000)
        .map(|i| json!({"name": format!("t{i}"), "arguments": {}}))
        .collect();
    for (hook, payload) in [
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": words}),
        ),
        (
            "post_tool_batch",
            json!({"context_name": "d", "current_fallback": "call_user", "tool_calls": calls}),
        ),
    ] {
        let body = serde_json::to_vec(&payload).unwrap();
        let started = std::time::Instant::now();
        let out = run(
            &home.plugin(),
            &[],
            &[("CHIBI_HOOK", hook), ("HOOK_POLICY_DEADLINE_MS", "300")],
            &body,
        );
        let took = started.elapsed();
        assert_fails_safe(
            hook,
            &out,
            "took longer than 300 ms",
            &format!("deadline x {hook}"),
        );
        // Well before chibi's own 30 s kill, which would abort the turn.
        assert!(took.as_secs() < 10, "{hook}: answered after {took:?}");
    }
}

#[test]
fn a_closed_stdout_never_panics_or_hangs() {
    let (_dir, home, _) = install(&policy_with(NEVER));
    for (hook, payload) in hooks() {
        // `>&-` closes the plugin's stdout before it starts.
        let script = format!("exec '{}' >&-", home.plugin().display());
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .env("CHIBI_HOOK", hook)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin
                .write_all(&serde_json::to_vec(&payload).unwrap())
                .unwrap();
        }
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{hook}: {err}");
        assert!(!err.contains("panicked"), "{hook}: {err}");
    }
}
