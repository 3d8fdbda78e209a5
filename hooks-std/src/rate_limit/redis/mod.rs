//! Buckets in Redis, shared by every replica of a service: see [`RedisStore`].

mod cluster;
mod tls;
mod worker;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hooks_core::Deferred;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::{Client, ConnectionAddr, FromRedisValue, RedisError, Script, ScriptInvocation};
use sha2::{Digest as _, Sha256};
use tokio::sync::OnceCell;

use self::cluster::Cluster;
pub use self::worker::REDIS_MAX_WAITING;
use self::worker::Worker;
use super::{Admission, Key, Limit, Store, StoreError};

/// The longest a decision waits for Redis before it is an error: a
/// connection and a script load included.
pub const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// Every key the store writes starts with this.
pub const REDIS_NAMESPACE: &str = "hooks:rl:";

/// What errors about the address name, before there is one to name.
const STORE: &str = "rate-limit store";

/// The longest window counted exactly: times stay below 2^53 µs (see [`RedisStore`]).
const MAX_PER_MICROS: u64 = 1 << 52;

/// The GCRA and the loss check, in one script: see `gcra.lua`.
const GCRA: &str = include_str!("gcra.lua");

/// Writes the epochs of the given keys' tags: this server holds every count.
const TRUST: &str = r"
local run_id = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
for _, key in ipairs(KEYS) do redis.call('SET', key, run_id .. ' 0') end
return 1
";

/// How many hash tags bucket keys are spread over: each tag's keys live in
/// one cluster slot with their epoch, the key saying whether the slot's
/// counts were lost.
pub const REDIS_TAGS: u16 = 256;

/// The key of tag `tag`'s epoch: `hooks:rl:{<tag>}epoch`, in the tag's slot.
/// No bucket key is spelled so: each ends in its JSON key's `]`.
fn epoch_key(tag: u16) -> String {
    format!("{REDIS_NAMESPACE}{{{tag}}}epoch")
}

/// Buckets in Redis, shared by every replica of a service that names the
/// server: ten replicas allowing a user 60 calls a minute allow 60 in all,
/// not 600.
///
/// Each decision is one Lua script run on the server (`EVALSHA`, loaded on
/// first use), which reads the bucket, admits or refuses, and writes it
/// back: Redis runs a script alone, so replicas racing for the last slot
/// cannot both get it. Answers come later ([`Deferred::Later`]): the
/// dispatcher waits for Redis without blocking its thread.
///
/// **Time is the server's** (`TIME`, inside the script), not the limiter's
/// [`Clock`](super::Clock): replicas on machines whose clocks disagree by a
/// second would otherwise each see the others' buckets a second early or
/// late. One clock for the fleet keeps the count exact.
///
/// **Precision.** Lua numbers are doubles, exact for integers below 2^53.
/// A bucket's time is kept as whole microseconds since the epoch (about
/// 2^51 today) plus a remainder in units of `1/max` µs (below `max`, below
/// 2^32): every number the script handles is an integer below 2^53, so
/// nothing is rounded, and written back with `%.0f` (Lua's `tostring`
/// keeps only 14 digits). One call costs `per / max` µs exactly, as whole
/// microseconds and a remainder computed here in integers; `per` is
/// counted in whole microseconds (rounded up, at most 2^52 µs, about 142
/// years), and a wait is rounded up to the microsecond.
///
/// **Keys** are `hooks:rl:{<tag>}` + the store's prefix + the key as typed
/// JSON (values of different kinds never share a bucket; one longer than
/// [`MAX_PART_LEN`](super::MAX_PART_LEN) bytes as its SHA-256), and each expires when
/// its bucket is full again (`PX`), so idle buckets cost nothing. The tag,
/// one of [`REDIS_TAGS`] numbers from the SHA-256 of the rest, puts a
/// bucket in the same cluster slot as its tag's epoch (`hooks:rl:{<tag>}epoch`):
/// 256 small keys without expiry, whatever the number of buckets.
///
/// **Cluster.** On a Redis Cluster (`redis+cluster://`) each decision goes
/// to the node serving its bucket's slot; a bucket and its epoch share the
/// slot (the hash tag), so the script stays one atomic step on one node,
/// and a node restarted empty is noticed for its own slots only.
///
/// **Restarts.** Redis restarted without persistence comes back empty; one
/// restored from an RDB snapshot, an `appendfsync everysec` log or a
/// replica comes back with counts older than the last calls admitted.
/// Either way, counting on from what it holds would admit calls again
/// (a 200-an-hour limit admitted 400). So each decision also checks its
/// tag's epoch, which names the server process (`run_id`) that wrote it:
/// no epoch means the server started empty, its counts lost when it
/// started; an epoch of another process means the data came from
/// elsewhere, its counts lost now. For a window after the loss, every
/// bucket is taken to be as spent as it could have been at the loss — its
/// whole burst used (GCRA never lets a bucket run further ahead) — so calls
/// go on at the steady rate, one per `per / max`, and the burst comes back
/// as the window passes. In the same script, atomically: never more than
/// the limit across a restart, whatever the persistence. A new server looks
/// the same for a window after it starts;
/// [`trust_current_server`](Self::trust_current_server) says it holds
/// every count there is. Not covered: `FLUSHALL`, deleting the keys by hand,
/// or eviction (`maxmemory` with a policy other than `noeviction`, the
/// default) start the buckets over.
///
/// **Outages.** The connection is made on first use and remade after a
/// failure; a decision that gets no answer within [`REDIS_TIMEOUT`] is an
/// error saying Redis is unreachable and where, which denies the call (or,
/// with [`OnStoreError::Allow`](super::OnStoreError::Allow), lets it through
/// uncounted). When Redis is back, calls are counted again.
///
/// **Runtimes.** The connection lives on a thread of the store's own,
/// started at the first decision, running a tokio runtime that only talks
/// to Redis; a decision sends its command there and waits for the answer,
/// from any runtime or executor. So a store outlives the runtime that used
/// it first (a test's, a request's), and needs no time driver of the
/// caller's. At most [`REDIS_MAX_WAITING`] commands wait at once: past
/// that a decision is refused at once, saying the store is busy. The
/// thread ends when the store is dropped.
///
/// [`RateLimit::store`](super::RateLimit::store) opens one; by hand,
/// `RateLimiter::new(config)?.with_store(RedisStore::open("redis://127.0.0.1/")?)`.
pub struct RedisStore {
    shared: Arc<Shared>,
    prefix: String,
    worker: OnceLock<Worker>,
}

