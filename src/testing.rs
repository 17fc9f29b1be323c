//! `policy test`: test cases for policies, written next to them.
//!
//! A test file is `NAME.test.yaml` (or `.test.yml`). Unless it names its
//! policy files with `policy:`, it tests the policy set of its own directory
//! (every policy file there), so cases see rules combine the way they will in
//! production. Each case gives a hook, a payload (inline or from a file) and
//! expectations: the exact reply, a part of it, rules that must or must not
//! match. Replies are chibi's.

pub mod file;

use crate::adapters::tool_call::{Harness, PolicySource};
use crate::adapters::{chibi, coding_agent};
use crate::catalogue;
use crate::compile::compile;
use crate::diagnostic::Diagnostic;
use crate::engine::{self, Outcome, Prepared};
use crate::eval::DecideContext;
use crate::load;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A hook-policy test file (`NAME.test.yaml`): cases that run the policy
/// of its directory, or the files named in `policy`, and say what the reply
/// must be.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "hook-policy test file")]
pub struct TestFile {
    /// The policy files or directories to test, relative to this file. Without it, the cases test every policy file in this file's directory.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["shell.yaml"]))]
    pub policy: Option<Vec<PathBuf>>,
    /// The test cases, run in order.
    pub tests: Vec<TestCase>,
}

/// One hook call and what the policy must answer to it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    /// What the case shows, printed as `test NAME ... ok`.
    #[schemars(example = &"rm -rf is denied")]
    pub name: String,
    /// Whose answer the case checks. `chibi` (the default) calls `hook` with a canonical payload; a coding agent (`claude-code`, `gemini`, `codex`) gets its own hook event as the payload, and the reply is that agent's, as `policy hook AGENT` gives it.
    #[serde(default)]
    pub harness: Option<TestHarness>,
    /// The hook point called (chibi cases; an agent's event names its own).
    #[serde(default)]
    #[schemars(with = "Option<crate::model::HookName>")]
    pub hook: Option<String>,
    /// The payload the harness sends, inline. Give this or `payload_file`.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"command": "rm -rf /"}))]
    pub payload: Option<Json>,
    /// A JSON file holding the payload, relative to this file. A captured `{"hook": ..., "payload": ...}` event works too.
    #[serde(default)]
    pub payload_file: Option<PathBuf>,
    /// The project root that conditions see as `project_root` (default: `/project`).
    #[serde(default)]
    pub project_root: Option<String>,
    /// What must happen. Every expectation given must hold.
    pub expect: Expect,
}

/// The harnesses a test case can ask.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TestHarness {
    Chibi,
    ClaudeCode,
    Gemini,
    Codex,
    Cursor,
    Copilot,
    /// Windsurf answers by exit status: the reply is `{}` when it would
    /// exit 0, else `{"exit_status": 2, "reason": ...}` (the stderr line).
    Windsurf,
    /// Cline: the reply is its `{"cancel": ...}` JSON.
    Cline,
    /// The event hook-policy's OpenCode plugin sends; the reply is
    /// `{"decision": "block", "reason": ...}` or `{}`.
    Opencode,
    /// Kiro CLI answers by exit status, as Windsurf does: `{}` or
    /// `{"exit_status": 2, "reason": ...}`.
    Kiro,
}

impl TestHarness {
    /// The coding agent, or `None` for chibi.
    pub fn agent(self) -> Option<Harness> {
        match self {
            TestHarness::Chibi => None,
            TestHarness::ClaudeCode => Some(Harness::ClaudeCode),
            TestHarness::Gemini => Some(Harness::Gemini),
            TestHarness::Codex => Some(Harness::Codex),
            TestHarness::Cursor => Some(Harness::Cursor),
            TestHarness::Copilot => Some(Harness::Copilot),
            TestHarness::Windsurf => Some(Harness::Windsurf),
            TestHarness::Cline => Some(Harness::Cline),
            TestHarness::Opencode => Some(Harness::OpenCode),
            TestHarness::Kiro => Some(Harness::Kiro),
        }
    }
}

