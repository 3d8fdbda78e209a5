//! A transcript kept for hooks to read, when the host keeps none: Claude
//! Code's hook scripts (a `Stop` hook checking the last assistant message)
//! open `transcript_path`, so they run here unchanged.
//!
//! With `transcript_dir` (or [`Config::keep_transcript`](crate::Config::keep_transcript)),
//! observers append one JSON line per turn to `<dir>/<session>.jsonl`, in
//! Claude Code's transcript format as far as the events know it: the user's
//! prompt (`UserPromptSubmit`), the model's reply with its `tool_use` blocks
//! (`PostModelResponse`), and each tool's `tool_result` (`PostToolUse`,
//! `PostToolUseFailure`; as the model reads it, after the hooks' rewrites).
//! A prompt or reply a hook blocked is not written: the model never had it.
//! Observers run before the dispatch returns, so a later event's hooks see
//! every line before it.
//!
//! Every declared hook is shown the file's path as `transcript_path`, unless
//! the host put one in the session's metadata ([`HOST_FIELDS`](crate::protocol::HOST_FIELDS)):
//! the host's wins. The file exists (perhaps empty) by the time a hook is shown it.
//!
//! A session id is the file's name when it is plainly one (letters, digits,
//! `-`, `_`; at most [`MAX_NAME`] bytes); any other id is percent-encoded,
//! `.` and `/` included, so `../x` is the file `%2E%2E%2Fx.jsonl` in the
//! directory and never a path out of it. A longer id is `%%` and a hash of it.
//! Each line is one `write` to a file opened with `O_APPEND`, so the lines of
//! concurrent sessions and processes never interleave. Files are made
//! readable by their owner only: they hold the conversation.

use std::fmt::Write as _;
use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_core::{
    Hook, HooksBuilder, PostModelResponse, PostToolUse, PostToolUseFailure, Session,
    UserPromptSubmit, Value, json,
};

/// The longest session id used as a file name as it is (after encoding).
pub(crate) const MAX_NAME: usize = 200;

/// The observers' name, on each event they write on.
const NAME: &str = "hooks_config::transcript";

/// Where transcripts are kept: one file per session.
#[derive(Debug)]
pub(crate) struct Transcripts {
    dir: PathBuf,
}

impl Transcripts {
    /// Transcripts in `dir`, made absolute so a hook run elsewhere finds them.
    pub(crate) fn new(dir: &Path) -> Result<Self, String> {
        if dir.as_os_str().is_empty() {
            return Err("`transcript_dir` is empty: name a directory".to_owned());
        }
        let dir = std::path::absolute(dir).map_err(|error| {
            format!(
                "`transcript_dir` \"{}\" cannot be made absolute: {error}",
                dir.display()
            )
        })?;
        Ok(Transcripts { dir })
    }

