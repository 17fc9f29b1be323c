//! Maps a position inside a YAML string's value back to the file.
//!
//! A CEL error is reported at a character of the decoded string; the caret
//! must land on that character in the file, whatever the scalar's style:
//! plain, 'single' (with '' escapes), "double" (with backslash escapes), or
//! a block (`|`, `>`) spread over indented lines. Each style is walked the
//! way YAML decodes it, recording the byte where each decoded character came
//! from. Line folding inside flow scalars is approximated (a line break and
//! its indentation count as the one space they decode to).

use super::tree::Span;

/// Byte offset in the file of the `char_index`-th character of the scalar's
/// value; the scalar's start when it cannot be mapped.
pub fn locate(file_text: &str, scalar: Span, char_index: usize) -> usize {
    let Some(raw) = file_text.get(scalar.start..scalar.end()) else {
        return scalar.start;
    };
    let offsets = match raw.as_bytes().first() {
        Some(b'\'') => quoted(raw, b'\''),
        Some(b'"') => quoted(raw, b'"'),
        _ => match block_indent(file_text, scalar.start) {
            Some(indent) => block(raw, indent),
            None => plain(raw),
        },
    };
    let local = offsets
        .get(char_index)
        .copied()
        .or_else(|| offsets.last().map(|o| o + 1))
        .unwrap_or(0);
    scalar.start + local.min(raw.len())
}

fn plain(raw: &str) -> Vec<usize> {
    folded_chars(raw, 0, raw.len())
}

/// Offsets of decoded characters of a quoted scalar.
fn quoted(raw: &str, quote: u8) -> Vec<usize> {
    let bytes = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 1; // after the opening quote
    while i < bytes.len() {
        let c = bytes[i];
        if c == quote {
            if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                out.push(i);
                i += 2;
                continue;
            }
            break; // closing quote
        }
        if quote == b'"' && c == b'\\' {
            out.push(i);
            i += match bytes.get(i + 1) {
                Some(b'x') => 4,
                Some(b'u') => 6,
                Some(b'U') => 10,
                Some(b'\n') => {
                    // escaped line break: decodes to nothing; skip indentation
                    let mut j = i + 2;
                    while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                        j += 1;
                    }
                    out.pop();
                    j - i
                }
                _ => 2,
            };
            continue;
        }
        if c == b'\n' {
            out.push(i);
            i += 1;
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            continue;
        }
        out.push(i);
        i += utf8_len(c);
    }
    out
}

/// If the scalar at `start` is the content of a block scalar (`|`, `>`),
/// its indentation. serde-saphyr's span of a block scalar starts at the
/// first content character, so the indicator is found on an earlier line.
fn block_indent(text: &str, start: usize) -> Option<usize> {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..start];
    if !indent.bytes().all(|b| b == b' ') {
        return None;
    }
    let before = text[..line_start].trim_end();
    let last_line = before.rsplit('\n').next().unwrap_or(before);
    // Drop a trailing comment, then look for `|` or `>` with optional indicators.
    let head = last_line.split(" #").next().unwrap_or(last_line).trim_end();
    let indicator = head.trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
    (indicator.ends_with('|') || indicator.ends_with('>')).then_some(indent.len())
}

/// Offsets for a block scalar's content: the first line as is, later lines
/// without the block's indentation (more-indented lines keep the rest).
fn block(raw: &str, indent: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pos = 0;
    for (n, line) in raw.split_inclusive('\n').enumerate() {
        let skip = if n == 0 {
            0
        } else {
            indent.min(line.len() - line.trim_start_matches(' ').len())
        };
        for (i, _) in line[skip..].char_indices() {
            out.push(pos + skip + i);
        }
        pos += line.len();
    }
    out
}

/// Offsets of characters in `raw[start..end]`, folding a line break and the
/// following indentation into one decoded character.
fn folded_chars(raw: &str, start: usize, end: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut chars = raw[start..end].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        out.push(start + i);
        if c == '\n' {
            while let Some((_, ' ' | '\t')) = chars.peek() {
                chars.next();
            }
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str, index: usize) -> char {
        let start = text.find(needle).unwrap();
        let span = Span::new(start, needle.len());
        text[locate(text, span, index)..].chars().next().unwrap()
    }

    #[test]
    fn each_style_maps_to_the_right_character() {
        assert_eq!(at("when: a == bc\n", "a == bc", 5), 'b');
        assert_eq!(at("when: 'it''s == x'\n", "'it''s == x'", 3), 's');
        assert_eq!(at("when: \"\\t == y\"\n", "\"\\t == y\"", 5), 'y');
        // serde-saphyr spans a block scalar from its first content character.
        let text = "when: |\n    a &&\n      bad\n";
        let start = text.find('a').unwrap();
        let span = Span::new(start, text.len() - start);
        // decoded "a &&\n  bad": index 7 is 'b'
        assert_eq!(text[locate(text, span, 7)..].chars().next(), Some('b'));
    }
}
