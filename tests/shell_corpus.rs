//! The shell corpus (`tests/corpora/shell.tsv`): command lines an agent may
//! send, each labelled with what must be concluded about it:
//!
//! 1. the verdict of the shipped `policies/` on `pre_shell_exec`, through the
//!    real engine (policy loaded and compiled once, one decision per line);
//! 2. whether the analysis must call the line opaque, and why;
//! 3. the programs the analysis must find, in order.
//!
//! A few lines also go through the built `policy` binary, so the library
//! path and the command line cannot drift apart. Every failing line is
//! reported, not just the first. Set `CORPUS_PRINT=1` to print what the
//! analysis concluded for every line.

mod common;
mod corpus_support;

use corpus_support::{read, Case, Report};
use hook_policy::compile::CompiledPolicy;
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::{decide, DecideContext};
use hook_policy::shell::{self, OpaqueKind, ShellAnalysis};
use serde_json::{json, Value};

const HOOK: &str = "pre_shell_exec";
const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/proj",
    home: Some("/home/user"),
};

/// Columns: verdict, opaque, programs, command.
const VERDICT: usize = 0;
const OPAQUE: usize = 1;
const PROGRAMS: usize = 2;
const COMMAND: usize = 3;

/// Verdict labels and the shipped rule each stands for.
const VERDICTS: &[(&str, Option<&str>)] = &[
    ("allow", None),
    ("rm", Some("core.recursive-force-delete")),
    ("opaque", Some("core.opaque-command")),
    ("push", Some("git.push-force")),
    ("chmod", Some("filesystem.world-writable")),
    (
        "chmodsys",
        Some("filesystem.recursive-permissions-on-system"),
    ),
    ("rootsh", Some("core.root-shell")),
    ("findall", Some("filesystem.find-exec-delete-everything")),
    ("hostpriv", Some("containers.host-privileged-command")),
];

const OPAQUE_KINDS: &[(&str, OpaqueKind)] = &[
    ("program", OpaqueKind::DynamicProgram),
    ("eval", OpaqueKind::DynamicEval),
    ("stdin", OpaqueKind::ShellFromStdin),
    ("parse", OpaqueKind::ParseError),
    ("complex", OpaqueKind::TooComplex),
];

fn shipped_policy() -> CompiledPolicy {
    let dir = common::repo().join("policies");
    match engine::prepare(&[dir], Some(HOOK)) {
        Prepared::Ready(policy) => policy,
        Prepared::Broken { message, .. } => panic!("shipped policies do not load: {message}"),
    }
}

fn payload(command: &str) -> Value {
    json!({"tool_name": "shell_exec", "command": command})
}

/// The rule expected to deny, or `None` for allow.
fn expected_rule(label: &str) -> Result<Option<&'static str>, String> {
    VERDICTS
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, rule)| *rule)
        .ok_or_else(|| format!("unknown verdict label `{label}`"))
}

