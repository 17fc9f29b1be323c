//! `policy serve picoclaw` under a client that behaves like PicoClaw's own
//! (tests/picoclaw_client): what PicoClaw would do with each answer, and
//! within PicoClaw's timeouts. Each test is one finding of issue 17.

mod common;
mod picoclaw_client;

use common::{repo, TempDir};
use picoclaw_client::{Approval, BeforeLlm, BeforeTool, CallError, HookConfig, ProcessHook};
use serde_json::{json, Value};

const MIB: usize = 1024 * 1024;

fn shipped() -> HookConfig {
    HookConfig::serve(&repo().join("policies"))
}

fn mount(config: HookConfig) -> ProcessHook {
    ProcessHook::mount(config).expect("PicoClaw mounts the hook (hello answered)")
}

fn tool_call(agent: &str, tool: &str, arguments: Value) -> Value {
    json!({"meta": {"AgentID": agent, "TurnID": "t1", "SessionKey": "s1", "Iteration": 1},
           "tool": tool, "arguments": arguments})
}

fn assert_denied(outcome: &BeforeTool, needle: &str) {
    match outcome {
        BeforeTool::Denied(reason) => assert!(reason.contains(needle), "{reason}"),
        other => panic!("expected a denial mentioning {needle:?}, PicoClaw would do {other:?}"),
    }
}

fn assert_runs(outcome: &BeforeTool) {
    assert!(
        matches!(outcome, BeforeTool::Runs { .. }),
        "expected the tool to run, PicoClaw would do {outcome:?}"
    );
}

/// A request line as Go writes it, with `arguments` padded past `size`
/// bytes inside a string (`pad` is not read by any rule).
fn padded_line(id: u64, method: &str, tool: &str, args: Value, size: usize) -> Vec<u8> {
    let mut args = args;
    args["pad"] = json!("x".repeat(size));
    picoclaw_client::go_line(Some(id), method, &tool_call("main", tool, args))
}

// --- 1. lines longer than PicoClaw reads -------------------------------------

#[test]
fn a_tool_call_of_two_mib_is_decided_in_time() {
    // PicoClaw writes lines of any size; only what it reads is limited.
    let hook = mount(shipped());
    let mut args = json!({"command": "rm -rf /"});
    args["pad"] = json!("y".repeat(2 * MIB));
    let (outcome, took) = hook.before_tool(tool_call("main", "exec", args));
    assert_denied(&outcome, "core.recursive-force-delete");
    assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");
    assert!(hook.close());
}

