//! The policy tree built straight from the YAML parser's events, for the
//! documents whose every value is read as written.
//!
//! serde-saphyr turns the parser's events into values through a general
//! serde layer: events peeked and replayed, map keys recorded for the
//! duplicate check, comments gathered for the nodes they sit beside. On a
//! 1,000-rule policy that layer was half of the first hook call after an edit
//! (BENCHMARKS.md). Policy files rarely use what it exists for (anchors,
//! aliases, tags, merge keys, numbers in hex or with underscores), so this
//! walks the same parser's events, with the same parser options, into the
//! same tree, and gives up on anything it does not read exactly as
//! serde-saphyr does: the caller then parses the file with serde-saphyr,
//! which also words every error. Giving up is always safe; reading a value
//! differently never is, so every rule here is narrower than serde-saphyr's.
//! `tests/yaml_event_tree.rs` holds the two to identical trees, spans included.

use super::tree::{Entry, Node, Span, Value};
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span as EventSpan, StrInput};

/// The tree of `text`, or `None` when serde-saphyr must decide: a syntax
/// error, anchors, aliases, tags, merge keys, duplicate keys, a key that is
/// not a string, a plain scalar whose type is not obvious, a limit of
/// `budget` approached, more or less than one document.
pub fn build(text: &str, budget: &serde_saphyr::Budget) -> Option<Node> {
    let mut walker = Walker {
        events: Parser::new_from_str_with_options(text, parser_options(budget)),
        budget,
        events_seen: 0,
        scalar_bytes: 0,
        comment_bytes: 0,
    };
    let Event::StreamStart = walker.next()?.0 else {
        return None;
    };
    // A `%YAML` directive may change how scalars are read: serde-saphyr decides.
    let Event::DocumentStart(_, None) = walker.next()?.0 else {
        return None;
    };
    let (event, span) = walker.next()?;
    let root = walker.node(event, span, 0)?;
    let Event::DocumentEnd = walker.next()?.0 else {
        return None;
    };
    let Event::StreamEnd = walker.next()?.0 else {
        return None;
    };
    // An empty document: serde-saphyr has its own reading of it.
    if matches!(root.value, Value::Null) {
        return None;
    }
    Some(root)
}

/// The parser options serde-saphyr derives from the budget (its
/// `Options::parser_options`), so that both accept the same text.
fn parser_options(budget: &serde_saphyr::Budget) -> serde_saphyr::granit_parser::Options {
    let mut options = serde_saphyr::granit_parser::Options::default();
    options.simple_key_max_lookahead = budget.simple_key_max_lookahead;
    options.flow_nesting_limit = budget.flow_nesting_limit;
    options.block_nesting_limit = options
        .block_nesting_limit
        .max(budget.max_depth.saturating_add(1));
    options.emit_comments = true;
    options.max_buffered_comment_events = budget.max_buffered_comment_events;
    options.strict_indentation = serde_saphyr::Options::default().strict_indentation;
    options
}

struct Walker<'a, 'b> {
    events: Parser<'a, StrInput<'a>>,
    budget: &'b serde_saphyr::Budget,
    events_seen: usize,
    scalar_bytes: usize,
    comment_bytes: usize,
}

impl<'a> Walker<'a, '_> {
    /// The next event other than a comment; `None` on a syntax error or a
    /// budget approached (serde-saphyr then reports it).
    fn next(&mut self) -> Option<(Event<'a>, EventSpan)> {
        loop {
            let (event, span) = self.events.next_event()?.ok()?;
            // Every event counts, so these stop no later than serde-saphyr's
            // own budget, which counts nodes among the events.
            self.events_seen += 1;
            if self.events_seen > self.budget.max_nodes.min(self.budget.max_events) {
                return None;
            }
            if let Event::Comment(text, _) = &event {
                self.comment_bytes += text.len();
                if self.comment_bytes > self.budget.max_total_comment_bytes {
                    return None;
                }
                continue;
            }
            return Some((event, span));
        }
    }

    fn node(&mut self, event: Event<'a>, span: EventSpan, depth: usize) -> Option<Node> {
        let span = byte_span(&span)?;
        let value = match event {
            Event::Scalar(text, style, 0, None) => {
                self.count_scalar(&text)?;
                scalar(text.into_owned(), style)?
            }
            Event::SequenceStart(_, 0, None) => {
                let depth = self.deeper(depth)?;
                let mut items = Vec::new();
                loop {
                    let (event, span) = self.next()?;
                    if let Event::SequenceEnd = event {
                        break;
                    }
                    items.push(self.node(event, span, depth)?);
                }
                Value::Seq(items)
            }
            Event::MappingStart(_, 0, None) => {
                let depth = self.deeper(depth)?;
                let mut entries: Vec<Entry> = Vec::new();
                loop {
                    let (event, key_span) = self.next()?;
                    let key = match event {
                        Event::MappingEnd => break,
                        Event::Scalar(text, style, 0, None) => {
                            self.count_scalar(&text)?;
                            key_name(text.into_owned(), style)?
                        }
                        _ => return None,
                    };
                    // serde-saphyr refuses duplicates (by its own notion of
                    // equal keys) and merges `<<`: let it.
                    if key == "<<" || entries.iter().any(|e| e.key == key) {
                        return None;
                    }
                    let (event, span) = self.next()?;
                    let value = self.node(event, span, depth)?;
                    entries.push(Entry {
                        key,
                        key_span: byte_span(&key_span)?,
                        value,
                    });
                }
                Value::Map(entries)
            }
            // Anchored or tagged nodes, aliases, and anything unexpected.
            _ => return None,
        };
        Some(Node { value, span })
    }

    /// One level deeper, if well within the depth serde-saphyr allows.
    fn deeper(&self, depth: usize) -> Option<usize> {
        (depth + 1 < self.budget.max_depth).then_some(depth + 1)
    }

    fn count_scalar(&mut self, text: &str) -> Option<()> {
        self.scalar_bytes += text.len();
        (self.scalar_bytes <= self.budget.max_total_scalar_bytes).then_some(())
    }
}

