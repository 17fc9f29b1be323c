//! The chibi plugin path, end to end: `policy install chibi`, then the
//! installed copy run the way chibi runs it, on payloads captured from chibi.

mod common;

use common::*;
use serde_json::{json, Value};

fn shipped() -> ChibiHome {
    ChibiHome::install(&[&repo().join("policies")])
}

/// The shipped policies with the budget and request examples, which use
/// the hooks the recommended set leaves alone.
fn with_examples() -> ChibiHome {
    ChibiHome::install(&[
        &repo().join("policies"),
        &repo().join("examples/policies/fuel.yaml"),
        &repo().join("examples/policies/request.yaml"),
    ])
}

#[test]
fn schema_lists_exactly_the_hooks_the_policy_needs() {
    let home = with_examples();
    let out = run(&home.plugin(), &["--schema"], &[], b"");
    assert!(out.status.success());
    let schema = stdout_json(&out);
    assert_eq!(schema["name"], "hook_policy");
    assert!(schema["description"].as_str().unwrap().contains("rules"));
    let hooks: Vec<&str> = schema["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    for expected in [
        "pre_tool",
        "pre_api_tools",
        "pre_api_request",
        "pre_agentic_loop",
        "post_tool_batch",
        "pre_file_read",
        "pre_file_write",
        "pre_shell_exec",
        "pre_fetch_url",
    ] {
        assert!(
            hooks.contains(&expected),
            "{expected} missing from {hooks:?}"
        );
    }
    assert!(
        !hooks.contains(&"on_start"),
        "observe hooks are not registered: {hooks:?}"
    );
}

#[test]
fn schema_of_a_one_hook_policy_names_one_hook() {
    let dir = TempDir::new("one-hook");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    deny: \"no\"\n",
    );
    let home = ChibiHome::install(&[&p]);
    let schema = stdout_json(&run(&home.plugin(), &["--schema"], &[], b""));
    assert_eq!(schema["hooks"], json!(["pre_shell_exec"]));
}

#[test]
fn pre_shell_exec_denies_the_captured_rm_rf() {
    let home = shipped();
    let (hook, payload) = fixture("pre_shell_exec__deny_rm_rf");
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["denied"], json!(true), "{reply}");
    let reason = reply["reason"].as_str().unwrap();
    assert!(
        reason.contains("recursive delete") && reason.contains("core.recursive-force-delete"),
        "{reason}"
    );
}

#[test]
fn pre_shell_exec_allows_by_saying_nothing() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_shell_exec");
    payload["command"] = json!("cargo test --all && git status");
    assert_eq!(home.reply(&hook, &payload), json!({}));
}

#[test]
fn pre_file_read_and_write_deny_env_files() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_file_read");
    assert_eq!(
        home.reply(&hook, &payload),
        json!({}),
        "an ordinary file is not denied"
    );
    payload["path"] = json!("/home/user/demo/outside/.env");
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["denied"], json!(true));
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .starts_with("reading /home/user/demo/outside/.env"),
        "{reply}"
    );

    let (hook, mut payload) = fixture("pre_file_write__file_edit");
    assert_eq!(home.reply(&hook, &payload), json!({}));
    payload["path"] = json!(".env.production");
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["denied"], json!(true));
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .starts_with("writing .env.production"),
        "{reply}"
    );
}

#[test]
fn pre_file_write_denies_private_keys_and_tolerates_null_content() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_file_write");
    payload["content"] = json!("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n");
    assert_eq!(home.reply(&hook, &payload)["denied"], json!(true));
    payload["content"] = Value::Null; // chibi sends null content for some edits
    assert_eq!(home.reply(&hook, &payload), json!({}));
}

#[test]
fn pre_fetch_url_denies_sensitive_urls_and_prefers_the_metadata_reason() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_fetch_url");
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["denied"], json!(true));
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("127.0.0.1:35165"),
        "{reply}"
    );

    payload["url"] = json!("http://169.254.169.254/latest/meta-data/");
    payload["reason"] = json!("cloud metadata endpoint");
    let reply = home.reply(&hook, &payload);
    let reason = reply["reason"].as_str().unwrap();
    assert!(
        reason.contains("cloud metadata endpoint is off limits"),
        "priority -10 wins: {reason}"
    );

    // A network tool without a URL: no `url`, no `reason`.
    let no_url = json!({"tool_name": "web_search", "safety": "no_url", "summary": "query"});
    assert_eq!(home.reply(&hook, &no_url), json!({}));
}

