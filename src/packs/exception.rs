//! Exceptions to pack rules, matched as narrowly as they are written.
//!
//! An exception must never let through more than its author read in it:
//! - `paths` are globs over the path after lexical normalisation, resolved
//!   exactly like the `path:` matcher's globs, so `tests/**` does not cover
//!   `tests/../.env`.
//! - `commands` are whole command lines compared character for character
//!   (blanks at either end aside): `rm -rf node_modules` covers neither
//!   `rm -rf node_modules ~` nor `rm -rf node_modules; rm -rf /`.
//! - `hosts` are the `url: host` matcher's patterns over the normalised
//!   host, optionally with a port; `*` (every host) is refused: that is
//!   disabling the rule, which `disable` says openly.
//!
//! An exception applies only when the payload has the subject it speaks
//! about; otherwise the rule stays in force.

use crate::catalogue::Subject;
use crate::matchers::Subjects;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExceptionKind {
    Paths,
    Commands,
    Hosts,
}

impl ExceptionKind {
    pub fn key(self) -> &'static str {
        match self {
            ExceptionKind::Paths => "paths",
            ExceptionKind::Commands => "commands",
            ExceptionKind::Hosts => "hosts",
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            ExceptionKind::Paths => "path",
            ExceptionKind::Commands => "command line",
            ExceptionKind::Hosts => "URL",
        }
    }

    pub fn subject(self) -> Subject {
        match self {
            ExceptionKind::Paths => Subject::Path,
            ExceptionKind::Commands => Subject::Command,
            ExceptionKind::Hosts => Subject::Url,
        }
    }
}

/// Blanks bash itself ignores around a command line.
fn trim_blanks(s: &str) -> &str {
    s.trim_matches(|c| c == ' ' || c == '\t' || c == '\n')
}

/// Checks one item as written; returns the form that is matched.
pub fn validate(kind: ExceptionKind, item: &str) -> Result<String, String> {
    match kind {
        ExceptionKind::Paths => {
            crate::paths::PathGlobSet::new(&[item], "/project", Some("/home/user"))
                .map_err(|e| format!("invalid path glob `{item}`: {}", e.reason))?;
            Ok(item.to_string())
        }
        ExceptionKind::Commands => {
            let line = trim_blanks(item);
            if line.is_empty() {
                return Err("an empty command line excepts nothing".into());
            }
            Ok(line.to_string())
        }
        ExceptionKind::Hosts => {
            let (host, _) = split_port(item.trim())?;
            if host == "*" {
                return Err(
                    "`*` would except every host: `disable` the rule instead, openly".into(),
                );
            }
            let valid = if host.contains('/') {
                host.parse::<ipnet::IpNet>().is_ok()
            } else {
                let bare = host
                    .strip_prefix("*.")
                    .or_else(|| host.strip_prefix('.'))
                    .unwrap_or(host);
                crate::url_class::normalize_host_text(bare).is_some()
            };
            if !valid {
                return Err(format!(
                    "`{item}` is not a host name, address or network (a URL is not needed: write the host)"
                ));
            }
            Ok(item.trim().to_string())
        }
    }
}

/// `host:port` into its parts; IPv6 addresses need brackets for a port.
fn split_port(item: &str) -> Result<(&str, Option<u16>), String> {
    if let Some(rest) = item.strip_prefix('[') {
        let Some((host, tail)) = rest.split_once(']') else {
            return Err(format!("`{item}`: unclosed `[`"));
        };
        return match tail.strip_prefix(':') {
            Some(port) => Ok((host, Some(parse_port(item, port)?))),
            None if tail.is_empty() => Ok((host, None)),
            None => Err(format!("`{item}`: unexpected text after `]`")),
        };
    }
    match item.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => Ok((host, Some(parse_port(item, port)?))),
        _ => Ok((item, None)),
    }
}

fn parse_port(item: &str, port: &str) -> Result<u16, String> {
    port.parse::<u16>()
        .map_err(|_| format!("`{item}`: `{port}` is not a port number"))
}

