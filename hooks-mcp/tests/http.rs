//! Streamable HTTP on both sides of the gateway, with real parts nobody here
//! wrote: the official MCP Python SDK's streamable HTTP client
//! (`tests/clients/http_drive.py`) connects to `hooks-mcp --http`, in front of
//! `mcp-server-time` over stdio or of the SDK's own Streamable HTTP server
//! (`tests/servers/http_server.py`); the audit file is read back.

mod support;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use hooks_core::{Decision, Hook, Hooks, PreToolUse};
use hooks_mcp::{Gateway, Upstream};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use support::{answer, audit_records, call, connect, python, server_command, text};

/// Start-up of a gateway or server, and a whole client script.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A file in this test run's scratch directory.
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "hooks-mcp-http-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Everything a stream printed so far, one entry a line.
type Lines = Arc<Mutex<Vec<String>>>;

/// A process this test started: killed when dropped, its output collected
/// (so it never blocks on a full pipe).
struct Process {
    child: Child,
    what: String,
    stdout: Lines,
    stderr: Lines,
    readers: Vec<thread::JoinHandle<()>>,
}

impl Process {
    fn start(command: &mut Command) -> Process {
        let what = format!("{command:?}");
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("starting {what}: {error}"));
        let (stdout, stderr) = (Lines::default(), Lines::default());
        let readers = vec![
            collect(child.stdout.take().unwrap(), Arc::clone(&stdout)),
            collect(child.stderr.take().unwrap(), Arc::clone(&stderr)),
        ];
        Process {
            child,
            what,
            stdout,
            stderr,
            readers,
        }
    }

    /// The first line `stream` printed that starts with `prefix`, less the
    /// prefix; panics with what it printed if it ends or takes too long.
    fn wait_for(&mut self, stream: fn(&Process) -> &Lines, prefix: &str) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let found = lock(stream(self))
                .iter()
                .find_map(|line| line.strip_prefix(prefix).map(str::to_owned));
            if let Some(rest) = found {
                return rest;
            }
            let exited = self.child.try_wait().unwrap();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "{} printed no `{prefix}` line (exit: {exited:?})\n{}",
                self.what,
                self.output()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for it to end by itself; its status, stdout and stderr.
    fn finish(mut self) -> (ExitStatus, String, String) {
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "{} ran past {TIMEOUT:?}\n{}",
                self.what,
                self.output()
            );
            thread::sleep(Duration::from_millis(20));
        };
        for reader in self.readers.drain(..) {
            reader.join().unwrap();
        }
        (
            status,
            lock(&self.stdout).join("\n"),
            lock(&self.stderr).join("\n"),
        )
    }

    /// Stops it, and returns what it printed.
    fn stop(mut self) -> (String, String) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for reader in self.readers.drain(..) {
            reader.join().unwrap();
        }
        (lock(&self.stdout).join("\n"), lock(&self.stderr).join("\n"))
    }

    fn output(&self) -> String {
        format!(
            "--- stdout\n{}\n--- stderr\n{}",
            lock(&self.stdout).join("\n"),
            lock(&self.stderr).join("\n")
        )
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect(stream: impl Read + Send + 'static, lines: Lines) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            lock(&lines).push(line);
        }
    })
}

fn lock(lines: &Lines) -> std::sync::MutexGuard<'_, Vec<String>> {
    lines.lock().unwrap_or_else(PoisonError::into_inner)
}

fn stdout(process: &Process) -> &Lines {
    &process.stdout
}

fn stderr(process: &Process) -> &Lines {
    &process.stderr
}

/// `hooks-mcp --http 127.0.0.1:0 --no-auth` with `config` (and `upstream`
/// after `--`, if any), and the endpoint it printed (tokens: `tests/auth.rs`).
fn gateway_over_http(config: &str, upstream: &[String]) -> (Process, String) {
    let path = scratch("hooks.toml");
    std::fs::write(&path, config).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks-mcp"));
    command
        .args(["--http", "127.0.0.1:0", "--no-auth", "--config"])
        .arg(&path);
    if !upstream.is_empty() {
        command.arg("--").args(upstream);
    }
    let mut gateway = Process::start(&mut command);
    let url = gateway.wait_for(stderr, "hooks-mcp: listening on ");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    (gateway, url)
}

/// The SDK's Streamable HTTP server (`tests/servers/http_server.py`) on a
/// free port, and its endpoint.
fn python_http_server() -> (Process, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/http_server.py");
    let mut server = Process::start(Command::new(python()).arg(script));
    let url = server.wait_for(stdout, "listening on ");
    (server, url)
}

