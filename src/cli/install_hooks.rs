//! `policy install cursor|copilot|windsurf|opencode`: print the hooks.json
//! entries, or with `--write` merge them into the file at its documented
//! location (`--scope user|project`), or into `--settings FILE`. The entries
//! and the merge are `adapters::hook_config`'s; OpenCode's plugin file is
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
    /// ~/.codeium/windsurf/hooks.json; OpenCode:
    /// ~/.config/opencode/plugins/hook-policy.js).
    User,
    /// The project's, from the current directory (Cursor: .cursor/hooks.json;
    /// Copilot CLI: .github/hooks/hook-policy.json; Windsurf: .windsurf/hooks.json;
    /// OpenCode: .opencode/plugins/hook-policy.js).
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
    let layout = agent_settings::Layout::from_env()?;
    std::fs::create_dir_all(&layout.dir)
        .map_err(|e| format!("cannot create {}: {e}", layout.dir.display()))?;
    agent_settings::copy_binary(&layout.binary())?;
    let list = layout.list(harness);
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
    let scope = match args.scope {
        ScopeArg::User => Scope::User,
        ScopeArg::Project => Scope::Project,
    };
    if harness == Harness::OpenCode {
        return opencode_plugin(&layout, &list, scope, args);
    }
    let entry = hook_config::entry(harness, &layout.binary(), &list);
    let file = match (args.settings, args.write) {
        (Some(file), _) => file,
        (None, true) => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .ok_or("HOME is not set: pass --settings FILE")?;
            hook_config::default_path(harness, scope, &home)?
        }
        (None, false) => {
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
    };
    // A Kiro agent configuration defines the agent: creating one would make
    // a new agent without tools, guarding nothing the user runs.
    if harness == Harness::Kiro && !file.exists() {
        return Err(format!(
            "{} does not exist: name the configuration of an agent you run (~/.kiro/agents/NAME.json or .kiro/agents/NAME.json); nothing was changed",
            file.display()
        ));
    }
    outln!("{}", hook_config::install(harness, &file, &entry)?);
    Ok(())
}

/// OpenCode's plugin file: printed, or written where --scope or --settings says.
fn opencode_plugin(
    layout: &agent_settings::Layout,
    list: &std::path::Path,
    scope: Scope,
    args: HookFileInstall,
) -> Result<(), String> {
    use crate::adapters::opencode_install;
    let text = opencode_install::plugin(&layout.binary(), list);
    let file = match (args.settings, args.write, scope) {
        (Some(file), _, _) => file,
        (None, true, Scope::User) => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .ok_or("HOME is not set: pass --settings FILE")?;
            opencode_install::user_path(&home)
        }
        (None, true, Scope::Project) => opencode_install::project_path(),
        (None, false, _) => {
            outln!("{}", text.trim_end());
            errln!(
                "Save this as {} in OpenCode's plugin directory, or run again with --write.",
                opencode_install::FILE_NAME
            );
            return Ok(());
        }
    };
    outln!("{}", opencode_install::install(&file, &text)?);
    Ok(())
}
