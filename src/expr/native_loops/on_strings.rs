//! Loops over a list of strings whose predicate only compares each string
//! with literals, run natively.
//!
//! The secrets pack keeps a command's file arguments with
//! `c.args.filter(a, !a.startsWith('-') && !(a.lowerAscii().endsWith('example') || ...))`:
//! per argument the interpreter binds the loop variable (a `String` for its
//! name, a boxed copy of the value), makes eight lowercase copies and looks
//! up and calls seventeen functions by name. On `grep -rn TODO src | head -20`
//! such filters were most of a 23.6 us warm decision.
//!
//! A `filter`, `exists` or `all` loop qualifies when
//! - its range is a name or fields selected from one (`c.args`), which gives
//!   the same value every time it is evaluated, at the cost of a lookup;
//! - its predicate is built from `v.startsWith(S)`, `v.endsWith(S)`,
//!   `v.contains(S)`, `v == S`, `S == v`, `v != S` and `v in SET` (a folded
//!   list of strings), where `v` is the loop variable or `v.lowerAscii()`
//!   and `S` a string literal, joined by `!`, `&&` and `||` (a negation may
//!   already be `P ? false : true`).
//!
//! It becomes `@strings_only(R) ? @filter_strings(R, program) : LOOP`, where
//! `LOOP` is the loop as it was, `program` the predicate encoded as bytes
//! (`@exists_strings` and `@all_strings` for the quantifiers). On a string
//! every one of those tests is a boolean, never an error, and the
//! connectives are those of boolean logic; so when the range is a list of
//! strings (`@strings_only`), the native walk gives the loop's value: the
//! elements kept in order, or whether some or every element passes. Any
//! other range (an element that is not a string, a map, a value that cannot
//! be iterated) runs the loop as written, unchanged; a range that fails
//! fails the guard with the error the loop would give (a loop evaluates its
//! constant start value and then its range).

use super::{call, fresh_id, is_accu, quantifier, Quantifier, ACCU};
use crate::expr::const_sets::{self, Set};
use crate::expr::natives::{Native, Param};
use cel::common::ast::{operators, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBool, CelBytes, CelList, CelString};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;

/// Whether a range is a list of strings only. Names no CEL source can spell.
pub const STRINGS_ONLY: &str = "@strings_only";
/// `R.filter(v, P)` over a list of strings, natively.
pub const FILTER_STRINGS: &str = "@filter_strings";
/// `R.exists(v, P)` over a list of strings, natively.
pub const EXISTS_STRINGS: &str = "@exists_strings";
/// `R.all(v, P)` over a list of strings, natively.
pub const ALL_STRINGS: &str = "@all_strings";

mod map;
pub use map::{ALL_MAPPED, EXISTS_MAPPED, MAP_STRINGS, STRINGS_ONLY_WITH};

/// The functions of this module, for the environment.
pub const FUNCTIONS: [&str; 8] = [
    STRINGS_ONLY,
    FILTER_STRINGS,
    EXISTS_STRINGS,
    ALL_STRINGS,
    STRINGS_ONLY_WITH,
    MAP_STRINGS,
    EXISTS_MAPPED,
    ALL_MAPPED,
];

/// The native loops over strings, for the environment.
pub const NATIVES: &[Native] = &[
    Native {
        name: STRINGS_ONLY,
        overload: "strings_only",
        params: &[Param::Any],
        function: strings_only,
    },
    Native {
        name: FILTER_STRINGS,
        overload: "filter_strings",
        params: &[Param::Any, Param::Bytes],
        function: filter_strings,
    },
    Native {
        name: EXISTS_STRINGS,
        overload: "exists_strings",
        params: &[Param::Any, Param::Bytes],
        function: exists_strings,
    },
    Native {
        name: ALL_STRINGS,
        overload: "all_strings",
        params: &[Param::Any, Param::Bytes],
        function: all_strings,
    },
    Native {
        name: STRINGS_ONLY_WITH,
        overload: "strings_only_with",
        params: &[Param::Any, Param::Any],
        function: map::strings_only_with,
    },
    Native {
        name: MAP_STRINGS,
        overload: "map_strings",
        params: &[Param::Any, Param::Bytes, Param::Any],
        function: map::map_strings,
    },
    Native {
        name: EXISTS_MAPPED,
        overload: "exists_mapped",
        params: &[Param::Any, Param::Bytes, Param::Bytes, Param::Any],
        function: map::exists_mapped,
    },
    Native {
        name: ALL_MAPPED,
        overload: "all_mapped",
        params: &[Param::Any, Param::Bytes, Param::Bytes, Param::Any],
        function: map::all_mapped,
    },
];