/// What a test case requires of the reply and of the rules that matched.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The exact reply the harness gets, as JSON. `{}` means no change.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"denied": true, "reason": "recursive delete is not allowed [hook-policy rule: no-rm-rf]"}))]
    pub reply: Option<Json>,
    /// Part of the reply: every key given must be in the reply with this value (objects are compared key by key).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"denied": true}))]
    pub reply_includes: Option<Json>,
    /// Ids of rules that must match.
    #[serde(default)]
    pub matched: Vec<String>,
    /// Ids of rules that must not match.
    #[serde(default)]
    pub not_matched: Vec<String>,
    /// Ids of log-only rules that must match (a pack outcome of `log`; they change nothing).
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
    /// Problems in test files (and the policies they test), found before
    /// any case ran: each stops its file's cases, or fails the run.
    pub problems: Vec<Diagnostic>,
    /// Rules of the tested policies, and those some case saw match.
    pub rules: BTreeSet<(String, String)>,
    pub covered: BTreeSet<String>,
    /// Rules of enabled shipped packs: not counted in coverage.
    pub shipped_rules: BTreeSet<String>,
    /// Cases not run because their name does not contain the filter.
    pub filtered_out: usize,
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
    run_filtered(files, None)
}

/// Runs the cases whose name contains `filter` (all without one), the way
/// `cargo test NAME` does; the others are counted as filtered out.
pub fn run_filtered(files: &[PathBuf], filter: Option<&str>) -> Report {
    let mut report = Report::default();
    for file in files {
        run_file(file, filter, &mut report);
    }
    report
}

fn run_file(path: &Path, filter: Option<&str>, report: &mut Report) {
    let mut loaded = match file::load(path) {
        Ok(loaded) => loaded,
        Err(problems) => return report.problems.extend(problems),
    };
    report.problems.append(&mut loaded.problems);
    let (set, diags) = load::load(&loaded.policy_paths());
    let mut errors: Vec<Diagnostic> = diags.into_iter().filter(Diagnostic::is_error).collect();
    let (policy, diags) = compile(&set, None);
    errors.extend(diags.into_iter().filter(Diagnostic::is_error));
    if !errors.is_empty() {
        report.problems.push(
            Diagnostic::error(
                "test::policy",
                format!(
                    "the tested policy has {} error(s); its cases did not run",
                    errors.len()
                ),
            )
            .in_file(&loaded.source)
            .help("the errors follow; `policy check` on the policy shows them too"),
        );
        report.problems.extend(errors);
        return;
    }
    report
        .problems
        .extend(file::unknown_rules(&loaded, &file::rule_ids(&set)));
    let Some(tests) = &loaded.file else {
        // Schema errors: reported above; the cases cannot run.
        return;
    };
    for rule in &policy.rules {
        // Rules of shipped packs are covered by the packs' own tests
        // (`policy test packs/` in this repository).
        if rule.shipped {
            report.shipped_rules.insert(rule.id.to_string());
        } else {
            report
                .rules
                .insert((rule.id.to_string(), rule.origin.to_string()));
        }
    }
    let prepared = std::sync::Arc::new(Prepared::Ready(policy));
    let dir = path.parent().unwrap_or(Path::new("."));
    for case in &tests.tests {
        if filter.is_some_and(|f| !case.name.contains(f)) {
            report.filtered_out += 1;
            continue;
        }
        let failures = run_case(case, dir, &prepared, report);
        report.cases.push(CaseResult {
            file: path.to_path_buf(),
            name: case.name.clone(),
            failures,
        });
    }
}

