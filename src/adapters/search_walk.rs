//! The files a content search reads.
//!
//! A search tool (Gemini CLI's `grep_search`, Claude Code's `Grep`) opens
//! the files under its directory and returns matching lines: asked with
//! `pattern: PRIVATE` over `.`, Gemini 0.61 printed a `.pem` key that
//! `read_file` had just been refused. Checking only the directory misses
//! that, so the search is put to `pre_file_read` once per file it would
//! open: the directory itself, then each file below it that the tool
//! would read.
//!
//! "Would read" is the tool's own selection, no less, because a guard that
//! checks files the tool skips denies routine work (`Grep` over a project
//! whose `node_modules/` or `target/` holds 20,000 files, or whose
//! gitignored `.env` the tool never opens) and gets uninstalled. Both tools
//! run ripgrep, so the walk is ripgrep's own walker (the `ignore` crate)
//! given the flags each tool passes, from their sources:
//!
//! - Claude Code `Grep` (GrepTool.ts): `rg --hidden`, `--glob '!D'` for the
//!   VCS directories `.git .svn .hg .bzr .jj .sl`, the call's `glob` split
//!   on whitespace and, outside braces, commas (one `--glob` each), and
//!   `--type` for `type`. No `--no-ignore` and no `-L`: hidden files are
//!   read; `.gitignore` (inside a git repository only, ripgrep's default),
//!   `.ignore`, `.rgignore`, `.git/info/exclude` and the global excludes
//!   file are honoured; a `--glob` that names an ignored file reads it
//!   (ripgrep's globs override every other ignore rule).
//! - Gemini CLI `grep_search` (packages/core/src/tools/ripGrep.ts, the
//!   default while `tools.useRipgrep` is on and ripgrep is found): `rg`
//!   without `--hidden`, `--glob` for `include_pattern`, and, unless the
//!   call says `no_ignore: true` (`--no-ignore`), `--glob '!P'` for
//!   `node_modules`, `.git`, `bower_components`, `.svn`, `.hg` and a few
//!   build directories. Without ripgrep Gemini falls back (grep.ts) to
//!   `git grep --untracked` in a git repository, else `grep -r`: both read
//!   hidden files, neither reads `.ignore`. The hook cannot tell which one
//!   runs, so it takes what both would read: hidden files, only the git
//!   ignore files, and leaves out only the directories that ripgrep and
//!   `grep -r` both skip (`node_modules .git bower_components .svn .hg`).
//!   Two cases need ripgrep missing or switched off and are not checked,
//!   because telling needs the git index and a hook does not run git:
//!   `git grep` reads a tracked file that `.gitignore` names, and an
//!   untracked `node_modules/` (or the other four) that `.gitignore` does
//!   not name.
//!   Gemini's `context.fileFiltering.respectGitIgnore: false` adds
//!   `--no-ignore-vcs`: a settings file that mentions the key at all makes
//!   the walk ignore `.gitignore` too.
//! - Gemini CLI `read_many_files` (read-many-files.ts): `glob` with
//!   `dot: true` and `nocase: true` (hidden files, case-insensitive
//!   patterns) minus the default excludes (unless `useDefaultExcludes:
//!   false`), then the `.gitignore` filter (unless
//!   `file_filtering_options.respect_git_ignore: false`).
//!
//! A symbolic link is checked twice, as the link and as what it points to,
//! and a linked directory is walked, although neither tool follows links
//! by default: a guard should not depend on that (a `notes.txt` linked to
//! `~/.ssh/id_rsa` must not pass). A directory named explicitly is walked
//! whatever the ignore rules say of it, as ripgrep searches a path it is
//! given.
//!
//! The walk is bounded. A search over more than [`MAX_ENTRIES`] entries
//! left after the ignore rules (a home directory, `/`, a project whose
//! build output is not ignored) is refused rather than half-checked: the
//! caller denies it and says to narrow the directory or the glob.

use globset::{GlobBuilder, GlobMatcher};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::WalkBuilder;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// Entries left after the ignore rules before a search counts as too wide
/// to check.
pub const MAX_ENTRIES: usize = 20_000;

