//! The commands a harness runs: `policy hook AGENT` (one coding-agent event
//! per process) and `policy serve picoclaw` (a long-running stdio server).
//! Both hand the streams to their adapter, which owns the protocol.

use super::args::Agent;
use super::ExitStatus;
use crate::adapters::{coding_agent, picoclaw};
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
    },
}

pub fn hook(args: HookArgs) -> ExitStatus {
    let from = match args.policy_list {
        Some(list) => coding_agent::PolicyFrom::List(list),
        None => coding_agent::PolicyFrom::Paths(args.policy),
    };
    let code = coding_agent::run(
        args.agent.harness(),
        &from,
        &args.context,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    ExitStatus::from_adapter(code)
}

pub fn serve(target: ServeTarget) -> ExitStatus {
    match target {
        ServeTarget::Picoclaw { policy, context } => {
            let code = picoclaw::serve(
                &policy,
                context.as_deref(),
                &mut std::io::stdin().lock(),
                &mut std::io::stdout().lock(),
            );
            ExitStatus::from_adapter(code)
        }
    }
}
