//! Shell code hidden in configuration values and environment variables.
//!
//! Many programs run a command they read from a setting rather than from
//! their arguments: git runs `alias.x=!code`, `core.pager`,
//! `core.sshCommand` or `diff.external` through a shell, and `GIT_SSH_COMMAND`,
//! `PAGER` or `EDITOR` in the environment the same way. So
//! `git -c alias.x='!rm -rf ~' x`, `git -c core.pager='rm -rf ~' log` and
//! `GIT_EXTERNAL_DIFF='rm -rf ~' git diff` delete the home directory while
//! the line only shows `git`. This module finds such values on the line
//! (git's `-c` and `--config-env`, `git config KEY VALUE`, git subcommands
//! that take a command, `NAME=value` in front of a command or given to
//! `export`) and hands them back as shell code to analyse, labelled with
//! where they came from. Settings made in files or earlier lines are not
//! seen (see `mod.rs`).

use super::launchers::{Launch, Nested};
use super::words::Word;
use super::OpaqueKind;

/// What a git configuration value is, when it is a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GitValue {
    /// Shell code (`core.pager`, `diff.external`, `filter.x.clean`).
    Shell,
    /// Shell code, or a boolean that only switches the feature (`pager.log`,
    /// `core.fsmonitor`).
    ShellOrBool,
    /// `alias.NAME`: `!code` is shell code, anything else git's own words.
    Alias,
    /// `credential.helper`: `!code` is shell code, a path is a program run
    /// through the shell, a bare name is git's own `credential-NAME`.
    Helper,
}

/// Keys written `section.name` (lower case) whose value git runs.
const GIT_SHELL_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.askpass",
    "core.gitproxy",
    "diff.external",
    "sequence.editor",
    "gpg.program",
    "uploadpack.packobjectshook",
    "sendemail.sendmailcmd",
    "sendemail.tocmd",
    "sendemail.cccmd",
    "interactive.difffilter",
];

/// Keys written `section.<subsection>.name`: the section and name (lower case).
const GIT_SUBSECTION_SHELL_KEYS: &[(&str, &str)] = &[
    ("diff", "command"),
    ("diff", "textconv"),
    ("filter", "clean"),
    ("filter", "smudge"),
    ("filter", "process"),
    ("merge", "driver"),
    ("mergetool", "cmd"),
    ("difftool", "cmd"),
    ("browser", "cmd"),
    ("man", "cmd"),
    ("gpg", "program"),
];

/// Which kind of command a git configuration key holds, if any. Section
/// and key names ignore case; a subsection keeps it but does not matter here.
fn git_value(key: &str) -> Option<GitValue> {
    let (section, rest) = key.split_once('.')?;
    let section = section.to_ascii_lowercase();
    let (subsection, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name.to_ascii_lowercase()),
        None => (None, rest.to_ascii_lowercase()),
    };
    match (section.as_str(), subsection, name.as_str()) {
        ("alias", None, _) => Some(GitValue::Alias),
        // `alias.NAME.command` is the newer spelling.
        ("alias", Some(_), "command") => Some(GitValue::Alias),
        ("credential", _, "helper") => Some(GitValue::Helper),
        ("pager", None, _) | ("core", None, "fsmonitor") => Some(GitValue::ShellOrBool),
        (_, None, _) if GIT_SHELL_KEYS.contains(&format!("{section}.{name}").as_str()) => {
            Some(GitValue::Shell)
        }
        (_, Some(_), _)
            if GIT_SUBSECTION_SHELL_KEYS.contains(&(section.as_str(), name.as_str())) =>
        {
            Some(GitValue::Shell)
        }
        _ => None,
    }
}

