//! A deadline on one hook call, enforced from outside the work it bounds.
//!
//! Static limits (payload size, expression size and nesting, YAML budgets)
//! stop most runaway inputs, but not all of them: two nested comprehensions
//! over a payload list of 100,000 entries are a few hundred bytes of policy
//! and hours of work, and neither the CEL interpreter nor a regex can be
//! interrupted. chibi kills a plugin after 30 s and then aborts the whole
//! turn, so a hang is a failure we must turn into an answer ourselves.
//!
//! The deadline is a process timer (`setitimer`, `SIGALRM`). When it fires,
//! the signal handler claims the single right to reply, writes the hook's
//! failure reply (a deny on permission hooks unless the policy fails open)
//! and ends the process with `_exit`, leaving the stuck computation behind.
//! The replies are rendered when the watchdog is armed, so the handler only
//! does what is safe in a signal handler: atomics, `write(2)`, `_exit(2)`.
//!
//! When a decision log is on, the handler also appends the call's log line
//! (README: one line per hook call): the line is rendered before deciding,
//! as soon as the log's path is known, and the handler only opens the file
//! (`O_APPEND`, `O_NONBLOCK` so a FIFO without reader cannot hang it),
//! writes the line in one `write(2)` and closes it, all async-signal-safe.
//! The decision path claims the reply before it writes its own line, so a
//! call logs exactly one line, whoever answers.
//!
//! Why not a thread that sleeps until the deadline: starting it (a 2 MiB
//! stack, `clone3`, scheduling) was a measurable part of a one-call plugin
//! process (see BENCHMARKS.md), and a timer costs one system call.
//!
//! A process has one deadline: the hook adapters arm it once, at the start
//! of the call. A second `arm` in the same process returns a watchdog
//! without a deadline (its `claim` always succeeds).

use crate::model::OnError;
use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// How long a hook call may take when nothing says otherwise: far above any
/// real decision (microseconds to milliseconds) and well below chibi's 30 s.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);

/// Overrides the deadline, in milliseconds.
pub const ENV_VAR: &str = "HOOK_POLICY_DEADLINE_MS";

/// What to print when the deadline passes, given the policy's `on_error`
/// (unknown when the policy had not loaded yet) and the message naming the
/// failure: stdout text, stderr text. It is called for each of the three
/// settings when the watchdog is armed.
pub type OnTimeout = Box<dyn Fn(Option<OnError>, &str) -> (String, String) + Send>;

/// The failure replies, indexed by the `on_error` code below.
struct Replies([(Vec<u8>, Vec<u8>); 3]);

static REPLIES: OnceLock<Replies> = OnceLock::new();

/// The decision-log file and the line to append, indexed like [`Replies`].
struct DeadlineLog {
    path: CString,
    lines: [Vec<u8>; 3],
}

static LOG: OnceLock<DeadlineLog> = OnceLock::new();
static REPLIED: AtomicBool = AtomicBool::new(false);
/// 0 unknown, 1 fail_closed, 2 fail_open.
static ON_ERROR: AtomicU8 = AtomicU8::new(0);

pub struct Watchdog {
    /// Whether this watchdog owns the process timer.
    armed: bool,
    /// What the failure reply says.
    message: String,
    deadline: Duration,
    /// When the deadline passes.
    fires_at: SystemTime,
}

impl Watchdog {
    /// Starts the clock.
    pub fn arm(deadline: Duration, on_timeout: OnTimeout) -> Watchdog {
        let message = format!(
            "the decision took longer than {} ms (limit exceeded; {ENV_VAR} sets it)",
            deadline.as_millis()
        );
        let render = |setting| {
            let (out, err) = on_timeout(setting, &message);
            (out.into_bytes(), err.into_bytes())
        };
        let replies = Replies([
            render(None),
            render(Some(OnError::FailClosed)),
            render(Some(OnError::FailOpen)),
        ]);
        let fires_at = SystemTime::now() + deadline;
        if REPLIES.set(replies).is_err() {
            return Watchdog {
                armed: false,
                message,
                deadline,
                fires_at,
            };
        }
        // If the timer cannot be set there is no deadline, and the call runs
        // as it would without a watchdog.
        let armed = start_timer(deadline);
        Watchdog {
            armed,
            message,
            deadline,
            fires_at,
        }
    }

