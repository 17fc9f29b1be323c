//! The lean `policy-hook` binary and which binary `policy install` puts
//! where harnesses run it: `policy-hook` when it sits beside `policy` and
//! comes from the same build, else `policy` itself; either way the
//! installed hook answers as `policy` would.

mod common;

use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn lean() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_policy-hook"))
}

/// `binaries` (by file name) linked or copied into a fresh directory, as
/// `cargo install` would lay them out.
fn install_dir(tag: &str, binaries: &[&Path]) -> TempDir {
    let dir = TempDir::new(tag);
    for b in binaries {
        let to = dir.path().join(b.file_name().unwrap());
        if std::fs::hard_link(b, &to).is_err() {
            std::fs::copy(b, &to).unwrap();
        }
    }
    dir
}

fn version_of(binary: &Path) -> String {
    let out = run(binary, &["--version"], &[], b"");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn chibi_install(policy_bin: &Path, home: &Path) -> String {
    let policies = repo().join("policies");
    let out = run(
        policy_bin,
        &[
            "install",
            "chibi",
            "--home",
            home.to_str().unwrap(),
            "--policy",
            policies.to_str().unwrap(),
        ],
        &[],
        b"",
    );
    assert!(out.status.success(), "install failed: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn chibi_reply(plugin: &Path, command: &str) -> Value {
    let out = run(
        plugin,
        &[],
        &[
            ("CHIBI_HOOK", "pre_shell_exec"),
            ("CHIBI_PROJECT_ROOT", "/home/user/demo/project"),
        ],
        json!({"tool_name": "shell_exec", "command": command})
            .to_string()
            .as_bytes(),
    );
    assert!(out.status.success(), "plugin failed: {}", stderr(&out));
    stdout_json(&out)
}

#[test]
fn policy_hook_names_its_build_and_refuses_other_commands() {
    let version = version_of(&lean());
    assert!(version.starts_with("policy-hook "), "{version}");
    assert!(version.contains("(build "), "{version}");
    let out = run(&lean(), &["check", "policies/"], &[], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("only answers hook calls") && stderr(&out).contains("run `policy`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn chibi_install_copies_policy_hook_built_alongside() {
    let bins = install_dir("lean-both", &[&bin(), &lean()]);
    let home = TempDir::new("lean-home");
    let said = chibi_install(&bins.path().join("policy"), home.path());
    assert!(said.contains("policy-hook"), "{said}");
    let plugin = home.path().join("plugins/hook-policy/hook-policy");
    assert_eq!(version_of(&plugin), version_of(&lean()));
    // It is the plugin: `--schema`, a denial, and no opinion on a harmless line.
    let out = run(&plugin, &["--schema"], &[], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout_json(&out).is_object());
    let denied = chibi_reply(&plugin, "sudo rm -rf /");
    assert_eq!(denied["denied"], true, "{denied}");
    assert_eq!(chibi_reply(&plugin, "ls -la"), json!({}));
}

#[test]
fn chibi_install_copies_policy_itself_without_a_matching_policy_hook() {
    // Alone, and beside a `policy-hook` of another build.
    let alone = install_dir("lean-alone", &[&bin()]);
    let stale = install_dir("lean-stale", &[&bin()]);
    let fake = stale.write(
        "policy-hook",
        "#!/bin/sh\necho 'policy-hook 0.0.1 (build 0000000000000000)'\n",
    );
    make_executable(&fake);
    for bins in [&alone, &stale] {
        let home = TempDir::new("lean-home");
        let said = chibi_install(&bins.path().join("policy"), home.path());
        assert!(said.contains("a copy of this binary"), "{said}");
        let plugin = home.path().join("plugins/hook-policy/hook-policy");
        assert_eq!(version_of(&plugin), version_of(&bin()));
        assert_eq!(chibi_reply(&plugin, "sudo rm -rf /")["denied"], true);
    }
}

#[test]
fn agent_install_runs_policy_hook_with_the_same_entry() {
    let bins = install_dir("lean-agent", &[&bin(), &lean()]);
    let dir = TempDir::new("lean-agent-data");
    let data = dir.path().join("data");
    let settings = dir.path().join("settings.json");
    let policies = repo().join("policies");
    let out = run(
        &bins.path().join("policy"),
        &[
            "install",
            "claude-code",
            "--policy",
            policies.to_str().unwrap(),
            "--settings",
            settings.to_str().unwrap(),
        ],
        &[("XDG_DATA_HOME", data.to_str().unwrap())],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let installed = data.join("hook-policy/policy");
    assert_eq!(version_of(&installed), version_of(&lean()));
    // The entry names the installed copy as before (Codex's trust key stays).
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let command = doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        command.starts_with(&format!(
            "{} hook claude-code --policy-list ",
            installed.display()
        )),
        "{command}"
    );
    for (line, decision) in [("rm -rf /", Some("deny")), ("ls -la", None)] {
        let event = json!({
            "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/user/demo/project",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": line}
        });
        let out = run(
            Path::new("/bin/sh"),
            &["-c", &command],
            &[],
            event.to_string().as_bytes(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let reply = stdout_json(&out);
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"].as_str(),
            decision,
            "{line}: {reply}"
        );
    }
}

#[test]
fn policy_hook_reads_hook_arguments_as_policy_does() {
    let dir = TempDir::new("lean-args");
    let policies = repo().join("policies");
    let p = policies.to_str().unwrap();
    let list = dir.write("list.policies", &format!("{p}\n"));
    let event = json!({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/user/demo/project",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "sudo rm -rf /"}
    })
    .to_string();
    let list_flag = format!("--policy-list={}", list.display());
    let policy_flag = format!("--policy={p}");
    let forms: [&[&str]; 4] = [
        &[
            "hook",
            "claude-code",
            "--policy-list",
            list.to_str().unwrap(),
        ],
        &["hook", "claude-code", &list_flag, "--context", "coding"],
        &["hook", "-p", p, "claude-code"],
        &["hook", "claude-code", &policy_flag],
    ];
    for args in forms {
        let full = run(&bin(), args, &[], event.as_bytes());
        let hook = run(&lean(), args, &[], event.as_bytes());
        assert_eq!(hook.status.code(), full.status.code(), "{args:?}");
        assert_eq!(stdout_json(&hook), stdout_json(&full), "{args:?}");
        assert_eq!(
            stdout_json(&hook)["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
    }
    // Refused as `policy hook` refuses them: status 2, nothing on stdout.
    let refused: [&[&str]; 4] = [
        &["hook", "claude-code"],
        &["hook", "nobody", "--policy", p],
        &[
            "hook",
            "claude-code",
            "--policy",
            p,
            "--policy-list",
            list.to_str().unwrap(),
        ],
        &["hook", "claude-code", "--policy", p, "--verbose"],
    ];
    for args in refused {
        let full = run(&bin(), args, &[], event.as_bytes());
        let hook = run(&lean(), args, &[], event.as_bytes());
        assert_eq!(full.status.code(), Some(2), "{args:?}");
        assert_eq!(hook.status.code(), Some(2), "{args:?}");
        assert!(hook.stdout.is_empty(), "{args:?}");
        assert!(stderr(&hook).starts_with("error: "), "{}", stderr(&hook));
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whether an ELF executable names a program interpreter (`PT_INTERP`,
/// the dynamic loader): a static or static-pie binary has none.
#[cfg(target_os = "linux")]
fn has_interpreter(binary: &Path) -> bool {
    let elf = std::fs::read(binary).unwrap();
    assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    let u16_at = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (entry_size, entries) = (u16_at(0x36), u16_at(0x38));
    (0..entries).any(|i| {
        let at = phoff + i * entry_size;
        u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()) == 3 // PT_INTERP
    })
}

/// A plain build (`cargo install`, and the debug build this test runs
/// against) links `policy-hook` static-pie where glibc's static archives
/// exist and build.rs's probe program links and runs that way, so a hook
/// call starts without the dynamic loader; `policy` stays dynamic. The
/// other tests here run this binary end to end.
#[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
#[test]
fn plain_policy_hook_is_linked_static_pie_where_glibc_archives_exist() {
    let crt_static = cfg!(target_feature = "crt-static");
    let probed_static = option_env!("HOOK_POLICY_HOOK_LINK") == Some("static-pie");
    assert_eq!(
        !has_interpreter(&lean()),
        crt_static || probed_static,
        "policy-hook is static exactly when build.rs said so"
    );
    if crt_static || option_env!("HOOK_POLICY_PLAIN_LINK") == Some("1") {
        return;
    }
    assert!(has_interpreter(&bin()), "policy keeps the dynamic link");
    let archive = std::process::Command::new("cc")
        .arg("-print-file-name=libc.a")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if Path::new(&archive).is_absolute() && Path::new(&archive).is_file() {
        assert!(
            probed_static,
            "glibc's {archive} exists, yet build.rs left policy-hook dynamic"
        );
    }
}
