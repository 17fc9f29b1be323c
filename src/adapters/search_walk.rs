//! The files a content search reads.
//!
//! A search tool (Gemini CLI's `grep_search`, Claude Code's `Grep`) opens
//! every file under its directory and returns matching lines: asked with
//! `pattern: PRIVATE` over `.`, Gemini 0.61 printed a `.pem` key that
//! `read_file` had just been refused. Checking only the directory misses
//! that, so the search is put to `pre_file_read` once per file it would
//! open: the directory itself, then each regular file below it that the
//! include glob admits. Symbolic links are not followed (neither tool
//! follows them by default) and `.git` is skipped (neither tool searches
//! it).
//!
//! The walk is bounded. A search over more than [`MAX_ENTRIES`] entries
//! (a home directory, `/`) is refused rather than half-checked: the caller
//! denies it and says to narrow the directory or the include glob.

use globset::{GlobBuilder, GlobMatcher};
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
    let mut out = vec![dir.to_string()];
    let mut stack = vec![root.clone()];
    let mut visited = 0usize;
    while let Some(d) = stack.pop() {
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
            if kind.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
            } else if kind.is_file() {
                let admitted = !filtered
                    || globs.iter().any(|(g, whole)| {
                        if *whole {
                            path.strip_prefix(&root).is_ok_and(|rel| g.is_match(rel))
                        } else {
                            g.is_match(entry.file_name())
                        }
                    });
                if admitted {
                    out.push(path.display().to_string());
                }
            }
        }
    }
    // A stable order: the first denied file is the one named.
    out[1..].sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
