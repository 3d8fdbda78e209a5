//! Tool calls: `PreToolUse` at rig's dispatch, `PostToolUse` or
//! `PostToolUseFailure` at its outcome.

use std::sync::Arc;

use hooks_core::{
    Outcome as HookOutcome, PostToolUse, PostToolUseFailure, PreToolUse, ToolError, ToolHandle,
};
use rig_agent::agent::{DispatchAction, OutcomeAction, OutcomeEvent};
use rig_agent::tool::{ToolExecutionError, ToolResult};
use rig_core::effect::{EffectId, EffectKind, Outcome};
use rig_core::error::ErrorReport;
use rig_core::message::CallId;
use rig_core::tool::ToolErrorKind;

use crate::convert::{args_value, output_value, value_output};
use crate::hook::{HooksHook, Pending};

impl HooksHook {
    /// The tool's handle and the context of a call rig is about to
    /// dispatch, for the pre-hooks. Not async, nor is
    /// [`pre_tool_done`](Self::pre_tool_done): `on_dispatch` awaits the
    /// dispatch itself, so that no future of ours is nested in the one rig
    /// boxes per call (each level moved it).
    pub(crate) fn pre_tool(
        &self,
        name: &str,
        args: &str,
        call_id: Option<&CallId>,
    ) -> (Arc<ToolHandle>, Box<PreToolUse>) {
        let handle = self.handle(name);
        // Boxed: the context is about 1 KB, and rig boxes this call's
        // future (and moves it) per call; a box of the context alone is
        // cheaper than a future holding it, and parks as it is. The box
        // is made first, so that the context can be built in it, and what
        // may call out (parsing, the call id's allocation) before the
        // context is assembled, so that nothing interrupts its writes into
        // the box. The name is the handle's, shared.
        let room = Box::new_uninit();
        let args = args_value(args);
        let call_id: Option<Arc<str>> = call_id.map(|id| id.wire().into());
        let session = &self.inner.session;
        let pre = Box::write(
            room,
            match call_id {
                Some(id) => handle.pre_tool_use(session, args).with_call_id(id),
                None => handle.pre_tool_use(session, args),
            },
        );
        (handle, pre)
    }

    /// What rig does with the call after the pre-hooks' `outcome`; the
    /// call is parked for its outcome if post-hooks or injected context
    /// need it.
    pub(crate) fn pre_tool_done(
        &self,
        id: EffectId,
        handle: Arc<ToolHandle>,
        pre: Box<PreToolUse>,
        outcome: &HookOutcome,
        kind: &EffectKind,
    ) -> DispatchAction {
        // An ended session stops the run before the tool runs, denied or not.
        if let Some(reason) = self.note_end(outcome) {
            return DispatchAction::stop(reason);
        }
        if let Some(denial) = outcome.denial() {
            return DispatchAction::skip(denial.reason());
        }
        // Nothing to hand the result to, and no context to add to it: no
        // need to keep the call.
        let keep = handle.count::<PostToolUse>() + handle.count::<PostToolUseFailure>() > 0
            || !pre.injected().is_empty();
        // Each action is returned where it is made: one kept in a variable
        // is copied whole (rig's actions are some 400 bytes).
        if pre.rewrites().is_empty() {
            if keep {
                self.park(id, handle, pre);
            }
            return DispatchAction::Proceed;
        }
        let action = DispatchAction::rewrite_tool_args(kind, pre.args().clone());
        if keep {
            self.park(id, handle, pre);
        }
        action
    }

    pub(crate) async fn post_tool(
        &self,
        pending: Pending,
        event: &OutcomeEvent<'_>,
    ) -> OutcomeAction {
        let Pending {
            pre,
            handle,
            started,
        } = pending;
        let elapsed = started.elapsed();
        match event.outcome {
            Ok(Outcome::ToolResult { result }) if result.is_success() => {
                let mut post = PostToolUse::after(&pre, Ok(output_value(result.output())))
                    .with_duration(elapsed);
                let outcome = handle.dispatch(&mut post).await;
                if let Some(reason) = self.note_end(&outcome) {
                    return OutcomeAction::stop(reason);
                }
                let context = injected(&[pre.injected(), post.injected()]);
                if post.rewrites().is_empty() && context.is_empty() {
                    return OutcomeAction::Proceed;
                }
                match post.into_result() {
                    Ok(value) => OutcomeAction::rewrite_tool_output(
                        event,
                        value_output(with_context(value, &context)),
                    ),
                    // A post-hook withheld the result (`on_error = "deny"`).
                    Err(message) => failed(ToolErrorKind::PermissionDenied, message),
                }
            }
            Ok(Outcome::ToolResult { result }) => {
                let Some(error) = result.error().or_else(|| result.refusal()) else {
                    // Skipped by the tool runtime itself: nothing ran.
                    return OutcomeAction::Proceed;
                };
                let message = error.model_feedback().unwrap_or(error.message());
                let mut failure =
                    PostToolUseFailure::after(&pre, ToolError::new(message)).with_duration(elapsed);
                let outcome = handle.dispatch(&mut failure).await;
                if let Some(reason) = self.note_end(&outcome) {
                    return OutcomeAction::stop(reason);
                }
                if failure.rewrites().is_empty() {
                    return OutcomeAction::Proceed;
                }
                failed(error.kind(), failure.into_error().message().to_owned())
            }
            Ok(_) => OutcomeAction::Proceed,
            Err(report) => {
                let mut failure = PostToolUseFailure::after(&pre, ToolError::new(&*report.message))
                    .with_duration(elapsed);
                let outcome = handle.dispatch(&mut failure).await;
                if let Some(reason) = self.note_end(&outcome) {
                    return OutcomeAction::stop(reason);
                }
                if failure.rewrites().is_empty() {
                    return OutcomeAction::Proceed;
                }
                OutcomeAction::Replace(Err(ErrorReport::new(
                    report.kind,
                    failure.into_error().message().to_owned(),
                )))
            }
        }
    }
}

/// What hooks injected before and after the call, joined.
fn injected(pieces: &[&hooks_core::context::Injected]) -> String {
    pieces
        .iter()
        .map(|injected| injected.text())
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The result with the hooks' context after it: rig hands the model the
/// tool's output and nothing else, so that is where context can go.
fn with_context(value: hooks_core::Value, context: &str) -> hooks_core::Value {
    if context.is_empty() {
        return value;
    }
    let text = match value {
        hooks_core::Value::String(text) => text,
        other => other.to_string(),
    };
    hooks_core::Value::String(format!("{text}\n\n{context}"))
}

/// A failed tool result whose model-visible text is `message`.
fn failed(kind: ToolErrorKind, message: String) -> OutcomeAction {
    let error = ToolExecutionError::new(kind, message.clone()).with_model_feedback(message);
    OutcomeAction::Replace(Ok(Outcome::ToolResult {
        result: ToolResult::failed(error),
    }))
}
