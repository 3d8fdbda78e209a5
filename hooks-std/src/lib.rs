//! Standard hooks for `hooks-core` agents, one cargo feature each.
//!
//! | feature | hook | event | what it does |
//! |---|---|---|---|
//! | `audit-log` | `hooks_std::audit::*` | `PreToolUse`, `PostToolUse`, `PostToolUseFailure` (observers) | one JSON Lines record per tool call, denied ones too, secrets redacted |
//! | `read-only` | `hooks_std::read_only::guard` | `PreToolUse` | denies tools that write while read-only mode is on |
//! | `truncate` | `hooks_std::truncate::{cut, cut_error}` | `PostToolUse`, `PostToolUseFailure` | cuts oversized results and error messages (default 8,000 characters), keeping head and tail |
//! | `rate-limit` | `hooks_std::rate_limit::guard` | `PreToolUse` | per tool / user / metadata-key limits, with retry-after |
//! | `approval` | `hooks_std::approval::gate` + [`approval::ApprovalGate`] | `PreToolUse` | a person's yes before flagged calls; SQLite-backed, survives restarts, `hooks-approve` CLI |
//! | `redact` | `hooks_std::redact::{scrub, scrub_error}` + [`redact::Redactor`] | `PostToolUse`, `PostToolUseFailure` | secrets the dispatcher knows (`.redactor(..)`), in any encoding, taken out of tool results and errors before the model reads them; the redactor the audit log and approvals use |
//! | `cedar` | `hooks_std::cedar::{guard, offer}` + [`cedar::CedarGuard`] | `PreToolUse`, `PreModelRequest` | Cedar policies over the tool catalog: default deny or allow, forbid wins, denials name the policy, tools no policy permits not offered |
//! | `replay` | [`replay::replay`] (no hook) | — | runs an audit log or a transcript through a dispatcher and reports where it decides differently; runs no tool |
//!
//! Turning a feature on links its hooks (in group `hooks_std`), and changes
//! no dispatcher by itself: a standard hook runs in a dispatcher only when
//! that dispatcher is given its policy — a [`read_only::ReadOnlyGuard`],
//! [`truncate::Truncator`], [`rate_limit::RateLimiter`], [`audit::Auditor`],
//! [`approval::ApprovalPolicy`], a [`cedar::CedarGuard`], a [`redact::Redactor`] for the scrubbers —
//! built from code or from a config file's table
//! ([`hooks_core::opt_in!`]). No file is written whose path nobody named, and
//! no limit applies that nobody set. One process can hold several dispatchers
//! with several policies:
//!
//! ```
//! # #[cfg(all(feature = "read-only", feature = "rate-limit"))]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use hooks_core::prelude::*;
//! use hooks_std::rate_limit::{RateLimit, RateLimiter, Rule};
//! use hooks_std::read_only::{ReadOnly, ReadOnlyGuard};
//!
//! hooks_core::link!(hooks_std);
//!
//! let frozen = Hooks::builder()
//!     .state(ReadOnlyGuard::new(ReadOnly { enabled: true, ..ReadOnly::default() })?)
//!     .state(RateLimiter::new(RateLimit::new(vec![Rule::new(2, Duration::from_secs(60))]))?)
//!     .only(["hooks_std::read_only::guard", "hooks_std::rate_limit::guard"])
//!     .build()?;
//! let open = Hooks::builder()
//!     .only(["hooks_std::read_only::guard", "hooks_std::rate_limit::guard"])
//!     .build()?; // asked for neither: runs neither
//! assert_eq!(open.count::<PreToolUse>(), 0);
//! # drop(frozen);
//! # Ok(())
//! # }
//! # #[cfg(not(all(feature = "read-only", feature = "rate-limit")))]
//! # fn main() {}
//! ```

#[cfg(feature = "approval")]
pub mod approval;
#[cfg(feature = "audit-log")]
pub mod audit;
#[cfg(feature = "cedar")]
pub mod cedar;
mod config;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "rate-limit")]
pub mod rate_limit;
#[cfg(feature = "read-only")]
pub mod read_only;
#[cfg(feature = "redact")]
pub mod redact;
#[cfg(feature = "replay")]
pub mod replay;
#[cfg(any(feature = "approval", feature = "rate-limit"))]
mod sqlite;
#[cfg(any(feature = "approval", feature = "rate-limit"))]
mod store;
pub mod token_strength;
#[cfg(feature = "truncate")]
pub mod truncate;

pub use config::ConfigError;
#[cfg(any(feature = "approval", feature = "rate-limit"))]
pub use store::StoreError;
