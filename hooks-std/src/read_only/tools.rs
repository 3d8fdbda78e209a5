//! Tool patterns matched without regard to the case of tool names.
//!
//! `WriteFile`, `write_file` and `mcp__fs__WRITE_FILE` are the same kind of
//! tool: patterns and names are compared in lowercase. A pattern's subject
//! (`Bash(rm *)`) keeps its case: it matches arguments, not names.

use hooks_core::{Matcher, ToolCall};
use serde_json::Value;

use crate::config::{ConfigError, matchers};

/// Compiled patterns, each kept as written for messages.
pub(crate) struct ToolPatterns {
    patterns: Vec<(String, Matcher)>,
}

impl ToolPatterns {
    /// Compiles `patterns`; an error names `setting` and the pattern as written.
    pub(crate) fn new(setting: &str, patterns: &[String]) -> Result<Self, ConfigError> {
        matchers("read-only", setting, patterns)?;
        let lowered: Vec<String> = patterns.iter().map(|p| lowercase_names(p)).collect();
        let compiled = matchers("read-only", setting, &lowered)?;
        Ok(ToolPatterns {
            patterns: patterns.iter().cloned().zip(compiled).collect(),
        })
    }

    /// The first pattern matching the call, as written; `call` has a lowercase name.
    pub(crate) fn find(&self, call: ToolCall<'_>) -> Option<&str> {
        self.patterns
            .iter()
            .find(|(_, matcher)| matcher.matches(call))
            .map(|(pattern, _)| pattern.as_str())
    }

    /// The index of the first pattern matching the call.
    pub(crate) fn position(&self, call: ToolCall<'_>) -> Option<usize> {
        self.patterns
            .iter()
            .position(|(_, matcher)| matcher.matches(call))
    }
}

/// Lowercases a pattern's tool names, not its subjects (inside parentheses).
fn lowercase_names(pattern: &str) -> String {
    let mut depth = 0_u32;
    pattern
        .chars()
        .map(|c| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 {
                c.to_ascii_lowercase()
            } else {
                c
            }
        })
        .collect()
}

/// Runs `f` on the call with its tool name in lowercase; allocates only for
/// names longer than 256 bytes that have an uppercase letter.
pub(crate) fn lowercase_call<R>(tool: &str, args: &Value, f: impl FnOnce(ToolCall<'_>) -> R) -> R {
    if !tool.bytes().any(|b| b.is_ascii_uppercase()) {
        return f(ToolCall::new(tool, args));
    }
    let mut buffer = [0_u8; 256];
    match buffer.get_mut(..tool.len()) {
        Some(lower) => {
            lower.copy_from_slice(tool.as_bytes());
            lower.make_ascii_lowercase();
            let lower = std::str::from_utf8(lower).expect("ASCII lowercasing keeps UTF-8 valid");
            f(ToolCall::new(lower, args))
        }
        None => f(ToolCall::new(&tool.to_ascii_lowercase(), args)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{ToolPatterns, lowercase_call, lowercase_names};

    #[test]
    fn names_are_lowercased_and_subjects_kept() {
        assert_eq!(
            lowercase_names("Bash(RM -rf *)|*Write*"),
            "bash(RM -rf *)|*write*"
        );
        let patterns = ToolPatterns::new(
            "write_tools",
            &["*Write*".to_owned(), "Bash(rm *)".to_owned()],
        )
        .unwrap();
        let args = json!({"command": "rm x"});
        for tool in ["WriteFile", "mcp__fs__WRITE_FILE", "file_write"] {
            let found = lowercase_call(tool, &args, |call| patterns.find(call).map(str::to_owned));
            assert_eq!(found.as_deref(), Some("*Write*"), "{tool}");
        }
        let long = format!("{}Write", "X".repeat(300));
        assert!(lowercase_call(&long, &args, |call| patterns
            .find(call)
            .is_some()));
        assert!(lowercase_call("BASH", &args, |call| patterns
            .find(call)
            .is_some()));
        let ls = json!({"command": "ls"});
        assert!(!lowercase_call("Bash", &ls, |call| patterns
            .find(call)
            .is_some()));
    }
}
