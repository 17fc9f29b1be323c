//! Commands a sed script runs.
//!
//! GNU sed runs shell commands two ways: the `e command` command runs its
//! text (`e` alone runs the pattern space), and the `e` flag of `s///`
//! runs the pattern space after the substitution. Text from the input is
//! not known, so those two are opaque; `e command` is shell code to follow.
//! Everything else (`s`, `y`, `p`, `d`, addresses, `a`/`i`/`c` text,
//! `r`/`w` file names) is skipped with its own syntax, so that an `e` inside
//! a regex or a replacement is never taken for the command.

/// What one sed script runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SedFindings {
    /// Text of `e command` commands.
    pub commands: Vec<String>,
    /// Files `w file`, `W file` and `s///w file` write.
    pub writes: Vec<String>,
    /// Why part of the script runs what cannot be known.
    pub opaque: Vec<String>,
}

pub fn analyze(script: &str) -> SedFindings {
    let mut out = SedFindings::default();
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        i = skip_blanks_and_separators(&chars, i);
        i = skip_address(&chars, i);
        let Some(&command) = chars.get(i) else { break };
        i += 1;
        match command {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            '#' | 'a' | 'i' | 'c' | 'r' | 'R' | 'w' | 'W' | ':' | 'b' | 't' | 'T' | 'q' | 'Q'
            | 'l' | 'L' | 'v' => {
                // Text, a file name, a label or a number up to the end of
                // the line (labels and numbers also end at `;`).
                let ends_at_semicolon =
                    matches!(command, 'b' | 't' | 'T' | 'q' | 'Q' | 'l' | 'L' | 'v');
                let start = i;
                while i < chars.len() && chars[i] != '\n' && !(ends_at_semicolon && chars[i] == ';')
                {
                    i += 1;
                }
                if matches!(command, 'w' | 'W') {
                    push_file(&mut out.writes, &chars[start..i]);
                }
            }
            'e' => {
                let start = i;
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                let text = text.trim();
                if text.is_empty() {
                    out.opaque
                        .push("sed `e` runs the pattern space, which comes from the input".into());
                } else {
                    out.commands.push(text.to_string());
                }
            }
            's' | 'y' => {
                let Some(&delimiter) = chars.get(i) else {
                    break;
                };
                i += 1;
                for _ in 0..2 {
                    i = skip_delimited(&chars, i, delimiter);
                }
                if command == 's' {
                    let start = i;
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}' | ' ') {
                        // `w file` ends the flags and takes the rest of the line.
                        if chars[i] == 'w' {
                            break;
                        }
                        i += 1;
                    }
                    let flags: String = chars[start..i].iter().collect();
                    if flags.contains('e') {
                        out.opaque.push(format!(
                            "sed `s///{flags}` runs the substituted text, which comes from the input"
                        ));
                    }
                    if chars.get(i) == Some(&'w') {
                        let start = i + 1;
                        while i < chars.len() && chars[i] != '\n' {
                            i += 1;
                        }
                        push_file(&mut out.writes, &chars[start.min(i)..i]);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A `w` file name: the rest of the line, leading blanks dropped
/// (`/dev/stdout` and `/dev/stderr` are GNU sed's names for the streams).
fn push_file(into: &mut Vec<String>, text: &[char]) {
    let name: String = text.iter().collect();
    let name = name.trim_start().to_string();
    if !name.is_empty() && name != "/dev/stdout" && name != "/dev/stderr" {
        into.push(name);
    }
}

fn skip_blanks_and_separators(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ';') {
        i += 1;
    }
    i
}

/// An address (`1`, `$`, `/re/`, `\%re%`, `1,5`, `0~2`, `addr,+3`) and `!`.
fn skip_address(chars: &[char], mut i: usize) -> usize {
    for part in 0..2 {
        match chars.get(i) {
            Some(c)
                if c.is_ascii_digit() || *c == '$' || (part == 1 && matches!(*c, '+' | '~')) =>
            {
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '~') {
                    i += 1;
                }
            }
            Some('/') => i = skip_delimited(chars, i + 1, '/'),
            Some('\\') if i + 1 < chars.len() => {
                let delimiter = chars[i + 1];
                i = skip_delimited(chars, i + 2, delimiter);
            }
            _ => break,
        }
        // Regex address flags `I` and `M`.
        while matches!(chars.get(i), Some('I' | 'M')) {
            i += 1;
        }
        if part == 0 && chars.get(i) == Some(&',') {
            i += 1;
        } else {
            break;
        }
    }
    while i < chars.len() && (chars[i] == '!' || chars[i] == ' ') {
        i += 1;
    }
    i
}

/// Past the next unescaped `delimiter` (a newline ends an unclosed part).
fn skip_delimited(chars: &[char], mut i: usize, delimiter: char) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == delimiter => return i + 1,
            '\n' => return i,
            _ => i += 1,
        }
    }
    // A backslash at the very end stepped past it.
    i.min(chars.len())
}

#[cfg(test)]
mod tests {
    use super::analyze;

    #[test]
    fn a_trailing_backslash_ends_the_script() {
        for script in ["s/a\\", "s\\", "/x\\", "\\%a\\", "y/a/\\"] {
            let _ = analyze(script);
        }
    }

    #[test]
    fn e_command_and_e_flag() {
        assert_eq!(analyze("1e rm -rf /").commands, ["rm -rf /"]);
        assert_eq!(analyze("/x/{e touch f\n}").commands, ["touch f"]);
        assert!(!analyze("s/x/y/e").opaque.is_empty());
        assert!(!analyze("e").opaque.is_empty());
    }

    #[test]
    fn e_inside_regexes_text_and_file_names_is_not_a_command() {
        for script in [
            "s/e/E/g",
            "s|a|e|",
            "/e/d",
            "\\%e%p",
            "y/abe/xyz/",
            "a echo e",
            "1i\\e here",
            "s/a/b/w out.e",
            "p;s/x/y/2g",
            "s/a/b/;b end;:end",
            "$!N;s/\\n/ /",
        ] {
            let found = analyze(script);
            assert!(
                found.commands.is_empty() && found.opaque.is_empty(),
                "{script}: {found:?}"
            );
        }
    }
}
