//! What an upstream sends over stdio, one JSON-RPC message a line, read
//! before rmcp reads it: a line over [`MAX_MESSAGE_BYTES`] is dropped (it is
//! never held in memory whole), and when it was the answer to a request,
//! that request is answered instead with an error saying how large the
//! answer was. rmcp alone drops such a line and logs it, and the call it
//! answered waits for its timeout, reported as an upstream that did not
//! answer.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::sync::mpsc;

/// The most one message from an upstream may be: 16 MiB, as rmcp's own
/// limit on a line and on an event over Streamable HTTP.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The JSON-RPC error code of an answer replaced by an error (`Internal error`).
const INTERNAL_ERROR: i64 = -32603;

/// Passes the lines of `upstream` (each with its newline) to `lines` until
/// `upstream` ends (or nobody receives any more), replacing each line over
/// `limit` bytes with an error answer to the request it answered, if it
/// answered one. When it returns, `lines` is dropped: the receiver sees the end.
pub(crate) async fn relay<R>(
    name: &str,
    mut upstream: R,
    lines: mpsc::Sender<Vec<u8>>,
    limit: usize,
) where
    R: AsyncBufRead + Unpin,
{
    let mut line = Vec::new();
    loop {
        match read_line(&mut upstream, &mut line, limit).await {
            Ok(Line::Whole) => {
                if lines.send(std::mem::take(&mut line)).await.is_err() {
                    return;
                }
            }
            Ok(Line::Oversized { bytes, scan }) => {
                line.clear();
                let Some(id) = scan.answered_id() else {
                    tracing::error!(
                        upstream = name,
                        bytes,
                        "dropped a message from the upstream over the {} MiB limit",
                        limit / (1024 * 1024)
                    );
                    continue;
                };
                tracing::error!(
                    upstream = name,
                    bytes,
                    "an answer from the upstream is over the message limit: the call fails"
                );
                let error = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {
                        "code": INTERNAL_ERROR,
                        "message": format!(
                            "the answer of upstream `{name}` is {bytes} bytes, over the {} MiB \
                             one MCP message may be: it was dropped",
                            limit / (1024 * 1024)
                        ),
                    },
                });
                let mut answer = error.to_string().into_bytes();
                answer.push(b'\n');
                if lines.send(answer).await.is_err() {
                    return;
                }
            }
            // The upstream closed its stdout (it exited).
            Ok(Line::End) | Err(_) => {
                if !line.is_empty() {
                    tracing::warn!(
                        upstream = name,
                        "the upstream ended in the middle of a message"
                    );
                }
                return;
            }
        }
    }
}

enum Line {
    /// A whole line, its newline included, is in the buffer.
    Whole,
    /// A line over the limit was read through and dropped.
    Oversized { bytes: usize, scan: TopLevel },
    /// The upstream closed the stream (what is in the buffer, if anything,
    /// was never finished).
    End,
}

/// Reads one line into `line`, holding at most `limit` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    upstream: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line> {
    let mut oversized: Option<(usize, TopLevel)> = None;
    loop {
        let buffer = upstream.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(Line::End);
        }
        let (chunk, done) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&buffer[..=end], true),
            None => (buffer, false),
        };
        let taken = chunk.len();
        match &mut oversized {
            Some((bytes, scan)) => {
                *bytes += taken;
                scan.feed(chunk);
            }
            None if line.len() + taken > limit => {
                let mut scan = TopLevel::default();
                scan.feed(line);
                scan.feed(chunk);
                oversized = Some((line.len() + taken, scan));
                line.clear();
            }
            None => line.extend_from_slice(chunk),
        }
        upstream.consume(taken);
        if done {
            return Ok(match oversized {
                Some((bytes, scan)) => Line::Oversized {
                    // Without its newline.
                    bytes: bytes - 1,
                    scan,
                },
                None => Line::Whole,
            });
        }
    }
}

/// What a message says at its top level, read byte by byte without holding
/// it: its `id`, and whether it is an answer (`result` or `error`) rather
/// than a request or notification of the upstream's own.
#[derive(Default)]
struct TopLevel {
    depth: usize,
    string: StringState,
    /// Inside the top-level object, where a key may start.
    expecting_key: bool,
    reading: Reading,
    /// The top-level key being read, or just read (up to a few bytes).
    key: Vec<u8>,
    /// The raw value of the top-level `id`, while and after it is read.
    id: Vec<u8>,
    /// A top-level `result` or `error` was seen.
    answer: bool,
}

#[derive(Default, PartialEq)]
enum StringState {
    #[default]
    Outside,
    Inside,
    /// Inside, after a backslash.
    Escaped,
}

/// What the bytes being read are kept for.
#[derive(Default, PartialEq)]
enum Reading {
    #[default]
    Nothing,
    Key,
    Id,
}

