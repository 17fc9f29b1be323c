//! A final deny stops the rules that cannot change the reply
//! (`eval::decide_for_reply`, what a chibi plugin call without a decision
//! log runs): the reply must be the one every rule evaluated gives, byte
//! for byte, and the stop must happen only where it is safe.
//!
//! - Differential: every permission case of the shipped policies' and
//!   packs' tests and every line of the shell, path and URL corpora, with
//!   every shipped pack enabled, replies alike through both.
//! - The coding agents' tool calls (`tool_call::decide_call`, what `policy
//!   hook AGENT` runs without a decision log) give the same verdict, rule
//!   and notes with and without stopping, on the same lines and paths.
//! - Where stopping would change the reply, it does not happen: a blanket
//!   deny before a more specific one at the same priority, a policy that
//!   fails open (a later rule failing would make the reply "no opinion").

mod common;
mod corpus_support;

use common::TempDir;
use hook_policy::adapters::chibi;
use hook_policy::compile::CompiledPolicy;
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::{decide, decide_for_reply, DecideContext};
use serde_json::{json, Value};
use std::path::PathBuf;

const PERMISSION_HOOKS: [&str; 4] = [
    "pre_shell_exec",
    "pre_file_read",
    "pre_file_write",
    "pre_fetch_url",
];

fn ctx(root: &str) -> DecideContext<'_> {
    DecideContext {
        harness: "chibi",
        project_root: root,
        home: Some("/home/user"),
    }
}

/// chibi's reply: its JSON text and its stderr lines.
type Reply = (String, Vec<String>);

/// chibi's reply to `payload`, every rule evaluated or stopping at a final
/// deny; and how many rules each traced.
fn replies(
    policy: &CompiledPolicy,
    hook: &str,
    payload: &Value,
    root: &str,
) -> (Reply, Reply, usize, usize) {
    let hp = hook_policy::catalogue::hook(hook).unwrap();
    let full = decide(policy, hook, payload, ctx(root));
    let stopped = decide_for_reply(policy, hook, payload, ctx(root));
    let (full_traced, stopped_traced) = (full.trace.len(), stopped.trace.len());
    let reply = |d| {
        let r = chibi::reply(
            hp,
            &engine::Outcome::Decided(d),
            policy.on_error,
            Some(payload),
        );
        (r.json.to_string(), r.stderr)
    };
    (reply(full), reply(stopped), full_traced, stopped_traced)
}

/// Every shipped pack enabled beside `policies/`, compiled whole.
fn shipped_with_every_pack(dir: &TempDir) -> CompiledPolicy {
    let names: Vec<&str> = hook_policy::packs::shipped()
        .iter()
        .map(|p| p.header.name.as_str())
        .collect();
    let all = dir.write(
        "all-packs.yaml",
        &format!("version: 1\npacks:\n  enable: [{}]\n", names.join(", ")),
    );
    match engine::prepare(&[common::repo().join("policies"), all], None) {
        Prepared::Ready(policy) => policy,
        Prepared::Broken { message, .. } => panic!("shipped policies do not load: {message}"),
    }
}

