//! Globs that name everything in a directory.
//!
//! `rm -rf build/*` empties one build directory and `rm -rf *.pyc` picks
//! files by name, but `rm -rf *` at the project root deletes every file
//! and directory of the project (only the dot files, `.git` among them,
//! survive). Both are patterns under the root, so where a pattern lies is
//! not enough: this module says whether the pattern itself leaves out
//! anything a project holds at its top.
//!
//! A component covers every name when it is made of wildcards only (`*`,
//! `?*`, `[!.]*`, `*/`): nothing written in it has to match a name. A
//! literal character anywhere (`*.pyc`, `test_*`) narrows it to chosen
//! names. Brace alternatives cover when one of them does (`{*,.git}`),
//! and `X/..` cancels out as bash would resolve it (`*/../*` is `*`).

/// Most brace alternatives spelled out before giving up (and answering
/// that the pattern covers everything: a line that needs more is not
/// routine cleanup).
const MAX_ALTERNATIVES: usize = 256;

/// True when `pattern` (the part of a path from its first glob component
/// on, e.g. `*`, `*/`, `*/*`) matches every entry a directory holds, dot
/// files aside, or the directory itself through `..`.
pub fn covers_every_entry(pattern: &str) -> bool {
    let mut alternatives = Vec::new();
    if !spell_braces(pattern, &mut alternatives) {
        return true;
    }
    alternatives.iter().any(|p| every_component_covers(p))
}

fn every_component_covers(pattern: &str) -> bool {
    let mut kept: Vec<&str> = Vec::new();
    for component in pattern.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                kept.pop();
            }
            _ => kept.push(component),
        }
    }
    // Everything cancelled out (`*/..`): the directory itself.
    kept.iter().all(|c| wildcards_only(c))
}

/// A component with a `*` and nothing else but `?` and bracket
/// expressions: it matches names of any length whatever they spell.
fn wildcards_only(component: &str) -> bool {
    let bytes = component.as_bytes();
    let mut star = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'*' => star = true,
            b'?' => {}
            b'[' => match bracket_end(bytes, i) {
                Some(end) => i = end,
                None => return false,
            },
            _ => return false,
        }
        i += 1;
    }
    star
}

/// Index of the `]` closing the bracket expression opened at `open` (a
/// `]` right after `[`, `[!` or `[^` is a member, as in bash).
fn bracket_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(bytes.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    if bytes.get(i) == Some(&b']') {
        i += 1;
    }
    (i..bytes.len()).find(|&at| bytes[at] == b']')
}

/// Bash's brace expansion of `text` into `out`; false when it would spell
/// more than [`MAX_ALTERNATIVES`]. Only `{a,b}` lists expand; a brace
/// without a top-level comma stays as written, as in bash.
fn spell_braces(text: &str, out: &mut Vec<String>) -> bool {
    let Some((open, close, parts)) = first_list(text) else {
        out.push(text.to_string());
        return out.len() <= MAX_ALTERNATIVES;
    };
    for part in parts {
        let spelled = format!("{}{}{}", &text[..open], part, &text[close + 1..]);
        if !spell_braces(&spelled, out) {
            return false;
        }
    }
    true
}

/// The first `{...}` holding a top-level comma: its bounds and its parts.
fn first_list(text: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = text.as_bytes();
    for open in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
        let mut depth = 0;
        let mut start = open + 1;
        let mut parts = Vec::new();
        for (at, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if parts.is_empty() {
                            break;
                        }
                        parts.push(&text[start..at]);
                        return Some((open, at, parts));
                    }
                }
                b',' if depth == 1 => {
                    parts.push(&text[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::covers_every_entry;

    #[test]
    fn wildcards_alone_cover_every_entry() {
        for pattern in [
            "*", "**", "?*", "*?", "[!.]*", "*/", "*/*", "*/../*", "*/..", "{*,.git}", "{a,*}",
            "./*",
        ] {
            assert!(covers_every_entry(pattern), "{pattern}");
        }
    }

    #[test]
    fn a_written_character_picks_names() {
        for pattern in [
            "*.pyc",
            "test_*",
            "*/node_modules",
            "*/*.o",
            "?",
            "??",
            "{a,b}*",
            "*.{o,a}",
            "{*}.log",
            "[abc]",
        ] {
            assert!(!covers_every_entry(pattern), "{pattern}");
        }
    }

    #[test]
    fn too_many_alternatives_count_as_everything() {
        let pattern = "{a,b}".repeat(9);
        assert!(covers_every_entry(&pattern));
    }
}
