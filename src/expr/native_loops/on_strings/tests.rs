//! A loop over strings run natively must give what the loop as written
//! gives: the same value or the same error, for every range, inside every
//! construct. Checked on hand-picked cases, on random ranges and
//! predicates, and on every shipped condition with the packs' test
//! payloads and the corpora's command lines.

use super::super::rewrite_loops;
use super::*;
use crate::expr::{evaluate, parse_fast, strip_ids, EvalError, PayloadResolver};
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

/// The tree with lists folded (as conditions were evaluated before any
/// loop rewrite), and rewritten.
fn both(source: &str) -> (IdedExpr, IdedExpr) {
    let mut folded = parse_fast(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    const_sets::fold_constant_lists(&mut folded);
    let mut rewritten = folded.clone();
    rewrite_loops(&mut rewritten);
    (folded, rewritten)
}

/// How many loops were made native over strings.
fn natives(expr: &IdedExpr) -> usize {
    let mut n = 0;
    crate::expr::ast::visit(expr, &mut |node| {
        if matches!(&node.expr, Expr::Call(c) if c.func_name == STRINGS_ONLY) {
            n += 1;
        }
    });
    n
}

fn same(source: &str, payload: &Json) -> Result<Json, EvalError> {
    let (folded, rewritten) = both(source);
    let a = eval(&folded, payload);
    assert_eq!(a, eval(&rewritten, payload), "{source} on {payload}");
    a
}

const SUFFIXES: &str = "!(a.lowerAscii().endsWith('example') || a.lowerAscii().endsWith('sample') || a.lowerAscii().endsWith('.pub'))";

#[test]
fn loops_over_strings_become_native_and_answer_as_written() {
    let p = json!({
        "args": ["-n", "TODO", "src", ".env.Example", "ID_RSA.PUB", "if=/x", "é.PUB"],
        "none": [], "ints": [1, 2], "mixed": ["a", 1, null], "nested": [["a"]],
        "m": {"a": 1, "-b": 2}, "s": "abc", "n": 3,
        "cmd": "grep -rn TODO src .env | head -20",
    });
    let filter = format!("args.filter(a, !a.startsWith('-') && {SUFFIXES})");
    let cases: Vec<(String, Result<Json, ()>)> = vec![
        (filter.clone(), Ok(json!(["TODO", "src", "if=/x"]))),
        ("args.filter(a, a == 'src' || 'TODO' == a)".into(), Ok(json!(["TODO", "src"]))),
        ("args.filter(a, a != 'src' && a.contains('O'))".into(), Ok(json!(["TODO"]))),
        ("args.filter(a, a.lowerAscii() in ['todo', 'src'])".into(), Ok(json!(["TODO", "src"]))),
        ("args.filter(a, a.lowerAscii().lowerAscii() == 'todo')".into(), Ok(json!(["TODO"]))),
        ("args.filter(a, a.lowerAscii().endsWith('.pub'))".into(), Ok(json!(["ID_RSA.PUB", "é.PUB"]))),
        // lowerAscii leaves other letters alone.
        ("args.filter(a, a.lowerAscii().startsWith('é.p'))".into(), Ok(json!(["é.PUB"]))),
        ("args.exists(a, !a.startsWith('-') && a.endsWith('.env'))".into(), Ok(json!(false))),
        ("args.exists(a, a.startsWith('if='))".into(), Ok(json!(true))),
        ("args.all(a, !a.startsWith('/'))".into(), Ok(json!(true))),
        ("args.all(a, a.startsWith('-'))".into(), Ok(json!(false))),
        ("none.filter(a, a.startsWith('-'))".into(), Ok(json!([]))),
        ("none.exists(a, a.startsWith('-'))".into(), Ok(json!(false))),
        ("none.all(a, a.startsWith('-'))".into(), Ok(json!(true))),
        // Not lists of strings: the loop as written, errors included.
        ("ints.filter(a, a.startsWith('-'))".into(), Err(())),
        ("ints.exists(a, a == 'x' || a.endsWith('x'))".into(), Err(())),
        ("mixed.exists(a, a.startsWith('a'))".into(), Ok(json!(true))),
        ("mixed.all(a, a.startsWith('a'))".into(), Err(())),
        ("mixed.filter(a, a == 'a' || a.startsWith('a'))".into(), Err(())),
        ("nested.filter(a, a.startsWith('a'))".into(), Err(())),
        ("m.filter(k, !k.startsWith('-'))".into(), Ok(json!(["a"]))),
        ("m.exists(k, k.startsWith('-'))".into(), Ok(json!(true))),
        ("s.filter(a, a.startsWith('a'))".into(), Err(())),
        ("n.exists(a, a.startsWith('a'))".into(), Err(())),
        ("missing.filter(a, a.startsWith('a'))".into(), Err(())),
        ("args.nope.all(a, a.startsWith('a'))".into(), Err(())),
        ("missing.exists(a, a.startsWith('a')) || true".into(), Ok(json!(true))),
        ("!args.exists(a, a.endsWith('.env'))".into(), Ok(json!(true))),
        // In the packs' places: the arguments of each command of the line.
        (
            format!("cmd.shellCommands().exists(c, c.program in ['grep', 'head'] && c.args.filter(a, !a.startsWith('-') && {SUFFIXES}).join('\\n').matches('(?m)(^|/)\\\\.env$'))"),
            Ok(json!(true)),
        ),
        (
            "cmd.shellCommands().exists(c, c.program == 'head' && c.args.exists(a, !a.startsWith('-') && !a.startsWith('/')))".into(),
            Ok(json!(false)),
        ),
        (
            format!("cmd.shellCommands().exists(c, c.args.filter(a, {SUFFIXES}).exists(b, b == 'src'))"),
            Ok(json!(true)),
        ),
    ];
    for (source, want) in &cases {
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
fn other_loops_stay_as_written() {
    let p = json!({"args": ["a", "b"], "x": "a", "l": [["a"]]});
    for source in [
        // The predicate reads something besides the string and literals.
        "args.filter(a, a.startsWith(x))",
        "args.filter(a, a == x)",
        "args.exists(a, size(a) > 1)",
        "args.filter(a, a.substring(1) == '')",
        "args.filter(a, a.normalizedPath('/') == '/a')",
        "args.filter(a, a.startsWith('a') && x == 'a')",
        "args.filter(a, a.matches('a'))",
        "args.filter(a, a.upperAscii() == 'A')",
        "args.filter(a, a in ['a', 1])",
        "args.filter(a, 'a'.startsWith(a))",
        "args.filter(a, a.startsWith('a') ? true : false)",
        "args.exists_one(a, a.startsWith('a'))",
        "args.map(a, a.startsWith('a'))",
        // A range that is not a name or its fields (evaluated once only).
        "['a', 'b'].filter(a, a.startsWith('a'))",
        "args.filter(a, a.startsWith('a')).exists(b, b.startsWith('a'))",
        "l[0].exists(a, a.startsWith('a'))",
        // Membership loops have their own native form.
        "args.exists(a, a in ['a', 'c'])",
    ] {
        let (_, r) = both(source);
        let inner_native = source.starts_with("args.filter(a, a.startsWith('a')).exists");
        assert_eq!(natives(&r), usize::from(inner_native), "{source}");
        same(source, &p).unwrap_or_else(|e| panic!("{source}: {e}"));
    }
}

#[test]
fn rewriting_twice_is_rewriting_once() {
    for source in [
        &format!("cmd.shellCommands().exists(c, c.program == 'cat' && c.args.filter(a, !a.startsWith('-') && {SUFFIXES}).exists(p, p.endsWith('x')))"),
        "!l.exists(x, x.startsWith('a')) && l.all(x, x != 'b')",
        "l.filter(x, x != '').map(x, x.startsWith('if=') ? x.substring(3) : x).map(p, p.normalizedPath(project_root))",
    ] {
        let (_, once) = both(source);
        let mut twice = once.clone();
        rewrite_loops(&mut twice);
        assert_eq!(strip_ids(&once), strip_ids(&twice), "{source}");
        assert_eq!(once, twice, "{source}");
    }
}

#[test]
fn source_cannot_call_the_natives() {
    for f in FUNCTIONS {
        assert!(parse_fast(&format!("{f}(x, b'')")).is_err(), "{f}");
    }
}

#[test]
fn a_damaged_program_is_an_error_not_a_panic() {
    let (_, good) = both("l.filter(x, x.startsWith('a') || x.lowerAscii() in ['b'])");
    let with = |program: Vec<u8>| {
        let mut e = good.clone();
        let Expr::Call(c) = &mut e.expr else { panic!() };
        let Expr::Call(native) = &mut c.args[1].expr else {
            panic!()
        };
        native.args[1].expr = Expr::Literal(LiteralValue::Bytes(CelBytes::from(program)));
        e
    };
    let Expr::Call(c) = &good.expr else { panic!() };
    let Expr::Call(native) = &c.args[1].expr else {
        panic!()
    };
    let Expr::Literal(LiteralValue::Bytes(program)) = &native.args[1].expr else {
        panic!()
    };
    let program = program.inner().to_vec();
    let p = json!({"l": ["b", "a"]});
    assert_eq!(eval(&with(program.clone()), &p), Ok(json!(["b", "a"])));
    let mut damaged = vec![
        Vec::new(),
        vec![9],
        vec![NOT; 100],
        vec![TEST, 9, 0, 0, 0, 0, 0],
    ];
    for cut in 1..program.len() {
        damaged.push(program[..cut].to_vec());
    }
    let mut longer = program.clone();
    longer.push(0);
    damaged.push(longer);
    let mut odd = program.clone();
    odd[3] = 0xff;
    damaged.push(odd);
    for program in damaged {
        let got = eval(&with(program.clone()), &p);
        assert!(
            matches!(&got, Err(e) if e.0.contains("damaged string program")),
            "{program:?}: {got:?}"
        );
    }
}

// ---- random ranges and predicates ----------------------------------------

fn pool() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a", "A", "", "-", "-f", "--x", "ab", "Ab", "bA", ".env", ".ENV", "x.pub", "X.PUB", "é",
        "É", "e\u{301}", "\u{0}", "if=", "if=a", "1",
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
        8 => pool().prop_map(Json::from),
        1 => prop::sample::select(vec![json!(1), json!(-1), json!(1.5), json!(true),
            json!(null), json!(["a"]), json!({"a": 1}), json!([])]),
    ]
}

/// The range looped over: a payload field of any kind, or one that fails.
fn range() -> impl Strategy<Value = (String, Json)> {
    prop_oneof![
        8 => prop::collection::vec(element(), 0..6).prop_map(|l| ("r".to_string(), json!({"r": l}))),
        1 => prop::collection::btree_map(pool(), Just(1), 0..4)
            .prop_map(|m| ("r".to_string(), json!({"r": m}))),
        1 => element().prop_map(|e| ("r".to_string(), json!({"r": e}))),
        1 => prop::collection::vec(element(), 0..4).prop_map(|l| ("o.r".to_string(), json!({"o": {"r": l}}))),
        1 => prop::sample::select(vec!["missing", "r.nope", "o.missing"])
            .prop_map(|e| (e.to_string(), json!({"r": ["a"], "o": {}}))),
    ]
}

/// The string tested: the loop variable, or its lowercase form.
fn subject() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "v",
        "v",
        "v.lowerAscii()",
        "v.lowerAscii().lowerAscii()",
    ])
}

