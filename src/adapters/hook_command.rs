//! The process side of a command hook (one event per process) shared by the
//! Cursor, Copilot CLI, Windsurf and Cline adapters: read the event, arm the
//! deadline, decide, log, reply.
//!
//! Each of these agents lets a tool call through when its hook fails (a
//! crash, a timeout, output it cannot read): Copilot CLI lets a timed-out
//! hook through, Cursor blocks only when the entry says `failClosed`,
//! Windsurf blocks only on exit status 2, and Cline runs the tool unless
//! the hook's JSON says `cancel`. So a failure must never be left to
//! the agent: every path, the deadline included, ends in the adapter's own
//! deny reply (unless the policy says `on_error: fail_open`).
//!
//! The protocol itself (what the event looks like, how a deny is said) is
//! the adapter's: it implements [`Protocol`].

use super::coding_agent::PolicyFrom;
use super::tool_call::{CallDecision, Harness, PolicySource, Verdict};
use crate::catalogue::{self, FailureMode};
use crate::decision_log;
use crate::engine::{self, Prepared};
use crate::model::OnError;
use crate::watchdog::Watchdog;
use serde_json::Value as Json;
use std::io::{Read, Write};

/// What the agent is told about one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The whole of stdout (empty: print nothing).
    pub stdout: String,
    pub stderr: Vec<String>,
    pub exit: u8,
    /// For the decision log: deny, none or error.
    pub kind: &'static str,
    pub matched: Vec<String>,
    pub rule: Option<String>,
    /// The deciding rule's reason as written, for the decision log.
    pub reason_template: Option<String>,
    /// What went wrong, for the decision log.
    pub error: Option<String>,
    /// Log-only rules that matched: what they would have done.
    pub logged: Vec<crate::eval::Logged>,
}

/// One agent's hook protocol.
pub trait Protocol {
    const HARNESS: Harness;

    /// Decides one event (`Err`: stdin could not be read), as `policy hook`
    /// does.
    fn answer(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
    ) -> Answer {
        Self::answer_in(source, input, context_name, home, None)
    }

    /// [`Protocol::answer`], with the project root to use where the hook
    /// process's working directory would be (`policy test` cases give one).
    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer;

    /// How the agent is told "no": the reply for a deny with this reason.
    fn deny(reason: &str) -> Said;

    /// How the agent is told nothing: its tool call goes on as if we were
    /// not there (never an explicit allow, which would override the user's
    /// own permission settings).
    fn nothing() -> Said;

    /// The event's name for the decision log's `hook` (after `AGENT.`).
    fn event_name(event: &Json) -> Option<&str>;

    /// The ids the event carries, for finding a record in the agent's own
    /// history: session, turn, tool call.
    fn ids(event: &Json) -> [Option<&str>; 3];
}

/// A reply in an agent's words: stdout, a first stderr line, exit status.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Said {
    pub stdout: String,
    pub stderr: Option<String>,
    pub exit: u8,
}

impl Said {
    /// An answer saying this, with `notes` after its own stderr line.
    fn answer(self, notes: Vec<String>, kind: &'static str) -> Answer {
        Answer {
            stdout: self.stdout,
            stderr: self.stderr.into_iter().chain(notes).collect(),
            exit: self.exit,
            kind,
            matched: Vec::new(),
            rule: None,
            reason_template: None,
            error: None,
            logged: Vec::new(),
        }
    }
}

/// The answer for an event that carries nothing to decide.
pub fn quiet<P: Protocol>() -> Answer {
    P::nothing().answer(Vec::new(), "none")
}

