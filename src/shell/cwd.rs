//! Which directory each command of a script runs in.
//!
//! `rm -rf dist; cd src && ls` deletes the project's `dist`; `cd / && rm -rf
//! usr` deletes `/usr`. A relative target is only located once the
//! directory the command runs in is known, so the commands of a script are
//! followed in the order bash runs them, with the set of directories each
//! may start in:
//!
//! - `cd DIR` (also `pushd DIR`, `chdir`, through `builtin`/`command`)
//!   moves on success; on failure the shell stays where it was, so after
//!   `cd /nowhere; rm x` the `rm` may run in either place, while after
//!   `cd d && rm x` it runs in `d` only. `a || b` runs `b` where `a` failed.
//! - Subshells, pipeline stages, `$(...)` and background jobs (`&`) change
//!   nothing after them.
//! - A loop or function whose body changes directory, `popd`, `cd -`, a
//!   target that is not literal, `CDPATH` on the line, or `eval` of code
//!   that mentions a directory change make the place unknown from there on.
//!   (A program only known at run time, which could be `cd`, makes the line
//!   opaque, which `core.opaque-command` refuses.)
//!
//! Directories are kept as written (`src`, `/tmp/x`, `~/.claude`) and joined
//! lexically; they are resolved against the project root and home only when
//! a rule asks (see `targets::resolve`). The walk is recursive but bounded:
//! past [`MAX_NESTING`] levels every command is placed in an unknown
//! directory, which only makes relative targets unknown.

use super::words::{self, Word};
use std::collections::HashMap;
use tree_sitter::Node;

/// Deepest syntax nesting followed; deeper commands run in an unknown place.
const MAX_NESTING: usize = 200;
/// Most distinct directories tracked at one point; more become unknown.
const MAX_PLACES: usize = 8;

/// A directory a command may run in, relative to where its script started.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// Where the script started (the project root for the agent's line).
    Start,
    /// A directory as written: absolute, `~`-based, or relative to the start.
    Dir(String),
    /// Not known before the line runs.
    Unknown,
}

impl Place {
    /// `rel` entered from this place.
    fn enter(&self, rel: &str) -> Place {
        if rel.starts_with('/') || rel == "~" || rel.starts_with("~/") {
            return Place::Dir(rel.to_string());
        }
        match self {
            Place::Start => Place::Dir(rel.to_string()),
            Place::Dir(d) => Place::Dir(format!("{}/{rel}", d.trim_end_matches('/'))),
            Place::Unknown => Place::Unknown,
        }
    }

    /// This place (relative to a script's start) seen from a script that
    /// started at `base`.
    pub fn within(&self, base: &Place) -> Place {
        match self {
            Place::Start => base.clone(),
            Place::Dir(d) => base.enter(d),
            Place::Unknown => Place::Unknown,
        }
    }
}

/// A set of places, kept small.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Places(pub Vec<Place>);

impl Places {
    pub fn start() -> Places {
        Places(vec![Place::Start])
    }

    pub fn unknown() -> Places {
        Places(vec![Place::Unknown])
    }

    fn union(&self, other: &Places) -> Places {
        let mut out = self.clone();
        for p in &other.0 {
            out.add(p.clone());
        }
        out
    }

    fn add(&mut self, place: Place) {
        if self.0.contains(&place) {
            return;
        }
        if self.0.len() >= MAX_PLACES && place != Place::Unknown {
            self.add(Place::Unknown);
            return;
        }
        self.0.push(place);
    }

    fn with_unknown(&self) -> Places {
        let mut out = self.clone();
        out.add(Place::Unknown);
        out
    }

    /// These places (relative to a script's start) seen from a script that
    /// may have started in any of `bases`.
    pub fn seen_from(&self, bases: &Places) -> Places {
        if bases.0.is_empty() || bases.0 == [Place::Start] {
            return self.clone();
        }
        let mut out = Places(Vec::new());
        for local in &self.0 {
            for base in &bases.0 {
                out.add(local.within(base));
            }
        }
        out
    }

    /// True when a command may run somewhere else than the start.
    pub fn moved(&self) -> bool {
        self.0.iter().any(|p| *p != Place::Start)
    }
}

