//! The core's layout holds: its folders and leaf modules depend on each
//! other one way, in the order `lib.rs` lists them. Read from the sources:
//! every `crate::<unit>` a file names is an edge from its unit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The units, lowest first: a unit may use only units before it.
const LAYERS: &[&str] = &[
    "event", "matcher", "name", "session", "catalog", "verdict", "context", "registry", "dispatch",
];

/// The unit a source file belongs to: its folder, or its own name.
fn unit(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_owned())
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Every unit named as `crate::<unit>` in `text` (doc links included: a
/// link is a dependency a reader follows too, but only code is counted).
fn uses(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .flat_map(|line| {
            line.match_indices("crate::")
                .map(move |(at, _)| &line[at + 7..])
        })
        .filter_map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            LAYERS.contains(&name.as_str()).then_some(name)
        })
        .collect()
}

#[test]
fn units_depend_on_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let Some(from) = unit(relative) else { continue };
        if !LAYERS.contains(&from.as_str()) {
            continue; // lib.rs, private.rs, macros.rs: the facade sees everything
        }
        let text = std::fs::read_to_string(file).unwrap();
        for to in uses(&text) {
            if to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    let rank = |unit: &str| LAYERS.iter().position(|layer| *layer == unit).unwrap();
    let upward: Vec<String> = edges
        .iter()
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|to| rank(to) > rank(from))
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    assert!(
        upward.is_empty(),
        "these imports run against the layering {LAYERS:?}: {upward:?}"
    );
    // The folders do use what is below them: the test reads what it claims to.
    assert!(edges["dispatch"].contains("registry"));
    assert!(edges["registry"].contains("context"));
    assert!(edges["context"].contains("verdict"));
}
