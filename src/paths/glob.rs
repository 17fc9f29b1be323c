//! Glob patterns over normalised paths, with the same `~` and root rules as
//! [`super::normalize`].
//!
//! Matching rules:
//! - `*` and `?` never cross '/' (`literal_separator`), `**` does. `*`
//!   matches names starting with '.', so `*` covers `.env`.
//! - `/abs/...` patterns match the normalised absolute path.
//! - `~/...` patterns are expanded with the home directory given to
//!   [`PathGlobSet::new`] and then match like absolute patterns.
//! - Relative patterns (`src/**/*.rs`, `.env`, `./x`) match the path relative
//!   to the root, so they never match outside it. `.env` means the root's
//!   `.env` only; write `**/.env` for any depth.
//! - A relative pattern starting with `**/` additionally matches the absolute
//!   path, so `**/.env` also catches `/home/u/other/.env` outside the root.
//! - A trailing '/' (`target/`) means the directory and everything in it.
//! - `.` and empty components are dropped from patterns as from paths;
//!   `..` is rejected, since a normalised path never contains it.
//! - Matching is case-sensitive (Linux semantics); `\` escapes the next
//!   character, as in globset.
//! - A pattern starting with `(?i)` ignores ASCII case (`(?i)**/.env` also
//!   matches `.ENV`): on macOS and Windows file systems, where most coding
//!   agents run, `.ENV` and `~/.SSH/ID_RSA` open the same files as `.env`
//!   and `~/.ssh/id_rsa`, so patterns that guard files use it.

use globset::{Candidate, Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use super::lexical::{absolute_without_context, is_normalized};
use super::normalize;

/// A pattern that could not be compiled: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPatternError {
    pub index: usize,
    pub pattern: String,
    pub reason: String,
}

impl std::fmt::Display for PathPatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "path pattern #{} {:?}: {}",
            self.index, self.pattern, self.reason
        )
    }
}

impl std::error::Error for PathPatternError {}

/// Compiled path patterns; [`PathGlobSet::matches`] tells which pattern
/// (by index into the list given to `new`) matched first.
#[derive(Debug, Clone)]
pub struct PathGlobSet {
    root: String,
    home: Option<String>,
    /// Globs matched against the absolute path, and the pattern each came from.
    absolute: GlobSet,
    absolute_owner: Vec<usize>,
    /// Globs matched against the path relative to the root.
    relative: GlobSet,
    relative_owner: Vec<usize>,
}

/// The prefix that makes a pattern ignore ASCII case.
pub const IGNORE_CASE: &str = "(?i)";

/// Where one compiled glob is matched.
#[derive(Debug, Clone, Copy)]
enum Target {
    Absolute,
    Relative,
}

impl PathGlobSet {
    /// Compile `patterns` (see the module docs for their meaning). `root` is
    /// the directory relative patterns are anchored at; `home` expands `~/`.
    pub fn new(
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
    ) -> Result<Self, PathPatternError> {
        Self::build(patterns, root, home, None)
    }

    /// Like [`PathGlobSet::new`], for matching one path only: globs that
    /// cannot match it are left out, so a process that decides one payload
    /// compiles only the few globs its path could match (compiling a set of
    /// fifty globs is most of a `pre_file_read` call otherwise). Whatever
    /// `new` refuses, this refuses too, with the same error: only globs that
    /// expand and surely compile are ever left out. The set answers
    /// `matches`/`matches_all` for `path` exactly as `new`'s would, and
    /// must not be asked about another path.
    pub fn for_path(
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
        path: &str,
    ) -> Result<Self, PathPatternError> {
        Self::build(patterns, root, home, Some(path))
    }

