//! The `policy` command line.
//!
//! The binary is also the chibi plugin: a copy installed by `policy install
//! chibi` finds its manifest beside itself and speaks the plugin protocol
//! instead of parsing a command line. That check comes first and is cheap,
//! because chibi starts a fresh process for every hook call.
//!
//! For the same reason the binary has no Rust `main` runtime (`no_main`):
//! std's start-up (stack-guard discovery through `/proc/self/maps`, an
//! alternate signal stack, a stdio check) costs about 50 µs of a plugin
//! call's 1 ms and buys nothing here. The only part we need, ignoring
//! SIGPIPE so that writing to a closed pipe is an error and not death, is
//! done below. Arguments and the environment work as usual (glibc hands
//! them to std before `main`).
#![no_main]

use clap::{Parser, Subcommand, ValueEnum};
use hook_policy::adapters::tool_call::{self, Harness};
use hook_policy::adapters::{chibi, coding_agent, picoclaw};
use hook_policy::catalogue;
use hook_policy::compile::compile;
use hook_policy::diagnostic::{Diagnostic, Severity};
use hook_policy::engine::{self, Outcome, Prepared};
use hook_policy::eval::{DecideContext, Decision};
use hook_policy::{load, model, render};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

/// The process exit status. Not `std::process::ExitCode`: without std's
/// `main` runtime the status is returned from our own `main` as a number.
#[derive(Clone, Copy)]
struct ExitCode(u8);

impl ExitCode {
    const SUCCESS: ExitCode = ExitCode(0);
}

impl From<u8> for ExitCode {
    fn from(code: u8) -> ExitCode {
        ExitCode(code)
    }
}

// Output never panics: a closed pipe (`policy check | head`) or a closed
// stderr just ends the output.
macro_rules! outln { ($($t:tt)*) => {{ let _ = writeln!(std::io::stdout(), $($t)*); }} }
macro_rules! out { ($($t:tt)*) => {{ let _ = write!(std::io::stdout(), $($t)*); }} }
macro_rules! errln { ($($t:tt)*) => {{ let _ = writeln!(std::io::stderr(), $($t)*); }} }
macro_rules! err { ($($t:tt)*) => {{ let _ = write!(std::io::stderr(), $($t)*); }} }

