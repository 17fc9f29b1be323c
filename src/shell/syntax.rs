//! The bash parser behind the analysis: tree-sitter-bash, with a work budget.
//!
//! tree-sitter parses without recursion on the Rust stack, always returns a
//! tree (marking the parts it could not parse), and lets a progress callback
//! cancel a parse. The callback runs after a fixed number of parser
//! operations, so counting its calls gives a deterministic work budget:
//! pathological input ends as "too complex" instead of running for long.
//!
//! The parser is shown [`super::view::parser_view`] of the line, not the
//! line itself (same length, so byte ranges still index the real text), and
//! long pipelines are first tried in their faster flattened spelling
//! ([`super::view::flatten_pipes`]).

use super::view::{flatten_pipes, parser_view, separators_hold};
use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::ControlFlow;
use tree_sitter::{Node, ParseOptions, Parser, Tree};

/// Parser work allowed for one `analyze` call, in progress-callback ticks
/// (tree-sitter calls back every 100 operations). The slowest inputs
/// measured within the 64 KiB limit use well under a fifth of this.
pub const WORK_BUDGET_TICKS: u64 = 400_000;

/// Remaining parser work for one analysis; shared by the line and every
/// string re-parsed from it.
#[derive(Debug)]
pub struct Budget {
    ticks_left: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            ticks_left: WORK_BUDGET_TICKS,
        }
    }
}

impl Budget {
    pub fn is_exhausted(&self) -> bool {
        self.ticks_left == 0
    }
}

/// Why no tree came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// The work budget ran out.
    OverBudget,
    /// The grammar could not be loaded (a tree-sitter ABI mismatch).
    NoLanguage(String),
}

thread_local! {
    // One parser per thread: creating one and loading the grammar costs
    // about as much as parsing a short line.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// How to parse a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Try the flattened pipeline first (the normal route).
    Fast,
    /// Parse the view as it is: the reference the fast route is tested against.
    Exact,
}

/// A tree and the bytes it was parsed from (the view of the line, see
/// `src/shell/view.rs`; same length and offsets as the line).
pub struct Parsed<'a> {
    pub tree: Tree,
    bytes: Cow<'a, [u8]>,
    /// Where pipes are shown as `;` (empty unless the fast route's
    /// flattened view was kept).
    separators: Vec<usize>,
}

impl Parsed<'_> {
    /// True when the tree is of the flattened view (see `view::flatten_pipes`).
    pub fn is_flattened(&self) -> bool {
        !self.separators.is_empty()
    }
}

/// Parse `src` as a bash script.
pub fn parse<'a>(
    src: &'a str,
    budget: &mut Budget,
    route: Route,
) -> Result<Parsed<'a>, ParseFailure> {
    let view = parser_view(src);
    if route == Route::Fast {
        if let Some(flattened) = flatten_pipes(&view) {
            // Spend from a copy: if the flattened tree is refused, the line
            // is parsed as it is with the budget it had, as on the exact route.
            let mut trial = Budget {
                ticks_left: budget.ticks_left,
            };
            if let Ok(tree) = parse_bytes(&flattened.bytes, &mut trial) {
                if flattened.is_faithful(&tree) {
                    *budget = trial;
                    return Ok(Parsed {
                        tree,
                        separators: flattened.separators().to_vec(),
                        bytes: Cow::Owned(flattened.bytes),
                    });
                }
            }
        }
    }
    let tree = parse_bytes(&view, budget)?;
    Ok(Parsed {
        tree,
        bytes: view,
        separators: Vec::new(),
    })
}

/// Parse again with a `;` shown at each of `newlines`: newlines the tree
/// took for blanks inside a command (see `walk::Walked::misread_newlines`),
/// where to bash they end the command, as `;` does; `comments` ending at
/// such a newline are shown as blanks. `None` when the view
/// was flattened and the new tree no longer proves its flattened pipes
/// were pipes: the caller starts again on the exact route.
pub fn reparse_with_terminators<'a>(
    parsed: Parsed<'a>,
    newlines: &[usize],
    comments: &[std::ops::Range<usize>],
    budget: &mut Budget,
) -> Result<Option<Parsed<'a>>, ParseFailure> {
    let mut bytes = parsed.bytes.into_owned();
    // A `;` right after a comment would be part of it: blank the comment
    // (it means nothing to bash) so the `;` ends the command.
    for range in comments {
        if let Some(text) = bytes.get_mut(range.clone()) {
            text.fill(b' ');
        }
    }
    for &at in newlines {
        if let Some(b @ b'\n') = bytes.get_mut(at) {
            *b = b';';
        }
        // A `$` that ended the line is a literal `$` to bash; before a `;`
        // the grammar would take it for an expansion that has no name.
        if let Some(b @ b'$') = at.checked_sub(1).and_then(|i| bytes.get_mut(i)) {
            *b = b'a';
        }
    }
    let tree = parse_bytes(&bytes, budget)?;
    if !parsed.separators.is_empty() && !separators_hold(&tree, &parsed.separators) {
        return Ok(None);
    }
    Ok(Some(Parsed {
        tree,
        bytes: Cow::Owned(bytes),
        separators: parsed.separators,
    }))
}

/// True when [`parse`] on the fast route keeps the flattened tree of `src`.
pub fn takes_shortcut(src: &str) -> bool {
    parse(src, &mut Budget::default(), Route::Fast).is_ok_and(|parsed| parsed.is_flattened())
}

