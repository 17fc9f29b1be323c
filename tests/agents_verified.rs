//! What running Codex 0.169, Gemini CLI 0.61 and Claude Code 2.1.331 for
//! real showed to be wrong (issue 19), each through the binary: install
//! (a command that stays the same, a stable copy, settings merged without
//! damage, uninstall), the project root, Gemini's tools and BeforeModel,
//! Claude Code's new fields and tools, canonical rewrites, the decision log.

mod common;

use common::{bin, repo, run, stdout_json, TempDir};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

/// `policy ARGS` with the installed copy kept under `data`.
fn policy_in(data: &Path, args: &[&str]) -> Output {
    run(
        &bin(),
        args,
        &[("XDG_DATA_HOME", data.to_str().unwrap())],
        b"",
    )
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs an installed settings command with an event, as the agent does.
fn run_installed(command: &str, event: &Value, env: &[(&str, &str)]) -> Value {
    let mut env = env.to_vec();
    env.push(("HOOK_POLICY_CACHE", "off"));
    stdout_json(&run(
        Path::new("/bin/sh"),
        &["-c", command],
        &env,
        event.to_string().as_bytes(),
    ))
}

fn hook_with(agent: &str, policy: &Path, event: &Value, env: &[(&str, &str)]) -> Output {
    // Defaults first: a later pair of the same name wins.
    let mut all = vec![("HOOK_POLICY_CACHE", "off"), ("HOME", "/home/user")];
    all.extend_from_slice(env);
    let env = all;
    run(
        &bin(),
        &["hook", agent, "--policy", policy.to_str().unwrap()],
        &env,
        event.to_string().as_bytes(),
    )
}

fn decision(reply: &Value) -> &str {
    reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .or_else(|| reply["decision"].as_str())
        .unwrap_or("none")
}

const DENY_RM: &str = "version: 1\nrules:\n  - id: no-rm\n    hook: pre_shell_exec\n    shell: { program: rm }\n    deny: no rm here\n";
const DENY_CURL: &str = "version: 1\nrules:\n  - id: no-curl\n    hook: pre_shell_exec\n    shell: { program: curl }\n    deny: no curl here\n";

fn codex_bash(command: &str, cwd: &str) -> Value {
    json!({"session_id": "s-1", "turn_id": "t-1", "cwd": cwd, "hook_event_name": "PreToolUse",
           "model": "m", "permission_mode": "bypassPermissions", "tool_name": "Bash",
           "tool_input": {"command": command}, "tool_use_id": "call_1"})
}

// A. Codex runs a hook only while its definition is the one the user
// trusted: installing another policy must not change the entry.
#[test]
fn codex_entry_stays_byte_for_byte_when_the_policy_changes_and_install_says_how_to_trust() {
    let dir = TempDir::new("a-codex-trust");
    let data = dir.path().join("data");
    let first = dir.write("first.yaml", DENY_RM);
    let second = dir.write("second.yaml", DENY_CURL);
    let hooks = dir.path().join("codex/hooks.json");
    let s = hooks.to_str().unwrap();
    let out = ok(&policy_in(
        &data,
        &[
            "install",
            "codex",
            "--policy",
            first.to_str().unwrap(),
            "--settings",
            s,
        ],
    ));
    assert!(
        out.contains("/hooks") && out.contains("trust"),
        "install must say how to trust the hook: {out}"
    );
    let before = std::fs::read(&hooks).unwrap();
    let command = read_json(&hooks)["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let event = codex_bash("rm notes.txt", "/home/user/demo");
    assert_eq!(decision(&run_installed(&command, &event, &[])), "deny");

    ok(&policy_in(
        &data,
        &[
            "install",
            "codex",
            "--policy",
            second.to_str().unwrap(),
            "--settings",
            s,
        ],
    ));
    assert_eq!(
        std::fs::read(&hooks).unwrap(),
        before,
        "the entry changed, so Codex would skip it until trusted again"
    );
    // The same command now guards with the new policy.
    assert_eq!(decision(&run_installed(&command, &event, &[])), "none");
    let curl = codex_bash("curl https://example.com", "/home/user/demo");
    assert_eq!(decision(&run_installed(&command, &curl, &[])), "deny");

    // A policy list that has gone missing denies (fail closed), it does not wave through.
    std::fs::remove_file(data.join("hook-policy/codex.policies")).unwrap();
    let reply = run_installed(&command, &curl, &[]);
    assert_eq!(decision(&reply), "deny", "{reply}");
    assert!(reply.to_string().contains("policy list"), "{reply}");
}

// B. Codex's `cwd` is the directory the model chose for the call.
#[test]
fn codex_project_root_comes_from_the_session_directory_not_the_event() {
    let dir = TempDir::new("b-codex-root");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let policy = repo().join("policies");
    // The model sets workdir /etc and adds a relative file: it lands in /etc.
    let patch = json!({"session_id": "s", "turn_id": "t", "cwd": "/etc", "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch", "tool_use_id": "c",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: cron.d/job\n+* * * * * root sh\n*** End Patch"}});
    let out = std::process::Command::new(bin())
        .args(["hook", "codex", "--policy", policy.to_str().unwrap()])
        .current_dir(&project)
        .env("HOOK_POLICY_CACHE", "off")
        .env_remove("HOOK_POLICY_PROJECT_ROOT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(patch.to_string().as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let reply = stdout_json(&out);
    assert_eq!(decision(&reply), "deny", "{reply}");
    assert!(
        reply
            .to_string()
            .contains("/etc/cron.d/job is outside the project"),
        "{reply}"
    );
    // HOOK_POLICY_PROJECT_ROOT names the root explicitly.
    let inside = json!({"session_id": "s", "cwd": "/srv/app", "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: notes.txt\n+x\n*** End Patch"}});
    let reply = stdout_json(&hook_with(
        "codex",
        &policy,
        &inside,
        &[("HOOK_POLICY_PROJECT_ROOT", "/srv/app")],
    ));
    assert_eq!(reply, json!({}));
    let reply = stdout_json(&hook_with(
        "codex",
        &policy,
        &inside,
        &[("HOOK_POLICY_PROJECT_ROOT", "/srv/other")],
    ));
    assert_eq!(decision(&reply), "deny", "{reply}");
}

// C. Gemini sets temperature, maxOutputTokens, topP and topK from the reply.
#[test]
fn gemini_before_model_keeps_the_incoming_settings_the_rule_does_not_set() {
    let dir = TempDir::new("c-gemini-model");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: cool\n    hook: pre_api_request\n    request: { temperature: 0.1, stop: ['END'] }\n",
    );
    let text = std::fs::read_to_string(
        repo().join("../shared/fixtures/gemini/bash_c_rm_rf-BeforeModel.json"),
    )
    .unwrap();
    let event: Value = serde_json::from_str(&text).unwrap();
    let out = hook_with("gemini", &policy, &event, &[]);
    assert_eq!(
        stdout_json(&out),
        json!({"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0.1, "topP": 0.95, "topK": 64}}}})
    );
    assert!(
        common::stderr(&out).contains("`stop`"),
        "{}",
        common::stderr(&out)
    );
    // `policy check` says so before it runs.
    let check = common::policy(&["check", policy.to_str().unwrap()], b"");
    let err = common::stderr(&check);
    assert!(check.status.success(), "{err}");
    assert!(
        err.contains("lint::request-key-ignored") && err.contains("request.stop"),
        "{err}"
    );
    assert!(!err.contains("request.temperature"), "{err}");
}

// D. Gemini 0.61's search tool reads what it searches; new tools are mapped;
// unknown tools still reach pre_tool.
#[test]
fn gemini_grep_search_is_guarded_like_reads_and_new_tools_are_known() {
    let project = TempDir::new("d-gemini-grep");
    project.write("server.pem", "-----BEGIN PRIVATE KEY-----\n");
    project.write("src/main.rs", "fn main() {}\n");
    let root = project.path().to_str().unwrap();
    let policies = repo().join("policies");
    let grep = |args: Value| {
        let e = json!({"session_id": "g", "cwd": root, "hook_event_name": "BeforeTool",
                       "tool_name": "grep_search", "tool_input": args});
        stdout_json(&hook_with("gemini", &policies, &e, &[]))
    };
    let r = grep(json!({"pattern": "PRIVATE", "dir_path": "."}));
    assert_eq!(r["decision"], "deny", "{r}");
    assert!(r["reason"].as_str().unwrap().contains("server.pem"), "{r}");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("the search would read it"),
        "{r}"
    );
    assert_eq!(
        grep(json!({"pattern": "main", "dir_path": "src"})),
        json!({})
    );
    assert_eq!(
        grep(json!({"pattern": "fn", "dir_path": ".", "include_pattern": "*.rs"})),
        json!({})
    );
    // A search of ~/.ssh reads the keys in it.
    let home = TempDir::new("d-home");
    home.write(".ssh/id_ed25519", "key");
    let ssh = home.path().join(".ssh");
    let e = json!({"session_id": "g", "cwd": root, "hook_event_name": "BeforeTool",
                   "tool_name": "grep_search", "tool_input": {"pattern": "x", "dir_path": ssh.to_str().unwrap()}});
    let r = stdout_json(&hook_with(
        "gemini",
        &policies,
        &e,
        &[("HOME", home.path().to_str().unwrap())],
    ));
    assert_eq!(r["decision"], "deny", "{r}");

    // Globs of read_many_files read what they match.
    let many = |include: Value| {
        let e = json!({"session_id": "g", "cwd": root, "hook_event_name": "BeforeTool",
                       "tool_name": "read_many_files", "tool_input": {"include": include}});
        stdout_json(&hook_with("gemini", &policies, &e, &[]))
    };
    assert_eq!(many(json!(["**/*"]))["decision"], "deny");
    assert_eq!(many(json!(["src/*.rs", "notes.txt"])), json!({}));
    // A link inside the project to a key outside it is read as the key.
    #[cfg(unix)]
    {
        let keys = TempDir::new("d-keys");
        keys.write("id_ed25519", "key");
        let linked = TempDir::new("d-linked");
        linked.write("README.md", "hi");
        std::os::unix::fs::symlink(
            keys.path().join("id_ed25519"),
            linked.path().join("notes.txt"),
        )
        .unwrap();
        let e = json!({"session_id": "g", "cwd": linked.path().to_str().unwrap(), "hook_event_name": "BeforeTool",
                       "tool_name": "grep_search", "tool_input": {"pattern": "x"}});
        let r = stdout_json(&hook_with("gemini", &policies, &e, &[]));
        assert_eq!(r["decision"], "deny", "{r}");
        assert!(r["reason"].as_str().unwrap().contains("id_ed25519"), "{r}");
    }

    let dir = TempDir::new("d-gemini-tools");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-flow\n    hook: pre_api_tools\n    tools: { exclude: ['type:flow'] }\n  - id: no-new-tool\n    hook: pre_tool\n    when: tool_name == 'brand_new_tool'\n    block: not this one\n",
    );
    let call = |tool: &str| {
        let e = json!({"session_id": "g", "cwd": "/p", "hook_event_name": "BeforeTool",
                       "tool_name": tool, "tool_input": {}});
        stdout_json(&hook_with("gemini", &policy, &e, &[]))
    };
    for tool in ["invoke_agent", "activate_skill", "enter_plan_mode"] {
        assert_eq!(call(tool)["decision"], "deny", "{tool}");
    }
    assert_eq!(call("write_todos"), json!({}));
    let r = call("brand_new_tool");
    assert_eq!(r["decision"], "deny", "{r}");
    assert!(
        r["reason"].as_str().unwrap().contains("not this one"),
        "{r}"
    );
    let listing = ok(&common::policy(&["adapters"], b""));
    for tool in [
        "grep_search",
        "invoke_agent",
        "activate_skill",
        "write_todos",
        "enter_plan_mode",
        "update_topic",
        "list_background_processes",
        "read_background_output",
    ] {
        assert!(
            listing.contains(&format!(" {tool} ")),
            "{tool} is not mapped"
        );
    }
}

// F, K, L. The decision log: the real event, the ids, the reason.
#[test]
fn the_decision_log_names_the_event_its_ids_and_the_reason() {
    let dir = TempDir::new("fkl-log");
    let log = dir.path().join("decisions.jsonl");
    // The recommended packs, and the request example for BeforeModel.
    let set = TempDir::new("fkl-policies");
    set.write(
        "packs.yaml",
        "version: 1\npacks:\n  enable: [recommended]\n",
    );
    set.write(
        "request.yaml",
        &std::fs::read_to_string(repo().join("examples/policies/request.yaml")).unwrap(),
    );
    let policies = set.path().to_path_buf();
    let env = [("HOOK_POLICY_LOG", log.to_str().unwrap())];
    let shared = repo().join("../shared/fixtures");
    for (agent, file) in [
        (
            "claude-code",
            "claude-code/final-spy__03-bash-c-rm-rf-PreToolUse-Bash.json",
        ),
        (
            "gemini",
            "gemini/bash_c_rm_rf-BeforeTool-run_shell_command.json",
        ),
        ("gemini", "gemini/bash_c_rm_rf-BeforeModel.json"),
        ("codex", "codex/rm_rf_root-PreToolUse-Bash.json"),
    ] {
        let event: Value =
            serde_json::from_str(&std::fs::read_to_string(shared.join(file)).unwrap()).unwrap();
        let mut env = env.to_vec();
        env.push(("HOOK_POLICY_PROJECT_ROOT", "/home/user/demo"));
        ok(&hook_with(agent, &policies, &event, &env));
    }
    let records: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 4);
    let hooks: Vec<&str> = records
        .iter()
        .map(|r| r["hook"].as_str().unwrap())
        .collect();
    assert_eq!(
        hooks,
        [
            "claude_code.PreToolUse",
            "gemini.BeforeTool",
            "gemini.BeforeModel",
            "codex.PreToolUse"
        ]
    );
    let reason = "recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user";
    for i in [0, 1, 3] {
        assert_eq!(records[i]["decision"], "deny", "{}", records[i]);
        assert_eq!(records[i]["reason"], reason, "{}", records[i]);
        assert_eq!(records[i]["rule"], "core.recursive-force-delete");
    }
    assert_eq!(
        records[0]["session_id"],
        "8c282a85-624a-4bba-bd98-97279adc753d"
    );
    assert_eq!(records[0]["tool_call_id"], "toolu_mock_00_c213a1a84e88");
    assert_eq!(
        records[0]["turn_id"],
        "4bc7a0ee-5fc5-4137-a158-7b05d0a5e147"
    );
    assert_eq!(
        records[1]["session_id"],
        "addbbe25-dc8c-45a4-a5af-48fd6114620b"
    );
    assert!(records[1].get("tool_call_id").is_none());
    assert_eq!(records[2]["decision"], "modify");
    assert_eq!(records[2]["rule"], "coding-temperature");
    assert_eq!(
        records[3]["turn_id"],
        "01a2105f-d19c-7263-939c-5cb9d2d691c7"
    );
    assert_eq!(records[3]["tool_call_id"], "call_mock_1");
}

// G. Claude Code's settings survive the install; the entry runs a stable copy.
#[cfg(unix)]
#[test]
fn claude_code_install_keeps_the_users_settings_as_they_were() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = TempDir::new("g-claude-install");
    let data = dir.path().join("data");
    let policies = repo().join("policies");
    let p = policies.to_str().unwrap();
    let original = r#"{
  "permissions": {
    "allow": ["Bash(ls:*)"]
  },
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "my-audit-log"
          },
          {
            "type": "command",
            "command": "/old/target/debug/policy hook claude-code --policy /old/policies"
          }
        ]
      }
    ]
  },
  "env": {
    "B": "2",
    "A": "1"
  }
}
"#;
    let real = dir.write("dotfiles/claude-settings.json", original);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("settings.json");
    symlink(&real, &link).unwrap();
    let l = link.to_str().unwrap();
    ok(&policy_in(
        &data,
        &["install", "claude-code", "--policy", p, "--settings", l],
    ));

    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
    let text = std::fs::read_to_string(&real).unwrap();
    let order: Vec<usize> = [
        "\"permissions\"",
        "\"model\"",
        "\"hooks\"",
        "\"env\"",
        "\"B\"",
        "\"A\"",
    ]
    .iter()
    .map(|k| text.find(k).unwrap())
    .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "keys re-sorted:\n{text}"
    );
    let merged: Value = serde_json::from_str(&text).unwrap();
    let group = &merged["hooks"]["PreToolUse"][0];
    assert_eq!(
        merged["hooks"]["PreToolUse"].as_array().unwrap().len(),
        1,
        "{merged}"
    );
    assert_eq!(group["hooks"][0]["command"], "my-audit-log", "{merged}");
    let ours = group["hooks"][1]["command"].as_str().unwrap();
    let stable = data.join("hook-policy/policy");
    assert!(ours.starts_with(stable.to_str().unwrap()), "{ours}");
    assert!(!ours.contains("/target/"), "{ours}");
    // The copy runs on its own.
    let event = json!({"session_id": "s", "cwd": "/home/user/demo", "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}});
    assert_eq!(decision(&run_installed(ours, &event, &[])), "deny");

    // N. Uninstall takes out our handler and nothing else.
    let out = ok(&policy_in(
        &data,
        &["uninstall", "claude-code", "--settings", l],
    ));
    assert!(out.contains("removed"), "{out}");
    let after = read_json(&real);
    assert_eq!(
        after["hooks"]["PreToolUse"],
        json!([{"matcher": "*", "hooks": [{"type": "command", "command": "my-audit-log"}]}])
    );
    assert_eq!(after["env"], json!({"B": "2", "A": "1"}));
    assert!(!stable.exists(), "the installed copy is left behind");
}

// H. Claude Code's newer fields and tools.
#[test]
fn claude_codes_new_fields_and_tools_are_understood() {
    let dir = TempDir::new("h-claude-new");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: effort\n    hook: claude_code.PreToolUse\n    when: has(payload.effort) && payload.effort.level == 'max' && has(payload.prompt_id)\n    deny: not at max effort\n  - id: newer\n    hook: claude_code.PreToolUse\n    when: has(payload.agent_id) && payload.agent_id == 'x'\n    deny: not from that agent\n  - id: no-network\n    hook: pre_api_tools\n    tools: { exclude: ['type:network'] }\n",
    );
    let check = common::policy(&["check", policy.to_str().unwrap()], b"");
    let err = common::stderr(&check);
    assert!(check.status.success(), "{err}");
    assert!(
        err.contains("cel::uncatalogued-field") && err.contains("agent_id"),
        "{err}"
    );
    assert!(
        !err.contains("`effort`") && !err.contains("prompt_id"),
        "{err}"
    );

    let shared = repo().join("../shared/fixtures/claude-code");
    let fixture = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(shared.join(name)).unwrap()).unwrap()
    };
    let mut e = fixture("final-spy__04-ls-la-PreToolUse-Bash.json");
    assert_eq!(
        stdout_json(&hook_with("claude-code", &policy, &e, &[])),
        json!({})
    );
    e["effort"] = json!({"level": "max"});
    assert_eq!(
        decision(&stdout_json(&hook_with("claude-code", &policy, &e, &[]))),
        "deny"
    );
    // Loading WebFetch through ToolSearch is loading a network tool.
    let search = fixture("final-spy__09-webfetch-metadata-PreToolUse-ToolSearch.json");
    let r = stdout_json(&hook_with("claude-code", &policy, &search, &[]));
    assert_eq!(decision(&r), "deny", "{r}");
    assert!(r.to_string().contains("`WebFetch`"), "{r}");
    // Monitor: its command, and a URL however deep.
    let policies = repo().join("policies");
    let monitor = fixture("final-spy__37-monitor-rm-rf-PreToolUse-Monitor.json");
    assert_eq!(
        decision(&stdout_json(&hook_with(
            "claude-code",
            &policies,
            &monitor,
            &[]
        ))),
        "deny"
    );
    let mut watch = monitor.clone();
    watch["tool_input"] =
        json!({"description": "w", "source": {"http": {"url": "http://169.254.169.254/latest"}}});
    assert_eq!(
        decision(&stdout_json(&hook_with(
            "claude-code",
            &policies,
            &watch,
            &[]
        ))),
        "deny"
    );
    let listing = ok(&common::policy(&["adapters"], b""));
    for tool in ["Agent", "Monitor", "ToolSearch"] {
        assert!(
            listing.contains(&format!(" {tool} ")),
            "{tool} is not mapped"
        );
    }
}

