//! `policy doctor` on throwaway homes, through the binary: for every agent
//! `policy install` knows, not installed, installed and healthy, binary
//! gone, policy broken, a policy that denies nothing, a hung hook, and the
//! JSON report's shape. Also: Cursor's user and project installs keep
//! separate policy lists.

mod common;

use common::{bin, repo, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const AGENTS: [&str; 11] = [
    "chibi",
    "picoclaw",
    "claude-code",
    "gemini",
    "codex",
    "cursor",
    "copilot",
    "windsurf",
    "cline",
    "opencode",
    "kiro",
];

/// A home and a project, and the commands run against them.
struct Machine {
    _dir: TempDir,
    home: PathBuf,
    proj: PathBuf,
}

impl Machine {
    fn new(tag: &str) -> Machine {
        let dir = TempDir::new(tag);
        let home = dir.path().join("home");
        let proj = dir.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        Machine {
            _dir: dir,
            home,
            proj,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .current_dir(&self.proj)
            .env("HOME", &self.home)
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"));
        for var in [
            "CHIBI_HOME",
            "PICOCLAW_HOME",
            "PICOCLAW_CONFIG",
            "CODEX_HOME",
            "HOOK_POLICY_PROJECT_ROOT",
            "HOOK_POLICY_LOG",
            "HOOK_POLICY_CACHE",
            "HOOK_POLICY_DEADLINE_MS",
            "CLAUDE_PROJECT_DIR",
            "GEMINI_PROJECT_DIR",
            "XDG_CONFIG_HOME",
            "COPILOT_HOME",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    fn policy(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `policy install AGENT` the way its documentation says, into the
    /// place doctor looks.
    fn install(&self, agent: &str, policy: &Path) {
        let p = policy.to_str().unwrap();
        let home = |rel: &str| self.home.join(rel).display().to_string();
        let out = match agent {
            "chibi" => self.policy(&["install", "chibi", "--home", &home(".chibi"), "--policy", p]),
            "picoclaw" => {
                let ws = home(".picoclaw/workspace");
                let out = self.policy(&["install", "picoclaw", "--policy", p, "--workspace", &ws]);
                std::fs::create_dir_all(self.home.join(".picoclaw")).unwrap();
                std::fs::write(self.home.join(".picoclaw/config.json"), &out.stdout).unwrap();
                out
            }
            "claude-code" | "gemini" | "codex" => {
                let file = match agent {
                    "claude-code" => home(".claude/settings.json"),
                    "gemini" => home(".gemini/settings.json"),
                    _ => home(".codex/hooks.json"),
                };
                std::fs::create_dir_all(Path::new(&file).parent().unwrap()).unwrap();
                self.policy(&["install", agent, "--policy", p, "--settings", &file])
            }
            "copilot" => self.policy(&["install", agent, "--policy", p, "--write"]),
            "kiro" => {
                // Kiro CLI's hooks go into an agent's configuration.
                let file = self.home.join(".kiro/agents/default.json");
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, "{\"name\": \"default\", \"tools\": [\"*\"]}\n").unwrap();
                self.policy(&[
                    "install",
                    agent,
                    "--policy",
                    p,
                    "--settings",
                    file.to_str().unwrap(),
                ])
            }
            _ => self.policy(&[
                "install", agent, "--policy", p, "--write", "--scope", "user",
            ]),
        };
        assert!(out.status.success(), "install {agent}: {out:?}");
    }

    fn doctor(&self, extra: &[&str]) -> (Option<i32>, Value) {
        let mut args = vec!["doctor", "--format", "json", "--home"];
        let home = self.home.display().to_string();
        args.push(&home);
        args.extend_from_slice(extra);
        let out = self.policy(&args);
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("doctor --format json is not JSON ({e}): {out:?}"));
        (out.status.code(), doc)
    }

    fn doctor_human(&self, extra: &[&str]) -> (Option<i32>, String) {
        let mut args = vec!["doctor"];
        args.extend_from_slice(extra);
        let out = self.policy(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

fn agent<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == name)
        .unwrap_or_else(|| panic!("{name} missing from {doc}"))
}

fn problem_kinds(report: &Value) -> Vec<String> {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_string())
        .collect()
}

fn installed_entries(report: &Value) -> Vec<&Value> {
    report["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["installed"] == true)
        .flat_map(|s| s["entries"].as_array().unwrap())
        .collect()
}

fn shipped() -> PathBuf {
    repo().join("policies")
}

#[test]
fn an_empty_home_has_no_agent_and_a_present_agent_without_the_hook_is_named_with_its_fix() {
    let m = Machine::new("doctor-absent");
    let (code, doc) = m.doctor(&[]);
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["status"], "ok");
    for name in AGENTS {
        assert_eq!(agent(&doc, name)["found"], false, "{name}: {doc}");
    }
    // Each agent's own folder makes it present; without an entry, status 3
    // and the command that installs it.
    let folders = [
        ("chibi", ".chibi", "policy install chibi"),
        ("picoclaw", ".picoclaw", "policy install picoclaw"),
        (
            "claude-code",
            ".claude",
            "policy install claude-code --policy POLICY --settings",
        ),
        (
            "gemini",
            ".gemini",
            "policy install gemini --policy POLICY --settings",
        ),
        (
            "codex",
            ".codex",
            "policy install codex --policy POLICY --settings",
        ),
        (
            "cursor",
            ".cursor",
            "policy install cursor --policy POLICY --write --scope user",
        ),
        (
            "copilot",
            ".copilot",
            "policy install copilot --policy POLICY --write --scope user",
        ),
        (
            "windsurf",
            ".codeium/windsurf",
            "policy install windsurf --policy POLICY --write --scope user",
        ),
        (
            "cline",
            "Documents/Cline/Hooks",
            "policy install cline --policy POLICY --write --scope user",
        ),
        (
            "opencode",
            ".config/opencode",
            "policy install opencode --policy POLICY --write --scope user",
        ),
        (
            "kiro",
            ".kiro",
            "policy install kiro --policy POLICY --settings",
        ),
    ];
    for (name, folder, fix) in folders {
        std::fs::create_dir_all(m.home.join(folder)).unwrap();
        let (code, doc) = m.doctor(&["--agent", name]);
        assert_eq!(code, Some(3), "{name}: {doc}");
        assert_eq!(doc["status"], "not-installed");
        let report = agent(&doc, name);
        assert_eq!(report["found"], true, "{name}");
        assert_eq!(problem_kinds(report), ["not-installed"], "{name}");
        let said = report["problems"][0]["fix"].as_str().unwrap();
        assert!(said.contains(fix), "{name}: {said}");
        let (code, text) = m.doctor_human(&["--agent", name, "--home", m.home.to_str().unwrap()]);
        assert_eq!(code, Some(3));
        assert!(text.contains(fix), "{name}: {text}");
    }
}

#[test]
fn every_agent_installed_is_healthy_with_live_verdicts() {
    let m = Machine::new("doctor-healthy");
    for name in AGENTS {
        m.install(name, &shipped());
    }
    let (code, doc) = m.doctor(&[]);
    assert_eq!(code, Some(0), "{doc:#}");
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["exit_status"], 0);
    for name in AGENTS {
        let report = agent(&doc, name);
        assert_eq!(report["found"], true, "{name}");
        assert!(problem_kinds(report).is_empty(), "{name}: {report:#}");
        let entries = installed_entries(report);
        assert_eq!(entries.len(), 1, "{name}: {report:#}");
        let e = entries[0];
        assert_eq!(e["binary_ok"], true, "{name}");
        assert_eq!(e["policy_error"], Value::Null, "{name}");
        let probes = e["probes"].as_array().unwrap();
        assert_eq!(probes[0]["event"], "harmless");
        assert_eq!(probes[0]["verdict"], "not denied", "{name}: {e:#}");
        assert_eq!(probes[1]["event"], "dangerous");
        assert_eq!(probes[1]["verdict"], "denied", "{name}: {e:#}");
        // The live reply is the agent's own, with the policy's reason.
        let reply = probes[1]["reply"].as_str().unwrap();
        assert!(
            reply.contains("core.recursive-force-delete"),
            "{name}: {reply}"
        );
    }
    // Windsurf's block is its exit status.
    let windsurf = installed_entries(agent(&doc, "windsurf"))[0]["probes"][1].clone();
    assert_eq!(windsurf["exit_status"], 2);

    let (code, text) = m.doctor_human(&["--home", m.home.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("all agents found are guarded"), "{text}");
    assert!(
        text.contains("beforeShellExecution: rm -rf / -> denied"),
        "{text}"
    );
}

#[test]
fn a_missing_binary_is_reported_with_the_install_command_that_restores_it() {
    let m = Machine::new("doctor-binary");
    for name in AGENTS {
        m.install(name, &shipped());
    }
    // The installed copy the coding agents' entries run, chibi's plugin,
    // and PicoClaw's command.
    std::fs::remove_file(m.home.join(".local/share/hook-policy/policy")).unwrap();
    std::fs::remove_file(m.home.join(".chibi/plugins/hook-policy/hook-policy")).unwrap();
    let config = m.home.join(".picoclaw/config.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    doc["hooks"]["processes"]["hook-policy"]["command"][0] = "/nonexistent/policy".into();
    std::fs::write(&config, doc.to_string()).unwrap();

    let (code, doc) = m.doctor(&[]);
    assert_eq!(code, Some(1), "{doc:#}");
    assert_eq!(doc["status"], "broken");
    for name in AGENTS {
        let report = agent(&doc, name);
        assert_eq!(
            problem_kinds(report),
            ["binary-missing"],
            "{name}: {report:#}"
        );
        let e = installed_entries(report)[0];
        assert_eq!(e["binary_ok"], false);
        // Nothing was sent through a command that cannot start.
        assert!(e["probes"].as_array().unwrap().is_empty());
        let fix = report["problems"][0]["fix"].as_str().unwrap();
        assert!(fix.contains(&format!("policy install {name}")), "{fix}");
    }
    let fix = agent(&doc, "cursor")["problems"][0]["fix"]
        .as_str()
        .unwrap();
    assert!(fix.contains("--write --scope user"), "{fix}");
}

#[test]
fn a_broken_policy_and_a_policy_that_denies_nothing_are_problems() {
    let m = Machine::new("doctor-policy");
    let dir = m.home.join("policies");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.yaml");
    std::fs::write(&empty, "version: 1\nrules: []\n").unwrap();
    for name in AGENTS {
        m.install(name, &empty);
    }
    // A policy without rules loads, but lets rm -rf / through.
    let (code, doc) = m.doctor(&[]);
    assert_eq!(code, Some(1), "{doc:#}");
    for name in AGENTS {
        let report = agent(&doc, name);
        assert_eq!(
            problem_kinds(report),
            ["dangerous-not-denied"],
            "{name}: {report:#}"
        );
        let probes = installed_entries(report)[0]["probes"].clone();
        assert_eq!(probes[1]["verdict"], "not denied", "{name}");
        assert_eq!(probes[1]["ok"], false);
        assert_eq!(probes[0]["ok"], true);
    }
    let (_, text) = m.doctor_human(&["--agent", "cursor", "--home", m.home.to_str().unwrap()]);
    assert!(
        text.contains("did not deny a dangerous call (beforeShellExecution: rm -rf /)"),
        "{text}"
    );
    assert!(text.contains("fix:"), "{text}");

    // Broken after install: the hooks fail closed, so the harmless call is
    // denied too, and doctor names the file and line.
    std::fs::write(&empty, "version: 1\nrules: [\n").unwrap();
    let (code, doc) = m.doctor(&[]);
    assert_eq!(code, Some(1), "{doc:#}");
    for name in AGENTS {
        let report = agent(&doc, name);
        let kinds = problem_kinds(report);
        assert!(
            kinds.contains(&"policy-broken".to_string()),
            "{name}: {kinds:?}"
        );
        assert!(
            kinds.contains(&"harmless-denied".to_string()),
            "{name}: {kinds:?}"
        );
        let e = installed_entries(report)[0];
        let error = e["policy_error"].as_str().unwrap();
        assert!(error.contains("empty.yaml"), "{name}: {error}");
        let fix = report["problems"][0]["fix"].as_str().unwrap();
        assert!(fix.contains("policy check"), "{fix}");
        assert_eq!(e["probes"][1]["verdict"], "denied", "{name}");
    }
}

#[test]
fn a_hung_hook_does_not_hang_doctor() {
    let m = Machine::new("doctor-hung");
    let script = m.home.join("hang.sh");
    std::fs::write(&script, "#!/bin/sh\nsleep 30\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let list = m.home.join("cursor.policies");
    std::fs::write(&list, format!("{}\n", shipped().display())).unwrap();
    let command = format!(
        "{} hook cursor --policy-list {}",
        script.display(),
        list.display()
    );
    std::fs::create_dir_all(m.home.join(".cursor")).unwrap();
    std::fs::write(
        m.home.join(".cursor/hooks.json"),
        serde_json::json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": command}]}})
            .to_string(),
    )
    .unwrap();
    // One that floods its output and never ends.
    let flood = m.home.join("flood.sh");
    std::fs::write(&flood, "#!/bin/sh\nexec yes\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&flood, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::create_dir_all(m.home.join(".codeium/windsurf")).unwrap();
    std::fs::write(
        m.home.join(".codeium/windsurf/hooks.json"),
        serde_json::json!({"hooks": {"pre_run_command": [{"command": format!(
            "{} hook windsurf --policy-list {}",
            flood.display(),
            list.display()
        )}]}})
        .to_string(),
    )
    .unwrap();
    let started = Instant::now();
    let (code, doc) = m.doctor(&["--agent", "cursor", "--agent", "windsurf", "--timeout", "1"]);
    // Four probes of 1 s each, not of 30 s or forever.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code, Some(1), "{doc:#}");
    let report = agent(&doc, "cursor");
    assert_eq!(problem_kinds(report), ["hook-timed-out"], "{report:#}");
    let probes = installed_entries(report)[0]["probes"].clone();
    assert_eq!(probes[0]["verdict"], "timed out");
    assert_eq!(probes[1]["verdict"], "timed out");
    let report = agent(&doc, "windsurf");
    assert_eq!(problem_kinds(report), ["hook-timed-out"], "{report:#}");
}

#[test]
fn the_json_report_has_a_stable_shape() {
    let m = Machine::new("doctor-json");
    m.install("cursor", &shipped());
    std::fs::create_dir_all(m.home.join(".gemini")).unwrap();
    let (code, doc) = m.doctor(&["--agent", "cursor", "--agent", "gemini"]);
    assert_eq!(code, Some(3), "{doc:#}");
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&doc), ["version", "status", "exit_status", "agents"]);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["exit_status"], 3);
    let agents = doc["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 2, "--agent limits the report: {doc:#}");
    for a in agents {
        assert_eq!(keys(a), ["agent", "title", "found", "scopes", "problems"]);
        for s in a["scopes"].as_array().unwrap() {
            assert_eq!(keys(s), ["scope", "file", "installed", "entries"]);
            assert!(s["scope"] == "user" || s["scope"] == "project", "{s}");
        }
        for p in a["problems"].as_array().unwrap() {
            assert_eq!(keys(p), ["kind", "scope", "message", "fix"]);
        }
    }
    let cursor = agent(&doc, "cursor");
    assert_eq!(cursor["title"], "Cursor");
    let user = &cursor["scopes"][0];
    assert_eq!(user["scope"], "user");
    assert_eq!(
        user["file"],
        m.home.join(".cursor/hooks.json").display().to_string()
    );
    let e = &user["entries"][0];
    assert_eq!(
        keys(e),
        [
            "command",
            "binary",
            "binary_ok",
            "policy_list",
            "policy",
            "policy_error",
            "probes"
        ]
    );
    assert_eq!(
        keys(&e["probes"][0]),
        ["event", "shows", "verdict", "ok", "exit_status", "reply"]
    );
    assert_eq!(cursor["scopes"][1]["scope"], "project");
    assert_eq!(cursor["scopes"][1]["installed"], false);
    assert_eq!(
        problem_kinds(agent(&doc, "gemini")),
        ["not-installed"],
        "{doc:#}"
    );
    // An agent install does not know is refused.
    let out = m.policy(&["doctor", "--agent", "vim"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("policy install` knows"));
}

#[test]
fn cursor_user_and_project_installs_keep_their_own_policy_lists() {
    let m = Machine::new("doctor-cursor-scopes");
    let dir = m.home.join("policies");
    std::fs::create_dir_all(&dir).unwrap();
    let user_policy = dir.join("user.yaml");
    let project_policy = dir.join("project.yaml");
    std::fs::write(&user_policy, "version: 1\nrules: []\n").unwrap();
    std::fs::write(&project_policy, "version: 1\nrules: []\n").unwrap();
    let p = |path: &Path| path.to_str().unwrap().to_string();
    let install = |policy: &Path, scope: &str| {
        let out = m.policy(&[
            "install",
            "cursor",
            "--policy",
            &p(policy),
            "--write",
            "--scope",
            scope,
        ]);
        assert!(out.status.success(), "{out:?}");
    };
    install(&user_policy, "user");
    let user_file = m.home.join(".cursor/hooks.json");
    let user_before = std::fs::read(&user_file).unwrap();
    let data = m.home.join(".local/share/hook-policy");
    let user_list = data.join("cursor.policies");
    assert_eq!(
        std::fs::read_to_string(&user_list).unwrap(),
        format!("{}\n", p(&user_policy))
    );
    // The project install leaves the user's file and list as they were.
    install(&project_policy, "project");
    assert_eq!(std::fs::read(&user_file).unwrap(), user_before);
    assert_eq!(
        std::fs::read_to_string(&user_list).unwrap(),
        format!("{}\n", p(&user_policy))
    );
    // And the user install (again, with another policy) leaves the project's.
    install(&shipped(), "user");
    let (_, doc) = m.doctor(&["--agent", "cursor"]);
    let cursor = agent(&doc, "cursor");
    let scopes = cursor["scopes"].as_array().unwrap();
    assert_eq!(
        scopes[0]["entries"][0]["policy"],
        serde_json::json!([p(&shipped().canonicalize().unwrap())])
    );
    assert_eq!(
        scopes[1]["entries"][0]["policy"],
        serde_json::json!([p(&project_policy)])
    );
    assert_ne!(
        scopes[0]["entries"][0]["policy_list"],
        scopes[1]["entries"][0]["policy_list"]
    );
    // Live: the user hook denies with the shipped policy, the project's
    // policy (no rules) does not, and doctor says so for that scope only.
    assert_eq!(scopes[0]["entries"][0]["probes"][1]["verdict"], "denied");
    assert_eq!(
        scopes[1]["entries"][0]["probes"][1]["verdict"],
        "not denied"
    );
    let problems = cursor["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{cursor:#}");
    assert_eq!(problems[0]["scope"], "project");
    // A second project install changes nothing.
    let project_file = m.proj.join(".cursor/hooks.json");
    let before = std::fs::read(&project_file).unwrap();
    install(&project_policy, "project");
    assert_eq!(std::fs::read(&project_file).unwrap(), before);
    // Uninstalling the project's entry takes its list, not the user's.
    let out = m.policy(&["uninstall", "cursor", "--settings", &p(&project_file)]);
    assert!(out.status.success(), "{out:?}");
    assert!(user_list.exists());
    assert!(data.join("policy").exists());
    let lists = std::fs::read_dir(&data).unwrap().filter(|e| {
        e.as_ref()
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "policies")
    });
    assert_eq!(lists.count(), 1);
    // A hooks file install refuses changes nothing, not even its list.
    let list_before = std::fs::read(&user_list).unwrap();
    std::fs::write(&user_file, "{ not json").unwrap();
    let out = m.policy(&[
        "install",
        "cursor",
        "--policy",
        &p(&project_policy),
        "--write",
        "--scope",
        "user",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(std::fs::read(&user_list).unwrap(), list_before);
    let (code, doc) = m.doctor(&["--agent", "cursor"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        problem_kinds(agent(&doc, "cursor")),
        ["unreadable-config", "not-installed"]
    );
}

#[test]
fn doctor_runs_no_command_a_cloned_project_could_have_planted() {
    let m = Machine::new("doctor-untrusted");
    let marker = m.home.join("ran");
    // A project's hooks file naming its own program: reported, not run.
    let script = m.proj.join("tools/guard");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch {}\necho '{{}}'\n", marker.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let list = m.proj.join("l.policies");
    std::fs::write(&list, format!("{}\n", shipped().display())).unwrap();
    let hooks = |command: String| {
        std::fs::create_dir_all(m.proj.join(".cursor")).unwrap();
        std::fs::write(
            m.proj.join(".cursor/hooks.json"),
            serde_json::json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": command}]}})
                .to_string(),
        )
        .unwrap();
    };
    hooks(format!(
        "{} hook cursor --policy-list {}",
        script.display(),
        list.display()
    ));
    let (code, doc) = m.doctor(&["--agent", "cursor"]);
    assert_eq!(code, Some(1), "{doc:#}");
    let report = agent(&doc, "cursor");
    assert_eq!(problem_kinds(report), ["hook-not-probed"], "{report:#}");
    assert!(report["problems"][0]["fix"]
        .as_str()
        .unwrap()
        .contains("--trust-project-hooks"));
    assert!(!marker.exists(), "doctor ran the project's program");
    // Asked to, doctor runs it (and finds it denies nothing).
    let (_, doc) = m.doctor(&["--agent", "cursor", "--trust-project-hooks"]);
    assert!(marker.exists());
    assert_eq!(
        problem_kinds(agent(&doc, "cursor")),
        ["dangerous-not-denied"]
    );
    std::fs::remove_file(&marker).unwrap();

    // A command line with shell syntax is never run, whichever the scope.
    m.install("cursor", &shipped());
    let binary = m.home.join(".local/share/hook-policy/policy");
    for file in [
        m.home.join(".cursor/hooks.json"),
        m.proj.join(".cursor/hooks.json"),
    ] {
        std::fs::write(
            &file,
            serde_json::json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": format!(
                "{} hook cursor --policy-list {}; touch {}",
                binary.display(),
                list.display(),
                marker.display()
            )}]}})
            .to_string(),
        )
        .unwrap();
    }
    let (code, doc) = m.doctor(&["--agent", "cursor", "--trust-project-hooks"]);
    assert_eq!(code, Some(1), "{doc:#}");
    let kinds = problem_kinds(agent(&doc, "cursor"));
    let not_probed = kinds.iter().filter(|k| *k == "hook-not-probed").count();
    assert_eq!(not_probed, 2, "{kinds:?}");
    assert!(!marker.exists(), "doctor ran a shell command line");
}

#[test]
fn settings_that_switch_hooks_off_are_a_problem() {
    let m = Machine::new("doctor-disabled");
    m.install("claude-code", &shipped());
    let file = m.home.join(".claude/settings.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    doc["disableAllHooks"] = true.into();
    std::fs::write(&file, doc.to_string()).unwrap();
    let (code, doc) = m.doctor(&["--agent", "claude-code"]);
    assert_eq!(code, Some(1), "{doc:#}");
    let report = agent(&doc, "claude-code");
    assert_eq!(problem_kinds(report), ["hooks-disabled"], "{report:#}");
    assert!(report["problems"][0]["message"]
        .as_str()
        .unwrap()
        .contains("disableAllHooks"));
}
