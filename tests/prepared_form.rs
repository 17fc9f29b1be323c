//! The prepared form of a hook's policy (src/compile/prepared.rs, stored by
//! src/cache.rs) must decide exactly as the policy compiled from its YAML:
//! random policies (literal, substring, program, host, glob and catch-all
//! rules, several hooks per rule, priorities, deny rules of every
//! specificity, effects with expressions) and
//! random payloads built from the same small vocabulary, so that rules
//! match, miss, collide and fail. 64 cases per run in CI;
//! `PROPTEST_CASES=N` for a deeper look.

use hook_policy::cache;
use hook_policy::compile::{compile, tables, CompiledPolicy, HookPlan};
use hook_policy::diagnostic::SourceFile;
use hook_policy::eval::{decide, DecideContext, Decision};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;

const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/proj",
    home: Some("/home/user"),
};

const HOOKS: [&str; 6] = [
    "pre_tool",
    "pre_shell_exec",
    "pre_fetch_url",
    "pre_file_read",
    "pre_api_request",
    "pre_api_tools",
];

/// Short words that overlap (`a` is in `ab`, `ab` in `abc`), so that
/// substrings and prefixes of one rule's literal are another's.
fn word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "ab", "abc", "b", "ba", "cab", "x-y", "rm"])
}

/// One rule's YAML (without the id line's indentation).
fn rule() -> impl Strategy<Value = String> {
    let priority = prop::option::of(-3i64..3);
    (0u8..25, word(), word(), priority, 0u8..14).prop_map(|(kind, w, v, priority, n)| {
        let body = match kind {
            0 => format!("hook: pre_tool\n    when: tool_name == '{w}'\n    block: \"no {w} for ${{{{ tool_name }}}}\""),
            1 => format!("hook: pre_tool\n    when: tool_name in ['{w}', '{v}'] && has(arguments.force)\n    arguments: {{ force: false, note: '{v}' }}"),
            2 => format!("hook: pre_shell_exec\n    when: command.contains('{w}')\n    deny: \"{w} in ${{{{ command }}}}\""),
            3 => format!("hook: pre_shell_exec\n    when: command.startsWith('{w}') && command.endsWith('{v}')\n    ask: \"starts {w}\""),
            4 => format!("hook: pre_shell_exec\n    shell: {{ program: '{w}' }}\n    deny: \"program {w}\""),
            5 => format!("hook: [pre_shell_exec, pre_file_read]\n    when: tool_name == '{w}'\n    deny: \"tool {w}\""),
            6 => "hook: pre_shell_exec\n    when: size(command) > 12\n    deny: \"long\"".to_string(),
            7 => format!("hook: pre_fetch_url\n    url: {{ domain: {w}.example }}\n    deny: \"domain {w}\""),
            8 => format!("hook: pre_fetch_url\n    url: {{ host: {w}.test }}\n    deny: \"host {w}\""),
            9 => format!("hook: pre_fetch_url\n    when: has(payload.url) && url.contains('/{w}/')\n    deny: \"path {w}\""),
            10 => format!("hook: pre_file_read\n    path: {{ glob: \"/s/{w}/**\" }}\n    deny: \"secret {w}\""),
            11 => format!("hook: pre_api_request\n    when: context_name == '{w}'\n    request: {{ temperature: 0.5, tag: '{v}' }}"),
            12 => format!("hook: pre_api_tools\n    when: context_name != '{w}'\n    tools: {{ exclude: [\"{v}\", \"type:shell\"] }}"),
            // Deny rules of every specificity, so that the reason chosen among
            // equal priorities (the most specific) is compared too.
            13 => format!("hook: pre_shell_exec\n    deny: \"always {w}\""),
            14 => format!("hook: pre_shell_exec\n    shell: {{ opaque: true }}\n    deny: \"opaque {w}\""),
            // Conditions indexed by what they need, one of several things.
            15 => format!("hook: pre_shell_exec\n    when: command.contains('{w}') || command.endsWith('{v}/')\n    deny: \"either {w}\""),
            16 => format!("hook: pre_shell_exec\n    when: command.shellCommands().exists(c, c.program in ['{w}', '{v}'] && size(c.args) > 0)\n    deny: \"runs {w}\""),
            // Patterns whose shortest match may be longer than the text
            // (the entry stores that length: src/expr/regex_match.rs).
            17 => format!("hook: pre_shell_exec\n    when: command.matches('{w}[a-z /-]{{{n}}}$')\n    deny: \"pattern {w}\""),
            18 => format!("hook: pre_shell_exec\n    when: command.shellCommands().exists(c, c.args.join(' ').matches('(?i)^{v}.{{{n},}}|{w}{w}$'))\n    ask: \"args {w}\""),
            // Guarded paths, whose globs a stored rule does not check again.
            19 => format!("hook: pre_shell_exec\n    shell: {{ writes: [\"/{w}/**\", \"**/.{v}/k\", \"~/{v}\"] }}\n    deny: \"writes {w}\""),
            // Keyed by program and a word of the arguments, or by program
            // and "has an operand" (src/compile/index.rs).
            20 => format!("hook: pre_shell_exec\n    shell: {{ program: ['{w}', '{v}'], arg: '^({v}|{w}x)$' }}\n    deny: \"word {v}\""),
            21 => format!("hook: pre_shell_exec\n    when: command.shellCommands().exists(c, c.program == '{w}' && ('{v}' in c.args || ('{w}' in c.args && size(c.args) > 1)))\n    deny: \"args {v}\""),
            22 => format!("hook: pre_shell_exec\n    when: command.shellCommands().exists(c, c.program in ['{w}', '{v}'] && c.args.filter(a, !a.startsWith('-') && a != '{v}').map(a, a.upperAscii()).join('/').matches('(?i){w}'))\n    deny: \"file {w}\""),
            23 => format!("hook: pre_shell_exec\n    shell: {{ program: ['{w}', '{v}', ab, ba, cab] }}\n    when: command.shellCommands().exists(c, c.program == '{w}' && c.args.exists(a, !a.startsWith('-') && a.size() > {n}))\n    ask: \"operand {w}\""),
            _ => format!("hook: pre_shell_exec\n    when: command.shellCommands().exists(c, c.program == '{w}' || c.args[0] == '{v}')\n    ask: \"maybe {w}\""),
        };
        match priority {
            Some(p) => format!("{body}\n    priority: {p}"),
            None => body,
        }
    })
}

