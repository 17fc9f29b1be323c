//! The decision tree of one hook as stored in a prepared entry, read in
//! place: sorted key tables that a call searches where they lie.
//!
//! A plugin process decides one payload and exits. Reading the whole tree
//! (every literal, program, host and glob with its rules) into maps cost
//! more than the rest of the call at 10,000 rules (2.85 M of 4.06 M
//! instructions, see BENCHMARKS.md), though a payload looks up a handful
//! of keys. Here each index is a table of fixed-size records in key byte
//! order; a call binary-searches the keys its payload has and reads the
//! rule lists of those it finds, nothing else.
//!
//! Damage is caught where it is read: every record carries a checksum of
//! its own fields, its place (table and position) and the bytes it points
//! at, checked before the record is used. A binary search's path depends
//! only on the records it visits, so with those intact it ends where it
//! would on the table as written (which the writer checked is sorted).
//! Small parts read whole (the rules every payload needs, the globs) have
//! one checksum each. Anything that does not check out is [`Damaged`]: the
//! caller then decides from the YAML instead (see src/cache.rs).

use super::plan::{GlobIndex, HookPlan};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::sync::OnceLock;

/// A part of the entry that does not check out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damaged;

/// Catches damage (a truncated write, a flipped bit, a hand edit), not
/// tampering: whoever can write the cache can replace the plugin beside it.
/// Four independent lanes of 8 bytes, so the multiplications overlap.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or_default());
    let mut lanes = [bytes.len() as u64, 1, 2, 3];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, c) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = mix(*lane, word(c));
        }
    }
    let mut h = lanes.iter().fold(0, |h, &lane| mix(h, lane));
    for &b in blocks.remainder() {
        h = mix(h, u64::from(b));
    }
    h ^ (h >> 29)
}

/// The checksum of a record: where it is (`at`, its table's offset, and
/// `index`), its fixed fields, and the bytes they point at. Binding the
/// place means a record copied or moved elsewhere does not check out.
pub fn record_sum(at: u32, index: u32, fields: &[u8], pointed: &[&[u8]]) -> u64 {
    let mut place = [0u8; 8];
    place[..4].copy_from_slice(&at.to_le_bytes());
    place[4..].copy_from_slice(&index.to_le_bytes());
    let mut h = checksum(&place) ^ checksum(fields).rotate_left(17);
    for p in pointed {
        h = (h.rotate_left(23) ^ checksum(p)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// A part read whole: where it is in the body, and its checksum.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Part {
    pub at: u32,
    pub len: u32,
    pub sum: u64,
}

impl Part {
    /// The part's bytes, if they are all there and check out.
    pub fn read<'a>(&self, body: &'a [u8]) -> Result<&'a [u8], Damaged> {
        let start = self.at as usize;
        let bytes = body.get(start..start + self.len as usize).ok_or(Damaged)?;
        (checksum(bytes) == self.sum)
            .then_some(bytes)
            .ok_or(Damaged)
    }
}

/// A table of `count` records of [`RECORD`] bytes at `at`: a key and a
/// list of rule numbers each, keys distinct, non-empty and in byte order.
/// `first` has a bit for each byte some key starts with (what lets the
/// substring search skip most positions of a text).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct TableRef {
    pub at: u32,
    pub count: u32,
    pub first: [u64; 4],
}

/// Key offset, key length, list offset, list length (in rule numbers),
/// each a little-endian u32, then the record's checksum as a u64.
const RECORD: usize = 24;

/// Builds the body of an entry: parts appended, their places returned.
#[derive(Default)]
pub struct Writer {
    pub body: Vec<u8>,
}

impl Writer {
    fn offset(&self) -> Option<u32> {
        u32::try_from(self.body.len()).ok()
    }

    /// Appends `bytes` as a part read whole.
    pub fn part(&mut self, bytes: &[u8]) -> Option<Part> {
        let at = self.offset()?;
        self.body.extend_from_slice(bytes);
        self.offset()?;
        Some(Part {
            at,
            len: u32::try_from(bytes.len()).ok()?,
            sum: checksum(bytes),
        })
    }