// ---- the rewrite -----------------------------------------------------------

/// The guarded native form of the loop `c` (node `id`, which the
/// conditional keeps), when it qualifies.
pub(super) fn rewrite(c: &ComprehensionExpr, id: u64) -> Option<Expr> {
    let (function, predicate) = match quantifier(c) {
        Some((q, p)) => match q {
            Quantifier::Exists => (EXISTS_STRINGS, p),
            Quantifier::All => (ALL_STRINGS, p),
        },
        None => match filter_predicate(c) {
            Some(p) => (FILTER_STRINGS, p),
            None => return map::rewrite(c, id),
        },
    };
    let mut program = Vec::new();
    if !is_stable(&c.iter_range) || compile(predicate, &c.iter_var, &mut program, 0).is_none() {
        // A quantifier over a native chain, or whose test compares
        // computed strings.
        let (q, test) = quantifier(c)?;
        return map::rewrite_quantifier(c, id, q, test);
    }
    let range = || c.iter_range.clone();
    let guard = IdedExpr {
        id: fresh_id(id, 1),
        expr: call(STRINGS_ONLY, vec![range()]),
    };
    let program = IdedExpr {
        id: fresh_id(id, 3),
        expr: Expr::Literal(LiteralValue::Bytes(CelBytes::from(program))),
    };
    let native = IdedExpr {
        id: fresh_id(id, 2),
        expr: call(function, vec![range(), program]),
    };
    let written = IdedExpr {
        id: fresh_id(id, 0),
        expr: Expr::Comprehension(Box::new(c.clone())),
    };
    Some(call(operators::CONDITIONAL, vec![guard, native, written]))
}

/// The loop as written, when `expr` is the guarded form [`rewrite`] made:
/// what analyses that read loops read.
pub fn written_loop(expr: &IdedExpr) -> Option<&IdedExpr> {
    let Expr::Call(c) = &expr.expr else {
        return None;
    };
    match (c.func_name.as_str(), &c.target, c.args.as_slice()) {
        (operators::CONDITIONAL, None, [guard, _, written])
            if matches!(&guard.expr, Expr::Call(g)
            if g.func_name == STRINGS_ONLY || g.func_name == STRINGS_ONLY_WITH)
                || super::fields::known_guard(guard, expr.id) =>
        {
            Some(written)
        }
        _ => None,
    }
}

/// The loop step of a comprehension that builds a list as `filter` and
/// `map` expand: one variable, `@result` starting empty and returned, no
/// stop.
pub(super) fn list_building_step(c: &ComprehensionExpr) -> Option<&cel::common::ast::CallExpr> {
    let empty_start = matches!(&c.accu_init.expr,
        Expr::List(l) if l.elements.is_empty() && l.optional_indices.is_empty());
    let never_stops = matches!(&c.loop_cond.expr,
        Expr::Literal(LiteralValue::Boolean(b)) if *b.inner());
    if c.iter_var2.is_some()
        || c.accu_var != ACCU
        || !is_accu(&c.result, ACCU)
        || !empty_start
        || !never_stops
    {
        return None;
    }
    match &c.loop_step.expr {
        Expr::Call(step) => Some(step),
        _ => None,
    }
}

