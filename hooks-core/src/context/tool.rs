use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::fingerprint::{Fingerprint, Print};
use super::ran::{Before, Ran};
use super::{Rewritable, Saved, ToolName, Trail, restored};
use crate::catalog::ToolFacts;
use crate::matcher::ToolCall;
use crate::session::Session;

/// The context of `#[pre_tool_use]` hooks: a tool is about to run.
///
/// Hooks may deny the call, ask a person, rewrite the arguments, or inject context.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "pre_tool_use")]
pub struct PreToolUse {
    pub(crate) session: Session,
    tool: ToolName,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<Arc<str>>,
    args: Value,
    #[serde(skip)]
    pub(crate) facts: Option<Arc<ToolFacts>>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl PreToolUse {
    /// The context for a call of `tool` with `args`.
    ///
    /// An integration holding the tool's [`ToolHandle`](crate::ToolHandle)
    /// makes it with [`ToolHandle::pre_tool_use`](crate::ToolHandle::pre_tool_use)
    /// instead, which shares the handle's name rather than taking a copy.
    #[inline]
    pub fn new(session: &Session, tool: impl Into<Cow<'static, str>>, args: Value) -> Self {
        Self::named(session, ToolName::from(tool.into()), args)
    }

    /// The context for a call of the tool named `tool`, as it is kept.
    #[inline]
    pub(crate) fn named(session: &Session, tool: ToolName, args: Value) -> Self {
        PreToolUse {
            session: session.clone(),
            tool,
            call_id: None,
            args,
            facts: None,
            trail: Trail::default(),
        }
    }

    /// Sets what is known about the tool, for a context dispatched by a
    /// dispatcher that does not know it (one dispatcher's catalog is filled
    /// in by dispatch, unless this was set).
    #[must_use]
    pub fn with_facts(mut self, facts: Arc<ToolFacts>) -> Self {
        self.facts = Some(facts);
        self
    }

    /// What the dispatcher's [`ToolCatalog`](crate::ToolCatalog) knows
    /// about the tool: its effects, schema and argument roles, each with
    /// where it came from. `None` for a tool nothing declared.
    #[inline]
    pub fn facts(&self) -> Option<&ToolFacts> {
        self.facts.as_deref()
    }

    /// Sets the provider's id for this tool call (`toolu_…`, `call_…`): it
    /// tells apart two identical calls the model made in parallel (two
    /// approval requests, two audit records).
    #[must_use]
    #[inline]
    pub fn with_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// The provider's id for this tool call, if the agent loop gave it.
    #[inline]
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The tool about to run.
    #[inline]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments, as rewritten by earlier hooks.
    #[inline]
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The arguments, to rewrite. If the hook changes them, the rewrite is
    /// recorded under its name when it returns.
    pub fn args_mut(&mut self) -> &mut Value {
        super::touch(&mut self.trail, "args", &self.args);
        &mut self.args
    }

    /// Sets the argument `key` to `value`: the cheap way to rewrite. The
    /// rewrite is recorded under the hook's name as it is made, if the value
    /// changed — [`args_mut`](Self::args_mut) hands out the whole value, so
    /// the dispatcher must look at all of it before and after the hook to
    /// know whether it changed. `null` arguments become an object first;
    /// arguments of another kind are an error.
    ///
    /// ```standalone_crate
    /// use hooks_core::prelude::*;
    ///
    /// #[pre_tool_use(matches = "http_get")]
    /// fn pin_host(ctx: &mut PreToolUse) -> Result<(), hooks_core::ArgsNotObject> {
    ///     if ctx.args()["host"] != "api.internal" {
    ///         ctx.set_arg("host", "api.internal")?;
    ///     }
    ///     Ok(())
    /// }
    ///
    /// let hooks = Hooks::builder().build().unwrap();
    /// let http_get = hooks.tool("http_get");
    /// let mut ctx = http_get.pre_tool_use(&Session::new("s1"), json!({"host": "evil.example"}));
    /// let Now::Done(outcome) = http_get.dispatch_now(&mut ctx) else { unreachable!() };
    /// assert!(outcome.is_continue());
    /// assert_eq!(ctx.args()["host"], "api.internal");
    /// assert!(ctx.rewrites()[0].hook.as_str().ends_with("pin_host"));
    /// ```
    pub fn set_arg(
        &mut self,
        key: &str,
        value: impl Into<Value>,
    ) -> Result<(), super::ArgsNotObject> {
        super::set_arg::set_key(&mut self.trail, "args", &mut self.args, key, value.into())
    }

    /// The call's subject: its `command`, `file_path`, `path` or `url` argument.
    pub fn subject(&self) -> Option<&str> {
        ToolCall::new(&self.tool, &self.args).subject()
    }

    pub(crate) fn tool_name(&self) -> ToolName {
        self.tool.clone()
    }

    pub(crate) fn call_id_arc(&self) -> Option<Arc<str>> {
        self.call_id.clone()
    }

    pub(crate) fn facts_arc(&self) -> Option<Arc<ToolFacts>> {
        self.facts.clone()
    }

    #[inline]
    pub(crate) fn facts_slot(&mut self) -> &mut Option<Arc<ToolFacts>> {
        &mut self.facts
    }

    /// What the hooks did to this call, to carry into the context after it.
    pub(crate) fn before(&self) -> Before {
        Before {
            rewrites: self.rewrites().to_vec(),
            approvals: self.approvals().to_vec(),
            notes: self.trail.notes().clone(),
        }
    }

    /// Whether every approval a person gave on this call covers the
    /// arguments as they are now.
    ///
    /// A yes binds the exact arguments it was asked about. Dispatch denies a
    /// call whose arguments changed after a yes; an integration that touches
    /// the arguments after dispatch checks this before it runs the tool.
    pub fn args_as_approved(&self) -> bool {
        self.trail.approvals().iter().all(|record| {
            record
                .bound_args
                .as_ref()
                .is_none_or(|bound| *bound == self.args)
        })
    }

    /// The final arguments, for running the tool.
    #[inline]
    pub fn into_args(self) -> Value {
        self.args
    }
}

/// The context of `#[post_tool_use]` hooks: a tool has run.
///
/// Hooks cannot block (the tool already ran) but may rewrite the result
/// (even into an error), and inject context. A call whose tool failed goes
/// to [`PostToolUseFailure`](crate::PostToolUseFailure) instead.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "post_tool_use")]
pub struct PostToolUse {
    pub(crate) session: Session,
    #[serde(flatten)]
    ran: Ran,
    result: Result<Value, String>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

super::ran::after_tool_use!(PostToolUse);

impl PostToolUse {
    /// The context for a call of `tool` with `args` that returned `result`
    /// (`Err` holds an error message, as a hook may turn a result into).
    pub fn new(
        session: &Session,
        tool: impl Into<Cow<'static, str>>,
        args: Value,
        result: Result<Value, String>,
    ) -> Self {
        PostToolUse {
            session: session.clone(),
            ran: Ran::new(ToolName::from(tool.into()), args),
            result,
            trail: Trail::default(),
        }
    }

