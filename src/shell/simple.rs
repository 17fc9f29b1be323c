//! The commands of a plain line, read without the bash parser.
//!
//! Most lines an agent runs are plain: `cargo test --all 2>&1 | tail -20`,
//! `git status && git diff`, `grep -rn 'TODO' src | head -20`. Parsing one
//! with tree-sitter costs several times what everything else in a warm
//! decision costs, yet for such a line the commands, words and redirections
//! are evident from its characters. This module reads exactly that kind of
//! line and gives up (`None`) on anything else, which then goes to the
//! parser (`syntax.rs` and `walk.rs`). What it returns must be exactly what
//! the walk over the parsed tree returns: tests compare the two on every
//! corpus line and on generated lines in and just outside the subset below.
//!
//! The subset, by characters and tokens (ASCII only, at most
//! [`MAX_SIMPLE_BYTES`] bytes):
//!
//! - blanks are spaces; any other control character (tab, newline, NUL)
//!   gives up;
//! - a word is one or more pieces, none separated by blanks: unquoted runs
//!   of letters, digits and `_ - . / , : @ % + = ~`; `'...'` holding any
//!   printable character but `'`; `"..."` holding any printable character
//!   but `"`, `$`, `` ` ``, `\` and `!`. Nothing else is a word character:
//!   `$`, backticks, `\`, globs, braces, brackets, parentheses, `#`, `!`,
//!   `^` and `*` give up, and so does a word starting with `==` or `=~`
//!   (the grammar's test operators);
//! - operators between commands: `|`, `||`, `&&` and `;`, each between two
//!   commands (`|&`, a lone `&`, `;;` and a leading or trailing operator
//!   give up);
//! - redirections, after a blank or an operator: an optional descriptor
//!   `1` to `9` (not after the word `-`), then `>` or `>>`, or no
//!   descriptor and `<`, and one word (blanks may come between); `&>` and `&>>` and one word; `>&N` or `N>&M` with one-digit
//!   descriptors. `<&`, `<>`, `>|`, `<<`, `<<<` and a redirection written
//!   straight after a word (`x>f`) give up;
//! - a command starts with a word; first words of the form `NAME=value`
//!   (a valid name other than `_`, unquoted, a value that is not empty) are its
//!   assignments, and the word after them, its program, holds no `=` and
//!   is no reserved word or declaration keyword (`if`, `done`, `export`,
//!   ...) however quoted, is not `-`, holds no `%` or `@`, and after assignments no `:`;
//! - a line that may change directory (`cd src && cargo test`, see
//!   `cwd::may_change_directory`) is followed command by command through
//!   the same step the walk over the tree takes (`cwd::command_flow`):
//!   `;` runs what follows wherever the shell ended up, `&&` where the
//!   command before succeeded, `||` where it failed, and the stages of a
//!   pipeline run in child processes that move nothing after them. A line
//!   that may set `lastpipe`, which lets a last stage move the shell,
//!   gives up.
//!
//! The parser's work budget shared with nested code is not spent here;
//! below [`MAX_SIMPLE_BYTES`] a plain line uses a vanishing part of it, so
//! no nested parse can find it exhausted where the parsed line would have.

use super::cwd::{self, Flow, Places};
use super::walk::{FoundCommand, Input, Walked};
use super::words::Word;
use std::ops::Range;

/// Longest line read here; longer ones go to the parser.
pub const MAX_SIMPLE_BYTES: usize = 4096;

/// Words that are syntax to the grammar where a command starts, or that
/// it reads as a command of its own kind (`declaration_command`).
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly",
    "local", "unset", "unsetenv", "[[", "]]", "{", "}", "!",
];

/// The commands of `line` as [`super::walk::commands`] finds them in its
/// tree, when `line` is in the subset (see the module docs) and holds at
/// most `limit` commands; `None` otherwise.
pub fn commands(line: &str, limit: usize) -> Option<Walked> {
    if line.len() > MAX_SIMPLE_BYTES {
        return None;
    }
    let mut reader = Reader {
        bytes: line.as_bytes(),
        at: 0,
        after_dash: false,
    };
    let mut found: Vec<FoundCommand> = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    // The operator after each command but the last.
    let mut joins: Vec<Join> = Vec::new();
    loop {
        let (command, node) = reader.command()?;
        found.push(command);
        nodes.push(node);
        if found.len() > limit {
            return None;
        }
        reader.skip_blanks();
        if reader.at == reader.bytes.len() {
            break;
        }
        joins.push(reader.operator()?);
    }
    if cwd::may_change_directory(line) {
        if cwd::may_set_lastpipe(line) {
            return None;
        }
        place(line, &mut found, &nodes, &joins)?;
    }
    Some(Walked {
        commands: found,
        ..Walked::default()
    })
}

