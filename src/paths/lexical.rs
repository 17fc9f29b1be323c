//! Lexical path resolution: the one walk over components that both
//! [`super::normalize`] and [`super::inspect`] rely on.
//!
//! Nothing here touches the filesystem, so symlinks are not followed: a
//! symlink inside the root that points outside it is invisible to this
//! module (see `docs/url-path-notes.md`). The walk records every oddity it
//! meets so that [`super::inspect`] can report them without a second parse.

use super::file_url::{file_url_path, FileUrlPath};

/// How a leading `~` was handled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Tilde {
    #[default]
    None,
    /// `~` or `~/...` replaced by the home directory.
    Expanded,
    /// `~` or `~/...` kept as a literal name because no home was given.
    NoHome,
    /// `~name/...`: kept literal; another user's home is not looked up.
    OtherUser(String),
}

/// The result of resolving one raw path against a root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Resolution {
    pub normalized: String,
    pub root: String,
    pub was_relative: bool,
    pub had_dot: bool,
    pub had_dotdot: bool,
    /// A `..` at `/` was dropped (`/../etc` is `/etc`).
    pub above_filesystem_root: bool,
    /// A `..` moved the path from inside the root to outside it, even if a
    /// later component came back in (`../proj/x` with root `/proj`).
    pub left_root_via_dotdot: bool,
    pub repeated_slashes: bool,
    pub trailing_slash: bool,
    pub tilde: Tilde,
    pub file_url: Option<FileUrlPath>,
}

/// `raw` with `/` for every `\`: Git Bash, PowerShell and cmd open
/// `config\.env`, `C:\Users\u\.ssh` and `~\.ssh` by either separator, so
/// the rules about `.env` and `~/.ssh` must see them. On Linux a name with a
/// backslash is then checked as the path it spells, which can only refuse
/// more (see docs/url-path-notes.md).
fn windows_spelling(raw: &str) -> Option<String> {
    raw.contains('\\').then(|| raw.replace('\\', "/"))
}

/// Resolve `raw` against `root` (and `home` for a leading `~`).
pub(crate) fn resolve(raw: &str, root: &str, home: Option<&str>) -> Resolution {
    if let Some(slashed) = windows_spelling(raw) {
        return resolve(&slashed, root, home);
    }
    let root_path = absolute_without_context(root);
    let root_parts: Vec<&str> = components(&root_path).collect();
    let mut res = Resolution {
        root: root_path.clone(),
        ..Resolution::default()
    };

    res.file_url = file_url_path(raw);
    let after_url: &str = res.file_url.as_ref().map_or(raw, |url| url.path.as_str());
    let (expanded, tilde) = expand_tilde(after_url, home);
    res.tilde = tilde;
    let text: &str = expanded.as_deref().unwrap_or(after_url);

    res.repeated_slashes = after_url.contains("//");
    res.trailing_slash = after_url.len() > 1 && after_url.ends_with('/');
    res.was_relative = !text.starts_with('/');

    let mut stack: Vec<&str> = if res.was_relative {
        root_parts.clone()
    } else {
        Vec::new()
    };
    for part in text.split('/') {
        match part {
            "" => {}
            "." => res.had_dot = true,
            ".." => {
                res.had_dotdot = true;
                let inside_before = starts_with_parts(&stack, &root_parts);
                if stack.pop().is_none() {
                    res.above_filesystem_root = true;
                }
                if inside_before && !starts_with_parts(&stack, &root_parts) {
                    res.left_root_via_dotdot = true;
                }
            }
            name => stack.push(name),
        }
    }
    res.normalized = join_absolute(&stack);
    res
}

