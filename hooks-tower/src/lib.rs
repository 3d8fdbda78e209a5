//! **hooks-tower**: a [`tower`](https://docs.rs/tower) `Layer` that runs a
//! `hooks_core::Hooks` dispatcher around any service that runs tool calls.
//!
//! Wrap the service once and every call gets the pre-tool-use hooks (a
//! denial never reaches the service; rewritten arguments do), then the
//! post-tool-use hooks on its result, or the post-tool-use-failure hooks on
//! its error. It composes with tower's own layers: a timeout *inside* ours
//! makes a slow tool a failure the hooks see; a concurrency limit *outside*
//! ours bounds the calls, hooks included. `PermissionRequest` is not
//! dispatched: a service has no permission dialog to answer.
//!
//! ```
//! use std::time::Duration;
//! use hooks_core::prelude::*;
//! use hooks_tower::{HooksLayer, ToolRequest};
//! use tower::{ServiceBuilder, ServiceExt, service_fn};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let hooks = Hooks::builder()
//!     .without_linked()
//!     .hook(Hook::new("no_drops", |ctx: &mut PreToolUse| {
//!         if ctx.args()["query"].as_str().is_some_and(|q| q.starts_with("DROP")) {
//!             Decision::deny("DROP is not allowed")
//!         } else {
//!             Decision::Continue
//!         }
//!     }))
//!     .build()
//!     .unwrap();
//! let tools = ServiceBuilder::new()
//!     .concurrency_limit(8)
//!     .layer(HooksLayer::new(hooks))
//!     .timeout(Duration::from_secs(30))
//!     .service(service_fn(|call: ToolRequest| async move {
//!         Ok::<_, std::io::Error>(json!({"ran": call.tool}))
//!     }));
//!
//! let session = Session::new("s1");
//! let refused = tools.clone().oneshot(ToolRequest::new(&session, "sql", json!({"query": "DROP t"}))).await;
//! assert_eq!(refused.unwrap_err().to_string(), "denied by `no_drops`: DROP is not allowed");
//! let ran = tools.oneshot(ToolRequest::new(&session, "sql", json!({"query": "SELECT 1"}))).await;
//! assert_eq!(ran.unwrap(), json!({"ran": "sql"}));
//! # }
//! ```

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hooks_core::{
    Denial, Hooks, Now, PostToolUse, PostToolUseFailure, PreToolUse, Session, ToolError, Value,
};
use tower_layer::Layer;
use tower_service::Service;

/// A tool call, as a tool service takes it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolRequest {
    /// Who is calling.
    pub session: Session,
    /// The tool.
    pub tool: Cow<'static, str>,
    /// The provider's id for the call, if any.
    pub call_id: Option<Arc<str>>,
    /// Its arguments (as the pre-tool-use hooks left them, when the service
    /// under the layer gets it).
    pub args: Value,
}

impl ToolRequest {
    /// A call of `tool` with `args` in `session`.
    pub fn new(session: &Session, tool: impl Into<Cow<'static, str>>, args: Value) -> Self {
        ToolRequest {
            session: session.clone(),
            tool: tool.into(),
            call_id: None,
            args,
        }
    }

    /// Sets the provider's id for the call.
    #[must_use]
    pub fn with_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(id.into());
        self
    }
}

/// Why a hooked call has no result.
#[derive(Debug)]
#[non_exhaustive]
pub enum HookedError<E> {
    /// A pre-tool-use hook refused the call; the service was not called.
    Denied(Denial),
    /// The service failed (its error, as the failure hooks left its
    /// message, and the error itself), or a post-tool-use hook turned its
    /// result into an error (no source).
    Failed {
        /// What to tell the model.
        error: ToolError,
        /// The service's own error, for the layers above (a timeout's `Elapsed`).
        source: Option<E>,
    },
}

impl<E> HookedError<E> {
    /// What to tell the model.
    pub fn message(&self) -> &str {
        match self {
            HookedError::Denied(denial) => denial.reason(),
            HookedError::Failed { error, .. } => error.message(),
        }
    }
}

