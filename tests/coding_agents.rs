//! Claude Code, Gemini CLI and Codex through `policy hook AGENT`: recorded
//! events in, exact replies out; the reply rules that matter to users (never
//! "allow", ask, rewrites, failures deny); and `policy install AGENT`.

mod common;

use common::{bin, repo, run, stdout_json, TempDir};
use serde_json::{json, Value};
use std::path::Path;

const AGENTS: [&str; 3] = ["claude-code", "gemini", "codex"];

fn hook(agent: &str, policy: &Path, event: &Value) -> std::process::Output {
    hook_with(agent, &[policy], event)
}

fn hook_with(agent: &str, policies: &[&Path], event: &Value) -> std::process::Output {
    let mut args = vec!["hook", agent];
    for p in policies {
        args.extend(["--policy", p.to_str().unwrap()]);
    }
    // Codex takes the project root from the directory it starts the hook
    // in (its session's), never from the event: these recorded sessions ran
    // in the events' `cwd`.
    let root = event["cwd"].as_str().unwrap_or("/");
    run(
        &bin(),
        &args,
        &[
            ("HOME", "/home/user"),
            ("HOOK_POLICY_CACHE", "off"),
            ("HOOK_POLICY_PROJECT_ROOT", root),
        ],
        event.to_string().as_bytes(),
    )
}

/// Every `tests/fixtures/agents/AGENT/NAME.input.json` gets exactly
/// `NAME.expected.json` from the shipped policies, with the request example
/// (`examples/policies/request.yaml`) for Gemini's BeforeModel. All
/// mismatches are reported together.
#[test]
fn recorded_events_get_the_recorded_replies() {
    let policies = repo().join("policies");
    let request = repo().join("examples/policies/request.yaml");
    let mut failures = Vec::new();
    let mut seen = 0;
    for agent in AGENTS {
        let dir = repo().join("tests/fixtures/agents").join(agent);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".input.json"))
            .collect();
        inputs.sort();
        for input in inputs {
            let expected_path = input
                .to_string_lossy()
                .replace(".input.json", ".expected.json");
            let event: Value =
                serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
            let out = hook_with(agent, &[&policies, &request], &event);
            seen += 1;
            if !out.status.success() {
                failures.push(format!("{}: exit {:?}", input.display(), out.status));
                continue;
            }
            let got = stdout_json(&out);
            if got != expected {
                failures.push(format!(
                    "{}:\n  expected {expected}\n  got      {got}",
                    input.display()
                ));
            }
        }
    }
    assert!(seen >= 25, "only {seen} recorded events");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_reply_ever_says_allow() {
    // Scan every recorded reply: an explicit allow would override the
    // user's own permission settings.
    for agent in AGENTS {
        for entry in std::fs::read_dir(repo().join("tests/fixtures/agents").join(agent)).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            if text.contains("permissionDecision") || text.contains("\"decision\"") {
                assert!(!text.contains("\"allow\""), "{text}");
            }
        }
    }
}

