//! Literal discriminators: the part of a condition that names one payload
//! value exactly (`tool_name == "shell_exec"`, `context_name in ["a", "b"]`).
//!
//! A rule whose condition is a conjunction containing such a test can only
//! match payloads with that value, so the decision tree files it under the
//! value and never evaluates it for other payloads. The full condition is
//! still evaluated for candidates: the index only ever removes rules that
//! could not match, so it cannot change a decision.

use cel::common::ast::{operators, Expr, IdedExpr, LiteralValue};

/// `field` must equal one of `values` for the condition to hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Discriminator {
    pub field: String,
    pub values: Vec<String>,
}

/// Finds the first discriminator in a condition's top-level conjunction.
/// `payload.x` counts as `x`; names bound by comprehensions never reach the
/// top level, so any identifier here is a payload variable or a builtin.
pub fn discriminator(
    expr: &IdedExpr,
    is_payload_field: &dyn Fn(&str) -> bool,
) -> Option<Discriminator> {
    let mut conjuncts = Vec::new();
    flatten_and(expr, &mut conjuncts);
    conjuncts
        .into_iter()
        .find_map(|c| literal_test(c, is_payload_field))
}

/// Two literal tests in one conjunction that no value can pass together
/// (`x == 'a' && x == 'b'`, `x == 'a' && x in ['b', 'c']`): the field and
/// the values each test allows.
pub fn contradiction(expr: &IdedExpr) -> Option<(String, Vec<String>, Vec<String>)> {
    let mut conjuncts = Vec::new();
    flatten_and(expr, &mut conjuncts);
    let tests: Vec<Discriminator> = conjuncts
        .into_iter()
        .filter_map(|c| literal_test(c, &|_| true))
        .collect();
    for (i, a) in tests.iter().enumerate() {
        for b in &tests[i + 1..] {
            if a.field == b.field && !a.values.iter().any(|v| b.values.contains(v)) {
                return Some((a.field.clone(), a.values.clone(), b.values.clone()));
            }
        }
    }
    None
}

fn flatten_and<'a>(expr: &'a IdedExpr, out: &mut Vec<&'a IdedExpr>) {
    match &expr.expr {
        Expr::Call(call) if call.func_name == operators::LOGICAL_AND && call.target.is_none() => {
            for arg in &call.args {
                flatten_and(arg, out);
            }
        }
        _ => out.push(expr),
    }
}

fn literal_test(expr: &IdedExpr, is_payload_field: &dyn Fn(&str) -> bool) -> Option<Discriminator> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    if call.target.is_some() || call.args.len() != 2 {
        return None;
    }
    let (a, b) = (&call.args[0], &call.args[1]);
    match call.func_name.as_str() {
        operators::EQUALS => {
            let (field, value) = match (field_name(a), string_literal(b)) {
                (Some(f), Some(v)) => (f, v),
                _ => (field_name(b)?, string_literal(a)?),
            };
            is_payload_field(&field).then(|| Discriminator {
                field,
                values: vec![value],
            })
        }
        operators::IN => {
            let field = field_name(a)?;
            let Expr::List(list) = &b.expr else {
                return None;
            };
            let values = list
                .elements
                .iter()
                .map(string_literal)
                .collect::<Option<Vec<_>>>()?;
            (!values.is_empty() && is_payload_field(&field))
                .then_some(Discriminator { field, values })
        }
        _ => None,
    }
}

fn field_name(expr: &IdedExpr) -> Option<String> {
    match &expr.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(select) if !select.test => match &select.operand.expr {
            Expr::Ident(root) if root == "payload" => Some(select.field.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn string_literal(expr: &IdedExpr) -> Option<String> {
    match &expr.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disc(src: &str) -> Option<Discriminator> {
        let program = crate::expr::compile(src).unwrap();
        discriminator(program.expression(), &|f| f != "hook")
    }

    #[test]
    fn finds_equalities_and_in_lists_in_conjunctions() {
        assert_eq!(
            disc("tool_name == 'shell_exec'"),
            Some(Discriminator {
                field: "tool_name".into(),
                values: vec!["shell_exec".into()]
            })
        );
        assert_eq!(
            disc("size(x) > 1 && 'safe' == payload.context_name"),
            Some(Discriminator {
                field: "context_name".into(),
                values: vec!["safe".into()]
            })
        );
        assert_eq!(
            disc("context_name in ['a', 'b'] && true"),
            Some(Discriminator {
                field: "context_name".into(),
                values: vec!["a".into(), "b".into()]
            })
        );
    }

    #[test]
    fn disjunctions_and_negations_are_not_discriminators() {
        assert_eq!(disc("tool_name == 'a' || tool_name == 'b'"), None);
        assert_eq!(disc("!(tool_name == 'a')"), None);
        assert_eq!(disc("tool_name != 'a'"), None);
        assert_eq!(disc("hook == 'pre_tool'"), None);
    }
}
