//! How the raw text spelled the host, for the human-readable reasons.
//!
//! The WHATWG parser tells us what a URL means but not what tricks the text
//! used to get there. This module re-reads the raw input just far enough to
//! find the authority as written, so a reason can say "decimal IPv4
//! 2130706433 is 127.0.0.1" or "'@' after '#' is not userinfo". It never
//! decides a class; the parsed URL does that.

use std::net::IpAddr;

/// Schemes the WHATWG spec treats as special: their authority may be
/// introduced by any mix of '/' and '\', and '\' ends the authority.
pub(crate) const SPECIAL_SCHEMES: &[&str] = &["http", "https", "ws", "wss", "ftp", "file"];

/// The raw authority pieces of an input, as written.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct RawAuthority {
    /// Text between "scheme:" and the authority, e.g. "//" or "/\".
    pub slashes: String,
    /// Userinfo before the last '@', when there is one.
    pub userinfo: Option<String>,
    /// Host as written (brackets removed), before any decoding.
    pub host: String,
    /// Whether a '\' ended the authority.
    pub ended_by_backslash: bool,
    /// Whether the rest of the input (path, query, fragment) holds an '@'.
    pub at_sign_after_authority: bool,
}

/// The same cleanup the WHATWG parser does before anything else: trim C0
/// controls and spaces from both ends, drop every tab and newline.
pub(crate) fn strip_like_whatwg(raw: &str) -> String {
    raw.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Split `cleaned` (output of [`strip_like_whatwg`]) into scheme and rest.
pub(crate) fn split_scheme(cleaned: &str) -> Option<(String, &str)> {
    let colon = cleaned.find(':')?;
    let scheme = &cleaned[..colon];
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| (scheme.to_ascii_lowercase(), &cleaned[colon + 1..]))
}

/// Find the authority in `cleaned` the way the parser would, or `None` when
/// the input has no authority (e.g. `mailto:`, `data:`).
pub(crate) fn raw_authority(cleaned: &str) -> Option<RawAuthority> {
    let (scheme, rest) = split_scheme(cleaned)?;
    let special = SPECIAL_SCHEMES.contains(&scheme.as_str());
    let slash_len = if special {
        rest.len() - rest.trim_start_matches(['/', '\\']).len()
    } else if rest.starts_with("//") {
        2
    } else {
        return None;
    };
    let (slashes, after) = rest.split_at(slash_len);
    let end = after
        .find(|c: char| matches!(c, '/' | '?' | '#') || (special && c == '\\'))
        .unwrap_or(after.len());
    let (authority, tail) = after.split_at(end);
    let (userinfo, host_port) = match authority.rfind('@') {
        Some(at) => (Some(authority[..at].to_string()), &authority[at + 1..]),
        None => (None, authority),
    };
    Some(RawAuthority {
        slashes: slashes.to_string(),
        userinfo,
        host: strip_port(host_port).to_string(),
        ended_by_backslash: tail.starts_with('\\'),
        at_sign_after_authority: tail.contains('@'),
    })
}

fn strip_port(host_port: &str) -> &str {
    if let Some(inner) = host_port.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    host_port.split(':').next().unwrap_or(host_port)
}

/// Reasons that explain how `raw_host` became `normalised`. Empty when the
/// spelling was already plain.
pub(crate) fn describe_host_spelling(raw_host: &str, normalised: &str) -> Vec<String> {
    let mut reasons = Vec::new();
    if raw_host.eq_ignore_ascii_case(normalised) || raw_host.is_empty() || normalised.is_empty() {
        return reasons;
    }
    if raw_host.contains('%') {
        reasons.push(format!(
            "percent-encoded host {raw_host} decodes to {normalised}"
        ));
    } else if !raw_host.is_ascii() {
        reasons.push(format!(
            "Unicode host {raw_host} maps to {normalised} under IDNA (UTS 46)"
        ));
    } else {
        match normalised.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => {
                if let Some(form) = ipv4_form(raw_host) {
                    reasons.push(format!("{form} {raw_host} is {normalised}"));
                }
            }
            Ok(IpAddr::V6(_)) => {
                reasons.push(format!("IPv6 {raw_host} is {normalised}"));
            }
            Err(_) if raw_host.ends_with('.') => reasons.push(format!(
                "trailing dot of {raw_host} removed; it names the same host"
            )),
            Err(_) => {}
        }
    }
    reasons
}

