//! Path-aware rules: `shell: {target: [...]}` and the `targets` of
//! `shellCommands(project_root)` let a policy allow deleting inside the
//! project and in temp directories while refusing the project root, `.git`,
//! the home directory, `/`, system paths, other places, and paths only
//! known at run time. Every line goes through the real engine with a
//! policy written the way a pack would write it; a few go through the
//! built binary too.

mod common;

use common::{run, stdout_json, TempDir};
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::{decide, DecideContext};
use serde_json::json;

const HOOK: &str = "pre_shell_exec";
const ROOT: &str = "/home/u/proj";
const HOME: &str = "/home/u";

const POLICY: &str = r#"
version: 1
rules:
  - id: delete-outside-project
    hook: pre_shell_exec
    shell:
      program: [rm, rmdir, unlink, shred]
      target: [root, home, system, project_root, git_dir, outside, unknown]
    deny: "deleting outside the project"
  - id: find-delete-outside-project
    hook: pre_shell_exec
    shell:
      program: find
      arg: '^-(delete|exec|execdir)$'
      target: [root, home, system, project_root, git_dir, outside, unknown]
    deny: "find deleting outside the project"
  - id: recursive-mode-outside-project
    hook: pre_shell_exec
    shell:
      program: [chmod, chown, chgrp]
      flags: ["-R|--recursive"]
      target: [root, home, system, project_root, outside, unknown]
    deny: "recursive mode change outside the project"
  - id: move-away-what-matters
    hook: pre_shell_exec
    when: >
      command.shellCommands(project_root).exists(c, c.program == 'mv' &&
        c.targets.exists(t, t['class'] in ['root', 'home', 'system', 'project_root', 'git_dir', 'unknown']))
    deny: "moving the project, .git, home or system paths"
  - id: overwrite-disk
    hook: pre_shell_exec
    shell: { program: dd, target: [system, root, home] }
    deny: "writing to a device or system file"
  - id: mirror-delete-outside
    hook: pre_shell_exec
    shell:
      program: rsync
      any_flag: ["--delete"]
      target: [root, home, system, project_root, outside, unknown]
    deny: "rsync --delete outside the project"
"#;

fn prepared(dir: &TempDir) -> hook_policy::compile::CompiledPolicy {
    let file = dir.write("targets.yaml", POLICY);
    match engine::prepare(&[file], Some(HOOK)) {
        Prepared::Ready(policy) => policy,
        Prepared::Broken { message, .. } => panic!("policy does not load: {message}"),
    }
}

