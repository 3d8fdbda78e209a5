//! The TOML configuration file.
//!
//! ```toml
//! [[hooks]]
//! event = "pre_tool_use"             # or "PreToolUse"
//! matches = "Bash(rm -rf *)"
//! command = ["python3", "hooks/block_rm.py"]   # exec form; a string needs `shell = true`
//! timeout = "5s"
//! priority = -10
//! on_error = "deny"                  # this hook's; `on_error` above the first table: the file's
//! shadow = true                      # record what it would decide; do not enforce it
//!
//! [[hooks]]
//! event = "post_tool_use"
//! http = { url = "https://hooks.example.com/audit", fire_and_forget = true }  # max_in_flight = 64
//!
//! [[hooks]]
//! event = "pre_tool_use"
//! condition = "Write(src/**/*.ts)|Edit(src/**/*.ts)"   # paths read as paths; see below
//! command = ["python3", "check.py", "${tool_input.file_path}", "${tool_name}"]
//!
//! [[hooks]]
//! event = "pre_tool_use"
//! matches = "deploy"
//! http = { url = "http://127.0.0.1:8080/check", payload_template = { file = "${tool_input.path}", who = "${session_id}" } }
//!
//! [[hooks]]
//! event = "stop"
//! agent = { prompt = "Check the tests pass before stopping.", verifier = "default", max_turns = 3 }
//! timeout = "2m"
//!
//! [[hooks]]
//! event = "pre_tool_use"
//! mcp_tool = { server = "guard", tool = "check", arguments = { path = "${tool_input.path}" } }
//!
//! [http]
//! allow = ["127.0.0.1", "hooks.internal"]      # internal addresses HTTP hooks may reach
//!
//! [redact]                            # known secrets, by where they are (see below)
//! secret_env = ["DATABASE_PASSWORD"]
//!
//! [read_only]                         # and [truncate], [rate_limit], [audit_log], [approval]
//! metadata_key = "org_read_only"
//! ```
//!
//! `transcript_dir = "transcripts"` (a top-level key, before any table) keeps
//! each session's transcript in that directory, in Claude Code's format, and
//! shows every hook its path as `transcript_path` when the host gives none:
//! a Claude Code `Stop` hook that reads the conversation runs unchanged. A
//! relative path is from the working directory, as every path in the file.
//!
//! A hook runs exactly one of: `command`, `http`, `prompt` (a model judges:
//! `Config::model`), `agent` (a verifier takes up to `max_turns` turns, 5
//! unless set, within the hook's `timeout`; not answering by then fails the
//! hook: `Config::verifier`) or `mcp_tool` (a tool on an MCP server judges:
//! `Config::mcp`; without `arguments` it is sent the event itself). Models,
//! verifiers and servers are named (`"default"` unless said); one the program
//! did not provide is refused when the file is applied, naming it. Prompt and
//! agent answers are hook JSON or Claude Code's `{"ok": true}` /
//! `{"ok": false, "reason": "..."}`. `http` hooks and `[approval_webhook]` need
//! the crate's `http` feature; without it the file is refused, naming it.
//!
//! # Variables
//!
//! `${tool_input.file_path}` is the event's value at that path, in the JSON a
//! hook is shown (`${tool_name}`, `${session_id}`, `${cwd}`, `${tool_input.edits.0.old_string}`).
//! Only `${...}` is a variable; `$$` is a literal `$`, and `$name` is refused
//! (no shell expands it, so it was a mistake). Variables are filled in:
//!
//! - in an exec-form `command`'s arguments (not its program), each argument on
//!   its own, passed as exactly one argument whatever it holds. A string
//!   is put in as it is, any other value as its JSON text. Never in a
//!   `shell = true` command, nor after `-c`: a shell would read the value as
//!   code, so a file named `x; rm -rf ~` would run (pass it as `$1` instead).
//! - in `payload_template` (an HTTP hook's body, sent instead of the event) and
//!   `mcp_tool`'s `arguments`: a table, or a string holding JSON, whose
//!   *strings* are filled in and which is then written as JSON, so a value is
//!   always one JSON value and never breaks out of its string. A string that is
//!   exactly one variable (`"${tool_input}"`) becomes the value, of whatever type.
//!
//! A variable the event does not have fails the hook's call, naming it, for
//! every hook alike: `on_error` then decides, so a guard fails closed and
//! anything else is skipped with a warning — an empty string could turn
//! `rm "${tool_input.path}"` into something else.
//!
//! # Conditions
//!
//! `condition` narrows a tool hook further than `matches`, and both must hold.
//! It is a pattern of the same form (`Bash(git push*)`, `Write(src/**/*.ts)`,
//! alternatives with `|`) with paths read as paths: a `file_path` or `path`
//! argument is normalised without touching the disk (`.`, `..` and `//`
//! resolved; an absolute path under `cwd` made relative), then matched segment
//! by segment — `*` within one segment, `**` across any number. So
//! `src/**/*.ts` matches `src/a/b.ts` and `lib/../src/x.ts`, but not
//! `src/a.js` nor `src/../../etc/passwd.ts`. A glob with no `/` matches the file
//! name at any depth; one starting with `/` the absolute path. Commands and
//! URLs are matched as `matches` does. Symbolic links are not followed. A
//! condition is about a tool call: on any other event it is refused.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{EventKind, Matcher, OnError};
use serde::Deserialize;
use toml::Spanned;

