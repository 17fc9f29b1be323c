//! One tool call from any harness, decided against the canonical hooks.
//!
//! chibi asks a separate question per hook point (`pre_tool`, then
//! `pre_shell_exec` for a shell command, ...). The other harnesses ask once,
//! before a tool runs, in their own words: Claude Code's `Bash` PreToolUse,
//! Gemini CLI's `run_shell_command` BeforeTool, PicoClaw's `exec`
//! before_tool. This module turns such a call into the questions chibi would
//! have asked, in chibi's order, so one policy written against the
//! canonical hooks guards every harness the same way:
//!
//! 1. `pre_tool` (`{tool_name, arguments}`): a block denies; argument
//!    rewrites apply, and the later steps see the rewritten arguments.
//! 2. `pre_api_tools` with this one tool: a tool the policy would not offer
//!    is denied when called (coding agents have no "tools offered" hook).
//! 3. The permission hooks the tool's action implies ([`TOOL_MAP`]): a shell
//!    command is `pre_shell_exec`, a file read `pre_file_read`, a write or
//!    edit `pre_file_write` (every file of an `apply_patch`), a fetch
//!    `pre_fetch_url` (every URL of a Gemini `web_fetch` prompt).
//! 4. The harness's native event, for rules that name it directly.
//!
//! A deny anywhere wins; an ask wins over silence. Failures follow each
//! hook's class: a permission or tool-gate hook that cannot decide denies
//! (unless the policy says `on_error: fail_open`), a broken tool filter
//! changes nothing.
//!
//! [`TOOL_MAP`] is data: `policy adapters --markdown` renders it into
//! `docs/adapters.md`, and a test keeps that file fresh.

use crate::catalogue::{self, FailureMode};
use crate::compile::CompiledPolicy;
use crate::engine::{self, failure_mode, Prepared};
use crate::eval::{DecideContext, Decision};
use crate::model::OnError;
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use crate::catalogue::tools::{
    canonical, mapping, native_hook, permission_hooks, Action, Canonical, Harness, Keys,
    ToolMapping, TOOL_MAP,
};
use Action::*;
use Harness::*;

/// One canonical question: a hook point and the payload chibi would send.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub hook: &'static str,
    pub payload: Json,
    /// Said after a deny's reason when the call did not name the path
    /// itself (a search reads files it was not told about).
    pub note: Option<&'static str>,
}

/// Why a search was denied for a file it was not asked about.
const SEARCH_NOTE: &str = "(the search would read it; search a narrower directory or pass an include glob that leaves it out)";

fn first_str(args: &Json, keys: Keys) -> Option<&str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Json::as_str))
}

/// The value of the first present key.
fn keys_value(args: &Json, keys: Keys) -> Option<&Json> {
    keys.iter().find_map(|k| args.get(*k))
}

