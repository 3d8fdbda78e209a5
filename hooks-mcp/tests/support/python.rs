//! The Python side of the end-to-end tests: a virtualenv in the target
//! directory (`target/tmp/mcp-venv`) holding the official MCP Python SDK and the reference servers,
//! pinned in `requirements.txt` beside this file, built once and shared as
//! `install.rs` says.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::install::{self, run};

const REQUIREMENTS: &str = include_str!("requirements.txt");

/// What the tests need before the venv can be built.
const NEEDS: &str = "the tests need python3 >= 3.10 on PATH";

/// The venv, built or checked on first use in this process.
pub(crate) fn venv() -> PathBuf {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| install::built("mcp-venv", REQUIREMENTS, build))
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

fn build(venv: &Path) {
    ensure_venv_module();
    run(
        Command::new("python3").args([OsStr::new("-m"), "venv".as_ref(), venv.as_os_str()]),
        NEEDS,
    );

    let requirements = venv.join("requirements.txt");
    install::write(&requirements, REQUIREMENTS);
    // Wheels only: nothing is compiled, and a package without a wheel for this
    // machine fails here, by name.
    run(
        Command::new(bin_dir(venv).join(executable("python")))
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
            ])
            .args(["--only-binary=:all:", "--requirement"])
            .arg(&requirements),
        NEEDS,
    );
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
    run(command.arg(&lock).args(["sh", "-c", script]), NEEDS);
}
