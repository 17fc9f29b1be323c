//! The guardrail pack corpora: what the shipped policies and packs
//! (`policies/` plus `packs/*.yaml`, loaded as one set) must decide.
//!
//! - `benign.tsv`: everyday agent commands (builds, tests, git, package
//!   managers, inspection, cleanup inside the project). The recommended set
//!   must deny none of them: a guard that blocks routine work is uninstalled.
//! - `dangerous.tsv`: commands the peers' published tests deny, plus our
//!   own, each with the rule that must deny it, or `allow` where we differ
//!   from the peers on purpose. Every pack is loaded, opt-in ones included.
//! - `secret_paths.tsv`: credential files, through the file hooks, the
//!   `pre_tool` gate and `cat` in the shell, so the file-secrets and
//!   secrets packs agree on what a secret is.
//! - `pack_urls.tsv`: SSRF destinations, through `pre_fetch_url`, the
//!   `pre_tool` gate and `curl` in the shell.
//!
//! Format and `gap:` labels as in `corpus_support`. `CORPUS_PRINT=1` prints
//! the decision for every line.

mod common;
mod corpus_support;

use corpus_support::{read, Case, Report};
use hook_policy::compile::CompiledPolicy;
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::{decide, DecideContext, Decision};
use serde_json::{json, Value};
use std::path::PathBuf;

const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/proj",
    home: Some("/home/user"),
};

/// Which packs are loaded next to `policies/`.
#[derive(Clone, Copy)]
enum Packs {
    /// Those whose header says `recommended: true`.
    Recommended,
    /// Every pack, opt-in ones included.
    All,
}

/// The `recommended:` flag of a pack's header, read from its text: the
/// loader does not expose pack headers to tests yet.
fn is_recommended(text: &str) -> bool {
    let mut in_header = false;
    for line in text.lines() {
        if line.starts_with("pack:") {
            in_header = true;
        } else if in_header && !line.starts_with(' ') && !line.trim().is_empty() {
            return false;
        } else if in_header && line.trim() == "recommended: true" {
            return true;
        }
    }
    false
}

fn pack_files(which: Packs) -> Vec<PathBuf> {
    let dir = common::repo().join("packs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".yaml") && !name.ends_with(".test.yaml")
        })
        .filter(|p| match which {
            Packs::All => true,
            Packs::Recommended => is_recommended(&std::fs::read_to_string(p).unwrap()),
        })
        .collect();
    files.sort();
    assert!(files.len() >= 10, "only {} pack files found", files.len());
    files
}

fn policy(which: Packs, hook: &str) -> CompiledPolicy {
    // The pack files first: in an earlier layer than policies/, they stand in
    // for the shipped packs policies/ enables (see `packs::compose`).
    let mut paths = pack_files(which);
    paths.push(common::repo().join("policies"));
    match engine::prepare(&paths, Some(hook)) {
        Prepared::Ready(policy) => policy,
        Prepared::Broken { message, .. } => panic!("policies and packs do not load: {message}"),
    }
}

fn shell(command: &str) -> Value {
    json!({"tool_name": "shell_exec", "command": command})
}

fn denied_by(decision: &Decision) -> Option<&str> {
    decision.deny.as_ref().map(|w| w.rule.as_str())
}

fn describe(decision: &Decision) -> String {
    match (denied_by(decision), &decision.block) {
        (Some(rule), _) => format!("deny by {rule} (matched {:?})", decision.matched),
        (None, Some(block)) => format!("block by {} (matched {:?})", block.rule, decision.matched),
        (None, None) => format!("allow (matched {:?})", decision.matched),
    }
}

fn print(line: usize, verdict: &str, subject: &str) {
    if std::env::var_os("CORPUS_PRINT").is_some() {
        eprintln!("{line:>4} {verdict:<44} {subject:?}");
    }
}

#[test]
fn the_recommended_set_denies_no_everyday_command() {
    let cases = read("benign.tsv", 2);
    assert!(
        cases.len() >= 300,
        "the benign corpus has {} lines",
        cases.len()
    );
    let policy = policy(Packs::Recommended, "pre_shell_exec");
    let mut report = Report::new("benign.tsv");
    for case in &cases {
        let command = case.field(1);
        let decision = decide(&policy, "pre_shell_exec", &shell(command), CTX);
        print(case.line, &describe(&decision), command);
        let mut problems = Vec::new();
        if !decision.errors.is_empty() {
            problems.push(format!("rule errors: {:?}", decision.errors));
        }
        if denied_by(&decision).is_some() {
            problems.push(format!("expected allow, got {}", describe(&decision)));
        }
        report.record(case, problems);
    }
    report.finish();
}

