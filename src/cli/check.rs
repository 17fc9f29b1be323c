//! `policy check`: load, compile and lint policies and their test files,
//! and report every problem in the format asked for. Exit status 1 means problems were found,
//! 2 that the check could not run (a path that cannot be read).

use super::args::{or_current_dir, Format};
use super::output::{err, errln, outln};
use super::ExitStatus;
use crate::compile::compile;
use crate::diagnostic::{Diagnostic, Severity};
use crate::{load, render, testing};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Policy files or directories (default: the current directory); `-`
    /// reads one policy from standard input.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Treat warnings as failures.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Draw every occurrence of a repeated diagnostic (the human report
    /// otherwise draws it once, with a count and the first few places).
    #[arg(long)]
    pub show_all: bool,
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
    // Test files are linted beside the policies: those named, and those
    // found in the directories given.
    let (test_files, paths): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.into_iter().partition(|p| load::is_test_file(p));
    let mut test_files = test_files;
    for dir in paths.iter().filter(|p| p.is_dir()) {
        test_files.extend(testing::discover(std::slice::from_ref(dir)).unwrap_or_default());
    }
    let (set, mut diags) = load_policies(&paths);
    diags.extend(testing::file::lint(&test_files));
    // A file that could not be read leaves the check incomplete (exit 2),
    // but the files that were read are still checked and reported.
    let could_not_run = diags.iter().any(|d| d.code.starts_with("io::"));
    let (policy, more) = compile(&set, None);
    diags.extend(more);
    diags.extend(crate::check::lint::lint(&policy));
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
            if args.show_all {
                err!("{}", render::human(&diags, color));
            } else {
                err!("{}", render::human_grouped(&diags, color));
            }
            let files = set.files.len() + test_files.len();
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
                "summary": { "files": set.files.len() + test_files.len(), "rules": set.rules.len(), "errors": errors, "warnings": warnings },
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

/// Loads the policies; `-` among the paths is one policy read from standard
/// input (an editor's buffer, a generated policy), named `<stdin>`.
fn load_policies(paths: &[PathBuf]) -> (load::PolicySet, Vec<Diagnostic>) {
    let stdin = paths.iter().any(|p| p.as_os_str() == "-");
    if !stdin {
        return load::load(paths);
    }
    let files: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    let (files, mut diags) = load::discover_all(&files);
    let mut sources = Vec::new();
    for file in &files {
        match load::read_source(file) {
            Ok(source) => sources.push(source),
            Err(d) => diags.push(d),
        }
    }
    let name = std::path::Path::new("<stdin>");
    let mut bytes = Vec::new();
    let limit = load::MAX_POLICY_FILE_BYTES;
    match std::io::stdin().take(limit + 1).read_to_end(&mut bytes) {
        Err(e) => diags.push(load::io_error(name, &e)),
        Ok(n) if n as u64 > limit => diags.push(Diagnostic::error(
            "io::too-large",
            format!("standard input holds more than {limit} bytes, the limit of a policy file"),
        )),
        Ok(_) => match load::source_from_bytes(name, bytes) {
            Ok(source) => sources.push(source),
            Err(d) => diags.push(d),
        },
    }
    let (set, more) = load::load_sources(sources);
    diags.extend(more);
    (set, diags)
}
