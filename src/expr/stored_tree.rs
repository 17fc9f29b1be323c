//! A compact stored form of parsed CEL trees, so that a cold hook call
//! rebuilds the conditions of its candidate rules instead of parsing them.
//!
//! Parsing was the dearest part of compiling a stored rule in a one-call
//! process: the `when` of `secrets.read-secret-file` (3 KB of text, macros,
//! a list of fifty strings), a candidate on every `tail`, `cat` or `grep`
//! line, cost about a million instructions to parse on each such call.
//! Rebuilding the same tree from this form costs a small fraction of that
//! (BENCHMARKS.md, "Stored CEL trees").
//!
//! The form is ours and carries its own version byte (besides the cache
//! format's). Reading checks everything it reads (version, tags, counts
//! against the bytes left, UTF-8, depth, the source length each tree was
//! parsed from, no trailing bytes) and gives nothing on anything odd: the
//! caller then parses the text as before, so a damaged form can cost time
//! but never change a tree. It holds the tree exactly as the parser built
//! it, node ids included; rewrites of a parsed tree belong after
//! [`crate::expr::parse_fast`] or [`StoredTrees::next`], so that they apply
//! to a rebuilt tree alike.
//!
//! Layout, before stuffing: a version byte, then per expression of the rule
//! (in the order the compiler asks for them) the byte length of its source
//! (LEB128) and either 0 (not stored: parse it) or 1 and its root node. A
//! node is its id (the zigzag difference from the previous node's id,
//! LEB128), a tag byte and the tag's fields (see [`Tag`]). A string is a
//! LEB128 `n`: even `n`, a new string of `n / 2` bytes follows; odd `n`,
//! it is the `(n / 2)`-th new string of the record (names and operators
//! repeat). Prepared entries are split into lines, so the stored bytes
//! never hold `\n`: it is written FF 01, and FF itself FF 02 (UTF-8 text
//! never holds FF, so strings are rarely touched).

use cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedEntryExpr, IdedExpr, ListExpr, LiteralValue,
    MapEntryExpr, MapExpr, SelectExpr, StructExpr, StructFieldExpr,
};
use cel::common::types::{CelBool, CelBytes, CelDouble, CelInt, CelString, CelUInt};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The form's version; a record of another version is not read. 3: trees
/// are stored rewritten for evaluation (native membership loops). 4: and
/// with native loops over strings. 5: and native maps over strings.
const VERSION: u8 = 5;

/// The deepest tree stored (and read). Deeper trees are left to the
/// parser; the bound keeps a damaged record from recursing without end.
pub const MAX_DEPTH: usize = 256;

/// Node tags. Literals carry their value; calls with a target say so in
/// their tag, as do presence tests and optional entries.
#[repr(u8)]
enum Tag {
    Unspecified = 0,
    Ident = 1,
    Select = 2,
    PresenceTest = 3,
    Call = 4,
    MemberCall = 5,
    List = 6,
    Map = 7,
    Struct = 8,
    Comprehension = 9,
    /// A comprehension with a second iteration variable.
    Comprehension2 = 10,
    Null = 16,
    False = 17,
    True = 18,
    Int = 19,
    UInt = 20,
    Double = 21,
    String = 22,
    Bytes = 23,
}

/// Entry kinds of maps and structs.
const MAP_ENTRY: u8 = 0;
const OPTIONAL_MAP_ENTRY: u8 = 1;
const STRUCT_FIELD: u8 = 2;
const OPTIONAL_STRUCT_FIELD: u8 = 3;

/// The stored trees of one rule, written in the order the compiler parses
/// its expressions.
pub struct TreeRecorder {
    raw: Vec<u8>,
    prev_id: u64,
    /// Strings written so far, by a hash of their text: their number and
    /// where their bytes are in `raw` (compared on a hit, so a collision
    /// only writes the string again).
    strings: HashMap<u64, (u64, usize, usize), BuildHasherDefault<Prehashed>>,
    /// The number the next string written in full gets.
    next_string: u64,
}

