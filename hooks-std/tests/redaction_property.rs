//! A property: a secret, in any of the shapes secrets take and in any place
//! a call can carry it, never reaches the audit file or the approval store.
//!
//! Each case generates a secret (a random body wrapped in one of the shapes
//! below), puts it somewhere (an argument, deep in nested arguments, inside
//! a sentence, in a string that holds JSON, under a sensitive key), and makes
//! a call that is allowed, denied by a guard quoting its arguments, or asked
//! about (by the standard gate, or by a hook writing its own prompt). Then
//! the raw bytes of the audit log and of the SQLite store (its WAL included)
//! must not contain the body.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::approval::{Answer, ApprovalGate, Approvals, ScriptedChannel};
use hooks_std::audit::{Audit, Auditor};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

hooks_core::link!(hooks_std);

/// A secret as it appears in text; `{}` is the random body.
const SHAPES: &[&str] = &[
    "postgres://app:{}@db.internal:5432/main",
    "https://deploy:{}@git.example.com/repo.git",
    "X-Api-Key: {}",
    "Authorization: Bearer {}",
    "Authorization: Token {}",
    "Authorization: Basic {}",
    "password={}",
    "DB_PASSWORD={}",
    "api_key: {}",
    "--password={}",
    "--password {}",
    "--token {}",
    "mysql -u root -p{} app",
    "sshpass -p {} ssh deploy@host",
    "https://api.example.com/v1/items?api_key={}&page=2",
    "{\"client_secret\": \"{}\"}",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blb{}\n-----END OPENSSH PRIVATE KEY-----",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdG{}\n-----END PGP PRIVATE KEY BLOCK-----",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE{}\n-----END RSA PRIVATE KEY-----",
    "sk-ant-api03-{}",
    "sk-proj-{}",
    "sk_live_{}",
    "ghp_{}",
    "github_pat_{}",
    "xoxb-{}",
    "ya29.{}",
    "AKIA{}",
    "glpat-{}",
    "hf_{}",
];

/// Keys whose value is a secret whatever it looks like.
const SENSITIVE_KEYS: &[&str] = &[
    "password",
    "DBPassword",
    "JWTSecret",
    "pwd",
    "apiKey",
    "x-api-key",
    "client_secret",
    "accessToken",
    "otp",
    "dsn",
];

/// Where in a call the secret goes.
#[derive(Debug, Clone)]
enum Place {
    /// As an argument under a harmless name.
    Argument,
    /// In a sentence: text before and after it.
    Sentence(String, String),
    /// Deep in objects and arrays.
    Nested(usize),
    /// In a string that holds JSON.
    JsonInString,
    /// The bare body under a sensitive key.
    SensitiveKey(&'static str),
}

/// What happens to the call.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// Allowed and run.
    Allowed,
    /// Denied by a guard whose reason quotes the arguments.
    Quoted,
    /// Asked about by the standard gate; the person says yes.
    GateYes,
    /// Asked about by the standard gate; the person says no.
    GateNo,
    /// Asked about by a hook whose prompt quotes the arguments.
    OwnPrompt,
}

#[derive(Debug, Clone)]
struct Case {
    body: String,
    shape: &'static str,
    place: Place,
    route: Route,
}

impl Case {
    fn secret(&self) -> String {
        self.shape.replace("{}", &self.body)
    }

    fn args(&self) -> Value {
        let secret = self.secret();
        match &self.place {
            Place::Argument => json!({"note": secret, "n": 1}),
            Place::Sentence(before, after) => json!({"text": format!("{before} {secret} {after}")}),
            Place::Nested(depth) => {
                let mut value = json!({"value": secret});
                for level in 0..*depth {
                    value = if level % 2 == 0 {
                        json!([1, value])
                    } else {
                        json!({"inner": value, "id": level})
                    };
                }
                json!({"payload": value})
            }
            Place::JsonInString => {
                json!({"body": json!({"config": {"connection": secret}}).to_string()})
            }
            Place::SensitiveKey(key) => json!({"settings": {*key: self.body.clone()}}),
        }
    }

    fn tool(&self) -> &'static str {
        match self.route {
            Route::Allowed => "search",
            Route::Quoted => "quoted_exec",
            Route::GateYes | Route::GateNo => "payments_send",
            Route::OwnPrompt => "prompted_exec",
        }
    }
}