    /// The file of session `id`, always directly inside the directory.
    pub(crate) fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.jsonl", file_name(id)))
    }

    /// Adds the observers that write the transcript.
    pub(crate) fn observe(self: &Arc<Self>, builder: HooksBuilder) -> HooksBuilder {
        let prompts = Arc::clone(self);
        let replies = Arc::clone(self);
        let results = Arc::clone(self);
        let failures = Arc::clone(self);
        builder
            .hook(Hook::observer(NAME, move |ctx: &UserPromptSubmit| {
                if ctx.denial().is_some() {
                    return Ok(());
                }
                prompts.append(
                    ctx.session(),
                    "user",
                    &json!({"role": "user", "content": ctx.prompt()}),
                )
            }))
            .hook(Hook::observer(NAME, move |ctx: &PostModelResponse| {
                if ctx.denial().is_some() {
                    return Ok(());
                }
                replies.append(ctx.session(), "assistant", &reply(ctx))
            }))
            .hook(Hook::observer(NAME, move |ctx: &PostToolUse| {
                let message = match ctx.result() {
                    Ok(value) => tool_result(ctx.call_id(), value, false),
                    Err(error) => tool_result(ctx.call_id(), &json!(error), true),
                };
                results.append(ctx.session(), "user", &message)
            }))
            .hook(Hook::observer(NAME, move |ctx: &PostToolUseFailure| {
                let message = tool_result(ctx.call_id(), &json!(ctx.error().message()), true);
                failures.append(ctx.session(), "user", &message)
            }))
    }

    /// Puts the session's transcript path into `input`, unless the host gave
    /// one; the file is made first, so a hook that opens it finds it.
    pub(crate) fn show(&self, session: &Session, input: &mut Value) {
        let Some(input) = input.as_object_mut() else {
            return;
        };
        if input.contains_key("transcript_path") {
            return;
        }
        let path = self.path(session.id());
        if let Err(error) = self.open(&path) {
            tracing::warn!(path = %path.display(), %error, "the transcript could not be made");
        }
        input.insert("transcript_path".into(), json!(path.display().to_string()));
    }

    /// Appends one line, in one write.
    fn append(&self, session: &Session, kind: &str, message: &Value) -> io::Result<()> {
        let mut line = json!({
            "type": kind,
            "message": message,
            "sessionId": session.id(),
            "isSidechain": session.parent_agent_id().is_some(),
            "timestamp": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            "cwd": std::env::current_dir().map(|dir| dir.display().to_string()).unwrap_or_default(),
        })
        .to_string();
        line.push('\n');
        let path = self.path(session.id());
        self.open(&path)?.write_all(line.as_bytes())
    }

    fn open(&self, path: &Path) -> io::Result<File> {
        let open = || {
            OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(path)
        };
        match open() {
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&self.dir)?;
                open()
            }
            opened => opened,
        }
    }
}

/// The model's reply as an `assistant` message: its text, then its tool calls.
fn reply(ctx: &PostModelResponse) -> Value {
    let mut content = Vec::new();
    if !ctx.text().is_empty() {
        content.push(json!({"type": "text", "text": ctx.text()}));
    }
    for call in ctx.tool_calls() {
        let mut block = json!({"type": "tool_use", "name": call.name(), "input": call.args()});
        if let Some(id) = call.id() {
            block["id"] = json!(id);
        }
        content.push(block);
    }
    json!({"role": "assistant", "content": content})
}

/// A tool's result as a `user` message, as the model reads it: text as it
/// is, any other value as its JSON text.
fn tool_result(call_id: Option<&str>, content: &Value, is_error: bool) -> Value {
    let text = match content {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut block = json!({"type": "tool_result", "content": text, "is_error": is_error});
    if let Some(id) = call_id {
        block["tool_use_id"] = json!(id);
    }
    json!({"role": "user", "content": [block]})
}

/// A file name for session `id` that stays in the directory: see the module docs.
pub(crate) fn file_name(id: &str) -> String {
    let plain = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_';
    let mut name = String::with_capacity(id.len());
    for byte in id.bytes() {
        if plain(byte) {
            name.push(char::from(byte));
        } else {
            let _ = write!(name, "%{byte:02X}");
        }
    }
    if name.is_empty() {
        // Nothing to encode; `%` alone is no encoding of any id.
        return "%".to_owned();
    }
    if name.len() > MAX_NAME {
        return format!("%%{:032x}", fnv1a_128(id.as_bytes()));
    }
    name
}

/// FNV-1a, 128 bits: stable across builds and processes (a hook binary is a
/// new process on every call), unlike the standard library's hasher.
fn fnv1a_128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    bytes.iter().fold(OFFSET, |hash, byte| {
        (hash ^ u128::from(*byte)).wrapping_mul(PRIME)
    })
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn session_ids_become_names_inside_the_directory() {
        assert_eq!(file_name("sess-42_a"), "sess-42_a");
        assert_eq!(file_name("../x"), "%2E%2E%2Fx");
        assert_eq!(file_name("/"), "%2F");
        assert_eq!(file_name(""), "%");
        assert_eq!(file_name("."), "%2E");
        assert_eq!(file_name("a\0b"), "a%00b");
        assert_ne!(file_name("%2F"), file_name("/"), "encoding is one to one");
        let long = file_name(&"x".repeat(300));
        assert!(long.starts_with("%%") && long.len() == 34, "{long}");
        assert_ne!(long, file_name(&"x".repeat(301)));
    }
}
