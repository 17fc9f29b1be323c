//! The CEL environment built for only what a condition names
//! (src/expr/environment.rs) evaluates it exactly as the full environment:
//! every condition of the shipped packs and policies, on the payloads of
//! their tests and of the corpora, gives the same value or the same error;
//! random expressions over every function do too; and a condition calling a
//! function no library declares still fails as before, through the CLI.

mod common;
mod corpus_support;

use hook_policy::expr::environment::{fresh, needs, Needs};
use hook_policy::expr::{env, evaluate_bool_in, evaluate_in, parse_fast, PayloadResolver};
use proptest::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const SHIPPED: [&str; 3] = ["packs", "policies", "examples/policies"];

/// The environment `needs` asks for, one per set of libraries.
#[derive(Default)]
struct Environments(HashMap<u64, Arc<cel::Env>>);

impl Environments {
    fn for_needs(&mut self, needs: Needs) -> Arc<cel::Env> {
        match needs {
            Needs::Everything => env().clone(),
            Needs::Libraries(bits) => self
                .0
                .entry(bits)
                .or_insert_with(|| Arc::new(fresh(bits)))
                .clone(),
        }
    }
}

/// Payloads by hook: the chibi cases of every shipped test file, and the
/// corpora's command lines, URLs and paths at the hooks that take them.
fn payloads() -> HashMap<String, Vec<Json>> {
    let mut by_hook: HashMap<String, Vec<Json>> = HashMap::new();
    for dir in SHIPPED {
        for entry in std::fs::read_dir(repo().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".test.yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let file: hook_policy::testing::TestFile =
                serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for case in file.tests {
                if let (Some(hook), Some(payload)) = (case.hook, case.payload) {
                    if case.harness.is_none() {
                        by_hook.entry(hook).or_default().push(payload);
                    }
                }
            }
        }
    }
    let mut add = |hook: &str, payload: Json| by_hook.entry(hook.into()).or_default().push(payload);
    for corpus in ["shell.tsv", "benign.tsv", "dangerous.tsv"] {
        for line in last_fields(corpus) {
            add(
                "pre_shell_exec",
                json!({"tool_name": "shell_exec", "command": line}),
            );
            add(
                "pre_tool",
                json!({"tool_name": "shell_exec", "arguments": {"command": line}}),
            );
        }
    }
    for corpus in ["urls.tsv", "pack_urls.tsv"] {
        for url in last_fields(corpus) {
            add(
                "pre_fetch_url",
                json!({"tool_name": "fetch_url", "url": url}),
            );
        }
    }
    for corpus in ["paths.tsv", "secret_paths.tsv"] {
        for path in last_fields(corpus) {
            add(
                "pre_file_read",
                json!({"tool_name": "file_read", "path": path}),
            );
            add(
                "pre_file_write",
                json!({"tool_name": "write_file", "path": path, "content": "x"}),
            );
        }
    }
    by_hook
}

/// The last field of each line of a corpus: the command, URL or path.
fn last_fields(corpus: &str) -> Vec<String> {
    let text = std::fs::read_to_string(corpus_support::corpus_path(corpus)).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            l.split('\t')
                .rfind(|f| !f.starts_with("gap:"))
                .map(corpus_support::decode)
        })
        .collect()
}

