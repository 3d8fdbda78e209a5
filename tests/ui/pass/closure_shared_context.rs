//! A guard that only reads the call to decide takes it shared: `Hook::new`
//! with `|ctx: &PreToolUse| ..` (and with state) decides like `&mut`.
use hooks_core::prelude::*;

struct Banned(&'static str);

fn main() {
    let hooks = Hooks::builder()
        .without_linked()
        .state(Banned("shutdown"))
        .hook(Hook::new("deny_rm", |ctx: &PreToolUse| {
            if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
        }))
        .hook(Hook::new("deny_banned", |ctx: &PreToolUse, banned: &Banned| {
            if ctx.tool() == banned.0 { Decision::deny("banned") } else { Decision::Continue }
        }))
        .build()
        .unwrap();
    let session = Session::new("s");
    let run = |tool: &'static str| {
        let mut ctx = PreToolUse::new(&session, tool, json!({}));
        hooks_tests::block_on(hooks.dispatch(&mut ctx))
    };
    assert!(run("rm").is_denied());
    assert!(run("shutdown").is_denied());
    assert!(!run("ls").is_denied());
}