/// Why a search cannot be checked.
#[derive(Debug, Clone, PartialEq)]
pub struct TooWide {
    pub dir: String,
}

impl std::fmt::Display for TooWide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the search under {} covers more than {MAX_ENTRIES} files, too many to check against the read rules; search a narrower directory or pass an include glob",
            self.dir
        )
    }
}

/// Which ignore files a tool honours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IgnoreFiles {
    /// None (`rg --no-ignore`).
    None,
    /// `.gitignore`, `.git/info/exclude` and git's global excludes file,
    /// inside a git repository.
    Git,
    /// Ripgrep's default: the git files, plus `.ignore` and `.rgignore`.
    Ripgrep,
}

/// How a search tool chooses the files it reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Reads hidden files and directories.
    pub hidden: bool,
    pub ignore_files: IgnoreFiles,
    /// `rg --glob` values in the order the tool passes them: a plain glob
    /// admits only what it matches and overrides the ignore files, a `!`
    /// glob leaves out what it matches.
    pub rg_globs: Vec<String>,
    /// `rg --type` names (ripgrep's built-in definitions).
    pub rg_types: Vec<String>,
    /// Patterns a file must match after the walk (`read_many_files`'s
    /// `include`, matched ignoring case); empty admits every file.
    pub include: Vec<String>,
}

/// The directories every Gemini search strategy leaves out.
const GEMINI_CORE_EXCLUDES: &[&str] = &[
    "!**/node_modules/**",
    "!**/.git/**",
    "!**/bower_components/**",
    "!**/.svn/**",
    "!**/.hg/**",
];

/// Claude Code's `VCS_DIRECTORIES_TO_EXCLUDE`.
const CLAUDE_VCS_EXCLUDES: &[&str] = &["!.git", "!.svn", "!.hg", "!.bzr", "!.jj", "!.sl"];

fn arg_str<'a>(args: &'a Json, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Json::as_str)
        .filter(|s| !s.is_empty())
}

/// Claude Code `Grep`'s selection for a call's arguments.
pub fn claude_grep(args: &Json) -> Selection {
    let mut rg_globs: Vec<String> = CLAUDE_VCS_EXCLUDES.iter().map(|g| g.to_string()).collect();
    if let Some(glob) = arg_str(args, "glob") {
        for word in glob.split_whitespace() {
            if word.contains('{') && word.contains('}') {
                rg_globs.push(word.to_string());
            } else {
                rg_globs.extend(word.split(',').filter(|g| !g.is_empty()).map(String::from));
            }
        }
    }
    Selection {
        hidden: true,
        ignore_files: IgnoreFiles::Ripgrep,
        rg_globs,
        rg_types: arg_str(args, "type")
            .map(String::from)
            .into_iter()
            .collect(),
        include: Vec::new(),
    }
}

/// Whether a Gemini settings file may switch the `.gitignore` filter off
/// (`context.fileFiltering.respectGitIgnore`): any mention counts, so a
/// value the hook misreads errs towards checking more.
fn gemini_may_skip_gitignore(cwd: &str) -> bool {
    let mut files = vec![Path::new(cwd).join(".gemini/settings.json")];
    if let Some(home) = std::env::var_os("HOME") {
        files.push(Path::new(&home).join(".gemini/settings.json"));
    }
    files.push(
        std::env::var_os("GEMINI_CLI_SYSTEM_SETTINGS_PATH").map_or_else(
            || PathBuf::from("/etc/gemini-cli/settings.json"),
            PathBuf::from,
        ),
    );
    files
        .iter()
        .any(|f| std::fs::read_to_string(f).is_ok_and(|text| text.contains("respectGitIgnore")))
}

