//! Arbitrary lines into `policy serve picoclaw`'s line handler, against the
//! shipped policies: every reply must be a JSON-RPC 2.0 response object
//! (a result or an error, with an id), whatever the line was.
#![no_main]
use hook_policy::adapters::picoclaw::{handle_line, LivePolicy, ServeContext};
use hook_policy::engine::{self, Prepared};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;

fn live() -> &'static LivePolicy {
    static LIVE: OnceLock<LivePolicy> = OnceLock::new();
    LIVE.get_or_init(|| {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../policies"));
        let prepared = engine::prepare(&[dir], None);
        assert!(
            matches!(prepared, Prepared::Ready(_)),
            "the shipped policies load"
        );
        LivePolicy::new(prepared)
    })
}

fn check(reply: Option<Value>) {
    let Some(reply) = reply else { return };
    let obj = reply.as_object().expect("a reply is a JSON object");
    assert_eq!(
        obj.get("jsonrpc"),
        Some(&Value::String("2.0".into())),
        "{reply}"
    );
    let id = obj.get("id").expect("a reply carries an id");
    assert!(id.is_null() || id.is_number() || id.is_string(), "{reply}");
    assert!(
        obj.contains_key("result") != obj.contains_key("error"),
        "a reply has a result or an error: {reply}"
    );
    // It must survive the trip through one output line.
    let text = reply.to_string();
    assert!(!text.contains('\n'), "{text}");
}

fuzz_target!(|data: &[u8]| {
    let live = live();
    for context_name in [None, Some("coding")] {
        let sc = ServeContext {
            project_root: "/home/user/project".into(),
            home: Some("/home/user".into()),
            context_name: context_name.map(String::from),
        };
        check(handle_line(live, data, &sc));
    }
});
