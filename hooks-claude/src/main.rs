//! `hooks-claude`: the standard hooks and a config file's, as the one
//! command hook Claude Code or Codex calls for every event.
//!
//! ```text
//! hooks-claude --print-settings claude --config hooks.toml   # prints the settings block
//! ```
//!
//! A program with hooks of its own builds its own binary the same way:
//! `hooks_claude::HookBinary::new().run()` in its `main`.

hooks_core::link!(hooks_std);

fn main() -> std::process::ExitCode {
    hooks_claude::HookBinary::new().run()
}
