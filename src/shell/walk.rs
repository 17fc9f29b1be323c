//! Finding every simple command in one parsed script.
//!
//! Rather than interpreting each compound construct (lists, pipelines,
//! `if`/`for`/`while`/`case`, functions, subshells, substitutions, ...) the
//! walk visits every node of the syntax tree, so a command is found wherever
//! the grammar put it, including conditions, function bodies, redirection
//! targets, assignments and the partial trees around syntax errors. The
//! traversal is iterative (a tree cursor plus explicit stacks): nesting in
//! the input cannot overflow the Rust stack.

use super::assigned::Assigned;
use super::cwd::{self, Places};
use super::words::{self, Word};
use std::collections::HashMap;
use tree_sitter::{Node, Tree};

/// Where a command's standard input comes from, when the command line says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `<<EOF ... EOF`; `literal` when the body is used as written.
    Heredoc { body: String, literal: bool },
    /// `<<< word`
    HereString(Word),
    /// `< file`
    File(String),
}

/// A simple command as written, before wrappers are interpreted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundCommand {
    /// Program first, then arguments.
    pub words: Vec<Word>,
    pub assignments: Vec<(String, Word)>,
    /// Substitutions enclosing the command within this script, outermost first.
    pub via: Vec<&'static str>,
    pub input: Option<Input>,
    /// Files its redirections write (`> f`, `>> f`, `&> f`, `<> f`).
    pub writes: Vec<Word>,
    /// Files its redirections open for reading other than as its standard
    /// input (`3< f`, `<> f`): a descriptor the command may read
    /// (`cat <&3`, `read -u 3`, `/dev/fd/3`), or `exec` keeps open for
    /// every later command.
    pub reads: Vec<String>,
    /// The directories it may run in, relative to the script's start.
    pub places: Places,
    /// Variables the script exported with a certain value before this
    /// command (see `assigned`): the environment of a shell it starts.
    pub exported: Vec<(String, String)>,
}

/// What one walk over a tree found.
#[derive(Debug, Default)]
pub struct Walked {
    /// Commands in source order.
    pub commands: Vec<FoundCommand>,
    /// Offsets of newlines the tree takes for blanks inside a command, a
    /// redirection, or between a statement and its redirections.
    ///
    /// The grammar counts every white-space character, newline included,
    /// among the "extras" that may stand between two tokens; a newline is
    /// a terminator only where the parser expects one. From the second `|`
    /// of a pipeline on, the parser keeps two stack versions, and the one
    /// that wins can be the one that expected no terminator: `ls | cat |
    /// cat`, a newline, `rm -rf / 2>&1` came back as one `cat` with the
    /// arguments `rm -rf /`. To bash an unquoted newline always ends a
    /// simple command unless a backslash continues the line, so each of
    /// these is a misread: the analyser parses again with `;` there.
    pub misread_newlines: Vec<usize>,
    /// Comments that end where a misread newline starts: the `;` must not
    /// become part of them, so they are parsed again as blanks.
    pub comments_before_misread: Vec<std::ops::Range<usize>>,
    /// Offsets of text between the parts of a command that the tree left
    /// out (the grammar once dropped a `-` in `x= <- - x= -`): the tree
    /// does not show everything the line runs.
    pub dropped_text: Vec<usize>,
    /// Words after the redirection of a compound command or function
    /// (`{ a; } > f rm -rf /`): bash refuses such a line.
    pub stray_words: Vec<String>,
}

