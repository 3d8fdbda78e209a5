use hooks_core::prelude::*;

#[session_end]
fn goodbye() {}

fn main() {}
