//! Loading: policy files and directories into one policy set.
//!
//! A directory loads every `*.yaml`/`*.yml` file below it in name order, so
//! rule order (the tie-breaker of priorities) is stable. Files ending in
//! `.test.yaml`/`.test.yml` are policy tests, and hidden files and folders are
//! skipped.

mod event_tree;
pub mod scalar;
pub mod tree;
mod typed;

use crate::check::structure::SchemaChecker;
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::model::{PolicyFile, Rule, Settings};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tree::{Node, ParseLimits, Span, Value};

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
    /// Rule nodes the schema refused (check mode): not loaded, but their
    /// CEL is still syntax-checked so that one run reports every problem.
    pub rejected: Vec<(Arc<SourceFile>, Node)>,
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
/// A path given explicitly is loaded whatever its name. Stops at the first
/// path that cannot be read; see [`discover_all`] for every problem.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Diagnostic> {
    let (files, mut problems) = discover_all(paths);
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(problems.swap_remove(0))
    }
}

/// [`discover`], with each file's layer: the index of the path it came from.
pub fn discover_layers(paths: &[PathBuf]) -> Result<Vec<(PathBuf, usize)>, Diagnostic> {
    let (files, mut problems) = discover_all_layers(paths);
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(problems.swap_remove(0))
    }
}

/// Like [`discover`], but goes on past a path that cannot be read, so that
/// one unreadable file does not hide the problems of the others.
pub fn discover_all(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    let (files, problems) = discover_all_layers(paths);
    (files.into_iter().map(|(f, _)| f).collect(), problems)
}

/// [`discover_all`], with each file's layer (see [`load_layered`]).
pub fn discover_all_layers(paths: &[PathBuf]) -> (Vec<(PathBuf, usize)>, Vec<Diagnostic>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for (layer, path) in paths.iter().enumerate() {
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) => {
                problems.push(io_error(path, &e));
                continue;
            }
        };
        if meta.is_dir() {
            let mut found = Vec::new();
            let before = problems.len();
            walk_dir(path, &mut found, &mut problems, 0);
            found.sort();
            if found.is_empty() && problems.len() == before {
                problems.push(
                    Diagnostic::error("io::empty", "contains no policy files (*.yaml, *.yml)")
                        .in_file(&unread(path)),
                );
            }
            files.extend(found.into_iter().map(|f| (f, layer)));
        } else {
            files.push((path.clone(), layer));
        }
    }
    (files, problems)
}

fn walk_dir(dir: &Path, out: &mut Vec<PathBuf>, problems: &mut Vec<Diagnostic>, depth: usize) {
    if depth > 16 {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return problems.push(io_error(dir, &e)),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                problems.push(io_error(dir, &e));
                continue;
            }
        };
        let path = entry.path();
        let hidden = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        match entry.file_type() {
            Err(e) => problems.push(io_error(&path, &e)),
            Ok(t) if t.is_dir() => walk_dir(&path, out, problems, depth + 1),
            Ok(_) if is_yaml(&path) && !is_test_file(&path) => out.push(path),
            Ok(_) => {}
        }
    }
}

/// A file known only by its path: diagnostics about it carry the file (so
/// JSON, SARIF and GitHub output can attach them) with no text to quote.
fn unread(path: &Path) -> Arc<SourceFile> {
    Arc::new(SourceFile::new(path.to_path_buf(), String::new()))
}

pub fn io_error(path: &Path, e: &std::io::Error) -> Diagnostic {
    let (what, help) = match e.kind() {
        std::io::ErrorKind::NotFound => (
            "no such file or directory".to_string(),
            "check the path; `policy check` takes policy files and directories",
        ),
        std::io::ErrorKind::PermissionDenied => (
            "permission denied".to_string(),
            "make the file readable by the user that runs `policy`",
        ),
        _ => (format!("cannot be read: {e}"), "check the path"),
    };
    Diagnostic::error("io::read", what)
        .in_file(&unread(path))
        .help(help)
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
                "the file is {} bytes; policy files are limited to {MAX_POLICY_FILE_BYTES} bytes",
                meta.len()
            ),
        )
        .in_file(&unread(path))
        .help("split the policy into several files in one directory"));
    }
    let bytes = std::fs::read(path).map_err(|e| io_error(path, &e))?;
    source_from_bytes(path, bytes)
}

/// A source from bytes already read (a file, or standard input for
/// `policy check -`): UTF-8 text, or an `io::encoding` error at the bad byte.
pub fn source_from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Arc<SourceFile>, Diagnostic> {
    let text = String::from_utf8(bytes).map_err(|e| encoding_error(path, &e))?;
    Ok(Arc::new(SourceFile::new(path.to_path_buf(), text)))
}

/// Not UTF-8: the caret goes on the first bad byte, shown in a lossy copy
/// of the text (whose prefix up to that byte is the file's own).
fn encoding_error(path: &Path, e: &std::string::FromUtf8Error) -> Diagnostic {
    let at = e.utf8_error().valid_up_to();
    let byte = e.as_bytes()[at];
    let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
    let file = Arc::new(SourceFile::new(path.to_path_buf(), lossy));
    Diagnostic::error(
        "io::encoding",
        format!("the file is not UTF-8 text: byte 0x{byte:02x} cannot be read as a character"),
    )
    .at(&file, Span::new(at, char::REPLACEMENT_CHARACTER.len_utf8()))
    .label("not UTF-8")
    .help("save the file as UTF-8")
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
    let (files, mut diags) = discover_all_layers(paths);
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
        let file: PolicyFile = match typed::from_node(&tree) {
            Ok(file) => file,
            Err(e) => {
                // In run mode this is how a malformed file is refused. The
                // schema walk, skipped on the hot path, now pays for itself:
                // it says what is wrong, and where, in the words of `policy
                // check` (the reason a harness shows names file and line).
                let located: Vec<Diagnostic> = match self.mode {
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
        // The rules' nodes move to the loaded rules (the rest of the tree
        // is kept for composing packs, which never reads top-level rules).
        let mut tree = tree;
        let rule_nodes = match tree.get_mut("rules").map(|r| &mut r.value) {
            Some(Value::Seq(items)) => std::mem::take(items),
            _ => Vec::new(),
        };
        let pack: Option<Arc<str>> = facts.pack.as_deref().map(Arc::from);
        for (rule, node) in file.rules.into_iter().zip(rule_nodes) {
            let order = self.set.rules.len();
            self.set.rules.push(LoadedRule {
                rule,
                file: source.clone(),
                node,
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
            set.rejected.push((source.clone(), node.clone()));
            continue;
        }
        if let Ok(rule) = typed::from_node::<Rule>(node) {
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
