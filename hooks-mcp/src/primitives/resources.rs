//! Resources: listed from every upstream that offers them (filtered), read
//! through the hooks from the upstream that listed the URI, subscribed to
//! upstream once however many clients subscribe.

// `resources/subscribe` is legacy since 2026-07-28 (`subscriptions/listen`),
// and still what 2025-11-25 clients and servers speak.
#![allow(deprecated)]

use std::collections::HashMap;

use hooks_core::ToolError;
use rmcp::model::{
    ClientRequest, ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequest,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate, ServerResult,
    SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::hooked::{broken, strip, through_hooks, to_tool_error};
use super::{READ_RESOURCE, template};
use crate::gateway::Gateway;
use crate::relay::{self, Failure};
use crate::upstream::Upstream;

/// `resources/list`: every upstream's resources, those the filters offer.
pub(crate) async fn list_resources(
    gateway: &Gateway,
    context: &RequestContext<RoleServer>,
) -> Result<ListResourcesResult, McpError> {
    let resources = listed(gateway).await?;
    let session = gateway.session(context).clone();
    let offered: std::collections::HashSet<String> = gateway
        .offered(
            &session,
            resources.iter().map(|resource| resource.uri.as_str()),
            "resources/list",
        )
        .await
        .into_iter()
        .collect();
    let resources = resources
        .into_iter()
        .filter(|resource| offered.contains(&resource.uri))
        .collect();
    Ok(ListResourcesResult::with_all_items(resources))
}

/// `resources/templates/list`: every upstream's templates, those the filters offer.
pub(crate) async fn list_resource_templates(
    gateway: &Gateway,
    context: &RequestContext<RoleServer>,
) -> Result<ListResourceTemplatesResult, McpError> {
    let templates = templates(gateway).await?;
    let session = gateway.session(context).clone();
    let offered: std::collections::HashSet<String> = gateway
        .offered(
            &session,
            templates
                .iter()
                .map(|template| template.uri_template.as_str()),
            "resources/templates/list",
        )
        .await
        .into_iter()
        .collect();
    let templates = templates
        .into_iter()
        .filter(|template| offered.contains(&template.uri_template))
        .collect();
    Ok(ListResourceTemplatesResult::with_all_items(templates))
}

/// `resources/read`, through the hooks as [`READ_RESOURCE`] with `{"uri": ..}`.
pub(crate) async fn read_resource(
    gateway: &Gateway,
    request: ReadResourceRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResult, McpError> {
    let uri = request.uri.clone();
    let refusal = match route(gateway, &uri).await {
        Err(reason) => Some(reason),
        Ok(_) if !is_offered(gateway, context, &uri, "resources/read").await => Some(format!(
            "the resource `{uri}` is not offered to this client"
        )),
        Ok(_) => None,
    };
    let session_id = gateway.session(context).id().to_owned();
    // Boxed: the hooks' run and the upstream request make a large future.
    let value = Box::pin(through_hooks(
        gateway,
        context,
        READ_RESOURCE,
        json!({"uri": uri}),
        refusal,
        async |args: &Value| {
            // A hook may have rewritten the URI: it goes where that one goes.
            let Some(uri) = args.get("uri").and_then(Value::as_str) else {
                return Err(ToolError::new(format!(
                    "a hook rewrote the arguments into {args}, which has no `uri` string"
                )));
            };
            let index = route(gateway, uri).await.map_err(ToolError::new)?;
            let upstream = &gateway.upstreams()[index];
            let mut params = request.clone();
            params.uri = uri.to_owned();
            let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
            match relay::send(upstream, request, context, &session_id).await {
                Ok(ServerResult::ReadResourceResult(result)) => {
                    Ok(strip(serde_json::to_value(&result).unwrap_or(Value::Null)))
                }
                Ok(_) => Err(unexpected(upstream, "resources/read")),
                Err(failure) => Err(tool_error(upstream, failure)),
            }
        },
    ))
    .await?;
    serde_json::from_value(value).map_err(|error| broken(&error))
}

/// `resources/subscribe`: the upstream is asked for the first client; the
/// updates it sends go to every client subscribed.
pub(crate) async fn subscribe(
    gateway: &Gateway,
    request: SubscribeRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), McpError> {
    let uri = request.uri.clone();
    let index = routed_and_offered(gateway, context, &uri).await?;
    let upstream = &gateway.upstreams()[index];
    if upstream
        .capabilities()
        .resources
        .is_none_or(|resources| resources.subscribe != Some(true))
    {
        return Err(McpError::invalid_request(
            format!(
                "the upstream MCP server `{}` does not offer subscriptions to its resources",
                upstream.name()
            ),
            None,
        ));
    }
    let client = gateway.registered(context);
    let clients = gateway.primitives().clients();
    if clients.subscribe(client, &uri) {
        let request = ClientRequest::SubscribeRequest(SubscribeRequest::new(request));
        let session = gateway.session(context).id().to_owned();
        if let Err(failure) = relay::send(upstream, request, context, &session).await {
            clients.unsubscribe(client, &uri);
            return Err(failure.into_mcp());
        }
    }
    Ok(())
}

/// `resources/unsubscribe`: the upstream is told when no client is left.
pub(crate) async fn unsubscribe(
    gateway: &Gateway,
    request: UnsubscribeRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), McpError> {
    let uri = request.uri.clone();
    let index = route(gateway, &uri)
        .await
        .map_err(|reason| McpError::invalid_params(reason, None))?;
    let client = gateway.registered(context);
    if gateway.primitives().clients().unsubscribe(client, &uri) {
        let upstream = &gateway.upstreams()[index];
        let request = ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(request));
        let session = gateway.session(context).id().to_owned();
        relay::send(upstream, request, context, &session)
            .await
            .map_err(Failure::into_mcp)?;
    }
    Ok(())
}

/// The upstream for `uri`, if the filters offer it to this client.
pub(crate) async fn routed_and_offered(
    gateway: &Gateway,
    context: &RequestContext<RoleServer>,
    uri: &str,
) -> Result<usize, McpError> {
    let index = route(gateway, uri)
        .await
        .map_err(|reason| McpError::invalid_params(reason, None))?;
    if !is_offered(gateway, context, uri, "resources/read").await {
        return Err(McpError::invalid_request(
            format!("the resource `{uri}` is not offered to this client"),
            None,
        ));
    }
    Ok(index)
}

async fn is_offered(
    gateway: &Gateway,
    context: &RequestContext<RoleServer>,
    uri: &str,
    method: &str,
) -> bool {
    let session = gateway.session(context).clone();
    !gateway.offered(&session, [uri], method).await.is_empty()
}

/// Every upstream's resources (noting who listed each URI); a URI two
/// upstreams list is left out (a read of it is refused, naming both).
async fn listed(gateway: &Gateway) -> Result<Vec<Resource>, McpError> {
    let primitives = gateway.primitives();
    let mut by_uri: HashMap<String, Vec<usize>> = HashMap::new();
    let mut all = Vec::new();
    for &index in &primitives.resource_upstreams {
        let upstream = &gateway.upstreams()[index];
        let resources = bounded(upstream, async {
            live(upstream)?.list_all_resources().await
        })
        .await?;
        for resource in resources {
            let owners = by_uri.entry(resource.uri.clone()).or_default();
            if owners.is_empty() {
                all.push(resource);
            }
            owners.push(index);
        }
    }
    all.retain(|resource| by_uri[&resource.uri].len() == 1);
    *super::lock(&primitives.listed) = by_uri;
    Ok(all)
}

/// Every upstream's resource templates (noting who declared each).
async fn templates(gateway: &Gateway) -> Result<Vec<ResourceTemplate>, McpError> {
    let primitives = gateway.primitives();
    let mut owners = Vec::new();
    let mut all = Vec::new();
    for &index in &primitives.resource_upstreams {
        let upstream = &gateway.upstreams()[index];
        let templates = bounded(upstream, async {
            live(upstream)?.list_all_resource_templates().await
        })
        .await?;
        for template in templates {
            owners.push((template.uri_template.clone(), index));
            all.push(template);
        }
    }
    *super::lock(&primitives.templates) = owners;
    Ok(all)
}

/// A listing from `upstream`, within its timeout.
/// The upstream's connection, or (while it is being started again) the
/// error a request to it gets.
fn live(
    upstream: &Upstream,
) -> Result<rmcp::service::Peer<rmcp::RoleClient>, rmcp::service::ServiceError> {
    upstream
        .peer()
        .map_err(|down| rmcp::service::ServiceError::McpError(McpError::internal_error(down, None)))
}

async fn bounded<T>(
    upstream: &Upstream,
    listing: impl Future<Output = Result<T, rmcp::service::ServiceError>>,
) -> Result<T, McpError> {
    match tokio::time::timeout(upstream.timeout(), listing).await {
        Ok(Ok(items)) => Ok(items),
        Ok(Err(rmcp::service::ServiceError::McpError(error))) => Err(error),
        Ok(Err(error)) => Err(McpError::internal_error(
            format!(
                "the upstream MCP server `{}` failed to answer: {error}",
                upstream.name()
            ),
            None,
        )),
        Err(_elapsed) => Err(McpError::internal_error(
            format!(
                "the upstream MCP server `{}` did not answer within {} s",
                upstream.name(),
                upstream.timeout().as_secs()
            ),
            None,
        )),
    }
}

/// The upstream a read of `uri` goes to; the reason for the client if none can be told.
pub(crate) async fn route(gateway: &Gateway, uri: &str) -> Result<usize, String> {
    let primitives = gateway.primitives();
    match primitives.resource_upstreams.as_slice() {
        [] => return Err("no upstream MCP server offers resources".to_owned()),
        [only] => return Ok(*only),
        _ => {}
    }
    if let Some(found) = lookup(gateway, uri) {
        return found;
    }
    // Not seen yet: the upstreams are asked again.
    listed(gateway)
        .await
        .map_err(|error| error.message.into_owned())?;
    templates(gateway)
        .await
        .map_err(|error| error.message.into_owned())?;
    lookup(gateway, uri).unwrap_or_else(|| {
        Err(format!(
            "no upstream MCP server lists a resource `{uri}`, and no template of theirs matches it"
        ))
    })
}

fn lookup(gateway: &Gateway, uri: &str) -> Option<Result<usize, String>> {
    let primitives = gateway.primitives();
    let names = |indexes: &[usize]| {
        indexes
            .iter()
            .map(|&index| format!("`{}`", gateway.upstreams()[index].name()))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    if let Some(owners) = super::lock(&primitives.listed).get(uri) {
        return Some(match owners.as_slice() {
            [one] => Ok(*one),
            several => Err(format!(
                "the upstream MCP servers {} both list a resource `{uri}`: the gateway cannot \
                 tell which one to read",
                names(several)
            )),
        });
    }
    let mut owners: Vec<usize> = super::lock(&primitives.templates)
        .iter()
        .filter(|(declared, _)| template::matches(declared, uri))
        .map(|(_, index)| *index)
        .collect();
    owners.sort_unstable();
    owners.dedup();
    match owners.as_slice() {
        [] => None,
        [one] => Some(Ok(*one)),
        several => Some(Err(format!(
            "templates of the upstream MCP servers {} all match `{uri}`: the gateway cannot \
             tell which one to read",
            names(several)
        ))),
    }
}

/// An upstream's failure as hooks see it.
pub(crate) fn tool_error(upstream: &Upstream, failure: Failure) -> ToolError {
    match failure {
        Failure::Upstream(error) => to_tool_error(error),
        other => ToolError::new(other.message(upstream.name())),
    }
}

pub(crate) fn unexpected(upstream: &Upstream, method: &str) -> ToolError {
    ToolError::new(format!(
        "the upstream MCP server `{}` answered `{method}` with another kind of result",
        upstream.name()
    ))
}
