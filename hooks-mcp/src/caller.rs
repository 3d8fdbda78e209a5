//! The upstreams as MCP servers for `mcp_tool` hooks: a configuration's
//! hook `mcp_tool = { server = "guard", tool = "check" }` calls the tool
//! `check` on the upstream named `guard`, over the gateway's own connection
//! to it (not through the gateway: the call runs no hooks).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use hooks_config::{Config, McpCaller};
use hooks_core::{BoxFuture, Value};

use crate::result;
use crate::upstream::{Link, Upstream, call_tool};

/// Calls tools on connected [`Upstream`]s, for the `mcp_tool` hooks of a
/// configuration ([`hooks_config::McpCaller`]): the server a hook names is
/// the upstream of that name.
///
/// A call answers the result's text blocks, joined by line breaks (or, with
/// none, its structured content as JSON), which the hook reads as a command
/// hook's stdout: hook JSON, `{"ok": ...}`, or plain text. A result with
/// `isError` is an `Err` with its text, as is a server that is not
/// connected, a broken connection, or a call past the upstream's timeout
/// ([`Upstream::with_call_timeout`]): a hook failure, so guards fail closed.
///
/// The caller holds the upstreams' connections, not the upstreams: make it
/// before handing them to [`Gateway::new`](crate::Gateway::new). The
/// `hooks-mcp` binary does this for every upstream it starts (the
/// `[[upstream]]` entries and the server after `--`).
///
/// ```no_run
/// use hooks_core::Hooks;
/// use hooks_mcp::{Gateway, Upstream, UpstreamCaller};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// // hooks.toml:
/// //   [[upstream]]
/// //   name = "guard"
/// //   command = ["my-guard-server"]
/// //
/// //   [[hooks]]
/// //   event = "pre_tool_use"
/// //   mcp_tool = { server = "guard", tool = "check", arguments = { tool = "${tool_name}" } }
/// let config = hooks_config::load("hooks.toml")?;
/// let mut upstreams = Vec::new();
/// for declared in config.upstreams() {
///     upstreams.push(Upstream::spawn(declared.name.clone(), &declared.command).await?);
/// }
/// // Every upstream, by its name, as an MCP server the hooks may call.
/// let config = UpstreamCaller::new(&upstreams).provide(config);
/// let builder = hooks_mcp::prepare(Hooks::builder(), &upstreams)?;
/// let hooks = config.apply(builder)?.build()?;
/// let gateway = Gateway::new(hooks, upstreams)?;
/// hooks_mcp::serve_stdio(gateway).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct UpstreamCaller {
    servers: Arc<HashMap<String, Server>>,
}

/// One upstream's connection.
struct Server {
    link: Arc<Link>,
    timeout: Duration,
}

impl UpstreamCaller {
    /// A caller of `upstreams`' tools, each upstream under its
    /// [`name`](Upstream::name), each call bounded by its call timeout.
    pub fn new(upstreams: &[Upstream]) -> Self {
        let servers = upstreams
            .iter()
            .map(|upstream| {
                let (name, link, timeout) = upstream.handle();
                (name, Server { link, timeout })
            })
            .collect();
        UpstreamCaller {
            servers: Arc::new(servers),
        }
    }

    /// The names of the servers it calls, sorted.
    pub fn servers(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.servers.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// Provides every upstream to `config` as the MCP server of its name
    /// ([`Config::mcp`]), for its `mcp_tool` hooks. A hook naming a server
    /// that is none of them still fails [`Config::apply`].
    #[must_use]
    pub fn provide(&self, config: Config) -> Config {
        let mut names: Vec<&String> = self.servers.keys().collect();
        names.sort_unstable();
        names.into_iter().fold(config, |config, name| {
            config.mcp(name.clone(), self.clone())
        })
    }
}

impl McpCaller for UpstreamCaller {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let Some(upstream) = self.servers.get(server) else {
                return Err(format!(
                    "no upstream MCP server `{server}` is connected (connected: {})",
                    match self.servers().join(", ") {
                        names if names.is_empty() => "none".to_owned(),
                        names => names,
                    }
                ));
            };
            let Value::Object(arguments) = arguments else {
                return Err(format!(
                    "the arguments for `{tool}` are {arguments}, not a JSON object"
                ));
            };
            let answer = call_tool(&upstream.link, upstream.timeout, tool, arguments).await?;
            if answer.is_error == Some(true) {
                return Err(result::error_message(&answer));
            }
            Ok(result::text(&answer)
                .or_else(|| answer.structured_content.as_ref().map(Value::to_string))
                .unwrap_or_default())
        })
    }
}
