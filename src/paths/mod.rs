//! What a file path really names, for deciding whether an agent may read or
//! write it.
//!
//! Paths are resolved lexically, the way the kernel walks them when no
//! symlinks are involved: relative text is joined to the project root, `.`
//! and `..` are resolved (never above `/`), repeated slashes collapse and a
//! trailing slash goes. Containment is decided per component, so `/proj-evil`
//! is not inside `/proj`. Nothing touches the filesystem, which keeps the
//! guard fast and side-effect free but means symlinks are not followed.
//!
//! Choices for odd spellings (each is also flagged by [`inspect`]):
//! - `~` and `~/x` expand with the given home; without a home they stay a
//!   literal name under the root. `~name/x` is never expanded, since another
//!   user's home cannot be known lexically (rules can deny `tilde_user`).
//! - `\` is an ordinary name character, as on Unix; Windows drive letters
//!   (`C:`) are names too.
//! - A `file:` URL is read as the path it names (percent-decoded, dot
//!   segments resolved), because URI-aware tools open that path.
//! - NUL and control characters are kept, never stripped.
//! - No Unicode normalisation: `.ｅnv` and `.env` are different names, as
//!   they are on disk.

mod file_url;
mod glob;
mod guarded;
mod inspect;
mod lexical;

pub use glob::{GlobSetCache, PathGlobSet, PathPatternError};
pub use guarded::GuardedPaths;
pub use inspect::{inspect, PathInfo};

use lexical::{absolute_without_context, components};

/// The user's home for `~`: `$HOME` when it is an absolute path. Empty or
/// relative, it names no home (rules that need one then fail by their
/// hook's failure mode), rather than a home nobody has: `HOME=` would make
/// `~/.ssh` the root's `/.ssh` and let `/home/me/.ssh` pass a `~/.ssh/**`
/// rule unmatched.
pub fn home_dir() -> Option<String> {
    std::env::var("HOME").ok().filter(|h| h.starts_with('/'))
}

/// Lexical normalisation, no filesystem access: join relative to `root`,
/// expand leading `~` / `~/` with `home`, resolve `.`/`..` (never above
/// `/`), collapse repeated slashes, drop trailing slash. Returns an absolute
/// path string using '/'.
pub fn normalize(raw: &str, root: &str, home: Option<&str>) -> String {
    lexical::normalized(raw, root, home)
}

/// Component-wise containment: `is_within("/proj/a", "/proj")` is true,
/// `is_within("/proj-evil/x", "/proj")` is false, and a directory is within
/// itself. Both sides are normalised lexically first (relative text counts
/// from `/`), so `/proj/../etc` is not within `/proj`.
pub fn is_within(path: &str, dir: &str) -> bool {
    let path = absolute_without_context(path);
    let dir = absolute_without_context(dir);
    let mut path_parts = components(&path);
    let contained = components(&dir).all(|want| path_parts.next() == Some(want));
    contained
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment_is_by_component() {
        assert!(is_within("/proj/a", "/proj"));
        assert!(is_within("/proj", "/proj"));
        assert!(is_within("/proj/", "/proj//"));
        assert!(is_within("/anything", "/"));
        assert!(!is_within("/proj-evil/x", "/proj"));
        assert!(!is_within("/pro", "/proj"));
        assert!(!is_within("/proj/../etc", "/proj"));
        assert!(!is_within("/", "/proj"));
    }

    #[test]
    fn normalize_basics() {
        assert_eq!(
            normalize("src/../../etc/passwd", "/proj", None),
            "/etc/passwd"
        );
        assert_eq!(normalize("//etc//passwd", "/proj", None), "/etc/passwd");
        assert_eq!(normalize("", "/proj/", None), "/proj");
        assert_eq!(
            normalize("a/b/", "relative-root", None),
            "/relative-root/a/b"
        );
        assert_eq!(normalize(".../x", "/proj", None), "/proj/.../x");
    }
}
