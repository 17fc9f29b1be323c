//! Container runners: `docker run`, `podman run`, `nerdctl run` (also
//! `create`, `container run`, `compose run`) and `docker cp`.
//!
//! A container is no sandbox for the host paths it is given. `docker run -v
//! ~/.ssh:/s alpine cat /s/id_rsa` prints the host's key, `-v /:/h alpine
//! rm -rf /h/etc` deletes the host's `/etc`, and `alpine curl
//! 169.254.169.254` reaches the host's cloud metadata service. So the
//! command a container runs is handed back as nested work like `docker
//! exec`'s, with each bind mount remembered: a path under a mount's
//! destination is read as the host path it stands for (see [`Mount::host`]),
//! and the rules about secrets, deletions and writes decide it as they would
//! decide the host command. Mount sources are reported as files the runner
//! reads, so a rule can refuse handing a secret or the home directory to a
//! container at all. Paths that no mount covers are left as written: they
//! are the image's, and deciding them as host paths errs on the safe side.

use super::launchers::{Launch, Nested};
use super::words::Word;

/// What a container the command starts is given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Container {
    pub mounts: Vec<Mount>,
    /// Its working directory is a mounted host directory other than the
    /// one the runner starts in, so its relative paths are not followed.
    pub elsewhere: bool,
}

/// One bind mount: the host directory or file `source` (as written, with
/// `$PWD` and `$(pwd)` spelled `.` and `$HOME` spelled `~`) seen inside the
/// container at `destination`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub source: Word,
    pub destination: String,
}

impl Mount {
    /// The host path `path` stands for when it lies under this mount's
    /// destination.
    fn host(&self, path: &str) -> Option<String> {
        let destination = self.destination.trim_end_matches('/');
        let rest = path.strip_prefix(destination)?;
        if !(rest.is_empty() || rest.starts_with('/')) || !path.starts_with('/') {
            return None;
        }
        let source = self.source.text.trim_end_matches('/');
        let source = if source.is_empty() { "/" } else { source };
        Some(match (source, rest) {
            (s, "") => s.to_string(),
            ("/", r) => r.to_string(),
            (s, r) => format!("{s}{r}"),
        })
    }
}

/// `word` as the host sees it: a path under one of `mounts` (the longest
/// destination first), also after `NAME=` or `--option=` (`if=/s/key`),
/// becomes the host path; anything else is returned unchanged.
pub fn host_word(word: &Word, mounts: &[Mount]) -> Word {
    let text = word.text.as_str();
    let (head, path) = match text.find('=') {
        Some(at) if !text.starts_with('/') => text.split_at(at + 1),
        _ => ("", text),
    };
    let best = mounts
        .iter()
        .filter_map(|m| Some((m.destination.len(), m, m.host(path)?)))
        .max_by_key(|(len, _, _)| *len);
    match best {
        Some((_, mount, host)) => Word {
            text: format!("{head}{host}"),
            literal: word.literal && mount.source.literal,
            pattern: word.pattern,
        },
        None => word.clone(),
    }
}

/// `docker`/`podman`/`nerdctl`/`docker-compose` commands: `run`, `create`
/// and `cp` here, `exec` through `tool_launchers::container_exec`.
pub fn inspect(program: &str, args: &[Word], launch: &mut Launch) {
    let compose = program == "docker-compose";
    let Some((at, compose)) = subcommand(args, compose) else {
        return;
    };
    match args[at].text.as_str() {
        "run" | "create" => run(program, args, at + 1, compose, launch),
        "cp" => copy(program, args, at + 1, launch),
        _ => super::tool_launchers::container_exec(program, args, launch),
    }
}

/// Where the subcommand is: the first word after the program's own options
/// and the `container`/`compose` groups; with whether it is compose's.
fn subcommand(args: &[Word], mut compose: bool) -> Option<(usize, bool)> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.static_text()?;
        if text.starts_with('-') {
            let takes = GLOBAL_VALUES.contains(&text);
            i += if takes { 2 } else { 1 };
        } else if text == "container" {
            i += 1;
        } else if text == "compose" {
            compose = true;
            i += 1;
        } else {
            return Some((i, compose));
        }
    }
    None
}

