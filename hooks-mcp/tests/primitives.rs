//! Every MCP primitive through the gateway, against the reference servers
//! from npm (`server-everything`, `server-filesystem`, `server-memory`) and a
//! client (rmcp's) that records what reaches it: resources, templates,
//! subscriptions, prompts and completion proxied; resource reads and prompt
//! gets run through the hooks (the audit log sees them, the read-only guard
//! lets them through, a config file's filter hides them); the upstream's
//! progress reaches the client under the client's token; the client's
//! cancellation reaches the upstream; the client's roots reach the upstream
//! outside any call.

// Roots: deprecated by SEP-2577, still what 2025-11-25 clients and servers speak.
#![allow(deprecated)]

mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::Hooks;
use hooks_mcp::{Gateway, Upstream};
use rmcp::model::{
    ArgumentInfo, CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig,
    ClientRequest, CompleteRequestParams, GetPromptRequestParams, Implementation, ListRootsResult,
    ProgressNotificationParam, ReadResourceRequestParams, Reference,
    ResourceUpdatedNotificationParam, Root, SubscribeRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, ServiceExt};
use serde_json::json;
use support::{Scratch, audit_records, npm_server, test_server};
use tokio::sync::Notify;

/// How long a test waits for something the servers do on their own.
const PATIENCE: Duration = Duration::from_secs(60);

/// A client that records what the gateway sends it, and answers roots/list
/// with its root, if it has one.
#[derive(Clone, Default)]
struct Recorder {
    root: Option<PathBuf>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    updated: Arc<Mutex<Vec<String>>>,
    roots_asked: Arc<AtomicUsize>,
    changed: Arc<Notify>,
}

impl Recorder {
    fn with_root(root: &Path) -> Self {
        Recorder {
            root: Some(root.to_owned()),
            ..Recorder::default()
        }
    }

    /// Waits until `done` holds of the recorder, for at most [`PATIENCE`].
    async fn until(&self, what: &str, done: impl Fn(&Recorder) -> bool) {
        let waited = tokio::time::timeout(PATIENCE, async {
            loop {
                let changed = self.changed.notified();
                if done(self) {
                    return;
                }
                changed.await;
            }
        })
        .await;
        assert!(waited.is_ok(), "waited {PATIENCE:?} for {what}");
    }
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities = if self.root.is_some() {
            serde_json::from_value(json!({"roots": {"listChanged": true}})).unwrap()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("recorder", "0.0.0"))
    }

    #[allow(deprecated)] // roots: what 2025-11-25 clients speak
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        self.roots_asked.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
        let roots = self
            .root
            .iter()
            .map(|root| Root::new(format!("file://{}", root.display())))
            .collect();
        Ok(ListRootsResult::new(roots))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
        self.changed.notify_waiters();
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
        self.changed.notify_waiters();
    }
}

