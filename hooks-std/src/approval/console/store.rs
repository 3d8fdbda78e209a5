//! What the console needs from a store: the pending requests, and a way to
//! answer one. Every [`ApprovalStore`] has both, so the SQLite store (and any
//! other, a database server's) serves the console as it is.

use hooks_core::BoxFuture;

use crate::approval::store::{Answering, ApprovalStore, Request, Status, StoreError};

/// The two operations the console performs on a store.
pub trait ConsoleStore: Send + Sync + 'static {
    /// Requests waiting for a person, oldest first.
    fn pending(&self) -> BoxFuture<'_, Result<Vec<Request>, StoreError>>;

    /// Records a person's answer (once, for the session, or no, and who gave
    /// it). `false` if the request was no longer pending: the first answer wins.
    fn respond(&self, id: i64, answer: Answering) -> BoxFuture<'_, Result<bool, StoreError>>;
}

impl<S: ApprovalStore + ?Sized> ConsoleStore for std::sync::Arc<S> {
    fn pending(&self) -> BoxFuture<'_, Result<Vec<Request>, StoreError>> {
        self.list(Status::Pending)
    }

    fn respond(&self, id: i64, answer: Answering) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.answer(id, answer)
    }
}

impl<S: ApprovalStore> ConsoleStore for S {
    fn pending(&self) -> BoxFuture<'_, Result<Vec<Request>, StoreError>> {
        self.list(Status::Pending)
    }

    fn respond(&self, id: i64, answer: Answering) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.answer(id, answer)
    }
}
