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

use super::assigned::certain_text;
use super::launchers::{Launch, Nested};
use super::words::Word;
use super::OpaqueKind;

/// What a container the command starts is given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Container {
    pub mounts: Vec<Mount>,
    /// Its working directory is a mounted host directory other than the
    /// one the runner starts in, so its relative paths are not followed.
    pub elsewhere: bool,
    /// The variables `-e NAME=value` gives it with a certain value, as
    /// written (a path under a mount is read as the host's where it is
    /// used): all a shell in it starts with that the line shows, the host's
    /// environment is not passed.
    pub environment: Vec<(String, String)>,
}

/// One bind mount: the host directory or file `source` (as written, with
/// `$PWD` and `$(pwd)` spelled `.` and `$HOME` spelled `~`) seen inside the
/// container at `destination`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub source: Word,
    pub destination: String,
    /// Mounted read-only (`:ro`, `readonly`): the container cannot write it.
    pub read_only: bool,
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
    // `/x/../s/key` is `/s/key` in the container too.
    let path = lexical(path);
    let best = mounts
        .iter()
        .filter_map(|m| Some((m.destination.len(), m, m.host(&path)?)))
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

/// An absolute path with `.`, `..` and repeated slashes worked out
/// (`/` has no parent); other text as it is.
fn lexical(path: &str) -> std::borrow::Cow<'_, str> {
    let plain = !path.contains("//") && !path.split('/').any(|c| c == "." || c == "..");
    if !path.starts_with('/') || plain {
        return path.into();
    }
    // The walk every path takes (`paths::normalize`), keeping a trailing
    // `/`, which says the path is a directory.
    let worked = crate::paths::normalize(path, "/", None);
    let trailing = if path.ends_with('/') && worked != "/" {
        "/"
    } else {
        ""
    };
    format!("{worked}{trailing}").into()
}