/// Serves `gateway` in this process to a client with `handler`.
async fn connect(gateway: Gateway, handler: Recorder) -> RunningService<RoleClient, Recorder> {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = Box::pin(gateway.serve(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    handler
        .serve(client_io)
        .await
        .expect("the gateway completes the handshake")
}

fn everything() -> Vec<String> {
    vec![npm_server("mcp-server-everything")]
}

/// A gateway in front of `upstreams`, with the hooks of `config` (TOML)
/// and the audit log at `audit`.
fn gateway(upstreams: Vec<Upstream>, scratch: &Scratch, config: &str) -> (Gateway, PathBuf) {
    let audit = scratch.path().join("audit.jsonl");
    let file = scratch.path().join("hooks.toml");
    std::fs::write(
        &file,
        format!(
            "[audit_log]\npath = {:?}\n{config}",
            audit.display().to_string()
        ),
    )
    .unwrap();
    let config = hooks_config::load(&file).unwrap();
    let builder = hooks_mcp::prepare(Hooks::builder(), &upstreams).unwrap();
    let hooks = config.apply(builder).unwrap().build().unwrap();
    (Gateway::new(hooks, upstreams).unwrap(), audit)
}

fn decisions(audit: &Path) -> Vec<(String, String)> {
    audit_records(audit)
        .iter()
        .filter(|record| record["decision"].is_string())
        .map(|record| {
            (
                record["tool"].as_str().unwrap().to_owned(),
                record["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn resources_templates_prompts_and_completion_pass_through_the_hooks() {
    let scratch = Scratch::new("primitives");
    let upstreams = vec![Upstream::spawn("everything", &everything()).await.unwrap()];
    // The read-only guard is on: a resource read and a prompt get are reads.
    let (gateway, audit) = gateway(upstreams, &scratch, "[read_only]\nenabled = true\n");
    let client = connect(gateway, Recorder::default()).await;

    let offered = client.peer_info().unwrap().capabilities.clone();
    assert!(offered.resources.is_some(), "{offered:?}");
    assert!(offered.prompts.is_some(), "{offered:?}");
    assert!(offered.completions.is_some(), "{offered:?}");

    let resources = client.list_all_resources().await.unwrap();
    let document = resources
        .iter()
        .find(|resource| resource.uri.starts_with("demo://resource/static/document/"))
        .unwrap_or_else(|| panic!("no static document in {resources:#?}"))
        .uri
        .clone();
    let read = client
        .read_resource(ReadResourceRequestParams::new(document.clone()))
        .await
        .unwrap();
    assert!(!read.contents.is_empty(), "{read:?}");

    let templates = client.list_all_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|template| template.uri_template == "demo://resource/dynamic/text/{resourceId}"),
        "{templates:#?}"
    );
    let dynamic = client
        .read_resource(ReadResourceRequestParams::new(
            "demo://resource/dynamic/text/7",
        ))
        .await
        .unwrap();
    let text = serde_json::to_value(&dynamic.contents).unwrap();
    assert!(text.to_string().contains('7'), "{text}");

    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|prompt| prompt.name.as_str()).collect();
    assert!(
        names.contains(&"simple-prompt") && names.contains(&"args-prompt"),
        "{names:?}"
    );
    let mut params = GetPromptRequestParams::new("args-prompt");
    params.arguments = json!({"city": "Ouagadougou"}).as_object().cloned();
    let prompt = client.get_prompt(params).await.unwrap();
    let messages = serde_json::to_value(&prompt.messages).unwrap();
    assert!(messages.to_string().contains("Ouagadougou"), "{messages}");

    let completion = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("completable-prompt"),
            ArgumentInfo::new("department", "E"),
        ))
        .await
        .unwrap();
    assert!(
        completion
            .completion
            .values
            .iter()
            .any(|value| value == "Engineering"),
        "{completion:?}"
    );

    // Every read and get is a call the audit log saw, allowed.
    let seen = decisions(&audit);
    for call in [
        "resources:read",
        "resources:read",
        "prompts:get:args-prompt",
    ] {
        assert!(
            seen.contains(&(call.to_owned(), "allowed".to_owned())),
            "{call} not audited as allowed: {seen:?}"
        );
    }
    let records = audit_records(&audit);
    assert!(
        records
            .iter()
            .any(|record| record["args"]["uri"] == json!(document)),
        "{records:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscribed_client_gets_the_upstreams_updates() {
    let scratch = Scratch::new("primitives");
    let upstreams = vec![Upstream::spawn("everything", &everything()).await.unwrap()];
    let (gateway, _audit) = gateway(upstreams, &scratch, "");
    let recorder = Recorder::default();
    let client = connect(gateway, recorder.clone()).await;
    let uri = "demo://resource/dynamic/text/1";
    #[allow(deprecated)] // legacy subscriptions: what 2025-11-25 servers speak
    client
        .subscribe(SubscribeRequestParams::new(uri))
        .await
        .unwrap();
    let mut toggle = CallToolRequestParams::new("toggle-subscriber-updates");
    toggle.arguments = Some(serde_json::Map::new());
    let answer = client.call_tool(toggle).await.unwrap();
    assert_ne!(answer.is_error, Some(true), "{answer:?}");
    recorder
        .until("an update of the subscribed resource", |recorder| {
            recorder
                .updated
                .lock()
                .unwrap()
                .iter()
                .any(|seen| seen == uri)
        })
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_upstreams_progress_reaches_the_client_under_its_own_token() {
    let scratch = Scratch::new("primitives");
    let upstreams = vec![Upstream::spawn("everything", &everything()).await.unwrap()];
    let (gateway, _audit) = gateway(upstreams, &scratch, "");
    let recorder = Recorder::default();
    let client = connect(gateway, recorder.clone()).await;
    let mut params = CallToolRequestParams::new("trigger-long-running-operation");
    params.arguments = json!({"duration": 1, "steps": 3}).as_object().cloned();
    let handle = client
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    handle.await_response().await.unwrap();
    recorder
        .until("three progress notifications", |recorder| {
            recorder.progress.lock().unwrap().len() >= 3
        })
        .await;
    let progress = recorder.progress.lock().unwrap().clone();
    assert!(
        progress.iter().all(|step| step.progress_token == token),
        "{progress:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_call_is_cancelled_upstream() {
    let scratch = Scratch::new("primitives");
    let marker = scratch.path().join("cancelled");
    // The gateway's own timeout (which cancels the call upstream too) must
    // not be what the upstream hears: it is put far out of the test's reach.
    let upstreams = vec![
        Upstream::spawn("asking", &test_server("asking_server.py"))
            .await
            .unwrap()
            .with_call_timeout(Duration::from_secs(3600)),
    ];
    let (gateway, _audit) = gateway(upstreams, &scratch, "");
    let client = connect(gateway, Recorder::default()).await;
    let mut params = CallToolRequestParams::new("wait_until_cancelled");
    params.arguments = json!({"marker": marker.display().to_string()})
        .as_object()
        .cloned();
    let handle = client
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let running = tokio::time::timeout(PATIENCE, async {
        while std::fs::read_to_string(&marker).unwrap_or_default() != "started" {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(running.is_ok(), "the tool never started upstream");
    handle
        .cancel(Some("the user pressed stop".to_owned()))
        .await
        .unwrap();
    let seen = tokio::time::timeout(PATIENCE, async {
        while std::fs::read_to_string(&marker).unwrap_or_default() != "cancelled" {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(seen.is_ok(), "the upstream never saw the cancellation");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "cancelled");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_filesystem_server_set_up_by_the_clients_roots_reads_through_the_gateway() {
    let scratch = Scratch::new("primitives");
    let folder = Scratch::new("primitives-root");
    folder.write("notes.txt", "from the client's root\n");
    // No directory on its command line: it serves the client's roots only.
    let upstreams = vec![
        Upstream::spawn("fs", &[npm_server("mcp-server-filesystem")])
            .await
            .unwrap(),
    ];
    let (gateway, audit) = gateway(upstreams, &scratch, "[read_only]\nenabled = true\n");
    let recorder = Recorder::with_root(folder.path());
    let client = connect(gateway, recorder.clone()).await;
    recorder
        .until("the upstream to ask for the roots", |recorder| {
            recorder.roots_asked.load(Ordering::SeqCst) > 0
        })
        .await;
    let root = std::fs::canonicalize(folder.path()).unwrap();
    // The server takes the roots in after answering; asked until it has.
    let allowed = tokio::time::timeout(PATIENCE, async {
        loop {
            let mut params = CallToolRequestParams::new("list_allowed_directories");
            params.arguments = Some(serde_json::Map::new());
            let answer = client.call_tool(params).await.unwrap();
            let text = serde_json::to_string(&answer.content).unwrap();
            if text.contains(root.to_str().unwrap()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(allowed.is_ok(), "the server never took the client's root");

    let mut read = CallToolRequestParams::new("read_text_file");
    read.arguments = json!({"path": root.join("notes.txt").display().to_string()})
        .as_object()
        .cloned();
    let answer = client.call_tool(read).await.unwrap();
    assert_ne!(answer.is_error, Some(true), "{answer:?}");
    assert!(
        serde_json::to_string(&answer.content)
            .unwrap()
            .contains("from the client's root"),
        "{answer:?}"
    );
    assert!(
        decisions(&audit).contains(&("read_text_file".to_owned(), "allowed".to_owned())),
        "{:?}",
        decisions(&audit)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_config_files_filter_hides_prompts_and_resources_from_lists_and_from_reads() {
    let scratch = Scratch::new("primitives");
    let hidden_document = "demo://resource/static/document/architecture.md";
    let answer = json!({"hookSpecificOutput": {
        "hookEventName": "PreModelRequest",
        "hiddenPrompts": ["args-prompt"],
        "hiddenResources": [hidden_document],
        "hiddenTools": ["echo"],
    }})
    .to_string();
    let config = format!(
        "[[hooks]]\nevent = \"pre_model_request\"\nname = \"hide\"\ncommand = [\"printf\", \"%s\", {}]\n",
        serde_json::to_string(&answer).unwrap()
    );
    let upstreams = vec![Upstream::spawn("everything", &everything()).await.unwrap()];
    let (gateway, audit) = gateway(upstreams, &scratch, &config);
    let client = connect(gateway, Recorder::default()).await;

    let prompts: Vec<String> = client
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|prompt| prompt.name)
        .collect();
    assert!(!prompts.contains(&"args-prompt".to_owned()), "{prompts:?}");
    assert!(prompts.contains(&"simple-prompt".to_owned()), "{prompts:?}");
    let resources: Vec<String> = client
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|resource| resource.uri.clone())
        .collect();
    assert!(
        !resources.contains(&hidden_document.to_owned()),
        "{resources:?}"
    );
    assert!(!resources.is_empty());
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert!(!tools.contains(&"echo".to_owned()), "{tools:?}");
    assert!(tools.contains(&"get-sum".to_owned()), "{tools:?}");

    // Not gettable or readable by name either: refused, and audited.
    let mut params = GetPromptRequestParams::new("args-prompt");
    params.arguments = json!({"city": "Paris"}).as_object().cloned();
    let refused = client.get_prompt(params).await.unwrap_err().to_string();
    assert!(refused.contains("not offered to this client"), "{refused}");
    assert!(refused.contains("-32602"), "{refused}");
    let refused = client
        .read_resource(ReadResourceRequestParams::new(hidden_document))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("not offered to this client"), "{refused}");
    let seen = decisions(&audit);
    assert!(
        seen.contains(&("prompts:get:args-prompt".to_owned(), "denied".to_owned()))
            && seen.contains(&("resources:read".to_owned(), "denied".to_owned())),
        "{seen:?}"
    );
    let records = audit_records(&audit);
    assert!(
        records
            .iter()
            .any(|record| record["args"]["uri"] == json!(hidden_document)),
        "{records:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_several_upstreams_prompts_are_namespaced_and_reads_go_to_who_listed_them() {
    let scratch = Scratch::new("primitives");
    let memory = Scratch::new("primitives-memory");
    let memory_file = memory.path().join("memory.jsonl");
    let memory_server = vec![
        "env".to_owned(),
        format!("MEMORY_FILE_PATH={}", memory_file.display()),
        npm_server("mcp-server-memory"),
    ];
    let upstreams = vec![
        Upstream::spawn("everything", &everything()).await.unwrap(),
        Upstream::spawn("memory", &memory_server).await.unwrap(),
    ];
    let (gateway, audit) = gateway(upstreams, &scratch, "");
    let client = connect(gateway, Recorder::default()).await;

    let prompts: Vec<String> = client
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|prompt| prompt.name)
        .collect();
    assert!(
        prompts.contains(&"everything__simple-prompt".to_owned()),
        "{prompts:?}"
    );
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("everything__simple-prompt"))
        .await
        .unwrap();
    assert!(!prompt.messages.is_empty());
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "demo://resource/dynamic/text/2",
        ))
        .await
        .unwrap();
    assert!(!read.contents.is_empty());
    let unknown = client
        .read_resource(ReadResourceRequestParams::new("nowhere://at/all"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("no upstream MCP server lists"),
        "{unknown}"
    );

    // The memory server's plain tools, namespaced.
    let mut create = CallToolRequestParams::new("memory__create_entities");
    create.arguments = json!({"entities": [{"name": "gateway", "entityType": "service", "observations": ["proxies prompts"]}]})
        .as_object()
        .cloned();
    let created = client.call_tool(create).await.unwrap();
    assert_ne!(created.is_error, Some(true), "{created:?}");
    let mut graph = CallToolRequestParams::new("memory__read_graph");
    graph.arguments = Some(serde_json::Map::new());
    let graph = client.call_tool(graph).await.unwrap();
    assert!(
        serde_json::to_string(&graph.content)
            .unwrap()
            .contains("proxies prompts"),
        "{graph:?}"
    );
    let seen = decisions(&audit);
    assert!(
        seen.contains(&(
            "prompts:get:everything__simple-prompt".to_owned(),
            "allowed".to_owned()
        )) && seen.contains(&("resources:read".to_owned(), "denied".to_owned())),
        "{seen:?}"
    );
}

/// The lines the roots server logged, once there are more than `seen`.
async fn next_roots_line(log: &Path, seen: usize) -> Vec<String> {
    let lines = tokio::time::timeout(PATIENCE, async {
        loop {
            let lines: Vec<String> = std::fs::read_to_string(log)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect();
            if lines.len() > seen {
                return lines;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    lines.unwrap_or_else(|_| {
        panic!(
            "waited {PATIENCE:?} for line {} of {}",
            seen + 1,
            log.display()
        )
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn roots_asked_outside_a_call_come_from_the_only_client_and_are_refused_with_several() {
    let scratch = Scratch::new("primitives");
    let log = scratch.path().join("roots.log");
    let mut server = test_server("roots_server.py");
    server.push(log.display().to_string());
    let upstreams = vec![Upstream::spawn("roots", &server).await.unwrap()];
    let (gateway, _audit) = gateway(upstreams, &scratch, "");
    // Each connection is what an HTTP session is: `http_service` makes one per session.
    let first_root = Scratch::new("primitives-first");
    let first = Recorder::with_root(first_root.path());
    let first_client = connect(gateway.connection(), first.clone()).await;
    let lines = next_roots_line(&log, 0).await;
    assert_eq!(
        lines[0],
        format!("roots: file://{}", first_root.path().display()),
        "{lines:?}"
    );

    let second_root = Scratch::new("primitives-second");
    let second = Recorder::with_root(second_root.path());
    let second_client = connect(gateway.connection(), second.clone()).await;
    // The second client's arrival makes the upstream ask again: nobody can
    // tell whose roots it means, so nobody is asked.
    let lines = next_roots_line(&log, 1).await;
    assert!(
        lines[1].starts_with("error: ") && lines[1].contains("several clients are connected"),
        "{lines:?}"
    );
    assert_eq!(second.roots_asked.load(Ordering::SeqCst), 0);
    assert_eq!(first.roots_asked.load(Ordering::SeqCst), 1);

    // Once the second has gone, the first's roots are given again.
    second_client.cancel().await.unwrap();
    let answered = tokio::time::timeout(PATIENCE, async {
        let mut seen = 2;
        loop {
            first_client.notify_roots_list_changed().await.unwrap();
            let lines = next_roots_line(&log, seen).await;
            seen = lines.len();
            if lines[seen - 1].starts_with("roots: ") {
                return lines[seen - 1].clone();
            }
        }
    })
    .await
    .expect("the first client's roots given again once the second left");
    assert_eq!(
        answered,
        format!("roots: file://{}", first_root.path().display())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_uri_two_upstreams_list_is_refused_naming_both() {
    let scratch = Scratch::new("primitives");
    let upstreams = vec![
        Upstream::spawn("left", &everything()).await.unwrap(),
        Upstream::spawn("right", &everything()).await.unwrap(),
    ];
    let (gateway, audit) = gateway(upstreams, &scratch, "");
    let client = connect(gateway, Recorder::default()).await;
    let uri = "demo://resource/static/document/architecture.md";
    let refused = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("`left` and `right` both list a resource"),
        "{refused}"
    );
    // Listed by neither side, rather than by one of them.
    let listed = client.list_all_resources().await.unwrap();
    assert!(
        !listed.iter().any(|resource| resource.uri == uri),
        "{listed:?}"
    );
    assert!(
        decisions(&audit).contains(&("resources:read".to_owned(), "denied".to_owned())),
        "{:?}",
        decisions(&audit)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_tool_named_like_a_resource_read_stops_the_gateway() {
    let upstreams = vec![
        Upstream::spawn("colliding", &test_server("colliding_server.py"))
            .await
            .unwrap(),
    ];
    let problem = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams)
        .err()
        .expect("prepare refuses the tool");
    assert!(problem.contains("`resources:read`"), "{problem}");
    let hooks = Hooks::builder().without_linked().build().unwrap();
    let problem = Gateway::new(hooks, upstreams)
        .err()
        .expect("the gateway refuses the tool");
    assert!(problem.contains("`resources:read`"), "{problem}");
}
