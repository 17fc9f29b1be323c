//! Host names whose meaning is fixed without asking DNS.
//!
//! `localhost` never leaves the machine, metadata names resolve to the cloud
//! credential endpoints from inside a VM, and private-use suffixes such as
//! `.internal` only resolve on internal networks. Everything here works on
//! the normalised host (lowercase ASCII, no trailing dot), so `LOCALHOST.`
//! and the full-width spelling arrive as `localhost`.

use super::UrlClass;

/// Names that resolve to a cloud metadata or credentials endpoint from
/// inside the matching cloud.
const METADATA_NAMES: &[(&str, &str)] = &[
    ("metadata.google.internal", "GCP metadata server"),
    ("metadata.goog", "GCP metadata server"),
    ("metadata", "GCP metadata short name (search domain)"),
    ("instance-data", "AWS metadata short name (search domain)"),
    (
        "instance-data.ec2.internal",
        "AWS metadata name (us-east-1)",
    ),
    ("metadata.tencentyun.com", "Tencent Cloud metadata service"),
    ("metadata.packet.net", "Equinix Metal metadata service"),
    (
        "metadata.platformequinix.com",
        "Equinix Metal metadata service",
    ),
];

/// Aliases that common /etc/hosts files map to loopback.
const LOOPBACK_ALIASES: &[&str] = &[
    "localhost.localdomain",
    "localhost6",
    "localhost6.localdomain6",
    "ip6-localhost",
    "ip6-loopback",
];

/// Suffixes used for names that only resolve inside an organisation.
const PRIVATE_SUFFIXES: &[&str] = &[
    "internal", // reserved by ICANN for private use (2024)
    "local",    // multicast DNS (RFC 6762)
    "localdomain",
    "home.arpa", // home networks (RFC 8375)
    "lan",
    "intranet",
    "corp",
    "home",
    "private",
    "svc", // Kubernetes service names such as kubernetes.default.svc
];

/// Special-use suffixes that never resolve on the public DNS.
const RESERVED_SUFFIXES: &[&str] = &["test", "example", "invalid", "onion", "alt"];

/// The class a normalised domain name has by its spelling alone, with the
/// reason, or `None` for an ordinary public name.
pub(crate) fn classify_name(host: &str) -> Option<(UrlClass, String)> {
    if host == "localhost" || host.ends_with(".localhost") {
        return Some((
            UrlClass::Loopback,
            format!("{host} is a localhost name, which always means loopback (RFC 6761)"),
        ));
    }
    if LOOPBACK_ALIASES.contains(&host) {
        return Some((
            UrlClass::Loopback,
            format!("{host} is a conventional /etc/hosts alias for loopback"),
        ));
    }
    if let Some((_, what)) = METADATA_NAMES.iter().find(|(name, _)| *name == host) {
        return Some((UrlClass::CloudMetadata, format!("{host} names the {what}")));
    }
    if is_aws_regional_metadata_name(host) {
        return Some((
            UrlClass::CloudMetadata,
            format!("{host} names the AWS metadata service of a region"),
        ));
    }
    if let Some(suffix) = matching_suffix(host, PRIVATE_SUFFIXES) {
        return Some((
            UrlClass::Private,
            format!("{host} is under .{suffix}, which only resolves on internal networks"),
        ));
    }
    if let Some(suffix) = matching_suffix(host, RESERVED_SUFFIXES) {
        return Some((
            UrlClass::Reserved,
            format!("{host} is under special-use .{suffix}, which the public DNS never resolves"),
        ));
    }
    if !host.is_empty() && !host.contains('.') {
        return Some((
            UrlClass::Private,
            format!(
                "{host} is a single-label name, resolved through the local search domains or hosts file"
            ),
        ));
    }
    None
}

/// `instance-data.<region>.compute.internal`, the regional AWS spelling.
fn is_aws_regional_metadata_name(host: &str) -> bool {
    host.strip_prefix("instance-data.")
        .and_then(|rest| rest.strip_suffix(".compute.internal"))
        .is_some_and(|region| !region.is_empty() && !region.contains('.'))
}

/// The first suffix in `suffixes` that `host` equals or ends with at a label
/// boundary.
fn matching_suffix(host: &str, suffixes: &[&'static str]) -> Option<&'static str> {
    suffixes.iter().copied().find(|suffix| {
        host == *suffix
            || host
                .strip_suffix(suffix)
                .is_some_and(|head| head.ends_with('.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(host: &str) -> Option<UrlClass> {
        classify_name(host).map(|(class, _)| class)
    }

    #[test]
    fn localhost_family() {
        assert_eq!(class_of("localhost"), Some(UrlClass::Loopback));
        assert_eq!(class_of("app.localhost"), Some(UrlClass::Loopback));
        assert_eq!(class_of("ip6-localhost"), Some(UrlClass::Loopback));
        assert_eq!(class_of("notlocalhost.com"), None);
        assert_eq!(class_of("localhost.evil.com"), None);
    }

    #[test]
    fn metadata_names_and_suffix_boundaries() {
        assert_eq!(
            class_of("metadata.google.internal"),
            Some(UrlClass::CloudMetadata)
        );
        assert_eq!(
            class_of("instance-data.eu-west-1.compute.internal"),
            Some(UrlClass::CloudMetadata)
        );
        assert_eq!(class_of("db.corp"), Some(UrlClass::Private));
        assert_eq!(class_of("evilcorp"), Some(UrlClass::Private));
        assert_eq!(class_of("evilcorp.com"), None);
        assert_eq!(class_of("site.test"), Some(UrlClass::Reserved));
        assert_eq!(class_of("test.com"), None);
    }
}
