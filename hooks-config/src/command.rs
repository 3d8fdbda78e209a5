//! Command hooks: a program gets the event as JSON on stdin and answers in the
//! Claude Code protocol — exit 0 with JSON (or nothing) on stdout, exit 2 to
//! block with stderr as the reason, any other exit is a failure (the hook's
//! failure policy applies). A program that cannot be started is a failure
//! saying so, never a block.
//!
//! Nothing a hook starts outlives it (`containment`): when it exits, times
//! out or its dispatch is dropped, every process it started is killed — on
//! Linux also one that left its process group and session (`setsid`).

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks_core::{Deferred, HookError, Verdict};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::Semaphore;

use crate::containment;
use crate::protocol::{ProtocolEvent, Reply, parse_output};
use crate::session_env::{EnvFile, SessionEnv};
use crate::template::Template;

/// How much a hook may print on stdout or stderr before it is stopped, beyond
/// three times the input it was given (a hook answering with a large call
/// rewritten prints about as much as it read).
pub const DEFAULT_MAX_OUTPUT: usize = 1024 * 1024;

/// How many command hooks run at once in a process, all hooks together:
/// past it a call waits for a running one to end, and the wait counts in its
/// hook's timeout. Two hundred calls at once would otherwise start two
/// hundred processes, and on a small machine all of them time out.
pub const MAX_COMMAND_HOOKS_RUNNING: usize = 16;

/// A hook that runs a program.
#[derive(Debug, Clone)]
pub struct CommandHook {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// What `SessionStart` hooks of the same dispatcher wrote to `CLAUDE_ENV_FILE`.
    session_env: Option<Arc<SessionEnv>>,
    /// The arguments as templates, when they take the event's values.
    arg_templates: Option<Arc<[Template]>>,
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
            session_env: None,
            arg_templates: None,
            timeout: Duration::from_secs(60),
            max_output: DEFAULT_MAX_OUTPUT,
        }
    }

    /// Runs `line` with `sh -c`, as Claude Code runs its hook commands.
    pub fn shell(line: impl Into<String>) -> Self {
        CommandHook::exec("sh", vec!["-c".to_owned(), line.into()])
    }

    /// Reads `${tool_input.file_path}`-style variables in the arguments (not
    /// the program) as the event's values: each argument is filled in on its
    /// own and passed as exactly one argument, never through a shell, so a
    /// value with spaces, `;` or `$(…)` stays text. `$$` is a literal `$`. A
    /// variable the event does not have fails the call, naming it.
    ///
    /// A value is never an option: an argument a value begins (not text of
    /// the hook's own) may not start with `-` or `+` — `["sort",
    /// "${tool_input.file}"]` given `--output=/etc/x` fails the call instead
    /// of writing the file. Put a value after text of your own where it may
    /// start so (`--file=${tool_input.file}`, `./${tool_input.path}`).
    ///
    /// Refused where the argument would run as code — the script after `-c`
    /// (`sh -c`, `python3 -c`; so every `shell` hook) or `-e` for node, perl
    /// and ruby: pass the value as an argument of its own and read it there
    /// (`["sh", "-c", "cat \"$1\"", "sh", "${tool_input.path}"]`).
    pub fn with_variables(mut self) -> Result<Self, String> {
        if Template::parse(&self.program).is_ok_and(|program| program.has_variables()) {
            return Err(format!(
                "the program `{}` is taken as written: variables are filled in in its arguments only",
                self.program
            ));
        }
        let templates = self
            .args
            .iter()
            .map(|arg| Template::parse(arg))
            .collect::<Result<Vec<_>, _>>()?;
        for (at, template) in templates.iter().enumerate() {
            if template.has_variables() && at > 0 && runs_as_code(&self.program, &self.args[at - 1])
            {
                return Err(format!(
                    "`{}` runs \"{}\" as code, so a value there could run as code too: pass the \
                     value as an argument of its own (e.g. [\"sh\", \"-c\", \"cat \\\"$1\\\"\", \"sh\", \"${{tool_input.path}}\"])",
                    self.program, self.args[at]
                ));
            }
        }
        self.arg_templates = templates
            .iter()
            .any(Template::has_variables)
            .then(|| templates.into());
        Ok(self)
    }

    /// This hook with its arguments filled in from `event`.
    fn filled(&self, event: &hooks_core::Value) -> Result<std::borrow::Cow<'_, Self>, HookError> {
        let Some(templates) = &self.arg_templates else {
            return Ok(std::borrow::Cow::Borrowed(self));
        };
        let mut hook = self.clone();
        hook.args = templates
            .iter()
            .map(|template| template.render_argument(event, &self.program))
            .collect::<Result<_, _>>()?;
        Ok(std::borrow::Cow::Owned(hook))
    }

    /// Sets the timeout (the wait for a turn among the
    /// [`MAX_COMMAND_HOOKS_RUNNING`] included); past it the hook and everything it started are
    /// killed (on Linux including processes that left its process group).
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

    /// Shares `CLAUDE_ENV_FILE` variables with the dispatcher's other command hooks.
    pub(crate) fn session_env(mut self, session_env: Arc<SessionEnv>) -> Self {
        self.session_env = Some(session_env);
        self
    }

    /// Sets how many bytes of stdout or stderr are accepted, beyond three
    /// times the hook's input ([`DEFAULT_MAX_OUTPUT`]).
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

    async fn run(&self, input: Vec<u8>, env_file: Option<&Path>) -> Result<Finished, HookError> {
        // A turn among the running hooks, within this hook's timeout: a
        // hook that cannot start in time fails as one that ran too long.
        static RUNNING: Semaphore = Semaphore::const_new(MAX_COMMAND_HOOKS_RUNNING);
        let started = Instant::now();
        let Ok(Ok(_turn)) = tokio::time::timeout(self.timeout, RUNNING.acquire()).await else {
            return Err(HookError::TimedOut(self.timeout));
        };
        let timeout = self.timeout.saturating_sub(started.elapsed());
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            // The hook's own variables win over what a `SessionStart` hook wrote.
            .envs(self.session_env.iter().flat_map(|session| session.vars()))
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: the terminal's signals are not its.
            .process_group(0);
        if let Ok(dir) = std::env::current_dir() {
            command.env("CLAUDE_PROJECT_DIR", dir);
        }
        if let Some(env_file) = env_file {
            command.env("CLAUDE_ENV_FILE", env_file);
        }
        // Everything it starts ends on every way out, including the dispatch
        // being dropped (its backstop timeout, or a caller that gave up).
        let (mut child, mut contained) = containment::spawn(&mut command).map_err(|error| {
            HookError::failed(format!("could not start `{}`: {error}", self.program))
        })?;
        let mut stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let input_len = input.len();
        let limit = crate::protocol::answer_cap(self.max_output, input_len);
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
                    "{}; it was stopped",
                    crate::protocol::over_cap("printed", self.max_output, input_len)
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
        let finished = match tokio::time::timeout(timeout, exchange).await {
            Ok(finished) => finished,
            Err(_elapsed) => Err(HookError::TimedOut(self.timeout)),
        };
        if finished.is_err() {
            contained.end();
            let _ = child.wait().await;
        }
        finished
    }
}