/// (hook, payload, project root) of every permission case of the
/// shipped tests and corpora.
fn cases() -> Vec<(String, Value, String)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = ["policies", "packs"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(common::repo().join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.yaml"))
        .collect();
    files.sort();
    for file in files {
        let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for case in doc["tests"].as_array().unwrap() {
            let hook = case["hook"].as_str().unwrap();
            if !PERMISSION_HOOKS.contains(&hook) {
                continue;
            }
            let payload = match case.get("payload") {
                Some(p) => p.clone(),
                None => {
                    let f = file
                        .parent()
                        .unwrap()
                        .join(case["payload_file"].as_str().unwrap());
                    let v: Value =
                        serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
                    v.get("payload").cloned().unwrap_or(v)
                }
            };
            let root = case["project_root"].as_str().unwrap_or("/project");
            out.push((hook.to_string(), payload, root.to_string()));
        }
    }
    let shell = |c: &str| {
        (
            "pre_shell_exec".to_string(),
            json!({"tool_name": "shell_exec", "command": c}),
            "/proj".to_string(),
        )
    };
    for case in corpus_support::read("benign.tsv", 2) {
        out.push(shell(case.field(1)));
    }
    for case in corpus_support::read("dangerous.tsv", 3) {
        out.push(shell(case.field(2)));
    }
    for case in corpus_support::read("secret_paths.tsv", 2) {
        let path = case.field(1);
        for (hook, tool) in [
            ("pre_file_read", "file_head"),
            ("pre_file_write", "write_file"),
        ] {
            out.push((
                hook.to_string(),
                json!({"tool_name": tool, "path": path, "content": "x"}),
                "/proj".to_string(),
            ));
        }
        out.push(shell(&format!("cat {path}")));
        out.push(shell(&format!("rm -rf {path}")));
    }
    for case in corpus_support::read("pack_urls.tsv", 3) {
        let url = case.field(2);
        out.push((
            "pre_fetch_url".to_string(),
            json!({"tool_name": "fetch_url", "url": url, "safety": "sensitive"}),
            "/proj".to_string(),
        ));
        out.push(shell(&format!("curl -s {url}")));
    }
    out
}

/// What a differential saw: how many cases it compared, how many stopped
/// early, and where the two ways differed.
#[derive(Default)]
struct Differential {
    compared: usize,
    stopped_early: usize,
    differ: Vec<String>,
}

impl Differential {
    fn record<T: PartialEq + std::fmt::Debug>(
        &mut self,
        case: std::fmt::Arguments,
        every_rule: &T,
        stopped: &T,
        stopped_early: bool,
    ) {
        self.compared += 1;
        self.stopped_early += usize::from(stopped_early);
        if every_rule != stopped {
            self.differ.push(format!(
                "{case}\n    every rule: {every_rule:?}\n    stopped:    {stopped:?}"
            ));
        }
    }

    /// Alike everywhere, on enough cases, and stopping often enough for
    /// the comparison to mean something.
    fn assert_alike(&self) {
        assert!(
            self.differ.is_empty(),
            "{} of {} differ:\n{}",
            self.differ.len(),
            self.compared,
            self.differ.join("\n")
        );
        assert!(self.compared > 1000, "only {} cases", self.compared);
        assert!(
            self.stopped_early > 100,
            "stopped early on {} of {} cases",
            self.stopped_early,
            self.compared
        );
    }
}

/// Two rules that both match `rm -rf build`: the first is a final deny.
const TWO_RM_RULES: &str = "version: 1\nrules:\n  - id: first\n    hook: pre_shell_exec\n    shell: { program: rm }\n    deny: removes files\n  - id: second\n    hook: pre_shell_exec\n    when: command.contains('rm')\n    deny: mentions rm\n";

/// The rules the last record of a decision log says matched.
fn last_logged_matched(log: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(log).unwrap();
    let record: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    record["matched"].clone()
}

#[test]
fn stopping_at_a_final_deny_replies_alike_on_every_shipped_case() {
    let dir = TempDir::new("final-deny");
    let policy = shipped_with_every_pack(&dir);
    let mut seen = Differential::default();
    let mut skipped_rules = 0;
    for (hook, payload, root) in cases() {
        let (full, stopped, full_traced, stopped_traced) = replies(&policy, &hook, &payload, &root);
        skipped_rules += full_traced - stopped_traced;
        seen.record(
            format_args!("{hook} {payload}"),
            &full,
            &stopped,
            stopped_traced < full_traced,
        );
    }
    seen.assert_alike();
    eprintln!(
        "{} cases, {} stopped early, {skipped_rules} rules left unevaluated",
        seen.compared, seen.stopped_early
    );
}

fn policy_of(dir: &TempDir, yaml: &str) -> CompiledPolicy {
    let file = dir.write("p.yaml", yaml);
    match engine::prepare(&[file], Some("pre_shell_exec")) {
        Prepared::Ready(policy) => policy,
        Prepared::Broken { message, .. } => panic!("policy does not load: {message}"),
    }
}

const LINE: &str = "rm -rf build";

#[test]
fn a_named_deny_leaves_the_later_rules_unevaluated() {
    let dir = TempDir::new("final-deny-named");
    let policy = policy_of(&dir, TWO_RM_RULES);
    let payload = json!({"tool_name": "shell_exec", "command": LINE});
    let full = decide(&policy, "pre_shell_exec", &payload, ctx("/p"));
    assert_eq!(full.matched, ["first", "second"]);
    let stopped = decide_for_reply(&policy, "pre_shell_exec", &payload, ctx("/p"));
    assert_eq!(stopped.matched, ["first"]);
    assert_eq!(stopped.trace.len(), 1, "the second rule was evaluated");
    let (a, b, _, _) = replies(&policy, "pre_shell_exec", &payload, "/p");
    assert_eq!(a, b);
    assert!(
        a.0.contains("removes files [hook-policy rule: first]"),
        "{}",
        a.0
    );
}

#[test]
fn a_blanket_deny_does_not_stop_a_more_specific_reason_at_its_priority() {
    let dir = TempDir::new("final-deny-blanket");
    let policy = policy_of(
        &dir,
        "version: 1\nrules:\n  - id: blanket\n    hook: pre_shell_exec\n    shell: { opaque: true }\n    deny: cannot be known\n  - id: named\n    hook: pre_shell_exec\n    when: command.contains('eval')\n    deny: runs eval\n",
    );
    let payload = json!({"tool_name": "shell_exec", "command": "eval \"$X\""});
    let stopped = decide_for_reply(&policy, "pre_shell_exec", &payload, ctx("/p"));
    assert_eq!(
        stopped.deny.as_ref().map(|w| w.rule.as_str()),
        Some("named")
    );
    let (a, b, _, _) = replies(&policy, "pre_shell_exec", &payload, "/p");
    assert_eq!(a, b);
    assert!(
        a.0.contains("runs eval [hook-policy rule: named]"),
        "{}",
        a.0
    );
}

#[test]
fn a_policy_failing_open_evaluates_every_rule_after_a_deny() {
    let dir = TempDir::new("final-deny-open");
    // The second rule fails at run time (an int from a command line): with
    // `fail_open`, a failure makes the reply "no opinion", deny or not.
    let policy = policy_of(
        &dir,
        "version: 1\nsettings: { on_error: fail_open }\nrules:\n  - id: first\n    hook: pre_shell_exec\n    shell: { program: rm }\n    deny: removes files\n  - id: failing\n    hook: pre_shell_exec\n    when: 'int(command) > 3'\n    deny: x\n",
    );
    let payload = json!({"tool_name": "shell_exec", "command": LINE});
    let stopped = decide_for_reply(&policy, "pre_shell_exec", &payload, ctx("/p"));
    assert_eq!(stopped.trace.len(), 2);
    assert_eq!(stopped.errors.len(), 1);
    let (a, b, _, _) = replies(&policy, "pre_shell_exec", &payload, "/p");
    assert_eq!(a, b);
    assert_eq!(a.0, "{}");
}

#[test]
fn the_plugin_replies_alike_and_a_decision_log_still_sees_every_rule() {
    use std::process::Output;
    let dir = TempDir::new("final-deny-plugin");
    let policy = dir.write("policy.yaml", TWO_RM_RULES);
    let home = common::ChibiHome::install(&[&policy]);
    let body = serde_json::to_vec(&json!({"tool_name": "shell_exec", "command": LINE})).unwrap();
    let call = |env: &[(&str, &str)]| -> Output {
        let mut env = env.to_vec();
        env.push(("CHIBI_HOOK", "pre_shell_exec"));
        common::run(&home.plugin(), &[], &env, &body)
    };
    let without_log = call(&[]);
    let log = dir.path().join("decisions.jsonl");
    let with_log = call(&[("HOOK_POLICY_LOG", log.to_str().unwrap())]);
    assert!(without_log.status.success() && with_log.status.success());
    assert_eq!(without_log.stdout, with_log.stdout);
    let reply: Value = serde_json::from_slice(&without_log.stdout).unwrap();
    assert_eq!(
        reply,
        json!({"denied": true, "reason": "removes files [hook-policy rule: first]"})
    );
    // Logged decisions evaluate every candidate: the log says who matched.
    assert_eq!(last_logged_matched(&log), json!(["first", "second"]));
}

/// Claude Code's tool calls for the corpora: every shell line as `Bash`,
/// every secret path as `Read` and `Write`.
fn claude_code_calls() -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    for case in corpus_support::read("benign.tsv", 2) {
        out.push(("Bash", json!({"command": case.field(1)})));
    }
    for case in corpus_support::read("dangerous.tsv", 3) {
        out.push(("Bash", json!({"command": case.field(2)})));
    }
    for case in corpus_support::read("secret_paths.tsv", 2) {
        let path = case.field(1);
        out.push(("Read", json!({"file_path": path})));
        out.push(("Write", json!({"file_path": path, "content": "x"})));
    }
    out
}

