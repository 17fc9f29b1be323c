//! Seeing through wrappers: programs that run another program unchanged.
//!
//! `sudo -u root env FOO=1 nice -n 5 rm -rf /` runs `rm -rf /`; a policy
//! about `rm` must see it. Each wrapper's own options are skipped (including
//! the ones that take a value, so `sudo -u rm ls` runs `ls`, not `rm`), its
//! `NAME=value` words are kept as assignments, and the wrapper name is
//! recorded. Stripping stops at the first word that is not known statically
//! (the program is then dynamic) or when a wrapper is used in a form that
//! runs nothing (`command -v rm`, `sudo -l`, a bare `env`); that wrapper is
//! then the program.

use super::split::env_split_string;
use super::words::Word;

/// How one wrapper's command line is laid out.
struct Spec {
    names: &'static [&'static str],
    /// Short options whose value is attached or the next word.
    short_value: &'static str,
    /// Short options whose value can only be attached (`-m/path`).
    short_attached_value: &'static str,
    /// Long options that take the next word as value when written without `=`.
    long_value: &'static [&'static str],
    /// Long options known to stand alone. Any other long option written
    /// without `=` may take the next word (an abbreviation such as `--us`
    /// for `--user`, or an option missing from `long_value`), so the
    /// command is also read with that word as its value.
    long_flag: &'static [&'static str],
    /// Long options take values only as `--name=value` (firejail, valgrind),
    /// so none takes the next word.
    long_values_attached: bool,
    /// Short options meaning the wrapper runs no command (`command -v`).
    no_command_short: &'static str,
    /// Long options meaning the wrapper runs no command.
    no_command_long: &'static [&'static str],
    /// Short options that, without a command, start an interactive shell.
    shell_short: &'static str,
    /// Operands before the command (`timeout DURATION`, `chroot DIR`).
    operands: usize,
    /// Accepts `NAME=value` words before the command.
    assignments: bool,
    /// `nice -10`: a digit starts a numeric value for the cluster.
    numeric_option: bool,
    /// Without a command, starts an interactive shell (`chroot DIR`).
    bare_runs_shell: bool,
    /// Only a wrapper when one of these short options is given (`runuser -u`).
    required_short: &'static str,
    /// Long spellings of `required_short`.
    required_long: &'static [&'static str],
    /// Only a wrapper after one of these subcommands (`aws-vault exec`,
    /// `op run`); its own options may come before and after it, and
    /// between its operands (`aws-vault exec PROFILE --no-session -- cmd`).
    subcommands: &'static [&'static str],
    /// The command is the words after one of these (`nix shell PKG...
    /// --command cmd`, `chamber exec SVC... -- cmd`); other operands are
    /// the wrapper's own.
    command_after: &'static [&'static str],
    /// The subcommand may be left out (`dotenv -- cmd`, `dotenv run cmd`).
    subcommand_optional: bool,
}

const BASE: Spec = Spec {
    names: &[],
    short_value: "",
    short_attached_value: "",
    long_value: &[],
    long_flag: &[],
    long_values_attached: false,
    no_command_short: "",
    no_command_long: &["help", "version"],
    shell_short: "",
    operands: 0,
    assignments: false,
    numeric_option: false,
    bare_runs_shell: false,
    required_short: "",
    required_long: &[],
    subcommands: &[],
    command_after: &[],
    subcommand_optional: false,
};