    /// Appends `items` (already in the body, as (offset, length) pairs)'
    /// locations as records: offset, length, checksum.
    pub fn locations(&mut self, items: &[(u32, u32)]) -> Option<u32> {
        let at = self.offset()?;
        let mut records = Vec::with_capacity(items.len() * 16);
        for (i, &(off, len)) in items.iter().enumerate() {
            let mut fields = [0u8; 8];
            fields[..4].copy_from_slice(&off.to_le_bytes());
            fields[4..].copy_from_slice(&len.to_le_bytes());
            let pointed = self.body.get(off as usize..off as usize + len as usize)?;
            let sum = record_sum(at, u32::try_from(i).ok()?, &fields, &[pointed]);
            records.extend_from_slice(&fields);
            records.extend_from_slice(&sum.to_le_bytes());
        }
        self.body.extend_from_slice(&records);
        self.offset()?;
        Some(at)
    }

    /// Appends a table of `pairs`, which must have distinct non-empty keys
    /// (`None` otherwise: no entry is written).
    pub fn table(&mut self, mut pairs: Vec<(&[u8], &[usize])>) -> Option<TableRef> {
        pairs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let distinct = pairs.windows(2).all(|w| w[0].0 < w[1].0);
        if !distinct || pairs.iter().any(|(k, _)| k.is_empty()) {
            return None;
        }
        // Keys and lists first, then the records pointing at them.
        let mut places = Vec::with_capacity(pairs.len());
        let mut first = [0u64; 4];
        for (key, rules) in &pairs {
            first[usize::from(key[0] >> 6)] |= 1 << (key[0] & 63);
            let key_at = self.offset()?;
            self.body.extend_from_slice(key);
            let list_at = self.offset()?;
            for &r in *rules {
                self.body
                    .extend_from_slice(&u32::try_from(r).ok()?.to_le_bytes());
            }
            places.push((key_at, key.len(), list_at, rules.len()));
        }
        let at = self.offset()?;
        let mut records = Vec::with_capacity(pairs.len() * RECORD);
        for (i, &(key_at, key_len, list_at, list_len)) in places.iter().enumerate() {
            let mut fields = [0u8; 16];
            fields[..4].copy_from_slice(&key_at.to_le_bytes());
            fields[4..8].copy_from_slice(&u32::try_from(key_len).ok()?.to_le_bytes());
            fields[8..12].copy_from_slice(&list_at.to_le_bytes());
            fields[12..].copy_from_slice(&u32::try_from(list_len).ok()?.to_le_bytes());
            let key = &self.body[key_at as usize..key_at as usize + key_len];
            let list = &self.body[list_at as usize..list_at as usize + list_len * 4];
            let sum = record_sum(at, u32::try_from(i).ok()?, &fields, &[key, list]);
            records.extend_from_slice(&fields);
            records.extend_from_slice(&sum.to_le_bytes());
        }
        self.body.extend_from_slice(&records);
        self.offset()?;
        Some(TableRef {
            at,
            count: u32::try_from(pairs.len()).ok()?,
            first,
        })
    }
}

/// One table of a body, read record by record; each record is checked
/// the first time it is read.
struct Table<'a> {
    body: &'a [u8],
    table: &'a TableRef,
    /// Rule numbers must be below this.
    rules: usize,
    /// A bit per record already checked.
    checked: Vec<u64>,
}

