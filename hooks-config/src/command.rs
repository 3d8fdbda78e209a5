//! Command hooks: a program gets the event as JSON on stdin and answers in the
//! Claude Code protocol — exit 0 with JSON (or nothing) on stdout, exit 2 to
//! block with stderr as the reason, any other exit is a failure (the hook's
//! failure policy applies). A program that cannot be started is a failure
//! saying so, never a block.

use std::process::Stdio;
use std::time::Duration;

use hooks_core::{HookCall, HookError, RuntimeHook, Verdict};
use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::protocol::{ProtocolEvent, Reply, parse_output};

/// How much a hook may print on stdout or stderr before it is stopped.
pub const DEFAULT_MAX_OUTPUT: usize = 1024 * 1024;

/// A hook that runs a program.
#[derive(Debug, Clone)]
pub struct CommandHook {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    timeout: Duration,
    max_output: usize,
}

/// What a finished program did.
struct Finished {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl CommandHook {
    /// Runs `program` with `args` directly (exec form: no shell).
    pub fn exec(program: impl Into<String>, args: Vec<String>) -> Self {
        CommandHook {
            program: program.into(),
            args,
            env: Vec::new(),
            timeout: Duration::from_secs(60),
            max_output: DEFAULT_MAX_OUTPUT,
        }
    }

    /// Runs `line` with `sh -c`, as Claude Code runs its hook commands.
    pub fn shell(line: impl Into<String>) -> Self {
        CommandHook::exec("sh", vec!["-c".to_owned(), line.into()])
    }

    /// Sets the timeout; past it the whole process group is killed.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Adds an environment variable.
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets how many bytes of stdout or stderr are accepted.
    #[must_use]
    pub fn max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }

    fn describe(&self) -> String {
        if self.program == "sh" && self.args.first().is_some_and(|arg| arg == "-c") {
            self.args.get(1).cloned().unwrap_or_default()
        } else {
            std::iter::once(self.program.as_str())
                .chain(self.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    async fn run(&self, input: Vec<u8>) -> Result<Finished, HookError> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a timeout can kill everything it started.
            .process_group(0)
            .kill_on_drop(true);
        if let Ok(dir) = std::env::current_dir() {
            command.env("CLAUDE_PROJECT_DIR", dir);
        }
        let mut child = command.spawn().map_err(|error| {
            HookError::failed(format!("could not start `{}`: {error}", self.program))
        })?;
        // Killed on every way out, including the dispatch being dropped
        // (its backstop timeout, or a caller that gave up on it).
        let group = Group(
            child
                .id()
                .and_then(|id| Pid::from_raw(i32::try_from(id).ok()?)),
        );
        let mut stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let limit = self.max_output;
        let work = async {
            let write = async {
                if let Some(stdin) = stdin.as_mut() {
                    // A hook that does not read its input is fine: ignore a closed pipe.
                    let _ = stdin.write_all(&input).await;
                }
                drop(stdin.take());
            };
            let ((), stdout, stderr) =
                tokio::join!(write, capped(stdout, limit), capped(stderr, limit));
            (stdout, stderr)
        };
        // One timeout for all of it: reading its output and its exit.
        let exchange = async {
            let (Some(stdout), Some(stderr)) = work.await else {
                return Err(HookError::failed(format!(
                    "printed more than {} bytes; it was stopped",
                    self.max_output
                )));
            };
            let status = child
                .wait()
                .await
                .map_err(|error| HookError::failed(format!("could not wait for it: {error}")))?;
            Ok(Finished {
                code: status.code(),
                stdout,
                stderr,
            })
        };
        let finished = match tokio::time::timeout(self.timeout, exchange).await {
            Ok(finished) => finished,
            Err(_elapsed) => Err(HookError::TimedOut(self.timeout)),
        };
        if finished.is_err() {
            group.kill();
            let _ = child.wait().await;
        }
        // Dropping `group` kills anything it left running.
        finished
    }
}

/// A hook's process group, killed when dropped.
struct Group(Option<Pid>);

impl Group {
    fn kill(&self) {
        if let Some(group) = self.0 {
            // Already gone is fine.
            let _ = kill_process_group(group, Signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads all of `stream`, or `None` past `limit` bytes.
async fn capped(stream: Option<impl AsyncRead + Unpin>, limit: usize) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let Some(stream) = stream else {
        return Some(bytes);
    };
    let read = stream
        .take(u64::try_from(limit).unwrap_or(u64::MAX) + 1)
        .read_to_end(&mut bytes)
        .await;
    (read.is_ok() && bytes.len() <= limit).then_some(bytes)
}

/// Interprets a finished program by the protocol's exit codes.
fn interpret(finished: &Finished, what: &str) -> Result<Reply, HookError> {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_owned();
    match finished.code {
        Some(0) => parse_output(&text(&finished.stdout)),
        Some(2) => {
            let reason = text(&finished.stderr);
            Ok(Reply {
                block: Some(if reason.is_empty() {
                    format!("blocked by `{what}` (exit 2)")
                } else {
                    reason
                }),
                ..Reply::default()
            })
        }
        Some(code) => {
            let stderr = text(&finished.stderr);
            Err(HookError::failed(format!(
                "exited with {code}{}",
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!(": {stderr}")
                }
            )))
        }
        None => Err(HookError::failed("was killed by a signal")),
    }
}

impl<C: ProtocolEvent> RuntimeHook<C> for CommandHook {
    fn call<'a>(&'a self, ctx: &'a mut C) -> HookCall<'a> {
        HookCall::Pending(Box::pin(async move {
            let input = ctx.input().to_string().into_bytes();
            let finished = self.run(input).await?;
            let reply = interpret(&finished, &self.describe())?;
            let verdict: Verdict = ctx.apply(reply);
            verdict
        }))
    }
}
