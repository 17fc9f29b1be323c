//! Compiling a loaded policy set: semantic checks, CEL compiled once, and a
//! decision tree per hook point.
//!
//! `policy check` compiles every rule to find every problem. A harness call
//! compiles only the rules of the hook it serves: a `pre_shell_exec` call
//! never pays for the CEL of `pre_api_request` rules.

pub mod index;
pub mod prepared;

use crate::catalogue::{self, EffectKind, HookClass, HookPoint};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::expr::template::{self, Piece, Template};
use crate::load::tree::{Node, Span, Value};
use crate::load::{scalar, LoadedRule, PolicySet};
use crate::model::{Fallback, IntOrExpr, OnError, Rule};
use cel::common::ast::IdedExpr;
use cel::Program;
use serde_json::Value as Json;
use std::collections::HashMap;

/// Text with optional `${{ }}` expressions (reasons, messages).
#[derive(Debug)]
pub enum Text {
    Literal(String),
    Parts(Vec<TextPart>),
}

#[derive(Debug)]
pub enum TextPart {
    Text(String),
    Expr(IdedExpr),
}

/// A JSON value whose strings may hold `${{ }}` expressions.
#[derive(Debug)]
pub enum ValueTemplate {
    Literal(Json),
    Expr(IdedExpr),
    Text(Text),
    Object(Vec<(String, ValueTemplate)>),
    Array(Vec<ValueTemplate>),
}

#[derive(Debug)]
pub enum IntValue {
    Literal(i64),
    Expr(IdedExpr),
}

#[derive(Debug)]
pub enum ToolPattern {
    Name(String),
    Glob(String, globset::GlobMatcher),
    Type(String),
}

impl ToolPattern {
    pub fn matches(&self, name: &str, tool_type: &str) -> bool {
        match self {
            ToolPattern::Name(n) => n == name,
            ToolPattern::Glob(_, m) => m.is_match(name),
            ToolPattern::Type(t) => t == tool_type,
        }
    }
}

#[derive(Debug)]
pub struct ToolsEffect {
    pub include: Option<Vec<ToolPattern>>,
    pub exclude: Option<Vec<ToolPattern>>,
}

#[derive(Debug, Default)]
pub struct Effects {
    pub deny: Option<Text>,
    pub ask: Option<Text>,
    pub block: Option<Text>,
    pub arguments: Option<Vec<(String, ValueTemplate)>>,
    pub tools: Option<ToolsEffect>,
    pub fuel_delta: Option<IntValue>,
    pub fuel: Option<IntValue>,
    pub fallback: Option<Fallback>,
    pub request: Option<Vec<(String, ValueTemplate)>>,
}

#[derive(Debug)]
pub struct Condition {
    pub expr: IdedExpr,
    pub source: String,
}

#[derive(Debug)]
pub struct CompiledRule {
    pub id: String,
    pub description: Option<String>,
    pub hooks: Vec<&'static str>,
    pub priority: i64,
    /// Position in the loaded set; the tie-breaker of equal priorities.
    pub order: usize,
    /// `file:line` of the rule, for explanations.
    pub origin: String,
    /// Where the rule is, for lints that speak about whole rules.
    pub file: std::sync::Arc<crate::diagnostic::SourceFile>,
    pub span: Span,
    /// The deny reason or block message as written (before interpolation).
    pub reason_source: Option<String>,
    pub when: Option<Condition>,
    /// Structured matchers (`shell:`, `url:`, `path:`, `content:`), ANDed with `when`.
    pub matchers: crate::matchers::Matchers,
    pub effects: Effects,
}

/// Rules of one field filed under the literal values they require.
#[derive(Debug, Default)]
pub struct FieldIndex {
    pub field: String,
    pub by_value: HashMap<String, Vec<usize>>,
}

/// Rules of one field filed under a substring they require.
#[derive(Debug)]
pub struct SubstringIndex {
    pub field: String,
    literals: Vec<String>,
    positions: HashMap<String, usize>,
    rules: Vec<Vec<usize>>,
    automaton: Option<aho_corasick::AhoCorasick>,
    /// For an index loaded from its prepared form: the literals are in byte
    /// order, and each has the position of the longest other literal that
    /// is a prefix of it. Short texts are then searched without building
    /// the automaton (see [`index::SortedLiterals`]).
    sorted: Option<index::SortedLiterals>,
}

impl SubstringIndex {
    fn new(field: String) -> Self {
        SubstringIndex {
            field,
            literals: Vec::new(),
            positions: HashMap::new(),
            rules: Vec::new(),
            automaton: None,
            sorted: None,
        }
    }

