//! Turning shell words into the strings a program would receive.
//!
//! Bash removes quotes and backslashes before a word reaches the program, so
//! `'rm'`, `r\m`, `"r"m`, `r''m` and `$'\x72m'` all run `rm`. Expansions
//! (`$X`, `$(...)`, globs) cannot be resolved statically; they are kept as
//! written and the word is marked non-literal, so callers can tell a known
//! value from a guess.

use tree_sitter::Node;

/// One word after quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// Unquoted, unescaped text; expansions kept as written.
    pub text: String,
    /// No parameter, command, arithmetic or process expansion anywhere.
    pub literal: bool,
    /// Unquoted glob (`*`, `?`, `[..]`) or brace expansion: the shell may
    /// turn this word into other or several words.
    pub pattern: bool,
}

impl Word {
    pub fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            literal: true,
            pattern: false,
        }
    }

    /// Known exactly: literal and not subject to glob or brace expansion.
    pub fn is_static(&self) -> bool {
        self.literal && !self.pattern
    }

    /// Glue `next` onto this word, as bash does for `a\<newline>b`.
    pub fn append(&mut self, next: Word) {
        self.text.push_str(&next.text);
        self.literal &= next.literal;
        self.pattern |= next.pattern;
    }

    /// Same text, if it is known exactly.
    pub fn static_text(&self) -> Option<&str> {
        self.is_static().then_some(self.text.as_str())
    }
}

/// Word nesting followed inside one word (`"..."` within a concatenation);
/// deeper structures only come from expansions, which are not descended.
const MAX_WORD_NESTING: usize = 4;

/// Quote-removed value of a word-like syntax node.
pub fn from_node(node: Node<'_>, src: &str) -> Word {
    let mut builder = Builder::default();
    builder.word.literal = true;
    builder.append_node(node, src, 0);
    builder.word
}

/// Accumulates one word; remembers unquoted `[` and `{` across the pieces
/// of a concatenation, because tree-sitter splits `{a,b}` into several nodes.
#[derive(Default)]
pub struct Builder {
    pub word: Word,
    open_bracket: bool,
    open_brace: bool,
    brace_has_separator: bool,
}

impl Builder {
    fn append_node(&mut self, node: Node<'_>, src: &str, nesting: usize) {
        let text = node_text(node, src);
        if nesting > MAX_WORD_NESTING {
            self.word.text.push_str(text);
            self.word.literal = false;
            return;
        }
        match node.kind() {
            "word" => self.append_unquoted(text),
            "number" | "variable_name" | "file_descriptor" | "test_operator" => {
                self.word.text.push_str(text)
            }
            "extglob_pattern" | "regex" | "brace_expression" => {
                self.word.text.push_str(text);
                self.word.pattern = true;
            }
            "raw_string" => self.word.text.push_str(strip_quotes(text, "'", "'")),
            "ansi_c_string" => self
                .word
                .text
                .push_str(&super::ansi_c::decode(strip_quotes(text, "$'", "'"))),
            "string" | "translated_string" => self.append_double_quoted(node, src, nesting),
            "concatenation" | "command_name" => self.append_children(node, src, nesting),
            // Expansions and anything unexpected: keep the text, admit it is not known.
            _ => {
                self.word.text.push_str(text);
                self.word.literal = false;
            }
        }
    }