// I. One canonical rewrite, the same meaning everywhere.
#[test]
fn a_canonical_timeout_cap_caps_claude_codes_milliseconds() {
    let dir = TempDir::new("i-timeout");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: cap\n    hook: pre_tool\n    when: tool_name == 'shell_exec' && has(arguments.timeout) && arguments.timeout > 120\n    arguments: { timeout: 120 }\n",
    );
    let bash = |timeout: u64| {
        json!({"session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "make", "timeout": timeout}})
    };
    // 600,000 ms is ten minutes: capped to two, in milliseconds.
    let r = stdout_json(&hook_with("claude-code", &policy, &bash(600_000), &[]));
    assert_eq!(
        r["hookSpecificOutput"]["updatedInput"],
        json!({"command": "make", "timeout": 120_000}),
        "{r}"
    );
    // 90,000 ms is under the cap.
    assert_eq!(
        stdout_json(&hook_with("claude-code", &policy, &bash(90_000), &[])),
        json!({})
    );
}

// J. Claude Code's project directory.
#[test]
fn claude_project_dir_is_the_project_root() {
    let policies = repo().join("policies");
    let write = json!({"session_id": "s", "cwd": "/home/user/demo/sub", "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": "/home/user/demo/lib/a.rs", "content": "x"}});
    let r = stdout_json(&hook_with("claude-code", &policies, &write, &[]));
    assert_eq!(
        decision(&r),
        "deny",
        "without CLAUDE_PROJECT_DIR the root is the event cwd: {r}"
    );
    let r = stdout_json(&hook_with(
        "claude-code",
        &policies,
        &write,
        &[("CLAUDE_PROJECT_DIR", "/home/user/demo")],
    ));
    assert_eq!(r, json!({}));
}

