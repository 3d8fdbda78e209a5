//! One event in, one answer out: parse, dispatch under a deadline, answer
//! in the host's protocol. Everything that goes wrong blocks.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{Hooks, Outcome, Session, Value, json};

use crate::answer::{Answer, PreToolAnswer, Reply, refuse};
use crate::asks::Asked;
use crate::host::{Host, RewriteDecision};
use crate::input::{self, Incoming, kind};
use crate::stops::{Run, StopCounts};
use crate::version::{HostVersion, claude};

/// A built dispatcher answering events for one host.
///
/// ```
/// # async fn demo() {
/// use hooks_claude::{Host, Responder};
/// use hooks_core::prelude::*;
///
/// let responder = Responder::new(Hooks::builder().without_linked(), Host::Claude).unwrap();
/// let answer = responder
///     .answer(br#"{"session_id": "s", "hook_event_name": "PreToolUse",
///                 "tool_name": "Bash", "tool_input": {"command": "ls"}}"#)
///     .await;
/// assert_eq!((answer.code(), answer.stdout()), (0, ""));
/// # }
/// ```
pub struct Responder {
    hooks: Hooks,
    host: Host,
    rewrites: RewriteDecision,
    timeout: Duration,
    user: Option<String>,
    asked: Arc<Asked>,
    stops: Option<StopCounts>,
    version: Option<HostVersion>,
}

/// How long the hooks may take, unless told: below Claude Code's and
/// Codex's own 60-second default, so the binary answers (and blocks) before
/// the host gives up on it and lets the call through.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(55);