/// Strings of the first present key: one string, or every string of a list.
fn string_list(args: &Json, keys: Keys) -> Vec<String> {
    match keys.iter().find_map(|k| args.get(*k)) {
        Some(Json::String(s)) => vec![s.clone()],
        Some(Json::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// Every string under a key named `url`, at any depth (bounded: arguments
/// nested deeper than 16 levels are not a tool's real shape).
fn nested_urls(args: &Json) -> Vec<&str> {
    fn walk<'a>(v: &'a Json, depth: usize, out: &mut Vec<&'a str>) {
        if depth > 16 {
            return;
        }
        match v {
            Json::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("url", Json::String(s)) => out.push(s),
                        _ => walk(v, depth + 1, out),
                    }
                }
            }
            Json::Array(items) => items.iter().for_each(|i| walk(i, depth + 1, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(args, 0, &mut out);
    out
}

/// The permission questions a call implies. `root` is the project root;
/// `call_dir` the directory the call runs in when the harness says it
/// differs (Codex's per-call `workdir`): relative patch paths and a
/// search's relative directory are taken from it. A search too wide to
/// check is an error (the caller denies).
pub fn permission_checks(
    harness: Harness,
    tool: &str,
    args: &Json,
    root: &str,
    call_dir: Option<&str>,
) -> Result<Vec<Check>, String> {
    let shell = |command: &str| Check {
        hook: "pre_shell_exec",
        payload: json!({"tool_name": tool, "command": command}),
        note: None,
    };
    let read = |path: &str| Check {
        hook: "pre_file_read",
        payload: json!({"tool_name": tool, "path": path}),
        note: None,
    };
    let searched = |path: &str| Check {
        note: Some(SEARCH_NOTE),
        ..read(path)
    };
    let write = |path: &str, content: Option<&str>| Check {
        hook: "pre_file_write",
        payload: json!({"tool_name": tool, "path": path, "content": content}),
        note: None,
    };
    let fetch = |url: &str| Check {
        hook: "pre_fetch_url",
        payload: fetch_payload(tool, url),
        note: None,
    };
    let action = mapping(harness, tool).map_or(Other, |m| m.action);
    let mut out = Vec::new();
    match action {
        Shell { command } => out.push(shell(&command_line(args, command))),
        ShellEach { list } => {
            for line in each_entry(tool, args, list, "command", command_entry)? {
                out.push(shell(&line));
            }
        }
        ReadEach { list } => {
            for path in each_entry(tool, args, list, "path", path_entry)? {
                out.push(read(&path));
            }
        }
        ShellSession {
            command,
            input,
            keys,
        } => {
            let mut typed = first_str(args, input).unwrap_or("").to_string();
            typed.push_str(&super::typed_input::keys_text(
                first_str(args, keys).unwrap_or(""),
            ));
            let line = command_line(args, command);
            // A call that types submits lines of its own; one that types
            // nothing is judged by its command (empty for list/poll/kill).
            if !typed.is_empty() {
                out.push(shell(&super::typed_input::submitted(&typed)));
            }
            if !line.is_empty() || typed.is_empty() {
                out.push(shell(&line));
            }
        }
        Read { path } => {
            if let Some(p) = first_str(args, path) {
                out.push(read(p));
            }
        }
        Write { path, content } => {
            let p = first_str(args, path).unwrap_or("");
            out.push(write(p, first_str(args, content)));
        }
        MultiEdit { path } => {
            let p = first_str(args, path).unwrap_or("");
            let content: Vec<&str> = args
                .get("edits")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("new_string").and_then(Json::as_str))
                .collect();
            out.push(write(p, Some(&content.join("\n"))));
        }
        Fetch { url } => out.push(fetch(first_str(args, url).unwrap_or(""))),
        Search { path, include } => {
            use super::search_walk as walk;
            let dir = first_str(args, path).unwrap_or(".");
            let base = call_dir.unwrap_or(root);
            // Each tool's own file selection (search_walk's module docs).
            let selection = match harness {
                ClaudeCode => walk::claude_grep(args),
                Gemini => walk::gemini_grep(args, base),
                Cline => walk::cline_search(tool, args),
                _ => walk::everything(string_list(args, include)),
            };
            let files = walk::files_searched(dir, &selection, base).map_err(|e| e.to_string())?;
            for (i, file) in files.iter().enumerate() {
                // The directory itself was named; the files below were not.
                out.push(if i == 0 { read(file) } else { searched(file) });
            }
        }
        ReadMany { list } => {
            // Plain paths are reads; globs are expanded like a search's
            // include globs, over the call's directory.
            let (globs, plain): (Vec<String>, Vec<String>) = string_list(args, list)
                .into_iter()
                .partition(|p| p.contains(['*', '?', '[', '{']));
            for p in &plain {
                out.push(read(p));
            }
            if !globs.is_empty() {
                use super::search_walk as walk;
                let base = call_dir.unwrap_or(root);
                let selection = match harness {
                    Gemini => walk::gemini_read_many(args, globs, base),
                    _ => walk::everything(globs),
                };
                let files =
                    walk::files_searched(".", &selection, base).map_err(|e| e.to_string())?;
                for file in files.iter().skip(1) {
                    out.push(searched(file));
                }
            }
        }
        ReadOps { list, path, paths } => {
            let items: Vec<&Json> = match keys_value(args, list) {
                Some(Json::Array(items)) => items.iter().collect(),
                // A list of another type names nothing we can read: refuse.
                Some(_) => return Err("the list of read operations is not a list".into()),
                None => vec![args],
            };
            for item in items {
                if let Some(p) = first_str(item, path) {
                    out.push(read(p));
                }
                for p in string_list(item, paths) {
                    out.push(read(&p));
                }
            }
        }
        Watch { command } => {
            if let Some(c) = first_str(args, command) {
                out.push(shell(c));
            }
            for u in nested_urls(args) {
                out.push(fetch(u));
            }
        }
        LoadTools { .. } => {}
        FetchInText { text } => {
            for url in urls_in_text(first_str(args, text).unwrap_or("")) {
                out.push(fetch(url));
            }
        }
        Patch { text } => {
            for (path, content) in patch_files(first_str(args, text).unwrap_or("")) {
                // Codex applies a patch in the call's working directory.
                let path = match call_dir {
                    Some(dir) if !path.starts_with('/') && !path.starts_with('~') => {
                        format!("{}/{path}", dir.trim_end_matches('/'))
                    }
                    _ => path,
                };
                out.push(write(&path, Some(&content)));
            }
        }
        Other => {
            // Unlisted tools (MCP servers, plugins): a command or URL
            // argument is what it looks like, at any depth for URLs. A
            // command given as argv (`["rm", "-rf", "/"]`) is one too.
            if let Some(Json::String(_) | Json::Array(_)) = args.get("command") {
                out.push(shell(&command_line(args, &["command"])));
            }
            for u in nested_urls(args) {
                out.push(fetch(u));
            }
        }
    }
    Ok(out)
}

/// The command line of a shell call. Codex may pass the command as argv
/// (`["bash", "-lc", "..."]`): quoted back into one line, the shell analysis
/// sees through it. A shell tool without a command is still a shell call:
/// the empty line is checked rather than nothing.
fn command_line(args: &Json, command: Keys) -> String {
    command
        .iter()
        .find_map(|k| match args.get(*k) {
            Some(Json::String(s)) => Some(s.clone()),
            Some(Json::Array(words)) => Some(argv_line(words)),
            _ => None,
        })
        .unwrap_or_default()
}

/// The entries of a list tool's call (Cline 4's run_commands and
/// read_files): the first present key holds one entry or a list of them;
/// without any of the keys every top-level value is one (an input sent as a
/// bare list arrives as `{"0": ..., "1": ...}`), JSON text of an object or a
/// list read as that. `read` gives an entry's text. An entry it cannot read,
/// or no entry at all, is an error (the caller denies): a call that cannot
/// be seen into is not let through.
fn each_entry(
    tool: &str,
    args: &Json,
    keys: Keys,
    what: &str,
    read: fn(&Json) -> Option<String>,
) -> Result<Vec<String>, String> {
    let mut entries: Vec<Json> = Vec::new();
    let mut add = |v: &Json| match v {
        Json::Array(items) => entries.extend(items.iter().cloned()),
        other => entries.push(other.clone()),
    };
    match keys.iter().find_map(|k| args.get(*k)) {
        Some(v) => add(v),
        None => {
            for v in args.as_object().into_iter().flat_map(|m| m.values()) {
                match v.as_str().map(serde_json::from_str::<Json>) {
                    Some(Ok(parsed @ (Json::Array(_) | Json::Object(_)))) => add(&parsed),
                    _ => add(v),
                }
            }
        }
    }
    let unreadable =
        || format!("the `{tool}` call has a {what} that hook-policy cannot read, so it is denied");
    let out = entries
        .iter()
        .map(|e| read(e).ok_or_else(unreadable))
        .collect::<Result<Vec<_>, _>>()?;
    if out.is_empty() {
        return Err(format!(
            "the `{tool}` call names no {what} that hook-policy can check, so it is denied"
        ));
    }
    Ok(out)
}

/// A command entry: a command line, or `{command, args}` as argv.
fn command_entry(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Object(o) => {
            let mut words = vec![o.get("command").filter(|c| c.is_string())?.clone()];
            match o.get("args") {
                None | Some(Json::Null) => {}
                Some(Json::Array(a)) if a.iter().all(Json::is_string) => {
                    words.extend(a.iter().cloned())
                }
                Some(_) => return None,
            }
            Some(argv_line(&words))
        }
        _ => None,
    }
}

/// A path entry: a path, or an object's `path` (`file_path`, `filePath`,
/// the names Cline 4's read_files also accepts).
fn path_entry(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Object(o) => ["path", "file_path", "filePath"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Json::as_str))
            .map(str::to_string),
        _ => None,
    }
}

