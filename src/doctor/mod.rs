//! `policy doctor`: is each agent on this machine really guarded?
//!
//! For one agent: find its hook files ([`sites`]), read the hook-policy
//! entries in them, check that the command's binary exists and is
//! executable and that its policy loads, then send one harmless and one
//! dangerous recorded event ([`probes`]) through the command exactly as
//! the agent would start it ([`run`]) and read the verdicts in the agent's
//! own reply format. Installed is not enough: an entry pointing at a binary
//! that is gone, or at a policy with no rules, lets everything through
//! without a word, which is what doctor is for.

pub mod probes;
pub mod run;
pub mod sites;

use crate::adapters::hook_config::Scope;
use crate::engine::{self, Prepared};
use serde::Serialize;
use serde_json::Value as Json;
use sites::{Launch, Machine, Site};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What doctor found about one agent.
#[derive(Debug, Serialize)]
pub struct AgentReport {
    /// The name `policy install` knows it by.
    pub agent: String,
    pub title: String,
    /// Whether the agent (its folder or one of its hook files) is here.
    pub found: bool,
    /// Each file the agent reads hooks from.
    pub scopes: Vec<ScopeReport>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Serialize)]
pub struct ScopeReport {
    pub scope: &'static str,
    pub file: PathBuf,
    /// Whether the file holds a hook-policy entry for the agent.
    pub installed: bool,
    pub entries: Vec<EntryReport>,
}

#[derive(Debug, Serialize)]
pub struct EntryReport {
    /// The command as the agent's file has it.
    pub command: String,
    pub binary: PathBuf,
    pub binary_ok: bool,
    /// The policy list file the command names, if any.
    pub policy_list: Option<PathBuf>,
    pub policy: Vec<PathBuf>,
    /// Why the policy does not load; `None` when it does.
    pub policy_error: Option<String>,
    pub probes: Vec<ProbeReport>,
}

#[derive(Debug, Serialize)]
pub struct ProbeReport {
    /// `harmless` or `dangerous`.
    pub event: &'static str,
    /// What the event asks, in a line.
    pub shows: String,
    /// `denied`, `not denied`, `timed out` or `did not run`.
    pub verdict: &'static str,
    /// Whether the verdict is the one a guarded agent needs.
    pub ok: bool,
    pub exit_status: Option<i32>,
    /// The reply (stdout, else stderr), shortened.
    pub reply: String,
}

/// What needs doing, and what to do.
#[derive(Debug, Serialize)]
pub struct Problem {
    /// `not-installed`, `unreadable-config`, `binary-missing`,
    /// `policy-broken`, `dangerous-not-denied`, `harmless-denied`,
    /// `hook-timed-out`, `hook-did-not-start`, `hook-not-probed`,
    /// `hooks-disabled`, `no-probes`.
    pub kind: &'static str,
    pub scope: Option<&'static str>,
    pub message: String,
    pub fix: String,
}

impl Problem {
    /// A hook that is installed but would not guard (or would block
    /// everything), as against an agent with no hook at all.
    pub fn is_broken(&self) -> bool {
        self.kind != "not-installed"
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "user",
        Scope::Project => "project",
    }
}

/// Options of one examination.
pub struct Options {
    pub machine: Machine,
    /// How long one probe may take before it counts as hung.
    pub timeout: Duration,
    /// The binaries a project's hooks file may run without
    /// `trust_project_hooks`: hook-policy's installed copy and this binary.
    pub trusted: Vec<PathBuf>,
    /// Probe a project's hooks even when they run another program.
    pub trust_project_hooks: bool,
}

