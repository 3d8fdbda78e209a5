//! Buckets in a SQLite file, shared by every process that opens it: for a
//! hook run as a new process per event (a Claude Code command hook), whose
//! counts must outlive the process.
//!
//! Each [`acquire`](Store::acquire) is one `BEGIN IMMEDIATE` transaction
//! that reads the bucket, admits or refuses, and writes it back: processes
//! racing for the last slot take SQLite's write lock in turn, so exactly
//! `max` of them get a burst of `max`. A bucket's time must mean the same in
//! every process, so count by [`WallClock`](super::WallClock) (setting
//! [`RateLimit::database`](super::RateLimit::database) opens the store with
//! it); [`MonotonicClock`](super::MonotonicClock) starts at zero in each
//! process. [`SqliteStore`] has an example.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use hooks_core::Deferred;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::{Value, json};

use super::{Admission, Key, Limit, Part, Store, StoreError};

/// How long a call waits for another process's transaction before it is
/// refused as "cannot be checked". Transactions here last microseconds; a
/// wait this long means something holds the file (a `sqlite3` shell, say).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// The schema, one migration per step; `PRAGMA user_version` counts the steps applied.
const MIGRATIONS: &[&str] = &[
    // 1: buckets. `tat` is in units of 1/`max` ns since the UNIX epoch,
    // decimal (a u128); `idle_at` (ns, capped at i64::MAX) is when the bucket
    // is full again, for dropping idle rows by index.
    "CREATE TABLE buckets (
         key     TEXT PRIMARY KEY,
         tat     TEXT NOT NULL,
         max     INTEGER NOT NULL,
         idle_at INTEGER NOT NULL
     ) WITHOUT ROWID;
     CREATE INDEX buckets_by_idle_at ON buckets (idle_at);",
];

/// At most this many idle rows are dropped per call: the table stays near
/// the number of busy buckets, and no call pays for a big sweep.
const SWEEP_PER_CALL: u32 = 8;

/// Buckets in a SQLite file, shared by every process that opens it: each
/// call is one `BEGIN IMMEDIATE` transaction, so processes racing for the
/// last slot cannot both get it. Count by [`WallClock`](super::WallClock),
/// the time every process agrees on.
///
/// Answers come at once ([`Deferred::Ready`]): a transaction takes
/// microseconds, and a wait for another process's lock is bounded by
/// [`BUSY_TIMEOUT`], past which the call is refused — so the dispatcher's
/// thread is blocked at most that long, and only while another process holds
/// the file.
///
/// [`RateLimit::database`](super::RateLimit::database) opens one with the
/// wall clock; by hand, `RateLimiter::new(config)?.with_store(SqliteStore::open(path)?).with_clock(WallClock)`.
///
/// ```
/// use std::time::Duration;
/// use hooks_core::Deferred;
/// use hooks_core::prelude::*;
/// use hooks_std::rate_limit::{RateLimit, RateLimiter, Rule};
///
/// let dir = std::env::temp_dir().join(format!("hooks-std-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("counts.db");
/// # let _ = std::fs::remove_file(&path);
/// let mut config = RateLimit::new(vec![Rule::new(1, Duration::from_secs(3_600))]);
/// config.database = Some(path);
///
/// let session = Session::new("s").with_user("dana");
/// let call = PreToolUse::new(&session, "search", json!({}));
/// let first = RateLimiter::new(config.clone()).unwrap();
/// let Deferred::Ready(decision) = first.check(&call) else { unreachable!() };
/// assert_eq!(decision, Decision::Continue);
/// // Another limiter on the file, as another process would be, finds the slot taken.
/// let second = RateLimiter::new(config).unwrap();
/// let Deferred::Ready(decision) = second.check(&call) else { unreachable!() };
/// assert!(matches!(decision, Decision::Deny(_)));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct SqliteStore {
    path: PathBuf,
    connection: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens the database at `path`, creating the file and its table if
    /// needed. A file that is not a SQLite database (or one another process
    /// holds locked past [`BUSY_TIMEOUT`]) is an error naming the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_owned();
        let fail = |error: rusqlite::Error| failure(&path, &error);
        let mut connection = Connection::open(&path).map_err(fail)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
        crate::sqlite::wal(&connection, BUSY_TIMEOUT).map_err(fail)?;
        // Without an fsync per call: a power cut may lose the last few
        // counts (a few calls admitted again), never corrupt the file.
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(fail)?;
        crate::sqlite::migrate(&mut connection, MIGRATIONS).map_err(fail)?;
        Ok(SqliteStore {
            path,
            connection: Mutex::new(connection),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self, error: &rusqlite::Error) -> StoreError {
        failure(&self.path, error)
    }

    /// One transaction holding the write lock from its start, so no other
    /// process writes the bucket between our read and our write.
    fn write<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let mut connection = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|error| self.fail(&error))?;
        let result = work(&transaction).map_err(|error| self.fail(&error))?;
        transaction.commit().map_err(|error| self.fail(&error))?;
        Ok(result)
    }

    /// Admits a call or says how long to wait, in one transaction.
    pub fn admit(
        &self,
        key: &Key<'_>,
        limit: Limit,
        now: Duration,
    ) -> Result<Admission, StoreError> {
        let key = encode(key);
        self.write(|transaction| {
            let mut tat = read(transaction, &key, limit)?.unwrap_or(0);
            let admitted = limit.acquire(&mut tat, now);
            if admitted.is_ok() {
                store(transaction, &key, limit, tat)?;
            }
            // Dropping an idle bucket loses nothing: a new one starts full.
            transaction.execute(
                "DELETE FROM buckets WHERE key IN
                         (SELECT key FROM buckets WHERE idle_at <= ?1 LIMIT ?2)",
                params![nanos(now), SWEEP_PER_CALL],
            )?;
            Ok(match admitted {
                Ok(()) => Admission::Admitted,
                Err(wait) => Admission::RetryAfter(wait),
            })
        })
    }

    /// Gives back an admitted call.
    pub fn give_back(&self, key: &Key<'_>, limit: Limit) -> Result<(), StoreError> {
        let key = encode(key);
        self.write(|transaction| {
            if let Some(mut tat) = read(transaction, &key, limit)? {
                limit.release(&mut tat);
                store(transaction, &key, limit, tat)?;
            }
            Ok(())
        })
    }
}

