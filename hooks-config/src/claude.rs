//! Claude Code's `settings.json`, a Claude Code plugin's `hooks/hooks.json`
//! and Codex's `hooks.json` (`~/.codex/hooks.json`, `.codex/hooks.json`):
//! their `hooks` block (event → matcher groups → handlers) loads as it is,
//! so hook scripts written for Claude Code or Codex run unchanged.
//!
//! ```json
//! {"env": {"LOG_LEVEL": "debug"},
//!  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!     {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/hooks/block_rm.py", "timeout": 10}
//! ]}]}}
//! ```
//!
//! Commands run through `sh -c`, as Claude Code runs them, with
//! `CLAUDE_PROJECT_DIR` set to the working directory, the file's `env` block,
//! `CLAUDE_PLUGIN_ROOT` (the directory holding `hooks/`) for a plugin's
//! `hooks/hooks.json`, and on `SessionStart` a `CLAUDE_ENV_FILE` the hook may
//! write `export VAR=value` lines to: those variables are then set for every
//! later command hook of the dispatcher the file was applied to.
//!
//! Matchers are Claude Code's (see `claude_matcher`): names (`Edit|Write`)
//! match exactly, anything else is a regular expression (`mcp__.*__write.*`);
//! on `SessionStart` they match the source, on `PreCompact` the trigger, on
//! `SessionEnd` the reason, on `SubagentStart` the agent type, on
//! `Notification` the notification type (`idle_prompt`, ...). An invalid
//! regular expression is an error naming its line.
//!
//! Handler types: `command`; `http` (`url`, `headers`, whose `$VAR`s are
//! filled for the names in `allowedEnvVars`); `prompt` and `agent` (answered
//! by the model and verifier the program provides: `Config::model`,
//! `Config::verifier`; Claude Code's `model` field names one of its own and
//! is not used); `mcp_tool` (`server`, `tool`, `input` with `${path}`
//! variables, through `Config::mcp`). `if` (`"Bash(git *)"`,
//! `"Edit(src/**/*.ts)"`) limits any handler on a tool event to the calls
//! the rule matches. Other handler fields: `command`, `prompt`,
//! `timeout` (seconds; Codex's `timeoutSec` too), `statusMessage` (accepted,
//! not shown: there is no spinner here), `onError` (ours, below). Handlers
//! with `"async": true` (run in the background, answer ignored) or
//! `"once": true` are not implemented: each is skipped, named in
//! `Config::skipped` and `describe()` with its line (refused by `load_strict`),
//! as are entries for events this project lacks and matchers on events that
//! have nothing to match (`Stop`, `UserPromptSubmit`, `SubagentStop`).
//!
//! **A deliberate difference from Claude Code:** there, a hook that crashes,
//! times out or exits with a code other than 0 or 2 is a non-blocking error and
//! the tool call goes ahead. Here guards fail closed: on `PreToolUse` (and
//! the other events that can block) a failing hook denies the call. To get
//! Claude Code's behaviour, say so per handler with `"onError": "continue"`
//! (or `"on_error"`), or for the whole file with a top-level
//! `"hooksOnError": "continue"`; `"deny"` is the default. The per-handler
//! key is the safe one in a file Claude Code or Codex reads too: both ignore
//! unknown handler fields, while Codex refuses unknown top-level keys (and
//! Claude Code's settings validation may flag one).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{EventKind, OnError};
use serde::Deserialize;

use crate::Problems;
#[cfg(feature = "http")]
use crate::address::AddressPolicy;
use crate::claude_matcher::{self, Gate, Matching, Unusable};
use crate::command::CommandHook;
use crate::condition::Condition;
use crate::declared::{Declared, Mode};
#[cfg(feature = "http")]
use crate::http::HttpHook;
use crate::template::JsonTemplate;
use crate::toml_file::{line_of, parse_event};

