//! Fail-closed probes through `policy hook AGENT`, one table over every
//! command-hook agent (Claude Code, Gemini CLI, Codex, Cursor, Copilot CLI,
//! Windsurf): what an attacker or a buggy harness can send must never turn a
//! deny the policy asks for into silence. The chibi plugin's own matrix is
//! tests/fail_safe_matrix.rs; chibi-specific probes (its manifest, the
//! cache) are at the end of this file.

mod common;

use common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

/// Denies `rm` in a shell, `.env` reads and writes, internal URLs, and
/// every tool whose name starts with `mcp__evil` or is `Secret` at the gate.
const POLICY: &str = "version: 1
rules:
  - id: no-rm
    hook: pre_shell_exec
    shell: { program: rm }
    deny: \"no rm\"
  - id: no-env
    hook: [pre_file_read, pre_file_write]
    path: { glob: [\"**/.env\"] }
    deny: \"no env\"
  - id: no-internal
    hook: pre_fetch_url
    url: { class: [internal] }
    deny: \"internal\"
  - id: gate
    hook: pre_tool
    when: tool_name.startsWith('mcp__evil') || tool_name.lowerAscii() == 'secret'
    block: \"gated\"
";

const AGENTS: [&str; 6] = [
    "claude-code",
    "gemini",
    "codex",
    "cursor",
    "copilot",
    "windsurf",
];

fn policy_dir() -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new("fail-closed");
    let p = dir.write("policy.yaml", POLICY);
    (dir, p)
}

fn hook_with(agent: &str, policy: &Path, body: &[u8], env: &[(&str, &str)]) -> Output {
    let p = policy.display().to_string();
    run(&bin(), &["hook", agent, "--policy", &p], env, body)
}

fn hook(agent: &str, policy: &Path, event: &Value) -> Output {
    hook_with(agent, policy, event.to_string().as_bytes(), &[])
}

/// A shell command as each agent sends it.
fn shell_event(agent: &str, command: &str) -> Value {
    match agent {
        "gemini" => {
            json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": command}})
        }
        "cursor" => {
            json!({"hook_event_name": "beforeShellExecution", "command": command, "workspace_roots": ["/p"]})
        }
        "copilot" => {
            json!({"toolName": "bash", "toolArgs": json!({"command": command}).to_string(), "cwd": "/p"})
        }
        "windsurf" => {
            json!({"agent_action_name": "pre_run_command", "tool_info": {"command_line": command}})
        }
        _ => {
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}})
        }
    }
}

