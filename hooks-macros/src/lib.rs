//! Attribute macros of `hooks-core`. Use them through `hooks_core`, where
//! they are documented; this crate is an implementation detail.

mod args;
mod event;
mod expand;
mod item;
mod repair;
mod shown;
mod signature;
mod state;

event::entry_points!();