fn check_opaque(label: &str, analysis: &ShellAnalysis) -> Vec<String> {
    let details = || {
        analysis
            .opaque
            .iter()
            .map(|o| format!("{:?}: {}", o.kind, o.detail))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match label {
        "*" => vec![],
        "-" if analysis.is_opaque() => vec![format!(
            "opaque: expected a fully understood line, got {}",
            details()
        )],
        "-" => vec![],
        kinds => kinds
            .split(',')
            .filter_map(|k| {
                let Some((_, kind)) = OPAQUE_KINDS.iter().find(|(l, _)| *l == k) else {
                    return Some(format!("unknown opaque label `{k}`"));
                };
                (!analysis.has_opaque(*kind))
                    .then(|| format!("opaque: expected {kind:?}, got [{}]", details()))
            })
            .collect(),
    }
}

fn check_programs(label: &str, analysis: &ShellAnalysis) -> Vec<String> {
    if label == "*" {
        return vec![];
    }
    let found: Vec<&str> = analysis.programs().collect();
    let expected: Vec<&str> = match label {
        "-" => vec![],
        _ => label.split(' ').collect(),
    };
    if found == expected {
        vec![]
    } else {
        vec![format!("programs: expected {expected:?}, found {found:?}")]
    }
}

fn check_case(policy: &CompiledPolicy, case: &Case) -> Vec<String> {
    let command = case.field(COMMAND);
    let analysis = shell::analyze(command);
    let mut problems = check_opaque(case.field(OPAQUE), &analysis);
    problems.extend(check_programs(case.field(PROGRAMS), &analysis));
    let decision = decide(policy, HOOK, &payload(command), CTX);
    if !decision.errors.is_empty() {
        problems.push(format!("rule errors: {:?}", decision.errors));
    }
    let denied_by = decision.deny.as_ref().map(|w| w.rule.as_str());
    match expected_rule(case.field(VERDICT)) {
        Err(e) => problems.push(e),
        Ok(expected) if expected != denied_by => problems.push(format!(
            "verdict: expected {}, got {} (matched {:?})",
            expected.map_or("allow".to_string(), |r| format!("deny by {r}")),
            denied_by.map_or("allow".to_string(), |r| format!("deny by {r}")),
            decision.matched
        )),
        Ok(_) => {}
    }
    if std::env::var_os("CORPUS_PRINT").is_some() {
        let programs: Vec<&str> = analysis.programs().collect();
        let opaque: Vec<String> = analysis
            .opaque
            .iter()
            .map(|o| format!("{:?}", o.kind))
            .collect();
        eprintln!(
            "{:>3} {:<28} {:<30} {:<40} {:?}",
            case.line,
            denied_by.unwrap_or("allow"),
            opaque.join(","),
            programs.join(" "),
            command
        );
    }
    problems
}

#[test]
fn every_corpus_line_gets_its_labelled_verdict_opacity_and_programs() {
    let cases = read("shell.tsv", 4);
    assert!(cases.len() >= 80, "the corpus has {} lines", cases.len());
    let policy = shipped_policy();
    let mut report = Report::new("shell.tsv");
    for case in &cases {
        let problems = check_case(&policy, case);
        report.record(case, problems);
    }
    report.finish();
}

/// The pipeline shortcut (src/shell/view.rs) is only a speed-up: every
/// corpus line, and each of them joined into a pipeline with the next ones,
/// analyses exactly as when the parser reads it as written.
#[test]
fn the_pipeline_shortcut_agrees_with_the_exact_parse_on_the_corpus() {
    let lines: Vec<String> = read("shell.tsv", 4)
        .iter()
        .map(|c| c.field(COMMAND).to_string())
        .collect();
    let mut checked = 0;
    let mut shortcuts = 0;
    let mut flattened_changes = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let piped = format!(
            "{line} | {} | {}",
            lines[(i + 1) % lines.len()],
            lines[(i + 2) % lines.len()]
        );
        for candidate in [line.clone(), piped] {
            checked += 1;
            shortcuts += usize::from(shell::takes_pipeline_shortcut(&candidate));
            if shell::analyze(&candidate) != shell::analyze_exact(&candidate) {
                flattened_changes.push(candidate);
            }
        }
    }
    assert!(
        flattened_changes.is_empty(),
        "{} of {checked} lines analyse differently with the shortcut:\n{}",
        flattened_changes.len(),
        flattened_changes.join("\n")
    );
    // Most joined lines are plain enough for the shortcut; if none were,
    // this test would compare the exact parse with itself.
    assert!(
        shortcuts * 2 > lines.len(),
        "only {shortcuts} of {checked} lines took the shortcut"
    );
}

#[test]
fn the_corpus_covers_denials_opacity_and_harmless_lookalikes() {
    let cases = read("shell.tsv", 4);
    for (label, _) in VERDICTS {
        let n = cases.iter().filter(|c| c.field(VERDICT) == *label).count();
        assert!(n > 0, "no line with verdict `{label}`");
    }
    let allowed = cases.iter().filter(|c| c.field(VERDICT) == "allow").count();
    let denied = cases.len() - allowed;
    assert!(
        allowed >= 25 && denied >= 40,
        "{allowed} allowed, {denied} denied"
    );
}

/// A spread of lines through `policy eval`: the binary must agree with the
/// labels (and so with the library).
#[test]
fn the_binary_agrees_on_a_sample_of_lines() {
    let cases: Vec<Case> = read("shell.tsv", 4)
        .into_iter()
        .filter(|c| c.gap.is_none())
        .collect();
    let step = (cases.len() / 10).max(1);
    let policies = common::repo().join("policies").display().to_string();
    let mut wrong = Vec::new();
    for case in cases.iter().step_by(step) {
        let body = serde_json::to_vec(&payload(case.field(COMMAND))).unwrap();
        let out = common::policy(
            &[
                "eval",
                "--policy",
                &policies,
                "--hook",
                HOOK,
                "--project-root",
                CTX.project_root,
            ],
            &body,
        );
        let reply = common::stdout_json(&out);
        let expected = expected_rule(case.field(VERDICT)).unwrap();
        let ok = match expected {
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
                "shell.tsv:{}: {}\n    binary replied {reply}",
                case.line, case.raw
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
