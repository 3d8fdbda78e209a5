//! Semantics a real agent loop needs: tool-call identity, structured
//! outcomes, the events after the model answers, after a tool fails and
//! around sub-agents and compaction, stops that cannot loop for ever, and
//! matchers checked against the agent's tools.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::notes::Would;
use hooks_core::prelude::*;
use hooks_core::{
    ApprovalOutcome, ApprovalRequest, Approver, BoxFuture, BuildProblem, DenialCause, Event,
    Refusal, RunError,
};
use hooks_tests::block_on;

fn session() -> Session {
    Session::new("s")
}

/// An approver that records each request and answers yes.
#[derive(Default, Clone)]
struct Recording(Arc<Mutex<Vec<Option<String>>>>);

impl Approver for Recording {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        self.0
            .lock()
            .unwrap()
            .push(request.call_id().map(ToOwned::to_owned));
        Box::pin(async { ApprovalAnswer::approve().with_id("r-1") })
    }
}

#[test]
fn two_identical_parallel_calls_are_told_apart_by_their_call_id() {
    let approver = Recording::default();
    let hooks = Hooks::builder()
        .without_linked()
        .approver(approver.clone())
        .hook(Hook::new("ask", |_: &mut PreToolUse| Decision::ask("pay?")).matches("pay"))
        .build()
        .unwrap();
    let call = |id: &str| PreToolUse::new(&session(), "pay", json!({"amount": 5})).with_call_id(id);
    let (mut first, mut second) = (call("toolu_1"), call("toolu_2"));
    block_on(async {
        let (a, b) = tokio::join!(hooks.dispatch(&mut first), hooks.dispatch(&mut second));
        assert!(a.is_continue() && b.is_continue());
        // Each outcome says which call it is about.
        assert_eq!(
            (a.call_id(), b.call_id()),
            (Some("toolu_1"), Some("toolu_2"))
        );
    });
    let mut asked = approver.0.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        [Some("toolu_1".to_owned()), Some("toolu_2".to_owned())]
    );
    assert_eq!(first.call_id(), Some("toolu_1"));
    // The JSON form carries it too, and the post-tool-use context inherits it.
    assert_eq!(first.to_json()["call_id"], "toolu_1");
    let post = PostToolUse::after(&first, Ok(json!("paid")));
    assert_eq!(post.call_id(), Some("toolu_1"));
    // The answer's id is recorded with the approval.
    match &first.approvals()[0].outcome {
        ApprovalOutcome::Answered(answer) => assert_eq!(answer.id(), Some("r-1")),
        other => panic!("expected an answer, got {other:?}"),
    }
}

#[test]
fn a_denial_has_a_kind_and_typed_details_as_well_as_text() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("limit", |_: &mut PreToolUse| {
                Decision::rate_limited("slow down; retry in 1.5s", Duration::from_millis(1500))
            })
            .matches("search"),
        )
        .hook(
            Hook::new("budget", |_: &mut PreToolUse| {
                Decision::Deny(
                    Refusal::new("over budget").kind("budget_exceeded", json!({"spent": 12})),
                )
            })
            .matches("buy"),
        )
        .build()
        .unwrap();
    let mut search = PreToolUse::new(&session(), "search", json!({}));
    let outcome = block_on(hooks.dispatch(&mut search));
    let denial = outcome.denial().unwrap();
    assert_eq!(denial.reason(), "slow down; retry in 1.5s");
    assert_eq!(
        denial.cause(),
        &DenialCause::RateLimited {
            retry_after: Duration::from_millis(1500)
        }
    );
    assert_eq!(
        serde_json::to_value(denial).unwrap(),
        json!({"hook": "limit", "reason": "slow down; retry in 1.5s",
               "cause": {"kind": "rate_limited", "retry_after_ms": 1500}})
    );
    let mut buy = PreToolUse::new(&session(), "buy", json!({}));
    let outcome = block_on(hooks.dispatch(&mut buy));
    let cause = outcome.denial().unwrap().cause();
    assert_eq!(cause.kind(), "budget_exceeded");
    assert_eq!(
        serde_json::to_value(cause).unwrap(),
        json!({"kind": "budget_exceeded", "data": {"spent": 12}})
    );
}

