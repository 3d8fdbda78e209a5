//! The binary's command line and its one run: options, stores, stdin,
//! dispatch, answer. Anything that goes wrong on the way — a bad option, a
//! broken config file, a store that cannot open, a panic — exits 2 with
//! what went wrong: the hosts treat any other failure as "allow".

use std::ffi::OsString;
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use hooks_core::{Hooks, HooksBuilder};

use crate::answer::Answer;
use crate::host::{Host, RewriteDecision};
use crate::input::MAX_INPUT;
use crate::respond::{DEFAULT_TIMEOUT, Responder};
use crate::version::HostVersion;

const USAGE: &str = "usage: {name} [--host claude|codex] [--config FILE] [--state-dir DIR] \
                     [--host-version VERSION] [--timeout SECONDS] [--stop-cap N] [--rewrites ask|allow] \
                     [--print-settings claude|codex] \
                     [--describe]";

const HELP: &str = "\
Claude Code or Codex runs this as its command hook for every event: the
event comes on stdin, the hooks run in order, and the answer goes back in
their protocol (exit 2 with the reason to block; JSON for rewrites, asks and
context). A panic, a timeout, unreadable input or a broken store blocks too;
only the count of refused stops, if it cannot be kept, lets a stop through
(see --stop-cap).

options:
  --host claude|codex     whose protocol to answer in (default claude)
  --host-version VERSION  the host's version (`claude --version`): answer only in fields it
                          reads, and refuse what it could not be told (an older Claude Code
                          ignores a replaced output or a rewritten call, which would go on
                          as it was). Default: every field this binary knows is read
  --config FILE           hooks and standard-hook tables (TOML, or a Claude Code settings.json)
  --state-dir DIR         where what outlives a call is kept: the count of refused stops
                          (stops/), and the config's stores for tables that name no file:
                          rate-limit.db, audit.jsonl, approvals.sqlite3
                          (default $HOOKS_STATE_DIR, else $CLAUDE_PROJECT_DIR/.hooks,
                          else ./.hooks; made only when something is first written there)
  --timeout SECONDS       how long the hooks may take before the event is blocked (default 55)
  --stop-cap N            how many times in a row stop hooks may keep the agent going
                          (default 8); the next stop is let through, saying so to the
                          person (systemMessage). Counted per session across calls in
                          --state-dir; a stop with stop_hook_active false starts over. If
                          the count cannot be kept there, a stop hook keeps the agent going
                          at most once in a row
  --rewrites ask|allow    Claude Code: send a rewritten call with `ask` (default) or `allow`
  --print-settings HOST   print the settings that install this binary for HOST, and exit
  --describe              print the hooks, in order, and exit
  -h, --help              print this help

