//! **approval**: a person's yes before flagged tool calls run, kept in SQLite
//! so a pending request survives a restart.
//!
//! Two halves. The hook `approval::gate` decides whether a call needs a
//! person — its tool matches [`Approvals::tools`], or the session's metadata
//! (`requires_confirmation`: `true`, or a list of patterns) flags it — and if
//! so returns [`Decision::Ask`](hooks_core::Decision::Ask). The core then
//! asks the [`ApprovalGate`], the [`Approver`] you give the builder, which
//! owns the state machine:
//!
//! 1. a yes "for this session" for this tool answers at once;
//! 2. a request for the same call (same session, tool and arguments) already
//!    answered and not yet used — for instance by the CLI while the process
//!    that asked was down — is used, once; one still pending is waited on again;
//! 3. otherwise a new request is stored (`pending`) and delivered through a
//!    [`Channel`]: the terminal, the `hooks-approve` CLI, or a function;
//! 4. the first answer wins (from the channel or from the store); a yes is
//!    *consumed* by the call it answers, so it lets one call through, never
//!    two — and stays spent if a later hook (the rate limit runs after the
//!    gate) still denies that call; no answer by the timeout marks it
//!    `expired`, and the core denies (the default).
//!
//! Every outcome is recorded on the context ([`ApprovalRecord`](hooks_core::ApprovalRecord)),
//! so the audit log shows who answered. A store that cannot be opened or
//! written — corrupt, locked past the busy timeout — denies, naming the file.
//!
//! ```no_run
//! use hooks_core::prelude::*;
//! use hooks_std::approval::{self, Approvals, CliChannel};
//!
//! hooks_core::link!(hooks_std);
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let gate = approval::configure(Approvals {
//!     tools: vec!["payments_*".into(), "deploy_*".into()],
//!     ..Approvals::default()
//! })?
//! .channel(CliChannel); // answered with `hooks-approve approve <id>`
//! let hooks = Hooks::builder().approver(gate).build()?;
//! # drop(hooks);
//! # Ok(())
//! # }
//! ```

mod channel;
pub mod store;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{ApprovalRequest, Approver, BoxFuture, Matcher, ToolCall};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use channel::{Answer, Channel, CliChannel, ScriptedChannel, TerminalChannel};
use store::{NewRequest, Request, Status, Store, StoreError};

use crate::config::{ConfigError, matchers};
use crate::redact::Redactor;
use crate::setting::Setting;

static SETTINGS: Setting<Compiled> = Setting::new();

/// Configures the `approval::gate` hook and opens the store, returning the
/// gate to set as the dispatcher's approver. Bad patterns or durations, or
/// a database that cannot be opened, are refused and nothing changes: every
/// setting is checked before the store is touched.
pub fn configure(config: Approvals) -> Result<ApprovalGate, ConfigError> {
    // The patterns here, the durations first thing in `open`.
    let tools = matchers("approval", "tools", &config.tools)?;
    let gate = ApprovalGate::open(&config)?;
    SETTINGS.set(Compiled::new(tools, config));
    Ok(gate)
}

/// Configuration of the approval gate (the `[approval]` table of a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Approvals {
    /// Tools that always need a person's yes (patterns).
    pub tools: Vec<String>,
    /// The session metadata key flagging more: `true` for every tool, or a list of patterns.
    pub metadata_key: String,
    /// The SQLite database (`$HOOKS_APPROVALS_DB`, else `hooks-approvals.sqlite3`).
    pub database: PathBuf,
    /// How long a request waits for an answer before it expires and the call is denied.
    #[serde(with = "crate::config::duration")]
    pub timeout: Duration,
    /// How often the store is checked for an answer given elsewhere (the CLI).
    #[serde(with = "crate::config::duration")]
    pub poll_interval: Duration,
    /// How long to wait for a database another process has locked.
    #[serde(with = "crate::config::duration")]
    pub busy_timeout: Duration,
    /// What happens to requests left pending by an earlier process.
    pub on_restart: OnRestart,
}

impl Default for Approvals {
    fn default() -> Self {
        Approvals {
            tools: [
                "payment*",
                "*_payment",
                "refund*",
                "transfer*",
                "wire_*",
                "deploy*",
            ]
            .map(str::to_owned)
            .to_vec(),
            metadata_key: "requires_confirmation".to_owned(),
            database: std::env::var_os("HOOKS_APPROVALS_DB")
                .map_or_else(|| "hooks-approvals.sqlite3".into(), PathBuf::from),
            timeout: Approval::DEFAULT_TIMEOUT,
            poll_interval: Duration::from_millis(250),
            busy_timeout: Duration::from_secs(5),
            on_restart: OnRestart::default(),
        }
    }
}

/// What happens to requests left pending by an earlier process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnRestart {
    /// Keep them: when the same call is made again it waits for (or uses) the
    /// same request. Requests older than the timeout expire.
    #[default]
    Resume,
    /// Expire them all when the gate opens.
    Expire,
}

