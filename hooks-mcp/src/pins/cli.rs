//! `hooks-mcp pins list | accept [TOOL...] | diff TOOL`: what the pins file
//! of a state directory holds, what changed, and accepting it.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::diff::diff;
use super::store::{Store, Table};

/// The subcommand's usage.
pub(crate) const USAGE: &str = "\
usage: hooks-mcp pins list [--state-dir DIR]
       hooks-mcp pins accept [TOOL...] [--state-dir DIR]
       hooks-mcp pins diff TOOL [--state-dir DIR]

The tool definitions a gateway started with `--state-dir DIR` pinned, in
DIR/mcp-pins.json (DIR defaults to $HOOKS_STATE_DIR).
  list     every pinned tool, and which are held back (changed, or new in strict mode)
  diff     what changed in TOOL's definition: `-` pinned, `+` seen
  accept   pin the definitions seen of the TOOLs named (all held back, if none):
           a running gateway offers them again at its next tools/list
A TOOL is `upstream/tool`, or the tool's name alone when one upstream has it.";

/// Runs `hooks-mcp pins ARGS`: what to print on stdout, or an error for stderr.
///
/// # Errors
///
/// Bad arguments, no state directory, a pins file that cannot be read or
/// written, a tool it does not know.
pub fn command(args: impl IntoIterator<Item = String>) -> Result<String, String> {
    let mut state_dir = None;
    let mut words = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--state-dir" => {
                state_dir = Some(PathBuf::from(
                    args.next().ok_or("`--state-dir` needs a directory")?,
                ));
            }
            "-h" | "--help" => return Ok(USAGE.to_owned()),
            _ => words.push(arg),
        }
    }
    let dir = state_dir
        .or_else(|| std::env::var_os("HOOKS_STATE_DIR").map(PathBuf::from))
        .ok_or("no state directory: give `--state-dir DIR` (or set HOOKS_STATE_DIR)")?;
    let store = Store::in_dir(&dir);
    let (action, names) = words.split_first().ok_or_else(|| USAGE.to_owned())?;
    match action.as_str() {
        "list" if names.is_empty() => list(&store),
        "diff" if names.len() == 1 => show_diff(&store, &names[0]),
        "accept" => accept(&store, names),
        other => Err(format!(
            "unknown `pins {other}` or wrong arguments\n{USAGE}"
        )),
    }
}

fn load(store: &Store) -> Result<Table, String> {
    if store.stamp()?.is_none() {
        return Err(format!(
            "no pins file at {}: a gateway started with this `--state-dir` writes it",
            store.path().display()
        ));
    }
    store.load()
}

fn list(store: &Store) -> Result<String, String> {
    let table = load(store)?;
    let width = table
        .tools
        .keys()
        .map(|key| key.chars().count())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (key, entry) in &table.tools {
        let line = match (&entry.pinned, &entry.changed) {
            (Some(pinned), None) => format!("pinned   {}", pinned.short()),
            (Some(pinned), Some(seen)) => format!(
                "changed  pinned {}, seen {}: held back (`hooks-mcp pins diff {key}`)",
                pinned.short(),
                seen.short()
            ),
            (None, Some(seen)) => {
                format!("new      seen {}: held back (strict pinning)", seen.short())
            }
            (None, None) => "empty".to_owned(),
        };
        let _ = writeln!(text, "{key:<width$}  {line}");
    }
    Ok(text)
}

/// The key `name` means: `upstream/tool` as it is, or a tool's name alone
/// if one upstream has it.
fn resolve<'t>(table: &'t Table, name: &str) -> Result<&'t String, String> {
    if let Some((key, _)) = table.tools.get_key_value(name) {
        return Ok(key);
    }
    let matching: Vec<&String> = table
        .tools
        .keys()
        .filter(|key| key.split_once('/').is_some_and(|(_, tool)| tool == name))
        .collect();
    match matching.as_slice() {
        [key] => Ok(key),
        [] => Err(format!(
            "no pinned tool `{name}` (see `hooks-mcp pins list`)"
        )),
        several => Err(format!(
            "`{name}` is a tool of several upstreams: name one of {}",
            several
                .iter()
                .map(|key| format!("`{key}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn show_diff(store: &Store, name: &str) -> Result<String, String> {
    let table = load(store)?;
    let key = resolve(&table, name)?;
    let entry = &table.tools[key];
    let Some(seen) = &entry.changed else {
        return Ok(format!("{key}: unchanged since it was pinned\n"));
    };
    let empty = serde_json::Value::Null;
    let pinned = entry
        .pinned
        .as_ref()
        .map_or(&empty, |pinned| pinned.value());
    Ok(format!(
        "--- {key} pinned {}\n+++ {key} seen {}\n{}",
        entry
            .pinned
            .as_ref()
            .map_or("(none)", |pinned| pinned.short()),
        seen.short(),
        diff(pinned, seen.value())
    ))
}

fn accept(store: &Store, names: &[String]) -> Result<String, String> {
    let mut table = load(store)?;
    let keys: Vec<String> = if names.is_empty() {
        table
            .tools
            .iter()
            .filter(|(_, entry)| entry.changed.is_some())
            .map(|(key, _)| key.clone())
            .collect()
    } else {
        let mut keys = Vec::new();
        for name in names {
            let key = resolve(&table, name)?.clone();
            if table.tools[&key].changed.is_none() {
                return Err(format!(
                    "`{key}` has no change to accept: it is pinned as it is seen"
                ));
            }
            keys.push(key);
        }
        keys
    };
    if keys.is_empty() {
        return Ok("nothing to accept: every tool is as it was pinned\n".to_owned());
    }
    let mut text = String::new();
    for key in &keys {
        let entry = table
            .tools
            .get_mut(key)
            .ok_or("the pins file changed meanwhile")?;
        if let Some(seen) = entry.changed.take() {
            let _ = writeln!(text, "accepted {key} (now pinned {})", seen.short());
            entry.pinned = Some(seen);
        }
    }
    store.save(&table)?;
    Ok(text)
}