/// The predicate of `filter` as the parser expands it:
/// `P ? @result + [v] : @result`, an empty list to start, no stop.
fn filter_predicate(c: &ComprehensionExpr) -> Option<&IdedExpr> {
    let step = list_building_step(c)?;
    let [predicate, append, otherwise] = step.args.as_slice() else {
        return None;
    };
    if step.func_name != operators::CONDITIONAL
        || step.target.is_some()
        || !is_accu(otherwise, ACCU)
    {
        return None;
    }
    let Expr::Call(add) = &append.expr else {
        return None;
    };
    let appends_element = match add.args.as_slice() {
        [accu, list] => {
            is_accu(accu, ACCU)
                && matches!(&list.expr, Expr::List(l) if l.optional_indices.is_empty()
                    && matches!(l.elements.as_slice(), [e] if matches!(&e.expr, Expr::Ident(n) if *n == c.iter_var)))
        }
        _ => false,
    };
    (add.func_name == operators::ADD && add.target.is_none() && appends_element)
        .then_some(predicate)
}

/// A name or fields of one: the same value each time it is evaluated.
fn is_stable(expr: &IdedExpr) -> bool {
    match &expr.expr {
        Expr::Ident(_) => true,
        Expr::Select(s) => !s.test && is_stable(&s.operand),
        _ => false,
    }
}

// ---- the program -----------------------------------------------------------
//
// A node is a tag byte and its fields: AND a b | OR a b | NOT a |
// TEST op subject literal, where `subject` is 0 for the string and 1 for
// its `lowerAscii()`, and `literal` a little-endian u32 length and that
// many bytes (a string, or for IN a set as `const_sets` encodes it).

const AND: u8 = 0;
const OR: u8 = 1;
const NOT: u8 = 2;
const TEST: u8 = 3;

#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(u8)]
enum Op {
    StartsWith = 0,
    EndsWith = 1,
    Contains = 2,
    Equals = 3,
    NotEquals = 4,
    In = 5,
}

impl Op {
    fn from_byte(b: u8) -> Option<Op> {
        [
            Op::StartsWith,
            Op::EndsWith,
            Op::Contains,
            Op::Equals,
            Op::NotEquals,
            Op::In,
        ]
        .get(usize::from(b))
        .copied()
    }

    /// The test on `subject`; `None` for a damaged set. A literal is the
    /// UTF-8 of a string literal, compared as bytes: on UTF-8 texts a byte
    /// prefix, suffix, infix or equality is exactly the string one (a
    /// match can only start and end on character boundaries), and no
    /// check of the literal's encoding is paid per test.
    fn answer(self, subject: &str, literal: &[u8]) -> Option<bool> {
        let subject = subject.as_bytes();
        Some(match self {
            Op::StartsWith => subject.starts_with(literal),
            Op::EndsWith => subject.ends_with(literal),
            Op::Contains => memchr::memmem::find(subject, literal).is_some(),
            Op::Equals => subject == literal,
            Op::NotEquals => subject != literal,
            Op::In => Set::read(literal)?.contains(subject)?,
        })
    }
}

/// Deeper predicates are left to the interpreter (and a damaged program
/// cannot recurse without end).
const MAX_DEPTH: usize = 64;

