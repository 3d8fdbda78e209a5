//! Where buckets live: in memory by default, behind [`Store`] so a shared
//! store (Redis, a database) can hold them for many processes.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hashbrown::{DefaultHashBuilder, Equivalent, HashMap};
use hooks_core::Deferred;
use sha2::{Digest as _, Sha256};

use super::Limit;

/// The most parts a bucket key may have (`by = [...]` entries).
pub const MAX_KEY_PARTS: usize = 4;

/// The longest value, in bytes, a key keeps as it is: a longer one is kept
/// as its SHA-256 ([`Part::Digest`]). So a key is small whatever a session
/// carries (a 10 MB user id makes a 32-byte part, in memory, in SQLite and
/// in Redis), and ordinary values stay readable in a store.
pub const MAX_PART_LEN: usize = 128;

/// One `by` value of a key, typed: values of different kinds never share a
/// bucket — no user and an empty user id, the number `7` and the string
/// `"7"` (or any string made to look like another kind's encoding) are
/// different buckets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Part<'a> {
    /// No value: no user id, or the metadata key is absent.
    #[default]
    Absent,
    /// A string value.
    Text(Cow<'a, str>),
    /// Any other JSON value (number, bool, null, array, object), as JSON text.
    Json(Cow<'a, str>),
    /// A text or JSON value longer than [`MAX_PART_LEN`] bytes, as the
    /// SHA-256 of its kind and its bytes ([`Key::new`] makes it): values
    /// that differ anywhere, or in kind, keep different buckets (two sharing
    /// one would take a SHA-256 collision), in 32 bytes.
    Digest([u8; 32]),
}

impl Part<'_> {
    /// The same part, owning its text.
    pub fn into_owned(self) -> Part<'static> {
        match self {
            Part::Absent => Part::Absent,
            Part::Text(text) => Part::Text(Cow::Owned(text.into_owned())),
            Part::Json(json) => Part::Json(Cow::Owned(json.into_owned())),
            Part::Digest(digest) => Part::Digest(digest),
        }
    }

    /// The part a key keeps: a value over [`MAX_PART_LEN`] bytes as its digest.
    fn bounded(self) -> Self {
        match &self {
            Part::Text(text) if text.len() > MAX_PART_LEN => Part::Digest(digest(*b"text", text)),
            Part::Json(json) if json.len() > MAX_PART_LEN => Part::Digest(digest(*b"json", json)),
            _ => self,
        }
    }
}

/// SHA-256 of a kind (four bytes, so no kind is another's prefix) and a value.
fn digest(kind: [u8; 4], value: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(kind);
    hasher.update(value.as_bytes());
    hasher.finalize().into()
}

/// Which bucket a call counts against: a rule, and the values of its `by` parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key<'a> {
    rule: usize,
    parts: [Part<'a>; MAX_KEY_PARTS],
    len: usize,
}

impl<'a> Key<'a> {
    /// The key of rule number `rule` (its position in the configuration)
    /// for these values; past [`MAX_KEY_PARTS`] they are ignored, and one
    /// longer than [`MAX_PART_LEN`] bytes is kept as its [`Part::Digest`].
    /// For testing a [`Store`]: the limiter makes its own keys.
    pub fn new(rule: usize, values: impl IntoIterator<Item = Part<'a>>) -> Self {
        let mut parts: [Part<'a>; MAX_KEY_PARTS] = Default::default();
        let mut len = 0;
        for (slot, value) in parts.iter_mut().zip(values) {
            *slot = value.bounded();
            len += 1;
        }
        Key { rule, parts, len }
    }

    /// The rule's position in the configuration.
    pub fn rule(&self) -> usize {
        self.rule
    }

    /// The values of the rule's `by` parts, in order.
    pub fn parts(&self) -> &[Part<'a>] {
        &self.parts[..self.len]
    }

    /// The same key, owning its parts: for work that outlives the call.
    pub fn into_owned(self) -> Key<'static> {
        Key {
            rule: self.rule,
            parts: self.parts.map(Part::into_owned),
            len: self.len,
        }
    }
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.rule, self.parts().iter(), state);
    }
}

