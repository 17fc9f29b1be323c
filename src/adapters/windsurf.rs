//! Windsurf Cascade hooks: `policy hook windsurf --policy PATH`.
//!
//! Protocol from Windsurf's documentation,
//! <https://docs.windsurf.com/windsurf/cascade/hooks>: `hooks.json` at system
//! (`/etc/windsurf/hooks.json` on Linux, `/Library/Application
//! Support/Windsurf/hooks.json` on macOS), user (`~/.codeium/windsurf/hooks.json`)
//! and workspace (`.windsurf/hooks.json`) level, all merged, each event a
//! list of `{"command": ..., "show_output": true}`. The event arrives as JSON
//! on stdin with `agent_action_name`, `trajectory_id`, `execution_id`,
//! `timestamp` and `tool_info`; a pre-hook blocks the action by exiting with
//! status 2, and its stderr is the reason shown. Events used:
//!
//! | event | `tool_info` | canonical call |
//! |---|---|---|
//! | `pre_run_command` | `command_line`, `cwd` | tool `run_command`: `pre_shell_exec` |
//! | `pre_read_code` | `file_path` | tool `read_code`: `pre_file_read` |
//! | `pre_write_code` | `file_path`, `edits[]` (`old_string`, `new_string`) | tool `write_code`: `pre_file_write`, the new strings as content |
//! | `pre_mcp_tool_use` | `mcp_server_name`, `mcp_tool_name`, `mcp_tool_arguments` | tool `mcp__<server>__<tool>`: tool gate, and a `command` or `url` argument |
//!
//! Exit status 2 with the reason on stderr denies; status 0 with no output
//! is no opinion (there is no allow to give). Failures, the deadline
//! included, exit 2 too unless the policy says `on_error: fail_open`: any
//! other status lets the action run.
//!
//! Not on the vendor page, read the fail-closed way: Windsurf hooks cannot
//! ask or rewrite, so an ask or a rewrite denies, saying why; MCP arguments
//! sent as a JSON string are parsed, anything else but an object denies. The
//! hook timeout is not documented: the deadline is `HOOK_POLICY_DEADLINE_MS`
//! (10 s by default).
//!
//! Project root: `tool_info.cwd` is where the model chose to run a command,
//! so it is never the root; the hook process's working directory is
//! (`HOOK_POLICY_PROJECT_ROOT` overrides it).

use super::hook_command::{self, Answer, Protocol, Said};
use super::tool_call::{self, Harness, PolicySource};
use crate::eval::DecideContext;
use serde_json::Value as Json;

pub struct Windsurf;

/// Windsurf's other documented events: post-hooks and the prompt hook,
/// which get no opinion.
const QUIET: [&str; 8] = [
    "post_run_command",
    "post_read_code",
    "post_write_code",
    "post_mcp_tool_use",
    "pre_user_prompt",
    "post_cascade_response",
    "post_cascade_response_with_transcript",
    "post_setup_worktree",
];

/// The events `policy install windsurf` registers.
pub const EVENTS: [&str; 4] = [
    "pre_run_command",
    "pre_read_code",
    "pre_write_code",
    "pre_mcp_tool_use",
];

impl Protocol for Windsurf {
    const HARNESS: Harness = Harness::Windsurf;

    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer {
        let event = match hook_command::parse::<Windsurf>(source, input) {
            Ok(e) => e,
            Err(a) => return a,
        };
        let info = event.get("tool_info").filter(|i| i.is_object());
        let text = |k: &str| info.and_then(|i| i.get(k)).and_then(Json::as_str);
        let call: Result<(String, Json), String> = match event
            .get("agent_action_name")
            .and_then(Json::as_str)
        {
            Some("pre_run_command") => match text("command_line") {
                Some(_) => Ok(("run_command".into(), info.cloned().unwrap_or_default())),
                None => Err("the pre_run_command event has no tool_info.command_line".into()),
            },
            Some("pre_read_code") => match text("file_path") {
                Some(_) => Ok(("read_code".into(), info.cloned().unwrap_or_default())),
                None => Err("the pre_read_code event has no tool_info.file_path".into()),
            },
            Some("pre_write_code") => match text("file_path") {
                Some(_) => Ok(("write_code".into(), info.cloned().unwrap_or_default())),
                None => Err("the pre_write_code event has no tool_info.file_path".into()),
            },
            Some("pre_mcp_tool_use") => match (text("mcp_server_name"), text("mcp_tool_name")) {
                (Some(server), Some(tool)) if !tool.is_empty() => {
                    hook_command::object_or_json_text(
                        info.and_then(|i| i.get("mcp_tool_arguments")),
                        "tool_info.mcp_tool_arguments",
                    )
                    .map(|args| (format!("mcp__{server}__{tool}"), args))
                }
                _ => Err("the pre_mcp_tool_use event does not name its MCP server and tool".into()),
            },
            // Post-hooks and prompt hooks: nothing to decide.
            Some(other) if QUIET.contains(&other) => return hook_command::quiet::<Windsurf>(),
            // An unknown name (other capitals, a newer pre-hook) may be an
            // action to guard: not waved through.
            Some(other) => Err(hook_command::unknown_event(other, &EVENTS.join(", "))),
            None => Err("the event has no agent_action_name".into()),
        };
        let (tool, args) = match call {
            Ok(c) => c,
            Err(e) => return hook_command::undecidable::<Windsurf>(source, &e),
        };
        let root = hook_command::project_root(None, fallback_root);
        let ctx = DecideContext {
            harness: Harness::Windsurf.name(),
            project_root: &root,
            home,
        };
        let d = tool_call::decide_call(
            source,
            &tool_call::ToolCall {
                harness: Harness::Windsurf,
                tool: &tool,
                arguments: &args,
                native_payload: &event,
                approval: false,
                context_name,
            },
            ctx,
        );
        hook_command::render::<Windsurf>(d)
    }

    fn deny(reason: &str) -> Said {
        hook_command::exit_two(reason)
    }

    fn nothing() -> Said {
        Said::default()
    }

    fn event_name(event: &Json) -> Option<&str> {
        event.get("agent_action_name").and_then(Json::as_str)
    }

    fn ids(event: &Json) -> [Option<&str>; 3] {
        let id = |k: &str| event.get(k).and_then(Json::as_str);
        [id("trajectory_id"), id("execution_id"), None]
    }
}
