//! An agent session with hooks at work: a scripted model calls tools through
//! a `Hooks` dispatcher, and every hook's decision is printed as it happens.
//! The example's own guards run next to the standard hooks of `hooks-std`
//! (audit log, read-only guard, truncation, rate limit).
//!
//! Run it with `cargo run -p hooks-examples`. No network, no API key: the
//! model is a script. `cargo run -p hooks-examples -- --interactive` lets you
//! answer the payment approval yourself; `-- --config examples/hooks.toml`
//! adds hooks declared in a file.

mod guards;
mod script;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use hooks_core::ApprovalOutcome;
use hooks_core::prelude::*;
use hooks_std::approval::{Answer, ApprovalGate, Approvals, ScriptedChannel, TerminalChannel};
use hooks_std::audit::{Audit, Auditor};
use hooks_std::rate_limit::{By, RateLimit, RateLimiter, Rule};
use hooks_std::read_only::ReadOnlyGuard;
use hooks_std::redact::Redactor;
use hooks_std::replay;
use hooks_std::truncate::Truncator;

use script::{TOOLS, Turn};

hooks_core::link!(hooks_std);

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let (hooks, audit_log) = match setup() {
        Ok(setup) => setup,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    println!("Hooks linked into this binary:\n\n{}", hooks.describe());

    // Tool handles are built once: each knows which hooks can match its tool.
    let handles: HashMap<&str, ToolHandle> = TOOLS
        .iter()
        .map(|tool| (*tool, hooks.tool(*tool)))
        .collect();
    let session = Session::new("demo-1")
        .with_user("dana")
        .with_metadata("role", "guest");
    println!(
        "Session {} for user {}\n",
        session.id(),
        session.user_id().unwrap_or("?")
    );

    let mut start = SessionStart::new(&session);
    let _ = hooks.dispatch(&mut start).await;
    show(
        "session_start",
        &format!("context for the model: {:?}", start.injected().text()),
    );
    submit_prompts(&hooks, &session).await;
    request_model(&hooks, &session).await;
    run_turns(&hooks, &handles, &session, script::turns()).await;

    // A sub-agent gets the parent's dispatcher; its session says the reporting
    // database is read-only, and the standard read-only guard holds it to that.
    let reporter = session
        .sub_agent("reporter")
        .with_metadata("read_only", true);
    println!(
        "\nSub-agent {} (parent {}), read-only",
        reporter.agent_id(),
        session.agent_id()
    );
    run_turns(&hooks, &handles, &reporter, script::reporter_turns()).await;

    let mut end = SessionEnd::new(&session, "completed");
    let _ = hooks.dispatch(&mut end).await;
    show(
        "session_end",
        &format!("session {} closed", end.session().id()),
    );
    print_audit_log(&audit_log);
    match replay_with_a_stricter_policy(&audit_log).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("replay failed: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Before tightening a policy, ask what it would have done last week: the
/// session's own audit log, replayed through a stricter dispatcher. No tool
/// runs, nothing is recorded, nobody is asked (`replay::prepare`).
async fn replay_with_a_stricter_policy(
    audit_log: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let recording = replay::parse(&std::fs::read_to_string(audit_log)?);
    let stricter = replay::prepare(
        Hooks::builder()
            // The same read-only guard as the session's; the rest is stricter.
            .state(ReadOnlyGuard::default())
            .state(Redactor::default())
            .hook(
                Hook::new("stricter::no_web_search", |_: &mut PreToolUse| {
                    Decision::deny("web search is off for this agent")
                })
                .matches("search"),
            )
            .hook(
                Hook::new("stricter::refunds_up_to_100", |ctx: &mut PreToolUse| {
                    match ctx.args()["amount_usd"].as_u64() {
                        Some(amount) if amount > 100 => {
                            Decision::deny(format!("a ${amount} refund is over the $100 limit"))
                        }
                        _ => Decision::Continue,
                    }
                })
                .matches("payments_refund"),
            ),
    )
    .tools(script::tool_facts())
    .build()?;
    let report = replay::replay(&stricter, &recording).await?;
    println!("\nReplaying that log against a stricter policy (no tool runs):\n\n{report}");
    Ok(())
}

/// The file after `--config`, if given.
fn config_path() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|arg| arg == "--config")
        .and_then(|at| args.get(at + 1).cloned())
}