#[derive(Deserialize)]
struct Settings {
    #[serde(default)]
    hooks: BTreeMap<String, Vec<Group>>,
    /// Claude Code sets these for the session; here, for each command hook of the file.
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(rename = "hooksOnError")]
    hooks_on_error: Option<String>,
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
    /// Codex's name for `timeout`.
    #[serde(rename = "timeoutSec")]
    timeout_sec: Option<u64>,
    #[serde(rename = "async")]
    run_async: Option<bool>,
    once: Option<bool>,
    #[serde(rename = "onError", alias = "on_error")]
    on_error: Option<String>,
    /// `http` hooks: where to POST the event.
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // read to be refused
    url: Option<String>,
    /// `http` hooks: request headers; `$VAR` / `${VAR}` in a value is filled
    /// from the environment for the names in `allowedEnvVars` only.
    #[serde(default)]
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    headers: BTreeMap<String, String>,
    #[serde(rename = "allowedEnvVars", default)]
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    allowed_env_vars: Vec<String>,
    /// `mcp_tool` hooks: the server, the tool, its arguments (`${path}` filled from the event).
    server: Option<String>,
    tool: Option<String>,
    input: Option<serde_json::Value>,
    /// Only for the tool calls this permission rule matches (`Bash(git *)`, `Edit(src/**)`).
    #[serde(rename = "if")]
    condition: Option<String>,
}

/// An entry left out, with why.
pub(crate) struct Skipped {
    pub(crate) line: u32,
    pub(crate) what: String,
    /// Hooks on an event that never runs here (not an entry's option).
    pub(crate) event: bool,
}

/// Where the file's entries are skipped to: `None` when strict (each is a problem).
type SkipTo<'a> = Option<&'a mut Vec<Skipped>>;

/// Parses a settings or hooks file; every problem is collected with its line.
/// Entries this project cannot run go to `skipped` (with a warning) when it
/// is given, and are problems when not (strict). `plugin_root` is set for a
/// plugin's `hooks/hooks.json`.
pub(crate) fn parse(
    file: &Arc<str>,
    text: &str,
    plugin_root: Option<&Path>,
    problems: &mut Problems,
    mut skipped: SkipTo<'_>,
) -> Vec<Declared> {
    let Some(settings) = read(file, text, problems) else {
        return Vec::new();
    };
    let file_on_error = settings.hooks_on_error.as_deref().and_then(|value| {
        on_error(value)
            .map_err(|error| {
                let line = text
                    .find("\"hooksOnError\"")
                    .map_or(1, |at| line_of(text, at));
                problems.push(file, line, None, format!("`hooksOnError`: {error}"));
            })
            .ok()
    });
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
            skip_event(
                (file, event_line),
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
            let matching = group_matching(
                (file, matcher_line),
                event,
                &event_name,
                &group.matcher,
                problems,
                skipped.as_deref_mut(),
            );
            for (index, entry) in group.hooks.into_iter().enumerate() {
                // Found even for a group that is not loaded, so later lines stay right.
                let line = entry
                    .command
                    .as_deref()
                    .or(entry.prompt.as_deref())
                    .and_then(|value| lines.find(value))
                    .unwrap_or(event_line);
                let Some((matcher, gate)) = &matching else {
                    continue;
                };
                let name = format!("{file}:{line} ({event_name}[{group_index}].hooks[{index}])");
                let at = At {
                    file,
                    line,
                    name: &name,
                };
                let Some(meta) = entry_meta(
                    &entry,
                    event,
                    file_on_error,
                    &at,
                    problems,
                    skipped.as_deref_mut(),
                ) else {
                    continue;
                };
                let mode = match mode(entry, event, &settings.env, plugin_root) {
                    Ok(mode) => mode,
                    Err(error) => {
                        problems.push(file, line, Some(&name), error);
                        continue;
                    }
                };
                declared.push(Declared {
                    event,
                    name,
                    matcher: matcher.clone(),
                    gate: gate.clone(),
                    priority: 0,
                    group: None,
                    on_error: meta.on_error,
                    shadow: false,
                    timeout: meta.timeout,
                    mode,
                    file: Arc::clone(file),
                    line,
                });
            }
        }
    }
    declared
}

/// The settings in `text`, or `None` with the problem recorded.
fn read(file: &Arc<str>, text: &str, problems: &mut Problems) -> Option<Settings> {
    crate::strict_json::from_str(text)
        .map_err(|error| {
            // At the end of the text, the last line that has any.
            let line = error.line().min(text.lines().count().max(1));
            let line = u32::try_from(line).unwrap_or(0);
            problems.push(
                file,
                line,
                None,
                format!("not valid settings JSON: {error}"),
            );
        })
        .ok()
}

