//! Errors in a standard hook's configuration.

use std::fmt;

/// A standard hook's configuration was refused; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    hook: &'static str,
    message: String,
}

impl ConfigError {
    // Every standard hook uses it; a build with none of them on does not.
    #[cfg_attr(
        not(any(
            feature = "read-only",
            feature = "truncate",
            feature = "rate-limit",
            feature = "audit-log",
            feature = "approval",
            feature = "cedar"
        )),
        allow(dead_code)
    )]
    pub(crate) fn new(hook: &'static str, message: impl Into<String>) -> Self {
        ConfigError {
            hook,
            message: message.into(),
        }
    }

    /// The standard hook whose configuration was refused, e.g. `read-only`.
    pub fn hook(&self) -> &str {
        self.hook
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} configuration: {}", self.hook, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Compiles tool patterns, naming the setting and the pattern on error.
#[cfg(any(feature = "read-only", feature = "truncate", feature = "approval"))]
pub(crate) fn matchers(
    hook: &'static str,
    setting: &str,
    patterns: &[String],
) -> Result<Vec<hooks_core::Matcher>, ConfigError> {
    patterns
        .iter()
        .map(|pattern| {
            hooks_core::Matcher::parse(pattern).map_err(|error| {
                ConfigError::new(
                    hook,
                    format!("`{setting}`: bad pattern \"{pattern}\": {error}"),
                )
            })
        })
        .collect()
}

/// Durations written as `"30s"`, `"1m"`, `"1h 30m"` (the settings of the
/// rate limit, the approval gate and the audit sink).
#[cfg(any(feature = "rate-limit", feature = "approval", feature = "audit-log"))]
pub(crate) mod duration {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Duration, D::Error> {
        let text = String::deserialize(deserializer)?;
        humantime::parse_duration(&text).map_err(|error| {
            serde::de::Error::custom(format!(
                "bad duration \"{text}\": {error} (write e.g. \"30s\", \"1m\")"
            ))
        })
    }

    pub(crate) fn serialize<S: Serializer>(
        duration: &Duration,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&humantime::format_duration(*duration).to_string())
    }
}

/// Replaces each `${NAME}` in a store's address with the environment
/// variable `NAME`, so secrets stay out of configuration files. An unset one
/// is an error naming it (never a value: values are secrets); errors read
/// after the name of what was expanded (`` `store` names ... ``).
#[cfg(any(feature = "rate-limit", feature = "postgres"))]
pub(crate) fn expand_env(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| "has a `${` with no closing `}`".to_owned())?;
        let name = &after[..end];
        let value = std::env::var(name)
            .map_err(|_| format!("names `${{{name}}}`, and that variable is not set"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(all(test, any(feature = "rate-limit", feature = "postgres")))]
mod tests {
    use super::expand_env;

    #[test]
    fn store_addresses_take_variables_from_the_environment() {
        let path = std::env::var("PATH").unwrap();
        assert_eq!(
            expand_env("a${PATH}b${PATH}").unwrap(),
            format!("a{path}b{path}")
        );
        assert_eq!(expand_env("$PATH {x}").unwrap(), "$PATH {x}");
        assert!(
            expand_env("redis://${PATH")
                .unwrap_err()
                .contains("no closing")
        );
        let unset = expand_env("${HOOKS_STD_NEVER_SET}").unwrap_err();
        assert!(unset.contains("`${HOOKS_STD_NEVER_SET}`, and that variable is not set"));
    }
}
