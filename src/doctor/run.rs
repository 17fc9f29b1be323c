//! Running an installed hook command once, as its agent would, under a
//! time limit: a hung hook must not hang `policy doctor`.
//!
//! The command runs in a process group of its own, so on timeout the whole
//! group is killed (`sh -c` would otherwise leave the real hook running),
//! and its output is read by threads that are not waited for past the
//! limit (a grandchild that escaped the group may keep the pipes open).

use super::probes::{Probe, Protocol};
use super::sites::Launch;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What one run gave.
pub struct Ran {
    pub status: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

/// The bytes the agent writes to the hook's stdin for `probe`.
fn input(protocol: Protocol, probe: &Probe) -> Vec<u8> {
    let event = serde_json::to_vec(&probe.event).unwrap_or_default();
    match protocol {
        Protocol::StdinJson => event,
        Protocol::JsonRpc => {
            let hello = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "hook.hello",
                "params": {"name": "hook-policy", "version": 1, "modes": ["tool", "approve"]}});
            let mut bytes = serde_json::to_vec(&hello).unwrap_or_default();
            bytes.push(b'\n');
            bytes.extend(event);
            bytes.push(b'\n');
            bytes
        }
    }
}

/// Runs `launch` with `probe`'s event in `cwd`, `home` as HOME.
pub fn run(
    launch: &Launch,
    protocol: Protocol,
    probe: &Probe,
    cwd: &Path,
    home: &Path,
    limit: Duration,
) -> Result<Ran, String> {
    let mut cmd = match launch {
        Launch::Shell { shell, command } => {
            let mut c = Command::new(shell);
            c.arg("-c").arg(command).current_dir(cwd);
            c
        }
        Launch::Argv { argv, dir } => {
            let Some((program, args)) = argv.split_first() else {
                return Err("the entry has an empty command".into());
            };
            let mut c = Command::new(program);
            // PicoClaw creates its workspace (the entry's `dir`) at start.
            let dir = dir.as_deref().filter(|d| d.is_dir()).unwrap_or(cwd);
            c.args(args).current_dir(dir);
            c
        }
    };
    let project = cwd.display().to_string();
    cmd.env("HOME", home)
        .envs(
            probe
                .env
                .iter()
                .map(|(k, v)| (k, v.replace("{project}", &project))),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", launch.shown()))?;
    let bytes = input(protocol, probe);
    if let Some(mut stdin) = child.stdin.take() {
        // From a thread: a hook that never reads must not block us.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if Instant::now() >= deadline => {
                timed_out = true;
                kill_group(&mut child);
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for `{}`: {e}", launch.shown())),
        }
    };
    // Output still held open by a leftover process of the group (which
    // keeps the group id reserved) is waited for until the limit, then the
    // group is killed.
    let rest = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(200));
    let stdout = match stdout.recv_timeout(rest) {
        Ok(bytes) => bytes,
        Err(_) => {
            timed_out = true;
            kill_group(&mut child);
            Vec::new()
        }
    };
    let stderr = stderr
        .recv_timeout(Duration::from_millis(200))
        .unwrap_or_default();
    Ok(Ran {
        status,
        stdout,
        stderr,
        timed_out,
    })
}

/// How much of a hook's stdout or stderr is kept.
const KEPT: usize = 1 << 20;

fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            // Kept up to a limit and drained past it, so a hook that floods
            // its output neither blocks nor fills doctor's memory.
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = KEPT.saturating_sub(buf.len());
                        buf.extend_from_slice(&chunk[..n.min(room)]);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(buf);
        });
    }
    rx
}

#[cfg(unix)]
fn kill_group(child: &mut std::process::Child) {
    // The child leads its own group (process_group(0)), so -pid names it.
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill only sends a signal; a group already gone is ESRCH.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(child: &mut std::process::Child) {
    let _ = child.kill();
}
