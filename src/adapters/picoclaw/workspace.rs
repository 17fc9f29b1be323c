//! The project root of a PicoClaw server: PicoClaw's workspace.
//!
//! PicoClaw's file tools resolve relative paths against the agent's
//! workspace (`tools.NewWriteFileTool(workspace, ...)` in
//! pkg/agent/instance.go), not against the hook process's working
//! directory, which is wherever PicoClaw was started (or the `dir` of the
//! hook's configuration). `inside_project` and the path rules must be judged
//! against the same directory, so the server takes it from, in order:
//! 1. `--workspace` (what `policy install picoclaw` writes);
//! 2. `agents.defaults.workspace` in PicoClaw's configuration
//!    (`$PICOCLAW_CONFIG`, else `$PICOCLAW_HOME/config.json`, else
//!    `~/.picoclaw/config.json`), `~` expanded as PicoClaw does;
//! 3. PicoClaw's default, `$PICOCLAW_HOME/workspace`, else
//!    `~/.picoclaw/workspace` (pkg/config/defaults.go, envkeys.go).
//!
//! Only the server's own arguments and environment choose it: nothing in a
//! request (which the model shapes through tool arguments such as `cwd`)
//! can move the root.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// PicoClaw's data directory (`config.GetHome`).
fn picoclaw_home(home: Option<&Path>) -> Option<PathBuf> {
    match std::env::var_os("PICOCLAW_HOME").filter(|v| !v.is_empty()) {
        Some(h) => Some(PathBuf::from(h)),
        None => home.map(|h| h.join(".picoclaw")),
    }
}

/// `expandHome` of pkg/config: `~/x` is under the user's home, and any
/// other path starting with `~` (`~`, `~x`) is the home itself.
fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix('~'), home) {
        (Some(rest), Some(h)) => match rest.strip_prefix('/') {
            Some(under) => h.join(under),
            None => h.to_path_buf(),
        },
        _ => PathBuf::from(path),
    }
}

/// The workspace PicoClaw's default agent uses; see the module docs.
pub fn resolve(explicit: Option<&Path>) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let root = match explicit {
        Some(p) => p.to_path_buf(),
        None => configured(home.as_deref()).unwrap_or_else(|| {
            picoclaw_home(home.as_deref())
                .unwrap_or_else(|| PathBuf::from("."))
                .join("workspace")
        }),
    };
    absolute(&root)
}

/// `agents.defaults.workspace` from PicoClaw's configuration file, if set.
fn configured(home: Option<&Path>) -> Option<PathBuf> {
    let file = match std::env::var_os("PICOCLAW_CONFIG").filter(|v| !v.is_empty()) {
        Some(f) => PathBuf::from(f),
        None => picoclaw_home(home)?.join("config.json"),
    };
    let text = std::fs::read_to_string(file).ok()?;
    let config: Json = serde_json::from_str(&text).ok()?;
    let ws = config["agents"]["defaults"]["workspace"].as_str()?.trim();
    (!ws.is_empty()).then(|| expand_home(ws, home))
}

/// An absolute form, symlinks resolved when the directory exists (PicoClaw
/// may not have created it yet; then the lexical form).
fn absolute(p: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(p) {
        return real;
    }
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| p.to_path_buf(), |d| d.join(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tilde_expands_like_picoclaw() {
        let h = Path::new("/home/u");
        assert_eq!(expand_home("~/ws", Some(h)), PathBuf::from("/home/u/ws"));
        assert_eq!(expand_home("~", Some(h)), PathBuf::from("/home/u"));
        assert_eq!(expand_home("/srv/ws", Some(h)), PathBuf::from("/srv/ws"));
        // PicoClaw knows no `~user`: anything after `~` but `/` is dropped.
        assert_eq!(expand_home("~x", Some(h)), PathBuf::from("/home/u"));
    }
}