#[test]
fn pre_api_tools_filters_per_context() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_api_tools");
    // The default context keeps every tool: hiding chibi's file tools there
    // left the agent unable to read a file (issue 14).
    assert_eq!(home.reply(&hook, &payload), json!({}));
    // The coding context is untouched.
    payload["context_name"] = json!("coding");
    assert_eq!(home.reply(&hook, &payload), json!({}));

    payload["context_name"] = json!("safe");
    assert_eq!(
        home.reply(&hook, &payload),
        json!({"include": ["update_reflection", "update_goals"]})
    );

    payload["context_name"] = json!("readonly");
    let reply = home.reply(&hook, &payload);
    let excluded: Vec<&str> = reply["exclude"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let offered = payload["tools"].as_array().unwrap();
    for tool in offered {
        let (name, ty) = (
            tool["name"].as_str().unwrap(),
            tool["type"].as_str().unwrap(),
        );
        let should =
            ty == "fs_write" || ty == "shell" || name == "file_edit" || name.starts_with("write_");
        assert_eq!(excluded.contains(&name), should, "{name} ({ty})");
    }
}

#[test]
fn pre_api_request_merges_temperature_for_coding() {
    let home = with_examples();
    let (hook, mut payload) = fixture("pre_api_request");
    assert_eq!(home.reply(&hook, &payload), json!({}));
    payload["context_name"] = json!("coding");
    assert_eq!(
        home.reply(&hook, &payload),
        json!({"request_body": {"temperature": 0.1}})
    );
}

#[test]
fn post_tool_batch_charges_fuel_and_returns_to_the_user() {
    let home = with_examples();
    let (hook, mut payload) = fixture("post_tool_batch");
    assert_eq!(
        home.reply(&hook, &payload),
        json!({"fuel_delta": -5, "fallback": "call_user"})
    );

    // Six harmless calls: no danger penalty, but 2 over the batch allowance.
    payload["tool_calls"] = json!((0..6)
        .map(|i| json!({"name": "file_head", "arguments": {"path": format!("f{i}")}}))
        .collect::<Vec<_>>());
    assert_eq!(home.reply(&hook, &payload), json!({"fuel_delta": -2}));

    // Both rules: the deltas add up.
    payload["tool_calls"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "shell_exec", "arguments": {"command": "ls"}}));
    assert_eq!(
        home.reply(&hook, &payload),
        json!({"fuel_delta": -8, "fallback": "call_user"})
    );
}

#[test]
fn pre_agentic_loop_with_the_captured_payload_changes_nothing() {
    let dir = TempDir::new("loop");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: low-fuel-asks-user\n    hook: pre_agentic_loop\n    when: has(payload.fuel_remaining) && fuel_remaining < 5\n    fallback: call_user\n    fuel: 5\n",
    );
    let home = ChibiHome::install(&[&p]);
    let (hook, mut payload) = fixture("pre_agentic_loop");
    // Unlimited fuel: chibi omits fuel_remaining, and the guard must cope.
    assert_eq!(home.reply(&hook, &payload), json!({}));
    payload["fuel_remaining"] = json!(3);
    payload["fuel_total"] = json!(50);
    assert_eq!(
        home.reply(&hook, &payload),
        json!({"fallback": "call_user", "fuel": 5})
    );
}

#[test]
fn pre_tool_rewrites_arguments_keeping_the_others() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_tool");
    assert_eq!(home.reply(&hook, &payload), json!({}));
    payload["arguments"]["timeout"] = json!(900);
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["arguments"]["timeout"], json!(120));
    assert_eq!(
        reply["arguments"]["command"],
        payload["arguments"]["command"]
    );
}

#[test]
fn pre_tool_block_message() {
    let dir = TempDir::new("block");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-shell-tool\n    hook: pre_tool\n    when: tool_name == 'shell_exec'\n    block: \"shell is disabled: ${{ arguments.command }}\"\n",
    );
    let home = ChibiHome::install(&[&p]);
    let (hook, payload) = fixture("pre_tool");
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["block"], json!(true));
    assert!(reply["message"]
        .as_str()
        .unwrap()
        .starts_with("shell is disabled: rm -rf /home/user/demo/victim"));
}

#[test]
fn every_captured_payload_gets_a_reply_chibi_accepts() {
    let home = shipped();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let name = entry
            .unwrap()
            .path()
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (hook, payload) = fixture(&name);
        let out = home.hook(&hook, &payload);
        assert!(out.status.success(), "{name}: exit {:?}", out.status);
        assert!(stdout_json(&out).is_object(), "{name}");
    }
}

