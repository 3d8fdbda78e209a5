//! **hooks-mcp**: a policy gateway in front of any MCP server.
//!
//! Put it between an MCP client (Claude Code, Cursor, your own agent) and
//! MCP servers, and every `tools/call` runs through a `hooks_core::Hooks`
//! dispatcher — linked hooks, the standard hooks of `hooks-std` configured
//! from a file, command / HTTP / prompt hooks declared in it — without
//! changing the agent or the server:
//!
//! - a pre-tool-use denial comes back as a tool result with `isError: true`
//!   and the reason (the model reads it), not a protocol error; rewritten
//!   arguments are what goes upstream;
//! - post-tool-use hooks (truncation, redaction, rewrites) see the upstream
//!   result as its MCP JSON and change what the client gets; a failed tool
//!   call goes to `post_tool_use_failure`;
//! - `tools/list` is filtered through the tool-filter hooks
//!   (`pre_model_request`), and a tool the filter hides cannot be called by
//!   name either (refused by [`FILTER_HOOK`], so the refusal is audited);
//! - each tool's definition is pinned when first seen ([`Pins`]): one that
//!   changes later (a "rug pull") is hidden and refused until accepted
//!   (`hooks-mcp pins accept`), and definitions carrying hidden
//!   instructions are flagged in `describe()` and the audit log ([`pins`]);
//! - resources (list, templates, read, subscribe), prompts (list, get) and
//!   completion are proxied too, capabilities advertised as the upstreams
//!   offer them; a resource read and a prompt get run through the hooks as
//!   the calls [`READ_RESOURCE`] (`resources:read`, `{"uri": ..}`) and
//!   [`GET_PROMPT`]`NAME` (`prompts:get:NAME`, the prompt's arguments), so
//!   audit, approvals, rate limits and redaction apply to them unchanged;
//!   MCP defines both as reads, so the read-only guard lets them through;
//!   the tool-filter hooks hide prompts and resources as they hide tools
//!   (their dispatch's `params.mcp_method` says which list);
//! - the upstream's progress reaches the calling client under the client's
//!   own `progressToken`; a client's `notifications/cancelled` cancels the
//!   upstream request; the client's roots are given to an upstream that asks
//!   outside a call when exactly one client is connected (always so over
//!   stdio; with several HTTP sessions, refused with an error saying so),
//!   and a client's `notifications/roots/list_changed` is passed on;
//! - an MCP connection is a `Session`, with the client's name as its agent
//!   (over Streamable HTTP, each MCP session is one, and the holder of the
//!   request's bearer token is its user: [`auth`], [`identity`]);
//! - a hook's `Ask` is put to the person through the client (MCP
//!   elicitation) when it can, otherwise to the configured approver (the
//!   approval store, answered with `hooks-approve`).
//!
//! Clients connect over stdio ([`serve_stdio`]) or Streamable HTTP
//! ([`serve_http`], [`HttpServer`], or [`http_service`] to mount in a server
//! of your own); upstream servers are child processes over stdio
//! ([`Upstream::spawn`]) or running servers over Streamable HTTP
//! ([`Upstream::connect_http`]).
//!
//! A configuration's `mcp_tool` hooks call tools on the upstreams
//! themselves: [`UpstreamCaller`] provides each upstream, by its name, as an
//! MCP server for them (`mcp_tool = { server = "guard", tool = "check" }`
//! with an `[[upstream]]` named `guard`); the `hooks-mcp` binary does so
//! for every upstream it starts.
//!
//! The crate's features are the standard hooks it is built with (`full`, the
//! default: every one): `read-only`, `truncate`, `rate-limit`, `audit-log`,
//! `approval`, `redis` and `postgres` pass through to hooks-config's of the
//! same names; a config table for a hook built without is refused, naming
//! the feature. A config file's `http` hooks are always available: the
//! gateway carries an HTTP client for its upstreams anyway.
//!
//! A crashed or hanging upstream gives tool errors naming it; the gateway
//! keeps serving, and starts a crashed child-process upstream again (with a
//! growing delay between attempts). An upstream's answer over
//! [`MAX_MESSAGE_BYTES`] fails its call at once with the size. Its stdout
//! carries only protocol messages (logs go to stderr).
//!
//! ```no_run
//! use hooks_core::Hooks;
//! use hooks_mcp::{Gateway, Upstream};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! let git = Upstream::spawn("git", &["uvx".into(), "mcp-server-git".into()]).await?;
//! let upstreams = vec![git];
//! let hooks = hooks_mcp::prepare(Hooks::builder(), &upstreams)?.build()?;
//! let gateway = Gateway::new(hooks, upstreams)?;
//! hooks_mcp::serve_stdio(gateway).await?;
//! # Ok(())
//! # }
//! ```

mod approval;
pub mod auth;
mod caller;
mod forward;
mod gateway;
mod http;
pub mod identity;
pub mod pins;
mod primitives;
mod relay;
mod result;
mod stdio;
mod upstream;

pub use approval::ClientApprovals;
pub use auth::{HttpAuth, Principal, Tokens};
pub use caller::UpstreamCaller;
pub use gateway::{FILTER_HOOK, GROUP, Gateway, NAMESPACE_SEPARATOR, prepare, tool_facts};
pub use http::{HttpServer, MCP_PATH, http_service, serve_http};
pub use pins::{PinMode, Pins};
pub use primitives::{GET_PROMPT, READ_RESOURCE};
pub use upstream::{DEFAULT_CALL_TIMEOUT, MAX_MESSAGE_BYTES, Upstream, UpstreamError};

use rmcp::ServiceExt;

/// Serves `gateway` to one client over this process's stdin and stdout,
/// until the client disconnects.
///
/// # Errors
///
/// The handshake with the client failed, or the connection broke.
///
/// Lines the client sends that are not messages the service can act on get a
/// JSON-RPC error (parse error, invalid request, invalid params) instead of
/// being dropped or misread.
pub async fn serve_stdio(gateway: Gateway) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // Non-blocking pipes where the streams are pipes (as MCP clients start
    // servers): no hand-off to a blocking thread per message.
    let (input, output) = rmcp::transport::stdio_pipes();
    let transport = stdio::Guarded::new(input, output);
    // Boxed: the handshake future is large (16 KB), and this runs once.
    let running = Box::pin(gateway.serve(transport)).await?;
    running.waiting().await?;
    Ok(())
}
