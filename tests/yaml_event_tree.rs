//! The tree built straight from the YAML parser's events (`load::event_tree`)
//! must be exactly the tree serde-saphyr builds, spans included, whenever it
//! is built at all: every YAML file of the repository and the shared
//! fixtures, a generated 2,000-rule policy, and generated documents that mix
//! every scalar style, tricky plain scalars (`yes`, `0127`, `1e3`, `-rf`),
//! comments, flow and block collections, anchors, tags, duplicate keys, and
//! random damage. When the event walk gives up, serde-saphyr decides alone,
//! so the only property that matters is: built => identical.

use hook_policy::load::tree::{parse_from_events, parse_with_serde_saphyr, ParseLimits};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

#[path = "../examples/gen_policy.rs"]
#[allow(dead_code)]
mod gen_policy;

/// Whether the event walk built a tree, after checking it against serde-saphyr's.
fn same_tree(text: &str) -> bool {
    let limits = ParseLimits::default();
    let Some(direct) = parse_from_events(text, limits) else {
        return false;
    };
    match parse_with_serde_saphyr(text, limits) {
        Ok(reference) => assert_eq!(direct, reference, "different trees for:\n{text}"),
        Err(e) => panic!(
            "built a tree where serde-saphyr refuses ({}):\n{text}",
            e.message
        ),
    }
    true
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            yaml_files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            out.push(path);
        }
    }
}

#[test]
fn every_yaml_file_here_reads_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "policies",
        "packs",
        "examples",
        "tests",
        "docs",
        "../shared",
    ] {
        yaml_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {files:?}");
    let mut built = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        if same_tree(&text) {
            built.push(file);
        }
    }
    // The shipped policies and packs are what a hook call reads: they must
    // take the fast path, or this change bought nothing for them. Anchors
    // and aliases are serde-saphyr's to read (one pack shares a glob list).
    const USES_ANCHORS: &[&str] = &["file-secrets.yaml"];
    for dir in ["policies", "packs"] {
        let dir = root.join(dir);
        let theirs: Vec<_> = files.iter().filter(|f| f.starts_with(&dir)).collect();
        assert!(!theirs.is_empty());
        for file in theirs {
            let name = file.file_name().unwrap().to_string_lossy();
            if name.ends_with(".test.yaml") || USES_ANCHORS.contains(&name.as_ref()) {
                continue;
            }
            assert!(
                built.contains(&file),
                "{} fell back to serde-saphyr",
                file.display()
            );
        }
    }
}

#[test]
fn a_generated_policy_reads_the_same() {
    assert!(same_tree(&gen_policy::generate(2000)));
}

#[test]
fn what_the_walk_leaves_to_serde_saphyr() {
    let limits = ParseLimits::default();
    for text in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: 1\na: 2\n",
        "base: {x: 1}\nother:\n  <<: {y: 2}\n",
        "a: 0x1f\n",
        "a: 1_000\n",
        "a: .inf\n",
        "yes: 1\n",
        "1: one\n",
        "[a]: 1\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n---\nb: 2\n",
        "",
        "# only a comment\n",
        "a: [unclosed\n",
        "a:\n  b: 1\n c: 2\n",
    ] {
        assert_eq!(parse_from_events(text, limits), None, "{text:?}");
    }
    // Nesting near the limit is serde-saphyr's to refuse, with its message.
    let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
    assert_eq!(parse_from_events(&deep, limits), None);
}

// ------------------------------------------------------------ generated

/// Plain scalars chosen to sit on every boundary of YAML's type rules.
const PLAIN: &[&str] = &[
    "a",
    "rm -rf",
    "-rf",
    "-f",
    "--force",
    "y",
    "Y",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "False",
    "null",
    "Null",
    "nULL",
    "~",
    "0",
    "-0",
    "7",
    "-12",
    "0127",
    "+5",
    "1_000",
    "0x1F",
    "0o17",
    "0b101",
    "1e3",
    "1.5",
    "-0.25",
    "1.",
    ".5",
    ".inf",
    "-.Inf",
    ".NaN",
    "inf",
    "nan",
    "infinity",
    "12:30",
    "1.2.3.4",
    "10.0.0.0/8",
    "99999999999999999999",
    "123456789012345678",
    "/etc/passwd",
    "~/.ssh",
    "a b c",
    "é",
    "x#y",
    "tool_name == 'x' && y",
];

