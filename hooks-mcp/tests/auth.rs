//! Identity over HTTP, against a real `hooks-mcp --http` in front of
//! `mcp-server-time`: bearer tokens from a file (401 and the RFC 9728
//! metadata otherwise), the principal as the session's user (separate
//! rate-limit budgets, named in the audit log), MCP sessions bound to the
//! principal that opened them, and clients of the stateless revision
//! 2026-07-28 (rmcp's own client, `server/discover` and per-request `_meta`).

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use support::{Scratch, audit_records, server_command};

/// Start-up of the gateway (its first start installs the Python servers).
const START: Duration = Duration::from_secs(300);

const ALICE: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const BOB: &str = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9";

/// A `hooks-mcp` this test started; killed when dropped.
struct Gateway {
    child: Child,
    url: String,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A token file (`chmod 600`) holding alice's and bob's tokens.
fn token_file(dir: &Scratch) -> PathBuf {
    dir.write(
        "tokens",
        &format!("# who may call\nalice {ALICE}\nbob {BOB}\n"),
    );
    let path = dir.path().join("tokens");
    set_mode(&path, 0o600);
    path
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `hooks-mcp --http 127.0.0.1:0 ARGS -- mcp-server-time`, with `config`;
/// waits for its `listening on` line.
fn start(dir: &Scratch, config: &str, args: &[&str]) -> Gateway {
    dir.write("hooks.toml", config);
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks-mcp"))
        .args(["--http", "127.0.0.1:0", "--config"])
        .arg(dir.path().join("hooks.toml"))
        .args(args)
        .arg("--")
        .args(server_command("mcp-server-time"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("gateway: {line}");
            let _ = sender.send(line);
        }
    });
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(START) {
            Ok(line) => match line.strip_prefix("hooks-mcp: listening on ") {
                Some(url) => {
                    return Gateway {
                        child,
                        url: url.to_owned(),
                    };
                }
                None => seen.push(line),
            },
            Err(error) => {
                let _ = child.kill();
                panic!("the gateway did not start ({error}):\n{}", seen.join("\n"));
            }
        }
    }
}

/// `hooks-mcp ARGS`, which must refuse to start: its status and stderr.
fn refused(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_hooks-mcp"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

/// An rmcp client of the gateway, as `token`'s holder, named `client`,
/// speaking `lifecycle`.
async fn client(
    gateway: &Gateway,
    token: &str,
    client: &str,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, ClientConfig> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(gateway.url.clone()).auth_header(token),
    );
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(client, "1.0"),
    );
    info.serve_with_lifecycle(transport, lifecycle)
        .await
        .unwrap_or_else(|error| panic!("{client} could not connect: {error}"))
}

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

/// Calls `get_current_time`: whether it was refused, and the text.
async fn now(client: &RunningService<RoleClient, ClientConfig>) -> (bool, String) {
    let mut params = CallToolRequestParams::new("get_current_time");
    params.arguments = json!({"timezone": "UTC"}).as_object().cloned();
    let result = client.call_tool(params).await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    (result.is_error == Some(true), text)
}

/// An audit log, and a budget of two calls a tool per user an hour.
fn budget_config(audit: &Path) -> String {
    format!(
        "[rate_limit]\nrules = [{{ max = 2, per = \"1h\" }}]\n\n[audit_log]\npath = \"{}\"\n",
        audit.display()
    )
}

