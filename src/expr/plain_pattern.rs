//! The shortest match of a plain pattern, read without regex-syntax.
//!
//! Compiling a policy asks for the shortest match length of every pattern
//! literal of its conditions (the candidate index and the prepared cache,
//! see `regex_match::shortest_match`). Parsing and translating each with
//! regex-syntax was the largest single cost of the first call after an
//! edit. Most patterns of the packs are plain: literals, escapes,
//! alternations, ASCII classes, anchors (`^/(etc|usr|bin)`, `\bget\s+`).
//! Their shortest match is evident from the characters, so this module
//! reads exactly such a pattern and gives up (`None`) on anything else,
//! which then goes to regex-syntax. What it returns must be what the
//! parse returns: a property test compares the two on patterns in and just
//! outside the subset below.
//!
//! The subset (ASCII only, at most [`MAX_PLAIN_BYTES`] bytes, groups
//! nested at most [`MAX_NESTING`] deep):
//! - optional leading flags `(?i)`, `(?m)`, `(?im)` or `(?mi)`; no others;
//! - literal characters: printable ASCII but `\ . + * ? ( ) | [ ] { } ^ $`;
//!   `.` (any character but a newline);
//! - escapes: `\` before ASCII punctuation other than `<` and `>`, `\n`,
//!   `\t`, `\xHH` up to `\x7F`, `\s`, `\d`, `\b`;
//! - `^`, `$`; groups `(...)` and `(?:...)` with `|` alternation;
//! - one of `?`, `*`, `+` after a character, class, escape or group (not
//!   after an anchor, an operator or another quantifier);
//! - classes `[...]` and `[^...]` of literal characters, ranges between
//!   ASCII letters or digits of one kind in order, `-` first or last, and
//!   the escapes above but `\b`, with no `[`, `]`, `&&`, `--` or `~~`
//!   inside; a negated class must leave out some ASCII character.
//!
//! A match of any of these is at least one byte per character, class or
//! escape (every class holds an ASCII character), nothing for an anchor;
//! `regex_match::shortest_match` also needs the automaton surely small,
//! which [`Shortest::size`] bounds from above the way its `size_bound`
//! reads the parsed pattern.

/// Longest pattern read here.
pub const MAX_PLAIN_BYTES: usize = 2048;
/// Deepest group nesting read here (regex-syntax refuses past 250).
const MAX_NESTING: usize = 32;
/// Ranges a `\d` class holds (Unicode decimal digits: 71), rounded up.
const DIGIT_RANGES: u64 = 128;
/// Ranges a `\s` class holds (Unicode white space: 10), rounded up.
const SPACE_RANGES: u64 = 32;
/// An upper bound of what one character costs in `size_bound`: as part of
/// a literal 64 bytes, but an alternation of characters becomes a class of
/// one range each (1 KiB), and case folding turns a letter into a class of
/// up to three (`k`, `K` and the Kelvin sign), counted as four.
const CHAR_SIZE: u64 = 1024 + 64;
const FOLDED_LETTER_SIZE: u64 = 4 * 1024 + 64;

/// What a pattern of the subset is known to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shortest {
    /// The length in bytes of its shortest match.
    pub min: u64,
    /// An upper bound of `regex_match::size_bound` of its parsed form.
    pub size: u64,
}

/// The shortest match of `pattern` and a bound of its automaton's size,
/// when `pattern` is in the subset (see the module docs).
pub fn shortest(pattern: &str) -> Option<Shortest> {
    if pattern.len() > MAX_PLAIN_BYTES || !pattern.is_ascii() {
        return None;
    }
    // Multi-line mode changes what `^` and `$` match, not their width.
    let (fold, body) = ["(?i)", "(?im)", "(?mi)", "(?m)"]
        .iter()
        .find_map(|flags| Some((flags.contains('i'), pattern.strip_prefix(flags)?)))
        .unwrap_or((false, pattern));
    let mut reader = Reader {
        bytes: body.as_bytes(),
        at: 0,
        fold,
        depth: 0,
    };
    let found = reader.alternation()?;
    (reader.at == reader.bytes.len()).then_some(found)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Case-insensitive (`(?i)`).
    fold: bool,
    depth: usize,
}

