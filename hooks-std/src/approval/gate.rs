//! The approver: stores requests, delivers them, waits, and remembers answers.

use std::fmt::Write as _;
use std::future::Future as _;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, SystemTime};

use hooks_core::{ApprovalAnswer, ApprovalRequest, Approver, BoxFuture, Value};
use serde_json::Map;
use sha2::{Digest, Sha256};

use super::channel::{Channel, CliChannel};
use super::sqlite::Database;
use super::store::{Answering, ApprovalStore, NewRequest, Request, Status, StoreError};
use super::{ApprovalPolicy, Approvals, OnRestart, SqliteStore};
use crate::config::ConfigError;
use crate::redact::Redactor;
use hooks_core::printable;

/// The approver: stores requests, delivers them through a [`Channel`],
/// waits for the first answer (from the channel or the store), and
/// remembers it, so a request survives a restart and a yes is used once.
#[derive(Clone)]
pub struct ApprovalGate {
    store: Arc<dyn ApprovalStore>,
    channel: Arc<dyn Channel>,
    poll_interval: Duration,
    answers_expire_after: Duration,
    policy: ApprovalPolicy,
}

impl ApprovalGate {
    /// Opens the SQLite store (creating and migrating it), applies the
    /// restart policy, and answers through the CLI until another channel is
    /// set. Every setting is checked before the store is touched: bad
    /// patterns or durations, or a database that cannot be opened, are refused.
    pub fn open(config: &Approvals) -> Result<Self, ConfigError> {
        let policy = ApprovalPolicy::new(config)?;
        let refused = |error: StoreError| ConfigError::new("approval", error.to_string());
        if let Some(store) = &config.store {
            return Self::open_server(store, policy, config);
        }
        if config.database.as_os_str().is_empty() {
            return Err(ConfigError::new(
                "approval",
                "no database is named: give `database` (or set `HOOKS_APPROVALS_DB`), or a `store`",
            ));
        }
        // Start-up work, done once before any dispatch: the restart policy
        // straight on the database, then the store the gate waits on.
        let database = Database::open(&config.database, config.busy_timeout).map_err(refused)?;
        database
            .expire_older_than(stale_after(config))
            .map_err(refused)?;
        drop(database);
        let store = SqliteStore::open(&config.database, config.busy_timeout).map_err(refused)?;
        Ok(Self::with_parts(Arc::new(store), policy, config))
    }

    /// The gate over the PostgreSQL store `connection` names: connected,
    /// migrated and its restart policy applied now (from synchronous code,
    /// inside a runtime or not); its connections outlive every runtime.
    #[cfg(feature = "postgres")]
    fn open_server(
        connection: &str,
        policy: ApprovalPolicy,
        config: &Approvals,
    ) -> Result<Self, ConfigError> {
        use super::postgres::PostgresStore;
        use crate::postgres::block_on;
        let refused = |error: String| ConfigError::new("approval", error);
        let store = PostgresStore::new(connection)
            .map_err(|error| refused(error.to_string()))?
            .timeouts(config.connect_timeout, config.statement_timeout);
        let stale = stale_after(config);
        let starting = store.clone();
        block_on(async move { starting.expire_older_than(stale).await })
            .map_err(refused)?
            .map_err(|error| refused(error.to_string()))?;
        Ok(Self::with_parts(Arc::new(store), policy, config))
    }

    #[cfg(not(feature = "postgres"))]
    fn open_server(_: &str, _: ApprovalPolicy, _: &Approvals) -> Result<Self, ConfigError> {
        Err(ConfigError::new(
            "approval",
            "`store` names a PostgreSQL server, and this program is built without hooks-std's `postgres` feature",
        ))
    }

    /// A gate over another store (a database server, say). The restart
    /// policy is applied to it before the gate is returned.
    pub async fn with_store(
        store: impl ApprovalStore,
        config: &Approvals,
    ) -> Result<Self, ConfigError> {
        let policy = ApprovalPolicy::new(config)?;
        store
            .expire_older_than(stale_after(config))
            .await
            .map_err(|error| ConfigError::new("approval", error.to_string()))?;
        Ok(Self::with_parts(Arc::new(store), policy, config))
    }

    fn with_parts(
        store: Arc<dyn ApprovalStore>,
        policy: ApprovalPolicy,
        config: &Approvals,
    ) -> Self {
        ApprovalGate {
            store,
            channel: Arc::new(CliChannel),
            poll_interval: config.poll_interval,
            answers_expire_after: config.answers_expire_after,
            policy,
        }
    }

    /// Delivers requests through `channel`.
    #[must_use]
    pub fn channel(mut self, channel: impl Channel) -> Self {
        self.channel = Arc::new(channel);
        self
    }

    /// What needs a person, from the same configuration: give it to the
    /// builder as state, so the gate hook and the gate agree.
    pub fn policy(&self) -> &ApprovalPolicy {
        &self.policy
    }

