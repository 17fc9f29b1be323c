//! What a URL really points at, for deciding whether an agent may fetch it.
//!
//! A string check on a URL is easy to dodge: `http://2130706433/`,
//! `http://0x7f.1/`, `http://[::ffff:7f00:1]/`, `http://１２７．０．０．１/` and
//! `http://evil.com@127.0.0.1/` all reach 127.0.0.1. So [`classify`] first
//! parses the text with the WHATWG URL parser (the `url` crate, the same
//! algorithm browsers use), which decodes every numeric, percent-encoded and
//! Unicode spelling of the host, and only then looks at the address or name
//! that came out:
//!
//! 1. [`ip_ranges`] places an address in its block (loopback, private,
//!    metadata, ...), after [`ipv6_embedded`] has unwrapped IPv4 carried in
//!    IPv6 transition forms.
//! 2. [`special_names`] knows names whose meaning needs no DNS (`localhost`,
//!    `metadata.google.internal`, `.internal`, single labels).
//! 3. [`embedded_ip`] reports addresses spelled inside public names
//!    (`127.0.0.1.nip.io`) without changing their class.
//! 4. [`spelling`] re-reads the raw text to explain tricks in `reasons`.
//!
//! DNS is never consulted. A public name that resolves to an internal
//! address (DNS rebinding, or a record the attacker controls) is classified
//! `Public`; only a check on the resolved socket address can catch that.

mod dotted_quad;
mod embedded_ip;
mod host_match;
mod ip_ranges;
mod ipv6_embedded;
pub mod one_call;
mod special_names;
mod spelling;

use std::net::IpAddr;

use serde::Serialize;

pub use host_match::{
    host_matches, normalize_host_text, registrable_domain, HostPattern, NormalHost,
};

use embedded_ip::find_embedded_address;
use ip_ranges::classify_ip;
use special_names::classify_name;
use spelling::{raw_authority, split_scheme, strip_like_whatwg, RawAuthority, SPECIAL_SCHEMES};

/// Everything [`classify`] learned about one URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UrlInfo {
    /// The verdict for fetching this URL.
    pub class: UrlClass,
    /// What the host alone would be, whatever the scheme. Equal to `class`
    /// for http(s)/ws(s); for other schemes it tells whether e.g. a
    /// `gopher://` URL targets an internal host. `NonHttp` when the URL has
    /// no network host (`data:`, `javascript:`), `Loopback` for local
    /// `file:` URLs.
    pub host_class: UrlClass,
    /// Lowercased scheme; "" when the URL is invalid.
    pub scheme: String,
    /// Normalised host: lowercase, IDN as punycode, no trailing dot, IPv6
    /// without brackets, IPv4 as a dotted quad. "" when there is none.
    pub host: String,
    /// The address a connection would reach, when the host is an address.
    /// For IPv6 forms that carry IPv4 (mapped, NAT64, 6to4, ...) this is the
    /// IPv4 address inside.
    pub ip: Option<IpAddr>,
    /// Effective port, with the scheme's default filled in for http, https,
    /// ws, wss and ftp.
    pub port: Option<u16>,
    pub path: String,
    pub query: Option<String>,
    /// Whether the authority had a `user[:password]@` part (even empty).
    pub userinfo_present: bool,
    /// An address spelled inside a DNS name (`127.0.0.1.nip.io`). Reported
    /// only: the name's class is not changed by it.
    pub embedded_ip: Option<IpAddr>,
    /// The class of `embedded_ip`, so a rule can deny on it.
    pub embedded_class: Option<UrlClass>,
    /// Human-readable steps that led to the verdict.
    pub reasons: Vec<String>,
    /// The parser's error, for `Invalid`.
    pub error: Option<String>,
}

/// The kind of place a URL points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UrlClass {
    Loopback,
    Private,
    LinkLocal,
    CloudMetadata,
    Unspecified,
    Multicast,
    Broadcast,
    Reserved,
    Public,
    Invalid,
    NonHttp,
}

