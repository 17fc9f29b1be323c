//! The hooks.json entries that make Cursor, Copilot CLI and Windsurf call
//! `policy hook AGENT`, and their merge into the file at its documented
//! location (see each adapter's module doc for the pages); also Kiro CLI's
//! entry, merged into an agent's configuration file.
//!
//! A merge keeps everything that is not ours, replaces our earlier entries
//! (found by their command: `<exe> hook AGENT ... --policy`), and writes
//! only when the result differs, so a second install changes nothing; the
//! file is replaced whole through a temporary file, with a `.bak` of the
//! old one when there was one. A file that is not JSON, has a `version`
//! other than 1 where the agent wants one, or already holds hook events of
//! another agent is refused untouched: merging into the wrong agent's file
//! would leave the agent it was meant for unguarded.

use super::agent_settings::Layout;
use super::tool_call::Harness;
use serde_json::{json, Map, Value as Json};
use std::path::{Path, PathBuf};

/// Where an install goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
}

/// The events each agent's entry registers.
pub fn events(harness: Harness) -> &'static [&'static str] {
    match harness {
        Harness::Cursor => &super::cursor::EVENTS,
        Harness::Copilot => &["preToolUse"],
        Harness::Windsurf => &super::windsurf::EVENTS,
        Harness::Kiro => &[super::kiro::EVENT],
        _ => &[],
    }
}

/// Hook event names that mark a file as another agent's.
fn foreign_events(harness: Harness) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = [
        Harness::Cursor,
        Harness::Copilot,
        Harness::Windsurf,
        Harness::Kiro,
    ]
    .into_iter()
    .filter(|h| *h != harness)
    .flat_map(events)
    .copied()
    // Copilot CLI and Kiro CLI both name their event preToolUse: the
    // entries' form tells them apart (`foreign_entry`).
    .filter(|e| !events(harness).contains(e))
    .collect();
    // Claude Code and Gemini CLI settings, and Codex's hooks.json.
    out.extend(["PreToolUse", "BeforeTool", "BeforeModel"]);
    // Cursor has a preToolUse event of its own (not one we install).
    if harness == Harness::Cursor {
        out.retain(|e| *e != "preToolUse");
    }
    out
}

/// Whether an existing hook entry has the other camelCase agent's shape:
/// Copilot CLI's entries run `bash`/`powershell`, Cursor's a `command`.
fn foreign_entry(harness: Harness, hook: &Json) -> bool {
    let copilot_style = hook.get("bash").is_some() || hook.get("powershell").is_some();
    match harness {
        Harness::Cursor | Harness::Kiro => copilot_style,
        Harness::Copilot => hook.get("command").is_some() && !copilot_style,
        _ => false,
    }
}

/// The documented location of the agent's hooks file.
pub fn default_path(harness: Harness, scope: Scope, home: &Path) -> Result<PathBuf, String> {
    Ok(match (harness, scope) {
        (Harness::Cursor, Scope::User) => home.join(".cursor/hooks.json"),
        (Harness::Cursor, Scope::Project) => PathBuf::from(".cursor/hooks.json"),
        (Harness::Copilot, Scope::Project) => PathBuf::from(".github/hooks/hook-policy.json"),
        // The hooks reference's user-level hooks directory.
        (Harness::Copilot, Scope::User) => std::env::var_os("COPILOT_HOME")
            .filter(|h| !h.is_empty())
            .map_or_else(|| home.join(".copilot"), PathBuf::from)
            .join("hooks/hook-policy.json"),
        (Harness::Windsurf, Scope::User) => home.join(".codeium/windsurf/hooks.json"),
        (Harness::Windsurf, Scope::Project) => PathBuf::from(".windsurf/hooks.json"),
        // Cline's hook is a script, not a hooks.json (`hook_script`).
        (Harness::Cline, scope) => super::hook_script::default_path(scope, home),
        // OpenCode's is a plugin file (`opencode_install`).
        (Harness::OpenCode, Scope::User) => super::opencode_install::user_path(home),
        (Harness::OpenCode, Scope::Project) => super::opencode_install::project_path(),
        (Harness::Kiro, _) => {
            return Err("Kiro CLI's hooks belong to an agent: name its configuration, --settings ~/.kiro/agents/NAME.json (or .kiro/agents/NAME.json)".into())
        }
        (other, _) => return Err(format!("{} is not installed through a hooks.json file", other.title())),
    })
}

