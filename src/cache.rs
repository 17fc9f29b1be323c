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
//! - The key is what identifies every policy file's content (path, device,
//!   inode, size, modification and change times in nanoseconds), the hook,
//!   and the identity of this executable, written out in full (hex) in the
//!   entry and compared byte for byte: two different states of the files
//!   never share an entry, whatever their hash. Only the file name is a
//!   hash of it (std's SipHash, 128 bits from two runs), and a clash of
//!   names is just a miss. A hit then costs a `stat` per file: the files
//!   are not even read. No cryptographic hash: SHA-256 asked the CPU for
//!   its features (`cpuid`, a VM exit of tens of µs each) on every call of
//!   a plain build, and an exact comparison needs no collision resistance.
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
//! An entry is two text lines (the format, the key), a line with the
//! checksum and length of a JSON directory (settings, how many rules, where
//! each part of the body is), the directory, then the binary body: each
//! rule's record (its source as JSON, then a tab and the CEL trees parsed
//! for it, src/expr/stored_tree.rs, which a call rebuilds instead of
//! parsing the rule's expressions), the rules' locations, the conditions' regex
//! patterns with their shortest match lengths (src/expr/regex_match.rs),
//! and the tables of the decision tree (src/compile/tables.rs). A call
//! maps the entry and reads only what its payload needs: the directory, the
//! keys it looks up, and its candidate rules, each part or record checked
//! against its own checksum when read. What fails a check before the
//! decision starts (format, key, directory, length) is a miss; what fails
//! later sends the call to the YAML (see `prepared::DeferredRules`).

use crate::compile::prepared::{self, DeferredRules, RuleForm};
use crate::compile::tables::{checksum, Part, PlanTables, Writer};
use crate::compile::CompiledPolicy;
use crate::engine::Prepared;
use crate::load::{self, LoadedRule, Mode, PolicySet};
use crate::model::OnError;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Set to `off` to bypass the cache.
pub const ENV_VAR: &str = "HOOK_POLICY_CACHE";

/// The first line of every entry; bumped whenever the format or its meaning changes.
const FORMAT: &str = "hook-policy prepared policy 13";

/// Loads and compiles the policy for one hook, through the cache in `dir`.
pub fn prepare(paths: &[PathBuf], hook: &str, dir: Option<&Path>) -> Prepared {
    Lookup::new(paths, dir).prepare(hook)
}

/// The policy files of one call as they are when it starts, for every hook
/// the call asks about: chibi's `pre_tool` also asks `pre_api_tools` (the
/// tool filter, `adapters::chibi`), and finding and examining the files
/// once serves both. Both answers then come from the same state of the
/// files.
pub struct Lookup {
    paths: Vec<PathBuf>,
    dir: Option<PathBuf>,
    /// The files and their key (without the hook), once examined; `None`
    /// inside when they cannot be (the YAML path reports why).
    files: std::cell::OnceCell<Option<Examined>>,
    /// Hooks the whole policy has rules on, once an entry or the YAML said.
    hooks_with_rules: std::cell::OnceCell<Vec<String>>,
}

struct Examined {
    files: Vec<(PathBuf, usize)>,
    key: KeyMaterial,
}

impl Lookup {
    pub fn new(paths: &[PathBuf], dir: Option<&Path>) -> Lookup {
        let dir = dir.filter(|_| std::env::var(ENV_VAR).map_or(true, |v| v != "off"));
        Lookup {
            paths: paths.to_vec(),
            dir: dir.map(Path::to_path_buf),
            files: std::cell::OnceCell::new(),
            hooks_with_rules: std::cell::OnceCell::new(),
        }
    }

    /// Whether the policy has rules on `hook`, if an earlier [`Lookup::prepare`]
    /// found out (from the entry it read, or the YAML it loaded).
    pub fn has_rules_on(&self, hook: &str) -> Option<bool> {
        self.hooks_with_rules
            .get()
            .map(|hooks| hooks.iter().any(|h| h == hook))
    }

    fn examined(&self) -> Option<&Examined> {
        self.files
            .get_or_init(|| {
                let files = load::discover_layers(&self.paths).ok()?;
                let key = KeyMaterial::of(&files)?;
                Some(Examined { files, key })
            })
            .as_ref()
    }