const SPECS: &[Spec] = &[
    Spec {
        names: &["sudo"],
        short_value: "CDgpRrtTUuc",
        short_attached_value: "h",
        long_value: &[
            "chdir",
            "close-from",
            "group",
            "host",
            "prompt",
            "chroot",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "user",
            "login-class",
        ],
        long_flag: &[
            "askpass",
            "background",
            "bell",
            "preserve-env",
            "preserve-groups",
            "login",
            "non-interactive",
            "reset-timestamp",
            "shell",
            "set-home",
            "stdin",
        ],
        no_command_short: "elKvV",
        no_command_long: &[
            "edit",
            "list",
            "remove-timestamp",
            "validate",
            "help",
            "version",
        ],
        shell_short: "is",
        assignments: true,
        ..BASE
    },
    Spec {
        // `runuser -u USER cmd` runs cmd; `runuser USER -c code` is su-like
        // and left to the launchers.
        names: &["runuser"],
        short_value: "ugGsw",
        long_value: &[
            "user",
            "group",
            "supp-group",
            "shell",
            "whitelist-environment",
        ],
        no_command_short: "c",
        no_command_long: &["command", "session-command", "help", "version"],
        required_short: "u",
        required_long: &["user"],
        ..BASE
    },
    Spec {
        names: &["doas"],
        short_value: "uC",
        no_command_short: "C",
        shell_short: "s",
        ..BASE
    },
    Spec {
        names: &["env"],
        short_value: "uCSaP",
        long_value: &["unset", "chdir", "split-string", "argv0"],
        long_flag: &[
            "ignore-environment",
            "null",
            "debug",
            "default-signal",
            "ignore-signal",
            "block-signal",
            "list-signal-handling",
        ],
        assignments: true,
        ..BASE
    },
    Spec {
        names: &["nohup", "builtin", "unbuffer", "setsid"],
        ..BASE
    },
    // The shell keywords `coproc` and `time` come before a whole simple
    // command, assignments included (`time A=1 rm -rf ~` runs rm; the
    // grammar reads both keywords as programs). `/usr/bin/time A=1 rm`
    // would run a program named `A=1`; reading it as rm only reports more.
    Spec {
        names: &["coproc"],
        assignments: true,
        ..BASE
    },
    Spec {
        names: &["time"],
        short_value: "fo",
        long_value: &["format", "output"],
        assignments: true,
        ..BASE
    },
    Spec {
        names: &["nice"],
        short_value: "n",
        long_value: &["adjustment"],
        numeric_option: true,
        ..BASE
    },
    Spec {
        names: &["ionice"],
        short_value: "cnpPu",
        long_value: &["class", "classdata", "pid", "pgid", "uid"],
        no_command_short: "pPu",
        no_command_long: &["pid", "pgid", "uid", "help", "version"],
        ..BASE
    },
    Spec {
        // libcgroup's `cgexec [-g CONTROLLERS:PATH] [--sticky] cmd`.
        names: &["cgexec"],
        short_value: "g",
        long_flag: &["sticky"],
        ..BASE
    },
    Spec {
        names: &["timeout"],
        short_value: "sk",
        long_value: &["signal", "kill-after"],
        long_flag: &["foreground", "preserve-status", "verbose"],
        operands: 1,
        ..BASE
    },
    Spec {
        names: &["command"],
        no_command_short: "vV",
        ..BASE
    },
    Spec {
        names: &["exec"],
        short_value: "a",
        ..BASE
    },
    Spec {
        names: &["stdbuf"],
        short_value: "ioe",
        long_value: &["input", "output", "error"],
        ..BASE
    },
    Spec {
        names: &["chroot"],
        long_value: &["userspec", "groups"],
        operands: 1,
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // Multi-call binaries: the first operand is the tool (uutils'
        // `coreutils rm -rf ~` as busybox's).
        names: &["busybox", "toybox", "coreutils"],
        no_command_long: &["list", "list-full", "help", "install"],
        ..BASE
    },
    Spec {
        names: &["caffeinate"],
        short_value: "tw",
        ..BASE
    },
    Spec {
        names: &["torsocks"],
        short_value: "uapP",
        long_value: &["user", "pass", "address", "port"],
        ..BASE
    },
    Spec {
        names: &["proxychains", "proxychains4"],
        short_value: "f",
        ..BASE
    },
    Spec {
        names: &["strace"],
        short_value: "abeEIoOpPsSUuX",
        long_value: &[
            "output",
            "attach",
            "trace-path",
            "string-limit",
            "user",
            "env",
            "signal",
        ],
        ..BASE
    },
    Spec {
        names: &["ltrace"],
        short_value: "aADeFlnopsuwx",
        long_value: &["output", "library", "indent", "align"],
        ..BASE
    },
    Spec {
        names: &["nsenter"],
        short_value: "tSGN",
        long_flag: &[
            "all",
            "mount",
            "uts",
            "ipc",
            "net",
            "pid",
            "cgroup",
            "user",
            "time",
            "preserve-credentials",
            "no-fork",
            "follow-context",
        ],
        short_attached_value: "muinpUCTrw",
        long_value: &["target", "setuid", "setgid", "net-namespace"],
        ..BASE
    },
    Spec {
        names: &["unshare"],
        short_value: "RwSG",
        long_flag: &[
            "user",
            "mount",
            "uts",
            "ipc",
            "net",
            "pid",
            "cgroup",
            "time",
            "fork",
            "mount-proc",
            "map-root-user",
            "map-current-user",
            "kill-child",
            "keep-caps",
        ],
        short_attached_value: "muinpUCT",
        long_value: &[
            "root",
            "wd",
            "setuid",
            "setgid",
            "propagation",
            "setgroups",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
        ],
        bare_runs_shell: true,
        ..BASE
    },
    // Privilege, scheduling, resource and sandbox launchers: each runs the
    // command after it unchanged, so `pkexec rm -rf /` is `rm -rf /`.
    Spec {
        // Without a program pkexec starts a root shell.
        names: &["pkexec"],
        long_value: &["user"],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // systemd's sudo; without a command it starts a root shell.
        names: &["run0"],
        short_value: "ugD",
        long_value: &[
            "user",
            "group",
            "nice",
            "chdir",
            "setenv",
            "unit",
            "property",
            "description",
            "slice",
            "background",
            "machine",
        ],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        names: &["systemd-run"],
        short_value: "upEMH",
        long_flag: &[
            "user",
            "system",
            "scope",
            "same-dir",
            "wait",
            "pipe",
            "pty",
            "quiet",
            "collect",
            "no-block",
            "remain-after-exit",
            "send-sighup",
            "shell",
            "no-ask-password",
        ],
        long_value: &[
            "unit",
            "property",
            "setenv",
            "machine",
            "host",
            "description",
            "slice",
            "uid",
            "gid",
            "nice",
            "working-directory",
            "service-type",
            "path-property",
            "socket-property",
            "timer-property",
            "on-active",
            "on-boot",
            "on-startup",
            "on-unit-active",
            "on-unit-inactive",
            "on-calendar",
        ],
        ..BASE
    },
    Spec {
        // `taskset [-c] MASK cmd`; `-p` works on a running process instead.
        names: &["taskset"],
        long_flag: &["all-tasks", "cpu-list"],
        no_command_short: "p",
        no_command_long: &["pid", "help", "version"],
        operands: 1,
        ..BASE
    },
    Spec {
        // `chrt [policy] PRIORITY cmd`; `-p` and `-m` run nothing.
        names: &["chrt"],
        short_value: "TPD",
        long_value: &["sched-runtime", "sched-period", "sched-deadline"],
        no_command_short: "pm",
        no_command_long: &["pid", "max", "help", "version"],
        operands: 1,
        ..BASE
    },
    Spec {
        // Resource limits take an optional value, attached (`-n1024`,
        // `--nofile=1024`); `-p PID` changes a running process.
        names: &["prlimit"],
        short_value: "o",
        short_attached_value: "cdefilmnqrstuvxy",
        long_value: &["output"],
        no_command_short: "p",
        no_command_long: &["pid", "help", "version"],
        ..BASE
    },
    Spec {
        names: &["numactl"],
        short_value: "ipmNCPw",
        long_value: &[
            "interleave",
            "preferred",
            "preferred-many",
            "weighted-interleave",
            "membind",
            "cpunodebind",
            "physcpubind",
        ],
        no_command_short: "Hs",
        no_command_long: &["hardware", "show", "help", "version"],
        ..BASE
    },
    Spec {
        // Without a command fakeroot starts a shell.
        names: &["fakeroot"],
        short_value: "lisb",
        long_value: &["lib", "faked", "fd-base"],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // Options are written `--name=value`; without a program firejail
        // starts the user's shell in the sandbox.
        names: &["firejail"],
        long_values_attached: true,
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // `dbus-launch [--options] PROGRAM`, `chronic [-ev] cmd` (moreutils),
        // `unbuffer [-p] cmd` (expect), `valgrind [--opt=value] cmd`.
        names: &["dbus-launch", "chronic", "unbuffer", "valgrind"],
        long_values_attached: true,
        ..BASE
    },
    Spec {
        names: &["eatmydata", "nocache", "catchsegv", "dbus-run-session"],
        long_value: &["config-file", "dbus-daemon"],
        ..BASE
    },
    Spec {
        names: &["xvfb-run"],
        short_value: "nsefwp",
        long_flag: &["auto-servernum", "auto-display", "listen-tcp"],
        long_value: &[
            "server-num",
            "server-args",
            "error-file",
            "auth-file",
            "wait",
            "xauth-protocol",
        ],
        ..BASE
    },
    Spec {
        // `faketime [-f] TIMESTAMP cmd`
        names: &["faketime"],
        short_value: "mp",
        operands: 1,
        ..BASE
    },
    Spec {
        // `cpulimit -l N [--] cmd`; `-p PID` and `-e EXE` limit a running
        // process instead.
        names: &["cpulimit"],
        short_value: "lpec",
        long_value: &["limit", "pid", "exe", "cpu"],
        no_command_short: "pe",
        no_command_long: &["pid", "exe", "help", "version"],
        ..BASE
    },
    Spec {
        // `rlwrap [options] cmd`: readline around an interactive command.
        names: &["rlwrap"],
        short_value: "bCDefgHlMOPqsStwz",
        short_attached_value: "amp",
        long_values_attached: true,
        ..BASE
    },
    Spec {
        // `sshpass -p PASS ssh host ...`
        names: &["sshpass"],
        short_value: "fdpP",
        ..BASE
    },
    Spec {
        // Tool options are `--name=value`.
        names: &["valgrind"],
        long_values_attached: true,
        ..BASE
    },
    // Launchers that run a command with credentials, secrets or a tool
    // environment loaded: `aws-vault exec prof -- rm -rf ~` is `rm -rf ~`.
    // Long options missing from the lists are read both ways (see
    // `Stripped::alternatives`).
    // Lima runs the command in its virtual machine, where the user's home
    // directory is mounted at the same path: `lima cmd` in the default
    // instance, `limactl shell INSTANCE cmd` in a named one.
    Spec {
        names: &["lima"],
        long_value: &["workdir", "shell", "log-level"],
        long_flag: &["preserve-env", "reconnect", "start", "debug", "tty"],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        names: &["limactl"],
        subcommands: &["shell"],
        operands: 1,
        long_value: &["workdir", "shell", "log-level"],
        long_flag: &["preserve-env", "reconnect", "start", "debug", "tty"],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // `aws-vault exec PROFILE [--] cmd`; `aws-okta exec PROFILE -- cmd`.
        names: &["aws-vault", "aws-okta"],
        subcommands: &["exec"],
        operands: 1,
        short_value: "dtar",
        long_value: &[
            "duration",
            "mfa-token",
            "region",
            "backend",
            "prompt",
            "keychain",
            "assume-role-ttl",
            "session-ttl",
            "mfa-duo-device",
            "mfa-provider",
            "mfa-factor-type",
        ],
        long_flag: &[
            "no-session",
            "json",
            "server",
            "ec2-server",
            "ecs-server",
            "lazy",
            "stdout",
            "debug",
        ],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // `aws-sso exec -A ACCOUNT -R ROLE [--] cmd`, `saml2aws exec -- cmd`,
        // `berglas exec -- cmd`, `teller run -- cmd`, `infisical run -- cmd`.
        names: &["aws-sso", "saml2aws", "berglas"],
        subcommands: &["exec"],
        short_value: "aARpSLbc",
        long_value: &[
            "arn",
            "account",
            "role",
            "profile",
            "sso",
            "level",
            "config",
            "browser",
            "exec-profile",
            "idp-account",
            "region",
        ],
        long_flag: &["no-region", "lines", "debug", "skip-prompt"],
        bare_runs_shell: true,
        ..BASE
    },
    Spec {
        // 1Password's `op run [--env-file F] -- cmd`, `doppler run -- cmd`,
        // `infisical run -- cmd`, `dotenvx run -- cmd`, `teller run -- cmd`,
        // `volta run cmd`, `foreman run cmd`, `honcho run cmd`,
        // `devbox run cmd`, `pixi run cmd`, `pixi exec cmd`.
        names: &[
            "op",
            "doppler",
            "infisical",
            "dotenvx",
            "teller",
            "volta",
            "foreman",
            "honcho",
            "devbox",
            "pixi",
        ],
        subcommands: &["run", "exec"],
        short_value: "pcfe",
        long_value: &[
            "env-file",
            "account",
            "config",
            "session",
            "project",
            "token",
            "name-transformer",
            "mount",
            "mount-format",
            "mount-template",
            "fallback",
            "scope",
            "env",
            "path",
            "projectId",
            "node",
            "npm",
            "pnpm",
            "yarn",
            "manifest-path",
            "environment",
            "spec",
        ],
        long_flag: &[
            "no-masking",
            "debug",
            "preserve-env",
            "no-cache",
            "silent",
            "watch",
            "overload",
            "quiet",
            "locked",
            "frozen",
        ],
        ..BASE
    },
    Spec {
        // `direnv exec DIR cmd`, `nvm exec VERSION cmd`.
        names: &["direnv", "nvm"],
        subcommands: &["exec"],
        operands: 1,
        long_flag: &["silent"],
        ..BASE
    },
    Spec {
        // Version managers' `exec`: `asdf exec cmd`, `rbenv exec cmd`,
        // `fnm exec --using=18 cmd`.
        names: &[
            "asdf", "rbenv", "pyenv", "nodenv", "goenv", "jenv", "plenv", "phpenv", "fnm", "rtx",
        ],
        subcommands: &["exec"],
        long_value: &["using"],
        ..BASE
    },
    Spec {
        // `mise exec TOOL@VERSION... -- cmd`, `chamber exec SERVICE... -- cmd`.
        names: &["mise", "chamber"],
        subcommands: &["exec", "x"],
        short_value: "Cj",
        long_value: &["cd", "jobs"],
        command_after: &["--"],
        ..BASE
    },
    Spec {
        // `nix shell INSTALLABLE... --command cmd`, `nix develop -c cmd`.
        names: &["nix"],
        subcommands: &["shell", "develop"],
        short_value: "fIo",
        long_value: &[
            "file",
            "expr",
            "include",
            "profile",
            "arg",
            "argstr",
            "override-input",
            "option",
            "extra-experimental-features",
            "experimental-features",
            "keep",
            "unset",
            "phase",
            "redirect",
        ],
        command_after: &["-c", "--command"],
        ..BASE
    },
    Spec {
        // `dotenv [-e FILE] [-v K=V] -- cmd` (dotenv-cli) and `dotenv [-f
        // FILE] run cmd` (python-dotenv); `env-cmd -f FILE cmd`;
        // `envchain NAMESPACE cmd`; `envdir DIR cmd` (daemontools).
        names: &["dotenv", "env-cmd"],
        subcommands: &["run"],
        subcommand_optional: true,
        short_value: "evpfr",
        long_value: &["file", "environments", "rc-file"],
        long_flag: &[
            "debug",
            "quiet",
            "override",
            "silent",
            "no-override",
            "use-shell",
            "expand-envs",
            "verbose",
        ],
        ..BASE
    },
    Spec {
        names: &["envchain", "envdir", "s6-envdir"],
        no_command_long: &["set", "list", "unset", "help", "version"],
        operands: 1,
        ..BASE
    },
    Spec {
        // `cross-env A=1 cmd`.
        names: &["cross-env"],
        assignments: true,
        ..BASE
    },
];

