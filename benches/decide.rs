//! Warm decisions: one compiled policy, one captured chibi payload, many
//! decisions. This is the cost a long-running adapter (PicoClaw's serve
//! mode) pays per request, and the part of a plugin call that grows with
//! the size of the policy.
//!
//! Policies of 10 to 10,000 rules come from `examples/gen_policy.rs` (a
//! realistic mix of CEL conditions and shell, path and URL matchers); the
//! payloads are the captures in `../shared/fixtures/chibi/`. The shipped
//! policies are measured too, on payloads they act on.
//!
//! Run: `cargo bench --bench decide` (add `-- shell` to filter; `-- packs`
//! for the cost of loading the shipped packs on a cache miss).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hook_policy::compile::{compile, CompiledPolicy};
use hook_policy::diagnostic::SourceFile;
use hook_policy::eval::{decide, DecideContext};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "../examples/gen_policy.rs"]
#[allow(dead_code)]
mod gen_policy;

const SIZES: [usize; 6] = [10, 100, 300, 1_000, 3_000, 10_000];

/// (benchmark name, hook, fixture file): one per hook class.
const CASES: [(&str, &str, &str); 6] = [
    ("cel_tool_name", "pre_tool", "pre_tool"),
    ("tool_filter", "pre_api_tools", "pre_api_tools"),
    ("shell", "pre_shell_exec", "pre_shell_exec"),
    ("path", "pre_file_read", "pre_file_read"),
    ("url", "pre_fetch_url", "pre_fetch_url"),
    ("request_merge", "pre_api_request", "pre_api_request"),
];

const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/home/user/demo",
    home: Some("/home/user"),
};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> Json {
    let path = repo().join(format!("../shared/fixtures/chibi/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the benchmarks read chibi's captured payloads)",
            path.display()
        )
    });
    let mut capture: Json = serde_json::from_str(&text).expect("fixture is JSON");
    capture["payload"].take()
}

/// Compiles `text` for one hook, as a process serving that hook does, and
/// the same policy through its prepared form (as the plugin cache stores
/// it; rules compiled on first use).
fn compiled(name: &str, text: String, hook: &'static str) -> (CompiledPolicy, CompiledPolicy) {
    let source = Arc::new(SourceFile::new(PathBuf::from(name), text));
    let (set, diags) = hook_policy::load::load_sources(vec![source]);
    assert!(!diags.iter().any(|d| d.is_error()), "{name} loads");
    let (policy, diags) = compile(&set, Some(hook));
    assert!(!diags.iter().any(|d| d.is_error()), "{name} compiles");
    let entry = hook_policy::cache::encode("bench", hook, &set, &policy);
    // An entry just written is whole: no fallback to the YAML is needed.
    let prepared = hook_policy::cache::decode(entry, "bench", hook, Box::new(|| None))
        .expect("entry reads back");
    (policy, prepared)
}

/// Whether a group's setup is worth doing: not when the filter on the
/// command line names another group (`-- recommended/` skips compiling the
/// generated policies, which under callgrind costs minutes).
fn wanted(group: &str) -> bool {
    const GROUPS: [&str; 4] = ["generated", "shipped", "packs", "recommended"];
    // The filter is the first argument that is neither an option nor a number
    // (the value of `--profile-time 2`, say).
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-') && a.parse::<f64>().is_err());
    match filter {
        Some(filter) => !GROUPS.iter().any(|g| filter.starts_with(g)) || filter.starts_with(group),
        None => true,
    }
}

fn generated(c: &mut Criterion) {
    if !wanted("generated") {
        return;
    }
    for (case, hook, fixture_name) in CASES {
        let payload = fixture(fixture_name);
        let mut group = c.benchmark_group(format!("generated/{case}"));
        for n in SIZES {
            let (policy, prepared) = compiled("generated.yaml", gen_policy::generate(n), hook);
            // The generated rules never match these payloads: a decision is
            // the full walk over whatever the index leaves.
            assert!(decide(&policy, hook, &payload, CTX).is_empty());
            assert!(decide(&prepared, hook, &payload, CTX).is_empty());
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    // Each decision parses its command line, as a new one would.
                    hook_policy::matchers::forget_last_shell();
                    decide(&policy, hook, &payload, CTX)
                })
            });
            // From the prepared form, once its candidates are compiled.
            group.bench_with_input(BenchmarkId::new("prepared", n), &n, |b, _| {
                b.iter(|| {
                    hook_policy::matchers::forget_last_shell();
                    decide(&prepared, hook, &payload, CTX)
                })
            });
        }
        group.finish();
    }
}

