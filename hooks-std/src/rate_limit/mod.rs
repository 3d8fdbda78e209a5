//! **rate-limit**: at most so many calls per window, per tool, per user, per
//! session or per any metadata key; over the limit a call is denied with the
//! time to wait.
//!
//! Rules are [GCRA](https://en.wikipedia.org/wiki/Generic_cell_rate_algorithm)
//! limits: `max` calls per `per`, as a burst or spread out. A call must pass
//! every rule whose `tools` pattern matches it; if a later rule refuses, the
//! slots earlier rules granted are given back. The default: each user may
//! call each tool 60 times a minute.
//!
//! Exact under concurrency: the store admits atomically per bucket, so no
//! interleaving admits more calls than the limit. Keys are small whatever
//! the session carries: a value longer than [`MAX_PART_LEN`] bytes (a 10 MB
//! user id) is kept as its SHA-256, so it makes no 10 MB key in memory, in
//! SQLite or in Redis, and values that differ anywhere keep buckets apart. Buckets live in memory
//! ([`MemoryStore`], bounded: [`RateLimit::max_buckets`]) behind the [`Store`] trait, whose answers may come later
//! (a network store). An admitted call counted in memory allocates nothing
//! (unless a rule keys on a metadata value that is not a string: its JSON
//! text is formatted per call). A store that cannot answer denies the call.
//!
//! A hook run as a new process per event (a Claude Code command hook)
//! counts in a SQLite file instead ([`RateLimit::database`], a
//! [`SqliteStore`]): every process naming the file shares its buckets, by
//! wall-clock time ([`WallClock`]), so a hundred processes racing for a
//! burst of ten admit exactly ten.
//!
//! A service run as many replicas counts in Redis instead
//! ([`RateLimit::store`] = `"redis://…"`, a `RedisStore`, feature `redis`):
//! every replica naming the server shares its buckets, each decision one
//! script run atomically on the server by the server's clock. When Redis
//! cannot be reached, calls are denied saying so, unless
//! [`RateLimit::on_store_error`] lets them through uncounted.
//!
//! The rules and their store are a [`RateLimiter`], state of the dispatcher
//! that runs the hook (`.state(RateLimiter::new(config)?)`, or
//! `.shared_state(limiter)` to count several dispatchers' calls together); a
//! dispatcher without one gets the default rule, in a store of its own.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use std::time::Duration;
//! use hooks_core::prelude::*;
//! use hooks_std::rate_limit::{By, RateLimit, RateLimiter, Rule};
//!
//! let limiter = RateLimiter::new(RateLimit::new(vec![
//!     Rule::new(2, Duration::from_secs(60)).tools("sql_*").by([By::User]),
//! ]))
//! .unwrap();
//! let session = Session::new("s").with_user("dana");
//! let mut call = || PreToolUse::new(&session, "sql_query", json!({}));
//! assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
//! assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
//! let Decision::Deny(reason) = limiter.check(&call()).wait().await else { panic!() };
//! assert!(reason.starts_with("rate limit reached: at most 2 calls per 1m for each user"));
//! # }
//! ```

mod gcra;
#[cfg(feature = "redis")]
mod redis;
mod sqlite;
mod store;

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{Deferred, Matcher, Refusal, ToolCall};
use serde::{Deserialize, Serialize};

#[cfg(feature = "redis")]
pub use self::redis::{REDIS_MAX_WAITING, REDIS_NAMESPACE, REDIS_TAGS, REDIS_TIMEOUT, RedisStore};
pub use gcra::Limit;
pub use sqlite::{BUSY_TIMEOUT, SqliteStore};
pub use store::{
    Admission, Clock, DEFAULT_MAX_BUCKETS, Key, MAX_KEY_PARTS, MAX_PART_LEN, ManualClock,
    MemoryStore, MonotonicClock, Part, Store, StoreError, WallClock,
};

use crate::config::ConfigError;