/// An argv array as one shell line, each word single-quoted unless it is
/// plainly safe. Non-string words become JSON text (and so are visible).
fn argv_line(words: &[Json]) -> String {
    let mut out = String::new();
    for w in words {
        let w = match w {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        };
        if !out.is_empty() {
            out.push(' ');
        }
        let plain = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b));
        if plain {
            out.push_str(&w);
        } else {
            out.push('\'');
            out.push_str(&w.replace('\'', r"'\''"));
            out.push('\'');
        }
    }
    out
}

/// `pre_fetch_url`'s payload as chibi would send it, with hook-policy's own
/// classification standing in for chibi's (other harnesses send every URL).
fn fetch_payload(tool: &str, url: &str) -> Json {
    let info = crate::url_class::one_call::classify(url);
    let reason = match info.class.as_str() {
        "loopback" => Some("loopback address"),
        "private" => Some("private network address"),
        "link_local" => Some("link-local address"),
        "cloud_metadata" => Some("cloud metadata endpoint"),
        "invalid" => Some("could not parse URL"),
        _ if info.class.is_internal() => Some("private network address"),
        _ => None,
    };
    match reason {
        Some(r) => json!({"tool_name": tool, "url": url, "safety": "sensitive", "reason": r}),
        None => json!({"tool_name": tool, "url": url, "safety": "public"}),
    }
}

/// Every URL in a free text: each `scheme://...` up to whitespace, a
/// closing parenthesis, a quote or an angle bracket (`]` belongs to IPv6), whatever the scheme (a `file://` in a prompt
/// is still a fetch to judge).
pub fn urls_in_text(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("://") {
        let sep = from + found;
        let mut start = sep;
        while start > 0 {
            let b = bytes[start - 1];
            if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.') {
                start -= 1;
            } else {
                break;
            }
        }
        // A scheme starts with a letter.
        while start < sep && !bytes[start].is_ascii_alphabetic() {
            start += 1;
        }
        let end = text[sep..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | ')' | '`'))
            .map_or(text.len(), |n| sep + n);
        if start < sep {
            out.push(text[start..end].trim_end_matches(['.', ',', ';', ':']));
        }
        from = end.max(sep + 3);
    }
    out
}

/// The files a Codex patch touches, each with the lines it adds.
pub fn patch_files(patch: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in patch.lines() {
        let header = [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|h| line.strip_prefix(h));
        if let Some(path) = header {
            out.push((path.trim().to_string(), String::new()));
        } else if let (Some(added), Some((_, content))) = (line.strip_prefix('+'), out.last_mut()) {
            content.push_str(added);
            content.push('\n');
        }
    }
    out
}

/// Where compiled policies come from: one compiled for every hook (a
/// long-running server), or one per hook, loaded on first use through the
/// plugin cache (a process per call); and whether the caller records more
/// than the reply.
pub struct PolicySource {
    policies: Policies,
    /// Nothing but the reply is told (no decision log): a final deny may
    /// leave the rules after it unevaluated (see `eval::decide_for_reply`).
    reply_only: bool,
}

enum Policies {
    /// One policy compiled whole, for every hook (serve).
    Whole(std::sync::Arc<Prepared>),
    /// Per hook through the cache, the files examined once for all hooks.
    PerHook {
        lookup: crate::cache::Lookup,
        prepared: HashMap<&'static str, Prepared>,
    },
}

impl PolicySource {
    pub fn compiled(prepared: std::sync::Arc<Prepared>) -> PolicySource {
        PolicySource {
            policies: Policies::Whole(prepared),
            reply_only: false,
        }
    }

    /// A source whose policy cannot be had (its list file is missing):
    /// every hook gets `message` as a load failure, and fails by its class.
    pub fn broken(message: String) -> PolicySource {
        PolicySource::compiled(std::sync::Arc::new(Prepared::Broken {
            message,
            diagnostics: Vec::new(),
        }))
    }

    pub fn per_hook(paths: Vec<PathBuf>, cache_dir: Option<&Path>) -> PolicySource {
        PolicySource::through(crate::cache::Lookup::new(&paths, cache_dir))
    }

    /// Per hook through a lookup that may have served the call already.
    pub fn through(lookup: crate::cache::Lookup) -> PolicySource {
        PolicySource {
            policies: Policies::PerHook {
                lookup,
                prepared: HashMap::new(),
            },
            reply_only: false,
        }
    }

    /// Says that the caller records nothing but the reply (no decision
    /// log): a deny that no later rule can change then ends the rules of
    /// its hook, and [`CallDecision::matched`] and `logged` may miss the
    /// rules after it.
    pub fn reply_only(&mut self) {
        self.reply_only = true;
    }

    pub fn get(&mut self, hook: &'static str) -> &Prepared {
        match &mut self.policies {
            Policies::Whole(p) => p,
            Policies::PerHook { lookup, prepared } => {
                prepared.entry(hook).or_insert_with(|| lookup.prepare(hook))
            }
        }
    }
}

/// What a harness is told about a tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Deny(String),
    Ask(String),
    /// Run the call with these arguments instead.
    Rewrite(Json),
    /// No rule had anything to say: the harness decides as if we were not there.
    NoOpinion,
}

/// The verdict on a call, with what the log and stderr need.
#[derive(Debug, Clone)]
pub struct CallDecision {
    pub verdict: Verdict,
    /// Rules that matched, over every question asked.
    pub matched: Vec<String>,
    /// Log-only rules that matched, for the decision log.
    pub logged: Vec<crate::eval::Logged>,
    /// The rule the verdict comes from, if one rule gave it.
    pub rule: Option<String>,
    /// Problems worth a line on stderr.
    pub notes: Vec<String>,
    /// Whether the verdict comes from a failure rather than a rule.
    pub failed: bool,
    /// The deciding rule's reason as the policy wrote it (before `${{ }}`
    /// interpolation), for the decision log.
    pub reason_template: Option<String>,
}

