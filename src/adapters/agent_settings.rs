//! Installing the hook into Claude Code, Gemini CLI and Codex, and taking
//! it out again.
//!
//! `policy install AGENT` copies the hook binary (`hook_binary`) to a stable place
//! (`$XDG_DATA_HOME/hook-policy/policy`, else
//! `~/.local/share/hook-policy/policy`) and writes the policy paths to a
//! list file beside it (`AGENT.policies`). The settings entry runs that
//! copy with `--policy-list`, so:
//! - the entry does not point into a cargo target folder that may vanish
//!   (Claude Code ignores a hook that cannot start, status 127, and runs
//!   the tool);
//! - installing another policy rewrites only the list file: the entry is
//!   byte for byte the same, so Codex, which runs a hook only while its
//!   definition matches the hash the user trusted, keeps running it.
//!
//! Merging into a settings file keeps everything else as it was: the key
//! order, other hooks (also inside the matcher group ours shares), the
//! file's mode, and a symbolic link (the file it points to is written).
//! Our own handler is replaced where it stands, so its position (part of
//! Codex's trust key, `hooks.json:pre_tool_use:0:0`) does not move.

use super::tool_call::Harness;
use crate::engine::{self, Prepared};
use serde_json::{json, Map, Value as Json};
use std::path::{Component, Path, PathBuf};

/// The stable place of the installed copy and its policy lists.
pub struct Layout {
    pub dir: PathBuf,
}

impl Layout {
    /// `$XDG_DATA_HOME/hook-policy`, else `$HOME/.local/share/hook-policy`.
    pub fn from_env() -> Result<Layout, String> {
        let base = std::env::var_os("XDG_DATA_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".local/share"))
            })
            .ok_or("neither XDG_DATA_HOME nor HOME is set, so there is no place for the installed copy")?;
        Ok(Layout {
            dir: base.join("hook-policy"),
        })
    }

    pub fn binary(&self) -> PathBuf {
        self.dir.join("policy")
    }

    pub fn list(&self, harness: Harness) -> PathBuf {
        self.dir.join(format!("{}.policies", harness.name()))
    }

    /// The list of the entry in `file` when it is not the agent's one
    /// shared list: `AGENT-<hash of the file's absolute path>.policies`, so
    /// a project's install and the user's never rewrite each other's list.
    pub fn list_of_file(&self, harness: Harness, file: &Path) -> PathBuf {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(absolute(file).to_string_lossy().as_bytes());
        let tag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{}-{tag}.policies", harness.name()))
    }

    /// Whether any agent's entry still runs the installed copy.
    pub fn any_list(&self) -> bool {
        std::fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "policies"))
        })
    }
}

/// `path` made absolute against the working directory, lexically: the same
/// before and after the file (or its folder) is created, so a second
/// install names the same list.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let base = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_default();
    let mut out = base;
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The documented settings file of an agent at `scope` (a project's is
/// relative to the project): where `policy install AGENT --settings` is
/// pointed, and where `policy doctor` looks. Codex follows `$CODEX_HOME`.
pub fn default_path(
    harness: Harness,
    scope: super::hook_config::Scope,
    home: &Path,
) -> Option<PathBuf> {
    use super::hook_config::Scope::{Project, User};
    Some(match (harness, scope) {
        (Harness::ClaudeCode, User) => home.join(".claude/settings.json"),
        (Harness::ClaudeCode, Project) => PathBuf::from(".claude/settings.json"),
        (Harness::Gemini, User) => home.join(".gemini/settings.json"),
        (Harness::Gemini, Project) => PathBuf::from(".gemini/settings.json"),
        (Harness::Codex, User) => std::env::var_os("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map_or_else(|| home.join(".codex"), PathBuf::from)
            .join("hooks.json"),
        (Harness::Codex, Project) => PathBuf::from(".codex/hooks.json"),
        _ => return None,
    })
}

/// The events an agent's entry uses.
fn events(harness: Harness, uses_requests: bool) -> Vec<&'static str> {
    match harness {
        Harness::Gemini if uses_requests => vec!["BeforeTool", "BeforeModel"],
        Harness::Gemini => vec!["BeforeTool"],
        _ => vec!["PreToolUse"],
    }
}

/// Every event an install of this agent may have written.
fn all_events(harness: Harness) -> Vec<&'static str> {
    events(harness, true)
}