    fn add(&mut self, literal: &str, rule: usize) {
        match self.positions.get(literal) {
            Some(&i) => self.rules[i].push(rule),
            None => {
                self.positions
                    .insert(literal.to_string(), self.literals.len());
                self.literals.push(literal.to_string());
                self.rules.push(vec![rule]);
            }
        }
    }

    /// Patterns are short literals from conditions, so this cannot fail in
    /// practice; if it did, every rule would stay a candidate. A contiguous
    /// NFA: built in a fraction of the time of a DFA, and searched nearly
    /// as fast over a command line or a path.
    fn automaton_now(&self) -> Option<aho_corasick::AhoCorasick> {
        aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(&self.literals)
            .ok()
    }

    fn build(&mut self) {
        self.automaton = self.automaton_now();
    }
}

/// Rules with a `shell:` matcher naming programs, filed under the programs.
#[derive(Debug, Default)]
pub struct ProgramIndex {
    pub by_program: HashMap<String, Vec<usize>>,
}

/// Rules with a `url:` matcher naming hosts or domains, filed under the
/// normalised names.
#[derive(Debug, Default)]
pub struct HostIndex {
    pub exact: HashMap<String, Vec<usize>>,
    pub domains: HashMap<String, Vec<usize>>,
}

impl HostIndex {
    fn collect(&self, host: &str, out: &mut Vec<usize>) {
        let Some(host) = crate::url_class::normalize_host_text(host) else {
            return;
        };
        if let Some(rules) = self.exact.get(&host) {
            out.extend_from_slice(rules);
        }
        if let Some(rules) = self.domains.get(&host) {
            out.extend_from_slice(rules);
        }
        // Every parent domain, at label boundaries; IP addresses have none.
        if host.parse::<std::net::IpAddr>().is_err() {
            for (i, _) in host.match_indices('.') {
                if let Some(rules) = self.domains.get(&host[i + 1..]) {
                    out.extend_from_slice(rules);
                }
            }
        }
    }
}

/// Rules with a `path:` glob, all in one glob set: one pass finds every
/// rule whose globs can match. Globs depend on the project root and home,
/// known only per call, so the set is built on first use and kept for the
/// last (root, home) seen.
#[derive(Debug, Default)]
pub struct GlobIndex {
    patterns: Vec<String>,
    /// The rule of each pattern.
    owners: Vec<usize>,
    compiled: std::sync::Mutex<Option<CompiledGlobs>>,
}

/// The glob set compiled for one (root, home); `None` when none compiles.
type CompiledGlobs = (String, Option<String>, Option<crate::paths::PathGlobSet>);

impl GlobIndex {
    fn collect(&self, path: &str, root: &str, home: Option<&str>, out: &mut Vec<usize>) {
        let mut cache = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = !matches!(&*cache, Some((r, h, _)) if r == root && h.as_deref() == home);
        if fresh {
            let patterns: Vec<&str> = self.patterns.iter().map(String::as_str).collect();
            let set = crate::paths::PathGlobSet::new(&patterns, root, home).ok();
            *cache = Some((root.to_string(), home.map(str::to_string), set));
        }
        match cache.as_ref().and_then(|(_, _, set)| set.as_ref()) {
            Some(set) => out.extend(set.matches_all(path).into_iter().map(|i| self.owners[i])),
            // A glob that does not compile for this root: every rule stays a
            // candidate and reports the error itself.
            None => out.extend_from_slice(&self.owners),
        }
    }
}

/// The decision tree of one hook point: rules that always need evaluating,
/// and rules reachable only through a discriminating field's value, a
/// substring of a field, or the programs of the command line. Every list
/// holds indexes into [`CompiledPolicy::rules`], ascending.
#[derive(Debug, Default)]
pub struct HookPlan {
    pub always: Vec<usize>,
    pub indexes: Vec<FieldIndex>,
    pub substrings: Vec<SubstringIndex>,
    pub programs: Option<ProgramIndex>,
    pub hosts: Option<HostIndex>,
    pub globs: Option<GlobIndex>,
    /// How many rules apply to this hook, whichever index holds them.
    pub rule_count: usize,
}