/// Examines `agent` (a `policy install` target name).
pub fn examine(agent: &str, title: &str, opts: &Options) -> AgentReport {
    let sites = sites::sites(agent, &opts.machine);
    let mut report = AgentReport {
        agent: agent.to_string(),
        title: title.to_string(),
        found: sites::found(agent, &opts.machine, &sites),
        scopes: Vec::new(),
        problems: Vec::new(),
    };
    for site in &sites {
        let scope = scope_name(site.scope);
        let entries = match sites::entries(agent, site) {
            Ok(e) => e,
            Err(message) => {
                report.found = true;
                report.problems.push(Problem {
                    kind: "unreadable-config",
                    scope: Some(scope),
                    fix: format!(
                        "fix {} ({} cannot read its hooks from it either), then run `policy doctor` again",
                        site.file.display(),
                        title
                    ),
                    message,
                });
                Vec::new()
            }
        };
        let mut scope_report = ScopeReport {
            scope,
            file: site.file.clone(),
            installed: !entries.is_empty(),
            entries: Vec::new(),
        };
        if !entries.is_empty() {
            if let Some(why) = sites::switched_off(agent, site) {
                report.problems.push(Problem {
                    kind: "hooks-disabled",
                    scope: Some(scope),
                    message: format!(
                        "{} {why}, so {title} does not run the hook",
                        site.file.display()
                    ),
                    fix: format!("remove that setting from {}", site.file.display()),
                });
            }
        }
        for entry in entries {
            report.found = true;
            let checked = check_entry(agent, site, &entry, opts, &mut report.problems);
            scope_report.entries.push(checked);
        }
        report.scopes.push(scope_report);
    }
    if report.found && !report.scopes.iter().any(|s| s.installed) {
        let files: Vec<String> = sites.iter().map(|s| s.file.display().to_string()).collect();
        report.problems.push(Problem {
            kind: "not-installed",
            scope: None,
            message: format!(
                "{title} is here but hook-policy is not installed (looked in {})",
                files.join(", ")
            ),
            fix: format!("run `{}`", install_command(agent, &sites, &[])),
        });
    }
    report
}