/// The result of one canonical question.
enum Answer {
    Decided(Decision),
    /// The policy could not decide; the failure mode is already applied.
    Failed {
        message: String,
        mode: FailureMode,
    },
}

fn ask(
    source: &mut PolicySource,
    hook: &'static str,
    payload: &Json,
    ctx: DecideContext<'_>,
) -> Answer {
    let hp = catalogue::hook(hook).expect("adapters only ask catalogued hooks");
    let run = if source.reply_only {
        engine::run_for_reply
    } else {
        engine::run
    };
    let (policy, on_error): (&CompiledPolicy, Option<OnError>) = match source.get(hook) {
        Prepared::Ready(p) => (p, p.on_error),
        Prepared::Broken { message, .. } => {
            return Answer::Failed {
                message: format!("the policy does not load: {message}"),
                mode: failure_mode(hp, None),
            }
        }
    };
    let mode = failure_mode(hp, on_error);
    match run(policy, hook, payload, ctx) {
        engine::Outcome::Failed(message) => Answer::Failed { message, mode },
        engine::Outcome::Decided(d) => match d.error_summary() {
            // A rule that did work and denies still denies; otherwise the
            // failure rules apply (see the chibi adapter, same reasoning).
            Some(errors)
                if !(d.deny.is_some() || d.block.is_some()) || mode == FailureMode::Open =>
            {
                Answer::Failed {
                    message: format!("a rule failed at run time: {errors}"),
                    mode,
                }
            }
            _ => Answer::Decided(d),
        },
    }
}

/// A rule's reason as written, looked up in the policy compiled for `hook`.
fn template(source: &mut PolicySource, hook: &'static str, rule: &str) -> Option<String> {
    match source.get(hook) {
        // Through `find_rule`: a policy from the prepared form has only the
        // rules its decisions visited compiled, the matched one among them.
        Prepared::Ready(p) => p.find_rule(rule).and_then(|r| r.reason_source.clone()),
        Prepared::Broken { .. } => None,
    }
}