    /// The policy for one hook, from its entry when one is stored for the
    /// files as examined, else from the YAML (storing an entry when it may).
    pub fn prepare(&self, hook: &str) -> Prepared {
        let paths = &self.paths;
        let Some(dir) = self.dir.as_deref() else {
            return crate::engine::prepare(paths, Some(hook));
        };
        let Some(hook) = crate::catalogue::hook(hook).map(|h| h.name) else {
            return crate::engine::prepare(paths, Some(hook));
        };
        let Some(Examined { files, key }) = self.examined() else {
            // A file that cannot be examined: the normal path reports it.
            return crate::engine::prepare(paths, Some(hook));
        };
        let Some((key, fresh)) = key.for_hook(hook).map(|k| (k, key.fresh)) else {
            return crate::engine::prepare(paths, Some(hook));
        };
        let entry_path = dir.join(format!("{hook}-{}.prepared", key.name()));
        // For a call that finds the entry damaged. Its rule numbers are those
        // of the files it was written from: a policy read after an edit may
        // number its rules otherwise, so it only serves while the key holds.
        let yaml = {
            let (paths, files, key) = (paths.to_vec(), files.clone(), key.text.clone());
            move || {
                let Prepared::Ready(policy) = crate::engine::prepare(&paths, Some(hook)) else {
                    return None;
                };
                unchanged(&files, hook, &key).then_some(policy)
            }
        };
        if let Some((policy, hooks)) = read_entry(&entry_path)
            .and_then(|bytes| decode_with_hooks(bytes, &key.text, hook, Box::new(yaml)))
        {
            let _ = self.hooks_with_rules.set(hooks);
            return Prepared::Ready(policy);
        }
        let mut sources = Vec::with_capacity(files.len());
        for (path, layer) in files {
            match load::read_source(path) {
                Ok(source) => sources.push((source, *layer)),
                Err(_) => return crate::engine::prepare(paths, Some(hook)),
            }
        }
        let (set, diags) = load::load_layered(sources, Mode::Run);
        let prepared = crate::engine::prepare_loaded_ref(&set, diags, Some(hook));
        if let Prepared::Ready(policy) = &prepared {
            let _ = self.hooks_with_rules.set(hooks_with_rules(&set));
            if !fresh && unchanged(files, hook, &key.text) {
                let _ = write_entry(dir, &entry_path, &encode(&key.text, hook, &set, policy));
            }
        }
        // One call per process: freeing the loaded set piece by piece would
        // cost more than the decision (compiled rules borrow nothing from it).
        std::mem::forget(set);
        prepared
    }
}

/// Whether the files still have the key `key` for `hook`.
fn unchanged(files: &[(PathBuf, usize)], hook: &str, key: &str) -> bool {
    KeyMaterial::of(files)
        .and_then(|k| k.for_hook(hook))
        .is_some_and(|k| k.text == key)
}

/// The hooks a policy set has rules on (by their catalogue names), in
/// catalogue order: a hook missing here has no rule to decide anything.
fn hooks_with_rules(set: &PolicySet) -> Vec<String> {
    let named: Vec<&str> = set
        .rules
        .iter()
        .flat_map(|r| r.rule.hook.names())
        .filter_map(|n| crate::catalogue::hook(n).map(|h| h.name))
        .collect();
    crate::catalogue::hook_names()
        .filter(|h| named.contains(h))
        .map(str::to_string)
        .collect()
}

/// The directory of an entry: settings, and where the parts of the body are.
#[derive(Serialize, Deserialize)]
struct Directory {
    /// `fail_open`, `fail_closed`, or none.
    on_error: Option<String>,
    /// Stored resolved, so no directory is needed.
    log: Option<PathBuf>,
    /// The body's length in bytes: a truncated entry is a miss.
    body: u64,
    /// How many rules the body holds, and where their locations are.
    rules: usize,
    locations: u32,
    /// `[pattern, length]` pairs (JSON), read whole.
    shortest: Part,
    plan: PlanTables,
    /// The hooks the whole policy has rules on (not only this entry's):
    /// chibi's `pre_tool` asks the tool filter only when it has rules.
    hooks: Vec<String>,
}

/// The policy compiled from YAML, for a call that finds its entry damaged.
pub type Fallback = Box<dyn Fn() -> Option<CompiledPolicy> + Send + Sync>;

