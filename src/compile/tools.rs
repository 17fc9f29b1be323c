//! Compiling tool patterns (`tools: { include, exclude }`): tool names,
//! globs over names and `type:NAME`, with the unknown-tool hints of the lint.

use super::RuleCompiler;
use crate::diagnostic::Diagnostic;
use crate::load::tree::{Node, Value};

#[derive(Debug)]
pub enum ToolPattern {
    Name(String),
    Glob(String, LazyGlob),
    Type(String),
}

impl ToolPattern {
    pub fn matches(&self, name: &str, tool_type: &str) -> bool {
        match self {
            ToolPattern::Name(n) => n == name,
            ToolPattern::Glob(_, m) => m.is_match(name),
            ToolPattern::Type(t) => t == tool_type,
        }
    }
}

/// A glob over tool names, parsed (so a bad one is an error when the rule
/// compiles) but turned into its regex only when a name is matched: a
/// rule's effects are read only when its condition holds, and compiling
/// the regex was a tenth of a `pre_tool` call that never needed it.
#[derive(Debug)]
pub struct LazyGlob {
    glob: globset::Glob,
    matcher: std::sync::OnceLock<globset::GlobMatcher>,
}

impl LazyGlob {
    fn new(glob: globset::Glob) -> Self {
        LazyGlob {
            glob,
            matcher: std::sync::OnceLock::new(),
        }
    }

    pub fn is_match(&self, name: &str) -> bool {
        self.matcher
            .get_or_init(|| self.glob.compile_matcher())
            .is_match(name)
    }
}

#[derive(Debug)]
pub struct ToolsEffect {
    pub include: Option<Vec<ToolPattern>>,
    pub exclude: Option<Vec<ToolPattern>>,
}

impl RuleCompiler<'_> {
    pub(super) fn tools(
        &mut self,
        tools: &crate::model::ToolFilter,
        ok: &mut bool,
    ) -> Option<ToolsEffect> {
        if tools.include.is_none() && tools.exclude.is_none() {
            let span = self.key_span("tools");
            self.error(
                "rule::empty-tools",
                "`tools` needs `include` or `exclude`".into(),
                span,
            );
            *ok = false;
            return None;
        }
        let include = tools
            .include
            .as_ref()
            .map(|l| self.patterns(l, "include", ok));
        let exclude = tools
            .exclude
            .as_ref()
            .map(|l| self.patterns(l, "exclude", ok));
        Some(ToolsEffect { include, exclude })
    }

    pub(super) fn patterns(
        &mut self,
        list: &[String],
        key: &str,
        ok: &mut bool,
    ) -> Vec<ToolPattern> {
        let items: Vec<Node> = match self.node_at(&["tools", key]).map(|n| &n.value) {
            Some(Value::Seq(items)) => items.clone(),
            _ => Vec::new(),
        };
        let mut out = Vec::new();
        for (i, pattern) in list.iter().enumerate() {
            let span = items.get(i).map_or(self.loaded.node.span, |n| n.span);
            let unknown = if !self.thorough {
                None
            } else if let Some(t) = pattern.strip_prefix("type:") {
                crate::check::tool_names::unknown_type(t)
            } else if pattern.contains(['*', '?', '[', '{']) {
                None
            } else {
                crate::check::tool_names::unknown_name(pattern)
            };
            if let Some((message, help)) = unknown {
                self.diags.push(
                    Diagnostic::warning("lint::unknown-tool", message)
                        .at(&self.loaded.file, span)
                        .label(format!("in `tools.{key}`"))
                        .help(help),
                );
            }
            if let Some(t) = pattern.strip_prefix("type:") {
                out.push(ToolPattern::Type(t.to_string()));
            } else if pattern.contains(['*', '?', '[', '{']) {
                match globset::GlobBuilder::new(pattern)
                    .literal_separator(true)
                    .build()
                {
                    Ok(g) => out.push(ToolPattern::Glob(pattern.clone(), LazyGlob::new(g))),
                    Err(e) => {
                        self.error(
                            "glob::invalid",
                            format!("invalid glob `{pattern}`: {}", e.kind()),
                            span,
                        )
                        .help = Some(
                            "globs use * ? [abc] {a,b}; write `type:NAME` to match a tool type"
                                .into(),
                        );
                        *ok = false;
                    }
                }
            } else {
                out.push(ToolPattern::Name(pattern.clone()));
            }
        }
        out
    }
}