/// `rule` must deny the line (it may not be the first denying rule), `deny`:
/// some rule must, or `allow`: nothing may deny it.
fn check_expectation(expect: &str, decision: &Decision) -> Vec<String> {
    let mut problems = Vec::new();
    if !decision.errors.is_empty() {
        problems.push(format!("rule errors: {:?}", decision.errors));
    }
    match expect {
        "allow" if denied_by(decision).is_some() => {
            problems.push(format!("expected allow, got {}", describe(decision)))
        }
        "allow" => {}
        "deny" if denied_by(decision).is_none() => {
            problems.push(format!("expected a denial, got {}", describe(decision)))
        }
        "deny" => {}
        rule if denied_by(decision).is_none() || !decision.matched.iter().any(|m| m == rule) => {
            problems.push(format!(
                "expected deny by {rule}, got {}",
                describe(decision)
            ))
        }
        _ => {}
    }
    problems
}

#[test]
fn every_dangerous_command_is_denied_by_its_rule() {
    let cases = read("dangerous.tsv", 3);
    let policy = policy(Packs::All, "pre_shell_exec");
    let known: Vec<&str> = policy.rules.iter().map(|r| &*r.id).collect();
    let mut report = Report::new("dangerous.tsv");
    for case in &cases {
        let (expect, command) = (case.field(1), case.field(2));
        let decision = decide(&policy, "pre_shell_exec", &shell(command), CTX);
        print(case.line, &describe(&decision), command);
        let mut problems = check_expectation(expect, &decision);
        if !["allow", "deny"].contains(&expect) && !known.contains(&expect) {
            problems.push(format!("no rule `{expect}` in the policies and packs"));
        }
        report.record(case, problems);
    }
    report.finish();
}

#[test]
fn the_dangerous_corpus_draws_on_both_peers_and_covers_every_shell_pack() {
    let cases = read("dangerous.tsv", 3);
    for source in ["dcg", "safety-net", "own"] {
        let n = cases.iter().filter(|c| c.field(0) == source).count();
        assert!(n >= 20, "only {n} lines from `{source}`");
    }
    let denied = cases.iter().filter(|c| c.field(1) != "allow").count();
    assert!(denied >= 400, "only {denied} lines expect a denial");
    let policy = policy(Packs::All, "pre_shell_exec");
    let unexercised: Vec<&str> = policy
        .rules
        .iter()
        .map(|r| &*r.id)
        .filter(|id| id.contains('.'))
        .filter(|id| !cases.iter().any(|c| c.field(1) == *id && c.gap.is_none()))
        .collect();
    assert!(
        unexercised.is_empty(),
        "pack rules no dangerous.tsv line expects: {unexercised:?}"
    );
}

