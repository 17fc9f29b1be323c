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

use super::fresh_id;
use cel::common::ast::{operators, CallExpr, Expr, IdedExpr, LiteralValue};

/// Rewrites every field selection on a bound loop variable below `expr`.
/// Apply after the other rewrites, which read `v.field` as written.
/// Rewriting twice is rewriting once: a rewritten operand is no name.
pub fn rewrite_fields(expr: &mut IdedExpr) {
    walk(expr, &mut Vec::new());
}

/// `bound`: the variables of the loops whose step `expr` is in.
fn walk(expr: &mut IdedExpr, bound: &mut Vec<String>) {
    let id = expr.id;
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
            bound.push(c.iter_var.clone());
            walk(&mut c.loop_step, bound);
            bound.pop();
        }
        Expr::Select(select) => {
            walk(&mut select.operand, bound);
            let variable = match &select.operand.expr {
                Expr::Ident(name) if !select.test && bound.contains(name) => name.clone(),
                _ => return,
            };
            let operand_id = select.operand.id;
            let ident = |id| IdedExpr {
                id,
                expr: Expr::Ident(variable.clone()),
            };
            select.operand = Box::new(IdedExpr {
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
            });
        }
        other => {
            for child in super::children(other) {
                walk(child, bound);
            }
        }
    }
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
