//! A newcomer's path through the binary (issue 15): writing a policy,
//! reading its diagnostics, testing it and wiring it into a harness.

mod common;

use common::*;
use serde_json::Value;

/// `policy check --format json` on `files`: the diagnostics and the exit status.
fn check_json(dir: &TempDir, files: &[&str]) -> (Vec<Value>, Option<i32>) {
    let mut args = vec!["check".to_string(), "--format".into(), "json".into()];
    args.extend(
        files
            .iter()
            .map(|f| dir.path().join(f).display().to_string()),
    );
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = policy(&argv, b"");
    let report = stdout_json(&out);
    (
        report["diagnostics"].as_array().unwrap().clone(),
        out.status.code(),
    )
}

#[test]
fn an_enumerated_value_lists_every_choice_and_suggests_the_nearest() {
    let dir = TempDir::new("enum");
    dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-internal\n    hook: pre_fetch_url\n    url: { class: [interal] }\n    deny: internal\n",
    );
    let (diags, status) = check_json(&dir, &["p.yaml"]);
    assert_eq!(status, Some(1));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0]["message"],
        "`interal` is not one of: multicast, broadcast, loopback, private, link_local, \
         cloud_metadata, unspecified, reserved, public, invalid, non_http, internal"
    );
    assert_eq!(diags[0]["help"], "did you mean `internal`?");
    assert_eq!(
        (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
        (Some(5), Some(20))
    );
}

#[test]
fn a_harness_gets_file_line_and_problem_for_a_schema_error_never_serde_text() {
    let dir = TempDir::new("shape");
    let file = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    priority: high\n    deny: \"no\"\n  - id: b\n    hook: pre_shell_exec\n    when_: \"true\"\n    deny: \"no\"\n",
    );
    let expected = format!(
        "hook-policy could not decide, so it denies (fail closed): the policy does not load: \
         {}:5:15: `priority` must be an integer, found a string (and 1 more; run `policy check`)",
        file.display()
    );
    // Claude Code, through the command its settings run.
    let event = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/tmp","session_id":"s"}"#;
    let cache = dir.path().join("cache");
    let out = run(
        &bin(),
        &[
            "hook",
            "claude-code",
            "--policy",
            &file.display().to_string(),
        ],
        &[("XDG_CACHE_HOME", &cache.display().to_string())],
        event,
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecisionReason"],
        expected.as_str()
    );
    // chibi's reply, as `policy eval` reproduces it.
    let out = policy(
        &[
            "eval",
            "--policy",
            &file.display().to_string(),
            "--hook",
            "pre_shell_exec",
        ],
        br#"{"command":"ls"}"#,
    );
    assert_eq!(stdout_json(&out)["reason"], expected.as_str());
    assert!(!stderr(&out).contains("invalid type"), "{}", stderr(&out));
}

