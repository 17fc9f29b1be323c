//! Arbitrary bytes as a policy file: loading, checking and compiling must
//! report problems, never panic or hang.
#![no_main]
use hook_policy::diagnostic::SourceFile;
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = Arc::new(SourceFile::new("fuzz.yaml".into(), text.to_string()));
    let (set, _) = hook_policy::load::load_sources(vec![source]);
    let (_, diags) = hook_policy::compile::compile(&set, None);
    for d in &diags {
        let _ = hook_policy::render::short(d);
        let _ = hook_policy::render::to_json(d);
    }
    let _ = hook_policy::render::human(&diags, false);
});
