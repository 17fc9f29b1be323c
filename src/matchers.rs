//! Structured matchers: the `shell:`, `url:`, `path:` and `content:` keys of
//! a rule. They read the hook's subject (see `catalogue::subject_field`)
//! through an analysis instead of text search, so a spelling an attacker
//! chooses (`sudo rm -fr`, `http://2130706433/`, `src/../../etc/passwd`)
//! does not change what is matched.
//!
//! A decision analyses each subject at most once, however many rules read
//! it: [`Subjects`] caches the shell analysis, URL classification and path
//! inspection of the payload at hand.

use crate::catalogue::{self, Subject};
use crate::model::{ContentMatch, PathMatch, ShellMatch, TargetClassName, UrlClassName, UrlMatch};
use crate::paths::{self, PathGlobSet};
use crate::shell::{self, ShellAnalysis, TargetClass};
use crate::url_class::{self, UrlClass, UrlInfo};
use regex::Regex;
use serde_json::Value as Json;
use std::cell::OnceCell;
use std::sync::Mutex;

/// Guarded paths compiled for one (project root, home) pair.
type GuardedFor = (String, Option<String>, paths::GuardedPaths);

thread_local! {
    /// The last command line analysed on this thread. One decision asks for
    /// the same line from the index, the `shell:` matchers and CEL functions
    /// such as `shellCommands()`; parsing it once is enough.
    static LAST_SHELL: std::cell::RefCell<Option<(String, std::rc::Rc<ShellAnalysis>)>> =
        const { std::cell::RefCell::new(None) };
}

/// [`shell::analyze`], remembering the last line analysed on this thread.
pub fn analyze_shell(line: &str) -> std::rc::Rc<ShellAnalysis> {
    LAST_SHELL.with(|last| {
        if let Some((text, analysis)) = &*last.borrow() {
            if text == line {
                return analysis.clone();
            }
        }
        let analysis = std::rc::Rc::new(shell::analyze(line));
        *last.borrow_mut() = Some((line.to_string(), analysis.clone()));
        analysis
    })
}

/// Forgets the remembered analysis, so the next decision parses its command
/// line again: benchmarks call it to measure a decision as a fresh process
/// (or a new command) would pay for it.
pub fn forget_last_shell() {
    LAST_SHELL.with(|last| *last.borrow_mut() = None);
}

/// The subjects of one payload, analysed on first use.
pub struct Subjects<'a> {
    payload: &'a Json,
    hook: &'a str,
    pub project_root: &'a str,
    pub home: Option<&'a str>,
    shell: OnceCell<Option<std::rc::Rc<ShellAnalysis>>>,
    url: OnceCell<Option<std::rc::Rc<UrlInfo>>>,
    path: OnceCell<Option<paths::PathInfo>>,
}

impl<'a> Subjects<'a> {
    pub fn new(
        payload: &'a Json,
        hook: &'a str,
        project_root: &'a str,
        home: Option<&'a str>,
    ) -> Self {
        Subjects {
            payload,
            hook,
            project_root,
            home,
            shell: OnceCell::new(),
            url: OnceCell::new(),
            path: OnceCell::new(),
        }
    }

    /// The subject's text, when this hook carries it and it is a string.
    pub fn text(&self, subject: Subject) -> Option<&'a str> {
        let path = catalogue::subject_field(self.hook, subject)?;
        let mut value = self.payload;
        for key in path {
            value = value.get(key)?;
        }
        value.as_str()
    }

    pub fn shell(&self) -> Option<&ShellAnalysis> {
        self.shell
            .get_or_init(|| self.text(Subject::Command).map(analyze_shell))
            .as_deref()
    }

    pub fn url(&self) -> Option<&UrlInfo> {
        self.url
            .get_or_init(|| self.text(Subject::Url).map(url_class::one_call::classify))
            .as_deref()
    }

    pub fn path(&self) -> Option<&paths::PathInfo> {
        self.path
            .get_or_init(|| {
                self.text(Subject::Path)
                    .map(|p| paths::inspect(p, self.project_root, self.home))
            })
            .as_ref()
    }
}

#[derive(Debug)]
pub struct ShellMatcher {
    programs: Vec<String>,
    flags: Vec<String>,
    any_flag: Vec<String>,
    arg: Option<Regex>,
    targets: Vec<TargetClass>,
    opaque: bool,
    /// Guarded path globs (`writes:`), compiled for the last root and home.
    writes: Vec<String>,
    /// Directory names of `writes` that mark a line as naming a guarded
    /// path (see `writes_named`).
    write_names: Vec<String>,
    compiled_writes: Mutex<Option<GuardedFor>>,
}

fn target_class(name: TargetClassName) -> TargetClass {
    match name {
        TargetClassName::Root => TargetClass::Root,
        TargetClassName::Home => TargetClass::Home,
        TargetClassName::System => TargetClass::System,
        TargetClassName::ProjectRoot => TargetClass::ProjectRoot,
        TargetClassName::GitDir => TargetClass::GitDir,
        TargetClassName::InsideProject => TargetClass::InsideProject,
        TargetClassName::Temp => TargetClass::Temp,
        TargetClassName::Outside => TargetClass::Outside,
        TargetClassName::Unknown => TargetClass::Unknown,
    }
}

