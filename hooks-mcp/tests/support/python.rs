//! The Python side of the end-to-end tests: a virtualenv in the target
//! directory (`target/tmp/mcp-venv`) holding the official MCP Python SDK and the reference servers,
//! pinned in `requirements.txt` beside this file.
//!
//! The venv is built once per machine and reused while the requirements it was
//! built from are unchanged. Test binaries and threads may ask for it at once:
//! the first builds it while holding a lock directory, the others wait. A
//! failed install panics with the command and what it printed: a test never
//! skips because Python or a package is missing.

use std::ffi::OsStr;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

const REQUIREMENTS: &str = include_str!("requirements.txt");

/// The copy of the requirements a finished install leaves in the venv; it is
/// written last, so a venv without it (or with another one) is rebuilt.
const STAMP: &str = "hooks-mcp-requirements.txt";

/// A lock whose owner cannot be checked is taken to be left by a killed run
/// once it is this old.
const STALE_LOCK: Duration = Duration::from_secs(15 * 60);

/// The venv, built or checked on first use in this process.
pub(crate) fn venv() -> PathBuf {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        // Cargo's directory for integration tests' files, inside the target directory.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-venv");
        if !is_current(&dir) {
            let _lock = Lock::acquire(&dir.with_extension("lock"));
            // Another process may have built it while this one waited.
            if !is_current(&dir) {
                build(&dir);
            }
        }
        dir
    })
    .clone()
}

/// The venv's interpreter.
pub(crate) fn python() -> PathBuf {
    existing(bin_dir(&venv()).join(executable("python")))
}

/// The command line that starts the stdio MCP server `name`, one of the console
/// scripts the requirements install (`mcp-server-time`, `mcp-server-git`).
pub(crate) fn server_command(name: &str) -> Vec<String> {
    let script = existing(bin_dir(&venv()).join(executable(name)));
    vec![
        script
            .into_os_string()
            .into_string()
            .unwrap_or_else(|path| {
                panic!("the venv path {} is not UTF-8", Path::new(&path).display())
            }),
    ]
}

fn bin_dir(venv: &Path) -> PathBuf {
    venv.join(if cfg!(windows) { "Scripts" } else { "bin" })
}

fn executable(name: &str) -> String {
    if cfg!(windows) {
        format!("{name}.exe")
    } else {
        name.to_owned()
    }
}

fn existing(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "{} is not in the MCP test venv: add the package that provides it to hooks-mcp/tests/support/requirements.txt",
        path.display()
    );
    path
}

fn is_current(venv: &Path) -> bool {
    fs::read_to_string(venv.join(STAMP)).is_ok_and(|stamp| stamp == REQUIREMENTS)
        && bin_dir(venv).join(executable("python")).exists()
}

fn build(venv: &Path) {
    match fs::remove_dir_all(venv) {
        Ok(()) => {}
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => panic!("removing the old MCP test venv {}: {error}", venv.display()),
    }
    ensure_venv_module();
    run(Command::new("python3").args([OsStr::new("-m"), "venv".as_ref(), venv.as_os_str()]));

    let requirements = venv.join("requirements.txt");
    write(&requirements, REQUIREMENTS);
    // Wheels only: nothing is compiled, and a package without a wheel for this
    // machine fails here, by name.
    run(Command::new(bin_dir(venv).join(executable("python")))
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .args(["--only-binary=:all:", "--requirement"])
        .arg(&requirements));

    // Written to a temporary name and renamed, so no reader sees half a stamp.
    let partial = venv.join(format!("{STAMP}.partial"));
    write(&partial, REQUIREMENTS);
    fs::rename(&partial, venv.join(STAMP))
        .unwrap_or_else(|error| panic!("finishing the MCP test venv {}: {error}", venv.display()));
}

/// Debian splits `venv`'s pip bootstrap into `python3-venv`: installed
/// here when missing (as root, or with passwordless sudo), one apt at a time.
fn ensure_venv_module() {
    let has_it = Command::new("python3")
        .args(["-c", "import ensurepip, venv"])
        .output()
        .is_ok_and(|output| output.status.success());
    if has_it {
        return;
    }
    let script = "apt-get install -y -q python3-venv \
                  || { apt-get update -q && apt-get install -y -q python3-venv; }";
    let lock = std::env::temp_dir().join("hooks-tests-apt.lock");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0");
    let mut command = if root {
        Command::new("flock")
    } else {
        let mut sudo = Command::new("sudo");
        sudo.args(["-n", "flock"]);
        sudo
    };
    run(command.arg(&lock).args(["sh", "-c", script]));
}

fn run(command: &mut Command) {
    let shown = format!("{command:?}");
    let output = command.output().unwrap_or_else(|error| {
        panic!("building the MCP test venv: could not run {shown}: {error} (the tests need python3 >= 3.10 on PATH)")
    });
    assert!(
        output.status.success(),
        "building the MCP test venv: {shown} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}

fn write(path: &Path, contents: &str) {
    fs::write(path, contents).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
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