#[test]
fn a_failing_hook_and_an_unapproved_ask_serialize_their_causes() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("broken", |_: &mut PreToolUse| -> Result<Decision, String> {
                Err("policy store down".into())
            })
            .matches("a"),
        )
        .hook(Hook::new("asks", |_: &mut PreToolUse| Decision::ask("ok?")).matches("b"))
        .build()
        .unwrap();
    let mut a = PreToolUse::new(&session(), "a", json!({}));
    let cause =
        serde_json::to_value(block_on(hooks.dispatch(&mut a)).denial().unwrap().cause()).unwrap();
    assert_eq!(cause["kind"], "hook_failed");
    assert_eq!(
        cause["error"],
        json!({"kind": "failed", "message": "policy store down"})
    );
    let mut b = PreToolUse::new(&session(), "b", json!({}));
    let cause =
        serde_json::to_value(block_on(hooks.dispatch(&mut b)).denial().unwrap().cause()).unwrap();
    assert_eq!(
        cause,
        json!({"kind": "not_approved", "approval": {"outcome": "no_approver"}})
    );
}

#[test]
fn a_tool_run_tells_a_denial_from_a_tool_error_and_catches_a_panicking_tool() {
    let failures = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&failures);
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("no_rm", |_: &mut PreToolUse| Decision::deny("no rm")).matches("rm"))
        .hook(Hook::new("hint", move |ctx: &mut PostToolUseFailure| {
            seen.fetch_add(1, Ordering::SeqCst);
            ctx.error_mut().message_mut().push_str(" (check the path)");
        }))
        .build()
        .unwrap();
    block_on(async {
        let denied = hooks
            .tool("rm")
            .run(&session(), json!({}), async |_: &Value| {
                Ok::<_, String>(json!("gone"))
            })
            .await;
        assert!(!denied.ran());
        assert!(matches!(denied.into_result(), Err(RunError::Denied(d)) if d.reason() == "no rm"));

        let failed = hooks
            .tool("read")
            .run(&session(), json!({}), async |_: &Value| {
                Err::<Value, _>("no such file")
            })
            .await;
        assert!(failed.ran() && failed.post().is_none());
        assert_eq!(
            failed.failure().unwrap().error().message(),
            "no such file (check the path)"
        );
        match failed.into_result() {
            Err(RunError::Failed(error)) => {
                assert_eq!(error.message(), "no such file (check the path)");
                assert!(!error.is_panic());
            }
            other => panic!("expected a tool error, got {other:?}"),
        }

        let pre = PreToolUse::new(&session(), "read", json!({})).with_call_id("call_9");
        let panicked = hooks
            .tool("read")
            .run_call(pre, async |_: &Value| -> Result<Value, ToolError> {
                panic!("index out of bounds")
            })
            .await;
        let failure = panicked
            .failure()
            .expect("a panic is a failure, not a crash");
        assert!(failure.error().is_panic());
        assert_eq!(failure.call_id(), Some("call_9"));
        assert!(failure.error().message().contains("index out of bounds"));

        let ok = hooks
            .tool("read")
            .run(&session(), json!({}), async |_: &Value| {
                Ok::<_, String>(json!("text"))
            })
            .await;
        assert_eq!(ok.into_result().unwrap(), json!("text"));
    });
    assert_eq!(
        failures.load(Ordering::SeqCst),
        2,
        "one error, one panic; success does not fire it"
    );
}

