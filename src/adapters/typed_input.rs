//! What typing into a running shell submits.
//!
//! A shell tool that keeps sessions (PicoClaw's `exec`: `action: write`
//! sends `data` to a session's stdin, `action: send-keys` sends named keys,
//! see pkg/tools/shell.go) can run any command without a `command`
//! argument: start `bash` in the background, then type `rm -rf /` and Enter
//! into it. So typed input is shell input, and the lines it submits are
//! what `pre_shell_exec` must judge.
//!
//! A session in a terminal edits the line before it is submitted: the arrow
//! keys move the cursor, Backspace deletes, Ctrl-U clears. `ls` then two
//! Left presses then `rm -rf / #` submits `rm -rf / #ls`. [`submitted`]
//! replays the common line-editing keys (readline's emacs defaults) to find
//! the lines as the shell will read them. Keys whose effect depends on what
//! we cannot see (history recall, completion, yank, search, unknown escape
//! sequences) insert [`UNSEEN`], a variable expansion: the analysis then
//! treats that part as unknowable, which the shipped policy refuses when it
//! is the program, as it refuses any `$X` there.

/// Stands for text the keys bring in that we cannot see.
pub const UNSEEN: &str = "\"$HOOK_POLICY_UNSEEN_INPUT\"";

/// The text named keys type (PicoClaw's `send-keys`: comma-separated names,
/// `encodeKeyToken` in pkg/tools/shell.go). Unknown names type nothing:
/// PicoClaw refuses the whole call then.
pub fn keys_text(keys: &str) -> String {
    let mut out = String::new();
    for token in keys.split(',') {
        let t = token.trim().to_ascii_lowercase();
        let ctrl = t.strip_prefix("ctrl-").or_else(|| t.strip_prefix("c-"));
        if let Some(c) = ctrl.and_then(|c| c.bytes().next()) {
            if c.is_ascii_lowercase() {
                out.push((c & 0x1f) as char);
            }
            continue;
        }
        let alt = t.strip_prefix("alt-").or_else(|| t.strip_prefix("m-"));
        if let Some(c) = alt.filter(|c| c.len() == 1) {
            out.push('\x1b');
            out.push_str(c);
            continue;
        }
        let shifted = t.strip_prefix("shift-").or_else(|| t.strip_prefix("s-"));
        let name = shifted.unwrap_or(&t);
        out.push_str(match name {
            "enter" | "return" => "\r",
            "tab" => "\t",
            "escape" | "esc" => "\x1b",
            "space" => " ",
            "backspace" | "bspace" => "\x7f",
            "up" => "\x1b[A",
            "down" => "\x1b[B",
            "right" => "\x1b[C",
            "left" => "\x1b[D",
            "home" => "\x1b[1~",
            "end" => "\x1b[4~",
            "pageup" | "pgup" => "\x1b[5~",
            "pagedown" | "pgdn" => "\x1b[6~",
            "insert" | "ic" => "\x1b[2~",
            "delete" | "del" | "dc" => "\x1b[3~",
            "btab" => "\x1b[Z",
            _ => "",
        });
    }
    out
}

/// A line being edited.
#[derive(Default)]
struct Line {
    chars: Vec<char>,
    cursor: usize,
}

impl Line {
    fn insert(&mut self, s: &str) {
        for c in s.chars() {
            self.chars.insert(self.cursor, c);
            self.cursor += 1;
        }
    }

    fn replace_all(&mut self, s: &str) {
        self.chars = s.chars().collect();
        self.cursor = self.chars.len();
    }

    fn take(&mut self) -> String {
        let s: String = self.chars.iter().collect();
        *self = Line::default();
        s
    }
}