impl Default for TreeRecorder {
    fn default() -> Self {
        TreeRecorder {
            raw: vec![VERSION],
            prev_id: 0,
            strings: HashMap::default(),
            next_string: 0,
        }
    }
}

/// The map's keys are hashes already (FNV-1a of the text, see
/// [`TreeRecorder::text`]): recording runs on the first call after an
/// edit, for every expression of the hook, and SipHash was a tenth of it.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl TreeRecorder {
    /// Records the tree parsed from `source`, or that it is not stored
    /// (`None`, or deeper than [`MAX_DEPTH`]): a reader then parses it.
    pub fn record(&mut self, source: &str, tree: Option<&IdedExpr>) {
        put_varint(&mut self.raw, source.len() as u64);
        let Some(tree) = tree else {
            self.raw.push(0);
            return;
        };
        let (at, prev_id, known) = (self.raw.len(), self.prev_id, self.next_string);
        self.raw.push(1);
        if self.node(tree, 0).is_none() {
            // Too deep: undo this tree, strings included, and leave it to the parser.
            self.raw.truncate(at);
            self.raw.push(0);
            self.prev_id = prev_id;
            self.next_string = known;
            self.strings.retain(|_, (n, _, _)| *n < known);
        }
    }

    /// The record as stored: stuffed, without `\n`.
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.raw.len() + self.raw.len() / 16);
        let mut rest = &self.raw[..];
        while let Some(i) = crate::bytes::find2(b'\n', 0xFF, rest) {
            out.extend_from_slice(&rest[..i]);
            out.extend_from_slice(if rest[i] == b'\n' {
                &[0xFF, 1]
            } else {
                &[0xFF, 2]
            });
            rest = &rest[i + 1..];
        }
        out.extend_from_slice(rest);
        out
    }

    fn id(&mut self, id: u64) {
        let delta = id.wrapping_sub(self.prev_id) as i64;
        put_varint(&mut self.raw, ((delta << 1) ^ (delta >> 63)) as u64);
        self.prev_id = id;
    }

    fn text(&mut self, s: &str) {
        let hash = fnv1a(s);
        match self.strings.get(&hash) {
            Some(&(n, at, len)) if &self.raw[at..at + len] == s.as_bytes() => {
                put_varint(&mut self.raw, n << 1 | 1);
                return;
            }
            // Another string with the same hash: written in full, not kept.
            Some(_) => {}
            None => {
                let n = self.next_string;
                put_varint(&mut self.raw, (s.len() as u64) << 1);
                self.strings.insert(hash, (n, self.raw.len(), s.len()));
                self.raw.extend_from_slice(s.as_bytes());
                self.next_string += 1;
                return;
            }
        }
        // Not a new string of the record either: the reader numbers only
        // strings written in full, so this one gets a number too.
        put_varint(&mut self.raw, (s.len() as u64) << 1);
        self.raw.extend_from_slice(s.as_bytes());
        self.next_string += 1;
    }

    fn count(&mut self, n: usize) {
        put_varint(&mut self.raw, n as u64);
    }

    fn tag(&mut self, tag: Tag) {
        self.raw.push(tag as u8);
    }

    /// `None` when the tree is deeper than [`MAX_DEPTH`].
    fn node(&mut self, e: &IdedExpr, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let depth = depth + 1;
        self.id(e.id);
        match &e.expr {
            Expr::Unspecified => self.tag(Tag::Unspecified),
            Expr::Ident(name) => {
                self.tag(Tag::Ident);
                self.text(name);
            }
            Expr::Select(s) => {
                self.tag(if s.test {
                    Tag::PresenceTest
                } else {
                    Tag::Select
                });
                self.text(&s.field);
                self.node(&s.operand, depth)?;
            }
            Expr::Call(c) => {
                self.tag(if c.target.is_some() {
                    Tag::MemberCall
                } else {
                    Tag::Call
                });
                self.text(&c.func_name);
                if let Some(target) = &c.target {
                    self.node(target, depth)?;
                }
                self.count(c.args.len());
                for arg in &c.args {
                    self.node(arg, depth)?;
                }
            }
            Expr::List(l) => {
                self.tag(Tag::List);
                self.count(l.elements.len());
                for element in &l.elements {
                    self.node(element, depth)?;
                }
                self.count(l.optional_indices.len());
                for &i in &l.optional_indices {
                    self.count(i);
                }
            }
            Expr::Map(m) => {
                self.tag(Tag::Map);
                self.entries(&m.entries, depth)?;
            }
            Expr::Struct(s) => {
                self.tag(Tag::Struct);
                self.text(&s.type_name);
                self.entries(&s.entries, depth)?;
            }
            Expr::Comprehension(c) => {
                match &c.iter_var2 {
                    None => {
                        self.tag(Tag::Comprehension);
                        self.text(&c.iter_var);
                    }
                    Some(second) => {
                        self.tag(Tag::Comprehension2);
                        self.text(&c.iter_var);
                        self.text(second);
                    }
                }
                self.text(&c.accu_var);
                for part in [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_cond,
                    &c.loop_step,
                    &c.result,
                ] {
                    self.node(part, depth)?;
                }
            }
            Expr::Literal(literal) => match literal {
                LiteralValue::Null => self.tag(Tag::Null),
                LiteralValue::Boolean(b) => {
                    self.tag(if *b.inner() { Tag::True } else { Tag::False })
                }
                LiteralValue::Int(i) => {
                    self.tag(Tag::Int);
                    let i = *i.inner();
                    put_varint(&mut self.raw, ((i << 1) ^ (i >> 63)) as u64);
                }
                LiteralValue::UInt(u) => {
                    self.tag(Tag::UInt);
                    put_varint(&mut self.raw, *u.inner());
                }
                LiteralValue::Double(d) => {
                    self.tag(Tag::Double);
                    self.raw
                        .extend_from_slice(&d.inner().to_bits().to_le_bytes());
                }
                LiteralValue::String(s) => {
                    self.tag(Tag::String);
                    self.text(s.inner());
                }
                LiteralValue::Bytes(b) => {
                    self.tag(Tag::Bytes);
                    self.count(b.inner().len());
                    self.raw.extend_from_slice(b.inner());
                }
            },
        }
        Some(())
    }

    fn entries(&mut self, entries: &[IdedEntryExpr], depth: usize) -> Option<()> {
        self.count(entries.len());
        for entry in entries {
            self.id(entry.id);
            match &entry.expr {
                EntryExpr::MapEntry(m) => {
                    self.raw.push(if m.optional {
                        OPTIONAL_MAP_ENTRY
                    } else {
                        MAP_ENTRY
                    });
                    self.node(&m.key, depth)?;
                    self.node(&m.value, depth)?;
                }
                EntryExpr::StructField(f) => {
                    self.raw.push(if f.optional {
                        OPTIONAL_STRUCT_FIELD
                    } else {
                        STRUCT_FIELD
                    });
                    self.text(&f.field);
                    self.node(&f.value, depth)?;
                }
            }
        }
        Some(())
    }
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The stored trees of one rule, handed out in the order they were recorded.
pub struct StoredTrees<'a> {
    bytes: Cow<'a, [u8]>,
    at: usize,
    prev_id: u64,
    /// Where each new string of the record lies in `bytes`.
    strings: Vec<(usize, usize)>,
    /// Something did not read: nothing more is handed out.
    broken: bool,
}

