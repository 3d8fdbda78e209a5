//! The attack of an answer dated in the future, run on every approval store.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use hooks_core::prelude::*;
use hooks_std::approval::{Answer, ApprovalGate, Request, ScriptedChannel};

/// The attack on any store: a call is asked and denied; its row is then
/// made an unused yes dated an hour ahead (a forged row, or a clock set
/// wrong where it was answered). The same call again must not run on it:
/// the person is asked again (and says no), and the row is spent, so it is
/// not used either once its time has come.
pub(crate) async fn a_yes_dated_ahead_is_not_used(
    gate: ApprovalGate,
    forge: impl AsyncFnOnce(i64),
    spent: impl AsyncFnOnce(i64) -> bool,
) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let gate = gate.channel(ScriptedChannel(move |request: &Request| {
        record.lock().unwrap().push(request.id);
        Some(Answer::deny("bob", "not now"))
    }));
    let hooks = Hooks::builder()
        .only(["hooks_std::approval::gate"])
        .state(gate.policy().clone())
        .approver(gate)
        .build()
        .unwrap();
    let call = || PreToolUse::new(&Session::new("s"), "payments_send", json!({"amount": 10}));
    assert!(!hooks.dispatch(&mut call()).await.is_continue());
    let first = asked.lock().unwrap()[0];
    forge(first).await;
    let outcome = hooks.dispatch(&mut call()).await;
    assert!(
        !outcome.is_continue(),
        "the call ran on a yes dated an hour ahead"
    );
    assert_eq!(asked.lock().unwrap().len(), 2, "the person was asked again");
    assert!(spent(first).await, "the yes dated ahead is still usable");
}

/// An hour from now, as the stores write times.
pub(crate) fn an_hour_ahead() -> String {
    humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(3_600)).to_string()
}
