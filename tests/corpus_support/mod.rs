//! Reading the labelled corpora in `tests/corpora/*.tsv` and reporting on
//! them, shared by `shell_corpus.rs`, `url_corpus.rs` and `path_corpus.rs`.
//!
//! Corpus format (the same for every file):
//! - one case per line, fields separated by a single tab;
//! - blank lines and lines starting with `#` are comments;
//! - fields may spell characters a TSV line cannot hold: `␤` is a newline,
//!   `␉` a tab, `(empty)` (a whole field) the empty string, and
//!   `«N*text»` is `text` repeated N times (for very long inputs);
//! - an optional last field `gap: why` marks a known gap: the other fields
//!   say what *should* be concluded, the test reports the line as a known
//!   gap while it still fails, and fails once it passes, so the label is
//!   removed when the gap is closed.
#![allow(dead_code)]

use std::path::PathBuf;

/// One corpus line.
#[derive(Debug, Clone)]
pub struct Case {
    /// 1-based line number in the file.
    pub line: usize,
    /// The line as written, for failure messages.
    pub raw: String,
    /// Decoded fields, without the gap field.
    pub fields: Vec<String>,
    /// The explanation of a known gap.
    pub gap: Option<String>,
}

impl Case {
    pub fn field(&self, i: usize) -> &str {
        &self.fields[i]
    }
}

pub fn corpus_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpora")
        .join(name)
}

/// Read `tests/corpora/<name>`; every case has exactly `columns` fields
/// (plus an optional gap field).
pub fn read(name: &str, columns: usize) -> Vec<Case> {
    let path = corpus_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut cases = Vec::new();
    let mut malformed = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields: Vec<&str> = line.split('\t').collect();
        let gap = match fields.last() {
            Some(last) if fields.len() > columns && last.starts_with("gap:") => {
                let why = last.trim_start_matches("gap:").trim().to_string();
                fields.pop();
                Some(why)
            }
            _ => None,
        };
        if fields.len() != columns {
            malformed.push(format!(
                "{name}:{}: expected {columns} tab-separated fields, found {}: {line}",
                index + 1,
                fields.len()
            ));
            continue;
        }
        cases.push(Case {
            line: index + 1,
            raw: line.to_string(),
            fields: fields.into_iter().map(decode).collect(),
            gap,
        });
    }
    assert!(malformed.is_empty(), "{}", malformed.join("\n"));
    cases
}

/// Undo the corpus escapes (see the module docs).
pub fn decode(field: &str) -> String {
    if field == "(empty)" {
        return String::new();
    }
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(open) = rest.find('«') {
        out.push_str(&rest[..open]);
        let after = &rest[open + '«'.len_utf8()..];
        let close = after
            .find('»')
            .unwrap_or_else(|| panic!("unclosed « in {field:?}"));
        let body = &after[..close];
        let (count, text) = body
            .split_once('*')
            .unwrap_or_else(|| panic!("«N*text» expected in {field:?}"));
        let count: usize = count
            .parse()
            .unwrap_or_else(|_| panic!("bad count in {field:?}"));
        out.push_str(&text.repeat(count));
        rest = &after[close + '»'.len_utf8()..];
    }
    out.push_str(rest);
    out.replace('␤', "\n").replace('␉', "\t")
}

/// Collects the outcome of every line, then fails once with all of them.
#[derive(Default)]
pub struct Report {
    corpus: &'static str,
    failures: Vec<String>,
    gaps_still_open: Vec<String>,
    gaps_closed: Vec<String>,
    pub checked: usize,
}

impl Report {
    pub fn new(corpus: &'static str) -> Self {
        Report {
            corpus,
            ..Report::default()
        }
    }

    /// Record one line: `problems` are the ways it differed from its labels.
    pub fn record(&mut self, case: &Case, problems: Vec<String>) {
        self.checked += 1;
        let head = format!("{}:{}: {}", self.corpus, case.line, case.raw);
        match (&case.gap, problems.is_empty()) {
            (None, true) => {}
            (None, false) => self
                .failures
                .push(format!("{head}\n    {}", problems.join("\n    "))),
            (Some(_), false) => self.gaps_still_open.push(head),
            (Some(_), true) => self
                .gaps_closed
                .push(format!("{head}\n    passes now: remove its `gap:` label")),
        }
    }

    /// Panics with every failing line when any line failed.
    pub fn finish(self) {
        if !self.gaps_still_open.is_empty() {
            eprintln!(
                "{} known gap(s) in {}:\n{}",
                self.gaps_still_open.len(),
                self.corpus,
                self.gaps_still_open.join("\n")
            );
        }
        let mut all = self.failures;
        all.extend(self.gaps_closed);
        assert!(
            all.is_empty(),
            "{} of {} line(s) of {} are wrong:\n{}",
            all.len(),
            self.checked,
            self.corpus,
            all.join("\n")
        );
    }
}
