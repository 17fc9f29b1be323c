//! Cline hooks: `policy hook cline --policy PATH`.
//!
//! Protocol from Cline's documentation,
//! <https://docs.cline.bot/customization/hooks> (with the hook reference,
//! <https://docs.cline.bot/features/hooks/hook-reference>): a hook is an
//! executable file named after its event, `PreToolUse`, in
//! `~/Documents/Cline/Hooks/` (every project) or `.clinerules/hooks/` (this
//! project); both run when both exist, and either one's `cancel: true`
//! stops the tool. One process per event, JSON on stdin:
//!
//! ```json
//! {"clineVersion": "3.17.0", "hookName": "PreToolUse", "timestamp": "1736654400000",
//!  "taskId": "abc123", "workspaceRoots": ["/path/to/project"], "userId": "user_123",
//!  "preToolUse": {"toolName": "write_to_file", "parameters": {"path": "src/config.ts", "content": "..."}}}
//! ```
//!
//! The reply is one JSON object on stdout: `{"cancel": true, "errorMessage":
//! ...}` blocks the tool, shows the message and halts the task until the
//! user resumes it; no opinion is `{"cancel": false}`, the page's own "let
//! it run", which leaves Cline's approval settings in charge (there is no
//! allow to give). "Only `cancel: true` stops execution": a hook that exits
//! non-zero, prints invalid JSON or times out is a failure and the tool
//! runs. So every answer, failures and the deadline included, is exit
//! status 0 with the cancel JSON unless the policy fails open.
//!
//! Read from Cline's source where the page says nothing (apps/vscode
//! 4.1.13, hook-factory.ts and sdk/hooks-adapter.ts; the SDK's
//! hook-file-hooks.ts for the CLI):
//! - The timeout is 30 s in the extension, 120 s in the CLI; the deadline
//!   (`HOOK_POLICY_DEADLINE_MS`, 10 s) answers well before either.
//! - `parameters` values are text: a value that was not a string arrives as
//!   JSON text (`{"commands": "[\"ls\"]"}`). The lists of run_commands,
//!   read_files and fetch_web_content, and the object parameters of tools
//!   without an action of their own (MCP tools: nested URLs), are parsed
//!   back here; other values stay as sent (a file's content may itself be
//!   JSON).
//! - The CLI names the event `tool_call` (with the same `preToolUse`
//!   field); both names are read.
//! - `use_mcp_tool` carries `server_name`, `tool_name` and `arguments` (JSON
//!   text): it is decided as the MCP tool `mcp__<server>__<tool>` with those
//!   arguments, so the tool gate sees which tool it is. Cline 4 names MCP
//!   tools `<server>__<tool>` itself; like any unlisted tool they reach the
//!   tool gate under that name.
//! - Cline hooks cannot ask; the CLI's `overrideInput` is not on the page.
//!   An ask or a rewrite denies, saying why.
//!
//! Project root: the first of `workspaceRoots` (Cline's, not the model's),
//! else the hook's working directory (Cline starts it in the workspace);
//! `HOOK_POLICY_PROJECT_ROOT` overrides both.

use super::hook_command::{self, Answer, Protocol, Said};
use super::tool_call::{self, Harness, PolicySource};
use crate::eval::DecideContext;
use serde_json::{json, Map, Value as Json};

pub struct Cline;

/// The hook file `policy install cline` writes: Cline runs the file named
/// after the event.
pub const EVENT: &str = "PreToolUse";

/// Cline's documented hook events other than the tool event
/// (docs.cline.bot/features/hooks/hook-reference).
const QUIET: [&str; 7] = [
    "TaskStart",
    "TaskResume",
    "TaskCancel",
    "TaskComplete",
    "PostToolUse",
    "UserPromptSubmit",
    "PreCompact",
];

/// Parameters that hold a list (or a request object) of Cline 4's tools,
/// sent as JSON text.
const LIST_PARAMETERS: [&str; 5] = ["commands", "files", "file_paths", "paths", "requests"];

impl Protocol for Cline {
    const HARNESS: Harness = Harness::Cline;