/// Where the shell may be after a node ran: where it succeeded and where it
/// failed (`&&` and `||` continue from one of them).
#[derive(Clone)]
pub(super) struct Flow {
    pub(super) ok: Places,
    pub(super) fail: Places,
}

impl Flow {
    pub(super) fn same(places: &Places) -> Flow {
        Flow {
            ok: places.clone(),
            fail: places.clone(),
        }
    }

    /// Where the shell may be either way.
    pub(super) fn any(&self) -> Places {
        self.ok.union(&self.fail)
    }

    /// `left && right`, where `right` ran from `left.ok`.
    pub(super) fn and(self, right: Flow) -> Flow {
        Flow {
            ok: right.ok,
            fail: self.fail.union(&right.fail),
        }
    }

    /// `left || right`, where `right` ran from `left.fail`.
    pub(super) fn or(self, right: Flow) -> Flow {
        Flow {
            ok: self.ok.union(&right.ok),
            fail: right.fail,
        }
    }

    /// Where the right operand of `operator` (`&&`, `||`, or another
    /// separator) starts after this flow.
    fn after(&self, operator: Option<&str>) -> Places {
        match operator {
            Some("&&") => self.ok.clone(),
            Some("||") => self.fail.clone(),
            _ => self.any(),
        }
    }

    /// This flow joined by `operator` to `right`, which ran from
    /// [`Flow::after`].
    fn then(self, operator: Option<&str>, right: Flow) -> Flow {
        match operator {
            Some("&&") => self.and(right),
            Some("||") => self.or(right),
            _ => Flow::same(&right.any()),
        }
    }
}

/// A list node's two operands and its operator.
struct ListParts<'t> {
    left: Node<'t>,
    operator: Option<&'static str>,
    right: Node<'t>,
    /// The `redirected_statement` around the list, when tree-sitter hung
    /// the right operand's redirections on the whole list.
    redirected: Option<Node<'t>>,
}

