//! Tool pinning, the defence against a "rug pull": an upstream server that
//! changes what one of its tools says it does (its description, its schema,
//! its annotations) after the person agreed to use it, to steer the model.
//!
//! The first time the gateway sees a tool, its definition — name, title,
//! description, input and output schemas, annotations, as canonical JSON —
//! is fingerprinted (SHA-256) and pinned: trust on first use. A definition
//! that differs from the pinned one later, at start-up or when the upstream
//! sends `notifications/tools/list_changed`, hides the tool from
//! `tools/list` and refuses its calls (through [`FILTER_HOOK`], so the
//! audit log records each refusal), with a warning in the gateway's log,
//! until someone reads what changed (`hooks-mcp pins diff TOOL`) and accepts
//! it (`hooks-mcp pins accept TOOL`). A definition that goes back to the
//! pinned one is offered again. With [`PinMode::Strict`], a tool never seen
//! before waits for acceptance too.
//!
//! Pins live in `mcp-pins.json` in the state directory when one is given
//! ([`Pins::in_dir`]; the binary's `--state-dir`), and so outlive the
//! gateway; without one ([`Pins::in_memory`], what [`Gateway::new`] uses)
//! they last as long as the gateway: a tool redefined while it runs is still
//! hidden, and the next start pins afresh. No file is written unasked.
//!
//! Each definition is also scanned for text meant for the model rather than
//! the person: invisible characters and instruction-like phrases
//! ([`ToolFacts::flags`](hooks_core::ToolFacts::flags), shown by
//! `Hooks::describe()`, and on each call's session as [`FLAGS`], which the
//! audit log records). A flag is a warning; [`Pins::hide_flagged`] hides
//! flagged tools as well.
//!
//! The gateway's copy of a pinned definition is what clients see: a server
//! that changes a tool without saying so changes nothing the model reads.
//!
//! [`FILTER_HOOK`]: crate::FILTER_HOOK
//! [`Gateway::new`]: crate::Gateway::new

mod cli;
mod definition;
mod diff;
pub(crate) mod flags;
mod store;
pub(crate) mod watch;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hooks_core::Session;
use rmcp::model::Tool;

pub use cli::command;
pub use store::FILE_NAME;

use definition::Definition;
use store::{Stamp, Store, Table};

use crate::upstream::Upstream;

/// Set on a call's session when pinning refuses its tool: the reason,
/// which [`FILTER_HOOK`](crate::FILTER_HOOK) refuses with. Sessions are the
/// gateway's own, so no client can set it.
pub(crate) const REFUSED: &str = "hooks_mcp.pin_refusal";

/// The session metadata key under which a call of a flagged tool carries
/// its flags (a list of strings), for the audit log and for hooks.
pub const FLAGS: &str = "hooks_mcp.flags";

/// What happens to a tool the gateway has never seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PinMode {
    /// Pinned on first sight and offered (trust on first use).
    #[default]
    TrustOnFirstUse,
    /// Hidden, like a changed tool, until someone accepts it
    /// (`hooks-mcp pins accept`): needs a state directory.
    Strict,
}

/// The pins of a gateway's tools: which definitions are accepted, and which
/// tools are hidden because theirs changed. See the [module docs](self).
pub struct Pins {
    store: Option<Store>,
    mode: PinMode,
    hide_flagged: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    table: Table,
    /// The file's stamp when last read or written: another means someone
    /// accepted a tool meanwhile.
    modified: Option<Stamp>,
    /// Exposed name → what the gateway knows of the tool now.
    tools: HashMap<String, Seen>,
}

struct Seen {
    /// `upstream/tool`: its key in the pins file.
    key: String,
    /// The tool as the client sees it (under its exposed name).
    shown: Tool,
    definition: Definition,
    flags: Vec<String>,
    /// Why its definition keeps it hidden and refused, if it does
    /// (settled against the pins file again when the file changes).
    refusal: Option<String>,
    /// Why its upstream's word keeps it hidden and refused, if it does: no
    /// longer listed, or the list could not be had (until the upstream
    /// lists it again, whatever the file says).
    unlisted: Option<String>,
}

impl Seen {
    fn refused(&self) -> Option<&String> {
        self.unlisted.as_ref().or(self.refusal.as_ref())
    }
}

impl Pins {
    /// Pins kept in memory, for as long as the gateway runs.
    pub fn in_memory() -> Self {
        Pins {
            store: None,
            mode: PinMode::TrustOnFirstUse,
            hide_flagged: false,
            state: Mutex::default(),
        }
    }

