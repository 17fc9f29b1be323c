//! A rewritten condition must give what the condition as written gives:
//! the same value or the same error, for every value, inside every
//! construct. Checked on hand-picked cases, on random ranges and
//! predicates, and on every shipped pack condition with its test payloads.

use super::*;
use crate::expr::shipped_conditions::{shipped_conditions, test_payloads};
use crate::expr::{evaluate, parse_fast, strip_ids, EvalError, PayloadResolver};
use proptest::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

fn eval(expr: &IdedExpr, payload: &Json) -> Result<Json, EvalError> {
    let resolver = PayloadResolver {
        payload,
        hook: "pre_shell_exec",
        harness: "chibi",
        project_root: "/p",
    };
    evaluate(expr, &resolver)
}

/// The tree as conditions were evaluated before this module (lists
/// folded), and rewritten.
fn both(source: &str) -> (IdedExpr, IdedExpr) {
    let mut folded = parse_fast(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    const_sets::fold_constant_lists(&mut folded);
    let mut rewritten = folded.clone();
    rewrite_loops(&mut rewritten);
    rewrite_fields(&mut rewritten);
    (folded, rewritten)
}

fn count_calls(expr: &IdedExpr, names: &[&str]) -> usize {
    let mut n = 0;
    crate::expr::ast::visit(expr, &mut |node| {
        if matches!(&node.expr, Expr::Call(c) if names.contains(&c.func_name.as_str())) {
            n += 1;
        }
    });
    n
}

fn natives(expr: &IdedExpr) -> usize {
    count_calls(expr, &[EXISTS_IN, ALL_IN])
}

fn negations(expr: &IdedExpr) -> usize {
    count_calls(expr, &[operators::LOGICAL_NOT])
}

fn same(source: &str, payload: &Json) -> Result<Json, EvalError> {
    let (folded, rewritten) = both(source);
    let a = eval(&folded, payload);
    assert_eq!(a, eval(&rewritten, payload), "{source} on {payload}");
    a
}

#[test]
fn membership_loops_become_native_and_answer_as_written() {
    let p = json!({
        "args": ["status", "-f", "--force"], "none": [], "ints": [1, 2], "mixed": [1, "-f", null],
        "m": {"-f": 1, "x": 2}, "s": "-f", "n": 3, "nested": [["-f"]],
        "cmd": "git push --force && ls",
    });
    let cases: &[(&str, Result<Json, ()>)] = &[
        ("args.exists(a, a in ['-f', '--force'])", Ok(json!(true))),
        ("args.exists(a, a == '-n')", Ok(json!(false))),
        ("args.exists(a, '--force' == a)", Ok(json!(true))),
        ("args.exists(a, a in ['-x'] || a == 'status' || a in ['y'])", Ok(json!(true))),
        ("args.all(a, a in ['status', '-f', '--force'])", Ok(json!(true))),
        ("args.all(a, a in ['status', '-f'])", Ok(json!(false))),
        ("none.exists(a, a == 'x')", Ok(json!(false))),
        ("none.all(a, a == 'x')", Ok(json!(true))),
        // Elements that are not strings are never members, never errors.
        ("ints.exists(a, a in ['1'])", Ok(json!(false))),
        ("mixed.exists(a, a == '-f')", Ok(json!(true))),
        ("mixed.all(a, a == '-f')", Ok(json!(false))),
        ("nested.exists(a, a in ['-f'])", Ok(json!(false))),
        // A map ranges over its keys.
        ("m.exists(k, k == '-f')", Ok(json!(true))),
        ("m.all(k, k in ['-f', 'x'])", Ok(json!(true))),
        // A range that cannot be iterated, or fails, is the loop's error.
        ("s.exists(a, a == '-f')", Err(())),
        ("n.all(a, a == '-f')", Err(())),
        ("missing.exists(a, a == '-f')", Err(())),
        ("(1 / 0 == 1 ? args : args).exists(a, a == '-f')", Err(())),
        ("missing.exists(a, a == '-f') || true", Ok(json!(true))),
        ("!args.exists(a, a in ['-n', '--dry-run'])", Ok(json!(true))),
        // Inside the packs' outer loop, with the loop variable's fields.
        (
            "cmd.shellCommands().exists(c, c.program == 'git' && c.flags.exists(f, f in ['-f', '--force']))",
            Ok(json!(true)),
        ),
        (
            "cmd.shellCommands().exists(c, c.program == 'ls' && !c.flags.exists(f, f == '-l'))",
            Ok(json!(true)),
        ),
    ];
    for (source, want) in cases {
        let got = same(source, &p);
        match want {
            Ok(v) => assert_eq!(got.as_ref(), Ok(v), "{source}"),
            Err(()) => assert!(got.is_err(), "{source}: {got:?}"),
        }
        let (_, r) = both(source);
        assert!(natives(&r) >= 1, "{source} was not rewritten");
    }
}

#[test]
fn other_predicates_stay_loops() {
    let p = json!({"args": ["a", "b"], "x": "a"});
    for source in [
        "args.exists(a, a.startsWith('a'))",
        "args.exists(a, a in ['a'] && a == 'a')",
        "args.exists(a, x == 'a')",
        "args.exists(a, a in [x])",
        "args.exists(a, a == 1)",
        "args.exists(a, a in ['a', 1])",
        "args.exists_one(a, a == 'a')",
        "args.filter(a, a == 'a') == ['a']",
        "args.map(a, a == 'a') == [true, false]",
    ] {
        let (_, r) = both(source);
        assert_eq!(natives(&r), 0, "{source} was rewritten");
        same(source, &p).unwrap_or_else(|e| panic!("{source}: {e}"));
    }
}

#[test]
fn negations_of_boolean_tests_become_conditionals() {
    let p = json!({"s": "abc", "n": 1, "b": true, "l": ["a"], "m": {"k": 1}});
    let rewritten = [
        "!s.startsWith('a')",
        "!n.startsWith('a')",
        "!s.endsWith('c')",
        "!s.matches('^a')",
        "!(s == 'abc')",
        "!(n < 2)",
        "!(s < 2)",
        "!(b && n == 1)",
        "!(missing || b)",
        "!!b",
        "!('a' in l)",
        "!('a' in s)",
        "!l.exists(x, x.startsWith('a'))",
        "!l.all(x, x.startsWith(1))",
        "!missing.startsWith('a')",
    ];
    for source in rewritten {
        let (_, r) = both(source);
        assert_eq!(negations(&r), 0, "{source} kept a `!`");
        let _ = same(source, &p);
    }
    // What may give a value other than a boolean keeps its `!`, whose
    // error names the operator.
    for source in [
        "!b",
        "!n",
        "!s",
        "!m.k",
        "!has(m.k)",
        "!(b ? n : b)",
        "!l.map(x, x)[0]",
        "!s.size()",
    ] {
        let (_, r) = both(source);
        assert_eq!(negations(&r), 1, "{source} lost its `!`");
        let _ = same(source, &p);
    }
}

#[test]
fn rewriting_twice_is_rewriting_once() {
    for source in [
        "cmd.shellCommands().exists(c, c.program == 'git' && !c.flags.exists(f, f in ['-n']) && c.args.exists(a, a.startsWith('-')))",
        "l.all(x, x == 'a') && !l.exists(x, x.matches('b'))",
    ] {
        let (_, once) = both(source);
        let mut twice = once.clone();
        rewrite_loops(&mut twice);
        rewrite_fields(&mut twice);
        assert_eq!(strip_ids(&once), strip_ids(&twice), "{source}");
        assert_eq!(once, twice, "{source}");
    }
}

/// Selections whose operand went through [`rewrite_fields`].
fn wrapped_fields(expr: &IdedExpr) -> Vec<String> {
    let mut out = Vec::new();
    crate::expr::ast::visit(expr, &mut |node| {
        if let (Expr::Select(s), Some((v, f))) = (&node.expr, variable_field(node)) {
            if !matches!(s.operand.expr, Expr::Ident(_)) {
                out.push(format!("{v}.{f}"));
            }
        }
    });
    out
}

#[test]
fn only_fields_of_bound_loop_variables_skip_the_dotted_lookup() {
    let source = "q.x == 1 && r.exists(v, has(v.a) && r.all(w, w.b == v.a.c)) && has(q.x)";
    let (written, rewritten) = both(source);
    assert_eq!(wrapped_fields(&written), Vec::<String>::new());
    // `v.a.c` is `v.a` wrapped, then `.c` on it: no name is left to look
    // up. Presence tests and the payload's `q.x` stay as written.
    assert_eq!(wrapped_fields(&rewritten), ["w.b", "v.a"]);
    // Payload names spelled `v.a` and `w.b` are not what the loops read.
    let p = json!({"q": {"x": 1}, "v.a": 2, "w.b": {"c": 1}, "r": [{"a": {"c": 3}, "b": 3}]});
    assert_eq!(same(source, &p), Ok(json!(true)));
    // `1.c` fails alike both ways (`same` compares the errors).
    let p = json!({"q": {"x": 1}, "r": [{"a": 1, "b": 1}]});
    let got = same(source, &p);
    assert!(got.is_err(), "{got:?}");
}

#[test]
fn guards_of_command_string_lists_are_known_true() {
    use on_strings::{STRINGS_ONLY, STRINGS_ONLY_WITH};
    let guards = |e: &IdedExpr| count_calls(e, &[STRINGS_ONLY, STRINGS_ONLY_WITH]);
    let p = json!({"command": "git -C /tmp status --porcelain -- README.md", "r": [{"args": ["x", 1]}]});
    for (source, left) in [
        ("command.shellCommands().exists(c, c.args.exists(a, a.startsWith('st')))", 0),
        ("command.shellCommands().exists(c, c.args.filter(a, !a.startsWith('-')).map(p, p.normalizedPath(project_root)).exists(p, p.endsWith('/README.md')))", 0),
        ("command.shellCommands().exists(c, c.flags.all(f, f.startsWith('-')) && c.via.all(f, f == ''))", 0),
        // Not a command: the range may hold anything.
        ("r.exists(c, c.args.exists(a, a.startsWith('x')))", 1),
        // `c` rebound by a loop that is not over commands.
        ("command.shellCommands().exists(c, r.exists(c, c.args.exists(a, a.startsWith('x'))))", 1),
        // The project root hidden by a loop variable of that name.
        ("command.shellCommands().exists(c, ['/p'].exists(project_root, c.args.map(a, a.normalizedPath(project_root)).exists(x, x == '/p/README.md')))", 1),
    ] {
        let (written, rewritten) = both(source);
        assert!(guards(&written) == 0, "{source}");
        let mut folded_only = parse_fast(source).unwrap();
        const_sets::fold_constant_lists(&mut folded_only);
        rewrite_loops(&mut folded_only);
        assert!(guards(&folded_only) > 0, "{source}: no native loop to guard");
        assert_eq!(guards(&rewritten), left, "{source}");
        // Analyses still find the loop as written behind the native one.
        let mut loops = 0;
        crate::expr::ast::visit(&rewritten, &mut |n| loops += usize::from(written_loop(n).is_some()));
        assert!(loops > 0, "{source}");
        let _ = same(source, &p);
    }
}

#[test]
fn source_cannot_call_the_native_loops() {
    assert!(parse_fast("@exists_in(x, b'')").is_err());
    assert!(parse_fast("@all_in(x, b'')").is_err());
}

#[test]
fn a_damaged_set_is_an_error_not_a_panic() {
    let (_, good) = both("l.exists(x, x in ['a', 'b'])");
    let with = |set: Vec<u8>| {
        let mut e = good.clone();
        let Expr::Call(c) = &mut e.expr else { panic!() };
        c.args[1].expr = Expr::Literal(LiteralValue::Bytes(CelBytes::from(set)));
        e
    };
    let p = json!({"l": ["b"]});
    for set in [Vec::new(), vec![1, 0, 0, 0, 9, 9], vec![0xff; 12]] {
        let got = eval(&with(set.clone()), &p);
        assert!(
            matches!(&got, Err(e) if e.0.contains("damaged constant set")),
            "{set:?}: {got:?}"
        );
    }
}

// ---- random ranges and predicates ----------------------------------------

fn pool() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a", "b", "", "-f", "--force", "A", "a ", "é", "e\u{301}", "\u{0}", "1", "true", "null",
    ])
    .prop_map(str::to_string)
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

