//! The stages depend only downwards: load → check → compile → eval, all
//! reading the catalogue; the adapters, the cache and the CLI sit on top.
//! A stage that names an upper module would bring back the circle
//! compile → check → adapters → cache → compile (harness knowledge is
//! catalogue data for that reason).

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn lower_stages_never_name_the_adapters_or_the_cache() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lower = [
        "catalogue",
        "catalogue.rs",
        "load",
        "check",
        "compile",
        "eval",
        "expr",
        "shell",
        "paths",
        "url_class",
        "matchers.rs",
        "model.rs",
    ];
    let mut files = Vec::new();
    for name in lower {
        let path = src.join(name);
        if path.is_dir() {
            sources(&path, &mut files);
        } else if path.exists() {
            files.push(path);
        }
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut offenders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains("crate::adapters") || line.contains("crate::cache") {
                offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "lower stages name upper modules:\n{}",
        offenders.join("\n")
    );
}
