//! `policy doctor`: report, for every agent `policy install` knows, whether
//! hook-policy guards it on this machine (the checks are `crate::doctor`'s).
//!
//! The agents are the `policy install` subcommands themselves, read from
//! the command-line definition, so an agent added to install is examined
//! without a change here.
//!
//! Exit status: 0 every agent found is guarded and its hook answered as it
//! should; 1 an installed hook is broken (binary missing, policy not
//! loading, dangerous event not denied, harmless event denied, hung or
//! unreadable configuration); 2 could not run (bad arguments); 3 nothing
//! broken, but an agent found here has no hook-policy entry.

use super::output::{errln, outln};
use super::ExitStatus;
use crate::doctor::{self, sites::Machine, AgentReport, Options};
use clap::{CommandFactory, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum DoctorFormat {
    Human,
    /// One JSON document: `{"version": 1, "status", "exit_status", "agents": [...]}`.
    Json,
}

#[derive(clap::Args)]
pub struct DoctorArgs {
    /// Only this agent (repeatable); by default every agent `policy install` knows.
    #[arg(long, value_name = "NAME")]
    pub agent: Vec<String>,
    /// The home to look in instead of $HOME (a throwaway home in tests).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The project whose project-scope hook files are read (default: the
    /// current directory); the probes run there.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: DoctorFormat,
    /// Also send the events through a project's hook that runs a program
    /// other than hook-policy's installed copy (by default such a hook is
    /// reported, not run: the project may not be yours).
    #[arg(long)]
    pub trust_project_hooks: bool,
    /// Seconds one probe may take before the hook counts as hung.
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    pub timeout: f64,
}

/// The agents `policy install` installs into, with their titles.
pub fn install_targets() -> Vec<(String, String)> {
    let cli = super::Cli::command();
    let Some(install) = cli.find_subcommand("install") else {
        return Vec::new();
    };
    install
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .map(|name| {
            let title = crate::adapters::tool_call::Harness::ALL
                .into_iter()
                .find(|h| h.name() == name)
                .map_or_else(|| name.clone(), |h| h.title().to_string());
            (name, title)
        })
        .collect()
}

pub fn run(args: DoctorArgs) -> ExitStatus {
    match examine(args) {
        Ok(status) => status,
        Err(e) => {
            errln!("error: {e}");
            ExitStatus::CouldNotRun
        }
    }
}

fn examine(args: DoctorArgs) -> Result<ExitStatus, String> {
    let targets = install_targets();
    for name in &args.agent {
        if !targets.iter().any(|(n, _)| n == name) {
            let names: Vec<&str> = targets.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!(
                "unknown agent `{name}`; `policy install` knows {}",
                names.join(", ")
            ));
        }
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err("--timeout takes a number of seconds above 0".into());
    }
    let home = match args.home {
        Some(h) => h,
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or("HOME is not set: pass --home DIR")?,
    };
    let project = match args.project {
        Some(p) => p,
        None => std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?,
    };
    let opts = Options {
        machine: Machine {
            home: crate::adapters::agent_settings::absolute(&home),
            project: crate::adapters::agent_settings::absolute(&project),
        },
        timeout: Duration::from_secs_f64(args.timeout),
        trusted: trusted_binaries(&home),
        trust_project_hooks: args.trust_project_hooks,
    };
    let reports: Vec<AgentReport> = targets
        .iter()
        .filter(|(n, _)| args.agent.is_empty() || args.agent.contains(n))
        .map(|(name, title)| doctor::examine(name, title, &opts))
        .collect();
    let status = status_of(&reports);
    match args.format {
        DoctorFormat::Json => {
            let doc = serde_json::json!({
                "version": 1,
                "status": match status {
                    ExitStatus::Success => "ok",
                    ExitStatus::Problems => "broken",
                    _ => "not-installed",
                },
                "exit_status": status.code(),
                "agents": reports,
            });
            outln!(
                "{}",
                serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
            );
        }
        DoctorFormat::Human => print_human(&reports, !args.agent.is_empty()),
    }
    Ok(status)
}

