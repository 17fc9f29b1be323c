//! The hook catalogue: every hook point hook-policy knows, the payload each one
//! carries, the effects a rule may have there, and how a failure is handled.
//!
//! This table is the single source of truth. The JSON Schema (`policy schema`),
//! the checks of `policy check`, the chibi adapter (`--schema` hook list, reply
//! shapes) and the generated reference in `docs/hooks.md` all read it, so a hook
//! or field is added here once and nowhere else.
//!
//! Payload shapes follow what chibi v0.10 really sends (see the captured
//! fixtures), not only what its documentation says: for example
//! `fuel_remaining`/`fuel_total` are omitted when fuel is unlimited, so they are
//! declared [`Presence::Optional`].

use std::fmt;

pub mod tools;

/// The type of a payload value, as far as a policy author needs to know it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ty {
    Str,
    Int,
    Bool,
    /// A JSON object whose keys are not fixed (tool arguments, a request body).
    AnyMap,
    /// Any JSON value.
    Any,
    List(&'static Ty),
    Object(&'static [Field]),
    /// The value may be JSON `null` as well as the inner type.
    Nullable(&'static Ty),
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Str => f.write_str("string"),
            Ty::Int => f.write_str("int"),
            Ty::Bool => f.write_str("bool"),
            Ty::AnyMap => f.write_str("map"),
            Ty::Any => f.write_str("dyn"),
            Ty::List(inner) => write!(f, "list({inner})"),
            Ty::Object(_) => f.write_str("object"),
            Ty::Nullable(inner) => write!(f, "{inner} or null"),
        }
    }
}

/// Whether a harness always sends a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Always,
    /// Sometimes omitted: a condition must guard it with `has(...)`.
    Optional,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub presence: Presence,
    pub doc: &'static str,
}

const fn field(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        presence: Presence::Always,
        doc,
    }
}

const fn optional(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        presence: Presence::Optional,
        doc,
    }
}

/// What a hook point is for; decides the failure policy and which effects apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookClass {
    /// Deny-only permission hooks: a rule may only say no.
    Permission,
    /// `pre_tool`: block a call or rewrite its arguments.
    ToolGate,
    /// `pre_api_tools`: which tools the model is offered.
    ToolFilter,
    /// Tool-call budget and fallback after a batch or before a turn.
    Fuel,
    /// Options merged into the model request.
    RequestMerge,
    /// Hooks a policy can observe but not change (yet).
    Observe,
}

impl HookClass {
    pub fn as_str(self) -> &'static str {
        match self {
            HookClass::Permission => "permission",
            HookClass::ToolGate => "tool gate",
            HookClass::ToolFilter => "tool filter",
            HookClass::Fuel => "fuel",
            HookClass::RequestMerge => "request merge",
            HookClass::Observe => "observe",
        }
    }

    /// What happens when the policy cannot decide (it failed to load, a CEL
    /// expression failed at run time, the payload was malformed) and the
    /// policy's `on_error` setting is left at its default.
    ///
    /// Permission hooks and the tool gate fail closed: chibi treats a hook
    /// that says nothing as "no objection", so silence would be an allow the
    /// user never asked for. Everything else changes nothing: a broken tool
    /// filter must not hide every tool, and a broken fuel rule must not end
    /// the turn.
    pub fn default_failure(self) -> FailureMode {
        match self {
            HookClass::Permission | HookClass::ToolGate => FailureMode::Closed,
            _ => FailureMode::Open,
        }
    }
}

/// How a hook answers when the policy cannot decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureMode {
    /// Deny (permission hooks) or block (pre_tool), with a reason naming the problem.
    Closed,
    /// Change nothing; report the problem on stderr.
    Open,
}

/// An effect a rule can have. Each variant is a key of a rule in YAML.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EffectKind {
    Deny,
    Ask,
    Block,
    Arguments,
    Tools,
    FuelDelta,
    Fuel,
    Fallback,
    Request,
}

impl EffectKind {
    pub const ALL: [EffectKind; 9] = [
        EffectKind::Deny,
        EffectKind::Ask,
        EffectKind::Block,
        EffectKind::Arguments,
        EffectKind::Tools,
        EffectKind::FuelDelta,
        EffectKind::Fuel,
        EffectKind::Fallback,
        EffectKind::Request,
    ];

    /// The rule key that carries this effect.
    pub fn key(self) -> &'static str {
        match self {
            EffectKind::Deny => "deny",
            EffectKind::Ask => "ask",
            EffectKind::Block => "block",
            EffectKind::Arguments => "arguments",
            EffectKind::Tools => "tools",
            EffectKind::FuelDelta => "fuel_delta",
            EffectKind::Fuel => "fuel",
            EffectKind::Fallback => "fallback",
            EffectKind::Request => "request",
        }
    }

    /// How the effect of several matching rules is combined. Mirrors how chibi
    /// combines the replies of several plugins, so one policy with many rules
    /// behaves like many single-rule plugins would.
    pub fn combination(self) -> &'static str {
        match self {
            EffectKind::Deny => "the first denying rule by (priority, specificity, load order) gives the reason: a condition or a matcher naming a program, flag, destination, glob or pattern beats a blanket test (`opaque`, `inside_project` alone), which beats no test; the others are listed by --explain",
            EffectKind::Ask => "only when no rule denies: the first asking rule by priority gives the reason",
            EffectKind::Block => "the first blocking rule by priority gives the message",
            EffectKind::Arguments => "each key is set by the first rule by priority that sets it",
            EffectKind::Tools => "includes intersect, excludes union; include applies first, then exclude",
            EffectKind::FuelDelta => "summed, saturating at the 64-bit integer bounds",
            EffectKind::Fuel => "the first rule by priority wins",
            EffectKind::Fallback => "the first rule by priority wins",
            EffectKind::Request => "each top-level key is set by the first rule by priority that sets it",
        }
    }
}

