//! Tools that run a command as a side job of what they are for: remote
//! logins (`ssh host -p 22 'code'`, `-o ProxyCommand=code`, `rsync -e`),
//! sandboxes (`bwrap --bind / / cmd`), group switches (`sg grp -c code`),
//! file watchers (`entr -s code`), debuggers and editors that take startup
//! commands (`gdb -ex 'shell code'`, `vim -c '!code'`), `man -P`, and
//! package runners' stand-ins for `rm` (`npx rimraf ~`, `npx shx rm -rf ~`).
//!
//! Each hands back what it runs as nested work, like the launchers in
//! `launchers.rs`, so the rules about the command itself apply.

use super::launchers::{Launch, Nested};
use super::words::Word;

fn script(launch: &mut Launch, word: &Word, source: &str, via: &str) {
    launch.nested.push(Nested::Script {
        source: source.to_string(),
        via: via.to_string(),
        literal: word.literal,
    });
}

fn argv(launch: &mut Launch, words: Vec<Word>, via: &str, call: Option<&str>) {
    if words.is_empty() {
        return;
    }
    launch.nested.push(Nested::Argv {
        words,
        via: via.to_string(),
        call: call.map(str::to_string),
        appended: false,
        fill: Vec::new(),
    });
}

/// ssh's `-o Name=value` (or `Name value`) options whose value is a local
/// command run through the shell.
fn ssh_option(value: &Word, via: &str, launch: &mut Launch) {
    let text = value.text.trim_start();
    let split = text
        .find(|c: char| c == '=' || c.is_whitespace())
        .unwrap_or(text.len());
    let (name, rest) = text.split_at(split);
    let rest = rest.trim_start_matches(|c: char| c == '=' || c.is_whitespace());
    if ["proxycommand", "localcommand", "knownhostscommand"]
        .contains(&name.to_ascii_lowercase().as_str())
        && !rest.is_empty()
        && !rest.eq_ignore_ascii_case("none")
    {
        script(launch, value, rest, &format!("{via} -o {name}"));
    }
}

/// `ssh [options] host [options] [--] command...`: OpenSSH reads options
/// again after the host, so `ssh host -p 22 'rm -rf ~'` runs the last word
/// remotely; `-o ProxyCommand=...` runs locally.
pub fn ssh(args: &[Word], launch: &mut Launch) {
    const VALUE: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let mut i = 0;
    let mut host_seen = false;
    let mut options_done = false;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if !options_done && word.literal && text == "--" {
            options_done = true;
            i += 1;
            continue;
        }
        let cluster = text
            .strip_prefix('-')
            .filter(|c| !options_done && word.literal && !c.is_empty());
        let Some(cluster) = cluster else {
            if host_seen {
                break;
            }
            host_seen = true;
            i += 1;
            continue;
        };
        i += 1;
        for (at, flag) in cluster.char_indices() {
            if VALUE.contains(flag) {
                let attached = &cluster[at + flag.len_utf8()..];
                let value = if attached.is_empty() {
                    i += 1;
                    args.get(i - 1).cloned()
                } else {
                    Some(Word {
                        text: attached.to_string(),
                        ..word.clone()
                    })
                };
                if let (Some(value), 'o') = (value, flag) {
                    ssh_option(&value, "ssh", launch);
                }
                break;
            }
        }
    }
    if host_seen && i < args.len() {
        push_rest_as_script(launch, args, i, "ssh");
    }
}

/// sqlite3's `.shell CMD` and `.system CMD` dot-commands, in any argument
/// (also `-cmd`'s), run CMD through the shell (`sqlite3 x ".shell rm -rf
/// ~"`); each line of an argument is read as the CLI reads it.
pub fn sqlite(args: &[Word], launch: &mut Launch) {
    for word in args {
        for line in word.text.lines() {
            let line = line.trim_start();
            let code = [".shell", ".system"].iter().find_map(|dot| {
                line.strip_prefix(dot)
                    .filter(|rest| rest.starts_with([' ', '\t']))
            });
            if let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) {
                script(launch, word, code, "sqlite3 .shell");
            }
        }
    }
}

