//! The prepared form of a hook's policy (src/compile/prepared.rs, stored by
//! src/cache.rs) must decide exactly as the policy compiled from its YAML:
//! random policies (literal, substring, program, host, glob and catch-all
//! rules, several hooks per rule, priorities, deny rules of every
//! specificity, effects with expressions) and
//! random payloads built from the same small vocabulary, so that rules
//! match, miss, collide and fail. 64 cases per run in CI;
//! `PROPTEST_CASES=N` for a deeper look.

use hook_policy::cache;
use hook_policy::compile::{compile, CompiledPolicy};
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
    (0u8..21, word(), word(), priority, 0u8..14).prop_map(|(kind, w, v, priority, n)| {
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
            let prepared: CompiledPolicy = cache::decode(entry, "key", hook)
                .expect("an entry just written reads back");
            prop_assert!(prepared.rules.is_empty(), "rules are compiled on demand");
            let a = decide(&compiled, hook, payload, CTX);
            let b = decide(&prepared, hook, payload, CTX);
            prop_assert_eq!(observable(&a), observable(&b), "{} {} in\n{}", hook, payload, yaml);
            // Only the candidates were compiled.
            let built = prepared.deferred.as_ref().unwrap().compiled().count();
            prop_assert_eq!(built, b.candidates);
        }
    }
}

#[test]
fn an_entry_for_another_key_or_with_one_byte_changed_is_refused() {
    let yaml = "version: 1\nrules:\n  - id: no-rm\n    hook: pre_shell_exec\n    shell: { program: rm }\n    deny: \"no rm\"\n";
    let source = Arc::new(SourceFile::new("p.yaml".into(), yaml.into()));
    let (set, _) = hook_policy::load::load_sources(vec![source]);
    let (compiled, _) = compile(&set, Some("pre_shell_exec"));
    let entry = cache::encode("k1", "pre_shell_exec", &set, &compiled);
    assert!(cache::decode(entry.clone(), "k1", "pre_shell_exec").is_some());
    assert!(cache::decode(entry.clone(), "k2", "pre_shell_exec").is_none());
    // Every single-byte change after the key line, and every truncation.
    let key_end = entry
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .unwrap()
        .0;
    for i in key_end + 1..entry.len() {
        let mut bad = entry.clone();
        bad[i] ^= 0x20;
        assert!(
            cache::decode(bad, "k1", "pre_shell_exec").is_none(),
            "byte {i}"
        );
        assert!(
            cache::decode(entry[..i].to_vec(), "k1", "pre_shell_exec").is_none(),
            "cut at {i}"
        );
    }
}