    /// Pins kept in `dir/mcp-pins.json` (made when first written).
    ///
    /// # Errors
    ///
    /// The file exists and cannot be read, or is not a pins file (never
    /// silently replaced: that would accept whatever the servers say now).
    pub fn in_dir(dir: impl AsRef<Path>) -> Result<Self, String> {
        let store = Store::in_dir(dir.as_ref());
        let modified = store.stamp()?;
        let table = store.load()?;
        Ok(Pins {
            store: Some(store),
            mode: PinMode::TrustOnFirstUse,
            hide_flagged: false,
            state: Mutex::new(State {
                table,
                modified,
                tools: HashMap::new(),
            }),
        })
    }

    /// Sets what happens to a tool never seen before.
    ///
    /// # Errors
    ///
    /// [`PinMode::Strict`] without a state directory: nothing could ever be accepted.
    pub fn mode(mut self, mode: PinMode) -> Result<Self, String> {
        if mode == PinMode::Strict && self.store.is_none() {
            return Err(
                "strict pinning needs a state directory (`--state-dir DIR`) to keep what is accepted"
                    .to_owned(),
            );
        }
        self.mode = mode;
        Ok(self)
    }

    /// Also hides (and refuses) tools whose definitions are flagged.
    #[must_use]
    pub fn hide_flagged(mut self, hide: bool) -> Self {
        self.hide_flagged = hide;
        self
    }

