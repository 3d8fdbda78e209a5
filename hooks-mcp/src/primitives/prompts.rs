//! Prompts (listed at start-up, filtered, got through the hooks) and
//! completion (routed to the prompt's or the template's upstream).

use rmcp::model::{
    ClientRequest, CompleteRequest, CompleteRequestParams, CompleteResult, GetPromptRequest,
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, Reference, ServerResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::Value;

use super::hooked::{broken, strip, through_hooks};
use super::prompt_call;
use super::resources::{routed_and_offered, tool_error, unexpected};
use crate::gateway::Gateway;
use crate::relay::{self, Failure};

/// `prompts/list`: the upstreams' prompts the filters offer this client.
pub(crate) async fn list_prompts_for(
    gateway: &Gateway,
    context: &RequestContext<RoleServer>,
) -> Result<ListPromptsResult, McpError> {
    let primitives = gateway.primitives();
    let session = gateway.session(context).clone();
    let names = primitives.prompt_order.iter().map(String::as_str);
    let offered = gateway.offered(&session, names, "prompts/list").await;
    let prompts = offered
        .iter()
        .filter_map(|name| primitives.prompts.get(name))
        .map(|route| route.shown.clone())
        .collect();
    Ok(ListPromptsResult::with_all_items(prompts))
}

/// `prompts/get`, through the hooks as `prompts:get:NAME` with the prompt's arguments.
pub(crate) async fn get_prompt(
    gateway: &Gateway,
    request: GetPromptRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<GetPromptResult, McpError> {
    let name = request.name.clone();
    let route = gateway.primitives().prompts.get(&name);
    let refusal = match route {
        None => Some(format!("no upstream offers a prompt `{name}`")),
        Some(_) if !is_offered(gateway, context, &name).await => {
            Some(format!("the prompt `{name}` is not offered to this client"))
        }
        Some(_) => None,
    };
    let session_id = gateway.session(context).id().to_owned();
    let args = Value::Object(request.arguments.clone().unwrap_or_default());
    // Boxed: the hooks' run and the upstream request make a large future.
    let value = Box::pin(through_hooks(
        gateway,
        context,
        &prompt_call(&name),
        args,
        refusal,
        async |args: &Value| {
            let Some(route) = route else {
                return Err(hooks_core::ToolError::new(format!(
                    "no upstream offers a prompt `{name}`"
                )));
            };
            let upstream = &gateway.upstreams()[route.upstream];
            let mut params = request.clone();
            params.name.clone_from(&route.name);
            params.arguments = match args {
                Value::Object(arguments) => Some(arguments.clone()),
                Value::Null => None,
                other => {
                    return Err(hooks_core::ToolError::new(format!(
                        "a hook rewrote the arguments into {other}, which is not a JSON object"
                    )));
                }
            };
            let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
            match relay::send(upstream, request, context, &session_id).await {
                Ok(ServerResult::GetPromptResult(result)) => {
                    Ok(strip(serde_json::to_value(&result).unwrap_or(Value::Null)))
                }
                Ok(_) => Err(unexpected(upstream, "prompts/get")),
                Err(failure) => Err(tool_error(upstream, failure)),
            }
        },
    ))
    .await?;
    serde_json::from_value(value).map_err(|error| broken(&error))
}

/// `completion/complete`: to the upstream of the prompt (under its name
/// there) or of the resource template; a prompt or resource the filters
/// hide from this client gets no completions.
pub(crate) async fn complete(
    gateway: &Gateway,
    mut request: CompleteRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CompleteResult, McpError> {
    let index = match &mut request.r#ref {
        Reference::Prompt(prompt) => {
            let Some(route) = gateway.primitives().prompts.get(&prompt.name) else {
                return Err(McpError::invalid_params(
                    format!("no upstream offers a prompt `{}`", prompt.name),
                    None,
                ));
            };
            if !is_offered(gateway, context, &prompt.name).await {
                return Err(McpError::invalid_request(
                    format!("the prompt `{}` is not offered to this client", prompt.name),
                    None,
                ));
            }
            prompt.name.clone_from(&route.name);
            route.upstream
        }
        Reference::Resource(resource) => {
            routed_and_offered(gateway, context, &resource.uri).await?
        }
        _ => {
            return Err(McpError::invalid_params(
                "completion for this kind of reference is not proxied: only prompts and resource templates",
                None,
            ));
        }
    };
    let upstream = &gateway.upstreams()[index];
    if upstream.capabilities().completions.is_none() {
        return Err(McpError::invalid_request(
            format!(
                "the upstream MCP server `{}` does not offer completions",
                upstream.name()
            ),
            None,
        ));
    }
    let session = gateway.session(context).id().to_owned();
    let request = ClientRequest::CompleteRequest(CompleteRequest::new(request));
    match relay::send(upstream, request, context, &session).await {
        Ok(ServerResult::CompleteResult(result)) => Ok(result),
        Ok(_) => Err(McpError::internal_error(
            format!(
                "the upstream MCP server `{}` answered `completion/complete` with another kind of result",
                upstream.name()
            ),
            None,
        )),
        Err(failure) => Err(Failure::into_mcp(failure)),
    }
}

async fn is_offered(gateway: &Gateway, context: &RequestContext<RoleServer>, name: &str) -> bool {
    let session = gateway.session(context).clone();
    !gateway
        .offered(&session, [name], "prompts/get")
        .await
        .is_empty()
}
