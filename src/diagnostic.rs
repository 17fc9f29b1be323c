//! Diagnostics as data: a code, a severity, a message, where, and a hint.
//!
//! Every stage that finds a problem (YAML, schema, hooks and effects, CEL,
//! globs) produces these values and nothing else; `render` turns the same
//! values into the human report (miette), JSON, SARIF or GitHub annotations.

use crate::load::tree::Span;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A policy source file as read from disk.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user gave it (or as found under a directory they gave).
    pub path: PathBuf,
    pub text: String,
    /// Byte offsets where lines start, built on first use: every rule asks
    /// for its line, and rescanning a 10,000-rule file each time is quadratic.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: String) -> SourceFile {
        SourceFile {
            path,
            text,
            line_starts: std::sync::OnceLock::new(),
        }
    }

    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let line = starts.partition_point(|&s| s <= offset);
        let line_start = starts[line - 1];
        let col = self.text[line_start..offset].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// A stable identifier, e.g. `schema::unknown-key`; documented in the README.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub file: Option<Arc<SourceFile>>,
    pub span: Option<Span>,
    /// Short text drawn under the caret.
    pub label: Option<String>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            file: None,
            span: None,
            label: None,
            help: None,
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    pub fn at(mut self, file: &Arc<SourceFile>, span: Span) -> Self {
        self.file = Some(file.clone());
        self.span = Some(span);
        self
    }

    pub fn in_file(mut self, file: &Arc<SourceFile>) -> Self {
        self.file = Some(file.clone());
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn help_opt(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    /// `file:line:column`, or just the file, or nothing.
    pub fn location(&self) -> Option<(String, Option<(usize, usize)>)> {
        let file = self.file.as_ref()?;
        Some((file.name(), self.span.map(|s| file.line_col(s.start))))
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Suggests the closest candidate for a misspelt name ("did you mean").
pub fn did_you_mean<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let wrong_lower = wrong.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&wrong_lower, &c.to_lowercase());
        // Accept roughly one typo in four characters, at least one.
        let limit = (c.len().max(wrong.len()) / 4).max(1);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("when_", ["when", "deny", "hook"]),
            Some("when")
        );
        assert_eq!(
            did_you_mean("pre_shel_exec", ["pre_shell_exec", "pre_tool"]),
            Some("pre_shell_exec")
        );
        assert_eq!(did_you_mean("zzz", ["when", "deny"]), None);
    }

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new("x".into(), "ab\nçd: x\n".into());
        let off = f.text.find("d:").unwrap();
        assert_eq!(f.line_col(off), (2, 2));
    }
}
