//! What the bash parser is shown: the line, re-spelled where the grammar
//! and bash disagree or where the grammar is needlessly slow.
//!
//! Every rewrite keeps the length and the byte offsets of the line, because
//! the analysis takes every word from the real text by byte range: the
//! parser only decides where the words and commands are.
//!
//! Rewrites that define what the line means (always applied):
//!
//! - **Non-ASCII bytes become `a`.** The grammar's C scanner passes
//!   characters to `isdigit`, whose table only covers bytes: `echo {`
//!   followed by a character beyond U+FFFF read outside it and crashed the
//!   process. Bash gives meaning only to ASCII (`é` or U+2003 are word
//!   characters), so a letter in their place parses as bash reads the line.
//! - **A lone `[` where a command starts becomes `a`.** To bash, `[` is an
//!   ordinary command (`test` by another name), so in `[ x | rm -rf / ]` the
//!   `|` is a pipe and `rm` runs. The grammar instead reads `[ ... ]` as a
//!   test expression in which `|`, `||`, `&&` and `>` are operators, and
//!   the `rm` vanished from the analysis. Shown as a plain word, `[` parses
//!   as the command bash runs (`[[` is a keyword to bash too, and is left).
//!
//! - **A lone `-` before a numbered redirection becomes `a`.** The grammar
//!   leaves out the word `-` in `git checkout - 2>&1` (it tries `-2` as a
//!   number), and the line was refused as a parse error. Shown as a letter,
//!   it is the word bash passes; its text still comes from the line. Not in
//!   lines with `((` or `[[`, where `-` can be an operator.
//! - **`coproc` before a compound command is blanked, with its name.**
//!   The grammar knows no `coproc`: it reads the keyword as a program, so
//!   `coproc x { rm -rf ~; }` came back as the program `x` with the
//!   arguments `{ rm -rf ~`. A coprocess runs its command in the
//!   background, which runs the same commands: shown as blanks (with the
//!   name bash gives the coprocess), the compound command parses as bash
//!   reads it. Before a simple command the keyword is left to the
//!   wrappers (`coproc x rm` runs a program `x`, as the grammar reads it).
//!
//! A rewrite that only saves time ([`flatten_pipes`]): long pipelines are
//! the grammar's slow spot (it keeps two stack versions alive from the
//! second `|` on, about 12 µs per further stage), while the same commands
//! separated by `;` parse in a fraction of that. The commands a line runs do
//! not depend on whether `|` or `;` joins them, so pipes that are certainly
//! pipes are shown as `;`, and the tree that comes back is accepted only if
//! it proves each of them was a separator between two statements
//! ([`Flattened::is_faithful`]); otherwise the line is parsed as it is.
//! Tests compare the two routes on the corpora and on generated lines.

use std::borrow::Cow;
use tree_sitter::{Node, Tree};

/// The line as the parser must read it to agree with bash.
pub fn parser_view(src: &str) -> Cow<'_, [u8]> {
    let bytes = src.as_bytes();
    let coprocs = if crate::bytes::contains(bytes, b"coproc") {
        coproc_keywords(bytes)
    } else {
        Vec::new()
    };
    let lone_dash = crate::bytes::contains(bytes, b" - ") || crate::bytes::contains(bytes, b" -<<");
    let dashes: Vec<usize> = if lone_dash
        && !crate::bytes::contains(bytes, b"((")
        && !crate::bytes::contains(bytes, b"[[")
    {
        crate::bytes::positions(b'-', bytes)
            .filter(|&i| is_lone_dash_before_redirection(bytes, i))
            .collect()
    } else {
        Vec::new()
    };
    let needs_change = !src.is_ascii()
        || !coprocs.is_empty()
        || !dashes.is_empty()
        || crate::bytes::positions(b'[', bytes).any(|i| is_command_bracket(bytes, i));
    if !needs_change {
        return Cow::Borrowed(bytes);
    }
    let mut view: Vec<u8> = bytes
        .iter()
        .map(|&b| if b.is_ascii() { b } else { b'a' })
        .collect();
    for i in 0..view.len() {
        if view[i] == b'[' && is_command_bracket(&view, i) {
            view[i] = b'a';
        }
    }
    for range in coprocs {
        view[range].fill(b' ');
    }
    for at in dashes {
        view[at] = b'a';
    }
    Cow::Owned(view)
}