/// Longer ids are not ids a client sent: ignored.
const MAX_ID_BYTES: usize = 256;

impl TopLevel {
    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.byte(byte);
        }
    }

    fn keep(&mut self, byte: u8) {
        match self.reading {
            Reading::Key if self.key.len() <= 8 => self.key.push(byte),
            Reading::Id if self.id.len() <= MAX_ID_BYTES => self.id.push(byte),
            _ => {}
        }
    }

    fn byte(&mut self, byte: u8) {
        match self.string {
            StringState::Escaped => {
                self.keep(byte);
                self.string = StringState::Inside;
                return;
            }
            StringState::Inside => {
                match byte {
                    b'\\' => self.string = StringState::Escaped,
                    b'"' => {
                        self.string = StringState::Outside;
                        if self.reading == Reading::Key {
                            // The closing quote is not part of the key.
                            self.reading = Reading::Nothing;
                            return;
                        }
                    }
                    _ => {}
                }
                self.keep(byte);
                return;
            }
            StringState::Outside => {}
        }
        match byte {
            b'"' => {
                self.string = StringState::Inside;
                if self.depth == 1 && self.expecting_key {
                    self.key.clear();
                    self.reading = Reading::Key;
                    self.expecting_key = false;
                } else {
                    self.keep(byte);
                }
            }
            b'{' | b'[' => {
                if self.reading == Reading::Id {
                    // An object or array is no id.
                    self.reading = Reading::Nothing;
                    self.id.clear();
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.expecting_key = byte == b'{';
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.reading = Reading::Nothing;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 => match self.key.as_slice() {
                b"id" => {
                    self.id.clear();
                    self.reading = Reading::Id;
                }
                b"result" | b"error" => self.answer = true,
                _ => {}
            },
            b',' if self.depth == 1 => {
                self.reading = Reading::Nothing;
                self.expecting_key = true;
            }
            byte if !byte.is_ascii_whitespace() => self.keep(byte),
            _ => {}
        }
    }

    /// The id of the request this message answers, if it is an answer with
    /// an id that is a number or a string.
    fn answered_id(&self) -> Option<Value> {
        if !self.answer || self.id.len() > MAX_ID_BYTES {
            return None;
        }
        serde_json::from_slice::<Value>(&self.id)
            .ok()
            .filter(|id| id.is_number() || id.is_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> TopLevel {
        let mut scan = TopLevel::default();
        scan.feed(text.as_bytes());
        scan
    }

    #[test]
    fn the_top_level_id_of_an_answer_is_found_wherever_it_is() {
        // Python's SDK puts the id first; the TypeScript SDK's
        // `{result, jsonrpc, id}` puts it last.
        let first = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}"#;
        let last = r#"{"result":{"id":99,"content":[{"text":"\"id\":5, }"}]},"jsonrpc":"2.0","id":"call-1"}"#;
        assert_eq!(scan(first).answered_id(), Some(serde_json::json!(7)));
        assert_eq!(scan(last).answered_id(), Some(serde_json::json!("call-1")));
        let spaced = r#"{ "id" : 12 , "error" : {"code": -1} }"#;
        assert_eq!(scan(spaced).answered_id(), Some(serde_json::json!(12)));
    }

    #[test]
    fn requests_notifications_and_strange_ids_answer_nothing() {
        let request = r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}"#;
        let notification =
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"result":1}}"#;
        let object_id = r#"{"jsonrpc":"2.0","id":{"a":1},"result":{}}"#;
        for text in [request, notification, object_id] {
            assert_eq!(scan(text).answered_id(), None, "{text}");
        }
    }

    async fn relayed(input: &[u8], limit: usize) -> String {
        let (sender, mut receiver) = mpsc::channel(16);
        relay("up", input, sender, limit).await;
        let mut output = Vec::new();
        while let Some(line) = receiver.recv().await {
            output.extend(line);
        }
        String::from_utf8(output).unwrap()
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_whole_and_an_oversized_answer_becomes_an_error() {
        let small = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
        let large = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"text\":\"{}\"}}}}\n",
            "x".repeat(200)
        );
        let input = format!("{small}{large}{small}");
        let output = relayed(input.as_bytes(), 100).await;
        let lines: Vec<&str> = output.lines().collect();
        assert_eq!(lines.len(), 3, "{output}");
        assert_eq!(lines[0], small.trim_end());
        let error: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(error["id"], 2);
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{} bytes", large.len() - 1)),
            "{message}"
        );
        assert_eq!(lines[2], small.trim_end());
    }

    #[tokio::test]
    async fn an_oversized_request_of_the_upstream_is_dropped() {
        let large = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":\"{}\"}}\n",
            "x".repeat(200)
        );
        assert_eq!(relayed(large.as_bytes(), 100).await, "");
    }
}
