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

/// A harness other than chibi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Harness {
    ClaudeCode,
    Gemini,
    Codex,
    PicoClaw,
}

impl Harness {
    pub const ALL: [Harness; 4] = [
        Harness::ClaudeCode,
        Harness::Gemini,
        Harness::Codex,
        Harness::PicoClaw,
    ];

    /// The name conditions see in `harness` and the CLI accepts.
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Gemini => "gemini",
            Harness::Codex => "codex",
            Harness::PicoClaw => "picoclaw",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::Gemini => "Gemini CLI",
            Harness::Codex => "Codex",
            Harness::PicoClaw => "PicoClaw",
        }
    }

    /// Whether the harness can put a question to the user itself.
    pub fn can_ask(self) -> bool {
        matches!(self, Harness::ClaudeCode)
    }
}

/// Where in the arguments an action finds what it needs. The first key
/// present wins (tools have renamed arguments between releases).
pub type Keys = &'static [&'static str];

/// What a tool does, in canonical terms.
#[derive(Debug, Clone, Copy)]
pub enum Action {
    /// Runs a shell command line: `pre_shell_exec`.
    Shell { command: Keys },
    /// Reads a file or lists a directory: `pre_file_read` (when a path is given).
    Read { path: Keys },
    /// Writes or edits one file: `pre_file_write`.
    Write { path: Keys, content: Keys },
    /// Claude Code's MultiEdit: one file, `edits[].new_string` as content.
    MultiEdit { path: Keys },
    /// Fetches a URL: `pre_fetch_url`.
    Fetch { url: Keys },
    /// Fetches every URL found in a free-text argument (Gemini's web_fetch).
    FetchInText { text: Keys },
    /// A Codex patch: `pre_file_write` for every file it adds, updates,
    /// deletes or moves to, with the added lines as content.
    Patch { text: Keys },
    /// Nothing a permission hook guards.
    Other,
}

/// One native tool of one harness.
#[derive(Debug, Clone, Copy)]
pub struct ToolMapping {
    pub harness: Harness,
    /// The tool's name; a trailing `*` matches a prefix (`mcp__*`).
    pub tool: &'static str,
    /// The tool type `pre_api_tools` rules see (chibi's categories).
    pub tool_type: &'static str,
    pub action: Action,
}

const fn map(
    harness: Harness,
    tool: &'static str,
    tool_type: &'static str,
    action: Action,
) -> ToolMapping {
    ToolMapping {
        harness,
        tool,
        tool_type,
        action,
    }
}

use Action::*;
use Harness::*;

