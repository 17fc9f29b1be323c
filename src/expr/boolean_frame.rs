//! A condition's boolean frame evaluated here, its leaves by cel.
//!
//! Most shell rules are loops over `command.shellCommands()` joined by
//! `&&` and `||`. cel's interpreter binds a loop's variable and accumulator
//! in its scope's map: per element a new `String` for each name, a boxed
//! copy of the element and of the accumulator, two map insertions, and
//! their drops at the end. On a warm decision that was a tenth of the
//! instructions, most of them in the allocator.
//!
//! Here a loop whose accumulator starts as a boolean (`exists`, `all`, as
//! the parser expands them) binds both names through a resolver on the
//! stack ([`Frame`]) that lends the element where it lies and the
//! accumulator as a constant: nothing is allocated per element. The `&&`,
//! `||` and `? :` above and inside such loops are evaluated here too, so
//! the loops below them are reached. The rewrites' native functions
//! (`@in_set`, `@exists_strings`, ...) are called directly, without cel's
//! overload lookup per call ([`natives`]). Everything else (a comparison,
//! a field, any other call) is a leaf handed to cel, in a scope that sees
//! the same variables in the same order.
//!
//! Exactness. On a path where nothing fails, this evaluates the nodes cel
//! evaluates, in its order, with the same variables in the same scopes
//! (cel's `resolve_val`: `a && b` is false when `a` is, else `b`; a loop
//! tests its condition before binding each element, then binds it and runs
//! its step; its result sees the last element), so it gives cel's value.
//! Where cel would see an error, or a value that is not a boolean where one
//! is expected, this gives up ([`GiveUp`]) and the caller evaluates the
//! whole condition with cel as written: cel's rules for errors (`error ||
//! true` is true, a loop's later element can override an earlier error)
//! stay cel's. Conditions have no side effects, so evaluating a part twice
//! costs time only, and only on conditions that meet an error.

use cel::common::ast::{operators, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::CelBool;
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::Context;

use super::natives::{self, Native};

/// This evaluation met an error or a non-boolean: evaluate with cel.
#[derive(Debug, PartialEq)]
pub struct GiveUp;

/// The value of the boolean condition `expr` in `ctx`, or [`GiveUp`].
pub fn truth(expr: &IdedExpr, ctx: &Context<'_, '_>) -> Result<bool, GiveUp> {
    truth_in(expr, ctx, None)
}

/// The variables of a loop evaluated here: its scope's only names.
struct Frame<'a, 'v> {
    iter_var: &'a str,
    /// The element bound, once there is one (the loop's condition runs
    /// before the first is bound, and sees the name from outer scopes).
    item: Option<&'a (dyn Val + 'v)>,
    accu_var: &'a str,
    accu: bool,
}

impl VariableResolver for Frame<'_, '_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        if variable == self.accu_var {
            return Some(boolean(self.accu));
        }
        if variable == self.iter_var {
            return self.item.map(CowVal::Borrowed);
        }
        None
    }
}

fn boolean<'b, 'v>(value: bool) -> CowVal<'b, 'v> {
    CowVal::Borrowed(if value {
        &CelBool::TRUE
    } else {
        &CelBool::FALSE
    })
}

