//! Comprehensions the packs write again and again, rewritten into forms
//! the cel interpreter evaluates cheaply, after a condition is compiled.
//!
//! The packs test the analysed shell line with comprehensions such as
//! `c.flags.exists(f, f in ['-f', '--force'])`. The interpreter runs each
//! as a loop that, per element, copies the element into a new binding
//! (a `String` for the variable's name and a boxed copy of the value),
//! looks `@result` up and evaluates `!@result`, which builds its overload
//! error before knowing it needs it. Three rewrites, each giving exactly
//! the value or the error the written form gives:
//!
//! - **Membership loops.** `L.exists(v, P)` and `L.all(v, P)` where `P` is
//!   a disjunction of `v in [strings]` (as written or folded by
//!   [`const_sets`]), `v == 'lit'` and `'lit' == v` become
//!   `@exists_in(L, set)` / `@all_in(L, set)`, a native walk of `L` with one
//!   binary search per element. Such a `P` is true for an element exactly
//!   when it is a string in the set, false otherwise, and never an error
//!   (a string equals only a string; the loop variable is always bound), so
//!   `exists` is "some element is one of the strings" and `all` "every
//!   element is": no error to absorb. `L` is evaluated and iterated as the
//!   interpreter does (its error is the result; a map ranges over its keys;
//!   anything else is the interpreter's "want iterable" error).
//! - **The `exists` loop condition.** `@not_strictly_false(!@result)`
//!   (stop once an element was true) becomes the literal `true`, as the
//!   parser writes it for `map` and `filter`. Once `@result` is true, every
//!   later step `@result || P` is `true` without evaluating `P` and clears
//!   any pending error, so running to the end gives the same result; it
//!   saves a lookup and an error built per element, and costs a binding
//!   per remaining element only on a line the loop matched.
//! - **Loops over strings** (`filter`, `exists`, `all`) whose predicate
//!   compares the string with literals only, and `map`s that lowercase,
//!   cut a known prefix or normalise paths: run natively when the range
//!   is a list of strings, as written otherwise ([`on_strings`]).
//! - **Negations of boolean tests.** `!E` becomes `E ? false : true` when
//!   `E` can only give a boolean or an error (a comparison, a logical
//!   operator, `exists`/`all`, a membership test, `startsWith`, `endsWith`,
//!   `matches`): both propagate `E`'s error unchanged, and they differ only
//!   on a non-boolean `E`, which these cannot give. `!has(...)` is left as
//!   written (analyses read presence tests).
//! - **Fields of loop variables.** `c.program` inside the loop on `c` is
//!   read as `(true ? c : c).program`, which skips the interpreter's
//!   dotted-name lookup and gives the same value ([`fields`]). Made last:
//!   the rewrites above read fields as written.
//!
//! The rewritten tree is what a condition evaluates and what the prepared
//! cache stores; analyses that read conditions (the index, lints,
//! exclusivity) see the same shapes they know: the outer
//! `exists(c, c.program ...)` keeps its step and result (its fields read
//! through [`variable_field`]), and memberships
//! read through [`const_sets::string_membership`] are kept where they are
//! not inside a rewritten loop. `policy check`'s type checker and `policy
//! explain` read the source as written.

use super::const_sets::{self, Set};
use crate::expr::natives::{self, Native, Param};
use cel::common::ast::{operators, CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBool, CelBytes, CelString};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError};

/// `L.exists(v, v in SET)`, natively. Names no CEL source can spell.
pub const EXISTS_IN: &str = "@exists_in";
/// `L.all(v, v in SET)`, natively.
pub const ALL_IN: &str = "@all_in";

mod fields;
mod on_strings;
pub use fields::{rewrite_fields, variable_field};
pub use on_strings::written_loop;

/// The functions the rewritten trees call, by name.
pub const FUNCTIONS: [&str; 10] = [
    EXISTS_IN,
    ALL_IN,
    on_strings::FUNCTIONS[0],
    on_strings::FUNCTIONS[1],
    on_strings::FUNCTIONS[2],
    on_strings::FUNCTIONS[3],
    on_strings::FUNCTIONS[4],
    on_strings::FUNCTIONS[5],
    on_strings::FUNCTIONS[6],
    on_strings::FUNCTIONS[7],
];

