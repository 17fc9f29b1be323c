//! Cline through `policy hook cline`: PreToolUse events shaped as Cline's
//! hooks page shows them (docs.cline.bot/customization/hooks), exact replies
//! out. Cline runs the tool when its hook fails (non-zero exit without JSON,
//! no JSON, a timeout), so the failure cases matter as much as the
//! verdicts; and its hook is a script, so install is tested by running the
//! script it writes.

mod common;

use common::{bin, repo, run, stderr, stdout_json, TempDir};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

const RM_RF: &str = "recursive delete outside the project (or of the project root, its .git, home or a system path) is not allowed; delete the specific directories inside the project, or ask the user [hook-policy rule: core.recursive-force-delete]";
const SSH: &str = "this file holds credentials and is off limits; ask the user for the one non-secret value you need, or use the matching .example file [hook-policy rule: file-secrets.credential-file-tool]";
// A path inside a list is not in the tool gate's view: the read rule answers.
const SSH_READ: &str =
    "/home/user/.ssh/id_rsa holds keys; it is off limits [hook-policy rule: no-ssh-material]";
const METADATA_FETCH: &str =
    "the cloud metadata endpoint is off limits [hook-policy rule: no-cloud-metadata]";
const METADATA: &str = "this URL does not lead to the public internet (loopback, private, link-local or metadata address); use the public address, or ask the user [hook-policy rule: urls.internal-destination-tool]";

fn hook(policy: &Path, event: &[u8], env: &[(&str, &str)]) -> Output {
    let mut vars = vec![("HOME", "/home/user"), ("HOOK_POLICY_CACHE", "off")];
    vars.extend_from_slice(env);
    run(
        &bin(),
        &["hook", "cline", "--policy", policy.to_str().unwrap()],
        &vars,
        event,
    )
}

fn shipped(event: &Value) -> Output {
    hook(&repo().join("policies"), event.to_string().as_bytes(), &[])
}

/// A PreToolUse event with the page's common fields ("Input Structure")
/// and the tool's `preToolUse` part ("PreToolUse").
fn event(tool: &str, parameters: Value) -> Value {
    json!({
        "taskId": "abc123",
        "hookName": "PreToolUse",
        "clineVersion": "3.17.0",
        "timestamp": "1736654400000",
        "workspaceRoots": ["/home/user/proj"],
        "userId": "user_123",
        "model": {"provider": "openrouter", "slug": "anthropic/claude-sonnet-4.5"},
        "preToolUse": {"toolName": tool, "parameters": parameters},
    })
}

fn cancel(reason: &str) -> Value {
    json!({"cancel": true, "errorMessage": reason})
}

/// Exit status 0 and exactly this JSON on stdout.
fn assert_reply(out: &Output, want: Value) {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout_json(out), want, "{out:?}");
}

#[test]
fn a_dangerous_command_is_cancelled_and_a_benign_call_left_to_cline() {
    let out = shipped(&event(
        "execute_command",
        json!({"command": "rm -rf ~", "requires_approval": "true"}),
    ));
    assert_reply(&out, cancel(RM_RF));
    // The page's own example call: no opinion, and never an allow.
    let out = shipped(&event(
        "write_to_file",
        json!({"path": "src/config.ts", "content": "export const x = 1;\n"}),
    ));
    assert_reply(&out, json!({"cancel": false}));
    let out = shipped(&event("execute_command", json!({"command": "npm test"})));
    assert_reply(&out, json!({"cancel": false}));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("allow"));
}