/// A command with its wrappers removed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stripped {
    /// Wrapper names, outermost first.
    pub wrappers: Vec<String>,
    /// The command that runs: program first.
    pub words: Vec<Word>,
    /// `NAME=value` given through `env`/`sudo`.
    pub assignments: Vec<(String, Word)>,
    /// Set when the innermost wrapper starts an interactive shell (`sudo -i`).
    pub interactive_shell: Option<String>,
    /// A wrapper runs the command in another directory (`sudo -i`, `sudo
    /// -D DIR`, `env -C DIR`, `su -`-like logins, `chroot`, `systemd-run`).
    /// sudo, doas and env keep the directory otherwise.
    pub moves_cwd: bool,
    /// The whole command read again with a long option we cannot place
    /// taking the next word as its value (`sudo --us root rm` may be `sudo
    /// --user root rm`), written `--us=root`; with the index after it, from
    /// which that reading may offer its own alternatives.
    pub alternatives: Vec<(Vec<Word>, usize)>,
}

/// `words` with the option at `at` given the next word as `--option=value`.
fn with_value(words: &[Word], at: usize) -> Vec<Word> {
    let mut read = words.to_vec();
    if at + 1 < read.len() {
        let value = read.remove(at + 1);
        read[at] = Word::literal(format!("{}={}", read[at].text, value.text));
    }
    read
}