#[test]
fn post_model_response_rewrites_the_reply_or_discards_it() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("redact", |ctx: &mut PostModelResponse| {
            if ctx.text().contains("10.0.0.7") {
                let text = ctx.text().replace("10.0.0.7", "[internal address]");
                *ctx.text_mut() = text;
            }
            ctx.tool_calls_mut().retain(|call| call.name() != "upload");
        }))
        .hook(
            Hook::new("no_secrets", |ctx: &mut PostModelResponse| {
                if ctx.text().contains("BEGIN PRIVATE KEY") {
                    Decision::deny("the reply contained a private key; answer without it")
                } else {
                    Decision::Continue
                }
            })
            .priority(10),
        )
        .build()
        .unwrap();
    let mut reply = PostModelResponse::new(&session(), "the db is at 10.0.0.7").with_tool_calls([
        RequestedCall::new("upload", json!({"to": "x"})).with_id("c1"),
        RequestedCall::new("read_file", json!({"path": "a"})).with_id("c2"),
    ]);
    assert!(block_on(hooks.dispatch(&mut reply)).is_continue());
    assert_eq!(reply.text(), "the db is at [internal address]");
    assert_eq!(reply.tool_calls().len(), 1);
    assert_eq!(reply.tool_calls()[0].id(), Some("c2"));
    let fields: Vec<_> = reply.rewrites().iter().map(|r| r.field).collect();
    assert_eq!(fields, ["text", "tool_calls"]);

    let mut leaky = PostModelResponse::new(&session(), "-----BEGIN PRIVATE KEY-----");
    let outcome = block_on(hooks.dispatch(&mut leaky));
    assert_eq!(outcome.denial().unwrap().hook(), &"no_secrets");

    // A hook that borrows the text and leaves it is not a rewrite.
    let mut clean = PostModelResponse::new(&session(), "all good");
    assert!(block_on(hooks.dispatch(&mut clean)).is_continue());
    assert!(clean.rewrites().iter().all(|r| r.field != "text"));
}

#[test]
fn sub_agents_can_be_refused_and_kept_going_and_compaction_can_be_told_what_to_keep() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("no_nesting", |ctx: &mut SubagentStart| {
            if ctx.session().parent_agent_id().is_some() {
                Decision::deny("sub-agents may not spawn sub-agents")
            } else {
                ctx.inject(format!("You are {}.", ctx.subagent_id()));
                Decision::Continue
            }
        }))
        .hook(Hook::new("report_first", |ctx: &mut SubagentStop| {
            if ctx.last_message().is_some_and(|m| m.contains("Findings:")) {
                Decision::Continue
            } else {
                Decision::deny("end with your findings")
            }
        }))
        .hook(Hook::new("keep_ticket", |ctx: &mut PreCompact| {
            ctx.inject("Keep ticket T-42.");
        }))
        .build()
        .unwrap();
    let mut spawn = SubagentStart::new(&session(), "researcher", "find the flaky test");
    assert!(block_on(hooks.dispatch(&mut spawn)).is_continue());
    assert_eq!(spawn.injected().text(), "You are researcher.");
    let child = spawn.subagent_session();
    assert_eq!(child.parent_agent_id(), Some("main"));

    let mut nested = SubagentStart::new(&child, "helper", "help");
    assert_eq!(
        block_on(hooks.dispatch(&mut nested))
            .denial()
            .unwrap()
            .reason(),
        "sub-agents may not spawn sub-agents"
    );

    let mut stop = SubagentStop::new(&child).with_last_message("done");
    assert!(block_on(hooks.dispatch(&mut stop)).is_denied());
    let mut stop = SubagentStop::new(&child).with_last_message("Findings: none");
    assert!(block_on(hooks.dispatch(&mut stop)).is_continue());

    let mut compact = PreCompact::new(&session(), CompactTrigger::Manual);
    assert!(block_on(hooks.dispatch(&mut compact)).is_continue());
    assert_eq!(compact.injected().text(), "Keep ticket T-42.");
    assert_eq!(compact.to_json()["trigger"], "manual");
}

