use serde::Serialize;

use super::fingerprint::{Fingerprint, Print};
use super::{Rewritable, Saved, Trail, restored};
use crate::session::Session;

/// The context of `#[user_prompt_submit]` hooks: the user submitted a prompt.
///
/// Hooks may block it, rewrite it, or inject context.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "user_prompt_submit")]
pub struct UserPromptSubmit {
    pub(crate) session: Session,
    prompt: String,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl UserPromptSubmit {
    /// The context for this prompt.
    pub fn new(session: &Session, prompt: impl Into<String>) -> Self {
        UserPromptSubmit {
            session: session.clone(),
            prompt: prompt.into(),
            trail: Trail::default(),
        }
    }

    /// The prompt, as rewritten by earlier hooks.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The prompt, to rewrite. If the hook changes it, the rewrite is
    /// recorded under its name when it returns.
    pub fn prompt_mut(&mut self) -> &mut String {
        super::touch(&mut self.trail, "prompt", &self.prompt);
        &mut self.prompt
    }

    /// The final prompt.
    pub fn into_prompt(self) -> String {
        self.prompt
    }
}

impl Rewritable for UserPromptSubmit {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "prompt" => self.prompt.print(),
            _ => Print::NONE,
        }
    }

    fn save(&self) -> Saved {
        Box::new(self.prompt.clone())
    }

    fn restore(&mut self, saved: Saved) {
        if let Some(prompt) = restored(saved) {
            self.prompt = prompt;
        }
    }
}