use crate::Problems;
use crate::address::AddressPolicy;
use crate::command::CommandHook;
use crate::condition::Condition;
use crate::declared::{Declared, Mode};
#[cfg(feature = "http")]
use crate::http::HttpHook;
use crate::standard::{
    ApprovalTable, AuditTable, RateLimitTable, ReadOnlyTable, StdSettings, TruncateTable,
};
use crate::template::JsonTemplate;

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
    cedar: Option<Spanned<crate::standard::CedarTable>>,
    /// `cli` (default) or `terminal`.
    approval_channel: Option<Spanned<String>>,
    /// MCP servers for a gateway (`hooks-mcp`) to put the hooks in front of.
    #[serde(default)]
    upstream: Vec<Spanned<crate::upstream::UpstreamEntry>>,
    /// What the operator declares about tools, for guards to decide from.
    #[serde(default)]
    tools: std::collections::BTreeMap<String, Spanned<crate::tools::ToolEntry>>,
    /// Where to keep each session's transcript, for hooks to read.
    transcript_dir: Option<Spanned<PathBuf>>,
    /// The failure policy of every hook of the file that does not give its own.
    on_error: Option<Spanned<String>>,
    /// An incoming webhook announcing each new approval request.
    approval_webhook: Option<Spanned<WebhookTable>>,
    /// The dispatcher's redactor: known secrets, key terms, prefixes.
    redact: Option<Spanned<crate::redact::RedactTable>>,
}

