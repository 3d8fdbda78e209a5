use std::fmt::{self, Write as _};

use serde::Serialize;

use crate::catalog::ToolCatalog;
use crate::event::{EventKind, OnError};
use crate::matcher::Relevance;
use crate::registry::table::{Origin, Shape, Tables};

/// Every hook of a dispatcher, in dispatch order: the static audit of what
/// runs where. Prints as a table; serializes as JSON.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(priority = -5, matches = "sql_*", group = "db")]
/// fn sql_guard(_ctx: &mut PreToolUse) {}
///
/// let hooks = Hooks::builder().groups(["db"]).build().unwrap();
/// let description = hooks.describe();
/// let hook = &description.hooks()[0];
/// assert_eq!(hook.matcher.as_deref(), Some("sql_*"));
/// assert_eq!(hook.on_error, OnError::Deny);
/// println!("{description}");
/// let json = description.to_json();
/// assert_eq!(json[0]["event"], "pre_tool_use");
/// assert_eq!(json[0]["origin"]["kind"], "linked");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Description {
    hooks: Vec<HookInfo>,
    /// Per tool, when the builder was told the agent's tools.
    #[serde(skip)]
    tools: Vec<ToolHooks>,
    /// What a configuration asked for that was left out, as `file:line: what`.
    #[serde(skip)]
    skipped: Vec<String>,
}

/// The hooks that run on one tool's calls, as [`Description::tools`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolHooks {
    /// The tool.
    pub tool: String,
    /// Each hook that may run on its calls, in dispatch order.
    pub hooks: Vec<ToolHook>,
    /// Warnings about how the tool is described (hidden instructions,
    /// invisible characters): [`ToolFacts::flags`](crate::ToolFacts::flags).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// One hook on one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolHook {
    /// The event (`pre_tool_use`, `post_tool_use`, `post_tool_use_failure`).
    pub event: EventKind,
    /// The hook.
    pub name: String,
    /// Whether it runs on only some calls: its pattern names a subject
    /// (`Bash(rm *)`), checked per call.
    pub some_calls: bool,
}

/// One hook in a [`Description`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
#[allow(clippy::struct_excessive_bools)] // a flat record of facts about a hook, not a state machine
pub struct HookInfo {
    /// The event it runs on.
    pub event: EventKind,
    /// Its name.
    pub name: String,
    /// Its priority (lower runs earlier).
    pub priority: i32,
    /// Its pattern, on tool events.
    pub matcher: Option<String>,
    /// Its group.
    pub group: Option<String>,
    /// What its failure does.
    pub on_error: OnError,
    /// Its timeout, for hooks that return a future.
    pub timeout_ms: Option<u64>,
    /// Whether it may wait: an `async fn`, a hook returning `Deferred`, or a runtime hook returning futures.
    pub asynchronous: bool,
    /// Whether it answers at once unless it must wait (returns `Deferred`).
    pub deferred: bool,
    /// The types of the state it reads.
    pub state: Vec<&'static str>,
    /// Whether it observes (runs after the decision, cannot change it).
    pub observer: bool,
    /// Whether it runs in shadow (what it decides is recorded, not enforced).
    pub shadow: bool,
    /// Where it comes from.
    pub origin: Origin,
}

impl Description {
    pub(crate) fn of(
        tables: &Tables,
        tools: &[String],
        catalog: &ToolCatalog,
        skipped: &[String],
    ) -> Self {
        let hooks = tables
            .metas()
            .map(|(event, meta)| HookInfo {
                event,
                name: meta.name.to_string(),
                priority: meta.priority,
                matcher: meta.matcher.as_ref().map(ToString::to_string),
                group: meta.group.as_deref().map(ToOwned::to_owned),
                on_error: meta.on_error,
                timeout_ms: meta
                    .timeout
                    .map(|timeout| u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)),
                asynchronous: meta.shape != Shape::Sync,
                deferred: meta.shape == Shape::Deferred,
                state: meta.state.iter().map(|ty| (ty.name)()).collect(),
                observer: meta.observer,
                shadow: meta.shadow,
                origin: meta.origin.clone(),
            })
            .collect();
        let tools = tools
            .iter()
            .map(|tool| ToolHooks {
                tool: tool.clone(),
                hooks: tables
                    .metas()
                    .filter(|(event, _)| event.has_tool())
                    .filter_map(|(event, meta)| {
                        let relevance = meta
                            .matcher
                            .as_ref()
                            .map_or(Relevance::Always, |matcher| matcher.relevance(tool));
                        (relevance != Relevance::Never).then(|| ToolHook {
                            event,
                            name: meta.name.to_string(),
                            some_calls: relevance == Relevance::PerCall,
                        })
                    })
                    .collect(),
                flags: catalog
                    .get(tool)
                    .map(|facts| facts.flags().to_vec())
                    .unwrap_or_default(),
            })
            .collect();
        Description {
            hooks,
            tools,
            skipped: skipped.to_vec(),
        }
    }

    /// For each of the agent's tools (given to
    /// [`HooksBuilder::tools`](crate::HooksBuilder::tools)), the hooks that
    /// run on its calls; empty if the builder was not told the tools.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hooks = Hooks::builder()
    ///     .without_linked()
    ///     .tools(["Bash", "read_file"])
    ///     .hook(Hook::<PreToolUse>::new("no_rm", |_: &mut PreToolUse| {}).matches("Bash(rm *)"))
    ///     .build()
    ///     .unwrap();
    /// let description = hooks.describe();
    /// let bash = &description.tools()[0];
    /// assert_eq!((bash.tool.as_str(), bash.hooks[0].name.as_str()), ("Bash", "no_rm"));
    /// assert!(bash.hooks[0].some_calls);
    /// assert!(description.tools()[1].hooks.is_empty());
    /// ```
    pub fn tools(&self) -> &[ToolHooks] {
        &self.tools
    }

    /// What configurations asked for that this dispatcher does not run (given to
    /// [`HooksBuilder::skipped`](crate::HooksBuilder::skipped)), each as
    /// `file:line: what`, in the order given. Not part of [`to_json`](Self::to_json).
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hooks = Hooks::builder()
    ///     .without_linked()
    ///     .skipped("settings.json", 3, "`Notification` hooks: no such event")
    ///     .build()
    ///     .unwrap();
    /// let description = hooks.describe();
    /// assert_eq!(description.skipped(), ["settings.json:3: `Notification` hooks: no such event"]);
    /// assert!(description.to_string().contains("skipped settings.json:3: `Notification`"));
    /// ```
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// The hooks, event by event in lifecycle order, each event in dispatch order.
    pub fn hooks(&self) -> &[HookInfo] {
        &self.hooks
    }

    /// The description as a JSON array.
    ///
    /// # Panics
    ///
    /// Never: a description holds only strings, numbers and booleans.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a description is plain data")
    }
}

