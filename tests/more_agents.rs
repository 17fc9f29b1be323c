//! Cursor, GitHub Copilot CLI and Windsurf Cascade through `policy hook
//! AGENT`: events shaped as each vendor's hook documentation shows them,
//! exact replies out (stdout, exit status, and for Windsurf the reason on
//! stderr). Each agent lets a call through when its hook fails, so the
//! failure cases (malformed event, broken policy, deadline) matter as much
//! as the verdicts.

mod common;

use common::{bin, repo, run, stdout_json, TempDir};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

const RM_RF: &str = "recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user [hook-policy rule: core.recursive-force-delete]";
// Cursor's beforeReadFile is a read hook, not the tool gate: the path rule answers.
const SSH_READ: &str =
    "/home/user/.ssh/id_rsa holds keys; it is off limits [hook-policy rule: no-ssh-material]";
// The file-secrets and urls packs deny these at the tool gate, before the
// older path and URL rules run, so their words are the ones the agent reads.
const SSH: &str = "this file holds credentials and is off limits; ask the user for the one non-secret value you need, or use the matching .example file [hook-policy rule: file-secrets.credential-file-tool]";
const METADATA: &str = "this URL does not lead to the public internet (loopback, private, link-local or metadata address); use the public address, or ask the user [hook-policy rule: urls.internal-destination-tool]";

fn hook(agent: &str, policy: &Path, event: &[u8], env: &[(&str, &str)]) -> Output {
    let mut vars = vec![("HOME", "/home/user"), ("HOOK_POLICY_CACHE", "off")];
    vars.extend_from_slice(env);
    run(
        &bin(),
        &["hook", agent, "--policy", policy.to_str().unwrap()],
        &vars,
        event,
    )
}