struct Compiled {
    tools: Vec<Matcher>,
    metadata_key: String,
    timeout: Duration,
    redactor: Redactor,
}

impl Approvals {
    /// Refuses durations the gate cannot work with.
    fn check_durations(&self) -> Result<(), ConfigError> {
        if self.timeout.is_zero() {
            return Err(ConfigError::new(
                "approval",
                "`timeout` is zero: every request would expire unasked",
            ));
        }
        if self.poll_interval.is_zero() {
            return Err(ConfigError::new(
                "approval",
                "`poll_interval` is zero: the store would be queried without pause",
            ));
        }
        Ok(())
    }
}

impl Compiled {
    fn new(tools: Vec<Matcher>, config: Approvals) -> Self {
        Compiled {
            tools,
            metadata_key: config.metadata_key,
            timeout: config.timeout,
            redactor: Redactor::default(),
        }
    }

    /// Whether the call needs a person, and why.
    fn flagged(&self, ctx: &PreToolUse) -> bool {
        let call = ToolCall::new(ctx.tool(), ctx.args());
        if self.tools.iter().any(|matcher| matcher.matches(call)) {
            return true;
        }
        match ctx.session().metadata_value(&self.metadata_key) {
            None | Some(Value::Bool(false)) => false,
            Some(Value::Array(patterns)) => patterns.iter().any(|pattern| {
                // A flag we cannot read flags the call: asking is the safe side.
                pattern
                    .as_str()
                    .and_then(|pattern| Matcher::parse(pattern).ok())
                    .is_none_or(|matcher| matcher.matches(call))
            }),
            Some(_) => true,
        }
    }

    fn prompt(&self, ctx: &PreToolUse) -> String {
        let session = ctx.session();
        let mut prompt = format!(
            "Allow `{}` with {}?",
            ctx.tool(),
            self.redactor.redact(ctx.args())
        );
        let _ = write!(prompt, " Asked by agent `{}`", session.agent_id());
        if let Some(user) = session.user_id() {
            let _ = write!(prompt, " for user `{user}`");
        }
        let _ = write!(prompt, " in session `{}`.", session.id());
        prompt
    }
}

/// Asks for a person's yes on flagged calls.
#[pre_tool_use(group = "hooks_std", priority = 500)]
fn gate(ctx: &mut PreToolUse) -> Decision {
    let settings = SETTINGS.get_or_init(|| {
        let defaults = Approvals::default();
        let tools = matchers("approval", "tools", &defaults.tools).expect("the defaults are valid");
        Compiled::new(tools, defaults)
    });
    if settings.flagged(ctx) {
        Decision::Ask(Approval::new(settings.prompt(ctx)).timeout(settings.timeout))
    } else {
        Decision::Continue
    }
}

/// The approver: stores requests, delivers them, waits, and remembers answers.
#[derive(Clone)]
pub struct ApprovalGate {
    store: Arc<Mutex<Store>>,
    channel: Arc<dyn Channel>,
    poll_interval: Duration,
    redactor: Arc<Redactor>,
}

impl ApprovalGate {
    /// Opens the store (creating and migrating it), applies the restart
    /// policy, and answers through the CLI until another channel is set.
    /// A zero `timeout` or `poll_interval` is refused before the store is opened.
    pub fn open(config: &Approvals) -> Result<Self, ConfigError> {
        config.check_durations()?;
        let store = Store::open(&config.database, config.busy_timeout)
            .map_err(|error| ConfigError::new("approval", error.to_string()))?;
        let stale = match config.on_restart {
            OnRestart::Resume => config.timeout,
            OnRestart::Expire => Duration::ZERO,
        };
        store
            .expire_older_than(stale)
            .map_err(|error| ConfigError::new("approval", error.to_string()))?;
        Ok(ApprovalGate {
            store: Arc::new(Mutex::new(store)),
            channel: Arc::new(CliChannel),
            poll_interval: config.poll_interval,
            redactor: Arc::new(Redactor::default()),
        })
    }

    /// Delivers requests through `channel`.
    #[must_use]
    pub fn channel(mut self, channel: impl Channel) -> Self {
        self.channel = Arc::new(channel);
        self
    }

    fn store<T>(&self, f: impl FnOnce(&Store) -> Result<T, StoreError>) -> Result<T, StoreError> {
        f(&self.store.lock().unwrap_or_else(PoisonError::into_inner))
    }