    fn answer_in(
        source: &mut PolicySource,
        input: &Result<Vec<u8>, String>,
        context_name: &str,
        home: Option<&str>,
        fallback_root: Option<&str>,
    ) -> Answer {
        let event = match hook_command::parse::<Cline>(source, input) {
            Ok(e) => e,
            Err(a) => return a,
        };
        let call = match event.get("hookName").and_then(Json::as_str) {
            Some(EVENT | "tool_call") => tool_call_of(&event),
            // Cline's other documented events carry nothing a policy decides.
            Some(other) if QUIET.contains(&other) => return hook_command::quiet::<Cline>(),
            // An unknown name (other capitals, a renamed event) may be a
            // tool call: not waved through.
            Some(other) => Err(hook_command::unknown_event(other, "PreToolUse")),
            None => Err("the event has no hookName".to_string()),
        };
        let Call {
            tool,
            args,
            native_params,
        } = match call {
            Ok(c) => c,
            Err(e) => return hook_command::undecidable::<Cline>(source, &e),
        };
        let mut native = event.clone();
        native["preToolUse"]["parameters"] = native_params;
        let root = event
            .get("workspaceRoots")
            .and_then(Json::as_array)
            .and_then(|r| r.first())
            .and_then(Json::as_str);
        let root = hook_command::project_root(root, fallback_root);
        let ctx = DecideContext {
            harness: Harness::Cline.name(),
            project_root: &root,
            home,
        };
        let d = tool_call::decide_call(
            source,
            &tool_call::ToolCall {
                harness: Harness::Cline,
                tool: &tool,
                arguments: &args,
                native_payload: &native,
                approval: false,
                context_name,
            },
            ctx,
        );
        hook_command::render::<Cline>(d)
    }

    fn deny(reason: &str) -> Said {
        let reply = json!({"cancel": true, "errorMessage": reason});
        Said {
            stdout: format!("{reply}\n"),
            ..Said::default()
        }
    }

    fn nothing() -> Said {
        Said {
            stdout: "{\"cancel\":false}\n".into(),
            ..Said::default()
        }
    }

    fn event_name(event: &Json) -> Option<&str> {
        event.get("hookName").and_then(Json::as_str)
    }

    fn ids(event: &Json) -> [Option<&str>; 3] {
        let task = event.get("taskId").and_then(Json::as_str);
        let call = event
            .get("tool_call")
            .and_then(|c| c.get("id"))
            .and_then(Json::as_str);
        [task, None, call]
    }
}

/// One tool call, read from the event.
struct Call {
    /// The tool, as the catalogue names it.
    tool: String,
    /// Its arguments, as the catalogue reads them.
    args: Json,
    /// `preToolUse.parameters` for `cline.PreToolUse` rules: as sent, with
    /// what was sent as JSON text parsed.
    native_params: Json,
}

fn tool_call_of(event: &Json) -> Result<Call, String> {
    let pre = event
        .get("preToolUse")
        .filter(|p| p.is_object())
        .ok_or("the PreToolUse event has no preToolUse object")?;
    let tool = pre
        .get("toolName")
        .and_then(Json::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("the PreToolUse event has no preToolUse.toolName")?;
    let mut params: Map<String, Json> = match pre.get("parameters") {
        None | Some(Json::Null) => Map::new(),
        Some(Json::Object(m)) => m.clone(),
        Some(_) => return Err("preToolUse.parameters is not an object".into()),
    };
    if tool == "use_mcp_tool" {
        let text = |k: &str| params.get(k).and_then(Json::as_str).unwrap_or("");
        let (server, name) = (text("server_name"), text("tool_name"));
        if server.is_empty() || name.is_empty() {
            return Err("the use_mcp_tool call does not name its MCP server and tool".into());
        }
        let args = match params.get("arguments") {
            Some(Json::String(t)) if t.trim().is_empty() => Json::Object(Map::new()),
            other => hook_command::object_or_json_text(other, "use_mcp_tool arguments")?,
        };
        let tool = format!("mcp__{server}__{name}");
        params.insert("arguments".into(), args.clone());
        return Ok(Call {
            tool,
            args,
            native_params: Json::Object(params),
        });
    }
    // A tool with no action of its own (MCP tools, flow tools) is checked
    // for a `command` and every `url` at any depth: its object parameters,
    // sent as JSON text, are read back so nested URLs are seen. `command`
    // and `url` themselves stay text.
    let other = matches!(
        tool_call::mapping(Harness::Cline, tool).map(|m| m.action),
        None | Some(tool_call::Action::Other)
    );
    for (key, value) in params.iter_mut() {
        let decode =
            LIST_PARAMETERS.contains(&key.as_str()) || (other && key != "command" && key != "url");
        if let (true, Json::String(text)) = (decode, &*value) {
            if let Ok(v @ (Json::Array(_) | Json::Object(_))) = serde_json::from_str::<Json>(text) {
                *value = v;
            }
        }
    }
    let args = Json::Object(params);
    Ok(Call {
        tool: tool.to_string(),
        native_params: args.clone(),
        args,
    })
}
