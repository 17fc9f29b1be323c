//! The two events `policy doctor` sends through each agent's installed
//! hook: one harmless call and one dangerous one, in the agent's own event
//! format, and how to tell from the reply that the agent would block.
//!
//! They are data (`probes.json`), copied from recorded events (each names
//! the fixture it came from, and a test checks the copy) or, for agents we
//! have no recording of, from the vendor page's example. An agent added to
//! `policy install` without probes here fails that test, so doctor never
//! reports a hook healthy it could not try.

use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// How the agent talks to its hook.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// A process per event: the event as JSON on stdin, the reply on stdout
    /// (or the exit status).
    #[default]
    StdinJson,
    /// A long-running process speaking JSON-RPC 2.0, one message a line
    /// (PicoClaw): `hook.hello` first, then the event.
    JsonRpc,
}

/// What marks a reply as a block.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Denied {
    /// The value at a JSON pointer of the reply.
    Field { pointer: String, equals: Json },
    /// The process's exit status (Windsurf blocks by exiting 2).
    ExitStatus { exit_status: i32 },
}

#[derive(Debug, Clone, Deserialize)]
pub struct Probe {
    /// One line saying what the event asks, for the report.
    pub shows: String,
    /// The recorded fixture (or vendor page) the event was copied from.
    pub from: String,
    /// Environment the agent sets for this event (chibi's `CHIBI_HOOK`,
    /// Claude Code's `CLAUDE_PROJECT_DIR`); `{project}` stands for the
    /// project directory doctor runs the hook in.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub event: Json,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AgentProbes {
    #[serde(default)]
    pub protocol: Protocol,
    pub denied: Denied,
    pub harmless: Probe,
    pub dangerous: Probe,
}

fn all() -> &'static BTreeMap<String, AgentProbes> {
    static PROBES: OnceLock<BTreeMap<String, AgentProbes>> = OnceLock::new();
    PROBES.get_or_init(|| {
        serde_json::from_str(include_str!("probes.json"))
            .expect("src/doctor/probes.json is checked by its unit test")
    })
}

/// The probes of the agent `policy install NAME` installs into.
pub fn for_agent(name: &str) -> Option<&'static AgentProbes> {
    all().get(name)
}

impl Denied {
    /// Whether a reply (`stdout`, and the exit status) blocks the call.
    pub fn says_denied(&self, status: Option<i32>, reply: Option<&Json>) -> bool {
        match self {
            Denied::ExitStatus { exit_status } => status == Some(*exit_status),
            Denied::Field { pointer, equals } => {
                reply.and_then(|r| r.pointer(pointer)) == Some(equals)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_parse_and_each_event_is_the_recording_it_names() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for (agent, p) in all() {
            for probe in [&p.harmless, &p.dangerous] {
                if probe.from.starts_with("https://") || probe.from.ends_with(".rs") {
                    continue;
                }
                let (file, part) = match probe.from.split_once('#') {
                    Some((f, part)) => (f, Some(part)),
                    None => (probe.from.as_str(), None),
                };
                let path = repo.join(file);
                let Ok(text) = std::fs::read_to_string(&path) else {
                    // ../shared is beside the repository only in a checkout.
                    assert!(file.starts_with("../"), "{agent}: {} is missing", file);
                    continue;
                };
                let recorded: Json = serde_json::from_str(&text).unwrap();
                let recorded = part.map_or(recorded.clone(), |k| recorded[k].clone());
                assert_eq!(probe.event, recorded, "{agent}: {}", probe.from);
            }
        }
    }

    #[test]
    fn every_agent_has_a_harmless_and_a_dangerous_event() {
        for (agent, p) in all() {
            assert_ne!(p.harmless.event, p.dangerous.event, "{agent}");
        }
    }
}
