//! Rendering diagnostics: the same values as a human report (miette, with
//! the source line and a caret) or as JSON for scripts.

use crate::diagnostic::{Diagnostic, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};
use std::fmt;

/// Adapter from our diagnostic to miette's trait.
struct Report<'a> {
    d: &'a Diagnostic,
    source: Option<NamedSource<String>>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.d.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.d
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.d.span?;
        self.source.as_ref()?;
        let label = LabeledSpan::new_with_span(
            self.d.label.clone(),
            SourceSpan::new(span.start.into(), span.len.max(1)),
        );
        Some(Box::new(std::iter::once(label)))
    }
}

/// Renders diagnostics for a terminal (or plain text when `color` is off).
pub fn human(diags: &[Diagnostic], color: bool) -> String {
    let handler = handler(color);
    let mut out = String::new();
    for d in diags {
        render_one(&handler, d, &mut out);
    }
    out
}

/// How many more places of a repeated diagnostic the grouped report names.
pub const GROUP_PLACES_SHOWN: usize = 5;

/// Like [`human`], but a diagnostic repeated with the same code, message,
/// label and help (a policy generated from a template, one warning per rule)
/// is drawn once, followed by a count and the first few other places: 2,500
/// copies of one warning hide everything else and take seconds to draw.
pub fn human_grouped(diags: &[Diagnostic], color: bool) -> String {
    let handler = handler(color);
    let mut groups: Vec<Vec<&Diagnostic>> = Vec::new();
    let mut index: std::collections::HashMap<GroupKey<'_>, usize> = Default::default();
    for d in diags {
        let key = (
            d.severity,
            d.code,
            d.message.as_str(),
            d.label.as_deref(),
            d.help.as_deref(),
        );
        match index.get(&key) {
            Some(&i) => groups[i].push(d),
            None => {
                index.insert(key, groups.len());
                groups.push(vec![d]);
            }
        }
    }
    let mut out = String::new();
    for group in groups {
        render_one(&handler, group[0], &mut out);
        let rest = &group[1..];
        if rest.is_empty() {
            continue;
        }
        let places: Vec<String> = rest
            .iter()
            .take(GROUP_PLACES_SHOWN)
            .map(|d| place(d))
            .collect();
        let more = rest.len().saturating_sub(GROUP_PLACES_SHOWN);
        out.push_str(&format!(
            "  … and {} more like this: {}{}\n\n",
            rest.len(),
            places.join(", "),
            if more > 0 {
                format!(", +{more} (`--show-all` lists each)")
            } else {
                String::new()
            }
        ));
    }
    out
}

type GroupKey<'a> = (
    Severity,
    &'static str,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
);

/// `file:line:col`, `file`, or `-` for a diagnostic with no place.
fn place(d: &Diagnostic) -> String {
    match d.location() {
        Some((file, Some((line, col)))) => format!("{file}:{line}:{col}"),
        Some((file, None)) => file,
        None => "-".into(),
    }
}

fn handler(color: bool) -> GraphicalReportHandler {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme).with_width(100)
}

fn render_one(handler: &GraphicalReportHandler, d: &Diagnostic, out: &mut String) {
    let source = d
        .file
        .as_ref()
        .filter(|_| d.span.is_some())
        .map(|f| NamedSource::new(f.name(), f.text.clone()));
    let report = Report { d, source };
    // Without a span miette shows no location: put the file in the text.
    if d.span.is_none() {
        if let Some(f) = &d.file {
            out.push_str(&format!("{}: ", f.name()));
        }
    } else if let Some((file, Some((line, col)))) = d.location() {
        out.push_str(&format!("{file}:{line}:{col}\n"));
    }
    let _ = handler.render_report(out, &report);
    out.push('\n');
}

/// One line per problem, `file:line:col: severity[code]: message`.
pub fn short(d: &Diagnostic) -> String {
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    match d.location() {
        Some((file, Some((l, c)))) => format!("{file}:{l}:{c}: {sev}[{}]: {}", d.code, d.message),
        Some((file, None)) => format!("{file}: {sev}[{}]: {}", d.code, d.message),
        None => format!("{sev}[{}]: {}", d.code, d.message),
    }
}

/// A diagnostic as JSON: stable field names for scripts.
pub fn to_json(d: &Diagnostic) -> serde_json::Value {
    let (file, start) = match d.location() {
        Some((file, pos)) => (Some(file), pos),
        None => (None, None),
    };
    let end = match (&d.file, d.span) {
        (Some(f), Some(s)) => Some(f.line_col(s.end())),
        _ => None,
    };
    serde_json::json!({
        "code": d.code,
        "severity": d.severity,
        "message": d.message,
        "file": file,
        "line": start.map(|p| p.0),
        "column": start.map(|p| p.1),
        "end_line": end.map(|p| p.0),
        "end_column": end.map(|p| p.1),
        "label": d.label,
        "help": d.help,
    })
}

/// SARIF 2.1.0, for code scanning. One run; rules are the codes seen.
pub fn sarif(diags: &[Diagnostic]) -> serde_json::Value {
    let mut codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
    codes.sort_unstable();
    codes.dedup();
    let rules: Vec<serde_json::Value> = codes
        .iter()
        .map(|c| serde_json::json!({ "id": c, "name": c, "shortDescription": { "text": c } }))
        .collect();
    let results: Vec<serde_json::Value> = diags
        .iter()
        .map(|d| {
            let mut text = d.message.clone();
            if let Some(help) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(help);
            }
            let mut result = serde_json::json!({
                "ruleId": d.code,
                "level": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
                "message": { "text": text },
            });
            if let Some(file) = &d.file {
                let mut physical = serde_json::json!({ "artifactLocation": { "uri": uri(&file.name()) } });
                if let Some(span) = d.span {
                    let (sl, sc) = file.line_col(span.start);
                    let (el, ec) = file.line_col(span.end().max(span.start + 1));
                    physical["region"] = serde_json::json!({ "startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec });
                }
                result["locations"] = serde_json::json!([{ "physicalLocation": physical }]);
            }
            result
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "hook-policy",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/hook-policy/hook-policy",
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// SARIF wants URIs: relative paths stay relative, with `/` separators.
fn uri(path: &str) -> String {
    path.trim_start_matches("./").replace('\\', "/")
}

/// GitHub Actions workflow commands: one annotation per problem.
pub fn github(d: &Diagnostic) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut props = vec![format!("title={}", escape_property(d.code))];
    if let Some(file) = &d.file {
        props.insert(0, format!("file={}", escape_property(&file.name())));
        if let Some(span) = d.span {
            let (sl, sc) = file.line_col(span.start);
            let (el, ec) = file.line_col(span.end().max(span.start + 1));
            props.push(format!("line={sl},col={sc},endLine={el},endColumn={ec}"));
        }
    }
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    format!("::{level} {}::{}", props.join(","), escape_data(&message))
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}
