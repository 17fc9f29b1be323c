//! Image builds: `docker build`, `docker buildx build`, `docker image
//! build`, `podman build`, `nerdctl build`, and `docker buildx bake`.
//!
//! A build hands host files to code the line does not show (the
//! Dockerfile's `RUN` steps): the whole context directory, BuildKit
//! secrets (`--secret id=aws,src=~/.aws/credentials`, mounted into `RUN
//! --mount=type=secret` where a step can print it), SSH keys (`--ssh
//! default=~/.ssh/id_rsa`), named contexts (`--build-context k=~/.ssh`) and
//! podman's build-time bind mounts (`-v ~/.ssh:/s`). Each is reported as a
//! file the builder reads, like a container runner's mount sources, so the
//! rules about handing secrets or the home directory to a container decide
//! them too. A project file given as a secret (`src=.npmrc`) is the
//! project's, as a project `.env` mounted into a container is.

use super::containers::host_path;
use super::launchers::Launch;
use super::words::Word;

/// What a build subcommand hands the builder from: `build`'s options and
/// context, or `bake`'s options (its targets are named in a bake file).
pub enum Step {
    Build(usize),
    Bake(usize),
}

/// The build step `args[at]` starts (`build`, `buildx build`, `image
/// build`, `builder build`, buildx's alias `b`; `buildx bake` and its
/// shorthand `bake`), with where its own arguments start; `None` for other
/// subcommands of those groups.
pub fn build_step(args: &[Word], at: usize) -> Option<Step> {
    match args[at].text.as_str() {
        "build" => Some(Step::Build(at + 1)),
        "bake" => Some(Step::Bake(at + 1)),
        group => {
            // Options of the group may come before its subcommand
            // (`docker buildx --builder x build`).
            let mut i = at + 1;
            while let Some(word) = args.get(i) {
                let text = word.static_text()?;
                if text.starts_with('-') {
                    let takes = !text.contains('=') && GROUP_VALUES.contains(&text);
                    i += if takes { 2 } else { 1 };
                    continue;
                }
                let build = text == "build" || (group == "buildx" && text == "b");
                let bake = group == "buildx" && text == "bake";
                return match (build, bake) {
                    (true, _) => Some(Step::Build(i + 1)),
                    (_, true) => Some(Step::Bake(i + 1)),
                    _ => None,
                };
            }
            None
        }
    }
}

/// Options of the `buildx` and `image` groups before the subcommand that
/// take a value.
const GROUP_VALUES: &[&str] = &["--builder"];

/// The build's options and context from `args[from]` on: every host path
/// it hands the builder becomes one of `launch.reads`, and a writable
/// podman build mount one of `launch.writes`.
pub fn inspect(args: &[Word], from: usize, launch: &mut Launch) {
    let mut at = from;
    while let Some(word) = args.get(at) {
        if word.text == "--" {
            at += 1;
            continue;
        }
        if !is_option(word) {
            // The context; a word an unknown option takes is read the same
            // way, which only errs on the side of reporting it.
            if !is_remote(&word.text) {
                launch.reads.extend(host_path(&word.text));
            }
            at += 1;
            continue;
        }
        let (name, value, used) = option_value(args, at);
        at += used;
        let Some(value) = value else {
            continue;
        };
        match name.as_str() {
            "--secret" => launch.reads.extend(secret_file(&value)),
            "--ssh" => launch.reads.extend(ssh_keys(&value)),
            "--build-context" => {
                let source = value.text.split_once('=').map_or("", |(_, s)| s);
                if !is_remote(source) {
                    launch.reads.extend(host_path(source));
                }
            }
            "-f" | "--file" => launch.reads.extend(host_path(&value.text)),
            "-v" | "--volume" => {
                if let Some(mount) = super::containers::volume(&value) {
                    if !mount.read_only {
                        launch.writes.push(mount.source.clone());
                    }
                    launch.reads.push(mount.source);
                }
            }
            _ => {}
        }
    }
}