/// The canonical verdict in the agent's words. None of these agents can
/// rewrite a call safely (see each adapter), so a rewrite denies, saying so;
/// an ask arrives here already turned into a deny (`Harness::can_ask`).
pub fn render<P: Protocol>(d: CallDecision) -> Answer {
    let harness = P::HARNESS;
    let stderr: Vec<String> = d
        .notes
        .iter()
        .map(|n| format!("hook-policy: {}: {n}", harness.name()))
        .collect();
    let reason = match &d.verdict {
        Verdict::NoOpinion => None,
        Verdict::Deny(r) | Verdict::Ask(r) => Some(r.clone()),
        Verdict::Rewrite(_) => Some(format!(
            "the policy rewrites the arguments of this call, which {} hooks cannot do, so it is denied [hook-policy rule: {}]",
            harness.title(),
            d.matched.join(", ")
        )),
    };
    let (said, kind) = match &reason {
        None => (P::nothing(), "none"),
        Some(r) => (P::deny(r), "deny"),
    };
    let kind = match (d.failed, kind) {
        (true, _) => "error",
        // Only log-only rules had something to say.
        (false, "none") if !d.logged.is_empty() => "log",
        (false, kind) => kind,
    };
    Answer {
        error: (d.failed || !d.notes.is_empty()).then(|| d.notes.join("; ")),
        reason_template: d.reason_template,
        matched: d.matched,
        rule: d.rule,
        logged: d.logged,
        ..said.answer(stderr, kind)
    }
}

/// The answer when the event cannot be decided at all (unreadable, not the
/// shape the documentation gives, a policy that does not load): the tool
/// gate's failure mode, so a deny unless the policy fails open.
pub fn failure<P: Protocol>(on_error: Option<OnError>, message: &str) -> Answer {
    let hook = catalogue::hook("pre_tool").expect("catalogued");
    let note = format!("hook-policy: {}: {message}", P::HARNESS.name());
    let said = if engine::failure_mode(hook, on_error) == FailureMode::Open {
        P::nothing()
    } else {
        P::deny(&format!(
            "hook-policy could not decide, so it denies (fail closed): {message}"
        ))
    };
    Answer {
        error: Some(message.to_string()),
        ..said.answer(vec![note], "error")
    }
}

/// Why an event whose name the adapter does not know is denied.
pub fn unknown_event(name: &str, handled: &str) -> String {
    format!(
        "unknown event `{}`: this hook handles {handled}; check the hook entry",
        name.chars().take(64).collect::<String>()
    )
}

/// The policy's `settings.log`, as far as the policy loads.
pub fn configured_log(source: &mut PolicySource) -> Option<std::path::PathBuf> {
    match source.get("pre_tool") {
        Prepared::Ready(p) => p.log.clone(),
        Prepared::Broken { .. } => None,
    }
}

/// The policy's `on_error`, as far as it is known.
pub fn on_error(source: &mut PolicySource) -> Option<OnError> {
    match source.get("pre_tool") {
        Prepared::Ready(p) => p.on_error,
        Prepared::Broken { .. } => None,
    }
}

/// The event as JSON, or the failure answer.
pub fn parse<P: Protocol>(
    source: &mut PolicySource,
    input: &Result<Vec<u8>, String>,
) -> Result<Json, Answer> {
    input
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|b| engine::parse_payload(b))
        .map_err(|e| failure::<P>(on_error(source), &e))
}

/// Tool arguments that arrive either as an object or as a JSON string
/// holding one (Copilot CLI's `toolArgs`, Cursor's MCP `tool_input`);
/// `null` or absent is no arguments. Anything else cannot be judged.
pub fn object_or_json_text(value: Option<&Json>, what: &str) -> Result<Json, String> {
    match value {
        None | Some(Json::Null) => Ok(Json::Object(Default::default())),
        Some(v @ Json::Object(_)) => Ok(v.clone()),
        Some(Json::String(text)) => match serde_json::from_str::<Json>(text) {
            Ok(v @ Json::Object(_)) => Ok(v),
            _ => Err(format!(
                "{what} is a string that does not hold a JSON object"
            )),
        },
        Some(_) => Err(format!("{what} is neither an object nor JSON text")),
    }
}

