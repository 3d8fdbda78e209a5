//! The gateway: an MCP server whose tools are the upstreams' tools, with
//! every `tools/list` filtered and every `tools/call` run through a `Hooks`
//! dispatcher; resources, prompts and completion are proxied too
//! ([`primitives`](crate::primitives)). `PermissionRequest` and
//! `Notification`, a host's dialog and notices, are not dispatched here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use hooks_core::{
    Decision, Hook, Hooks, HooksBuilder, PreModelRequest, PreToolUse, RunError, Session, Source,
    ToolFacts, ToolHandle, json,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use crate::approval::ClientApprovals;
use crate::forward::Registered;
use crate::identity::Identity;
use crate::pins::{self, Pins};
use crate::primitives::{self, Primitives};
use crate::upstream::Upstream;
use crate::{relay, result};

/// Between an upstream's name and its tool's, when there are several upstreams.
pub const NAMESPACE_SEPARATOR: &str = "__";

/// The hook that refuses a call of a tool the tool filters hide from the
/// client: a refusal like any other, so observers (the audit log) see it.
pub const FILTER_HOOK: &str = "hooks_mcp::not_offered";

/// The group of the gateway's own hooks (keep it when scoping by group).
pub const GROUP: &str = "hooks_mcp";

/// Set on a call's session when the filters hide its tool; sessions are the
/// gateway's own, so no client can set it.
const NOT_OFFERED: &str = "hooks_mcp.not_offered";

/// Set on a call's session when no upstream has its tool: the call is
/// dispatched only to be refused, so that the audit log sees the attempt.
const UNKNOWN: &str = "hooks_mcp.unknown_tool";

/// Set on a resource read's or prompt get's session, with the reason, when
/// it is dispatched only to be refused (hidden, unknown, unroutable).
pub(crate) const REFUSED: &str = "hooks_mcp.refused";

/// Prepares a dispatcher's builder for a gateway in front of `upstreams`:
/// tells it their tools (a hook whose pattern matches none of them fails
/// the build), with what each server declares of them ([`tool_facts`]), and
/// adds [`FILTER_HOOK`].
///
/// # Errors
///
/// Two tools (or prompts) that would have the same exposed name, or a tool
/// named like a resource read or a prompt get ([`READ_RESOURCE`](crate::READ_RESOURCE),
/// [`GET_PROMPT`](crate::GET_PROMPT)): it would borrow their declared facts.
pub fn prepare(builder: HooksBuilder, upstreams: &[Upstream]) -> Result<HooksBuilder, String> {
    let refuse_hidden = Hook::new(FILTER_HOOK, |ctx: &mut PreToolUse| {
        if let Some(Value::String(reason)) = ctx.session().metadata_value(REFUSED) {
            Decision::deny(reason.clone())
        } else if ctx.session().metadata_value(UNKNOWN) == Some(&Value::Bool(true)) {
            Decision::deny(format!("no upstream offers a tool `{}`", ctx.tool()))
        } else if let Some(Value::String(reason)) = ctx.session().metadata_value(pins::REFUSED) {
            // A tool whose definition changed since it was pinned.
            Decision::deny(reason.clone())
        } else if ctx.session().metadata_value(NOT_OFFERED) == Some(&Value::Bool(true)) {
            Decision::deny(format!(
                "the tool `{}` is not offered to this client",
                ctx.tool()
            ))
        } else {
            Decision::Continue
        }
    })
    .priority(i32::MIN)
    .group(GROUP);
    Ok(builder.tools(tool_facts(upstreams)?).hook(refuse_hidden))
}