/// Runs `tests/clients/http_drive.py` on `script` (see there for its shape)
/// and returns the transcript it printed.
fn http_drive(script: &Value) -> Value {
    let path = scratch("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/http_drive.py");
    let (status, stdout, stderr) =
        Process::start(Command::new(python()).arg(client).arg(&path)).finish();
    assert!(
        status.success(),
        "the MCP client failed ({status}) on {script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("the MCP client printed no JSON transcript ({error})\n--- stdout\n{stdout}\n--- stderr\n{stderr}")
    })
}

/// A config with the audit log at `audit`, and `more`.
fn config_with_audit(audit: &Path, more: &str) -> String {
    let mut config = more.to_owned();
    let _ = write!(config, "\n[audit_log]\npath = \"{}\"\n", audit.display());
    config
}

#[test]
fn a_client_over_http_calls_through_the_gateway_and_a_refusal_is_a_tool_error() {
    let audit = scratch("audit.jsonl");
    let config = config_with_audit(
        &audit,
        r#"
[[hooks]]
event = "pre_tool_use"
name = "no_conversions"
matches = "convert_time"
command = ["sh", "-c", "cat > /dev/null; echo 'conversions are not allowed here' >&2; exit 2"]
"#,
    );
    let (gateway, url) = gateway_over_http(&config, &server_command("mcp-server-time"));
    let transcript = http_drive(&json!({
        "url": url,
        "client_name": "http-agent",
        "sessions": [[
            { "list_tools": true },
            { "call": "get_current_time", "arguments": { "timezone": "UTC" } },
            { "call": "convert_time", "arguments": {
                "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo" } },
        ]],
    }));
    let (gateway_stdout, gateway_stderr) = gateway.stop();

    let session = &transcript["sessions"][0];
    assert_eq!(session["server_info"]["name"], "hooks-mcp", "{session}");
    let steps = session["steps"].as_array().unwrap();
    assert_eq!(
        steps[0]["tools"],
        json!(["get_current_time", "convert_time"]),
        "{session}"
    );
    let (failed, now) = answer(&steps[1]);
    assert!(!failed, "{now}");
    // The server's own answer, come back over both transports.
    let now: Value = serde_json::from_str(now).unwrap();
    assert_eq!(now["timezone"], "UTC");
    let (failed, reason) = answer(&steps[2]);
    assert!(failed, "a refusal is a tool error: {}", steps[2]);
    assert!(
        reason.contains("conversions are not allowed here"),
        "{reason}"
    );

    // One audit record per call, with the client's name.
    let records = audit_records(&audit);
    let decisions: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap(),
                r["decision"].as_str().unwrap(),
                r["agent"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("get_current_time", "allowed", "http-agent"),
            ("convert_time", "denied", "http-agent"),
        ],
        "{records:#?}"
    );
    assert_eq!(records[0]["session"], records[1]["session"]);
    // With --http, stdout is not the protocol's, and nothing is printed on it.
    assert_eq!(gateway_stdout, "", "stderr:\n{gateway_stderr}");
}