/// A kind of shell line outside which a `shell:` matcher neither matches
/// nor fails ([`Matchers::evaluate`] gives "no match"), so a rule with it
/// need not be a candidate there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LineGate {
    /// `opaque: true` alone: a line with something that cannot be known.
    Opaque,
    /// `writes:` (without `opaque`): a line with a command that writes or
    /// acts on a path, or one not analysed whole (which fails the matcher).
    Writing,
}

impl LineGate {
    pub fn admits(self, analysis: &ShellAnalysis) -> bool {
        match self {
            LineGate::Opaque => analysis.is_opaque(),
            LineGate::Writing => {
                analysis.unanalysed().is_some()
                    || analysis
                        .commands
                        .iter()
                        .any(|c| !c.targets.is_empty() || !c.writes.is_empty())
            }
        }
    }
}

/// ASCII characters (a bit each) one of which some argument of some
/// command must hold for a `shell:` matcher with `arg: '[...]'` to match
/// ([`ShellMatcher::required_arg_bytes`]): a line without any is no
/// candidate for its rule (`tail -20` for a rule about glob words). A line
/// not analysed whole is always admitted, since the matcher fails there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArgBytes(pub [u64; 2]);

impl ArgBytes {
    pub fn admits(self, analysis: &ShellAnalysis) -> bool {
        let held = |b: u8| b < 128 && self.0[usize::from(b / 64)] & (1 << (b % 64)) != 0;
        analysis.unanalysed().is_some()
            || analysis
                .commands
                .iter()
                .any(|c| c.args.iter().any(|a| a.bytes().any(held)))
    }
}

/// Whether a find may write below its starting points: `-delete`, or an
/// `-exec`/`-ok` of a program that is not a plain reader. Listing and
/// reading (`find /etc -name '*.conf' -exec cat {} +`) writes nothing, and
/// what an `-exec` runs is also judged as a command of its own, `{}`
/// filled in.
fn find_may_write(args: &[String]) -> bool {
    const READERS: [&str; 24] = [
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ls",
        "wc",
        "file",
        "stat",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "cksum",
        "echo",
        "printf",
        "basename",
        "dirname",
        "du",
        "readlink",
    ];
    args.iter().enumerate().any(|(i, a)| match a.as_str() {
        "-delete" => true,
        "-exec" | "-execdir" | "-ok" | "-okdir" => args
            .get(i + 1)
            .is_none_or(|program| !READERS.contains(&shell::program_name(program).as_str())),
        _ => false,
    })
}

impl ShellMatcher {
    /// The programs one of which must run for this matcher to match, or
    /// `None` when it can match otherwise (no `program`, or `opaque: true`).
    pub fn required_programs(&self) -> Option<&[String]> {
        (!self.opaque && !self.programs.is_empty()).then_some(self.programs.as_slice())
    }

    /// The words one of which some argument of a matching command must be,
    /// when `arg:` is a pattern of whole words (`^push$`,
    /// `^filter-(branch|repo)$`): with the programs, a sharper key than
    /// the program alone (`git status` is no candidate for `git push` rules).
    pub fn required_words(&self) -> Option<Vec<String>> {
        let hir = regex_syntax::Parser::new()
            .parse(self.arg.as_ref()?.as_str())
            .ok()?;
        let regex_syntax::hir::HirKind::Concat(parts) = hir.kind() else {
            return None;
        };
        let [start, middle @ .., end] = parts.as_slice() else {
            return None;
        };
        let look = |h: &regex_syntax::hir::Hir, want: regex_syntax::hir::Look| matches!(h.kind(), regex_syntax::hir::HirKind::Look(l) if *l == want);
        if !look(start, regex_syntax::hir::Look::Start) || !look(end, regex_syntax::hir::Look::End)
        {
            return None;
        }
        let words = concat_words(middle)?;
        (!words.iter().any(String::is_empty)).then_some(words)
    }

