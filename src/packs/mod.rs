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
    /// The whole text parsed, on first use: only enabled packs, and the
    /// packs a `disable`, `outcome` or `except` entry may name, need it.
    parsed: std::sync::OnceLock<Option<Node>>,
}

impl ShippedPack {
    /// The pack's parsed text; `None` if it does not parse (the loader
    /// then reports the YAML error in the pack file).
    pub fn tree(&self) -> Option<&Node> {
        self.parsed
            .get_or_init(|| tree::parse(self.embedded.text, ParseLimits::default()).ok())
            .as_ref()
    }

    /// The ids of the pack's rules, as written.
    pub fn rule_ids(&self) -> Vec<String> {
        self.tree()
            .map(|t| {
                rule_nodes(t)
                    .filter_map(|r| r.get("id").and_then(Node::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The shipped packs whose header reads, read once per process. A pack
/// whose header does not read is left out, so enabling it is an "unknown
/// pack" error (the policy fails closed); a test keeps every shipped pack
/// loading cleanly.
pub fn shipped() -> &'static [ShippedPack] {
    static PACKS: std::sync::OnceLock<Vec<ShippedPack>> = std::sync::OnceLock::new();
    PACKS.get_or_init(read_registry)
}

/// Reads every embedded pack's header (what [`shipped`] does once per
/// process; public for the benchmarks, which measure that cold cost).
///
/// A plugin call whose cache misses pays for this, so only the `pack:`
/// entry is parsed, cut from the text (see [`header_text`]); the whole file
/// is parsed only when that fails. A test checks both readings agree.
pub fn read_registry() -> Vec<ShippedPack> {
    EMBEDDED
        .iter()
        .filter_map(|embedded| {
            let header = header_text(embedded.text)
                .and_then(|t| header_from(&tree::parse(t, ParseLimits::default()).ok()?))
                .or_else(|| {
                    header_from(&tree::parse(embedded.text, ParseLimits::default()).ok()?)
                })?;
            Some(ShippedPack {
                embedded,
                header,
                parsed: std::sync::OnceLock::new(),
            })
        })
        .collect()
}

fn header_from(tree: &Node) -> Option<PackHeader> {
    serde_json::from_value(tree.get("pack")?.to_json()).ok()
}

/// The top-level `pack:` entry of a pack file: its line and the lines
/// after it that are indented, blank or comments. Block and one-line flow
/// styles both come out whole.
fn header_text(text: &str) -> Option<&str> {
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let top_level = !line.starts_with([' ', '\t', '#', '\n', '\r']);
        match start {
            None if line.starts_with("pack:") => start = Some(offset),
            Some(s) if top_level => return Some(&text[s..offset]),
            _ => {}
        }
        offset += line.len();
    }
    start.map(|s| &text[s..])
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

    #[test]
    fn the_header_is_cut_whole_from_block_and_flow_styles() {
        let block =
            "# c\nversion: 1\npack:\n  name: a\n\n  # note\n  recommended: true\nrules: []\n";
        assert_eq!(
            header_text(block),
            Some("pack:\n  name: a\n\n  # note\n  recommended: true\n")
        );
        let flow = "version: 1\npack: { name: b, version: 2, description: \"x, y: z\" }\nrules:\n  - id: b.c\n";
        let h =
            header_from(&tree::parse(header_text(flow).unwrap(), ParseLimits::default()).unwrap())
                .unwrap();
        assert_eq!(
            (h.name.as_str(), h.version, h.description.as_str()),
            ("b", 2, "x, y: z")
        );
        assert_eq!(header_text("version: 1\nrules: []\n"), None);
        assert_eq!(
            header_text("pack:\n  name: last\n"),
            Some("pack:\n  name: last\n")
        );
    }

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
            assert_eq!(set.rules.len(), pack.rule_ids().len());
        }
    }
}
