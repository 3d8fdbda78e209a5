//! Claude Code's `settings.json`: its `hooks` block loads as it is, so hook
//! scripts written for Claude Code run unchanged.
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!     {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/hooks/block_rm.py", "timeout": 10}
//! ]}]}}
//! ```
//!
//! Commands run through `sh -c`, as Claude Code runs them, with
//! `CLAUDE_PROJECT_DIR` set to the working directory. Matchers are Claude
//! Code's: empty or `*` for every tool, names and `a|b` alternatives, and
//! `prefix.*`; a matcher using more of a regular expression than that is an
//! error, not a hook that silently never runs.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::Matcher;
use serde::Deserialize;

use crate::Problems;
use crate::command::CommandHook;
use crate::declared::{Declared, Mode};
use crate::toml_file::{line_of, parse_event};

#[derive(Deserialize)]
struct Settings {
    #[serde(default)]
    hooks: BTreeMap<String, Vec<Group>>,
}

#[derive(Deserialize)]
struct Group {
    #[serde(default)]
    matcher: String,
    hooks: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: String,
    command: Option<String>,
    prompt: Option<String>,
    timeout: Option<u64>,
}

/// Parses a `settings.json`; every problem is collected with its line.
/// Entries for events this project lacks go to `skipped` (with a warning)
/// when it is given, and are problems when not (strict).
pub(crate) fn parse(
    file: &Arc<str>,
    text: &str,
    problems: &mut Problems,
    mut skipped: Option<&mut Vec<String>>,
) -> Vec<Declared> {
    let settings: Settings = match crate::strict_json::from_str(text) {
        Ok(settings) => settings,
        Err(error) => {
            // At the end of the text, the last line that has any.
            let line = error.line().min(text.lines().count().max(1));
            problems.push(
                file,
                u32::try_from(line).unwrap_or(0),
                None,
                format!("not valid settings JSON: {error}"),
            );
            return Vec::new();
        }
    };
    let mut declared = Vec::new();
    let hooks_at = text.find("\"hooks\"").unwrap_or(0);
    for (event_name, groups) in settings.hooks {
        // Each event's values are looked for after its key, in order.
        let mut lines = Lines {
            text,
            from: hooks_at,
        };
        let event_line = lines.find(&event_name).unwrap_or(1);
        let Ok(event) = parse_event(&event_name) else {
            unknown_event(
                file,
                event_line,
                &event_name,
                problems,
                skipped.as_deref_mut(),
            );
            continue;
        };
        for (group_index, group) in groups.into_iter().enumerate() {
            let matcher_line = if group.matcher.is_empty() {
                event_line
            } else {
                lines.find(&group.matcher).unwrap_or(event_line)
            };
            let matcher = match convert_matcher(&group.matcher) {
                Ok(matcher) => matcher,
                Err(error) => {
                    problems.push(
                        file,
                        matcher_line,
                        None,
                        format!("{event_name} matcher \"{}\": {error}", group.matcher),
                    );
                    continue;
                }
            };
            if matcher.is_some() && !event.has_tool() {
                problems.push(
                    file,
                    event_line,
                    None,
                    format!("{event_name} hooks take no matcher (\"{}\")", group.matcher),
                );
                continue;
            }
            for (index, entry) in group.hooks.into_iter().enumerate() {
                let line = entry
                    .command
                    .as_deref()
                    .or(entry.prompt.as_deref())
                    .and_then(|value| lines.find(value))
                    .unwrap_or(event_line);
                let name = format!("{file}:{line} ({event_name}[{group_index}].hooks[{index}])");
                if entry.timeout == Some(0) {
                    problems.push(file, line, Some(&name), "`timeout` is 0: the hook could never finish, so every call would fail; give seconds, e.g. 10".to_owned());
                    continue;
                }
                let timeout = Duration::from_secs(entry.timeout.unwrap_or(60));
                let mode = match (entry.kind.as_str(), entry.command, entry.prompt) {
                    ("command", Some(command), _) => Mode::Command(CommandHook::shell(command)),
                    ("prompt", _, Some(prompt)) => Mode::Prompt {
                        model: "default".to_owned(),
                        text: prompt,
                    },
                    (kind, _, _) => {
                        problems.push(file, line, Some(&name), format!("a hook of type \"{kind}\" needs its `command` (or `prompt`); types are \"command\" and \"prompt\""));
                        continue;
                    }
                };
                declared.push(Declared {
                    event,
                    name,
                    matcher: matcher.clone(),
                    priority: 0,
                    group: None,
                    on_error: None,
                    shadow: false,
                    timeout,
                    mode,
                    file: Arc::clone(file),
                    line,
                });
            }
        }
    }
    declared
}

/// Where string values are in the text, which `serde_json` does not keep.
/// Each search starts after the last hit, so a value repeated in the file
/// (the same command in two groups, a matcher also used in `permissions`)
/// gets the line of the occurrence meant.
struct Lines<'t> {
    text: &'t str,
    from: usize,
}

impl Lines<'_> {
    /// The line of `value`, as a JSON string, after the last hit.
    fn find(&mut self, value: &str) -> Option<u32> {
        let quoted = serde_json::to_string(value).ok()?;
        let at = self.from + self.text.get(self.from..)?.find(&quoted)?;
        self.from = at + quoted.len();
        Some(line_of(self.text, at))
    }
}

/// Claude Code's matcher as our pattern: `None` matches every tool.
fn convert_matcher(matcher: &str) -> Result<Option<String>, String> {
    let matcher = matcher.trim();
    if matcher.is_empty() || matcher == "*" || matcher == ".*" {
        return Ok(None);
    }
    let pattern = matcher
        .split('|')
        .map(|part| part.trim().replace(".*", "*"))
        .collect::<Vec<_>>()
        .join("|");
    Matcher::parse(&pattern)
        .map(|_| Some(pattern))
        .map_err(|error| format!("cannot be expressed as a tool pattern ({error})"))
}

/// An entry for an event this project lacks: skipped, with a warning and
/// its line in `skipped`, or — strict, no `skipped` — a problem.
fn unknown_event(
    file: &Arc<str>,
    line: u32,
    event_name: &str,
    problems: &mut Problems,
    skipped: Option<&mut Vec<String>>,
) {
    let what = format!(
        "`{event_name}` hooks have no counterpart here (events: SessionStart, UserPromptSubmit, \
         PreModelRequest, PostModelResponse, PreToolUse, PostToolUse, PostToolUseFailure, \
         SubagentStart, SubagentStop, PreCompact, Stop, SessionEnd)"
    );
    match skipped {
        Some(skipped) => {
            tracing::warn!(file = %file, line, "{what}: skipped");
            skipped.push(format!("{file}:{line}: {what}: skipped"));
        }
        None => problems.push(
            file,
            line,
            None,
            format!(
                "{what}; remove them from this file or keep them in one only Claude Code reads"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::convert_matcher;

    #[test]
    fn claude_matchers_convert() {
        assert_eq!(convert_matcher(""), Ok(None));
        assert_eq!(convert_matcher("*"), Ok(None));
        assert_eq!(convert_matcher("Bash"), Ok(Some("Bash".into())));
        assert_eq!(convert_matcher("Edit|Write"), Ok(Some("Edit|Write".into())));
        assert_eq!(
            convert_matcher("mcp__github__.*"),
            Ok(Some("mcp__github__*".into()))
        );
        assert!(convert_matcher("Notebook(Edit)?").is_err());
        assert!(convert_matcher("^Bash$").is_err());
    }
}
