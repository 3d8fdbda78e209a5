//! The approval console over plain HTTP, against a real SQLite store: the
//! paths the browser test does not take. A bearer of the token lists and
//! answers without cookie or CSRF token (a wrong one answers nothing); behind
//! a trusted proxy the header names who answered, and forms still need the
//! user's CSRF token and the console's origin; a denial needs a reason; an
//! answered request is never answered twice. Who answered is the token's
//! holder (each line of a token file names one), never a typed name; wrong
//! tokens are throttled, weak ones refused at start; sessions expire; a
//! session approval needs its second step. Every refusal is checked in the
//! store too: the request is still pending.

#[path = "support/children.rs"]
mod children;
#[path = "support/http.rs"]
mod http;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use axum::http::HeaderName;
use hooks_std::approval::console::{Console, ConsoleAuth};
use hooks_std::approval::store::NewRequest;
use hooks_std::approval::{ApprovalStore, Request, Scope, SqliteStore, Status};

/// From `openssl rand -hex 32`: a token the console accepts.
const TOKEN: &str = "5c1f0e8a93b24d7e6f01a9c3b8d2e4f7a6c5b0d9e8f7a1b2c3d4e5f60718293a";
const PROXY_HEADER: &str = "x-forwarded-user";

/// A console serving a fresh SQLite store on loopback, and the store itself.
struct Served {
    runtime: tokio::runtime::Runtime,
    store: SqliteStore,
    address: SocketAddr,
    path: PathBuf,
}

impl Drop for Served {
    /// Removes its database; the directory too once the last test's is gone.
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
        }
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl Served {
    fn new(name: &str, auth: ConsoleAuth) -> Self {
        Self::with(name, auth, |console| console)
    }

    /// [`Served::new`], the console set up by `setup`.
    fn with(name: &str, auth: ConsoleAuth, setup: impl FnOnce(Console) -> Console) -> Self {
        let dir =
            std::env::temp_dir().join(format!("hooks-std-console-http-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path: PathBuf = dir.join(format!("{name}.sqlite3"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let store = SqliteStore::open(&path, Duration::from_secs(5)).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address = listener.local_addr().unwrap();
        let console = setup(Console::new(store.clone(), auth));
        runtime.spawn(console.serve(listener));
        Served {
            runtime,
            store,
            address,
            path,
        }
    }

    /// Stores a pending request for `tool`; its id.
    fn ask(&self, tool: &str) -> i64 {
        self.runtime
            .block_on(self.store.insert(NewRequest {
                fingerprint: format!("fingerprint-{tool}"),
                session: "console-http-session".into(),
                agent: "agent-7".into(),
                user: Some("dana".into()),
                tool: tool.into(),
                args: r#"{"order":7}"#.into(),
                prompt: format!("Allow {tool}?"),
            }))
            .unwrap()
    }

    /// Request `id` as the store has it now.
    fn stored(&self, id: i64) -> Request {
        self.runtime
            .block_on(self.store.get(id))
            .unwrap()
            .unwrap_or_else(|| panic!("request #{id} is not in the store"))
    }

    fn assert_pending(&self, id: i64, why: &str) {
        let request = self.stored(id);
        assert_eq!(request.status, Status::Pending, "{why}: {request:?}");
        assert_eq!(request.responded_by, None, "{why}");
        assert_eq!(request.responded_at, None, "{why}");
    }

    fn pending_ids(&self) -> Vec<i64> {
        self.runtime
            .block_on(self.store.list(Status::Pending))
            .unwrap()
            .iter()
            .map(|request| request.id)
            .collect()
    }

    fn get(&self, path: &str, headers: &[(&str, &str)]) -> http::Reply {
        http::send(self.address, "GET", path, headers, None)
    }

    fn answer(&self, id: i64, headers: &[(&str, &str)], body: &str) -> http::Reply {
        http::send(
            self.address,
            "POST",
            &format!("/requests/{id}/answer"),
            headers,
            Some(body),
        )
    }

    fn origin(&self) -> String {
        format!("http://{}", self.address)
    }
}

fn token() -> ConsoleAuth {
    ConsoleAuth::token("token-bearer", TOKEN).unwrap()
}

fn proxy() -> ConsoleAuth {
    ConsoleAuth::trusted_header(HeaderName::from_static(PROXY_HEADER))
}

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

/// The CSRF token in the page `headers` get.
fn page_csrf(served: &Served, headers: &[(&str, &str)]) -> String {
    let page = served.get("/", headers);
    assert_eq!(page.status, 200, "{}", page.body);
    let marker = r#"name="csrf" content=""#;
    let start = page.body.find(marker).expect("a CSRF token in the page") + marker.len();
    let csrf = &page.body[start..];
    csrf[..csrf.find('"').unwrap()].to_owned()
}

/// The ids in a `GET /requests` answer.
fn listed(reply: &http::Reply) -> Vec<i64> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|kind| kind.starts_with("application/json")),
        "{:?}",
        reply.headers
    );
    let json: serde_json::Value = serde_json::from_str(&reply.body).expect("JSON");
    json.as_array()
        .expect("a list")
        .iter()
        .map(|shown| shown["id"].as_i64().expect("an id"))
        .collect()
}

