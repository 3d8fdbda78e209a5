//! One upstream MCP server: a child process spoken to over stdio, as an MCP
//! client, with the tools it offered when the gateway started.

use std::fmt;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::process::Command;

/// How long a call may take upstream before the gateway answers with a tool
/// error (the upstream keeps running; a later call may succeed).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A connected upstream server.
pub struct Upstream {
    name: String,
    client: RunningService<RoleClient, ()>,
    tools: Vec<Tool>,
    timeout: Duration,
}

/// An upstream that could not be started, or answered the handshake wrongly.
#[derive(Debug)]
pub struct UpstreamError {
    /// The upstream's name.
    pub upstream: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "upstream `{}`: {}", self.upstream, self.message)
    }
}

impl std::error::Error for UpstreamError {}

impl Upstream {
    /// Starts `command` (program and arguments) as a child process, speaks
    /// MCP to it over its stdin and stdout, and lists its tools. Its stderr
    /// is the gateway's: the gateway's own stdout carries only protocol
    /// messages.
    pub async fn spawn(name: impl Into<String>, command: &[String]) -> Result<Self, UpstreamError> {
        let name = name.into();
        let fail = |message: String| UpstreamError {
            upstream: name.clone(),
            message,
        };
        let (program, args) = command
            .split_first()
            .ok_or_else(|| fail("no command given".to_owned()))?;
        let transport = TokioChildProcess::new(Command::new(program).configure(|cmd| {
            cmd.args(args);
        }))
        .map_err(|error| fail(format!("cannot start `{program}`: {error}")))?;
        let client = ().serve(transport).await.map_err(|error| {
            fail(format!(
                "`{program}` did not complete the MCP handshake: {error}"
            ))
        })?;
        let tools = client
            .list_all_tools()
            .await
            .map_err(|error| fail(format!("could not list its tools: {error}")))?;
        Ok(Upstream {
            name,
            client,
            tools,
            timeout: DEFAULT_CALL_TIMEOUT,
        })
    }

    /// Bounds each call upstream (default [`DEFAULT_CALL_TIMEOUT`]).
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The upstream's name (the namespace of its tools when there are several).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tools it offered at start-up.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Calls `tool` with `args` upstream. A transport failure (the server
    /// crashed or closed the connection) or a call past the timeout is an
    /// `Err` with a message for the model; the server's own tool errors
    /// come back as results with `is_error` set.
    pub async fn call(
        &self,
        tool: &str,
        args: Map<String, Value>,
    ) -> Result<CallToolResult, String> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = Some(args);
        match tokio::time::timeout(self.timeout, self.client.call_tool(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(format!(
                "the upstream MCP server `{}` failed to answer: {error}",
                self.name
            )),
            Err(_elapsed) => Err(format!(
                "the upstream MCP server `{}` did not answer within {} s",
                self.name,
                self.timeout.as_secs()
            )),
        }
    }
}