fn kind(hook: &HookInfo) -> String {
    let shape = match (hook.asynchronous, hook.deferred) {
        (false, _) => "sync",
        (true, false) => "async",
        (true, true) => "deferred",
    };
    let role = match (hook.observer, hook.shadow) {
        (true, _) => " observer",
        (false, true) => " shadow",
        (false, false) => "",
    };
    match hook.timeout_ms {
        None => format!("{shape}{role}"),
        Some(ms) => format!("{shape}{role} {ms}ms"),
    }
}

/// The state column: short type names (`Policy`, not `my_app::policy::Policy`).
fn state(hook: &HookInfo) -> String {
    if hook.state.is_empty() {
        return "-".to_owned();
    }
    hook.state
        .iter()
        .map(|name| short_type_name(name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `a::b::C<d::E>` as `C<E>`.
fn short_type_name(name: &str) -> String {
    let mut short = String::with_capacity(name.len());
    let mut segment = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            segment.push(c);
        } else {
            short.push_str(segment.rsplit("::").next().unwrap_or(""));
            segment.clear();
            short.push(c);
        }
    }
    short.push_str(segment.rsplit("::").next().unwrap_or(""));
    short
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEADER: [&str; 9] = [
            "event", "priority", "name", "matches", "group", "on_error", "kind", "state", "origin",
        ];
        let rows: Vec<[String; 9]> = self
            .hooks
            .iter()
            .map(|hook| {
                [
                    hook.event.to_string(),
                    hook.priority.to_string(),
                    hook.name.clone(),
                    hook.matcher.clone().unwrap_or_else(|| "-".into()),
                    hook.group.clone().unwrap_or_else(|| "-".into()),
                    hook.on_error.to_string(),
                    kind(hook),
                    state(hook),
                    hook.origin.to_string(),
                ]
            })
            .collect();
        let mut widths = HEADER.map(str::len);
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut line = |cells: &[&str]| -> fmt::Result {
            let mut text = String::new();
            for (cell, width) in cells.iter().zip(widths) {
                let _ = write!(text, "{cell:<width$}  ");
            }
            writeln!(f, "{}", text.trim_end())
        };
        line(&HEADER)?;
        for row in &rows {
            line(&row.each_ref().map(String::as_str))?;
        }
        for tool in &self.tools {
            let hooks: Vec<String> = tool
                .hooks
                .iter()
                .map(|hook| {
                    let some = if hook.some_calls { ", some calls" } else { "" };
                    format!("{} ({}{some})", hook.name, hook.event)
                })
                .collect();
            let hooks = if hooks.is_empty() {
                "no hooks".to_owned()
            } else {
                hooks.join(", ")
            };
            writeln!(f, "tool {}: {hooks}", tool.tool)?;
            for flag in &tool.flags {
                writeln!(f, "  flagged: {flag}")?;
            }
        }
        for skipped in &self.skipped {
            writeln!(f, "skipped {skipped}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Hook, Hooks, PreToolUse, ToolFacts};

    #[test]
    fn a_flagged_tool_is_described_with_its_flags() {
        let hooks = Hooks::builder()
            .without_linked()
            .tools([
                ToolFacts::new("echo").flag("description: invisible character U+200B"),
                ToolFacts::new("plain"),
            ])
            .tool_facts([ToolFacts::new("echo").flag("title: instruction-like text")])
            .build()
            .unwrap();
        let description = hooks.describe();
        assert_eq!(
            description.tools()[0].flags,
            [
                "description: invisible character U+200B",
                "title: instruction-like text"
            ]
        );
        assert!(description.tools()[1].flags.is_empty());
        let text = description.to_string();
        assert!(
            text.contains(
                "tool echo: no hooks\n  flagged: description: invisible character U+200B\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn skipped_entries_are_listed_after_the_hooks_and_not_in_json() {
        let hooks = Hooks::builder()
            .without_linked()
            .hook(Hook::<PreToolUse>::new("guard", |_: &mut PreToolUse| {}))
            .skipped("a.json", 3, "`Notification` hooks: skipped")
            .skipped("b.json", 9, "`async` hook: skipped")
            .build()
            .unwrap();
        let description = hooks.describe();
        assert_eq!(
            description.skipped(),
            [
                "a.json:3: `Notification` hooks: skipped",
                "b.json:9: `async` hook: skipped"
            ]
        );
        let text = description.to_string();
        let guard = text.find("guard").unwrap();
        let first = text.find("skipped a.json:3: `Notification`").unwrap();
        assert!(
            guard < first && first < text.find("skipped b.json:9").unwrap(),
            "{text}"
        );
        assert_eq!(description.to_json().as_array().map(Vec::len), Some(1));
    }
}