/// One test of `v`: the shapes made native, and some that are not.
fn atom() -> impl Strategy<Value = String> {
    let list = prop::collection::vec(pool(), 0..4).prop_map(|l| {
        l.iter()
            .map(|s| cel_string(s))
            .collect::<Vec<_>>()
            .join(", ")
    });
    prop_oneof![
        3 => (subject(), prop::sample::select(vec!["startsWith", "endsWith", "contains"]), pool())
            .prop_map(|(s, f, lit)| format!("{s}.{f}({})", cel_string(&lit))),
        2 => (subject(), prop::sample::select(vec!["==", "!="]), pool(), any::<bool>())
            .prop_map(|(s, op, lit, flip)| if flip {
                format!("{} {op} {s}", cel_string(&lit))
            } else {
                format!("{s} {op} {}", cel_string(&lit))
            }),
        2 => (subject(), list).prop_map(|(s, l)| format!("{s} in [{l}]")),
        1 => Just("v in ['a', 1]".to_string()),
        1 => Just("size(v) > 1".to_string()),
        1 => Just("v == 1".to_string()),
        1 => Just("true".to_string()),
    ]
}

/// A predicate: atoms joined by `&&`, `||` and `!`.
fn predicate() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} || {b})")),
            inner.prop_map(|a| format!("!({a})")),
        ]
    })
}

