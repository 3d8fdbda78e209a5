//! Injection: context from every hook is concatenated in order within a byte
//! budget, and whatever is cut is said: in the result, in the text, in a warning.

use hooks_core::context::InjectionCut;
use hooks_core::prelude::*;
use hooks_tests::{block_on, capture_logs};

#[session_start(group = "inject", priority = 1)]
fn sixty_bytes(ctx: &mut SessionStart) {
    ctx.inject("x".repeat(60));
}

#[session_start(group = "inject", priority = 2)]
fn four_bytes(ctx: &mut SessionStart) {
    ctx.inject("tail");
}

fn start(budget: Option<usize>) -> SessionStart {
    let mut builder = Hooks::builder().groups(["inject"]);
    if let Some(budget) = budget {
        builder = builder.injection_budget(budget);
    }
    let hooks = builder.build().unwrap();
    let mut ctx = SessionStart::new(&Session::new("s"));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    ctx
}

#[test]
fn everything_fits_in_the_default_budget_in_order() {
    let ctx = start(None);
    assert_eq!(ctx.injected().budget(), 10 * 1024);
    assert_eq!(ctx.injected().text(), format!("{}\ntail", "x".repeat(60)));
    assert!(ctx.injected().cuts().is_empty());
}

#[test]
fn a_cut_is_reported_with_the_hook_and_sizes() {
    let (ctx, logs) = capture_logs(|| start(Some(64)));
    // 60 bytes, a newline, then room for three of the four bytes of "tail".
    assert_eq!(
        ctx.injected().cuts(),
        [InjectionCut {
            hook: Some("injection::four_bytes".into()),
            offered: 4,
            kept: 3
        }]
    );
    let text = ctx.injected().text();
    assert!(
        text.starts_with(&format!("{}\ntai\n", "x".repeat(60))),
        "{text}"
    );
    assert!(
        text.ends_with("[hooks: 1 of 4 bytes of context from `injection::four_bytes` were cut to fit the 64-byte budget]"),
        "{text}"
    );
    assert!(
        logs.contains("injected context cut to fit the budget"),
        "{logs}"
    );
    assert!(logs.contains("injection::four_bytes"), "{logs}");
}

#[test]
fn hooks_past_a_full_budget_are_cut_entirely_and_each_is_named() {
    let ctx = start(Some(10));
    let cuts = ctx.injected().cuts();
    assert_eq!(cuts.len(), 2);
    assert_eq!((cuts[0].offered, cuts[0].kept), (60, 10));
    assert_eq!((cuts[1].offered, cuts[1].kept), (4, 0));
    assert!(
        ctx.injected()
            .text()
            .starts_with("xxxxxxxxxx\n[hooks: 50 of 60")
    );
}
