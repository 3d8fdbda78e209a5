//! Installing a Debian package a test needs (a server, a browser), as the
//! project's promise says: nothing to install by hand. With apt, as root or
//! through `sudo -n`, one test process at a time (a file lock); a test that
//! cannot get its package fails saying why, never skips.

use std::process::{Command, Output, Stdio};

/// Installs `package` unless the shell test `present` succeeds; `needs` says
/// what for, in the failure (`"these tests need Redis"`).
pub(crate) fn install(package: &str, present: &str, needs: &str) {
    let script = format!(
        "{present} && exit 0; apt-get install -y -q {package} \
         || {{ apt-get update -q && apt-get install -y -q {package}; }}"
    );
    let lock = std::env::temp_dir().join("hooks-tests-apt.lock");
    let mut command = if is_root() {
        Command::new("flock")
    } else {
        let mut sudo = Command::new("sudo");
        sudo.args(["-n", "flock"]);
        sudo
    };
    let output = command
        .arg(&lock)
        .args(["env", "DEBIAN_FRONTEND=noninteractive", "sh", "-c", &script])
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "{needs}, and installing Debian's `{package}` package failed \
             (install it by hand: apt-get install {package}): {}",
            describe(&output)
        ),
        Err(error) => panic!(
            "{needs}, and `apt-get install {package}` could not be run ({error}); \
             install it by hand"
        ),
    }
}

/// Whether this process runs as root.
pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// A finished command's status and output, for a failure message.
pub(crate) fn describe(output: &Output) -> String {
    format!(
        "{}\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
