//! Test files as first-class inputs: read with spans, validated against
//! their own generated schema (`policy schema --tests`), and checked against
//! the policy they test, so that `policy test` and `policy check` report a
//! mistake in a test file the way `policy check` reports one in a policy:
//! every problem, at its line and column, with a did-you-mean.

use super::TestFile;
use crate::check::structure::SchemaChecker;
use crate::diagnostic::{did_you_mean, Diagnostic, SourceFile};
use crate::load::{
    self,
    tree::{self, Node, ParseLimits, Value},
};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The JSON Schema of test files.
pub fn schema() -> Json {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut value = generator.into_root_schema_for::<TestFile>().to_value();
    crate::model::prose::unwrap_descriptions(&mut value);
    if let Some(obj) = value.as_object_mut() {
        obj.insert(
            "$id".into(),
            "https://hook-policy.dev/schema/policy-test.schema.json".into(),
        );
    }
    value
}

/// The schema as committed: pretty JSON with a final newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).expect("schema serialises");
    text.push('\n');
    text
}

/// A test file read and parsed: its problems, and its cases when it has
/// none (a file with schema errors is still checked for rule ids, so one
/// run reports every mistake).
pub struct Loaded {
    pub file: Option<TestFile>,
    pub problems: Vec<Diagnostic>,
    pub source: Arc<SourceFile>,
    pub tree: Node,
}

impl Loaded {
    /// The policy the cases run against: the `policy` list, relative to
    /// the test file, else the test file's directory.
    pub fn policy_paths(&self) -> Vec<PathBuf> {
        let dir = self.source.path.parent().unwrap_or(Path::new("."));
        match self.tree.get("policy").map(|n| &n.value) {
            Some(Value::Seq(items)) => items
                .iter()
                .filter_map(Node::as_str)
                .map(|p| dir.join(p))
                .collect(),
            _ => vec![dir.to_path_buf()],
        }
    }
}

/// Reads and validates a test file. `Err` when it cannot be read or parsed
/// at all; otherwise every problem found is in [`Loaded::problems`].
pub fn load(path: &Path) -> Result<Loaded, Vec<Diagnostic>> {
    let source = load::read_source(path).map_err(|d| vec![d])?;
    let tree = match tree::parse(&source.text, ParseLimits::default()) {
        Ok(tree) => tree,
        Err(e) => {
            let d = Diagnostic::error("yaml::syntax", e.message).in_file(&source);
            return Err(vec![match e.span {
                Some(span) => d.at(&source, span).label("here"),
                None => d,
            }]);
        }
    };
    if matches!(tree.value, Value::Null) {
        return Err(vec![Diagnostic::error(
            "schema::empty",
            "the file is empty",
        )
        .in_file(&source)
        .help("a test file holds a list of cases under `tests:`")]);
    }
    let schema = schema();
    let mut problems: Vec<Diagnostic> = SchemaChecker::new(&schema)
        .document("a test file")
        .check(&source, &tree);
    problems.extend(payload_problems(&source, &tree));
    problems.sort_by_key(|d| d.span.map(|s| s.start));
    let file = if problems.iter().any(Diagnostic::is_error) {
        None
    } else {
        match serde_json::from_value::<TestFile>(tree.to_json()) {
            Ok(file) => Some(file),
            Err(e) => {
                problems.push(
                    Diagnostic::error(
                        "schema::shape",
                        "the file passes the schema but not the test model",
                    )
                    .in_file(&source)
                    .help(format!(
                        "please report this with the file; the model said: {e}"
                    )),
                );
                None
            }
        }
    };
    Ok(Loaded {
        file,
        problems,
        source,
        tree,
    })
}

fn cases(tree: &Node) -> &[Node] {
    match tree.get("tests").map(|t| &t.value) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

/// A case gives its payload one way: inline or from a file.
fn payload_problems(source: &Arc<SourceFile>, tree: &Node) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for case in cases(tree) {
        let inline = case.entry("payload");
        let from_file = case.entry("payload_file");
        let (span, message) = match (inline, from_file) {
            (Some(_), Some(second)) => (
                second.key_span,
                "a case gives `payload` or `payload_file`, not both",
            ),
            (None, None) => match &case.value {
                Value::Map(entries) if !entries.is_empty() => (
                    entries[0].key_span,
                    "this case has no `payload` (or `payload_file`)",
                ),
                _ => continue,
            },
            _ => continue,
        };
        out.push(
            Diagnostic::error("test::payload", message)
                .at(source, span)
                .help("give the event inline, payload: { command: \"ls\" }, or payload_file: event.json"),
        );
    }
    out.extend(harness_problems(source, tree));
    out
}

