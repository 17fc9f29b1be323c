//! The `packs:` block of a policy: which shipped packs load, which of their
//! rules are left out, what they do when they match, and where they do not
//! apply, without copying a pack.
//!
//! Precedence, whatever the file order:
//! 1. `enable` adds up over every file; `recommended` is every pack whose
//!    header says so.
//! 2. `disable` (a pack or one rule) wins over `enable`.
//! 3. A rule's outcome is its own `outcome` entry if any, else its pack's,
//!    else what the rule says. Between layers (`--policy` paths in order),
//!    a later layer's entry replaces an earlier one's; two different values
//!    for one key in the same layer are an error.
//! 4. Exceptions add up; each is as narrow as written (see
//!    `packs::exception`).
//!
//! Layers: the first `--policy` path is the base (a user's or the system's
//! policy), later ones (a project's) may always tighten it: enable packs,
//! add rules, make outcomes stricter. They may loosen it (disable what the
//! base enabled, add exceptions to it, weaken its outcomes, fail open) only
//! when the base sets `settings.project_may_loosen: true`. A refused
//! loosening is an error, so the policy fails closed instead of running
//! without what the base asked for.

use super::exception::ExceptionKind;
use crate::catalogue::{self, EffectKind, Subject};
use crate::diagnostic::{did_you_mean, Diagnostic, SourceFile};
use crate::load::tree::{Node, Span, Value};
use crate::load::{FileFacts, LoadedRule, Loader};
use crate::model::{OnError, PackOutcome};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

/// What a policy changed about one pack rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    /// The outcome in force, when it differs from what the rule says.
    pub outcome: Option<PackOutcome>,
    pub exceptions: Vec<ExceptionSpec>,
}

/// One exception as composed into a rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExceptionSpec {
    pub kind: ExceptionKind,
    pub items: Vec<String>,
    /// `file:line` of the exception, for explanations.
    pub origin: String,
    pub reason: Option<String>,
}

/// The outcome a rule has as written: deny (or block), ask, or none of the
/// two (a rule that only rewrites, filters or counts has no outcome to change).
pub fn natural_outcome(rule: &crate::model::Rule) -> Option<PackOutcome> {
    if rule.deny.is_some() || rule.block.is_some() {
        Some(PackOutcome::Deny)
    } else if rule.ask.is_some() {
        Some(PackOutcome::Ask)
    } else {
        None
    }
}

/// A reference from a `packs:` block, resolved.
#[derive(Debug, Clone)]
enum Target {
    Pack(String),
    Rule(String),
}

/// One entry of a `packs:` block with where it was written.
struct Located<'a> {
    file: &'a FileFacts,
    span: Span,
}

impl Located<'_> {
    fn error(&self, code: &'static str, message: String) -> Diagnostic {
        Diagnostic::error(code, message).at(&self.file.source, self.span)
    }
    fn warning(&self, code: &'static str, message: String) -> Diagnostic {
        Diagnostic::warning(code, message).at(&self.file.source, self.span)
    }
}