/// The mysql and psql clients run a shell command from a line of the SQL
/// they are given with `-e`/`--execute` (mysql) or `-c`/`--command`
/// (psql) that starts with `\\!` (both) or `system` (mysql).
pub fn sql_client(program: &str, args: &[Word], launch: &mut Launch) {
    let mysql = program != "psql";
    let options: &[&str] = if mysql {
        &["-e", "--execute"]
    } else {
        &["-c", "--command"]
    };
    let via = format!("{program} \\!");
    for (i, word) in args.iter().enumerate() {
        let value = if options.contains(&word.text.as_str()) {
            args.get(i + 1)
        } else if word.text.starts_with("--") || (mysql && word.text.starts_with("-e")) {
            // `--execute=SQL`, mysql's attached `-eSQL`: read below as text.
            Some(word)
        } else {
            None
        };
        let Some(value) = value else { continue };
        let text = value.text.as_str();
        let text = options
            .iter()
            .find_map(|o| text.strip_prefix(o).map(|t| t.trim_start_matches('=')))
            .unwrap_or(text);
        for statement in text.split(['\n', ';']) {
            let statement = statement.trim_start();
            let code = statement.strip_prefix("\\!").or_else(|| {
                mysql
                    .then(|| {
                        statement
                            .strip_prefix("system")
                            .filter(|r| r.starts_with([' ', '\t']))
                    })
                    .flatten()
            });
            if let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) {
                script(launch, value, code, &via);
            }
        }
    }
}

/// `osascript -e 'do shell script "CODE"'` runs CODE with `/bin/sh -c`.
pub fn osascript(args: &[Word], launch: &mut Launch) {
    for word in args {
        let mut rest = word.text.as_str();
        while let Some(at) = rest.find("do shell script") {
            rest = rest[at + "do shell script".len()..].trim_start();
            let Some(string) = rest.strip_prefix('"') else {
                continue;
            };
            let code = super::inline::double_quoted_body(string);
            script(launch, word, &code, "osascript do shell script");
        }
    }
}

/// `docker exec [options] CONTAINER COMMAND...` (and `docker container
/// exec`, `docker compose exec SERVICE`, `docker-compose`, podman,
/// nerdctl) and `kubectl exec POD [options] -- COMMAND...` (and `oc`): the
/// command runs in a container of a live service, as ssh's runs on a
/// server, so the rules about it apply (`docker exec db rm -rf /data`
/// destroys the service's data). It runs without a shell, as words.
pub fn container_exec(program: &str, args: &[Word], launch: &mut Launch) {
    let kube = matches!(program, "kubectl" | "oc");
    // The subcommand: the first literal `exec` before any `--`.
    let Some(exec) = args
        .iter()
        .take_while(|w| !(w.literal && w.text == "--"))
        .position(|w| w.literal && w.text == "exec")
    else {
        return;
    };
    if !subcommand_is_exec(&args[..exec], kube) {
        return;
    }
    let rest = &args[exec + 1..];
    let start = if let Some(dash) = rest.iter().position(|w| w.literal && w.text == "--") {
        // kubectl's own form, and docker's `--` before the container.
        if kube {
            Some(dash + 1)
        } else {
            operand_after(&rest[dash + 1..], DOCKER_EXEC_VALUES).map(|i| dash + 1 + i)
        }
    } else {
        let values = if kube {
            KUBECTL_EXEC_VALUES
        } else {
            DOCKER_EXEC_VALUES
        };
        operand_after(rest, values)
    };
    if let Some(start) = start.filter(|&s| s < rest.len()) {
        let words = rest[start..].to_vec();
        let mut via = format!("{program} exec");
        // `docker exec --privileged` gives the command every capability
        // and device, as `docker run --privileged` does (kubectl has no
        // such option).
        if !kube && rest[..start].iter().any(privileged_option) {
            via.push_str(super::containers::HOST_PRIVILEGES);
        }
        argv(launch, words, &via, None);
        launch.foreign.push(exec + 1 + start..args.len());
    }
}

/// The programs whose `exec` [`container_exec`] follows.
const EXEC_PROGRAMS: &[&str] = &[
    "docker",
    "docker-compose",
    "podman",
    "podman-compose",
    "nerdctl",
    "kubectl",
    "oc",
];

/// True for the label [`container_exec`] gives the command it runs
/// (`docker exec`, `kubectl exec`), unless with host privileges: that
/// command's standard input is what the exec hands on from the line
/// (`-i`), or a terminal the agent cannot type into (`-t`).
pub fn hands_on_input(label: &str) -> bool {
    label
        .strip_suffix(" exec")
        .is_some_and(|program| EXEC_PROGRAMS.contains(&program))
}

