//! Reading the policy and entities files: each policy gets an id (its
//! `@id("...")`, or `FILE#N`) and keeps its file, so errors and denials
//! can name both; a parse error names the file and line.

use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::SystemTime;

use cedar_policy::{PolicyId, PolicySet};
use miette::Diagnostic;

use super::config::Cedar;
use crate::config::ConfigError;

/// The policy files and the entities file, read and parsed.
pub(crate) struct Files {
    pub(crate) policies: PolicySet,
    /// Each policy's file, and the file's text (for line numbers).
    pub(crate) origins: HashMap<PolicyId, usize>,
    pub(crate) sources: Vec<Source>,
    /// The entities file's JSON (an array), if one is configured.
    pub(crate) entities: Option<(PathBuf, serde_json::Value)>,
    pub(crate) stamp: Stamp,
}

/// One policy file.
pub(crate) struct Source {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
}

impl Source {
    /// `FILE:LINE` of a byte offset into the file's text.
    pub(crate) fn at(&self, offset: usize) -> String {
        format!("{}:{}", self.path.display(), line_of(&self.text, offset))
    }
}

/// What the files looked like when read: (path, size, modified) each, so a
/// change is seen without reading them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Stamp(Vec<(PathBuf, u64, Option<SystemTime>)>);

/// The 1-based line of `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.get(..end).unwrap_or(text).matches('\n').count() + 1
}

/// The policy files a configuration names, in name order.
fn policy_paths(config: &Cedar) -> Result<Vec<PathBuf>, ConfigError> {
    let path = &config.policies;
    if path.as_os_str().is_empty() {
        return Err(ConfigError::new(
            "cedar",
            "`policies` names no file: give a .cedar file or a directory of them",
        ));
    }
    let meta = std::fs::metadata(path).map_err(|error| {
        ConfigError::new(
            "cedar",
            format!("`policies`: cannot read {}: {error}", path.display()),
        )
    })?;
    if !meta.is_dir() {
        return Ok(vec![path.clone()]);
    }
    let entries = std::fs::read_dir(path).map_err(|error| {
        ConfigError::new(
            "cedar",
            format!("`policies`: cannot list {}: {error}", path.display()),
        )
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| {
            ConfigError::new(
                "cedar",
                format!("`policies`: cannot list {}: {error}", path.display()),
            )
        })?;
        let file = entry.path();
        if file.extension().is_some_and(|ext| ext == "cedar") && file.is_file() {
            files.push(file);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(ConfigError::new(
            "cedar",
            format!(
                "`policies`: {} holds no .cedar file: an empty policy set would decide nothing",
                path.display()
            ),
        ));
    }
    Ok(files)
}

/// The files' sizes and times, cheaply (no reading).
pub(crate) fn stamp(config: &Cedar) -> Result<Stamp, ConfigError> {
    let mut paths = policy_paths(config)?;
    paths.extend(config.entities.iter().cloned());
    let mut stamp = Vec::with_capacity(paths.len());
    for path in paths {
        let meta = std::fs::metadata(&path).map_err(|error| {
            ConfigError::new("cedar", format!("cannot read {}: {error}", path.display()))
        })?;
        stamp.push((path, meta.len(), meta.modified().ok()));
    }
    Ok(Stamp(stamp))
}

impl Files {
    /// Reads and parses every file the configuration names.
    pub(crate) fn load(config: &Cedar) -> Result<Files, ConfigError> {
        let stamp = stamp(config)?;
        let mut policies = PolicySet::new();
        let mut origins = HashMap::new();
        let mut sources = Vec::new();
        let mut problems = Vec::new();
        for path in policy_paths(config)? {
            let text = std::fs::read_to_string(&path).map_err(|error| {
                ConfigError::new("cedar", format!("cannot read {}: {error}", path.display()))
            })?;
            let source = Source { path, text };
            let index = sources.len();
            match PolicySet::from_str(&source.text) {
                Err(errors) => {
                    for error in errors.iter() {
                        problems.push(located(&source, error, &error.to_string()));
                    }
                }
                Ok(parsed) => {
                    let name = source
                        .path
                        .file_name()
                        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
                    // `PolicySet::from_str` numbers them in file order: policy0, policy1, ...
                    let mut parsed: Vec<_> = parsed.policies().cloned().collect();
                    parsed.sort_by_key(|policy| {
                        policy
                            .id()
                            .to_string()
                            .strip_prefix("policy")
                            .and_then(|n| n.parse::<usize>().ok())
                            .unwrap_or(usize::MAX)
                    });
                    for (n, policy) in parsed.into_iter().enumerate() {
                        let id = policy
                            .annotation("id")
                            .map_or_else(|| format!("{name}#{}", n + 1), str::to_owned);
                        let id = PolicyId::new(id);
                        if let Some(&other) = origins.get(&id) {
                            let other: &Source = &sources[other];
                            problems.push(format!(
                                "{}: two policies have the id `{id}` (the other is in {}): give each its own @id",
                                source.path.display(),
                                other.path.display()
                            ));
                            continue;
                        }
                        let policy = policy.new_id(id.clone());
                        policies.add(policy).map_err(|error| {
                            ConfigError::new("cedar", format!("{}: {error}", source.path.display()))
                        })?;
                        origins.insert(id, index);
                    }
                }
            }
            sources.push(source);
        }
        if !problems.is_empty() {
            return Err(ConfigError::new("cedar", problems.join("\n")));
        }
        let entities = match &config.entities {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|error| {
                    ConfigError::new(
                        "cedar",
                        format!("`entities`: cannot read {}: {error}", path.display()),
                    )
                })?;
                let value: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
                    ConfigError::new(
                        "cedar",
                        format!("{}:{}: not JSON: {error}", path.display(), error.line()),
                    )
                })?;
                if !value.is_array() {
                    return Err(ConfigError::new(
                        "cedar",
                        format!(
                            "{}:1: the entities file is a JSON array of entities ({{\"uid\": .., \"attrs\": .., \"parents\": ..}})",
                            path.display()
                        ),
                    ));
                }
                Some((path.clone(), value))
            }
        };
        Ok(Files {
            policies,
            origins,
            sources,
            entities,
            stamp,
        })
    }

    /// The file of a policy, for messages.
    pub(crate) fn source_of(&self, id: &PolicyId) -> Option<&Source> {
        self.origins.get(id).map(|&index| &self.sources[index])
    }
}

/// `FILE:LINE: message`, the line from the diagnostic's first label.
pub(crate) fn located(source: &Source, diagnostic: &dyn Diagnostic, message: &str) -> String {
    let offset = diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .map_or(0, |label| label.offset());
    let help = diagnostic
        .help()
        .map(|help| format!(" ({help})"))
        .unwrap_or_default();
    format!("{}: {message}{help}", source.at(offset))
}
