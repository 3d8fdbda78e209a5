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
use hooks_std::approval::store::NewRequest;
use hooks_std::approval::{ApprovalGate, Approvals, Database, Scope, ScriptedChannel, Status};

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
            children::check(
                "a_click_on_approve_once_runs_the_waiting_call_once",
                a_click_on_approve_once_runs_the_waiting_call_once,
            );
            children::check(
                "hostile_arguments_leave_every_key_and_the_buttons_in_view",
                hostile_arguments_leave_every_key_and_the_buttons_in_view,
            );
            println!("\ntest result: ok. 2 passed; 0 failed");
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

/// A request stored by hand, as a gate would have: its id.
fn stored(
    store: &Database,
    tool: &str,
    args: &Value,
    prompt: &str,
    agent: &str,
    session: &str,
) -> i64 {
    store
        .insert(&NewRequest {
            fingerprint: format!("fingerprint-{tool}-{session}"),
            session: session.into(),
            agent: agent.into(),
            user: Some("dana".into()),
            tool: tool.into(),
            args: args.to_string(),
            prompt: prompt.into(),
        })
        .unwrap()
}

/// Signs the browser in at `console` and waits for the live page.
async fn sign_in(browser: &mut Chromium, console: &str) {
    browser.navigate(console).await;
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
}

/// What the page's layout says about row `id`, measured in the browser
/// after scrolling the row to the top of the window: problems found, one a
/// line (none: every key given and the buttons are in view, nothing is drawn
/// over the buttons or out of its column, the question is shown).
const LAYOUT: &str = r#"
(function (id, keys, question) {
  const problems = [];
  const row = document.getElementById("request-" + id);
  if (!row) return ["no row #" + id];
  row.scrollIntoView({ block: "start" });
  const width = window.innerWidth, height = window.innerHeight;
  const inView = (r) => r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
    && r.right <= width && r.bottom <= height;
  // What of `node` is not clipped away by a scrolling or clipping ancestor.
  const visible = (rect, node) => {
    let r = { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom };
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX !== "visible" || style.overflowY !== "visible") {
        const c = up.getBoundingClientRect();
        r = { left: Math.max(r.left, c.left), top: Math.max(r.top, c.top),
              right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom) };
      }
    }
    return r;
  };
  // The first text in the row holding `needle`, where it is drawn.
  const textRect = (needle) => {
    const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(needle);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      const r = range.getBoundingClientRect();
      const v = visible(r, node);
      return { left: v.left, top: v.top, right: v.right, bottom: v.bottom,
               width: v.right - v.left, height: v.bottom - v.top };
    }
    return null;
  };
  const buttons = [...row.querySelectorAll("button")].filter((b) => b.offsetParent !== null);
  const approve = buttons.find((b) => b.value === "once");
  if (!approve) problems.push("no visible Approve once button");
  else if (!inView(approve.getBoundingClientRect())) problems.push("Approve once is out of view: " + JSON.stringify(approve.getBoundingClientRect()));
  for (const button of buttons) {
    const r = button.getBoundingClientRect();
    if (!inView(r)) { problems.push("button " + button.textContent + " out of view"); continue; }
    for (const [fx, fy] of [[0.5, 0.5], [0.1, 0.2], [0.9, 0.8]]) {
      const top = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
      if (!top || !button.contains(top)) problems.push("something is drawn over " + button.textContent + ": " + (top && top.outerHTML.slice(0, 80)));
    }
  }
  for (const key of keys) {
    const r = textRect(key);
    if (!r) problems.push("key " + key.slice(0, 30) + " is not in the row");
    else if (!inView(r)) problems.push("key " + key.slice(0, 30) + " is out of view: " + JSON.stringify(r));
  }
  if (!row.innerText.includes(question)) problems.push("the question is not shown in the row");
  // No text drawn outside its own column.
  for (const cell of row.children) {
    const c = cell.getBoundingClientRect();
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        const v = visible(r, node);
        if (v.right <= v.left || v.bottom <= v.top) continue;
        if (v.left < c.left - 1 || v.right > c.right + 1) {
          problems.push("text drawn outside its column: " + node.data.slice(0, 40));
          break;
        }
      }
    }
  }
  if (document.documentElement.scrollWidth > width + 1) problems.push("the page scrolls sideways: " + document.documentElement.scrollWidth);
  if (approve && row.innerText.length > 6000) problems.push("the row shows " + row.innerText.length + " characters at once");
  return problems;
})
"#;

/// One hostile request stored: its id, tool, the keys (and dangerous
/// values) that must stay in view, and its question.
struct Hostile {
    id: i64,
    tool: String,
    in_view: Vec<String>,
    question: &'static str,
}