/// `bake`'s options from `args[from]` on. Targets are defined in a bake
/// file the line does not show, but `--set TARGETS.KEY=VALUE` overrides
/// what they hand the builder as `build`'s options do: `*.context=~`,
/// `*.secrets=id=aws,src=~/.aws/credentials`, `*.ssh=default=KEY`,
/// `*.contexts.NAME=PATH`; `--allow fs.read=PATH` (also `fs=`, `fs.write=`)
/// lets the bake file reach host paths outside its directory; `-f FILE`
/// is the bake file. Each host path is reported as a file the builder
/// reads, so the rules about build contexts and secrets decide them.
pub fn bake(args: &[Word], from: usize, launch: &mut Launch) {
    let mut at = from;
    while let Some(word) = args.get(at) {
        if !is_option(word) {
            at += 1;
            continue;
        }
        let (name, value, used) = option_value(args, at);
        at += used;
        let Some(value) = value else {
            continue;
        };
        match name.as_str() {
            "--set" => {
                let Some((key, setting)) = value.text.split_once('=') else {
                    continue;
                };
                let setting = Word {
                    text: setting.to_string(),
                    ..value.clone()
                };
                // The key after the target pattern (`*.`, `app.`, `.`).
                let key = key.trim_end_matches('+');
                let key = key.rsplit_once('.').map_or(key, |(target, key)| {
                    if target.contains(".contexts") || target.ends_with("contexts") {
                        "contexts"
                    } else {
                        key
                    }
                });
                match key {
                    "secrets" => launch.reads.extend(secret_file(&setting)),
                    "ssh" => launch.reads.extend(ssh_keys(&setting)),
                    "context" | "contexts" | "dockerfile" if !is_remote(&setting.text) => {
                        launch.reads.extend(host_path(&setting.text))
                    }
                    _ => {}
                }
            }
            "--allow" => {
                let path = value.text.split_once('=').map_or("", |(_, p)| p);
                launch.reads.extend(host_path(path));
            }
            "-f" | "--file" => launch.reads.extend(host_path(&value.text)),
            _ => {}
        }
    }
}

/// `--secret id=x,src=PATH` (also `source=`, `type=file`): the file. A
/// secret from an environment variable (`env=NAME`) names no file.
fn secret_file(value: &Word) -> Option<Word> {
    value.text.split(',').find_map(|field| {
        let (key, path) = field.split_once('=')?;
        matches!(key.trim(), "src" | "source")
            .then(|| host_path(path))
            .flatten()
    })
}

/// `--ssh default=~/.ssh/id_rsa,~/.ssh/other`: the key files handed to
/// the build; `--ssh default` forwards the agent, whose keys stay in it.
fn ssh_keys(value: &Word) -> Vec<Word> {
    value
        .text
        .split(',')
        .map(|part| part.split_once('=').map_or(part, |(_, path)| path))
        .filter_map(host_path)
        .collect()
}

/// A context or named context the builder fetches itself.
fn is_remote(text: &str) -> bool {
    text.contains("://") || text.starts_with("git@") || text.starts_with("target:")
}

fn is_option(word: &Word) -> bool {
    word.text.len() > 1 && word.text.starts_with('-')
}

/// The option at `args[at]` of a build: long options not known to take a
/// value are flags; the word after one is then read as a context, which
/// only adds reads.
fn option_value(args: &[Word], at: usize) -> (String, Option<Word>, usize) {
    super::containers::option_at(
        args,
        at,
        |long| BUILD_VALUES.contains(&long),
        |letter| SHORT_VALUES.contains(letter),
    )
}

/// Short options of `build` that take a value (docker, buildx, podman).
const SHORT_VALUES: &str = "tfomcv";