/// What `run`'s options say: mounts, working directory, entry point.
#[derive(Default)]
struct RunOptions {
    mounts: Vec<Mount>,
    workdir: Option<String>,
    entrypoint: Option<Word>,
}

/// `run [options] IMAGE [COMMAND...]` (compose: `SERVICE`).
fn run(program: &str, args: &[Word], from: usize, compose: bool, launch: &mut Launch) {
    let mut options = RunOptions::default();
    let mut i = from;
    let image = loop {
        let Some(word) = args.get(i) else { return };
        let text = word.text.as_str();
        if !(word.literal && text.starts_with('-') && text.len() > 1) {
            break i;
        }
        if text == "--" {
            i += 1;
            match args.get(i) {
                Some(_) => break i,
                None => return,
            }
        }
        let (name, value, used) = option_value(args, i);
        i += used;
        if let Some(value) = value {
            options.take(&name, &value);
        }
    };
    for mount in &options.mounts {
        launch.reads.push(mount.source.clone());
    }
    let mut words: Vec<Word> = options.entrypoint.clone().into_iter().collect();
    words.extend(args[image + 1..].iter().cloned());
    if words.is_empty() {
        return;
    }
    let via = if compose {
        format!("{program} compose run")
    } else {
        format!("{program} run")
    };
    // A working directory that is a mounted host directory other than the
    // project's own (`-v $PWD:/app -w /app`) puts relative paths somewhere
    // the analysis does not follow.
    let elsewhere = options.workdir.as_deref().is_some_and(|w| {
        let host = host_word(&Word::literal(w), &options.mounts);
        host.text != w && host.text != "." && !host.text.starts_with("./")
    });
    launch.nested.push(Nested::Argv {
        words,
        via,
        call: None,
        appended: false,
        fill: Vec::new(),
    });
    launch.container = Some(Container {
        mounts: options.mounts,
        elsewhere,
    });
    launch.foreign.push(image + 1..args.len());
}

impl RunOptions {
    fn take(&mut self, name: &str, value: &Word) {
        match name {
            "-v" | "--volume" => self.mounts.extend(volume(value)),
            "--mount" => self.mounts.extend(bind_mount(value)),
            "-w" | "--workdir" => self.workdir = Some(value.text.clone()),
            "--entrypoint" => self.entrypoint = Some(value.clone()),
            _ => {}
        }
    }
}

/// The option at `args[at]`: its name, its value if it takes one (attached
/// with `=`, attached to a short flag, or the next word), and how many
/// words it used.
fn option_value(args: &[Word], at: usize) -> (String, Option<Word>, usize) {
    let word = &args[at];
    let text = word.text.as_str();
    let attached = |value: &str| Word {
        text: value.to_string(),
        ..word.clone()
    };
    if let Some(long) = text.strip_prefix("--") {
        if let Some((name, value)) = long.split_once('=') {
            return (format!("--{name}"), Some(attached(value)), 1);
        }
        if RUN_FLAGS.contains(&long) {
            return (text.to_string(), None, 1);
        }
        // Every other long option of `run` takes a value.
        return (text.to_string(), args.get(at + 1).cloned(), 2);
    }
    // A short cluster: flags up to the first letter that takes a value.
    for (pos, letter) in text.char_indices().skip(1) {
        if SHORT_FLAGS.contains(letter) {
            continue;
        }
        let name = format!("-{letter}");
        let rest = &text[pos + letter.len_utf8()..];
        return if rest.is_empty() {
            (name, args.get(at + 1).cloned(), 2)
        } else {
            (name, Some(attached(rest.trim_start_matches('='))), 1)
        };
    }
    (text.to_string(), None, 1)
}

/// `-v SOURCE:DESTINATION[:OPTIONS]`; a bare name (`data:/var/lib`) is a
/// named volume and `-v /data` an anonymous one: neither is a host path.
fn volume(value: &Word) -> Option<Mount> {
    let (source, rest) = value.text.split_once(':')?;
    let destination = rest.split(':').next().unwrap_or(rest);
    host_source(source, destination)
}

