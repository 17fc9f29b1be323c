//! `policy eval` and `policy explain`: decide one event from the command
//! line and print the reply a harness would get, or how the decision was
//! reached. `--harness` says which harness asks; the answer comes from that
//! harness's real adapter, with the same project root, deadline and policy
//! loading as the hook call it reproduces.

use super::args::AskingHarness;
use super::output::{err, errln, out};
use super::ExitStatus;
use crate::adapters::tool_call::{Harness, PolicySource};
use crate::adapters::{chibi, coding_agent, hook_command, picoclaw};
use crate::catalogue;
use crate::engine::{self, Outcome, Prepared};
use crate::eval::DecideContext;
use crate::model::OnError;
use crate::render;
use crate::watchdog::Watchdog;
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// Policy files or directories.
    #[arg(long, short, required = true)]
    pub policy: Vec<PathBuf>,
    /// The harness whose answer to give. For a coding agent the payload is
    /// its hook event, exactly as `policy hook AGENT` reads it.
    #[arg(long, value_enum, default_value_t = AskingHarness::Chibi)]
    pub harness: AskingHarness,
    /// Hook point, for chibi (taken from the payload file when it is a {"hook", "payload"} capture).
    #[arg(long)]
    pub hook: Option<String>,
    /// Payload JSON file, or - for standard input.
    #[arg(long, default_value = "-")]
    pub payload: String,
    /// Explain the decision on standard error.
    #[arg(long)]
    pub explain: bool,
    /// Project root seen by conditions as `project_root`, for chibi
    /// (default: $CHIBI_PROJECT_ROOT, as the plugin reads it, else the
    /// current directory). A coding agent's event carries its own `cwd`.
    #[arg(long)]
    pub project_root: Option<String>,
    /// The context name `pre_api_tools` and `pre_api_request` rules see, for
    /// a coding agent (default `coding`, as `policy hook --context`) or
    /// PicoClaw (default: the request's meta.AgentID, as `policy serve`).
    #[arg(long)]
    pub context: Option<String>,
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
    if args.harness != AskingHarness::Chibi {
        if let Some(hook) = &args.hook {
            errln!(
                "error: --hook {hook} with --harness {}: the event names its own hook; drop --hook",
                match args.harness.agent() {
                    Some(agent) => agent.name(),
                    None => "picoclaw",
                }
            );
            return ExitStatus::CouldNotRun;
        }
        return match args.harness.agent() {
            Some(agent) => agent_event(agent, &args, bytes, explain_only),
            None => picoclaw_request(&args, bytes, explain_only),
        };
    }
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
            std::env::var("CHIBI_PROJECT_ROOT")
                .ok()
                .filter(|r| !r.is_empty())
        })
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_else(|| "/".into());
    // The plugin's deadline: past it, the hook's failure answer (a deny on
    // permission hooks) is printed instead, as chibi would receive it.
    let watchdog = Watchdog::arm(
        Watchdog::deadline_from_env(),
        Box::new(move |on_error, message| {
            let r = chibi::reply(hook, &Outcome::Failed(message.to_string()), on_error, None);
            (format!("{}\n", r.json), r.stderr.join("\n") + "\n")
        }),
    );
    let home = crate::paths::home_dir();
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
    let mut explanation =
        crate::explain::hook(hook.name, decision.as_ref(), explain_payload.as_ref(), ctx);
    explanation.push_str(&format!("  reply: {}\n", reply.json));
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
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

/// A coding agent's event, answered by its adapter as `policy hook AGENT`
/// answers it: the policy loaded per hook, without the cache or the
/// decision log (a question from the command line is not a decision).
fn agent_event(agent: Harness, args: &EvalArgs, bytes: Vec<u8>, explain_only: bool) -> ExitStatus {
    if matches!(
        agent,
        Harness::Cursor
            | Harness::Copilot
            | Harness::Windsurf
            | Harness::Cline
            | Harness::OpenCode
            | Harness::Kiro
    ) {
        return hook_file_agent_event(agent, args, bytes, explain_only);
    }
    // The hook's deadline: past it, the failure reply `policy hook` gives.
    let watchdog = Watchdog::arm(
        Watchdog::deadline_from_env(),
        Box::new(move |on_error, message| coding_agent::failure_text(agent, on_error, message)),
    );
    let mut source = PolicySource::per_hook(args.policy.clone(), None);
    watchdog.set_on_error(hook_command::on_error(&mut source));
    let home = crate::paths::home_dir();
    let input = Ok(bytes);
    let context = args
        .context
        .as_deref()
        .unwrap_or(coding_agent::DEFAULT_CONTEXT);
    let reply = coding_agent::handle(agent, &mut source, &input, context, home.as_deref());
    let mut explanation = match input.as_ref().ok().map(|b| engine::parse_payload(b)) {
        Some(Ok(event)) => {
            crate::explain::agent_event(&mut source, agent, &event, context, home.as_deref())
        }
        Some(Err(e)) => format!("{}: the event is not usable: {e}\n", agent.name()),
        None => String::new(),
    };
    explanation.push_str(&format!("  reply: {}\n", reply.json));
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
    if explain_only {
        out!("{explanation}");
    } else {
        if args.explain {
            err!("{explanation}");
        }
        for line in &reply.stderr {
            errln!("{line}");
        }
        super::output::outln!("{}", reply.json);
    }
    if reply.kind == "error" {
        ExitStatus::CouldNotRun
    } else {
        ExitStatus::Success
    }
}

