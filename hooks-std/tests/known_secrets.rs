//! Secrets the dispatcher knows, end to end: read from the environment and
//! from files, taken out of tool results and errors before the model reads
//! them (and before truncation could cut one in two), and left alone when
//! the dispatcher knows none.

use std::fmt::Write as _;

use hooks_core::ToolError;
use hooks_core::prelude::*;
use hooks_std::redact::Redactor;
use hooks_std::truncate::{Truncate, Truncator};

hooks_core::link!(hooks_std);

const SECRET: &str = "pg-Zx81-4fQ-secret";

fn dispatcher(redactor: Redactor) -> Hooks {
    Hooks::builder()
        .only([
            "hooks_std::redact::scrub",
            "hooks_std::redact::scrub_error",
            "hooks_std::truncate::cut",
        ])
        .state(
            Truncator::new(Truncate {
                max_chars: 200,
                ..Truncate::default()
            })
            .unwrap(),
        )
        .redactor(redactor)
        .build()
        .unwrap()
}

async fn result_of(hooks: &Hooks, result: Value) -> ToolRun {
    hooks
        .tool("fetch")
        .run(&Session::new("s"), json!({}), async |_: &Value| {
            Ok::<_, String>(result)
        })
        .await
}

#[tokio::test]
async fn a_result_reaches_the_model_scrubbed_even_where_truncation_cuts() {
    let hooks = dispatcher(Redactor::default().with_secret(SECRET).unwrap());
    // The secret straddles the cut (the head keeps some 40 characters of
    // the string): scrubbed after the cut, its first half would pass.
    let long = format!("{}{SECRET}{}", "a".repeat(30), "b".repeat(400));
    let run = result_of(&hooks, json!({"log": long, SECRET: "as a key"})).await;
    let read = run.result().unwrap().to_string();
    assert!(!read.contains("pg-Zx81"), "{read}");
    assert!(read.contains("[redacted]"), "{read}");
    let rewrites: Vec<_> = run
        .post()
        .unwrap()
        .rewrites()
        .iter()
        .map(|r| r.hook.to_string())
        .collect();
    assert_eq!(
        rewrites,
        ["hooks_std::redact::scrub", "hooks_std::truncate::cut"]
    );
}

#[tokio::test]
async fn a_tool_error_and_its_structured_data_are_scrubbed() {
    let hooks = dispatcher(Redactor::default().with_secret(SECRET).unwrap());
    let pre = PreToolUse::new(&Session::new("s"), "fetch", json!({}));
    let run = hooks
        .tool("fetch")
        .run_call(pre, async |_: &Value| {
            Err(ToolError::new(format!("auth failed for {SECRET}")).with_data(
                json!({"content": [{"type": "text", "text": format!("token {SECRET}")}], "isError": true}),
            ))
        })
        .await;
    assert_eq!(run.result(), Err("auth failed for [redacted]"));
    let data = run.failure().unwrap().error().data().unwrap().to_string();
    assert!(
        !data.contains(SECRET) && data.contains("token [redacted]"),
        "{data}"
    );
}

#[tokio::test]
async fn without_known_secrets_a_result_is_not_touched() {
    let hooks = dispatcher(Redactor::default());
    let result = json!({"config": "password=hunter2 token=abc"});
    let run = result_of(&hooks, result.clone()).await;
    assert_eq!(run.result(), Ok(&result));
    assert!(run.post().unwrap().rewrites().is_empty());
}

#[tokio::test]
async fn secrets_come_from_the_environment_and_from_files() {
    // Any variable that is set will do; PATH always is where tests run.
    let path = std::env::var("PATH").unwrap();
    let dir = std::env::temp_dir().join(format!("hooks-known-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("api_key");
    std::fs::write(&file, "  sk-file-Secret-9981\n").unwrap();
    let redactor = Redactor::default()
        .with_secret_env("PATH")
        .unwrap()
        .with_secret_file(&file)
        .unwrap();
    assert_eq!(redactor.known_secrets(), 2);
    let hooks = dispatcher(redactor);
    let hex = "sk-file-Secret-9981"
        .bytes()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02X}");
            hex
        });
    let run = result_of(
        &hooks,
        json!([format!("PATH={path}"), format!("key {hex}")]),
    )
    .await;
    assert_eq!(
        run.result().unwrap(),
        &json!(["PATH=[redacted]", "key [redacted]"])
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let missing = Redactor::default()
        .with_secret_file(dir.join("gone"))
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("cannot read the secret file"),
        "{missing}"
    );
}