/// A native tool's arguments as `pre_tool` sees them: the listed ones
/// renamed and rescaled, the rest unchanged.
pub fn to_canonical(c: &Canonical, args: &Map<String, Json>) -> Json {
    let mut out = Map::new();
    for (k, v) in args {
        match c.args.iter().find(|a| a.native == k) {
            Some(a) => {
                out.insert(a.canonical.into(), scale_down(v, a.native_per_unit));
            }
            None => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Json::Object(out)
}

/// A canonical argument a `pre_tool` rule set, in the harness's own name and unit.
pub fn to_native(c: &Canonical, key: &str, value: Json) -> (String, Json) {
    match c.args.iter().find(|a| a.canonical == key) {
        Some(a) => (a.native.to_string(), scale_up(&value, a.native_per_unit)),
        None => (key.to_string(), value),
    }
}

fn scale_down(v: &Json, per: u32) -> Json {
    if per == 1 {
        return v.clone();
    }
    match v {
        Json::Number(n) if n.as_u64().is_some_and(|u| u % u64::from(per) == 0) => {
            json!(n.as_u64().unwrap_or(0) / u64::from(per))
        }
        Json::Number(n) => n
            .as_f64()
            .map_or_else(|| v.clone(), |f| json!(f / f64::from(per))),
        other => other.clone(),
    }
}

fn scale_up(v: &Json, per: u32) -> Json {
    if per == 1 {
        return v.clone();
    }
    match v {
        Json::Number(n) if n.as_i64().is_some() => {
            json!(n.as_i64().unwrap_or(0).saturating_mul(i64::from(per)))
        }
        Json::Number(n) => n
            .as_f64()
            .map_or_else(|| v.clone(), |f| json!((f * f64::from(per)).round() as i64)),
        other => other.clone(),
    }
}

/// The tools a ToolSearch query loads by name: `select:A,B`.
fn tools_selected(query: &str) -> Vec<String> {
    query
        .trim()
        .strip_prefix("select:")
        .map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn with_rule(text: &str, rule: &str) -> String {
    format!("{text} [hook-policy rule: {rule}]")
}

/// Whether the tool filter would offer one tool: the answer of step 2.
#[derive(Debug, Default)]
pub struct Offered {
    /// The reason and the rule, when the tool would not be offered.
    pub refused: Option<(String, Option<String>)>,
    /// Rules of the filter that matched.
    pub matched: Vec<String>,
    /// A filter that could not decide, for stderr: what it could not decide
    /// hides nothing (the tool-filter class fails open).
    pub note: Option<String>,
}

/// Asks the policy's `pre_api_tools` rules about the called tool (first in
/// `tools`) and any tools the call would load, with `turn`
/// (the rest of the payload: `context_name`, `fuel_*`) as the turn's facts.
/// A tool hidden from the model must not run when called by name anyway.
pub fn offered(
    source: &mut PolicySource,
    tools: &[(String, &str)],
    turn: Map<String, Json>,
    ctx: DecideContext<'_>,
) -> Offered {
    offered_for(source, tools, &tools_payload(tools, turn), ctx)
}

/// The `pre_api_tools` payload: the turn's facts and the tools.
fn tools_payload(tools: &[(String, &str)], mut turn: Map<String, Json>) -> Json {
    let listed: Vec<Json> = tools
        .iter()
        .map(|(n, t)| json!({"name": n, "type": t}))
        .collect();
    turn.insert("tools".into(), Json::Array(listed));
    Json::Object(turn)
}

/// A step-2 payload with the context and tools it was built from.
type KeptToolsPayload = (String, Vec<(String, &'static str)>, std::rc::Rc<Json>);

thread_local! {
    /// The last step-2 payloads built by [`decide_call`] on this thread.
    static TOOL_PAYLOADS: std::cell::RefCell<Vec<KeptToolsPayload>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// How many of those payloads are kept (a server sees a few tools in a
/// few contexts).
const TOOL_PAYLOADS_KEPT: usize = 16;
/// The longest names (context and tools together) a kept payload has.
const TOOL_PAYLOAD_KEPT_BYTES: usize = 256;

/// [`tools_payload`] of a tool call's context and tools, built once per
/// thread for each: its maps and strings (a dozen allocations and hashed
/// inserts) were a tenth of a PicoClaw request. The payload is data only,
/// the same whichever call built it.
fn call_tools_payload(tools: &[(String, &'static str)], context_name: &str) -> std::rc::Rc<Json> {
    TOOL_PAYLOADS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some((.., payload)) = kept
            .iter()
            .find(|(context, listed, _)| context == context_name && listed.as_slice() == tools)
        {
            return payload.clone();
        }
        let mut turn = Map::new();
        turn.insert("context_name".into(), json!(context_name));
        let payload = std::rc::Rc::new(tools_payload(tools, turn));
        let size = context_name.len() + tools.iter().map(|(n, _)| n.len()).sum::<usize>();
        if size > TOOL_PAYLOAD_KEPT_BYTES {
            return payload; // names sent to us can be long: not kept
        }
        if kept.len() == TOOL_PAYLOADS_KEPT {
            kept.remove(0);
        }
        kept.push((context_name.to_string(), tools.to_vec(), payload.clone()));
        payload
    })
}

/// [`offered`] with its payload built.
fn offered_for(
    source: &mut PolicySource,
    tools: &[(String, &str)],
    payload: &Json,
    ctx: DecideContext<'_>,
) -> Offered {
    let tool = tools.first().map_or("", |(n, _)| n.as_str());
    let mut out = Offered::default();
    let policy = match source.get("pre_api_tools") {
        Prepared::Ready(p) => p,
        Prepared::Broken { message, .. } => {
            out.note = Some(format!(
                "pre_api_tools: the policy does not load: {message}"
            ));
            return out;
        }
    };
    match engine::run(policy, "pre_api_tools", payload, ctx) {
        engine::Outcome::Failed(message) => out.note = Some(format!("pre_api_tools: {message}")),
        engine::Outcome::Decided(d) => {
            // Rules that failed could only have hidden more (excludes
            // unite, includes intersect): what the others hide stays hidden.
            if let Some(errors) = d.error_summary() {
                out.note = Some(format!(
                    "pre_api_tools: a rule failed at run time: {errors}"
                ));
            }
            let hidden = tools.iter().map(|(n, _)| n.as_str()).find(|n| {
                let included = d.include.as_ref().is_none_or(|i| i.iter().any(|x| x == n));
                let excluded = d.exclude.iter().any(|x| x == n);
                !included || excluded
            });
            if let Some(name) = hidden {
                let rules = d.matched.join(", ");
                let what = if name == tool {
                    format!("the tool `{tool}` is not offered under this policy")
                } else {
                    format!("`{tool}` would load `{name}`, which is not offered under this policy")
                };
                out.refused = Some((
                    format!("{what} [hook-policy rule: {rules}]"),
                    d.matched.first().cloned(),
                ));
            }
            out.matched = d.matched;
        }
    }
    out
}

/// One tool call as a harness sent it.
#[derive(Clone, Copy)]
pub struct ToolCall<'a> {
    pub harness: Harness,
    /// The tool's name in the harness's own terms.
    pub tool: &'a str,
    /// The call's arguments (anything but an object counts as none).
    pub arguments: &'a Json,
    /// The harness's whole event, for what the native hook sees.
    pub native_payload: &'a Json,
    /// PicoClaw's approve_tool is the native event instead of before_tool.
    pub approval: bool,
    /// What `pre_api_tools` rules see as the context (chibi's named
    /// contexts have no equivalent elsewhere; see the adapters).
    pub context_name: &'a str,
}

/// Decides one tool call.
pub fn decide_call(
    source: &mut PolicySource,
    call: &ToolCall<'_>,
    ctx: DecideContext<'_>,
) -> CallDecision {
    // A fetch's URL is classified for its payload and again by the rules'
    // URL matchers: once is enough (url_class::one_call).
    crate::url_class::one_call::one_call(|| decide_one_call(source, call, ctx))
}

fn decide_one_call(
    source: &mut PolicySource,
    call: &ToolCall<'_>,
    ctx: DecideContext<'_>,
) -> CallDecision {
    let ToolCall {
        harness,
        tool,
        arguments,
        native_payload,
        approval,
        context_name,
    } = *call;
    let mut out = CallDecision {
        verdict: Verdict::NoOpinion,
        matched: Vec::new(),
        logged: Vec::new(),
        rule: None,
        notes: Vec::new(),
        failed: false,
        reason_template: None,
    };
    let mut asked: Option<(String, String)> = None;
    let deny = |out: &mut CallDecision, reason: String, rule: Option<String>| {
        out.verdict = Verdict::Deny(reason);
        out.rule = rule;
    };
    // The call's arguments as sent (an object: anything else counts as
    // none), and the rewritten ones once a rule rewrites: borrowed until
    // then, as most calls are not rewritten.
    let no_args = Json::Object(Map::new());
    let sent: &Json = if arguments.is_object() {
        arguments
    } else {
        &no_args
    };
    let no_map = Map::new();
    let sent_map = sent.as_object().unwrap_or(&no_map);
    let mut rewritten: Option<Json> = None;

    // 1. pre_tool: block, or rewrite the arguments, in canonical terms
    // (chibi's tool name, names and units), turned back afterwards.
    let view = canonical(harness, tool);
    let mut payload = Map::new();
    match view {
        Some(c) => {
            payload.insert("tool_name".into(), Json::from(c.name));
            payload.insert("arguments".into(), to_canonical(c, sent_map));
        }
        None => {
            payload.insert("tool_name".into(), Json::from(tool));
            payload.insert("arguments".into(), sent.clone());
        }
    }
    match ask(source, "pre_tool", &Json::Object(payload), ctx) {
        Answer::Failed { message, mode } => {
            out.notes.push(format!("pre_tool: {message}"));
            if mode == FailureMode::Closed {
                out.failed = true;
                deny(
                    &mut out,
                    format!("hook-policy could not decide, so it denies (fail closed): {message}"),
                    None,
                );
                return out;
            }
        }
        Answer::Decided(d) => {
            out.matched.extend(d.matched);
            out.logged.extend(d.logged);
            if let Some(b) = d.block {
                out.reason_template = template(source, "pre_tool", &b.rule);
                deny(&mut out, with_rule(&b.value, &b.rule), Some(b.rule));
                return out;
            }
            if !d.arguments.is_empty() {
                let mut m: Map<String, Json> = sent_map.clone();
                for (k, w) in d.arguments {
                    match view {
                        Some(c) => {
                            let (k, v) = to_native(c, &k, w.value);
                            m.insert(k, v);
                        }
                        None => {
                            m.insert(k, w.value);
                        }
                    }
                }
                rewritten = Some(Json::Object(m));
            }
        }
    }
    let args: &Json = rewritten.as_ref().unwrap_or(sent);

    // 2. pre_api_tools with just this tool, and with every tool a tool
    // search would load (Claude Code's ToolSearch `select:A,B`).
    let tool_type = mapping(harness, tool).map_or("other", |m| m.tool_type);
    let mut tools = vec![(tool.to_string(), tool_type)];
    if let Some(Action::LoadTools { query }) = mapping(harness, tool).map(|m| m.action) {
        for name in tools_selected(first_str(args, query).unwrap_or("")) {
            let ty = mapping(harness, &name).map_or("other", |m| m.tool_type);
            tools.push((name, ty));
        }
    }
    let gate = offered_for(
        source,
        &tools,
        &call_tools_payload(&tools, context_name),
        ctx,
    );
    out.matched.extend(gate.matched);
    out.notes.extend(gate.note);
    if let Some((reason, rule)) = gate.refused {
        deny(&mut out, reason, rule);
        return out;
    }

    // 3. The permission hooks of the tool's action, then 4. the native event.
    let call_dir = native_payload
        .get("cwd")
        .and_then(Json::as_str)
        .filter(|d| {
            !d.is_empty() && d.trim_end_matches('/') != ctx.project_root.trim_end_matches('/')
        });
    let questions = match permission_checks(harness, tool, args, ctx.project_root, call_dir) {
        Ok(q) => q,
        Err(message) => {
            deny(&mut out, message, None);
            return out;
        }
    };
    // Native rules see the rewritten arguments too (a rewrite to the same
    // arguments is none); otherwise the event as it came.
    let changed = rewritten.as_ref().filter(|r| *r != sent);
    let native_rewritten = match (changed, native_payload.as_object()) {
        (Some(args), Some(obj)) => {
            let mut obj = obj.clone();
            let key = if harness == PicoClaw {
                "arguments"
            } else {
                "tool_input"
            };
            obj.insert(key.into(), args.clone());
            Some(Json::Object(obj))
        }
        _ => None,
    };
    let native_event = native_rewritten.as_ref().unwrap_or(native_payload);
    let mut native_args: Vec<(String, Json)> = Vec::new();
    let asked_in_turn = questions
        .iter()
        .map(|q| (q.hook, &q.payload, q.note))
        .chain([(native_hook(harness, approval), native_event, None)]);
    for (hook, payload, note) in asked_in_turn {
        match ask(source, hook, payload, ctx) {
            Answer::Failed { message, mode } => {
                out.notes.push(format!("{hook}: {message}"));
                if mode == FailureMode::Closed {
                    out.failed = true;
                    deny(
                        &mut out,
                        format!(
                            "hook-policy could not decide, so it denies (fail closed): {message}"
                        ),
                        None,
                    );
                    return out;
                }
            }
            Answer::Decided(d) => {
                out.matched.extend(d.matched);
                out.logged.extend(d.logged);
                if let Some(dn) = d.deny {
                    out.reason_template = template(source, hook, &dn.rule);
                    let reason = match note {
                        Some(note) => format!("{} {note}", dn.value),
                        None => dn.value,
                    };
                    deny(&mut out, with_rule(&reason, &dn.rule), Some(dn.rule));
                    return out;
                }
                if let (Some(a), None) = (d.ask, &asked) {
                    out.reason_template = template(source, hook, &a.rule);
                    asked = Some((with_rule(&a.value, &a.rule), a.rule));
                }
                for (k, w) in d.arguments {
                    native_args.push((k, w.value));
                }
            }
        }
    }
    if !native_args.is_empty() {
        let mut m = args.as_object().cloned().unwrap_or_default();
        for (k, v) in native_args {
            m.entry(k).or_insert(v);
        }
        rewritten = Some(Json::Object(m));
    }

    if let Some((reason, rule)) = asked {
        if harness.can_ask() {
            out.verdict = Verdict::Ask(reason);
        } else {
            out.verdict = Verdict::Deny(format!(
                "needs the user's approval, which {} hooks cannot ask for: {reason}",
                harness.title()
            ));
        }
        out.rule = Some(rule);
    } else if let Some(args) = rewritten.filter(|r| r != sent) {
        out.verdict = Verdict::Rewrite(args);
    }
    out
}

/// What each coding agent really does with our replies and where the
/// project root comes from, with the versions the facts were read from
/// (runs of the real agents: ../shared/fixtures/*/README.md).
fn harness_facts(h: Harness) -> &'static [&'static str] {
    match h {
        ClaudeCode => &[
            "Read from Claude Code 2.1.328 and 2.1.331 (`claude -p`, real runs).",
            "Install: `policy install claude-code --settings ~/.claude/settings.json` copies the binary to `$XDG_DATA_HOME/hook-policy/policy` (else `~/.local/share/hook-policy/policy`) and the entry runs that copy with `--policy-list`: a hook command that cannot start (status 127) is ignored by Claude Code and the tool runs, so the entry never points at a build folder. `policy uninstall claude-code --settings FILE` takes it out again. Install warns when the settings say `disableAllHooks: true`.",
            "Project root: `CLAUDE_PROJECT_DIR` (Claude Code sets it for hooks), else the event's `cwd`; `HOOK_POLICY_PROJECT_ROOT` overrides both. Directories added with `--add-dir` are not sent to hooks, so paths in them count as outside the project.",
            "`ask` asks the user, and a rewrite is sent as `ask` with `updatedInput`, never `allow`. Under `claude -p` there is no user to ask: Claude Code refuses an asked call, rewritten ones included. Under `permission_mode: bypassPermissions` Claude Code runs an asked call without asking (anthropics/claude-code#77212), so there an ask denies.",
            "Events carry `prompt_id` and `effort` (catalogued on `claude_code.PreToolUse`); WebFetch and Monitor are deferred tools that the model first loads with ToolSearch; `Task` is now `Agent`.",
            "`Grep` runs ripgrep with `--hidden`, `--glob '!.git'` (and `.svn .hg .bzr .jj .sl`), `--type` for `type` and one `--glob` per word of `glob` (GrepTool.ts); no `--no-ignore`, no `-L`. Its check therefore reads hidden files (a `.env` too) but skips what `.gitignore` (inside a git repository), `.ignore` or `.rgignore` leaves out, so `node_modules/` and `target/` do not count against the search bound.",
        ],
        Gemini => &[
            "Read from Gemini CLI 0.61 (`gemini -p --yolo`, real runs) and its source.",
            "Install: `policy install gemini --settings ~/.gemini/settings.json`; BeforeModel is installed only when the policy has `pre_api_request` rules (install again after adding some). Install warns when `hooksConfig` switches hooks, or `hook-policy`, off.",
            "Project root: `GEMINI_PROJECT_DIR` (Gemini sets it for hooks), else the event's `cwd`; `HOOK_POLICY_PROJECT_ROOT` overrides both.",
            "`ask`: Gemini 0.61 has `decision: ask`, but it hung a headless `--yolo` run until killed, so an ask is answered with a deny.",
            "`grep_search` runs ripgrep (ripGrep.ts, while `tools.useRipgrep` is on and ripgrep is found): no `--hidden`, `--glob` for `include_pattern`, `--no-ignore` for `no_ignore`, else `--glob '!**/node_modules/**'` and other excludes. Without ripgrep it runs `git grep --untracked` in a git repository, else `grep -r` (grep.ts), which read hidden files; the hook cannot tell which runs, so its check reads hidden files and honours only `.gitignore`. Not checked, as only `git grep` reads them and telling needs git: a file tracked by git yet named in `.gitignore`, and a `node_modules/` (or `.svn`, `.hg`, `bower_components`) that `.gitignore` does not name.",
            "BeforeModel: Gemini takes `model` and, from `llm_request.config`, temperature, maxOutputTokens, topP and topK, unsetting any of the four a reply leaves out; the reply therefore carries the incoming config with the rules' keys changed. Other request keys (stop sequences, ...) are dropped by Gemini; `policy check` warns about them (`lint::request-key-ignored`).",
        ],
        Codex => &[
            "Read from Codex CLI 0.169 (`codex exec`, real runs) and its source.",
            "Install: `policy install codex --settings ~/.codex/hooks.json`. Codex runs a new or changed hook only once the user trusts it (`/hooks` in the TUI, or `--dangerously-bypass-hook-trust` for unattended runs) and skips an untrusted one without a word. The entry runs the installed copy with `--policy-list`, so installing another policy rewrites only the list file and the trusted entry stays byte for byte the same.",
            "Project root: the directory Codex starts the hook in (the session's working directory), or `HOOK_POLICY_PROJECT_ROOT`; never the event's `cwd`, which is the `workdir` the model chose for that call. Relative paths of an `apply_patch` are taken from that `cwd`, where Codex applies them.",
            "`ask`: Codex treats `permissionDecision: ask` as unsupported and runs the command, so an ask is answered with a deny. Codex applies a rewrite only with `allow` + `updatedInput`; hook-policy never says allow, so a rewrite is denied.",
        ],
        PicoClaw => &[],
        // Built from vendor pages: the facts live beside their tool maps.
        Cursor | Copilot | Windsurf | Cline | OpenCode | Kiro => {
            crate::catalogue::tools::vendor_facts(h)
        }
    }
}

/// Which files a harness's content search reads, for `docs/adapters.md`
/// (the rules themselves: `search_walk`'s module docs).
fn search_selection(h: Harness, include: String) -> String {
    match h {
        ClaudeCode => format!("ripgrep with `--hidden` and `--glob '!.git'` (and the other VCS directories): hidden files included; `.gitignore` (in a git repository), `.ignore`, `.rgignore` honoured; {include} as `--glob` (which also reads ignored files it names) and `type` as `--type`"),
        Gemini => format!("ripgrep, or without it `git grep --untracked` / `grep -r`, so hidden files included; `.gitignore` honoured in a git repository unless `no_ignore` is true or a Gemini settings file sets `respectGitIgnore`; `node_modules .git bower_components .svn .hg` skipped unless `no_ignore`; {include} as `--glob`"),
        Cline => format!("ripgrep as Cline runs it: `search_files` with {include} (default `*`) as `--glob`, which overrides every ignore rule, so hidden and ignored files are read; `search_codebase` with ripgrep's defaults (no hidden files, ignore files honoured)"),
        _ => format!("every file but `.git`, that {include} admits (all without one)"),
    }
}

/// Renders [`TOOL_MAP`] as Markdown; committed as `docs/adapters.md`.
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "# Adapters: harness tools onto canonical hooks\n\n\
         Generated by `policy adapters --markdown` from `src/catalogue/tools.rs`; do not edit by hand.\n\n\
         Every tool call is asked, in order: `pre_tool` (`{tool_name, arguments}`; a block denies,\n\
         argument rewrites apply to what follows), `pre_api_tools` with the one tool (a tool the\n\
         policy would not offer is denied), the permission hooks below, and the harness's native\n\
         event. A deny anywhere wins; an ask wins over silence.\n\n\
         `pre_tool` sees a shell tool in canonical terms on every harness: `tool_name` is\n\
         `shell_exec`, and arguments carry chibi's names and units (Claude Code's Bash `timeout`\n\
         arrives in seconds; a rewrite of it goes back in milliseconds). Other tools keep their\n\
         native names there; rules on native names belong on the native event.\n\n\
         Tools not listed get `pre_tool` and `pre_api_tools` (type `other`) only, except that a\n\
         string argument named `command` is checked at `pre_shell_exec` and every string under a\n\
         key named `url`, at any depth, at `pre_fetch_url`.\n\n",
    );
    for h in Harness::ALL {
        let _ = writeln!(out, "## {} (`{}`)\n", h.title(), h.name());
        let _ = writeln!(
            out,
            "Native event for rules: `{}`{}. `ask`: {}.\n",
            native_hook(h, false),
            if h == PicoClaw {
                " (and `picoclaw.approve_tool`)"
            } else {
                ""
            },
            if h.can_ask() {
                "asks the user"
            } else {
                "denies, saying that the user's approval is needed"
            }
        );
        for line in harness_facts(h) {
            let _ = writeln!(out, "- {line}");
        }
        if !harness_facts(h).is_empty() {
            out.push('\n');
        }
        out.push_str("| tool | type | canonical hooks | from arguments |\n|---|---|---|---|\n");
        for m in TOOL_MAP.iter().filter(|m| m.harness == h) {
            let keys = |k: Keys| {
                k.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            };
            let (hooks, from) = match m.action {
                Shell { command } => ("pre_shell_exec", format!("command: {}", keys(command))),
                ShellEach { list } => (
                    "pre_shell_exec, per command",
                    format!("each command line (or `{{command, args}}` argv) of {}; an entry that is neither, or no command at all: denied", keys(list)),
                ),
                ReadEach { list } => (
                    "pre_file_read, per file",
                    format!("each path (or an entry's `path`, `file_path`, `filePath`) of {}; an entry that is neither, or no path at all: denied", keys(list)),
                ),
                ShellSession { command, input, keys: k } => (
                    "pre_shell_exec, per submitted line",
                    format!(
                        "command: {}; the lines typed input {} and keys {} submit (line editing replayed; history and completion are unknowable)",
                        keys(command),
                        keys(input),
                        keys(k)
                    ),
                ),
                Read { path } => ("pre_file_read", format!("path: {} (when given)", keys(path))),
                Action::Write { path, content } => (
                    "pre_file_write",
                    match content {
                        [] => format!("path: {}; no content (judged by path only)", keys(path)),
                        _ => format!("path: {}; content: {}", keys(path), keys(content)),
                    },
                ),
                MultiEdit { path } => (
                    "pre_file_write",
                    format!("path: {}; content: every `edits[].new_string`", keys(path)),
                ),
                Fetch { url } => ("pre_fetch_url", format!("url: {}", keys(url))),
                FetchInText { text } => (
                    "pre_fetch_url, per URL",
                    format!("every `scheme://` URL in {}", keys(text)),
                ),
                Patch { text } => (
                    "pre_file_write, per file",
                    format!("each Add/Update/Delete/Move-to file of the patch in {}; content: its added lines", keys(text)),
                ),
                Search { path, include } => (
                    "pre_file_read, per file",
                    format!("the directory {} (default `.`) and every file below it that the tool reads: {}; more than {} entries left after the ignore rules: denied", keys(path), search_selection(h, keys(include)), super::search_walk::MAX_ENTRIES),
                ),
                ReadMany { list } => (
                    "pre_file_read, per file",
                    format!("each path of {}; each glob there, every file below the directory it admits (case ignored), hidden files included, `.gitignore` honoured in a git repository unless `file_filtering_options.respect_git_ignore` is false, `node_modules .git bower_components .svn .hg` skipped unless `useDefaultExcludes` is false", keys(list)),
                ),
                ReadOps { list, path, paths } => (
                    "pre_file_read, per path",
                    format!("{} of each object in {} (the arguments themselves without it)", [keys(path), keys(paths)].join(" and every "), keys(list)),
                ),
                Watch { command } => (
                    "pre_shell_exec, pre_fetch_url",
                    format!("command: {}; every `url` at any depth", keys(command)),
                ),
                LoadTools { query } => (
                    "pre_api_tools",
                    format!("each tool named in {} (`select:A,B`)", keys(query)),
                ),
                Other => ("—", "—".to_string()),
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                m.tool, m.tool_type, hooks, from
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_commands_are_quoted_back_into_a_line() {
        let args = json!({"command": ["bash", "-lc", "rm -rf 'a b'"]});
        let checks = permission_checks(Codex, "Bash", &args, "/p", None).unwrap();
        let line = checks[0].payload["command"].as_str().unwrap();
        assert_eq!(line, r"bash -lc 'rm -rf '\''a b'\'''");
        let a = crate::shell::analyze(line);
        assert!(
            a.commands
                .iter()
                .any(|c| c.program == "rm" && c.has_flag("-r")),
            "{a:?}"
        );
    }

    #[test]
    fn urls_are_found_in_free_text() {
        let text =
            "Summarise https://example.com/a, then HTTP://127.0.0.1:8080/x and (http://[::1]/).";
        assert_eq!(
            urls_in_text(text),
            vec![
                "https://example.com/a",
                "HTTP://127.0.0.1:8080/x",
                "http://[::1]/"
            ]
        );
        assert!(urls_in_text("no links here").is_empty());
        assert_eq!(
            urls_in_text("see file:///etc/passwd, ok"),
            vec!["file:///etc/passwd"]
        );
    }

    #[test]
    fn every_file_of_a_patch_is_a_write() {
        let patch = "*** Begin Patch\n*** Add File: a/.env\n+SECRET=1\n*** Update File: src/lib.rs\n@@\n-old\n+new\n*** Move to: ../outside.rs\n*** Delete File: b.txt\n*** End Patch\n";
        let files = patch_files(patch);
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            vec!["a/.env", "src/lib.rs", "../outside.rs", "b.txt"]
        );
        assert_eq!(files[0].1, "SECRET=1\n");
        assert_eq!(files[1].1, "new\n");
    }

    #[test]
    fn mcp_tools_match_by_prefix_and_unknown_tools_still_show_commands() {
        assert_eq!(
            mapping(ClaudeCode, "mcp__github__create_issue")
                .unwrap()
                .tool_type,
            "plugin"
        );
        let checks = permission_checks(
            ClaudeCode,
            "mcp__box__run",
            &json!({"command": "rm -rf /"}),
            "/p",
            None,
        )
        .unwrap();
        assert_eq!(checks[0].hook, "pre_shell_exec");
        let checks = permission_checks(
            Gemini,
            "web_fetch",
            &json!({"prompt": "read http://169.254.169.254/latest"}),
            "/p",
            None,
        )
        .unwrap();
        assert_eq!(checks[0].payload["reason"], "cloud metadata endpoint");
    }
}
