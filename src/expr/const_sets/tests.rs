//! A folded condition must give what the condition as written gives: the
//! same value or the same error, for every value tested, inside every
//! construct. Checked on a table of hand-picked cases and on random lists
//! and values.

use super::*;
use crate::expr::{evaluate, parse_fast, EvalError, PayloadResolver};
use proptest::prelude::*;
use serde_json::{json, Value as Json};

fn eval(expr: &IdedExpr, payload: &Json) -> Result<Json, EvalError> {
    let resolver = PayloadResolver {
        payload,
        hook: "pre_shell_exec",
        harness: "chibi",
        project_root: "/p",
    };
    evaluate(expr, &resolver)
}

fn folded(source: &str) -> (IdedExpr, IdedExpr) {
    let written = parse_fast(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let mut folded = written.clone();
    fold_constant_lists(&mut folded);
    (written, folded)
}

fn count_sets(expr: &IdedExpr) -> usize {
    let mut n = 0;
    crate::expr::ast::visit(expr, &mut |node| {
        if matches!(&node.expr, Expr::Call(c) if c.func_name == IN_SET) {
            n += 1;
        }
    });
    n
}

/// Evaluates `source` as written and folded; both must agree.
fn same(source: &str, payload: &Json) -> Result<Json, EvalError> {
    let (written, folded) = folded(source);
    let a = eval(&written, payload);
    let b = eval(&folded, payload);
    assert_eq!(a, b, "{source} on {payload}");
    a
}

#[test]
fn string_lists_fold_and_answer_as_written() {
    let p = json!({"x": "cat", "n": 3, "u": 18446744073709551615u64, "f": 1.0, "s": ["cat", "dog"],
                   "m": {"k": "cat"}, "nul": "a\u{0}b", "empty": ""});
    let names = "['cat', 'tac', 'nl', 'less', 'head', 'tail', '', 'a\\x00b', 'é']";
    let cases: &[(&str, Result<Json, ()>)] = &[
        ("x in NAMES", Ok(json!(true))),
        ("'dog' in NAMES", Ok(json!(false))),
        ("'Cat' in NAMES", Ok(json!(false))),
        ("'cat ' in NAMES", Ok(json!(false))),
        ("empty in NAMES", Ok(json!(true))),
        ("nul in NAMES", Ok(json!(true))),
        ("'a' in NAMES", Ok(json!(false))),
        ("'e\\u0301' in NAMES", Ok(json!(false))),
        ("'\\u00e9' in NAMES", Ok(json!(true))),
        // Not strings: never equal to a string, never an error.
        ("n in NAMES", Ok(json!(false))),
        ("u in NAMES", Ok(json!(false))),
        ("f in NAMES", Ok(json!(false))),
        ("s in NAMES", Ok(json!(false))),
        ("m in NAMES", Ok(json!(false))),
        ("null in NAMES", Ok(json!(false))),
        ("b'cat' in NAMES", Ok(json!(false))),
        ("true in NAMES", Ok(json!(false))),
        ("m.k in NAMES", Ok(json!(true))),
        // Errors of the value are the errors of `in`.
        ("missing in NAMES", Err(())),
        ("m.nope in NAMES", Err(())),
        ("(1 / 0) in NAMES", Err(())),
        // ... and absorbed or not by the logic around it, alike.
        ("missing in NAMES || true", Ok(json!(true))),
        ("missing in NAMES && false", Ok(json!(false))),
        ("missing in NAMES || false", Err(())),
        ("!(x in NAMES)", Ok(json!(false))),
        ("s.exists(v, v in NAMES)", Ok(json!(true))),
        ("s.all(v, v in NAMES)", Ok(json!(false))),
        ("s.filter(v, !(v in NAMES))", Ok(json!(["dog"]))),
        ("[x in NAMES, 'zz' in NAMES]", Ok(json!([true, false]))),
        ("{'k': x in NAMES}", Ok(json!({"k": true}))),
        ("x in NAMES ? 1 : 2", Ok(json!(1))),
        ("x in []", Ok(json!(false))),
        ("missing in []", Err(())),
        ("x in ['cat', 'cat']", Ok(json!(true))),
    ];
    for (case, want) in cases {
        let source = case.replace("NAMES", names);
        let got = same(&source, &p);
        match want {
            Ok(v) => assert_eq!(got.as_ref(), Ok(v), "{source}"),
            Err(()) => assert!(got.is_err(), "{source}: {got:?}"),
        }
        let (_, f) = folded(&source);
        assert!(count_sets(&f) >= 1, "{source} was not folded");
    }
}

#[test]
fn lists_that_are_not_all_string_literals_stay_as_written() {
    let p = json!({"x": "cat", "n": 1, "f": 1.0, "u": 1u64});
    let cases = [
        // CEL's numeric equality crosses types: these are lists' business.
        ("n in [1, 'cat']", json!(true)),
        ("f in [1]", json!(true)),
        ("1u in [1]", json!(true)),
        ("x in ['cat', 1]", json!(true)),
        ("x in [x]", json!(true)),
        ("x in ['c' + 'at']", json!(true)),
        ("x in [['cat']]", json!(false)),
        ("x in {'cat': 1}", json!(true)),
        ("'a' in 'cat'.split('')", json!(true)),
    ];
    for (source, want) in cases {
        let (_, f) = folded(source);
        assert_eq!(count_sets(&f), 0, "{source} was folded");
        assert_eq!(same(source, &p), Ok(want), "{source}");
    }
}

#[test]
fn folding_twice_is_folding_once_and_analyses_read_both_forms() {
    let source = "x in ['b', 'a', 'b'] && [1].exists(v, tool_name in ['shell_exec', 'bash'])";
    let (written, mut once) = folded(source);
    assert_eq!(count_sets(&once), 2);
    let mut twice = once.clone();
    fold_constant_lists(&mut twice);
    assert_eq!(once, twice);
    fn members(e: &IdedExpr) -> Vec<(String, Vec<&str>)> {
        let mut found = Vec::new();
        crate::expr::ast::visit(e, &mut |n| {
            if let Some((value, strings)) = string_membership(n) {
                found.push((crate::expr::strip_ids(value), strings));
            }
        });
        found
    }
    assert_eq!(members(&written), members(&once));
    assert_eq!(
        members(&once)[0].1,
        vec!["b", "a", "b"],
        "source order, duplicates kept"
    );
    // A folded tree still reads as a list test to anything that asks.
    once = written.clone();
    fold_constant_lists(&mut once);
    assert_eq!(members(&once).len(), 2);
}

#[test]
fn source_cannot_call_the_folded_form() {
    assert!(parse_fast("@in_set(x, b'')").is_err());
    assert!(parse_fast("x.@in_set(b'')").is_err());
}

#[test]
fn a_damaged_set_is_an_error_not_a_panic() {
    let (_, good) = folded("x in ['a', 'b', 'c']");
    let bytes = |e: &IdedExpr| -> Vec<u8> {
        let Expr::Call(c) = &e.expr else { panic!() };
        let Expr::Literal(LiteralValue::Bytes(b)) = &c.args[1].expr else {
            panic!()
        };
        b.inner().to_vec()
    };
    let original = bytes(&good);
    let with = |set: Vec<u8>| {
        let mut e = good.clone();
        let Expr::Call(c) = &mut e.expr else { panic!() };
        c.args[1].expr = Expr::Literal(LiteralValue::Bytes(CelBytes::from(set)));
        e
    };
    let p = json!({"x": "b"});
    assert_eq!(eval(&with(original.clone()), &p), Ok(json!(true)));
    let mut damaged = vec![
        Vec::new(),
        vec![1, 2],
        original[..original.len() - 1].to_vec(),
        original[..8].to_vec(),
    ];
    let mut huge = original.clone();
    huge[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    damaged.push(huge);
    let mut bad_end = original.clone();
    bad_end[4..8].copy_from_slice(&1000u32.to_le_bytes());
    damaged.push(bad_end);
    let mut bad_order = original.clone();
    for at in [16, 20, 24] {
        bad_order[at..at + 4].copy_from_slice(&77u32.to_le_bytes());
    }
    damaged.push(bad_order);
    for set in damaged {
        let got = eval(&with(set.clone()), &p);
        assert!(
            matches!(&got, Err(e) if e.0.contains("damaged constant set")),
            "{set:?}: {got:?}"
        );
        // Analyses do not take a damaged set for a list.
        assert!(string_membership(&with(set)).is_none());
    }
}

/// A literal element of a list, as CEL source.
fn element() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => string_value().prop_map(|s| cel_string(&s)),
        1 => prop::sample::select(vec![
            "1", "0", "-1", "1u", "0u", "18446744073709551615u", "1.0", "-0.0", "2.5",
            "true", "false", "null", "b'cat'", "b''",
        ])
        .prop_map(str::to_string),
    ]
}