/// An operator between two commands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Join {
    Pipe,
    And,
    Or,
    Then,
}

/// What the tree's command node of a simple command holds, which is what
/// the directory step reads: the words up to the first redirection (the
/// grammar ends the node there; a redirection takes the words after it,
/// which the walk gives back to the command), and the node's source.
struct Node {
    words: usize,
    text: Range<usize>,
    /// The command has a redirection.
    redirected: bool,
}

/// Sets where each command runs, as `cwd::places` works it out over the
/// tree of a line of pipelines joined by `&&`, `||` (left to right, both
/// binding tighter than `;`) and `;`.
///
/// Gives up where the grammar groups the line otherwise than bash does,
/// which the walk over the tree follows:
/// - a redirected stage before a `|` in a pipeline that follows `&&` or
///   `||`: for `cd / && a 2>&1 | b` it pipes the whole list `cd / && a`
///   into `b` (its redirected statement ends at the redirection);
/// - a pipeline of three or more stages that starts a list and is followed
///   by `&&` or `||`: `a | b | c && cd /` is read as `a | (b | c && cd /)`.
fn place(line: &str, commands: &mut [FoundCommand], nodes: &[Node], joins: &[Join]) -> Option<()> {
    let cdpath = cwd::mentions_cdpath(line);
    // Where the and-or list read so far may have left the shell.
    let mut list = Flow::same(&Places::start());
    // How the pipeline starting at `first` attaches to that list.
    let mut join = Join::Then;
    let mut first = 0;
    while first < commands.len() {
        let last = (first..commands.len())
            .find(|&i| joins.get(i) != Some(&Join::Pipe))
            .unwrap_or(commands.len() - 1);
        let after = joins.get(last).copied().unwrap_or(Join::Then);
        let redirected_stage = nodes[first..last].iter().any(|n| n.redirected);
        let regrouped = match join {
            Join::And | Join::Or => redirected_stage,
            Join::Then | Join::Pipe => last - first >= 2 && matches!(after, Join::And | Join::Or),
        };
        if regrouped {
            return None;
        }
        let from = match join {
            Join::And => list.ok.clone(),
            Join::Or => list.fail.clone(),
            Join::Then | Join::Pipe => list.any(),
        };
        for command in &mut commands[first..=last] {
            command.places = from.clone();
        }
        let flow = if first == last {
            let node = &nodes[first];
            let words = &commands[first].words[..node.words];
            cwd::command_flow(words, &line[node.text.clone()], &from, cdpath)
        } else {
            // Each stage runs in a child process.
            Flow::same(&from)
        };
        list = match join {
            Join::And => list.and(flow),
            Join::Or => list.or(flow),
            Join::Then | Join::Pipe => flow,
        };
        join = after;
        first = last + 1;
    }
    Some(())
}

/// What a token starting with `>`, `<` or `&>` does.
enum Redirect {
    /// Writes the file named by the next word.
    Write,
    /// Reads the file named by the next word as standard input.
    Read,
    /// Duplicates a descriptor (`2>&1`): no word follows.
    Duplicate,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The last token read was the word `-`, unquoted.
    after_dash: bool,
}

