//! Explanations: how a decision was reached, in words, for `policy explain`
//! and `policy eval --explain`. For chibi that is one hook's decision; for a
//! coding agent's tool call it is every canonical question the adapter asks
//! (`pre_tool`, `pre_api_tools`, the permission hooks of the tool's action,
//! the native event), each explained the same way. The reply itself always
//! comes from the real adapter; this only says how it came about.

use crate::adapters::tool_call::{self, Harness, PolicySource};
use crate::engine::{self, Outcome, Prepared};
use crate::eval::{DecideContext, Decision};
use serde_json::{json, Map, Value as Json};

/// How one hook's decision was reached: every candidate rule, whether it
/// matched and why, and which rule each effect comes from.
pub fn hook(
    hook: &str,
    decision: Option<&Decision>,
    payload: Option<&Json>,
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
                    "logged" => "○",
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
                        "matched" | "logged" => "because",
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
            for l in &d.logged {
                out.push_str(&format!("  log only: `{}` would {}\n", l.rule, l.would));
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
    out
}

/// One question of a tool call: the hook asked and the payload it sees.
struct Question {
    hook: &'static str,
    payload: Json,
}

/// How a coding agent's event is decided, question by question, as
/// [`tool_call::decide_call`] asks them: it stops at the first deny or block,
/// and later questions see arguments an earlier `pre_tool` rewrote.
pub fn agent_event(
    source: &mut PolicySource,
    harness: Harness,
    event: &Json,
    context_name: &str,
    home: Option<&str>,
) -> String {
    let name = event
        .get("hook_event_name")
        .and_then(Json::as_str)
        .unwrap_or("");
    let cwd = event
        .get("cwd")
        .and_then(Json::as_str)
        .unwrap_or("/")
        .to_string();
    let ctx = DecideContext {
        harness: harness.name(),
        project_root: &cwd,
        home,
    };
    let tool_event = if harness == Harness::Gemini {
        "BeforeTool"
    } else {
        "PreToolUse"
    };
    let mut out = String::new();
    if harness == Harness::Gemini && name == "BeforeModel" {
        let body = event
            .get("llm_request")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let payload = json!({"context_name": context_name, "request_body": body});
        out.push_str(&format!(
            "{}: BeforeModel is asked as pre_api_request\n",
            harness.name()
        ));
        ask(source, "pre_api_request", &payload, ctx, &mut out);
        return out;
    }
    if name != tool_event {
        out.push_str(&format!(
            "{}: `{name}` is not an event the policy decides; the reply is {{}}\n",
            harness.name()
        ));
        return out;
    }
    let tool = event.get("tool_name").and_then(Json::as_str).unwrap_or("");
    let args = event
        .get("tool_input")
        .cloned()
        .unwrap_or_else(|| json!({}));
    out.push_str(&format!("{}: {name} ", harness.name()));
    let call = ToolCall {
        harness,
        tool,
        args,
        native: event,
        args_key: "tool_input",
        approval: false,
    };
    call.walk(source, context_name, ctx, &mut out);
    out
}

/// How PicoClaw's JSON-RPC request is decided (`hook.before_tool`,
/// `hook.approve_tool`; `hook.before_llm` is `pre_api_request`), as
/// `policy serve picoclaw` decides it. `context_name` is `--context`, else
/// the request's `meta.AgentID`, else `default`, as the server takes it.
pub fn picoclaw_request(
    source: &mut PolicySource,
    request: &Json,
    context_name: Option<&str>,
    project_root: &str,
    home: Option<&str>,
) -> String {
    let method = request.get("method").and_then(Json::as_str).unwrap_or("");
    let empty = json!({});
    let params = request.get("params").unwrap_or(&empty);
    let context = context_name
        .or_else(|| params.pointer("/meta/AgentID").and_then(Json::as_str))
        .filter(|c| !c.is_empty())
        .unwrap_or("default");
    let ctx = DecideContext {
        harness: Harness::PicoClaw.name(),
        project_root,
        home,
    };
    let mut out = String::new();
    let approval = match method {
        "hook.before_tool" => false,
        "hook.approve_tool" => true,
        _ => {
            out.push_str(&format!(
                "picoclaw: `{method}` is answered without a tool-call decision (see the reply)\n"
            ));
            return out;
        }
    };
    let tool = params.get("tool").and_then(Json::as_str).unwrap_or("");
    let args = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    out.push_str(&format!("picoclaw: {method} "));
    let call = ToolCall {
        harness: Harness::PicoClaw,
        tool,
        args,
        native: params,
        args_key: "arguments",
        approval,
    };
    call.walk(source, context, ctx, &mut out);
    out
}

/// A harness's tool call, in canonical terms.
struct ToolCall<'a> {
    harness: Harness,
    tool: &'a str,
    args: Json,
    /// The harness's own payload, for its native event's rules.
    native: &'a Json,
    /// Where `native` holds the arguments.
    args_key: &'static str,
    approval: bool,
}

