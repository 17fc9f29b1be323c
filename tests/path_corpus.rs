//! The path corpus (`tests/corpora/paths.tsv`): spellings of file paths an
//! agent may read or write, resolved against the project root `/proj` with
//! home `/home/user`, each labelled with
//!
//! 1. the normalised form [`hook_policy::paths::normalize`] must give;
//! 2. whether it is inside the project ([`hook_policy::paths::is_within`]
//!    and [`hook_policy::paths::inspect`] must agree);
//! 3. the verdicts of the shipped `policies/` on `pre_file_read` and
//!    `pre_file_write`, through the real engine.
//!
//! A sample also goes through the built `policy` binary. Every failing line
//! is reported. `CORPUS_PRINT=1` prints what was concluded for every line.

mod common;
mod corpus_support;

use corpus_support::{read, Case, Report};
use hook_policy::compile::{compile, CompiledPolicy};
use hook_policy::eval::{decide, DecideContext};
use hook_policy::paths;
use serde_json::{json, Value};

const ROOT: &str = "/proj";
const HOME: &str = "/home/user";
const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: ROOT,
    home: Some(HOME),
};

/// Columns: normalised, inside, read verdict, write verdict, path.
const NORMALIZED: usize = 0;
const INSIDE: usize = 1;
const READ: usize = 2;
const WRITE: usize = 3;
const PATH: usize = 4;

/// Verdict labels and the shipped rule each stands for.
const VERDICTS: &[(&str, Option<&str>)] = &[
    ("allow", None),
    ("env", Some("no-env-files")),
    ("keys", Some("no-ssh-material")),
    ("outside", Some("no-writes-outside-project")),
    ("cred", Some("file-secrets.credential-file")),
];

/// The shipped policies compiled for every hook: reads and writes share it.
fn shipped_policy() -> CompiledPolicy {
    let dir = common::repo().join("policies");
    let (set, diags) = hook_policy::load::load(&[dir]);
    assert!(!diags.iter().any(|d| d.is_error()), "policies/ loads");
    let (policy, diags) = compile(&set, None);
    assert!(!diags.iter().any(|d| d.is_error()), "policies/ compiles");
    policy
}

fn read_payload(path: &str) -> Value {
    json!({"tool_name": "file_head", "path": path})
}

fn write_payload(path: &str) -> Value {
    json!({"tool_name": "write_file", "path": path, "content": "hello\n"})
}

fn expected_rule(label: &str) -> Result<Option<&'static str>, String> {
    VERDICTS
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, rule)| *rule)
        .ok_or_else(|| format!("unknown verdict label `{label}`"))
}

fn check_verdict(
    policy: &CompiledPolicy,
    hook: &str,
    payload: &Value,
    label: &str,
) -> Option<String> {
    let decision = decide(policy, hook, payload, CTX);
    if !decision.errors.is_empty() {
        return Some(format!("{hook}: rule errors {:?}", decision.errors));
    }
    let denied_by = decision.deny.as_ref().map(|w| w.rule.as_str());
    match expected_rule(label) {
        Err(e) => Some(e),
        Ok(expected) if expected != denied_by => Some(format!(
            "{hook}: expected {}, got {}",
            expected.map_or("allow".to_string(), |r| format!("deny by {r}")),
            denied_by.map_or("allow".to_string(), |r| format!("deny by {r}")),
        )),
        Ok(_) => None,
    }
}

fn check_case(policy: &CompiledPolicy, case: &Case) -> Vec<String> {
    let raw = case.field(PATH);
    let mut problems = Vec::new();
    let normalized = paths::normalize(raw, ROOT, Some(HOME));
    if normalized != case.field(NORMALIZED) {
        problems.push(format!(
            "normalised: expected {:?}, got {normalized:?}",
            case.field(NORMALIZED)
        ));
    }
    let again = paths::normalize(&normalized, ROOT, Some(HOME));
    if again != normalized {
        problems.push(format!("normalising twice gives {again:?}"));
    }
    let inside = match case.field(INSIDE) {
        "in" => true,
        "out" => false,
        other => {
            problems.push(format!("inside must be `in` or `out`, not `{other}`"));
            return problems;
        }
    };
    if paths::is_within(&normalized, ROOT) != inside {
        problems.push(format!(
            "is_within({normalized:?}, {ROOT:?}) is not {inside}"
        ));
    }
    let info = paths::inspect(raw, ROOT, Some(HOME));
    if info.within_root != inside || info.normalized != normalized {
        problems.push(format!(
            "inspect disagrees: within_root {}, normalized {:?}",
            info.within_root, info.normalized
        ));
    }
    problems.extend(check_verdict(
        policy,
        "pre_file_read",
        &read_payload(raw),
        case.field(READ),
    ));
    problems.extend(check_verdict(
        policy,
        "pre_file_write",
        &write_payload(raw),
        case.field(WRITE),
    ));
    if std::env::var_os("CORPUS_PRINT").is_some() {
        let shown: String = normalized.chars().take(60).collect();
        eprintln!(
            "{:>3} {:<5} {:<60} {:?}",
            case.line,
            if info.within_root { "in" } else { "out" },
            shown,
            raw.chars().take(60).collect::<String>()
        );
    }
    problems
}

#[test]
fn every_corpus_path_gets_its_labelled_form_place_and_verdicts() {
    let cases = read("paths.tsv", 5);
    assert!(cases.len() >= 30, "the corpus has {} lines", cases.len());
    let policy = shipped_policy();
    let mut report = Report::new("paths.tsv");
    for case in &cases {
        let problems = check_case(&policy, case);
        report.record(case, problems);
    }
    report.finish();
}

#[test]
fn the_corpus_covers_every_verdict_both_ways() {
    let cases = read("paths.tsv", 5);
    for (label, _) in VERDICTS {
        let n = cases
            .iter()
            .filter(|c| c.field(READ) == *label || c.field(WRITE) == *label)
            .count();
        assert!(n > 0, "no line with verdict `{label}`");
    }
    for side in ["in", "out"] {
        assert!(
            cases.iter().any(|c| c.field(INSIDE) == side),
            "no `{side}` line"
        );
    }
}

#[test]
fn the_binary_agrees_on_a_sample_of_paths() {
    let cases: Vec<Case> = read("paths.tsv", 5)
        .into_iter()
        .filter(|c| c.gap.is_none())
        .collect();
    let step = (cases.len() / 6).max(1);
    let policies = common::repo().join("policies").display().to_string();
    let mut wrong = Vec::new();
    for case in cases.iter().step_by(step) {
        for (hook, payload, label) in [
            ("pre_file_read", read_payload(case.field(PATH)), READ),
            ("pre_file_write", write_payload(case.field(PATH)), WRITE),
        ] {
            let body = serde_json::to_vec(&payload).unwrap();
            let out = common::run(
                &common::bin(),
                &[
                    "eval",
                    "--policy",
                    &policies,
                    "--hook",
                    hook,
                    "--project-root",
                    ROOT,
                ],
                &[("HOME", HOME)],
                &body,
            );
            let reply = common::stdout_json(&out);
            let ok = match expected_rule(case.field(label)).unwrap() {
                None => reply == json!({}),
                Some(rule) => {
                    reply["denied"] == json!(true)
                        && reply["reason"]
                            .as_str()
                            .is_some_and(|r| r.contains(&format!("[hook-policy rule: {rule}]")))
                }
            };
            if !ok {
                wrong.push(format!(
                    "paths.tsv:{}: {}\n    {hook}: binary replied {reply}",
                    case.line, case.raw
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
