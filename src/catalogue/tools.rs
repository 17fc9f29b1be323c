//! Harness knowledge as data: each harness's native tools, what each tool
//! does in canonical terms, and which native event its calls count as.
//!
//! It lives in the catalogue, below every stage, because `check` (tool-name
//! hints), `compile` and the adapters all read it: the adapters only
//! translate a harness's words with it, and the stages never depend on the
//! adapters.

/// A harness other than chibi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Harness {
    ClaudeCode,
    Gemini,
    Codex,
    PicoClaw,
}

impl Harness {
    pub const ALL: [Harness; 4] = [
        Harness::ClaudeCode,
        Harness::Gemini,
        Harness::Codex,
        Harness::PicoClaw,
    ];

    /// The name conditions see in `harness` and the CLI accepts.
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Gemini => "gemini",
            Harness::Codex => "codex",
            Harness::PicoClaw => "picoclaw",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::Gemini => "Gemini CLI",
            Harness::Codex => "Codex",
            Harness::PicoClaw => "PicoClaw",
        }
    }

    /// Whether the harness can put a question to the user itself.
    pub fn can_ask(self) -> bool {
        matches!(self, Harness::ClaudeCode)
    }
}

/// Where in the arguments an action finds what it needs. The first key
/// present wins (tools have renamed arguments between releases).
pub type Keys = &'static [&'static str];

/// What a tool does, in canonical terms.
#[derive(Debug, Clone, Copy)]
pub enum Action {
    /// Runs a shell command line: `pre_shell_exec`.
    Shell { command: Keys },
    /// Reads a file or lists a directory: `pre_file_read` (when a path is given).
    Read { path: Keys },
    /// Writes or edits one file: `pre_file_write`.
    Write { path: Keys, content: Keys },
    /// Claude Code's MultiEdit: one file, `edits[].new_string` as content.
    MultiEdit { path: Keys },
    /// Fetches a URL: `pre_fetch_url`.
    Fetch { url: Keys },
    /// Fetches every URL found in a free-text argument (Gemini's web_fetch).
    FetchInText { text: Keys },
    /// Searches the contents of files under a directory (Gemini's
    /// grep_search, Claude Code's Grep): the files it opens are read, so
    /// every file under the directory that the include glob admits is
    /// checked at `pre_file_read` (see the adapters' search walk).
    Search { path: Keys, include: Keys },
    /// Reads every path or glob of a list argument (Gemini's read_many_files).
    ReadMany { list: Keys },
    /// Runs a command and may watch URLs (Claude Code's Monitor): the
    /// command at `pre_shell_exec`, every `url` at any depth at `pre_fetch_url`.
    Watch { command: Keys },
    /// Loads deferred tools by name (Claude Code's ToolSearch,
    /// `select:A,B`): each named tool is put to `pre_api_tools`, so a tool
    /// the policy would not offer cannot be loaded either.
    LoadTools { query: Keys },
    /// A Codex patch: `pre_file_write` for every file it adds, updates,
    /// deletes or moves to, with the added lines as content.
    Patch { text: Keys },
    /// Nothing a permission hook guards.
    Other,
}

/// One native tool of one harness.
#[derive(Debug, Clone, Copy)]
pub struct ToolMapping {
    pub harness: Harness,
    /// The tool's name; a trailing `*` matches a prefix (`mcp__*`).
    pub tool: &'static str,
    /// The tool type `pre_api_tools` rules see (chibi's categories).
    pub tool_type: &'static str,
    pub action: Action,
}

const fn map(
    harness: Harness,
    tool: &'static str,
    tool_type: &'static str,
    action: Action,
) -> ToolMapping {
    ToolMapping {
        harness,
        tool,
        tool_type,
        action,
    }
}

use Action::*;
use Harness::*;

