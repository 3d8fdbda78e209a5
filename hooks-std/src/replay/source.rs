//! Reading a log or a transcript line by line: every line that holds a call
//! becomes a [`RecordedCall`], every line that cannot be read a
//! [`LineError`]; lines of a transcript that hold no call are passed over.

use std::fmt;
use std::io::{self, BufRead};

use hooks_core::{Value, printable};
use serde::Serialize;

use super::call::{RecordedCall, kind_of};
use super::transcript;

/// Top-level fields only a call has: a line with one is a call, and one
/// without a tool name is an error rather than a line passed over.
const CALL_FIELDS: [&str; 7] = [
    "tool",
    "tool_name",
    "args",
    "tool_input",
    "call_id",
    "tool_use_id",
    "decision",
];

/// The calls read from a file, in order, and the lines that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Recording {
    /// The calls.
    pub calls: Vec<RecordedCall>,
    /// The lines that could not be read.
    pub errors: Vec<LineError>,
}

/// A line that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, printable(&self.message, false))
    }
}

impl std::error::Error for LineError {}

/// Reads the calls in `text`: audit records, simple JSON lines, or a Claude
/// Code transcript, one JSON object a line (see the [module docs](super)).
///
/// ```
/// let recording = hooks_std::replay::parse(concat!(
///     r#"{"tool": "read_file", "args": {"path": "a.txt"}}"#, "\n",
///     "not json\n",
/// ));
/// assert_eq!(recording.calls[0].tool, "read_file");
/// assert_eq!(recording.errors[0].line, 2);
/// ```
pub fn parse(text: &str) -> Recording {
    let mut recording = Recording::default();
    for (index, line) in text.split('\n').enumerate() {
        recording.add(index + 1, line);
    }
    recording
}

/// Like [`parse`], reading from `reader`; a line that is not UTF-8 is a
/// [`LineError`], and only a failing reader is an `Err`.
pub fn read(mut reader: impl BufRead) -> io::Result<Recording> {
    let mut recording = Recording::default();
    let mut bytes = Vec::new();
    let mut number = 0;
    loop {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(recording);
        }
        number += 1;
        match std::str::from_utf8(&bytes) {
            Ok(line) => recording.add(number, line),
            Err(error) => recording.errors.push(LineError {
                line: number,
                message: format!("not UTF-8 text ({error})"),
            }),
        }
    }
}

impl Recording {
    /// Reads one line; blank lines are passed over.
    fn add(&mut self, number: usize, line: &str) {
        if let Err(message) = self.read_line(number, line.trim()) {
            self.errors.push(LineError {
                line: number,
                message,
            });
        }
    }

    fn read_line(&mut self, number: usize, line: &str) -> Result<(), String> {
        if line.is_empty() {
            return Ok(());
        }
        let fields = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(fields)) => fields,
            Ok(other) => {
                return Err(format!(
                    "expected a JSON object (a tool call or a transcript line), not {}",
                    kind_of(&other)
                ));
            }
            Err(error) => return Err(format!("not JSON ({error})")),
        };
        // A record written before its call ran (the PostgreSQL audit sink's):
        // the call is replayed from the `allowed` or `denied` record after it.
        if fields.get("decision").and_then(Value::as_str) == Some("started") {
            return Ok(());
        }
        let kind = fields.get("type").and_then(Value::as_str);
        if kind == Some("assistant") && fields.contains_key("message") {
            transcript::assistant(number, &fields, &mut self.calls, &mut self.errors);
        } else if CALL_FIELDS.iter().any(|field| fields.contains_key(*field)) {
            self.calls.push(RecordedCall::from_line(number, &fields)?);
        } else if kind.is_none() {
            // Passing it over would hide a file in the wrong format.
            return Err(
                "neither a tool call (no `tool` or `tool_name`) nor a transcript line (no `type`)"
                    .to_owned(),
            );
        }
        // Otherwise a transcript line with no call in it: a user message, a
        // tool result, a summary.
        Ok(())
    }
}
