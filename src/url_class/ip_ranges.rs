//! Which address block an IP address belongs to.
//!
//! The tables are read top to bottom and the first block that contains the
//! address decides, so the single-address cloud metadata entries sit above
//! the link-local and shared-address blocks that contain them. Addresses that
//! hide an IPv4 address inside IPv6 are unwrapped first (see
//! [`super::ipv6_embedded`]), so one IPv4 table serves both families.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};

use super::ipv6_embedded::embedded_ipv4;
use super::UrlClass;

/// One row of a block table: the network, what it means for a fetch, and a
/// short name for the reason text.
struct Block<N> {
    net: N,
    class: UrlClass,
    what: &'static str,
}

const fn v4(octets: [u8; 4], prefix: u8, class: UrlClass, what: &'static str) -> Block<Ipv4Net> {
    let [a, b, c, d] = octets;
    Block {
        net: Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix),
        class,
        what,
    }
}

const fn v6(segments: [u16; 8], prefix: u8, class: UrlClass, what: &'static str) -> Block<Ipv6Net> {
    let [a, b, c, d, e, f, g, h] = segments;
    Block {
        net: Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix),
        class,
        what,
    }
}

use UrlClass::{
    Broadcast, CloudMetadata, LinkLocal, Loopback, Multicast, Private, Reserved, Unspecified,
};

static IPV4_BLOCKS: &[Block<Ipv4Net>] = &[
    // Metadata endpoints first: they live inside link-local, shared or
    // reserved space and must not be reported as the wider block.
    v4(
        [169, 254, 169, 254],
        32,
        CloudMetadata,
        "instance metadata service (AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle, Hetzner)",
    ),
    v4(
        [169, 254, 170, 2],
        32,
        CloudMetadata,
        "AWS ECS task metadata and credentials endpoint",
    ),
    v4(
        [169, 254, 170, 23],
        32,
        CloudMetadata,
        "AWS EKS Pod Identity credentials agent",
    ),
    v4(
        [169, 254, 0, 23],
        32,
        CloudMetadata,
        "Tencent Cloud metadata service",
    ),
    v4(
        [100, 100, 100, 200],
        32,
        CloudMetadata,
        "Alibaba Cloud metadata service",
    ),
    v4(
        [192, 0, 0, 192],
        32,
        CloudMetadata,
        "Oracle Cloud legacy metadata service",
    ),
    // A public address, but only reachable from inside Azure VMs, where it
    // serves the guest agent its configuration.
    v4(
        [168, 63, 129, 16],
        32,
        CloudMetadata,
        "Azure WireServer platform endpoint",
    ),
    v4(
        [0, 0, 0, 0],
        8,
        Unspecified,
        "0.0.0.0/8 'this network'; connecting to it reaches the local host",
    ),
    v4([127, 0, 0, 0], 8, Loopback, "127.0.0.0/8 loopback"),
    v4([10, 0, 0, 0], 8, Private, "10.0.0.0/8 private (RFC 1918)"),
    v4(
        [172, 16, 0, 0],
        12,
        Private,
        "172.16.0.0/12 private (RFC 1918)",
    ),
    v4(
        [192, 168, 0, 0],
        16,
        Private,
        "192.168.0.0/16 private (RFC 1918)",
    ),
    v4(
        [100, 64, 0, 0],
        10,
        Private,
        "100.64.0.0/10 shared address space / carrier-grade NAT (RFC 6598)",
    ),
    v4([169, 254, 0, 0], 16, LinkLocal, "169.254.0.0/16 link-local"),
    v4(
        [255, 255, 255, 255],
        32,
        Broadcast,
        "255.255.255.255 limited broadcast",
    ),
    v4([224, 0, 0, 0], 4, Multicast, "224.0.0.0/4 multicast"),
    v4(
        [240, 0, 0, 0],
        4,
        Reserved,
        "240.0.0.0/4 reserved for future use",
    ),
    v4(
        [192, 0, 0, 0],
        24,
        Reserved,
        "192.0.0.0/24 IETF protocol assignments",
    ),
    v4(
        [192, 0, 2, 0],
        24,
        Reserved,
        "192.0.2.0/24 documentation (TEST-NET-1)",
    ),
    v4(
        [198, 51, 100, 0],
        24,
        Reserved,
        "198.51.100.0/24 documentation (TEST-NET-2)",
    ),
    v4(
        [203, 0, 113, 0],
        24,
        Reserved,
        "203.0.113.0/24 documentation (TEST-NET-3)",
    ),
    v4(
        [198, 18, 0, 0],
        15,
        Reserved,
        "198.18.0.0/15 benchmarking (RFC 2544)",
    ),
    v4(
        [192, 88, 99, 0],
        24,
        Reserved,
        "192.88.99.0/24 deprecated 6to4 relay anycast (RFC 7526)",
    ),
];

