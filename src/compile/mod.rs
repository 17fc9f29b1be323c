//! Compiling a loaded policy set: semantic checks, CEL compiled once, and a
//! decision tree per hook point.
//!
//! `policy check` compiles every rule to find every problem. A harness call
//! compiles only the rules of the hook it serves: a `pre_shell_exec` call
//! never pays for the CEL of `pre_api_request` rules.
//!
//! This file holds the compiled types and the per-rule driver (hooks and
//! which effects they take); the parts of a rule are compiled by what they
//! are: `condition.rs` (the `when` CEL and the structured matchers),
//! `effects.rs` (effects and `${{ }}` templates), `tools.rs` (tool
//! patterns). `plan.rs` files the compiled rules into each hook's decision
//! tree, using the literal discriminators of `index.rs`.

mod condition;
mod effects;
pub mod index;
mod plan;
pub mod prepared;
pub mod tables;
mod tools;

pub use effects::{Effects, IntValue, Text, TextPart, ValueTemplate};
pub use plan::{
    FieldIndex, GlobIndex, HookPlan, HostIndex, NeededProgramIndex, ProgramIndex, SubstringIndex,
};
pub use tools::{ToolPattern, ToolsEffect};

use crate::catalogue::{self, EffectKind, HookClass, HookPoint};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::load::tree::{Node, Span};
use crate::load::{LoadedRule, PolicySet};
use crate::model::{OnError, Rule};
use cel::common::ast::IdedExpr;
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Debug)]
pub struct Condition {
    pub expr: IdedExpr,
    /// Shared with every decision's trace of the rule.
    pub source: Arc<str>,
    /// What evaluating `expr` needs of the CEL environment, found once.
    pub needs: std::sync::OnceLock<crate::expr::environment::Needs>,
}

#[derive(Debug)]
pub struct CompiledRule {
    /// Shared with every decision's trace of the rule, as `origin` is.
    pub id: Arc<str>,
    pub description: Option<String>,
    pub hooks: Vec<&'static str>,
    pub priority: i64,
    /// Position in the loaded set; the tie-breaker of equal priorities.
    pub order: usize,
    /// `file:line` of the rule, for explanations.
    pub origin: Arc<str>,
    /// Where the rule is, for lints that speak about whole rules.
    pub file: std::sync::Arc<crate::diagnostic::SourceFile>,
    pub span: Span,
    /// The deny reason or block message as written (before interpolation).
    pub reason_source: Option<String>,
    pub when: Option<Condition>,
    /// Structured matchers (`shell:`, `url:`, `path:`, `content:`), ANDed with `when`.
    pub matchers: crate::matchers::Matchers,
    pub effects: Effects,
    /// How precisely the rule says what it denies; among denying rules of
    /// one priority, the most specific gives the reason.
    pub specificity: Specificity,
    /// Log-only (a pack outcome of `log`): a match is recorded in
    /// [`crate::eval::Decision::logged`] and its effects are not applied.
    pub log_only: bool,
    /// Where the rule does not apply (pack exceptions, see `packs::exception`).
    pub exceptions: Vec<crate::packs::compose::ExceptionSpec>,
    /// From a pack shipped in the binary.
    pub shipped: bool,
    /// The CEL trees parsed for this rule, in the form a prepared entry
    /// stores them (see [`crate::expr::stored_tree`]); empty unless the
    /// rule was compiled for one hook, the only case that writes entries.
    pub trees: Vec<u8>,
}

/// How precisely a rule picks what it applies to, from its tests alone.
/// Ordered: the first is the most specific.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Specificity {
    /// A `when` condition, or a matcher that names what it looks for: a
    /// program, flag or argument, a URL destination, a path glob, a content
    /// pattern.
    Named,
    /// Only blanket properties: a line that cannot be known
    /// (`shell: {opaque: true}`), a path inside or outside the project.
    Blanket,
    /// No test at all: the rule applies to every payload of its hooks.
    Unconditional,
}

impl Specificity {
    pub fn of(when: Option<&Condition>, matchers: &crate::matchers::Matchers) -> Specificity {
        if when.is_some() || matchers.names_something() {
            Specificity::Named
        } else if !matchers.is_empty() {
            Specificity::Blanket
        } else {
            Specificity::Unconditional
        }
    }
}

