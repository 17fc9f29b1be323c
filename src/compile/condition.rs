//! Compiling what decides whether a rule applies: the `when` condition (CEL
//! parsed once; when linting, its regex literals and its types checked too),
//! the structured matchers (`shell:`, `url:`, `path:`, `content:`) and the
//! lint of patterns that can never match. CEL errors are placed at their
//! column inside the YAML string.

use super::RuleCompiler;
use crate::catalogue::{self, HookPoint};
use crate::diagnostic::Diagnostic;
use crate::load::scalar;
use crate::load::tree::{Node, Span, Value};
use cel::common::ast::{IdedExpr, SourceInfo};

impl RuleCompiler<'_> {
    pub(super) fn matchers(
        &mut self,
        hooks: &[&'static HookPoint],
        ok: &mut bool,
    ) -> crate::matchers::Matchers {
        use crate::catalogue::Subject;
        use crate::matchers as m;
        // The loaded rule outlives `self`'s borrow: no copy of the rule.
        let loaded = self.loaded;
        let rule = &loaded.rule;
        let mut out = m::Matchers::default();
        let present = [
            (Subject::Command, rule.shell.is_some()),
            (Subject::Url, rule.url.is_some()),
            (Subject::Path, rule.path.is_some()),
            (Subject::Content, rule.content.is_some()),
        ];
        for (subject, is_present) in present {
            if !is_present {
                continue;
            }
            for hook in hooks {
                if catalogue::subject_field(hook.name, subject).is_none() {
                    let span = self.key_span(subject.key());
                    let valid = catalogue::hooks_with(subject);
                    let d = self.error(
                        "match::wrong-hook",
                        format!(
                            "`{}` has nothing to match on `{}`",
                            subject.key(),
                            hook.name
                        ),
                        span,
                    );
                    d.help = Some(format!(
                        "`{}` applies on: {}",
                        subject.key(),
                        valid.join(", ")
                    ));
                    *ok = false;
                }
            }
        }
        let mut report = |this: &mut Self, top: &str, e: m::MatcherError| {
            let node = match e.index {
                Some(i) => this.node_at(&[top, e.key]).and_then(|n| match &n.value {
                    Value::Seq(items) => items.get(i).cloned(),
                    _ => Some(n.clone()),
                }),
                None => this.node_at(&[top, e.key]).cloned(),
            };
            let span = node.map_or_else(|| this.key_span(top), |n| n.span);
            this.error("match::invalid", e.message, span);
            *ok = false;
        };
        if let Some(s) = &rule.shell {
            match m::compile_shell(s, !self.stored) {
                Ok(x) => out.shell = Some(x),
                Err(e) => report(self, "shell", e),
            }
        }
        if let Some(u) = &rule.url {
            match m::compile_url(u) {
                Ok(x) => out.url = Some(x),
                Err(e) => report(self, "url", e),
            }
        }
        if let Some(p) = &rule.path {
            match m::compile_path(p) {
                Ok(x) => out.path = Some(x),
                Err(e) => report(self, "path", e),
            }
        }
        if let Some(c) = &rule.content {
            match m::compile_content(c) {
                Ok(x) => out.content = Some(x),
                Err(e) => report(self, "content", e),
            }
        }
        if self.thorough && *ok {
            self.lint_dead_patterns(rule);
        }
        out
    }

    /// Warns about regexes and globs that compile but can never match.
    pub(super) fn lint_dead_patterns(&mut self, rule: &crate::model::Rule) {
        use crate::check::never_match::{glob_never_matches, regex_never_matches};
        let mut found: Vec<(&str, &str, Option<usize>, String, &str)> = Vec::new();
        if let Some(arg) = rule.shell.as_ref().and_then(|s| s.arg.as_deref()) {
            if let Some(why) = regex_never_matches(arg) {
                found.push(("shell", "arg", None, why, "regex"));
            }
        }
        if let Some(re) = rule.url.as_ref().and_then(|u| u.path_regex.as_deref()) {
            if let Some(why) = regex_never_matches(re) {
                found.push(("url", "path_regex", None, why, "regex"));
            }
        }
        if let Some(c) = &rule.content {
            let many = matches!(c.regex, crate::model::StringList::Many(_));
            for (i, re) in c.regex.items().iter().enumerate() {
                if let Some(why) = regex_never_matches(re) {
                    found.push(("content", "regex", many.then_some(i), why, "regex"));
                }
            }
        }
        if let Some(globs) = rule.path.as_ref().and_then(|p| p.glob.as_ref()) {
            let many = matches!(globs, crate::model::StringList::Many(_));
            for (i, g) in globs.items().iter().enumerate() {
                if let Some(why) = glob_never_matches(g) {
                    found.push(("path", "glob", many.then_some(i), why, "glob"));
                }
            }
        }
        for (top, key, index, why, what) in found {
            let node = match index {
                Some(i) => self.node_at(&[top, key]).and_then(|n| match &n.value {
                    Value::Seq(items) => items.get(i).cloned(),
                    _ => Some(n.clone()),
                }),
                None => self.node_at(&[top, key]).cloned(),
            };
            let span = node.map_or_else(|| self.key_span(top), |n| n.span);
            let d = Diagnostic::warning(
                "lint::never-matches",
                format!("this {what} can never match, so the rule never applies: {why}"),
            )
            .at(&self.loaded.file, span)
            .label(format!("dead {what}"))
            .help(if what == "glob" {
                "fix the pattern; a rule that never applies guards nothing"
            } else {
                "fix the pattern (anchors: `^` start, `$` end); a rule that never applies guards nothing"
            });
            self.diags.push(d);
        }
    }

    /// Compiles one expression found at `offset` inside `node`'s string.
    /// Linting (`thorough`) uses the reference parser, whose positions place
    /// carets; serving a hook uses the fast one. Either way the tree comes
    /// back rewritten for evaluation (see
    /// [`crate::expr::rewrite_for_evaluation`]).
    pub(super) fn expression(
        &mut self,
        node: Option<&Node>,
        source: &str,
        offset: usize,
        key: &str,
    ) -> Option<IdedExpr> {
        if !self.thorough {
            // A tree stored in the prepared entry is the one built below
            // when the entry was written, already rewritten for evaluation,
            // so a stored rule pays neither the parse nor the rewrite.
            if let Some(expr) = self.stored_trees.as_mut().and_then(|t| t.next(source)) {
                return Some(expr);
            }
            let mut parsed = crate::expr::parse_fast(source);
            if let Ok(expr) = &mut parsed {
                crate::expr::rewrite_for_evaluation(expr);
            }
            if let Some(recorder) = &mut self.recorder {
                recorder.record(source, parsed.as_ref().ok());
            }
            return match parsed {
                Ok(expr) => Some(expr),
                Err(e) => {
                    self.cel_error(node, offset + e.char_offset, &e.message, key);
                    None
                }
            };
        }
        // The checks below decide whether a policy loads, so every build
        // runs them: without the reference parser (the plugin build,
        // `policy-hook`), the fast one reads the expression, whose tree carries no positions
        // (problems then point at the start of the expression).
        let parsed = crate::expr::parse_with_positions(source);
        match parsed {
            Ok((expr, program)) => {
                let positions = program.as_ref().map(cel::Program::source_info);
                let regexes_ok = self.check_regexes(&expr, positions, node, offset, key);
                let types_ok = self.check_types(&expr, positions, node, offset, key);
                if !(regexes_ok && types_ok) {
                    return None;
                }
                // After the checks, which read the tree as written.
                let mut expr = expr;
                crate::expr::rewrite_for_evaluation(&mut expr);
                Some(expr)
            }
            Err(e) => {
                self.cel_error(node, offset + e.char_offset, &e.message, key);
                None
            }
        }
    }

    /// Compiles every regex literal given to `matches`, so a bad pattern is
    /// found by `policy check` and not by an agent at run time.
    pub(super) fn check_regexes(
        &mut self,
        expr: &IdedExpr,
        positions: Option<&SourceInfo>,
        node: Option<&Node>,
        base: usize,
        key: &str,
    ) -> bool {
        let mut ok = true;
        if !self.thorough {
            return ok;
        }
        for (literal, pattern) in crate::expr::ast::regex_literals(expr) {
            let compiled = regex::Regex::new(pattern);
            if let (Ok(_), Some(why)) = (
                &compiled,
                crate::check::never_match::regex_never_matches(pattern),
            ) {
                let offset = positions
                    .and_then(|p| p.offset_for(literal.id))
                    .map_or(0, |(start, _)| start as usize);
                let file = self.loaded.file.clone();
                let span = match node {
                    Some(n) => {
                        let at = scalar::locate(&file.text, n.span, base + offset);
                        Span::new(at, next_char_len(&file.text, at))
                    }
                    None => self.loaded.node.span,
                };
                self.diags.push(
                    Diagnostic::warning(
                        "lint::never-matches",
                        format!("this regex in `{key}` can never match: {why}"),
                    )
                    .at(&file, span)
                    .label("this pattern")
                    .help("fix the pattern (anchors: `^` start, `$` end); a test that can never be true guards nothing"),
                );
            }
            if let Err(e) = compiled {
                let offset = positions
                    .and_then(|p| p.offset_for(literal.id))
                    .map_or(0, |(start, _)| start as usize);
                let file = self.loaded.file.clone();
                let span = match node {
                    Some(n) => {
                        let at = scalar::locate(&file.text, n.span, base + offset);
                        Span::new(at, next_char_len(&file.text, at))
                    }
                    None => self.loaded.node.span,
                };
                let detail = e.to_string();
                let last = detail
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("invalid")
                    .trim()
                    .to_string();
                self.diags.push(
                    Diagnostic::error("regex::invalid", format!("invalid regex in `{key}`: {last}"))
                        .at(&file, span)
                        .label("this pattern")
                        .help("patterns use RE2 syntax (the regex crate); inside a YAML single-quoted string, a backslash is written once"),
                );
                ok = false;
            }
        }
        ok
    }

    /// Type-checks an expression against the payloads of the rule's hooks.
    pub(super) fn check_types(
        &mut self,
        expr: &IdedExpr,
        positions: Option<&SourceInfo>,
        node: Option<&Node>,
        base: usize,
        key: &str,
    ) -> bool {
        let hooks: Vec<&'static HookPoint> = self
            .loaded
            .rule
            .hook
            .names()
            .iter()
            .filter_map(|n| catalogue::hook(n))
            .collect();
        if hooks.is_empty() {
            return true;
        }
        // A matcher only matches when its subject is there: those fields need no guard.
        let rule = &self.loaded.rule;
        let mut present = Vec::new();
        for (subject, is_present) in [
            (catalogue::Subject::Command, rule.shell.is_some()),
            (catalogue::Subject::Url, rule.url.is_some()),
            (catalogue::Subject::Path, rule.path.is_some()),
            (catalogue::Subject::Content, rule.content.is_some()),
        ] {
            if is_present {
                for h in &hooks {
                    if let Some([field]) = catalogue::subject_field(h.name, subject) {
                        present.push(*field);
                    }
                }
            }
        }
        let mut scope = crate::check::types::Scope::new(hooks).with_present(present);
        // Effects run only when `when` held: its `has()` guards cover them.
        if key != "when" {
            if let Some(when) = rule.when.as_deref() {
                if let Ok(w) = crate::expr::parse_fast(when) {
                    scope = scope.with_guards(crate::check::types::guards_of(&w));
                }
            }
        }
        let problems = crate::check::types::check(
            expr,
            &scope,
            match key {
                "when" => crate::check::types::Want::Bool,
                "fuel" | "fuel_delta" => crate::check::types::Want::Int,
                _ => crate::check::types::Want::Any,
            },
        );
        let mut ok = true;
        for p in problems {
            let (start, stop) = positions
                .and_then(|info| info.offset_for(p.node_id))
                .map_or((0, 0), |(a, b)| (a as usize, b as usize));
            let file = self.loaded.file.clone();
            let span = match node {
                Some(n) => {
                    let at = scalar::locate(&file.text, n.span, base + start);
                    // Underline the whole node when it sits on one line.
                    let end = scalar::locate(&file.text, n.span, base + stop.max(start)); // `stop` is inclusive
                    let len = end + next_char_len(&file.text, end) - at;
                    let one_line = end >= at && !file.text[at..end].contains('\n');
                    Span::new(
                        at,
                        if one_line {
                            len
                        } else {
                            next_char_len(&file.text, at)
                        },
                    )
                }
                None => self.loaded.node.span,
            };
            let d = if p.warning {
                Diagnostic::warning(p.code, format!("in `{key}`: {}", p.message))
            } else {
                ok = false;
                Diagnostic::error(p.code, format!("in `{key}`: {}", p.message))
            };
            self.diags.push(d.at(&file, span).help_opt(p.help));
        }
        ok
    }

    /// Reports a CEL problem at its column inside the YAML string.
    pub(super) fn cel_error(
        &mut self,
        node: Option<&Node>,
        char_offset: usize,
        message: &str,
        key: &str,
    ) {
        let d = cel_syntax_error(
            &self.loaded.file,
            &self.loaded.node,
            node,
            char_offset,
            message,
            key,
        );
        self.diags.push(d);
    }
}

