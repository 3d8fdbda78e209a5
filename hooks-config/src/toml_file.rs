//! The TOML configuration file.
//!
//! ```toml
//! [[hooks]]
//! event = "pre_tool_use"             # or "PreToolUse"
//! matches = "Bash(rm -rf *)"
//! command = ["python3", "hooks/block_rm.py"]   # exec form; a string needs `shell = true`
//! timeout = "5s"
//! priority = -10
//! on_error = "deny"
//! shadow = true                      # record what it would decide; do not enforce it
//!
//! [[hooks]]
//! event = "post_tool_use"
//! http = { url = "https://hooks.example.com/audit", fire_and_forget = true }
//!
//! [http]
//! allow = ["127.0.0.1", "hooks.internal"]      # internal addresses HTTP hooks may reach
//!
//! [read_only]                         # and [truncate], [rate_limit], [audit_log], [approval]
//! metadata_key = "org_read_only"
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{EventKind, Matcher, OnError};
use serde::Deserialize;
use toml::Spanned;

use crate::Problems;
use crate::address::AddressPolicy;
use crate::command::CommandHook;
use crate::declared::{Declared, Mode};
use crate::http::HttpHook;
use crate::standard::{
    ApprovalTable, AuditTable, RateLimitTable, ReadOnlyTable, StdSettings, TruncateTable,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    hooks: Vec<Spanned<HookEntry>>,
    #[serde(default)]
    http: HttpSettings,
    read_only: Option<Spanned<ReadOnlyTable>>,
    truncate: Option<Spanned<TruncateTable>>,
    rate_limit: Option<Spanned<RateLimitTable>>,
    audit_log: Option<Spanned<AuditTable>>,
    approval: Option<Spanned<ApprovalTable>>,
    /// `cli` (default) or `terminal`.
    approval_channel: Option<Spanned<String>>,
    /// MCP servers for a gateway (`hooks-mcp`) to put the hooks in front of.
    #[serde(default)]
    upstream: Vec<Spanned<crate::upstream::UpstreamEntry>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct HttpSettings {
    // Spanned, as every value a problem is reported on: its line is where
    // it is, not where the word first appears in the file.
    allow: Option<Spanned<Vec<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HookEntry {
    event: String,
    name: Option<String>,
    matches: Option<String>,
    #[serde(default)]
    priority: i32,
    group: Option<String>,
    timeout: Option<String>,
    on_error: Option<String>,
    #[serde(default)]
    shadow: bool,
    command: Option<CommandLine>,
    #[serde(default)]
    shell: bool,
    #[serde(default)]
    env: BTreeMap<String, String>,
    max_output: Option<usize>,
    http: Option<HttpEntry>,
    prompt: Option<PromptEntry>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CommandLine {
    Shell(String),
    Exec(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpEntry {
    url: String,
    #[serde(default)]
    fire_and_forget: bool,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PromptEntry {
    #[serde(default = "default_model")]
    model: String,
    text: String,
}

fn default_model() -> String {
    "default".to_owned()
}

/// The default hook timeout, as Claude Code's.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Parses and checks a TOML file; every problem is collected with its line.
pub(crate) fn parse(
    file: &Arc<str>,
    text: &str,
    problems: &mut Problems,
) -> (Vec<Declared>, StdSettings, Vec<crate::upstream::Upstream>) {
    let parsed: File = match toml::from_str(text) {
        Ok(parsed) => parsed,
        Err(error) => {
            let line = error.span().map_or(0, |span| line_of(text, span.start));
            problems.push(file, line, None, error.message().to_owned());
            return (Vec::new(), StdSettings::default(), Vec::new());
        }
    };
    let upstreams = crate::upstream::check(file, text, parsed.upstream, problems);
    let allow = parsed.http.allow.as_ref();
    let policy = match AddressPolicy::new(allow.map_or(&[], |allow| allow.get_ref())) {
        Ok(policy) => policy,
        Err(error) => {
            problems.push(
                file,
                line_of(text, allow.map_or(0, |allow| allow.span().start)),
                None,
                format!("`[http] allow`: {error}"),
            );
            AddressPolicy::default()
        }
    };
    let hooks = parsed
        .hooks
        .into_iter()
        .filter_map(|entry| {
            let line = line_of(text, entry.span().start);
            let entry = entry.into_inner();
            let name = entry
                .name
                .clone()
                .unwrap_or_else(|| format!("{file}:{line}"));
            match declare(entry, &name, &policy) {
                Ok(mode_and_meta) => Some(Declared {
                    name,
                    file: Arc::clone(file),
                    line,
                    ..mode_and_meta
                }),
                Err(errors) => {
                    for error in errors {
                        problems.push(file, line, Some(&name), error);
                    }
                    None
                }
            }
        })
        .collect();
    let at = |span: std::ops::Range<usize>| line_of(text, span.start);
    let settings = StdSettings {
        read_only: parsed
            .read_only
            .map(|table| (at(table.span()), table.into_inner())),
        truncate: parsed
            .truncate
            .map(|table| (at(table.span()), table.into_inner())),
        rate_limit: parsed
            .rate_limit
            .map(|table| (at(table.span()), table.into_inner())),
        audit_log: parsed
            .audit_log
            .map(|table| (at(table.span()), table.into_inner())),
        approval: parsed
            .approval
            .map(|table| (at(table.span()), table.into_inner())),
        terminal_approvals: match parsed.approval_channel.as_ref() {
            None => None,
            Some(channel) => match channel.get_ref().as_str() {
                "cli" => None,
                "terminal" => Some(at(channel.span())),
                other => {
                    problems.push(
                        file,
                        at(channel.span()),
                        None,
                        format!("`approval_channel` is \"cli\" or \"terminal\", not \"{other}\""),
                    );
                    None
                }
            },
        },
    };
    settings.check(file, problems);
    (hooks, settings, upstreams)
}

/// Checks one entry; every problem with it, not just the first.
fn declare(entry: HookEntry, name: &str, policy: &AddressPolicy) -> Result<Declared, Vec<String>> {
    let mut errors = Vec::new();
    let event = parse_event(&entry.event)
        .map_err(|error| errors.push(error))
        .ok();
    if let Some(pattern) = &entry.matches {
        if event.is_some_and(|event| !event.has_tool()) {
            errors.push(format!(
                "`matches` only applies to tool events (pre_tool_use, post_tool_use, post_tool_use_failure), not {}",
                entry.event
            ));
        } else if let Err(error) = Matcher::parse(pattern) {
            errors.push(format!("bad pattern \"{pattern}\" in `matches`: {error}"));
        }
    }
    let timeout = match &entry.timeout {
        None => DEFAULT_TIMEOUT,
        Some(text) => match humantime::parse_duration(text) {
            Ok(timeout) if timeout.is_zero() => {
                errors.push(format!(
                    "`timeout` \"{text}\" is zero: the hook could never finish, so every call \
                     would fail (write e.g. \"5s\")"
                ));
                DEFAULT_TIMEOUT
            }
            Ok(timeout) => timeout,
            Err(error) => {
                errors.push(format!(
                    "bad `timeout` \"{text}\": {error} (write e.g. \"5s\")"
                ));
                DEFAULT_TIMEOUT
            }
        },
    };
    let on_error = match entry.on_error.as_deref() {
        None => None,
        Some("deny") if event.is_some_and(|event| !event.can_fail_closed()) => {
            errors.push(format!(
                "`on_error = \"deny\"` is not possible on {}: that event can neither block nor withhold its output",
                entry.event
            ));
            None
        }
        Some("deny") => Some(OnError::Deny),
        Some("continue") => Some(OnError::Continue),
        Some(other) => {
            errors.push(format!(
                "`on_error` is \"deny\" or \"continue\", not \"{other}\""
            ));
            None
        }
    };
    let mode = mode(
        entry.command,
        entry.shell,
        &entry.env,
        entry.max_output,
        entry.http,
        entry.prompt,
        policy,
    )
    .map_err(|error| errors.push(error))
    .ok();
    match (event, mode) {
        (Some(event), Some(mode)) if errors.is_empty() => Ok(Declared {
            event,
            name: name.to_owned(),
            matcher: entry.matches,
            priority: entry.priority,
            group: entry.group,
            on_error,
            shadow: entry.shadow,
            timeout,
            mode,
            file: Arc::from(""),
            line: 0,
        }),
        _ => Err(errors),
    }
}

/// What the hook runs: exactly one of a command, an HTTP endpoint or a prompt.
fn mode(
    command_line: Option<CommandLine>,
    shell: bool,
    env: &BTreeMap<String, String>,
    max_output: Option<usize>,
    http: Option<HttpEntry>,
    prompt: Option<PromptEntry>,
    policy: &AddressPolicy,
) -> Result<Mode, String> {
    match (command_line, http, prompt) {
        (Some(CommandLine::Exec(words)), None, None) => match words.split_first() {
            Some((program, args)) if !program.is_empty() => Ok(Mode::Command(command(
                CommandHook::exec(program.clone(), args.to_vec()),
                env,
                max_output,
            ))),
            _ => Err("`command` is empty: give the program and its arguments".to_owned()),
        },
        (Some(CommandLine::Shell(line)), None, None) if shell => Ok(Mode::Command(command(
            CommandHook::shell(line),
            env,
            max_output,
        ))),
        (Some(CommandLine::Shell(line)), None, None) => Err(format!(
            "`command = \"{line}\"` would need a shell: write it as an array (exec form, no shell), or add `shell = true`"
        )),
        (None, Some(http), None) => {
            let hook = HttpHook::new(&http.url, policy.clone())
                .map_err(|error| format!("`http`: {error}"))?;
            let hook = http.headers.iter().try_fold(
                hook.fire_and_forget(http.fire_and_forget),
                |hook, (name, value)| hook.header(name, value),
            );
            Ok(Mode::Http(
                hook.map_err(|error| format!("`http`: {error}"))?,
            ))
        }
        (None, None, Some(prompt)) => Ok(Mode::Prompt {
            model: prompt.model,
            text: prompt.text,
        }),
        _ => Err("needs exactly one of `command`, `http` or `prompt`".to_owned()),
    }
}

fn command(
    hook: CommandHook,
    env: &BTreeMap<String, String>,
    max_output: Option<usize>,
) -> CommandHook {
    let hook = env.iter().fold(hook, |hook, (key, value)| {
        hook.env(key.clone(), value.clone())
    });
    match max_output {
        Some(bytes) => hook.max_output(bytes),
        None => hook,
    }
}

/// An event by our name (`pre_tool_use`) or Claude Code's (`PreToolUse`).
pub(crate) fn parse_event(name: &str) -> Result<EventKind, String> {
    EventKind::ALL
        .iter()
        .copied()
        .find(|event| {
            event.as_str() == name || event.as_str().replace('_', "") == name.to_ascii_lowercase()
        })
        .ok_or_else(|| {
            let known: Vec<&str> = EventKind::ALL.iter().map(|event| event.as_str()).collect();
            format!("unknown event \"{name}\"; events are: {}", known.join(", "))
        })
}

/// The 1-based line of byte `offset`.
pub(crate) fn line_of(text: &str, offset: usize) -> u32 {
    let offset = offset.min(text.len());
    u32::try_from(text[..offset].matches('\n').count() + 1).unwrap_or(u32::MAX)
}