/// An element of a range: mostly strings, and every other JSON kind.
fn element() -> impl Strategy<Value = Json> {
    prop_oneof![
        6 => pool().prop_map(Json::from),
        1 => prop::sample::select(vec![json!(1), json!(-1), json!(1.5), json!(u64::MAX), json!(true),
            json!(null), json!(["a"]), json!({"a": 1}), json!([])]),
    ]
}

/// The range looped over: a payload field of any kind, or an expression
/// that fails.
fn range() -> impl Strategy<Value = (String, Json)> {
    prop_oneof![
        6 => prop::collection::vec(element(), 0..6).prop_map(|l| ("r".to_string(), json!({"r": l}))),
        1 => prop::collection::btree_map(pool(), Just(1), 0..4)
            .prop_map(|m| ("r".to_string(), json!({"r": m}))),
        1 => element().prop_map(|e| ("r".to_string(), json!({"r": e}))),
        1 => prop::sample::select(vec!["missing", "r.nope", "(1 / 0 == 0 ? [] : [])"])
            .prop_map(|e| (e.to_string(), json!({"r": ["a"]}))),
    ]
}

/// One test of the loop variable `v`: the shapes rewritten, and some that
/// are not (which must keep the loop, and may fail on some elements).
fn atom() -> impl Strategy<Value = String> {
    let list = prop::collection::vec(pool(), 0..4).prop_map(|l| {
        l.iter()
            .map(|s| cel_string(s))
            .collect::<Vec<_>>()
            .join(", ")
    });
    prop_oneof![
        4 => list.prop_map(|l| format!("v in [{l}]")),
        3 => pool().prop_map(|s| format!("v == {}", cel_string(&s))),
        1 => pool().prop_map(|s| format!("{} == v", cel_string(&s))),
        1 => pool().prop_map(|s| format!("v.startsWith({})", cel_string(&s))),
        1 => pool().prop_map(|s| format!("size(v) >= 2 && {}.startsWith(v)", cel_string(&s))),
        1 => Just("v in ['a', 1]".to_string()),
        1 => Just("v == 1".to_string()),
        1 => Just("!v.endsWith('a')".to_string()),
        1 => Just("v.a == 1".to_string()),
        1 => Just("v.a.b == 'a'".to_string()),
    ]
}