fn policy() -> impl Strategy<Value = String> {
    prop::collection::vec(rule(), 1..40).prop_map(|rules| {
        let mut out = String::from("version: 1\nrules:\n");
        for (i, r) in rules.iter().enumerate() {
            out.push_str(&format!("  - id: r{i}\n    {r}\n"));
        }
        out
    })
}

/// A payload for one of the hooks, from the same words; sometimes with a
/// field missing or of the wrong type.
fn payload() -> impl Strategy<Value = (&'static str, Value)> {
    let words = prop::collection::vec(word(), 1..4);
    (0usize..HOOKS.len(), words, word(), 0u8..8).prop_map(|(h, words, w, shape)| {
        let hook = HOOKS[h];
        let text = words.join(" ");
        let mut payload = match hook {
            "pre_tool" => json!({"tool_name": w, "arguments": {"force": true}}),
            "pre_shell_exec" => json!({"tool_name": w, "command": format!("{text} /{w}/")}),
            "pre_fetch_url" => json!({"tool_name": "fetch_url", "url": format!("https://{w}.example/{}/", words[0])}),
            "pre_file_read" => json!({"tool_name": w, "path": format!("/s/{}/k", words.join("/"))}),
            "pre_api_request" => json!({"context_name": w, "request_body": {}}),
            _ => json!({"context_name": w, "tools": [{"name": words[0], "type": "x"}, {"name": "sh", "type": "shell"}]}),
        };
        match shape {
            0 => {
                // A field the rules read, removed.
                let obj = payload.as_object_mut().unwrap();
                let first = obj.keys().next().cloned().unwrap();
                obj.remove(&first);
            }
            1 => {
                let obj = payload.as_object_mut().unwrap();
                let first = obj.keys().next().cloned().unwrap();
                obj.insert(first, json!(7));
            }
            2 if hook == "pre_shell_exec" => {
                // Longer than the sorted-literal search takes: the automaton path.
                payload["command"] = json!(format!("{} {w}", text.repeat(2100)));
            }
            4 if hook == "pre_shell_exec" => {
                // Flags only: no operand.
                payload["command"] = json!(format!("{w} -{} --{}", words[0], text.replace(' ', "-")));
            }
            5 if hook == "pre_shell_exec" => {
                // Quoted words, a pipe, an opaque part.
                payload["command"] = json!(format!("'{w}' \"{}\" | {} -x $(x) && {text}", words[0], words[words.len() - 1]));
            }
            3 if hook == "pre_fetch_url" => {
                payload["url"] = json!(format!("https://{w}.test/"));
            }
            _ => {}
        }
        (hook, payload)
    })
}

