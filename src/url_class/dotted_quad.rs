//! An IPv4 address as text, without the formatting machinery.
//!
//! A warm `pre_fetch_url` decision on an address writes it three times (the
//! normalised host, the reason naming its block, the host the rule index
//! looks up). `Ipv4Addr`'s `Display`
//! goes through `core::fmt` and its padding support, about 2,400
//! instructions each time: a sixth of classifying a loopback URL. These
//! write the same text (four decimal octets, no leading zeros) directly;
//! a property test holds them to `Display`.

use std::net::{IpAddr, Ipv4Addr};

/// `address` as `Display` writes it, IPv4 without `core::fmt`.
pub fn ip_text(address: IpAddr) -> String {
    match address {
        IpAddr::V4(v4) => dotted_quad(v4),
        IpAddr::V6(v6) => v6.to_string(),
    }
}

/// `address` as `Display` writes it: `127.0.0.1`.
pub fn dotted_quad(address: Ipv4Addr) -> String {
    let mut text = String::with_capacity(15);
    push_dotted_quad(&mut text, address);
    text
}

/// Appends `address` to `text` as [`dotted_quad`] writes it.
pub fn push_dotted_quad(text: &mut String, address: Ipv4Addr) {
    for (i, octet) in address.octets().into_iter().enumerate() {
        if i > 0 {
            text.push('.');
        }
        if octet >= 100 {
            text.push(char::from(b'0' + octet / 100));
        }
        if octet >= 10 {
            text.push(char::from(b'0' + octet / 10 % 10));
        }
        text.push(char::from(b'0' + octet % 10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges_are_written_as_display_writes_them() {
        for address in [
            Ipv4Addr::UNSPECIFIED,
            Ipv4Addr::LOCALHOST,
            Ipv4Addr::BROADCAST,
            Ipv4Addr::new(10, 99, 100, 9),
            Ipv4Addr::new(169, 254, 169, 254),
        ] {
            assert_eq!(dotted_quad(address), address.to_string());
        }
    }

    proptest! {
        #[test]
        fn every_address_is_written_as_display_writes_it(bits in any::<u32>(), prefix in ".{0,3}") {
            let address = Ipv4Addr::from(bits);
            prop_assert_eq!(dotted_quad(address), address.to_string());
            prop_assert_eq!(ip_text(IpAddr::V4(address)), address.to_string());
            let mut text = prefix.clone();
            push_dotted_quad(&mut text, address);
            prop_assert_eq!(text, format!("{prefix}{address}"));
        }
    }
}
