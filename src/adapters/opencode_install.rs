//! `policy install opencode`: the plugin file that makes OpenCode call
//! `policy hook opencode`, written into a plugin directory OpenCode loads
//! every `.js` file of (`~/.config/opencode/plugins/` for the user,
//! `.opencode/plugins/` for a project; see the adapter's module doc).
//!
//! The file is ours whole: it starts with the plugin's first line, which is
//! how a later install or uninstall knows it. Install writes only when the
//! text differs (a second run changes nothing), keeps a `.bak` only when it
//! replaces an older hook-policy plugin, and refuses a file of the same name
//! that is not ours: overwriting another plugin would remove its guard.

use super::agent_settings;
use super::tool_call::Harness;
use std::path::{Path, PathBuf};

/// The plugin, with its command left out (`@POLICY@`, `@LIST@`).
const TEMPLATE: &str = include_str!("opencode_plugin.js");

/// The plugin's file name in the plugin directory.
pub const FILE_NAME: &str = "hook-policy.js";

/// The first line of every plugin we write.
fn marker() -> &'static str {
    TEMPLATE.lines().next().unwrap_or_default()
}

/// The plugin text running `exe hook opencode --policy-list list`. The
/// paths go in as JSON strings, which JavaScript reads as the same strings.
pub fn plugin(exe: &Path, list: &Path) -> String {
    let js = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap_or_default();
    TEMPLATE
        .replace("\"@POLICY@\"", &js(exe))
        .replace("\"@LIST@\"", &js(list))
}

/// The user's plugin file: OpenCode's global configuration directory is
/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn user_path(home: &Path) -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".config"))
        .join("opencode/plugins")
        .join(FILE_NAME)
}

/// The project's plugin file, from the current directory.
pub fn project_path() -> PathBuf {
    Path::new(".opencode/plugins").join(FILE_NAME)
}

fn read(file: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(file) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!(
            "cannot read {}: {e}; nothing was changed",
            file.display()
        )),
    }
}

/// Whether `text` is a plugin hook-policy wrote.
pub fn is_ours(text: &str) -> bool {
    text.starts_with(marker())
}

fn refuse_foreign(file: &Path, text: &str) -> Result<(), String> {
    if is_ours(text) {
        Ok(())
    } else {
        Err(format!(
            "{} is not a hook-policy plugin (another plugin of that name?); nothing was changed",
            file.display()
        ))
    }
}

/// Writes the plugin to `file`; says what it did.
pub fn install(file: &Path, text: &str) -> Result<String, String> {
    let shown = file.display();
    let before = read(file)?;
    let mut note = String::new();
    if let Some(old) = &before {
        refuse_foreign(file, old)?;
        if old == text {
            return Ok(format!("{shown} already runs hook-policy; nothing changed"));
        }
        let bak = file.with_extension("js.bak");
        std::fs::copy(file, &bak)
            .map_err(|e| format!("cannot back up to {}: {e}", bak.display()))?;
        note = format!(" (previous version kept as {})", bak.display());
    }
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    agent_settings::write_replacing(file, text.as_bytes(), None)?;
    Ok(format!(
        "OpenCode now runs hook-policy on every tool call (tool.execute.before) from {shown}{note}; restart OpenCode to load it"
    ))
}

/// Removes the plugin [`install`] wrote, then the policy list and, once no
/// agent uses it, the installed binary. A file that is not ours is refused.
pub fn uninstall(file: &Path) -> Result<String, String> {
    let shown = file.display();
    let Some(text) = read(file)? else {
        return Ok(format!("{shown} does not exist; nothing to remove"));
    };
    refuse_foreign(file, &text)?;
    std::fs::remove_file(file).map_err(|e| format!("cannot remove {shown}: {e}"))?;
    let mut lines = vec![format!("removed {shown}")];
    lines.extend(super::hook_config::remove_installed_copy(
        Harness::OpenCode,
        file,
    )?);
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_javascript_strings() {
        let text = plugin(
            Path::new("/opt/my \"tools\"/policy"),
            Path::new("/home/u/it's.policies"),
        );
        assert!(text.contains(r#"const POLICY = "/opt/my \"tools\"/policy""#));
        assert!(text.contains(r#""--policy-list", "/home/u/it's.policies"]"#));
        assert!(!text.contains("@POLICY@") && !text.contains("@LIST@"));
        assert!(text.starts_with(marker()));
    }
}