/// `docker`/`podman`/`nerdctl`/`docker-compose`/`podman-compose` commands: `run`, `create`
/// and `cp` here, `exec` through `tool_launchers::container_exec`.
pub fn inspect(program: &str, args: &[Word], launch: &mut Launch) {
    let compose = program.ends_with("-compose");
    let Some((at, compose)) = subcommand(args, compose) else {
        return super::tool_launchers::container_exec(program, args, launch);
    };
    match args[at].text.as_str() {
        "run" | "create" => run(program, args, at + 1, compose, launch),
        "cp" => copy(program, args, at + 1, launch),
        "build" | "buildx" | "image" | "builder" | "bake" if !compose => {
            use super::container_build::{bake, build_step, inspect, Step};
            match build_step(args, at) {
                Some(Step::Build(from)) => inspect(args, from, launch),
                Some(Step::Bake(from)) => bake(args, from, launch),
                None => super::tool_launchers::container_exec(program, args, launch),
            }
        }
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
#[derive(Default, Clone)]
struct RunOptions {
    mounts: Vec<Mount>,
    env_files: Vec<Word>,
    environment: Vec<(String, Word)>,
    workdir: Option<String>,
    entrypoint: Option<Word>,
    /// `--volumes-from`: the container gets mounts the line does not show.
    volumes_from: bool,
    /// What it is given of the host beyond files (see [`Privileges`]).
    privileges: Privileges,
}

/// What a container is given of the host's kernel, processes and devices.
/// With any of [`Privileges::host_control`] root in the container is root
/// on the host: it can mount the host's disks (`--privileged`,
/// `--cap-add SYS_ADMIN`, a disk as `--device`), load kernel modules, or
/// signal and enter the host's processes (`--pid=host`).
#[derive(Default, Clone)]
struct Privileges {
    /// `--privileged`: every capability and every device.
    all: bool,
    /// `--pid=host`: the host's processes.
    host_pid: bool,
    /// `--network host` (`--net=host`): the host's interfaces and firewall.
    host_network: bool,
    /// `--cap-add` values, upper case, without `CAP_`.
    capabilities: Vec<String>,
    /// `--device` host sides and `--device-cgroup-rule` rules.
    devices: Vec<Word>,
    device_rules: Vec<String>,
    /// `--use-api-socket`: the engine's socket and the user's registry
    /// logins are mounted in.
    api_socket: bool,
    /// `--security-opt systempaths=unconfined` (podman: `unmask=...`): the
    /// kernel files the engine hides (`/proc/sysrq-trigger`, `/proc/kcore`)
    /// are open to root in the container.
    unmasked: bool,
}

/// Capabilities that reach past the container: mounting and most of the
/// kernel's administration (`SYS_ADMIN`), kernel modules, raw I/O ports
/// and memory, opening host files by handle (`DAC_READ_SEARCH`, the
/// "shocker" escape), loading eBPF programs; `ALL` holds them all.
const ESCAPING_CAPABILITIES: &[&str] = &[
    "ALL",
    "SYS_ADMIN",
    "SYS_MODULE",
    "SYS_RAWIO",
    "DAC_READ_SEARCH",
    "BPF",
];

/// Host devices that hold the machine's data or memory: disks and their
/// partitions, device-mapper and loop devices, and raw memory and ports.
const HOST_CONTROL_DEVICES: &[&str] = &[
    "/dev/sd",
    "/dev/hd",
    "/dev/vd",
    "/dev/xvd",
    "/dev/nvme",
    "/dev/mmcblk",
    "/dev/disk",
    "/dev/rdisk",
    "/dev/md",
    "/dev/dm-",
    "/dev/mapper/",
    "/dev/loop",
    "/dev/nbd",
    "/dev/sg",
    "/dev/mem",
    "/dev/kmem",
    "/dev/port",
];

impl Privileges {
    /// Root in the container is root on the host.
    fn host_control(&self) -> bool {
        let has = |cap: &str| self.capabilities.iter().any(|c| c == cap);
        self.all
            || self.host_pid
            || ESCAPING_CAPABILITIES.iter().any(|cap| has(cap))
            // The host's firewall and routes.
            || (self.host_network && (has("NET_ADMIN") || has("NET_RAW")))
            || self.devices.iter().any(|device| {
                !device.literal
                    || HOST_CONTROL_DEVICES.iter().any(|d| device.text.starts_with(d))
            })
            // `a` (all devices) or `b` (block devices) rules open the
            // host's disks to a container that mounts `/dev`.
            || self.device_rules.iter().any(|rule| rule.starts_with(['a', 'b']))
            || self.unmasked
    }

    fn take(&mut self, name: &str, value: Option<&Word>) {
        let text = value.map(|v| v.text.as_str());
        let literal = value.is_none_or(|v| v.literal);
        match (name, text) {
            ("--privileged", None) => self.all = true,
            ("--privileged", Some(set)) => self.all |= set != "false",
            ("--use-api-socket", None) => self.api_socket = true,
            ("--use-api-socket", Some(set)) => self.api_socket |= set != "false",
            // A value only known when the line runs may be the dangerous one.
            ("--pid", Some(pid)) => self.host_pid |= pid == "host" || !literal,
            ("--net" | "--network", Some(network)) => self.host_network |= network == "host",
            ("--cap-add", Some(_)) if !literal => self.capabilities.push("ALL".to_string()),
            ("--cap-add", Some(list)) => {
                let caps = list.split(',').map(|cap| {
                    let cap = cap.trim().to_ascii_uppercase();
                    cap.strip_prefix("CAP_").map(str::to_string).unwrap_or(cap)
                });
                self.capabilities.extend(caps);
            }
            ("--device", Some(device)) => {
                let host = device.split(':').next().unwrap_or_default();
                self.devices.push(Word {
                    text: host.to_string(),
                    ..value.cloned().unwrap_or_default()
                });
            }
            ("--device-cgroup-rule", Some(rule)) => self.device_rules.push(rule.trim().to_string()),
            ("--security-opt", Some(option)) => {
                let option = option.replace(':', "=");
                self.unmasked |=
                    option == "systempaths=unconfined" || option.starts_with("unmask=");
            }
            _ => {}
        }
    }
}

/// `run [options] IMAGE [COMMAND...]` (compose: `SERVICE`).
fn run(program: &str, args: &[Word], from: usize, compose: bool, launch: &mut Launch) {
    let mut readings = Vec::new();
    if !read_options(args, from, RunOptions::default(), &mut readings) {
        launch.opaque.push((
            OpaqueKind::DynamicProgram,
            format!("`{program} run` has too many options it does not know to tell its command"),
        ));
    }
    for (options, image) in readings {
        run_reading(program, args, compose, options, image, launch);
    }
}

/// How many readings of `run`'s options are followed: each option neither
/// list knows doubles them.
const MAX_READINGS: usize = 4;

/// Reads `run`'s options from `at` into `readings` as (options, index of
/// the image). An option neither [`RUN_FLAGS`] nor [`RUN_VALUES`] knows (a
/// newer runner's, another runner's) may or may not take the next word:
/// both readings are kept, so a flag taken for an option with a value
/// cannot make the command look like the image's arguments. False when
/// there were more readings than [`MAX_READINGS`].
fn read_options(
    args: &[Word],
    mut at: usize,
    mut options: RunOptions,
    readings: &mut Vec<(RunOptions, usize)>,
) -> bool {
    loop {
        let Some(word) = args.get(at) else {
            return true;
        };
        if !is_option(word) {
            break;
        }
        if word.text == "--" {
            at += 1;
            if at == args.len() {
                return true;
            }
            break;
        }
        let (name, value, used) = option_value(args, at);
        if used == 2 && name.starts_with("--") && !RUN_VALUES.contains(&&name[2..]) {
            if readings.len() + 1 >= MAX_READINGS {
                return false;
            }
            let mut as_flag = options.clone();
            as_flag.take(&name, None);
            if !read_options(args, at + 1, as_flag, readings) {
                return false;
            }
        }
        at += used;
        options.take(&name, value.as_ref());
    }
    if readings.len() >= MAX_READINGS {
        return false;
    }
    readings.push((options, at));
    true
}

/// What one reading of `run`'s options gives the container and runs in it.
fn run_reading(
    program: &str,
    args: &[Word],
    compose: bool,
    options: RunOptions,
    image: usize,
    launch: &mut Launch,
) {
    // A writable mount lets the container change the host files under it;
    // the project itself (`-v "$PWD":/app`) is where it is meant to work,
    // and its files are guarded by what the container's command does.
    let writable = (options.mounts.iter())
        .filter(|m| !m.read_only && !matches!(m.source.text.as_str(), "." | "./"));
    launch.writes.extend(writable.map(|m| m.source.clone()));
    let sources = options.mounts.iter().map(|m| m.source.clone());
    launch
        .reads
        .extend(sources.chain(options.env_files.iter().cloned()));
    if options.privileges.api_socket {
        // What `--use-api-socket` mounts: the engine's socket, and the
        // registry logins of the user's Docker configuration.
        let given = [API_SOCKET, "~/.docker/config.json"];
        launch.reads.extend(given.into_iter().map(Word::literal));
    }
    let mut words: Vec<Word> = options.entrypoint.clone().into_iter().collect();
    // `buildah run CONTAINER -- COMMAND` separates the command with `--`
    // (to docker it would be the command, which no image has).
    let separated = options.entrypoint.is_none()
        && args
            .get(image + 1)
            .is_some_and(|w| w.literal && w.text == "--");
    words.extend(args[image + 1 + usize::from(separated)..].iter().cloned());
    if words.is_empty() || (options.confined() && interactive_shell(&words)) {
        return;
    }
    let mut via = if compose && !program.ends_with("-compose") {
        format!("{program} compose run")
    } else {
        format!("{program} run")
    };
    // A command the line chooses, run with the host's privileges, acts on
    // the host (rules recognise the label). Options alone go to the
    // image's own entry point (`--privileged tonistiigi/binfmt --install
    // all`), which decides what runs.
    let chosen = options.entrypoint.is_some() || !is_option(&words[0]);
    if chosen && options.privileges.host_control() {
        via.push_str(HOST_PRIVILEGES);
    }
    // An image whose entry point is a fetching tool hands it the words
    // (`curlimages/curl http://169.254.169.254/`); it may also run them
    // as a command when the first names one, so both are followed.
    let tool = (options.entrypoint.is_none() && !compose)
        .then(|| args[image].static_text().and_then(fetching_tool))
        .flatten()
        .filter(|tool| words[0].text != *tool);
    if let Some(tool) = tool {
        let mut fetch = vec![Word::literal(tool)];
        fetch.extend(words.iter().cloned());
        launch.nested.push(Nested::Argv {
            words: fetch,
            via: via.clone(),
            call: None,
            appended: false,
            fill: Vec::new(),
        });
    }
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
    let environment = (options.environment.iter())
        .filter_map(|(name, value)| Some((name.clone(), certain_text(value)?.to_string())))
        .collect();
    // Every reading's mounts hold for every command (a path is mapped
    // whichever reading is right); a variable is known only where the
    // readings agree on it.
    let Some(container) = launch.container.as_mut() else {
        launch.container = Some(Container {
            mounts: options.mounts,
            elsewhere,
            environment,
        });
        launch.foreign.push(image + 1..args.len());
        return;
    };
    container.elsewhere |= elsewhere;
    container
        .environment
        .retain(|known| environment.contains(known));
    for mount in options.mounts {
        if !container.mounts.contains(&mount) {
            container.mounts.push(mount);
        }
    }
    launch.foreign.push(image + 1..args.len());
}

/// What the via label of a container's command ends with when the
/// container has the host's privileges (see [`Privileges::host_control`]).
pub const HOST_PRIVILEGES: &str = " with host privileges";

/// Where `--use-api-socket` finds the engine's socket on Linux.
const API_SOCKET: &str = "/var/run/docker.sock";

/// The program an image runs as its entry point when the image is named
/// after a fetching tool (`curlimages/curl`, `appropriate/curl`,
/// `alpine/curl:8.5.0`, `mwendler/wget`, `alpine/httpie`): the last part
/// of its name, without tag or digest, is the tool's name or holds it
/// between dashes (`byrnedo/alpine-curl`).
fn fetching_tool(image: &str) -> Option<&'static str> {
    let name = image.rsplit('/').next().unwrap_or(image);
    let name = name
        .split(['@', ':'])
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase();
    let parts: Vec<&str> = name.split(['-', '_', '.']).collect();
    [
        ("curl", "curl"),
        ("wget", "wget"),
        ("httpie", "http"),
        ("xh", "xh"),
    ]
    .into_iter()
    .find(|(part, _)| parts.contains(part))
    .map(|(_, tool)| tool)
}

/// A shell started without code (`docker run -it ubuntu bash`): it reads
/// what it runs from the terminal.
fn interactive_shell(words: &[Word]) -> bool {
    let shell = super::wrappers::program_name(&words[0].text);
    super::launchers::is_shell(&shell)
        && words[1..]
            .iter()
            .all(|w| w.literal && w.text.starts_with('-') && !w.text.contains('c'))
}

impl RunOptions {
    /// No host path, process or privilege is given to the container: what
    /// a shell in it reads from the terminal stays inside (a shell reading
    /// code the line does not show next to host mounts is opaque).
    fn confined(&self) -> bool {
        let privileges = &self.privileges;
        self.mounts.is_empty()
            && !self.volumes_from
            && !privileges.api_socket
            && !privileges.host_control()
    }

    fn take(&mut self, name: &str, value: Option<&Word>) {
        self.privileges.take(name, value);
        let Some(value) = value else {
            return;
        };
        match name {
            "--volumes-from" => self.volumes_from = true,
            "-v" | "--volume" => self.mounts.extend(volume(value)),
            "--mount" => self.mounts.extend(bind_mount(value)),
            "--env-file" => self.env_files.push(value.clone()),
            "-e" | "--env" => {
                if let Some((name, text)) = value.text.split_once('=') {
                    let value = Word {
                        text: text.to_string(),
                        ..value.clone()
                    };
                    self.environment.push((name.to_string(), value));
                }
            }
            "-w" | "--workdir" => self.workdir = Some(value.text.clone()),
            "--entrypoint" => self.entrypoint = Some(value.clone()),
            _ => {}
        }
    }
}

/// An option, its name known (`--volume=$HOME/.aws:/a` is one).
fn is_option(word: &Word) -> bool {
    let name = word.text.split('=').next().unwrap_or_default();
    name.len() > 1 && name.starts_with('-') && !name.contains(['$', '`'])
}

/// The option at `args[at]` of `run`: every long option not known to be a
/// flag takes a value (see [`option_at`]).
fn option_value(args: &[Word], at: usize) -> (String, Option<Word>, usize) {
    option_at(
        args,
        at,
        |long| !RUN_FLAGS.contains(&long),
        |letter| !SHORT_FLAGS.contains(letter),
    )
}

/// The option at `args[at]`: its name, its value if it takes one (attached
/// with `=`, attached to a short flag, or the next word), and how many
/// words it used. `long_value` and `short_value` say which options take a
/// value; a short cluster is flags up to the first letter that does
/// (`-itv /x:/y`). Shared by `run` and the builders (container_build.rs).
pub(super) fn option_at(
    args: &[Word],
    at: usize,
    long_value: impl Fn(&str) -> bool,
    short_value: impl Fn(char) -> bool,
) -> (String, Option<Word>, usize) {
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
        if !long_value(long) {
            return (text.to_string(), None, 1);
        }
        return (text.to_string(), args.get(at + 1).cloned(), 2);
    }
    for (pos, letter) in text.char_indices().skip(1) {
        if !short_value(letter) {
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
pub(super) fn volume(value: &Word) -> Option<Mount> {
    let (source, rest) = value.text.split_once(':')?;
    let (destination, options) = rest.split_once(':').unwrap_or((rest, ""));
    let read_only = options.split(',').any(|o| o == "ro" || o == "readonly");
    host_source(source, destination, read_only)
}

/// `--mount type=bind,source=SRC,target=DST[,readonly]`; other types hold
/// no host path (the default type is a volume).
fn bind_mount(value: &Word) -> Option<Mount> {
    let mut bind = false;
    let mut read_only = false;
    let (mut source, mut destination) = (None, None);
    // The value is CSV: a field may be quoted whole (`"src=/x"`), and keys
    // and the type are read ignoring case (`Type=Bind,Source=/x`).
    for field in value.text.split(',') {
        let field = field.trim().trim_matches('"');
        let (key, val) = field.split_once('=').unwrap_or((field, ""));
        let val = val.trim_matches('"');
        match key.trim().to_ascii_lowercase().as_str() {
            "type" => bind = val.eq_ignore_ascii_case("bind"),
            "source" | "src" => source = Some(val),
            "destination" | "dst" | "target" => destination = Some(val),
            "readonly" | "ro" => read_only = !matches!(val, "false" | "0"),
            _ => {}
        }
    }
    if !bind {
        return None;
    }
    host_source(source?, destination?, read_only)
}

fn host_source(source: &str, destination: &str, read_only: bool) -> Option<Mount> {
    if !destination.starts_with('/') {
        return None;
    }
    Some(Mount {
        source: host_path(source)?,
        destination: destination.to_string(),
        read_only,
    })
}

/// A host path handed to a container or build, spelled plainly (see
/// [`spelled_plainly`]); `None` for a name that is no path (a named
/// volume, `-` for standard input).
pub(super) fn host_path(text: &str) -> Option<Word> {
    let text = spelled_plainly(text);
    let is_path = text.starts_with(['/', '.', '~', '$', '`']);
    is_path.then(|| Word {
        literal: !text.contains(['$', '`']),
        pattern: false,
        text,
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
    let operands: Vec<&Word> = args[from..].iter().filter(|w| !is_option(w)).collect();
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
pub(super) const GLOBAL_VALUES: &[&str] = &[
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
    // buildah run's.
    "terminal",
    "no-hostname",
    "no-pivot",
    "add-history",
];

/// Long options of `run`/`create` (docker, podman, nerdctl, compose,
/// buildah) known to take a value. A long option in neither list is read both ways.
const RUN_VALUES: &[&str] = &[
    "add-host",
    "annotation",
    "arch",
    "attach",
    "blkio-weight",
    "cap-add",
    "cap-drop",
    "cgroup-parent",
    "cgroupns",
    "cidfile",
    "cpu-period",
    "cpu-quota",
    "cpu-shares",
    "cpus",
    "cpuset-cpus",
    "cpuset-mems",
    "detach-keys",
    "device",
    "device-cgroup-rule",
    "dns",
    "dns-option",
    "dns-search",
    "domainname",
    "entrypoint",
    "env",
    "env-file",
    "expose",
    "gpus",
    "group-add",
    "health-cmd",
    "health-interval",
    "health-retries",
    "health-start-period",
    "health-timeout",
    "hostname",
    "ip",
    "ip6",
    "ipc",
    "isolation",
    "kernel-memory",
    "label",
    "label-file",
    "link",
    "log-driver",
    "log-opt",
    "mac-address",
    "memory",
    "memory-reservation",
    "memory-swap",
    "memory-swappiness",
    "mount",
    "name",
    "net",
    "network",
    "network-alias",
    "os",
    "pid",
    "pids-limit",
    "platform",
    "pod",
    "publish",
    "pull",
    "restart",
    "runtime",
    "secret",
    "security-opt",
    "shm-size",
    "stop-signal",
    "stop-timeout",
    "storage-opt",
    "sysctl",
    "systemd",
    "tmpfs",
    "ulimit",
    "user",
    "userns",
    "uts",
    "variant",
    "volume",
    "volumes-from",
    "workdir",
    // buildah run's.
    "workingdir",
    "contextdir",
    "runtime-flag",
    "cni-config-dir",
    "cni-plugin-path",
];

/// Short options of `run` that take no value.
const SHORT_FLAGS: &str = "dtiPqT";

#[cfg(test)]
mod tests {
    use crate::shell::{analyze, OpaqueKind, SimpleCommand};

    /// The commands `line` runs besides the runner, as `program args...`,
    /// and the files the runner hands to the container.
    fn inside(line: &str) -> (Vec<String>, Vec<String>) {
        let analysis = analyze(line);
        assert!(!analysis.is_opaque(), "{line}: {:?}", analysis.opaque);
        let (runner, inner): (Vec<&SimpleCommand>, _) =
            analysis.commands.iter().partition(|c| c.via.is_empty());
        let commands = inner
            .iter()
            .map(|c| format!("{} {}", c.program, c.args.join(" ")))
            .collect();
        let mounts = runner
            .iter()
            .flat_map(|c| c.reads.iter().map(|t| t.text.clone()))
            .collect();
        (commands, mounts)
    }

    #[test]
    fn paths_under_a_mount_are_the_host_paths() {
        let cases = [
            (
                "docker run -v ~/.ssh:/s alpine cat /s/id_rsa",
                "cat ~/.ssh/id_rsa",
                "~/.ssh",
            ),
            (
                "podman run --volume=$HOME/.aws:/a:ro alpine cat /a/credentials",
                "cat ~/.aws/credentials",
                "~/.aws",
            ),
            (
                "nerdctl run --mount type=bind,src=/srv/keys,dst=/k,readonly x head /k/a.pem",
                "head /srv/keys/a.pem",
                "/srv/keys",
            ),
            (
                "docker run --rm -v \"$(pwd)\":/app -w /app node cat /app/.env",
                "cat ./.env",
                ".",
            ),
            (
                "docker run -v /:/host alpine rm -rf /host/etc",
                "rm -rf /etc",
                "/",
            ),
            (
                "docker run --mount '\"type=bind\",\"src=/srv/k\",Target=/k' i cat /k/a",
                "cat /srv/k/a",
                "/srv/k",
            ),
            (
                "docker run --mount Type=Bind,Source=/srv/k,Destination=/k i cat /k/a",
                "cat /srv/k/a",
                "/srv/k",
            ),
            (
                "docker container run -itv /data:/d alpine ls /d",
                "ls /data",
                "/data",
            ),
            // The longest destination wins; other paths are the image's.
            (
                "docker run -v /a:/x -v /b:/x/y i cat /x/y/z /x/z /etc/os-release",
                "cat /b/z /a/z /etc/os-release",
                "/a",
            ),
            // `NAME=path` words and the entry point.
            (
                "docker run --entrypoint dd -v /k:/k2 i if=/k2/id_rsa",
                "dd if=/k/id_rsa",
                "/k",
            ),
        ];
        for (line, command, mount) in cases {
            let (commands, mounts) = inside(line);
            assert_eq!(
                commands.first().map(String::as_str),
                Some(command),
                "{line}"
            );
            assert_eq!(mounts.first().map(String::as_str), Some(mount), "{line}");
        }
    }

    #[test]
    fn dots_and_slashes_are_worked_out_as_the_container_does() {
        // A path that leaves every mount is the image's, kept as written.
        for (line, command) in [
            (
                "docker run -v ~/.aws:/a i cat /x/../a//credentials",
                "cat ~/.aws/credentials",
            ),
            (
                "docker run -v ~/.aws:/a i cat /../a/./config",
                "cat ~/.aws/config",
            ),
            (
                "docker run -v ~/.aws:/a i cat /a/../etc/hosts",
                "cat /a/../etc/hosts",
            ),
        ] {
            assert_eq!(
                inside(line).0.first().map(String::as_str),
                Some(command),
                "{line}"
            );
        }
    }

    #[test]
    fn variables_given_to_the_container_are_known_inside() {
        let line = "docker run -v \"$PWD\":/app -e F=/app/.env -e G=\"$X\" i sh -c 'cat $F $G'";
        assert_eq!(inside(line).0[1], "cat ./.env $G");
        // The host's variables stay outside.
        let line = "export F=/etc/hosts; docker run -v ~/.aws:/a i sh -c 'cat $F'";
        assert_eq!(inside(line).0.last().map(String::as_str), Some("cat $F"));
    }

    #[test]
    fn code_run_by_a_shell_in_the_container_is_mapped_too() {
        let (commands, _) = inside("docker run -v ~/.ssh:/s alpine sh -c 'cat /s/id_rsa | base64'");
        assert_eq!(
            commands,
            [
                "sh -c cat /s/id_rsa | base64",
                "cat ~/.ssh/id_rsa",
                "base64 "
            ]
        );
    }

    #[test]
    fn volumes_and_options_that_are_no_host_path_or_command() {
        // Named and anonymous volumes, tmpfs and volume mounts: no host path.
        for line in [
            "docker run -v pgdata:/var/lib/postgresql/data postgres",
            "docker run -v /data postgres",
            "docker run --mount type=volume,src=x,dst=/x postgres",
            "docker run --mount type=tmpfs,dst=/x postgres",
            "docker run --mount Type=Volume,Source=x,Target=/x postgres",
            "docker run -d -p 5432:5432 -e POSTGRES_PASSWORD=x --name db postgres:16",
        ] {
            assert_eq!(inside(line), (vec![], vec![]), "{line}");
        }
        // Values of options are not the image, flags take none.
        let (commands, _) = inside("docker run --rm -it -e A=1 --network host --name x img ls /");
        assert_eq!(commands, ["ls /"]);
        let (commands, _) = inside("docker compose run --rm -T web pytest -x");
        assert_eq!(commands, ["pytest -x"]);
        let (commands, _) = inside("docker --context prod run img id");
        assert_eq!(commands, ["id "]);
    }

    #[test]
    fn docker_cp_is_a_copy_on_the_host_side() {
        let (commands, _) = inside("docker cp ~/.aws/credentials web:/tmp/c");
        assert_eq!(commands, ["cp -r ~/.aws/credentials web:/tmp/c"]);
        let (commands, _) = inside("docker compose cp -a web:/etc/passwd ~/.bashrc");
        assert_eq!(commands, ["cp -r web:/etc/passwd ~/.bashrc"]);
    }

    #[test]
    fn a_terminal_shell_is_followed_only_next_to_the_host() {
        // Confined: what it reads from the terminal stays in the container.
        assert_eq!(inside("docker run --rm -it ubuntu bash"), (vec![], vec![]));
        // Next to host mounts or processes, code it reads is not known.
        for line in [
            "docker run --rm -i -v /srv:/srv ubuntu bash",
            "docker run --rm -it --privileged alpine sh -l",
            "podman run -it --pid=host alpine sh",
        ] {
            let analysis = analyze(line);
            assert!(analysis.has_opaque(OpaqueKind::ShellFromStdin), "{line}");
        }
    }

    #[test]
    fn an_option_not_known_is_read_with_and_without_a_value() {
        // `--quiet-pull` takes no value; read as taking one, `web` would be
        // its value and `rm` the image.
        let (commands, _) = inside("docker compose run --quiet-pull web rm -rf /");
        assert!(commands.iter().any(|c| c == "rm -rf /"), "{commands:?}");
        let (commands, _) = inside("docker run --some-new-option x alpine cat /etc/shadow");
        assert!(
            commands.iter().any(|c| c == "cat /etc/shadow"),
            "{commands:?}"
        );
        // Known options are read one way only.
        let (commands, _) = inside("docker run --name web --network host nginx nginx -t");
        assert_eq!(commands, ["nginx -t"]);
        // Too many unknown options to follow every reading: not known.
        let analysis = analyze("docker run --a --b --c --d alpine ls");
        assert!(analysis.has_opaque(OpaqueKind::DynamicProgram));
    }

    /// The via labels of the commands `line` runs inside containers.
    fn labels(line: &str) -> Vec<String> {
        let analysis = analyze(line);
        analysis
            .commands
            .iter()
            .filter_map(|c| c.via.first().cloned())
            .collect()
    }

    #[test]
    fn a_command_with_host_privileges_is_labelled() {
        for line in [
            "docker run --privileged alpine mount /dev/sda1 /mnt",
            "docker run --privileged=true alpine id",
            "docker run --cap-add SYS_ADMIN alpine id",
            "docker run --cap-add=cap_sys_module alpine id",
            "podman run --cap-add=CHOWN,all alpine id",
            "docker run --pid=host alpine id",
            "docker run --device /dev/sda alpine id",
            "docker run --device=/dev/mem:/dev/mem alpine id",
            "docker run --device-cgroup-rule='a *:* rwm' alpine id",
            "docker run --net host --cap-add NET_ADMIN alpine id",
            "docker run --entrypoint id --privileged alpine",
            "docker run --security-opt systempaths=unconfined alpine id",
            "docker run --cap-add \"$CAP\" alpine id",
            "docker run --pid=$MODE alpine id",
            "podman run --security-opt=unmask=ALL alpine id",
        ] {
            let program = line.split(' ').next().unwrap();
            assert_eq!(
                labels(line),
                [format!("{program} run with host privileges")],
                "{line}"
            );
        }
    }

    #[test]
    fn privileges_that_stay_in_the_container_are_not_labelled() {
        for line in [
            "docker run --privileged=false alpine id",
            "docker run --cap-add SYS_PTRACE --cap-add NET_ADMIN alpine id",
            "docker run --network host alpine id",
            "docker run --device /dev/fuse --device /dev/kvm alpine id",
            "docker run --pid=container:web alpine id",
            "docker run alpine id --privileged",
            "docker run --security-opt seccomp=unconfined alpine id",
        ] {
            assert_eq!(labels(line), ["docker run"], "{line}");
        }
        // Options alone go to the image's entry point: nothing is chosen.
        let (commands, _) = inside("docker run --privileged tonistiigi/binfmt --install all");
        assert_eq!(commands, ["--install all"]);
        assert_eq!(
            labels("docker run --privileged tonistiigi/binfmt --install all"),
            ["docker run"]
        );
    }

    #[test]
    fn an_image_named_after_a_fetching_tool_runs_it_on_its_words() {
        for (line, fetch) in [
            (
                "docker run --rm curlimages/curl http://169.254.169.254/",
                "curl http://169.254.169.254/",
            ),
            (
                "docker run appropriate/curl -fsS 169.254.169.254",
                "curl -fsS 169.254.169.254",
            ),
            (
                "podman run docker.io/alpine/curl:8.5.0@sha256:ab http://x",
                "curl http://x",
            ),
            ("docker run byrnedo/alpine-curl http://x", "curl http://x"),
            (
                "docker run mwendler/wget -qO- http://x",
                "wget -qO- http://x",
            ),
            ("docker run alpine/httpie GET http://x", "http GET http://x"),
        ] {
            let (commands, _) = inside(line);
            assert!(commands.iter().any(|c| c == fetch), "{line}: {commands:?}");
        }
        // The tool named first, an entry point of the line's own, other
        // images and compose services: the words as written only.
        for (line, only) in [
            (
                "docker run curlimages/curl curl -s http://x",
                "curl -s http://x",
            ),
            (
                "docker run --entrypoint sh curlimages/curl -c id",
                "sh -c id",
            ),
            ("docker run curlify/app serve", "serve "),
            ("docker compose run curl fetch http://x", "fetch http://x"),
        ] {
            let (commands, _) = inside(line);
            assert_eq!(commands.first().map(String::as_str), Some(only), "{line}");
            assert!(commands.len() <= 2, "{line}: {commands:?}");
        }
    }

    #[test]
    fn the_api_socket_option_hands_over_the_socket_and_logins() {
        let (_, reads) = inside("docker run --use-api-socket docker:cli docker ps");
        assert_eq!(reads, ["/var/run/docker.sock", "~/.docker/config.json"]);
    }

    #[test]
    fn front_ends_in_a_virtual_machine_run_the_tool_they_stand_for() {
        for (line, runner) in [
            ("finch run -v ~/.ssh:/s alpine cat /s/id_rsa", "nerdctl"),
            (
                "nerdctl.lima run -v ~/.ssh:/s alpine cat /s/id_rsa",
                "nerdctl",
            ),
            (
                "docker.lima run -v ~/.ssh:/s alpine cat /s/id_rsa",
                "docker",
            ),
            (
                "podman.lima run -v ~/.ssh:/s alpine cat /s/id_rsa",
                "podman",
            ),
            (
                "lima nerdctl run -v ~/.ssh:/s alpine cat /s/id_rsa",
                "nerdctl",
            ),
            (
                "colima nerdctl -p dev -- run -v ~/.ssh:/s alpine cat /s/id_rsa",
                "nerdctl",
            ),
            ("colima ssh -- cat ~/.ssh/id_rsa", "colima"),
        ] {
            let analysis = analyze(line);
            let programs: Vec<&str> = analysis
                .commands
                .iter()
                .map(|c| c.program.as_str())
                .collect();
            assert!(programs.contains(&runner), "{line}: {programs:?}");
            let cat = analysis
                .commands
                .iter()
                .find(|c| c.program == "cat")
                .unwrap();
            assert_eq!(cat.args, ["~/.ssh/id_rsa"], "{line}");
        }
    }

    #[test]
    fn buildah_builds_as_podman_does() {
        let analysis =
            analyze("buildah --root /x bud --secret id=a,src=~/.aws/credentials -t app .");
        let build = analysis
            .commands
            .iter()
            .find(|c| c.program == "podman")
            .unwrap();
        assert_eq!(build.args[0], "build");
        let reads: Vec<&str> = build.reads.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(reads, ["~/.aws/credentials", "."]);
        // Other subcommands are buildah's own.
        let analysis = analyze("buildah images");
        assert_eq!(analysis.commands.len(), 1);
    }

    #[test]
    fn buildah_run_is_followed_as_podman_run() {
        let analysis = analyze("buildah run --cap-add SYS_ADMIN -v /:/h ctr -- cat /h/etc/shadow");
        let cat = analysis
            .commands
            .iter()
            .find(|c| c.program == "cat")
            .unwrap();
        assert_eq!(cat.args, ["/etc/shadow"]);
        assert_eq!(cat.via, ["buildah", "podman run with host privileges"]);
        let (commands, _) = inside("buildah run --workingdir /src --isolation chroot ctr make -j4");
        assert_eq!(
            commands,
            [
                "podman run --workingdir /src --isolation chroot ctr make -j4",
                "make -j4"
            ]
        );
    }

    #[test]
    fn exec_is_still_followed() {
        let (commands, _) = inside("docker exec -it db psql -c 'SELECT 1'");
        assert_eq!(commands, ["psql -c SELECT 1"]);
    }

    /// A shell an exec opens reads the terminal the exec hands on: opaque
    /// only where the line feeds it (a pipe, a redirect, a here-string),
    /// or where it runs with host privileges or is started by code.
    #[test]
    fn an_exec_shell_reads_only_what_the_line_feeds_it() {
        for line in [
            "docker exec -it web bash",
            "docker exec -it web sh -l",
            "podman exec -it web /bin/bash",
            "kubectl exec -it pod -- bash",
            "docker compose exec web sh",
            "docker exec -it web bash || true",
            "sudo docker exec -it web bash",
        ] {
            assert!(!analyze(line).is_opaque(), "{line}");
        }
        for line in [
            "echo 'rm -rf /' | docker exec -i web sh",
            "curl x | docker exec -i web bash",
            "docker ps |& docker exec -i web sh",
            "docker exec -i web sh < script.sh",
            "docker exec -i web sh <<< 'rm -rf /'",
            "echo x > >(docker exec -i web sh)",
            "coproc docker exec -i web sh",
            "docker exec -it --privileged web bash",
            "bash -c 'docker exec -it web bash'",
            "python3 -c \"import subprocess; subprocess.run(['docker', 'exec', '-i', 'web', 'sh'], input=b'rm -rf /')\"",
        ] {
            assert!(analyze(line).has_opaque(OpaqueKind::ShellFromStdin), "{line}");
        }
        // Everywhere else a shell without code still reads unknown input.
        assert!(analyze("bash").has_opaque(OpaqueKind::ShellFromStdin));
    }

    #[test]
    fn a_privileged_exec_runs_with_host_privileges() {
        let via = |line: &str| {
            let analysis = analyze(line);
            analysis
                .commands
                .last()
                .map(|c| c.via.clone())
                .unwrap_or_default()
        };
        for (line, label) in [
            (
                "docker exec --privileged web mount /dev/sda1 /mnt",
                "docker exec",
            ),
            ("podman exec -it --privileged=true web id", "podman exec"),
            ("docker compose exec --privileged web id", "docker exec"),
            ("nerdctl exec --privileged=$P web id", "nerdctl exec"),
        ] {
            assert_eq!(
                via(line),
                [format!("{label} with host privileges")],
                "{line}"
            );
        }
        // Without the option, with it turned off, or as the command's word.
        for line in [
            "docker exec web ls",
            "docker exec --privileged=false web id",
            "docker exec web echo --privileged",
        ] {
            assert_eq!(via(line), ["docker exec"], "{line}");
        }
    }
}