/// Whether the exception covers this payload.
pub fn applies(kind: ExceptionKind, items: &[String], subjects: &Subjects<'_>) -> bool {
    match kind {
        ExceptionKind::Paths => {
            let Some(info) = subjects.path() else {
                return false;
            };
            if info.empty || info.has_nul {
                return false;
            }
            let patterns: Vec<&str> = items.iter().map(String::as_str).collect();
            crate::paths::PathGlobSet::for_path(
                &patterns,
                subjects.project_root,
                subjects.home,
                &info.normalized,
            )
            .is_ok_and(|set| set.matches(&info.normalized).is_some())
        }
        ExceptionKind::Commands => subjects
            .text(Subject::Command)
            .map(trim_blanks)
            .is_some_and(|line| items.iter().any(|i| i == line)),
        ExceptionKind::Hosts => {
            let Some(info) = subjects.url() else {
                return false;
            };
            if info.host.is_empty() {
                return false;
            }
            items.iter().any(|item| match split_port(item) {
                Ok((pattern, port)) => {
                    port.is_none_or(|p| info.port == Some(p))
                        && crate::url_class::host_matches(&info.host, pattern)
                }
                Err(_) => false,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn covers(kind: ExceptionKind, item: &str, hook: &str, payload: serde_json::Value) -> bool {
        let item = validate(kind, item).expect("valid item");
        let subjects = Subjects::new(&payload, hook, "/project", Some("/home/user"));
        applies(kind, &[item], &subjects)
    }

    #[test]
    fn commands_cover_the_whole_line_only() {
        let cmd = |c: &str| json!({ "command": c });
        let k = ExceptionKind::Commands;
        assert!(covers(
            k,
            "rm -rf node_modules",
            "pre_shell_exec",
            cmd("rm -rf node_modules")
        ));
        assert!(covers(
            k,
            " rm -rf node_modules\n",
            "pre_shell_exec",
            cmd("rm -rf node_modules ")
        ));
        for other in [
            "rm -rf node_modules ~",
            "rm -rf node_modules; rm -rf /",
            "rm -rf node_modules && rm -rf /",
            "rm -rf node_modules\nrm -rf /",
            "rm -rf  node_modules",
            "sudo rm -rf node_modules",
            "rm -rf node_modules\r",
        ] {
            assert!(
                !covers(k, "rm -rf node_modules", "pre_shell_exec", cmd(other)),
                "{other:?}"
            );
        }
        // pre_tool reads arguments.command.
        let tool = json!({ "tool_name": "shell_exec", "arguments": { "command": "make clean" } });
        assert!(covers(k, "make clean", "pre_tool", tool));
        assert!(validate(k, "  \n").is_err());
    }

    #[test]
    fn paths_are_normalised_before_the_glob() {
        let path = |p: &str| json!({ "path": p });
        let k = ExceptionKind::Paths;
        assert!(covers(
            k,
            "config/.env.example",
            "pre_file_read",
            path("/project/config/.env.example")
        ));
        assert!(covers(
            k,
            "config/.env.example",
            "pre_file_read",
            path("config/./.env.example")
        ));
        assert!(covers(
            k,
            "tests/**",
            "pre_file_read",
            path("tests/fixtures/a/.env")
        ));
        assert!(!covers(
            k,
            "tests/**",
            "pre_file_read",
            path("tests/../.env")
        ));
        assert!(!covers(
            k,
            "tests/**",
            "pre_file_read",
            path("/elsewhere/tests/.env")
        ));
        assert!(covers(
            k,
            "~/.aws/config",
            "pre_file_read",
            path("/home/user/.aws/config")
        ));
        assert!(!covers(
            k,
            "~/.aws/config",
            "pre_file_read",
            path("/home/user/.aws/credentials")
        ));
        assert!(validate(k, "a/[").is_err());
    }

    #[test]
    fn hosts_match_the_normalised_host_and_port() {
        let url = |u: &str| json!({ "url": u });
        let k = ExceptionKind::Hosts;
        assert!(covers(
            k,
            "localhost:3000",
            "pre_fetch_url",
            url("http://LOCALHOST:3000/x")
        ));
        assert!(!covers(
            k,
            "localhost:3000",
            "pre_fetch_url",
            url("http://localhost:3001/")
        ));
        assert!(!covers(
            k,
            "localhost:3000",
            "pre_fetch_url",
            url("http://localtest.me:3000/")
        ));
        assert!(covers(
            k,
            "127.0.0.1",
            "pre_fetch_url",
            url("http://2130706433/")
        ));
        assert!(covers(
            k,
            ".corp.example",
            "pre_fetch_url",
            url("https://wiki.corp.example/")
        ));
        assert!(!covers(
            k,
            ".corp.example",
            "pre_fetch_url",
            url("https://corp.example.evil.com/")
        ));
        assert!(covers(
            k,
            "10.0.0.0/8",
            "pre_fetch_url",
            url("http://10.1.2.3/")
        ));
        assert!(covers(
            k,
            "[::1]:8080",
            "pre_fetch_url",
            url("http://[::1]:8080/")
        ));
        assert!(!covers(
            k,
            "[::1]:8080",
            "pre_fetch_url",
            url("http://[::1]:9090/")
        ));
        assert!(!covers(k, "localhost", "pre_fetch_url", url("not a url")));
        for bad in ["*", "*:80", "http://localhost/", "localhost:http", "[::1"] {
            assert!(validate(k, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn no_subject_means_no_exception() {
        let payload = json!({ "tool_name": "x" });
        let subjects = Subjects::new(&payload, "pre_tool", "/project", None);
        for kind in [
            ExceptionKind::Paths,
            ExceptionKind::Commands,
            ExceptionKind::Hosts,
        ] {
            assert!(!applies(kind, &["x".into()], &subjects));
        }
    }
}