/// The settings entry that makes an agent call `policy hook AGENT`.
pub fn settings_entry(harness: Harness, exe: &Path, list: &Path, uses_requests: bool) -> Json {
    let command = format!(
        "{} hook {} --policy-list {}",
        shell_quote(&exe.display().to_string()),
        harness.name(),
        shell_quote(&list.display().to_string())
    );
    let hook = json!({"type": "command", "command": command});
    let mut hooks = Map::new();
    for event in events(harness, uses_requests) {
        let group = match (harness, event) {
            (Harness::ClaudeCode, _) => json!({"matcher": "*", "hooks": [hook]}),
            (Harness::Gemini, "BeforeTool") => {
                json!({"matcher": ".*", "hooks": [named(&hook)]})
            }
            (Harness::Gemini, _) => json!({"hooks": [named(&hook)]}),
            _ => json!({"hooks": [hook]}),
        };
        hooks.insert(event.into(), json!([group]));
    }
    json!({ "hooks": hooks })
}

fn named(hook: &Json) -> Json {
    let mut h = hook.clone();
    h["name"] = json!("hook-policy");
    h
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:=@".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Whether one hook handler is a hook-policy handler of `harness`.
fn is_ours(handler: &Json, harness: Harness) -> bool {
    let needle = format!(" hook {}", harness.name());
    handler
        .get("command")
        .and_then(Json::as_str)
        .is_some_and(|c| {
            c.split(needle.as_str())
                .nth(1)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
                && c.contains("--policy")
        })
}

/// What `policy install AGENT` did: the entry, and lines for the user.
pub struct Installed {
    pub entry: Json,
    pub notes: Vec<String>,
}

/// Installs the stable copy and the policy list, and merges the entry into
/// `settings` when given. Nothing is written when the policy does not load
/// or the settings file belongs to another agent.
pub fn install(
    harness: Harness,
    policy: &[PathBuf],
    settings: Option<&Path>,
) -> Result<Installed, String> {
    let mut absolute = Vec::new();
    for p in policy {
        absolute.push(
            std::fs::canonicalize(p)
                .map_err(|e| format!("cannot find policy {}: {e}", p.display()))?,
        );
    }
    let uses_requests = match engine::prepare(&absolute, None) {
        Prepared::Broken { message, .. } => {
            return Err(format!(
                "the policy does not load, fix it first (`policy check`): {message}"
            ))
        }
        Prepared::Ready(p) => p.hooks().contains(&"pre_api_request"),
    };
    let target = match settings {
        Some(s) => {
            let t = resolve(s)?;
            let doc = read_settings(&t)?.0;
            if let Some(why) = foreign(harness, &t, &doc) {
                return Err(format!(
                    "{} {why}; pass {}'s own settings file. Nothing was changed",
                    s.display(),
                    harness.title()
                ));
            }
            Some(t)
        }
        None => None,
    };
    let layout = Layout::from_env()?;
    std::fs::create_dir_all(&layout.dir)
        .map_err(|e| format!("cannot create {}: {e}", layout.dir.display()))?;
    let copied = copy_binary(&layout.binary())?;
    let list = layout.list(harness);
    let text: String = absolute
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect();
    write_replacing(&list, text.as_bytes(), None)?;
    let entry = settings_entry(harness, &layout.binary(), &list, uses_requests);
    let mut notes = vec![format!(
        "the hook runs {} ({copied}; run `policy install` again to update it) with the policy paths in {}; a later `policy install {} --policy ...` changes only that list",
        layout.binary().display(),
        list.display(),
        harness.name()
    )];
    if let (Some(t), Some(s)) = (&target, settings) {
        notes.insert(0, merge(harness, s, t, &entry)?);
        if let Some(off) = read_settings(t)
            .ok()
            .and_then(|(doc, _)| switched_off(harness, &doc))
        {
            notes.push(format!(
                "warning: {} {off}, so the hook will not run until that is changed",
                s.display()
            ));
        }
    }
    match harness {
        Harness::Codex => notes.push(
            "Codex runs a new or changed hook only after you trust it, and skips an untrusted one without a word: start `codex`, open /hooks and trust the hook-policy entry (unattended runs: `codex exec --dangerously-bypass-hook-trust`). Policy changes keep the entry as it is, so the trust holds".into(),
        ),
        Harness::Gemini if !uses_requests => notes.push(
            "the policy has no pre_api_request rules, so no BeforeModel hook was installed; install again after adding some".into(),
        ),
        _ => {}
    }
    Ok(Installed { entry, notes })
}

/// Whether the settings turn hooks, or our hook, off.
pub(crate) fn switched_off(harness: Harness, doc: &Json) -> Option<&'static str> {
    match harness {
        // Claude Code: `disableAllHooks: true` stops every hook.
        Harness::ClaudeCode if doc.get("disableAllHooks") == Some(&json!(true)) => {
            Some("sets `disableAllHooks: true`")
        }
        // Gemini CLI: `hooksConfig.enabled: false`, or our name in `hooksConfig.disabled`.
        Harness::Gemini => {
            let cfg = doc.get("hooksConfig")?;
            if cfg.get("enabled") == Some(&json!(false)) {
                return Some("sets `hooksConfig.enabled: false`");
            }
            cfg.get("disabled")
                .and_then(Json::as_array)
                .is_some_and(|d| d.iter().any(|n| n == "hook-policy"))
                .then_some("lists `hook-policy` in `hooksConfig.disabled`")
        }
        _ => None,
    }
}