#[test]
fn a_coding_agent_call_without_a_log_decides_alike_when_it_stops() {
    use hook_policy::adapters::tool_call::{decide_call, PolicySource, ToolCall};
    use hook_policy::catalogue::tools::Harness;
    let dir = TempDir::new("final-deny-agents");
    let prepared = std::sync::Arc::new(Prepared::Ready(shipped_with_every_pack(&dir)));
    let ctx = DecideContext {
        harness: "claude_code",
        project_root: "/proj",
        home: Some("/home/user"),
    };
    let (mut seen, mut denied) = (Differential::default(), 0);
    for (tool, args) in claude_code_calls() {
        let event = json!({"hook_event_name": "PreToolUse", "cwd": "/proj",
            "tool_name": tool, "tool_input": args});
        let mut full = PolicySource::compiled(prepared.clone());
        let mut stopping = PolicySource::compiled(prepared.clone());
        stopping.reply_only();
        let decide = |source: &mut PolicySource| {
            let d = decide_call(
                source,
                &ToolCall {
                    harness: Harness::ClaudeCode,
                    tool,
                    arguments: &args,
                    native_payload: &event,
                    approval: false,
                    context_name: "default",
                },
                ctx,
            );
            let matched = d.matched.len();
            (
                (d.verdict, d.rule, d.notes, d.failed, d.reason_template),
                matched,
            )
        };
        let ((a, full_matched), (b, stopped_matched)) = (decide(&mut full), decide(&mut stopping));
        if matches!(a.0, hook_policy::adapters::tool_call::Verdict::Deny(_)) {
            denied += 1;
        }
        // Rules a stop left out are missing from what matched.
        seen.record(
            format_args!("{tool} {args}"),
            &a,
            &b,
            stopped_matched < full_matched,
        );
    }
    seen.assert_alike();
    assert!(denied > 300, "{denied} of {} calls denied", seen.compared);
}

