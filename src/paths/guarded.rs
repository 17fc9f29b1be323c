//! Paths a command must not change, and whether a write touches them.
//!
//! A write reaches a guarded file not only by naming it: deleting or
//! moving a directory that holds it (`rm -rf ~/.claude`, `mv .github x`),
//! linking to it or to such a directory (`ln -s ~ h`, then writing through
//! `h`), copying into the directory that holds it (`cp evil.json
//! ~/.claude`), or a glob that matches it (`rm ~/.cl*/s*`) all do. The
//! check takes a written path (lexically normalised, see
//! `shell::targets::resolve`) and what kind of write it is:
//!
//! - a path acted on as a whole (deleted, moved, linked, written): it
//!   touches a guarded path if a glob matches it, or if it is a directory
//!   holding a guarded pattern's literal part (`~/.claude` holds
//!   `~/.claude/settings.json`);
//! - a directory whose contents are acted on (find's starting point, a
//!   copy or extraction destination): it touches a guarded path if it lies
//!   inside one, or is the directory that holds a guarded file;
//! - a pattern in a directory: its components are matched against the
//!   guarded path's with bash's rules (a leading dot is only matched by a
//!   pattern that writes it, unless the line sets `dotglob`).
//!
//! Everything is compared in ASCII lower case: on macOS and Windows
//! `~/.Claude/Settings.json` is the same file. Patterns starting with `**/`
//! match at any depth but have no literal part, so they never make a
//! directory a holder (`**/x` would make every directory one).

use super::{normalize, PathGlobSet, PathPatternError};

/// Guarded path globs, compiled for one project root and home.
#[derive(Debug, Clone)]
pub struct GuardedPaths {
    set: PathGlobSet,
    /// The literal part of each pattern (absolute, lower case), and whether
    /// it is a whole file name (no glob in the pattern).
    prefixes: Vec<(String, bool)>,
}

impl GuardedPaths {
    pub fn new(
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
    ) -> Result<GuardedPaths, PathPatternError> {
        let lower: Vec<String> = patterns.iter().map(|p| p.to_ascii_lowercase()).collect();
        let lower_refs: Vec<&str> = lower.iter().map(String::as_str).collect();
        let root = root.to_ascii_lowercase();
        let home = home.map(str::to_ascii_lowercase);
        let set = PathGlobSet::new(&lower_refs, &root, home.as_deref())?;
        let prefixes = lower
            .iter()
            .filter(|p| !p.starts_with("**"))
            .filter_map(|p| {
                let literal_end = p.find(['*', '?', '[', '{']).unwrap_or(p.len());
                let literal = &p[..literal_end];
                let literal = match literal.rfind('/') {
                    Some(_) if literal_end < p.len() => &literal[..literal.rfind('/')?],
                    _ => literal,
                };
                if literal.is_empty() || literal.starts_with('~') && home.is_none() {
                    return None;
                }
                let whole_file = literal_end == p.len() && !p.ends_with('/');
                Some((normalize(literal, &root, home.as_deref()), whole_file))
            })
            .collect();
        Ok(GuardedPaths { set, prefixes })
    }

    /// Whether writing `path` touches a guarded path. `contents`: the write
    /// changes what lies inside the directory `path`; `rest`: for a
    /// pattern, what follows the directory `path` (empty otherwise).
    pub fn touches(&self, path: &str, contents: bool, rest: &str, dotglob: bool) -> bool {
        let path = path.to_ascii_lowercase();
        if rest.is_empty() {
            if self.set.matches(&path).is_some() {
                return true;
            }
            return self.prefixes.iter().any(|(guarded, whole_file)| {
                if contents {
                    is_within(&path, guarded) || (*whole_file && parent(guarded) == path)
                } else {
                    is_within(guarded, &path)
                }
            });
        }
        let rest = rest.to_ascii_lowercase();
        let pattern: Vec<&str> = rest.split('/').filter(|c| !c.is_empty()).collect();
        self.prefixes.iter().any(|(guarded, _)| {
            if is_within(&path, guarded) {
                return true;
            }
            if !is_within(guarded, &path) {
                return false;
            }
            let below = guarded[path.len()..].trim_start_matches('/');
            below
                .split('/')
                .filter(|c| !c.is_empty())
                .zip(&pattern)
                .all(|(name, glob)| component_matches(glob, name, dotglob))
        })
    }
}

/// Containment of two normalised absolute paths by whole components,
/// without normalising them again (this runs for every written path).
fn is_within(path: &str, dir: &str) -> bool {
    dir == "/"
        || path == dir
        || path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// The directory holding `path` (`/` for a top-level name).
fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(at) => &path[..at],
    }
}

/// One pattern component against one name, as bash globs it.
fn component_matches(glob: &str, name: &str, dotglob: bool) -> bool {
    if name.starts_with('.') && !glob.starts_with('.') && !dotglob {
        return false;
    }
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(name))
        // A pattern that does not compile may still match: assume it does.
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> GuardedPaths {
        GuardedPaths::new(
            &[
                "~/.claude/settings.json",
                ".claude/settings.json",
                ".github/hooks/*.json",
                "~/.local/share/hook-policy/**",
                "**/.cursor/hooks.json",
            ],
            "/home/u/proj",
            Some("/home/u"),
        )
        .expect("valid globs")
    }

    #[test]
    fn a_guarded_file_its_holders_and_case_variants_are_touched() {
        let g = guard();
        for path in [
            "/home/u/.claude/settings.json",
            "/home/u/.CLAUDE/Settings.JSON",
            "/home/u/.claude",
            "/home/u",
            "/",
            "/home/u/proj/.claude",
            "/home/u/proj/.github/hooks/hook-policy.json",
            "/home/u/proj/.github",
            "/home/u/.local/share/hook-policy/policy",
            "/home/u/.local/share/hook-policy",
            "/home/u/other/.cursor/hooks.json",
        ] {
            assert!(g.touches(path, false, "", false), "{path}");
        }
        for path in [
            "/home/u/.claude/projects",
            "/home/u/proj/src",
            "/home/u/proj/.github/workflows/ci.yml",
            "/home/u/.local/share/other",
            "/home/u/other/.cursor",
            "/tmp/x",
        ] {
            assert!(!g.touches(path, false, "", false), "{path}");
        }
    }

    #[test]
    fn contents_touch_only_the_directory_holding_a_guarded_file() {
        let g = guard();
        assert!(g.touches("/home/u/.claude", true, "", false));
        assert!(g.touches("/home/u/.local/share/hook-policy", true, "", false));
        assert!(g.touches("/home/u/.local/share/hook-policy/x", true, "", false));
        assert!(!g.touches("/home/u/proj", true, "", false));
        assert!(!g.touches("/home/u", true, "", false));
    }

    #[test]
    fn patterns_match_the_names_below_their_directory() {
        let g = guard();
        assert!(g.touches("/home/u", true, ".cl*/s*", false));
        assert!(g.touches("/home/u", true, ".c*", false));
        // `~/*` leaves `~/.claude` alone, but holds the project and its `.claude`.
        assert!(g.touches("/home/u", true, "*", false));
        assert!(!g.touches("/home/u/proj", true, "*", false));
        assert!(g.touches("/home/u/proj", true, "*", true));
        assert!(g.touches("/home/u/.claude", true, "*.json", false));
        assert!(!g.touches("/home/u/.claude", true, "*.md", false));
        assert!(!g.touches("/home/u/proj", true, "*.o", false));
    }
}