impl<E> fmt::Display for HookedError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HookedError::Denied(denial) => denial.fmt(f),
            HookedError::Failed { error, .. } => write!(f, "the tool failed: {error}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display + 'static> std::error::Error for HookedError<E> {}

/// Wraps a tool service in a `Hooks` dispatcher.
#[derive(Clone)]
pub struct HooksLayer {
    hooks: Hooks,
}

impl HooksLayer {
    /// A layer running `hooks`.
    pub fn new(hooks: Hooks) -> Self {
        HooksLayer { hooks }
    }
}

impl<S> Layer<S> for HooksLayer {
    type Service = HooksService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HooksService {
            hooks: self.hooks.clone(),
            inner,
        }
    }
}

/// A tool service with the hooks around it (made by [`HooksLayer`]).
#[derive(Clone)]
pub struct HooksService<S> {
    hooks: Hooks,
    inner: S,
}

/// The future of a hooked call.
pub type HookedFuture<E> = Pin<Box<dyn Future<Output = Result<Value, HookedError<E>>> + Send>>;

impl<S> Service<ToolRequest> for HooksService<S>
where
    S: Service<ToolRequest, Response = Value> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: fmt::Display + Send,
{
    type Response = Value;
    type Error = HookedError<S::Error>;
    type Future = HookedFuture<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner
            .poll_ready(cx)
            .map_err(|error| HookedError::Failed {
                error: ToolError::new(format!("the tool service is not available: {error}")),
                source: Some(error),
            })
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        // The instance `poll_ready` readied goes into the future; a clone
        // stays for the next call (tower's usual hand-over).
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let hooks = self.hooks.clone();
        // The box first, the future written into it: built on the stack
        // and moved in, its whole size would be copied per call.
        let future = Box::write(Box::new_uninit(), hooked(hooks, inner, request));
        Box::into_pin(future)
    }
}

/// One call: pre-hooks, the service, then post- or failure hooks.
async fn hooked<S>(
    hooks: Hooks,
    mut inner: S,
    request: ToolRequest,
) -> Result<Value, HookedError<S::Error>>
where
    S: Service<ToolRequest, Response = Value>,
    S::Error: fmt::Display,
{
    let ToolRequest {
        session,
        tool,
        call_id,
        args,
    } = request;
    let mut pre = PreToolUse::new(&session, tool.clone(), args);
    if let Some(id) = &call_id {
        pre = pre.with_call_id(Arc::clone(id));
    }
    // Run now: only a hook that really waits puts a dispatch future in this one.
    let outcome = match hooks.dispatch_now(&mut pre) {
        Now::Done(outcome) => outcome,
        Now::Wait(rest) => rest.await,
    };
    if let Some(denial) = outcome.into_denial() {
        return Err(HookedError::Denied(denial));
    }
    // No hook to see the call after it ran: the service takes the
    // arguments, and its answer is the result, as it would be after an
    // empty dispatch (nothing to copy, nothing to dispatch).
    if hooks.count::<PostToolUse>() == 0 && hooks.count::<PostToolUseFailure>() == 0 {
        let call = ToolRequest {
            session,
            tool,
            call_id,
            args: pre.into_args(),
        };
        return inner
            .call(call)
            .await
            .map_err(|source| HookedError::Failed {
                error: ToolError::new(source.to_string()),
                source: Some(source),
            });
    }
    let call = ToolRequest {
        session,
        tool,
        call_id,
        args: pre.args().clone(),
    };
    // Boxed: the post-hooks' state is paid by calls that have them.
    Box::pin(after(hooks, inner, pre, call)).await
}

/// The service, then the post- or failure hooks on its answer.
async fn after<S>(
    hooks: Hooks,
    mut inner: S,
    pre: PreToolUse,
    call: ToolRequest,
) -> Result<Value, HookedError<S::Error>>
where
    S: Service<ToolRequest, Response = Value>,
    S::Error: fmt::Display,
{
    match inner.call(call).await {
        Ok(value) => {
            let mut post = PostToolUse::from_pre(pre, Ok(value));
            let _ = hooks.dispatch(&mut post).await;
            post.into_result().map_err(|message| HookedError::Failed {
                error: ToolError::new(message),
                source: None,
            })
        }
        Err(source) => {
            let mut failure = PostToolUseFailure::from_pre(pre, ToolError::new(source.to_string()));
            let _ = hooks.dispatch(&mut failure).await;
            Err(HookedError::Failed {
                error: failure.into_error(),
                source: Some(source),
            })
        }
    }
}