/// The functions the rewritten trees call, for the environment.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    natives::register(env, NATIVES)?;
    natives::register(env, STRING_NATIVES)
}

/// The native membership loops.
pub const NATIVES: &[Native] = &[
    Native {
        name: EXISTS_IN,
        overload: "exists_in",
        params: &[Param::Any, Param::Bytes],
        function: exists_in,
    },
    Native {
        name: ALL_IN,
        overload: "all_in",
        params: &[Param::Any, Param::Bytes],
        function: all_in,
    },
];

pub use on_strings::NATIVES as STRING_NATIVES;

/// The accumulator the parser's macros name (`@result`).
const ACCU: &str = "@result";

/// Rewrites the shapes above everywhere below `expr`, children first.
/// Apply after [`const_sets::fold_constant_lists`] (it reads folded sets as
/// well as lists) and after any check that reads the tree as written.
/// Rewriting twice is rewriting once.
pub fn rewrite_loops(expr: &mut IdedExpr) {
    // A loop over strings made native keeps the loop as written, already
    // rewritten, for lists of other values.
    if written_loop(expr).is_some() {
        return;
    }
    for child in children(&mut expr.expr) {
        rewrite_loops(child);
    }
    let id = expr.id;
    let replacement = match &mut expr.expr {
        Expr::Comprehension(c) => {
            if let Some((function, set)) = membership_loop(c) {
                let range = std::mem::take(&mut c.iter_range);
                // The set takes the id of the step it replaces: ids are
                // unique in a tree and nothing reads them in evaluation.
                let set = IdedExpr {
                    id: c.loop_step.id,
                    expr: Expr::Literal(LiteralValue::Bytes(CelBytes::from(set))),
                };
                Some(call(function, vec![range, set]))
            } else {
                cheaper_exists_condition(c);
                on_strings::rewrite(c, id)
            }
        }
        Expr::Call(c) if c.func_name == operators::LOGICAL_NOT && c.target.is_none() => {
            match c.args.as_mut_slice() {
                [operand] if gives_bool_or_error(operand) => {
                    let operand = std::mem::take(operand);
                    Some(negated(operand, id))
                }
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(expr_) = replacement {
        expr.expr = expr_;
    }
}

/// The direct subexpressions of a node, to rewrite.
fn children(expr: &mut Expr) -> Vec<&mut IdedExpr> {
    use cel::common::ast::EntryExpr;
    match expr {
        Expr::Call(call) => call
            .target
            .as_deref_mut()
            .into_iter()
            .chain(call.args.iter_mut())
            .collect(),
        Expr::Comprehension(c) => vec![
            &mut c.iter_range,
            &mut c.accu_init,
            &mut c.loop_cond,
            &mut c.loop_step,
            &mut c.result,
        ],
        Expr::List(list) => list.elements.iter_mut().collect(),
        Expr::Map(map) => map
            .entries
            .iter_mut()
            .flat_map(|e| match &mut e.expr {
                EntryExpr::MapEntry(e) => vec![&mut e.key, &mut e.value],
                EntryExpr::StructField(f) => vec![&mut f.value],
            })
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter_mut()
            .flat_map(|e| match &mut e.expr {
                EntryExpr::MapEntry(e) => vec![&mut e.key, &mut e.value],
                EntryExpr::StructField(f) => vec![&mut f.value],
            })
            .collect(),
        Expr::Select(select) => vec![&mut select.operand],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}

fn call(function: &str, args: Vec<IdedExpr>) -> Expr {
    Expr::Call(CallExpr {
        func_name: function.to_string(),
        target: None,
        args,
    })
}

fn boolean(id: u64, value: bool) -> IdedExpr {
    IdedExpr {
        id,
        expr: Expr::Literal(LiteralValue::Boolean(value.into())),
    }
}

/// `operand ? false : true`, in place of the `!` node `id` (which the
/// conditional keeps).
fn negated(operand: IdedExpr, id: u64) -> Expr {
    let (f, t) = (
        boolean(fresh_id(id, 1), false),
        boolean(fresh_id(id, 2), true),
    );
    call(operators::CONDITIONAL, vec![operand, f, t])
}

/// An id for a node the rewrite adds, derived from its parent's. Ids only
/// tie nodes to source positions, which rewritten trees are never asked
/// for; these stay distinct from the parser's (small, counted from 1) by
/// their high bit, and from each other by the parent's id and `n`.
fn fresh_id(parent: u64, n: u64) -> u64 {
    (1 << 62) | (parent << 2) | n
}

fn is_accu(expr: &IdedExpr, accu: &str) -> bool {
    matches!(&expr.expr, Expr::Ident(name) if name == accu)
}

fn is_bool(expr: &IdedExpr, value: bool) -> bool {
    matches!(&expr.expr, Expr::Literal(LiteralValue::Boolean(b)) if *b.inner() == value)
}

/// `f(args)`'s arguments when `expr` is a global call of `f`.
fn call_args<'a>(expr: &'a IdedExpr, function: &str) -> Option<&'a [IdedExpr]> {
    match &expr.expr {
        Expr::Call(c) if c.target.is_none() && c.func_name == function => Some(&c.args),
        _ => None,
    }
}

/// Which macro a comprehension is, as the parser expands it.
#[derive(Clone, Copy, PartialEq)]
enum Quantifier {
    Exists,
    All,
}

/// `exists` or `all` as the parser expands them (an `exists` whose loop
/// condition was already rewritten included), and its predicate.
fn quantifier(c: &ComprehensionExpr) -> Option<(Quantifier, &IdedExpr)> {
    if c.iter_var2.is_some() || c.accu_var != ACCU || !is_accu(&c.result, ACCU) {
        return None;
    }
    let (q, step) = match call_args(&c.loop_step, operators::LOGICAL_OR) {
        Some(args) => (Quantifier::Exists, args),
        None => (
            Quantifier::All,
            call_args(&c.loop_step, operators::LOGICAL_AND)?,
        ),
    };
    let [accu, predicate] = step else {
        return None;
    };
    if !is_accu(accu, ACCU) {
        return None;
    }
    let shaped = match q {
        Quantifier::Exists => {
            is_bool(&c.accu_init, false)
                && (is_written_exists_condition(&c.loop_cond)
                    || is_cheap_exists_condition(&c.loop_cond))
        }
        Quantifier::All => {
            is_bool(&c.accu_init, true)
                && call_args(&c.loop_cond, operators::NOT_STRICTLY_FALSE)
                    .is_some_and(|a| matches!(a, [x] if is_accu(x, ACCU)))
        }
    };
    shaped.then_some((q, predicate))
}

/// `@not_strictly_false(!@result)`.
fn is_written_exists_condition(cond: &IdedExpr) -> bool {
    let Some([not]) = call_args(cond, operators::NOT_STRICTLY_FALSE) else {
        return false;
    };
    matches!(call_args(not, operators::LOGICAL_NOT), Some([x]) if is_accu(x, ACCU))
}

/// The rewritten condition: go on to the end.
fn is_cheap_exists_condition(cond: &IdedExpr) -> bool {
    is_bool(cond, true)
}

fn cheaper_exists_condition(c: &mut ComprehensionExpr) {
    if !matches!(quantifier(c), Some((Quantifier::Exists, _)))
        || !is_written_exists_condition(&c.loop_cond)
    {
        return;
    }
    c.loop_cond = boolean(c.loop_cond.id, true);
}

/// The native call and set for a membership loop.
fn membership_loop(c: &ComprehensionExpr) -> Option<(&'static str, Vec<u8>)> {
    let (q, predicate) = quantifier(c)?;
    let mut strings = Vec::new();
    member_strings(predicate, &c.iter_var, &mut strings)?;
    let set = const_sets::encode(&strings)?;
    Some((
        match q {
            Quantifier::Exists => EXISTS_IN,
            Quantifier::All => ALL_IN,
        },
        set,
    ))
}

/// The strings `predicate` tests `var` against, when it is a disjunction
/// of `var in [strings]` and `var == 'lit'`.
pub(crate) fn member_strings<'a>(
    predicate: &'a IdedExpr,
    var: &str,
    out: &mut Vec<&'a str>,
) -> Option<()> {
    let is_var = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(name) if name == var);
    let literal = |e: &'a IdedExpr| match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.inner()),
        _ => None,
    };
    if let Some([a, b]) = call_args(predicate, operators::LOGICAL_OR) {
        member_strings(a, var, out)?;
        return member_strings(b, var, out);
    }
    if let Some([a, b]) = call_args(predicate, operators::EQUALS) {
        out.push(match (is_var(a), is_var(b)) {
            (true, _) => literal(b)?,
            (_, true) => literal(a)?,
            _ => return None,
        });
        return Some(());
    }
    let (value, strings) = const_sets::string_membership(predicate)?;
    if !is_var(value) {
        return None;
    }
    out.extend(strings);
    Some(())
}

