//! One policy, every harness: each permission case of the shipped policies'
//! and packs' own tests (`policies/*.test.yaml`, `packs/*.test.yaml`), put
//! to chibi (under `policies/` with every shipped pack enabled) and then as the
//! equivalent tool call of Claude Code, Gemini CLI, Codex and PicoClaw,
//! and as the equivalent hook event of Cursor, Copilot CLI, Windsurf,
//! Cline, OpenCode (its plugin's event) and Kiro CLI (through their
//! adapters' event parsing; Cline's in both its 3.x tools and Cline 4's),
//! must be denied by all of them or by none.

use hook_policy::adapters::chibi;
use hook_policy::adapters::cline::Cline;
use hook_policy::adapters::copilot::Copilot;
use hook_policy::adapters::cursor::Cursor;
use hook_policy::adapters::hook_command::{Answer, Protocol};
use hook_policy::adapters::kiro::Kiro;
use hook_policy::adapters::opencode::OpenCode;
use hook_policy::adapters::tool_call::{decide_call, Harness, PolicySource, ToolCall, Verdict};
use hook_policy::adapters::windsurf::Windsurf;
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::DecideContext;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The tool call each harness would make for a canonical permission payload.
fn tool_call(harness: Harness, hook: &str, p: &Value) -> Option<(&'static str, Value)> {
    let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    use Harness::*;
    Some(match (hook, harness) {
        ("pre_shell_exec", ClaudeCode | Codex) => ("Bash", json!({"command": s("command")?})),
        ("pre_shell_exec", Gemini) => ("run_shell_command", json!({"command": s("command")?})),
        ("pre_shell_exec", PicoClaw) => ("exec", json!({"command": s("command")?})),
        ("pre_file_read", ClaudeCode) => ("Read", json!({"file_path": s("path")?})),
        ("pre_file_read", Gemini) => ("read_file", json!({"file_path": s("path")?})),
        ("pre_file_read", PicoClaw) => ("read_file", json!({"path": s("path")?})),
        ("pre_file_write", ClaudeCode) => (
            "Write",
            json!({"file_path": s("path")?, "content": s("content").unwrap_or_default()}),
        ),
        ("pre_file_write", Gemini) => (
            "write_file",
            json!({"file_path": s("path")?, "content": s("content").unwrap_or_default()}),
        ),
        ("pre_file_write", PicoClaw) => (
            "write_file",
            json!({"path": s("path")?, "content": s("content").unwrap_or_default()}),
        ),
        ("pre_file_write", Codex) => {
            let added: String = s("content")
                .unwrap_or_default()
                .lines()
                .map(|l| format!("+{l}\n"))
                .collect();
            let patch = format!(
                "*** Begin Patch\n*** Add File: {}\n{added}*** End Patch\n",
                s("path")?
            );
            ("apply_patch", json!({"command": patch}))
        }
        ("pre_fetch_url", ClaudeCode) => {
            ("WebFetch", json!({"url": s("url")?, "prompt": "read it"}))
        }
        ("pre_fetch_url", Gemini) => (
            "web_fetch",
            json!({"prompt": format!("Summarise {}", s("url")?)}),
        ),
        ("pre_fetch_url", PicoClaw) => ("web_fetch", json!({"url": s("url")?})),
        ("pre_shell_exec", Cursor) => ("Shell", json!({"command": s("command")?})),
        ("pre_shell_exec", Copilot) => ("bash", json!({"command": s("command")?})),
        ("pre_shell_exec", Windsurf) => ("run_command", json!({"command_line": s("command")?})),
        ("pre_file_read", Cursor) => ("Read", json!({"file_path": s("path")?})),
        ("pre_file_read", Copilot) => ("view", json!({"path": s("path")?})),
        ("pre_file_read", Windsurf) => ("read_code", json!({"file_path": s("path")?})),
        ("pre_file_write", Copilot) => (
            "create",
            json!({"path": s("path")?, "file_text": s("content").unwrap_or_default()}),
        ),
        ("pre_file_write", Windsurf) => (
            "write_code",
            json!({"file_path": s("path")?,
                   "edits": [{"old_string": "", "new_string": s("content").unwrap_or_default()}]}),
        ),
        ("pre_fetch_url", Copilot) => ("web_fetch", json!({"url": s("url")?})),
        ("pre_shell_exec", Cline) => ("execute_command", json!({"command": s("command")?})),
        ("pre_file_read", Cline) => ("read_file", json!({"path": s("path")?})),
        ("pre_file_write", Cline) => (
            "write_to_file",
            json!({"path": s("path")?, "content": s("content").unwrap_or_default()}),
        ),
        ("pre_fetch_url", Cline) => ("web_fetch", json!({"url": s("url")?})),
        ("pre_shell_exec", OpenCode) => (
            "bash",
            json!({"command": s("command")?, "description": "run"}),
        ),
        ("pre_file_read", OpenCode) => ("read", json!({"filePath": s("path")?})),
        ("pre_file_write", OpenCode) => (
            "write",
            json!({"filePath": s("path")?, "content": s("content").unwrap_or_default()}),
        ),
        ("pre_fetch_url", OpenCode) => ("webfetch", json!({"url": s("url")?, "format": "text"})),
        ("pre_shell_exec", Kiro) => (
            "execute_bash",
            json!({"command": s("command")?, "summary": "run"}),
        ),
        ("pre_file_read", Kiro) => (
            "fs_read",
            json!({"operations": [{"mode": "Line", "path": s("path")?}]}),
        ),
        ("pre_file_write", Kiro) => (
            "fs_write",
            json!({"command": "create", "path": s("path")?, "file_text": s("content").unwrap_or_default()}),
        ),
        ("pre_fetch_url", Kiro) => ("web_fetch", json!({"url": s("url")?})),
        // Codex has no read or fetch tool of its own; Cursor has no write or
        // fetch event, Windsurf no fetch event.
        _ => return None,
    })
}

