//! Structural validation of a policy tree against the generated JSON Schema.
//!
//! The schema committed in `schema/` is what editors and CI validators see;
//! checking with the very same schema keeps `policy check` and those tools in
//! agreement. Walking our spanned tree (rather than handing JSON to a generic
//! validator) is what gives every error its exact location and a useful hint.
//! Only the keywords the generator emits are interpreted; an unknown keyword
//! in the schema is a bug caught by the tests, not something users can hit.

use crate::diagnostic::{did_you_mean, Diagnostic, SourceFile};
use crate::load::tree::{Node, Span, Value};
use serde_json::{Map, Value as Json};
use std::sync::Arc;

pub struct SchemaChecker<'s> {
    root: &'s Json,
    /// What the whole document is, in messages ("unknown key `x` in a policy file").
    document: &'static str,
    patterns: std::cell::RefCell<std::collections::HashMap<String, Option<regex::Regex>>>,
}

/// What is being validated, for messages that speak the user's language.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    def: Option<&'a str>,
    key: Option<&'a str>,
}

impl<'s> SchemaChecker<'s> {
    pub fn new(root: &'s Json) -> Self {
        SchemaChecker {
            root,
            document: "a policy file",
            patterns: Default::default(),
        }
    }

    /// Names the document in messages (the default is "a policy file").
    pub fn document(mut self, name: &'static str) -> Self {
        self.document = name;
        self
    }

