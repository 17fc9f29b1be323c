//! The prepared form of one hook's policy: its decision tree as data, and
//! each rule's source, compiled only when the tree says it can match.
//!
//! A plugin process decides one payload and exits. Compiling every rule of
//! the hook for that (CEL, regexes, globs) made a call cost grow with rules
//! that could never match it: at 10,000 rules, 20 ms against 1 ms at 100.
//! Here the tree built at compile time is stored ready to use (which rules
//! each literal, program, host and glob leads to) in tables a call reads in
//! place (src/compile/tables.rs), and a call compiles only the candidates
//! the tree returns, each at most once.
//!
//! This module only turns a compiled hook into that form and back; where it
//! is stored, and when it may be trusted, is the cache's business
//! (src/cache.rs). Decisions are the same as from the YAML: the stored tree
//! is the one `compile` built, and a rule compiled here goes through the
//! same compiler, from the same rule mapping, with the same hook.

use super::tables::{self, Damaged, PlanTables};
use super::{CompiledPolicy, CompiledRule, RuleCompiler};
use crate::diagnostic::SourceFile;
use crate::expr::stored_tree::StoredTrees;
use crate::load::{tree::Node, LoadedRule};
use crate::packs::compose::Overlay;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// One rule as stored: its mapping (as loaded from YAML), where it came
/// from, its place in the loaded set, and what else of the loaded rule the
/// compiler reads: what a `packs:` block changed about it (outcome,
/// exceptions) and whether it comes from a shipped pack. Rules of enabled
/// packs are stored like the user's; the binary's identity is in the key.
#[derive(Debug, Serialize, Deserialize)]
pub struct RuleForm {
    pub rule: serde_json::Value,
    pub file: String,
    pub origin: String,
    pub order: usize,
    pub overlay: Option<Overlay>,
    pub shipped: bool,
}

impl RuleForm {
    /// Appends the stored record of `compiled`, loaded as `loaded`: its
    /// JSON, then a tab and its parsed CEL trees when it has any (JSON
    /// holds no raw tab; neither part holds a newline, so a record can be
    /// a line). [`DeferredRules`] reads it back.
    pub fn write_record(
        loaded: &LoadedRule,
        compiled: &CompiledRule,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        serde_json::to_writer(&mut *out, &RuleForm::of(loaded, &compiled.origin))?;
        if !compiled.trees.is_empty() {
            out.push(b'\t');
            out.extend_from_slice(&compiled.trees);
        }
        Ok(())
    }

    pub fn of(loaded: &LoadedRule, origin: &str) -> RuleForm {
        RuleForm {
            rule: loaded.node.to_json(),
            file: loaded.file.path.to_string_lossy().into_owned(),
            origin: origin.to_string(),
            order: loaded.order,
            overlay: loaded.overlay.as_deref().cloned(),
            shipped: loaded.shipped,
        }
    }
}

/// One hook's prepared entry as read: the tables of its decision tree and
/// its rules as source, in decision order, each compiled on first use.
/// Nothing is read until a call needs it (see [`tables`]); whatever does
/// not check out when read sends the call to the YAML instead, through
/// `fallback`, so a damaged entry costs speed, never a decision.
pub struct DeferredRules {
    hook: &'static str,
    /// The whole entry, read or mapped.
    text: Box<dyn AsRef<[u8]> + Send + Sync>,
    /// Where the body starts in `text`: every offset is into the body.
    body_at: usize,
    /// The rules' locations: (offset, length, checksum) records.
    records_at: u32,
    plan: PlanTables,
    built: tables::Built,
    slots: Vec<OnceLock<Box<Result<CompiledRule, String>>>>,
    /// The policy compiled from its YAML, for when the entry is damaged.
    fallback: Box<dyn Fn() -> Option<CompiledPolicy> + Send + Sync>,
    yaml: OnceLock<Option<Box<CompiledPolicy>>>,
}

impl std::fmt::Debug for DeferredRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredRules")
            .field("hook", &self.hook)
            .field("rules", &self.slots.len())
            .finish()
    }
}

/// A rule's location record: offset and length (u32 each), checksum (u64).
const LOCATION: usize = 16;

