//! Fields of a loop variable (`c.program`, `c.args`), read without the
//! interpreter's qualified-name lookup.
//!
//! The cel interpreter reads `c.program` as the dotted name `c.program`:
//! it joins the segments into a new `String`, then in every scope from the
//! innermost tries the whole name, then `c`, before it selects `program`
//! from what it found. A shell rule reads a dozen such fields per command,
//! and that lookup was the largest single cost of a warm decision. A
//! selection whose operand is not a name (`(true ? c : c).program`) is
//! evaluated as its operand, one identifier lookup, then the same field
//! selection.
//!
//! The two give the same value or error wherever `c` is the variable of an
//! enclosing loop, which is the only place the rewrite is made: inside the
//! loop's step, `c` is bound in the loop's scope, or in an inner loop's
//! scope that binds the same name; the dotted name could only differ if a
//! scope met first held a variable literally named `c.program`, and loop
//! scopes hold only their variable and accumulator, names without dots.
//! The payload's names live in the root scope, which is never reached.
//! (The loop condition and result are not rewritten: the condition runs
//! once before the first element is bound, and the result of a loop over
//! nothing sees no element.)
//!
//! The same walk knows which variables range over `shellCommands()`, whose
//! `args`, `flags`, `wrappers` and `via` are always lists of strings
//! ([`crate::expr::commands`]). A native loop over one of them
//! ([`super::on_strings`]) is guarded by a check that its range is a list
//! of strings (and the project root a string), which falls back to the
//! loop as written otherwise; for these ranges the check can only be true,
//! so it becomes the literal `true`, marked by its node id as the guard it
//! replaced ([`known_guard`]). That spares evaluating the range once more
//! and walking it, per loop per command.

use super::fresh_id;
use super::on_strings::{STRINGS_ONLY, STRINGS_ONLY_WITH};
use cel::common::ast::{operators, CallExpr, Expr, IdedExpr, LiteralValue};

/// The fields of a `shellCommands()` element that are lists of strings.
const STRING_LISTS: [&str; 4] = ["args", "flags", "wrappers", "via"];

/// The one variable a guard may read besides its range.
const ROOT: &str = "project_root";

/// A loop variable in scope, and whether it ranges over `shellCommands()`.
struct Bound {
    name: String,
    command: bool,
}

/// Rewrites every field selection on a bound loop variable below `expr`.
/// Apply after the other rewrites, which read `v.field` as written.
/// Rewriting twice is rewriting once: a rewritten operand is no name.
pub fn rewrite_fields(expr: &mut IdedExpr) {
    walk(expr, &mut Vec::new());
}

/// `bound`: the variables of the loops whose step `expr` is in, innermost
/// last.
fn walk(expr: &mut IdedExpr, bound: &mut Vec<Bound>) {
    let id = expr.id;
    if guard_known_true(expr, bound) {
        if let Expr::Call(call) = &mut expr.expr {
            let guard = &mut call.args[0];
            guard.expr = Expr::Literal(LiteralValue::Boolean(true.into()));
            guard.id = fresh_id(id, 1);
        }
    }
    match &mut expr.expr {
        Expr::Comprehension(c) => {
            for part in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.result,
            ] {
                walk(part, bound);
            }
            let command = matches!(&c.iter_range.expr,
                Expr::Call(call) if call.func_name == "shellCommands" && call.target.is_some());
            bound.push(Bound {
                name: c.iter_var.clone(),
                command,
            });
            walk(&mut c.loop_step, bound);
            bound.pop();
        }
        Expr::Select(select) => {
            walk(&mut select.operand, bound);
            let variable = match &select.operand.expr {
                Expr::Ident(name) if !select.test && bound.iter().any(|b| b.name == *name) => {
                    name.clone()
                }
                _ => return,
            };
            let operand_id = select.operand.id;
            let ident = |id| IdedExpr {
                id,
                expr: Expr::Ident(variable.clone()),
            };
            *select.operand = IdedExpr {
                id: fresh_id(id, 1),
                expr: Expr::Call(CallExpr {
                    func_name: operators::CONDITIONAL.to_string(),
                    target: None,
                    args: vec![
                        IdedExpr {
                            id: fresh_id(id, 2),
                            expr: Expr::Literal(LiteralValue::Boolean(true.into())),
                        },
                        ident(operand_id),
                        ident(fresh_id(id, 3)),
                    ],
                }),
            };
        }
        // Calls are most of a tree: walked in place, without the list of
        // children the other nodes are walked through.
        Expr::Call(call) => {
            if let Some(target) = call.target.as_deref_mut() {
                walk(target, bound);
            }
            for arg in &mut call.args {
                walk(arg, bound);
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        other => {
            for child in super::children(other) {
                walk(child, bound);
            }
        }
    }
}

/// Whether `expr` is the guarded form of a native loop over strings whose
/// range is a string list of a command (`c.args`): its guard can only be
/// true.
fn guard_known_true(expr: &IdedExpr, bound: &[Bound]) -> bool {
    let Expr::Call(call) = &expr.expr else {
        return false;
    };
    let [guard, _, _] = call.args.as_slice() else {
        return false;
    };
    if call.func_name != operators::CONDITIONAL
        || call.target.is_some()
        || super::written_loop(expr).is_none()
    {
        return false;
    }
    let Expr::Call(guard) = &guard.expr else {
        return false;
    };
    let range = match (guard.func_name.as_str(), guard.args.as_slice()) {
        (STRINGS_ONLY, [range]) => range,
        (STRINGS_ONLY_WITH, [range, root]) => {
            let root_is_string = match &root.expr {
                Expr::Literal(LiteralValue::String(_)) => true,
                // The payload's root, always a string, unless a loop
                // variable of that name hides it.
                Expr::Ident(name) => name == ROOT && !bound.iter().any(|b| b.name == ROOT),
                _ => false,
            };
            if !root_is_string {
                return false;
            }
            range
        }
        _ => return false,
    };
    let Some((variable, field)) = variable_field(range) else {
        return false;
    };
    let innermost = bound.iter().rev().find(|b| b.name == variable);
    innermost.is_some_and(|b| b.command) && STRING_LISTS.contains(&field)
}

/// Whether `guard`, the first argument of the conditional `parent_id`, is
/// the `true` [`rewrite_fields`] put in place of a guard it knew was true.
/// The id tells it from a `true` written in the source: the parser's ids
/// are small, rewritten nodes' have the high bit [`fresh_id`] sets.
pub(super) fn known_guard(guard: &IdedExpr, parent_id: u64) -> bool {
    guard.id == fresh_id(parent_id, 1)
        && matches!(&guard.expr, Expr::Literal(LiteralValue::Boolean(b)) if *b.inner())
}

/// The variable and field of `v.field`, as written or as rewritten here.
/// Analyses that read rewritten trees (the index) recognise fields with it.
pub fn variable_field(expr: &IdedExpr) -> Option<(&str, &str)> {
    let Expr::Select(select) = &expr.expr else {
        return None;
    };
    if select.test {
        return None;
    }
    let variable = match &select.operand.expr {
        Expr::Ident(name) => name,
        Expr::Call(call) if call.func_name == operators::CONDITIONAL && call.target.is_none() => {
            match call.args.as_slice() {
                [IdedExpr {
                    expr: Expr::Literal(LiteralValue::Boolean(b)),
                    ..
                }, IdedExpr {
                    expr: Expr::Ident(a),
                    ..
                }, IdedExpr {
                    expr: Expr::Ident(b2),
                    ..
                }] if *b.inner() && a == b2 => a,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((variable.as_str(), select.field.as_str()))
}