/// The policy list the entry in `file` runs with. The user-scope file keeps
/// the agent's `AGENT.policies`; any other file (a project's, or one given
/// with `--settings`) has a list of its own, so installing into one scope
/// never changes what another scope's entry runs.
pub fn list_for(layout: &Layout, harness: Harness, file: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    let user = home.and_then(|h| default_path(harness, Scope::User, Path::new(&h)).ok());
    let file = super::agent_settings::absolute(file);
    match user {
        Some(u) if super::agent_settings::absolute(&u) == file => layout.list(harness),
        _ => layout.list_of_file(harness, &file),
    }
}

/// The command an entry runs: the installed copy of the binary with the
/// policy list file (`agent_settings::Layout`), so the entry stays the same
/// when the policy changes and never points at a build folder (an agent
/// lets the call through when the command cannot start).
pub fn command(harness: Harness, exe: &Path, list: &Path) -> String {
    format!(
        "{} hook {} --policy-list {}",
        quote(&exe.display().to_string()),
        harness.name(),
        quote(&list.display().to_string())
    )
}

/// The entry document: what a fresh hooks file would hold.
pub fn entry(harness: Harness, exe: &Path, list: &Path) -> Json {
    let command = command(harness, exe, list);
    let one = match harness {
        Harness::Cursor => json!({"command": command}),
        // No `powershell` command: the entry's quoting is POSIX shell.
        Harness::Copilot => json!({"type": "command", "bash": command, "timeoutSec": 30}),
        // Kiro's default timeout, written out: the deadline stays under it.
        Harness::Kiro => json!({"command": command, "matcher": "*", "timeout_ms": 30000}),
        // show_output makes Windsurf show the reason of a block.
        _ => json!({"command": command, "show_output": true}),
    };
    let hooks: Map<String, Json> = events(harness)
        .iter()
        .map(|e| (e.to_string(), json!([one.clone()])))
        .collect();
    match harness {
        Harness::Windsurf | Harness::Kiro => json!({"hooks": hooks}),
        _ => json!({"version": 1, "hooks": hooks}),
    }
}

pub(crate) fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:=@".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Whether a hook entry is one of ours (from any earlier install).
fn is_ours(harness: Harness, hook: &Json) -> bool {
    let needle = format!(" hook {} ", harness.name());
    ["command", "bash"].iter().any(|k| {
        hook.get(*k)
            .and_then(Json::as_str)
            .is_some_and(|c| c.contains(&needle) && c.contains("--policy"))
    })
}

/// `doc` with `entry` merged in, or why the file is refused.
pub fn merged(harness: Harness, mut doc: Json, entry: &Json, file: &Path) -> Result<Json, String> {
    let shown = file.display();
    let Some(root) = doc.as_object_mut() else {
        return Err(format!("{shown} is not a JSON object; nothing was changed"));
    };
    // An agent configuration has no version; Cursor's and Copilot's hooks.json do.
    if harness == Harness::Kiro && root.contains_key("version") {
        return Err(format!(
            "{shown} has a `version`, so it is another agent's hooks file, not a Kiro CLI agent configuration: nothing was changed"
        ));
    }
    if let Some(v) = entry.get("version") {
        match root.get("version") {
            None => {
                root.insert("version".into(), v.clone());
            }
            Some(found) if found == v => {}
            Some(found) => {
                return Err(format!(
                    "{shown} has version {found}; {} reads version {v}: nothing was changed",
                    harness.title()
                ))
            }
        }
    }
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(format!(
            "`hooks` in {shown} is not an object; nothing was changed"
        ));
    };
    let foreign = foreign_events(harness);
    if let Some(e) = hooks.keys().find(|k| foreign.contains(&k.as_str())) {
        return Err(format!(
            "{shown} has a `{e}` hook, so it belongs to another agent, not {}: nothing was changed",
            harness.title()
        ));
    }
    let entries = hooks.values().filter_map(Json::as_array).flatten();
    if entries.clone().any(|h| foreign_entry(harness, h)) {
        return Err(format!(
            "{shown} has hook entries in another agent's form, not {}'s: nothing was changed",
            harness.title()
        ));
    }
    for (event, ours) in entry["hooks"].as_object().into_iter().flatten() {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(format!(
                "`hooks.{event}` in {shown} is not a list; nothing was changed"
            ));
        };
        list.retain(|h| !is_ours(harness, h));
        list.extend(ours.as_array().into_iter().flatten().cloned());
    }
    Ok(doc)
}

