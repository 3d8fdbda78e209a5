//! Standard hooks for `hooks-core` agents, one cargo feature each.
//!
//! | feature | hook | event | what it does |
//! |---|---|---|---|
//! | `audit-log` | `hooks_std::audit::*` | `PreToolUse`, `PostToolUse` (observers) | one JSON Lines record per tool call, denied ones too, secrets redacted |
//! | `read-only` | `hooks_std::read_only::guard` | `PreToolUse` | denies tools that write while read-only mode is on |
//! | `truncate` | `hooks_std::truncate::cut` | `PostToolUse` | cuts oversized results (default 8,000 characters), keeping head and tail |
//! | `rate-limit` | `hooks_std::rate_limit::guard` | `PreToolUse` | per tool / user / metadata-key limits, with retry-after |
//! | `approval` | `hooks_std::approval::gate` + [`approval::ApprovalGate`] | `PreToolUse` | a person's yes before flagged calls; SQLite-backed, survives restarts, `hooks-approve` CLI |
//!
//! Turning a feature on registers its hooks (in group `hooks_std`) with
//! sensible defaults; each module's `configure` changes them, in code or from a
//! config file's table. Like any crate that only holds hooks, link it once:
//!
//! ```
//! hooks_core::link!(hooks_std);
//! ```

#[cfg(feature = "approval")]
pub mod approval;
#[cfg(feature = "audit-log")]
pub mod audit;
mod config;
#[cfg(feature = "rate-limit")]
pub mod rate_limit;
#[cfg(feature = "read-only")]
pub mod read_only;
#[cfg(any(feature = "audit-log", feature = "approval"))]
pub mod redact;
mod setting;
#[cfg(feature = "truncate")]
pub mod truncate;

pub use config::ConfigError;
