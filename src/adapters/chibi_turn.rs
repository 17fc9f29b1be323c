//! What chibi's `pre_tool` does not say: the turn a tool call belongs to.
//!
//! A tool that `pre_api_tools` hid from the model must not run when the
//! model calls it by name anyway, so `pre_tool` asks the tool filter again
//! about that one tool (as every other harness's tool gate does, see
//! `tool_call::offered`). But chibi's `pre_tool` payload is only
//! `{tool_name, arguments}`: the filter's rules read `context_name` and the
//! `fuel_*` fields, which only `pre_api_tools` carries. So each
//! `pre_api_tools` call leaves those facts here, and the `pre_tool` calls
//! that follow read them back.
//!
//! The facts are kept per chibi process: a hook process's parent is the
//! chibi that started it, and chibi runs `pre_api_tools` at the start of
//! every turn, before the model can call anything, so a file named after the
//! parent's process id always holds the current turn of that chibi (a file
//! left by an earlier process with the same id is overwritten before it
//! could be read). Without facts (a failed write), `pre_tool` asks without
//! them: rules that need the context cannot decide, and a filter that cannot
//! decide hides nothing, as at `pre_api_tools` itself.

use serde_json::{Map, Value as Json};
use std::path::{Path, PathBuf};

/// The payload fields of `pre_api_tools` that are the turn's, not the tool list.
const TURN_FIELDS: &[&str] = &["context_name", "fuel_remaining", "fuel_total"];

/// Files older than this belong to chibi processes long gone.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

fn file(dir: &Path) -> PathBuf {
    dir.join(format!("turn-{}.json", std::os::unix::process::parent_id()))
}

/// Records the turn facts of a `pre_api_tools` payload. Best effort: a
/// failure is returned for stderr, and the stale file (if any) is removed
/// so that a later `pre_tool` never reads another turn's facts.
pub fn remember(dir: &Path, payload: &Json) -> Result<(), String> {
    let facts: Map<String, Json> = TURN_FIELDS
        .iter()
        .filter_map(|k| payload.get(*k).map(|v| ((*k).to_string(), v.clone())))
        .collect();
    let path = file(dir);
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        // Write beside, then rename: a concurrent reader sees old or new, whole.
        let tmp = dir.join(format!(".{}.tmp", std::process::id()));
        std::fs::write(&tmp, Json::Object(facts).to_string())?;
        std::fs::rename(&tmp, &path)
    });
    prune(dir, &path);
    written.map_err(|e| {
        let _ = std::fs::remove_file(&path);
        format!(
            "cannot record the turn for pre_tool in {}: {e}",
            dir.display()
        )
    })
}

/// Drops the recorded facts, when a turn's own cannot be read.
pub fn forget(dir: &Path) {
    let _ = std::fs::remove_file(file(dir));
}

/// The facts of the current turn, if recorded.
pub fn recall(dir: &Path) -> Option<Map<String, Json>> {
    let text = std::fs::read(file(dir)).ok()?;
    match serde_json::from_slice(&text).ok()? {
        Json::Object(facts) => Some(
            facts
                .into_iter()
                .filter(|(k, _)| TURN_FIELDS.contains(&k.as_str()))
                .collect(),
        ),
        _ => None,
    }
}

/// Removes other processes' files older than a day (once per turn, cheap).
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if old && path != keep {
            let _ = std::fs::remove_file(path);
        }
    }
}
