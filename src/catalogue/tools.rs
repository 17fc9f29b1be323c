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
    Cursor,
    Copilot,
    Windsurf,
    Cline,
    OpenCode,
    Kiro,
}

impl Harness {
    pub const ALL: [Harness; 10] = [
        Harness::ClaudeCode,
        Harness::Gemini,
        Harness::Codex,
        Harness::PicoClaw,
        Harness::Cursor,
        Harness::Copilot,
        Harness::Windsurf,
        Harness::Cline,
        Harness::OpenCode,
        Harness::Kiro,
    ];

    /// The name conditions see in `harness` and the CLI accepts.
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Gemini => "gemini",
            Harness::Codex => "codex",
            Harness::PicoClaw => "picoclaw",
            Harness::Cursor => "cursor",
            Harness::Copilot => "copilot",
            Harness::Windsurf => "windsurf",
            Harness::Cline => "cline",
            Harness::OpenCode => "opencode",
            Harness::Kiro => "kiro",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::Gemini => "Gemini CLI",
            Harness::Codex => "Codex",
            Harness::PicoClaw => "PicoClaw",
            Harness::Cursor => "Cursor",
            Harness::Copilot => "GitHub Copilot CLI",
            Harness::Windsurf => "Windsurf Cascade",
            Harness::Cline => "Cline",
            Harness::OpenCode => "OpenCode",
            Harness::Kiro => "Kiro CLI",
        }
    }

    /// Whether the harness can put a question to the user itself.
    /// Cursor documents `ask`, but it is reported not to ask in its
    /// auto-review mode (the command runs), and Copilot CLI's hooks
    /// configuration page says only `deny` is processed: an ask that may
    /// run unasked is a silent allow, so both deny instead.
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
    /// Runs each command of a list, one after the other (Cline's
    /// run_commands): every entry, a command line or `{command, args}`, is
    /// its own `pre_shell_exec`. A call that names no command denies.
    ShellEach { list: Keys },
    /// Reads each file of a list (Cline's read_files): every entry, a path
    /// or an object with one, is its own `pre_file_read`. A call that names
    /// no path, or an entry that is neither, denies.
    ReadEach { list: Keys },
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
    /// Searches the contents of files under a directory (Gemini's
    /// grep_search, Claude Code's Grep): the files it opens are read, so
    /// every file under the directory that the include glob admits is
    /// checked at `pre_file_read` (see the adapters' search walk).
    Search { path: Keys, include: Keys },
    /// Reads every path or glob of a list argument (Gemini's read_many_files).
    ReadMany { list: Keys },
    /// Reads the paths named in each object of a list argument (Kiro's
    /// fs_read `operations`: each one's `path` and every `image_paths`
    /// entry); without the list, the arguments are the one object.
    ReadOps { list: Keys, path: Keys, paths: Keys },
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
    // Cursor (cursor.com/docs/agent/hooks): one event per kind of action,
    // named here after the action. beforeShellExecution sends `command`
    // (and `cwd`), beforeReadFile `file_path`; beforeMCPExecution names the
    // MCP tool, and every name that is not Shell or Read is an MCP tool.
    map(Cursor, "Shell", "shell", Shell { command: &["command"] }),
    map(Cursor, "Read", "fs_read", Read { path: &["file_path"] }),
    map(Cursor, "*", "plugin", Other),
    // GitHub Copilot CLI (docs.github.com, CLI hooks reference: "Tool names
    // for hook matching"). `command` of bash and `path` of edit are in the
    // hooks configuration page's examples; the other argument names are not
    // documented there (see docs/adapters.md).
    map(Copilot, "bash", "shell", Shell { command: &["command"] }),
    map(Copilot, "powershell", "shell", Shell { command: &["command"] }),
    map(Copilot, "view", "fs_read", Read { path: &["path"] }),
    map(Copilot, "glob", "fs_read", Read { path: &["path"] }),
    map(Copilot, "grep", "fs_read", Read { path: &["path"] }),
    map(Copilot, "create", "fs_write", Write { path: &["path"], content: &["file_text", "content"] }),
    map(Copilot, "edit", "fs_write", Write { path: &["path"], content: &["new_str", "new_string"] }),
    map(Copilot, "web_fetch", "network", Fetch { url: &["url"] }),
    map(Copilot, "task", "flow", Other),
    map(Copilot, "ask_user", "flow", Other),
    map(Copilot, "*", "plugin", Other),
    // Windsurf Cascade (docs.windsurf.com/windsurf/cascade/hooks): one event
    // per action, its `tool_info` as the arguments; MCP tools are named
    // mcp__<server>__<tool> like Claude Code's.
    map(Windsurf, "run_command", "shell", Shell { command: &["command_line"] }),
    map(Windsurf, "read_code", "fs_read", Read { path: &["file_path"] }),
    map(Windsurf, "write_code", "fs_write", MultiEdit { path: &["file_path"] }),
    map(Windsurf, "mcp__*", "plugin", Other),
    // Cline (docs.cline.bot/customization/hooks; tools from the Cline tools
    // guide and, for Cline 4's runtime, its source: sdk/packages/core/src/
    // extensions/tools). Parameters arrive as text: the adapter parses the
    // lists of run_commands, read_files and fetch_web_content, and names an
    // MCP call (use_mcp_tool) mcp__<server>__<tool> with its arguments.
    map(Cline, "execute_command", "shell", Shell { command: &["command"] }),
    map(Cline, "run_commands", "shell", ShellEach { list: &["commands", "command", "cmd"] }),
    map(Cline, "read_file", "fs_read", Read { path: &["path", "file_path"] }),
    map(Cline, "read_files", "fs_read", ReadEach { list: &["files", "file_paths", "paths", "path", "file_path", "filePath"] }),
    map(Cline, "list_files", "fs_read", Read { path: &["path"] }),
    map(Cline, "list_code_definition_names", "fs_read", Read { path: &["path"] }),
    map(Cline, "search_files", "fs_read", Search { path: &["path"], include: &["file_pattern"] }),
    map(Cline, "search_codebase", "fs_read", Search { path: &["path"], include: &["file_pattern"] }),
    map(Cline, "write_to_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(Cline, "replace_in_file", "fs_write", Write { path: &["path"], content: &["diff"] }),
    map(Cline, "editor", "fs_write", Write { path: &["path"], content: &["new_text"] }),
    map(Cline, "apply_patch", "fs_write", Patch { text: &["input", "patch"] }),
    map(Cline, "web_fetch", "network", Fetch { url: &["url"] }),
    map(Cline, "fetch_web_content", "network", Other),
    map(Cline, "browser_action", "network", Other),
    map(Cline, "web_search", "network", Other),
    map(Cline, "attempt_completion", "flow", Other),
    map(Cline, "ask_followup_question", "flow", Other),
    map(Cline, "ask_question", "flow", Other),
    map(Cline, "new_task", "flow", Other),
    map(Cline, "plan_mode_respond", "flow", Other),
    map(Cline, "submit_and_exit", "flow", Other),
    map(Cline, "skills", "flow", Other),
    map(Cline, "*", "plugin", Other),
    // OpenCode (opencode.ai/docs/plugins, tool.execute.before): tool ids and
    // argument names read from opencode 1.18.33 (the tool schemas in its
    // binary); `path` is the newer tools' name for `filePath`, `list` and
    // `multiedit` are older releases' tools (multiedit's `edits` carry no
    // top-level content, so only its path is judged). MCP tools arrive as
    // <server>_<tool>, plugin tools under their own names: the tool gate.
    map(OpenCode, "bash", "shell", Shell { command: &["command"] }),
    map(OpenCode, "read", "fs_read", Read { path: &["filePath", "path"] }),
    map(OpenCode, "glob", "fs_read", Read { path: &["path"] }),
    map(OpenCode, "grep", "fs_read", Search { path: &["path"], include: &["include"] }),
    map(OpenCode, "list", "fs_read", Read { path: &["path"] }),
    map(OpenCode, "lsp", "fs_read", Read { path: &["filePath", "path"] }),
    map(OpenCode, "write", "fs_write", Write { path: &["filePath", "path"], content: &["content"] }),
    map(OpenCode, "edit", "fs_write", Write { path: &["filePath", "path"], content: &["newString"] }),
    map(OpenCode, "multiedit", "fs_write", Write { path: &["filePath", "path"], content: &[] }),
    map(OpenCode, "apply_patch", "fs_write", Patch { text: &["patchText"] }),
    map(OpenCode, "patch", "fs_write", Patch { text: &["patchText"] }),
    map(OpenCode, "webfetch", "network", Fetch { url: &["url"] }),
    map(OpenCode, "websearch", "network", Other),
    map(OpenCode, "codesearch", "network", Other),
    map(OpenCode, "task", "flow", Other),
    map(OpenCode, "skill", "flow", Other),
    map(OpenCode, "question", "flow", Other),
    map(OpenCode, "invalid", "flow", Other),
    map(OpenCode, "todowrite", "memory", Other),
    map(OpenCode, "todoread", "memory", Other),
    map(OpenCode, "*", "plugin", Other),
    // Kiro CLI (kiro.dev/docs/cli/hooks): the hook event names the tool as
    // the tool schemas do (crates/chat-cli/src/cli/chat/tools/tool_index.json
    // in aws/amazon-q-developer-cli); the documentation's newer short names
    // (read, write, shell, aws) are listed too, with the same arguments.
    // MCP tools arrive as @<server>/<tool>.
    map(Kiro, "execute_bash", "shell", Shell { command: &["command"] }),
    map(Kiro, "execute_cmd", "shell", Shell { command: &["command"] }),
    map(Kiro, "shell", "shell", Shell { command: &["command"] }),
    map(Kiro, "fs_read", "fs_read", ReadOps { list: &["operations"], path: &["path"], paths: &["image_paths"] }),
    map(Kiro, "read", "fs_read", ReadOps { list: &["operations"], path: &["path"], paths: &["image_paths"] }),
    map(Kiro, "glob", "fs_read", Read { path: &["path"] }),
    map(Kiro, "grep", "fs_read", Search { path: &["path"], include: &["include"] }),
    map(Kiro, "fs_write", "fs_write", Write { path: &["path"], content: &["file_text", "new_str"] }),
    map(Kiro, "write", "fs_write", Write { path: &["path"], content: &["file_text", "new_str"] }),
    map(Kiro, "web_fetch", "network", Fetch { url: &["url"] }),
    map(Kiro, "web_search", "network", Other),
    map(Kiro, "use_aws", "network", Other),
    map(Kiro, "aws", "network", Other),
    map(Kiro, "knowledge", "memory", Other),
    map(Kiro, "todo_list", "memory", Other),
    map(Kiro, "thinking", "flow", Other),
    map(Kiro, "introspect", "flow", Other),
    map(Kiro, "report_issue", "flow", Other),
    map(Kiro, "use_subagent", "flow", Other),
    map(Kiro, "delegate", "flow", Other),
    map(Kiro, "*", "plugin", Other),
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
        (Cursor, _) => "cursor.event",
        (Copilot, _) => "copilot.preToolUse",
        (Windsurf, _) => "windsurf.event",
        (Cline, _) => "cline.PreToolUse",
        (OpenCode, _) => "opencode.tool_execute_before",
        (Kiro, _) => "kiro.preToolUse",
    }
}