/// The agent's deny, with `why` in its reason. Every agent but Windsurf
/// reads exit status 0 and a JSON deny; Windsurf blocks on status 2.
fn assert_denies(agent: &str, out: &Output, why: &str, case: &str) {
    let err = stderr(out);
    assert!(!err.contains("panicked"), "{agent} {case}: {err}");
    if agent == "windsurf" {
        assert_eq!(out.status.code(), Some(2), "{agent} {case}: {out:?}");
        assert!(err.contains(why), "{agent} {case}: {err}");
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{agent} {case}: {err}");
    let reply = stdout_json(out);
    let (decision, reason) = match agent {
        "gemini" => (&reply["decision"], &reply["reason"]),
        "cursor" => (&reply["permission"], &reply["user_message"]),
        "copilot" => (
            &reply["permissionDecision"],
            &reply["permissionDecisionReason"],
        ),
        _ => (
            &reply["hookSpecificOutput"]["permissionDecision"],
            &reply["hookSpecificOutput"]["permissionDecisionReason"],
        ),
    };
    assert_eq!(decision, "deny", "{agent} {case}: {reply}");
    // Cursor's beforeReadFile reply has no message: the reason is on stderr.
    let said = reason.as_str().map_or(err.clone(), str::to_string);
    assert!(said.contains(why), "{agent} {case}: {reply} {err}");
}

/// No opinion: `{}` (Windsurf: status 0, nothing printed).
fn assert_quiet(agent: &str, out: &Output, case: &str) {
    assert_eq!(out.status.code(), Some(0), "{agent} {case}: {out:?}");
    if agent == "windsurf" {
        assert!(out.stdout.is_empty(), "{agent} {case}: {out:?}");
    } else {
        assert_eq!(stdout_json(out), json!({}), "{agent} {case}");
    }
}

#[test]
fn malformed_input_denies_on_every_agent() {
    let (_d, p) = policy_dir();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: [(&str, &[u8], &str); 8] = [
        ("empty", b"", "empty"),
        ("whitespace", b" \n\t", "empty"),
        ("truncated", b"{\"hook_event_name\": ", "not valid JSON"),
        ("an array", b"[1, 2]", "not a JSON object"),
        ("null", b"null", "not a JSON object"),
        ("a number", b"42", "not a JSON object"),
        (
            "not UTF-8",
            b"{\"command\": \"\xff\xfe\"}",
            "not valid JSON",
        ),
        ("deeply nested", deep.as_bytes(), "recursion limit"),
    ];
    for agent in AGENTS {
        for (name, body, why) in cases {
            let out = hook_with(agent, &p, body, &[]);
            assert_denies(agent, &out, why, name);
        }
        // A lone surrogate in a \u escape: serde refuses it; so do we.
        let mut body = shell_event(agent, "PLACEHOLDER").to_string();
        body = body.replace("PLACEHOLDER", "\\ud800 rm -rf /");
        let out = hook_with(agent, &p, body.as_bytes(), &[]);
        assert_denies(agent, &out, "not valid JSON", "lone surrogate");
    }
}

#[test]
fn an_event_of_the_wrong_shape_denies() {
    let (_d, p) = policy_dir();
    let cases: Vec<(&str, Value, &str)> = vec![
        // Claude Code, Gemini CLI, Codex: tool name or input missing or mistyped.
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_input": {"command": "rm -rf /"}}),
            "no tool_name",
        ),
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": 7, "tool_input": {}}),
            "no tool_name",
        ),
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "rm -rf /"}),
            "no tool_input object",
        ),
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": null}),
            "no tool_input object",
        ),
        (
            "gemini",
            json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": ["rm"]}),
            "no tool_input object",
        ),
        (
            "codex",
            json!({"hook_event_name": "PreToolUse", "tool_name": null, "tool_input": {}}),
            "no tool_name",
        ),
        // Cursor: the field the event is about is missing or not text.
        (
            "cursor",
            json!({"hook_event_name": "beforeShellExecution", "command": ["rm", "-rf", "/"]}),
            "no command",
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeReadFile", "file_path": null}),
            "no file_path",
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeMCPExecution", "tool_name": "x", "tool_input": 5}),
            "neither an object nor JSON text",
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeMCPExecution", "tool_name": "x", "tool_input": "[1]"}),
            "does not hold a JSON object",
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeMCPExecution", "tool_input": {}}),
            "no tool_name",
        ),
        // Copilot CLI: toolArgs JSON text that is not an object, no tool name.
        (
            "copilot",
            json!({"toolName": "bash", "toolArgs": "rm -rf /"}),
            "does not hold a JSON object",
        ),
        (
            "copilot",
            json!({"toolName": "bash", "toolArgs": 3}),
            "neither an object nor JSON text",
        ),
        ("copilot", json!({"toolArgs": "{}"}), "no tool name"),
        (
            "copilot",
            json!({"toolName": "", "toolArgs": "{}"}),
            "no tool name",
        ),
        // Windsurf: tool_info missing, not an object, or its field mistyped.
        (
            "windsurf",
            json!({"agent_action_name": "pre_run_command"}),
            "no tool_info.command_line",
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_run_command", "tool_info": "rm -rf /"}),
            "no tool_info.command_line",
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_read_code", "tool_info": {"file_path": ["/p/.env"]}}),
            "no tool_info.file_path",
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_mcp_tool_use", "tool_info": {"mcp_tool_name": "x"}}),
            "does not name its MCP server",
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_mcp_tool_use", "tool_info": {"mcp_server_name": "s", "mcp_tool_name": "x", "mcp_tool_arguments": "[]"}}),
            "does not hold a JSON object",
        ),
    ];
    for (agent, event, why) in cases {
        let out = hook(agent, &p, &event);
        assert_denies(agent, &out, why, &event.to_string());
    }
}

/// Before: each of these got `{}` (Windsurf: status 0), so every rule of
/// the policy was silently off for the call.
#[test]
fn an_event_name_the_adapter_does_not_know_denies() {
    let (_d, p) = policy_dir();
    let bash = json!({"command": "ls"});
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "claude-code",
            json!({"tool_name": "Bash", "tool_input": bash}),
            "no hook_event_name",
        ),
        (
            "claude-code",
            json!({"hook_event_name": "pretooluse", "tool_name": "Bash", "tool_input": bash}),
            "unknown event `pretooluse`",
        ),
        (
            "codex",
            json!({"hook_event_name": "PreToolCall", "tool_name": "Bash", "tool_input": bash}),
            "unknown event `PreToolCall`",
        ),
        (
            "gemini",
            json!({"hook_event_name": 3, "tool_name": "run_shell_command", "tool_input": bash}),
            "no hook_event_name",
        ),
        (
            "gemini",
            json!({"hook_event_name": "beforeTool", "tool_name": "run_shell_command", "tool_input": bash}),
            "unknown event `beforeTool`",
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeshellexecution", "command": "ls"}),
            "unknown event `beforeshellexecution`",
        ),
        (
            "cursor",
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": bash}),
            "unknown event `PreToolUse`",
        ),
        (
            "copilot",
            json!({"hook_event_name": "pretooluse", "toolName": "bash", "toolArgs": "{}"}),
            "unknown event `pretooluse`",
        ),
        (
            "copilot",
            json!({"hook_event_name": "BeforeTool", "tool_name": "bash", "tool_input": bash}),
            "unknown event `BeforeTool`",
        ),
        (
            "windsurf",
            json!({"agent_action_name": "PRE_RUN_COMMAND", "tool_info": {"command_line": "ls"}}),
            "unknown event `PRE_RUN_COMMAND`",
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_delete_file", "tool_info": {"file_path": "/p/x"}}),
            "unknown event `pre_delete_file`",
        ),
    ];
    for (agent, event, why) in cases {
        let out = hook(agent, &p, &event);
        assert_denies(agent, &out, why, &event.to_string());
    }
}