/// Commands of one script in source order; stops after `limit` commands.
/// `inherited` is the environment the script starts with, as far as the
/// line that started it shows (see `assigned`).
pub fn commands(tree: &Tree, src: &str, limit: usize, inherited: &[(String, String)]) -> Walked {
    let mut found = Vec::new();
    let mut misread = GapFindings::default();
    let mut stray = Vec::new();
    // Redirections written around a command (`cmd <<EOF`, `cmd < f`) hang off
    // the enclosing redirected_statement; remember them by the command's id.
    let mut outer_redirects: HashMap<usize, Vec<Node<'_>>> = HashMap::new();
    let mut labels: Vec<(usize, &'static str)> = Vec::new();
    let mut deferred: HashMap<usize, Vec<FoundCommand>> = HashMap::new();
    // Where each command runs; only worth working out when the line may
    // change directory at all (see `cwd`).
    let may_move = cwd::may_change_directory(src);
    let places = if may_move {
        cwd::places(tree.root_node(), src)
    } else {
        HashMap::new()
    };
    let place_of = |id: usize| -> Places {
        match places.get(&id) {
            Some(p) => p.clone(),
            None if may_move => Places::unknown(),
            None => Places::start(),
        }
    };
    // Values certain from a top-level assignment on (see `assigned`).
    let mut assigned = Assigned::inheriting(inherited, src);
    let mut cursor = tree.root_node().walk();
    loop {
        let node = cursor.node();
        if let Some(label) = nesting_label(node, src) {
            labels.push((node.id(), label));
        }
        // A command made of a redirection's carried words stands where its
        // assignments stand in the source.
        let carried = deferred.remove(&node.id());
        let stands_here = carried.is_some();
        for mut command in carried.into_iter().flatten() {
            command.via = labels.iter().map(|(_, l)| *l).collect();
            command.places = place_of(node.id());
            found.push(assigned.apply(command));
        }
        match node.kind() {
            // `EDITOR='rm -rf ~'; git commit`: an assignment with no
            // command sets a shell variable, which a later command inherits
            // when it is exported already. Reported as a command without
            // words, so what its values run is still found.
            "variable_assignment" | "variable_assignments"
                if !stands_here && is_bare_assignment(node) =>
            {
                if found.len() >= limit {
                    break;
                }
                found.push(assigned.apply(FoundCommand {
                    words: Vec::new(),
                    assignments: bare_assignments(node, src),
                    via: labels.iter().map(|(_, l)| *l).collect(),
                    input: None,
                    writes: Vec::new(),
                    reads: Vec::new(),
                    places: place_of(node.id()),
                    exported: Vec::new(),
                }));
                assigned.note(node, src);
            }
            "redirected_statement" => {
                match remember_redirects(node, src, &mut outer_redirects, &mut stray) {
                    Some((Some(at), commands)) => {
                        deferred.insert(at, commands);
                    }
                    Some((None, commands)) => {
                        for mut command in commands {
                            command.via = labels.iter().map(|(_, l)| *l).collect();
                            command.places = place_of(node.id());
                            found.push(assigned.apply(command));
                        }
                    }
                    None => {}
                }
                // A heredoc's body follows the newline that ends its line.
                let mut children = node.walk();
                let mut gaps = Gaps::default();
                for child in node.children(&mut children) {
                    if child.kind() == "heredoc_redirect" {
                        gaps.restart();
                    } else {
                        gaps.check(src, child, &mut misread);
                    }
                }
            }
            // `$(< f)`: the grammar hangs the redirection on the
            // substitution itself; bash reads the file as `cat f` would.
            "command_substitution" => {
                let mut children = node.walk();
                let redirects: Vec<Node<'_>> = node
                    .children(&mut children)
                    .filter(|c| c.kind() == "file_redirect")
                    .collect();
                if let Some(input @ Input::File(_)) = stdin_of(&redirects, src) {
                    let mut command = colon_command(Vec::new(), None);
                    command.input = Some(input);
                    command.via = labels.iter().map(|(_, l)| *l).collect();
                    command.places = place_of(node.id());
                    found.push(assigned.apply(command));
                }
            }
            "function_definition" => {
                let mut cursor = node.walk();
                for redirect in node.children(&mut cursor) {
                    stray.extend(
                        carried_words(redirect).map(|w| words::node_text(w, src).to_string()),
                    );
                }
            }
            "file_redirect" | "herestring_redirect" => {
                let mut children = node.walk();
                let mut gaps = Gaps::default();
                for child in node.children(&mut children) {
                    gaps.check(src, child, &mut misread);
                }
            }
            "command" | "declaration_command" | "unset_command" => {
                if found.len() >= limit {
                    break;
                }
                let mut redirects = outer_redirects.remove(&node.id()).unwrap_or_default();
                redirects.sort_by_key(|r| r.start_byte());
                let mut command = if node.kind() == "command" {
                    simple_command(node, src, &mut misread)
                } else {
                    builtin_command(node, src, &mut misread)
                };
                command.via = labels.iter().map(|(_, l)| *l).collect();
                command.places = place_of(node.id());
                command.input = command.input.or_else(|| stdin_of(&redirects, src));
                command.reads.extend(other_reads(&redirects, src));
                for redirect in &redirects {
                    command
                        .words
                        .extend(carried_words(*redirect).map(|w| words::from_node(w, src)));
                    command.writes.extend(written_file(*redirect, src));
                }
                if !command.words.is_empty() {
                    found.push(assigned.apply(command));
                }
                assigned.note(node, src);
            }
            _ => {}
        }
        if cursor.goto_first_child() {
            continue;
        }
        // Leave finished nodes until one has a next sibling.
        loop {
            let leaving = cursor.node().id();
            if labels.last().is_some_and(|(id, _)| *id == leaving) {
                labels.pop();
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Walked {
                    commands: found,
                    misread_newlines: misread.newlines,
                    comments_before_misread: misread.comments,
                    dropped_text: misread.dropped,
                    stray_words: stray,
                };
            }
        }
    }
    Walked {
        commands: found,
        misread_newlines: misread.newlines,
        comments_before_misread: misread.comments,
        dropped_text: misread.dropped,
        stray_words: stray,
    }
}

/// An assignment standing as a statement of its own, not in front of a
/// command or given to `declare` and its kin.
fn is_bare_assignment(node: Node<'_>) -> bool {
    !node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "command" | "declaration_command" | "variable_assignments"
        )
    })
}