/// One hook point.
#[derive(Debug, Clone, Copy)]
pub struct HookPoint {
    pub name: &'static str,
    /// `None` for canonical hook points, which every adapter maps its
    /// harness's events onto; `Some(harness)` for a harness-native event a
    /// rule names directly (`claude_code.PreToolUse`).
    pub harness: Option<&'static str>,
    pub class: HookClass,
    pub doc: &'static str,
    pub payload: &'static [Field],
    pub effects: &'static [EffectKind],
}

impl HookPoint {
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.payload.iter().find(|f| f.name == name)
    }

    pub fn allows(&self, effect: EffectKind) -> bool {
        self.effects.contains(&effect)
    }
}

// Shared payload pieces.
const TOOL_NAME: Field = field("tool_name", Ty::Str, "Name of the tool being called.");
const CONTEXT_NAME: Field = field("context_name", Ty::Str, "Name of the active context.");
const FUEL_REMAINING: Field = optional(
    "fuel_remaining",
    Ty::Int,
    "Remaining tool-call budget. Absent when fuel is unlimited.",
);
const FUEL_TOTAL: Field = optional(
    "fuel_total",
    Ty::Int,
    "Total tool-call budget. Absent when fuel is unlimited.",
);
const SUMMARY: Field = field("summary", Ty::Str, "Conversation summary.");
const ARGUMENTS: Field = field("arguments", Ty::AnyMap, "The tool's arguments.");
const MESSAGE_COUNT: Field = field("message_count", Ty::Int, "Number of messages.");

const TOOL_ENTRY: &[Field] = &[
    field("name", Ty::Str, "Tool name."),
    field(
        "type",
        Ty::Str,
        "Tool category: memory, fs_read, fs_write, shell, network, index, flow, plugin, ...",
    ),
];
const TOOL_CALL: &[Field] = &[
    field("name", Ty::Str, "Name of the tool that ran."),
    field("arguments", Ty::AnyMap, "Its arguments."),
];

const PERMISSION: &[EffectKind] = &[EffectKind::Deny, EffectKind::Ask];
const FUEL: &[EffectKind] = &[
    EffectKind::FuelDelta,
    EffectKind::Fuel,
    EffectKind::Fallback,
];
const NONE: &[EffectKind] = &[];

