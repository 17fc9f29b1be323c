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

use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};

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
        let mut absolute = (GlobSetBuilder::new(), Vec::new());
        let mut relative = (GlobSetBuilder::new(), Vec::new());
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
            for (target, text) in expand_pattern(body, home).map_err(fail)? {
                let glob = GlobBuilder::new(&text)
                    .literal_separator(true)
                    .case_insensitive(ignore_case)
                    .build()
                    .map_err(|e| fail(e.kind().to_string()))?;
                let (builder, owners) = match target {
                    Target::Absolute => &mut absolute,
                    Target::Relative => &mut relative,
                };
                builder.add(glob);
                owners.push(index);
            }
        }
        let build = |builder: GlobSetBuilder| {
            builder.build().map_err(|e| PathPatternError {
                index: 0,
                pattern: String::new(),
                reason: format!("pattern set could not be compiled: {e}"),
            })
        };
        Ok(PathGlobSet {
            root: absolute_without_context(root),
            home: home.map(absolute_without_context),
            absolute: build(absolute.0)?,
            absolute_owner: absolute.1,
            relative: build(relative.0)?,
            relative_owner: relative.1,
        })
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
        if self.root == "/" {
            return Some(&path[1..]);
        }
        let rest = path.strip_prefix(self.root.as_str())?;
        if rest.is_empty() {
            Some(rest)
        } else {
            rest.strip_prefix('/')
        }
    }
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

/// Turn one user pattern into the globs that implement it.
fn expand_pattern(pattern: &str, home: Option<&str>) -> Result<Vec<(Target, String)>, String> {
    if pattern.is_empty() {
        return Err("empty pattern".to_string());
    }
    let (anchored, body) = if let Some(after) = pattern.strip_prefix('~') {
        let (name, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
        if !name.is_empty() {
            return Err(format!(
                "'~{name}' (another user's home) is not expanded; write the absolute path"
            ));
        }
        let home = home.ok_or("pattern starts with '~' but no home directory was given")?;
        (true, format!("{}{rest}", absolute_without_context(home)))
    } else {
        (pattern.starts_with('/'), pattern.to_string())
    };

    let directory = body.ends_with('/');
    let mut parts = Vec::new();
    for part in body.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(
                    "'..' cannot match: paths are normalised before matching, so write the path it means"
                        .to_string(),
                )
            }
            name => parts.push(name),
        }
    }
    let joined = parts.join("/");
    let text = if anchored {
        format!("/{joined}")
    } else if joined.is_empty() {
        return Err("pattern names no path (only '.' and '/')".to_string());
    } else {
        joined
    };

    let mut texts = vec![text.clone()];
    if directory {
        let sep = if text.ends_with('/') { "" } else { "/" };
        texts.push(format!("{text}{sep}**"));
    }
    let mut globs = Vec::new();
    for text in texts {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        }
    }

    #[test]
    fn root_at_slash() {
        let globs = PathGlobSet::new(&["etc/*"], "/", None).unwrap();
        assert_eq!(globs.matches("/etc/passwd"), Some(0));
    }
}
