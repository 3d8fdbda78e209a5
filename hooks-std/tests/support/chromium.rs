//! A headless Chromium driven over the Chrome `DevTools` Protocol (a websocket
//! from this process), with its own profile in a temporary directory; the
//! browser (its whole process group) is stopped and the profile removed when
//! dropped — when a test fails too.
//!
//! The browser comes from Debian's `chromium` package. When it is missing it
//! is installed with apt (as root, or through `sudo -n`), serialized by the
//! same file lock as the PostgreSQL tests' installs; if that fails, the test
//! fails and says why.

#[path = "debian.rs"]
mod debian;

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long the browser may take to answer one call, or to load a page.
const PATIENCE: Duration = Duration::from_secs(60);

/// A browser with one page, attached.
pub(crate) struct Chromium {
    child: Child,
    profile: PathBuf,
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    session: String,
    next: u64,
    /// Events that arrived while a call waited for its reply, oldest first.
    events: Vec<Value>,
}

impl Chromium {
    /// Starts the browser and opens a blank page.
    pub(crate) async fn launch() -> Chromium {
        let program = binary();
        let profile = std::env::temp_dir().join(format!("hooks-chromium-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).unwrap();
        let log = std::fs::File::create(profile.with_extension("log")).unwrap();
        let child = Command::new(program)
            .args([
                "--headless=new",
                "--remote-debugging-port=0",
                // Root cannot use the sandbox; the only pages opened are the console's.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("start chromium");
        // The browser writes its DevTools port and path here once it listens.
        let active = profile.join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(60);
        let endpoint = loop {
            if let Ok(text) = std::fs::read_to_string(&active) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    break format!("ws://127.0.0.1:{port}{path}");
                }
            }
            assert!(
                Instant::now() < deadline,
                "chromium did not start; its log: {}",
                std::fs::read_to_string(profile.with_extension("log")).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let (socket, _) = tokio_tungstenite::connect_async(endpoint.as_str())
            .await
            .expect("connect to chromium's DevTools");
        let mut browser = Chromium {
            child,
            profile,
            socket,
            session: String::new(),
            next: 0,
            events: Vec::new(),
        };
        let target = browser
            .browser_call("Target.createTarget", json!({"url": "about:blank"}))
            .await["targetId"]
            .clone();
        let attached = browser
            .browser_call(
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await;
        attached["sessionId"]
            .as_str()
            .unwrap()
            .clone_into(&mut browser.session);
        // Page events: `navigate` waits for the page it asked for to load.
        browser.call("Page.enable", json!({})).await;
        browser
    }

    /// Sends a call and waits for its reply: the result, or the error the
    /// browser answered with.
    async fn send(
        &mut self,
        method: &str,
        params: Value,
        session: Option<String>,
    ) -> Result<Value, Value> {
        self.next += 1;
        let id = self.next;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
        loop {
            let message = self.receive(method).await;
            if message["id"] == json!(id) {
                return match message.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(message["result"].clone()),
                };
            }
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
    }

    /// The next message from the browser, within [`PATIENCE`].
    async fn receive(&mut self, awaiting: &str) -> Value {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.socket.next())
                .await
                .unwrap_or_else(|_| panic!("chromium did not answer `{awaiting}`"))
                .expect("chromium closed the DevTools socket")
                .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).unwrap();
            }
        }
    }

    /// Waits for the page's event `method` (one already received counts).
    async fn event(&mut self, method: &str) -> Value {
        let session = json!(self.session);
        let ours =
            |event: &Value| event["method"] == json!(method) && event["sessionId"] == session;
        if let Some(at) = self.events.iter().position(ours) {
            return self.events.remove(at);
        }
        loop {
            let message = self.receive(method).await;
            if ours(&message) {
                return message;
            }
        }
    }

    async fn browser_call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
            .await
            .unwrap_or_else(|error| panic!("`{method}` failed: {error}"))
    }

    /// Calls `method` on the page: its result, or the browser's error.
    async fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let session = self.session.clone();
        self.send(method, params, Some(session)).await
    }

    /// Calls `method` on the page.
    pub(crate) async fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params)
            .await
            .unwrap_or_else(|error| panic!("`{method}` failed: {error}"))
    }

    /// Opens `url` in the page, and waits until it has loaded.
    pub(crate) async fn navigate(&mut self, url: &str) {
        // Only loads from here on are this navigation's.
        self.events.clear();
        let navigated = self.call("Page.navigate", json!({"url": url})).await;
        assert!(
            navigated["errorText"].is_null(),
            "chromium could not open {url}: {navigated}"
        );
        self.event("Page.loadEventFired").await;
    }

    /// The value of a JavaScript expression in the page.
    pub(crate) async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            )
            .await;
        assert!(
            result["exceptionDetails"].is_null(),
            "`{expression}` threw: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true in the page, polling.
    ///
    /// A page the test made navigate (a form sent by a click) may be between
    /// documents when a poll arrives: the browser then answers that the
    /// expression's context is gone, or not there yet. That is no answer
    /// about the expression, so it is asked again; any other error fails.
    pub(crate) async fn wait_for(&mut self, expression: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let last = match self
                .try_call(
                    "Runtime.evaluate",
                    json!({"expression": expression, "returnByValue": true}),
                )
                .await
            {
                Ok(result) if result["result"]["value"] == json!(true) => return,
                Ok(result) => result,
                Err(error) if between_documents(&error) => error,
                Err(error) => panic!("`{expression}` could not be evaluated: {error}"),
            };
            if Instant::now() > deadline {
                let page = self
                    .try_call(
                        "Runtime.evaluate",
                        json!({"expression": "document.documentElement.outerHTML", "returnByValue": true}),
                    )
                    .await;
                panic!("`{expression}` never became true (last: {last}); the page: {page:?}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Whether an error the browser answered an evaluation with says only that
/// the page is between documents: its context destroyed, or not made yet.
fn between_documents(error: &Value) -> bool {
    let message = error["message"].as_str().unwrap_or_default();
    [
        "context was destroyed",
        "Cannot find",
        "navigated or closed",
    ]
    .iter()
    .any(|part| message.contains(part))
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
        let _ = std::fs::remove_file(self.profile.with_extension("log"));
    }
}

/// Debian's `chromium`, installed if missing.
fn binary() -> PathBuf {
    let installed = || {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.exists())
    };
    if let Some(path) = installed() {
        return path;
    }
    install();
    installed().expect("chromium was installed, but there is no /usr/bin/chromium")
}

/// `apt-get install chromium`, once at a time across test processes.
fn install() {
    debian::install(
        "chromium",
        "test -x /usr/bin/chromium",
        "this test needs a browser",
    );
}