/// `frame`: the loop whose scope `ctx` is, when `expr` is inside one
/// evaluated here.
fn truth_in(
    expr: &IdedExpr,
    ctx: &Context<'_, '_>,
    frame: Option<&Frame<'_, '_>>,
) -> Result<bool, GiveUp> {
    match &expr.expr {
        Expr::Literal(LiteralValue::Boolean(b)) => Ok(*b.inner()),
        // The accumulator, read from the frame of the scope `ctx` is: its
        // innermost scope, where cel would find it first.
        Expr::Ident(name) => match frame {
            Some(f) if f.accu_var == name => Ok(f.accu),
            _ => leaf(expr, ctx),
        },
        Expr::Call(call) if call.target.is_none() => {
            match (call.func_name.as_str(), call.args.as_slice()) {
                (operators::LOGICAL_AND, [left, right]) => {
                    Ok(truth_in(left, ctx, frame)? && truth_in(right, ctx, frame)?)
                }
                (operators::LOGICAL_OR, [left, right]) => {
                    Ok(truth_in(left, ctx, frame)? || truth_in(right, ctx, frame)?)
                }
                (operators::CONDITIONAL, [test, then, otherwise]) => {
                    if truth_in(test, ctx, frame)? {
                        truth_in(then, ctx, frame)
                    } else {
                        truth_in(otherwise, ctx, frame)
                    }
                }
                (name, args) => match natives::find(name) {
                    Some(native) => call_native(native, args, ctx),
                    None => leaf(expr, ctx),
                },
            }
        }
        Expr::Comprehension(c) => match boolean_start(c) {
            Some(start) => run_loop(c, start, ctx),
            None => leaf(expr, ctx),
        },
        _ => leaf(expr, ctx),
    }
}

/// cel's value of `expr`, if it is a boolean.
fn leaf(expr: &IdedExpr, ctx: &Context<'_, '_>) -> Result<bool, GiveUp> {
    let value = cel::Value::resolve_val(expr, ctx).map_err(|_| GiveUp)?;
    value
        .downcast_ref::<CelBool>()
        .map(|b| *b.inner())
        .ok_or(GiveUp)
}

/// A native function called as cel would call it, without looking its
/// overload up: the arguments in order, their kinds checked, the function.
fn call_native(native: &Native, args: &[IdedExpr], ctx: &Context<'_, '_>) -> Result<bool, GiveUp> {
    if args.len() != native.params.len() {
        return Err(GiveUp);
    }
    let mut values = Vec::with_capacity(args.len());
    for (arg, param) in args.iter().zip(native.params) {
        let value = cel::Value::resolve_val(arg, ctx).map_err(|_| GiveUp)?;
        if !param.accepts(&value) {
            return Err(GiveUp);
        }
        values.push(value);
    }
    let value = (native.function)(values).map_err(|_| GiveUp)?;
    value
        .downcast_ref::<CelBool>()
        .map(|b| *b.inner())
        .ok_or(GiveUp)
}

/// The boolean a loop's accumulator starts as, for the loops run here:
/// one variable, not named as the accumulator.
fn boolean_start(c: &ComprehensionExpr) -> Option<bool> {
    if c.iter_var2.is_some() || c.iter_var == c.accu_var {
        return None;
    }
    match &c.accu_init.expr {
        Expr::Literal(LiteralValue::Boolean(b)) => Some(*b.inner()),
        _ => None,
    }
}

/// A loop whose accumulator starts as `start` and must stay a boolean.
fn run_loop(c: &ComprehensionExpr, start: bool, ctx: &Context<'_, '_>) -> Result<bool, GiveUp> {
    // cel evaluates the start (a literal here), then the range.
    let range = cel::Value::resolve_val(&c.iter_range, ctx).map_err(|_| GiveUp)?;
    let iterable = range.as_iterable().ok_or(GiveUp)?;
    let mut items = iterable.iter();
    let mut frame = Frame {
        iter_var: &c.iter_var,
        item: None,
        accu_var: &c.accu_var,
        accu: start,
    };
    while let Some(item) = items.next() {
        if !in_scope(&c.loop_cond, ctx, &frame)? {
            break;
        }
        frame.item = Some(item);
        frame.accu = in_scope(&c.loop_step, ctx, &frame)?;
    }
    in_scope(&c.result, ctx, &frame)
}

/// `expr` in the scope of `frame`, a child of `ctx`.
fn in_scope(expr: &IdedExpr, ctx: &Context<'_, '_>, frame: &Frame<'_, '_>) -> Result<bool, GiveUp> {
    let mut scope = ctx.new_inner_scope();
    scope.set_variable_resolver(frame);
    truth_in(expr, &scope, Some(frame))
}

#[cfg(test)]
mod tests;
