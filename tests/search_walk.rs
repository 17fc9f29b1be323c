//! Content searches (Claude Code `Grep`, Gemini CLI `grep_search`) through
//! `policy hook` with the shipped policies, over a real project: the search
//! is checked against the files the tool reads, so a whole-project search
//! in a JavaScript project (a gitignored `node_modules/` of more than 20,000
//! files, a gitignored `.env`) is allowed, and every way the tool would
//! still read a secret is denied.

mod common;

use common::{bin, repo, run, stdout_json, TempDir};
use serde_json::{json, Value};
use std::path::Path;

/// More files than the search bound (20,000 entries), all gitignored.
const NODE_MODULES_FILES: usize = 20_100;

/// A JavaScript project in a git repository (a `.git` directory is what
/// ripgrep looks for), with `.env` and `node_modules/` gitignored.
fn js_project(gitignore: &str) -> TempDir {
    let dir = TempDir::new("search-walk-js");
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    dir.write(".gitignore", gitignore);
    dir.write(".env", "FAKE_SECRET=1\n");
    dir.write("src/index.js", "console.log('foo')\n");
    dir.write("package.json", "{}\n");
    for pkg in 0..NODE_MODULES_FILES / 100 {
        let d = dir.path().join(format!("node_modules/pkg{pkg}"));
        std::fs::create_dir_all(&d).unwrap();
        for f in 0..100 {
            std::fs::write(d.join(format!("f{f}.js")), "").unwrap();
        }
    }
    dir
}

