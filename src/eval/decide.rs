//! Deciding one payload: which rules match, and their combined effect.
//!
//! Effects combine as chibi combines several plugins' replies, so a policy of
//! many rules behaves like many one-rule plugins: includes intersect, excludes
//! unite, fuel deltas add up (saturating), and for single-valued effects
//! (block message, fuel, fallback, each request or argument key) the first
//! matching rule in (priority, file order) wins. The deny reason is the one
//! exception: among denying rules of one priority, the rule that names what
//! it denies beats a blanket one ([`Specificity`]), so `sudo bash` is refused
//! as a root shell, not as "a line that cannot be known", and a catch-all
//! only speaks when nothing more precise matched. The decision is
//! harness-neutral; adapters turn it into each harness's reply.

use crate::compile::{
    CompiledPolicy, CompiledRule, IntValue, Specificity, Text, TextPart, ToolPattern, ValueTemplate,
};
use crate::expr::{self, EvalError, PayloadResolver};
use crate::model::Fallback;
use serde_json::{Map, Value as Json};
use std::sync::Arc;

/// Who is asking, besides the payload.
#[derive(Debug, Clone, Copy)]
pub struct DecideContext<'a> {
    pub harness: &'a str,
    pub project_root: &'a str,
    /// The user's home directory, for `~` in paths and path globs.
    pub home: Option<&'a str>,
}

/// A single-valued effect and the rule that set it.
#[derive(Debug, Clone, PartialEq)]
pub struct Won<T> {
    pub value: T,
    pub rule: String,
}

/// What happened to one candidate rule, for `--explain` and decision logs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RuleTrace {
    /// The rule's own strings, shared: a decision traces every candidate.
    pub rule: Arc<str>,
    pub origin: Arc<str>,
    pub condition: Option<Arc<str>>,
    /// `matched`, `not matched`, `logged` (a log-only rule matched), or `error`.
    pub outcome: &'static str,
    pub detail: Option<String>,
}

/// A log-only rule that matched: what it would have done.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Logged {
    pub rule: String,
    /// `deny`, `ask` or `block`.
    pub would: &'static str,
    /// The reason as written in the policy (before `${{ }}`).
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    pub deny: Option<Won<String>>,
    /// The other rules that also denied.
    pub also_denied: Vec<String>,
    /// (priority, specificity) of the rule that gives the deny reason.
    deny_rank: Option<(i64, Specificity)>,
    /// The first asking rule; replies ask only when nothing denies.
    pub ask: Option<Won<String>>,
    pub block: Option<Won<String>>,
    pub arguments: Vec<(String, Won<Json>)>,
    pub include: Option<Vec<String>>,
    pub exclude: Vec<String>,
    pub fuel_delta: Option<i64>,
    pub fuel: Option<Won<i64>>,
    pub fallback: Option<Won<Fallback>>,
    pub request: Vec<(String, Won<Json>)>,
    pub matched: Vec<String>,
    /// Log-only rules that matched; they changed nothing.
    pub logged: Vec<Logged>,
    /// Rules whose condition or effect failed at run time.
    pub errors: Vec<(String, String)>,
    pub trace: Vec<RuleTrace>,
    /// How many rules the hook has, and how many the index let through.
    pub rules_for_hook: usize,
    pub candidates: usize,
}

impl Decision {
    pub fn is_empty(&self) -> bool {
        self.deny.is_none()
            && self.ask.is_none()
            && self.block.is_none()
            && self.arguments.is_empty()
            && self.include.is_none()
            && self.exclude.is_empty()
            && self.fuel_delta.is_none()
            && self.fuel.is_none()
            && self.fallback.is_none()
            && self.request.is_empty()
    }

    /// Whether no rule after the ones decided so far can change the deny
    /// or its reason. Rules arrive in (priority, load order), so a later
    /// rule's priority number is at least the holder's, and it takes the
    /// reason only with a lower (priority, specificity) rank: only a more
    /// specific test at the same priority would. Nothing is more specific
    /// than [`Specificity::Named`].
    pub fn deny_is_final(&self) -> bool {
        self.deny.is_some() && matches!(self.deny_rank, Some((_, Specificity::Named)))
    }