fn list_parts(node: Node<'_>) -> Option<ListParts<'_>> {
    if node.kind() != "list" {
        return None;
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    let mut operands = children
        .iter()
        .copied()
        .filter(|c| c.is_named() && c.kind() != "comment");
    let (left, right) = (operands.next()?, operands.next()?);
    let operator = children
        .iter()
        .find(|c| !c.is_named() && matches!(c.kind(), "&&" | "||"))
        .map(|c| if c.kind() == "&&" { "&&" } else { "||" });
    Some(ListParts {
        left,
        operator,
        right,
        redirected: None,
    })
}

/// A pipeline's first stage that tree-sitter read as a list (see
/// `Walk::pipeline`): the list itself or a redirected one.
fn misread_list(stage: Node<'_>) -> Option<ListParts<'_>> {
    match stage.kind() {
        "list" => list_parts(stage),
        "redirected_statement" => {
            let body = stage.child_by_field_name("body")?;
            let mut parts = list_parts(body)?;
            parts.redirected = Some(stage);
            Some(parts)
        }
        _ => None,
    }
}

/// The places each command node (by node id) of the tree may run in.
pub fn places(root: Node<'_>, src: &str) -> HashMap<usize, Places> {
    let mut walk = Walk {
        src,
        at: HashMap::new(),
        cdpath: mentions_cdpath(src),
        lastpipe: may_set_lastpipe(src),
    };
    walk.flow(root, &Places::start(), 0);
    walk.at
}

/// `CDPATH` on the line: `cd NAME` may enter a directory other than `./NAME`.
pub(super) fn mentions_cdpath(src: &str) -> bool {
    src.contains("CDPATH")
}

/// `shopt -s lastpipe` may be on the line: a pipeline's last stage may
/// then move the shell.
pub(super) fn may_set_lastpipe(src: &str) -> bool {
    src.contains("lastpipe")
}

struct Walk<'s> {
    src: &'s str,
    at: HashMap<usize, Places>,
    cdpath: bool,
    /// `shopt -s lastpipe` runs a pipeline's last stage in the shell itself.
    lastpipe: bool,
}

/// Program names that change the shell's own directory.
fn changes_directory(program: &str) -> bool {
    matches!(program, "cd" | "pushd" | "popd" | "chdir")
}

impl Walk<'_> {
    /// Mark every command under `node` as running in `places` (code that
    /// is not followed in order).
    fn mark_all(&mut self, node: Node<'_>, places: &Places) {
        let mut cursor = node.walk();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if is_command(n) || n.kind() == "redirected_statement" {
                self.at.insert(n.id(), places.clone());
            }
            stack.extend(n.children(&mut cursor));
        }
    }

    /// True when some command under `node` may change directory.
    fn has_directory_change(&self, node: Node<'_>) -> bool {
        let mut cursor = node.walk();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "command" {
                if let Some(program) = self.program(n) {
                    if changes_directory(&program.text) {
                        return true;
                    }
                    if program.text == "eval"
                        && mentions_directory_change(words::node_text(n, self.src))
                    {
                        return true;
                    }
                }
            }
            stack.extend(n.children(&mut cursor));
        }
        false
    }

    /// The program word of a command, past `builtin` and `command`.
    fn program(&self, command: Node<'_>) -> Option<Word> {
        let words = self.words(command);
        let mut iter = words.into_iter().skip_while(is_prefix);
        iter.next()
    }

    /// The name and argument words of a command node.
    fn words(&self, command: Node<'_>) -> Vec<Word> {
        let mut cursor = command.walk();
        let mut out = Vec::new();
        for (index, child) in command.children(&mut cursor).enumerate() {
            let field = u32::try_from(index)
                .ok()
                .and_then(|i| command.field_name_for_child(i));
            if matches!(field, Some("name" | "argument")) {
                out.push(words::from_node(child, self.src));
            }
        }
        out
    }

    fn flow(&mut self, node: Node<'_>, places: &Places, depth: usize) -> Flow {
        if depth > MAX_NESTING {
            let unknown = places.with_unknown();
            self.mark_all(node, &unknown);
            return Flow::same(&unknown);
        }
        let depth = depth + 1;
        // Every node starts here (a compound command's redirections are
        // opened where it starts); commands inside record their own place.
        self.at.insert(node.id(), places.clone());
        match node.kind() {
            "program" | "compound_statement" | "do_group" | "else_clause" => {
                self.sequence(node, places, depth)
            }
            "command" => {
                self.at.insert(node.id(), places.clone());
                self.substitutions(node, places, depth);
                self.command(node, places)
            }
            "declaration_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments"
            | "test_command" => {
                self.at.insert(node.id(), places.clone());
                self.substitutions(node, places, depth);
                Flow::same(places)
            }
            "redirected_statement" => {
                self.at.insert(node.id(), places.clone());
                self.redirect_substitutions(node, places, depth);
                match node.child_by_field_name("body") {
                    Some(body) => self.flow(body, places, depth),
                    None => Flow::same(places),
                }
            }
            "list" => self.list(node, places, depth),
            "negated_command" => {
                let flow = self.children_in_order(node, places, depth);
                Flow {
                    ok: flow.fail,
                    fail: flow.ok,
                }
            }
            "pipeline" => {
                let mut cursor = node.walk();
                let stages: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .collect();
                self.pipeline(&stages, places, depth)
            }
            "subshell" | "command_substitution" | "process_substitution" => {
                self.sequence(node, places, depth);
                Flow::same(places)
            }
            "if_statement" => self.if_statement(node, places, depth),
            "while_statement"
            | "until_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "select_statement" => {
                let inner = if self.has_directory_change(node) {
                    places.with_unknown()
                } else {
                    places.clone()
                };
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.flow(child, &inner, depth);
                }
                Flow::same(&inner)
            }
            "case_statement" => {
                let mut after = places.clone();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "case_item" {
                        let flow = self.sequence(child, places, depth);
                        after = after.union(&flow.any());
                    } else {
                        self.flow(child, places, depth);
                    }
                }
                Flow::same(&after)
            }
            "function_definition" => {
                // The body runs whenever the function is called: anywhere
                // later on the line, and its directory changes then last.
                let changes = self.has_directory_change(node);
                let inner = if changes || self.has_directory_change_anywhere() {
                    places.with_unknown()
                } else {
                    places.clone()
                };
                self.mark_all(node, &inner);
                if let Some(body) = node.child_by_field_name("body") {
                    self.flow(body, &inner, depth);
                }
                Flow::same(&if changes { inner } else { places.clone() })
            }
            _ => {
                // Anything else (substitutions in odd places, error nodes):
                // what it holds runs from here and changes nothing after it.
                self.sequence(node, places, depth);
                Flow::same(places)
            }
        }
    }

    fn has_directory_change_anywhere(&self) -> bool {
        // Cheap text test; only used to decide about function bodies.
        may_change_directory(self.src)
    }

    /// Statements in order; a statement followed by `&` runs in the
    /// background and changes nothing.
    fn sequence(&mut self, node: Node<'_>, places: &Places, depth: usize) -> Flow {
        let mut current = Flow::same(places);
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate() {
            if !child.is_named() || child.kind() == "comment" {
                continue;
            }
            if matches!(child.kind(), "case_item" | "heredoc_body") {
                continue;
            }
            let here = current.any();
            let background = children
                .get(i + 1)
                .is_some_and(|n| !n.is_named() && n.kind() == "&");
            let flow = self.flow(*child, &here, depth);
            current = if background { Flow::same(&here) } else { flow };
        }
        current
    }

    fn children_in_order(&mut self, node: Node<'_>, places: &Places, depth: usize) -> Flow {
        self.sequence(node, places, depth)
    }

    /// The substitutions in a statement's redirections run where it starts.
    fn redirect_substitutions(&mut self, statement: Node<'_>, places: &Places, depth: usize) {
        let mut cursor = statement.walk();
        for child in statement.children(&mut cursor) {
            if child.kind().ends_with("_redirect") {
                self.substitutions(child, places, depth);
            }
        }
    }

    /// The stages of a pipeline, as bash groups them.
    ///
    /// bash binds `|` tighter than `&&` and `||`; tree-sitter-bash does not
    /// always: it reads `cd d && make 2>&1 | tail` as `(cd d && make 2>&1) |
    /// tail` and `a | b | c && d` as `a | (b | c && d)`. Taken as written,
    /// `cd / && true 2>&1 | rm -rf usr` would place the `rm` where the line
    /// started (the `cd` in a child process), while bash runs it in `/`. So
    /// a list in the first or last stage is taken apart: its left operand
    /// runs before the pipeline, its right operand after it.
    fn pipeline(&mut self, stages: &[Node<'_>], places: &Places, depth: usize) -> Flow {
        if let Some((first, rest)) = stages.split_first() {
            if !rest.is_empty() {
                if let Some(parts) = misread_list(*first) {
                    self.at.insert(first.id(), places.clone());
                    let left = self.flow(parts.left, places, depth);
                    let start = left.after(parts.operator);
                    // The redirections tree-sitter hung on the whole list
                    // belong to its right operand, the pipeline's first stage.
                    if let Some(statement) = parts.redirected {
                        self.at.insert(statement.id(), start.clone());
                        self.redirect_substitutions(statement, &start, depth);
                    }
                    let mut joined = vec![parts.right];
                    joined.extend_from_slice(rest);
                    let piped = self.pipeline(&joined, &start, depth);
                    return left.then(parts.operator, piped);
                }
            }
        }
        if let Some((last, init)) = stages.split_last() {
            if !init.is_empty() && last.kind() == "list" {
                if let Some(parts) = list_parts(*last) {
                    self.at.insert(last.id(), places.clone());
                    let mut joined = init.to_vec();
                    if parts.left.kind() == "pipeline" {
                        self.at.insert(parts.left.id(), places.clone());
                        let mut cursor = parts.left.walk();
                        joined.extend(
                            parts
                                .left
                                .named_children(&mut cursor)
                                .filter(|c| c.kind() != "comment"),
                        );
                    } else {
                        joined.push(parts.left);
                    }
                    let piped = self.pipeline(&joined, places, depth);
                    let right = self.flow(parts.right, &piped.after(parts.operator), depth);
                    return piped.then(parts.operator, right);
                }
            }
        }
        // Each stage runs in a child process, the last one in the shell
        // itself under `lastpipe`.
        let mut last = Flow::same(places);
        for stage in stages {
            last = self.flow(*stage, places, depth);
        }
        if self.lastpipe {
            Flow::same(&places.union(&last.any()))
        } else {
            Flow::same(places)
        }
    }

    fn list(&mut self, node: Node<'_>, places: &Places, depth: usize) -> Flow {
        let Some(parts) = list_parts(node) else {
            return self.sequence(node, places, depth);
        };
        let left = self.flow(parts.left, places, depth);
        let right = self.flow(parts.right, &left.after(parts.operator), depth);
        left.then(parts.operator, right)
    }

    fn if_statement(&mut self, node: Node<'_>, places: &Places, depth: usize) -> Flow {
        // `if c; then t; elif c2; then t2; else e; fi`: the conditions run
        // in turn, each body where its condition succeeded.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let mut after = Places(Vec::new());
        let mut condition = Flow::same(places);
        let mut in_body = false;
        let mut body = Flow::same(places);
        let mut saw_else = false;
        for child in children {
            match child.kind() {
                "if" => {}
                "then" => {
                    in_body = true;
                    body = Flow::same(&condition.ok);
                }
                "fi" => {}
                "elif_clause" => {
                    after = after.union(&body.any());
                    condition = self.if_statement(child, &condition.fail, depth);
                    // An elif clause is an if statement without `fi`.
                    after = after.union(&condition.any());
                    in_body = false;
                    saw_else = true;
                }
                "else_clause" => {
                    after = after.union(&body.any());
                    let flow = self.sequence(child, &condition.fail, depth);
                    after = after.union(&flow.any());
                    in_body = false;
                    saw_else = true;
                }
                _ if !child.is_named() || child.kind() == "comment" => {}
                _ if in_body => body = self.flow(child, &body.any(), depth),
                _ => condition = self.flow(child, &condition.any(), depth),
            }
        }
        if in_body {
            after = after.union(&body.any());
        }
        if !saw_else {
            after = after.union(&condition.fail);
        }
        if after.0.is_empty() {
            after = places.clone();
        }
        Flow::same(&after)
    }

    /// Commands in `$(...)` and `<(...)` within a node run before it, from
    /// the same place, in a child process.
    fn substitutions(&mut self, node: Node<'_>, places: &Places, depth: usize) {
        let mut cursor = node.walk();
        let mut stack: Vec<Node<'_>> = node.children(&mut cursor).collect();
        while let Some(n) = stack.pop() {
            if matches!(n.kind(), "command_substitution" | "process_substitution") {
                self.flow(n, places, depth);
                continue;
            }
            stack.extend(n.children(&mut cursor));
        }
    }

    fn command(&mut self, node: Node<'_>, places: &Places) -> Flow {
        let text = words::node_text(node, self.src);
        command_flow(&self.words(node), text, places, self.cdpath)
    }
}