#[derive(Debug, Default)]
pub struct CompiledPolicy {
    /// Sorted by (priority, order): the order in which effects are decided.
    pub rules: Vec<CompiledRule>,
    pub plans: HashMap<&'static str, HookPlan>,
    pub on_error: Option<OnError>,
    /// Where decisions are logged, resolved against the settings file.
    pub log: Option<std::path::PathBuf>,
    /// A policy for one hook loaded from its prepared form (see
    /// [`prepared`]): `rules` is empty and rules are compiled on first use.
    pub deferred: Option<prepared::DeferredRules>,
}

impl CompiledPolicy {
    /// The decision tree of `hook` (none for a policy read from its
    /// prepared form: see [`CompiledPolicy::candidates`]).
    pub fn plan(&self, hook: &str) -> Option<&HookPlan> {
        self.plans.get(hook)
    }

    /// Candidate rules for a payload at `hook`, in decision order, and how
    /// many rules the hook has; `None` when no rule applies to the hook.
    pub fn candidates(
        &self,
        hook: &str,
        payload: &serde_json::Value,
        subjects: &crate::matchers::Subjects<'_>,
    ) -> Option<(Vec<usize>, usize)> {
        match &self.deferred {
            Some(deferred) if deferred.hook() == hook => {
                Some(deferred.candidates(payload, subjects))
            }
            _ => {
                let plan = self.plans.get(hook)?;
                Some((plan.candidates(payload, subjects), plan.rule_count()))
            }
        }
    }

    /// Rule `index` of the decision order (the numbers a [`HookPlan`]
    /// holds), compiled now if the policy defers compilation.
    pub fn rule(&self, index: usize) -> Result<&CompiledRule, &str> {
        match &self.deferred {
            Some(deferred) => deferred.get(index),
            None => self.rules.get(index).ok_or("no such rule"),
        }
    }

    /// A rule by id, among those compiled (a deferred policy has compiled
    /// the rules its decisions visited, which include every rule that matched).
    pub fn find_rule(&self, id: &str) -> Option<&CompiledRule> {
        match &self.deferred {
            Some(deferred) => deferred.find(id),
            None => self.rules.iter().find(|r| &*r.id == id),
        }
    }

    /// The hooks at least one rule applies to, in catalogue order.
    pub fn hooks(&self) -> Vec<&'static str> {
        catalogue::hook_names()
            .filter(|h| {
                self.plans.contains_key(h) || self.deferred.as_ref().is_some_and(|d| d.hook() == *h)
            })
            .collect()
    }
}

/// Compiles a policy set. With `only_hook`, rules of other hooks are checked
/// for shape but their CEL is not compiled.
pub fn compile(set: &PolicySet, only_hook: Option<&str>) -> (CompiledPolicy, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut rules = Vec::new();
    let mut seen_ids: HashMap<&str, &LoadedRule> = HashMap::new();

    for loaded in &set.rules {
        let rule = &loaded.rule;
        if seen_ids.contains_key(rule.id.as_str()) {
            // Reported by the loader, which sees every rule node.
            continue;
        }
        seen_ids.insert(&rule.id, loaded);
        let mut rc = RuleCompiler {
            loaded,
            diags: &mut diags,
            // Every build checks a whole policy alike (install, `--schema`):
            // one verdict, whichever build installed it.
            thorough: only_hook.is_none(),
            stored: false,
            stored_trees: None,
            // A policy compiled for one hook may be written to the cache.
            recorder: only_hook.map(|_| Default::default()),
        };
        if let Some(mut compiled) = rc.compile(only_hook) {
            if let Some(recorder) = rc.recorder.take() {
                compiled.trees = recorder.finish();
            }
            rules.push(compiled);
        }
    }

    if only_hook.is_none() && crate::expr::has_reference_parser() {
        for (file, node) in &set.rejected {
            condition::syntax_check_rejected(file, node, &mut diags);
        }
    }

    rules.sort_by_key(|r| (r.priority, r.order));
    let plans = plan::build_plans(&rules);
    let log = set.settings.log.as_ref().map(|p| match &set.settings_dir {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.clone(),
    });
    let policy = CompiledPolicy {
        rules,
        plans,
        on_error: set.settings.on_error,
        log,
        deferred: None,
    };
    (policy, diags)
}