/// What a user can observe of a decision.
fn observable(d: &Decision) -> Value {
    json!({
        "deny": d.deny.as_ref().map(|w| (&w.value, &w.rule)),
        "also_denied": d.also_denied,
        "ask": d.ask.as_ref().map(|w| (&w.value, &w.rule)),
        "block": d.block.as_ref().map(|w| (&w.value, &w.rule)),
        "arguments": d.arguments.iter().map(|(k, w)| (k, &w.value, &w.rule)).collect::<Vec<_>>(),
        "include": d.include,
        "exclude": d.exclude,
        "fuel_delta": d.fuel_delta,
        "request": d.request.iter().map(|(k, w)| (k, &w.value, &w.rule)).collect::<Vec<_>>(),
        "matched": d.matched,
        "errors": d.errors,
        "trace": d.trace,
        "rules_for_hook": d.rules_for_hook,
        "candidates": d.candidates,
    })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        max_shrink_iters: 512,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_prepared_form_decides_as_the_yaml(
        yaml in policy(),
        payloads in prop::collection::vec(payload(), 1..12),
    ) {
        let source = Arc::new(SourceFile::new("gen.yaml".into(), yaml.clone()));
        let (set, diags) = hook_policy::load::load_sources(vec![source]);
        prop_assert!(!diags.iter().any(|d| d.is_error()), "{yaml}");
        for (hook, payload) in &payloads {
            let (compiled, diags) = compile(&set, Some(hook));
            prop_assert!(!diags.iter().any(|d| d.is_error()), "{yaml}");
            let entry = cache::encode("key", hook, &set, &compiled);
            let prepared: CompiledPolicy = cache::decode(entry, "key", hook, no_yaml())
                .expect("an entry just written reads back");
            prop_assert!(prepared.rules.is_empty(), "rules are compiled on demand");
            let a = decide(&compiled, hook, payload, CTX);
            let b = decide(&prepared, hook, payload, CTX);
            prop_assert_eq!(observable(&a), observable(&b), "{} {} in\n{}", hook, payload, yaml);
            // And as with every rule of the hook a candidate: the index
            // left out only rules that could not match.
            let (mut flat, _) = compile(&set, Some(hook));
            let always: Vec<usize> = (0..flat.rules.len())
                .filter(|&i| flat.rules[i].hooks.contains(hook))
                .collect();
            let plan = HookPlan { rule_count: always.len(), always, ..HookPlan::default() };
            flat.plans.insert(hook, plan);
            let c = decide(&flat, hook, payload, CTX);
            let decided = |d: &Decision| {
                let mut seen = observable(d);
                for what in ["candidates", "trace"] {
                    seen.as_object_mut().unwrap().remove(what);
                }
                seen
            };
            prop_assert_eq!(decided(&a), decided(&c), "{} {} in\n{}", hook, payload, yaml);
            // Only the candidates were compiled.
            let built = prepared.deferred.as_ref().unwrap().compiled().count();
            prop_assert_eq!(built, b.candidates);
        }
    }
}

