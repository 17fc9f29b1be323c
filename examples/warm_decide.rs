//! Warm decisions on one shell line, for counting instructions per decision
//! with callgrind (criterion's loops are too long to run under valgrind):
//! the shipped `policies/` (recommended packs) are loaded and compiled for
//! `pre_shell_exec` once, then the line is decided N times, each as a new
//! line (its analysis forgotten), as `cargo bench --bench decide --
//! recommended/` does. Instructions per decision are the difference between
//! two runs over the difference in N:
//!
//! ```sh
//! cargo build --release --example warm_decide
//! for n in 1 101; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/warm_decide "cargo test --all 2>&1 | tail -20" $n; done
//! ```
//!
//! `WARM_DECIDE_EXPLAIN=1` prints each candidate rule of the line and its
//! outcome once; `WARM_DECIDE_POLICY=DIR` loads `DIR` instead of
//! `policies/` (a copy with one rule disabled gives that rule's share).

use hook_policy::compile::compile;
use hook_policy::eval::{decide, DecideContext};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let line = args.next().expect("usage: warm_decide LINE [N]");
    let n: usize = args.next().map_or(1, |n| n.parse().expect("N is a count"));
    let policies = std::env::var_os("WARM_DECIDE_POLICY").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies"),
        PathBuf::from,
    );
    let (set, diags) = hook_policy::load::load_with(&[policies], hook_policy::load::Mode::Run);
    assert!(!diags.iter().any(|d| d.is_error()), "policies/ loads");
    let (policy, _) = compile(&set, Some("pre_shell_exec"));
    let payload = serde_json::json!({"command": line, "tool_name": "shell_exec"});
    let context = DecideContext {
        harness: "chibi",
        project_root: "/home/user/demo",
        home: Some("/home/user"),
    };
    if std::env::var_os("WARM_DECIDE_EXPLAIN").is_some() {
        hook_policy::matchers::forget_last_shell();
        let decision = decide(&policy, "pre_shell_exec", &payload, context);
        println!(
            "{} of {} rules are candidates",
            decision.candidates, decision.rules_for_hook
        );
        for t in &decision.trace {
            println!("  {} {}", t.rule, t.outcome);
        }
    }
    let mut denied = 0;
    for _ in 0..n {
        hook_policy::matchers::forget_last_shell();
        denied += usize::from(
            decide(&policy, "pre_shell_exec", &payload, context)
                .deny
                .is_some(),
        );
    }
    println!("{n} decisions, {denied} denied");
}
