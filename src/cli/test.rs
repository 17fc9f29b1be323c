//! `policy test`: run the policy tests (`*.test.yaml`) and report them the
//! way `cargo test` does, with rule coverage on request.

use super::args::or_current_dir;
use super::output::{errln, outln};
use super::ExitStatus;
use crate::testing;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct TestArgs {
    /// Test files or directories (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// List the rules no case saw match.
    #[arg(long)]
    pub coverage: bool,
    /// Fail when fewer than this percentage of rules were matched by some case.
    #[arg(long, value_name = "PERCENT")]
    pub min_coverage: Option<f64>,
}

pub fn run(args: TestArgs) -> ExitStatus {
    let paths = or_current_dir(args.paths);
    let files = match testing::discover(&paths) {
        Ok(files) => files,
        Err(e) => {
            errln!("error: {e}");
            return ExitStatus::CouldNotRun;
        }
    };
    if files.is_empty() {
        errln!(
            "error: no test files (*.test.yaml) under {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitStatus::CouldNotRun;
    }
    let report = testing::run(&files);
    let mut current: Option<&Path> = None;
    for case in &report.cases {
        if current != Some(case.file.as_path()) {
            let n = report.cases.iter().filter(|c| c.file == case.file).count();
            outln!("\nrunning {n} test(s) from {}", case.file.display());
            current = Some(&case.file);
        }
        outln!(
            "test {} ... {}",
            case.name,
            if case.failures.is_empty() {
                "ok"
            } else {
                "FAILED"
            }
        );
    }
    let failed: Vec<_> = report
        .cases
        .iter()
        .filter(|c| !c.failures.is_empty())
        .collect();
    if !failed.is_empty() {
        outln!("\nfailures:");
        for case in &failed {
            outln!("\n---- {} ({}) ----", case.name, case.file.display());
            for f in &case.failures {
                outln!("    {f}");
            }
        }
    }
    for e in &report.errors {
        outln!("\nerror: {e}");
    }
    let pct = report.coverage();
    if args.coverage || args.min_coverage.is_some() {
        outln!(
            "\ncoverage: {pct:.1}% of {} rule(s) matched by some case",
            report.rules.len()
        );
        for (id, origin) in report.uncovered() {
            outln!("  not covered: {id} ({origin})");
        }
    }
    let ok = failed.is_empty() && report.errors.is_empty();
    outln!(
        "\ntest result: {}. {} passed; {} failed",
        if ok { "ok" } else { "FAILED" },
        report.passed(),
        report.failed()
    );
    if !report.errors.is_empty() && report.cases.is_empty() {
        return ExitStatus::CouldNotRun;
    }
    if let Some(min) = args.min_coverage {
        if pct + 1e-9 < min {
            outln!("coverage {pct:.1}% is below the required {min}%");
            return ExitStatus::Problems;
        }
    }
    if ok {
        ExitStatus::Success
    } else {
        ExitStatus::Problems
    }
}