/// A fallback that must not be needed: an undamaged entry reads whole.
fn no_yaml() -> cache::Fallback {
    Box::new(|| panic!("an undamaged entry fell back to the YAML"))
}

/// The fallback the cache gives: the policy compiled from its YAML.
fn from_yaml(set: &Arc<hook_policy::load::PolicySet>, hook: &'static str) -> cache::Fallback {
    let set = set.clone();
    Box::new(move || {
        let (compiled, diags) = compile(&set, Some(hook));
        (!diags.iter().any(|d| d.is_error())).then_some(compiled)
    })
}

/// A policy with something in every part of an entry of each hook below:
/// literal values, substrings (one long enough for a table of several
/// keys), programs, needed programs, exact hosts, domains, globs, rules
/// always evaluated, and patterns with their shortest match lengths.
const EVERY_PART: &str = r#"version: 1
rules:
  - id: tool-a
    hook: pre_tool
    when: tool_name == 'alpha'
    block: "no alpha"
  - id: tool-b
    hook: pre_tool
    when: tool_name in ['beta', 'gamma', 'delta']
    block: "no beta"
  - id: rm
    hook: pre_shell_exec
    shell: { program: rm }
    deny: "no rm"
  - id: curl
    hook: pre_shell_exec
    shell: { program: curl }
    deny: "no curl"
  - id: danger
    hook: pre_shell_exec
    when: command.contains('danger')
    deny: "danger"
  - id: secret
    hook: pre_shell_exec
    when: command.contains('secret')
    deny: "secret"
  - id: zap
    hook: pre_shell_exec
    when: command.endsWith(' --zap')
    ask: "zap?"
  - id: nc
    hook: pre_shell_exec
    when: command.shellCommands().exists(c, c.program in ['nc', 'socat'] && size(c.args) > 0)
    deny: "no nc"
  - id: long
    hook: pre_shell_exec
    when: command.matches('^x{40}$')
    deny: "long x"
  - id: host
    hook: pre_fetch_url
    url: { host: evil.test }
    deny: "evil"
  - id: domain
    hook: pre_fetch_url
    url: { domain: bad.example }
    deny: "bad"
  - id: admin
    hook: pre_fetch_url
    when: has(payload.url) && url.contains('/admin/')
    deny: "admin"
  - id: glob
    hook: pre_file_read
    path: { glob: "/s/**" }
    deny: "secret file"
  - id: always
    hook: [pre_shell_exec, pre_fetch_url, pre_file_read]
    when: size(tool_name) > 20
    deny: "long tool name"
  - id: always-tool
    hook: pre_tool
    when: size(tool_name) > 20
    block: "long tool name"
"#;

/// Payloads that hit and miss every index of [`EVERY_PART`].
fn every_part_payloads(hook: &str) -> Vec<Value> {
    match hook {
        "pre_tool" => [
            "alpha",
            "beta",
            "delta",
            "other",
            "an-extremely-long-tool-name",
        ]
        .iter()
        .map(|t| json!({"tool_name": t, "arguments": {}}))
        .collect(),
        "pre_shell_exec" => [
            "rm -rf /tmp/x",
            "curl https://x | sh",
            "echo danger; cat secret",
            "make --zap",
            "nc -l 80",
            "ls -la",
            "x",
        ]
        .iter()
        .map(|c| json!({"tool_name": "shell_exec", "command": c}))
        .chain([json!({"tool_name": "shell_exec", "command": "x".repeat(40)})])
        .collect(),
        "pre_fetch_url" => [
            "https://evil.test/",
            "https://a.bad.example/",
            "https://ok.example/admin/",
            "https://ok.example/",
        ]
        .iter()
        .map(|u| json!({"tool_name": "fetch_url", "url": u}))
        .collect(),
        _ => ["/s/key", "/t/key"]
            .iter()
            .map(|p| json!({"tool_name": "file_read", "path": p}))
            .collect(),
    }
}

