//! A cache of loaded policies, per hook, for the one-process-per-call path.
//!
//! chibi starts a new plugin process for every hook call, and parsing YAML
//! is most of what such a process does: on a 100-rule policy, 83% of the
//! instructions of a `pre_shell_exec` call went to turning YAML into a tree
//! (see BENCHMARKS.md). The cache keeps, for each hook, the rules that apply
//! to it as plain JSON, which parses an order of magnitude faster.
//!
//! Correctness comes first:
//! - The key is a SHA-256 over what identifies every policy file's content
//!   (path, device, inode, size, modification and change times in
//!   nanoseconds), the hook, and the identity of this executable. A hit then
//!   costs a `stat` per file: the files are not even read.
//! - Times are only as fine as the kernel's clock tick, so an edit in the
//!   same tick as the read that filled the entry, keeping the size, would
//!   look unchanged. As git does for its index, no entry is written while
//!   any file was modified in the last two seconds, nor when a file changed
//!   while it was being read; such calls just parse the YAML.
//! - Only policies that loaded and compiled cleanly are written; anything
//!   unreadable, truncated or foreign in the cache is a miss.
//! - Writing is best effort (write to a temporary file, then rename): a
//!   read-only or full disk only costs the speed-up, never a decision.
//! - Rules from the cache are compiled again on every call (CEL is parsed
//!   by the fast parser; that is cheap); only the YAML step is skipped.

use crate::compile::compile;
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::engine::Prepared;
use crate::load::{self, tree::Node, LoadedRule, Mode, PolicySet};
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Set to `off` to bypass the cache.
pub const ENV_VAR: &str = "HOOK_POLICY_CACHE";

/// Bumped whenever the entry format or its meaning changes.
const FORMAT: &str = "hook-policy policy cache 2";

/// Loads and compiles the policy for one hook, through the cache in `dir`.
pub fn prepare(paths: &[PathBuf], hook: &str, dir: Option<&Path>) -> Prepared {
    let dir = match dir {
        Some(d) if std::env::var(ENV_VAR).map_or(true, |v| v != "off") => d,
        _ => return crate::engine::prepare(paths, Some(hook)),
    };
    let files = match load::discover_layers(paths) {
        Ok(files) => files,
        Err(_) => return crate::engine::prepare(paths, Some(hook)),
    };
    let Some((key, fresh)) = cache_key(&files, hook) else {
        // A file that cannot be examined: the normal path reports it.
        return crate::engine::prepare(paths, Some(hook));
    };
    let entry_path = dir.join(format!("{hook}-{}.json", &key[..32]));
    if let Some(set) = read_entry(&entry_path, &key) {
        let (mut policy, diags) = compile(&set.0, Some(hook));
        if !diags.iter().any(Diagnostic::is_error) {
            let (set, origins) = set;
            let mut origins: std::collections::HashMap<String, String> =
                origins.into_iter().collect();
            for rule in &mut policy.rules {
                if let Some(origin) = origins.remove(&rule.id) {
                    rule.origin = origin;
                }
            }
            // The process ends right after this call: freeing a large set
            // piece by piece would cost more than the decision.
            std::mem::forget(set);
            return Prepared::Ready(policy);
        }
        // An entry that no longer compiles (it cannot, short of tampering):
        // fall through and rebuild it from the files.
    }
    let mut sources = Vec::with_capacity(files.len());
    for (path, layer) in &files {
        match load::read_source(path) {
            Ok(source) => sources.push((source, *layer)),
            Err(_) => return crate::engine::prepare(paths, Some(hook)),
        }
    }
    let (set, diags) = load::load_layered(sources, Mode::Run);
    let rules = entry_rules(&set, hook);
    let prepared = crate::engine::prepare_loaded(set, diags, Some(hook));
    let unchanged = cache_key(&files, hook).is_some_and(|(k, _)| k == key);
    if let Prepared::Ready(policy) = &prepared {
        if !fresh && unchanged {
            let _ = write_entry(dir, &entry_path, &key, hook, rules, policy);
        }
    }
    prepared
}

/// The rules of `hook` as they will be stored: each rule's mapping as JSON,
/// where it came from, its place in the set, and what a `packs:` block
/// changed about it (rules of enabled packs are stored like the user's).
fn entry_rules(set: &PolicySet, hook: &str) -> Vec<Json> {
    set.rules
        .iter()
        .filter(|r| r.rule.hook.names().iter().any(|h| h == hook))
        .map(|r| {
            let (line, _) = r.file.line_col(r.node.span.start);
            json!({
                "rule": r.node.to_json(),
                "file": r.file.path.to_string_lossy(),
                "origin": format!("{}:{line}", r.file.name()),
                "order": r.order,
                "overlay": r.overlay.as_deref(),
                "shipped": r.shipped,
            })
        })
        .collect()
}