fn predicate() -> impl Strategy<Value = String> {
    prop::collection::vec(atom(), 1..4).prop_map(|atoms| atoms.join(" || "))
}

/// Where the loop sits.
fn context() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "R.exists(v, P)",
        "R.all(v, P)",
        "!R.exists(v, P)",
        "!R.all(v, P)",
        "R.exists(v, P) || true",
        "R.exists(v, P) && false",
        "R.exists_one(v, P)",
        "R.filter(v, P)",
        "[R].exists(w, w.exists(v, P))",
        "[1, 2].exists(w, R.all(v, P))",
        "R.exists(v, !(P))",
        "[{'a': R}].exists(w, w.a.exists(v, P))",
        "[{'a': R}].all(w, has(w.a) && w.a.filter(v, P) == w.a)",
        "R.exists(v, [v].exists(v, P))",
        "R.map(v, [v]).exists(v, v.all(v, P))",
        "s.shellCommands().exists(w, w.args.exists(v, P) || w.flags.all(v, P))",
        "s.shellCommands().exists(w, w.args.filter(v, P).map(v, v.normalizedPath(project_root)) == [R])",
        "s.shellCommands().all(w, w.args.map(v, v.lowerAscii()).exists(v, P) && R.all(v, P))",
    ])
}

/// `shape` with the whole words `R` and `P` replaced.
fn fill(shape: &str, range: &str, predicate: &str) -> String {
    let chars: Vec<char> = shape.chars().collect();
    let word = |i: usize| {
        chars
            .get(i)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
    };
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        match c {
            'R' if !word(i.wrapping_sub(1)) && !word(i + 1) => out.push_str(range),
            'P' if !word(i.wrapping_sub(1)) && !word(i + 1) => out.push_str(predicate),
            c => out.push(*c),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn rewritten_and_written_conditions_agree(
        (range, payload) in range(),
        predicate in predicate(),
        shape in context(),
    ) {
        let source = fill(shape, &range, &predicate);
        // A payload name spelled like a loop variable's field must not be
        // what `v.a` reads.
        let mut payload = payload;
        if let Some(fields) = payload.as_object_mut() {
            fields.insert("v.a".into(), json!(1));
            fields.insert("w.a".into(), json!(["a"]));
            fields.insert("s".into(), json!("git -f --force a b && A -- é 1 && true"));
        }
        let (folded, rewritten) = both(&source);
        prop_assert_eq!(eval(&folded, &payload), eval(&rewritten, &payload), "{} on {}", source, payload);
    }
}

// ---- the shipped packs ---------------------------------------------------

#[test]
fn every_shipped_condition_decides_alike_on_the_packs_test_payloads() {
    let conditions = shipped_conditions();
    let payloads = test_payloads();
    assert!(payloads.len() >= 500, "{} payloads", payloads.len());
    let (mut evaluations, mut rewritten_rules) = (0, 0);
    for (id, hooks, source) in &conditions {
        let (folded, rewritten) = both(source);
        if folded != rewritten {
            rewritten_rules += 1;
        }
        for (case_hook, payload) in payloads.iter().filter(|(h, _)| hooks.contains(h)) {
            let resolver = PayloadResolver {
                payload,
                hook: case_hook,
                harness: "chibi",
                project_root: "/home/user/project",
            };
            let a = crate::expr::evaluate_bool_by_cel(&folded, &resolver);
            let b = crate::expr::evaluate_bool_by_cel(&rewritten, &resolver);
            assert_eq!(a, b, "{id} on {payload}");
            evaluations += 1;
        }
    }
    assert!(evaluations >= 5_000, "{evaluations} evaluations");
    assert!(rewritten_rules >= 60, "{rewritten_rules} rules rewritten");
}

/// The predicate of a loop, in outline: the loop variable is `v`, string
/// literals `S`, constant string lists `SET`, other loops `LOOP`.
fn outline(e: &IdedExpr, var: &str) -> String {
    match &e.expr {
        Expr::Ident(n) if n == var => "v".into(),
        Expr::Ident(n) => n.clone(),
        Expr::Literal(LiteralValue::String(_)) => "S".into(),
        Expr::Literal(LiteralValue::Int(_)) => "N".into(),
        Expr::Literal(_) => "LIT".into(),
        Expr::Select(s) if s.test => format!("has({}.{})", outline(&s.operand, var), s.field),
        Expr::Select(s) => format!("{}.{}", outline(&s.operand, var), s.field),
        Expr::Comprehension(_) => "LOOP".into(),
        Expr::List(_) => "[..]".into(),
        Expr::Map(_) | Expr::Struct(_) | Expr::Unspecified => "{..}".into(),
        Expr::Call(c) => {
            if const_sets::string_membership(e).is_some() {
                return format!("{} in SET", outline(&c.args[0], var));
            }
            let args: Vec<String> = c.args.iter().map(|a| outline(a, var)).collect();
            match (c.func_name.as_str(), &c.target, args.as_slice()) {
                (operators::LOGICAL_OR, None, [a, b]) => format!("({a} || {b})"),
                (operators::LOGICAL_AND, None, [a, b]) => format!("({a} && {b})"),
                (operators::LOGICAL_NOT, None, [a]) => format!("!{a}"),
                (f, None, [a, b]) if f.starts_with('_') => {
                    format!("{a} {} {b}", f.trim_matches('_'))
                }
                (f, Some(t), _) => format!("{}.{f}({})", outline(t, var), args.join(", ")),
                (f, None, _) => format!("{f}({})", args.join(", ")),
            }
        }
    }
}

/// Which macro a comprehension came from.
fn macro_of(c: &ComprehensionExpr) -> &'static str {
    match (&c.accu_init.expr, &c.loop_step.expr) {
        (Expr::Literal(LiteralValue::Boolean(b)), _) if !*b.inner() => "exists",
        (Expr::Literal(LiteralValue::Boolean(_)), _) => "all",
        (Expr::Literal(LiteralValue::Int(_)), _) => "exists_one",
        (Expr::List(_), Expr::Call(s)) if s.func_name == operators::CONDITIONAL => "filter",
        _ => "map",
    }
}