/// Gemini CLI `grep_search`'s selection (ripgrep and its fallbacks).
pub fn gemini_grep(args: &Json, cwd: &str) -> Selection {
    let no_ignore = args.get("no_ignore").and_then(Json::as_bool) == Some(true);
    let mut rg_globs: Vec<String> = arg_str(args, "include_pattern")
        .or_else(|| arg_str(args, "include"))
        .map(String::from)
        .into_iter()
        .collect();
    if no_ignore {
        // `rg --no-ignore` still skips hidden `.git`; the fallbacks skip it.
        rg_globs.push("!**/.git/**".into());
    } else {
        rg_globs.extend(GEMINI_CORE_EXCLUDES.iter().map(|g| g.to_string()));
    }
    Selection {
        hidden: true,
        ignore_files: if no_ignore || gemini_may_skip_gitignore(cwd) {
            IgnoreFiles::None
        } else {
            IgnoreFiles::Git
        },
        rg_globs,
        rg_types: Vec::new(),
        include: Vec::new(),
    }
}

/// Gemini CLI `read_many_files`'s selection for its glob patterns.
pub fn gemini_read_many(args: &Json, globs: Vec<String>, cwd: &str) -> Selection {
    let defaults = args.get("useDefaultExcludes").and_then(Json::as_bool) != Some(false);
    let gitignore = args
        .pointer("/file_filtering_options/respect_git_ignore")
        .and_then(Json::as_bool)
        != Some(false);
    Selection {
        hidden: true,
        ignore_files: if gitignore && !gemini_may_skip_gitignore(cwd) {
            IgnoreFiles::Git
        } else {
            IgnoreFiles::None
        },
        rg_globs: if defaults {
            GEMINI_CORE_EXCLUDES.iter().map(|g| g.to_string()).collect()
        } else {
            Vec::new()
        },
        rg_types: Vec::new(),
        include: globs,
    }
}

/// Cline's searches, from its source. Cline 3's `search_files`
/// (src/services/ripgrep/index.ts) runs `rg -e REGEX --glob PATTERN DIR`
/// with `*` for a missing pattern: a `--glob` overrides every ignore rule,
/// so hidden and ignored files are read (`.git` too). Cline 4's
/// `search_codebase` (sdk executors/search.ts) runs `rg -i QUERY` in the
/// workspace: ripgrep's defaults, no hidden files, the ignore files
/// honoured. Without ripgrep Cline 4 walks its own file index instead,
/// which a hook cannot see.
pub fn cline_search(tool: &str, args: &Json) -> Selection {
    let rg_globs = match tool {
        "search_codebase" => Vec::new(),
        _ => vec![arg_str(args, "file_pattern").unwrap_or("*").to_string()],
    };
    Selection {
        hidden: false,
        ignore_files: IgnoreFiles::Ripgrep,
        rg_globs,
        rg_types: Vec::new(),
        include: Vec::new(),
    }
}

/// A selection that reads every file but `.git` (a tool whose rules are
/// not known), the include globs admitting files after the walk.
pub fn everything(include: Vec<String>) -> Selection {
    Selection {
        hidden: true,
        ignore_files: IgnoreFiles::None,
        rg_globs: vec!["!**/.git/**".into()],
        rg_types: Vec::new(),
        include,
    }
}

/// `dir` as a path: relative to `cwd`, `~` from `HOME`.
fn resolve(dir: &str, cwd: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    if dir == "~" {
        if let Some(h) = home() {
            return h;
        }
    }
    if let Some(rest) = dir.strip_prefix("~/") {
        if let Some(h) = home() {
            return h.join(rest);
        }
    }
    let rel = dir.strip_prefix("./").unwrap_or(dir);
    if Path::new(dir).is_absolute() {
        PathBuf::from(dir)
    } else if rel.is_empty() || rel == "." {
        PathBuf::from(cwd)
    } else {
        Path::new(cwd).join(rel)
    }
}

