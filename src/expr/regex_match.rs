//! CEL's `matches()`, built for how hook-policy calls it.
//!
//! The CEL library compiles the pattern on every call. A one-call plugin
//! process evaluates each pattern about once, on a short text, and the
//! compilation was the largest single cost of a shell hook call with the
//! recommended packs (2.8 M of 6.0 M instructions for one 40-alternative
//! pattern, BENCHMARKS.md). So the first time a pattern is used on a short
//! text, only what a yes/no answer on a short text needs is built: the
//! pattern's forward automaton, searched by backtracking or the PikeVM, with
//! no literal prefilter, no reverse automaton and no lazy DFA. Every regex
//! engine of the crate gives the same yes/no answer; they differ in speed
//! only, and these are the fastest to build (and when every match of the
//! pattern is longer than the text, nothing is built). A pattern met again, or on a
//! long text, gets the full regex, and a process keeps what it built, so a
//! long-running server compiles each pattern once instead of per request.
//!
//! Syntax, size limits and error messages are those of `regex::Regex::new`,
//! which the library used.
//!
//! Even the parse that finds "every match is longer than the text" cost
//! 0.94 M instructions per call for the packs' credential pattern (run on
//! the empty list of a `tail`'s file arguments). The prepared cache
//! (src/cache.rs) therefore stores, for each pattern literal of a hook's
//! conditions, that shortest match length ([`shortest_matches`]), and a
//! process that read it ([`know_shortest`]) answers such calls without
//! parsing: exactly the answer the lean path gives, which is only taken
//! for patterns that parse and stay surely within the size limit.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBool, CelString};
use cel::ExecutionError;
use regex_automata::meta;
use regex_automata::util::syntax;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Texts up to this length are searched with the lean build.
const SHORT_TEXT: usize = 4096;

/// How many patterns a process keeps; past it the cache starts over (a
/// pattern taken from the payload must not grow it without bound).
const MAX_KEPT: usize = 512;

#[derive(Clone)]
enum Built {
    /// Built for one short text: used once, then replaced by the full regex.
    Lean(Arc<meta::Regex>),
    Full(Arc<regex::Regex>),
}

fn kept() -> &'static Mutex<HashMap<String, Built, PatternHash>> {
    static KEPT: std::sync::OnceLock<Mutex<HashMap<String, Built, PatternHash>>> =
        std::sync::OnceLock::new();
    KEPT.get_or_init(Default::default)
}

/// Hashes a pattern by its length and its first and last bytes only.
/// The packs' patterns are long (the credential pattern is 1.5 kB), and
/// hashing all of it for every `matches` call of a warm decision cost 2,400
/// instructions a call. Keys are still compared whole, so a lookup finds
/// exactly the pattern asked for; patterns alike at both ends only share a
/// bucket, and the map holds at most [`MAX_KEPT`]. The hasher is std's,
/// randomly keyed.
#[derive(Default, Clone)]
struct PatternHash(std::collections::hash_map::RandomState);

/// How many bytes of each end of a pattern are hashed.
const HASHED_END: usize = 48;

impl std::hash::BuildHasher for PatternHash {
    type Hasher = EndsHasher;

    fn build_hasher(&self) -> EndsHasher {
        EndsHasher(self.0.build_hasher())
    }
}

struct EndsHasher(std::collections::hash_map::DefaultHasher);

impl std::hash::Hasher for EndsHasher {
    fn finish(&self) -> u64 {
        self.0.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        if bytes.len() <= 2 * HASHED_END {
            self.0.write(bytes);
        } else {
            self.0.write_usize(bytes.len());
            self.0.write(&bytes[..HASHED_END]);
            self.0.write(&bytes[bytes.len() - HASHED_END..]);
        }
    }
}

/// `text.matches(pattern)`.
pub fn matches(text: &CelString<'_>, pattern: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    is_match(text.inner(), pattern.inner()).map(CelBool::from)
}