impl UrlClass {
    /// The snake_case name used in serialised output and policies.
    pub fn as_str(&self) -> &'static str {
        match self {
            UrlClass::Loopback => "loopback",
            UrlClass::Private => "private",
            UrlClass::LinkLocal => "link_local",
            UrlClass::CloudMetadata => "cloud_metadata",
            UrlClass::Unspecified => "unspecified",
            UrlClass::Multicast => "multicast",
            UrlClass::Broadcast => "broadcast",
            UrlClass::Reserved => "reserved",
            UrlClass::Public => "public",
            UrlClass::Invalid => "invalid",
            UrlClass::NonHttp => "non_http",
        }
    }

    /// Everything except `Public`: not safe to fetch without a rule that
    /// says so. Invalid and non-http URLs count as internal because what a
    /// client does with them is not known.
    pub fn is_internal(&self) -> bool {
        *self != UrlClass::Public
    }
}

impl std::fmt::Display for UrlClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Schemes that fetch over HTTP and are therefore classified by host.
const HTTP_SCHEMES: &[&str] = &["http", "https", "ws", "wss"];

/// Schemes common enough that `name:digits` is a real URL of that scheme
/// rather than `host:port` typed without `http://`.
const KNOWN_SCHEMES: &[&str] = &[
    "http",
    "https",
    "ws",
    "wss",
    "ftp",
    "ftps",
    "file",
    "gopher",
    "data",
    "javascript",
    "mailto",
    "blob",
    "about",
    "tel",
    "sms",
    "ssh",
    "sftp",
    "git",
    "ldap",
    "ldaps",
    "dict",
    "telnet",
    "smb",
    "nfs",
    "redis",
    "rediss",
    "mongodb",
    "mysql",
    "postgres",
    "postgresql",
    "jar",
    "urn",
    "news",
    "irc",
    "ircs",
    "xmpp",
    "geo",
    "magnet",
    "view-source",
];

/// Parse `raw` as a WHATWG URL and classify what it points at. Never
/// panics; text that does not parse comes back as `Invalid` with the
/// parser's error.
pub fn classify(raw: &str) -> UrlInfo {
    let cleaned = strip_like_whatwg(raw);
    let mut reasons = Vec::new();
    if cleaned != raw {
        reasons.push(
            "surrounding whitespace/control characters and embedded tabs or newlines removed, as the WHATWG parser does"
                .to_string(),
        );
    }
    match parse_with_fallbacks(&cleaned, &mut reasons) {
        Ok((url, parsed_text)) => describe_url(&url, &parsed_text, reasons),
        Err(error) => invalid(error, reasons),
    }
}

/// `Url::parse`, plus the two readings a command-line client would apply
/// where the WHATWG parser gives up or misreads: a missing `http://`
/// (`localhost:8080`, `example.com/x`, `//host/`) and an IPv6 zone id
/// (`[fe80::1%25eth0]`). Returns the URL and the text it was parsed from.
fn parse_with_fallbacks(
    cleaned: &str,
    reasons: &mut Vec<String>,
) -> Result<(url::Url, String), url::ParseError> {
    match parse_allowing_zone_id(cleaned, reasons) {
        Ok((url, _)) if is_host_port_without_scheme(&url, cleaned) => {
            parse_as_http(cleaned, reasons).ok_or(url::ParseError::RelativeUrlWithoutBase)
        }
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            parse_as_http(cleaned, reasons).ok_or(url::ParseError::RelativeUrlWithoutBase)
        }
        other => other,
    }
}

/// `Url::parse`, retried without the zone id when an IPv6 host has one.
fn parse_allowing_zone_id(
    text: &str,
    reasons: &mut Vec<String>,
) -> Result<(url::Url, String), url::ParseError> {
    match url::Url::parse(text) {
        Ok(url) => Ok((url, text.to_string())),
        Err(url::ParseError::InvalidIpv6Address) => {
            let (without, zone) =
                without_zone_id(text).ok_or(url::ParseError::InvalidIpv6Address)?;
            let url = url::Url::parse(&without)?;
            reasons.push(format!(
                "IPv6 zone id '{zone}' removed: WHATWG rejects zone ids, but curl and getaddrinfo accept them"
            ));
            Ok((url, without))
        }
        Err(other) => Err(other),
    }
}

