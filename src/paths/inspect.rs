//! A serialisable report on one raw path, for rules that deny oddities.
//!
//! Normalisation keeps every byte of a name (NUL, control characters,
//! backslashes, lookalike Unicode) because the filesystem does: silently
//! dropping or folding them would make the guard check a different file than
//! the tool opens. Instead each oddity is flagged here, and `visible` shows
//! the normalised path with control characters escaped. The one exception
//! is a path spelt the Windows way (`C:\Users\me\.ssh`, `~\.ssh`): its
//! backslashes are separators there, read as `/` (see `lexical.rs`), and
//! still flagged.

use serde::Serialize;

use super::lexical::{components, resolve, Tilde};

/// What [`inspect`] learned about one path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathInfo {
    /// The text as given.
    pub raw: String,
    /// Absolute, lexically normalised path (see [`super::normalize`]).
    pub normalized: String,
    /// The root it was resolved against, normalised.
    pub root: String,
    /// `normalized` relative to `root` ("" for the root itself), when within.
    pub relative_to_root: Option<String>,
    pub within_root: bool,
    /// A `..` took the path from inside the root to outside at some point,
    /// whether or not it ended inside (`../proj/x`, `src/../../etc`).
    pub escapes_root: bool,
    pub had_dotdot: bool,
    pub had_dot: bool,
    /// A `..` tried to climb above `/` and was dropped.
    pub above_filesystem_root: bool,
    /// The text did not start with '/', so it was joined to the root.
    pub was_relative: bool,
    pub home_expanded: bool,
    /// `~` or `~/` seen but no home directory given: kept as a name.
    pub tilde_unexpanded: bool,
    /// `~name/`: another user's home, not expanded (kept as a name).
    pub tilde_user: Option<String>,
    /// The text was a `file:` URL and its path was used.
    pub file_url: bool,
    /// Host of a `file://host/...` URL (a remote share on Windows).
    pub file_url_host: Option<String>,
    pub has_nul: bool,
    /// Any C0 control character, DEL or C1 control character.
    pub has_control_chars: bool,
    /// '\' is an ordinary name character on Unix but a separator on Windows.
    pub has_backslash: bool,
    /// Starts like `C:`, a Windows drive, which Unix reads as a name.
    pub windows_drive: bool,
    /// Non-ASCII characters, which may be lookalikes of ASCII ones.
    pub non_ascii: bool,
    pub repeated_slashes: bool,
    pub trailing_slash: bool,
    pub empty: bool,
    /// `normalized` with control characters written as `\x..` / `\u{..}`.
    pub visible: String,
}

/// Resolve `raw` like [`super::normalize`] and report everything unusual
/// about it.
pub fn inspect(raw: &str, root: &str, home: Option<&str>) -> PathInfo {
    let res = resolve(raw, root, home);
    let root_parts: Vec<&str> = components(&res.root).collect();
    let path_parts: Vec<&str> = components(&res.normalized).collect();
    let within_root =
        path_parts.len() >= root_parts.len() && path_parts[..root_parts.len()] == root_parts[..];
    let relative_to_root = within_root.then(|| path_parts[root_parts.len()..].join("/"));
    let (tilde_unexpanded, tilde_user) = match &res.tilde {
        Tilde::NoHome => (true, None),
        Tilde::OtherUser(name) => (false, Some(name.clone())),
        Tilde::None | Tilde::Expanded => (false, None),
    };
    PathInfo {
        raw: raw.to_string(),
        visible: make_visible(&res.normalized),
        root: res.root.clone(),
        relative_to_root,
        within_root,
        escapes_root: res.left_root_via_dotdot,
        had_dotdot: res.had_dotdot,
        had_dot: res.had_dot,
        above_filesystem_root: res.above_filesystem_root,
        was_relative: res.was_relative,
        home_expanded: res.tilde == Tilde::Expanded,
        tilde_unexpanded,
        tilde_user,
        file_url: res.file_url.is_some(),
        file_url_host: res.file_url.as_ref().and_then(|u| u.host.clone()),
        has_nul: raw.contains('\0') || res.normalized.contains('\0'),
        has_control_chars: raw
            .chars()
            .chain(res.normalized.chars())
            .any(char::is_control),
        has_backslash: raw.contains('\\'),
        windows_drive: starts_with_drive(raw),
        non_ascii: !raw.is_ascii(),
        repeated_slashes: res.repeated_slashes,
        trailing_slash: res.trailing_slash,
        empty: raw.is_empty(),
        normalized: res.normalized,
    }
}

fn starts_with_drive(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// Escape control characters so a log line or error message shows them.
fn make_visible(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_control() {
            let code = c as u32;
            if code < 0x80 {
                out.push_str(&format!("\\x{code:02x}"));
            } else {
                out.push_str(&format!("\\u{{{code:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_kept_and_flagged() {
        let info = inspect("secret\0.txt\n", "/proj", None);
        assert_eq!(info.normalized, "/proj/secret\0.txt\n");
        assert!(info.has_nul && info.has_control_chars);
        assert_eq!(info.visible, "/proj/secret\\x00.txt\\x0a");
    }

    #[test]
    fn relative_to_root() {
        let info = inspect("/proj/src/main.rs", "/proj/", None);
        assert_eq!(info.relative_to_root.as_deref(), Some("src/main.rs"));
        assert_eq!(
            inspect("/proj", "/proj", None).relative_to_root.as_deref(),
            Some("")
        );
        assert_eq!(
            inspect("/proj-evil/x", "/proj", None).relative_to_root,
            None
        );
    }

    #[test]
    fn windows_spellings_are_flagged_and_read_with_slashes() {
        let info = inspect("C:\\Users\\me\\.ssh\\id_rsa", "/proj", None);
        assert_eq!(info.normalized, "/proj/C:/Users/me/.ssh/id_rsa");
        assert!(info.windows_drive && info.has_backslash && info.within_root);
    }

    #[test]
    fn serialises_to_json() {
        let json = serde_json::to_value(inspect("../x", "/proj", None)).unwrap();
        assert_eq!(json["normalized"], "/x");
        assert_eq!(json["escapes_root"], true);
        assert_eq!(json["within_root"], false);
    }
}