/// What each upstream declares of its tools, under the names the client
/// sees: the annotations it gives (`readOnlyHint`, `destructiveHint`,
/// `idempotentHint`, `openWorldHint`; a hint it leaves out is no fact, and
/// `destructiveHint` means nothing of a tool that only reads) and the input
/// schema, from [`Source::Mcp`], trusted as the upstream says
/// ([`Upstream::with_trusted_annotations`]).
///
/// # Errors
///
/// Two tools that would have the same exposed name.
///
/// Resource reads and prompt gets are calls too ([`READ_RESOURCE`](crate::READ_RESOURCE),
/// [`GET_PROMPT`](crate::GET_PROMPT)): declared reads, as MCP defines them.
pub fn tool_facts(upstreams: &[Upstream]) -> Result<Vec<ToolFacts>, String> {
    let (routes, order) = routes(upstreams)?;
    let mut facts: Vec<ToolFacts> = order
        .iter()
        .map(|name| {
            let route = &routes[name];
            let upstream = &upstreams[route.upstream];
            facts_of(name, &route.tool, upstream)
        })
        .collect();
    facts.extend(primitives::facts(upstreams, &order)?);
    Ok(facts)
}

fn facts_of(name: &str, tool: &Tool, upstream: &Upstream) -> ToolFacts {
    let mut facts = ToolFacts::new(name)
        .from(Source::Mcp {
            server: Arc::from(upstream.name()),
            trusted: upstream.trusts_annotations(),
        })
        .schema(Value::Object((*tool.input_schema).clone()));
    for flag in pins::flags_of(tool) {
        facts = facts.flag(flag);
    }
    let Some(hints) = &tool.annotations else {
        return facts;
    };
    if let Some(read_only) = hints.read_only_hint {
        facts = facts.with_read_only(read_only);
    }
    if let Some(destructive) = hints.destructive_hint
        && hints.read_only_hint != Some(true)
    {
        facts = facts.with_destructive(destructive);
    }
    if let Some(idempotent) = hints.idempotent_hint {
        facts = facts.with_idempotent(idempotent);
    }
    if let Some(open_world) = hints.open_world_hint {
        facts = facts.with_open_world(open_world);
    }
    facts
}

/// An MCP server in front of upstream MCP servers, enforcing a `Hooks`
/// dispatcher on every call. Clone it per client connection
/// ([`connection`](Self::connection)): each connection is one `Session`.
#[derive(Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
    /// Where each session's client is registered, to be asked for approvals.
    approvals: Option<ClientApprovals>,
    /// This connection's session, made on its first request (when the
    /// client's name is known).
    session: Arc<Connection>,
}

/// One client connection: its session, made on its first request, and
/// where its client was registered for approvals (unregistered on drop, so
/// an HTTP server's sessions do not pile up).
#[derive(Default)]
struct Connection {
    session: OnceLock<Session>,
    registered: OnceLock<ClientApprovals>,
    /// Among the gateway's connected clients (for roots and resource updates).
    client: OnceLock<Registered>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let (Some(session), Some(approvals)) = (self.session.get(), self.registered.get()) {
            approvals.0.remove(session.id());
        }
    }
}

struct Shared {
    hooks: Hooks,
    upstreams: Vec<Upstream>,
    /// Exposed name → where it goes.
    routes: HashMap<String, Route>,
    /// The exposed names, upstream by upstream, each in its server's order.
    order: Vec<String>,
    handles: HashMap<String, ToolHandle>,
    /// Which tools' definitions are as pinned.
    pins: Arc<Pins>,
    primitives: Primitives,
}

struct Route {
    upstream: usize,
    /// The tool as the client sees it (its exposed name).
    tool: Tool,
    /// Its name upstream.
    upstream_tool: String,
}

/// Numbers the connections of this process, for session ids.
static CONNECTIONS: AtomicU64 = AtomicU64::new(1);

impl Gateway {
    /// The names the client will see for the upstreams' tools: as they are
    /// with one upstream; `upstream__tool` with several. Give them to
    /// [`HooksBuilder::tools`](hooks_core::HooksBuilder::tools), so a hook
    /// whose pattern matches none fails at start-up.
    ///
    /// # Errors
    ///
    /// Two tools that would have the same exposed name.
    pub fn tool_names(upstreams: &[Upstream]) -> Result<Vec<String>, String> {
        let mut names = routes(upstreams)?.1;
        names.extend(primitives::names(upstreams));
        Ok(names)
    }

