use std::sync::Arc;

use crate::catalog::ToolCatalog;
use crate::registry::describe::Description;
use crate::registry::event::Event;
use crate::registry::state::{StateMap, StateValue};
use crate::registry::table::Tables;
use crate::verdict::{Approver, Redact};

/// The dispatcher: every hook of every event, sorted once, with the state
/// they read and who answers approvals; shared cheaply.
///
/// Build it once at start-up with [`Hooks::builder`], clone it into
/// sub-agents (a clone is a reference count), and dispatch each event through
/// [`dispatch`](Hooks::dispatch), or tool events through a
/// [`ToolHandle`](crate::ToolHandle). Dispatching sync hooks allocates nothing.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(matches = "delete_*")]
/// fn no_deletes(_ctx: &mut PreToolUse) -> Decision {
///     Decision::deny("deleting is disabled in this deployment")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let hooks = Hooks::builder().build().unwrap();
/// let session = Session::new("s1");
///
/// let mut call = PreToolUse::new(&session, "delete_user", json!({"id": 7}));
/// let outcome = hooks.dispatch(&mut call).await;
/// let denial = outcome.denial().unwrap();
/// assert!(denial.hook().as_str().ends_with("no_deletes"));
/// assert_eq!(denial.reason(), "deleting is disabled in this deployment");
/// # }
/// ```
#[derive(Clone)]
pub struct Hooks {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) tables: Tables,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    /// What hooks' errors, denial reasons and prompts pass through.
    pub(crate) redactor: Option<Arc<dyn Redact>>,
    pub(crate) injection_budget: usize,
    pub(crate) stop_denial_cap: u32,
    /// Whether an ask voided by a later rewrite is asked again about the
    /// rewritten call (rather than denied).
    pub(crate) ask_again_after_rewrite: bool,
    /// The agent's tools, if the builder was told them.
    pub(crate) tools: Vec<String>,
    /// What is known about the tools (also in `states`, for hooks to read).
    pub(crate) catalog: Arc<ToolCatalog>,
    pub(crate) states: StateMap,
    /// What configurations asked for and this dispatcher left out (`file:line: what`).
    pub(crate) skipped: Vec<String>,
}

impl Hooks {
    /// Lists the hooks of this dispatcher, in dispatch order.
    pub fn describe(&self) -> Description {
        Description::of(
            &self.inner.tables,
            &self.inner.tools,
            &self.inner.catalog,
            &self.inner.skipped,
        )
    }

    /// What this dispatcher knows about its tools.
    pub fn catalog(&self) -> &ToolCatalog {
        &self.inner.catalog
    }

    /// How many hooks this dispatcher runs on `C`'s event (before matching).
    pub fn count<C: Event>(&self) -> usize {
        C::__table(&self.inner.tables).entries.len()
    }

    /// The state of type `T` this dispatcher's hooks read: given to the
    /// builder, or the default made for it. `None` if it has none.
    ///
    /// State is shared, so a value with interior mutability (an atomic
    /// switch, a store) can be changed here and every later call sees it.
    pub fn state<T: StateValue>(&self) -> Option<&T> {
        self.inner.states.get_typed()
    }

    /// How many times in a row `stop` (or `subagent_stop`) hooks may keep
    /// an agent going before it is let stop
    /// ([`HooksBuilder::stop_denial_cap`](crate::HooksBuilder::stop_denial_cap)).
    pub fn stop_denial_cap(&self) -> u32 {
        self.inner.stop_denial_cap
    }

    /// Who answers approvals, if anyone.
    pub(crate) fn approver(&self) -> Option<&dyn Approver> {
        self.inner.approver.as_deref()
    }

    /// What hooks' words pass through before they are logged or handed on.
    #[inline]
    pub(crate) fn redactor(&self) -> Option<&dyn Redact> {
        self.inner.redactor.as_deref()
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("hooks", &self.inner.tables.metas().count())
            .field("state", &self.inner.states.names())
            .field("approver", &self.inner.approver.is_some())
            .field("redactor", &self.inner.redactor.is_some())
            .field("injection_budget", &self.inner.injection_budget)
            .finish()
    }
}