/// The entry for `hook` of a policy compiled for that hook alone, from
/// the set it was compiled from (public so that tests can compare the
/// decisions of [`decode`]'s policy with the compiled one's); empty when
/// it cannot be stored.
pub fn encode(key: &str, hook: &str, set: &PolicySet, policy: &CompiledPolicy) -> Vec<u8> {
    entry(key, hook, set, policy).unwrap_or_default()
}

fn entry(key: &str, hook: &str, set: &PolicySet, policy: &CompiledPolicy) -> Option<Vec<u8>> {
    let by_order: std::collections::HashMap<usize, &LoadedRule> =
        set.rules.iter().map(|r| (r.order, r)).collect();
    let mut w = Writer::default();
    let mut locations = Vec::with_capacity(policy.rules.len());
    for rule in &policy.rules {
        // Orders are unique in a set; a mismatch would store another rule's
        // source, so nothing is stored.
        let loaded = by_order
            .get(&rule.order)
            .filter(|l| *l.rule.id == *rule.id)?;
        let at = w.body.len();
        RuleForm::write_record(loaded, rule, &mut w.body).ok()?;
        let len = w.body.len() - at;
        locations.push((u32::try_from(at).ok()?, u32::try_from(len).ok()?));
    }
    let locations = w.locations(&locations)?;
    let mut shortest = Vec::new();
    for when in policy.rules.iter().filter_map(|r| r.when.as_ref()) {
        crate::expr::regex_match::shortest_matches(&when.expr, &mut shortest);
    }
    let shortest = w.part(&serde_json::to_vec(&shortest).ok()?)?;
    let plan = match policy.plan(hook) {
        Some(plan) => PlanTables::write(plan, &mut w)?,
        None => PlanTables::write(&Default::default(), &mut w)?,
    };
    let directory = Directory {
        on_error: policy.on_error.map(|o| {
            match o {
                OnError::FailClosed => "fail_closed",
                OnError::FailOpen => "fail_open",
            }
            .to_string()
        }),
        log: policy.log.clone(),
        body: w.body.len() as u64,
        rules: policy.rules.len(),
        locations,
        shortest,
        plan,
        hooks: hooks_with_rules(set),
    };
    let directory = serde_json::to_vec(&directory).ok()?;
    let mut out = format!(
        "{FORMAT}\n{key}\n{:016x} {}\n",
        checksum(&directory),
        directory.len()
    )
    .into_bytes();
    out.extend_from_slice(&directory);
    out.extend_from_slice(&w.body);
    Some(out)
}

/// The policy an entry holds, if it is whole and written for `key`. Only
/// the directory is read here; the rest is read, and checked, as a call
/// needs it, and `fallback` gives the policy when something does not check
/// out.
pub fn decode(
    bytes: impl AsRef<[u8]> + Send + Sync + 'static,
    key: &str,
    hook: &'static str,
    fallback: Fallback,
) -> Option<CompiledPolicy> {
    decode_with_hooks(bytes, key, hook, fallback).map(|(policy, _)| policy)
}

/// [`decode`], and the hooks the whole policy has rules on.
fn decode_with_hooks(
    bytes: impl AsRef<[u8]> + Send + Sync + 'static,
    key: &str,
    hook: &'static str,
    fallback: Fallback,
) -> Option<(CompiledPolicy, Vec<String>)> {
    let text = bytes.as_ref();
    let mut lines = text.splitn(4, |&b| b == b'\n');
    if lines.next()? != FORMAT.as_bytes() || lines.next()? != key.as_bytes() {
        return None;
    }
    let sums = std::str::from_utf8(lines.next()?).ok()?;
    let rest = lines.next()?;
    let rest_at = text.len() - rest.len();
    let (sum, len) = sums.split_once(' ')?;
    let len: usize = len.parse().ok()?;
    let directory = rest.get(..len)?;
    let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if sum.len() != 16
        || !sum.bytes().all(lower_hex)
        || u64::from_str_radix(sum, 16).ok()? != checksum(directory)
    {
        return None;
    }
    let directory: Directory = serde_json::from_slice(directory).ok()?;
    let body_at = rest_at + len;
    if (text.len() - body_at) as u64 != directory.body {
        return None;
    }
    let on_error = match directory.on_error.as_deref() {
        None => None,
        Some("fail_closed") => Some(OnError::FailClosed),
        Some("fail_open") => Some(OnError::FailOpen),
        Some(_) => return None,
    };
    // Read by a call that evaluates a pattern: a wrong length would make a
    // pattern miss, so it is checked here, whole (it is short).
    let shortest = directory.shortest.read(&text[body_at..]).ok()?.to_vec();
    let rules = DeferredRules::new(
        hook,
        Box::new(bytes),
        body_at,
        directory.locations,
        directory.rules,
        directory.plan,
        fallback,
    )?;
    crate::expr::regex_match::know_shortest(shortest);
    Some((
        prepared::deferred_policy(rules, on_error, directory.log),
        directory.hooks,
    ))
}