    /// A gateway enforcing `hooks` (built from [`prepare`]) in front of `upstreams`.
    ///
    /// # Errors
    ///
    /// Two tools (or prompts) that would have the same exposed name, a tool
    /// named like a resource read or a prompt get, or a dispatcher
    /// without [`FILTER_HOOK`] (not built from [`prepare`], or scoped by
    /// group without [`GROUP`]): a hidden tool's refusal would go unrecorded.
    pub fn new(hooks: Hooks, upstreams: Vec<Upstream>) -> Result<Self, String> {
        Self::with_pins(hooks, upstreams, Pins::in_memory())
    }

    /// A gateway as [`new`](Self::new) makes, whose tools' definitions are
    /// pinned in `pins` ([`Pins::in_dir`] keeps them in a state directory):
    /// a tool whose definition is not the pinned one is hidden and refused.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), or the pins file could not be written.
    pub fn with_pins(hooks: Hooks, upstreams: Vec<Upstream>, pins: Pins) -> Result<Self, String> {
        let (routes, order) = routes(&upstreams)?;
        // A tool named like a resource read or a prompt get: refused first.
        primitives::facts(&upstreams, &order)?;
        if !hooks
            .describe()
            .hooks()
            .iter()
            .any(|hook| hook.name == FILTER_HOOK)
        {
            return Err(format!(
                "the dispatcher lacks `{FILTER_HOOK}`: build it from `hooks_mcp::prepare(builder, &upstreams)` \
                 (and keep the group `{GROUP}` when scoping by group)"
            ));
        }
        // Pinned (the file written) only once the gateway is sure to start.
        let pins = Arc::new(pins);
        for (index, upstream) in upstreams.iter().enumerate() {
            let exposed = routes
                .iter()
                .filter(|(_, route)| route.upstream == index)
                .map(|(name, route)| (route.upstream_tool.clone(), name.clone()))
                .collect();
            pins.watch(upstream, exposed)?;
        }
        let handles = order
            .iter()
            .map(|name| (name.clone(), hooks.tool(name.clone())))
            .collect();
        let primitives = Primitives::new(&hooks, &upstreams, own_capabilities())?;
        Ok(Gateway {
            shared: Arc::new(Shared {
                hooks,
                upstreams,
                routes,
                order,
                handles,
                pins,
                primitives,
            }),
            approvals: None,
            session: Arc::default(),
        })
    }

    /// Asks approvals through each session's client (installed on the
    /// dispatcher's builder with [`ClientApprovals::install`]).
    #[must_use]
    pub fn with_client_approvals(mut self, approvals: ClientApprovals) -> Self {
        self.approvals = Some(approvals);
        self
    }

    /// The same gateway for another client connection: a session of its own.
    #[must_use]
    pub fn connection(&self) -> Self {
        Gateway {
            shared: Arc::clone(&self.shared),
            approvals: self.approvals.clone(),
            session: Arc::default(),
        }
    }

    /// The dispatcher the gateway enforces.
    pub fn hooks(&self) -> &Hooks {
        &self.shared.hooks
    }

    /// The upstreams, in the order given.
    pub(crate) fn upstreams(&self) -> &[Upstream] {
        &self.shared.upstreams
    }

    /// What it knows of resources, prompts and the connected clients.
    pub(crate) fn primitives(&self) -> &Primitives {
        &self.shared.primitives
    }

    /// This connection's number among the connected clients (registered on
    /// its first use).
    pub(crate) fn registered(&self, context: &RequestContext<RoleServer>) -> u64 {
        self.register(&context.peer)
    }

    fn register(&self, peer: &rmcp::service::Peer<RoleServer>) -> u64 {
        self.session
            .client
            .get_or_init(|| self.shared.primitives.clients().register(peer.clone()))
            .id()
    }