    /// Validates a whole file's tree; returns every problem found.
    pub fn check(&self, file: &Arc<SourceFile>, node: &Node) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        self.walk(
            file,
            node,
            self.root,
            Ctx {
                def: None,
                key: None,
            },
            &mut out,
        );
        out
    }

    fn resolve(&self, schema: &'s Json) -> (&'s Json, Option<&'s str>) {
        let mut schema = schema;
        let mut def = None;
        while let Some(reference) = schema.get("$ref").and_then(Json::as_str) {
            let Some(name) = reference.strip_prefix("#/$defs/") else {
                break;
            };
            match self.root.get("$defs").and_then(|d| d.get(name)) {
                Some(target) => {
                    schema = target;
                    def = Some(name);
                }
                None => break,
            }
        }
        (schema, def)
    }

    fn walk(
        &self,
        file: &Arc<SourceFile>,
        node: &Node,
        schema: &'s Json,
        ctx: Ctx<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        let (schema, def) = self.resolve(schema);
        let ctx = Ctx {
            def: def.or(ctx.def),
            key: ctx.key,
        };
        let Some(obj) = schema.as_object() else {
            return;
        };

        if let Some(expected) = obj.get("const") {
            if node.to_json() != *expected {
                out.push(
                    Diagnostic::error(
                        "schema::value",
                        format!("expected {}, found {}", expected, show(node)),
                    )
                    .at(file, node.span)
                    .label(format!("must be {expected}")),
                );
            }
            return;
        }
        if let Some(choices) = obj
            .get("oneOf")
            .or_else(|| obj.get("anyOf"))
            .and_then(Json::as_array)
        {
            if let Some(values) = choice_values(choices) {
                self.check_choice(file, node, &values, ctx, out);
                return;
            }
            self.check_alternatives(file, node, choices, ctx, out);
            return;
        }
        if let Some(types) = obj.get("type") {
            if !type_matches(node, types) {
                out.push(type_error(file, node, types, ctx));
                return;
            }
        }
        if let Some(values) = obj.get("enum").and_then(Json::as_array) {
            if !values.contains(&node.to_json()) {
                let names: Vec<&str> = values.iter().filter_map(Json::as_str).collect();
                let hint = node
                    .as_str()
                    .and_then(|s| did_you_mean(s, names.iter().copied()));
                out.push(
                    Diagnostic::error(
                        "schema::value",
                        format!("{} is not one of: {}", show(node), names.join(", ")),
                    )
                    .at(file, node.span)
                    .help_opt(hint.map(|h| format!("did you mean `{h}`?"))),
                );
            }
        }
        match &node.value {
            Value::Map(entries) => self.check_map(file, node, entries, obj, ctx, out),
            Value::Seq(items) => {
                if let Some(min) = obj.get("minItems").and_then(Json::as_u64) {
                    if (items.len() as u64) < min {
                        out.push(
                            Diagnostic::error(
                                "schema::value",
                                format!("expected at least {min} item(s), found {}", items.len()),
                            )
                            .at(file, node.span),
                        );
                    }
                }
                if obj.get("uniqueItems") == Some(&Json::Bool(true)) {
                    for (i, item) in items.iter().enumerate() {
                        if items[..i]
                            .iter()
                            .any(|earlier| earlier.to_json() == item.to_json())
                        {
                            out.push(
                                Diagnostic::warning(
                                    "schema::duplicate-item",
                                    format!("{} is listed twice", show(item)),
                                )
                                .at(file, item.span),
                            );
                        }
                    }
                }
                if let Some(item_schema) = obj.get("items") {
                    for item in items {
                        self.walk(file, item, item_schema, ctx, out);
                    }
                }
            }
            Value::Str(s) => {
                if let Some(max) = obj.get("maxLength").and_then(Json::as_u64) {
                    if s.chars().count() as u64 > max {
                        out.push(
                            Diagnostic::error(
                                "schema::value",
                                format!("text is longer than {max} characters"),
                            )
                            .at(file, node.span),
                        );
                    }
                }
                if let Some(pattern) = obj.get("pattern").and_then(Json::as_str) {
                    if !self.pattern_matches(pattern, s) {
                        out.push(pattern_error(file, node, ctx));
                    }
                }
            }
            _ => {}
        }
    }

    fn check_map(
        &self,
        file: &Arc<SourceFile>,
        node: &Node,
        entries: &[crate::load::tree::Entry],
        obj: &'s Map<String, Json>,
        ctx: Ctx<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        let properties = obj.get("properties").and_then(Json::as_object);
        let additional = obj.get("additionalProperties");
        for entry in entries {
            match properties.and_then(|p| p.get(&entry.key)) {
                Some(prop) => self.walk(
                    file,
                    &entry.value,
                    prop,
                    Ctx {
                        def: None,
                        key: Some(&entry.key),
                    },
                    out,
                ),
                None => match additional {
                    Some(Json::Bool(false)) => {
                        let known = properties
                            .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>())
                            .unwrap_or_default();
                        let what = match ctx.def {
                            Some("Rule") => "a rule",
                            Some("Settings") => "settings",
                            Some("ToolFilter") => "`tools`",
                            Some("TestCase") => "a test case",
                            Some("Expect") => "`expect`",
                            _ if ctx.key.is_none() => self.document,
                            _ => "this mapping",
                        };
                        let help = match did_you_mean(&entry.key, known.iter().copied()) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("known keys: {}", known.join(", ")),
                        };
                        out.push(
                            Diagnostic::error(
                                "schema::unknown-key",
                                format!("unknown key `{}` in {what}", entry.key),
                            )
                            .at(file, entry.key_span)
                            .label("not part of the format")
                            .help(help),
                        );
                    }
                    Some(schema @ Json::Object(_)) => self.walk(
                        file,
                        &entry.value,
                        schema,
                        Ctx {
                            def: None,
                            key: Some(&entry.key),
                        },
                        out,
                    ),
                    _ => {}
                },
            }
        }
        if let Some(required) = obj.get("required").and_then(Json::as_array) {
            for name in required.iter().filter_map(Json::as_str) {
                if !entries.iter().any(|e| e.key == name) {
                    let what = match ctx.def {
                        Some("Rule") => {
                            let id = node.get("id").and_then(Node::as_str);
                            match id {
                                Some(id) => format!("rule `{id}`"),
                                None => "this rule".to_string(),
                            }
                        }
                        Some("TestCase") => match node.get("name").and_then(Node::as_str) {
                            Some(name) => format!("test case `{name}`"),
                            None => "this test case".to_string(),
                        },
                        _ => "this mapping".to_string(),
                    };
                    // Point at the first key: a mapping's own span can cover many lines.
                    let span = entries.first().map_or(node.span, |e| e.key_span);
                    out.push(
                        Diagnostic::error("schema::missing-key", format!("{what} has no `{name}`"))
                            .at(file, span)
                            .help(missing_help(name)),
                    );
                }
            }
        }
    }

    /// A value that must be one of a fixed set (hook names, enum variants).
    fn check_choice(
        &self,
        file: &Arc<SourceFile>,
        node: &Node,
        values: &[&Json],
        ctx: Ctx<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        let value = node.to_json();
        if values.iter().any(|v| **v == value) {
            return;
        }
        let names: Vec<&str> = values.iter().filter_map(|v| v.as_str()).collect();
        let hint = node
            .as_str()
            .and_then(|s| did_you_mean(s, names.iter().copied()));
        let is_hook = ctx.def == Some("HookName");
        if is_hook {
            if let Some(name) = node.as_str() {
                let help = match hint {
                    Some(h) => format!("did you mean `{h}`? `policy hooks` lists every hook point"),
                    None => "`policy hooks` lists every hook point".to_string(),
                };
                out.push(
                    Diagnostic::error("hook::unknown", format!("unknown hook point `{name}`"))
                        .at(file, node.span)
                        .label("not in the hook catalogue")
                        .help(help),
                );
                return;
            }
        }
        out.push(
            Diagnostic::error(
                "schema::value",
                format!("{} is not one of: {}", show(node), names.join(", ")),
            )
            .at(file, node.span)
            .help_opt(hint.map(|h| format!("did you mean `{h}`?"))),
        );
    }

    /// `anyOf` of structurally different schemas (one or many, int or expression).
    fn check_alternatives(
        &self,
        file: &Arc<SourceFile>,
        node: &Node,
        choices: &'s [Json],
        ctx: Ctx<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        let mut best: Option<Vec<Diagnostic>> = None;
        for choice in choices {
            let (resolved, def) = self.resolve(choice);
            let types = resolved.get("type");
            let shape_fits = types.is_none_or(|t| type_matches(node, t));
            if !shape_fits {
                continue;
            }
            let mut errs = Vec::new();
            self.walk(
                file,
                node,
                choice,
                Ctx {
                    def: def.or(ctx.def),
                    key: ctx.key,
                },
                &mut errs,
            );
            if errs.iter().all(|d| !d.is_error()) {
                out.extend(errs);
                return;
            }
            if best.as_ref().is_none_or(|b| errs.len() < b.len()) {
                best = Some(errs);
            }
        }
        match best {
            Some(errs) => out.extend(errs),
            None => {
                let expected: Vec<String> = choices
                    .iter()
                    .map(|c| describe_schema(self.resolve(c).0))
                    .collect();
                out.push(
                    Diagnostic::error(
                        "schema::type",
                        format!(
                            "expected {}, found {}",
                            expected.join(" or "),
                            article(node.kind_name())
                        ),
                    )
                    .at(file, node.span),
                );
            }
        }
    }

    fn pattern_matches(&self, pattern: &str, text: &str) -> bool {
        let mut cache = self.patterns.borrow_mut();
        let re = cache
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).ok());
        re.as_ref().is_none_or(|re| re.is_match(text))
    }
}

