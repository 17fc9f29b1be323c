//! The frame evaluated here must give cel's value wherever it gives one,
//! and the decision (frame, then cel) must give cel's value or error
//! everywhere. Checked on hand-picked cases, on random conditions, and on
//! every shipped condition with the packs' test payloads.

use super::*;
use crate::expr::{env_for, evaluate_bool, evaluate_bool_by_cel, parse_fast, PayloadResolver};
use proptest::prelude::*;
use serde_json::{json, Value as Json};

fn resolver(payload: &Json) -> PayloadResolver<'_> {
    PayloadResolver {
        payload,
        hook: "pre_shell_exec",
        harness: "chibi",
        project_root: "/p",
    }
}

/// The frame's own answer, without cel's fallback.
fn frame_only(expr: &IdedExpr, payload: &Json) -> Result<bool, GiveUp> {
    let resolver = resolver(payload);
    let mut ctx = Context::with_env(env_for(expr));
    ctx.set_variable_resolver(&resolver);
    truth(expr, &ctx)
}

/// Checks one condition, as written and rewritten, on one payload;
/// returns cel's answer and whether the frame answered.
fn agree(source: &str, payload: &Json) -> (Result<bool, crate::expr::EvalError>, bool) {
    let written = parse_fast(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let mut rewritten = written.clone();
    crate::expr::rewrite_for_evaluation(&mut rewritten);
    let by_cel = evaluate_bool_by_cel(&written, &resolver(payload));
    let mut answered = true;
    for tree in [&written, &rewritten] {
        assert_eq!(
            evaluate_bool_by_cel(tree, &resolver(payload)),
            by_cel,
            "{source} on {payload}"
        );
        match frame_only(tree, payload) {
            Ok(value) => assert_eq!(Ok(value), by_cel, "{source} on {payload}"),
            Err(GiveUp) => answered = false,
        }
        assert_eq!(
            evaluate_bool(tree, &resolver(payload)),
            by_cel,
            "{source} on {payload}"
        );
    }
    (by_cel, answered)
}

#[test]
fn loops_and_connectives_are_answered_here() {
    let payload = json!({"r": ["a", "b"], "s": "git push -f && ls", "x": true});
    for (source, want) in [
        ("r.exists(v, v == 'b')", true),
        ("r.all(v, v == 'b')", false),
        ("r.exists(v, v == 'b') && !r.all(v, v == 'a')", true),
        ("x ? r.exists(v, v == 'c') : true", false),
        (
            "s.shellCommands().exists(c, c.program == 'git' && c.flags.exists(f, f == '-f'))",
            true,
        ),
        (
            "s.shellCommands().all(c, c.args.exists(a, a == 'push') || c.program == 'ls')",
            true,
        ),
        ("[r, ['c']].exists(w, w.all(v, v in ['c']))", true),
        ("[].exists(v, v == 1)", false),
    ] {
        assert_eq!(agree(source, &payload), (Ok(want), true), "{source}");
    }
}

#[test]
fn the_loop_variable_hides_a_payload_field_and_an_outer_loop_variable() {
    let payload = json!({"v": "outer", "r": ["a", "b"]});
    assert_eq!(
        agree("r.exists(v, v == 'outer')", &payload),
        (Ok(false), true)
    );
    assert_eq!(
        agree("r.exists(v, v == 'b') && v == 'outer'", &payload),
        (Ok(true), true)
    );
    assert_eq!(
        agree("r.exists(v, [v].exists(v, v == 'a') && v == 'a')", &payload),
        (Ok(true), true)
    );
    // A loop over nothing binds nothing: its result sees the outer name.
    assert_eq!(
        agree("[].all(v, v == 1) && v == 'outer'", &payload),
        (Ok(true), true)
    );
}

#[test]
fn errors_are_cels_to_decide() {
    let payload = json!({"r": [1, "a"], "n": 1});
    for (source, want) in [
        // cel absorbs the error of one side when the other decides.
        ("missing || true", Ok(true)),
        ("missing && false", Ok(false)),
        // an element's error overridden by a later element
        ("r.exists(v, v.startsWith('a'))", Ok(true)),
        ("r.exists(v, size(v) == 1)", Ok(true)),
        ("r.all(v, v.startsWith('b'))", Ok(false)),
    ] {
        let (by_cel, answered) = agree(source, &payload);
        assert_eq!(by_cel, want, "{source}");
        assert!(
            !answered,
            "{source}: the frame met an error and must give up"
        );
    }
    for source in [
        "missing || false",
        "n && true",
        "r.exists(v, v.startsWith('b'))",
        "n",
    ] {
        let (by_cel, answered) = agree(source, &payload);
        assert!(by_cel.is_err(), "{source}: {by_cel:?}");
        assert!(!answered, "{source}");
    }
}

// ---- random conditions ----------------------------------------------------

/// A boolean-ish expression over the loop variables `v` and `w`, the
/// payload's `r` (a list), `x` (a boolean), `n` (a number), `s` (a shell
/// line), and names that are missing.
fn condition() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "true",
        "false",
        "x",
        "n",
        "missing",
        "v == 'a'",
        "v in ['a', 1]",
        "v == w",
        "v.startsWith('a')",
        "v.a == 1",
        "v",
        "w == 1",
        "size(r) > 1",
        "r.filter(v, v == 'a').size() == 1",
        "r.map(v, v).exists(w, w == 'b')",
        // shapes the rewrites make native
        "v in ['a', 'b']",
        "r.exists(v, v in ['b', 'c'])",
        "r.all(w, w.startsWith('a') || w in ['b'])",
    ])
    .prop_map(str::to_string);
    leaf.prop_recursive(4, 32, 3, |inner| {
        let range = prop::sample::select(vec![
            "r",
            "[v]",
            "[w, 'a']",
            "['a', 1, true]",
            "missing",
            "x",
            "[]",
        ]);
        let var = prop::sample::select(vec!["v", "w"]);
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) && ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("({a}) ? ({b}) : ({c})")),
            inner.clone().prop_map(|a| format!("!({a})")),
            (range.clone(), var.clone(), inner.clone())
                .prop_map(|(r, v, p)| format!("{r}.exists({v}, {p})")),
            (range.clone(), var.clone(), inner.clone())
                .prop_map(|(r, v, p)| format!("{r}.all({v}, {p})")),
            (range.clone(), var.clone(), inner.clone())
                .prop_map(|(r, v, p)| format!("{r}.exists_one({v}, {p})")),
            (var, inner.clone()).prop_map(|(v, p)| format!(
                "s.shellCommands().exists({v}, {v}.args.exists(a, a == 'b') && ({p}))"
            )),
        ]
    })
}

