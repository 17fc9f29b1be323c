//! Patterns that compile but can never match anything.
//!
//! A regex such as `foo$bar` or `[^\s\S]` is valid, so the regex crate
//! accepts it, and the rule it guards silently never fires: for a deny
//! rule that is an allow nobody reviewed. The same goes for a path glob
//! ending in `/`, since paths are normalised without a trailing slash
//! before they are matched. `policy check` warns about both
//! (`lint::never-matches`).

use regex_syntax::hir::{Hir, HirKind, Look};

/// Why `pattern` can never match, if it cannot.
pub fn regex_never_matches(pattern: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    if hir.properties().minimum_len().is_none() {
        return Some("it matches no text at all (an empty class or alternation)".into());
    }
    impossible_anchor(&hir)
}

fn is_start(look: Look) -> bool {
    matches!(look, Look::Start)
}

fn is_end(look: Look) -> bool {
    matches!(look, Look::End)
}

/// Looks for `$` followed by text, or text followed by `^` (without the
/// multi-line flag, where they mean the ends of the whole input).
fn impossible_anchor(hir: &Hir) -> Option<String> {
    match hir.kind() {
        HirKind::Concat(parts) => {
            let consumes = |h: &Hir| h.properties().minimum_len().unwrap_or(0) > 0;
            for (i, part) in parts.iter().enumerate() {
                if let HirKind::Look(look) = part.kind() {
                    if is_end(*look) && parts[i + 1..].iter().any(consumes) {
                        return Some("text follows `$`, the end of the input".into());
                    }
                    if is_start(*look) && parts[..i].iter().any(consumes) {
                        return Some("text comes before `^`, the start of the input".into());
                    }
                }
            }
            parts.iter().find_map(impossible_anchor)
        }
        HirKind::Alternation(alts) => {
            // Only if every branch is impossible; one impossible branch is dead
            // weight, not a rule that never fires.
            let reasons: Vec<String> = alts.iter().filter_map(impossible_anchor).collect();
            (reasons.len() == alts.len()).then(|| reasons[0].clone())
        }
        HirKind::Capture(c) => impossible_anchor(&c.sub),
        HirKind::Repetition(r) if r.min > 0 => impossible_anchor(&r.sub),
        _ => None,
    }
}

/// Why a path glob can never match a normalised path, if it cannot.
pub fn glob_never_matches(glob: &str) -> Option<String> {
    if glob.len() > 1 && glob.ends_with('/') {
        return Some(format!(
            "paths are matched without a trailing slash; write `{}` for the directory or `{}**` for what is inside it",
            glob.trim_end_matches('/'),
            glob
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_regexes_are_found_and_live_ones_are_not() {
        for dead in ["a$b", "x^y", "[^\\s\\S]", "(a$b)+", "(?:a$b|c^d)"] {
            assert!(regex_never_matches(dead).is_some(), "{dead}");
        }
        for live in [
            "^rm$",
            "a$|b",
            "(?m)a$\\nb",
            "^/$",
            "-----BEGIN [A-Z ]*PRIVATE KEY-----",
            "a$",
            "$",
            "(a$b)?",
        ] {
            assert!(regex_never_matches(live).is_none(), "{live}");
        }
    }

    #[test]
    fn globs_with_a_trailing_slash_never_match() {
        assert!(glob_never_matches("~/.ssh/").is_some());
        assert!(glob_never_matches("~/.ssh/**").is_none());
        assert!(glob_never_matches("/").is_none());
    }
}