fn type_matches(node: &Node, types: &Json) -> bool {
    let one = |t: &str| match t {
        "null" => matches!(node.value, Value::Null),
        "boolean" => matches!(node.value, Value::Bool(_)),
        "integer" => matches!(node.value, Value::Int(_)),
        "number" => matches!(node.value, Value::Int(_) | Value::Float(_)),
        "string" => matches!(node.value, Value::Str(_)),
        "array" => matches!(node.value, Value::Seq(_)),
        "object" => matches!(node.value, Value::Map(_)),
        _ => true,
    };
    match types {
        Json::String(t) => one(t),
        Json::Array(ts) => ts.iter().filter_map(Json::as_str).any(one),
        _ => true,
    }
}

fn type_name(t: &str) -> &str {
    match t {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "true or false",
        "array" => "a list",
        "object" => "a mapping",
        "null" => "nothing (null)",
        other => other,
    }
}

fn describe_schema(schema: &Json) -> String {
    match schema.get("type") {
        Some(Json::String(t)) if t == "string" && schema.get("pattern").is_some() => {
            "a `${{ expr }}` CEL expression".into()
        }
        Some(Json::String(t)) => type_name(t).to_string(),
        Some(Json::Array(ts)) => ts
            .iter()
            .filter_map(Json::as_str)
            .map(type_name)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "a value".into(),
    }
}

