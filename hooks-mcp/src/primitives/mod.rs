//! The MCP primitives besides tools, proxied between the client and the
//! upstreams: resources (list, templates, read, subscribe), prompts (list,
//! get) and completion.
//!
//! **Through the hooks.** A resource read and a prompt get are what a tool
//! call is to the hooks: a `PreToolUse` / `PostToolUse` dispatch, so the
//! audit log, approvals, rate limits, redaction and truncation apply to them
//! unchanged, with no new event for hooks to learn. Their names cannot be a
//! well-formed MCP tool's (MCP tool names have no `:`; an upstream tool that
//! would share one is a start-up error):
//!
//! | MCP request | the call hooks see | its arguments |
//! |---|---|---|
//! | `resources/read` | [`READ_RESOURCE`] (`resources:read`) | `{"uri": "..."}` |
//! | `prompts/get` | [`GET_PROMPT`] + the prompt's name (`prompts:get:code_review`) | the prompt's arguments |
//!
//! Both are declared to the tool catalog as reads (source: the MCP
//! specification, [`Source::Host`] `mcp`), so the read-only guard lets them
//! through. What post-tool-use hooks see and change is the MCP result as
//! JSON (`{"contents": [..]}`, `{"messages": [..]}`). A refusal comes back
//! as a JSON-RPC error with the reason (MCP has no error result for these),
//! an upstream's own error with its code.
//!
//! **Filters.** `resources/list`, `resources/templates/list` and
//! `prompts/list` go through the tool-filter hooks (`pre_model_request`) as
//! `tools/list` does, one dispatch per list, whose `params.mcp_method` says
//! which list it is and whose offered "tools" are its items: the prompts'
//! names, the resources' URIs, the templates' URI templates. What a filter
//! hides is not listed, and not readable or gettable by name either (the
//! filters are asked again with `mcp_method` `resources/read` or
//! `prompts/get`): refused by [`FILTER_HOOK`](crate::FILTER_HOOK), so the
//! refusal is audited. A config file's hook hides them with `hiddenPrompts`
//! and `hiddenResources`, as `hiddenTools` hides tools.
//!
//! **Several upstreams.** Prompts are namespaced like tools
//! (`upstream__name`). Resource URIs are the upstreams' own strings: a read
//! goes to the upstream that listed the URI, or else to the one whose
//! template matches it; a URI two upstreams list (or two upstreams'
//! templates match) is refused, naming both. Completion follows the prompt
//! or the template it is for.
//!
//! Prompts are listed once, at start-up, as tools are; resources are listed
//! from the upstreams at each request (they change, and say so with
//! `notifications/resources/list_changed`, which is passed on).

mod hooked;
mod prompts;
mod resources;
mod template;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hooks_core::{Hooks, Source, ToolFacts, ToolHandle};
use rmcp::RoleClient;
use rmcp::model::{Prompt, PromptsCapability, ResourcesCapability, ServerCapabilities};
use rmcp::service::Peer;
use serde_json::{Map, Value, json};

use crate::forward::Clients;
use crate::gateway::NAMESPACE_SEPARATOR;
use crate::upstream::Upstream;

/// The name hooks see for every resource read (`resources/read`); the URI
/// is its argument `uri`.
pub const READ_RESOURCE: &str = "resources:read";

/// What a prompt get's name starts with (`prompts:get:code_review`); the
/// prompt's arguments are its arguments.
pub const GET_PROMPT: &str = "prompts:get:";

