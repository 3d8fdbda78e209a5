//! What an argument of a tool holds, so guards know which values to judge.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

use super::source::Source;

/// What an argument holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArgRole {
    /// SQL a database will run (every string in it is judged as SQL).
    Sql,
    /// A shell command.
    Shell,
    /// A file system path.
    Path,
    /// A URL.
    Url,
    /// A secret (a password, a token): never to be shown or written.
    Secret,
}

impl ArgRole {
    /// Every role, in the order their names are listed in messages.
    pub const ALL: [ArgRole; 5] = [
        ArgRole::Sql,
        ArgRole::Shell,
        ArgRole::Path,
        ArgRole::Url,
        ArgRole::Secret,
    ];

    /// The role's name in configuration (`sql`, `shell`, `path`, `url`, `secret`).
    pub fn as_str(self) -> &'static str {
        match self {
            ArgRole::Sql => "sql",
            ArgRole::Shell => "shell",
            ArgRole::Path => "path",
            ArgRole::Url => "url",
            ArgRole::Secret => "secret",
        }
    }
}

impl fmt::Display for ArgRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role name that is not one of `sql`, `shell`, `path`, `url`, `secret`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRole(pub String);

impl fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown argument role \"{}\" (known: sql, shell, path, url, secret)",
            self.0
        )
    }
}

impl std::error::Error for UnknownRole {}

impl FromStr for ArgRole {
    type Err = UnknownRole;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        ArgRole::ALL
            .into_iter()
            .find(|role| role.as_str() == name)
            .ok_or_else(|| UnknownRole(name.to_owned()))
    }
}

/// One argument of a tool and its role: `query` (a top-level key) or a JSON
/// Pointer (`/params/query`) for one nested deeper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgFact {
    /// The argument: a key, or a JSON Pointer starting with `/`.
    pub path: String,
    /// What it holds.
    pub role: ArgRole,
    /// Where the fact came from.
    pub source: Source,
}

impl ArgFact {
    /// The argument's value in `args`, if present.
    pub fn find<'a>(&self, args: &'a Value) -> Option<&'a Value> {
        if self.path.starts_with('/') {
            args.pointer(&self.path)
        } else {
            args.get(&self.path)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn roles_read_their_names_and_refuse_others() {
        for role in ArgRole::ALL {
            assert_eq!(role.as_str().parse::<ArgRole>(), Ok(role));
        }
        let error = "SQL".parse::<ArgRole>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown argument role \"SQL\" (known: sql, shell, path, url, secret)"
        );
    }

    #[test]
    fn an_argument_is_a_key_or_a_pointer() {
        let args = json!({"query": "a", "params": {"query": "b"}, "a/b": "c"});
        let fact = |path: &str| ArgFact {
            path: path.to_owned(),
            role: ArgRole::Sql,
            source: Source::Code,
        };
        assert_eq!(fact("query").find(&args), Some(&json!("a")));
        assert_eq!(fact("/params/query").find(&args), Some(&json!("b")));
        assert_eq!(fact("a/b").find(&args), Some(&json!("c")));
        assert_eq!(fact("/missing").find(&args), None);
    }
}
