//! A deadline on one hook call, enforced from outside the work it bounds.
//!
//! Static limits (payload size, expression size and nesting, YAML budgets)
//! stop most runaway inputs, but not all of them: two nested comprehensions
//! over a payload list of 100,000 entries are a few hundred bytes of policy
//! and hours of work, and neither the CEL interpreter nor a regex can be
//! interrupted. chibi kills a plugin after 30 s and then aborts the whole
//! turn, so a hang is a failure we must turn into an answer ourselves.
//!
//! The watchdog is a thread that sleeps until the deadline. Whoever comes
//! first, the decision or the deadline, claims the single right to reply;
//! the watchdog then prints the hook's failure reply (a deny on permission
//! hooks unless the policy fails open) and ends the process, leaving the
//! stuck computation behind.

use crate::model::OnError;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a hook call may take when nothing says otherwise: far above any
/// real decision (microseconds to milliseconds) and well below chibi's 30 s.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);

/// Overrides the deadline, in milliseconds.
pub const ENV_VAR: &str = "HOOK_POLICY_DEADLINE_MS";

/// What to print when the deadline passes, given the policy's `on_error`
/// (unknown when the policy had not loaded yet): stdout text, stderr text.
pub type OnTimeout = Box<dyn FnOnce(Option<OnError>) -> (String, String) + Send>;

pub struct Watchdog {
    replied: Arc<AtomicBool>,
    /// 0 unknown, 1 fail_closed, 2 fail_open.
    on_error: Arc<AtomicU8>,
}

impl Watchdog {
    /// Starts the clock.
    pub fn arm(deadline: Duration, on_timeout: OnTimeout) -> Watchdog {
        let replied = Arc::new(AtomicBool::new(false));
        let on_error = Arc::new(AtomicU8::new(0));
        let (r, e) = (replied.clone(), on_error.clone());
        // If no thread can be started there is no deadline, and the call
        // runs as it would without a watchdog.
        let _ = std::thread::Builder::new()
            .name("hook-policy-deadline".into())
            .spawn(move || {
                std::thread::sleep(deadline);
                if r.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
                {
                    return;
                }
                let setting = match e.load(Ordering::SeqCst) {
                    1 => Some(OnError::FailClosed),
                    2 => Some(OnError::FailOpen),
                    _ => None,
                };
                let (out, err) = on_timeout(setting);
                let _ = std::io::stderr().write_all(err.as_bytes());
                let mut stdout = std::io::stdout();
                let _ = stdout.write_all(out.as_bytes());
                let _ = stdout.flush();
                std::process::exit(0);
            });
        Watchdog { replied, on_error }
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
        let code = match on_error {
            None => 0,
            Some(OnError::FailClosed) => 1,
            Some(OnError::FailOpen) => 2,
        };
        self.on_error.store(code, Ordering::SeqCst);
    }

    /// Claims the right to reply. When it returns false the watchdog has
    /// already replied and is ending the process: print nothing, and do not
    /// return from `main` (that could cut its reply short) — call
    /// [`Watchdog::yield_forever`].
    pub fn claim(&self) -> bool {
        self.replied
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