    /// This connection's session: one per MCP connection (per principal,
    /// client and conversation for the stateless revision: see
    /// [`identity`](crate::identity)), its user the authenticated principal,
    /// its agent the client's name.
    pub(crate) fn session(&self, context: &RequestContext<RoleServer>) -> &Session {
        self.session.session.get_or_init(|| {
            let identity = Identity::of(context);
            let stateless = Identity::stateless(context);
            let id = if stateless {
                identity.stateless_session_id()
            } else {
                format!(
                    "mcp-{}-{}",
                    std::process::id(),
                    CONNECTIONS.fetch_add(1, Ordering::Relaxed)
                )
            };
            let session = identity.apply(Session::new(id));
            // A stateless request cannot be asked anything (and its session
            // is shared): its approvals go to the configured approver.
            if let Some(approvals) = &self.approvals
                && !stateless
            {
                approvals.0.insert(session.id(), context.peer.clone());
                // Forgotten when the connection's last handle drops.
                let _ = self.session.registered.set(approvals.clone());
            }
            session
        })
    }

    /// The tools the tool-filter hooks (`pre_model_request`) offer this
    /// session, of `names` (or the prompts, resources or templates, as
    /// `method` says).
    pub(crate) async fn offered<'n>(
        &self,
        session: &Session,
        names: impl IntoIterator<Item = &'n str>,
        method: &str,
    ) -> Vec<String> {
        let names = names.into_iter().map(str::to_owned);
        // No filter to ask: every tool is offered (and no request is built
        // on every call for nothing).
        if self.shared.hooks.count::<PreModelRequest>() == 0 {
            return names.collect();
        }
        let mut request = PreModelRequest::new(session, names, json!({"mcp_method": method}));
        let _ = self.shared.hooks.dispatch(&mut request).await;
        request.tools().map(str::to_owned).collect()
    }

    /// One `tools/call`, through the hooks.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let name = request.name.as_ref();
        let Some(route) = self.shared.routes.get(name) else {
            // Refused by `FILTER_HOOK` before any other hook runs, so
            // observers (the audit log) record a model probing for tools.
            let session = self.session(context).clone().with_metadata(UNKNOWN, true);
            let mut pre = PreToolUse::new(
                &session,
                name.to_owned(),
                Value::Object(request.arguments.unwrap_or_default()),
            )
            .with_call_id(context.id.to_string());
            let _ = self.shared.hooks.dispatch(&mut pre).await;
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        };
        let mut session = self.session(context).clone();
        // A tool the filter hides from this client is not callable by name
        // either: refused by `FILTER_HOOK`, so the refusal is audited.
        if self
            .offered(&session, [name], "tools/call")
            .await
            .is_empty()
        {
            session = session.with_metadata(NOT_OFFERED, true);
        }
        // A changed definition is refused by `FILTER_HOOK`; flags go to the audit log.
        session = self.shared.pins.mark(name, session);
        let session_id = self.session(context).id();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let pre =
            PreToolUse::new(&session, name.to_owned(), args).with_call_id(context.id.to_string());
        let upstream = &self.shared.upstreams[route.upstream];
        let run = self.shared.handles[name]
            .run_call(pre, async |args: &Value| {
                let args = result::arguments(args).map_err(hooks_core::ToolError::new)?;
                // What the upstream asks or reports during the call goes to
                // this client; the client's cancellation cancels it upstream.
                match relay::call_tool(upstream, &route.upstream_tool, args, context, session_id)
                    .await
                {
                    Ok(answer) if answer.is_error == Some(true) => {
                        Err(result::to_tool_error(&answer))
                    }
                    Ok(answer) => Ok(result::to_value(&answer)),
                    Err(message) => Err(hooks_core::ToolError::new(message)),
                }
            })
            .await;
        // Context the hooks injected for the model, before and after the
        // call: MCP has no channel for it but the result, so it goes there,
        // as a text block after the tool's own content.
        let injected = [
            Some(run.pre().injected().text()),
            run.post().map(|post| post.injected().text()),
            run.failure().map(|failure| failure.injected().text()),
        ]
        .into_iter()
        .flatten()
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
        let mut answer = match run.into_result() {
            Ok(value) => result::from_value(value),
            Err(RunError::Denied(denial)) => result::error_result(denial.reason(), None),
            Err(RunError::Failed(error)) => result::error_result(error.message(), error.data()),
            Err(other) => result::error_result(other.message(), None),
        };
        if !injected.is_empty() {
            answer.content.push(ContentBlock::text(injected));
        }
        Ok(answer)
    }
}

