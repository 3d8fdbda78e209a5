//! A resource read or a prompt get run through the hooks as a tool call.

use hooks_core::{PreToolUse, RunError, ToolError};
use rmcp::model::ErrorCode;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use crate::gateway::{FILTER_HOOK, Gateway, REFUSED};

/// Runs `request` (the call `name` with `args`) through the gateway's hooks
/// for the client of `context`: a refusal is a JSON-RPC error with the
/// reason, and what the post-tool-use hooks leave of the result is the
/// answer. With `refusal`, the call is dispatched only to be refused by
/// [`FILTER_HOOK`](crate::FILTER_HOOK) with that reason, so that observers
/// (the audit log) record the attempt.
pub(crate) async fn through_hooks(
    gateway: &Gateway,
    context: &RequestContext<RoleServer>,
    name: &str,
    args: Value,
    refusal: Option<String>,
    request: impl AsyncFnOnce(&Value) -> Result<Value, ToolError>,
) -> Result<Value, McpError> {
    let mut session = gateway.session(context).clone();
    if let Some(reason) = refusal {
        session = session.with_metadata(REFUSED, reason);
    }
    let pre = PreToolUse::new(&session, name.to_owned(), args).with_call_id(context.id.to_string());
    let handle = gateway.primitives().handle(gateway.hooks(), name);
    match handle.run_call(pre, request).await.into_result() {
        Ok(value) => Ok(value),
        // A name or URI the client may not use is invalid params, as an
        // unknown one is to a server; another hook's refusal refuses the request.
        Err(RunError::Denied(denial)) if denial.hook().as_str() == FILTER_HOOK => {
            Err(McpError::invalid_params(denial.reason().to_owned(), None))
        }
        Err(RunError::Denied(denial)) => Err(McpError::invalid_request(
            denial.reason().to_owned(),
            Some(json!({"refused_by": denial.hook().as_str()})),
        )),
        Err(RunError::Failed(error)) => Err(from_tool_error(&error)),
        Err(other) => Err(McpError::internal_error(other.message().to_owned(), None)),
    }
}

/// An upstream's JSON-RPC error as hooks see it (a tool error, with the
/// error's code as data), so that failure hooks (redaction) read its message.
pub(crate) fn to_tool_error(error: McpError) -> ToolError {
    let data = json!({"code": error.code.0, "data": error.data});
    ToolError::new(error.message.into_owned()).with_data(data)
}

/// The error the client gets: the message as the failure hooks left it,
/// with the upstream's code when it gave one.
fn from_tool_error(error: &ToolError) -> McpError {
    let data = error.data();
    let code = data
        .and_then(|data| data.get("code"))
        .and_then(Value::as_i64)
        .and_then(|code| i32::try_from(code).ok())
        .map_or(ErrorCode::INTERNAL_ERROR, ErrorCode);
    let inner = data
        .and_then(|data| data.get("data"))
        .filter(|inner| !inner.is_null())
        .cloned();
    McpError::new(code, error.message().to_owned(), inner)
}

/// A result as hooks see it (its JSON): without the wire-level `resultType`.
pub(crate) fn strip(mut value: Value) -> Value {
    if let Value::Object(fields) = &mut value {
        fields.remove("resultType");
    }
    value
}

/// The error for a result the hooks left in a shape its type cannot read.
pub(crate) fn broken(error: &serde_json::Error) -> McpError {
    McpError::internal_error(
        format!("a hook left the result in a shape MCP cannot carry: {error}"),
        None,
    )
}
