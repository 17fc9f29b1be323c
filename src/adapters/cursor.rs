//! Cursor agent hooks: `policy hook cursor --policy PATH`.
//!
//! Protocol from Cursor's documentation, <https://cursor.com/docs/agent/hooks>
//! (hooks.json `{"version": 1, "hooks": {EVENT: [{"command": ...}]}}`, in
//! `~/.cursor/hooks.json` and `<project>/.cursor/hooks.json`; one process per
//! event, the event as JSON on stdin, a JSON reply on stdout). Events used:
//!
//! | event | fields read | canonical call |
//! |---|---|---|
//! | `beforeShellExecution` | `command` (`cwd`) | tool `Shell`: `pre_shell_exec` |
//! | `beforeMCPExecution` | `tool_name`, `tool_input` | the MCP tool: tool gate, and a `command` or `url` argument as a shell command or a fetch |
//! | `beforeReadFile` | `file_path` | tool `Read`: `pre_file_read` |
//!
//! Every event also carries `hook_event_name`, `conversation_id`,
//! `generation_id` and `workspace_roots`. The reply is `{"permission":
//! "deny", "user_message": ..., "agent_message": ...}`; beforeReadFile's
//! documented reply has `permission` only, so the reason goes to stderr.
//! A call the policy has nothing against gets `{}`: never `allow`, which
//! would skip Cursor's own approval of the command.
//!
//! Not confirmed from the vendor page, so read the fail-closed way:
//! - `ask` is documented, but reported to let the command run unasked in
//!   Cursor's auto-review mode (Cursor forum topic 173694): an ask is
//!   answered as a deny that says the user's approval is needed.
//! - Whether an MCP `tool_input` is an object or a JSON string: both are
//!   read; anything else denies.
//! - Rewriting a command (`updated_input`) is not on the page: a policy
//!   rewrite denies.
//! - `preToolUse` is not handled (`{}`): the vendor page's section could
//!   not be read, and no source gives each tool's `tool_input` keys, so a
//!   mapping would be a guess (docs/hook-events-not-used.md). The three
//!   events above cover shell, MCP and reads; file writes are not guarded.
//!
//! Project root: the first of `workspace_roots` (Cursor's, not the model's),
//! never the shell event's `cwd`, which follows the command; without it the
//! hook's working directory. `HOOK_POLICY_PROJECT_ROOT` overrides both.
//! A failure denies within `HOOK_POLICY_DEADLINE_MS` (exit status 0 with the
//! deny reply: Cursor treats a failed hook as no answer unless the entry
//! sets `failClosed`).

use super::hook_command::{self, Answer, Protocol, Said};
use super::tool_call::{self, Harness, PolicySource};
use crate::eval::DecideContext;
use serde_json::{json, Value as Json};

pub struct Cursor;

const SHELL: &str = "beforeShellExecution";
const MCP: &str = "beforeMCPExecution";
const READ: &str = "beforeReadFile";

/// Cursor's other documented events (cursor.com/docs/agent/hooks): no
/// opinion. `preToolUse` and `subagentStart` gate too, but their reply
/// fields could not be confirmed; the events above cover the same calls.
const QUIET: [&str; 17] = [
    "sessionStart",
    "sessionEnd",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "subagentStart",
    "subagentStop",
    "afterShellExecution",
    "afterMCPExecution",
    "afterFileEdit",
    "beforeSubmitPrompt",
    "preCompact",
    "stop",
    "afterAgentResponse",
    "afterAgentThought",
    "beforeTabFileRead",
    "afterTabFileEdit",
];

/// The events `policy install cursor` registers.
pub const EVENTS: [&str; 3] = [SHELL, MCP, READ];

impl Protocol for Cursor {
    const HARNESS: Harness = Harness::Cursor;

    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer {
        let event = match hook_command::parse::<Cursor>(source, input) {
            Ok(e) => e,
            Err(a) => return a,
        };
        let name = event.get("hook_event_name").and_then(Json::as_str);
        let call = match name {
            Some(SHELL) => match event.get("command").and_then(Json::as_str) {
                Some(c) => {
                    let mut args = json!({"command": c});
                    if let Some(cwd) = event.get("cwd") {
                        args["cwd"] = cwd.clone();
                    }
                    Ok(("Shell".to_string(), args))
                }
                None => Err("the beforeShellExecution event has no command".to_string()),
            },
            Some(READ) => match event.get("file_path").and_then(Json::as_str) {
                Some(p) => Ok(("Read".to_string(), json!({"file_path": p}))),
                None => Err("the beforeReadFile event has no file_path".to_string()),
            },
            Some(MCP) => match event.get("tool_name").and_then(Json::as_str) {
                Some(t) if !t.is_empty() => {
                    hook_command::object_or_json_text(event.get("tool_input"), "tool_input")
                        .map(|args| (mcp_tool_name(t), args))
                }
                _ => Err("the beforeMCPExecution event has no tool_name".to_string()),
            },
            // Other documented events carry nothing a policy decides today.
            Some(other) if QUIET.contains(&other) => return hook_command::quiet::<Cursor>(),
            // An unknown name (other capitals, a renamed event, another
            // agent's event) may be a tool call: not waved through.
            Some(other) => Err(hook_command::unknown_event(
                other,
                "beforeShellExecution, beforeMCPExecution and beforeReadFile",
            )),
            None => Err("the event has no hook_event_name".to_string()),
        };
        let (tool, args) = match call {
            Ok(c) => c,
            Err(e) => return hook_command::undecidable::<Cursor>(source, &e),
        };
        let mut native = event.clone();
        if name == Some(MCP) {
            native["tool_input"] = args.clone();
        }
        let root = event
            .get("workspace_roots")
            .and_then(Json::as_array)
            .and_then(|r| r.first())
            .and_then(Json::as_str);
        let root = hook_command::project_root(root, fallback_root);
        let ctx = DecideContext {
            harness: Harness::Cursor.name(),
            project_root: &root,
            home,
        };
        let d = tool_call::decide_call(
            source,
            &tool_call::ToolCall {
                harness: Harness::Cursor,
                tool: &tool,
                arguments: &args,
                native_payload: &native,
                approval: false,
                context_name,
            },
            ctx,
        );
        let mut answer = hook_command::render::<Cursor>(d);
        if name == Some(READ) && answer.kind != "none" {
            // The read reply has no message field: say why on stderr.
            if let Ok(reply) = serde_json::from_str::<Json>(&answer.stdout) {
                if let Some(m) = reply.get("user_message").and_then(Json::as_str) {
                    answer.stderr.push(format!("hook-policy: cursor: {m}"));
                }
                answer.stdout = format!("{}\n", json!({"permission": reply["permission"]}));
            }
        }
        answer
    }

    fn deny(reason: &str) -> Said {
        let reply = json!({"permission": "deny", "user_message": reason, "agent_message": reason});
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

    fn event_name(event: &Json) -> Option<&str> {
        event.get("hook_event_name").and_then(Json::as_str)
    }

    fn ids(event: &Json) -> [Option<&str>; 3] {
        let id = |k: &str| event.get(k).and_then(Json::as_str);
        [id("conversation_id"), id("generation_id"), None]
    }
}

/// An MCP tool keeps its name, unless the name is one of the actions this
/// adapter names itself (`Shell`, `Read`): a server must not pass its tool
/// off as a shell or a read and so escape the checks of an MCP tool.
fn mcp_tool_name(name: &str) -> String {
    if matches!(name, "Shell" | "Read") {
        format!("mcp:{name}")
    } else {
        name.to_string()
    }
}