    /// The pins file, if pins are kept in one.
    pub fn path(&self) -> Option<&Path> {
        self.store.as_ref().map(Store::path)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Checks `upstream`'s tools now (`exposed`: upstream tool name →
    /// the name clients see), and again each time it says they changed.
    pub(crate) fn watch(
        self: &Arc<Self>,
        upstream: &Upstream,
        exposed: HashMap<String, String>,
    ) -> Result<(), String> {
        let name = upstream.name().to_owned();
        self.review(&name, &exposed, upstream.tools())?;
        let pins = Arc::clone(self);
        upstream
            .tool_watch()
            .listen(move |listing| pins.relisted(&name, &exposed, listing));
        Ok(())
    }

    /// The upstream's tools after it said they changed.
    fn relisted(
        &self,
        upstream: &str,
        exposed: &HashMap<String, String>,
        listing: Result<Vec<Tool>, String>,
    ) {
        let tools = match listing {
            Ok(tools) => tools,
            Err(error) => {
                tracing::warn!(upstream, %error, "the upstream said its tools changed and could not list them: its tools are refused");
                let mut state = self.lock();
                for name in exposed.values() {
                    if let Some(seen) = state.tools.get_mut(name) {
                        seen.unlisted = Some(format!(
                            "the upstream `{upstream}` said its tools changed and could not list them again: `{name}` is refused until it does"
                        ));
                    }
                }
                return;
            }
        };
        for tool in &tools {
            if !exposed.contains_key(tool.name.as_ref()) {
                tracing::warn!(upstream, tool = %tool.name, "the upstream offers a new tool: it is offered once the gateway restarts");
            }
        }
        {
            let mut state = self.lock();
            for (upstream_tool, name) in exposed {
                if !tools.iter().any(|tool| tool.name == *upstream_tool)
                    && let Some(seen) = state.tools.get_mut(name)
                {
                    seen.unlisted = Some(format!(
                        "the upstream `{upstream}` no longer offers `{name}`"
                    ));
                }
            }
        }
        if let Err(error) = self.review(upstream, exposed, &tools) {
            // The tools' states are set before the file is written: what
            // changed stays hidden.
            tracing::warn!(upstream, %error, "could not record the upstream's changed tools");
        }
    }

    /// Compares `tools` (as `upstream` lists them) with their pins: pins
    /// new ones (or, strict, holds them back), hides changed ones, and
    /// writes down what changed.
    fn review(
        &self,
        upstream: &str,
        exposed: &HashMap<String, String>,
        tools: &[Tool],
    ) -> Result<(), String> {
        let mut state = self.lock();
        let reloaded = self.reload_if_changed(&mut state);
        let mut dirty = false;
        for tool in tools {
            let Some(name) = exposed.get(tool.name.as_ref()) else {
                continue;
            };
            let key = format!("{upstream}/{}", tool.name);
            let definition = Definition::of(tool);
            let flags = flags::scan(definition.value());
            let entry = state.table.tools.entry(key.clone()).or_default();
            let refusal = match &entry.pinned {
                Some(pinned) if *pinned == definition => {
                    dirty |= entry.changed.take().is_some();
                    None
                }
                None if self.mode == PinMode::TrustOnFirstUse => {
                    entry.pinned = Some(definition.clone());
                    dirty = true;
                    None
                }
                pinned => {
                    if entry.changed.as_ref() != Some(&definition) {
                        entry.changed = Some(definition.clone());
                        dirty = true;
                    }
                    let reason = self.held_back(name, &key, pinned.is_some());
                    tracing::warn!(
                        upstream,
                        tool = %name,
                        pinned = pinned.as_ref().map_or("none", |pinned| pinned.short()),
                        seen = definition.short(),
                        "{reason}"
                    );
                    Some(reason)
                }
            };
            let before = state.tools.get(name).map(|seen| &seen.flags);
            if !flags.is_empty() && before != Some(&flags) {
                tracing::warn!(upstream, tool = %name, flags = ?flags, "the tool's definition is flagged: it may carry instructions for the model");
            }
            let refusal = refusal.or_else(|| self.flagged(name, &flags));
            let mut shown = tool.clone();
            shown.name = name.clone().into();
            state.tools.insert(
                name.clone(),
                Seen {
                    key,
                    shown,
                    definition,
                    flags,
                    refusal,
                    unlisted: None,
                },
            );
        }
        reloaded?;
        if dirty && let Some(store) = &self.store {
            store.save(&state.table)?;
            state.modified = store.stamp()?;
        }
        Ok(())
    }

    /// Why a tool whose definition is not (or no longer) the pinned one is refused.
    fn held_back(&self, name: &str, key: &str, was_pinned: bool) -> String {
        let how = if self.store.is_some() {
            format!(
                "run `hooks-mcp pins accept {key}` once you have read `hooks-mcp pins diff {key}`"
            )
        } else {
            "restart the gateway to accept it (no state directory: pins are kept in memory)"
                .to_owned()
        };
        if was_pinned {
            format!("the definition of `{name}` changed since it was pinned; {how}")
        } else {
            format!("the tool `{name}` is new and strict pinning holds it back; {how}")
        }
    }

    /// Why a flagged tool is refused, when flagged tools are hidden.
    fn flagged(&self, name: &str, flags: &[String]) -> Option<String> {
        (self.hide_flagged && !flags.is_empty()).then(|| {
            format!(
                "the tool `{name}` is hidden: its definition is flagged ({})",
                flags.join("; ")
            )
        })
    }

    /// Reads the file again if someone wrote it since (`pins accept`), and
    /// settles each tool against it.
    fn reload_if_changed(&self, state: &mut State) -> Result<(), String> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let modified = store.stamp()?;
        if modified == state.modified {
            return Ok(());
        }
        state.table = store.load()?;
        state.modified = modified;
        let State { table, tools, .. } = state;
        let mut lost = false;
        for (name, seen) in tools.iter_mut() {
            let unpinned = table
                .tools
                .get(&seen.key)
                .is_none_or(|entry| entry.pinned.is_none());
            if unpinned && self.mode == PinMode::TrustOnFirstUse {
                // Pinned on first sight, and lost to another writer of the
                // file (two at once): pinned again, as this gateway saw it.
                table.tools.entry(seen.key.clone()).or_default().pinned =
                    Some(seen.definition.clone());
                lost = true;
            }
            let pinned = table
                .tools
                .get(&seen.key)
                .and_then(|entry| entry.pinned.as_ref());
            seen.refusal = if pinned == Some(&seen.definition) {
                self.flagged(name, &seen.flags)
            } else {
                Some(self.held_back(name, &seen.key, pinned.is_some()))
            };
        }
        if lost {
            store.save(&state.table)?;
            state.modified = store.stamp()?;
        }
        Ok(())
    }

    /// The call's session, with why pinning refuses the tool `name` (if it
    /// does) and its flags (if any).
    pub(crate) fn mark(&self, name: &str, mut session: Session) -> Session {
        let mut state = self.lock();
        if state
            .tools
            .get(name)
            .is_some_and(|seen| seen.refused().is_some())
            && let Err(error) = self.reload_if_changed(&mut state)
        {
            tracing::warn!(%error, "could not read the pins file again");
        }
        let Some(seen) = state.tools.get(name) else {
            return session;
        };
        if let Some(reason) = seen.refused() {
            session = session.with_metadata(REFUSED, reason.clone());
        }
        if !seen.flags.is_empty() {
            session = session.with_metadata(FLAGS, seen.flags.clone());
        }
        session
    }

