//! Hooks declared without recompiling: a TOML configuration file, or the
//! `hooks` block of a Claude Code `settings.json`, a Claude Code plugin's
//! `hooks/hooks.json` or a Codex `hooks.json` ([`Format`]), adds **command**,
//! **http** and **prompt** hooks to a dispatcher and configures the standard hooks.
//! They join the same order as compiled-in hooks (priority, then name), get
//! the same failure handling, and show up in `describe()` with their file
//! and line.
//!
//! ```no_run
//! use hooks_core::prelude::*;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let config = hooks_config::load("hooks.toml")?;     // every problem, with file and line
//! let hooks = config.apply(Hooks::builder())?.build()?;
//! println!("{}", hooks.describe());
//! # Ok(())
//! # }
//! ```
//!
//! A file configures the dispatcher it is applied to and no other: its
//! standard-hook tables (`[read_only]`, `[truncate]`, `[rate_limit]`,
//! `[audit_log]`, `[approval]`) become that builder's state. Applying is all
//! or nothing. This crate forces no standard hook on a program: its features
//! of the same names (or `full`) turn hooks-std's on, and a table for a hook
//! the program is built without is refused, naming the feature. So are `http`
//! hooks and `[approval_webhook]` without the `http` feature, which brings the
//! HTTP client (reqwest, rustls).
//!
//! Hooks speak the Claude Code hook protocol ([`protocol`]): the event as JSON
//! (on stdin, or as the POST body), and an answer by exit code and JSON
//! (`permissionDecision`, `updatedInput`, `additionalContext`, `decision`,
//! `continue`/`stopReason`). Exit 2 blocks with stderr as the reason; any
//! other failure — a non-zero exit, a crash, a timeout, too much output, a
//! program that cannot be started — is a hook failure, and the hook's `on_error` decides (guards fail
//! closed; unlike Claude Code, where such a failure lets the call through —
//! `"onError": "continue"` in a JSON file asks for that). Nothing a command
//! hook starts outlives it: when it exits, times out or its dispatch is
//! dropped, every process it started is killed — on Linux also one that left
//! its process group and session (`setsid`, a double fork), through a
//! supervisor process that is a child subreaper.

mod address;
mod agent;
mod claude;
mod claude_matcher;
mod command;
mod condition;
mod containment;
mod declared;
#[cfg(feature = "http")]
mod http;
mod mcp_tool;
mod prompt;
pub mod protocol;
mod redact;
mod session_env;
mod special_address;
mod standard;
pub mod strict_json;
#[cfg(target_os = "linux")]
mod supervisor;
mod template;
mod toml_file;
mod tools;
mod transcript;
mod unmapped;
mod upstream;
#[cfg(all(feature = "approval", feature = "http"))]
mod webhook;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_core::HooksBuilder;

pub use address::AddressPolicy;
pub use agent::{AgentHook, AgentStep, DEFAULT_MAX_TURNS, Turn, Verifier};
pub use command::{CommandHook, DEFAULT_MAX_OUTPUT, MAX_COMMAND_HOOKS_RUNNING};
#[cfg(feature = "http")]
pub use http::{DEFAULT_MAX_IN_FLIGHT, HttpHook, MAX_BODY};
pub use mcp_tool::{McpCaller, McpToolHook};
pub use prompt::{Model, PromptHook};
pub use unmapped::events_not_run;
pub use upstream::{DEFAULT_UPSTREAM_TIMEOUT, Upstream};
#[cfg(all(feature = "approval", feature = "http"))]
pub use webhook::{WebhookChannel, WebhookStyle};

use declared::{Declared, Provided, Runner};

/// Why an `http` hook or `[approval_webhook]` is refused in a build without an HTTP client.
#[cfg(not(feature = "http"))]
const NEEDS_HTTP: &str = "needs hooks-config's `http` feature (an HTTP client: reqwest, \
    rustls): turn it on in Cargo.toml, as in \
    `hooks-config = { version = \"0.1\", features = [\"http\"] }`";
use session_env::SessionEnv;
use standard::StdSettings;
use transcript::Transcripts;

/// A loaded, checked configuration, ready to [`apply`](Config::apply).
pub struct Config {
    file: Arc<str>,
    hooks: Vec<Declared>,
    settings: StdSettings,
    upstreams: Vec<Upstream>,
    tools: Vec<hooks_core::ToolFacts>,
    skipped: Vec<claude::Skipped>,
    skipped_text: Vec<String>,
    models: HashMap<String, Arc<dyn Model>>,
    verifiers: HashMap<String, Arc<dyn Verifier>>,
    mcp: HashMap<String, Arc<dyn McpCaller>>,
    transcript_dir: Option<PathBuf>,
}