    /// The ASCII characters one of which some argument must hold for this
    /// matcher to match, when `arg:` is a single class of them (`[*?\[{]`)
    /// and nothing else lets the matcher match or fail: a bit per
    /// character. See [`ArgBytes`].
    pub fn required_arg_bytes(&self) -> Option<ArgBytes> {
        if self.opaque || !self.writes.is_empty() {
            return None;
        }
        let hir = regex_syntax::Parser::new()
            .parse(self.arg.as_ref()?.as_str())
            .ok()?;
        let mut mask = [0u64; 2];
        let mut set = |lo: u32, hi: u32| -> Option<()> {
            if hi >= 128 {
                return None;
            }
            for c in lo..=hi {
                mask[(c / 64) as usize] |= 1 << (c % 64);
            }
            Some(())
        };
        match hir.kind() {
            regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => {
                for r in class.ranges() {
                    set(r.start() as u32, r.end() as u32)?;
                }
            }
            regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Bytes(class)) => {
                for r in class.ranges() {
                    set(u32::from(r.start()), u32::from(r.end()))?;
                }
            }
            _ => return None,
        }
        (mask != [0, 0]).then_some(ArgBytes(mask))
    }

    /// The kind of line this matcher can only match (or fail) on, when it
    /// has one: see [`LineGate`].
    pub fn gate(&self) -> Option<LineGate> {
        if self.opaque && !self.has_command_criteria() {
            Some(LineGate::Opaque)
        } else if !self.opaque && !self.writes.is_empty() {
            Some(LineGate::Writing)
        } else {
            None
        }
    }

    /// Whether the matcher's only error is the one of a line not analysed
    /// whole (see [`Matchers::evaluate`]): guarded `writes` can also fail
    /// for a project root and home they cannot be built for.
    pub fn fails_only_when_unanalysed(&self) -> bool {
        self.writes.is_empty()
    }

    fn has_command_criteria(&self) -> bool {
        !self.programs.is_empty()
            || !self.flags.is_empty()
            || !self.any_flag.is_empty()
            || self.arg.is_some()
            || !self.targets.is_empty()
            || !self.writes.is_empty()
    }

    /// The guarded paths compiled for this root and home (once per pair),
    /// held under the cache's lock.
    fn guarded(
        &self,
        root: &str,
        home: Option<&str>,
    ) -> Option<std::sync::MutexGuard<'_, Option<GuardedFor>>> {
        let mut cache = self
            .compiled_writes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let fresh = !matches!(&*cache, Some((r, h, _)) if r == root && h.as_deref() == home);
        if fresh {
            let patterns: Vec<&str> = self.writes.iter().map(String::as_str).collect();
            let guarded = paths::GuardedPaths::new(&patterns, root, home).ok()?;
            *cache = Some((root.to_string(), home.map(str::to_string), guarded));
        }
        Some(cache)
    }

    /// The first path `command` writes that touches a guarded path:
    /// (as written, where it resolved).
    fn guarded_write(
        &self,
        command: &shell::SimpleCommand,
        guarded: &paths::GuardedPaths,
        line: &str,
        root: &str,
        home: Option<&str>,
    ) -> Option<(String, String)> {
        let dotglob = line.contains("dotglob") || line.contains("GLOBIGNORE");
        let named = self.writes_named(line);
        // A mode or owner change acts on the files themselves: `chmod -R
        // u+w .` changes the project's files, not where they are.
        let modes = matches!(command.program.as_str(), "chmod" | "chown" | "chgrp");
        let targets: &[shell::Target] =
            if command.program == "find" && !find_may_write(&command.args) {
                &[]
            } else {
                &command.targets
            };
        targets
            .iter()
            .chain(&command.writes)
            .flat_map(|t| shell::resolve_target_all(t, root, home))
            .find(|r| {
                if r.class == TargetClass::Unknown {
                    return named;
                }
                r.path.starts_with('/')
                    && guarded.touches(&r.path, r.contents || modes, &r.rest, dotglob)
            })
            .map(|r| {
                let place = if r.path.is_empty() {
                    "not known before it runs".to_string()
                } else {
                    r.path
                };
                (r.raw, place)
            })
    }

    /// True when the line names a directory of the guarded globs, so a
    /// path it writes that is only known at run time may be one of them.
    fn writes_named(&self, line: &str) -> bool {
        let lower = line.to_ascii_lowercase();
        self.write_names.iter().any(|n| lower.contains(n.as_str()))
    }

    /// Why it matched, or `None`. Targets are located against `root` and `home`.
    pub fn matches(
        &self,
        analysis: &ShellAnalysis,
        line: &str,
        root: &str,
        home: Option<&str>,
    ) -> Option<String> {
        if self.opaque && analysis.is_opaque() {
            let why: Vec<String> = analysis.opaque.iter().map(|o| o.detail.clone()).collect();
            return Some(format!("opaque: {}", why.join("; ")));
        }
        if !self.has_command_criteria() {
            return None;
        }
        // Most lines write nothing: the globs are compiled only for one
        // that does.
        if !self.writes.is_empty()
            && analysis
                .commands
                .iter()
                .all(|c| c.targets.is_empty() && c.writes.is_empty())
        {
            return None;
        }
        let cache = if self.writes.is_empty() {
            None
        } else {
            Some(self.guarded(root, home)?)
        };
        let guarded = cache.as_ref().and_then(|c| c.as_ref()).map(|(_, _, g)| g);
        analysis.commands.iter().find_map(|c| {
            let program_ok = self.programs.is_empty() || self.programs.contains(&c.program);
            let flags_ok = self.flags.iter().all(|f| c.has_flag(f));
            let any_ok = self.any_flag.is_empty() || self.any_flag.iter().any(|f| c.has_flag(f));
            let arg_ok = self
                .arg
                .as_ref()
                .is_none_or(|re| c.args.iter().any(|a| re.is_match(a)));
            if !(program_ok && flags_ok && any_ok && arg_ok) {
                return None;
            }
            // Located only when asked: most commands have no targets.
            let target = if self.targets.is_empty() {
                None
            } else {
                let found = c.targets.iter().find_map(|t| {
                    shell::resolve_target_all(t, root, home)
                        .into_iter()
                        .find(|resolved| self.targets.contains(&resolved.class))
                });
                Some(found?)
            };
            let write = match guarded {
                Some(g) => Some(self.guarded_write(c, g, line, root, home)?),
                None => None,
            };
            Some({
                let mut how = c.program.clone();
                if let Some(call) = &c.call {
                    how = format!("{how} (as {call})");
                }
                if !c.wrappers.is_empty() {
                    how = format!("{} (through {})", how, c.wrappers.join(", "));
                }
                if !c.via.is_empty() {
                    how = format!("{} (inside {})", how, c.via.join(", "));
                }
                if let Some(t) = target {
                    let place = if t.path.is_empty() {
                        "not known before it runs".to_string()
                    } else {
                        t.path.clone()
                    };
                    how = format!("{how} on `{}` ({}: {place})", t.raw, t.class.as_str());
                }
                if let Some((raw, place)) = write {
                    how = format!("{how} writing `{raw}` ({place})");
                }
                format!("runs {how}")
            })
        })
    }
}

