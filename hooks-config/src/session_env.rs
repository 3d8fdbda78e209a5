//! `CLAUDE_ENV_FILE`: a `SessionStart` command hook may write `export
//! VAR=value` lines to the file this names; once it has run, those variables
//! are set for every later command hook of the same dispatcher. The state
//! belongs to one applied configuration (one dispatcher), never the process.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variables `SessionStart` hooks of one dispatcher have written.
#[derive(Debug, Default)]
pub(crate) struct SessionEnv {
    vars: Mutex<BTreeMap<String, String>>,
}

/// A file a hook may write variables to; removed when dropped.
pub(crate) struct EnvFile {
    path: PathBuf,
}

impl EnvFile {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for EnvFile {
    fn drop(&mut self) {
        // Already gone (the hook removed it) is fine.
        let _ = std::fs::remove_file(&self.path);
    }
}

impl SessionEnv {
    /// The variables written so far.
    pub(crate) fn vars(&self) -> Vec<(String, String)> {
        let vars = self
            .vars
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        vars.iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    }

    /// A new, empty file for one hook run, readable by this user only.
    pub(crate) fn env_file() -> io::Result<EnvFile> {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos());
        let path = std::env::temp_dir().join(format!(
            "hooks-env-{}-{}-{nanos}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        // `create_new`: never a file (or link) someone else put there.
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        Ok(EnvFile { path })
    }

    /// Takes in what the hook wrote to `file`.
    pub(crate) fn absorb(&self, file: &EnvFile, hook: &str) {
        let Ok(text) = std::fs::read_to_string(file.path()) else {
            return;
        };
        let mut vars = self
            .vars
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for line in text.lines() {
            match parse_line(line) {
                Ok(Some((key, value))) => {
                    vars.insert(key, value);
                }
                Ok(None) => {}
                Err(()) => tracing::warn!(
                    hook,
                    line,
                    "CLAUDE_ENV_FILE: not `export VAR=value`; ignored"
                ),
            }
        }
    }
}

/// `export K=V`, `K=V`, `K="quoted \"value\""` or `K='literal'`; `Ok(None)`
/// for a blank line or a comment, `Err` for anything else.
fn parse_line(line: &str) -> Result<Option<(String, String)>, ()> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let line = line.strip_prefix("export ").map_or(line, str::trim_start);
    let (key, value) = line.split_once('=').ok_or(())?;
    let valid_key = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid_key {
        return Err(());
    }
    let value = if let Some(inner) = value
        .strip_prefix('\'')
        .and_then(|rest| rest.strip_suffix('\''))
    {
        inner.to_owned()
    } else if let Some(inner) = value
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        let mut unquoted = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match (c, chars.clone().next()) {
                ('\\', Some(next @ ('"' | '\\' | '$' | '`'))) => {
                    unquoted.push(next);
                    chars.next();
                }
                _ => unquoted.push(c),
            }
        }
        unquoted
    } else {
        value.to_owned()
    };
    Ok(Some((key.to_owned(), value)))
}

#[cfg(test)]
mod tests {
    use super::parse_line;

    #[allow(clippy::unnecessary_wraps)] // compared with what `parse_line` returns
    fn pair(key: &str, value: &str) -> Result<Option<(String, String)>, ()> {
        Ok(Some((key.to_owned(), value.to_owned())))
    }

    #[test]
    fn env_file_lines_parse_as_a_shell_would_read_them() {
        assert_eq!(parse_line("export A=1"), pair("A", "1"));
        assert_eq!(parse_line("  B=two words"), pair("B", "two words"));
        assert_eq!(
            parse_line(r#"export C="say \"hi\" \$HOME""#),
            pair("C", r#"say "hi" $HOME"#)
        );
        assert_eq!(parse_line("D='a \"b\" $c'"), pair("D", "a \"b\" $c"));
        assert_eq!(parse_line("E="), pair("E", ""));
        assert_eq!(parse_line("# comment"), Ok(None));
        assert_eq!(parse_line(""), Ok(None));
        assert_eq!(parse_line("1X=1"), Err(()));
        assert_eq!(parse_line("unset A"), Err(()));
        assert_eq!(parse_line("A-B=1"), Err(()));
    }
}