/// The last path component: what `$PATH` lookup and `argv[0]` policies care about.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').find(|c| !c.is_empty()).unwrap_or(path)
}

/// The name rules know a program by: its last path component in lower case
/// (macOS and Windows file systems ignore case: `GIT` and `/usr/bin/Git`
/// run git there), without a `.exe` suffix (Git Bash on Windows runs
/// `rm.exe -rf ~` and `git.exe reset --hard` as `rm` and `git`), and after
/// the last `\` as well as `/` (a quoted `"C:\Program Files\Git\bin\git.exe"`
/// keeps its backslashes, and Git Bash runs it).
pub fn program_name(path: &str) -> String {
    // Most programs are written as a bare lowercase name: that is already
    // the name, without the two reverse splits below (a warm decision asks
    // a handful of times per command).
    let plain = !path
        .bytes()
        .any(|b| b == b'/' || b == b'\\' || b.is_ascii_uppercase());
    if plain && !path.ends_with(".exe") {
        return path.to_string();
    }
    let last = basename(path);
    let last = last.rsplit('\\').find(|c| !c.is_empty()).unwrap_or(last);
    let mut name = last.to_ascii_lowercase();
    if name.len() > ".exe".len() && name.ends_with(".exe") {
        name.truncate(name.len() - ".exe".len());
    }
    name
}

/// Remove wrappers from the front of `words`.
#[cfg(test)]
pub fn strip(words: Vec<Word>) -> Stripped {
    strip_reading(words, 0)
}

