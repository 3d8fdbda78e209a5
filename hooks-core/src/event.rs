//! The events, as values: [`EventKind`], generated from the one event table
//! (`hooks-events`), with what each event allows.

use std::fmt;

use serde::Serialize;

macro_rules! event_kind {
    ($($kind:ident {
        attr: $attr:ident,
        slice: $slice:ident,
        block: $block:literal,
        tool: $tool:literal,
        inject: $inject:literal,
        fail_closed: $closed:literal,
        withhold: $withhold:literal,
        what: $what:literal,
        $($rest:tt)*
    })*) => {
        /// The points of an agent's lifecycle where hooks run.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum EventKind {
            $(#[doc = $what] $kind,)*
        }

        impl EventKind {
            /// Every event, in lifecycle order.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$kind),*];

            /// The snake-case name, as in the attribute (`pre_tool_use`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(EventKind::$kind => stringify!($attr),)*
                }
            }

            /// The context type's name, which is also the name Claude Code uses (`PreToolUse`).
            pub const fn context_name(self) -> &'static str {
                match self {
                    $(EventKind::$kind => stringify!($kind),)*
                }
            }

            /// Whether hooks on this event may return [`Decision`](crate::Decision).
            pub const fn can_block(self) -> bool {
                match self {
                    $(EventKind::$kind => $block,)*
                }
            }

            /// Whether this event is about one tool call (so hooks may take `matches`).
            pub const fn has_tool(self) -> bool {
                match self {
                    $(EventKind::$kind => $tool,)*
                }
            }

            /// Whether a failing hook on this event may withhold what the
            /// event hands on (`PostToolUse`: the model gets an error naming
            /// the hook instead of the result), so that `on_error = "deny"`
            /// is possible though the event cannot block.
            pub const fn can_withhold(self) -> bool {
                match self {
                    $(EventKind::$kind => $withhold,)*
                }
            }

            /// Whether `on_error = "deny"` means something on this event:
            /// it can block, or withhold its output.
            pub const fn can_fail_closed(self) -> bool {
                self.can_block() || self.can_withhold()
            }

            /// Whether hooks on this event may add context for the model.
            pub const fn can_inject(self) -> bool {
                match self {
                    $(EventKind::$kind => $inject,)*
                }
            }

            /// What happens when a hook on this event fails and says nothing else.
            ///
            /// Guards fail closed: a failing `UserPromptSubmit`,
            /// `PostModelResponse`, `PreToolUse`, `PermissionRequest` or
            /// `SubagentStart` hook denies. `Stop` and `SubagentStop` fail *open* (the agent
            /// stops): denying a stop keeps the agent running, and a hook that
            /// keeps failing would keep it running for ever. Hooks that cannot
            /// block fail open, with a warning.
            pub const fn default_on_error(self) -> OnError {
                match self {
                    $(EventKind::$kind => if $closed { OnError::Deny } else { OnError::Continue },)*
                }
            }
        }
    };
}

hooks_events::for_each_event!(event_kind);

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a hook's failure (panic, `Err`, timeout) does to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// The call is denied, naming the hook and the cause (fail-closed).
    Deny,
    /// The failure is logged as a `tracing` warning and the chain goes on (fail-open).
    Continue,
}

impl OnError {
    /// The name used in attributes and config files: `deny` or `continue`.
    pub const fn as_str(self) -> &'static str {
        match self {
            OnError::Deny => "deny",
            OnError::Continue => "continue",
        }
    }
}

impl fmt::Display for OnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
