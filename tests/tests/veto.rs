//! Veto and approval: the first `Deny` stops the chain; `Ask` waits until
//! the rest of the chain has allowed the call, then for the approver, and
//! anything but a yes (no, no answer in time, no approver, a failing
//! approver) denies.

use std::future::pending;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{ApprovalOutcome, ApprovalRequest, Approver, BoxFuture, DenialCause};
use hooks_tests::block_on;

#[pre_tool_use(group = "veto", priority = -1)]
fn runs_before(ctx: &mut PreToolUse) {
    ctx.inject("runs_before");
}

#[pre_tool_use(group = "veto", matches = "rm")]
fn denies_rm(_ctx: &mut PreToolUse) -> Decision {
    Decision::deny("rm is not allowed")
}

#[pre_tool_use(group = "veto", priority = 1)]
fn runs_after(ctx: &mut PreToolUse) {
    ctx.inject("runs_after");
}

#[test]
fn the_first_deny_stops_the_chain() {
    let later = Arc::new(AtomicUsize::new(0));
    let counter = later.clone();
    let hooks = Hooks::builder()
        .groups(["veto"])
        .hook(
            Hook::new("runtime_after", move |_: &mut PreToolUse| {
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .priority(100)
            .group("veto"),
        )
        .build()
        .unwrap();

    let mut ctx = PreToolUse::new(&Session::new("s"), "rm", json!({"path": "/"}));
    let outcome = block_on(hooks.dispatch(&mut ctx));
    let denial = outcome.denial().expect("rm is denied");
    assert_eq!(denial.hook(), &"veto::denies_rm");
    assert_eq!(denial.reason(), "rm is not allowed");
    assert_eq!(denial.cause(), &DenialCause::Decided);
    assert_eq!(ctx.injected().text(), "runs_before");
    assert_eq!(later.load(Ordering::SeqCst), 0);

    let mut ctx = PreToolUse::new(&Session::new("s"), "ls", json!({}));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.injected().text(), "runs_before\nruns_after");
    assert_eq!(later.load(Ordering::SeqCst), 1);
}

#[pre_tool_use(group = "ask", matches = "pay")]
fn ask_to_pay(ctx: &mut PreToolUse) -> Decision {
    let prompt = format!("pay {}?", ctx.args()["amount"]);
    Decision::Ask(Approval::new(prompt).timeout(Duration::from_millis(50)))
}

/// Runs before the person is asked, though it comes later in the chain.
#[pre_tool_use(group = "ask", matches = "pay", priority = 1)]
fn after_approval(ctx: &mut PreToolUse) {
    ctx.inject("after_approval");
}

fn pay() -> PreToolUse {
    PreToolUse::new(
        &Session::new("sess-pay").with_user("carol"),
        "pay",
        json!({"amount": 120}),
    )
}

#[test]
fn without_an_approver_asking_denies() {
    let hooks = Hooks::builder().groups(["ask"]).build().unwrap();
    let mut ctx = pay();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    let denial = outcome.denial().unwrap();
    assert_eq!(denial.hook(), &"veto::ask_to_pay");
    assert_eq!(
        denial.reason(),
        "approval \"pay 120?\" is required but no approver is configured; denied by default"
    );
    assert_eq!(
        denial.cause(),
        &DenialCause::NotApproved(ApprovalOutcome::NoApprover)
    );
    assert_eq!(
        ctx.injected().text(),
        "after_approval",
        "the chain ran to its end before the ask"
    );
    assert_eq!(ctx.approvals()[0].outcome, ApprovalOutcome::NoApprover);
}

#[test]
fn an_approval_lets_the_chain_go_on_and_is_recorded() {
    let hooks = Hooks::builder()
        .groups(["ask"])
        .approver(|request: &ApprovalRequest| {
            assert_eq!(request.tool(), Some("pay"));
            assert_eq!(request.args(), Some(&json!({"amount": 120})));
            assert_eq!(request.prompt(), "pay 120?");
            assert_eq!(request.session().user_id(), Some("carol"));
            assert_eq!(request.hook(), &"veto::ask_to_pay");
            ApprovalAnswer::approve().by("alice")
        })
        .build()
        .unwrap();
    let mut ctx = pay();
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.injected().text(), "after_approval");
    let record = &ctx.approvals()[0];
    assert_eq!(record.prompt, "pay 120?");
    assert_eq!(
        record.outcome,
        ApprovalOutcome::Answered(ApprovalAnswer::approve().by("alice"))
    );
}

