//! Directories of downloaded test tools in the target directory (the Python
//! venv, the npm packages), each built once per machine and reused while the
//! recipe it was built from (a pinned requirements or lock file) is unchanged.
//!
//! Test binaries and threads may ask for one at once: the first builds it
//! while holding a lock directory, the others wait, then find it built. A
//! failed build panics with the command and what it printed: a test never
//! skips because a tool or a package is missing.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// The copy of the recipe a finished build leaves in its directory; it is
/// written last, so a directory without it (or with another one) is rebuilt.
const STAMP: &str = ".hooks-mcp-recipe";

/// A lock whose owner cannot be checked is taken to be left by a killed run
/// once it is this old.
const STALE_LOCK: Duration = Duration::from_secs(15 * 60);

/// The directory `name` in Cargo's directory for integration tests' files,
/// built by `build` (into the empty directory it is given) unless a finished
/// build of the same `recipe` is there already.
pub(crate) fn built(name: &str, recipe: &str, build: impl FnOnce(&Path)) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if !is_current(&dir, recipe) {
        let _lock = Lock::acquire(&dir.with_extension("lock"));
        // Another process may have built it while this one waited.
        if !is_current(&dir, recipe) {
            match fs::remove_dir_all(&dir) {
                Ok(()) => {}
                Err(error) if error.kind() == ErrorKind::NotFound => {}
                Err(error) => panic!("removing the old {}: {error}", dir.display()),
            }
            fs::create_dir_all(&dir)
                .unwrap_or_else(|error| panic!("creating {}: {error}", dir.display()));
            build(&dir);
            // Written to a temporary name and renamed, so no reader sees half a stamp.
            let partial = dir.join(format!("{STAMP}.partial"));
            write(&partial, recipe);
            fs::rename(&partial, dir.join(STAMP))
                .unwrap_or_else(|error| panic!("finishing {}: {error}", dir.display()));
        }
    }
    dir
}

/// Runs one step of a build; `needs` says what must be installed for the
/// command to start at all (`"the tests need python3 >= 3.10 on PATH"`).
pub(crate) fn run(command: &mut Command, needs: &str) {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("could not run {shown}: {error} ({needs})"));
    assert!(
        output.status.success(),
        "{shown} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}

pub(crate) fn write(path: &Path, contents: &str) {
    fs::write(path, contents).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
}

fn is_current(dir: &Path, recipe: &str) -> bool {
    fs::read_to_string(dir.join(STAMP)).is_ok_and(|stamp| stamp == recipe)
}

/// An exclusive lock across processes: a directory, since creating one is
/// atomic everywhere. It holds the owner's pid, so a waiter can tell a lock
/// left by a killed run from one still in use.
struct Lock(PathBuf);

impl Lock {
    fn acquire(path: &Path) -> Lock {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .unwrap_or_else(|error| panic!("creating {}: {error}", parent.display()));
        }
        loop {
            match fs::create_dir(path) {
                Ok(()) => {
                    write(&path.join("pid"), &std::process::id().to_string());
                    return Lock(path.to_owned());
                }
                Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                    if is_stale(path) {
                        break_lock(path);
                    } else {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
                Err(error) => panic!("creating the lock {}: {error}", path.display()),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn is_stale(lock: &Path) -> bool {
    // Where processes can be looked up, the owner's pid decides.
    let proc = Path::new("/proc");
    if proc.is_dir()
        && let Ok(pid) = fs::read_to_string(lock.join("pid"))
    {
        return !proc.join(pid.trim()).exists();
    }
    // A lock with no pid yet is being taken right now, unless it is old.
    fs::metadata(lock)
        .and_then(|metadata| metadata.modified())
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .is_some_and(|age| age > STALE_LOCK)
}

fn break_lock(lock: &Path) {
    // Renamed first: of several waiters that found it stale, one moves it away
    // and the others find it gone.
    let moved = lock.with_extension(format!("stale-{}", std::process::id()));
    if fs::rename(lock, &moved).is_ok() {
        let _ = fs::remove_dir_all(moved);
    }
}
