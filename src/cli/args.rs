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
}

impl Agent {
    pub fn harness(self) -> Harness {
        match self {
            Agent::ClaudeCode => Harness::ClaudeCode,
            Agent::Gemini => Harness::Gemini,
            Agent::Codex => Harness::Codex,
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