fn type_error(file: &Arc<SourceFile>, node: &Node, types: &Json, ctx: Ctx<'_>) -> Diagnostic {
    let expected = match types {
        Json::String(t) => type_name(t).to_string(),
        Json::Array(ts) => ts
            .iter()
            .filter_map(Json::as_str)
            .filter(|t| *t != "null")
            .map(type_name)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "another type".into(),
    };
    let subject = ctx
        .key
        .map(|k| format!("`{k}` must be {expected}"))
        .unwrap_or_else(|| format!("expected {expected}"));
    let mut d = Diagnostic::error(
        "schema::type",
        format!("{subject}, found {}", article(node.kind_name())),
    )
    .at(file, node.span)
    .label(format!("this is {}", article(node.kind_name())));
    let wants_string = match types {
        Json::String(t) => t == "string",
        Json::Array(ts) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    if matches!(node.value, Value::Null) {
        d = d.help("an empty value is null in YAML; write a value or remove the key");
    } else if wants_string && matches!(node.value, Value::Bool(_) | Value::Int(_) | Value::Float(_))
    {
        d = d.help("YAML reads bare yes/no/on/off/true/false and numbers as non-text; put the value in quotes");
    } else if ctx.key == Some("when") {
        d = d.help("quote the whole condition so YAML reads it as a string, e.g. when: 'x == 1'");
    }
    d
}

fn pattern_error(file: &Arc<SourceFile>, node: &Node, ctx: Ctx<'_>) -> Diagnostic {
    match ctx.key {
        Some("id") => Diagnostic::error("schema::value", format!("invalid rule id {}", show(node)))
            .at(file, node.span)
            .help(
                "ids start with a letter or digit and contain only letters, digits and `_ . : -`",
            ),
        Some("fuel") | Some("fuel_delta") => Diagnostic::error(
            "schema::value",
            format!(
                "`{}` must be an integer or a `${{{{ expr }}}}` CEL expression, found {}",
                ctx.key.unwrap_or(""),
                show(node)
            ),
        )
        .at(file, node.span)
        .help("write a number, e.g. -5, or wrap CEL in ${{ }}, e.g. \"${{ -size(tool_calls) }}\""),
        _ => Diagnostic::error(
            "schema::value",
            format!("{} has the wrong form", show(node)),
        )
        .at(file, node.span),
    }
}

fn missing_help(name: &str) -> String {
    match name {
        "hook" => "name the hook point the rule guards, e.g. hook: pre_shell_exec".into(),
        "id" => "give the rule a unique id, e.g. id: no-rm-rf".into(),
        "version" => "start the file with version: 1".into(),
        "tests" => "list the cases under `tests:`".into(),
        "name" => "give the test case a name, e.g. name: rm -rf is denied".into(),
        "expect" => {
            "say what must happen, e.g. expect: { reply: {} } or expect: { matched: [RULE] }".into()
        }
        _ => format!("add `{name}`"),
    }
}

fn article(kind: &str) -> String {
    match kind {
        "integer" => "an integer".into(),
        "null" => "nothing (null)".into(),
        "boolean" => "a boolean".into(),
        other => format!("a {other}"),
    }
}

fn show(node: &Node) -> String {
    match &node.value {
        Value::Str(s) if s.chars().count() <= 40 => format!("`{s}`"),
        Value::Str(_) => "this text".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        other => article(
            Node {
                value: other.clone(),
                span: Span::default(),
            }
            .kind_name(),
        ),
    }
}

/// Every value a `oneOf`/`anyOf` of fixed values allows, or `None` when some
/// branch is not a fixed value. schemars writes an enum's documented variants
/// as `const` branches and the undocumented ones as one `enum` branch, so
/// both must be read for the message to list all the values and for
/// did-you-mean to see them.
fn choice_values(choices: &[Json]) -> Option<Vec<&Json>> {
    let mut values = Vec::new();
    for choice in choices {
        if let Some(c) = choice.get("const") {
            values.push(c);
        } else if let Some(e) = choice.get("enum").and_then(Json::as_array) {
            values.extend(e.iter());
        } else {
            return None;
        }
    }
    Some(values)
}
