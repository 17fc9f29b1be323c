//! The URL corpus (`tests/corpora/urls.tsv`): spellings of destinations an
//! agent may be asked to fetch, each labelled with
//!
//! 1. the class [`hook_policy::url_class::classify`] must give it;
//! 2. the verdict of the shipped `policies/` on `pre_fetch_url`, through the
//!    real engine (one compiled policy, one decision per line);
//! 3. the normalised host (or `*` when not checked, `(empty)` for none).
//!
//! A sample also goes through the built `policy` binary. Every failing line
//! is reported. `CORPUS_PRINT=1` prints what was concluded for every line.

mod common;
mod corpus_support;

use corpus_support::{read, Case, Report};
use hook_policy::compile::CompiledPolicy;
use hook_policy::engine::{self, Prepared};
use hook_policy::eval::{decide, DecideContext};
use hook_policy::url_class::{classify, UrlClass};
use serde_json::{json, Value};

const HOOK: &str = "pre_fetch_url";
const CTX: DecideContext<'static> = DecideContext {
    harness: "chibi",
    project_root: "/proj",
    home: Some("/home/user"),
};

/// Columns: class, verdict, host, url.
const CLASS: usize = 0;
const VERDICT: usize = 1;
const HOST: usize = 2;
const URL: usize = 3;

/// Verdict labels and the shipped rule each stands for.
const VERDICTS: &[(&str, Option<&str>)] = &[
    ("allow", None),
    ("metadata", Some("no-cloud-metadata")),
    ("internal", Some("no-internal-urls")),
];

const CLASSES: &[UrlClass] = &[
    UrlClass::Loopback,
    UrlClass::Private,
    UrlClass::LinkLocal,
    UrlClass::CloudMetadata,
    UrlClass::Unspecified,
    UrlClass::Multicast,
    UrlClass::Broadcast,
    UrlClass::Reserved,
    UrlClass::Public,
    UrlClass::Invalid,
    UrlClass::NonHttp,
];

fn shipped_policy() -> CompiledPolicy {
    let dir = common::repo().join("policies");
    match engine::prepare(&[dir], Some(HOOK)) {
        Prepared::Ready(policy) => policy,
        Prepared::Broken { message, .. } => panic!("shipped policies do not load: {message}"),
    }
}

fn payload(url: &str) -> Value {
    json!({"tool_name": "fetch_url", "url": url, "safety": "sensitive"})
}

fn expected_rule(label: &str) -> Result<Option<&'static str>, String> {
    VERDICTS
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, rule)| *rule)
        .ok_or_else(|| format!("unknown verdict label `{label}`"))
}

fn check_case(policy: &CompiledPolicy, case: &Case) -> Vec<String> {
    let url = case.field(URL);
    let info = classify(url);
    let mut problems = Vec::new();
    match CLASSES.iter().find(|c| c.as_str() == case.field(CLASS)) {
        None => problems.push(format!("unknown class label `{}`", case.field(CLASS))),
        Some(class) if *class != info.class => problems.push(format!(
            "class: expected {class}, got {} ({})",
            info.class,
            info.reasons.join("; ")
        )),
        Some(_) => {}
    }
    let host = case.field(HOST);
    if host != "*" && host != info.host {
        problems.push(format!("host: expected {host:?}, got {:?}", info.host));
    }
    let decision = decide(policy, HOOK, &payload(url), CTX);
    if !decision.errors.is_empty() {
        problems.push(format!("rule errors: {:?}", decision.errors));
    }
    let denied_by = decision.deny.as_ref().map(|w| w.rule.as_str());
    match expected_rule(case.field(VERDICT)) {
        Err(e) => problems.push(e),
        Ok(expected) if expected != denied_by => problems.push(format!(
            "verdict: expected {}, got {}",
            expected.map_or("allow".to_string(), |r| format!("deny by {r}")),
            denied_by.map_or("allow".to_string(), |r| format!("deny by {r}")),
        )),
        Ok(_) => {}
    }
    if std::env::var_os("CORPUS_PRINT").is_some() {
        eprintln!(
            "{:>3} {:<15} {:<18} {:<30} {:?}",
            case.line,
            info.class.as_str(),
            denied_by.unwrap_or("allow"),
            info.host,
            url
        );
    }
    problems
}

#[test]
fn every_corpus_url_gets_its_labelled_class_host_and_verdict() {
    let cases = read("urls.tsv", 4);
    assert!(cases.len() >= 60, "the corpus has {} lines", cases.len());
    let policy = shipped_policy();
    let mut report = Report::new("urls.tsv");
    for case in &cases {
        let problems = check_case(&policy, case);
        report.record(case, problems);
    }
    report.finish();
}

#[test]
fn the_corpus_covers_every_class() {
    let cases = read("urls.tsv", 4);
    for class in CLASSES {
        let n = cases
            .iter()
            .filter(|c| c.field(CLASS) == class.as_str())
            .count();
        assert!(n > 0, "no line of class {class}");
    }
}

/// The verdict follows from the class alone under `network.yaml`; a label
/// that says otherwise is a typo, unless the line is a known gap.
#[test]
fn verdict_labels_agree_with_class_labels() {
    let mut wrong = Vec::new();
    for case in read("urls.tsv", 4).iter().filter(|c| c.gap.is_none()) {
        let implied = match case.field(CLASS) {
            "public" => "allow",
            "cloud_metadata" => "metadata",
            _ => "internal",
        };
        if case.field(VERDICT) != implied {
            wrong.push(format!("urls.tsv:{}: {}", case.line, case.raw));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_binary_agrees_on_a_sample_of_urls() {
    let cases: Vec<Case> = read("urls.tsv", 4)
        .into_iter()
        .filter(|c| c.gap.is_none())
        .collect();
    let step = (cases.len() / 8).max(1);
    let policies = common::repo().join("policies").display().to_string();
    let mut wrong = Vec::new();
    for case in cases.iter().step_by(step) {
        let body = serde_json::to_vec(&payload(case.field(URL))).unwrap();
        let out = common::policy(&["eval", "--policy", &policies, "--hook", HOOK], &body);
        let reply = common::stdout_json(&out);
        let ok = match expected_rule(case.field(VERDICT)).unwrap() {
            None => reply == json!({}),
            Some(rule) => {
                reply["denied"] == json!(true)
                    && reply["reason"]
                        .as_str()
                        .is_some_and(|r| r.contains(&format!("[hook-policy rule: {rule}]")))
            }
        };
        if !ok {
            wrong.push(format!(
                "urls.tsv:{}: {}\n    binary replied {reply}",
                case.line, case.raw
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
