//! **approval**: a person's yes before flagged tool calls run, kept in SQLite
//! so a pending request survives a restart.
//!
//! Two halves. The hook `approval::gate` decides whether a call needs a
//! person — its tool matches [`Approvals::tools`], or the session's metadata
//! (`requires_confirmation`: `true`, or a list of patterns) flags it — and if
//! so returns [`Decision::Ask`]. What it flags is
//! an [`ApprovalPolicy`], state of the dispatcher. The core then asks the
//! [`ApprovalGate`], the [`Approver`](hooks_core::Approver) you give the
//! builder, which owns the state machine over an [`ApprovalStore`]
//! (SQLite by default, every operation off the executor thread; with the
//! `postgres` feature, `PostgresStore`, shared by every replica of a service
//! — `store = "postgres://…"` — and waking waiters with `NOTIFY`, not polls):
//!
//! 1. a yes "for this session" for this tool answers at once;
//! 2. a request for the same question (same session, hook, prompt, tool and
//!    exact arguments, hashed as one JSON array so no separator trick can
//!    make two questions one) already answered and not yet used — for
//!    instance by the CLI while the process that asked was down — is used,
//!    once, if it was answered within [`Approvals::answers_expire_after`]
//!    (ten minutes; an older answer is ignored and the person asked again,
//!    across restarts too; one dated after now — a clock set wrong, a row
//!    written by hand — is never used: it is spent, a warning logged, and the
//!    person asked again); one still pending is waited on again;
//! 3. otherwise a new request is stored (`pending`) and delivered through a
//!    [`Channel`]: the terminal, the `hooks-approve` CLI, or a function;
//! 4. the first answer wins (from the channel or from the store); a yes is
//!    *consumed* by the call it answers, so it lets one call through, never
//!    two — and stays spent if a later hook (the rate limit runs after the
//!    gate) still denies that call; no answer by the timeout marks it
//!    `expired`, and the core denies (the default).
//!
//! What the person reads is safe to show: prompts and stored arguments are
//! redacted with the configured [`Redactor`] (`redact_keys`,
//! `redact_prefixes`) and with the dispatcher's (`.redactor(..)` on the
//! builder, which may know secrets by value), and control and bidirectional characters are escaped
//! ([`printable`]) when the prompt is made and again wherever it is shown
//! (the terminal channel, `hooks-approve`). The core asks only once every
//! other hook has allowed the call, and the yes covers the exact arguments
//! the call runs with.
//!
//! Every outcome is recorded on the context ([`ApprovalRecord`](hooks_core::ApprovalRecord)),
//! so the audit log shows who answered. A store that cannot be opened or
//! written — corrupt, locked past the busy timeout — denies, naming the file.
//!
//! Both halves come from one [`Approvals`] configuration:
//!
//! ```no_run
//! use hooks_core::prelude::*;
//! use hooks_std::approval::{ApprovalGate, Approvals, CliChannel};
//!
//! hooks_core::link!(hooks_std);
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let config = Approvals {
//!     tools: vec!["payments_*".into(), "deploy_*".into()],
//!     ..Approvals::default()
//! };
//! let gate = ApprovalGate::open(&config)?.channel(CliChannel); // answered with `hooks-approve approve <id>`
//! let hooks = Hooks::builder()
//!     .state(gate.policy().clone()) // what needs a person
//!     .approver(gate)                // who asks, and remembers the answers
//!     .build()?;
//! # drop(hooks);
//! # Ok(())
//! # }
//! ```
//!
//! A dispatcher given no [`ApprovalPolicy`] flags the default tools; with no
//! approver, every flagged call is denied.

mod channel;
#[cfg(feature = "console")]
pub mod console;
mod gate;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
mod sqlite;
pub mod store;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{Matcher, ToolCall};
use serde::{Deserialize, Serialize};

pub use channel::{Answer, Channel, CliChannel, ScriptedChannel, TerminalChannel};
pub use gate::ApprovalGate;
/// Text made safe to show a person (re-exported from the core).
pub use hooks_core::printable;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use sqlite::{Database, SqliteStore};
pub use store::{ApprovalStore, Grant, Request, Scope, Status, StoreError};

use crate::config::{ConfigError, matchers};
use crate::redact::{DEFAULT_KEYS, DEFAULT_PREFIXES, Redactor};

/// Configuration of the approval gate (the `[approval]` table of a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Approvals {
    /// Tools that always need a person's yes (patterns).
    pub tools: Vec<String>,
    /// The session metadata key flagging more: `true` for every tool, or a list of patterns.
    pub metadata_key: String,
    /// The SQLite database: a path the user gives, or `$HOOKS_APPROVALS_DB`;
    /// empty by default, and a store is not opened without one.
    pub database: PathBuf,
    /// A PostgreSQL server to keep requests in instead, shared by every
    /// replica (feature `postgres`): `postgres://user:${PGPASSWORD}@db/agents`
    /// or `host=/run/postgresql dbname=agents`. Each `${NAME}` is replaced by
    /// the environment variable `NAME`, so secrets stay out of the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// With a PostgreSQL `store`: how long connecting may take (TCP, TLS,
    /// authentication) before the gate denies.
    #[serde(with = "crate::config::duration")]
    pub connect_timeout: Duration,
    /// With a PostgreSQL `store`: how long one statement may take before
    /// it is an error and the gate denies (the server frozen, the network
    /// dropping packets).
    #[serde(with = "crate::config::duration")]
    pub statement_timeout: Duration,
    /// How long a request waits for an answer before it expires and the call is denied.
    #[serde(with = "crate::config::duration")]
    pub timeout: Duration,
    /// How often the store is checked for an answer given elsewhere (the CLI).
    /// Unused with a PostgreSQL `store`, which is told of answers (`NOTIFY`).
    #[serde(with = "crate::config::duration")]
    pub poll_interval: Duration,
    /// How long to wait for a database another process has locked.
    #[serde(with = "crate::config::duration")]
    pub busy_timeout: Duration,
    /// What happens to requests left pending by an earlier process.
    pub on_restart: OnRestart,
    /// How long an answer given while nobody waited for it (the process that
    /// asked was down) stays usable by the same call: after this it is
    /// ignored and the person is asked again. Counted from the answer, so it
    /// holds across restarts. An answer dated after now is never used (it is
    /// spent, and the person asked again): keep the clocks of the machines
    /// that answer and ask in step.
    #[serde(with = "crate::config::duration")]
    pub answers_expire_after: Duration,
    /// Sensitive key terms, redacted from prompts and stored requests (see [`Redactor`]).
    pub redact_keys: Vec<String>,
    /// Credential prefixes, redacted from prompts and stored requests (see [`Redactor`]).
    pub redact_prefixes: Vec<String>,
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
                .map_or_else(PathBuf::new, PathBuf::from),
            store: None,
            connect_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(5),
            timeout: Approval::DEFAULT_TIMEOUT,
            poll_interval: Duration::from_millis(250),
            busy_timeout: Duration::from_secs(5),
            on_restart: OnRestart::default(),
            answers_expire_after: Duration::from_secs(10 * 60),
            redact_keys: DEFAULT_KEYS.map(str::to_owned).to_vec(),
            redact_prefixes: DEFAULT_PREFIXES.map(str::to_owned).to_vec(),
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
/// What needs a person, compiled: the state the `approval::gate` hook reads.
#[derive(Clone)]
pub struct ApprovalPolicy {
    tools: Arc<[Matcher]>,
    metadata_key: String,
    timeout: Duration,
    redactor: Arc<Redactor>,
}

impl Approvals {
    /// Refuses durations the gate cannot work with.
    pub(crate) fn check_durations(&self) -> Result<(), ConfigError> {
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
        if self.answers_expire_after.is_zero() {
            return Err(ConfigError::new(
                "approval",
                "`answers_expire_after` is zero: an answer given from the CLI could never be used",
            ));
        }
        Ok(())
    }
}

impl Default for ApprovalPolicy {
    /// [`Approvals::default`]: payments, refunds, transfers and deploys, five minutes.
    fn default() -> Self {
        Self::new(&Approvals::default()).expect("the defaults are valid")
    }
}

// The gate runs only in a dispatcher given an `ApprovalPolicy`.
hooks_core::opt_in!(ApprovalPolicy);

impl ApprovalPolicy {
    /// Compiles the configuration's patterns and checks its durations.
    pub fn new(config: &Approvals) -> Result<Self, ConfigError> {
        config.check_durations()?;
        Ok(ApprovalPolicy {
            tools: matchers("approval", "tools", &config.tools)?.into(),
            metadata_key: config.metadata_key.clone(),
            timeout: config.timeout,
            redactor: Arc::new(Redactor::new(&config.redact_keys, &config.redact_prefixes)),
        })
    }

    /// What prompts and stored requests are redacted with.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Asks for a person's yes if the call is flagged.
    pub fn check(&self, ctx: &PreToolUse) -> Decision {
        if self.flagged(ctx) {
            Decision::Ask(Approval::new(self.prompt(ctx)).timeout(self.timeout))
        } else {
            Decision::Continue
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

    /// What the person is asked: every part the model or the caller chose
    /// redacted and made printable (see [`printable`]).
    fn prompt(&self, ctx: &PreToolUse) -> String {
        let session = ctx.session();
        let shown = |text: &str| printable(&self.redactor.redacted(text), false).into_owned();
        let mut prompt = format!(
            "Allow `{}` with {}?",
            shown(ctx.tool()),
            shown(&self.redactor.redact(ctx.args()).to_string())
        );
        let _ = write!(prompt, " Asked by agent `{}`", shown(session.agent_id()));
        if let Some(user) = session.user_id() {
            let _ = write!(prompt, " for user `{}`", shown(user));
        }
        let _ = write!(prompt, " in session `{}`.", shown(session.id()));
        prompt
    }
}

/// Asks for a person's yes on flagged calls.
#[pre_tool_use(group = "hooks_std", priority = 500)]
fn gate(ctx: &mut PreToolUse, policy: &ApprovalPolicy) -> Decision {
    policy.check(ctx)
}