fn run_case(
    case: &TestCase,
    dir: &Path,
    prepared: &std::sync::Arc<Prepared>,
    report: &mut Report,
) -> Vec<String> {
    let mut failures = Vec::new();
    let Prepared::Ready(policy) = &**prepared else {
        return vec!["the policy did not load".into()];
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
    // Tests are reproducible: a fixed home, whoever runs them.
    let home = "/home/user";
    let (reply, matched, logged, run_error) = match case.harness.and_then(TestHarness::agent) {
        Some(
            agent @ (Harness::Cursor
            | Harness::Copilot
            | Harness::Windsurf
            | Harness::Cline
            | Harness::OpenCode
            | Harness::Kiro),
        ) => {
            use crate::adapters::hook_command::Protocol;
            use crate::adapters::{
                cline::Cline, copilot::Copilot, cursor::Cursor, kiro::Kiro, opencode::OpenCode,
                windsurf::Windsurf,
            };
            let mut source = PolicySource::compiled(prepared.clone());
            let event = Ok(serde_json::to_vec(&payload).unwrap_or_default());
            let root = case.project_root.as_deref().unwrap_or("/project");
            let context = coding_agent::DEFAULT_CONTEXT;
            let a = match agent {
                Harness::Cursor => {
                    Cursor::answer_in(&mut source, &event, context, Some(home), Some(root))
                }
                Harness::Copilot => {
                    Copilot::answer_in(&mut source, &event, context, Some(home), Some(root))
                }
                Harness::Cline => {
                    Cline::answer_in(&mut source, &event, context, Some(home), Some(root))
                }
                Harness::OpenCode => {
                    OpenCode::answer_in(&mut source, &event, context, Some(home), Some(root))
                }
                Harness::Kiro => {
                    Kiro::answer_in(&mut source, &event, context, Some(home), Some(root))
                }
                _ => Windsurf::answer_in(&mut source, &event, context, Some(home), Some(root)),
            };
            let json = match (agent, a.exit) {
                (Harness::Windsurf | Harness::Kiro, 0) => serde_json::json!({}),
                (Harness::Windsurf | Harness::Kiro, code) => serde_json::json!({
                    "exit_status": code,
                    "reason": a.stderr.first().cloned().unwrap_or_default(),
                }),
                _ => serde_json::from_str(a.stdout.trim()).unwrap_or(Json::Null),
            };
            let error = (a.kind == "error").then(|| a.stderr.join("; "));
            let logged = a.logged.iter().map(|l| l.rule.clone()).collect();
            (json, a.matched, logged, error)
        }
        Some(agent) => {
            // The agent's own adapter, on the compiled policy: what `policy
            // hook AGENT` would answer to this event.
            let mut source = PolicySource::compiled(prepared.clone());
            let event = Ok(serde_json::to_vec(&payload).unwrap_or_default());
            let r = coding_agent::handle(
                agent,
                &mut source,
                &event,
                coding_agent::DEFAULT_CONTEXT,
                Some(home),
            );
            let error = (r.kind == "error").then(|| r.stderr.join("; "));
            let logged = r.logged.iter().map(|l| l.rule.clone()).collect();
            (r.json, r.matched, logged, error)
        }
        None => {
            let name = case.hook.as_deref().unwrap_or("");
            let Some(hook) = catalogue::hook(name) else {
                return vec![format!("unknown hook `{name}`")];
            };
            let root = case
                .project_root
                .clone()
                .unwrap_or_else(|| "/project".into());
            let ctx = DecideContext {
                harness: chibi::HARNESS,
                project_root: &root,
                home: Some(home),
            };
            let outcome = engine::run(policy, hook.name, &payload, ctx);
            let reply = chibi::reply(hook, &outcome, policy.on_error, Some(&payload));
            match outcome {
                Outcome::Decided(d) => (
                    reply.json,
                    d.matched.clone(),
                    d.logged.iter().map(|l| l.rule.clone()).collect(),
                    d.error_summary(),
                ),
                Outcome::Failed(e) => (reply.json, Vec::new(), Vec::new(), Some(e)),
            }
        }
    };
    let reply = chibi::Reply {
        json: reply,
        stderr: Vec::new(),
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
    if let Some(errors) = run_error {
        if failures.is_empty()
            && case.expect.reply.is_none()
            && case.expect.reply_includes.is_none()
        {
            failures.push(format!("a rule failed at run time: {errors}"));
        }
    }
    failures
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