/// Where the shell may be after one simple command ran from `places`:
/// `words` are its name and argument words as the tree's fields give them
/// (not words a redirection carried), `text` its source, which `eval` is
/// judged by, and `cdpath` whether the script mentions `CDPATH`. The plain
/// line reader (`simple.rs`) follows a line through this same step.
pub(super) fn command_flow(words: &[Word], text: &str, places: &Places, cdpath: bool) -> Flow {
    let mut words = words.iter().skip_while(|w| is_prefix(w));
    let Some(program) = words.next() else {
        return Flow::same(places);
    };
    // A program only known at run time (`$X /`) could be `cd`; such a
    // line is opaque, which `core.opaque-command` refuses, so it is not
    // also taken to move here.
    let name = program.text.as_str();
    if name == "eval" {
        if mentions_directory_change(text) {
            return Flow::same(&places.with_unknown());
        }
        return Flow::same(places);
    }
    if !changes_directory(name) {
        return Flow::same(places);
    }
    let operand = words
        .skip_while(|w| {
            w.static_text().is_some_and(|t| {
                t.len() > 1 && t.starts_with('-') && t[1..].chars().all(|c| "LPe@".contains(c))
            })
        })
        .find(|w| w.text != "--");
    let target = match (name, operand) {
        ("popd", _) => None,
        ("pushd", None) => None,
        // `pushd +N` / `-N` rotate the directory stack.
        ("pushd", Some(w)) if w.text.starts_with(['+', '-']) => None,
        (_, None) => Some("~".to_string()),
        (_, Some(w)) => directory(w, cdpath),
    };
    let ok = match target {
        Some(dir) => {
            let mut out = Places(Vec::new());
            for p in &places.0 {
                out.add(p.enter(&dir));
            }
            out
        }
        None => Places::unknown(),
    };
    Flow {
        ok,
        fail: places.clone(),
    }
}

