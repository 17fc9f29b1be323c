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
            .find(|r| r.id == id)
            .or_else(|| self.yaml.get()?.as_ref()?.find_rule(id))
    }
}

fn compile_stored(json: &[u8], hook: &str) -> Result<CompiledRule, String> {
    let damaged = |what: &str| format!("the policy cache entry is damaged ({what}); delete it");
    let form: RuleForm = serde_json::from_slice(json).map_err(|_| damaged("rule"))?;
    let rule = crate::model::Rule::deserialize(&form.rule).map_err(|_| damaged("rule shape"))?;
    let loaded = LoadedRule {
        rule,
        file: Arc::new(SourceFile::new(PathBuf::from(&form.file), String::new())),
        node: Node::from_json(&form.rule),
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
    };
    let mut compiled = rc
        .compile(Some(hook))
        .ok_or_else(|| damaged("rule does not compile"))?;
    compiled.origin = form.origin;
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