#[test]
fn cline_4_tools_are_judged_on_every_entry_of_their_lists() {
    // run_commands: the list arrives as JSON text; the second command decides.
    let commands = json!(["ls", "rm -rf ~"]).to_string();
    let out = shipped(&event("run_commands", json!({"commands": commands})));
    assert_reply(&out, cancel(RM_RF));
    // A command given as argv ({command, args}) is a command line too.
    let argv = json!([{"command": "rm", "args": ["-rf", "/home/user"]}]).to_string();
    let out = shipped(&event("run_commands", json!({"commands": argv})));
    assert_reply(&out, cancel(RM_RF));
    // The Cline CLI names the event tool_call, with the same preToolUse part.
    let mut cli = event("run_commands", json!({"commands": commands}));
    cli["hookName"] = json!("tool_call");
    cli["tool_call"] =
        json!({"id": "call_1", "name": "run_commands", "input": {"commands": ["ls", "rm -rf ~"]}});
    assert_reply(&shipped(&cli), cancel(RM_RF));
    // read_files: every file of the list.
    let files = json!([{"path": "/home/user/proj/README.md"}, {"path": "/home/user/.ssh/id_rsa", "start_line": 1}]);
    let out = shipped(&event("read_files", json!({"files": files.to_string()})));
    assert_reply(&out, cancel(SSH_READ));
    // Cline 3's read_file names the path itself: the tool gate answers.
    let out = shipped(&event(
        "read_file",
        json!({"path": "/home/user/.ssh/id_rsa"}),
    ));
    assert_reply(&out, cancel(SSH));
    // fetch_web_content: every URL of its requests.
    let requests =
        json!([{"url": "http://169.254.169.254/latest/meta-data/", "prompt": "read it"}]);
    let out = shipped(&event(
        "fetch_web_content",
        json!({"requests": requests.to_string()}),
    ));
    assert_reply(&out, cancel(METADATA_FETCH));
    // The other shapes run_commands accepts: one command, or a bare list
    // (which reaches the hook keyed by index).
    let out = shipped(&event("run_commands", json!({"command": "rm -rf ~"})));
    assert_reply(&out, cancel(RM_RF));
    let out = shipped(&event("run_commands", json!({"0": "ls", "1": "rm -rf ~"})));
    assert_reply(&out, cancel(RM_RF));
    // Harmless lists say nothing.
    let out = shipped(&event(
        "run_commands",
        json!({"commands": json!(["ls", "cargo build"]).to_string()}),
    ));
    assert_reply(&out, json!({"cancel": false}));
}

#[test]
fn mcp_tools_reach_the_tool_gate_by_name_and_their_urls_are_checked() {
    let url = json!({"url": "http://169.254.169.254/latest/meta-data/"}).to_string();
    let out = shipped(&event(
        "use_mcp_tool",
        json!({"server_name": "web", "tool_name": "fetch", "arguments": url}),
    ));
    assert_reply(&out, cancel(METADATA));

    let dir = TempDir::new("cline-gate");
    let policy = dir.write(
        "gate.yaml",
        "version: 1\nrules:\n  - id: no-plugins\n    hook: pre_api_tools\n    tools: { exclude: ['type:plugin'] }\n",
    );
    let call =
        |tool: &str, params: Value| hook(&policy, event(tool, params).to_string().as_bytes(), &[]);
    let out = call(
        "use_mcp_tool",
        json!({"server_name": "db", "tool_name": "query", "arguments": "{\"sql\": \"SELECT 1\"}"}),
    );
    assert_reply(
        &out,
        cancel("the tool `mcp__db__query` is not offered under this policy [hook-policy rule: no-plugins]"),
    );
    // Cline 4 names MCP tools <server>__<tool>; unlisted, they are plugins.
    let out = call("db__query", json!({"sql": "SELECT 1"}));
    assert_reply(
        &out,
        cancel(
            "the tool `db__query` is not offered under this policy [hook-policy rule: no-plugins]",
        ),
    );
    // Cline's own tools are left alone.
    let out = call("read_file", json!({"path": "/home/user/proj/a.ts"}));
    assert_reply(&out, json!({"cancel": false}));
}

