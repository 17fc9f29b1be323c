//! The policy format as Rust types: the JSON Schema is generated from them
//! (`policy schema`), and a file that passes the schema deserialises into them.
//!
//! Doc comments here are user documentation: they become the schema's
//! descriptions, which editors show on hover.

pub mod prose;

use crate::catalogue;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use std::borrow::Cow;

/// A hook-policy policy file. A directory of such files loads as one policy set.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "hook-policy policy file")]
#[schemars(example = example_policy())]
pub struct PolicyFile {
    /// Format version. Always 1.
    pub version: Version,
    /// Settings that apply to the whole policy set.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"on_error": "fail_closed", "log": "decisions.jsonl"}))]
    pub settings: Option<Settings>,
    /// The rules. Each names the hook point(s) it applies to, an optional
    /// condition, and its effect.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// Present only in a pack: a named, versioned set of rules shipped with
    /// hook-policy (see `policy packs`). A user's policy never needs it.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"name": "git", "version": 1, "description": "Commands that destroy git history or uncommitted work.", "recommended": true}))]
    pub pack: Option<PackHeader>,
    /// Which shipped packs this policy uses, and how: enable them by name,
    /// turn single rules off, change outcomes, add exceptions (see
    /// `policy packs` for what ships).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"enable": ["recommended"]}), example = serde_json::json!({"enable": ["recommended", "databases"], "disable": ["git.branch-force-delete"], "outcome": {"databases": "log"}}))]
    pub packs: Option<PackSelection>,
}

/// A policy's use of the shipped packs. Rules are named `<pack>.<rule>`
/// (`git.reset-hard`); `policy packs show NAME` lists a pack's rules.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackSelection {
    /// Packs to turn on, by name; `recommended` stands for every pack marked
    /// recommended (`policy packs` lists them).
    #[serde(default)]
    #[schemars(example = serde_json::json!(["recommended"]), example = serde_json::json!(["recommended", "databases"]))]
    pub enable: Vec<String>,
    /// Whole packs (by name) or single rules (by id) to leave out, even when
    /// `enable` names them.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["git.branch-force-delete"]), example = serde_json::json!(["databases"]))]
    pub disable: Vec<String>,
    /// The outcome of a whole pack (by name) or one rule (by id), instead of
    /// its own: `deny`, `ask`, or `log` (decide and write the decision log,
    /// but change nothing). A rule's own entry wins over its pack's.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"databases": "log", "git.push-force": "ask"}))]
    pub outcome: std::collections::BTreeMap<String, PackOutcome>,
    /// Cases where named pack rules do not apply. Each exception names the
    /// rules (or packs) and exactly one kind of subject: `paths`, `commands`
    /// or `hosts`.
    #[serde(default)]
    #[schemars(example = serde_json::json!([{"rules": ["file-secrets.credential-file"], "paths": ["config/.env.example"]}]))]
    pub except: Vec<PackException>,
}

/// What a pack rule does when it matches, when a policy changes it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PackOutcome {
    /// Decide and log only: the decision log records what the rule would
    /// have done, the harness gets no objection from it.
    Log,
    /// Ask the user first (permission hooks).
    Ask,
    /// Deny (permission hooks) or block (`pre_tool`).
    Deny,
}

impl PackOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            PackOutcome::Log => "log",
            PackOutcome::Ask => "ask",
            PackOutcome::Deny => "deny",
        }
    }
}

