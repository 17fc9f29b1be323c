//! Arbitrary command lines: shell analysis must never panic, hang or blow the
//! stack, and the pipeline shortcut (src/shell/view.rs) must never change what
//! it finds: a line analyses alike on both routes, or one finds it broken
//! and neither vouches for it (both opaque).
#![no_main]
use hook_policy::shell::{self, OpaqueKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let analysis = shell::analyze(line);
    for c in &analysis.commands {
        let _ = c.has_flag("-r|-R|--recursive");
    }
    let exact = shell::analyze_exact(line);
    let broken = |a: &shell::ShellAnalysis| a.has_opaque(OpaqueKind::ParseError);
    if broken(&analysis) || broken(&exact) {
        // The two parses may stumble differently over a broken line; both
        // must still refuse to vouch for it.
        assert!(analysis.is_opaque() && exact.is_opaque(), "{line:?}");
    } else {
        assert_eq!(analysis, exact, "{line:?}");
    }
});
