//! `policy init [DIR] [--harness H]`: a starting point that already works.
//! It writes a policy, its test file (cases in the harness's own terms) and
//! the two JSON Schemas beside them, which the files' `$schema` lines name
//! by relative path, so editors validate and complete offline. Existing
//! files are never overwritten.

use super::output::{errln, outln};
use super::ExitStatus;
use clap::ValueEnum;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct InitArgs {
    /// Directory to create the policy in.
    #[arg(default_value = "policies")]
    pub dir: PathBuf,
    /// The harness the policy guards: the test cases speak its events, and
    /// the next step printed is its install command.
    #[arg(long, value_enum, default_value_t = InitHarness::Chibi)]
    pub harness: InitHarness,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum InitHarness {
    Chibi,
    ClaudeCode,
    Gemini,
    Codex,
    Picoclaw,
    Cursor,
    Copilot,
    Windsurf,
    Cline,
    Opencode,
    Kiro,
}

/// Where the schemas go, relative to the policy directory.
const SCHEMA_DIR: &str = ".schema";

const POLICY: &str = "\
# yaml-language-server: $schema=.schema/policy.schema.json
# `policy check DIR` lints this file; `policy test DIR` runs policy.test.yaml.
version: 1
rules:
  - id: no-recursive-force-delete
    description: rm -rf, however it is spelt (sudo, bash -c, -fr, --recursive)
    hook: pre_shell_exec
    shell: { program: rm, flags: [\"-r|-R|--recursive\", \"-f|--force\"] }
    deny: recursive forced delete (rm -rf) is not allowed; delete specific files instead
  - id: no-env-files
    description: .env files hold secrets
    hook: [pre_file_read, pre_file_write]
    path: { glob: [\"**/.env\", \"**/.env.*\"] }
    deny: \"${{ path }} holds secrets; it is not read or written here\"
";

const TESTS_HEADER: &str = "\
# yaml-language-server: $schema=.schema/policy-test.schema.json
# `policy test DIR` runs these cases; `policy test --coverage DIR` lists rules no case matched.
tests:
";

/// Test cases in chibi's canonical payloads (also how PicoClaw's calls are asked).
const CHIBI_TESTS: &str = "  - name: rm -rf is denied
    hook: pre_shell_exec
    payload: { tool_name: shell_exec, command: sudo rm -fr build }
    expect: { matched: [no-recursive-force-delete] }
  - name: ls passes
    hook: pre_shell_exec
    payload: { tool_name: shell_exec, command: ls -la }
    expect: { reply: {} }
  - name: reading .env is denied
    hook: pre_file_read
    payload: { tool_name: file_head, path: /project/.env }
    expect: { matched: [no-env-files], reply_includes: { denied: true } }
";

const CLAUDE_CODE_TESTS: &str =
    "  - name: rm -rf is denied
    harness: claude-code
    payload: { hook_event_name: PreToolUse, tool_name: Bash, tool_input: { command: sudo rm -fr build }, cwd: /project, session_id: s }
    expect: { matched: [no-recursive-force-delete], reply_includes: { hookSpecificOutput: { permissionDecision: deny } } }
  - name: ls passes
    harness: claude-code
    payload: { hook_event_name: PreToolUse, tool_name: Bash, tool_input: { command: ls -la }, cwd: /project, session_id: s }
    expect: { reply: {} }
  - name: reading .env is denied
    harness: claude-code
    payload: { hook_event_name: PreToolUse, tool_name: Read, tool_input: { file_path: /project/.env }, cwd: /project, session_id: s }
    expect: { matched: [no-env-files], reply_includes: { hookSpecificOutput: { permissionDecision: deny } } }
";

const GEMINI_TESTS: &str =
    "  - name: rm -rf is denied
    harness: gemini
    payload: { hook_event_name: BeforeTool, tool_name: run_shell_command, tool_input: { command: sudo rm -fr build }, cwd: /project, session_id: s }
    expect: { matched: [no-recursive-force-delete], reply_includes: { decision: deny } }
  - name: ls passes
    harness: gemini
    payload: { hook_event_name: BeforeTool, tool_name: run_shell_command, tool_input: { command: ls -la }, cwd: /project, session_id: s }
    expect: { reply: {} }
  - name: reading .env is denied
    harness: gemini
    payload: { hook_event_name: BeforeTool, tool_name: read_file, tool_input: { file_path: /project/.env }, cwd: /project, session_id: s }
    expect: { matched: [no-env-files], reply_includes: { decision: deny } }
";

const CODEX_TESTS: &str =
    "  - name: rm -rf is denied
    harness: codex
    payload: { hook_event_name: PreToolUse, tool_name: Bash, tool_input: { command: sudo rm -fr build }, cwd: /project, session_id: s }
    expect: { matched: [no-recursive-force-delete], reply_includes: { hookSpecificOutput: { permissionDecision: deny } } }
  - name: ls passes
    harness: codex
    payload: { hook_event_name: PreToolUse, tool_name: Bash, tool_input: { command: ls -la }, cwd: /project, session_id: s }
    expect: { reply: {} }
  - name: a patch that writes .env is denied
    harness: codex
    payload: { hook_event_name: PreToolUse, tool_name: apply_patch, tool_input: { command: \"*** Begin Patch\\n*** Add File: .env\\n+TOKEN=x\\n*** End Patch\\n\" }, cwd: /project, session_id: s }
    expect: { matched: [no-env-files], reply_includes: { hookSpecificOutput: { permissionDecision: deny } } }
";

/// Test cases in Cursor's hook events (cursor.com/docs/agent/hooks).
const CURSOR_TESTS: &str = "  - name: rm -rf is denied
    harness: cursor
    payload: { hook_event_name: beforeShellExecution, conversation_id: c, generation_id: g, workspace_roots: [/project], command: sudo rm -fr build, cwd: /project }
    expect: { matched: [no-recursive-force-delete], reply_includes: { permission: deny } }
  - name: ls passes
    harness: cursor
    payload: { hook_event_name: beforeShellExecution, conversation_id: c, generation_id: g, workspace_roots: [/project], command: ls -la, cwd: /project }
    expect: { reply: {} }
  - name: reading .env is denied
    harness: cursor
    payload: { hook_event_name: beforeReadFile, conversation_id: c, generation_id: g, workspace_roots: [/project], file_path: /project/.env, content: TOKEN=x }
    expect: { matched: [no-env-files], reply: { permission: deny } }
";

/// Test cases in Copilot CLI's preToolUse events (`toolArgs` is JSON text).
const COPILOT_TESTS: &str = "  - name: rm -rf is denied
    harness: copilot
    payload: { timestamp: 1704614600000, cwd: /project, toolName: bash, toolArgs: '{\"command\":\"sudo rm -fr build\"}' }
    expect: { matched: [no-recursive-force-delete], reply_includes: { permissionDecision: deny } }
  - name: ls passes
    harness: copilot
    payload: { timestamp: 1704614600000, cwd: /project, toolName: bash, toolArgs: '{\"command\":\"ls -la\"}' }
    expect: { reply: {} }
  - name: reading .env is denied
    harness: copilot
    payload: { timestamp: 1704614600000, cwd: /project, toolName: view, toolArgs: '{\"path\":\"/project/.env\"}' }
    expect: { matched: [no-env-files], reply_includes: { permissionDecision: deny } }
";

/// Test cases in Windsurf's hook events; a block is exit status 2.
const WINDSURF_TESTS: &str = "  - name: rm -rf is denied
    harness: windsurf
    payload: { agent_action_name: pre_run_command, trajectory_id: t, execution_id: e, tool_info: { command_line: sudo rm -fr build, cwd: /project } }
    expect: { matched: [no-recursive-force-delete], reply_includes: { exit_status: 2 } }
  - name: ls passes
    harness: windsurf
    payload: { agent_action_name: pre_run_command, trajectory_id: t, execution_id: e, tool_info: { command_line: ls -la, cwd: /project } }
    expect: { reply: {} }
  - name: writing .env is denied
    harness: windsurf
    payload: { agent_action_name: pre_write_code, trajectory_id: t, execution_id: e, tool_info: { file_path: /project/.env, edits: [{ old_string: '', new_string: TOKEN=x }] } }
    expect: { matched: [no-env-files], reply_includes: { exit_status: 2 } }
";

/// Test cases in Cline's PreToolUse events (docs.cline.bot/customization/hooks).
const CLINE_TESTS: &str = "  - name: rm -rf is denied
    harness: cline
    payload: { hookName: PreToolUse, taskId: t, workspaceRoots: [/project], preToolUse: { toolName: execute_command, parameters: { command: sudo rm -fr build } } }
    expect: { matched: [no-recursive-force-delete], reply_includes: { cancel: true } }
  - name: ls passes
    harness: cline
    payload: { hookName: PreToolUse, taskId: t, workspaceRoots: [/project], preToolUse: { toolName: execute_command, parameters: { command: ls -la } } }
    expect: { reply: { cancel: false } }
  - name: writing .env is denied
    harness: cline
    payload: { hookName: PreToolUse, taskId: t, workspaceRoots: [/project], preToolUse: { toolName: write_to_file, parameters: { path: /project/.env, content: TOKEN=x } } }
    expect: { matched: [no-env-files], reply_includes: { cancel: true } }
";

/// Test cases in the events hook-policy's OpenCode plugin sends
/// (tool.execute.before with the tool's own arguments).
const OPENCODE_TESTS: &str = "  - name: rm -rf is denied
    harness: opencode
    payload: { hook_event_name: tool.execute.before, tool: bash, sessionID: s, callID: c, args: { command: sudo rm -fr build, description: clean }, directory: /project, worktree: /project }
    expect: { matched: [no-recursive-force-delete], reply_includes: { decision: block } }
  - name: ls passes
    harness: opencode
    payload: { hook_event_name: tool.execute.before, tool: bash, sessionID: s, callID: c, args: { command: ls -la, description: list }, directory: /project, worktree: /project }
    expect: { reply: {} }
  - name: writing .env is denied
    harness: opencode
    payload: { hook_event_name: tool.execute.before, tool: write, sessionID: s, callID: c, args: { filePath: /project/.env, content: TOKEN=x }, directory: /project, worktree: /project }
    expect: { matched: [no-env-files], reply_includes: { decision: block } }
";

/// Test cases in Kiro CLI's preToolUse events (kiro.dev/docs/cli/hooks); a
/// block is exit status 2.
const KIRO_TESTS: &str = "  - name: rm -rf is denied
    harness: kiro
    payload: { hook_event_name: preToolUse, cwd: /project, tool_name: execute_bash, tool_input: { command: sudo rm -fr build } }
    expect: { matched: [no-recursive-force-delete], reply_includes: { exit_status: 2 } }
  - name: ls passes
    harness: kiro
    payload: { hook_event_name: preToolUse, cwd: /project, tool_name: execute_bash, tool_input: { command: ls -la } }
    expect: { reply: {} }
  - name: writing .env is denied
    harness: kiro
    payload: { hook_event_name: preToolUse, cwd: /project, tool_name: fs_write, tool_input: { command: create, path: /project/.env, file_text: TOKEN=x } }
    expect: { matched: [no-env-files], reply_includes: { exit_status: 2 } }
";

pub fn run(args: InitArgs) -> ExitStatus {
    let dir = &args.dir;
    let tests = match args.harness {
        InitHarness::Chibi | InitHarness::Picoclaw => CHIBI_TESTS,
        InitHarness::ClaudeCode => CLAUDE_CODE_TESTS,
        InitHarness::Gemini => GEMINI_TESTS,
        InitHarness::Codex => CODEX_TESTS,
        InitHarness::Cursor => CURSOR_TESTS,
        InitHarness::Copilot => COPILOT_TESTS,
        InitHarness::Windsurf => WINDSURF_TESTS,
        InitHarness::Cline => CLINE_TESTS,
        InitHarness::Opencode => OPENCODE_TESTS,
        InitHarness::Kiro => KIRO_TESTS,
    };
    let files: [(PathBuf, String); 4] = [
        (dir.join("policy.yaml"), POLICY.to_string()),
        (
            dir.join("policy.test.yaml"),
            format!("{TESTS_HEADER}{tests}"),
        ),
        (
            dir.join(SCHEMA_DIR).join("policy.schema.json"),
            crate::model::schema_text(),
        ),
        (
            dir.join(SCHEMA_DIR).join("policy-test.schema.json"),
            crate::testing::file::schema_text(),
        ),
    ];
    if let Some((existing, _)) = files.iter().find(|(p, _)| p.exists()) {
        errln!(
            "error: {} exists; `policy init` never overwrites a file\n  help: pick another directory: `policy init DIR`",
            existing.display()
        );
        return ExitStatus::CouldNotRun;
    }
    for (path, text) in &files {
        if let Err(e) = write(path, text) {
            errln!("error: cannot write {}: {e}", path.display());
            return ExitStatus::CouldNotRun;
        }
        outln!("created {}", path.display());
    }
    let d = dir.display();
    outln!("\nnext: `policy check {d}` and `policy test {d}`, then");
    let install = match args.harness {
        InitHarness::Chibi => format!("policy install chibi --policy {d}"),
        InitHarness::ClaudeCode => {
            format!("policy install claude-code --policy {d} --settings ~/.claude/settings.json")
        }
        InitHarness::Gemini => {
            format!("policy install gemini --policy {d} --settings ~/.gemini/settings.json")
        }
        InitHarness::Codex => {
            format!("policy install codex --policy {d} --settings ~/.codex/hooks.json")
        }
        InitHarness::Picoclaw => format!("policy install picoclaw --policy {d}"),
        InitHarness::Cursor => format!("policy install cursor --policy {d} --write --scope user"),
        InitHarness::Copilot => {
            format!("policy install copilot --policy {d} --write (in the repository)")
        }
        InitHarness::Windsurf => {
            format!("policy install windsurf --policy {d} --write --scope user")
        }
        InitHarness::Cline => format!("policy install cline --policy {d} --write --scope user"),
        InitHarness::Opencode => {
            format!("policy install opencode --policy {d} --write --scope user")
        }
        InitHarness::Kiro => {
            format!("policy install kiro --policy {d} --settings ~/.kiro/agents/NAME.json")
        }
    };
    outln!("  {install}");
    ExitStatus::Success
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}