#[test]
fn readme_lists_every_diagnostic_code() {
    fn sources(dir: &std::path::Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut text = String::new();
    sources(&repo().join("src"), &mut text);
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let code = diagnostic_codes(&text);
    assert!(code.len() > 30, "found only {code:?}");
    let missing: Vec<&String> = code
        .iter()
        .filter(|c| !readme.contains(&format!("`{c}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's code list misses {missing:?}"
    );
}

/// Every `"family::name"` string literal of a diagnostic family.
fn diagnostic_codes(text: &str) -> std::collections::BTreeSet<String> {
    const FAMILIES: &[&str] = &[
        "yaml", "schema", "hook", "effect", "rule", "cel", "regex", "glob", "match", "settings",
        "io", "lint", "test",
    ];
    let mut found = std::collections::BTreeSet::new();
    for family in FAMILIES {
        let quote = format!("\"{family}::");
        for (at, _) in text.match_indices(&quote) {
            let rest = &text[at + quote.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if !name.is_empty() && rest[name.len()..].starts_with('"') {
                found.insert(format!("{family}::{name}"));
            }
        }
    }
    found
}

/// Three files: a schema error beside a CEL syntax error in one rule, a
/// file that is not UTF-8, and a CEL syntax error in a clean file.
fn every_problem_dir() -> TempDir {
    let dir = TempDir::new("every");
    dir.write(
        "a.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    priority: high\n    when: 'command.contains(\"x\"'\n    deny: \"no\"\n",
    );
    let mut latin1 =
        b"version: 1\nrules:\n  - id: b\n    hook: pre_shell_exec\n    deny: \"caf".to_vec();
    latin1.extend_from_slice(b"\xe9\"\n");
    std::fs::write(dir.path().join("b.yaml"), latin1).unwrap();
    dir.write(
        "c.yaml",
        "version: 1\nrules:\n  - id: c\n    hook: pre_shell_exec\n    when: 'command.size() >'\n    deny: \"no\"\n",
    );
    dir
}

#[test]
fn one_run_reports_every_problem_whatever_else_is_wrong() {
    let dir = every_problem_dir();
    let (diags, status) = check_json(&dir, &[".", "missing.yaml"]);
    // A file that cannot be read makes the check incomplete: exit 2, yet
    // every other problem is reported.
    assert_eq!(status, Some(2));
    let located: Vec<String> = diags
        .iter()
        .map(|d| {
            let file = std::path::Path::new(d["file"].as_str().unwrap());
            format!(
                "{} {} {}:{}",
                file.file_name().unwrap().to_str().unwrap(),
                d["code"].as_str().unwrap(),
                d["line"],
                d["column"]
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            "a.yaml schema::type 5:15",
            "a.yaml cel::syntax 6:32",
            "b.yaml io::encoding 5:15",
            "c.yaml cel::syntax 5:28",
            "missing.yaml io::read null:null",
        ]
    );
}

#[test]
fn io_problems_carry_their_file_in_every_format() {
    let dir = every_problem_dir();
    let missing = dir.path().join("missing.yaml").display().to_string();
    let b = dir.path().join("b.yaml").display().to_string();
    let out = policy(&["check", "--format", "github", &b, &missing], b"");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let prop = |s: &str| s.replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        lines,
        [
            format!(
                "::error file={},title=io%3A%3Aencoding,line=5,col=15,endLine=5,endColumn=16::\
                 the file is not UTF-8 text: byte 0xe9 cannot be read as a character%0A\
                 help: save the file as UTF-8",
                prop(&b)
            ),
            format!(
                "::error file={},title=io%3A%3Aread::no such file or directory%0A\
                 help: check the path; `policy check` takes policy files and directories",
                prop(&missing)
            ),
        ]
    );
    let out = policy(&["check", "--format", "sarif", &b, &missing], b"");
    let sarif = stdout_json(&out);
    let uris: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        uris,
        [b.trim_start_matches('/'), missing.trim_start_matches('/')].map(|u| format!("/{u}"))
    );
    // The human report puts the caret on the bad byte.
    let out = policy(&["check", &b], b"");
    let err = stderr(&out);
    assert!(err.contains(&format!("{b}:5:15\nio::encoding")), "{err}");
    assert!(
        err.contains(" 5 │     deny: \"caf\u{fffd}\"\n   ·               ┬\n"),
        "{err}"
    );
}

#[test]
fn a_cel_syntax_error_says_what_is_wrong_in_words_under_a_caret() {
    let dir = TempDir::new("words");
    let file = dir.write(
        "w.yaml",
        "version: 1\nrules:\n  - id: r\n    hook: pre_shell_exec\n    when: command.contains(\"rm\") and command.contains(\"-rf\")\n    deny: \"no\"\n  - id: s\n    hook: pre_shell_exec\n    when: 'command =='\n    deny: \"no\"\n",
    );
    let out = policy(&["check", &file.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out).replace(&file.display().to_string(), "w.yaml");
    let expected = [
        "w.yaml:5:35",
        "cel::syntax",
        "",
        "  × invalid CEL in `when`: `and` is not an operator: CEL writes `&&`",
        "   ╭─[w.yaml:5:35]",
        " 4 │     hook: pre_shell_exec",
        " 5 │     when: command.contains(\"rm\") and command.contains(\"-rf\")",
        "   ·                                   ┬",
        "   ·                                   ╰── `and` is not an operator: CEL writes `&&`",
        " 6 │     deny: \"no\"",
        "   ╰────",
    ];
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[..expected.len()], expected, "{text}");
    assert!(
        text.contains("w.yaml:9:22\ncel::syntax\n\n  × invalid CEL in `when`: the expression ends where a value is expected\n"),
        "{text}"
    );
    assert!(!text.contains("mismatched input"), "{text}");
}

#[test]
fn repeated_warnings_are_drawn_once_with_a_count_unless_all_are_asked_for() {
    let dir = TempDir::new("grouped");
    let mut text = String::from("version: 1\nrules:\n");
    for i in 0..7 {
        text.push_str(&format!(
            "  - id: r{i}\n    hook: pre_shell_exec\n    when: command.contains('x{i}')\n    deny: ''\n"
        ));
    }
    let file = dir.write("p.yaml", &text);
    let name = file.display().to_string();
    let out = policy(&["check", &name], b"");
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out).replace(&name, "p.yaml");
    assert_eq!(
        err.matches("⚠ the deny reason is empty").count(),
        1,
        "{err}"
    );
    let tail: Vec<&str> = err.lines().rev().take(3).collect();
    assert_eq!(
        tail,
        [
            "0 error(s), 7 warning(s) in 1 file(s)",
            "",
            "  … and 6 more like this: p.yaml:10:11, p.yaml:14:11, p.yaml:18:11, p.yaml:22:11, \
             p.yaml:26:11, +1 (`--show-all` lists each)",
        ]
    );
    let out = policy(&["check", "--show-all", &name], b"");
    let err = stderr(&out);
    assert_eq!(
        err.matches("⚠ the deny reason is empty").count(),
        7,
        "{err}"
    );
    assert!(!err.contains("more like this"), "{err}");
    // Machine formats always list every diagnostic.
    let (diags, _) = check_json(&dir, &["p.yaml"]);
    assert_eq!(diags.len(), 7);
}

#[test]
fn the_committed_test_file_schema_is_fresh_and_fits_the_shipped_tests() {
    let out = policy(&["schema", "--tests"], b"");
    let committed = std::fs::read_to_string(repo().join("schema/policy-test.schema.json")).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        "schema/policy-test.schema.json is stale: run \
         `cargo run -- schema --tests > schema/policy-test.schema.json`"
    );
    let schema: Value = serde_json::from_str(&committed).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("valid JSON Schema");
    let mut checked = 0;
    for entry in std::fs::read_dir(repo().join("policies")).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".test.yaml") {
            continue;
        }
        let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} test files");
    let bad: Value = serde_json::json!({"tests": [{"name": "x", "hook": "pre_shel_exec", "payload": {}, "expct": {}}]});
    assert!(!validator.is_valid(&bad));
}