#[test]
fn http_needs_authentication_asked_for_or_refused_explicitly() {
    let time = server_command("mcp-server-time");
    let with = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--");
        all.extend(time.iter().map(String::as_str));
        refused(&all)
    };
    let error = with(&["--http", "127.0.0.1:0"]);
    assert!(
        error.contains("needs authentication: `--tokens FILE`"),
        "{error}"
    );
    let error = with(&["--http", "0.0.0.0:0", "--no-auth"]);
    assert!(
        error.contains("`--no-auth` serves only a loopback address"),
        "{error}"
    );

    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let tokens = tokens.to_str().unwrap();
    let error = with(&["--http", "127.0.0.1:0", "--tokens", tokens, "--no-auth"]);
    assert!(error.contains("contradict"), "{error}");
    let error = with(&["--tokens", tokens]);
    assert!(error.contains("are for `--http`"), "{error}");

    // Open to others: anyone on the machine could read every token.
    set_mode(Path::new(tokens), 0o644);
    let error = with(&["--http", "127.0.0.1:0", "--tokens", tokens]);
    assert!(
        error.contains("open to other users (mode 644): `chmod 600"),
        "{error}"
    );

    dir.write("weak", "alice password123password123\n");
    let weak = dir.path().join("weak");
    set_mode(&weak, 0o600);
    let error = with(&["--http", "127.0.0.1:0", "--tokens", weak.to_str().unwrap()]);
    assert!(
        error.contains("the token of `alice`: the token is too easy to guess"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_a_known_token_gets_401_pointing_to_the_metadata() {
    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let gateway = start(
        &dir,
        "",
        &[
            "--tokens",
            tokens.to_str().unwrap(),
            "--authorization-server",
            "https://auth.example",
        ],
    );
    let origin = gateway.url.trim_end_matches("/mcp").to_owned();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    });
    let http = reqwest::Client::new();
    let post = async |token: Option<&str>| {
        let mut request = http
            .post(&gateway.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(initialize.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|value| value.to_str().unwrap().to_owned());
        (response.status().as_u16(), challenge)
    };
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        post(None).await,
        (
            401,
            Some(format!("Bearer resource_metadata=\"{metadata_url}\""))
        )
    );
    assert_eq!(
        post(Some(&ALICE[1..])).await,
        (
            401,
            Some(format!(
                "Bearer resource_metadata=\"{metadata_url}\", error=\"invalid_token\""
            ))
        )
    );
    assert_eq!(post(Some(ALICE)).await, (200, None));

    // Served to anyone: it is how a client without a token finds where to get one.
    for url in [
        &metadata_url,
        &format!("{origin}/.well-known/oauth-protected-resource"),
    ] {
        let response = http.get(url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        let metadata: Value = response.json().await.unwrap();
        assert_eq!(metadata["resource"], gateway.url, "{metadata}");
        assert_eq!(
            metadata["authorization_servers"],
            json!(["https://auth.example"])
        );
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_principals_have_separate_budgets_and_the_audit_names_each() {
    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let audit = dir.path().join("audit.jsonl");
    let gateway = start(
        &dir,
        &budget_config(&audit),
        &["--tokens", tokens.to_str().unwrap()],
    );
    let alice = client(&gateway, ALICE, "agent-a", ClientLifecycleMode::Initialize).await;
    let bob = client(&gateway, BOB, "agent-b", ClientLifecycleMode::Initialize).await;
    assert!(!now(&alice).await.0);
    assert!(!now(&alice).await.0);
    let (refused, reason) = now(&alice).await;
    assert!(refused, "alice's third call is over her budget: {reason}");
    // Bob's budget is his own.
    let (refused, answer) = now(&bob).await;
    assert!(!refused, "{answer}");
    alice.cancel().await.unwrap();
    bob.cancel().await.unwrap();

    let records = audit_records(&audit);
    let seen: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["user"].as_str().unwrap(),
                r["agent"].as_str().unwrap(),
                r["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("alice", "agent-a", "allowed"),
            ("alice", "agent-a", "allowed"),
            ("alice", "agent-a", "denied"),
            ("bob", "agent-b", "allowed"),
        ],
        "{records:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_cannot_use_an_mcp_session_another_opened() {
    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let audit = dir.path().join("audit.jsonl");
    let gateway = start(
        &dir,
        &budget_config(&audit),
        &["--tokens", tokens.to_str().unwrap()],
    );
    let http = reqwest::Client::new();
    let post = async |token: &str, session: Option<&str>, body: Value| {
        let mut request = http
            .post(&gateway.url)
            .bearer_auth(token)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("Mcp-Session-Id", session);
        }
        let response = request.send().await.unwrap();
        let id = response
            .headers()
            .get("mcp-session-id")
            .map(|id| id.to_str().unwrap().to_owned());
        (
            response.status().as_u16(),
            id,
            response.text().await.unwrap(),
        )
    };
    let (status, session, _) = post(
        ALICE,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "alice-agent", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200);
    let session = session.expect("alice's session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(ALICE, Some(&session), initialized).await.0, 202);

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get_current_time", "arguments": {"timezone": "UTC"}}});
    // Bob holds a valid token, and alice's session id (leaked in a log, say).
    let (status, _, body) = post(BOB, Some(&session), call.clone()).await;
    assert_eq!(status, 404, "{body}");
    let (status, _, body) = post(ALICE, Some(&session), call).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"timezone\""), "{body}");

    // Only alice's call ran, recorded as hers.
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["user"], "alice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_clients_are_served_one_hooks_session_per_principal_and_client() {
    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let audit = dir.path().join("audit.jsonl");
    let gateway = start(
        &dir,
        &budget_config(&audit),
        &["--tokens", tokens.to_str().unwrap()],
    );
    let alice = client(&gateway, ALICE, "agent-a", modern()).await;
    let bob = client(&gateway, BOB, "agent-a", modern()).await;
    assert_eq!(
        alice.peer_info().map(|info| info.protocol_version.clone()),
        Some(ProtocolVersion::V_2026_07_28),
        "the client speaks the stateless revision"
    );
    let tools = alice.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "get_current_time"));
    assert!(!now(&alice).await.0);
    assert!(!now(&alice).await.0);
    let (refused, reason) = now(&alice).await;
    assert!(refused, "alice's third call is over her budget: {reason}");
    let (refused, answer) = now(&bob).await;
    assert!(!refused, "{answer}");

    let records = audit_records(&audit);
    assert_eq!(records.len(), 4, "{records:#?}");
    let who: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["user"].as_str().unwrap(),
                r["agent"].as_str().unwrap(),
                r["session"].as_str().unwrap(),
            )
        })
        .collect();
    // One hooks session for alice's requests, another for bob's, though
    // each request stands alone and both clients have the same name.
    assert_eq!(who[0], who[1]);
    assert_eq!(who[1], who[2]);
    assert_eq!((who[0].0, who[0].1), ("alice", "agent-a"));
    assert_eq!((who[3].0, who[3].1), ("bob", "agent-a"));
    assert_ne!(who[0].2, who[3].2, "{records:#?}");
    assert_eq!(
        records[0]["metadata"]["mcp.protocol"], "2026-07-28",
        "{records:#?}"
    );
}