/// Every chibi hook point, in the order of chibi's documentation.
pub const HOOKS: &[HookPoint] = &[
    HookPoint {
        name: "on_start",
        harness: None,
        class: HookClass::Observe,
        doc: "chibi starts, before any processing.",
        payload: &[
            field("chibi_home", Ty::Str, "chibi home directory."),
            field("project_root", Ty::Str, "Project root directory."),
            field("tool_count", Ty::Int, "Number of loaded tools."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "on_end",
        harness: None,
        class: HookClass::Observe,
        doc: "chibi exits, after all processing.",
        payload: &[
            field("chibi_home", Ty::Str, "chibi home directory."),
            field("project_root", Ty::Str, "Project root directory."),
            field("tool_count", Ty::Int, "Number of loaded tools."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_message",
        harness: None,
        class: HookClass::Observe,
        doc: "Before a prompt is sent to the model.",
        payload: &[
            field("prompt", Ty::Str, "The user's prompt."),
            CONTEXT_NAME,
            SUMMARY,
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_message",
        harness: None,
        class: HookClass::Observe,
        doc: "After the model's final response.",
        payload: &[
            field("prompt", Ty::Str, "The original prompt."),
            field("response", Ty::Str, "The model's response."),
            CONTEXT_NAME,
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_system_prompt",
        harness: None,
        class: HookClass::Observe,
        doc: "Before the system prompt is built.",
        payload: &[
            CONTEXT_NAME,
            SUMMARY,
            field("flock_goals", Ty::List(&Ty::Any), "Goals of the flocks the context is in."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_system_prompt",
        harness: None,
        class: HookClass::Observe,
        doc: "After the system prompt is built.",
        payload: &[
            CONTEXT_NAME,
            SUMMARY,
            field("flock_goals", Ty::List(&Ty::Any), "Goals of the flocks the context is in."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_tool",
        harness: None,
        class: HookClass::ToolGate,
        doc: "Before any tool runs, ahead of the permission hooks: block the call or rewrite its arguments.",
        payload: &[TOOL_NAME, ARGUMENTS],
        effects: &[EffectKind::Block, EffectKind::Arguments],
    },
    HookPoint {
        name: "post_tool",
        harness: None,
        class: HookClass::Observe,
        doc: "After a tool ran.",
        payload: &[
            TOOL_NAME,
            ARGUMENTS,
            field("result", Ty::Str, "The tool's output."),
            field("cached", Ty::Bool, "Whether the output was cached for its size."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_tool_output",
        harness: None,
        class: HookClass::Observe,
        doc: "After a tool returned, before caching.",
        payload: &[TOOL_NAME, ARGUMENTS, field("output", Ty::Str, "The raw output.")],
        effects: NONE,
    },
    HookPoint {
        name: "post_tool_output",
        harness: None,
        class: HookClass::Observe,
        doc: "After tool output was processed and cached.",
        payload: &[
            TOOL_NAME,
            ARGUMENTS,
            field("output", Ty::Str, "Output after pre_tool_output."),
            field("final_output", Ty::Str, "What the model will see."),
            field("cached", Ty::Bool, "Whether the output was cached."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_api_tools",
        harness: None,
        class: HookClass::ToolFilter,
        doc: "Before the tool list is offered to the model, once per user turn.",
        payload: &[
            CONTEXT_NAME,
            field("tools", Ty::List(&Ty::Object(TOOL_ENTRY)), "Tools on offer: {name, type}."),
            FUEL_REMAINING,
            FUEL_TOTAL,
        ],
        effects: &[EffectKind::Tools],
    },
    HookPoint {
        name: "pre_api_request",
        harness: None,
        class: HookClass::RequestMerge,
        doc: "Before the model request is sent, once per user turn. Only model options take effect.",
        payload: &[
            CONTEXT_NAME,
            field(
                "request_body",
                Ty::AnyMap,
                "The full request body: model, messages, tools, temperature, ...",
            ),
            FUEL_REMAINING,
            FUEL_TOTAL,
        ],
        effects: &[EffectKind::Request],
    },
    HookPoint {
        name: "pre_agentic_loop",
        harness: None,
        class: HookClass::Fuel,
        doc: "Before each agentic loop, once per user turn.",
        payload: &[
            CONTEXT_NAME,
            field("current_fallback", Ty::Str, "call_agent or call_user."),
            field("message", Ty::Str, "The user message of this loop."),
            FUEL_REMAINING,
            FUEL_TOTAL,
        ],
        effects: FUEL,
    },
    HookPoint {
        name: "post_tool_batch",
        harness: None,
        class: HookClass::Fuel,
        doc: "After a batch of tool calls ran. fuel_remaining is the value before this batch is charged.",
        payload: &[
            CONTEXT_NAME,
            field("current_fallback", Ty::Str, "call_agent or call_user."),
            field("tool_calls", Ty::List(&Ty::Object(TOOL_CALL)), "The calls of the batch: {name, arguments}."),
            FUEL_REMAINING,
            FUEL_TOTAL,
        ],
        effects: FUEL,
    },
    HookPoint {
        name: "pre_file_read",
        harness: None,
        class: HookClass::Permission,
        doc: "Before a file outside the project and the allowed paths is read.",
        payload: &[
            field("tool_name", Ty::Str, "file_head, file_tail or file_lines."),
            field("path", Ty::Str, "Path joined to the project root, not canonicalised."),
        ],
        effects: PERMISSION,
    },
    HookPoint {
        name: "pre_file_write",
        harness: None,
        class: HookClass::Permission,
        doc: "Before any file write or edit, inside the project too.",
        payload: &[
            field("tool_name", Ty::Str, "write_file or file_edit."),
            field("path", Ty::Str, "The raw path argument; may be relative to the project root."),
            field("content", Ty::Nullable(&Ty::Str), "Content to write; may be null for edits."),
            optional("operation", Ty::Str, "The edit operation (file_edit only)."),
        ],
        effects: PERMISSION,
    },
    HookPoint {
        name: "pre_shell_exec",
        harness: None,
        class: HookClass::Permission,
        doc: "Before every shell command.",
        payload: &[TOOL_NAME, field("command", Ty::Str, "The shell command line.")],
        effects: PERMISSION,
    },
    HookPoint {
        name: "pre_fetch_url",
        harness: None,
        class: HookClass::Permission,
        doc: "Before a URL chibi judged sensitive is fetched, or a network tool without a URL runs.",
        payload: &[
            TOOL_NAME,
            optional("url", Ty::Str, "The URL. Absent when safety is no_url."),
            field("safety", Ty::Str, "sensitive, or no_url for network tools without a URL; from harnesses that send every URL (all but chibi), public when hook-policy's own classification finds nothing internal."),
            optional(
                "reason",
                Ty::Str,
                "chibi's classification: loopback address, private network address, link-local address, cloud metadata endpoint, could not parse URL.",
            ),
            optional("summary", Ty::Str, "Summary of the call (safety no_url only)."),
        ],
        effects: PERMISSION,
    },
    HookPoint {
        name: "pre_spawn_agent",
        harness: None,
        class: HookClass::Observe,
        doc: "Before a sub-agent model call.",
        payload: &[
            field("system_prompt", Ty::Str, "System prompt of the sub-agent."),
            field("input", Ty::Str, "Input to process."),
            field("model", Ty::Str, "Model identifier."),
            optional("temperature", Ty::Any, "Sampling temperature."),
            optional("max_tokens", Ty::Int, "Maximum response tokens."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_spawn_agent",
        harness: None,
        class: HookClass::Observe,
        doc: "After a sub-agent returned.",
        payload: &[
            field("system_prompt", Ty::Str, "System prompt used."),
            field("input", Ty::Str, "Input content."),
            field("model", Ty::Str, "Model identifier."),
            field("response", Ty::Str, "The sub-agent's response."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_cache_output",
        harness: None,
        class: HookClass::Observe,
        doc: "Before a large tool output is cached.",
        payload: &[
            TOOL_NAME,
            ARGUMENTS,
            field("content", Ty::Str, "Full output."),
            field("char_count", Ty::Int, "Characters in the output."),
            field("line_count", Ty::Int, "Lines in the output."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_cache_output",
        harness: None,
        class: HookClass::Observe,
        doc: "After an output was cached.",
        payload: &[
            TOOL_NAME,
            field("cache_id", Ty::Str, "File name of the cache entry."),
            field("output_size", Ty::Int, "Size of the cached output in bytes."),
            field("preview_size", Ty::Int, "Size of the preview shown to the model."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_send_message",
        harness: None,
        class: HookClass::Observe,
        doc: "Before an inter-context message is delivered.",
        payload: &[
            field("from", Ty::Str, "Sending context."),
            field("to", Ty::Str, "Recipient context."),
            field("content", Ty::Str, "Message content."),
            CONTEXT_NAME,
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_send_message",
        harness: None,
        class: HookClass::Observe,
        doc: "After an inter-context message was delivered.",
        payload: &[
            field("from", Ty::Str, "Sending context."),
            field("to", Ty::Str, "Recipient context."),
            field("content", Ty::Str, "Message content."),
            CONTEXT_NAME,
            field("delivery_result", Ty::Str, "Delivery outcome."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_index_file",
        harness: None,
        class: HookClass::Observe,
        doc: "After the code indexer indexed a file.",
        payload: &[
            field("path", Ty::Str, "Relative path of the file."),
            field("lang", Ty::Str, "Detected language."),
            field("symbol_count", Ty::Int, "Symbols indexed."),
            field("ref_count", Ty::Int, "References indexed."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_vfs_write",
        harness: None,
        class: HookClass::Observe,
        doc: "Before a VFS write made through a tool (advisory).",
        payload: &[
            TOOL_NAME,
            field("path", Ty::Str, "VFS path."),
            field("content", Ty::Nullable(&Ty::Str), "New content; null for edits."),
            field("caller", Ty::Str, "Context making the write."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_vfs_write",
        harness: None,
        class: HookClass::Observe,
        doc: "After a VFS write made through a tool.",
        payload: &[
            TOOL_NAME,
            field("path", Ty::Str, "VFS path."),
            field("caller", Ty::Str, "Context that made the write."),
        ],
        effects: NONE,
    },
    HookPoint {
        name: "pre_clear",
        harness: None,
        class: HookClass::Observe,
        doc: "Before a context is cleared.",
        payload: &[CONTEXT_NAME, MESSAGE_COUNT, SUMMARY],
        effects: NONE,
    },
    HookPoint {
        name: "post_clear",
        harness: None,
        class: HookClass::Observe,
        doc: "After a context was cleared.",
        payload: &[CONTEXT_NAME, MESSAGE_COUNT, SUMMARY],
        effects: NONE,
    },
    HookPoint {
        name: "pre_compact",
        harness: None,
        class: HookClass::Observe,
        doc: "Before full compaction.",
        payload: &[CONTEXT_NAME, MESSAGE_COUNT, SUMMARY],
        effects: NONE,
    },
    HookPoint {
        name: "post_compact",
        harness: None,
        class: HookClass::Observe,
        doc: "After full compaction.",
        payload: &[CONTEXT_NAME, MESSAGE_COUNT, SUMMARY],
        effects: NONE,
    },
    HookPoint {
        name: "pre_rolling_compact",
        harness: None,
        class: HookClass::Observe,
        doc: "Before rolling compaction.",
        payload: &[
            CONTEXT_NAME,
            MESSAGE_COUNT,
            field("non_system_count", Ty::Int, "Non-system messages."),
            SUMMARY,
        ],
        effects: NONE,
    },
    HookPoint {
        name: "post_rolling_compact",
        harness: None,
        class: HookClass::Observe,
        doc: "After rolling compaction.",
        payload: &[
            CONTEXT_NAME,
            MESSAGE_COUNT,
            field("messages_archived", Ty::Int, "Messages archived."),
            SUMMARY,
        ],
        effects: NONE,
    },
    // Harness-native events, for rules that need a field only that harness
    // sends. Canonical hooks are usually the better choice: one rule then
    // guards every harness.
    HookPoint {
        name: "claude_code.PreToolUse",
        harness: Some("claude-code"),
        class: HookClass::Permission,
        doc: "Claude Code, before any tool call (its PreToolUse event, as received).",
        payload: &[
            field("session_id", Ty::Str, "Session id."),
            field("transcript_path", Ty::Str, "Path of the session transcript."),
            field("cwd", Ty::Str, "Working directory of the session."),
            optional("permission_mode", Ty::Str, "default, plan, acceptEdits, bypassPermissions, ..."),
            field("hook_event_name", Ty::Str, "PreToolUse."),
            field("tool_name", Ty::Str, "Bash, Read, Write, Edit, WebFetch, Monitor, Agent, ToolSearch, ..., or mcp__<server>__<tool>."),
            field("tool_input", Ty::AnyMap, "The tool's arguments."),
            optional("tool_use_id", Ty::Str, "Id of the tool call."),
            optional("prompt_id", Ty::Str, "Id of the user prompt the call answers (sent by 2.1.328 and later)."),
            optional("effort", Ty::AnyMap, "The reasoning effort, e.g. `{level: medium}` (sent by 2.1.328 and later)."),
        ],
        effects: &[EffectKind::Deny, EffectKind::Ask, EffectKind::Arguments],
    },
    HookPoint {
        name: "gemini.BeforeTool",
        harness: Some("gemini"),
        class: HookClass::Permission,
        doc: "Gemini CLI, before any tool call (its BeforeTool event, as received).",
        payload: &[
            field("session_id", Ty::Str, "Session id."),
            optional("transcript_path", Ty::Str, "Path of the session transcript."),
            field("cwd", Ty::Str, "Working directory of the session."),
            field("hook_event_name", Ty::Str, "BeforeTool."),
            optional("timestamp", Ty::Str, "ISO 8601 time of the event."),
            field("tool_name", Ty::Str, "run_shell_command, read_file, grep_search, write_file, replace, web_fetch, ..., or mcp__<server>__<tool>."),
            field("tool_input", Ty::AnyMap, "The tool's arguments."),
            optional("mcp_context", Ty::AnyMap, "MCP metadata, for MCP tools."),
        ],
        effects: &[EffectKind::Deny, EffectKind::Arguments],
    },
    HookPoint {
        name: "codex.PreToolUse",
        harness: Some("codex"),
        class: HookClass::Permission,
        doc: "Codex, before a Bash, apply_patch or MCP tool call (its PreToolUse event, as received).",
        payload: &[
            field("session_id", Ty::Str, "Session (thread) id."),
            optional("transcript_path", Ty::Nullable(&Ty::Str), "Path of the session transcript, if any."),
            field("cwd", Ty::Str, "Working directory of the session."),
            field("hook_event_name", Ty::Str, "PreToolUse."),
            optional("model", Ty::Str, "Active model."),
            optional("permission_mode", Ty::Str, "default, bypassPermissions, ... (0.169)."),
            optional("turn_id", Ty::Str, "Id of the turn."),
            field("tool_name", Ty::Str, "Bash, apply_patch, or mcp__<server>__<tool>."),
            field("tool_input", Ty::AnyMap, "The tool's arguments (`command` holds the patch for apply_patch)."),
            optional("tool_use_id", Ty::Str, "Id of the tool call."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "picoclaw.before_tool",
        harness: Some("picoclaw"),
        class: HookClass::Permission,
        doc: "PicoClaw, before a tool runs (hook.before_tool params).",
        payload: &[
            optional("meta", Ty::AnyMap, "AgentID, TurnID, SessionKey, Iteration, ..."),
            optional("context", Ty::Any, "Turn context."),
            field("tool", Ty::Str, "exec, read_file, write_file, edit_file, append_file, web_fetch, ..."),
            field("arguments", Ty::AnyMap, "The tool's arguments; `{}` for a call without any (PicoClaw omits the key, `policy serve` adds it). Which keys are there depends on the tool: guard them, `has(arguments.path)`."),
            optional("channel", Ty::Str, "Channel of the conversation."),
            optional("chat_id", Ty::Str, "Chat id."),
        ],
        effects: &[EffectKind::Deny, EffectKind::Arguments],
    },
    HookPoint {
        name: "picoclaw.approve_tool",
        harness: Some("picoclaw"),
        class: HookClass::Permission,
        doc: "PicoClaw, when a tool needs approval (hook.approve_tool params).",
        payload: &[
            optional("meta", Ty::AnyMap, "AgentID, TurnID, SessionKey, Iteration, ..."),
            optional("context", Ty::Any, "Turn context."),
            field("tool", Ty::Str, "Tool name."),
            field("arguments", Ty::AnyMap, "The tool's arguments; `{}` for a call without any (PicoClaw omits the key, `policy serve` adds it). Which keys are there depends on the tool: guard them, `has(arguments.path)`."),
            optional("channel", Ty::Str, "Channel of the conversation."),
            optional("chat_id", Ty::Str, "Chat id."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "cursor.event",
        harness: Some("cursor"),
        class: HookClass::Permission,
        doc: "Cursor, before a shell command, an MCP tool call or a file read (its beforeShellExecution, beforeMCPExecution and beforeReadFile events, as received; an MCP `tool_input` sent as a JSON string is parsed).",
        payload: &[
            field("hook_event_name", Ty::Str, "beforeShellExecution, beforeMCPExecution or beforeReadFile."),
            optional("conversation_id", Ty::Str, "Conversation id."),
            optional("generation_id", Ty::Str, "Generation id."),
            optional("workspace_roots", Ty::List(&Ty::Str), "Roots of the open workspace; the first is the project root."),
            optional("command", Ty::Str, "beforeShellExecution: the command line; beforeMCPExecution: the command of a stdio MCP server."),
            optional("cwd", Ty::Str, "beforeShellExecution: where the command runs."),
            optional("tool_name", Ty::Str, "beforeMCPExecution: the MCP tool."),
            optional("tool_input", Ty::AnyMap, "beforeMCPExecution: the tool's arguments."),
            optional("url", Ty::Str, "beforeMCPExecution: the URL of a remote MCP server."),
            optional("file_path", Ty::Str, "beforeReadFile: the file."),
            optional("content", Ty::Str, "beforeReadFile: the file's content."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "copilot.preToolUse",
        harness: Some("copilot"),
        class: HookClass::Permission,
        doc: "GitHub Copilot CLI, before any tool call (its preToolUse event; `toolArgs` parsed when sent as a JSON string, and the VS Code compatible PreToolUse form renamed to these fields).",
        payload: &[
            optional("sessionId", Ty::Str, "Session id."),
            optional("timestamp", Ty::Any, "Unix time in milliseconds (ISO 8601 text in the VS Code compatible form)."),
            field("cwd", Ty::Str, "Working directory of the session."),
            field("toolName", Ty::Str, "bash, powershell, view, create, edit, glob, grep, web_fetch, task, ask_user, or an MCP tool."),
            field("toolArgs", Ty::AnyMap, "The tool's arguments."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "windsurf.event",
        harness: Some("windsurf"),
        class: HookClass::Permission,
        doc: "Windsurf Cascade, before a command, a file read or write, or an MCP tool call (its pre_run_command, pre_read_code, pre_write_code and pre_mcp_tool_use events, as received).",
        payload: &[
            field("agent_action_name", Ty::Str, "pre_run_command, pre_read_code, pre_write_code or pre_mcp_tool_use."),
            optional("trajectory_id", Ty::Str, "Conversation id."),
            optional("execution_id", Ty::Str, "Id of this agent turn."),
            optional("timestamp", Ty::Str, "ISO 8601 time of the event."),
            field("tool_info", Ty::AnyMap, "command_line and cwd; file_path (and edits); or mcp_server_name, mcp_tool_name and mcp_tool_arguments."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "cline.PreToolUse",
        harness: Some("cline"),
        class: HookClass::Permission,
        doc: "Cline, before any tool call (its PreToolUse hook, or `tool_call` from the Cline CLI; list parameters sent as JSON text parsed, use_mcp_tool's `arguments` parsed).",
        payload: &[
            field("hookName", Ty::Str, "PreToolUse (tool_call from the Cline CLI)."),
            optional("clineVersion", Ty::Str, "Cline's version."),
            optional("timestamp", Ty::Str, "Milliseconds since the epoch, as text."),
            optional("taskId", Ty::Str, "Task id."),
            optional("workspaceRoots", Ty::List(&Ty::Str), "Roots of the workspace; the first is the project root."),
            optional("userId", Ty::Str, "Cline user id."),
            optional("model", Ty::AnyMap, "provider and slug of the active model."),
            field("preToolUse", Ty::AnyMap, "toolName and parameters (the tool's arguments)."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "kiro.preToolUse",
        harness: Some("kiro"),
        class: HookClass::Permission,
        doc: "Kiro CLI, before any tool call (its preToolUse hook event, as received; a `tool_input` sent as a JSON string is parsed).",
        payload: &[
            field("hook_event_name", Ty::Str, "preToolUse."),
            optional("cwd", Ty::Str, "Working directory of Kiro CLI: the project root."),
            field("tool_name", Ty::Str, "execute_bash, fs_read, fs_write, glob, grep, web_fetch, use_aws, ..., or @<server>/<tool>."),
            field("tool_input", Ty::AnyMap, "The tool's arguments."),
        ],
        effects: &[EffectKind::Deny],
    },
    HookPoint {
        name: "opencode.tool_execute_before",
        harness: Some("opencode"),
        class: HookClass::Permission,
        doc: "OpenCode, before any tool call (its plugin hook tool.execute.before, as hook-policy's plugin sends it).",
        payload: &[
            field("hook_event_name", Ty::Str, "tool.execute.before."),
            field("tool", Ty::Str, "bash, read, glob, grep, write, edit, apply_patch, webfetch, task, skill, ..., an MCP tool (<server>_<tool>) or a plugin's tool."),
            optional("sessionID", Ty::Str, "Session id."),
            optional("callID", Ty::Str, "Id of the tool call."),
            field("args", Ty::AnyMap, "The tool's arguments."),
            optional("directory", Ty::Str, "The directory OpenCode runs in: the project root."),
            optional("worktree", Ty::Str, "The git worktree of the project (`/` outside git)."),
        ],
        effects: &[EffectKind::Deny],
    },
];

/// The tools chibi offers out of the box, with the type `pre_api_tools`
/// gives each (as a running chibi lists them: the capture in
/// `../shared/fixtures/chibi/pre_api_tools.json`, checked by a test).
/// Plugins and MCP servers add tools of their own, so a name missing here
/// is not an error; `policy check` uses the list to catch misspelt names
/// and types in `tools:` includes and excludes.
#[rustfmt::skip] // a table: one tool per line reads best
pub const CHIBI_TOOLS: &[(&str, &str)] = &[
    ("update_reflection", "memory"),
    ("update_goals", "memory"),
    ("read_context", "memory"),
    ("flock_join", "memory"),
    ("flock_leave", "memory"),
    ("flock_list", "memory"),
    ("file_head", "fs_read"),
    ("file_tail", "fs_read"),
    ("file_lines", "fs_read"),
    ("file_grep", "fs_read"),
    ("dir_list", "fs_read"),
    ("glob_files", "fs_read"),
    ("grep_files", "fs_read"),
    ("write_file", "fs_write"),
    ("file_edit", "fs_write"),
    ("shell_exec", "shell"),
    ("fetch_url", "network"),
    ("index_update", "index"),
    ("index_query", "index"),
    ("index_status", "index"),
    ("send_message", "flow"),
    ("call_user", "flow"),
    ("model_info", "flow"),
    ("spawn_agent", "flow"),
    ("summarize_content", "flow"),
    ("vfs_list", "vfs"),
    ("vfs_info", "vfs"),
    ("vfs_copy", "vfs"),
    ("vfs_move", "vfs"),
    ("vfs_mkdir", "vfs"),
    ("vfs_delete", "vfs"),
];

/// Tool types besides those of [`CHIBI_TOOLS`]: what plugin tools get.
pub const OTHER_TOOL_TYPES: &[&str] = &["plugin"];

/// Variables every condition sees besides the payload's top-level fields.
pub const BUILTIN_VARIABLES: &[Field] = &[
    field("payload", Ty::AnyMap, "The whole payload object."),
    field("hook", Ty::Str, "Name of the hook point being decided."),
    field(
        "harness",
        Ty::Str,
        "The harness asking: chibi, picoclaw, claude-code, gemini, codex, cursor, copilot, windsurf, cline.",
    ),
    field(
        "project_root",
        Ty::Str,
        "The project root (CHIBI_PROJECT_ROOT for chibi; the current directory when unset).",
    ),
];

/// What a structured matcher (`shell:`, `url:`, `path:`, `content:`) reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Command,
    Url,
    Path,
    Content,
}

impl Subject {
    pub const ALL: [Subject; 4] = [
        Subject::Command,
        Subject::Url,
        Subject::Path,
        Subject::Content,
    ];

    /// The rule key of the matcher.
    pub fn key(self) -> &'static str {
        match self {
            Subject::Command => "shell",
            Subject::Url => "url",
            Subject::Path => "path",
            Subject::Content => "content",
        }
    }
}

/// Where each hook carries a subject, as a path into its payload. `pre_tool`
/// carries them in the tool's arguments when the tool has them (chibi's
/// `shell_exec` has `command`, `fetch_url` has `url`, file tools `path`).
pub fn subject_field(hook: &str, subject: Subject) -> Option<&'static [&'static str]> {
    use Subject::*;
    match (hook, subject) {
        ("pre_shell_exec", Command) => Some(&["command"]),
        ("pre_fetch_url", Url) => Some(&["url"]),
        ("pre_file_read", Path) => Some(&["path"]),
        ("pre_file_write", Path) => Some(&["path"]),
        ("pre_file_write", Content) => Some(&["content"]),
        ("pre_tool", Command) => Some(&["arguments", "command"]),
        ("pre_tool", Url) => Some(&["arguments", "url"]),
        ("pre_tool", Path) => Some(&["arguments", "path"]),
        ("pre_tool", Content) => Some(&["arguments", "content"]),
        ("claude_code.PreToolUse" | "codex.PreToolUse" | "gemini.BeforeTool", Command) => {
            Some(&["tool_input", "command"])
        }
        ("claude_code.PreToolUse" | "gemini.BeforeTool", Url) => Some(&["tool_input", "url"]),
        ("claude_code.PreToolUse" | "gemini.BeforeTool", Path) => {
            Some(&["tool_input", "file_path"])
        }
        ("claude_code.PreToolUse" | "gemini.BeforeTool", Content) => {
            Some(&["tool_input", "content"])
        }
        ("picoclaw.before_tool" | "picoclaw.approve_tool", Command) => {
            Some(&["arguments", "command"])
        }
        ("picoclaw.before_tool" | "picoclaw.approve_tool", Url) => Some(&["arguments", "url"]),
        ("picoclaw.before_tool" | "picoclaw.approve_tool", Path) => Some(&["arguments", "path"]),
        ("picoclaw.before_tool" | "picoclaw.approve_tool", Content) => {
            Some(&["arguments", "content"])
        }
        _ => None,
    }
}

/// The hooks where a matcher applies, for hints.
pub fn hooks_with(subject: Subject) -> Vec<&'static str> {
    HOOKS
        .iter()
        .filter(|h| subject_field(h.name, subject).is_some())
        .map(|h| h.name)
        .collect()
}

/// Looks a hook point up by name.
pub fn hook(name: &str) -> Option<&'static HookPoint> {
    HOOKS.iter().find(|h| h.name == name)
}

/// Names of all hook points, in catalogue order.
pub fn hook_names() -> impl Iterator<Item = &'static str> {
    HOOKS.iter().map(|h| h.name)
}

/// The hooks that accept an effect; for hints such as "deny is valid on ...".
pub fn hooks_allowing(effect: EffectKind) -> Vec<&'static str> {
    HOOKS
        .iter()
        .filter(|h| h.allows(effect))
        .map(|h| h.name)
        .collect()
}

/// Renders the catalogue as Markdown; committed as `docs/hooks.md` and kept
/// fresh by a test.
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut out = String::new();
    out.push_str("# Hook catalogue\n\n");
    out.push_str(
        "Generated by `policy hooks --markdown` from `src/catalogue.rs`; do not edit by hand.\n\n",
    );
    out.push_str("## Hook points\n\n| hook | class | effects | on error (default) | when |\n|---|---|---|---|---|\n");
    for h in HOOKS {
        let effects = if h.effects.is_empty() {
            "none".to_string()
        } else {
            h.effects
                .iter()
                .map(|e| format!("`{}`", e.key()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let failure = match (h.class, h.class.default_failure()) {
            (HookClass::Observe, _) => "n/a",
            (HookClass::ToolGate, FailureMode::Closed) => "block",
            (_, FailureMode::Closed) => "deny",
            (_, FailureMode::Open) => "no change",
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            h.name,
            h.class.as_str(),
            effects,
            failure,
            h.doc
        );
    }
    out.push_str("\n## How effects combine when several rules match\n\n| effect | combination |\n|---|---|\n");
    for e in EffectKind::ALL {
        let _ = writeln!(out, "| `{}` | {} |", e.key(), e.combination());
    }
    out.push_str(
        "\n## Variables every condition sees\n\n| variable | type | meaning |\n|---|---|---|\n",
    );
    for f in BUILTIN_VARIABLES {
        let _ = writeln!(out, "| `{}` | {} | {} |", f.name, f.ty, f.doc);
    }
    out.push_str("\n## chibi's built-in tools\n\nWhat `pre_api_tools` lists before plugins and MCP servers add theirs; `type:NAME` in `tools:` matches the type.\n\n| tool | type |\n|---|---|\n");
    for (name, ty) in CHIBI_TOOLS {
        let _ = writeln!(out, "| `{name}` | `{ty}` |");
    }
    out.push_str("\n## Payloads\n\nEach top-level field is also a variable of its own name.\n");
    for h in HOOKS {
        let _ = writeln!(
            out,
            "\n### `{}`\n\n| field | type | always sent | meaning |\n|---|---|---|---|",
            h.name
        );
        for f in h.payload {
            write_field_rows(&mut out, "", f);
        }
    }
    out
}

fn write_field_rows(out: &mut String, prefix: &str, f: &Field) {
    use std::fmt::Write;
    let always = match f.presence {
        Presence::Always => "yes",
        Presence::Optional => "no: guard with `has()`",
    };
    let _ = writeln!(
        out,
        "| `{prefix}{}` | {} | {} | {} |",
        f.name, f.ty, always, f.doc
    );
    let nested = match f.ty {
        Ty::Object(fields) => Some((fields, format!("{prefix}{}.", f.name))),
        Ty::List(Ty::Object(fields)) => Some((*fields, format!("{prefix}{}[].", f.name))),
        _ => None,
    };
    if let Some((fields, prefix)) = nested {
        for inner in fields {
            write_field_rows(out, &prefix, inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_names_are_unique() {
        let mut names: Vec<_> = hook_names().collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn only_permission_hooks_deny() {
        for h in HOOKS {
            assert_eq!(
                h.allows(EffectKind::Deny),
                h.class == HookClass::Permission,
                "{}",
                h.name
            );
        }
    }

    #[test]
    fn every_fixture_hook_is_catalogued_with_its_fields() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/chibi");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return; // fixtures live beside the repo; the end-to-end tests insist on them
        };
        for entry in entries {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let name = v["hook"].as_str().unwrap();
            let hook = hook(name).unwrap_or_else(|| panic!("{name} not catalogued"));
            for key in v["payload"].as_object().unwrap().keys() {
                assert!(
                    hook.field(key).is_some(),
                    "{name}: field {key} not catalogued"
                );
            }
            for f in hook.payload {
                if f.presence == Presence::Always {
                    assert!(
                        v["payload"].get(f.name).is_some(),
                        "{name}: {} missing in fixture",
                        f.name
                    );
                }
            }
        }
    }
}