/// The plugin called by the model as a tool, the way chibi calls it:
/// `CHIBI_TOOL_NAME` set, no `CHIBI_HOOK`, the arguments as JSON on stdin.
fn tool_call(home: &ChibiHome, arguments: &[u8]) -> String {
    let out = run(
        &home.plugin(),
        &[],
        &[
            ("CHIBI_TOOL_NAME", "hook_policy"),
            ("CHIBI_PROJECT_ROOT", "/home/user/demo/project"),
        ],
        arguments,
    );
    assert!(out.status.success(), "exit {:?}", out.status);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn called_as_a_tool_it_lists_the_active_rules() {
    let home = shipped();
    for arguments in [&b"{}"[..], b"", br#"{"hook": null}"#] {
        let text = tool_call(&home, arguments);
        assert!(
            text.contains("core.recursive-force-delete")
                && text.contains("pre_shell_exec")
                && text.contains("no-env-files"),
            "{text}"
        );
    }
}

/// Issue 17, item 9: the `hook` argument was ignored, so asking for one
/// hook listed every rule.
#[test]
fn called_as_a_tool_with_a_hook_it_lists_only_that_hooks_rules() {
    let home = shipped();
    let text = tool_call(&home, br#"{"hook": "pre_shell_exec"}"#);
    assert!(text.contains("on hook `pre_shell_exec`"), "{text}");
    assert!(
        text.contains("core.recursive-force-delete") && text.contains("core.root-shell"),
        "{text}"
    );
    assert!(
        !text.contains("no-env-files") && !text.contains("pre_file_read"),
        "rules of other hooks are listed: {text}"
    );
    let text = tool_call(&home, br#"{"hook": "on_start"}"#);
    assert!(text.contains("No active guardrail rules"), "{text}");
}

#[test]
fn called_as_a_tool_with_bad_arguments_it_says_what_to_send() {
    let home = shipped();
    let cases: [(&[u8], &str); 5] = [
        (
            br#"{"hook": "pre_shell_exc"}"#,
            "Did you mean `pre_shell_exec`?",
        ),
        (br#"{"hook": 3}"#, "`hook` must be a hook name"),
        (b"pre_shell_exec", "not valid JSON"),
        (br#"["pre_shell_exec"]"#, "must be a JSON object"),
        (
            br#"{"hooks": "pre_shell_exec"}"#,
            "unknown argument `hooks`",
        ),
    ];
    for (arguments, expected) in cases {
        let text = tool_call(&home, arguments);
        assert!(text.contains(expected), "{text}");
        assert!(
            text.contains(r#"{"hook": "pre_shell_exec"}"#),
            "says what to send: {text}"
        );
        assert!(!text.contains("no-env-files"), "no rule list: {text}");
    }
}

/// The catalogue's list of chibi's built-in tools (used to catch misspelt
/// names in `tools:`) is the list a running chibi sent: every captured tool
/// that is not a plugin's, with its type.
#[test]
fn the_catalogue_knows_the_tools_chibi_offers() {
    let (_, payload) = common::fixture("pre_api_tools");
    let captured: Vec<(String, String)> = payload["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] != "plugin")
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let listed: Vec<(String, String)> = hook_policy::catalogue::CHIBI_TOOLS
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    assert_eq!(listed, captured);
}

/// Issue 17, item 12: where several deny rules match, the rule that names
/// what it denies gives the reason, not the blanket "cannot be known" one.
#[test]
fn sudo_bash_is_denied_as_a_root_shell() {
    let home = shipped();
    let (hook, mut payload) = fixture("pre_shell_exec");
    payload["command"] = json!("sudo bash");
    let reply = home.reply(&hook, &payload);
    assert_eq!(reply["denied"], json!(true), "{reply}");
    let reason = reply["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("starting a root shell is not allowed")
            && reason.contains("[hook-policy rule: core.root-shell]"),
        "{reason}"
    );
}

/// The order among deny reasons: a named test beats a blanket property
/// (`opaque`), which beats a rule with no test; load order breaks ties;
/// `priority` overrides all of it.
#[test]
fn deny_reasons_prefer_the_most_specific_rule_unless_priority_says_otherwise() {
    let dir = TempDir::new("specific");
    let rules = |opaque_priority: &str| {
        format!(
            "version: 1\nrules:\n  - id: shell-off\n    hook: pre_shell_exec\n    deny: \"no shell today\"\n  - id: unknowable\n    hook: pre_shell_exec\n    shell: {{ opaque: true }}\n{opaque_priority}    deny: \"cannot be known\"\n  - id: no-bash\n    hook: pre_shell_exec\n    when: command.contains('bash')\n    deny: \"no bash\"\n"
        )
    };
    let (hook, mut payload) = fixture("pre_shell_exec");
    let reason = |home: &ChibiHome, payload: &Value| {
        home.reply(&hook, payload)["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let home = ChibiHome::install(&[&dir.write("p.yaml", &rules(""))]);
    payload["command"] = json!("sudo bash");
    assert!(reason(&home, &payload).starts_with("no bash"));
    payload["command"] = json!("$X");
    assert!(reason(&home, &payload).starts_with("cannot be known"));
    payload["command"] = json!("ls");
    assert!(reason(&home, &payload).starts_with("no shell today"));

    let home = ChibiHome::install(&[&dir.write("q.yaml", &rules("    priority: -1\n"))]);
    payload["command"] = json!("sudo bash");
    assert!(reason(&home, &payload).starts_with("cannot be known"));
}

/// Issue 17, item 11: a tool `pre_api_tools` hid from the model ran anyway
/// when the model called it by name. chibi's `pre_tool` now asks the tool
/// filter too, with the turn's context that `pre_api_tools` recorded.
#[test]
fn pre_tool_blocks_a_tool_the_filter_hid_this_turn() {
    let home = shipped();
    let (filter_hook, mut turn) = fixture("pre_api_tools");
    let (gate_hook, mut call) = fixture("pre_tool");
    let gate = |call: &Value| home.reply(&gate_hook, call);
    let call_tool = |call: &mut Value, name: &str| {
        call["tool_name"] = json!(name);
        call["arguments"] = json!({"path": "src/main.rs"});
    };
    // (context, tool, blocked by)
    let cases = [
        // The default context keeps its file tools (issue 14).
        ("default", "file_head", None),
        ("default", "shell_exec", None),
        ("coding", "file_head", None),
        ("safe", "shell_exec", Some("safe-context-tools")),
        ("safe", "update_goals", None),
        ("readonly", "write_file", Some("readonly-context-no-writes")),
        ("readonly", "file_head", None),
    ];
    for (context, tool, blocked_by) in cases {
        turn["context_name"] = json!(context);
        home.reply(&filter_hook, &turn);
        call_tool(&mut call, tool);
        let reply = gate(&call);
        match blocked_by {
            Some(rule) => {
                assert_eq!(reply["block"], json!(true), "{context}/{tool}: {reply}");
                let message = reply["message"].as_str().unwrap();
                assert!(
                    message.contains(&format!("`{tool}` is not offered")) && message.contains(rule),
                    "{context}/{tool}: {message}"
                );
            }
            None => assert_eq!(reply, json!({}), "{context}/{tool}"),
        }
    }
}

/// Without a recorded turn, rules that do not need the context still
/// hold at `pre_tool`; a filter-only policy registers `pre_tool` for it.
#[test]
fn pre_tool_enforces_a_context_free_filter_without_a_recorded_turn() {
    let dir = TempDir::new("filter-gate");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-shell-tools\n    hook: pre_api_tools\n    tools: { exclude: [\"type:shell\"] }\n  - id: coding-only-fetch\n    hook: pre_api_tools\n    when: context_name != 'coding'\n    tools: { exclude: [fetch_url] }\n",
    );
    let home = ChibiHome::install(&[&p]);
    let schema = stdout_json(&run(&home.plugin(), &["--schema"], &[], b""));
    assert_eq!(schema["hooks"], json!(["pre_tool", "pre_api_tools"]));
    let (hook, mut call) = fixture("pre_tool");
    let reply = home.reply(&hook, &call);
    assert_eq!(reply["block"], json!(true), "{reply}");
    assert!(reply["message"]
        .as_str()
        .unwrap()
        .contains("no-shell-tools"));
    // A rule that needs the context cannot decide without it, and a tool
    // filter that cannot decide hides nothing: said on stderr.
    call["tool_name"] = json!("fetch_url");
    call["arguments"] = json!({"url": "https://example.com"});
    let out = home.hook(&hook, &call);
    assert_eq!(stdout_json(&out), json!({}));
    assert!(
        stderr(&out).contains("no pre_api_tools call recorded"),
        "{}",
        stderr(&out)
    );
}

/// A `pre_api_tools` payload that cannot be read leaves no turn behind:
/// `pre_tool` must not judge by the previous turn's context.
#[test]
fn an_unreadable_turn_forgets_the_last_one() {
    let home = shipped();
    let (filter_hook, mut turn) = fixture("pre_api_tools");
    turn["context_name"] = json!("coding");
    home.reply(&filter_hook, &turn);
    let (gate_hook, mut call) = fixture("pre_tool");
    call["tool_name"] = json!("file_head");
    call["arguments"] = json!({"path": "src/main.rs"});
    assert_eq!(home.reply(&gate_hook, &call), json!({}));
    let out = home.hook_raw(&filter_hook, b"{not json");
    assert!(out.status.success());
    let out = home.hook(&gate_hook, &call);
    assert_eq!(stdout_json(&out), json!({}));
    assert!(
        stderr(&out).contains("no pre_api_tools call recorded"),
        "judged by the last turn: {}",
        stderr(&out)
    );
}
