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
//! Why not a thread that sleeps until the deadline: starting it (a 2 MiB
//! stack, `clone3`, scheduling) was a measurable part of a one-call plugin
//! process (see BENCHMARKS.md), and a timer costs one system call.
//!
//! A process has one deadline: the hook adapters arm it once, at the start
//! of the call. A second `arm` in the same process returns a watchdog
//! without a deadline (its `claim` always succeeds).

use crate::model::OnError;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

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
static REPLIED: AtomicBool = AtomicBool::new(false);
/// 0 unknown, 1 fail_closed, 2 fail_open.
static ON_ERROR: AtomicU8 = AtomicU8::new(0);

pub struct Watchdog {
    /// Whether this watchdog owns the process timer.
    armed: bool,
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
        if REPLIES.set(replies).is_err() {
            return Watchdog { armed: false };
        }
        // If the timer cannot be set there is no deadline, and the call runs
        // as it would without a watchdog.
        let armed = start_timer(deadline);
        Watchdog { armed }
    }

    /// The deadline from the environment, or the default.
    pub fn deadline_from_env() -> Duration {
        Watchdog::deadline_from_env_or(DEFAULT_DEADLINE)
    }

    /// The deadline from the environment, or `default`. The variable means
    /// the same in every mode: how long one hook call may take, from when
    /// its input is read to its reply. Only the default differs, since each
    /// must stay below its harness's own limit (chibi's 30 s, PicoClaw's
    /// 5 s interceptor timeout).
    pub fn deadline_from_env_or(default: Duration) -> Duration {
        std::env::var(ENV_VAR)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(default, Duration::from_millis)
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
    if let Some(Replies(replies)) = REPLIES.get() {
        let (out, err) = &replies[usize::from(ON_ERROR.load(Ordering::SeqCst).min(2))];
        write_fd(2, err);
        write_fd(1, out);
    }
    // SAFETY: _exit is async-signal-safe and ends the process at once.
    unsafe { libc::_exit(0) }
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