impl HookPlan {
    /// Candidate rules for a payload, in decision order.
    ///
    /// The index only leaves out rules that cannot match. When the field an
    /// index reads is absent or not a string (a malformed payload), all of
    /// its rules stay candidates, so their conditions fail as they would
    /// without an index, and the hook's failure mode applies.
    pub fn candidates(
        &self,
        payload: &Json,
        subjects: &crate::matchers::Subjects<'_>,
    ) -> Vec<usize> {
        let mut out = self.always.clone();
        for index in &self.indexes {
            match payload.get(&index.field) {
                Some(Json::String(value)) => {
                    if let Some(rules) = index.by_value.get(value) {
                        out.extend_from_slice(rules);
                    }
                }
                _ => out.extend(index.by_value.values().flatten()),
            }
        }
        for index in &self.substrings {
            match (payload.get(&index.field), &index.automaton, &index.sorted) {
                (Some(Json::String(text)), _, Some(sorted))
                    if text.len() <= index::SortedLiterals::MAX_TEXT =>
                {
                    sorted.each_occurring(&index.literals, text.as_bytes(), |i| {
                        out.extend_from_slice(&index.rules[i])
                    });
                }
                (Some(Json::String(text)), Some(automaton), _) => {
                    for m in automaton.find_overlapping_iter(text.as_str()) {
                        out.extend_from_slice(&index.rules[m.pattern().as_usize()]);
                    }
                }
                // A long text and a loaded index: the automaton, built now.
                (Some(Json::String(text)), None, Some(_)) => match index.automaton_now() {
                    Some(automaton) => {
                        for m in automaton.find_overlapping_iter(text.as_str()) {
                            out.extend_from_slice(&index.rules[m.pattern().as_usize()]);
                        }
                    }
                    None => out.extend(index.rules.iter().flatten()),
                },
                _ => out.extend(index.rules.iter().flatten()),
            }
        }
        // Matcher indexes: when the payload has no such subject (no
        // command, URL or path), a matcher cannot match and nothing is added.
        if let Some(programs) = &self.programs {
            if let Some(analysis) = subjects.shell() {
                for command in &analysis.commands {
                    if let Some(rules) = programs.by_program.get(&command.program) {
                        out.extend_from_slice(rules);
                    }
                }
            }
        }
        if let Some(hosts) = &self.hosts {
            if let Some(info) = subjects.url() {
                hosts.collect(&info.host, &mut out);
            }
        }
        if let Some(globs) = &self.globs {
            if let Some(info) = subjects.path() {
                globs.collect(
                    &info.normalized,
                    subjects.project_root,
                    subjects.home,
                    &mut out,
                );
            }
        }
        if out.len() != self.always.len() {
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    pub fn rule_count(&self) -> usize {
        self.rule_count
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
    pub fn plan(&self, hook: &str) -> Option<&HookPlan> {
        self.plans.get(hook)
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
            Some(deferred) => deferred.compiled().find(|r| r.id == id),
            None => self.rules.iter().find(|r| r.id == id),
        }
    }

    /// The hooks at least one rule applies to, in catalogue order.
    pub fn hooks(&self) -> Vec<&'static str> {
        catalogue::hook_names()
            .filter(|h| self.plans.contains_key(h))
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
            // The plugin build has no reference parser, so it cannot lint.
            thorough: only_hook.is_none() && cfg!(feature = "reference-parser"),
        };
        if let Some(compiled) = rc.compile(only_hook) {
            rules.push(compiled);
        }
    }

