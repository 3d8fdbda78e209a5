use std::fmt::{self, Write as _};

use serde::Serialize;

use crate::event::{EventKind, OnError};
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
}

/// One hook in a [`Description`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
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
    /// Where it comes from.
    pub origin: Origin,
}

impl Description {
    pub(crate) fn of(tables: &Tables) -> Self {
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
                origin: meta.origin.clone(),
            })
            .collect();
        Description { hooks }
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
    let role = if hook.observer { " observer" } else { "" };
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
        Ok(())
    }
}
