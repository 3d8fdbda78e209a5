//! The gateway as a library, with an in-process client (rmcp's) and real
//! upstream servers from the Python package index: several upstreams
//! namespaced, tool filters that hide tools from the list and from calls,
//! and an upstream killed mid-session (started again) while the other keeps serving.

mod support;

use std::path::Path;
use std::time::Duration;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_core::{Hook, Hooks, PreModelRequest, PreToolUse};
use hooks_mcp::{Gateway, Upstream};
use serde_json::json;
use support::{Repo, call, connect, server_command, test_server, text};

/// `mcp-server-time`, started through a shell that leaves its process id in `pid_file`.
fn time_server_leaving_its_pid(pid_file: &Path) -> Vec<String> {
    let command = server_command("mcp-server-time").join(" ");
    vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!("echo $$ > '{}'; exec {command}", pid_file.display()),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn several_upstreams_are_namespaced_and_filtered_tools_can_be_neither_listed_nor_called() {
    let repo = Repo::with_one_commit();
    let git = repo.server();
    let upstreams = vec![
        Upstream::spawn("time", &server_command("mcp-server-time"))
            .await
            .unwrap(),
        Upstream::spawn("git", &git).await.unwrap(),
    ];
    let names = Gateway::tool_names(&upstreams).unwrap();
    assert_eq!(
        &names[..3],
        [
            "time__get_current_time",
            "time__convert_time",
            "git__git_status"
        ]
    );
    let seen = Arc::new(AtomicUsize::new(0));
    let observed = Arc::clone(&seen);
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .hook(Hook::new("read_only_git", |ctx: &mut PreModelRequest| {
            ctx.exclude_tools(&["git__git_commit", "git__git_add", "git__git_reset"]);
        }))
        // Stands in for the audit log: it sees every refusal.
        .hook(Hook::observer("count_refusals", move |ctx: &PreToolUse| {
            if ctx
                .denial()
                .is_some_and(|denial| denial.hook() == hooks_mcp::FILTER_HOOK)
            {
                observed.fetch_add(1, Ordering::SeqCst);
            }
        }))
        .build()
        .unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;

    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert!(listed.contains(&"git__git_status".to_owned()), "{listed:?}");
    assert!(
        !listed.iter().any(|name| name == "git__git_commit"),
        "{listed:?}"
    );

    // Hidden from the list, and refused by name.
    let refused = call(
        &client,
        "git__git_commit",
        json!({"repo_path": repo.path_str(), "message": "x"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        "the tool `git__git_commit` is not offered to this client"
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "the refusal went through the hooks, where observers (the audit log) see it"
    );

    let now = call(
        &client,
        "time__get_current_time",
        json!({"timezone": "UTC"}),
    )
    .await;
    assert_ne!(now.is_error, Some(true), "{}", text(&now));
    assert_git_serves(&client, &repo).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_killed_mid_session_gives_tool_errors_until_it_is_back_and_the_others_keep_serving()
 {
    let repo = Repo::with_one_commit();
    let pid_file = repo.path().join("time.pid");
    let git = repo.server();
    let upstreams = vec![
        Upstream::spawn("time", &time_server_leaving_its_pid(&pid_file))
            .await
            .unwrap()
            .with_call_timeout(Duration::from_secs(5)),
        Upstream::spawn("git", &git).await.unwrap(),
    ];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .build()
        .unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;
    let before = call(
        &client,
        "time__get_current_time",
        json!({"timezone": "UTC"}),
    )
    .await;
    assert_ne!(before.is_error, Some(true));

    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());

    // Until it is started again, calls fail naming it; then it answers,
    // from a new process.
    let mut failures = 0;
    loop {
        let after = call(
            &client,
            "time__get_current_time",
            json!({"timezone": "UTC"}),
        )
        .await;
        if after.is_error != Some(true) {
            break;
        }
        assert!(
            text(&after).contains("`time`"),
            "names the upstream: {}",
            text(&after)
        );
        failures += 1;
        assert!(failures < 1200, "never started again: {}", text(&after));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let restarted = std::fs::read_to_string(&pid_file).unwrap();
    assert_ne!(restarted.trim(), pid.trim(), "a new process answers");
    // The gateway still lists and serves the other upstream.
    assert!(!client.list_all_tools().await.unwrap().is_empty());
    assert_git_serves(&client, &repo).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_closed_connection_is_forgotten_by_the_approvals() {
    let upstreams = vec![
        Upstream::spawn("time", &server_command("mcp-server-time"))
            .await
            .unwrap(),
    ];
    let approvals = hooks_mcp::ClientApprovals::new();
    let hooks = approvals
        .install(hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams).unwrap())
        .build()
        .unwrap();
    let gateway = Gateway::new(hooks, upstreams)
        .unwrap()
        .with_client_approvals(approvals.clone());
    for round in 1..=3 {
        let client = connect(gateway.connection()).await;
        let _ = call(&client, "get_current_time", json!({"timezone": "UTC"})).await;
        assert_eq!(
            approvals.connected(),
            1,
            "round {round}: this connection is known"
        );
        client.cancel().await.unwrap();
        // The server side winds down on its own task: wait for it, bounded.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while approvals.connected() != 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "round {round}: never forgotten"
            );
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_hangs_past_the_timeout_gives_a_tool_error_and_stays_usable() {
    let server = test_server("asking_server.py");
    let upstreams = vec![
        Upstream::spawn("slow", &server)
            .await
            .unwrap()
            .with_call_timeout(Duration::from_secs(1)),
    ];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .build()
        .unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;
    let started = std::time::Instant::now();
    let hung = call(&client, "nap", json!({"seconds": 30})).await;
    assert_eq!(hung.is_error, Some(true));
    assert_eq!(
        text(&hung),
        "the upstream MCP server `slow` did not answer within 1 s"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the client was not kept waiting"
    );
    let quick = call(&client, "nap", json!({"seconds": 0})).await;
    assert_eq!(text(&quick), "slept 0.0s", "the upstream still serves");
    client.cancel().await.unwrap();
}

/// The git upstream answers `git_status` through the gateway.
async fn assert_git_serves(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    repo: &Repo,
) {
    let status = call(
        client,
        "git__git_status",
        json!({"repo_path": repo.path_str()}),
    )
    .await;
    assert!(
        text(&status).starts_with("Repository status:"),
        "{}",
        text(&status)
    );
}
