//! A pending request as the page shows it: every text escaped, and the
//! arguments cut so that no value, however long or padded, pushes another
//! key away from the buttons. Each argument is its key and a preview of its
//! value: at most [`PREVIEW`] characters, runs of blanks shown by their count
//! (`⟨400 line breaks⟩`), the size said when cut (`12,000 characters`), and
//! the whole value sent along for the page to show on request.

use std::time::SystemTime;

use serde::Serialize;
use serde_json::Value;

use super::printable;
use crate::approval::store::Request;

/// Characters of a value shown before it is cut.
pub(super) const PREVIEW: usize = 120;
/// Characters of a key shown before it is cut.
pub(super) const KEY: usize = 40;
/// Characters of a name (tool, agent, user, session) shown before it is cut.
pub(super) const NAME: usize = 80;

/// A pending request, as the page's script receives it.
#[derive(Serialize, PartialEq)]
pub(super) struct Shown {
    pub(super) id: i64,
    tool: String,
    /// The arguments as stored (redacted JSON text), for scripts.
    args: String,
    /// The arguments as the page shows them, one a line.
    arguments: Vec<Argument>,
    /// The names as the page shows them.
    names: Names,
    agent: String,
    user: Option<String>,
    session: String,
    /// The question the asking hook put: shown in the row.
    prompt: String,
    created_at: String,
    age_seconds: u64,
}

/// The tool, agent, user and session, each cut.
#[derive(Serialize, PartialEq, Debug)]
struct Names {
    tool: Cut,
    agent: Cut,
    user: Option<Cut>,
    session: Cut,
}

/// One argument: its key and its value, each cut.
#[derive(Serialize, PartialEq, Debug)]
pub(super) struct Argument {
    /// `None` when the arguments are not an object: the value is all of them.
    key: Option<Cut>,
    value: Cut,
}

/// A text as shown: a preview, its size, and the whole if the preview is not it.
#[derive(Serialize, PartialEq, Debug)]
pub(super) struct Cut {
    preview: String,
    /// Whether characters were left off the end.
    truncated: bool,
    /// Its length in characters, `12,000 characters`.
    size: String,
    /// The whole text, when the preview is not it.
    whole: Option<String>,
}

impl Shown {
    pub(super) fn new(request: &Request, now: SystemTime) -> Self {
        let shown = |text: &str| printable(text, false).into_owned();
        let age_seconds = humantime::parse_rfc3339_weak(&request.created_at)
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .map_or(0, |age| age.as_secs());
        Shown {
            id: request.id,
            tool: shown(&request.tool),
            args: shown(&request.args),
            arguments: arguments(&request.args),
            names: Names {
                tool: cut(&request.tool, NAME),
                agent: cut(&request.agent, NAME),
                user: request.user.as_deref().map(|user| cut(user, NAME)),
                session: cut(&request.session, NAME),
            },
            agent: shown(&request.agent),
            user: request.user.as_deref().map(shown),
            session: shown(&request.session),
            prompt: printable(&request.prompt, true).into_owned(),
            created_at: shown(&request.created_at),
            age_seconds,
        }
    }
}

/// The arguments, one per top-level key; anything but an
/// object (or text that is not JSON) is one value without a key.
pub(super) fn arguments(args: &str) -> Vec<Argument> {
    match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(map)) => map
            .iter()
            .map(|(key, value)| Argument {
                key: Some(cut(key, KEY)),
                value: cut(&text(value), PREVIEW),
            })
            .collect(),
        Ok(value) => vec![Argument {
            key: None,
            value: cut(&text(&value), PREVIEW),
        }],
        Err(_) => vec![Argument {
            key: None,
            value: cut(args, PREVIEW),
        }],
    }
}