/// Configures the standard hooks and builds the dispatcher. Every policy is
/// a value this dispatcher owns: another dispatcher in the same process
/// (another tenant, a test) could hold other ones.
fn setup() -> Result<(Hooks, PathBuf), Box<dyn std::error::Error>> {
    let scratch = std::env::temp_dir().join(format!("hooks-agent-session-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let audit_log = scratch.join("audit.jsonl");
    let auditor = Auditor::from_config(Audit {
        path: audit_log.clone(),
        ..Audit::default()
    })?;
    // Payments wait for a person. Run with `--interactive` to answer at this
    // terminal (or from another one: `hooks-approve --db <file> approve <id>`);
    // otherwise a scripted reviewer answers, so a CI run never waits.
    let database = scratch.join("approvals.sqlite3");
    let gate = ApprovalGate::open(&Approvals {
        tools: vec!["payments_*".into()],
        database: database.clone(),
        ..Approvals::default()
    })?;
    let gate = if std::env::args().any(|arg| arg == "--interactive") {
        println!("Approvals are stored in {}\n", database.display());
        gate.channel(TerminalChannel::new(
            std::env::var("USER").unwrap_or_else(|_| "you".into()),
        ))
    } else {
        gate.channel(ScriptedChannel(|_: &_| {
            Some(Answer::allow_once(
                "alice (scripted; pass --interactive to answer)",
            ))
        }))
    };
    // Searches are cheap for us and expensive for the search provider.
    let limiter = RateLimiter::new(RateLimit::new(vec![
        Rule::new(60, Duration::from_secs(60)),
        Rule::new(2, Duration::from_secs(60))
            .tools("search")
            .by([By::User]),
    ]))?;
    // Each standard hook runs because it is given its policy here: linked
    // in, but not asked for, it would not.
    let mut builder = Hooks::builder()
        .state(auditor)
        .state(limiter)
        .state(gate.policy().clone())
        .state(ReadOnlyGuard::default())
        .state(Truncator::default())
        .state(Redactor::default())
        .approver(gate);
    if let Some(path) = config_path() {
        let config = hooks_config::load(&path)?;
        println!("Loaded {} hooks from {path}\n", config.len());
        builder = config.apply(builder)?;
    }
    let hooks = builder
        // The agent's tools and what each does: a hook whose pattern matches
        // none of them fails here, and guards decide from their facts.
        .tools(script::tool_facts())
        .require([
            "agent_session::guards::careful_sql",
            "hooks_std::read_only::guard",
            "hooks_std::audit::completed",
            "hooks_std::approval::gate",
        ])
        .build()?;
    Ok((hooks, audit_log))
}

async fn submit_prompts(hooks: &Hooks, session: &Session) {
    for prompt in [
        "Here is my key sk-live-51Hx9, archive order 42",
        "Archive order 42 and refund it",
    ] {
        let mut submitted = UserPromptSubmit::new(session, prompt);
        match hooks.dispatch(&mut submitted).await.denial() {
            Some(denial) => show(
                "prompt",
                &format!(
                    "{prompt:?}\n{:18}BLOCKED by {}: {}",
                    "",
                    denial.hook(),
                    denial.reason()
                ),
            ),
            None => show("prompt", &format!("{prompt:?} accepted")),
        }
    }
}

async fn request_model(hooks: &Hooks, session: &Session) {
    let mut request = PreModelRequest::new(session, TOOLS, json!({"model": "scripted"}));
    let _ = hooks.dispatch(&mut request).await;
    let offered: Vec<&str> = request.tools().collect();
    show(
        "model request",
        &format!("tools offered: {}", offered.join(", ")),
    );
    for rewrite in request.rewrites() {
        show(
            "model request",
            &format!(
                "({} changed the {}; guards still check every call)",
                rewrite.hook, rewrite.field
            ),
        );
    }
}

/// Plays the scripted model: tool calls go through their handles, and a
/// final message goes through the stop hooks, which may keep the agent going.
async fn run_turns(
    hooks: &Hooks,
    handles: &HashMap<&str, ToolHandle>,
    session: &Session,
    turns: Vec<Turn>,
) {
    let mut stop_hook_active = false;
    for turn in turns {
        match turn {
            Turn::Call { tool, args } => {
                println!("\n  model calls {tool} {args}");
                let run = handles[tool]
                    .run(session, args, async |args: &Value| {
                        script::run_tool(tool, args).await
                    })
                    .await;
                report(&run);
            }
            Turn::Say(message) => {
                println!("\n  model says {message:?}");
                let mut reply = PostModelResponse::new(session, message);
                if let Some(denial) = hooks.dispatch(&mut reply).await.denial() {
                    show(
                        "model reply",
                        &format!("DISCARDED by {}: {}", denial.hook(), denial.reason()),
                    );
                    continue;
                }
                for rewrite in reply.rewrites() {
                    show(
                        "model reply",
                        &format!(
                            "{} rewrote the {}: {:?}",
                            rewrite.hook,
                            rewrite.field,
                            reply.text()
                        ),
                    );
                }
                let mut stop = Stop::new(session)
                    .with_last_message(reply.text())
                    .with_stop_hook_active(stop_hook_active);
                match hooks.dispatch(&mut stop).await.denial() {
                    Some(denial) => {
                        show(
                            "stop",
                            &format!("KEEP GOING, says {}: {}", denial.hook(), denial.reason()),
                        );
                        stop_hook_active = true;
                    }
                    None => {
                        show("stop", "the agent may stop");
                        return;
                    }
                }
            }
        }
    }
}

/// Prints what the hooks did to one tool call.
fn report(run: &ToolRun) {
    let pre = run.pre();
    if !pre.injected().is_empty() {
        show(
            "pre_tool_use",
            &format!("context for the model: {:?}", pre.injected().text()),
        );
    }
    for rewrite in pre.rewrites() {
        show(
            "pre_tool_use",
            &format!(
                "{} rewrote the {} -> {}",
                rewrite.hook,
                rewrite.field,
                pre.args()
            ),
        );
    }
    for approval in pre.approvals() {
        let answer = match &approval.outcome {
            ApprovalOutcome::Answered(answer) if answer.is_approved() => {
                format!("approved by {}", answer.responder().unwrap_or("someone"))
            }
            other => format!("not approved ({other:?})"),
        };
        show(
            "pre_tool_use",
            &format!("{} asked {:?}: {answer}", approval.hook, approval.prompt),
        );
    }
    let outcome = run.outcome();
    for shadowed in outcome.shadowed() {
        show(
            "shadow",
            &format!(
                "{} would have: {:?} (not enforced)",
                shadowed.hook, shadowed.would
            ),
        );
    }
    for warning in outcome.warnings() {
        show("warning", &warning.text);
    }
    for message in outcome.messages() {
        show(
            "to the user",
            &format!("[{:?}] {}", message.level, message.text),
        );
    }
    if let Some(denial) = run.denial() {
        show(
            "pre_tool_use",
            &format!(
                "DENIED by {} ({}): {}",
                denial.hook(),
                denial.cause().kind(),
                denial.reason()
            ),
        );
        return;
    }
    if let Some(post) = run.post() {
        for rewrite in post.rewrites() {
            show(
                "post_tool_use",
                &format!("{} rewrote the {}", rewrite.hook, rewrite.field),
            );
        }
        match post.result() {
            Ok(result) => show(
                "tool",
                &format!("ran; the model sees {}", abbreviate(result)),
            ),
            Err(error) => show("tool", &format!("failed; the model sees {error:?}")),
        }
    }
}

/// Long results print as their size and the truncation marker, not in full.
fn abbreviate(result: &Value) -> String {
    match result.as_str() {
        Some(text) if text.len() > 200 => {
            let marker = text
                .lines()
                .find(|line| line.contains("characters cut"))
                .unwrap_or("");
            format!(
                "{} characters of text, with the marker {marker:?}",
                text.chars().count()
            )
        }
        _ => result.to_string(),
    }
}

fn print_audit_log(path: &PathBuf) {
    println!(
        "\nAudit log {} (one record per tool call):\n",
        path.display()
    );
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for line in text.lines() {
        let Ok(record) = line.parse::<Value>() else {
            continue;
        };
        let by = record["decided_by"]
            .as_str()
            .map(|hook| format!(" by {hook}"))
            .or_else(|| {
                let approver = record["approvals"][0]["outcome"]["by"].as_str()?;
                Some(format!(" (approved by {approver})"))
            })
            .unwrap_or_default();
        let who = format!(
            "{}/{}",
            record["user"].as_str().unwrap_or("-"),
            record["agent"].as_str().unwrap_or("-")
        );
        println!(
            "  {:<15} {:<14} {:<8}{by}",
            record["tool"].as_str().unwrap_or("?"),
            who,
            record["decision"].as_str().unwrap_or("?"),
        );
    }
    let leaked = text.contains("sk-live-");
    println!(
        "\n  the search call's api_key is in the file as {}",
        if leaked {
            "PLAIN TEXT (redaction failed)"
        } else {
            "\"[redacted]\""
        }
    );
}

fn show(event: &str, what: &str) {
    println!("  [{event:>13}] {what}");
}