/// What a policy's `packs:` block changed about a pack rule (checked when
/// it was composed, see `packs::compose`).
fn apply_overlay(rule: &mut CompiledRule, overlay: &crate::packs::compose::Overlay) {
    use crate::model::PackOutcome;
    let fx = &mut rule.effects;
    match overlay.outcome {
        Some(PackOutcome::Log) => rule.log_only = true,
        Some(PackOutcome::Ask) => {
            if fx.ask.is_none() {
                fx.ask = fx.deny.take();
            } else {
                fx.deny = None;
            }
        }
        Some(PackOutcome::Deny) if fx.deny.is_none() && fx.block.is_none() => {
            fx.deny = fx.ask.take();
        }
        Some(PackOutcome::Deny) => {}
        None => {}
    }
    rule.exceptions = overlay.exceptions.clone();
}

struct RuleCompiler<'a> {
    loaded: &'a LoadedRule,
    diags: &'a mut Vec<Diagnostic>,
    /// Lint-only checks (regex literals) are skipped when serving one hook:
    /// a bad pattern still fails closed when evaluated.
    thorough: bool,
    /// The rule comes from a prepared entry, written only after this same
    /// executable compiled it cleanly: checks that can only reject a rule,
    /// and answer alike every time, need not run again.
    stored: bool,
    /// The trees the entry stored for this rule, read instead of parsing.
    stored_trees: Option<crate::expr::stored_tree::StoredTrees<'a>>,
    /// Where the trees parsed for this rule are recorded for an entry.
    recorder: Option<crate::expr::stored_tree::TreeRecorder>,
}