/// One exception to pack rules. The match is as narrow as written: paths by
/// glob after normalisation (like `path: glob`), commands by the whole
/// command line, hosts by the normalised host (like `url: host`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackException {
    /// Rule ids (`git.reset-hard`) or pack names this exception applies to.
    #[schemars(example = &"git.reset-hard", example = serde_json::json!(["file-secrets.credential-file", "secrets"]))]
    pub rules: StringList,
    /// Path globs, resolved like the `path:` matcher's (relative to the
    /// project root, `~/` for home, after `..` and `.` are removed): the
    /// rules do not apply to a path matching one of them, nor to a shell
    /// command line every path of which (what it deletes, moves, changes or
    /// writes) is known and matches one of them.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["config/.env.example", "tests/fixtures/**"]))]
    pub paths: Option<Vec<String>>,
    /// Whole command lines, compared exactly (leading and trailing blanks
    /// aside): `git reset --hard HEAD` does not cover `git reset --hard HEAD
    /// && rm -rf /` nor `git reset --hard origin/main`.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["git reset --hard HEAD", "rm -rf node_modules"]))]
    pub commands: Option<Vec<String>>,
    /// Hosts as the `url: host` matcher reads them (exact name or address,
    /// `.domain` for it and its subdomains, `*.domain` for subdomains only,
    /// CIDR), optionally with `:port`; a whole URL is never needed.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["localhost:3000", "10.0.0.0/8"]))]
    pub hosts: Option<Vec<String>>,
    /// Why the exception exists, for reviewers; shown by `--explain`.
    #[serde(default)]
    #[schemars(example = &"the example file holds no secrets")]
    pub reason: Option<String>,
}

/// What a pack says about itself.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackHeader {
    /// The pack's name, used to enable it (`git`, `databases`, `cloud.aws`).
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_.-]*$"), length(max = 64))]
    #[schemars(example = &"git", example = &"cloud.aws")]
    pub name: String,
    /// Bumped whenever a rule is added, removed or changes what it matches.
    #[schemars(example = 1)]
    pub version: u32,
    /// What the pack protects against, in one or two sentences.
    #[schemars(example = &"Commands that destroy git history or uncommitted work.")]
    pub description: String,
    /// Part of the recommended set that a policy enables with `recommended`.
    #[serde(default)]
    #[schemars(example = true)]
    pub recommended: bool,
    /// Why the pack is in the recommended set or left opt-in: what routine
    /// work it leaves alone, or which workflows it would get in the way of.
    #[serde(default)]
    #[schemars(
        example = &"Nothing here is routine for a coding agent; deploys and single-resource edits pass."
    )]
    pub rationale: Option<String>,
}

/// How bad it is when the guarded action happens anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Loss of data or access that cannot be undone (the disk, the cloud account, `/`).
    Critical,
    /// Loss that is hard to undo (git history, a database, a namespace).
    High,
    /// Damage that can be repaired with some work.
    Medium,
    /// A risky habit rather than damage.
    Low,
}

/// The format version; only 1 exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Version;

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u64::deserialize(d)? {
            1 => Ok(Version),
            other => Err(serde::de::Error::custom(format!(
                "unsupported version {other}; this hook-policy reads version 1"
            ))),
        }
    }
}

impl JsonSchema for Version {
    fn schema_name() -> Cow<'static, str> {
        "Version".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "description": "Format version. Always 1.", "const": 1 })
    }
}

/// Settings for the whole policy set.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// What a permission hook (`pre_shell_exec`, `pre_file_read`, `pre_file_write`,
    /// `pre_fetch_url`) and `pre_tool` answer when the policy cannot decide: it
    /// failed to load, a condition failed at run time, or the payload was
    /// malformed. `fail_closed` (the default) denies or blocks with a reason
    /// naming the problem; `fail_open` says nothing, so the harness's own
    /// permission handling decides. Other hooks always change nothing on error
    /// and report the problem on stderr.
    #[serde(default)]
    #[schemars(example = &"fail_open")]
    pub on_error: Option<OnError>,
    /// Append one JSON line per decision to this file (relative paths are
    /// relative to the policy file). Records hold the hook, the decision, the
    /// matched rules, the reason as written in the policy and a SHA-256 digest
    /// of the payload, never the payload itself. The `HOOK_POLICY_LOG`
    /// environment variable overrides it.
    #[serde(default)]
    #[schemars(example = &"logs/decisions.jsonl")]
    pub log: Option<std::path::PathBuf>,
    /// Whether later policies (each `--policy` path after the first, such as
    /// a project's own policy) may loosen what the first one set: disable
    /// pack rules, add exceptions, weaken outcomes, or fail open. Default
    /// false: they may only tighten. Read from the first policy only.
    #[serde(default)]
    #[schemars(example = true)]
    pub project_may_loosen: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Deny (permission hooks) or block (`pre_tool`) when the policy cannot decide.
    FailClosed,
    /// Say nothing when the policy cannot decide; the harness decides.
    FailOpen,
}

