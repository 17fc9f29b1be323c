//! CEL functions over shell command lines, URLs and paths: the same
//! analyses as the `shell:`, `url:` and `path:` matchers, for conditions that
//! need more than the declarative keys say.
//!
//! ```text
//! command.runs('rm')                                   any simple command runs rm
//! command.runsWith('rm', ['-r|-R|--recursive', '-f'])  ... with all these flags
//! command.shellOpaque()                                some program cannot be known statically
//! command.shellCommands()                              [{program, path, args, flags, wrappers, via, call}]
//! command.shellCommands(project_root)                  ... each with targets and writes: [{raw, path, class}]
//! url.urlClass()                                       'loopback', 'private', 'public', ...
//! url.isInternalUrl()                                  any class but public
//! url.urlHost()                                        the normalised host
//! url.hostMatches('.example.com')                      domain, subdomain, wildcard or CIDR
//! path.normalizedPath(project_root)                    absolute, no '.', '..', '//', '~'
//! path.isWithin(project_root)                          by whole components
//! path.pathMatches('**/.env', project_root)            path glob, '*' never crosses '/'
//! ```

use super::commands::{self, CommandView};
use super::environment::overload::{member_overload, overload};
use super::regex_match::matches;
use crate::{paths, url_class};
use cel::common::types::{CelBool, CelList, CelMap, CelMapKey, CelString};
use cel::common::value::Val;
use cel::{DeclarationError, Env, ExecutionError};
use std::collections::HashMap;

/// Registers the overloads of one function on an environment.
pub type Registrar = fn(&mut Env) -> Result<(), DeclarationError>;

/// Each function by the name expressions call it with, and what registers
/// all its overloads: an environment can take just the functions its
/// expressions name (see `expr::environment`). A new function is one more
/// entry here.
pub const REGISTRARS: &[(&str, Registrar)] = &[
    ("shellCommands", |env| {
        member_overload!(env, "shellCommands", "string.shellCommands()", fn shell_commands: (CelString) -> CelList)?;
        member_overload!(env, "shellCommands", "string.shellCommands(string)", fn shell_commands_in: (CelString, CelString) -> CelList)
    }),
    (
        "shellOpaque",
        |env| member_overload!(env, "shellOpaque", "string.shellOpaque()", fn shell_opaque: (CelString) -> CelBool),
    ),
    (
        "runs",
        |env| member_overload!(env, "runs", "string.runs(string)", fn runs: (CelString, CelString) -> Result<CelBool>),
    ),
    (
        "runsWith",
        |env| member_overload!(env, "runsWith", "string.runsWith(string,list)", fn runs_with: (CelString, CelString, CelList) -> Result<CelBool>),
    ),
    (
        "urlClass",
        |env| member_overload!(env, "urlClass", "string.urlClass()", fn url_class: (CelString) -> CelString),
    ),
    (
        "urlHost",
        |env| member_overload!(env, "urlHost", "string.urlHost()", fn url_host: (CelString) -> CelString),
    ),
    (
        "isInternalUrl",
        |env| member_overload!(env, "isInternalUrl", "string.isInternalUrl()", fn is_internal_url: (CelString) -> CelBool),
    ),
    (
        "hostMatches",
        |env| member_overload!(env, "hostMatches", "string.hostMatches(string)", fn host_matches: (CelString, CelString) -> CelBool),
    ),
    (
        "normalizedPath",
        |env| member_overload!(env, "normalizedPath", "string.normalizedPath(string)", fn normalized_path: (CelString, CelString) -> CelString),
    ),
    (
        "isWithin",
        |env| member_overload!(env, "isWithin", "string.isWithin(string)", fn is_within: (CelString, CelString) -> CelBool),
    ),
    (
        "pathMatches",
        |env| member_overload!(env, "pathMatches", "string.pathMatches(string,string)", fn path_matches: (CelString, CelString, CelString) -> Result<CelBool>),
    ),
    // The library's `matches` (its `regex` feature is off), with the ids it used.
    ("matches", |env| {
        overload!(env, "matches", "matches", fn matches: (CelString, CelString) -> Result<CelBool>)?;
        member_overload!(env, "matches", "string.matches(string)", fn matches: (CelString, CelString) -> Result<CelBool>)
    }),
];