#[test]
fn a_coding_agent_hook_replies_alike_and_its_decision_log_sees_every_rule() {
    let dir = TempDir::new("final-deny-claude");
    let policy = dir.write("policy.yaml", TWO_RM_RULES);
    let cache = dir.path().join("cache");
    let event = serde_json::to_vec(&json!({"hook_event_name": "PreToolUse", "cwd": "/proj",
        "tool_name": "Bash", "tool_input": {"command": LINE}}))
    .unwrap();
    let call = |env: &[(&str, &str)]| {
        let mut env = env.to_vec();
        env.push(("XDG_CACHE_HOME", cache.to_str().unwrap()));
        common::run(
            &common::bin(),
            &["hook", "claude-code", "--policy", policy.to_str().unwrap()],
            &env,
            &event,
        )
    };
    let without_log = call(&[]);
    let log = dir.path().join("decisions.jsonl");
    let with_log = call(&[("HOOK_POLICY_LOG", log.to_str().unwrap())]);
    assert!(without_log.status.success() && with_log.status.success());
    assert_eq!(without_log.stdout, with_log.stdout);
    assert_eq!(without_log.stderr, with_log.stderr);
    let reply: Value = serde_json::from_slice(&without_log.stdout).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecisionReason"],
        json!("removes files [hook-policy rule: first]")
    );
    assert_eq!(last_logged_matched(&log), json!(["first", "second"]));
}