fn string_value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "cat", "tac", "", "Cat", "cat ", "ca", "catt", "é", "e\u{301}", "\u{0}", "a\u{0}b",
            "'", "\\", "日本", "🦀", "-r", "--force", "1", "true", "null",
        ])
        .prop_map(str::to_string),
        "[a-c\u{e9}\u{0}]{0,4}",
    ]
}

fn cel_string(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The value tested: a payload field of any JSON kind, a literal of any CEL
/// kind, or an expression that fails.
fn tested() -> impl Strategy<Value = (String, Json)> {
    let json_value = prop_oneof![
        string_value().prop_map(Json::from),
        any::<i64>().prop_map(Json::from),
        prop::sample::select(vec![0i64, 1, -1]).prop_map(Json::from),
        any::<u64>().prop_map(Json::from),
        prop::sample::select(vec![1.0f64, -0.0, 2.5, 1e300]).prop_map(Json::from),
        any::<bool>().prop_map(Json::from),
        Just(Json::Null),
        prop::collection::vec(string_value(), 0..3).prop_map(Json::from),
        string_value().prop_map(|s| json!({ "k": s })),
    ];
    prop_oneof![
        4 => json_value.prop_map(|v| ("x".to_string(), json!({ "x": v }))),
        2 => element().prop_map(|e| (e, json!({}))),
        1 => prop::sample::select(vec!["missing", "x.k", "(1 / 0)", "x[3]"])
            .prop_map(|e| (e.to_string(), json!({"x": "cat"}))),
    ]
}

/// Where the test sits: alone, under logic that absorbs errors, in a
/// comprehension over the value, in a ternary.
fn context() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "V in L",
        "!(V in L)",
        "V in L || true",
        "V in L && false",
        "V in L || V in L",
        "[V].exists(v, v in L)",
        "[V, 'cat'].filter(v, v in L)",
        "(V in L) ? 'y' : 'n'",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn folded_and_written_conditions_agree(
        elements in prop::collection::vec(element(), 0..12),
        (value, payload) in tested(),
        shape in context(),
    ) {
        let list = format!("[{}]", elements.join(", "));
        let source = shape.replace('V', &value).replace('L', &list);
        let (written, folded) = folded(&source);
        let all_strings = elements.iter().all(|e| e.starts_with('\''));
        let lists = shape.matches('L').count();
        prop_assert_eq!(count_sets(&folded), if all_strings { lists } else { 0 }, "{}", source);
        prop_assert_eq!(eval(&written, &payload), eval(&folded, &payload), "{} on {}", source, payload);
    }
}