impl Store for SqliteStore {
    fn acquire<'a>(
        &'a self,
        key: &Key<'_>,
        limit: Limit,
        now: Duration,
    ) -> Deferred<'a, Result<Admission, StoreError>> {
        Deferred::Ready(self.admit(key, limit, now))
    }

    fn release<'a>(&'a self, key: &Key<'_>, limit: Limit) -> Deferred<'a, Result<(), StoreError>> {
        Deferred::Ready(self.give_back(key, limit))
    }
}

fn failure(path: &Path, error: &rusqlite::Error) -> StoreError {
    StoreError::new(format!("rate-limit store `{}`", path.display()), error)
}

/// The key as text, one tagged part each: `[rule, ["text", "7"], ["json",
/// "7"], ["absent"], ["sha256", "9f86…"]]`. JSON text is unambiguous, so no
/// two keys share a row (nor a Redis key).
pub(super) fn encode(key: &Key<'_>) -> String {
    let mut parts = Vec::with_capacity(1 + key.parts().len());
    parts.push(json!(key.rule()));
    parts.extend(key.parts().iter().map(|part| match part {
        Part::Absent => json!(["absent"]),
        Part::Text(text) => json!(["text", text]),
        Part::Json(json) => json!(["json", json]),
        Part::Digest(digest) => {
            let hex = digest
                .iter()
                .fold(String::with_capacity(64), |mut hex, byte| {
                    let _ = write!(hex, "{byte:02x}");
                    hex
                });
            json!(["sha256", hex])
        }
    }));
    Value::Array(parts).to_string()
}