#[test]
fn every_shipped_condition_evaluates_alike_in_the_environment_it_names() {
    let paths: Vec<PathBuf> = SHIPPED.iter().map(|d| repo().join(d)).collect();
    let (set, diags) = hook_policy::load::load(&paths);
    assert!(diags.is_empty(), "{diags:?}");
    let payloads = payloads();
    let mut environments = Environments::default();
    let (mut evaluations, mut errors, mut minimal) = (0, 0, 0);
    for hook in hook_policy::catalogue::hook_names() {
        let (policy, _) = hook_policy::compile::compile(&set, Some(hook));
        let conditions: Vec<_> = policy
            .rules
            .iter()
            .filter_map(|r| r.when.as_ref())
            .collect();
        for payload in payloads.get(hook).into_iter().flatten() {
            let resolver = PayloadResolver {
                payload,
                hook,
                harness: "chibi",
                project_root: "/proj",
            };
            for condition in &conditions {
                let needed = needs(&condition.expr);
                minimal += usize::from(needed != Needs::Everything);
                let small = environments.for_needs(needed);
                let by_full = evaluate_bool_in(env().clone(), &condition.expr, &resolver);
                let by_small = evaluate_bool_in(small, &condition.expr, &resolver);
                assert_eq!(
                    by_small, by_full,
                    "{hook}: `{}` on {payload}",
                    condition.source
                );
                evaluations += 1;
                errors += usize::from(by_full.is_err());
            }
        }
    }
    assert!(evaluations > 10_000, "{evaluations} evaluations");
    // Most conditions need less than everything.
    assert!(minimal * 10 > evaluations * 9, "{minimal} of {evaluations}");
    eprintln!("{evaluations} evaluations, {minimal} in a smaller environment, {errors} errors");
}

/// Every function name some library declares, and a few none does.
const FUNCTIONS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "dyn",
    "hasValue",
    "int",
    "or",
    "orValue",
    "string",
    "type",
    "uint",
    "value",
    "contains",
    "endsWith",
    "size",
    "startsWith",
    "charAt",
    "format",
    "indexOf",
    "join",
    "lastIndexOf",
    "lowerAscii",
    "replace",
    "reverse",
    "split",
    "substring",
    "trim",
    "upperAscii",
    "distinct",
    "flatten",
    "slice",
    "sort",
    "shellCommands",
    "shellOpaque",
    "runs",
    "runsWith",
    "urlClass",
    "urlHost",
    "isInternalUrl",
    "hostMatches",
    "normalizedPath",
    "isWithin",
    "pathMatches",
    "matches",
    "frobnicate",
    "sizes",
];

