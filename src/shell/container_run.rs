//! `docker run` (and podman's, nerdctl's): the command a new container runs,
//! seen through its bind mounts.
//!
//! A container is its own file system, so most of what runs in it cannot
//! touch the host: `docker run --rm alpine rm -rf /var/cache` is harmless.
//! A bind mount changes that. `docker run -v ~/.ssh:/s alpine cat /s/id_rsa`
//! prints the host's key under a name (`/s/id_rsa`) that no rule about host
//! paths recognises. So the container's command is followed as nested work
//! with every mount destination it names rewritten to the host source it
//! stands for (`cat ~/.ssh/id_rsa`), in words and inside `sh -c` scripts,
//! and with the working directory (`-w`) moved to the host source too. The
//! environment handed over with `--env-file .env` or `-e` reaches the
//! command, so a command that prints it (`env`, a shell) is followed too.
//!
//! `docker cp` is a `cp` as far as the host side goes.
//!
//! Commands that name no mount and get no environment are left alone: what
//! they do stays in the container. Where the options cannot be read for
//! sure (an option this module does not know, written without `=`), the
//! command is followed from both places the image could be.

use super::launchers::{Launch, Nested};
use super::words::Word;

/// A bind mount: the host path (as written) and where the container sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mount {
    source: String,
    target: String,
}

/// What the options before the image say.
#[derive(Debug, Default)]
struct RunOptions {
    mounts: Vec<Mount>,
    workdir: Option<String>,
    entrypoint: Option<Word>,
    environment: bool,
    /// Where the image is, and the other place it could be when an unknown
    /// option may have taken the next word as its value.
    image: Option<usize>,
    image_if_unknown_took_a_value: Option<usize>,
}

/// Follows `docker run ...` / `docker container run ...` (podman, nerdctl),
/// and `docker cp`.
pub fn container_run(program: &str, args: &[Word], launch: &mut Launch) {
    let Some(run) = subcommand(args, &["run", "cp"]) else {
        return;
    };
    if args[run].text == "cp" {
        return copy(program, &args[run + 1..], launch);
    }
    let rest = &args[run + 1..];
    let options = read_options(rest);
    for image in [options.image, options.image_if_unknown_took_a_value]
        .into_iter()
        .flatten()
    {
        follow(program, rest, image, &options, launch);
    }
    if let Some(image) = options.image {
        launch.foreign.push(run + 1 + image + 1..args.len());
    }
}

/// `docker cp SOURCE DEST`: one side is `CONTAINER:PATH`, the other the
/// host's, so it is a `cp` on the host as far as the host path goes (`docker
/// cp ~/.ssh/id_rsa web:/tmp` copies the key out; `docker cp web:/x
/// ~/.bashrc` writes over a startup file). The container side stays a name
/// in the current directory, which no rule about host paths matches.
fn copy(program: &str, args: &[Word], launch: &mut Launch) {
    let operands: Vec<Word> = args
        .iter()
        .filter(|w| !(w.text.starts_with('-') && w.text.len() > 1))
        .cloned()
        .collect();
    if operands.len() != 2 {
        return;
    }
    let mut words = vec![Word::literal("cp")];
    words.extend(operands);
    launch.nested.push(Nested::Argv {
        words,
        via: format!("{program} cp"),
        call: None,
        appended: false,
        fill: Vec::new(),
    });
}

/// The position of the subcommand when it is one of `names`: only the
/// program's own options (and docker's `container` group) come before it.
fn subcommand(args: &[Word], names: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let text = w.text.as_str();
        if !w.literal {
            return None;
        }
        if names.contains(&text) {
            return Some(i);
        }
        if text.starts_with('-') {
            i += if GLOBAL_VALUES.contains(&text) { 2 } else { 1 };
        } else if text == "container" {
            i += 1;
        } else {
            return None;
        }
    }
    None
}