    rules.sort_by_key(|r| (r.priority, r.order));
    let plans = build_plans(&rules);
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

/// Files every rule of every hook under the most selective index that
/// applies: a literal value, the programs of a shell matcher, the hosts of a
/// URL matcher, the globs of a path matcher, a required substring; rules
/// with none are evaluated for every payload.
fn build_plans(rules: &[CompiledRule]) -> HashMap<&'static str, HookPlan> {
    let mut plans: HashMap<&'static str, HookPlan> = HashMap::new();
    for (i, rule) in rules.iter().enumerate() {
        let field_use = |field: &str| {
            // Strings every hook of the rule sends (absent fields make the
            // condition an error, which must not be skipped), or may send.
            let mut result = index::FieldUse::Always;
            for h in &rule.hooks {
                let f = catalogue::hook(h).and_then(|hp| hp.field(field));
                match f {
                    Some(f) if f.ty == catalogue::Ty::Str => {
                        if f.presence == catalogue::Presence::Optional {
                            result = index::FieldUse::Optional;
                        }
                    }
                    _ => return index::FieldUse::No,
                }
            }
            result
        };
        let cond = rule.when.as_ref().map(|c| &c.expr);
        let equality = cond.and_then(|e| {
            index::discriminator(e, &|field| field_use(field) == index::FieldUse::Always)
        });
        let programs = rule
            .matchers
            .shell
            .as_ref()
            .and_then(|m| m.required_programs());
        let hosts = rule.matchers.url.as_ref().and_then(|m| m.host_keys());
        let globs = rule.matchers.path.as_ref().and_then(|m| m.required_globs());
        let substring = cond.and_then(|e| index::substring_test(e, &field_use));
        for hook in &rule.hooks {
            let plan = plans.entry(hook).or_default();
            plan.rule_count += 1;
            if let Some(d) = &equality {
                let pos = match plan.indexes.iter().position(|x| x.field == d.field) {
                    Some(pos) => pos,
                    None => {
                        plan.indexes.push(FieldIndex {
                            field: d.field.clone(),
                            by_value: HashMap::new(),
                        });
                        plan.indexes.len() - 1
                    }
                };
                for v in &d.values {
                    let list = plan.indexes[pos].by_value.entry(v.clone()).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            } else if let Some(names) = programs {
                let index = plan.programs.get_or_insert_with(ProgramIndex::default);
                for name in names {
                    let list = index.by_program.entry(name.clone()).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            } else if let Some(keys) = &hosts {
                let index = plan.hosts.get_or_insert_with(HostIndex::default);
                let (map, names) = match keys {
                    crate::matchers::HostKeys::Exact(n) => (&mut index.exact, n),
                    crate::matchers::HostKeys::Domains(n) => (&mut index.domains, n),
                };
                for name in names {
                    let list = map.entry(name.clone()).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            } else if let Some(patterns) = globs {
                let index = plan.globs.get_or_insert_with(GlobIndex::default);
                for p in patterns {
                    index.patterns.push(p.clone());
                    index.owners.push(i);
                }
            } else if let Some(t) = &substring {
                let pos = match plan.substrings.iter().position(|x| x.field == t.field) {
                    Some(pos) => pos,
                    None => {
                        plan.substrings.push(SubstringIndex::new(t.field.clone()));
                        plan.substrings.len() - 1
                    }
                };
                plan.substrings[pos].add(&t.literal, i);
            } else {
                plan.always.push(i);
            }
        }
    }
    for plan in plans.values_mut() {
        for index in &mut plan.substrings {
            index.build();
        }
    }
    plans
}

struct RuleCompiler<'a> {
    loaded: &'a LoadedRule,
    diags: &'a mut Vec<Diagnostic>,
    /// Lint-only checks (regex literals) are skipped when serving one hook:
    /// a bad pattern still fails closed when evaluated.
    thorough: bool,
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
                        source: source.clone(),
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
        Some(CompiledRule {
            id: self.rule().id.clone(),
            description: self.rule().description.clone(),
            hooks: hooks.iter().map(|h| h.name).collect(),
            priority: self.rule().priority.unwrap_or(0),
            order: self.loaded.order,
            origin: format!("{}:{line}", self.loaded.file.name()),
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
        })
    }

    fn matchers(
        &mut self,
        hooks: &[&'static HookPoint],
        ok: &mut bool,
    ) -> crate::matchers::Matchers {
        use crate::catalogue::Subject;
        use crate::matchers as m;
        let rule = self.rule().clone();
        let mut out = m::Matchers::default();
        let present = [
            (Subject::Command, rule.shell.is_some()),
            (Subject::Url, rule.url.is_some()),
            (Subject::Path, rule.path.is_some()),
            (Subject::Content, rule.content.is_some()),
        ];
        for (subject, is_present) in present {
            if !is_present {
                continue;
            }
            for hook in hooks {
                if catalogue::subject_field(hook.name, subject).is_none() {
                    let span = self.key_span(subject.key());
                    let valid = catalogue::hooks_with(subject);
                    let d = self.error(
                        "match::wrong-hook",
                        format!(
                            "`{}` has nothing to match on `{}`",
                            subject.key(),
                            hook.name
                        ),
                        span,
                    );
                    d.help = Some(format!(
                        "`{}` applies on: {}",
                        subject.key(),
                        valid.join(", ")
                    ));
                    *ok = false;
                }
            }
        }
        let mut report = |this: &mut Self, top: &str, e: m::MatcherError| {
            let node = match e.index {
                Some(i) => this.node_at(&[top, e.key]).and_then(|n| match &n.value {
                    Value::Seq(items) => items.get(i).cloned(),
                    _ => Some(n.clone()),
                }),
                None => this.node_at(&[top, e.key]).cloned(),
            };
            let span = node.map_or_else(|| this.key_span(top), |n| n.span);
            this.error("match::invalid", e.message, span);
            *ok = false;
        };
        if let Some(s) = &rule.shell {
            match m::compile_shell(s) {
                Ok(x) => out.shell = Some(x),
                Err(e) => report(self, "shell", e),
            }
        }
        if let Some(u) = &rule.url {
            match m::compile_url(u) {
                Ok(x) => out.url = Some(x),
                Err(e) => report(self, "url", e),
            }
        }
        if let Some(p) = &rule.path {
            match m::compile_path(p) {
                Ok(x) => out.path = Some(x),
                Err(e) => report(self, "path", e),
            }
        }
        if let Some(c) = &rule.content {
            match m::compile_content(c) {
                Ok(x) => out.content = Some(x),
                Err(e) => report(self, "content", e),
            }
        }
        if self.thorough && *ok {
            self.lint_dead_patterns(&rule);
        }
        out
    }

    /// Warns about regexes and globs that compile but can never match.
    fn lint_dead_patterns(&mut self, rule: &crate::model::Rule) {
        use crate::check::never_match::{glob_never_matches, regex_never_matches};
        let mut found: Vec<(&str, &str, Option<usize>, String, &str)> = Vec::new();
        if let Some(arg) = rule.shell.as_ref().and_then(|s| s.arg.as_deref()) {
            if let Some(why) = regex_never_matches(arg) {
                found.push(("shell", "arg", None, why, "regex"));
            }
        }
        if let Some(re) = rule.url.as_ref().and_then(|u| u.path_regex.as_deref()) {
            if let Some(why) = regex_never_matches(re) {
                found.push(("url", "path_regex", None, why, "regex"));
            }
        }
        if let Some(c) = &rule.content {
            let many = matches!(c.regex, crate::model::StringList::Many(_));
            for (i, re) in c.regex.items().iter().enumerate() {
                if let Some(why) = regex_never_matches(re) {
                    found.push(("content", "regex", many.then_some(i), why, "regex"));
                }
            }
        }
        if let Some(globs) = rule.path.as_ref().and_then(|p| p.glob.as_ref()) {
            let many = matches!(globs, crate::model::StringList::Many(_));
            for (i, g) in globs.items().iter().enumerate() {
                if let Some(why) = glob_never_matches(g) {
                    found.push(("path", "glob", many.then_some(i), why, "glob"));
                }
            }
        }
        for (top, key, index, why, what) in found {
            let node = match index {
                Some(i) => self.node_at(&[top, key]).and_then(|n| match &n.value {
                    Value::Seq(items) => items.get(i).cloned(),
                    _ => Some(n.clone()),
                }),
                None => self.node_at(&[top, key]).cloned(),
            };
            let span = node.map_or_else(|| self.key_span(top), |n| n.span);
            let d = Diagnostic::warning(
                "lint::never-matches",
                format!("this {what} can never match, so the rule never applies: {why}"),
            )
            .at(&self.loaded.file, span)
            .label(format!("dead {what}"))
            .help(if what == "glob" {
                "fix the pattern; a rule that never applies guards nothing"
            } else {
                "fix the pattern (anchors: `^` start, `$` end); a rule that never applies guards nothing"
            });
            self.diags.push(d);
        }
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

    fn effects(&mut self, ok: &mut bool) -> Effects {
        let rule = self.rule().clone();
        let mut effects = Effects {
            fallback: rule.fallback,
            ..Effects::default()
        };
        if let Some(reason) = &rule.deny {
            if reason.trim().is_empty() {
                let span = self.node("deny").map_or(self.loaded.node.span, |n| n.span);
                let d = Diagnostic::warning("rule::empty-reason", "the deny reason is empty")
                    .at(&self.loaded.file, span)
                    .help(
                        "the model and the user see this reason; say what is not allowed and why",
                    );
                self.diags.push(d);
            }
            effects.deny = self.text(reason, &["deny"], ok);
        }
        if let Some(reason) = &rule.ask {
            effects.ask = self.text(reason, &["ask"], ok);
        }
        if let Some(message) = &rule.block {
            effects.block = self.text(message, &["block"], ok);
        }
        if let Some(map) = &rule.arguments {
            effects.arguments = Some(self.object(map, &["arguments"], ok));
        }
        if let Some(map) = &rule.request {
            effects.request = Some(self.object(map, &["request"], ok));
        }
        if let Some(tools) = &rule.tools {
            effects.tools = self.tools(tools, ok);
        }
        effects.fuel_delta = rule
            .fuel_delta
            .as_ref()
            .and_then(|v| self.int(v, "fuel_delta", ok));
        effects.fuel = rule.fuel.as_ref().and_then(|v| self.int(v, "fuel", ok));
        effects
    }

    fn node_at(&self, path: &[&str]) -> Option<&Node> {
        let mut node = &self.loaded.node;
        for key in path {
            node = node.get(key)?;
        }
        Some(node)
    }

    fn text(&mut self, text: &str, path: &[&str], ok: &mut bool) -> Option<Text> {
        let node = self.node_at(path).cloned();
        match template::parse(text) {
            Ok(Template::Literal) => Some(Text::Literal(text.to_string())),
            Ok(Template::Whole {
                source,
                char_offset,
            }) => {
                let program = self.template_expr(node.as_ref(), source, char_offset, path, ok)?;
                Some(Text::Parts(vec![TextPart::Expr(program)]))
            }
            Ok(Template::Interpolated(pieces)) => {
                let mut parts = Vec::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => parts.push(TextPart::Text(t.to_string())),
                        Piece::Expr {
                            source,
                            char_offset,
                        } => {
                            let program =
                                self.template_expr(node.as_ref(), source, char_offset, path, ok)?;
                            parts.push(TextPart::Expr(program));
                        }
                    }
                }
                Some(Text::Parts(parts))
            }
            Err(e) => {
                self.cel_error(
                    node.as_ref(),
                    e.char_offset,
                    "`${{` is not closed by `}}`",
                    &path.join("."),
                );
                *ok = false;
                None
            }
        }
    }

    fn template_expr(
        &mut self,
        node: Option<&Node>,
        source: &str,
        offset: usize,
        path: &[&str],
        ok: &mut bool,
    ) -> Option<IdedExpr> {
        let found = self.expression(node, source, offset, &path.join("."));
        if found.is_none() {
            *ok = false;
        }
        found
    }

    /// Compiles one expression found at `offset` inside `node`'s string.
    /// Linting (`thorough`) uses the reference parser, whose positions place
    /// carets; serving a hook uses the fast one.
    fn expression(
        &mut self,
        node: Option<&Node>,
        source: &str,
        offset: usize,
        key: &str,
    ) -> Option<IdedExpr> {
        if !self.thorough {
            return match crate::expr::parse_fast(source) {
                Ok(expr) => Some(expr),
                Err(e) => {
                    self.cel_error(node, offset + e.char_offset, &e.message, key);
                    None
                }
            };
        }
        match crate::expr::compile(source) {
            Ok(program) => {
                let regexes_ok = self.check_regexes(&program, node, offset, key);
                let types_ok = self.check_types(&program, node, offset, key);
                if !(regexes_ok && types_ok) {
                    return None;
                }
                Some(program.expression().clone())
            }
            Err(e) => {
                self.cel_error(node, offset + e.char_offset, &e.message, key);
                None
            }
        }
    }

    fn value(&mut self, value: &Json, path: &[&str], ok: &mut bool) -> ValueTemplate {
        match value {
            Json::String(s) => {
                let node = self.node_at(path).cloned();
                match template::parse(s) {
                    Ok(Template::Literal) => ValueTemplate::Literal(value.clone()),
                    Ok(Template::Whole {
                        source,
                        char_offset,
                    }) => match self.template_expr(node.as_ref(), source, char_offset, path, ok) {
                        Some(p) => ValueTemplate::Expr(p),
                        None => ValueTemplate::Literal(Json::Null),
                    },
                    _ => match self.text(s, path, ok) {
                        Some(t) => ValueTemplate::Text(t),
                        None => ValueTemplate::Literal(Json::Null),
                    },
                }
            }
            Json::Object(map) => ValueTemplate::Object(self.object(map, path, ok)),
            Json::Array(items) => {
                // Array elements are addressed by index in the tree only roughly;
                // errors inside them point at the array.
                ValueTemplate::Array(items.iter().map(|v| self.value(v, path, ok)).collect())
            }
            other => ValueTemplate::Literal(other.clone()),
        }
    }

    fn object(
        &mut self,
        map: &serde_json::Map<String, Json>,
        path: &[&str],
        ok: &mut bool,
    ) -> Vec<(String, ValueTemplate)> {
        map.iter()
            .map(|(k, v)| {
                let mut p: Vec<&str> = path.to_vec();
                p.push(k);
                (k.clone(), self.value(v, &p, ok))
            })
            .collect()
    }

    fn int(&mut self, value: &IntOrExpr, key: &str, ok: &mut bool) -> Option<IntValue> {
        match value {
            IntOrExpr::Int(i) => Some(IntValue::Literal(*i)),
            IntOrExpr::Expr(text) => {
                let node = self.node(key).cloned();
                match template::parse(text) {
                    Ok(Template::Whole {
                        source,
                        char_offset,
                    }) => self
                        .template_expr(node.as_ref(), source, char_offset, &[key], ok)
                        .map(IntValue::Expr),
                    _ => {
                        let span = node.map_or(self.loaded.node.span, |n| n.span);
                        self.error(
                            "schema::value",
                            format!("`{key}` must be an integer or one `${{{{ expr }}}}`"),
                            span,
                        );
                        *ok = false;
                        None
                    }
                }
            }
        }
    }

    fn tools(&mut self, tools: &crate::model::ToolFilter, ok: &mut bool) -> Option<ToolsEffect> {
        if tools.include.is_none() && tools.exclude.is_none() {
            let span = self.key_span("tools");
            self.error(
                "rule::empty-tools",
                "`tools` needs `include` or `exclude`".into(),
                span,
            );
            *ok = false;
            return None;
        }
        let include = tools
            .include
            .as_ref()
            .map(|l| self.patterns(l, "include", ok));
        let exclude = tools
            .exclude
            .as_ref()
            .map(|l| self.patterns(l, "exclude", ok));
        Some(ToolsEffect { include, exclude })
    }

    fn patterns(&mut self, list: &[String], key: &str, ok: &mut bool) -> Vec<ToolPattern> {
        let items: Vec<Node> = match self.node_at(&["tools", key]).map(|n| &n.value) {
            Some(Value::Seq(items)) => items.clone(),
            _ => Vec::new(),
        };
        let mut out = Vec::new();
        for (i, pattern) in list.iter().enumerate() {
            let span = items.get(i).map_or(self.loaded.node.span, |n| n.span);
            let unknown = if !self.thorough {
                None
            } else if let Some(t) = pattern.strip_prefix("type:") {
                crate::check::tool_names::unknown_type(t)
            } else if pattern.contains(['*', '?', '[', '{']) {
                None
            } else {
                crate::check::tool_names::unknown_name(pattern)
            };
            if let Some((message, help)) = unknown {
                self.diags.push(
                    Diagnostic::warning("lint::unknown-tool", message)
                        .at(&self.loaded.file, span)
                        .label(format!("in `tools.{key}`"))
                        .help(help),
                );
            }
            if let Some(t) = pattern.strip_prefix("type:") {
                out.push(ToolPattern::Type(t.to_string()));
            } else if pattern.contains(['*', '?', '[', '{']) {
                match globset::GlobBuilder::new(pattern)
                    .literal_separator(true)
                    .build()
                {
                    Ok(g) => out.push(ToolPattern::Glob(pattern.clone(), g.compile_matcher())),
                    Err(e) => {
                        self.error(
                            "glob::invalid",
                            format!("invalid glob `{pattern}`: {}", e.kind()),
                            span,
                        )
                        .help = Some(
                            "globs use * ? [abc] {a,b}; write `type:NAME` to match a tool type"
                                .into(),
                        );
                        *ok = false;
                    }
                }
            } else {
                out.push(ToolPattern::Name(pattern.clone()));
            }
        }
        out
    }

    /// Compiles every regex literal given to `matches`, so a bad pattern is
    /// found by `policy check` and not by an agent at run time.
    fn check_regexes(
        &mut self,
        program: &Program,
        node: Option<&Node>,
        base: usize,
        key: &str,
    ) -> bool {
        let mut ok = true;
        if !self.thorough {
            return ok;
        }
        for (literal, pattern) in crate::expr::ast::regex_literals(program.expression()) {
            let compiled = regex::Regex::new(pattern);
            if let (Ok(_), Some(why)) = (
                &compiled,
                crate::check::never_match::regex_never_matches(pattern),
            ) {
                let offset = program
                    .source_info()
                    .offset_for(literal.id)
                    .map_or(0, |(start, _)| start as usize);
                let file = self.loaded.file.clone();
                let span = match node {
                    Some(n) => {
                        let at = scalar::locate(&file.text, n.span, base + offset);
                        Span::new(at, next_char_len(&file.text, at))
                    }
                    None => self.loaded.node.span,
                };
                self.diags.push(
                    Diagnostic::warning(
                        "lint::never-matches",
                        format!("this regex in `{key}` can never match: {why}"),
                    )
                    .at(&file, span)
                    .label("this pattern")
                    .help("fix the pattern (anchors: `^` start, `$` end); a test that can never be true guards nothing"),
                );
            }
            if let Err(e) = compiled {
                let offset = program
                    .source_info()
                    .offset_for(literal.id)
                    .map_or(0, |(start, _)| start as usize);
                let file = self.loaded.file.clone();
                let span = match node {
                    Some(n) => {
                        let at = scalar::locate(&file.text, n.span, base + offset);
                        Span::new(at, next_char_len(&file.text, at))
                    }
                    None => self.loaded.node.span,
                };
                let detail = e.to_string();
                let last = detail
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("invalid")
                    .trim()
                    .to_string();
                self.diags.push(
                    Diagnostic::error("regex::invalid", format!("invalid regex in `{key}`: {last}"))
                        .at(&file, span)
                        .label("this pattern")
                        .help("patterns use RE2 syntax (the regex crate); inside a YAML single-quoted string, a backslash is written once"),
                );
                ok = false;
            }
        }
        ok
    }

    /// Type-checks an expression against the payloads of the rule's hooks.
    fn check_types(
        &mut self,
        program: &Program,
        node: Option<&Node>,
        base: usize,
        key: &str,
    ) -> bool {
        let hooks: Vec<&'static HookPoint> = self
            .loaded
            .rule
            .hook
            .names()
            .iter()
            .filter_map(|n| catalogue::hook(n))
            .collect();
        if hooks.is_empty() {
            return true;
        }
        // A matcher only matches when its subject is there: those fields need no guard.
        let rule = &self.loaded.rule;
        let mut present = Vec::new();
        for (subject, is_present) in [
            (catalogue::Subject::Command, rule.shell.is_some()),
            (catalogue::Subject::Url, rule.url.is_some()),
            (catalogue::Subject::Path, rule.path.is_some()),
            (catalogue::Subject::Content, rule.content.is_some()),
        ] {
            if is_present {
                for h in &hooks {
                    if let Some([field]) = catalogue::subject_field(h.name, subject) {
                        present.push(*field);
                    }
                }
            }
        }
        let scope = crate::check::types::Scope::new(hooks).with_present(present);
        let problems = crate::check::types::check(
            program.expression(),
            &scope,
            match key {
                "when" => crate::check::types::Want::Bool,
                "fuel" | "fuel_delta" => crate::check::types::Want::Int,
                _ => crate::check::types::Want::Any,
            },
        );
        let mut ok = true;
        for p in problems {
            let (start, stop) = program
                .source_info()
                .offset_for(p.node_id)
                .map_or((0, 0), |(a, b)| (a as usize, b as usize));
            let file = self.loaded.file.clone();
            let span = match node {
                Some(n) => {
                    let at = scalar::locate(&file.text, n.span, base + start);
                    // Underline the whole node when it sits on one line.
                    let end = scalar::locate(&file.text, n.span, base + stop.max(start)); // `stop` is inclusive
                    let len = end + next_char_len(&file.text, end) - at;
                    let one_line = end >= at && !file.text[at..end].contains('\n');
                    Span::new(
                        at,
                        if one_line {
                            len
                        } else {
                            next_char_len(&file.text, at)
                        },
                    )
                }
                None => self.loaded.node.span,
            };
            let d = if p.warning {
                Diagnostic::warning(p.code, format!("in `{key}`: {}", p.message))
            } else {
                ok = false;
                Diagnostic::error(p.code, format!("in `{key}`: {}", p.message))
            };
            self.diags.push(d.at(&file, span).help_opt(p.help));
        }
        ok
    }

    /// Reports a CEL problem at its column inside the YAML string.
    fn cel_error(&mut self, node: Option<&Node>, char_offset: usize, message: &str, key: &str) {
        let file = self.loaded.file.clone();
        let span = match node {
            Some(n) => {
                let at = scalar::locate(&file.text, n.span, char_offset);
                Span::new(at, next_char_len(&file.text, at))
            }
            None => self.loaded.node.span,
        };
        let help = if key == "when" {
            "conditions are CEL: compare with ==, combine with && and ||, call methods like command.contains(\"x\"); quote the whole condition in YAML"
        } else {
            "CEL inside effect values is written ${{ expr }}"
        };
        self.diags.push(
            Diagnostic::error("cel::syntax", format!("invalid CEL in `{key}`: {message}"))
                .at(&file, span)
                .label(short_label(message))
                .help(help),
        );
    }
}

fn short_label(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message);
    if first.chars().count() > 60 {
        "here".into()
    } else {
        first.to_string()
    }
}

fn next_char_len(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|s| s.chars().next())
        .map_or(0, char::len_utf8)
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