    /// How long the call may take.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// The message of the deadline's failure reply.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// When the deadline passes (the time a deadline log line records).
    pub fn fires_at(&self) -> SystemTime {
        self.fires_at
    }

    /// Makes the deadline append a decision-log line to `path` as well:
    /// `line` renders it for each `on_error` setting (as the replies are).
    /// Call it before deciding, as soon as the log's path is known; only the
    /// first call counts. Returns whether the deadline will log.
    pub fn log_to(&self, path: &Path, line: impl Fn(Option<OnError>) -> Vec<u8>) -> bool {
        use std::os::unix::ffi::OsStrExt;
        if !self.armed {
            return false;
        }
        let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        let lines = [
            line(None),
            line(Some(OnError::FailClosed)),
            line(Some(OnError::FailOpen)),
        ];
        LOG.set(DeadlineLog { path, lines }).is_ok()
    }

    /// The deadline from the environment, or the default.
    pub fn deadline_from_env() -> Duration {
        std::env::var(ENV_VAR)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(DEFAULT_DEADLINE, Duration::from_millis)
    }

    /// Tells the watchdog which failure mode the loaded policy chose.
    pub fn set_on_error(&self, on_error: Option<OnError>) {
        if !self.armed {
            return;
        }
        let code = match on_error {
            None => 0,
            Some(OnError::FailClosed) => 1,
            Some(OnError::FailOpen) => 2,
        };
        ON_ERROR.store(code, Ordering::SeqCst);
    }

    /// Claims the right to reply. When it returns false the deadline has
    /// passed and its reply is being written: print nothing, and call
    /// [`Watchdog::yield_forever`]. (With a signal handler that ends the
    /// process this cannot happen on the thread it interrupted, but a
    /// caller on another thread could see it.)
    pub fn claim(&self) -> bool {
        if !self.armed {
            return true;
        }
        REPLIED
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Waits for the watchdog to end the process.
    pub fn yield_forever(&self) -> ! {
        loop {
            std::thread::park();
        }
    }
}

/// Installs the handler and starts a one-shot real-time timer.
fn start_timer(deadline: Duration) -> bool {
    // SAFETY: plain libc calls with fully initialised arguments; the handler
    // only touches atomics and already-initialised statics.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_deadline as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
            return false;
        }
        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                tv_sec: deadline.as_secs().min(i32::MAX as u64) as libc::time_t,
                // At least 1 µs: a zero timer is "disarmed".
                tv_usec: (deadline.subsec_micros().max(u32::from(deadline.is_zero())))
                    as libc::suseconds_t,
            },
        };
        libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) == 0
    }
}

extern "C" fn on_deadline(_signal: libc::c_int) {
    if REPLIED
        .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // The decision already claimed the reply; let it finish.
        return;
    }
    let setting = usize::from(ON_ERROR.load(Ordering::SeqCst).min(2));
    if let Some(Replies(replies)) = REPLIES.get() {
        let (out, err) = &replies[setting];
        write_fd(2, err);
        write_fd(1, out);
    }
    // `OnceLock::get` is one atomic load: it sees a log set by the
    // interrupted thread either whole or not at all.
    if let Some(log) = LOG.get() {
        append_line(&log.path, &log.lines[setting]);
    }
    // SAFETY: _exit is async-signal-safe and ends the process at once.
    unsafe { libc::_exit(0) }
}

/// Appends one line with a single `write(2)` (see src/decision_log.rs on
/// why one write keeps concurrent lines whole); async-signal-safe. A log
/// that cannot be written is skipped: the reply is already out.
fn append_line(path: &CString, line: &[u8]) {
    // SAFETY: a NUL-terminated path and a live slice; open, write and close
    // are async-signal-safe.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_NONBLOCK | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        );
        if fd < 0 {
            return;
        }
        libc::write(fd, line.as_ptr().cast(), line.len());
        libc::close(fd);
    }
}

/// `write(2)` until done or failed; async-signal-safe.
fn write_fd(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length come from a live slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n > 0 {
            bytes = &bytes[n as usize..];
        } else if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        } else {
            return;
        }
    }
}