/// `[approval_webhook]`: where new approval requests are announced.
#[derive(Deserialize)]
#[cfg_attr(
    not(all(feature = "approval", feature = "http")),
    allow(dead_code) // read to be refused
)]
#[serde(deny_unknown_fields)]
struct WebhookTable {
    url: String,
    /// `slack` (default) or `feishu`.
    #[serde(default)]
    style: Option<String>,
    /// The approval console's URL, linked from each message.
    console: Option<String>,
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
    condition: Option<String>,
    command: Option<CommandLine>,
    #[serde(default)]
    shell: bool,
    #[serde(default)]
    env: BTreeMap<String, String>,
    max_output: Option<usize>,
    http: Option<HttpEntry>,
    prompt: Option<PromptEntry>,
    agent: Option<AgentEntry>,
    mcp_tool: Option<McpToolEntry>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CommandLine {
    Shell(String),
    Exec(Vec<String>),
}

#[derive(Deserialize)]
#[cfg_attr(not(feature = "http"), allow(dead_code))] // read to be refused
#[serde(deny_unknown_fields)]
struct HttpEntry {
    url: String,
    #[serde(default)]
    fire_and_forget: bool,
    /// Caps fire-and-forget requests in flight (default 64); needs `fire_and_forget`.
    max_in_flight: Option<usize>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    payload_template: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentEntry {
    prompt: String,
    #[serde(default = "default_model")]
    verifier: String,
    #[serde(default = "default_max_turns")]
    max_turns: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct McpToolEntry {
    server: String,
    tool: String,
    arguments: Option<serde_json::Value>,
}

fn default_max_turns() -> u32 {
    crate::agent::DEFAULT_MAX_TURNS
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

/// The addresses `[http] allow` opens to HTTP hooks.
fn http_policy(
    file: &str,
    text: &str,
    allow: Option<&Spanned<Vec<String>>>,
    problems: &mut Problems,
) -> AddressPolicy {
    match AddressPolicy::new(allow.map_or(&[], |allow| allow.get_ref())) {
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
    }
}

/// The webhook channel `[approval_webhook]` describes, reaching only the
/// addresses `[http] allow` opens.
#[cfg(all(feature = "approval", feature = "http"))]
fn webhook(
    file: &str,
    text: &str,
    table: Spanned<WebhookTable>,
    policy: &AddressPolicy,
    problems: &mut Problems,
) -> Option<(u32, crate::webhook::WebhookChannel)> {
    use crate::webhook::{WebhookChannel, WebhookStyle};
    let line = line_of(text, table.span().start);
    let table = table.into_inner();
    let style = match table.style.as_deref() {
        None | Some("slack") => WebhookStyle::Slack,
        Some("feishu" | "lark") => WebhookStyle::Feishu,
        Some(other) => {
            let message =
                format!("`[approval_webhook] style` is \"slack\" or \"feishu\", not \"{other}\"");
            problems.push(file, line, None, message);
            return None;
        }
    };
    match WebhookChannel::new(&table.url, style, policy.clone()) {
        Ok(channel) => Some((
            line,
            match table.console {
                Some(console) => channel.console(console),
                None => channel,
            },
        )),
        Err(error) => {
            problems.push(file, line, None, format!("`[approval_webhook]`: {error}"));
            None
        }
    }
}

/// Refuses `[approval_webhook]` in a program built without what it needs.
#[cfg(not(all(feature = "approval", feature = "http")))]
fn refuse_webhook(
    file: &str,
    text: &str,
    table: Option<&Spanned<WebhookTable>>,
    problems: &mut Problems,
) {
    let Some(table) = table else { return };
    #[cfg(not(feature = "approval"))]
    let why =
        "`[approval_webhook]` needs the approval gate: turn on hooks-config's `approval` feature"
            .to_owned();
    #[cfg(all(feature = "approval", not(feature = "http")))]
    let why = format!("`[approval_webhook]` {}", crate::NEEDS_HTTP);
    problems.push(file, line_of(text, table.span().start), None, why);
}

/// `approval_channel = "terminal"`: its line (`"cli"`, the default, is `None`).
fn terminal_approvals(
    file: &str,
    text: &str,
    channel: Option<&Spanned<String>>,
    problems: &mut Problems,
) -> Option<u32> {
    let channel = channel?;
    let line = line_of(text, channel.span().start);
    match channel.get_ref().as_str() {
        "cli" => None,
        "terminal" => Some(line),
        other => {
            problems.push(
                file,
                line,
                None,
                format!("`approval_channel` is \"cli\" or \"terminal\", not \"{other}\""),
            );
            None
        }
    }
}

/// The file's own `on_error`, the default of its hooks.
fn file_on_error(
    file: &str,
    text: &str,
    value: Option<&Spanned<String>>,
    problems: &mut Problems,
) -> Option<OnError> {
    let value = value?;
    match value.get_ref().as_str() {
        "deny" => Some(OnError::Deny),
        "continue" => Some(OnError::Continue),
        other => {
            problems.push(
                file,
                line_of(text, value.span().start),
                None,
                format!("`on_error` is \"deny\" or \"continue\", not \"{other}\""),
            );
            None
        }
    }
}

/// What a TOML file holds, checked.
#[derive(Default)]
pub(crate) struct Parsed {
    pub(crate) hooks: Vec<Declared>,
    pub(crate) settings: StdSettings,
    pub(crate) upstreams: Vec<crate::upstream::Upstream>,
    pub(crate) transcript_dir: Option<PathBuf>,
    pub(crate) tools: Vec<hooks_core::ToolFacts>,
}

/// Parses and checks a TOML file; every problem is collected with its line.
pub(crate) fn parse(file: &Arc<str>, text: &str, problems: &mut Problems) -> Parsed {
    let parsed: File = match toml::from_str(text) {
        Ok(parsed) => parsed,
        Err(error) => {
            let line = error.span().map_or(0, |span| line_of(text, span.start));
            problems.push(file, line, None, error.message().to_owned());
            return Parsed::default();
        }
    };
    let upstreams = crate::upstream::check(file, text, parsed.upstream, problems);
    let tools = crate::tools::check(file, text, parsed.tools, problems);
    let policy = http_policy(file, text, parsed.http.allow.as_ref(), problems);
    let file_on_error = file_on_error(file, text, parsed.on_error.as_ref(), problems);
    let hooks = declared_hooks(file, text, parsed.hooks, &policy, file_on_error, problems);
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
        cedar: parsed
            .cedar
            .map(|table| (at(table.span()), table.into_inner())),
        terminal_approvals: terminal_approvals(
            file,
            text,
            parsed.approval_channel.as_ref(),
            problems,
        ),
        state_dir: None,
        redact: parsed
            .redact
            .map(|table| crate::redact::RedactSettings::new(text, table)),
        #[cfg(all(feature = "approval", feature = "http"))]
        webhook: parsed
            .approval_webhook
            .and_then(|table| webhook(file, text, table, &policy, problems)),
    };
    #[cfg(not(all(feature = "approval", feature = "http")))]
    refuse_webhook(file, text, parsed.approval_webhook.as_ref(), problems);
    settings.check(file, problems);
    let transcript_dir = parsed.transcript_dir.and_then(|dir| {
        if dir.get_ref().as_os_str().is_empty() {
            problems.push(
                file,
                at(dir.span()),
                None,
                "`transcript_dir` is empty: name a directory",
            );
            return None;
        }
        Some(dir.into_inner())
    });
    Parsed {
        hooks,
        settings,
        upstreams,
        transcript_dir,
        tools,
    }
}

/// The file's `[[hooks]]`, each checked; problems are collected with their line.
fn declared_hooks(
    file: &Arc<str>,
    text: &str,
    entries: Vec<Spanned<HookEntry>>,
    policy: &AddressPolicy,
    file_on_error: Option<OnError>,
    problems: &mut Problems,
) -> Vec<Declared> {
    entries
        .into_iter()
        .filter_map(|entry| {
            let line = line_of(text, entry.span().start);
            let entry = entry.into_inner();
            let name = entry
                .name
                .clone()
                .unwrap_or_else(|| format!("{file}:{line}"));
            match declare(entry, &name, policy) {
                Ok(mode_and_meta) => Some(Declared {
                    name,
                    file: Arc::clone(file),
                    line,
                    // The file's policy where the hook gives none; `deny` only
                    // where the event can fail closed (elsewhere it is the default).
                    on_error: mode_and_meta.on_error.or(file_on_error.filter(|policy| {
                        *policy == OnError::Continue || mode_and_meta.event.can_fail_closed()
                    })),
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
        .collect()
}

/// Checks one entry; every problem with it, not just the first.
fn declare(
    mut entry: HookEntry,
    name: &str,
    policy: &AddressPolicy,
) -> Result<Declared, Vec<String>> {
    let mut errors = Vec::new();
    let event = parse_event(&entry.event)
        .map_err(|error| errors.push(error))
        .ok();
    if let Some(pattern) = &entry.matches {
        if event.is_some_and(|event| !event.has_tool()) {
            errors.push(format!(
                "`matches` only applies to tool events ({}), not {}",
                tool_events(),
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
    let condition = match &entry.condition {
        None => None,
        Some(_) if event.is_some_and(|event| !event.has_tool()) => {
            errors.push(format!(
                "`condition` is about a tool call, so it only applies to tool events \
                 (pre_tool_use, post_tool_use, post_tool_use_failure), not {}",
                entry.event
            ));
            None
        }
        Some(pattern) => Condition::parse(pattern)
            .map_err(|error| {
                errors.push(format!("bad pattern \"{pattern}\" in `condition`: {error}"));
            })
            .ok(),
    };
    let mode = mode(&mut entry, policy)
        .map_err(|error| errors.push(error))
        .ok()
        .map(|mode| match condition {
            Some(condition) => Mode::When(Arc::new(condition), Box::new(mode)),
            None => mode,
        });
    match (event, mode) {
        (Some(event), Some(mode)) if errors.is_empty() => Ok(Declared {
            event,
            name: name.to_owned(),
            matcher: entry.matches,
            gate: None,
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

/// An `http = { .. }` hook.
#[cfg(feature = "http")]
fn http_mode(http: HttpEntry, policy: &AddressPolicy) -> Result<Mode, String> {
    let hook =
        HttpHook::new(&http.url, policy.clone()).map_err(|error| format!("`http`: {error}"))?;
    let hook = http.headers.iter().try_fold(
        hook.fire_and_forget(http.fire_and_forget),
        |hook, (name, value)| hook.header(name, value),
    );
    let hook = match http.payload_template {
        Some(template) => hook
            .and_then(|hook| hook.payload_template(json_template(template, "payload_template")?)),
        None => hook,
    };
    let hook = match http.max_in_flight {
        Some(_) if !http.fire_and_forget => Err(
            "`max_in_flight` caps fire-and-forget requests: set `fire_and_forget = true`, \
             or remove it"
                .to_owned(),
        ),
        Some(max) => hook.and_then(|hook| hook.max_in_flight(max)),
        None => hook,
    };
    Ok(Mode::Http(
        hook.map_err(|error| format!("`http`: {error}"))?,
    ))
}

/// An `http = { .. }` hook, in a build without an HTTP client: refused.
#[cfg(not(feature = "http"))]
fn http_mode(_http: HttpEntry, _policy: &AddressPolicy) -> Result<Mode, String> {
    Err(format!("an `http` hook {}", crate::NEEDS_HTTP))
}

/// What the hook runs: exactly one of a command, an HTTP endpoint, a prompt,
/// an agent or an MCP tool.
fn mode(entry: &mut HookEntry, policy: &AddressPolicy) -> Result<Mode, String> {
    let given = [
        entry.command.is_some(),
        entry.http.is_some(),
        entry.prompt.is_some(),
        entry.agent.is_some(),
        entry.mcp_tool.is_some(),
    ];
    if given.iter().filter(|given| **given).count() != 1 {
        return Err(
            "needs exactly one of `command`, `http`, `prompt`, `agent` or `mcp_tool`".to_owned(),
        );
    }
    if let Some(command_line) = entry.command.take() {
        return match command_line {
            CommandLine::Exec(words) => match words.split_first() {
                Some((program, args)) if !program.is_empty() => {
                    let hook = CommandHook::exec(program.clone(), args.to_vec())
                        .with_variables()
                        .map_err(|error| format!("`command`: {error}"))?;
                    Ok(Mode::Command(command(hook, &entry.env, entry.max_output)))
                }
                _ => Err("`command` is empty: give the program and its arguments".to_owned()),
            },
            // Not filled in: a value would be read by the shell as code.
            CommandLine::Shell(line) if entry.shell => Ok(Mode::Command(command(
                CommandHook::shell(line),
                &entry.env,
                entry.max_output,
            ))),
            CommandLine::Shell(line) => Err(format!(
                "`command = \"{line}\"` would need a shell: write it as an array (exec form, no shell), or add `shell = true`"
            )),
        };
    }
    if let Some(http) = entry.http.take() {
        return http_mode(http, policy);
    }
    if let Some(prompt) = entry.prompt.take() {
        return Ok(Mode::Prompt {
            model: prompt.model,
            text: prompt.text,
        });
    }
    if let Some(agent) = entry.agent.take() {
        if agent.max_turns == 0 {
            return Err(
                "`agent`: `max_turns` is 0: the verifier could never answer (write e.g. 3)"
                    .to_owned(),
            );
        }
        return Ok(Mode::Agent {
            verifier: agent.verifier,
            prompt: agent.prompt,
            max_turns: agent.max_turns,
        });
    }
    let Some(mcp) = entry.mcp_tool.take() else {
        unreachable!("exactly one mode was given");
    };
    let arguments = match mcp.arguments {
        None => None,
        Some(arguments) => {
            let arguments = json_template(arguments, "arguments")
                .map_err(|error| format!("`mcp_tool`: {error}"))?;
            if !arguments.is_object() {
                return Err(
                    "`mcp_tool`: `arguments` must be a table (MCP tools take named arguments)"
                        .to_owned(),
                );
            }
            Some(Arc::new(
                JsonTemplate::parse(arguments).map_err(|error| format!("`mcp_tool`: {error}"))?,
            ))
        }
    };
    Ok(Mode::McpTool {
        server: mcp.server,
        tool: mcp.tool,
        arguments,
    })
}

/// A template given as a table, or as a string holding JSON.
fn json_template(template: serde_json::Value, key: &str) -> Result<serde_json::Value, String> {
    match template {
        serde_json::Value::String(text) => crate::strict_json::parse(&text).map_err(|error| {
            format!(
                "`{key}` is a string, so it must hold JSON ({error}); a variable goes inside a \
                 JSON string (\"${{tool_input.path}}\"), and one that is the whole string \
                 becomes the value, whatever its type"
            )
        }),
        other => Ok(other),
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
/// The tool events' names, for messages.
fn tool_events() -> String {
    let tools: Vec<&str> = EventKind::ALL
        .iter()
        .filter(|event| event.has_tool())
        .map(|event| event.as_str())
        .collect();
    tools.join(", ")
}

pub(crate) fn parse_event(name: &str) -> Result<EventKind, String> {
    EventKind::ALL
        .iter()
        .copied()
        .find(|event| {
            event.as_str() == name || event.as_str().replace('_', "") == name.to_ascii_lowercase()
        })
        .ok_or_else(|| {
            // A host's event without a counterpart here, in either spelling
            // (`WorktreeCreate`, `worktree_create`): why it cannot run.
            let squashed = name.replace('_', "").to_ascii_lowercase();
            if let Some(host) = crate::unmapped::events_not_run()
                .find(|event| event.to_ascii_lowercase() == squashed)
            {
                return crate::unmapped::why_not(host);
            }
            let known: Vec<&str> = EventKind::ALL.iter().map(|event| event.as_str()).collect();
            format!("unknown event \"{name}\"; events are: {}", known.join(", "))
        })
}

/// The 1-based line of byte `offset`.
pub(crate) fn line_of(text: &str, offset: usize) -> u32 {
    let offset = offset.min(text.len());
    u32::try_from(text[..offset].matches('\n').count() + 1).unwrap_or(u32::MAX)
}