/// [`strip`], offering other readings (see [`Stripped::alternatives`])
/// only for options at index `from` or later: the earlier ones were read
/// both ways already.
pub fn strip_reading(mut words: Vec<Word>, mut from: usize) -> Stripped {
    // The wrapper words removed so far: with `words` they make the whole
    // command again, for the alternative readings. Moved, not copied, so a
    // command without wrappers costs nothing.
    let mut removed: Vec<Word> = Vec::new();
    let mut out = Stripped::default();
    // Each round removes at least the wrapper's own name, so this terminates;
    // the bound only guards against a mistake in that reasoning.
    for _ in 0..=words.len() * 2 + 8 {
        let Some(spec) = words
            .first()
            .and_then(Word::static_text)
            .and_then(|p| spec_for(&program_name(p)))
        else {
            break;
        };
        let name = program_name(&words[0].text);
        match skip_options(spec, &name, &words) {
            Skip::Command {
                start,
                assignments,
                moves,
                unsure,
            } => {
                for at in unsure.into_iter().map(|at| removed.len() + at) {
                    if at >= from {
                        let whole = [removed.as_slice(), words.as_slice()].concat();
                        out.alternatives.push((with_value(&whole, at), at + 1));
                    }
                }
                out.moves_cwd |= moves;
                out.wrappers.push(name);
                out.assignments.extend(assignments);
                let rest = words.split_off(start);
                removed.append(&mut words);
                words = rest;
            }
            // Read again from the same wrapper with the split words in place;
            // later indices moved, so every option is offered again.
            Skip::Rewrite(new_words) => {
                words = new_words;
                from = 0;
            }
            Skip::NoCommand { shell } => {
                if shell {
                    out.interactive_shell = Some(name);
                }
                break;
            }
        }
    }
    dashed_git(&mut words);
    out.words = words;
    out
}

/// git runs `git reset` as the program `git-reset` in its exec path
/// (`/usr/lib/git-core/git-reset`), and `git-reset --hard` typed as a
/// program does the same: it is read as `git reset --hard`, so the git
/// rules apply. Third-party `git-lfs`, `git-crypt` are `git lfs`, `git crypt`.
fn dashed_git(words: &mut Vec<Word>) {
    let Some(first) = words.first().filter(|w| w.is_static()) else {
        return;
    };
    let name = program_name(&first.text);
    let Some(subcommand) = name.strip_prefix("git-") else {
        return;
    };
    if subcommand.is_empty()
        || !subcommand
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return;
    }
    let subcommand = Word::literal(subcommand);
    // `/usr/lib/git-core/git-reset` is run as `/usr/lib/git-core/git`.
    let dir_len = first.text.len() - basename(&first.text).len();
    let git = Word::literal(format!("{}git", &first.text[..dir_len]));
    words[0] = git;
    words.insert(1, subcommand);
}

impl Spec {
    /// The long option `written` names: itself, or the one known option it
    /// is a prefix of.
    fn resolve_long<'a>(&self, written: &'a str) -> Option<&'a str> {
        let known = self
            .long_value
            .iter()
            .chain(self.long_flag)
            .chain(self.no_command_long)
            .chain(self.required_long)
            .map(|o| -> &'a str { o });
        if known.clone().any(|o| o == written) {
            return Some(written);
        }
        let mut prefixed = known.filter(|o| !written.is_empty() && o.starts_with(written));
        let first = prefixed.next()?;
        prefixed.all(|o| o == first).then_some(first)
    }
}

fn spec_for(program: &str) -> Option<&'static Spec> {
    // Asked once per command of every line, and most programs are no
    // wrapper: a binary search over the names sorted when compiling, not a
    // walk over every spec (nor a sort in each one-call process).
    let at = BY_NAME.partition_point(|(name, _)| *name < program);
    match BY_NAME.get(at) {
        Some((name, spec)) if *name == program => Some(&SPECS[*spec]),
        _ => None,
    }
}

/// How many names the specs list, counting a name listed twice twice.
const NAME_COUNT: usize = {
    let (mut n, mut s) = (0, 0);
    while s < SPECS.len() {
        n += SPECS[s].names.len();
        s += 1;
    }
    n
};

/// Every name of [`SPECS`] with its spec's index, sorted by name. Equal
/// names stay in the specs' order, so the first of them, which
/// [`spec_for`] finds, is the spec a walk in order would find.
static BY_NAME: [(&str, usize); NAME_COUNT] = {
    let mut out = [("", 0); NAME_COUNT];
    let (mut len, mut s) = (0, 0);
    while s < SPECS.len() {
        let mut k = 0;
        while k < SPECS[s].names.len() {
            let name = SPECS[s].names[k];
            // Insertion sort, after the names equal to this one.
            let mut at = len;
            while at > 0 && compare(out[at - 1].0, name) > 0 {
                out[at] = out[at - 1];
                at -= 1;
            }
            out[at] = (name, s);
            len += 1;
            k += 1;
        }
        s += 1;
    }
    out
};

/// `a` against `b` byte by byte, as `str`'s order: -1, 0 or 1.
const fn compare(a: &str, b: &str) -> i32 {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return if a[i] < b[i] { -1 } else { 1 };
        }
        i += 1;
    }
    if a.len() < b.len() {
        -1
    } else if a.len() > b.len() {
        1
    } else {
        0
    }
}

enum Skip {
    /// The wrapped command starts at `start`; `moves` when it runs in
    /// another directory.
    Command {
        start: usize,
        assignments: Vec<(String, Word)>,
        moves: bool,
        /// Long options that may take the next word as their value.
        unsure: Vec<usize>,
    },
    /// `env -S` rewrote the words; the same wrapper must be read again.
    Rewrite(Vec<Word>),
    /// The wrapper runs no command; `shell` when it starts an interactive one.
    NoCommand { shell: bool },
}

