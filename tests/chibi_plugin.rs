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
        reason.contains("rm -rf") && reason.contains("core.recursive-force-delete"),
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

#[test]
fn called_as_a_tool_it_lists_the_active_rules() {
    let home = shipped();
    let out = run(
        &home.plugin(),
        &[],
        &[("CHIBI_TOOL_NAME", "hook_policy")],
        b"{}",
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("core.recursive-force-delete") && text.contains("pre_shell_exec"),
        "{text}"
    );
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
