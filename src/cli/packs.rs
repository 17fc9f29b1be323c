//! `policy packs`: the guardrail packs shipped in the binary (the text is
//! made by `packs::listing`, from the embedded pack files).

use super::output::{errln, out};
use super::ExitStatus;

#[derive(clap::Args)]
pub struct PacksArgs {
    #[command(subcommand)]
    pub show: Option<PacksShow>,
    /// Print the full reference as Markdown (docs/packs.md).
    #[arg(long)]
    pub markdown: bool,
}

#[derive(clap::Subcommand)]
pub enum PacksShow {
    /// A pack's rules (id, severity, description, reason) and its test cases.
    Show { name: String },
}

pub fn run(args: PacksArgs) -> ExitStatus {
    let name = args.show.map(|PacksShow::Show { name }| name);
    match crate::packs::listing::run(name.as_deref(), args.markdown) {
        Ok(text) => {
            out!("{text}");
            ExitStatus::Success
        }
        Err(e) => {
            errln!("error: {e}");
            ExitStatus::CouldNotRun
        }
    }
}