impl RuleCompiler<'_> {
    fn rule(&self) -> &Rule {
        &self.loaded.rule
    }

    fn node(&self, key: &str) -> Option<&Node> {
        self.loaded.node.get(key)
    }

    fn key_span(&self, key: &str) -> Span {
        self.loaded
            .node
            .entry(key)
            .map_or(self.loaded.node.span, |e| e.key_span)
    }

    fn error(&mut self, code: &'static str, message: String, span: Span) -> &mut Diagnostic {
        self.diags
            .push(Diagnostic::error(code, message).at(&self.loaded.file, span));
        self.diags.last_mut().expect("just pushed")
    }

    fn compile(&mut self, only_hook: Option<&str>) -> Option<CompiledRule> {
        let hooks = self.hooks()?;
        let present = present_effects(self.rule());
        let mut ok = self.check_effects(&hooks, &present);
        let wanted = only_hook.is_none_or(|h| hooks.iter().any(|hp| hp.name == h));
        if !wanted {
            return None;
        }
        let loaded = self.loaded; // a copy of the reference, so `self` stays free
        let when = match &loaded.rule.when {
            Some(source) => {
                let node = self.node("when").cloned();
                match self.expression(node.as_ref(), source, 0, "when") {
                    Some(expr) => Some(Condition {
                        expr,
                        source: source.as_str().into(),
                        needs: Default::default(),
                    }),
                    None => {
                        ok = false;
                        None
                    }
                }
            }
            None => None,
        };
        let effects = self.effects(&mut ok);
        let matchers = self.matchers(&hooks, &mut ok);
        if !ok {
            return None;
        }
        let (line, _) = self.loaded.file.line_col(self.loaded.node.span.start);
        let specificity = Specificity::of(when.as_ref(), &matchers);
        let mut compiled = CompiledRule {
            id: self.rule().id.as_str().into(),
            description: self.rule().description.clone(),
            hooks: hooks.iter().map(|h| h.name).collect(),
            priority: self.rule().priority.unwrap_or(0),
            order: self.loaded.order,
            origin: format!("{}:{line}", self.loaded.file.name()).into(),
            file: self.loaded.file.clone(),
            span: self
                .loaded
                .node
                .get("id")
                .map_or(self.loaded.node.span, |n| n.span),
            reason_source: self
                .rule()
                .deny
                .clone()
                .or_else(|| self.rule().block.clone())
                .or_else(|| self.rule().ask.clone()),
            when,
            matchers,
            effects,
            specificity,
            log_only: false,
            exceptions: Vec::new(),
            shipped: self.loaded.shipped,
            trees: Vec::new(),
        };
        if let Some(overlay) = &self.loaded.overlay {
            apply_overlay(&mut compiled, overlay);
        }
        Some(compiled)
    }

    fn hooks(&mut self) -> Option<Vec<&'static HookPoint>> {
        let mut out = Vec::new();
        for name in self.rule().hook.names() {
            match catalogue::hook(name) {
                Some(h) => out.push(h),
                None => {
                    // The schema reports unknown names with their location; this
                    // only guards rules built without going through it.
                    let hint = did_you_mean(name, catalogue::hook_names());
                    let span = self.node("hook").map_or(self.loaded.node.span, |n| n.span);
                    self.error(
                        "hook::unknown",
                        format!("unknown hook point `{name}`"),
                        span,
                    )
                    .help = hint.map(|h| format!("did you mean `{h}`?"));
                    return None;
                }
            }
        }
        Some(out)
    }

    fn check_effects(&mut self, hooks: &[&'static HookPoint], present: &[EffectKind]) -> bool {
        let mut ok = true;
        for hook in hooks {
            if hook.class == HookClass::Observe {
                let span = self.node("hook").map_or(self.loaded.node.span, |n| n.span);
                self.error(
                    "hook::no-effects",
                    format!("`{}` is an observe-only hook: no rule effect applies there", hook.name),
                    span,
                )
                .help = Some("hooks with effects: pre_tool, pre_api_tools, pre_api_request, pre_agentic_loop, post_tool_batch and the permission hooks pre_shell_exec, pre_file_read, pre_file_write, pre_fetch_url".into());
                return false;
            }
        }
        if present.is_empty() {
            let valid: Vec<&str> = {
                let mut v: Vec<&str> = hooks
                    .iter()
                    .flat_map(|h| h.effects.iter().map(|e| e.key()))
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            let span = self.node("id").map_or(self.loaded.node.span, |n| n.span);
            let id = self.rule().id.clone();
            self.error(
                "rule::no-effect",
                format!("rule `{id}` has no effect"),
                span,
            )
            .help = Some(format!("give it one of: {}", valid.join(", ")));
            return false;
        }
        for effect in present {
            for hook in hooks {
                if !hook.allows(*effect) {
                    let valid = catalogue::hooks_allowing(*effect);
                    let span = self.key_span(effect.key());
                    let d = self.error(
                        "effect::wrong-hook",
                        format!("`{}` has no meaning on `{}`", effect.key(), hook.name),
                        span,
                    );
                    d.label = Some(format!("not an effect of {}", hook.name));
                    d.help = Some(if hook.effects.is_empty() {
                        format!("`{}` is valid on: {}", effect.key(), valid.join(", "))
                    } else {
                        let keys: Vec<_> = hook.effects.iter().map(|e| e.key()).collect();
                        format!(
                            "on {} use: {}; `{}` is valid on: {}",
                            hook.name,
                            keys.join(", "),
                            effect.key(),
                            valid.join(", ")
                        )
                    });
                    ok = false;
                }
            }
        }
        ok
    }
}

/// The effect keys a rule sets.
pub fn present_effects(rule: &Rule) -> Vec<EffectKind> {
    let mut out = Vec::new();
    let mut add = |present: bool, kind| {
        if present {
            out.push(kind)
        }
    };
    add(rule.deny.is_some(), EffectKind::Deny);
    add(rule.ask.is_some(), EffectKind::Ask);
    add(rule.block.is_some(), EffectKind::Block);
    add(rule.arguments.is_some(), EffectKind::Arguments);
    add(rule.tools.is_some(), EffectKind::Tools);
    add(rule.fuel_delta.is_some(), EffectKind::FuelDelta);
    add(rule.fuel.is_some(), EffectKind::Fuel);
    add(rule.fallback.is_some(), EffectKind::Fallback);
    add(rule.request.is_some(), EffectKind::Request);
    out
}