/// A value of any kind, payload fields and type names included.
fn value() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "1",
        "-2",
        "3u",
        "2.5",
        "''",
        "'Ab c'",
        "'rm -rf /'",
        "'/etc/passwd'",
        "'http://127.0.0.1/'",
        "'a,b'",
        "b'xy'",
        "true",
        "null",
        "[]",
        "['a', 'B']",
        "[1, 'a']",
        "{}",
        "{'k': 1}",
        "command",
        "path",
        "url",
        "nums",
        "missing",
        "payload",
        "int",
        "string",
        "list",
        "type",
        "optional.of(1)",
        "optional.none()",
        "strings.quote('q')",
        "lists.range(3)",
        "project_root",
    ])
    .prop_map(str::to_string);
    leaf.prop_recursive(3, 24, 3, |inner| {
        let call = (
            prop::sample::select(FUNCTIONS.to_vec()),
            prop::collection::vec(inner.clone(), 0..4),
            any::<bool>(),
        )
            .prop_map(|(f, args, member)| match (member, args.split_first()) {
                (true, Some((target, rest))) => format!("({target}).{f}({})", rest.join(", ")),
                _ => format!("{f}({})", args.join(", ")),
            });
        prop_oneof![
            3 => call,
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} == {b}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} in {b}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("[{a}, {b}]")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})[{b}]")),
            1 => (inner.clone(), inner)
                .prop_map(|(a, b)| format!("({a}).exists(x, x == {b})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    /// Random expressions over every function, with arguments of every
    /// kind: the environment they name gives what the full one gives.
    #[test]
    fn random_calls_evaluate_alike_in_the_environment_they_name(source in value()) {
        let Ok(expr) = parse_fast(&source) else { return Ok(()) };
        let payload = json!({"command": "sudo rm -rf /srv", "path": "a/../.env",
            "url": "http://10.0.0.1/x", "nums": [3, 1, 2]});
        let resolver = PayloadResolver {
            payload: &payload,
            hook: "pre_tool",
            harness: "chibi",
            project_root: "/proj",
        };
        let small = Environments::default().for_needs(needs(&expr));
        prop_assert_eq!(
            evaluate_in(small, &expr, &resolver),
            evaluate_in(env().clone(), &expr, &resolver),
            "{}", source
        );
    }
}

/// A condition calling a function no library declares fails as it always
/// did (the hook's failure mode decides: `pre_shell_exec` fails closed),
/// and a type name still resolves, through the real CLI: the plugin's first
/// call (which compiles the policy), its cached calls (stored trees, only
/// the libraries the conditions name) and `policy eval` (the full
/// environment) all reply alike.
#[test]
fn an_unknown_function_fails_as_before_through_the_cli() {
    let dir = common::TempDir::new("cel-environment");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n\
         \x20 - id: unknown-fn\n    hook: pre_shell_exec\n    when: command.frobnicate() || command.startsWith('x')\n    deny: unknown\n\
         \x20 - id: type-name\n    hook: pre_shell_exec\n    when: size(command) == 2 && command.lowerAscii() == 'ls'\n    deny: typed\n",
    );
    // The plugin caches only policies older than two seconds.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&policy)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let home = common::ChibiHome::install(&[&policy]);
    // `LS` matches the second rule; `x` the first, whose error `||`
    // absorbs; for anything else the first rule fails: fail closed.
    for (command, reason) in [
        ("LS", "typed [hook-policy rule: type-name]"),
        ("x", "unknown [hook-policy rule: unknown-fn]"),
        ("cargo test", "hook-policy could not decide, so it denies (fail closed): a rule failed at run time: rule `unknown-fn`: `frobnicate` is not in the payload"),
    ] {
        let payload = json!({"tool_name": "shell_exec", "command": command});
        let replies: Vec<Json> = (0..3).map(|_| home.reply("pre_shell_exec", &payload)).collect();
        let evaluated = common::policy(
            &[
                "eval",
                "--policy",
                policy.to_str().unwrap(),
                "--hook",
                "pre_shell_exec",
            ],
            payload.to_string().as_bytes(),
        );
        let reply = &replies[0];
        assert_eq!(reply["denied"], json!(true), "{command}: {reply}");
        assert!(reply["reason"].as_str().unwrap().starts_with(reason), "{command}: {reply}");
        assert!(replies.iter().all(|r| r == reply), "{replies:?}");
        assert_eq!(&common::stdout_json(&evaluated), reply, "{command}");
    }
}

/// `split` and `substring`, registered alone for conditions that call them
/// without the rest of the strings extension, give the extension's values
/// and errors on every small limit and range, Unicode text included.
#[test]
fn split_and_substring_alone_evaluate_as_the_extension() {
    let payload = json!({});
    let resolver = PayloadResolver {
        payload: &payload,
        hook: "pre_tool",
        harness: "chibi",
        project_root: "/proj",
    };
    let texts = ["", "a", "a,b", ",a,,b,", "ÀbÇ", "héllo wörld", "aaa"];
    let mut sources = Vec::new();
    for text in texts {
        for separator in ["", ",", "a", "ö", "xyz"] {
            sources.push(format!("'{text}'.split('{separator}')"));
            for limit in -2..=4 {
                sources.push(format!("'{text}'.split('{separator}', {limit})"));
            }
        }
        for start in -1..=12 {
            sources.push(format!("'{text}'.substring({start})"));
            for end in -1..=12 {
                sources.push(format!("'{text}'.substring({start}, {end})"));
            }
        }
    }
    let mut environments = Environments::default();
    let mut errors = 0;
    for source in &sources {
        let expr = parse_fast(source).unwrap();
        let needed = needs(&expr);
        assert!(
            matches!(needed, Needs::Libraries(bits) if bits.count_ones() == 1),
            "{source} needs {needed:?}"
        );
        let full = evaluate_in(env().clone(), &expr, &resolver);
        let alone = evaluate_in(environments.for_needs(needed), &expr, &resolver);
        assert_eq!(alone, full, "{source}");
        errors += usize::from(full.is_err());
    }
    // Out-of-range indices are most of the ranges tried; both kinds abound.
    assert!(
        errors > 500 && sources.len() - errors > 400,
        "{errors} errors"
    );
}