#[derive(Parser)]
#[command(
    name = "policy",
    version,
    about = "YAML + CEL guardrails for AI agent hooks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate policy files and directories, reporting every problem.
    ///
    /// Exit status: 0 clean, 1 problems found, 2 could not run.
    Check {
        /// Policy files or directories (default: the current directory).
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Treat warnings as failures.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Decide one payload and print the reply the harness would get.
    Eval(EvalArgs),
    /// Like `eval --explain`: show how the decision was reached.
    Explain(EvalArgs),
    /// Run the policy tests (`*.test.yaml`) found under the paths.
    ///
    /// Exit status: 0 all passed, 1 a case failed or coverage is too low, 2 could not run.
    Test {
        /// Test files or directories (default: the current directory).
        paths: Vec<PathBuf>,
        /// List the rules no case saw match.
        #[arg(long)]
        coverage: bool,
        /// Fail when fewer than this percentage of rules were matched by some case.
        #[arg(long, value_name = "PERCENT")]
        min_coverage: Option<f64>,
    },
    /// Print the JSON Schema of the policy format.
    Schema,
    /// List the hook points, their payloads and effects.
    Hooks {
        /// Print the full reference as Markdown (docs/hooks.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Make a harness use a policy.
    Install {
        #[command(subcommand)]
        harness: InstallTarget,
    },
    /// Answer one hook event of a coding agent (stdin: the event; stdout: the reply).
    ///
    /// This is the command an agent's settings run (`policy install AGENT`
    /// writes it). Always exits 0 with a JSON reply.
    Hook {
        agent: Agent,
        /// Policy files or directories.
        #[arg(long, short, required = true)]
        policy: Vec<PathBuf>,
        /// The context name `pre_api_tools` and `pre_api_request` rules see.
        #[arg(long, default_value = coding_agent::DEFAULT_CONTEXT)]
        context: String,
    },
    /// Serve a long-running harness over stdio.
    Serve {
        #[command(subcommand)]
        harness: ServeTarget,
    },
    /// List the guardrail packs shipped in this binary, or show one.
    Packs {
        #[command(subcommand)]
        show: Option<PacksShow>,
        /// Print the full reference as Markdown (docs/packs.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Show how each harness's tools map onto the canonical hooks.
    Adapters {
        /// Print the full table as Markdown (docs/adapters.md).
        #[arg(long)]
        markdown: bool,
    },
}

#[derive(Subcommand)]
enum PacksShow {
    /// A pack's rules (id, severity, description, reason) and its test cases.
    Show { name: String },
}

#[derive(Clone, Copy, ValueEnum)]
enum Agent {
    ClaudeCode,
    Gemini,
    Codex,
}

impl Agent {
    fn harness(self) -> Harness {
        match self {
            Agent::ClaudeCode => Harness::ClaudeCode,
            Agent::Gemini => Harness::Gemini,
            Agent::Codex => Harness::Codex,
        }
    }
}

#[derive(Subcommand)]
enum ServeTarget {
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

#[derive(clap::Args)]
struct EvalArgs {
    /// Policy files or directories.
    #[arg(long, short, required = true)]
    policy: Vec<PathBuf>,
    /// Hook point (taken from the payload file when it is a {"hook", "payload"} capture).
    #[arg(long)]
    hook: Option<String>,
    /// Payload JSON file, or - for standard input.
    #[arg(long, default_value = "-")]
    payload: String,
    /// Explain the decision on standard error.
    #[arg(long)]
    explain: bool,
    /// Project root seen by conditions as `project_root`.
    #[arg(long)]
    project_root: Option<String>,
}

#[derive(Subcommand)]
enum InstallTarget {
    /// Install as a chibi plugin in <home>/plugins/hook-policy/.
    Chibi {
        /// chibi home directory (default: $CHIBI_HOME, else ~/.chibi).
        #[arg(long)]
        home: Option<PathBuf>,
        /// Policy files or directories.
        #[arg(long, short, required = true)]
        policy: Vec<PathBuf>,
    },
    /// Print the `hooks.processes` entry for PicoClaw's configuration.
    Picoclaw {
        /// Policy files or directories.
        #[arg(long, short, required = true)]
        policy: Vec<PathBuf>,
    },
    /// Print, or merge into --settings, Claude Code's PreToolUse hook entry.
    ClaudeCode(AgentInstall),
    /// Print, or merge into --settings, Gemini CLI's BeforeTool/BeforeModel hook entries.
    Gemini(AgentInstall),
    /// Print, or merge into --settings (hooks.json), Codex's PreToolUse hook entry.
    Codex(AgentInstall),
}

#[derive(clap::Args)]
struct AgentInstall {
    /// Policy files or directories.
    #[arg(long, short, required = true)]
    policy: Vec<PathBuf>,
    /// Settings file to merge the entry into (for example ~/.claude/settings.json,
    /// ~/.gemini/settings.json, ~/.codex/hooks.json). Without it the entry is printed.
    #[arg(long)]
    settings: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Format {
    Human,
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions annotations.
    Github,
}

#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // SAFETY: setting a signal's disposition before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let code = run();
    // What returning from std's `main` would do: flush buffered stdout.
    let _ = std::io::stdout().flush();
    std::ffi::c_int::from(code.0)
}

fn run() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args == ["--schema"] {
        if let Some((_, manifest)) = chibi::Manifest::beside_current_exe() {
            let inv = chibi::Invocation::from_env(&args);
            let code = chibi::run_plugin(
                &manifest,
                &inv,
                &mut std::io::stdin().lock(),
                // Not locked for the whole call: the deadline watchdog may
                // need to print the reply instead (see src/watchdog.rs).
                &mut std::io::stdout(),
                &mut std::io::stderr(),
            );
            return ExitCode::from(code as u8);
        }
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            paths,
            format,
            deny_warnings,
        } => check(paths, format, deny_warnings),
        Command::Eval(args) => eval(args, false),
        Command::Explain(args) => eval(args, true),
        Command::Test {
            paths,
            coverage,
            min_coverage,
        } => test(paths, coverage, min_coverage),
        Command::Schema => {
            out!("{}", model::schema_text());
            ExitCode::SUCCESS
        }
        Command::Hooks { markdown } => {
            if markdown {
                out!("{}", catalogue::markdown());
            } else {
                for h in catalogue::HOOKS {
                    let effects: Vec<&str> = h.effects.iter().map(|e| e.key()).collect();
                    let effects = if effects.is_empty() {
                        "observe only".to_string()
                    } else {
                        effects.join(", ")
                    };
                    outln!("{:<22} {:<14} {}", h.name, h.class.as_str(), effects);
                }
            }
            ExitCode::SUCCESS
        }
        Command::Hook {
            agent,
            policy,
            context,
        } => {
            let code = coding_agent::run(
                agent.harness(),
                &policy,
                &context,
                &mut std::io::stdin().lock(),
                &mut std::io::stdout(),
                &mut std::io::stderr(),
            );
            ExitCode::from(code as u8)
        }
        Command::Serve {
            harness: ServeTarget::Picoclaw { policy, context },
        } => {
            let code = picoclaw::serve(
                &policy,
                context.as_deref(),
                &mut std::io::stdin().lock(),
                &mut std::io::stdout().lock(),
            );
            ExitCode::from(code as u8)
        }
        Command::Packs { show, markdown } => {
            let name = show.map(|PacksShow::Show { name }| name);
            match hook_policy::packs::listing::run(name.as_deref(), markdown) {
                Ok(text) => out!("{text}"),
                Err(e) => {
                    errln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
            ExitCode::SUCCESS
        }
        Command::Adapters { markdown } => {
            if markdown {
                out!("{}", tool_call::markdown());
            } else {
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
            }
            ExitCode::SUCCESS
        }
        Command::Install {
            harness: InstallTarget::Picoclaw { policy },
        } => match install_paths(&policy) {
            Ok((exe, policy)) => {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&picoclaw::config_snippet(&exe, &policy))
                        .unwrap_or_default()
                );
                errln!("Add this under PicoClaw's configuration; it intercepts before_llm, before_tool and approve_tool.");
                ExitCode::SUCCESS
            }
            Err(e) => {
                errln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Install {
            harness:
                target @ (InstallTarget::ClaudeCode(_)
                | InstallTarget::Gemini(_)
                | InstallTarget::Codex(_)),
        } => {
            let (harness, args) = match target {
                InstallTarget::ClaudeCode(a) => (Harness::ClaudeCode, a),
                InstallTarget::Gemini(a) => (Harness::Gemini, a),
                InstallTarget::Codex(a) => (Harness::Codex, a),
                _ => unreachable!(),
            };
            let (exe, policy) = match install_paths(&args.policy) {
                Ok(v) => v,
                Err(e) => {
                    errln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let entry = coding_agent::settings_entry(harness, &exe, &policy);
            match args.settings {
                None => {
                    outln!(
                        "{}",
                        serde_json::to_string_pretty(&entry).unwrap_or_default()
                    );
                    ExitCode::SUCCESS
                }
                Some(settings) => match coding_agent::merge_settings(harness, &settings, &entry) {
                    Ok(msg) => {
                        outln!("{msg}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        errln!("error: {e}");
                        ExitCode::from(2)
                    }
                },
            }
        }
        Command::Install {
            harness: InstallTarget::Chibi { home, policy },
        } => {
            let home = home
                .or_else(|| std::env::var_os("CHIBI_HOME").map(PathBuf::from))
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".chibi")));
            let Some(home) = home else {
                errln!("error: no chibi home: pass --home DIR");
                return ExitCode::from(2);
            };
            match chibi::install(&home, &policy) {
                Ok(msg) => {
                    outln!("{msg}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    errln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// The absolute paths an installed hook runs with; refuses a policy that
/// does not load (the agent would deny every guarded call).
fn install_paths(policy: &[PathBuf]) -> Result<(PathBuf, Vec<PathBuf>), String> {
    let mut absolute = Vec::new();
    for p in policy {
        absolute.push(
            std::fs::canonicalize(p)
                .map_err(|e| format!("cannot find policy {}: {e}", p.display()))?,
        );
    }
    if let hook_policy::engine::Prepared::Broken { message, .. } =
        hook_policy::engine::prepare(&absolute, None)
    {
        return Err(format!(
            "the policy does not load, fix it first (`policy check`): {message}"
        ));
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the policy binary: {e}"))?;
    Ok((exe, absolute))
}

fn check(paths: Vec<PathBuf>, format: Format, deny_warnings: bool) -> ExitCode {
    if !cfg!(feature = "reference-parser") {
        // A lint without the type checks would pass what the real one fails.
        errln!(
            "error: this is the plugin build (`cargo plugin-build`), made without the \
             reference CEL parser that `policy check` needs\n  help: run `policy check` from \
             a default build: `cargo run --release -- check`"
        );
        return ExitCode::from(2);
    }
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let (set, mut diags) = load::load(&paths);
    let could_not_run = diags
        .iter()
        .any(|d| d.code.starts_with("io::") && d.file.is_none());
    if !could_not_run {
        let (policy, more) = compile(&set, None);
        diags.extend(more);
        diags.extend(hook_policy::check::lint::lint(&policy));
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
    match format {
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
        ExitCode::from(2)
    } else if errors > 0 || (deny_warnings && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn test(paths: Vec<PathBuf>, show_coverage: bool, min_coverage: Option<f64>) -> ExitCode {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let files = match hook_policy::testing::discover(&paths) {
        Ok(files) => files,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
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
        return ExitCode::from(2);
    }
    let report = hook_policy::testing::run(&files);
    let mut current: Option<&std::path::Path> = None;
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
    if show_coverage || min_coverage.is_some() {
        outln!(
            "\ncoverage: {pct:.1}% of {} rule(s) matched by some case",
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
    let ok = failed.is_empty() && report.errors.is_empty();
    outln!(
        "\ntest result: {}. {} passed; {} failed",
        if ok { "ok" } else { "FAILED" },
        report.passed(),
        report.failed()
    );
    if !report.errors.is_empty() && report.cases.is_empty() {
        return ExitCode::from(2);
    }
    if let Some(min) = min_coverage {
        if pct + 1e-9 < min {
            outln!("coverage {pct:.1}% is below the required {min}%");
            return ExitCode::from(1);
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn read_payload(source: &str) -> Result<Vec<u8>, String> {
    if source == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(source).map_err(|e| format!("cannot read {source}: {e}"))
    }
}

fn eval(args: EvalArgs, explain_only: bool) -> ExitCode {
    let bytes = match read_payload(&args.payload) {
        Ok(b) => b,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Accept captured fixtures, {"hook": ..., "payload": {...}}, as well as bare payloads.
    let parsed = engine::parse_payload(&bytes);
    let (envelope_hook, payload) = match parsed {
        Ok(v) => match (v.get("hook").and_then(|h| h.as_str()), v.get("payload")) {
            (Some(h), Some(p)) if v.as_object().is_some_and(|o| o.len() == 2) && p.is_object() => {
                (Some(h.to_string()), Ok(p.clone()))
            }
            _ => (None, Ok(v)),
        },
        Err(e) => (None, Err(e)),
    };
    let Some(hook_name) = args.hook.or(envelope_hook) else {
        errln!("error: no hook point: pass --hook NAME (`policy hooks` lists them)");
        return ExitCode::from(2);
    };
    let Some(hook) = catalogue::hook(&hook_name) else {
        let hint = hook_policy::diagnostic::did_you_mean(&hook_name, catalogue::hook_names());
        errln!(
            "error: unknown hook point `{hook_name}`{}",
            hint.map(|h| format!("; did you mean `{h}`?"))
                .unwrap_or_default()
        );
        return ExitCode::from(2);
    };
    let project_root = args
        .project_root
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_else(|| "/".into());
    let home = std::env::var("HOME").ok();
    let ctx = DecideContext {
        harness: chibi::HARNESS,
        project_root: &project_root,
        home: home.as_deref(),
    };

    let explain_payload = payload.as_ref().ok().cloned();
    let (reply, decision, failed) = match engine::prepare(&args.policy, Some(hook.name)) {
        Prepared::Broken {
            message,
            diagnostics,
        } => {
            err!("{}", render::human(&diagnostics, false));
            let outcome = Outcome::Failed(format!("the policy does not load: {message}"));
            (chibi::reply(hook, &outcome, None, None), None, true)
        }
        Prepared::Ready(policy) => match payload {
            Err(e) => (
                chibi::reply(hook, &Outcome::Failed(e), policy.on_error, None),
                None,
                true,
            ),
            Ok(payload) => {
                let outcome = engine::run(&policy, hook.name, &payload, ctx);
                let reply = chibi::reply(hook, &outcome, policy.on_error, Some(&payload));
                let decision = match outcome {
                    Outcome::Decided(d) => Some(d),
                    Outcome::Failed(_) => None,
                };
                (reply, decision, false)
            }
        },
    };
    let explanation = explain(
        hook.name,
        decision.as_ref(),
        &reply,
        explain_payload.as_ref(),
        ctx,
    );
    if explain_only {
        out!("{explanation}");
    } else {
        if args.explain {
            err!("{explanation}");
        }
        for line in &reply.stderr {
            errln!("{line}");
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", reply.json);
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn explain(
    hook: &str,
    decision: Option<&Decision>,
    reply: &chibi::Reply,
    payload: Option<&serde_json::Value>,
    ctx: DecideContext<'_>,
) -> String {
    let mut out = String::new();
    match decision {
        None => out.push_str(&format!("{hook}: the policy could not decide\n")),
        Some(d) => {
            out.push_str(&format!(
                "{hook}: {} rule(s) for this hook, {} candidate(s) after indexing\n",
                d.rules_for_hook, d.candidates
            ));
            for t in &d.trace {
                let mark = match t.outcome {
                    "matched" => "✓",
                    "not matched" => "✗",
                    "logged" => "○",
                    _ => "!",
                };
                out.push_str(&format!(
                    "  {mark} {} ({}) {}\n",
                    t.rule, t.origin, t.outcome
                ));
                if let Some(c) = &t.condition {
                    out.push_str(&format!("      when: {}\n", c.trim()));
                    if let Some(payload) = payload {
                        let resolver = hook_policy::expr::PayloadResolver {
                            payload,
                            hook,
                            harness: ctx.harness,
                            project_root: ctx.project_root,
                        };
                        for (part, value) in hook_policy::expr::explain_parts(c, &resolver) {
                            out.push_str(&format!("        {part}  ⇒ {value}\n"));
                        }
                    }
                }
                if let Some(detail) = &t.detail {
                    let label = match t.outcome {
                        "matched" | "logged" => "because",
                        "not matched" => "why not",
                        _ => "error",
                    };
                    out.push_str(&format!("      {label}: {detail}\n"));
                }
            }
            if let Some(deny) = &d.deny {
                out.push_str(&format!("  deny: `{}` gives the reason", deny.rule));
                if !d.also_denied.is_empty() {
                    out.push_str(&format!("; also denied by: {}", d.also_denied.join(", ")));
                }
                out.push('\n');
            }
            if let Some(a) = &d.ask {
                if d.deny.is_none() {
                    out.push_str(&format!("  ask: `{}` gives the reason\n", a.rule));
                } else {
                    out.push_str(&format!(
                        "  ask from `{}` is overridden by the deny\n",
                        a.rule
                    ));
                }
            }
            if let Some(b) = &d.block {
                out.push_str(&format!("  block: `{}` gives the message\n", b.rule));
            }
            for l in &d.logged {
                out.push_str(&format!("  log only: `{}` would {}\n", l.rule, l.would));
            }
            for (k, w) in &d.arguments {
                out.push_str(&format!("  arguments.{k}: set by `{}`\n", w.rule));
            }
            if let Some(inc) = &d.include {
                out.push_str(&format!("  include (intersection): {}\n", inc.join(", ")));
            }
            if !d.exclude.is_empty() {
                out.push_str(&format!("  exclude (union): {}\n", d.exclude.join(", ")));
            }
            if let Some(delta) = d.fuel_delta {
                out.push_str(&format!("  fuel_delta (sum): {delta}\n"));
            }
            if let Some(f) = &d.fuel {
                out.push_str(&format!("  fuel: {} from `{}`\n", f.value, f.rule));
            }
            if let Some(f) = &d.fallback {
                out.push_str(&format!(
                    "  fallback: {} from `{}`\n",
                    f.value.as_str(),
                    f.rule
                ));
            }
            for (k, w) in &d.request {
                out.push_str(&format!(
                    "  request_body.{k}: {} from `{}`\n",
                    w.value, w.rule
                ));
            }
        }
    }
    out.push_str(&format!("  reply: {}\n", reply.json));
    out
}