impl ToolCall<'_> {
    /// The questions [`tool_call::decide_call`] asks, in its order; it stops
    /// at the first deny or block, and later questions see arguments an
    /// earlier `pre_tool` rewrote.
    fn walk(
        self,
        source: &mut PolicySource,
        context_name: &str,
        ctx: DecideContext<'_>,
        out: &mut String,
    ) {
        let ToolCall {
            harness,
            tool,
            mut args,
            native,
            args_key,
            approval,
        } = self;
        let kind = tool_call::mapping(harness, tool).map_or("other", |m| m.tool_type);
        out.push_str(&format!(
            "of tool `{tool}` ({kind}) is asked as the questions below, in order\n"
        ));
        // pre_tool sees the call in canonical terms, as the adapters ask it.
        let args_map: Map<String, Json> = args.as_object().cloned().unwrap_or_default();
        let view = crate::catalogue::tools::canonical(harness, tool);
        let first = match view {
            Some(c) => {
                json!({"tool_name": c.name, "arguments": tool_call::to_canonical(c, &args_map)})
            }
            None => json!({"tool_name": tool, "arguments": args}),
        };
        match ask(source, "pre_tool", &first, ctx, out) {
            Step::Stop => return,
            Step::Go(Some(d)) if !d.arguments.is_empty() => {
                let mut m = args_map.clone();
                for (k, w) in &d.arguments {
                    match view {
                        Some(c) => {
                            let (k, v) = tool_call::to_native(c, k, w.value.clone());
                            m.insert(k, v);
                        }
                        None => {
                            m.insert(k.clone(), w.value.clone());
                        }
                    }
                }
                args = Json::Object(m);
            }
            Step::Go(_) => {}
        }
        let offered =
            json!({"context_name": context_name, "tools": [{"name": tool, "type": kind}]});
        if let Step::Stop = ask(source, "pre_api_tools", &offered, ctx, out) {
            return;
        }
        let call_dir = native.get("cwd").and_then(Json::as_str).filter(|d| {
            !d.is_empty() && d.trim_end_matches('/') != ctx.project_root.trim_end_matches('/')
        });
        let checks = tool_call::permission_checks(harness, tool, &args, ctx.project_root, call_dir);
        let mut questions: Vec<Question> = match checks {
            Ok(checks) => checks
                .into_iter()
                .map(|c| Question {
                    hook: c.hook,
                    payload: c.payload,
                })
                .collect(),
            Err(message) => {
                out.push_str(&format!("  denied before any rule: {message}\n"));
                return;
            }
        };
        let rewritten = Some(&args) != native.get(args_key);
        let mut native = native.clone();
        if let (Some(obj), true) = (native.as_object_mut(), rewritten) {
            // Native rules see the rewritten arguments too.
            obj.insert(args_key.into(), args.clone());
        }
        questions.push(Question {
            hook: tool_call::native_hook(harness, approval),
            payload: native,
        });
        for q in &questions {
            if let Step::Stop = ask(source, q.hook, &q.payload, ctx, out) {
                break;
            }
        }
    }
}

enum Step {
    /// The adapter asks no further question: a deny, a block, a tool not
    /// offered, or a failure that fails closed.
    Stop,
    Go(Option<Decision>),
}

fn ask(
    source: &mut PolicySource,
    hook: &'static str,
    payload: &Json,
    ctx: DecideContext<'_>,
    out: &mut String,
) -> Step {
    let policy = match source.get(hook) {
        Prepared::Ready(p) => p,
        Prepared::Broken { message, .. } => {
            out.push_str(&format!("{hook}: the policy does not load: {message}\n"));
            return Step::Stop;
        }
    };
    match engine::run(policy, hook, payload, ctx) {
        Outcome::Failed(message) => {
            out.push_str(&format!("{hook}: the policy could not decide: {message}\n"));
            let closed = crate::catalogue::hook(hook).is_some_and(|h| {
                engine::failure_mode(h, policy.on_error) == crate::catalogue::FailureMode::Closed
            });
            if closed {
                Step::Stop
            } else {
                Step::Go(None)
            }
        }
        Outcome::Decided(d) => {
            out.push_str(&self::hook(hook, Some(&d), Some(payload), ctx));
            let not_offered = hook == "pre_api_tools" && {
                let tool = payload["tools"][0]["name"].as_str().unwrap_or("");
                d.include
                    .as_ref()
                    .is_some_and(|i| !i.iter().any(|n| n == tool))
                    || d.exclude.iter().any(|n| n == tool)
            };
            if d.deny.is_some() || d.block.is_some() || not_offered {
                out.push_str("  (the adapter asks nothing further)\n");
                Step::Stop
            } else {
                Step::Go(Some(d))
            }
        }
    }
}