/// A `-` standing alone as a word, followed by blanks and a redirection
/// with a descriptor (`- 2>&1`, `- 2> log`), or by a heredoc (`kubectl
/// apply -f - <<EOF`, `cat -<<EOF`): the grammar drops such a dash, so the
/// parser is shown another letter in its place (the word is read from the
/// line as written).
fn is_lone_dash_before_redirection(bytes: &[u8], i: usize) -> bool {
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    if !(i > 0 && blank(&bytes[i - 1])) {
        return false;
    }
    let rest = &bytes[i + 1..];
    let blanks = rest.iter().take_while(|b| blank(b)).count();
    let heredoc = rest[blanks..].starts_with(b"<<") && rest.get(blanks + 2) != Some(&b'<');
    if heredoc {
        return true;
    }
    if blanks == 0 {
        return false;
    }
    let digits = rest[blanks..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    digits > 0 && matches!(rest.get(blanks + digits), Some(b'>' | b'<'))
}

/// Words that start a compound command, to bash.
const COMPOUND_STARTS: &[&[u8]] = &[
    b"{", b"(", b"((", b"[[", b"if", b"while", b"until", b"for", b"case", b"select",
];

/// The `coproc` keywords (and the names after them) standing before a
/// compound command, each where a command starts: after an operator, an
/// opening keyword or the start of the line.
fn coproc_keywords(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let blank = |b: u8| matches!(b, b' ' | b'\t');
    let word_end = |from: usize| {
        let mut end = from;
        while end < bytes.len()
            && !blank(bytes[end])
            && !matches!(bytes[end], b'\n' | b';' | b'&' | b'|')
        {
            end += 1;
        }
        end
    };
    let skip_blanks = |mut at: usize| {
        while at < bytes.len() && blank(bytes[at]) {
            at += 1;
        }
        at
    };
    let starts_compound = |at: usize| {
        let word = &bytes[at..word_end(at)];
        COMPOUND_STARTS.contains(&word) || word.starts_with(b"(")
    };
    let mut found = Vec::new();
    let mut from = 0;
    // Only lines holding `coproc` get here: a plain scan is enough.
    while let Some(offset) = bytes[from..].windows(6).position(|w| w == b"coproc") {
        let start = from + offset;
        let end = start + b"coproc".len();
        from = end;
        if !at_command_start(bytes, start) || end >= bytes.len() || !blank(bytes[end]) {
            continue;
        }
        let next = skip_blanks(end);
        if next >= bytes.len() {
            continue;
        }
        if starts_compound(next) {
            found.push(start..end);
            continue;
        }
        // `coproc NAME compound`: the name is only a name before a compound command.
        let name_end = word_end(next);
        let name = &bytes[next..name_end];
        let after = skip_blanks(name_end);
        let is_name = !name.is_empty()
            && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
            && !name[0].is_ascii_digit();
        if is_name && after < bytes.len() && starts_compound(after) {
            found.push(start..name_end);
        }
    }
    found
}

/// True when a command may start at `at`: after the start of the line, an
/// operator, or a keyword that a command follows, with blanks between.
fn at_command_start(bytes: &[u8], at: usize) -> bool {
    let before = &bytes[..at];
    let trimmed = match before.iter().rposition(|b| !matches!(b, b' ' | b'\t')) {
        Some(last) => &before[..=last],
        None => return true,
    };
    if trimmed.ends_with(b"\n")
        || matches!(
            trimmed.last(),
            Some(b';' | b'&' | b'|' | b'(' | b'{' | b'!' | b'`')
        )
    {
        return true;
    }
    let word_start = trimmed
        .iter()
        .rposition(|b| matches!(b, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'('))
        .map_or(0, |i| i + 1);
    let word = &trimmed[word_start..];
    [
        &b"then"[..],
        b"do",
        b"else",
        b"elif",
        b"if",
        b"while",
        b"until",
        b"time",
        b"!",
    ]
    .contains(&word)
}

/// A `[` standing alone where a command may start: at the start, after
/// blanks or an operator, and followed by a blank or the end. Elsewhere a
/// lone `[` is an argument or quoted text, which reads the same as `a`.
fn is_command_bracket(bytes: &[u8], i: usize) -> bool {
    let before_ok = i == 0
        || matches!(
            bytes[i - 1],
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'!' | b'`'
        );
    let after_ok = matches!(bytes.get(i + 1), None | Some(b' ' | b'\t' | b'\n'));
    before_ok && after_ok
}

/// A view with its pipe operators shown as `;`.
#[derive(Debug)]
pub struct Flattened {
    pub bytes: Vec<u8>,
    /// Offsets of the `;` that stand for pipes.
    separators: Vec<usize>,
}

/// Fewest pipes worth flattening: one `|` costs the grammar nothing extra.
const MIN_PIPES: usize = 2;

/// The view with every certain pipe operator (`|`, `|&`) shown as `;`, or
/// `None` when there are too few or the line holds syntax in which `|` can
/// mean something else (case patterns, `[[ ]]`, arithmetic, subscripts,
/// extended globs, heredocs) and the lexer below does not follow it.
pub fn flatten_pipes(view: &[u8]) -> Option<Flattened> {
    // Cheap tests first: most lines have no pipe at all.
    if crate::bytes::positions(b'|', view).take(MIN_PIPES).count() < MIN_PIPES {
        return None;
    }
    let pipes = certain_pipes(view)?;
    if pipes.len() < MIN_PIPES || crate::bytes::contains(view, b"case") {
        return None;
    }
    let mut bytes = view.to_vec();
    for &at in &pipes {
        bytes[at] = b';';
        if bytes.get(at + 1) == Some(&b'&') {
            bytes[at + 1] = b' ';
        }
    }
    Some(Flattened {
        bytes,
        separators: pipes,
    })
}

impl Flattened {
    /// True when the tree parsed from [`Flattened::bytes`] has no error and
    /// every flattened pipe is a `;` token between two statements, which is
    /// where the grammar also reads a `|` as a pipe.
    pub fn is_faithful(&self, tree: &Tree) -> bool {
        separators_hold(tree, &self.separators)
    }

    /// Offsets of the `;` that stand for pipes.
    pub fn separators(&self) -> &[usize] {
        &self.separators
    }
}

/// See [`Flattened::is_faithful`].
pub fn separators_hold(tree: &Tree, separators: &[usize]) -> bool {
    let root = tree.root_node();
    if root.has_error() {
        return false;
    }
    separators.iter().all(|&at| {
        let Some(node) = root.descendant_for_byte_range(at, at + 1) else {
            return false;
        };
        node.kind() == ";"
            && !node.is_named()
            && node.start_byte() == at
            && node.end_byte() == at + 1
            // The grammar refuses `x=1 | b` (bash does not), but takes
            // `x=1 ; b`: such a line must keep its syntax error.
            && node
                .prev_sibling()
                .is_some_and(|n| is_statement(n) && !n.kind().starts_with("variable_assignment"))
            && node.next_sibling().is_some_and(is_statement)
    })
}

fn is_statement(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "redirected_statement"
            | "variable_assignment"
            | "variable_assignments"
            | "command"
            | "declaration_command"
            | "unset_command"
            | "test_command"
            | "negated_command"
            | "for_statement"
            | "c_style_for_statement"
            | "while_statement"
            | "if_statement"
            | "case_statement"
            | "pipeline"
            | "list"
            | "compound_statement"
            | "function_definition"
            | "subshell"
    )
}

