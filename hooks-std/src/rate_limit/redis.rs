//! Buckets in Redis, shared by every replica of a service: see [`RedisStore`].

use std::sync::OnceLock;
use std::time::Duration;

use hooks_core::Deferred;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisError, Script};

use super::{Admission, Key, Limit, Store, StoreError};

/// The longest a decision waits for Redis before it is an error: a
/// connection and a script load included.
pub const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// Every key the store writes starts with this.
pub const REDIS_NAMESPACE: &str = "hooks:rl:";

/// The longest window counted exactly: times stay below 2^53 µs (see [`RedisStore`]).
const MAX_PER_MICROS: u64 = 1 << 52;

/// The GCRA, in one script. `KEYS[1]`: the bucket. `ARGV`: the whole
/// microseconds and the remainder (in `1/max` µs) one call costs, `max`,
/// `per` in µs, and `acquire` or `release`. Answers `{1, 0}` (admitted or
/// given back) or `{0, wait in µs}`. The stored value is `"<µs> <remainder> <max>"`.
const GCRA: &str = r"
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local q, r = tonumber(ARGV[1]), tonumber(ARGV[2])
local max, per = tonumber(ARGV[3]), tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local us, frac = now, 0
local stored = redis.call('GET', key)
if stored then
  local s_us, s_frac, s_max = string.match(stored, '^(%d+) (%d+) (%d+)$')
  if not s_us then
    return redis.error_reply('rate-limit bucket ' .. key .. ' holds ' .. stored .. ', not a time')
  end
  us, frac = tonumber(s_us), tonumber(s_frac)
  if tonumber(s_max) ~= max then
    -- Counted under another max: the remainder is in other units. Round up
    -- to the microsecond: the same time, give or take less than 1 us.
    if frac > 0 then us = us + 1 end
    frac = 0
  end
end
local function save()
  -- Full again at us + frac/max, before now + floor((us - now) / 1000) + 1 ms.
  local ttl = math.floor((us - now) / 1000) + 1
  redis.call('SET', key, string.format('%.0f %.0f %.0f', us, frac, max), 'PX', string.format('%.0f', ttl))
end
if ARGV[5] == 'release' then
  if not stored then return {1, 0} end
  us, frac = us - q, frac - r
  if frac < 0 then us, frac = us - 1, frac + max end
  if us < now or (us == now and frac == 0) then
    redis.call('DEL', key)
  else
    save()
  end
  return {1, 0}
end
if us < now then us, frac = now, 0 end
us, frac = us + q, frac + r
if frac >= max then us, frac = us + 1, frac - max end
local ahead = us - now
if ahead > per or (ahead == per and frac > 0) then
  local wait = ahead - per
  if frac > 0 then wait = wait + 1 end
  return {0, wait}
end
save()
return {1, 0}
";

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
/// **Keys** are `hooks:rl:` + the store's prefix + the key as tagged JSON
/// (values of different kinds never share a bucket; one longer than
/// [`MAX_PART_LEN`](super::MAX_PART_LEN) bytes as its SHA-256), and each expires when
/// its bucket is full again (`PX`), so idle buckets cost nothing.
///
/// **Outages.** The connection is made on first use and remade after a
/// failure; a decision that gets no answer within [`REDIS_TIMEOUT`] is an
/// error saying Redis is unreachable and where, which denies the call (or,
/// with [`OnStoreError::Allow`](super::OnStoreError::Allow), lets it through
/// uncounted). When Redis is back, calls are counted again. The
/// connection lives in the tokio runtime that first uses it, which needs
/// its time driver (`enable_time`).
///
/// [`RateLimit::store`](super::RateLimit::store) opens one; by hand,
/// `RateLimiter::new(config)?.with_store(RedisStore::open("redis://127.0.0.1/")?)`.
pub struct RedisStore {
    client: Client,
    connection: OnceLock<ConnectionManager>,
    prefix: String,
    address: String,
    script: Script,
}

