//! The binary told which host version it answers (`--host-version`): it
//! sends only the fields that version reads, and refuses what it cannot say
//! to it — never a field the host would ignore while the call goes on as
//! it was.

use hooks_claude::{Answer, Host, HostVersion, Responder, RewriteDecision};
use hooks_core::HooksBuilder;
use hooks_core::prelude::*;
use serde_json::Map;

fn no_hooks() -> HooksBuilder {
    Hooks::builder().without_linked()
}

fn version(text: &str) -> HostVersion {
    text.parse().expect("a version")
}

/// A hook taking a key out of every tool's output.
fn redact() -> HooksBuilder {
    no_hooks().hook(Hook::new("redact", |ctx: &mut PostToolUse| {
        let redacted = match ctx.result() {
            Ok(value) => {
                let text = value.to_string();
                if !text.contains("sk-live-123") {
                    return;
                }
                serde_json::from_str(&text.replace("sk-live-123", "[redacted]")).unwrap()
            }
            Err(_) => return,
        };
        *ctx.result_mut() = Ok(redacted);
    }))
}

/// A hook making every force-push a safer one.
fn rewrite() -> HooksBuilder {
    no_hooks().hook(Hook::new("no_force", |ctx: &mut PreToolUse| {
        let command = ctx.args()["command"].as_str().unwrap_or_default();
        let safer = command.replace("--force", "--force-with-lease");
        ctx.args_mut()["command"] = json!(safer);
    }))
}

fn post_tool_use(tool: &str, response: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w",
        "permission_mode": "default", "hook_event_name": "PostToolUse",
        "tool_name": tool, "tool_input": {}, "tool_response": response,
        "tool_use_id": "toolu_1"
    }))
    .unwrap()
}

const PUSH: &[u8] = br#"{"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w",
    "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "git push --force origin main"}, "tool_use_id": "toolu_1"}"#;

async fn answer(builder: HooksBuilder, version: Option<&str>, input: &[u8]) -> Answer {
    let mut responder = Responder::new(builder, Host::Claude).expect("the hooks build");
    if let Some(text) = version {
        responder = responder.host_version(self::version(text));
    }
    responder.answer(input).await
}

fn specific(answer: &Answer) -> Map<String, Value> {
    assert_eq!(answer.code(), 0, "stderr: {}", answer.stderr());
    let json = answer.json_value().expect("JSON on stdout");
    match json.get("hookSpecificOutput") {
        Some(Value::Object(specific)) => specific.clone(),
        _ => panic!("no hookSpecificOutput in {json}"),
    }
}

