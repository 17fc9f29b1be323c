//! `policy check`: load, compile and lint policies, and report every
//! problem in the format asked for. Exit status 1 means problems were found,
//! 2 that the check could not run (a path that cannot be read).

use super::args::{or_current_dir, Format};
use super::output::{err, errln, outln};
use super::ExitStatus;
use crate::compile::compile;
use crate::diagnostic::{Diagnostic, Severity};
use crate::{load, render};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Policy files or directories (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Treat warnings as failures.
    #[arg(long)]
    pub deny_warnings: bool,
}

pub fn run(args: CheckArgs) -> ExitStatus {
    if !cfg!(feature = "reference-parser") {
        // A lint without the type checks would pass what the real one fails.
        errln!(
            "error: this is the plugin build (`cargo plugin-build`), made without the \
             reference CEL parser that `policy check` needs\n  help: run `policy check` from \
             a default build: `cargo run --release -- check`"
        );
        return ExitStatus::CouldNotRun;
    }
    let paths = or_current_dir(args.paths);
    let (set, mut diags) = load::load(&paths);
    let could_not_run = diags
        .iter()
        .any(|d| d.code.starts_with("io::") && d.file.is_none());
    if !could_not_run {
        let (policy, more) = compile(&set, None);
        diags.extend(more);
        diags.extend(crate::check::lint::lint(&policy));
    }
    diags.sort_by(|a, b| {
        let key = |d: &Diagnostic| (d.file.as_ref().map(|f| f.name()), d.span.map(|s| s.start));
        key(a).cmp(&key(b))
    });
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diags.len() - errors;
    match args.format {
        Format::Human => {
            let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            err!("{}", render::human(&diags, color));
            let files = set.files.len();
            if errors == 0 && warnings == 0 {
                errln!(
                    "ok: {files} file(s), {} rule(s), no problems",
                    set.rules.len()
                );
            } else {
                errln!("{errors} error(s), {warnings} warning(s) in {files} file(s)");
            }
        }
        Format::Json => {
            let out = serde_json::json!({
                "diagnostics": diags.iter().map(render::to_json).collect::<Vec<_>>(),
                "summary": { "files": set.files.len(), "rules": set.rules.len(), "errors": errors, "warnings": warnings },
            });
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Sarif => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&render::sarif(&diags)).unwrap_or_default()
            );
        }
        Format::Github => {
            for d in &diags {
                outln!("{}", render::github(d));
            }
        }
    }
    if could_not_run {
        ExitStatus::CouldNotRun
    } else if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitStatus::Problems
    } else {
        ExitStatus::Success
    }
}
