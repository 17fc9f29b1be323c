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

use hook_policy::compile::compile;
use hook_policy::eval::{decide, DecideContext};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let line = args.next().expect("usage: warm_decide LINE [N]");
    let n: usize = args.next().map_or(1, |n| n.parse().expect("N is a count"));
    let policies = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies");
    let (set, diags) = hook_policy::load::load_with(&[policies], hook_policy::load::Mode::Run);
    assert!(!diags.iter().any(|d| d.is_error()), "policies/ loads");
    let (policy, _) = compile(&set, Some("pre_shell_exec"));
    let payload = serde_json::json!({"command": line, "tool_name": "shell_exec"});
    let context = DecideContext {
        harness: "chibi",
        project_root: "/home/user/demo",
        home: Some("/home/user"),
    };
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