#[test]
fn deletes_inside_the_project_and_temp_pass_and_the_rest_is_refused() {
    let dir = TempDir::new("targets");
    let policy = prepared(&dir);
    let ctx = DecideContext {
        harness: "chibi",
        project_root: ROOT,
        home: Some(HOME),
    };
    // CEL's shellCommands(project_root) reads the home from the environment.
    std::env::set_var("HOME", HOME);
    let cases: &[(&str, Option<&str>)] = &[
        ("rm -rf node_modules", None),
        ("rm -rf ./target", None),
        ("rm -rf dist build", None),
        ("rm -rf /tmp/x", None),
        ("rm -rf \"$TMPDIR/cache\"", None),
        ("rm -rf src/*", None),
        ("rm -rf dist/* build/*", None),
        ("rm -rf *.pyc", None),
        ("cd build && rm -rf *", None),
        ("rm -f src/*.o", None),
        ("rm -rf /home/u/proj/coverage", None),
        // Relative targets are located from where `cd` took the shell
        // (`cd / && rm -rf usr` must not read as inside the project); a
        // place only known at run time leaves them unknown.
        ("cd src && rm -rf __pycache__", None),
        ("rm -rf dist; cd src && ls", None),
        ("cd / && rm -rf usr", Some("delete-outside-project")),
        ("cd /nowhere; rm -rf ../x", Some("delete-outside-project")),
        (
            "cd \"$DIR\" && rm -rf build",
            Some("delete-outside-project"),
        ),
        ("find . -name '*.pyc' -delete", None),
        ("find . -name '*.pyc' -exec rm -f {} +", None),
        ("find /tmp/build -type f -delete", None),
        ("python3 -c \"import shutil; shutil.rmtree('build')\"", None),
        (
            "node -e \"require('fs').rmSync('dist', {recursive: true, force: true})\"",
            None,
        ),
        ("chmod -R u+w build", None),
        ("mv a.txt b.txt", None),
        ("rsync -a --delete src/ build/", None),
        ("ls ~ && cat /etc/hosts", None),
        ("find / -name '*.log'", None),
        ("rm -rf /", Some("delete-outside-project")),
        ("rm -rf /*", Some("delete-outside-project")),
        ("rm -rf ~", Some("delete-outside-project")),
        ("rm -rf ~/", Some("delete-outside-project")),
        ("rm -rf $HOME", Some("delete-outside-project")),
        ("rm -rf \"${HOME}/\"", Some("delete-outside-project")),
        ("rm -rf ~/*", Some("delete-outside-project")),
        ("rm -rf .", Some("delete-outside-project")),
        // Every entry at the root's top: the project, but for its dot files.
        ("rm -rf *", Some("delete-outside-project")),
        ("rm -rf ./*", Some("delete-outside-project")),
        ("rm -rf \"$PWD\"/*", Some("delete-outside-project")),
        (
            "cd build && cd .. && rm -rf *",
            Some("delete-outside-project"),
        ),
        // This rule judges every rm, recursive or not (core's asks for -r).
        ("rm -f *", Some("delete-outside-project")),
        ("rm -rf ..", Some("delete-outside-project")),
        ("rm -rf ../other-project", Some("delete-outside-project")),
        ("rm -rf src/../..", Some("delete-outside-project")),
        ("rm -rf /home/u/proj", Some("delete-outside-project")),
        ("rm -rf .git", Some("delete-outside-project")),
        ("rm -rf .*", Some("delete-outside-project")),
        ("rm -rf build .git/objects", Some("delete-outside-project")),
        ("rm -rf /etc", Some("delete-outside-project")),
        (
            "sudo rm -rf /var/lib/docker",
            Some("delete-outside-project"),
        ),
        ("rm -rf /tmp", Some("delete-outside-project")),
        ("rm -rf \"$DIR\"", Some("delete-outside-project")),
        ("rm -rf $(pwd)", Some("delete-outside-project")),
        ("shred -u ~/.ssh/id_rsa", Some("delete-outside-project")),
        (
            "find . -type f | xargs rm -f",
            Some("delete-outside-project"),
        ),
        (
            "echo / | parallel bash -c 'rm -rf {}'",
            Some("delete-outside-project"),
        ),
        (
            "parallel rm -rf ::: build /",
            Some("delete-outside-project"),
        ),
        // The rm that find runs on `{}` acts inside `/`: the first rule says so.
        ("find / -exec rm -rf {} +", Some("delete-outside-project")),
        (
            "bash -c \"rm -rf $X/build\"",
            Some("delete-outside-project"),
        ),
        (
            "python -c \"import shutil; shutil.rmtree('/')\"",
            Some("delete-outside-project"),
        ),
        (
            "python3 -c \"import os, shutil; shutil.rmtree(os.path.expanduser('~'))\"",
            Some("delete-outside-project"),
        ),
        (
            "node -e \"require('fs').rmSync(require('os').homedir(), {recursive: true})\"",
            Some("delete-outside-project"),
        ),
        (
            "perl -e 'use File::Path; rmtree($ENV{HOME})'",
            Some("delete-outside-project"),
        ),
        (
            "ruby -e 'FileUtils.rm_rf(\"..\")'",
            Some("delete-outside-project"),
        ),
        ("find / -delete", Some("find-delete-outside-project")),
        (
            "find ~ -name '*.bak' -delete",
            Some("find-delete-outside-project"),
        ),
        ("chmod -R 777 /", Some("recursive-mode-outside-project")),
        ("chown -R me ~", Some("recursive-mode-outside-project")),
        (
            "sudo chmod -R 755 /usr",
            Some("recursive-mode-outside-project"),
        ),
        ("mv .git /tmp/old-git", Some("move-away-what-matters")),
        ("mv ~ /tmp/home", Some("move-away-what-matters")),
        ("mv build /etc/", Some("move-away-what-matters")),
        (
            "python3 -c \"import shutil; shutil.move('.git', 'x')\"",
            Some("move-away-what-matters"),
        ),
        ("dd if=/dev/zero of=/dev/sda bs=1M", Some("overwrite-disk")),
        ("rsync -a --delete src/ ~/", Some("mirror-delete-outside")),
        (
            "rsync -av --delete ./ user@host:/srv/app",
            Some("mirror-delete-outside"),
        ),
    ];
    let mut wrong = Vec::new();
    for (line, want) in cases {
        let payload = json!({"tool_name": "shell_exec", "command": line});
        let decision = decide(&policy, HOOK, &payload, ctx);
        if !decision.errors.is_empty() {
            wrong.push(format!("{line}: rule errors {:?}", decision.errors));
        }
        let got = decision.deny.as_ref().map(|w| w.rule.as_str());
        if got != *want {
            wrong.push(format!(
                "{line}: expected {want:?}, got {got:?} (matched {:?})",
                decision.matched
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_binary_explains_where_the_target_lies() {
    let dir = TempDir::new("targets-bin");
    let file = dir.write("targets.yaml", POLICY);
    let file = file.display().to_string();
    let eval = |command: &str| {
        let payload = json!({"command": command}).to_string();
        run(
            &common::bin(),
            &[
                "eval",
                "--policy",
                &file,
                "--hook",
                HOOK,
                "--project-root",
                ROOT,
                "--explain",
            ],
            &[("HOME", HOME)],
            payload.as_bytes(),
        )
    };
    let out = eval("rm -rf ~/*");
    assert_eq!(stdout_json(&out)["denied"], json!(true));
    let explanation = common::stderr(&out);
    assert!(
        explanation.contains("runs rm on `~/*` (home: /home/u)"),
        "{explanation}"
    );
    let out = eval("python3 -c \"import shutil; shutil.rmtree('.git')\"");
    let explanation = common::stderr(&out);
    assert!(
        explanation.contains(
            "runs rm (as shutil.rmtree) (inside python3 -c) on `.git` (git_dir: /home/u/proj/.git)"
        ),
        "{explanation}"
    );
    let out = eval("rm -rf node_modules target");
    assert_eq!(stdout_json(&out), json!({}));
}

#[test]
fn an_empty_target_list_is_refused_by_check() {
    let dir = TempDir::new("targets-check");
    let file = dir.write(
        "bad.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    shell: { program: rm, target: [] }\n    deny: x\n",
    );
    let out = common::policy(&["check", &file.display().to_string()], b"");
    assert_ne!(out.status.code(), Some(0));
    let text = format!(
        "{}{}",
        common::stderr(&out),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(text.contains("`target` needs at least one place"), "{text}");
    let file = dir.write(
        "typo.yaml",
        "version: 1\nrules:\n  - id: x\n    hook: pre_shell_exec\n    shell: { program: rm, target: [homes] }\n    deny: x\n",
    );
    let out = common::policy(&["check", &file.display().to_string()], b"");
    assert_ne!(out.status.code(), Some(0));
}