/// Columns: expect (`secret` | `client` | `allow`), path.
#[test]
fn secret_paths_are_refused_by_file_tools_the_tool_gate_and_the_shell_alike() {
    let cases = read("secret_paths.tsv", 2);
    assert!(
        cases.len() >= 60,
        "the path corpus has {} lines",
        cases.len()
    );
    let read_policy = policy(Packs::Recommended, "pre_file_read");
    let write_policy = policy(Packs::Recommended, "pre_file_write");
    let tool_policy = policy(Packs::Recommended, "pre_tool");
    let shell_policy = policy(Packs::Recommended, "pre_shell_exec");
    let mut report = Report::new("secret_paths.tsv");
    for case in &cases {
        let (expect, path) = (case.field(0), case.field(1));
        // Which of the five checks (read, write, the tool gate for a reading
        // and a writing tool, `cat`) refuse, and the rule that refuses the
        // write. The SSH client's own files may be read, not written.
        let (refused, write_rule) = match expect {
            "secret" => ([true; 5], "file-secrets.credential-file"),
            "client" => (
                [false, true, false, true, false],
                "file-secrets.ssh-client-file-write",
            ),
            "allow" => ([false; 5], "file-secrets.credential-file"),
            other => {
                report.record(case, vec![format!("unknown label `{other}`")]);
                continue;
            }
        };
        let checks: [(&str, &CompiledPolicy, &str, Value); 5] = [
            (
                "pre_file_read",
                &read_policy,
                "file-secrets.credential-file",
                json!({"tool_name": "file_head", "path": path}),
            ),
            (
                "pre_file_write",
                &write_policy,
                write_rule,
                json!({"tool_name": "write_file", "path": path, "content": "x"}),
            ),
            (
                "pre_tool",
                &tool_policy,
                "file-secrets.credential-file-tool",
                json!({"tool_name": "file_head", "arguments": {"path": path}}),
            ),
            (
                "pre_tool",
                &tool_policy,
                "file-secrets.credential-file-tool",
                json!({"tool_name": "write_file", "arguments": {"path": path, "content": "x"}}),
            ),
            (
                "pre_shell_exec",
                &shell_policy,
                "secrets.read-secret-file",
                shell(&format!("cat {path}")),
            ),
        ];
        let mut problems = Vec::new();
        for ((hook, policy, rule, payload), secret) in checks.iter().zip(refused) {
            let decision = decide(policy, hook, payload, CTX);
            print(case.line, &format!("{hook}: {}", describe(&decision)), path);
            if !decision.errors.is_empty() {
                problems.push(format!("{hook}: rule errors: {:?}", decision.errors));
            }
            let matched = decision.matched.iter().any(|m| m == rule);
            if matched != secret {
                problems.push(format!(
                    "{hook}: expected {rule} {}, got {}",
                    if secret { "to match" } else { "not to match" },
                    describe(&decision)
                ));
            }
        }
        report.record(case, problems);
    }
    report.finish();
}

/// Columns: fetch (`internal` | `dns` | `allow`), shell (`metadata` |
/// `internal` | `allow`), url.
#[test]
fn internal_urls_are_refused_by_fetch_tools_the_tool_gate_and_shell_clients() {
    let cases = read("pack_urls.tsv", 3);
    assert!(
        cases.len() >= 60,
        "the URL corpus has {} lines",
        cases.len()
    );
    let fetch_policy = policy(Packs::Recommended, "pre_fetch_url");
    let tool_policy = policy(Packs::Recommended, "pre_tool");
    let shell_policy = policy(Packs::All, "pre_shell_exec");
    let mut report = Report::new("pack_urls.tsv");
    for case in &cases {
        let (fetch, shell_label, url) = (case.field(0), case.field(1), case.field(2));
        let mut problems = Vec::new();
        let (fetch_rule, tool_rule) = match fetch {
            "internal" => (
                Some("urls.internal-destination"),
                Some("urls.internal-destination-tool"),
            ),
            "dns" => (
                Some("urls.loopback-names"),
                Some("urls.loopback-names-tool"),
            ),
            "allow" => (None, None),
            other => {
                report.record(case, vec![format!("unknown fetch label `{other}`")]);
                continue;
            }
        };
        let shell_rule = match shell_label {
            "metadata" => Some("network.cloud-metadata"),
            "internal" => Some("network-internal.internal-address"),
            "allow" => None,
            other => {
                report.record(case, vec![format!("unknown shell label `{other}`")]);
                continue;
            }
        };
        let checks = [
            (
                "pre_fetch_url",
                &fetch_policy,
                fetch_rule,
                json!({"tool_name": "fetch_url", "url": url, "safety": "sensitive"}),
            ),
            (
                "pre_tool",
                &tool_policy,
                tool_rule,
                json!({"tool_name": "fetch_url", "arguments": {"url": url}}),
            ),
            (
                "pre_shell_exec",
                &shell_policy,
                shell_rule,
                shell(&format!("curl -s '{url}'")),
            ),
        ];
        for (hook, policy, rule, payload) in &checks {
            let decision = decide(policy, hook, payload, CTX);
            print(case.line, &format!("{hook}: {}", describe(&decision)), url);
            if !decision.errors.is_empty() {
                problems.push(format!("{hook}: rule errors: {:?}", decision.errors));
            }
            let refused = decision.deny.is_some() || decision.block.is_some();
            match rule {
                Some(rule) if !(refused && decision.matched.iter().any(|m| m == rule)) => problems
                    .push(format!(
                        "{hook}: expected refusal by {rule}, got {}",
                        describe(&decision)
                    )),
                None if refused => problems.push(format!(
                    "{hook}: expected allow, got {}",
                    describe(&decision)
                )),
                _ => {}
            }
        }
        report.record(case, problems);
    }
    report.finish();
}