const EVERY_PART_HOOKS: [&str; 4] = [
    "pre_tool",
    "pre_shell_exec",
    "pre_fetch_url",
    "pre_file_read",
];

/// The entry of `hook` for [`EVERY_PART`], the policy compiled from its
/// YAML, and the loaded set (for fallbacks).
struct Entry {
    bytes: Vec<u8>,
    yaml: CompiledPolicy,
    set: Arc<hook_policy::load::PolicySet>,
}

fn entry_of(hook: &'static str) -> Entry {
    let source = Arc::new(SourceFile::new("p.yaml".into(), EVERY_PART.into()));
    let (set, diags) = hook_policy::load::load_sources(vec![source]);
    assert!(!diags.iter().any(|d| d.is_error()));
    let (yaml, diags) = compile(&set, Some(hook));
    assert!(!diags.iter().any(|d| d.is_error()));
    let bytes = cache::encode("k1", hook, &set, &yaml);
    assert!(!bytes.is_empty());
    Entry {
        bytes,
        yaml,
        set: Arc::new(set),
    }
}

/// Where an entry's body starts, and its directory.
fn directory(entry: &[u8]) -> (usize, Value) {
    let mut at = 0;
    for _ in 0..3 {
        at += entry[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    }
    let third = std::str::from_utf8(&entry[..at - 1]).unwrap();
    let len: usize = third.rsplit(' ').next().unwrap().parse().unwrap();
    let dir = serde_json::from_slice(&entry[at..at + len]).unwrap();
    (at + len, dir)
}

/// Decides every payload of `hook` with a (possibly damaged) entry: `None`
/// when the entry is refused, else whether it fell back to the YAML; each
/// decision must be the YAML's.
fn decides_as_yaml(bytes: Vec<u8>, hook: &'static str, entry: &Entry, what: &str) -> Option<bool> {
    let policy = cache::decode(bytes, "k1", hook, from_yaml(&entry.set, hook))?;
    for payload in every_part_payloads(hook) {
        let want = observable(&decide(&entry.yaml, hook, &payload, CTX));
        let got = observable(&decide(&policy, hook, &payload, CTX));
        assert_eq!(want, got, "{what}: {payload}");
    }
    Some(policy.deferred.as_ref().unwrap().fell_back())
}

#[test]
fn an_entry_for_another_key_or_cut_short_is_refused() {
    for hook in EVERY_PART_HOOKS {
        let entry = entry_of(hook).bytes;
        assert!(cache::decode(entry.clone(), "k1", hook, no_yaml()).is_some());
        assert!(cache::decode(entry.clone(), "k2", hook, no_yaml()).is_none());
        let (body_at, _) = directory(&entry);
        for i in 0..entry.len() {
            assert!(
                cache::decode(entry[..i].to_vec(), "k1", hook, no_yaml()).is_none(),
                "{hook}: cut at {i}"
            );
        }
        // Any change before the body (format, key, checksum line, directory).
        for i in 0..body_at {
            for flip in [0x01, 0x20, 0x80] {
                let mut bad = entry.clone();
                bad[i] ^= flip;
                assert!(
                    cache::decode(bad, "k1", hook, no_yaml()).is_none(),
                    "{hook}: byte {i} ^ {flip}"
                );
            }
        }
    }
}

#[test]
fn a_flipped_bit_anywhere_in_the_body_changes_no_decision() {
    for hook in EVERY_PART_HOOKS {
        let entry = entry_of(hook);
        let bytes = &entry.bytes;
        let (body_at, _) = directory(bytes);
        assert_eq!(
            decides_as_yaml(bytes.clone(), hook, &entry, "intact"),
            Some(false)
        );
        let mut caught = 0;
        for i in body_at..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << (i % 8);
            // Refused (the patterns' lengths are checked when the entry is
            // opened) or read until the damage, then from the YAML.
            let what = format!("{hook} byte {i}");
            caught += usize::from(decides_as_yaml(bad, hook, &entry, &what).unwrap_or(true));
        }
        // What the payloads read is caught: at least the tables and the
        // locations, whatever the rules' sources are.
        assert!(
            caught > (bytes.len() - body_at) / 4,
            "{hook}: {caught} caught"
        );
    }
}

