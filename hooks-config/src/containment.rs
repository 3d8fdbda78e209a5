//! Everything a command hook starts ends with it: when it exits, times out,
//! fails, or its dispatch is dropped. On Linux the hook runs under a
//! supervisor (`supervisor`) that ends every process below it, including one
//! that left the hook's process group and session (`setsid`, a double
//! fork). Elsewhere the hook's process group is killed, which such a process
//! escapes.

use std::io;

use tokio::process::{Child, Command};

/// What ends a hook's processes: on every way out, at the latest when dropped.
pub(crate) struct Containment {
    #[cfg(target_os = "linux")]
    lifeline: crate::supervisor::Lifeline,
    #[cfg(not(target_os = "linux"))]
    group: Option<rustix::process::Pid>,
}

/// Starts `command` (set to run in a process group of its own) so that
/// everything it starts can be ended.
#[cfg(target_os = "linux")]
pub(crate) fn spawn(command: &mut Command) -> io::Result<(Child, Containment)> {
    if !crate::supervisor::available() {
        return Err(io::Error::other(
            "/proc is not mounted, and command hooks need it to end every process they start",
        ));
    }
    let lifeline = crate::supervisor::supervise(command)?;
    Ok((command.spawn()?, Containment { lifeline }))
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn spawn(command: &mut Command) -> io::Result<(Child, Containment)> {
    command.kill_on_drop(true);
    let child = command.spawn()?;
    let group = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(i32::try_from(id).ok()?));
    Ok((child, Containment { group }))
}

impl Containment {
    /// Ends the hook and everything it started.
    pub(crate) fn end(&mut self) {
        #[cfg(target_os = "linux")]
        self.lifeline.cut();
        #[cfg(not(target_os = "linux"))]
        if let Some(group) = self.group {
            // Already gone is fine.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        self.end();
    }
}
