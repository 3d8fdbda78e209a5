use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::fingerprint::{Fingerprint, Print};
use super::{Rewritable, Saved, Trail, restored};
use crate::catalog::ToolFacts;
use crate::matcher::ToolCall;
use crate::name::HookName;
use crate::session::Session;

/// The context of `#[permission_request]` hooks: the host is about to show
/// its permission dialog for a tool call (its own rules neither allowed nor
/// denied it), and hooks may answer for the person.
///
/// What the hooks come to, after dispatch:
///
/// - **denied**, if any hook denies (`Decision::Deny`, or a hook that
///   failed: guards fail closed) — a denial wins over every grant; a hook
///   that fails with `on_error = "continue"` denies nothing, and what it
///   granted before failing does not stand;
/// - **granted**, if a hook called [`grant`](Self::grant), no hook denied
///   or asked, and every grant was made for the input the call now has
///   ([`granted`](Self::granted));
/// - otherwise **left to the person**: the dialog is shown. This is what
///   `Decision::Continue` means (saying nothing grants nothing), what an
///   `Ask` means (a hook wants the person asked; its prompt is a message
///   for them in the outcome), and what a grant comes to
///   when a later hook rewrote the input it was given for.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[permission_request(matches = "Read", name = "reads_are_fine")]
/// fn reads_are_fine(ctx: &mut PermissionRequest) {
///     ctx.grant();
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let hooks = Hooks::builder().build().unwrap();
/// let session = Session::new("s");
/// let mut read = PermissionRequest::new(&session, "Read", json!({"file_path": "a.txt"}));
/// let outcome = hooks.dispatch(&mut read).await;
/// assert!(!outcome.is_denied());
/// let by = read.granted().and_then(|grant| grant.hook.as_ref());
/// assert_eq!(by.map(|hook| hook.as_str()), Some("reads_are_fine"));
///
/// let mut write = PermissionRequest::new(&session, "Write", json!({"file_path": "a.txt"}));
/// hooks.dispatch(&mut write).await;
/// assert!(write.granted().is_none(), "nobody granted it: the person is asked");
/// # }
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "permission_request")]
pub struct PermissionRequest {
    pub(crate) session: Session,
    tool: Cow<'static, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<Arc<str>>,
    args: Value,
    #[serde(skip_serializing_if = "Value::is_null")]
    permission_suggestions: Value,
    #[serde(skip)]
    pub(crate) facts: Option<Arc<ToolFacts>>,
    #[serde(skip)]
    answers: Answers,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

/// A hook's grant of a permission request: who granted it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Grant {
    /// The hook that granted it (`None` for a grant made outside a dispatch).
    pub hook: Option<HookName>,
    /// The input it was granted for.
    args: Value,
}

/// What the hooks answered, besides denials (which are the outcome's).
#[derive(Debug, Clone, Default)]
struct Answers {
    grants: Vec<Grant>,
    /// Whether a hook asked for the person to decide.
    asked: bool,
    /// The first hook that asked.
    asked_by: Option<HookName>,
}

impl PermissionRequest {
    /// The context for the host's permission dialog about a call of `tool` with `args`.
    pub fn new(session: &Session, tool: impl Into<Cow<'static, str>>, args: Value) -> Self {
        PermissionRequest {
            session: session.clone(),
            tool: tool.into(),
            call_id: None,
            args,
            permission_suggestions: Value::Null,
            facts: None,
            answers: Answers::default(),
            trail: Trail::default(),
        }
    }

    /// Sets the rules the host offers the person to add ("always allow
    /// this"), as the host sends them (Claude Code's `permission_suggestions`).
    #[must_use]
    pub fn with_permission_suggestions(mut self, suggestions: Value) -> Self {
        self.permission_suggestions = suggestions;
        self
    }

    /// Sets the provider's id for this tool call, if the host gave it.
    #[must_use]
    pub fn with_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// Sets what is known about the tool (otherwise the dispatcher's
    /// catalog fills it in).
    #[must_use]
    pub fn with_facts(mut self, facts: Arc<ToolFacts>) -> Self {
        self.facts = Some(facts);
        self
    }