#[derive(Debug)]
pub struct UrlMatcher {
    classes: Vec<UrlClassName>,
    hosts: Vec<String>,
    domains: Vec<String>,
    /// `hosts` and `domains` read once, when the rule is compiled.
    host_patterns: Vec<url_class::HostPattern>,
    domain_patterns: Vec<url_class::HostPattern>,
    registrable: Vec<String>,
    schemes: Vec<String>,
    ports: Vec<u16>,
    path: Option<Regex>,
}

fn class_matches(name: UrlClassName, class: UrlClass) -> bool {
    match name {
        UrlClassName::Internal => class.is_internal(),
        other => class_name(class) == Some(other),
    }
}

fn class_name(class: UrlClass) -> Option<UrlClassName> {
    Some(match class {
        UrlClass::Loopback => UrlClassName::Loopback,
        UrlClass::Private => UrlClassName::Private,
        UrlClass::LinkLocal => UrlClassName::LinkLocal,
        UrlClass::CloudMetadata => UrlClassName::CloudMetadata,
        UrlClass::Unspecified => UrlClassName::Unspecified,
        UrlClass::Multicast => UrlClassName::Multicast,
        UrlClass::Broadcast => UrlClassName::Broadcast,
        UrlClass::Reserved => UrlClassName::Reserved,
        UrlClass::Public => UrlClassName::Public,
        UrlClass::Invalid => UrlClassName::Invalid,
        UrlClass::NonHttp => UrlClassName::NonHttp,
    })
}

/// What a URL matcher requires of the host, for indexing.
pub enum HostKeys {
    /// The normalised host must be one of these.
    Exact(Vec<String>),
    /// The normalised host must be one of these or a subdomain of one.
    Domains(Vec<String>),
}

impl UrlMatcher {
    /// The hosts or domains one of which the URL's host must be, normalised
    /// as [`url_class::host_matches`] normalises them; `None` when the
    /// matcher can match other hosts (no host criteria, or wildcard, CIDR
    /// or unparsable entries, which are left to the matcher itself).
    pub fn host_keys(&self) -> Option<HostKeys> {
        let plain = |entries: &mut dyn Iterator<Item = &str>| -> Option<Vec<String>> {
            entries
                .map(|e| {
                    let e = e.trim().trim_start_matches('.');
                    if e.contains(['*', '/']) {
                        return None;
                    }
                    url_class::normalize_host_text(e)
                })
                .collect()
        };
        if !self.domains.is_empty() {
            if let Some(keys) = plain(&mut self.domains.iter().map(String::as_str)) {
                return Some(HostKeys::Domains(keys));
            }
        }
        if !self.hosts.is_empty() && self.hosts.iter().all(|h| !h.trim().starts_with('.')) {
            if let Some(keys) = plain(&mut self.hosts.iter().map(String::as_str)) {
                return Some(HostKeys::Exact(keys));
            }
        }
        // Hosts all written `.name` (that name and its subdomains) are
        // domains by another spelling, and are filed as such.
        let bases: Option<Vec<&str>> = self
            .hosts
            .iter()
            .map(|h| h.trim().strip_prefix('.').filter(|b| !b.starts_with('.')))
            .collect();
        if let Some(bases) = bases.filter(|b| !b.is_empty()) {
            if let Some(keys) = plain(&mut bases.into_iter()) {
                return Some(HostKeys::Domains(keys));
            }
        }
        None
    }