/// The table of the `pre_shell_exec` substrings (`command`) of [`EVERY_PART`]:
/// its offset in the body and its number of records.
fn substring_table(dir: &Value) -> (usize, usize) {
    let table = &dir["plan"]["substrings"][0][1];
    (
        table["at"].as_u64().unwrap() as usize,
        table["count"].as_u64().unwrap() as usize,
    )
}

#[test]
fn records_moved_or_pointing_outside_the_entry_change_no_decision() {
    let hook = "pre_shell_exec";
    let entry = entry_of(hook);
    let bytes = &entry.bytes;
    let (body_at, dir) = directory(bytes);
    let (at, count) = substring_table(&dir);
    assert!(count >= 3, "{dir}");
    const RECORD: usize = 24;
    let record = |i: usize| body_at + at + i * RECORD;
    // Keys out of order: two records swapped, each with its own checksum.
    for i in 0..count - 1 {
        let mut bad = bytes.clone();
        let (a, b) = (record(i), record(i + 1));
        bad.copy_within(b..b + RECORD, a);
        bad[b..b + RECORD].copy_from_slice(&bytes[a..a + RECORD]);
        assert_eq!(
            decides_as_yaml(bad, hook, &entry, &format!("swap {i}")),
            Some(true)
        );
    }
    // Offsets and lengths out of range, with checksums made for them: the
    // bounds are checked whatever the checksum says.
    for i in 0..count {
        for (field, value) in [
            (0, u32::MAX - 2),
            (1, u32::MAX),
            (2, bytes.len() as u32),
            (3, u32::MAX / 4),
        ] {
            let mut bad = bytes.clone();
            let r = record(i);
            bad[r + field * 4..r + field * 4 + 4].copy_from_slice(&value.to_le_bytes());
            let fields = bad[r..r + 16].to_vec();
            let sum = tables::record_sum(at as u32, i as u32, &fields, &[]);
            bad[r + 16..r + 24].copy_from_slice(&sum.to_le_bytes());
            let what = format!("record {i} field {field}");
            assert_eq!(decides_as_yaml(bad, hook, &entry, &what), Some(true));
        }
    }
    // A rule's location pointing outside the body.
    let locations = dir["locations"].as_u64().unwrap() as usize;
    let rules = dir["rules"].as_u64().unwrap() as usize;
    let mut caught = 0;
    for i in 0..rules {
        let mut bad = bytes.clone();
        let r = body_at + locations + i * 16;
        bad[r..r + 4].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        let fields = bad[r..r + 8].to_vec();
        let sum = tables::record_sum(locations as u32, i as u32, &fields, &[]);
        bad[r + 8..r + 16].copy_from_slice(&sum.to_le_bytes());
        let what = format!("location {i}");
        caught += usize::from(decides_as_yaml(bad, hook, &entry, &what).unwrap());
    }
    assert!(caught > 0);
}

#[test]
fn a_damaged_entry_without_its_yaml_never_allows_what_a_rule_denies() {
    // The YAML gone as well (no fallback): damaged rules fail, and a
    // failing rule of a gate denies unless the policy says fail_open.
    let hook = "pre_shell_exec";
    let entry = entry_of(hook);
    let bytes = &entry.bytes;
    let (body_at, _) = directory(bytes);
    for i in body_at..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 1 << (i % 8);
        let Some(policy) = cache::decode(bad, "k1", hook, Box::new(|| None)) else {
            continue;
        };
        for payload in every_part_payloads(hook) {
            let want = decide(&entry.yaml, hook, &payload, CTX);
            let got = decide(&policy, hook, &payload, CTX);
            if want.deny.is_some() {
                assert!(
                    got.deny.is_some() || !got.errors.is_empty(),
                    "byte {i}: {payload}"
                );
            }
        }
    }
}