/// Whether `expr` evaluates to a boolean or fails: never to another kind
/// of value (so `!expr` and `expr ? false : true` agree).
fn gives_bool_or_error(expr: &IdedExpr) -> bool {
    if let Some(written) = written_loop(expr) {
        return gives_bool_or_error(written);
    }
    match &expr.expr {
        Expr::Comprehension(c) => quantifier(c).is_some(),
        Expr::Call(c) => match (&c.target, c.func_name.as_str()) {
            (None, f) => {
                matches!(
                    f,
                    operators::EQUALS
                        | operators::NOT_EQUALS
                        | operators::LESS
                        | operators::LESS_EQUALS
                        | operators::GREATER
                        | operators::GREATER_EQUALS
                        | operators::IN
                        | operators::LOGICAL_AND
                        | operators::LOGICAL_OR
                        | operators::LOGICAL_NOT
                        | const_sets::IN_SET
                        | EXISTS_IN
                        | ALL_IN
                ) || (f == operators::CONDITIONAL
                    && matches!(c.args.as_slice(), [_, a, b] if is_literal_bool(a) && is_literal_bool(b)))
            }
            // Every overload of these returns a boolean.
            (Some(_), "startsWith" | "endsWith" | "matches") => true,
            _ => false,
        },
        _ => false,
    }
}