fn claude_event(tool: &str, input: Value) -> Value {
    json!({"session_id": "s", "transcript_path": "/t", "cwd": "/home/user/proj",
           "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input})
}

fn event_for(agent: &str, tool: &str, input: Value) -> Value {
    let mut e = claude_event(tool, input);
    if agent == "gemini" {
        e["hook_event_name"] = json!("BeforeTool");
    }
    e
}

fn shell_tool(agent: &str) -> &'static str {
    if agent == "gemini" {
        "run_shell_command"
    } else {
        "Bash"
    }
}

#[test]
fn ask_asks_on_claude_code_and_denies_where_the_agent_cannot_ask() {
    let dir = TempDir::new("agents-ask");
    let policy = dir.write(
        "ask.yaml",
        "version: 1\nrules:\n  - id: confirm-force-push\n    hook: pre_shell_exec\n    shell: { program: git, arg: '^push$', flags: ['-f|--force'] }\n    ask: force-pushing rewrites shared history\n",
    );
    let check = common::policy(&["check", policy.to_str().unwrap()], b"");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    for agent in AGENTS {
        let e = event_for(
            agent,
            shell_tool(agent),
            json!({"command": "git push --force origin main"}),
        );
        let got = stdout_json(&hook(agent, &policy, &e));
        match agent {
            "claude-code" => {
                assert_eq!(
                    got["hookSpecificOutput"]["permissionDecision"], "ask",
                    "{got}"
                );
                let reason = got["hookSpecificOutput"]["permissionDecisionReason"]
                    .as_str()
                    .unwrap();
                assert!(
                    reason.contains("force-pushing") && reason.contains("confirm-force-push"),
                    "{reason}"
                );
            }
            "gemini" => {
                assert_eq!(got["decision"], "deny", "{got}");
                assert!(
                    got["reason"].as_str().unwrap().contains("cannot ask"),
                    "{got}"
                );
            }
            _ => assert_eq!(
                got["hookSpecificOutput"]["permissionDecision"], "deny",
                "{got}"
            ),
        }
        // An ordinary push is none of the rule's business.
        let e = event_for(
            agent,
            shell_tool(agent),
            json!({"command": "git push origin main"}),
        );
        assert_eq!(stdout_json(&hook(agent, &policy, &e)), json!({}), "{agent}");
    }
}

#[test]
fn a_deny_wins_over_an_ask() {
    let dir = TempDir::new("agents-deny-ask");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: ask-rm\n    hook: pre_shell_exec\n    shell: { program: rm }\n    ask: deleting files\n  - id: deny-rf\n    priority: 5\n    hook: pre_shell_exec\n    shell: { program: rm, flags: ['-r', '-f'] }\n    deny: no recursive forced delete\n",
    );
    let e = claude_event("Bash", json!({"command": "rm -rf x"}));
    let got = stdout_json(&hook("claude-code", &policy, &e));
    assert_eq!(
        got["hookSpecificOutput"]["permissionDecision"], "deny",
        "{got}"
    );
    let e = claude_event("Bash", json!({"command": "rm x"}));
    let got = stdout_json(&hook("claude-code", &policy, &e));
    assert_eq!(
        got["hookSpecificOutput"]["permissionDecision"], "ask",
        "{got}"
    );
}

#[test]
fn argument_rewrites_reach_each_agent_as_it_allows() {
    let dir = TempDir::new("agents-rewrite");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: quiet-curl\n    hook: pre_tool\n    when: has(arguments.command) && arguments.command.startsWith('curl ')\n    arguments: { command: \"${{ arguments.command + ' --max-time 10' }}\" }\n",
    );
    for agent in AGENTS {
        let e = event_for(
            agent,
            shell_tool(agent),
            json!({"command": "curl https://example.com", "description": "d"}),
        );
        let got = stdout_json(&hook(agent, &policy, &e));
        let rewritten =
            json!({"command": "curl https://example.com --max-time 10", "description": "d"});
        match agent {
            // Asked, not allowed: the user sees the rewritten call.
            "claude-code" => {
                assert_eq!(
                    got["hookSpecificOutput"]["permissionDecision"], "ask",
                    "{got}"
                );
                assert_eq!(
                    got["hookSpecificOutput"]["updatedInput"], rewritten,
                    "{got}"
                );
            }
            "gemini" => assert_eq!(
                got,
                json!({"hookSpecificOutput": {"tool_input": rewritten}})
            ),
            // Codex cannot rewrite; running the call unrewritten would skip the rule.
            _ => {
                assert_eq!(
                    got["hookSpecificOutput"]["permissionDecision"], "deny",
                    "{got}"
                );
                assert!(got.to_string().contains("cannot"), "{got}");
            }
        }
    }
}

#[test]
fn a_rewritten_command_is_checked_again() {
    // pre_tool rewrites, then pre_shell_exec sees the new command (as chibi does).
    let dir = TempDir::new("agents-rewrite-check");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: expand\n    hook: pre_tool\n    when: \"has(arguments.command) && arguments.command == 'cleanup'\"\n    arguments: { command: rm -rf / }\n  - id: no-rm-rf\n    hook: pre_shell_exec\n    shell: { program: rm, flags: ['-r', '-f'] }\n    deny: no\n",
    );
    let e = claude_event("Bash", json!({"command": "cleanup"}));
    let got = stdout_json(&hook("claude-code", &policy, &e));
    assert_eq!(
        got["hookSpecificOutput"]["permissionDecision"], "deny",
        "{got}"
    );
}