/// Loads the enabled packs into the loader's set and applies every
/// `packs:` block to their rules.
pub fn compose(loader: &mut Loader<'_>) {
    let registry = super::shipped();
    let mut diags = Vec::new();

    // Which shipped packs are enabled, and by the lowest layer that did.
    let mut enabled: BTreeMap<&str, usize> = BTreeMap::new();
    let local_packs: BTreeSet<String> =
        loader.files.iter().filter_map(|f| f.pack.clone()).collect();
    for file in &loader.files {
        let Some(selection) = &file.selection else {
            continue;
        };
        let nodes = list_nodes(file, "enable");
        for (i, name) in selection.enable.iter().enumerate() {
            let at = Located {
                file,
                span: span_of(&nodes, i, file),
            };
            let names: Vec<&str> = if name == "recommended" {
                registry
                    .iter()
                    .filter(|p| p.header.recommended)
                    .map(|p| p.header.name.as_str())
                    .collect()
            } else if let Some(p) = registry.iter().find(|p| p.header.name == *name) {
                vec![p.header.name.as_str()]
            } else if local_packs.contains(name) {
                Vec::new()
            } else {
                let candidates = registry
                    .iter()
                    .map(|p| p.header.name.as_str())
                    .chain(local_packs.iter().map(String::as_str))
                    .chain(["recommended"]);
                diags.push(
                    at.error("packs::unknown-pack", format!("no pack named `{name}`"))
                        .label("unknown pack")
                        .help(hint(name, candidates, "`policy packs` lists the packs")),
                );
                continue;
            };
            for n in names {
                let layer = enabled.entry(n).or_insert(file.layer);
                *layer = (*layer).min(file.layer);
            }
        }
    }
    for pack in registry {
        if let Some(&layer) = enabled.get(pack.header.name.as_str()) {
            // A pack file of the same name in this layer or an earlier one
            // stands in for the shipped pack (to try a pack before it ships);
            // a later layer cannot replace what an earlier one enabled.
            let replaced = loader
                .files
                .iter()
                .any(|f| f.pack.as_deref() == Some(pack.header.name.as_str()) && f.layer <= layer);
            if replaced {
                continue;
            }
            let source = Arc::new(SourceFile::new(
                PathBuf::from(pack.embedded.file),
                pack.embedded.text.to_string(),
            ));
            match pack.tree() {
                Some(tree) => loader.add_parsed(source, Ok(tree.clone()), layer, true),
                None => loader.add_file(source, layer, true),
            }
        }
    }

    check_pack_files(&loader.files, &loader.set.rules, &mut diags);
    let loosen = Loosening::from_files(&loader.files, &mut diags);

    // Every pack and pack rule a reference may name: shipped (enabled or
    // not) and loaded from files with a `pack:` header.
    let mut known_rules: BTreeMap<String, String> = BTreeMap::new();
    // Shipped packs' rule ids cost a parse of every pack: only when some
    // entry may name a rule.
    let names_rules = loader.files.iter().any(|f| {
        f.selection
            .as_ref()
            .is_some_and(|s| !s.disable.is_empty() || !s.outcome.is_empty() || !s.except.is_empty())
    });
    for pack in registry.iter().filter(|_| names_rules) {
        for id in pack.rule_ids() {
            known_rules.insert(id, pack.header.name.clone());
        }
    }
    for r in &loader.set.rules {
        if let Some(pack) = &r.pack {
            known_rules.insert(r.rule.id.clone(), pack.to_string());
        }
    }
    let known_packs: BTreeSet<String> = registry
        .iter()
        .map(|p| p.header.name.clone())
        .chain(local_packs.iter().cloned())
        .collect();
    let loaded_packs: BTreeSet<&str> = loader
        .set
        .rules
        .iter()
        .filter_map(|r| r.pack.as_deref())
        .collect();
    let resolve = |name: &str, at: &Located<'_>, diags: &mut Vec<Diagnostic>| -> Option<Target> {
        let target = if known_packs.contains(name) {
            Target::Pack(name.to_string())
        } else if known_rules.contains_key(name) {
            Target::Rule(name.to_string())
        } else {
            let candidates = known_packs
                .iter()
                .chain(known_rules.keys())
                .map(String::as_str);
            let what = if name.contains('.') {
                "pack rule"
            } else {
                "pack"
            };
            diags.push(
                at.error("packs::unknown-rule", format!("no {what} named `{name}`"))
                    .label("unknown")
                    .help(hint(
                        name,
                        candidates,
                        "`policy packs show NAME` lists a pack's rules",
                    )),
            );
            return None;
        };
        let pack = match &target {
            Target::Pack(p) => p.as_str(),
            Target::Rule(id) => known_rules[id].as_str(),
        };
        if !loaded_packs.contains(pack) {
            diags.push(
                at.warning(
                    "packs::not-enabled",
                    format!("pack `{pack}` is not enabled, so this entry changes nothing"),
                )
                .help(format!(
                    "add `{pack}` to `packs.enable`, or remove the entry"
                )),
            );
        }
        Some(target)
    };
    let rules_of = |target: &Target, rules: &[LoadedRule]| -> Vec<usize> {
        rules
            .iter()
            .enumerate()
            .filter(|(_, r)| match target {
                Target::Pack(p) => r.pack.as_deref() == Some(p.as_str()),
                Target::Rule(id) => r.pack.is_some() && r.rule.id == *id,
            })
            .map(|(i, _)| i)
            .collect()
    };

    let rules = &loader.set.rules;
    let mut disabled: BTreeSet<usize> = BTreeSet::new();
    // Outcome entries by key: (layer, value, where).
    let mut outcome_entries: HashMap<String, Vec<(usize, PackOutcome, Located<'_>)>> =
        HashMap::new();
    let mut exceptions: BTreeMap<usize, Vec<ExceptionSpec>> = BTreeMap::new();

    for file in &loader.files {
        let Some(selection) = &file.selection else {
            continue;
        };
        let nodes = list_nodes(file, "disable");
        for (i, name) in selection.disable.iter().enumerate() {
            let at = Located {
                file,
                span: span_of(&nodes, i, file),
            };
            let Some(target) = resolve(name, &at, &mut diags) else {
                continue;
            };
            for index in rules_of(&target, rules) {
                if let Some(d) = loosen.refuse(&rules[index], file, &at, || {
                    format!("disable `{}`", rules[index].rule.id)
                }) {
                    diags.push(d);
                    break;
                }
                disabled.insert(index);
            }
        }
        let outcome_node = file
            .tree
            .as_ref()
            .and_then(|t| t.get("packs"))
            .and_then(|p| p.get("outcome"));
        for (key, value) in &selection.outcome {
            let span = outcome_node
                .and_then(|n| n.entry(key))
                .map_or_else(|| block_span(file), |e| e.key_span);
            let at = Located { file, span };
            let Some(target) = resolve(key, &at, &mut diags) else {
                continue;
            };
            let mut fits = true;
            for index in rules_of(&target, rules) {
                if let Some(d) = outcome_misfit(&rules[index], *value, &at) {
                    diags.push(d);
                    fits = false;
                    break;
                }
            }
            if fits {
                outcome_entries
                    .entry(key.clone())
                    .or_default()
                    .push((file.layer, *value, at));
            }
        }
        let except_nodes = list_nodes(file, "except");
        for (i, exception) in selection.except.iter().enumerate() {
            let item = except_nodes.get(i).copied();
            let at = Located {
                file,
                span: item.map_or_else(|| block_span(file), |n| n.span),
            };
            let Some(spec) = exception_spec(exception, item, &at, &mut diags) else {
                continue;
            };
            let rule_nodes: Vec<&Node> = match item.and_then(|n| n.get("rules")) {
                Some(Node {
                    value: Value::Seq(items),
                    ..
                }) => items.iter().collect(),
                Some(n) => vec![n],
                None => Vec::new(),
            };
            for (j, name) in exception.rules.items().iter().enumerate() {
                let at = Located {
                    file,
                    span: rule_nodes.get(j).map_or(at.span, |n| n.span),
                };
                let Some(target) = resolve(name, &at, &mut diags) else {
                    continue;
                };
                // A paths exception also applies to shell rules: to the
                // paths a command line deletes, moves, changes or writes.
                let applicable: Vec<usize> = rules_of(&target, rules)
                    .into_iter()
                    .filter(|&r| {
                        sees(&rules[r], spec.kind.subject())
                            || spec.kind == ExceptionKind::Paths
                                && sees(&rules[r], catalogue::Subject::Command)
                    })
                    .collect();
                let in_set = !rules_of(&target, rules).is_empty();
                if applicable.is_empty() && in_set {
                    diags.push(
                        at.error(
                            "packs::exception",
                            format!(
                                "`{name}` never sees a {}: this exception could never apply",
                                spec.kind.noun()
                            ),
                        )
                        .help(format!(
                            "{} exceptions apply to rules on {}",
                            spec.kind.key(),
                            spec.kind.hooks().join(", ")
                        )),
                    );
                    continue;
                }
                for index in applicable {
                    if let Some(d) = loosen.refuse(&rules[index], file, &at, || {
                        format!("add an exception to `{}`", rules[index].rule.id)
                    }) {
                        diags.push(d);
                        break;
                    }
                    exceptions.entry(index).or_default().push(spec.clone());
                }
            }
        }
    }

    // Each rule's outcome: its own entry, else its pack's, else as written.
    let mut overlays: BTreeMap<usize, Overlay> = BTreeMap::new();
    let mut reported: BTreeSet<(&'static str, String, usize)> = BTreeSet::new();
    for (index, rule) in rules.iter().enumerate() {
        let Some(pack) = rule.pack.as_deref() else {
            continue;
        };
        let natural = natural_outcome(&rule.rule);
        let by_rule = outcome_entries.get(&rule.rule.id);
        let by_pack = outcome_entries.get(pack);
        let in_force = |below: usize| -> Option<PackOutcome> {
            let last = |entries: Option<&Vec<(usize, PackOutcome, Located<'_>)>>| {
                entries.and_then(|e| {
                    e.iter()
                        .filter(|(layer, _, _)| *layer < below)
                        .max_by_key(|(layer, _, _)| *layer)
                        .map(|(_, v, _)| *v)
                })
            };
            last(by_rule).or_else(|| last(by_pack)).or(natural)
        };
        let mut refused = false;
        for (key, entries) in [(&rule.rule.id, by_rule), (&pack.to_string(), by_pack)] {
            let Some(entries) = entries else { continue };
            for (n, (layer, value, at)) in entries.iter().enumerate() {
                // One report per entry, not one per rule of a pack.
                let first_report = |code: &'static str, reported: &mut BTreeSet<_>| {
                    reported.insert((code, at.file.source.name(), at.span.start))
                };
                if let Some((_, other, _)) = entries[..n]
                    .iter()
                    .find(|(l, v, _)| l == layer && v != value)
                {
                    if first_report("conflict", &mut reported) {
                        diags.push(
                            at.error(
                                "packs::conflict",
                                format!(
                                    "`{key}` is given two outcomes in this layer: `{}` and `{}`",
                                    other.as_str(),
                                    value.as_str()
                                ),
                            )
                            .help("keep one entry for it"),
                        );
                    }
                    refused = true;
                }
                let before = in_force(*layer);
                if before.is_some_and(|b| *value < b) && loosen.refuses(rule, at.file) {
                    refused = true;
                    if !first_report("loosen", &mut reported) {
                        continue;
                    }
                    if let Some(d) = loosen.refuse(rule, at.file, at, || {
                        format!(
                            "weaken `{key}` from {} to {}",
                            before.map_or("", PackOutcome::as_str),
                            value.as_str()
                        )
                    }) {
                        diags.push(d);
                        refused = true;
                    }
                }
            }
        }
        let outcome = in_force(usize::MAX);
        let exceptions = exceptions.remove(&index).unwrap_or_default();
        if !refused && (outcome != natural || !exceptions.is_empty()) {
            overlays.insert(
                index,
                Overlay {
                    outcome: outcome.filter(|o| Some(*o) != natural),
                    exceptions,
                },
            );
        }
    }

    // Log-only decisions are only worth something if they are written down.
    let logs = loader
        .files
        .iter()
        .any(|f| f.settings.as_ref().is_some_and(|s| s.log.is_some()));
    let first_log = outcome_entries
        .values()
        .flatten()
        .filter(|(_, v, _)| *v == PackOutcome::Log)
        .min_by_key(|(_, _, at)| (at.file.layer, at.span.start));
    if let (false, Some((_, _, at))) = (logs, first_log) {
        diags.push(
            at.warning(
                "packs::log-unwritten",
                "log-only decisions are written only to a decision log, and this policy sets none"
                    .to_string(),
            )
            .help("set `settings: { log: decisions.jsonl }` (or HOOK_POLICY_LOG) to read what the rules would have done"),
        );
    }
    drop(outcome_entries);
    let rules = std::mem::take(&mut loader.set.rules);
    loader.set.rules = rules
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !disabled.contains(i))
        .map(|(i, mut r)| {
            r.overlay = overlays.remove(&i).map(Arc::new);
            r
        })
        .collect();
    loader.diags.extend(diags);
}