/// An entry put in the wrong agent's settings: the reply must be one the
/// agent that sent the event reads as a deny: Claude Code's `decision`
/// takes only `approve` or `block`, and Gemini CLI does not read Claude
/// Code's `hookSpecificOutput.permissionDecision`.
#[test]
fn another_agents_tool_event_is_denied_in_the_senders_words() {
    let (_d, p) = policy_dir();
    for (agent, sender, event) in [
        ("claude-code", "gemini", shell_event("gemini", "ls")),
        ("codex", "gemini", shell_event("gemini", "ls")),
        ("gemini", "claude-code", shell_event("claude-code", "ls")),
    ] {
        let out = hook(agent, &p, &event);
        assert_denies(sender, &out, "reached `policy hook", agent);
    }
    // Claude Code and Codex send the same PreToolUse: either entry decides it.
    let out = hook("codex", &p, &shell_event("claude-code", "rm -rf /"));
    assert_denies("codex", &out, "no rm", "Claude Code's event at codex");
}

#[test]
fn documented_events_with_nothing_to_decide_stay_quiet() {
    let (_d, p) = policy_dir();
    for (agent, event) in [
        (
            "claude-code",
            json!({"hook_event_name": "UserPromptSubmit", "prompt": "rm -rf /"}),
        ),
        (
            "claude-code",
            json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
        ),
        ("codex", json!({"hook_event_name": "SessionStart"})),
        (
            "gemini",
            json!({"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "cursor",
            json!({"hook_event_name": "afterShellExecution", "command": "rm -rf /"}),
        ),
        (
            "copilot",
            json!({"hook_event_name": "postToolUse", "toolName": "bash", "toolArgs": "{}"}),
        ),
        (
            "copilot",
            json!({"hook_event_name": "SessionStart", "cwd": "/p"}),
        ),
        (
            "windsurf",
            json!({"agent_action_name": "post_run_command", "tool_info": {"command_line": "rm -rf /"}}),
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_user_prompt", "tool_info": {"user_prompt": "x"}}),
        ),
    ] {
        let out = hook(agent, &p, &event);
        assert_quiet(agent, &out, &event.to_string());
    }
    // Copilot's camelCase event, should it come to carry its name, is the
    // tool call it was without one.
    let out = hook(
        "copilot",
        &p,
        &json!({"hook_event_name": "preToolUse", "toolName": "bash", "toolArgs": "{\"command\": \"rm -rf /\"}"}),
    );
    assert_denies("copilot", &out, "no rm", "named camelCase preToolUse");
}

/// Harnesses build these events with JSON.stringify, Go's encoding/json or
/// serde, and their tools read arguments the same way: the last of two
/// equal keys wins everywhere. So must it here, or `{"command": "ls",
/// "command": "rm -rf /"}` would be judged as `ls` and run as `rm`.
/// The agent's shell event with its command key twice: `first`, then `second`.
fn duplicated_command(agent: &str, first: &str, second: &str) -> String {
    let text = shell_event(agent, "SAFE").to_string();
    let key = if agent == "windsurf" {
        "command_line"
    } else {
        "command"
    };
    // Copilot's arguments are JSON text inside the event: quotes escaped.
    let q = if agent == "copilot" { "\\\"" } else { "\"" };
    let one = format!("{q}{key}{q}:{q}SAFE{q}");
    let two = format!("{q}{key}{q}:{q}{first}{q},{q}{key}{q}:{q}{second}{q}");
    assert!(text.contains(&one), "{agent}: {text}");
    text.replace(&one, &two)
}

/// Harnesses build these events with JSON.stringify, Go's encoding/json or
/// serde, and their tools read arguments the same way: the last of two
/// equal keys wins everywhere. So must it here, or `{"command": "ls",
/// "command": "rm -rf /"}` would be judged as `ls` and run as `rm`.
#[test]
fn duplicate_keys_are_read_as_the_harness_reads_them() {
    let (_d, p) = policy_dir();
    for agent in AGENTS {
        // The dangerous command last: what the harness runs.
        let body = duplicated_command(agent, "ls", "rm -rf /");
        let out = hook_with(agent, &p, body.as_bytes(), &[]);
        assert_denies(agent, &out, "no rm", &body);
        // The other way round, the harness runs `ls`: no opinion.
        let body = duplicated_command(agent, "rm -rf /", "ls");
        let out = hook_with(agent, &p, body.as_bytes(), &[]);
        assert_quiet(agent, &out, &body);
    }
    // Duplicate event names: the last one says which event this is.
    let out = hook_with(
        "claude-code",
        &p,
        br#"{"hook_event_name":"PostToolUse","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm x"}}"#,
        &[],
    );
    assert_denies("claude-code", &out, "no rm", "duplicate event name");
}

/// Tool names the table does not list still reach the tool gate, and a
/// `command` argument (text or argv) is still a shell command.
#[test]
fn unlisted_mcp_and_case_variant_tools_reach_the_tool_gate() {
    let (_d, p) = policy_dir();
    for (agent, event) in [
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__evil__run", "tool_input": {}}),
        ),
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": "SECRET", "tool_input": {}}),
        ),
        (
            "gemini",
            json!({"hook_event_name": "BeforeTool", "tool_name": "Secret", "tool_input": {}}),
        ),
        (
            "codex",
            json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__evil__x", "tool_input": {}}),
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeMCPExecution", "tool_name": "mcp__evil__x", "tool_input": "{}"}),
        ),
        ("copilot", json!({"toolName": "secret", "toolArgs": "{}"})),
        (
            "windsurf",
            json!({"agent_action_name": "pre_mcp_tool_use", "tool_info": {"mcp_server_name": "evil", "mcp_tool_name": "x", "mcp_tool_arguments": {}}}),
        ),
    ] {
        let out = hook(agent, &p, &event);
        assert_denies(agent, &out, "gated", &event.to_string());
    }
    for (agent, event) in [
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__srv__exec", "tool_input": {"command": ["rm", "-rf", "/"]}}),
        ),
        (
            "claude-code",
            json!({"hook_event_name": "PreToolUse", "tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "gemini",
            json!({"hook_event_name": "BeforeTool", "tool_name": "Run_Shell_Command", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "cursor",
            json!({"hook_event_name": "beforeMCPExecution", "tool_name": "Shell", "tool_input": {"command": "rm -rf /"}}),
        ),
        (
            "copilot",
            json!({"toolName": "Bash", "toolArgs": "{\"command\": \"rm -rf /\"}"}),
        ),
        (
            "windsurf",
            json!({"agent_action_name": "pre_mcp_tool_use", "tool_info": {"mcp_server_name": "s", "mcp_tool_name": "x", "mcp_tool_arguments": "{\"command\": [\"rm\", \"-rf\", \"/\"]}"}}),
        ),
    ] {
        let out = hook(agent, &p, &event);
        assert_denies(agent, &out, "no rm", &event.to_string());
    }
}

#[test]
fn very_long_paths_and_urls_are_judged_whole() {
    let (_d, p) = policy_dir();
    let deep = format!("/p/{}.env", "a/".repeat(300_000));
    let climbing = format!("/p/{}p/.env", "../".repeat(300_000));
    for path in [&deep, &climbing] {
        for (agent, event) in [
            (
                "claude-code",
                json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": path}}),
            ),
            (
                "cursor",
                json!({"hook_event_name": "beforeReadFile", "file_path": path}),
            ),
            (
                "windsurf",
                json!({"agent_action_name": "pre_read_code", "tool_info": {"file_path": path}}),
            ),
        ] {
            let out = hook(agent, &p, &event);
            assert_denies(agent, &out, "no env", &path[..40]);
        }
    }
    let url = format!("http://169.254.169.254/{}", "a".repeat(2_000_000));
    let event = json!({"hook_event_name": "PreToolUse", "tool_name": "WebFetch", "tool_input": {"url": url}});
    let out = hook("claude-code", &p, &event);
    assert_denies("claude-code", &out, "internal", "2 MB URL");
}

/// Lookalikes are other names, to the shell and the file system as here:
/// `ｒｍ` (fullwidth) is a program bash does not find, `.ｅnv` another file.
/// Nothing is normalised, so nothing a rule names can be reached through
/// a lookalike, and a lookalike is not mistaken for what it imitates.
#[test]
fn unicode_lookalikes_are_the_names_the_system_sees() {
    let (_d, p) = policy_dir();
    for agent in AGENTS {
        for command in [
            "\u{ff52}\u{ff4d} -rf /",
            "r\u{200b}m -rf /",
            "rm\u{a0}-rf /",
        ] {
            let out = hook(agent, &p, &shell_event(agent, command));
            assert_quiet(agent, &out, command);
        }
        // The real program behind a lookalike argument is still seen.
        let out = hook(agent, &p, &shell_event(agent, "rm -rf /\u{ff0f}"));
        assert_denies(agent, &out, "no rm", "rm with a lookalike slash");
    }
    let read = |path: &str| json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": path}});
    let out = hook("claude-code", &p, &read("/p/.\u{ff45}nv"));
    assert_quiet("claude-code", &out, "fullwidth e");
    let out = hook("claude-code", &p, &read("/p/./sub/../.env"));
    assert_denies("claude-code", &out, "no env", "dot segments");
}

/// A line padded past what the shell analysis reads (64 KiB, 10,000
/// commands) used to hide a command in plain sight: `shell: {program: rm}`
/// found no `rm` and said nothing. A rule that looks for a command now
/// cannot say no on such a line, so the call fails closed.
#[test]
fn nul_bytes_and_padded_commands_cannot_hide_a_command() {
    let (_d, p) = policy_dir();
    let long = format!("{} && rm -rf /", "echo x ".repeat(150_000));
    let many = format!("{}rm -rf /", "true;".repeat(10_001));
    for agent in AGENTS {
        for (name, command, why) in [
            ("NUL after rm", "rm -rf /\u{0}", "no rm"),
            ("NUL before rm", "ls\u{0}; rm -rf /", "no rm"),
            (
                "1 MB before rm",
                long.as_str(),
                "could not be analysed whole",
            ),
            (
                "10,001 commands before rm",
                many.as_str(),
                "could not be analysed whole",
            ),
        ] {
            let out = hook(agent, &p, &shell_event(agent, command));
            assert_denies(agent, &out, why, name);
        }
        // A long line without the command is denied too (the rule cannot
        // tell), but only by rules that look for a command.
        let out = hook(
            agent,
            &p,
            &shell_event(agent, &long.replace("rm -rf /", "ls")),
        );
        assert_denies(agent, &out, "could not be analysed whole", "1 MB, no rm");
    }
    // chibi's plugin, through the same analysis.
    let home = ChibiHome::install(&[&p]);
    for (command, why) in [
        (long.as_str(), "could not be analysed whole"),
        (many.as_str(), "could not be analysed whole"),
        ("ls\u{0}; rm -rf /", "no rm"),
    ] {
        let reply = home.reply(
            "pre_shell_exec",
            &json!({"tool_name": "shell_exec", "command": command}),
        );
        assert_eq!(reply["denied"], json!(true), "chibi: {reply}");
        assert!(
            reply["reason"].as_str().unwrap().contains(why),
            "chibi: {reply}"
        );
    }
    let out = home.hook_raw(
        "pre_shell_exec",
        br#"{"tool_name":"shell_exec","command":"ls","command":"rm -rf /"}"#,
    );
    assert_eq!(
        stdout_json(&out)["denied"],
        json!(true),
        "chibi: duplicate key"
    );
    // The same through a CEL condition.
    let dir = TempDir::new("fail-closed-runs");
    let cel = dir.write(
        "runs.yaml",
        "version: 1\nrules:\n  - id: runs-rm\n    hook: pre_shell_exec\n    when: command.runs('rm') || command.runsWith('sudo', ['-i'])\n    deny: no rm\n",
    );
    let out = hook("claude-code", &cel, &shell_event("claude-code", &many));
    assert_denies("claude-code", &out, "could not be analysed whole", "runs()");
    let out = hook("claude-code", &cel, &shell_event("claude-code", "ls"));
    assert_quiet("claude-code", &out, "runs() on a short line");
}

#[test]
fn a_policy_that_does_not_load_denies_on_every_agent() {
    let dir = TempDir::new("fail-closed-broken");
    let syntax = dir.write("syntax.yaml", "version: 1\nrules: [\n");
    let cel = dir.write(
        "cel.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'command.foo('\n    deny: x\n",
    );
    let empty_file = dir.write("empty.yaml", "");
    let empty_dir = dir.path().join("no-policies");
    std::fs::create_dir_all(&empty_dir).unwrap();
    // A symlink to itself: unreadable even for root.
    let unreadable = dir.path().join("loop.yaml");
    std::os::unix::fs::symlink(&unreadable, &unreadable).unwrap();
    let missing = dir.path().join("missing.yaml");
    let cases = [
        (syntax, "syntax.yaml:2"),
        (cel, "cel.yaml:5"),
        (empty_file, "empty"),
        (empty_dir, "contains no policy files"),
        (unreadable, "cannot be read"),
        (missing, "missing.yaml"),
    ];
    for agent in AGENTS {
        for (path, why) in &cases {
            let out = hook(agent, path, &shell_event(agent, "ls"));
            assert_denies(agent, &out, why, &path.display().to_string());
        }
        // A policy list that is missing, or names nothing.
        let list = dir.path().join("list");
        let list_text = list.display().to_string();
        std::fs::write(&list, "# nothing\n\n").unwrap();
        for why in ["names no policy", "cannot read the policy list"] {
            let body = shell_event(agent, "ls").to_string();
            let out = run(
                &bin(),
                &["hook", agent, "--policy-list", &list_text],
                &[],
                body.as_bytes(),
            );
            assert_denies(agent, &out, why, "policy list");
            let _ = std::fs::remove_file(&list);
        }
    }
}

/// `HOME=` (or a relative HOME) used to make `~` the root: `~/.ssh/**`
/// then matched `/.ssh/...` and a read of the real `/home/me/.ssh/id_rsa`
/// got no opinion. Now there is no home, and a rule that needs one fails
/// closed, as with HOME unset.
#[test]
fn a_home_that_is_empty_or_relative_names_no_home() {
    let dir = TempDir::new("fail-closed-home");
    let p = dir.write(
        "home.yaml",
        "version: 1\nrules:\n  - id: ssh\n    hook: pre_file_read\n    path: { glob: [\"~/.ssh/**\"] }\n    deny: ssh keys\n",
    );
    let read = json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/home/me/.ssh/id_rsa"}});
    for home in ["", "relative/home", "~"] {
        let out = hook_with(
            "claude-code",
            &p,
            read.to_string().as_bytes(),
            &[("HOME", home)],
        );
        assert_denies(
            "claude-code",
            &out,
            "no home directory",
            &format!("HOME={home:?}"),
        );
    }
    let out = hook_with(
        "claude-code",
        &p,
        read.to_string().as_bytes(),
        &[("HOME", "/home/me")],
    );
    assert_denies("claude-code", &out, "ssh keys", "HOME=/home/me");
}

/// The guard pack's `shell: writes` globs need the home: without one (or
/// with glob characters in it, which broke the set before they were
/// escaped) the guard matched nothing and hook settings were writable.
#[test]
fn the_guard_pack_holds_without_a_usable_home() {
    let shipped = repo().join("policies");
    let write = shell_event("claude-code", "echo '{}' > .claude/settings.json");
    for home in ["", "/tmp/we[ird", "/tmp/a{b"] {
        let out = hook_with(
            "claude-code",
            &shipped,
            write.to_string().as_bytes(),
            &[("HOME", home)],
        );
        let reply = stdout_json(&out);
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"], "deny",
            "HOME={home:?}: {reply}"
        );
    }
}

const SLOW: &str = "  - id: slow-shell
    hook: pre_shell_exec
    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))
    deny: \"x\"
