//! The compiled-policy cache of the installed plugin (src/cache.rs): it may
//! make calls faster, never different. Every test compares against what the
//! policy files say at the moment of the call.

mod common;

use common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

const DENY_RM: &str = "version: 1
rules:
  - id: no-rm
    hook: pre_shell_exec
    shell: { program: rm }
    deny: \"no rm\"
";

// Same length as DENY_RM: a size check alone would not see the edit.
const DENY_LS: &str = "version: 1
rules:
  - id: no-ls
    hook: pre_shell_exec
    shell: { program: ls }
    deny: \"no ls\"
";

fn cache_dir(home: &ChibiHome) -> PathBuf {
    home.plugin().parent().unwrap().join("cache")
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|l| {
            l.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".prepared"))
                .collect()
        })
        .unwrap_or_default()
}

fn denied(home: &ChibiHome, command: &str) -> bool {
    let reply = home.reply(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": command}),
    );
    reply["denied"] == json!(true)
}

/// Files younger than two seconds are never cached (their times may not
/// yet tell edits apart); wait until the policy is old enough.
fn age() {
    std::thread::sleep(Duration::from_millis(2100));
}

#[test]
fn a_cached_policy_decides_like_the_files_and_follows_every_edit() {
    let dir = TempDir::new("cache");
    let p = dir.write("policy.yaml", DENY_RM);
    let home = ChibiHome::install(&[&p]);
    let cache = cache_dir(&home);

    // Fresh files: decided from YAML, nothing cached yet.
    assert!(denied(&home, "rm x"));
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));

    age();
    assert!(denied(&home, "sudo rm x"));
    assert_eq!(entries(&cache).len(), 1, "an entry for pre_shell_exec");
    // From the cache now, with the same answers and the rule's origin.
    assert!(denied(&home, "rm -f y"));
    assert!(!denied(&home, "ls"));
    let reply = home.reply(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "rm z"}),
    );
    assert_eq!(reply["reason"], json!("no rm [hook-policy rule: no-rm]"));

    // An edit of the same size is seen by the very next call.
    std::fs::write(&p, DENY_LS).unwrap();
    assert!(!denied(&home, "rm x"));
    assert!(denied(&home, "ls"));

    // A broken edit is never masked by the cached good policy.
    age();
    assert!(denied(&home, "ls"));
    std::fs::write(&p, "version: 1\nrules: [\n").unwrap();
    let out = home.hook(
        "pre_shell_exec",
        &json!({"tool_name": "shell_exec", "command": "echo hi"}),
    );
    let reply = stdout_json(&out);
    assert_eq!(reply["denied"], json!(true));
    assert!(reply["reason"].as_str().unwrap().contains("fail closed"));
}

#[test]
fn a_damaged_or_unwritable_cache_only_costs_speed() {
    let dir = TempDir::new("cache-bad");
    let p = dir.write("policy.yaml", DENY_RM);
    let home = ChibiHome::install(&[&p]);
    let cache = cache_dir(&home);
    age();
    assert!(denied(&home, "rm x"));
    let names = entries(&cache);
    assert_eq!(names.len(), 1);

    // Truncated, garbage, or valid JSON under the wrong key: all misses.
    let entry = cache.join(&names[0]);
    let good = std::fs::read(&entry).unwrap();
    // The rule's program renamed inside the stored rule, same length: only
    // the rule's checksum can tell (an entry that parses but says something
    // else); the call reads the rule, finds it damaged, and decides from
    // the YAML.
    let edited = replace(&good, b"\"program\":\"rm\"", b"\"program\":\"ls\"");
    assert_ne!(edited, good, "the entry stores the rule's mapping");
    for damaged in [
        &good[..good.len() / 2],
        b"not json",
        b"{\"key\": \"0\", \"rules\": []}",
        &edited,
    ] {
        std::fs::write(&entry, damaged).unwrap();
        let shown = String::from_utf8_lossy(damaged);
        assert!(denied(&home, "rm x"), "with a damaged entry: {shown:.40}");
        assert!(!denied(&home, "ls"));
    }

    // A cache directory that cannot be created (a file is in the way).
    std::fs::remove_dir_all(&cache).unwrap();
    std::fs::write(&cache, "in the way").unwrap();
    assert!(denied(&home, "rm x"));
    assert!(!denied(&home, "ls"));

    // Switched off, it is not even consulted.
    std::fs::remove_file(&cache).unwrap();
    let out = run(
        &home.plugin(),
        &[],
        &[
            ("CHIBI_HOOK", "pre_shell_exec"),
            ("HOOK_POLICY_CACHE", "off"),
        ],
        br#"{"tool_name":"shell_exec","command":"rm x"}"#,
    );
    assert_eq!(stdout_json(&out)["denied"], json!(true));
    assert!(!cache.exists());
}

