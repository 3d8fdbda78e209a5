//! A run's ends: the session and the prompt at its start, `Stop` at its end.

use hooks_core::{SessionStart, Stop, UserPromptSubmit};
use rig_agent::agent::{RunSettled, RunStart, RunStartAction, SettledOutcome};
use rig_core::message::Message;

use crate::hook::HooksHook;

impl HooksHook {
    pub(crate) async fn run_start(&self, event: RunStart<'_>) -> RunStartAction {
        // An ended session takes no more prompts.
        if let Some(reason) = self.ended() {
            return RunStartAction::stop(reason);
        }
        if self.first_run() {
            let mut start = SessionStart::new(&self.inner.session).with_source("rig");
            let outcome = self.inner.hooks.dispatch(&mut start).await;
            if let Some(reason) = self.note_end(&outcome) {
                return RunStartAction::stop(reason);
            }
        }
        // A prompt without text (an image, a tool result) has nothing for
        // prompt hooks to read.
        let Some(prompt) = event.prompt.rag_text() else {
            return RunStartAction::Continue;
        };
        let mut ctx = UserPromptSubmit::new(&self.inner.session, prompt);
        let outcome = self.inner.hooks.dispatch(&mut ctx).await;
        if let Some(reason) = self.note_end(&outcome) {
            return RunStartAction::stop(reason);
        }
        if let Some(denial) = outcome.denial() {
            return RunStartAction::stop(denial.reason());
        }
        if ctx.rewrites().is_empty() {
            RunStartAction::Continue
        } else {
            RunStartAction::rewrite(Message::user(ctx.into_prompt()))
        }
    }

    /// rig has settled the run and schedules nothing after it, so a `Stop`
    /// denial (keep going) cannot be honoured: it is logged. A session a
    /// `Stop` hook ends is remembered: the next run stops at its start.
    pub(crate) async fn run_settled(&self, event: RunSettled<'_>) {
        let mut ctx = Stop::new(&self.inner.session);
        if let SettledOutcome::Response(response) = event.outcome {
            ctx = ctx.with_last_message(response.output());
        }
        let outcome = self.inner.hooks.dispatch(&mut ctx).await;
        let _ = self.note_end(&outcome);
        if let Some(denial) = outcome.denial() {
            tracing::warn!(
                hook = %denial.hook(),
                reason = denial.reason(),
                "a stop hook asked the agent to keep going, but rig has settled the run"
            );
        }
    }
}