/// What each adapter built from a vendor's published hook documentation
/// relies on, with the page it was read from; rendered into
/// `docs/adapters.md`. Where a page leaves a fact open, the fail-closed
/// reading is named.
pub fn vendor_facts(harness: Harness) -> &'static [&'static str] {
    match harness {
        Cursor => &[
            "Built from <https://cursor.com/docs/agent/hooks> (hooks.json version 1 at `~/.cursor/hooks.json` or `<project>/.cursor/hooks.json`). Events: `beforeShellExecution` (`command`, `cwd`) as tool `Shell`, `beforeReadFile` (`file_path`) as tool `Read`, `beforeMCPExecution` (`tool_name`, `tool_input`) as the MCP tool itself (renamed `mcp:NAME` if it is called `Shell` or `Read`). Other events get `{}`.",
            "Reply: `{\"permission\": \"deny\", \"user_message\": ..., \"agent_message\": ...}` (beforeReadFile: `permission` only, the reason on stderr); no opinion is `{}`, never `allow`. Exit status 0 always: Cursor lets a call through when a hook fails unless the entry sets `failClosed`.",
            "Not confirmed from the page, so read fail-closed: `ask` is documented but reported to run the command unasked in auto-review mode, so an ask denies; rewrites are not documented, so a rewrite denies; MCP `tool_input` is read as an object or as JSON text, anything else denies; `preToolUse` is not handled: no source we could read gives each tool's `tool_input` keys (docs/hook-events-not-used.md), so writes are not guarded. The MCP server's own `command` or `url` (user configuration, not a model's choice) is not checked; rules can read it on `cursor.event`.",
            "Project root: the first of `workspace_roots`, never the shell event's `cwd`; without it the hook's working directory; `HOOK_POLICY_PROJECT_ROOT` overrides both.",
            "Install: `policy install cursor --policy P` prints the three entries; `--write --scope user|project` merges them into `~/.cursor/hooks.json` or `.cursor/hooks.json` (`--settings FILE` elsewhere), running the installed copy of the binary with `--policy-list`, a list per hooks file (the user's and each project's install keep their own); `policy uninstall cursor --settings FILE` takes them out; `policy doctor --agent cursor` checks both scopes with a live deny.",
        ],
        Copilot => &[
            "Built from <https://docs.github.com/en/copilot/reference/hooks-reference> (which the earlier CLI hooks reference and hooks configuration pages redirect to; `.github/hooks/*.json`, and for the CLI `~/.copilot/hooks/*.json`, version 1, `{\"type\": \"command\", \"bash\": ..., \"powershell\": ..., \"timeoutSec\": 30}`). Event: `preToolUse`, camelCase (`toolName`, `toolArgs` as JSON text or object, `cwd`) or the VS Code compatible `PreToolUse` (`tool_name`, `tool_input`).",
            "Reply: `{\"permissionDecision\": \"deny\", \"permissionDecisionReason\": ...}`; no opinion is `{}`, never `allow`. Exit status 0 always: a crashed command preToolUse hook denies but a timed-out one is let through, so a failure is answered with the deny JSON within `HOOK_POLICY_DEADLINE_MS` (10 s, under the 30 s default `timeoutSec`).",
            "Read fail-closed: the cloud agent treats `ask` as a deny and earlier pages said only `deny` is processed, so an ask denies and a rewrite denies instead of sending `modifiedArgs`. Argument names: `command` (bash) and `path` (edit) are in the pages' examples; `view`, `create` and `edit` contents (`path`, `file_text`, `new_str`) are not documented there. `permissionRequest` (`behavior` allow/deny) is not installed: it follows preToolUse on the same call, so a guard that never allows could only repeat its deny (docs/hook-events-not-used.md).",
            "Project root: the event's `cwd`, the session's directory (from which the CLI loads `.github/hooks`), not a tool argument; `HOOK_POLICY_PROJECT_ROOT` overrides it.",
            "Install: `policy install copilot --policy P --write` in the repository writes `.github/hooks/hook-policy.json`, `--scope user` writes `~/.copilot/hooks/hook-policy.json` (`$COPILOT_HOME/hooks/` when set) (a `bash` command, `timeoutSec: 30`; no `powershell` command, as the entry's quoting is POSIX).",
        ],
        Windsurf => &[
            "Built from <https://docs.windsurf.com/windsurf/cascade/hooks> (`hooks.json` at system, user `~/.codeium/windsurf/hooks.json` and workspace `.windsurf/hooks.json` level, merged). Events: `pre_run_command` (`tool_info.command_line`) as `run_command`, `pre_read_code` (`file_path`) as `read_code`, `pre_write_code` (`file_path`, `edits[]`) as `write_code`, `pre_mcp_tool_use` as `mcp__<mcp_server_name>__<mcp_tool_name>` with `mcp_tool_arguments`. Other events: exit 0, no output.",
            "Reply: exit status 2 with the reason on stderr denies; exit 0 with no output is no opinion. Failures and the deadline exit 2 as well (any other status lets the action run), unless the policy says `on_error: fail_open`.",
            "Read fail-closed: Windsurf hooks cannot ask or rewrite, so both deny; MCP arguments sent as JSON text are parsed, anything else but an object denies. The hook timeout is not documented; the deadline is `HOOK_POLICY_DEADLINE_MS` (10 s).",
            "Project root: the hook process's working directory, never `tool_info.cwd` (where the model chose to run the command); `HOOK_POLICY_PROJECT_ROOT` overrides it.",
            "Install: `policy install windsurf --policy P --write --scope user|project` merges the four entries (with `show_output: true`, so a block's reason is shown) into `~/.codeium/windsurf/hooks.json` or `.windsurf/hooks.json`, each with its own policy list; the system file is left to administrators (`--settings /etc/windsurf/hooks.json`).",
        ],
        Cline => &[
            "Built from <https://docs.cline.bot/customization/hooks> and <https://docs.cline.bot/features/hooks/hook-reference>: an executable file named `PreToolUse` in `~/Documents/Cline/Hooks/` or `.clinerules/hooks/` (both run; either one's cancel stops the tool; hooks must be enabled in Cline's settings). Event: JSON with `hookName`, `taskId`, `workspaceRoots` and `preToolUse: {toolName, parameters}`; the Cline CLI names it `tool_call`, with the same `preToolUse`.",
            "Reply: `{\"cancel\": true, \"errorMessage\": ...}` blocks the tool and halts the task until the user resumes it (the hook reference's \"Aborted\"); no opinion is `{\"cancel\": false}`, which leaves Cline's own approval in charge (there is no allow). Exit status 0 always: \"only `cancel: true` stops execution\", a hook that exits non-zero, prints invalid JSON or times out (30 s in the extension, 120 s in the CLI, from its source) is a failure and the tool runs, so failures and the deadline (`HOOK_POLICY_DEADLINE_MS`, 10 s) answer with the cancel JSON.",
            "Read from Cline's source (apps/vscode 4.1.13, sdk): parameter values arrive as text, non-strings as JSON text, so the lists of `run_commands` (`commands`), `read_files` (`files`, `file_paths`, `paths`) and `fetch_web_content` (`requests`) are parsed back; other values stay as sent. `use_mcp_tool` is decided as `mcp__<server_name>__<tool_name>` with its `arguments` (JSON text; anything but an object denies). Cline 4's own MCP tools (`<server>__<tool>`) and any unlisted tool reach the tool gate under their name; `fetch_web_content` and `browser_action` have every `url` checked, `attempt_completion` its `command`.",
            "Read fail-closed: Cline hooks cannot ask, so an ask denies; the CLI's `overrideInput` is not on the page, so a rewrite denies. A `run_commands` call that shows no command denies.",
            "Project root: the first of `workspaceRoots`, else the hook's working directory (Cline starts it in the workspace); `HOOK_POLICY_PROJECT_ROOT` overrides both.",
            "Install: `policy install cline --policy P --write --scope user|project` writes the executable script `~/Documents/Cline/Hooks/PreToolUse` or `.clinerules/hooks/PreToolUse` (running the installed copy of the binary with `--policy-list`), refusing a `PreToolUse` it did not write; `policy uninstall cline --settings FILE` removes it. Windows (`PreToolUse.ps1`) is not installed.",
        ],
        OpenCode => &[
            "Built from <https://opencode.ai/docs/plugins/> (plugins in `~/.config/opencode/plugins/` and `.opencode/plugins/`; the `tool.execute.before` hook gets `input.tool`, `input.sessionID`, `input.callID` and `output.args`, and blocks the call by throwing) and checked against opencode 1.18.33: the `@opencode-ai/plugin` 1.18.33 types, and the binary, which awaits the hook, with no timeout, before every built-in, MCP and task tool call (before its own permission prompt), and whose tool schemas give the argument names below.",
            "OpenCode has no command hooks, so `policy install opencode` writes a plugin (`hook-policy.js`, shipped in the binary) that sends `{hook_event_name: \"tool.execute.before\", tool, sessionID, callID, args, directory, worktree}` to `policy hook opencode` and throws when the reply is anything but `{}`. The reply to a deny is `{\"decision\": \"block\", \"reason\": ...}`, whose reason becomes the error the model reads; no opinion is `{}`; there is no allow. Exit status 0 always.",
            "Fail closed in the plugin: a command that cannot start, exits non-zero, prints anything but a JSON object, or has not answered within 15 s blocks the call; hook-policy's own deadline (`HOOK_POLICY_DEADLINE_MS`, 10 s) answers a deny before that. A policy with `on_error: fail_open` is answered `{}` on failure, but a missing binary still blocks (the plugin cannot know the policy).",
            "A plugin cannot ask, so an ask denies. OpenCode runs the tool with the arguments object the hook received, so a rewrite could be applied in place; it is not yet, and a rewrite denies.",
            "Project root: the plugin context's `directory` (where OpenCode runs; relative paths resolve there), not `worktree`, which is `/` outside git; `HOOK_POLICY_PROJECT_ROOT` overrides it. A bash call's `workdir` is the model's choice and never the root.",
            "Install: `policy install opencode --policy P --write --scope user|project` writes `~/.config/opencode/plugins/hook-policy.js` (`$XDG_CONFIG_HOME/opencode/...` when set) or `.opencode/plugins/hook-policy.js`; it refuses a file of that name that is not hook-policy's. `policy uninstall opencode --settings FILE` removes it. Restart OpenCode after either.",
        ],
        Kiro => &[
            "Built from <https://kiro.dev/docs/cli/hooks> (the same text as `docs/hooks.md` of aws/amazon-q-developer-cli, whose `crates/chat-cli/src/cli/agent/hook.rs` gives the entry's fields and the 30 s default `timeout_ms`, and whose `tool_index.json` gives the tool names and arguments). Hooks live in an agent's configuration (`~/.kiro/agents/NAME.json` or `.kiro/agents/NAME.json`): `\"hooks\": {\"preToolUse\": [{\"command\": ..., \"matcher\": \"*\", \"timeout_ms\": 30000}]}`. The event: `{hook_event_name: \"preToolUse\", cwd, tool_name, tool_input}`; MCP tools are named `@server/tool`.",
            "Reply: exit status 2 with the reason on stderr blocks the call (the reason is returned to the model); exit 0 with no output is no opinion. Any other status, a crash or a timeout is a failed hook and the tool runs, so failures and the deadline (`HOOK_POLICY_DEADLINE_MS`, 10 s, under the 30 s default) exit 2 too, unless the policy says `on_error: fail_open`. Other events (agentSpawn, userPromptSubmit, postToolUse, stop): exit 0, nothing said; an event of another name that names a tool is decided, so a renamed tool event is not let through unjudged.",
            "Read fail-closed: Kiro hooks cannot ask or rewrite, so both deny. `fs_read` is judged on every `operations[].path` and `image_paths` entry; `fs_write` on `path` with `file_text` or `new_str` as content. `use_aws`, `knowledge` and MCP tools reach the tool gate only (a `command` or `url` argument still checked). Kiro CLI 3's standalone `.kiro/hooks/*.json` files are not installed: their stdin fields are not documented beyond \"hook context as JSON\".",
            "Project root: the event's `cwd`, where Kiro CLI runs (`execute_bash`'s `working_dir` is the model's choice and never the root); without it the hook's working directory; `HOOK_POLICY_PROJECT_ROOT` overrides both.",
            "Install: `policy install kiro --policy P --settings ~/.kiro/agents/NAME.json` merges the entry into that existing agent's configuration (hooks belong to one agent: install into each agent to guard, the one `chat.defaultAgent` names included); a missing file, a hooks.json of another agent or a file that is not JSON is refused. `policy uninstall kiro --settings FILE` takes the entry out.",
        ],
        _ => &[],
    }
}

/// The canonical permission hooks an action is asked at, for listings.
pub fn permission_hooks(action: Action) -> &'static str {
    match action {
        Shell { .. } | ShellSession { .. } | ShellEach { .. } => "pre_shell_exec",
        Read { .. } | Search { .. } | ReadMany { .. } | ReadEach { .. } | ReadOps { .. } => {
            "pre_file_read"
        }
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
    Canonical { harness: Cursor, tool: "Shell", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: Copilot, tool: "bash", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: Copilot, tool: "powershell", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: Windsurf, tool: "run_command", name: "shell_exec", args: &[arg("command_line", "command", 1)] },
    Canonical { harness: Cline, tool: "execute_command", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: Kiro, tool: "execute_bash", name: "shell_exec", args: &[arg("command", "command", 1)] },
    Canonical { harness: Kiro, tool: "shell", name: "shell_exec", args: &[arg("command", "command", 1)] },
    // OpenCode's bash `timeout` is in milliseconds (its tool schema, 1.18.33).
    Canonical { harness: OpenCode, tool: "bash", name: "shell_exec", args: &[arg("command", "command", 1), arg("timeout", "timeout", 1000)] },
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
