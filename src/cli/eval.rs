//! `policy eval` and `policy explain`: decide one payload from the command
//! line and print the reply a harness would get, or how the decision was
//! reached. They answer as the chibi plugin does, so a decision can be
//! reproduced without running chibi.

use super::output::{err, errln, out};
use super::ExitStatus;
use crate::adapters::chibi;
use crate::catalogue;
use crate::engine::{self, Outcome, Prepared};
use crate::eval::{DecideContext, Decision};
use crate::render;
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// Policy files or directories.
    #[arg(long, short, required = true)]
    pub policy: Vec<PathBuf>,
    /// Hook point (taken from the payload file when it is a {"hook", "payload"} capture).
    #[arg(long)]
    pub hook: Option<String>,
    /// Payload JSON file, or - for standard input.
    #[arg(long, default_value = "-")]
    pub payload: String,
    /// Explain the decision on standard error.
    #[arg(long)]
    pub explain: bool,
    /// Project root seen by conditions as `project_root`.
    #[arg(long)]
    pub project_root: Option<String>,
}

fn read_payload(source: &str) -> Result<Vec<u8>, String> {
    if source == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(source).map_err(|e| format!("cannot read {source}: {e}"))
    }
}

pub fn run(args: EvalArgs, explain_only: bool) -> ExitStatus {
    let bytes = match read_payload(&args.payload) {
        Ok(b) => b,
        Err(e) => {
            errln!("error: {e}");
            return ExitStatus::CouldNotRun;
        }
    };
    // Accept captured fixtures, {"hook": ..., "payload": {...}}, as well as bare payloads.
    let parsed = engine::parse_payload(&bytes);
    let (envelope_hook, payload) = match parsed {
        Ok(v) => match (v.get("hook").and_then(|h| h.as_str()), v.get("payload")) {
            (Some(h), Some(p)) if v.as_object().is_some_and(|o| o.len() == 2) && p.is_object() => {
                (Some(h.to_string()), Ok(p.clone()))
            }
            _ => (None, Ok(v)),
        },
        Err(e) => (None, Err(e)),
    };
    let Some(hook_name) = args.hook.or(envelope_hook) else {
        errln!("error: no hook point: pass --hook NAME (`policy hooks` lists them)");
        return ExitStatus::CouldNotRun;
    };
    let Some(hook) = catalogue::hook(&hook_name) else {
        let hint = crate::diagnostic::did_you_mean(&hook_name, catalogue::hook_names());
        errln!(
            "error: unknown hook point `{hook_name}`{}",
            hint.map(|h| format!("; did you mean `{h}`?"))
                .unwrap_or_default()
        );
        return ExitStatus::CouldNotRun;
    };
    let project_root = args
        .project_root
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_else(|| "/".into());
    let home = std::env::var("HOME").ok();
    let ctx = DecideContext {
        harness: chibi::HARNESS,
        project_root: &project_root,
        home: home.as_deref(),
    };

    let explain_payload = payload.as_ref().ok().cloned();
    let (reply, decision, failed) = match engine::prepare(&args.policy, Some(hook.name)) {
        Prepared::Broken {
            message,
            diagnostics,
        } => {
            err!("{}", render::human(&diagnostics, false));
            let outcome = Outcome::Failed(format!("the policy does not load: {message}"));
            (chibi::reply(hook, &outcome, None, None), None, true)
        }
        Prepared::Ready(policy) => match payload {
            Err(e) => (
                chibi::reply(hook, &Outcome::Failed(e), policy.on_error, None),
                None,
                true,
            ),
            Ok(payload) => {
                let outcome = engine::run(&policy, hook.name, &payload, ctx);
                let reply = chibi::reply(hook, &outcome, policy.on_error, Some(&payload));
                let decision = match outcome {
                    Outcome::Decided(d) => Some(d),
                    Outcome::Failed(_) => None,
                };
                (reply, decision, false)
            }
        },
    };
    let explanation = explain(
        hook.name,
        decision.as_ref(),
        &reply,
        explain_payload.as_ref(),
        ctx,
    );
    if explain_only {
        out!("{explanation}");
    } else {
        if args.explain {
            err!("{explanation}");
        }
        for line in &reply.stderr {
            errln!("{line}");
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", reply.json);
    }
    if failed {
        ExitStatus::CouldNotRun
    } else {
        ExitStatus::Success
    }
}

fn explain(
    hook: &str,
    decision: Option<&Decision>,
    reply: &chibi::Reply,
    payload: Option<&serde_json::Value>,
    ctx: DecideContext<'_>,
) -> String {
    let mut out = String::new();
    match decision {
        None => out.push_str(&format!("{hook}: the policy could not decide\n")),
        Some(d) => {
            out.push_str(&format!(
                "{hook}: {} rule(s) for this hook, {} candidate(s) after indexing\n",
                d.rules_for_hook, d.candidates
            ));
            for t in &d.trace {
                let mark = match t.outcome {
                    "matched" => "✓",
                    "not matched" => "✗",
                    _ => "!",
                };
                out.push_str(&format!(
                    "  {mark} {} ({}) {}\n",
                    t.rule, t.origin, t.outcome
                ));
                if let Some(c) = &t.condition {
                    out.push_str(&format!("      when: {}\n", c.trim()));
                    if let Some(payload) = payload {
                        let resolver = crate::expr::PayloadResolver {
                            payload,
                            hook,
                            harness: ctx.harness,
                            project_root: ctx.project_root,
                        };
                        for (part, value) in crate::expr::explain_parts(c, &resolver) {
                            out.push_str(&format!("        {part}  ⇒ {value}\n"));
                        }
                    }
                }
                if let Some(detail) = &t.detail {
                    let label = match t.outcome {
                        "matched" => "because",
                        "not matched" => "why not",
                        _ => "error",
                    };
                    out.push_str(&format!("      {label}: {detail}\n"));
                }
            }
            if let Some(deny) = &d.deny {
                out.push_str(&format!("  deny: `{}` gives the reason", deny.rule));
                if !d.also_denied.is_empty() {
                    out.push_str(&format!("; also denied by: {}", d.also_denied.join(", ")));
                }
                out.push('\n');
            }
            if let Some(a) = &d.ask {
                if d.deny.is_none() {
                    out.push_str(&format!("  ask: `{}` gives the reason\n", a.rule));
                } else {
                    out.push_str(&format!(
                        "  ask from `{}` is overridden by the deny\n",
                        a.rule
                    ));
                }
            }
            if let Some(b) = &d.block {
                out.push_str(&format!("  block: `{}` gives the message\n", b.rule));
            }
            for (k, w) in &d.arguments {
                out.push_str(&format!("  arguments.{k}: set by `{}`\n", w.rule));
            }
            if let Some(inc) = &d.include {
                out.push_str(&format!("  include (intersection): {}\n", inc.join(", ")));
            }
            if !d.exclude.is_empty() {
                out.push_str(&format!("  exclude (union): {}\n", d.exclude.join(", ")));
            }
            if let Some(delta) = d.fuel_delta {
                out.push_str(&format!("  fuel_delta (sum): {delta}\n"));
            }
            if let Some(f) = &d.fuel {
                out.push_str(&format!("  fuel: {} from `{}`\n", f.value, f.rule));
            }
            if let Some(f) = &d.fallback {
                out.push_str(&format!(
                    "  fallback: {} from `{}`\n",
                    f.value.as_str(),
                    f.rule
                ));
            }
            for (k, w) in &d.request {
                out.push_str(&format!(
                    "  request_body.{k}: {} from `{}`\n",
                    w.value, w.rule
                ));
            }
        }
    }
    out.push_str(&format!("  reply: {}\n", reply.json));
    out
}
