//! Arbitrary strings as URLs and paths: classification and normalisation
//! must never panic, and normalising must be idempotent.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let info = hook_policy::url_class::classify(text);
    let _ = hook_policy::url_class::host_matches(&info.host, ".example.com");
    let _ = hook_policy::url_class::registrable_domain(&info.host);
    let once = hook_policy::paths::normalize(text, "/home/user/project", Some("/home/user"));
    let twice = hook_policy::paths::normalize(&once, "/home/user/project", Some("/home/user"));
    assert_eq!(once, twice, "normalize is idempotent");
    let _ = hook_policy::paths::inspect(text, "/home/user/project", Some("/home/user"));
});
