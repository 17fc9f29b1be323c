//! OpenCode: `policy hook opencode --policy PATH`, called by a small plugin.
//!
//! OpenCode has no command hooks; its plugins are JavaScript modules, and
//! the one that guards tool calls is `tool.execute.before` (documented at
//! <https://opencode.ai/docs/plugins/>: `(input, output)` with `input.tool`,
//! `input.sessionID`, `input.callID` and `output.args`; a plugin blocks the
//! call by throwing, and the error's message is what the model reads).
//! Checked against opencode 1.18.33: its `@opencode-ai/plugin` types, and
//! its binary, which awaits the hook before every built-in, MCP and task
//! tool call (before its own permission prompt for MCP tools) with no
//! timeout, and loads `{plugin,plugins}/*.{js,ts}` from
//! `~/.config/opencode/` and the project's `.opencode/`.
//!
//! The plugin (`opencode_plugin.js`, written by `policy install opencode`)
//! sends one event per call on stdin:
//! `{"hook_event_name": "tool.execute.before", "tool", "sessionID",
//! "callID", "args", "directory", "worktree"}` (the last two from the
//! plugin's context: OpenCode's, not the model's). The reply is
//! `{"decision": "block", "reason": ...}` to deny and `{}` for no opinion;
//! there is no allow. Exit status 0 always: the plugin itself throws for any
//! other status, for output that is not a JSON object, for any reply but
//! `{}`, and when no answer comes within 15 s (past our own deadline,
//! `HOOK_POLICY_DEADLINE_MS`, 10 s by default, which answers with a deny).
//!
//! OpenCode cannot ask through a plugin, so an ask denies. It does run the
//! tool with the arguments object the hook received, so a rewrite could be
//! applied in place; until that is built and tested, a rewrite denies.
//!
//! Project root: `directory`, where OpenCode runs and resolves relative
//! paths; not `worktree`, which is `/` outside a git repository.
//! `HOOK_POLICY_PROJECT_ROOT` overrides it.

use super::hook_command::{self, Answer, Protocol, Said};
use super::tool_call::{self, Harness, PolicySource};
use crate::eval::DecideContext;
use serde_json::{json, Value as Json};

pub struct OpenCode;

/// The one event the plugin sends.
pub const EVENT: &str = "tool.execute.before";

impl Protocol for OpenCode {
    const HARNESS: Harness = Harness::OpenCode;

    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer {
        let event = match hook_command::parse::<OpenCode>(source, input) {
            Ok(e) => e,
            Err(a) => return a,
        };
        match event.get("hook_event_name").and_then(Json::as_str) {
            Some(EVENT) => {}
            // hook-policy's plugin sends only its tool event: anything else
            // is not waved through.
            Some(other) => {
                return hook_command::undecidable::<OpenCode>(
                    source,
                    &hook_command::unknown_event(other, EVENT),
                )
            }
            None => {
                return hook_command::undecidable::<OpenCode>(
                    source,
                    "the event has no hook_event_name",
                )
            }
        }
        let Some(tool) = event
            .get("tool")
            .and_then(Json::as_str)
            .filter(|t| !t.is_empty())
        else {
            return hook_command::undecidable::<OpenCode>(
                source,
                "the tool.execute.before event has no tool",
            );
        };
        // OpenCode passes the arguments object; a subtask's may be absent.
        let args = match hook_command::object_or_json_text(event.get("args"), "args") {
            Ok(a) => a,
            Err(e) => return hook_command::undecidable::<OpenCode>(source, &e),
        };
        let directory = event.get("directory").and_then(Json::as_str);
        let native = json!({
            "hook_event_name": EVENT,
            "tool": tool,
            "sessionID": event.get("sessionID"),
            "callID": event.get("callID"),
            "args": args,
            "directory": directory.unwrap_or(""),
            "worktree": event.get("worktree"),
        });
        let root = hook_command::project_root(directory, fallback_root);
        let ctx = DecideContext {
            harness: Harness::OpenCode.name(),
            project_root: &root,
            home,
        };
        let d = tool_call::decide_call(
            source,
            &tool_call::ToolCall {
                harness: Harness::OpenCode,
                tool,
                arguments: &args,
                native_payload: &native,
                approval: false,
                context_name,
            },
            ctx,
        );
        hook_command::render::<OpenCode>(d)
    }

    fn deny(reason: &str) -> Said {
        let reply = json!({"decision": "block", "reason": reason});
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

    /// The decision log's hook: `opencode.tool_execute_before`, as the
    /// native event is named for rules.
    fn event_name(event: &Json) -> Option<&str> {
        match event.get("hook_event_name").and_then(Json::as_str) {
            Some(EVENT) => Some("tool_execute_before"),
            other => other,
        }
    }

    fn ids(event: &Json) -> [Option<&str>; 3] {
        let id = |k: &str| event.get(k).and_then(Json::as_str);
        [id("sessionID"), None, id("callID")]
    }
}