/// `localhost:8080` parses as scheme "localhost"; a client like curl reads
/// it as a host and port. Treat an unknown scheme followed by 1-5 digits and
/// then the end, '/', '?' or '#' as that.
fn is_host_port_without_scheme(url: &url::Url, cleaned: &str) -> bool {
    if KNOWN_SCHEMES.contains(&url.scheme()) {
        return false;
    }
    let Some((_, rest)) = split_scheme(cleaned) else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = rest.as_bytes().get(digits);
    (1..=5).contains(&digits) && matches!(after, None | Some(b'/' | b'?' | b'#'))
}

/// Read `cleaned` as `http://` + text, when it starts like a host (a letter,
/// digit, '[' or non-ASCII character) or with `//`. Paths such as
/// `/etc/passwd` or `./x` are not guessed into URLs.
fn parse_as_http(cleaned: &str, reasons: &mut Vec<String>) -> Option<(url::Url, String)> {
    let first = cleaned.chars().next()?;
    let starts_like_host = first.is_alphanumeric() || first == '[' || !first.is_ascii();
    if !starts_like_host && !cleaned.starts_with("//") {
        return None;
    }
    let text = if cleaned.starts_with("//") {
        format!("http:{cleaned}")
    } else {
        format!("http://{cleaned}")
    };
    let mut attempt_reasons = Vec::new();
    let (url, parsed_text) = parse_allowing_zone_id(&text, &mut attempt_reasons).ok()?;
    reasons.push("no scheme given; read as http:// the way curl does".to_string());
    reasons.append(&mut attempt_reasons);
    Some((url, parsed_text))
}

/// Remove `%zone` from inside the brackets of an IPv6 host.
fn without_zone_id(cleaned: &str) -> Option<(String, String)> {
    let open = cleaned.find('[')?;
    let close = open + cleaned[open..].find(']')?;
    let percent = open + cleaned[open..close].find('%')?;
    let zone = cleaned[percent..close].to_string();
    let text = format!("{}{}", &cleaned[..percent], &cleaned[close..]);
    Some((text, zone))
}

fn invalid(error: url::ParseError, mut reasons: Vec<String>) -> UrlInfo {
    reasons.push(format!("does not parse as a URL: {error}"));
    UrlInfo {
        class: UrlClass::Invalid,
        host_class: UrlClass::Invalid,
        scheme: String::new(),
        host: String::new(),
        ip: None,
        port: None,
        path: String::new(),
        query: None,
        userinfo_present: false,
        embedded_ip: None,
        embedded_class: None,
        reasons,
        error: Some(error.to_string()),
    }
}

/// The class of a URL's host and what was learned on the way.
struct HostVerdict {
    class: UrlClass,
    host: String,
    ip: Option<IpAddr>,
    embedded_ip: Option<IpAddr>,
    embedded_class: Option<UrlClass>,
    reasons: Vec<String>,
}

impl HostVerdict {
    fn without_host(class: UrlClass, reason: String) -> Self {
        HostVerdict {
            class,
            host: String::new(),
            ip: None,
            embedded_ip: None,
            embedded_class: None,
            reasons: vec![reason],
        }
    }
}

