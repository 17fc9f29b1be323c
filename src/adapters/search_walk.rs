//! The files a content search reads.
//!
//! A search tool (Gemini CLI's `grep_search`, Claude Code's `Grep`) opens
//! every file under its directory and returns matching lines: asked with
//! `pattern: PRIVATE` over `.`, Gemini 0.61 printed a `.pem` key that
//! `read_file` had just been refused. Checking only the directory misses
//! that, so the search is put to `pre_file_read` once per file it would
//! open: the directory itself, then each regular file below it that the
//! include glob admits. `.git` is skipped (neither tool searches it). A
//! symbolic link is checked twice, as the link and as what it points to,
//! and a linked directory is walked: a tool that follows links reads the
//! target (a `notes.txt` linked to `~/.ssh/id_rsa` must not pass).
//!
//! The walk is bounded. A search over more than [`MAX_ENTRIES`] entries
//! (a home directory, `/`) is refused rather than half-checked: the caller
//! denies it and says to narrow the directory or the include glob.

use globset::{GlobBuilder, GlobMatcher};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Directory entries visited before the search counts as too wide to check.
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

/// The directory (as given) and every file the search would read, as
/// absolute paths; a relative `dir` is taken from `cwd`.
pub fn files_searched(dir: &str, include: &[String], cwd: &str) -> Result<Vec<String>, TooWide> {
    let rel = dir.strip_prefix("./").unwrap_or(dir);
    let root = if Path::new(dir).is_absolute() {
        PathBuf::from(dir)
    } else if rel.is_empty() || rel == "." {
        PathBuf::from(cwd)
    } else {
        Path::new(cwd).join(rel)
    };
    // Ripgrep-style globs: one without a slash matches the file name.
    let globs: Vec<(GlobMatcher, bool)> = include
        .iter()
        .filter(|g| !g.is_empty())
        .filter_map(|g| {
            let m = GlobBuilder::new(g)
                .literal_separator(true)
                .build()
                .ok()?
                .compile_matcher();
            Some((m, g.contains('/')))
        })
        .collect();
    // A glob that does not compile admits everything: check more, not less.
    let filtered =
        !globs.is_empty() && globs.len() == include.iter().filter(|g| !g.is_empty()).count();
    let admitted = |path: &Path, name: &std::ffi::OsStr| {
        !filtered
            || globs.iter().any(|(g, whole)| {
                if *whole {
                    path.strip_prefix(&root).is_ok_and(|rel| g.is_match(rel))
                } else {
                    g.is_match(name)
                }
            })
    };
    let mut out = vec![dir.to_string()];
    // (directory, reached through a symbolic link)
    let mut stack = vec![(root.clone(), false)];
    let mut walked: HashSet<PathBuf> = HashSet::new();
    let mut visited = 0usize;
    while let Some((d, linked)) = stack.pop() {
        if let Ok(real) = std::fs::canonicalize(&d) {
            if !walked.insert(real) {
                continue; // a link loop, or a directory seen through two links
            }
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            visited += 1;
            if visited > MAX_ENTRIES {
                return Err(TooWide {
                    dir: dir.to_string(),
                });
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let name = entry.file_name();
            if kind.is_dir() {
                if name != ".git" {
                    stack.push((path, linked));
                }
            } else if kind.is_file() {
                if admitted(&path, &name) {
                    out.push(path.display().to_string());
                    if linked {
                        // Also the file itself, wherever the link led.
                        if let Ok(real) = std::fs::canonicalize(&path) {
                            out.push(real.display().to_string());
                        }
                    }
                }
            } else if kind.is_symlink() {
                // A tool that follows links reads what they point to: check
                // the link and its target, and walk a linked directory.
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_dir() => stack.push((path, true)),
                    Ok(m) if m.is_file() && admitted(&path, &name) => {
                        out.push(path.display().to_string());
                        if let Ok(real) = std::fs::canonicalize(&path) {
                            out.push(real.display().to_string());
                        }
                    }
                    _ => {}
                }
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

    #[cfg(unix)]
    #[test]
    fn a_search_reads_the_admitted_files_below_its_directory() {
        let dir = std::env::temp_dir().join(format!("hp-search-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join("server.pem"), "k").unwrap();
        std::fs::write(dir.join("src/main.rs"), "x").unwrap();
        std::fs::write(dir.join(".git/config"), "x").unwrap();
        let root = dir.display().to_string();
        let all = files_searched(".", &[], &root).unwrap();
        assert_eq!(
            all,
            vec![
                ".".to_string(),
                format!("{root}/server.pem"),
                format!("{root}/src/main.rs")
            ]
        );
        let pem = files_searched(&root, &["*.pem".into()], "/").unwrap();
        assert_eq!(pem, vec![root.clone(), format!("{root}/server.pem")]);
        let rs = files_searched(&root, &["src/*.rs".into()], "/").unwrap();
        assert_eq!(rs, vec![root.clone(), format!("{root}/src/main.rs")]);
        // A link into a directory outside: its files are checked where they are.
        let outside = dir.with_extension("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("id_rsa"), "k").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("keys")).unwrap();
        std::os::unix::fs::symlink(outside.join("id_rsa"), dir.join("notes.txt")).unwrap();
        let out = outside.canonicalize().unwrap().display().to_string();
        let all = files_searched(".", &[], &root).unwrap();
        assert!(all.contains(&format!("{root}/keys/id_rsa")), "{all:?}");
        assert!(all.contains(&format!("{root}/notes.txt")), "{all:?}");
        assert!(all.contains(&format!("{out}/id_rsa")), "{all:?}");
        let _ = std::fs::remove_dir_all(&outside);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