/// What the key of an entry is made of: the files' identities at one
/// moment, without the hook, and whether any of them was modified too
/// recently to trust its times (see the module docs). Layers are part of
/// it: the same files as one `--policy` path or as several may compose
/// differently (see `packs::compose`).
struct KeyMaterial {
    bytes: Vec<u8>,
    fresh: bool,
}

/// An entry's key for one hook: the material in hex (the entry's second
/// line, compared whole), and the file name's hash of it.
struct Key {
    text: String,
}

impl KeyMaterial {
    fn of(files: &[(PathBuf, usize)]) -> Option<KeyMaterial> {
        use std::os::unix::fs::MetadataExt;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs() as i64;
        let mut fresh = false;
        let mut bytes = Vec::with_capacity(64 + files.len() * 128);
        let string = |bytes: &mut Vec<u8>, s: &[u8]| {
            bytes.extend_from_slice(&(s.len() as u64).to_le_bytes());
            bytes.extend_from_slice(s);
        };
        string(&mut bytes, FORMAT.as_bytes());
        string(&mut bytes, env!("CARGO_PKG_VERSION").as_bytes());
        // A rebuilt or reinstalled binary may read the same files differently.
        let exe = std::fs::metadata(crate::current_exe()?).ok()?;
        for n in [
            exe.len() as i64,
            exe.mtime(),
            exe.mtime_nsec(),
            exe.ino() as i64,
        ] {
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        for (path, layer) in files {
            let meta = std::fs::metadata(path).ok()?;
            bytes.extend_from_slice(&(*layer as u64).to_le_bytes());
            string(&mut bytes, path.as_os_str().as_encoded_bytes());
            for n in [
                meta.dev() as i64,
                meta.ino() as i64,
                meta.len() as i64,
                meta.mtime(),
                meta.mtime_nsec(),
                meta.ctime(),
                meta.ctime_nsec(),
            ] {
                bytes.extend_from_slice(&n.to_le_bytes());
            }
            if now - meta.mtime().max(meta.ctime()) < 2 {
                fresh = true;
            }
        }
        Some(KeyMaterial { bytes, fresh })
    }

    fn for_hook(&self, hook: &str) -> Option<Key> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let hook = hook.as_bytes();
        let mut hex = Vec::with_capacity(2 * (8 + hook.len() + self.bytes.len()));
        for &b in (hook.len() as u64)
            .to_le_bytes()
            .iter()
            .chain(hook)
            .chain(&self.bytes)
        {
            hex.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
        // Hex digits only, so always UTF-8.
        String::from_utf8(hex).ok().map(|text| Key { text })
    }
}

impl Key {
    /// 32 hex digits naming the entry's file: two SipHash runs (std's
    /// hasher, fixed keys) over the key. Names need only spread; the key
    /// itself is compared in full.
    fn name(&self) -> String {
        use std::hash::Hasher;
        let half = |seed: u8| {
            let mut h = std::hash::DefaultHasher::new();
            h.write_u8(seed);
            h.write(self.text.as_bytes());
            h.finish()
        };
        format!("{:016x}{:016x}", half(1), half(2))
    }
}

/// An entry's bytes, if it is a file only this user could have written:
/// owned by the effective user and writable by no group or other. The
/// checksum catches damage, not forgery, and a cache directory can be
/// shared or loosely set (`XDG_CACHE_HOME=/tmp`, a group-writable home):
/// an entry another user planted there could make the policy say anything.
/// Checked on the open file, so the file read is the file checked.
fn read_entry(path: &Path) -> Option<Entry> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let mut file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o022 != 0 {
        return None;
    }
    let len = usize::try_from(meta.len()).ok()?;
    if local_filesystem(&file) {
        if let Some(mapped) = Mapped::of(&file, len) {
            return Some(Entry::Mapped(mapped));
        }
    }
    let mut bytes = Vec::with_capacity(len);
    file.read_to_end(&mut bytes).ok()?;
    Some(Entry::Read(bytes))
}