fn describe_url(url: &url::Url, parsed_text: &str, mut reasons: Vec<String>) -> UrlInfo {
    let scheme = url.scheme().to_string();
    let authority = raw_authority(parsed_text);
    reasons.extend(authority_tricks(url, parsed_text, authority.as_ref()));

    let mut verdict = verdict_for_host(url);
    if let Some(raw) = &authority {
        reasons.extend(spelling::describe_host_spelling(&raw.host, &verdict.host));
    }
    if let Some(other) = backslash_reading(url, parsed_text, &verdict) {
        reasons.extend(std::mem::take(&mut verdict.reasons));
        verdict = other;
    }
    reasons.extend(verdict.reasons);

    let class = if HTTP_SCHEMES.contains(&scheme.as_str()) {
        verdict.class
    } else {
        reasons.push(format!(
            "scheme {scheme}: is not fetched over http(s)/ws(s); the host alone would be {}",
            verdict.class
        ));
        UrlClass::NonHttp
    };
    // A host the parser accepted but that names nothing ("http://./") is as
    // unusable as a parse error, and is reported the same way.
    let (scheme, error) = if class == UrlClass::Invalid {
        (String::new(), reasons.last().cloned())
    } else {
        (scheme, None)
    };
    let userinfo_present = !url.username().is_empty()
        || url.password().is_some()
        || authority.as_ref().is_some_and(|a| a.userinfo.is_some());
    UrlInfo {
        class,
        host_class: verdict.class,
        scheme,
        host: verdict.host,
        ip: verdict.ip,
        port: url.port_or_known_default(),
        path: url.path().to_string(),
        query: url.query().map(str::to_string),
        userinfo_present,
        embedded_ip: verdict.embedded_ip,
        embedded_class: verdict.embedded_class,
        reasons,
        error,
    }
}

/// Reasons for authority-level tricks: userinfo before the host, '@' that
/// only looks like userinfo, backslashes and odd slash runs.
fn authority_tricks(
    url: &url::Url,
    parsed_text: &str,
    authority: Option<&RawAuthority>,
) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some((written, _)) = parsed_text.split_once(':') {
        if written != url.scheme() && written.eq_ignore_ascii_case(url.scheme()) {
            reasons.push(format!("scheme {written} lowercased"));
        }
    }
    let Some(authority) = authority else {
        return reasons;
    };
    let special = SPECIAL_SCHEMES.contains(&url.scheme());
    if let Some(userinfo) = &authority.userinfo {
        reasons.push(format!(
            "'{userinfo}@' is userinfo, not the host; the host is what follows the last '@'"
        ));
    }
    if authority.at_sign_after_authority && authority.userinfo.is_none() {
        reasons.push(
            "'@' after the host (in path, query or fragment) does not introduce a host".to_string(),
        );
    }
    if special && authority.ended_by_backslash {
        reasons.push(format!(
            "'\\' ends the host for {}: URLs, just as '/' does",
            url.scheme()
        ));
    }
    if special && url.scheme() != "file" && authority.slashes != "//" {
        reasons.push(format!(
            "'{}' after '{}:' is read as '//'",
            authority.slashes,
            url.scheme()
        ));
    }
    reasons
}

/// `http://evil.com\@127.0.0.1/` reaches evil.com in a browser, where '\'
/// ends the host, but 127.0.0.1 in clients that follow RFC 3986 (curl's
/// and Python's parsers), where it is an ordinary userinfo character. When
/// that second reading lands somewhere not public while the WHATWG one is
/// public, the guard takes the second: it must assume the reading that
/// reaches more.
fn backslash_reading(
    url: &url::Url,
    parsed_text: &str,
    whatwg: &HostVerdict,
) -> Option<HostVerdict> {
    if whatwg.class != UrlClass::Public || !SPECIAL_SCHEMES.contains(&url.scheme()) {
        return None;
    }
    let (_, rest) = split_scheme(parsed_text)?;
    let after_slashes = rest.strip_prefix("//")?;
    let authority = &after_slashes[..after_slashes
        .find(['/', '?', '#'])
        .unwrap_or(after_slashes.len())];
    if !authority.contains('\\') {
        return None;
    }
    let host_port = authority.rsplit('@').next()?;
    if host_port.is_empty() || host_port.contains('\\') {
        return None;
    }
    let alternative = url::Url::parse(&format!("{}://{host_port}/", url.scheme())).ok()?;
    let mut verdict = verdict_for_host(&alternative);
    if verdict.class == UrlClass::Public || verdict.class == UrlClass::Invalid {
        return None;
    }
    verdict.reasons.insert(
        0,
        format!(
            "clients that do not treat '\\' as '/' (curl, Python) read the host as '{host_port}', not '{}'",
            whatwg.host
        ),
    );
    Some(verdict)
}

