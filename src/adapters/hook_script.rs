//! The hook file that makes Cline call `policy hook cline`, and writing it
//! at its documented place (<https://docs.cline.bot/customization/hooks>):
//! Cline has no settings entry for hooks; it runs the executable file named
//! after the event, `PreToolUse`, in `~/Documents/Cline/Hooks/` and in the
//! project's `.clinerules/hooks/`.
//!
//! One file per event and directory means nothing can be merged: a
//! `PreToolUse` that hook-policy did not write (found by its marker line)
//! is refused untouched, since replacing it would drop someone's hook. Our
//! own earlier file is replaced only when it differs (a `.bak` keeps it;
//! Cline ignores that name), so a second install changes nothing.
//!
//! The script checks that the installed binary is there before running it:
//! Cline lets a tool run when its hook exits non-zero without JSON, so a
//! missing binary must still answer with a cancel.

use super::tool_call::Harness;
use std::path::{Path, PathBuf};

/// The line that marks the file as hook-policy's.
const MARKER: &str =
    "# hook-policy: written by `policy install cline`; `policy uninstall cline` removes it.";

/// The documented location of the hook file for `scope`.
pub fn default_path(scope: super::hook_config::Scope, home: &Path) -> PathBuf {
    let event = super::cline::EVENT;
    match scope {
        super::hook_config::Scope::User => home.join("Documents/Cline/Hooks").join(event),
        super::hook_config::Scope::Project => Path::new(".clinerules/hooks").join(event),
    }
}

/// The script: run the installed binary with the policy list, or cancel
/// the tool call when the binary is gone.
pub fn script(exe: &Path, list: &Path) -> String {
    let command = super::hook_config::command(Harness::Cline, exe, list);
    let exe = shell_quote(&exe.display().to_string());
    format!(
        "#!/bin/sh\n{MARKER}\n# Cline runs it before every tool call; hook-policy answers with Cline's cancel JSON.\n\
         if [ ! -x {exe} ]; then\n  \
         echo '{{\"cancel\":true,\"errorMessage\":\"hook-policy is not installed where this hook expects it; run policy install cline again\"}}'\n  \
         exit 0\nfi\nexec {command}\n"
    )
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Whether a hook file's text is one hook-policy wrote.
fn is_ours(text: &str) -> bool {
    text.lines().any(|l| l == MARKER) && text.contains(" hook cline ")
}

/// The command a hook file of ours runs (`<exe> hook cline --policy-list
/// <list>`, shell-quoted as written), for checking an installation.
pub fn command_in(text: &str) -> Option<&str> {
    if !is_ours(text) {
        return None;
    }
    text.lines().find_map(|l| l.strip_prefix("exec "))
}

/// Writes the hook file; says what it did.
pub fn install(file: &Path, script: &str) -> Result<String, String> {
    let shown = file.display();
    let before = match std::fs::read(file) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    if let Some(bytes) = &before {
        let text = String::from_utf8_lossy(bytes);
        if !is_ours(&text) {
            return Err(format!(
                "{shown} is a Cline hook that hook-policy did not write; Cline runs one PreToolUse file per directory, so nothing was changed (move that hook aside, or call `policy hook cline` from it)"
            ));
        }
        if text == script && is_executable(file) {
            return Ok(format!("{shown} already runs hook-policy; nothing changed"));
        }
    }
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut note = String::new();
    if before.is_some() {
        let bak = file.with_extension("bak");
        std::fs::copy(file, &bak)
            .map_err(|e| format!("cannot back up to {}: {e}", bak.display()))?;
        note = format!(" (previous version kept as {})", bak.display());
    }
    let tmp = file.with_extension("hook-policy.tmp");
    std::fs::write(&tmp, script).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    make_executable(&tmp)?;
    std::fs::rename(&tmp, file).map_err(|e| format!("cannot replace {shown}: {e}"))?;
    Ok(format!(
        "Cline now runs hook-policy from {shown} before every tool call{note}; hooks must be enabled in Cline's settings"
    ))
}

/// Removes the hook file install wrote (and its backup, when that is ours
/// too); refuses a file hook-policy did not write.
pub fn uninstall(file: &Path) -> Result<String, String> {
    let shown = file.display();
    let text = match std::fs::read(file) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!("{shown} does not exist; nothing to remove"))
        }
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    if !is_ours(&text) {
        return Err(format!(
            "{shown} was not written by hook-policy; it was not changed"
        ));
    }
    std::fs::remove_file(file).map_err(|e| format!("cannot remove {shown}: {e}"))?;
    let mut lines = vec![format!("removed {shown}")];
    let bak = file.with_extension("bak");
    if std::fs::read_to_string(&bak).is_ok_and(|t| is_ours(&t))
        && std::fs::remove_file(&bak).is_ok()
    {
        lines.push(format!("removed {}", bak.display()));
    }
    // Each hook file has its own policy list (`hook_config::list_for`).
    lines.extend(super::hook_config::remove_installed_copy(
        Harness::Cline,
        file,
    )?);
    Ok(lines.join("\n"))
}

#[cfg(unix)]
fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o111 == 0o111)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    true
}

/// Cline runs only executable hook files (macOS, Linux).
#[cfg(unix)]
fn make_executable(file: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", file.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_the_installed_copy_and_is_recognised_as_ours() {
        let text = script(
            Path::new("/opt/hp dir/policy"),
            Path::new("/opt/hp/cline.policies"),
        );
        assert!(text.starts_with("#!/bin/sh\n"));
        assert!(
            text.contains("if [ ! -x '/opt/hp dir/policy' ]; then"),
            "{text}"
        );
        assert_eq!(
            command_in(&text),
            Some("'/opt/hp dir/policy' hook cline --policy-list /opt/hp/cline.policies")
        );
        // Someone else's hook that merely calls us is not ours.
        let theirs = "#!/bin/sh\nexec policy hook cline --policy-list x\n";
        assert_eq!(command_in(theirs), None);
    }
}
