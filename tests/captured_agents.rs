//! Events captured from real runs of Codex CLI 0.169, Gemini CLI 0.61 and
//! Claude Code 2.1.328/2.1.331 (../shared/fixtures/{codex,gemini,claude-code},
//! each README says how), put through `policy hook AGENT` with the shipped
//! policies (and the request example, for Gemini's BeforeModel): each must
//! get exactly the reply recorded in
//! tests/fixtures/agents/captured/AGENT.json.
//!
//! The captures name the project /home/user/demo. It is made real here (a
//! temporary directory with the files the runs had: `.env`, `server.pem`,
//! `notes.txt`), because a search is checked against the files it would
//! read; paths are mapped back in the replies. Each agent gets its project
//! root the way it really does: Claude Code and Gemini CLI from the event
//! (their `*_PROJECT_DIR` unset), Codex from the directory the hook runs in.

mod common;

use common::{bin, repo, TempDir};
use serde_json::{Map, Value};
use std::path::Path;
use std::process::{Command, Stdio};

const CAPTURED_ROOT: &str = "/home/user/demo";

/// The demo project of the captured runs.
fn demo_project() -> TempDir {
    let dir = TempDir::new("captured-demo");
    dir.write(".env", "FAKE_SECRET=1\n");
    dir.write(
        "server.pem",
        "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n",
    );
    dir.write("notes.txt", "inside the project\n");
    dir
}

/// Runs the hook for one captured event, in `project` (the hook's working
/// directory, as Codex starts it), and returns the reply.
pub fn captured_reply(agent: &str, event_text: &str, project: &Path) -> Value {
    let root = project.to_str().unwrap();
    let event = event_text.replace(CAPTURED_ROOT, root);
    let policies = repo().join("policies");
    let request = repo().join("examples/policies/request.yaml");
    let mut cmd = Command::new(bin());
    cmd.args(["hook", agent, "--policy", policies.to_str().unwrap()])
        .args(["--policy", request.to_str().unwrap()])
        .current_dir(project)
        .env("HOME", "/home/user")
        .env("HOOK_POLICY_CACHE", "off")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("HOOK_POLICY_PROJECT_ROOT")
        .env_remove("HOOK_POLICY_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{agent}: exit {:?}", out.status);
    let text = String::from_utf8_lossy(&out.stdout).replace(root, CAPTURED_ROOT);
    let reply: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "{agent}: reply is not JSON ({e}): {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    reply
}

fn captured(agent: &str) -> Vec<(String, String)> {
    let dir = repo().join("../shared/fixtures").join(agent);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_captured_event_gets_its_recorded_reply() {
    let project = demo_project();
    let mut failures = Vec::new();
    let mut seen = 0;
    let regenerate = std::env::var_os("HOOK_POLICY_REGENERATE").is_some();
    for agent in ["codex", "gemini", "claude-code"] {
        let expected_path = repo()
            .join("tests/fixtures/agents/captured")
            .join(format!("{agent}.json"));
        let expected: Map<String, Value> = if regenerate {
            Map::new()
        } else {
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap()
        };
        let mut got_all = Map::new();
        for (name, text) in captured(agent) {
            seen += 1;
            let got = captured_reply(agent, &text, project.path());
            if !regenerate && expected.get(&name) != Some(&got) {
                failures.push(format!(
                    "{agent}/{name}:\n  expected {}\n  got      {got}",
                    expected
                        .get(&name)
                        .map_or("nothing".into(), Value::to_string)
                ));
            }
            got_all.insert(name, got);
        }
        if regenerate {
            std::fs::create_dir_all(expected_path.parent().unwrap()).unwrap();
            std::fs::write(
                &expected_path,
                serde_json::to_string_pretty(&Value::Object(got_all)).unwrap() + "\n",
            )
            .unwrap();
        } else {
            assert_eq!(
                expected.len(),
                got_all.len(),
                "{agent}: the recorded replies and the captures differ in number"
            );
        }
    }
    assert!(seen >= 58, "only {seen} captured events");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_captured_reply_says_allow() {
    for agent in ["codex", "gemini", "claude-code"] {
        let path = repo()
            .join("tests/fixtures/agents/captured")
            .join(format!("{agent}.json"));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("\"allow\""), "{agent}: {text}");
    }
}
