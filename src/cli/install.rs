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
use std::path::{Path, PathBuf};

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
        /// PicoClaw's workspace, the project root (default: the one
        /// PicoClaw's configuration names, else ~/.picoclaw/workspace).
        #[arg(long)]
        workspace: Option<PathBuf>,
    },
    /// Print, or merge into --settings, Claude Code's PreToolUse hook entry.
    ClaudeCode(AgentInstall),
    /// Print, or merge into --settings, Gemini CLI's BeforeTool/BeforeModel hook entries.
    Gemini(AgentInstall),
    /// Print, or merge into --settings (hooks.json), Codex's PreToolUse hook entry.
    Codex(AgentInstall),
    /// Print, or --write into Cursor's hooks.json, the beforeShellExecution,
    /// beforeMCPExecution and beforeReadFile entries.
    Cursor(super::install_hooks::HookFileInstall),
    /// Print, or --write into .github/hooks/hook-policy.json, Copilot CLI's preToolUse entry.
    Copilot(super::install_hooks::HookFileInstall),
    /// Print, or --write into Windsurf's hooks.json, the pre_run_command,
    /// pre_read_code, pre_write_code and pre_mcp_tool_use entries.
    Windsurf(super::install_hooks::HookFileInstall),
    /// Print, or --write as ~/Documents/Cline/Hooks/PreToolUse (user) or
    /// .clinerules/hooks/PreToolUse (project), Cline's PreToolUse hook script.
    Cline(super::install_hooks::HookFileInstall),
    /// Print, or --write into OpenCode's plugin directory, the plugin that
    /// puts every tool call (tool.execute.before) to `policy hook opencode`.
    Opencode(super::install_hooks::HookFileInstall),
    /// Print, or merge into an agent's configuration (--settings
    /// ~/.kiro/agents/NAME.json), Kiro CLI's preToolUse hook entry.
    Kiro(super::install_hooks::HookFileInstall),
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
        InstallTarget::Picoclaw { policy, workspace } => {
            picoclaw_entry(&policy, workspace.as_deref())
        }
        InstallTarget::ClaudeCode(a) => agent_settings(Harness::ClaudeCode, a),
        InstallTarget::Gemini(a) => agent_settings(Harness::Gemini, a),
        InstallTarget::Codex(a) => agent_settings(Harness::Codex, a),
        InstallTarget::Cursor(a) => super::install_hooks::run(Harness::Cursor, a),
        InstallTarget::Copilot(a) => super::install_hooks::run(Harness::Copilot, a),
        InstallTarget::Windsurf(a) => super::install_hooks::run(Harness::Windsurf, a),
        InstallTarget::Cline(a) => super::install_hooks::run(Harness::Cline, a),
        InstallTarget::Opencode(a) => super::install_hooks::run(Harness::OpenCode, a),
        InstallTarget::Kiro(a) => super::install_hooks::run(Harness::Kiro, a),
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

fn picoclaw_entry(policy: &[PathBuf], workspace: Option<&Path>) -> Result<(), String> {
    let (exe, policy) = install_paths(policy)?;
    let workspace = picoclaw::workspace::resolve(workspace);
    outln!(
        "{}",
        serde_json::to_string_pretty(&picoclaw::config_snippet(&exe, &policy, &workspace))
            .unwrap_or_default()
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
    /// The settings file the entry was merged into (OpenCode: the plugin
    /// file install wrote).
    #[arg(long, required = true)]
    pub settings: PathBuf,
}

pub fn uninstall(args: UninstallArgs) -> ExitStatus {
    let harness = args.agent.harness();
    let result = match harness {
        Harness::Cursor | Harness::Copilot | Harness::Windsurf | Harness::Kiro => {
            crate::adapters::hook_config::uninstall(harness, &args.settings)
        }
        Harness::Cline => crate::adapters::hook_script::uninstall(&args.settings),
        Harness::OpenCode => crate::adapters::opencode_install::uninstall(&args.settings),
        _ => agent_settings::uninstall(harness, &args.settings),
    };
    match result {
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
pub(super) fn install_paths(policy: &[PathBuf]) -> Result<(PathBuf, Vec<PathBuf>), String> {
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
