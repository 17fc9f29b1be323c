//! Paths a command must not change, and whether a write touches them.
//!
//! A write reaches a guarded file not only by naming it: deleting or
//! moving a directory that holds it (`rm -rf ~/.claude`, `mv .github x`),
//! linking to it or to such a directory (`ln -s ~ h`, then writing through
//! `h`), copying into the directory that holds it (`cp evil.json
//! ~/.claude`), or a glob that matches it (`rm ~/.cl*/s*`) all do. The
//! check takes a written path (lexically normalised, see
//! `shell::targets::resolve`) and what kind of write it is:
//!
//! - a path acted on as a whole (deleted, moved, linked, written): it
//!   touches a guarded path if a glob matches it, or if it is a directory
//!   holding a guarded pattern's literal part (`~/.claude` holds
//!   `~/.claude/settings.json`);
//! - a directory whose contents are acted on (find's starting point, a
//!   copy or extraction destination): it touches a guarded path if it lies
//!   inside one, or is the directory that holds a guarded file;
//! - a pattern in a directory: its components are matched against the
//!   guarded path's with bash's rules (a leading dot is only matched by a
//!   pattern that writes it, unless the line sets `dotglob`).
//!
//! Everything is compared in ASCII lower case: on macOS and Windows
//! `~/.Claude/Settings.json` is the same file. Patterns starting with `**/`
//! match at any depth but have no literal part, so they never make a
//! directory a holder (`**/x` would make every directory one).
//!
//! The globs are compiled per written path, only those whose literal runs
//! the path holds (see `ExpandedGlobs`): a line writes one or two paths,
//! and compiling the whole set for every call was most of the cost of a
//! dangerous line. Everything that could make the whole set fail to build
//! is found when the guard is made, so a guard that is made answers every
//! path exactly as the whole set would.

use super::glob::ExpandedGlobs;
use super::lexical::{absolute_without_context, is_normalized};
use super::{normalize, PathGlobSet, PathPatternError};

/// How many written paths get a glob set of their own before the whole set
/// is built: a plugin call writes one or two, a server decides line after
/// line with the same guard.
const PER_PATH_SETS: usize = 16;

/// Guarded path globs, for one project root and home.
#[derive(Debug)]
pub struct GuardedPaths {
    root: String,
    home: Option<String>,
    /// The globs (in lower case), expanded and checked.
    globs: ExpandedGlobs,
    /// The whole set, when there are too many globs to build per path.
    whole: Option<PathGlobSet>,
    /// Paths asked about with sets of their own so far; past
    /// `PER_PATH_SETS`, the whole set is built once and kept (a server
    /// decides many lines with one guard).
    asked: std::sync::atomic::AtomicUsize,
    per_path_sets: usize,
    kept: std::sync::OnceLock<Result<PathGlobSet, PathPatternError>>,
    /// The literal part of each pattern (absolute, lower case), and whether
    /// it is a whole file name (no glob in the pattern).
    prefixes: Vec<(String, bool)>,
}

impl GuardedPaths {
    pub fn new(
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
    ) -> Result<GuardedPaths, PathPatternError> {
        Self::build(patterns, root, home, false)
    }

    /// `whole`: compile the whole set now, even when per-path sets are
    /// possible (the reference the per-path sets are tested against).
    fn build(
        patterns: &[&str],
        root: &str,
        home: Option<&str>,
        whole: bool,
    ) -> Result<GuardedPaths, PathPatternError> {
        let lower: Vec<String> = patterns.iter().map(|p| p.to_ascii_lowercase()).collect();
        let lower_refs: Vec<&str> = lower.iter().map(String::as_str).collect();
        let root = root.to_ascii_lowercase();
        let home = home.map(str::to_ascii_lowercase);
        let globs = ExpandedGlobs::new(&lower_refs, home.as_deref())?;
        let whole = (whole || !globs.narrowable())
            .then(|| globs.set(&root, home.as_deref(), None))
            .transpose()?;
        let root_abs = absolute_without_context(&root);
        let home_abs = home.as_deref().map(absolute_without_context);
        let prefixes = lower
            .iter()
            .filter(|p| !p.starts_with("**"))
            .filter_map(|p| {
                let literal_end = p.find(['*', '?', '[', '{']).unwrap_or(p.len());
                let literal = &p[..literal_end];
                let literal = match literal.rfind('/') {
                    Some(_) if literal_end < p.len() => &literal[..literal.rfind('/')?],
                    _ => literal,
                };
                if literal.is_empty() || literal.starts_with('~') && home.is_none() {
                    return None;
                }
                let whole_file = literal_end == p.len() && !p.ends_with('/');
                let path = literal_path(literal, &root_abs, home_abs.as_deref())
                    .unwrap_or_else(|| normalize(literal, &root, home.as_deref()));
                Some((path, whole_file))
            })
            .collect();
        Ok(GuardedPaths {
            root,
            home,
            globs,
            whole,
            asked: Default::default(),
            per_path_sets: PER_PATH_SETS,
            kept: Default::default(),
            prefixes,
        })
    }