fn is_literal_bool(expr: &IdedExpr) -> bool {
    matches!(&expr.expr, Expr::Literal(LiteralValue::Boolean(_)))
}

/// What the interpreter says when a comprehension's range cannot be
/// iterated.
fn not_iterable(range: &CowVal<'_, '_>) -> ExecutionError {
    ExecutionError::UnexpectedType {
        got: range.get_type().name().to_owned(),
        want: "iterable".to_owned(),
    }
}

/// Calls `found` with whether each element of the range is a string of the
/// set, in the interpreter's order, until it says stop.
fn walk(
    function: &str,
    args: &[CowVal<'_, '_>],
    mut found: impl FnMut(bool) -> bool,
) -> Result<(), ExecutionError> {
    let damaged = || ExecutionError::function_error(function, "damaged constant set");
    let [range, set] = args else {
        return Err(damaged());
    };
    let set = set
        .downcast_ref::<CelBytes>()
        .and_then(|b| Set::read(b.inner()))
        .ok_or_else(damaged)?;
    let items = range.as_iterable().ok_or_else(|| not_iterable(range))?;
    let mut items = items.iter();
    while let Some(item) = items.next() {
        let member = match item.downcast_ref::<CelString>() {
            Some(s) => set.contains(s.inner().as_bytes()).ok_or_else(damaged)?,
            None => false,
        };
        if !found(member) {
            break;
        }
    }
    Ok(())
}

fn answer<'b, 'v>(value: bool) -> CowVal<'b, 'v> {
    CowVal::Borrowed(if value {
        &CelBool::TRUE
    } else {
        &CelBool::FALSE
    })
}

/// `@exists_in(range, set)`: some element is a string of the set.
fn exists_in<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut any = false;
    walk(EXISTS_IN, &args, |member| {
        any = member;
        !member
    })?;
    Ok(answer(any))
}

/// `@all_in(range, set)`: every element is a string of the set.
fn all_in<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut every = true;
    walk(ALL_IN, &args, |member| {
        every = member;
        member
    })?;
    Ok(answer(every))
}

#[cfg(test)]
mod tests;