impl RedisStore {
    /// A store on the server at `url` (`redis://[:password@]host[:port][/db]`,
    /// or `redis+unix:///path/to/socket`). Nothing is connected yet: a
    /// malformed address is an error now, an unreachable server at the
    /// first decision.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        let client = Client::open(url).map_err(|error| {
            // The address may hold a password: name its scheme only.
            let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
            StoreError::new(
                "rate-limit store",
                format!("not a Redis address (`{scheme}://…`): {error}"),
            )
        })?;
        let info = client.get_connection_info();
        let address = format!("{}/{}", info.addr(), info.redis_settings().db());
        Ok(RedisStore {
            client,
            connection: OnceLock::new(),
            prefix: REDIS_NAMESPACE.to_owned(),
            address,
            script: Script::new(GCRA),
        })
    }

    /// Keys start `hooks:rl:<prefix>`: services sharing a server with
    /// different rules keep apart (rule numbers alone would collide).
    #[must_use]
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        self.prefix = format!("{REDIS_NAMESPACE}{prefix}");
        self
    }

    /// Where the server is (`host:port/db`, no password): what errors name.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The Redis key holding `key`'s bucket.
    pub fn redis_key(&self, key: &Key<'_>) -> String {
        format!("{}{}", self.prefix, super::sqlite::encode(key))
    }

    fn connection(&self) -> Result<ConnectionManager, StoreError> {
        if let Some(connection) = self.connection.get() {
            return Ok(connection.clone());
        }
        // Quick retries only: a decision waits for them, and the next
        // decision tries again anyway.
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_min_delay(Duration::from_millis(20))
            .set_max_delay(Duration::from_millis(200))
            .set_connection_timeout(Some(REDIS_TIMEOUT / 2))
            .set_response_timeout(Some(REDIS_TIMEOUT / 2));
        let connection = ConnectionManager::new_lazy_with_config(self.client.clone(), config)
            .map_err(|error| self.fail(&error))?;
        Ok(self.connection.get_or_init(|| connection).clone())
    }

    fn fail(&self, error: &RedisError) -> StoreError {
        let address = &self.address;
        if error.is_io_error()
            || error.is_connection_refusal()
            || error.is_timeout()
            || error.is_connection_dropped()
        {
            StoreError::new(
                format!("Redis at {address}"),
                format!("unreachable: {error}"),
            )
        } else {
            StoreError::new(format!("Redis at {address}"), format!("failed: {error}"))
        }
    }

    /// Runs the script on `key`'s bucket: `(admitted, wait in µs)`.
    async fn run(&self, key: String, limit: Limit, mode: &str) -> Result<(bool, u64), StoreError> {
        let mut connection = self.connection()?;
        let max = u64::from(limit.max.max(1));
        let per = u64::try_from(limit.per.as_nanos().div_ceil(1_000))
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_PER_MICROS);
        let mut invocation = self.script.key(key);
        invocation
            .arg(per / max)
            .arg(per % max)
            .arg(max)
            .arg(per)
            .arg(mode);
        let answer = tokio::time::timeout(
            REDIS_TIMEOUT,
            invocation.invoke_async::<(u8, u64)>(&mut connection),
        )
        .await;
        match answer {
            Ok(Ok((admitted, wait))) => Ok((admitted == 1, wait)),
            Ok(Err(error)) => Err(self.fail(&error)),
            Err(_) => Err(StoreError::new(
                format!("Redis at {}", self.address),
                format!(
                    "unreachable: no answer within {}",
                    humantime::format_duration(REDIS_TIMEOUT)
                ),
            )),
        }
    }

    /// Admits a call or says how long to wait, by the server's clock.
    pub async fn admit(&self, key: &Key<'_>, limit: Limit) -> Result<Admission, StoreError> {
        self.decide(self.redis_key(key), limit).await
    }

    /// Gives back an admitted call.
    pub async fn give_back(&self, key: &Key<'_>, limit: Limit) -> Result<(), StoreError> {
        self.run(self.redis_key(key), limit, "release")
            .await
            .map(|_| ())
    }

    async fn decide(&self, key: String, limit: Limit) -> Result<Admission, StoreError> {
        let (admitted, wait) = self.run(key, limit, "acquire").await?;
        Ok(if admitted {
            Admission::Admitted
        } else {
            Admission::RetryAfter(Duration::from_micros(wait.max(1)))
        })
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
        Deferred::Later(Box::pin(self.decide(self.redis_key(key), limit)))
    }

    fn release<'a>(&'a self, key: &Key<'_>, limit: Limit) -> Deferred<'a, Result<(), StoreError>> {
        let key = self.redis_key(key);
        Deferred::Later(Box::pin(async move {
            self.run(key, limit, "release").await.map(|_| ())
        }))
    }
}