    fn build(
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
        only: Option<&str>,
    ) -> Result<Self, PathPatternError> {
        let root_abs = absolute_without_context(root);
        let home_abs = home.map(absolute_without_context);
        let escaped = home.map(escaped_home);
        let narrowable =
            text_bound(patterns, escaped.as_ref().map_or(0, String::len)) <= NARROWABLE_TEXT;
        let subjects = only
            .filter(|_| narrowable)
            .map(|path| subjects(path, &root_abs, home_abs.as_deref()));
        let mut sets = SetBuilder::new();
        for (index, pattern) in patterns.iter().enumerate() {
            let fail = |reason: String| PathPatternError {
                index,
                pattern: pattern.to_string(),
                reason,
            };
            let (body, ignore_case) = match pattern.strip_prefix(IGNORE_CASE) {
                Some(rest) => (rest, true),
                None => (*pattern, false),
            };
            for (target, text) in expand_pattern(body, escaped.as_deref()).map_err(fail)? {
                // Only a plain glob is ever left out: it surely compiles.
                if ruled_out(&subjects, target, &text, ignore_case) {
                    continue;
                }
                sets.add(
                    target,
                    compile_glob(&text, ignore_case).map_err(fail)?,
                    index,
                );
            }
        }
        sets.finish(root_abs, home_abs)
    }

    /// The index of the first pattern (in the order given to `new`) that
    /// matches `normalized_path`. Text that is not already normalised is
    /// normalised first, so a stray `..` cannot slip past.
    pub fn matches(&self, normalized_path: &str) -> Option<usize> {
        let owned;
        let path = if is_normalized(normalized_path) {
            normalized_path
        } else {
            owned = normalize(normalized_path, &self.root, self.home.as_deref());
            owned.as_str()
        };
        let absolute_hit = first_owner(&self.absolute, &self.absolute_owner, path);
        let relative_hit = self
            .relative_to_root(path)
            .and_then(|rel| first_owner(&self.relative, &self.relative_owner, rel));
        match (absolute_hit, relative_hit) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        }
    }

    /// The indexes of every pattern that matches `normalized_path`, in
    /// ascending order (for indexing many rules' globs in one set).
    pub fn matches_all(&self, normalized_path: &str) -> Vec<usize> {
        let owned;
        let path = if is_normalized(normalized_path) {
            normalized_path
        } else {
            owned = normalize(normalized_path, &self.root, self.home.as_deref());
            owned.as_str()
        };
        let mut out: Vec<usize> = Vec::new();
        if !self.absolute.is_empty() {
            out.extend(
                self.absolute
                    .matches_candidate(&Candidate::new(path))
                    .into_iter()
                    .filter_map(|g| self.absolute_owner.get(g).copied()),
            );
        }
        if let Some(rel) = self.relative_to_root(path) {
            if !self.relative.is_empty() {
                out.extend(
                    self.relative
                        .matches_candidate(&Candidate::new(rel))
                        .into_iter()
                        .filter_map(|g| self.relative_owner.get(g).copied()),
                );
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn relative_to_root<'p>(&self, path: &'p str) -> Option<&'p str> {
        relative_to(&self.root, path)
    }
}

/// Above this many bytes of glob text in all (counted from the patterns,
/// see [`text_bound`]), a set asked for one path is built whole all the
/// same. Below it, any choice among globs that each compile also builds
/// as a set: the only limit a set adds is globset's 10 MiB per regex
/// automaton, which the costliest globs (nothing but `*` and `?`) reach at
/// 12 to 16 times this size, and globs of literal text, classes or
/// alternatives later still (see the test
/// `sets_twice_the_narrowing_bound_build`). So leaving globs out never
/// turns a set that would fail into one that answers.
const NARROWABLE_TEXT: usize = 8 * 1024;

/// An upper bound of the glob text [`expand_pattern`] makes of `patterns`,
/// with a home escaped to `home_len` bytes: each glob is at most the
/// pattern with the home in place of `~`, a leading `/` and a `/**`.
fn text_bound(patterns: &[&str], home_len: usize) -> usize {
    patterns
        .iter()
        .map(|pattern| {
            let body = pattern.strip_prefix(IGNORE_CASE).unwrap_or(pattern);
            let home = body.starts_with('~');
            let len = body.len() + if home { home_len } else { 0 } + 4;
            // A directory has a second glob for what it holds (a bare `~`
            // may be one: the home `/`); a relative `**/` one a second
            // target.
            let texts = if body.ends_with('/') || home { 2 } else { 1 };
            let targets = if home || body.starts_with('/') { 1 } else { 2 };
            len * texts * targets
        })
        .sum()
}