/// An entry's bytes: mapped, so that a call reads only the pages it
/// touches (at 10,000 rules an entry is about a megabyte, of which a call
/// needs a few pages), or read where mapping fails.
enum Entry {
    Mapped(Mapped),
    Read(Vec<u8>),
}

impl AsRef<[u8]> for Entry {
    fn as_ref(&self) -> &[u8] {
        match self {
            Entry::Mapped(m) => m.as_ref(),
            Entry::Read(v) => v,
        }
    }
}

/// Whether `file` is on a local disk file system, where a mapped entry
/// stays readable until unmapped. On a network file system another
/// machine's call renaming a new entry over this one can make the old
/// file's pages unreadable, and reading them then kills the process
/// (`SIGBUS`): such entries, and those of file systems not listed, are read.
#[cfg(target_os = "linux")]
fn local_filesystem(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // ext2-4, XFS, Btrfs, tmpfs, overlayfs, ZFS, F2FS.
    const LOCAL: [i64; 7] = [
        0xEF53,
        0x5846_5342,
        0x9123_683E,
        0x0102_1994,
        0x794C_7630,
        0x2FC1_2FC1,
        0xF2F5_2010,
    ];
    // SAFETY: fstatfs writes one `statfs` into memory we own.
    let mut info: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut info) } != 0 {
        return false;
    }
    #[allow(clippy::unnecessary_cast)]
    LOCAL.contains(&(info.f_type as i64))
}

#[cfg(not(target_os = "linux"))]
fn local_filesystem(_: &std::fs::File) -> bool {
    false
}

/// A private read-only mapping of a whole entry file.
///
/// Entries are never written in place (a new file is renamed over the old
/// one), and only those on a local file system are mapped (see
/// [`local_filesystem`]), so the mapped file stays as it was while a call
/// reads it; only someone who can write this user's files could truncate
/// it in place, and then the reading process dies (`SIGBUS`), as it could
/// from the other things such a writer can do (replace the plugin).
struct Mapped {
    at: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl Mapped {
    fn of(file: &std::fs::File, len: usize) -> Option<Mapped> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return None;
        }
        // SAFETY: a fresh mapping of `len` bytes of an open file, read
        // only; nothing else refers to that memory.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return None;
        }
        Some(Mapped {
            at: std::ptr::NonNull::new(at.cast())?,
            len,
        })
    }
}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `at` maps `len` readable bytes until `drop`.
        unsafe { std::slice::from_raw_parts(self.at.as_ptr(), self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `of`, once.
        unsafe {
            libc::munmap(self.at.as_ptr().cast(), self.len);
        }
    }
}

/// How many entries of one hook the cache keeps.
const ENTRIES_PER_HOOK: usize = 8;

/// Removes `hook`'s entries of earlier formats, and its oldest entries
/// (by the time they were written) beyond `keep`.
fn prune_entries(dir: &Path, hook: &str, keep: usize) {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{hook}-");
    let mut kept = Vec::new();
    for e in listing.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(&prefix) {
            continue;
        }
        if name.ends_with(".json") {
            let _ = std::fs::remove_file(e.path());
        } else if name.ends_with(".prepared") {
            let written = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::SystemTime::UNIX_EPOCH);
            kept.push((written, e.path()));
        }
    }
    if kept.len() > keep {
        kept.sort_unstable_by_key(|(written, _)| std::cmp::Reverse(*written));
        for (_, path) in kept.drain(keep..) {
            let _ = std::fs::remove_file(path);
        }
    }
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
    // A few entries per hook, the most recently written kept: two policy
    // lists or two binaries used in turn (a user-scope and a project-scope
    // install, the plugin and the plain build) would otherwise remove each
    // other's entry on every call and never hit. Keys never collide, so a
    // kept entry is only ever read by the files and binary it was made for.
    let hook = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('-').next())
        .unwrap_or_default();
    prune_entries(dir, hook, ENTRIES_PER_HOOK - 1);
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