/// The assignments of a bare `variable_assignment(s)` node.
fn bare_assignments(node: Node<'_>, src: &str) -> Vec<(String, Word)> {
    if node.kind() == "variable_assignment" {
        return vec![assignment(node, src)];
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind() == "variable_assignment")
        .map(|c| assignment(c, src))
        .collect()
}

/// Words a redirection holds that bash gives to the command instead.
///
/// The grammar lets a redirection take every word that follows it
/// (`destination: repeat1(...)`), and a heredoc the words after its
/// delimiter, so in `rm > /dev/null -rf /`, `rm 2>&1 -rf /` and
/// `rm <<EOF -rf /` the `-rf /` hung off the redirection and `rm` looked
/// harmless. To bash a redirection takes one word (`>&-` and `<&-` none, a
/// heredoc only its delimiter); every other word is an argument of the
/// command, wherever it stands.
fn carried_words<'t>(redirect: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = redirect.walk();
    match redirect.kind() {
        "file_redirect" => {
            let closes = redirect
                .children(&mut cursor)
                .any(|c| matches!(c.kind(), "<&-" | ">&-"));
            let taken = usize::from(!closes);
            let mut cursor = redirect.walk();
            out.extend(
                redirect
                    .children_by_field_name("destination", &mut cursor)
                    .skip(taken),
            );
        }
        "heredoc_redirect" => {
            for (index, child) in redirect.children(&mut cursor).enumerate() {
                let field = u32::try_from(index)
                    .ok()
                    .and_then(|i| redirect.field_name_for_child(i));
                if field == Some("argument") {
                    out.push(child);
                } else if child.kind() == "file_redirect" {
                    out.extend(carried_words(child));
                }
            }
        }
        _ => {}
    }
    out.into_iter()
}

