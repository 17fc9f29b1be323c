//! Loading: policy files and directories into one policy set.
//!
//! A directory loads every `*.yaml`/`*.yml` file below it in name order, so
//! rule order (the tie-breaker of priorities) is stable. Files ending in
//! `.test.yaml`/`.test.yml` are policy tests, and hidden files and folders are
//! skipped.

pub mod scalar;
pub mod tree;

use crate::check::structure::SchemaChecker;
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::model::{PolicyFile, Rule, Settings};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tree::{Node, ParseLimits, Value};

/// One rule with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedRule {
    pub rule: Rule,
    pub file: Arc<SourceFile>,
    /// The rule's YAML node, for locating its parts in diagnostics.
    pub node: Node,
    /// Position in the whole set (files in order, rules in file order).
    pub order: usize,
}

#[derive(Debug, Default)]
pub struct PolicySet {
    pub files: Vec<Arc<SourceFile>>,
    pub rules: Vec<LoadedRule>,
    pub settings: Settings,
    /// The directory of the file that holds `settings`: relative paths in
    /// settings are relative to it.
    pub settings_dir: Option<PathBuf>,
}

/// Is this file a policy test rather than a policy?
pub fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".test.yaml") || name.ends_with(".test.yml")
}

fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Expands the paths the user gave into policy files, in load order.
/// A path given explicitly is loaded whatever its name.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Diagnostic> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| io_error(path, &e))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk_dir(path, &mut found, 0)?;
            found.sort();
            if found.is_empty() {
                return Err(Diagnostic::error(
                    "io::empty",
                    format!(
                        "{} contains no policy files (*.yaml, *.yml)",
                        path.display()
                    ),
                ));
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk_dir(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), Diagnostic> {
    if depth > 16 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_error(dir, &e))?;
        let path = entry.path();
        let hidden = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        let file_type = entry.file_type().map_err(|e| io_error(&path, &e))?;
        if file_type.is_dir() {
            walk_dir(&path, out, depth + 1)?;
        } else if is_yaml(&path) && !is_test_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

pub fn io_error(path: &Path, e: &std::io::Error) -> Diagnostic {
    let what = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    Diagnostic::error(
        "io::read",
        format!("cannot read {}: {what}", path.display()),
    )
}

/// The most a policy file may hold; larger files are refused unread.
pub const MAX_POLICY_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Reads a file as UTF-8 text, refusing oversized ones before reading them.
pub fn read_source(path: &Path) -> Result<Arc<SourceFile>, Diagnostic> {
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    if meta.len() > MAX_POLICY_FILE_BYTES {
        return Err(Diagnostic::error(
            "io::too-large",
            format!(
                "{} is {} bytes; policy files are limited to {MAX_POLICY_FILE_BYTES} bytes",
                path.display(),
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| io_error(path, &e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Diagnostic::error(
            "io::encoding",
            format!(
                "{} is not UTF-8 text (invalid byte at offset {})",
                path.display(),
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(Arc::new(SourceFile::new(path.to_path_buf(), text)))
}

/// How thoroughly to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `policy check`: validate against the JSON Schema, report everything.
    Check,
    /// A hook call: typed deserialisation only (unknown keys and wrong types
    /// are still refused, with serde's first error). The schema walk costs
    /// more than the decision, and `policy check` is where files are vetted.
    Run,
}

/// Loads policy files and directories as one set. Returns the set (with
/// every rule that loaded cleanly) and every problem found on the way.
pub fn load(paths: &[PathBuf]) -> (PolicySet, Vec<Diagnostic>) {
    load_with(paths, Mode::Check)
}

pub fn load_with(paths: &[PathBuf], mode: Mode) -> (PolicySet, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let files = match discover(paths) {
        Ok(files) => files,
        Err(d) => return (PolicySet::default(), vec![d]),
    };
    let mut sources = Vec::new();
    for path in &files {
        match read_source(path) {
            Ok(source) => sources.push(source),
            Err(d) => diags.push(d),
        }
    }
    let (set, more) = load_sources_with(sources, mode);
    diags.extend(more);
    (set, diags)
}

/// Loads already-read sources (used by `load` and by tests with inline text).
pub fn load_sources(sources: Vec<Arc<SourceFile>>) -> (PolicySet, Vec<Diagnostic>) {
    load_sources_with(sources, Mode::Check)
}

pub fn load_sources_with(
    sources: Vec<Arc<SourceFile>>,
    mode: Mode,
) -> (PolicySet, Vec<Diagnostic>) {
    let schema = match mode {
        Mode::Check => crate::model::schema(),
        Mode::Run => serde_json::Value::Null,
    };
    let checker = SchemaChecker::new(&schema);
    let mut set = PolicySet::default();
    let mut diags = Vec::new();
    let mut settings_from: Option<(Arc<SourceFile>, Settings)> = None;
    // Every rule id seen, loaded or not: a duplicate is reported even when
    // one of the two rules has other problems.
    let mut ids: std::collections::HashMap<String, (Arc<SourceFile>, usize)> = Default::default();

    for source in sources {
        set.files.push(source.clone());
        let tree = match tree::parse(&source.text, ParseLimits::default()) {
            Ok(tree) => tree,
            Err(e) => {
                let d = Diagnostic::error("yaml::syntax", e.message).in_file(&source);
                diags.push(match e.span {
                    Some(span) => d.at(&source, span).label("here"),
                    None => d,
                });
                continue;
            }
        };
        if matches!(tree.value, Value::Null) {
            diags.push(
                Diagnostic::error("schema::empty", "the file is empty")
                    .in_file(&source)
                    .help("a policy file starts with `version: 1` and a list of `rules`"),
            );
            continue;
        }
        for node in rule_nodes(&tree) {
            let Some(id_node) = node.get("id") else {
                continue;
            };
            let Some(id) = id_node.as_str() else { continue };
            match ids.get(id) {
                Some((first, offset)) => {
                    let (line, _) = first.line_col(*offset);
                    diags.push(
                        Diagnostic::error(
                            "rule::duplicate-id",
                            format!("rule id `{id}` is used twice"),
                        )
                        .at(&source, id_node.span)
                        .label("second use")
                        .help(format!(
                            "first used at {}:{line}; ids must be unique across the loaded set",
                            first.name()
                        )),
                    );
                }
                None => {
                    ids.insert(id.to_string(), (source.clone(), id_node.span.start));
                }
            }
        }
        let structural = match mode {
            Mode::Check => checker.check(&source, &tree),
            Mode::Run => Vec::new(),
        };
        let clean = !structural.iter().any(Diagnostic::is_error);
        diags.extend(structural);
        if !clean {
            // Keep going with the rules that are themselves clean, so their
            // CEL is still checked and every problem is reported in one run.
            load_clean_rules(&checker, &source, &tree, &mut set);
            continue;
        }
        let file: PolicyFile = match serde_json::from_value(tree.to_json()) {
            Ok(file) => file,
            Err(e) => {
                // In run mode this is how a malformed file is refused. The
                // schema walk, skipped on the hot path, now pays for itself:
                // it says what is wrong, and where, in the words of `policy
                // check` (the reason a harness shows names file and line).
                let located = match mode {
                    Mode::Run => SchemaChecker::new(&crate::model::schema())
                        .check(&source, &tree)
                        .into_iter()
                        .filter(Diagnostic::is_error)
                        .collect(),
                    Mode::Check => Vec::new(),
                };
                if located.is_empty() {
                    // The schema accepted what the typed model refused: a
                    // bug in one of them, reported as such.
                    diags.push(shape_error(&source, &e));
                } else {
                    diags.extend(located);
                }
                continue;
            }
        };
        if let Some(settings) = file.settings {
            match &settings_from {
                Some((first, earlier))
                    if earlier.on_error != settings.on_error || earlier.log != settings.log =>
                {
                    let span = tree
                        .entry("settings")
                        .map(|e| e.key_span)
                        .unwrap_or_default();
                    diags.push(
                        Diagnostic::error(
                            "settings::conflict",
                            format!("settings differ from those in {}", first.name()),
                        )
                        .at(&source, span)
                        .help("a policy set has one `settings`; keep it in one file"),
                    );
                }
                Some(_) => {}
                None => settings_from = Some((source.clone(), settings)),
            }
        }
        let rule_nodes = rule_nodes(&tree);
        for (rule, node) in file.rules.into_iter().zip(rule_nodes) {
            let order = set.rules.len();
            set.rules.push(LoadedRule {
                rule,
                file: source.clone(),
                node: node.clone(),
                order,
            });
        }
    }
    if let Some((file, settings)) = settings_from {
        set.settings = settings;
        set.settings_dir = file.path.parent().map(Path::to_path_buf);
    }
    (set, diags)
}

/// The typed model refused a file the schema accepts. Not expected (both
/// come from `src/model.rs`); the message says so rather than passing on the
/// deserialiser's wording alone.
fn shape_error(source: &Arc<SourceFile>, e: &serde_json::Error) -> Diagnostic {
    Diagnostic::error(
        "schema::shape",
        "the file passes the schema but not the policy model",
    )
    .in_file(source)
    .help(format!(
        "please report this with the file; the model said: {e}"
    ))
}

fn rule_nodes(tree: &Node) -> Vec<&Node> {
    match tree.get("rules").map(|r| &r.value) {
        Some(Value::Seq(items)) => items.iter().collect(),
        _ => Vec::new(),
    }
}

/// From a file with structural errors, keep the rules that have none.
fn load_clean_rules(
    checker: &SchemaChecker<'_>,
    source: &Arc<SourceFile>,
    tree: &Node,
    set: &mut PolicySet,
) {
    let schema = crate::model::schema();
    let Some(rule_schema) = schema.pointer("/$defs/Rule") else {
        return;
    };
    let _ = checker;
    let rule_checker_root = {
        let mut root = rule_schema.clone();
        if let (Some(obj), Some(defs)) = (root.as_object_mut(), schema.get("$defs")) {
            obj.insert("$defs".into(), defs.clone());
        }
        root
    };
    let rule_checker = SchemaChecker::new(&rule_checker_root);
    for node in rule_nodes(tree) {
        if rule_checker
            .check(source, node)
            .iter()
            .any(Diagnostic::is_error)
        {
            continue;
        }
        if let Ok(rule) = serde_json::from_value::<Rule>(node.to_json()) {
            let order = set.rules.len();
            set.rules.push(LoadedRule {
                rule,
                file: source.clone(),
                node: node.clone(),
                order,
            });
        }
    }
}
