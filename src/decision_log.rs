//! The decision log: one JSON line per hook decision, appended to a file.
//!
//! chibi starts a process per hook call, so many plugin processes may append
//! at once. Each record is built in memory and written with a single
//! `write` on a file opened with `O_APPEND`: the kernel places each such
//! write at the end of the file as a whole, so lines never interleave.
//!
//! The log never holds payload content: a SHA-256 digest identifies the
//! payload, and reasons are logged as the policy wrote them (the template,
//! before `${{ }}` interpolation could copy a command or a path into it).
//! Writing the log can fail (full disk, no permission); that is reported on
//! stderr and never changes the decision, which has already been made.

use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The environment variable that turns the log on for a harness process.
pub const ENV_VAR: &str = "HOOK_POLICY_LOG";

/// The log file named by [`ENV_VAR`], when it is set and not empty.
pub fn from_env() -> Option<std::path::PathBuf> {
    std::env::var_os(ENV_VAR)
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
}

/// Where one decision is logged: [`ENV_VAR`], else the policy's
/// `settings.log`; every harness decides it this way.
pub fn destination(configured: Option<&Path>) -> Option<std::path::PathBuf> {
    from_env().or_else(|| configured.map(Path::to_path_buf))
}

/// What one record says.
pub struct Record<'a> {
    pub harness: &'a str,
    pub hook: &'a str,
    /// `deny`, `block`, `modify`, `none`, `log` (only log-only rules
    /// matched) or `error`.
    pub decision: &'a str,
    pub matched: &'a [String],
    /// Log-only rules that matched, with what each would have done.
    pub logged: &'a [crate::eval::Logged],
    pub rule: Option<&'a str>,
    /// The reason as written in the policy (template form).
    pub reason_template: Option<&'a str>,
    pub error: Option<&'a str>,
    pub payload: &'a [u8],
    pub micros: u128,
}

/// Hex SHA-256 of the payload bytes.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

impl Record<'_> {
    pub fn to_json(&self) -> Json {
        self.to_json_with(&rfc3339_now(), &digest(self.payload))
    }

    /// The record with its time and payload digest given: a line prepared
    /// ahead (the deadline's, see src/watchdog.rs) or a digest computed once.
    pub fn to_json_with(&self, time: &str, payload_sha256: &str) -> Json {
        json!({
            "time": time,
            "harness": self.harness,
            "hook": self.hook,
            "decision": self.decision,
            "rule": self.rule,
            "matched": self.matched,
            "logged": self.logged,
            "reason": self.reason_template,
            "error": self.error,
            "payload_sha256": payload_sha256,
            "payload_bytes": self.payload.len(),
            "micros": self.micros as u64,
        })
    }
}

/// The ids a harness gives an event, so that a record can be found again
/// in the agent's own transcript. Ids are names, never content.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ids<'a> {
    /// The session (Claude Code, Gemini CLI and Codex `session_id`).
    pub session: Option<&'a str>,
    /// The turn (Codex `turn_id`) or prompt (Claude Code `prompt_id`).
    pub turn: Option<&'a str>,
    /// The tool call (Claude Code and Codex `tool_use_id`).
    pub tool_call: Option<&'a str>,
}

/// Appends one record. Errors are returned for the caller to report; they
/// must never influence the decision.
pub fn append(path: &Path, record: &Record<'_>) -> std::io::Result<()> {
    append_with(path, record, Ids::default())
}

/// Appends one record with the event's ids (each only when present).
pub fn append_with(path: &Path, record: &Record<'_>, ids: Ids<'_>) -> std::io::Result<()> {
    let mut json = record.to_json();
    if let Some(obj) = json.as_object_mut() {
        for (key, id) in [
            ("session_id", ids.session),
            ("turn_id", ids.turn),
            ("tool_call_id", ids.tool_call),
        ] {
            if let Some(id) = id {
                obj.insert(key.into(), Json::String(id.into()));
            }
        }
    }
    append_line(path, &line(&json))
}

/// A record as one log line, newline included.
pub fn line(record: &Json) -> Vec<u8> {
    let mut line = record.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Appends one whole line (see [`line`]).
pub fn append_line(path: &Path, line: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    // One write for the whole line: see the module docs.
    let written = file.write(line)?;
    if written != line.len() {
        return Err(std::io::Error::other(format!(
            "short write to the decision log ({written} of {} bytes)",
            line.len()
        )));
    }
    Ok(())
}

/// UTC now as `YYYY-MM-DDTHH:MM:SS.mmmZ`, without a date library.
pub fn rfc3339_now() -> String {
    rfc3339_at(SystemTime::now())
}

/// A time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
pub fn rfc3339_at(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    rfc3339(since.as_secs() as i64, since.subsec_millis())
}

fn rfc3339(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian
/// (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(
            rfc3339(1_795_305_600 + 3661, 999),
            "2026-11-22T01:01:01.999Z"
        );
    }

    #[test]
    fn digest_is_sha256() {
        assert_eq!(
            digest(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
