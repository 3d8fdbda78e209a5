//! Our compiled hooks as the one hook Claude Code and Codex call.
//!
//! Those tools run their hooks in no defined order, race their rewrites,
//! and fail open: a hook that crashes, times out or cannot start lets the
//! call through. A binary built with this crate is installed as their
//! command hook for every event; it reads the event on stdin, runs the
//! program's linked hooks, the standard hooks and a config file's in one
//! ordered, fail-closed dispatch, and answers in their protocol:
//!
//! | what the hooks did              | answer                                                      |
//! |---------------------------------|-------------------------------------------------------------|
//! | denied (a call, prompt, stop)   | exit 2, the reason (naming the hook) on stderr; Claude Code, when other hooks left messages for the person: JSON (`permissionDecision: "deny"` / `decision: "block"` beside `systemMessage`) |
//! | asked for a person's yes        | Claude Code: `permissionDecision: "ask"`; Codex: the approval store, or refused |
//! | rewrote a call's arguments      | `updatedInput` with `ask` (Claude Code default) or `allow`   |
//! | replaced a tool's output        | Claude Code: `updatedToolOutput` (also `updatedMCPToolOutput` for MCP tools, the version not told); before 2.1.121 on a built-in tool, and Codex: refused, with the replacement as the reason |
//! | rewrote a prompt                | refused: neither tool can replace a prompt                   |
//! | answered a permission dialog    | `decision: {behavior: "deny", message}` (a failing hook denies), `{behavior: "allow"}` for a grant (`updatedInput` on Claude Code when hooks changed the input), no decision when no hook decided or one asked (the dialog is shown; an ask's prompt is `systemMessage`) |
//! | injected context                | `additionalContext`                                          |
//! | left a message for the person   | `systemMessage`                                              |
//! | panicked, timed out, bad input, broken store | exit 2, saying what failed                      |
//!
//! An event with no counterpart here (`WorktreeCreate`, ...) is answered with
//! silence; a `--config` with hooks on one is refused (every event blocks,
//! naming file, line, event and why), as those hooks would never run.
//!
//! Bad input includes an event naming a key twice in one object (which of
//! the two would a guard see?). A compaction started by a trigger the
//! binary does not know (a newer host's) is not bad input: exit 2 would
//! block the compaction, so the hooks run, shown the trigger as the host
//! named it ([`CompactTrigger::Other`](hooks_core::CompactTrigger::Other)),
//! and stderr notes it. A config hook blocking an event that cannot be
//! blocked (exit 2 on `SessionStart`, `PreCompact`, `SessionEnd`) is not
//! dropped: its reason reaches the person in `systemMessage`, naming the
//! hook, as Claude Code shows such a hook's stderr, and the event goes ahead.
//!
//! Told the host's version ([`Responder::host_version`], `--host-version`),
//! the binary answers only in fields that version reads, and refuses what it
//! could not say to it: a field the host ignores would let the call, or the
//! output, go on as it was.
//!
//! Each call is a new process, so what must outlive it lives in stores, in
//! the state directory (`--state-dir`) unless a config file's table names
//! its own: the rate limit counts in `rate-limit.db`, the audit log writes
//! `audit.jsonl`, approvals wait in `approvals.sqlite3`. Standard hooks run
//! only as the config file's tables ask: without a config, the binary runs
//! the program's own hooks and writes nothing but the count of refused stops.
//!
//! That count is what keeps a `stop` hook from holding the agent in a loop:
//! the dispatcher lets the agent stop after
//! [`stop_denial_cap`](hooks_core::HooksBuilder::stop_denial_cap) refusals in
//! a row (8; `--stop-cap`), and since every stop is a process of its own,
//! the count is carried in the state directory (`stops/`), per session and
//! agent, with a lock so concurrent stops of one session take turns. The
//! host's `stop_hook_active: false` starts it over; the stop let through at
//! the cap carries a `systemMessage` saying so. Where it cannot be kept, a
//! stop hook keeps the agent going at most once in a row
//! ([`Responder::state_dir`]).
//!
//! A program with its own hooks:
//!
//! ```no_run
//! // src/bin/agent-hooks.rs
//! use hooks_core::prelude::*;
//!
//! #[pre_tool_use(matches = "Bash(git push*)")]
//! fn no_push(_ctx: &PreToolUse) -> Decision {
//!     Decision::deny("pushing is for people")
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     hooks_claude::HookBinary::new().run()
//! }
//! ```
//!
//! Then `agent-hooks --print-settings claude` prints the `hooks` block for
//! `.claude/settings.json` (`codex`: for `.codex/hooks.json`). Without Rust,
//! the `hooks-claude` binary runs the standard hooks and a `--config` file's.
//!
//! The crate's features are the standard parts it is built with (`full`,
//! the default: every one): `read-only`, `truncate`, `rate-limit`,
//! `audit-log`, `approval`, `redis`, `postgres` and `http` (`http` hooks in a
//! config file) pass through to hooks-config's of the same names. With
//! `default-features = false`, a program pays for what it names; a config
//! table for a part it was built without is refused, naming the feature.

mod answer;
mod asks;
mod cli;
mod host;
mod input;
mod permission;
mod respond;
mod settings;
mod stops;
mod tools;
mod version;

pub use answer::{Answer, BLOCK};
pub use cli::HookBinary;
pub use host::{Host, RewriteDecision};
pub use input::{InputError, MAX_INPUT};
pub use respond::{DEFAULT_TIMEOUT, Responder};
pub use settings::{command_line, left_out, settings};
pub use version::HostVersion;