#[test]
fn a_broken_policy_or_event_denies_tool_calls_unless_the_policy_fails_open() {
    let dir = TempDir::new("agents-broken");
    let broken = dir.write("broken.yaml", "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'command.contains('\n    deny: x\n");
    for agent in AGENTS {
        let e = event_for(agent, shell_tool(agent), json!({"command": "ls"}));
        let out = hook(agent, &broken, &e);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("deny") && text.contains("could not decide"),
            "{agent}: {text}"
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("does not load"),
            "{agent}"
        );
        // A malformed event against a good policy: also denied, exit 0.
        let policies = repo().join("policies");
        let out = run(
            &bin(),
            &["hook", agent, "--policy", policies.to_str().unwrap()],
            &[("HOOK_POLICY_CACHE", "off")],
            b"{\"tool_name\": ",
        );
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("deny") && text.contains("not valid JSON"),
            "{agent}: {text}"
        );
    }
    // on_error: fail_open: a rule failing at run time changes nothing.
    let open = dir.write(
        "open.yaml",
        "version: 1\nsettings: { on_error: fail_open }\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'int(command) > 3'\n    deny: x\n",
    );
    let e = claude_event("Bash", json!({"command": "ls"}));
    let out = hook("claude-code", &open, &e);
    assert_eq!(stdout_json(&out), json!({}));
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}

#[test]
fn a_decision_past_the_deadline_is_denied_in_time() {
    // Two nested loops over 20,000 words: hours of work unless stopped.
    let dir = TempDir::new("agents-deadline");
    let slow = dir.write(
        "slow.yaml",
        "version: 1\nrules:\n  - id: slow\n    hook: pre_shell_exec\n    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))\n    deny: x\n",
    );
    let words = vec!["w"; 20_000].join(" ");
    for agent in AGENTS {
        let e = event_for(agent, shell_tool(agent), json!({"command": words}));
        let started = std::time::Instant::now();
        let out = run(
            &bin(),
            &["hook", agent, "--policy", slow.to_str().unwrap()],
            &[
                ("HOOK_POLICY_CACHE", "off"),
                ("HOOK_POLICY_DEADLINE_MS", "300"),
            ],
            &serde_json::to_vec(&e).unwrap(),
        );
        let took = started.elapsed();
        assert!(out.status.success(), "{agent}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("deny") && text.contains("longer than 300 ms"),
            "{agent}: {text}"
        );
        assert!(took.as_secs() < 10, "{agent}: answered after {took:?}");
    }
}

#[test]
fn a_tool_the_policy_would_not_offer_is_denied_when_called() {
    let dir = TempDir::new("agents-filter");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-network-tools\n    hook: pre_api_tools\n    tools: { exclude: ['type:network', 'mcp__*'] }\n",
    );
    for (tool, denied) in [
        ("WebFetch", true),
        ("mcp__github__create_issue", true),
        ("Read", false),
    ] {
        let e = claude_event(
            tool,
            json!({"url": "https://example.com", "file_path": "/home/user/proj/a"}),
        );
        let got = stdout_json(&hook("claude-code", &policy, &e));
        assert_eq!(
            got.to_string().contains("not offered"),
            denied,
            "{tool}: {got}"
        );
    }
}

#[test]
fn native_hook_rules_see_the_agents_own_fields() {
    let dir = TempDir::new("agents-native");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-bypass-mode\n    hook: claude_code.PreToolUse\n    when: has(payload.permission_mode) && permission_mode == 'bypassPermissions' && tool_name == 'Bash'\n    deny: not in bypass mode\n",
    );
    let mut e = claude_event("Bash", json!({"command": "ls"}));
    assert_eq!(stdout_json(&hook("claude-code", &policy, &e)), json!({}));
    e["permission_mode"] = json!("bypassPermissions");
    let got = stdout_json(&hook("claude-code", &policy, &e));
    assert_eq!(
        got["hookSpecificOutput"]["permissionDecision"], "deny",
        "{got}"
    );
    // The same rule never fires for another agent.
    let mut g = e.clone();
    g["hook_event_name"] = json!("BeforeTool");
    assert_eq!(stdout_json(&hook("gemini", &policy, &g)), json!({}));
}