    /// The tool the person would be asked about.
    #[inline]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The call's input, as rewritten by earlier hooks.
    #[inline]
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The call's input, to rewrite: a rewrite reaches the host only with a
    /// grant made after it (the host takes new input only with an allow),
    /// and voids the grants made before it. Recorded under the hook's name.
    pub fn args_mut(&mut self) -> &mut Value {
        super::touch(&mut self.trail, "args", &self.args);
        &mut self.args
    }

    /// The rules the host offers to add, as it sent them (`Null` if none).
    pub fn permission_suggestions(&self) -> &Value {
        &self.permission_suggestions
    }

    /// The provider's id for this tool call, if the host gave it.
    #[inline]
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// What the dispatcher's catalog knows about the tool.
    #[inline]
    pub fn facts(&self) -> Option<&ToolFacts> {
        self.facts.as_deref()
    }

    /// The call's subject: its `command`, `file_path`, `path` or `url` argument.
    pub fn subject(&self) -> Option<&str> {
        ToolCall::new(&self.tool, &self.args).subject()
    }

    /// Grants the call, with its input as it now stands, so the person is
    /// not asked. A denial by any hook still wins, an `Ask` by any hook
    /// leaves it to the person, and a later hook's rewrite of the input
    /// voids this grant. (Observers and guards, which take `&PermissionRequest`,
    /// cannot grant.)
    pub fn grant(&mut self) {
        let hook = self.trail.current().cloned();
        self.answers.grants.push(Grant {
            hook,
            args: self.args.clone(),
        });
    }

    /// The grant that answers the dialog, if the call is granted: some hook
    /// granted it, no hook asked, and every grant was made for the input as
    /// it now is. A denial is the outcome's, and wins over this.
    pub fn granted(&self) -> Option<&Grant> {
        let first = self.answers.grants.first()?;
        let current = self
            .answers
            .grants
            .iter()
            .all(|grant| grant.args == self.args);
        (current && !self.answers.asked).then_some(first)
    }

    /// Every grant made, current or voided by a later rewrite.
    pub fn grants(&self) -> &[Grant] {
        &self.answers.grants
    }

    /// Whether a hook asked for the person to decide (returned `Ask`):
    /// then nothing is granted.
    pub fn asked(&self) -> bool {
        self.answers.asked
    }

    /// The first hook that asked for the person to decide.
    pub fn asked_by(&self) -> Option<&HookName> {
        self.answers.asked_by.as_ref()
    }

    pub(crate) fn call_id_arc(&self) -> Option<Arc<str>> {
        self.call_id.clone()
    }

    #[inline]
    pub(crate) fn facts_slot(&mut self) -> &mut Option<Arc<ToolFacts>> {
        &mut self.facts
    }
}

impl Grant {
    /// The input the call was granted with.
    pub fn args(&self) -> &Value {
        &self.args
    }
}

impl Rewritable for PermissionRequest {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "args" => self.args.print(),
            _ => Print::NONE,
        }
    }

    // A shadow hook's grant and ask are undone with its rewrites.
    fn save(&self) -> Saved {
        Box::new((self.args.clone(), self.answers.clone()))
    }

    fn restore(&mut self, saved: Saved) {
        if let Some((args, answers)) = restored(saved) {
            self.args = args;
            self.answers = answers;
        }
    }

    fn withdraw(&mut self, hook: &HookName) {
        self.answers
            .grants
            .retain(|grant| grant.hook.as_ref() != Some(hook));
    }

    fn leave_to_person(&mut self) {
        if !self.answers.asked {
            self.answers.asked = true;
            self.answers.asked_by = self.trail.current().cloned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn a_grant_binds_the_input_it_was_made_for() {
        let session = Session::new("s");
        let mut ctx = PermissionRequest::new(&session, "Bash", json!({"command": "ls"}));
        ctx.grant();
        assert!(ctx.granted().is_some());
        ctx.args_mut()["command"] = json!("rm -rf /");
        assert!(
            ctx.granted().is_none(),
            "a rewrite after the grant voids it"
        );
        ctx.grant();
        assert!(ctx.granted().is_none(), "the first grant is still stale");
        assert_eq!(ctx.grants().len(), 2);
    }
}
