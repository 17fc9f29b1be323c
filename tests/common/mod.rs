//! Helpers for the end-to-end tests: they drive the real `policy` binary.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_policy"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The chibi fixtures, captured from a running chibi; they live beside the repo.
pub fn fixtures_dir() -> PathBuf {
    let dir = repo().join("../shared/fixtures/chibi");
    assert!(
        dir.is_dir(),
        "fixtures missing at {}: the tests need ../shared beside the repo",
        dir.display()
    );
    dir
}

/// A fixture's `(hook, payload)`.
pub fn fixture(name: &str) -> (String, Value) {
    let path = fixtures_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).unwrap();
    (
        v["hook"].as_str().unwrap().to_string(),
        v["payload"].clone(),
    )
}

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hook-policy-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `policy ARGS` with `stdin`.
pub fn policy(args: &[&str], stdin: &[u8]) -> Output {
    run(&bin(), args, &[], stdin)
}

pub fn run(program: &Path, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "CHIBI_HOOK",
        "CHIBI_TOOL_NAME",
        "CHIBI_PROJECT_ROOT",
        "NO_COLOR",
        // Set when the tests run inside an agent; each would move the project root.
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
        "HOOK_POLICY_PROJECT_ROOT",
        "HOOK_POLICY_LOG",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // Write from a thread: a large payload could otherwise fill the pipe while we wait.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

pub fn stdout_json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {text:?}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A chibi home with hook-policy installed for `policy_paths`.
pub struct ChibiHome {
    pub dir: TempDir,
}

impl ChibiHome {
    pub fn install(policy_paths: &[&Path]) -> ChibiHome {
        let dir = TempDir::new("chibi-home");
        let mut args = vec![
            "install".to_string(),
            "chibi".into(),
            "--home".into(),
            dir.path().display().to_string(),
        ];
        for p in policy_paths {
            args.push("--policy".into());
            args.push(p.display().to_string());
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = policy(&argv, b"");
        assert!(out.status.success(), "install failed: {}", stderr(&out));
        ChibiHome { dir }
    }

    pub fn plugin(&self) -> PathBuf {
        self.dir.path().join("plugins/hook-policy/hook-policy")
    }

    /// Calls the plugin for a hook exactly as chibi does: env, compact JSON
    /// on stdin without a trailing newline.
    pub fn hook(&self, hook: &str, payload: &Value) -> Output {
        let body = serde_json::to_vec(payload).unwrap();
        run(
            &self.plugin(),
            &[],
            &[
                ("CHIBI_HOOK", hook),
                ("CHIBI_PROJECT_ROOT", "/home/user/demo/project"),
                ("CHIBI_INDEX_DB", "/tmp/none"),
            ],
            &body,
        )
    }

    pub fn hook_raw(&self, hook: &str, body: &[u8]) -> Output {
        run(
            &self.plugin(),
            &[],
            &[
                ("CHIBI_HOOK", hook),
                ("CHIBI_PROJECT_ROOT", "/home/user/demo/project"),
            ],
            body,
        )
    }

    /// The reply, asserting chibi would accept it: exit 0, one JSON object.
    pub fn reply(&self, hook: &str, payload: &Value) -> Value {
        let out = self.hook(hook, payload);
        assert!(
            out.status.success(),
            "plugin exited {:?}: {}",
            out.status,
            stderr(&out)
        );
        let v = stdout_json(&out);
        assert!(v.is_object(), "reply is not an object: {v}");
        v
    }
}

/// `policy install AGENT --policy policies/ EXTRA` as a user runs it from
/// `cwd`, with HOME and the data directory (where the installed copy of the
/// binary goes) inside `home`, and no XDG_CONFIG_HOME from the test's
/// environment (agents' user-scope files then lie under `home`).
pub fn install_agent(agent: &str, home: &Path, cwd: &Path, extra: &[&str]) -> Output {
    let policies = repo().join("policies");
    let mut args = vec!["install", agent, "--policy", policies.to_str().unwrap()];
    args.extend_from_slice(extra);
    Command::new(bin())
        .args(&args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap()
}

/// `policy uninstall AGENT --settings FILE` with the home of [`install_agent`].
pub fn uninstall_agent(agent: &str, home: &Path, file: &Path) -> Output {
    Command::new(bin())
        .args(["uninstall", agent, "--settings", file.to_str().unwrap()])
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap()
}
