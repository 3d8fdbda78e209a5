//! The store's own thread: a tokio runtime of its own where the connection
//! lives and every command runs, so no decision depends on the runtime of
//! whoever called first.

use std::sync::Arc;
use std::sync::mpsc;

use tokio::runtime::{Builder, Handle};
use tokio::sync::{Semaphore, oneshot};

use super::StoreError;

/// The most commands waiting for Redis at once, per store: past it a
/// decision is refused at once (denied, saying so) instead of queued, so a
/// flood of calls while Redis is slow grows neither memory nor tasks.
pub const REDIS_MAX_WAITING: usize = 4_096;

/// A thread running a current-thread runtime until the worker is dropped.
pub(super) struct Worker {
    handle: Handle,
    waiting: Arc<Semaphore>,
    /// Dropped with the worker: the thread's runtime then stops, ending
    /// its tasks and closing its connections.
    _stop: oneshot::Sender<()>,
}

impl Worker {
    /// Starts the thread and its runtime (timers and sockets enabled).
    pub(super) fn start(name: &str) -> Result<Worker, StoreError> {
        let failed = |error: String| {
            StoreError::new(
                name.to_owned(),
                format!("its connection thread could not start: {error}"),
            )
        };
        let (handle_tx, handle_rx) = mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("hooks-std-redis".to_owned())
            .spawn(move || {
                let runtime = match Builder::new_current_thread().enable_all().build() {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = handle_tx.send(Err(error.to_string()));
                        return;
                    }
                };
                let _ = handle_tx.send(Ok(runtime.handle().clone()));
                // Runs the spawned commands until the worker is dropped.
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })
            .map_err(|error| failed(error.to_string()))?;
        let handle = handle_rx
            .recv()
            .map_err(|error| failed(error.to_string()))?
            .map_err(failed)?;
        Ok(Worker {
            handle,
            waiting: Arc::new(Semaphore::new(REDIS_MAX_WAITING)),
            _stop: stop,
        })
    }

    /// Runs `work` on the worker's runtime; its answer comes back to any
    /// executor. `name` is what a refusal names (the store).
    pub(super) fn run<T: Send + 'static>(
        &self,
        name: &str,
        work: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static {
        let permit = Arc::clone(&self.waiting).try_acquire_owned();
        let name = name.to_owned();
        let answer = permit.map(|permit| {
            let (answer, receive) = oneshot::channel();
            self.handle.spawn(async move {
                let _ = answer.send(work.await);
                drop(permit);
            });
            receive
        });
        async move {
            match answer {
                Ok(receive) => receive.await.unwrap_or_else(|_| {
                    Err(StoreError::new(
                        name,
                        "its connection thread stopped before answering",
                    ))
                }),
                Err(_) => Err(StoreError::new(
                    name,
                    format!(
                        "busy: {REDIS_MAX_WAITING} commands already wait for an answer; \
                         try again shortly"
                    ),
                )),
            }
        }
    }
}
