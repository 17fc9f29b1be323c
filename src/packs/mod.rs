//! Guardrail packs: named, versioned, tested sets of rules shipped inside
//! the binary, written in the policy language itself.
//!
//! Every `packs/NAME.yaml` of the repository (with its `NAME.test.yaml`) is
//! embedded at build time by `build.rs`, so a pack in the directory is a
//! pack in the binary; a test compares the two. A pack is an ordinary
//! policy file with a `pack:` header. When a policy enables it (a `packs:`
//! block, see [`compose`]), its text goes through the same loader, schema
//! checker and compiler as the user's files, and its diagnostics name
//! `packs/NAME.yaml`.

pub mod compose;
pub mod exception;
pub mod listing;

use crate::load::tree::{self, Node, ParseLimits, Value};
use crate::model::PackHeader;

/// A pack file as compiled into the binary.
#[derive(Debug)]
pub struct EmbeddedPack {
    /// `packs/NAME.yaml`: the name diagnostics and listings use.
    pub file: &'static str,
    pub text: &'static str,
    /// The pack's `NAME.test.yaml`, when it has one.
    pub tests: Option<&'static str>,
}

/// Every `packs/*.yaml` of the source tree, in file name order (generated
/// by build.rs).
pub static EMBEDDED: &[EmbeddedPack] = include!(concat!(env!("OUT_DIR"), "/packs.rs"));

/// What is known of a shipped pack without loading it into a policy set.
#[derive(Debug)]
pub struct ShippedPack {
    pub embedded: &'static EmbeddedPack,
    pub header: PackHeader,
    pub rule_ids: Vec<String>,
    /// The parsed text, handed to the loader when a policy enables the pack.
    pub tree: Node,
}

/// The shipped packs whose header reads, parsed once per process. A pack
/// whose header does not read is left out, so enabling it is an "unknown
/// pack" error (the policy fails closed); a test keeps every shipped pack
/// loading cleanly.
pub fn shipped() -> &'static [ShippedPack] {
    static PACKS: std::sync::OnceLock<Vec<ShippedPack>> = std::sync::OnceLock::new();
    PACKS.get_or_init(read_registry)
}

/// Parses every embedded pack (what [`shipped`] does once per process;
/// public for the benchmarks, which measure that cold cost).
pub fn read_registry() -> Vec<ShippedPack> {
    EMBEDDED
        .iter()
        .filter_map(|embedded| {
            let tree = tree::parse(embedded.text, ParseLimits::default()).ok()?;
            let header: PackHeader = serde_json::from_value(tree.get("pack")?.to_json()).ok()?;
            let rule_ids = rule_nodes(&tree)
                .filter_map(|r| r.get("id").and_then(Node::as_str).map(str::to_string))
                .collect();
            Some(ShippedPack {
                embedded,
                header,
                rule_ids,
                tree,
            })
        })
        .collect()
}

/// A shipped pack by name.
pub fn find(name: &str) -> Option<&'static ShippedPack> {
    shipped().iter().find(|p| p.header.name == name)
}

fn rule_nodes(tree: &Node) -> impl Iterator<Item = &Node> {
    let items: &[Node] = match tree.get("rules").map(|r| &r.value) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    };
    items.iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::SourceFile;
    use std::path::PathBuf;
    use std::sync::Arc;

    /// A pack file in the directory that the binary does not carry would be
    /// tested in CI and missing for users.
    #[test]
    fn every_pack_file_is_shipped() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("packs");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml") && !n.ends_with(".test.yaml"))
            .map(|n| format!("packs/{n}"))
            .collect();
        on_disk.sort();
        let embedded: Vec<&str> = EMBEDDED.iter().map(|p| p.file).collect();
        assert_eq!(embedded, on_disk);
        for p in EMBEDDED {
            let text = std::fs::read_to_string(dir.parent().unwrap().join(p.file)).unwrap();
            assert_eq!(p.text, text, "{} differs from the file", p.file);
        }
        assert_eq!(
            shipped().len(),
            EMBEDDED.len(),
            "a pack header does not read"
        );
        assert!(find("core").is_some_and(|p| p.header.recommended));
    }

    /// Each shipped pack passes the full check on its own, warnings included,
    /// and its header names agree with its file names.
    #[test]
    fn every_shipped_pack_checks_clean() {
        for pack in shipped() {
            let source = Arc::new(SourceFile::new(
                PathBuf::from(pack.embedded.file),
                pack.embedded.text.to_string(),
            ));
            let (set, mut diags) = crate::load::load_sources(vec![source]);
            let (policy, more) = crate::compile::compile(&set, None);
            diags.extend(more);
            diags.extend(crate::check::lint::lint(&policy));
            let shown: Vec<String> = diags.iter().map(crate::render::short).collect();
            assert!(shown.is_empty(), "{}: {shown:#?}", pack.embedded.file);
            assert_eq!(
                pack.embedded.file,
                format!("packs/{}.yaml", pack.header.name),
                "a pack's file is named after the pack"
            );
            assert_eq!(set.rules.len(), pack.rule_ids.len());
        }
    }
}