/// One piece of a concatenation before its quantifier.
struct Piece {
    found: Shortest,
    /// A quantifier may follow (not after an anchor).
    repeatable: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Alternatives up to `)` or the end.
    fn alternation(&mut self) -> Option<Shortest> {
        let mut best = self.concat()?;
        let mut size = 64 + best.size;
        while self.peek() == Some(b'|') {
            self.at += 1;
            let next = self.concat()?;
            best.min = best.min.min(next.min);
            size = size.saturating_add(next.size);
        }
        Some(Shortest {
            min: best.min,
            size,
        })
    }

    /// Pieces up to `|`, `)` or the end.
    fn concat(&mut self) -> Option<Shortest> {
        let mut total = Shortest { min: 0, size: 64 };
        while let Some(b) = self.peek() {
            if matches!(b, b'|' | b')') {
                break;
            }
            let piece = self.piece()?;
            let found = match self.peek() {
                Some(q @ (b'?' | b'*' | b'+')) => {
                    if !piece.repeatable {
                        return None;
                    }
                    self.at += 1;
                    // `a+?`, `a**` and the like: left to regex-syntax.
                    if matches!(self.peek(), Some(b'?' | b'*' | b'+' | b'{')) {
                        return None;
                    }
                    // Copies `size_bound` counts: max (or min) plus one.
                    let (min, copies) = match q {
                        b'?' => (0, 2),
                        b'*' => (0, 1),
                        _ => (piece.found.min, 2),
                    };
                    Shortest {
                        min,
                        size: piece.found.size.saturating_mul(copies),
                    }
                }
                _ => piece.found,
            };
            total.min = total.min.saturating_add(found.min);
            total.size = total.size.saturating_add(found.size);
        }
        Some(total)
    }