impl<'a> Table<'a> {
    fn new(body: &'a [u8], table: &'a TableRef, rules: usize) -> Table<'a> {
        Table {
            body,
            table,
            rules,
            checked: vec![0; (table.count as usize).div_ceil(64)],
        }
    }

    fn len(&self) -> usize {
        self.table.count as usize
    }

    /// Record `i`'s key and rule list (raw little-endian u32s).
    fn record(&mut self, i: usize) -> Result<(&'a [u8], &'a [u8]), Damaged> {
        let at = self.table.at as usize + i * RECORD;
        let fields = self.body.get(at..at + 16).ok_or(Damaged)?;
        let field = |n: usize| u32_at(fields, n * 4).map(|v| v as usize).ok_or(Damaged);
        let (key_at, key_len, list_at, list_len) = (field(0)?, field(1)?, field(2)?, field(3)?);
        let key = self.body.get(key_at..key_at + key_len).ok_or(Damaged)?;
        let list = self
            .body
            .get(list_at..list_at + list_len * 4)
            .ok_or(Damaged)?;
        let bit = 1u64 << (i % 64);
        if self.checked[i / 64] & bit == 0 {
            let sum = u64_at(self.body, at + 16).ok_or(Damaged)?;
            let place = u32::try_from(i).map_err(|_| Damaged)?;
            if key.is_empty() || record_sum(self.table.at, place, fields, &[key, list]) != sum {
                return Err(Damaged);
            }
            self.checked[i / 64] |= bit;
        }
        Ok((key, list))
    }

    fn key(&mut self, i: usize) -> Result<&'a [u8], Damaged> {
        self.record(i).map(|(key, _)| key)
    }

    /// Appends record `i`'s rules to `out`.
    fn rules_of(&mut self, i: usize, out: &mut Vec<usize>) -> Result<(), Damaged> {
        let (_, list) = self.record(i)?;
        for n in list.chunks_exact(4) {
            let n = u32::from_le_bytes(n.try_into().map_err(|_| Damaged)?) as usize;
            if n >= self.rules {
                return Err(Damaged);
            }
            out.push(n);
        }
        Ok(())
    }

    /// Appends the rules filed under `key`, if any.
    fn get(&mut self, key: &[u8], out: &mut Vec<usize>) -> Result<(), Damaged> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key(mid)?.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.rules_of(mid, out),
            }
        }
        Ok(())
    }

    /// Appends every rule of the table.
    fn all(&mut self, out: &mut Vec<usize>) -> Result<(), Damaged> {
        (0..self.len()).try_for_each(|i| self.rules_of(i, out))
    }

    /// The number of keys not above `s`.
    fn not_above(&mut self, s: &[u8]) -> Result<usize, Damaged> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.key(mid)? <= s {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Calls `found` with the position of every key occurring in `text`
    /// (once or more each).
    ///
    /// At each position of the text, every key that is a prefix of the
    /// rest `s` is also a prefix of `g`, the greatest key not above `s` (it
    /// lies between itself and `s` in byte order, so `g` starts with it),
    /// and no longer than the common prefix of `g` and `s`. So one binary
    /// search finds the longest such key or a shorter bound, and repeating
    /// it below that length finds the others: the same keys as an
    /// overlapping Aho-Corasick search, for a binary search or two per byte.
    fn each_occurring(
        &mut self,
        text: &[u8],
        mut found: impl FnMut(&mut Self, usize) -> Result<(), Damaged>,
    ) -> Result<(), Damaged> {
        let first = self.table.first;
        for start in 0..text.len() {
            let rest = &text[start..];
            let b = rest[0];
            if first[usize::from(b >> 6)] & (1 << (b & 63)) == 0 {
                continue;
            }
            let mut limit = rest.len();
            while limit > 0 {
                let s = &rest[..limit];
                let Some(at) = self.not_above(s)?.checked_sub(1) else {
                    break;
                };
                let greatest = self.key(at)?;
                let common = greatest.iter().zip(s).take_while(|(a, b)| a == b).count();
                if greatest.len() == common {
                    found(self, at)?;
                    limit = common - 1;
                } else {
                    // `common < limit`: were `s` a prefix of `greatest`,
                    // `greatest` would sort above `s`.
                    limit = common;
                }
            }
        }
        Ok(())
    }
}

/// Longer texts are searched with an automaton of every key.
const MAX_SEARCHED_TEXT: usize = 4096;

