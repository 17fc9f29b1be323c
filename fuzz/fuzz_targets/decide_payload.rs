//! Arbitrary payloads against the shipped policies, at every hook with
//! effects: every one must get a reply chibi accepts (a JSON object).
#![no_main]
use hook_policy::adapters::chibi;
use hook_policy::catalogue;
use hook_policy::diagnostic::SourceFile;
use hook_policy::engine::{self, Outcome};
use hook_policy::eval::DecideContext;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

const POLICIES: &[(&str, &str)] = &[
    // Enables the recommended packs shipped in the binary.
    ("packs.yaml", include_str!("../../policies/packs.yaml")),
    ("files.yaml", include_str!("../../policies/files.yaml")),
    ("network.yaml", include_str!("../../policies/network.yaml")),
    ("tools.yaml", include_str!("../../policies/tools.yaml")),
    (
        "fuel.yaml",
        include_str!("../../examples/policies/fuel.yaml"),
    ),
    (
        "request.yaml",
        include_str!("../../examples/policies/request.yaml"),
    ),
    (
        "tool-gate.yaml",
        include_str!("../../policies/tool-gate.yaml"),
    ),
];

fn policy() -> &'static hook_policy::compile::CompiledPolicy {
    static POLICY: OnceLock<hook_policy::compile::CompiledPolicy> = OnceLock::new();
    POLICY.get_or_init(|| {
        let sources = POLICIES
            .iter()
            .map(|(name, text)| Arc::new(SourceFile::new(name.into(), text.to_string())))
            .collect();
        let (set, diags) = hook_policy::load::load_sources(sources);
        assert!(diags.iter().all(|d| !d.is_error()), "shipped policies load");
        let (policy, diags) = hook_policy::compile::compile(&set, None);
        assert!(
            diags.iter().all(|d| !d.is_error()),
            "shipped policies compile"
        );
        policy
    })
}

fuzz_target!(|data: &[u8]| {
    let policy = policy();
    let payload = engine::parse_payload(data);
    for hook in catalogue::HOOKS.iter().filter(|h| !h.effects.is_empty()) {
        let ctx = DecideContext {
            harness: "chibi",
            project_root: "/home/user/project",
            home: Some("/home/user"),
        };
        let (outcome, payload) = match &payload {
            Ok(p) => (engine::run(policy, hook.name, p, ctx), Some(p)),
            Err(e) => (Outcome::Failed(e.clone()), None),
        };
        let reply = chibi::reply(hook, &outcome, policy.on_error, payload);
        assert!(reply.json.is_object());
    }
});