static IPV6_BLOCKS: &[Block<Ipv6Net>] = &[
    v6(
        [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254],
        128,
        CloudMetadata,
        "AWS instance metadata service over IPv6",
    ),
    v6(
        [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23],
        128,
        CloudMetadata,
        "AWS EKS Pod Identity credentials agent over IPv6",
    ),
    v6([0, 0, 0, 0, 0, 0, 0, 1], 128, Loopback, "::1 loopback"),
    v6([0, 0, 0, 0, 0, 0, 0, 0], 128, Unspecified, ":: unspecified"),
    v6(
        [0xff00, 0, 0, 0, 0, 0, 0, 0],
        8,
        Multicast,
        "ff00::/8 multicast",
    ),
    v6(
        [0xfe80, 0, 0, 0, 0, 0, 0, 0],
        10,
        LinkLocal,
        "fe80::/10 link-local",
    ),
    v6(
        [0xfec0, 0, 0, 0, 0, 0, 0, 0],
        10,
        Private,
        "fec0::/10 deprecated site-local, still routed inside sites",
    ),
    v6(
        [0xfc00, 0, 0, 0, 0, 0, 0, 0],
        7,
        Private,
        "fc00::/7 unique local",
    ),
    v6(
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0],
        32,
        Reserved,
        "2001:db8::/32 documentation",
    ),
    v6(
        [0x3fff, 0, 0, 0, 0, 0, 0, 0],
        20,
        Reserved,
        "3fff::/20 documentation (RFC 9637)",
    ),
    v6(
        [0x100, 0, 0, 0, 0, 0, 0, 0],
        64,
        Reserved,
        "100::/64 discard-only",
    ),
    v6(
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        23,
        Reserved,
        "2001::/23 IETF protocol assignments",
    ),
    v6(
        [0x5f00, 0, 0, 0, 0, 0, 0, 0],
        16,
        Reserved,
        "5f00::/16 SRv6 segment identifiers",
    ),
];

/// Global unicast space; IPv6 outside it (and not matched above) is not
/// allocated for public use.
const IPV6_GLOBAL_UNICAST: Ipv6Net =
    Ipv6Net::new_assert(Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

/// The verdict for one address: the class, the address a connection would
/// actually reach (IPv4 unwrapped from IPv6 forms), and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AddressVerdict {
    pub class: UrlClass,
    pub reached: IpAddr,
    pub reasons: Vec<String>,
}

pub(crate) fn classify_ip(ip: IpAddr) -> AddressVerdict {
    match ip {
        IpAddr::V4(v4) => {
            let (class, why) = classify_ipv4(v4);
            AddressVerdict {
                class,
                reached: ip,
                reasons: vec![in_block(v4, why)],
            }
        }
        IpAddr::V6(v6) => classify_ipv6(v6),
    }
}

/// `{v4} is in {why}`, the reason naming an IPv4 address's block.
fn in_block(v4: Ipv4Addr, why: &str) -> String {
    let mut reason = String::with_capacity(22 + why.len());
    super::dotted_quad::push_dotted_quad(&mut reason, v4);
    reason.push_str(" is in ");
    reason.push_str(why);
    reason
}

fn classify_ipv4(ip: Ipv4Addr) -> (UrlClass, &'static str) {
    IPV4_BLOCKS
        .iter()
        .find(|block| block.net.contains(&ip))
        .map(|block| (block.class, block.what))
        .unwrap_or((UrlClass::Public, "public IPv4 space"))
}

fn classify_ipv6(ip: Ipv6Addr) -> AddressVerdict {
    // `::` and `::1` sit inside the IPv4-compatible block but mean
    // themselves, so the table is consulted before unwrapping for those two.
    let exact = IPV6_BLOCKS
        .iter()
        .find(|block| block.net.prefix_len() == 128 && block.net.contains(&ip));
    if exact.is_none() {
        if let Some((v4, form)) = embedded_ipv4(ip) {
            let (class, why) = classify_ipv4(v4);
            return AddressVerdict {
                class,
                reached: IpAddr::V4(v4),
                reasons: vec![
                    format!("{form} IPv6 address {ip} reaches IPv4 {v4}"),
                    in_block(v4, why),
                ],
            };
        }
    }
    let (class, why) = exact
        .or_else(|| IPV6_BLOCKS.iter().find(|block| block.net.contains(&ip)))
        .map(|block| (block.class, block.what))
        .unwrap_or_else(|| {
            if IPV6_GLOBAL_UNICAST.contains(&ip) {
                (UrlClass::Public, "public IPv6 space (2000::/3)")
            } else {
                (
                    UrlClass::Reserved,
                    "unallocated IPv6 space outside global unicast 2000::/3",
                )
            }
        });
    AddressVerdict {
        class,
        reached: IpAddr::V6(ip),
        reasons: vec![format!("{ip} is in {why}")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(text: &str) -> UrlClass {
        classify_ip(text.parse().expect("test address parses")).class
    }

    #[test]
    fn metadata_wins_over_the_block_that_contains_it() {
        assert_eq!(class_of("169.254.169.254"), CloudMetadata);
        assert_eq!(class_of("169.254.169.253"), LinkLocal);
        assert_eq!(class_of("100.100.100.200"), CloudMetadata);
        assert_eq!(class_of("100.100.100.201"), Private);
        assert_eq!(class_of("fd00:ec2::254"), CloudMetadata);
        assert_eq!(class_of("fd00:ec2::255"), Private);
    }

    #[test]
    fn block_edges() {
        assert_eq!(class_of("172.15.255.255"), UrlClass::Public);
        assert_eq!(class_of("172.16.0.0"), Private);
        assert_eq!(class_of("172.31.255.255"), Private);
        assert_eq!(class_of("172.32.0.0"), UrlClass::Public);
        assert_eq!(class_of("100.63.255.255"), UrlClass::Public);
        assert_eq!(class_of("100.128.0.0"), UrlClass::Public);
        assert_eq!(class_of("255.255.255.254"), Reserved);
        assert_eq!(class_of("239.255.255.255"), Multicast);
        assert_eq!(class_of("4000::1"), Reserved);
        assert_eq!(class_of("2606:4700::1111"), UrlClass::Public);
    }

    #[test]
    fn loopback_and_unspecified_ipv6_are_not_unwrapped() {
        let verdict = classify_ip("::1".parse().unwrap());
        assert_eq!(verdict.class, Loopback);
        assert_eq!(verdict.reached, "::1".parse::<IpAddr>().unwrap());
        assert_eq!(class_of("::"), Unspecified);
    }
}