/// Every native tool hook-policy understands. Tools not listed are
/// `pre_tool` and `pre_api_tools` only, except that a string argument named
/// `command` or `url` is still checked as a shell command or a URL: an MCP
/// server's "run" or "fetch" tool must not be a way around the guard.
#[rustfmt::skip] // a table: one mapping per line reads best
pub const TOOL_MAP: &[ToolMapping] = &[
    // Claude Code: tools read from 2.1.331 (events in ../shared/fixtures/claude-code),
    // plus older names (Task, LS, MultiEdit) that earlier releases still send.
    map(ClaudeCode, "Bash", "shell", Shell { command: &["command"] }),
    map(ClaudeCode, "Read", "fs_read", Read { path: &["file_path"] }),
    map(ClaudeCode, "Glob", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "Grep", "fs_read", Search { path: &["path"], include: &["glob"] }),
    map(ClaudeCode, "LS", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "Write", "fs_write", Write { path: &["file_path"], content: &["content"] }),
    map(ClaudeCode, "Edit", "fs_write", Write { path: &["file_path"], content: &["new_string"] }),
    map(ClaudeCode, "MultiEdit", "fs_write", MultiEdit { path: &["file_path"] }),
    map(ClaudeCode, "NotebookEdit", "fs_write", Write { path: &["notebook_path"], content: &["new_source"] }),
    map(ClaudeCode, "WebFetch", "network", Fetch { url: &["url"] }),
    map(ClaudeCode, "WebSearch", "network", Other),
    map(ClaudeCode, "Monitor", "shell", Watch { command: &["command"] }),
    map(ClaudeCode, "ToolSearch", "flow", LoadTools { query: &["query"] }),
    map(ClaudeCode, "Agent", "flow", Other),
    map(ClaudeCode, "Task", "flow", Other),
    map(ClaudeCode, "TodoWrite", "memory", Other),
    map(ClaudeCode, "mcp__*", "plugin", Other),
    // Gemini CLI: tool names read from 0.61 (events in ../shared/fixtures/gemini)
    // and its source (packages/core/src/tools/definitions/base-declarations.ts).
    map(Gemini, "run_shell_command", "shell", Shell { command: &["command"] }),
    map(Gemini, "read_file", "fs_read", Read { path: &["file_path", "absolute_path", "path"] }),
    map(Gemini, "read_many_files", "fs_read", ReadMany { list: &["include", "paths"] }),
    map(Gemini, "list_directory", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "glob", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "grep_search", "fs_read", Search { path: &["dir_path", "path"], include: &["include_pattern", "include"] }),
    map(Gemini, "search_file_content", "fs_read", Search { path: &["dir_path", "path"], include: &["include_pattern", "include"] }),
    map(Gemini, "write_file", "fs_write", Write { path: &["file_path", "absolute_path"], content: &["content"] }),
    map(Gemini, "replace", "fs_write", Write { path: &["file_path", "absolute_path"], content: &["new_string"] }),
    map(Gemini, "web_fetch", "network", FetchInText { text: &["prompt"] }),
    map(Gemini, "google_web_search", "network", Other),
    map(Gemini, "list_background_processes", "shell", Other),
    map(Gemini, "read_background_output", "shell", Other),
    map(Gemini, "invoke_agent", "flow", Other),
    map(Gemini, "activate_skill", "flow", Other),
    map(Gemini, "enter_plan_mode", "flow", Other),
    map(Gemini, "exit_plan_mode", "flow", Other),
    map(Gemini, "complete_task", "flow", Other),
    map(Gemini, "ask_user", "flow", Other),
    map(Gemini, "update_topic", "memory", Other),
    map(Gemini, "write_todos", "memory", Other),
    map(Gemini, "save_memory", "memory", Other),
    map(Gemini, "mcp__*", "plugin", Other),
    // Codex: tools read from 0.169 (events in ../shared/fixtures/codex).
    map(Codex, "Bash", "shell", Shell { command: &["command"] }),
    map(Codex, "apply_patch", "fs_write", Patch { text: &["command", "patch", "input"] }),
    map(Codex, "mcp__*", "plugin", Other),
    map(PicoClaw, "exec", "shell", Shell { command: &["command"] }),
    map(PicoClaw, "read_file", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "list_dir", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "write_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(PicoClaw, "edit_file", "fs_write", Write { path: &["path"], content: &["new_text", "new_string", "content"] }),
    map(PicoClaw, "append_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(PicoClaw, "web_fetch", "network", Fetch { url: &["url"] }),
    map(PicoClaw, "web_search", "network", Other),
    map(PicoClaw, "spawn", "flow", Other),
    map(PicoClaw, "subagent", "flow", Other),
    map(PicoClaw, "message", "flow", Other),
];

/// The mapping of a native tool, if it is listed.
pub fn mapping(harness: Harness, tool: &str) -> Option<&'static ToolMapping> {
    TOOL_MAP.iter().find(|m| {
        m.harness == harness
            && match m.tool.strip_suffix('*') {
                Some(prefix) => tool.starts_with(prefix),
                None => m.tool == tool,
            }
    })
}

/// The native event a harness's tool calls also count as.
pub fn native_hook(harness: Harness, approval: bool) -> &'static str {
    match (harness, approval) {
        (ClaudeCode, _) => "claude_code.PreToolUse",
        (Gemini, _) => "gemini.BeforeTool",
        (Codex, _) => "codex.PreToolUse",
        (PicoClaw, false) => "picoclaw.before_tool",
        (PicoClaw, true) => "picoclaw.approve_tool",
    }
}