fn verdict_for_host(url: &url::Url) -> HostVerdict {
    let special = SPECIAL_SCHEMES.contains(&url.scheme());
    match url.host() {
        Some(url::Host::Ipv4(v4)) => verdict_for_ip(IpAddr::V4(v4)),
        Some(url::Host::Ipv6(v6)) => verdict_for_ip(IpAddr::V6(v6)),
        Some(url::Host::Domain(domain)) if special => verdict_for_domain(domain),
        Some(url::Host::Domain(opaque)) => verdict_for_opaque_host(opaque),
        None => verdict_without_host(url),
    }
}

fn verdict_for_ip(ip: IpAddr) -> HostVerdict {
    let address = classify_ip(ip);
    HostVerdict {
        class: address.class,
        host: dotted_quad::ip_text(ip),
        ip: Some(address.reached),
        embedded_ip: None,
        embedded_class: None,
        reasons: address.reasons,
    }
}

fn verdict_for_domain(domain: &str) -> HostVerdict {
    let name = domain.trim_end_matches('.');
    if name.is_empty() {
        return HostVerdict::without_host(
            UrlClass::Invalid,
            format!("host '{domain}' is empty once trailing dots are removed"),
        );
    }
    // WHATWG accepts ".x" and "a..b", but no resolver can look up a name
    // with an empty label.
    if name.split('.').any(str::is_empty) {
        return HostVerdict::without_host(
            UrlClass::Invalid,
            format!("host '{domain}' has an empty label, which no resolver accepts"),
        );
    }
    // "127.0.0.1.." is a domain to WHATWG (only one trailing dot is
    // ignored), but resolvers drop the rest too: re-read without them.
    if name.len() + 1 < domain.len() {
        if let Ok(url::Host::Ipv4(v4)) = url::Host::parse(name) {
            let mut verdict = verdict_for_ip(IpAddr::V4(v4));
            verdict.reasons.insert(
                0,
                format!("'{domain}' without its trailing dots is the address {v4}"),
            );
            return verdict;
        }
    }
    let (class, mut reasons) = match classify_name(name) {
        Some((class, reason)) => (class, vec![reason]),
        None => (
            UrlClass::Public,
            vec![format!(
                "{name} is a DNS name; DNS is not consulted, so it counts as public"
            )],
        ),
    };
    let embedded = find_embedded_address(name);
    let embedded_class = embedded.as_ref().map(|e| classify_ip(e.ip).class);
    if let (Some(found), Some(found_class)) = (&embedded, embedded_class) {
        reasons.push(format!(
            "{}: embedded address {} is {found_class}; reported only, since the name is classified by what it is and DNS answers are not checked",
            found.how, found.ip
        ));
    }
    HostVerdict {
        class,
        host: name.to_string(),
        ip: None,
        embedded_ip: embedded.map(|e| e.ip),
        embedded_class,
        reasons,
    }
}

/// Non-special schemes (gopher:, redis:, ...) keep the host as opaque text;
/// the clients that speak them resolve it like any host, so `2130706433`
/// must still count as 127.0.0.1. Re-read it with the special-host rules.
fn verdict_for_opaque_host(opaque: &str) -> HostVerdict {
    let mut verdict = match url::Host::parse(opaque) {
        Ok(url::Host::Ipv4(v4)) => verdict_for_ip(IpAddr::V4(v4)),
        Ok(url::Host::Ipv6(v6)) => verdict_for_ip(IpAddr::V6(v6)),
        Ok(url::Host::Domain(domain)) => verdict_for_domain(&domain),
        Err(error) => {
            return HostVerdict::without_host(
                UrlClass::Invalid,
                format!("opaque host '{opaque}' is not a valid network host: {error}"),
            );
        }
    };
    verdict.reasons.insert(
        0,
        format!(
            "opaque host '{opaque}' re-read with http host rules, as clients resolve it that way"
        ),
    );
    verdict
}

