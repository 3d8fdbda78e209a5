use hooks_core::prelude::*;

// Notifications are not about a tool call: `matches` has nothing to match.
#[notification(matches = "idle_prompt")]
fn idle(_ctx: &mut Notification) {}

fn main() {}
