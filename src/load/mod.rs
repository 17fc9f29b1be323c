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
    /// The `--policy` path it came from (0: the base policy); for a
    /// shipped pack, the first layer that enabled it.
    pub layer: usize,
    /// The pack it belongs to, when its file has a `pack:` header.
    pub pack: Option<Arc<str>>,
    /// What a policy's `packs:` block changed about it (outcome, exceptions).
    pub overlay: Option<Arc<crate::packs::compose::Overlay>>,
    /// It comes from a pack shipped in the binary (tested by the pack's own tests).
    pub shipped: bool,
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
    Ok(discover_layers(paths)?
        .into_iter()
        .map(|(p, _)| p)
        .collect())
}

/// [`discover`], with each file's layer: the index of the path it came from.
pub fn discover_layers(paths: &[PathBuf]) -> Result<Vec<(PathBuf, usize)>, Diagnostic> {
    let mut files = Vec::new();
    for (layer, path) in paths.iter().enumerate() {
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
            files.extend(found.into_iter().map(|f| (f, layer)));
        } else {
            files.push((path.clone(), layer));
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
    let files = match discover_layers(paths) {
        Ok(files) => files,
        Err(d) => return (PolicySet::default(), vec![d]),
    };
    let mut sources = Vec::new();
    for (path, layer) in &files {
        match read_source(path) {
            Ok(source) => sources.push((source, *layer)),
            Err(d) => diags.push(d),
        }
    }
    let (set, more) = load_layered(sources, mode);
    diags.extend(more);
    (set, diags)
}

/// Loads already-read sources (used by `load` and by tests with inline text).
pub fn load_sources(sources: Vec<Arc<SourceFile>>) -> (PolicySet, Vec<Diagnostic>) {
    load_sources_with(sources, Mode::Check)
}

/// Loads sources as one layer (see [`load_layered`]).
pub fn load_sources_with(
    sources: Vec<Arc<SourceFile>>,
    mode: Mode,
) -> (PolicySet, Vec<Diagnostic>) {
    load_layered(sources.into_iter().map(|s| (s, 0)).collect(), mode)
}

/// Loads sources, each with its layer: the index of the `--policy` path it
/// came from. Layer 0 is the base policy (a user's or the system's); later
/// layers, such as a project's own policy, may only tighten it unless it
/// says otherwise (`settings.project_may_loosen`, see `packs::compose`).
/// After the files, the packs they enable are loaded from the binary and
/// composed into the set.
pub fn load_layered(
    sources: Vec<(Arc<SourceFile>, usize)>,
    mode: Mode,
) -> (PolicySet, Vec<Diagnostic>) {
    let schema = match mode {
        Mode::Check => crate::model::schema(),
        Mode::Run => serde_json::Value::Null,
    };
    let mut loader = Loader {
        mode,
        checker: SchemaChecker::new(&schema),
        set: PolicySet::default(),
        diags: Vec::new(),
        ids: Default::default(),
        files: Vec::new(),
    };
    for (source, layer) in sources {
        loader.add(source, layer);
    }
    crate::packs::compose::compose(&mut loader);
    let Loader {
        mut set,
        diags,
        files,
        ..
    } = loader;
    // The first file with settings decides them (differences are reported).
    if let Some(file) = files.iter().find(|f| f.settings.is_some()) {
        set.settings = file.settings.clone().unwrap_or_default();
        set.settings_dir = file.source.path.parent().map(Path::to_path_buf);
    }
    (set, diags)
}

/// What the loader learnt about one file, for composing packs.
#[derive(Debug)]
pub struct FileFacts {
    pub source: Arc<SourceFile>,
    pub layer: usize,
    /// The file's parsed tree (absent when it is not YAML).
    pub tree: Option<Node>,
    /// The `pack:` header's name, when the file is a pack.
    pub pack: Option<String>,
    pub settings: Option<Settings>,
    pub selection: Option<crate::model::PackSelection>,
    /// The file came from the binary (an enabled shipped pack).
    pub shipped: bool,
}

/// The loading state, shared with `packs::compose`, which feeds it the
/// enabled packs' sources.
pub struct Loader<'s> {
    pub mode: Mode,
    checker: SchemaChecker<'s>,
    pub set: PolicySet,
    pub diags: Vec<Diagnostic>,
    /// Every rule id seen, loaded or not: a duplicate is reported even when
    /// one of the two rules has other problems.
    ids: std::collections::HashMap<String, (Arc<SourceFile>, usize)>,
    pub files: Vec<FileFacts>,
}