    pub fn matches(&self, info: &UrlInfo) -> Option<String> {
        let class_ok =
            self.classes.is_empty() || self.classes.iter().any(|c| class_matches(*c, info.class));
        // Normalised once for all patterns (what `host_matches` does per
        // pattern); a host that is not one matches no pattern.
        let host = (!self.host_patterns.is_empty() || !self.domain_patterns.is_empty())
            .then(|| url_class::NormalHost::of(&info.host))
            .flatten();
        let any_of = |patterns: &[url_class::HostPattern]| {
            patterns.is_empty()
                || host
                    .as_ref()
                    .is_some_and(|h| patterns.iter().any(|p| p.matches(h)))
        };
        let host_ok = any_of(&self.host_patterns);
        let domain_ok = any_of(&self.domain_patterns);
        let registrable_ok = self.registrable.is_empty()
            || url_class::registrable_domain(&info.host)
                .is_some_and(|r| self.registrable.iter().any(|x| x.eq_ignore_ascii_case(&r)));
        let scheme_ok = self.schemes.is_empty()
            || self
                .schemes
                .iter()
                .any(|s| s.eq_ignore_ascii_case(&info.scheme));
        let port_ok = self.ports.is_empty() || info.port.is_some_and(|p| self.ports.contains(&p));
        let path_ok = self.path.as_ref().is_none_or(|re| re.is_match(&info.path));
        (class_ok && host_ok && domain_ok && registrable_ok && scheme_ok && port_ok && path_ok)
            .then(|| {
                // `host (class): first reason`, pushed rather than
                // formatted: a warm URL decision writes it for each rule.
                let host = if info.host.is_empty() {
                    "no host"
                } else {
                    &info.host
                };
                let class = info.class.as_str();
                let reason = info.reasons.first();
                let mut why = String::with_capacity(
                    host.len() + class.len() + reason.map_or(0, String::len) + 5,
                );
                why.push_str(host);
                why.push_str(" (");
                why.push_str(class);
                why.push(')');
                if let Some(reason) = reason {
                    why.push_str(": ");
                    why.push_str(reason);
                }
                why
            })
    }
}

#[derive(Debug)]
pub struct PathMatcher {
    globs: Vec<String>,
    inside_project: Option<bool>,
    /// The compiled glob set for the last (root, home) seen: a hook process
    /// sees one root, a long-running server a few.
    compiled: paths::GlobSetCache,
}

impl PathMatcher {
    /// `Some(true)` when the path must be inside the project, `Some(false)`
    /// when it must be outside.
    pub fn inside_project(&self) -> Option<bool> {
        self.inside_project
    }

    /// The globs one of which the path must match, for indexing.
    pub fn required_globs(&self) -> Option<&[String]> {
        (!self.globs.is_empty()).then_some(self.globs.as_slice())
    }

    pub fn matches(
        &self,
        info: &paths::PathInfo,
        root: &str,
        home: Option<&str>,
    ) -> Result<Option<String>, String> {
        if let Some(inside) = self.inside_project {
            if info.within_root != inside {
                return Ok(None);
            }
        }
        if self.globs.is_empty() {
            let side = if info.within_root {
                "inside"
            } else {
                "outside"
            };
            return Ok(Some(format!("{} is {side} the project", info.normalized)));
        }
        let patterns: Vec<&str> = self.globs.iter().map(String::as_str).collect();
        self.compiled
            .with(&patterns, root, home, &info.normalized, |set| match set {
                Ok(set) => Ok(set
                    .matches(&info.normalized)
                    .map(|i| format!("{} matches {}", info.normalized, self.globs[i]))),
                Err(e) => Err(e.to_string()),
            })
    }
}

#[derive(Debug)]
pub struct ContentMatcher {
    regexes: Vec<Regex>,
}

impl ContentMatcher {
    pub fn matches(&self, content: &str) -> Option<String> {
        self.regexes
            .iter()
            .find(|re| re.is_match(content))
            .map(|re| format!("content matches {}", re.as_str()))
    }
}

/// All the matchers of one rule.
#[derive(Debug, Default)]
pub struct Matchers {
    pub shell: Option<ShellMatcher>,
    pub url: Option<UrlMatcher>,
    pub path: Option<PathMatcher>,
    pub content: Option<ContentMatcher>,
}

/// The outcome of a rule's matchers on one payload.
pub enum MatchOutcome {
    /// All matchers hold (or there are none); the reasons, for explanations.
    Match(Vec<String>),
    /// A matcher does not hold; which one.
    NoMatch(String),
    Error(String),
}

impl Matchers {
    pub fn is_empty(&self) -> bool {
        self.shell.is_none() && self.url.is_none() && self.path.is_none() && self.content.is_none()
    }

    /// Whether some matcher names what it looks for (a program, a flag, an
    /// argument, a destination, a glob, a content pattern), as opposed to
    /// only a blanket property of the subject (`opaque: true`,
    /// `inside_project`). Deny reasons prefer rules that name something.
    pub fn names_something(&self) -> bool {
        self.shell
            .as_ref()
            .is_some_and(ShellMatcher::has_command_criteria)
            || self.url.is_some()
            || self.path.as_ref().is_some_and(|p| !p.globs.is_empty())
            || self.content.is_some()
    }

