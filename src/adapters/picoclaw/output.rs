//! Reply lines out to PicoClaw, from every worker at once.
//!
//! One `write` system call per reply, each behind the same lock, was a
//! good part of a request's cost when replies come fast. So a reply
//! finished while another thread is writing is left for that thread, which
//! writes everything pending (in one call) before it stops: under load,
//! replies leave in batches; alone, each leaves at once. Whole lines only:
//! a line is appended in one piece, and PicoClaw reads line by line.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

pub struct Output {
    out: Mutex<Box<dyn Write + Send>>,
    outbox: Mutex<Outbox>,
    /// Set once a reply could not be written: PicoClaw went away.
    gone: AtomicBool,
}

#[derive(Default)]
struct Outbox {
    pending: Vec<u8>,
    /// Whether a thread is writing; it writes `pending` before it stops.
    writing: bool,
}

impl Output {
    pub fn new(out: Box<dyn Write + Send>) -> Output {
        Output {
            out: Mutex::new(out),
            outbox: Mutex::new(Outbox::default()),
            gone: AtomicBool::new(false),
        }
    }

    /// Whether a write failed (PicoClaw closed its end).
    pub fn gone(&self) -> bool {
        self.gone.load(Ordering::SeqCst)
    }

    /// Writes whole reply lines, or leaves them to the thread writing now.
    /// Either way they are out (or PicoClaw gone) before the last of the
    /// callers returns, which is what the pool's `finish` waits for.
    pub fn write(&self, lines: &[u8]) {
        let mut outbox = self.outbox();
        if outbox.writing {
            outbox.pending.extend_from_slice(lines);
            return;
        }
        outbox.writing = true;
        drop(outbox);
        self.write_now(lines);
        let mut batch = Vec::new();
        loop {
            {
                let mut outbox = self.outbox();
                if outbox.pending.is_empty() {
                    outbox.writing = false;
                    return;
                }
                std::mem::swap(&mut outbox.pending, &mut batch);
            }
            self.write_now(&batch);
            batch.clear();
        }
    }

    fn outbox(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn write_now(&self, lines: &[u8]) {
        if self.gone() {
            return;
        }
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = out.write_all(lines).and_then(|_| out.flush()) {
            self.gone.store(true, Ordering::SeqCst);
            // Not `eprintln!`, which panics when stderr is gone too: this
            // thread may be writing other workers' replies.
            let _ = writeln!(
                std::io::stderr(),
                "hook-policy: picoclaw: cannot write a reply, so PicoClaw is taken to be gone: {e}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A sink that is slow to take each write and counts the writes.
    struct Slow(Arc<Mutex<(Vec<u8>, usize)>>);

    impl Write for Slow {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            std::thread::sleep(std::time::Duration::from_micros(300));
            let mut s = self.0.lock().unwrap();
            s.0.extend_from_slice(buf);
            s.1 += 1;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_leaves_whole_and_once_and_busy_writes_are_shared() {
        let sink = Arc::new(Mutex::new((Vec::new(), 0)));
        let output = Arc::new(Output::new(Box::new(Slow(sink.clone()))));
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let output = output.clone();
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let line =
                            format!("{{\"id\":{},\"x\":\"{}\"}}\n", t * 1000 + i, "y".repeat(i));
                        output.write(line.as_bytes());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let (bytes, writes) = &*sink.lock().unwrap();
        let mut ids: Vec<u64> = std::str::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        ids.sort_unstable();
        let expected: Vec<u64> = (0..8)
            .flat_map(|t| (0..50).map(move |i| t * 1000 + i))
            .collect();
        assert_eq!(ids, expected);
        // Eight writers and a slow sink: replies waited and left together.
        assert!(*writes < 400, "{writes} writes for 400 lines");
    }
}
