//! The prepared form of one hook's policy: its decision tree as data, and
//! each rule's source, compiled only when the tree says it can match.
//!
//! A plugin process decides one payload and exits. Compiling every rule of
//! the hook for that (CEL, regexes, globs) made a call cost grow with rules
//! that could never match it: at 10,000 rules, 20 ms against 1 ms at 100.
//! Here the tree built at compile time is stored ready to use (which rules
//! each literal, program, host and glob leads to), and a call compiles only
//! the candidates the tree returns, each at most once.
//!
//! This module only turns a compiled hook into that form and back; where it
//! is stored, and when it may be trusted, is the cache's business
//! (src/cache.rs). Decisions are the same as from the YAML: the stored tree
//! is the one `compile` built, and a rule compiled here goes through the
//! same compiler, from the same rule mapping, with the same hook.

use super::{
    CompiledPolicy, CompiledRule, FieldIndex, GlobIndex, HookPlan, HostIndex, NeededProgramIndex,
    ProgramIndex, RuleCompiler, SubstringIndex,
};
use crate::diagnostic::SourceFile;
use crate::expr::stored_tree::StoredTrees;
use crate::load::{tree::Node, LoadedRule};
use crate::packs::compose::Overlay;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Rule lists filed under strings (values, programs, hosts), stored as
/// `[count, [key, rules], ...]` so that reading sizes the map once (growing
/// maps of a thousand keys step by step was a tenth of a 10,000-rule call).
#[derive(Debug)]
struct Filed(HashMap<String, Vec<usize>>);

impl Serialize for Filed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut pairs: Vec<_> = self.0.iter().collect();
        pairs.sort_unstable();
        let mut seq = serializer.serialize_seq(Some(pairs.len() + 1))?;
        seq.serialize_element(&pairs.len())?;
        for pair in pairs {
            seq.serialize_element(&pair)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Filed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pairs;
        impl<'de> serde::de::Visitor<'de> for Pairs {
            type Value = Filed;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a count, then [key, rules] pairs")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Filed, A::Error> {
                use serde::de::Error;
                let count: usize = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::custom("count"))?;
                // The count only sizes the map; a damaged one cannot make it huge.
                let mut map = HashMap::with_capacity(count.min(1 << 20));
                while let Some((key, rules)) = seq.next_element::<(String, Vec<usize>)>()? {
                    map.insert(key, rules);
                }
                if map.len() != count {
                    return Err(A::Error::custom("count"));
                }
                Ok(Filed(map))
            }
        }
        deserializer.deserialize_seq(Pairs)
    }
}

/// A required substring and the rules that require it.
type Literal = (String, Vec<usize>);

/// The decision tree of one hook as stored: [`HookPlan`] without its
/// automaton and glob set, which are rebuilt from the literals and patterns.
#[derive(Debug, Serialize, Deserialize)]
pub struct PlanForm {
    rule_count: usize,
    always: Vec<usize>,
    fields: Vec<(String, Filed)>,
    /// Per field, each literal with its rules, in byte order of the
    /// literals (see [`super::index::SortedLiterals`]).
    substrings: Vec<(String, Vec<Literal>)>,
    programs: Option<Filed>,
    /// The field, and the programs conditions over its commands need.
    needed_programs: Option<(String, Filed)>,
    /// Exact hosts, then domains.
    hosts: Option<(Filed, Filed)>,
    /// Each glob with its rule.
    globs: Option<Vec<(String, usize)>>,
}

impl PlanForm {
    pub fn of(plan: &HookPlan) -> PlanForm {
        PlanForm {
            rule_count: plan.rule_count,
            always: plan.always.clone(),
            fields: plan
                .indexes
                .iter()
                .map(|i| (i.field.clone(), Filed(i.by_value.clone())))
                .collect(),
            substrings: plan
                .substrings
                .iter()
                .map(|s| {
                    let mut pairs: Vec<Literal> = s
                        .literals
                        .iter()
                        .cloned()
                        .zip(s.rules.iter().cloned())
                        .collect();
                    pairs.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                    (s.field.clone(), pairs)
                })
                .collect(),
            programs: plan.programs.as_ref().map(|p| Filed(p.by_program.clone())),
            needed_programs: plan
                .needed_programs
                .as_ref()
                .map(|p| (p.field.clone(), Filed(p.by_program.clone()))),
            hosts: plan
                .hosts
                .as_ref()
                .map(|h| (Filed(h.exact.clone()), Filed(h.domains.clone()))),
            globs: plan.globs.as_ref().map(|g| {
                g.patterns
                    .iter()
                    .cloned()
                    .zip(g.owners.iter().copied())
                    .collect()
            }),
        }
    }