/// Where the loop sits.
fn context() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "R.filter(v, P)",
        "R.exists(v, P)",
        "R.all(v, P)",
        "!R.exists(v, P)",
        "R.exists(v, P) || true",
        "R.all(v, P) && false",
        "R.filter(v, P).size()",
        "R.filter(v, P).join(',')",
        "R.filter(v, P).map(w, w + '!')",
        "[1, 2].exists(w, R.all(v, P))",
        "R.exists(v, !(P))",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn native_and_written_loops_agree(
        (range, payload) in range(),
        predicate in predicate(),
        shape in context(),
    ) {
        let source = shape.replace('R', &range).replace('P', &predicate);
        let (folded, rewritten) = both(&source);
        prop_assert_eq!(eval(&folded, &payload), eval(&rewritten, &payload), "{} on {}", source, payload);
    }
}

// ---- the shipped conditions ------------------------------------------------

use crate::expr::shipped_conditions::{repo, shipped_conditions};

/// Every shell rule condition of the packs and policies/ that has a loop
/// made native here: (id, tree with lists folded, tree rewritten).
fn rewritten_shell_conditions() -> Vec<(String, IdedExpr, IdedExpr)> {
    shipped_conditions()
        .into_iter()
        .filter(|(_, hooks, _)| hooks.iter().any(|h| h == "pre_shell_exec"))
        .filter_map(|(id, _, source)| {
            let (folded, rewritten) = both(&source);
            (natives(&rewritten) > 0).then_some((id, folded, rewritten))
        })
        .collect()
}