impl<'a> StoredTrees<'a> {
    /// The record in `stored` (as [`TreeRecorder::finish`] wrote it), or
    /// `None` if it is not one of this version.
    pub fn new(stored: &'a [u8]) -> Option<StoredTrees<'a>> {
        let bytes = match crate::bytes::find(0xFF, stored) {
            None => Cow::Borrowed(stored),
            Some(first) => {
                let mut out = Vec::with_capacity(stored.len());
                let mut rest = stored;
                let mut at = Some(first);
                while let Some(i) = at {
                    out.extend_from_slice(&rest[..i]);
                    out.push(match rest.get(i + 1) {
                        Some(1) => b'\n',
                        Some(2) => 0xFF,
                        _ => return None,
                    });
                    rest = &rest[i + 2..];
                    at = crate::bytes::find(0xFF, rest);
                }
                out.extend_from_slice(rest);
                Cow::Owned(out)
            }
        };
        if bytes.first() != Some(&VERSION) || crate::bytes::find(b'\n', stored).is_some() {
            return None;
        }
        Some(StoredTrees {
            bytes,
            at: 1,
            prev_id: 0,
            strings: Vec::new(),
            broken: false,
        })
    }

    /// The tree parsed from `source`, if the record holds it whole: `None`
    /// when it was not stored, or the record does not read (from then on,
    /// every later expression of the rule is parsed too).
    pub fn next(&mut self, source: &str) -> Option<IdedExpr> {
        if self.broken {
            return None;
        }
        self.read_next(source)
    }

    /// Whether every recorded tree was handed out and nothing is left over.
    pub fn is_done(&self) -> bool {
        !self.broken && self.at == self.bytes.len()
    }

    fn read_next(&mut self, source: &str) -> Option<IdedExpr> {
        let mut reader = Reader {
            bytes: &self.bytes,
            at: self.at,
            prev_id: self.prev_id,
            strings: std::mem::take(&mut self.strings),
        };
        let result = (|| {
            let len = reader.varint()?;
            if len != source.len() as u64 {
                return Err(());
            }
            match reader.byte()? {
                0 => Ok(None),
                1 => reader.node(0).map(Some),
                _ => Err(()),
            }
        })();
        self.strings = std::mem::take(&mut reader.strings);
        match result {
            Ok(tree) => {
                self.at = reader.at;
                self.prev_id = reader.prev_id;
                tree
            }
            Err(()) => {
                self.broken = true;
                None
            }
        }
    }
}

/// Anything odd in the record.
type Read<T> = Result<T, ()>;

struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
    prev_id: u64,
    strings: Vec<(usize, usize)>,
}