/// Whether `program` runs the argument after `option` as code.
fn runs_as_code(program: &str, option: &str) -> bool {
    let name = std::path::Path::new(program)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let short = option.len() > 1
        && option.starts_with('-')
        && !option.starts_with("--")
        && option.ends_with('c');
    let evaluates = ["node", "nodejs", "perl", "ruby", "deno", "bun"]
        .iter()
        .any(|interpreter| name.starts_with(interpreter));
    short || option == "--command" || evaluates && matches!(option, "-e" | "--eval" | "-E")
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

impl CommandHook {
    /// Runs for `ctx`, shown `event`: its input, perhaps with more added
    /// (the kept transcript's path).
    pub(crate) fn call_with<'a, C: ProtocolEvent>(
        &'a self,
        ctx: &'a mut C,
        event: hooks_core::Value,
    ) -> Deferred<'a, Verdict> {
        Deferred::Later(Box::pin(async move {
            let input = event.to_string().into_bytes();
            // As Claude Code: only `SessionStart` hooks get a file to write variables to.
            let env_file = match &self.session_env {
                Some(_) if C::NAME == "SessionStart" => {
                    Some(SessionEnv::env_file().map_err(|error| {
                        HookError::failed(format!("could not make CLAUDE_ENV_FILE: {error}"))
                    })?)
                }
                _ => None,
            };
            let hook = self.filled(&event)?;
            let finished = hook
                .run(input, env_file.as_ref().map(EnvFile::path))
                .await?;
            if let (Some(session), Some(file)) = (&self.session_env, &env_file) {
                session.absorb(file, &self.describe());
            }
            let reply = interpret(&finished, &self.describe())?;
            let verdict: Verdict = ctx.apply(reply);
            verdict
        }))
    }
}