/// The install command that puts an entry where doctor looks.
fn install_command(agent: &str, sites: &[Site], policy: &[PathBuf]) -> String {
    let policy = if policy.is_empty() {
        "--policy POLICY".to_string()
    } else {
        policy
            .iter()
            .map(|p| {
                format!(
                    "--policy {}",
                    crate::adapters::hook_config::quote(&p.display().to_string())
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    match agent {
        "chibi" => {
            // The manifest is <chibi home>/plugins/hook-policy/hook-policy.json.
            let home = sites
                .first()
                .and_then(|s| s.file.ancestors().nth(3))
                .map(|h| crate::adapters::hook_config::quote(&h.display().to_string()));
            match home {
                Some(h) => format!("policy install chibi --home {h} {policy}"),
                None => format!("policy install chibi {policy}"),
            }
        }
        "picoclaw" => format!(
            "policy install picoclaw {policy}` and add the printed entry to `{}",
            sites
                .first()
                .map(|s| s.file.display().to_string())
                .unwrap_or_default()
        ),
        _ => {
            let site = sites.first();
            let harness = crate::adapters::tool_call::Harness::ALL
                .into_iter()
                .find(|h| h.name() == agent);
            let hooks_file = harness.is_some_and(|h| {
                site.is_some_and(|s| {
                    crate::adapters::hook_config::default_path(h, s.scope, Path::new("/")).is_ok()
                })
            });
            match site {
                Some(s) if hooks_file => format!(
                    "policy install {agent} {policy} --write --scope {}",
                    scope_name(s.scope)
                ),
                Some(s) => format!(
                    "policy install {agent} {policy} --settings {}",
                    crate::adapters::hook_config::quote(&s.file.display().to_string())
                ),
                None => format!("policy install {agent} {policy}"),
            }
        }
    }
}

/// How to put the entry of `site` back (the same scope and policy).
fn reinstall(agent: &str, site: &Site, policy: &[PathBuf]) -> String {
    install_command(agent, std::slice::from_ref(site), policy)
}

fn check_entry(
    agent: &str,
    site: &Site,
    entry: &sites::Entry,
    opts: &Options,
    problems: &mut Vec<Problem>,
) -> EntryReport {
    let scope = Some(scope_name(site.scope));
    let words = entry.launch.words();
    let binary = resolve_program(words.first().map(String::as_str).unwrap_or(""));
    let binary_ok = is_executable(&binary);
    let (policy, policy_list, mut policy_error) = match &entry.manifest_policy {
        Some(p) => (p.clone(), None, None),
        None => match sites::policy_paths(&words[1.min(words.len())..]) {
            Ok((p, list)) => (p, list, None),
            Err(e) => (Vec::new(), None, Some(e)),
        },
    };
    let mut report = EntryReport {
        command: entry.launch.shown(),
        binary: binary.clone(),
        binary_ok,
        policy_list,
        policy: policy.clone(),
        policy_error: None,
        probes: Vec::new(),
    };
    if !binary_ok {
        problems.push(Problem {
            kind: "binary-missing",
            scope,
            message: format!(
                "the entry in {} runs {}, which is not an executable file: {} lets every call through when its hook cannot start",
                site.file.display(),
                binary.display(),
                title_of(agent)
            ),
            fix: format!("run `{}` to put the binary back", reinstall(agent, site, &policy)),
        });
    }
    if policy_error.is_none() {
        if let Prepared::Broken { message, .. } = engine::prepare(&policy, None) {
            policy_error = Some(message);
        }
    }
    if let Some(message) = &policy_error {
        let shown: Vec<String> = policy.iter().map(|p| p.display().to_string()).collect();
        problems.push(Problem {
            kind: "policy-broken",
            scope,
            message: format!("the policy does not load: {message}"),
            fix: if shown.is_empty() {
                format!("run `{}`", reinstall(agent, site, &policy))
            } else {
                format!(
                    "fix it (`policy check {}`); the hook reads it on its next call",
                    shown.join(" ")
                )
            },
        });
    }
    report.policy_error = policy_error;
    if binary_ok && may_run(agent, site, entry, &binary, &policy, opts, problems) {
        report.probes = probe(agent, site, &entry.launch, &policy, opts, problems);
    }
    report
}

/// Whether doctor may start the entry's command. A command line with shell
/// syntax beyond quoting is not run (it could do anything besides calling
/// the hook), nor is a project's entry that runs a program other than
/// hook-policy's, unless asked: `policy doctor` in a freshly cloned
/// repository must not execute what the repository's hooks file says.
fn may_run(
    agent: &str,
    site: &Site,
    entry: &sites::Entry,
    binary: &Path,
    policy: &[PathBuf],
    opts: &Options,
    problems: &mut Vec<Problem>,
) -> bool {
    let scope = Some(scope_name(site.scope));
    if let Launch::Shell { command, .. } = &entry.launch {
        if !sites::is_plain(command) {
            problems.push(Problem {
                kind: "hook-not-probed",
                scope,
                message: format!(
                    "the entry in {} is a shell command line with more than a program and its arguments, so doctor did not run it",
                    site.file.display()
                ),
                fix: format!(
                    "check it by hand, or let `{}` write hook-policy's own entry",
                    reinstall(agent, site, policy)
                ),
            });
            return false;
        }
    }
    let ours = std::fs::canonicalize(binary).is_ok_and(|b| opts.trusted.contains(&b));
    if site.scope == Scope::Project && !ours && !opts.trust_project_hooks {
        problems.push(Problem {
            kind: "hook-not-probed",
            scope,
            message: format!(
                "the project's {} runs {}, not hook-policy's installed copy, so doctor did not run it",
                site.file.display(),
                binary.display()
            ),
            fix: format!(
                "if you trust this project, run `policy doctor --trust-project-hooks`; or `{}` writes hook-policy's own entry",
                reinstall(agent, site, policy)
            ),
        });
        return false;
    }
    true
}

fn title_of(agent: &str) -> &str {
    crate::adapters::tool_call::Harness::ALL
        .into_iter()
        .find(|h| h.name() == agent)
        .map_or(agent, |h| h.title())
}

/// Sends the harmless and the dangerous event through the entry.
fn probe(
    agent: &str,
    site: &Site,
    launch: &Launch,
    policy: &[PathBuf],
    opts: &Options,
    problems: &mut Vec<Problem>,
) -> Vec<ProbeReport> {
    let scope = Some(scope_name(site.scope));
    let Some(p) = probes::for_agent(agent) else {
        problems.push(Problem {
            kind: "no-probes",
            scope,
            message: format!("doctor has no recorded {agent} events, so the hook was not tried"),
            fix: "add a harmless and a dangerous event for it to src/doctor/probes.json".into(),
        });
        return Vec::new();
    };
    let mut out = Vec::new();
    for (event, probe, want_denied) in [
        ("harmless", &p.harmless, false),
        ("dangerous", &p.dangerous, true),
    ] {
        let ran = run::run(
            launch,
            p.protocol,
            probe,
            &opts.machine.project,
            &opts.machine.home,
            opts.timeout,
        );
        let (verdict, status, reply) = match &ran {
            Err(e) => ("did not run", None, e.clone()),
            Ok(r) if r.timed_out => ("timed out", None, String::new()),
            Ok(r) => {
                let answer = reply_of(p.protocol, &r.stdout, &probe.event);
                let denied = p.denied.says_denied(r.status, answer.as_ref());
                let text = if r.stdout.iter().all(u8::is_ascii_whitespace) {
                    String::from_utf8_lossy(&r.stderr).trim().to_string()
                } else {
                    answer
                        .as_ref()
                        .map(Json::to_string)
                        .unwrap_or_else(|| String::from_utf8_lossy(&r.stdout).trim().to_string())
                };
                (if denied { "denied" } else { "not denied" }, r.status, text)
            }
        };
        let ok = match verdict {
            "denied" => want_denied,
            "not denied" => !want_denied,
            _ => false,
        };
        if !ok {
            let problem = probe_problem(agent, site, policy, event, probe, verdict, opts);
            // A hook that hangs or cannot start does so for both events.
            if !problems.iter().any(|p| {
                p.kind == problem.kind
                    && p.scope == problem.scope
                    && p.kind != "dangerous-not-denied"
                    && p.kind != "harmless-denied"
            }) {
                problems.push(problem);
            }
        }
        out.push(ProbeReport {
            event,
            shows: probe.shows.clone(),
            verdict,
            ok,
            exit_status: status,
            reply: shorten(&reply, 400),
        });
    }
    out
}

fn probe_problem(
    agent: &str,
    site: &Site,
    policy: &[PathBuf],
    event: &'static str,
    probe: &probes::Probe,
    verdict: &str,
    opts: &Options,
) -> Problem {
    let scope = Some(scope_name(site.scope));
    let title = title_of(agent);
    match (verdict, event) {
        ("timed out", _) => Problem {
            kind: "hook-timed-out",
            scope,
            message: format!(
                "the hook in {} did not answer the {event} event ({}) within {} s",
                site.file.display(),
                probe.shows,
                opts.timeout.as_secs_f64()
            ),
            fix: format!(
                "look at the command it runs; `{}` puts back the entry hook-policy writes",
                reinstall(agent, site, policy)
            ),
        },
        ("did not run", _) => Problem {
            kind: "hook-did-not-start",
            scope,
            message: format!(
                "the hook in {} could not be started: {title} lets every call through when its hook cannot start",
                site.file.display()
            ),
            fix: format!(
                "see the reply above; `{}` puts back the entry hook-policy writes",
                reinstall(agent, site, policy)
            ),
        },
        (_, "dangerous") => Problem {
            kind: "dangerous-not-denied",
            scope,
            message: format!(
                "the hook in {} did not deny a dangerous call ({}): {title} would run it",
                site.file.display(),
                probe.shows
            ),
            fix: "make the policy deny it (enable the core pack: `packs: [core]`; see `policy packs`), check with `policy eval`, then run `policy doctor` again".into(),
        },
        _ => Problem {
            kind: "harmless-denied",
            scope,
            message: format!(
                "the hook in {} denied a harmless call ({}): {title} would be blocked on everything",
                site.file.display(),
                probe.shows
            ),
            fix: "read the reason in the reply above; a policy that does not load denies every call (`policy check`)".into(),
        },
    }
}

/// The reply a probe got: stdout as JSON, or for JSON-RPC the line that
/// answers the event (by its id; not the hello).
fn reply_of(protocol: probes::Protocol, stdout: &[u8], event: &Json) -> Option<Json> {
    let text = String::from_utf8_lossy(stdout);
    match protocol {
        probes::Protocol::StdinJson => serde_json::from_str(text.trim()).ok(),
        probes::Protocol::JsonRpc => text
            .lines()
            .filter_map(|l| serde_json::from_str::<Json>(l).ok())
            .find(|m| m.get("id").is_some() && m.get("id") == event.get("id")),
    }
}

fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A program as the shell would find it: a word with a slash is a path,
/// another is looked up on PATH.
fn resolve_program(word: &str) -> PathBuf {
    if word.contains('/') || word.is_empty() {
        return PathBuf::from(word);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(word))
        .find(|p| is_executable(p))
        .unwrap_or_else(|| PathBuf::from(word))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}
