//! The approval console in a real browser: an agent process asks for
//! approval and waits; `hooks-approve serve` serves the same database;
//! headless Chromium signs in, sees the request appear without a reload,
//! and a click on "Approve once" lets the agent's call run — exactly once.
//! Without the token the console is closed; posts forged with a signed-in
//! session's cookie (no or a wrong CSRF token, another origin) answer nothing.
//!
//! A program of its own (`harness = false`): the agent is this binary, run
//! again, so no child entry point shows up as a passing test.

#[path = "support/chromium.rs"]
mod chromium;
#[path = "support/http.rs"]
mod http;

#[path = "support/children.rs"]
mod children;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::approval::{ApprovalGate, Approvals, Database, ScriptedChannel, Status};

use chromium::Chromium;

hooks_core::link!(hooks_std);

const CHILD_DATABASE: &str = "HOOKS_STD_CONSOLE_CHILD_DB";
const CHILD_MARKER: &str = "HOOKS_STD_CONSOLE_CHILD_MARKER";
/// From `openssl rand -hex 32`: a token the console accepts.
const TOKEN: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// A secret in the call's arguments: the page must never show it.
const SECRET: &str = "sk_live_51HcQzK2eZvKYlo2C0123456789";

fn main() {
    match (
        std::env::var_os(CHILD_DATABASE),
        std::env::var_os(CHILD_MARKER),
    ) {
        (Some(database), Some(marker)) => agent(database.into(), Path::new(&marker)),
        _ => {
            print!("test a_click_on_approve_once_runs_the_waiting_call_once ... ");
            a_click_on_approve_once_runs_the_waiting_call_once();
            println!("ok");
            println!("\ntest result: ok. 1 passed; 0 failed");
        }
    }
}

/// The agent: one refund through the hooks, answered from the store; it
/// says on stdout when its request is stored and waiting.
fn agent(database: PathBuf, marker: &Path) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ran = runtime.block_on(async {
        let gate = ApprovalGate::open(&Approvals {
            tools: vec!["payments_*".into()],
            database,
            timeout: Duration::from_secs(120),
            poll_interval: Duration::from_millis(50),
            ..Approvals::default()
        })
        .unwrap()
        .channel(ScriptedChannel(|request: &hooks_std::approval::Request| {
            println!("asked #{}", request.id);
            None
        }));
        let hooks = Hooks::builder()
            .only(["hooks_std::approval::gate"])
            .state(gate.policy().clone())
            .approver(gate)
            .build()
            .unwrap();
        hooks
            .tool("payments_refund")
            .run(
                &Session::new("console-session").with_user("dana"),
                json!({"order": 7, "amount_usd": 500, "api_key": SECRET}),
                async |args: &Value| {
                    let mut file = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(marker)
                        .unwrap();
                    writeln!(file, "refunded {args}").unwrap();
                    Ok::<_, String>(json!("refunded"))
                },
            )
            .await
            .ran()
    });
    std::process::exit(if ran { 0 } else { 3 });
}