#[test]
fn a_malformed_event_is_cancelled() {
    let policies = repo().join("policies");
    let bad_events: Vec<Vec<u8>> = vec![
        b"not json".to_vec(),
        b"[]".to_vec(),
        json!({"preToolUse": {"toolName": "read_file", "parameters": {}}})
            .to_string()
            .into_bytes(),
        json!({"hookName": "PreToolUse"}).to_string().into_bytes(),
        event("", json!({})).to_string().into_bytes(),
        event("read_file", json!("path")).to_string().into_bytes(),
        event(
            "use_mcp_tool",
            json!({"server_name": "s", "tool_name": "t", "arguments": "[1]"}),
        )
        .to_string()
        .into_bytes(),
        event("use_mcp_tool", json!({"tool_name": "t"}))
            .to_string()
            .into_bytes(),
    ];
    for bad in &bad_events {
        let out = hook(&policies, bad, &[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let reply = stdout_json(&out);
        assert_eq!(
            reply["cancel"],
            true,
            "{}: {reply}",
            String::from_utf8_lossy(bad)
        );
        assert!(
            reply["errorMessage"]
                .as_str()
                .unwrap()
                .starts_with("hook-policy could not decide, so it denies (fail closed): "),
            "{reply}"
        );
        assert!(stderr(&out).starts_with("hook-policy: cline: "), "{out:?}");
    }
    // A run_commands call that shows no command cannot be judged.
    let out = shipped(&event("run_commands", json!({})));
    assert_reply(
        &out,
        cancel(
            "the `run_commands` call names no command that hook-policy can check, so it is denied",
        ),
    );
}

#[test]
fn other_hooks_are_left_alone() {
    for name in ["TaskStart", "PostToolUse", "UserPromptSubmit"] {
        let mut e = event("execute_command", json!({"command": "rm -rf ~"}));
        e["hookName"] = json!(name);
        assert_reply(&shipped(&e), json!({"cancel": false}));
    }
}

#[test]
fn an_unknown_hook_name_is_not_waved_through() {
    // Other capitals or a renamed event may still be a tool call.
    for name in ["pretooluse", "PreToolCall"] {
        let mut e = event("execute_command", json!({"command": "ls"}));
        e["hookName"] = json!(name);
        let out = shipped(&e);
        let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(reply["cancel"], json!(true), "{name}: {reply}");
        assert!(
            reply["errorMessage"]
                .as_str()
                .unwrap()
                .contains(&format!("unknown event `{name}`")),
            "{reply}"
        );
    }
}

#[test]
fn a_broken_policy_or_the_deadline_cancels_unless_the_policy_fails_open() {
    let dir = TempDir::new("cline-broken");
    let broken = dir.write(
        "broken.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'command =='\n    deny: x\n",
    );
    let ls = event("execute_command", json!({"command": "ls"}));
    let out = hook(&broken, ls.to_string().as_bytes(), &[]);
    let reply = stdout_json(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(reply["cancel"], true, "{reply}");
    let message = reply["errorMessage"].as_str().unwrap();
    assert!(
        message.contains("fail closed") && message.contains("does not load"),
        "{message}"
    );

    let open = dir.write(
        "open.yaml",
        "version: 1\nsettings: { on_error: fail_open }\nrules:\n  - id: x\n    hook: pre_shell_exec\n    when: 'int(command) > 3'\n    deny: x\n",
    );
    let out = hook(&open, ls.to_string().as_bytes(), &[]);
    assert_reply(&out, json!({"cancel": false}));
    assert!(!stderr(&out).is_empty());

    let slow = dir.write(
        "slow.yaml",
        "version: 1\nrules:\n  - id: slow\n    hook: pre_shell_exec\n    when: command.split(' ').exists(a, command.split(' ').exists(b, a + b == 'never'))\n    deny: x\n",
    );
    let words = vec!["w"; 20_000].join(" ");
    let started = std::time::Instant::now();
    let out = hook(
        &slow,
        event("execute_command", json!({"command": words}))
            .to_string()
            .as_bytes(),
        &[("HOOK_POLICY_DEADLINE_MS", "300")],
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let reply = stdout_json(&out);
    assert_eq!(reply["cancel"], true, "{reply}");
    assert!(
        reply["errorMessage"]
            .as_str()
            .unwrap()
            .contains("longer than 300 ms"),
        "{reply}"
    );
    // Well within Cline's own 30 s, after which it would run the tool.
    assert!(took.as_secs() < 10, "answered after {took:?}");
}

#[test]
fn an_ask_or_a_rewrite_cancels_since_cline_hooks_have_neither() {
    let dir = TempDir::new("cline-ask");
    let policy = dir.write(
        "ask.yaml",
        "version: 1\nrules:\n  - id: confirm-push\n    hook: pre_shell_exec\n    when: command.startsWith('git push')\n    ask: pushing needs a human\n  - id: quiet-npm\n    hook: pre_tool\n    when: has(arguments.command) && arguments.command == 'npm i'\n    arguments: { command: 'npm i --silent' }\n",
    );
    let call = |command: &str| {
        let out = hook(
            &policy,
            event("execute_command", json!({"command": command}))
                .to_string()
                .as_bytes(),
            &[],
        );
        stdout_json(&out)
    };
    assert_eq!(
        call("git push"),
        cancel("needs the user's approval, which Cline hooks cannot ask for: pushing needs a human [hook-policy rule: confirm-push]")
    );
    assert_eq!(
        call("npm i"),
        cancel("the policy rewrites the arguments of this call, which Cline hooks cannot do, so it is denied [hook-policy rule: quiet-npm]")
    );
}

#[test]
fn the_project_root_is_clines_workspace_not_the_models_choice() {
    let dir = TempDir::new("cline-root");
    let policy = dir.write(
        "root.yaml",
        "version: 1\nrules:\n  - id: stay-home\n    hook: pre_file_write\n    when: \"!path.startsWith(project_root + '/')\"\n    deny: outside the project\n",
    );
    let write = |path: &str, env: &[(&str, &str)]| {
        let e = event("write_to_file", json!({"path": path, "content": "x"}));
        stdout_json(&hook(&policy, e.to_string().as_bytes(), env))
    };
    assert_eq!(
        write("/home/user/proj/a.txt", &[]),
        json!({"cancel": false})
    );
    assert_eq!(
        write("/home/user/other/a.txt", &[]),
        cancel("outside the project [hook-policy rule: stay-home]")
    );
    // HOOK_POLICY_PROJECT_ROOT overrides the event's roots.
    assert_eq!(
        write(
            "/home/user/proj/a.txt",
            &[("HOOK_POLICY_PROJECT_ROOT", "/srv/app")]
        )["cancel"],
        true
    );
}

#[test]
fn eval_and_the_decision_log_answer_as_policy_hook_does() {
    let policies = repo().join("policies");
    let bytes = event("execute_command", json!({"command": "rm -rf ~"})).to_string();
    let hooked = hook(&policies, bytes.as_bytes(), &[]);
    let evaled = run(
        &bin(),
        &[
            "eval",
            "--harness",
            "cline",
            "--policy",
            policies.to_str().unwrap(),
        ],
        &[("HOME", "/home/user"), ("HOOK_POLICY_CACHE", "off")],
        bytes.as_bytes(),
    );
    assert_eq!(evaled.stdout, hooked.stdout);
    assert_eq!(stderr(&evaled), stderr(&hooked));
    assert_eq!(evaled.status.code(), Some(0), "{evaled:?}");

    let t = TempDir::new("cline-log");
    let log = t.path().join("decisions.jsonl");
    let mut cli = event("execute_command", json!({"command": "rm -rf ~"}));
    cli["hookName"] = json!("tool_call");
    cli["tool_call"] = json!({"id": "call_9", "name": "execute_command"});
    hook(
        &policies,
        cli.to_string().as_bytes(),
        &[("HOOK_POLICY_LOG", log.to_str().unwrap())],
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(line["harness"], "cline", "{line}");
    assert_eq!(line["hook"], "cline.tool_call", "{line}");
    assert_eq!(line["decision"], "deny", "{line}");
    assert_eq!(line["rule"], "core.recursive-force-delete", "{line}");
    assert_eq!(line["session_id"], "abc123", "{line}");
    assert_eq!(line["tool_call_id"], "call_9", "{line}");
    assert!(
        !text.contains("rm -rf ~"),
        "payloads are never written: {text}"
    );
}

#[test]
fn policy_test_cases_can_be_cline_events() {
    let t = TempDir::new("cline-policy-test");
    t.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-rm\n    hook: pre_shell_exec\n    when: command.startsWith('rm -rf')\n    deny: no rm\n",
    );
    t.write(
        "p.test.yaml",
        r#"tests:
  - name: cline rm
    harness: cline
    payload: {hookName: PreToolUse, workspaceRoots: ["/p"], preToolUse: {toolName: execute_command, parameters: {command: "rm -rf /"}}}
    expect:
      reply: {cancel: true, errorMessage: "no rm [hook-policy rule: no-rm]"}
  - name: cline ls
    harness: cline
    payload: {hookName: PreToolUse, workspaceRoots: ["/p"], preToolUse: {toolName: execute_command, parameters: {command: "ls"}}}
    expect:
      reply: {cancel: false}
      not_matched: [no-rm]
"#,
    );
    let out = run(&bin(), &["test", t.path().to_str().unwrap()], &[], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("2 passed; 0 failed"), "{text}");
}

fn install(home: &Path, cwd: &Path, extra: &[&str]) -> Output {
    common::install_agent("cline", home, cwd, extra)
}

fn uninstall(home: &Path, file: &Path) -> Output {
    common::uninstall_agent("cline", home, file)
}

/// Runs an installed hook file as Cline does (its shebang interpreter,
/// the event on stdin).
fn run_hook_file(file: &Path, event: &Value) -> Output {
    run(
        Path::new("/bin/sh"),
        &[file.to_str().unwrap()],
        &[("HOME", "/home/user")],
        event.to_string().as_bytes(),
    )
}

#[test]
fn install_writes_the_documented_hook_file_once_and_it_cancels() {
    use std::os::unix::fs::PermissionsExt;
    let t = TempDir::new("cline-install");
    let (home, proj) = (t.path().join("home"), t.path().join("proj"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let user = home.join("Documents/Cline/Hooks/PreToolUse");
    let project = proj.join(".clinerules/hooks/PreToolUse");
    let rm = event("execute_command", json!({"command": "rm -rf ~"}));
    for (scope, file) in [("user", &user), ("project", &project)] {
        let out = install(&home, &proj, &["--write", "--scope", scope]);
        assert!(out.status.success(), "{scope}: {out:?}");
        let first = std::fs::read(file).unwrap();
        // Cline runs only an executable file.
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755, "{scope}");
        // A second run changes nothing, and keeps no backup of itself.
        let out = install(&home, &proj, &["--write", "--scope", scope]);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("nothing changed"),
            "{out:?}"
        );
        assert_eq!(std::fs::read(file).unwrap(), first);
        assert!(!file.with_extension("bak").exists(), "{scope}");
        // The installed file, run as Cline runs it, cancels rm -rf.
        let out = run_hook_file(file, &rm);
        assert_reply(&out, cancel(RM_RF));
    }
    // An earlier hook-policy file that differs is replaced, and kept as .bak.
    let old = std::fs::read_to_string(&project).unwrap();
    std::fs::write(&project, old.replace("exec ", "exec  ")).unwrap();
    let out = install(&home, &proj, &["--write", "--scope", "project"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&project).unwrap(), old);
    assert!(project.with_extension("bak").exists());

    // With the installed binary gone, the file still cancels (Cline would
    // run the tool on a failed hook).
    let data = home.join(".local/share/hook-policy");
    let binary = data.join("policy");
    let kept = t.path().join("policy.kept");
    std::fs::rename(&binary, &kept).unwrap();
    let reply = stdout_json(&run_hook_file(&user, &rm));
    assert_eq!(reply["cancel"], true, "{reply}");
    std::fs::rename(&kept, &binary).unwrap();

    // Uninstall removes exactly what install wrote.
    let out = uninstall(&home, &project);
    assert!(out.status.success(), "{out:?}");
    assert!(!project.exists() && !project.with_extension("bak").exists());
    assert!(
        binary.exists() && data.join("cline.policies").exists(),
        "the user hook still uses them"
    );
    let out = uninstall(&home, &user);
    assert!(out.status.success(), "{out:?}");
    assert!(!user.exists());
    assert!(!data.join("cline.policies").exists() && !binary.exists());
    // The directories Cline owns stay.
    assert!(home.join("Documents/Cline/Hooks").is_dir());
    // A second uninstall finds nothing.
    let out = uninstall(&home, &user);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to remove"));
}

#[test]
fn install_refuses_a_hook_it_did_not_write_and_prints_without_write() {
    let t = TempDir::new("cline-refuse");
    let (home, proj) = (t.path().join("home"), t.path().join("proj"));
    let theirs = proj.join(".clinerules/hooks/PreToolUse");
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = "#!/bin/bash\necho '{\"cancel\":false}'\n";
    std::fs::write(&theirs, script).unwrap();
    let out = install(&home, &proj, &["--write", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("nothing was changed"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), script);
    assert!(!theirs.with_extension("bak").exists());
    // Nor does uninstall touch it.
    let out = uninstall(&home, &theirs);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), script);

    // Without --write the script is printed and nothing is written.
    let fresh = t.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    let out = install(&home, &fresh, &[]);
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.starts_with("#!/bin/sh\n"), "{printed}");
    assert!(printed.contains(" hook cline --policy-list "), "{printed}");
    assert!(!fresh.join(".clinerules").exists());
}

#[test]
fn searches_read_what_clines_ripgrep_would_read() {
    let t = TempDir::new("cline-search");
    let proj = t.path().join("proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    std::fs::write(proj.join(".gitignore"), ".env\n").unwrap();
    std::fs::write(proj.join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(proj.join("src/a.rs"), "fn a() {}\n").unwrap();
    let policy = t.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-env\n    hook: pre_file_read\n    when: path.endsWith('/.env')\n    deny: not .env\n",
    );
    let root = proj.to_str().unwrap();
    let search = |tool: &str, params: Value| {
        let mut e = event(tool, params);
        e["workspaceRoots"] = json!([root]);
        stdout_json(&hook(&policy, e.to_string().as_bytes(), &[]))
    };
    // Cline 3 passes `--glob *`, which overrides .gitignore: the .env is read.
    let reply = search("search_files", json!({"path": ".", "regex": "SECRET"}));
    assert_eq!(reply["cancel"], true, "{reply}");
    assert!(
        reply["errorMessage"]
            .as_str()
            .unwrap()
            .contains("(the search would read it;"),
        "{reply}"
    );
    // A file pattern that leaves it out, or Cline 4's search with ripgrep's
    // defaults (the ignored .env unread), is left to Cline.
    let reply = search(
        "search_files",
        json!({"path": ".", "regex": "SECRET", "file_pattern": "*.rs"}),
    );
    assert_eq!(reply, json!({"cancel": false}));
    let reply = search("search_codebase", json!({"queries": "[\"SECRET\"]"}));
    assert_eq!(reply, json!({"cancel": false}));
}

/// Cline sends every parameter as text and its tools accept many shapes:
/// none of them is a way past the checks.
#[test]
fn no_input_shape_hides_a_command_a_path_or_a_url() {
    let call = |tool: &str, params: Value| stdout_json(&shipped(&event(tool, params)));
    // A bare list reaches the hook keyed by index, its objects as JSON text.
    assert_eq!(
        call("read_files", json!({"0": "/home/user/.ssh/id_rsa"})),
        cancel(SSH_READ)
    );
    let argv = json!({"command": "rm", "args": ["-rf", "/home/user"]}).to_string();
    assert_eq!(call("run_commands", json!({"0": argv})), cancel(RM_RF));
    // read_files also takes file_path and filePath for an entry's path.
    let aliased = json!([{"file_path": "/home/user/.ssh/id_rsa"}]).to_string();
    assert_eq!(
        call("read_files", json!({"files": aliased})),
        cancel(SSH_READ)
    );
    // An entry that is neither a path nor an object with one cannot be judged.
    assert_eq!(
        call("read_files", json!({"files": "[1]"})),
        cancel("the `read_files` call has a path that hook-policy cannot read, so it is denied")
    );
    assert_eq!(
        call(
            "run_commands",
            json!({"commands": json!([["rm", "-rf", "/"]]).to_string()})
        ),
        cancel(
            "the `run_commands` call has a command that hook-policy cannot read, so it is denied"
        )
    );
    // An MCP tool's object parameter, sent as JSON text, is read for URLs.
    let options = json!({"url": "http://169.254.169.254/latest/meta-data/"}).to_string();
    assert_eq!(
        call("web__fetch", json!({"options": options})),
        cancel(METADATA_FETCH)
    );
    // A file's content that happens to be JSON stays the text it is, so
    // content rules still read it.
    let dir = TempDir::new("cline-content");
    let policy = dir.write(
        "p.yaml",
        "version: 1\nrules:\n  - id: no-token\n    hook: pre_file_write\n    when: content.contains('tok_live')\n    deny: no live tokens\n",
    );
    let write = event(
        "write_to_file",
        json!({"path": "/home/user/proj/config.json", "content": "{\"key\": \"tok_live_1\"}"}),
    );
    assert_eq!(
        stdout_json(&hook(&policy, write.to_string().as_bytes(), &[])),
        cancel("no live tokens [hook-policy rule: no-token]")
    );
}

#[test]
fn rules_on_cline_pre_tool_use_see_the_event_with_its_text_parsed() {
    let dir = TempDir::new("cline-native");
    let policy = dir.write(
        "native.yaml",
        "version: 1\nrules:\n  - id: no-prod-db\n    hook: cline.PreToolUse\n    when: preToolUse.toolName == 'use_mcp_tool' && preToolUse.parameters.server_name == 'prod-db' && preToolUse.parameters.arguments.table == 'users'\n    deny: not the production users table\n  - id: few-commands\n    hook: cline.PreToolUse\n    when: preToolUse.toolName == 'run_commands' && size(preToolUse.parameters.commands) > 2\n    deny: one thing at a time\n",
    );
    let call = |tool: &str, params: Value| {
        stdout_json(&hook(
            &policy,
            event(tool, params).to_string().as_bytes(),
            &[],
        ))
    };
    let query = json!({"table": "users"}).to_string();
    assert_eq!(
        call(
            "use_mcp_tool",
            json!({"server_name": "prod-db", "tool_name": "query", "arguments": query})
        ),
        cancel("not the production users table [hook-policy rule: no-prod-db]")
    );
    assert_eq!(
        call(
            "use_mcp_tool",
            json!({"server_name": "dev-db", "tool_name": "query", "arguments": query})
        ),
        json!({"cancel": false})
    );
    let three = json!(["ls", "pwd", "date"]).to_string();
    assert_eq!(
        call("run_commands", json!({"commands": three})),
        cancel("one thing at a time [hook-policy rule: few-commands]")
    );
    let two = json!(["ls", "pwd"]).to_string();
    assert_eq!(
        call("run_commands", json!({"commands": two})),
        json!({"cancel": false})
    );
}