    /// Whether writing `path` touches a guarded path. `contents`: the write
    /// changes what lies inside the directory `path`; `rest`: for a
    /// pattern, what follows the directory `path` (empty otherwise).
    pub fn touches(&self, path: &str, contents: bool, rest: &str, dotglob: bool) -> bool {
        let path = path.to_ascii_lowercase();
        if rest.is_empty() {
            // The literal parts first: they need no glob compiled, and
            // decide the dangerous lines (`rm -rf /`, `rm -rf ~`).
            let held = self.prefixes.iter().any(|(guarded, whole_file)| {
                if contents {
                    is_within(&path, guarded) || (*whole_file && parent(guarded) == path)
                } else {
                    is_within(guarded, &path)
                }
            });
            return held || self.glob_matches(&path);
        }
        let rest = rest.to_ascii_lowercase();
        let pattern: Vec<&str> = rest.split('/').filter(|c| !c.is_empty()).collect();
        self.prefixes.iter().any(|(guarded, _)| {
            if is_within(&path, guarded) {
                return true;
            }
            if !is_within(guarded, &path) {
                return false;
            }
            let below = guarded[path.len()..].trim_start_matches('/');
            below
                .split('/')
                .filter(|c| !c.is_empty())
                .zip(&pattern)
                .all(|(name, glob)| component_matches(glob, name, dotglob))
        })
    }

    /// Whether a guarded glob matches `path` (lower case).
    fn glob_matches(&self, path: &str) -> bool {
        if let Some(set) = &self.whole {
            return set.matches(path).is_some();
        }
        let asked = self
            .asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let set = if asked < self.per_path_sets {
            self.globs.set(&self.root, self.home.as_deref(), Some(path))
        } else {
            let kept = self
                .kept
                .get_or_init(|| self.globs.set(&self.root, self.home.as_deref(), None));
            return match kept {
                Ok(set) => set.matches(path).is_some(),
                Err(_) => true,
            };
        };
        match set {
            Ok(set) => set.matches(path).is_some(),
            // Cannot happen: every glob compiled when the guard was made,
            // and the set is within the narrowing bound. Were it to, the
            // write is taken as touching a guarded path.
            Err(_) => true,
        }
    }
}

/// What `normalize(literal, root, home)` gives, when the literal spelled
/// out against the normalised root or home is already normal (as every
/// shipped guarded path is); `None` otherwise. This runs for every pattern
/// of every call that writes, and normalising walks every component.
fn literal_path(literal: &str, root_abs: &str, home_abs: Option<&str>) -> Option<String> {
    // A `file:` URL, another user's `~name`, or no home: the full walk.
    if literal.contains(':') {
        return None;
    }
    let spelled = if let Some(rest) = literal.strip_prefix('~') {
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        format!("{}{rest}", home_abs?)
    } else if literal.starts_with('/') {
        literal.to_string()
    } else {
        format!("{root_abs}/{literal}")
    };
    is_normalized(&spelled).then_some(spelled)
}

/// Containment of two normalised absolute paths by whole components,
/// without normalising them again (this runs for every written path).
fn is_within(path: &str, dir: &str) -> bool {
    dir == "/"
        || path == dir
        || path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// The directory holding `path` (`/` for a top-level name).
fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(at) => &path[..at],
    }
}