/// Registers every function above.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    REGISTRARS
        .iter()
        .try_for_each(|(_, register)| register(env))
}

/// Names of the functions above, for the type checker and the docs.
pub const NAMES: &[(&str, &str)] = &[
    ("shellCommands", "list"),
    ("shellOpaque", "bool"),
    ("runs", "bool"),
    ("runsWith", "bool"),
    ("urlClass", "string"),
    ("urlHost", "string"),
    ("isInternalUrl", "bool"),
    ("hostMatches", "bool"),
    ("normalizedPath", "string"),
    ("isWithin", "bool"),
    ("pathMatches", "bool"),
];

fn strings(items: impl IntoIterator<Item = String>) -> Box<dyn Val + 'static> {
    Box::new(CelList::from(
        items
            .into_iter()
            .map(|s| Box::new(CelString::from(s)) as Box<dyn Val>)
            .collect::<Vec<_>>(),
    ))
}

fn shell_commands(line: &CelString<'_>) -> CelList<'static> {
    commands_list(line.inner(), None)
}

/// `shellCommands(root)`: each command also lists its targets, located
/// against `root` and the home directory.
fn shell_commands_in(line: &CelString<'_>, root: &CelString<'_>) -> CelList<'static> {
    commands_list(line.inner(), Some(root.inner()))
}

fn commands_list(line: &str, root: Option<&str>) -> CelList<'static> {
    type Key = (String, Option<String>, Option<String>);
    // The last line's commands, per thread: one decision asks for them once
    // per rule (see `commands`).
    thread_local! {
        static LAST: std::cell::RefCell<Option<(Key, Vec<CommandView>)>> =
            const { std::cell::RefCell::new(None) };
    }
    let home = root.and_then(|_| home());
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some(((l, r, h), views)) = &*last {
            if l == line && r.as_deref() == root && *h == home {
                return commands::list(views);
            }
        }
        let views = command_views(line, root, home.as_deref());
        let list = commands::list(&views);
        *last = Some(((line.to_string(), root.map(str::to_string), home), views));
        list
    })
}

fn command_views(line: &str, root: Option<&str>, home: Option<&str>) -> Vec<CommandView> {
    let analysis = crate::matchers::analyze_shell(line);
    analysis
        .commands
        .iter()
        .cloned()
        .map(|c| {
            let mut flags: Vec<String> = c.short_flags.iter().map(|f| format!("-{f}")).collect();
            flags.extend(c.long_flags.iter().map(|f| format!("--{f}")));
            let mut fields: Vec<(&'static str, Box<dyn Val>)> = vec![
                ("program", Box::new(CelString::from(c.program))),
                ("path", Box::new(CelString::from(c.program_path))),
                ("args", strings(c.args)),
                ("flags", strings(flags)),
                ("wrappers", strings(c.wrappers)),
                ("via", strings(c.via)),
                (
                    "call",
                    Box::new(CelString::from(c.call.unwrap_or_default())),
                ),
            ];
            if let Some(root) = root {
                let located = |list: &[crate::shell::Target]| {
                    let items = list
                        .iter()
                        .flat_map(|t| crate::shell::resolve_target_all(t, root, home))
                        .map(|resolved| {
                            let mut target: HashMap<CelMapKey<'static>, Box<dyn Val>> =
                                HashMap::new();
                            target.insert(
                                "raw".to_string().into(),
                                Box::new(CelString::from(resolved.raw)),
                            );
                            target.insert(
                                "path".to_string().into(),
                                Box::new(CelString::from(resolved.path)),
                            );
                            target.insert(
                                "class".to_string().into(),
                                Box::new(CelString::from(resolved.class.as_str().to_string())),
                            );
                            Box::new(CelMap::from(target)) as Box<dyn Val>
                        })
                        .collect::<Vec<_>>();
                    Box::new(CelList::from(items)) as Box<dyn Val>
                };
                fields.push(("targets", located(&c.targets)));
                fields.push(("writes", located(&c.writes)));
                fields.push(("reads", located(&c.reads)));
            }
            CommandView::new(fields)
        })
        .collect()
}