/// The home as glob text: a path, not a pattern. A `[` or `{` in it must
/// match itself (unescaped, it broke the set or matched other homes), and
/// so must a `\` (globset's escape leaves it, and it then escaped the next
/// character: `/tmp/a\b` matched `/tmp/ab` only).
fn escaped_home(home: &str) -> String {
    globset::escape(&absolute_without_context(home)).replace('\\', "\\\\")
}

/// The texts a path is matched on, as [`PathGlobSet::matches`] computes
/// them: the normalised path, and the part of it below the root.
fn subjects(path: &str, root_abs: &str, home_abs: Option<&str>) -> (String, Option<String>) {
    let path = if is_normalized(path) {
        path.to_string()
    } else {
        normalize(path, root_abs, home_abs)
    };
    let relative = relative_to(root_abs, &path).map(str::to_string);
    (path, relative)
}

/// Whether a glob of `target` cannot match a path of these `subjects`.
fn ruled_out(
    subjects: &Option<(String, Option<String>)>,
    target: Target,
    text: &str,
    ignore_case: bool,
) -> bool {
    let Some((path, rel)) = subjects else {
        return false;
    };
    let subject = match target {
        Target::Absolute => Some(path.as_str()),
        Target::Relative => rel.as_deref(),
    };
    cannot_match(text, subject, ignore_case)
}

/// The two glob sets of a [`PathGlobSet`] being filled.
struct SetBuilder {
    absolute: (GlobSetBuilder, Vec<usize>),
    relative: (GlobSetBuilder, Vec<usize>),
}

impl SetBuilder {
    fn new() -> Self {
        SetBuilder {
            absolute: (GlobSetBuilder::new(), Vec::new()),
            relative: (GlobSetBuilder::new(), Vec::new()),
        }
    }

    fn add(&mut self, target: Target, glob: Glob, owner: usize) {
        let (builder, owners) = match target {
            Target::Absolute => &mut self.absolute,
            Target::Relative => &mut self.relative,
        };
        builder.add(glob);
        owners.push(owner);
    }

    fn finish(self, root: String, home: Option<String>) -> Result<PathGlobSet, PathPatternError> {
        let build = |builder: GlobSetBuilder| {
            builder.build().map_err(|e| PathPatternError {
                index: 0,
                pattern: String::new(),
                reason: format!("pattern set could not be compiled: {e}"),
            })
        };
        Ok(PathGlobSet {
            root,
            home,
            absolute: build(self.absolute.0)?,
            absolute_owner: self.absolute.1,
            relative: build(self.relative.0)?,
            relative_owner: self.relative.1,
        })
    }
}

/// Patterns expanded for one home into the glob texts that implement them
/// (see [`expand_pattern`]), with every refusal `PathGlobSet::new` would
/// make already found: a text that is not plain (a class, an alternative,
/// an escape) is compiled here, once; a plain one (characters, `*`, `?`,
/// `/`) always compiles and waits until a set needs it. A holder asks for
/// sets of many paths from one expansion: the guard pack's fifty globs of
/// hook settings cost 3 M instructions to build whole, and a written path
/// that holds none of their literal runs needs none of them.
#[derive(Debug, Clone)]
pub struct ExpandedGlobs {
    patterns: Vec<String>,
    globs: Vec<ExpandedGlob>,
    /// Small enough for sets of some of the globs (see `NARROWABLE_TEXT`).
    narrowable: bool,
}

#[derive(Debug, Clone)]
struct ExpandedGlob {
    /// Index of the pattern it came from.
    owner: usize,
    target: Target,
    text: String,
    ignore_case: bool,
    /// The compiled glob of a text that is not plain.
    compiled: Option<Glob>,
}