/// One rule: where it applies, when, and what it does.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = example_rules()[0].clone(), example = example_rules()[1].clone(), example = example_rules()[2].clone(), example = example_rules()[3].clone())]
pub struct Rule {
    /// Unique identifier across the whole loaded policy set. Shown in denial
    /// reasons, `--explain` output and test reports.
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"), length(max = 128))]
    #[schemars(example = &"no-recursive-delete", example = &"coding.low-temperature")]
    pub id: String,
    /// What the rule is for, in words.
    #[serde(default)]
    #[schemars(example = &"Stop recursive deletes, however they are spelt")]
    pub description: Option<String>,
    /// How serious the guarded action is; packs give one for every rule.
    #[serde(default)]
    #[schemars(example = &"high")]
    pub severity: Option<Severity>,
    /// The hook point this rule applies to, or a list of them.
    #[schemars(example = &"pre_shell_exec", example = serde_json::json!(["pre_file_read", "pre_file_write"]))]
    pub hook: Hooks,
    /// CEL condition over the hook payload; the rule applies only when it is
    /// true. Absent means always. Every top-level payload field is a variable,
    /// as are `payload` (the whole payload), `hook`, `harness` and
    /// `project_root`.
    #[serde(default)]
    #[schemars(example = &"context_name == \"coding\"", example = &"tool_calls.exists(c, c.name == \"shell_exec\")")]
    pub when: Option<String>,
    /// Order among matching rules: lower first; ties keep file order (files
    /// of a directory in name order). Decides whose reason, `fuel`, `fallback`
    /// or request key wins; between deny reasons of equal priority, the more
    /// specific rule wins (a named test over a blanket one).
    #[serde(default)]
    #[schemars(example = -10, example = 100)]
    pub priority: Option<i64>,
    /// Match the shell command line, understood by a bash parser: every
    /// simple command in it, through `sudo`, `env`, `bash -c`, `$(...)`,
    /// pipes and lists. On `pre_shell_exec` (`command`) and `pre_tool`
    /// (`arguments.command`). Combined with `when` and the other matchers by AND.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"program": "rm", "flags": ["-r|-R|--recursive", "-f|--force"]}), example = serde_json::json!({"opaque": true}))]
    pub shell: Option<ShellMatch>,
    /// Match the URL after WHATWG normalisation (`http://2130706433/` is
    /// loopback). On `pre_fetch_url` (`url`) and `pre_tool` (`arguments.url`).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"class": ["cloud_metadata", "loopback"]}), example = serde_json::json!({"registrable_domain": "pastebin.com"}))]
    pub url: Option<UrlMatch>,
    /// Match the file path after lexical normalisation against the project
    /// root (`..`, `.`, `//`, `~`). On `pre_file_read`, `pre_file_write`
    /// (`path`) and `pre_tool` (`arguments.path`).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"glob": ["**/.env", "**/*.pem"]}), example = serde_json::json!({"inside_project": false}))]
    pub path: Option<PathMatch>,
    /// Match the content being written. On `pre_file_write` (`content`) and
    /// `pre_tool` (`arguments.content`).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"regex": "-----BEGIN [A-Z ]*PRIVATE KEY-----"}))]
    pub content: Option<ContentMatch>,
    /// Deny the operation with this reason (permission hooks only). May embed
    /// CEL as `${{ expr }}`.
    #[serde(default)]
    #[schemars(example = &"recursive delete is not allowed", example = &"no reading ${{ path }}: it holds secrets")]
    pub deny: Option<String>,
    /// Ask the user before the operation runs, with this reason (permission
    /// hooks). A deny from any rule wins over an ask. Harnesses without a
    /// way to ask handle it as documented per adapter: chibi falls back to
    /// its own permission prompt, PicoClaw and Codex deny. May embed CEL as
    /// `${{ expr }}`.
    #[serde(default)]
    #[schemars(example = &"force-pushing rewrites shared history; confirm first")]
    pub ask: Option<String>,
    /// Block the tool call with this message (`pre_tool` only). May embed CEL
    /// as `${{ expr }}`.
    #[serde(default)]
    #[schemars(example = &"shell_exec is disabled in the review context")]
    pub block: Option<String>,
    /// Replace these keys of the tool's arguments (`pre_tool` only). Values
    /// are literals, or `${{ expr }}` strings evaluated as CEL.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"timeout": 30}))]
    pub arguments: Option<serde_json::Map<String, serde_json::Value>>,
    /// Which tools the model is offered (`pre_api_tools` only).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"include": ["update_goals", "update_reflection"]}), example = serde_json::json!({"exclude": ["shell_exec", "type:fs_write"]}))]
    pub tools: Option<ToolFilter>,
    /// Add this to the remaining fuel (negative consumes). Several matching
    /// rules sum. An integer, or a `${{ expr }}` string.
    #[serde(default)]
    #[schemars(example = -5, example = &"${{ -size(tool_calls) }}")]
    pub fuel_delta: Option<IntOrExpr>,
    /// Set the remaining fuel to this value. An integer, or a `${{ expr }}` string.
    #[serde(default)]
    #[schemars(example = 20)]
    pub fuel: Option<IntOrExpr>,
    /// Who gets control when the agent stops calling tools.
    #[serde(default)]
    #[schemars(example = &"call_user")]
    pub fallback: Option<Fallback>,
    /// Keys merged into the model request body (`pre_api_request` only), such
    /// as `temperature` or `max_tokens`. Values are literals, or `${{ expr }}`
    /// strings evaluated as CEL.
    #[serde(default)]
    #[schemars(example = serde_json::json!({"temperature": 0.1, "max_tokens": 4096}))]
    pub request: Option<serde_json::Map<String, serde_json::Value>>,
}