impl DeferredRules {
    /// `None` when the parts do not lie within `text` (checked: records
    /// are checked as they are read).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        hook: &'static str,
        text: Box<dyn AsRef<[u8]> + Send + Sync>,
        body_at: usize,
        records_at: u32,
        rules: usize,
        plan: PlanTables,
        fallback: Box<dyn Fn() -> Option<CompiledPolicy> + Send + Sync>,
    ) -> Option<DeferredRules> {
        let body_len = (*text).as_ref().len().checked_sub(body_at)?;
        let records_end = (records_at as usize).checked_add(rules.checked_mul(LOCATION)?)?;
        if records_end > body_len || !plan.fits(body_len, rules) {
            return None;
        }
        let slots = std::iter::repeat_with(OnceLock::new).take(rules).collect();
        Some(DeferredRules {
            hook,
            text,
            body_at,
            records_at,
            plan,
            built: Default::default(),
            slots,
            fallback,
            yaml: OnceLock::new(),
        })
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn hook(&self) -> &'static str {
        self.hook
    }

    fn body(&self) -> &[u8] {
        &(*self.text).as_ref()[self.body_at..]
    }

    /// The policy from the YAML, compiled the first time it is needed.
    fn yaml(&self) -> Option<&CompiledPolicy> {
        self.yaml
            .get_or_init(|| (self.fallback)().map(Box::new))
            .as_deref()
    }

    /// Whether something read so far did not check out.
    pub fn fell_back(&self) -> bool {
        self.yaml.get().is_some()
    }

    /// Candidate rules for a payload, in decision order, and how many rules
    /// the hook has (see [`super::HookPlan::candidates`]).
    pub fn candidates(
        &self,
        payload: &serde_json::Value,
        subjects: &crate::matchers::Subjects<'_>,
    ) -> (Vec<usize>, usize) {
        let found = tables::candidates(
            &self.plan,
            self.body(),
            self.len(),
            &self.built,
            payload,
            subjects,
        );
        let Err(Damaged) = found else {
            return (found.unwrap_or_default(), self.plan.rule_count());
        };
        match self.yaml() {
            Some(yaml) => match yaml.plan(self.hook) {
                Some(plan) => (plan.candidates(payload, subjects), plan.rule_count()),
                None => (Vec::new(), 0),
            },
            // No YAML to fall back on: every rule is a candidate (the index
            // only leaves out rules that cannot match), and those whose
            // records are damaged fail as rules failing at run time.
            None => ((0..self.len()).collect(), self.plan.rule_count()),
        }
    }

    /// Rule `index`'s stored source, if its record checks out.
    fn source(&self, index: usize) -> Result<&[u8], Damaged> {
        let body = self.body();
        let at = self.records_at as usize + index * LOCATION;
        let fields = body.get(at..at + 8).ok_or(Damaged)?;
        let word = |n: usize| {
            fields
                .get(n..n + 4)
                .and_then(|w| w.try_into().ok())
                .map(|w| u32::from_le_bytes(w) as usize)
                .ok_or(Damaged)
        };
        let (start, len) = (word(0)?, word(4)?);
        let sum = body
            .get(at + 8..at + 16)
            .and_then(|w| w.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or(Damaged)?;
        let source = body.get(start..start + len).ok_or(Damaged)?;
        let place = u32::try_from(index).map_err(|_| Damaged)?;
        (tables::record_sum(self.records_at, place, fields, &[source]) == sum)
            .then_some(source)
            .ok_or(Damaged)
    }

    /// Rule `index` (in decision order), compiled now if it was not yet.
    /// A rule whose record does not check out, or that does not compile as
    /// it did when it was stored, is taken from the YAML; an error means
    /// that failed too: the caller treats it as a rule failing at run time.
    pub fn get(&self, index: usize) -> Result<&CompiledRule, &str> {
        let slot = self.slots.get(index).ok_or("no such rule")?;
        let compiled = slot.get_or_init(|| {
            Box::new(match self.source(index) {
                Ok(source) => compile_stored(source, self.hook),
                Err(Damaged) => Err(String::new()),
            })
        });
        match compiled.as_ref() {
            Ok(rule) => Ok(rule),
            Err(_) => match self.yaml() {
                Some(yaml) => yaml.rule(index),
                None => Err("the policy cache entry is damaged and the policy does not load; run `policy check`"),
            },
        }
    }

    /// The rules compiled from the entry so far.
    pub fn compiled(&self) -> impl Iterator<Item = &CompiledRule> {
        self.slots
            .iter()
            .filter_map(|s| s.get().and_then(|r| r.as_ref().as_ref().ok()))
    }

    /// A rule by id among those compiled so far, from the entry or the YAML.
    pub fn find(&self, id: &str) -> Option<&CompiledRule> {
        self.compiled()
            .find(|r| &*r.id == id)
            .or_else(|| self.yaml.get()?.as_ref()?.find_rule(id))
    }
}

/// [`RuleForm`] as read back: the rule straight into its type (a JSON
/// tree in between cost as much as compiling the rule).
#[derive(Deserialize)]
struct StoredRule {
    rule: crate::model::Rule,
    file: String,
    origin: String,
    order: usize,
    overlay: Option<Overlay>,
    shipped: bool,
}

