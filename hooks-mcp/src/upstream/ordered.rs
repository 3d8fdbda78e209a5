//! What an upstream says about a request in flight — its log messages and
//! progress — reaches the client before the request's answer does.
//!
//! rmcp hands each notification to the client handler in a task of its own
//! and each answer straight to the waiting request, so an answer can overtake
//! the log messages sent before it: the client got the result with one of
//! three log messages missing, one run in three (the conformance suite's
//! `tools-call-with-logging`). This transport, between the upstream's and
//! rmcp, takes the messages to forward off the stream in order, queues them
//! for one task that forwards them one after the other, and holds back an
//! answer until everything queued before it has been forwarded.

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{GetMeta, JsonRpcMessage, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{mpsc, watch};

use crate::forward::InFlight;

/// `inner`, with what is forwarded to the calling client kept in order with
/// the answers.
pub(crate) struct Ordered<T> {
    inner: T,
    queue: mpsc::UnboundedSender<ServerNotification>,
    /// How many notifications were queued so far.
    queued: u64,
    /// How many the forwarding task has passed on.
    forwarded: watch::Receiver<u64>,
    /// An answer waiting for the notifications before it.
    held: Option<RxJsonRpcMessage<RoleClient>>,
}

impl<T> Ordered<T> {
    /// Orders `inner`'s messages; the notifications go to the client with a
    /// call in flight in `in_flight`.
    pub(crate) fn new(inner: T, in_flight: Arc<InFlight>) -> Self {
        let (queue, mut queued) = mpsc::unbounded_channel::<ServerNotification>();
        let (done, forwarded) = watch::channel(0_u64);
        tokio::spawn(async move {
            let mut count = 0_u64;
            while let Some(notification) = queued.recv().await {
                forward(&in_flight, notification).await;
                count += 1;
                // Nobody waits any more once the transport is gone.
                if done.send(count).is_err() {
                    return;
                }
            }
        });
        Ordered {
            inner,
            queue,
            queued: 0,
            forwarded,
            held: None,
        }
    }
}

/// Whether the gateway forwards `notification` itself, in order: log
/// messages and progress that belong to no subscription (rmcp routes those).
fn ours(notification: &ServerNotification) -> bool {
    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what 2025-11-25 servers send
    let kind = matches!(
        notification,
        ServerNotification::LoggingMessageNotification(_)
            | ServerNotification::ProgressNotification(_)
    );
    kind && notification.get_meta().subscription_id().is_none()
}

/// Passes `notification` on: progress to the client whose request it is
/// about; a log message to the client with a call in flight, if there is
/// exactly one (otherwise there is nobody it surely belongs to).
async fn forward(in_flight: &InFlight, notification: ServerNotification) {
    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what 2025-11-25 clients show
    match notification {
        ServerNotification::ProgressNotification(progress) => {
            in_flight.forward_progress(progress.params).await;
        }
        ServerNotification::LoggingMessageNotification(message) => {
            if let Ok(client) = in_flight.client() {
                let _ = client.notify_logging_message(message.params).await;
            }
        }
        _ => {}
    }
}

impl<T> Transport<RoleClient> for Ordered<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            // Cancel-safe, as rmcp's loop needs: the held answer stays in
            // `self` until everything before it has been forwarded.
            if self.held.is_some() {
                let queued = self.queued;
                let _ = self.forwarded.wait_for(|done| *done >= queued).await;
                return self.held.take();
            }
            let message = self.inner.receive().await?;
            match message {
                JsonRpcMessage::Notification(notification) if ours(&notification.notification) => {
                    if self.queue.send(notification.notification).is_ok() {
                        self.queued += 1;
                    }
                }
                JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_)
                    if *self.forwarded.borrow() < self.queued =>
                {
                    self.held = Some(message);
                }
                other => return Some(other),
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
