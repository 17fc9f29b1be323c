//! `policy install cursor|copilot|windsurf|kiro|cline|opencode`: print the
//! hooks.json entries (Cline: its hook script; OpenCode: its plugin), or with
//! `--write` merge them into the file at its documented location (`--scope
//! user|project`), or into `--settings FILE` (Kiro CLI: an agent's
//! configuration). The entries and the merge are `adapters::hook_config`'s;
//! Cline's script is `adapters::hook_script`'s, OpenCode's plugin file
//! `adapters::opencode_install`'s.

use super::output::{errln, outln};
use crate::adapters::agent_settings;
use crate::adapters::hook_config::{self, Scope};
use crate::adapters::tool_call::Harness;
use clap::ValueEnum;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub enum ScopeArg {
    /// The user's own hooks file (Cursor: ~/.cursor/hooks.json; Windsurf:
    /// ~/.codeium/windsurf/hooks.json; Copilot CLI: ~/.copilot/hooks/hook-policy.json;
    /// Cline: ~/Documents/Cline/Hooks/PreToolUse; OpenCode:
    /// ~/.config/opencode/plugins/hook-policy.js).
    User,
    /// The project's, from the current directory (Cursor: .cursor/hooks.json;
    /// Copilot CLI: .github/hooks/hook-policy.json; Windsurf: .windsurf/hooks.json;
    /// Cline: .clinerules/hooks/PreToolUse; OpenCode: .opencode/plugins/hook-policy.js).
    Project,
}

#[derive(clap::Args)]
pub struct HookFileInstall {
    /// Policy files or directories.
    #[arg(long, short, required = true)]
    pub policy: Vec<PathBuf>,
    /// Which documented hooks file --write merges into.
    #[arg(long, value_enum, default_value = "project")]
    pub scope: ScopeArg,
    /// Merge the entries into the hooks file of --scope (without it they are printed).
    #[arg(long)]
    pub write: bool,
    /// Merge into this file instead of the documented location.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
}

pub fn run(harness: Harness, args: HookFileInstall) -> Result<(), String> {
    // Checks that the policy loads; the entry runs the installed copy.
    let (_, policy) = super::install::install_paths(&args.policy)?;
    let scope = match args.scope {
        ScopeArg::User => Scope::User,
        ScopeArg::Project => Scope::Project,
    };
    let writing = args.settings.is_some() || args.write;
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    // The file the entry is for (printed entries too): it names the list.
    // Printing needs none (Kiro CLI has no documented location).
    let file = match (&args.settings, &home) {
        (Some(file), _) => Some(file.clone()),
        (None, Some(home)) => match hook_config::default_path(harness, scope, home) {
            Ok(file) => Some(file),
            Err(_) if !writing => None,
            Err(e) => return Err(e),
        },
        (None, None) if !writing => None,
        (None, None) => return Err("HOME is not set: pass --settings FILE".into()),
    };
    let layout = agent_settings::Layout::from_env()?;
    let list = match &file {
        Some(file) => hook_config::list_for(&layout, harness, file),
        None => layout.list(harness),
    };
    let entry = hook_config::entry(harness, &layout.binary(), &list);
    if let (true, Some(file)) = (writing, &file) {
        // A Kiro agent configuration defines the agent: creating one would
        // make a new agent without tools, guarding nothing the user runs.
        if harness == Harness::Kiro && !file.exists() {
            return Err(format!(
                "{} does not exist: name the configuration of an agent you run (~/.kiro/agents/NAME.json or .kiro/agents/NAME.json); nothing was changed",
                file.display()
            ));
        }
        // A refused file changes nothing, not even the list its entry runs.
        if !matches!(harness, Harness::Cline | Harness::OpenCode) {
            hook_config::check(harness, file, &entry)?;
        }
    }
    std::fs::create_dir_all(&layout.dir)
        .map_err(|e| format!("cannot create {}: {e}", layout.dir.display()))?;
    let copied = agent_settings::copy_binary(&layout.binary())?;
    let text: String = policy
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect();
    agent_settings::write_replacing(&list, text.as_bytes(), None)?;
    errln!(
        "the hook runs {} ({copied}; install again to update it) with the policy paths in {}",
        layout.binary().display(),
        list.display()
    );
    let file = match (writing, file) {
        (true, Some(file)) => file,
        _ => {
            print_entry(harness, &layout.binary(), &list, &entry);
            return Ok(());
        }
    };
    let done = match harness {
        Harness::Cline => {
            let script = crate::adapters::hook_script::script(&layout.binary(), &list);
            crate::adapters::hook_script::install(&file, &script)?
        }
        Harness::OpenCode => {
            use crate::adapters::opencode_install;
            let text = opencode_install::plugin(&layout.binary(), &list);
            opencode_install::install(&file, &text)?
        }
        _ => hook_config::install(harness, &file, &entry)?,
    };
    outln!("{done}");
    Ok(())
}

/// Without --write: what to put where, for the user to place.
fn print_entry(
    harness: Harness,
    exe: &std::path::Path,
    list: &std::path::Path,
    entry: &serde_json::Value,
) {
    match harness {
        Harness::Cline => {
            super::output::out!("{}", crate::adapters::hook_script::script(exe, list));
            errln!("Save this as an executable PreToolUse in Cline's hooks directory, or run again with --write.");
        }
        Harness::OpenCode => {
            use crate::adapters::opencode_install;
            outln!("{}", opencode_install::plugin(exe, list).trim_end());
            errln!(
                "Save this as {} in OpenCode's plugin directory, or run again with --write.",
                opencode_install::FILE_NAME
            );
        }
        _ => {
            outln!(
                "{}",
                serde_json::to_string_pretty(entry).unwrap_or_default()
            );
            errln!(
                "Merge this into {}'s hooks file, or run again with --write.",
                harness.title()
            );
        }
    }
}