/// The same hash for borrowed and owned keys, so lookups need no allocation.
fn hash_key<'p, H: Hasher>(rule: usize, parts: impl Iterator<Item = &'p Part<'p>>, state: &mut H) {
    rule.hash(state);
    for part in parts {
        part.hash(state);
    }
}

#[derive(Debug, PartialEq, Eq)]
struct OwnedKey {
    rule: usize,
    parts: Box<[Part<'static>]>,
}

impl Hash for OwnedKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.rule, self.parts.iter(), state);
    }
}

impl Equivalent<OwnedKey> for Key<'_> {
    fn equivalent(&self, owned: &OwnedKey) -> bool {
        self.rule == owned.rule && self.parts() == &*owned.parts
    }
}

impl From<&Key<'_>> for OwnedKey {
    fn from(key: &Key<'_>) -> Self {
        OwnedKey {
            rule: key.rule,
            parts: key.parts().iter().cloned().map(Part::into_owned).collect(),
        }
    }
}

/// What a store says about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The call is counted and may go ahead.
    Admitted,
    /// The bucket is full; a call would be admitted after this long.
    RetryAfter(Duration),
}

pub use crate::store::StoreError;

/// Holds the buckets. Implementations must make [`acquire`](Store::acquire)
/// atomic per key: two calls racing for the last slot cannot both get it.
///
/// Answers are [`Deferred`]: a store in this process answers at once
/// ([`Deferred::Ready`], no allocation, no task), a network store with a
/// future ([`Deferred::Later`]) that the dispatcher waits on without
/// blocking its thread. The future may borrow the store, not the key: copy
/// what it needs ([`Key::into_owned`]).
pub trait Store: Send + Sync + 'static {
    /// Admits one call to `key`'s bucket under `limit` at `now`, or says how
    /// long until a call would be admitted.
    fn acquire<'a>(
        &'a self,
        key: &Key<'_>,
        limit: Limit,
        now: Duration,
    ) -> Deferred<'a, Result<Admission, StoreError>>;

    /// Gives back a call `acquire` admitted that did not go ahead (a later rule refused it).
    fn release<'a>(&'a self, key: &Key<'_>, limit: Limit) -> Deferred<'a, Result<(), StoreError>>;
}

/// The default store: buckets in this process's memory, in sharded maps.
///
/// A lookup of a known bucket allocates nothing. Memory is bounded: at most
/// [`DEFAULT_MAX_BUCKETS`] buckets unless set ([`with_capacity`](Self::with_capacity)),
/// split evenly over the shards. A bucket idle long enough to be full again
/// is dropped first (that loses nothing: a new bucket starts full). When a
/// shard is at its cap and every bucket in it is busy, a call for a *new*
/// key is refused, with the time until a bucket frees — never admitted by
/// dropping a busy bucket, which would hand its key a fresh burst. So a
/// flood of new keys (a session id per call) cannot grow memory, nor reset
/// anyone's count.
pub struct MemoryStore {
    shards: Box<[Mutex<Shard>]>,
    hasher: DefaultHashBuilder,
    shard_cap: usize,
}

/// The buckets a [`MemoryStore`] holds unless told otherwise: a few hundred
/// bytes each, under 1 KiB whatever the values (one past [`MAX_PART_LEN`]
/// bytes is kept as its digest).
pub const DEFAULT_MAX_BUCKETS: usize = 100_000;

const SHARDS: usize = 16;
const SWEEP_ABOVE: usize = 4_096;

/// One shard's buckets, and the size at which idle ones are next swept.
struct Shard {
    buckets: HashMap<OwnedKey, Bucket>,
    /// Doubles past what a sweep leaves, so a shard full of busy buckets
    /// is not scanned again on every new key.
    sweep_at: usize,
    /// When the earliest bucket of the last sweep is idle: until then a
    /// shard at its cap refuses new keys without scanning.
    next_free: Duration,
}

/// A bucket: its theoretical arrival time, and the limit that time is in.
struct Bucket {
    tat: u128,
    limit: Limit,
}

