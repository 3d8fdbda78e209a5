//! Where audit records go.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use hooks_core::Deferred;
use serde::{Deserialize, Serialize};

use super::AuditRecord;

/// A destination for audit records.
///
/// A sink answers [`Deferred`]: a local file at once, a network sink later
/// (the future may borrow the sink, not the record: serialize what it
/// needs first). A call is acknowledged only once its record is written.
pub trait Sink: Send + Sync + 'static {
    /// Writes one record, durably as the sink promises, or says why not.
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>>;
}

impl<S: Sink> Sink for std::sync::Arc<S> {
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        (**self).write(record)
    }
}

/// How hard [`JsonLinesFile`] works to keep a record once `write` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Each record is handed to the operating system in one `write(2)` before
    /// `write` returns: it survives the process crashing or being killed, not
    /// the machine losing power. Costs one system call per record.
    #[default]
    Flush,
    /// Each record is also forced to the disk (`fdatasync`) before `write`
    /// returns: it survives power loss. Costs a disk flush per record —
    /// about 0.2 ms a record on the disk of BENCHMARKS.md.
    Sync,
}

/// Records as JSON Lines, appended to a file.
///
/// Each record is serialized whole and written with a single `write(2)` on a
/// file opened for appending, under a lock: writers in this process never
/// interleave, and the kernel appends each write whole, so other processes
/// appending to the same file do not tear lines either. A crash loses at
/// most the record being written.
pub struct JsonLinesFile {
    path: PathBuf,
    file: Mutex<File>,
    durability: Durability,
}

impl JsonLinesFile {
    /// Opens (or creates) `path` for appending.
    pub fn open(path: impl AsRef<Path>, durability: Durability) -> io::Result<Self> {
        let path = path.as_ref().to_owned();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(JsonLinesFile {
            path,
            file: Mutex::new(file),
            durability,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Sink for JsonLinesFile {
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        Deferred::Ready(self.append(record))
    }
}

impl JsonLinesFile {
    /// Appends one record in one `write(2)`.
    pub fn append(&self, record: &AuditRecord) -> io::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        // One write call for the whole line: `write_all` would split a short
        // write into two appends another process could land between.
        let written = file.write(&line)?;
        if written != line.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!(
                    "only {written} of {} bytes of the record were written",
                    line.len()
                ),
            ));
        }
        if self.durability == Durability::Sync {
            file.sync_data()?;
        }
        Ok(())
    }
}

/// Records as `tracing` events (target `hooks_std::audit`, level INFO), for
/// deployments that already ship logs somewhere.
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingSink;

impl Sink for TracingSink {
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        Deferred::Ready(
            serde_json::to_string(record)
                .map_err(io::Error::from)
                .map(|json| {
                    tracing::info!(target: "hooks_std::audit", record = %json, "tool call");
                }),
        )
    }
}
