//! `policy packs`: the shipped packs as a list, one pack in full, or the
//! Markdown reference (docs/packs.md). Everything is read from the embedded
//! pack files and their tests, so the documentation cannot drift from what
//! ships.

use super::{shipped, ShippedPack};
use crate::load::tree::{self, Node, ParseLimits, Value};
use crate::testing::{TestCase, TestFile};
use serde_json::Value as Json;
use std::fmt::Write as _;

/// One rule of a pack, as documentation shows it.
#[derive(Debug)]
pub struct RuleDoc {
    pub id: String,
    pub severity: String,
    pub hooks: Vec<String>,
    pub description: String,
    /// `deny`, `ask` or `block`.
    pub outcome: String,
    pub reason: String,
}

/// The rules of a pack, read from its text.
pub fn rules(pack: &ShippedPack) -> Vec<RuleDoc> {
    let Ok(tree) = tree::parse(pack.embedded.text, ParseLimits::default()) else {
        return Vec::new();
    };
    let text = |n: &Node, key: &str| n.get(key).and_then(Node::as_str).unwrap_or("").to_string();
    super::rule_nodes(&tree)
        .map(|n| {
            let hooks = match n.get("hook").map(|h| &h.value) {
                Some(Value::Str(h)) => vec![h.clone()],
                Some(Value::Seq(items)) => items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
            let outcome = ["deny", "ask", "block"]
                .into_iter()
                .find(|k| n.get(k).is_some())
                .unwrap_or("");
            RuleDoc {
                id: text(n, "id"),
                severity: text(n, "severity"),
                hooks,
                description: text(n, "description"),
                outcome: outcome.to_string(),
                reason: if outcome.is_empty() {
                    String::new()
                } else {
                    text(n, outcome)
                },
            }
        })
        .collect()
}

/// The test cases of a pack (none when it has no test file, or it does not read).
pub fn tests(pack: &ShippedPack) -> Vec<TestCase> {
    pack.embedded
        .tests
        .and_then(|t| serde_saphyr::from_str::<TestFile>(t).ok())
        .map(|f| f.tests)
        .unwrap_or_default()
}

/// `policy packs`: one line per pack.
pub fn list() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:>7} {:<11} {:>5}  description",
        "pack", "version", "recommended", "rules"
    );
    for p in shipped() {
        let _ = writeln!(
            out,
            "{:<16} {:>7} {:<11} {:>5}  {}",
            p.header.name,
            p.header.version,
            if p.header.recommended { "yes" } else { "no" },
            p.rule_ids().len(),
            p.header.description
        );
    }
    out.push_str("\nEnable packs in a policy with `packs: { enable: [recommended, NAME] }`; `policy packs show NAME` lists a pack's rules and tests.\n");
    out
}

/// `policy packs show NAME`: the pack, its rules and its test cases.
pub fn show(pack: &ShippedPack) -> String {
    let mut out = String::new();
    let h = &pack.header;
    let _ = writeln!(
        out,
        "{} (version {}, {}recommended, {})",
        h.name,
        h.version,
        if h.recommended { "" } else { "not " },
        pack.embedded.file
    );
    let _ = writeln!(out, "{}\n", h.description);
    let rules = rules(pack);
    let _ = writeln!(out, "rules ({}):", rules.len());
    for r in &rules {
        let _ = writeln!(
            out,
            "  {}  [{}; {}; {}]",
            r.id,
            r.severity,
            r.outcome,
            r.hooks.join(", ")
        );
        let _ = writeln!(out, "      why: {}", r.description);
        let _ = writeln!(out, "      reason: {}", r.reason);
    }
    let tests = tests(pack);
    let _ = writeln!(out, "\ntests ({}):", tests.len());
    for t in &tests {
        let _ = writeln!(out, "  {}", t.name);
        let _ = writeln!(
            out,
            "      {}: {}  =>  {}",
            case_hook(t),
            subject(t),
            expectation(t)
        );
    }
    out
}

/// The hook a case asks, or the harness whose event it is.
fn case_hook(case: &TestCase) -> String {
    match (&case.hook, &case.harness) {
        (Some(hook), _) => hook.clone(),
        (None, Some(h)) => format!("{h:?} event"),
        (None, None) => String::new(),
    }
}

/// What a case puts to the hook, in a line: the command, URL or path when
/// the payload has one, else the payload (or its file).
fn subject(case: &TestCase) -> String {
    let Some(payload) = &case.payload else {
        return case
            .payload_file
            .as_ref()
            .map(|f| format!("payload file {}", f.display()))
            .unwrap_or_default();
    };
    let field = |p: &Json| {
        ["command", "url", "path"]
            .into_iter()
            .find_map(|k| p.get(k).and_then(Json::as_str).map(str::to_string))
    };
    field(payload)
        .or_else(|| payload.get("arguments").and_then(field))
        .unwrap_or_else(|| payload.to_string())
}

