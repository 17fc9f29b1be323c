//! A cache of prepared policies, per hook, for the one-process-per-call path.
//!
//! chibi starts a new plugin process for every hook call, and parsing YAML
//! is most of what such a process does: on a 100-rule policy, 83% of the
//! instructions of a `pre_shell_exec` call went to turning YAML into a tree
//! (see BENCHMARKS.md). The cache keeps, for each hook, the prepared form of
//! its policy (src/compile/prepared.rs): the decision tree ready to use and
//! each rule's source, so that a call compiles only the rules the tree says
//! can match its payload. A call's cost then follows the rules that can
//! match, not the size of the policy.
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
//! - Only policies that loaded and compiled cleanly (every rule of the hook,
//!   as the YAML path compiles them) are written; anything unreadable,
//!   truncated, foreign or failing its checksum in the cache is a miss, and
//!   so is an entry another user could have written (owned by someone
//!   else, or group- or world-writable): the checksum catches damage, not
//!   forgery.
//! - Writing is best effort (write to a temporary file, then rename): a
//!   read-only or full disk only costs the speed-up, never a decision.
//!
//! An entry is text: a format line, the key, a line with the checksum and
//! length of the rest, a JSON header (settings, the decision tree, how many
//! rules follow), a JSON line of the conditions' regex patterns with their
//! shortest match lengths (src/expr/regex_match.rs), then the rules, one
//! per line, in decision order: each rule's JSON, a tab, and the CEL trees
//! parsed for it (src/expr/stored_tree.rs, binary but without a newline),
//! which a call rebuilds instead of parsing the rule's expressions.

use crate::compile::prepared::{self, DeferredRules, PlanForm, RuleForm};
use crate::compile::CompiledPolicy;
use crate::engine::Prepared;
use crate::load::{self, LoadedRule, Mode, PolicySet};
use crate::model::OnError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Set to `off` to bypass the cache.
pub const ENV_VAR: &str = "HOOK_POLICY_CACHE";

/// The first line of every entry; bumped whenever the format or its meaning changes.
const FORMAT: &str = "hook-policy prepared policy 6";

/// Loads and compiles the policy for one hook, through the cache in `dir`.
pub fn prepare(paths: &[PathBuf], hook: &str, dir: Option<&Path>) -> Prepared {
    let dir = match dir {
        Some(d) if std::env::var(ENV_VAR).map_or(true, |v| v != "off") => d,
        _ => return crate::engine::prepare(paths, Some(hook)),
    };
    let Some(hook) = crate::catalogue::hook(hook).map(|h| h.name) else {
        return crate::engine::prepare(paths, Some(hook));
    };
    let files = match load::discover_layers(paths) {
        Ok(files) => files,
        Err(_) => return crate::engine::prepare(paths, Some(hook)),
    };
    let Some((key, fresh)) = cache_key(&files, hook) else {
        // A file that cannot be examined: the normal path reports it.
        return crate::engine::prepare(paths, Some(hook));
    };
    let entry_path = dir.join(format!("{hook}-{}.prepared", &key[..32]));
    if let Some(policy) = read_entry(&entry_path).and_then(|bytes| decode(bytes, &key, hook)) {
        return Prepared::Ready(policy);
    }
    let mut sources = Vec::with_capacity(files.len());
    for (path, layer) in &files {
        match load::read_source(path) {
            Ok(source) => sources.push((source, *layer)),
            Err(_) => return crate::engine::prepare(paths, Some(hook)),
        }
    }
    let (set, diags) = load::load_layered(sources, Mode::Run);
    let prepared = crate::engine::prepare_loaded_ref(&set, diags, Some(hook));
    if let Prepared::Ready(policy) = &prepared {
        let unchanged = cache_key(&files, hook).is_some_and(|(k, _)| k == key);
        if !fresh && unchanged {
            let _ = write_entry(dir, &entry_path, &encode(&key, hook, &set, policy));
        }
    }
    // One call per process: freeing the loaded set piece by piece would
    // cost more than the decision (compiled rules borrow nothing from it).
    std::mem::forget(set);
    prepared
}

/// The header of an entry.
#[derive(Serialize, Deserialize)]
struct Header {
    /// `fail_open`, `fail_closed`, or none.
    on_error: Option<String>,
    /// Stored resolved, so no directory is needed.
    log: Option<PathBuf>,
    plan: PlanForm,
    /// How many rules follow the header, one JSON line each.
    rules: usize,
}