impl Responder {
    /// Builds `builder` for `host`: a hook's `Ask` goes to the host's own
    /// dialog where it has one, else to the builder's approver (if any); the
    /// tool catalog knows the host's own tools ([`Host::tools`]).
    pub fn new(builder: hooks_core::HooksBuilder, host: Host) -> Result<Self, String> {
        let asked = Arc::new(Asked::default());
        let shared = Arc::clone(&asked);
        let hooks = builder
            .tool_facts(host.tools())
            .wrap_approver(move |fallback| crate::asks::HostAsks {
                host,
                asked: shared,
                fallback,
            })
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Responder {
            hooks,
            host,
            rewrites: RewriteDecision::default(),
            timeout: DEFAULT_TIMEOUT,
            user: None,
            asked,
            stops: None,
            version: None,
        })
    }

    /// What a rewritten call is sent with on Claude Code (default `ask`).
    #[must_use]
    pub fn rewrites(mut self, decision: RewriteDecision) -> Self {
        self.rewrites = decision;
        self
    }

    /// The host's version: the answer uses only the fields it reads, and
    /// refuses what it could not say to it (see the crate's compatibility
    /// table). Without it, the host is taken to read every field this
    /// binary knows (Claude Code 2.1.121 and later).
    #[must_use]
    pub fn host_version(mut self, version: HostVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// How long the hooks may take before the event is blocked.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Who runs the agent (the OS user): the session's user id.
    #[must_use]
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.user = Some(user.into());
        self
    }

    /// Keeps the run of refused stops in `dir` (under `stops/`), so the
    /// dispatcher's [`stop_denial_cap`](hooks_core::HooksBuilder::stop_denial_cap)
    /// holds across processes: each event is a process of its own, and a
    /// `stop` hook that always refuses would otherwise keep the agent going
    /// for ever. [`HookBinary`](crate::HookBinary) always gives one.
    ///
    /// Without it (or when it cannot be used: a file not a directory, no
    /// permission, a full disk), the count rests on the host's
    /// `stop_hook_active` alone: a stop hook keeps the agent going at most
    /// once in a row, and the stop let through says why.
    #[must_use]
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.stops = Some(StopCounts::new(&dir.into()));
        self
    }

    /// The dispatcher.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// The host it answers.
    pub fn host(&self) -> Host {
        self.host
    }

    /// Answers one event, as read from stdin. Input that cannot be read,
    /// and hooks that do not finish in time, block.
    pub async fn answer(&self, input: &[u8]) -> Answer {
        let incoming = match input::parse(input, self.user.as_deref()) {
            Ok(incoming) => incoming,
            Err(error) => return Answer::block(format!("hooks: {error}; refused")),
        };
        match tokio::time::timeout(self.timeout, self.dispatch(incoming)).await {
            Ok(answer) => answer,
            Err(_) => Answer::block(format!(
                "hooks: the hooks did not finish within {}s; refused (fail-closed)",
                self.timeout.as_secs_f64()
            )),
        }
    }

    async fn dispatch(&self, incoming: Incoming) -> Answer {
        let hooks = &self.hooks;
        match incoming {
            Incoming::PreToolUse(mut ctx) => {
                let original = ctx.args().clone();
                let outcome = hooks.dispatch(&mut ctx).await;
                let asked = self.asked.take(ctx.session().id(), ctx.call_id());
                PreToolAnswer {
                    host: self.host,
                    rewrites: self.rewrites,
                    outcome: &outcome,
                    asked,
                    rewritten: (ctx.args() != &original).then(|| ctx.args()),
                    rewriters: &rewriters(ctx.rewrites()),
                    version: self.version,
                    context: ctx.injected().text(),
                }
                .answer()
            }
            Incoming::PermissionRequest(mut ctx) => {
                let original = ctx.args().clone();
                let outcome = hooks.dispatch(&mut ctx).await;
                crate::permission::answer(self.host, self.version, &outcome, &ctx, &original)
            }
            Incoming::Notification(mut ctx) => {
                let outcome = hooks.dispatch(&mut ctx).await;
                Reply::new("Notification", &outcome).answer()
            }
            Incoming::PostToolUse(ctx) => self.post_tool_use(ctx).await,
            Incoming::PostToolUseFailure(mut ctx) => {
                let outcome = hooks.dispatch(&mut ctx).await;
                Reply::new("PostToolUseFailure", &outcome)
                    .context(ctx.injected().text())
                    .answer()
            }
            Incoming::UserPromptSubmit(ctx) => self.user_prompt_submit(ctx).await,
            Incoming::SessionStart(mut ctx) => {
                let outcome = hooks.dispatch(&mut ctx).await;
                Reply::new("SessionStart", &outcome)
                    .context(ctx.injected().text())
                    .answer()
            }
            Incoming::SubagentStart(mut ctx) => {
                let outcome = hooks.dispatch(&mut ctx).await;
                if let Some(denial) = outcome.denial() {
                    return refuse(
                        self.host,
                        "SubagentStart",
                        &outcome,
                        denial,
                        ctx.injected().text(),
                    );
                }
                Reply::new("SubagentStart", &outcome)
                    .context(ctx.injected().text())
                    .answer()
            }
            Incoming::Stop(mut ctx) => {
                let run = self.resume(ctx.session(), ctx.stop_hook_active()).await;
                let outcome = hooks.dispatch(&mut ctx).await;
                self.stopped("Stop", &outcome, run, ctx.session(), ctx.injected().text())
                    .await
            }
            Incoming::SubagentStop(mut ctx) => {
                let run = self.resume(ctx.session(), ctx.stop_hook_active()).await;
                let outcome = hooks.dispatch(&mut ctx).await;
                self.stopped(
                    "SubagentStop",
                    &outcome,
                    run,
                    ctx.session(),
                    ctx.injected().text(),
                )
                .await
            }
            Incoming::PreCompact(mut ctx) => {
                let outcome = hooks.dispatch(&mut ctx).await;
                let answer = Reply::new("PreCompact", &outcome).answer();
                if ctx.trigger() == hooks_core::CompactTrigger::Other {
                    answer.warn(&format!(
                        "hooks: PreCompact trigger \"{}\" is new to this binary (it knows \
                         \"manual\" and \"auto\"); the hooks were shown it as named",
                        ctx.trigger_name()
                    ))
                } else {
                    answer
                }
            }
            Incoming::SessionEnd(mut ctx) => {
                let outcome = hooks.dispatch(&mut ctx).await;
                Reply::new("SessionEnd", &outcome).answer()
            }
            Incoming::Unmapped(event) => {
                tracing::debug!(%event, "no counterpart here: nothing to run");
                Answer::nothing()
            }
        }
    }

    async fn post_tool_use(&self, mut ctx: hooks_core::PostToolUse) -> Answer {
        let hooks = &self.hooks;
        let original = ctx.result().cloned().map_err(str::to_owned);
        let outcome = hooks.dispatch(&mut ctx).await;
        if let Some(denial) = outcome.denial() {
            return refuse(
                self.host,
                "PostToolUse",
                &outcome,
                denial,
                ctx.injected().text(),
            );
        }
        let reply = Reply::new("PostToolUse", &outcome).context(ctx.injected().text());
        let now = ctx.result().cloned().map_err(str::to_owned);
        if now == original {
            return reply.answer();
        }
        let output = match now {
            Ok(value) => value,
            Err(error) => Value::String(error),
        };
        if let Ok(before) = &original
            && kind(before) != kind(&output)
            && self.host == Host::Claude
        {
            // Claude Code drops a replacement not shaped like the tool's own
            // output (a string for Bash's object), and the model reads the
            // original: so the reason carries it instead.
            return Answer::block(format!(
                "the hooks replaced this tool's output with {} where the tool gave {}, \
                 which Claude Code does not take; use this instead of the output above: {}",
                kind(&output),
                kind(before),
                text(&output)
            ));
        }
        match self.host {
            Host::Claude => {
                // Claude Code names MCP tools `mcp__<server>__<tool>`.
                let mcp = ctx.tool().starts_with("mcp__");
                match self.version {
                    Some(version) if version < claude::TOOL_OUTPUT_ALL => {
                        if !mcp {
                            // Sent anyway, it would be ignored and the model
                            // would read what the hooks withheld.
                            return Answer::block(format!(
                                "the hooks replaced this tool's output, which Claude Code \
                                 {version} can do only for MCP tools ({} and later: for \
                                 every tool); use this instead of the output above: {}",
                                claude::TOOL_OUTPUT_ALL,
                                text(&output)
                            ));
                        }
                        reply.specific("updatedMCPToolOutput", output)
                    }
                    // Not told the version: both fields, so whichever the
                    // host reads is replaced.
                    None if mcp => reply
                        .specific("updatedMCPToolOutput", output.clone())
                        .specific("updatedToolOutput", output),
                    _ => reply.specific("updatedToolOutput", output),
                }
                .answer()
            }
            // Codex reads no replacement output: the model would see
            // what the hooks withheld, so the call is refused, with
            // the hooks' version as the reason it reads instead.
            Host::Codex => Answer::block(format!(
                "the hooks replaced this tool's output, which Codex cannot do; use this \
                 instead of the output above: {}",
                text(&output)
            )),
        }
    }

    async fn user_prompt_submit(&self, mut ctx: hooks_core::UserPromptSubmit) -> Answer {
        let hooks = &self.hooks;
        let original = ctx.prompt().to_owned();
        let outcome = hooks.dispatch(&mut ctx).await;
        if let Some(denial) = outcome.denial() {
            return refuse(
                self.host,
                "UserPromptSubmit",
                &outcome,
                denial,
                ctx.injected().text(),
            );
        }
        if ctx.prompt() != original {
            // A prompt cannot be replaced through the protocol; sent
            // on as it was, what a hook took out (a secret) would
            // reach the model. So it is refused, saying why.
            return Answer::block(format!(
                "a hook rewrote this prompt (hooks: {}), and {} cannot replace a \
                 prompt; refused so the original does not reach the model",
                rewriters(ctx.rewrites()),
                self.host.title()
            ));
        }
        Reply::new("UserPromptSubmit", &outcome)
            .context(ctx.injected().text())
            .answer()
    }
}