/// Copies the hook binary (`policy-hook` built with this one, else the
/// running binary: `hook_binary`) to `dest` (beside, then renamed, so an
/// agent starting the hook meanwhile never runs half a file). Returns how
/// to name what was copied.
pub(crate) fn copy_binary(dest: &Path) -> Result<&'static str, String> {
    let source = super::hook_binary::Source::find()?;
    let exe = &source.path;
    if std::fs::canonicalize(dest).is_ok_and(|d| d == *exe) {
        return Ok(source.describe());
    }
    let tmp = dest.with_extension("tmp");
    std::fs::copy(exe, &tmp)
        .map_err(|e| format!("cannot copy {} to {}: {e}", exe.display(), tmp.display()))?;
    set_mode(&tmp, 0o755)?;
    std::fs::rename(&tmp, dest)
        .map_err(|e| format!("cannot move {} into place: {e}", dest.display()))?;
    Ok(source.describe())
}

/// Where a settings path really is: a symbolic link is followed, so the
/// file it points to is the one rewritten and the link stays.
fn resolve(settings: &Path) -> Result<PathBuf, String> {
    match std::fs::symlink_metadata(settings) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(settings).map_err(|e| {
            format!(
                "{} is a symbolic link to a file that cannot be reached ({e}); nothing was changed",
                settings.display()
            )
        }),
        _ => Ok(settings.to_path_buf()),
    }
}