/// The entry for `hook` of a policy compiled for that hook alone, from
/// the set it was compiled from (public so that tests can compare the
/// decisions of [`decode`]'s policy with the compiled one's).
pub fn encode(key: &str, hook: &str, set: &PolicySet, policy: &CompiledPolicy) -> Vec<u8> {
    let by_order: std::collections::HashMap<usize, &LoadedRule> =
        set.rules.iter().map(|r| (r.order, r)).collect();
    let mut body = Vec::new();
    for rule in &policy.rules {
        // Orders are unique in a set; a mismatch would store another rule's
        // source, so nothing is stored.
        let Some(loaded) = by_order.get(&rule.order).filter(|l| l.rule.id == rule.id) else {
            return Vec::new();
        };
        // One line per rule (see `RuleForm::write_record`).
        let _ = RuleForm::write_record(loaded, rule, &mut body);
        body.push(b'\n');
    }
    let mut shortest = Vec::new();
    for when in policy.rules.iter().filter_map(|r| r.when.as_ref()) {
        crate::expr::regex_match::shortest_matches(&when.expr, &mut shortest);
    }
    let plan = match policy.plan(hook) {
        Some(plan) => PlanForm::of(plan),
        None => PlanForm::of(&Default::default()),
    };
    let header = Header {
        on_error: policy.on_error.map(|o| {
            match o {
                OnError::FailClosed => "fail_closed",
                OnError::FailOpen => "fail_open",
            }
            .to_string()
        }),
        log: policy.log.clone(),
        plan,
        rules: policy.rules.len(),
    };
    let Ok(mut rest) = serde_json::to_vec(&header) else {
        return Vec::new();
    };
    rest.push(b'\n');
    // On a line of its own: read only by a call that evaluates a pattern.
    if serde_json::to_writer(&mut rest, &shortest).is_err() {
        return Vec::new();
    }
    rest.push(b'\n');
    let header_len = rest.len();
    rest.extend_from_slice(&body);
    let mut out = format!(
        "{FORMAT}\n{key}\n{:016x} {} {header_len}\n",
        checksum(&rest),
        rest.len()
    )
    .into_bytes();
    out.extend_from_slice(&rest);
    out
}

/// The policy an entry holds, if it is whole and written for `key`.
pub fn decode(bytes: Vec<u8>, key: &str, hook: &'static str) -> Option<CompiledPolicy> {
    let mut lines = bytes.splitn(4, |&b| b == b'\n');
    if lines.next()? != FORMAT.as_bytes() || lines.next()? != key.as_bytes() {
        return None;
    }
    let sums = std::str::from_utf8(lines.next()?).ok()?;
    let rest_at = bytes.len() - lines.next()?.len();
    let mut fields = sums.split(' ');
    let sum = fields.next()?;
    let len: usize = fields.next()?.parse().ok()?;
    let header_len: usize = fields.next()?.parse().ok()?;
    let rest = &bytes[rest_at..];
    if rest.len() != len || header_len > len || format!("{:016x}", checksum(rest)) != sum {
        return None;
    }
    let lines = rest[..header_len].strip_suffix(b"\n")?;
    let split = memchr::memchr(b'\n', lines)?;
    let header: Header = serde_json::from_slice(&lines[..split]).ok()?;
    let shortest = lines[split + 1..].to_vec();
    let on_error = match header.on_error.as_deref() {
        None => None,
        Some("fail_closed") => Some(OnError::FailClosed),
        Some("fail_open") => Some(OnError::FailOpen),
        Some(_) => return None,
    };
    let plan = header.plan.into_plan(header.rules)?;
    // Where each rule's line is: found by a byte search, cheaper than
    // reading thousands of numbers from the header.
    let body_at = rest_at + header_len;
    let mut spans = Vec::with_capacity(header.rules);
    let mut start = body_at;
    for end in memchr::memchr_iter(b'\n', &bytes[body_at..]) {
        spans.push((start, body_at + end - start));
        start = body_at + end + 1;
    }
    if spans.len() != header.rules || start != bytes.len() {
        return None;
    }
    let rules = DeferredRules::new(hook, bytes, spans)?;
    crate::expr::regex_match::know_shortest(shortest);
    Some(prepared::deferred_policy(
        hook, plan, rules, on_error, header.log,
    ))
}

/// Catches damage (a truncated write, a flipped bit, a hand edit), not
/// tampering: whoever can write the cache can replace the plugin beside it.
/// Four independent lanes of 8 bytes, so the multiplications overlap: at
/// 10,000 rules an entry is half a megabyte, read on every call.
fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or_default());
    let mut lanes = [bytes.len() as u64, 1, 2, 3];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, c) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = mix(*lane, word(c));
        }
    }
    let mut h = lanes.iter().fold(0, |h, &lane| mix(h, lane));
    for &b in blocks.remainder() {
        h = mix(h, u64::from(b));
    }
    h ^ (h >> 29)
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

/// An entry's bytes, if it is a file only this user could have written:
/// owned by the effective user and writable by no group or other. The
/// checksum catches damage, not forgery, and a cache directory can be
/// shared or loosely set (`XDG_CACHE_HOME=/tmp`, a group-writable home):
/// an entry another user planted there could make the policy say anything.
/// Checked on the open file, so the file read is the file checked.
fn read_entry(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let mut file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o022 != 0 {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

fn write_entry(dir: &Path, path: &Path, entry: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if entry.is_empty() {
        return Ok(());
    }
    // Private from the start: entries are only trusted when no one else
    // could have written them (see `read_entry`).
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    // One entry per hook: older ones for this hook are stale.
    let hook = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('-').next())
        .unwrap_or_default();
    if let Ok(listing) = std::fs::read_dir(dir) {
        let prefix = format!("{hook}-");
        for e in listing.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(&prefix) && (name.ends_with(".prepared") || name.ends_with(".json"))
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let tmp = dir.join(format!(".{hook}-{}.tmp", std::process::id()));
    // `create_new` (O_EXCL): never through a link someone left at the name.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(entry)?;
    f.sync_data().ok();
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
