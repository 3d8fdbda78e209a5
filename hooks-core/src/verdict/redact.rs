//! Redaction of what hooks say: a hook's error, a denial's reason and an
//! approval's prompt may quote the secrets the hook was looking at. The
//! dispatcher passes them through the [`Redact`] given to its builder before
//! it logs them, before they become a denial the model reads, and before a
//! person (or an approver's store) sees them.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::{Decision, HookError, Verdict};

/// Removes secrets from text: what the dispatcher itself logs and hands on
/// from hooks' words. Given to the builder with
/// [`HooksBuilder::redactor`](crate::HooksBuilder::redactor); `hooks_std`'s
/// `Redactor` is one (known secrets and their encodings, shapes, keywords).
///
/// ```
/// use hooks_core::prelude::*;
/// use hooks_core::Redact;
///
/// struct Known(&'static str);
///
/// impl Redact for Known {
///     fn redact_text(&self, text: &str) -> Option<String> {
///         text.contains(self.0).then(|| text.replace(self.0, "[redacted]"))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let hooks = Hooks::builder()
///     .without_linked()
///     .redactor(Known("hunter2-hunter2"))
///     .hook(Hook::new("db_guard", |_: &mut PreToolUse| -> Result<Decision, String> {
///         Err("cannot reach postgres://app:hunter2-hunter2@db".to_owned())
///     }))
///     .build()
///     .unwrap();
/// let mut call = PreToolUse::new(&Session::new("s"), "query", json!({}));
/// let outcome = hooks.dispatch(&mut call).await;
/// let reason = outcome.denial().unwrap().reason();
/// assert!(reason.contains("postgres://app:[redacted]@db"), "{reason}");
/// # }
/// ```
pub trait Redact: Send + Sync + 'static {
    /// `text` with every secret in it replaced, or `None` when it holds
    /// none. Called on every hook error, denial reason and approval prompt
    /// the dispatcher handles, so it should not allocate when there is
    /// nothing to replace.
    fn redact_text(&self, text: &str) -> Option<String>;
}

/// `verdict` with the text it carries redacted: an error's message, a
/// denial's reason, an approval's prompt. `Continue`, and every verdict when
/// there is no redactor, pass through untouched.
#[inline]
pub(crate) fn redacted(verdict: Verdict, redactor: Option<&dyn Redact>) -> Verdict {
    let Some(redactor) = redactor else {
        return verdict;
    };
    match verdict {
        Ok(Decision::Continue) => Ok(Decision::Continue),
        Ok(Decision::Deny(refusal)) => Ok(Decision::Deny(
            refusal.map_reason(|reason| replaced(redactor, reason)),
        )),
        Ok(Decision::Ask(approval)) => Ok(Decision::Ask(
            approval.map_prompt(|prompt| replaced(redactor, prompt)),
        )),
        Err(HookError::Panicked(message)) => Err(HookError::Panicked(owned(redactor, message))),
        Err(HookError::Failed(message)) => Err(HookError::Failed(owned(redactor, message))),
        Err(error) => Err(error),
    }
}

fn replaced(redactor: &dyn Redact, text: Cow<'static, str>) -> Cow<'static, str> {
    match redactor.redact_text(&text) {
        Some(clean) => Cow::Owned(clean),
        None => text,
    }
}

fn owned(redactor: &dyn Redact, text: String) -> String {
    redactor.redact_text(&text).unwrap_or(text)
}

/// A dispatcher's redactor, held by what it hands on (an approval request).
#[derive(Clone, Default)]
pub(crate) struct SharedRedactor(pub(crate) Option<Arc<dyn Redact>>);

impl fmt::Debug for SharedRedactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Some(..)" } else { "None" })
    }
}