#[test]
fn a_refusal_denies_with_who_and_why() {
    let hooks = Hooks::builder()
        .groups(["ask"])
        .approver(|_: &ApprovalRequest| ApprovalAnswer::deny("over budget").by("bob"))
        .build()
        .unwrap();
    let mut ctx = pay();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "not approved by bob: over budget"
    );
}

struct NeverAnswers;

impl Approver for NeverAnswers {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        Box::pin(pending())
    }
}

#[tokio::test]
async fn no_answer_by_the_timeout_denies() {
    let hooks = Hooks::builder()
        .groups(["ask"])
        .approver(NeverAnswers)
        .build()
        .unwrap();
    let mut ctx = pay();
    let outcome = hooks.dispatch(&mut ctx).await;
    let denial = outcome.denial().unwrap();
    assert_eq!(
        denial.reason(),
        "approval \"pay 120?\" got no answer within 50 ms; denied by default"
    );
    assert_eq!(
        denial.cause(),
        &DenialCause::NotApproved(ApprovalOutcome::TimedOut { after_ms: 50 })
    );
}

#[tokio::test]
async fn a_panicking_approver_denies() {
    let hooks = Hooks::builder()
        .groups(["ask"])
        .approver(|_: &ApprovalRequest| -> ApprovalAnswer { panic!("approval service crashed") })
        .build()
        .unwrap();
    let mut ctx = pay();
    let outcome = hooks.dispatch(&mut ctx).await;
    let reason = outcome.denial().unwrap().reason().to_owned();
    assert!(
        reason.contains("could not be asked (panicked: approval service crashed)"),
        "{reason}"
    );
}

#[test]
fn several_hooks_asking_about_one_call_are_one_question_to_the_person() {
    use std::sync::Mutex;
    let asked = std::sync::Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = std::sync::Arc::clone(&asked);
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("limits::amount", |_: &PreToolUse| {
                Decision::ask("over 100?")
            })
            .priority(1),
        )
        .hook(
            Hook::new("limits::recipient", |_: &PreToolUse| {
                Decision::ask("a new payee?")
            })
            .priority(2),
        )
        .approver(move |request: &ApprovalRequest| {
            seen.lock().unwrap().push(request.prompt().to_owned());
            ApprovalAnswer::approve().by("alice")
        })
        .build()
        .unwrap();
    let mut ctx = pay();
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    // Asked once, with both hooks' questions in it.
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].contains("over 100?") && asked[0].contains("a new payee?"),
        "{asked:?}"
    );
    // Each hook's ask is recorded with the one answer.
    let records = ctx.approvals();
    assert_eq!(records.len(), 2, "{records:?}");
    for record in records {
        assert_eq!(
            record.outcome,
            ApprovalOutcome::Answered(ApprovalAnswer::approve().by("alice"))
        );
    }
    assert_eq!(records[0].prompt, "over 100?");
    assert_eq!(records[1].prompt, "a new payee?");

    // A no to the one question denies the call, once.
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("limits::amount", |_: &PreToolUse| {
            Decision::ask("over 100?")
        }))
        .hook(Hook::new("limits::recipient", |_: &PreToolUse| {
            Decision::ask("a new payee?")
        }))
        .approver(|_: &ApprovalRequest| ApprovalAnswer::deny("not today").by("bob"))
        .build()
        .unwrap();
    let mut ctx = pay();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(outcome.denial().unwrap().reason().contains("not today"));
}
