//! The command line, end to end: `check`, `eval`, `explain`, `schema`, `hooks`.

mod common;

use common::*;
use serde_json::{json, Value};

#[test]
fn check_passes_the_shipped_policies() {
    let out = policy(
        &["check", &repo().join("policies").display().to_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("no problems"));
}

#[test]
fn check_reports_every_problem_with_its_location() {
    let dir = TempDir::new("check");
    dir.write(
        "a.yaml",
        "version: 1\nrules:\n  - id: one\n    hook: pre_shel_exec\n    when_: 'true'\n    deny: \"x\"\n  - id: two\n    hook: pre_shell_exec\n    when: 'command.contains(\"x\"'\n    deny: \"y\"\n  - id: one\n    hook: pre_api_tools\n    deny: \"z\"\n",
    );
    let out = policy(
        &[
            "check",
            "--format",
            "json",
            &dir.path().display().to_string(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let report = stdout_json(&out);
    let found: Vec<(String, u64, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let expect = |code: &str, line: u64, col: u64| {
        assert!(
            found.contains(&(code.to_string(), line, col)),
            "missing {code} at {line}:{col} in {found:?}"
        );
    };
    expect("hook::unknown", 4, 11);
    expect("schema::unknown-key", 5, 5);
    expect("cel::syntax", 9, 32); // the end of the expression: a `)` is missing
    expect("rule::duplicate-id", 11, 9);
    expect("effect::wrong-hook", 13, 5);
    let hint = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "schema::unknown-key")
        .unwrap();
    assert_eq!(hint["help"], "did you mean `when`?");
    assert_eq!(report["summary"]["errors"], json!(found.len()));
}

#[test]
fn check_human_output_shows_the_line_and_a_caret() {
    let dir = TempDir::new("human");
    let p = dir.write("p.yaml", "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'command ==== 1'\n    deny: \"x\"\n");
    let out = policy(&["check", &p.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("p.yaml:5:"), "{text}");
    assert!(text.contains("when: 'command ==== 1'"), "{text}");
    assert!(text.contains('┬') || text.contains('^'), "{text}");
}

#[test]
fn check_exit_2_when_it_cannot_run() {
    let out = policy(&["check", "/nonexistent/policies"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no such file or directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_warnings_fail_only_with_deny_warnings() {
    let dir = TempDir::new("warn");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    deny: \"  \"\n",
    );
    let path = p.display().to_string();
    assert_eq!(policy(&["check", &path], b"").status.code(), Some(0));
    assert_eq!(
        policy(&["check", "--deny-warnings", &path], b"")
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn yaml_booleans_where_text_is_expected_get_a_hint() {
    let dir = TempDir::new("norway");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    deny: no\n",
    );
    let out = policy(
        &["check", "--format", "json", &p.display().to_string()],
        b"",
    );
    let report = stdout_json(&out);
    let d = &report["diagnostics"][0];
    assert_eq!(d["code"], "schema::type");
    assert!(d["help"].as_str().unwrap().contains("quotes"), "{d}");
}

#[test]
fn the_committed_schema_is_fresh() {
    let out = policy(&["schema"], b"");
    let committed = std::fs::read_to_string(repo().join("schema/policy.schema.json")).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        "schema/policy.schema.json is stale: run `cargo run -- schema > schema/policy.schema.json`"
    );
}

#[test]
fn the_committed_hook_reference_is_fresh() {
    let out = policy(&["hooks", "--markdown"], b"");
    let committed = std::fs::read_to_string(repo().join("docs/hooks.md")).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        "docs/hooks.md is stale: run `cargo run -- hooks --markdown > docs/hooks.md`"
    );
}

#[test]
fn an_independent_validator_accepts_the_shipped_policies_and_rejects_bad_ones() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schema/policy.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid JSON Schema");
    let mut checked = 0;
    for entry in std::fs::read_dir(repo().join("policies")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".yaml") || name.ends_with(".test.yaml") {
            continue;
        }
        let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        checked += 1;
    }
    assert!(checked >= 5);
    let bad = json!({"version": 1, "rules": [{"id": "x", "hook": "pre_shel_exec", "deny": "x"}]});
    assert!(!validator.is_valid(&bad));
    let bad = json!({"version": 1, "rules": [{"id": "x", "hook": "pre_shell_exec", "when_": "x"}]});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn eval_reads_captured_fixtures_and_explains() {
    let fixture = fixtures_dir().join("pre_shell_exec__deny_rm_rf.json");
    let out = policy(
        &[
            "eval",
            "--policy",
            &repo().join("policies").display().to_string(),
            "--payload",
            &fixture.display().to_string(),
            "--explain",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout_json(&out)["denied"], json!(true));
    let explanation = stderr(&out);
    assert!(
        explanation.contains("✓ core.recursive-force-delete"),
        "{explanation}"
    );
    assert!(explanation.contains("because: runs rm"), "{explanation}");
    // The force-push rule names `git`, which this line never runs: the
    // program index leaves it out without evaluating it; so are the rules
    // whose conditions need `bash`, `nc` or `/dev/` (root shells, reverse
    // shells, device writes); the opaque-line rule only sees lines with
    // something that cannot be known. What remains: the rules about rm
    // (core's recursive delete, system files, the home's own configuration,
    // globs of the home's files, files under .git), and the rules on
    // written paths, since the line writes a file (`touch`): the
    // hook-settings guard, system files, shell startup files, the SSH
    // client's configuration and git's own files.
    assert!(
        explanation.contains("170 rule(s) for this hook, 11 candidate(s) after indexing"),
        "{explanation}"
    );
    assert!(!explanation.contains("git.push-force"), "{explanation}");
    assert!(
        !explanation.contains("core.opaque-command"),
        "{explanation}"
    );
}

#[test]
fn eval_reads_a_bare_payload_from_stdin() {
    let out = policy(
        &[
            "eval",
            "--policy",
            &repo().join("examples/policies").display().to_string(),
            "--hook",
            "pre_api_request",
        ],
        br#"{"context_name": "creative", "request_body": {}}"#,
    );
    assert_eq!(
        stdout_json(&out),
        json!({"request_body": {"temperature": 1.2, "top_p": 0.95}})
    );
}

#[test]
fn eval_suggests_a_hook_name() {
    let out = policy(
        &["eval", "--policy", "policies", "--hook", "pre_shell_exe"],
        b"{}",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `pre_shell_exec`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn explain_shows_indexing_and_combination() {
    let dir = TempDir::new("explain");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: post_tool_batch\n    when: context_name == 'x'\n    fuel_delta: -1\n  - id: b\n    hook: post_tool_batch\n    when: context_name == 'y'\n    fuel_delta: -2\n  - id: c\n    hook: post_tool_batch\n    fuel_delta: -3\n    fallback: call_user\n",
    );
    let out = policy(
        &[
            "explain",
            "--policy",
            &p.display().to_string(),
            "--hook",
            "post_tool_batch",
        ],
        br#"{"context_name": "x", "current_fallback": "call_agent", "tool_calls": []}"#,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("3 rule(s) for this hook, 2 candidate(s) after indexing"),
        "{text}"
    );
    assert!(text.contains("fuel_delta (sum): -4"), "{text}");
    assert!(!text.contains(" b ("), "rule b is not a candidate: {text}");
}

#[test]
fn regexes_inside_conditions_are_checked_where_they_are_written() {
    let dir = TempDir::new("regex");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: command.matches('rm (-rf')\n    deny: \"x\"\n",
    );
    let out = policy(
        &["check", "--format", "json", &p.display().to_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let d = &stdout_json(&out)["diagnostics"][0];
    let got = (d["code"].as_str(), d["line"].as_u64(), d["column"].as_u64());
    assert_eq!(got, (Some("regex::invalid"), Some(5), Some(27)), "{d}");
}

#[test]
fn every_schema_property_is_documented() {
    let text = std::fs::read_to_string(repo().join("schema/policy.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    fn walk(v: &Value, path: &str, missing: &mut Vec<String>) {
        if let Some(props) = v.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                if prop.get("description").is_none() {
                    missing.push(format!("{path}.{name}"));
                }
                walk(prop, &format!("{path}.{name}"), missing);
            }
        }
        if let Some(defs) = v.get("$defs").and_then(Value::as_object) {
            for (name, def) in defs {
                walk(def, name, missing);
            }
        }
    }
    let mut missing = Vec::new();
    walk(&schema, "", &mut missing);
    assert!(
        missing.is_empty(),
        "properties without a description: {missing:?}"
    );
}

/// Editors show schema examples as completions: each must be valid where it
/// stands, and each whole-rule or whole-file example must pass `policy check`.
#[test]
fn every_schema_example_is_valid_and_whole_examples_load() {
    let text = std::fs::read_to_string(repo().join("schema/policy.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    // Where each definition sits in a policy file, to place a field example.
    let place = |def: &str, prop: &str, example: &Value| -> Value {
        let mut inner = serde_json::Map::new();
        inner.insert(prop.to_string(), example.clone());
        let inner = Value::Object(inner);
        let rule = |extra: (&str, Value)| {
            let mut r = serde_json::json!({ "id": "example", "hook": "pre_tool" });
            r[extra.0] = extra.1;
            serde_json::json!({ "version": 1, "rules": [r] })
        };
        match def {
            "" => {
                let mut doc = serde_json::json!({ "version": 1 });
                doc[prop] = example.clone();
                doc
            }
            "Settings" => serde_json::json!({ "version": 1, "settings": inner }),
            "PackHeader" => {
                let mut header = serde_json::json!({"name": "p", "version": 1, "description": "d"});
                header[prop] = example.clone();
                serde_json::json!({ "version": 1, "pack": header })
            }
            "PackSelection" => serde_json::json!({ "version": 1, "packs": inner }),
            "PackException" => {
                let mut exception = serde_json::json!({ "rules": "git.reset-hard" });
                if !["paths", "commands", "hosts"].contains(&prop) {
                    exception["commands"] = serde_json::json!(["git reset --hard HEAD"]);
                }
                exception[prop] = example.clone();
                serde_json::json!({ "version": 1, "packs": { "except": [exception] } })
            }
            "Rule" => rule((prop, example.clone())),
            "ShellMatch" => rule(("shell", inner)),
            "UrlMatch" => rule(("url", inner)),
            "PathMatch" => rule(("path", inner)),
            "ToolFilter" => rule(("tools", inner)),
            "ContentMatch" => rule(("content", inner)),
            other => panic!("no placement for examples of {other}; add one to this test"),
        }
    };
    let mut missing = Vec::new();
    let mut checked = 0;
    let mut objects = vec![("".to_string(), &schema)];
    for (name, def) in schema["$defs"].as_object().unwrap() {
        objects.push((name.clone(), def));
    }
    for (def, obj) in &objects {
        let Some(props) = obj.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (prop, sub) in props {
            let examples = sub.get("examples").and_then(Value::as_array);
            match examples {
                None if ["version", "rules"].contains(&prop.as_str()) => {}
                None => missing.push(format!("{def}.{prop}")),
                Some(list) => {
                    for example in list {
                        let doc = place(def, prop, example);
                        let errors: Vec<String> =
                            validator.iter_errors(&doc).map(|e| e.to_string()).collect();
                        assert!(
                            errors.is_empty(),
                            "example {example} of {def}.{prop}: {errors:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "properties without examples: {missing:?}"
    );
    assert!(checked > 40, "only {checked} field examples");

    // Whole examples go through the real linter, warnings included.
    let dir = TempDir::new("schema-examples");
    let mut files = Vec::new();
    for (i, example) in schema["examples"].as_array().unwrap().iter().enumerate() {
        files.push(dir.write(
            &format!("file{i}.yaml"),
            &serde_json::to_string_pretty(example).unwrap(),
        ));
    }
    for (i, rule) in schema["$defs"]["Rule"]["examples"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let doc = serde_json::json!({ "version": 1, "rules": [rule] });
        files.push(dir.write(
            &format!("rule{i}.yaml"),
            &serde_json::to_string_pretty(&doc).unwrap(),
        ));
    }
    assert!(files.len() >= 5);
    for file in files {
        let out = policy(
            &["check", "--deny-warnings", &file.display().to_string()],
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// The hook path parses with the fast parser and `policy check` with the
/// reference one: they must build the same tree for every shipped expression.
#[test]
fn both_cel_parsers_agree_on_the_shipped_policies() {
    // packs/ first: its files stand in for the packs policies/ enables.
    let (set, diags) = hook_policy::load::load(&[
        repo().join("packs"),
        repo().join("policies"),
        repo().join("examples/policies"),
    ]);
    assert!(diags.is_empty(), "{diags:?}");
    let mut checked = 0;
    for loaded in &set.rules {
        let mut sources: Vec<String> = loaded.rule.when.iter().cloned().collect();
        for text in [&loaded.rule.deny, &loaded.rule.block]
            .into_iter()
            .flatten()
        {
            if let Ok(hook_policy::expr::template::Template::Interpolated(pieces)) =
                hook_policy::expr::template::parse(text)
            {
                for p in pieces {
                    if let hook_policy::expr::template::Piece::Expr { source, .. } = p {
                        sources.push(source.to_string());
                    }
                }
            }
        }
        for source in sources {
            let fast = hook_policy::expr::parse_fast(&source).unwrap();
            let reference = hook_policy::expr::compile(&source).unwrap();
            assert_eq!(
                hook_policy::expr::strip_ids(&fast),
                hook_policy::expr::strip_ids(reference.expression()),
                "{source}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn policy_test_passes_the_shipped_suites_with_full_coverage() {
    let out = policy(
        &[
            "test",
            "--min-coverage",
            "100",
            &repo().join("policies").display().to_string(),
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("coverage: 100.0%"), "{text}");
}

#[test]
fn policy_test_reports_failures_and_uncovered_rules() {
    let dir = TempDir::new("ptest");
    dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    when: command == 'x'\n    deny: \"no x\"\n  - id: b\n    hook: pre_shell_exec\n    when: command == 'y'\n    deny: \"no y\"\n",
    );
    dir.write(
        "p.test.yaml",
        "tests:\n  - name: x is denied\n    hook: pre_shell_exec\n    payload: { tool_name: t, command: x }\n    expect: { reply_includes: { denied: true }, matched: [a] }\n  - name: wrong expectation\n    hook: pre_shell_exec\n    payload: { tool_name: t, command: z }\n    expect: { reply: { denied: true } }\n",
    );
    let out = policy(
        &["test", "--coverage", &dir.path().display().to_string()],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("test x is denied ... ok"), "{text}");
    assert!(text.contains("test wrong expectation ... FAILED"), "{text}");
    assert!(
        text.contains("expected: {\"denied\":true}") && text.contains("actual:   {}"),
        "{text}"
    );
    assert!(text.contains("not covered: b"), "{text}");
    assert!(text.contains("1 passed; 1 failed"), "{text}");

    // Passing cases, but coverage below the bar.
    dir.write("p.test.yaml", "tests:\n  - name: x is denied\n    hook: pre_shell_exec\n    payload: { tool_name: t, command: x }\n    expect: { matched: [a] }\n");
    let out = policy(
        &[
            "test",
            "--min-coverage",
            "80",
            &dir.path().display().to_string(),
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("coverage 50.0% is below the required 80%"),
        "{text}"
    );
}

#[test]
fn check_speaks_sarif_and_github_annotations() {
    let dir = TempDir::new("formats");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shel_exec\n    deny: \"x\"\n",
    );
    let path = p.display().to_string();
    let out = policy(&["check", "--format", "sarif", &path], b"");
    assert_eq!(out.status.code(), Some(1));
    let sarif = stdout_json(&out);
    assert_eq!(sarif["version"], "2.1.0");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "hook::unknown");
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startColumn"],
        11
    );
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"],
        "hook::unknown"
    );

    let out = policy(&["check", "--format", "github", &path], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("::error file="), "{text}");
    assert!(text.contains("line=4,col=11"), "{text}");
    assert!(text.contains("title=hook%3A%3Aunknown"), "{text}");
    assert!(
        !text.trim_end().contains('\n'),
        "one line per problem: {text}"
    );
}

#[test]
fn a_closed_stdout_is_not_a_crash() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(bin())
        .arg("schema")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn conditions_are_type_checked_against_the_hook_payloads() {
    let dir = TempDir::new("types");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_agentic_loop\n    when: fuel_remaining < 5 && mesage.contains('x')\n    fallback: call_user\n  - id: b\n    hook: pre_api_tools\n    when: tools.contains('shell_exec')\n    tools: { exclude: [shell_exec] }\n",
    );
    let out = policy(
        &["check", "--format", "json", &p.display().to_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let report = stdout_json(&out);
    let found: Vec<(String, String, u64, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let expect = |code: &str, sev: &str, line: u64, col: u64| {
        assert!(
            found.contains(&(code.into(), sev.into(), line, col)),
            "missing {code} {sev} {line}:{col} in {found:?}"
        );
    };
    expect("cel::unguarded-optional", "warning", 5, 11);
    expect("cel::unknown-variable", "error", 5, 33);
    expect("cel::wrong-type", "error", 9, 11);
    let unknown = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "cel::unknown-variable")
        .unwrap();
    assert_eq!(unknown["help"], "did you mean `message`?");
}

#[test]
fn comparisons_and_fuel_values_are_type_checked_through_the_cli() {
    let dir = TempDir::new("types2");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_agentic_loop\n    when: has(payload.fuel_remaining) && fuel_remaining == \"5\"\n    fallback: call_user\n  - id: b\n    hook: post_tool_batch\n    fuel_delta: ${{ 'five' }}\n",
    );
    let out = policy(
        &["check", "--format", "json", &p.display().to_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let report = stdout_json(&out);
    let diags = report["diagnostics"].as_array().unwrap();
    let find = |code: &str| {
        diags
            .iter()
            .find(|d| d["code"] == code)
            .unwrap_or_else(|| panic!("no {code} in {diags:?}"))
    };
    let cmp = find("cel::wrong-type");
    assert_eq!(
        (cmp["line"].as_u64(), cmp["column"].as_u64()),
        (Some(5), Some(57))
    );
    assert!(
        cmp["message"].as_str().unwrap().contains("always false"),
        "{cmp}"
    );
    assert!(
        cmp["help"].as_str().unwrap().contains("without quotes"),
        "{cmp}"
    );
    let int = find("cel::not-integer");
    assert_eq!(int["line"].as_u64(), Some(9));
}

#[test]
fn explain_shows_the_value_of_each_part_of_a_condition() {
    let dir = TempDir::new("parts");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: keys\n    hook: pre_file_write\n    when: has(payload.content) && content != null && content.contains('KEY')\n    deny: \"x\"\n",
    );
    let out = policy(
        &[
            "explain",
            "--policy",
            &p.display().to_string(),
            "--hook",
            "pre_file_write",
        ],
        br#"{"tool_name": "file_edit", "path": "src/a.rs", "content": null}"#,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("has(payload.content)  ⇒ true"), "{text}");
    assert!(text.contains("content != null  ⇒ false"), "{text}");
    assert!(text.contains("✗ keys"), "{text}");
}

#[test]
fn deep_lint_warns_about_rules_that_cannot_work_as_written() {
    let dir = TempDir::new("lint");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    deny: \"all\"\n  - id: b\n    hook: pre_shell_exec\n    when: command == 'x' && command == 'y'\n    deny: \"never\"\n  - id: c\n    hook: pre_api_tools\n    tools: { include: [t1, t2] }\n  - id: d\n    hook: pre_api_tools\n    tools: { include: [t3] }\n  - id: e\n    hook: post_tool_batch\n    when: tool_calls.exists(c, tool_calls.exists(d, d.name == c.name))\n    fuel_delta: -1\n  - id: f\n    hook: post_tool_batch\n    when: tool_calls.exists(c, c.arguments.exists(k, k == 'force'))\n    fuel_delta: -1\n",
    );
    let path = p.display().to_string();
    let out = policy(&["check", "--format", "json", &path], b"");
    assert_eq!(out.status.code(), Some(0), "warnings alone pass");
    let report = stdout_json(&out);
    let found: Vec<(String, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    for expected in [
        ("lint::never-matches", 6),
        ("lint::shadowed", 6),
        ("lint::empty-include", 13),
        ("lint::expensive", 16),
    ] {
        assert!(
            found.contains(&(expected.0.to_string(), expected.1)),
            "missing {expected:?} in {found:?}"
        );
    }
    assert!(
        !found
            .iter()
            .any(|(c, l)| c == "lint::expensive" && *l == 20),
        "a loop over each element's own map is not a product: {found:?}"
    );
    assert_eq!(
        policy(&["check", "--deny-warnings", &path], b"")
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn rules_that_can_match_together_and_disagree_are_reported() {
    let dir = TempDir::new("lint-conflict");
    let yaml = "\
version: 1
rules:
  - id: ci-budget
    hook: post_tool_batch
    when: context_name == 'ci'
    fuel: 5
  - id: long-batches
    hook: post_tool_batch
    when: size(tool_calls) > 3
    fuel: 8
    fallback: call_user
  - id: nearly-empty
    hook: post_tool_batch
    when: has(payload.fuel_remaining) && fuel_remaining < 3
    fallback: call_agent
  - id: plenty-left
    hook: post_tool_batch
    when: has(payload.fuel_remaining) && fuel_remaining >= 3
    fallback: call_user
  - id: default-budget
    hook: post_tool_batch
    fuel: 30
  - id: dev-budget
    hook: post_tool_batch
    when: context_name == 'dev'
    fuel: 12
  - id: cold-in-ci
    hook: pre_api_request
    when: context_name == 'ci'
    request: { temperature: 0, max_tokens: 500 }
  - id: warm-in-dev
    hook: pre_api_request
    when: context_name in ['dev', 'local']
    request: { temperature: 1 }
  - id: short-when-low
    hook: pre_api_request
    when: has(payload.fuel_remaining) && fuel_remaining < 2
    request: { max_tokens: 100 }
  - id: memory-only-in-ci
    hook: pre_api_tools
    when: context_name == 'ci'
    tools: { include: [update_goals, update_reflection] }
  - id: shell-only-when-low
    hook: pre_api_tools
    when: has(payload.fuel_remaining) && fuel_remaining < 2
    tools: { include: [shell_exec] }
";
    let p = dir.write("p.yaml", yaml);
    let path = p.display().to_string();
    let out = policy(&["check", "--format", "json", &path], b"");
    assert_eq!(out.status.code(), Some(0), "warnings alone pass");
    let report = stdout_json(&out);
    let found: Vec<(String, u64, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let at = |code: &str| -> Vec<u64> {
        found
            .iter()
            .filter(|(c, ..)| c == code)
            .map(|(_, l, _)| *l)
            .collect()
    };
    // long-batches vs ci-budget (fuel 5/8), nearly-empty vs long-batches
    // (fallback), short-when-low vs cold-in-ci (max_tokens). Not reported:
    // opposite fuel_remaining tests, disjoint context names, the
    // unconditional default, temperatures set only by exclusive rules, and
    // dev-budget, whose fuel the default already shadows.
    assert_eq!(at("lint::conflict"), vec![7, 12, 35], "{found:?}");
    assert_eq!(at("lint::shadowed"), vec![23], "{found:?}");
    assert_eq!(at("lint::empty-include"), vec![43], "{found:?}");
    let fuel = &found
        .iter()
        .find(|(c, l, _)| c == "lint::conflict" && *l == 7)
        .unwrap()
        .2;
    assert!(
        fuel.contains("`ci-budget` and `long-batches`") && fuel.contains("`fuel` to 5 and 8"),
        "{fuel}"
    );
    let tokens = &found
        .iter()
        .find(|(c, l, _)| c == "lint::conflict" && *l == 35)
        .unwrap()
        .2;
    assert!(
        tokens.contains("`request.max_tokens` to 500 and 100"),
        "{tokens}"
    );
    // The human rendering names the winner and says how to resolve it.
    let human = policy(&["check", &path], b"");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&human.stdout),
        String::from_utf8_lossy(&human.stderr)
    );
    assert!(
        text.contains("lint::conflict") && text.contains("lower priority number"),
        "{text}"
    );
    assert_eq!(
        policy(&["check", "--deny-warnings", &path], b"")
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn misspelt_tool_names_and_types_are_pointed_at() {
    let dir = TempDir::new("lint-tools");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: hide-edits\n    hook: pre_api_tools\n    tools: { exclude: [fiel_edit, \"type:fs-write\", jira_create_issue, \"vfs_*\"] }\n  - id: few\n    hook: pre_api_tools\n    tools: { include: [shell_exec, \"type:filesystem\"] }\n",
    );
    let out = policy(&["check", "--format", "json", p.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "warnings alone pass");
    let report = stdout_json(&out);
    let found: Vec<(u64, u64, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "lint::unknown-tool")
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // The plugin tool `jira_create_issue` and the glob are not reported.
    assert_eq!(
        found,
        vec![
            (5, 24, "did you mean `file_edit`?".to_string()),
            (5, 35, "did you mean `type:fs_write`?".to_string()),
            (8, 36, "tool types are flow, fs_read, fs_write, index, memory, network, plugin, shell, vfs".to_string()),
        ],
        "{report}"
    );
}

#[test]
fn patterns_that_can_never_match_are_pointed_at() {
    let dir = TempDir::new("lint-dead");
    let p = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: a\n    hook: pre_shell_exec\n    shell: { arg: 'x$^y' }\n    deny: \"no\"\n  - id: b\n    hook: pre_file_read\n    path: { glob: ['**/*.pem', '~/.ssh/'] }\n    deny: \"no\"\n  - id: c\n    hook: pre_shell_exec\n    when: command.matches('a$b')\n    deny: \"no\"\n  - id: d\n    hook: pre_file_write\n    content: { regex: '[^\\s\\S]' }\n    deny: \"no\"\n  - id: e\n    hook: pre_shell_exec\n    shell: { arg: '^/$' }\n    deny: \"no\"\n",
    );
    let out = policy(&["check", "--format", "json", p.to_str().unwrap()], b"");
    let report = stdout_json(&out);
    let found: Vec<(String, u64, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let dead: Vec<(u64, u64)> = found
        .iter()
        .filter(|(c, ..)| c == "lint::never-matches")
        .map(|(_, l, c)| (*l, *c))
        .collect();
    // Each dead pattern at its own position (the second glob of the list,
    // the literal inside the CEL call); the live `^/$` is not reported.
    assert_eq!(
        dead,
        vec![(5, 19), (9, 32), (13, 27), (17, 23)],
        "{found:?}"
    );
}
