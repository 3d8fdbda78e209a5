//! `[redact]`: the dispatcher's redactor (hooks-std's `Redactor`), given to
//! the builder with `redactor(..)`: the secrets the program knows, by the
//! environment variable or file that holds each, and the shape rules' key
//! terms and credential prefixes.
//!
//! ```toml
//! [redact]
//! secret_env = ["DATABASE_PASSWORD", "OPENAI_API_KEY"]
//! secret_files = ["/run/secrets/stripe_key"]   # whole content, white space around it trimmed
//! keys = ["password", "token", "pin"]          # instead of the default terms
//! prefixes = ["sk-", "acme_"]                  # instead of the default prefixes
//! ```
//!
//! Each secret is read when the file is applied. A variable that is not
//! set, a file that cannot be read, or a secret shorter than 8 bytes stops
//! the file from applying, with the line that names it (never the value):
//! a secret that could not be read would otherwise be written in the clear.
//!
//! With it, every hook error, denial reason and approval prompt passes the
//! redactor; the audit log and the approval store redact with it as well as
//! with their own tables' terms; and the known secrets, in any encoding,
//! are taken out of tool results and errors before the model reads them.

use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

#[cfg(feature = "redact")]
use crate::Problems;
use crate::toml_file::line_of;

/// Where a secret is read from.
#[cfg(feature = "redact")]
enum Source<'a> {
    Env(&'a str),
    File(&'a std::path::Path),
}

/// The table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedactTable {
    #[serde(default)]
    secret_env: Vec<Spanned<String>>,
    #[serde(default)]
    secret_files: Vec<Spanned<PathBuf>>,
    keys: Option<Vec<String>>,
    prefixes: Option<Vec<String>>,
}

/// The table, each secret's source with the line naming it.
#[cfg_attr(not(feature = "redact"), allow(dead_code))] // read to be refused
pub(crate) struct RedactSettings {
    pub(crate) line: u32,
    secret_env: Vec<(u32, String)>,
    secret_files: Vec<(u32, PathBuf)>,
    keys: Option<Vec<String>>,
    prefixes: Option<Vec<String>>,
}

impl RedactSettings {
    pub(crate) fn new(text: &str, table: Spanned<RedactTable>) -> Self {
        let line = line_of(text, table.span().start);
        let table = table.into_inner();
        let lines = |span: std::ops::Range<usize>| line_of(text, span.start);
        RedactSettings {
            line,
            secret_env: table
                .secret_env
                .into_iter()
                .map(|name| (lines(name.span()), name.into_inner()))
                .collect(),
            secret_files: table
                .secret_files
                .into_iter()
                .map(|path| (lines(path.span()), path.into_inner()))
                .collect(),
            keys: table.keys,
            prefixes: table.prefixes,
        }
    }

    /// Gives the builder the redactor, once every secret is read (from the
    /// environment, from files: nothing is written); each one that cannot
    /// be is a problem.
    #[cfg(feature = "redact")]
    pub(crate) fn prepare(
        self,
        file: &str,
        problems: &mut Problems,
        prepared: &mut crate::standard::Prepared,
    ) {
        if let Some(redactor) = self.redactor(file, problems) {
            prepared.step(move |builder| builder.redactor(redactor));
        }
    }

    #[cfg(feature = "redact")]
    fn redactor(self, file: &str, problems: &mut Problems) -> Option<hooks_std::redact::Redactor> {
        use hooks_std::redact::{DEFAULT_KEYS, DEFAULT_PREFIXES, Redactor};

        let keys = self
            .keys
            .unwrap_or_else(|| DEFAULT_KEYS.map(str::to_owned).to_vec());
        let prefixes = self
            .prefixes
            .unwrap_or_else(|| DEFAULT_PREFIXES.map(str::to_owned).to_vec());
        let mut redactor = Redactor::new(&keys, prefixes);
        // Every secret is read, so that every problem is reported at once.
        let mut failed = false;
        let sources = (self.secret_env.iter())
            .map(|(line, name)| (*line, Source::Env(name)))
            .chain((self.secret_files.iter()).map(|(line, path)| (*line, Source::File(path))));
        for (line, source) in sources {
            let known = match source {
                Source::Env(name) => redactor.clone().with_secret_env(name),
                Source::File(path) => redactor.clone().with_secret_file(path),
            };
            match known {
                Ok(known) => redactor = known,
                Err(error) => {
                    problems.push(file, line, None, format!("[redact]: {error}"));
                    failed = true;
                }
            }
        }
        (!failed).then_some(redactor)
    }
}