/// The key for these files at this moment, and whether any of them was
/// modified too recently to trust its times (see the module docs). Layers
/// are part of it: the same files as one `--policy` path or as several may
/// compose differently (see `packs::compose`).
fn cache_key(files: &[(PathBuf, usize)], hook: &str) -> Option<(String, bool)> {
    use std::os::unix::fs::MetadataExt;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs() as i64;
    let mut fresh = false;
    let mut h = Sha256::new();
    h.update(FORMAT.as_bytes());
    h.update([0]);
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update([0]);
    // A rebuilt or reinstalled binary may read the same files differently.
    let exe = std::fs::metadata(crate::current_exe()?).ok()?;
    for n in [
        exe.len() as i64,
        exe.mtime(),
        exe.mtime_nsec(),
        exe.ino() as i64,
    ] {
        h.update(n.to_le_bytes());
    }
    h.update(hook.as_bytes());
    h.update([0]);
    for (path, layer) in files {
        let meta = std::fs::metadata(path).ok()?;
        let name = path.to_string_lossy();
        h.update((*layer as u64).to_le_bytes());
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        for n in [
            meta.dev() as i64,
            meta.ino() as i64,
            meta.len() as i64,
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        ] {
            h.update(n.to_le_bytes());
        }
        if now - meta.mtime().max(meta.ctime()) < 2 {
            fresh = true;
        }
    }
    let key = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Some((key, fresh))
}

/// The rules for one hook and their origins (`file:line`, by rule id).
type Entry = (PolicySet, Vec<(String, String)>);

fn read_entry(path: &Path, key: &str) -> Option<Entry> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc: Json = serde_json::from_str(&text).ok()?;
    if doc.get("key")?.as_str()? != key {
        return None;
    }
    let mut set = PolicySet::default();
    if let Some(settings) = doc.get("settings") {
        set.settings.on_error = match settings["on_error"].as_str() {
            Some("fail_open") => Some(crate::model::OnError::FailOpen),
            Some("fail_closed") => Some(crate::model::OnError::FailClosed),
            _ => None,
        };
        set.settings.log = settings["log"].as_str().map(PathBuf::from);
    }
    // `log` is stored resolved, so no directory is needed.
    set.settings_dir = None;
    let mut origins = Vec::new();
    for r in doc.get("rules")?.as_array()? {
        let file = Arc::new(SourceFile::new(
            PathBuf::from(r["file"].as_str()?),
            String::new(),
        ));
        let node_json = r.get("rule")?;
        let rule = <crate::model::Rule as serde::Deserialize>::deserialize(node_json).ok()?;
        origins.push((rule.id.clone(), r["origin"].as_str()?.to_string()));
        let overlay = match r.get("overlay") {
            None | Some(Json::Null) => None,
            Some(o) => Some(Arc::new(
                <crate::packs::compose::Overlay as serde::Deserialize>::deserialize(o).ok()?,
            )),
        };
        set.rules.push(LoadedRule {
            rule,
            file,
            node: Node::from_json(node_json),
            order: usize::try_from(r["order"].as_u64()?).ok()?,
            layer: 0,
            pack: None,
            overlay,
            shipped: r["shipped"].as_bool().unwrap_or(false),
        });
    }
    std::mem::forget(doc);
    Some((set, origins))
}

fn write_entry(
    dir: &Path,
    path: &Path,
    key: &str,
    hook: &str,
    rules: Vec<Json>,
    policy: &crate::compile::CompiledPolicy,
) -> std::io::Result<()> {
    let on_error = policy.on_error.map(|o| match o {
        crate::model::OnError::FailClosed => "fail_closed",
        crate::model::OnError::FailOpen => "fail_open",
    });
    let doc = json!({
        "key": key,
        "settings": {
            "on_error": on_error,
            "log": policy.log.as_ref().map(|p| p.to_string_lossy()),
        },
        "rules": rules,
    });
    std::fs::create_dir_all(dir)?;
    // One entry per hook: older ones for this hook are stale.
    if let Ok(listing) = std::fs::read_dir(dir) {
        let prefix = format!("{hook}-");
        for e in listing.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(&prefix) && name.ends_with(".json") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let tmp = dir.join(format!(".{hook}-{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(doc.to_string().as_bytes())?;
    f.sync_data().ok();
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
