//! Requests decided side by side, each answered by its deadline.
//!
//! PicoClaw calls one long-running hook from every session at once and
//! matches replies by id (`pending` in pkg/agent/hook_process.go), skipping
//! an interceptor that has not answered within 5 s (`before_tool` then runs
//! unguarded) and denying an approval after 60 s. Deciding one line at a
//! time would let one slow decision (a costly rule over a huge argument)
//! push every call queued behind it, other sessions' too, past that timeout.
//!
//! So requests go to a bounded pool of worker threads, and a clock thread
//! answers any request still unanswered at its deadline with the hook's
//! failure reply. A CEL evaluation cannot be interrupted, so a worker stuck
//! past its deadline is written off and replaced, up to a fixed number of
//! threads; beyond that, queued requests still get their failure reply on
//! time. Each request is answered exactly once: whoever claims it first (its
//! worker or the clock) replies, and the other's answer is dropped.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the pool needs from the server: how to decide a request, what to
/// answer when its deadline passes, and how to send an answer.
pub trait Server<R, A>: Send + Sync + 'static {
    fn decide(&self, request: &R) -> A;
    fn expired(&self, request: &R, deadline: Duration) -> A;
    fn send(&self, answer: A);
}

impl<R, A, S: Server<R, A>> Server<R, A> for Arc<S> {
    fn decide(&self, request: &R) -> A {
        (**self).decide(request)
    }
    fn expired(&self, request: &R, deadline: Duration) -> A {
        (**self).expired(request, deadline)
    }
    fn send(&self, answer: A) {
        (**self).send(answer)
    }
}

struct Task<R> {
    request: R,
    deadline: Instant,
    answered: AtomicBool,
}

impl<R> Task<R> {
    /// Claims the right to answer; true exactly once.
    fn claim(&self) -> bool {
        self.answered
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }
}

struct State<R> {
    queue: VecDeque<Arc<Task<R>>>,
    /// Tasks being worked on, with whether their worker was written off,
    /// and that worker.
    running: Vec<(Arc<Task<R>>, bool, std::thread::ThreadId)>,
    /// Every worker started, to wait for the idle ones at the end.
    handles: Vec<std::thread::JoinHandle<()>>,
    /// Workers counted against the pool size (not written off).
    active: usize,
    /// Worker threads alive, written off or not.
    threads: usize,
    /// Requests submitted whose answer has not been sent yet.
    unsent: usize,
    closing: bool,
    /// Workers waiting for a task: a submit wakes one only if there is one
    /// (waking a condvar is a system call, paid per request otherwise).
    idle: usize,
}

struct Shared<R, A, S> {
    state: Mutex<State<R>>,
    /// Workers wait here for tasks.
    work: Condvar,
    /// The clock waits here for the next deadline.
    clock: Condvar,
    /// `finish` waits here for the last answer to be sent. (Not the
    /// clock's: each wake-up of the clock scans the queue, and while the
    /// pool finishes every answer would wake it, quadratic in the backlog
    /// left when stdin closes.)
    drained: Condvar,
    server: S,
    deadline: Duration,
    size: usize,
    max_threads: usize,
    _answer: std::marker::PhantomData<fn() -> A>,
}

pub struct Pool<R, A, S> {
    shared: Arc<Shared<R, A, S>>,
}

