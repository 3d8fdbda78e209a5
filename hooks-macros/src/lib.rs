//! Attribute macros of `hooks-core`. Use them through `hooks_core`, where
//! they are documented; this crate is an implementation detail.

mod args;
mod event;
mod expand;
mod signature;

use proc_macro::TokenStream;

use crate::event::Event;

macro_rules! entry_points {
    ($($name:ident => $event:ident,)*) => {$(
        #[doc = concat!("Registers a `", stringify!($name), "` hook. See `hooks_core::", stringify!($name), "`.")]
        #[proc_macro_attribute]
        pub fn $name(args: TokenStream, item: TokenStream) -> TokenStream {
            expand::expand_with(Event::$event, args.into(), &item.into()).into()
        }
    )*};
}

entry_points! {
    session_start => SessionStart,
    user_prompt_submit => UserPromptSubmit,
    pre_model_request => PreModelRequest,
    pre_tool_use => PreToolUse,
    post_tool_use => PostToolUse,
    stop => Stop,
    session_end => SessionEnd,
}
