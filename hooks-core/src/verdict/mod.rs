//! What hooks decide and what a dispatch comes to: [`Decision`]s, the return
//! types hooks may have, outcomes and denials, and the approval exchange with
//! a person. Nothing here knows about contexts, tables or the walk.

mod approval;
mod decision;
mod failure;
mod notes;
mod outcome;
mod output;
mod printable;
mod redact;
mod refusal;

pub(crate) use approval::grace;
pub use approval::{ApprovalAnswer, ApprovalOutcome, ApprovalRecord, ApprovalRequest, Approver};
pub use decision::{Approval, Decision};
pub use failure::HookError;
pub(crate) use failure::{catch, catch_async, guard, within};
pub use notes::{
    EndSession, MessageLevel, Notes, Shadowed, StopCapped, UserMessage, Warning, Would,
};
pub(crate) use outcome::NO_NOTES;
pub use outcome::{Denial, DenialCause, Outcome};
pub use output::{BoxFuture, Deferred, HookOutput, ObserverOutput, Verdict};
pub use printable::printable;
pub use redact::Redact;
pub(crate) use redact::{SharedRedactor, redacted};
pub use refusal::Refusal;
