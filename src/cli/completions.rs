//! `policy completions SHELL`: the completion script for a shell, generated
//! by clap from the same definitions that parse the command line, so it
//! cannot fall behind a new command or flag.

use super::{Cli, ExitStatus};
use clap::CommandFactory;
use clap_complete::Shell;

#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for. For example, in ~/.bashrc:
    /// `source <(policy completions bash)`.
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs) -> ExitStatus {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "policy", &mut out);
    // Through our output path: a closed pipe ends the output, never a panic.
    super::output::out!("{}", String::from_utf8_lossy(&out));
    ExitStatus::Success
}
