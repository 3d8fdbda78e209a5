//! MCP tool hooks: a tool on an MCP server judges the event. You bring the
//! connection (an [`McpCaller`]; hooks-mcp has one over its upstreams); the
//! hook calls the tool with its arguments, the event's values filled in, and
//! reads the tool's text as a command's stdout: hook JSON, `{"ok": ...}`, or
//! plain text.

use std::sync::Arc;
use std::time::Duration;

use hooks_core::{BoxFuture, Deferred, HookError, Value, Verdict};

use crate::prompt::read_answer;
use crate::protocol::{ProtocolEvent, parse_output};
use crate::template::JsonTemplate;

/// A way to call tools on MCP servers. Implement it over your MCP client;
/// tests use a fake.
///
/// ```
/// use hooks_config::McpCaller;
/// use hooks_core::{BoxFuture, Value};
///
/// /// Allows everything, whatever server it is asked for.
/// struct Lenient;
///
/// impl McpCaller for Lenient {
///     fn call<'a>(&'a self, _server: &'a str, _tool: &'a str, _arguments: Value)
///         -> BoxFuture<'a, Result<String, String>> {
///         Box::pin(async { Ok(r#"{"ok": true}"#.to_owned()) })
///     }
/// }
/// ```
pub trait McpCaller: Send + Sync + 'static {
    /// Calls `tool` on `server` (the name the caller was provided under) with
    /// `arguments`, a JSON object. Answers the result's text (its text
    /// contents, joined; or its structured content as JSON), or says why
    /// there is none — a result with `isError` included, which fails the
    /// hook (guards fail closed).
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
    ) -> BoxFuture<'a, Result<String, String>>;
}

/// A hook that calls an MCP tool.
#[derive(Clone)]
pub struct McpToolHook {
    server: String,
    tool: String,
    arguments: Option<Arc<JsonTemplate>>,
    caller: Arc<dyn McpCaller>,
    timeout: Duration,
}

impl McpToolHook {
    /// A hook calling `tool` on `server` through `caller`, with the event
    /// itself as the arguments, and 60 seconds.
    pub fn new(
        server: impl Into<String>,
        tool: impl Into<String>,
        caller: Arc<dyn McpCaller>,
    ) -> Self {
        McpToolHook {
            server: server.into(),
            tool: tool.into(),
            arguments: None,
            caller,
            timeout: Duration::from_secs(60),
        }
    }

    /// Sets the arguments: a JSON object whose strings may hold variables
    /// (`"${tool_input.path}"`), filled in from the event on each call.
    pub fn arguments(mut self, template: Value) -> Result<Self, String> {
        if !template.is_object() {
            return Err("`arguments` must be a table (MCP tools take named arguments)".to_owned());
        }
        self.arguments = Some(Arc::new(JsonTemplate::parse(template)?));
        Ok(self)
    }

    pub(crate) fn with_template(mut self, template: Option<Arc<JsonTemplate>>) -> Self {
        self.arguments = template;
        self
    }

    /// Sets the timeout for the call.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl McpToolHook {
    /// Runs for `ctx`, shown `event`: its input, perhaps with more added
    /// (the kept transcript's path).
    pub(crate) fn call_with<'a, C: ProtocolEvent>(
        &'a self,
        ctx: &'a mut C,
        event: hooks_core::Value,
    ) -> Deferred<'a, Verdict> {
        Deferred::Later(Box::pin(async move {
            let arguments = match &self.arguments {
                Some(template) => template.render(&event)?,
                None => event,
            };
            let what = format!("MCP tool `{}` on `{}`", self.tool, self.server);
            let text = tokio::time::timeout(
                self.timeout,
                self.caller.call(&self.server, &self.tool, arguments),
            )
            .await
            .map_err(|_| HookError::TimedOut(self.timeout))?
            .map_err(|error| HookError::failed(format!("{what} failed: {error}")))?;
            let reply = if text.trim_start().starts_with(['{', '`']) {
                read_answer(&text, &what)?
            } else {
                parse_output(&text)?
            };
            ctx.apply(reply)
        }))
    }
}