/// hook-policy's installed copy (where `policy install` puts it) and this
/// binary, resolved.
fn trusted_binaries(home: &std::path::Path) -> Vec<PathBuf> {
    let installed = crate::adapters::agent_settings::Layout::from_env()
        .ok()
        .map(|l| l.binary());
    installed
        .into_iter()
        .chain([home.join(".local/share/hook-policy/policy")])
        .chain(std::env::current_exe().ok())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}

fn status_of(reports: &[AgentReport]) -> ExitStatus {
    let problems = reports.iter().flat_map(|r| &r.problems);
    if problems.clone().any(doctor::Problem::is_broken) {
        ExitStatus::Problems
    } else if problems.count() > 0 {
        ExitStatus::Unguarded
    } else {
        ExitStatus::Success
    }
}

fn print_human(reports: &[AgentReport], asked: bool) {
    let mut absent = Vec::new();
    for r in reports {
        if !r.found && !asked {
            absent.push(r.title.as_str());
            continue;
        }
        if !r.found {
            outln!("{}: not found on this machine", r.title);
            continue;
        }
        outln!("{} ({})", r.title, r.agent);
        for s in &r.scopes {
            if !s.installed {
                outln!(
                    "  {:<7} {}: no hook-policy entry",
                    s.scope,
                    s.file.display()
                );
                continue;
            }
            outln!(
                "  {:<7} {}: hook-policy installed",
                s.scope,
                s.file.display()
            );
            for e in &s.entries {
                outln!("    runs     {}", e.command);
                outln!(
                    "    binary   {} ({})",
                    e.binary.display(),
                    if e.binary_ok { "ok" } else { "MISSING" }
                );
                let shown: Vec<String> = e.policy.iter().map(|p| p.display().to_string()).collect();
                outln!(
                    "    policy   {} ({})",
                    shown.join(", "),
                    if e.policy_error.is_none() {
                        "loads"
                    } else {
                        "DOES NOT LOAD"
                    }
                );
                for p in &e.probes {
                    outln!(
                        "    {:<9} {} -> {}{}",
                        p.event,
                        p.shows,
                        p.verdict,
                        if p.ok { "" } else { "  <- PROBLEM" }
                    );
                    if !p.reply.is_empty() {
                        outln!("              reply: {}", p.reply);
                    }
                }
            }
        }
        for p in &r.problems {
            outln!("  problem: {}", p.message);
            outln!("  fix:     {}", p.fix);
        }
    }
    if !absent.is_empty() {
        outln!("not found on this machine: {}", absent.join(", "));
    }
    let problems: Vec<_> = reports.iter().flat_map(|r| &r.problems).collect();
    match problems.len() {
        0 if reports.iter().any(|r| r.found) => outln!("all agents found are guarded"),
        0 => outln!("no agent found"),
        n => outln!(
            "{n} problem{} (see each `fix:` above)",
            if n == 1 { "" } else { "s" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An agent added to `policy install` must tell doctor where its hooks
    /// live and what to send through them, or doctor would call it
    /// guarded without having looked.
    #[test]
    fn every_install_target_has_hook_files_and_probes() {
        let targets = install_targets();
        assert!(targets.len() >= 8, "{:?}", targets);
        let machine = Machine {
            home: PathBuf::from("/home/user"),
            project: PathBuf::from("/home/user/proj"),
        };
        for (name, _) in targets {
            assert!(
                !doctor::sites::sites(&name, &machine).is_empty(),
                "doctor does not know where {name} keeps its hooks (src/doctor/sites.rs, or the installer's default_path)"
            );
            assert!(
                doctor::probes::for_agent(&name).is_some(),
                "no harmless and dangerous {name} events in src/doctor/probes.json"
            );
        }
    }
}