/// A value as text: a string as itself, anything else as compact JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `text` made printable, its blank runs counted, cut after `limit` characters.
pub(super) fn cut(text: &str, limit: usize) -> Cut {
    let text = printable(text, true);
    let total = text.chars().count();
    let mut preview = String::new();
    let mut shown = 0;
    let mut chars = text.chars().peekable();
    let mut cut = false;
    while let Some(c) = chars.next() {
        if shown >= limit {
            cut = true;
            break;
        }
        if c.is_whitespace() {
            let mut run = vec![c];
            while let Some(&next) = chars.peek().filter(|next| next.is_whitespace()) {
                run.push(next);
                chars.next();
            }
            if run == [' '] {
                preview.push(' ');
                shown += 1;
            } else {
                preview.push_str(&blanks(&run));
                shown += 3;
            }
        } else {
            preview.push(c);
            shown += 1;
        }
    }
    let whole = (cut || preview != text).then(|| text.clone().into_owned());
    Cut {
        preview,
        truncated: cut,
        size: characters(total),
        whole,
    }
}

/// A run of blank characters, by its count: ` ⟨400 line breaks⟩ `.
fn blanks(run: &[char]) -> String {
    let count = run.len();
    let what = if run.iter().all(|&c| c == '\n') {
        if count == 1 {
            "line break"
        } else {
            "line breaks"
        }
    } else if run.iter().all(|&c| c == ' ') {
        "spaces"
    } else if count == 1 {
        "blank character"
    } else {
        "blank characters"
    };
    format!(" ⟨{} {what}⟩ ", thousands(count))
}

/// `12,000 characters`.
fn characters(count: usize) -> String {
    match count {
        1 => "1 character".to_owned(),
        count => format!("{} characters", thousands(count)),
    }
}

/// `count` with a comma between thousands.
fn thousands(count: usize) -> String {
    let digits = count.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_with_their_size() {
        let long = "a".repeat(12_000);
        let shown = cut(&long, PREVIEW);
        assert_eq!(shown.preview.chars().count(), PREVIEW);
        assert!(shown.truncated);
        assert_eq!(shown.size, "12,000 characters");
        assert_eq!(shown.whole.as_deref(), Some(long.as_str()));
        let short = cut("rm -rf /", PREVIEW);
        assert_eq!(short.preview, "rm -rf /");
        assert!(!short.truncated);
        assert_eq!(short.whole, None);
        assert_eq!(cut("x", 5).size, "1 character");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn blank_runs_are_counted_not_drawn() {
        let padded = format!("fine{}{}then", "\n".repeat(400), " ".repeat(3_000));
        let shown = cut(&padded, PREVIEW);
        assert_eq!(shown.preview, "fine ⟨3,400 blank characters⟩ then");
        assert!(!shown.truncated);
        assert_eq!(shown.whole.as_deref(), Some(padded.as_str()));
        assert_eq!(cut("a\nb", 10).preview, "a ⟨1 line break⟩ b");
        assert_eq!(cut("a    b", 10).preview, "a ⟨4 spaces⟩ b");
        // Padding cannot hide what follows past the cut: a run counts as three.
        let many = "x\n".repeat(1_000);
        assert!(cut(&many, PREVIEW).preview.chars().count() < PREVIEW * 8);
    }

    #[test]
    fn every_key_is_an_argument() {
        let args =
            serde_json::json!({"note": "n".repeat(5_000), "command": "rm -rf /"}).to_string();
        let shown = arguments(&args);
        let keys: Vec<&str> = shown
            .iter()
            .map(|argument| argument.key.as_ref().unwrap().preview.as_str())
            .collect();
        assert_eq!(keys.len(), 2);
        assert!(keys.contains(&"note") && keys.contains(&"command"));
        let long_key = serde_json::json!({"k".repeat(500): 1}).to_string();
        let key = arguments(&long_key).remove(0).key.unwrap();
        assert!(key.truncated);
        assert_eq!(key.size, "500 characters");
        assert_eq!(arguments("[1,2]")[0].value.preview, "[1,2]");
        assert_eq!(arguments("not json")[0].value.preview, "not json");
    }
}
