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