    pub fn evaluate(&self, subjects: &Subjects<'_>) -> MatchOutcome {
        let mut reasons = Vec::new();
        if let Some(m) = &self.shell {
            let analysis = subjects.shell();
            match analysis.and_then(|a| {
                let line = subjects.text(Subject::Command).unwrap_or("");
                m.matches(a, line, subjects.project_root, subjects.home)
            }) {
                Some(r) => reasons.push(r),
                None => {
                    // Commands that were never analysed may be the ones this
                    // rule looks for: it cannot say no (fail by the hook's mode).
                    if let Some(why) = analysis
                        .filter(|_| m.has_command_criteria())
                        .and_then(ShellAnalysis::unanalysed)
                    {
                        return MatchOutcome::Error(format!(
                            "shell: the line could not be analysed whole ({why})"
                        ));
                    }
                    // Guarded paths that cannot be built for this root and
                    // home cannot say a write is elsewhere.
                    if let Some(a) = analysis.filter(|_| !m.writes.is_empty()) {
                        let writes = a
                            .commands
                            .iter()
                            .any(|c| !c.targets.is_empty() || !c.writes.is_empty());
                        if writes && m.guarded(subjects.project_root, subjects.home).is_none() {
                            return MatchOutcome::Error(
                                "shell: the guarded paths of `writes` cannot be built for this project root and home".into(),
                            );
                        }
                    }
                    return MatchOutcome::NoMatch("shell: no command matched".into());
                }
            }
        }
        if let Some(m) = &self.url {
            match subjects.url().and_then(|u| m.matches(u)) {
                Some(r) => reasons.push(r),
                None => return MatchOutcome::NoMatch("url: no match".into()),
            }
        }
        if let Some(m) = &self.path {
            let Some(info) = subjects.path() else {
                return MatchOutcome::NoMatch("path: no path in this payload".into());
            };
            match m.matches(info, subjects.project_root, subjects.home) {
                Ok(Some(r)) => reasons.push(r),
                Ok(None) => {
                    return MatchOutcome::NoMatch(format!(
                        "path: {} does not match",
                        info.normalized
                    ))
                }
                Err(e) => return MatchOutcome::Error(format!("path glob: {e}")),
            }
        }
        if let Some(m) = &self.content {
            match subjects.text(Subject::Content).and_then(|c| m.matches(c)) {
                Some(r) => reasons.push(r),
                None => return MatchOutcome::NoMatch("content: no match".into()),
            }
        }
        MatchOutcome::Match(reasons)
    }
}

/// Why a matcher does not compile, and which key (within the matcher) is at fault.
pub struct MatcherError {
    pub key: &'static str,
    pub index: Option<usize>,
    pub message: String,
}

/// More words than this from one `arg:` pattern: filed by program only.
const MAX_WORDS: usize = 64;

/// Every text `hir` matches, when they are few and it has no anchors,
/// classes or repetitions.
fn exact_words(hir: &regex_syntax::hir::Hir) -> Option<Vec<String>> {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(l) => Some(vec![String::from_utf8(l.0.to_vec()).ok()?]),
        HirKind::Capture(c) => exact_words(&c.sub),
        HirKind::Alternation(alts) => {
            let mut out = Vec::new();
            for alt in alts {
                out.extend(exact_words(alt)?);
                if out.len() > MAX_WORDS {
                    return None;
                }
            }
            Some(out)
        }
        HirKind::Concat(parts) => concat_words(parts),
        _ => None,
    }
}

/// Every text the parts, one after another, match exactly: each word of
/// the first part followed by each of the rest's; `None` past `MAX_WORDS`.
fn concat_words(parts: &[regex_syntax::hir::Hir]) -> Option<Vec<String>> {
    let mut words = vec![String::new()];
    for part in parts {
        let tails = exact_words(part)?;
        words = words
            .iter()
            .flat_map(|w| tails.iter().map(move |t| format!("{w}{t}")))
            .collect();
        if words.len() > MAX_WORDS {
            return None;
        }
    }
    Some(words)
}

fn regex(pattern: &str, key: &'static str, index: Option<usize>) -> Result<Regex, MatcherError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| MatcherError {
            key,
            index,
            message: format!("invalid regex: {}", last_line(&e.to_string())),
        })
}

fn last_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .to_string()
}

fn check_flag_specs(specs: &[String], key: &'static str) -> Result<(), MatcherError> {
    for (i, spec) in specs.iter().enumerate() {
        let ok = spec.split('|').all(|alt| {
            let alt = alt.trim();
            (alt.starts_with("--") && alt.len() > 2)
                || (alt.starts_with('-') && alt.chars().count() == 2)
        });
        if !ok {
            return Err(MatcherError {
                key,
                index: Some(i),
                message: format!("`{spec}` is not a flag spelling: write alternatives like \"-r|-R|--recursive\""),
            });
        }
    }
    Ok(())
}

