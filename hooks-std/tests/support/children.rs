//! What the tests that run themselves as child processes share: the
//! `test NAME ... ok` lines their harness-less `main` prints, reading the
//! request id a child asked about, and waiting for a child with a deadline.

#![allow(
    dead_code,
    reason = "each program including this file uses a part of it"
)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// Runs one test of a `harness = false` program, printing as libtest does.
pub(crate) fn check(name: &str, test: impl FnOnce()) {
    print!("test {name} ... ");
    std::io::stdout().flush().unwrap();
    test();
    println!("ok");
}

/// A runtime for the parent's own async work.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Waits for the child's first line, `asked #ID`: the request id it stored.
pub(crate) fn asked(child: &mut Child) -> i64 {
    let line = BufReader::new(child.stdout.as_mut().unwrap())
        .lines()
        .next()
        .expect("the child asks before anything else")
        .unwrap();
    line.strip_prefix("asked #")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("unexpected child output: {line}"))
}

/// Waits for the child to exit; past `within` it is killed and the test fails.
pub(crate) fn wait(child: &mut Child, within: Duration) -> ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the child process did not finish within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