fn shipped(agent: &str, event: &Value) -> Output {
    hook(
        agent,
        &repo().join("policies"),
        event.to_string().as_bytes(),
        &[],
    )
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// Events as the vendors' pages show them.

fn cursor(event: &str, fields: Value) -> Value {
    let mut e = json!({
        "hook_event_name": event,
        "conversation_id": "conv-123",
        "generation_id": "gen-456",
        "workspace_roots": ["/home/user/proj"],
    });
    for (k, v) in fields.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn copilot(tool: &str, args: Value) -> Value {
    // toolArgs is JSON text in the hooks configuration reference's example.
    json!({
        "timestamp": 1704614600000u64,
        "cwd": "/home/user/proj",
        "toolName": tool,
        "toolArgs": args.to_string(),
    })
}

fn windsurf(action: &str, tool_info: Value) -> Value {
    json!({
        "agent_action_name": action,
        "trajectory_id": "traj-1",
        "execution_id": "exec-1",
        "timestamp": "2025-01-15T10:30:00Z",
        "tool_info": tool_info,
    })
}

fn cursor_deny(reason: &str) -> Value {
    json!({"permission": "deny", "user_message": reason, "agent_message": reason})
}

fn copilot_deny(reason: &str) -> Value {
    json!({"permissionDecision": "deny", "permissionDecisionReason": reason})
}

/// Windsurf: exit status 2, the reason as the first stderr line, nothing on stdout.
fn assert_windsurf_denies(out: &Output, reason: &str) {
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert_eq!(stderr(out).lines().next(), Some(reason), "{out:?}");
}

fn assert_windsurf_silent(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
}

#[test]
fn a_dangerous_command_is_denied_in_each_agents_words() {
    let out = shipped(
        "cursor",
        &cursor(
            "beforeShellExecution",
            json!({"command": "rm -rf ~", "cwd": "/home/user/proj"}),
        ),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_json(&out), cursor_deny(RM_RF));

    let out = shipped(
        "copilot",
        &copilot(
            "bash",
            json!({"command": "rm -rf ~", "description": "Clean"}),
        ),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_json(&out), copilot_deny(RM_RF));

    let out = shipped(
        "windsurf",
        &windsurf(
            "pre_run_command",
            json!({"command_line": "rm -rf ~", "cwd": "/home/user/proj"}),
        ),
    );
    assert_windsurf_denies(&out, RM_RF);
}

#[test]
fn a_benign_command_gets_no_opinion_never_allow() {
    let out = shipped(
        "cursor",
        &cursor(
            "beforeShellExecution",
            json!({"command": "npm install express", "cwd": "/home/user/proj"}),
        ),
    );
    assert_eq!(stdout_json(&out), json!({}));
    let out = shipped("copilot", &copilot("bash", json!({"command": "npm test"})));
    assert_eq!(stdout_json(&out), json!({}));
    let out = shipped(
        "windsurf",
        &windsurf(
            "pre_run_command",
            json!({"command_line": "npm test", "cwd": "/home/user/proj"}),
        ),
    );
    assert_windsurf_silent(&out);
    assert!(stderr(&out).is_empty(), "{out:?}");
}

#[test]
fn a_secret_read_is_denied() {
    // Cursor's beforeReadFile reply has `permission` only; the reason is on stderr.
    let out = shipped(
        "cursor",
        &cursor(
            "beforeReadFile",
            json!({"file_path": "/home/user/.ssh/id_rsa", "content": "-----BEGIN"}),
        ),
    );
    assert_eq!(stdout_json(&out), json!({"permission": "deny"}));
    assert!(stderr(&out).contains(SSH_READ), "{out:?}");

    let out = shipped(
        "copilot",
        &copilot("view", json!({"path": "/home/user/.ssh/id_rsa"})),
    );
    assert_eq!(stdout_json(&out), copilot_deny(SSH));

    let out = shipped(
        "windsurf",
        &windsurf(
            "pre_read_code",
            json!({"file_path": "/home/user/.ssh/id_rsa"}),
        ),
    );
    assert_windsurf_denies(&out, SSH_READ);

    // An ordinary project file is read without a word.
    let out = shipped(
        "cursor",
        &cursor(
            "beforeReadFile",
            json!({"file_path": "/home/user/proj/src/main.ts", "content": "x"}),
        ),
    );
    assert_eq!(stdout_json(&out), json!({}));
}

#[test]
fn an_mcp_tool_reaches_the_tool_gate_and_its_url_is_checked() {
    // The shipped policy denies the metadata endpoint whatever tool asks.
    let url = json!({"url": "http://169.254.169.254/latest/meta-data/"});
    let out = shipped(
        "cursor",
        &cursor(
            "beforeMCPExecution",
            json!({"tool_name": "fetch", "tool_input": url.to_string(), "command": "npx mcp-server"}),
        ),
    );
    assert_eq!(stdout_json(&out), cursor_deny(METADATA));
    let out = shipped("copilot", &copilot("github-mcp-server/fetch", url.clone()));
    assert_eq!(stdout_json(&out), copilot_deny(METADATA));
    let out = shipped(
        "windsurf",
        &windsurf(
            "pre_mcp_tool_use",
            json!({"mcp_server_name": "web", "mcp_tool_name": "fetch", "mcp_tool_arguments": url}),
        ),
    );
    assert_windsurf_denies(&out, METADATA);

    // A policy that offers no MCP tools denies calling one, by its name.
    let dir = TempDir::new("more-agents-gate");
    let policy = dir.write(
        "gate.yaml",
        "version: 1\nrules:\n  - id: no-plugins\n    hook: pre_api_tools\n    tools: { exclude: ['type:plugin'] }\n",
    );
    let ok = json!({"query": "SELECT 1"});
    let out = hook(
        "cursor",
        &policy,
        cursor(
            "beforeMCPExecution",
            json!({"tool_name": "database_query", "tool_input": ok}),
        )
        .to_string()
        .as_bytes(),
        &[],
    );
    assert_eq!(
        stdout_json(&out),
        cursor_deny("the tool `database_query` is not offered under this policy [hook-policy rule: no-plugins]")
    );
    let out = hook(
        "windsurf",
        &policy,
        windsurf(
            "pre_mcp_tool_use",
            json!({"mcp_server_name": "db", "mcp_tool_name": "query", "mcp_tool_arguments": ok}),
        )
        .to_string()
        .as_bytes(),
        &[],
    );
    assert_windsurf_denies(
        &out,
        "the tool `mcp__db__query` is not offered under this policy [hook-policy rule: no-plugins]",
    );
    // ...and leaves the agents' own tools alone.
    let out = hook(
        "copilot",
        &policy,
        copilot("bash", json!({"command": "ls"}))
            .to_string()
            .as_bytes(),
        &[],
    );
    assert_eq!(stdout_json(&out), json!({}));
}

#[test]
fn a_malformed_event_is_denied() {
    let policies = repo().join("policies");
    for agent in ["cursor", "copilot", "windsurf"] {
        for bad in [&b"not json"[..], br#"{"toolArgs": "{"}"#, b"[]"] {
            let out = hook(agent, &policies, bad, &[]);
            let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
            assert!(
                said.contains("hook-policy could not decide, so it denies (fail closed)"),
                "{agent}: {out:?}"
            );
            if agent == "windsurf" {
                assert_eq!(out.status.code(), Some(2), "{out:?}");
            } else {
                assert_eq!(out.status.code(), Some(0), "{out:?}");
                let reply = stdout_json(&out);
                let denied = reply["permission"] == "deny" || reply["permissionDecision"] == "deny";
                assert!(denied, "{agent}: {reply}");
            }
        }
    }
    // Documented fields of the wrong type count as malformed too.
    let out = shipped(
        "copilot",
        &json!({"cwd": "/p", "toolName": "bash", "toolArgs": "[1]"}),
    );
    assert_eq!(stdout_json(&out)["permissionDecision"], "deny");
    let out = shipped(
        "cursor",
        &cursor("beforeShellExecution", json!({"cwd": "/p"})),
    );
    assert_eq!(stdout_json(&out)["permission"], "deny");
    let out = shipped(
        "windsurf",
        &windsurf("pre_run_command", json!({"cwd": "/p"})),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn events_with_nothing_to_decide_are_left_alone() {
    let out = shipped(
        "cursor",
        &cursor(
            "afterFileEdit",
            json!({"file_path": "/home/user/proj/a.ts"}),
        ),
    );
    assert_eq!(stdout_json(&out), json!({}));
    let out = shipped(
        "copilot",
        &json!({"hook_event_name": "SessionStart", "cwd": "/p"}),
    );
    assert_eq!(stdout_json(&out), json!({}));
    let out = shipped(
        "windsurf",
        &windsurf("post_run_command", json!({"command_line": "rm -rf ~"})),
    );
    assert_windsurf_silent(&out);
}

#[test]
fn a_broken_policy_denies_unless_it_fails_open() {
    let dir = TempDir::new("more-agents-broken");
    let broken = dir.write("broken.yaml", "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'command =='\n    deny: x\n");
    let cases = [
        (
            "cursor",
            cursor("beforeShellExecution", json!({"command": "ls"})),
        ),
        ("copilot", copilot("bash", json!({"command": "ls"}))),
        (
            "windsurf",
            windsurf("pre_run_command", json!({"command_line": "ls"})),
        ),
    ];
    for (agent, event) in &cases {
        let out = hook(agent, &broken, event.to_string().as_bytes(), &[]);
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(
            said.contains("fail closed") && said.contains("does not load"),
            "{agent}: {out:?}"
        );
        assert_eq!(
            out.status.code(),
            Some(if *agent == "windsurf" { 2 } else { 0 }),
            "{agent}"
        );
    }
    // on_error: fail_open: a rule failing at run time changes nothing.
    let open = dir.write(
        "open.yaml",
        "version: 1\nsettings: { on_error: fail_open }\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'int(command) > 3'\n    deny: x\n",
    );
    for (agent, event) in &cases {
        let out = hook(agent, &open, event.to_string().as_bytes(), &[]);
        assert_eq!(out.status.code(), Some(0), "{agent}: {out:?}");
        if *agent != "windsurf" {
            assert_eq!(stdout_json(&out), json!({}), "{agent}");
        }
        assert!(!stderr(&out).is_empty(), "{agent}");
    }
}

#[test]
fn a_decision_past_the_deadline_is_denied_in_time() {
    let dir = TempDir::new("more-agents-deadline");
    let slow = dir.write(
        "slow.yaml",
        "version: 1\nrules:\n  - id: slow\n    hook: pre_shell_exec\n    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))\n    deny: x\n",
    );
    let words = vec!["w"; 20_000].join(" ");
    let cases = [
        (
            "cursor",
            cursor("beforeShellExecution", json!({"command": words})),
        ),
        ("copilot", copilot("bash", json!({"command": words}))),
        (
            "windsurf",
            windsurf("pre_run_command", json!({"command_line": words})),
        ),
    ];
    for (agent, event) in cases {
        let started = std::time::Instant::now();
        let out = hook(
            agent,
            &slow,
            event.to_string().as_bytes(),
            &[("HOOK_POLICY_DEADLINE_MS", "300")],
        );
        let took = started.elapsed();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(
            said.contains("denies") && said.contains("longer than 300 ms"),
            "{agent}: {said}"
        );
        // Windsurf blocks only on status 2, so the deadline exits 2 as well.
        assert_eq!(
            out.status.code(),
            Some(if agent == "windsurf" { 2 } else { 0 }),
            "{agent}"
        );
        assert!(took.as_secs() < 10, "{agent}: answered after {took:?}");
    }
}

#[test]
fn an_ask_or_a_rewrite_denies_since_these_agents_cannot_be_trusted_with_them() {
    let dir = TempDir::new("more-agents-ask");
    let policy = dir.write(
        "ask.yaml",
        "version: 1\nrules:\n  - id: confirm-push\n    hook: pre_shell_exec\n    when: command.startsWith('git push')\n    ask: pushing needs a human\n  - id: quiet-npm\n    hook: pre_tool\n    when: has(arguments.command) && arguments.command == 'npm i'\n    arguments: { command: 'npm i --silent' }\n",
    );
    let out = hook(
        "cursor",
        &policy,
        cursor("beforeShellExecution", json!({"command": "git push"}))
            .to_string()
            .as_bytes(),
        &[],
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["permission"], "deny", "{reply}");
    assert!(
        reply["user_message"]
            .as_str()
            .unwrap()
            .contains("needs the user's approval"),
        "{reply}"
    );
    let out = hook(
        "copilot",
        &policy,
        copilot("bash", json!({"command": "npm i"}))
            .to_string()
            .as_bytes(),
        &[],
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["permissionDecision"], "deny", "{reply}");
    assert!(
        reply["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("rewrites the arguments"),
        "{reply}"
    );
    let out = hook(
        "windsurf",
        &policy,
        windsurf("pre_run_command", json!({"command_line": "git push"}))
            .to_string()
            .as_bytes(),
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn windsurf_writes_are_judged_on_their_new_text_and_copilot_reads_both_event_forms() {
    // A write of a private key's text is a write with that content.
    let dir = TempDir::new("more-agents-write");
    let policy = dir.write(
        "w.yaml",
        "version: 1\nrules:\n  - id: no-env\n    hook: pre_file_write\n    path: { glob: ['**/.env'] }\n    deny: .env files are off limits\n  - id: no-keys-in-files\n    hook: pre_file_write\n    when: content.contains('PRIVATE KEY')\n    deny: no keys in files\n",
    );
    let write = |path: &str, new: &str| {
        windsurf(
            "pre_write_code",
            json!({"file_path": path, "edits": [{"old_string": "", "new_string": new}]}),
        )
    };
    let out = hook(
        "windsurf",
        &policy,
        write("/home/user/proj/.env", "A=1").to_string().as_bytes(),
        &[],
    );
    assert_windsurf_denies(&out, ".env files are off limits [hook-policy rule: no-env]");
    let out = hook(
        "windsurf",
        &policy,
        write("/home/user/proj/k.txt", "-----BEGIN PRIVATE KEY-----")
            .to_string()
            .as_bytes(),
        &[],
    );
    assert_windsurf_denies(
        &out,
        "no keys in files [hook-policy rule: no-keys-in-files]",
    );
    let out = hook(
        "windsurf",
        &policy,
        write("/home/user/proj/a.rs", "fn main() {}")
            .to_string()
            .as_bytes(),
        &[],
    );
    assert_windsurf_silent(&out);

    // Copilot's VS Code compatible form: PreToolUse with tool_name/tool_input.
    let vscode = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "timestamp": "2025-01-15T10:30:00Z",
        "cwd": "/home/user/proj",
        "tool_name": "create",
        "tool_input": {"path": "/home/user/proj/.env", "file_text": "A=1"},
    });
    let out = hook("copilot", &policy, vscode.to_string().as_bytes(), &[]);
    assert_eq!(
        stdout_json(&out),
        copilot_deny(".env files are off limits [hook-policy rule: no-env]")
    );
}

#[test]
fn the_project_root_comes_from_the_agent_not_the_model() {
    // A rule that denies writes outside the project: Cursor's root is its
    // workspace root, whatever `cwd` the shell event carries.
    let dir = TempDir::new("more-agents-root");
    let policy = dir.write(
        "root.yaml",
        "version: 1\nrules:\n  - id: outside\n    hook: pre_shell_exec\n    when: \"!command.startsWith('ls ' + project_root)\"\n    deny: outside the project\n",
    );
    let e = cursor(
        "beforeShellExecution",
        json!({"command": "ls /home/user/proj", "cwd": "/tmp/elsewhere"}),
    );
    assert_eq!(
        stdout_json(&hook("cursor", &policy, e.to_string().as_bytes(), &[])),
        json!({})
    );
    let e = json!({"hook_event_name": "beforeShellExecution", "workspace_roots": ["/srv/other"], "command": "ls /home/user/proj", "cwd": "/home/user/proj"});
    assert_eq!(
        stdout_json(&hook("cursor", &policy, e.to_string().as_bytes(), &[]))["permission"],
        "deny"
    );
    // Windsurf's tool_info.cwd is the model's choice: the hook's own directory counts.
    let e = windsurf(
        "pre_run_command",
        json!({"command_line": "ls /home/user/proj", "cwd": "/home/user/proj"}),
    );
    let out = hook(
        "windsurf",
        &policy,
        e.to_string().as_bytes(),
        &[("HOOK_POLICY_PROJECT_ROOT", "/srv/other")],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = hook(
        "windsurf",
        &policy,
        e.to_string().as_bytes(),
        &[("HOOK_POLICY_PROJECT_ROOT", "/home/user/proj")],
    );
    assert_windsurf_silent(&out);
}

fn install(agent: &str, home: &Path, cwd: &Path, extra: &[&str]) -> Output {
    common::install_agent(agent, home, cwd, extra)
}

fn uninstall(agent: &str, home: &Path, file: &Path) -> Output {
    common::uninstall_agent(agent, home, file)
}

#[test]
fn install_writes_the_documented_file_once_and_the_entry_denies() {
    let t = TempDir::new("more-agents-install");
    let (home, proj) = (t.path().join("home"), t.path().join("proj"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    // Someone else's Cursor hook stays; ours is added beside it.
    let cursor_file = home.join(".cursor/hooks.json");
    std::fs::create_dir_all(cursor_file.parent().unwrap()).unwrap();
    std::fs::write(&cursor_file, r#"{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}], "beforeShellExecution": [{"command": "./audit.sh"}]}}"#).unwrap();
    let files = [
        (
            "cursor",
            "user",
            cursor_file.clone(),
            "beforeShellExecution",
        ),
        (
            "copilot",
            "project",
            proj.join(".github/hooks/hook-policy.json"),
            "preToolUse",
        ),
        (
            "windsurf",
            "user",
            home.join(".codeium/windsurf/hooks.json"),
            "pre_run_command",
        ),
        (
            "windsurf",
            "project",
            proj.join(".windsurf/hooks.json"),
            "pre_run_command",
        ),
    ];
    for (agent, scope, file, event) in &files {
        let out = install(agent, &home, &proj, &["--write", "--scope", scope]);
        assert!(out.status.success(), "{agent} {scope}: {out:?}");
        let first = std::fs::read(file).unwrap();
        // A second run changes nothing.
        let out = install(agent, &home, &proj, &["--write", "--scope", scope]);
        assert!(out.status.success(), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("nothing changed"),
            "{out:?}"
        );
        assert_eq!(std::fs::read(file).unwrap(), first, "{agent} {scope}");
        // The installed command, run as the agent runs it, denies rm -rf.
        let doc: Value = serde_json::from_slice(&first).unwrap();
        let hooks = doc["hooks"][event].as_array().unwrap();
        let ours = hooks.last().unwrap();
        let command = ours["command"].as_str().or(ours["bash"].as_str()).unwrap();
        let event = match *agent {
            "cursor" => cursor("beforeShellExecution", json!({"command": "rm -rf ~"})),
            "copilot" => copilot("bash", json!({"command": "rm -rf ~"})),
            _ => windsurf("pre_run_command", json!({"command_line": "rm -rf ~"})),
        };
        let out = run(
            Path::new("/bin/sh"),
            &["-c", command],
            &[("HOME", "/home/user")],
            event.to_string().as_bytes(),
        );
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(
            said.contains("core.recursive-force-delete"),
            "{agent}: {said}"
        );
    }
    // The other hooks of the Cursor file are still there, ours added once.
    let doc: Value = serde_json::from_slice(&std::fs::read(&cursor_file).unwrap()).unwrap();
    assert_eq!(
        doc["hooks"]["afterFileEdit"],
        json!([{"command": "./fmt.sh"}])
    );
    let shell = doc["hooks"]["beforeShellExecution"].as_array().unwrap();
    assert_eq!(shell.len(), 2, "{doc}");
    assert_eq!(shell[0], json!({"command": "./audit.sh"}));
    assert!(cursor_file.with_extension("json.bak").exists());
    // A file created by install had nothing to back up.
    assert!(!proj.join(".github/hooks/hook-policy.json.bak").exists());

    // Uninstall takes out exactly what install added.
    let data = home.join(".local/share/hook-policy");
    assert!(data.join("policy").exists() && data.join("cursor.policies").exists());
    let out = uninstall("cursor", &home, &cursor_file);
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&cursor_file).unwrap()).unwrap();
    assert_eq!(
        doc,
        json!({"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}], "beforeShellExecution": [{"command": "./audit.sh"}]}})
    );
    assert!(!data.join("cursor.policies").exists());
    // Files that held only our entries go; the binary stays while an agent uses it.
    let out = uninstall(
        "copilot",
        &home,
        &proj.join(".github/hooks/hook-policy.json"),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(!proj.join(".github/hooks/hook-policy.json").exists());
    assert!(data.join("policy").exists());
    for file in [
        home.join(".codeium/windsurf/hooks.json"),
        proj.join(".windsurf/hooks.json"),
    ] {
        let out = uninstall("windsurf", &home, &file);
        assert!(out.status.success(), "{out:?}");
        assert!(!file.exists(), "{}", file.display());
    }
    assert!(!data.join("policy").exists());
    // A second uninstall finds nothing and changes nothing.
    let before = std::fs::read(&cursor_file).unwrap();
    let out = uninstall("cursor", &home, &cursor_file);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read(&cursor_file).unwrap(), before);
}

#[test]
fn install_refuses_files_it_cannot_own_and_prints_without_write() {
    let t = TempDir::new("more-agents-refuse");
    let home = t.path().to_path_buf();
    let bad = t.write("bad.json", "{ not json");
    let claude = t.write(
        "settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": []}]}}"#,
    );
    let v2 = t.write("v2.json", r#"{"version": 2, "hooks": {}}"#);
    let copilot_file = t.write(
        "copilot.json",
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./guard.sh"}]}}"#,
    );
    for (agent, file) in [
        ("cursor", &bad),
        ("windsurf", &claude),
        ("cursor", &v2),
        ("windsurf", &bad),
        ("cursor", &copilot_file),
    ] {
        let before = std::fs::read(file).unwrap();
        let out = install(
            agent,
            &home,
            t.path(),
            &["--settings", file.to_str().unwrap()],
        );
        assert_eq!(out.status.code(), Some(2), "{agent}: {out:?}");
        assert!(stderr(&out).contains("nothing was changed"), "{out:?}");
        assert_eq!(std::fs::read(file).unwrap(), before);
    }
    // Cursor's own preToolUse hooks are Cursor's, not Copilot's.
    let cursor_own = t.write(
        "cursor-own.json",
        r#"{"version": 1, "hooks": {"preToolUse": [{"command": "./audit.sh", "matcher": "Shell"}]}}"#,
    );
    let own = cursor_own.to_str().unwrap();
    let out = install("cursor", &home, t.path(), &["--settings", own]);
    assert!(out.status.success(), "{out:?}");
    let out = install("copilot", &home, t.path(), &["--settings", own]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // Copilot CLI's user-level hooks directory (the hooks reference).
    let out = install("copilot", &home, t.path(), &["--write", "--scope", "user"]);
    assert!(out.status.success(), "{out:?}");
    let user: Value = serde_json::from_slice(
        &std::fs::read(home.join(".copilot/hooks/hook-policy.json")).unwrap(),
    )
    .unwrap();
    assert!(user["hooks"]["preToolUse"][0]["bash"]
        .as_str()
        .unwrap()
        .contains(" hook copilot --policy-list "));
    // Without --write the entry is printed and nothing is written.
    let out = install("copilot", &home, t.path(), &[]);
    assert!(out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["version"], 1);
    let entry = &printed["hooks"]["preToolUse"][0];
    assert_eq!(entry["type"], "command");
    assert_eq!(entry["timeoutSec"], 30);
    assert!(entry["bash"]
        .as_str()
        .unwrap()
        .contains(" hook copilot --policy-list "));
    assert!(!t.path().join(".github").exists());
}

#[test]
fn eval_answers_as_policy_hook_does() {
    let policies = repo().join("policies");
    let p = policies.to_str().unwrap();
    let cases = [
        (
            "cursor",
            cursor("beforeShellExecution", json!({"command": "rm -rf ~"})),
        ),
        ("copilot", copilot("bash", json!({"command": "rm -rf ~"}))),
        (
            "windsurf",
            windsurf("pre_run_command", json!({"command_line": "rm -rf ~"})),
        ),
    ];
    for (agent, event) in cases {
        let bytes = event.to_string();
        let hooked = hook(agent, &policies, bytes.as_bytes(), &[]);
        let evaled = run(
            &bin(),
            &["eval", "--harness", agent, "--policy", p],
            &[("HOME", "/home/user"), ("HOOK_POLICY_CACHE", "off")],
            bytes.as_bytes(),
        );
        assert_eq!(evaled.stdout, hooked.stdout, "{agent}");
        assert_eq!(stderr(&evaled), stderr(&hooked), "{agent}");
        // eval's own statuses: a Windsurf block is 1 (problems found).
        let want = if agent == "windsurf" { 1 } else { 0 };
        assert_eq!(evaled.status.code(), Some(want), "{agent}: {evaled:?}");
    }
}

#[test]
fn the_decision_log_names_the_agents_event_and_ids() {
    let t = TempDir::new("more-agents-log");
    let log = t.path().join("decisions.jsonl");
    let log_s = log.to_str().unwrap();
    let policies = repo().join("policies");
    let cases = [
        (
            "cursor",
            cursor("beforeShellExecution", json!({"command": "rm -rf ~"})),
            "cursor.beforeShellExecution",
            Some("conv-123"),
            Some("gen-456"),
        ),
        (
            "copilot",
            copilot("bash", json!({"command": "rm -rf ~"})),
            "copilot.preToolUse",
            None,
            None,
        ),
        (
            "windsurf",
            windsurf("pre_run_command", json!({"command_line": "rm -rf ~"})),
            "windsurf.pre_run_command",
            Some("traj-1"),
            Some("exec-1"),
        ),
    ];
    for (agent, event, _, _, _) in &cases {
        hook(
            agent,
            &policies,
            event.to_string().as_bytes(),
            &[("HOOK_POLICY_LOG", log_s)],
        );
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    for (line, (agent, _, hook_name, session, turn)) in lines.iter().zip(&cases) {
        assert_eq!(line["harness"], *agent, "{line}");
        assert_eq!(line["hook"], *hook_name, "{line}");
        assert_eq!(line["decision"], "deny", "{line}");
        assert_eq!(line["rule"], "core.recursive-force-delete", "{line}");
        assert_eq!(line["session_id"].as_str(), *session, "{line}");
        assert_eq!(line["turn_id"].as_str(), *turn, "{line}");
        assert!(
            !line.to_string().contains("rm -rf ~"),
            "payloads are never written: {line}"
        );
    }
}

#[test]
fn policy_test_cases_can_be_these_agents_events() {
    let t = TempDir::new("more-agents-policy-test");
    t.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-rm\n    hook: pre_shell_exec\n    when: command.startsWith('rm -rf')\n    deny: no rm\n",
    );
    t.write(
        "p.test.yaml",
        r#"tests:
  - name: windsurf rm
    harness: windsurf
    payload: {agent_action_name: pre_run_command, tool_info: {command_line: "rm -rf /"}}
    expect:
      reply: {exit_status: 2, reason: "no rm [hook-policy rule: no-rm]"}
  - name: cursor rm
    harness: cursor
    payload: {hook_event_name: beforeShellExecution, workspace_roots: ["/p"], command: "rm -rf /"}
    expect:
      reply: {permission: deny, user_message: "no rm [hook-policy rule: no-rm]", agent_message: "no rm [hook-policy rule: no-rm]"}
  - name: copilot ls
    harness: copilot
    payload: {cwd: /p, toolName: bash, toolArgs: '{"command":"ls"}'}
    expect:
      reply: {}
      not_matched: [no-rm]
  - name: a wrong expectation fails
    harness: windsurf
    payload: {agent_action_name: pre_run_command, tool_info: {command_line: "ls"}}
    expect:
      reply: {exit_status: 2, reason: "no rm [hook-policy rule: no-rm]"}
"#,
    );
    let out = run(&bin(), &["test", t.path().to_str().unwrap()], &[], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("3 passed; 1 failed"), "{text}");
    assert!(
        text.contains("a wrong expectation fails ... FAILED"),
        "{text}"
    );
}