/// A sample of both shell corpora through the built binary, so the library
/// path and `policy eval` cannot drift apart.
#[test]
fn the_binary_agrees_on_a_sample_of_both_shell_corpora() {
    // Pack files before policies/: they stand in for the shipped packs.
    let mut dirs = pack_files(Packs::All);
    dirs.push(common::repo().join("policies"));
    let mut args: Vec<String> = vec!["eval".into()];
    for d in &dirs {
        args.push("--policy".into());
        args.push(d.display().to_string());
    }
    args.extend([
        "--hook".into(),
        "pre_shell_exec".into(),
        "--project-root".into(),
        CTX.project_root.into(),
    ]);
    let dangerous: Vec<Case> = read("dangerous.tsv", 3)
        .into_iter()
        .filter(|c| c.gap.is_none() && c.field(1) != "allow")
        .collect();
    let mut wrong = Vec::new();
    for case in dangerous.iter().step_by((dangerous.len() / 12).max(1)) {
        let body = serde_json::to_vec(&shell(case.field(2))).unwrap();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let reply = common::stdout_json(&common::policy(&argv, &body));
        if reply["denied"] != json!(true) {
            wrong.push(format!(
                "dangerous.tsv:{}: {} -> {reply}",
                case.line, case.raw
            ));
        }
    }
    let recommended: Vec<PathBuf> = {
        let mut d = pack_files(Packs::Recommended);
        d.push(common::repo().join("policies"));
        d
    };
    let mut rec_args: Vec<String> = vec!["eval".into()];
    for d in &recommended {
        rec_args.push("--policy".into());
        rec_args.push(d.display().to_string());
    }
    rec_args.extend(["--hook".into(), "pre_shell_exec".into()]);
    let benign: Vec<Case> = read("benign.tsv", 2)
        .into_iter()
        .filter(|c| c.gap.is_none())
        .collect();
    for case in benign.iter().step_by((benign.len() / 12).max(1)) {
        let body = serde_json::to_vec(&shell(case.field(1))).unwrap();
        let argv: Vec<&str> = rec_args.iter().map(String::as_str).collect();
        let reply = common::stdout_json(&common::policy(&argv, &body));
        if reply != json!({}) {
            wrong.push(format!("benign.tsv:{}: {} -> {reply}", case.line, case.raw));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The share of each peer's must-deny lines (every `dcg` and `safety-net`
/// line of dangerous.tsv: the peers deny all of them, including those we
/// allow on purpose) that the recommended set denies. Printed for the
/// record (`cargo test --test pack_corpus peer_share -- --nocapture`), and
/// held above a floor so a change that drops protection fails here.
#[test]
fn peer_share_of_must_deny_lines_denied_by_the_recommended_set() {
    let cases = read("dangerous.tsv", 3);
    let recommended = policy(Packs::Recommended, "pre_shell_exec");
    let all = policy(Packs::All, "pre_shell_exec");
    for (peer, floor) in [("dcg", 0.88), ("safety-net", 0.88)] {
        let lines: Vec<&Case> = cases.iter().filter(|c| c.field(0) == peer).collect();
        let denied_by = |p: &CompiledPolicy| {
            lines
                .iter()
                .filter(|c| {
                    let d = decide(p, "pre_shell_exec", &shell(c.field(2)), CTX);
                    d.deny.is_some()
                })
                .count()
        };
        let (rec, every) = (denied_by(&recommended), denied_by(&all));
        let share = rec as f64 / lines.len() as f64;
        // Lines labelled `allow` are the peers' denials we waive on purpose.
        let kept = lines.iter().filter(|c| c.field(1) != "allow").count();
        eprintln!(
            "{peer}: recommended denies {rec}/{} ({:.1}%; {:.1}% of the {kept} not waived), all packs {every}/{} ({:.1}%)",
            lines.len(),
            100.0 * share,
            100.0 * rec as f64 / kept as f64,
            lines.len(),
            100.0 * every as f64 / lines.len() as f64
        );
        assert!(
            share >= floor,
            "the recommended set denies {:.1}% of {peer}'s lines, below {:.0}%",
            100.0 * share,
            100.0 * floor
        );
        // Of the lines not waived on purpose, nearly all (the gaps left are
        // opt-in packs' themes).
        assert!(
            rec as f64 >= 0.98 * kept as f64,
            "the recommended set denies {rec} of {peer}'s {kept} lines not waived, below 98%"
        );
    }
}