impl Reader<'_> {
    fn byte(&mut self) -> Read<u8> {
        let b = *self.bytes.get(self.at).ok_or(())?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Read<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let part = u64::from(b & 0x7F);
            if shift == 63 && part > 1 {
                return Err(());
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(())
    }

    /// A count of things that each take at least one more byte.
    fn count(&mut self) -> Read<usize> {
        let n = self.varint()?;
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(());
        }
        Ok(n as usize)
    }

    fn take(&mut self, n: usize) -> Read<&[u8]> {
        let end = self.at.checked_add(n).ok_or(())?;
        let slice = self.bytes.get(self.at..end).ok_or(())?;
        self.at = end;
        Ok(slice)
    }

    fn text(&mut self) -> Read<String> {
        let n = self.varint()?;
        let (start, len) = if n & 1 == 1 {
            *self.strings.get((n >> 1) as usize).ok_or(())?
        } else {
            let len = usize::try_from(n >> 1).map_err(|_| ())?;
            let start = self.at;
            let bytes = self.take(len)?;
            // Checked once, when first read; a reference reuses the checked span.
            std::str::from_utf8(bytes).map_err(|_| ())?;
            self.strings.push((start, len));
            (start, len)
        };
        // The span was checked to be UTF-8 when it was first read.
        std::str::from_utf8(&self.bytes[start..start + len])
            .map(str::to_owned)
            .map_err(|_| ())
    }

    fn id(&mut self) -> Read<u64> {
        let z = self.varint()?;
        let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
        self.prev_id = self.prev_id.wrapping_add(delta as u64);
        Ok(self.prev_id)
    }

    fn node(&mut self, depth: usize) -> Read<IdedExpr> {
        if depth >= MAX_DEPTH {
            return Err(());
        }
        let depth = depth + 1;
        let id = self.id()?;
        let tag = self.byte()?;
        let expr = match tag {
            t if t == Tag::Unspecified as u8 => Expr::Unspecified,
            t if t == Tag::Ident as u8 => Expr::Ident(self.text()?),
            t if t == Tag::Select as u8 || t == Tag::PresenceTest as u8 => {
                let field = self.text()?;
                let operand = Box::new(self.node(depth)?);
                Expr::Select(SelectExpr {
                    operand,
                    field,
                    test: t == Tag::PresenceTest as u8,
                })
            }
            t if t == Tag::Call as u8 || t == Tag::MemberCall as u8 => {
                let func_name = self.text()?;
                let target = if t == Tag::MemberCall as u8 {
                    Some(Box::new(self.node(depth)?))
                } else {
                    None
                };
                let n = self.count()?;
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(self.node(depth)?);
                }
                Expr::Call(CallExpr {
                    func_name,
                    target,
                    args,
                })
            }
            t if t == Tag::List as u8 => {
                let n = self.count()?;
                let mut elements = Vec::with_capacity(n);
                for _ in 0..n {
                    elements.push(self.node(depth)?);
                }
                let n = self.count()?;
                let mut optional_indices = Vec::with_capacity(n);
                for _ in 0..n {
                    let i = self.varint()?;
                    if i >= elements.len() as u64 {
                        return Err(());
                    }
                    optional_indices.push(i as usize);
                }
                Expr::List(ListExpr {
                    elements,
                    optional_indices,
                })
            }
            t if t == Tag::Map as u8 => Expr::Map(MapExpr {
                entries: self.entries(depth)?,
            }),
            t if t == Tag::Struct as u8 => {
                let type_name = self.text()?;
                Expr::Struct(StructExpr {
                    type_name,
                    entries: self.entries(depth)?,
                })
            }
            t if t == Tag::Comprehension as u8 || t == Tag::Comprehension2 as u8 => {
                let iter_var = self.text()?;
                let iter_var2 = if t == Tag::Comprehension2 as u8 {
                    Some(self.text()?)
                } else {
                    None
                };
                let accu_var = self.text()?;
                let iter_range = self.node(depth)?;
                let accu_init = self.node(depth)?;
                let loop_cond = self.node(depth)?;
                let loop_step = self.node(depth)?;
                let result = self.node(depth)?;
                Expr::Comprehension(Box::new(ComprehensionExpr {
                    iter_range,
                    iter_var,
                    iter_var2,
                    accu_var,
                    accu_init,
                    loop_cond,
                    loop_step,
                    result,
                }))
            }
            t if t == Tag::Null as u8 => Expr::Literal(LiteralValue::Null),
            t if t == Tag::False as u8 || t == Tag::True as u8 => {
                Expr::Literal(LiteralValue::Boolean(CelBool::from(t == Tag::True as u8)))
            }
            t if t == Tag::Int as u8 => {
                let z = self.varint()?;
                let i = ((z >> 1) as i64) ^ -((z & 1) as i64);
                Expr::Literal(LiteralValue::Int(CelInt::from(i)))
            }
            t if t == Tag::UInt as u8 => {
                Expr::Literal(LiteralValue::UInt(CelUInt::from(self.varint()?)))
            }
            t if t == Tag::Double as u8 => {
                let bytes: [u8; 8] = self.take(8)?.try_into().map_err(|_| ())?;
                Expr::Literal(LiteralValue::Double(CelDouble::from(f64::from_bits(
                    u64::from_le_bytes(bytes),
                ))))
            }
            t if t == Tag::String as u8 => {
                Expr::Literal(LiteralValue::String(CelString::from(self.text()?)))
            }
            t if t == Tag::Bytes as u8 => {
                let n = self.count()?;
                let bytes = self.take(n)?.to_vec();
                Expr::Literal(LiteralValue::Bytes(CelBytes::from(bytes)))
            }
            _ => return Err(()),
        };
        Ok(IdedExpr { id, expr })
    }

    fn entries(&mut self, depth: usize) -> Read<Vec<IdedEntryExpr>> {
        let n = self.count()?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let id = self.id()?;
            let expr = match self.byte()? {
                kind @ (MAP_ENTRY | OPTIONAL_MAP_ENTRY) => {
                    let key = self.node(depth)?;
                    let value = self.node(depth)?;
                    EntryExpr::MapEntry(MapEntryExpr {
                        key,
                        value,
                        optional: kind == OPTIONAL_MAP_ENTRY,
                    })
                }
                kind @ (STRUCT_FIELD | OPTIONAL_STRUCT_FIELD) => {
                    let field = self.text()?;
                    let value = self.node(depth)?;
                    EntryExpr::StructField(StructFieldExpr {
                        field,
                        value,
                        optional: kind == OPTIONAL_STRUCT_FIELD,
                    })
                }
                _ => return Err(()),
            };
            entries.push(IdedEntryExpr { id, expr });
        }
        Ok(entries)
    }
}

