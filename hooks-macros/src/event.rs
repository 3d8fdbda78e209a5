use proc_macro2::{Ident, Span};

/// The seven events, as the macros need to know them.
#[derive(Clone, Copy)]
pub(crate) enum Event {
    SessionStart,
    UserPromptSubmit,
    PreModelRequest,
    PreToolUse,
    PostToolUse,
    Stop,
    SessionEnd,
}

impl Event {
    /// The attribute's name, `pre_tool_use`.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Event::SessionStart => "session_start",
            Event::UserPromptSubmit => "user_prompt_submit",
            Event::PreModelRequest => "pre_model_request",
            Event::PreToolUse => "pre_tool_use",
            Event::PostToolUse => "post_tool_use",
            Event::Stop => "stop",
            Event::SessionEnd => "session_end",
        }
    }

    /// The context type's name, `PreToolUse`.
    pub(crate) fn context(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::PreModelRequest => "PreModelRequest",
            Event::PreToolUse => "PreToolUse",
            Event::PostToolUse => "PostToolUse",
            Event::Stop => "Stop",
            Event::SessionEnd => "SessionEnd",
        }
    }

    pub(crate) fn context_ident(self) -> Ident {
        Ident::new(self.context(), Span::call_site())
    }

    /// The distributed slice this event's hooks go into.
    pub(crate) fn slice_ident(self) -> Ident {
        let name = format!("__HOOKS_CORE_V1_{}", self.attr().to_ascii_uppercase());
        Ident::new(&name, Span::call_site())
    }

    pub(crate) fn can_block(self) -> bool {
        matches!(
            self,
            Event::UserPromptSubmit | Event::PreToolUse | Event::Stop
        )
    }

    pub(crate) fn has_tool(self) -> bool {
        matches!(self, Event::PreToolUse | Event::PostToolUse)
    }
}