impl Responder {
    /// Resumes `session`'s count of refused stops where the last process
    /// left it; when it cannot be kept, from `active` alone: past the cap
    /// if the stop before was refused.
    async fn resume(&self, session: &Session, active: bool) -> Result<Run, String> {
        let cap = self.hooks.stop_denial_cap();
        let run = match &self.stops {
            Some(stops) => stops.begin(session, active, cap).await,
            None => Err("no state directory to keep it in".to_owned()),
        };
        session.resume_stop_denials(match &run {
            Ok(run) => run.before(),
            Err(_) if active => cap,
            Err(_) => 0,
        });
        run
    }

    /// A stop refused keeps the agent going, with the reason as its next
    /// instruction; one let through past the cap says so to the person.
    async fn stopped(
        &self,
        event: &'static str,
        outcome: &Outcome,
        run: Result<Run, String>,
        session: &Session,
        context: &str,
    ) -> Answer {
        let (trouble, kept) = match run {
            Ok(run) => (run.finish(session.stop_denials()).await.err(), true),
            Err(trouble) => (Some(trouble), false),
        };
        if let Some(trouble) = &trouble {
            tracing::warn!(%trouble, "the count of refused stops is not kept");
        }
        if let Some(denial) = outcome.denial() {
            return refuse(self.host, event, outcome, denial, context);
        }
        let Some(capped) = outcome.stop_capped() else {
            return Reply::new(event, outcome).answer();
        };
        let why = match &trouble {
            Some(trouble) if !kept => format!(
                "the count of refused stops could not be kept ({trouble}), so a stop hook \
                 keeps the agent going at most once in a row"
            ),
            _ => format!(
                "stop hooks kept the agent going {} times in a row, the cap",
                capped.cap
            ),
        };
        let note = format!(
            "hooks: {why}; it stops now, though `{}` said: {}",
            capped.hook, capped.reason
        );
        let messages: Vec<&str> = outcome
            .messages()
            .iter()
            .map(|message| message.text.as_str())
            .chain([note.as_str()])
            .collect();
        Reply::new(event, outcome)
            .top("systemMessage", json!(messages.join("\n")))
            .answer()
    }
}

/// The hooks that rewrote a prompt or a call, for the reason.
fn rewriters(rewrites: &[hooks_core::context::Rewrite]) -> String {
    let names: Vec<String> = rewrites
        .iter()
        .map(|rewrite| format!("`{}`", rewrite.hook))
        .collect();
    if names.is_empty() {
        "unknown".to_owned()
    } else {
        names.join(", ")
    }
}

/// A value as the model reads it: a string as itself, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