/// chibi cases name their hook; a coding agent's event names its own hook
/// and carries its project root (`cwd`), so a case must not say either.
fn harness_problems(source: &Arc<SourceFile>, tree: &Node) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for case in cases(tree) {
        let Value::Map(entries) = &case.value else {
            continue;
        };
        let agent = case
            .get("harness")
            .and_then(Node::as_str)
            .filter(|h| *h != "chibi");
        match agent {
            None if case.get("hook").is_none() && !entries.is_empty() => {
                let what = match case.get("name").and_then(Node::as_str) {
                    Some(name) => format!("test case `{name}`"),
                    None => "this test case".into(),
                };
                out.push(
                    Diagnostic::error("schema::missing-key", format!("{what} has no `hook`"))
                        .at(source, entries[0].key_span)
                        .help("name the hook point called, e.g. hook: pre_shell_exec, or give `harness: claude-code` (or gemini, codex) and the agent's event as the payload"),
                );
            }
            Some(agent) => {
                for (key, why) in [
                    ("hook", "the event names its hook (`hook_event_name`)"),
                    ("project_root", "the event's `cwd` is the project root"),
                ] {
                    if let Some(entry) = case.entry(key) {
                        out.push(
                            Diagnostic::error(
                                "test::harness",
                                format!("`{key}` does not apply to a {agent} case: {why}"),
                            )
                            .at(source, entry.key_span)
                            .help(format!("drop `{key}`; the payload is {agent}'s hook event as the agent sends it")),
                        );
                    }
                }
            }
            None => {}
        }
    }
    out
}

/// Rule ids in `matched`/`not_matched`/`logged` that the tested policy does not have.
pub fn unknown_rules(loaded: &Loaded, ids: &[&str]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for case in cases(&loaded.tree) {
        let Some(expect) = case.get("expect") else {
            continue;
        };
        for key in ["matched", "not_matched", "logged"] {
            let Some(Value::Seq(items)) = expect.get(key).map(|n| &n.value) else {
                continue;
            };
            for item in items {
                let Some(id) = item.as_str() else { continue };
                if ids.contains(&id) {
                    continue;
                }
                let help = match did_you_mean(id, ids.iter().copied()) {
                    Some(near) => format!("did you mean `{near}`?"),
                    None => format!(
                        "the tested policy ({}) has no rule by that id",
                        describe(&loaded.policy_paths())
                    ),
                };
                out.push(
                    Diagnostic::error(
                        "test::unknown-rule",
                        format!("no rule `{id}` in the tested policy"),
                    )
                    .at(&loaded.source, item.span)
                    .label("not a rule id")
                    .help(help),
                );
            }
        }
    }
    out
}

fn describe(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rule ids of a loaded policy set, the schema-rejected rules included
/// (a test naming one is not wrong about the id).
pub fn rule_ids(set: &load::PolicySet) -> Vec<&str> {
    let mut ids: Vec<&str> = set.rules.iter().map(|r| r.rule.id.as_str()).collect();
    ids.extend(
        set.rejected
            .iter()
            .filter_map(|(_, node)| node.get("id").and_then(Node::as_str)),
    );
    ids
}

/// What `policy check` reports for test files: their own problems and the
/// rule ids their tested policy lacks. The policy's problems are its own
/// check's business (`policy check DIR` lints both).
pub fn lint(paths: &[PathBuf]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for path in paths {
        let mut loaded = match load(path) {
            Ok(loaded) => loaded,
            Err(problems) => {
                out.extend(problems);
                continue;
            }
        };
        out.append(&mut loaded.problems);
        let (set, diags) = load::load(&loaded.policy_paths());
        if diags.iter().any(|d| d.code.starts_with("io::")) {
            out.push(
                Diagnostic::error(
                    "test::policy",
                    format!(
                        "the tested policy ({}) cannot be read",
                        describe(&loaded.policy_paths())
                    ),
                )
                .in_file(&loaded.source)
                .help("point `policy:` at policy files or directories, relative to this file"),
            );
            continue;
        }
        out.extend(unknown_rules(&loaded, &rule_ids(&set)));
    }
    out
}
