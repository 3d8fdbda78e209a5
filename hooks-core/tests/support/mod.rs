//! Real bash, running fake programs that record what actually ran.
//!
//! Every fake program is a `/bin/sh` script first on `PATH`: it appends its
//! name and arguments to a log, prints the line it was given (so pipelines,
//! `$(…)` and `xargs` have something to read) and succeeds. What a guard
//! decided is then checked against what bash really did.

#![allow(dead_code)] // each test file uses part of it

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Separates the words of one record, and records, in the log.
const UNIT: char = '\u{1f}';
const RECORD: char = '\u{1e}';

/// A directory with fake programs on `PATH`, where scripts run.
pub(crate) struct Bash {
    dir: PathBuf,
}

impl Bash {
    /// Fake programs `name`, each printing its `output` line when run.
    pub(crate) fn new(programs: &[(&str, &str)]) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "bash-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("work")).unwrap();
        for (name, output) in programs {
            // One `printf` of one argument: one write, so records of programs
            // running at once do not interleave.
            let script = format!(
                "#!/bin/sh\nr=\"${{0##*/}}\"\nfor a in \"$@\"; do r=\"$r{UNIT}$a\"; done\n\
                 printf '%s{RECORD}' \"$r\" >> \"$FAKE_LOG\"\nprintf '%s\\n' '{output}'\n"
            );
            let path = dir.join("bin").join(name);
            std::fs::write(&path, script).unwrap();
            make_executable(&path);
        }
        Bash { dir }
    }

    /// The directory scripts run in (empty unless a test puts files there).
    pub(crate) fn work(&self) -> PathBuf {
        self.dir.join("work")
    }

    /// Where the fake program `name` is.
    pub(crate) fn program(&self, name: &str) -> PathBuf {
        self.dir.join("bin").join(name)
    }

    /// Empties the directory scripts run in, then puts empty files `names` there.
    pub(crate) fn reset_work(&self, names: &[&str]) {
        let work = self.work();
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        for name in names {
            std::fs::write(work.join(name), "").unwrap();
        }
    }

    /// Runs `script` with `bash -c` and returns the argument lists of the fake
    /// programs it ran, in the order they were logged.
    pub(crate) fn run(&self, script: &str) -> Vec<Vec<String>> {
        let log = self.dir.join("log");
        std::fs::write(&log, "").unwrap();
        let path = format!(
            "{}:{}",
            self.dir.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let status = Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(self.work())
            .env("PATH", path)
            .env("FAKE_LOG", &log)
            .env("HOME", &self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Err(error) = status {
            panic!("these tests run real bash, which could not be started ({error}): install bash");
        }
        let log = std::fs::read_to_string(&log).unwrap();
        log.split_terminator(RECORD)
            .map(|record| record.split(UNIT).map(str::to_owned).collect())
            .collect()
    }
}

impl Drop for Bash {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