/// The gateway speaks the stateless revision to an HTTP upstream that does:
/// a gateway served over HTTP (in this process, in front of
/// `mcp-server-time`) is the upstream of another, and sees its requests
/// arrive as 2026-07-28 ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_speaks_2026_07_28_is_spoken_to_in_it() {
    use hooks_core::{Decision, Hook, Hooks, PreToolUse};
    use std::sync::{Arc, Mutex};

    let time = hooks_mcp::Upstream::spawn("time", &server_command("mcp-server-time"))
        .await
        .unwrap();
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let record = Arc::clone(&seen);
    let upstreams = vec![time];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .hook(Hook::new("record", move |ctx: &mut PreToolUse| {
            let protocol = ctx.session().metadata_value("mcp.protocol").cloned();
            record.lock().unwrap().push(protocol.unwrap_or(Value::Null));
            Decision::Continue
        }))
        .build()
        .unwrap();
    let far = hooks_mcp::HttpServer::bind(
        hooks_mcp::Gateway::new(hooks, upstreams).unwrap(),
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let url = far.url();
    tokio::spawn(far.serve());

    let near = vec![
        hooks_mcp::Upstream::connect_http("far", &url)
            .await
            .unwrap(),
    ];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &near)
        .unwrap()
        .build()
        .unwrap();
    let client = support::connect(hooks_mcp::Gateway::new(hooks, near).unwrap()).await;
    let answer = support::call(&client, "get_current_time", json!({"timezone": "UTC"})).await;
    assert_ne!(answer.is_error, Some(true), "{answer:?}");
    assert!(
        support::text(&answer).contains("\"timezone\""),
        "{answer:?}"
    );
    client.cancel().await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [json!("2026-07-28")]);
}