#[test]
fn two_mcp_sessions_over_http_are_two_hooks_sessions() {
    let audit = scratch("audit.jsonl");
    let (gateway, url) = gateway_over_http(
        &config_with_audit(&audit, ""),
        &server_command("mcp-server-time"),
    );
    let call = json!({ "call": "get_current_time", "arguments": { "timezone": "UTC" } });
    let transcript = http_drive(&json!({
        "url": url,
        "sessions": [[call.clone(), call.clone()], [call]],
    }));
    drop(gateway);
    for session in transcript["sessions"].as_array().unwrap() {
        for step in session["steps"].as_array().unwrap() {
            let (failed, text) = answer(step);
            assert!(!failed, "{text}");
        }
    }

    let records = audit_records(&audit);
    let sessions: Vec<&str> = records
        .iter()
        .map(|r| r["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 3, "{records:#?}");
    assert!(
        sessions.iter().all(|id| id.starts_with("mcp-")),
        "{sessions:?}"
    );
    assert_eq!(sessions[0], sessions[1], "one MCP session is one session");
    assert_ne!(sessions[1], sessions[2], "another MCP session is another");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_over_http_is_called_through_the_gateway_and_its_hooks() {
    let (_server, url) = python_http_server();
    let upstream = Upstream::connect_http("remote", &url).await.unwrap();
    let tools: Vec<&str> = upstream.tools().iter().map(|tool| &*tool.name).collect();
    assert_eq!(tools, ["add", "echo", "big"]);
    let upstreams = vec![upstream];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .hook(Hook::new("no_echo", |ctx: &mut PreToolUse| {
            if ctx.tool() == "echo" {
                Decision::deny("no echoes")
            } else {
                Decision::Continue
            }
        }))
        .build()
        .unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;

    let call = async |tool: &str, args: Value| {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = args.as_object().cloned();
        let result = client.call_tool(params).await.unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        (result.is_error == Some(true), text)
    };
    // Computed by the server at the other end of the HTTP connection.
    assert_eq!(
        call("add", json!({"a": 2, "b": 40})).await,
        (false, "42".to_owned())
    );
    assert_eq!(
        call("echo", json!({"text": "hi"})).await,
        (true, "no echoes".to_owned())
    );
    client.cancel().await.unwrap();
}

/// A local port nothing listens on (it was free a moment ago).
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn an_upstream_over_http_that_is_down_is_a_start_up_error_naming_it() {
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    let Err(error) = Upstream::connect_http("remote", &url).await else {
        panic!("nothing listens at {url}");
    };
    assert_eq!(error.upstream, "remote");
    let message = error.to_string();
    // Named, with the address and what the connection got: not rmcp's layers of types.
    assert!(
        message.starts_with(&format!(
            "upstream `remote`: no MCP server answered at {url}: "
        )) && message.contains("Connection refused")
            && !message.contains("Transport"),
        "{message}"
    );
}

#[test]
fn the_binary_reaches_upstreams_declared_by_url_and_refuses_to_start_when_one_is_down() {
    let (_server, upstream_url) = python_http_server();
    let audit = scratch("audit.jsonl");
    let config = config_with_audit(
        &audit,
        &format!("[[upstream]]\nname = \"remote\"\nurl = \"{upstream_url}\"\n"),
    );
    // HTTP on both sides: the SDK's client, the gateway, the SDK's server.
    let (gateway, url) = gateway_over_http(&config, &[]);
    let transcript = http_drive(&json!({
        "url": url,
        "sessions": [[{ "call": "add", "arguments": { "a": 1, "b": 2 } }]],
    }));
    drop(gateway);
    assert_eq!(answer(&transcript["sessions"][0]["steps"][0]), (false, "3"));
    assert_eq!(audit_records(&audit).len(), 1);

    let down = format!("http://127.0.0.1:{}/mcp", closed_port());
    let path = scratch("down.toml");
    std::fs::write(
        &path,
        format!("[[upstream]]\nname = \"remote\"\nurl = \"{down}\"\n"),
    )
    .unwrap();
    let (status, stdout, stderr) = Process::start(
        Command::new(env!("CARGO_BIN_EXE_hooks-mcp"))
            .arg("--config")
            .arg(&path),
    )
    .finish();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(stdout, "");
    let expected = format!(
        "hooks-mcp: {}:1: upstream `remote`: no MCP server answered at {down}: Connection refused",
        path.display()
    );
    assert!(
        stderr.lines().any(|line| line.starts_with(&expected)),
        "expected a line starting\n{expected}\nin\n{stderr}"
    );
}

/// The MCP spec's DNS-rebinding defence: a browser page of another origin
/// cannot talk to the gateway; clients that send no `Origin` (every non-browser
/// MCP client) and pages on this machine can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_from_a_foreign_web_origin_is_refused() {
    let (_gateway, url) = gateway_over_http("", &server_command("mcp-server-time"));
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "origin-test", "version": "1"},
        },
    });
    let client = reqwest::Client::new();
    let status = async |origin: Option<&str>| {
        let mut request = client
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(initialize.to_string());
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        request.send().await.unwrap().status().as_u16()
    };
    assert_eq!(status(Some("https://evil.example")).await, 403);
    assert_eq!(status(Some("http://attacker.test:8080")).await, 403);
    assert_eq!(status(None).await, 200);
    assert_eq!(status(Some("http://localhost:6274")).await, 200);
    assert_eq!(status(Some("http://127.0.0.1:3000")).await, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_over_http_over_the_message_limit_fails_the_call_not_after_the_timeout() {
    let (_server, url) = python_http_server();
    // Ten minutes: were the answer dropped and the call left waiting, the
    // error would say so ("did not answer within 600 s").
    let upstreams = vec![
        Upstream::connect_http("remote", &url)
            .await
            .unwrap()
            .with_call_timeout(Duration::from_secs(600)),
    ];
    let hooks = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .unwrap()
        .build()
        .unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;
    let result = call(&client, "big", json!({"megabytes": 17})).await;
    assert_eq!(result.is_error, Some(true));
    let message = text(&result);
    assert!(message.contains("remote"), "{message}");
    assert!(!message.contains("did not answer"), "{message}");
    let result = call(&client, "big", json!({"megabytes": 1})).await;
    assert_eq!(result.is_error, None, "{}", text(&result));
}