/// The decision tree of one hook as stored: where each index's table is.
/// Mirrors [`HookPlan`], whose candidates it must give exactly.
#[derive(Debug, Serialize, Deserialize)]
pub struct PlanTables {
    rule_count: usize,
    /// Rule numbers, u32 each.
    always: Part,
    fields: Vec<(String, TableRef)>,
    substrings: Vec<(String, TableRef)>,
    /// By program, and by [`super::plan::word_key`] of program and word.
    programs: Option<(TableRef, TableRef)>,
    needed_programs: Option<NeededTables>,
    /// Exact hosts, then domains.
    hosts: Option<(TableRef, TableRef)>,
    /// Each glob as its rule (u32), its length (u32) and its bytes.
    globs: Option<Part>,
    /// Rule numbers (u32 each) of each gate.
    gated: Vec<(crate::matchers::LineGate, Part)>,
    /// Rule numbers (u32 each, ascending) of each set of argument bytes.
    arg_bytes: Vec<(crate::matchers::ArgBytes, Part)>,
}

/// The tables of [`super::plan::NeededProgramIndex`].
#[derive(Debug, Serialize, Deserialize)]
struct NeededTables {
    field: String,
    by_program: TableRef,
    with_operand: TableRef,
    with_word: TableRef,
    any_program_word: TableRef,
}

impl PlanTables {
    /// Writes `plan`'s tables into `w`; `None` when it cannot be stored.
    pub fn write(plan: &HookPlan, w: &mut Writer) -> Option<PlanTables> {
        fn filed(m: &super::plan::RulesByKey) -> Vec<(&[u8], &[usize])> {
            m.iter()
                .map(|(k, v)| (k.as_bytes(), v.as_slice()))
                .collect()
        }
        let always = w.part(&rule_numbers(&plan.always)?)?;
        let mut fields = Vec::new();
        for index in &plan.indexes {
            fields.push((index.field.clone(), w.table(filed(&index.by_value))?));
        }
        let mut substrings = Vec::new();
        for index in &plan.substrings {
            let pairs = index
                .literals
                .iter()
                .map(|l| l.as_bytes())
                .zip(index.rules.iter().map(Vec::as_slice))
                .collect();
            substrings.push((index.field.clone(), w.table(pairs)?));
        }
        let programs = match &plan.programs {
            Some(p) => Some((
                w.table(filed(&p.by_program))?,
                w.table(filed(&p.with_word))?,
            )),
            None => None,
        };
        let needed_programs = match &plan.needed_programs {
            Some(p) => Some(NeededTables {
                field: p.field.clone(),
                by_program: w.table(filed(&p.by_program))?,
                with_operand: w.table(filed(&p.with_operand))?,
                with_word: w.table(filed(&p.with_word))?,
                any_program_word: w.table(filed(&p.any_program_word))?,
            }),
            None => None,
        };
        let hosts = match &plan.hosts {
            Some(h) => Some((w.table(filed(&h.exact))?, w.table(filed(&h.domains))?)),
            None => None,
        };
        let globs = match &plan.globs {
            Some(g) => {
                let mut bytes = Vec::new();
                for (pattern, &owner) in g.patterns.iter().zip(&g.owners) {
                    bytes.extend_from_slice(&u32::try_from(owner).ok()?.to_le_bytes());
                    bytes.extend_from_slice(&u32::try_from(pattern.len()).ok()?.to_le_bytes());
                    bytes.extend_from_slice(pattern.as_bytes());
                }
                Some(w.part(&bytes)?)
            }
            None => None,
        };
        let mut gated = Vec::new();
        for (gate, rules) in &plan.gated {
            gated.push((*gate, w.part(&rule_numbers(rules)?)?));
        }
        let mut arg_bytes = Vec::new();
        for (bytes, rules) in &plan.arg_bytes {
            arg_bytes.push((*bytes, w.part(&rule_numbers(rules)?)?));
        }
        Some(PlanTables {
            gated,
            arg_bytes,
            rule_count: plan.rule_count,
            always,
            fields,
            substrings,
            programs,
            needed_programs,
            hosts,
            globs,
        })
    }

    pub fn rule_count(&self) -> usize {
        self.rule_count
    }

