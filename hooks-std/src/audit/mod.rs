//! **audit-log**: one record per tool call — allowed or denied — with who,
//! what, the decision and the hook that made it, every rewrite and who made
//! it, approvals and who answered, duration and result size; secrets redacted.
//!
//! Records go to a [`Sink`]: a JSON Lines file ([`JsonLinesFile`]; the
//! `path` given, or the path in `HOOKS_AUDIT_LOG`: there is no default file),
//! written so that concurrent writers never interleave or tear a line and a
//! crash loses at most the record being written. [`TracingSink`] sends them
//! to `tracing` instead; with the `postgres` feature, `PostgresSink` (`sink =
//! "postgres://…"`) batches them into a table shared by every replica. A
//! sink may answer later (a network sink): the observers wait for its
//! acknowledgement without blocking.
//!
//! The sink, redaction and failure policy are an [`Auditor`], state of the
//! dispatcher that runs the hooks (`.state(Auditor::from_config(config)?)`).
//! A dispatcher given none records nothing: the hooks are not in it.
//!
//! Records are redacted twice when the two differ: with the auditor's
//! [`Redactor`] (`redact_keys`, `redact_prefixes`) and with the
//! dispatcher's (`.redactor(..)` on the builder), so the secrets the
//! dispatcher knows by value never reach the log, in any encoding.
//!
//! Three hooks do it: `audit::denied` observes `PreToolUse` and records calls a
//! hook denied; `audit::completed` observes `PostToolUse` and records calls
//! that ran (use [`ToolHandle::run`](hooks_core::ToolHandle::run) or
//! [`PostToolUse::after`](hooks_core::PostToolUse::after) so it sees the
//! pre-hooks' rewrites and approvals); `audit::gate`, last in the
//! `PreToolUse` chain, refuses calls while the audit log cannot be written —
//! unless [`OnFailure::Continue`] says to go on with an error event instead.
//! A record of a call that already ran cannot stop that call: a failed write
//! is an error event, and the gate closes for the calls after it. With a
//! sink that [records before each call](Sink::records_before_call) (the
//! PostgreSQL sink), the gate writes the call's `started` record and lets
//! the call run only once it is written: no call runs without its record.
//!
//! ```no_run
//! use hooks_core::Hooks;
//! use hooks_std::audit::{Audit, Auditor, Durability};
//!
//! hooks_core::link!(hooks_std);
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let hooks = Hooks::builder()
//!     .state(Auditor::from_config(Audit {
//!         path: "/var/log/agent/audit.jsonl".into(),
//!         durability: Durability::Sync,
//!         ..Audit::default()
//!     })?)
//!     .build()?;
//! # drop(hooks);
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "postgres")]
mod postgres;
mod record;
mod sink;

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use hooks_core::Deferred;
use hooks_core::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "postgres")]
pub use postgres::{PostgresSink, PostgresSinkBuilder};
pub use record::{AuditRecord, Decision as RecordedDecision};
pub use sink::{Durability, JsonLinesFile, Sink, TracingSink};

use crate::config::ConfigError;
use crate::redact::{DEFAULT_KEYS, DEFAULT_PREFIXES, Redactor};

/// Configuration of the audit log (the `[audit_log]` table of a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Audit {
    /// The JSON Lines file: a path the user gives, or `$HOOKS_AUDIT_LOG`;
    /// empty by default, which [`Auditor::from_config`] refuses (no file is
    /// written whose path nobody named).
    pub path: PathBuf,
    /// A PostgreSQL server to write records to instead of `path`, shared by
    /// every replica (feature `postgres`; see [`PostgresSink`]):
    /// `postgres://audit:${AUDIT_DB_PASSWORD}@db/agents` or
    /// `host=/run/postgresql dbname=agents`. Each `${NAME}` is replaced by the
    /// environment variable `NAME`, so secrets stay out of the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink: Option<String>,
    /// With a `sink`: how long a record may take to be committed before it
    /// fails and the gate refuses its call (the server frozen, the network
    /// dropping packets).
    #[serde(with = "crate::config::duration")]
    pub timeout: std::time::Duration,
    /// With a `sink`: how long connecting may take (TCP, TLS, authentication).
    #[serde(with = "crate::config::duration")]
    pub connect_timeout: std::time::Duration,
    /// With a `sink`: how many records may wait for the server; past it a
    /// record is refused at once (and its call denied) rather than queued.
    pub queue: usize,
    /// How durable each record is before the call goes on.
    pub durability: Durability,
    /// What happens to calls while the audit log cannot be written.
    pub on_failure: OnFailure,
    /// Sensitive key terms (see [`Redactor`]).
    pub redact_keys: Vec<String>,
    /// Credential prefixes (see [`Redactor`]).
    pub redact_prefixes: Vec<String>,
}