/// The project root: `HOOK_POLICY_PROJECT_ROOT` when set, else what the
/// adapter read from a source the model cannot steer, else `fallback`,
/// else the hook process's working directory (the agent starts it).
pub fn project_root(trusted: Option<&str>, fallback: Option<&str>) -> String {
    std::env::var("HOOK_POLICY_PROJECT_ROOT")
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| trusted.filter(|t| !t.is_empty()).map(str::to_string))
        .or_else(|| fallback.map(str::to_string))
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_else(|| "/".into())
}

/// Runs one hook call: the reply on stdout, notes on stderr, and the
/// protocol's exit status (also when the deadline answers).
pub fn run<P: Protocol>(
    policy: &PolicyFrom,
    context_name: &str,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    let input = super::chibi::read_bounded(stdin);
    let watchdog = Watchdog::arm(
        Watchdog::deadline_from_env(),
        Box::new(|on_error, message| {
            let a = failure::<P>(on_error, message);
            (a.stdout, a.stderr.join("\n") + "\n")
        }),
    );
    watchdog.exit_codes(
        [None, Some(OnError::FailClosed), Some(OnError::FailOpen)]
            .map(|setting| failure::<P>(setting, "").exit),
    );
    let started = std::time::Instant::now();
    let cache = super::coding_agent::cache_dir();
    let new_log = |path| CallLog::new(path, P::HARNESS, &input, P::event_name, P::ids);
    // A log named by the environment is known before the policy loads: a
    // deadline passing while it loads is logged too.
    let mut log = decision_log::from_env().map(new_log);
    if let Some(l) = &log {
        l.arm(&watchdog, failure_decision);
    }
    // A policy list that cannot be read is a policy that does not load.
    let mut source = match policy.paths() {
        Ok(paths) => PolicySource::per_hook(paths, cache.as_deref()),
        Err(message) => PolicySource::broken(message),
    };
    watchdog.set_on_error(on_error(&mut source));
    if log.is_none() {
        log = configured_log(&mut source).map(new_log);
        if let Some(l) = &log {
            l.arm(&watchdog, failure_decision);
        }
    }
    if log.is_none() {
        // Only the reply is told: a final deny can end its hook's rules.
        source.reply_only();
    }
    let home = crate::paths::home_dir();
    let mut answer = P::answer(&mut source, &input, context_name, home.as_deref());
    // Claimed before the line is written: whoever answers logs the call.
    if !watchdog.claim() {
        watchdog.yield_forever();
    }
    if let Some(l) = &log {
        let entry = Entry {
            decision: answer.kind,
            matched: &answer.matched,
            logged: &answer.logged,
            rule: answer.rule.as_deref(),
            reason_template: answer.reason_template.as_deref(),
            error: answer.error.as_deref(),
        };
        if let Err(e) = l.write(&entry, started) {
            answer.stderr.push(e);
        }
    }
    for line in &answer.stderr {
        let _ = writeln!(stderr, "{line}");
    }
    let _ = stdout.write_all(answer.stdout.as_bytes());
    let _ = stdout.flush();
    // The process ends now; dropping compiled policies is wasted work.
    std::mem::forget(source);
    i32::from(answer.exit)
}

/// The decision log of one command-hook call (every agent but chibi and
/// PicoClaw): where the line goes and what identifies the event, known
/// before deciding, so that a call the deadline answers is logged as well
/// ([`Watchdog::log_to`]) and each call writes exactly one line.
pub struct CallLog<'a> {
    path: std::path::PathBuf,
    harness: &'static str,
    /// `AGENT.EVENT`, the agent's own event name.
    hook: String,
    /// Session, turn and tool-call ids, when short.
    ids: [Option<String>; 3],
    payload: &'a [u8],
    payload_sha256: String,
}

/// What a log line says about the decision.
pub struct Entry<'a> {
    pub decision: &'a str,
    pub matched: &'a [String],
    pub logged: &'a [crate::eval::Logged],
    pub rule: Option<&'a str>,
    pub reason_template: Option<&'a str>,
    pub error: Option<&'a str>,
}

