//! Walking a compiled CEL expression, for checks the CEL crate does not do
//! (regex literals) and for the decision tree's discriminators.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

/// Calls `f` on every node of the expression, parents before children.
pub fn visit<'a>(expr: &'a IdedExpr, f: &mut dyn FnMut(&'a IdedExpr)) {
    f(expr);
    match &expr.expr {
        Expr::Call(call) => {
            if let Some(target) = &call.target {
                visit(target, f);
            }
            for arg in &call.args {
                visit(arg, f);
            }
        }
        Expr::Comprehension(c) => {
            for part in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                visit(part, f);
            }
        }
        Expr::List(list) => {
            for e in &list.elements {
                visit(e, f);
            }
        }
        Expr::Map(map) => {
            for entry in &map.entries {
                visit_entry(&entry.expr, f);
            }
        }
        Expr::Struct(s) => {
            for entry in &s.entries {
                visit_entry(&entry.expr, f);
            }
        }
        Expr::Select(select) => visit(&select.operand, f),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn visit_entry<'a>(entry: &'a EntryExpr, f: &mut dyn FnMut(&'a IdedExpr)) {
    match entry {
        EntryExpr::MapEntry(e) => {
            visit(&e.key, f);
            visit(&e.value, f);
        }
        EntryExpr::StructField(e) => visit(&e.value, f),
    }
}

/// A string literal's value.
pub fn string_literal(expr: &IdedExpr) -> Option<&str> {
    match &expr.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.inner()),
        _ => None,
    }
}

/// Regex literals given to `matches`, with the node that holds each.
pub fn regex_literals(expr: &IdedExpr) -> Vec<(&IdedExpr, &str)> {
    let mut out = Vec::new();
    visit(expr, &mut |node| {
        if let Expr::Call(call) = &node.expr {
            if call.func_name == "matches" {
                let pattern = if call.target.is_some() {
                    call.args.first()
                } else {
                    call.args.get(1)
                };
                if let Some(p) = pattern {
                    if let Some(text) = string_literal(p) {
                        out.push((p, text));
                    }
                }
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_regex_literals_in_member_and_global_calls() {
        let p = crate::expr::compile(
            "tool_name == 'a' && command.matches('rm (-rf') || matches(x, 'b')",
        )
        .unwrap();
        let found: Vec<&str> = super::regex_literals(p.expression())
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(found, vec!["rm (-rf", "b"]);
    }
}
