//! Failure handling through the installed chibi plugin. A permission hook
//! that cannot decide denies (fail closed) unless the policy says
//! `on_error: fail_open`; `pre_tool` blocks; every other hook changes nothing
//! and says why on stderr. In every case the plugin exits 0 with JSON, since
//! chibi ignores anything else (which would silently allow).

mod common;

use common::*;
use serde_json::json;

const POLICY: &str = "version: 1
rules:
  - id: no-rm
    hook: pre_shell_exec
    when: command.startsWith('rm')
    deny: \"no rm\"
  - id: gate
    hook: pre_tool
    when: tool_name == 'nothing'
    block: \"never\"
  - id: filter
    hook: pre_api_tools
    when: context_name == 'x'
    tools: { exclude: [shell_exec] }
  - id: temp
    hook: pre_api_request
    when: context_name == 'x'
    request: { temperature: 0 }
";

fn install(policy: &str) -> (TempDir, ChibiHome) {
    let dir = TempDir::new("failsafe");
    let p = dir.write("policy.yaml", policy);
    let home = ChibiHome::install(&[&p]);
    (dir, home)
}

fn assert_denied_because(out: &std::process::Output, needle: &str) {
    assert!(out.status.success());
    let reply = stdout_json(out);
    assert_eq!(reply["denied"], json!(true), "{reply}");
    let reason = reply["reason"].as_str().unwrap();
    assert!(
        reason.contains("fail closed") && reason.contains(needle),
        "{reason}"
    );
}

#[test]
fn a_policy_broken_after_install_denies_permission_hooks() {
    let (dir, home) = install(POLICY);
    dir.write("policy.yaml", "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    when: 'command.contains(\"x\"'\n    deny: \"x\"\n");
    let out = home.hook(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "ls"}),
    );
    assert_denied_because(&out, "policy.yaml:5:");
    // A file that no longer parses breaks every hook, not only those whose rules are bad.
    dir.write("policy.yaml", "version: 1\nrules:\n  - id: a\n   hook: x\n");
    let out = home.hook(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "ls"}),
    );
    assert_denied_because(&out, "policy.yaml:4:");
    let out = home.hook(
        "pre_tool",
        &json!({"tool_name": "shell_exec", "arguments": {}}),
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["block"], json!(true), "{reply}");
    let out = home.hook("pre_api_tools", &json!({"context_name": "x", "tools": []}));
    assert_eq!(stdout_json(&out), json!({}));
    assert!(stderr(&out).contains("does not load"), "{}", stderr(&out));
}

#[test]
fn a_deleted_policy_denies_and_names_the_file() {
    let (dir, home) = install(POLICY);
    std::fs::remove_file(dir.path().join("policy.yaml")).unwrap();
    let out = home.hook(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "ls"}),
    );
    assert_denied_because(&out, "policy.yaml");
}

#[test]
fn a_broken_policy_still_registers_the_guarding_hooks() {
    let (dir, home) = install(POLICY);
    dir.write("policy.yaml", "version: [\n");
    let schema = stdout_json(&run(&home.plugin(), &["--schema"], &[], b""));
    let hooks = schema["hooks"].as_array().unwrap();
    for h in [
        "pre_shell_exec",
        "pre_file_read",
        "pre_file_write",
        "pre_fetch_url",
        "pre_tool",
    ] {
        assert!(hooks.contains(&json!(h)), "{h}");
    }
    assert!(schema["description"]
        .as_str()
        .unwrap()
        .contains("FAILED TO LOAD"));
}

#[test]
fn malformed_payloads_deny_on_permission_hooks_and_change_nothing_elsewhere() {
    let (_dir, home) = install(POLICY);
    let cases: [(&[u8], &str); 4] = [
        (b"{\"command\": ", "not valid JSON"),
        (b"", "empty"),
        (b"[1, 2]", "not a JSON object"),
        (b"{\"command\": \"\xff\xfe\"}", "not valid JSON"),
    ];
    for (body, why) in cases {
        let out = home.hook_raw("pre_shell_exec", body);
        assert_denied_because(&out, why);
        let out = home.hook_raw("pre_api_request", body);
        assert!(out.status.success());
        assert_eq!(stdout_json(&out), json!({}));
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }
}

