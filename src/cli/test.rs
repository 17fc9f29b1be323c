//! `policy test`: run the policy tests (`*.test.yaml`) and report them the
//! way `cargo test` does, with rule coverage on request, or as JSON for
//! scripts and editors.

use super::args::or_current_dir;
use super::output::{errln, outln};
use super::ExitStatus;
use crate::render;
use crate::testing::{self, Report};
use clap::ValueEnum;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct TestArgs {
    /// Test files or directories (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Run only the cases whose name contains this text.
    #[arg(long, value_name = "NAME")]
    pub filter: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TestFormat::Human)]
    pub format: TestFormat,
    /// List the rules no case saw match.
    #[arg(long)]
    pub coverage: bool,
    /// Fail when fewer than this percentage of rules were matched by some case.
    #[arg(long, value_name = "PERCENT")]
    pub min_coverage: Option<f64>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum TestFormat {
    Human,
    /// One JSON document: cases, problems, coverage and the summary.
    Json,
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
    let report = testing::run_filtered(&files, args.filter.as_deref());
    let pct = report.coverage();
    let below = args.min_coverage.filter(|min| pct + 1e-9 < *min);
    let ok = report.failed() == 0 && report.problems.is_empty();
    match args.format {
        TestFormat::Human => human(&report, args.coverage || args.min_coverage.is_some(), ok),
        TestFormat::Json => json(&report, ok, below.is_none()),
    }
    if !report.problems.is_empty() && report.cases.is_empty() {
        return ExitStatus::CouldNotRun;
    }
    if let Some(min) = below {
        if args.format == TestFormat::Human {
            outln!("coverage {pct:.1}% is below the required {min}%");
        }
        return ExitStatus::Problems;
    }
    if ok {
        ExitStatus::Success
    } else {
        ExitStatus::Problems
    }
}

fn human(report: &Report, show_coverage: bool, ok: bool) {
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
    if !report.problems.is_empty() {
        outln!(
            "\n{}",
            render::human_grouped(&report.problems, false).trim_end()
        );
    }
    if show_coverage {
        outln!(
            "\ncoverage: {:.1}% of {} rule(s) matched by some case",
            report.coverage(),
            report.rules.len()
        );
        if !report.shipped_rules.is_empty() {
            outln!(
                "  ({} rule(s) of shipped packs not counted: the packs' own tests cover them)",
                report.shipped_rules.len()
            );
        }
        for (id, origin) in report.uncovered() {
            outln!("  not covered: {id} ({origin})");
        }
    }
    let filtered = if report.filtered_out > 0 {
        format!("; {} filtered out", report.filtered_out)
    } else {
        String::new()
    };
    outln!(
        "\ntest result: {}. {} passed; {} failed{filtered}",
        if ok { "ok" } else { "FAILED" },
        report.passed(),
        report.failed()
    );
}

fn json(report: &Report, ok: bool, coverage_ok: bool) {
    let cases: Vec<serde_json::Value> = report
        .cases
        .iter()
        .map(|c| {
            serde_json::json!({
                "file": c.file.display().to_string(),
                "name": c.name,
                "ok": c.failures.is_empty(),
                "failures": c.failures,
            })
        })
        .collect();
    let uncovered: Vec<serde_json::Value> = report
        .uncovered()
        .into_iter()
        .map(|(id, origin)| serde_json::json!({ "rule": id, "origin": origin }))
        .collect();
    let out = serde_json::json!({
        "cases": cases,
        "problems": report.problems.iter().map(render::to_json).collect::<Vec<_>>(),
        "coverage": {
            "percent": report.coverage(),
            "rules": report.rules.len(),
            "uncovered": uncovered,
        },
        "summary": {
            "ok": ok && coverage_ok,
            "passed": report.passed(),
            "failed": report.failed(),
            "filtered_out": report.filtered_out,
        },
    });
    outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
}