/// Kills a child process when dropped, so a failing test leaves none behind.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `hooks-approve serve` on a free loopback port; its address.
fn serve(database: &Path, token_file: &Path) -> (Running, SocketAddr) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
        .args(["--db".as_ref(), database.as_os_str()])
        .args(["serve", "--bind", "127.0.0.1:0", "--by", "alice"])
        .args(["--token-file".as_ref(), token_file.as_os_str()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("console on http://")
        .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("unexpected console output: {line:?}"));
    (Running(server), address)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-console-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

fn refunds(marker: &Path) -> usize {
    std::fs::read_to_string(marker).map_or(0, |text| text.lines().count())
}

fn a_click_on_approve_once_runs_the_waiting_call_once() {
    let database = temp("approvals.sqlite3");
    let marker = temp("refunds.log");
    let token_file = temp("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    // Created (and migrated) before either process opens it.
    drop(Database::open(&database, Duration::from_secs(5)).unwrap());
    let (_server, address) = serve(&database, &token_file);
    let console = format!("http://{address}/");

    // Without the token, the console is closed.
    let refused = http::send(address, "GET", "/", &[], None);
    assert_eq!(refused.status, 401);
    assert!(!refused.body.contains("Pending approvals"));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut browser = Chromium::launch().await;

        // Sign in through the form; the page opens with nothing pending.
        browser.navigate(&console).await;
        browser
            .wait_for(
                "document.querySelector('input[name=token]') !== null",
                Duration::from_secs(30),
            )
            .await;
        browser
            .eval(&format!(
                "document.querySelector('input[name=token]').value = '{TOKEN}'; \
                 document.querySelector('form button[type=submit]').click(); true"
            ))
            .await;
        browser
            .wait_for(
                "document.getElementById('status')?.textContent === 'live'",
                Duration::from_secs(30),
            )
            .await;
        assert_eq!(
            browser
                .eval("document.querySelectorAll('tr.request').length")
                .await,
            json!(0)
        );
        // Survives only if the page is never reloaded.
        browser.eval("window.loadedOnce = true").await;

        // The agent asks and waits.
        let mut agent = Command::new(std::env::current_exe().unwrap())
            .env(CHILD_DATABASE, &database)
            .env(CHILD_MARKER, &marker)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(agent.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "asked #1");
        let mut agent = Running(agent);

        // The request appears in the open page, which was not reloaded.
        browser
            .wait_for(
                "document.getElementById('request-1') !== null && window.loadedOnce === true",
                Duration::from_secs(30),
            )
            .await;
        let row = browser
            .eval("document.getElementById('request-1').innerText")
            .await;
        let row = row.as_str().unwrap();
        assert!(row.contains("payments_refund"), "{row}");
        assert!(
            row.contains("dana") && row.contains("console-session"),
            "{row}"
        );
        assert!(row.contains("[redacted]"), "{row}");
        let page = browser.eval("document.documentElement.outerHTML").await;
        assert!(
            !page.as_str().unwrap().contains(SECRET),
            "the page shows a secret"
        );
        assert_eq!(refunds(&marker), 0);

        forged_posts_are_refused(address, &database);

        // A click on "Approve once": the call runs, once.
        browser
            .eval("document.querySelector('#request-1 button[value=once]').click(); true")
            .await;
        let status = children::wait(&mut agent.0, Duration::from_secs(60));
        assert!(status.success(), "the agent's call did not run: {status}");
        assert_eq!(refunds(&marker), 1, "an approved call runs exactly once");

        // The page is back with nothing pending.
        browser
            .wait_for(
                "document.getElementById('status')?.textContent === 'live' \
                 && document.getElementById('request-1') === null",
                Duration::from_secs(30),
            )
            .await;
    });

    let store = Database::open(&database, Duration::from_secs(5)).unwrap();
    let request = store.get(1).unwrap().unwrap();
    assert_eq!(request.status, Status::Approved);
    assert_eq!(request.responded_by.as_deref(), Some("alice"));
    assert!(request.consumed_at.is_some());
    assert_eq!(refunds(&marker), 1);
}

/// Posts that did not come from the console's page, with a signed-in
/// session's cookie: none answers the pending request.
fn forged_posts_are_refused(address: SocketAddr, database: &Path) {
    let cookie = http::login(address, TOKEN);
    let csrf = http::csrf(address, &cookie);
    let ours = format!("http://{address}");
    let post = |headers: &[(&str, &str)], body: &str| {
        http::send(address, "POST", "/requests/1/answer", headers, Some(body)).status
    };
    let with_cookie = [("Cookie", cookie.as_str()), ("Origin", ours.as_str())];
    assert_eq!(post(&with_cookie, "action=once"), 403, "no CSRF token");
    assert_eq!(
        post(
            &with_cookie,
            &format!("action=once&csrf={}", "0".repeat(64))
        ),
        403,
        "a wrong CSRF token"
    );
    let right = format!("action=once&csrf={csrf}");
    assert_eq!(
        post(
            &[("Cookie", &cookie), ("Origin", "http://evil.example")],
            &right
        ),
        403,
        "another site's page"
    );
    assert_eq!(
        post(&[("Cookie", &cookie)], &right),
        403,
        "no origin at all"
    );
    assert_eq!(post(&[("Origin", &ours)], &right), 401, "no session");
    assert_eq!(
        post(
            &[("Authorization", "Bearer not-the-token-at-all")],
            "action=once"
        ),
        401,
        "a wrong bearer token"
    );
    let login = http::send(
        address,
        "POST",
        "/login",
        &[("Origin", &ours)],
        Some("token=not-the-token-at-all"),
    );
    assert_eq!(login.status, 401, "a wrong token signs nobody in");
    assert!(login.header("set-cookie").is_none());
    let store = Database::open(database, Duration::from_secs(5)).unwrap();
    assert_eq!(store.get(1).unwrap().unwrap().status, Status::Pending);
}