/// The hook's decision on one search: `deny` with its reason, or `none`.
fn search(agent: &str, tool: &str, input: Value, project: &Path, home: &Path) -> (String, String) {
    let root = project.to_str().unwrap();
    let (event, root_var) = match agent {
        "claude-code" => (
            json!({"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
                   "tool_name": tool, "tool_input": input}),
            "CLAUDE_PROJECT_DIR",
        ),
        _ => (
            json!({"session_id": "s", "cwd": root, "hook_event_name": "BeforeTool",
                   "tool_name": tool, "tool_input": input}),
            "GEMINI_PROJECT_DIR",
        ),
    };
    let policies = repo().join("policies");
    let out = run(
        &bin(),
        &["hook", agent, "--policy", policies.to_str().unwrap()],
        &[
            ("HOOK_POLICY_CACHE", "off"),
            ("HOME", home.to_str().unwrap()),
            (root_var, root),
        ],
        event.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let reply = stdout_json(&out);
    let decision = reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .or_else(|| reply["decision"].as_str())
        .unwrap_or("none")
        .to_string();
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .or_else(|| reply["reason"].as_str())
        .unwrap_or("")
        .to_string();
    (decision, reason)
}

#[test]
fn a_whole_project_search_reads_what_ripgrep_reads() {
    let home = TempDir::new("search-walk-home");
    let project = js_project("node_modules/\n.env\n");
    let p = project.path();
    let h = home.path();

    // Allowed: node_modules/ and .env are gitignored, and the tools skip them.
    for (agent, tool, input) in [
        (
            "claude-code",
            "Grep",
            json!({"pattern": "foo", "path": "."}),
        ),
        ("claude-code", "Grep", json!({"pattern": "foo"})),
        (
            "gemini",
            "grep_search",
            json!({"pattern": "foo", "dir_path": "."}),
        ),
    ] {
        let (d, r) = search(agent, tool, input.clone(), p, h);
        assert_eq!(d, "none", "{agent} {input}: {r}");
    }

    // Denied: the secret named, or read anyway by the tool's own flags.
    for (agent, tool, input, named) in [
        (
            "claude-code",
            "Grep",
            json!({"pattern": "x", "path": ".env"}),
            ".env",
        ),
        // A glob naming an ignored file makes ripgrep read it.
        (
            "claude-code",
            "Grep",
            json!({"pattern": "x", "glob": ".env"}),
            ".env",
        ),
        (
            "claude-code",
            "Grep",
            json!({"pattern": "x", "glob": "*.js .env"}),
            ".env",
        ),
        (
            "gemini",
            "grep_search",
            json!({"pattern": "x", "include_pattern": ".env"}),
            ".env",
        ),
        // `no_ignore: true` is `rg --no-ignore`: node_modules/ is walked.
        (
            "gemini",
            "grep_search",
            json!({"pattern": "x", "no_ignore": true}),
            "more than 20000",
        ),
    ] {
        let (d, r) = search(agent, tool, input.clone(), p, h);
        assert_eq!(d, "deny", "{agent} {input}: {r}");
        // A call that names .env outright is stopped earlier by the
        // file-secrets pack, in its own words; still a deny.
        let by_pack = named == ".env" && r.contains("[hook-policy rule: file-secrets.");
        assert!(r.contains(named) || by_pack, "{agent} {input}: {r}");
    }

    // read_many_files: its globs skip node_modules/ and honour .gitignore,
    // unless the call turns both off; its patterns ignore case.
    let many = |input: Value| search("gemini", "read_many_files", input, p, h);
    let (d, r) = many(json!({"include": ["**/*.js", "**/*.ENV"]}));
    assert_eq!(d, "none", "{r}");
    let (d, r) = many(json!({"include": ["**/*.ENV"],
                             "file_filtering_options": {"respect_git_ignore": false}}));
    assert_eq!(d, "deny", "{r}");
    assert!(r.contains(".env"), "{r}");
    // Without the default excludes either, all of node_modules/ is globbed.
    let (d, r) = many(json!({"include": ["**/*.ENV"], "useDefaultExcludes": false,
                             "file_filtering_options": {"respect_git_ignore": false}}));
    assert_eq!(d, "deny", "{r}");
    assert!(r.contains("more than 20000"), "{r}");

    // A Gemini settings file that sets respectGitIgnore makes grep_search
    // read gitignored files (`rg --no-ignore-vcs`).
    project.write(
        ".gemini/settings.json",
        r#"{"context": {"fileFiltering": {"respectGitIgnore": false}}}"#,
    );
    let (d, r) = search("gemini", "grep_search", json!({"pattern": "foo"}), p, h);
    assert_eq!(d, "deny", "{r}");
    assert!(r.contains(".env"), "{r}");
    std::fs::remove_dir_all(p.join(".gemini")).unwrap();

    // A search of the home directory or of / stays denied.
    home.write(".ssh/id_rsa", "key");
    for dir in ["~", "~/.ssh", h.to_str().unwrap(), "/"] {
        let (d, r) = search(
            "claude-code",
            "Grep",
            json!({"pattern": "x", "path": dir}),
            p,
            h,
        );
        assert_eq!(d, "deny", "{dir}: {r}");
    }

    // A link inside the project to a key outside it is checked as the key.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(h.join(".ssh/id_rsa"), p.join("src/notes.txt")).unwrap();
        let (d, r) = search("claude-code", "Grep", json!({"pattern": "x"}), p, h);
        assert_eq!(d, "deny", "{r}");
        assert!(r.contains("id_rsa"), "{r}");
        std::fs::remove_file(p.join("src/notes.txt")).unwrap();
    }

    // Not gitignored, the .env is read by both tools (Claude Code passes
    // `--hidden`; Gemini's fallbacks read hidden files).
    std::fs::write(p.join(".gitignore"), "node_modules/\n").unwrap();
    for (agent, tool, input) in [
        (
            "claude-code",
            "Grep",
            json!({"pattern": "foo", "path": "."}),
        ),
        (
            "gemini",
            "grep_search",
            json!({"pattern": "foo", "dir_path": "."}),
        ),
    ] {
        let (d, r) = search(agent, tool, input.clone(), p, h);
        assert_eq!(d, "deny", "{agent} {input}: {r}");
        assert!(
            r.contains(".env") && r.contains("the search would read it"),
            "{r}"
        );
    }

    // Nor is node_modules/: then Claude Code's Grep reads all of it.
    std::fs::write(p.join(".gitignore"), ".env\n").unwrap();
    let (d, r) = search("claude-code", "Grep", json!({"pattern": "foo"}), p, h);
    assert_eq!(d, "deny", "{r}");
    assert!(r.contains("more than 20000"), "{r}");
}

#[test]
fn outside_a_git_repository_gitignore_does_not_hide_a_secret() {
    // Ripgrep honours .gitignore only inside a git repository.
    let home = TempDir::new("search-walk-home");
    let project = TempDir::new("search-walk-nogit");
    project.write(".gitignore", ".env\n");
    project.write(".env", "FAKE_SECRET=1\n");
    project.write("src/main.rs", "fn main() {}\n");
    let (d, r) = search(
        "claude-code",
        "Grep",
        json!({"pattern": "main"}),
        project.path(),
        home.path(),
    );
    assert_eq!(d, "deny", "{r}");
    assert!(r.contains(".env"), "{r}");
    // A `.ignore` file is honoured anywhere (ripgrep's own ignore file).
    project.write(".ignore", ".env\n");
    let (d, r) = search(
        "claude-code",
        "Grep",
        json!({"pattern": "main"}),
        project.path(),
        home.path(),
    );
    assert_eq!(d, "none", "{r}");
}