/// The directory a `cd` operand names, when it is known: literal text,
/// or `$HOME`/`$PWD` followed by literal text.
fn directory(word: &Word, cdpath: bool) -> Option<String> {
    // A glob (`cd ~/.cl*`) is kept: the place is matched as a pattern.
    let text = if word.literal {
        word.text.clone()
    } else {
        let t = word.text.as_str();
        let known = [
            ("$HOME", "~"),
            ("${HOME}", "~"),
            ("$PWD", "."),
            ("${PWD}", "."),
        ]
        .iter()
        .find_map(|(name, value)| {
            let rest = t.strip_prefix(name)?;
            let clean = !rest.contains(['$', '`', '*', '?', '[', '{'])
                && (rest.is_empty() || rest.starts_with('/'));
            clean.then(|| format!("{value}{rest}"))
        })?;
        known
    };
    if text == "-" || text.is_empty() {
        return None;
    }
    if text.starts_with('~') && !(text == "~" || text.starts_with("~/")) {
        return None;
    }
    // With CDPATH set, a name not starting with `/` or `.` is searched
    // for in other directories first.
    if cdpath && !(text.starts_with('/') || text.starts_with('.') || text.starts_with('~')) {
        return None;
    }
    Some(text)
}

/// Words in front of a builtin that still run it in the shell itself:
/// `builtin cd`, `command cd`, `time cd`, `time -p cd`.
fn is_prefix(word: &Word) -> bool {
    word.static_text()
        .is_some_and(|t| matches!(t, "builtin" | "command" | "time" | "-p"))
}

