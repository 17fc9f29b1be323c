//! The decision tree of each hook point: compiled rules filed under the most
//! selective index that applies (a literal value, a required substring, the
//! programs of a shell matcher, the hosts of a URL matcher, the globs of a
//! path matcher), so a payload is tested only against rules that can match.

use super::{index, CompiledRule};
use crate::catalogue;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Rules filed under a string: a program, a word, a value, a host. A warm
/// shell decision looks a dozen words of the line up in these; std's
/// SipHash cost about 180 instructions a lookup there. Its defence, against
/// a flood of keys that collide, is not needed: the keys are the policy's,
/// fixed when it is compiled, and a lookup adds none.
pub type RulesByKey = HashMap<String, Vec<usize>, BuildHasherDefault<KeyHasher>>;

/// A multiply-rotate hash, eight bytes at a time (the Fx hash rustc uses
/// for its own tables).
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length keeps `a` and `a\0` apart.
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Rules of one field filed under the literal values they require.
#[derive(Debug, Default)]
pub struct FieldIndex {
    pub field: String,
    pub by_value: RulesByKey,
}

/// Rules of one field filed under a substring they require.
#[derive(Debug)]
pub struct SubstringIndex {
    pub field: String,
    pub(super) literals: Vec<String>,
    positions: HashMap<String, usize>,
    pub(super) rules: Vec<Vec<usize>>,
    automaton: Option<aho_corasick::AhoCorasick>,
}

