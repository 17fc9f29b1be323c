//! The commands a harness runs: `policy hook AGENT` (one coding-agent event
//! per process) and `policy serve picoclaw` (a long-running stdio server).
//! Both hand the streams to their adapter, which owns the protocol.

use super::args::Agent;
use super::ExitStatus;
use crate::adapters::cline::Cline;
use crate::adapters::copilot::Copilot;
use crate::adapters::cursor::Cursor;
use crate::adapters::kiro::Kiro;
use crate::adapters::opencode::OpenCode;
use crate::adapters::windsurf::Windsurf;
use crate::adapters::{coding_agent, hook_command, picoclaw};
use crate::catalogue::tools::Harness;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct HookArgs {
    pub agent: Agent,
    /// Policy files or directories.
    #[arg(
        long,
        short,
        required_unless_present = "policy_list",
        conflicts_with = "policy_list"
    )]
    pub policy: Vec<PathBuf>,
    /// A file naming the policy paths, one a line (what `policy install` writes).
    #[arg(long, value_name = "FILE")]
    pub policy_list: Option<PathBuf>,
    /// The context name `pre_api_tools` and `pre_api_request` rules see.
    #[arg(long, default_value = coding_agent::DEFAULT_CONTEXT)]
    pub context: String,
}

impl HookArgs {
    /// `hook`'s arguments read without clap, for `policy-hook` (which has
    /// no command-line parser linked in, see `adapters::hook_binary`): the
    /// agent, `--policy`/`-p` (repeatable), `--policy-list`, `--context`,
    /// each also as `--flag=value`. Refuses what `policy hook` refuses.
    pub fn from_words(words: &[String]) -> Result<HookArgs, String> {
        let mut agent = None;
        let mut policy = Vec::new();
        let mut policy_list = None;
        let mut context = None;
        let mut words = words.iter();
        while let Some(word) = words.next() {
            let (flag, inline) = match word.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
                _ => (word.as_str(), None),
            };
            if !flag.starts_with('-') {
                if agent.is_some() {
                    return Err(format!("unexpected argument `{word}`"));
                }
                agent =
                    Some(Agent::from_name(word).ok_or_else(|| {
                        format!("`{word}` is not an agent `policy hook` speaks to")
                    })?);
                continue;
            }
            let value = match inline {
                Some(value) => value,
                None => words
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("{flag} needs a value"))?,
            };
            match flag {
                "--policy" | "-p" => policy.push(PathBuf::from(value)),
                "--policy-list" if policy_list.is_none() => {
                    policy_list = Some(PathBuf::from(value))
                }
                "--context" if context.is_none() => context = Some(value),
                "--policy-list" | "--context" => return Err(format!("{flag} given twice")),
                _ => return Err(format!("unknown option `{flag}`")),
            }
        }
        let agent = agent.ok_or("name the agent: hook AGENT")?;
        match (policy.is_empty(), policy_list.is_some()) {
            (true, false) => return Err("give --policy or --policy-list".into()),
            (false, true) => return Err("give --policy or --policy-list, not both".into()),
            _ => {}
        }
        Ok(HookArgs {
            agent,
            policy,
            policy_list,
            context: context.unwrap_or_else(|| coding_agent::DEFAULT_CONTEXT.to_string()),
        })
    }
}

#[derive(Subcommand)]
pub enum ServeTarget {
    /// PicoClaw process hook: JSON-RPC 2.0, one message per line.
    Picoclaw {
        /// Policy files or directories (watched; valid edits apply at once).
        #[arg(long, short, required = true)]
        policy: Vec<PathBuf>,
        /// The context name tool-filter and request rules see (default: the
        /// request's meta.AgentID, else `default`).
        #[arg(long)]
        context: Option<String>,
        /// PicoClaw's workspace, the project root rules see (default: the
        /// one PicoClaw's configuration names, else ~/.picoclaw/workspace).
        #[arg(long)]
        workspace: Option<PathBuf>,
    },
}

pub fn hook(args: HookArgs) -> ExitStatus {
    let from = match args.policy_list {
        Some(list) => coding_agent::PolicyFrom::List(list),
        None => coding_agent::PolicyFrom::Paths(args.policy),
    };
    let (stdin, stdout, stderr) = (
        &mut std::io::stdin().lock(),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    let context = &args.context;
    let code = match args.agent.harness() {
        Harness::Cursor => hook_command::run::<Cursor>(&from, context, stdin, stdout, stderr),
        Harness::Copilot => hook_command::run::<Copilot>(&from, context, stdin, stdout, stderr),
        // Windsurf reads the exit status: 2 blocks (and maps to status 2).
        Harness::Windsurf => hook_command::run::<Windsurf>(&from, context, stdin, stdout, stderr),
        Harness::Cline => hook_command::run::<Cline>(&from, context, stdin, stdout, stderr),
        Harness::OpenCode => hook_command::run::<OpenCode>(&from, context, stdin, stdout, stderr),
        // Kiro blocks only on exit status 2, like Windsurf.
        Harness::Kiro => hook_command::run::<Kiro>(&from, context, stdin, stdout, stderr),
        other => coding_agent::run(other, &from, context, stdin, stdout, stderr),
    };
    ExitStatus::from_adapter(code)
}

pub fn serve(target: ServeTarget) -> ExitStatus {
    match target {
        ServeTarget::Picoclaw {
            policy,
            context,
            workspace,
        } => {
            let code = picoclaw::serve(
                &policy,
                context.as_deref(),
                workspace.as_deref(),
                &mut std::io::stdin().lock(),
                Box::new(std::io::stdout()),
            );
            ExitStatus::from_adapter(code)
        }
    }
}