impl Loader<'_> {
    /// Parses, checks and adds one file's rules to the set.
    pub fn add(&mut self, source: Arc<SourceFile>, layer: usize) {
        self.add_file(source, layer, false);
    }

    pub fn add_file(&mut self, source: Arc<SourceFile>, layer: usize, shipped: bool) {
        let parsed = tree::parse(&source.text, ParseLimits::default());
        self.add_parsed(source, parsed, layer, shipped);
    }

    /// [`Loader::add_file`] for text already parsed (the shipped packs are
    /// parsed once per process, see `packs::shipped`).
    pub fn add_parsed(
        &mut self,
        source: Arc<SourceFile>,
        parsed: Result<Node, tree::ParseError>,
        layer: usize,
        shipped: bool,
    ) {
        let mut facts = FileFacts {
            source: source.clone(),
            layer,
            tree: None,
            pack: None,
            settings: None,
            selection: None,
            shipped,
        };
        self.set.files.push(source.clone());
        let diags = &mut self.diags;
        let tree = match parsed {
            Ok(tree) => tree,
            Err(e) => {
                let d = Diagnostic::error("yaml::syntax", e.message).in_file(&source);
                diags.push(match e.span {
                    Some(span) => d.at(&source, span).label("here"),
                    None => d,
                });
                self.files.push(facts);
                return;
            }
        };
        if matches!(tree.value, Value::Null) {
            diags.push(
                Diagnostic::error("schema::empty", "the file is empty")
                    .in_file(&source)
                    .help("a policy file starts with `version: 1` and a list of `rules`"),
            );
            self.files.push(facts);
            return;
        }
        for node in rule_nodes(&tree) {
            let Some(id_node) = node.get("id") else {
                continue;
            };
            let Some(id) = id_node.as_str() else { continue };
            match self.ids.get(id) {
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
                    self.ids
                        .insert(id.to_string(), (source.clone(), id_node.span.start));
                }
            }
        }
        facts.pack = tree
            .get("pack")
            .and_then(|p| p.get("name"))
            .and_then(Node::as_str)
            .map(str::to_string);
        let structural = match self.mode {
            Mode::Check => self.checker.check(&source, &tree),
            Mode::Run => Vec::new(),
        };
        let clean = !structural.iter().any(Diagnostic::is_error);
        diags.extend(structural);
        if !clean {
            // Keep going with the rules that are themselves clean, so their
            // CEL is still checked and every problem is reported in one run.
            load_clean_rules(
                &source,
                &tree,
                layer,
                facts.pack.as_deref(),
                shipped,
                &mut self.set,
            );
            facts.tree = Some(tree);
            self.files.push(facts);
            return;
        }
        let file: PolicyFile = match serde_json::from_value(tree.to_json()) {
            Ok(file) => file,
            Err(e) => {
                // In check mode the schema accepted what serde refused (a bug in
                // either); in run mode this is how a malformed file is refused.
                diags.push(
                    Diagnostic::error("schema::shape", e.to_string())
                        .in_file(&source)
                        .help("run `policy check` for every problem with its location"),
                );
                facts.tree = Some(tree);
                self.files.push(facts);
                return;
            }
        };
        if let Some(settings) = &file.settings {
            let first = self
                .files
                .iter()
                .find_map(|f| f.settings.as_ref().map(|s| (f, s)));
            if let Some((first, earlier)) = first {
                if earlier.on_error != settings.on_error || earlier.log != settings.log {
                    let span = tree
                        .entry("settings")
                        .map(|e| e.key_span)
                        .unwrap_or_default();
                    diags.push(
                        Diagnostic::error(
                            "settings::conflict",
                            format!("settings differ from those in {}", first.source.name()),
                        )
                        .at(&source, span)
                        .help("a policy set has one `settings`; keep it in one file"),
                    );
                }
            }
        }
        let rule_nodes = rule_nodes(&tree);
        let pack: Option<Arc<str>> = facts.pack.as_deref().map(Arc::from);
        for (rule, node) in file.rules.into_iter().zip(rule_nodes) {
            let order = self.set.rules.len();
            self.set.rules.push(LoadedRule {
                rule,
                file: source.clone(),
                node: node.clone(),
                order,
                layer,
                pack: pack.clone(),
                overlay: None,
                shipped,
            });
        }
        facts.settings = file.settings;
        facts.selection = file.packs;
        facts.tree = Some(tree);
        self.files.push(facts);
    }
}

fn rule_nodes(tree: &Node) -> Vec<&Node> {
    match tree.get("rules").map(|r| &r.value) {
        Some(Value::Seq(items)) => items.iter().collect(),
        _ => Vec::new(),
    }
}

/// From a file with structural errors, keep the rules that have none.
fn load_clean_rules(
    source: &Arc<SourceFile>,
    tree: &Node,
    layer: usize,
    pack: Option<&str>,
    shipped: bool,
    set: &mut PolicySet,
) {
    let schema = crate::model::schema();
    let Some(rule_schema) = schema.pointer("/$defs/Rule") else {
        return;
    };
    let rule_checker_root = {
        let mut root = rule_schema.clone();
        if let (Some(obj), Some(defs)) = (root.as_object_mut(), schema.get("$defs")) {
            obj.insert("$defs".into(), defs.clone());
        }
        root
    };
    let rule_checker = SchemaChecker::new(&rule_checker_root);
    let pack: Option<Arc<str>> = pack.map(Arc::from);
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
                layer,
                pack: pack.clone(),
                overlay: None,
                shipped,
            });
        }
    }
}