/// Each rule's line in an entry ends with its parsed CEL trees, which a
/// cached call rebuilds instead of parsing: damage there (any flipped byte,
/// a cut) is a miss like any other, and the call decides from the files.
#[test]
fn a_damaged_stored_tree_only_costs_speed() {
    let dir = TempDir::new("cache-tree");
    let p = dir.write(
        "policy.yaml",
        "version: 1
rules:
  - id: no-rm-r
    hook: pre_shell_exec
    when: command.shellCommands().exists(c, c.program == 'rm' && c.args.exists(a, a.startsWith('-r')))
    deny: \"no rm -r\"
",
    );
    let home = ChibiHome::install(&[&p]);
    let cache = cache_dir(&home);
    age();
    assert!(denied(&home, "rm -r x"));
    let names = entries(&cache);
    assert_eq!(names.len(), 1);
    let entry = cache.join(&names[0]);
    let good = std::fs::read(&entry).unwrap();
    // From the cache, with the stored tree.
    assert!(denied(&home, "rm -rf x"));
    assert!(!denied(&home, "rm x"));
    assert_eq!(
        std::fs::read(&entry).unwrap(),
        good,
        "the entry was used, not rewritten"
    );
    // The rule's record: its JSON, a tab, its trees (then other parts).
    let tab = 1 + good
        .windows(2)
        .position(|w| w == b"}\t")
        .expect("a stored tree");
    let mut damaged: Vec<Vec<u8>> = (tab + 1..(tab + 64).min(good.len()))
        .map(|i| {
            let mut bad = good.clone();
            bad[i] ^= 0x01;
            bad
        })
        .collect();
    damaged.push(good[..tab + 8].to_vec());
    damaged.push([&good[..tab + 8], &good[tab + 9..]].concat());
    for bad in damaged {
        std::fs::write(&entry, &bad).unwrap();
        assert!(denied(&home, "rm -r x"));
        std::fs::write(&entry, &bad).unwrap();
        assert!(!denied(&home, "rm x"));
    }
}

/// A cached entry stores each `matches()` pattern's shortest match, so a
/// call answers "no match" on shorter texts without reading the pattern:
/// the decisions stay those of the files, on both sides of that length.
#[test]
fn a_cached_pattern_decides_like_the_files_on_short_and_long_lines() {
    let dir = TempDir::new("cache-pattern");
    let p = dir.write(
        "policy.yaml",
        "version: 1
rules:
  - id: no-key-files
    hook: pre_shell_exec
    when: \"payload.command.matches(r'(?i)\\\\.pem$|/\\\\.env$')\"
    deny: \"no key files\"
",
    );
    let home = ChibiHome::install(&[&p]);
    let cache = cache_dir(&home);
    let lines = [
        ("ls", false),
        ("a", false),
        ("", false),
        (".PEM", true),
        ("cat a.pem", true),
        ("cat x/.env", true),
        ("cat .env", false),
        ("cat a.pem.txt", false),
    ];
    let from_files: Vec<bool> = lines.iter().map(|(l, _)| denied(&home, l)).collect();
    age();
    assert!(!denied(&home, "ls -l"));
    assert_eq!(entries(&cache).len(), 1, "an entry for pre_shell_exec");
    let entry = std::fs::read(cache.join(&entries(&cache)[0])).unwrap();
    let stored = br#"[["(?i)\\.pem$|/\\.env$",4]]"#;
    assert!(
        entry.windows(stored.len()).any(|w| w == stored),
        "{}",
        String::from_utf8_lossy(&entry)
    );
    for ((line, want), files) in lines.iter().zip(from_files) {
        assert_eq!(files, *want, "from the files: {line:?}");
        assert_eq!(denied(&home, line), *want, "from the cache: {line:?}");
    }
}

/// A bad `writes` glob is refused by install and by every call (fail
/// closed), and no entry is written: stored rules skip that check only
/// because they passed it.
#[test]
fn a_bad_writes_glob_fails_closed_and_is_never_cached() {
    let good = "version: 1
rules:
  - id: guard
    hook: pre_shell_exec
    shell: { writes: [\"~/.claude/settings.json\", \"/x/[ab]\"] }
    deny: \"guarded\"
";
    let dir = TempDir::new("cache-writes");
    let p = dir.write("policy.yaml", &good.replace("[ab]", "[ab"));
    assert!(!policy(&["check", p.to_str().unwrap()], b"")
        .status
        .success());
    std::fs::write(&p, good).unwrap();
    let home = ChibiHome::install(&[&p]);
    let cache = cache_dir(&home);
    age();
    assert!(!denied(&home, "ls"));
    assert_eq!(entries(&cache).len(), 1);
    assert!(denied(&home, "rm -rf ~/.claude"));
    assert!(denied(&home, "rm /x/a"));
    assert!(!denied(&home, "rm /x/c"));
    // Broken after install: every call fails closed, from the files.
    std::fs::remove_dir_all(&cache).unwrap();
    std::fs::write(&p, good.replace("[ab]", "[ab")).unwrap();
    assert!(denied(&home, "ls"));
    age();
    assert!(denied(&home, "ls"));
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));
}