/// The upstream's prompts, if it offers any (every page).
pub(crate) async fn list_prompts(client: &Peer<RoleClient>) -> Result<Vec<Prompt>, String> {
    let offers = client
        .peer_info()
        .is_some_and(|info| info.capabilities.prompts.is_some());
    if !offers {
        return Ok(Vec::new());
    }
    client
        .list_all_prompts()
        .await
        .map_err(|error| format!("could not list its prompts: {error}"))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Tells every upstream that the client's roots changed.
pub(crate) async fn roots_changed(upstreams: &[Upstream]) {
    for upstream in upstreams {
        let peer = match upstream.peer() {
            Ok(peer) => peer,
            // Down: it asks for the roots again when it is back.
            Err(_down) => continue,
        };
        if let Err(error) = peer.notify_roots_list_changed().await {
            tracing::warn!(upstream = %upstream.name(), %error, "could not tell the upstream its client's roots changed");
        }
    }
}

/// The call name of the prompt the client knows as `name`.
pub(crate) fn prompt_call(name: &str) -> String {
    format!("{GET_PROMPT}{name}")
}

/// What the gateway knows of the primitives: the prompts' routes, who
/// offers resources, the latest resource listings, the connected clients.
pub(crate) struct Primitives {
    prompts: HashMap<String, PromptRoute>,
    /// The exposed prompt names, upstream by upstream.
    prompt_order: Vec<String>,
    /// The upstreams that offer resources (their indexes).
    resource_upstreams: Vec<usize>,
    /// Where each resource URI was last listed (one upstream, or several).
    listed: Mutex<HashMap<String, Vec<usize>>>,
    /// Every upstream's resource templates, as last listed.
    templates: Mutex<Vec<(String, usize)>>,
    handles: HashMap<String, ToolHandle>,
    clients: Arc<Clients>,
    capabilities: ServerCapabilities,
}

struct PromptRoute {
    upstream: usize,
    /// Its name upstream.
    name: String,
    /// The prompt as the client sees it.
    shown: Prompt,
}

impl Primitives {
    /// What `upstreams` offer, for a gateway enforcing `hooks`; `base`, the
    /// gateway's own capabilities, grows by what some upstream offers.
    pub(crate) fn new(
        hooks: &Hooks,
        upstreams: &[Upstream],
        base: ServerCapabilities,
    ) -> Result<Self, String> {
        let (prompts, prompt_order) = prompt_routes(upstreams)?;
        let resource_upstreams: Vec<usize> = upstreams
            .iter()
            .enumerate()
            .filter(|(_, upstream)| upstream.capabilities().resources.is_some())
            .map(|(index, _)| index)
            .collect();
        let mut handles: HashMap<String, ToolHandle> = prompt_order
            .iter()
            .map(|name| {
                let call = prompt_call(name);
                (call.clone(), hooks.tool(call))
            })
            .collect();
        handles.insert(READ_RESOURCE.to_owned(), hooks.tool(READ_RESOURCE));
        let clients = Arc::new(Clients::default());
        for upstream in upstreams {
            upstream.in_flight().attach(&clients);
        }
        Ok(Primitives {
            prompts,
            prompt_order,
            resource_upstreams,
            listed: Mutex::default(),
            templates: Mutex::default(),
            handles,
            clients,
            capabilities: capabilities(upstreams, base),
        })
    }

    /// The capabilities the gateway advertises: its own, and of resources,
    /// prompts and completion what some upstream offers.
    pub(crate) fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The connected clients.
    pub(crate) fn clients(&self) -> &Arc<Clients> {
        &self.clients
    }

    /// The dispatcher's handle for `name` (made now for a name it has none for).
    fn handle(&self, hooks: &Hooks, name: &str) -> ToolHandle {
        self.handles
            .get(name)
            .cloned()
            .unwrap_or_else(|| hooks.tool(name.to_owned()))
    }
}

/// What the upstreams offer, added to `base`.
fn capabilities(upstreams: &[Upstream], mut base: ServerCapabilities) -> ServerCapabilities {
    let offered: Vec<ServerCapabilities> = upstreams.iter().map(Upstream::capabilities).collect();
    let resources: Vec<&ResourcesCapability> = offered
        .iter()
        .filter_map(|capabilities| capabilities.resources.as_ref())
        .collect();
    if !resources.is_empty() {
        let mut capability = ResourcesCapability::default();
        if resources
            .iter()
            .any(|resources| resources.subscribe == Some(true))
        {
            capability.subscribe = Some(true);
        }
        if resources
            .iter()
            .any(|resources| resources.list_changed == Some(true))
        {
            capability.list_changed = Some(true);
        }
        base.resources = Some(capability);
    }
    // Listed once at start-up: the list does not change.
    if upstreams
        .iter()
        .any(|upstream| !upstream.prompts().is_empty())
        || offered
            .iter()
            .any(|capabilities| capabilities.prompts.is_some())
    {
        base.prompts = Some(PromptsCapability::default());
    }
    if offered
        .iter()
        .any(|capabilities| capabilities.completions.is_some())
    {
        base.completions = Some(Map::new());
    }
    base
}

/// Exposed prompt name → route, and the names in order; an error if two
/// prompts would share a name.
fn prompt_routes(
    upstreams: &[Upstream],
) -> Result<(HashMap<String, PromptRoute>, Vec<String>), String> {
    let namespaced = upstreams.len() > 1;
    let mut routes = HashMap::new();
    let mut order = Vec::new();
    for (index, upstream) in upstreams.iter().enumerate() {
        for prompt in upstream.prompts() {
            let exposed = if namespaced {
                format!("{}{NAMESPACE_SEPARATOR}{}", upstream.name(), prompt.name)
            } else {
                prompt.name.clone()
            };
            let mut shown = prompt.clone();
            shown.name.clone_from(&exposed);
            let route = PromptRoute {
                upstream: index,
                name: prompt.name.clone(),
                shown,
            };
            if routes.insert(exposed.clone(), route).is_some() {
                return Err(format!(
                    "two upstream prompts would both be `{exposed}`: give the upstreams distinct names"
                ));
            }
            order.push(exposed);
        }
    }
    Ok((routes, order))
}

/// The catalog entries of the primitives' calls: a resource read (if some
/// upstream offers resources) and each prompt's get, declared reads by the
/// MCP specification, with their arguments' schema.
///
/// # Errors
///
/// An upstream tool whose name is one of these calls' (`tools` are the
/// exposed tool names), or two prompts that would share a name.
pub(crate) fn facts(upstreams: &[Upstream], tools: &[String]) -> Result<Vec<ToolFacts>, String> {
    if let Some(tool) = tools
        .iter()
        .find(|tool| *tool == READ_RESOURCE || tool.starts_with(GET_PROMPT))
    {
        return Err(format!(
            "an upstream offers a tool named `{tool}`, which is how the gateway names resource \
             reads and prompt gets to the hooks: it cannot be told apart from them"
        ));
    }
    let mut facts = Vec::new();
    if upstreams
        .iter()
        .any(|upstream| upstream.capabilities().resources.is_some())
    {
        facts.push(mcp_read(READ_RESOURCE.to_owned()).schema(json!({
            "type": "object",
            "properties": {"uri": {"type": "string", "description": "the resource's URI"}},
            "required": ["uri"],
        })));
    }
    let (routes, order) = prompt_routes(upstreams)?;
    for name in order {
        facts.push(mcp_read(prompt_call(&name)).schema(prompt_schema(&routes[&name].shown)));
    }
    Ok(facts)
}

/// The names of [`facts`], for [`Gateway::tool_names`](crate::Gateway::tool_names).
pub(crate) fn names(upstreams: &[Upstream]) -> Vec<String> {
    let mut names = Vec::new();
    if upstreams
        .iter()
        .any(|upstream| upstream.capabilities().resources.is_some())
    {
        names.push(READ_RESOURCE.to_owned());
    }
    if let Ok((_, order)) = prompt_routes(upstreams) {
        names.extend(order.iter().map(|name| prompt_call(name)));
    }
    names
}

/// A call the MCP specification defines as a read.
fn mcp_read(name: String) -> ToolFacts {
    ToolFacts::new(name)
        .from(Source::Host {
            host: Arc::from("mcp"),
        })
        .with_read_only(true)
}

/// A prompt's arguments as a JSON schema: each a string, the required ones required.
fn prompt_schema(prompt: &Prompt) -> Value {
    let arguments = prompt.arguments.as_deref().unwrap_or_default();
    let properties: Map<String, Value> = arguments
        .iter()
        .map(|argument| {
            let mut property = json!({"type": "string"});
            if let Some(description) = &argument.description {
                property["description"] = json!(description);
            }
            (argument.name.clone(), property)
        })
        .collect();
    let required: Vec<&str> = arguments
        .iter()
        .filter(|argument| argument.required == Some(true))
        .map(|argument| argument.name.as_str())
        .collect();
    json!({"type": "object", "properties": properties, "required": required})
}

pub(crate) use prompts::{complete, get_prompt, list_prompts_for};
pub(crate) use resources::{
    list_resource_templates, list_resources, read_resource, subscribe, unsubscribe,
};