/// `--privileged`, or `--privileged=VALUE` unless the value is `false`
/// (one only known when the line runs may be `true`).
fn privileged_option(word: &Word) -> bool {
    match word.text.strip_prefix("--privileged") {
        Some("") => true,
        Some(value) => value.strip_prefix('=').is_some_and(|v| v != "false"),
        None => false,
    }
}

/// Whether the words before `exec` are the program's own options (and
/// docker's `container` or `compose` group): `exec` is then the
/// subcommand, not a word of some other subcommand's command.
fn subcommand_is_exec(before: &[Word], kube: bool) -> bool {
    let values: &[&str] = if kube {
        KUBECTL_EXEC_VALUES
    } else {
        super::containers::GLOBAL_VALUES
    };
    let mut i = 0;
    while let Some(w) = before.get(i) {
        let text = w.text.as_str();
        if !w.literal {
            return false;
        }
        if text.starts_with('-') {
            i += if values.contains(&text) { 2 } else { 1 };
        } else if !kube && matches!(text, "container" | "compose") {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// Options of `docker exec` (and `compose exec`) that take a value.
const DOCKER_EXEC_VALUES: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--detach-keys",
    "--index",
];

/// Options of `kubectl exec` (and global ones written after it) that take
/// a value.
const KUBECTL_EXEC_VALUES: &[&str] = &[
    "-c",
    "--container",
    "-n",
    "--namespace",
    "-f",
    "--filename",
    "--context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--token",
    "--as",
    "--pod-running-timeout",
];

/// Where the words after the first operand (the container or pod) start:
/// options before it are skipped, `values` taking the next word unless
/// attached (`--env=X`, `-uroot`).
fn operand_after(words: &[Word], values: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let text = w.text.as_str();
        if !(w.literal && text.starts_with('-') && text.len() > 1) {
            return Some(i + 1);
        }
        i += if values.contains(&text) { 2 } else { 1 };
    }
    None
}

/// `scp`/`sftp`: `-o ProxyCommand=...`, and `-S program` (`-D program` for
/// sftp) run locally in place of ssh.
pub fn copy_over_ssh(program: &str, args: &[Word], launch: &mut Launch) {
    let runs = if program == "sftp" { "SD" } else { "S" };
    let value_flags = if program == "sftp" {
        "BbcDFiJloPRSs"
    } else {
        "cDFiJloPSX"
    };
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let Some(cluster) = word.text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            continue;
        };
        if cluster == "-" {
            break;
        }
        for (at, flag) in cluster.char_indices() {
            if value_flags.contains(flag) {
                let attached = &cluster[at + flag.len_utf8()..];
                let value = if attached.is_empty() {
                    i += 1;
                    args.get(i - 1).cloned()
                } else {
                    Some(Word {
                        text: attached.to_string(),
                        ..word.clone()
                    })
                };
                if let Some(value) = value {
                    if flag == 'o' {
                        ssh_option(&value, program, launch);
                    } else if runs.contains(flag) {
                        script(launch, &value, &value.text, &format!("{program} -{flag}"));
                    }
                }
                break;
            }
        }
    }
}

/// `rsync -e CMD` / `--rsh=CMD` runs CMD locally as its remote shell;
/// `--rsync-path=CMD` runs on the other side.
pub fn rsync(args: &[Word], launch: &mut Launch) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        let value = if text == "-e" || text == "--rsh" || text == "--rsync-path" {
            i += 1;
            args.get(i - 1).cloned()
        } else if let Some(v) = text
            .strip_prefix("--rsh=")
            .or_else(|| text.strip_prefix("--rsync-path="))
        {
            Some(Word {
                text: v.to_string(),
                ..word.clone()
            })
        } else {
            text.strip_prefix("-e")
                .filter(|v| !v.is_empty() && !text.starts_with("--"))
                .map(|v| Word {
                    text: v.to_string(),
                    ..word.clone()
                })
        };
        if let Some(value) = value {
            script(launch, &value, &value.text, "rsync -e");
        }
    }
}

