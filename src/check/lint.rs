//! Deep lint: rules that compile but cannot do what their author meant.
//!
//! - `lint::never-matches`: a condition whose literal tests contradict
//!   each other (`context_name == 'a' && context_name == 'b'`).
//! - `lint::shadowed`: a single-valued effect (deny reason, block message,
//!   fuel, fallback, a request or argument key) that an earlier rule with no
//!   condition always sets first, so this one never takes effect.
//! - `lint::conflict`: two rules that can match the same payload set one
//!   single-valued effect (`fuel`, `fallback`, a `request` or `arguments`
//!   key) to different values; the first by priority silently wins. Rules
//!   whose conditions exclude each other ([`super::exclusive`]) do not
//!   conflict, and neither does a later rule with no condition: that is the
//!   usual way to write a default.
//! - `lint::empty-include`: tool includes whose intersection is empty, so
//!   the model would be offered nothing: unconditional ones always, two
//!   conditional ones whenever both match.
//! - `lint::expensive`: comprehensions nested inside comprehensions, which
//!   cost the product of the list sizes on every call.
//! - `lint::native-name-at-pre-tool`: a `pre_tool` condition naming a
//!   harness's shell tool (`'Bash'`): `pre_tool` sees every shell tool as
//!   `shell_exec`, so the test never holds.
//! - `lint::request-key-ignored`: a `request` key Gemini CLI does not take
//!   from a BeforeModel reply (it applies only model, temperature,
//!   maxOutputTokens, topP and topK), so the rule changes nothing there.
//!
//! All are warnings: the policy still works, just not as written.
//! `policy check --deny-warnings` makes them failures.

use super::exclusive::Facts;
use crate::compile::{index, CompiledPolicy, CompiledRule, IntValue, ToolPattern, ValueTemplate};
use crate::diagnostic::Diagnostic;
use cel::common::ast::Expr;

pub fn lint(policy: &CompiledPolicy) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in &policy.rules {
        if let Some(cond) = &rule.when {
            if let Some((field, a, b)) = index::contradiction(&cond.expr) {
                out.push(
                    Diagnostic::warning(
                        "lint::never-matches",
                        format!(
                            "rule `{}` can never match: `{field}` cannot be {} and {} at once",
                            rule.id,
                            show(&a),
                            show(&b)
                        ),
                    )
                    .at(&rule.file, rule.span)
                    .help("did you mean `||`, or `in [...]`?"),
                );
            }
            if independent_nested_loop(&cond.expr, &mut Vec::new()) {
                out.push(
                    Diagnostic::warning(
                        "lint::expensive",
                        format!(
                            "rule `{}` loops over a list inside a loop over another: its cost is the product of their sizes, on every call",
                            rule.id
                        ),
                    )
                    .at(&rule.file, rule.span)
                    .help("compute the inner test once (e.g. collect names with map first), or narrow the outer list"),
                );
            }
        }
    }
    for hook in policy.hooks() {
        let rules: Vec<&CompiledRule> = policy
            .rules
            .iter()
            .filter(|r| r.hooks.contains(&hook))
            .collect();
        shadowing(hook, &rules, &mut out);
        empty_includes(hook, &rules, &mut out);
    }
    conflicts(&policy.rules, &mut out);
    ignored_request_keys(&policy.rules, &mut out);
    native_names_at_pre_tool(&policy.rules, &mut out);
    out
}

/// `pre_tool` conditions that name a native shell tool, which `pre_tool`
/// never sees (it sees `shell_exec`).
fn native_names_at_pre_tool(rules: &[CompiledRule], out: &mut Vec<Diagnostic>) {
    use crate::catalogue::tools::CANONICAL;
    use cel::common::ast::LiteralValue;
    for rule in rules.iter().filter(|r| r.hooks.contains(&"pre_tool")) {
        let Some(cond) = &rule.when else { continue };
        let mut named: Option<String> = None;
        // Only literals compared with `tool_name` (==, != or in).
        let is_tool_name = |e: &Expr| match e {
            Expr::Ident(n) => n == "tool_name",
            Expr::Select(sel) => sel.field == "tool_name" && !sel.test,
            _ => false,
        };
        let native = |e: &Expr| -> Option<String> {
            let literal = |e: &Expr| match e {
                Expr::Literal(LiteralValue::String(s)) => {
                    let text = s.to_string();
                    CANONICAL.iter().any(|c| c.tool == text).then_some(text)
                }
                _ => None,
            };
            match e {
                Expr::List(l) => l.elements.iter().find_map(|x| literal(&x.expr)),
                other => literal(other),
            }
        };
        crate::expr::ast::visit(&cond.expr, &mut |node| {
            // `tool_name in [...]`, as written or folded into a set.
            if let Some((a, names)) = crate::expr::const_sets::string_membership(node) {
                if named.is_none() && is_tool_name(&a.expr) {
                    named = names
                        .into_iter()
                        .find(|n| CANONICAL.iter().any(|c| c.tool == *n))
                        .map(str::to_string);
                }
                return;
            }
            if let Expr::Call(call) = &node.expr {
                if named.is_none()
                    && matches!(call.func_name.as_str(), "_==_" | "_!=_" | "@in")
                    && call.args.len() == 2
                {
                    let (a, b) = (&call.args[0].expr, &call.args[1].expr);
                    if is_tool_name(a) {
                        named = native(b);
                    } else if is_tool_name(b) {
                        named = native(a);
                    }
                }
            }
        });
        if let Some(name) = named {
            out.push(
                Diagnostic::warning(
                    "lint::native-name-at-pre-tool",
                    format!(
                        "rule `{}` names `{name}` at pre_tool, which sees every harness's shell tool as `shell_exec`: this test never holds there",
                        rule.id
                    ),
                )
                .at(&rule.file, rule.span)
                .help("test `tool_name == 'shell_exec'`, or put the rule on the harness's native event (e.g. claude_code.PreToolUse)"),
            );
        }
    }
}