const BROKEN_TESTS: &str = "tests:
  - name: rm is denied
    hook: pre_shel_exec
    payload: { command: \"rm -rf /\" }
    expect: { matched: [no-rm-rf] }
  - name: ls passes
    hook: pre_shell_exec
    payload: { command: \"ls\" }
    expct: { reply: {} }
";

fn tested_policy(dir: &TempDir) {
    dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-rm-rf\n    hook: pre_shell_exec\n    when: command.contains(\"rm -rf\")\n    deny: recursive delete is not allowed\n",
    );
}

#[test]
fn policy_test_reports_every_problem_of_a_test_file_with_a_caret() {
    let dir = TempDir::new("test-diags");
    tested_policy(&dir);
    let file = dir.write("p.test.yaml", BROKEN_TESTS);
    let out = policy(&["test", &dir.path().display().to_string()], b"");
    assert_eq!(out.status.code(), Some(2), "no case could run");
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&file.display().to_string(), "p.test.yaml");
    let expected = "
p.test.yaml:3:11
hook::unknown

  × unknown hook point `pre_shel_exec`
   ╭─[p.test.yaml:3:11]
 2 │   - name: rm is denied
 3 │     hook: pre_shel_exec
   ·           ──────┬──────
   ·                 ╰── not in the hook catalogue
 4 │     payload: { command: \"rm -rf /\" }
   ╰────
  help: did you mean `pre_shell_exec`? `policy hooks` lists every hook point

p.test.yaml:6:5
schema::missing-key

  × test case `ls passes` has no `expect`
   ╭─[p.test.yaml:6:5]
 5 │     expect: { matched: [no-rm-rf] }
 6 │   - name: ls passes
   ·     ────
 7 │     hook: pre_shell_exec
   ╰────
  help: say what must happen, e.g. expect: { reply: {} } or expect: { matched: [RULE] }

p.test.yaml:9:5
schema::unknown-key

  × unknown key `expct` in a test case
   ╭─[p.test.yaml:9:5]
 8 │     payload: { command: \"ls\" }
 9 │     expct: { reply: {} }
   ·     ──┬──
   ·       ╰── not part of the format
   ╰────
  help: did you mean `expect`?

test result: FAILED. 0 passed; 0 failed
";
    assert_eq!(text, expected);
    assert!(!text.contains("error: error"));
}

#[test]
fn policy_check_lints_test_files_named_or_found_in_directories() {
    let dir = TempDir::new("check-tests");
    tested_policy(&dir);
    dir.write(
        "p.test.yaml",
        "tests:\n  - name: rm\n    hook: pre_shell_exec\n    payload: { command: \"rm -rf /\" }\n    expect: { matched: [no-rm-rff], not_matched: [nope] }\n",
    );
    for target in ["p.test.yaml", "."] {
        let (diags, status) = check_json(&dir, &[target]);
        assert_eq!(status, Some(1), "{target}");
        let found: Vec<(String, String)> = diags
            .iter()
            .map(|d| {
                (
                    format!(
                        "{} {}:{}",
                        d["code"].as_str().unwrap(),
                        d["line"],
                        d["column"]
                    ),
                    d["help"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "test::unknown-rule 5:25".to_string(),
                    "did you mean `no-rm-rf`?".to_string()
                ),
                (
                    "test::unknown-rule 5:51".to_string(),
                    format!(
                        "the tested policy ({}) has no rule by that id",
                        dir.path().display()
                    )
                ),
            ],
            "{target}"
        );
    }
    // The shipped policies' tests are clean, and counted.
    let out = policy(
        &["check", &repo().join("policies").display().to_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        // The policy files, their test files, and the packs they enable.
        stderr(&out).starts_with("ok: 29 file(s)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn policy_test_filters_cases_by_name_and_speaks_json() {
    let dir = TempDir::new("filter");
    tested_policy(&dir);
    let file = dir.write(
        "p.test.yaml",
        "tests:\n  - name: rm -rf is denied\n    hook: pre_shell_exec\n    payload: { command: \"rm -rf /\" }\n    expect: { matched: [no-rm-rf] }\n  - name: ls passes\n    hook: pre_shell_exec\n    payload: { command: \"ls\" }\n    expect: { reply: {} }\n  - name: ls -la passes\n    hook: pre_shell_exec\n    payload: { command: \"ls -la\" }\n    expect: { reply: { denied: true } }\n",
    );
    let d = dir.path().display().to_string();
    let out = policy(&["test", "--filter", "rm", &d], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "\nrunning 1 test(s) from {}\ntest rm -rf is denied ... ok\n\n\
             test result: ok. 1 passed; 0 failed; 2 filtered out\n",
            file.display()
        )
    );
    let out = policy(&["test", "--format", "json", "--filter", "ls", &d], b"");
    assert_eq!(out.status.code(), Some(1));
    let report = stdout_json(&out);
    assert_eq!(
        report["summary"],
        serde_json::json!({"ok": false, "passed": 1, "failed": 1, "filtered_out": 1})
    );
    assert_eq!(report["cases"][0]["name"], "ls passes");
    assert_eq!(report["cases"][0]["ok"], true);
    assert_eq!(report["cases"][1]["ok"], false);
    assert_eq!(
        report["cases"][1]["failures"][0],
        "reply\n      expected: {\"denied\":true}\n      actual:   {}"
    );
    assert_eq!(report["coverage"]["uncovered"][0]["rule"], "no-rm-rf");
    assert_eq!(report["problems"], serde_json::json!([]));
}

#[test]
fn policy_hooks_name_shows_one_hook() {
    let out = policy(&["hooks", "pre_shell_exec"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "pre_shell_exec (permission)
  Before every shell command.
effects: deny, ask
when the policy cannot decide: deny
payload (each top-level field is also a variable):
  tool_name  string  Name of the tool being called.
  command    string  The shell command line.
every condition also sees: payload, hook, harness, project_root
"
    );
    let out = policy(&["hooks", "post_tool_batch"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\n  tool_calls[].name       string        Name of the tool that ran.\n"),
        "{text}"
    );
    let out = policy(&["hooks", "pre_shel_exec"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: unknown hook point `pre_shel_exec`; did you mean `pre_shell_exec`?\n"
    );
}

#[test]
fn policy_check_dash_reads_the_policy_from_standard_input() {
    let out = policy(
        &["check", "-"],
        b"version: 1\nrules:\n  - id: x\n    hook: pre_shel_exec\n    deny: \"no\"\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("<stdin>:4:11\nhook::unknown\n"), "{err}");
    assert!(
        err.ends_with("1 error(s), 0 warning(s) in 1 file(s)\n"),
        "{err}"
    );
    let shell = std::fs::read(repo().join("packs/core.yaml")).unwrap();
    let out = policy(&["check", "-"], &shell);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("ok: 1 file(s), ") && err.ends_with(" rule(s), no problems\n"),
        "{err}"
    );
}

#[test]
fn completions_complete_commands_and_flags_in_bash() {
    let out = policy(&["completions", "bash"], b"");
    assert_eq!(out.status.code(), Some(0));
    let dir = TempDir::new("completions");
    let script = dir.path().join("policy.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // Ask bash itself, as it would on <TAB>.
    let probe = format!(
        "source '{}'
         COMP_WORDS=(policy che); COMP_CWORD=1; _policy policy che policy; echo \"${{COMPREPLY[@]}}\"
         COMP_WORDS=(policy test --fi); COMP_CWORD=2; _policy policy --fi test; echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    match std::process::Command::new("bash")
        .arg("-c")
        .arg(&probe)
        .output()
    {
        Ok(done) => assert_eq!(String::from_utf8_lossy(&done.stdout), "check\n--filter\n"),
        Err(_) => eprintln!("bash not installed; script checked by content only"),
    }
    for (shell, marker) in [("zsh", "#compdef policy"), ("fish", "complete -c policy")] {
        let out = policy(&["completions", shell], b"");
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(marker), "{shell}");
        assert!(text.contains("min-coverage"), "{shell}");
    }
}

#[test]
fn schema_descriptions_read_whole_in_an_editor() {
    for args in [&["schema"][..], &["schema", "--tests"][..]] {
        let schema = stdout_json(&policy(args, b""));
        let mut broken = Vec::new();
        fn walk(v: &Value, path: &str, broken: &mut Vec<String>) {
            match v {
                Value::Object(map) => {
                    for (k, v) in map {
                        match (k.as_str(), v) {
                            ("description" | "title", Value::String(s))
                                if s.replace("\n\n", "").contains('\n') =>
                            {
                                broken.push(format!("{path}: {s:?}"))
                            }
                            _ => walk(v, &format!("{path}/{k}"), broken),
                        }
                    }
                }
                Value::Array(items) => items.iter().for_each(|i| walk(i, path, broken)),
                _ => {}
            }
        }
        walk(&schema, "", &mut broken);
        assert!(
            broken.is_empty(),
            "{args:?}: sentences broken across lines: {broken:#?}"
        );
    }
    let schema = stdout_json(&policy(&["schema"], b""));
    assert_eq!(
        schema["$defs"]["Rule"]["properties"]["deny"]["description"],
        "Deny the operation with this reason (permission hooks only). May embed CEL as `${{ expr }}`."
    );
}

fn claude_fixture(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("../shared/fixtures/claude-code").join(name)).unwrap()
}

#[test]
fn eval_with_a_harness_answers_exactly_as_that_harness_hook_does() {
    let policies = repo().join("policies").display().to_string();
    let dir = TempDir::new("agent-eval");
    let cache = dir.path().display().to_string();
    for fixture in [
        "final-spy__02-sudo-rm-rf-home-PreToolUse-Bash.json",
        "final-spy__04-ls-la-PreToolUse-Bash.json",
        "final-spy__07-read-ssh-key-PreToolUse-Read.json",
        "final-spy__08-write-env-PreToolUse-Write.json",
    ] {
        let event = claude_fixture(fixture);
        let hook = run(
            &bin(),
            &["hook", "claude-code", "--policy", &policies],
            &[("XDG_CACHE_HOME", &cache)],
            &event,
        );
        let eval = policy(
            &["eval", "--harness", "claude-code", "--policy", &policies],
            &event,
        );
        assert_eq!(eval.status.code(), Some(0), "{fixture}: {}", stderr(&eval));
        assert_eq!(stdout_json(&eval), stdout_json(&hook), "{fixture}");
    }
    // The same event asked as chibi's canonical hook says nothing: that is
    // why the harness must be named.
    let out = policy(
        &[
            "eval",
            "--harness",
            "claude-code",
            "--hook",
            "pre_shell_exec",
            "--policy",
            &policies,
        ],
        b"{}",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("drop --hook"), "{}", stderr(&out));
}

#[test]
fn explain_with_a_harness_walks_the_adapter_questions() {
    let policies = repo().join("policies");
    let event = claude_fixture("final-spy__02-sudo-rm-rf-home-PreToolUse-Bash.json");
    let out = policy(
        &[
            "explain",
            "--harness",
            "claude-code",
            "--policy",
            &policies.display().to_string(),
        ],
        &event,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&format!("{}/", policies.display()), "");
    let lines: Vec<&str> = text.lines().collect();
    let find = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?} in\n{text}"))
    };
    assert_eq!(
        lines[0],
        "claude-code: PreToolUse of tool `Bash` (shell) is asked as the questions below, in order"
    );
    // In the adapter's order, stopping at the deny.
    let order = [
        find("pre_tool: "),
        find("pre_api_tools: "),
        find("pre_shell_exec: "),
        find("  ✓ core.recursive-force-delete (packs/core.yaml:13) matched"),
        find("  deny: `core.recursive-force-delete` gives the reason"),
        find("  (the adapter asks nothing further)"),
        find("  reply: "),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(
        !text.contains("claude_code.PreToolUse:"),
        "stops at the deny:\n{text}"
    );
    assert_eq!(
        lines.last().unwrap(),
        &"  reply: {\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user [hook-policy rule: core.recursive-force-delete]\"}}"
    );
}

#[test]
fn eval_reads_the_project_root_and_the_deadline_as_the_chibi_plugin_does() {
    let dir = TempDir::new("chibi-env");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: only-in-demo\n    hook: pre_shell_exec\n    when: project_root == '/home/user/demo/project'\n    deny: not here\n  - id: slow\n    hook: pre_file_read\n    when: path.split('/').exists(a, path.split('/').exists(b, a + b == 'never'))\n    deny: x\n",
    );
    let name = p.display().to_string();
    let payload = br#"{"tool_name": "shell_exec", "command": "ls"}"#;
    let plugin = ChibiHome::install(&[&p]);
    let expected = plugin.reply("pre_shell_exec", &serde_json::from_slice(payload).unwrap());
    assert_eq!(expected["denied"], true);
    let out = run(
        &bin(),
        &["eval", "--policy", &name, "--hook", "pre_shell_exec"],
        &[("CHIBI_PROJECT_ROOT", "/home/user/demo/project")],
        payload,
    );
    assert_eq!(stdout_json(&out), expected);
    // The plugin's deadline: a stuck decision is answered with the hook's
    // failure reply (a deny), as the plugin would answer.
    let long = vec!["w"; 20_000].join("/");
    let body =
        serde_json::to_vec(&serde_json::json!({"tool_name": "file_head", "path": long})).unwrap();
    let out = run(
        &bin(),
        &["eval", "--policy", &name, "--hook", "pre_file_read"],
        &[("HOOK_POLICY_DEADLINE_MS", "300")],
        &body,
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["denied"], true, "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("took longer than 300 ms"),
        "{reply}"
    );
}

#[test]
fn a_test_case_can_ask_a_coding_agent() {
    let dir = TempDir::new("agent-case");
    tested_policy(&dir);
    let event = String::from_utf8(claude_fixture(
        "final-spy__03-bash-c-rm-rf-PreToolUse-Bash.json",
    ))
    .unwrap();
    std::fs::write(dir.path().join("event.json"), &event).unwrap();
    dir.write(
        "p.test.yaml",
        "tests:
  - name: claude code is told to deny
    harness: claude-code
    payload_file: event.json
    expect:
      matched: [no-rm-rf]
      reply_includes: { hookSpecificOutput: { permissionDecision: deny } }
  - name: codex says nothing about ls
    harness: codex
    payload: { hook_event_name: PreToolUse, tool_name: Bash, tool_input: { command: ls }, cwd: /p, session_id: s }
    expect: { reply: {} }
  - name: a wrong expectation fails
    harness: gemini
    payload: { hook_event_name: BeforeTool, tool_name: run_shell_command, tool_input: { command: rm -rf / }, cwd: /p, session_id: s }
    expect: { reply: {} }
",
    );
    let out = policy(&["test", &dir.path().display().to_string()], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("test claude code is told to deny ... ok"),
        "{text}"
    );
    assert!(
        text.contains("test codex says nothing about ls ... ok"),
        "{text}"
    );
    assert!(
        text.contains("test a wrong expectation fails ... FAILED"),
        "{text}"
    );
    assert!(
        text.contains("actual:   {\"decision\":\"deny\",\"reason\":\"recursive delete is not allowed [hook-policy rule: no-rm-rf]\"}"),
        "{text}"
    );
    // A case for an agent cannot name a hook or a project root.
    dir.write(
        "p.test.yaml",
        "tests:\n  - name: x\n    harness: claude-code\n    hook: pre_shell_exec\n    payload: {}\n    expect: { reply: {} }\n",
    );
    let (diags, _) = check_json(&dir, &["p.test.yaml"]);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "test::harness");
    assert_eq!(
        diags[0]["message"],
        "`hook` does not apply to a claude-code case: the event names its hook (`hook_event_name`)"
    );
}

#[test]
fn init_scaffolds_a_policy_that_checks_and_tests_clean_for_each_harness() {
    let dir = TempDir::new("init");
    for harness in [
        "chibi",
        "claude-code",
        "gemini",
        "codex",
        "picoclaw",
        "cursor",
        "copilot",
        "windsurf",
        "cline",
        "opencode",
        "kiro",
    ] {
        let target = dir.path().join(harness).display().to_string();
        let out = policy(&["init", &target, "--harness", harness], b"");
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        let check = policy(&["check", "--deny-warnings", &target], b"");
        assert_eq!(
            check.status.code(),
            Some(0),
            "{harness}: {}",
            stderr(&check)
        );
        assert_eq!(stderr(&check), "ok: 2 file(s), 2 rule(s), no problems\n");
        let test = policy(&["test", "--min-coverage", "100", &target], b"");
        let text = String::from_utf8_lossy(&test.stdout).into_owned();
        assert_eq!(test.status.code(), Some(0), "{harness}: {text}");
        assert!(
            text.ends_with("test result: ok. 3 passed; 0 failed\n"),
            "{text}"
        );
        // The `$schema` lines name schemas written beside the files, so
        // editors work offline; they are what `policy schema` prints.
        for (file, args) in [
            ("policy.yaml", &["schema"][..]),
            ("policy.test.yaml", &["schema", "--tests"][..]),
        ] {
            let text = std::fs::read_to_string(dir.path().join(harness).join(file)).unwrap();
            let first = text.lines().next().unwrap();
            let rel = first
                .strip_prefix("# yaml-language-server: $schema=")
                .unwrap_or_else(|| panic!("{file}: {first}"));
            let schema = std::fs::read(dir.path().join(harness).join(rel)).unwrap();
            assert_eq!(schema, policy(args, b"").stdout, "{harness} {file}");
        }
    }
    let target = dir.path().join("claude-code").display().to_string();
    let out = policy(&["init", &target, "--harness", "claude-code"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {target}/policy.yaml exists; `policy init` never overwrites a file\n  \
             help: pick another directory: `policy init DIR`\n"
        )
    );
    let fresh = dir.path().join("fresh").display().to_string();
    let out = policy(&["init", &fresh, "--harness", "claude-code"], b"");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "created {fresh}/policy.yaml\ncreated {fresh}/policy.test.yaml\n\
             created {fresh}/.schema/policy.schema.json\ncreated {fresh}/.schema/policy-test.schema.json\n\
             \nnext: `policy check {fresh}` and `policy test {fresh}`, then\n  \
             policy install claude-code --policy {fresh} --settings ~/.claude/settings.json\n"
        )
    );
}

#[test]
fn pre_commit_hooks_lint_only_policy_and_test_files() {
    let text = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Value = serde_saphyr::from_str(&text).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    for hook in hooks.as_array().unwrap() {
        let id = hook["id"].as_str().unwrap();
        assert!(
            hook.get("types").is_none(),
            "{id}: `types: [yaml]` would take every YAML file"
        );
        let pattern = hook["files"]
            .as_str()
            .unwrap_or_else(|| panic!("{id} has no files:"));
        let files = regex::Regex::new(pattern).unwrap();
        for policy_file in [
            "policies/shell.yaml",
            "infra/policies/net.yml",
            "agent.policy.yaml",
        ] {
            assert!(files.is_match(policy_file), "{id} skips {policy_file}");
        }
        for other in [
            ".github/workflows/ci.yml",
            "docker-compose.yaml",
            "k8s/deploy.yaml",
        ] {
            assert!(!files.is_match(other), "{id} would lint {other}");
        }
        // README's local variant runs the same files.
        assert!(
            readme.contains(&format!("files: '{pattern}'")),
            "README differs for {id}"
        );
    }
    // No pinned release that does not exist.
    assert!(
        !readme.lines().any(|l| l.trim_start().starts_with("rev:")),
        "README pins a rev"
    );
}

#[test]
fn eval_with_picoclaw_answers_as_the_server_does() {
    let policies = repo().join("policies").display().to_string();
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"hook.before_tool","params":{"tool":"exec","arguments":{"command":"sudo rm -rf /"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"hook.approve_tool","params":{"tool":"read_file","arguments":{"path":"/home/user/other/.env"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"hook.before_tool","params":{"tool":"exec","arguments":{"command":"ls"}}}"#,
    ];
    let all = requests.join("\n") + "\n";
    let served = policy(
        &["serve", "picoclaw", "--policy", &policies],
        all.as_bytes(),
    );
    let mut served: Vec<Value> = String::from_utf8(served.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(served.len(), 3);
    // The server decides concurrently: replies come in any order, matched by id.
    served.sort_by_key(|r| r["id"].as_i64());
    for (request, expected) in requests.iter().zip(&served) {
        let out = policy(
            &["eval", "--harness", "picoclaw", "--policy", &policies],
            request.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(&stdout_json(&out), expected, "{request}");
    }
    assert_eq!(served[0]["result"]["action"], "deny_tool");
    let out = policy(
        &["explain", "--harness", "picoclaw", "--policy", &policies],
        requests[0].as_bytes(),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("picoclaw: hook.before_tool of tool `exec` (shell) is asked as the questions below, in order\n"),
        "{text}"
    );
    assert!(
        text.contains("  (the adapter asks nothing further)\n"),
        "{text}"
    );
}

#[test]
fn a_schema_error_in_a_test_file_does_not_hide_its_unknown_rule_ids() {
    let dir = TempDir::new("test-all");
    tested_policy(&dir);
    dir.write(
        "p.test.yaml",
        "tests:\n  - name: rm\n    hook: pre_shell_exec\n    payload: { command: \"rm -rf /\" }\n    expect: { matched: [no-rm-rff] }\n    extra: 1\n",
    );
    let (diags, status) = check_json(&dir, &["p.test.yaml"]);
    assert_eq!(status, Some(1));
    let found: Vec<String> = diags
        .iter()
        .map(|d| {
            format!(
                "{} {}:{}",
                d["code"].as_str().unwrap(),
                d["line"],
                d["column"]
            )
        })
        .collect();
    assert_eq!(
        found,
        ["test::unknown-rule 5:25", "schema::unknown-key 6:5"]
    );
    let out = policy(&["test", &dir.path().display().to_string()], b"");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("test::unknown-rule") && text.contains("schema::unknown-key"),
        "{text}"
    );
}