/// The command lines of the corpora (every field of every line: any
/// string is a fair input).
fn corpus_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for name in [
        "benign.tsv",
        "dangerous.tsv",
        "shell.tsv",
        "secret_paths.tsv",
    ] {
        let text = std::fs::read_to_string(repo().join("tests/corpora").join(name)).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            lines.extend(line.split('\t').filter(|f| f.len() > 2).map(str::to_string));
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

#[test]
fn shipped_conditions_decide_alike_on_the_corpora() {
    let conditions = rewritten_shell_conditions();
    let ids: Vec<&str> = conditions.iter().map(|(id, _, _)| id.as_str()).collect();
    for id in ["secrets.read-secret-file", "secrets.read-secret-file-git"] {
        assert!(ids.contains(&id), "{id} has no native loop: {ids:?}");
    }
    let lines = corpus_lines();
    assert!(lines.len() >= 2_000, "{} lines", lines.len());
    let mut denials = 0;
    for line in &lines {
        let payload = json!({"command": line});
        for root in ["/proj", "/home/user/project"] {
            let resolver = PayloadResolver {
                payload: &payload,
                hook: "pre_shell_exec",
                harness: "chibi",
                project_root: root,
            };
            for (id, folded, rewritten) in &conditions {
                let a = crate::expr::evaluate_bool_by_cel(folded, &resolver);
                assert_eq!(
                    a,
                    crate::expr::evaluate_bool_by_cel(rewritten, &resolver),
                    "{id} on {line}"
                );
                // As decisions evaluate it: the boolean frame, then cel.
                assert_eq!(
                    a,
                    crate::expr::evaluate_bool(rewritten, &resolver),
                    "{id} on {line}"
                );
                denials += usize::from(a == Ok(true));
            }
        }
    }
    assert!(denials >= 100, "{denials} denials");
}

// ---- maps ------------------------------------------------------------------

/// How many maps were made native.
fn native_maps(expr: &IdedExpr) -> usize {
    let mut n = 0;
    crate::expr::ast::visit(expr, &mut |node| {
        if matches!(&node.expr, Expr::Call(c) if c.func_name == MAP_STRINGS) {
            n += 1;
        }
    });
    n
}

#[test]
fn maps_over_strings_become_native_and_answer_as_written() {
    let p = json!({
        "args": ["-n", "if=/x", "if=", "src/../.env", "/h/.ssh/ID_RSA", "é/../A", "if=é"],
        "none": [], "mixed": ["a", 1], "m": {"if=a": 1}, "s": "abc",
        "cmd": "cat if=.env ~/.aws/credentials | head -2",
    });
    let chain = "args.filter(a, !a.startsWith('-')).map(a, a.startsWith('if=') ? a.substring(3) : a).map(p, p.normalizedPath(project_root))";
    let cases: Vec<(&str, Result<Json, ()>)> = vec![
        (chain, Ok(json!(["/x", "/p", "/p/.env", "/h/.ssh/ID_RSA", "/p/A", "/p/é"]))),
        ("args.map(a, a.lowerAscii())", Ok(json!(["-n", "if=/x", "if=", "src/../.env", "/h/.ssh/id_rsa", "é/../a", "if=é"]))),
        ("args.map(a, a.startsWith('if=é') ? a.substring(4) : a.lowerAscii()).filter(b, b == '')", Ok(json!([""]))),
        ("args.map(a, a.endsWith('x') ? a : 'no')", Ok(json!(["no", "if=/x", "no", "no", "no", "no", "no"]))),
        ("none.map(a, a.normalizedPath(project_root))", Ok(json!([]))),
        ("args.filter(a, a.startsWith('src')).map(a, a.normalizedPath('/r/'))", Ok(json!(["/r/.env"]))),
        ("args.map(a, '/x/../y'.normalizedPath(a))", Ok(json!(["/y", "/y", "/y", "/y", "/y", "/y", "/y"]))),
        ("args.filter(a, a.startsWith('if=')).map(a, a.startsWith('if=') ? a.substring(3) : a).join(',')", Ok(json!("/x,,é"))),
        ("args.filter(a, a.contains('.')).map(a, a.normalizedPath(project_root).lowerAscii())", Ok(json!(["/p/.env", "/h/.ssh/id_rsa", "/p/a"]))),
        // Not lists of strings: as written, errors included.
        ("mixed.map(a, a.lowerAscii())", Err(())),
        ("m.map(k, k.startsWith('if=') ? k.substring(3) : k)", Ok(json!(["a"]))),
        ("s.map(a, a.lowerAscii())", Err(())),
        ("missing.map(a, a.lowerAscii())", Err(())),
        // A root that is not a string.
        ("[1].exists(project_root, args.map(a, a.normalizedPath(project_root)) == [])", Err(())),
        ("['/r'].exists(project_root, args.filter(a, a.startsWith('src')).map(a, a.normalizedPath(project_root)) == ['/r/.env'])", Ok(json!(true))),
        ("[1].exists(project_root, none.map(a, a.normalizedPath(project_root)) == [])", Ok(json!(true))),
        (
            "cmd.shellCommands().exists(c, c.args.filter(a, !a.startsWith('-')).map(a, a.startsWith('if=') ? a.substring(3) : a).map(p, p.normalizedPath(project_root)).join('\\n').matches('(?m)/\\\\.env$'))",
            Ok(json!(true)),
        ),
    ];
    for (source, want) in &cases {
        let got = same(source, &p);
        match want {
            Ok(v) => assert_eq!(got.as_ref(), Ok(v), "{source}"),
            Err(()) => assert!(got.is_err(), "{source}: {got:?}"),
        }
    }
    // The chain is one native call from `args` (the first map's native
    // call stays inside the second map as written); maps of other shapes
    // stay loops.
    let (_, r) = both(chain);
    let Expr::Call(top) = &r.expr else {
        panic!("{chain}")
    };
    assert!(
        matches!(&top.args[1].expr, Expr::Call(native) if native.func_name == MAP_STRINGS
            && matches!(&native.args[0].expr, Expr::Ident(base) if base == "args")),
        "{chain}"
    );
    assert_eq!(native_maps(&r), 2, "{chain}");
    for source in [
        "args.map(a, a.substring(3))",
        "args.map(a, a.startsWith('if') ? a.substring(3) : a)",
        "args.map(a, a.startsWith('if=') ? a.substring(-1) : a)",
        "args.map(a, a.lowerAscii().startsWith('if=') ? a.substring(3) : a)",
        "args.map(a, a.normalizedPath(x))",
        "args.map(a, a.normalizedPath(a))",
        "args.map(a, a + 'x')",
        "args.map(a, b)",
        "args.map(a, a.startsWith('-'), a)",
        "['a'].map(a, a.lowerAscii())",
        "args.filter(a, size(a) > 1).map(a, a.lowerAscii())",
    ] {
        let (_, r) = both(source);
        assert_eq!(native_maps(&r), 0, "{source}");
    }
}

/// A function of `v` for a map: the shapes made native, and some that are not.
fn function() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => Just("v".to_string()),
        1 => Just("'lit'".to_string()),
        1 => Just("(v + '!')".to_string()),
        1 => (0..5i64).prop_map(|n| format!("v.substring({n})")),
    ];
    leaf.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| format!("{f}.lowerAscii()")),
            inner
                .clone()
                .prop_map(|f| format!("{f}.normalizedPath(project_root)")),
            (
                inner.clone(),
                prop::sample::select(vec!["/", "", "/q/../r", "~"])
            )
                .prop_map(|(f, root)| format!("{f}.normalizedPath({})", cel_string(root))),
            (atom(), inner.clone(), inner.clone())
                .prop_map(|(p, a, b)| format!("({p} ? {a} : {b})")),
            (pool(), 0..5i64, inner.clone()).prop_map(|(s, n, b)| format!(
                "(v.startsWith({}) ? v.substring({n}) : {b})",
                cel_string(&s)
            )),
        ]
    })
}

