//! An upstream that fails the ways real servers do, behind the gateway as a
//! library: an answer over the size of one MCP message fails the call at
//! once (not after the call's timeout), and a crashed upstream is started
//! again while the gateway keeps answering; and an upstream that forges an
//! answer to a tool call gets nothing past the gateway.

mod support;

use std::time::Duration;

use hooks_core::Hooks;
use hooks_mcp::{Gateway, Upstream};
use serde_json::json;
use support::{Scratch, call, connect, test_server, text};

/// A gateway in front of `tests/servers/faulty_server.py`, with `timeout` per call.
async fn faulty_gateway(timeout: Duration, env: &[(&str, &str)]) -> Gateway {
    let mut command = vec!["env".to_owned()];
    command.extend(env.iter().map(|(key, value)| format!("{key}={value}")));
    command.extend(test_server("faulty_server.py"));
    let upstreams = vec![
        Upstream::spawn("faulty", &command)
            .await
            .unwrap()
            .with_call_timeout(timeout),
    ];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .build()
        .unwrap();
    Gateway::new(hooks, upstreams).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_over_the_message_limit_fails_the_call_with_its_size_not_a_timeout() {
    // Ten minutes: were the answer dropped and the call left waiting, the
    // error would say so ("did not answer within 600 s").
    let client = connect(faulty_gateway(Duration::from_secs(600), &[]).await).await;
    let result = call(&client, "big", json!({"megabytes": 17})).await;
    assert_eq!(result.is_error, Some(true));
    let message = text(&result);
    assert!(
        message.contains("over the 16 MiB") && message.contains("faulty"),
        "{message}"
    );
    // The connection is still good: the next answer arrives.
    let result = call(&client, "big", json!({"megabytes": 1})).await;
    assert_eq!(result.is_error, None, "{}", text(&result));
    assert_eq!(text(&result).len(), 1024 * 1024);
}

/// Calls `tool` until `done` holds of its result, a tenth of a second
/// apart, for at most two minutes; the last result.
async fn call_until(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    done: impl Fn(&rmcp::model::CallToolResult) -> bool,
) -> rmcp::model::CallToolResult {
    for _ in 0..1200 {
        let result = call(client, tool, json!({})).await;
        if done(&result) {
            return result;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("`{tool}` never gave the result waited for");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashed_upstream_is_started_again_and_calls_fail_at_once_while_it_is_down() {
    let scratch = Scratch::new("faults");
    let refuse = scratch.path().join("refuse-start");
    let refuse_arg = refuse.display().to_string();
    let client = connect(
        faulty_gateway(
            Duration::from_secs(600),
            &[("FAULTY_REFUSE_START", &refuse_arg)],
        )
        .await,
    )
    .await;
    let first = call(&client, "pid", json!({})).await;
    assert_eq!(first.is_error, None, "{}", text(&first));
    let first_pid = text(&first).to_owned();

    // It cannot come back until the file is gone.
    std::fs::write(&refuse, "").unwrap();
    let crashed = call(&client, "crash", json!({})).await;
    assert_eq!(crashed.is_error, Some(true));
    assert!(text(&crashed).contains("`faulty`"), "{}", text(&crashed));

    // While it is down, calls are answered (within the ten-minute timeout
    // they would otherwise wait), with why; a failed start is tried again.
    let down = call_until(&client, "pid", |result| {
        text(result).contains("could not be started again") && text(result).contains("attempt 2")
    })
    .await;
    assert_eq!(down.is_error, Some(true));
    assert!(
        text(&down).starts_with("the upstream MCP server `faulty` is down"),
        "{}",
        text(&down)
    );

    std::fs::remove_file(&refuse).unwrap();
    let back = call_until(&client, "pid", |result| result.is_error.is_none()).await;
    assert_ne!(text(&back), first_pid, "a new process answers");
}

/// The gateway reads the answer to a `tools/call` itself (not through rmcp's
/// untagged types); a message with both a `result` and an `error` is no
/// answer, and its result must not reach the client as the tool's.
#[tokio::test(flavor = "multi_thread")]
async fn a_forged_answer_with_a_result_and_an_error_never_reaches_the_client() {
    let upstreams = vec![
        Upstream::spawn("forging", &test_server("forging_server.py"))
            .await
            .unwrap()
            .with_call_timeout(Duration::from_secs(3)),
    ];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .build()
        .unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;
    let result = call(&client, "forge", json!({})).await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let shown = serde_json::to_string(&result).unwrap();
    assert!(!shown.contains("SMUGGLED"), "{shown}");
}