    /// The context for the call `pre` allowed, which returned `result`: same
    /// session, tool, call id and (final) arguments, and the record of what
    /// the pre-tool-use hooks did ([`pre_rewrites`](Self::pre_rewrites),
    /// [`pre_approvals`](Self::pre_approvals), [`pre_notes`](Self::pre_notes)),
    /// so one observer can audit the whole call.
    pub fn after(pre: &PreToolUse, result: Result<Value, String>) -> Self {
        PostToolUse {
            session: pre.session().clone(),
            ran: Ran::after(pre),
            result,
            trail: Trail::default(),
        }
    }

    /// [`after`](Self::after), taking the pre-tool-use context apart
    /// instead of copying its arguments: for an integration that has no
    /// more use for it.
    pub fn from_pre(pre: PreToolUse, result: Result<Value, String>) -> Self {
        PostToolUse {
            session: pre.session().clone(),
            ran: Ran::from(pre),
            result,
            trail: Trail::default(),
        }
    }

    /// The result (or an error), as rewritten by earlier hooks.
    pub fn result(&self) -> Result<&Value, &str> {
        self.result.as_ref().map_err(String::as_str)
    }

    /// The result, to rewrite. If the hook changes it, the rewrite is
    /// recorded under its name when it returns.
    pub fn result_mut(&mut self) -> &mut Result<Value, String> {
        super::touch(&mut self.trail, "result", &self.result);
        &mut self.result
    }

    /// Replaces the result with an error saying why: what a failing hook
    /// with `on_error = "deny"` does, so the model never sees a result a
    /// scrubber could not finish with. Recorded as the hook's rewrite.
    pub(crate) fn withhold(&mut self, why: &str) {
        self.trail.record_rewrite("result");
        self.trail.forget_prints();
        self.result = Err(format!("the tool's result was withheld: {why}"));
    }

    /// The final result, for the model.
    pub fn into_result(self) -> Result<Value, String> {
        self.result
    }
}

impl Rewritable for PreToolUse {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "args" => self.args.print(),
            _ => Print::NONE,
        }
    }

    fn save(&self) -> Saved {
        Box::new(self.args.clone())
    }

    fn restore(&mut self, saved: Saved) {
        if let Some(args) = restored(saved) {
            self.args = args;
        }
    }
}

impl Rewritable for PostToolUse {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "result" => self.result.print(),
            _ => Print::NONE,
        }
    }

    fn save(&self) -> Saved {
        Box::new(self.result.clone())
    }

    fn restore(&mut self, saved: Saved) {
        if let Some(result) = restored(saved) {
            self.result = result;
        }
    }
}