pub fn is_match(text: &str, pattern: &str) -> Result<bool, ExecutionError> {
    let seen = kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(pattern)
        .cloned();
    if seen.is_none() && known_too_short(text, pattern) {
        // What `lean` answers (`TooShort`), known without parsing.
        return Ok(false);
    }
    let built = match seen {
        Some(Built::Full(re)) => return Ok(re.is_match(text)),
        // A second use: this process will likely use it again.
        Some(Built::Lean(_)) => Built::Full(Arc::new(full(pattern)?)),
        None if text.len() <= SHORT_TEXT => match lean(pattern, text.len()) {
            Lean::Built(re) => Built::Lean(Arc::new(re)),
            // No automaton to keep, but the length: a later text shorter
            // than it gets the same answer without a parse (which cost a
            // warm process 0.94 M instructions per call for the packs'
            // credential pattern on a `tail`'s empty argument list).
            Lean::TooShort(min) => {
                remember_shortest(pattern, min);
                return Ok(false);
            }
            // What the lean build refuses, the full one reports in its words.
            Lean::Refused => Built::Full(Arc::new(full(pattern)?)),
        },
        None => Built::Full(Arc::new(full(pattern)?)),
    };
    let found = match &built {
        Built::Lean(re) => re.is_match(text),
        Built::Full(re) => re.is_match(text),
    };
    let mut map = kept().lock().unwrap_or_else(|e| e.into_inner());
    if map.len() >= MAX_KEPT {
        map.clear();
    }
    map.insert(pattern.to_string(), built);
    Ok(found)
}

/// Shortest match lengths from a prepared entry: only patterns for which
/// `lean` answers `TooShort` on shorter texts (see [`shortest_match`]).
/// Kept as the entry's JSON until a pattern is evaluated: most calls
/// evaluate none, and reading 60 patterns costs a tenth of a million
/// instructions.
#[derive(Default)]
struct Known {
    lengths: HashMap<String, u64>,
    unread: Vec<Vec<u8>>,
}

fn known() -> &'static Mutex<Known> {
    static KNOWN: std::sync::OnceLock<Mutex<Known>> = std::sync::OnceLock::new();
    KNOWN.get_or_init(Default::default)
}

/// A short text is known to be shorter than every match of `pattern`.
fn known_too_short(text: &str, pattern: &str) -> bool {
    if text.len() > SHORT_TEXT {
        return false;
    }
    let mut known = known().lock().unwrap_or_else(|e| e.into_inner());
    for json in std::mem::take(&mut known.unread) {
        // Unreadable (the entry passed its checksum, so not expected):
        // no shortcut, the pattern is parsed as without a cache.
        if let Ok(lengths) = serde_json::from_slice::<Vec<(String, u64)>>(&json) {
            if known.lengths.len() >= MAX_KEPT {
                known.lengths.clear();
            }
            known.lengths.extend(lengths);
        }
    }
    known
        .lengths
        .get(pattern)
        .is_some_and(|&min| min > text.len() as u64)
}

/// Keeps a shortest match length [`lean`] found, as [`know_shortest`] does.
fn remember_shortest(pattern: &str, min: u64) {
    let mut known = known().lock().unwrap_or_else(|e| e.into_inner());
    if known.lengths.len() >= MAX_KEPT {
        known.lengths.clear();
    }
    known.lengths.insert(pattern.to_string(), min);
}

/// Makes `is_match` answer `false` without parsing for texts shorter than
/// each pattern's length: `json` is a list of `[pattern, length]` pairs
/// whose lengths come from [`shortest_match`] of this same executable
/// (the cache key holds its identity).
pub fn know_shortest(json: Vec<u8>) {
    let mut known = known().lock().unwrap_or_else(|e| e.into_inner());
    known.unread.push(json);
}

/// The length in bytes every match of `pattern` has at least (`u64::MAX`:
/// it matches nothing), when `is_match` on any shorter text up to 4 KiB
/// answers `false` without an error; `None` when that is not known (a
/// pattern that does not parse, may exceed the size limit, or can match
/// the empty text).
pub fn shortest_match(pattern: &str) -> Option<u64> {
    // Most patterns are read without regex-syntax (a tenth of the cost):
    // see `plain_pattern`, whose answer is the parse's.
    match super::plain_pattern::shortest(pattern) {
        Some(plain) if plain.size <= SURELY_SMALL => (plain.min > 0).then_some(plain.min),
        _ => parsed_shortest_match(pattern),
    }
}

/// [`shortest_match`] as regex-syntax reads the pattern.
pub(crate) fn parsed_shortest_match(pattern: &str) -> Option<u64> {
    let hir = syntax::parse_with(pattern, &syntax::Config::new().utf8(true)).ok()?;
    if size_bound(&hir) > SURELY_SMALL {
        return None;
    }
    match hir.properties().minimum_len() {
        None => Some(u64::MAX),
        Some(0) => None,
        Some(min) => Some(min as u64),
    }
}

