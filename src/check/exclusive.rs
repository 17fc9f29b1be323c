//! Can two rules match the same payload? A conservative answer for lints.
//!
//! Conflict lints warn about two rules that set one single-valued effect to
//! different values, but only when both can match at once: `fuel: 5` under
//! `fuel_remaining < 3` and `fuel: 20` under `fuel_remaining >= 3` never
//! meet. Deciding that in general is satisfiability of two CEL programs;
//! this module only reads the facts a condition states at the top level of
//! its `&&` chain, where each one must hold for the rule to match:
//!
//! - `x == 'a'`, `x in ['a', 'b']`: the string values `x` may have;
//! - `x < 3`, `x >= 3`, `x == 3` (integer literals): a range for `x`;
//! - `has(payload.x)` and `!has(payload.x)`: whether `x` is present;
//! - the `path:` matcher's `inside_project`.
//!
//! Two rules are exclusive when some fact of one rules out a fact of the
//! other. Anything else (`||`, functions, matchers on lists of commands) is
//! taken as "may overlap", so a lint built on this can warn where a proof
//! would not, but never stays silent about two rules that do meet because
//! of a fact it misread.

use crate::compile::index::{self, Discriminator};
use crate::compile::CompiledRule;
use cel::common::ast::{operators, Expr, IdedExpr, LiteralValue};

/// What a rule's condition requires, as far as it can be read.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Facts {
    strings: Vec<Discriminator>,
    ranges: Vec<(String, Range)>,
    presence: Vec<(String, bool)>,
    inside_project: Option<bool>,
}

/// Integers `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Range {
    lo: i64,
    hi: i64,
}

impl Range {
    const ALL: Range = Range {
        lo: i64::MIN,
        hi: i64::MAX,
    };