#[test]
fn an_oversized_payload_is_read_to_the_end_and_denied() {
    let (_dir, home) = install(POLICY);
    let mut body = b"{\"tool_name\":\"shell_exec\",\"command\":\"".to_vec();
    body.resize(33 * 1024 * 1024, b'a');
    body.extend_from_slice(b"\"}");
    let out = home.hook_raw("pre_shell_exec", &body);
    assert_denied_because(&out, "limit");
}

#[test]
fn a_condition_failing_at_run_time_fails_closed_only_where_it_must() {
    // Errors no static check can foresee: a command that is not a number, a
    // key absent from a free-form request body.
    let policy = "version: 1
rules:
  - id: needs-field
    hook: pre_shell_exec
    when: int(command) > 0
    deny: \"never\"
  - id: needs-field-too
    hook: pre_api_request
    when: request_body.missing_field == 'x'
    request: { temperature: 0 }
";
    let (_dir, home) = install(policy);
    let out = home.hook(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "ls"}),
    );
    assert_denied_because(&out, "needs-field");
    let out = home.hook(
        "pre_api_request",
        &json!({"context_name": "x", "request_body": {}}),
    );
    assert_eq!(stdout_json(&out), json!({}));
    assert!(stderr(&out).contains("missing_field"), "{}", stderr(&out));
}

#[test]
fn fail_open_lets_the_harness_decide() {
    let policy = format!("settings:\n  on_error: fail_open\n{POLICY}");
    let (_dir, home) = install(&policy);
    let out = home.hook_raw("pre_shell_exec", b"not json");
    assert!(out.status.success());
    assert_eq!(stdout_json(&out), json!({}));
    assert!(stderr(&out).contains("not valid JSON"));
    // A working rule still denies under fail_open.
    let out = home.hook(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "rm x"}),
    );
    assert_eq!(stdout_json(&out)["denied"], json!(true));
}

#[test]
fn install_refuses_a_broken_policy() {
    let dir = TempDir::new("install-broken");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: nope\n    deny: \"x\"\n",
    );
    let home = TempDir::new("home");
    let out = policy(
        &[
            "install",
            "chibi",
            "--home",
            &home.path().display().to_string(),
            "--policy",
            &p.display().to_string(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown hook point `nope`"),
        "{}",
        stderr(&out)
    );
    assert!(!home.path().join("plugins").exists());
}

/// Issue 17, item 8: the plugin build (`--no-default-features`) installed
/// policies with CEL type errors that the default build refuses, and then
/// every shell command was denied. Both builds now give one verdict; CI
/// runs this file against both.
#[test]
fn install_refuses_cel_type_and_regex_errors_in_every_build() {
    let cases = [
        ("command < 3", "a string cannot be ordered against an int"),
        ("comand == 'ls'", "comand"),
        ("command.matches('(')", "invalid regex"),
    ];
    for (condition, problem) in cases {
        let dir = TempDir::new("install-types");
        let p = dir.write(
            "p.yaml",
            &format!(
                "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    when: \"{condition}\"\n    deny: \"x\"\n"
            ),
        );
        let home = TempDir::new("home");
        let out = policy(
            &[
                "install",
                "chibi",
                "--home",
                &home.path().display().to_string(),
                "--policy",
                &p.display().to_string(),
            ],
            b"",
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{condition}: {err}");
        assert!(
            err.contains(problem) && err.contains("p.yaml:5:"),
            "{condition}: {err}"
        );
        assert!(!home.path().join("plugins").exists(), "{condition}");
    }
}