/// The settings document and whether the file existed.
fn read_settings(path: &Path) -> Result<(Json, bool), String> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok((json!({}), true)),
        Ok(text) => serde_json::from_str::<Json>(&text)
            .map(|d| (d, true))
            .map_err(|e| {
                format!(
                    "{} is not valid JSON ({e}); fix it or pass another --settings file, nothing was changed",
                    path.display()
                )
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((json!({}), false)),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Why a settings file is another agent's, if it is: it lives under
/// another agent's folder, uses another agent's event names, or holds
/// another agent's hook-policy entry.
fn foreign(harness: Harness, path: &Path, doc: &Json) -> Option<String> {
    let folders = [
        (".claude", Harness::ClaudeCode),
        (".gemini", Harness::Gemini),
        (".codex", Harness::Codex),
    ];
    for c in path.components() {
        if let Component::Normal(name) = c {
            if let Some((folder, other)) = folders.iter().find(|(f, _)| name == *f) {
                if *other != harness {
                    return Some(format!(
                        "is under {folder}/, so it looks like {}'s settings",
                        other.title()
                    ));
                }
            }
        }
    }
    let hooks = doc.get("hooks").and_then(Json::as_object)?;
    const GEMINI_ONLY: [&str; 7] = [
        "BeforeTool",
        "AfterTool",
        "BeforeModel",
        "AfterModel",
        "BeforeAgent",
        "AfterAgent",
        "BeforeToolSelection",
    ];
    const CLAUDE_STYLE: [&str; 4] = [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "PermissionRequest",
    ];
    let has = |names: &[&'static str]| names.iter().find(|n| hooks.contains_key(**n)).copied();
    let wrong = if harness == Harness::Gemini {
        has(&CLAUDE_STYLE)
    } else {
        has(&GEMINI_ONLY)
    };
    if let Some(event) = wrong {
        let owner = if harness == Harness::Gemini {
            "Claude Code's or Codex's"
        } else {
            "Gemini CLI's"
        };
        return Some(format!(
            "has `{event}` hooks, an event of {owner}, not of {}",
            harness.title()
        ));
    }
    for other in [Harness::ClaudeCode, Harness::Gemini, Harness::Codex] {
        if other != harness && handlers(hooks).any(|h| is_ours(h, other)) {
            return Some(format!("holds the hook-policy entry for {}", other.title()));
        }
    }
    None
}

fn handlers(hooks: &Map<String, Json>) -> impl Iterator<Item = &Json> {
    hooks
        .values()
        .filter_map(Json::as_array)
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(Json::as_array))
        .flatten()
}

/// Takes our handlers out of one event's groups; with `put`, the first one
/// standing in a group of the same matcher is replaced instead. Groups and
/// the event's list emptied by this are removed. Returns whether `put` was
/// placed.
fn edit_event(
    hooks: &mut Map<String, Json>,
    event: &str,
    harness: Harness,
    put: Option<&Json>,
) -> Result<bool, String> {
    let Some(list) = hooks.get_mut(event) else {
        return Ok(false);
    };
    let Some(groups) = list.as_array_mut() else {
        return Err(format!("`hooks.{event}` is not a list"));
    };
    let mut placed = false;
    let mut emptied = Vec::new();
    for (gi, group) in groups.iter_mut().enumerate() {
        let same_matcher = put.is_some_and(|p| p.get("matcher") == group.get("matcher"));
        let Some(hs) = group.get_mut("hooks").and_then(Json::as_array_mut) else {
            continue;
        };
        let before = hs.len();
        let mut i = 0;
        while i < hs.len() {
            if is_ours(&hs[i], harness) {
                match put {
                    Some(p) if same_matcher && !placed => {
                        hs[i] = p["hooks"][0].clone();
                        placed = true;
                        i += 1;
                    }
                    _ => {
                        hs.remove(i);
                    }
                }
            } else {
                i += 1;
            }
        }
        if hs.is_empty() && before > 0 {
            emptied.push(gi);
        }
    }
    for gi in emptied.into_iter().rev() {
        groups.remove(gi);
    }
    if groups.is_empty() {
        hooks.remove(event);
    }
    Ok(placed)
}

/// Merges `entry` into the settings file at `target` (`shown` is the path
/// the user gave): earlier hook-policy handlers of this agent are replaced
/// or removed, everything else stays as it was.
fn merge(harness: Harness, shown: &Path, target: &Path, entry: &Json) -> Result<String, String> {
    let (mut doc, existed) = read_settings(target)?;
    let before = doc.clone();
    let Some(root) = doc.as_object_mut() else {
        return Err(format!(
            "{} is not a JSON object; nothing was changed",
            shown.display()
        ));
    };
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(format!(
            "`hooks` in {} is not an object; nothing was changed",
            shown.display()
        ));
    };
    let wanted = entry["hooks"].as_object().cloned().unwrap_or_default();
    for event in all_events(harness) {
        let group = wanted.get(event).and_then(|g| g.get(0));
        let placed = edit_event(hooks, event, harness, group)
            .map_err(|e| format!("{e} in {}; nothing was changed", shown.display()))?;
        if let (Some(g), false) = (group, placed) {
            let list = hooks.entry(event).or_insert_with(|| json!([]));
            if let Some(list) = list.as_array_mut() {
                list.push(g.clone());
            }
        }
    }
    if doc == before && existed {
        return Ok(format!(
            "{} already has this hook-policy entry; nothing was changed",
            shown.display()
        ));
    }
    let kept = write_settings(target, &doc, existed)?;
    Ok(format!(
        "merged the hook-policy entry into {}{}",
        shown.display(),
        kept.map(|b| format!(" (previous version kept as {})", b.display()))
            .unwrap_or_else(|| " (a new file)".into())
    ))
}

/// Removes what `policy install AGENT --settings FILE` added: our handlers,
/// and the groups, event lists and `hooks` object they leave empty; then
/// the agent's policy list, and the installed copy once no agent uses it.
pub fn uninstall(harness: Harness, settings: &Path) -> Result<String, String> {
    let target = resolve(settings)?;
    let (mut doc, existed) = read_settings(&target)?;
    let mut lines = Vec::new();
    let mut removed = false;
    if let Some(root) = doc.as_object_mut() {
        if let Some(hooks) = root.get_mut("hooks").and_then(Json::as_object_mut) {
            let had = handlers(hooks).filter(|h| is_ours(h, harness)).count();
            for event in all_events(harness) {
                edit_event(hooks, event, harness, None)
                    .map_err(|e| format!("{e} in {}; nothing was changed", settings.display()))?;
            }
            removed = had > 0;
            if removed && hooks.is_empty() {
                root.remove("hooks");
            }
        }
    }
    if removed {
        let kept = write_settings(&target, &doc, existed)?;
        lines.push(format!(
            "removed the hook-policy entry from {}{}",
            settings.display(),
            kept.map(|b| format!(" (previous version kept as {})", b.display()))
                .unwrap_or_default()
        ));
    } else {
        lines.push(format!(
            "{} has no hook-policy entry for {}; it was not changed",
            settings.display(),
            harness.title()
        ));
    }
    let layout = Layout::from_env()?;
    let list = layout.list(harness);
    if std::fs::remove_file(&list).is_ok() {
        lines.push(format!("removed {}", list.display()));
    }
    // Cursor, Copilot CLI and Windsurf entries run the same copy.
    if !layout.any_list() && std::fs::remove_file(layout.binary()).is_ok() {
        lines.push(format!("removed {}", layout.binary().display()));
        let _ = std::fs::remove_dir(&layout.dir);
    }
    Ok(lines.join("\n"))
}

/// Writes the document over `target` with the old file's mode (beside,
/// then renamed), keeping the old file as `*.bak`. Returns the backup.
fn write_settings(target: &Path, doc: &Json, existed: bool) -> Result<Option<PathBuf>, String> {
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut backup = None;
    let mode = if existed {
        let bak = PathBuf::from(format!("{}.bak", target.display()));
        std::fs::copy(target, &bak)
            .map_err(|e| format!("cannot back up to {}: {e}", bak.display()))?;
        backup = Some(bak);
        std::fs::metadata(target).ok().map(|m| mode_of(&m))
    } else {
        None
    };
    let text = serde_json::to_string_pretty(doc).map_err(|e| e.to_string())? + "\n";
    write_replacing(target, text.as_bytes(), mode.flatten())?;
    Ok(backup)
}

/// Writes `bytes` to a temporary file beside `path` and renames it over
/// `path`, with `mode` when given.
pub(crate) fn write_replacing(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.hook-policy.tmp"));
    let _ = std::fs::remove_file(&tmp);
    // Created with the final mode, so a 0600 file's content is never
    // readable by others, not even for a moment.
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(m) = mode {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(m);
    }
    let written = options.open(&tmp).and_then(|mut f| {
        use std::io::Write;
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", tmp.display()));
    }
    if let Some(m) = mode {
        // The umask may have narrowed the mode asked for at creation.
        set_mode(&tmp, m)?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

#[cfg(unix)]
fn mode_of(m: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(m.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn mode_of(_: &std::fs::Metadata) -> Option<u32> {
    None
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot set the mode of {}: {e}", path.display()))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_own_handlers_are_ours() {
        let h = |c: &str| json!({"type": "command", "command": c});
        assert!(is_ours(
            &h("/x/policy hook codex --policy-list /x/codex.policies"),
            Harness::Codex
        ));
        assert!(is_ours(
            &h("/x/policy hook codex --policy /p"),
            Harness::Codex
        ));
        assert!(!is_ours(
            &h("/x/policy hook codex --policy /p"),
            Harness::ClaudeCode
        ));
        assert!(!is_ours(
            &h("my-guard hook codex-extra --policy /p"),
            Harness::Codex
        ));
        assert!(!is_ours(&h("my-own-guard"), Harness::Codex));
    }
}