#[test]
fn the_cache_gives_the_same_replies() {
    let cache = TempDir::new("agents-cache");
    let policies = repo().join("policies");
    let e = claude_event("Bash", json!({"command": "sudo rm -fr /"}));
    let mut replies = Vec::new();
    for _ in 0..2 {
        let out = run(
            &bin(),
            &[
                "hook",
                "claude-code",
                "--policy",
                policies.to_str().unwrap(),
            ],
            &[
                ("HOME", "/home/user"),
                ("XDG_CACHE_HOME", cache.path().to_str().unwrap()),
            ],
            e.to_string().as_bytes(),
        );
        replies.push(stdout_json(&out));
    }
    assert_eq!(replies[0], replies[1]);
    assert_eq!(
        replies[0]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

#[test]
fn install_prints_or_merges_the_settings_entry() {
    let dir = TempDir::new("agents-install");
    let data = dir.path().join("data");
    let env = [("XDG_DATA_HOME", data.to_str().unwrap())];
    let install = |args: &[&str]| run(&bin(), args, &env, b"");
    let policies = repo().join("policies");
    let p = policies.to_str().unwrap();
    // Printed.
    let out = install(&["install", "claude-code", "--policy", p]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entry = stdout_json(&out);
    let command = entry["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        command.contains(" hook claude-code --policy-list /"),
        "{command}"
    );

    // Merged, keeping the user's own settings, twice without duplicating.
    let settings = dir.write(
        "settings.json",
        r#"{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-own-guard"}]}]}}"#,
    );
    for _ in 0..2 {
        let out = install(&[
            "install",
            "claude-code",
            "--policy",
            p,
            "--settings",
            settings.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(merged["model"], "opus");
    let groups = merged["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{merged}");
    assert_eq!(groups[0]["hooks"][0]["command"], "my-own-guard");

    // The installed command really works: run it as the agent would.
    let installed = groups[1]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let out = run(
        Path::new("/bin/sh"),
        &["-c", &installed],
        &[("HOOK_POLICY_CACHE", "off")],
        claude_event("Bash", json!({"command": "rm -rf /"}))
            .to_string()
            .as_bytes(),
    );
    assert_eq!(
        stdout_json(&out)["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );

    // A settings file that is not JSON is left alone.
    let bad = dir.write("bad.json", "{ not json");
    let out = install(&[
        "install",
        "gemini",
        "--policy",
        p,
        "--settings",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), "{ not json");

    // Gemini and Codex entries, and PicoClaw's process entry.
    let out = install(&["install", "gemini", "--policy", p]);
    assert!(
        stdout_json(&out)["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("hook gemini")
    );
    let out = install(&["install", "codex", "--policy", p]);
    assert!(
        stdout_json(&out)["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("hook codex")
    );
    let out = common::policy(&["install", "picoclaw", "--policy", p], b"");
    let snippet = stdout_json(&out);
    let proc_ = &snippet["hooks"]["processes"]["hook-policy"];
    assert_eq!(proc_["command"][1], "serve");
    assert_eq!(
        proc_["intercept"],
        json!(["before_llm", "before_tool", "approve_tool"])
    );

    // A policy that does not load is not installed.
    let broken = dir.write(
        "broken.yaml",
        "version: 1\nrules: [ {id: x, hook: nope} ]\n",
    );
    let out = install(&["install", "codex", "--policy", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_adapter_table_in_docs_is_fresh() {
    let out = common::policy(&["adapters", "--markdown"], b"");
    let committed = std::fs::read_to_string(repo().join("docs/adapters.md")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        committed,
        "docs/adapters.md is stale: cargo run -- adapters --markdown > docs/adapters.md"
    );
}
