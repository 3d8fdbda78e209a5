//! What the SQLite stores (approvals, rate-limit buckets) share: opening a
//! file many processes may open at once.

use std::time::{Duration, Instant};

use rusqlite::{Connection, TransactionBehavior};

/// Switches to write-ahead logging. Another process opening the same new
/// file at once can make SQLite refuse the switch at once, without waiting
/// (it will not let a reader upgrade while another writer waits), so the
/// switch is retried, for as long as the busy timeout allows.
pub(crate) fn wal(connection: &Connection, busy_timeout: Duration) -> rusqlite::Result<()> {
    let deadline = Instant::now() + busy_timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy
                    && Instant::now() + pause < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            result => return result,
        }
    }
}

/// Brings the schema up to date, one migration per step (`PRAGMA
/// user_version` counts the steps applied). Read without a lock first: a
/// process per call finds it current and takes no write lock to open.
/// Otherwise the version is read again under the write lock, so two
/// processes opening a new file at once do not both run a migration.
pub(crate) fn migrate(connection: &mut Connection, migrations: &[&str]) -> rusqlite::Result<()> {
    let current = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    let version: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if version == current {
        return Ok(());
    }
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = transaction.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > migrations.len() {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISMATCH),
            Some(format!(
                "the database is at schema version {version}, newer than this program's {}",
                migrations.len()
            )),
        ));
    }
    for migration in &migrations[version..] {
        transaction.execute_batch(migration)?;
    }
    transaction.pragma_update(None, "user_version", current)?;
    transaction.commit()
}
