//! `policy install cursor|copilot|windsurf|cline`: print the hooks.json entries
//! (Cline: its hook script),
//! or with `--write` merge them into the file at its documented location
//! (`--scope user|project`), or into `--settings FILE`. The entries and the
//! merge are `adapters::hook_config`'s.

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
    /// Cline: ~/Documents/Cline/Hooks/PreToolUse).
    User,
    /// The project's, from the current directory (Cursor: .cursor/hooks.json;
    /// Copilot CLI: .github/hooks/hook-policy.json; Windsurf: .windsurf/hooks.json;
    /// Cline: .clinerules/hooks/PreToolUse).
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
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    // The file the entry is for (printed entries too): it names the list.
    let file = match (&args.settings, &home) {
        (Some(file), _) => file.clone(),
        (None, Some(home)) => hook_config::default_path(harness, scope, home)?,
        (None, None) => return Err("HOME is not set: pass --settings FILE".into()),
    };
    let layout = agent_settings::Layout::from_env()?;
    let list = hook_config::list_for(&layout, harness, &file);
    let entry = hook_config::entry(harness, &layout.binary(), &list);
    let writing = args.settings.is_some() || args.write;
    if writing && harness != Harness::Cline {
        // A refused file changes nothing, not even the list its entry runs.
        hook_config::check(harness, &file, &entry)?;
    }
    std::fs::create_dir_all(&layout.dir)
        .map_err(|e| format!("cannot create {}: {e}", layout.dir.display()))?;
    agent_settings::copy_binary(&layout.binary())?;
    let text: String = policy
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect();
    agent_settings::write_replacing(&list, text.as_bytes(), None)?;
    errln!(
        "the hook runs {} (a copy of this binary; install again to update it) with the policy paths in {}",
        layout.binary().display(),
        list.display()
    );
    if harness == Harness::Cline {
        return cline(writing, &file, &layout.binary(), &list);
    }
    if !writing {
        outln!(
            "{}",
            serde_json::to_string_pretty(&entry).unwrap_or_default()
        );
        errln!(
            "Merge this into {}'s hooks file, or run again with --write.",
            harness.title()
        );
        return Ok(());
    }
    outln!("{}", hook_config::install(harness, &file, &entry)?);
    Ok(())
}

/// Cline's hook is a script of its own, not an entry in a shared file
/// (`adapters::hook_script`).
fn cline(
    writing: bool,
    file: &std::path::Path,
    exe: &std::path::Path,
    list: &std::path::Path,
) -> Result<(), String> {
    use crate::adapters::hook_script;
    let script = hook_script::script(exe, list);
    if !writing {
        super::output::out!("{script}");
        errln!("Save this as an executable PreToolUse in Cline's hooks directory, or run again with --write.");
        return Ok(());
    }
    outln!("{}", hook_script::install(file, &script)?);
    Ok(())
}