impl Default for Audit {
    fn default() -> Self {
        Audit {
            path: std::env::var_os("HOOKS_AUDIT_LOG").map_or_else(PathBuf::new, PathBuf::from),
            sink: None,
            timeout: std::time::Duration::from_secs(5),
            connect_timeout: std::time::Duration::from_secs(5),
            queue: 10_000,
            durability: Durability::default(),
            on_failure: OnFailure::default(),
            redact_keys: DEFAULT_KEYS.map(str::to_owned).to_vec(),
            redact_prefixes: DEFAULT_PREFIXES.map(str::to_owned).to_vec(),
        }
    }
}

/// What happens to calls while the audit log cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// Refuse them: no call runs unrecorded (fail-closed).
    #[default]
    Deny,
    /// Let them run, with an ERROR event for each record lost.
    Continue,
}

/// A sink, a redactor and a failure policy; remembers whether the last write
/// failed. The state the `audit` hooks read.
pub struct Auditor {
    sink: Box<dyn Sink>,
    redactor: Redactor,
    on_failure: OnFailure,
    broken: Mutex<Option<String>>,
}

impl Auditor {
    /// An auditor writing to `sink`, failing closed, with the default redaction.
    pub fn new(sink: impl Sink) -> Self {
        Auditor {
            sink: Box::new(sink),
            redactor: Redactor::default(),
            on_failure: OnFailure::Deny,
            broken: Mutex::new(None),
        }
    }

    /// Opens the configured file, or connects to the configured server; an
    /// unwritable path or an unreachable server is refused.
    pub fn from_config(config: Audit) -> Result<Self, ConfigError> {
        if let Some(server) = &config.sink {
            return Ok(Auditor::new(Self::server_sink(server, &config)?)
                .on_failure(config.on_failure)
                .redactor(Redactor::new(&config.redact_keys, config.redact_prefixes)));
        }
        if config.path.as_os_str().is_empty() {
            return Err(ConfigError::new(
                "audit-log",
                "no file is named: give `path` (or set `HOOKS_AUDIT_LOG`), or a `sink`",
            ));
        }
        let file = JsonLinesFile::open(&config.path, config.durability).map_err(|error| {
            ConfigError::new(
                "audit-log",
                format!(
                    "cannot open the audit log `{}`: {error}",
                    config.path.display()
                ),
            )
        })?;
        Ok(Auditor::new(file)
            .on_failure(config.on_failure)
            .redactor(Redactor::new(&config.redact_keys, config.redact_prefixes)))
    }