fn skip_options(spec: &Spec, name: &str, words: &[Word]) -> Skip {
    let mut assignments = Vec::new();
    let mut shell_flag = false;
    // Wrappers that always run elsewhere: a new root, namespaces, or a
    // service manager that starts in `/` unless told `--same-dir`.
    let mut moves = matches!(name, "chroot" | "nsenter" | "unshare" | "systemd-run");
    let mut required_seen = spec.required_short.is_empty();
    let mut subcommand_seen = spec.subcommands.is_empty();
    // Launchers with a subcommand read options between their operands.
    let mut operands_left = spec.operands;
    let interspersed = !spec.subcommands.is_empty();
    let mut unsure = Vec::new();
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let Some(text) = word.static_text() else {
            break;
        };
        if subcommand_seen && spec.command_after.contains(&text) {
            return if i + 1 < words.len() {
                Skip::Command {
                    start: i + 1,
                    assignments,
                    moves,
                    unsure,
                }
            } else {
                Skip::NoCommand { shell: false }
            };
        }
        if text == "--" {
            subcommand_seen |= spec.subcommand_optional;
            i += 1;
            break;
        }
        if name == "env" && text == "-" {
            // `env -` is an old spelling of `env -i`.
            i += 1;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (written, has_value) = match long.split_once('=') {
                Some((option, value)) => (option, Some(value)),
                None => (long, None),
            };
            // getopt_long takes an unambiguous prefix for the option.
            let option = spec.resolve_long(written).unwrap_or(written);
            let known = spec.resolve_long(written).is_some();
            if !known && has_value.is_none() && !spec.long_values_attached && i + 1 < words.len() {
                unsure.push(i);
            }
            if spec.no_command_long.contains(&option) {
                return Skip::NoCommand { shell: false };
            }
            match (name, option) {
                ("sudo" | "env" | "run0", "chdir")
                | ("sudo" | "runuser", "login")
                | ("systemd-run", "working-directory") => moves = true,
                ("systemd-run", "same-dir") => moves = false,
                _ => {}
            }
            // `sudo --shell` and `--login` are `-s` and `-i`.
            if name == "sudo" && matches!(option, "shell" | "login") {
                shell_flag = true;
            }
            required_seen |= spec.required_long.contains(&option);
            if name == "env" && option == "split-string" {
                let value = has_value
                    .map(str::to_string)
                    .or_else(|| text_at(words, i + 1));
                let consumed = if has_value.is_some() { 1 } else { 2 };
                return env_split(words, i, consumed, value.unwrap_or_default());
            }
            let takes_next = has_value.is_none() && spec.long_value.contains(&option);
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            let mut consumed = 1;
            for (at, flag) in cluster.char_indices() {
                let rest = &cluster[at + flag.len_utf8()..];
                if spec.no_command_short.contains(flag) {
                    return Skip::NoCommand { shell: false };
                }
                if spec.shell_short.contains(flag) {
                    shell_flag = true;
                }
                match (name, flag) {
                    ("sudo", 'D' | 'i')
                    | ("env" | "doas", 'C')
                    | ("run0", 'D')
                    | ("runuser", 'l') => moves = true,
                    ("systemd-run", 'd') => moves = false,
                    _ => {}
                }
                required_seen |= spec.required_short.contains(flag);
                if spec.numeric_option && flag.is_ascii_digit() {
                    break;
                }
                if spec.short_value.contains(flag) {
                    if name == "env" && flag == 'S' {
                        let (value, used) = if rest.is_empty() {
                            (text_at(words, i + 1).unwrap_or_default(), 2)
                        } else {
                            (rest.to_string(), 1)
                        };
                        return env_split(words, i, used, value);
                    }
                    if rest.is_empty() {
                        consumed = 2;
                    }
                    break;
                }
                if spec.short_attached_value.contains(flag) {
                    break;
                }
            }
            i += consumed;
            continue;
        }
        if spec.assignments {
            if let Some((var, value)) = split_assignment(text) {
                assignments.push((var.to_string(), Word::literal(value)));
                i += 1;
                continue;
            }
        }
        if !subcommand_seen {
            subcommand_seen = spec.subcommands.contains(&text);
            if subcommand_seen {
                i += 1;
                continue;
            }
            if !spec.subcommand_optional {
                return Skip::NoCommand { shell: false };
            }
            subcommand_seen = true;
        }
        if !spec.command_after.is_empty() {
            // An operand of the launcher's own (`nix shell PKG`).
            i += 1;
            continue;
        }
        if interspersed && operands_left > 0 {
            operands_left -= 1;
            i += 1;
            continue;
        }
        break;
    }
    let start = i + if interspersed {
        operands_left
    } else {
        spec.operands
    };
    if !required_seen || !subcommand_seen || !spec.command_after.is_empty() {
        return Skip::NoCommand { shell: false };
    }
    if start >= words.len() {
        return Skip::NoCommand {
            shell: shell_flag || spec.bare_runs_shell,
        };
    }
    Skip::Command {
        start,
        assignments,
        moves,
        unsure,
    }
}

/// `env -S STRING rest...` is `env <words of STRING> rest...`.
fn env_split(words: &[Word], at: usize, consumed: usize, value: String) -> Skip {
    let mut rewritten: Vec<Word> = words[..at].to_vec();
    rewritten.extend(env_split_string(&value));
    rewritten.extend(words.iter().skip(at + consumed).cloned());
    Skip::Rewrite(rewritten)
}

fn text_at(words: &[Word], i: usize) -> Option<String> {
    words.get(i).map(|w| w.text.clone())
}