/// The canonical permission hooks an action is asked at, for listings.
pub fn permission_hooks(action: Action) -> &'static str {
    match action {
        Shell { .. } => "pre_shell_exec",
        Read { .. } | Search { .. } | ReadMany { .. } => "pre_file_read",
        Watch { .. } => "pre_shell_exec, pre_fetch_url",
        LoadTools { .. } => "pre_api_tools",
        Action::Write { .. } | MultiEdit { .. } | Patch { .. } => "pre_file_write",
        Fetch { .. } | FetchInText { .. } => "pre_fetch_url",
        Other => "-",
    }
}

/// One argument of a native tool in canonical terms: its chibi name and how
/// many native units make one canonical unit (Claude Code's Bash `timeout`
/// is in milliseconds, chibi's `shell_exec` timeout in seconds).
#[derive(Debug, Clone, Copy)]
pub struct CanonicalArg {
    pub native: &'static str,
    pub canonical: &'static str,
    pub native_per_unit: u32,
}

/// How `pre_tool` sees a native tool: under chibi's tool name, with the
/// listed arguments renamed and rescaled (others pass through unchanged),
/// so one `pre_tool` rule capping `arguments.timeout` of `shell_exec` means
/// the same on every harness, and its rewrites are turned back into the
/// harness's own names and units.
#[derive(Debug, Clone, Copy)]
pub struct Canonical {
    pub harness: Harness,
    pub tool: &'static str,
    pub name: &'static str,
    pub args: &'static [CanonicalArg],
}

const fn arg(native: &'static str, canonical: &'static str, native_per_unit: u32) -> CanonicalArg {
    CanonicalArg {
        native,
        canonical,
        native_per_unit,
    }
}

/// The shell tools, the one kind every harness has. Claude Code's Bash
/// `timeout` is in milliseconds (its tool schema, 2.1.331); the others send
/// no timeout.
#[rustfmt::skip]
pub const CANONICAL: &[Canonical] = &[
    Canonical { harness: ClaudeCode, tool: "Bash", name: "shell_exec", args: &[arg("command", "command", 1), arg("timeout", "timeout", 1000)] },
    Canonical { harness: Gemini, tool: "run_shell_command", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: Codex, tool: "Bash", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: PicoClaw, tool: "exec", name: "shell_exec", args: &[arg("command", "command", 1)] },
];

/// The canonical view of a native tool, if it has one.
pub fn canonical(harness: Harness, tool: &str) -> Option<&'static Canonical> {
    CANONICAL
        .iter()
        .find(|c| c.harness == harness && c.tool == tool)
}

/// A `pre_api_request` key (chibi's OpenAI-style name) as Gemini CLI's
/// BeforeModel reply names it, for the keys Gemini applies. Gemini CLI 0.61
/// copies `model` and, from `config`, only temperature, maxOutputTokens,
/// topP and topK (packages/core/src/hooks/hookTranslator.ts,
/// fromHookLLMRequest); any other key of a reply is dropped.
pub fn gemini_request_key(key: &str) -> Option<GeminiKey> {
    Some(match key {
        "model" => GeminiKey::Model,
        "temperature" => GeminiKey::Config("temperature"),
        "max_tokens" | "max_output_tokens" | "maxOutputTokens" => {
            GeminiKey::Config("maxOutputTokens")
        }
        "top_p" | "topP" => GeminiKey::Config("topP"),
        "top_k" | "topK" => GeminiKey::Config("topK"),
        _ => return None,
    })
}

/// Where a request key goes in Gemini's `llm_request`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GeminiKey {
    Model,
    Config(&'static str),
}