/// Where the lexer is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Context {
    /// Shell code; `closer` says what ends it, `parens` counts open `(`.
    Code { closer: Closer, parens: u32 },
    /// Inside `"..."`.
    Double,
    /// Inside `${...}`; `depth` counts open `{`. Pipes here are text or
    /// operators of the expansion, never pipes.
    Brace { depth: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Closer {
    /// The end of the line.
    End,
    /// `)` of `$(`, `<(` or `>(`.
    Paren,
}

/// Offsets of the `|` bytes that are pipe operators in shell code, or
/// `None` when the line holds something this lexer does not follow.
///
/// It tracks quoting (`'...'`, `"..."`, `$'...'`, backslashes), comments,
/// parameter expansions (`${...}`, where a `|` is never a pipe), glob
/// brackets (`*.[ch]`) and nested code (`$(...)`, `<(...)`, subshells),
/// and gives up on every construct in which `|` may be an operator of
/// another language or in which its quoting rules differ: `((`, `$((`,
/// `$[`, `[[` and other brackets, heredocs (`<<`), extended globs (`@(`,
/// `!(`, ...) and backticks. Giving up, or a mistake here, only
/// costs time: [`Flattened::is_faithful`] refuses any tree in which a
/// flattened pipe is not a separator between two statements.
fn certain_pipes(b: &[u8]) -> Option<Vec<usize>> {
    let mut stack = vec![Context::Code {
        closer: Closer::End,
        parens: 0,
    }];
    let mut pipes = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match stack.last_mut()? {
            Context::Double => match c {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'`' => return None,
                b'$' => i = expansion(b, i, &mut stack)?,
                _ => {}
            },
            Context::Brace { depth } => match c {
                b'\\' => i += 1,
                b'\'' => i = closing_quote(b, i + 1, false)?,
                b'"' => stack.push(Context::Double),
                b'`' => return None,
                b'$' => i = expansion(b, i, &mut stack)?,
                b'{' => *depth += 1,
                b'}' if *depth == 0 => {
                    stack.pop();
                }
                b'}' => *depth -= 1,
                _ => {}
            },
            Context::Code { closer, parens } => match c {
                b'\\' => i += 1,
                b'\'' => i = closing_quote(b, i + 1, false)?,
                b'"' => stack.push(Context::Double),
                // Backtick substitutions: bash re-reads their text with its
                // own escaping rules, and the grammar's reading of them
                // shifts when a `|` inside becomes `;`. Not followed.
                b'`' => return None,
                b'$' if next == Some(b'\'') => i = closing_quote(b, i + 2, true)?,
                b'$' => i = expansion(b, i, &mut stack)?,
                b'<' | b'>' if next == Some(b'(') => {
                    stack.push(SUBSTITUTION);
                    i += 1;
                }
                b'<' if next == Some(b'<') => {
                    // `<<<` (a here-string) is an ordinary word; `<<` and
                    // `<<-` start a heredoc whose body is not shell code.
                    if b.get(i + 2) != Some(&b'<') || b.get(i + 3) == Some(&b'<') {
                        return None;
                    }
                    i += 2;
                }
                b'(' => {
                    let extglob = i > 0 && matches!(b[i - 1], b'@' | b'!' | b'+' | b'*' | b'?');
                    if next == Some(b'(') || extglob {
                        return None;
                    }
                    *parens += 1;
                }
                b')' if *parens > 0 => *parens -= 1,
                b')' if *closer == Closer::Paren => {
                    stack.pop();
                }
                b')' => return None,
                // A glob's bracket expression (`*.[ch]`) holds no pipe;
                // anything else with `[` (`[[`, a subscript holding `|`,
                // an unclosed `[`) is left to the parser.
                b'[' => i = glob_bracket_end(b, i)?,
                b'#' if starts_word(b, i) => {
                    // A comment runs to the end of the line.
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'|' => match next {
                    Some(b'|') => i += 1,
                    _ if i > 0 && b[i - 1] == b'>' => {}
                    _ => pipes.push(i),
                },
                _ => {}
            },
        }
        i += 1;
    }
    // Anything left open means the lexer lost track; let the parser judge.
    (stack.len() == 1).then_some(pipes)
}

/// Code inside `$(...)`, `<(...)` or `>(...)`.
const SUBSTITUTION: Context = Context::Code {
    closer: Closer::Paren,
    parens: 0,
};

/// The `$` at `i`: enters `$(...)` or `${...}`, gives up on arithmetic
/// (`$((`, `$[`), and is a plain character otherwise. Returns the offset
/// of the last byte it read.
fn expansion(b: &[u8], i: usize, stack: &mut Vec<Context>) -> Option<usize> {
    match b.get(i + 1) {
        Some(b'(') if b.get(i + 2) == Some(&b'(') => None,
        Some(b'[') => None,
        Some(b'(') => {
            stack.push(SUBSTITUTION);
            Some(i + 1)
        }
        Some(b'{') => {
            stack.push(Context::Brace { depth: 0 });
            Some(i + 1)
        }
        _ => Some(i),
    }
}

/// Offset of the `]` closing a glob bracket expression opened at `open`,
/// if it closes within the word: no blank, quote, `[` or shell operator
/// before it (`[]...]` and `[!]...]` take the first `]` literally).
fn glob_bracket_end(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(b.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    if b.get(i) == Some(&b']') {
        i += 1;
    }
    while i < b.len() {
        match b[i] {
            b']' => return Some(i),
            b'[' | b' ' | b'\t' | b'\n' | b'|' | b'&' | b';' | b'<' | b'>' | b'(' | b')'
            | b'\'' | b'"' | b'`' | b'$' | b'\\' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Offset of the `'` closing a quote whose text starts at `from`; in an
/// ANSI-C string (`$'...'`) a backslash escapes the next byte.
fn closing_quote(b: &[u8], from: usize, ansi_c: bool) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' if ansi_c => i += 1,
            b'\'' => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// A `#` starts a comment only at the start of a word.
fn starts_word(b: &[u8], i: usize) -> bool {
    i == 0
        || matches!(
            b[i - 1],
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(s: &str) -> String {
        String::from_utf8(parser_view(s).into_owned()).unwrap()
    }

    fn flat(s: &str) -> Option<String> {
        flatten_pipes(s.as_bytes()).map(|f| String::from_utf8(f.bytes).unwrap())
    }

    #[test]
    fn a_bracket_where_a_command_starts_is_shown_as_a_word() {
        assert_eq!(view("[ x | rm -rf / ]"), "a x | rm -rf / ]");
        assert_eq!(
            view("if [ -f a ]; then [ b ]; fi"),
            "if a -f a ]; then a b ]; fi"
        );
        assert_eq!(view("x&&[ y ]"), "x&&a y ]");
        // `[[`, globs and subscripts keep their brackets.
        assert_eq!(view("[[ -f a ]]"), "[[ -f a ]]");
        assert_eq!(view("ls [ab]* a[1]=2"), "ls [ab]* a[1]=2");
        assert!(matches!(parser_view("ls -la"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_lone_dash_before_a_numbered_redirection_is_shown_as_a_word() {
        assert_eq!(view("git checkout - 2>&1"), "git checkout a 2>&1");
        assert_eq!(view("cat - 2> log"), "cat a 2> log");
        // Elsewhere, and where `-` may be an operator, it stays.
        assert_eq!(view("diff - x 2>&1"), "diff - x 2>&1");
        assert_eq!(view("(( x - 2 > 1 ))"), "(( x - 2 > 1 ))");
        assert_eq!(view("git checkout -- 2>&1"), "git checkout -- 2>&1");
    }

    #[test]
    fn a_lone_dash_before_a_heredoc_is_shown_as_a_word() {
        assert_eq!(
            view("kubectl apply -f - <<EOF\nx\nEOF"),
            "kubectl apply -f a <<EOF\nx\nEOF"
        );
        assert_eq!(view("cat -<<'EOF'\nx\nEOF"), "cat a<<'EOF'\nx\nEOF");
        // A here-string keeps its dash (the grammar reads it), as does a
        // heredoc's `<<-`.
        assert_eq!(view("cat - <<< x"), "cat - <<< x");
        assert_eq!(view("cat <<-EOF\nx\nEOF"), "cat <<-EOF\nx\nEOF");
        // The word reaches the command.
        for line in [
            "kubectl apply -f - <<EOF\nkind: Pod\nEOF",
            "cat -<<EOF\nx\nEOF",
        ] {
            let analysis = crate::shell::analyze(line);
            assert_eq!(
                analysis.commands[0].args.last().map(String::as_str),
                Some("-"),
                "{line}"
            );
        }
    }

    #[test]
    fn coproc_before_a_compound_command_is_blanked_with_its_name() {
        assert_eq!(view("coproc { rm -rf ~; }"), "       { rm -rf ~; }");
        assert_eq!(view("coproc x { rm -rf ~; }"), "         { rm -rf ~; }");
        assert_eq!(view("ls; coproc w2 (rm x)"), "ls;           (rm x)");
        assert_eq!(view("then coproc while x"), "then        while x");
        // Before a simple command, or not where a command starts, it stays.
        assert_eq!(view("coproc x rm -rf ~"), "coproc x rm -rf ~");
        assert_eq!(view("echo coproc { a; }"), "echo coproc { a; }");
        assert_eq!(view("\"coproc\" { a; }"), "\"coproc\" { a; }");
    }

    #[test]
    fn certain_pipes_are_flattened() {
        assert_eq!(
            flat("cat f | grep -E 'a|b' | sort |& head").as_deref(),
            Some("cat f ; grep -E 'a|b' ; sort ;  head")
        );
        assert_eq!(
            flat("x=$(a | b) | c || d >| e").as_deref(),
            Some("x=$(a ; b) ; c || d >| e")
        );
        assert_eq!(
            flat("echo \"$(a | b)\" \"x|y\" | c # d | e").as_deref(),
            Some("echo \"$(a ; b)\" \"x|y\" ; c # d | e")
        );
        assert_eq!(flat("(a | b) | c").as_deref(), Some("(a ; b) ; c"));
        assert_eq!(flat("a <<< x | b | c").as_deref(), Some("a <<< x ; b ; c"));
        // Inside `${...}` and glob brackets a bar is never a pipe.
        assert_eq!(
            flat("echo ${x//a|b/c} \"${y:-'|'}\" | d | e").as_deref(),
            Some("echo ${x//a|b/c} \"${y:-'|'}\" ; d ; e")
        );
        assert_eq!(
            flat("ls *.[ch] [!a] | wc -l | cat").as_deref(),
            Some("ls *.[ch] [!a] ; wc -l ; cat")
        );
    }

    #[test]
    fn lines_with_other_meanings_of_the_bar_are_left_alone() {
        for line in [
            "a | b",
            "case $x in a|b) c | d ;; esac",
            "[[ $x =~ a|b ]] | c | d",
            "echo $((1|2)) | a | b",
            "((x|y)) | a | b",
            "a[x|y]=1 | b | c",
            "cat <<EOF | a | b\nx|y\nEOF",
            "ls @(a|b) | c | d",
            "echo 'unterminated | a | b",
            "echo $[1|2] | a | b",
            "a ) | b | c",
            "a `b | c` | d",
        ] {
            assert_eq!(flat(line), None, "{line}");
        }
    }

    #[test]
    fn an_unfaithful_flattening_is_refused_by_the_tree() {
        for (line, faithful) in [
            ("a | b | c", true),
            ("a && b | c | d", true),
            ("a | b |", false),
            ("if a | b | then c; fi", false),
            ("a | | b", false),
            ("{ a | b | }", false),
        ] {
            let flattened = flatten_pipes(line.as_bytes()).expect(line);
            let mut budget = super::super::syntax::Budget::default();
            let tree = super::super::syntax::parse_bytes(&flattened.bytes, &mut budget).unwrap();
            assert_eq!(flattened.is_faithful(&tree), faithful, "{line}");
        }
    }
}