impl Reader<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.at + ahead).copied()
    }

    fn skip_blanks(&mut self) {
        while self.peek(0) == Some(b' ') {
            self.at += 1;
        }
    }

    /// `|`, `||`, `&&` or `;` followed by more of the line.
    fn operator(&mut self) -> Option<Join> {
        let (join, width) = match (self.peek(0)?, self.peek(1)) {
            (b'|', Some(b'|')) => (Join::Or, 2),
            (b'&', Some(b'&')) => (Join::And, 2),
            (b'|', Some(b'&')) | (b';', Some(b';')) => return None,
            (b'|', _) => (Join::Pipe, 1),
            (b';', _) => (Join::Then, 1),
            _ => return None,
        };
        self.at += width;
        Some(join)
    }

    /// One simple command, up to the next operator or the end, and what
    /// the tree's node of it holds.
    fn command(&mut self) -> Option<(FoundCommand, Node)> {
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
        // False until the program word has been read.
        let mut named = false;
        self.skip_blanks();
        let mut node = Node {
            words: 0,
            text: self.at..self.at,
            redirected: false,
        };
        // Until the first redirection, which ends the tree's node.
        let mut in_node = true;
        loop {
            self.skip_blanks();
            let Some(next) = self.peek(0) else { break };
            let after_dash = std::mem::take(&mut self.after_dash);
            let word_start = self.at;
            if let Some(redirect) = self.redirect(after_dash)? {
                // A command must start with a word (`> f cmd` is read
                // otherwise by the grammar).
                if !named {
                    return None;
                }
                in_node = false;
                node.redirected = true;
                match redirect {
                    Redirect::Duplicate => {}
                    Redirect::Write => {
                        self.skip_blanks();
                        command.writes.push(self.word()?.0);
                    }
                    Redirect::Read => {
                        self.skip_blanks();
                        let (word, _) = self.word()?;
                        command.input = Some(Input::File(word.text));
                    }
                }
                continue;
            }
            if matches!(next, b'|' | b';' | b'&') {
                break;
            }
            let (word, assignment) = self.word()?;
            self.after_dash = &self.bytes[word_start..self.at] == b"-";
            if named {
                command.words.push(word);
            } else if let Some(name) = assignment {
                let value = word.text[name.len() + 1..].to_string();
                command.assignments.push((name, Word::literal(value)));
            } else if !is_plain_program(&word.text, !command.assignments.is_empty()) {
                return None;
            } else {
                command.words.push(word);
                named = true;
            }
            if in_node {
                node.words = command.words.len();
                node.text.end = self.at;
            }
        }
        named.then_some((command, node))
    }

    /// A redirection operator at the reader, if one starts here; `Err`
    /// (as `None`) for one outside the subset.
    ///
    /// The grammar does not take `0` for a descriptor (`a 0<f` runs `a 0`),
    /// and leaves out a `-` written before a descriptor (`git checkout -
    /// 2>&1` runs `git checkout`, reported as a parse error): both give up.
    fn redirect(&mut self, after_dash: bool) -> Option<Option<Redirect>> {
        let start = self.at;
        let (descriptor, op_at) = match (self.peek(0), self.peek(1)) {
            (Some(b'0'), Some(b'>' | b'<')) => return None,
            (Some(b'1'..=b'9'), Some(b'>' | b'<')) if after_dash => return None,
            (Some(d @ b'1'..=b'9'), Some(b'>' | b'<')) => (Some(d), 1),
            (Some(b'0'..=b'9'), Some(b'0'..=b'9')) => {
                // Digits running into `>`/`<` (`12>f`): a descriptor the
                // subset does not take; plain digits are a word.
                let digits = self.bytes[start..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                return match self.bytes.get(start + digits) {
                    Some(b'>' | b'<') => None,
                    _ => Some(None),
                };
            }
            (Some(b'&'), Some(b'>')) => {
                self.at += 2;
                if self.peek(0) == Some(b'>') {
                    self.at += 1;
                }
                return match self.peek(0) {
                    Some(b'&' | b'|' | b'>' | b'<') => None,
                    _ => Some(Some(Redirect::Write)),
                };
            }
            (Some(b'>' | b'<'), _) => (None, 0),
            _ => return Some(None),
        };
        self.at = start + op_at;
        let op = self.peek(0)?;
        self.at += 1;
        let redirect = match (op, self.peek(0)) {
            (b'>', Some(b'>')) => {
                self.at += 1;
                Redirect::Write
            }
            (b'>', Some(b'&')) => {
                let target = self.peek(1);
                let after = self.peek(2);
                let ends = matches!(after, None | Some(b' ' | b'|' | b';' | b'&'));
                if !(target.is_some_and(|t| t.is_ascii_digit()) && ends) {
                    return None;
                }
                self.at += 2;
                Redirect::Duplicate
            }
            (b'>', _) => Redirect::Write,
            (b'<', _) if descriptor.is_none() => Redirect::Read,
            // `3< f` opens a descriptor the command may read (`cat <&3`):
            // the walk records it, this reader does not.
            (b'<', _) => return None,
            _ => return None,
        };
        // `>>&`, `>|`, `<<`, `<&`, `<>` and the like.
        let duplicate = matches!(redirect, Redirect::Duplicate);
        if !duplicate && matches!(self.peek(0), Some(b'>' | b'<' | b'&' | b'|')) {
            return None;
        }
        Some(Some(redirect))
    }

    /// One word, quotes removed, and the name it assigns when it is
    /// spelled `NAME=value` with an unquoted valid name and a value.
    fn word(&mut self) -> Option<(Word, Option<String>)> {
        let start = self.at;
        // The grammar takes an argument starting with `==` or `=~` for a
        // test operator and its operand (`x ==` alone is a parse error).
        if self.bytes[start..].starts_with(b"==") || self.bytes[start..].starts_with(b"=~") {
            return None;
        }
        let mut text = String::new();
        // Where the first unquoted `=` stood, when only name characters
        // (unquoted) came before it.
        let mut assigns_at: Option<usize> = None;
        let mut name_so_far = true;
        while let Some(b) = self.peek(0) {
            match b {
                b'\'' | b'"' => {
                    name_so_far = false;
                    self.at += 1;
                    let closing = self.bytes[self.at..].iter().position(|&c| c == b)?;
                    let body = &self.bytes[self.at..self.at + closing];
                    let allowed = |c: &u8| match b {
                        b'\'' => (0x20..0x7f).contains(c),
                        _ => (0x20..0x7f).contains(c) && !matches!(c, b'$' | b'`' | b'\\' | b'!'),
                    };
                    if !body.iter().all(allowed) {
                        return None;
                    }
                    text.push_str(std::str::from_utf8(body).ok()?);
                    self.at += closing + 1;
                }
                b'=' => {
                    // The grammar reads `_=1 b` as the program `_=1`.
                    if name_so_far && assigns_at.is_none() && is_name(&text) && text != "_" {
                        assigns_at = Some(text.len());
                    }
                    name_so_far = false;
                    text.push('=');
                    self.at += 1;
                }
                _ if is_plain(b) => {
                    if !(b.is_ascii_alphanumeric() || b == b'_') {
                        name_so_far = false;
                    }
                    text.push(char::from(b));
                    self.at += 1;
                }
                b' ' | b'|' | b';' => break,
                // `&&` ends a word; `x&>f` and `x&` are left to the parser.
                b'&' if self.peek(1) == Some(b'&') => break,
                _ => return None,
            }
        }
        if self.at == start {
            return None;
        }
        let name = assigns_at
            .filter(|&at| at + 1 < text.len())
            .map(|at| text[..at].to_string());
        Some((Word::literal(text), name))
    }
}