Logs go to stderr with HOOKS_LOG=debug (stderr is otherwise only a block's reason).";

/// The hook binary: a program's linked hooks (and the standard ones, and a
/// config file's), answering Claude Code or Codex.
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     hooks_claude::HookBinary::new().run()
/// }
/// ```
pub struct HookBinary {
    builder: HooksBuilder,
    name: String,
}

impl Default for HookBinary {
    fn default() -> Self {
        Self::new()
    }
}

/// What the command line asked for.
#[derive(Debug, Default)]
struct Options {
    host: Host,
    host_version: Option<HostVersion>,
    config: Option<PathBuf>,
    state_dir: Option<PathBuf>,
    timeout: Option<Duration>,
    stop_cap: Option<u32>,
    rewrites: RewriteDecision,
    print_settings: Option<Host>,
    describe: bool,
    help: bool,
}

impl HookBinary {
    /// Every linked hook (link crates of hooks in with `hooks_core::link!`).
    pub fn new() -> Self {
        Self::from_builder(Hooks::builder())
    }

    /// The hooks `builder` has (scoped, with state, with runtime hooks).
    pub fn from_builder(builder: HooksBuilder) -> Self {
        let name = std::env::args()
            .next()
            .as_deref()
            .map(Path::new)
            .and_then(Path::file_name)
            .map_or_else(
                || "hooks-claude".to_owned(),
                |name| name.to_string_lossy().into_owned(),
            );
        HookBinary { builder, name }
    }

    /// Runs once: reads the event on stdin, answers on stdout and stderr,
    /// and returns the exit code.
    pub fn run(self) -> ExitCode {
        logs_to_stderr();
        let name = self.name.clone();
        // A panic anywhere outside a hook (hooks' own are caught by the
        // dispatcher) is still a block, never the host's "allow".
        quiet_panics();
        let answer = catch_unwind(AssertUnwindSafe(|| {
            let stdin = std::io::stdin();
            self.run_with(std::env::args_os().skip(1), &mut stdin.lock())
        }))
        .unwrap_or_else(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            Answer::block(format!("{name}: internal failure ({what}); refused"))
        });
        // Nothing to be done if the host closed our stdout or stderr.
        let _ = std::io::stdout().write_all(answer.stdout().as_bytes());
        let _ = std::io::stderr().write_all(answer.stderr().as_bytes());
        ExitCode::from(answer.code())
    }

    /// [`run`](Self::run) with these arguments and this input: the answer,
    /// not yet printed.
    pub fn run_with(
        self,
        args: impl IntoIterator<Item = OsString>,
        stdin: &mut dyn Read,
    ) -> Answer {
        let name = self.name.clone();
        let fail = |message: String| Answer::block(format!("{name}: {message}; refused"));
        let options = match parse(args) {
            Ok(options) => options,
            Err(message) => {
                return fail(format!("{message}\n{}", USAGE.replace("{name}", &name)));
            }
        };
        if options.help {
            return Answer::text(format!("{}\n\n{HELP}", USAGE.replace("{name}", &name)));
        }
        if let Some(host) = options.print_settings {
            return match print_settings(&options, host) {
                Ok(text) => {
                    let skipped = crate::settings::left_out(host, options.host_version);
                    if skipped.is_empty() {
                        return Answer::text(text);
                    }
                    let names: Vec<String> = skipped
                        .iter()
                        .map(|(event, since)| match since {
                            Some(since) => format!("{event} ({since})"),
                            None => format!("{event} (version not known)"),
                        })
                        .collect();
                    Answer::text(text).warn(&format!(
                        "left out, as {} before {} ignores a whole settings file naming an \
                         event it does not have: {}",
                        host.title(),
                        crate::version::UNKNOWN_EVENTS_TOLERATED,
                        names.join(", ")
                    ))
                }
                Err(message) => fail(message),
            };
        }
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => return fail(format!("cannot start the runtime: {error}")),
        };
        // Inside the runtime: stores and config hooks may start tasks.
        let _entered = runtime.enter();
        let responder = match self.responder(&options) {
            Ok(responder) => responder,
            Err(message) => return fail(message),
        };
        if options.describe {
            return Answer::text(responder.hooks().describe().to_string());
        }
        let mut input = Vec::new();
        if let Err(error) = stdin
            .take(u64::try_from(MAX_INPUT).unwrap_or(u64::MAX) + 1)
            .read_to_end(&mut input)
        {
            return fail(format!("cannot read stdin: {error}"));
        }
        if input.len() > MAX_INPUT {
            return fail(format!("the event on stdin is over {MAX_INPUT} bytes"));
        }
        runtime.block_on(responder.answer(&input))
    }

    /// The dispatcher the options describe.
    fn responder(self, options: &Options) -> Result<Responder, String> {
        let mut builder = self.builder;
        if let Some(cap) = options.stop_cap {
            builder = builder.stop_denial_cap(cap);
        }
        if let Some(path) = &options.config {
            let config = hooks_config::load(path)
                .map_err(|error| error.to_string())?
                .state_dir(state_dir(options));
            // The host sends this binary those events' hooks never: refused,
            // not skipped, so nobody counts on a hook that cannot run.
            let never = config.skipped_events();
            if !never.is_empty() {
                return Err(format!(
                    "the config has hooks this binary would never run:\n  {}",
                    never.join("\n  ")
                ));
            }
            builder = config.apply(builder).map_err(|error| error.to_string())?;
        }
        let mut responder = Responder::new(builder, options.host)?
            .rewrites(options.rewrites)
            .state_dir(state_dir(options));
        if let Some(timeout) = options.timeout {
            responder = responder.timeout(timeout);
        }
        if let Some(version) = options.host_version {
            responder = responder.host_version(version);
        }
        if let Ok(user) = std::env::var("USER") {
            responder = responder.user(user);
        }
        Ok(responder)
    }
}

impl Answer {
    /// Exit 0 with `text` on stdout (help, settings, a description).
    fn text(mut text: String) -> Answer {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Answer::json_text(text)
    }
}