impl<R, A, S> Shared<R, A, S> {
    fn lock(&self) -> MutexGuard<'_, State<R>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<R: Send + Sync + 'static, A: 'static, S: Server<R, A>> Pool<R, A, S> {
    /// Starts `size` workers (and up to `extra` replacements for stuck ones)
    /// and the clock.
    pub fn start(server: S, size: usize, extra: usize, deadline: Duration) -> Pool<R, A, S> {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                running: Vec::new(),
                handles: Vec::new(),
                active: 0,
                threads: 0,
                unsent: 0,
                closing: false,
                idle: 0,
            }),
            work: Condvar::new(),
            clock: Condvar::new(),
            drained: Condvar::new(),
            server,
            deadline,
            size,
            max_threads: size + extra,
            _answer: std::marker::PhantomData,
        });
        {
            let mut st = shared.lock();
            for _ in 0..size {
                spawn_worker(&shared, &mut st);
            }
        }
        let s = shared.clone();
        let _ = std::thread::Builder::new()
            .name("hook-policy-clock".into())
            .spawn(move || clock(&s));
        Pool { shared }
    }

    /// Queues a request; its deadline counts from now.
    pub fn submit(&self, request: R) {
        let mut st = self.shared.lock();
        // Timed under the lock: the clock, which never scans while a submit
        // holds it, may then take this deadline to be no earlier than its
        // own wake-up (see `clock`).
        let task = Arc::new(Task {
            request,
            deadline: Instant::now() + self.shared.deadline,
            answered: AtomicBool::new(false),
        });
        st.queue.push_back(task);
        st.unsent += 1;
        let wake_worker = st.idle > 0;
        drop(st);
        if wake_worker {
            self.shared.work.notify_one();
        }
    }

    /// Waits until every request submitted has been answered (by its worker
    /// or at its deadline) and the answer sent, then lets idle workers go.
    /// (Answered is not enough: the process may end as soon as this returns,
    /// and a claimed answer may still be on its way out.)
    pub fn finish(self) {
        let mut st = self.shared.lock();
        st.closing = true;
        self.shared.work.notify_all();
        self.shared.clock.notify_all();
        while st.unsent > 0 {
            st = self
                .shared
                .drained
                .wait_timeout(st, Duration::from_millis(50))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        // The idle workers end now; let them finish ending before the
        // process does (a thread still tearing down while the process
        // exits is a hazard). Workers stuck on a runaway rule are left.
        let stuck: Vec<std::thread::ThreadId> = st.running.iter().map(|(.., id)| *id).collect();
        let handles = std::mem::take(&mut st.handles);
        drop(st);
        for h in handles {
            if !stuck.contains(&h.thread().id()) {
                let _ = h.join();
            }
        }
    }
}

fn spawn_worker<R: Send + Sync + 'static, A: 'static, S: Server<R, A>>(
    shared: &Arc<Shared<R, A, S>>,
    st: &mut State<R>,
) {
    let s = shared.clone();
    let started = std::thread::Builder::new()
        .name("hook-policy-worker".into())
        .spawn(move || worker(&s));
    if let Ok(handle) = started {
        st.threads += 1;
        st.active += 1;
        st.handles.push(handle);
    }
}

fn worker<R: Send + Sync + 'static, A: 'static, S: Server<R, A>>(shared: &Arc<Shared<R, A, S>>) {
    // The task just answered, and whether this worker sent its answer: it
    // is settled under the same lock that takes the next task (one lock per
    // request fewer, where every worker and the reader take turns).
    let mut finished: Option<(Arc<Task<R>>, bool)> = None;
    loop {
        let task = {
            let mut st = shared.lock();
            if let Some((task, sent)) = finished.take() {
                if !settle(shared, &mut st, &task, sent) {
                    return;
                }
            }
            loop {
                if let Some(t) = st.queue.pop_front() {
                    if t.answered.load(Ordering::SeqCst) {
                        continue; // answered at its deadline while queued
                    }
                    st.running
                        .push((t.clone(), false, std::thread::current().id()));
                    break t;
                }
                if st.closing {
                    st.threads -= 1;
                    st.active -= 1;
                    return;
                }
                st.idle += 1;
                st = shared.work.wait(st).unwrap_or_else(|p| p.into_inner());
                st.idle -= 1;
            }
        };
        let answer = shared.server.decide(&task.request);
        let sent = task.claim();
        if sent {
            shared.server.send(answer);
        }
        finished = Some((task, sent));
    }
}

/// Books a task its worker is done with; false when that worker must end
/// (it was written off and its replacement keeps the pool full).
fn settle<R, A, S>(
    shared: &Shared<R, A, S>,
    st: &mut State<R>,
    task: &Arc<Task<R>>,
    sent: bool,
) -> bool {
    if sent {
        st.unsent -= 1;
    }
    let at = st.running.iter().position(|(t, ..)| Arc::ptr_eq(t, task));
    let written_off = at.is_some_and(|i| st.running.swap_remove(i).1);
    if st.closing {
        // `finish` waits for the last answer to be sent.
        shared.drained.notify_all();
    }
    if written_off {
        // A replacement took this worker's place; rejoin only if the
        // pool is short (its replacement could not be started).
        if st.active < shared.size {
            st.active += 1;
        } else {
            st.threads -= 1;
            return false;
        }
    }
    true
}