impl ExpandedGlobs {
    /// Expand `patterns` with `home`, refusing (with the same error, for the
    /// first bad pattern in order) exactly what `PathGlobSet::new` refuses
    /// for any root.
    pub fn new(patterns: &[&str], home: Option<&str>) -> Result<Self, PathPatternError> {
        let escaped = home.map(escaped_home);
        let mut globs = Vec::new();
        for (index, pattern) in patterns.iter().enumerate() {
            let fail = |reason: String| PathPatternError {
                index,
                pattern: pattern.to_string(),
                reason,
            };
            let (body, ignore_case) = match pattern.strip_prefix(IGNORE_CASE) {
                Some(rest) => (rest, true),
                None => (*pattern, false),
            };
            for (target, text) in expand_pattern(body, escaped.as_deref()).map_err(fail)? {
                let compiled = if is_plain(&text) {
                    None
                } else {
                    Some(compile_glob(&text, ignore_case).map_err(fail)?)
                };
                globs.push(ExpandedGlob {
                    owner: index,
                    target,
                    text,
                    ignore_case,
                    compiled,
                });
            }
        }
        let bound = text_bound(patterns, escaped.as_ref().map_or(0, String::len));
        Ok(ExpandedGlobs {
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            globs,
            narrowable: bound <= NARROWABLE_TEXT,
        })
    }

    /// Whether a set for one path leaves out the globs it cannot match
    /// (otherwise every set is whole).
    pub fn narrowable(&self) -> bool {
        self.narrowable
    }

    /// The set for `root` (`home`: the one expanded with, for normalising
    /// paths): whole, or, with `only`, for that one path (see
    /// [`PathGlobSet::for_path`]).
    pub fn set(
        &self,
        root: &str,
        home: Option<&str>,
        only: Option<&str>,
    ) -> Result<PathGlobSet, PathPatternError> {
        let root_abs = absolute_without_context(root);
        let home_abs = home.map(absolute_without_context);
        let subjects = only
            .filter(|_| self.narrowable)
            .map(|path| subjects(path, &root_abs, home_abs.as_deref()));
        let mut sets = SetBuilder::new();
        for glob in &self.globs {
            if ruled_out(&subjects, glob.target, &glob.text, glob.ignore_case) {
                continue;
            }
            let compiled = match &glob.compiled {
                Some(compiled) => compiled.clone(),
                None => compile_glob(&glob.text, glob.ignore_case).map_err(|reason| {
                    PathPatternError {
                        index: glob.owner,
                        pattern: self.patterns[glob.owner].clone(),
                        reason,
                    }
                })?,
            };
            sets.add(glob.target, compiled, glob.owner);
        }
        sets.finish(root_abs, home_abs)
    }
}

/// A glob text of plain characters, `*`, `?` and `/` only: globset
/// compiles every such text (a misplaced `**` is two `*`).
fn is_plain(text: &str) -> bool {
    !text.contains(['[', ']', '{', '}', '\\'])
}

fn compile_glob(text: &str, ignore_case: bool) -> Result<Glob, String> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .case_insensitive(ignore_case)
        .build()
        .map_err(|e| e.kind().to_string())
}

/// `path` relative to `root` (both normalised), if it is inside it.
fn relative_to<'p>(root: &str, path: &'p str) -> Option<&'p str> {
    if root == "/" {
        return path.get(1..);
    }
    let rest = path.strip_prefix(root)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

/// Whether the expanded glob `text` surely cannot match `subject` (`None`:
/// the path is not where the glob is matched, e.g. outside the root for a
/// relative glob). Only globs of plain characters, `*`, `?` and `/` are
/// judged (they always compile, and each of their runs of plain characters
/// stands for the same characters, side by side, within one component of
/// any path they match): one such run missing from the subject rules the
/// glob out. Anything else (classes, alternatives, escapes) may match.
/// A glob that ignores case (`(?i)`) is judged on ASCII-lowercased text, so
/// `.ENV` keeps `(?i)**/.env`.
fn cannot_match(text: &str, subject: Option<&str>, ignore_case: bool) -> bool {
    if !is_plain(text) {
        return false;
    }
    let Some(subject) = subject else {
        return true;
    };
    if ignore_case {
        let subject = subject.to_ascii_lowercase();
        return text
            .to_ascii_lowercase()
            .split(['*', '?', '/'])
            .any(|run| !run.is_empty() && !subject.contains(run));
    }
    text.split(['*', '?', '/'])
        .any(|run| !run.is_empty() && !subject.contains(run))
}