/// The directory (as given) and every file the search would read, as
/// absolute paths; a relative `dir` is taken from `cwd`.
pub fn files_searched(dir: &str, sel: &Selection, cwd: &str) -> Result<Vec<String>, TooWide> {
    let root = resolve(dir, cwd);
    let mut walk = WalkBuilder::new(&root);
    let ignores = sel.ignore_files != IgnoreFiles::None;
    walk.hidden(!sel.hidden)
        .git_ignore(ignores)
        .git_exclude(ignores)
        .git_global(ignores)
        .parents(ignores)
        .ignore(sel.ignore_files == IgnoreFiles::Ripgrep)
        .require_git(true)
        // Links are walked and checked as what they point to (module docs).
        .follow_links(true);
    if sel.ignore_files == IgnoreFiles::Ripgrep {
        walk.add_custom_ignore_filename(".rgignore");
    }
    // Ripgrep roots its globs at its working directory. A glob it cannot
    // compile stops it before it reads anything: then the walk goes on
    // without globs, checking more rather than less.
    if !sel.rg_globs.is_empty() {
        let mut globs = OverrideBuilder::new(cwd);
        let built = sel
            .rg_globs
            .iter()
            .try_for_each(|g| globs.add(g).map(|_| ()))
            .and_then(|()| globs.build());
        if let Ok(globs) = built {
            walk.overrides(globs);
        }
    }
    if !sel.rg_types.is_empty() {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        for t in &sel.rg_types {
            types.select(t);
        }
        // An unknown type name stops ripgrep too.
        if let Ok(types) = types.build() {
            walk.types(types);
        }
    }
    // `read_many_files` patterns: a pattern without a slash matches the
    // file name, as ripgrep's do; case is ignored (`nocase: true`).
    let include: Vec<(GlobMatcher, bool)> = sel
        .include
        .iter()
        .filter(|g| !g.is_empty())
        .filter_map(|g| {
            let m = GlobBuilder::new(g)
                .literal_separator(true)
                .case_insensitive(true)
                .build()
                .ok()?
                .compile_matcher();
            Some((m, g.contains('/')))
        })
        .collect();
    // A pattern that does not compile admits everything: check more.
    let filtered = !include.is_empty()
        && include.len() == sel.include.iter().filter(|g| !g.is_empty()).count();
    let admitted = |path: &Path| {
        !filtered
            || include.iter().any(|(g, whole)| {
                if *whole {
                    path.strip_prefix(&root).is_ok_and(|rel| g.is_match(rel))
                } else {
                    path.file_name().is_some_and(|n| g.is_match(n))
                }
            })
    };

    let mut out = vec![dir.to_string()];
    // Directories reached through a link: what is below them is also
    // checked where it really is.
    let mut linked: Vec<PathBuf> = Vec::new();
    let mut visited = 0usize;
    for entry in walk.build() {
        // Unreadable directories and link loops: nothing to read there.
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            // The path the call named: already checked as given; a link
            // is also checked where it leads (a linked directory's files
            // below, as they are walked).
            if std::fs::symlink_metadata(&root).is_ok_and(|m| m.file_type().is_symlink()) {
                if root.is_dir() {
                    linked.push(root.clone());
                } else if let Ok(real) = std::fs::canonicalize(&root) {
                    out.push(real.display().to_string());
                }
            }
            continue;
        }
        visited += 1;
        if visited > MAX_ENTRIES {
            return Err(TooWide {
                dir: dir.to_string(),
            });
        }
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if entry.path_is_symlink() {
                linked.push(path.to_path_buf());
            }
            continue;
        }
        if !kind.is_file() || !admitted(path) {
            continue;
        }
        out.push(path.display().to_string());
        if entry.path_is_symlink() || linked.iter().any(|l| path.starts_with(l)) {
            if let Ok(real) = std::fs::canonicalize(path) {
                out.push(real.display().to_string());
            }
        }
    }
    // A stable order: the first denied file is the one named.
    out[1..].sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tree(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hp-search-walk-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::create_dir_all(dir.join("node_modules/pkg")).unwrap();
        std::fs::write(dir.join(".git/config"), "x").unwrap();
        std::fs::write(dir.join(".gitignore"), "node_modules/\n.env\n").unwrap();
        std::fs::write(dir.join(".env"), "k").unwrap();
        std::fs::write(dir.join(".npmrc"), "token").unwrap();
        std::fs::write(dir.join("server.pem"), "k").unwrap();
        std::fs::write(dir.join("src/main.rs"), "x").unwrap();
        std::fs::write(dir.join("node_modules/pkg/index.js"), "x").unwrap();
        dir
    }

    fn names(files: &[String], root: &Path) -> Vec<String> {
        let root = format!("{}/", root.display());
        files[1..]
            .iter()
            .map(|f| f.strip_prefix(&root).unwrap_or(f).to_string())
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn each_tool_reads_what_its_ripgrep_flags_select() {
        let dir = tree("tools");
        let root = dir.display().to_string();
        // Claude Code: hidden files yes, gitignored and VCS no.
        let claude = files_searched(".", &claude_grep(&json!({})), &root).unwrap();
        assert_eq!(claude[0], ".");
        assert_eq!(
            names(&claude, &dir),
            [".gitignore", ".npmrc", "server.pem", "src/main.rs"]
        );
        // A glob naming an ignored file reads it (ripgrep's globs win).
        let env = files_searched(".", &claude_grep(&json!({"glob": ".env"})), &root).unwrap();
        assert_eq!(names(&env, &dir), [".env"]);
        let rs = files_searched(".", &claude_grep(&json!({"type": "rust"})), &root).unwrap();
        assert_eq!(names(&rs, &dir), ["src/main.rs"]);
        let two = claude_grep(&json!({"glob": "*.pem,src/*.rs"}));
        let two = files_searched(".", &two, &root).unwrap();
        assert_eq!(names(&two, &dir), ["server.pem", "src/main.rs"]);
        // Gemini: no_ignore reads the ignored files.
        let gem = files_searched(".", &gemini_grep(&json!({}), &root), &root).unwrap();
        assert_eq!(
            names(&gem, &dir),
            [".gitignore", ".npmrc", "server.pem", "src/main.rs"]
        );
        let all = gemini_grep(&json!({"no_ignore": true}), &root);
        let all = files_searched(".", &all, &root).unwrap();
        assert_eq!(
            names(&all, &dir),
            [
                ".env",
                ".gitignore",
                ".npmrc",
                "node_modules/pkg/index.js",
                "server.pem",
                "src/main.rs"
            ]
        );
        // read_many_files: patterns ignore case.
        let many = gemini_read_many(&json!({}), vec!["*.PEM".into()], &root);
        let many = files_searched(".", &many, &root).unwrap();
        assert_eq!(names(&many, &dir), ["server.pem"]);
        // Outside a git repository .gitignore is not honoured (ripgrep's rule).
        std::fs::remove_dir_all(dir.join(".git")).unwrap();
        let claude = files_searched(".", &claude_grep(&json!({})), &root).unwrap();
        assert!(names(&claude, &dir).contains(&".env".to_string()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn links_are_checked_where_they_point() {
        let dir = tree("links");
        let root = dir.display().to_string();
        let outside = dir.with_extension("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("id_rsa"), "k").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("keys")).unwrap();
        std::os::unix::fs::symlink(outside.join("id_rsa"), dir.join("notes.txt")).unwrap();
        let out = outside.canonicalize().unwrap().display().to_string();
        let all = files_searched(".", &claude_grep(&json!({})), &root).unwrap();
        assert!(all.contains(&format!("{root}/keys/id_rsa")), "{all:?}");
        assert!(all.contains(&format!("{root}/notes.txt")), "{all:?}");
        assert!(all.contains(&format!("{out}/id_rsa")), "{all:?}");
        // Named directly, a link is checked as what it points to.
        let named = files_searched("notes.txt", &claude_grep(&json!({})), &root).unwrap();
        assert_eq!(named, ["notes.txt".to_string(), format!("{out}/id_rsa")]);
        let named = files_searched("keys", &claude_grep(&json!({})), &root).unwrap();
        assert_eq!(
            named,
            [
                "keys".to_string(),
                format!("{out}/id_rsa"),
                format!("{root}/keys/id_rsa")
            ]
        );
        let _ = std::fs::remove_dir_all(&outside);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