// M. Gemini: only the events the policy uses.
#[test]
fn gemini_install_adds_before_model_only_for_request_rules() {
    let dir = TempDir::new("m-gemini-events");
    let data = dir.path().join("data");
    let tools_only = dir.write("tools.yaml", DENY_RM);
    let with_requests = repo().join("examples/policies/request.yaml");
    let settings = dir.path().join("gemini/settings.json");
    let s = settings.to_str().unwrap();
    let out = ok(&policy_in(
        &data,
        &[
            "install",
            "gemini",
            "--policy",
            tools_only.to_str().unwrap(),
            "--settings",
            s,
        ],
    ));
    assert!(out.contains("no BeforeModel"), "{out}");
    let doc = read_json(&settings);
    assert!(doc["hooks"].get("BeforeModel").is_none(), "{doc}");
    assert!(doc["hooks"].get("BeforeTool").is_some(), "{doc}");
    ok(&policy_in(
        &data,
        &[
            "install",
            "gemini",
            "--policy",
            with_requests.to_str().unwrap(),
            "--settings",
            s,
        ],
    ));
    assert!(read_json(&settings)["hooks"].get("BeforeModel").is_some());
    ok(&policy_in(
        &data,
        &[
            "install",
            "gemini",
            "--policy",
            tools_only.to_str().unwrap(),
            "--settings",
            s,
        ],
    ));
    assert!(read_json(&settings)["hooks"].get("BeforeModel").is_none());
}

