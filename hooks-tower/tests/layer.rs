//! The layer with a real tool service and tower's own middleware around and
//! under it: a denied call never reaches the service, rewrites reach it and
//! the caller, a timeout under the layer is a failure the hooks see (with
//! tower's error kept), a concurrency limit above it holds, and the audit
//! log has one record per call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::audit::{Audit, Auditor};
use hooks_tower::{HookedError, HooksLayer, ToolRequest};
use tower::{BoxError, Service, ServiceBuilder, ServiceExt, service_fn};

hooks_core::link!(hooks_std);

/// Counts calls and how many run at once; echoes the arguments; sleeps as asked.
#[derive(Default)]
struct Counters {
    calls: AtomicUsize,
    running: AtomicUsize,
    most_at_once: AtomicUsize,
}

fn tool(
    counters: Arc<Counters>,
) -> impl Service<ToolRequest, Response = Value, Error = BoxError, Future: Send> + Clone + Send {
    service_fn(move |call: ToolRequest| {
        let counters = Arc::clone(&counters);
        async move {
            counters.calls.fetch_add(1, Ordering::SeqCst);
            let now = counters.running.fetch_add(1, Ordering::SeqCst) + 1;
            counters.most_at_once.fetch_max(now, Ordering::SeqCst);
            if let Some(ms) = call.args["sleep_ms"].as_u64() {
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            counters.running.fetch_sub(1, Ordering::SeqCst);
            Ok::<_, BoxError>(json!({"tool": call.tool, "args": call.args}))
        }
    })
}

fn hooks(audit: &std::path::Path) -> Hooks {
    Hooks::builder()
        .only([
            "hooks_std::audit::gate",
            "hooks_std::audit::denied",
            "hooks_std::audit::completed",
            "hooks_std::audit::failed",
            "no_drops",
            "cap_limit",
            "tag",
            "explain_timeouts",
        ])
        .state(
            Auditor::from_config(Audit {
                path: audit.to_owned(),
                ..Audit::default()
            })
            .unwrap(),
        )
        .hook(Hook::new("no_drops", |ctx: &mut PreToolUse| {
            if ctx.args()["query"]
                .as_str()
                .is_some_and(|q| q.starts_with("DROP"))
            {
                Decision::deny("DROP is not allowed")
            } else {
                Decision::Continue
            }
        }))
        .hook(Hook::new("cap_limit", |ctx: &mut PreToolUse| {
            if ctx.args()["limit"]
                .as_u64()
                .is_some_and(|limit| limit > 100)
            {
                ctx.args_mut()["limit"] = json!(100);
            }
        }))
        .hook(Hook::new("tag", |ctx: &mut PostToolUse| {
            if let Ok(result) = ctx.result_mut() {
                result["checked"] = json!(true);
            }
        }))
        .hook(Hook::new(
            "explain_timeouts",
            |ctx: &mut PostToolUseFailure| {
                if ctx.error().message().contains("timed out") {
                    ctx.error_mut()
                        .message_mut()
                        .push_str(": the tool took too long; ask for less");
                }
            },
        ))
        .build()
        .unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("hooks-tower-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test]
async fn the_hooks_run_around_the_service_with_tower_layers_above_and_below() {
    let audit = temp("audit.jsonl");
    let counters = Arc::new(Counters::default());
    let tools = ServiceBuilder::new()
        .layer(HooksLayer::new(hooks(&audit)))
        .timeout(Duration::from_millis(200))
        .service(tool(Arc::clone(&counters)));
    let session = Session::new("s1");

    let denied = tools
        .clone()
        .oneshot(
            ToolRequest::new(&session, "sql", json!({"query": "DROP TABLE t"})).with_call_id("c1"),
        )
        .await;
    match denied {
        Err(HookedError::Denied(denial)) => assert_eq!(denial.reason(), "DROP is not allowed"),
        other => panic!("expected a denial, got {other:?}"),
    }
    assert_eq!(
        counters.calls.load(Ordering::SeqCst),
        0,
        "a denied call never reaches the service"
    );

    let ran = tools
        .clone()
        .oneshot(
            ToolRequest::new(&session, "sql", json!({"query": "SELECT 1", "limit": 5000}))
                .with_call_id("c2"),
        )
        .await
        .unwrap();
    assert_eq!(ran["args"]["limit"], 100, "the rewrite reached the service");
    assert_eq!(
        ran["checked"], true,
        "the post-tool rewrite reached the caller"
    );

    let slow = tools
        .clone()
        .oneshot(ToolRequest::new(&session, "sql", json!({"sleep_ms": 5_000})).with_call_id("c3"))
        .await;
    match slow {
        Err(HookedError::Failed { error, source }) => {
            assert!(
                error.message().ends_with("ask for less"),
                "{}",
                error.message()
            );
            let source = source.expect("tower's own error is kept");
            assert!(source.is::<tower::timeout::error::Elapsed>(), "{source}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }

    // One audit record per call, with the call ids.
    let records: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let seen: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["call_id"].as_str().unwrap(),
                r["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("c1", "denied"), ("c2", "allowed"), ("c3", "allowed")]
    );
    assert!(
        records[2]["error"]
            .as_str()
            .unwrap()
            .contains("ask for less")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_concurrency_limit_above_the_layer_holds_for_the_hooked_calls() {
    let audit = temp("limit.jsonl");
    let counters = Arc::new(Counters::default());
    let tools = ServiceBuilder::new()
        .concurrency_limit(2)
        .layer(HooksLayer::new(hooks(&audit)))
        .service(tool(Arc::clone(&counters)));
    let session = Session::new("s2");
    let calls = (0..8).map(|n| {
        tools.clone().oneshot(ToolRequest::new(
            &session,
            "work",
            json!({"sleep_ms": 30, "n": n}),
        ))
    });
    let results = futures_join(calls).await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(counters.calls.load(Ordering::SeqCst), 8);
    assert_eq!(
        counters.most_at_once.load(Ordering::SeqCst),
        2,
        "never more than the limit at once"
    );
}

/// Runs the futures concurrently, each in a task.
async fn futures_join<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let tasks: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::new();
    for task in tasks {
        outputs.push(task.await.unwrap());
    }
    outputs
}

/// With no hook after the call (none on `post_tool_use` or its failure), the
/// service takes the arguments as the pre-hooks left them and its answer or
/// error reaches the caller as it would through empty post-hooks.
#[tokio::test]
async fn without_post_hooks_the_service_gets_the_rewritten_arguments_and_answers_itself() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("pin", |ctx: &mut PreToolUse| {
            ctx.args_mut()["host"] = json!("api.internal");
        }))
        .build()
        .unwrap();
    assert_eq!(
        hooks.count::<PostToolUse>() + hooks.count::<PostToolUseFailure>(),
        0
    );
    let service = service_fn(|call: ToolRequest| async move {
        if call.args["fail"] == true {
            Err::<Value, BoxError>("the tool broke".into())
        } else {
            Ok(json!({"host": call.args["host"]}))
        }
    });
    let layer = ServiceBuilder::new()
        .layer(HooksLayer::new(hooks))
        .service(service);
    let session = Session::new("s");
    let answer = layer
        .clone()
        .oneshot(ToolRequest::new(&session, "get", json!({"host": "evil"})))
        .await
        .unwrap();
    assert_eq!(answer, json!({"host": "api.internal"}));
    let error = layer
        .oneshot(ToolRequest::new(&session, "get", json!({"fail": true})))
        .await
        .unwrap_err();
    match error {
        HookedError::Failed {
            error,
            source: Some(source),
        } => {
            assert_eq!(error.message(), "the tool broke");
            assert_eq!(source.to_string(), "the tool broke");
        }
        other => panic!("expected the service's failure, got {other:?}"),
    }
}

/// A pre-hook that really waits (a timer) still decides the call: the layer
/// runs what it can at once and awaits the rest, and the service is not
/// called before the hook has answered — nor at all when it denies.
#[tokio::test]
async fn a_pre_hook_that_waits_still_decides_before_the_service_runs() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new_async("slow_guard", |ctx: &mut PreToolUse| {
                Box::pin(async move {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    if ctx.args()["query"] == "DROP" {
                        Decision::deny("DROP is not allowed")
                    } else {
                        Decision::Continue
                    }
                })
            })
            .timeout(Duration::from_secs(30)),
        )
        .build()
        .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    let service = service_fn(move |_: ToolRequest| {
        seen.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, BoxError>(json!({"rows": 1})) }
    });
    let layer = ServiceBuilder::new()
        .layer(HooksLayer::new(hooks))
        .service(service);
    let session = Session::new("s");
    let denied = layer
        .clone()
        .oneshot(ToolRequest::new(&session, "sql", json!({"query": "DROP"})))
        .await
        .unwrap_err();
    assert!(
        matches!(&denied, HookedError::Denied(denial) if denial.reason() == "DROP is not allowed"),
        "{denied:?}"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "a denied call never reaches the service"
    );
    let answer = layer
        .oneshot(ToolRequest::new(
            &session,
            "sql",
            json!({"query": "SELECT"}),
        ))
        .await
        .unwrap();
    assert_eq!(answer, json!({"rows": 1}));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