/// The simple command that redirections written after `body` belong to:
/// the last command of a pipeline or list, as bash binds them.
fn redirect_target(body: Node<'_>) -> Option<Node<'_>> {
    let mut node = body;
    loop {
        match node.kind() {
            "command"
            | "declaration_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments" => return Some(node),
            "pipeline" | "list" | "negated_command" => {
                let mut cursor = node.walk();
                node = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .last()?;
            }
            "redirected_statement" => node = node.child_by_field_name("body")?,
            _ => return None,
        }
    }
}

/// The node redirections written after `body` bind to when it is not a
/// simple command: the last compound command of a pipeline or list.
fn redirect_holder(body: Node<'_>) -> Option<Node<'_>> {
    let mut node = body;
    loop {
        match node.kind() {
            "pipeline" | "list" | "negated_command" => {
                let mut cursor = node.walk();
                node = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .last()?;
            }
            "redirected_statement" => node = node.child_by_field_name("body")?,
            _ => return Some(node),
        }
    }
}

/// What the white space between the children of nodes held.
#[derive(Default)]
pub struct GapFindings {
    newlines: Vec<usize>,
    comments: Vec<std::ops::Range<usize>>,
    dropped: Vec<usize>,
}

/// Watches the white space between the children of one node for a newline
/// that no backslash continues (see [`Walked::misread_newlines`]) and for
/// text that is not white space at all ([`Walked::dropped_text`]). Only the
/// first newline is reported: a `;` there ends the command, and the parser
/// reads the rest again (a `;` at each of several could give `;;` or `! ;`).
#[derive(Default)]
struct Gaps {
    previous_end: Option<usize>,
    /// The previous child, when it was a comment.
    previous_comment: Option<std::ops::Range<usize>>,
    found: bool,
}

impl Gaps {
    fn check(&mut self, src: &str, child: Node<'_>, into: &mut GapFindings) {
        let start = child.start_byte();
        let comment = (child.kind() == "comment").then(|| child.byte_range());
        let previous_comment = std::mem::replace(&mut self.previous_comment, comment);
        let Some(end) = self.previous_end.replace(child.end_byte()) else {
            return;
        };
        let bytes = src.as_bytes();
        let gap = end.min(start)..start.min(bytes.len());
        // The grammar's extras: blanks, line continuations, and a
        // backslash before a blank.
        if let Some(at) = gap.clone().find(|&at| {
            !matches!(
                bytes[at],
                b' ' | b'\t' | b'\n' | b'\r' | b'\\' | 0x0b | 0x0c
            )
        }) {
            into.dropped.push(at);
        }
        if self.found {
            return;
        }
        if let Some(at) = unescaped_newline(bytes, gap) {
            into.newlines.push(at);
            into.comments.extend(previous_comment);
            self.found = true;
        }
    }

    /// A bare word (no quotes, no expansions) never holds a newline to
    /// bash unless a backslash continues the line; the grammar once read
    /// `}`, newline, `]` after a pipeline as one word.
    fn check_word(&mut self, src: &str, word: Node<'_>, into: &mut GapFindings) {
        if self.found || word.kind() != "word" {
            return;
        }
        if let Some(at) = unescaped_newline(src.as_bytes(), word.byte_range()) {
            into.newlines.push(at);
            self.found = true;
        }
    }

    /// Forget the previous child: a heredoc's body follows the newline
    /// that ends its line.
    fn restart(&mut self) {
        self.previous_end = None;
        self.previous_comment = None;
    }
}

/// The first newline in `range` that no backslash continues.
fn unescaped_newline(bytes: &[u8], range: std::ops::Range<usize>) -> Option<usize> {
    let range = range.start.min(bytes.len())..range.end.min(bytes.len());
    range.into_iter().find(|&at| {
        let before = bytes[..at].strip_suffix(b"\r").unwrap_or(&bytes[..at]);
        bytes[at] == b'\n' && !before.ends_with(b"\\")
    })
}

/// Label recorded in `via` for commands nested inside this node.
fn nesting_label(node: Node<'_>, src: &str) -> Option<&'static str> {
    match node.kind() {
        "command_substitution" => Some("$()"),
        "process_substitution" if words::node_text(node, src).starts_with('>') => Some(">()"),
        "process_substitution" => Some("<()"),
        _ => None,
    }
}

/// Files the redirections of a statement under the command they belong
/// to. A statement of redirections alone (`> log rm -rf /`, which the
/// grammar can read as redirections only), or of assignments and
/// redirections, is a command made of the words they carry: it is
/// returned with the node it stands at (`None`: the statement itself). The
/// carried words of a compound command's redirections are stray.
fn remember_redirects<'t>(
    statement: Node<'t>,
    src: &str,
    into: &mut HashMap<usize, Vec<Node<'t>>>,
    stray: &mut Vec<String>,
) -> Option<(Option<usize>, Vec<FoundCommand>)> {
    let mut cursor = statement.walk();
    let redirects: Vec<Node<'t>> = statement
        .children(&mut cursor)
        .filter(|c| c.kind().ends_with("_redirect"))
        .collect();
    // Redirections after assignments alone (`x=1 > log rm -rf /` read as
    // an assignment with redirections) or after nothing: the carried words
    // are the command, run with those assignments.
    let command_of_carried_words = |assigned: Option<Node<'t>>| {
        // The assignment nodes first, then the carried words, in source
        // order: each spells an assignment while no word came before it
        // and its name is valid (`x=1 > f y=2 cmd`), otherwise it is a word
        // (`--x= < f cmd` runs `--x=`).
        let mut items: Vec<(Node<'t>, bool)> = Vec::new();
        if let Some(node) = assigned {
            if node.kind() == "variable_assignment" {
                items.push((node, true));
            } else {
                let mut cursor = node.walk();
                items.extend(
                    node.named_children(&mut cursor)
                        .filter(|c| c.kind() == "variable_assignment")
                        .map(|c| (c, true)),
                );
            }
        }
        items.extend(
            redirects
                .iter()
                .flat_map(|r| carried_words(*r))
                .map(|w| (w, false)),
        );
        let mut words = Vec::new();
        let mut assignments = Vec::new();
        for (node, is_assignment_node) in items {
            let valid = assignment_name(words::node_text(node, src)).is_some();
            match (words.is_empty() && valid, is_assignment_node) {
                (true, true) => assignments.push(assignment(node, src)),
                (true, false) => assignments.push(word_assignment(node, src)),
                (false, true) => words.push(assignment_word(node, src)),
                (false, false) => words.push(words::from_node(node, src)),
            }
        }
        let writes: Vec<Word> = redirects
            .iter()
            .filter_map(|r| written_file(*r, src))
            .collect();
        // `> f` alone is bash's null command with a redirection: it
        // truncates f. It is reported as `:` so the write is seen. So is
        // `< f` alone, which `$(< f)` turns into the file's contents.
        let input = stdin_of(&redirects, src);
        if words.is_empty() && (!writes.is_empty() || matches!(input, Some(Input::File(_)))) {
            words.push(Word::literal(":"));
        }
        let reads = other_reads(&redirects, src);
        if words.is_empty() && !reads.is_empty() {
            words.push(Word::literal(":"));
        }
        (!words.is_empty()).then(|| FoundCommand {
            words,
            assignments,
            via: Vec::new(),
            input,
            writes,
            reads,
            places: Places::start(),
            exported: Vec::new(),
        })
    };
    let Some(body) = statement.child_by_field_name("body") else {
        return command_of_carried_words(None).map(|c| (None, vec![c]));
    };
    match redirect_target(body) {
        Some(assigned) if assigned.kind().starts_with("variable_assignment") => {
            return command_of_carried_words(Some(assigned))
                .map(|c| (Some(assigned.id()), vec![c]));
        }
        Some(command) => into.entry(command.id()).or_default().extend(redirects),
        None => {
            for redirect in &redirects {
                stray
                    .extend(carried_words(*redirect).map(|w| words::node_text(w, src).to_string()));
            }
            // `{ ...; } > f`, `while ...; done > f`: the compound command
            // writes f, reported as a `:` standing where it starts. So is
            // each file it opens for reading (`while read l; do ...; done <
            // .env`, `done 3< .env` with `read -u 3`): any command inside
            // may read it. One `:` per file read, the first also writing.
            let writes: Vec<Word> = redirects
                .iter()
                .filter_map(|r| written_file(*r, src))
                .collect();
            let mut reads = redirects.iter().filter_map(|r| read_file(*r, src));
            let mut commands: Vec<FoundCommand> = Vec::new();
            let first_read = reads.next();
            if !writes.is_empty() || first_read.is_some() {
                commands.push(colon_command(writes, first_read));
            }
            commands.extend(reads.map(|read| colon_command(Vec::new(), Some(read))));
            if !commands.is_empty() {
                // Stands where the compound command the redirection binds
                // to starts (the last stage of a pipeline), whichever way
                // the grammar grouped the statement.
                let holder = redirect_holder(body).map(|n| n.id());
                return Some((holder, commands));
            }
        }
    }
    None
}

/// `:` standing for a compound command's redirections.
fn colon_command(writes: Vec<Word>, read: Option<String>) -> FoundCommand {
    FoundCommand {
        words: vec![Word::literal(":")],
        assignments: Vec::new(),
        via: Vec::new(),
        input: read.map(Input::File),
        writes,
        reads: Vec::new(),
        places: Places::start(),
        exported: Vec::new(),
    }
}

/// A file redirection's operator (`<`, `>>`, `>&`, ...) and destination.
fn file_redirect<'t>(redirect: Node<'t>) -> Option<(&'t str, Node<'t>)> {
    if redirect.kind() != "file_redirect" {
        return None;
    }
    let mut cursor = redirect.walk();
    let operator = redirect
        .children(&mut cursor)
        .find(|c| !c.is_named())
        .map(|c| c.kind())?;
    Some((operator, redirect.child_by_field_name("destination")?))
}

/// The file a redirection opens for reading, on any descriptor: `<`, `<>`.
fn read_file(redirect: Node<'_>, src: &str) -> Option<String> {
    let (operator, destination) = file_redirect(redirect)?;
    matches!(operator, "<" | "<>").then(|| words::from_node(destination, src).text)
}

/// The files redirections open for reading that are not the command's
/// standard input as [`stdin_of`] takes it: `N< f` with a descriptor other
/// than 0, and `<> f` on any descriptor.
fn other_reads(redirects: &[Node<'_>], src: &str) -> Vec<String> {
    redirects
        .iter()
        .filter(|r| {
            let text = words::node_text(**r, src);
            let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let stdin = text[..digits].bytes().all(|d| d == b'0');
            text[digits..].starts_with("<>") || !stdin
        })
        .filter_map(|r| read_file(*r, src))
        .collect()
}

/// The file a redirection writes, if it writes one: `>`, `>>`, `>|`,
/// `&>`, `&>>`, `<>`, and `>&` followed by a name (not a descriptor).
fn written_file(redirect: Node<'_>, src: &str) -> Option<Word> {
    let (operator, destination) = file_redirect(redirect)?;
    let word = words::from_node(destination, src);
    match operator {
        ">" | ">>" | ">|" | "&>" | "&>>" | "<>" => Some(word),
        ">&" if !(word.text == "-" || word.text.chars().all(|c| c.is_ascii_digit())) => Some(word),
        _ => None,
    }
}

fn simple_command(node: Node<'_>, src: &str, misread: &mut GapFindings) -> FoundCommand {
    let mut command = FoundCommand {
        words: Vec::new(),
        assignments: Vec::new(),
        via: Vec::new(),
        input: None,
        writes: Vec::new(),
        reads: Vec::new(),
        places: Places::start(),
        exported: Vec::new(),
    };
    let mut redirects = Vec::new();
    // The word written last and where it ended: a word that follows it with
    // nothing but line continuations between (`r\<newline>m`) is the same
    // word to bash, though the grammar splits it.
    let mut last_word: Option<(usize, usize)> = None;
    let mut gaps = Gaps::default();
    let mut cursor = node.walk();
    for (index, child) in node.children(&mut cursor).enumerate() {
        gaps.check(src, child, misread);
        let field = u32::try_from(index)
            .ok()
            .and_then(|i| node.field_name_for_child(i));
        // `$"..."` (a translated string) arrives as an anonymous `$` followed
        // by the string; the `$` is quoting, not part of the word.
        if !child.is_named()
            && child.kind() == "$"
            && child
                .next_sibling()
                .is_some_and(|n| n.start_byte() == child.end_byte() && n.kind() == "string")
        {
            continue;
        }
        let word_at = match (field, child.kind()) {
            // The grammar has no assignment to `_` (it takes `_` for the
            // special parameter), so in `_=1 rm -rf ~` it names the program
            // `_=1`. Bash reads every unquoted `NAME=value` before the
            // program as an assignment, whatever the grammar made of it.
            (Some("name" | "argument"), _)
                if command.words.is_empty()
                    && assignment_name(words::node_text(child, src)).is_some() =>
            {
                command.assignments.push(word_assignment(child, src));
                None
            }
            (Some("name" | "argument"), _) => {
                let name_word = child
                    .named_child(0)
                    .filter(|_| child.kind() == "command_name");
                gaps.check_word(src, name_word.unwrap_or(child), misread);
                let word = words::from_node(child, src);
                match last_word {
                    Some((at, end)) if only_line_continuations(src, end, child.start_byte()) => {
                        command.words[at].append(word);
                        Some(at)
                    }
                    // In source order: the name comes first unless a
                    // redirection before it carried words (see
                    // `carried_words`), which bash reads as the command.
                    _ => {
                        command.words.push(word);
                        Some(command.words.len() - 1)
                    }
                }
            }
            // Bash takes `NAME=value` as an assignment only before the first
            // word and only with a valid name; the grammar is laxer
            // (`--opt=` after a redirection), so anything else is a word.
            (_, "variable_assignment")
                if command.words.is_empty()
                    && assignment_name(words::node_text(child, src)).is_some() =>
            {
                command.assignments.push(assignment(child, src));
                None
            }
            (_, "variable_assignment") => {
                command.words.push(assignment_word(child, src));
                Some(command.words.len() - 1)
            }
            (_, kind) if kind.ends_with("_redirect") => {
                redirects.push(child);
                command.writes.extend(written_file(child, src));
                command
                    .words
                    .extend(carried_words(child).map(|w| words::from_node(w, src)));
                None
            }
            _ => None,
        };
        last_word = word_at.map(|at| (at, child.end_byte()));
    }
    command.input = stdin_of(&redirects, src);
    command.reads = other_reads(&redirects, src);
    command
}

/// True when `src[start..end]` is one or more backslash-newline pairs, which
/// bash removes before splitting words.
fn only_line_continuations(src: &str, start: usize, end: usize) -> bool {
    let gap = words::slice(src, start, end);
    !gap.is_empty() && gap.len().is_multiple_of(2) && gap.as_bytes().chunks(2).all(|p| p == b"\\\n")
}

/// `declare`/`export`/`local`/`readonly`/`typeset` and `unset` have their own
/// node kinds; they are reported as commands named by their keyword.
fn builtin_command(node: Node<'_>, src: &str, misread: &mut GapFindings) -> FoundCommand {
    let mut words_found = Vec::new();
    let mut writes = Vec::new();
    let mut redirects = Vec::new();
    let mut gaps = Gaps::default();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        gaps.check(src, child, misread);
        if child.kind().ends_with("_redirect") {
            writes.extend(written_file(child, src));
            redirects.push(child);
            continue;
        }
        if child.kind() == "comment" {
            continue;
        }
        let word = if child.kind() == "variable_assignment" {
            let (name, value) = assignment(child, src);
            Word {
                text: format!("{name}={}", value.text),
                ..value
            }
        } else if child.is_named() {
            words::from_node(child, src)
        } else {
            Word::literal(words::node_text(child, src))
        };
        words_found.push(word);
    }
    FoundCommand {
        words: words_found,
        assignments: Vec::new(),
        via: Vec::new(),
        input: None,
        writes,
        reads: other_reads(&redirects, src),
        places: Places::start(),
        exported: Vec::new(),
    }
}

/// The name of `text` if bash reads it as an assignment: a name of letters,
/// digits and `_` not starting with a digit, an optional `[subscript]`,
/// then `=` or `+=`, all unquoted.
fn assignment_name(text: &str) -> Option<&str> {
    let end = text.find('=')?;
    let head = text[..end].strip_suffix('+').unwrap_or(&text[..end]);
    let name = match head.find('[') {
        Some(open) if head.ends_with(']') => &head[..open],
        Some(_) => return None,
        None => head,
    };
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(name)
}

/// A word node that spells `NAME=value` (see [`assignment_name`]) taken
/// as the assignment bash makes of it.
fn word_assignment(node: Node<'_>, src: &str) -> (String, Word) {
    let word = words::from_node(node, src);
    let (name, value) = word.text.split_once('=').unwrap_or((&word.text, ""));
    let name = name.trim_end_matches('+').to_string();
    let value = Word {
        text: value.to_string(),
        ..word.clone()
    };
    (name, value)
}

/// An assignment node bash reads as a plain word (`--opt=value`).
fn assignment_word(node: Node<'_>, src: &str) -> Word {
    let (name, value) = assignment(node, src);
    let after_name = words::node_text(node, src).get(name.len()..).unwrap_or("");
    let operator = if after_name.starts_with("+=") {
        "+="
    } else {
        "="
    };
    Word {
        text: format!("{name}{operator}{}", value.text),
        ..value
    }
}

fn assignment(node: Node<'_>, src: &str) -> (String, Word) {
    let name = node
        .child_by_field_name("name")
        .map(|n| words::node_text(n, src).to_string())
        .unwrap_or_default();
    let value = node
        .child_by_field_name("value")
        .map(|v| words::from_node(v, src))
        .unwrap_or_else(|| Word::literal(""));
    (name, value)
}

/// The last input redirection wins, as in bash.
fn stdin_of(redirects: &[Node<'_>], src: &str) -> Option<Input> {
    let mut input = None;
    for redirect in redirects {
        match redirect.kind() {
            "heredoc_redirect" => input = heredoc(*redirect, src).or(input),
            "herestring_redirect" => {
                let mut cursor = redirect.walk();
                let value = redirect.named_children(&mut cursor).last();
                if let Some(value) = value {
                    input = Some(Input::HereString(words::from_node(value, src)));
                }
            }
            "file_redirect" => {
                let text = words::node_text(*redirect, src);
                let operator_is_read = text
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .starts_with('<')
                    && !text.contains("<&")
                    && !text.contains("<>");
                let reads_stdin = !text.starts_with(|c: char| c.is_ascii_digit() && c != '0');
                if operator_is_read && reads_stdin {
                    let target = redirect
                        .child_by_field_name("destination")
                        .map(|d| words::from_node(d, src).text)
                        .unwrap_or_default();
                    input = Some(Input::File(target));
                }
            }
            _ => {}
        }
    }
    input
}

fn heredoc(redirect: Node<'_>, src: &str) -> Option<Input> {
    let mut cursor = redirect.walk();
    let children: Vec<Node<'_>> = redirect.children(&mut cursor).collect();
    let start = children.iter().find(|c| c.kind() == "heredoc_start")?;
    let body = children.iter().find(|c| c.kind() == "heredoc_body");
    let delimiter = words::node_text(*start, src);
    let quoted = delimiter.contains(['\'', '"', '\\']);
    let Some(body) = body else {
        return Some(Input::Heredoc {
            body: String::new(),
            literal: true,
        });
    };
    let mut body_cursor = body.walk();
    let expands = body
        .named_children(&mut body_cursor)
        .any(|c| c.kind() != "heredoc_content");
    Some(Input::Heredoc {
        body: words::node_text(*body, src).to_string(),
        literal: quoted || !expands,
    })
}

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    #[test]
    fn words_split_only_by_line_continuations_are_one_word() {
        let a = analyze("r\\\nm -r\\\n\\\nf /");
        assert_eq!(a.commands[0].program, "rm");
        assert_eq!(a.commands[0].args, ["-rf", "/"]);
        // A continuation with blanks around it still separates words.
        let a = analyze("rm -r \\\n -f /");
        assert_eq!(a.commands[0].args, ["-r", "-f", "/"]);
    }

    #[test]
    fn an_assignment_to_underscore_is_no_program() {
        for line in [
            "_=1 rm -rf ~",
            "ls | _=1 rm -rf ~",
            "A=1 _+=2 rm -rf ~",
            "> f _=1 rm -rf ~",
        ] {
            let a = analyze(line);
            let rm = a.commands.iter().find(|c| c.program == "rm");
            assert!(rm.is_some_and(|c| c.args == ["-rf", "~"]), "{line}: {a:?}");
            assert!(
                rm.unwrap().assignments.iter().any(|(n, _)| n == "_"),
                "{line}"
            );
        }
        // Quoted, it is a word: bash runs a program named `_=1`.
        assert_eq!(analyze("'_=1' x").commands[0].program, "_=1");
        // After the program it is an argument.
        assert_eq!(analyze("echo _=1 rm").commands[0].args, ["_=1", "rm"]);
    }

    #[test]
    fn bare_assignments_run_what_command_variables_hold() {
        let a = analyze("EDITOR='rm -rf ~'; git commit");
        let programs: Vec<&str> = a.programs().collect();
        assert_eq!(programs, ["rm", "git"]);
        assert_eq!(a.commands[0].via, ["EDITOR="]);
        // Other variables run nothing.
        let a = analyze("NAME='rm -rf ~'; git commit");
        assert_eq!(a.programs().collect::<Vec<_>>(), ["git"]);
    }

    #[test]
    fn files_opened_on_other_descriptors_are_reads() {
        for (line, program) in [
            ("cat 3<.env <&3", "cat"),
            ("cat <&3 3< .env", "cat"),
            ("exec 3<.env", "exec"),
            ("cat <> .env", "cat"),
            ("read -r -u 3 x 3< .env", "read"),
            ("export X=1 3<.env", "export"),
            ("3<.env", ":"),
        ] {
            let a = analyze(line);
            let command = a.commands.iter().find(|c| c.program == program);
            let reads: Vec<&str> = command
                .map(|c| c.reads.iter().map(|t| t.text.as_str()).collect())
                .unwrap_or_default();
            assert_eq!(reads, [".env"], "{line}: {a:?}");
        }
        // Duplicates and standard input read no second file.
        let a = analyze("cat 2>&1 < in.txt 3>&1");
        let reads: Vec<&str> = a.commands[0]
            .reads
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(reads, ["in.txt"]);
    }

    #[test]
    fn files_a_compound_command_reads_are_reads() {
        let a = analyze("while read -u 3 l; do echo $l; done 3< .env < in.txt");
        let reads: Vec<&str> = a
            .commands
            .iter()
            .flat_map(|c| c.reads.iter().map(|t| t.text.as_str()))
            .collect();
        assert_eq!(reads, [".env", "in.txt"]);
        // `$(< f)` is the file's contents.
        let a = analyze("echo \"$(< .env)\"");
        assert!(a
            .commands
            .iter()
            .any(|c| c.reads.iter().any(|t| t.text == ".env")));
    }
}
