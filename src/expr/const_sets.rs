//! Constant string lists on the right of `in`, folded into sorted sets when
//! a condition is compiled.
//!
//! With the recommended packs, most shell rules test
//! `c.program in ['cat', 'tac', ...]` inside a comprehension: CEL builds the
//! list, string by string, every time it evaluates the test (once per
//! command of the line, for every rule), then compares the value with each
//! element in turn. Folded, the test is a call of `@in_set(x, b'...')` whose
//! second argument is one bytes literal holding the strings and their byte
//! order: nothing is built, and a binary search answers.
//!
//! Only lists of string literals are folded: CEL's `in` on a list is true
//! when an element *equals* the value, and a string equals exactly the
//! strings with the same code points (never a number, bytes or anything
//! else). So for a value that is a string the answer is "the same bytes are
//! in the list", and for anything else it is `false`; errors come only from
//! evaluating the value, which the call does first, as `in` does. Lists with
//! other elements (numbers, whose equality crosses int, uint and double) or
//! with computed elements are left alone.
//!
//! The folded tree is self-contained (the strings are in it, in source
//! order), so it can be stored, read back and folded again (folding is
//! idempotent), and analyses that read `x in [...]` (the index, the lints)
//! read both forms through [`string_membership`].

use crate::expr::natives::{self, Native, Param};
use cel::common::ast::{operators, CallExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBool, CelBytes, CelString};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError};

/// The function a folded `in` calls. Not a name CEL source can spell
/// (identifiers cannot start with `@`), like the parser's own operators.
pub const IN_SET: &str = "@in_set";

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    natives::register(env, NATIVES)
}

/// The function the folded lists call.
pub const NATIVES: &[Native] = &[Native {
    name: IN_SET,
    overload: "in_set",
    params: &[Param::Any, Param::Bytes],
    function: in_set,
}];

/// Rewrites every `x in [string literals]` below `expr` into a call of
/// [`IN_SET`]. Apply it to a tree after parsing or decoding it, once any
/// check that reads the tree as written (types, positions) has run.
pub fn fold_constant_lists(expr: &mut IdedExpr) {
    match &mut expr.expr {
        Expr::Call(call) => {
            if let Some(target) = &mut call.target {
                fold_constant_lists(target);
            }
            for arg in &mut call.args {
                fold_constant_lists(arg);
            }
            if let Some(set) = foldable(call) {
                let list_id = call.args[1].id;
                call.func_name = IN_SET.to_string();
                call.args[1] = IdedExpr {
                    id: list_id,
                    expr: Expr::Literal(LiteralValue::Bytes(CelBytes::from(set))),
                };
            }
        }
        Expr::Comprehension(c) => {
            for part in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                fold_constant_lists(part);
            }
        }
        Expr::List(list) => list.elements.iter_mut().for_each(fold_constant_lists),
        Expr::Map(map) => {
            for entry in &mut map.entries {
                fold_entry(&mut entry.expr);
            }
        }
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                fold_entry(&mut entry.expr);
            }
        }
        Expr::Select(select) => fold_constant_lists(&mut select.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn fold_entry(entry: &mut cel::common::ast::EntryExpr) {
    use cel::common::ast::EntryExpr;
    match entry {
        EntryExpr::MapEntry(e) => {
            fold_constant_lists(&mut e.key);
            fold_constant_lists(&mut e.value);
        }
        EntryExpr::StructField(e) => fold_constant_lists(&mut e.value),
    }
}

/// The encoded set of `call` when it is `x in [string literals]`.
fn foldable(call: &CallExpr) -> Option<Vec<u8>> {
    if call.func_name != operators::IN || call.target.is_some() {
        return None;
    }
    let [_, list] = call.args.as_slice() else {
        return None;
    };
    let Expr::List(list) = &list.expr else {
        return None;
    };
    // `[?x]` elements are optional values, not literals; none here anyway.
    if !list.optional_indices.is_empty() {
        return None;
    }
    let strings = list
        .elements
        .iter()
        .map(|e| match &e.expr {
            Expr::Literal(LiteralValue::String(s)) => Some(s.inner()),
            _ => None,
        })
        .collect::<Option<Vec<&str>>>()?;
    encode(&strings)
}

/// `x in ['a', 'b']` or its folded form: the tested expression and the
/// strings, in source order. `None` for anything else, including lists
/// with an element that is not a string literal.
pub fn string_membership(expr: &IdedExpr) -> Option<(&IdedExpr, Vec<&str>)> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    if call.target.is_some() {
        return None;
    }
    let [value, set] = call.args.as_slice() else {
        return None;
    };
    match (call.func_name.as_str(), &set.expr) {
        (operators::IN, Expr::List(list)) if list.optional_indices.is_empty() => {
            let strings = list
                .elements
                .iter()
                .map(|e| match &e.expr {
                    Expr::Literal(LiteralValue::String(s)) => Some(s.inner()),
                    _ => None,
                })
                .collect::<Option<Vec<&str>>>()?;
            Some((value, strings))
        }
        (IN_SET, Expr::Literal(LiteralValue::Bytes(b))) => Some((value, set_strings(b.inner())?)),
        _ => None,
    }
}

