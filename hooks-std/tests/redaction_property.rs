//! Two properties.
//!
//! A secret, in any of the shapes secrets take and in any place a call can
//! carry it, never reaches the audit file or the approval store. Each case
//! generates a secret (a random body wrapped in one of the shapes below),
//! puts it somewhere (an argument, deep in nested arguments, inside a
//! sentence, in a string that holds JSON, under a sensitive key), and makes
//! a call that is allowed, denied by a guard quoting its arguments, or asked
//! about (by the standard gate, or by a hook writing its own prompt). Then
//! the raw bytes of the audit log and of the SQLite store (its WAL included)
//! must not contain the body.
//!
//! A secret the dispatcher knows (`Redactor::with_secret`), with no shape
//! around it, in any of its encodings (as it is, base64 standard or
//! URL-safe at any alignment, hex, percent-encoded) and in any place (an
//! argument, an object key deep in the arguments, an argv array, the
//! session's metadata, the tool's result, the tool's error), on any route
//! (allowed, denied by a reason quoting it, asked about, a guard failing
//! with an error quoting it), reaches neither those files nor what the model
//! reads (the result, the tool's error, the denial's reason).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::approval::{Answer, ApprovalGate, Approvals, ScriptedChannel};
use hooks_std::audit::{Audit, Auditor};
use hooks_std::redact::Redactor;
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
    "PGPASSWORD={} psql -h db",
    "curl -u deploy:{} https://api.example.com",
    "curl -b 'theme=dark; sid={}' https://x",
    "Cookie: theme=dark; sid={}",
    "DefaultEndpointsProtocol=https;AccountName=a;AccountKey={};EndpointSuffix=core.windows.net",
    "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sig={}&se=2030-01-01",
    "machine api.example.com login deploy password {}",
    "https://hooks.slack.com/services/T0A1/B0B2/{}",
    "https://api.telegram.org/bot123456:{}/sendMessage",
    "openssl rsa -in k.pem -passin pass:{} -out k2.pem",
    "docker login -u deploy -p {} registry.example.com",
    "aws configure set aws_session_token {}",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAA{}\nPrivate-MAC: 9c2e",
    "Error: 401 Unauthorized: invalid api key {} (check it)",
];

/// Argv arrays whose `{}` element (or part of one) is the secret.
const ARGV: &[&[&str]] = &[
    &["mysql", "--password", "{}", "shop"],
    &["sshpass", "-p", "{}", "ssh", "deploy@h"],
    &["curl", "-u", "deploy:{}", "https://x"],
    &["curl", "-b", "sid={}", "https://x"],
    &["docker", "login", "-p", "{}", "registry.example.com"],
    &["openssl", "rsa", "-passin", "pass:{}"],
    &["aws", "configure", "set", "aws_secret_access_key", "{}"],
];

/// Name/value pairs whose `{}` value is the secret.
const PAIRS: &[&str] = &[
    r#"{"name": "DB_PASSWORD", "value": "{}"}"#,
    r#"{"env_name": "API_TOKEN", "env_value": "{}"}"#,
    r#"{"Name": "/prod/db/password", "Value": "{}", "Type": "SecureString"}"#,
    r#"{"key": "X-Api-Key", "value": "{}"}"#,
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
    /// An argv array (the shape is one of [`ARGV`]).
    Argv(&'static [&'static str]),
    /// A name/value pair (the shape is one of [`PAIRS`]).
    Pair(&'static str),
    /// In the tool's error message (the call must run for it to be there).
    ToolError,
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
    /// A guard fails with an error quoting the arguments (and the call is denied).
    HookError,
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
            Place::Argv(argv) => json!({"argv": argv
                .iter()
                .map(|word| word.replace("{}", &self.body))
                .collect::<Vec<_>>()}),
            Place::Pair(pair) => json!({"env": [
                serde_json::from_str::<Value>(&pair.replace("{}", &self.body)).unwrap()
            ]}),
            Place::ToolError => json!({"n": 1}),
        }
    }

    fn tool(&self) -> &'static str {
        match self.route {
            Route::Allowed => "search",
            Route::Quoted => "quoted_exec",
            Route::GateYes | Route::GateNo => "payments_send",
            Route::OwnPrompt => "prompted_exec",
            Route::HookError => "failing_exec",
        }
    }
}

