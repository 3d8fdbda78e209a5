//! What the tests running the `hooks-claude` binary share.

use std::io::{ErrorKind, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs the `hooks-claude` binary in `dir` with `args`, `stdin` its event,
/// as the hosts run it: a process per event, none of the environment that
/// would point it elsewhere.
pub(crate) fn hooks_claude(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks-claude"))
        .env_remove("HOOKS_STATE_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HOOKS_LOG")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hooks-claude");
    let mut input = child.stdin.take().expect("stdin");
    // Written beside the reading: a large event and a large answer must not
    // wait on each other, and a binary may answer before reading it all.
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || match input.write_all(stdin) {
            Err(error) if error.kind() == ErrorKind::BrokenPipe => Ok(()),
            written => written,
        });
        let output = child.wait_with_output().expect("hooks-claude output");
        writer
            .join()
            .expect("the event's writer")
            .expect("write the event");
        output
    })
}