/// Configuration of the rate limit (the `[rate_limit]` table of a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimit {
    /// Every rule a call must pass.
    pub rules: Vec<Rule>,
    /// The most buckets the in-memory store holds (see [`MemoryStore`]):
    /// past it, calls for new keys wait until a bucket frees.
    pub max_buckets: usize,
    /// Counts in this SQLite file, shared by every process that names it
    /// (created if missing; see [`SqliteStore`]); the clock is then wall
    /// time ([`WallClock`]) and `max_buckets` does not apply. A relative
    /// path is from the working directory. Unset: in this process's memory.
    pub database: Option<PathBuf>,
    /// Counts in this shared store instead, for a service run as many
    /// replicas: `"redis://host:port/db"`, `"rediss://…"` for TLS, or a
    /// Redis Cluster, `"redis+cluster://host:port,host:port"` (feature
    /// `redis`; `RedisStore`),
    /// with `${NAME}` replaced by the environment variable `NAME`, so a
    /// secret stays out of the file: `"redis://:${REDIS_PASSWORD}@cache:6379/0"`.
    /// Not with `database`. The server's clock decides.
    pub store: Option<String>,
    /// With a `rediss://` store: a PEM file of the certificate authorities
    /// trusted for the server's certificate, instead of the system's roots
    /// (read once, at start; a relative path is from the working directory).
    /// The certificate must also name the address's host.
    pub store_ca: Option<PathBuf>,
    /// With `store`: the shared store's keys start `hooks:rl:<key_prefix>`,
    /// so services on one server with different rules keep apart.
    pub key_prefix: String,
    /// What a call gets when the store cannot answer (Redis unreachable):
    /// denied (the default), or let through uncounted.
    pub on_store_error: OnStoreError,
}

/// What a call gets when the rate limit's store cannot answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnStoreError {
    /// Denied, saying the limit cannot be checked and why: no call runs uncounted.
    #[default]
    Deny,
    /// Let through, uncounted, with a warning logged: the tools stay up
    /// while the store is down, and nothing limits them meanwhile.
    Allow,
}

impl Default for RateLimit {
    /// No rules: a limit is what the user says it is (a limiter without
    /// rules is refused).
    fn default() -> Self {
        RateLimit::new(Vec::new())
    }
}

impl RateLimit {
    /// These rules, with the default bucket cap.
    pub fn new(rules: Vec<Rule>) -> Self {
        RateLimit {
            rules,
            max_buckets: DEFAULT_MAX_BUCKETS,
            database: None,
            store: None,
            store_ca: None,
            key_prefix: String::new(),
            on_store_error: OnStoreError::Deny,
        }
    }
}

/// One limit: which calls, counted per what, how many per how long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Which tools the rule counts (a `matches` pattern; default `*`).
    #[serde(default = "every_tool")]
    pub tools: String,
    /// What each bucket is per: e.g. `["user", "tool"]` is one bucket per
    /// user and tool; `[]` is one bucket for all matching calls.
    #[serde(default = "per_user_and_tool")]
    pub by: Vec<By>,
    /// How many calls.
    pub max: u32,
    /// In how long (`"1m"`, `"30s"`, `"1h"`).
    #[serde(with = "crate::config::duration")]
    pub per: Duration,
}

fn every_tool() -> String {
    "*".to_owned()
}

fn per_user_and_tool() -> Vec<By> {
    vec![By::User, By::Tool]
}

impl Rule {
    /// `max` calls per `per`, for every tool, per user and tool.
    pub fn new(max: u32, per: Duration) -> Self {
        Rule {
            tools: every_tool(),
            by: per_user_and_tool(),
            max,
            per,
        }
    }

    /// Counts only the tools matching `pattern`.
    #[must_use]
    pub fn tools(mut self, pattern: impl Into<String>) -> Self {
        self.tools = pattern.into();
        self
    }

    /// Keeps one bucket per combination of these.
    #[must_use]
    pub fn by(mut self, by: impl IntoIterator<Item = By>) -> Self {
        self.by = by.into_iter().collect();
        self
    }
}

/// What a bucket is kept per.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// The tool's name.
    Tool,
    /// The user id (calls without one share a bucket).
    User,
    /// The session id.
    Session,
    /// The agent id.
    Agent,
    /// A session metadata value, e.g. `{ metadata = "org_id" }`.
    Metadata(String),
}

impl fmt::Display for By {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            By::Tool => f.write_str("tool"),
            By::User => f.write_str("user"),
            By::Session => f.write_str("session"),
            By::Agent => f.write_str("agent"),
            By::Metadata(key) => write!(f, "`{key}`"),
        }
    }
}

/// Rules, compiled, with the store and clock they count in: the state the
/// `rate_limit::guard` hook reads.
pub struct RateLimiter {
    rules: Vec<CompiledRule>,
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    on_store_error: OnStoreError,
}

struct CompiledRule {
    matcher: Matcher,
    by: Vec<By>,
    limit: Limit,
}

/// The most rules a limiter takes (admitted rules are tracked in a bit set).
const MAX_RULES: usize = 64;