    /// The store the gate keeps requests in.
    pub fn store(&self) -> &dyn ApprovalStore {
        &*self.store
    }

    async fn decide(&self, request: &ApprovalRequest) -> Result<ApprovalAnswer, StoreError> {
        let session = request.session();
        let tool = request.tool().unwrap_or("(no tool)");
        let args = request.args().cloned().unwrap_or(Value::Null);
        if let Some(grant) = self.store.grant(session.id(), tool).await? {
            let by = grant.by.unwrap_or_else(|| "someone".to_owned());
            return Ok(ApprovalAnswer::approve()
                .by(format!(
                    "{by} (allowed for this session, request #{})",
                    grant.request
                ))
                .with_id(grant.request.to_string()));
        }
        let fingerprint = fingerprint(request, tool, &args);
        let id = match self.store.open_request(&fingerprint).await? {
            Some(pending) if pending.status == Status::Pending => pending.id,
            Some(answered) => match self.age(&answered) {
                Age::Fresh => {
                    if let Some(answer) = self.use_answer(&answered).await? {
                        return Ok(answer);
                    }
                    self.ask_anew(fingerprint, request, tool, &args).await?
                }
                // Never trusted, and spent: used once its time came, it
                // would let through a call nobody was asked about now.
                Age::Ahead => {
                    tracing::warn!(
                        target: "hooks_std::approval",
                        id = answered.id,
                        responded_at = answered.responded_at.as_deref().unwrap_or_default(),
                        "an answer is dated in the future (a clock set wrong, or a row written by \
                         hand): it is not used, and the person is asked again"
                    );
                    self.store.consume(answered.id).await?;
                    self.ask_anew(fingerprint, request, tool, &args).await?
                }
                // An answer nobody used in time is not used now: ask again.
                Age::Stale => self.ask_anew(fingerprint, request, tool, &args).await?,
            },
            None => self.ask_anew(fingerprint, request, tool, &args).await?,
        };
        // Dropped before an answer (the dispatcher's backstop fired first):
        // the request expires all the same.
        let mut expiry = Expiry {
            store: Arc::clone(&self.store),
            id: Some(id),
        };
        let answered = match tokio::time::timeout_at(request.deadline().into(), self.wait(id)).await
        {
            Ok(answered) => answered?,
            // Time is up: expired, unless a person answered in the meantime.
            Err(_elapsed) => {
                self.store.expire(id).await?;
                self.stored(id).await?
            }
        };
        expiry.id = None;
        Ok(self.use_answer(&answered).await?.unwrap_or_else(|| {
            ApprovalAnswer::deny(format!("request #{id} was already used by another call"))
                .with_id(id.to_string())
        }))
    }

    async fn ask_anew(
        &self,
        fingerprint: String,
        request: &ApprovalRequest,
        tool: &str,
        args: &Value,
    ) -> Result<i64, StoreError> {
        let session = request.session();
        self.store
            .insert(NewRequest {
                fingerprint,
                session: session.id().to_owned(),
                agent: session.agent_id().to_owned(),
                user: session.user_id().map(ToOwned::to_owned),
                tool: tool.to_owned(),
                args: self.shown(request, args).to_string(),
                // Hooks other than the standard gate write their own prompts:
                // redacted here too, since the store keeps them (the
                // dispatcher redacted them already with its own redactor).
                prompt: printable(&self.redactor().redacted(request.prompt()), true).into_owned(),
            })
            .await
    }

    fn redactor(&self) -> &Redactor {
        self.policy.redactor()
    }

    /// The arguments as stored and shown: redacted with the policy's
    /// redactor, then with the dispatcher's (which may know secrets by value).
    fn shown(&self, request: &ApprovalRequest, args: &Value) -> Value {
        let args = self.redactor().redact(args);
        match request.redactor() {
            Some(dispatcher) => redact_with(dispatcher, &args),
            None => args,
        }
    }

    /// Whether an answer found in the store may be used: given at most
    /// `answers_expire_after` ago. One given earlier, or at a time that
    /// cannot be read, is stale; one dated after now is ahead.
    fn age(&self, answered: &Request) -> Age {
        let Some(at) = answered
            .responded_at
            .as_deref()
            .and_then(|at| humantime::parse_rfc3339_weak(at).ok())
        else {
            return Age::Stale;
        };
        match SystemTime::now().duration_since(at) {
            Err(_) => Age::Ahead,
            Ok(age) if age <= self.answers_expire_after => Age::Fresh,
            Ok(_) => Age::Stale,
        }
    }