/// The strings of a set as [`encode`] wrote it, in source order; `None`
/// for a damaged set or one holding something other than UTF-8.
pub fn set_strings(bytes: &[u8]) -> Option<Vec<&str>> {
    let set = Set::read(bytes).filter(Set::is_whole)?;
    (0..set.count)
        .map(|i| set.element(i).and_then(|e| std::str::from_utf8(e).ok()))
        .collect()
}

/// The set as bytes, little-endian:
/// `count: u32`, `ends: [u32; count]` (where each string ends in the data,
/// in source order), `order: [u32; count]` (string positions in byte
/// order), then the strings' bytes. `None` past 4 GiB (expressions are far
/// smaller).
pub(crate) fn encode(strings: &[&str]) -> Option<Vec<u8>> {
    let count = u32::try_from(strings.len()).ok()?;
    let data: usize = strings.iter().map(|s| s.len()).sum();
    u32::try_from(data).ok()?;
    let mut order: Vec<u32> = (0..count).collect();
    order.sort_by(|&a, &b| strings[a as usize].cmp(strings[b as usize]));
    let mut out = Vec::with_capacity(4 + 8 * strings.len() + data);
    out.extend_from_slice(&count.to_le_bytes());
    let mut end = 0u32;
    for s in strings {
        end += s.len() as u32;
        out.extend_from_slice(&end.to_le_bytes());
    }
    for i in order {
        out.extend_from_slice(&i.to_le_bytes());
    }
    for s in strings {
        out.extend_from_slice(s.as_bytes());
    }
    Some(out)
}

/// A set read from its bytes. Every access is bounds-checked: a damaged
/// set (a stored tree altered on disk) is an error, never a panic. (A set
/// altered consistently is as trustworthy as any altered literal: keeping
/// stored trees intact is the cache's business.)
pub(crate) struct Set<'a> {
    count: usize,
    ends: &'a [u8],
    order: &'a [u8],
    data: &'a [u8],
}

impl<'a> Set<'a> {
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Set<'a>> {
        let count = u32_at(bytes, 0)? as usize;
        let table = count.checked_mul(4)?;
        let ends = bytes.get(4..4 + table)?;
        let order = bytes.get(4 + table..4 + 2 * table)?;
        let data = bytes.get(4 + 2 * table..)?;
        // The strings fill the data exactly: a cut or padded set is refused
        // before any search (each access is checked besides).
        let filled = match count {
            0 => 0,
            _ => u32_at(ends, table - 4)? as usize,
        };
        if filled != data.len() {
            return None;
        }
        Some(Set {
            count,
            ends,
            order,
            data,
        })
    }

    /// Every string and every position of the order can be read (what a
    /// search checks only along its way).
    fn is_whole(&self) -> bool {
        (0..self.count).all(|i| {
            self.element(i).is_some()
                && u32_at(self.order, 4 * i).is_some_and(|at| (at as usize) < self.count)
        })
    }

    /// The `i`th string in source order.
    fn element(&self, i: usize) -> Option<&'a [u8]> {
        let start = match i {
            0 => 0,
            _ => u32_at(self.ends, 4 * (i - 1))? as usize,
        };
        let end = u32_at(self.ends, 4 * i)? as usize;
        self.data.get(start..end)
    }

    /// Whether `needle` is one of the strings: a binary search over the
    /// byte order.
    pub(crate) fn contains(&self, needle: &[u8]) -> Option<bool> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let element = self.element(u32_at(self.order, 4 * mid)? as usize)?;
            match element.cmp(needle) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(true),
            }
        }
        Some(false)
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// `@in_set(value, set)`: what `value in [strings]` gives. The value was
/// evaluated first (an error there is the error of `in` too); a string is
/// in the list when the same bytes are, anything else never is (a string
/// equals only a string).
fn in_set<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let damaged = || ExecutionError::function_error(IN_SET, "damaged constant set");
    let [value, set] = args.as_slice() else {
        return Err(damaged());
    };
    let set = set
        .downcast_ref::<CelBytes>()
        .and_then(|b| Set::read(b.inner()))
        .ok_or_else(damaged)?;
    let found = match value.downcast_ref::<CelString>() {
        Some(s) => set.contains(s.inner().as_bytes()).ok_or_else(damaged)?,
        None => false,
    };
    Ok(CowVal::Borrowed(if found {
        &CelBool::TRUE
    } else {
        &CelBool::FALSE
    }))
}

#[cfg(test)]
mod tests;