/// `eval` code that may change directory.
fn mentions_directory_change(text: &str) -> bool {
    ["cd", "pushd", "popd", "chdir", "$"]
        .iter()
        .any(|w| text.contains(w))
}

/// True when a script may change directory at all: it names `cd`,
/// `pushd`, `popd`, `chdir` or `eval`. Other scripts run every command
/// where they started, and need no walk.
pub fn may_change_directory(src: &str) -> bool {
    ["cd", "pushd", "popd", "chdir", "eval"]
        .iter()
        .any(|w| crate::bytes::contains(src.as_bytes(), w.as_bytes()))
}

fn is_command(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "command"
            | "declaration_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments"
    )
}

#[cfg(test)]
mod tests {
    use crate::shell::{analyze, TargetClass};

    /// The class of the first target of the last `rm` on the line.
    fn rm_class(line: &str) -> TargetClass {
        let analysis = analyze(line);
        let rm = analysis
            .commands
            .iter()
            .rev()
            .find(|c| c.program == "rm")
            .unwrap_or_else(|| panic!("no rm in {line}"));
        crate::shell::resolve_target(&rm.targets[0], "/home/u/proj", Some("/home/u")).class
    }

    /// tree-sitter-bash groups these differently from bash (see
    /// `Walk::pipeline`); the places follow bash. Each of the `System`
    /// lines was allowed when the tree was taken as written.
    #[test]
    fn pipelines_are_grouped_as_bash_groups_them() {
        use TargetClass::*;
        for (line, want) in [
            ("cd / && true 2>&1 | rm -rf usr", System),
            ("cd / && true >/dev/null | rm -rf usr", System),
            ("cd / && echo x 2>&1 | tee log | rm -rf usr", System),
            ("false || cd / && ls 2>&1 | rm -rf usr", System),
            ("cd / || true 2>&1 | rm -rf usr", InsideProject),
            ("true | true | true && cd /; rm -rf usr", System),
            ("true | true | cd / && rm -rf dist", InsideProject),
            ("cd /tmp && rm -rf x 2>&1 | tail", Temp),
            ("cd src && rm -rf build 2>&1 | tail -3", InsideProject),
            ("cd src && true 2>&1 | cd / | rm -rf build", InsideProject),
        ] {
            assert_eq!(rm_class(line), want, "{line}");
        }
    }