/// A 2026-07-28 request as `token`'s holder, with `key` as its conversation.
async fn stateless_call(url: &str, token: &str, key: Option<&str>) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let Some(key) = key {
        meta["hooks-mcp/session"] = json!(key);
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "get_current_time", "arguments": {"timezone": "UTC"}, "_meta": meta}});
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "get_current_time")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, 200, "{text}");
    // One SSE event (or a JSON body) carrying the answer.
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .unwrap_or(&text);
    serde_json::from_str(json.trim()).unwrap_or_else(|error| panic!("{error}: {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_conversation_key_keeps_sessions_apart_but_never_crosses_principals() {
    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let audit = dir.path().join("audit.jsonl");
    let gateway = start(
        &dir,
        &budget_config(&audit),
        &["--tokens", tokens.to_str().unwrap()],
    );
    for (token, key) in [
        (ALICE, Some("chat-1")),
        (ALICE, Some("chat-1")),
        (ALICE, Some("chat-2")),
        (ALICE, None),
        // Bob sends alice's key.
        (BOB, Some("chat-1")),
    ] {
        let answer = stateless_call(&gateway.url, token, key).await;
        assert!(answer["result"]["content"].is_array(), "{answer}");
    }
    let records = audit_records(&audit);
    let sessions: Vec<&str> = records
        .iter()
        .map(|r| r["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 5, "{records:#?}");
    assert_eq!(sessions[0], sessions[1], "one conversation, one session");
    for (a, b) in [(1, 2), (1, 3), (2, 3), (1, 4)] {
        assert_ne!(sessions[a], sessions[b], "{a} and {b}: {records:#?}");
    }
    assert_eq!(records[4]["user"], "bob");
}

/// The library refuses what the binary's flags refuse: no authentication on
/// an address others can reach.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_serves_without_authentication_only_on_loopback() {
    let time = hooks_mcp::Upstream::spawn("time", &server_command("mcp-server-time"))
        .await
        .unwrap();
    let upstreams = vec![time];
    let hooks = hooks_mcp::prepare(hooks_core::Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .build()
        .unwrap();
    let gateway = hooks_mcp::Gateway::new(hooks, upstreams).unwrap();
    let server = hooks_mcp::HttpServer::bind(gateway, "0.0.0.0:0".parse().unwrap())
        .await
        .unwrap();
    let error = server.serve().await.unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(
        error.to_string().contains("without authentication"),
        "{error}"
    );
}

/// Over stdio (here, a duplex pipe) a 2026-07-28 client's connection is its
/// session: two connections of clients of the same name are two sessions,
/// and one connection's requests are one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_connection_a_stateless_client_is_one_session_of_its_own() {
    use hooks_core::{Decision, Hook, Hooks, PreToolUse};
    use rmcp::ServiceExt;
    use std::sync::{Arc, Mutex};

    let time = hooks_mcp::Upstream::spawn("time", &server_command("mcp-server-time"))
        .await
        .unwrap();
    let seen: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let record = Arc::clone(&seen);
    let upstreams = vec![time];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .hook(Hook::new("record", move |ctx: &mut PreToolUse| {
            let session = ctx.session();
            let protocol = session.metadata_value("mcp.protocol").cloned();
            record
                .lock()
                .unwrap()
                .push((session.id().to_owned(), protocol.unwrap_or(Value::Null)));
            Decision::Continue
        }))
        .build()
        .unwrap();
    let gateway = hooks_mcp::Gateway::new(hooks, upstreams).unwrap();
    let mut clients = Vec::new();
    for _ in 0..2 {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let connection = gateway.connection();
        tokio::spawn(async move {
            if let Ok(running) = Box::pin(connection.serve(server_io)).await {
                let _ = running.waiting().await;
            }
        });
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("same-name", "1.0"),
        );
        clients.push(
            info.serve_with_lifecycle(client_io, modern())
                .await
                .unwrap(),
        );
    }
    for client in [&clients[0], &clients[0], &clients[1]] {
        assert!(!now(client).await.0);
    }
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.iter().all(|(_, protocol)| protocol == "2026-07-28"),
        "{seen:?}"
    );
    assert_eq!(seen[0].0, seen[1].0, "{seen:?}");
    assert_ne!(seen[1].0, seen[2].0, "{seen:?}");
}

#[test]
fn the_official_python_client_calls_with_its_bearer_token_and_is_its_principal() {
    let dir = Scratch::new("hooks-mcp-auth");
    let tokens = token_file(&dir);
    let audit = dir.path().join("audit.jsonl");
    let gateway = start(
        &dir,
        &budget_config(&audit),
        &["--tokens", tokens.to_str().unwrap()],
    );
    dir.write(
        "script.json",
        &json!({
            "url": gateway.url,
            "token": ALICE,
            "client_name": "python-agent",
            "sessions": [[{"call": "get_current_time", "arguments": {"timezone": "UTC"}}]],
        })
        .to_string(),
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/http_drive.py");
    let output = Command::new(support::python())
        .arg(script)
        .arg(dir.path().join("script.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let transcript: Value = serde_json::from_str(&stdout).unwrap();
    let step = &transcript["sessions"][0]["steps"][0];
    assert_eq!(step["is_error"], false, "{step}");
    drop(gateway);
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["user"], "alice");
    assert_eq!(records[0]["agent"], "python-agent");
}
