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

pub fn run(args: InitArgs) -> ExitStatus {
    let dir = &args.dir;
    let tests = match args.harness {
        InitHarness::Chibi | InitHarness::Picoclaw => CHIBI_TESTS,
        InitHarness::ClaudeCode => CLAUDE_CODE_TESTS,
        InitHarness::Gemini => GEMINI_TESTS,
        InitHarness::Codex => CODEX_TESTS,
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
