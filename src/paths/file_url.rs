//! `file:` URLs handed over where a path is expected.
//!
//! A plain filesystem call would treat `file:///etc/passwd` as a relative
//! path under a directory named `file:`, but tools that accept URIs (MCP
//! resources, editors, browsers) open `/etc/passwd`. A guard must assume
//! the reading that reaches more, so such text is turned into the path it
//! names: the URL parser resolves its dot segments (including `%2e%2e`) and
//! the path is then percent-decoded.

/// The path inside a `file:` URL, and the remote host it names, if any
/// (`file://server/share` is a network share on Windows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileUrlPath {
    pub path: String,
    pub host: Option<String>,
}

/// `Some` when `raw` is a `file:` URL (scheme case-insensitive).
pub(crate) fn file_url_path(raw: &str) -> Option<FileUrlPath> {
    let scheme = raw.get(..5)?;
    if !scheme.eq_ignore_ascii_case("file:") {
        return None;
    }
    let url = url::Url::parse(raw).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    Some(FileUrlPath {
        path: percent_decode(url.path()),
        host: url.host_str().filter(|h| !h.is_empty()).map(str::to_string),
    })
}

/// Decode `%XX` escapes; bytes that do not form UTF-8 become U+FFFD so the
/// result stays a `String` and the oddity stays visible.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_become_paths() {
        let local = file_url_path("file:///etc/passwd").unwrap();
        assert_eq!((local.path.as_str(), local.host), ("/etc/passwd", None));
        let dotted = file_url_path("FILE:///proj/%2e%2e/etc/pass%77d").unwrap();
        assert_eq!(dotted.path, "/etc/passwd");
        let remote = file_url_path("file://server/share/x").unwrap();
        assert_eq!(remote.host.as_deref(), Some("server"));
        assert_eq!(file_url_path("file:///a%00b").unwrap().path, "/a\0b");
    }

    #[test]
    fn other_text_is_not_a_file_url() {
        assert_eq!(file_url_path("/etc/passwd"), None);
        assert_eq!(file_url_path("files/x"), None);
        assert_eq!(file_url_path("fil"), None);
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }
}
