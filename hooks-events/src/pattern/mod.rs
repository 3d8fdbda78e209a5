//! The tool-matcher pattern language of `hooks-core`.
//!
//! One grammar, parsed in two places: by the attribute macros while they expand
//! (so a bad `matches = "..."` is a compile error on the string) and by the
//! runtime for hooks added in code or declared in a config file. Users do not
//! use this module; they write patterns.
//!
//! ```text
//! pattern     = alternative ( "|" alternative )*
//! alternative = tool [ "(" subject ")" ]
//! tool        = "*" | name | name "*" | "*" name | "*" name "*"
//! name        = one or more of  A-Z a-z 0-9 _ - . :
//! subject     = any text without parentheses; "*" matches any run of characters
//! ```
//!
//! | pattern | matches |
//! |---|---|
//! | `sql_query` | exactly that tool |
//! | `sql_*` | tools whose name starts with `sql_` |
//! | `*_write` | tools whose name ends with `_write` |
//! | `*secret*` | tools whose name contains `secret` |
//! | `*` | every tool |
//! | `read_file\|write_file` | either tool |
//! | `Bash(git push*)` | `Bash` calls whose subject (its `command`, `file_path`, `path` or `url` argument) starts with `git push` |
//!
//! [`Alternative::matches`] compares a subject with its glob as written. The
//! runtime (`hooks_core::Matcher`) reads a `command` subject as a bash command
//! and matches the glob against each simple command in it, word by word
//! ([`glob_matches_words`]); that needs a shell parser, which this module, also
//! loaded by the attribute macros, does not carry.
//!
//! ```
//! let alternatives = hooks_events::pattern::parse("sql_*|Bash(rm -rf *)").unwrap();
//! assert!(alternatives[0].matches("sql_query", None));
//! assert!(alternatives[1].matches("Bash", Some("rm -rf /tmp/x")));
//! assert!(!alternatives[1].matches("Bash", Some("ls")));
//! ```

mod distance;
mod glob;
mod parse;

pub use distance::edit_distance;
pub use glob::{collapse_whitespace, glob_matches, glob_matches_words};
pub use parse::{PatternError, parse};

/// How an alternative matches a tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameGlob<S> {
    /// `*`: every tool.
    Any,
    /// `name`: exactly this tool.
    Exact(S),
    /// `name*`: tools whose name starts with this.
    Prefix(S),
    /// `*name`: tools whose name ends with this.
    Suffix(S),
    /// `*name*`: tools whose name contains this.
    Contains(S),
}

impl<S> NameGlob<S> {
    /// Converts the stored text, e.g. from `String` to `Box<str>`.
    pub fn map<T>(self, f: impl FnOnce(S) -> T) -> NameGlob<T> {
        match self {
            NameGlob::Any => NameGlob::Any,
            NameGlob::Exact(s) => NameGlob::Exact(f(s)),
            NameGlob::Prefix(s) => NameGlob::Prefix(f(s)),
            NameGlob::Suffix(s) => NameGlob::Suffix(f(s)),
            NameGlob::Contains(s) => NameGlob::Contains(f(s)),
        }
    }
}

impl<S: AsRef<str>> NameGlob<S> {
    /// Whether `tool` is matched.
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            NameGlob::Any => true,
            NameGlob::Exact(name) => tool == name.as_ref(),
            NameGlob::Prefix(prefix) => tool.starts_with(prefix.as_ref()),
            NameGlob::Suffix(suffix) => tool.ends_with(suffix.as_ref()),
            NameGlob::Contains(part) => tool.contains(part.as_ref()),
        }
    }
}

/// One `|`-separated alternative of a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alternative<S> {
    /// The tool-name part.
    pub tool: NameGlob<S>,
    /// The glob in `Tool(glob)`, matched against the call's subject.
    pub subject: Option<S>,
}

impl<S> Alternative<S> {
    /// Converts the stored text, e.g. from `String` to `Box<str>`.
    pub fn map<T>(self, mut f: impl FnMut(S) -> T) -> Alternative<T> {
        Alternative {
            tool: self.tool.map(&mut f),
            subject: self.subject.map(f),
        }
    }
}

impl<S: AsRef<str>> Alternative<S> {
    /// Whether a call of `tool` whose subject is `subject` is matched, the
    /// subject compared as written (no shell parsing).
    ///
    /// An alternative with a subject glob never matches a call without a subject.
    pub fn matches(&self, tool: &str, subject: Option<&str>) -> bool {
        self.tool.matches(tool)
            && match (&self.subject, subject) {
                (None, _) => true,
                (Some(glob), Some(subject)) => glob_matches(glob.as_ref(), subject),
                (Some(_), None) => false,
            }
    }

    /// Whether this alternative can match some call of `tool`, whatever its subject.
    pub fn may_match_tool(&self, tool: &str) -> bool {
        self.tool.matches(tool)
    }
}