/// `mosh [options] host -- command`.
pub fn mosh(args: &[Word], launch: &mut Launch) {
    if let Some(at) = args.iter().position(|w| w.text == "--") {
        if at + 1 < args.len() {
            argv(launch, args[at + 1..].to_vec(), "mosh", None);
            launch.foreign.push(at + 1..args.len());
        }
    }
}

/// `sg [-] group [-c] command`: the command is shell code.
pub fn sg(args: &[Word], launch: &mut Launch) {
    let mut i = usize::from(args.first().is_some_and(|w| w.text == "-"));
    // The group.
    i += 1;
    if args.get(i).is_some_and(|w| w.text == "-c") {
        i += 1;
    }
    if i < args.len() {
        push_rest_as_script(launch, args, i, "sg");
    }
}

/// `entr [-acdnprsz] utility [args]`; with `-s` the utility is shell code.
pub fn entr(args: &[Word], launch: &mut Launch) {
    let mut shell = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        match word.text.strip_prefix('-') {
            Some("-") => {
                i += 1;
                break;
            }
            Some(flags) if !flags.is_empty() => {
                shell |= flags.contains('s');
                i += 1;
            }
            _ => break,
        }
    }
    let Some(first) = args.get(i) else {
        return;
    };
    if shell {
        script(launch, first, &first.text, "entr -s");
    } else {
        argv(launch, args[i..].to_vec(), "entr", None);
    }
    launch.foreign.push(i..args.len());
}

/// How many words each bubblewrap option takes.
fn bwrap_arity(option: &str) -> usize {
    match option {
        "--overlay" => 3,
        "--setenv" | "--bind" | "--bind-try" | "--dev-bind" | "--dev-bind-try" | "--ro-bind"
        | "--ro-bind-try" | "--file" | "--bind-data" | "--ro-bind-data" | "--symlink"
        | "--chmod" => 2,
        "--args" | "--argv0" | "--userns" | "--userns2" | "--pidns" | "--uid" | "--gid"
        | "--hostname" | "--chdir" | "--unsetenv" | "--lock-file" | "--sync-fd"
        | "--remount-ro" | "--exec-label" | "--file-label" | "--proc" | "--dev" | "--tmpfs"
        | "--mqueue" | "--dir" | "--seccomp" | "--add-seccomp-fd" | "--block-fd"
        | "--userns-block-fd" | "--info-fd" | "--json-status-fd" | "--cap-add" | "--cap-drop"
        | "--perms" | "--size" | "--overlay-src" | "--tmp-overlay" | "--ro-overlay" => 1,
        _ => 0,
    }
}

/// `bwrap [options] command...`: the command sees host directories under
/// the names `--bind SRC DEST` gives them, so its paths are mapped back
/// (`bwrap --bind ~ /h rm -rf /h` deletes the home directory).
pub fn bwrap(args: &[Word], launch: &mut Launch) {
    let mut binds: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        if !text.starts_with("--") {
            break;
        }
        let arity = bwrap_arity(text);
        if text.contains("bind") && arity == 2 && !text.contains("data") {
            if let (Some(src), Some(dest)) = (args.get(i + 1), args.get(i + 2)) {
                binds.push((src.text.clone(), dest.text.clone()));
            }
        }
        i += 1 + arity;
    }
    if i >= args.len() {
        return;
    }
    // The longest destination first: a later, deeper bind hides the outer one.
    binds.sort_by_key(|(_, dest)| std::cmp::Reverse(dest.len()));
    let words = args[i..]
        .iter()
        .map(|w| {
            let mapped = binds.iter().find_map(|(src, dest)| {
                let dest = dest.trim_end_matches('/');
                let rest = w.text.strip_prefix(dest)?;
                (rest.is_empty() || rest.starts_with('/'))
                    .then(|| format!("{}{rest}", src.trim_end_matches('/')))
            });
            match mapped {
                Some(text) if !text.is_empty() => Word { text, ..w.clone() },
                Some(_) => Word {
                    text: "/".into(),
                    ..w.clone()
                },
                None => w.clone(),
            }
        })
        .collect();
    argv(launch, words, "bwrap", None);
    launch.foreign.push(i..args.len());
}

/// The shell command in a gdb command, if it runs one: `shell code`,
/// `!code`.
fn gdb_shell_command(command: &str) -> Option<&str> {
    let trimmed = command.trim_start();
    trimmed
        .strip_prefix("shell ")
        .or_else(|| trimmed.strip_prefix('!'))
}