/// One hook name or a list of them.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Hooks {
    One(String),
    Many(Vec<String>),
}

impl Hooks {
    pub fn names(&self) -> &[String] {
        match self {
            Hooks::One(name) => std::slice::from_ref(name),
            Hooks::Many(names) => names,
        }
    }
}

impl JsonSchema for Hooks {
    fn schema_name() -> Cow<'static, str> {
        "Hooks".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let hook = generator.subschema_for::<HookName>();
        json_schema!({
            "description": "A hook point, or a list of them.",
            "anyOf": [hook, { "type": "array", "items": hook, "minItems": 1, "uniqueItems": true }]
        })
    }
}

/// A hook point name, from the hook catalogue.
pub struct HookName;

impl JsonSchema for HookName {
    fn schema_name() -> Cow<'static, str> {
        "HookName".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let variants: Vec<serde_json::Value> = catalogue::HOOKS
            .iter()
            .map(|h| {
                let effects = if h.effects.is_empty() {
                    "no effects (observe only)".to_string()
                } else {
                    let keys: Vec<_> = h.effects.iter().map(|e| e.key()).collect();
                    format!("effects: {}", keys.join(", "))
                };
                serde_json::json!({
                    "const": h.name,
                    "description": format!("{} ({}; {effects})", h.doc, h.class.as_str()),
                })
            })
            .collect();
        json_schema!({ "type": "string", "oneOf": variants })
    }
}

/// Tool filtering. Entries are tool names, globs over names (`file_*`), or
/// tool types written `type:NAME` (`type:fs_write`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolFilter {
    /// Offer only tools that match one of these. Several rules' includes intersect.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["update_goals", "file_*"]))]
    pub include: Option<Vec<String>>,
    /// Never offer tools that match one of these. Several rules' excludes unite.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["shell_exec", "type:fs_write"]))]
    pub exclude: Option<Vec<String>>,
}

/// One string or a list of them.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StringList {
    One(String),
    Many(Vec<String>),
}

impl StringList {
    pub fn items(&self) -> &[String] {
        match self {
            StringList::One(s) => std::slice::from_ref(s),
            StringList::Many(v) => v,
        }
    }
}