/// Answers every request whose deadline has passed, and writes off (and
/// replaces) the workers stuck on them.
fn clock<R: Send + Sync + 'static, A: 'static, S: Server<R, A>>(shared: &Arc<Shared<R, A, S>>) {
    let mut st = shared.lock();
    loop {
        let now = Instant::now();
        let mut due: Vec<Arc<Task<R>>> = Vec::new();
        st.queue.retain(|t| {
            let late = t.deadline <= now && !t.answered.load(Ordering::SeqCst);
            if late {
                due.push(t.clone());
            }
            !late && !t.answered.load(Ordering::SeqCst)
        });
        let mut stuck = 0;
        for (t, written_off, _) in st.running.iter_mut() {
            if !*written_off && t.deadline <= now && !t.answered.load(Ordering::SeqCst) {
                *written_off = true;
                stuck += 1;
                due.push(t.clone());
            }
        }
        for _ in 0..stuck {
            st.active -= 1;
            if st.threads < shared.max_threads {
                spawn_worker(shared, &mut st);
            }
        }
        if !due.is_empty() {
            drop(st);
            let mut sent = 0;
            for t in due {
                if t.claim() {
                    let answer = shared.server.expired(&t.request, shared.deadline);
                    shared.server.send(answer);
                    sent += 1;
                }
            }
            st = shared.lock();
            st.unsent -= sent;
            shared.drained.notify_all();
            continue;
        }
        let next = st
            .queue
            .iter()
            .chain(st.running.iter().filter(|(_, w, _)| !w).map(|(t, ..)| t))
            .map(|t| t.deadline)
            .min();
        // With nothing to wait for, one deadline's length: a request
        // submitted meanwhile is due later than that (deadlines are the
        // submit time plus that constant), so a submit never needs to wake
        // the clock (a system call and a context switch per request when
        // requests come one at a time, as they do from PicoClaw).
        let wait = next.map_or(shared.deadline, |d| d.saturating_duration_since(now));
        st = shared
            .clock
            .wait_timeout(st, wait.max(Duration::from_millis(1)))
            .map(|(g, _)| g)
            .unwrap_or_else(|p| p.into_inner().0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Requests are (id, milliseconds of work).
    struct Sleepy(Mutex<mpsc::Sender<(u32, &'static str)>>);

    impl Server<(u32, u64), (u32, &'static str)> for Sleepy {
        fn decide(&self, r: &(u32, u64)) -> (u32, &'static str) {
            std::thread::sleep(Duration::from_millis(r.1));
            (r.0, "decided")
        }
        fn expired(&self, r: &(u32, u64), _: Duration) -> (u32, &'static str) {
            (r.0, "expired")
        }
        fn send(&self, a: (u32, &'static str)) {
            let _ = self.0.lock().unwrap().send(a);
        }
    }

    struct Count(std::sync::atomic::AtomicUsize);
    impl Server<u32, u32> for Count {
        fn decide(&self, r: &u32) -> u32 {
            *r
        }
        fn expired(&self, r: &u32, _: Duration) -> u32 {
            *r + 1_000_000
        }
        fn send(&self, _: u32) {
            // Slow enough that a finish not waiting for sends would see it.
            std::thread::sleep(Duration::from_micros(200));
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn every_request_is_answered_once_before_finish_returns() {
        for _ in 0..20 {
            let counter = Arc::new(Count(std::sync::atomic::AtomicUsize::new(0)));
            let pool = Pool::start(counter.clone(), 4, 8, Duration::from_secs(3));
            for i in 0..200 {
                pool.submit(i);
            }
            pool.finish();
            assert_eq!(counter.0.load(Ordering::SeqCst), 200);
        }
    }

    #[test]
    fn slow_requests_expire_and_the_rest_are_decided_beside_them() {
        let (tx, rx) = mpsc::channel();
        let pool = Pool::start(Sleepy(Mutex::new(tx)), 2, 2, Duration::from_millis(300));
        // Three stuck requests for two workers: the clock answers them (the
        // third while still queued) and replaces the stuck workers...
        let started = Instant::now();
        for id in 0..3 {
            pool.submit((id, 5_000));
        }
        std::thread::sleep(Duration::from_millis(500));
        // ...so later requests are still decided.
        for id in 10..13 {
            pool.submit((id, 0));
        }
        let mut got: Vec<(u32, &str)> = (0..6)
            .map(|_| rx.recv_timeout(Duration::from_secs(4)).expect("answered"))
            .collect();
        assert!(started.elapsed() < Duration::from_secs(4));
        got.sort();
        assert_eq!(got[..2], [(0, "expired"), (1, "expired")]);
        assert_eq!(got[2], (2, "expired"));
        assert_eq!(
            got[3..],
            [(10, "decided"), (11, "decided"), (12, "decided")]
        );
        pool.finish();
        // Exactly one answer each.
        assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    }
}
