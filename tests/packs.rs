//! Guardrail packs through the binary: what ships (`policy packs`), how a
//! policy composes them (`packs:`), what `policy check` says about wrong
//! references and refused loosening, and the log-only outcome as chibi and
//! a coding agent see it.

mod common;

use common::*;
use serde_json::{json, Value};

fn shell(command: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"tool_name": "shell_exec", "command": command})).unwrap()
}

/// The reply of `policy eval` for a shell command under these policy paths.
fn eval_shell(policies: &[&std::path::Path], command: &str) -> Value {
    let mut args = vec!["eval".to_string(), "--hook".into(), "pre_shell_exec".into()];
    for p in policies {
        args.push("--policy".into());
        args.push(p.display().to_string());
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout_json(&policy(&argv, &shell(command)))
}

fn denied(reply: &Value) -> bool {
    reply["denied"] == json!(true)
}

#[cfg(feature = "reference-parser")]
fn check(paths: &[&std::path::Path]) -> (bool, String) {
    let mut args = vec!["check".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&bin(), &argv, &[("NO_COLOR", "1")], b"");
    (out.status.success(), stderr(&out))
}

#[test]
fn policy_packs_lists_and_shows_what_ships() {
    let out = policy(&["packs"], b"");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let core = text
        .lines()
        .find(|l| l.starts_with("core "))
        .unwrap_or_else(|| panic!("no core line in {text}"));
    let words: Vec<&str> = core.split_whitespace().collect();
    assert_eq!(&words[1..4], ["3", "yes", "3"], "{core}");
    assert!(
        core.contains("Recursive deletes outside the project"),
        "{core}"
    );

    let out = policy(&["packs", "show", "core"], b"");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "core.recursive-force-delete  [critical; deny; pre_shell_exec]",
        "why: A recursive delete of `/`, the home directory",
        "reason: recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user",
        "tests (",
        "sudo rm -fr is denied",
        "pre_shell_exec: sudo rm -fr /  =>  denied; matches core.recursive-force-delete",
        "cleaning build output inside the project is routine",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }

    let out = policy(&["packs", "show", "cor"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no pack named `cor` (did you mean `core`?)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_committed_pack_reference_is_fresh() {
    let out = policy(&["packs", "--markdown"], b"");
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    let committed = std::fs::read_to_string(repo().join("docs/packs.md")).unwrap();
    assert!(
        generated == committed,
        "docs/packs.md is stale: run `cargo run -- packs --markdown > docs/packs.md`"
    );
    assert!(generated.contains("| [`core`](#core) | 3 | yes | 3 |"));
}

#[test]
fn the_shipped_policies_enable_the_recommended_packs() {
    let policies = repo().join("policies");
    let reply = eval_shell(&[&policies], "sudo rm -rf /");
    assert_eq!(
        reply["reason"],
        "recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user [hook-policy rule: core.recursive-force-delete]"
    );
    assert_eq!(
        eval_shell(&[&policies], "cargo test && git status"),
        json!({})
    );
}

// `policy check` needs the reference CEL parser (not in the plugin build).
#[cfg(feature = "reference-parser")]
#[test]
fn check_names_every_wrong_reference_with_a_suggestion() {
    let dir = TempDir::new("packs-refs");
    let p = dir.write(
        "p.yaml",
        "version: 1
packs:
  enable: [recomended, core, git, urls]
  disable: [git.push-forc]
  outcome:
    corez: log
  except:
    - rules: urls.loopback-names
      paths: [\"x/**\"]
    - rules: core.recursive-force-delete
      hosts: [\"*\"]
    - rules: core.recursive-force-delete
      commands: [\"rm -rf build\"]
      paths: [\"build/**\"]
    - rules: core.recursive-force-delete
      commands: [\"rm -rf ../build\"]
",
    );
    let (ok, text) = check(&[&p]);
    assert!(!ok);
    for expected in [
        "p.yaml:3:12",
        "no pack named `recomended`",
        "did you mean `recommended`?",
        "p.yaml:4:13",
        "no pack rule named `git.push-forc`",
        "did you mean `git.push-force`?",
        "p.yaml:6:5",
        "no pack named `corez`",
        "did you mean `core`?",
        "p.yaml:8:14",
        "`urls.loopback-names` never sees a path: this exception could never apply",
        "paths exceptions apply to rules on",
        "p.yaml:11:15",
        "`*` would except every host",
        "exactly one of `paths`, `commands` and `hosts`",
        "p.yaml:13:7",
        "6 error(s), 0 warning(s)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // The same policy cannot guard anything: a hook call fails closed.
    let reply = eval_shell(&[&p], "ls");
    assert!(denied(&reply), "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("no pack named `recomended`"),
        "{reply}"
    );
}

// `policy check` needs the reference CEL parser (not in the plugin build).
#[cfg(feature = "reference-parser")]
#[test]
fn disable_outcome_and_exceptions_change_only_what_they_name() {
    let dir = TempDir::new("packs-compose");
    let p = dir.write(
        "p.yaml",
        "version: 1
packs:
  enable: [recommended]
  disable: [filesystem.world-writable]
  outcome:
    git.push-force: ask
  except:
    - rules: core.recursive-force-delete
      commands: [\"rm -rf ../build\"]
      reason: the sibling build directory is ours
",
    );
    let (ok, text) = check(&[&p]);
    assert!(ok, "{text}");
    // Disabled: chmod 777 passes; the rest of the pack is in force.
    assert_eq!(eval_shell(&[&p], "chmod 777 x"), json!({}));
    assert!(denied(&eval_shell(&[&p], "sudo bash")));
    // The exception covers its exact line only.
    assert!(denied(&eval_shell(&[&p], "rm -rf ../dist")));
    assert_eq!(eval_shell(&[&p], "rm -rf ../build"), json!({}));
    assert_eq!(eval_shell(&[&p], "  rm -rf ../build\n"), json!({}));
    for wider in [
        "rm -rf ../build; rm -rf /",
        "rm -rf ../build && rm -rf ~",
        "rm -rf ../build /",
        "rm -rf ../build ~",
        "rm -rf ../build/..",
    ] {
        assert!(denied(&eval_shell(&[&p], wider)), "{wider}");
    }
    // --explain says which exception let it through.
    let out = policy(
        &[
            "explain",
            "--policy",
            &p.display().to_string(),
            "--hook",
            "pre_shell_exec",
        ],
        &shell("rm -rf ../build"),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("excepted by")
            && text.contains("p.yaml:8 (the sibling build directory is ours)"),
        "{text}"
    );
    // ask: Claude Code asks; Codex cannot ask, so it denies saying why.
    let event = |cmd: &str| {
        serde_json::to_vec(&json!({
            "session_id": "s", "cwd": "/project", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": cmd}
        }))
        .unwrap()
    };
    let p_arg = p.display().to_string();
    let out = policy(
        &["hook", "claude-code", "--policy", &p_arg],
        &event("git push --force"),
    );
    let reply = stdout_json(&out);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "ask",
        "{reply}"
    );
    let out = policy(
        &["hook", "codex", "--policy", &p_arg],
        &event("git push --force"),
    );
    let reply = stdout_json(&out);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
}

/// A pack of the user's own (a file with a `pack:` header) takes exceptions
/// for paths and hosts as the shipped packs do, matched after normalisation.
// `policy check` needs the reference CEL parser (not in the plugin build).
#[cfg(feature = "reference-parser")]
#[test]
fn path_and_host_exceptions_are_as_narrow_as_written() {
    let dir = TempDir::new("packs-local");
    let pack = dir.write(
        "mine.yaml",
        "version: 1
pack: { name: mine, version: 1, description: Local rules. }
rules:
  - id: mine.env-files
    description: .env files hold secrets.
    severity: high
    hook: pre_file_read
    path: { glob: [\"**/.env*\"] }
    deny: \"no .env\"
  - id: mine.internal-urls
    description: Internal addresses.
    severity: high
    hook: pre_fetch_url
    url: { class: [internal] }
    deny: \"no internal URLs\"
",
    );
    let p = dir.write(
        "p.yaml",
        "version: 1
packs:
  except:
    - rules: mine.env-files
      paths: [\"config/.env.example\"]
    - rules: mine
      hosts: [\"localhost:3000\"]
",
    );
    // One path, one layer: the exceptions may loosen the pack beside them.
    let (ok, text) = check(&[dir.path()]);
    assert!(ok, "{text}");
    let (ok, text) = check(&[&pack, &p]);
    assert!(
        !ok && text.contains("may not add an exception to `mine.env-files`"),
        "{text}"
    );
    let ask = |hook: &str, payload: Value| {
        let out = policy(
            &[
                "eval",
                "--policy",
                &dir.path().display().to_string(),
                "--hook",
                hook,
                "--project-root",
                "/project",
            ],
            &serde_json::to_vec(&payload).unwrap(),
        );
        denied(&stdout_json(&out))
    };
    let read = |p: &str| {
        ask(
            "pre_file_read",
            json!({"tool_name": "file_head", "path": p}),
        )
    };
    assert!(!read("config/.env.example"));
    assert!(!read("/project/config/./.env.example"));
    assert!(read("config/../.env.example"));
    assert!(read("config/.env"));
    assert!(read("/elsewhere/config/.env.example"));
    let fetch = |u: &str| ask("pre_fetch_url", json!({"tool_name": "fetch_url", "url": u}));
    assert!(!fetch("http://localhost:3000/health"));
    assert!(!fetch("http://LOCALHOST.:3000/"));
    assert!(fetch("http://localhost:3001/"));
    assert!(fetch("http://127.0.0.1:3000/"));
    assert!(fetch("http://[::1]:3000/"));
}

/// A `paths` exception on a shell rule covers a command line only when
/// every path it deletes, moves, changes or writes lies in its globs.
#[test]
fn path_exceptions_cover_shell_lines_whose_every_path_they_name() {
    let dir = TempDir::new("packs-shell-paths");
    dir.write(
        "p.yaml",
        "version: 1
packs:
  enable: [recommended]
  except:
    - rules: core.recursive-force-delete
      paths: [\"/srv/scratch/**\"]
      reason: the scratch disk is emptied by hand
",
    );
    let ask = |command: &str| denied(&eval_shell(&[dir.path()], command));
    assert!(!ask("rm -rf /srv/scratch/run-42"));
    assert!(!ask("cd /srv/scratch && rm -rf run-42 run-43 2>/dev/null"));
    assert!(ask("rm -rf /srv/scratch/run-42 /srv/data"));
    assert!(ask("rm -rf /srv/scratch/../data"));
    assert!(ask("rm -rf /srv/scratch/run-42; rm -rf ~"));
    assert!(ask("rm -rf \"$SCRATCH\""));
    // Other rules are not touched by it.
    assert!(ask("echo '{}' > /srv/scratch/x; rm -rf ~/.claude"));
}

// `policy check` needs the reference CEL parser (not in the plugin build).
#[cfg(feature = "reference-parser")]
#[test]
fn a_later_policy_may_tighten_but_loosens_only_when_the_first_allows_it() {
    let dir = TempDir::new("packs-layers");
    let base = dir.write("base.yaml", "version: 1\npacks:\n  enable: [recommended]\n");
    let tighten = dir.write(
        "tighten.yaml",
        "version: 1\npacks:\n  enable: [core]\n  outcome: { core: deny }\nrules:\n  - id: no-curl\n    hook: pre_shell_exec\n    shell: { program: curl }\n    deny: no curl\n",
    );
    let (ok, text) = check(&[&base, &tighten]);
    assert!(ok, "{text}");
    assert!(denied(&eval_shell(&[&base, &tighten], "curl example.com")));

    let loosen = dir.write(
        "loosen.yaml",
        "version: 1
settings: { on_error: fail_open }
packs:
  disable: [git.push-force]
  outcome: { core.opaque-command: log }
  except:
    - rules: core
      commands: [\"rm -rf ../build\"]
",
    );
    let (ok, text) = check(&[&base, &loosen]);
    assert!(!ok);
    for expected in [
        "loosen.yaml:2:13",
        "a later policy may not make the policy fail open",
        "loosen.yaml:4:13",
        "may not disable `git.push-force`: an earlier policy enabled it",
        "may not weaken `core.opaque-command` from deny to log",
        "may not add an exception to `core.recursive-force-delete`",
        "set `settings:",
        "project_may_loosen: true }` in",
        "4 error(s)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // Refused loosening fails closed rather than running half the base.
    let reply = eval_shell(&[&base, &loosen], "git push --force");
    assert!(denied(&reply), "{reply}");
    // One path (the directory) is one layer: its files are one policy,
    // with nothing earlier to loosen.
    let (ok, text) = check(&[dir.path()]);
    assert!(ok, "{text}");

    // The first policy allows it: the same later policy now applies.
    let base = dir.write(
        "base.yaml",
        "version: 1\nsettings: { project_may_loosen: true }\npacks:\n  enable: [recommended]\n",
    );
    let loosen = dir.write(
        "loosen.yaml",
        "version: 1
packs:
  disable: [git.push-force]
  except:
    - rules: core
      commands: [\"rm -rf ../build\"]
",
    );
    let (ok, text) = check(&[&base, &loosen]);
    assert!(ok, "{text}");
    assert_eq!(eval_shell(&[&base, &loosen], "git push --force"), json!({}));
    assert_eq!(eval_shell(&[&base, &loosen], "rm -rf ../build"), json!({}));
    assert!(denied(&eval_shell(&[&base, &loosen], "rm -rf ../src")));

    // Only the first policy decides that.
    let sneaky = dir.write(
        "sneaky.yaml",
        "version: 1\nsettings: { project_may_loosen: true }\n",
    );
    let strict = dir.write("strict.yaml", "version: 1\npacks:\n  enable: [core]\n");
    let (ok, text) = check(&[&strict, &sneaky]);
    assert!(!ok);
    assert!(
        text.contains("only the first policy decides whether later ones may loosen it"),
        "{text}"
    );
}

const LOG_ONLY: &str = "version: 1
settings: { log: decisions.jsonl }
packs:
  enable: [recommended]
  outcome: { core: log, git.push-force: log }
";

fn log_lines(dir: &TempDir) -> Vec<Value> {
    std::fs::read_to_string(dir.path().join("decisions.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn log_only_in_chibi_replies_nothing_and_logs_what_it_would_have_done() {
    let dir = TempDir::new("packs-log-chibi");
    let p = dir.write("p.yaml", LOG_ONLY);
    let home = ChibiHome::install(&[&p]);
    let payload = json!({"tool_name": "shell_exec", "command": "sudo rm -rf /srv"});
    let out = home.hook("pre_shell_exec", &payload);
    assert_eq!(stdout_json(&out), json!({}), "{}", stderr(&out));
    let ls = json!({"tool_name": "shell_exec", "command": "ls"});
    assert_eq!(home.reply("pre_shell_exec", &ls), json!({}));

    let lines = log_lines(&dir);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["decision"], "log");
    assert_eq!(lines[0]["rule"], Value::Null);
    assert_eq!(lines[0]["matched"], json!([]));
    assert_eq!(
        lines[0]["logged"],
        json!([{
            "rule": "core.recursive-force-delete",
            "would": "deny",
            "reason": "recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user"
        }])
    );
    assert_eq!(lines[1]["decision"], "none");
    assert_eq!(lines[1]["logged"], json!([]));
}

#[test]
fn log_only_in_claude_code_replies_nothing_and_logs_what_it_would_have_done() {
    let dir = TempDir::new("packs-log-claude");
    let p = dir.write("p.yaml", LOG_ONLY);
    let event = serde_json::to_vec(&json!({
        "session_id": "s", "cwd": "/project", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}
    }))
    .unwrap();
    let cache = TempDir::new("packs-log-claude-cache");
    let out = run(
        &bin(),
        &["hook", "claude-code", "--policy", &p.display().to_string()],
        &[("XDG_CACHE_HOME", &cache.path().display().to_string())],
        &event,
    );
    assert_eq!(stdout_json(&out), json!({}), "{}", stderr(&out));
    let lines = log_lines(&dir);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["harness"], "claude-code");
    assert_eq!(lines[0]["decision"], "log");
    assert_eq!(lines[0]["logged"][0]["rule"], "git.push-force");
    assert_eq!(lines[0]["logged"][0]["would"], "deny");
}

/// The plugin's cache stores composed rules: an outcome or exception from
/// `packs:` must hold on a cache hit exactly as on a miss.
#[test]
fn composition_survives_the_plugin_cache() {
    let dir = TempDir::new("packs-cache");
    let p = dir.write(
        "p.yaml",
        "version: 1
packs:
  enable: [recommended]
  outcome: { git.push-force: log }
  except:
    - rules: core.recursive-force-delete
      commands: [\"rm -rf ../build\"]
",
    );
    let home = ChibiHome::install(&[&p]);
    let cache = home.plugin().parent().unwrap().join("cache");
    let ask = |cmd: &str| {
        home.reply(
            "pre_shell_exec",
            &json!({"tool_name": "shell_exec", "command": cmd}),
        )
    };
    // Files younger than two seconds are never cached.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    for round in 0..2 {
        assert_eq!(ask("git push --force"), json!({}), "round {round}");
        assert_eq!(ask("rm -rf ../build"), json!({}), "round {round}");
        assert!(denied(&ask("rm -rf ../build /")), "round {round}");
        assert!(denied(&ask("sudo bash")), "round {round}");
        let entries = std::fs::read_dir(&cache).map(|d| d.count()).unwrap_or(0);
        assert_eq!(
            entries, 1,
            "round {round}: one cache entry for pre_shell_exec"
        );
    }
}

#[test]
fn policy_test_checks_log_only_expectations_and_counts_them_as_coverage() {
    let dir = TempDir::new("packs-test");
    dir.write(
        "p.yaml",
        "version: 1\npacks:\n  enable: [core]\n  outcome: { core.recursive-force-delete: log }\nrules:\n  - id: no-curl\n    hook: pre_shell_exec\n    shell: { program: curl }\n    deny: no curl\n",
    );
    dir.write(
        "p.test.yaml",
        "tests:
  - name: deleting / is only logged
    hook: pre_shell_exec
    payload: { tool_name: shell_exec, command: rm -rf / }
    expect: { reply: {}, logged: [core.recursive-force-delete] }
  - name: curl is denied
    hook: pre_shell_exec
    payload: { tool_name: shell_exec, command: curl x }
    expect: { matched: [no-curl] }
  - name: wrong expectation
    hook: pre_shell_exec
    payload: { tool_name: shell_exec, command: ls }
    expect: { logged: [core.recursive-force-delete] }
",
    );
    let out = policy(
        &[
            "test",
            "--min-coverage",
            "100",
            &dir.path().display().to_string(),
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("test deleting / is only logged ... ok"),
        "{text}"
    );
    assert!(
        text.contains("rule `core.recursive-force-delete` was not logged (logged: none)"),
        "{text}"
    );
    assert!(text.contains("coverage: 100.0% of 1 rule(s)"), "{text}");
    assert!(
        text.contains("3 rule(s) of shipped packs not counted"),
        "{text}"
    );
}

/// Log-only is per rule: `sudo bash` with the root-shell rule in log-only
/// is still denied as a line whose commands cannot be known; with the whole
/// pack in log-only it passes.
#[test]
fn log_only_on_the_root_shell_rule_leaves_the_opaque_rule_in_force() {
    let dir = TempDir::new("packs-log-root-shell");
    let rule = dir.write(
        "rule.yaml",
        "version: 1\npacks:\n  enable: [core]\n  outcome: { core.root-shell: log }\n",
    );
    let reply = eval_shell(&[&rule], "sudo bash");
    assert!(denied(&reply), "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("[hook-policy rule: core.opaque-command]"),
        "{reply}"
    );
    // `sudo bash -c 'make install'` runs only what it shows: log-only.
    assert_eq!(
        eval_shell(&[&rule], "sudo bash -c 'make install'"),
        json!({})
    );
    let pack = dir.write(
        "pack.yaml",
        "version: 1\npacks:\n  enable: [core]\n  outcome: { core: log }\n",
    );
    assert_eq!(eval_shell(&[&pack], "sudo bash"), json!({}));
}

/// A pack file of a shipped pack's name stands in for it only from the same
/// layer or an earlier one: a project cannot empty a pack the base enabled.
#[test]
fn only_the_enabling_layer_may_replace_a_shipped_pack() {
    let dir = TempDir::new("packs-replace");
    let base = dir.write("base.yaml", "version: 1\npacks:\n  enable: [recommended]\n");
    let empty = dir.write(
        "core.yaml",
        "version: 1\npack: { name: core, version: 9, description: Nothing. }\n",
    );
    assert!(denied(&eval_shell(&[&base, &empty], "rm -rf /srv")));
    assert_eq!(eval_shell(&[dir.path()], "rm -rf /srv"), json!({}));
}

/// Pack files keep the pack contract: ids in the pack's namespace, a
/// description and a severity on every rule, no settings of their own.
#[cfg(feature = "reference-parser")]
#[test]
fn check_holds_pack_files_to_the_pack_contract() {
    let dir = TempDir::new("packs-contract");
    let p = dir.write(
        "x.yaml",
        "version: 1
pack: { name: x, version: 1, description: A pack. }
settings: { on_error: fail_closed }
rules:
  - id: other.rule
    hook: pre_shell_exec
    deny: \"stop\"
",
    );
    let (ok, text) = check(&[&p]);
    assert!(!ok);
    for expected in [
        "x.yaml:3:1",
        "a pack has no `settings`",
        "x.yaml:5:9",
        "rule `other.rule` of pack `x` must be named `x.<rule>`",
        "needs a `description`",
        "needs a `severity`",
        "4 error(s)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}