/// `gdb -ex CMD` and friends. (Vim's startup commands are read by
/// `inline::vim_ex`.)
pub fn gdb_commands(args: &[Word], launch: &mut Launch) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        let value = if matches!(
            text,
            "-ex" | "--ex" | "-iex" | "--iex" | "-eval-command" | "--eval-command"
        ) {
            i += 1;
            args.get(i - 1).map(|w| w.text.clone())
        } else {
            text.strip_prefix("--eval-command=")
                .or_else(|| text.strip_prefix("-eval-command="))
                .or_else(|| text.strip_prefix("--ex="))
                .map(str::to_string)
        };
        if let Some(code) = value.as_deref().and_then(gdb_shell_command) {
            script(launch, word, code, "gdb !");
        }
    }
}

/// `man -P PAGER` / `--pager=PAGER`: the pager is run through the shell.
pub fn man(args: &[Word], launch: &mut Launch) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let value = match word.text.as_str() {
            "-P" | "--pager" => {
                i += 1;
                args.get(i - 1).cloned()
            }
            text => text
                .strip_prefix("--pager=")
                .or_else(|| text.strip_prefix("-P").filter(|v| !v.is_empty()))
                .map(|v| Word {
                    text: v.to_string(),
                    ..word.clone()
                }),
        };
        if let Some(value) = value {
            script(launch, &value, &value.text, "man -P");
        }
    }
}

/// `rimraf PATH...` (npm's `rm -rf`), reported as the `rm -r -f` it is.
pub fn rimraf(program: &str, args: &[Word], launch: &mut Launch) {
    let operands: Vec<Word> = args
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .cloned()
        .collect();
    if operands.is_empty() {
        return;
    }
    let mut words = vec![
        Word::literal("rm"),
        Word::literal("-r"),
        Word::literal("-f"),
        Word::literal("--"),
    ];
    words.extend(operands);
    argv(launch, words, program, Some(program));
}

/// `cmake -E COMMAND ARGS`: CMake's portable commands. Those that delete
/// are reported as the `rm` they stand for (`remove_directory` deletes
/// trees, `remove` files); those that run a command (`env`, `chdir`,
/// `time`) report it.
pub fn cmake(args: &[Word], launch: &mut Launch) {
    let Some(at) = args.iter().position(|w| w.text == "-E") else {
        return;
    };
    let Some(command) = args.get(at + 1) else {
        return;
    };
    let rest = &args[at + 2..];
    let deleting: &[&str] = match command.text.as_str() {
        "rm" => &[],
        "remove" => &["-f"],
        "remove_directory" | "rm_directory" => &["-r", "-f"],
        "env" => {
            // Options and NAME=value words, then the command.
            let start = rest
                .iter()
                .position(|w| !w.text.starts_with('-') && !w.text.contains('='))
                .unwrap_or(rest.len());
            argv(launch, rest[start..].to_vec(), "cmake -E env", None);
            launch.foreign.push(at + 2 + start..args.len());
            return;
        }
        // Runs in another directory: handed on as the `env -C DIR cmd`
        // it equals, so its relative paths are not taken for the project's.
        "chdir" if !rest.is_empty() => {
            let mut words = vec![Word::literal("env"), Word::literal("-C")];
            words.extend(rest.iter().cloned());
            argv(launch, words, "cmake -E chdir", None);
            launch.foreign.push(at + 2..args.len());
            return;
        }
        "time" => {
            argv(launch, rest.to_vec(), "cmake -E time", None);
            launch.foreign.push(at + 2..args.len());
            return;
        }
        _ => return,
    };
    let mut words = vec![Word::literal("rm")];
    words.extend(deleting.iter().map(|f| Word::literal(*f)));
    words.extend(rest.iter().cloned());
    argv(launch, words, "cmake -E", None);
    launch.foreign.push(at + 2..args.len());
}

/// `shx CMD ARGS` runs ShellJS's version of a Unix command.
pub fn shx(args: &[Word], launch: &mut Launch) {
    let start = args
        .iter()
        .position(|w| !w.text.starts_with('-'))
        .unwrap_or(args.len());
    if start < args.len() {
        argv(launch, args[start..].to_vec(), "shx", None);
        launch.foreign.push(start..args.len());
    }
}

