//! Word splitting for `env -S 'string'`.
//!
//! `env -S` (used in `#!/usr/bin/env -S prog args` lines) splits its string
//! into words itself, with a small quoting language of its own: spaces
//! separate words, `'...'` is literal, `"..."` and unquoted text honour
//! backslash escapes (`\_` is a space, `\c` ends the string), `${NAME}` is
//! replaced by the variable and `#` at the start of a word starts a comment.
//! `env -S 'rm -rf /'` runs `rm`, so the split words must be analysed.

use super::words::Word;

/// Split an `env -S` string into words.
pub fn env_split_string(s: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut current: Option<Word> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = current.take() {
                    out.push(w);
                }
            }
            '#' if current.is_none() => break,
            '\'' => {
                let w = current.get_or_insert_with(|| Word::literal(""));
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.text.push(q);
                }
            }
            '"' => {
                let w = current.get_or_insert_with(|| Word::literal(""));
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => push_escape(&mut chars, w),
                        '$' => w.literal = false,
                        _ => {}
                    }
                    if q != '\\' && q != '"' {
                        w.text.push(q);
                    }
                }
            }
            '\\' if chars.peek() == Some(&'c') => break,
            '\\' => {
                let w = current.get_or_insert_with(|| Word::literal(""));
                push_escape(&mut chars, w);
            }
            _ => {
                let w = current.get_or_insert_with(|| Word::literal(""));
                if c == '$' {
                    w.literal = false;
                }
                w.text.push(c);
            }
        }
    }
    out.extend(current);
    out
}

fn push_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, w: &mut Word) {
    match chars.next() {
        Some('_') => w.text.push(' '),
        Some('t') => w.text.push('\t'),
        Some('n') => w.text.push('\n'),
        Some('r') => w.text.push('\r'),
        Some('f') => w.text.push('\u{c}'),
        Some('v') => w.text.push('\u{b}'),
        Some(other) => w.text.push(other),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::env_split_string;

    fn texts(s: &str) -> Vec<String> {
        env_split_string(s).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn splits_on_spaces_and_honours_quotes() {
        assert_eq!(texts("rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(texts(r#"printf '%s x' "a b""#), ["printf", "%s x", "a b"]);
        assert_eq!(texts(r"a\_b \t"), ["a b", "\t"]);
    }

    #[test]
    fn comments_and_stop_escape_end_the_string() {
        assert_eq!(texts("ls -l # rm -rf /"), ["ls", "-l"]);
        assert_eq!(texts(r"ls\c rm"), ["ls"]);
    }

    #[test]
    fn variables_make_words_dynamic() {
        let w = env_split_string("${CMD} x");
        assert!(!w[0].literal);
        assert!(w[1].literal);
    }
}
