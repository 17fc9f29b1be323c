//! `policy install HARNESS`: make a harness call us. Each harness's wiring
//! (chibi's plugin directory, PicoClaw's config entry, the coding agents'
//! settings, src/adapters/agent_settings.rs) is its adapter's business; this
//! module resolves paths and refuses a policy that does not load, since an
//! installed broken policy would deny every guarded call. `policy uninstall
//! AGENT` takes a coding agent's entry out again.

use super::args::Agent;
use super::output::{errln, outln};
use super::ExitStatus;
use crate::adapters::tool_call::Harness;
use crate::adapters::{agent_settings, chibi, picoclaw};
use crate::engine::{self, Prepared};
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum InstallTarget {
    /// Install as a chibi plugin in <home>/plugins/hook-policy/.
    Chibi {
        /// chibi home directory (default: $CHIBI_HOME, else ~/.chibi).
        #[arg(long)]
        home: Option<PathBuf>,
        /// Policy files or directories.
        #[arg(long, short, required = true)]
        policy: Vec<PathBuf>,
    },
    /// Print the `hooks.processes` entry for PicoClaw's configuration.
    Picoclaw {
        /// Policy files or directories.
        #[arg(long, short, required = true)]
        policy: Vec<PathBuf>,
    },
    /// Print, or merge into --settings, Claude Code's PreToolUse hook entry.
    ClaudeCode(AgentInstall),
    /// Print, or merge into --settings, Gemini CLI's BeforeTool/BeforeModel hook entries.
    Gemini(AgentInstall),
    /// Print, or merge into --settings (hooks.json), Codex's PreToolUse hook entry.
    Codex(AgentInstall),
}

#[derive(clap::Args)]
pub struct AgentInstall {
    /// Policy files or directories.
    #[arg(long, short, required = true)]
    pub policy: Vec<PathBuf>,
    /// Settings file to merge the entry into (for example ~/.claude/settings.json,
    /// ~/.gemini/settings.json, ~/.codex/hooks.json). Without it the entry is printed.
    #[arg(long)]
    pub settings: Option<PathBuf>,
}

pub fn run(target: InstallTarget) -> ExitStatus {
    let result = match target {
        InstallTarget::Chibi { home, policy } => chibi_plugin(home, &policy),
        InstallTarget::Picoclaw { policy } => picoclaw_entry(&policy),
        InstallTarget::ClaudeCode(a) => agent_settings(Harness::ClaudeCode, a),
        InstallTarget::Gemini(a) => agent_settings(Harness::Gemini, a),
        InstallTarget::Codex(a) => agent_settings(Harness::Codex, a),
    };
    match result {
        Ok(()) => ExitStatus::Success,
        Err(e) => {
            errln!("error: {e}");
            ExitStatus::CouldNotRun
        }
    }
}

fn chibi_plugin(home: Option<PathBuf>, policy: &[PathBuf]) -> Result<(), String> {
    let home = home
        .or_else(|| std::env::var_os("CHIBI_HOME").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".chibi")))
        .ok_or("no chibi home: pass --home DIR")?;
    let msg = chibi::install(&home, policy)?;
    outln!("{msg}");
    Ok(())
}

fn picoclaw_entry(policy: &[PathBuf]) -> Result<(), String> {
    let (exe, policy) = install_paths(policy)?;
    outln!(
        "{}",
        serde_json::to_string_pretty(&picoclaw::config_snippet(&exe, &policy)).unwrap_or_default()
    );
    errln!("Add this under PicoClaw's configuration; it intercepts before_llm, before_tool and approve_tool.");
    Ok(())
}

fn agent_settings(harness: Harness, args: AgentInstall) -> Result<(), String> {
    let done = agent_settings::install(harness, &args.policy, args.settings.as_deref())?;
    // Printed, the entry is stdout and the notes stderr; merged, the notes
    // are the output.
    if args.settings.is_none() {
        outln!(
            "{}",
            serde_json::to_string_pretty(&done.entry).unwrap_or_default()
        );
        for note in &done.notes {
            errln!("{note}");
        }
    } else {
        for note in &done.notes {
            outln!("{note}");
        }
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct UninstallArgs {
    pub agent: Agent,
    /// The settings file the entry was merged into.
    #[arg(long, required = true)]
    pub settings: PathBuf,
}

pub fn uninstall(args: UninstallArgs) -> ExitStatus {
    match agent_settings::uninstall(args.agent.harness(), &args.settings) {
        Ok(msg) => {
            outln!("{msg}");
            ExitStatus::Success
        }
        Err(e) => {
            errln!("error: {e}");
            ExitStatus::CouldNotRun
        }
    }
}

/// The absolute paths an installed hook runs with; refuses a policy that
/// does not load (the agent would deny every guarded call).
fn install_paths(policy: &[PathBuf]) -> Result<(PathBuf, Vec<PathBuf>), String> {
    let mut absolute = Vec::new();
    for p in policy {
        absolute.push(
            std::fs::canonicalize(p)
                .map_err(|e| format!("cannot find policy {}: {e}", p.display()))?,
        );
    }
    if let Prepared::Broken { message, .. } = engine::prepare(&absolute, None) {
        return Err(format!(
            "the policy does not load, fix it first (`policy check`): {message}"
        ));
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the policy binary: {e}"))?;
    Ok((exe, absolute))
}