#[test]
fn lines_over_the_read_limit_get_the_hooks_failure_answer_on_time() {
    let hook = mount(shipped());
    let size = 33 * MIB; // over the 32 MiB payload limit
                         // The id is read from the start of the line; before_tool denies...
    let big = hook.start_raw_call(
        "hook.before_tool",
        picoclaw_client::INTERCEPTOR_TIMEOUT,
        |id| {
            padded_line(
                id,
                "hook.before_tool",
                "exec",
                json!({"command": "ls"}),
                size,
            )
        },
    );
    let (r, took) = big.wait();
    let outcome = picoclaw_client::before_tool_outcome(r, "exec", &json!({}));
    assert_denied(&outcome, "bytes");
    assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");

    // ...approve_tool says no, at once rather than after PicoClaw's 60 s...
    let big = hook.start_raw_call(
        "hook.approve_tool",
        picoclaw_client::APPROVAL_TIMEOUT,
        |id| {
            padded_line(
                id,
                "hook.approve_tool",
                "exec",
                json!({"command": "ls"}),
                size,
            )
        },
    );
    let (r, took) = big.wait();
    match picoclaw_client::approval_outcome(r) {
        Approval::Denied(reason) => assert!(reason.contains("bytes"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");

    // ...and before_llm lets the request through unchanged.
    let big = hook.start_raw_call(
        "hook.before_llm",
        picoclaw_client::INTERCEPTOR_TIMEOUT,
        |id| {
            let params = json!({"meta": {"AgentID": "main"}, "model": "m",
            "messages": [{"role": "user", "content": "x".repeat(size)}],
            "options": {"temperature": 0.7}});
            picoclaw_client::go_line(Some(id), "hook.before_llm", &params)
        },
    );
    let (r, took) = big.wait();
    let v = r.expect("before_llm answered");
    assert_eq!(v["action"], "continue", "{v}");
    assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");

    // The conversation goes on.
    let (outcome, _) = hook.before_tool(tool_call(
        "main",
        "exec",
        json!({"command": "sudo rm -fr /"}),
    ));
    assert_denied(&outcome, "core.recursive-force-delete");
    assert!(!hook.reader_died());
    assert!(hook.close());
}

#[test]
fn replies_never_exceed_what_picoclaw_reads() {
    // A reason that quotes a 1.5 MiB command, and a request merge that would
    // have to echo a 2 MiB conversation: either line would end PicoClaw's
    // read loop for good, and every later call would time out (fail open).
    let dir = TempDir::new("pico-reply-size");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: quote\n    hook: pre_shell_exec\n    when: command.startsWith('echo')\n    deny: \"refused: ${{ command }}\"\n  - id: temp\n    hook: pre_api_request\n    request: { temperature: 0.1 }\n",
    );
    let hook = mount(HookConfig::serve(&policy));
    let command = format!("echo {}", "z".repeat(3 * MIB / 2));
    let (outcome, _) = hook.before_tool(tool_call("main", "exec", json!({"command": command})));
    assert_denied(&outcome, "refused: echo zzz");

    let (outcome, _) = hook.before_llm(json!({"meta": {"AgentID": "main"}, "model": "m",
        "messages": [{"role": "user", "content": "q".repeat(2 * MIB)}],
        "options": {"temperature": 0.7}}));
    // Too big to modify: the request goes out as it was (before_llm fails open).
    assert_eq!(
        outcome,
        BeforeLlm::Sent {
            model: json!("m"),
            options: json!({"temperature": 0.7})
        }
    );
    // A small request is merged as usual.
    let (outcome, _) = hook.before_llm(json!({"meta": {"AgentID": "main"}, "model": "m",
        "messages": [{"role": "user", "content": "hi"}], "options": {"temperature": 0.7}}));
    assert_eq!(
        outcome,
        BeforeLlm::Sent {
            model: json!("m"),
            options: json!({"temperature": 0.1})
        }
    );
    assert!(!hook.reader_died(), "PicoClaw's read loop ended");
    let (outcome, _) = hook.before_tool(tool_call("main", "exec", json!({"command": "echo hi"})));
    assert_denied(&outcome, "refused: echo hi");
    assert!(hook.close());
}

// --- 2. deadline and concurrency ---------------------------------------------

/// Two nested loops over 20,000 words: hours of work unless stopped.
fn slow_policy(dir: &TempDir) -> std::path::PathBuf {
    dir.write(
        "slow.yaml",
        "version: 1\nrules:\n  - id: slow\n    hook: pre_shell_exec\n    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))\n    deny: x\n  - id: no-rm\n    hook: pre_shell_exec\n    when: command.startsWith('rm ')\n    deny: no rm\n",
    )
}

fn slow_command() -> String {
    vec!["w"; 20_000].join(" ")
}

#[test]
fn a_slow_decision_is_answered_by_its_deadline_and_does_not_hold_up_others() {
    let dir = TempDir::new("pico-slow");
    let hook = mount(HookConfig::serve(&slow_policy(&dir)).env("HOOK_POLICY_DEADLINE_MS", "1500"));
    // Two sessions stuck on slow calls, then a third session's rm -rf.
    let slow1 = hook.start_before_tool(tool_call("a", "exec", json!({"command": slow_command()})));
    let slow2 = hook.start_approve_tool(tool_call("b", "exec", json!({"command": slow_command()})));
    let fast = hook.start_before_tool(tool_call("c", "exec", json!({"command": "rm -rf /"})));
    let ((fast_r, fast_took), fast_at) = fast.wait_at();
    let ((slow1_r, slow1_took), slow1_at) = slow1.wait_at();
    let (slow2_r, slow2_took) = slow2.wait();

    let fast = picoclaw_client::before_tool_outcome(fast_r, "exec", &json!({}));
    assert_denied(&fast, "no rm");
    assert!(
        fast_took < picoclaw_client::INTERCEPTOR_TIMEOUT,
        "{fast_took:?}"
    );
    // Decided beside the slow ones, not after them: replies are matched by id.
    assert!(fast_at < slow1_at, "the fast call waited for the slow one");

    let slow1 = picoclaw_client::before_tool_outcome(slow1_r, "exec", &json!({}));
    assert_denied(&slow1, "longer than 1500 ms");
    assert!(
        slow1_took < picoclaw_client::INTERCEPTOR_TIMEOUT,
        "{slow1_took:?}"
    );
    match picoclaw_client::approval_outcome(slow2_r) {
        Approval::Denied(reason) => assert!(reason.contains("longer than 1500 ms"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(
        slow2_took < picoclaw_client::INTERCEPTOR_TIMEOUT,
        "{slow2_took:?}"
    );

    // The stuck workers do not starve the pool: later calls still decide.
    for _ in 0..3 {
        let (o, took) = hook.before_tool(tool_call("c", "exec", json!({"command": "rm -rf ~"})));
        assert_denied(&o, "no rm");
        assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");
    }
    assert!(
        hook.close(),
        "the server did not end within 2 s of stdin closing"
    );
}

#[test]
fn the_default_deadline_is_below_picoclaws_interceptor_timeout() {
    let dir = TempDir::new("pico-default-deadline");
    let hook = mount(HookConfig::serve(&slow_policy(&dir)));
    let (outcome, took) =
        hook.before_tool(tool_call("a", "exec", json!({"command": slow_command()})));
    assert_denied(&outcome, "limit exceeded");
    assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");
}

#[test]
fn a_deadline_on_a_fail_open_policy_continues() {
    let dir = TempDir::new("pico-deadline-open");
    let policy = dir.write(
        "slow.yaml",
        "version: 1\nsettings: { on_error: fail_open }\nrules:\n  - id: slow\n    hook: pre_shell_exec\n    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))\n    deny: x\n",
    );
    let hook = mount(HookConfig::serve(&policy).env("HOOK_POLICY_DEADLINE_MS", "500"));
    let (outcome, took) =
        hook.before_tool(tool_call("a", "exec", json!({"command": slow_command()})));
    assert_runs(&outcome);
    assert!(took < picoclaw_client::INTERCEPTOR_TIMEOUT, "{took:?}");
}

// --- 3. calls without arguments -----------------------------------------------

#[test]
fn a_call_without_arguments_is_decided_as_one_with_empty_arguments() {
    // Go omits an empty `arguments` map (omitempty).
    let dir = TempDir::new("pico-noargs");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-etc\n    hook: [picoclaw.before_tool, picoclaw.approve_tool]\n    when: \"'path' in arguments && arguments.path.startsWith('/etc')\"\n    deny: not /etc\n",
    );
    let hook = mount(HookConfig::serve(&policy));
    let params = json!({"meta": {"AgentID": "main"}, "tool": "list_dir"});
    let line = String::from_utf8(picoclaw_client::go_line(
        Some(1),
        "hook.before_tool",
        &params,
    ))
    .unwrap();
    assert!(!line.contains("arguments"), "{line}");
    let (outcome, _) = hook.before_tool(params.clone());
    assert_runs(&outcome);
    let (approval, _) = hook.approve_tool(params);
    assert_eq!(approval, Approval::Approved);
    let (outcome, _) = hook.before_tool(tool_call("main", "list_dir", json!({"path": "/etc/ssh"})));
    assert_denied(&outcome, "not /etc");
    assert!(hook.close());
}

// --- 4. decision log ------------------------------------------------------------

fn log_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn serve_writes_one_log_line_per_decision() {
    let dir = TempDir::new("pico-log");
    let log = dir.path().join("decisions.jsonl");
    let hook = mount(shipped().env("HOOK_POLICY_LOG", log.to_str().unwrap()));
    let (o, _) = hook.before_tool(tool_call("main", "exec", json!({"command": "rm -rf /"})));
    assert_denied(&o, "core.recursive-force-delete");
    let (o, _) = hook.before_tool(tool_call("main", "exec", json!({"command": "ls"})));
    assert_runs(&o);
    let (a, _) = hook.approve_tool(tool_call("main", "exec", json!({"command": "ls"})));
    assert_eq!(a, Approval::Approved);
    assert!(hook.close());
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["harness"], "picoclaw");
    assert_eq!(lines[0]["hook"], "before_tool");
    assert_eq!(lines[0]["decision"], "deny");
    assert!(lines[0]["rule"].is_string(), "{}", lines[0]);
    assert_eq!(lines[1]["decision"], "none");
    assert_eq!(lines[2]["hook"], "approve_tool");
    // No payload content, only its digest.
    assert!(!std::fs::read_to_string(&log).unwrap().contains("rm -rf"));
}

#[test]
fn settings_log_and_deadline_denials_are_logged_too() {
    let dir = TempDir::new("pico-log-settings");
    let policy = dir.write(
        "slow.yaml",
        "version: 1\nsettings: { log: decisions.jsonl }\nrules:\n  - id: slow\n    hook: pre_shell_exec\n    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))\n    deny: x\n",
    );
    let hook = mount(HookConfig::serve(&policy).env("HOOK_POLICY_DEADLINE_MS", "500"));
    let (o, _) = hook.before_tool(tool_call("a", "exec", json!({"command": slow_command()})));
    assert_denied(&o, "longer than 500 ms");
    assert!(hook.close());
    let lines = log_lines(&dir.path().join("decisions.jsonl"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["decision"], "deny");
    assert!(
        lines[0]["error"].as_str().unwrap().contains("500 ms"),
        "{}",
        lines[0]
    );
}

// --- 6. the project root is PicoClaw's workspace -----------------------------

#[test]
fn the_workspace_is_the_project_root_not_the_working_directory() {
    let ws = TempDir::new("pico-ws");
    let elsewhere = TempDir::new("pico-cwd");
    let hook = mount(
        shipped()
            .arg("--workspace")
            .arg(ws.path().to_str().unwrap())
            .dir(elsewhere.path()),
    );
    let write = |path: String| {
        hook.before_tool(tool_call(
            "main",
            "write_file",
            json!({"path": path, "content": "hi"}),
        ))
        .0
    };
    assert_runs(&write("notes.md".into()));
    assert_runs(&write(ws.path().join("notes.md").display().to_string()));
    assert_denied(
        &write(elsewhere.path().join("notes.md").display().to_string()),
        "outside the project",
    );
    // A model cannot move the root: `cwd` is just an argument.
    let (o, _) = hook.before_tool(tool_call(
        "main",
        "write_file",
        json!({"path": "../x.md", "content": "hi", "cwd": elsewhere.path().join("a/b")}),
    ));
    assert_denied(&o, "outside the project");
    assert!(hook.close());
}

#[test]
fn without_workspace_the_root_is_picoclaws_default_workspace() {
    let home = TempDir::new("pico-home");
    let elsewhere = TempDir::new("pico-cwd2");
    let hook = mount(
        shipped()
            .env("PICOCLAW_HOME", home.path().to_str().unwrap())
            .env(
                "PICOCLAW_CONFIG",
                home.path().join("none.json").to_str().unwrap(),
            )
            .dir(elsewhere.path()),
    );
    let write = |path: String| {
        hook.before_tool(tool_call(
            "main",
            "write_file",
            json!({"path": path, "content": "hi"}),
        ))
        .0
    };
    assert_runs(&write(
        home.path().join("workspace/a.md").display().to_string(),
    ));
    assert_denied(
        &write(elsewhere.path().join("a.md").display().to_string()),
        "outside the project",
    );
    assert!(hook.close());

    // A configured workspace (agents.defaults.workspace) wins.
    let ws = TempDir::new("pico-ws-config");
    let config = home.path().join("config.json");
    std::fs::write(
        &config,
        json!({"agents": {"defaults": {"workspace": ws.path()}}}).to_string(),
    )
    .unwrap();
    let hook = mount(
        shipped()
            .env("PICOCLAW_HOME", home.path().to_str().unwrap())
            .env("PICOCLAW_CONFIG", config.to_str().unwrap())
            .dir(elsewhere.path()),
    );
    let (o, _) = hook.before_tool(tool_call(
        "main",
        "write_file",
        json!({"path": ws.path().join("a.md"), "content": "hi"}),
    ));
    assert_runs(&o);
    assert!(hook.close());
}

#[test]
fn install_sets_the_workspace_as_root_and_directory() {
    let ws = TempDir::new("pico-install");
    let out = common::policy(
        &[
            "install",
            "picoclaw",
            "--policy",
            repo().join("policies").to_str().unwrap(),
            "--workspace",
            ws.path().to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v = common::stdout_json(&out);
    let entry = &v["hooks"]["processes"]["hook-policy"];
    let ws_text = std::fs::canonicalize(ws.path())
        .unwrap()
        .display()
        .to_string();
    assert_eq!(entry["dir"], json!(ws_text), "{v}");
    let command: Vec<&str> = entry["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let at = command
        .iter()
        .position(|c| *c == "--workspace")
        .expect("--workspace");
    assert_eq!(command[at + 1], ws_text);
}

// --- 7. the default agent keeps its file tools --------------------------------

#[test]
fn the_default_agent_main_can_read_write_and_list() {
    let ws = TempDir::new("pico-main");
    let hook = mount(
        shipped()
            .arg("--workspace")
            .arg(ws.path().to_str().unwrap()),
    );
    for (tool, args) in [
        ("read_file", json!({"path": "README.md"})),
        ("write_file", json!({"path": "notes.md", "content": "hi"})),
        ("list_dir", json!({"path": "."})),
        (
            "edit_file",
            json!({"path": "notes.md", "old_text": "hi", "new_text": "ho"}),
        ),
    ] {
        let (o, _) = hook.before_tool(tool_call("main", tool, args.clone()));
        assert_runs(&o);
        let (a, _) = hook.approve_tool(tool_call("main", tool, args));
        assert_eq!(a, Approval::Approved, "{tool}");
    }
    // The guards still hold there.
    let (o, _) = hook.before_tool(tool_call("main", "read_file", json!({"path": ".env"})));
    assert_denied(&o, "file-secrets.credential-file");
    assert!(hook.close());
}

// --- the client itself ------------------------------------------------------------

#[test]
fn go_escaping_and_every_mode_round_trip() {
    let hook = mount(shipped());
    // `<`, `>`, `&` arrive as \u003c, \u003e, \u0026: still `rm -rf /`.
    let (o, _) = hook.before_tool(tool_call(
        "main",
        "exec",
        json!({"command": "true && rm -rf / > /dev/null 2>&1 < /dev/null"}),
    ));
    assert_denied(&o, "core.recursive-force-delete");
    // Observer notifications get no reply, and nothing is dropped.
    hook.notify("hook.runtime_event", json!({"Kind": 1}));
    let (o, _) = hook.before_tool(tool_call("main", "exec", json!({"command": "ls"})));
    assert_runs(&o);
    assert!(
        hook.dropped.lock().unwrap().is_empty(),
        "{:?}",
        hook.dropped.lock().unwrap()
    );
    let _ = CallError::Timeout;
    assert!(hook.close());
}

// --- 5. tools that were not mapped ----------------------------------------------

#[test]
fn typing_into_a_background_shell_is_shell_input() {
    // exec action write sends `data` to a session's stdin; send-keys sends
    // named keys (pkg/tools/shell.go). Both are commands to the shell.
    let hook = mount(shipped());
    let exec = |args: Value| hook.before_tool(tool_call("main", "exec", args)).0;
    // (A bare `bash` is refused by the shipped policy: a shell reading
    // input it cannot see. A watcher is not.)
    assert_denied(
        &exec(json!({"action": "run", "command": "bash", "background": "true"})),
        "cannot be known",
    );
    assert_runs(&exec(
        json!({"action": "run", "command": "make watch", "background": "true"}),
    ));
    assert_denied(
        &exec(json!({"action": "write", "sessionId": "s1", "data": "rm -rf /\n"})),
        "core.recursive-force-delete",
    );
    // Line editing is replayed: `ls`, two Left presses, then the rest.
    assert_denied(
        &exec(
            json!({"action": "write", "sessionId": "s1", "data": "ls\u{1b}[D\u{1b}[Drm -rf / #\r"}),
        ),
        "core.recursive-force-delete",
    );
    // History recall types what we cannot see: refused as unknowable.
    assert_denied(
        &exec(json!({"action": "send-keys", "sessionId": "s1", "keys": "up,enter"})),
        "cannot be known",
    );
    assert_runs(&exec(
        json!({"action": "write", "sessionId": "s1", "data": "ls -la\n"}),
    ));
    assert_runs(&exec(
        json!({"action": "send-keys", "sessionId": "s1", "keys": "ctrl-c"}),
    ));
    assert_runs(&exec(json!({"action": "poll", "sessionId": "s1"})));
    let (a, _) = hook.approve_tool(tool_call(
        "main",
        "exec",
        json!({"action": "write", "sessionId": "s1", "data": "sudo rm -fr ~\n"}),
    ));
    assert!(matches!(a, Approval::Denied(_)), "{a:?}");
    assert!(hook.close());
}

#[test]
fn send_file_load_image_cron_and_mcp_tools_are_guarded() {
    let hook = mount(shipped());
    let call = |tool: &str, args: Value| hook.before_tool(tool_call("main", tool, args)).0;
    // send_file hands a file to the chat, load_image reads one: file reads.
    assert_denied(
        &call("send_file", json!({"path": ".env"})),
        "file-secrets.credential-file",
    );
    assert_denied(
        &call("load_image", json!({"path": "~/.ssh/id_rsa"})),
        "file-secrets.credential-file",
    );
    assert_runs(&call("send_file", json!({"path": "report.pdf"})));
    // cron schedules a shell command.
    assert_denied(
        &call(
            "cron",
            json!({"action": "add", "message": "tidy", "command": "rm -rf ~", "every_seconds": 60}),
        ),
        "core.recursive-force-delete",
    );
    assert_runs(&call("cron", json!({"action": "list"})));
    // MCP tools are mcp_<server>_<tool>: their command and url arguments
    // are still judged.
    assert_denied(
        &call("mcp_box_run", json!({"command": "rm -rf /"})),
        "core.recursive-force-delete",
    );
    assert!(hook.close());

    // ...and tool filters see them as plugins, like other harnesses' MCP tools.
    let dir = TempDir::new("pico-mcp");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-plugins\n    hook: pre_api_tools\n    tools: { exclude: ['type:plugin'] }\n",
    );
    let hook = mount(HookConfig::serve(&policy));
    let (o, _) = hook.before_tool(tool_call(
        "main",
        "mcp_github_create_issue",
        json!({"title": "x"}),
    ));
    assert_denied(&o, "not offered");
    let (o, _) = hook.before_tool(tool_call("main", "read_file", json!({"path": "a"})));
    assert_runs(&o);
    assert!(hook.close());
}