/// A phrase naming a non-dotted-quad spelling of an IPv4 address, such as
/// "short-form (2-part) IPv4 with hex parts", or `None` for a plain quad.
fn ipv4_form(raw: &str) -> Option<String> {
    let trimmed = raw.trim_end_matches('.');
    let parts: Vec<&str> = trimmed.split('.').collect();
    let radix_of = |part: &str| {
        if part.len() > 1 && part.as_bytes()[1].eq_ignore_ascii_case(&b'x') {
            "hex"
        } else if part.len() > 1 && part.starts_with('0') {
            "octal"
        } else {
            "decimal"
        }
    };
    if let [single] = parts.as_slice() {
        let trailing = if trimmed.len() == raw.len() {
            ""
        } else {
            " with trailing dot"
        };
        return Some(format!("{} IPv4{trailing}", radix_of(single)));
    }
    let mut qualifiers = Vec::new();
    let hex = parts.iter().any(|p| radix_of(p) == "hex");
    let octal = parts.iter().any(|p| radix_of(p) == "octal");
    match (hex, octal) {
        (true, true) => qualifiers.push("hex and octal parts"),
        (true, false) => qualifiers.push("hex parts"),
        (false, true) => qualifiers.push("octal parts"),
        (false, false) => {}
    }
    if trimmed.len() != raw.len() {
        qualifiers.push("trailing dot");
    }
    let short = if parts.len() < 4 {
        format!("short-form ({}-part) ", parts.len())
    } else {
        String::new()
    };
    if short.is_empty() && qualifiers.is_empty() {
        return None;
    }
    let with = if qualifiers.is_empty() {
        String::new()
    } else {
        format!(" with {}", qualifiers.join(" and "))
    };
    Some(format!("{short}IPv4{with}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authority_as_the_parser_sees_it() {
        let a = raw_authority("http://evil.com@127.0.0.1:80/x").unwrap();
        assert_eq!(a.userinfo.as_deref(), Some("evil.com"));
        assert_eq!(a.host, "127.0.0.1");

        let b = raw_authority("http://127.0.0.1\\@evil.com").unwrap();
        assert_eq!(b.host, "127.0.0.1");
        assert!(b.ended_by_backslash && b.at_sign_after_authority);

        let c = raw_authority("http:/\\[::1]:8080").unwrap();
        assert_eq!((c.slashes.as_str(), c.host.as_str()), ("/\\", "::1"));

        assert_eq!(raw_authority("mailto:a@b.c"), None);
        assert_eq!(raw_authority("gopher:x"), None);
    }

    #[test]
    fn ipv4_spellings_are_named() {
        let say = |raw: &str| describe_host_spelling(raw, "127.0.0.1").join("; ");
        assert_eq!(say("2130706433"), "decimal IPv4 2130706433 is 127.0.0.1");
        assert_eq!(say("0x7f000001"), "hex IPv4 0x7f000001 is 127.0.0.1");
        assert_eq!(say("017700000001"), "octal IPv4 017700000001 is 127.0.0.1");
        assert_eq!(say("127.1"), "short-form (2-part) IPv4 127.1 is 127.0.0.1");
        assert_eq!(
            say("0x7f.1"),
            "short-form (2-part) IPv4 with hex parts 0x7f.1 is 127.0.0.1"
        );
        assert_eq!(
            say("0177.0.0.1"),
            "IPv4 with octal parts 0177.0.0.1 is 127.0.0.1"
        );
        assert_eq!(say("127.0.0.1"), "");
        assert_eq!(
            say("127.0.0.1."),
            "IPv4 with trailing dot 127.0.0.1. is 127.0.0.1"
        );
        assert_eq!(
            describe_host_spelling("0:0:0:0:0:0:0:1", "::1").join("; "),
            "IPv6 0:0:0:0:0:0:0:1 is ::1"
        );
        assert!(describe_host_spelling(".", "").is_empty());
    }
}