/// What the commands running on the worker need.
struct Shared {
    target: Target,
    connection: OnceCell<Connection>,
    /// `Redis at host:port/db`: what errors name (no password).
    name: String,
    address: String,
    script: Script,
    trust: Script,
}

/// The server, or the cluster.
#[allow(
    clippy::large_enum_variant,
    reason = "one per store, made once: its size costs nothing"
)]
enum Target {
    Single(Client),
    Cluster(Cluster),
}

/// A connection to either, made on the worker's runtime.
#[derive(Clone)]
enum Connection {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl Connection {
    async fn invoke<T: FromRedisValue>(
        &mut self,
        invocation: &ScriptInvocation<'_>,
    ) -> Result<T, RedisError> {
        match self {
            Connection::Single(connection) => invocation.invoke_async(connection).await,
            Connection::Cluster(connection) => invocation.invoke_async(connection).await,
        }
    }
}

impl RedisStore {
    /// A store on the server at `url` (`redis://[:password@]host[:port][/db]`,
    /// `rediss://…` for TLS, or `redis+unix:///path/to/socket`), or on the
    /// Redis Cluster at `redis+cluster://[:password@]host:port[,host:port…]`
    /// (`rediss+cluster://…` for TLS; the nodes named are where the client
    /// starts, it learns the rest; database 0 only). TLS is
    /// rustls, trusting the system's roots unless given a CA
    /// ([`with_ca`](Self::with_ca)); `#insecure` (no certificate check) is refused. Nothing is connected yet: a
    /// malformed address is an error now, an unreachable server at the
    /// first decision.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        if cluster::is_cluster(url) {
            return Ok(Self::on(
                Target::Cluster(Cluster::open(url, None)?),
                String::new(),
            ));
        }
        let client = Client::open(url).map_err(|error| {
            // The address may hold a password: name its scheme only.
            let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
            StoreError::new(
                STORE,
                format!("not a Redis address (`{scheme}://…`): {error}"),
            )
        })?;
        let info = client.get_connection_info();
        if let ConnectionAddr::TcpTls { insecure, .. } = info.addr() {
            if *insecure {
                return Err(StoreError::new(
                    STORE,
                    "`#insecure` would accept any certificate, so anyone on the path could \
                     answer for Redis; give the server's CA instead (`store_ca`)",
                ));
            }
            tls::provider();
        }
        Ok(Self::on(Target::Single(client), String::new()))
    }

    /// The store on `target`.
    fn on(target: Target, prefix: String) -> Self {
        let (name, address) = match &target {
            Target::Single(client) => {
                let info = client.get_connection_info();
                let address = format!("{}/{}", info.addr(), info.redis_settings().db());
                (format!("Redis at {address}"), address)
            }
            Target::Cluster(cluster) => (
                format!("Redis cluster at {}", cluster.address),
                cluster.address.clone(),
            ),
        };
        RedisStore {
            shared: Arc::new(Shared {
                target,
                connection: OnceCell::new(),
                name,
                address,
                script: Script::new(GCRA),
                trust: Script::new(TRUST),
            }),
            prefix,
            worker: OnceLock::new(),
        }
    }

    /// Trusts the certificate authorities in `pem` (PEM certificates), and
    /// only them, for a `rediss://` (or `rediss+cluster://`) server's
    /// certificate, instead of the system's roots. The certificate must
    /// also name the host of the address (a name or an IP address). A
    /// plain address, or a `pem` holding no certificate, is an error.
    pub fn with_ca(self, pem: &[u8]) -> Result<Self, StoreError> {
        let target = match &self.shared.target {
            Target::Single(client) => {
                Target::Single(tls::with_ca(client.get_connection_info().clone(), pem)?)
            }
            Target::Cluster(cluster) => Target::Cluster(cluster.with_ca(pem)?),
        };
        Ok(Self::on(target, self.prefix))
    }

    /// Keys start `hooks:rl:{<tag>}<prefix>`: services sharing a server with
    /// different rules keep apart (rule numbers alone would collide).
    #[must_use]
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        prefix.clone_into(&mut self.prefix);
        self
    }

    /// Where the server is (`host:port/db`, no password): what errors name.
    pub fn address(&self) -> &str {
        &self.shared.address
    }

    /// The Redis key holding `key`'s bucket: `hooks:rl:{<tag>}<prefix><key>`,
    /// its tag (a number below [`REDIS_TAGS`], from the SHA-256 of the rest)
    /// first, so a prefix or a value holding braces cannot move it.
    pub fn redis_key(&self, key: &Key<'_>) -> String {
        self.keys(key).0
    }

    /// The bucket's key and its tag's epoch key (the same slot).
    fn keys(&self, key: &Key<'_>) -> (String, String) {
        let name = format!("{}{}", self.prefix, super::sqlite::encode(key));
        let hash = Sha256::digest(name.as_bytes());
        let tag = u16::from_be_bytes([hash[0], hash[1]]) % REDIS_TAGS;
        (format!("{REDIS_NAMESPACE}{{{tag}}}{name}"), epoch_key(tag))
    }

    /// Declares that the server holds every count there is — a server new to
    /// the fleet, or one whose data survived (AOF with `appendfsync always`) —
    /// so no bucket waits for a window after its start (see [`RedisStore`],
    /// "Restarts"). Holds until the server restarts. Never call it after a
    /// restart that may have lost counts: calls it admitted would be admitted again.
    pub async fn trust_current_server(&self) -> Result<(), StoreError> {
        let shared = Arc::clone(&self.shared);
        self.on_worker(async move {
            for tag in 0..REDIS_TAGS {
                let invocation = shared.trust.key(epoch_key(tag));
                let mut connection = shared.connection().await?;
                shared.call(connection.invoke::<u8>(&invocation)).await?;
            }
            Ok(())
        })
        .await
    }

    /// Runs `work` on the store's thread (started on first use).
    fn on_worker<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static {
        let worker = match self.worker.get() {
            Some(worker) => Ok(worker),
            None => {
                Worker::start(&self.shared.name).map(|worker| self.worker.get_or_init(|| worker))
            }
        };
        let answer = worker.map(|worker| worker.run(&self.shared.name, work));
        async move { answer?.await }
    }

    /// Runs the script on `key`'s bucket: `(admitted, wait in µs)`.
    fn run(
        &self,
        key: &Key<'_>,
        limit: Limit,
        mode: &'static str,
    ) -> impl Future<Output = Result<(bool, u64), StoreError>> + Send + 'static {
        let (bucket, epoch) = self.keys(key);
        let max = u64::from(limit.max.max(1));
        let per = u64::try_from(limit.per.as_nanos().div_ceil(1_000))
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_PER_MICROS);
        let shared = Arc::clone(&self.shared);
        self.on_worker(async move {
            let mut invocation = shared.script.key(bucket);
            invocation
                .key(epoch)
                .arg(per / max)
                .arg(per % max)
                .arg(max)
                .arg(per)
                .arg(mode);
            let mut connection = shared.connection().await?;
            let (admitted, wait) = shared
                .call(connection.invoke::<(u8, u64)>(&invocation))
                .await?;
            Ok((admitted == 1, wait))
        })
    }

    /// Admits a call or says how long to wait, by the server's clock.
    pub async fn admit(&self, key: &Key<'_>, limit: Limit) -> Result<Admission, StoreError> {
        self.decide(key, limit).await
    }

    /// Gives back an admitted call.
    pub async fn give_back(&self, key: &Key<'_>, limit: Limit) -> Result<(), StoreError> {
        self.run(key, limit, "release").await.map(|_| ())
    }

    fn decide(
        &self,
        key: &Key<'_>,
        limit: Limit,
    ) -> impl Future<Output = Result<Admission, StoreError>> + Send + 'static {
        let answer = self.run(key, limit, "acquire");
        async move {
            let (admitted, wait) = answer.await?;
            Ok(if admitted {
                Admission::Admitted
            } else {
                Admission::RetryAfter(Duration::from_micros(wait.max(1)))
            })
        }
    }
}