/// What kind of file a configuration is, which [`load`] decides from its path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// This project's TOML file.
    Toml,
    /// A Claude Code `settings.json` (its `hooks`, `env` and our `hooksOnError`).
    ClaudeSettings,
    /// A Claude Code plugin's `hooks/hooks.json`: its command hooks get
    /// `CLAUDE_PLUGIN_ROOT` set to `root`, so `${CLAUDE_PLUGIN_ROOT}/scripts/x.sh` works.
    ClaudePlugin {
        /// The plugin's directory: the one holding `hooks/`.
        root: PathBuf,
    },
    /// A Codex `hooks.json` (`~/.codex/hooks.json`, `.codex/hooks.json`): the
    /// same shape as Claude Code's, with `timeoutSec` for `timeout`.
    Codex,
}

impl Format {
    /// The format [`load`] reads `path` as: a name not ending in `.json` is
    /// TOML; `…/hooks/hooks.json` is a plugin's, whose root is the directory
    /// above `hooks/` (made absolute); a `.json` file inside a `.codex`
    /// directory is Codex's; any other `.json` file is a Claude Code `settings.json`.
    ///
    /// ```
    /// use std::path::Path;
    /// use hooks_config::Format;
    ///
    /// assert_eq!(Format::of(Path::new("hooks.toml")), Format::Toml);
    /// assert_eq!(Format::of(Path::new(".claude/settings.json")), Format::ClaudeSettings);
    /// assert_eq!(Format::of(Path::new("/home/me/.codex/hooks.json")), Format::Codex);
    /// assert_eq!(
    ///     Format::of(Path::new("/plugins/fmt/hooks/hooks.json")),
    ///     Format::ClaudePlugin { root: "/plugins/fmt".into() }
    /// );
    /// ```
    pub fn of(path: &Path) -> Format {
        if path.extension().is_none_or(|extension| extension != "json") {
            return Format::Toml;
        }
        let parent = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty());
        if path.file_name().is_some_and(|name| name == "hooks.json")
            && parent.is_some_and(|parent| parent.file_name().is_some_and(|name| name == "hooks"))
        {
            let root = parent
                .and_then(Path::parent)
                .filter(|root| !root.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
            return Format::ClaudePlugin { root };
        }
        if path.components().any(|part| part.as_os_str() == ".codex") {
            return Format::Codex;
        }
        Format::ClaudeSettings
    }

    fn json_if(claude_settings: bool) -> Format {
        if claude_settings {
            Format::ClaudeSettings
        } else {
            Format::Toml
        }
    }
}

/// Reads and checks a configuration file, as [`Format::of`] says to read it.
/// Every problem is reported, each with the file, the line and the hook it is about.
///
/// A JSON file may hold what this project does not run: hooks for events
/// it does not have (`WorktreeCreate`, `Setup`, ...: each skipped with the
/// reason, [`events_not_run`] lists them), handlers
/// with `"async": true` or `"once": true`, matchers on events with nothing
/// to match. Those entries are skipped — each named in [`Config::skipped`],
/// in a `tracing` warning and, once applied, in `describe()` — and the rest
/// loads. [`load_strict`] refuses the file instead.
pub fn load(path: impl AsRef<Path>) -> Result<Config, LoadError> {
    let path = path.as_ref();
    load_with(path, &Format::of(path), false)
}

/// [`load`], refusing a file with entries this project cannot run instead
/// of skipping them.
pub fn load_strict(path: impl AsRef<Path>) -> Result<Config, LoadError> {
    let path = path.as_ref();
    load_with(path, &Format::of(path), true)
}

/// [`load`], reading the file as `format` whatever its path says (a plugin's
/// hooks file kept elsewhere, a Codex file outside `.codex/`).
pub fn load_as(path: impl AsRef<Path>, format: &Format) -> Result<Config, LoadError> {
    load_with(path.as_ref(), format, false)
}

fn load_with(path: &Path, format: &Format, strict: bool) -> Result<Config, LoadError> {
    let file: Arc<str> = Arc::from(path.display().to_string());
    let text = std::fs::read_to_string(path).map_err(|error| LoadError {
        problems: vec![format!("{file}: cannot read it: {error}")],
    })?;
    parse_with(file, &text, format, strict)
}

/// Checks configuration text as if read from `file`: a Claude Code
/// `settings.json` if `claude_settings`, TOML if not (skipping entries this
/// project cannot run, as [`load`] does).
pub fn parse(
    file: impl Into<Arc<str>>,
    text: &str,
    claude_settings: bool,
) -> Result<Config, LoadError> {
    parse_with(file, text, &Format::json_if(claude_settings), false)
}

/// [`parse`], refusing entries this project cannot run.
pub fn parse_strict(
    file: impl Into<Arc<str>>,
    text: &str,
    claude_settings: bool,
) -> Result<Config, LoadError> {
    parse_with(file, text, &Format::json_if(claude_settings), true)
}

