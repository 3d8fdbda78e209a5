//! The run of refused stops, kept between processes.
//!
//! hooks-core caps how many times in a row `stop` hooks may keep an agent
//! going (`stop_denial_cap`), counting in the [`Session`]. Each event the
//! host sends is a process of its own, so that count would start at zero
//! every time and the cap would never be reached: here it is carried over
//! in the state directory, one file per session and agent
//! (`stops/<sha256 of both>.count`, written whole to a temporary file and
//! renamed over), with a lock file beside it.
//!
//! The host's `stop_hook_active` says whether the stop before was refused:
//! `false` starts the run over (nothing is read or locked), `true` counts
//! on from the file, and at least from one. While such a stop runs, its
//! session's lock is held, so concurrent stops of one session count one
//! after the other; the count is written one higher before the hooks run,
//! so a process killed or timed out mid-stop counts as a refusal (the
//! direction of ending a loop). A stop let through removes both files.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hooks_core::{Session, Value, json};
use rustix::fs::{FlockOperation, flock};
use sha2::{Digest, Sha256};

/// Where the counts of one state directory live.
#[derive(Debug, Clone)]
pub(crate) struct StopCounts {
    dir: PathBuf,
}

/// One stop's place in its session's run, from before its hooks run to after.
#[derive(Debug)]
pub(crate) struct Run {
    count: PathBuf,
    lock: PathBuf,
    session: String,
    agent: String,
    /// The session's lock, while held.
    held: Option<File>,
    /// Refusals in a row before this stop.
    before: u32,
    /// What the file says now, if known.
    written: Option<u32>,
}

impl StopCounts {
    /// The counts under `state_dir` (made when a count is first written).
    pub(crate) fn new(state_dir: &Path) -> Self {
        StopCounts {
            dir: state_dir.join("stops"),
        }
    }

    /// Where the run stands as `session`'s stop begins (`active`: the host
    /// says the stop before was refused), capped at `cap`.
    pub(crate) async fn begin(
        &self,
        session: &Session,
        active: bool,
        cap: u32,
    ) -> Result<Run, String> {
        let key = key(session);
        let mut run = Run {
            count: self.dir.join(format!("{key}.count")),
            lock: self.dir.join(format!("{key}.lock")),
            session: session.id().to_owned(),
            agent: session.agent_id().to_owned(),
            held: None,
            before: 0,
            written: None,
        };
        if !active {
            return Ok(run);
        }
        run.hold().await?;
        let stored = run.read()?;
        run.before = stored.max(1).min(cap);
        run.write(run.before.saturating_add(1))?;
        Ok(run)
    }
}

impl Run {
    /// Refusals in a row before this stop: where the session's count resumes.
    pub(crate) fn before(&self) -> u32 {
        self.before
    }

    /// Ends the stop: `count` is the session's count after its hooks ran
    /// (0: the stop was let through).
    pub(crate) async fn finish(mut self, count: u32) -> Result<(), String> {
        if self.written == Some(count) {
            return Ok(());
        }
        if count == 0 && self.held.is_none() && !exists(&self.count)? {
            return Ok(());
        }
        if self.held.is_none() {
            self.hold().await?;
        }
        if count > 0 {
            return self.write(count);
        }
        // Removed while held: a process waiting on this lock file finds it
        // gone when it gets it, and opens the new one.
        for path in [&self.count, &self.lock] {
            match std::fs::remove_file(path) {
                Err(error) if error.kind() != ErrorKind::NotFound => {
                    return Err(trouble(path, &error));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Waits for the session's lock: other processes of the session hold it
    /// only for one stop (the whole wait is bounded by the binary's timeout).
    async fn hold(&mut self) -> Result<(), String> {
        let dir = self.count.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|error| trouble(dir, &error))?;
        let mut pause = Duration::from_millis(1);
        loop {
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.lock)
                .map_err(|error| trouble(&self.lock, &error))?;
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) if same_file(&file, &self.lock) => {
                    self.held = Some(file);
                    return Ok(());
                }
                // The holder removed it (its stop was let through): the
                // lock to take is the new file.
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(error) => return Err(trouble(&self.lock, &error.into())),
            }
        }
    }

    /// The stored count: 0 if there is none.
    fn read(&self) -> Result<u32, String> {
        let text = match std::fs::read_to_string(&self.count) {
            Ok(text) => text,
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(0),
            Err(error) => return Err(trouble(&self.count, &error)),
        };
        serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|value| value.get("refused")?.as_u64())
            .and_then(|count| u32::try_from(count).ok())
            .ok_or_else(|| {
                format!(
                    "{} is not a count of refused stops; remove it",
                    self.count.display()
                )
            })
    }

    /// Writes `count` whole: to a file of this process, then renamed over.
    fn write(&mut self, count: u32) -> Result<(), String> {
        let record = json!({"session_id": self.session, "agent_id": self.agent, "refused": count});
        let temporary = self
            .count
            .with_extension(format!("count.{}.tmp", std::process::id()));
        let written = File::create(&temporary)
            .and_then(|mut file| {
                file.write_all(format!("{record}\n").as_bytes())?;
                file.sync_all()
            })
            .and_then(|()| std::fs::rename(&temporary, &self.count));
        if let Err(error) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(trouble(&self.count, &error));
        }
        self.written = Some(count);
        Ok(())
    }
}

/// The file name of a session's agent: a hash, so any id is a safe name.
fn key(session: &Session) -> String {
    let mut hash = Sha256::new();
    hash.update(session.id().as_bytes());
    hash.update([0]);
    hash.update(session.agent_id().as_bytes());
    hash.finalize()
        .iter()
        .fold(String::with_capacity(64), |mut name, byte| {
            let _ = write!(name, "{byte:02x}");
            name
        })
}

/// Whether the open `file` is still the one at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

fn exists(path: &Path) -> Result<bool, String> {
    path.try_exists().map_err(|error| trouble(path, &error))
}

fn trouble(path: &Path, error: &std::io::Error) -> String {
    format!("{}: {error}", path.display())
}