impl SubstringIndex {
    pub(super) fn new(field: String) -> Self {
        SubstringIndex {
            field,
            literals: Vec::new(),
            positions: HashMap::new(),
            rules: Vec::new(),
            automaton: None,
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
    fn build(&mut self) {
        self.automaton = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(&self.literals)
            .ok();
    }
}

/// Rules with a `shell:` matcher naming programs, filed under the programs,
/// or when its `arg:` names whole words, under [`word_key`]s of the
/// programs and the words in `with_word`.
#[derive(Debug, Default)]
pub struct ProgramIndex {
    pub by_program: RulesByKey,
    pub with_word: RulesByKey,
}

/// Appends the rules filed under `command`'s program and its arguments.
fn collect_by_command(
    by_program: &RulesByKey,
    with_word: &RulesByKey,
    command: &crate::shell::SimpleCommand,
    out: &mut Vec<usize>,
) {
    if let Some(rules) = by_program.get(&command.program) {
        out.extend_from_slice(rules);
    }
    if !with_word.is_empty() {
        // One key buffer for all the arguments: a `format!` per argument
        // cost a warm decision 500-1,000 instructions a command.
        let mut key = String::new();
        for arg in &command.args {
            word_key_into(&mut key, &command.program, arg);
            if let Some(rules) = with_word.get(&key) {
                out.extend_from_slice(rules);
            }
        }
    }
}

/// Rules whose condition needs a command of the line to run one of some
/// programs (`command.shellCommands().exists(c, c.program in [...] && ...)`,
/// see [`index::needs`]), filed under the programs. `field` is the payload
/// field the hook's shell analysis reads. Rules that also need the command
/// to have an operand (an argument not starting with `-`) are filed in
/// `with_operand` (`tail -20` does not make a rule over the files `tail`
/// reads a candidate), those that need one argument in `with_word`
/// (`git status` does not make a rule on `git reset` one).
#[derive(Debug, Default)]
pub struct NeededProgramIndex {
    pub field: String,
    pub by_program: RulesByKey,
    pub with_operand: RulesByKey,
    /// Rules that need the command to have one argument, filed under
    /// [`word_key`] of the program and the argument.
    pub with_word: RulesByKey,
    /// Rules that need some command, whatever its program, to have one
    /// argument ([`index::Need::Word`]), filed under the argument.
    pub any_program_word: RulesByKey,
}

impl NeededProgramIndex {
    /// Appends the rules filed under one command of an analysed line.
    fn collect(&self, command: &crate::shell::SimpleCommand, out: &mut Vec<usize>) {
        collect_by_command(&self.by_program, &self.with_word, command, out);
        if has_operand(command) {
            if let Some(rules) = self.with_operand.get(&command.program) {
                out.extend_from_slice(rules);
            }
        }
        if !self.any_program_word.is_empty() {
            for arg in &command.args {
                if let Some(rules) = self.any_program_word.get(arg.as_str()) {
                    out.extend_from_slice(rules);
                }
            }
        }
    }

    /// Every rule filed here, for a line it cannot read.
    fn all(&self, out: &mut Vec<usize>) {
        out.extend(self.by_program.values().flatten());
        out.extend(self.with_operand.values().flatten());
        out.extend(self.with_word.values().flatten());
        out.extend(self.any_program_word.values().flatten());
    }
}

/// The key of a program and one of its arguments in
/// [`NeededProgramIndex::with_word`]. Names holding NUL could make two
/// pairs one key: that only adds a candidate, never loses one.
pub fn word_key(program: &str, word: &str) -> String {
    let mut key = String::new();
    word_key_into(&mut key, program, word);
    key
}

/// [`word_key`], written into `key` (cleared first).
fn word_key_into(key: &mut String, program: &str, word: &str) {
    key.clear();
    key.reserve(program.len() + 1 + word.len());
    key.push_str(program);
    key.push('\0');
    key.push_str(word);
}

/// Whether a command of the analysed line has an operand, as the index of
/// needed programs reads it (the same list as the command's `args` in CEL).
pub fn has_operand(command: &crate::shell::SimpleCommand) -> bool {
    command.args.iter().any(|a| !a.starts_with('-'))
}

/// Rules with a `url:` matcher naming hosts or domains, filed under the
/// normalised names.
#[derive(Debug, Default)]
pub struct HostIndex {
    pub exact: RulesByKey,
    pub domains: RulesByKey,
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
    pub(super) patterns: Vec<String>,
    /// The rule of each pattern.
    pub(super) owners: Vec<usize>,
    pub(super) compiled: crate::paths::GlobSetCache,
}

impl GlobIndex {
    pub(super) fn collect(&self, path: &str, root: &str, home: Option<&str>, out: &mut Vec<usize>) {
        let patterns: Vec<&str> = self.patterns.iter().map(String::as_str).collect();
        self.compiled
            .with(&patterns, root, home, path, |set| match set {
                Ok(set) => out.extend(set.matches_all(path).into_iter().map(|i| self.owners[i])),
                // A glob that does not compile for this root: every rule stays a
                // candidate and reports the error itself.
                Err(_) => out.extend_from_slice(&self.owners),
            });
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
    pub needed_programs: Option<NeededProgramIndex>,
    pub hosts: Option<HostIndex>,
    pub globs: Option<GlobIndex>,
    /// Rules candidates only on lines their `shell:` matcher can match.
    pub gated: Vec<(crate::matchers::LineGate, Vec<usize>)>,
    /// Rules, however filed, left out of a line none of whose arguments
    /// holds one of the characters (see [`crate::matchers::ArgBytes`]).
    pub arg_bytes: Vec<(crate::matchers::ArgBytes, Vec<usize>)>,
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
            match (payload.get(&index.field), &index.automaton) {
                (Some(Json::String(text)), Some(automaton)) => {
                    for m in automaton.find_overlapping_iter(text.as_str()) {
                        out.extend_from_slice(&index.rules[m.pattern().as_usize()]);
                    }
                }
                _ => out.extend(index.rules.iter().flatten()),
            }
        }
        // Matcher indexes: when the payload has no such subject (no
        // command, URL or path), a matcher cannot match and nothing is added.
        if let Some(programs) = &self.programs {
            if let Some(analysis) = subjects.shell() {
                if analysis.unanalysed().is_some() {
                    // Part of the line was never looked at: any program may
                    // be in it, so every rule stays to say it cannot tell.
                    out.extend(programs.by_program.values().flatten());
                    out.extend(programs.with_word.values().flatten());
                } else {
                    for command in &analysis.commands {
                        collect_by_command(
                            &programs.by_program,
                            &programs.with_word,
                            command,
                            &mut out,
                        );
                    }
                }
            }
        }
        // Conditions over the analysed commands: when the field is not a
        // string the conditions fail, so every such rule stays a candidate.
        if let Some(index) = &self.needed_programs {
            match (payload.get(&index.field), subjects.shell()) {
                // A line not analysed whole: a rule filed here may also
                // have a `shell:` matcher, which then fails (an error, not
                // a no), so every rule stays a candidate.
                (Some(Json::String(_)), Some(analysis)) if analysis.unanalysed().is_none() => {
                    for command in &analysis.commands {
                        index.collect(command, &mut out);
                    }
                }
                _ => index.all(&mut out),
            }
        }
        if !self.gated.is_empty() {
            if let Some(analysis) = subjects.shell() {
                for (gate, rules) in &self.gated {
                    if gate.admits(analysis) {
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
        if let Some(analysis) = subjects.shell() {
            for (bytes, rules) in &self.arg_bytes {
                if !bytes.admits(analysis) {
                    out.retain(|r| rules.binary_search(r).is_err());
                }
            }
        }
        out
    }

    pub fn rule_count(&self) -> usize {
        self.rule_count
    }
}

/// Whether a rule with both a `shell:` matcher naming `programs` and a
/// condition with `needs` is better filed under the needs: when they are
/// rarer (a need of a program with an operand counts half: `tail -20`
/// has none, and so does one of an argument to any program; one with a
/// given program and argument nothing), and when leaving the rule out on its condition alone hides
/// no error of the matcher. The matcher's only error must be the one of a
/// line not analysed whole, where the index of needs keeps every rule.
fn needs_beat_programs(
    needs: &[index::Need],
    programs: &[String],
    matchers: &crate::matchers::Matchers,
) -> bool {
    let only_shell =
        matchers.url.is_none() && matchers.path.is_none() && matchers.content.is_none();
    let safe = only_shell
        && matchers
            .shell
            .as_ref()
            .is_some_and(|m| m.fails_only_when_unanalysed());
    let weight: usize = needs
        .iter()
        .map(|n| match n {
            index::Need::Program {
                args: index::ArgNeed::Word(_),
                ..
            } => 0,
            index::Need::Program {
                args: index::ArgNeed::Operand,
                ..
            }
            | index::Need::Word { .. } => 1,
            _ => 2,
        })
        .sum();
    safe && weight < 2 * programs.len()
}

/// Files every rule of every hook under the most selective index that
/// applies: a literal value, the programs of a shell matcher, the hosts of a
/// URL matcher, the globs of a path matcher, a required substring; rules
/// with none are evaluated for every payload.
pub(super) fn build_plans(rules: &[CompiledRule]) -> HashMap<&'static str, HookPlan> {
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
        // The field every hook of the rule analyses as its shell line, if
        // it is one top-level field (see `index::needs`).
        let shell_field = rule
            .hooks
            .iter()
            .map(
                |h| match catalogue::subject_field(h, catalogue::Subject::Command) {
                    Some([field]) => Some(*field),
                    _ => None,
                },
            )
            .reduce(|a, b| if a == b { a } else { None })
            .flatten();
        // A matcher naming whole words of its arguments is keyed by them.
        let words = programs.and_then(|_| rule.matchers.shell.as_ref()?.required_words());
        let needs = match (&equality, &hosts, globs, &substring) {
            (None, None, None, None) => cond
                .and_then(|e| index::needs(e, &field_use, shell_field))
                .filter(|needs| match programs {
                    None => true,
                    Some(names) => {
                        words.is_none() && needs_beat_programs(needs, names, &rule.matchers)
                    }
                }),
            _ => None,
        };
        // Filed under its condition's needs, a rule is not under its
        // matcher's programs.
        let programs = programs.filter(|_| needs.is_none());
        let gate = rule.matchers.shell.as_ref().and_then(|m| m.gate());
        let arg_bytes = rule
            .matchers
            .shell
            .as_ref()
            .and_then(|m| m.required_arg_bytes());
        for hook in &rule.hooks {
            let plan = plans.entry(hook).or_default();
            plan.rule_count += 1;
            if let Some(bytes) = arg_bytes {
                match plan.arg_bytes.iter_mut().find(|(b, _)| *b == bytes) {
                    Some((_, rules)) => rules.push(i),
                    None => plan.arg_bytes.push((bytes, vec![i])),
                }
            }
            if let Some(d) = &equality {
                let pos = match plan.indexes.iter().position(|x| x.field == d.field) {
                    Some(pos) => pos,
                    None => {
                        plan.indexes.push(FieldIndex {
                            field: d.field.clone(),
                            by_value: RulesByKey::default(),
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
                    match &words {
                        Some(words) => {
                            for word in words {
                                let list = index.with_word.entry(word_key(name, word)).or_default();
                                if list.last() != Some(&i) {
                                    list.push(i);
                                }
                            }
                        }
                        None => {
                            let list = index.by_program.entry(name.clone()).or_default();
                            if list.last() != Some(&i) {
                                list.push(i);
                            }
                        }
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
            } else if let Some(needs) = &needs {
                for need in needs {
                    match need {
                        index::Need::Substring { field, literal } => {
                            let pos = match plan.substrings.iter().position(|x| &x.field == field) {
                                Some(pos) => pos,
                                None => {
                                    plan.substrings.push(SubstringIndex::new(field.clone()));
                                    plan.substrings.len() - 1
                                }
                            };
                            plan.substrings[pos].add(literal, i);
                        }
                        index::Need::Program { field, .. } | index::Need::Word { field, .. } => {
                            let index =
                                plan.needed_programs
                                    .get_or_insert_with(|| NeededProgramIndex {
                                        field: field.clone(),
                                        ..Default::default()
                                    });
                            // One field per hook (its shell line); were it
                            // another, the rule is simply always a candidate.
                            if &index.field != field {
                                if plan.always.last() != Some(&i) {
                                    plan.always.push(i);
                                }
                                continue;
                            }
                            let (map, key) = match need {
                                index::Need::Program {
                                    program,
                                    args: index::ArgNeed::Any,
                                    ..
                                } => (&mut index.by_program, program.clone()),
                                index::Need::Program {
                                    program,
                                    args: index::ArgNeed::Operand,
                                    ..
                                } => (&mut index.with_operand, program.clone()),
                                index::Need::Program {
                                    program,
                                    args: index::ArgNeed::Word(word),
                                    ..
                                } => (&mut index.with_word, word_key(program, word)),
                                index::Need::Word { word, .. } => {
                                    (&mut index.any_program_word, word.clone())
                                }
                                index::Need::Substring { .. } => continue,
                            };
                            let list = map.entry(key).or_default();
                            if list.last() != Some(&i) {
                                list.push(i);
                            }
                        }
                    }
                }
            } else if let Some(gate) = gate {
                match plan.gated.iter_mut().find(|(g, _)| *g == gate) {
                    Some((_, rules)) => rules.push(i),
                    None => plan.gated.push((gate, vec![i])),
                }
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
