//! Throwaway knowledge graphs for `@modelcontextprotocol/server-memory`.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use super::npm::npm_server;
use super::scratch::Scratch;

/// A memory file of its own (`MEMORY_FILE_PATH`), in a scratch directory;
/// removed when dropped. The server keeps the whole graph in it, one JSON
/// record per line, and writes it anew (to a temporary file renamed over it)
/// on every change.
pub(crate) struct Memory(Scratch);

impl Memory {
    /// An empty graph: no file yet.
    pub(crate) fn new() -> Memory {
        Memory(Scratch::new("mcp-memory"))
    }

    /// The command line of `mcp-server-memory` on this graph. It starts with
    /// `env`, to set the file's path for the server alone: give the gateway
    /// `--name`, or it names the upstream `env`.
    pub(crate) fn server(&self) -> Vec<String> {
        vec![
            "env".to_owned(),
            format!("MEMORY_FILE_PATH={}", self.file().display()),
            npm_server("mcp-server-memory"),
        ]
    }

    pub(crate) fn file(&self) -> PathBuf {
        self.0.path().join("memory.jsonl")
    }

    /// Writes the graph as `records` (`{"type": "entity", ...}` and
    /// `{"type": "relation", ...}`), in the server's own format.
    pub(crate) fn seed(&self, records: &[Value]) {
        let lines: Vec<String> = records.iter().map(Value::to_string).collect();
        self.0.write("memory.jsonl", &lines.join("\n"));
    }

    /// The file's records, in order; none when there is no file. Equal
    /// records before and after a call show it changed nothing.
    pub(crate) fn records(&self) -> Vec<Value> {
        let path = self.file();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(error) => panic!("reading {}: {error}", path.display()),
        };
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("{} holds `{line}`: {error}", path.display()))
            })
            .collect()
    }
}
