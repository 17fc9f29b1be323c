//! GitHub Copilot CLI hooks: `policy hook copilot --policy PATH`.
//!
//! Protocol from GitHub's hooks reference,
//! <https://docs.github.com/en/copilot/reference/hooks-reference> (the
//! earlier CLI hooks reference and hooks configuration pages now redirect
//! there). Hooks live in `.github/hooks/*.json`, and for the CLI also in
//! `~/.copilot/hooks/*.json` (`$COPILOT_HOME/hooks`) (`{"version": 1,
//! "hooks": {"preToolUse": [{"type": "command", "bash": ..., "powershell":
//! ..., "timeoutSec": 30}]}}`); one process per event, JSON on stdin.
//!
//! `preToolUse` comes in two forms, chosen by the event name in the
//! configuration: camelCase (`toolName`, `toolArgs`, `cwd`, `timestamp`,
//! `sessionId`; `toolArgs` is "JSON string containing the tool's arguments"
//! in the configuration reference's example) and the VS Code compatible
//! `PreToolUse` (`hook_event_name`, `tool_name`, `tool_input`, `cwd`). Both
//! are read; rules on `copilot.preToolUse` see the camelCase names with
//! `toolArgs` parsed. The reply is `{"permissionDecision": "deny",
//! "permissionDecisionReason": ...}`; no opinion is `{}` ("empty output
//! uses default behavior"), never `allow`.
//!
//! Fail-closed readings:
//! - The reference lists `ask` and `modifiedArgs`, but under the cloud
//!   agent an ask is a deny, and earlier pages said only `deny` is
//!   processed. An ask therefore denies (saying approval is needed), and a
//!   policy rewrite denies rather than trusting `modifiedArgs`.
//! - A command preToolUse hook that crashes or exits non-zero denies, but
//!   one that times out is let through ("timeouts are always fail-open"):
//!   every answer, failures and the deadline included, is exit status 0
//!   with the deny JSON, and the deadline (`HOOK_POLICY_DEADLINE_MS`, 10 s
//!   by default) stays well under the default `timeoutSec` of 30.
//! - `permissionRequest` (documented now: `behavior` allow/deny, `message`)
//!   is not installed: it runs after preToolUse on the same call, so for a
//!   guard that never allows it could only repeat preToolUse's deny, and
//!   the cloud agent does not fire it (docs/hook-events-not-used.md).
//!
//! Project root: the event's `cwd`, the directory the session runs in (the
//! user's choice: the CLI loads `.github/hooks` from it), not a tool's
//! argument. `HOOK_POLICY_PROJECT_ROOT` overrides it.

use super::hook_command::{self, Answer, Protocol, Said};
use super::tool_call::{self, Harness, PolicySource};
use crate::eval::DecideContext;
use serde_json::{json, Value as Json};

pub struct Copilot;

/// Copilot CLI's other documented events, in both spellings: no opinion.
const QUIET: [&str; 22] = [
    "postToolUse",
    "postToolUseFailure",
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "errorOccurred",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "permissionRequest",
    "notification",
    "PostToolUse",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PermissionRequest",
    "Notification",
];

impl Protocol for Copilot {
    const HARNESS: Harness = Harness::Copilot;

    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer {
        let event = match hook_command::parse::<Copilot>(source, input) {
            Ok(e) => e,
            Err(a) => return a,
        };
        // camelCase events name no event (should one come to, it is read
        // the same); the VS Code form does.
        let (tool, args) = match event.get("hook_event_name").and_then(Json::as_str) {
            Some("PreToolUse") => (event.get("tool_name"), event.get("tool_input")),
            None | Some("preToolUse") => (event.get("toolName"), event.get("toolArgs")),
            Some(other) if QUIET.contains(&other) => return hook_command::quiet::<Copilot>(),
            // An unknown name (other capitals, another agent's event) may
            // be a tool call: not waved through.
            Some(other) => {
                return hook_command::undecidable::<Copilot>(
                    source,
                    &hook_command::unknown_event(other, "preToolUse (or PreToolUse)"),
                )
            }
        };
        let Some(tool) = tool.and_then(Json::as_str).filter(|t| !t.is_empty()) else {
            return hook_command::undecidable::<Copilot>(
                source,
                "the preToolUse event has no tool name",
            );
        };
        let args = match hook_command::object_or_json_text(args, "toolArgs") {
            Ok(a) => a,
            Err(e) => return hook_command::undecidable::<Copilot>(source, &e),
        };
        let cwd = event.get("cwd").and_then(Json::as_str);
        let native = json!({
            "sessionId": event.get("sessionId").or(event.get("session_id")),
            "timestamp": event.get("timestamp"),
            "cwd": cwd.unwrap_or(""),
            "toolName": tool,
            "toolArgs": args,
        });
        let root = hook_command::project_root(cwd, fallback_root);
        let ctx = DecideContext {
            harness: Harness::Copilot.name(),
            project_root: &root,
            home,
        };
        let d = tool_call::decide_call(
            source,
            &tool_call::ToolCall {
                harness: Harness::Copilot,
                tool,
                arguments: &args,
                native_payload: &native,
                approval: false,
                context_name,
            },
            ctx,
        );
        hook_command::render::<Copilot>(d)
    }

    fn deny(reason: &str) -> Said {
        let reply = json!({"permissionDecision": "deny", "permissionDecisionReason": reason});
        Said {
            stdout: format!("{reply}\n"),
            ..Said::default()
        }
    }

    fn nothing() -> Said {
        Said {
            stdout: "{}\n".into(),
            ..Said::default()
        }
    }

    /// camelCase events carry no name: they are preToolUse.
    fn event_name(event: &Json) -> Option<&str> {
        event
            .get("hook_event_name")
            .and_then(Json::as_str)
            .or(Some("preToolUse"))
    }

    fn ids(event: &Json) -> [Option<&str>; 3] {
        let id = |k: &str| event.get(k).and_then(Json::as_str);
        [id("sessionId").or(id("session_id")), None, None]
    }
}