/// Every native tool hook-policy understands. Tools not listed are
/// `pre_tool` and `pre_api_tools` only, except that a string argument named
/// `command` or `url` is still checked as a shell command or a URL: an MCP
/// server's "run" or "fetch" tool must not be a way around the guard.
#[rustfmt::skip] // a table: one mapping per line reads best
pub const TOOL_MAP: &[ToolMapping] = &[
    map(ClaudeCode, "Bash", "shell", Shell { command: &["command"] }),
    map(ClaudeCode, "Read", "fs_read", Read { path: &["file_path"] }),
    map(ClaudeCode, "Glob", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "Grep", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "LS", "fs_read", Read { path: &["path"] }),
    map(ClaudeCode, "Write", "fs_write", Write { path: &["file_path"], content: &["content"] }),
    map(ClaudeCode, "Edit", "fs_write", Write { path: &["file_path"], content: &["new_string"] }),
    map(ClaudeCode, "MultiEdit", "fs_write", MultiEdit { path: &["file_path"] }),
    map(ClaudeCode, "NotebookEdit", "fs_write", Write { path: &["notebook_path"], content: &["new_source"] }),
    map(ClaudeCode, "WebFetch", "network", Fetch { url: &["url"] }),
    map(ClaudeCode, "WebSearch", "network", Other),
    map(ClaudeCode, "Task", "flow", Other),
    map(ClaudeCode, "TodoWrite", "memory", Other),
    map(ClaudeCode, "mcp__*", "plugin", Other),
    map(Gemini, "run_shell_command", "shell", Shell { command: &["command"] }),
    map(Gemini, "read_file", "fs_read", Read { path: &["file_path", "absolute_path", "path"] }),
    map(Gemini, "list_directory", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "glob", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "search_file_content", "fs_read", Read { path: &["dir_path", "path"] }),
    map(Gemini, "write_file", "fs_write", Write { path: &["file_path", "absolute_path"], content: &["content"] }),
    map(Gemini, "replace", "fs_write", Write { path: &["file_path", "absolute_path"], content: &["new_string"] }),
    map(Gemini, "web_fetch", "network", FetchInText { text: &["prompt"] }),
    map(Gemini, "google_web_search", "network", Other),
    map(Gemini, "save_memory", "memory", Other),
    map(Gemini, "mcp__*", "plugin", Other),
    map(Codex, "Bash", "shell", Shell { command: &["command"] }),
    map(Codex, "apply_patch", "fs_write", Patch { text: &["command", "patch", "input"] }),
    map(Codex, "mcp__*", "plugin", Other),
    map(PicoClaw, "exec", "shell", Shell { command: &["command"] }),
    map(PicoClaw, "read_file", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "list_dir", "fs_read", Read { path: &["path"] }),
    map(PicoClaw, "write_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(PicoClaw, "edit_file", "fs_write", Write { path: &["path"], content: &["new_text", "new_string", "content"] }),
    map(PicoClaw, "append_file", "fs_write", Write { path: &["path"], content: &["content"] }),
    map(PicoClaw, "web_fetch", "network", Fetch { url: &["url"] }),
    map(PicoClaw, "web_search", "network", Other),
    map(PicoClaw, "spawn", "flow", Other),
    map(PicoClaw, "subagent", "flow", Other),
    map(PicoClaw, "message", "flow", Other),
];

/// The mapping of a native tool, if it is listed.
pub fn mapping(harness: Harness, tool: &str) -> Option<&'static ToolMapping> {
    TOOL_MAP.iter().find(|m| {
        m.harness == harness
            && match m.tool.strip_suffix('*') {
                Some(prefix) => tool.starts_with(prefix),
                None => m.tool == tool,
            }
    })
}

/// The native event a harness's tool calls also count as.
pub fn native_hook(harness: Harness, approval: bool) -> &'static str {
    match (harness, approval) {
        (ClaudeCode, _) => "claude_code.PreToolUse",
        (Gemini, _) => "gemini.BeforeTool",
        (Codex, _) => "codex.PreToolUse",
        (PicoClaw, false) => "picoclaw.before_tool",
        (PicoClaw, true) => "picoclaw.approve_tool",
    }
}

/// One canonical question: a hook point and the payload chibi would send.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub hook: &'static str,
    pub payload: Json,
}

fn first_str(args: &Json, keys: Keys) -> Option<&str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Json::as_str))
}