impl Shard {
    /// Drops the idle buckets, and notes when the next busy one frees.
    fn sweep(&mut self, now: Duration, cap: usize) {
        self.buckets
            .retain(|_, bucket| !bucket.limit.idle(bucket.tat, now));
        let soonest = self
            .buckets
            .values()
            .map(|bucket| bucket.limit.until_idle(bucket.tat, now))
            .min()
            .unwrap_or_default();
        // A refusal always waits a little: the bucket frees *after* this.
        self.next_free = now.saturating_add(soonest.max(Duration::from_nanos(1)));
        self.sweep_at = SWEEP_ABOVE.max(2 * self.buckets.len()).min(cap);
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_MAX_BUCKETS)
    }
}

impl MemoryStore {
    /// A store holding at most about `max_buckets` buckets (rounded up to a
    /// multiple of its 16 shards; at least one per shard).
    pub fn with_capacity(max_buckets: usize) -> Self {
        let shard_cap = max_buckets.div_ceil(SHARDS).max(1);
        MemoryStore {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        buckets: HashMap::new(),
                        sweep_at: SWEEP_ABOVE.min(shard_cap),
                        next_free: Duration::ZERO,
                    })
                })
                .collect(),
            hasher: DefaultHashBuilder::default(),
            shard_cap,
        }
    }

    /// How many buckets it holds now.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| {
                shard
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .buckets
                    .len()
            })
            .sum()
    }

    /// Whether it holds no bucket.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn shard(&self, key: &Key<'_>) -> &Mutex<Shard> {
        let hash = self.hasher.hash_one(key);
        &self.shards[usize::try_from(hash % SHARDS as u64).unwrap_or(0)]
    }

    /// Admits a call or says how long to wait: at once, in this process.
    pub fn admit(&self, key: &Key<'_>, limit: Limit, now: Duration) -> Admission {
        let mut shard = self
            .shard(key)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let admitted = if let Some(bucket) = shard.buckets.get_mut(key) {
            bucket.limit = limit;
            limit.acquire(&mut bucket.tat, now)
        } else {
            let full = shard.buckets.len() >= self.shard_cap;
            if full && now < shard.next_free {
                // Full of busy buckets: the newcomer waits until one frees.
                return Admission::RetryAfter(shard.next_free.saturating_sub(now));
            }
            if full || shard.buckets.len() >= shard.sweep_at {
                shard.sweep(now, self.shard_cap);
                if shard.buckets.len() >= self.shard_cap {
                    return Admission::RetryAfter(shard.next_free.saturating_sub(now));
                }
            }
            let mut tat = 0;
            let admitted = limit.acquire(&mut tat, now);
            shard
                .buckets
                .insert(OwnedKey::from(key), Bucket { tat, limit });
            admitted
        };
        match admitted {
            Ok(()) => Admission::Admitted,
            Err(wait) => Admission::RetryAfter(wait),
        }
    }

    /// Gives back an admitted call.
    pub fn give_back(&self, key: &Key<'_>, limit: Limit) {
        let mut shard = self
            .shard(key)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(bucket) = shard.buckets.get_mut(key) {
            limit.release(&mut bucket.tat);
        }
    }
}

impl Store for MemoryStore {
    fn acquire<'a>(
        &'a self,
        key: &Key<'_>,
        limit: Limit,
        now: Duration,
    ) -> Deferred<'a, Result<Admission, StoreError>> {
        Deferred::Ready(Ok(self.admit(key, limit, now)))
    }

    fn release<'a>(&'a self, key: &Key<'_>, limit: Limit) -> Deferred<'a, Result<(), StoreError>> {
        self.give_back(key, limit);
        Deferred::Ready(Ok(()))
    }
}

/// Where the limiter reads the time.
pub trait Clock: Send + Sync + 'static {
    /// Time since some fixed point, the same for every limiter sharing a
    /// store. It should not go backwards; if it does, buckets wait longer,
    /// and no more calls are admitted (see [`WallClock`]).
    fn now(&self) -> Duration;
}

/// The default clock: monotonic time since the first reading in this
/// process. One time base for the process, not per limiter, so limiters
/// sharing a store agree on what a bucket's time means.
#[derive(Debug, Default, Clone, Copy)]
pub struct MonotonicClock;

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed()
    }
}

