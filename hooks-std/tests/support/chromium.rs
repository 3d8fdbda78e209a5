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

/// A browser with one page, attached.
pub(crate) struct Chromium {
    child: Child,
    profile: PathBuf,
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    session: String,
    next: u64,
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
        browser
    }

    async fn send(&mut self, method: &str, params: Value, session: Option<String>) -> Value {
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
        // Events arrive in between; only the reply to this call matters.
        loop {
            let message = tokio::time::timeout(Duration::from_secs(30), self.socket.next())
                .await
                .unwrap_or_else(|_| panic!("chromium did not answer `{method}`"))
                .expect("chromium closed the DevTools socket")
                .unwrap();
            let Message::Text(text) = message else {
                continue;
            };
            let reply: Value = serde_json::from_str(&text).unwrap();
            if reply["id"] == json!(id) {
                assert!(reply["error"].is_null(), "`{method}` failed: {reply}");
                return reply["result"].clone();
            }
        }
    }

    async fn browser_call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None).await
    }

    /// Calls `method` on the page.
    pub(crate) async fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(session)).await
    }

    pub(crate) async fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url})).await;
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

    /// Waits until `expression` is true in the page.
    pub(crate) async fn wait_for(&mut self, expression: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            // A navigation in progress may destroy the context mid-call: try again.
            let result = self
                .call(
                    "Runtime.evaluate",
                    json!({"expression": expression, "returnByValue": true}),
                )
                .await;
            if result["result"]["value"] == json!(true) {
                return;
            }
            if Instant::now() > deadline {
                let page = self.eval("document.documentElement.outerHTML").await;
                panic!("`{expression}` never became true; the page: {page}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
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