/// The hook event Cursor, Copilot CLI or Windsurf would send for a
/// canonical permission payload, as their documentation shapes it.
fn hook_event(harness: Harness, hook: &str, p: &Value, root: &str) -> Option<Value> {
    let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    let cursor = |name: &str, fields: Value| {
        let mut e = json!({"hook_event_name": name, "conversation_id": "c", "generation_id": "g",
                           "workspace_roots": [root]});
        for (k, v) in fields.as_object().unwrap() {
            e[k] = v.clone();
        }
        e
    };
    let copilot = |tool: &str, args: Value| json!({"timestamp": 1704614600000u64, "cwd": root, "toolName": tool, "toolArgs": args.to_string()});
    let windsurf = |action: &str, info: Value| {
        json!({"agent_action_name": action, "trajectory_id": "t", "execution_id": "e",
               "timestamp": "2025-01-15T10:30:00Z", "tool_info": info})
    };
    use Harness::*;
    Some(match (hook, harness) {
        ("pre_shell_exec", Cursor) => cursor(
            "beforeShellExecution",
            json!({"command": s("command")?, "cwd": root}),
        ),
        ("pre_file_read", Cursor) => cursor("beforeReadFile", json!({"file_path": s("path")?})),
        ("pre_shell_exec", Copilot) => copilot("bash", json!({"command": s("command")?})),
        ("pre_file_read", Copilot) => copilot("view", json!({"path": s("path")?})),
        ("pre_file_write", Copilot) => copilot(
            "create",
            json!({"path": s("path")?, "file_text": s("content").unwrap_or_default()}),
        ),
        ("pre_fetch_url", Copilot) => copilot("web_fetch", json!({"url": s("url")?})),
        ("pre_shell_exec", Windsurf) => windsurf(
            "pre_run_command",
            json!({"command_line": s("command")?, "cwd": root}),
        ),
        ("pre_file_read", Windsurf) => windsurf("pre_read_code", json!({"file_path": s("path")?})),
        ("pre_file_write", Windsurf) => windsurf(
            "pre_write_code",
            json!({"file_path": s("path")?,
                   "edits": [{"old_string": "", "new_string": s("content").unwrap_or_default()}]}),
        ),
        (_, Kiro) => {
            let (tool, input) = tool_call(Kiro, hook, p)?;
            json!({"hook_event_name": "preToolUse", "cwd": root, "tool_name": tool, "tool_input": input})
        }
        (_, OpenCode) => {
            let (tool, args) = tool_call(OpenCode, hook, p)?;
            json!({"hook_event_name": "tool.execute.before", "tool": tool, "sessionID": "s",
                   "callID": "c", "args": args, "directory": root, "worktree": root})
        }
        // Cursor has no write or fetch event, Windsurf no fetch event.
        _ => return None,
    })
}