";

/// Known gap of the last session: a coding agent's deadline answer wrote
/// no decision-log line. Each agent now logs exactly one, as chibi does.
#[test]
fn a_deadline_answer_denies_and_is_logged_once_on_every_agent() {
    let words = vec!["w"; 20_000].join(" ");
    for agent in AGENTS {
        let dir = TempDir::new("fail-closed-deadline");
        let p = dir.write(
            "policy.yaml",
            &format!("version: 1\nsettings:\n  log: decisions.jsonl\nrules:\n{SLOW}"),
        );
        let body = shell_event(agent, &words).to_string();
        let started = std::time::Instant::now();
        let out = hook_with(
            agent,
            &p,
            body.as_bytes(),
            &[("HOOK_POLICY_DEADLINE_MS", "300")],
        );
        assert!(started.elapsed().as_secs() < 10, "{agent}: too slow");
        assert_denies(agent, &out, "took longer than 300 ms", "deadline");
        let text = std::fs::read_to_string(dir.path().join("decisions.jsonl"))
            .unwrap_or_else(|e| panic!("{agent}: no decision log ({e})"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{agent}: {text}");
        let record: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(record["decision"], "deny", "{agent}: {record}");
        assert_eq!(record["micros"], 300_000, "{agent}: {record}");
        assert!(
            record["error"].as_str().unwrap().contains("took longer"),
            "{agent}: {record}"
        );
        assert_eq!(record["payload_bytes"], body.len(), "{agent}: {record}");
    }
}

/// Known gap: `policy eval --harness AGENT` had no deadline, so a runaway
/// rule hung it where `policy hook` would have denied.
#[test]
fn eval_with_a_harness_keeps_the_hooks_deadline() {
    let dir = TempDir::new("fail-closed-eval-deadline");
    let p = dir.write("policy.yaml", &format!("version: 1\nrules:\n{SLOW}"));
    let ps = p.display().to_string();
    let words = vec!["w"; 20_000].join(" ");
    for agent in ["claude-code", "windsurf"] {
        let body = shell_event(agent, &words).to_string();
        let started = std::time::Instant::now();
        let out = run(
            &bin(),
            &["eval", "--harness", agent, "--policy", &ps],
            &[("HOOK_POLICY_DEADLINE_MS", "300")],
            body.as_bytes(),
        );
        assert!(started.elapsed().as_secs() < 10, "{agent}: no deadline");
        assert_denies(agent, &out, "took longer than 300 ms", "eval deadline");
    }
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "hook.before_tool",
        "params": {"tool": "exec", "arguments": {"command": words}}});
    let started = std::time::Instant::now();
    let out = run(
        &bin(),
        &["eval", "--harness", "picoclaw", "--policy", &ps],
        &[("HOOK_POLICY_DEADLINE_MS", "300")],
        request.to_string().as_bytes(),
    );
    assert!(started.elapsed().as_secs() < 10, "picoclaw: no deadline");
    let reply = stdout_json(&out);
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["result"]["action"], "deny_tool", "{reply}");
}