    fn piece(&mut self) -> Option<Piece> {
        let b = self.peek()?;
        self.at += 1;
        let one = |size| Piece {
            found: Shortest { min: 1, size },
            repeatable: true,
        };
        let anchor = Piece {
            found: Shortest { min: 0, size: 64 },
            repeatable: false,
        };
        match b {
            b'^' | b'$' => Some(anchor),
            b'.' => Some(one(2 * 1024 + 64)),
            b'(' => {
                if self.bytes[self.at..].starts_with(b"?:") {
                    self.at += 2;
                } else if self.peek() == Some(b'?') {
                    return None;
                }
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return None;
                }
                let inner = self.alternation()?;
                self.depth -= 1;
                if self.peek() != Some(b')') {
                    return None;
                }
                self.at += 1;
                Some(Piece {
                    found: Shortest {
                        min: inner.min,
                        size: inner.size.saturating_add(64),
                    },
                    repeatable: true,
                })
            }
            b'[' => self.class().map(one),
            b'\\' => match self.escape()? {
                Escape::Boundary => Some(anchor),
                Escape::Char(c) => Some(one(self.char_size(c))),
                Escape::Digit => Some(one(1024 * DIGIT_RANGES + 64)),
                Escape::Space => Some(one(1024 * SPACE_RANGES + 64)),
            },
            b')' | b'|' | b'?' | b'*' | b'+' | b'{' | b'}' | b']' => None,
            0x20..=0x7e => Some(one(self.char_size(b))),
            _ => None,
        }
    }

    /// A bound of what the character `c` costs in `size_bound`.
    fn char_size(&self, c: u8) -> u64 {
        if self.fold && c.is_ascii_alphabetic() {
            FOLDED_LETTER_SIZE
        } else {
            CHAR_SIZE
        }
    }

    /// The escape after a `\`.
    fn escape(&mut self) -> Option<Escape> {
        let b = self.peek()?;
        self.at += 1;
        match b {
            b'b' => Some(Escape::Boundary),
            b's' => Some(Escape::Space),
            b'd' => Some(Escape::Digit),
            b'n' => Some(Escape::Char(b'\n')),
            b't' => Some(Escape::Char(b'\t')),
            b'x' => {
                let hex = self.bytes.get(self.at..self.at + 2)?;
                let value = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                // `\x{...}` and `\x` with one digit are left to regex-syntax.
                if !hex.iter().all(u8::is_ascii_hexdigit) || value > 0x7f {
                    return None;
                }
                self.at += 2;
                Some(Escape::Char(value))
            }
            b'<' | b'>' => None,
            _ if b.is_ascii_punctuation() => Some(Escape::Char(b)),
            _ => None,
        }
    }

    /// A class after its `[`, as a bound of its size.
    fn class(&mut self) -> Option<u64> {
        let negated = self.peek() == Some(b'^');
        if negated {
            self.at += 1;
        }
        let start = self.at;
        // The ASCII characters the class names (before negation).
        let mut named = [false; 128];
        let mut ranges: u64 = 0;
        loop {
            let b = self.peek()?;
            let rest = &self.bytes[self.at..];
            if b == b']' && self.at > start {
                self.at += 1;
                break;
            }
            if matches!(b, b'[' | b']')
                || rest.starts_with(b"&&")
                || rest.starts_with(b"--")
                || rest.starts_with(b"~~")
            {
                return None;
            }
            // `-` stands for itself first and last only.
            let last = self.bytes.get(self.at + 1) == Some(&b']');
            if b == b'-' {
                if self.at != start && !last {
                    return None;
                }
                named[usize::from(b'-')] = true;
                ranges += 1;
                self.at += 1;
                continue;
            }
            self.at += 1;
            let item = match b {
                b'\\' => self.escape()?,
                0x20..=0x7e => Escape::Char(b),
                _ => return None,
            };
            let range_follows =
                self.peek() == Some(b'-') && self.bytes.get(self.at + 1) != Some(&b']');
            match item {
                Escape::Boundary => return None,
                // A range between letters or digits of one kind, in order.
                Escape::Char(from) if range_follows => {
                    let to = self.bytes.get(self.at + 1).copied()?;
                    let same_kind = (from.is_ascii_digit() && to.is_ascii_digit())
                        || (from.is_ascii_lowercase() && to.is_ascii_lowercase())
                        || (from.is_ascii_uppercase() && to.is_ascii_uppercase());
                    if b == b'\\' || !same_kind || from > to {
                        return None;
                    }
                    named[usize::from(from)..=usize::from(to)].fill(true);
                    ranges += 1;
                    self.at += 2;
                }
                _ if range_follows => return None,
                Escape::Char(c) => {
                    named[usize::from(c)] = true;
                    ranges += 1;
                }
                Escape::Digit => {
                    named[usize::from(b'0')..=usize::from(b'9')].fill(true);
                    ranges += DIGIT_RANGES;
                }
                Escape::Space => {
                    for c in [b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r'] {
                        named[usize::from(c)] = true;
                    }
                    ranges += SPACE_RANGES;
                }
            }
        }
        if self.fold {
            for c in b'a'..=b'z' {
                let (lower, upper) = (usize::from(c), usize::from(c.to_ascii_uppercase()));
                let either = named[lower] || named[upper];
                named[lower] = either;
                named[upper] = either;
            }
        }
        // Every class read here holds an ASCII character: one byte at least.
        let holds_ascii = if negated {
            named.iter().any(|n| !n)
        } else {
            named.iter().any(|n| *n)
        };
        if !holds_ascii {
            return None;
        }
        // The ranges named, four case variants at most of each, and one
        // more for a negation's complement, at 1 KiB each.
        Some(1024 * (4 * ranges + 1) + 64)
    }
}

enum Escape {
    /// `\b`: zero width.
    Boundary,
    Char(u8),
    Digit,
    Space,
}

#[cfg(test)]
mod tests {
    use super::{shortest, Shortest};
    use crate::expr::regex_match::{parsed_shortest_match, size_bound, SURELY_SMALL};
    use proptest::prelude::*;

    /// A pattern read here answers as regex-syntax reads it: it parses,
    /// its shortest match is the same, and the size bound is above the
    /// parsed pattern's.
    fn agrees_with_the_parse(pattern: &str) -> Result<(), String> {
        let Some(Shortest { min, size }) = shortest(pattern) else {
            return Ok(());
        };
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(true)
            .build()
            .parse(pattern)
            .map_err(|e| format!("{pattern:?} read but does not parse: {e}"))?;
        let parsed_min = hir.properties().minimum_len().map(|m| m as u64);
        if parsed_min != Some(min) {
            return Err(format!(
                "{pattern:?}: shortest {min}, parsed {parsed_min:?}"
            ));
        }
        let parsed_size = size_bound(&hir);
        if parsed_size > size {
            return Err(format!(
                "{pattern:?}: size bound {size} under {parsed_size}"
            ));
        }
        let fast = super::super::regex_match::shortest_match(pattern);
        if size <= SURELY_SMALL && fast != parsed_shortest_match(pattern) {
            return Err(format!("{pattern:?}: {fast:?} against the parse"));
        }
        Ok(())
    }

