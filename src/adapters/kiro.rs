//! Kiro CLI hooks: `policy hook kiro --policy PATH`.
//!
//! Protocol from Kiro's documentation, <https://kiro.dev/docs/cli/hooks>
//! (the same text is `docs/hooks.md` of aws/amazon-q-developer-cli, Kiro
//! CLI's source). Hooks are part of an agent's configuration
//! (`~/.kiro/agents/NAME.json`, `.kiro/agents/NAME.json`): `"hooks":
//! {"preToolUse": [{"command": ..., "matcher": "*", "timeout_ms": 30000}]}`.
//! One process per event, JSON on stdin: `{"hook_event_name": "preToolUse",
//! "cwd", "tool_name", "tool_input"}`; MCP tools are `@server/tool`.
//!
//! "Exit code 2: (PreToolUse only) Block tool execution. STDERR is returned
//! to the LLM"; exit 0 lets the tool run, and any other status is a failed
//! hook, which also lets it run. So a deny, a failure and the deadline
//! (`HOOK_POLICY_DEADLINE_MS`, 10 s by default, under Kiro's 30 s default
//! `timeout_ms`) all exit 2 with the reason on stderr, unless the policy
//! says `on_error: fail_open`; no opinion is exit 0 with nothing printed.
//!
//! Kiro hooks cannot ask or rewrite: both deny. The documented events
//! without a tool (agentSpawn, userPromptSubmit, postToolUse, stop) get
//! nothing; an event of another name that names a tool is decided, so a
//! tool event under a new name is not waved through.
//!
//! Project root: the event's `cwd`, where Kiro CLI runs (not a tool's
//! `working_dir`, which the model chooses); `HOOK_POLICY_PROJECT_ROOT`
//! overrides it.

use super::hook_command::{self, Answer, Protocol, Said};
use super::tool_call::{self, Harness, PolicySource};
use crate::eval::DecideContext;
use serde_json::{json, Value as Json};

pub struct Kiro;

/// The event `policy install kiro` registers.
pub const EVENT: &str = "preToolUse";

/// Documented events that carry no tool call.
const OTHER_EVENTS: [&str; 4] = ["agentSpawn", "userPromptSubmit", "postToolUse", "stop"];

impl Protocol for Kiro {
    const HARNESS: Harness = Harness::Kiro;

    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer {
        let event = match hook_command::parse::<Kiro>(source, input) {
            Ok(e) => e,
            Err(a) => return a,
        };
        let name = event.get("hook_event_name").and_then(Json::as_str);
        match name {
            None => {
                return hook_command::undecidable::<Kiro>(
                    source,
                    "the event has no hook_event_name",
                )
            }
            Some(n) if OTHER_EVENTS.contains(&n) => return hook_command::quiet::<Kiro>(),
            // An unknown name that names no tool is still not waved
            // through (a renamed tool event may carry its tool elsewhere).
            Some(n) if n != EVENT && event.get("tool_name").is_none() => {
                return hook_command::undecidable::<Kiro>(
                    source,
                    &hook_command::unknown_event(n, EVENT),
                )
            }
            Some(_) => {}
        }
        let Some(tool) = event
            .get("tool_name")
            .and_then(Json::as_str)
            .filter(|t| !t.is_empty())
        else {
            return hook_command::undecidable::<Kiro>(
                source,
                "the preToolUse event has no tool_name",
            );
        };
        let args = match hook_command::object_or_json_text(event.get("tool_input"), "tool_input") {
            Ok(a) => a,
            Err(e) => return hook_command::undecidable::<Kiro>(source, &e),
        };
        let cwd = event.get("cwd").and_then(Json::as_str);
        let native = json!({
            "hook_event_name": name,
            "cwd": cwd.unwrap_or(""),
            "tool_name": tool,
            "tool_input": args,
        });
        let root = hook_command::project_root(cwd, fallback_root);
        let ctx = DecideContext {
            harness: Harness::Kiro.name(),
            project_root: &root,
            home,
        };
        let d = tool_call::decide_call(
            source,
            &tool_call::ToolCall {
                harness: Harness::Kiro,
                tool,
                arguments: &args,
                native_payload: &native,
                approval: false,
                context_name,
            },
            ctx,
        );
        hook_command::render::<Kiro>(d)
    }

    fn deny(reason: &str) -> Said {
        hook_command::exit_two(reason)
    }

    fn nothing() -> Said {
        Said::default()
    }

    fn event_name(event: &Json) -> Option<&str> {
        event.get("hook_event_name").and_then(Json::as_str)
    }

    /// Kiro's events carry no ids.
    fn ids(_event: &Json) -> [Option<&str>; 3] {
        [None; 3]
    }
}
