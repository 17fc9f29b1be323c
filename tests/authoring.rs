//! A newcomer's path through the binary (issue 15): writing a policy,
//! reading its diagnostics, testing it and wiring it into a harness.

mod common;

use common::*;
use serde_json::Value;

/// `policy check --format json` on `files`: the diagnostics and the exit status.
fn check_json(dir: &TempDir, files: &[&str]) -> (Vec<Value>, Option<i32>) {
    let mut args = vec!["check".to_string(), "--format".into(), "json".into()];
    args.extend(
        files
            .iter()
            .map(|f| dir.path().join(f).display().to_string()),
    );
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = policy(&argv, b"");
    let report = stdout_json(&out);
    (
        report["diagnostics"].as_array().unwrap().clone(),
        out.status.code(),
    )
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            format!(
                "{} {}:{}",
                d["code"].as_str().unwrap(),
                d["line"],
                d["column"]
            )
        })
        .collect()
}

#[test]
fn an_enumerated_value_lists_every_choice_and_suggests_the_nearest() {
    let dir = TempDir::new("enum");
    dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-internal\n    hook: pre_fetch_url\n    url: { class: [interal] }\n    deny: internal\n",
    );
    let (diags, status) = check_json(&dir, &["p.yaml"]);
    assert_eq!(status, Some(1));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0]["message"],
        "`interal` is not one of: multicast, broadcast, loopback, private, link_local, \
         cloud_metadata, unspecified, reserved, public, invalid, non_http, internal"
    );
    assert_eq!(diags[0]["help"], "did you mean `internal`?");
    assert_eq!(
        (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
        (Some(5), Some(20))
    );
}

#[test]
fn a_harness_gets_file_line_and_problem_for_a_schema_error_never_serde_text() {
    let dir = TempDir::new("shape");
    let file = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    priority: high\n    deny: \"no\"\n  - id: b\n    hook: pre_shell_exec\n    when_: \"true\"\n    deny: \"no\"\n",
    );
    let expected = format!(
        "hook-policy could not decide, so it denies (fail closed): the policy does not load: \
         {}:5:15: `priority` must be an integer, found a string (and 1 more; run `policy check`)",
        file.display()
    );
    // Claude Code, through the command its settings run.
    let event = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/tmp","session_id":"s"}"#;
    let cache = dir.path().join("cache");
    let out = run(
        &bin(),
        &[
            "hook",
            "claude-code",
            "--policy",
            &file.display().to_string(),
        ],
        &[("XDG_CACHE_HOME", &cache.display().to_string())],
        event,
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecisionReason"],
        expected.as_str()
    );
    // chibi's reply, as `policy eval` reproduces it.
    let out = policy(
        &[
            "eval",
            "--policy",
            &file.display().to_string(),
            "--hook",
            "pre_shell_exec",
        ],
        br#"{"command":"ls"}"#,
    );
    assert_eq!(stdout_json(&out)["reason"], expected.as_str());
    assert!(!stderr(&out).contains("invalid type"), "{}", stderr(&out));
}

#[test]
fn readme_lists_every_diagnostic_code() {
    fn sources(dir: &std::path::Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut text = String::new();
    sources(&repo().join("src"), &mut text);
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let code = diagnostic_codes(&text);
    assert!(code.len() > 30, "found only {code:?}");
    let missing: Vec<&String> = code
        .iter()
        .filter(|c| !readme.contains(&format!("`{c}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's code list misses {missing:?}"
    );
}

/// Every `"family::name"` string literal of a diagnostic family.
fn diagnostic_codes(text: &str) -> std::collections::BTreeSet<String> {
    const FAMILIES: &[&str] = &[
        "yaml", "schema", "hook", "effect", "rule", "cel", "regex", "glob", "match", "settings",
        "io", "lint",
    ];
    let mut found = std::collections::BTreeSet::new();
    for family in FAMILIES {
        let quote = format!("\"{family}::");
        for (at, _) in text.match_indices(&quote) {
            let rest = &text[at + quote.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if !name.is_empty() && rest[name.len()..].starts_with('"') {
                found.insert(format!("{family}::{name}"));
            }
        }
    }
    found
}
