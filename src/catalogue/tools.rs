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
    /// A shell tool that also types into sessions it started: the command,
    /// and every line the typed `input` (raw text) or `keys` (key names)
    /// submit, line editing replayed, are each `pre_shell_exec`.
    ShellSession {
        command: Keys,
        input: Keys,
        keys: Keys,
    },
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
    map(ClaudeCode, "Bash", "shell", Shell { command: &["command"] }),
    map(ClaudeCode, "Read", "fs_read", Read { path: &["file_path"] }),
    map(ClaudeCode, "Glob", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "Grep", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "LS", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "Write", "fs_write", Write { path: &["file_path"], content: &["content"] }),
    map(ClaudeCode, "Edit", "fs_write", Write { path: &["file_path"], content: &["new_string"] }),
    map(ClaudeCode, "MultiEdit", "fs_write", MultiEdit { path: &["file_path"] }),
    map(ClaudeCode, "NotebookEdit", "fs_write", Write { path: &["notebook_path"], content: &["new_source"] }),
    map(ClaudeCode, "WebFetch", "network", Fetch { url: &["url"] }),
    map(ClaudeCode, "WebSearch", "network", Other),
    map(ClaudeCode, "Task", "flow", Other),
    map(ClaudeCode, "TodoWrite", "memory", Other),
    map(ClaudeCode, "mcp__*", "plugin", Other),
    map(Gemini, "run_shell_command", "shell", Shell { command: &["command"] }),
    map(Gemini, "read_file", "fs_read", Read { path: &["file_path", "absolute_path", "path"] }),
    map(Gemini, "list_directory", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "glob", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "search_file_content", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "write_file", "fs_write", Write { path: &["file_path", "absolute_path"], content: &["content"] }),
    map(Gemini, "replace", "fs_write", Write { path: &["file_path", "absolute_path"], content: &["new_string"] }),
    map(Gemini, "web_fetch", "network", FetchInText { text: &["prompt"] }),
    map(Gemini, "google_web_search", "network", Other),
    map(Gemini, "save_memory", "memory", Other),
    map(Gemini, "mcp__*", "plugin", Other),
    map(Codex, "Bash", "shell", Shell { command: &["command"] }),
    map(Codex, "apply_patch", "fs_write", Patch { text: &["command", "patch", "input"] }),
    map(Codex, "mcp__*", "plugin", Other),
    map(PicoClaw, "exec", "shell", ShellSession { command: &["command"], input: &["data"], keys: &["keys"] }),
    map(PicoClaw, "cron", "shell", Shell { command: &["command"] }),
    map(PicoClaw, "read_file", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "send_file", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "load_image", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "list_dir", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "write_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(PicoClaw, "edit_file", "fs_write", Write { path: &["path"], content: &["new_text", "new_string", "content"] }),
    map(PicoClaw, "append_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(PicoClaw, "web_fetch", "network", Fetch { url: &["url"] }),
    map(PicoClaw, "web_search", "network", Other),
    map(PicoClaw, "spawn", "flow", Other),
    map(PicoClaw, "subagent", "flow", Other),
    map(PicoClaw, "message", "flow", Other),
    map(PicoClaw, "mcp_*", "plugin", Other),
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
        Shell { .. } | ShellSession { .. } => "pre_shell_exec",
        Read { .. } => "pre_file_read",
        Action::Write { .. } | MultiEdit { .. } | Patch { .. } => "pre_file_write",
        Fetch { .. } | FetchInText { .. } => "pre_fetch_url",
        Other => "-",
    }
}