fn never_satisfied() -> Hooks {
    Hooks::builder()
        .without_linked()
        .hook(Hook::new("never_done", |_: &mut Stop| {
            Decision::deny("keep going")
        }))
        .stop_denial_cap(3)
        .build()
        .unwrap()
}

#[test]
fn consecutive_stop_denials_are_capped_and_the_cap_is_recorded() {
    let hooks = never_satisfied();
    let session = session();
    for round in 1..=3 {
        let mut stop = Stop::new(&session).with_stop_hook_active(round > 1);
        let outcome = block_on(hooks.dispatch(&mut stop));
        assert!(
            outcome.is_denied(),
            "refusal {round} of 3 keeps the agent going"
        );
    }
    let mut stop = Stop::new(&session).with_stop_hook_active(true);
    let outcome = block_on(hooks.dispatch(&mut stop));
    assert!(
        outcome.is_continue(),
        "the fourth refusal is over the cap: the agent stops"
    );
    let capped = outcome.stop_capped().expect("the cap is recorded");
    assert_eq!((capped.hook.as_str(), capped.cap), ("never_done", 3));
    // The count starts again: the next stop may be refused again.
    let mut stop = Stop::new(&session);
    assert!(block_on(hooks.dispatch(&mut stop)).is_denied());
    // Another session has its own count.
    let mut other = Stop::new(&Session::new("other"));
    assert!(block_on(hooks.dispatch(&mut other)).is_denied());
}

#[test]
fn the_default_cap_is_eight() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("never_done", |_: &mut Stop| {
            Decision::deny("keep going")
        }))
        .build()
        .unwrap();
    let session = session();
    let denied = (0..20)
        .take_while(|_| block_on(hooks.dispatch(&mut Stop::new(&session))).is_denied())
        .count();
    assert_eq!(denied, 8);
}

#[test]
fn an_ask_on_stop_with_nobody_to_ask_lets_the_agent_stop() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("ask_first", |_: &mut Stop| {
            Decision::ask("may the agent stop?")
        }))
        .build()
        .unwrap();
    let mut stop = Stop::new(&session());
    assert!(block_on(hooks.dispatch(&mut stop)).is_continue());
    assert_eq!(stop.approvals()[0].outcome, ApprovalOutcome::NoApprover);
    // Elsewhere an ask with nobody to ask still denies (fail closed).
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("ask_first", |_: &mut PreToolUse| {
            Decision::ask("ok?")
        }))
        .build()
        .unwrap();
    assert!(block_on(hooks.dispatch(&mut PreToolUse::new(&session(), "x", json!({})))).is_denied());
}

#[test]
fn a_pattern_matching_none_of_the_tools_is_a_start_up_error_with_a_suggestion() {
    let error = Hooks::builder()
        .without_linked()
        .tools(["sql_query", "read_file", "Bash"])
        .hook(Hook::new("typo", |_: &mut PreToolUse| {}).matches("sql_qurey"))
        .hook(Hook::new("nothing_like_it", |_: &mut PostToolUse| {}).matches("deploy_*"))
        .hook(Hook::new("fine", |_: &mut PreToolUse| {}).matches("Bash(rm *)|sql_*"))
        .build()
        .unwrap_err();
    let problems: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "pre_tool_use hook `typo`: its pattern \"sql_qurey\" matches none of the agent's tools, so it would never run; did you mean `sql_query`?",
            "post_tool_use hook `nothing_like_it`: its pattern \"deploy_*\" matches none of the agent's tools, so it would never run",
        ]
    );
    assert!(matches!(
        error.problems()[0],
        BuildProblem::MatchesNoTool { .. }
    ));
    // Without the tools, the same builder is fine (the check needs the list).
    assert!(
        Hooks::builder()
            .without_linked()
            .hook(Hook::new("typo", |_: &mut PreToolUse| {}).matches("sql_qurey"))
            .build()
            .is_ok()
    );
}

