//! `policy test`: test cases for policies, written next to them.
//!
//! A test file is `NAME.test.yaml` (or `.test.yml`). Unless it names its
//! policy files with `policy:`, it tests the policy set of its own directory
//! (every policy file there), so cases see rules combine the way they will in
//! production. Each case gives a hook, a payload (inline or from a file) and
//! expectations: the exact reply, a part of it, rules that must or must not
//! match. Replies are chibi's.

use crate::adapters::chibi;
use crate::catalogue;
use crate::compile::compile;
use crate::diagnostic::Diagnostic;
use crate::engine::{self, Outcome};
use crate::eval::DecideContext;
use crate::load;
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestFile {
    /// Policy files or directories, relative to the test file. Default: its directory.
    #[serde(default)]
    pub policy: Option<Vec<PathBuf>>,
    pub tests: Vec<TestCase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    pub name: String,
    pub hook: String,
    #[serde(default)]
    pub payload: Option<Json>,
    /// A payload file relative to the test file; a captured `{"hook", "payload"}` works too.
    #[serde(default)]
    pub payload_file: Option<PathBuf>,
    #[serde(default)]
    pub project_root: Option<String>,
    pub expect: Expect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The exact reply.
    #[serde(default)]
    pub reply: Option<Json>,
    /// Every key given must be in the reply with this value (objects compared recursively).
    #[serde(default)]
    pub reply_includes: Option<Json>,
    /// These rules must match.
    #[serde(default)]
    pub matched: Vec<String>,
    /// These rules must not match.
    #[serde(default)]
    pub not_matched: Vec<String>,
    /// These log-only rules must match (and, being log-only, change nothing).
    #[serde(default)]
    pub logged: Vec<String>,
}

/// The outcome of one case.
#[derive(Debug)]
pub struct CaseResult {
    pub file: PathBuf,
    pub name: String,
    pub failures: Vec<String>,
}

/// Everything a run found.
#[derive(Debug, Default)]
pub struct Report {
    pub cases: Vec<CaseResult>,
    /// Problems that stopped a file from running at all.
    pub errors: Vec<String>,
    /// Rules of the tested policies, and those some case saw match.
    pub rules: BTreeSet<(String, String)>,
    pub covered: BTreeSet<String>,
    /// Rules of enabled shipped packs: not counted in coverage.
    pub shipped_rules: BTreeSet<String>,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.failures.is_empty()).count()
    }
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed()
    }
    /// Percentage of rules matched by at least one case.
    pub fn coverage(&self) -> f64 {
        if self.rules.is_empty() {
            return 100.0;
        }
        let covered = self
            .rules
            .iter()
            .filter(|(id, _)| self.covered.contains(id))
            .count();
        100.0 * covered as f64 / self.rules.len() as f64
    }
    pub fn uncovered(&self) -> Vec<&(String, String)> {
        self.rules
            .iter()
            .filter(|(id, _)| !self.covered.contains(id))
            .collect()
    }
}