/// `resolve(raw, root, home).normalized`, without the record of oddities:
/// what [`super::normalize`] returns. Hook decisions normalise the
/// arguments of shell commands several times per rule (`normalizedPath`,
/// the targets of `rm`), and the whole resolution (the root and its
/// components copied, the flags) was most of that cost. The walk is the
/// same one: the root's components (when `raw` is relative after `~`
/// expansion), then `raw`'s, where `..` drops the last one (never above
/// `/`) and empty and `.` components are skipped. A `file:` URL, which
/// needs decoding, takes [`resolve`] itself.
pub(crate) fn normalized(raw: &str, root: &str, home: Option<&str>) -> String {
    if let Some(slashed) = windows_spelling(raw) {
        return normalized(&slashed, root, home);
    }
    // A root or home with a backslash: the walk that reads them with `/`.
    if root.contains('\\') || home.is_some_and(|h| h.contains('\\')) {
        return resolve(raw, root, home).normalized;
    }
    if raw
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("file:"))
    {
        return resolve(raw, root, home).normalized;
    }
    // `~` and `~/...` with a home: the home's components, then the rest's
    // (what walking the expanded text gives, without building it).
    let (start, text) = match tilde_home(raw, home) {
        Some((home, rest)) => (Some(home), rest),
        None if raw.starts_with('/') => (None, raw),
        None => (Some(root), raw),
    };
    let mut out = String::with_capacity(text.len() + start.map_or(1, |s| s.len() + 1));
    if let Some(start) = start {
        push_components(&mut out, start);
    }
    push_components(&mut out, text);
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Appends `path`'s components to `out` (`/name` each), resolving `.` and
/// `..` as [`resolve`]'s walk does.
fn push_components(out: &mut String, path: &str) {
    for part in path.split('/') {
        match part {
            "" | "." => {}
            // Every component is `/name` with no `/` in the name: the last
            // `/` starts the last component; none left, nothing to drop.
            ".." => out.truncate(out.rfind('/').unwrap_or(0)),
            name => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
}

/// Normalise a path that has no root or home to lean on (a root, a home, or
/// an argument of `is_within`): relative text is taken from `/`.
pub(crate) fn absolute_without_context(path: &str) -> String {
    if let Some(slashed) = windows_spelling(path) {
        return absolute_without_context(&slashed);
    }
    let mut stack: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                stack.pop();
            }
            name => stack.push(name),
        }
    }
    join_absolute(&stack)
}

/// Whether `path` is already in the form [`resolve`] produces: absolute, no
/// empty, `.` or `..` components, no trailing slash except for `/` itself.
pub(crate) fn is_normalized(path: &str) -> bool {
    // A backslash is a separator still to be read as `/`.
    if path.contains('\\') {
        return false;
    }
    if path == "/" {
        return true;
    }
    path.strip_prefix('/')
        .is_some_and(|rest| rest.split('/').all(|part| !matches!(part, "" | "." | "..")))
}

/// The non-empty components of an absolute normalised path.
pub(crate) fn components(normalized: &str) -> impl Iterator<Item = &str> {
    normalized.split('/').filter(|part| !part.is_empty())
}

fn starts_with_parts(path: &[&str], prefix: &[&str]) -> bool {
    path.len() >= prefix.len() && path[..prefix.len()] == *prefix
}

fn join_absolute(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum::<usize>().max(1));
    for part in parts {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// The home and the rest of `text` (empty or from a `/`) when `text` is
/// `~` or starts with `~/` and there is a home: when [`expand_tilde`]
/// replaces the `~`.
fn tilde_home<'a>(text: &'a str, home: Option<&'a str>) -> Option<(&'a str, &'a str)> {
    let rest = text.strip_prefix('~')?;
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    Some((home?, rest))
}