#[test]
fn describe_lists_the_hooks_of_each_tool() {
    let hooks = Hooks::builder()
        .without_linked()
        .tools(["Bash", "sql_query"])
        .hook(Hook::new("every_call", |_: &mut PreToolUse| {}))
        .hook(Hook::new("no_rm", |_: &mut PreToolUse| {}).matches("Bash(rm *)"))
        .hook(Hook::new("sql_hint", |_: &mut PostToolUseFailure| {}).matches("sql_*"))
        .build()
        .unwrap();
    let description = hooks.describe();
    let names = |tool: usize| -> Vec<(String, bool)> {
        description.tools()[tool]
            .hooks
            .iter()
            .map(|hook| (hook.name.clone(), hook.some_calls))
            .collect()
    };
    assert_eq!(
        names(0),
        [("every_call".into(), false), ("no_rm".into(), true)]
    );
    assert_eq!(
        names(1),
        [("every_call".into(), false), ("sql_hint".into(), false)]
    );
    assert!(
        description
            .to_string()
            .contains("tool Bash: every_call (pre_tool_use), no_rm (pre_tool_use, some calls)")
    );
}

#[test]
fn shadow_hooks_run_and_record_what_they_would_have_done_without_enforcing_it() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("new_guard", |ctx: &mut PreToolUse| {
                ctx.args_mut()["limit"] = json!(10);
                ctx.inject("shadow context");
                ctx.user_message(MessageLevel::Info, "shadow says hi");
                Decision::deny("would refuse sql_drop")
            })
            .shadow(),
        )
        .hook(Hook::new("asker", |_: &mut PreToolUse| Decision::ask("ok?")).group("rollout"))
        .shadow_groups(["rollout"])
        .build()
        .unwrap();
    let mut ctx = PreToolUse::new(&session(), "sql_drop", json!({"table": "t"}));
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(outcome.is_continue(), "a shadow deny is not enforced");
    assert_eq!(
        ctx.args(),
        &json!({"table": "t"}),
        "a shadow rewrite is undone"
    );
    assert!(ctx.injected().is_empty() && ctx.rewrites().is_empty());
    assert!(
        outcome.messages().is_empty(),
        "a shadow hook does not reach the person"
    );
    assert!(
        ctx.approvals().is_empty(),
        "nobody is asked for a shadow ask"
    );
    let shadowed: Vec<(&str, &Would)> = outcome
        .shadowed()
        .iter()
        .map(|s| (s.hook.as_str(), &s.would))
        .collect();
    assert_eq!(
        shadowed,
        // Hooks of equal priority run in name order.
        [
            (
                "asker",
                &Would::Ask {
                    prompt: "ok?".into()
                }
            ),
            (
                "new_guard",
                &Would::Deny {
                    reason: "would refuse sql_drop".into(),
                    kind: "denied".into()
                }
            ),
            (
                "new_guard",
                &Would::Rewrite {
                    fields: vec!["args", "context"]
                }
            ),
        ]
    );
    assert_eq!(
        serde_json::to_value(&outcome.shadowed()[1]).unwrap(),
        json!({"hook": "new_guard", "would": "deny", "reason": "would refuse sql_drop", "kind": "denied"})
    );
    let info = hooks.describe();
    assert!(info.hooks().iter().all(|hook| hook.shadow));
}

#[test]
fn a_shadow_observer_and_an_unknown_shadow_group_are_refused() {
    let error = Hooks::builder()
        .without_linked()
        .hook(Hook::observer("watch", |_: &PreToolUse| {}).shadow())
        .shadow_groups(["nope"])
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("observer `watch` cannot run in shadow"),
        "{text}"
    );
    assert!(text.contains("nope"), "{text}");
}