    /// Whether every table lies within a body of `len` bytes (checked once,
    /// when the entry is opened; records are checked as they are read).
    pub fn fits(&self, len: usize, rules: usize) -> bool {
        let table_fits = |t: &TableRef| {
            (t.at as usize)
                .checked_add(t.count as usize * RECORD)
                .is_some_and(|end| end <= len)
        };
        let part_fits = |p: &Part| p.at as usize + p.len as usize <= len;
        self.rule_count <= rules
            && part_fits(&self.always)
            && self.fields.iter().all(|(_, t)| table_fits(t))
            && self.substrings.iter().all(|(_, t)| table_fits(t))
            && self
                .programs
                .as_ref()
                .is_none_or(|(p, w)| table_fits(p) && table_fits(w))
            && self.needed_programs.as_ref().is_none_or(|n| {
                table_fits(&n.by_program)
                    && table_fits(&n.with_operand)
                    && table_fits(&n.with_word)
                    && table_fits(&n.any_program_word)
            })
            && self
                .hosts
                .as_ref()
                .is_none_or(|(a, b)| table_fits(a) && table_fits(b))
            && self.globs.as_ref().is_none_or(part_fits)
            && self.gated.iter().all(|(_, p)| part_fits(p))
            && self.arg_bytes.iter().all(|(_, p)| part_fits(p))
    }
}

/// What a stored plan needs kept between calls of a long-lived process:
/// the glob set and the automata of long texts, built on first use.
#[derive(Debug, Default)]
pub struct Built {
    globs: OnceLock<Result<GlobIndex, Damaged>>,
    automata: OnceLock<Vec<OnceLock<Result<Automaton, Damaged>>>>,
}

#[derive(Debug)]
struct Automaton {
    search: aho_corasick::AhoCorasick,
}