/// Time since the UNIX epoch, by the system clock: the same in every
/// process on the machine, so the clock for a store they share
/// ([`SqliteStore`](super::SqliteStore)).
///
/// The system clock can jump. Set back, buckets wait the extra time: GCRA
/// admits a call only while the bucket is at most a burst ahead of now,
/// so an earlier now admits fewer calls, never more than the limit over
/// real time. Set forward, every bucket looks refilled: up to one extra
/// burst per bucket. A clock before the epoch reads zero.
#[derive(Debug, Default, Clone, Copy)]
pub struct WallClock;

impl Clock for WallClock {
    fn now(&self) -> Duration {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    }
}

/// A clock that moves only when told: for tests that must not depend on timing.
#[derive(Debug)]
pub struct ManualClock(Mutex<Duration>);

impl ManualClock {
    /// A clock reading `start`.
    pub fn new(start: Duration) -> Self {
        ManualClock(Mutex::new(start))
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<C: Clock> Clock for std::sync::Arc<C> {
    fn now(&self) -> Duration {
        (**self).now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: usize) -> Key<'static> {
        Key::new(0, [Part::Text(Cow::Owned(n.to_string()))])
    }

    fn sizes(store: &MemoryStore) -> Vec<(usize, usize)> {
        store
            .shards
            .iter()
            .map(|shard| {
                let shard = shard.lock().unwrap();
                (shard.buckets.len(), shard.sweep_at)
            })
            .collect()
    }

    #[test]
    fn busy_buckets_are_kept_and_not_rescanned_on_every_new_key() {
        let store = MemoryStore::with_capacity(usize::MAX / 2);
        // One call an hour: every bucket stays busy (not yet full again).
        let limit = Limit::new(1, Duration::from_secs(3_600));
        let now = Duration::from_secs(1);
        for n in 0..SHARDS * SWEEP_ABOVE * 2 {
            assert_eq!(store.admit(&key(n), limit, now), Admission::Admitted);
        }
        for (buckets, sweep_at) in sizes(&store) {
            // Nothing busy was dropped, and the next sweep waits for growth
            // (a shard may have just reached its next sweep size: equal is fine).
            assert!(buckets > SWEEP_ABOVE, "{buckets}");
            assert!(sweep_at >= buckets, "{sweep_at} < {buckets}");
            assert!(
                sweep_at >= 2 * SWEEP_ABOVE,
                "{sweep_at}: the size doubled past the first sweep"
            );
        }
        // An hour on, every bucket is idle: the next sweep drops them.
        let later = now + Duration::from_secs(3_601);
        for n in 0..SHARDS * SWEEP_ABOVE * 4 {
            let _ = store.admit(&key(1_000_000 + n), limit, later);
        }
        let total: usize = sizes(&store).iter().map(|(buckets, _)| buckets).sum();
        assert!(total < SHARDS * SWEEP_ABOVE * 6, "{total}");
    }

    #[test]
    fn a_flood_of_new_keys_is_refused_at_the_cap_and_busy_buckets_are_kept() {
        let store = MemoryStore::with_capacity(64);
        let limit = Limit::new(1, Duration::from_secs(60));
        let now = Duration::from_secs(1);
        let mut admitted = Vec::new();
        let mut refused = 0;
        for n in 0..10_000 {
            match store.admit(&key(n), limit, now) {
                Admission::Admitted => admitted.push(n),
                Admission::RetryAfter(wait) => {
                    assert_eq!(
                        wait,
                        Duration::from_secs(60),
                        "until the first bucket frees"
                    );
                    refused += 1;
                }
            }
        }
        assert!(store.len() <= 64, "{}", store.len());
        assert_eq!(admitted.len(), store.len());
        assert_eq!(refused, 10_000 - admitted.len());
        // No admitted key got a fresh burst by eviction.
        for &n in &admitted {
            assert!(matches!(
                store.admit(&key(n), limit, now),
                Admission::RetryAfter(_)
            ));
        }
        // A minute on, the buckets are idle again, and new keys get room.
        let later = now + Duration::from_secs(60);
        assert_eq!(store.admit(&key(20_000), limit, later), Admission::Admitted);
        assert!(store.len() <= 64);
    }
}
