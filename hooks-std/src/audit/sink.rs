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

    /// Whether the audit gate records each call before it runs (a `started`
    /// record), and lets it run only once that record is written. A sink
    /// that can lose its server between a call's start and its end says
    /// yes, so no call runs without a record. No by default.
    fn records_before_call(&self) -> bool {
        false
    }
}

impl<S: Sink> Sink for std::sync::Arc<S> {
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        (**self).write(record)
    }

    fn records_before_call(&self) -> bool {
        (**self).records_before_call()
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
///
/// **Rotation** (on Unix). Before each record the file is checked against its path: if
/// the path is gone (deleted, or renamed by `logrotate` without `create`) or
/// names another file (renamed and re-created), the path is opened anew
/// (created if missing) and the record goes there. If the file turns out to
/// have been deleted while the record was written, the record is written
/// again to the new file. So no record is written only into an unlinked
/// file; if the path cannot be reopened, the write fails and the audit hooks
/// fail closed (see [`OnFailure`](super::OnFailure)). `copytruncate` needs
/// nothing: appends follow the truncation.
pub struct JsonLinesFile {
    path: PathBuf,
    file: Mutex<Opened>,
    durability: Durability,
}

/// The open file and which file it is.
struct Opened {
    file: File,
    identity: Identity,
}

impl JsonLinesFile {
    /// Opens (or creates) `path` for appending.
    pub fn open(path: impl AsRef<Path>, durability: Durability) -> io::Result<Self> {
        let path = path.as_ref().to_owned();
        let file = Opened::open(&path)?;
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
    /// Appends one record in one `write(2)`, to the file the path names now.
    pub fn append(&self, record: &AuditRecord) -> io::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        let mut opened = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        opened.follow(&self.path)?;
        write_line(&mut opened.file, &line)?;
        // Deleted between the check and the write: the record is in no file
        // anyone can read. Write it where the path points now.
        if opened.unlinked()? {
            opened.reopen(&self.path)?;
            write_line(&mut opened.file, &line)?;
        }
        if self.durability == Durability::Sync {
            opened.file.sync_data()?;
        }
        Ok(())
    }
}

/// One write call for the whole line: `write_all` would split a short write
/// into two appends another process could land between.
fn write_line(file: &mut File, line: &[u8]) -> io::Result<()> {
    let written = file.write(line)?;
    if written != line.len() {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            format!(
                "only {written} of {} bytes of the record were written",
                line.len()
            ),
        ));
    }
    Ok(())
}

impl Opened {
    fn open(path: &Path) -> io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let identity = Identity::of(&file.metadata()?);
        Ok(Opened { file, identity })
    }

    fn reopen(&mut self, path: &Path) -> io::Result<()> {
        *self = Opened::open(path)?;
        tracing::info!(
            target: "hooks_std::audit",
            path = %path.display(),
            "the audit log was rotated or removed; reopened it at its path"
        );
        Ok(())
    }

    /// Reopens the path if it no longer names the open file.
    fn follow(&mut self, path: &Path) -> io::Result<()> {
        match std::fs::metadata(path) {
            Ok(now) if Identity::of(&now) == self.identity => Ok(()),
            Ok(_) => self.reopen(path),
            Err(error) if error.kind() == io::ErrorKind::NotFound => self.reopen(path),
            Err(error) => Err(error),
        }
    }

    /// Whether the open file has no name left.
    fn unlinked(&self) -> io::Result<bool> {
        Ok(Identity::links(&self.file.metadata()?) == 0)
    }
}

/// Which file a path or a handle is: device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity(u64, u64);

#[cfg(unix)]
impl Identity {
    fn of(metadata: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt as _;
        Identity(metadata.dev(), metadata.ino())
    }

    fn links(metadata: &std::fs::Metadata) -> u64 {
        use std::os::unix::fs::MetadataExt as _;
        metadata.nlink()
    }
}

/// Outside Unix, rotation is not detected: Windows refuses to delete or
/// rename a file another process holds open, unless it asked to share that.
#[cfg(not(unix))]
impl Identity {
    fn of(_: &std::fs::Metadata) -> Self {
        Identity(0, 0)
    }

    fn links(_: &std::fs::Metadata) -> u64 {
        1
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
