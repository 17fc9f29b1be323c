//! IPv4 addresses hidden inside IPv6 transition forms.
//!
//! `[::ffff:127.0.0.1]` and friends look like IPv6 to a string check but a
//! dual-stack host, a NAT64 gateway or a 6to4 relay delivers the packets to
//! the IPv4 address inside. Each form below names the bits that carry it.
//! The caller handles `::` and `::1` before asking, because those two sit in
//! the IPv4-compatible block yet mean themselves.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The IPv4 address a connection to `ip` would reach, with the name of the
/// transition form that carries it, or `None` for ordinary IPv6.
pub(crate) fn embedded_ipv4(ip: Ipv6Addr) -> Option<(Ipv4Addr, &'static str)> {
    let s = ip.segments();
    let low32 = Ipv4Addr::from(((s[6] as u32) << 16) | s[7] as u32);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some((low32, "IPv4-mapped")),
        // SIIT "IPv4-translated" addresses, ::ffff:0:a.b.c.d (RFC 2765).
        [0, 0, 0, 0, 0xffff, 0, _, _] => Some((low32, "IPv4-translated (SIIT)")),
        // Deprecated but still honoured by some stacks (RFC 4291 2.5.5.1).
        [0, 0, 0, 0, 0, 0, _, _] => Some((low32, "IPv4-compatible")),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some((low32, "NAT64 well-known-prefix")),
        // Local-use NAT64 (RFC 8215). Operators may pick any RFC 6052 prefix
        // length; /96 is by far the usual one, so that is the reading used.
        [0x64, 0xff9b, 1, _, _, _, _, _] => Some((low32, "local-use NAT64 (read as /96)")),
        [0x2002, hi, lo, _, _, _, _, _] => {
            Some((Ipv4Addr::from(((hi as u32) << 16) | lo as u32), "6to4"))
        }
        // Teredo keeps the client's public IPv4 address bit-inverted in the
        // last 32 bits (RFC 4380); that NAT address is where packets go.
        [0x2001, 0, _, _, _, _, _, _] => Some((Ipv4Addr::from(!u32::from(low32)), "Teredo")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unwrap(text: &str) -> Option<Ipv4Addr> {
        embedded_ipv4(text.parse().expect("test address parses")).map(|(v4, _)| v4)
    }

    #[test]
    fn each_form_yields_its_ipv4() {
        let loopback = Some(Ipv4Addr::new(127, 0, 0, 1));
        let metadata = Some(Ipv4Addr::new(169, 254, 169, 254));
        assert_eq!(unwrap("::ffff:127.0.0.1"), loopback);
        assert_eq!(unwrap("::ffff:7f00:1"), loopback);
        assert_eq!(unwrap("::ffff:0:7f00:1"), loopback);
        assert_eq!(unwrap("::127.0.0.1"), loopback);
        assert_eq!(unwrap("64:ff9b::a9fe:a9fe"), metadata);
        assert_eq!(unwrap("64:ff9b:1::a9fe:a9fe"), metadata);
        assert_eq!(unwrap("2002:a9fe:a9fe::"), metadata);
        assert_eq!(unwrap("2001:0:4136:e378:8000:63bf:80ff:fffe"), loopback);
    }

    #[test]
    fn ordinary_ipv6_has_nothing_inside() {
        assert_eq!(unwrap("2606:4700::1111"), None);
        assert_eq!(unwrap("fe80::1"), None);
        assert_eq!(unwrap("64:ff9b:2::1"), None);
    }
}
