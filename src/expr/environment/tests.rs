use super::*;
use crate::expr::{evaluate_in, parse_fast, PayloadResolver};
use cel::common::ast::{CallExpr, LiteralValue};
use cel::{Context, ExecutionError, Value};
use serde_json::json;

fn parsed(source: &str) -> IdedExpr {
    let mut expr = parse_fast(source).unwrap();
    const_sets::fold_constant_lists(&mut expr);
    expr
}

fn bits_of(source: &str) -> Needs {
    needs(&parsed(source))
}

/// Whether `env` declares a function `name`, global or member: a call that
/// finds no overload is an undeclared reference only when it has none.
fn declares(env: &Arc<Env>, name: &str) -> bool {
    let call = |target: Option<Box<IdedExpr>>| IdedExpr {
        id: 1,
        expr: Expr::Call(CallExpr {
            func_name: name.to_string(),
            target,
            args: Vec::new(),
        }),
    };
    let null = IdedExpr {
        id: 2,
        expr: Expr::Literal(LiteralValue::Null),
    };
    let ctx = Context::with_env(env.clone());
    [call(None), call(Some(Box::new(null)))].iter().any(|e| {
        !matches!(
            Value::resolve_val(e, &ctx),
            Err(ExecutionError::UndeclaredReference(_))
        )
    })
}

/// Every name the table lists is declared by exactly the libraries that
/// list it (the standard library also by the names of its part), so an
/// environment of a name's libraries has all of that name's overloads.
#[test]
fn each_function_is_declared_by_exactly_the_libraries_listing_it() {
    let listed: Vec<Library> = libraries().collect();
    assert!(listed.len() <= 64, "libraries are bits of a u64");
    let names: Vec<&str> = listed
        .iter()
        .flat_map(|l| l.functions.iter().copied())
        .chain(["frobnicate", "optional.nothing"])
        .collect();
    for (i, library) in listed.iter().enumerate() {
        let alone = Arc::new(fresh(1 << i));
        for name in &names {
            let part_of_it = PARTS.iter().any(|&(whole, parts)| {
                whole == 1 << i
                    && (0..listed.len())
                        .filter(|j| parts & 1 << j != 0)
                        .any(|j| listed[j].functions.contains(name))
            });
            let listing = library.functions.contains(name) || part_of_it;
            assert_eq!(declares(&alone, name), listing, "library {i}, `{name}`");
        }
    }
    for name in &names {
        let in_table = libraries_declaring(name).is_some();
        assert_eq!(declares(crate::expr::env(), name), in_table, "`{name}`");
    }
}

/// The standard library registers the types listed, and no other library
/// registers any.
#[test]
fn only_the_standard_library_registers_types_and_these() {
    use cel::common::types::*;
    let mut listed = Env::default();
    for t in [
        BOOL_TYPE,
        BYTES_TYPE,
        DOUBLE_TYPE,
        INT_TYPE,
        LIST_TYPE,
        MAP_TYPE,
        NULL_TYPE,
        OPTIONAL_TYPE,
        STRING_TYPE,
        TYPE_TYPE,
        UINT_TYPE,
    ] {
        assert!(STDLIB_TYPES.contains(&t.name()), "{}", t.name());
        listed.add_type(t).unwrap();
    }
    assert_eq!(STDLIB_TYPES.len(), 11);
    let types = |env: &Env| format!("{:?}", env.types());
    assert_eq!(types(&Env::stdlib()), types(&listed));
    assert_eq!(types(crate::expr::env()), types(&listed));
    let all_but_stdlib = with_wholes_for_parts((1u64 << libraries().count()) - 1) & !STDLIB;
    assert_eq!(types(&fresh(all_but_stdlib)), types(&Env::default()));
}

#[test]
fn the_namespaces_are_those_of_the_qualified_functions() {
    let mut found: Vec<&str> = libraries()
        .flat_map(|l| {
            l.functions
                .iter()
                .filter_map(|f| f.split_once('.'))
                .map(|(n, _)| n)
        })
        .collect();
    found.sort();
    found.dedup();
    assert_eq!(found, NAMESPACES);
}