fn verdict_without_host(url: &url::Url) -> HostVerdict {
    match url.scheme() {
        "file" => HostVerdict::without_host(
            UrlClass::Loopback,
            "file: URL without a remote host reads the local filesystem".to_string(),
        ),
        // blob: URLs carry the URL of the page that made them.
        "blob" => match url::Url::parse(url.path()) {
            Ok(inner) if inner.has_host() => {
                let mut verdict = verdict_for_host(&inner);
                verdict
                    .reasons
                    .insert(0, "host taken from the URL inside blob:".to_string());
                verdict
            }
            _ => HostVerdict::without_host(
                UrlClass::NonHttp,
                "blob: URL without an inner host".to_string(),
            ),
        },
        other => HostVerdict::without_host(
            UrlClass::NonHttp,
            format!("{other}: URL has no network host"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_class_in_snake_case() {
        let info = classify("http://169.254.169.254/latest/meta-data/");
        assert_eq!(info.class, UrlClass::CloudMetadata);
        let debug_json = format!("{:?}", info.class.as_str());
        assert_eq!(debug_json, "\"cloud_metadata\"");
    }

    #[test]
    fn reasons_name_the_trick() {
        let info = classify("http://2130706433/");
        assert!(
            info.reasons
                .iter()
                .any(|r| r == "decimal IPv4 2130706433 is 127.0.0.1"),
            "{:?}",
            info.reasons
        );
        let at = classify("http://127.0.0.1#@evil.com");
        assert!(at
            .reasons
            .iter()
            .any(|r| r.contains("does not introduce a host")));
        assert!(!at.userinfo_present);
    }

    #[test]
    fn fields_of_a_plain_url() {
        let info = classify("HTTPS://User:pw@Example.COM./a/b?x=1#frag");
        assert_eq!(info.class, UrlClass::Public);
        assert_eq!(info.scheme, "https");
        assert_eq!(info.host, "example.com");
        assert_eq!(info.port, Some(443));
        assert_eq!(info.path, "/a/b");
        assert_eq!(info.query.as_deref(), Some("x=1"));
        assert!(info.userinfo_present);
        assert_eq!(info.error, None);
    }

    #[test]
    fn invalid_keeps_the_parser_error() {
        let info = classify("http://[::1/");
        assert_eq!(info.class, UrlClass::Invalid);
        assert_eq!(info.scheme, "");
        assert_eq!(info.error.as_deref(), Some("invalid IPv6 address"));
    }

    #[test]
    fn a_backslash_before_userinfo_is_read_both_ways() {
        // WHATWG: host evil.com; curl and Python: userinfo `evil.com\`, host 127.0.0.1.
        let info = classify("http://evil.com\\@127.0.0.1/");
        assert_eq!(info.class, UrlClass::Loopback);
        assert_eq!(info.host, "127.0.0.1");
        assert!(info.reasons.iter().any(|r| r.contains("curl, Python")));
        let info = classify("http://evil.com\\@169.254.169.254:80/x");
        assert_eq!(info.class, UrlClass::CloudMetadata);
        // Both readings internal: the WHATWG one is kept.
        let info = classify("http://127.0.0.1\\@evil.com/");
        assert_eq!(info.class, UrlClass::Loopback);
        // Both public: nothing changes.
        assert_eq!(classify("http://a.com\\@b.com/").host, "a.com");
        // A backslash in the path is not in the authority.
        assert_eq!(
            classify("http://example.com/\\@127.0.0.1").class,
            UrlClass::Public
        );
    }

    #[test]
    fn non_http_schemes_still_report_the_host() {
        let info = classify("gopher://2130706433:6379/_INFO");
        assert_eq!(info.class, UrlClass::NonHttp);
        assert_eq!(info.host_class, UrlClass::Loopback);
        assert_eq!(info.host, "127.0.0.1");
        assert_eq!(info.port, Some(6379));
    }
}