/// Appends the program of `predicate` over the loop variable `var`, or
/// `None` when it is not of the shapes above.
fn compile(predicate: &IdedExpr, var: &str, out: &mut Vec<u8>, depth: usize) -> Option<()> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let Expr::Call(c) = &predicate.expr else {
        return None;
    };
    let is_false =
        |e: &IdedExpr| matches!(&e.expr, Expr::Literal(LiteralValue::Boolean(b)) if !*b.inner());
    let is_true =
        |e: &IdedExpr| matches!(&e.expr, Expr::Literal(LiteralValue::Boolean(b)) if *b.inner());
    match (c.func_name.as_str(), c.target.as_deref(), c.args.as_slice()) {
        (operators::LOGICAL_AND | operators::LOGICAL_OR, None, [a, b]) => {
            out.push(if c.func_name == operators::LOGICAL_AND {
                AND
            } else {
                OR
            });
            compile(a, var, out, depth + 1)?;
            compile(b, var, out, depth + 1)
        }
        (operators::LOGICAL_NOT, None, [a]) => {
            out.push(NOT);
            compile(a, var, out, depth + 1)
        }
        (operators::CONDITIONAL, None, [a, f, t]) if is_false(f) && is_true(t) => {
            out.push(NOT);
            compile(a, var, out, depth + 1)
        }
        ("startsWith" | "endsWith" | "contains", Some(target), [s]) => {
            let op = match c.func_name.as_str() {
                "startsWith" => Op::StartsWith,
                "endsWith" => Op::EndsWith,
                _ => Op::Contains,
            };
            test(out, op, subject(target, var)?, literal(s)?)
        }
        (operators::EQUALS | operators::NOT_EQUALS, None, [a, b]) => {
            let op = if c.func_name == operators::EQUALS {
                Op::Equals
            } else {
                Op::NotEquals
            };
            match (subject(a, var), subject(b, var)) {
                (Some(lowered), None) => test(out, op, lowered, literal(b)?),
                (None, Some(lowered)) => test(out, op, lowered, literal(a)?),
                _ => None,
            }
        }
        (const_sets::IN_SET, None, [value, set]) => {
            let Expr::Literal(LiteralValue::Bytes(set)) = &set.expr else {
                return None;
            };
            // Only a set that reads whole, as `string_membership` checks.
            const_sets::string_membership(predicate)?;
            test(out, Op::In, subject(value, var)?, set.inner())
        }
        _ => None,
    }
}

fn literal(e: &IdedExpr) -> Option<&[u8]> {
    match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.inner().as_bytes()),
        _ => None,
    }
}

fn test(out: &mut Vec<u8>, op: Op, lowered: bool, literal: &[u8]) -> Option<()> {
    out.extend([TEST, op as u8, u8::from(lowered)]);
    push_bytes(out, literal)
}

/// Appends `bytes` as a program field: a little-endian u32 length and the
/// bytes.
fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> Option<()> {
    out.extend(u32::try_from(bytes.len()).ok()?.to_le_bytes());
    out.extend(bytes);
    Some(())
}

/// The field [`push_bytes`] wrote at `*at`, moving `at` past it; `None`
/// when the program ends first.
fn read_bytes<'a>(program: &'a [u8], at: &mut usize) -> Option<&'a [u8]> {
    let len = program.get(*at..at.checked_add(4)?)?;
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let start = *at + 4;
    let bytes = program.get(start..start.checked_add(len)?)?;
    *at = start + len;
    Some(bytes)
}

/// Whether `expr` is the loop variable (`Some(false)`) or its
/// `lowerAscii()`, once or more (`Some(true)`).
fn subject(expr: &IdedExpr, var: &str) -> Option<bool> {
    match &expr.expr {
        Expr::Ident(name) if name == var => Some(false),
        Expr::Call(c) if c.func_name == "lowerAscii" && c.args.is_empty() => {
            subject(c.target.as_deref()?, var).map(|_| true)
        }
        _ => None,
    }
}

/// The program's answer for one string; `None` when the program is
/// damaged.
struct Run<'a> {
    program: &'a [u8],
    at: usize,
    s: &'a str,
    /// `s.lowerAscii()`, made when a test first asks for it.
    lower: &'a mut String,
    lowered: bool,
}

impl<'a> Run<'a> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.program.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        read_bytes(self.program, &mut self.at)
    }

    /// Evaluates the node at `at`; the walk lands after the node. The right
    /// side of `&&` and `||` is only walked over when the left one decides:
    /// no test can fail on a string, so skipping it changes nothing but
    /// the work (for `grep`'s `-rn`, `!a.startsWith('-')` spares the eight
    /// lowercase suffix tests).
    fn node(&mut self, depth: usize) -> Option<bool> {
        if depth >= MAX_DEPTH {
            return None;
        }
        match self.byte()? {
            op @ (AND | OR) => {
                let a = self.node(depth + 1)?;
                if a == (op == OR) {
                    self.skip(depth + 1)?;
                    return Some(a);
                }
                self.node(depth + 1)
            }
            NOT => self.node(depth + 1).map(|a| !a),
            TEST => {
                let op = Op::from_byte(self.byte()?)?;
                let lowered = match self.byte()? {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                if lowered && !self.lowered {
                    self.lower.clear();
                    self.lower.push_str(self.s);
                    self.lower.make_ascii_lowercase();
                    self.lowered = true;
                }
                let literal = self.bytes()?;
                let subject: &str = if lowered { self.lower } else { self.s };
                op.answer(subject, literal)
            }
            _ => None,
        }
    }
}