#[test]
fn a_bearer_of_the_token_lists_and_answers_without_cookie_or_csrf() {
    let served = Served::new("bearer", token());
    let refund = served.ask("payments_refund");
    let transfer = served.ask("payments_transfer");
    let bearer = bearer();

    let list = served.get("/requests", &[("Authorization", &bearer)]);
    assert_eq!(listed(&list), vec![refund, transfer]);
    let json: serde_json::Value = serde_json::from_str(&list.body).unwrap();
    assert_eq!(json[0]["tool"], "payments_refund");
    assert_eq!(json[0]["user"], "dana");
    assert_eq!(served.pending_ids(), vec![refund, transfer]);

    // Closed to everyone else.
    for (headers, why) in [
        (vec![], "no credentials"),
        (
            vec![("Authorization", "Bearer not-the-token")],
            "a wrong bearer token",
        ),
        (vec![("Authorization", "Bearer ")], "an empty bearer token"),
        (
            vec![("Authorization", TOKEN)],
            "the token without its scheme",
        ),
        (
            vec![("Authorization", "Basic Y29uc29sZTp0b2tlbg==")],
            "another scheme",
        ),
    ] {
        let reply = served.get("/requests", &headers);
        assert_eq!(reply.status, 401, "{why}: {}", reply.body);
        assert!(!reply.body.contains("payments_refund"), "{why}");
        let reply = served.answer(refund, &headers, "action=once");
        assert_eq!(reply.status, 401, "{why}: {}", reply.body);
        served.assert_pending(refund, why);
    }
    // A wrong bearer token is not rescued by a valid session cookie.
    let cookie = http::login(served.address, TOKEN);
    let csrf = http::csrf(served.address, &cookie);
    let origin = served.origin();
    let reply = served.answer(
        refund,
        &[
            ("Authorization", "Bearer not-the-token"),
            ("Cookie", &cookie),
            ("Origin", &origin),
        ],
        &format!("action=once&csrf={csrf}"),
    );
    assert_eq!(reply.status, 401, "{}", reply.body);
    served.assert_pending(refund, "a wrong bearer token next to a good cookie");

    // The right one answers: no cookie, no CSRF token, no Origin.
    let reply = served.answer(refund, &[("Authorization", &bearer)], "action=once");
    assert_eq!(reply.status, 303, "{}", reply.body);
    let answered = served.stored(refund);
    assert_eq!(answered.status, Status::Approved);
    assert_eq!(answered.scope, Some(Scope::Once));
    assert_eq!(answered.responded_by.as_deref(), Some("token-bearer"));
    assert!(answered.responded_at.is_some());
    assert_eq!(answered.reason, None);
    assert_eq!(
        answered.consumed_at, None,
        "the console answers, the gate uses"
    );
    assert_eq!(served.stored(transfer).status, Status::Pending);

    // The list follows the store.
    let list = served.get("/requests", &[("Authorization", &bearer)]);
    assert_eq!(listed(&list), vec![transfer]);

    // For the session: the grant lands with the answer.
    let reply = served.answer(
        transfer,
        &[("Authorization", &format!("bearer  {TOKEN} "))],
        "action=session&confirm=yes",
    );
    assert_eq!(
        reply.status, 303,
        "the scheme is case-insensitive: {}",
        reply.body
    );
    let answered = served.stored(transfer);
    assert_eq!(answered.status, Status::Approved);
    assert_eq!(answered.scope, Some(Scope::Session));
    let grant = served
        .runtime
        .block_on(
            served
                .store
                .grant("console-http-session", "payments_transfer"),
        )
        .unwrap()
        .expect("a session grant");
    assert_eq!(grant.request, transfer);
    assert_eq!(grant.by.as_deref(), Some("token-bearer"));
    assert_eq!(
        listed(&served.get("/requests", &[("Authorization", &bearer)])),
        Vec::<i64>::new()
    );
}