fn compile_stored(line: &[u8], hook: &str) -> Result<CompiledRule, String> {
    let damaged = |what: &str| format!("the policy cache entry is damaged ({what}); delete it");
    let (json, trees) = match crate::bytes::find(b'\t', line) {
        Some(tab) => (&line[..tab], StoredTrees::new(&line[tab + 1..])),
        None => (line, None),
    };
    let form: StoredRule = serde_json::from_slice(json).map_err(|_| damaged("rule"))?;
    let loaded = LoadedRule {
        rule: form.rule,
        file: Arc::new(SourceFile::new(PathBuf::from(&form.file), String::new())),
        // The compiler reads nodes only to place problems in the file, and
        // a stored rule has no file text to place them in (its problems
        // make it "damaged"): an empty mapping with an empty span, as every
        // node of a stored rule had when they were rebuilt from its JSON.
        node: Node {
            value: crate::load::tree::Value::Map(Vec::new()),
            span: Default::default(),
        },
        order: form.order,
        // Neither is read by the compiler: the layer and pack only served
        // composing the set, whose result is `overlay`.
        layer: 0,
        pack: None,
        overlay: form.overlay.map(Arc::new),
        shipped: form.shipped,
    };
    let mut diags = Vec::new();
    let mut rc = RuleCompiler {
        loaded: &loaded,
        diags: &mut diags,
        thorough: false,
        stored: true,
        // A record that does not read leaves the rule's trees to the parser.
        stored_trees: trees,
        recorder: None,
    };
    let mut compiled = rc
        .compile(Some(hook))
        .ok_or_else(|| damaged("rule does not compile"))?;
    compiled.origin = form.origin.into();
    // The process ends after the call: the loaded copy is not worth freeing.
    std::mem::forget(loaded);
    Ok(compiled)
}

/// A policy for one hook that compiles its rules on demand.
pub fn deferred_policy(
    rules: DeferredRules,
    on_error: Option<crate::model::OnError>,
    log: Option<PathBuf>,
) -> CompiledPolicy {
    CompiledPolicy {
        rules: Vec::new(),
        plans: HashMap::new(),
        on_error,
        log,
        deferred: Some(rules),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::SourceFile;

    /// A stored line of the one rule of `yaml`, and that rule's `when` tree.
    fn line_of(yaml: &str) -> (Vec<u8>, cel::common::ast::IdedExpr) {
        let source = Arc::new(SourceFile::new("p.yaml".into(), yaml.into()));
        let (set, _) = crate::load::load_sources(vec![source]);
        let (policy, _) = crate::compile::compile(&set, Some("pre_shell_exec"));
        let mut line = Vec::new();
        RuleForm::write_record(&set.rules[0], &policy.rules[0], &mut line).unwrap();
        let when = policy.rules[0].when.as_ref().unwrap().expr.clone();
        (line, when)
    }

    const YAML: &str = "version: 1\nrules:\n  - id: r\n    hook: pre_shell_exec\n    when: command.startsWith('rm') && ['a', 'b'].exists(x, command.contains(x))\n    deny: \"no ${{ command.size() }}\"\n";

    /// The rule's source says `xx` where its stored tree says `rm` (same
    /// length): what the stored rule runs shows which of the two was read.
    fn edited(line: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(line).into_owned();
        let at = text.find("startsWith('rm')").unwrap() + "startsWith('".len();
        let mut out = line.to_vec();
        out[at..at + 2].copy_from_slice(b"xx");
        out
    }

    #[test]
    fn a_stored_rule_runs_its_stored_tree() {
        let (line, when) = line_of(YAML);
        let tab = line.iter().position(|&b| b == b'\t').expect("trees stored");
        assert!(tab < line.len() - 1);
        let rule = compile_stored(&line, "pre_shell_exec").unwrap();
        assert_eq!(rule.when.as_ref().unwrap().expr, when);
        let rule = compile_stored(&edited(&line), "pre_shell_exec").unwrap();
        assert_eq!(
            rule.when.as_ref().unwrap().expr,
            when,
            "the tree, not the text"
        );
    }

    #[test]
    fn a_record_that_does_not_read_leaves_the_rule_to_the_parser() {
        let (line, _) = line_of(YAML);
        let line = edited(&line);
        let tab = line.iter().position(|&b| b == b'\t').unwrap();
        // Compiled from its text: parsed, then rewritten for evaluation.
        let mut from_text = crate::expr::parse_fast(
            "command.startsWith('xx') && ['a', 'b'].exists(x, command.contains(x))",
        )
        .unwrap();
        crate::expr::rewrite_for_evaluation(&mut from_text);
        let mut damaged: Vec<Vec<u8>> = vec![
            line[..tab].to_vec(),      // no trees
            line[..tab + 1].to_vec(),  // an empty record
            line[..tab + 12].to_vec(), // cut inside the `when` tree
        ];
        let mut other_version = line.clone();
        other_version[tab + 1] = 0x7E; // a version never written
        damaged.push(other_version);
        let mut bad_tag = line.clone();
        // The root's tag (a call: `_&&_`), after the version, the source
        // length, the "stored" byte and the root's id.
        assert_eq!(bad_tag[tab + 5], 4);
        bad_tag[tab + 5] = 0x7F;
        damaged.push(bad_tag);
        for bad in damaged {
            let rule = compile_stored(&bad, "pre_shell_exec").expect("compiles from its text");
            assert_eq!(rule.when.as_ref().unwrap().expr, from_text);
        }
    }
}
