//! Helpers shared by the behaviour tests: a minimal executor for sync-only
//! dispatch (it allocates nothing, so the allocation test can use it), a
//! capture of `tracing` output, a dispatcher's hook names, and a counting
//! allocator.

pub mod alloc;

use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::task::{Context, Poll, Waker};

/// The names of a dispatcher's hooks, in dispatch order.
pub fn names(hooks: &hooks_core::Hooks) -> Vec<String> {
    hooks
        .describe()
        .hooks()
        .iter()
        .map(|hook| hook.name.clone())
        .collect()
}

/// Polls `future` to completion on this thread, without a runtime.
///
/// For dispatches whose hooks never wait on I/O or timers (sync hooks, and
/// async hooks that do not pend); it spins if the future does pend.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::yield_now();
    }
}

/// Runs `f` and returns what it returned with the `tracing` output (DEBUG
/// and above) this thread logged meanwhile.
///
/// One global subscriber is installed for the test binary and writes to the
/// capturing thread's buffer. A scoped subscriber (`with_default`) would race
/// with tests on other threads over tracing's cached callsite interest.
///
/// # Panics
///
/// If something else installed a global subscriber first.
pub fn capture_logs<T>(f: impl FnOnce() -> T) -> (T, String) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .without_time()
            .with_writer(ThreadBuffer)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .finish();
        tracing::subscriber::set_global_default(subscriber)
            .expect("no other global subscriber in the tests");
    });
    let buffer = Arc::new(Mutex::new(Vec::new()));
    CAPTURE.with(|capture| *capture.borrow_mut() = Some(buffer.clone()));
    let value = f();
    CAPTURE.with(|capture| *capture.borrow_mut() = None);
    let text = String::from_utf8_lossy(&buffer.lock().unwrap_or_else(PoisonError::into_inner))
        .into_owned();
    (value, text)
}

thread_local! {
    static CAPTURE: RefCell<Option<Arc<Mutex<Vec<u8>>>>> = const { RefCell::new(None) };
}

/// Writes to the current thread's capture buffer, or nowhere.
struct ThreadBuffer;

impl io::Write for ThreadBuffer {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        CAPTURE.with(|capture| {
            if let Some(buffer) = &*capture.borrow() {
                buffer
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend_from_slice(bytes);
            }
        });
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for ThreadBuffer {
    type Writer = ThreadBuffer;

    fn make_writer(&'a self) -> Self::Writer {
        ThreadBuffer
    }
}