/// A group's matcher as the dispatcher's pattern and the hooks' gate; `None`
/// if the group is not loaded (a problem, or skipped).
fn group_matching(
    (file, line): (&Arc<str>, u32),
    event: EventKind,
    event_name: &str,
    matcher: &str,
    problems: &mut Problems,
    skipped: SkipTo<'_>,
) -> Option<(Option<String>, Option<Gate>)> {
    match claude_matcher::parse(event, matcher) {
        Ok(Matching::All) => Some((None, None)),
        Ok(Matching::Pattern(pattern)) => Some((Some(pattern), None)),
        Ok(Matching::Gate(gate)) => Some((None, Some(gate))),
        Err(Unusable::Invalid(error)) => {
            let what = format!("{event_name} matcher \"{matcher}\" {error}");
            problems.push(file, line, None, what);
            None
        }
        Err(Unusable::NoSubject(what)) => {
            let what = format!("{event_name} {what}");
            skip(file, line, None, what, problems, skipped);
            None
        }
    }
}

/// What an entry runs: a command gets the file's `env` block and, in a
/// plugin, `CLAUDE_PLUGIN_ROOT`.
fn mode(
    mut entry: Entry,
    event: EventKind,
    env: &BTreeMap<String, String>,
    plugin_root: Option<&Path>,
) -> Result<Mode, String> {
    let condition = match entry.condition.take() {
        None => None,
        Some(_) if !event.has_tool() => {
            return Err(format!(
                "`if` is a rule about a tool call; {} hooks have none",
                event.as_str()
            ));
        }
        Some(rule) => Some(Arc::new(
            Condition::parse(&rule).map_err(|error| format!("`if` \"{rule}\": {error}"))?,
        )),
    };
    let mode = match entry.kind.as_str() {
        "command" => {
            let command = entry
                .command
                .ok_or("a \"command\" hook needs its `command`")?;
            let mut command = CommandHook::shell(command);
            for (key, value) in env {
                command = command.env(key, value);
            }
            if let Some(root) = plugin_root {
                command = command.env("CLAUDE_PLUGIN_ROOT", root.display().to_string());
            }
            Mode::Command(command)
        }
        // The program's model (`Config::model`) answers: Claude Code's
        // `model` names one of its own, which does not exist here.
        "prompt" => Mode::Prompt {
            model: "default".to_owned(),
            text: entry.prompt.ok_or("a \"prompt\" hook needs its `prompt`")?,
        },
        "agent" => Mode::Agent {
            verifier: "default".to_owned(),
            prompt: entry.prompt.ok_or("an \"agent\" hook needs its `prompt`")?,
            max_turns: crate::agent::DEFAULT_MAX_TURNS,
        },
        #[cfg(not(feature = "http"))]
        "http" => return Err(format!("an \"http\" hook {}", crate::NEEDS_HTTP)),
        #[cfg(feature = "http")]
        "http" => {
            let url = entry.url.ok_or("an \"http\" hook needs its `url`")?;
            let mut hook = HttpHook::new(&url, AddressPolicy::default())?;
            for (name, value) in &entry.headers {
                hook = hook.header(name, &expand(value, &entry.allowed_env_vars))?;
            }
            Mode::Http(hook)
        }
        "mcp_tool" => {
            let (Some(server), Some(tool)) = (entry.server, entry.tool) else {
                return Err("an \"mcp_tool\" hook needs its `server` and `tool`".to_owned());
            };
            let arguments = match entry.input {
                None => None,
                Some(input @ serde_json::Value::Object(_)) => Some(Arc::new(
                    JsonTemplate::parse(input).map_err(|error| format!("`input`: {error}"))?,
                )),
                Some(_) => return Err("`input` must be an object of arguments".to_owned()),
            };
            Mode::McpTool {
                server,
                tool,
                arguments,
            }
        }
        other => {
            return Err(format!(
                "unknown hook type \"{other}\"; types are \"command\", \"http\", \"prompt\", \"agent\" and \"mcp_tool\""
            ));
        }
    };
    Ok(match condition {
        Some(condition) => Mode::When(condition, Box::new(mode)),
        None => mode,
    })
}