    fn meet(self, other: Range) -> Range {
        Range {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    fn is_empty(self) -> bool {
        self.lo > self.hi
    }
}

impl Facts {
    pub fn of(rule: &CompiledRule) -> Facts {
        let mut facts = Facts {
            inside_project: rule.matchers.path.as_ref().and_then(|p| p.inside_project()),
            ..Facts::default()
        };
        if let Some(condition) = &rule.when {
            facts.read(&condition.expr);
        }
        facts
    }

    fn read(&mut self, expr: &IdedExpr) {
        for conjunct in index::conjuncts(expr) {
            if let Some(test) = index::literal_test_of(conjunct) {
                self.strings.push(test);
            } else if let Some((field, range)) = int_range(conjunct) {
                self.ranges.push((field, range));
            } else if let Some((field, present)) = presence(conjunct) {
                self.presence.push((field, present));
            }
        }
    }

    /// True when no payload can satisfy both.
    pub fn excludes(&self, other: &Facts) -> bool {
        let strings = self.strings.iter().any(|a| {
            other
                .strings
                .iter()
                .any(|b| a.field == b.field && !a.values.iter().any(|v| b.values.contains(v)))
        });
        let ranges = self.ranges.iter().any(|(field, a)| {
            let b = other
                .ranges
                .iter()
                .filter(|(f, _)| f == field)
                .fold(Range::ALL, |acc, (_, r)| acc.meet(*r));
            a.meet(b).is_empty()
        });
        let presence = self.presence.iter().any(|(field, present)| {
            other
                .presence
                .iter()
                .any(|(f, p)| f == field && p != present)
        });
        let project = matches!(
            (self.inside_project, other.inside_project),
            (Some(a), Some(b)) if a != b
        );
        strings || ranges || presence || project
    }
}

/// `x < 3`, `3 >= x`, `x == 3`, ... as the range of `x` it allows.
fn int_range(expr: &IdedExpr) -> Option<(String, Range)> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    let [a, b] = call.args.as_slice() else {
        return None;
    };
    if call.target.is_some() {
        return None;
    }
    // Written with the field on the left: flip the operator otherwise.
    let (field, value, op) = match (index::field_of(a), int_literal(b)) {
        (Some(f), Some(v)) => (f, v, call.func_name.as_str()),
        _ => {
            let flipped = match call.func_name.as_str() {
                operators::LESS => operators::GREATER,
                operators::LESS_EQUALS => operators::GREATER_EQUALS,
                operators::GREATER => operators::LESS,
                operators::GREATER_EQUALS => operators::LESS_EQUALS,
                other => other,
            };
            (index::field_of(b)?, int_literal(a)?, flipped)
        }
    };
    let range = match op {
        operators::EQUALS => Range {
            lo: value,
            hi: value,
        },
        operators::LESS => Range {
            lo: i64::MIN,
            hi: value.checked_sub(1)?,
        },
        operators::LESS_EQUALS => Range {
            lo: i64::MIN,
            hi: value,
        },
        operators::GREATER => Range {
            lo: value.checked_add(1)?,
            hi: i64::MAX,
        },
        operators::GREATER_EQUALS => Range {
            lo: value,
            hi: i64::MAX,
        },
        _ => return None,
    };
    Some((field, range))
}

fn int_literal(expr: &IdedExpr) -> Option<i64> {
    match &expr.expr {
        Expr::Literal(LiteralValue::Int(i)) => Some(*i.inner()),
        Expr::Literal(LiteralValue::UInt(u)) => i64::try_from(*u.inner()).ok(),
        Expr::Call(call) if call.func_name == operators::NEGATE && call.args.len() == 1 => {
            int_literal(&call.args[0])?.checked_neg()
        }
        _ => None,
    }
}

/// `has(payload.x)` (true) or `!has(payload.x)` (false).
fn presence(expr: &IdedExpr) -> Option<(String, bool)> {
    match &expr.expr {
        Expr::Select(select) if select.test => match &select.operand.expr {
            Expr::Ident(root) if root == "payload" => Some((select.field.clone(), true)),
            _ => None,
        },
        Expr::Call(call) if call.func_name == operators::LOGICAL_NOT && call.args.len() == 1 => {
            let (field, present) = presence(&call.args[0])?;
            Some((field, !present))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(src: &str) -> Facts {
        let program = crate::expr::compile(src).unwrap();
        let mut facts = Facts::default();
        facts.read(program.expression());
        facts
    }

    fn exclusive(a: &str, b: &str) -> bool {
        let (a, b) = (facts(a), facts(b));
        assert_eq!(a.excludes(&b), b.excludes(&a), "exclusion is symmetric");
        a.excludes(&b)
    }

    #[test]
    fn disjoint_literal_values_exclude() {
        assert!(exclusive(
            "context_name == 'ci'",
            "context_name in ['dev', 'prod']"
        ));
        assert!(!exclusive(
            "context_name == 'ci'",
            "context_name in ['ci', 'prod']"
        ));
        assert!(!exclusive("context_name == 'ci'", "tool_name == 'x'"));
    }

    #[test]
    fn disjoint_integer_ranges_exclude() {
        assert!(exclusive("fuel_remaining < 3", "fuel_remaining >= 3"));
        assert!(exclusive(
            "fuel_remaining <= 2",
            "3 <= payload.fuel_remaining"
        ));
        assert!(exclusive("fuel_total == 10", "fuel_total > 10"));
        assert!(exclusive("x > -1", "x < 0"));
        assert!(!exclusive("fuel_remaining < 3", "fuel_remaining > 1"));
        // Two facts of one rule narrow its range together.
        assert!(exclusive("x > 1 && x < 5", "x == 7"));
        assert!(!exclusive("x > 1 && x < 9", "x == 7"));
    }

    #[test]
    fn presence_and_absence_exclude() {
        assert!(exclusive(
            "has(payload.fuel_remaining)",
            "!has(payload.fuel_remaining)"
        ));
        assert!(!exclusive(
            "has(payload.fuel_remaining)",
            "has(payload.fuel_remaining) && true"
        ));
    }

    #[test]
    fn disjunctions_and_calls_are_not_read() {
        assert!(!exclusive(
            "context_name == 'a' || x < 1",
            "context_name == 'b'"
        ));
        assert!(!exclusive("!(context_name == 'a')", "context_name == 'a'"));
        assert!(!exclusive("size(message) < 3", "size(message) > 5"));
    }
}