    /// Children in order; text between them (not normally present) is
    /// treated as unquoted.
    fn append_children(&mut self, node: Node<'_>, src: &str, nesting: usize) {
        let mut pos = node.start_byte();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.start_byte() > pos {
                self.append_unquoted(slice(src, pos, child.start_byte()));
            }
            // A `$` that ends a word (`-$`) expands nothing: bash keeps it.
            if !child.is_named() && child.kind() == "$" && child.end_byte() == node.end_byte() {
                self.word.text.push('$');
                pos = pos.max(child.end_byte());
                continue;
            }
            self.append_node(child, src, nesting + 1);
            pos = pos.max(child.end_byte());
        }
        if node.child_count() == 0 {
            self.append_unquoted(node_text(node, src));
        } else if node.end_byte() > pos {
            self.append_unquoted(slice(src, pos, node.end_byte()));
        }
    }

    /// `"..."` and `$"..."`: plain text with backslash escapes, plus expansions.
    fn append_double_quoted(&mut self, node: Node<'_>, src: &str, nesting: usize) {
        let text = node_text(node, src);
        let open = if text.starts_with("$\"") { 2 } else { 1 };
        let start = node.start_byte() + open.min(text.len());
        let close = usize::from(text.len() > open && text.ends_with('"'));
        let end = node.end_byte() - close;
        let mut pos = start;
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.start_byte() < pos || child.end_byte() > end {
                continue;
            }
            append_double_quoted_text(slice(src, pos, child.start_byte()), &mut self.word);
            if child.kind() == "string_content" {
                append_double_quoted_text(node_text(child, src), &mut self.word);
            } else {
                self.append_node(child, src, nesting + 1);
            }
            pos = child.end_byte();
        }
        if end > pos {
            append_double_quoted_text(slice(src, pos, end), &mut self.word);
        }
    }

    /// Unquoted text: a backslash quotes the next character, backslash-newline
    /// disappears; unquoted glob and brace-expansion characters are noted.
    pub fn append_unquoted(&mut self, text: &str) {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('\n') | None => {}
                    Some(escaped) => self.word.text.push(escaped),
                },
                '*' | '?' => self.word.pattern = true,
                '[' => self.open_bracket = true,
                ']' if self.open_bracket => self.word.pattern = true,
                '{' => {
                    self.open_brace = true;
                    self.brace_has_separator = false;
                }
                ',' if self.open_brace => self.brace_has_separator = true,
                '.' if self.open_brace && chars.peek() == Some(&'.') => {
                    self.brace_has_separator = true
                }
                '}' if self.open_brace && self.brace_has_separator => self.word.pattern = true,
                _ => {}
            }
            if c != '\\' {
                self.word.text.push(c);
            }
        }
    }
}

/// Inside double quotes a backslash only escapes `$`, backtick, `"`, `\` and newline.
fn append_double_quoted_text(text: &str, word: &mut Word) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            word.text.push(c);
            continue;
        }
        match chars.peek() {
            Some('\n') => {
                chars.next();
            }
            Some(&e @ ('$' | '`' | '"' | '\\')) => {
                word.text.push(e);
                chars.next();
            }
            _ => word.text.push('\\'),
        }
    }
}

fn strip_quotes<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let inner = text.strip_prefix(open).unwrap_or(text);
    inner.strip_suffix(close).unwrap_or(inner)
}

pub fn node_text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    slice(src, node.start_byte(), node.end_byte())
}

/// Byte slice that never panics: tree-sitter ranges fall on char boundaries
/// for valid UTF-8, but a bad range must not take the process down.
pub fn slice(src: &str, start: usize, end: usize) -> &str {
    src.get(start..end.min(src.len())).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::{Builder, Word};

    fn unquoted(text: &str) -> Word {
        let mut b = Builder::default();
        b.append_unquoted(text);
        b.word
    }

    #[test]
    fn backslashes_quote_the_next_character() {
        assert_eq!(unquoted(r"r\m").text, "rm");
        assert_eq!(unquoted("a\\\nb").text, "ab");
        assert_eq!(unquoted(r"a\ b").text, "a b");
    }

    #[test]
    fn globs_and_braces_are_patterns_but_find_placeholder_is_not() {
        assert!(unquoted("/bin/r?").pattern);
        assert!(unquoted("*.rs").pattern);
        assert!(unquoted("[ab]m").pattern);
        assert!(unquoted("{a,b}").pattern);
        assert!(!unquoted("{}").pattern);
        assert!(!unquoted("[").pattern);
        assert!(!unquoted("{x}").pattern);
        assert!(unquoted("{1..3}").pattern);
        assert!(!unquoted(r"\*").pattern);
    }
}
