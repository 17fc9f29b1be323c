//! Compiling what a rule does: its effects, and the `${{ }}` templates in
//! reasons, messages and values, each compiled once (a value that is exactly
//! one `${{ }}` takes the expression's type; text around it stays text).

use super::{RuleCompiler, ToolsEffect};
use crate::diagnostic::Diagnostic;
use crate::expr::template::{self, Piece, Template};
use crate::load::tree::Node;
use crate::model::{Fallback, IntOrExpr};
use cel::common::ast::IdedExpr;
use serde_json::Value as Json;

/// Text with optional `${{ }}` expressions (reasons, messages).
#[derive(Debug)]
pub enum Text {
    Literal(String),
    Parts(Vec<TextPart>),
}

#[derive(Debug)]
pub enum TextPart {
    Text(String),
    Expr(IdedExpr),
}

/// A JSON value whose strings may hold `${{ }}` expressions.
#[derive(Debug)]
pub enum ValueTemplate {
    Literal(Json),
    Expr(IdedExpr),
    Text(Text),
    Object(Vec<(String, ValueTemplate)>),
    Array(Vec<ValueTemplate>),
}

#[derive(Debug)]
pub enum IntValue {
    Literal(i64),
    Expr(IdedExpr),
}

#[derive(Debug, Default)]
pub struct Effects {
    pub deny: Option<Text>,
    pub ask: Option<Text>,
    pub block: Option<Text>,
    pub arguments: Option<Vec<(String, ValueTemplate)>>,
    pub tools: Option<ToolsEffect>,
    pub fuel_delta: Option<IntValue>,
    pub fuel: Option<IntValue>,
    pub fallback: Option<Fallback>,
    pub request: Option<Vec<(String, ValueTemplate)>>,
}

impl RuleCompiler<'_> {
    pub(super) fn effects(&mut self, ok: &mut bool) -> Effects {
        let rule = self.rule().clone();
        let mut effects = Effects {
            fallback: rule.fallback,
            ..Effects::default()
        };
        if let Some(reason) = &rule.deny {
            if reason.trim().is_empty() {
                let span = self.node("deny").map_or(self.loaded.node.span, |n| n.span);
                let d = Diagnostic::warning("rule::empty-reason", "the deny reason is empty")
                    .at(&self.loaded.file, span)
                    .help(
                        "the model and the user see this reason; say what is not allowed and why",
                    );
                self.diags.push(d);
            }
            effects.deny = self.text(reason, &["deny"], ok);
        }
        if let Some(reason) = &rule.ask {
            effects.ask = self.text(reason, &["ask"], ok);
        }
        if let Some(message) = &rule.block {
            effects.block = self.text(message, &["block"], ok);
        }
        if let Some(map) = &rule.arguments {
            effects.arguments = Some(self.object(map, &["arguments"], ok));
        }
        if let Some(map) = &rule.request {
            effects.request = Some(self.object(map, &["request"], ok));
        }
        if let Some(tools) = &rule.tools {
            effects.tools = self.tools(tools, ok);
        }
        effects.fuel_delta = rule
            .fuel_delta
            .as_ref()
            .and_then(|v| self.int(v, "fuel_delta", ok));
        effects.fuel = rule.fuel.as_ref().and_then(|v| self.int(v, "fuel", ok));
        effects
    }

    pub(super) fn node_at(&self, path: &[&str]) -> Option<&Node> {
        let mut node = &self.loaded.node;
        for key in path {
            node = node.get(key)?;
        }
        Some(node)
    }

    pub(super) fn text(&mut self, text: &str, path: &[&str], ok: &mut bool) -> Option<Text> {
        let node = self.node_at(path).cloned();
        match template::parse(text) {
            Ok(Template::Literal) => Some(Text::Literal(text.to_string())),
            Ok(Template::Whole {
                source,
                char_offset,
            }) => {
                let program = self.template_expr(node.as_ref(), source, char_offset, path, ok)?;
                Some(Text::Parts(vec![TextPart::Expr(program)]))
            }
            Ok(Template::Interpolated(pieces)) => {
                let mut parts = Vec::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => parts.push(TextPart::Text(t.to_string())),
                        Piece::Expr {
                            source,
                            char_offset,
                        } => {
                            let program =
                                self.template_expr(node.as_ref(), source, char_offset, path, ok)?;
                            parts.push(TextPart::Expr(program));
                        }
                    }
                }
                Some(Text::Parts(parts))
            }
            Err(e) => {
                self.cel_error(
                    node.as_ref(),
                    e.char_offset,
                    "`${{` is not closed by `}}`",
                    &path.join("."),
                );
                *ok = false;
                None
            }
        }
    }

    pub(super) fn template_expr(
        &mut self,
        node: Option<&Node>,
        source: &str,
        offset: usize,
        path: &[&str],
        ok: &mut bool,
    ) -> Option<IdedExpr> {
        let found = self.expression(node, source, offset, &path.join("."));
        if found.is_none() {
            *ok = false;
        }
        found
    }

    pub(super) fn value(&mut self, value: &Json, path: &[&str], ok: &mut bool) -> ValueTemplate {
        match value {
            Json::String(s) => {
                let node = self.node_at(path).cloned();
                match template::parse(s) {
                    Ok(Template::Literal) => ValueTemplate::Literal(value.clone()),
                    Ok(Template::Whole {
                        source,
                        char_offset,
                    }) => match self.template_expr(node.as_ref(), source, char_offset, path, ok) {
                        Some(p) => ValueTemplate::Expr(p),
                        None => ValueTemplate::Literal(Json::Null),
                    },
                    _ => match self.text(s, path, ok) {
                        Some(t) => ValueTemplate::Text(t),
                        None => ValueTemplate::Literal(Json::Null),
                    },
                }
            }
            Json::Object(map) => ValueTemplate::Object(self.object(map, path, ok)),
            Json::Array(items) => {
                // Array elements are addressed by index in the tree only roughly;
                // errors inside them point at the array.
                ValueTemplate::Array(items.iter().map(|v| self.value(v, path, ok)).collect())
            }
            other => ValueTemplate::Literal(other.clone()),
        }
    }

    pub(super) fn object(
        &mut self,
        map: &serde_json::Map<String, Json>,
        path: &[&str],
        ok: &mut bool,
    ) -> Vec<(String, ValueTemplate)> {
        map.iter()
            .map(|(k, v)| {
                let mut p: Vec<&str> = path.to_vec();
                p.push(k);
                (k.clone(), self.value(v, &p, ok))
            })
            .collect()
    }

    pub(super) fn int(&mut self, value: &IntOrExpr, key: &str, ok: &mut bool) -> Option<IntValue> {
        match value {
            IntOrExpr::Int(i) => Some(IntValue::Literal(*i)),
            IntOrExpr::Expr(text) => {
                let node = self.node(key).cloned();
                match template::parse(text) {
                    Ok(Template::Whole {
                        source,
                        char_offset,
                    }) => self
                        .template_expr(node.as_ref(), source, char_offset, &[key], ok)
                        .map(IntValue::Expr),
                    _ => {
                        let span = node.map_or(self.loaded.node.span, |n| n.span);
                        self.error(
                            "schema::value",
                            format!("`{key}` must be an integer or one `${{{{ expr }}}}`"),
                            span,
                        );
                        *ok = false;
                        None
                    }
                }
            }
        }
    }
}
