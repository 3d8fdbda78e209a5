//! Where buckets live: in memory by default, behind [`Store`] so a shared
//! store (Redis, a database) can hold them for many processes.

use std::borrow::Cow;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use hashbrown::{DefaultHashBuilder, Equivalent, HashMap};
use hooks_core::Deferred;

use super::Limit;

/// The most parts a bucket key may have (`by = [...]` entries).
pub const MAX_KEY_PARTS: usize = 4;

/// Which bucket a call counts against: a rule, and the values of its `by` parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key<'a> {
    rule: usize,
    parts: [Cow<'a, str>; MAX_KEY_PARTS],
    len: usize,
}

impl<'a> Key<'a> {
    pub(crate) fn new(rule: usize, values: impl IntoIterator<Item = Cow<'a, str>>) -> Self {
        let mut parts: [Cow<'a, str>; MAX_KEY_PARTS] = Default::default();
        let mut len = 0;
        for (slot, value) in parts.iter_mut().zip(values) {
            *slot = value;
            len += 1;
        }
        Key { rule, parts, len }
    }

    /// The rule's position in the configuration.
    pub fn rule(&self) -> usize {
        self.rule
    }

    /// The values of the rule's `by` parts, in order.
    pub fn parts(&self) -> &[Cow<'a, str>] {
        &self.parts[..self.len]
    }

    /// The same key, owning its parts: for work that outlives the call.
    pub fn into_owned(self) -> Key<'static> {
        Key {
            rule: self.rule,
            parts: self.parts.map(|part| Cow::Owned(part.into_owned())),
            len: self.len,
        }
    }
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.rule, self.parts().iter().map(|part| &**part), state);
    }
}

/// The same hash for borrowed and owned keys, so lookups need no allocation.
fn hash_key<'p, H: Hasher>(rule: usize, parts: impl Iterator<Item = &'p str>, state: &mut H) {
    rule.hash(state);
    for part in parts {
        part.hash(state);
    }
}

#[derive(Debug, PartialEq, Eq)]
struct OwnedKey {
    rule: usize,
    parts: Box<[Box<str>]>,
}

impl Hash for OwnedKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.rule, self.parts.iter().map(|part| &**part), state);
    }
}

impl Equivalent<OwnedKey> for Key<'_> {
    fn equivalent(&self, owned: &OwnedKey) -> bool {
        self.rule == owned.rule
            && self.len == owned.parts.len()
            && self
                .parts()
                .iter()
                .zip(&owned.parts)
                .all(|(a, b)| **a == **b)
    }
}

impl From<&Key<'_>> for OwnedKey {
    fn from(key: &Key<'_>) -> Self {
        OwnedKey {
            rule: key.rule,
            parts: key.parts().iter().map(|part| Box::from(&**part)).collect(),
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

/// A store could not answer (a network store that cannot be reached, say).
/// The rate limit denies the call: no call runs uncounted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

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
/// A lookup of a known bucket allocates nothing; a bucket idle long enough to
/// be full again is dropped when its shard grows past a few thousand buckets.
pub struct MemoryStore {
    shards: Box<[Mutex<Shard>]>,
    hasher: DefaultHashBuilder,
}

const SHARDS: usize = 16;
const SWEEP_ABOVE: usize = 4_096;

/// One shard's buckets, and the size at which idle ones are next swept.
struct Shard {
    buckets: HashMap<OwnedKey, u64>,
    /// Doubles past what a sweep leaves, so a shard full of busy buckets
    /// is not scanned again on every new key.
    sweep_at: usize,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        buckets: HashMap::new(),
                        sweep_at: SWEEP_ABOVE,
                    })
                })
                .collect(),
            hasher: DefaultHashBuilder::default(),
        }
    }
}

impl MemoryStore {
    fn shard(&self, key: &Key<'_>) -> &Mutex<Shard> {
        let hash = self.hasher.hash_one(key);
        &self.shards[usize::try_from(hash % SHARDS as u64).unwrap_or(0)]
    }
}

impl MemoryStore {
    /// Admits a call or says how long to wait: at once, in this process.
    pub fn admit(&self, key: &Key<'_>, limit: Limit, now: Duration) -> Admission {
        let mut shard = self
            .shard(key)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let admitted = if let Some(tat) = shard.buckets.get_mut(key) {
            limit.acquire(tat, now)
        } else {
            if shard.buckets.len() >= shard.sweep_at {
                let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
                shard.buckets.retain(|_, tat| *tat > now);
                shard.sweep_at = SWEEP_ABOVE.max(2 * shard.buckets.len());
            }
            let mut tat = 0;
            let admitted = limit.acquire(&mut tat, now);
            shard.buckets.insert(OwnedKey::from(key), tat);
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
        if let Some(tat) = shard.buckets.get_mut(key) {
            limit.release(tat);
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
    /// Time since some fixed point; must never go backwards.
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
        Key::new(0, [Cow::Owned(n.to_string())])
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
        let store = MemoryStore::default();
        // One call an hour: every bucket stays busy (not yet full again).
        let limit = Limit::new(1, Duration::from_secs(3_600));
        let now = Duration::from_secs(1);
        for n in 0..SHARDS * SWEEP_ABOVE * 2 {
            assert_eq!(store.admit(&key(n), limit, now), Admission::Admitted);
        }
        for (buckets, sweep_at) in sizes(&store) {
            // Nothing busy was dropped, and the next sweep waits for growth.
            assert!(buckets > SWEEP_ABOVE, "{buckets}");
            assert!(sweep_at > buckets, "{sweep_at} <= {buckets}");
        }
        // An hour on, every bucket is idle: the next sweep drops them.
        let later = now + Duration::from_secs(3_601);
        for n in 0..SHARDS * SWEEP_ABOVE * 4 {
            let _ = store.admit(&key(1_000_000 + n), limit, later);
        }
        let total: usize = sizes(&store).iter().map(|(buckets, _)| buckets).sum();
        assert!(total < SHARDS * SWEEP_ABOVE * 6, "{total}");
    }
}