#[test]
fn a_closed_stdout_never_panics_or_hangs() {
    let (_d, p) = policy_dir();
    for agent in AGENTS {
        let script = format!(
            "exec '{}' hook {agent} --policy '{}' >&-",
            bin().display(),
            p.display()
        );
        let body = shell_event(agent, "rm -rf /").to_string();
        let out = run(Path::new("/bin/sh"), &["-c", &script], &[], body.as_bytes());
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{agent}: {err}");
        // The status still says no where the agent reads it.
        let want = if agent == "windsurf" { 2 } else { 0 };
        assert_eq!(out.status.code(), Some(want), "{agent}: {err}");
    }
}

/// PicoClaw skips an interceptor that answers with an error, and a skipped
/// before_tool runs the tool: hook methods are never answered with one.
#[test]
fn picoclaw_hook_calls_that_cannot_be_read_are_refused() {
    let (_d, p) = policy_dir();
    let ps = p.display().to_string();
    let eval = |line: &[u8]| {
        let out = run(
            &bin(),
            &["eval", "--harness", "picoclaw", "--policy", &ps],
            &[],
            line,
        );
        stdout_json(&out)
    };
    for (name, line) in [
        (
            "unknown hook method",
            br#"{"jsonrpc":"2.0","id":4,"method":"hook.before_tool_call","params":{"tool":"exec","arguments":{"command":"rm -rf /"}}}"#.to_vec(),
        ),
        (
            "method in other capitals",
            br#"{"jsonrpc":"2.0","id":4,"method":"hook.Before_Tool","params":{"tool":"exec","arguments":{"command":"rm -rf /"}}}"#.to_vec(),
        ),
        (
            "not UTF-8 in the arguments",
            b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"hook.before_tool\",\"params\":{\"tool\":\"exec\",\"arguments\":{\"command\":\"\xff rm -rf /\"}}}".to_vec(),
        ),
        (
            "lone surrogate",
            br#"{"jsonrpc":"2.0","id":4,"method":"hook.approve_tool","params":{"tool":"exec","arguments":{"command":"\ud800 rm -rf /"}}}"#.to_vec(),
        ),
    ] {
        let reply = eval(&line);
        assert_eq!(reply["id"], 4, "{name}: {reply}");
        assert!(reply.get("error").is_none(), "{name}: {reply}");
        let refused = reply["result"]["action"] == "deny_tool"
            || reply["result"]["approved"] == json!(false);
        assert!(refused, "{name}: {reply}");
    }
    // Duplicate keys: the last wins, as in Go's encoding/json.
    let reply = eval(br#"{"jsonrpc":"2.0","id":5,"method":"hook.after_tool","method":"hook.before_tool","params":{"tool":"exec","arguments":{"command":"ls","command":"rm -rf /"}}}"#);
    assert_eq!(reply["result"]["action"], "deny_tool", "{reply}");
}

/// Claude Code in bypassPermissions mode runs a call a hook asks about
/// without asking (anthropics/claude-code#77212): an ask rule there would
/// be a silent allow, so it denies. Other modes still ask.
#[test]
fn an_ask_denies_where_claude_code_would_not_ask() {
    let dir = TempDir::new("fail-closed-ask");
    let p = dir.write(
        "ask.yaml",
        "version: 1\nrules:\n  - id: ask-push\n    hook: pre_shell_exec\n    shell: { program: git, arg: '^push$' }\n    ask: pushing needs a look\n",
    );
    let event = |mode: &str| {
        json!({"hook_event_name": "PreToolUse", "permission_mode": mode, "tool_name": "Bash",
               "tool_input": {"command": "git push"}})
    };
    let out = hook("claude-code", &p, &event("bypassPermissions"));
    assert_denies("claude-code", &out, "does not ask", "bypassPermissions");
    for mode in ["default", "acceptEdits", "plan"] {
        let reply = stdout_json(&hook("claude-code", &p, &event(mode)));
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"], "ask",
            "{mode}: {reply}"
        );
    }
}