/// `check_writes`: whether the `writes` globs are compiled once to report
/// a bad one (for a fixed root and home, so the answer is the same on
/// every call: see `RuleCompiler::stored`); the matcher compiles them for
/// the call's root when it first needs them.
pub fn compile_shell(m: &ShellMatch, check_writes: bool) -> Result<ShellMatcher, MatcherError> {
    let flags = m.flags.clone().unwrap_or_default();
    let any_flag = m.any_flag.clone().unwrap_or_default();
    if m.target.as_ref().is_some_and(Vec::is_empty) {
        return Err(MatcherError {
            key: "target",
            index: None,
            message: "`target` needs at least one place: root, home, system, project_root, git_dir, inside_project, temp, outside, unknown".into(),
        });
    }
    check_flag_specs(&flags, "flags")?;
    check_flag_specs(&any_flag, "any_flag")?;
    let writes: Vec<String> = m
        .writes
        .as_ref()
        .map(|w| w.items().to_vec())
        .unwrap_or_default();
    if m.writes.is_some() && writes.is_empty() {
        return Err(MatcherError {
            key: "writes",
            index: None,
            message: "`writes` needs at least one path glob".into(),
        });
    }
    let patterns: Vec<&str> = writes.iter().map(String::as_str).collect();
    if let Err(e) = check_writes
        .then(|| paths::GuardedPaths::new(&patterns, "/project", Some("/home/user")))
        .transpose()
    {
        return Err(MatcherError {
            key: "writes",
            index: Some(e.index),
            message: format!("invalid glob `{}`: {}", e.pattern, e.reason),
        });
    }
    let write_names = write_names(&writes);
    let matcher = ShellMatcher {
        // Program names are compared in lower case, as the analysis
        // reports them (see `SimpleCommand::program`).
        programs: m
            .program
            .as_ref()
            .map(|p| p.items().iter().map(|n| n.to_ascii_lowercase()).collect())
            .unwrap_or_default(),
        flags,
        any_flag,
        arg: m
            .arg
            .as_deref()
            .map(|a| regex(a, "arg", None))
            .transpose()?,
        targets: m
            .target
            .iter()
            .flatten()
            .map(|t| target_class(*t))
            .collect(),
        opaque: m.opaque.unwrap_or(false),
        writes,
        write_names,
        compiled_writes: Mutex::new(None),
    };
    if !matcher.has_command_criteria() && !matcher.opaque {
        return Err(MatcherError {
            key: "shell",
            index: None,
            message:
                "`shell` needs `program`, `flags`, `any_flag`, `arg`, `target`, `writes` or `opaque: true`"
                    .into(),
        });
    }
    Ok(matcher)
}

/// The directory names of guarded globs distinctive enough to say a line
/// is about them: those starting with `.` or holding a `-` (`.claude`,
/// `hook-policy`), lower case.
fn write_names(globs: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for glob in globs {
        let mut parts: Vec<&str> = glob.split('/').collect();
        parts.pop();
        for part in parts {
            let distinctive = (part.starts_with('.') && part.len() > 2) || part.contains('-');
            if distinctive && !part.contains(['*', '?', '[', '{']) {
                let lower = part.to_ascii_lowercase();
                if !names.contains(&lower) {
                    names.push(lower);
                }
            }
        }
    }
    names
}

pub fn compile_url(m: &UrlMatch) -> Result<UrlMatcher, MatcherError> {
    let list = |l: &Option<crate::model::StringList>| {
        l.as_ref().map(|l| l.items().to_vec()).unwrap_or_default()
    };
    let hosts = list(&m.host);
    let domains = list(&m.domain);
    let matcher = UrlMatcher {
        classes: m.class.clone().unwrap_or_default(),
        host_patterns: hosts
            .iter()
            .map(|h| url_class::HostPattern::new(h))
            .collect(),
        domain_patterns: domains
            .iter()
            .map(|d| url_class::HostPattern::new(&format!(".{}", d.trim_start_matches('.'))))
            .collect(),
        hosts,
        domains,
        registrable: list(&m.registrable_domain),
        schemes: list(&m.scheme),
        ports: m.port.clone().unwrap_or_default(),
        path: m
            .path_regex
            .as_deref()
            .map(|p| regex(p, "path_regex", None))
            .transpose()?,
    };
    let empty = matcher.classes.is_empty()
        && matcher.hosts.is_empty()
        && matcher.domains.is_empty()
        && matcher.registrable.is_empty()
        && matcher.schemes.is_empty()
        && matcher.ports.is_empty()
        && matcher.path.is_none();
    if empty {
        return Err(MatcherError {
            key: "url",
            index: None,
            message: "`url` needs at least one criterion".into(),
        });
    }
    Ok(matcher)
}

pub fn compile_path(m: &PathMatch) -> Result<PathMatcher, MatcherError> {
    let globs = m
        .glob
        .as_ref()
        .map(|g| g.items().to_vec())
        .unwrap_or_default();
    if globs.is_empty() && m.inside_project.is_none() {
        return Err(MatcherError {
            key: "path",
            index: None,
            message: "`path` needs `glob` or `inside_project`".into(),
        });
    }
    // Validate the globs now, against a stand-in root, so errors are found by `policy check`.
    let patterns: Vec<&str> = globs.iter().map(String::as_str).collect();
    if let Err(e) = PathGlobSet::new(&patterns, "/project", Some("/home/user")) {
        return Err(MatcherError {
            key: "glob",
            index: Some(e.index),
            message: format!("invalid glob `{}`: {}", e.pattern, e.reason),
        });
    }
    Ok(PathMatcher {
        globs,
        inside_project: m.inside_project,
        compiled: Default::default(),
    })
}

