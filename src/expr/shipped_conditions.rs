//! The shipped conditions and the packs' test payloads, for the tests that
//! hold a rewrite or an evaluator to cel's answers on real rules.

use serde_json::Value as Json;

pub(crate) fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every rule condition of the packs and policies/, with its hooks.
pub(crate) fn shipped_conditions() -> Vec<(String, Vec<String>, String)> {
    let (set, diags) = crate::load::load(&[repo().join("packs"), repo().join("policies")]);
    assert!(diags.is_empty(), "{diags:?}");
    set.rules
        .iter()
        .filter_map(|r| {
            let when = r.rule.when.clone()?;
            Some((r.rule.id.clone(), r.rule.hook.names().to_vec(), when))
        })
        .collect()
}

/// Every chibi payload of the packs' test files, by hook.
pub(crate) fn test_payloads() -> Vec<(String, Json)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(repo().join("packs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.yaml"))
        .collect();
    files.sort();
    for path in files {
        let loaded =
            crate::testing::file::load(&path).unwrap_or_else(|e| panic!("{path:?}: {e:?}"));
        let file = loaded
            .file
            .unwrap_or_else(|| panic!("{path:?}: {:?}", loaded.problems));
        for case in file.tests {
            if let (Some(hook), Some(payload)) = (case.hook, case.payload) {
                out.push((hook, payload));
            }
        }
    }
    out
}
