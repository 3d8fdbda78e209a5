//! **truncate**: tool results over a size limit are cut before the model sees them.
//!
//! A result over the limit (8,000 characters unless configured; per-tool
//! limits first) keeps its first two thirds and last third around a marker
//! saying how much was cut and the original size. Text is cut between
//! characters, never inside one. JSON results stay valid JSON of the same
//! shape: long strings are cut the same way, long arrays keep their first and
//! last items around a marker item; a value too wide for that becomes its cut
//! JSON text. A tool's error message is cut like text.
//!
//! An MCP tool result (`{"content": [..], "structuredContent": ..}`, as
//! hooks-mcp hands it on) is cut as the model reads it: its text blocks share
//! the limit, its structured content is cut to the limit on its own (it is
//! another way of reading the same result, not more of it), and binary
//! content (an image, audio, a resource's blob) is never cut inside: over the
//! limit, it is replaced whole by a text block saying what was removed.
//!
//! The limits are a [`Truncator`], state of the dispatcher that runs the hook
//! (`.state(Truncator::new(config)?)`, or `Truncator::default()` for 8,000
//! characters); a dispatcher given none cuts nothing: the hook is not in it.
//!
//! ```
//! use hooks_core::prelude::*;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use hooks_std::truncate::Truncator;
//!
//! let hooks = Hooks::builder()
//!     .only(["hooks_std::truncate::cut"])
//!     .state(Truncator::default())
//!     .build()
//!     .unwrap();
//! let run = hooks
//!     .tool("read_file")
//!     .run(&Session::new("s"), json!({"path": "big.log"}), async |_: &Value| {
//!         Ok::<_, String>(json!("line\n".repeat(10_000)))
//!     })
//!     .await;
//! let text = run.result().unwrap().as_str().unwrap();
//! assert!(text.chars().count() <= 8_000);
//! assert!(text.contains("of 50000 characters cut"));
//! # }
//! ```

mod mcp;
mod text;

use hooks_core::prelude::*;
use hooks_core::{Matcher, ToolCall};
use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, matchers};

/// The smallest limit accepted: below it, a cut result would be mostly marker.
pub const MIN_CHARS: usize = 200;

/// Configuration of the truncation hook (the `[truncate]` table of a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Truncate {
    /// The limit, in characters, for tools no per-tool limit names.
    pub max_chars: usize,
    /// Limits for some tools; the first whose pattern matches applies.
    pub per_tool: Vec<ToolLimit>,
}

/// A limit for the tools matching a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolLimit {
    /// Which tools (a `matches` pattern).
    pub tools: String,
    /// Their limit, in characters.
    pub max_chars: usize,
}

impl Default for Truncate {
    fn default() -> Self {
        Truncate {
            max_chars: 8_000,
            per_tool: Vec::new(),
        }
    }
}

/// The truncation limits, compiled: the state the `truncate::cut` hook reads.
pub struct Truncator {
    max_chars: usize,
    per_tool: Vec<(Matcher, usize)>,
}

impl Default for Truncator {
    /// [`Truncate::default`]: 8,000 characters for every tool.
    fn default() -> Self {
        Self::new(Truncate::default()).expect("the default limit is valid")
    }
}

// Truncation runs only in a dispatcher given a `Truncator`.
hooks_core::opt_in!(Truncator);

impl Truncator {
    /// Compiles the configuration; limits under [`MIN_CHARS`] and bad patterns are refused.
    pub fn new(config: Truncate) -> Result<Self, ConfigError> {
        let check = |what: &str, max_chars: usize| {
            if max_chars < MIN_CHARS {
                Err(ConfigError::new(
                    "truncate",
                    format!("{what} is {max_chars} characters; the smallest limit is {MIN_CHARS}"),
                ))
            } else {
                Ok(max_chars)
            }
        };
        let mut per_tool = Vec::with_capacity(config.per_tool.len());
        for limit in config.per_tool {
            let matcher = matchers(
                "truncate",
                "per_tool.tools",
                std::slice::from_ref(&limit.tools),
            )?;
            let max_chars = check(&format!("the limit for `{}`", limit.tools), limit.max_chars)?;
            per_tool.extend(matcher.into_iter().map(|matcher| (matcher, max_chars)));
        }
        Ok(Truncator {
            max_chars: check("`max_chars`", config.max_chars)?,
            per_tool,
        })
    }

    /// The limit for a call: the first per-tool limit whose pattern matches, else `max_chars`.
    pub fn limit(&self, call: ToolCall<'_>) -> usize {
        self.per_tool
            .iter()
            .find(|(matcher, _)| matcher.matches(call))
            .map_or(self.max_chars, |&(_, max_chars)| max_chars)
    }
}

/// Cuts results over the limit.
#[post_tool_use(group = "hooks_std", priority = 1000)]
fn cut(ctx: &mut PostToolUse, truncator: &Truncator) {
    let limit = truncator.limit(ToolCall::new(ctx.tool(), ctx.args()));
    let cut = match ctx.result() {
        Ok(value) if mcp::is_result(value) => mcp::shrink(value, limit).map(Ok),
        Ok(value) => text::shrink(value, limit).map(Ok),
        Err(message) => text::cut_text(message, limit).map(Err),
    };
    // Only an oversized result is touched, so only a real cut is recorded as a rewrite.
    if let Some(cut) = cut {
        *ctx.result_mut() = cut;
    }
}

/// Cuts a failed tool's error message (a stack trace, a dumped response)
/// as a result would be: a failure must not flood the context either.
#[post_tool_use_failure(group = "hooks_std", priority = 1000)]
fn cut_error(ctx: &mut PostToolUseFailure, truncator: &Truncator) {
    let limit = truncator.limit(ToolCall::new(ctx.tool(), ctx.args()));
    if let Some(cut) = text::cut_text(ctx.error().message(), limit) {
        *ctx.error_mut().message_mut() = cut;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_below_the_minimum_are_refused() {
        let error = Truncator::new(Truncate {
            max_chars: 10,
            per_tool: Vec::new(),
        })
        .err()
        .unwrap();
        assert_eq!(
            error.to_string(),
            "truncate configuration: `max_chars` is 10 characters; the smallest limit is 200"
        );
        let error = Truncator::new(Truncate {
            max_chars: 8_000,
            per_tool: vec![ToolLimit {
                tools: "read_*".into(),
                max_chars: 0,
            }],
        })
        .err()
        .unwrap();
        assert!(
            error
                .to_string()
                .contains("the limit for `read_*` is 0 characters")
        );
    }

    #[test]
    fn the_first_matching_tool_limit_applies() {
        let compiled = Truncator::new(Truncate {
            max_chars: 8_000,
            per_tool: vec![
                ToolLimit {
                    tools: "read_file".into(),
                    max_chars: 20_000,
                },
                ToolLimit {
                    tools: "read_*".into(),
                    max_chars: 500,
                },
            ],
        })
        .unwrap();
        let args = json!({});
        assert_eq!(compiled.limit(ToolCall::new("read_file", &args)), 20_000);
        assert_eq!(compiled.limit(ToolCall::new("read_url", &args)), 500);
        assert_eq!(compiled.limit(ToolCall::new("search", &args)), 8_000);
    }
}
