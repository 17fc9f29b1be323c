//! Comparing hosts against rule patterns, and finding the registrable
//! domain ("site") of a host.
//!
//! Both sides are normalised the way [`super::classify`] normalises a URL's
//! host before comparing, so `EXAMPLE.com.`, `ｅｘａｍｐｌｅ.com` and
//! `example.com` are one host, and `2130706433` equals `127.0.0.1`. Matching
//! is by whole labels, so a pattern can never match in the middle of a label
//! (`evil-example.com`) or as a prefix (`example.com.evil.net`).

use super::dotted_quad::{dotted_quad, ip_text};
use std::net::IpAddr;

use ipnet::IpNet;

/// A host reduced to one canonical text: lowercase ASCII (IDN as punycode),
/// no trailing dot, IP addresses in their standard form without brackets.
/// `None` when the text is not a valid host at all.
pub fn normalize_host_text(text: &str) -> Option<String> {
    let trimmed = text.trim();
    let unbracketed = trimmed
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(trimmed);
    if let Ok(ip) = unbracketed.parse::<IpAddr>() {
        return Some(ip_text(ip));
    }
    let without_dot = unbracketed.trim_end_matches('.');
    if without_dot.is_empty() {
        return None;
    }
    match url::Host::parse(without_dot).ok()? {
        url::Host::Domain(domain) => Some(domain.trim_end_matches('.').to_string()),
        url::Host::Ipv4(v4) => Some(dotted_quad(v4)),
        url::Host::Ipv6(v6) => Some(v6.to_string()),
    }
}

/// Whether `host` matches `pattern`.
///
/// Pattern forms:
/// - `example.com`: exactly that host.
/// - `.example.com`: that host **and** any subdomain at any depth (the
///   cookie-domain / `NO_PROXY` reading).
/// - `*.example.com`: any subdomain at any depth, **not** `example.com`
///   itself (the reading of a TLS wildcard, extended to any depth).
/// - `*`: every host.
/// - `10.0.0.0/8`, `fd00::/8`: any IP address host inside that network.
///
/// A `*` anywhere else is not a wildcard, so such a pattern matches nothing.
/// A host or pattern that is not a valid host matches nothing.
pub fn host_matches(host: &str, pattern: &str) -> bool {
    NormalHost::of(host).is_some_and(|host| HostPattern::new(pattern).matches(&host))
}

/// A host as [`normalize_host_text`] gives it, and its address if it is one.
#[derive(Debug, Clone, PartialEq)]
pub struct NormalHost {
    text: String,
    ip: Option<IpAddr>,
}

impl NormalHost {
    /// `None` when `host` is not a valid host (it then matches no pattern).
    pub fn of(host: &str) -> Option<NormalHost> {
        let text = normalize_host_text(host)?;
        let ip = text.parse::<IpAddr>().ok();
        Some(NormalHost { text, ip })
    }
}

/// A pattern of [`host_matches`], normalised once: a rule's patterns are
/// read when it is compiled, not on every URL it is asked about (normalising
/// the 14 names of the urls pack's DNS-trick rule was three quarters of a
/// warm `pre_fetch_url` decision).
#[derive(Debug, Clone, PartialEq)]
pub enum HostPattern {
    /// `*`.
    Any,
    /// `10.0.0.0/8`.
    Network(IpNet),
    /// `example.com`.
    Exact(String),
    /// `.example.com` (with the base itself) or `*.example.com` (without).
    Subdomains { base: String, include_self: bool },
    /// Not a valid pattern.
    Nothing,
}

impl HostPattern {
    pub fn new(pattern: &str) -> HostPattern {
        let pattern = pattern.trim();
        if pattern == "*" {
            return HostPattern::Any;
        }
        if pattern.contains('/') {
            return pattern
                .parse::<IpNet>()
                .map_or(HostPattern::Nothing, HostPattern::Network);
        }
        let (base, include_self) = if let Some(rest) = pattern.strip_prefix("*.") {
            (rest, false)
        } else if let Some(rest) = pattern.strip_prefix('.') {
            (rest, true)
        } else {
            return normalize_host_text(pattern).map_or(HostPattern::Nothing, HostPattern::Exact);
        };
        match normalize_host_text(base) {
            Some(base) => HostPattern::Subdomains { base, include_self },
            None => HostPattern::Nothing,
        }
    }

    pub fn matches(&self, host: &NormalHost) -> bool {
        match self {
            HostPattern::Any => true,
            HostPattern::Network(net) => host.ip.is_some_and(|ip| net.contains(&ip)),
            HostPattern::Exact(name) => *name == host.text,
            HostPattern::Subdomains { base, include_self } => {
                if host.text == *base {
                    return *include_self;
                }
                // A subdomain only when the host ends with ".base"; IP
                // addresses have no subdomains.
                host.ip.is_none()
                    && host
                        .text
                        .strip_suffix(base.as_str())
                        .is_some_and(|head| head.len() > 1 && head.ends_with('.'))
            }
            HostPattern::Nothing => false,
        }
    }
}

