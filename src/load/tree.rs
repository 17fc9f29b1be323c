//! YAML parsed into a plain tree whose every node and key carries its byte span.
//!
//! Why a tree of our own instead of deserialising straight into the policy
//! structs: serde stops at the first error, and `policy check` must report
//! every problem at once. The tree is checked as a whole against the JSON
//! Schema (see `check::structure`), and only a clean tree is turned into typed
//! rules. The spans also let CEL errors point at a column inside a string.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// A byte range in a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub len: usize,
}

impl Span {
    pub fn new(start: usize, len: usize) -> Self {
        Span { start, len }
    }

    pub fn end(&self) -> usize {
        self.start + self.len
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

impl Node {
    /// A node from JSON, with empty spans: for rules that come from the
    /// compiled-policy cache, which was checked when it was written.
    pub fn from_json(json: &serde_json::Value) -> Node {
        use serde_json::Value as J;
        let value = match json {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            J::String(s) => Value::Str(s.clone()),
            J::Array(items) => Value::Seq(items.iter().map(Node::from_json).collect()),
            J::Object(map) => Value::Map(
                map.iter()
                    .map(|(k, v)| Entry {
                        key: k.clone(),
                        key_span: Span::default(),
                        value: Node::from_json(v),
                    })
                    .collect(),
            ),
        };
        Node {
            value,
            span: Span::default(),
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "mapping",
        }
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.value),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match &mut self.value {
            Value::Map(entries) => entries
                .iter_mut()
                .find(|e| e.key == key)
                .map(|e| &mut e.value),
            _ => None,
        }
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == key),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Converts to JSON; YAML floats that are not finite become null (JSON has
    /// no such numbers, and the schema rejects them where a number is wanted).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Byte span of a serde-saphyr location; parsing from `&str` always gives
/// byte offsets, the fallback only guards against a future change there.
fn span_of(loc: &serde_saphyr::Location) -> Span {
    let s = loc.span();
    let start = s.byte_offset().unwrap_or(s.offset()) as usize;
    let len = s.byte_len().unwrap_or(s.len()) as usize;
    Span::new(start, len)
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned: Spanned<Value> = Spanned::deserialize(d)?;
        Ok(Node {
            value: spanned.value,
            span: span_of(&spanned.referenced),
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        i64::try_from(v).map(Value::Int).map_err(|_| {
            E::custom(format!(
                "integer {v} is too large (the limit is {})",
                i64::MAX
            ))
        })
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::Int)
            .map_err(|_| E::custom(format!("integer {v} does not fit in 64 bits")))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::Int)
            .map_err(|_| E::custom(format!("integer {v} does not fit in 64 bits")))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Value, E> {
        Err(E::custom("binary values are not supported in policies"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            let name = match key.value {
                Value::Str(s) => s,
                Value::Int(i) => i.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Float(f) => f.to_string(),
                Value::Null => "null".to_owned(),
                Value::Seq(_) | Value::Map(_) => {
                    return Err(de::Error::custom("mapping keys must be plain scalars"))
                }
            };
            let value = map.next_value::<Node>()?;
            entries.push(Entry {
                key: name,
                key_span: key.span,
                value,
            });
        }
        Ok(Value::Map(entries))
    }
}

/// Resource limits for parsing a policy file. Policies are small; these bound
/// what a hostile or broken file can make the parser do (alias bombs, deep
/// nesting, huge documents).
#[derive(Debug, Clone, Copy)]
pub struct ParseLimits {
    pub max_bytes: usize,
    pub max_depth: usize,
    pub max_nodes: usize,
    pub max_aliases: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_bytes: 8 * 1024 * 1024,
            max_depth: 64,
            // A 10,000-rule policy is about 150,000 nodes.
            max_nodes: 500_000,
            max_aliases: 1_000,
        }
    }
}

/// A YAML syntax or limit error, with the byte span it points at when known.
#[derive(Debug, Clone)]
pub struct ParseError {
    pub message: String,
    pub span: Option<Span>,
}

/// Parses one YAML document into a tree.
pub fn parse(text: &str, limits: ParseLimits) -> Result<Node, ParseError> {
    if text.len() > limits.max_bytes {
        return Err(ParseError {
            message: format!(
                "the file is {} bytes; policy files are limited to {} bytes",
                text.len(),
                limits.max_bytes
            ),
            span: None,
        });
    }
    // Most policy files need none of serde-saphyr's interpretation layer;
    // it reads the rest, and words every error (see `event_tree`).
    match parse_from_events(text, limits) {
        Some(tree) => Ok(tree),
        None => parse_with_serde_saphyr(text, limits),
    }
}

/// The tree built straight from the parser's events, when the document
/// needs nothing more (see `event_tree`); public for the differential test.
pub fn parse_from_events(text: &str, limits: ParseLimits) -> Option<Node> {
    super::event_tree::build(text, &budget(limits))
}

/// The tree as serde-saphyr reads it: the reference reading of every
/// document, and the one that words errors; public for the differential test.
pub fn parse_with_serde_saphyr(text: &str, limits: ParseLimits) -> Result<Node, ParseError> {
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget(limits));
    serde_saphyr::from_str_with_options::<Node>(text, options).map_err(|e| {
        let span = e.location().map(|loc| span_of(&loc));
        ParseError {
            message: describe_error(&e),
            span,
        }
    })
}

/// serde-saphyr's budget for `limits`.
fn budget(limits: ParseLimits) -> serde_saphyr::Budget {
    // Both structs are non-exhaustive: start from the defaults and tighten.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = limits.max_depth;
    budget.max_nodes = limits.max_nodes;
    budget.max_aliases = limits.max_aliases;
    budget.max_documents = 1;
    // Aliases replay recorded events; bound the replay so an alias bomb fails fast.
    budget.max_recorded_anchor_events = 100_000;
    budget.max_events = 4 * limits.max_nodes;
    budget
}

/// The error text without serde-saphyr's own snippet rendering: our renderer
/// draws the source line and caret itself.
fn describe_error(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    // serde-saphyr appends "at line X column Y" and a snippet; keep the first line.
    let first = text.lines().next().unwrap_or("invalid YAML").trim();
    // Drop "error: line N column M: ": the renderer shows the location.
    let first = first.strip_prefix("error:").unwrap_or(first).trim_start();
    let without_position = match first.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") && head.contains(" column ") => rest,
        _ => first,
    };
    without_position.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_values_and_keys() {
        let text = "version: 1\nrules:\n  - id: a\n    when: 'x == 1'\n";
        let tree = parse(text, ParseLimits::default()).unwrap();
        let rules = tree.get("rules").unwrap();
        let Value::Seq(items) = &rules.value else {
            panic!()
        };
        let when = items[0].entry("when").unwrap();
        assert_eq!(&text[when.key_span.start..when.key_span.end()], "when");
        assert_eq!(
            &text[when.value.span.start..when.value.span.end()],
            "'x == 1'"
        );
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = parse(&text, ParseLimits::default()).unwrap_err();
        assert!(!err.message.is_empty());
    }

    #[test]
    fn syntax_error_has_location() {
        let text = "rules:\n  - id: a\n   when: [unclosed\n";
        let err = parse(text, ParseLimits::default()).unwrap_err();
        assert!(err.span.is_some(), "{err:?}");
    }
}