pub fn compile_content(m: &ContentMatch) -> Result<ContentMatcher, MatcherError> {
    let regexes = m
        .regex
        .items()
        .iter()
        .enumerate()
        .map(|(i, p)| regex(p, "regex", Some(i)))
        .collect::<Result<_, _>>()?;
    Ok(ContentMatcher { regexes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(json: serde_json::Value) -> ShellMatcher {
        let m: ShellMatch = serde_json::from_value(json).unwrap();
        compile_shell(&m, true).ok().expect("the matcher compiles")
    }

    #[test]
    fn whole_word_patterns_give_their_words() {
        let words = |arg: &str| {
            shell(serde_json::json!({"program": "git", "arg": arg}))
                .required_words()
                .map(|mut w| {
                    w.sort();
                    w
                })
        };
        let s = |v: &[&str]| Some(v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(words("^push$"), s(&["push"]));
        assert_eq!(
            words("^filter-(branch|repo)$"),
            s(&["filter-branch", "filter-repo"])
        );
        assert_eq!(words("^(rm|remove)$"), s(&["remove", "rm"]));
        // Anything a word outside a finite set could match: no words.
        for arg in [
            "push",
            "^push",
            "push$",
            "^push.*$",
            "(?i)^push$",
            "^pu[sz]h$",
            "(?m)^push$",
            "^(a|)$",
            "^p?ush$",
        ] {
            assert_eq!(words(arg), None, "{arg}");
        }
        assert_eq!(
            shell(serde_json::json!({"program": "git"})).required_words(),
            None
        );
    }

    #[test]
    fn gates_say_which_lines_a_matcher_can_match() {
        let opaque = shell(serde_json::json!({"opaque": true}));
        let writes = shell(serde_json::json!({"writes": ["~/.x/**"]}));
        let both = shell(serde_json::json!({"opaque": true, "writes": ["~/.x/**"]}));
        let program = shell(serde_json::json!({"program": "rm", "opaque": true}));
        assert_eq!(opaque.gate(), Some(LineGate::Opaque));
        assert_eq!(writes.gate(), Some(LineGate::Writing));
        assert_eq!(both.gate(), None);
        assert_eq!(program.gate(), None);
        let admits = |gate: LineGate, line: &str| gate.admits(&crate::shell::analyze(line));
        assert!(admits(LineGate::Opaque, "eval $X"));
        assert!(!admits(LineGate::Opaque, "cargo test 2>&1 | tail -20"));
        assert!(admits(LineGate::Writing, "echo x > f"));
        assert!(admits(LineGate::Writing, "rm -rf ~/.x"));
        assert!(!admits(LineGate::Writing, "git status && git diff"));
        assert!(!admits(LineGate::Writing, "cargo test 2>&1 | tail -20"));
    }

    #[test]
    fn a_class_of_argument_characters_leaves_out_lines_without_them() {
        let globs = shell(serde_json::json!({"program": ["cat", "tail"], "arg": "[*?\\[{]"}));
        let bytes = globs
            .required_arg_bytes()
            .expect("a class of ASCII characters");
        // Not for what a class alone does not decide: other patterns,
        // characters beyond ASCII, `opaque` or `writes` (they match or fail
        // on other grounds).
        for other in [
            serde_json::json!({"arg": "^push$"}),
            serde_json::json!({"arg": "[*?]x"}),
            serde_json::json!({"arg": "[é*]"}),
            serde_json::json!({"arg": "[*?]", "opaque": true}),
            serde_json::json!({"arg": "[*?]", "writes": ["~/.x/**"]}),
        ] {
            assert_eq!(shell(other.clone()).required_arg_bytes(), None, "{other}");
        }
        let admits = |line: &str| bytes.admits(&crate::shell::analyze(line));
        assert!(!admits("cargo test --all 2>&1 | tail -20"));
        assert!(!admits("cat README.md"));
        assert!(admits("cat ~/.a?s/credentials"));
        assert!(admits("ls *.rs | tail"));
        assert!(admits("cat ~/.{ssh,aws}/x"));
        // A line not analysed whole fails the matcher: always admitted.
        let too_many = "cat a; ".repeat(crate::shell::MAX_COMMANDS + 1);
        assert!(crate::shell::analyze(&too_many).unanalysed().is_some());
        assert!(admits(&too_many));
        // Every line the matcher matches is admitted.
        let analysis = crate::shell::analyze("tail .e*");
        assert!(globs
            .matches(&analysis, "tail .e*", "/p", Some("/h"))
            .is_some());
        assert!(bytes.admits(&analysis));
    }
}