impl Route {
    const ALL: [Route; 6] = [
        Route::Allowed,
        Route::Quoted,
        Route::GateYes,
        Route::GateNo,
        Route::OwnPrompt,
        Route::HookError,
    ];

    fn runs(self) -> bool {
        matches!(self, Route::Allowed | Route::GateYes | Route::OwnPrompt)
    }
}

fn case() -> impl Strategy<Value = Case> {
    // Bodies long and random enough that finding one is never a coincidence.
    // With a digit: a credential after a word like `api key` is told by one.
    let body = "[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{16,28}";
    let words = "[a-z]{1,8}( [a-z]{1,8}){0,3}";
    let place = prop_oneof![
        Just(Place::Argument),
        (words, words).prop_map(|(before, after)| Place::Sentence(before, after)),
        (1usize..6).prop_map(Place::Nested),
        Just(Place::JsonInString),
        proptest::sample::select(SENSITIVE_KEYS).prop_map(Place::SensitiveKey),
        proptest::sample::select(ARGV).prop_map(Place::Argv),
        proptest::sample::select(PAIRS).prop_map(Place::Pair),
        Just(Place::ToolError),
    ];
    let route = proptest::sample::select(&Route::ALL[..]);
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
    fn new(dir: &Path, route: Route, redactor: Redactor) -> World {
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
                "hooks_std::audit::failed",
                "guard::quote",
                "guard::own_prompt",
                "guard::fails",
                "hooks_std::redact::scrub",
                "hooks_std::redact::scrub_error",
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
            .hook(
                Hook::new(
                    "guard::fails",
                    |ctx: &mut PreToolUse| -> Result<(), String> {
                        Err(format!("cannot check {}", ctx.args()))
                    },
                )
                .matches("failing_*"),
            )
            .redactor(redactor)
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
        let world = World::new(&dir, case.route, Redactor::default());
        let session = Session::new("property").with_user("dana");
        let error = matches!(case.place, Place::ToolError)
            .then(|| format!("the tool failed: {}", case.secret()));
        let run = runtime.block_on(world.hooks.tool(case.tool()).run(
            &session,
            case.args(),
            async |_: &Value| match &error {
                Some(error) => Err(error.clone()),
                None => Ok(json!("done")),
            },
        ));
        prop_assert_eq!(run.ran(), case.route.runs(), "{:?}", run.denial());
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

/// How a known secret is written.
#[derive(Debug, Clone)]
enum Encoding {
    /// As it is.
    Plain,
    /// Base64 of `prefix + secret + suffix`: the prefix's length sets the
    /// secret's alignment.
    Base64 {
        url: bool,
        pad: bool,
        prefix: String,
        suffix: String,
    },
    /// Hex, lower or upper case.
    Hex { upper: bool },
    /// Every byte percent-encoded, or only those outside `A-Za-z0-9-._~`.
    Percent { every_byte: bool },
}

impl Encoding {
    fn apply(&self, secret: &str) -> String {
        match self {
            Encoding::Plain => secret.to_owned(),
            Encoding::Base64 {
                url,
                pad,
                prefix,
                suffix,
            } => base64(format!("{prefix}{secret}{suffix}").as_bytes(), *url, *pad),
            Encoding::Hex { upper } => {
                let hex = secret.bytes().fold(String::new(), |mut hex, b| {
                    let _ = write!(hex, "{b:02x}");
                    hex
                });
                if *upper { hex.to_uppercase() } else { hex }
            }
            Encoding::Percent { every_byte } => secret
                .bytes()
                .map(|b| {
                    if !every_byte && (b.is_ascii_alphanumeric() || b"-._~".contains(&b)) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect::<String>(),
        }
    }
}

/// A base64 encoder of the test's own.
fn base64(input: &[u8], url: bool, pad: bool) -> String {
    let alphabet: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let bytes = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]);
        for index in 0..=chunk.len() {
            out.push(alphabet[(n >> (18 - 6 * index)) as usize & 63] as char);
        }
        if pad {
            out.extend(std::iter::repeat_n('=', 3 - chunk.len()));
        }
    }
    out
}

/// Where the known secret goes.
#[derive(Debug, Clone, Copy)]
enum Spot {
    /// An argument's value.
    Argument,
    /// An object key, deep in the arguments.
    Key,
    /// An element of an argv array.
    Argv,
    /// The session's metadata.
    Metadata,
    /// The tool's result.
    Result,
    /// The tool's error.
    ToolError,
}

#[derive(Debug, Clone)]
struct KnownCase {
    secret: String,
    encoding: Encoding,
    spot: Spot,
    route: Route,
}

impl KnownCase {
    fn written(&self) -> String {
        self.encoding.apply(&self.secret)
    }

    fn args(&self) -> Value {
        let written = self.written();
        match self.spot {
            Spot::Argument => json!({"note": format!("see {written} here"), "n": 1}),
            Spot::Key => json!({"payload": [1, {"index": {written: "x"}}]}),
            Spot::Argv => json!({"argv": ["deploy", "--to", "prod", written]}),
            Spot::Metadata | Spot::Result | Spot::ToolError => json!({"n": 1}),
        }
    }

    fn session(&self) -> Session {
        let session = Session::new("property").with_user("dana");
        match self.spot {
            Spot::Metadata => session.with_metadata("deploy_note", self.written()),
            _ => session,
        }
    }
}

fn known_case() -> impl Strategy<Value = KnownCase> {
    // Letters, digits and the punctuation URLs and shells care about.
    let secret = "[A-Za-z0-9]{4}[A-Za-z0-9/+&=:@!%._~-]{8,20}";
    let affix = "[a-z:]{0,5}";
    let encoding = prop_oneof![
        Just(Encoding::Plain),
        (any::<bool>(), any::<bool>(), affix, affix).prop_map(|(url, pad, prefix, suffix)| {
            Encoding::Base64 {
                url,
                pad,
                prefix,
                suffix,
            }
        }),
        any::<bool>().prop_map(|upper| Encoding::Hex { upper }),
        any::<bool>().prop_map(|every_byte| Encoding::Percent { every_byte }),
    ];
    let spot = proptest::sample::select(
        &[
            Spot::Argument,
            Spot::Key,
            Spot::Argv,
            Spot::Metadata,
            Spot::Result,
            Spot::ToolError,
        ][..],
    );
    let route = proptest::sample::select(&Route::ALL[..]);
    (secret, encoding, spot, route).prop_map(|(secret, encoding, spot, route)| KnownCase {
        secret,
        encoding,
        spot,
        route,
    })
}

#[test]
fn a_known_secret_in_any_encoding_and_place_reaches_neither_the_records_nor_the_model() {
    let root = std::env::temp_dir().join(format!("hooks-std-known-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cases = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 192,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&known_case(), |case| {
        let dir = root.join(cases.fetch_add(1, Ordering::Relaxed).to_string());
        let redactor = Redactor::default()
            .with_secret(case.secret.clone())
            .unwrap();
        let world = World::new(&dir, case.route, redactor);
        let tool = Case {
            body: String::new(),
            shape: "",
            place: Place::Argument,
            route: case.route,
        }
        .tool();
        let written = case.written();
        let run = runtime.block_on(world.hooks.tool(tool).run(
            &case.session(),
            case.args(),
            async |_: &Value| match case.spot {
                Spot::Result => Ok(json!({"out": format!("connected with {written}")})),
                Spot::ToolError => Err(format!("login failed for {written}")),
                _ => Ok(json!("done")),
            },
        ));
        prop_assert_eq!(run.ran(), case.route.runs(), "{:?}", run.denial());
        let model_reads = match run.result() {
            Ok(value) => value.to_string(),
            Err(message) => message.to_owned(),
        };
        let files = world.written();
        prop_assert!(
            contains(&files, "property"),
            "the call was recorded (the check looks at the right files)"
        );
        for needle in [&case.secret, &written] {
            prop_assert!(
                !contains(&files, needle),
                "{needle:?} was written: {}",
                String::from_utf8_lossy(&files)
            );
            prop_assert!(
                !model_reads.contains(needle.as_str()),
                "the model reads {needle:?}: {model_reads}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
