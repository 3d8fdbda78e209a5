//! Hooks declared without recompiling: a TOML configuration file, or the
//! `hooks` block of a Claude Code `settings.json`, adds **command**, **http**
//! and **prompt** hooks to a dispatcher and configures the standard hooks.
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
//! the program is built without is refused, naming the feature.
//!
//! Hooks speak the Claude Code hook protocol ([`protocol`]): the event as JSON
//! (on stdin, or as the POST body), and an answer by exit code and JSON
//! (`permissionDecision`, `updatedInput`, `additionalContext`, `decision`,
//! `continue`/`stopReason`). Exit 2 blocks with stderr as the reason; any
//! other failure — a non-zero exit, a crash, a timeout (which kills the
//! hook's whole process group), too much output, a program that cannot be
//! started — is a hook failure, and the hook's `on_error` decides (guards fail closed).

mod address;
mod claude;
mod command;
mod declared;
mod http;
mod prompt;
pub mod protocol;
mod standard;
mod strict_json;
mod toml_file;
mod upstream;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use hooks_core::HooksBuilder;

pub use address::AddressPolicy;
pub use command::{CommandHook, DEFAULT_MAX_OUTPUT};
pub use http::{HttpHook, MAX_BODY};
pub use prompt::{Model, PromptHook};
pub use upstream::{DEFAULT_UPSTREAM_TIMEOUT, Upstream};

use declared::{Declared, Runner};
use standard::StdSettings;

/// A loaded, checked configuration, ready to [`apply`](Config::apply).
pub struct Config {
    file: Arc<str>,
    hooks: Vec<Declared>,
    settings: StdSettings,
    upstreams: Vec<Upstream>,
    skipped: Vec<String>,
    models: HashMap<String, Arc<dyn Model>>,
}

/// Reads and checks a configuration file: `.json` as a Claude Code
/// `settings.json`, anything else as TOML. Every problem is reported, each
/// with the file, the line and the hook it is about.
///
/// A Claude Code `settings.json` may hold hooks for events this project does
/// not have (`PermissionRequest`, `Notification`, ...): those entries are
/// skipped — each named in [`Config::skipped`] and in a `tracing` warning —
/// and the rest loads. [`load_strict`] refuses the file instead.
pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
    load_with(path.as_ref(), false)
}

/// [`load`], refusing a file with entries for events this project does not
/// have instead of skipping them.
pub fn load_strict(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
    load_with(path.as_ref(), true)
}

fn load_with(path: &Path, strict: bool) -> Result<Config, ConfigError> {
    let file: Arc<str> = Arc::from(path.display().to_string());
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError {
        problems: vec![format!("{file}: cannot read it: {error}")],
    })?;
    parse_with(
        file,
        &text,
        path.extension()
            .is_some_and(|extension| extension == "json"),
        strict,
    )
}

/// Checks configuration text as if read from `file` (skipping entries for
/// events this project does not have, as [`load`] does).
pub fn parse(
    file: impl Into<Arc<str>>,
    text: &str,
    claude_settings: bool,
) -> Result<Config, ConfigError> {
    parse_with(file, text, claude_settings, false)
}

/// [`parse`], refusing entries for events this project does not have.
pub fn parse_strict(
    file: impl Into<Arc<str>>,
    text: &str,
    claude_settings: bool,
) -> Result<Config, ConfigError> {
    parse_with(file, text, claude_settings, true)
}

fn parse_with(
    file: impl Into<Arc<str>>,
    text: &str,
    claude_settings: bool,
    strict: bool,
) -> Result<Config, ConfigError> {
    let file = file.into();
    let mut skipped = Vec::new();
    // Editors on Windows write one; it is not part of the configuration.
    let text = strict_json::without_bom(text);
    let mut problems = Problems::default();
    let (hooks, settings, upstreams) = if claude_settings {
        (
            claude::parse(
                &file,
                text,
                &mut problems,
                (!strict).then_some(&mut skipped),
            ),
            StdSettings::default(),
            Vec::new(),
        )
    } else {
        toml_file::parse(&file, text, &mut problems)
    };
    problems.into_result()?;
    Ok(Config {
        file,
        hooks,
        settings,
        upstreams,
        skipped,
        models: HashMap::new(),
    })
}

impl Config {
    /// Provides the model that `prompt` hooks naming `name` ask (`"default"` unless they say).
    #[must_use]
    pub fn model(mut self, name: impl Into<String>, model: impl Model) -> Self {
        self.models.insert(name.into(), Arc::new(model));
        self
    }

    /// Entries skipped because this project has no such event, each as
    /// `file:line: what was skipped` (see [`load`]).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
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

    /// What each hook runs; every hook naming a missing model is reported.
    fn runners(&self) -> Result<Vec<Runner>, ConfigError> {
        let mut problems = Problems::default();
        let mut runners = Vec::with_capacity(self.hooks.len());
        for hook in &self.hooks {
            match hook.runner(&self.models) {
                Ok(runner) => runners.push(runner),
                Err(error) => problems.push(&self.file, hook.line, Some(&hook.name), error),
            }
        }
        problems.into_result().map(|()| runners)
    }

    /// Adds the file's hooks to `builder` and configures the standard hooks
    /// the file has tables for, for this dispatcher only (with an
    /// `[approval]` table, its approver too).
    ///
    /// All or nothing: every hook's model and every table is checked, and
    /// every store opened, before the builder is touched; on an error the
    /// builder is dropped unchanged, no file this load made is left behind,
    /// and nothing else in the process has changed.
    pub fn apply(self, builder: HooksBuilder) -> Result<HooksBuilder, ConfigError> {
        let runners = self.runners()?;
        let standard = self.settings.prepare(&self.file)?;
        let mut builder = standard.apply(builder);
        for (hook, runner) in self.hooks.iter().zip(runners) {
            builder = hook.add_to(builder, runner);
        }
        Ok(builder)
    }
}

/// Why a configuration was refused: every problem, each naming file, line and hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    problems: Vec<String>,
}

impl ConfigError {
    /// The problems, one per line: `file:line: hook `name`: what is wrong`.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for ConfigError {
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

impl std::error::Error for ConfigError {}

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

    pub(crate) fn into_result(self) -> Result<(), ConfigError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems: self.0 })
        }
    }
}
