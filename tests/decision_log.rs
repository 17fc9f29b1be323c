//! The decision log through the installed plugin: concurrent appends stay
//! whole lines, a broken log never changes a decision, and no payload
//! content is written.

mod common;

use common::*;
use serde_json::{json, Value};

const POLICY: &str = "version: 1
settings:
  log: decisions.jsonl
rules:
  - id: no-rm
    hook: pre_shell_exec
    when: command.startsWith('rm')
    deny: \"no rm: ${{ command }}\"
";

#[test]
fn a_hundred_concurrent_calls_leave_a_hundred_whole_lines() {
    let dir = TempDir::new("log-concurrent");
    let p = dir.write("policy.yaml", POLICY);
    let home = ChibiHome::install(&[&p]);
    let plugin = home.plugin();
    let children: Vec<_> = (0..100)
        .map(|i| {
            let cmd = if i % 2 == 0 {
                format!("rm secret-token-{i}")
            } else {
                format!("ls {i}")
            };
            let body =
                serde_json::to_vec(&json!({"tool_name": "shell_exec", "command": cmd})).unwrap();
            let plugin = plugin.clone();
            std::thread::spawn(move || {
                run(&plugin, &[], &[("CHIBI_HOOK", "pre_shell_exec")], &body)
            })
        })
        .collect();
    for child in children {
        let out = child.join().unwrap();
        assert!(out.status.success());
    }
    let text = std::fs::read_to_string(dir.path().join("decisions.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 100);
    let mut denies = 0;
    for line in lines {
        let record: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(record["hook"], "pre_shell_exec");
        assert_eq!(record["payload_sha256"].as_str().unwrap().len(), 64);
        if record["decision"] == "deny" {
            denies += 1;
            assert_eq!(record["rule"], "no-rm");
            assert_eq!(
                record["reason"], "no rm: ${{ command }}",
                "the template, not the rendered text"
            );
        } else {
            assert_eq!(record["decision"], "none");
        }
    }
    assert_eq!(denies, 50);
    assert!(
        !text.contains("secret-token"),
        "payload content leaked into the log"
    );
}

#[test]
fn an_unwritable_log_never_changes_the_decision() {
    let dir = TempDir::new("log-broken");
    let p = dir.write("policy.yaml", POLICY);
    let home = ChibiHome::install(&[&p]);
    let body =
        serde_json::to_vec(&json!({"tool_name": "shell_exec", "command": "rm -rf x"})).unwrap();
    // The environment variable overrides the policy's setting: point it at a directory.
    let out = run(
        &home.plugin(),
        &[],
        &[
            ("CHIBI_HOOK", "pre_shell_exec"),
            ("HOOK_POLICY_LOG", &dir.path().display().to_string()),
        ],
        &body,
    );
    assert!(out.status.success());
    assert_eq!(stdout_json(&out)["denied"], json!(true));
    assert!(
        stderr(&out).contains("cannot write the decision log"),
        "{}",
        stderr(&out)
    );
    // /dev/full: every write fails with ENOSPC.
    if std::path::Path::new("/dev/full").exists() {
        let out = run(
            &home.plugin(),
            &[],
            &[
                ("CHIBI_HOOK", "pre_shell_exec"),
                ("HOOK_POLICY_LOG", "/dev/full"),
            ],
            &body,
        );
        assert_eq!(stdout_json(&out)["denied"], json!(true));
        assert!(
            stderr(&out).contains("cannot write the decision log"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn failures_are_logged_as_errors() {
    let dir = TempDir::new("log-error");
    let p = dir.write("policy.yaml", POLICY);
    let home = ChibiHome::install(&[&p]);
    let out = home.hook_raw("pre_shell_exec", b"not json");
    assert_eq!(stdout_json(&out)["denied"], json!(true));
    let text = std::fs::read_to_string(dir.path().join("decisions.jsonl")).unwrap();
    let record: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(record["decision"], "deny");
    assert!(record["error"].as_str().unwrap().contains("not valid JSON"));
}

/// Issue 17, item 10: a call the deadline answered left no line in the log.
/// It must leave exactly one, saying what the harness was told.
#[test]
fn a_deadline_answer_is_logged_once() {
    // Two nested loops over 20,000 words: minutes of work.
    let slow = "rules:
  - id: slow-shell
    hook: pre_shell_exec
    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))
    deny: \"x\"
";
    let words = vec!["w"; 20_000].join(" ");
    let body = serde_json::to_vec(&json!({"tool_name": "shell_exec", "command": words})).unwrap();
    let digest = {
        // The log identifies the payload by its SHA-256; compare with a fast call's.
        let dir = TempDir::new("log-digest");
        let p = dir.write(
            "policy.yaml",
            "version: 1\nsettings:\n  log: d.jsonl\nrules: []\n",
        );
        let home = ChibiHome::install(&[&p]);
        let out = home.hook_raw("pre_shell_exec", &body);
        assert!(out.status.success());
        let text = std::fs::read_to_string(dir.path().join("d.jsonl")).unwrap();
        let record: Value = serde_json::from_str(text.trim()).unwrap();
        record["payload_sha256"].as_str().unwrap().to_string()
    };
    let cases = [
        // (settings, log from the environment, decision logged, reply)
        ("settings:\n  log: decisions.jsonl\n", false, "deny", true),
        ("", true, "deny", true),
        (
            "settings:\n  log: decisions.jsonl\n  on_error: fail_open\n",
            false,
            "error",
            false,
        ),
    ];
    for (settings, from_env, decision, denied) in cases {
        let dir = TempDir::new("log-deadline");
        let p = dir.write("policy.yaml", &format!("version: 1\n{settings}{slow}"));
        let home = ChibiHome::install(&[&p]);
        let log = dir.path().join("decisions.jsonl");
        let log_text = log.display().to_string();
        let mut env = vec![
            ("CHIBI_HOOK", "pre_shell_exec"),
            ("HOOK_POLICY_DEADLINE_MS", "300"),
        ];
        if from_env {
            env.push(("HOOK_POLICY_LOG", &log_text));
        }
        let out = run(&home.plugin(), &[], &env, &body);
        assert!(out.status.success());
        let reply = stdout_json(&out);
        assert_eq!(reply.get("denied").is_some(), denied, "{settings}: {reply}");
        let text = std::fs::read_to_string(&log)
            .unwrap_or_else(|e| panic!("{settings}: no decision log ({e})"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{settings}: {text}");
        let record: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(record["harness"], "chibi");
        assert_eq!(record["hook"], "pre_shell_exec");
        assert_eq!(record["decision"], decision, "{settings}: {record}");
        assert!(
            record["error"]
                .as_str()
                .unwrap()
                .contains("took longer than 300 ms"),
            "{record}"
        );
        assert_eq!(record["payload_sha256"], digest.as_str());
        assert_eq!(record["payload_bytes"], body.len());
        assert_eq!(record["micros"], 300_000);
    }
}