/// Candidate rules for a payload, in decision order, exactly as
/// [`HookPlan::candidates`] gives them for the plan the tables were
/// written from; `Err` when a part read does not check out.
pub fn candidates(
    tables: &PlanTables,
    body: &[u8],
    rules: usize,
    built: &Built,
    payload: &Json,
    subjects: &crate::matchers::Subjects<'_>,
) -> Result<Vec<usize>, Damaged> {
    let always = tables.always.read(body)?;
    let mut out = Vec::with_capacity(always.len() / 4);
    read_rule_numbers(always, rules, &mut out)?;
    let always_len = out.len();
    if !tables.gated.is_empty() {
        if let Some(analysis) = subjects.shell() {
            for (gate, part) in &tables.gated {
                if gate.admits(analysis) {
                    read_rule_numbers(part.read(body)?, rules, &mut out)?;
                }
            }
        }
    }
    for (field, table) in &tables.fields {
        let mut t = Table::new(body, table, rules);
        match payload.get(field) {
            Some(Json::String(value)) => t.get(value.as_bytes(), &mut out)?,
            _ => t.all(&mut out)?,
        }
    }
    for (n, (field, table)) in tables.substrings.iter().enumerate() {
        let mut t = Table::new(body, table, rules);
        match payload.get(field) {
            Some(Json::String(text)) if text.len() <= MAX_SEARCHED_TEXT => {
                t.each_occurring(text.as_bytes(), |t, i| t.rules_of(i, &mut out))?
            }
            Some(Json::String(text)) => {
                let slots = built.automata.get_or_init(|| {
                    std::iter::repeat_with(OnceLock::new)
                        .take(tables.substrings.len())
                        .collect()
                });
                let automaton = slots
                    .get(n)
                    .ok_or(Damaged)?
                    .get_or_init(|| automaton(&mut Table::new(body, table, rules)))
                    .as_ref()
                    .map_err(|e| *e)?;
                for m in automaton.search.find_overlapping_iter(text.as_str()) {
                    t.rules_of(m.pattern().as_usize(), &mut out)?;
                }
            }
            _ => t.all(&mut out)?,
        }
    }
    if let Some((by_program, with_word)) = &tables.programs {
        if let Some(analysis) = subjects.shell() {
            let mut t = Table::new(body, by_program, rules);
            let mut w = Table::new(body, with_word, rules);
            if analysis.unanalysed().is_some() {
                // Part of the line was never looked at: any program may be
                // in it, so every rule stays to say it cannot tell.
                t.all(&mut out)?;
                w.all(&mut out)?;
            } else {
                for command in &analysis.commands {
                    t.get(command.program.as_bytes(), &mut out)?;
                    words_of(&mut w, command, &mut out)?;
                }
            }
        }
    }
    if let Some(needed) = &tables.needed_programs {
        let mut t = Table::new(body, &needed.by_program, rules);
        let mut o = Table::new(body, &needed.with_operand, rules);
        let mut w = Table::new(body, &needed.with_word, rules);
        let mut a = Table::new(body, &needed.any_program_word, rules);
        match (payload.get(&needed.field), subjects.shell()) {
            (Some(Json::String(_)), Some(analysis)) if analysis.unanalysed().is_none() => {
                for command in &analysis.commands {
                    t.get(command.program.as_bytes(), &mut out)?;
                    if super::plan::has_operand(command) {
                        o.get(command.program.as_bytes(), &mut out)?;
                    }
                    words_of(&mut w, command, &mut out)?;
                    if needed.any_program_word.count > 0 {
                        for arg in &command.args {
                            a.get(arg.as_bytes(), &mut out)?;
                        }
                    }
                }
            }
            _ => {
                t.all(&mut out)?;
                o.all(&mut out)?;
                w.all(&mut out)?;
                a.all(&mut out)?;
            }
        }
    }
    if let Some((exact, domains)) = &tables.hosts {
        if let Some(info) = subjects.url() {
            if let Some(host) = crate::url_class::normalize_host_text(&info.host) {
                Table::new(body, exact, rules).get(host.as_bytes(), &mut out)?;
                let mut domains = Table::new(body, domains, rules);
                domains.get(host.as_bytes(), &mut out)?;
                // Every parent domain, at label boundaries; IP addresses have none.
                if host.parse::<std::net::IpAddr>().is_err() {
                    for (i, _) in host.match_indices('.') {
                        domains.get(&host.as_bytes()[i + 1..], &mut out)?;
                    }
                }
            }
        }
    }
    if let Some(part) = &tables.globs {
        if let Some(info) = subjects.path() {
            let index = built
                .globs
                .get_or_init(|| globs(part, body, rules))
                .as_ref()
                .map_err(|e| *e)?;
            index.collect(
                &info.normalized,
                subjects.project_root,
                subjects.home,
                &mut out,
            );
        }
    }
    if out.len() != always_len {
        out.sort_unstable();
        out.dedup();
    }
    if let Some(analysis) = subjects.shell() {
        for (bytes, part) in &tables.arg_bytes {
            if !bytes.admits(analysis) {
                let mut gated = Vec::new();
                read_rule_numbers(part.read(body)?, rules, &mut gated)?;
                out.retain(|r| gated.binary_search(r).is_err());
            }
        }
    }
    Ok(out)
}

/// Rule numbers as stored: a little-endian u32 each.
fn rule_numbers(list: &[usize]) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(list.len() * 4);
    for &r in list {
        bytes.extend_from_slice(&u32::try_from(r).ok()?.to_le_bytes());
    }
    Some(bytes)
}

/// Appends stored rule numbers to `out`; each must be below `rules`.
fn read_rule_numbers(bytes: &[u8], rules: usize, out: &mut Vec<usize>) -> Result<(), Damaged> {
    for n in bytes.chunks_exact(4) {
        let n = u32::from_le_bytes(n.try_into().map_err(|_| Damaged)?) as usize;
        if n >= rules {
            return Err(Damaged);
        }
        out.push(n);
    }
    Ok(())
}

/// Appends the rules filed under [`super::plan::word_key`] of `command`'s
/// program and each of its arguments.
fn words_of(
    t: &mut Table<'_>,
    command: &crate::shell::SimpleCommand,
    out: &mut Vec<usize>,
) -> Result<(), Damaged> {
    if t.len() == 0 {
        return Ok(());
    }
    let prefix = super::plan::word_key(&command.program, "");
    let mut key = Vec::with_capacity(prefix.len() + 16);
    for arg in &command.args {
        key.clear();
        key.extend_from_slice(prefix.as_bytes());
        key.extend_from_slice(arg.as_bytes());
        t.get(&key, out)?;
    }
    Ok(())
}