fn case() -> impl Strategy<Value = Case> {
    // Bodies long and random enough that finding one is never a coincidence.
    let body = "[A-Z0-9]{4}[a-zA-Z0-9]{16,28}";
    let words = "[a-z]{1,8}( [a-z]{1,8}){0,3}";
    let place = prop_oneof![
        Just(Place::Argument),
        (words, words).prop_map(|(before, after)| Place::Sentence(before, after)),
        (1usize..6).prop_map(Place::Nested),
        Just(Place::JsonInString),
        proptest::sample::select(SENSITIVE_KEYS).prop_map(Place::SensitiveKey),
    ];
    let route = proptest::sample::select(
        &[
            Route::Allowed,
            Route::Quoted,
            Route::GateYes,
            Route::GateNo,
            Route::OwnPrompt,
        ][..],
    );
    (body, proptest::sample::select(SHAPES), place, route).prop_map(
        |(body, shape, place, route)| Case {
            body,
            shape,
            place,
            route,
        },
    )
}

/// A dispatcher with the audit log, the approval gate, and two guards that
/// quote the call's arguments (in a denial reason, in an approval prompt),
/// over fresh files in `dir`; the person's answer follows the case's route.
struct World {
    hooks: Hooks,
    files: [PathBuf; 2],
}

impl World {
    fn new(dir: &Path, route: Route) -> World {
        std::fs::create_dir_all(dir).unwrap();
        let audit = dir.join("audit.jsonl");
        let database = dir.join("approvals.sqlite3");
        let config = Approvals {
            tools: vec!["payments_*".into()],
            database: database.clone(),
            timeout: Duration::from_secs(10),
            poll_interval: Duration::from_millis(5),
            ..Approvals::default()
        };
        let say_no = matches!(route, Route::GateNo);
        let gate = ApprovalGate::open(&config)
            .unwrap()
            .channel(ScriptedChannel(move |_: &_| {
                Some(if say_no {
                    Answer::deny("bob", "not today")
                } else {
                    Answer::allow_once("alice")
                })
            }));
        let hooks = Hooks::builder()
            .only([
                "hooks_std::approval::gate",
                "hooks_std::audit::gate",
                "hooks_std::audit::denied",
                "hooks_std::audit::completed",
                "guard::quote",
                "guard::own_prompt",
            ])
            .state(gate.policy().clone())
            .state(
                Auditor::from_config(Audit {
                    path: audit.clone(),
                    ..Audit::default()
                })
                .unwrap(),
            )
            .hook(
                Hook::new("guard::quote", |ctx: &mut PreToolUse| -> Decision {
                    Decision::deny(format!("refusing to run with {}", ctx.args()))
                })
                .matches("quoted_*"),
            )
            .hook(
                Hook::new("guard::own_prompt", |ctx: &mut PreToolUse| -> Decision {
                    Decision::ask(format!("Run this?\n{}", ctx.args()))
                })
                .matches("prompted_*"),
            )
            .approver(gate)
            .build()
            .unwrap();
        World {
            hooks,
            files: [audit, database],
        }
    }

    /// Every byte written to the audit log and the approval store (its
    /// write-ahead log and journal included).
    fn written(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        for path in &self.files {
            for suffix in ["", "-wal", "-journal"] {
                if let Ok(content) = std::fs::read(format!("{}{suffix}", path.display())) {
                    bytes.extend(content);
                }
            }
        }
        bytes
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[test]
fn a_generated_secret_never_reaches_the_audit_file_or_the_approval_store() {
    let root = std::env::temp_dir().join(format!("hooks-std-redaction-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cases = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 160,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&case(), |case| {
        // Fresh files per case: a shrunk case is judged on its own writes.
        let dir = root.join(cases.fetch_add(1, Ordering::Relaxed).to_string());
        let world = World::new(&dir, case.route);
        let session = Session::new("property").with_user("dana");
        let run = runtime.block_on(world.hooks.tool(case.tool()).run(
            &session,
            case.args(),
            async |_: &Value| Ok::<_, String>(json!("done")),
        ));
        let expect_ran = matches!(
            case.route,
            Route::Allowed | Route::GateYes | Route::OwnPrompt
        );
        prop_assert_eq!(run.ran(), expect_ran, "{:?}", run.denial());
        let written = world.written();
        prop_assert!(
            contains(&written, "property"),
            "the call was recorded (the check looks at the right files)"
        );
        prop_assert!(
            !contains(&written, &case.body),
            "the secret {:?} was written",
            case.secret()
        );
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