impl JsonSchema for StringList {
    fn schema_name() -> Cow<'static, str> {
        "StringList".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "One string or a list of them.",
            "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "string" }, "minItems": 1 }]
        })
    }
}

/// Shell matcher. Command criteria (`program`, `flags`, `any_flag`, `arg`,
/// `target`) must all hold for one simple command of the line; `opaque:
/// true` matches a line whose programs cannot be known statically. Given
/// both, either matching is enough.
///
/// Commands include those run by code given to interpreters (`python -c`,
/// `node -e`, `perl -e`, `ruby -e`, `php -r`, awk, sed `e`, heredocs fed to
/// an interpreter), and library calls in that code that delete or move
/// files, reported as the command doing the same: `shutil.rmtree(p)`,
/// `fs.rmSync(p, {recursive: true})`, `FileUtils.rm_rf(p)` and Perl's
/// `rmtree` are `rm -r -f -- p`; `os.remove`, `unlink`, `File.delete` are
/// `rm -f -- p`; `os.rmdir` is `rmdir`; `os.rename`, `shutil.move` are `mv`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellMatch {
    /// Program name(s), compared with the basename after quotes, escapes and
    /// wrappers are removed, ignoring ASCII case (macOS and Windows file
    /// systems run `rm` for `RM`): `/usr/bin/rm`, `'rm'`, `r\m`, `RM` and
    /// `sudo rm` are all `rm`.
    #[serde(default)]
    #[schemars(example = &"rm", example = serde_json::json!(["curl", "wget"]))]
    pub program: Option<StringList>,
    /// Flags that must all be present. Each entry lists spellings separated by
    /// `|`: `"-r|-R|--recursive"` matches `-rf`, `-fr`, `-r -f`, `--recursive`.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["-r|-R|--recursive", "-f|--force"]))]
    pub flags: Option<Vec<String>>,
    /// At least one of these flags (same spelling rules as `flags`).
    #[serde(default)]
    #[schemars(example = serde_json::json!(["--no-preserve-root", "--force"]))]
    pub any_flag: Option<Vec<String>>,
    /// A regex at least one argument must match, e.g. `^/$` for the root.
    #[serde(default)]
    #[schemars(example = &"^/$", example = &"^~?/?\\.ssh(/|$)")]
    pub arg: Option<String>,
    /// Where the command acts: at least one of the paths it deletes, moves,
    /// truncates or changes (`rm`, `rmdir`, `unlink`, `shred`, `mv`, `chmod`,
    /// `chown`, `chgrp`, `truncate`, `rsync`'s destination, `dd of=`, `find`'s
    /// starting points) lies in one of these places, resolved against the
    /// project root and home like the path matcher (`~`, `$HOME`, `..`,
    /// globs: `/*` is `root`, `~/*` is `home`, `*` in the project root is
    /// `inside_project`). A command with no such path never matches.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["root", "home", "system", "project_root", "git_dir", "outside", "unknown"]))]
    pub target: Option<Vec<TargetClassName>>,
    /// Paths the line must not change: at least one path a command writes,
    /// deletes, moves, links or changes the mode of (redirections `>`/`>>`,
    /// `tee`, `cp`/`install`/`ln`/`scp`/`rsync` destinations, `ln`'s
    /// sources, `sed -i`/`perl -i` files, `curl -o`/`wget -O`, editors,
    /// `tar -x -C`, and the `target` operands) matches one of these globs,
    /// or is a directory holding the literal part of one (`rm -rf
    /// ~/.claude` for `~/.claude/settings.json`). Globs as in `path: glob`,
    /// compared in ASCII lower case (case-insensitive file systems). A
    /// written path only known at run time matches when the line names a
    /// directory of these globs that starts with `.` or holds a `-`
    /// (`F=~/.claude/x; echo > $F`).
    #[serde(default)]
    #[schemars(example = serde_json::json!(["~/.claude/settings.json", ".claude/settings.local.json"]))]
    pub writes: Option<StringList>,
    /// Match lines whose programs cannot be known statically: a variable or
    /// substitution as the program, `eval` of non-literal text, a shell
    /// reading commands from a pipe, interpreter code that computes what it
    /// runs, a parse error.
    #[serde(default)]
    #[schemars(example = true)]
    pub opaque: Option<bool>,
}