impl RateLimiter {
    /// Checks and compiles the rules; counts in a fresh [`MemoryStore`] by
    /// the [`MonotonicClock`], or, with a `database`, in that [`SqliteStore`]
    /// by the [`WallClock`] (a file that cannot be opened is an error naming
    /// it), or, with a `store`, in that Redis server (connected on first use).
    pub fn new(config: RateLimit) -> Result<Self, ConfigError> {
        if config.max_buckets == 0 {
            return Err(ConfigError::new(
                "rate-limit",
                "`max_buckets` is 0: no call could ever be counted",
            ));
        }
        if config.rules.is_empty() {
            return Err(ConfigError::new(
                "rate-limit",
                "no `rules`: a rate limit without rules would limit nothing; add one, \
                 e.g. `{ max = 60, per = \"1m\" }`",
            ));
        }
        if config.rules.len() > MAX_RULES {
            return Err(ConfigError::new(
                "rate-limit",
                format!("at most {MAX_RULES} rules"),
            ));
        }
        let rules = config
            .rules
            .into_iter()
            .enumerate()
            .map(|(index, rule)| {
                let at = |message: String| {
                    ConfigError::new("rate-limit", format!("rule {}: {message}", index + 1))
                };
                if rule.max == 0 {
                    return Err(at(
                        "`max` is 0, which would refuse every call; remove the tool instead".into(),
                    ));
                }
                if rule.per.is_zero() {
                    return Err(at("`per` is zero; give a window such as \"1m\"".into()));
                }
                if rule.by.len() > MAX_KEY_PARTS {
                    return Err(at(format!(
                        "`by` has {} parts; at most {MAX_KEY_PARTS}",
                        rule.by.len()
                    )));
                }
                let matcher = Matcher::parse(&rule.tools)
                    .map_err(|error| at(format!("bad pattern \"{}\": {error}", rule.tools)))?;
                Ok(CompiledRule {
                    matcher,
                    by: rule.by,
                    limit: Limit::new(rule.max, rule.per),
                })
            })
            .collect::<Result<_, _>>()?;
        if config.store_ca.is_some() && config.store.is_none() {
            return Err(ConfigError::new(
                "rate-limit",
                "`store_ca` is set without a `store`: it is the CA of a `rediss://` store",
            ));
        }
        // The file last: a configuration with a bad rule creates no file.
        let (store, clock): (Arc<dyn Store>, Arc<dyn Clock>) =
            match (&config.database, &config.store) {
                (Some(_), Some(_)) => {
                    return Err(ConfigError::new(
                        "rate-limit",
                        "both `database` and `store` are set; count in one of them",
                    ));
                }
                (None, Some(address)) => (
                    shared_store(address, config.store_ca.as_deref(), &config.key_prefix)?,
                    Arc::new(MonotonicClock),
                ),
                (Some(path), None) => (
                    Arc::new(
                        SqliteStore::open(path)
                            .map_err(|error| ConfigError::new("rate-limit", error.to_string()))?,
                    ),
                    Arc::new(WallClock),
                ),
                (None, None) => (
                    Arc::new(MemoryStore::with_capacity(config.max_buckets)),
                    Arc::new(MonotonicClock),
                ),
            };
        Ok(RateLimiter {
            rules,
            store,
            clock,
            on_store_error: config.on_store_error,
        })
    }