fn is_git_bool(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// The code a git setting `key = value` runs, labelled `via`.
fn git_setting(key: &str, value: &Word, via: &str, launch: &mut Launch) {
    let Some(kind) = git_value(key) else {
        return;
    };
    let text = value.text.as_str();
    let source = match kind {
        GitValue::ShellOrBool if value.is_static() && is_git_bool(text) => return,
        GitValue::Shell | GitValue::ShellOrBool => text.to_string(),
        GitValue::Alias => match text.strip_prefix('!') {
            Some(code) => code.to_string(),
            None => format!("git {text}"),
        },
        GitValue::Helper => match text.strip_prefix('!') {
            Some(code) => code.to_string(),
            None if text.contains('/') || text.contains(' ') => text.to_string(),
            None => return,
        },
    };
    launch.nested.push(Nested::Script {
        source,
        via: format!("{via} {key}"),
        literal: value.literal,
    });
}

/// `NAME=value` from git's `-c`: the key must be known to be judged.
fn git_pair(pair: &Word, via: &str, launch: &mut Launch) {
    let (key, value) = pair
        .text
        .split_once('=')
        .unwrap_or((pair.text.as_str(), ""));
    if key.contains(['$', '`', '*', '?', '[', '{']) && !pair.literal {
        launch.opaque.push((
            OpaqueKind::DynamicEval,
            format!(
                "`{via}` sets a setting only known at run time (`{}`)",
                pair.text
            ),
        ));
        return;
    }
    let value = Word {
        text: value.to_string(),
        ..pair.clone()
    };
    git_setting(key, &value, via, launch);
}

/// `--config-env=NAME=VARIABLE`: the value comes from the environment.
fn git_config_env(pair: &Word, launch: &mut Launch) {
    let Some((key, variable)) = pair.text.split_once('=') else {
        return;
    };
    if git_value(key).is_some() {
        launch.opaque.push((
            OpaqueKind::DynamicEval,
            format!("`git --config-env` makes `{key}` run the command in `${variable}`"),
        ));
    }
}

/// git's options before the subcommand that take the next word.
const GIT_GLOBAL_VALUE: &[&str] = &[
    "-C",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--attr-source",
];

/// `git [global options] subcommand ...`: settings and subcommand options
/// whose values git runs.
pub fn git(args: &[Word], launch: &mut Launch) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if text == "-c" {
            if let Some(pair) = args.get(i + 1) {
                git_pair(pair, "git -c", launch);
            }
            i += 2;
        } else if text == "--config-env" {
            if let Some(pair) = args.get(i + 1) {
                git_config_env(pair, launch);
            }
            i += 2;
        } else if let Some(pair) = text.strip_prefix("--config-env=") {
            git_config_env(&Word::literal(pair), launch);
            i += 1;
        } else if GIT_GLOBAL_VALUE.contains(&text) {
            i += 2;
        } else if text.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    // The ext:: transport runs its URL as a command (when allowed).
    for word in &args[i.min(args.len())..] {
        if let Some(command) = word.text.strip_prefix("ext::") {
            launch.nested.push(Nested::Argv {
                words: ext_words(command, word.literal),
                via: "git ext::".into(),
                call: None,
                appended: false,
                fill: Vec::new(),
            });
        }
    }
    let Some(subcommand) = args.get(i) else {
        return;
    };
    let rest = &args[i + 1..];
    match subcommand.text.as_str() {
        "config" => git_config(rest, launch),
        "rebase" => option_code(rest, Some('x'), &["exec"], "git rebase --exec", launch),
        "difftool" => option_code(
            rest,
            Some('x'),
            &["extcmd"],
            "git difftool --extcmd",
            launch,
        ),
        "fetch" | "pull" => option_code(rest, None, &["upload-pack"], "git --upload-pack", launch),
        "clone" | "ls-remote" => option_code(
            rest,
            Some('u'),
            &["upload-pack"],
            "git --upload-pack",
            launch,
        ),
        "push" | "send-pack" => option_code(
            rest,
            None,
            &["receive-pack", "exec"],
            "git --receive-pack",
            launch,
        ),
        "archive" => option_code(rest, None, &["exec"], "git archive --exec", launch),
        "grep" => {
            for word in rest {
                let code = word
                    .text
                    .strip_prefix("--open-files-in-pager=")
                    .or_else(|| word.text.strip_prefix("-O").filter(|c| !c.is_empty()));
                if let Some(code) = code {
                    push_code(code, word.literal, "git grep -O", launch);
                }
            }
        }
        "bisect" if rest.first().is_some_and(|w| w.text == "run") && rest.len() > 1 => {
            launch.nested.push(Nested::Argv {
                words: rest[1..].to_vec(),
                via: "git bisect run".into(),
                call: None,
                appended: false,
                fill: Vec::new(),
            });
        }
        "submodule" => {
            let Some(at) = rest.iter().position(|w| w.text == "foreach") else {
                return;
            };
            let start = at
                + 1
                + rest[at + 1..]
                    .iter()
                    .take_while(|w| w.text.starts_with('-'))
                    .count();
            if start < rest.len() {
                let words: Vec<&str> = rest[start..].iter().map(|w| w.text.as_str()).collect();
                push_code(
                    &words.join(" "),
                    rest[start..].iter().all(|w| w.literal),
                    "git submodule foreach",
                    launch,
                );
            }
        }
        _ => {}
    }
}

/// The argv of an `ext::` URL: words split at spaces, `% ` a space inside
/// a word and `%%` a percent sign (`%S` and the like are git's own values).
fn ext_words(command: &str, literal: bool) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => current.push(' '),
                Some('%') => current.push('%'),
                Some(other) => {
                    current.push('%');
                    current.push(other);
                }
                None => current.push('%'),
            },
            ' ' => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
        .into_iter()
        .map(|text| Word {
            text,
            literal,
            pattern: false,
        })
        .collect()
}