impl<'a> CallLog<'a> {
    /// The log of a call with this input, at `path`. `name` and `ids` read
    /// the event's name and ids; both are copied only when short and plain.
    pub fn new(
        path: std::path::PathBuf,
        harness: Harness,
        input: &'a Result<Vec<u8>, String>,
        name: impl Fn(&Json) -> Option<&str>,
        ids: impl Fn(&Json) -> [Option<&str>; 3],
    ) -> CallLog<'a> {
        let payload: &[u8] = input.as_deref().unwrap_or(&[]);
        let event: Option<Json> = serde_json::from_slice(payload).ok();
        let prefix = match harness {
            Harness::ClaudeCode => "claude_code",
            other => other.name(),
        };
        let name = event
            .as_ref()
            .and_then(&name)
            .filter(|n| n.len() <= 64 && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or("unknown");
        let ids = event.as_ref().map_or([None, None, None], |e| {
            ids(e).map(|id| id.filter(|s| s.len() <= 200).map(str::to_string))
        });
        CallLog {
            path,
            harness: harness.name(),
            hook: format!("{prefix}.{name}"),
            ids,
            payload,
            payload_sha256: decision_log::digest(payload),
        }
    }

    fn line(&self, entry: &Entry<'_>, time: &str, micros: u128) -> Vec<u8> {
        let record = decision_log::Record {
            harness: self.harness,
            hook: &self.hook,
            decision: entry.decision,
            matched: entry.matched,
            logged: entry.logged,
            rule: entry.rule,
            reason_template: entry.reason_template,
            error: entry.error,
            payload: self.payload,
            micros,
        };
        let mut json = record.to_json_with(time, &self.payload_sha256);
        if let Some(obj) = json.as_object_mut() {
            for (key, id) in ["session_id", "turn_id", "tool_call_id"]
                .into_iter()
                .zip(&self.ids)
            {
                if let Some(id) = id {
                    obj.insert(key.into(), Json::String(id.clone()));
                }
            }
        }
        decision_log::line(&json)
    }

    /// Makes the deadline write this call's line, should it answer:
    /// `decision` is what its reply says for each `on_error` setting.
    pub fn arm(&self, watchdog: &Watchdog, decision: impl Fn(Option<OnError>) -> &'static str) {
        let time = decision_log::rfc3339_at(watchdog.fires_at());
        let micros = watchdog.deadline().as_micros();
        watchdog.log_to(&self.path, |on_error| {
            let entry = Entry {
                decision: decision(on_error),
                matched: &[],
                logged: &[],
                rule: None,
                reason_template: None,
                error: Some(watchdog.message()),
            };
            self.line(&entry, &time, micros)
        });
    }

    /// Appends the call's line; an error is for stderr, never the decision.
    pub fn write(&self, entry: &Entry<'_>, started: std::time::Instant) -> Result<(), String> {
        let line = self.line(
            entry,
            &decision_log::rfc3339_now(),
            started.elapsed().as_micros(),
        );
        decision_log::append_line(&self.path, &line).map_err(|e| {
            format!(
                "hook-policy: cannot write the decision log {}: {e}",
                self.path.display()
            )
        })
    }
}

/// [`failure`] with the `on_error` of the policy at hand: what an adapter
/// answers an event it cannot decide.
pub fn undecidable<P: Protocol>(source: &mut PolicySource, message: &str) -> Answer {
    failure::<P>(on_error(source), message)
}

/// The deny of agents that block by exit status 2 with the reason on
/// stderr (Windsurf, Kiro CLI).
pub fn exit_two(reason: &str) -> Said {
    Said {
        stdout: String::new(),
        stderr: Some(reason.to_string()),
        exit: 2,
    }
}

/// The decision the failure reply says: a deny unless the policy fails open.
pub fn failure_decision(on_error: Option<OnError>) -> &'static str {
    let hook = catalogue::hook("pre_tool").expect("catalogued");
    match engine::failure_mode(hook, on_error) {
        FailureMode::Closed => "deny",
        FailureMode::Open => "error",
    }
}
