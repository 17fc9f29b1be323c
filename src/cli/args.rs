//! Arguments more than one command takes, so that they read and behave the
//! same everywhere.

use crate::catalogue::tools::Harness;
use clap::ValueEnum;

/// How `policy check` (and the commands that report like it) print findings.
#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Human,
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions annotations.
    Github,
}

/// The coding agents `policy hook` and `policy install` speak to.
#[derive(Clone, Copy, ValueEnum)]
pub enum Agent {
    ClaudeCode,
    Gemini,
    Codex,
    Cursor,
    /// GitHub Copilot CLI.
    Copilot,
    /// Windsurf Cascade.
    Windsurf,
    /// Cline (its PreToolUse hook script).
    Cline,
    /// OpenCode, through hook-policy's plugin.
    Opencode,
    /// Kiro CLI.
    Kiro,
}

impl Agent {
    /// The agent of a command-line name (`claude-code`), as clap reads it.
    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::value_variants()
            .iter()
            .copied()
            .find(|a| a.harness().name() == name)
    }

    pub fn harness(self) -> Harness {
        match self {
            Agent::ClaudeCode => Harness::ClaudeCode,
            Agent::Gemini => Harness::Gemini,
            Agent::Codex => Harness::Codex,
            Agent::Cursor => Harness::Cursor,
            Agent::Copilot => Harness::Copilot,
            Agent::Windsurf => Harness::Windsurf,
            Agent::Cline => Harness::Cline,
            Agent::Opencode => Harness::OpenCode,
            Agent::Kiro => Harness::Kiro,
        }
    }
}

/// The harness whose answer `policy eval` and `policy explain` give.
#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum AskingHarness {
    /// The chibi plugin: `--hook` and a canonical payload.
    Chibi,
    /// `policy hook claude-code`: the payload is Claude Code's hook event.
    ClaudeCode,
    /// `policy hook gemini`: the payload is Gemini CLI's hook event.
    Gemini,
    /// `policy hook codex`: the payload is Codex's hook event.
    Codex,
    /// `policy serve picoclaw`: the payload is one JSON-RPC request line.
    Picoclaw,
    /// `policy hook cursor`: the payload is Cursor's hook event.
    Cursor,
    /// `policy hook copilot`: the payload is Copilot CLI's preToolUse event.
    Copilot,
    /// `policy hook windsurf`: the payload is Windsurf's hook event; the
    /// reason of a block is on stderr, and the exit status is 1.
    Windsurf,
    /// `policy hook cline`: the payload is Cline's PreToolUse hook event.
    Cline,
    /// `policy hook opencode`: the payload is the event hook-policy's
    /// OpenCode plugin sends.
    Opencode,
    /// `policy hook kiro`: the payload is Kiro CLI's hook event; the reason
    /// of a block is on stderr, and the exit status is 1.
    Kiro,
}

impl AskingHarness {
    /// The coding agent, or `None` for chibi and PicoClaw.
    pub fn agent(self) -> Option<Harness> {
        match self {
            AskingHarness::Chibi | AskingHarness::Picoclaw => None,
            AskingHarness::ClaudeCode => Some(Harness::ClaudeCode),
            AskingHarness::Gemini => Some(Harness::Gemini),
            AskingHarness::Codex => Some(Harness::Codex),
            AskingHarness::Cursor => Some(Harness::Cursor),
            AskingHarness::Copilot => Some(Harness::Copilot),
            AskingHarness::Windsurf => Some(Harness::Windsurf),
            AskingHarness::Cline => Some(Harness::Cline),
            AskingHarness::Opencode => Some(Harness::OpenCode),
            AskingHarness::Kiro => Some(Harness::Kiro),
        }
    }
}

/// The paths a command works on, `.` when none are given.
pub fn or_current_dir(paths: Vec<std::path::PathBuf>) -> Vec<std::path::PathBuf> {
    if paths.is_empty() {
        vec![std::path::PathBuf::from(".")]
    } else {
        paths
    }
}
