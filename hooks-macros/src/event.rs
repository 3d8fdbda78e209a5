//! The events, as the macros need to know them: generated from the one
//! event table (`hooks-events`).

use proc_macro2::{Ident, Span};

macro_rules! events {
    ($($kind:ident {
        attr: $attr:ident,
        slice: $slice:ident,
        block: $block:literal,
        tool: $tool:literal,
        inject: $inject:literal,
        fail_closed: $closed:literal,
        withhold: $withhold:literal,
        $($rest:tt)*
    })*) => {
        #[derive(Clone, Copy)]
        pub(crate) enum Event {
            $($kind,)*
        }

        impl Event {
            pub(crate) const ALL: &'static [Event] = &[$(Event::$kind),*];

            /// The attribute's name, `pre_tool_use`.
            pub(crate) fn attr(self) -> &'static str {
                match self {
                    $(Event::$kind => stringify!($attr),)*
                }
            }

            /// The context type's name, `PreToolUse`.
            pub(crate) fn context(self) -> &'static str {
                match self {
                    $(Event::$kind => stringify!($kind),)*
                }
            }

            /// The distributed slice this event's hooks go into.
            fn slice(self) -> &'static str {
                match self {
                    $(Event::$kind => stringify!($slice),)*
                }
            }

            pub(crate) fn can_block(self) -> bool {
                match self {
                    $(Event::$kind => $block,)*
                }
            }

            /// Whether hooks may add context for the model.
            pub(crate) fn can_inject(self) -> bool {
                match self {
                    $(Event::$kind => $inject,)*
                }
            }

            /// Whether a failing hook may withhold the event's output, so
            /// `on_error = "deny"` means something though it cannot block.
            pub(crate) fn can_withhold(self) -> bool {
                match self {
                    $(Event::$kind => $withhold,)*
                }
            }

            pub(crate) fn has_tool(self) -> bool {
                match self {
                    $(Event::$kind => $tool,)*
                }
            }
        }

        /// The attribute macros, one per event.
        macro_rules! entry_points {
            () => {$(
                #[doc = concat!("Registers a `", stringify!($attr), "` hook. See `hooks_core::", stringify!($attr), "`.")]
                #[proc_macro_attribute]
                pub fn $attr(args: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
                    crate::expand::expand_with(crate::event::Event::$kind, args.into(), &item.into()).into()
                }
            )*};
        }
        pub(crate) use entry_points;
    };
}

hooks_events::for_each_event!(events);

impl Event {
    /// Whether a hook of this event can do anything `shadow` would hold
    /// back: block, inject context, or withhold (and rewrite) the output.
    pub(crate) fn can_hold_back(self) -> bool {
        self.can_block() || self.can_inject() || self.can_withhold()
    }

    /// The tool events' attributes, for messages: "`#[pre_tool_use]`, ...".
    pub(crate) fn tool_attrs() -> String {
        Event::ALL
            .iter()
            .filter(|event| event.has_tool())
            .map(|event| format!("`#[{}]`", event.attr()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(crate) fn context_ident(self) -> Ident {
        Ident::new(self.context(), Span::call_site())
    }

    pub(crate) fn slice_ident(self) -> Ident {
        Ident::new(self.slice(), Span::call_site())
    }
}
