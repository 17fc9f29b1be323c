//! The reference commands, `policy schema`, `policy hooks` and `policy
//! adapters`: they print what the catalogue and the format define, and the
//! generated docs (schema/policy.schema.json, docs/hooks.md,
//! docs/adapters.md) are their output.

use super::output::{out, outln};
use super::ExitStatus;
use crate::adapters::tool_call;
use crate::{catalogue, model};

#[derive(clap::Args)]
pub struct HooksArgs {
    /// Print the full reference as Markdown (docs/hooks.md).
    #[arg(long)]
    pub markdown: bool,
}

#[derive(clap::Args)]
pub struct AdaptersArgs {
    /// Print the full table as Markdown (docs/adapters.md).
    #[arg(long)]
    pub markdown: bool,
}

pub fn schema() -> ExitStatus {
    out!("{}", model::schema_text());
    ExitStatus::Success
}

pub fn hooks(args: HooksArgs) -> ExitStatus {
    if args.markdown {
        out!("{}", catalogue::markdown());
        return ExitStatus::Success;
    }
    for h in catalogue::HOOKS {
        let effects: Vec<&str> = h.effects.iter().map(|e| e.key()).collect();
        let effects = if effects.is_empty() {
            "observe only".to_string()
        } else {
            effects.join(", ")
        };
        outln!("{:<22} {:<14} {}", h.name, h.class.as_str(), effects);
    }
    ExitStatus::Success
}

pub fn adapters(args: AdaptersArgs) -> ExitStatus {
    if args.markdown {
        out!("{}", tool_call::markdown());
        return ExitStatus::Success;
    }
    for m in tool_call::TOOL_MAP {
        let hooks = tool_call::permission_hooks(m.action);
        outln!(
            "{:<12} {:<20} {:<9} {}",
            m.harness.name(),
            m.tool,
            m.tool_type,
            hooks
        );
    }
    ExitStatus::Success
}