/// Requests whose arguments try to push what matters out of view: a
/// harmless 12,000-character first value, unbreakable strings (in a value,
/// the agent's and session's names, the tool's), padding of line breaks and
/// spaces, a 3,000-character key.
fn hostile_requests(store: &Database) -> Vec<Hostile> {
    let harmless: String = "the quarterly report is attached for review. "
        .repeat(300)
        .chars()
        .take(12_000)
        .collect();
    let long_key = format!("k{}", "x".repeat(3_000));
    let padded = format!("fine{}{}", "\n".repeat(400), " ".repeat(3_000));
    let cases = [
        (
            "shell_exec".to_owned(),
            json!({"note": harmless, "command": "rm -rf / --no-preserve-root"}),
            "Run a shell command on the production host?",
            "agent-7".to_owned(),
            "console-session".to_owned(),
            vec!["note", "command", "rm -rf /"],
        ),
        (
            "files_write".to_owned(),
            json!({"path": "A".repeat(5_000), "target": "prod-db"}),
            "Write a file outside the workspace?",
            format!("agent-{}", "B".repeat(3_000)),
            format!("session-{}", "C".repeat(3_000)),
            vec!["path", "target", "prod-db"],
        ),
        (
            "payments_transfer".to_owned(),
            json!({"comment": padded, long_key.clone(): 1, "amount_usd": 1_000_000}),
            "Move money between accounts?",
            "agent-9".to_owned(),
            "other-session".to_owned(),
            vec!["comment", &long_key[..20], "amount_usd", "1000000"],
        ),
        (
            format!("tool_{}", "T".repeat(2_000)),
            json!({"query": "DROP TABLE users"}),
            "Run a query that writes?",
            "agent-3".to_owned(),
            "third-session".to_owned(),
            vec!["query", "DROP TABLE users"],
        ),
        (
            // More keys than a window holds: not all in view, so the count
            // by the buttons says so (only the buttons' layout is checked).
            "bulk_update".to_owned(),
            Value::Object(
                (0..40)
                    .map(|n| (format!("field_{n:02}"), json!(n)))
                    .collect(),
            ),
            "Update many fields?",
            "agent-4".to_owned(),
            "fourth-session".to_owned(),
            vec![],
        ),
    ];
    cases
        .into_iter()
        .map(|(tool, args, question, agent, session, in_view)| Hostile {
            id: stored(store, &tool, &args, question, &agent, &session),
            tool,
            in_view: in_view.into_iter().map(str::to_owned).collect(),
            question,
        })
        .collect()
}

fn hostile_arguments_leave_every_key_and_the_buttons_in_view() {
    let database = temp("hostile.sqlite3");
    let token_file = temp("hostile-token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let store = Database::open(&database, Duration::from_secs(5)).unwrap();
    let hostile = hostile_requests(&store);
    let (_server, address) = serve(&database, &token_file);
    let console = format!("http://{address}/");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut browser = Chromium::launch().await;
        browser
            .call(
                "Emulation.setDeviceMetricsOverride",
                json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}),
            )
            .await;
        sign_in(&mut browser, &console).await;
        browser
            .wait_for(
                &format!(
                    "document.querySelectorAll('tr.request').length === {}",
                    hostile.len()
                ),
                Duration::from_secs(30),
            )
            .await;
        let mut problems = Vec::new();
        for request in &hostile {
            let found = browser
                .eval(&format!(
                    "{LAYOUT}({}, {}, {})",
                    request.id,
                    json!(request.in_view),
                    json!(request.question)
                ))
                .await;
            for problem in found.as_array().unwrap() {
                problems.push(format!(
                    "#{} {}: {}",
                    request.id,
                    &request.tool[..request.tool.len().min(20)],
                    problem.as_str().unwrap()
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));

        // A long value is cut, its size said, and there to be seen whole.
        let first = hostile[0].id;
        let row = browser
            .eval(&format!(
                "document.getElementById('request-{first}').innerText"
            ))
            .await;
        assert!(row.as_str().unwrap().contains("12,000 characters"), "{row}");
        let count = browser
            .eval(&format!(
                "document.querySelector('#request-{first} td.answer .count').innerText"
            ))
            .await;
        assert_eq!(
            count,
            json!("2 arguments"),
            "the count stands by the buttons"
        );
        let many = browser
            .eval(&format!(
                "document.querySelector('#request-{} td.answer .count').innerText",
                hostile[4].id
            ))
            .await;
        assert_eq!(
            many,
            json!("40 arguments: scroll to read every one before answering")
        );
        let whole = browser
            .eval(&format!(
                "(() => {{ const d = document.querySelector('#request-{first} details'); \
                 d.open = true; return d.querySelector('.whole').textContent.length; }})()"
            ))
            .await;
        assert_eq!(whole, json!(12_000));

        approve_for_the_session_in_two_steps(&mut browser, &store, hostile[2].id).await;
    });
    let answered = store.get(hostile[2].id).unwrap().unwrap();
    assert_eq!(answered.status, Status::Approved);
    assert_eq!(answered.scope, Some(Scope::Session));
    assert_eq!(answered.responded_by.as_deref(), Some("alice"));
    let _ = std::fs::remove_dir_all(database.parent().unwrap());
}

/// "Approve for the session" shows a second step naming what it lets
/// through (one click answers nothing); its confirmation answers.
async fn approve_for_the_session_in_two_steps(browser: &mut Chromium, store: &Database, id: i64) {
    browser
        .eval(&format!(
            "document.querySelector('#request-{id} button.session').click(); true"
        ))
        .await;
    let confirm = browser
        .eval(&format!(
            "(() => {{ const f = document.querySelector('#request-{id} form.confirm-session'); \
             return f.hidden ? null : f.innerText; }})()"
        ))
        .await;
    let confirm = confirm.as_str().expect("the second step is shown");
    assert!(
        confirm.contains("payments_transfer") && confirm.contains("other-session"),
        "{confirm}"
    );
    assert_eq!(
        store.get(id).unwrap().unwrap().status,
        Status::Pending,
        "one click approved"
    );
    let problems = browser
        .eval(&format!("{LAYOUT}({id}, [], 'Move money')"))
        .await;
    assert_eq!(problems, json!([]), "the second step's layout");
    browser
        .eval(&format!(
            "document.querySelector('#request-{id} button.confirm').click(); true"
        ))
        .await;
    browser
        .wait_for(
            &format!(
                "document.getElementById('status')?.textContent === 'live' \
                 && document.getElementById('request-{id}') === null"
            ),
            Duration::from_secs(30),
        )
        .await;
}