/// A CEL syntax error at its column inside the YAML string of `node` (or on
/// the whole rule when the string's node is unknown).
fn cel_syntax_error(
    file: &std::sync::Arc<crate::diagnostic::SourceFile>,
    rule: &Node,
    node: Option<&Node>,
    char_offset: usize,
    message: &str,
    key: &str,
) -> Diagnostic {
    let span = match node {
        Some(n) => {
            let at = scalar::locate(&file.text, n.span, char_offset);
            Span::new(at, next_char_len(&file.text, at))
        }
        None => rule.span,
    };
    let help = if key == "when" {
        "conditions are CEL: compare with ==, combine with && and ||, call methods like command.contains(\"x\"); quote the whole condition in YAML"
    } else {
        "CEL inside effect values is written ${{ expr }}"
    };
    Diagnostic::error("cel::syntax", format!("invalid CEL in `{key}`: {message}"))
        .at(file, span)
        .label(short_label(message))
        .help(help)
}

/// A rule the schema refused is not compiled, but a syntax error in its
/// condition is its own problem and is reported in the same run (types are
/// not checked: they depend on the hook, which may be what is wrong).
pub(super) fn syntax_check_rejected(
    file: &std::sync::Arc<crate::diagnostic::SourceFile>,
    rule: &Node,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(node) = rule.get("when") else {
        return;
    };
    let Some(source) = node.as_str() else {
        return;
    };
    if let Err(e) = crate::expr::parse_with_positions(source) {
        diags.push(cel_syntax_error(
            file,
            rule,
            Some(node),
            e.char_offset,
            &e.message,
            "when",
        ));
    }
}

fn short_label(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message);
    if first.chars().count() > 60 {
        "here".into()
    } else {
        first.to_string()
    }
}

fn next_char_len(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|s| s.chars().next())
        .map_or(0, char::len_utf8)
}
