//! `hooks-replay`: runs a recorded audit log, or a transcript of tool calls,
//! through the standard hooks and a configuration file's, and reports call
//! by call where they would decide otherwise than what happened. No tool
//! runs, nothing is written to the audit log, and nobody is asked to
//! approve anything (see `hooks_std::replay`).
//!
//! ```text
//! hooks-replay [--config FILE] [--without HOOK]... [--json] LOG
//! ```
//!
//! Exit status: 0 when the replay ran (whatever it found, unreadable lines
//! included), 2 on bad usage, or a log, configuration or dispatcher that
//! cannot be used.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufReader, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use hooks_core::{Hooks, PreToolUse};
use hooks_std::replay;

hooks_core::link!(hooks_std);

const USAGE: &str = "usage: hooks-replay [--config FILE] [--without HOOK]... [--json] LOG";

const HELP: &str = "\
Replays recorded tool calls through the standard hooks and a configuration
file's, and reports where their decisions differ from what happened:
would newly deny, would newly allow, would ask a person. No tool runs.

LOG is JSON Lines: an audit log (hooks-std's audit-log), simple lines
({\"tool\": .., \"args\": .., \"decision\": \"allowed\" | \"denied\"}), or a
Claude Code transcript. Unreadable lines are reported with their numbers.

options:
  --config FILE     hooks and standard-hook tables to replay with (TOML, or a
                    Claude Code settings.json); its audit log is not
                    written, and nobody is asked to approve
  --without HOOK    leave out this hook (repeatable), e.g.
                    hooks_std::rate_limit::guard: a rate limit counts replay
                    time, so calls that came minutes apart come back to back
  --json            print the report as JSON
  -h, --help        print this help

exit status: 0 the replay ran, 2 bad usage or an unusable log or configuration";

/// A parsed command line.
struct Invocation {
    config: Option<PathBuf>,
    without: Vec<String>,
    json: bool,
    log: PathBuf,
}

enum Parsed {
    Help,
    Run(Invocation),
}

fn main() -> ExitCode {
    let invocation = match parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Help) => {
            let _ = writeln!(std::io::stdout().lock(), "{USAGE}\n\n{HELP}");
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run(invocation)) => invocation,
        Err(message) => {
            eprintln!("hooks-replay: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&invocation) {
        Ok(output) => {
            // A reader that stops early (`| head`) is not a failure of the replay.
            let _ = writeln!(std::io::stdout().lock(), "{output}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("hooks-replay: {message}");
            ExitCode::from(2)
        }
    }
}

/// Reads the arguments; paths may be any bytes the system allows.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut config = None;
    let mut without = Vec::new();
    let mut json = false;
    let mut logs = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(Parsed::Help),
            Some("--json") => json = true,
            Some("--config") => config = Some(PathBuf::from(value("--config")?)),
            Some("--without") => without.push(
                value("--without")?
                    .into_string()
                    .map_err(|name| format!("`--without {}`: not a hook name", name.display()))?,
            ),
            Some("--") => logs.extend(args.by_ref().map(PathBuf::from)),
            Some(flag) if flag.starts_with('-') && flag != "-" => {
                return Err(format!("unknown option `{flag}`"));
            }
            _ => logs.push(PathBuf::from(arg)),
        }
    }
    let log = match <[PathBuf; 1]>::try_from(logs) {
        Ok([log]) => log,
        Err(logs) if logs.is_empty() => return Err("no log to replay".to_owned()),
        Err(_) => return Err("one log at a time".to_owned()),
    };
    Ok(Parsed::Run(Invocation {
        config,
        without,
        json,
        log,
    }))
}

/// Replays the log and renders the report.
fn run(invocation: &Invocation) -> Result<String, String> {
    // The log first: a configuration may create files (its stores) when applied.
    let log = invocation.log.display();
    let recording = File::open(&invocation.log)
        .and_then(|file| replay::read(BufReader::new(file)))
        .map_err(|error| format!("cannot read the log `{log}`: {error}"))?;

    let mut builder = Hooks::builder();
    if let Some(path) = &invocation.config {
        // The error names the file, and the line of each problem.
        builder = hooks_config::load(path)
            .and_then(|config| config.apply(builder))
            .map_err(|error| error.to_string())?;
    }
    let hooks = replay::prepare(builder.without(invocation.without.iter().cloned()))
        .build()
        .map_err(|error| format!("cannot build the dispatcher to replay with: {error}"))?;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let report = runtime
        .block_on(replay::replay(&hooks, &recording))
        .map_err(|error| error.to_string())?;

    if invocation.json {
        return serde_json::to_string_pretty(&report)
            .map_err(|error| format!("cannot write the report as JSON: {error}"));
    }
    Ok(format!(
        "replaying `{log}` through {} pre_tool_use hook{}\n\n{report}",
        hooks.count::<PreToolUse>(),
        if hooks.count::<PreToolUse>() == 1 {
            ""
        } else {
            "s"
        }
    ))
}