/// Finds test files under the given paths.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found, 0)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            found.sort();
            out.extend(found);
        } else if path.is_file() {
            out.push(path.clone());
        } else {
            return Err(format!(
                "cannot read {}: no such file or directory",
                path.display()
            ));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> std::io::Result<()> {
    if depth > 16 {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if entry.file_type()?.is_dir() {
            walk(&path, out, depth + 1)?;
        } else if load::is_test_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Runs every case of every test file.
pub fn run(files: &[PathBuf]) -> Report {
    let mut report = Report::default();
    for file in files {
        if let Err(e) = run_file(file, &mut report) {
            report.errors.push(format!("{}: {e}", file.display()));
        }
    }
    report
}

fn run_file(file: &Path, report: &mut Report) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let tests: TestFile = serde_saphyr::from_str(&text).map_err(|e| {
        let first = e.to_string();
        first
            .lines()
            .next()
            .unwrap_or("invalid test file")
            .to_string()
    })?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let policy_paths: Vec<PathBuf> = match &tests.policy {
        Some(list) => list.iter().map(|p| dir.join(p)).collect(),
        None => vec![dir.to_path_buf()],
    };
    let (set, diags) = load::load(&policy_paths);
    if let Some(e) = diags.iter().find(|d| d.is_error()) {
        return Err(format!(
            "the policy does not load: {}",
            crate::render::short(e)
        ));
    }
    let (policy, diags) = compile(&set, None);
    if let Some(e) = diags.iter().find(|d: &&Diagnostic| d.is_error()) {
        return Err(format!(
            "the policy does not compile: {}",
            crate::render::short(e)
        ));
    }
    for rule in &policy.rules {
        // Rules of shipped packs are covered by the packs' own tests
        // (`policy test packs/` in this repository).
        if rule.shipped {
            report.shipped_rules.insert(rule.id.clone());
        } else {
            report.rules.insert((rule.id.clone(), rule.origin.clone()));
        }
    }
    for case in &tests.tests {
        let failures = run_case(case, dir, &policy, report);
        report.cases.push(CaseResult {
            file: file.to_path_buf(),
            name: case.name.clone(),
            failures,
        });
    }
    Ok(())
}

fn run_case(
    case: &TestCase,
    dir: &Path,
    policy: &crate::compile::CompiledPolicy,
    report: &mut Report,
) -> Vec<String> {
    let mut failures = Vec::new();
    let Some(hook) = catalogue::hook(&case.hook) else {
        let hint = crate::diagnostic::did_you_mean(&case.hook, catalogue::hook_names());
        return vec![format!(
            "unknown hook `{}`{}",
            case.hook,
            hint.map(|h| format!("; did you mean `{h}`?"))
                .unwrap_or_default()
        )];
    };
    let payload = match (&case.payload, &case.payload_file) {
        (Some(p), None) => p.clone(),
        (None, Some(f)) => match std::fs::read(dir.join(f)) {
            Ok(bytes) => match engine::parse_payload(&bytes) {
                Ok(v) => match (v.get("hook"), v.get("payload")) {
                    (Some(_), Some(p)) if v.as_object().is_some_and(|o| o.len() == 2) => p.clone(),
                    _ => v,
                },
                Err(e) => return vec![format!("{}: {e}", f.display())],
            },
            Err(e) => return vec![format!("cannot read {}: {e}", f.display())],
        },
        _ => return vec!["give exactly one of `payload` and `payload_file`".into()],
    };
    let root = case
        .project_root
        .clone()
        .unwrap_or_else(|| "/project".into());
    // Tests are reproducible: a fixed home, whoever runs them.
    let ctx = DecideContext {
        harness: chibi::HARNESS,
        project_root: &root,
        home: Some("/home/user"),
    };
    let outcome = engine::run(policy, hook.name, &payload, ctx);
    let reply = chibi::reply(hook, &outcome, policy.on_error, Some(&payload));
    let (matched, logged): (Vec<String>, Vec<String>) = match &outcome {
        Outcome::Decided(d) => (
            d.matched.clone(),
            d.logged.iter().map(|l| l.rule.clone()).collect(),
        ),
        Outcome::Failed(_) => (Vec::new(), Vec::new()),
    };
    report.covered.extend(matched.iter().cloned());
    report.covered.extend(logged.iter().cloned());

    if let Some(expected) = &case.expect.reply {
        if *expected != reply.json {
            failures.push(format!(
                "reply\n      expected: {expected}\n      actual:   {}",
                reply.json
            ));
        }
    }
    if let Some(part) = &case.expect.reply_includes {
        if let Some(diff) = missing_part(part, &reply.json, "") {
            failures.push(format!("reply lacks {diff}\n      actual: {}", reply.json));
        }
    }
    for rule in &case.expect.matched {
        if !matched.contains(rule) {
            failures.push(format!(
                "rule `{rule}` did not match (matched: {})",
                list(&matched)
            ));
        }
    }
    for rule in &case.expect.logged {
        if !logged.contains(rule) {
            failures.push(format!(
                "rule `{rule}` was not logged (logged: {})",
                list(&logged)
            ));
        }
    }
    for rule in &case.expect.not_matched {
        if matched.contains(rule) || logged.contains(rule) {
            failures.push(format!("rule `{rule}` matched but must not"));
        }
    }
    if let Outcome::Decided(d) = &outcome {
        if let Some(errors) = d.error_summary() {
            if failures.is_empty()
                && case.expect.reply.is_none()
                && case.expect.reply_includes.is_none()
            {
                failures.push(format!("a rule failed at run time: {errors}"));
            }
        }
    }
    for r in known_rules(&case.expect, policy) {
        failures.push(r);
    }
    failures
}

/// Expectations that name rules the policy does not have are mistakes.
fn known_rules(expect: &Expect, policy: &crate::compile::CompiledPolicy) -> Vec<String> {
    expect
        .matched
        .iter()
        .chain(&expect.not_matched)
        .chain(&expect.logged)
        .filter(|id| !policy.rules.iter().any(|r| &r.id == *id))
        .map(|id| format!("no rule `{id}` in the tested policy"))
        .collect()
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

/// The first part of `expected` not found in `actual`, as `key: value`.
fn missing_part(expected: &Json, actual: &Json, path: &str) -> Option<String> {
    match (expected, actual) {
        (Json::Object(e), Json::Object(a)) => e.iter().find_map(|(k, v)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            match a.get(k) {
                Some(av) => missing_part(v, av, &p),
                None => Some(format!("`{p}`: {v}")),
            }
        }),
        _ if expected == actual => None,
        _ => Some(format!("`{path}`: {expected}")),
    }
}