/// One pattern component against one name, as bash globs it.
fn component_matches(glob: &str, name: &str, dotglob: bool) -> bool {
    if name.starts_with('.') && !glob.starts_with('.') && !dotglob {
        return false;
    }
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(name))
        // A pattern that does not compile may still match: assume it does.
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{prop_oneof, Just, Strategy};

    fn guard() -> GuardedPaths {
        GuardedPaths::new(
            &[
                "~/.claude/settings.json",
                ".claude/settings.json",
                ".github/hooks/*.json",
                "~/.local/share/hook-policy/**",
                "**/.cursor/hooks.json",
            ],
            "/home/u/proj",
            Some("/home/u"),
        )
        .expect("valid globs")
    }

    #[test]
    fn a_guarded_file_its_holders_and_case_variants_are_touched() {
        let g = guard();
        for path in [
            "/home/u/.claude/settings.json",
            "/home/u/.CLAUDE/Settings.JSON",
            "/home/u/.claude",
            "/home/u",
            "/",
            "/home/u/proj/.claude",
            "/home/u/proj/.github/hooks/hook-policy.json",
            "/home/u/proj/.github",
            "/home/u/.local/share/hook-policy/policy",
            "/home/u/.local/share/hook-policy",
            "/home/u/other/.cursor/hooks.json",
        ] {
            assert!(g.touches(path, false, "", false), "{path}");
        }
        for path in [
            "/home/u/.claude/projects",
            "/home/u/proj/src",
            "/home/u/proj/.github/workflows/ci.yml",
            "/home/u/.local/share/other",
            "/home/u/other/.cursor",
            "/tmp/x",
        ] {
            assert!(!g.touches(path, false, "", false), "{path}");
        }
    }

    #[test]
    fn contents_touch_only_the_directory_holding_a_guarded_file() {
        let g = guard();
        assert!(g.touches("/home/u/.claude", true, "", false));
        assert!(g.touches("/home/u/.local/share/hook-policy", true, "", false));
        assert!(g.touches("/home/u/.local/share/hook-policy/x", true, "", false));
        assert!(!g.touches("/home/u/proj", true, "", false));
        assert!(!g.touches("/home/u", true, "", false));
    }

    /// The `writes` globs of each shipped rule that has them (the guard
    /// pack's hook settings, system and shell startup files, git's own
    /// files), read from the packs compiled into the binary: one list per
    /// rule, as each rule builds its own guard.
    fn shipped_writes() -> Vec<Vec<String>> {
        use crate::load::tree::Value;
        let mut out = Vec::new();
        for pack in crate::packs::shipped() {
            let Some(Value::Seq(rules)) =
                pack.tree().and_then(|t| t.get("rules")).map(|r| &r.value)
            else {
                continue;
            };
            for rule in rules {
                if let Some(Value::Seq(globs)) = rule
                    .get("shell")
                    .and_then(|s| s.get("writes"))
                    .map(|w| &w.value)
                {
                    out.push(
                        globs
                            .iter()
                            .filter_map(|g| g.as_str().map(str::to_string))
                            .collect(),
                    );
                }
            }
        }
        assert!(
            out.iter().any(|globs: &Vec<String>| globs.len() > 20),
            "the guard pack's globs were found"
        );
        out
    }

    /// Globs of every kind the matcher accepts, for the same comparison.
    const SYNTHETIC: &[&str] = &[
        "(?i)**/.env",
        "(?i)~/.ssh/**",
        "~/.config/*/token",
        "/etc/",
        "target/",
        "src/**/*.rs",
        ".github/hooks/[a-c]*.json",
        "**/{a,b}.toml",
        "docs/x\\*y",
        "?.key",
        "/opt/**/hooks/*.json",
        "/Library/Application Support/X/**",
        "**",
    ];

    /// The (root, home) pairs compared: ordinary, at `/`, upper case,
    /// glob characters and a backslash in the home, a long home, no home.
    fn places() -> Vec<(String, Option<String>)> {
        let mut places: Vec<(String, Option<String>)> = [
            ("/home/u/proj", Some("/home/u")),
            ("/", Some("/root")),
            ("/Home/U/Proj", Some("/Home/U")),
            ("/tmp/p[1]", Some("/tmp/we[ird{x}")),
            ("/srv/a\\b", Some("/home/a\\b")),
            ("/home/u/proj", Some("/home/u/")),
            ("/home/u/proj", None),
        ]
        .iter()
        .map(|(r, h)| (r.to_string(), h.map(str::to_string)))
        .collect();
        places.push(("/w".repeat(300), Some("/h".repeat(100))));
        places
    }

    /// Per (patterns, root, home): the guard as built for calls, and the
    /// guard with its whole set compiled up front (today's reference).
    struct Pair {
        globs: Vec<String>,
        root: String,
        home: Option<String>,
        /// Per path sets always, the kept whole set always, the whole set
        /// built up front.
        guards: Result<[GuardedPaths; 3], PathPatternError>,
    }

    fn pairs() -> &'static [Pair] {
        static PAIRS: std::sync::OnceLock<Vec<Pair>> = std::sync::OnceLock::new();
        PAIRS.get_or_init(|| {
            let synthetic: Vec<String> = SYNTHETIC.iter().map(|g| g.to_string()).collect();
            let mut pairs = Vec::new();
            for globs in shipped_writes().into_iter().chain([synthetic]) {
                let list: Vec<&str> = globs.iter().map(String::as_str).collect();
                for (root, home) in places() {
                    let narrow = GuardedPaths::new(&list, &root, home.as_deref());
                    let whole = GuardedPaths::build(&list, &root, home.as_deref(), true);
                    let guards = match (narrow, whole) {
                        (Ok(mut n), Ok(w)) => {
                            assert!(n.whole.is_none(), "narrowed for {root} {home:?}");
                            let mut kept = GuardedPaths::new(&list, &root, home.as_deref())
                                .expect("built once");
                            n.per_path_sets = usize::MAX;
                            kept.per_path_sets = 0;
                            Ok([n, kept, w])
                        }
                        (Err(n), Err(w)) => {
                            assert_eq!(n, w, "{root} {home:?}");
                            Err(n)
                        }
                        (n, w) => panic!(
                            "{root} {home:?}: built {} narrowed, {} whole",
                            n.is_ok(),
                            w.is_ok()
                        ),
                    };
                    pairs.push(Pair {
                        globs: globs.clone(),
                        root,
                        home,
                        guards,
                    });
                }
            }
            pairs
        })
    }

    /// Compares the two guards on one written path, as the matcher asks
    /// (a normalised path) and as given; returns whether it touched.
    fn same_answer(pair: &Pair, raw: &str, contents: bool, rest: &str, dotglob: bool) -> bool {
        let Pair {
            root, home, guards, ..
        } = pair;
        let Ok([narrow, kept, whole]) = guards else {
            return false;
        };
        let normalized = normalize(raw, root, home.as_deref());
        let mut touched = false;
        for path in [normalized.as_str(), raw]
            .into_iter()
            .filter(|p| p.starts_with('/'))
        {
            let want = whole.touches(path, contents, rest, dotglob);
            for (how, guard) in [("per path", narrow), ("kept", kept)] {
                assert_eq!(
                    guard.touches(path, contents, rest, dotglob),
                    want,
                    "{how}: {path:?} (contents {contents}, rest {rest:?}, dotglob {dotglob}) for root {root:?} home {home:?}"
                );
            }
            touched |= want;
        }
        touched
    }

    /// Paths built from each glob itself: what it matches (stars and
    /// classes filled in), in other cases, below and above it, with `..`,
    /// `~`, doubled slashes and glob characters kept as written.
    fn spellings_of(glob: &str, home: Option<&str>) -> std::collections::BTreeSet<String> {
        let body = glob.strip_prefix("(?i)").unwrap_or(glob);
        let filled = body
            .replace("**", "a/b")
            .replace('*', "x")
            .replace('?', "k")
            .replace("[a-c]", "b")
            .replace("{a,b}", "a")
            .replace("\\", "");
        let mut out = std::collections::BTreeSet::new();
        // The glob's own text, metacharacters and all, as a file name.
        out.insert(body.to_string());
        out.insert(body.to_ascii_uppercase());
        let text = filled;
        let parent = text.rsplit_once('/').map(|(d, _)| d.to_string());
        for variant in [
            text.clone(),
            text.to_ascii_uppercase(),
            format!("{text}/inner"),
            parent.unwrap_or_default(),
            format!("{text}.bak"),
            text.replacen('/', "//./", 2),
            format!("sub/../{text}"),
            format!("../{text}"),
            format!("{text}/.."),
        ] {
            if let Some(rest) = variant.strip_prefix("~/") {
                out.insert(format!("$HOME/{rest}"));
                if let Some(home) = home {
                    let last = home.rsplit('/').next().unwrap_or("");
                    out.insert(format!("{home}/../{last}/{rest}"));
                }
            }
            if !variant.starts_with(['/', '~']) {
                out.insert(format!("/elsewhere/{variant}"));
            }
            out.insert(variant);
        }
        out
    }

    /// The guard that compiles only the globs a path can match decides
    /// every spelling of every guarded glob exactly as the whole set does.
    #[test]
    fn narrowed_guards_decide_every_spelling_of_their_globs_as_the_whole_set() {
        let mut touched = 0;
        let mut asked = 0;
        // Ordinary, glob characters and a backslash in the home, long: the
        // generated paths below cover every place.
        let places = places().len();
        let chosen = |i: usize| [0, 3, 4, places - 1].contains(&(i % places));
        for (_, pair) in pairs().iter().enumerate().filter(|(i, _)| chosen(*i)) {
            for glob in &pair.globs {
                for path in spellings_of(glob, pair.home.as_deref()) {
                    for contents in [false, true] {
                        asked += 1;
                        touched += usize::from(same_answer(pair, &path, contents, "", false));
                    }
                    for rest in ["*", ".c*/s*", "*.json"] {
                        same_answer(pair, &path, true, rest, true);
                    }
                }
            }
        }
        // Most spellings name a guarded file: the comparison is not vacuous.
        assert!(touched * 3 > asked, "{touched} of {asked} touched");
    }

    fn component() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(".claude".to_string()),
            Just(".CLAUDE".to_string()),
            Just("settings.json".to_string()),
            Just("Settings.Local.JSON".to_string()),
            Just(".github".to_string()),
            Just("hooks".to_string()),
            Just("hook-policy.json".to_string()),
            Just(".codex".to_string()),
            Just("config.toml".to_string()),
            Just(".cursor".to_string()),
            Just(".local".to_string()),
            Just("share".to_string()),
            Just("hook-policy".to_string()),
            Just("etc".to_string()),
            Just("claude-code".to_string()),
            Just("Library".to_string()),
            Just("Application Support".to_string()),
            Just("home".to_string()),
            Just("u".to_string()),
            Just("proj".to_string()),
            Just(".".to_string()),
            Just("..".to_string()),
            Just("".to_string()),
            Just("~".to_string()),
            Just("*".to_string()),
            Just("**".to_string()),
            Just("?".to_string()),
            Just("[ab]".to_string()),
            Just("{a,b}".to_string()),
            Just("x\\y".to_string()),
            Just("a".repeat(4000)),
            "[a-zA-Z.\\-]{1,12}",
        ]
    }

    fn written_path() -> impl Strategy<Value = String> {
        (
            prop_oneof![
                Just(""),
                Just("/"),
                Just("~/"),
                Just("./"),
                Just("../"),
                Just("/home/u/"),
                Just("/home/u/proj/"),
                Just("/etc/"),
            ],
            proptest::collection::vec(component(), 0..7),
        )
            .prop_map(|(start, parts)| format!("{start}{}", parts.join("/")))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(512),
            ..Default::default()
        })]

        /// Generated written paths: the narrowed guard decides as the
        /// whole set, for every (root, home) and both glob lists.
        /// The shortcut for guarded literals names what `normalize` does.
        #[test]
        fn literal_paths_are_normalised_as_by_the_full_walk(
            literal in written_path(),
            place in 0..8usize,
        ) {
            let places = places();
            let (root, home) = &places[place % places.len()];
            let root_abs = absolute_without_context(root);
            let home_abs = home.as_deref().map(absolute_without_context);
            if let Some(fast) = literal_path(&literal, &root_abs, home_abs.as_deref()) {
                proptest::prop_assert_eq!(fast, normalize(&literal, root, home.as_deref()));
            }
        }

        #[test]
        fn narrowed_guards_decide_generated_paths_as_the_whole_set(
            path in written_path(),
            contents in proptest::bool::ANY,
            rest in prop_oneof![Just(String::new()), Just("*".to_string()), "[a-z.*]{1,6}(/[a-z.*]{1,6})?"],
            dotglob in proptest::bool::ANY,
        ) {
            for pair in pairs() {
                same_answer(pair, &path, contents, &rest, dotglob);
            }
        }
    }

    #[test]
    fn patterns_match_the_names_below_their_directory() {
        let g = guard();
        assert!(g.touches("/home/u", true, ".cl*/s*", false));
        assert!(g.touches("/home/u", true, ".c*", false));
        // `~/*` leaves `~/.claude` alone, but holds the project and its `.claude`.
        assert!(g.touches("/home/u", true, "*", false));
        assert!(!g.touches("/home/u/proj", true, "*", false));
        assert!(g.touches("/home/u/proj", true, "*", true));
        assert!(g.touches("/home/u/.claude", true, "*.json", false));
        assert!(!g.touches("/home/u/.claude", true, "*.md", false));
        assert!(!g.touches("/home/u/proj", true, "*.o", false));
    }
}