/// Where a destructive command's path lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetClassName {
    /// `/` itself or all of it (`/*`).
    Root,
    /// The home directory, all of it (`~/*`), or a directory holding it (`/home`).
    Home,
    /// System directories and their contents: `/etc`, `/usr`, `/var`, `/dev`, `/boot`, `/opt`, `/tmp` itself, ...
    System,
    /// The project root itself, a directory holding it (`..`), or every entry at its top (`*`, `./*`, `*/`).
    ProjectRoot,
    /// `.git` inside the project, or anything in it.
    GitDir,
    /// Inside the project, not its root and not `.git` (`node_modules`, `./target`, `*.pyc`, `build/*`).
    InsideProject,
    /// Inside a temporary directory (`/tmp/x`, `/var/tmp/x`, `/dev/shm/x`, `$TMPDIR/x`).
    Temp,
    /// Anywhere else: another project, a file in the home directory.
    Outside,
    /// Not known before the command runs: a variable, a substitution, input added by `xargs`, `~user`.
    Unknown,
}

/// A class of URL destination, after normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UrlClassName {
    /// 127.0.0.0/8, ::1, localhost.
    Loopback,
    /// RFC 1918, unique-local fc00::/7, shared address space 100.64.0.0/10.
    Private,
    /// 169.254.0.0/16, fe80::/10.
    LinkLocal,
    /// Cloud instance metadata services (AWS, GCP, Azure, Alibaba, ECS), by address or name.
    CloudMetadata,
    /// 0.0.0.0/8, ::.
    Unspecified,
    Multicast,
    Broadcast,
    /// Documentation, benchmarking and other reserved ranges.
    Reserved,
    /// Anything else that parses as http(s)/ws(s).
    Public,
    /// Not a URL.
    Invalid,
    /// A scheme other than http, https, ws, wss (file:, ftp:, data:, ...).
    NonHttp,
    /// Every class except public.
    Internal,
}

/// URL matcher: every criterion given must hold.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UrlMatch {
    /// The destination is one of these classes.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["cloud_metadata", "link_local"]), example = serde_json::json!(["internal"]))]
    pub class: Option<Vec<UrlClassName>>,
    /// The host is exactly one of these names (compared normalised: lower case, IDN as punycode, no trailing dot).
    #[serde(default)]
    #[schemars(example = &"metadata.google.internal")]
    pub host: Option<StringList>,
    /// The host is one of these domains or a subdomain of it; `example.com`
    /// matches `api.example.com` but never `evil-example.com`.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["example.com", "internal.corp"]))]
    pub domain: Option<StringList>,
    /// The host's registrable domain (by the public suffix list) is one of these.
    #[serde(default)]
    #[schemars(example = &"pastebin.com")]
    pub registrable_domain: Option<StringList>,
    /// The scheme is one of these (lower case).
    #[serde(default)]
    #[schemars(example = serde_json::json!(["http", "ftp"]))]
    pub scheme: Option<StringList>,
    /// The effective port (default ports filled in) is one of these.
    #[serde(default)]
    #[schemars(example = serde_json::json!([22, 25, 3306]))]
    pub port: Option<Vec<u16>>,
    /// A regex the URL path must match.
    #[serde(default, rename = "path_regex")]
    #[schemars(example = &"^/(admin|internal)(/|$)")]
    pub path_regex: Option<String>,
}

/// Path matcher: every criterion given must hold.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathMatch {
    /// Globs over the normalised path; any may match. `**/.env` matches at
    /// any depth, `~/.ssh/**` under the home directory, relative globs
    /// against the project root. `*` never crosses a `/`. A glob starting
    /// with `(?i)` ignores ASCII case (`(?i)**/.env` matches `.ENV`, which
    /// opens `.env` on macOS and Windows file systems).
    #[serde(default)]
    #[schemars(example = serde_json::json!(["**/.env", "**/*.pem", "~/.ssh/**"]))]
    pub glob: Option<StringList>,
    /// true: the path is inside the project root; false: outside it.
    /// Compared by whole components, so `/proj-evil` is outside `/proj`.
    #[serde(default)]
    #[schemars(example = false)]
    pub inside_project: Option<bool>,
}