/// Request keys a harness with a request hook cannot apply. Only Gemini
/// CLI drops keys silently; chibi and PicoClaw pass the body on whole.
fn ignored_request_keys(rules: &[CompiledRule], out: &mut Vec<Diagnostic>) {
    use crate::catalogue::tools::gemini_request_key;
    for rule in rules {
        for (key, _) in rule.effects.request.iter().flatten() {
            if gemini_request_key(key).is_none() {
                out.push(
                    Diagnostic::warning(
                        "lint::request-key-ignored",
                        format!(
                            "rule `{}` sets `request.{key}`, which Gemini CLI ignores: its BeforeModel reply applies only model, temperature, maxOutputTokens, topP and topK",
                            rule.id
                        ),
                    )
                    .at(&rule.file, rule.span)
                    .help("it still applies on chibi and PicoClaw; if it must hold on Gemini too, there is no way to set it from a hook"),
                );
            }
        }
    }
}

fn show(values: &[String]) -> String {
    match values {
        [one] => format!("'{one}'"),
        many => format!(
            "one of {}",
            many.iter()
                .map(|v| format!("'{v}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn unconditional(rule: &CompiledRule) -> bool {
    rule.when.is_none() && rule.matchers.is_empty()
}

/// The single-valued effects a rule sets, by name.
fn single_valued(rule: &CompiledRule) -> Vec<String> {
    let fx = &rule.effects;
    let mut out = Vec::new();
    if fx.deny.is_some() {
        out.push("the deny reason".to_string());
    }
    if fx.ask.is_some() {
        out.push("the ask reason".into());
    }
    if fx.block.is_some() {
        out.push("the block message".into());
    }
    if fx.fuel.is_some() {
        out.push("`fuel`".into());
    }
    if fx.fallback.is_some() {
        out.push("`fallback`".into());
    }
    for (k, _) in fx.request.iter().flatten() {
        out.push(format!("`request.{k}`"));
    }
    for (k, _) in fx.arguments.iter().flatten() {
        out.push(format!("`arguments.{k}`"));
    }
    out
}

fn shadowing(hook: &str, rules: &[&CompiledRule], out: &mut Vec<Diagnostic>) {
    for (i, later) in rules.iter().enumerate() {
        for effect in single_valued(later) {
            let earlier = rules[..i]
                .iter()
                .find(|r| unconditional(r) && single_valued(r).contains(&effect));
            if let Some(earlier) = earlier {
                out.push(
                    Diagnostic::warning(
                        "lint::shadowed",
                        format!(
                            "on {hook}, {effect} of rule `{}` never takes effect: rule `{}` ({}) always sets it first",
                            later.id, earlier.id, earlier.origin
                        ),
                    )
                    .at(&later.file, later.span)
                    .help("give this rule a lower priority, or a condition to the earlier one"),
                );
            }
        }
    }
}

/// The tool names an include keeps, when it lists plain names only (globs
/// and types cannot be intersected without the harness's tool list).
fn included_names(rule: &CompiledRule) -> Option<Vec<String>> {
    let include = rule.effects.tools.as_ref()?.include.as_ref()?;
    include
        .iter()
        .map(|p| match p {
            ToolPattern::Name(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

fn empty_includes(hook: &str, rules: &[&CompiledRule], out: &mut Vec<Diagnostic>) {
    let mut acc: Option<(Vec<String>, &CompiledRule)> = None;
    for rule in rules.iter().filter(|r| unconditional(r)) {
        let Some(names) = included_names(rule) else {
            continue;
        };
        acc = Some(match acc {
            None => (names, rule),
            Some((prev, first)) => {
                let both: Vec<String> = prev.into_iter().filter(|n| names.contains(n)).collect();
                if both.is_empty() {
                    out.push(
                        Diagnostic::warning(
                            "lint::empty-include",
                            format!("on {hook}, the includes of `{}` and `{}` have no tool in common: the model would be offered none", first.id, rule.id),
                        )
                        .at(&rule.file, rule.span)
                        .help("includes intersect; list the tools both allow, or give one of the rules a condition"),
                    );
                }
                (both, first)
            }
        });
    }
}

/// Pairs of rules that can match together and disagree on a single-valued
/// effect, or whose includes leave no tool when both match. Reported once
/// per pair, at the rule that loses, naming the hooks they share.
fn conflicts(rules: &[CompiledRule], out: &mut Vec<Diagnostic>) {
    let facts: Vec<Facts> = rules.iter().map(Facts::of).collect();
    for (j, later) in rules.iter().enumerate() {
        // A later rule without a condition is a default: that it loses
        // wherever a conditional rule matches is the point of writing it.
        if unconditional(later) {
            continue;
        }
        for (i, earlier) in rules[..j].iter().enumerate() {
            let hooks: Vec<&str> = later
                .hooks
                .iter()
                .copied()
                .filter(|h| earlier.hooks.contains(h))
                .collect();
            // An unconditional earlier rule is `lint::shadowed`'s case.
            if hooks.is_empty() || unconditional(earlier) || facts[i].excludes(&facts[j]) {
                continue;
            }
            let on = hooks.join(", ");
            for (effect, winner, loser) in differing_values(earlier, later) {
                // Already reported as `lint::shadowed`: an unconditional rule
                // sets it before either.
                let shadowed = rules[..j].iter().any(|r| {
                    unconditional(r)
                        && r.hooks.iter().any(|h| hooks.contains(h))
                        && single_valued(r).contains(&effect)
                });
                if shadowed {
                    continue;
                }
                out.push(
                    Diagnostic::warning(
                        "lint::conflict",
                        format!(
                            "on {on}, rules `{}` and `{}` can match together and set {effect} to {winner} and {loser}: `{}` ({}) comes first by priority, so `{}` only takes effect where `{}` does not match",
                            earlier.id, later.id, earlier.id, earlier.origin, later.id, earlier.id
                        ),
                    )
                    .at(&later.file, later.span)
                    .help(format!(
                        "make the conditions exclusive (e.g. opposite tests on one field), set the same value, or give `{}` a lower priority number to make it win",
                        later.id
                    )),
                );
            }
            if let (Some(a), Some(b)) = (included_names(earlier), included_names(later)) {
                if !a.iter().any(|n| b.contains(n)) {
                    out.push(
                        Diagnostic::warning(
                            "lint::empty-include",
                            format!(
                                "on {on}, rules `{}` and `{}` can match together and their includes have no tool in common: when both match, the model is offered none",
                                earlier.id, later.id
                            ),
                        )
                        .at(&later.file, later.span)
                        .help("includes intersect; make the conditions exclusive, or list the tools both allow"),
                    );
                }
            }
        }
    }
}

/// Single-valued effects both rules set to different literal values:
/// (effect, the earlier rule's value, the later rule's value). Values
/// computed by expressions are not compared.
fn differing_values(earlier: &CompiledRule, later: &CompiledRule) -> Vec<(String, String, String)> {
    let (a, b) = (&earlier.effects, &later.effects);
    let mut out = Vec::new();
    if let (Some(IntValue::Literal(x)), Some(IntValue::Literal(y))) = (&a.fuel, &b.fuel) {
        if x != y {
            out.push(("`fuel`".to_string(), x.to_string(), y.to_string()));
        }
    }
    if let (Some(x), Some(y)) = (a.fallback, b.fallback) {
        if x != y {
            out.push((
                "`fallback`".to_string(),
                x.as_str().to_string(),
                y.as_str().to_string(),
            ));
        }
    }
    for (name, x, y) in [
        ("request", &a.request, &b.request),
        ("arguments", &a.arguments, &b.arguments),
    ] {
        let (Some(x), Some(y)) = (x, y) else { continue };
        for (key, xv) in x {
            let Some((_, yv)) = y.iter().find(|(k, _)| k == key) else {
                continue;
            };
            if let (ValueTemplate::Literal(xv), ValueTemplate::Literal(yv)) = (xv, yv) {
                if xv != yv {
                    out.push((format!("`{name}.{key}`"), xv.to_string(), yv.to_string()));
                }
            }
        }
    }
    out
}

/// A comprehension inside another whose range does not depend on the outer
/// loop variable: `a.exists(x, b.exists(y, ...))` costs |a|·|b|, while
/// `a.exists(x, x.parts.exists(...))` only walks each element's own parts.
fn independent_nested_loop(expr: &cel::common::ast::IdedExpr, outer: &mut Vec<String>) -> bool {
    let mut found = false;
    crate::expr::ast::visit(expr, &mut |node| {
        if found {
            return;
        }
        if let Expr::Comprehension(c) = &node.expr {
            if !outer.is_empty() && !mentions_any(&c.iter_range, outer) {
                found = true;
                return;
            }
            outer.push(c.iter_var.clone());
            // Only the loop body can hold a nested loop over the outer variable.
            if independent_nested_loop(&c.loop_step, outer)
                || independent_nested_loop(&c.loop_cond, outer)
            {
                found = true;
            }
            outer.pop();
        }
    });
    found
}

fn mentions_any(expr: &cel::common::ast::IdedExpr, names: &[String]) -> bool {
    let mut hit = false;
    crate::expr::ast::visit(expr, &mut |n| {
        if let Expr::Ident(name) = &n.expr {
            hit |= names.contains(name);
        }
    });
    hit
}