/// The pattern literals of `matches` calls in a condition (method or
/// function form), each with its [`shortest_match`] where one is known.
pub fn shortest_matches(expr: &IdedExpr, into: &mut Vec<(String, u64)>) {
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match &e.expr {
            Expr::Call(call) => {
                let pattern = match (&call.target, call.args.as_slice()) {
                    (Some(_), [p]) | (None, [_, p]) if call.func_name == "matches" => Some(p),
                    _ => None,
                };
                if let Some(Expr::Literal(LiteralValue::String(p))) = pattern.map(|p| &p.expr) {
                    let p = p.inner();
                    if !into.iter().any(|(known, _)| known == p) {
                        if let Some(min) = shortest_match(p) {
                            into.push((p.to_string(), min));
                        }
                    }
                }
                stack.extend(call.target.as_deref());
                stack.extend(&call.args);
            }
            Expr::Comprehension(c) => stack.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ]),
            Expr::List(list) => stack.extend(&list.elements),
            Expr::Select(s) => stack.push(&s.operand),
            Expr::Map(m) => {
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        stack.extend([&me.key, &me.value]);
                    }
                }
            }
            Expr::Struct(st) => {
                for entry in &st.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        stack.push(&f.value);
                    }
                }
            }
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
}

fn full(pattern: &str) -> Result<regex::Regex, ExecutionError> {
    regex::Regex::new(pattern).map_err(|err| ExecutionError::FunctionError {
        function: "matches".to_string(),
        message: format!("'{pattern}' not a valid regex:\n{err}"),
    })
}

enum Lean {
    Built(meta::Regex),
    /// Every match of the pattern is longer than the text: the shortest
    /// match length, as [`shortest_match`] gives it.
    TooShort(u64),
    Refused,
}

/// Automata estimated up to this size are far below the 10 MiB limit (the
/// estimate is about three times the real size or more).
pub(crate) const SURELY_SMALL: u64 = 4 << 20;

/// An upper bound of the size of the pattern's automaton, in bytes, well
/// above the real one: 1 KiB per class range (measured: 50-350 bytes; `\w`
/// is 770 ranges and 41 KiB), 64 bytes per literal byte, repetitions
/// counted in full.
pub(crate) fn size_bound(hir: &regex_syntax::hir::Hir) -> u64 {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 64,
        HirKind::Literal(literal) => 64 * literal.0.len() as u64 + 64,
        HirKind::Class(Class::Unicode(c)) => 1024 * c.ranges().len() as u64 + 64,
        HirKind::Class(Class::Bytes(c)) => 1024 * c.ranges().len() as u64 + 64,
        HirKind::Repetition(r) => {
            let copies = u64::from(r.max.unwrap_or(r.min).max(r.min)) + 1;
            size_bound(&r.sub).saturating_mul(copies)
        }
        HirKind::Capture(c) => size_bound(&c.sub).saturating_add(64),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            parts.iter().map(size_bound).fold(64, u64::saturating_add)
        }
    }
}