    /// The plan again, or `None` when a rule number is out of range (a
    /// damaged entry: the caller falls back to the YAML).
    pub fn into_plan(self, rules: usize) -> Option<HookPlan> {
        let in_range = |list: &[usize]| list.iter().all(|&i| i < rules);
        let maps_ok = |m: &Filed| m.0.values().all(|l| in_range(l));
        let ok = self.rule_count <= rules
            && in_range(&self.always)
            && self.fields.iter().all(|(_, m)| maps_ok(m))
            && self
                .substrings
                .iter()
                .all(|(_, l)| l.iter().all(|(_, r)| in_range(r)))
            && self.programs.as_ref().is_none_or(maps_ok)
            && self
                .needed_programs
                .as_ref()
                .is_none_or(|(_, m)| maps_ok(m))
            && self
                .hosts
                .as_ref()
                .is_none_or(|(a, b)| maps_ok(a) && maps_ok(b))
            && self
                .globs
                .as_ref()
                .is_none_or(|g| g.iter().all(|(_, i)| *i < rules));
        if !ok {
            return None;
        }
        let mut substrings = Vec::with_capacity(self.substrings.len());
        for (field, pairs) in self.substrings {
            let mut index = SubstringIndex::new(field);
            for (literal, rules) in pairs {
                index.literals.push(literal);
                index.rules.push(rules);
            }
            // Short texts are searched in the sorted literals; the automaton
            // is built only for the rare long one. `positions` only serves
            // `add`, which a loaded index never sees.
            index.sorted = Some(super::index::SortedLiterals::check(&index.literals)?);
            substrings.push(index);
        }
        Some(HookPlan {
            always: self.always,
            indexes: self
                .fields
                .into_iter()
                .map(|(field, by_value)| FieldIndex {
                    field,
                    by_value: by_value.0,
                })
                .collect(),
            substrings,
            programs: self.programs.map(|p| ProgramIndex { by_program: p.0 }),
            needed_programs: self.needed_programs.map(|(field, p)| NeededProgramIndex {
                field,
                by_program: p.0,
            }),
            hosts: self.hosts.map(|(exact, domains)| HostIndex {
                exact: exact.0,
                domains: domains.0,
            }),
            globs: self.globs.map(|g| {
                let (patterns, owners) = g.into_iter().unzip();
                GlobIndex {
                    patterns,
                    owners,
                    compiled: Default::default(),
                }
            }),
            rule_count: self.rule_count,
        })
    }
}

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

/// Rules of one hook kept as source, in decision order, compiled on first
/// use. `text` holds every rule's JSON (and may hold more); `spans` say where each one is.
pub struct DeferredRules {
    hook: &'static str,
    text: Vec<u8>,
    spans: Vec<(usize, usize)>,
    slots: Vec<OnceLock<Box<Result<CompiledRule, String>>>>,
}

impl std::fmt::Debug for DeferredRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredRules")
            .field("hook", &self.hook)
            .field("rules", &self.spans.len())
            .finish()
    }
}

impl DeferredRules {
    /// `spans` must lie within `text` (checked: `None` otherwise).
    pub fn new(
        hook: &'static str,
        text: Vec<u8>,
        spans: Vec<(usize, usize)>,
    ) -> Option<DeferredRules> {
        let inside = spans
            .iter()
            .all(|&(start, len)| start.checked_add(len).is_some_and(|end| end <= text.len()));
        if !inside {
            return None;
        }
        let slots = std::iter::repeat_with(OnceLock::new)
            .take(spans.len())
            .collect();
        Some(DeferredRules {
            hook,
            text,
            spans,
            slots,
        })
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Rule `index` (in decision order), compiled now if it was not yet.
    /// An error means the stored rule does not compile as it did when it
    /// was stored: the caller treats it as a rule failing at run time.
    pub fn get(&self, index: usize) -> Result<&CompiledRule, &str> {
        let slot = self.slots.get(index).ok_or("no such rule")?;
        let compiled = slot.get_or_init(|| {
            let (start, len) = self.spans[index];
            Box::new(compile_stored(&self.text[start..start + len], self.hook))
        });
        match compiled.as_ref() {
            Ok(rule) => Ok(rule),
            Err(e) => Err(e),
        }
    }

    /// The rules compiled so far.
    pub fn compiled(&self) -> impl Iterator<Item = &CompiledRule> {
        self.slots
            .iter()
            .filter_map(|s| s.get().and_then(|r| r.as_ref().as_ref().ok()))
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
    let (json, trees) = match memchr::memchr(b'\t', line) {
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
    compiled.origin = form.origin;
    // The process ends after the call: the loaded copy is not worth freeing.
    std::mem::forget(loaded);
    Ok(compiled)
}

/// A policy for one hook that compiles its rules on demand.
pub fn deferred_policy(
    hook: &'static str,
    plan: HookPlan,
    rules: DeferredRules,
    on_error: Option<crate::model::OnError>,
    log: Option<PathBuf>,
) -> CompiledPolicy {
    let mut plans = HashMap::new();
    plans.insert(hook, plan);
    CompiledPolicy {
        rules: Vec::new(),
        plans,
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
        let from_text = crate::expr::parse_fast(
            "command.startsWith('xx') && ['a', 'b'].exists(x, command.contains(x))",
        )
        .unwrap();
        let mut damaged: Vec<Vec<u8>> = vec![
            line[..tab].to_vec(),      // no trees
            line[..tab + 1].to_vec(),  // an empty record
            line[..tab + 12].to_vec(), // cut inside the `when` tree
        ];
        let mut other_version = line.clone();
        other_version[tab + 1] = 2;
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