/// The words from `i` on are one shell script `via` runs elsewhere (a
/// remote host, another group): reported as a nested script, and the words
/// as foreign to the launcher's own command line.
fn push_rest_as_script(launch: &mut Launch, args: &[Word], i: usize, via: &str) {
    let words = &args[i..];
    launch.nested.push(Nested::Script {
        source: words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        via: via.into(),
        literal: words.iter().all(|w| w.literal),
    });
    launch.foreign.push(i..args.len());
}

/// `sops exec-env FILE COMMAND` and `sops exec-file FILE COMMAND` run
/// COMMAND (one word) through `/bin/sh -c`, with the decrypted secrets in
/// its environment or in a file whose path replaces `{}`: a credential
/// launcher like `aws-vault exec`, whose command the rules must see.
/// `--user` (both), `--filename`, `--input-type` and `--output-type`
/// (exec-file) take a value.
pub fn sops(args: &[Word], launch: &mut Launch) {
    const VALUED: &[&str] = &[
        "--user",
        "--filename",
        "--input-type",
        "--output-type",
        "--config",
        "--log-level",
    ];
    let Some(at) = args
        .iter()
        .position(|w| w.literal && matches!(w.text.as_str(), "exec-env" | "exec-file"))
    else {
        return;
    };
    let via = format!("sops {}", args[at].text);
    let mut operands = Vec::new();
    let mut i = at + 1;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if text == "--" {
            operands.extend(i..args.len());
            break;
        }
        if text.starts_with('-') && text.len() > 1 {
            if VALUED.contains(&text) {
                i += 1;
            }
            continue;
        }
        operands.push(i - 1);
    }
    if let Some(&command) = operands.get(1) {
        let word = &args[command];
        script(launch, word, &word.text, &via);
        launch.foreign.push(command..command + 1);
    }
}

/// Launchers whose option hands them shell code to run: `doppler run
/// --command CODE`, `infisical run --command CODE`, `mise exec -c CODE`,
/// `nix-shell --run CODE` (and its `--command`), `tar --to-command CODE`
/// (and its other hooks), `zip -TT CODE`. Their plain command form
/// (`doppler run -- cmd`) is a wrapper (see `wrappers.rs`).
const CODE_OPTIONS: &[(&str, &[&str], &[&str])] = &[
    ("doppler", &["run"], &["--command"]),
    ("infisical", &["run"], &["--command"]),
    ("mise", &["exec", "x"], &["-c", "--command"]),
    ("nix-shell", &[], &["--run", "--command"]),
    // tar pipes each file to, or compresses with, a shell command, and
    // runs one at checkpoints (`--checkpoint-action=exec=CODE`) and
    // between volumes.
    (
        "tar",
        &[],
        &[
            "--to-command",
            "--use-compress-program",
            "-I",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
            "-F",
            "--rsh-command",
        ],
    ),
    // `zip -T -TT CODE` tests the archive with CODE.
    ("zip", &[], &["-TT", "--unzip-command"]),
];

/// True for the programs [`code_options`] reads.
pub fn has_code_options(program: &str) -> bool {
    CODE_OPTIONS.iter().any(|(name, ..)| *name == program)
}

pub fn code_options(program: &str, args: &[Word], launch: &mut Launch) {
    let Some((_, subcommands, options)) = CODE_OPTIONS.iter().find(|(n, ..)| *n == program) else {
        return;
    };
    if !subcommands.is_empty() && !args.iter().any(|w| subcommands.contains(&w.text.as_str())) {
        return;
    }
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        if word.text == "--" {
            break;
        }
        let value = if options.contains(&word.text.as_str()) {
            i += 1;
            args.get(i - 1).cloned()
        } else {
            options.iter().find_map(|option| {
                let text = word.text.strip_prefix(option)?.strip_prefix('=')?;
                Some(Word {
                    text: text.to_string(),
                    ..word.clone()
                })
            })
        };
        // Of tar's checkpoint actions only `exec=CODE` runs code.
        let value = if word.text.starts_with("--checkpoint-action") {
            value.and_then(|v| {
                let code = v.text.strip_prefix("exec=")?.to_string();
                Some(Word { text: code, ..v })
            })
        } else {
            value
        };
        if let Some(value) = value {
            script(launch, &value, &value.text, &format!("{program} --command"));
        }
    }
}