/// The tally of loop predicates in the shipped conditions (print it with
/// `cargo test --lib native_loops::tests::tally -- --nocapture`), and the
/// check that every membership loop among them is made native.
#[test]
fn tally_of_shipped_loop_shapes() {
    let mut shapes: BTreeMap<String, usize> = BTreeMap::new();
    let (mut membership, mut native) = (0, 0);
    for (_, _, source) in shipped_conditions() {
        let (folded, rewritten) = both(&source);
        crate::expr::ast::visit(&folded, &mut |node| {
            if let Expr::Comprehension(c) = &node.expr {
                let kind = macro_of(c);
                let predicate = match (&c.loop_step.expr, kind) {
                    (Expr::Call(s), "exists" | "all") => &s.args[1],
                    (Expr::Call(s), "exists_one" | "filter") => &s.args[0],
                    _ => &c.loop_step,
                };
                *shapes
                    .entry(format!("{kind}: {}", outline(predicate, &c.iter_var)))
                    .or_default() += 1;
                if membership_loop(c).is_some() {
                    membership += 1;
                }
            }
        });
        native += natives(&rewritten);
    }
    let mut by_count: Vec<_> = shapes.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (shape, n) in &by_count {
        println!("{n:5}  {shape}");
    }
    println!("{membership} membership loops, {native} made native");
    assert_eq!(membership, native);
    assert!(native >= 100, "{native}");
}
