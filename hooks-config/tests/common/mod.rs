//! Setup the integration tests share.

// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use hooks_config::{Config, LoadError};
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
pub(crate) fn parse_error(file: &str, text: &str, claude_settings: bool) -> LoadError {
    match hooks_config::parse(file, text, claude_settings) {
        Ok(_) => panic!("{file} parsed, but should not have"),
        Err(error) => error,
    }
}

/// The error `config` fails to apply with; panics with `expected` if it applies.
pub(crate) fn apply_error(config: Config, expected: &str) -> LoadError {
    match config.apply(Hooks::builder().without_linked()) {
        Ok(_) => panic!("{expected}"),
        Err(error) => error,
    }
}

/// A Python test server from `tests/servers/`, on a free port of 127.0.0.1
/// (it prints the port on its first line); killed when dropped.
pub(crate) struct PythonServer {
    child: Child,
    pub(crate) port: u16,
}

impl PythonServer {
    pub(crate) fn start(script: &str) -> PythonServer {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/servers")
            .join(script);
        let mut child = Command::new("python3")
            .arg(script)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        PythonServer {
            child,
            port: line.trim().parse().unwrap(),
        }
    }
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