/// [`parse`], reading the text as `format`.
pub fn parse_as(
    file: impl Into<Arc<str>>,
    text: &str,
    format: &Format,
) -> Result<Config, LoadError> {
    parse_with(file, text, format, false)
}

fn parse_with(
    file: impl Into<Arc<str>>,
    text: &str,
    format: &Format,
    strict: bool,
) -> Result<Config, LoadError> {
    let file = file.into();
    let mut skipped = Vec::new();
    // Editors on Windows write one; it is not part of the configuration.
    let text = strict_json::without_bom(text);
    let mut problems = Problems::default();
    let parsed = if let Format::Toml = format {
        toml_file::parse(&file, text, &mut problems)
    } else {
        let root = match format {
            Format::ClaudePlugin { root } => Some(root.as_path()),
            _ => None,
        };
        let skip_to = (!strict).then_some(&mut skipped);
        toml_file::Parsed {
            hooks: claude::parse(&file, text, root, &mut problems, skip_to),
            ..toml_file::Parsed::default()
        }
    };
    problems.into_result()?;
    let skipped_text = skipped
        .iter()
        .map(|skipped| format!("{file}:{}: {}: skipped", skipped.line, skipped.what))
        .collect();
    Ok(Config {
        file,
        hooks: parsed.hooks,
        settings: parsed.settings,
        upstreams: parsed.upstreams,
        tools: parsed.tools,
        skipped,
        skipped_text,
        models: HashMap::new(),
        verifiers: HashMap::new(),
        mcp: HashMap::new(),
        transcript_dir: parsed.transcript_dir,
    })
}

impl Config {
    /// Where the stores of tables that name no file live: `rate-limit.db`
    /// for a `[rate_limit]` table without `database` or `store` (otherwise
    /// it counts in memory), `audit.jsonl` for an `[audit_log]` without
    /// `path` or `sink`, `approvals.sqlite3` for an `[approval]` without
    /// `database` or `store` (otherwise both are refused: no file is written
    /// whose path nobody named). The directory is made when a store opens
    /// there. For a program whose every call is a new process (a hook binary),
    /// so that what its stores hold outlives it.
    #[must_use]
    pub fn state_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.settings.state_dir = Some(dir.into());
        self
    }

    /// Provides the model that `prompt` hooks naming `name` ask (`"default"` unless they say).
    #[must_use]
    pub fn model(mut self, name: impl Into<String>, model: impl Model) -> Self {
        self.models.insert(name.into(), Arc::new(model));
        self
    }

    /// Provides the verifier that `agent` hooks naming `name` run (`"default"` unless they say).
    #[must_use]
    pub fn verifier(mut self, name: impl Into<String>, verifier: impl Verifier) -> Self {
        self.verifiers.insert(name.into(), Arc::new(verifier));
        self
    }

    /// Provides the MCP server `mcp_tool` hooks naming `server` call tools on.
    #[must_use]
    pub fn mcp(mut self, server: impl Into<String>, caller: impl McpCaller) -> Self {
        self.mcp.insert(server.into(), Arc::new(caller));
        self
    }

    /// Keeps a transcript of each session in `dir`, in Claude Code's format,
    /// for hooks that read `transcript_path` (a `Stop` hook checking the
    /// last reply); as the file's `transcript_dir`, which this replaces. The
    /// host's own `transcript_path`, in the session's metadata, still wins.
    /// A relative `dir` is taken from the working directory when applied.
    #[must_use]
    pub fn keep_transcript(mut self, dir: impl Into<PathBuf>) -> Self {
        self.transcript_dir = Some(dir.into());
        self
    }

    /// Entries skipped because this project cannot run them, each as
    /// `file:line: what was skipped` (see [`load`]); [`apply`](Self::apply)
    /// lists them in the dispatcher's `describe()` too.
    pub fn skipped(&self) -> &[String] {
        &self.skipped_text
    }

    /// The skipped entries that are hooks on events that never run here
    /// (`WorktreeCreate`, ...), each as [`skipped`](Self::skipped) says it:
    /// what a program that must run every hook it is given refuses (the
    /// hook binary does).
    pub fn skipped_events(&self) -> Vec<&str> {
        self.skipped
            .iter()
            .zip(&self.skipped_text)
            .filter(|(skipped, _)| skipped.event)
            .map(|(_, text)| text.as_str())
            .collect()
    }

    /// The MCP servers the file declares (`[[upstream]]`), for a gateway
    /// (`hooks-mcp`) to start; [`apply`](Self::apply) ignores them.
    pub fn upstreams(&self) -> &[Upstream] {
        &self.upstreams
    }

    /// How many hooks the file declares.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// Whether the file declares no hooks.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// What each hook runs; every hook naming a missing model, verifier or
    /// MCP server is reported.
    fn runners(&self) -> Result<Vec<Runner>, LoadError> {
        let mut problems = Problems::default();
        let mut runners = Vec::with_capacity(self.hooks.len());
        for hook in &self.hooks {
            let provided = Provided {
                models: &self.models,
                verifiers: &self.verifiers,
                mcp: &self.mcp,
            };
            match hook.runner(&provided) {
                Ok(runner) => runners.push(runner),
                Err(error) => problems.push(&self.file, hook.line, Some(&hook.name), error),
            }
        }
        problems.into_result().map(|()| runners)
    }

    /// Adds the file's hooks to `builder` and configures the standard hooks
    /// the file has tables for, for this dispatcher only (with an
    /// `[approval]` table, its approver too); its `[tools.NAME]` tables go
    /// into the dispatcher's tool catalog. Skipped entries are recorded
    /// with [`HooksBuilder::skipped`], so `describe()` lists them. The file's
    /// command hooks share one `CLAUDE_ENV_FILE` state: what a `SessionStart`
    /// hook writes there is set for the later command hooks of this dispatcher.
    /// With a transcript directory ([`keep_transcript`](Self::keep_transcript)),
    /// observers keep each session's transcript there (the directory is made
    /// on the first line) and every hook is shown its `transcript_path`.
    ///
    /// All or nothing: every hook's model and every table is checked, and
    /// every store opened, before the builder is touched; on an error the
    /// builder is dropped unchanged, no file this load made is left behind,
    /// and nothing else in the process has changed.
    pub fn apply(self, builder: HooksBuilder) -> Result<HooksBuilder, LoadError> {
        let runners = self.runners()?;
        let transcripts = match &self.transcript_dir {
            Some(dir) => Some(Arc::new(Transcripts::new(dir).map_err(|error| {
                LoadError {
                    problems: vec![format!("{}: {error}", self.file)],
                }
            })?)),
            None => None,
        };
        let standard = self.settings.prepare(&self.file)?;
        let mut builder = standard.apply(builder).tool_facts(self.tools);
        let session_env = Arc::new(SessionEnv::default());
        for (hook, runner) in self.hooks.iter().zip(runners) {
            let mut runner = with_session_env(runner, &session_env);
            if let Some(transcripts) = &transcripts {
                runner = Runner::Transcript(Arc::clone(transcripts), Box::new(runner));
            }
            builder = hook.add_to(builder, runner);
        }
        if let Some(transcripts) = &transcripts {
            builder = transcripts.observe(builder);
        }
        for skipped in &self.skipped {
            builder = builder.skipped(&self.file, skipped.line, &skipped.what);
        }
        Ok(builder)
    }
}