/// A cache that cannot be used only costs speed, wherever the variables
/// point: a file in the way, a directory that cannot be created, a
/// relative path (ignored: it would be inside the project).
#[test]
fn cache_and_home_variables_pointing_at_odd_places_change_no_decision() {
    let (d, p) = policy_dir();
    let file = d.write("a-file", "x").display().to_string();
    let body = shell_event("claude-code", "rm -rf /").to_string();
    for env in [
        vec![("XDG_CACHE_HOME", file.as_str())],
        vec![("XDG_CACHE_HOME", "/proc/no-such-dir")],
        vec![("XDG_CACHE_HOME", "relative/cache")],
        vec![("XDG_CACHE_HOME", ""), ("HOME", "")],
        vec![("XDG_CACHE_HOME", ""), ("HOME", "/nonexistent")],
    ] {
        let out = hook_with("claude-code", &p, body.as_bytes(), &env);
        assert_denies("claude-code", &out, "no rm", &format!("{env:?}"));
    }
    assert!(
        !Path::new("relative").exists(),
        "a relative XDG_CACHE_HOME made a cache in the working directory"
    );
}

// --- chibi ---------------------------------------------------------------

/// A plugin whose manifest is damaged or gone used to fail `--schema` with
/// a usage error: chibi then drops the plugin and runs every tool
/// unguarded, and hook calls exit 2, which chibi ignores.
#[test]
fn a_chibi_plugin_without_a_readable_manifest_registers_and_denies() {
    let (_d, p) = policy_dir();
    type Breaker = fn(&Path);
    let breakers: [(&str, Breaker, &str); 5] = [
        (
            "truncated",
            |m| std::fs::write(m, "{\"harness\": \"chibi\", \"pol").unwrap(),
            "is damaged",
        ),
        (
            "not JSON",
            |m| std::fs::write(m, "harness: chibi").unwrap(),
            "is damaged",
        ),
        (
            "another harness",
            |m| std::fs::write(m, r#"{"harness": "other", "policy": ["/x"]}"#).unwrap(),
            "does not name a chibi policy",
        ),
        (
            "no policy",
            |m| std::fs::write(m, r#"{"harness": "chibi", "policy": []}"#).unwrap(),
            "does not name a chibi policy",
        ),
        (
            "deleted",
            |m| std::fs::remove_file(m).unwrap(),
            "is missing",
        ),
    ];
    for (name, breaker, why) in breakers {
        let home = ChibiHome::install(&[&p]);
        let manifest = home.plugin().parent().unwrap().join("hook-policy.json");
        breaker(&manifest);
        let out = run(&home.plugin(), &["--schema"], &[], b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let schema = stdout_json(&out);
        let hooks: Vec<&str> = schema["hooks"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: {schema}"))
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for guarded in [
            "pre_shell_exec",
            "pre_file_read",
            "pre_file_write",
            "pre_fetch_url",
            "pre_tool",
        ] {
            assert!(
                hooks.contains(&guarded),
                "{name}: {guarded} not registered: {schema}"
            );
        }
        assert!(
            schema["description"].as_str().unwrap().contains(why),
            "{name}: {schema}"
        );
        let reply = home.reply(
            "pre_shell_exec",
            &json!({"tool_name": "shell_exec", "command": "ls"}),
        );
        assert_eq!(reply["denied"], json!(true), "{name}: {reply}");
        assert!(
            reply["reason"].as_str().unwrap().contains(why),
            "{name}: {reply}"
        );
        let reply = home.reply(
            "pre_tool",
            &json!({"tool_name": "shell_exec", "arguments": {}}),
        );
        assert_eq!(reply["block"], json!(true), "{name}: {reply}");
        let reply = home.reply("pre_api_tools", &json!({"context_name": "d", "tools": []}));
        assert_eq!(reply, json!({}), "{name}: the tool filter changes nothing");
    }
}

/// The policy cache's checksum catches damage, not forgery. An entry with
/// a valid checksum for the same key but another policy's rules, left by
/// someone who can write the cache directory but is not the user, must
/// not be believed.
#[test]
fn a_cache_entry_someone_else_could_have_written_is_ignored() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("fail-closed-cache");
    let strict = dir.write("strict/policy.yaml", POLICY);
    let lax = dir.write(
        "lax/policy.yaml",
        "version: 1\nrules:\n  - id: no-ls\n    hook: pre_shell_exec\n    shell: { program: ls }\n    deny: no ls\n",
    );
    let victim = ChibiHome::install(&[&strict]);
    let other = ChibiHome::install(&[&lax]);
    // Entries are only written for files older than two seconds.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let rm = json!({"tool_name": "shell_exec", "command": "rm -rf /"});
    let denied = |home: &ChibiHome| home.reply("pre_shell_exec", &rm)["denied"] == json!(true);
    assert!(denied(&victim));
    assert!(!denied(&other));
    let entry = |home: &ChibiHome| {
        let cache = home.plugin().parent().unwrap().join("cache");
        std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                n.starts_with("pre_shell_exec-") && n.ends_with(".prepared")
            })
            .expect("a cache entry")
    };
    let (target, source) = (entry(&victim), entry(&other));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&target) & 0o077, 0, "entries are written private");
    // The forgery: the lax policy's entry under the victim's key (the
    // checksum covers what follows the key, so it still holds).
    // Entries start with two text lines (format, key); the rest is binary.
    let key_line = |bytes: &[u8]| {
        let first = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        let second = first + bytes[first..].iter().position(|&b| b == b'\n').unwrap();
        (first, second)
    };
    let victim_bytes = std::fs::read(&target).unwrap();
    let (k0, k1) = key_line(&victim_bytes);
    let lax_bytes = std::fs::read(&source).unwrap();
    let (l0, l1) = key_line(&lax_bytes);
    let mut forged = lax_bytes[..l0].to_vec();
    forged.extend_from_slice(&victim_bytes[k0..k1]);
    forged.extend_from_slice(&lax_bytes[l1..]);
    let plant = |mode: u32| {
        std::fs::remove_file(&target).unwrap();
        std::fs::write(&target, &forged).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    // Control: written by the user, it is believed (whoever writes as the
    // user can replace the plugin too), which shows the forgery is whole.
    plant(0o600);
    assert!(
        !denied(&victim),
        "the forged entry was not read: the test proves nothing"
    );
    // Writable by the group or by anyone: someone else could have written it.
    for loose in [0o666, 0o620, 0o602] {
        plant(loose);
        assert!(denied(&victim), "a {loose:o} entry was believed");
    }
    // Owned by another user (root can give it away; others cannot test it).
    plant(0o644);
    let chown = std::process::Command::new("chown")
        .args(["65534", &target.display().to_string()])
        .output();
    if chown.is_ok_and(|o| o.status.success()) {
        assert!(
            denied(&victim),
            "an entry owned by another user was believed"
        );
    }
}