    #[test]
    fn targets_before_the_first_directory_change_are_located_normally() {
        use TargetClass::*;
        for (line, want) in [
            ("rm -rf dist; cd src && ls", InsideProject),
            ("rm -rf dist && cd / && ls", InsideProject),
            ("(cd /; ls); rm -rf dist", InsideProject),
            ("ls | cd /; rm -rf dist", InsideProject),
            ("x=$(cd /; pwd); rm -rf dist", InsideProject),
            ("cd / & rm -rf dist", InsideProject),
            ("cd src && rm -rf build", InsideProject),
            ("cd /tmp && rm -rf x", Temp),
            ("cd / && rm -rf usr", System),
            ("cd ~ && rm -rf proj", ProjectRoot),
            ("cd && rm -rf Documents", Outside),
            ("cd $HOME/.cache && rm -rf pip", Outside),
            ("cd src; cd ..; rm -rf .git", GitDir),
            ("pushd /etc && rm -rf ssl", System),
            ("time cd / && rm -rf usr", System),
            ("time -p cd / && rm -rf usr", System),
            ("command cd / && rm -rf usr", System),
            ("true | cd /; rm -rf dist", InsideProject),
            ("shopt -s lastpipe; true | cd /; rm -rf usr", System),
            ("cd src; cd ..; rm -rf target", Outside),
            ("cd src && cd .. && rm -rf target", InsideProject),
        ] {
            assert_eq!(rm_class(line), want, "{line}");
        }
    }

    #[test]
    fn a_failed_cd_leaves_the_shell_where_it_was() {
        use TargetClass::*;
        // With `;` the rm also runs if the cd failed: from the project root
        // `../x` is outside it, whatever /tmp/a would have made of it.
        assert_eq!(rm_class("cd /tmp/a/b; rm -rf ../x"), Outside);
        assert_eq!(rm_class("cd /tmp/a/b && rm -rf ../x"), Temp);
        assert_eq!(rm_class("cd /nowhere || rm -rf ../x"), Outside);
        assert_eq!(rm_class("cd /tmp/a/b || rm -rf x"), InsideProject);
    }

    #[test]
    fn places_that_cannot_be_known_make_relative_targets_unknown() {
        use TargetClass::*;
        for line in [
            "cd \"$DIR\" && rm -rf build",
            "cd - && rm -rf build",
            "popd; rm -rf build",
            "for d in a b; do cd $d; rm -rf build; done",
            "while true; do cd ..; done; rm -rf build",
            "f() { cd /; }; f; rm -rf build",
            "CDPATH=/ cd etc; rm -rf ssl",
            "eval 'cd /'; rm -rf usr",
            "pushd /tmp; pushd +1; rm -rf build",
            "cd ~other && rm -rf x",
            "sudo -i rm -rf build",
            "sudo -D /etc rm -rf ssl",
            "env -C / rm -rf usr",
            "env --chdir=/ rm -rf usr",
            "su - root -c 'rm -rf build'",
            "systemd-run rm -rf build",
            "chroot /mnt rm -rf build",
            "find . -execdir rm -rf ../x {} +",
        ] {
            assert_eq!(rm_class(line), Unknown, "{line}");
        }
    }

    #[test]
    fn program_names_are_compared_in_lower_case_but_builtins_keep_theirs() {
        let a = analyze("SUDO /usr/bin/RM -rf /srv; GIT reset --hard");
        let programs: Vec<&str> = a.programs().collect();
        assert_eq!(programs, ["rm", "git"]);
        assert_eq!(a.commands[0].wrappers, ["sudo"]);
        assert_eq!(a.commands[0].program_path, "/usr/bin/RM");
        // `CD` is no builtin: on macOS /usr/bin/cd changes its own directory only.
        assert_eq!(rm_class("CD / && rm -rf usr"), TargetClass::InsideProject);
    }

    #[test]
    fn wrappers_that_keep_the_directory_keep_targets_known() {
        use TargetClass::*;
        for line in [
            "sudo rm -rf build",
            "sudo -u www rm -rf build",
            "sudo -s rm -rf build",
            "doas rm -rf build",
            "env FOO=1 rm -rf build",
            "nice -n 5 rm -rf build",
            "timeout 10 rm -rf build",
            "systemd-run --same-dir rm -rf build",
            "bash -c 'rm -rf build'",
            "cd src && bash -c 'rm -rf build'",
        ] {
            assert_eq!(rm_class(line), InsideProject, "{line}");
        }
        assert_eq!(rm_class("sudo rm -rf /etc"), System);
        assert_eq!(rm_class("cd / && bash -c 'rm -rf etc'"), System);
    }
}