/// `$VAR` and `${VAR}` in a header value, filled from the environment for
/// the `allowed` names only (as Claude Code does); any other stays as written.
#[cfg(feature = "http")]
fn expand(value: &str, allowed: &[String]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        match std::env::var(name) {
            Ok(set) if !name.is_empty() && allowed.iter().any(|allowed| allowed == name) => {
                out.push_str(&set);
                rest = &after[len..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where an entry is, for its problems.
struct At<'a> {
    file: &'a Arc<str>,
    line: u32,
    name: &'a str,
}

/// An entry's timeout and failure policy.
struct Meta {
    timeout: Duration,
    on_error: Option<OnError>,
}

/// Checks an entry's fields other than what it runs: `None` if it is not loaded
/// (skipped, or a problem recorded).
fn entry_meta(
    entry: &Entry,
    event: EventKind,
    file_on_error: Option<OnError>,
    at: &At<'_>,
    problems: &mut Problems,
    skipped: SkipTo<'_>,
) -> Option<Meta> {
    let (file, line, name) = (at.file, at.line, Some(at.name));
    let unsupported = if entry.run_async == Some(true) {
        Some(
            "`\"async\": true` (Claude Code runs it in the background and ignores its answer) is not implemented here",
        )
    } else if entry.once == Some(true) {
        Some("`\"once\": true` (run once per session) is not implemented here")
    } else {
        None
    };
    if let Some(unsupported) = unsupported {
        skip(
            file,
            line,
            name,
            format!("hook {}: {unsupported}", at.name),
            problems,
            skipped,
        );
        return None;
    }
    let seconds = match (entry.timeout, entry.timeout_sec) {
        (Some(_), Some(_)) => {
            problems.push(
                file,
                line,
                name,
                "`timeout` and `timeoutSec` are the same setting; give one",
            );
            return None;
        }
        (Some(0), None) | (None, Some(0)) => {
            problems.push(file, line, name, "`timeout` is 0: the hook could never finish, so every call would fail; give seconds, e.g. 10");
            return None;
        }
        (seconds, None) | (None, seconds) => seconds.unwrap_or(60),
    };
    let on_error = match entry.on_error.as_deref().map(on_error) {
        None => file_on_error
            .filter(|on_error| *on_error == OnError::Continue || event.can_fail_closed()),
        Some(Ok(OnError::Deny)) if !event.can_fail_closed() => {
            problems.push(file, line, name, format!("`onError: \"deny\"` is not possible on {event}: that event can neither block nor withhold its output"));
            return None;
        }
        Some(Ok(on_error)) => Some(on_error),
        Some(Err(error)) => {
            problems.push(file, line, name, format!("`onError`: {error}"));
            return None;
        }
    };
    Some(Meta {
        timeout: Duration::from_secs(seconds),
        on_error,
    })
}

fn on_error(value: &str) -> Result<OnError, String> {
    match value {
        "deny" => Ok(OnError::Deny),
        "continue" => Ok(OnError::Continue),
        other => Err(format!("\"deny\" or \"continue\", not \"{other}\"")),
    }
}

/// Hooks on an event that never runs here: skipped (or a problem), saying why.
fn skip_event(
    (file, line): (&Arc<str>, u32),
    event: &str,
    problems: &mut Problems,
    mut skipped: SkipTo<'_>,
) {
    let what = crate::unmapped::why_not(event);
    skip(file, line, None, what, problems, skipped.as_deref_mut());
    if let Some(last) = skipped.and_then(|skipped| skipped.last_mut()) {
        last.event = true;
    }
}

/// Something this project cannot run: skipped, with a warning and its line
/// in `skipped`, or — strict, no `skipped` — a problem.
fn skip(
    file: &Arc<str>,
    line: u32,
    hook: Option<&str>,
    what: String,
    problems: &mut Problems,
    skipped: SkipTo<'_>,
) {
    match skipped {
        Some(skipped) => {
            tracing::warn!(file = %file, line, "{what}: skipped");
            skipped.push(Skipped {
                line,
                what,
                event: false,
            });
        }
        None => problems.push(
            file,
            line,
            hook,
            format!("{what}; remove it from this file or keep it in one only Claude Code reads"),
        ),
    }
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

#[cfg(all(test, feature = "http"))]
mod expand_tests {
    use super::expand;

    #[test]
    fn only_allowed_variables_are_filled() {
        // PATH is set in any test environment.
        let path = std::env::var("PATH").unwrap();
        let allowed = ["PATH".to_owned()];
        assert_eq!(expand("a $PATH b", &allowed), format!("a {path} b"));
        assert_eq!(expand("${PATH}x", &allowed), format!("{path}x"));
        assert_eq!(expand("$PATHX $HOME", &allowed), "$PATHX $HOME");
        assert_eq!(expand("$PATH", &[]), "$PATH");
        assert_eq!(expand("cost: $5 ${", &allowed), "cost: $5 ${");
    }
}