fn first_owner(set: &GlobSet, owners: &[usize], path: &str) -> Option<usize> {
    if set.is_empty() {
        return None;
    }
    set.matches_candidate(&Candidate::new(path))
        .into_iter()
        .filter_map(|glob| owners.get(glob).copied())
        .min()
}

/// Turn one user pattern into the globs that implement it; `home` is the
/// home already escaped ([`escaped_home`]).
fn expand_pattern(pattern: &str, home: Option<&str>) -> Result<Vec<(Target, String)>, String> {
    if pattern.is_empty() {
        return Err("empty pattern".to_string());
    }
    let (anchored, start, body) = if let Some(after) = pattern.strip_prefix('~') {
        let (name, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
        if !name.is_empty() {
            return Err(format!(
                "'~{name}' (another user's home) is not expanded; write the absolute path"
            ));
        }
        let home = home.ok_or("pattern starts with '~' but no home directory was given")?;
        (true, home, rest)
    } else {
        (pattern.starts_with('/'), "", pattern)
    };
    // What `start` and `body` spell together (`rest` is empty or starts
    // with '/'), with empty and `.` components dropped.
    let directory = if body.is_empty() {
        start.ends_with('/')
    } else {
        body.ends_with('/')
    };
    let mut text = String::with_capacity(start.len() + body.len() + 4);
    if anchored {
        text.push('/');
    }
    for part in start.split('/').chain(body.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                return Err(
                    "'..' cannot match: paths are normalised before matching, so write the path it means"
                        .to_string(),
                )
            }
            name => {
                if !text.is_empty() && !text.ends_with('/') {
                    text.push('/');
                }
                text.push_str(name);
            }
        }
    }
    if text.is_empty() {
        return Err("pattern names no path (only '.' and '/')".to_string());
    }

    let below = directory.then(|| {
        let sep = if text.ends_with('/') { "" } else { "/" };
        format!("{text}{sep}**")
    });
    let mut globs = Vec::with_capacity(4);
    for text in std::iter::once(text).chain(below) {
        if anchored {
            globs.push((Target::Absolute, text));
        } else {
            if text == "**" || text.starts_with("**/") {
                globs.push((Target::Absolute, format!("/{text}")));
            }
            globs.push((Target::Relative, text));
        }
    }
    Ok(globs)
}

/// A glob set compiled on demand and kept for the (root, home) it was
/// compiled for. The first path asked about gets a set for that path only
/// ([`PathGlobSet::for_path`]): a plugin process decides one payload. A
/// second, different path gets the whole set, kept from then on (a
/// long-running server).
#[derive(Debug, Default)]
pub struct GlobSetCache {
    kept: std::sync::Mutex<Option<Kept>>,
}

#[derive(Debug)]
struct Kept {
    root: String,
    home: Option<String>,
    /// The path a set built by `for_path` serves; `None` for a whole set.
    only: Option<String>,
    set: Result<PathGlobSet, PathPatternError>,
}

impl GlobSetCache {
    /// Calls `with` on the set of `patterns` for (root, home), usable for `path`.
    pub fn with<T>(
        &self,
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
        path: &str,
        with: impl FnOnce(&Result<PathGlobSet, PathPatternError>) -> T,
    ) -> T {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let usable = kept.as_ref().is_some_and(|k| {
            k.root == root
                && k.home.as_deref() == home
                && k.only.as_deref().is_none_or(|only| only == path)
        });
        if !usable {
            let (only, set) = if kept.is_none() {
                (
                    Some(path.to_string()),
                    PathGlobSet::for_path(patterns, root, home, path),
                )
            } else {
                (None, PathGlobSet::new(patterns, root, home))
            };
            *kept = Some(Kept {
                root: root.to_string(),
                home: home.map(str::to_string),
                only,
                set,
            });
        }
        with(&kept.as_ref().expect("just filled").set)
    }
}

#[cfg(test)]
mod tests {