/// Whether `install` would accept `file`: refused files are refused before
/// anything else (the binary, the policy list) is written.
pub fn check(harness: Harness, file: &Path, entry: &Json) -> Result<(), String> {
    read_merged(harness, file, entry).map(|_| ())
}

/// The file's text (when it exists), its document, and the document with
/// `entry` merged in.
fn read_merged(
    harness: Harness,
    file: &Path,
    entry: &Json,
) -> Result<(Option<String>, Json, Json), String> {
    let shown = file.display();
    let before = match std::fs::read_to_string(file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    let doc = match before.as_deref() {
        None => json!({}),
        Some(t) if t.trim().is_empty() => json!({}),
        Some(t) => serde_json::from_str::<Json>(t).map_err(|e| {
            format!("{shown} is not valid JSON ({e}); fix it first, nothing was changed")
        })?,
    };
    let was = doc.clone();
    let doc = merged(harness, doc, entry, file)?;
    Ok((before, was, doc))
}

/// Merges the entry into `file`; says what it did.
pub fn install(harness: Harness, file: &Path, entry: &Json) -> Result<String, String> {
    let shown = file.display();
    let (before, was, doc) = read_merged(harness, file, entry)?;
    if before.is_some() && doc == was {
        return Ok(format!("{shown} already runs hook-policy; nothing changed"));
    }
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut note = String::new();
    if before.is_some() {
        let bak = file.with_extension("json.bak");
        std::fs::copy(file, &bak)
            .map_err(|e| format!("cannot back up to {}: {e}", bak.display()))?;
        note = format!(" (previous version kept as {})", bak.display());
    }
    let tmp = file.with_extension("json.hook-policy.tmp");
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, file).map_err(|e| format!("cannot replace {shown}: {e}"))?;
    Ok(format!(
        "{} now runs hook-policy from {shown} on {}{note}",
        harness.title(),
        events(harness).join(", ")
    ))
}

/// Removes what [`install`] added to `file`: our entries, the event lists
/// left empty by that, and the file itself when nothing else is left in it
/// (install created it). Everything else stays as it was.
pub fn uninstall(harness: Harness, file: &Path) -> Result<String, String> {
    let shown = file.display();
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!("{shown} does not exist; nothing to remove"))
        }
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    let mut doc: Json = serde_json::from_str(&text)
        .map_err(|e| format!("{shown} is not valid JSON ({e}); nothing was changed"))?;
    let mut removed = 0;
    if let Some(hooks) = doc.get_mut("hooks").and_then(Json::as_object_mut) {
        for event in events(harness) {
            let Some(list) = hooks.get_mut(*event).and_then(Json::as_array_mut) else {
                continue;
            };
            let before = list.len();
            list.retain(|h| !is_ours(harness, h));
            removed += before - list.len();
            if list.is_empty() && before > 0 {
                hooks.remove(*event);
            }
        }
    }
    if removed == 0 {
        return Ok(format!(
            "{shown} has no hook-policy entry for {}; it was not changed",
            harness.title()
        ));
    }
    let leftover = doc.as_object().is_some_and(|root| {
        root.iter().all(|(k, v)| match k.as_str() {
            "hooks" => v.as_object().is_some_and(Map::is_empty),
            "version" => true,
            _ => false,
        })
    });
    let mut lines = Vec::new();
    if leftover {
        std::fs::remove_file(file).map_err(|e| format!("cannot remove {shown}: {e}"))?;
        lines.push(format!(
            "removed {shown}, which held only the hook-policy entries"
        ));
    } else {
        let tmp = file.with_extension("json.hook-policy.tmp");
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, file).map_err(|e| format!("cannot replace {shown}: {e}"))?;
        lines.push(format!("removed the hook-policy entries from {shown}"));
    }
    lines.extend(remove_installed_copy(harness, file)?);
    Ok(lines.join("\n"))
}

/// Removes the policy list of the hook file `file`, and the installed binary
/// once no entry uses it; says what it removed.
pub fn remove_installed_copy(harness: Harness, file: &Path) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    let layout = Layout::from_env()?;
    let list = list_for(&layout, harness, file);
    if std::fs::remove_file(&list).is_ok() {
        lines.push(format!("removed {}", list.display()));
    }
    if !layout.any_list() && std::fs::remove_file(layout.binary()).is_ok() {
        lines.push(format!("removed {}", layout.binary().display()));
        let _ = std::fs::remove_dir(&layout.dir);
    }
    Ok(lines)
}