/// A chain of filters and maps over the range.
fn chain() -> impl Strategy<Value = String> {
    let stage = prop_oneof![
        1 => predicate().prop_map(|p| format!(".filter(v, {p})")),
        2 => function().prop_map(|f| format!(".map(v, {f})")),
    ];
    prop::collection::vec(stage, 1..4).prop_map(|stages| stages.concat())
}

/// Where the chain sits, and what `project_root` is there.
fn map_context() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "RC",
        "RC.join(',')",
        "RC.exists(w, w == '/p')",
        "[1].exists(project_root, RC == [])",
        "['/q/'].map(project_root, RC)",
        "size(RC) > 0 || true",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn native_and_written_maps_agree(
        (range, payload) in range(),
        chain in chain(),
        shape in map_context(),
    ) {
        let source = shape.replace('R', &range).replace('C', &chain);
        let (folded, rewritten) = both(&source);
        prop_assert_eq!(eval(&folded, &payload), eval(&rewritten, &payload), "{} on {}", source, payload);
    }
}

#[test]
fn a_damaged_map_program_is_an_error_not_a_panic() {
    let (_, good) =
        both("l.map(x, x.startsWith('if=') ? x.substring(3) : x.normalizedPath(project_root))");
    let Expr::Call(c) = &good.expr else { panic!() };
    let Expr::Call(native) = &c.args[1].expr else {
        panic!()
    };
    let Expr::Literal(LiteralValue::Bytes(program)) = &native.args[1].expr else {
        panic!()
    };
    let program = program.inner().to_vec();
    let with = |program: Vec<u8>| {
        let mut e = good.clone();
        let Expr::Call(c) = &mut e.expr else { panic!() };
        let Expr::Call(native) = &mut c.args[1].expr else {
            panic!()
        };
        native.args[1].expr = Expr::Literal(LiteralValue::Bytes(CelBytes::from(program)));
        e
    };
    let p = json!({"l": ["if=a", "b"]});
    assert_eq!(eval(&with(program.clone()), &p), Ok(json!(["a", "/p/b"])));
    let mut damaged = vec![
        vec![9],
        vec![17],
        vec![17, 99],
        [vec![17], vec![33; 100]].concat(),
    ];
    for cut in 1..program.len() {
        damaged.push(program[..cut].to_vec());
    }
    // A substring past the end of the text.
    let mut far = program.clone();
    let at = far.iter().position(|b| *b == 35).expect("a substring");
    far[at + 1] = 200;
    damaged.push(far);
    for program in damaged {
        let got = eval(&with(program.clone()), &p);
        assert!(
            matches!(&got, Err(e) if e.0.contains("damaged string program")),
            "{program:?}: {got:?}"
        );
    }
}