/// A Cursor, Copilot CLI or Windsurf event, answered by the adapter
/// `policy hook AGENT` runs: stdout as the agent would read it, stderr, and
/// for Windsurf the exit status it would see (2 denies).
fn hook_file_agent_event(
    agent: Harness,
    args: &EvalArgs,
    bytes: Vec<u8>,
    explain_only: bool,
) -> ExitStatus {
    use crate::adapters::hook_command::Protocol;
    use crate::adapters::{
        cline::Cline, copilot::Copilot, cursor::Cursor, kiro::Kiro, opencode::OpenCode,
        windsurf::Windsurf,
    };
    fn arm<P: Protocol>() -> Watchdog {
        let watchdog = Watchdog::arm(
            Watchdog::deadline_from_env(),
            Box::new(|on_error, message| {
                let a = hook_command::failure::<P>(on_error, message);
                (a.stdout, a.stderr.join("\n") + "\n")
            }),
        );
        watchdog.exit_codes(
            [None, Some(OnError::FailClosed), Some(OnError::FailOpen)]
                .map(|setting| hook_command::failure::<P>(setting, "").exit),
        );
        watchdog
    }
    // The hook's deadline: past it, the failure reply `policy hook` gives.
    let watchdog = match agent {
        Harness::Cursor => arm::<Cursor>(),
        Harness::Copilot => arm::<Copilot>(),
        Harness::Cline => arm::<Cline>(),
        Harness::OpenCode => arm::<OpenCode>(),
        Harness::Kiro => arm::<Kiro>(),
        _ => arm::<Windsurf>(),
    };
    let mut source = PolicySource::per_hook(args.policy.clone(), None);
    watchdog.set_on_error(hook_command::on_error(&mut source));
    let home = crate::paths::home_dir();
    let input = Ok(bytes);
    let context = args
        .context
        .as_deref()
        .unwrap_or(coding_agent::DEFAULT_CONTEXT);
    let a = match agent {
        Harness::Cursor => Cursor::answer(&mut source, &input, context, home.as_deref()),
        Harness::Copilot => Copilot::answer(&mut source, &input, context, home.as_deref()),
        Harness::Cline => Cline::answer(&mut source, &input, context, home.as_deref()),
        Harness::OpenCode => OpenCode::answer(&mut source, &input, context, home.as_deref()),
        Harness::Kiro => Kiro::answer(&mut source, &input, context, home.as_deref()),
        _ => Windsurf::answer(&mut source, &input, context, home.as_deref()),
    };
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
    let explanation = format!(
        "{}: decision {}; rules matched: {}; exit status {}\n  reply: {}\n",
        agent.name(),
        a.kind,
        if a.matched.is_empty() {
            "none".to_string()
        } else {
            a.matched.join(", ")
        },
        a.exit,
        a.stdout.trim_end()
    );
    if explain_only {
        out!("{explanation}");
    } else {
        if args.explain {
            err!("{explanation}");
        }
        for line in &a.stderr {
            errln!("{line}");
        }
        out!("{}", a.stdout);
    }
    match (a.kind, a.exit) {
        ("error", _) => ExitStatus::CouldNotRun,
        (_, 2) => ExitStatus::Problems,
        _ => ExitStatus::Success,
    }
}

/// One PicoClaw JSON-RPC request, answered as `policy serve picoclaw`
/// answers it: the whole policy compiled once, the project root the
/// server's working directory (here `--project-root`, else this one).
fn picoclaw_request(args: &EvalArgs, bytes: Vec<u8>, explain_only: bool) -> ExitStatus {
    let prepared = engine::prepare(&args.policy, None);
    let broken = match &prepared {
        Prepared::Broken { message, .. } => Some(message.clone()),
        Prepared::Ready(_) => None,
    };
    if let Some(message) = &broken {
        errln!("hook-policy: picoclaw: the policy does not load; tool calls are denied until it does: {message}");
    }
    let on_error = match &prepared {
        Prepared::Ready(p) => p.on_error,
        Prepared::Broken { .. } => None,
    };
    let live = picoclaw::LivePolicy::new(prepared);
    // The server's deadline: past it, the request's failure reply.
    let head: Vec<u8> = bytes.iter().copied().take(4096).collect();
    let watchdog = Watchdog::arm(
        Watchdog::deadline_from_env_or(picoclaw::DEFAULT_DEADLINE),
        Box::new(move |on_error, message| {
            let reply = picoclaw::failure_reply_to(&head, on_error, message)
                .map_or_else(String::new, |r| format!("{r}\n"));
            (reply, format!("hook-policy: picoclaw: {message}\n"))
        }),
    );
    watchdog.set_on_error(on_error);
    let project_root = args
        .project_root
        .clone()
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_else(|| "/".into());
    let home = crate::paths::home_dir();
    let sc = picoclaw::ServeContext {
        project_root: project_root.clone(),
        home: home.clone(),
        context_name: args.context.clone(),
    };
    let line: Vec<u8> = bytes.iter().copied().filter(|b| *b != b'\n').collect();
    let reply = picoclaw::handle_line(&live, &line, &sc);
    let shown = reply.as_ref().map_or_else(
        || "no reply (a notification)".to_string(),
        ToString::to_string,
    );
    let mut explanation = match serde_json::from_slice::<serde_json::Value>(&line) {
        Ok(request) => crate::explain::picoclaw_request(
            &mut PolicySource::compiled(live.get()),
            &request,
            args.context.as_deref(),
            &project_root,
            home.as_deref(),
        ),
        Err(e) => format!("picoclaw: the request is not JSON: {e}\n"),
    };
    explanation.push_str(&format!("  reply: {shown}\n"));
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
    if explain_only {
        out!("{explanation}");
    } else {
        if args.explain {
            err!("{explanation}");
        }
        if let Some(reply) = reply {
            super::output::outln!("{reply}");
        }
    }
    if broken.is_some() {
        ExitStatus::CouldNotRun
    } else {
        ExitStatus::Success
    }
}