/// Parse bytes the parser may see as they are.
pub fn parse_bytes(bytes: &[u8], budget: &mut Budget) -> Result<Tree, ParseFailure> {
    if budget.is_exhausted() {
        return Err(ParseFailure::OverBudget);
    }
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .map_err(|e| ParseFailure::NoLanguage(e.to_string()))?;
            *slot = Some(parser);
        }
        let Some(parser) = slot.as_mut() else {
            return Err(ParseFailure::NoLanguage("parser unavailable".into()));
        };
        // A cancelled parse would otherwise be resumed by the next call.
        parser.reset();
        let mut input = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        let mut tick = |_: &tree_sitter::ParseState| {
            budget.ticks_left = budget.ticks_left.saturating_sub(1);
            if budget.ticks_left == 0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut tick);
        let tree = parser.parse_with_options(&mut input, None, Some(options));
        tree.ok_or(ParseFailure::OverBudget)
    })
}

/// Describe the first syntax error in the tree, if any.
pub fn first_error(tree: &Tree, src: &str) -> Option<String> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    // Descend towards the first error without recursion: at each level pick
    // the first child that is or contains an error.
    let mut node = root;
    loop {
        if node.is_missing() {
            return Some(format!("missing `{}` at {}", node.kind(), position(node)));
        }
        if node.is_error() {
            let text = super::words::node_text(node, src);
            let snippet: String = text.chars().take(40).collect();
            return Some(format!(
                "syntax error at {} near `{snippet}`",
                position(node)
            ));
        }
        let mut cursor = node.walk();
        let next = node
            .children(&mut cursor)
            .find(|c| c.has_error() || c.is_missing() || c.is_error());
        match next {
            Some(child) => node = child,
            None => return Some(format!("syntax error at {}", position(node))),
        }
    }
}

fn position(node: Node<'_>) -> String {
    let p = node.start_position();
    format!("line {}, column {}", p.row + 1, p.column + 1)
}

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    #[test]
    fn characters_beyond_the_scanner_tables_do_not_crash_the_parser() {
        // Each of these crashed the grammar's scanner (an out-of-bounds
        // `isdigit` lookup) before the parser saw ASCII only.
        assert!(analyze("{\u{10ffff}").is_opaque());
        let analysis = analyze("x \"`\u{178e}`\"{\u{e01a7}");
        let programs: Vec<&str> = analysis.programs().collect();
        assert_eq!(programs, ["x", "\u{178e}"]);
        let analysis = analyze("echo {\u{e01a7}");
        assert_eq!(analysis.commands[0].program, "echo");
        assert_eq!(analysis.commands[0].args, ["{\u{e01a7}"]);
    }

    /// Lines on which the two routes once disagreed (found by the
    /// `shell_analyze` fuzz target and the pipeline property, minimised).
    #[test]
    fn lines_found_by_fuzzing_analyse_alike_on_both_routes() {
        for line in [
            "1|t|s\n\n\n>r",
            "1|c|s\n!\nm<2",
            "s|s|x=1 <s y=2 -",
            "s|s|x==<s --x= -",
            "s|--x= <i -|x",
            "m|r|m #\nm>/",
            "cat f|cat f|}\n]||2>&1;",
            "x|r|0 --$\nm ->/",
            "a | b | c\n> /d mr -x > /d y | z | w",
            "cat f|x=1 2>&1\ncat f | cat f | then | cat f | cat f",
            "a | b | x= <=< c rgs --u -50",
            "sv gre /dl grep |  --\n> /lp>v gre  /dsq >gre  grep |  --grep |  --c",
            "' | cat f | eval 'a | b | c' | cat f | '\nthen 2>&1 ",
        ] {
            let (fast, exact) = (analyze(line), crate::shell::analyze_exact(line));
            assert_eq!(fast, exact, "{line:?}");
            // `r` is R, which reads its code from the pipe: that opacity
            // is the interpreter's, not the routes'.
            assert!(
                fast.opaque
                    .iter()
                    .all(|o| o.kind == crate::shell::OpaqueKind::ShellFromStdin
                        && o.detail.starts_with("`r`")),
                "{line:?}: {:?}",
                fast.opaque
            );
        }
        // The grammar refuses an assignment before a `|`; both routes say so.
        // The grammar once dropped a word here; the line is reported.
        let line = "s|s|x= <- - x= -";
        assert_eq!(analyze(line), crate::shell::analyze_exact(line));
        // Backticks inside a word: the program is computed, alike both ways.
        let line = "`''X|X|n`-`s&&r`-";
        assert_eq!(analyze(line), crate::shell::analyze_exact(line));
        let line = "ls |lptring=|lll";
        let (fast, exact) = (analyze(line), crate::shell::analyze_exact(line));
        assert_eq!(fast, exact);
        assert!(fast.has_opaque(crate::shell::OpaqueKind::ParseError));
    }

    #[test]
    fn a_nul_byte_makes_the_line_opaque_and_parses_alike_on_both_routes() {
        let line = "> /a\0>v x /d >y rm -rf / | cat | cat";
        let analysis = analyze(line);
        assert!(analysis.has_opaque(crate::shell::OpaqueKind::ParseError));
        assert_eq!(analysis, crate::shell::analyze_exact(line));
    }

    #[test]
    fn non_ascii_text_is_kept_in_words_and_never_separates_them() {
        let analysis = analyze("ｒｍ -rf /; caf\u{e9} --x\u{2003}y \"\u{1f600}\"");
        let programs: Vec<&str> = analysis.programs().collect();
        assert_eq!(programs, ["ｒｍ", "caf\u{e9}"]);
        // U+2003 is not a blank to bash: one word.
        assert_eq!(analysis.commands[1].args, ["--x\u{2003}y", "\u{1f600}"]);
        assert!(!analysis.is_opaque());
    }
}