// ---- quantifiers over chains -------------------------------------------------

/// How many quantifiers over chains were made native.
fn native_quantifiers(expr: &IdedExpr) -> usize {
    let mut n = 0;
    crate::expr::ast::visit(expr, &mut |node| {
        if matches!(&node.expr, Expr::Call(c) if c.func_name == EXISTS_MAPPED || c.func_name == ALL_MAPPED)
        {
            n += 1;
        }
    });
    n
}

#[test]
fn quantifiers_over_chains_become_native_and_answer_as_written() {
    let p = json!({
        "args": ["-n", "if=~/.npmrc", "src/../.env", "~/.NPMRC", "/h/x"],
        "plain": ["a", "B"], "none": [], "mixed": ["a", 1], "m": {"~/.npmrc": 1}, "s": "abc",
    });
    let npmrc = "p.normalizedPath(project_root).lowerAscii() == '~/.npmrc'.normalizedPath('/').lowerAscii()";
    let chain =
        "args.filter(a, !a.startsWith('-')).map(a, a.startsWith('if=') ? a.substring(3) : a)";
    let cases: Vec<(String, Result<Json, ()>)> = vec![
        (format!("{chain}.exists(p, {npmrc})"), Ok(json!(true))),
        (format!("{chain}.all(p, {npmrc})"), Ok(json!(false))),
        (format!("{chain}.exists(p, p == 'src/../.env')"), Ok(json!(true))),
        (format!("{chain}.exists(p, p.normalizedPath(project_root) != '/p/.env')"), Ok(json!(true))),
        (format!("{chain}.all(p, p.normalizedPath(project_root) != '/p/.env')"), Ok(json!(false))),
        (format!("args.exists(p, {npmrc})"), Ok(json!(true))),
        (format!("plain.exists(p, {npmrc})"), Ok(json!(false))),
        (format!("none.all(p, {npmrc})"), Ok(json!(true))),
        ("plain.exists(p, p.lowerAscii() == 'B'.lowerAscii())".to_string(), Ok(json!(true))),
        ("plain.all(p, 'x' == 'x')".to_string(), Ok(json!(true))),
        // Not lists of strings, or the root not a string: as written.
        (format!("mixed.exists(p, {npmrc})"), Err(())),
        (format!("m.exists(p, {npmrc})"), Ok(json!(true))),
        (format!("s.exists(p, {npmrc})"), Err(())),
        (format!("missing.exists(p, {npmrc})"), Err(())),
        (format!("[1].exists(project_root, {chain}.exists(p, {npmrc}))"), Err(())),
        (format!("['/'].exists(project_root, {chain}.exists(p, p.normalizedPath(project_root) == '/.env'))"), Ok(json!(true))),
    ];
    for (source, want) in &cases {
        let got = same(source, &p);
        match want {
            Ok(v) => assert_eq!(got.as_ref(), Ok(v), "{source}"),
            Err(()) => assert!(got.is_err(), "{source}: {got:?}"),
        }
    }
    let (_, r) = both(&format!("{chain}.exists(p, {npmrc})"));
    assert_eq!(native_quantifiers(&r), 1);
    for source in [
        "args.exists(p, p.normalizedPath(x) == 'a')",
        "args.exists(p, p + 'x' == 'a')",
        "args.exists(p, size(p) == 1)",
        "args.exists(p, p.normalizedPath(project_root).matches('a'))",
        "[1, 2].map(x, 'a').exists(p, p == 'a')",
    ] {
        let (_, r) = both(source);
        assert_eq!(native_quantifiers(&r), 0, "{source}");
    }
}

