use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use hooks_pattern::Alternative;
pub use hooks_pattern::PatternError;

use serde_json::Value;

/// Which tool calls a hook applies to, from a `matches = "..."` pattern.
///
/// Patterns: exact `sql_query`, prefix `sql_*`, suffix `*_write`, infix
/// `*secret*`, any `*`, alternatives `read_file|write_file`, and the
/// permission-rule form `Bash(git push*)`, which also matches the call's
/// subject (its `command`, `file_path`, `path` or `url` argument) against a
/// glob where `*` is any run of characters.
///
/// Attribute hooks have their pattern checked while the macro expands (a bad
/// one is a compile error on the string) and compiled once per dispatcher;
/// hooks added at run time parse it here:
///
/// ```
/// use hooks_core::{Matcher, ToolCall, json};
///
/// let matcher = Matcher::parse("Bash(rm -rf *)|*_write").unwrap();
/// assert!(matcher.matches(ToolCall::new("Bash", &json!({"command": "rm -rf /"}))));
/// assert!(matcher.matches(ToolCall::new("file_write", &json!({}))));
/// assert!(!matcher.matches(ToolCall::new("Bash", &json!({"command": "ls"}))));
/// assert!(Matcher::parse("^sql_.+").is_err()); // globs, not regular expressions
/// ```
#[derive(Clone)]
pub struct Matcher {
    source: Cow<'static, str>,
    alternatives: Arc<[Alternative<Box<str>>]>,
}

impl Matcher {
    /// Parses a pattern.
    pub fn parse(pattern: &str) -> Result<Self, PatternError> {
        Self::compile(Cow::Owned(pattern.to_owned()))
    }

    /// Parses a pattern that lives for the whole program.
    pub(crate) fn parse_static(pattern: &'static str) -> Result<Self, PatternError> {
        Self::compile(Cow::Borrowed(pattern))
    }

    fn compile(source: Cow<'static, str>) -> Result<Self, PatternError> {
        let alternatives = hooks_pattern::parse(&source)?
            .into_iter()
            .map(|alternative| alternative.map(String::into_boxed_str))
            .collect();
        Ok(Matcher {
            source,
            alternatives,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the call is matched.
    pub fn matches(&self, call: ToolCall<'_>) -> bool {
        any_matches(&self.alternatives, call)
    }

    /// Whether some call of `tool` may be matched (the subject is not known yet).
    pub fn may_match_tool(&self, tool: &str) -> bool {
        self.relevance(tool) != Relevance::Never
    }

    /// How calls of `tool` relate to this matcher, known from the name alone.
    pub(crate) fn relevance(&self, tool: &str) -> Relevance {
        relevance(&self.alternatives, tool)
    }
}

/// What a tool's name alone says about a matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relevance {
    /// No call of the tool is matched.
    Never,
    /// Every call of the tool is matched.
    Always,
    /// Some calls are, depending on their subject.
    PerCall,
}

fn relevance<S: AsRef<str>>(alternatives: &[Alternative<S>], tool: &str) -> Relevance {
    let mut relevance = Relevance::Never;
    for alternative in alternatives.iter().filter(|a| a.may_match_tool(tool)) {
        if alternative.subject.is_none() {
            return Relevance::Always;
        }
        relevance = Relevance::PerCall;
    }
    relevance
}

fn any_matches<S: AsRef<str>>(alternatives: &[Alternative<S>], call: ToolCall<'_>) -> bool {
    // The subject is looked up at most once, and only if a pattern needs it.
    let mut subject = None;
    alternatives.iter().any(|alternative| {
        let subject = if alternative.subject.is_some() {
            *subject.get_or_insert_with(|| call.subject())
        } else {
            None
        };
        alternative.matches(call.tool(), subject)
    })
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Matcher").field(&self.as_str()).finish()
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

/// A tool call as matchers see it: the tool's name and its arguments.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    tool: &'a str,
    args: &'a Value,
}

impl<'a> ToolCall<'a> {
    /// The arguments that may be a call's subject, in the order they are looked for.
    pub const SUBJECT_KEYS: [&'static str; 4] = ["command", "file_path", "path", "url"];

    /// A view of a call.
    pub fn new(tool: &'a str, args: &'a Value) -> Self {
        ToolCall { tool, args }
    }

    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The arguments.
    pub fn args(&self) -> &'a Value {
        self.args
    }

    /// The first of the [`SUBJECT_KEYS`](Self::SUBJECT_KEYS) arguments that is a string.
    pub fn subject(&self) -> Option<&'a str> {
        Self::SUBJECT_KEYS
            .iter()
            .find_map(|key| self.args.get(key).and_then(Value::as_str))
    }
}
