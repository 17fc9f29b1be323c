//! Network destinations named by strings in interpreter code.
//!
//! `urllib.request.urlopen('http://169.254.169.254/...')`, `fetch(url)`,
//! `Net::HTTP.get(URI(...))`, `LWP::Simple::get(...)`: every HTTP library
//! has its own calls, and a table of them would always miss one (a
//! session object, a client built from a base URL). The URL itself does
//! not change with the library, so every `scheme://...` in a string of the
//! code is taken as a destination, and [`super::code`] hands it to the
//! policies as the `curl -- URL` that fetches it. Bare hosts are taken only
//! when they are the metadata service or link-local (`('169.254.169.254',
//! 80)` given to a socket): any other dotted string (`'a.txt'`, `'os.path'`)
//! would be a host as well.

use crate::url_class::{classify, UrlClass};

/// Longest string looked at as a bare host.
const MAX_HOST_LEN: usize = 255;

/// The URLs in `text`, and `text` itself when it is a bare metadata or
/// link-local host.
pub fn destinations(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = text[search..].find("://").map(|i| i + search) {
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            .last()
            .map_or(at, |(i, _)| i);
        // A scheme starts with a letter: `1http://` reads from the letter.
        let start = text[start..at]
            .find(|c: char| c.is_ascii_alphabetic())
            .map_or(at, |i| start + i);
        let end = text[at + 3..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
            .map_or(text.len(), |i| at + 3 + i);
        if start < at && end > at + 3 {
            found.push(text[start..end].to_string());
        }
        search = end.max(at + 3);
    }
    if found.is_empty() && is_metadata_host(text) {
        found.push(text.to_string());
    }
    found
}

/// A bare host (`169.254.169.254`, `metadata.google.internal`,
/// `[fd00:ec2::254]:80`) of the metadata service or a link-local address.
fn is_metadata_host(text: &str) -> bool {
    let plausible = !text.is_empty()
        && text.len() <= MAX_HOST_LEN
        && text.contains(['.', ':'])
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | ':' | '-' | '[' | ']' | '_'));
    if !plausible {
        return false;
    }
    // An IPv6 address without brackets reads as `host:port` otherwise.
    let host = if text.matches(':').count() > 1 && !text.starts_with('[') {
        format!("[{text}]")
    } else {
        text.to_string()
    };
    matches!(
        classify(&format!("http://{host}/")).class,
        UrlClass::CloudMetadata | UrlClass::LinkLocal
    )
}

#[cfg(test)]
mod tests {
    use super::destinations;

    #[test]
    fn urls_anywhere_in_a_string_are_destinations() {
        assert_eq!(
            destinations("http://169.254.169.254/latest/meta-data/"),
            ["http://169.254.169.254/latest/meta-data/"]
        );
        assert_eq!(
            destinations("GET https://a.example/x and ftp://b.example"),
            ["https://a.example/x", "ftp://b.example"]
        );
        assert!(destinations("print ok").is_empty());
        assert!(destinations("://").is_empty());
    }

    #[test]
    fn bare_hosts_only_when_metadata_or_link_local() {
        assert_eq!(destinations("169.254.169.254"), ["169.254.169.254"]);
        assert_eq!(
            destinations("metadata.google.internal"),
            ["metadata.google.internal"]
        );
        assert_eq!(destinations("fd00:ec2::254"), ["fd00:ec2::254"]);
        for text in ["a.txt", "os.path", "127.0.0.1", "10.0.0.1:80", "x y.z"] {
            assert!(destinations(text).is_empty(), "{text}");
        }
    }
}