/// Long options of `build` (docker, buildx, podman, nerdctl) that take a
/// value.
const BUILD_VALUES: &[&str] = &[
    "add-host",
    "allow",
    "annotation",
    "arch",
    "attest",
    "authfile",
    "build-arg",
    "build-arg-file",
    "build-context",
    "builder",
    "cache-from",
    "cache-to",
    "call",
    "cert-dir",
    "cgroup-parent",
    "cpu-period",
    "cpu-quota",
    "cpu-shares",
    "cpuset-cpus",
    "cpuset-mems",
    "creds",
    "file",
    "format",
    "iidfile",
    "isolation",
    "jobs",
    "label",
    "memory",
    "memory-swap",
    "metadata-file",
    "network",
    "os",
    "output",
    "platform",
    "progress",
    "provenance",
    "sbom",
    "secret",
    "security-opt",
    "set",
    "shm-size",
    "ssh",
    "tag",
    "target",
    "ulimit",
    "userns",
    "variant",
    "volume",
];

#[cfg(test)]
mod tests {
    use crate::shell::analyze;

    /// The files the build command hands to the builder.
    fn reads(line: &str) -> Vec<String> {
        let analysis = analyze(line);
        assert!(!analysis.is_opaque(), "{line}: {:?}", analysis.opaque);
        analysis.commands[0]
            .reads
            .iter()
            .map(|t| t.text.clone())
            .collect()
    }

    #[test]
    fn secrets_keys_contexts_and_mounts_are_read() {
        for (line, expected) in [
            (
                "docker buildx build --secret id=aws,src=$HOME/.aws/credentials .",
                vec!["~/.aws/credentials", "."],
            ),
            (
                "docker build --secret=type=file,id=x,source=/k/a.pem -t app .",
                vec!["/k/a.pem", "."],
            ),
            (
                "podman build --ssh default=~/.ssh/id_rsa,~/.ssh/id_ed25519 -f Containerfile ctx",
                vec!["~/.ssh/id_rsa", "~/.ssh/id_ed25519"],
            ),
            (
                "docker buildx --builder b build --build-context keys=~/.ssh -f- ~",
                vec!["~/.ssh", "~"],
            ),
            ("docker image build -t x $HOME", vec!["~"]),
            ("podman build -v ~/.aws:/a:ro .", vec!["~/.aws", "."]),
        ] {
            assert_eq!(reads(line), expected, "{line}");
        }
    }

    #[test]
    fn bake_overrides_and_entitlements_are_read() {
        for (line, expected) in [
            (
                "docker buildx bake --set '*.secrets=id=aws,src=/home/u/.aws/credentials'",
                vec!["/home/u/.aws/credentials"],
            ),
            ("docker buildx bake --set app.context=$HOME app", vec!["~"]),
            (
                "docker bake --set=*.ssh=default=~/.ssh/id_rsa",
                vec!["~/.ssh/id_rsa"],
            ),
            (
                "docker buildx bake -f bake.hcl --set *.contexts.keys=~/.ssh --allow fs.read=/",
                vec!["~/.ssh", "/"],
            ),
            (
                "docker buildx bake --set *.secrets+=id=k,src=~/.npmrc",
                vec!["~/.npmrc"],
            ),
        ] {
            assert_eq!(reads(line), expected, "{line}");
        }
        // Targets, platforms, tags and remote contexts are no host files.
        for line in [
            "docker buildx bake",
            "docker buildx bake --set *.platform=linux/arm64 --set app.tags=app:dev app test",
            "docker buildx bake --set app.context=https://github.com/x/y.git --push",
            "docker buildx bake --set *.secrets=id=t,env=GITHUB_TOKEN --allow network.host",
        ] {
            assert_eq!(reads(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn values_that_hand_over_no_host_file() {
        for line in [
            "docker build --secret id=token,env=GITHUB_TOKEN -t app https://github.com/x/y.git",
            "docker build --ssh default -t app:dev --build-arg HOME=/root -",
            "docker buildx build --build-context base=docker-image://alpine -o type=local,dest=out git@github.com:x/y",
            "docker buildx ls",
        ] {
            assert_eq!(reads(line), Vec::<String>::new(), "{line}");
        }
    }
}