    /// Counts in `store` instead. A store shared by processes (a
    /// [`SqliteStore`]) needs a clock they share: [`WallClock`].
    #[must_use]
    pub fn with_store(mut self, store: impl Store) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Reads the time from `clock` instead.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Admits the call (counting it against every matching rule) or denies it
    /// with the time to wait — at once while the store answers at once, or
    /// later, without blocking, when it must wait (a network store).
    pub fn check<'a>(&'a self, ctx: &PreToolUse) -> Deferred<'a, Decision> {
        let call = ToolCall::new(ctx.tool(), ctx.args());
        let now = self.clock.now();
        let mut admitted: u64 = 0;
        for (index, rule) in self.rules.iter().enumerate() {
            if !rule.matcher.matches(call) {
                continue;
            }
            let key = rule.key(index, ctx);
            match self.store.acquire(&key, rule.limit, now) {
                Deferred::Ready(Ok(Admission::Admitted)) => admitted |= 1 << index,
                Deferred::Ready(Err(error)) if self.on_store_error == OnStoreError::Allow => {
                    log_uncounted(&error);
                }
                Deferred::Ready(answer) => {
                    let refusal = rule.refusal(answer);
                    return self.give_back(&self.keys(admitted, ctx), refusal);
                }
                Deferred::Later(answer) => {
                    // From here on the work outlives the call: own the keys.
                    let taken = self.keys(admitted, ctx);
                    let rest = self.rules[index + 1..]
                        .iter()
                        .enumerate()
                        .map(|(offset, rule)| (index + 1 + offset, rule))
                        .filter(|(_, rule)| rule.matcher.matches(call))
                        .map(|(index, rule)| (index, rule.key(index, ctx).into_owned()))
                        .collect();
                    return Deferred::Later(Box::pin(self.check_later(
                        (index, key.into_owned(), Deferred::Later(answer)),
                        taken,
                        rest,
                        now,
                    )));
                }
            }
        }
        Deferred::Ready(Decision::Continue)
    }

    /// The rest of a check whose store answers later, rule by rule.
    async fn check_later(
        &self,
        waiting: (
            usize,
            Key<'static>,
            Deferred<'_, Result<Admission, StoreError>>,
        ),
        mut taken: Vec<(usize, Key<'static>)>,
        rest: Vec<(usize, Key<'static>)>,
        now: Duration,
    ) -> Decision {
        let (index, key, answer) = waiting;
        let mut next = Some((index, key, answer));
        let mut rest = rest.into_iter();
        while let Some((index, key, answer)) = next.take() {
            let rule = &self.rules[index];
            match answer.wait().await {
                Ok(Admission::Admitted) => taken.push((index, key)),
                Err(error) if self.on_store_error == OnStoreError::Allow => log_uncounted(&error),
                refused => return self.give_back(&taken, rule.refusal(refused)).wait().await,
            }
            next = rest.next().map(|(index, key)| {
                let answer = self.store.acquire(&key, self.rules[index].limit, now);
                (index, key, answer)
            });
        }
        Decision::Continue
    }

    /// The keys of the rules admitted so far, for giving their slots back.
    fn keys(&self, admitted: u64, ctx: &PreToolUse) -> Vec<(usize, Key<'static>)> {
        if admitted == 0 {
            return Vec::new();
        }
        self.rules
            .iter()
            .enumerate()
            .filter(|(index, _)| admitted & (1 << index) != 0)
            .map(|(index, rule)| (index, rule.key(index, ctx).into_owned()))
            .collect()
    }

    /// Gives back the slots earlier rules granted a call a later rule refused, then refuses it.
    fn give_back(
        &self,
        taken: &[(usize, Key<'static>)],
        refusal: Refusal,
    ) -> Deferred<'_, Decision> {
        let mut later = Vec::new();
        for (index, key) in taken {
            match self.store.release(key, self.rules[*index].limit) {
                Deferred::Ready(result) => log_release(result),
                Deferred::Later(pending) => later.push(pending),
            }
        }
        if later.is_empty() {
            return Deferred::Ready(Decision::Deny(refusal));
        }
        Deferred::Later(Box::pin(async move {
            for pending in later {
                log_release(pending.await);
            }
            Decision::Deny(refusal)
        }))
    }
}

/// A call let through uncounted (`on_store_error = "allow"`) is logged.
fn log_uncounted(error: &StoreError) {
    tracing::warn!(target: "hooks_std::rate_limit", %error, "the rate limit cannot be checked; the call goes ahead uncounted");
}

/// The store a `store` address names, its `${NAME}`s replaced from the
/// environment, trusting the CAs in `ca` (a PEM file) if given.
fn shared_store(
    address: &str,
    ca: Option<&std::path::Path>,
    prefix: &str,
) -> Result<Arc<dyn Store>, ConfigError> {
    let fail = |message: String| ConfigError::new("rate-limit", message);
    let address =
        crate::config::expand_env(address).map_err(|error| fail(format!("`store` {error}")))?;
    let scheme = address.split_once("://").map_or("", |(scheme, _)| scheme);
    if !matches!(
        scheme,
        "redis" | "rediss" | "redis+unix" | "unix" | "redis+cluster" | "rediss+cluster"
    ) {
        return Err(fail(format!(
            "`store` is a `{scheme}://` address; the shared store is Redis: \"redis://host:port/db\""
        )));
    }
    if ca.is_some() && !matches!(scheme, "rediss" | "rediss+cluster") {
        return Err(fail(format!(
            "`store_ca` is a CA for a TLS store; this `store` is `{scheme}://`: write it `rediss://…`"
        )));
    }
    #[cfg(feature = "redis")]
    {
        let mut store = RedisStore::open(&address).map_err(|error| fail(error.to_string()))?;
        if let Some(path) = ca {
            let pem = std::fs::read(path).map_err(|error| {
                fail(format!(
                    "`store_ca` {} cannot be read: {error}",
                    path.display()
                ))
            })?;
            store = store
                .with_ca(&pem)
                .map_err(|error| fail(format!("`store_ca` {}: {error}", path.display())))?;
        }
        Ok(Arc::new(store.with_prefix(prefix)))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (prefix, ca);
        Err(fail(
            "`store = \"redis://…\"` needs hooks-std's `redis` feature".to_owned(),
        ))
    }
}

/// A slot that could not be given back is logged: the call is refused anyway.
fn log_release(result: Result<(), StoreError>) {
    if let Err(error) = result {
        tracing::warn!(target: "hooks_std::rate_limit", %error, "a rate-limit slot could not be given back");
    }
}

impl CompiledRule {
    fn key<'a>(&self, index: usize, ctx: &'a PreToolUse) -> Key<'a> {
        let session = ctx.session();
        Key::new(
            index,
            self.by.iter().map(|by| match by {
                By::Tool => Part::Text(Cow::Borrowed(ctx.tool())),
                By::User => session
                    .user_id()
                    .map_or(Part::Absent, |user| Part::Text(Cow::Borrowed(user))),
                By::Session => Part::Text(Cow::Borrowed(session.id())),
                By::Agent => Part::Text(Cow::Borrowed(session.agent_id())),
                By::Metadata(key) => match session.metadata_value(key) {
                    None => Part::Absent,
                    Some(Value::String(text)) => Part::Text(Cow::Borrowed(text.as_str())),
                    // Numbers and the like: their JSON text, a kind of its
                    // own, so 7 and "7" are different buckets.
                    Some(other) => Part::Json(Cow::Owned(other.to_string())),
                },
            }),
        )
    }

    /// Why a call is refused: its bucket is full (a typed
    /// [`DenialCause::RateLimited`](hooks_core::DenialCause::RateLimited)
    /// with the wait), or the store failed (`rate_limit_unavailable`).
    fn refusal(&self, answer: Result<Admission, StoreError>) -> Refusal {
        let wait = match answer {
            Ok(Admission::RetryAfter(wait)) => wait,
            Ok(Admission::Admitted) => Duration::ZERO,
            Err(error) => {
                return Refusal::new(format!(
                    "the rate limit cannot be checked ({error}), and no call runs uncounted; \
                     try again shortly (tools `{}`)",
                    self.matcher
                ))
                .kind("rate_limit_unavailable", Value::Null);
            }
        };
        let mut text = format!("rate limit reached: at most {} for ", self.limit);
        if self.by.is_empty() {
            text.push_str("all matching calls together");
        } else {
            let parts: Vec<String> = self.by.iter().map(ToString::to_string).collect();
            let _ = write!(text, "each {}", parts.join(" and "));
        }
        let _ = write!(text, " (tools `{}`)", self.matcher);
        // Never "retry after 0": a bucket that is full has a wait.
        let wait = wait.max(Duration::from_millis(1));
        let _ = write!(
            text,
            "; retry after {:.1}s or call something else meanwhile",
            wait.as_secs_f64()
        );
        Refusal::new(text).rate_limited(wait)
    }
}

