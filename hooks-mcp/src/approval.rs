//! Asking the person through the MCP client: when a hook wants a person's
//! yes and the client can elicit (ask its user a question in a form), the
//! gateway asks there; otherwise the configured approver answers (the
//! approval store and `hooks-approve`), or, with none, the call is denied.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use hooks_core::{ApprovalAnswer, ApprovalRequest, Approver, BoxFuture, printable};
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::Peer;
use serde_json::json;

/// The client connection of each session, for asking its user.
#[derive(Default)]
pub(crate) struct Peers(Mutex<HashMap<String, Peer<RoleServer>>>);

impl Peers {
    pub(crate) fn insert(&self, session: &str, peer: Peer<RoleServer>) {
        self.lock().insert(session.to_owned(), peer);
    }

    pub(crate) fn remove(&self, session: &str) {
        self.lock().remove(session);
    }

    fn get(&self, session: &str) -> Option<Peer<RoleServer>> {
        self.lock().get(session).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Peer<RoleServer>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Approvals asked of the person through the MCP client (elicitation).
///
/// Install it on the builder *after* anything that sets an approver (a
/// configuration file's `[approval]` table): that one becomes the fallback
/// for clients that cannot elicit. Give the same value to the gateway
/// ([`Gateway::with_client_approvals`](crate::Gateway::with_client_approvals)),
/// so it knows each session's client.
#[derive(Clone, Default)]
pub struct ClientApprovals(pub(crate) Arc<Peers>);

impl ClientApprovals {
    /// No client known yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many client connections are registered to be asked: one per open
    /// session, forgotten when its connection ends.
    pub fn connected(&self) -> usize {
        self.0.lock().len()
    }

    /// Makes the builder's approver ask through the client, falling back to
    /// the approver it had.
    pub fn install(&self, builder: hooks_core::HooksBuilder) -> hooks_core::HooksBuilder {
        let peers = Arc::clone(&self.0);
        builder.wrap_approver(move |fallback| Eliciting { peers, fallback })
    }
}

/// Asks through the session's MCP client when it declared it can elicit;
/// otherwise hands the request to the approver configured before it.
pub(crate) struct Eliciting {
    pub(crate) peers: Arc<Peers>,
    pub(crate) fallback: Option<Arc<dyn Approver>>,
}

impl Approver for Eliciting {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        let peer = self
            .peers
            .get(request.session().id())
            .filter(|peer| !peer.supported_elicitation_modes().is_empty());
        match (peer, &self.fallback) {
            (Some(peer), _) => Box::pin(elicit(peer, request)),
            (None, Some(fallback)) => fallback.decide(request),
            (None, None) => Box::pin(async {
                ApprovalAnswer::deny(
                    "the MCP client cannot be asked (it does not support elicitation), \
                     and no approval store is configured; denied",
                )
            }),
        }
    }
}

/// The question, as a form with one yes/no field.
async fn elicit(peer: Peer<RoleServer>, request: &ApprovalRequest) -> ApprovalAnswer {
    let who = peer.peer_info().map_or_else(
        || "the MCP client's user".to_owned(),
        |info| format!("the user of {}", info.client_info.name),
    );
    let mut message = printable(request.prompt(), true).into_owned();
    if let (Some(tool), Some(args)) = (request.tool(), request.args()) {
        // The prompt was redacted by the dispatcher; the arguments shown
        // after it must be too, or the secrets reach the client's screen.
        let args = args.to_string();
        let args = request
            .redactor()
            .and_then(|redactor| redactor.redact_text(&args))
            .unwrap_or(args);
        let _ = write!(
            message,
            "\n\nTool: {tool}\nArguments: {}",
            printable(&args, false)
        );
    }
    let schema = json!({
        "type": "object",
        "properties": {"approve": {"type": "boolean", "title": "Allow this call?"}},
        "required": ["approve"],
    });
    let schema: ElicitationSchema = match serde_json::from_value(schema) {
        Ok(schema) => schema,
        Err(error) => {
            return ApprovalAnswer::deny(format!("the approval form could not be built: {error}"));
        }
    };
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    };
    match peer.create_elicitation(params).await {
        Ok(result) => match result.action {
            ElicitationAction::Accept
                if result
                    .content
                    .as_ref()
                    .and_then(|content| content.get("approve"))
                    .and_then(serde_json::Value::as_bool)
                    == Some(true) =>
            {
                ApprovalAnswer::approve().by(format!("{who} (MCP elicitation)"))
            }
            ElicitationAction::Accept => ApprovalAnswer::deny("the person answered no")
                .by(format!("{who} (MCP elicitation)")),
            ElicitationAction::Decline => {
                ApprovalAnswer::deny("the person declined").by(format!("{who} (MCP elicitation)"))
            }
            _ => ApprovalAnswer::deny("the person cancelled the question")
                .by(format!("{who} (MCP elicitation)")),
        },
        Err(error) => ApprovalAnswer::deny(format!("the MCP client could not be asked: {error}")),
    }
}