    /// A home holding glob syntax is a path: it matches itself only, and a
    /// set with it still builds (it broke the guard pack's set before).
    #[test]
    fn a_home_with_glob_characters_matches_itself_only() {
        for home in [
            "/tmp/we[ird",
            "/tmp/a{b",
            "/tmp/a*b",
            "/tmp/a?b",
            "/tmp/a,b}",
        ] {
            let set = PathGlobSet::new(&["~/.ssh/**"], "/p", Some(home))
                .unwrap_or_else(|e| panic!("{home}: {}", e.reason));
            assert!(
                set.matches(&format!("{home}/.ssh/id_rsa")).is_some(),
                "{home}"
            );
            assert!(set.matches("/tmp/wei/.ssh/id_rsa").is_none(), "{home}");
            assert!(set.matches("/tmp/aXb/.ssh/id_rsa").is_none(), "{home}");
            assert!(set.matches("/tmp/ab/.ssh/id_rsa").is_none(), "{home}");
            assert!(set.matches("/tmp/a/.ssh/id_rsa").is_none(), "{home}");
        }
        // A backslash is a separator (docs/url-path-notes.md), in the home
        // as in the path.
        let set = PathGlobSet::new(&["~/.ssh/**"], "/p", Some("/tmp/a\\b")).expect("builds");
        assert!(set.matches("/tmp/a\\b/.ssh/id_rsa").is_some());
        assert!(set.matches("/tmp/a/b/.ssh/id_rsa").is_some());
        assert!(set.matches("/tmp/ab/.ssh/id_rsa").is_none());
        let guarded = super::super::GuardedPaths::new(
            &["~/.claude/settings.json"],
            "/p",
            Some("/tmp/we[ird"),
        )
        .expect("builds");
        assert!(guarded.touches("/tmp/we[ird/.claude/settings.json", false, "", false));
    }

    use super::*;

    /// A set built for one path answers for it exactly as the whole set.
    #[test]
    fn a_set_for_one_path_answers_as_the_whole_set() {
        let patterns = [
            "**/.env",
            "**/.env.*",
            "~/.ssh/**",
            "**/*.pem",
            "**/id_rsa*",
            "/etc/shadow",
            "/proc/*/environ",
            "**/.*_history",
            "src/**/*.rs",
            ".env",
            "target/",
            "/etc/",
            "**/*service-account*.json",
            "docs/[a-c]*.md",
            "**/{a,b}.txt",
            "x\\*y",
            "?.key",
            "**",
            "a/**/b",
            "**/.aws/credentials",
            "(?i)**/.envrc",
            "(?i)~/.gnupg/**",
            "(?i)**/*.p12",
        ];
        let paths = [
            "/proj/.ENVRC",
            "/home/u/.GnuPG/x",
            "/proj/Cert.P12",
            "/proj/.env",
            "/proj/src/.env.local",
            "/home/u/.ssh/id_rsa",
            "/tmp/README.md",
            "/etc/shadow",
            "/proc/12/environ",
            "/home/u/.bash_history",
            "/proj/src/a/b.rs",
            "/proj/target",
            "/proj/target/x",
            "/etc/passwd",
            "/proj/gcp-service-account-1.json",
            "/proj/docs/b1.md",
            "/proj/docs/d.md",
            "/proj/q/a.txt",
            "/proj/x*y",
            "/proj/k.key",
            "/proj/a/b",
            "/proj/a/c/b",
            "/",
            "/proj",
            "/home/u/.aws/credentials",
            "/other/.env",
            "src/../.env",
            "/proj/ab.key",
        ];
        for root in ["/proj", "/"] {
            let whole = PathGlobSet::new(&patterns, root, Some("/home/u")).unwrap();
            for path in paths {
                let one = PathGlobSet::for_path(&patterns, root, Some("/home/u"), path).unwrap();
                assert_eq!(one.matches(path), whole.matches(path), "{root} {path}");
                assert_eq!(
                    one.matches_all(path),
                    whole.matches_all(path),
                    "{root} {path}"
                );
            }
        }
        // The same refusals, for every path.
        for bad in [
            &["ok/*", "src/[a"][..],
            &["/x/*.pem", "~/.ssh/*"],
            &["a/../b"],
        ] {
            for path in ["/proj/zzz", "/proj/src/a"] {
                assert_eq!(
                    PathGlobSet::for_path(bad, "/proj", None, path).unwrap_err(),
                    PathGlobSet::new(bad, "/proj", None).unwrap_err()
                );
            }
        }
    }