    /// What the `audit::gate` hook decides. With a sink that [records
    /// before each call](Sink::records_before_call): writes the call's
    /// `started` record, and refuses the call if it cannot be written (or
    /// goes on with an error event, under [`OnFailure::Continue`]); each call
    /// is its own test of the log, so earlier failures do not matter. With
    /// any other sink: [`gate`](Self::gate).
    pub fn admit(&self, ctx: &PreToolUse) -> Deferred<'_, Decision> {
        self.admit_also(ctx, &self.redactor)
    }

    fn admit_also(&self, ctx: &PreToolUse, also: &Redactor) -> Deferred<'_, Decision> {
        // Each call's own record is the test of whether the log can be
        // written: no need to refuse on an earlier failure.
        if !self.sink.records_before_call() {
            return Deferred::Ready(self.gate(ctx));
        }
        let record = self.again(AuditRecord::started(ctx, &self.redactor), also);
        match self.sink.write(&record) {
            Deferred::Ready(result) => Deferred::Ready(self.admitted(&record, result)),
            Deferred::Later(pending) => Deferred::Later(Box::pin(async move {
                let result = pending.await;
                self.admitted(&record, result)
            })),
        }
    }

    /// The gate's decision once the call's `started` record was written or not.
    fn admitted(&self, record: &AuditRecord, result: std::io::Result<()>) -> Decision {
        let failed = result.as_ref().err().map(ToString::to_string);
        self.settle(record, result);
        match (failed, self.on_failure) {
            (Some(error), OnFailure::Deny) => Decision::deny(format!(
                "the call's audit record could not be written before it runs ({error}), \
                 and no tool call runs unrecorded"
            )),
            _ => Decision::Continue,
        }
    }

    #[cfg(feature = "postgres")]
    fn server_sink(connection: &str, config: &Audit) -> Result<PostgresSink, ConfigError> {
        PostgresSink::builder(connection)
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .queue(config.queue)
            .open()
            .map_err(|error| {
                ConfigError::new(
                    "audit-log",
                    format!("cannot write audit records to PostgreSQL: {error}"),
                )
            })
    }

    #[cfg(not(feature = "postgres"))]
    fn server_sink(_: &str, _: &Audit) -> Result<TracingSink, ConfigError> {
        Err(ConfigError::new(
            "audit-log",
            "`sink` names a PostgreSQL server, and this program is built without hooks-std's `postgres` feature",
        ))
    }

    /// Sets what happens to calls while records cannot be written.
    #[must_use]
    pub fn on_failure(mut self, on_failure: OnFailure) -> Self {
        self.on_failure = on_failure;
        self
    }

    /// Sets the redaction.
    #[must_use]
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// Refuses the call if the audit log is broken and the policy is to deny.
    pub fn gate(&self, _ctx: &PreToolUse) -> Decision {
        match (
            &*self.broken.lock().unwrap_or_else(PoisonError::into_inner),
            self.on_failure,
        ) {
            (Some(error), OnFailure::Deny) => Decision::deny(format!(
                "the audit log cannot be written ({error}), and no tool call runs unrecorded; \
                 this clears as soon as a record is written again"
            )),
            _ => Decision::Continue,
        }
    }

    /// Records `ctx` if a hook denied it.
    pub fn record_denied(&self, ctx: &PreToolUse) -> Deferred<'_, ()> {
        self.record_denied_also(ctx, &self.redactor)
    }

    /// Records a call that ran.
    pub fn record_completed(&self, ctx: &PostToolUse) -> Deferred<'_, ()> {
        self.record_completed_also(ctx, &self.redactor)
    }

    /// Records a call whose tool failed.
    pub fn record_failed(&self, ctx: &PostToolUseFailure) -> Deferred<'_, ()> {
        self.record_failed_also(ctx, &self.redactor)
    }

    // The hooks' way: redacted with the auditor's redactor and with the
    // dispatcher's (its known secrets, its rules), once when they are one.

    fn record_denied_also(&self, ctx: &PreToolUse, also: &Redactor) -> Deferred<'_, ()> {
        // Refused because its own record could not be written a moment ago:
        // a record of the refusal would wait for the same server as long
        // again before the agent gets its answer.
        if self.sink.records_before_call()
            && ctx.denial().is_some_and(|denial| *denial.hook() == *GATE)
        {
            return Deferred::Ready(());
        }
        match AuditRecord::denied(ctx, &self.redactor) {
            Some(record) => self.write(self.again(record, also)),
            None => Deferred::Ready(()),
        }
    }

    fn record_completed_also(&self, ctx: &PostToolUse, also: &Redactor) -> Deferred<'_, ()> {
        self.write(self.again(AuditRecord::completed(ctx, &self.redactor), also))
    }

    fn record_failed_also(&self, ctx: &PostToolUseFailure, also: &Redactor) -> Deferred<'_, ()> {
        self.write(self.again(AuditRecord::failed(ctx, &self.redactor), also))
    }

    fn again(&self, record: AuditRecord, also: &Redactor) -> AuditRecord {
        if *also == self.redactor {
            record
        } else {
            record.redacted_again(also)
        }
    }

    fn write(&self, record: AuditRecord) -> Deferred<'_, ()> {
        match self.sink.write(&record) {
            Deferred::Ready(result) => {
                self.settle(&record, result);
                Deferred::Ready(())
            }
            Deferred::Later(pending) => Deferred::Later(Box::pin(async move {
                let result = pending.await;
                self.settle(&record, result);
            })),
        }
    }

    /// Remembers whether the log can be written, for the gate.
    fn settle(&self, record: &AuditRecord, result: std::io::Result<()>) {
        let mut broken = self.broken.lock().unwrap_or_else(PoisonError::into_inner);
        match result {
            Ok(()) => *broken = None,
            Err(error) => {
                tracing::error!(
                    target: "hooks_std::audit",
                    tool = record.tool,
                    session = record.session,
                    %error,
                    "an audit record could not be written"
                );
                *broken = Some(error.to_string());
            }
        }
    }
}

/// The gate's name, as denials carry it.
const GATE: &str = "hooks_std::audit::gate";

// The audit hooks run only in a dispatcher given an `Auditor`.
hooks_core::opt_in!(Auditor);

/// Refuses calls while the audit log cannot be written (fail-closed); with a
/// sink that records before each call, writes the call's record first.
#[pre_tool_use(group = "hooks_std", priority = i32::MAX)]
fn gate<'s>(ctx: &PreToolUse, auditor: &'s Auditor, redactor: &Redactor) -> Deferred<'s, Decision> {
    auditor.admit_also(ctx, redactor)
}

/// Records calls a hook denied.
#[pre_tool_use(group = "hooks_std", observe)]
fn denied<'s>(ctx: &PreToolUse, auditor: &'s Auditor, redactor: &Redactor) -> Deferred<'s, ()> {
    auditor.record_denied_also(ctx, redactor)
}

/// Records calls that ran.
#[post_tool_use(group = "hooks_std", observe)]
fn completed<'s>(ctx: &PostToolUse, auditor: &'s Auditor, redactor: &Redactor) -> Deferred<'s, ()> {
    auditor.record_completed_also(ctx, redactor)
}

/// Records calls whose tool failed.
#[post_tool_use_failure(group = "hooks_std", observe)]
fn failed<'s>(
    ctx: &PostToolUseFailure,
    auditor: &'s Auditor,
    redactor: &Redactor,
) -> Deferred<'s, ()> {
    auditor.record_failed_also(ctx, redactor)
}
