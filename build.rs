//! Embeds the guardrail packs: every `packs/NAME.yaml` (and its
//! `NAME.test.yaml`, shown by `policy packs show`) becomes part of the
//! binary, so a pack file added to the directory ships without a list to
//! keep in step. `src/packs/mod.rs` includes the generated table.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("packs");
    // A directory: cargo reruns this script when any file in it changes.
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    n.ends_with(".yaml") && !n.ends_with(".test.yaml") && !n.starts_with('.')
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("&[\n");
    for name in &names {
        let stem = name.trim_end_matches(".yaml");
        let tests = dir.join(format!("{stem}.test.yaml"));
        let tests = if tests.is_file() {
            format!("Some(include_str!({:?}))", tests.display().to_string())
        } else {
            "None".to_string()
        };
        let _ = writeln!(
            out,
            "    EmbeddedPack {{ file: {:?}, text: include_str!({:?}), tests: {tests} }},",
            format!("packs/{name}"),
            dir.join(name).display().to_string(),
        );
    }
    out.push_str("]\n");
    let target = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("packs.rs");
    std::fs::write(target, out).expect("write the pack table");
}