fn keys(map: &Map<String, Value>) -> Vec<&str> {
    let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

#[tokio::test]
async fn a_built_in_tools_output_is_replaced_only_where_the_host_reads_it() {
    let bash = post_tool_use(
        "Bash",
        &json!({"stdout": "token sk-live-123", "stderr": ""}),
    );
    let replaced = json!({"stdout": "token [redacted]", "stderr": ""});
    // 2.1.121 reads `updatedToolOutput` for every tool; so does a host whose
    // version is not given (the newest protocol is assumed).
    for version in [Some("2.1.121"), Some("2.2.0"), None] {
        let out = specific(&answer(redact(), version, &bash).await);
        assert_eq!(
            keys(&out),
            ["hookEventName", "updatedToolOutput"],
            "{version:?}"
        );
        assert_eq!(out["updatedToolOutput"], replaced, "{version:?}");
    }
    // 2.1.120 replaces only MCP tools' output: the key would reach the
    // model. Refused, with the replacement as the reason it reads instead.
    let old = answer(redact(), Some("2.1.120"), &bash).await;
    assert_eq!(old.code(), hooks_claude::BLOCK, "{}", old.stdout());
    assert!(
        old.stderr().contains("token [redacted]"),
        "{}",
        old.stderr()
    );
    assert!(!old.stderr().contains("sk-live-123"), "{}", old.stderr());
    assert!(old.stderr().contains("2.1.121"), "{}", old.stderr());
}

#[tokio::test]
async fn an_mcp_tools_output_is_replaced_in_the_field_its_host_reads() {
    let mcp = post_tool_use(
        "mcp__files__read",
        &json!([{"type": "text", "text": "sk-live-123"}]),
    );
    let replaced = json!([{"type": "text", "text": "[redacted]"}]);
    let old = specific(&answer(redact(), Some("2.1.120"), &mcp).await);
    assert_eq!(keys(&old), ["hookEventName", "updatedMCPToolOutput"]);
    assert_eq!(old["updatedMCPToolOutput"], replaced);
    let new = specific(&answer(redact(), Some("2.1.121"), &mcp).await);
    assert_eq!(keys(&new), ["hookEventName", "updatedToolOutput"]);
    assert_eq!(new["updatedToolOutput"], replaced);
    // Not told: both, so whichever the host reads is replaced.
    let unknown = specific(&answer(redact(), None, &mcp).await);
    assert_eq!(
        keys(&unknown),
        ["hookEventName", "updatedMCPToolOutput", "updatedToolOutput"]
    );
    assert_eq!(unknown["updatedMCPToolOutput"], replaced);
    assert_eq!(unknown["updatedToolOutput"], replaced);
}

async fn answer_as(
    host: Host,
    builder: HooksBuilder,
    version: Option<&str>,
    rewrites: RewriteDecision,
    input: &[u8],
) -> Answer {
    let mut responder = Responder::new(builder, host)
        .expect("the hooks build")
        .rewrites(rewrites);
    if let Some(text) = version {
        responder = responder.host_version(self::version(text));
    }
    responder.answer(input).await
}

const SAFER: &str = "git push --force-with-lease origin main";

#[tokio::test]
async fn a_rewritten_call_is_refused_where_the_host_cannot_take_it() {
    use RewriteDecision::{Allow, Ask};
    // Claude Code applies `updatedInput` with `ask` from 2.1.0 ("Fixed
    // PreToolUse hooks to allow updatedInput when returning ask"): before,
    // the person was shown the call and the original ran.
    for (rewrites, version, decision) in [
        (Ask, Some("2.1.0"), "ask"),
        (Ask, None, "ask"),
        // An `allow` skipped the person's deny rules before 2.1.77 ("Fixed
        // PreToolUse hooks returning allow bypassing deny permission
        // rules"): the rewrite is shown to the person there instead.
        (Allow, Some("2.1.76"), "ask"),
        (Allow, Some("2.1.77"), "allow"),
        (Allow, None, "allow"),
    ] {
        let answer = answer_as(Host::Claude, rewrite(), version, rewrites, PUSH).await;
        let out = specific(&answer);
        assert_eq!(
            (&out["permissionDecision"], &out["updatedInput"]),
            (&json!(decision), &json!({"command": SAFER})),
            "{rewrites:?} {version:?}"
        );
    }
    for (rewrites, version) in [(Ask, "2.0.99"), (Allow, "2.0.10"), (Ask, "2.0.9")] {
        let old = answer_as(Host::Claude, rewrite(), Some(version), rewrites, PUSH).await;
        assert_eq!(
            old.code(),
            hooks_claude::BLOCK,
            "{version}: {}",
            old.stdout()
        );
        assert!(old.stderr().contains("no_force"), "{}", old.stderr());
        assert!(old.stderr().contains("2.1.0"), "{}", old.stderr());
    }
    // Codex: a rewrite goes with `allow`; releases before it took
    // `updatedInput` throw the answer out whole ("unsupported updatedInput"
    // in 0.130.0), and the force-push would run.
    let codex = answer_as(Host::Codex, rewrite(), Some("0.144.0"), Ask, PUSH).await;
    let out = specific(&codex);
    assert_eq!(
        (&out["permissionDecision"], &out["updatedInput"]),
        (&json!("allow"), &json!({"command": SAFER}))
    );
    let old = answer_as(Host::Codex, rewrite(), Some("0.130.0"), Ask, PUSH).await;
    assert_eq!(old.code(), hooks_claude::BLOCK, "{}", old.stdout());
    assert!(old.stderr().contains("0.144.0"), "{}", old.stderr());
}

#[tokio::test]
async fn an_ask_is_refused_where_the_host_cannot_ask_from_a_hook() {
    let confirm = || {
        no_hooks().hook(Hook::new("confirm", |_: &mut PreToolUse| {
            Decision::ask("push to main?")
        }))
    };
    let new = answer_as(
        Host::Claude,
        confirm(),
        Some("1.0.59"),
        RewriteDecision::Ask,
        PUSH,
    )
    .await;
    assert_eq!(specific(&new)["permissionDecision"], json!("ask"));
    // Before 1.0.59 a hook could not say `ask`: the call would run unasked.
    let old = answer_as(
        Host::Claude,
        confirm(),
        Some("1.0.58"),
        RewriteDecision::Ask,
        PUSH,
    )
    .await;
    assert_eq!(old.code(), hooks_claude::BLOCK, "{}", old.stdout());
    assert!(old.stderr().contains("push to main?"), "{}", old.stderr());
    assert!(old.stderr().contains("1.0.59"), "{}", old.stderr());
}

#[tokio::test]
async fn codex_is_sent_pre_tool_context_only_where_it_takes_it() {
    let hint = || {
        no_hooks().hook(Hook::new("hint", |ctx: &mut PreToolUse| {
            ctx.inject("pushes to main need a review");
        }))
    };
    let new = answer_as(Host::Codex, hint(), None, RewriteDecision::Ask, PUSH).await;
    assert_eq!(
        specific(&new)["additionalContext"],
        json!("pushes to main need a review")
    );
    // 0.124.0 threw out a PreToolUse answer with `additionalContext`
    // ("unsupported additionalContext", openai/codex#19385).
    let old = answer_as(
        Host::Codex,
        hint(),
        Some("0.124.0"),
        RewriteDecision::Ask,
        PUSH,
    )
    .await;
    assert_eq!((old.code(), old.stdout()), (0, ""));
}

#[test]
fn versions_read_as_the_hosts_print_them() {
    assert_eq!(
        version("2.1.121 (Claude Code)"),
        HostVersion::new(2, 1, 121)
    );
    assert_eq!(version("codex-cli 0.52.0"), HostVersion::new(0, 52, 0));
    assert_eq!(version("2.1.121-beta.1"), HostVersion::new(2, 1, 121));
    assert!(version("2.1.9") < version("2.1.10"));
    for bad in ["", "2", "2.1", "2.1.x", "2.1.1.1", "latest", "2..1"] {
        let error = bad.parse::<HostVersion>().unwrap_err();
        assert!(error.contains("like `2.1.121`"), "{bad:?}: {error}");
    }
}

/// Claude Code drops a replacement whose shape is not the tool's own (a
/// string for Bash's `{stdout, stderr, ...}`: "expected object, received
/// string" in its debug log, anthropics/claude-code#68951) and hands the
/// model the original. So a replacement of another JSON kind is refused,
/// with the replacement as the reason.
#[tokio::test]
async fn a_replacement_of_another_shape_than_the_tools_is_refused() {
    let to_text = || {
        no_hooks().hook(Hook::new("summarise", |ctx: &mut PostToolUse| {
            if let Ok(Value::Object(_)) = ctx.result() {
                *ctx.result_mut() = Ok(json!("a summary without the token"));
            }
        }))
    };
    let bash = post_tool_use("Bash", &json!({"stdout": "sk-live-123", "stderr": ""}));
    for version in [None, Some("2.1.121")] {
        let answer = answer(to_text(), version, &bash).await;
        assert_eq!(answer.code(), hooks_claude::BLOCK, "{}", answer.stdout());
        assert!(
            answer.stderr().contains("a summary without the token"),
            "{}",
            answer.stderr()
        );
        assert!(!answer.stderr().contains("sk-live-123"));
    }
    // The same kind goes back as the replacement.
    let out = specific(&answer(redact(), None, &bash).await);
    assert_eq!(
        out["updatedToolOutput"],
        json!({"stdout": "[redacted]", "stderr": ""})
    );
}
