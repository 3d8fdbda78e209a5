//! The pins file, `mcp-pins.json` in the state directory: per tool
//! (`upstream/tool`), the definition accepted, and the one last seen that
//! differs from it. Written whole to a temporary file and renamed over the
//! old, so a reader never sees half of it; a file that does not read back
//! is an error naming it, never a fresh start (that would pin whatever the
//! server says today).

use std::collections::BTreeMap;
use std::fs;
use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What tells one version of the file from another: a write renames a new
/// file into place, so its inode changes even when the clock's grain is coarse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    modified: SystemTime,
    len: u64,
    #[cfg(unix)]
    inode: u64,
}

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::definition::Definition;

/// The pins file's name in the state directory.
pub const FILE_NAME: &str = "mcp-pins.json";

const VERSION: u32 = 1;

/// What the file holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Table {
    pub(crate) tools: BTreeMap<String, Entry>,
}

/// One tool's pins.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Entry {
    /// The definition accepted (first seen, or accepted by a person).
    pub(crate) pinned: Option<Definition>,
    /// The definition last seen, when it differs from the pinned one (or
    /// none is pinned yet, in strict mode): waiting to be accepted.
    pub(crate) changed: Option<Definition>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileForm {
    version: u32,
    tools: BTreeMap<String, EntryForm>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryForm {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pinned: Option<DefinitionForm>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    changed: Option<DefinitionForm>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefinitionForm {
    sha256: String,
    definition: Value,
}

/// The pins file of one state directory.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    path: PathBuf,
}

impl Store {
    /// The pins file in `dir`.
    pub(crate) fn in_dir(dir: &Path) -> Self {
        Store {
            path: dir.join(FILE_NAME),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Which version of the file is there (`None`: there is none yet).
    pub(crate) fn stamp(&self) -> Result<Option<Stamp>, String> {
        match fs::metadata(&self.path) {
            Ok(metadata) => Ok(Some(Stamp {
                modified: metadata
                    .modified()
                    .map_err(|error| self.error("cannot read the time of", &error))?,
                len: metadata.len(),
                #[cfg(unix)]
                inode: std::os::unix::fs::MetadataExt::ino(&metadata),
            })),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            Err(error) => Err(self.error("cannot read", &error)),
        }
    }

    /// The table, empty if there is no file yet.
    pub(crate) fn load(&self) -> Result<Table, String> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(Table::default()),
            Err(error) => return Err(self.error("cannot read", &error)),
        };
        let corrupt = |what: String| {
            format!(
                "the pins file {} is not valid: {what}; restore it, or remove it to pin every tool afresh",
                self.path.display()
            )
        };
        let form: FileForm =
            serde_json::from_str(&text).map_err(|error| corrupt(error.to_string()))?;
        if form.version != VERSION {
            return Err(corrupt(format!(
                "version {} (this hooks-mcp reads version {VERSION})",
                form.version
            )));
        }
        let read =
            |tool: &str, form: Option<DefinitionForm>| -> Result<Option<Definition>, String> {
                let Some(form) = form else { return Ok(None) };
                let definition = Definition::from_value(&form.definition);
                if definition.sha256() != form.sha256 {
                    return Err(corrupt(format!(
                        "the definition of `{tool}` does not match its sha256 (edited by hand?)"
                    )));
                }
                Ok(Some(definition))
            };
        let mut table = Table::default();
        for (tool, entry) in form.tools {
            let entry = Entry {
                pinned: read(&tool, entry.pinned)?,
                changed: read(&tool, entry.changed)?,
            };
            table.tools.insert(tool, entry);
        }
        Ok(table)
    }

    /// Writes `table` whole: a temporary file beside the pins file, synced,
    /// then renamed over it. Makes the state directory if need be (it was
    /// named by the person).
    pub(crate) fn save(&self, table: &Table) -> Result<(), String> {
        let form = FileForm {
            version: VERSION,
            tools: table
                .tools
                .iter()
                .map(|(tool, entry)| {
                    let form = |definition: &Option<Definition>| {
                        definition.as_ref().map(|definition| DefinitionForm {
                            sha256: definition.sha256().to_owned(),
                            definition: definition.value().clone(),
                        })
                    };
                    (
                        tool.clone(),
                        EntryForm {
                            pinned: form(&entry.pinned),
                            changed: form(&entry.changed),
                        },
                    )
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&form)
            .map_err(|error| format!("cannot write the pins file: {error}"))?;
        text.push('\n');
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(|error| {
                format!("cannot make the state directory {}: {error}", dir.display())
            })?;
        }
        let temporary = self
            .path
            .with_extension(format!("json.{}.tmp", std::process::id()));
        let written = fs::File::create(&temporary).and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
        if let Err(error) = written.and_then(|()| fs::rename(&temporary, &self.path)) {
            let _ = fs::remove_file(&temporary);
            return Err(self.error("cannot write", &error));
        }
        Ok(())
    }

    fn error(&self, what: &str, error: &std::io::Error) -> String {
        format!("{what} the pins file {}: {error}", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hooks-mcp-pins-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_table_written_reads_back_the_same() {
        let dir = dir("roundtrip");
        let store = Store::in_dir(&dir);
        assert_eq!(store.load().unwrap(), Table::default());
        assert_eq!(store.stamp().unwrap(), None);
        let mut table = Table::default();
        table.tools.insert(
            "git/git_status".to_owned(),
            Entry {
                pinned: Some(Definition::from_value(&json!({"name": "git_status"}))),
                changed: Some(Definition::from_value(
                    &json!({"name": "git_status", "title": "x"}),
                )),
            },
        );
        store.save(&table).unwrap();
        assert_eq!(store.load().unwrap(), table);
        assert!(store.stamp().unwrap().is_some());
        // No temporary file left behind.
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_hand_edited_definition_is_refused_naming_the_file() {
        let dir = dir("edited");
        let store = Store::in_dir(&dir);
        let mut table = Table::default();
        table.tools.insert(
            "a/b".to_owned(),
            Entry {
                pinned: Some(Definition::from_value(
                    &json!({"name": "b", "description": "x"}),
                )),
                changed: None,
            },
        );
        store.save(&table).unwrap();
        let text = fs::read_to_string(store.path())
            .unwrap()
            .replace("\"x\"", "\"y\"");
        fs::write(store.path(), text).unwrap();
        let error = store.load().unwrap_err();
        assert!(
            error.contains(&store.path().display().to_string()) && error.contains("`a/b`"),
            "{error}"
        );
        fs::write(store.path(), "{\"version\": 2, \"tools\": {}}").unwrap();
        assert!(store.load().unwrap_err().contains("version 2"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