/// `--state-dir`, `$HOOKS_STATE_DIR`, `$CLAUDE_PROJECT_DIR/.hooks`, or `./.hooks`.
fn state_dir(options: &Options) -> PathBuf {
    options
        .state_dir
        .clone()
        .or_else(|| std::env::var_os("HOOKS_STATE_DIR").map(PathBuf::from))
        .or_else(|| {
            std::env::var_os("CLAUDE_PROJECT_DIR").map(|dir| PathBuf::from(dir).join(".hooks"))
        })
        .unwrap_or_else(|| PathBuf::from(".hooks"))
}

fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg
            .into_string()
            .map_err(|arg| format!("argument {} is not UTF-8", arg.display()))?;
        let mut value = |what: &str| {
            args.next()
                .ok_or_else(|| format!("`{arg}` needs {what}"))?
                .into_string()
                .map_err(|value| format!("`{arg}` {} is not UTF-8", value.display()))
        };
        match arg.as_str() {
            "-h" | "--help" => options.help = true,
            "--host" => options.host = value("`claude` or `codex`")?.parse()?,
            "--host-version" => {
                let version = value("a version, like `2.1.121`")?;
                let parsed = version
                    .parse()
                    .map_err(|error| format!("`--host-version`: {error}"))?;
                options.host_version = Some(parsed);
            }
            "--config" => options.config = Some(value("a file")?.into()),
            "--state-dir" => options.state_dir = Some(value("a directory")?.into()),
            "--rewrites" => options.rewrites = value("`ask` or `allow`")?.parse()?,
            "--print-settings" => {
                options.print_settings = Some(value("`claude` or `codex`")?.parse()?);
            }
            "--describe" => options.describe = true,
            "--timeout" => {
                let seconds = value("a number of seconds")?;
                let parsed = seconds
                    .parse::<u64>()
                    .ok()
                    .filter(|seconds| *seconds > 0)
                    .ok_or_else(|| {
                        format!("`--timeout {seconds}`: expected a whole number of seconds above 0")
                    })?;
                options.timeout = Some(Duration::from_secs(parsed));
            }
            "--stop-cap" => {
                let cap = value("a number of stops")?;
                let parsed = cap
                    .parse::<u32>()
                    .ok()
                    .filter(|cap| *cap > 0)
                    .ok_or_else(|| {
                        format!("`--stop-cap {cap}`: expected a whole number of stops above 0")
                    })?;
                options.stop_cap = Some(parsed);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

/// The settings installing this binary, as it was called (paths made absolute).
fn print_settings(options: &Options, host: Host) -> Result<String, String> {
    let exe = std::env::current_exe()
        .map_err(|error| format!("cannot tell where this binary is: {error}"))?;
    let absolute = |path: &Path| {
        std::path::absolute(path)
            .map_err(|error| format!("cannot make {} absolute: {error}", path.display()))
            .map(|path| path.display().to_string())
    };
    let timeout = options.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let mut words = vec![
        exe.display().to_string(),
        "--host".to_owned(),
        host.as_str().to_owned(),
        "--timeout".to_owned(),
        timeout.as_secs().to_string(),
    ];
    if let Some(version) = options.host_version {
        words.extend(["--host-version".to_owned(), version.to_string()]);
    }
    if let Some(config) = &options.config {
        words.extend(["--config".to_owned(), absolute(config)?]);
    }
    if let Some(dir) = &options.state_dir {
        words.extend(["--state-dir".to_owned(), absolute(dir)?]);
    }
    if let Some(cap) = options.stop_cap {
        words.extend(["--stop-cap".to_owned(), cap.to_string()]);
    }
    if options.rewrites == RewriteDecision::Allow {
        words.extend(["--rewrites".to_owned(), "allow".to_owned()]);
    }
    let command = crate::settings::command_line(words.iter().map(String::as_str));
    let snippet = crate::settings::settings(host, options.host_version, &command, timeout);
    serde_json::to_string_pretty(&snippet).map_err(|error| error.to_string())
}

/// Logs to stderr only when asked (`HOOKS_LOG`): stderr is the reason the
/// host shows for a block.
fn logs_to_stderr() {
    if let Ok(filter) = std::env::var("HOOKS_LOG") {
        let level = match filter.as_str() {
            "trace" => tracing::Level::TRACE,
            "debug" => tracing::Level::DEBUG,
            "info" => tracing::Level::INFO,
            "error" => tracing::Level::ERROR,
            _ => tracing::Level::WARN,
        };
        let _ = tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_max_level(level)
            .try_init();
    }
}

/// Panics are reported in the block's reason (the dispatcher's, or
/// [`HookBinary::run`]'s), not printed over it by the default panic hook.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        tracing::error!("{info}");
    }));
}