/// `NAME=value` with a valid variable name.
pub fn split_assignment(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split_whitespace().map(Word::literal).collect()
    }

    fn stripped(line: &str) -> (Vec<String>, Vec<String>) {
        let s = strip(words(line));
        (s.wrappers, s.words.into_iter().map(|w| w.text).collect())
    }

    #[test]
    fn nested_wrappers_are_removed_outermost_first() {
        let (wrappers, rest) = stripped("sudo env FOO=1 nice -n 5 rm -rf /");
        assert_eq!(wrappers, ["sudo", "env", "nice"]);
        assert_eq!(rest, ["rm", "-rf", "/"]);
    }

    #[test]
    fn option_values_are_not_mistaken_for_the_program() {
        assert_eq!(stripped("sudo -u rm ls").1, ["ls"]);
        assert_eq!(stripped("sudo -urm ls").1, ["ls"]);
        assert_eq!(stripped("sudo --user rm ls").1, ["ls"]);
        assert_eq!(stripped("sudo --user=rm ls").1, ["ls"]);
        assert_eq!(stripped("timeout -k 5 10 rm").1, ["rm"]);
        assert_eq!(stripped("nice -n 5 rm").1, ["rm"]);
        assert_eq!(stripped("nice -5 rm").1, ["rm"]);
        assert_eq!(stripped("exec -a name rm").1, ["rm"]);
        assert_eq!(stripped("stdbuf -o L rm").1, ["rm"]);
        assert_eq!(stripped("env -u HOME rm").1, ["rm"]);
        assert_eq!(stripped("chroot --userspec bob /mnt rm").1, ["rm"]);
    }

    #[test]
    fn assignments_given_to_env_and_sudo_are_kept() {
        let s = strip(words("sudo A=1 env -i B=2 rm"));
        let names: Vec<&str> = s.assignments.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(s.words[0].text, "rm");
    }

    #[test]
    fn forms_that_run_nothing_keep_the_wrapper_as_program() {
        for line in [
            "command -v rm",
            "command -V rm",
            "sudo -l rm",
            "env",
            "nice",
            "time",
            "sudo --version",
        ] {
            let (wrappers, rest) = stripped(line);
            assert!(wrappers.is_empty(), "{line}");
            assert_eq!(
                rest,
                words(line).into_iter().map(|w| w.text).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn interactive_shells_are_flagged() {
        assert_eq!(
            strip(words("sudo -i")).interactive_shell.as_deref(),
            Some("sudo")
        );
        assert_eq!(
            strip(words("chroot /mnt")).interactive_shell.as_deref(),
            Some("chroot")
        );
        assert_eq!(strip(words("sudo -i rm")).interactive_shell, None);
        for line in [
            "sudo --shell",
            "sudo --login",
            "sudo --she",
            "sudo -u root --login",
        ] {
            assert_eq!(
                strip(words(line)).interactive_shell.as_deref(),
                Some("sudo"),
                "{line}"
            );
        }
    }

    #[test]
    fn env_split_string_is_split_into_words() {
        let mut input = words("env -S");
        input.push(Word::literal("rm -rf"));
        input.push(Word::literal("/"));
        let s = strip(input);
        assert_eq!(s.wrappers, ["env"]);
        let rest: Vec<String> = s.words.into_iter().map(|w| w.text).collect();
        assert_eq!(rest, ["rm", "-rf", "/"]);
        // Attached value; the split words can be wrappers themselves.
        assert_eq!(
            stripped("env -Snice rm x"),
            (
                vec!["env".to_string(), "nice".to_string()],
                vec!["rm".to_string(), "x".to_string()]
            )
        );
    }

    #[test]
    fn privilege_scheduling_and_sandbox_launchers_are_wrappers() {
        for (line, wrapper) in [
            ("pkexec rm -rf /", "pkexec"),
            ("pkexec --user root rm -rf /", "pkexec"),
            ("run0 -u root rm -rf /", "run0"),
            (
                "systemd-run --user -p MemoryMax=1G --unit x rm -rf /",
                "systemd-run",
            ),
            ("taskset -c 0 rm -rf /", "taskset"),
            ("taskset 0x1 rm -rf /", "taskset"),
            ("chrt -f 1 rm -rf /", "chrt"),
            ("cgexec -g cpu,memory:x --sticky rm -rf /", "cgexec"),
            ("chrt --sched-runtime 5 -d 0 rm -rf /", "chrt"),
            ("prlimit --nofile=1024 -n512 rm -rf /", "prlimit"),
            ("numactl -N 0 --membind 0 rm -rf /", "numactl"),
            ("fakeroot -- rm -rf /", "fakeroot"),
            ("firejail --noprofile --net=none rm -rf /", "firejail"),
            ("eatmydata rm -rf /", "eatmydata"),
            ("xvfb-run -a -s x rm -rf /", "xvfb-run"),
            ("faketime 2020-01-01 rm -rf /", "faketime"),
            ("valgrind --leak-check=full rm -rf /", "valgrind"),
        ] {
            let (wrappers, rest) = stripped(line);
            assert_eq!(wrappers, [wrapper], "{line}");
            assert_eq!(rest.first().map(String::as_str), Some("rm"), "{line}");
        }
        // Forms that act on a running process or only report.
        for line in [
            "taskset -p 1234",
            "chrt -p 99 1234",
            "prlimit -p 1",
            "numactl -H",
        ] {
            assert!(stripped(line).0.is_empty(), "{line}");
        }
        // Bare root shells.
        for line in ["pkexec", "run0", "fakeroot"] {
            assert_eq!(
                strip(words(line)).interactive_shell.as_deref(),
                Some(line),
                "{line}"
            );
        }
    }

    #[test]
    fn runuser_is_a_wrapper_only_with_user_option() {
        assert_eq!(stripped("runuser -u bob -- rm").0, ["runuser"]);
        assert!(stripped("runuser bob -c ls").0.is_empty());
    }

    #[test]
    fn dynamic_words_stop_stripping() {
        let mut input = words("sudo");
        input.push(Word {
            text: "$CMD".into(),
            literal: false,
            pattern: false,
        });
        let s = strip(input);
        assert_eq!(s.wrappers, ["sudo"]);
        assert_eq!(s.words[0].text, "$CMD");
    }

    #[test]
    fn long_options_of_unknown_arity_offer_a_reading_with_a_value() {
        // A prefix of a known option is that option.
        let s = strip(words("sudo --us root rm -rf /"));
        assert_eq!(s.words[0].text, "rm");
        assert!(s.alternatives.is_empty());
        // An unknown one: read as a flag, and offered with the next word as
        // its value.
        let s = strip(words("sudo --frob root rm -rf /"));
        assert_eq!(s.words[0].text, "root");
        let texts: Vec<&str> = s.alternatives[0]
            .0
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        assert_eq!(texts, ["sudo", "--frob=root", "rm", "-rf", "/"]);
        assert_eq!(
            strip_reading(s.alternatives[0].0.clone(), 2).words[0].text,
            "rm"
        );
        // Known flags and `--name=value` are not read twice.
        assert!(strip(words("sudo --preserve-env --user=x make"))
            .alternatives
            .is_empty());
        assert!(strip(words("timeout --preserve-status 5 make"))
            .alternatives
            .is_empty());
        // Readings already offered are not offered again.
        let s = strip(words("env --xx --yy rm"));
        assert_eq!(s.alternatives.len(), 2);
        let again = strip_reading(s.alternatives[0].0.clone(), s.alternatives[0].1);
        assert!(again.alternatives.is_empty());
    }

    #[test]
    fn credential_and_environment_launchers_run_the_rest_of_the_line() {
        for line in [
            "aws-vault exec prof -- rm -rf ~",
            "aws-vault exec prof rm -rf ~",
            "aws-vault --debug exec prof --duration 1h -- rm -rf ~",
            "aws-sso exec -A 1234 -R admin rm -rf ~",
            "aws-okta exec prof -- rm -rf ~",
            "op run --env-file .env -- rm -rf ~",
            "doppler run -p proj -c dev -- rm -rf ~",
            "infisical run --env=dev -- rm -rf ~",
            "direnv exec . rm -rf ~",
            "nix shell nixpkgs#hello nixpkgs#jq --command rm -rf ~",
            "nix develop -c rm -rf ~",
            "mise exec node@20 python@3 -- rm -rf ~",
            "chamber exec svc1 svc2 -- rm -rf ~",
            "dotenv -e .env -- rm -rf ~",
            "dotenv -f .env run rm -rf ~",
            "env-cmd -f .env rm -rf ~",
            "envchain aws rm -rf ~",
            "cross-env A=1 rm -rf ~",
            "asdf exec rm -rf ~",
            "rbenv exec rm -rf ~",
            "lima rm -rf ~",
            "lima --workdir /tmp rm -rf ~",
            "limactl shell default rm -rf ~",
            "limactl shell --preserve-env finch rm -rf ~",
        ] {
            let (wrappers, rest) = stripped(line);
            assert_eq!(wrappers.len(), 1, "{line}");
            assert_eq!(rest, ["rm", "-rf", "~"], "{line}");
        }
        // Other subcommands, and launchers given no command, run nothing here.
        for line in [
            "aws-vault list",
            "aws-vault add prof",
            "op item get secret",
            "doppler secrets",
            "nix build .#x",
            "nix develop",
            "nix shell nixpkgs#hello",
            "mise exec node@20",
            "direnv allow .",
        ] {
            assert!(stripped(line).0.is_empty(), "{line}");
        }
        assert_eq!(
            strip(words("aws-vault exec prof"))
                .interactive_shell
                .as_deref(),
            Some("aws-vault")
        );
    }

    #[test]
    fn dashed_git_programs_are_git_subcommands() {
        assert_eq!(stripped("git-reset --hard").1, ["git", "reset", "--hard"]);
        assert_eq!(
            stripped("sudo /usr/lib/git-core/git-clean -fdx").1,
            ["/usr/lib/git-core/git", "clean", "-fdx"]
        );
        assert_eq!(stripped("GIT-PUSH.exe -f").1, ["git", "push", "-f"]);
        assert_eq!(stripped("git").1, ["git"]);
        assert_eq!(stripped("git- x").1, ["git-", "x"]);
        assert_eq!(stripped("legit-x y").1, ["legit-x", "y"]);
    }

    #[test]
    fn spec_lookup_finds_what_a_walk_in_order_finds() {
        let walk = |p: &str| SPECS.iter().find(|s| s.names.contains(&p));
        let names = SPECS.iter().flat_map(|s| s.names.iter().copied());
        for name in names.chain(["", "git", "sudox", "Sudo", "zzz", "a", "~"]) {
            // Specs compared by their names (a `const` has no one address).
            assert_eq!(
                spec_for(name).map(|s| s.names),
                walk(name).map(|s| s.names),
                "{name}"
            );
        }
    }

    #[test]
    fn program_names_drop_directories_case_and_exe() {
        for (path, name) in [
            ("git", "git"),
            ("rm.exe", "rm"),
            ("RM", "rm"),
            ("/usr/bin/git", "git"),
            ("C:\\Program Files\\Git\\bin\\Git.EXE", "git"),
            ("", ""),
            (".exe", ".exe"),
            ("dir/", "dir"),
            ("python3.12", "python3.12"),
        ] {
            assert_eq!(program_name(path), name, "{path}");
        }
    }

    #[test]
    fn basename_takes_the_last_component() {
        assert_eq!(basename("/usr/bin/rm"), "rm");
        assert_eq!(basename("/bin/../bin/rm"), "rm");
        assert_eq!(basename("rm"), "rm");
        assert_eq!(basename("dir/"), "dir");
        assert_eq!(basename("/"), "/");
    }

    #[test]
    fn program_names_drop_case_and_the_windows_suffix() {
        assert_eq!(program_name("/usr/bin/RM"), "rm");
        assert_eq!(program_name("C:/Program Files/Git/bin/git.exe"), "git");
        assert_eq!(program_name("rm.EXE"), "rm");
        assert_eq!(program_name(r"C:\Program Files\Git\bin\git.exe"), "git");
        assert_eq!(program_name(r"C:\Windows\System32\cmd.exe"), "cmd");
        assert_eq!(program_name(".exe"), ".exe");
        assert_eq!(program_name("exe"), "exe");
    }
}