/// The bucket's tat in `limit`'s units, if it has a row. A row counted under
/// another `max` (the configuration changed) is converted, rounding up: the
/// same time, so neither a fresh burst nor a wait of decades.
fn read(transaction: &Transaction<'_>, key: &str, limit: Limit) -> rusqlite::Result<Option<u128>> {
    let row: Option<(String, u32)> = transaction
        .query_row(
            "SELECT tat, max FROM buckets WHERE key = ?1",
            [key],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let Some((text, max)) = row else {
        return Ok(None);
    };
    let tat: u128 = text.parse().map_err(|_| {
        rusqlite::Error::InvalidColumnType(0, format!("tat {text:?}"), rusqlite::types::Type::Text)
    })?;
    let (max, now_max) = (u128::from(max.max(1)), u128::from(limit.max.max(1)));
    Ok(Some(if max == now_max {
        tat
    } else {
        tat.div_ceil(max).saturating_mul(now_max)
    }))
}

fn store(
    transaction: &Transaction<'_>,
    key: &str,
    limit: Limit,
    tat: u128,
) -> rusqlite::Result<()> {
    let max = u128::from(limit.max.max(1));
    let idle_at = i64::try_from(tat.div_ceil(max)).unwrap_or(i64::MAX);
    transaction.execute(
        "INSERT INTO buckets (key, tat, max, idle_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (key) DO UPDATE SET tat = ?2, max = ?3, idle_at = ?4",
        params![key, tat.to_string(), limit.max, idle_at],
    )?;
    Ok(())
}

fn nanos(time: Duration) -> i64 {
    i64::try_from(time.as_nanos()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);
    /// Wall-clock-like: far from zero, as real times are.
    const NOW: Duration = Duration::from_secs(1_750_000_000);

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hooks-std-rate-sqlite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        path
    }

    fn text(value: &str) -> Part<'_> {
        Part::Text(Cow::Borrowed(value))
    }

    fn rows(store: &SqliteStore) -> i64 {
        let connection = store.connection.lock().unwrap();
        connection
            .query_row("SELECT count(*) FROM buckets", [], |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn a_burst_of_exactly_max_then_retry_after() {
        let store = SqliteStore::open(temp("burst.db")).unwrap();
        let key = Key::new(0, [text("dana")]);
        let limit = Limit::new(3, MINUTE);
        for _ in 0..3 {
            assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        }
        assert_eq!(
            store.admit(&key, limit, NOW),
            Ok(Admission::RetryAfter(Duration::from_secs(20)))
        );
        // Another key has its own bucket.
        let other = Key::new(0, [text("lee")]);
        assert_eq!(store.admit(&other, limit, NOW), Ok(Admission::Admitted));
    }

    #[test]
    fn a_bucket_refills_one_call_per_interval() {
        let store = SqliteStore::open(temp("refill.db")).unwrap();
        let key = Key::new(0, [text("dana")]);
        let limit = Limit::new(3, MINUTE);
        for _ in 0..3 {
            assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        }
        let later = NOW + Duration::from_secs(15);
        assert_eq!(
            store.admit(&key, limit, later),
            Ok(Admission::RetryAfter(Duration::from_secs(5)))
        );
        let later = NOW + Duration::from_secs(20);
        assert_eq!(store.admit(&key, limit, later), Ok(Admission::Admitted));
        assert!(matches!(
            store.admit(&key, limit, later),
            Ok(Admission::RetryAfter(_))
        ));
        // A whole window on, a whole burst again, and no more.
        let later = NOW + 2 * MINUTE;
        for _ in 0..3 {
            assert_eq!(store.admit(&key, limit, later), Ok(Admission::Admitted));
        }
        assert!(matches!(
            store.admit(&key, limit, later),
            Ok(Admission::RetryAfter(_))
        ));
    }

    #[test]
    fn a_released_slot_can_be_taken_again() {
        let store = SqliteStore::open(temp("release.db")).unwrap();
        let key = Key::new(0, [text("dana")]);
        let limit = Limit::new(2, MINUTE);
        for _ in 0..2 {
            assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        }
        assert!(matches!(
            store.admit(&key, limit, NOW),
            Ok(Admission::RetryAfter(_))
        ));
        store.give_back(&key, limit).unwrap();
        assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        assert!(matches!(
            store.admit(&key, limit, NOW),
            Ok(Admission::RetryAfter(_))
        ));
        // Giving back to a bucket with no row creates none.
        store
            .give_back(&Key::new(0, [text("nobody")]), limit)
            .unwrap();
        assert_eq!(rows(&store), 1);
    }

    #[test]
    fn values_of_different_kinds_never_share_a_bucket() {
        let store = SqliteStore::open(temp("kinds.db")).unwrap();
        let limit = Limit::new(1, MINUTE);
        let json = |value: &'static str| Part::Json(Cow::Borrowed(value));
        let keys = [
            Key::new(0, [text("7")]),
            Key::new(0, [json("7")]),
            Key::new(0, [Part::Absent]),
            Key::new(0, [text("")]),
            Key::new(0, [text("null")]),
            Key::new(0, [json("null")]),
            Key::new(0, [text(r#"["text","7"]"#)]),
            Key::new(0, []),
            Key::new(1, [text("7")]),
            Key::new(0, [text("a"), text("b")]),
            Key::new(0, [text("a,b")]),
            Key::new(0, [text("a"), Part::Absent]),
        ];
        for key in &keys {
            assert_eq!(
                store.admit(key, limit, NOW),
                Ok(Admission::Admitted),
                "{key:?} shares a bucket with an earlier key"
            );
        }
        for key in &keys {
            assert!(matches!(
                store.admit(key, limit, NOW),
                Ok(Admission::RetryAfter(_))
            ));
        }
    }

    #[test]
    fn counts_outlive_the_store_that_made_them() {
        let path = temp("reopen.db");
        let key = Key::new(0, [text("dana")]);
        let limit = Limit::new(2, MINUTE);
        for _ in 0..2 {
            let store = SqliteStore::open(&path).unwrap();
            assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        }
        let store = SqliteStore::open(&path).unwrap();
        assert!(matches!(
            store.admit(&key, limit, NOW),
            Ok(Admission::RetryAfter(_))
        ));
    }

    #[test]
    fn a_changed_max_keeps_the_bucket_time() {
        let store = SqliteStore::open(temp("rescale.db")).unwrap();
        let key = Key::new(0, [text("dana")]);
        // Two of 100 a minute: 1.2 s ahead of now.
        for _ in 0..2 {
            let admitted = store.admit(&key, Limit::new(100, MINUTE), NOW);
            assert_eq!(admitted, Ok(Admission::Admitted));
        }
        // Now 10 a minute: the 1.2 s spent is a fifth of a call, so nine
        // more (not ten: no fresh burst), then a 1.2 s wait (not decades).
        let limit = Limit::new(10, MINUTE);
        for _ in 0..9 {
            assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        }
        assert_eq!(
            store.admit(&key, limit, NOW),
            Ok(Admission::RetryAfter(Duration::from_millis(1_200)))
        );
    }

    #[test]
    fn idle_buckets_are_dropped_a_few_per_call() {
        let store = SqliteStore::open(temp("sweep.db")).unwrap();
        let limit = Limit::new(1, MINUTE);
        let names: Vec<String> = (0..20).map(|n| n.to_string()).collect();
        for name in &names {
            let key = Key::new(0, [text(name)]);
            assert_eq!(store.admit(&key, limit, NOW), Ok(Admission::Admitted));
        }
        assert_eq!(rows(&store), 20);
        // Still busy a second before the minute is up: nothing dropped.
        let key = Key::new(0, [text("late")]);
        let almost = NOW + Duration::from_secs(59);
        assert_eq!(store.admit(&key, limit, almost), Ok(Admission::Admitted));
        assert_eq!(rows(&store), 21);
        // A minute on, every early bucket is idle: a few go per call.
        let later = NOW + MINUTE;
        let key = Key::new(0, [text("later")]);
        assert_eq!(store.admit(&key, limit, later), Ok(Admission::Admitted));
        assert_eq!(rows(&store), 22 - i64::from(SWEEP_PER_CALL));
        assert_eq!(
            store.admit(&key, limit, later + MINUTE),
            Ok(Admission::Admitted)
        );
        assert_eq!(
            store.admit(&key, limit, later + 2 * MINUTE),
            Ok(Admission::Admitted)
        );
        assert_eq!(rows(&store), 1, "only the bucket in use is left");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_error_naming_it() {
        let path = temp("not-a-database.db");
        std::fs::write(
            &path,
            "this is a text file, not a SQLite database\n".repeat(100),
        )
        .unwrap();
        let error = SqliteStore::open(&path).err().unwrap().to_string();
        assert!(
            error.starts_with(&format!("rate-limit store `{}`: ", path.display())),
            "{error}"
        );
        assert!(error.contains("not a database"), "{error}");
    }
}