#[test]
fn behind_a_trusted_proxy_the_header_names_who_answered() {
    let served = Served::new("proxy", proxy());
    let refund = served.ask("payments_refund");
    let origin = served.origin();

    // Without the header (or with an empty one): closed, the token no help.
    for (headers, why) in [
        (vec![], "no header"),
        (vec![(PROXY_HEADER, "  ")], "a blank header"),
        (vec![("Authorization", "Bearer x")], "a bearer token"),
        (
            vec![("X-Forwarded-For", "alice")],
            "some other forwarded header",
        ),
    ] {
        let page = served.get("/", &headers);
        assert_eq!(page.status, 401, "{why}: {}", page.body);
        assert!(!page.body.contains("csrf"), "{why}");
        let list = served.get("/requests", &headers);
        assert_eq!(list.status, 401, "{why}");
        assert!(!list.body.contains("payments_refund"), "{why}");
        assert_eq!(served.get("/events", &headers).status, 401, "{why}");
        let reply = served.answer(refund, &headers, "action=once");
        assert_eq!(reply.status, 401, "{why}: {}", reply.body);
        served.assert_pending(refund, why);
    }
    // No login form in this mode: the proxy signs people in.
    assert_eq!(served.get("/login", &[]).status, 404);
    let login = http::send(
        served.address,
        "POST",
        "/login",
        &[("Origin", &origin)],
        Some("token=anything"),
    );
    assert_eq!(login.status, 404);
    assert!(login.header("set-cookie").is_none());

    // With it, the page loads, with a CSRF token for that user.
    let alice = [(PROXY_HEADER, "alice")];
    let csrf = page_csrf(&served, &alice);
    assert_eq!(csrf.len(), 64, "{csrf}");
    assert_eq!(page_csrf(&served, &alice), csrf, "one token per user");
    let bob_csrf = page_csrf(&served, &[(PROXY_HEADER, "bob")]);
    assert_ne!(bob_csrf, csrf, "each user has a token of their own");
    assert_eq!(
        listed(&served.get("/requests", &alice)),
        vec![refund],
        "the list needs no CSRF token"
    );

    // Forms still need the user's CSRF token and the console's origin.
    forged_posts_answer_nothing(&served, refund, &csrf, &bob_csrf);

    // The user's own page, with its token: answered, by the header's user.
    let reply = served.answer(
        refund,
        &[(PROXY_HEADER, "alice"), ("Origin", &origin)],
        &format!("action=once&csrf={csrf}"),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let answered = served.stored(refund);
    assert_eq!(answered.status, Status::Approved);
    assert_eq!(answered.scope, Some(Scope::Once));
    assert_eq!(answered.responded_by.as_deref(), Some("alice"));

    // Without an Origin, the console's own Referer does; bob denies as bob.
    let transfer = served.ask("payments_transfer");
    let referer = format!("{origin}/");
    let reply = served.answer(
        transfer,
        &[(PROXY_HEADER, "bob"), ("Referer", &referer)],
        &format!("action=deny&reason=not+today&csrf={bob_csrf}"),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let answered = served.stored(transfer);
    assert_eq!(answered.status, Status::Denied);
    assert_eq!(answered.responded_by.as_deref(), Some("bob"));
    assert_eq!(answered.reason.as_deref(), Some("not today"));
}

/// `POST`s with alice's header that did not come from her page, with her
/// token: refused, and `id` stays pending.
fn forged_posts_answer_nothing(served: &Served, id: i64, csrf: &str, bob_csrf: &str) {
    let origin = served.origin();
    let right = format!("action=once&csrf={csrf}");
    for (headers, body, why) in [
        (
            vec![(PROXY_HEADER, "alice"), ("Origin", origin.as_str())],
            "action=once".to_owned(),
            "no CSRF token",
        ),
        (
            vec![(PROXY_HEADER, "alice"), ("Origin", origin.as_str())],
            format!("action=once&csrf={}", "0".repeat(64)),
            "a wrong CSRF token",
        ),
        (
            vec![(PROXY_HEADER, "alice"), ("Origin", origin.as_str())],
            format!("action=once&csrf={bob_csrf}"),
            "another user's CSRF token",
        ),
        (
            vec![(PROXY_HEADER, "alice"), ("Origin", "http://evil.example")],
            right.clone(),
            "another site's page",
        ),
        (
            vec![(PROXY_HEADER, "alice"), ("Origin", "null")],
            right.clone(),
            "an opaque origin",
        ),
        (
            vec![
                (PROXY_HEADER, "alice"),
                ("Referer", "http://evil.example/console"),
            ],
            right.clone(),
            "another site's page, by its referer",
        ),
        (
            vec![(PROXY_HEADER, "alice")],
            right.clone(),
            "no origin at all",
        ),
        (
            vec![(PROXY_HEADER, "alice"), ("Authorization", "Bearer x")],
            "action=once".to_owned(),
            "a bearer token instead of CSRF",
        ),
    ] {
        let reply = served.answer(id, &headers, &body);
        assert_eq!(reply.status, 403, "{why}: {}", reply.body);
        served.assert_pending(id, why);
    }
}

#[test]
fn a_denial_needs_a_reason() {
    let served = Served::new("reason", token());
    let refund = served.ask("payments_refund");
    let bearer = bearer();
    let by_bearer = [("Authorization", bearer.as_str())];

    for (body, expected, why) in [
        ("action=deny", 400, "no reason"),
        ("action=deny&reason=", 400, "an empty reason"),
        ("action=deny&reason=+%20%09%0A", 400, "a blank reason"),
        ("action=always&reason=because", 400, "an unknown action"),
        ("reason=because", 422, "no action"),
    ] {
        let reply = served.answer(refund, &by_bearer, body);
        assert_eq!(reply.status, expected, "{why}: {}", reply.body);
        served.assert_pending(refund, why);
    }
    // The same from a browser session with its CSRF token.
    let cookie = http::login(served.address, TOKEN);
    let csrf = http::csrf(served.address, &cookie);
    let origin = served.origin();
    let browser = [("Cookie", cookie.as_str()), ("Origin", origin.as_str())];
    let reply = served.answer(
        refund,
        &browser,
        &format!("action=deny&reason=&csrf={csrf}"),
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    served.assert_pending(refund, "an empty reason from the page");

    // With one, denied, the reason trimmed and stored for the model to read.
    let reply = served.answer(
        refund,
        &browser,
        &format!("action=deny&reason=++refunds+over+%24100+need+a+ticket+&csrf={csrf}"),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let denied = served.stored(refund);
    assert_eq!(denied.status, Status::Denied);
    assert_eq!(
        denied.reason.as_deref(),
        Some("refunds over $100 need a ticket")
    );
    assert_eq!(denied.responded_by.as_deref(), Some("token-bearer"));
    assert_eq!(denied.scope, Some(Scope::Once));
    assert!(served.pending_ids().is_empty());
}

#[test]
fn an_answered_request_is_not_answered_again() {
    let served = Served::new("twice", token());
    let refund = served.ask("payments_refund");
    let bearer = bearer();
    let by_bearer = [("Authorization", bearer.as_str())];

    let first = served.answer(refund, &by_bearer, "action=once");
    assert_eq!(first.status, 303, "{}", first.body);
    let answered = served.stored(refund);
    assert_eq!(answered.status, Status::Approved);

    for body in [
        "action=once",
        "action=session&confirm=yes",
        "action=deny&reason=changed+my+mind",
    ] {
        let again = served.answer(refund, &by_bearer, body);
        assert_eq!(again.status, 409, "{body}: {}", again.body);
        assert!(again.body.contains("not pending"), "{}", again.body);
        assert_eq!(
            served.stored(refund),
            answered,
            "{body}: the first answer stands"
        );
    }
    // Nor from a browser session, under another name.
    let cookie = http::login(served.address, TOKEN);
    let csrf = http::csrf(served.address, &cookie);
    let origin = served.origin();
    let again = served.answer(
        refund,
        &[("Cookie", &cookie), ("Origin", &origin)],
        &format!("action=deny&reason=no&csrf={csrf}"),
    );
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(served.stored(refund), answered);
    assert!(
        served
            .runtime
            .block_on(
                served
                    .store
                    .grant("console-http-session", "payments_refund")
            )
            .unwrap()
            .is_none(),
        "no grant from a refused second answer"
    );

    // An expired request, and one that does not exist, are reported the same way.
    let late = served.ask("payments_late");
    served.runtime.block_on(served.store.expire(late)).unwrap();
    let reply = served.answer(late, &by_bearer, "action=once");
    assert_eq!(reply.status, 409, "{}", reply.body);
    assert_eq!(served.stored(late).status, Status::Expired);
    assert_eq!(served.stored(late).responded_by, None);
    let reply = served.answer(9_999, &by_bearer, "action=once");
    assert_eq!(reply.status, 409, "{}", reply.body);
    assert!(
        served
            .runtime
            .block_on(served.store.get(9_999))
            .unwrap()
            .is_none()
    );
}

#[test]
fn racing_answers_record_exactly_one() {
    let served = Served::new("race", proxy());
    let refund = served.ask("payments_refund");
    let origin = served.origin();
    let users: Vec<String> = (0..8).map(|n| format!("user-{n}")).collect();
    let tokens: Vec<String> = users
        .iter()
        .map(|user| page_csrf(&served, &[(PROXY_HEADER, user)]))
        .collect();
    let statuses: Vec<(String, u16)> = std::thread::scope(|scope| {
        let racers: Vec<_> = users
            .iter()
            .zip(&tokens)
            .enumerate()
            .map(|(n, (user, csrf))| {
                let (served, origin) = (&served, &origin);
                scope.spawn(move || {
                    let body = if n.is_multiple_of(2) {
                        format!("action=once&csrf={csrf}")
                    } else {
                        format!("action=deny&reason=racer+{n}&csrf={csrf}")
                    };
                    let reply =
                        served.answer(refund, &[(PROXY_HEADER, user), ("Origin", origin)], &body);
                    (user.clone(), reply.status)
                })
            })
            .collect();
        racers
            .into_iter()
            .map(|racer| racer.join().unwrap())
            .collect()
    });
    let winners: Vec<&String> = statuses
        .iter()
        .filter(|(_, status)| *status == 303)
        .map(|(user, _)| user)
        .collect();
    assert_eq!(winners.len(), 1, "{statuses:?}");
    assert!(
        statuses
            .iter()
            .all(|(_, status)| *status == 303 || *status == 409),
        "{statuses:?}"
    );
    let answered = served.stored(refund);
    assert_eq!(answered.responded_by.as_ref(), Some(winners[0]));
    let winner: usize = winners[0].trim_start_matches("user-").parse().unwrap();
    if winner.is_multiple_of(2) {
        assert_eq!(answered.status, Status::Approved);
        assert_eq!(answered.reason, None);
    } else {
        assert_eq!(answered.status, Status::Denied);
        assert_eq!(answered.reason, Some(format!("racer {winner}")));
    }
}

#[test]
fn a_page_under_another_host_name_cannot_use_the_console() {
    // DNS rebinding: evil.example resolves to 127.0.0.1, so its page's
    // Origin and Host match each other, and its script sets the proxy's header.
    let served = Served::new("rebinding", proxy());
    let refund = served.ask("payments_refund");
    let port = served.address.port();
    let evil = format!("evil.example:{port}");
    let evil_origin = format!("http://{evil}");
    let page = http::send_to_host(
        served.address,
        &evil,
        "GET",
        "/",
        &[(PROXY_HEADER, "mallory")],
        None,
    );
    assert_eq!(page.status, 421, "{}", page.body);
    assert!(!page.body.contains("csrf"));
    let list = http::send_to_host(
        served.address,
        &evil,
        "GET",
        "/requests",
        &[(PROXY_HEADER, "mallory")],
        None,
    );
    assert_eq!(list.status, 421);
    assert!(!list.body.contains("payments_refund"));
    let reply = http::send_to_host(
        served.address,
        &evil,
        "POST",
        &format!("/requests/{refund}/answer"),
        &[(PROXY_HEADER, "mallory"), ("Origin", &evil_origin)],
        Some("action=once&csrf=anything"),
    );
    assert_eq!(reply.status, 421);
    served.assert_pending(refund, "a request under another host name");
    // Its own names still work: the address, and localhost.
    for host in [served.address.to_string(), format!("localhost:{port}")] {
        let page = http::send_to_host(
            served.address,
            &host,
            "GET",
            "/",
            &[(PROXY_HEADER, "alice")],
            None,
        );
        assert_eq!(page.status, 200, "{host}: {}", page.body);
    }
}

#[test]
fn who_answered_is_how_they_signed_in_not_a_name_they_typed() {
    let served = Served::new("identity", token());
    let refund = served.ask("payments_refund");
    let origin = served.origin();
    // The form has no name field; one added by hand names nobody.
    let reply = http::send(
        served.address,
        "POST",
        "/login",
        &[("Origin", &origin)],
        Some(&format!("token={TOKEN}&name=the-ceo")),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let cookie = reply
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let csrf = http::csrf(served.address, &cookie);
    let reply = served.answer(
        refund,
        &[("Cookie", &cookie), ("Origin", &origin)],
        &format!("action=once&csrf={csrf}"),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    assert_eq!(
        served.stored(refund).responded_by.as_deref(),
        Some("token-bearer"),
        "the token's holder answered, whatever name was typed"
    );
    let form = served.get("/login", &[]);
    assert!(!form.body.contains(r#"name="name""#), "{}", form.body);
}

#[test]
fn approving_for_the_session_needs_a_second_step() {
    let served = Served::new("confirm", token());
    let transfer = served.ask("payments_transfer");
    let bearer = bearer();
    let by_bearer = [("Authorization", bearer.as_str())];
    for (body, why) in [
        ("action=session", "no confirmation"),
        ("action=session&confirm=", "an empty confirmation"),
        ("action=session&confirm=no", "a confirmation that says no"),
    ] {
        let reply = served.answer(transfer, &by_bearer, body);
        assert_eq!(reply.status, 400, "{why}: {}", reply.body);
        assert!(reply.body.contains("confirm"), "{why}: {}", reply.body);
        served.assert_pending(transfer, why);
    }
    assert!(
        served
            .runtime
            .block_on(
                served
                    .store
                    .grant("console-http-session", "payments_transfer")
            )
            .unwrap()
            .is_none(),
        "no grant without the second step"
    );
    let reply = served.answer(transfer, &by_bearer, "action=session&confirm=yes");
    assert_eq!(reply.status, 303, "{}", reply.body);
    assert_eq!(served.stored(transfer).scope, Some(Scope::Session));
}

/// Signs in with `token` from the test's address: the status.
fn sign_in(served: &Served, token: &str) -> http::Reply {
    let origin = served.origin();
    http::send(
        served.address,
        "POST",
        "/login",
        &[("Origin", &origin)],
        Some(&format!("token={token}")),
    )
}

#[test]
fn wrong_tokens_are_throttled_and_the_right_one_gets_back_in() {
    let served = Served::new("throttle", token());
    let refund = served.ask("payments_refund");
    let signed_in = http::login(served.address, TOKEN);
    // 300 wrong tokens as fast as one client can send them, by form and by header.
    let mut answered = 0;
    let mut throttled = 0;
    let guessing = std::time::Instant::now();
    for n in 0..300 {
        let wrong = format!("wrong-token-{n:04}-0123456789abcdef");
        let reply = if n % 2 == 0 {
            sign_in(&served, &wrong)
        } else {
            served.get(
                "/requests",
                &[("Authorization", &format!("Bearer {wrong}"))],
            )
        };
        match reply.status {
            401 => answered += 1,
            429 => {
                throttled += 1;
                let retry: u64 = reply
                    .header("retry-after")
                    .expect("a Retry-After")
                    .parse()
                    .expect("seconds");
                assert!((1..=60).contains(&retry), "{retry}");
                assert!(reply.header("set-cookie").is_none());
            }
            other => panic!("wrong token #{n}: {other} {}", reply.body),
        }
    }
    // Ten at once, and one more for every 6 s the guessing took (a slow machine).
    let allowed = 10.0 + (guessing.elapsed().as_secs_f64() / 6.0).ceil();
    assert!(
        f64::from(answered) <= allowed,
        "{answered} wrong tokens were checked (at most {allowed}), {throttled} throttled"
    );
    assert_eq!(answered + throttled, 300);
    served.assert_pending(refund, "throttled guesses");
    // Someone signed in before is not slowed: only presented tokens count.
    assert_eq!(
        listed(&served.get("/requests", &[("Cookie", &signed_in)])),
        vec![refund]
    );
    // The right token from the same address waits its turn, then gets in: a
    // guesser slows everyone on its address, and locks out nobody for good.
    let started = std::time::Instant::now();
    loop {
        let reply = sign_in(&served, TOKEN);
        if reply.status == 303 {
            break;
        }
        assert_eq!(reply.status, 429, "{}", reply.body);
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the right token is still refused after two minutes"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_token_easy_to_guess_is_refused_at_start() {
    let dir = std::env::temp_dir().join(format!(
        "hooks-std-console-http-weak-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("weak-token");
    for weak in [
        "aaaaaaaaaaaaaaaa",
        "abcdefghijklmnopqrstuvwxyz",
        "0123456789012345678901234567890123456789",
        "abababababababababababababababababababab",
        "correcthorse",
    ] {
        std::fs::write(&file, format!("{weak}\n")).unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
            .args(["--db".as_ref(), dir.join("weak.sqlite3").as_os_str()])
            .args(["serve", "--bind", "127.0.0.1:0", "--token-file"])
            .arg(&file)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A console that starts prints its address and serves until killed.
        let status = children::wait(&mut child, Duration::from_secs(60));
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!status.success(), "{weak}: started");
        assert!(
            output.stdout.is_empty(),
            "{weak}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert!(
            stderr.contains("bits") && stderr.contains("openssl rand"),
            "{weak}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Polls `expired` until it is true: the time since `since` then, failing
/// after a minute.
fn until(since: std::time::Instant, mut expired: impl FnMut() -> bool) -> Duration {
    loop {
        if expired() {
            return since.elapsed();
        }
        assert!(
            since.elapsed() < Duration::from_secs(60),
            "still not expired after a minute"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_login_expires() {
    let lifetime = Duration::from_secs(2);
    let served = Served::new("expiry", token().session_lifetime(lifetime));
    let refund = served.ask("payments_refund");
    let origin = served.origin();
    let before = std::time::Instant::now();
    let cookie = http::login(served.address, TOKEN);
    let csrf = http::csrf(served.address, &cookie);
    let with_cookie = [("Cookie", cookie.as_str())];
    assert_eq!(listed(&served.get("/requests", &with_cookie)), vec![refund]);
    // The live stream ends with the session (its reconnection is refused below).
    let stream = served.get("/events", &with_cookie);
    assert_eq!(stream.status, 200);
    assert!(stream.body.contains("payments_refund"), "{}", stream.body);
    assert!(before.elapsed() >= lifetime, "the stream ended early");
    let waited = until(before, || served.get("/", &with_cookie).status == 401);
    assert!(waited >= lifetime, "expired after {waited:?}");
    for path in ["/requests", "/events"] {
        assert_eq!(served.get(path, &with_cookie).status, 401, "{path}");
    }
    let reply = served.answer(
        refund,
        &[("Cookie", &cookie), ("Origin", &origin)],
        &format!("action=once&csrf={csrf}"),
    );
    assert_eq!(reply.status, 401, "{}", reply.body);
    served.assert_pending(refund, "an expired login");
    // Signing in again works.
    let cookie = http::login(served.address, TOKEN);
    assert_eq!(served.get("/", &[("Cookie", &cookie)]).status, 200);
}

#[test]
fn a_proxy_users_session_expires() {
    let lifetime = Duration::from_secs(2);
    let served = Served::new("proxy-expiry", proxy().session_lifetime(lifetime));
    let refund = served.ask("payments_refund");
    let origin = served.origin();
    let alice = [(PROXY_HEADER, "alice")];
    let before = std::time::Instant::now();
    let old = page_csrf(&served, &alice);
    let stream = served.get("/events", &alice);
    assert!(stream.body.contains("payments_refund"), "{}", stream.body);
    assert!(before.elapsed() >= lifetime, "the stream ended early");
    let waited = until(before, || page_csrf(&served, &alice) != old);
    assert!(waited >= lifetime, "renewed after {waited:?}");
    // A page older than the session answers nothing; a fresh one does.
    let reply = served.answer(
        refund,
        &[(PROXY_HEADER, "alice"), ("Origin", &origin)],
        &format!("action=once&csrf={old}"),
    );
    assert_eq!(reply.status, 403, "{}", reply.body);
    served.assert_pending(refund, "a CSRF token of an expired session");
    let fresh = page_csrf(&served, &alice);
    let reply = served.answer(
        refund,
        &[(PROXY_HEADER, "alice"), ("Origin", &origin)],
        &format!("action=once&csrf={fresh}"),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    assert_eq!(served.stored(refund).responded_by.as_deref(), Some("alice"));
}

#[test]
fn each_token_in_the_file_answers_under_its_holders_name() {
    const ALICE: &str = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
    const BOB: &str = "Zx3v9Q2mT8kL1pW7rY4bN6cH0sJd5fGuEaVtRyXo0b1w";
    let dir = std::env::temp_dir().join(format!(
        "hooks-std-console-http-holders-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let database = dir.join("holders.sqlite3");
    let tokens = dir.join("tokens");
    std::fs::write(
        &tokens,
        format!("# who may answer\nalice {ALICE}\n\nbob   {BOB}\n"),
    )
    .unwrap();
    let store = SqliteStore::open(&database, Duration::from_secs(5)).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ask = |tool: &str| {
        runtime
            .block_on(store.insert(NewRequest {
                fingerprint: format!("fingerprint-{tool}"),
                session: "holders".into(),
                agent: "agent-7".into(),
                user: None,
                tool: tool.into(),
                args: "{}".into(),
                prompt: format!("Allow {tool}?"),
            }))
            .unwrap()
    };
    let (refund, transfer) = (ask("payments_refund"), ask("payments_transfer"));
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
        .args(["--db".as_ref(), database.as_os_str()])
        .args(["serve", "--bind", "127.0.0.1:0", "--by", "nobody"])
        .args(["--session-lifetime", "30m", "--token-file"])
        .arg(&tokens)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let address: SocketAddr = line
        .trim()
        .strip_prefix("console on http://")
        .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("unexpected console output: {line:?}"));
    for (id, token) in [(refund, ALICE), (transfer, BOB)] {
        let reply = http::send(
            address,
            "POST",
            &format!("/requests/{id}/answer"),
            &[("Authorization", &format!("Bearer {token}"))],
            Some("action=once"),
        );
        assert_eq!(reply.status, 303, "{}", reply.body);
    }
    let _ = server.kill();
    let _ = server.wait();
    let by = |id| {
        runtime
            .block_on(store.get(id))
            .unwrap()
            .unwrap()
            .responded_by
    };
    assert_eq!(by(refund).as_deref(), Some("alice"));
    assert_eq!(by(transfer).as_deref(), Some("bob"));
    let _ = std::fs::remove_dir_all(&dir);
}