/// The lines `typed` submits, one per line, and the line still being typed
/// (submitted later, by keys we may never see, so it is judged now too).
pub fn submitted(typed: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = Line::default();
    let mut it = typed.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\r' | '\n' => lines.push(line.take()),
            '\x7f' | '\x08' => {
                if line.cursor > 0 {
                    line.cursor -= 1;
                    line.chars.remove(line.cursor);
                }
            }
            '\x01' => line.cursor = 0,                // Ctrl-A
            '\x05' => line.cursor = line.chars.len(), // Ctrl-E
            '\x02' => line.cursor = line.cursor.saturating_sub(1),
            '\x06' => line.cursor = (line.cursor + 1).min(line.chars.len()),
            '\x04' => {
                if line.cursor < line.chars.len() {
                    line.chars.remove(line.cursor);
                }
            }
            '\x15' => {
                // Ctrl-U: kill to the start (it can be yanked back: unseen).
                line.chars.drain(..line.cursor);
                line.cursor = 0;
            }
            '\x0b' => line.chars.truncate(line.cursor), // Ctrl-K
            '\x03' => {
                line.take(); // Ctrl-C abandons the line
            }
            '\x0c' | '\x07' => {} // Ctrl-L redraws; Ctrl-G beeps
            // History (Ctrl-P/N/R/S, Ctrl-O): the whole line becomes unseen.
            '\x10' | '\x0e' | '\x12' | '\x13' | '\x0f' => line.replace_all(UNSEEN),
            '\x1b' => match it.next() {
                Some('[') | Some('O') => {
                    let mut seq = String::new();
                    while let Some(&n) = it.peek() {
                        it.next();
                        seq.push(n);
                        if n.is_ascii_alphabetic() || n == '~' {
                            break;
                        }
                    }
                    match seq.as_str() {
                        "C" => line.cursor = (line.cursor + 1).min(line.chars.len()),
                        "D" => line.cursor = line.cursor.saturating_sub(1),
                        "H" | "1~" | "7~" => line.cursor = 0,
                        "F" | "4~" | "8~" => line.cursor = line.chars.len(),
                        "3~" => {
                            if line.cursor < line.chars.len() {
                                line.chars.remove(line.cursor);
                            }
                        }
                        "2~" | "P" | "Q" | "R" | "S" => {}
                        s if s.ends_with('~') && s.len() == 3 && s.starts_with(['1', '2']) => {} // F5-F12
                        // Up, Down, PageUp, PageDown and the rest recall or
                        // complete: unseen.
                        _ => line.replace_all(UNSEEN),
                    }
                }
                // Meta keys edit by words, yank, complete: unseen.
                Some(_) | None => line.replace_all(UNSEEN),
            },
            // Tab completes, Ctrl-Y yanks, Ctrl-V quotes the next key, and
            // the other control characters are readline commands.
            c if (c as u32) < 0x20 => line.insert(UNSEEN),
            c => line.insert(c.encode_utf8(&mut [0; 4])),
        }
    }
    if !line.chars.is_empty() {
        lines.push(line.take());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_its_own_lines() {
        assert_eq!(submitted("ls -la\n"), "ls -la");
        assert_eq!(submitted("cd /tmp\r\nrm -rf x\n"), "cd /tmp\n\nrm -rf x");
        assert_eq!(submitted("rm -rf /"), "rm -rf /");
    }

    #[test]
    fn line_editing_is_replayed() {
        assert_eq!(submitted("ls\x1b[D\x1b[Drm -rf / #\r"), "rm -rf / #ls");
        assert_eq!(submitted("rm -r x\x7f\x7f -f /\n"), "rm -r -f /");
        assert_eq!(submitted("echo hi\x01rm -rf / ; \n"), "rm -rf / ; echo hi");
        assert_eq!(submitted("rm -rf /\x03ls\n"), "ls");
    }

    #[test]
    fn what_cannot_be_seen_is_a_variable() {
        assert_eq!(submitted("\x1b[A\r"), UNSEEN);
        assert_eq!(submitted("rm -rf \t\n"), format!("rm -rf {UNSEEN}"));
        assert_eq!(submitted("x\x1bb\n"), UNSEEN);
    }

    #[test]
    fn named_keys_type_what_picoclaw_sends() {
        assert_eq!(keys_text("up, enter"), "\x1b[A\r");
        assert_eq!(
            keys_text("ctrl-c,c-a,m-x,space,left"),
            "\x03\x01\x1bx \x1b[D"
        );
        assert_eq!(
            submitted(&format!("ls{}", keys_text("left,left,enter"))),
            "ls"
        );
    }
}