impl Shared {
    /// The connection, made on first use (on the worker's runtime, where it
    /// then lives) and remade by itself after a failure. A cluster's is
    /// made by asking a node for the slots: if that fails, the next
    /// decision asks again.
    async fn connection(&self) -> Result<Connection, StoreError> {
        self.connection
            .get_or_try_init(|| async {
                match &self.target {
                    Target::Single(client) => {
                        // Quick retries only: a decision waits for them, and
                        // the next decision tries again anyway.
                        let config = ConnectionManagerConfig::new()
                            .set_number_of_retries(2)
                            .set_min_delay(Duration::from_millis(20))
                            .set_max_delay(Duration::from_millis(200))
                            .set_connection_timeout(Some(REDIS_TIMEOUT / 2))
                            .set_response_timeout(Some(REDIS_TIMEOUT / 2));
                        ConnectionManager::new_lazy_with_config(client.clone(), config)
                            .map(Connection::Single)
                            .map_err(|error| self.fail(&error))
                    }
                    Target::Cluster(cluster) => self
                        .call(cluster.client.get_async_connection())
                        .await
                        .map(Connection::Cluster),
                }
            })
            .await
            .cloned()
    }

    /// Waits for Redis at most [`REDIS_TIMEOUT`].
    async fn call<T>(
        &self,
        answer: impl Future<Output = Result<T, RedisError>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(REDIS_TIMEOUT, answer).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(error)) => Err(self.fail(&error)),
            Err(_) => Err(StoreError::new(
                self.name.clone(),
                format!(
                    "unreachable: no answer within {}",
                    humantime::format_duration(REDIS_TIMEOUT)
                ),
            )),
        }
    }

    fn fail(&self, error: &RedisError) -> StoreError {
        let name = self.name.clone();
        if error.is_io_error()
            || error.is_connection_refusal()
            || error.is_timeout()
            || error.is_connection_dropped()
        {
            if let Some(refusal) = tls::refusal(error) {
                return StoreError::new(name, refusal);
            }
            StoreError::new(name, format!("unreachable: {error}"))
        } else {
            StoreError::new(name, format!("failed: {error}"))
        }
    }
}

impl Store for RedisStore {
    /// `now` is not read: the server's clock decides (see [`RedisStore`]).
    fn acquire<'a>(
        &'a self,
        key: &Key<'_>,
        limit: Limit,
        _now: Duration,
    ) -> Deferred<'a, Result<Admission, StoreError>> {
        Deferred::Later(Box::pin(self.decide(key, limit)))
    }

    fn release<'a>(&'a self, key: &Key<'_>, limit: Limit) -> Deferred<'a, Result<(), StoreError>> {
        let answer = self.run(key, limit, "release");
        Deferred::Later(Box::pin(async move { answer.await.map(|_| ()) }))
    }
}