fn read_options(words: &[Word]) -> RunOptions {
    let mut out = RunOptions::default();
    let mut i = 0;
    let mut uncertain = false;
    while let Some(w) = words.get(i) {
        let text = w.text.as_str();
        if text == "--" {
            out.image = Some(i + 1).filter(|&at| at < words.len());
            break;
        }
        if !text.starts_with('-') || text == "-" {
            out.image = Some(i);
            if uncertain && i + 1 < words.len() {
                out.image_if_unknown_took_a_value = Some(i + 1);
            }
            break;
        }
        i += 1;
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_string())),
            _ => (text, None),
        };
        let (name, inline) = if name.starts_with("--") {
            (name.to_string(), inline)
        } else {
            // A cluster of short flags: the last may take a value, glued on
            // (`-v/a:/b`) or as the next word.
            let letters = &name[1..];
            match letters
                .char_indices()
                .find(|(_, c)| SHORT_VALUES.contains(*c))
            {
                Some((at, letter)) => {
                    let glued = &letters[at + letter.len_utf8()..];
                    let value = (!glued.is_empty()).then(|| glued.to_string());
                    (format!("-{letter}"), value)
                }
                None => continue,
            }
        };
        let takes_value = name.len() == 2 || LONG_VALUES.contains(&name.as_str());
        if !takes_value {
            if !LONG_SWITCHES.contains(&name.as_str()) && inline.is_none() {
                uncertain = true;
            }
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                let Some(next) = words.get(i) else { break };
                i += 1;
                next.text.clone()
            }
        };
        match name.as_str() {
            "-v" | "--volume" => out.mounts.extend(volume(&value)),
            "--mount" => out.mounts.extend(mount(&value)),
            "-w" | "--workdir" => out.workdir = Some(value),
            "-e" | "--env" | "--env-file" => out.environment = true,
            "--entrypoint" => {
                out.entrypoint = Some(Word {
                    text: value,
                    ..w.clone()
                })
            }
            _ => {}
        }
    }
    // The container's home is /root for its usual user: `~/.ssh` and
    // `$HOME/.ssh` in its command name a mount at /root/.ssh too.
    let homes: Vec<Mount> = out
        .mounts
        .iter()
        .filter_map(|m| {
            let rest = m.target.strip_prefix("/root")?;
            (rest.is_empty() || rest.starts_with('/')).then_some(m)
        })
        .flat_map(|m| {
            let rest = &m.target["/root".len()..];
            ["~", "$HOME", "${HOME}"].map(|home| Mount {
                source: m.source.clone(),
                target: format!("{home}{rest}"),
            })
        })
        .collect();
    out.mounts.extend(homes);
    // Longer destinations first: `/a/b` is matched before `/a`.
    out.mounts
        .sort_by_key(|m| std::cmp::Reverse(m.target.len()));
    out
}

/// `-v SOURCE:TARGET[:OPTIONS]` with a host path as the source (a named
/// volume, `data:/var/lib/x`, is not the host's).
fn volume(value: &str) -> Option<Mount> {
    let mut parts = value.splitn(3, ':');
    let source = parts.next().filter(|s| host_path(s))?;
    let target = clean_target(parts.next()?)?;
    Some(Mount {
        source: source.to_string(),
        target,
    })
}

/// `--mount type=bind,source=S,target=T[,...]`.
fn mount(value: &str) -> Option<Mount> {
    let mut bind = false;
    let (mut source, mut target) = (None, None);
    for field in value.split(',') {
        let (key, val) = field.split_once('=').unwrap_or((field, ""));
        match key {
            "type" => bind = val == "bind",
            "source" | "src" => source = Some(val),
            "target" | "destination" | "dst" => target = Some(val),
            _ => {}
        }
    }
    let source = source.filter(|s| bind && host_path(s))?;
    Some(Mount {
        source: source.to_string(),
        target: clean_target(target?)?,
    })
}

fn host_path(source: &str) -> bool {
    source.starts_with(['/', '.', '~', '$'])
}