fn shipped(c: &mut Criterion) {
    if !wanted("shipped") {
        return;
    }
    let dir = repo().join("policies");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("policies/")
        .map(|e| e.expect("entry").path())
        .filter(|p| is_policy(p))
        .collect();
    files.sort();
    let sources: Vec<Arc<SourceFile>> = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("policy file");
            Arc::new(SourceFile::new(p.clone(), text))
        })
        .collect();
    let (set, diags) = hook_policy::load::load_sources(sources);
    assert!(!diags.iter().any(|d| d.is_error()), "shipped policies load");
    let mut group = c.benchmark_group("shipped");
    for (name, hook, fixture_name) in [
        ("deny_rm_rf", "pre_shell_exec", "pre_shell_exec__deny_rm_rf"),
        ("file_read_outside", "pre_file_read", "pre_file_read"),
        ("fetch_loopback", "pre_fetch_url", "pre_fetch_url"),
        ("tool_filter", "pre_api_tools", "pre_api_tools"),
    ] {
        let (policy, _) = compile(&set, Some(hook));
        let payload = fixture(fixture_name);
        group.bench_function(name, |b| {
            b.iter(|| {
                hook_policy::matchers::forget_last_shell();
                decide(&policy, hook, &payload, CTX)
            })
        });
    }
    group.finish();
}

/// What a plugin call pays for packs when its cache misses (the first call
/// after an edit, or no writable cache): reading the embedded packs'
/// headers, then loading a policy that enables the recommended ones and
/// compiling its `pre_shell_exec` rules. A cache hit pays none of it.
fn packs(c: &mut Criterion) {
    if !wanted("packs") {
        return;
    }
    let mut group = c.benchmark_group("packs");
    group.bench_function("read_registry", |b| {
        b.iter(hook_policy::packs::read_registry)
    });
    let enable = "version: 1\npacks:\n  enable: [recommended]\n";
    group.bench_function("load_and_compile_recommended", |b| {
        b.iter(|| {
            let source = Arc::new(SourceFile::new("p.yaml".into(), enable.to_string()));
            let (set, diags) =
                hook_policy::load::load_sources_with(vec![source], hook_policy::load::Mode::Run);
            assert!(!diags.iter().any(|d| d.is_error()));
            compile(&set, Some("pre_shell_exec"))
        })
    });
    group.finish();
}

fn is_policy(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".yaml") && !name.ends_with(".test.yaml")
}

/// Typical agent shell lines, as a coding agent runs them all day.
const SHELL_LINES: [(&str, &str); 6] = [
    ("cargo_test_tail", "cargo test --all 2>&1 | tail -20"),
    ("git_status_diff", "git status && git diff"),
    ("npm_run_build", "npm run build"),
    ("grep_head", "grep -rn 'TODO' src | head -20"),
    ("rm_rf_home", "rm -rf ~"),
    ("cd_cargo_test", "cd crates/core && cargo test --all"),
];

/// Warm decisions with the policies as shipped (`policies/`, whose
/// `packs.yaml` enables the recommended packs): what PicoClaw's serve mode
/// pays per request, and what a plugin call pays once its rules are loaded.
/// Typical shell lines at `pre_shell_exec`, and the everyday non-shell
/// questions (a file read inside the project, a fetch of public docs, a tool
/// call that is not a shell) besides the captured ones.
fn recommended(c: &mut Criterion) {
    if !wanted("recommended") {
        return;
    }
    let (set, diags) =
        hook_policy::load::load_with(&[repo().join("policies")], hook_policy::load::Mode::Run);
    assert!(!diags.iter().any(|d| d.is_error()), "policies/ loads");
    let mut group = c.benchmark_group("recommended");
    let (shell, _) = compile(&set, Some("pre_shell_exec"));
    for (name, line) in SHELL_LINES {
        let payload = serde_json::json!({"command": line, "tool_name": "shell_exec"});
        let denied = decide(&shell, "pre_shell_exec", &payload, CTX)
            .deny
            .is_some();
        assert_eq!(denied, name == "rm_rf_home", "{line}");
        group.bench_function(format!("pre_shell_exec/{name}"), |b| {
            b.iter(|| {
                hook_policy::matchers::forget_last_shell();
                decide(&shell, "pre_shell_exec", &payload, CTX)
            })
        });
    }
    let others = [
        (
            "pre_file_read",
            "src_main",
            serde_json::json!({"path": "/home/user/demo/src/main.rs", "tool_name": "file_head"}),
        ),
        ("pre_file_read", "outside", fixture("pre_file_read")),
        (
            "pre_fetch_url",
            "docs_rs",
            serde_json::json!({"url": "https://docs.rs/serde/latest/serde/", "tool_name": "fetch_url"}),
        ),
        ("pre_fetch_url", "loopback", fixture("pre_fetch_url")),
        (
            "pre_tool",
            "file_read",
            serde_json::json!({"tool_name": "file_head", "arguments": {"path": "src/main.rs"}}),
        ),
        ("pre_tool", "shell", fixture("pre_tool")),
    ];
    for (hook, name, payload) in others {
        let (policy, _) = compile(&set, Some(hook));
        group.bench_function(format!("{hook}/{name}"), |b| {
            b.iter(|| {
                hook_policy::matchers::forget_last_shell();
                decide(&policy, hook, &payload, CTX)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generated, shipped, packs, recommended);
criterion_main!(benches);