    /// A one-line summary of the run-time errors, for reasons and stderr.
    pub fn error_summary(&self) -> Option<String> {
        if self.errors.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .errors
            .iter()
            .map(|(rule, e)| format!("rule `{rule}`: {e}"))
            .collect();
        Some(parts.join("; "))
    }
}

/// Decides `payload` at `hook`.
pub fn decide(
    policy: &CompiledPolicy,
    hook: &str,
    payload: &Json,
    ctx: DecideContext<'_>,
) -> Decision {
    decide_through(policy, hook, payload, ctx, false)
}

/// [`decide`] for a caller that only replies: at a permission hook that
/// fails closed, the candidates after a final deny (see
/// [`Decision::deny_is_final`]) are left unevaluated, since nothing they
/// could do changes the reply. There the reply is the deny and its
/// reason whatever else matches: ask gives way to deny, no later rule can
/// take the reason, and a rule failing at run time only adds a note
/// beside a deny that fails closed anyway (with `on_error: fail_open` a
/// failure would turn the reply into "no opinion", so such policies, and
/// every other hook class, evaluate every candidate).
///
/// The decision says less than [`decide`]'s: which later rules would also
/// have matched, been logged or failed is not known, so a caller that
/// records more than the reply (a decision log, an explanation) must call
/// [`decide`]. The one difference a reply can show: the stderr note of a
/// later rule that would have failed at run time is not written (the
/// JSON, a deny, is the same).
pub fn decide_for_reply(
    policy: &CompiledPolicy,
    hook: &str,
    payload: &Json,
    ctx: DecideContext<'_>,
) -> Decision {
    let stops = crate::catalogue::hook(hook).is_some_and(|h| {
        h.class == crate::catalogue::HookClass::Permission
            && crate::engine::failure_mode(h, policy.on_error)
                == crate::catalogue::FailureMode::Closed
    });
    decide_through(policy, hook, payload, ctx, stops)
}

/// `stop_at_final_deny`: see [`decide_for_reply`].
fn decide_through(
    policy: &CompiledPolicy,
    hook: &str,
    payload: &Json,
    ctx: DecideContext<'_>,
    stop_at_final_deny: bool,
) -> Decision {
    let mut decision = Decision::default();
    let subjects = crate::matchers::Subjects::new(payload, hook, ctx.project_root, ctx.home);
    let Some((candidates, rule_count)) = policy.candidates(hook, payload, &subjects) else {
        return decision;
    };
    decision.rules_for_hook = rule_count;
    decision.candidates = candidates.len();
    let resolver = PayloadResolver {
        payload,
        hook,
        harness: ctx.harness,
        project_root: ctx.project_root,
    };
    for index in candidates {
        let rule = match policy.rule(index) {
            Ok(rule) => rule,
            Err(e) => {
                // A stored rule that no longer compiles: it fails like a
                // rule failing at run time, so the hook's failure mode applies.
                decision.errors.push((format!("#{index}"), e.to_string()));
                continue;
            }
        };
        let mut trace = RuleTrace {
            rule: rule.id.clone(),
            origin: rule.origin.clone(),
            condition: rule.when.as_ref().map(|c| c.source.clone()),
            outcome: "matched",
            detail: None,
        };
        let structured = if rule.matchers.is_empty() {
            crate::matchers::MatchOutcome::Match(Vec::new())
        } else {
            rule.matchers.evaluate(&subjects)
        };
        let matched = match structured {
            crate::matchers::MatchOutcome::NoMatch(why) => {
                trace.detail = Some(why);
                Ok(false)
            }
            crate::matchers::MatchOutcome::Error(e) => Err(EvalError(e)),
            crate::matchers::MatchOutcome::Match(reasons) => {
                if !reasons.is_empty() {
                    trace.detail = Some(reasons.join("; "));
                }
                match &rule.when {
                    None => Ok(true),
                    Some(cond) => expr::evaluate_bool_in(
                        expr::env_for_kept(&cond.expr, &cond.needs),
                        &cond.expr,
                        &resolver,
                    ),
                }
            }
        };
        let excepted = match matched {
            Ok(true) => rule
                .exceptions
                .iter()
                .find(|e| crate::packs::exception::applies(e.kind, &e.items, &subjects)),
            _ => None,
        };
        match matched {
            Ok(true) if excepted.is_some() => {
                let e = excepted.expect("checked");
                trace.outcome = "not matched";
                trace.detail = Some(format!(
                    "excepted by {}{}",
                    e.origin,
                    e.reason
                        .as_ref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                ));
            }
            Ok(true) if rule.log_only => {
                trace.outcome = "logged";
                decision.logged.push(Logged {
                    rule: rule.id.to_string(),
                    would: would(rule),
                    reason: rule.reason_source.clone(),
                });
            }
            Ok(true) => {
                if let Err(e) = apply(rule, &resolver, payload, &mut decision) {
                    trace.outcome = "error";
                    trace.detail = Some(e.0.clone());
                    decision.errors.push((rule.id.to_string(), e.0));
                } else {
                    decision.matched.push(rule.id.to_string());
                }
            }
            Ok(false) => trace.outcome = "not matched",
            Err(e) => {
                trace.outcome = "error";
                trace.detail = Some(e.0.clone());
                decision.errors.push((rule.id.to_string(), e.0));
            }
        }
        decision.trace.push(trace);
        if stop_at_final_deny && decision.deny_is_final() {
            break;
        }
    }
    decision
}