    async fn decide(&self, request: &ApprovalRequest) -> Result<ApprovalAnswer, StoreError> {
        let session = request.session();
        let tool = request.tool().unwrap_or("(no tool)");
        let args = request.args().cloned().unwrap_or(Value::Null);
        if let Some((id, by)) = self.store(|store| store.grant(session.id(), tool))? {
            let by = by.unwrap_or_else(|| "someone".to_owned());
            return Ok(ApprovalAnswer::approve()
                .by(format!("{by} (allowed for this session, request #{id})")));
        }
        let fingerprint = fingerprint(session.id(), tool, &args);
        let id = match self.store(|store| store.open_request(&fingerprint))? {
            Some(answered) if answered.status != Status::Pending => {
                if let Some(answer) = self.use_answer(&answered)? {
                    return Ok(answer);
                }
                self.ask_anew(&fingerprint, request, tool, &args)?
            }
            Some(pending) => pending.id,
            None => self.ask_anew(&fingerprint, request, tool, &args)?,
        };
        // Dropped before an answer (the core's timeout): the request expires.
        let mut expiry = Expiry {
            gate: self,
            id: Some(id),
        };
        let answered = self.wait(id).await?;
        expiry.id = None;
        Ok(self.use_answer(&answered)?.unwrap_or_else(|| {
            ApprovalAnswer::deny(format!("request #{id} was already used by another call"))
        }))
    }

    fn ask_anew(
        &self,
        fingerprint: &str,
        request: &ApprovalRequest,
        tool: &str,
        args: &Value,
    ) -> Result<i64, StoreError> {
        let session = request.session();
        let args = self.redactor.redact(args).to_string();
        self.store(|store| {
            store.insert(&NewRequest {
                fingerprint,
                session: session.id(),
                agent: session.agent_id(),
                user: session.user_id(),
                tool,
                args: &args,
                prompt: request.prompt(),
            })
        })
    }

    /// Uses an answered request for this call: `None` if another call used it first.
    fn use_answer(&self, answered: &Request) -> Result<Option<ApprovalAnswer>, StoreError> {
        if answered.status == Status::Expired {
            return Ok(Some(ApprovalAnswer::deny(format!(
                "request #{} expired unanswered",
                answered.id
            ))));
        }
        if !self.store(|store| store.consume(answered.id))? {
            return Ok(None);
        }
        let by = answered
            .responded_by
            .clone()
            .unwrap_or_else(|| "someone".to_owned());
        Ok(Some(if answered.status == Status::Approved {
            ApprovalAnswer::approve().by(format!("{by} (request #{})", answered.id))
        } else {
            let reason = answered
                .reason
                .clone()
                .unwrap_or_else(|| "no reason given".to_owned());
            ApprovalAnswer::deny(reason).by(format!("{by} (request #{})", answered.id))
        }))
    }

    /// Waits for the first answer: from the channel, or in the store.
    async fn wait(&self, id: i64) -> Result<Request, StoreError> {
        let request = self
            .store(|store| store.get(id))?
            .expect("a request just stored or found is there");
        let mut delivered = Some(self.channel.deliver(&request));
        loop {
            match delivered.as_mut() {
                Some(answer) => match tokio::time::timeout(self.poll_interval, answer).await {
                    Ok(Some(answer)) => {
                        self.store(|store| {
                            store.answer(
                                id,
                                answer.approved,
                                answer.scope,
                                answer.by.as_deref(),
                                answer.reason.as_deref(),
                            )
                        })?;
                        delivered = None;
                    }
                    Ok(None) => delivered = None,
                    Err(_elapsed) => {}
                },
                None => tokio::time::sleep(self.poll_interval).await,
            }
            let current = self
                .store(|store| store.get(id))?
                .expect("requests are never deleted");
            if current.status != Status::Pending {
                return Ok(current);
            }
        }
    }
}

impl Approver for ApprovalGate {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        Box::pin(async move {
            self.decide(request).await.unwrap_or_else(|error| {
                ApprovalAnswer::deny(format!(
                    "{error}; denied, since no approval can be recorded"
                ))
                .by("hooks_std::approval")
            })
        })
    }
}

/// Expires the request if the wait is abandoned (the core's timeout drops it).
struct Expiry<'a> {
    gate: &'a ApprovalGate,
    id: Option<i64>,
}

impl Drop for Expiry<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id
            && let Err(error) = self.gate.store(|store| store.expire(id))
        {
            tracing::error!(target: "hooks_std::approval", %error, id, "could not mark an abandoned request expired");
        }
    }
}

/// Identifies a call across processes: session, tool and exact arguments.
fn fingerprint(session: &str, tool: &str, args: &Value) -> String {
    let mut hasher = Sha256::new();
    for part in [session, tool, &args.to_string()] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}