/// Every tree of a record with the source length it was parsed from
/// (`None`: not stored), or `None` if the record does not read whole.
pub fn read_all(stored: &[u8]) -> Option<Vec<(usize, Option<IdedExpr>)>> {
    let trees = StoredTrees::new(stored)?;
    let mut reader = Reader {
        bytes: &trees.bytes,
        at: 1,
        prev_id: 0,
        strings: Vec::new(),
    };
    let mut out = Vec::new();
    while reader.at < reader.bytes.len() {
        let len = usize::try_from(reader.varint().ok()?).ok()?;
        let tree = match reader.byte().ok()? {
            0 => None,
            1 => Some(reader.node(0).ok()?),
            _ => return None,
        };
        out.push((len, tree));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse_fast;

    fn stored(sources: &[&str]) -> Vec<u8> {
        let mut recorder = TreeRecorder::default();
        for s in sources {
            recorder.record(s, parse_fast(s).ok().as_ref());
        }
        recorder.finish()
    }

    #[test]
    fn every_kind_of_node_reads_back_as_parsed() {
        let sources = [
            "a",
            "a.b.c == 'x\\ny'",
            "has(payload.tool_name) && !(x in [1, -2, 3u, 4.5, -0.0, null, true, false])",
            "b'\\xff\\x0a\\x00' == bytes('a') || 1.0e300 > 2.5e-3",
            "{'k': [1, 2], 3: {'n': null}}.size() > 0 ? 'y' : \"n\"",
            "command.shellCommands().exists(c, c.args.filter(a, !a.startsWith('-')).all(a, a.size() < 9))",
            "[1, 2].map(x, x * 2).exists_one(y, y == 4) && Foo{a: 1, b: 'x'} != null",
            "'\u{1F600}\u{e9}\u{ff}' + '\\u00ff' == u",
            "-9223372036854775808 < 9223372036854775807 && 18446744073709551615u > 0u",
        ];
        let record = stored(&sources);
        assert!(!record.contains(&b'\n'), "a stored record is one line");
        let mut trees = StoredTrees::new(&record).expect("reads");
        for s in sources {
            let parsed = parse_fast(s).unwrap();
            assert_eq!(trees.next(s), Some(parsed), "{s}");
        }
        assert!(trees.is_done());
    }

    #[test]
    fn strings_whose_hashes_collide_are_written_whole_and_numbered_alike() {
        let mut recorder = TreeRecorder::default();
        recorder.record("xx", parse_fast("xx").ok().as_ref());
        // Make `yy` look like `xx` to the table, as a hash collision would.
        let xx = recorder.strings[&fnv1a("xx")];
        recorder.strings.insert(fnv1a("yy"), xx);
        let s = "yy + xx + yy + zz + xx + zz";
        recorder.record(s, parse_fast(s).ok().as_ref());
        let record = recorder.finish();
        let mut trees = StoredTrees::new(&record).unwrap();
        assert_eq!(trees.next("xx"), parse_fast("xx").ok());
        assert_eq!(trees.next(s), parse_fast(s).ok());
        assert!(trees.is_done());
    }

    #[test]
    fn a_tree_asked_for_with_another_source_is_not_handed_out() {
        let record = stored(&["a == 'b'", "c"]);
        let mut trees = StoredTrees::new(&record).unwrap();
        // Another length than the one recorded: the record is out of step,
        // and nothing more is read from it.
        assert_eq!(trees.next("a == 'bb'"), None);
        assert_eq!(trees.next("c"), None);
        assert!(!trees.is_done());
    }

    #[test]
    fn trees_too_deep_or_not_parsed_are_left_to_the_parser() {
        let deep = format!("{}1{}", "[".repeat(60), "]".repeat(60));
        let chain = vec!["x"; MAX_DEPTH + 2].join(" + ");
        let sources = ["a", chain.as_str(), "b == 'a'", "1 +", deep.as_str(), "a"];
        let record = stored(&sources);
        let all = read_all(&record).unwrap();
        let kept: Vec<bool> = all.iter().map(|(_, t)| t.is_some()).collect();
        assert_eq!(kept, [true, false, true, false, true, true]);
        let mut trees = StoredTrees::new(&record).unwrap();
        for s in sources {
            assert_eq!(
                trees.next(s),
                parse_fast(s).ok().filter(|_| s != chain),
                "{s}"
            );
        }
        // The strings of the undone tree were undone too: `a` and `b` still
        // refer to the right ones.
        assert!(trees.is_done());
    }

    #[test]
    fn damaged_records_never_panic_and_cut_ones_only_lose_trees() {
        let sources = [
            "tool_name in ['a', 'b'] && arguments.x.matches('^(y|z)$')",
            "[1, 2.5, 3u, b'\\n', null, {'k': true}].size() == 6",
            "command.shellCommands().exists(c, c.program == 'rm')",
        ];
        let record = stored(&sources);
        let parsed: Vec<IdedExpr> = sources.iter().map(|s| parse_fast(s).unwrap()).collect();
        for cut in 0..record.len() {
            if let Some(mut trees) = StoredTrees::new(&record[..cut]) {
                for (s, p) in sources.iter().zip(&parsed) {
                    if let Some(t) = trees.next(s) {
                        assert_eq!(&t, p, "cut at {cut}");
                    }
                }
            }
        }
        for i in 0..record.len() {
            for flip in [0x01, 0x20, 0x80, 0xFF] {
                let mut bad = record.clone();
                bad[i] ^= flip;
                if let Some(mut trees) = StoredTrees::new(&bad) {
                    for s in sources {
                        let _ = trees.next(s);
                    }
                }
                let _ = read_all(&bad);
            }
        }
    }

    #[test]
    fn stuffing_keeps_newlines_and_ff_bytes_out_and_back() {
        // Ids and lengths of 10 make 0x0A bytes; a bytes literal makes 0xFF.
        let s = "b'\\xff\\n' == b'' || 'aaaaa\\n' == x.y.z.w.v.u.t.s.r.q";
        let record = stored(&[s]);
        assert!(!record.contains(&b'\n'));
        let mut trees = StoredTrees::new(&record).unwrap();
        assert_eq!(trees.next(s), parse_fast(s).ok());
        // A lone FF, or FF followed by anything but 1 or 2, is damage.
        for tail in [&[0xFF][..], &[0xFF, 3], b"\n"] {
            let mut bad = record.clone();
            bad.extend_from_slice(tail);
            assert!(StoredTrees::new(&bad).is_none());
        }
    }
}