/// Replace a leading `~` or `~/` with `home`. Returns the new text when it
/// changed, and what kind of tilde was seen.
fn expand_tilde(text: &str, home: Option<&str>) -> (Option<String>, Tilde) {
    let Some(after) = text.strip_prefix('~') else {
        return (None, Tilde::None);
    };
    let (name, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
    if !name.is_empty() {
        return (None, Tilde::OtherUser(name.to_string()));
    }
    match home {
        Some(home) => {
            let home = absolute_without_context(home);
            // `rest` is empty or starts with '/'.
            (Some(format!("{home}{rest}")), Tilde::Expanded)
        }
        None => (None, Tilde::NoHome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaving_and_reentering_the_root_is_recorded() {
        let res = resolve("../proj/x", "/proj", None);
        assert_eq!(res.normalized, "/proj/x");
        assert!(res.left_root_via_dotdot);

        let res = resolve("a/../b", "/proj", None);
        assert_eq!(res.normalized, "/proj/b");
        assert!(res.had_dotdot && !res.left_root_via_dotdot);
    }

    #[test]
    fn windows_spellings_are_read_with_slashes() {
        let home = Some("/home/u");
        for (raw, expected) in [
            (r"~\.ssh\id_rsa", "/home/u/.ssh/id_rsa"),
            (r".\.env", "/proj/.env"),
            (r"..\x\.env", "/x/.env"),
            (r"C:\Users\u\.ssh\id_rsa", "/proj/C:/Users/u/.ssh/id_rsa"),
            (r"src\..\..\etc\passwd", "/etc/passwd"),
            (r"config\.env", "/proj/config/.env"),
        ] {
            assert_eq!(resolve(raw, "/proj", home).normalized, expected, "{raw}");
            assert_eq!(normalized(raw, "/proj", home), expected, "{raw}");
        }
    }

    #[test]
    fn dotdot_at_the_filesystem_root_is_dropped() {
        let res = resolve("/../../etc/passwd", "/proj", None);
        assert_eq!(res.normalized, "/etc/passwd");
        assert!(res.above_filesystem_root);
    }

    #[test]
    fn normalised_form_is_recognised() {
        for good in ["/", "/a", "/a/b", "/.../x", "/a.b/.c"] {
            assert!(is_normalized(good), "{good}");
        }
        for bad in ["", "a", "/a/", "//a", "/a/./b", "/a/..", "/./"] {
            assert!(!is_normalized(bad), "{bad}");
        }
    }

    /// Path text from pieces that exercise every branch of the walk:
    /// empty, `.` and `..` components, tildes, `file:` URLs, names with
    /// odd characters.
    fn path_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "", ".", "..", "...", "a", "b c", "~", "~u", "é", ".env", "file:", "FILE:", "%2e%2e",
            "\\", "C:", "\u{0}",
        ]);
        (
            prop::sample::select(vec![
                "", "/", "//", "~", "~/", "file://", "file:///", "File:/",
            ]),
            prop::collection::vec(piece, 0..7),
            prop::sample::select(vec!["", "/"]),
        )
            .prop_map(|(lead, parts, tail)| format!("{lead}{}{tail}", parts.join("/")))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// The walk that only builds the normalised text gives what the
        /// full resolution gives, for any path, root and home.
        #[test]
        fn normalized_is_the_resolutions_text(
            raw in path_text(),
            root in path_text(),
            home in proptest::option::of(path_text()),
        ) {
            proptest::prop_assert_eq!(
                normalized(&raw, &root, home.as_deref()),
                resolve(&raw, &root, home.as_deref()).normalized,
                "raw {:?}, root {:?}, home {:?}", raw, root, home
            );
        }
    }

    #[test]
    fn normalized_agrees_on_the_corpora_words() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
        let mut words = 0;
        for entry in std::fs::read_dir(dir).expect("tests/corpora") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).unwrap_or_default();
            for word in text.split(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                for (root, home) in [
                    ("/proj", Some("/home/u")),
                    ("/", None),
                    ("/a/../b/", Some("/h/")),
                ] {
                    assert_eq!(
                        normalized(word, root, home),
                        resolve(word, root, home).normalized,
                        "{word:?} in {root}"
                    );
                }
                words += 1;
            }
        }
        assert!(words > 10_000, "{words} words");
    }

    #[test]
    fn tilde_forms() {
        assert_eq!(
            resolve("~/.ssh/id_rsa", "/proj", Some("/home/u/")).normalized,
            "/home/u/.ssh/id_rsa"
        );
        assert_eq!(resolve("~", "/proj", Some("/home/u")).normalized, "/home/u");
        let other = resolve("~root/.ssh", "/proj", Some("/home/u"));
        assert_eq!(other.normalized, "/proj/~root/.ssh");
        assert_eq!(other.tilde, Tilde::OtherUser("root".to_string()));
        let no_home = resolve("~/.ssh", "/proj", None);
        assert_eq!(no_home.normalized, "/proj/~/.ssh");
        assert_eq!(no_home.tilde, Tilde::NoHome);
        assert_eq!(resolve("a/~/b", "/p", Some("/h")).normalized, "/p/a/~/b");
    }
}
