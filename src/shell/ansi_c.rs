//! Decoding of bash ANSI-C quoted strings (`$'...'`).
//!
//! `$'\x72\x6d'` is a literal spelling of `rm`: bash decodes the escapes
//! before the word is used, so the analysis must do the same or a program
//! name written this way would slip past every policy.

/// Decode the body of a `$'...'` string (without the `$'` and `'`).
pub fn decode(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                // Up to three octal digits, the first one already read.
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                push_code(&mut out, value & 0xff);
            }
            'x' => match take_hex(&mut chars, 2) {
                Some(v) => push_code(&mut out, v),
                None => out.push_str("\\x"),
            },
            'u' => match take_hex(&mut chars, 4) {
                Some(v) => push_code(&mut out, v),
                None => out.push_str("\\u"),
            },
            'U' => match take_hex(&mut chars, 8) {
                Some(v) => push_code(&mut out, v),
                None => out.push_str("\\U"),
            },
            'c' => match chars.next() {
                // Control character: `\cA` is 0x01; bash masks with 0x1f.
                Some(x) => push_code(&mut out, (x as u32) & 0x1f),
                None => out.push_str("\\c"),
            },
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn take_hex(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, max: usize) -> Option<u32> {
    let mut value: Option<u32> = None;
    for _ in 0..max {
        match chars.peek().and_then(|d| d.to_digit(16)) {
            Some(d) => {
                value = Some(value.unwrap_or(0).wrapping_mul(16).wrapping_add(d));
                chars.next();
            }
            None => break,
        }
    }
    value
}

/// Bytes above ASCII from `\x`/octal escapes form UTF-8 sequences in bash;
/// a lone one cannot be a valid program name, so U+FFFD stands in for it.
fn push_code(out: &mut String, code: u32) {
    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn hex_octal_and_unicode_escapes_spell_letters() {
        assert_eq!(decode(r"\x72\x6d"), "rm");
        assert_eq!(decode(r"\162\155"), "rm");
        assert_eq!(decode(r"\u0072m"), "rm");
        assert_eq!(decode(r"\U00000072m"), "rm");
    }

    #[test]
    fn simple_escapes_and_quotes() {
        assert_eq!(decode(r"a\tb\n"), "a\tb\n");
        assert_eq!(decode(r"it\'s"), "it's");
        assert_eq!(decode(r"back\\slash"), "back\\slash");
        assert_eq!(decode(r"\cA"), "\u{1}");
    }

    #[test]
    fn malformed_escapes_are_kept() {
        assert_eq!(decode(r"\xZZ"), r"\xZZ");
        assert_eq!(decode(r"\q"), r"\q");
        assert_eq!(decode("end\\"), "end\\");
    }
}