/// The destination without a trailing `/`; the container's root is no
/// destination to rewrite (everything would be under it).
fn clean_target(target: &str) -> Option<String> {
    let t = target.trim_end_matches('/');
    (t.starts_with('/') && t.len() > 1).then(|| t.to_string())
}

fn follow(program: &str, rest: &[Word], image: usize, options: &RunOptions, launch: &mut Launch) {
    let mut words: Vec<Word> = options.entrypoint.iter().cloned().collect();
    words.extend(rest[image + 1..].iter().cloned());
    if words.is_empty() {
        return;
    }
    let mut named = false;
    for word in &mut words {
        if let Some(text) = host_text(&word.text, &options.mounts) {
            // A source written with an expansion (`$PWD`, `$(pwd)`) makes
            // the word one the shell expands.
            word.literal &= !text.contains(['$', '`']);
            word.text = text;
            named = true;
        }
    }
    let workdir = options
        .workdir
        .as_deref()
        .and_then(|w| host_text(w, &options.mounts));
    let prints_environment = options.environment
        && matches!(
            super::program_name(&words[0].text).as_str(),
            "env" | "printenv" | "sh" | "bash" | "ash" | "dash" | "zsh" | "busybox"
        );
    if !(named || workdir.is_some() || prints_environment) {
        return;
    }
    let via = format!("{program} run");
    match workdir {
        // The host directory the container starts in: `cd` there first, so
        // relative names are the host's.
        Some(dir) => launch.nested.push(Nested::Script {
            source: format!(
                "cd {} && {}",
                quoted(&dir),
                words
                    .iter()
                    .map(|w| quoted(&w.text))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            via,
            literal: words.iter().all(|w| w.literal),
        }),
        None => launch.nested.push(Nested::Argv {
            words,
            via,
            call: None,
            appended: false,
            fill: Vec::new(),
        }),
    }
}

/// `text` with every mount destination it names replaced by the host source,
/// or `None` when it names none. A destination counts where a path can
/// start (the start, after a space, quote, `=`, `:`, `(`, `;`, `&`, `|`, `<`
/// or `>`) and ends (the end, `/`, or one of those).
fn host_text(text: &str, mounts: &[Mount]) -> Option<String> {
    const EDGE: &[char] = &[
        ' ', '\t', '\n', '\'', '"', '=', ':', '(', ')', ';', '&', '|', '<', '>',
    ];
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    'scan: while i < text.len() {
        let starts = i == 0 || text[..i].ends_with(EDGE);
        if starts && text[i..].starts_with(['/', '~', '$']) {
            for m in mounts {
                if let Some(after) = text[i..].strip_prefix(m.target.as_str()) {
                    if after.is_empty() || after.starts_with('/') || after.starts_with(EDGE) {
                        // `/:/host` and `/host/etc`: one slash between.
                        let source = if after.starts_with('/') {
                            m.source.trim_end_matches('/')
                        } else {
                            &m.source
                        };
                        out.push_str(source);
                        i += m.target.len();
                        changed = true;
                        continue 'scan;
                    }
                }
            }
        }
        let c = text[i..].chars().next().expect("i is on a char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    changed.then_some(out)
}

/// A word for a script, as the shell reads it back. Expansions (`$HOME`,
/// `$(pwd)`) stay live inside double quotes; anything else is single-quoted.
fn quoted(text: &str) -> String {
    // A leading `~/` is the home directory only unquoted.
    if let Some(rest) = text.strip_prefix("~/") {
        return format!("~/{}", quoted(rest));
    }
    if text.contains('$') {
        let escaped = text
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('`', "\\`");
        format!("\"{escaped}\"")
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Options of docker, podman and nerdctl before the subcommand that take a
/// value.
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
    "--connection",
    "--url",
    "--identity",
    "--root",
    "--runroot",
    "--storage-driver",
    "--namespace",
    "-n",
    "--address",
    "-a",
    "--cgroup-manager",
];

/// Short options of `run` that take a value (docker's and podman's).
const SHORT_VALUES: &str = "acehlmpuvw";

/// Long options of `run` that take a value.
const LONG_VALUES: &[&str] = &[
    "--add-host",
    "--annotation",
    "--arch",
    "--attach",
    "--authfile",
    "--blkio-weight",
    "--blkio-weight-device",
    "--cap-add",
    "--cap-drop",
    "--cert-dir",
    "--cgroup-conf",
    "--cgroup-parent",
    "--cgroupns",
    "--cgroups",
    "--chrootdirs",
    "--cidfile",
    "--conmon-pidfile",
    "--cpu-count",
    "--cpu-percent",
    "--cpu-period",
    "--cpu-quota",
    "--cpu-rt-period",
    "--cpu-rt-runtime",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--creds",
    "--decryption-key",
    "--detach-keys",
    "--device",
    "--device-cgroup-rule",
    "--device-read-bps",
    "--device-read-iops",
    "--device-write-bps",
    "--device-write-iops",
    "--dns",
    "--dns-opt",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "--entrypoint",
    "--env",
    "--env-file",
    "--env-merge",
    "--expose",
    "--gidmap",
    "--gpus",
    "--group-add",
    "--group-entry",
    "--health-cmd",
    "--health-interval",
    "--health-on-failure",
    "--health-retries",
    "--health-start-interval",
    "--health-start-period",
    "--health-startup-cmd",
    "--health-startup-interval",
    "--health-startup-retries",
    "--health-startup-success",
    "--health-startup-timeout",
    "--health-timeout",
    "--hostname",
    "--hosts-file",
    "--hostuser",
    "--image-volume",
    "--init-path",
    "--io-maxbandwidth",
    "--io-maxiops",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "--kernel-memory",
    "--label",
    "--label-file",
    "--link",
    "--link-local-ip",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--memory-swappiness",
    "--mount",
    "--name",
    "--net",
    "--network",
    "--network-alias",
    "--oom-score-adj",
    "--os",
    "--passwd-entry",
    "--personality",
    "--pid",
    "--pidfile",
    "--pids-limit",
    "--platform",
    "--pod",
    "--pod-id-file",
    "--preserve-fds",
    "--publish",
    "--pull",
    "--rdt-class",
    "--requires",
    "--restart",
    "--retry",
    "--retry-delay",
    "--runtime",
    "--sdnotify",
    "--seccomp-policy",
    "--secret",
    "--security-opt",
    "--shm-size",
    "--shm-size-systemd",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--subgidname",
    "--subuidname",
    "--sysctl",
    "--systemd",
    "--timeout",
    "--tmpfs",
    "--tz",
    "--uidmap",
    "--ulimit",
    "--umask",
    "--unsetenv",
    "--user",
    "--userns",
    "--uts",
    "--variant",
    "--volume",
    "--volume-driver",
    "--volumes-from",
    "--workdir",
    "--cosign-key",
    "--label-file",
    "--cgroup-manager",
];

/// Long options of `run` known to take no value: any other, written
/// without `=`, may have taken the next word.
const LONG_SWITCHES: &[&str] = &[
    "--detach",
    "--interactive",
    "--tty",
    "--rm",
    "--privileged",
    "--publish-all",
    "--init",
    "--read-only",
    "--sig-proxy",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--quiet",
    "--use-api-socket",
    "--disable-content-trust",
    "--help",
    "--replace",
    "--rootfs",
    "--no-hosts",
    "--read-only-tmpfs",
    "--http-proxy",
    "--tls-verify",
    "--env-host",
    "--rmi",
    "--pull-always",
    "--insecure",
    "--gpus-all",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split_whitespace().map(Word::literal).collect()
    }

    /// What `program ARGS` runs, as a readable line per nested command.
    fn followed(program: &str, line: &str) -> Vec<String> {
        let mut launch = Launch::default();
        container_run(program, &words(line), &mut launch);
        launch
            .nested
            .iter()
            .map(|n| match n {
                Nested::Argv { words, via, .. } => format!(
                    "{via}: {}",
                    words
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Nested::Script { source, via, .. } => format!("{via}: {source}"),
            })
            .collect()
    }

    #[test]
    fn mount_destinations_become_host_paths() {
        assert_eq!(
            followed("docker", "run -v ~/.ssh:/s alpine cat /s/id_rsa"),
            ["docker run: cat ~/.ssh/id_rsa"]
        );
        assert_eq!(
            followed(
                "podman",
                "run --rm --volume=/:/host:ro alpine rm -rf /host/etc"
            ),
            ["podman run: rm -rf /etc"]
        );
        assert_eq!(
            followed(
                "docker",
                "container run --mount type=bind,src=/home/u/.aws,dst=/a x cat /a/credentials"
            ),
            ["docker run: cat /home/u/.aws/credentials"]
        );
        // Inside a script, where a path can start.
        assert_eq!(
            followed("docker", "run -itv ~/.ssh:/k alpine sh -c 'cat</k/id_rsa'"),
            ["docker run: sh -c 'cat<~/.ssh/id_rsa'"]
        );
        // The container's home, where a mount is under /root.
        assert_eq!(
            followed(
                "docker",
                "run -v /home/u/.ssh:/root/.ssh alpine sh -c 'cat ~/.ssh/id_rsa'"
            ),
            ["docker run: sh -c 'cat /home/u/.ssh/id_rsa'"]
        );
        // `/sx` is not under `/s`.
        assert!(followed("docker", "run -v ~/.ssh:/s alpine cat /sx/y").is_empty());
    }

    #[test]
    fn the_working_directory_moves_to_the_host() {
        assert_eq!(
            followed("docker", "run -v /home/u/.ssh:/k -w /k alpine cat id_rsa"),
            ["docker run: cd '/home/u/.ssh' && 'cat' 'id_rsa'"]
        );
    }

    #[test]
    fn the_environment_handed_over_is_followed_into_commands_that_print_it() {
        assert_eq!(
            followed("docker", "run --env-file .env alpine env"),
            ["docker run: env"]
        );
        assert!(followed("docker", "run --env-file .env myapp serve").is_empty());
    }

    #[test]
    fn what_stays_in_the_container_is_not_followed() {
        for line in [
            "run --rm alpine rm -rf /var/cache",
            "run -v data:/var/lib/db postgres rm -rf /var/lib/db",
            "run --rm -v /:/ alpine ls /",
            "ps -a",
            "build -t x .",
        ] {
            assert!(followed("docker", line).is_empty(), "{line}");
        }
    }

    #[test]
    fn an_unknown_option_makes_both_readings_count() {
        assert_eq!(
            followed(
                "docker",
                "run --some-new-flag alpine -v ~/.ssh:/s alpine cat /s/id_rsa"
            ),
            Vec::<String>::new(),
            "options after the image are the command's, not docker's"
        );
        assert_eq!(
            followed(
                "docker",
                "run -v ~/.ssh:/s --frobnicate 3 alpine cat /s/id_rsa"
            ),
            [
                "docker run: alpine cat ~/.ssh/id_rsa",
                "docker run: cat ~/.ssh/id_rsa"
            ]
        );
    }

    #[test]
    fn a_copy_is_a_copy_on_the_host_side() {
        assert_eq!(
            followed("docker", "cp -L ~/.ssh/id_rsa web:/tmp/"),
            ["docker cp: cp ~/.ssh/id_rsa web:/tmp/"]
        );
        assert_eq!(
            followed("podman", "container cp web:/x ~/.bashrc"),
            ["podman cp: cp web:/x ~/.bashrc"]
        );
    }

    #[test]
    fn an_entrypoint_comes_first() {
        assert_eq!(
            followed(
                "docker",
                "run -v ~/.ssh:/s --entrypoint cat alpine /s/id_rsa"
            ),
            ["docker run: cat ~/.ssh/id_rsa"]
        );
    }
}