/// What a log-only rule would have done had it been enforced.
fn would(rule: &CompiledRule) -> &'static str {
    let fx = &rule.effects;
    if fx.deny.is_some() {
        "deny"
    } else if fx.block.is_some() {
        "block"
    } else if fx.ask.is_some() {
        "ask"
    } else {
        "change"
    }
}

fn apply(
    rule: &CompiledRule,
    resolver: &PayloadResolver<'_>,
    payload: &Json,
    d: &mut Decision,
) -> Result<(), EvalError> {
    let fx = &rule.effects;
    // Evaluate everything first so a failing effect leaves no partial trace.
    let deny = fx
        .deny
        .as_ref()
        .map(|t| render_text(t, resolver))
        .transpose()?;
    let ask = fx
        .ask
        .as_ref()
        .map(|t| render_text(t, resolver))
        .transpose()?;
    let block = fx
        .block
        .as_ref()
        .map(|t| render_text(t, resolver))
        .transpose()?;
    let arguments = fx
        .arguments
        .as_ref()
        .map(|o| render_object(o, resolver))
        .transpose()?;
    let request = fx
        .request
        .as_ref()
        .map(|o| render_object(o, resolver))
        .transpose()?;
    let fuel_delta = fx
        .fuel_delta
        .as_ref()
        .map(|v| render_int(v, resolver))
        .transpose()?;
    let fuel = fx
        .fuel
        .as_ref()
        .map(|v| render_int(v, resolver))
        .transpose()?;

    if let Some(reason) = deny {
        // Rules arrive in (priority, load order): a later one takes the
        // reason only at the same priority and with a more specific test.
        let rank = (rule.priority, rule.specificity);
        match (&d.deny, d.deny_rank) {
            (Some(current), Some(held)) if rank < held => {
                let displaced = current.rule.clone();
                d.also_denied.insert(0, displaced);
                d.deny = Some(won(&rule.id, reason));
                d.deny_rank = Some(rank);
            }
            (Some(_), _) => d.also_denied.push(rule.id.to_string()),
            (None, _) => {
                d.deny = Some(won(&rule.id, reason));
                d.deny_rank = Some(rank);
            }
        }
    }
    if let Some(reason) = ask {
        if d.ask.is_none() {
            d.ask = Some(won(&rule.id, reason));
        }
    }
    if let Some(message) = block {
        if d.block.is_none() {
            d.block = Some(won(&rule.id, message));
        }
    }
    for (key, value) in arguments.into_iter().flatten() {
        if !d.arguments.iter().any(|(k, _)| *k == key) {
            d.arguments.push((key, won(&rule.id, value)));
        }
    }
    for (key, value) in request.into_iter().flatten() {
        if !d.request.iter().any(|(k, _)| *k == key) {
            d.request.push((key, won(&rule.id, value)));
        }
    }
    if let Some(delta) = fuel_delta {
        d.fuel_delta = Some(d.fuel_delta.unwrap_or(0).saturating_add(delta));
    }
    if let Some(fuel) = fuel {
        if d.fuel.is_none() {
            d.fuel = Some(won(&rule.id, fuel));
        }
    }
    if let Some(fallback) = fx.fallback {
        if d.fallback.is_none() {
            d.fallback = Some(won(&rule.id, fallback));
        }
    }
    if let Some(tools) = &fx.tools {
        let offered = offered_tools(payload);
        if let Some(include) = &tools.include {
            let names: Vec<String> = offered
                .iter()
                .filter(|(name, ty)| include.iter().any(|p| p.matches(name, ty)))
                .map(|(name, _)| name.to_string())
                .collect();
            d.include = Some(match d.include.take() {
                None => names,
                Some(prev) => prev.into_iter().filter(|n| names.contains(n)).collect(),
            });
        }
        if let Some(exclude) = &tools.exclude {
            for (name, ty) in &offered {
                if exclude.iter().any(|p| p.matches(name, ty))
                    && !d.exclude.iter().any(|n| n == name)
                {
                    d.exclude.push(name.to_string());
                }
            }
            // Plain names are excluded even when not offered in this payload.
            for p in exclude {
                if let ToolPattern::Name(n) = p {
                    if !d.exclude.contains(n) {
                        d.exclude.push(n.clone());
                    }
                }
            }
        }
    }
    Ok(())
}