/// Whether any hook of the rule carries this subject.
fn sees(rule: &LoadedRule, subject: Subject) -> bool {
    rule.rule
        .hook
        .names()
        .iter()
        .any(|h| catalogue::subject_field(h, subject).is_some())
}

/// An outcome a rule cannot take, as a diagnostic.
fn outcome_misfit(rule: &LoadedRule, value: PackOutcome, at: &Located<'_>) -> Option<Diagnostic> {
    let id = &rule.rule.id;
    if natural_outcome(&rule.rule).is_none() {
        return Some(
            at.error(
                "packs::outcome",
                format!("`{id}` neither denies, asks nor blocks, so it has no outcome to change"),
            )
            .help("leave it out of `outcome`, or `disable` it"),
        );
    }
    if value == PackOutcome::Ask {
        let cannot_ask: Vec<&str> = rule
            .rule
            .hook
            .names()
            .iter()
            .filter(|h| catalogue::hook(h).is_some_and(|hp| !hp.effects.contains(&EffectKind::Ask)))
            .map(String::as_str)
            .collect();
        if !cannot_ask.is_empty() {
            return Some(
                at.error(
                    "packs::outcome",
                    format!(
                        "`{id}` applies on {}, where nobody can be asked",
                        cannot_ask.join(", ")
                    ),
                )
                .help("use `deny` or `log` for it"),
            );
        }
    }
    None
}