/// A case's expectation in words.
fn expectation(case: &TestCase) -> String {
    let e = &case.expect;
    let mut parts = Vec::new();
    if e.reply
        .as_ref()
        .is_some_and(|r| r.as_object().is_some_and(|o| o.is_empty()))
    {
        parts.push("no objection".to_string());
    } else if e.reply.is_some() {
        parts.push("exact reply".to_string());
    }
    if let Some(part) = &e.reply_includes {
        if part.get("denied") == Some(&Json::Bool(true)) {
            parts.push("denied".to_string());
        } else if part.get("block") == Some(&Json::Bool(true)) {
            parts.push("blocked".to_string());
        } else {
            parts.push(format!("reply includes {part}"));
        }
    }
    if !e.matched.is_empty() {
        parts.push(format!("matches {}", e.matched.join(", ")));
    }
    if !e.not_matched.is_empty() {
        parts.push(format!("does not match {}", e.not_matched.join(", ")));
    }
    parts.join("; ")
}

/// docs/packs.md.
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "<!-- Generated by `policy packs --markdown` from packs/*.yaml; do not edit. -->\n\
         # Guardrail packs\n\n\
         The packs shipped inside the `policy` binary. A policy enables them by name, \
         or all recommended ones at once:\n\n\
         ```yaml\nversion: 1\npacks:\n  enable: [recommended]\n```\n\n\
         See the README's \"Packs\" section for disabling rules, changing outcomes \
         (`deny`, `ask`, `log`) and exceptions.\n\n\
         A pack is recommended when what it stops is never routine for a coding agent \
         working unasked, and its near misses (builds, tests, deploys, deletes inside the \
         project, single resources by name) pass; tests/corpora/benign.tsv holds the \
         recommended set to zero denials. A pack is opt-in when what it stops is a normal \
         step of some workflows (publishing a release, talking to a local dev server). \
         Each pack says why under its heading.\n\n\
         | pack | version | recommended | rules | description |\n|---|---|---|---|---|\n",
    );
    for p in shipped() {
        let _ = writeln!(
            out,
            "| [`{}`](#{}) | {} | {} | {} | {} |",
            p.header.name,
            anchor(&p.header.name),
            p.header.version,
            if p.header.recommended { "yes" } else { "no" },
            p.rule_ids().len(),
            cell(&p.header.description)
        );
    }
    for p in shipped() {
        let _ = writeln!(out, "\n## {}\n", p.header.name);
        let _ = writeln!(
            out,
            "{}\n\nVersion {}, {}. Source: `{}`.\n",
            p.header.description,
            p.header.version,
            if p.header.recommended {
                "recommended (enabled by `recommended`)"
            } else {
                "opt-in"
            },
            p.embedded.file
        );
        if let Some(why) = &p.header.rationale {
            let _ = writeln!(out, "{why}\n");
        }
        out.push_str("| rule | severity | hooks | outcome | why | reason given to the agent |\n|---|---|---|---|---|---|\n");
        for r in rules(p) {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                r.id,
                r.severity,
                r.hooks.join(", "),
                r.outcome,
                cell(&r.description),
                cell(&r.reason)
            );
        }
        let tests = tests(p);
        if !tests.is_empty() {
            let _ = writeln!(
                out,
                "\n<details><summary>{} test cases</summary>\n",
                tests.len()
            );
            for t in &tests {
                let _ = writeln!(
                    out,
                    "- {}: {} ⇒ {}",
                    t.name.replace('\n', " "),
                    code(&subject(t)),
                    expectation(t)
                );
            }
            out.push_str("\n</details>\n");
        }
    }
    out
}

fn anchor(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .collect::<String>()
        .to_lowercase()
}

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// An inline code span for a list item, shown as written: a newline would
/// end the item, so it is drawn as ⏎; backticks inside get a double fence.
fn code(s: &str) -> String {
    let s = s.replace('\n', "⏎");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// Runs `policy packs [show NAME] [--markdown]`: the text to print, or an
/// error message (exit status 2).
pub fn run(show_name: Option<&str>, markdown_out: bool) -> Result<String, String> {
    match (show_name, markdown_out) {
        (None, true) => Ok(markdown()),
        (None, false) => Ok(list()),
        (Some(_), true) => Err("--markdown documents every pack; leave out `show NAME`".into()),
        (Some(name), false) => match super::find(name) {
            Some(p) => Ok(show(p)),
            None => {
                let hint = crate::diagnostic::did_you_mean(
                    name,
                    shipped().iter().map(|p| p.header.name.as_str()),
                );
                Err(format!(
                    "no pack named `{name}`{}; `policy packs` lists them",
                    hint.map(|h| format!(" (did you mean `{h}`?)"))
                        .unwrap_or_default()
                ))
            }
        },
    }
}