// N. Honest messages, the right file, and a way back.
#[test]
fn install_tells_the_truth_refuses_another_agents_file_and_uninstalls() {
    let dir = TempDir::new("n-install");
    let data = dir.path().join("data");
    let policies = repo().join("policies");
    let p = policies.to_str().unwrap();
    let fresh = dir.path().join("new/settings.json");
    let out = ok(&policy_in(
        &data,
        &[
            "install",
            "claude-code",
            "--policy",
            p,
            "--settings",
            fresh.to_str().unwrap(),
        ],
    ));
    assert!(!out.contains(".bak"), "{out}");
    assert!(!dir.path().join("new/settings.json.bak").exists());

    // A Gemini settings file, by its folder or by its events.
    let gemini_dir = dir.write(".gemini/settings.json", "{\"theme\": \"dark\"}\n");
    let by_events = dir.write(
        "other.json",
        r#"{"hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [{"type": "command", "command": "x"}]}]}}"#,
    );
    for file in [&gemini_dir, &by_events] {
        let before = std::fs::read_to_string(file).unwrap();
        let out = policy_in(
            &data,
            &[
                "install",
                "claude-code",
                "--policy",
                p,
                "--settings",
                file.to_str().unwrap(),
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            common::stderr(&out).contains("Gemini"),
            "{}",
            common::stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(file).unwrap(), before);
    }

    // Settings that switch hooks off are pointed out.
    let off = dir.write("off/settings.json", "{\"disableAllHooks\": true}\n");
    let out = ok(&policy_in(
        &data,
        &[
            "install",
            "claude-code",
            "--policy",
            p,
            "--settings",
            off.to_str().unwrap(),
        ],
    ));
    assert!(
        out.contains("warning") && out.contains("disableAllHooks"),
        "{out}"
    );
    let off = dir.write(
        "goff/settings.json",
        "{\"hooksConfig\": {\"disabled\": [\"hook-policy\"]}}\n",
    );
    let out = ok(&policy_in(
        &data,
        &[
            "install",
            "gemini",
            "--policy",
            p,
            "--settings",
            off.to_str().unwrap(),
        ],
    ));
    assert!(
        out.contains("warning") && out.contains("hooksConfig.disabled"),
        "{out}"
    );
    ok(&policy_in(
        &data,
        &["uninstall", "gemini", "--settings", off.to_str().unwrap()],
    ));

    // Install then uninstall leaves a file exactly as it was.
    let original = "{\n  \"theme\": \"dark\"\n}\n";
    let settings = dir.write("gemini/settings.json", original);
    let s = settings.to_str().unwrap();
    ok(&policy_in(
        &data,
        &["install", "gemini", "--policy", p, "--settings", s],
    ));
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), original);
    ok(&policy_in(&data, &["uninstall", "gemini", "--settings", s]));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    // The Claude Code install is still there, and so is the copy it runs.
    assert!(data.join("hook-policy/policy").exists());
    assert!(data.join("hook-policy/claude-code.policies").exists());
    assert!(!data.join("hook-policy/gemini.policies").exists());
}