/// `--mount type=bind,source=SRC,target=DST[,readonly]`; other types hold
/// no host path (the default type is a volume).
fn bind_mount(value: &Word) -> Option<Mount> {
    let mut bind = false;
    let (mut source, mut destination) = (None, None);
    for field in value.text.split(',') {
        let (key, val) = field.split_once('=').unwrap_or((field, ""));
        let val = val.trim_matches('"');
        match key.trim() {
            "type" => bind = val == "bind",
            "source" | "src" => source = Some(val),
            "destination" | "dst" | "target" => destination = Some(val),
            _ => {}
        }
    }
    if !bind {
        return None;
    }
    host_source(source?, destination?)
}

fn host_source(source: &str, destination: &str) -> Option<Mount> {
    if !destination.starts_with('/') {
        return None;
    }
    let source = spelled_plainly(source);
    let is_path = source.starts_with(['/', '.', '~', '$', '`']);
    is_path.then(|| Mount {
        source: Word {
            literal: !source.contains(['$', '`']),
            pattern: false,
            text: source,
        },
        destination: destination.to_string(),
    })
}

/// `$PWD`, `${PWD}`, `$(pwd)` and `` `pwd` `` at the start spelled `.`
/// (where the runner is started), `$HOME` and `${HOME}` spelled `~`.
fn spelled_plainly(source: &str) -> String {
    const HERE: &[&str] = &["${PWD}", "$PWD", "$(pwd)", "`pwd`"];
    const HOME: &[&str] = &["${HOME}", "$HOME"];
    for (spellings, plain) in [(HERE, "."), (HOME, "~")] {
        for spelling in spellings {
            if let Some(rest) = source.strip_prefix(spelling) {
                let ends_word = rest.is_empty() || rest.starts_with('/');
                if ends_word {
                    return format!("{plain}{rest}");
                }
            }
        }
    }
    source.to_string()
}

/// `cp [options] SOURCE DESTINATION`, one side `CONTAINER:PATH`: the host
/// side is read (a secret copied into a container leaves the guarded
/// places) or written (a file of the container over a host file), as by
/// `cp -r`, so the rules about `cp` decide it.
fn copy(program: &str, args: &[Word], from: usize, launch: &mut Launch) {
    let operands: Vec<&Word> = args[from..]
        .iter()
        .filter(|w| !(w.literal && w.text.starts_with('-') && w.text.len() > 1))
        .collect();
    if operands.len() != 2 {
        return;
    }
    let mut words = vec![Word::literal("cp"), Word::literal("-r")];
    words.extend(operands.into_iter().cloned());
    launch.nested.push(Nested::Argv {
        words,
        via: format!("{program} cp"),
        call: None,
        appended: false,
        fill: Vec::new(),
    });
    launch.foreign.push(from..args.len());
}

/// Options of docker, podman, nerdctl and compose before the subcommand
/// that take a value.
const GLOBAL_VALUES: &[&str] = &[
    "-H",
    "--host",
    "-c",
    "--context",
    "--config",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey",
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--project-directory",
    "--env-file",
    "--profile",
    "--ansi",
    "--progress",
    "--namespace",
    "-n",
    "--address",
    "-a",
    "--connection",
    "--url",
    "--root",
    "--runroot",
    "--storage-driver",
    "--cgroup-manager",
    "--runtime",
];

/// Long options of `run`/`create` (docker, podman, nerdctl, compose) that
/// take no value; every other long option takes one.
const RUN_FLAGS: &[&str] = &[
    "rm",
    "detach",
    "interactive",
    "tty",
    "privileged",
    "init",
    "read-only",
    "publish-all",
    "quiet",
    "help",
    "no-healthcheck",
    "oom-kill-disable",
    "disable-content-trust",
    "sig-proxy",
    "use-api-socket",
    "env-host",
    "http-proxy",
    "no-hosts",
    "read-only-tmpfs",
    "replace",
    "rmi",
    "tls-verify",
    "passwd",
    "rootfs",
    "service-ports",
    "use-aliases",
    "no-deps",
    "build",
    "remove-orphans",
    "no-TTY",
];

/// Short options of `run` that take no value.
const SHORT_FLAGS: &str = "dtiPqT";