    #[test]
    fn the_packs_patterns_are_mostly_read_and_read_alike() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut patterns = Vec::new();
        for dir in ["packs", "policies"] {
            for entry in std::fs::read_dir(repo.join(dir)).unwrap() {
                let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
                for piece in text.split("matches(r'").skip(1) {
                    if let Some(end) = piece.find("')") {
                        patterns.push(piece[..end].to_string());
                    }
                }
            }
        }
        assert!(patterns.len() > 50, "{} patterns", patterns.len());
        let read = patterns.iter().filter(|p| shortest(p).is_some()).count();
        for pattern in &patterns {
            agrees_with_the_parse(pattern).unwrap();
        }
        assert!(
            read * 4 > patterns.len() * 3,
            "{read} of {} read",
            patterns.len()
        );
        // The secrets pack's long credential-path pattern, which the index
        // reads for every rule that uses it.
        let credentials = patterns
            .iter()
            .find(|p| p.starts_with(r"(?mi)(^|/)\.env("))
            .unwrap();
        assert!(shortest(credentials).is_some_and(|s| s.size <= SURELY_SMALL));
    }

    #[test]
    fn anything_outside_the_subset_is_left_to_the_parse() {
        for pattern in [
            "a{2}",
            "a+?",
            "a**",
            "^*",
            "\\b+",
            "(?s).",
            "(?x)a",
            "(?i)(?m)a",
            "[]a]",
            "[^]",
            "[a-Z]",
            "[z-a]",
            "[a&&b]",
            "[a--b]",
            "[[:alpha:]]",
            "[\\b]",
            "\\<",
            "\\w",
            "\\pL",
            "\\x{41}",
            "\\x8f",
            "é",
            "[^\\x00-\\x7f]",
            "a)",
            "(a",
            "|*",
            "\\",
            "[a",
            "[.-a]",
        ] {
            assert_eq!(shortest(pattern), None, "{pattern}");
        }
        assert_eq!(shortest("(?i)^/(etc|usr)/").map(|s| s.min), Some(5));
        assert_eq!(shortest(r"\bget\s+x?").map(|s| s.min), Some(4));
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a",
            "B",
            "k",
            "s",
            "0",
            "/",
            "-",
            "_",
            ".",
            " ",
            "#",
            "&",
            "~",
            ":",
            "=",
            "'",
            "\\.",
            "\\$",
            "\\(",
            "\\-",
            "\\/",
            "\\_",
            "\\x27",
            "\\x22",
            "\\x41",
            "\\n",
            "\\t",
            "\\s",
            "\\d",
            "\\b",
            "^",
            "$",
            "(",
            ")",
            "(?:",
            "|",
            "?",
            "*",
            "+",
            "[",
            "]",
            "[^",
            "[a-z]",
            "[A-Za-z0-9._-]",
            "[^/]",
            "[^\\x27\\x22\\s]",
            "[-a]",
            "[a-]",
            "[0-9]",
            "[^a-zA-Z]",
            "a-z",
            "{",
            "}",
            "{2}",
            "\\w",
            "\\<",
            "é",
            "\\x",
            "\\x7",
            "[\\d-]",
            "[--]",
            "&&",
            "~~",
            "[^\\s\\S]",
            "[\\s-a]",
            "\\]",
            "]",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

        #[test]
        fn patterns_in_and_around_the_subset_are_read_as_parsed(
            flags in prop::sample::select(vec!["", "", "(?i)", "(?m)", "(?mi)", "(?x)"]),
            pieces in prop::collection::vec(piece(), 0..12),
        ) {
            let pattern = format!("{flags}{}", pieces.concat());
            prop_assert!(agrees_with_the_parse(&pattern).is_ok(), "{:?}", agrees_with_the_parse(&pattern));
        }
    }
}