/// The byte range of an event, as `tree::span_of` takes it from serde-saphyr.
fn byte_span(span: &EventSpan) -> Option<Span> {
    let start = span.start.byte_offset()?;
    let end = span.end.byte_offset()?;
    Some(Span::new(start, end.checked_sub(start)?))
}

/// A scalar's value, read as serde-saphyr reads an untagged scalar into
/// [`Value`]; `None` where that takes more than the obvious rules below.
fn scalar(text: String, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        // Quoted and block scalars are strings as decoded by the parser.
        return Some(Value::Str(text));
    }
    Some(match plain(&text)? {
        Plain::Null => Value::Null,
        Plain::Bool(b) => Value::Bool(b),
        Plain::Int(i) => Value::Int(i),
        Plain::Float(f) => Value::Float(f),
        Plain::Str => Value::Str(text),
    })
}

/// A mapping key's name; only keys that are strings are read here (the
/// loader names others by their value, serde-saphyr resolves them).
fn key_name(text: String, style: ScalarStyle) -> Option<String> {
    match style {
        ScalarStyle::Plain => matches!(plain(&text)?, Plain::Str).then_some(text),
        _ => Some(text),
    }
}

enum Plain {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str,
}

/// What an untagged plain scalar is, by serde-saphyr's rules (null, then a
/// YAML 1.1 boolean, then an integer, then a float, else a string), for the
/// spellings whose reading is plain; `None` for the rest (hex, octal or
/// binary integers, underscores, exponents, signs other than a leading `-`,
/// leading zeros, `.inf`, `.nan`, and more digits than an `i64` surely holds).
fn plain(text: &str) -> Option<Plain> {
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Some(Plain::Null);
    }
    let t = text.trim_matches([' ', '\t', '\r', '\n']);
    let is = |word: &str| t.eq_ignore_ascii_case(word);
    if is("true") || is("yes") || is("y") || is("on") {
        return Some(Plain::Bool(true));
    }
    if is("false") || is("no") || is("n") || is("off") {
        return Some(Plain::Bool(false));
    }
    if !t.bytes().any(|b| b.is_ascii_digit()) {
        // Neither an integer nor a finite float without a digit; the
        // non-finite spellings are `.inf` and `.nan`, with a sign.
        let unsigned = t.trim_start_matches(['+', '-']);
        let non_finite =
            unsigned.eq_ignore_ascii_case(".inf") || unsigned.eq_ignore_ascii_case(".nan");
        return (!non_finite).then_some(Plain::Str);
    }
    // Every integer and float spelling with a digit starts, after one
    // sign, with a digit or a point (`.5`), and holds only digits, hex
    // digits (`e` and `b` among them), radix letters, signs, points and
    // underscores; anything else is a string.
    let after_sign = t.strip_prefix(['+', '-']).unwrap_or(t);
    let starts_numeric = after_sign
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.');
    let numeric = |b: u8| b.is_ascii_hexdigit() || b"+-._xXoO".contains(&b);
    if !starts_numeric || !t.bytes().all(numeric) {
        return Some(Plain::Str);
    }
    let (negative, unsigned) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // No leading zeros (serde-saphyr keeps `0127` a string or reads it as
    // octal, by option), and short enough for an i64 and an exact reading.
    if !digits(whole) || (whole.len() > 1 && whole.starts_with('0')) || whole.len() > 18 {
        return None;
    }
    match fraction {
        None => {
            let magnitude: i64 = whole.parse().ok()?;
            Some(Plain::Int(if negative { -magnitude } else { magnitude }))
        }
        Some(fraction) if digits(fraction) && fraction.len() <= 18 => {
            let value: f64 = t.parse().ok()?;
            value.is_finite().then_some(Plain::Float(value))
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<&'static str> {
        Some(match plain(text)? {
            Plain::Null => "null",
            Plain::Bool(_) => "bool",
            Plain::Int(_) => "int",
            Plain::Float(_) => "float",
            Plain::Str => "str",
        })
    }

    #[test]
    fn plain_scalars_are_read_or_left_to_serde_saphyr() {
        for (text, kind) in [
            ("", Some("null")),
            ("~", Some("null")),
            ("nULL", Some("str")),
            ("Yes", Some("bool")),
            ("off", Some("bool")),
            ("12", Some("int")),
            ("-3", Some("int")),
            ("0", Some("int")),
            ("0.25", Some("float")),
            ("-1.5", Some("float")),
            ("rm -rf", Some("str")),
            ("-rf", Some("str")),
            ("/etc/passwd", Some("str")),
            ("1.2.3.4/8", Some("str")),
            ("v1", Some("str")),
            ("inf", Some("str")),
            ("nan", Some("str")),
            ("-f", Some("str")),
            (".env", Some("str")),
            ("ctx-13", Some("str")),
            ("v1.2", Some("str")),
            ("1.5x", None),
            ("1e", None),
            ("-1_0", None),
            ("-.inf", None),
            ("0127", None),
            ("0x1f", None),
            ("1_000", None),
            ("1e3", None),
            ("+5", None),
            (".inf", None),
            ("-.NaN", None),
            ("1.", None),
            ("1.2.3", None),
            ("1234567890123456789", None),
        ] {
            assert_eq!(read(text), kind, "{text:?}");
        }
    }
}