#[test]
fn a_condition_needs_the_libraries_of_the_names_it_calls() {
    let index = |name: &str| libraries_declaring(name).unwrap();
    assert_eq!(
        bits_of("a == b && !(c in [1]) || d[0] > -1"),
        Needs::Libraries(0)
    );
    assert_eq!(
        bits_of("command.shellCommands().exists(c, c.program in ['rm', 'rmdir'])"),
        Needs::Libraries(index("shellCommands") | index(const_sets::IN_SET))
    );
    assert_eq!(
        bits_of("command.startsWith('x') && size(command) > 2"),
        Needs::Libraries(index("startsWith") | index("size"))
    );
    // Each part is one function alone, among its whole's parts.
    for (function, parts) in [
        ("contains", STANDARD_PARTS),
        ("endsWith", STANDARD_PARTS),
        ("size", STANDARD_PARTS),
        ("startsWith", STANDARD_PARTS),
        ("join", STRINGS_PARTS),
        ("lowerAscii", STRINGS_PARTS),
        ("split", STRINGS_PARTS),
        ("substring", STRINGS_PARTS),
    ] {
        assert_eq!(index(function).count_ones(), 1, "{function}");
        assert_eq!(index(function) & !parts, 0, "{function}");
    }
    assert_eq!(
        bits_of("x.split('@')[0].substring(1)"),
        Needs::Libraries(index("split") | index("substring"))
    );
    // The whole standard library stands in for its part.
    assert_eq!(
        bits_of("command.startsWith('x') && int(command) > 2"),
        Needs::Libraries(STDLIB)
    );
    assert_eq!(bits_of("type(x) == string"), Needs::Libraries(STDLIB));
    assert_eq!(bits_of("x == int"), Needs::Libraries(STDLIB));
    assert_eq!(bits_of("optional.of(1)"), Needs::Libraries(STDLIB));
    assert_eq!(
        bits_of("strings.quote(x)"),
        Needs::Libraries(index("strings.quote"))
    );
    // Declared by both extensions: both, as in the full environment.
    let strings = libraries_declaring("trim").unwrap();
    let lists = libraries_declaring("flatten").unwrap();
    assert_eq!(bits_of("x.reverse()"), Needs::Libraries(strings | lists));
    // The strings extension stands in for its part.
    assert_eq!(
        bits_of("x.lowerAscii()"),
        Needs::Libraries(index("lowerAscii"))
    );
    assert_eq!(
        bits_of("x.lowerAscii().split('/')"),
        Needs::Libraries(index("lowerAscii") | index("split"))
    );
    assert_eq!(bits_of("x.lowerAscii().trim()"), Needs::Libraries(strings));
    // `a.matches(..)`: `a` is no namespace, so the call is the member one.
    assert_eq!(
        bits_of("a.b.matches('x')"),
        Needs::Libraries(index("matches"))
    );
    for unknown in [
        "frobnicate()",
        "x.frobnicate()",
        "[1].exists(x)",
        "strings.lowerAscii()",
        "optional.nothing()",
        "_==_(1, 2, 3)",
    ] {
        assert_eq!(bits_of(unknown), Needs::Everything, "{unknown}");
    }
}

/// Growing keeps each function's overloads in the full environment's
/// order: `reverse` is the strings extension's first, then the lists'.
#[test]
fn libraries_are_added_in_place_only_in_order() {
    let strings = libraries_declaring("trim").unwrap();
    let lists = libraries_declaring("flatten").unwrap();
    let runs = libraries_declaring("runs").unwrap();
    assert!(adds_in_order(strings, strings | lists));
    assert!(!adds_in_order(lists, strings | lists));
    assert!(adds_in_order(runs, runs | strings));
    assert!(adds_in_order(runs | lists, runs | lists | STDLIB));
}