impl Run<'_> {
    /// Walks over the node at `at` without evaluating it, checking its
    /// shape; `None` when it is damaged.
    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        match self.byte()? {
            AND | OR => {
                self.skip(depth + 1)?;
                self.skip(depth + 1)
            }
            NOT => self.skip(depth + 1),
            TEST => {
                Op::from_byte(self.byte()?)?;
                if self.byte()? > 1 {
                    return None;
                }
                self.bytes().map(|_| ())
            }
            _ => None,
        }
    }
}

/// Whether `s` passes the predicate `program`; `None` if it is damaged.
/// `lower` is a buffer for the lowercase copy, reused across strings.
fn passes(program: &[u8], s: &str, lower: &mut String) -> Option<bool> {
    let mut run = Run {
        program,
        at: 0,
        s,
        lower,
        lowered: false,
    };
    let answer = run.node(0)?;
    (run.at == program.len()).then_some(answer)
}

// ---- the native functions ---------------------------------------------------

/// The range's strings when it is a list of strings only.
fn strings<'a>(range: &'a dyn Val) -> Option<Vec<&'a CelString<'a>>> {
    let list = range.downcast_ref::<CelList>()?;
    let mut items = list.as_iterable()?.iter();
    let mut out = Vec::new();
    while let Some(item) = items.next() {
        out.push(item.downcast_ref::<CelString>()?);
    }
    Some(out)
}

fn answer<'b, 'v>(value: bool) -> CowVal<'b, 'v> {
    CowVal::Borrowed(if value {
        &CelBool::TRUE
    } else {
        &CelBool::FALSE
    })
}

/// `@strings_only(range)`.
fn strings_only<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    match args.as_slice() {
        [range] => Ok(answer(strings(range.as_ref()).is_some())),
        _ => Err(ExecutionError::invalid_argument_count(1, args.len())),
    }
}

/// Runs `program` on each string of the range, in order, until `go_on`
/// says stop. The range must be what the guard let through.
fn walk(
    function: &str,
    args: &[CowVal<'_, '_>],
    mut go_on: impl FnMut(&CelString<'_>, bool) -> bool,
) -> Result<(), ExecutionError> {
    let damaged = || ExecutionError::function_error(function, "damaged string program");
    let [range, program] = args else {
        return Err(damaged());
    };
    let program = program.downcast_ref::<CelBytes>().ok_or_else(damaged)?;
    let strings = strings(range.as_ref()).ok_or_else(|| {
        ExecutionError::function_error(function, "the range is not a list of strings")
    })?;
    let mut lower = String::new();
    for s in strings {
        let passes = passes(program.inner(), s.inner(), &mut lower).ok_or_else(damaged)?;
        if !go_on(s, passes) {
            break;
        }
    }
    Ok(())
}

/// `@filter_strings(range, program)`: the strings that pass, in order.
fn filter_strings<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut kept: Vec<Box<dyn Val + 'v>> = Vec::new();
    walk(FILTER_STRINGS, &args, |s, passes| {
        if passes {
            kept.push(Box::new(CelString::from(s.inner().to_string())));
        }
        true
    })?;
    Ok(CowVal::owned(CelList::from(kept)))
}

/// `@exists_strings(range, program)`: some string passes.
fn exists_strings<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut any = false;
    walk(EXISTS_STRINGS, &args, |_, passes| {
        any = passes;
        !passes
    })?;
    Ok(answer(any))
}

/// `@all_strings(range, program)`: every string passes.
fn all_strings<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut every = true;
    walk(ALL_STRINGS, &args, |_, passes| {
        every = passes;
        passes
    })?;
    Ok(answer(every))
}

#[cfg(test)]
mod tests;