    /// Sets of every costly kind of glob, twice `NARROWABLE_TEXT` in all,
    /// build: under the bound, no choice of globs that each compile can
    /// fail as a set (the costliest, all `*` and `?`, fail from 12 times
    /// the bound on).
    #[test]
    fn sets_twice_the_narrowing_bound_build() {
        for unit in [
            "*?*?",
            "(?i)*?*?",
            "a?b*c",
            "(?i)k?s*x",
            "é?ß*ж",
            "[!a-z0-9_][a-c]",
            "(?i)[a-z][!/]",
            "{ab,cd,ef}",
            "**/x",
        ] {
            let (prefix, body) = match unit.strip_prefix(IGNORE_CASE) {
                Some(body) => (IGNORE_CASE, body),
                None => ("", unit),
            };
            let glob = format!("{prefix}/x/{}", body.repeat(1024 / body.len()));
            let patterns: Vec<String> = (0..=2 * NARROWABLE_TEXT / glob.len())
                .map(|i| format!("{glob}{i}"))
                .collect();
            let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
            let expanded = ExpandedGlobs::new(&refs, None).expect("each glob compiles");
            assert!(!expanded.narrowable(), "{unit}: over the bound");
            let set = expanded.set("/p", None, None);
            assert!(set.is_ok(), "{unit}: {:?}", set.err());
            // Half of them is within the bound, and narrowed.
            let half = ExpandedGlobs::new(&refs[..refs.len() / 2 - 1], None).unwrap();
            assert!(half.narrowable(), "{unit}: within the bound");
        }
    }

    /// Over the bound, a set for one path is the whole set.
    #[test]
    fn over_the_bound_a_set_for_one_path_is_whole() {
        let long = format!("/{}/*.pem", "d".repeat(NARROWABLE_TEXT));
        let patterns = ["**/.env", long.as_str()];
        let one = PathGlobSet::for_path(&patterns, "/p", None, "/p/README.md").unwrap();
        assert_eq!(one.absolute.len() + one.relative.len(), 3);
        let narrowed = PathGlobSet::for_path(&patterns[..1], "/p", None, "/p/README.md").unwrap();
        assert_eq!(narrowed.absolute.len() + narrowed.relative.len(), 0);
    }

    #[test]
    fn the_cache_serves_a_second_path_from_the_whole_set() {
        let cache = GlobSetCache::default();
        let patterns = ["**/.env", "**/*.pem"];
        let hit = |path: &str| {
            cache.with(&patterns, "/proj", None, path, |set| {
                set.as_ref().unwrap().matches_all(path)
            })
        };
        assert_eq!(hit("/proj/README.md"), Vec::<usize>::new());
        assert_eq!(hit("/proj/.env"), vec![0]);
        assert_eq!(hit("/proj/k.pem"), vec![1]);
        assert_eq!(hit("/proj/README.md"), Vec::<usize>::new());
    }

    fn set(patterns: &[&str]) -> PathGlobSet {
        PathGlobSet::new(patterns, "/proj", Some("/home/u")).expect("patterns compile")
    }

    #[test]
    fn first_pattern_in_list_order_wins() {
        let globs = set(&["**/*.rs", "src/**"]);
        assert_eq!(globs.matches("/proj/src/main.rs"), Some(0));
        assert_eq!(globs.matches("/proj/src/data.txt"), Some(1));
        let reversed = set(&["src/**", "**/*.rs"]);
        assert_eq!(reversed.matches("/proj/src/main.rs"), Some(0));
    }

    #[test]
    fn relative_patterns_stay_inside_the_root() {
        let globs = set(&[".env", "src/*.rs"]);
        assert_eq!(globs.matches("/proj/.env"), Some(0));
        assert_eq!(globs.matches("/proj/sub/.env"), None);
        assert_eq!(globs.matches("/other/.env"), None);
        assert_eq!(globs.matches("/proj-evil/.env"), None);
        assert_eq!(globs.matches("/proj/src/a/b.rs"), None);
    }