/// `runner`, its command (if it runs one) sharing `session_env`.
fn with_session_env(runner: Runner, session_env: &Arc<SessionEnv>) -> Runner {
    match runner {
        Runner::Command(command) => Runner::Command(command.session_env(Arc::clone(session_env))),
        Runner::When(condition, runner) => {
            Runner::When(condition, Box::new(with_session_env(*runner, session_env)))
        }
        other => other,
    }
}

/// Checks what only a built dispatcher can tell: the `[cedar]` policies
/// against its tool catalog (an unknown tool, argument, attribute or
/// action is an error naming the policy's file and line). Call it after
/// `build()`, at start-up; without it the first call checks, and is denied
/// if they do not validate. Without the `cedar` feature there is nothing to check.
pub fn validate(hooks: &hooks_core::Hooks) -> Result<(), LoadError> {
    #[cfg(feature = "cedar")]
    if let Some(guard) = hooks.state::<hooks_std::cedar::CedarGuard>() {
        guard.validate(hooks.catalog()).map_err(|error| LoadError {
            problems: vec![error.to_string()],
        })?;
    }
    #[cfg(not(feature = "cedar"))]
    let _ = hooks;
    Ok(())
}

/// Why a configuration was refused: every problem, each naming file, line and hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    problems: Vec<String>,
}

impl LoadError {
    /// The problems, one per line: `file:line: hook `name`: what is wrong`.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "the hooks configuration is invalid ({count} problem{})",
            if count == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Problems collected while checking, reported together.
#[derive(Default)]
pub(crate) struct Problems(Vec<String>);

impl Problems {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn push(
        &mut self,
        file: &str,
        line: u32,
        hook: Option<&str>,
        message: impl fmt::Display,
    ) {
        let hook = hook
            .map(|hook| format!("hook `{hook}`: "))
            .unwrap_or_default();
        self.0.push(format!("{file}:{line}: {hook}{message}"));
    }

    pub(crate) fn into_result(self) -> Result<(), LoadError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(LoadError { problems: self.0 })
        }
    }
}