fn shell_opaque(line: &CelString<'_>) -> CelBool {
    CelBool::from(crate::matchers::analyze_shell(line.inner()).is_opaque())
}

fn runs(line: &CelString<'_>, program: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let analysis = crate::matchers::analyze_shell(line.inner());
    let found = analysis
        .commands
        .iter()
        .any(|c| c.program.eq_ignore_ascii_case(program.inner()));
    not_found_for_sure("runs", found, &analysis)
}

/// A search for a command that found none is only an answer when the whole
/// line was analysed (see `ShellAnalysis::unanalysed`); otherwise an error,
/// which the hook's failure mode turns into a deny on permission hooks.
fn not_found_for_sure(
    function: &str,
    found: bool,
    analysis: &crate::shell::ShellAnalysis,
) -> Result<CelBool, ExecutionError> {
    match analysis.unanalysed() {
        Some(why) if !found => Err(ExecutionError::function_error(
            function,
            format!("the line could not be analysed whole ({why})"),
        )),
        _ => Ok(CelBool::from(found)),
    }
}

fn runs_with(
    line: &CelString<'_>,
    program: &CelString<'_>,
    flags: &CelList<'_>,
) -> Result<CelBool, ExecutionError> {
    let mut specs = Vec::new();
    for f in flags.iter() {
        let s = f.downcast_ref::<CelString>().ok_or_else(|| {
            ExecutionError::function_error(
                "runsWith",
                "flags must be strings like '-r|--recursive'",
            )
        })?;
        specs.push(s.inner().to_string());
    }
    let analysis = crate::matchers::analyze_shell(line.inner());
    let found = analysis.commands.iter().any(|c| {
        c.program.eq_ignore_ascii_case(program.inner()) && specs.iter().all(|s| c.has_flag(s))
    });
    not_found_for_sure("runsWith", found, &analysis)
}

fn url_class(url: &CelString<'_>) -> CelString<'static> {
    CelString::from(url_class::classify(url.inner()).class.as_str().to_string())
}

fn url_host(url: &CelString<'_>) -> CelString<'static> {
    CelString::from(url_class::classify(url.inner()).host)
}

fn is_internal_url(url: &CelString<'_>) -> CelBool {
    CelBool::from(url_class::classify(url.inner()).class.is_internal())
}

fn host_matches(url: &CelString<'_>, pattern: &CelString<'_>) -> CelBool {
    let info = url_class::classify(url.inner());
    CelBool::from(url_class::host_matches(&info.host, pattern.inner()))
}

fn home() -> Option<String> {
    crate::paths::home_dir()
}

fn normalized_path(path: &CelString<'_>, root: &CelString<'_>) -> CelString<'static> {
    CelString::from(paths::normalize(
        path.inner(),
        root.inner(),
        home().as_deref(),
    ))
}

fn is_within(path: &CelString<'_>, dir: &CelString<'_>) -> CelBool {
    let home = home();
    let dir = paths::normalize(dir.inner(), "/", home.as_deref());
    let path = paths::normalize(path.inner(), &dir, home.as_deref());
    CelBool::from(paths::is_within(&path, &dir))
}

fn path_matches(
    path: &CelString<'_>,
    glob: &CelString<'_>,
    root: &CelString<'_>,
) -> Result<CelBool, ExecutionError> {
    let home = home();
    let normalized = paths::normalize(path.inner(), root.inner(), home.as_deref());
    let set =
        paths::PathGlobSet::for_path(&[glob.inner()], root.inner(), home.as_deref(), &normalized)
            .map_err(|e| ExecutionError::function_error("pathMatches", e.to_string()))?;
    Ok(CelBool::from(set.matches(&normalized).is_some()))
}