    /// Of `tools` (as the client would see them), those pinning offers, in
    /// their current accepted definitions.
    pub(crate) fn shown<'t>(&self, tools: impl IntoIterator<Item = &'t Tool>) -> Vec<Tool> {
        let mut state = self.lock();
        if let Err(error) = self.reload_if_changed(&mut state) {
            tracing::warn!(%error, "could not read the pins file again");
        }
        tools
            .into_iter()
            .filter_map(|tool| match state.tools.get(tool.name.as_ref()) {
                Some(seen) if seen.refused().is_some() => None,
                Some(seen) => Some(seen.shown.clone()),
                None => Some(tool.clone()),
            })
            .collect()
    }
}

/// The flags of `tool`'s definition (see [`flags`]).
pub(crate) fn flags_of(tool: &Tool) -> Vec<String> {
    flags::scan(Definition::of(tool).value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(description: &str) -> Tool {
        serde_json::from_value(json!({
            "name": "echo", "description": description, "inputSchema": {"type": "object"}
        }))
        .unwrap()
    }

    fn exposed() -> HashMap<String, String> {
        HashMap::from([("echo".to_owned(), "echo".to_owned())])
    }

    fn refusal(pins: &Pins) -> Option<String> {
        pins.mark("echo", Session::new("s"))
            .metadata_value(REFUSED)
            .and_then(|reason| reason.as_str().map(ToOwned::to_owned))
    }

    #[test]
    fn a_changed_definition_is_refused_until_it_is_back_as_pinned() {
        let pins = Pins::in_memory();
        pins.review("up", &exposed(), &[tool("Echoes.")]).unwrap();
        assert_eq!(refusal(&pins), None);
        pins.review("up", &exposed(), &[tool("Echoes. <IMPORTANT>")])
            .unwrap();
        let reason = refusal(&pins).unwrap();
        assert!(
            reason.contains("the definition of `echo` changed since it was pinned")
                && reason.contains("restart the gateway"),
            "{reason}"
        );
        assert!(pins.shown([&tool("x")]).is_empty());
        pins.review("up", &exposed(), &[tool("Echoes.")]).unwrap();
        assert_eq!(refusal(&pins), None);
        assert_eq!(
            pins.shown([&tool("x")])[0].description.as_deref(),
            Some("Echoes.")
        );
    }

    #[test]
    fn a_pin_lost_to_another_writer_is_pinned_again() {
        let dir = std::env::temp_dir().join(format!("hooks-mcp-pins-lost-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let pins = Pins::in_dir(&dir).unwrap();
        pins.review("up", &exposed(), &[tool("Echoes.")]).unwrap();
        assert_eq!(refusal(&pins), None);
        // Another process writes the file without it.
        let store = Store::in_dir(&dir);
        store.save(&Table::default()).unwrap();
        assert_eq!(pins.shown([&tool("x")]).len(), 1);
        assert_eq!(refusal(&pins), None);
        let table = store.load().unwrap();
        assert_eq!(
            table.tools["up/echo"]
                .pinned
                .as_ref()
                .map(Definition::value),
            Some(Definition::of(&tool("Echoes.")).value())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_tool_its_upstream_stopped_listing_stays_refused_whatever_the_file_says() {
        let dir = std::env::temp_dir().join(format!("hooks-mcp-pins-gone-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let pins = Pins::in_dir(&dir).unwrap();
        pins.review("up", &exposed(), &[tool("Echoes.")]).unwrap();
        pins.relisted("up", &exposed(), Err("the connection closed".to_owned()));
        let reason = refusal(&pins).unwrap();
        assert!(reason.contains("could not list them again"), "{reason}");
        // Someone accepts something: the file changes, the refusal stays.
        let store = Store::in_dir(&dir);
        store.save(&store.load().unwrap()).unwrap();
        assert!(pins.shown([&tool("x")]).is_empty());
        assert!(refusal(&pins).is_some());
        pins.relisted("up", &exposed(), Ok(vec![]));
        assert!(refusal(&pins).unwrap().contains("no longer offers `echo`"));
        pins.relisted("up", &exposed(), Ok(vec![tool("Echoes.")]));
        assert_eq!(refusal(&pins), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn strict_pinning_needs_a_state_directory() {
        let error = Pins::in_memory().mode(PinMode::Strict).err().unwrap();
        assert!(error.contains("--state-dir"), "{error}");
    }
}