#[test]
fn messages_and_warnings_are_collected_in_the_outcome_and_roles_kept_on_injections() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("guard", |ctx: &mut UserPromptSubmit| {
            ctx.warn("the prompt mentions production");
            ctx.user_message(MessageLevel::Warning, "careful: production");
            ctx.inject("Be careful.");
            ctx.inject(Injection::user("(This turn only.)").ephemeral());
            Decision::Continue
        }))
        .build()
        .unwrap();
    let mut prompt = UserPromptSubmit::new(&session(), "drop production");
    let outcome = block_on(hooks.dispatch(&mut prompt));
    assert!(outcome.is_continue());
    assert_eq!(outcome.warnings()[0].text, "the prompt mentions production");
    assert_eq!(outcome.warnings()[0].hook.as_ref().unwrap(), &"guard");
    assert_eq!(outcome.messages()[0].level, MessageLevel::Warning);
    assert_eq!(outcome.messages()[0].text, "careful: production");
    let pieces = prompt.injected().pieces();
    assert_eq!(
        (pieces[0].role, pieces[0].ephemeral),
        (hooks_core::Role::System, false)
    );
    assert_eq!(
        (pieces[1].role, pieces[1].ephemeral),
        (hooks_core::Role::User, true)
    );
    assert_eq!(prompt.injected().kept_text(), "Be careful.");
    assert_eq!(prompt.injected().ephemeral_text(), "(This turn only.)");
    // An outcome with nothing noted carries nothing.
    let quiet = Hooks::builder().without_linked().build().unwrap();
    let outcome = block_on(quiet.dispatch(&mut UserPromptSubmit::new(&session(), "hi")));
    assert!(outcome.notes().is_empty());
}

#[test]
fn a_hook_can_end_the_session_and_a_shadow_hook_only_says_it_would() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("quota_watch", |ctx: &mut PreToolUse| {
                ctx.end_session("would end: monthly quota used up");
                Decision::Continue
            })
            .priority(-1)
            .shadow(),
        )
        .hook(Hook::new("quota", |ctx: &mut PreToolUse| {
            if ctx.tool() == "expensive" {
                ctx.end_session("the monthly quota is used up");
                ctx.end_session("a second reason is not kept");
            }
            Decision::Continue
        }))
        .build()
        .unwrap();
    let mut call = PreToolUse::new(&session(), "cheap", json!({}));
    let outcome = block_on(hooks.dispatch(&mut call));
    // The shadow hook's word is noted, not kept.
    assert_eq!(outcome.end_session(), None);
    assert!(outcome.shadowed().iter().any(|shadowed| matches!(
        &shadowed.would,
        Would::Rewrite { fields } if fields.contains(&"end_session")
    )));
    let mut call = PreToolUse::new(&session(), "expensive", json!({}));
    let outcome = block_on(hooks.dispatch(&mut call));
    let end = outcome.end_session().expect("the session ends");
    assert_eq!(end.reason, "the monthly quota is used up");
    assert_eq!(end.hook.as_ref().unwrap(), &"quota");
    // Ending the session decides nothing about this call by itself.
    assert!(outcome.is_continue());
}

#[pre_tool_use(group = "guards", matches = "deploy")]
fn friday_deploys(ctx: &PreToolUse) -> Decision {
    if ctx.args()["day"] == "friday" {
        ctx.warn("a deploy on a Friday");
    }
    if ctx.args()["env"] == "prod" {
        Decision::deny("deploys to prod go through the release train")
    } else {
        Decision::Continue
    }
}

#[test]
fn a_guard_that_takes_a_shared_reference_decides_and_warns() {
    let hooks = Hooks::builder().groups(["guards"]).build().unwrap();
    let mut ctx = PreToolUse::new(
        &session(),
        "deploy",
        json!({"env": "staging", "day": "friday"}),
    );
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(outcome.is_continue());
    assert_eq!(outcome.warnings()[0].text, "a deploy on a Friday");
    assert_eq!(
        ctx.notes().warnings.len(),
        1,
        "the context keeps it for the audit"
    );
    let mut ctx = PreToolUse::new(&session(), "deploy", json!({"env": "prod"}));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_denied());
}