/// Checks one exception's shape and values; `None` when it is unusable.
fn exception_spec(
    exception: &crate::model::PackException,
    node: Option<&Node>,
    at: &Located<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ExceptionSpec> {
    let given: Vec<(ExceptionKind, &Vec<String>)> = [
        (ExceptionKind::Paths, exception.paths.as_ref()),
        (ExceptionKind::Commands, exception.commands.as_ref()),
        (ExceptionKind::Hosts, exception.hosts.as_ref()),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    let [(kind, items)] = given.as_slice() else {
        // Point at the second kind given, or at the exception itself.
        let second = given
            .get(1)
            .and_then(|(k, _)| node.and_then(|n| n.entry(k.key())))
            .map(|e| e.key_span);
        let at = Located {
            file: at.file,
            span: second.unwrap_or(at.span),
        };
        diags.push(
            at.error(
                "packs::exception",
                "an exception gives exactly one of `paths`, `commands` and `hosts`".to_string(),
            )
            .help("write one exception per kind of subject"),
        );
        return None;
    };
    let item_nodes: Vec<&Node> = match node.and_then(|n| n.get(kind.key())) {
        Some(Node {
            value: Value::Seq(items),
            ..
        }) => items.iter().collect(),
        _ => Vec::new(),
    };
    let mut ok = !items.is_empty();
    if items.is_empty() {
        diags.push(at.error(
            "packs::exception",
            format!("`{}` is empty: the exception could never apply", kind.key()),
        ));
    }
    let mut clean = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let here = Located {
            file: at.file,
            span: item_nodes.get(i).map_or(at.span, |n| n.span),
        };
        match super::exception::validate(*kind, item) {
            Ok(value) => clean.push(value),
            Err(why) => {
                diags.push(here.error("packs::exception", why));
                ok = false;
            }
        }
    }
    let (line, _) = at.file.source.line_col(at.span.start);
    ok.then(|| ExceptionSpec {
        kind: *kind,
        items: clean,
        origin: format!("{}:{line}", at.file.source.name()),
        reason: exception.reason.clone(),
    })
}

/// Pack files follow the pack contract: rule ids `<pack>.<rule>`, every
/// rule with a description and a severity, no `settings` or `packs:` (a
/// pack is enabled by policies, it does not configure them).
fn check_pack_files(files: &[FileFacts], rules: &[LoadedRule], diags: &mut Vec<Diagnostic>) {
    for file in files {
        let Some(name) = &file.pack else { continue };
        let Some(tree) = &file.tree else { continue };
        for key in ["settings", "packs"] {
            if let Some(entry) = tree.entry(key) {
                diags.push(
                    Diagnostic::error(
                        "pack::invalid",
                        format!("a pack has no `{key}`; the policies that enable it do"),
                    )
                    .at(&file.source, entry.key_span),
                );
            }
        }
        for rule in rules.iter().filter(|r| Arc::ptr_eq(&r.file, &file.source)) {
            let id = &rule.rule.id;
            let id_span = rule.node.get("id").map_or(rule.node.span, |n| n.span);
            if !id.starts_with(&format!("{name}.")) || id.len() == name.len() + 1 {
                diags.push(
                    Diagnostic::error(
                        "pack::rule-id",
                        format!("rule `{id}` of pack `{name}` must be named `{name}.<rule>`"),
                    )
                    .at(&file.source, id_span)
                    .label("not in the pack's namespace"),
                );
            }
            for (missing, what) in [
                (
                    rule.rule.description.is_none(),
                    "a `description` (why the rule exists)",
                ),
                (
                    rule.rule.severity.is_none(),
                    "a `severity` (critical, high, medium, low)",
                ),
            ] {
                if missing {
                    diags.push(
                        Diagnostic::error(
                            "pack::incomplete",
                            format!("pack rule `{id}` needs {what}"),
                        )
                        .at(&file.source, id_span),
                    );
                }
            }
        }
    }
}

/// Who may loosen what: see the module docs.
struct Loosening {
    allowed: bool,
    base: Option<String>,
}

impl Loosening {
    fn from_files(files: &[FileFacts], diags: &mut Vec<Diagnostic>) -> Loosening {
        let base_settings = files
            .iter()
            .find(|f| f.layer == 0 && f.settings.is_some())
            .and_then(|f| f.settings.as_ref());
        let allowed = base_settings.and_then(|s| s.project_may_loosen) == Some(true);
        let base_fails_open = base_settings.and_then(|s| s.on_error) == Some(OnError::FailOpen);
        let base = files.iter().find(|f| f.layer == 0).map(|f| f.source.name());
        for file in files.iter().filter(|f| f.layer > 0) {
            let Some(settings) = &file.settings else {
                continue;
            };
            let span = |key: &str| {
                file.tree
                    .as_ref()
                    .and_then(|t| t.get("settings"))
                    .and_then(|s| s.entry(key))
                    .map_or(Span::default(), |e| e.key_span)
            };
            if settings.project_may_loosen.is_some() {
                diags.push(
                    Diagnostic::error(
                        "packs::loosen",
                        "only the first policy decides whether later ones may loosen it",
                    )
                    .at(&file.source, span("project_may_loosen"))
                    .help("move `project_may_loosen` to the first `--policy` path's settings"),
                );
            }
            if settings.on_error == Some(OnError::FailOpen) && !base_fails_open && !allowed {
                diags.push(
                    Diagnostic::error(
                        "packs::loosen",
                        "a later policy may not make the policy fail open",
                    )
                    .at(&file.source, span("on_error"))
                    .help(loosen_help(base.as_deref())),
                );
            }
        }
        Loosening { allowed, base }
    }

    /// A diagnostic when `file` may not loosen `rule`, which an earlier
    /// layer brought in.
    /// Whether `file` may not loosen `rule`.
    fn refuses(&self, rule: &LoadedRule, file: &FileFacts) -> bool {
        !self.allowed && file.layer > rule.layer
    }

    fn refuse(
        &self,
        rule: &LoadedRule,
        file: &FileFacts,
        at: &Located<'_>,
        what: impl FnOnce() -> String,
    ) -> Option<Diagnostic> {
        if !self.refuses(rule, file) {
            return None;
        }
        Some(
            at.error(
                "packs::loosen",
                format!(
                    "this policy may not {}: an earlier policy enabled it",
                    what()
                ),
            )
            .label("loosens an earlier policy")
            .help(loosen_help(self.base.as_deref())),
        )
    }
}

fn loosen_help(base: Option<&str>) -> String {
    format!(
        "later `--policy` paths may only tighten the first; to allow this, set \
         `settings: {{ project_may_loosen: true }}` in {}",
        base.unwrap_or("the first policy")
    )
}

fn hint<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>, fallback: &str) -> String {
    match did_you_mean(wrong, candidates) {
        Some(c) => format!("did you mean `{c}`? ({fallback})"),
        None => fallback.to_string(),
    }
}

/// The item nodes of `packs.<key>` in a file's tree.
fn list_nodes<'a>(file: &'a FileFacts, key: &str) -> Vec<&'a Node> {
    match file
        .tree
        .as_ref()
        .and_then(|t| t.get("packs"))
        .and_then(|p| p.get(key))
    {
        Some(Node {
            value: Value::Seq(items),
            ..
        }) => items.iter().collect(),
        _ => Vec::new(),
    }
}

fn span_of(nodes: &[&Node], i: usize, file: &FileFacts) -> Span {
    nodes.get(i).map_or_else(|| block_span(file), |n| n.span)
}

/// The `packs:` key, when nothing more precise is known.
fn block_span(file: &FileFacts) -> Span {
    file.tree
        .as_ref()
        .and_then(|t| t.entry("packs"))
        .map_or(Span::default(), |e| e.key_span)
}