fn payload() -> impl Strategy<Value = Json> {
    let element = prop::sample::select(vec![
        json!("a"),
        json!("b"),
        json!(1),
        json!(true),
        json!({"a": 1}),
        json!(null),
    ]);
    (
        prop::collection::vec(element, 0..4),
        any::<bool>(),
        prop::sample::select(vec![json!("outer"), json!(true), json!(null)]),
    )
        .prop_map(|(r, x, v)| json!({"r": r, "x": x, "n": 1, "v": v, "s": "ls a b && git -f b"}))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_conditions_decide_as_cel_decides(source in condition(), payload in payload()) {
        let _ = agree(&source, &payload);
    }
}

// ---- the shipped packs ----------------------------------------------------

/// Every shipped condition, on the packs' test payloads, decides as cel
/// does; and the frame answers wherever cel meets no error, so no decision
/// is evaluated twice.
#[test]
fn shipped_conditions_decide_as_cel_decides_and_are_answered_here() {
    let conditions = crate::expr::shipped_conditions::shipped_conditions();
    let payloads = crate::expr::shipped_conditions::test_payloads();
    let (mut evaluations, mut given_up) = (0, Vec::new());
    for (id, hooks, source) in &conditions {
        let mut tree = parse_fast(source).unwrap();
        crate::expr::rewrite_for_evaluation(&mut tree);
        for (hook, payload) in payloads.iter().filter(|(h, _)| hooks.contains(h)) {
            let resolver = PayloadResolver {
                payload,
                hook,
                harness: "chibi",
                project_root: "/home/user/project",
            };
            let by_cel = evaluate_bool_by_cel(&tree, &resolver);
            assert_eq!(evaluate_bool(&tree, &resolver), by_cel, "{id} on {payload}");
            let mut ctx = Context::with_env(env_for(&tree));
            ctx.set_variable_resolver(&resolver);
            match truth(&tree, &ctx) {
                Ok(value) => assert_eq!(Ok(value), by_cel, "{id} on {payload}"),
                Err(GiveUp) => given_up.push(format!("{id} on {payload}: {by_cel:?}")),
            }
            evaluations += 1;
        }
    }
    assert!(evaluations >= 5_000, "{evaluations} evaluations");
    assert!(
        given_up.is_empty(),
        "{} given up: {:#?}",
        given_up.len(),
        &given_up[..given_up.len().min(20)]
    );
}