fn won<T>(rule: &str, value: T) -> Won<T> {
    Won {
        value,
        rule: rule.to_string(),
    }
}

/// `(name, type)` of every tool in a `pre_api_tools` payload.
pub fn offered_tools(payload: &Json) -> Vec<(&str, &str)> {
    payload
        .get("tools")
        .and_then(Json::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    Some((
                        t.get("name")?.as_str()?,
                        t.get("type").and_then(Json::as_str).unwrap_or(""),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn render_text(text: &Text, resolver: &PayloadResolver<'_>) -> Result<String, EvalError> {
    match text {
        Text::Literal(s) => Ok(s.clone()),
        Text::Parts(parts) => {
            // Room for the literal parts and a URL or a path or two: a
            // growing string copied its bytes over three times a reason.
            let literal: usize = parts
                .iter()
                .map(|p| match p {
                    TextPart::Text(t) => t.len(),
                    TextPart::Expr(_) => 0,
                })
                .sum();
            let mut out = String::with_capacity(literal + 96);
            for part in parts {
                match part {
                    TextPart::Text(t) => out.push_str(t),
                    TextPart::Expr(p) => match resolver.plain_string(p) {
                        Some(s) => out.push_str(s),
                        None => match expr::evaluate(p, resolver)? {
                            Json::String(s) => out.push_str(&s),
                            other => out.push_str(&other.to_string()),
                        },
                    },
                }
            }
            Ok(out)
        }
    }
}

fn render_value(value: &ValueTemplate, resolver: &PayloadResolver<'_>) -> Result<Json, EvalError> {
    match value {
        ValueTemplate::Literal(j) => Ok(j.clone()),
        ValueTemplate::Expr(p) => expr::evaluate(p, resolver),
        ValueTemplate::Text(t) => render_text(t, resolver).map(Json::String),
        ValueTemplate::Object(fields) => Ok(Json::Object(
            render_object(fields, resolver)?
                .into_iter()
                .collect::<Map<_, _>>(),
        )),
        ValueTemplate::Array(items) => items
            .iter()
            .map(|v| render_value(v, resolver))
            .collect::<Result<_, _>>()
            .map(Json::Array),
    }
}

fn render_object(
    fields: &[(String, ValueTemplate)],
    resolver: &PayloadResolver<'_>,
) -> Result<Vec<(String, Json)>, EvalError> {
    fields
        .iter()
        .map(|(k, v)| Ok((k.clone(), render_value(v, resolver)?)))
        .collect()
}

fn render_int(value: &IntValue, resolver: &PayloadResolver<'_>) -> Result<i64, EvalError> {
    match value {
        IntValue::Literal(i) => Ok(*i),
        IntValue::Expr(p) => match expr::evaluate(p, resolver)? {
            Json::Number(n) if n.is_i64() => Ok(n.as_i64().unwrap_or(0)),
            other => Err(EvalError(format!(
                "expected an integer, the expression gave {other}"
            ))),
        },
    }
}