/// The configuration `regex::Regex::new` uses (regex 1.x `Builder`), minus
/// the engines that only make searches faster; and no automaton at all when
/// every match is longer than the text (`[^/]+\.pem$` on an empty list of
/// arguments): the pattern is parsed, and its shortest match length read.
fn lean(pattern: &str, text_len: usize) -> Lean {
    let Ok(hir) = syntax::parse_with(pattern, &syntax::Config::new().utf8(true)) else {
        return Lean::Refused;
    };
    // Only patterns whose automata surely stay within the size limit: one
    // past it is an error, which a lean answer must not turn into a yes or
    // no (and the full build's reverse automaton can be the larger one).
    if size_bound(&hir) > SURELY_SMALL {
        return Lean::Refused;
    }
    // In bytes, like `text_len`; `None`: the pattern matches nothing.
    match hir.properties().minimum_len() {
        None => return Lean::TooShort(u64::MAX),
        Some(min) if min > text_len => return Lean::TooShort(min as u64),
        Some(_) => {}
    }
    let config = meta::Config::new()
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(true)
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(2 * (1 << 20))
        .auto_prefilter(false)
        .onepass(false)
        .hybrid(false)
        .dfa(false)
        .which_captures(regex_automata::nfa::thompson::WhichCaptures::Implicit);
    match meta::Builder::new()
        .configure(config)
        .syntax(syntax::Config::new().utf8(true))
        .build_from_hir(&hir)
    {
        Ok(re) => Lean::Built(re),
        Err(_) => Lean::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lean build answers as `regex::Regex` does, on patterns of the
    /// shipped packs' kinds (alternations, classes, anchors, `(?i)`, `(?m)`,
    /// Unicode classes) and texts around their edges.
    #[test]
    fn lean_and_full_agree() {
        let patterns = [
            r"(?m)(^|/)\.env([.*_-][^/]*)?$|(^|/)\.envrc$|\.(pem|key)$",
            r"(?i)(example|sample|template)$|\.pub$",
            r">\|?\s*/dev/(sd[a-z]|nvme[0-9])",
            r"^\w+\s+\d{2,}$",
            r"\bword\b",
            r"^$",
            r"a*",
            r"(?i)straße",
            r"[^/]+/[^/]+$",
            r"\b",
            r"(?m)^$",
            r"x{3,}|[^\x00-\x{10FFFF}]",
            r"é",
        ];
        let texts = [
            "",
            "a",
            ".env",
            "src/.env.local",
            "x.pem\ny",
            "FOO.EXAMPLE",
            "k.pub",
            "echo > /dev/sda",
            "echo >| /dev/nvme0",
            "abc 12",
            "a word here",
            "swordfish",
            "STRASSE",
            "straße",
            "a/b",
            "/",
            "é/ü",
            "\u{0}",
            "line1\n.envrc",
        ];
        for p in patterns {
            let reference = regex::Regex::new(p).unwrap();
            for t in texts {
                let ours = match lean(p, t.len()) {
                    Lean::Built(re) => re.is_match(t),
                    Lean::TooShort(_) => false,
                    Lean::Refused => panic!("{p:?} refused"),
                    // (none of these is refused: see the test below for which are)
                };
                assert_eq!(ours, reference.is_match(t), "{p:?} on {t:?}");
            }
        }
    }

    /// A pattern whose automaton is too big fails as it did, even on a
    /// text shorter than any match (no shortcut to `false`).
    #[test]
    fn patterns_past_the_size_limit_still_fail() {
        for pattern in [
            r"\w".repeat(300),
            r"\pL".repeat(300),
            r"\d{3000}".to_string(),
        ] {
            assert!(regex::Regex::new(&pattern).is_err(), "{pattern}");
            assert!(matches!(lean(&pattern, 0), Lean::Refused), "{pattern}");
            assert!(is_match("", &pattern).is_err(), "{pattern}");
        }
        // The packs' credential pattern is small enough for the shortcut.
        let secrets = r"(?m)(^|/)\.env([.*_-][^/]*)?$|(^|/)\.envrc$|/\.(ssh|aws|gnupg|password-store|azure)(/|$)|/\.config/gcloud(/|$)|/id_(rsa|ed25519|ecdsa|dsa)[^/]*$|\.(pem|key|p12|pfx|jks|keystore|ppk)$|/\.kube/config$|/\.docker/config\.json$|/[._]netrc$|/\.pypirc$|^/(root|home/[^/]+|Users/[^/]+)/\.npmrc$|/\.git-credentials$|\.tfstate(\.backup)?$|service[-_]?account[^/]*\.json$|^/etc/(g?shadow-?|master\.passwd)$|^/proc/[^/]+/environ$|/\.[a-z_]*history$";
        assert!(matches!(lean(secrets, 0), Lean::TooShort(_)));
        assert!(matches!(lean(secrets, 10), Lean::Built(_)));
    }

    #[test]
    fn bad_patterns_fail_in_the_library_words() {
        let err = is_match("x", "(foo").unwrap_err();
        assert_eq!(
            err,
            ExecutionError::FunctionError {
                function: "matches".into(),
                message: "'(foo' not a valid regex:\nregex parse error:\n    (foo\n    ^\nerror: unclosed group".into()
            }
        );
    }

    #[test]
    fn a_pattern_used_again_keeps_its_answers() {
        for _ in 0..3 {
            assert_eq!(is_match("abc.pem", r"\.pem$"), Ok(true));
            assert_eq!(is_match("abc.pen", r"\.pem$"), Ok(false));
        }
        let long = "x".repeat(SHORT_TEXT + 1) + ".pem";
        assert_eq!(is_match(&long, r"\.pem$"), Ok(true));
    }

    /// Patterns of the packs' kinds, and edge cases of minimum lengths:
    /// empty matches, nothing matchable, multi-byte characters, `(?i)`
    /// (where `K` can match the 3-byte Kelvin sign), anchors, repetitions.
    const KINDS: [&str; 16] = [
        r"(?m)(^|/)\.env([.*_-][^/]*)?$|(^|/)\.envrc$|\.(pem|key)$",
        r"(?mi)/\.(ssh|aws)(/|$)|\.tfstate(\.backup)?$|^/etc/(g?shadow-?)$",
        r"(?i)k{2}",
        r"é{2,}",
        r"[^\x00-\x{10FFFF}]",
        r"^$",
        r"a*",
        r"\b",
        r"ab|c",
        r"x{3}\d",
        r"(?-u:\w)x",
        r"\pL{2}",
        r"^/proc/[^/]+/environ$",
        r"[ab]c?d",
        r"(?s).{3}",
        r"\.pem$|\.key$",
    ];

    /// A deterministic stream of short texts over an alphabet that
    /// reaches the patterns' literals and their multi-byte edges.
    fn texts(count: usize) -> Vec<String> {
        let alphabet = [
            "", "a", "b", "c", "d", "k", "K", "\u{212A}", "é", "x", "1", "/", ".", "\n", "env",
            "pem", "ssh", "proc", "environ", "etc", "shadow", "é", "ß",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let parts = (next() % 5) as usize;
                (0..parts)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    /// With the lengths a prepared entry stores, `is_match` answers as
    /// `regex::Regex` does on random texts, and every text shorter than a
    /// stored length is one no match fits in.
    #[test]
    fn stored_shortest_lengths_answer_as_the_full_regex() {
        let mut stored = Vec::new();
        for p in KINDS {
            if let Some(min) = shortest_match(p) {
                stored.push((p.to_string(), min));
            }
        }
        // Those that can match the empty text have no useful length.
        for p in [r"^$", r"a*", r"\b"] {
            assert!(shortest_match(p).is_none(), "{p}");
        }
        assert_eq!(shortest_match(r"[^\x00-\x{10FFFF}]"), Some(u64::MAX));
        assert_eq!(shortest_match(r"(?i)k{2}"), Some(2));
        know_shortest(serde_json::to_vec(&stored).unwrap());
        let references: Vec<regex::Regex> = KINDS
            .iter()
            .map(|p| regex::Regex::new(p).unwrap())
            .collect();
        let mut shortcuts = 0;
        for t in texts(4000) {
            for (p, reference) in KINDS.iter().zip(&references) {
                let expected = reference.is_match(&t);
                if known_too_short(&t, p) {
                    assert!(!expected, "{p:?} on {t:?}");
                    shortcuts += 1;
                }
                assert_eq!(is_match(&t, p).unwrap(), expected, "{p:?} on {t:?}");
            }
        }
        assert!(shortcuts > 1000, "only {shortcuts} texts were short");
    }

    /// A warm process parses a pattern once even when every text it meets
    /// is too short for it: the length found is kept, the same one a
    /// prepared entry would store, and longer texts still get the regex.
    #[test]
    fn a_pattern_longer_than_its_texts_is_parsed_once() {
        let p = r"/\.kept-by-this-test/[a-z]{4}$";
        assert!(!known_too_short("", p));
        assert_eq!(is_match("", p), Ok(false));
        assert!(known_too_short("", p), "the length is kept");
        let min = shortest_match(p).unwrap() as usize;
        assert!(known_too_short(&"x".repeat(min - 1), p));
        assert!(!known_too_short(&"x".repeat(min), p));
        assert_eq!(is_match("a/.kept-by-this-test/abcd", p), Ok(true));
        assert_eq!(is_match("a/.kept-by-this-test/abc", p), Ok(false));
    }

    /// Nothing is stored for a pattern whose error must still be reported:
    /// bad syntax, or an automaton that may pass the size limit.
    #[test]
    fn no_length_for_patterns_that_fail() {
        for pattern in [
            "(foo".to_string(),
            r"\w".repeat(300),
            r"\d{3000}".to_string(),
        ] {
            assert_eq!(shortest_match(&pattern), None, "{pattern}");
        }
        // Even if a length were stored for one, the answer on a long-enough
        // text is still the library's error: the shortcut only says `false`.
        assert!(is_match("", "(foo").is_err());
    }

    /// The literals of `matches` calls are found in method and function
    /// form, inside macros, lists and maps; other strings are not taken.
    #[test]
    fn pattern_literals_of_a_condition() {
        let expr = crate::expr::parse_fast(
            r#"payload.command.matches('x{3}') || matches(payload.path, 'ab|c')
               || payload.args.exists(a, a.matches(r'\.pem$|\.key$'))
               || [ 'q'.matches('^/proc/[^/]+/environ$') ][0]
               || {'k': 'v'.matches('[ab]c?d')}['k']
               || payload.command.matches('a*') || payload.command.contains('nope')
               || payload.command.matches(payload.pattern)
               || payload.command.matches('x{3}')"#,
        )
        .unwrap();
        let mut found = Vec::new();
        shortest_matches(&expr, &mut found);
        found.sort();
        let want: Vec<(String, u64)> = vec![
            ("[ab]c?d".into(), 2),
            (r"\.pem$|\.key$".into(), 4),
            ("^/proc/[^/]+/environ$".into(), 15),
            ("ab|c".into(), 1),
            ("x{3}".into(), 3),
        ];
        let mut want = want;
        want.sort();
        assert_eq!(found, want);
    }
}
