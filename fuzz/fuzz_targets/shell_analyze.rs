//! Arbitrary command lines: shell analysis must never panic, hang or blow the stack.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let analysis = hook_policy::shell::analyze(line);
    for c in &analysis.commands {
        let _ = c.has_flag("-r|-R|--recursive");
    }
});