    #[test]
    fn double_star_prefix_reaches_everywhere() {
        let globs = set(&["**/.env"]);
        assert_eq!(globs.matches("/proj/.env"), Some(0));
        assert_eq!(globs.matches("/proj/a/b/.env"), Some(0));
        assert_eq!(globs.matches("/.env"), Some(0));
        assert_eq!(globs.matches("/srv/app/.env"), Some(0));
        assert_eq!(globs.matches("/srv/app/.env.example"), None);
    }

    #[test]
    fn home_and_directory_patterns() {
        let globs = set(&["~/.ssh/**", "target/", "/etc/"]);
        assert_eq!(globs.matches("/home/u/.ssh/id_rsa"), Some(0));
        assert_eq!(globs.matches("/home/u/.sshx"), None);
        assert_eq!(globs.matches("/proj/target"), Some(1));
        assert_eq!(globs.matches("/proj/target/debug/x"), Some(1));
        assert_eq!(globs.matches("/etc"), Some(2));
        assert_eq!(globs.matches("/etc/passwd"), Some(2));
        assert_eq!(globs.matches("/etcetera"), None);
    }

    #[test]
    fn unnormalised_input_is_normalised_first() {
        let globs = set(&["/etc/**"]);
        assert_eq!(globs.matches("/proj/../etc/passwd"), Some(0));
        assert_eq!(globs.matches("src/../../etc//passwd"), Some(0));
    }

    #[test]
    fn star_does_not_cross_directories_but_matches_dotfiles() {
        let globs = set(&["/proj/*"]);
        assert_eq!(globs.matches("/proj/.git"), Some(0));
        assert_eq!(globs.matches("/proj/.git/config"), None);
    }

    #[test]
    fn bad_patterns_are_named() {
        let err = PathGlobSet::new(&["ok/**", "src/[a"], "/proj", None).unwrap_err();
        assert_eq!((err.index, err.pattern.as_str()), (1, "src/[a"));
        assert!(err.to_string().contains("src/[a"), "{err}");

        let no_home = PathGlobSet::new(&["~/.ssh/*"], "/proj", None).unwrap_err();
        assert!(no_home.reason.contains("no home"), "{no_home}");
        let other_user = PathGlobSet::new(&["~root/.ssh/*"], "/proj", None).unwrap_err();
        assert!(other_user.reason.contains("another user"), "{other_user}");
        let dotdot = PathGlobSet::new(&["../secrets/*"], "/proj", None).unwrap_err();
        assert!(dotdot.reason.contains("'..'"), "{dotdot}");
        assert!(PathGlobSet::new(&[""], "/proj", None).is_err());
        assert!(PathGlobSet::new(&["./"], "/proj", None).is_err());
    }

    #[test]
    fn ignore_case_prefix_folds_ascii_case_only_where_asked() {
        let s = set(&["(?i)**/.env", "(?i)~/.ssh/**", "(?i)**/*.pem", "**/.npmrc"]);
        for (path, want) in [
            ("/proj/.ENV", Some(0)),
            ("/proj/sub/.Env", Some(0)),
            ("/home/u/.SSH/ID_RSA", Some(1)),
            ("/home/u/.ssh/id_rsa", Some(1)),
            ("/proj/CERT.PEM", Some(2)),
            ("/proj/.NPMRC", None),
            ("/proj/.npmrc", Some(3)),
            ("/proj/.envy", None),
        ] {
            assert_eq!(s.matches(path), want, "{path}");
            let patterns = ["(?i)**/.env", "(?i)~/.ssh/**", "(?i)**/*.pem", "**/.npmrc"];
            let one = PathGlobSet::for_path(&patterns, "/proj", Some("/home/u"), path).unwrap();
            assert_eq!(one.matches(path), want, "for_path {path}");
        }
    }

    #[test]
    fn root_at_slash() {
        let globs = PathGlobSet::new(&["etc/*"], "/", None).unwrap();
        assert_eq!(globs.matches("/etc/passwd"), Some(0));
    }
}