fn push_code(source: &str, literal: bool, via: &str, launch: &mut Launch) {
    launch.nested.push(Nested::Script {
        source: source.to_string(),
        via: via.to_string(),
        literal,
    });
}

/// Every value of `-x CODE`, `-xCODE`, `--name CODE` and `--name=CODE`.
fn option_code(args: &[Word], short: Option<char>, long: &[&str], via: &str, launch: &mut Launch) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        i += 1;
        if text == "--" {
            break;
        }
        let value = if let Some(name) = text.strip_prefix("--") {
            match name.split_once('=') {
                Some((name, value)) if long.contains(&name) => Some(Word {
                    text: value.to_string(),
                    ..word.clone()
                }),
                None if long.contains(&name) => {
                    i += 1;
                    args.get(i - 1).cloned()
                }
                _ => None,
            }
        } else {
            match (short, text.strip_prefix('-')) {
                (Some(short), Some(cluster)) if cluster.starts_with(short) => {
                    let attached = &cluster[short.len_utf8()..];
                    if attached.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        Some(Word {
                            text: attached.to_string(),
                            ..word.clone()
                        })
                    }
                }
                _ => None,
            }
        };
        if let Some(value) = value {
            push_code(&value.text, value.literal, via, launch);
        }
    }
}

/// git config's options that take the next word.
const GIT_CONFIG_VALUE: &[&str] = &[
    "-f",
    "--file",
    "--blob",
    "--type",
    "--default",
    "--comment",
    "--value",
];

/// `git config [set] KEY VALUE` (also `--add`, `--replace-all`): a command
/// stored now runs at the next `git x`, `git log`, `git diff`.
fn git_config(args: &[Word], launch: &mut Launch) {
    let mut operands: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        i += 1;
        if GIT_CONFIG_VALUE.contains(&text) {
            i += 1;
        } else if !text.starts_with('-') || text == "-" {
            operands.push(word);
        }
    }
    if operands.first().is_some_and(|w| w.text == "set") {
        operands.remove(0);
    }
    if let [key, value, ..] = operands.as_slice() {
        git_setting(&key.text, value, "git config", launch);
    }
}

/// Environment variables whose value a program runs as a command.
const COMMAND_VARIABLES: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "RSYNC_RSH",
    "CVS_RSH",
];

/// Code that `NAME=value` settings make the command (and what it starts)
/// run: `GIT_SSH_COMMAND='rm -rf ~' git fetch`, git's own
/// `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` pairs and `GIT_CONFIG_PARAMETERS`.
pub fn from_assignments<'a>(
    assignments: impl Iterator<Item = &'a (String, Word)> + Clone,
    launch: &mut Launch,
) {
    for (name, value) in assignments.clone() {
        if COMMAND_VARIABLES.contains(&name.as_str()) {
            launch.nested.push(Nested::Script {
                source: value.text.clone(),
                via: format!("{name}="),
                literal: value.literal,
            });
        } else if let Some(n) = name.strip_prefix("GIT_CONFIG_KEY_") {
            let value_name = format!("GIT_CONFIG_VALUE_{n}");
            if let Some((_, setting)) = assignments.clone().find(|(name, _)| *name == value_name) {
                git_setting(&value.text, setting, "GIT_CONFIG_KEY", launch);
            }
        } else if name == "GIT_CONFIG_PARAMETERS" {
            git_parameters(value, launch);
        }
    }
}

/// `GIT_CONFIG_PARAMETERS="'alias.x'='!code'"`: single-quoted keys and
/// values, as git writes them for `-c`.
fn git_parameters(value: &Word, launch: &mut Launch) {
    if !value.literal {
        launch.opaque.push((
            OpaqueKind::DynamicEval,
            "`GIT_CONFIG_PARAMETERS` sets git settings only known at run time".into(),
        ));
        return;
    }
    // Split on the quotes: odd pieces are quoted text, `=` and blanks between.
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut chars = value.text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => quoted = !quoted,
            '\\' if !quoted => current.extend(chars.next()),
            ' ' | '\t' | '\n' if !quoted => {
                if !current.is_empty() {
                    pieces.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    for piece in pieces {
        git_pair(&Word::literal(piece), "GIT_CONFIG_PARAMETERS", launch);
    }
}

/// `export NAME=value` (also `declare -x`, `readonly`, ...): the value
/// reaches every later command of the line.
pub fn exported(args: &[Word], launch: &mut Launch) {
    let pairs: Vec<(String, Word)> = args
        .iter()
        .filter_map(|w| {
            let (name, value) = w.text.split_once('=')?;
            Some((
                name.to_string(),
                Word {
                    text: value.to_string(),
                    ..w.clone()
                },
            ))
        })
        .collect();
    from_assignments(pairs.iter(), launch);
}