fn plain() -> impl Strategy<Value = String> {
    prop::sample::select(PLAIN).prop_map(str::to_string)
}

fn text_content() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "a", "b", " ", "'", "\"", "\\", "\\n", "\\x41", "\\u00e9", ":", "#", "-", "é",
                "\t", "1", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">",
            ][..],
        ),
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => plain(),
        2 => text_content().prop_map(|t| format!("'{}'", t.replace('\'', "''"))),
        2 => text_content().prop_map(|t| {
            format!("\"{}\"", t.replace('"', "\\\""))
        }),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(&["id", "when", "deny", "hook", "rules", "x", "a b", "<<"][..])
            .prop_map(str::to_string),
        1 => plain(),
        1 => scalar(),
    ]
}

/// A block-style document of nested maps and lists, with flow
/// collections, block scalars, comments, anchors and tags here and there.
fn node(indent: usize, depth: u32) -> BoxedStrategy<String> {
    let pad = " ".repeat(indent);
    let leaf = prop_oneof![
        6 => scalar(),
        1 => prop::collection::vec(scalar(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
        1 => prop::collection::vec((key(), scalar()), 0..3).prop_map(|v| {
            let items: Vec<String> = v.into_iter().map(|(k, s)| format!("{k}: {s}")).collect();
            format!("{{{}}}", items.join(", "))
        }),
        1 => (prop::sample::select(&["|", ">", "|-", ">+", "|2"][..]), text_content()).prop_map({
            let pad = pad.clone();
            move |(style, t)| format!("{style}\n{pad}  {}\n{pad}  end", t.replace('\n', " "))
        }),
        1 => scalar().prop_map(|s| format!("&anchor {s}")),
        1 => scalar().prop_map(|s| format!("!!str {s}")),
        1 => Just("*anchor".to_string()),
        1 => Just(String::new()),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let map = prop::collection::vec(
        (
            key(),
            node(indent + 2, depth - 1),
            prop::bool::weighted(0.2),
        ),
        1..4,
    )
    .prop_map({
        let pad = pad.clone();
        move |entries| {
            let mut out = String::new();
            for (k, v, comment) in entries {
                let sep = if v.starts_with('\n') || v.is_empty() {
                    ""
                } else {
                    " "
                };
                out.push_str(&format!("\n{pad}{k}:{sep}{v}"));
                if comment {
                    out.push_str(" # note");
                }
            }
            out
        }
    });
    let seq = prop::collection::vec(node(indent + 2, depth - 1), 1..4).prop_map({
        let pad = pad.clone();
        move |items| {
            let mut out = String::new();
            for item in items {
                let item = item.trim_start_matches('\n').trim_start();
                out.push_str(&format!("\n{pad}- {item}"));
            }
            out
        }
    });
    prop_oneof![3 => leaf, 2 => map, 1 => seq].boxed()
}

fn document() -> impl Strategy<Value = String> {
    node(0, 3).prop_map(|body| {
        let body = body.trim_start_matches('\n');
        format!("{body}\n")
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_documents_read_the_same(doc in document()) {
        same_tree(&doc);
    }

    #[test]
    fn damaged_documents_read_the_same(
        doc in document(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..4,
        insert in prop::sample::select(&["", " ", "  ", "\n", "-", ":", "'", "\"", "#", "[", "}", "\t"][..]),
    ) {
        let mut doc = doc;
        let mut i = at.index(doc.len() + 1);
        while !doc.is_char_boundary(i) {
            i -= 1;
        }
        let mut end = (i + cut).min(doc.len());
        while !doc.is_char_boundary(end) {
            end += 1;
        }
        doc.replace_range(i..end, insert);
        same_tree(&doc);
    }
}