/// A function of nothing but literals.
fn constant() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec!["~/.npmrc", "~", "~u/x", "/p/a", "A/../b", "", "é"])
        .prop_map(cel_string);
    leaf.prop_recursive(2, 4, 1, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| format!("{f}.lowerAscii()")),
            (
                inner.clone(),
                prop::sample::select(vec!["'/'", "'/r/'", "project_root"])
            )
                .prop_map(|(f, root)| format!("{f}.normalizedPath({root})")),
        ]
    })
}

/// The test of a quantifier: a predicate, or strings compared.
fn quantified_test() -> impl Strategy<Value = String> {
    let side = prop_oneof![2 => function(), 1 => constant()];
    prop_oneof![
        1 => predicate(),
        3 => (side.clone(), prop::sample::select(vec!["==", "!="]), side)
            .prop_map(|(f, op, g)| format!("{f} {op} {g}")),
    ]
}

fn quantifier_context() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "RC.exists(v, T)",
        "RC.all(v, T)",
        "!RC.exists(v, T)",
        "R.exists(v, T)",
        "R.all(v, T)",
        "[1].exists(project_root, RC.exists(v, T))",
        "['/q/'].all(project_root, R.all(v, T))",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn native_and_written_quantifiers_agree(
        (range, payload) in range(),
        chain in chain(),
        test in quantified_test(),
        shape in quantifier_context(),
    ) {
        let source = shape.replace('R', &range).replace('C', &chain).replace('T', &test);
        let (folded, rewritten) = both(&source);
        prop_assert_eq!(eval(&folded, &payload), eval(&rewritten, &payload), "{} on {}", source, payload);
    }
}