/// Errors of the standard part and of calls the environment lacks are the
/// full environment's, word for word; so are values.
#[test]
fn values_and_errors_match_the_full_environment() {
    let payload = json!({"command": "sudo rm -rf /", "nums": [1, 2], "m": {"a": 1}});
    let resolver = PayloadResolver {
        payload: &payload,
        hook: "pre_tool",
        harness: "chibi",
        project_root: "/proj",
    };
    let mut results = Vec::new();
    for source in [
        "size(1)",
        "1.size()",
        "'a'.contains(1)",
        "command.contains('rm')",
        "command.endsWith('/')",
        "command.startsWith(1)",
        "size(command) + command.size() + size(nums) + nums.size() + size(m) + m.size()",
        "size(payload) + payload.size() + size(b'ab') + b'ab'.size()",
        "size()",
        "size(1, 2)",
        "['a', 1].join()",
        "['a', 'b'].join(1)",
        "['a', 'b'].join('-') + [].join() + nums.join(',')",
        "'x'.join()",
        "command.lowerAscii() + 'ÀB'.lowerAscii()",
        "1.lowerAscii()",
        "command.lowerAscii().size()",
        "'a@b@c'.split('@') + 'a,b,c'.split(',', 2) + 'a,b'.split(',', -3) + 'a,b'.split(',', 0)",
        "'ÀbÇ'.split('') + 'ÀbÇ'.split('', 2) + 'ÀbÇ'.split('', 1) + ''.split('') + ''.split(',')",
        "'a,b'.split(',', 9) + ',a,'.split(',') + 'aaa'.split('aa')",
        "1.split(',')",
        "'a'.split(1)",
        "'a'.split(',', 1u)",
        "'héllo'.substring(1) + 'héllo'.substring(5) + 'héllo'.substring(1, 3) + 'héllo'.substring(2, 2)",
        "'héllo'.substring(6)",
        "'héllo'.substring(-1)",
        "'héllo'.substring(3, 1)",
        "'héllo'.substring(1, 9)",
        "'héllo'.substring(-2, 1)",
        "'héllo'.substring(9, 12)",
        "'x'.substring('1')",
        "'x'.substring()",
        "x",
        "int",
        "string == type('')",
        "command.runs('rm') || nums[5]",
    ] {
        let expr = parsed(source);
        let full = evaluate_in(crate::expr::env().clone(), &expr, &resolver);
        let Needs::Libraries(wanted) = needs(&expr) else {
            panic!("{source} needs everything")
        };
        let small = evaluate_in(Arc::new(fresh(wanted)), &expr, &resolver);
        assert_eq!(small, full, "{source}");
        results.push(full);
    }
    assert!(results.iter().filter(|r| r.is_err()).count() >= 18);
}

/// The process's environment grows to what each expression needs, and
/// evaluates each as the full one does, in any order of needs.
#[test]
fn the_process_environment_grows_to_what_each_expression_needs() {
    for sources in [
        [
            "command.runs('rm')",
            "command.lowerAscii() == 'x'",
            "command.startsWith('s')",
            "int('1') == 1",
        ],
        [
            "int('1') == 1",
            "[1].flatten() == [1]",
            "command.reverse() != ''",
            "size(command) > 1",
        ],
        [
            "['a'].reverse() == ['a']",
            "command.reverse() != ''",
            "command.isWithin('/')",
            "optional.none() == optional.none()",
        ],
    ] {
        let payload = json!({"command": "sudo rm -rf /"});
        let resolver = PayloadResolver {
            payload: &payload,
            hook: "pre_tool",
            harness: "chibi",
            project_root: "/proj",
        };
        for source in sources {
            let expr = parsed(source);
            let Needs::Libraries(wanted) = needs(&expr) else {
                panic!("{source} needs everything")
            };
            let env = grown(wanted);
            assert_eq!(
                evaluate_in(env, &expr, &resolver),
                evaluate_in(crate::expr::env().clone(), &expr, &resolver),
                "{source}"
            );
        }
    }
}
