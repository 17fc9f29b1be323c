//! The stored form of parsed CEL trees (src/expr/stored_tree.rs), which a
//! prepared cache entry keeps for each rule so that a cold call does not
//! parse: the tree rebuilt from it must be the tree the parser builds, node
//! ids included, for every expression shipped (packs, policies/, examples)
//! and for random expressions; and every rule the shipped policies compile
//! for a hook stores all its trees (none silently left to the parser).

use hook_policy::expr::parse_fast;
use hook_policy::expr::stored_tree::{read_all, StoredTrees, TreeRecorder};
use proptest::prelude::*;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn round_trip(sources: &[String]) {
    let mut recorder = TreeRecorder::default();
    let parsed: Vec<_> = sources.iter().map(|s| parse_fast(s).ok()).collect();
    for (s, p) in sources.iter().zip(&parsed) {
        recorder.record(s, p.as_ref());
    }
    let record = recorder.finish();
    assert!(!record.contains(&b'\n'));
    let mut trees = StoredTrees::new(&record).expect("a record just written reads");
    for (s, p) in sources.iter().zip(&parsed) {
        assert_eq!(&trees.next(s), p, "{s}");
    }
    assert!(trees.is_done());
}

/// Every `when` and `${{ }}` expression of the shipped policies, by rule.
fn shipped_expressions() -> Vec<Vec<String>> {
    let (set, diags) = hook_policy::load::load(&[
        repo().join("packs"),
        repo().join("policies"),
        repo().join("examples/policies"),
    ]);
    assert!(diags.is_empty(), "{diags:?}");
    let mut out = Vec::new();
    for loaded in &set.rules {
        let mut sources: Vec<String> = loaded.rule.when.iter().cloned().collect();
        let mut mapping = loaded.node.to_json();
        mapping.as_object_mut().unwrap().remove("when");
        collect_templates(&mapping, &mut sources);
        out.push(sources);
    }
    out
}

fn collect_templates(value: &serde_json::Value, out: &mut Vec<String>) {
    use hook_policy::expr::template::{parse, Piece, Template};
    match value {
        serde_json::Value::String(s) => match parse(s) {
            Ok(Template::Whole { source, .. }) => out.push(source.to_string()),
            Ok(Template::Interpolated(pieces)) => {
                for p in pieces {
                    if let Piece::Expr { source, .. } = p {
                        out.push(source.to_string());
                    }
                }
            }
            _ => {}
        },
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_templates(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect_templates(v, out)),
        _ => {}
    }
}

#[test]
fn every_shipped_expression_is_rebuilt_as_parsed() {
    let rules = shipped_expressions();
    let count: usize = rules.iter().map(Vec::len).sum();
    assert!(count >= 100, "{count} expressions");
    for sources in &rules {
        for s in sources {
            assert!(parse_fast(s).is_ok(), "{s}");
        }
        // One record per rule, as an entry stores them.
        round_trip(sources);
    }
}

/// Through the compiler, as the cache writes entries: every rule of every
/// hook stores a tree for each expression it parsed, and its `when` tree
/// (parsed first) is the rule's condition.
#[test]
fn the_shipped_policies_store_every_tree_they_parse() {
    let (set, diags) = hook_policy::load::load(&[repo().join("policies")]);
    assert!(diags.is_empty(), "{diags:?}");
    let mut stored = 0;
    for hook in hook_policy::catalogue::hook_names() {
        let (policy, _) = hook_policy::compile::compile(&set, Some(hook));
        for rule in &policy.rules {
            let trees = read_all(&rule.trees).expect("the record reads");
            assert!(trees.iter().all(|(_, t)| t.is_some()), "{}", rule.id);
            if let Some(when) = &rule.when {
                assert_eq!(trees[0].0, when.source.len());
                // The entry stores the tree as compiled: constant string
                // lists already folded into sets.
                assert_eq!(trees[0].1.as_ref(), Some(&when.expr), "{}", rule.id);
            }
            stored += trees.len();
        }
    }
    assert!(stored >= 50, "{stored} trees");
}

/// Random CEL source: literals of every kind, names, selections, presence
/// tests, calls, member calls, macros, lists, maps, messages, operators and
/// conditionals, nested.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "a",
            "b",
            "command",
            "tool_name",
            "payload",
            "x_1",
            "null",
            "true",
            "false",
        ])
        .prop_map(str::to_string),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u32>().prop_map(|u| format!("{u}u")),
        (0u32..100_000, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        "[a-z .*^$()|\\\\]{0,12}".prop_map(|s| format!("'{}'", s.replace('\\', "\\\\"))),
        "\\PC{0,6}".prop_map(|s| format!("{s:?}")),
        prop::sample::select(vec![
            "'\\n\\t'",
            "b'\\xff\\x0a'",
            "b''",
            "'''a\nb'''",
            "r'\\d+'"
        ])
        .prop_map(str::to_string),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let name = prop::sample::select(vec![
            "startsWith",
            "size",
            "contains",
            "matches",
            "lowerAscii",
            "runs",
            "int",
            "f",
        ]);
        let op = prop::sample::select(vec![
            "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in",
        ]);
        let macro_name = prop::sample::select(vec!["exists", "all", "map", "filter", "exists_one"]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            inner.clone().prop_map(|a| format!("!{a}")),
            inner.clone().prop_map(|a| format!("-({a})")),
            (inner.clone(), "[a-z]{1,5}").prop_map(|(a, f)| format!("({a}).{f}")),
            "[a-z]{1,3}(\\.[a-z]{1,3}){1,2}".prop_map(|p| format!("has({p})")),
            (name.clone(), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(n, args)| format!("{n}({})", args.join(", "))),
            (
                inner.clone(),
                name,
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(t, n, args)| format!("({t}).{n}({})", args.join(", "))),
            (inner.clone(), macro_name, inner.clone())
                .prop_map(|(r, m, body)| format!("({r}).{m}(v, {body} || v == 1)")),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|l| format!("[{}]", l.join(", "))),
            prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(|m| {
                let entries: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", entries.join(", "))
            }),
            prop::collection::vec(("[a-z]{1,4}", inner.clone()), 0..3).prop_map(|m| {
                let fields: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("a.B{{{}}}", fields.join(", "))
            }),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
            (inner.clone(), inner).prop_map(|(a, i)| format!("({a})[{i}]")),
        ]
    })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_expressions_are_rebuilt_as_parsed(
        sources in prop::collection::vec(expression(), 1..4),
    ) {
        // Most parse; those that do not are recorded as not stored.
        round_trip(&sources);
    }
}

/// Random expressions do parse, most of the time: the property above is
/// about trees, not about the parser's error path.
#[test]
fn random_expressions_mostly_parse() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = expression();
    let mut parsed = 0;
    for _ in 0..200 {
        let s = strategy.new_tree(&mut runner).unwrap().current();
        parsed += usize::from(parse_fast(&s).is_ok());
    }
    assert!(parsed >= 150, "{parsed} of 200 parsed");
}