#[test]
fn a_damaged_quantifier_test_is_an_error_not_a_panic() {
    let (_, good) = both(
        "l.exists(p, p.normalizedPath(project_root).lowerAscii() == '~/.x'.normalizedPath('/'))",
    );
    let test_of = |e: &IdedExpr| -> Vec<u8> {
        let Expr::Call(c) = &e.expr else { panic!() };
        let Expr::Call(native) = &c.args[1].expr else {
            panic!()
        };
        assert_eq!(native.func_name, EXISTS_MAPPED);
        let Expr::Literal(LiteralValue::Bytes(program)) = &native.args[2].expr else {
            panic!()
        };
        program.inner().to_vec()
    };
    let with = |program: Vec<u8>| {
        let mut e = good.clone();
        let Expr::Call(c) = &mut e.expr else { panic!() };
        let Expr::Call(native) = &mut c.args[1].expr else {
            panic!()
        };
        native.args[2].expr = Expr::Literal(LiteralValue::Bytes(CelBytes::from(program)));
        e
    };
    let program = test_of(&good);
    let p = json!({"l": ["a", "/p/a"]});
    assert_eq!(eval(&with(program.clone()), &p), Ok(json!(false)));
    let mut damaged = vec![Vec::new(), vec![9], vec![49], vec![49, 0, 33, 33]];
    for cut in 1..program.len() {
        damaged.push(program[..cut].to_vec());
    }
    let mut longer = program.clone();
    longer.push(32);
    damaged.push(longer);
    for program in damaged {
        let got = eval(&with(program.clone()), &p);
        assert!(
            matches!(&got, Err(e) if e.0.contains("damaged string program")),
            "{program:?}: {got:?}"
        );
    }
}