/// Cline's PreToolUse events for a canonical permission payload, as its
/// hooks page shapes them (parameter values as text): Cline 3's tool, then
/// Cline 4's, whose lists arrive as JSON text.
fn cline_events(hook: &str, p: &Value, root: &str) -> Vec<Value> {
    let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    let event = |tool: &str, params: Value| {
        json!({"clineVersion": "3.17.0", "hookName": "PreToolUse", "timestamp": "1736654400000",
               "taskId": "t", "workspaceRoots": [root], "userId": "u",
               "preToolUse": {"toolName": tool, "parameters": params}})
    };
    let calls = match (hook, s("command"), s("path"), s("url")) {
        ("pre_shell_exec", Some(c), _, _) => vec![
            (
                "execute_command",
                json!({"command": c, "requires_approval": "false"}),
            ),
            ("run_commands", json!({"commands": json!([c]).to_string()})),
        ],
        ("pre_file_read", _, Some(path), _) => vec![
            ("read_file", json!({"path": path})),
            (
                "read_files",
                json!({"files": json!([{"path": path}]).to_string()}),
            ),
        ],
        ("pre_file_write", _, Some(path), _) => {
            let content = s("content").unwrap_or_default();
            vec![
                ("write_to_file", json!({"path": path, "content": content})),
                ("editor", json!({"path": path, "new_text": content})),
            ]
        }
        ("pre_fetch_url", _, _, Some(url)) => vec![
            ("web_fetch", json!({"url": url})),
            (
                "fetch_web_content",
                json!({"requests": json!([{"url": url, "prompt": "read it"}]).to_string()}),
            ),
        ],
        _ => Vec::new(),
    };
    calls
        .into_iter()
        .map(|(t, params)| event(t, params))
        .collect()
}

/// Whether an adapter's answer denies, in that agent's words.
fn answer_denies(harness: Harness, a: &Answer) -> bool {
    let reply = || serde_json::from_str::<Value>(a.stdout.trim()).unwrap_or(Value::Null);
    match harness {
        Harness::Cursor => reply()["permission"] == "deny",
        Harness::Copilot => reply()["permissionDecision"] == "deny",
        Harness::Windsurf => a.exit == 2,
        Harness::Cline => reply()["cancel"] == true,
        Harness::OpenCode => reply()["decision"] == "block",
        Harness::Kiro => a.exit == 2,
        _ => unreachable!(),
    }
}