// The rate limit runs only in a dispatcher given a `RateLimiter`.
hooks_core::opt_in!(RateLimiter);

/// Denies calls over the configured limits.
#[pre_tool_use(group = "hooks_std", priority = 1000)]
fn guard<'s>(ctx: &mut PreToolUse, limiter: &'s RateLimiter) -> Deferred<'s, Decision> {
    limiter.check(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_rules_are_refused_by_number() {
        let error = |rule: Rule| {
            RateLimiter::new(RateLimit::new(vec![
                Rule::new(1, Duration::from_secs(1)),
                rule,
            ]))
            .err()
            .unwrap()
            .to_string()
        };
        assert_eq!(
            error(Rule::new(0, Duration::from_secs(1))),
            "rate-limit configuration: rule 2: `max` is 0, which would refuse every call; remove the tool instead"
        );
        assert!(error(Rule::new(1, Duration::ZERO)).contains("`per` is zero"));
        assert!(
            error(Rule::new(1, Duration::from_secs(1)).tools("a*b"))
                .contains("bad pattern \"a*b\"")
        );
        let too_many = Rule::new(1, Duration::from_secs(1)).by([
            By::Tool,
            By::User,
            By::Session,
            By::Agent,
            By::Metadata("org".into()),
        ]);
        assert!(error(too_many).contains("at most 4"));
    }
}