    /// Uses an answered request for this call: `None` if another call used it first.
    async fn use_answer(&self, answered: &Request) -> Result<Option<ApprovalAnswer>, StoreError> {
        if answered.status == Status::Expired {
            return Ok(Some(
                ApprovalAnswer::timed_out().with_id(answered.id.to_string()),
            ));
        }
        if !self.store.consume(answered.id).await? {
            return Ok(None);
        }
        let by = answered
            .responded_by
            .clone()
            .unwrap_or_else(|| "someone".to_owned());
        let answer = if answered.status == Status::Approved {
            ApprovalAnswer::approve()
        } else {
            let reason = answered
                .reason
                .clone()
                .unwrap_or_else(|| "no reason given".to_owned());
            ApprovalAnswer::deny(reason)
        };
        Ok(Some(
            answer
                .by(format!("{by} (request #{})", answered.id))
                .with_id(answered.id.to_string()),
        ))
    }

    /// Waits for the first answer: from the channel, or in the store — told
    /// of it by a store that can say so, else checking every `poll_interval`.
    async fn wait(&self, id: i64) -> Result<Request, StoreError> {
        let request = self.stored(id).await?;
        let mut delivered = Some(self.channel.deliver(&request));
        loop {
            // Listening before the status is read: no answer falls between.
            let answered = self.store.answered(id);
            let current = self.stored(id).await?;
            if current.status != Status::Pending {
                return Ok(current);
            }
            let mut store = std::pin::pin!(async {
                match answered {
                    Some(answered) => answered.await,
                    None => {
                        tokio::time::sleep(self.poll_interval).await;
                        Ok(())
                    }
                }
            });
            let woke = std::future::poll_fn(|cx| {
                if let Some(answer) = delivered.as_mut()
                    && let Poll::Ready(answer) = answer.as_mut().poll(cx)
                {
                    return Poll::Ready(Ok(answer));
                }
                store.as_mut().poll(cx).map(Err)
            })
            .await;
            match woke {
                Ok(answer) => {
                    delivered = None;
                    if let Some(answer) = answer {
                        let answering = Answering {
                            approved: answer.approved,
                            scope: answer.scope,
                            by: answer.by,
                            reason: answer.reason,
                        };
                        self.store.answer(id, answering).await?;
                    }
                }
                Err(woken) => woken?,
            }
        }
    }

    /// A request known to be stored (requests are never deleted).
    async fn stored(&self, id: i64) -> Result<Request, StoreError> {
        self.store
            .get(id)
            .await?
            .ok_or_else(|| super::store::failed("approvals", format!("request #{id} disappeared")))
    }
}

/// How an answer found in the store stands against the gate's clock.
enum Age {
    /// Given within `answers_expire_after`: usable, once.
    Fresh,
    /// Given longer ago, or at a time that cannot be read.
    Stale,
    /// Dated after now.
    Ahead,
}

/// How old a pending request may be when the gate opens.
fn stale_after(config: &Approvals) -> Duration {
    match config.on_restart {
        OnRestart::Resume => config.timeout,
        OnRestart::Expire => Duration::ZERO,
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

/// Expires the request if the wait is abandoned (the core's timeout drops
/// it): in a task of its own, since a store may have to wait.
struct Expiry {
    store: Arc<dyn ApprovalStore>,
    id: Option<i64>,
}

impl Drop for Expiry {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let store = Arc::clone(&self.store);
        let expire = async move {
            if let Err(error) = store.expire(id).await {
                tracing::error!(target: "hooks_std::approval", %error, id, "could not mark an abandoned request expired");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(expire)),
            Err(_) => tracing::error!(
                target: "hooks_std::approval",
                id,
                "an abandoned request stays pending: no Tokio runtime to expire it on"
            ),
        }
    }
}

/// Identifies a question across processes: the session, the hook asking,
/// its prompt, the tool and the exact arguments. Hashed as one JSON array,
/// so no choice of ids or names can make two different questions encode
/// alike (every string is quoted and escaped; no separator to smuggle).
fn fingerprint(request: &ApprovalRequest, tool: &str, args: &Value) -> String {
    let question = serde_json::json!([
        request.session().id(),
        request.hook().as_str(),
        request.prompt(),
        tool,
        args,
        // Two identical calls the model made in parallel are two requests.
        request.call_id()
    ]);
    Sha256::digest(question.to_string().as_bytes()).iter().fold(
        String::with_capacity(64),
        |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        },
    )
}

/// `value` with every string and key passed through `redactor`: for one
/// seen only as hooks-core's `Redact` (an approval request's).
fn redact_with(redactor: &dyn hooks_core::Redact, value: &Value) -> Value {
    match value {
        Value::String(text) => {
            Value::String(redactor.redact_text(text).unwrap_or_else(|| text.clone()))
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| redact_with(redactor, item))
                .collect(),
        ),
        Value::Object(members) => {
            let mut redacted = Map::new();
            for (key, member) in members {
                let key = redactor.redact_text(key).unwrap_or_else(|| key.clone());
                redacted.insert(
                    crate::redact::unique(&redacted, key),
                    redact_with(redactor, member),
                );
            }
            Value::Object(redacted)
        }
        other => other.clone(),
    }
}