fn load_cases() -> Vec<(String, String, Value, String)> {
    let mut cases = Vec::new();
    let mut files: Vec<PathBuf> = ["policies", "packs"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(repo().join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.yaml"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: Value = serde_saphyr::from_str(&text).unwrap();
        for case in doc["tests"].as_array().unwrap() {
            let hook = case["hook"].as_str().unwrap().to_string();
            let payload = if let Some(p) = case.get("payload") {
                p.clone()
            } else {
                let f = file
                    .parent()
                    .unwrap()
                    .join(case["payload_file"].as_str().unwrap());
                let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
                v.get("payload").cloned().unwrap_or(v)
            };
            let root = case
                .get("project_root")
                .and_then(Value::as_str)
                .unwrap_or("/project")
                .to_string();
            let name = format!(
                "{}: {}",
                file.file_name().unwrap().to_string_lossy(),
                case["name"].as_str().unwrap()
            );
            cases.push((name, hook, payload, root));
        }
    }
    cases
}

#[test]
fn every_adapter_decides_the_shipped_cases_like_chibi() {
    // Every shipped pack, not only the recommended ones `policies/` enables.
    let all_packs = std::env::temp_dir().join(format!(
        "hook-policy-same-decision-{}.yaml",
        std::process::id()
    ));
    let names: Vec<&str> = hook_policy::packs::shipped()
        .iter()
        .map(|p| p.header.name.as_str())
        .collect();
    std::fs::write(
        &all_packs,
        format!("version: 1\npacks:\n  enable: [{}]\n", names.join(", ")),
    )
    .unwrap();
    let prepared = Arc::new(engine::prepare(
        &[repo().join("policies"), all_packs.clone()],
        None,
    ));
    let _ = std::fs::remove_file(&all_packs);
    let Prepared::Ready(policy) = &*prepared else {
        panic!("shipped policies do not load")
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut denied_somewhere = 0;
    for (name, hook, payload, root) in load_cases() {
        if !matches!(
            hook.as_str(),
            "pre_shell_exec" | "pre_file_read" | "pre_file_write" | "pre_fetch_url"
        ) {
            continue;
        }
        let ctx = DecideContext {
            harness: "chibi",
            project_root: &root,
            home: Some("/home/user"),
        };
        let hp = hook_policy::catalogue::hook(&hook).unwrap();
        let outcome = engine::run(policy, &hook, &payload, ctx);
        let reply = chibi::reply(hp, &outcome, policy.on_error, Some(&payload));
        let chibi_denies = reply.json.get("denied") == Some(&json!(true));
        denied_somewhere += chibi_denies as usize;
        for harness in Harness::ALL {
            let Some((tool, args)) = tool_call(harness, &hook, &payload) else {
                continue;
            };
            let mut source = PolicySource::compiled(prepared.clone());
            let native = json!({"tool_name": tool, "tool_input": args, "tool": tool, "arguments": args,
                                "session_id": "s", "cwd": root, "hook_event_name": "PreToolUse"});
            let ctx = DecideContext {
                harness: harness.name(),
                project_root: &root,
                home: Some("/home/user"),
            };
            let d = decide_call(
                &mut source,
                &ToolCall {
                    harness,
                    tool,
                    arguments: &args,
                    native_payload: &native,
                    approval: false,
                    context_name: "coding",
                },
                ctx,
            );
            let denies = matches!(d.verdict, Verdict::Deny(_));
            compared += 1;
            if denies != chibi_denies {
                failures.push(format!(
                    "{name} [{}]: chibi {} but {} {} ({:?})",
                    harness.name(),
                    if chibi_denies { "denies" } else { "allows" },
                    harness.title(),
                    if denies { "denies" } else { "allows" },
                    d.verdict
                ));
            }
        }
    }
    assert!(compared >= 80, "only {compared} comparisons");
    assert!(
        denied_somewhere >= 15,
        "too few denying cases: {denied_somewhere}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hook_command_agents_events_decide_the_shipped_cases_like_chibi() {
    let prepared = Arc::new(engine::prepare(&[repo().join("policies")], None));
    let Prepared::Ready(policy) = &*prepared else {
        panic!("shipped policies do not load")
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    for (name, hook, payload, root) in load_cases() {
        let ctx = DecideContext {
            harness: "chibi",
            project_root: &root,
            home: Some("/home/user"),
        };
        let Some(hp) = hook_policy::catalogue::hook(&hook) else {
            continue;
        };
        let outcome = engine::run(policy, &hook, &payload, ctx);
        let reply = chibi::reply(hp, &outcome, policy.on_error, Some(&payload));
        let chibi_denies = reply.json.get("denied") == Some(&json!(true));
        let events = [
            Harness::Cursor,
            Harness::Copilot,
            Harness::Windsurf,
            Harness::OpenCode,
            Harness::Kiro,
        ]
        .into_iter()
        .filter_map(|h| Some((h, hook_event(h, &hook, &payload, &root)?)))
        .chain(
            cline_events(&hook, &payload, &root)
                .into_iter()
                .map(|e| (Harness::Cline, e)),
        );
        for (harness, event) in events {
            // Windsurf's root is the hook's working directory: the case's root.
            let mut source = PolicySource::compiled(prepared.clone());
            let input = Ok(event.to_string().into_bytes());
            let (home, root) = (Some("/home/user"), Some(root.as_str()));
            let a = match harness {
                Harness::Cursor => Cursor::answer_in(&mut source, &input, "coding", home, root),
                Harness::Copilot => Copilot::answer_in(&mut source, &input, "coding", home, root),
                Harness::Cline => Cline::answer_in(&mut source, &input, "coding", home, root),
                Harness::OpenCode => OpenCode::answer_in(&mut source, &input, "coding", home, root),
                Harness::Kiro => Kiro::answer_in(&mut source, &input, "coding", home, root),
                _ => Windsurf::answer_in(&mut source, &input, "coding", home, root),
            };
            let denies = answer_denies(harness, &a);
            compared += 1;
            if denies != chibi_denies {
                failures.push(format!(
                    "{name} [{}]: chibi {} but {} {} ({:?}, event {event})",
                    harness.name(),
                    if chibi_denies { "denies" } else { "allows" },
                    harness.title(),
                    if denies { "denies" } else { "allows" },
                    a
                ));
            }
        }
    }
    assert!(compared >= 120, "only {compared} comparisons");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `pre_tool` sees every harness's shell tool as chibi's `shell_exec`, with
/// chibi's units: one rule blocks them all, and a timeout cap written in
/// seconds reaches Claude Code's Bash in milliseconds.
#[test]
fn pre_tool_sees_every_shell_tool_in_canonical_terms() {
    let dir = std::env::temp_dir().join(format!("hp-same-pre-tool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("p.yaml");
    std::fs::write(
        &file,
        "version: 1\nrules:\n  - id: no-sleep\n    hook: pre_tool\n    when: \"tool_name == 'shell_exec' && arguments.command == 'sleep 1000'\"\n    block: no sleeping\n  - id: cap\n    hook: pre_tool\n    when: tool_name == 'shell_exec' && has(arguments.timeout) && arguments.timeout > 120\n    arguments: { timeout: 120 }\n",
    )
    .unwrap();
    let prepared = Arc::new(engine::prepare(&[file], None));
    assert!(matches!(&*prepared, Prepared::Ready(_)));
    for harness in Harness::ALL {
        let (tool, _) = tool_call(harness, "pre_shell_exec", &json!({"command": "x"})).unwrap();
        let ctx = DecideContext {
            harness: harness.name(),
            project_root: "/project",
            home: Some("/home/user"),
        };
        let args = json!({"command": "sleep 1000"});
        let d = decide_call(
            &mut PolicySource::compiled(prepared.clone()),
            &ToolCall {
                harness,
                tool,
                arguments: &args,
                native_payload: &json!({}),
                approval: false,
                context_name: "coding",
            },
            ctx,
        );
        assert!(
            matches!(&d.verdict, Verdict::Deny(r) if r.contains("no sleeping")),
            "{}: {:?}",
            harness.name(),
            d.verdict
        );
    }
    let ctx = DecideContext {
        harness: "claude-code",
        project_root: "/project",
        home: Some("/home/user"),
    };
    let d = decide_call(
        &mut PolicySource::compiled(prepared),
        &ToolCall {
            harness: Harness::ClaudeCode,
            tool: "Bash",
            arguments: &json!({"command": "make", "timeout": 600_000}),
            native_payload: &json!({}),
            approval: false,
            context_name: "coding",
        },
        ctx,
    );
    assert_eq!(
        d.verdict,
        Verdict::Rewrite(json!({"command": "make", "timeout": 120_000}))
    );
    let _ = std::fs::remove_dir_all(&dir);
}