/// Exposed names → routes, and the names in order; an error if two tools
/// would share a name.
fn routes(upstreams: &[Upstream]) -> Result<(HashMap<String, Route>, Vec<String>), String> {
    let namespaced = upstreams.len() > 1;
    let mut routes = HashMap::new();
    let mut order = Vec::new();
    for (index, upstream) in upstreams.iter().enumerate() {
        for tool in upstream.tools() {
            let exposed = if namespaced {
                format!("{}{NAMESPACE_SEPARATOR}{}", upstream.name(), tool.name)
            } else {
                tool.name.to_string()
            };
            let mut shown = tool.clone();
            shown.name = exposed.clone().into();
            let route = Route {
                upstream: index,
                tool: shown,
                upstream_tool: tool.name.to_string(),
            };
            if routes.insert(exposed.clone(), route).is_some() {
                return Err(format!(
                    "two upstream tools would both be `{exposed}`: give the upstreams distinct names"
                ));
            }
            order.push(exposed);
        }
    }
    Ok((routes, order))
}

/// What the gateway offers whatever its upstreams: tools and logging.
#[allow(deprecated)] // logging: deprecated by SEP-2577, still what 2025-11-25 clients speak
fn own_capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_tools()
        .enable_logging()
        .build()
}

// Each handler's work is boxed: rmcp moves every request's handler future
// into a task of its own (and copies it again when the task finishes), and
// that future is as large as the largest handler's — a tool call's, with
// the hooks' contexts and rmcp's request machinery, was 16 KB copied three
// times per request. Boxed, one allocation per request; the task is 5.6 KB.
impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(self.shared.primitives.capabilities().clone())
            .with_server_info(Implementation::new("hooks-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "A policy gateway: every tool call runs through the hooks configured for it. \
                 A refused call comes back as a tool error with the reason.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let session = self.session(&context).clone();
        let names = self.shared.order.iter().map(String::as_str);
        let offered = Box::pin(self.offered(&session, names, "tools/list")).await;
        let tools = self.shared.pins.shown(
            offered
                .iter()
                .filter_map(|name| self.shared.routes.get(name))
                .map(|route| &route.tool),
        );
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// The client's log level, passed to every upstream (their log
    /// messages are forwarded to the calling client); an upstream that does
    /// not log is no error.
    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what 2025-11-25 clients speak
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        for upstream in &self.shared.upstreams {
            Box::pin(upstream.set_level(request.clone())).await;
        }
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Box::pin(self.call(request, &context)).await.map(Into::into)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Box::pin(primitives::list_resources(self, &context)).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Box::pin(primitives::list_resource_templates(self, &context)).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(primitives::read_resource(self, request, &context))
            .await
            .map(Into::into)
    }

    #[allow(deprecated)] // legacy subscriptions: what 2025-11-25 clients speak
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(primitives::subscribe(self, request, &context)).await
    }

    #[allow(deprecated)] // legacy subscriptions: what 2025-11-25 clients speak
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(primitives::unsubscribe(self, request, &context)).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Box::pin(primitives::list_prompts_for(self, &context)).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Box::pin(primitives::get_prompt(self, request, &context))
            .await
            .map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        Box::pin(primitives::complete(self, request, &context)).await
    }

    /// The client is now among those an upstream may ask for roots outside
    /// a call; if it has roots, every upstream hears they changed (and may
    /// ask for them, as `server-filesystem` does).
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.register(&context.peer);
        let has_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if has_roots {
            primitives::roots_changed(self.upstreams()).await;
        }
    }

    /// The client's roots changed: every upstream hears it.
    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        primitives::roots_changed(self.upstreams()).await;
    }
}
