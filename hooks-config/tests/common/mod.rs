//! Setup the integration tests share.

// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use hooks_config::{Config, ConfigError};
use hooks_core::prelude::*;

/// The config's hooks and nothing linked in, so only they decide.
pub(crate) fn dispatcher(config: Config) -> Hooks {
    config
        .apply(Hooks::builder().without_linked())
        .unwrap()
        .build()
        .unwrap()
}

/// Why a fresh call of `tool` with `args` is denied, or `None` if it may go ahead.
pub(crate) async fn denial(hooks: &Hooks, tool: &str, args: Value) -> Option<String> {
    let mut ctx = PreToolUse::new(&Session::new("s"), tool.to_owned(), args);
    hooks
        .dispatch(&mut ctx)
        .await
        .denial()
        .map(|denial| denial.reason().to_owned())
}

/// The error `text`, read as `file`, is refused with.
pub(crate) fn parse_error(file: &str, text: &str, claude_settings: bool) -> ConfigError {
    match hooks_config::parse(file, text, claude_settings) {
        Ok(_) => panic!("{file} parsed, but should not have"),
        Err(error) => error,
    }
}

/// The error `config` fails to apply with; panics with `expected` if it applies.
pub(crate) fn apply_error(config: Config, expected: &str) -> ConfigError {
    match config.apply(Hooks::builder().without_linked()) {
        Ok(_) => panic!("{expected}"),
        Err(error) => error,
    }
}