fn automaton(t: &mut Table<'_>) -> Result<Automaton, Damaged> {
    let keys = (0..t.len())
        .map(|i| t.key(i))
        .collect::<Result<Vec<_>, _>>()?;
    let search = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(keys)
        .map_err(|_| Damaged)?;
    Ok(Automaton { search })
}

fn globs(part: &Part, body: &[u8], rules: usize) -> Result<GlobIndex, Damaged> {
    let mut bytes = part.read(body)?;
    let mut index = GlobIndex::default();
    while !bytes.is_empty() {
        let owner = u32_at(bytes, 0).ok_or(Damaged)? as usize;
        let len = u32_at(bytes, 4).ok_or(Damaged)? as usize;
        let pattern = bytes.get(8..8 + len).ok_or(Damaged)?;
        let pattern = std::str::from_utf8(pattern).map_err(|_| Damaged)?;
        if owner >= rules {
            return Err(Damaged);
        }
        index.patterns.push(pattern.to_string());
        index.owners.push(owner);
        bytes = &bytes[8 + len..];
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_of(keys: &[&str]) -> (Vec<u8>, TableRef) {
        let lists: Vec<Vec<usize>> = (0..keys.len()).map(|i| vec![i]).collect();
        let mut w = Writer::default();
        let pairs = keys
            .iter()
            .map(|k| k.as_bytes())
            .zip(lists.iter().map(Vec::as_slice))
            .collect();
        let t = w.table(pairs).unwrap();
        (w.body, t)
    }

    #[test]
    fn sorted_keys_find_what_an_automaton_finds() {
        let keys = ["a", "ab", "abc", "b", "ba", "bab", "cab", "x-y", "ca"];
        let (body, table) = table_of(&keys);
        let automaton = aho_corasick::AhoCorasick::new(keys).unwrap();
        for text in [
            "", "abcab", "xbabx", "x-y cab", "zzz", "c", "bababab", "ab", "cb",
        ] {
            let mut ours = Vec::new();
            let mut t = Table::new(&body, &table, keys.len());
            t.each_occurring(text.as_bytes(), |t, i| t.rules_of(i, &mut ours))
                .unwrap();
            let mut ours: Vec<&str> = ours.into_iter().map(|i| keys[i]).collect();
            ours.sort();
            ours.dedup();
            let mut theirs: Vec<&str> = automaton
                .find_overlapping_iter(text)
                .map(|m| keys[m.pattern().as_usize()])
                .collect();
            theirs.sort();
            theirs.dedup();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn lookups_find_every_key_and_no_other() {
        let keys: Vec<String> = (0..300).map(|i| format!("k{}", i * 7)).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let (body, table) = table_of(&refs);
        let mut t = Table::new(&body, &table, keys.len());
        for i in 0..2200 {
            let mut out = Vec::new();
            t.get(format!("k{i}").as_bytes(), &mut out).unwrap();
            let want = usize::from(i % 7 == 0 && i / 7 < keys.len());
            assert_eq!(out.len(), want, "k{i}");
        }
    }

    #[test]
    fn duplicate_or_empty_keys_are_not_written() {
        let mut w = Writer::default();
        assert!(w.table(vec![(b"a", &[0]), (b"a", &[1])]).is_none());
        assert!(w.table(vec![(b"", &[0])]).is_none());
    }

    #[test]
    fn every_damaged_byte_of_a_table_is_caught() {
        let keys = ["alpha", "beta", "gamma"];
        let (body, table) = table_of(&keys);
        for i in 0..body.len() {
            let mut bad = body.clone();
            bad[i] ^= 0x01;
            // Every byte of the body is a key, a list or a record.
            let mut t = Table::new(&bad, &table, keys.len());
            assert_eq!(t.all(&mut Vec::new()), Err(Damaged), "byte {i}");
        }
        // A rule number out of range.
        let mut t = Table::new(&body, &table, 2);
        assert_eq!(t.all(&mut Vec::new()), Err(Damaged));
    }
}