/// Whether the grammar reads `program` (quotes removed) as the subset
/// does: a word naming the program. It reads a reserved word or keyword as
/// syntax, `x%y` and `x@y` as an expansion gone wrong (a syntax error),
/// after an assignment `x:y` too, and `- A=1` as no command at all.
fn is_plain_program(program: &str, after_assignment: bool) -> bool {
    !(program.contains(['=', '%', '@'])
        || RESERVED.contains(&program)
        || program == "-"
        || (after_assignment && program.contains(':')))
}

/// Unquoted word characters of the subset.
fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'-' | b'.' | b'/' | b',' | b':' | b'@' | b'%' | b'+' | b'=' | b'~'
        )
}

/// A shell variable name: letters, digits and `_`, not starting with a digit.
fn is_name(text: &str) -> bool {
    let mut chars = text.bytes();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::commands;

    fn words(line: &str) -> Option<Vec<Vec<String>>> {
        let walked = commands(line, usize::MAX)?;
        Some(
            walked
                .commands
                .iter()
                .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
                .collect(),
        )
    }

    #[test]
    fn typical_agent_lines_are_read() {
        assert_eq!(
            words("cargo test --all 2>&1 | tail -20").unwrap(),
            [vec!["cargo", "test", "--all"], vec!["tail", "-20"]]
        );
        assert_eq!(
            words("grep -rn 'TODO' src | head -20").unwrap(),
            [vec!["grep", "-rn", "TODO", "src"], vec!["head", "-20"]]
        );
        let walked = commands("RUST_LOG=debug cargo run > out.log", 10).unwrap();
        let command = &walked.commands[0];
        assert_eq!(command.assignments[0].0, "RUST_LOG");
        assert_eq!(command.assignments[0].1.text, "debug");
        assert_eq!(command.writes[0].text, "out.log");
    }

    #[test]
    fn anything_outside_the_subset_is_left_to_the_parser() {
        for line in [
            "echo $HOME",
            "ls *.rs",
            "echo a\nrm -rf /",
            "echo `id`",
            "a & b",
            "a |& b",
            "a |",
            "| a",
            "x=1",
            "export A=1",
            "if true",
            "echo hi>f",
            "cat <<EOF",
            "cat <&3",
            "cat 3< .env",
            "echo >|f",
            "echo 12>f",
            "echo \"$x\"",
            "echo 'unterminated",
            "echo caf\u{e9}",
            "r\\m -rf /",
            "echo {a,b}",
            "echo # comment",
            "a;;b",
            "cargo ==",
            "cargo =~ x",
            "cargo =~'x'",
            "",
            "   ",
        ] {
            assert!(commands(line, 10).is_none(), "{line:?}");
        }
    }

    #[test]
    fn more_commands_than_the_limit_are_left_to_the_parser() {
        assert!(commands("a | b | c", 2).is_none());
        assert!(commands("a | b | c", 3).is_some());
    }
}