/// `bytes` with every `from` replaced by `to` (of the same length).
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i + from.len() <= out.len() {
        if &out[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
            i += from.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Two policy lists used in turn with one cache (a user-scope and a
/// project-scope install, or two projects) each keep their entries: once
/// written, neither call rewrites them, and each list decides by its own
/// rules. Before, writing one list's entry removed the other's, so every
/// call in turn was a miss that parsed the YAML.
#[test]
fn policy_lists_used_in_turn_keep_their_entries() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new("cache-turns");
    let deny_rm = dir.write("a/policy.yaml", DENY_RM);
    let deny_ls = dir.write("b/policy.yaml", DENY_LS);
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let home = dir.path().join("home");
    let xdg = dir.path().join("xdg");
    let cache = xdg.join("hook-policy");
    age();
    let deny = |policy: &Path, command: &str| -> bool {
        let event = json!({
            "session_id": "s", "transcript_path": "/tmp/t.jsonl",
            "cwd": project, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "t"
        });
        let out = run(
            &bin(),
            &["hook", "claude-code", "--policy", policy.to_str().unwrap()],
            &[
                ("HOME", home.to_str().unwrap()),
                ("XDG_CACHE_HOME", xdg.to_str().unwrap()),
            ],
            event.to_string().as_bytes(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.contains("\"deny\"")
    };
    let written = || -> Vec<(String, u64)> {
        let mut list: Vec<_> = entries(&cache)
            .into_iter()
            .map(|name| {
                let ino = std::fs::metadata(cache.join(&name)).unwrap().ino();
                (name, ino)
            })
            .collect();
        list.sort();
        list
    };

    let round = || {
        assert!(deny(&deny_rm, "rm x"));
        assert!(!deny(&deny_rm, "ls"));
        assert!(deny(&deny_ls, "ls"));
        assert!(!deny(&deny_ls, "rm x"));
    };
    // The first round writes each list's entries (a call allowed by the
    // shell rules also asks the agent's own hook, which has its entry).
    round();
    let first = written();
    for hook in ["pre_shell_exec-", "claude_code.PreToolUse-"] {
        let n = first.iter().filter(|(n, _)| n.starts_with(hook)).count();
        assert_eq!(n, 2, "one {hook} entry per list: {first:?}");
    }
    round();
    round();
    assert_eq!(written(), first, "entries rewritten: calls in turn missed");
}

/// chibi's `pre_tool` also asks the tool filter (`pre_api_tools`) through
/// the same lookup, and skips it when the policy has no filter rule: from
/// the cache too, the filter must be found wherever its rules live (here
/// in another file than the `pre_tool` rules), and follow edits.
#[test]
fn pre_tool_asks_the_tool_filter_alike_from_the_cache() {
    let dir = TempDir::new("cache-tool-filter");
    let gate = dir.write(
        "gate.yaml",
        "version: 1\nrules:\n  - id: cap-timeout\n    hook: pre_tool\n    when: has(arguments.timeout) && arguments.timeout > 120\n    arguments: { timeout: 120 }\n",
    );
    let with_filter = "version: 1\nrules:\n  - id: no-fetch\n    hook: pre_api_tools\n    tools: { exclude: [fetch_url] }\n";
    let filter = dir.write("filter.yaml", with_filter);
    let home = ChibiHome::install(&[&gate, &filter]);
    let cache = cache_dir(&home);
    let call = |tool: &str| {
        home.reply(
            "pre_tool",
            &json!({"tool_name": tool, "arguments": {"url": "https://example.com"}}),
        )
    };
    let blocked = |tool: &str| {
        let reply = call(tool);
        let message = reply["message"].as_str().unwrap_or_default();
        reply["block"] == json!(true) && message.contains("no-fetch")
    };
    age();
    // The first call writes the entries, the next ones read them.
    for round in 0..3 {
        assert!(blocked("fetch_url"), "round {round}");
        assert_eq!(call("file_head"), json!({}), "round {round}");
    }
    let names = entries(&cache);
    assert!(
        names.iter().any(|n| n.starts_with("pre_tool-"))
            && names.iter().any(|n| n.starts_with("pre_api_tools-")),
        "{names:?}"
    );
    // Without a filter rule the gate has nothing to ask, cached or not.
    std::fs::write(
        &filter,
        "version: 1\nrules:\n  - id: no-rm\n    hook: pre_shell_exec\n    shell: { program: rm }\n    deny: \"no rm\"\n",
    )
    .unwrap();
    assert_eq!(call("fetch_url"), json!({}));
    age();
    for round in 0..2 {
        assert_eq!(call("fetch_url"), json!({}), "round {round}");
    }
    // And the filter back: the next call blocks again.
    std::fs::write(&filter, with_filter).unwrap();
    assert!(blocked("fetch_url"));
    age();
    assert!(blocked("fetch_url"));
    assert!(blocked("fetch_url"));
}