/// The permission questions a call implies.
pub fn permission_checks(harness: Harness, tool: &str, args: &Json) -> Vec<Check> {
    let shell = |command: &str| Check {
        hook: "pre_shell_exec",
        payload: json!({"tool_name": tool, "command": command}),
    };
    let read = |path: &str| Check {
        hook: "pre_file_read",
        payload: json!({"tool_name": tool, "path": path}),
    };
    let write = |path: &str, content: Option<&str>| Check {
        hook: "pre_file_write",
        payload: json!({"tool_name": tool, "path": path, "content": content}),
    };
    let fetch = |url: &str| Check {
        hook: "pre_fetch_url",
        payload: fetch_payload(tool, url),
    };
    let action = mapping(harness, tool).map_or(Other, |m| m.action);
    let mut out = Vec::new();
    match action {
        Shell { command } => {
            // Codex may pass the command as argv (`["bash", "-lc", "..."]`):
            // quoted back into one line, the shell analysis sees through it.
            // A shell tool without a command is still a shell call: check the
            // empty line rather than nothing.
            let line = command
                .iter()
                .find_map(|k| match args.get(*k) {
                    Some(Json::String(s)) => Some(s.clone()),
                    Some(Json::Array(words)) => Some(argv_line(words)),
                    _ => None,
                })
                .unwrap_or_default();
            out.push(shell(&line));
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
        FetchInText { text } => {
            for url in urls_in_text(first_str(args, text).unwrap_or("")) {
                out.push(fetch(url));
            }
        }
        Patch { text } => {
            for (path, content) in patch_files(first_str(args, text).unwrap_or("")) {
                out.push(write(&path, Some(&content)));
            }
        }
        Other => {
            // Unlisted tools (MCP servers, plugins): a command or URL
            // argument is what it looks like.
            if let Some(c) = args.get("command").and_then(Json::as_str) {
                out.push(shell(c));
            }
            if let Some(u) = args.get("url").and_then(Json::as_str) {
                out.push(fetch(u));
            }
        }
    }
    out
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
    let info = crate::url_class::classify(url);
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
/// plugin cache (a process per call).
pub struct PolicySource {
    paths: Vec<PathBuf>,
    cache_dir: Option<PathBuf>,
    whole: Option<std::sync::Arc<Prepared>>,
    per_hook: HashMap<&'static str, Prepared>,
}

impl PolicySource {
    pub fn compiled(prepared: std::sync::Arc<Prepared>) -> PolicySource {
        PolicySource {
            paths: Vec::new(),
            cache_dir: None,
            whole: Some(prepared),
            per_hook: HashMap::new(),
        }
    }

    pub fn per_hook(paths: Vec<PathBuf>, cache_dir: Option<&Path>) -> PolicySource {
        PolicySource {
            paths,
            cache_dir: cache_dir.map(Path::to_path_buf),
            whole: None,
            per_hook: HashMap::new(),
        }
    }

    pub fn get(&mut self, hook: &'static str) -> &Prepared {
        if let Some(p) = &self.whole {
            return p;
        }
        let (paths, dir) = (&self.paths, self.cache_dir.as_deref());
        self.per_hook
            .entry(hook)
            .or_insert_with(|| crate::cache::prepare(paths, hook, dir))
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
    match engine::run(policy, hook, payload, ctx) {
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

fn with_rule(text: &str, rule: &str) -> String {
    format!("{text} [hook-policy rule: {rule}]")
}

/// Decides one tool call. `approval` selects PicoClaw's approve_tool as the
/// native event instead of before_tool; `context_name` is what
/// `pre_api_tools` rules see as the context (chibi's named contexts have no
/// equivalent elsewhere; see the adapters).
pub fn decide_call(
    source: &mut PolicySource,
    harness: Harness,
    tool: &str,
    arguments: &Json,
    native_payload: &Json,
    approval: bool,
    context_name: &str,
    ctx: DecideContext<'_>,
) -> CallDecision {
    let mut out = CallDecision {
        verdict: Verdict::NoOpinion,
        matched: Vec::new(),
        logged: Vec::new(),
        rule: None,
        notes: Vec::new(),
        failed: false,
    };
    let mut asked: Option<(String, String)> = None;
    let deny = |out: &mut CallDecision, reason: String, rule: Option<String>| {
        out.verdict = Verdict::Deny(reason);
        out.rule = rule;
    };
    let args_map = arguments.as_object().cloned().unwrap_or_default();

    // 1. pre_tool: block, or rewrite the arguments.
    let mut args = Json::Object(args_map.clone());
    let payload = json!({"tool_name": tool, "arguments": args});
    match ask(source, "pre_tool", &payload, ctx) {
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
            out.matched.extend(d.matched.iter().cloned());
            out.logged.extend(d.logged.iter().cloned());
            if let Some(b) = d.block {
                deny(&mut out, with_rule(&b.value, &b.rule), Some(b.rule));
                return out;
            }
            if !d.arguments.is_empty() {
                let mut m: Map<String, Json> = args_map.clone();
                for (k, w) in d.arguments {
                    m.insert(k, w.value);
                }
                args = Json::Object(m);
            }
        }
    }

    // 2. pre_api_tools with just this tool.
    let tool_type = mapping(harness, tool).map_or("other", |m| m.tool_type);
    let payload =
        json!({"context_name": context_name, "tools": [{"name": tool, "type": tool_type}]});
    match ask(source, "pre_api_tools", &payload, ctx) {
        // A broken filter hides nothing (its hook class fails open).
        Answer::Failed { message, .. } => out.notes.push(format!("pre_api_tools: {message}")),
        Answer::Decided(d) => {
            out.matched.extend(d.matched.iter().cloned());
            out.logged.extend(d.logged.iter().cloned());
            let included = d
                .include
                .as_ref()
                .is_none_or(|i| i.iter().any(|n| n == tool));
            let excluded = d.exclude.iter().any(|n| n == tool);
            if !included || excluded {
                let rules = d.matched.join(", ");
                deny(
                    &mut out,
                    format!("the tool `{tool}` is not offered under this policy [hook-policy rule: {rules}]"),
                    d.matched.first().cloned(),
                );
                return out;
            }
        }
    }

    // 3. The permission hooks of the tool's action, then 4. the native event.
    let mut questions = permission_checks(harness, tool, &args);
    let mut native = native_payload.clone();
    if let (Some(obj), true) = (
        native.as_object_mut(),
        args != Json::Object(args_map.clone()),
    ) {
        // Native rules see the rewritten arguments too.
        let key = if harness == PicoClaw {
            "arguments"
        } else {
            "tool_input"
        };
        obj.insert(key.into(), args.clone());
    }
    questions.push(Check {
        hook: native_hook(harness, approval),
        payload: native,
    });
    let mut native_args: Vec<(String, Json)> = Vec::new();
    for q in &questions {
        match ask(source, q.hook, &q.payload, ctx) {
            Answer::Failed { message, mode } => {
                out.notes.push(format!("{}: {message}", q.hook));
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
                out.matched.extend(d.matched.iter().cloned());
                out.logged.extend(d.logged.iter().cloned());
                if let Some(dn) = d.deny {
                    deny(&mut out, with_rule(&dn.value, &dn.rule), Some(dn.rule));
                    return out;
                }
                if let (Some(a), None) = (d.ask, &asked) {
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
        args = Json::Object(m);
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
    } else if args != Json::Object(args_map) {
        out.verdict = Verdict::Rewrite(args);
    }
    out
}

/// The canonical permission hooks an action is asked at, for listings.
pub fn permission_hooks(action: Action) -> &'static str {
    match action {
        Shell { .. } => "pre_shell_exec",
        Read { .. } => "pre_file_read",
        Action::Write { .. } | MultiEdit { .. } | Patch { .. } => "pre_file_write",
        Fetch { .. } | FetchInText { .. } => "pre_fetch_url",
        Other => "-",
    }
}

/// Renders [`TOOL_MAP`] as Markdown; committed as `docs/adapters.md`.
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "# Adapters: harness tools onto canonical hooks\n\n\
         Generated by `policy adapters --markdown` from `src/adapters/tool_call.rs`; do not edit by hand.\n\n\
         Every tool call is asked, in order: `pre_tool` (`{tool_name, arguments}`; a block denies,\n\
         argument rewrites apply to what follows), `pre_api_tools` with the one tool (a tool the\n\
         policy would not offer is denied), the permission hooks below, and the harness's native\n\
         event. A deny anywhere wins; an ask wins over silence.\n\n\
         Tools not listed get `pre_tool` and `pre_api_tools` only, except that a string argument\n\
         named `command` is checked at `pre_shell_exec` and one named `url` at `pre_fetch_url`.\n\n",
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
                Read { path } => ("pre_file_read", format!("path: {} (when given)", keys(path))),
                Action::Write { path, content } => (
                    "pre_file_write",
                    format!("path: {}; content: {}", keys(path), keys(content)),
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
        let checks = permission_checks(Codex, "Bash", &args);
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
        let checks =
            permission_checks(ClaudeCode, "mcp__box__run", &json!({"command": "rm -rf /"}));
        assert_eq!(checks[0].hook, "pre_shell_exec");
        let checks = permission_checks(
            Gemini,
            "web_fetch",
            &json!({"prompt": "read http://169.254.169.254/latest"}),
        );
        assert_eq!(checks[0].payload["reason"], "cloud metadata endpoint");
    }
}