/// Content matcher.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContentMatch {
    /// Regexes over the content; any may match. Null content never matches.
    #[schemars(example = &"-----BEGIN [A-Z ]*PRIVATE KEY-----", example = &"AKIA[0-9A-Z]{16}")]
    pub regex: StringList,
}

/// An integer, or a CEL expression written `${{ expr }}` that yields one.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum IntOrExpr {
    Int(i64),
    Expr(String),
}

impl JsonSchema for IntOrExpr {
    fn schema_name() -> Cow<'static, str> {
        "IntOrExpr".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An integer, or a CEL expression written `${{ expr }}` that yields one.",
            "anyOf": [
                { "type": "integer" },
                { "type": "string", "pattern": r"^\s*\$\{\{[\s\S]*\}\}\s*$" }
            ]
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fallback {
    /// Return control to the user.
    CallUser,
    /// Let the agent continue on its own.
    CallAgent,
}

impl Fallback {
    pub fn as_str(self) -> &'static str {
        match self {
            Fallback::CallUser => "call_user",
            Fallback::CallAgent => "call_agent",
        }
    }
}

/// Whole rules shown as examples in the schema; a test checks each one
/// loads cleanly with `policy check`.
fn example_rules() -> [serde_json::Value; 4] {
    [
        serde_json::json!({
            "id": "no-recursive-delete",
            "hook": "pre_shell_exec",
            "shell": { "program": "rm", "flags": ["-r|-R|--recursive", "-f|--force"] },
            "deny": "recursive delete is not allowed"
        }),
        serde_json::json!({
            "id": "safe-context-tools",
            "hook": "pre_api_tools",
            "when": "context_name == \"safe\"",
            "tools": { "include": ["update_goals", "update_reflection"] }
        }),
        serde_json::json!({
            "id": "shell-costs-fuel",
            "hook": "post_tool_batch",
            "when": "tool_calls.exists(c, c.name == \"shell_exec\")",
            "fuel_delta": -5,
            "fallback": "call_user"
        }),
        serde_json::json!({
            "id": "coding-temperature",
            "hook": "pre_api_request",
            "when": "context_name == \"coding\"",
            "request": { "temperature": 0.1 }
        }),
    ]
}

fn example_policy() -> serde_json::Value {
    serde_json::json!({
        "version": 1,
        "settings": { "on_error": "fail_closed" },
        "rules": [example_rules()[0].clone(), {
            "id": "no-metadata-fetch",
            "hook": "pre_fetch_url",
            "url": { "class": ["cloud_metadata"] },
            "deny": "cloud metadata endpoints hold credentials"
        }]
    })
}

/// The JSON Schema of the policy format (2020-12), as committed in `schema/`.
pub fn schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<PolicyFile>();
    let mut value = schema.to_value();
    prose::unwrap_descriptions(&mut value);
    if let Some(obj) = value.as_object_mut() {
        obj.insert(
            "$id".into(),
            "https://hook-policy.dev/schema/policy.schema.json".into(),
        );
    }
    value
}

/// The schema as committed: pretty JSON with a final newline.
pub fn schema_text() -> String {
    // Keys sorted, whatever order serde_json keeps maps in (it keeps
    // insertion order, for `policy install --settings`): the committed
    // file stays stable.
    fn sorted(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                let mut entries: Vec<_> = m.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                serde_json::Value::Object(
                    entries.into_iter().map(|(k, v)| (k, sorted(v))).collect(),
                )
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(sorted).collect())
            }
            other => other,
        }
    }
    let schema = serde_json::to_value(schema()).expect("schema serialises");
    let mut text = serde_json::to_string_pretty(&sorted(schema)).expect("schema serialises");
    text.push('\n');
    text
}