/// The registrable domain (public suffix plus one label) of `host`, using the
/// full Mozilla Public Suffix List compiled into the `psl` crate, private
/// section included, so `a.github.io` and `b.github.io` are different sites.
///
/// `None` for IP addresses, public suffixes themselves (`co.uk`), single
/// labels (`localhost`) and text that is not a valid host. Unknown top-level
/// domains follow the list's default rule: the last label is the suffix.
pub fn registrable_domain(host: &str) -> Option<String> {
    let host = normalize_host_text(host)?;
    if host.parse::<IpAddr>().is_ok() || host.split('.').any(str::is_empty) {
        return None;
    }
    psl::domain_str(&host).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_patterns_respect_label_boundaries() {
        assert!(host_matches("example.com", "example.com"));
        assert!(host_matches("EXAMPLE.com.", "example.com"));
        assert!(!host_matches("evil-example.com", "example.com"));
        assert!(!host_matches("example.com.evil.net", "example.com"));
        assert!(!host_matches("www.example.com", "example.com"));
        assert!(!host_matches("example.co", "example.com"));
    }

    #[test]
    fn subdomain_patterns() {
        assert!(host_matches("a.example.com", "*.example.com"));
        assert!(host_matches("a.b.example.com", "*.example.com"));
        assert!(!host_matches("example.com", "*.example.com"));
        assert!(host_matches("example.com", ".example.com"));
        assert!(host_matches("deep.a.example.com", ".example.com"));
        assert!(!host_matches("evil-example.com", "*.example.com"));
        assert!(!host_matches("evilexample.com", ".example.com"));
        assert!(!host_matches("example.com.evil.net", "*.example.com"));
        assert!(!host_matches(".example.com", "*.example.com"));
    }

    #[test]
    fn odd_spellings_on_either_side() {
        assert!(host_matches("ＥＸＡＭＰＬＥ.com", "example.com"));
        assert!(host_matches("bücher.de", "xn--bcher-kva.de"));
        assert!(host_matches("a.xn--bcher-kva.de", "*.bücher.de"));
        assert!(host_matches("2130706433", "127.0.0.1"));
        assert!(host_matches("[::1]", "::1"));
        assert!(host_matches("0:0:0:0:0:0:0:1", "[::1]"));
        assert!(!host_matches("", "example.com"));
        assert!(!host_matches("example.com", ""));
        assert!(!host_matches("example.com", "ex*.com"));
        assert!(host_matches("anything.at.all", "*"));
    }

    #[test]
    fn network_patterns() {
        assert!(host_matches("10.1.2.3", "10.0.0.0/8"));
        assert!(host_matches("0x0a000001", "10.0.0.0/8"));
        assert!(!host_matches("11.0.0.1", "10.0.0.0/8"));
        assert!(host_matches("fd12::1", "fc00::/7"));
        assert!(!host_matches("10.example.com", "10.0.0.0/8"));
        assert!(!host_matches("127.0.0.1", "127.0.0.0/33"));
    }

    #[test]
    fn ip_hosts_have_no_subdomains() {
        assert!(!host_matches("1.2.3.4", "*.3.4"));
        assert!(!host_matches("1.2.3.4", ".2.3.4"));
    }

    #[test]
    fn registrable_domains() {
        let site = |h: &str| registrable_domain(h);
        assert_eq!(site("a.b.example.co.uk").as_deref(), Some("example.co.uk"));
        assert_eq!(site("WWW.Example.COM.").as_deref(), Some("example.com"));
        assert_eq!(site("example.com").as_deref(), Some("example.com"));
        assert_eq!(site("alice.github.io").as_deref(), Some("alice.github.io"));
        assert_eq!(site("x.bücher.de").as_deref(), Some("xn--bcher-kva.de"));
        assert_eq!(
            site("a.b.xn--55qx5d.cn").as_deref(),
            Some("b.xn--55qx5d.cn")
        );
        assert_eq!(
            site("foo.bar.unknowntld").as_deref(),
            Some("bar.unknowntld")
        );
        assert_eq!(site("co.uk"), None);
        assert_eq!(site("com"), None);
        assert_eq!(site("localhost"), None);
        assert_eq!(site("127.0.0.1"), None);
        assert_eq!(site("::1"), None);
        assert_eq!(site("a..example.com"), None);
        assert_eq!(site(""), None);
    }
}
