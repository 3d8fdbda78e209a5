//! An upstream's `notifications/tools/list_changed`, turned into its new
//! tool list for whoever listens (the gateway's pins): a server that
//! redefines a tool while running is checked again at once.

use std::sync::OnceLock;

use rmcp::RoleClient;
use rmcp::model::Tool;
use rmcp::service::Peer;

/// Gets the new list, or why it could not be had.
type Listener = Box<dyn Fn(Result<Vec<Tool>, String>) + Send + Sync>;

/// Where an upstream's new tool lists go.
#[derive(Default)]
pub(crate) struct ToolWatch {
    listener: OnceLock<Listener>,
}

impl ToolWatch {
    /// Hands each new list of the upstream's tools to `listener` (the first
    /// listener set stays).
    pub(crate) fn listen(
        &self,
        listener: impl Fn(Result<Vec<Tool>, String>) + Send + Sync + 'static,
    ) {
        let _ = self.listener.set(Box::new(listener));
    }

    /// The upstream said its tools changed: lists them again.
    pub(crate) async fn changed(&self, upstream: &Peer<RoleClient>) {
        let Some(listener) = self.listener.get() else {
            return;
        };
        listener(
            upstream
                .list_all_tools()
                .await
                .map_err(|error| error.to_string()),
        );
    }
}
