//! DNS names that carry an IP address in their spelling.
//!
//! Services such as nip.io and sslip.io answer `127.0.0.1.nip.io` with
//! 127.0.0.1, and `lvh.me` is a public name pointed at loopback. This module
//! reads such addresses out of the name so a rule can see them. It does not
//! resolve anything: a name is still classified by what it is (a public DNS
//! name) and the embedded address is only reported, because any other name
//! can resolve to an internal address too (DNS rebinding) and only a
//! resolver-level check can catch that.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Public domains whose every name resolves to 127.0.0.1.
const LOOPBACK_DOMAINS: &[&str] = &[
    "localtest.me",
    "lvh.me",
    "vcap.me",
    "localho.st",
    "lacolhost.com",
    "fuf.me",
];

/// Echo services that also accept hex (`7f000001.nip.io`) and, for sslip,
/// dashed IPv6 (`--1.sslip.io`) spellings.
const ECHO_DOMAINS: &[&str] = &["nip.io", "sslip.io", "xip.io"];

/// An address read out of a host name, and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EmbeddedAddress {
    pub ip: IpAddr,
    pub how: String,
}

/// The address `host` (normalised, not an IP literal) embeds, if any.
pub(crate) fn find_embedded_address(host: &str) -> Option<EmbeddedAddress> {
    if let Some(domain) = LOOPBACK_DOMAINS.iter().find(|d| is_same_or_sub(host, d)) {
        return Some(EmbeddedAddress {
            ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
            how: format!("names under {domain} are published as 127.0.0.1"),
        });
    }
    if let Some(v4) = dotted_or_dashed_ipv4(host) {
        return Some(EmbeddedAddress {
            ip: IpAddr::V4(v4),
            how: format!("the labels of {host} spell IPv4 {v4}"),
        });
    }
    let echo = ECHO_DOMAINS.iter().find(|d| is_same_or_sub(host, d))?;
    let first_label = host.split('.').next().unwrap_or_default();
    if let Some(v4) = hex_ipv4(first_label) {
        return Some(EmbeddedAddress {
            ip: IpAddr::V4(v4),
            how: format!("{echo} reads the hex label of {host} as IPv4 {v4}"),
        });
    }
    dashed_ipv6(first_label).map(|v6| EmbeddedAddress {
        ip: IpAddr::V6(v6),
        how: format!("{echo} reads the dashed label of {host} as IPv6 {v6}"),
    })
}

fn is_same_or_sub(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|head| head.ends_with('.'))
}

/// Four consecutive decimal octets separated by '.' or '-', anywhere in the
/// name: `10.0.0.1.nip.io`, `app-127-0-0-1.sslip.io`, `ip-10-0-0-5.internal`.
fn dotted_or_dashed_ipv4(host: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = host.split(['.', '-']).collect();
    parts.windows(4).find_map(|window| {
        let mut octets = [0u8; 4];
        for (slot, text) in octets.iter_mut().zip(window) {
            *slot = parse_octet(text)?;
        }
        Some(Ipv4Addr::from(octets))
    })
}

fn parse_octet(text: &str) -> Option<u8> {
    let digits_only =
        !text.is_empty() && text.len() <= 3 && text.bytes().all(|b| b.is_ascii_digit());
    if digits_only {
        text.parse().ok()
    } else {
        None
    }
}

/// Exactly eight hex digits, optionally after a `prefix-`.
fn hex_ipv4(label: &str) -> Option<Ipv4Addr> {
    let hex = label.rsplit('-').next()?;
    if hex.len() == 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        u32::from_str_radix(hex, 16).ok().map(Ipv4Addr::from)
    } else {
        None
    }
}

/// sslip.io spells IPv6 with '-' for ':' (`--1`, `fe80--1`). Punycode labels
/// (`xn--...`) fail the parse, so they are not misread.
fn dashed_ipv6(label: &str) -> Option<Ipv6Addr> {
    if !label.contains('-') {
        return None;
    }
    label.replace('-', ":").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(host: &str) -> Option<String> {
        find_embedded_address(host).map(|e| e.ip.to_string())
    }

    #[test]
    fn spellings_of_embedded_addresses() {
        assert_eq!(found("127.0.0.1.nip.io").as_deref(), Some("127.0.0.1"));
        assert_eq!(found("app.10.1.2.3.sslip.io").as_deref(), Some("10.1.2.3"));
        assert_eq!(
            found("app-169-254-169-254.nip.io").as_deref(),
            Some("169.254.169.254")
        );
        assert_eq!(found("7f000001.nip.io").as_deref(), Some("127.0.0.1"));
        assert_eq!(found("--1.sslip.io").as_deref(), Some("::1"));
        assert_eq!(found("api.lvh.me").as_deref(), Some("127.0.0.1"));
    }

    #[test]
    fn ordinary_names_embed_nothing() {
        assert_eq!(found("example.com"), None);
        assert_eq!(found("deadbeef.com"), None);
        assert_eq!(found("xn--bcher-kva.nip.io"), None);
        assert_eq!(found("a-1-2-3.example.com"), None);
        assert_eq!(found("notlvh.me"), None);
        assert_eq!(found("1000.0.0.1.example.com"), None);
    }
}
