use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::catalog::{ToolCatalog, ToolFacts};
use crate::context::DEFAULT_INJECTION_BUDGET;

/// How many times in a row stop hooks may keep an agent going, unless the builder says otherwise.
pub const DEFAULT_STOP_DENIAL_CAP: u32 = 8;
use crate::event::{EventKind, OnError};
use crate::matcher::Matcher;
use crate::registry::event::Event;
use crate::registry::hook::{Hook, Timed};
use crate::registry::hooks::{Hooks, Inner};
use crate::registry::linked::{__HOOKS_CORE_V1_OPT_IN, __HOOKS_CORE_V1_STATE_DEFAULTS};
use crate::registry::problem::{BuildError, BuildProblem};
use crate::registry::state::{Shared, State, StateMap, StateType, StateValue};
use crate::registry::table::{
    Entry, HookMeta, Origin, Runner, Table, Tables, VisitTable, on_error,
};
use crate::verdict::{Approver, Redact};

/// Builds a [`Hooks`] dispatcher: which hooks to keep, which runtime hooks
/// to add, the state hooks read, who answers approvals, and what must be present.
///
/// Every problem is collected and reported together by [`build`](Self::build);
/// none is skipped silently.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(group = "billing")]
/// fn invoices_only(_ctx: &mut PreToolUse) {}
///
/// let hooks = Hooks::builder()
///     .groups(["billing"])                               // hooks of this group only
///     .require([concat!(module_path!(), "::invoices_only")])    // fail now if it is missing
///     .build()
///     .unwrap();
/// assert_eq!(hooks.count::<PreToolUse>(), 1);
///
/// let err = Hooks::builder().require(["billing::refund_guard"]).build().unwrap_err();
/// assert!(err.to_string().contains("`billing::refund_guard` is required but is neither linked"));
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct HooksBuilder {
    linked: bool,
    groups: Option<BTreeSet<String>>,
    without_groups: BTreeSet<String>,
    only: Option<BTreeSet<String>>,
    without: BTreeSet<String>,
    required: BTreeSet<String>,
    required_shadow: BTreeSet<String>,
    runtime: Tables,
    problems: Vec<BuildProblem>,
    approver: Option<Arc<dyn Approver>>,
    redactor: Option<Arc<dyn Redact>>,
    injection_budget: usize,
    stop_denial_cap: u32,
    ask_again_after_rewrite: bool,
    shadow_groups: BTreeSet<String>,
    shadow_hooks: BTreeSet<String>,
    tools: Option<Vec<String>>,
    facts: Vec<ToolFacts>,
    states: StateMap,
    skipped: Vec<String>,
}

impl Hooks {
    /// A builder starting from every hook linked into the binary.
    pub fn builder() -> HooksBuilder {
        HooksBuilder {
            linked: true,
            groups: None,
            without_groups: BTreeSet::new(),
            only: None,
            without: BTreeSet::new(),
            required: BTreeSet::new(),
            required_shadow: BTreeSet::new(),
            runtime: Tables::default(),
            problems: Vec::new(),
            approver: None,
            redactor: None,
            injection_budget: DEFAULT_INJECTION_BUDGET,
            stop_denial_cap: DEFAULT_STOP_DENIAL_CAP,
            ask_again_after_rewrite: false,
            shadow_groups: BTreeSet::new(),
            shadow_hooks: BTreeSet::new(),
            tools: None,
            facts: Vec::new(),
            states: StateMap::default(),
            skipped: Vec::new(),
        }
    }
}

impl HooksBuilder {
    /// Leaves out every linked hook: the dispatcher runs runtime hooks only.
    pub fn without_linked(mut self) -> Self {
        self.linked = false;
        self
    }

    /// Keeps only the hooks (linked, runtime or from a config file) in one of these groups.
    pub fn groups<I: IntoIterator<Item = S>, S: Into<String>>(mut self, groups: I) -> Self {
        self.groups
            .get_or_insert_with(BTreeSet::new)
            .extend(groups.into_iter().map(Into::into));
        self
    }

    /// Leaves out the hooks in these groups.
    pub fn without_groups<I: IntoIterator<Item = S>, S: Into<String>>(mut self, groups: I) -> Self {
        self.without_groups
            .extend(groups.into_iter().map(Into::into));
        self
    }

    /// Keeps only the hooks with these names.
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.only
            .get_or_insert_with(BTreeSet::new)
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Leaves out the hooks with these names.
    pub fn without<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.without.extend(names.into_iter().map(Into::into));
        self
    }

    /// Fails [`build`](Self::build) unless hooks with these names are in the
    /// dispatcher and enforce: the start-up check that a crate of hooks was
    /// really linked (or a runtime hook added), that no filter left it out,
    /// and that it does not run in shadow (recording, enforcing nothing).
    pub fn require<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.required.extend(names.into_iter().map(Into::into));
        self
    }

    /// [`require`](Self::require)'s shadow form: fails [`build`](Self::build)
    /// unless hooks with these names are in the dispatcher *in shadow* — the
    /// start-up check of a staged rollout, where a new guard must be there,
    /// recording what it would decide, and must not yet enforce.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hooks = Hooks::builder()
    ///     .without_linked()
    ///     .hook(Hook::new("no_rm", |ctx: &PreToolUse| {
    ///         if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
    ///     }).shadow())
    ///     .require_shadow(["no_rm"])
    ///     .build();
    /// assert!(hooks.is_ok());
    /// ```
    pub fn require_shadow<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.required_shadow
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Gives hooks a value to read: a hook taking `&T` after its context gets
    /// this one. One value per type; a later call replaces an earlier one.
    ///
    /// Each dispatcher owns its state, so one process can hold several
    /// dispatchers with several policies (tenants, gateway upstreams, tests).
    ///
    /// ```standalone_crate
    /// use hooks_core::prelude::*;
    ///
    /// struct Policy { max_amount: u64 }
    ///
    /// #[pre_tool_use(matches = "pay", group = "state_doc")]
    /// fn cap(ctx: &mut PreToolUse, policy: &Policy) -> Decision {
    ///     match ctx.args()["amount"].as_u64() {
    ///         Some(amount) if amount <= policy.max_amount => Decision::Continue,
    ///         _ => Decision::deny(format!("payments above {} need another route", policy.max_amount)),
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let strict = Hooks::builder().groups(["state_doc"]).state(Policy { max_amount: 10 }).build().unwrap();
    /// let lax = Hooks::builder().groups(["state_doc"]).state(Policy { max_amount: 1_000 }).build().unwrap();
    /// let session = Session::new("s");
    /// let mut pay = || PreToolUse::new(&session, "pay", json!({"amount": 100}));
    /// assert!(strict.dispatch(&mut pay()).await.is_denied());
    /// assert!(lax.dispatch(&mut pay()).await.is_continue());
    ///
    /// // Without a `Policy`, the dispatcher is not built: the error names the hook and the type.
    /// let error = Hooks::builder().groups(["state_doc"]).build().unwrap_err();
    /// assert!(error.to_string().contains("reads state of type"));
    /// # }
    /// ```
    pub fn state<T: StateValue>(self, value: T) -> Self {
        self.shared_state(Arc::new(value))
    }

    /// Like [`state`](Self::state), for a value shared with the application or
    /// with other dispatchers (one rate-limit store for several tenants, say).
    pub fn shared_state<T: StateValue>(mut self, value: Arc<T>) -> Self {
        self.states.insert(value);
        self
    }

    /// Adds a runtime hook; it joins the order of the linked hooks.
    pub fn hook<C: Event>(mut self, hook: Hook<C>) -> Self {
        let matcher = match hook.pattern.as_deref().map(Matcher::parse) {
            None => None,
            Some(Ok(matcher)) => Some(matcher),
            Some(Err(error)) => {
                self.problems.push(BuildProblem::BadPattern {
                    event: C::KIND,
                    hook: hook.name.to_string(),
                    pattern: hook.pattern.clone().unwrap_or_default(),
                    error,
                });
                return self;
            }
        };
        if hook.on_error == Some(OnError::Deny) && hook.observer {
            self.problems.push(BuildProblem::ObserverCannotDeny {
                event: C::KIND,
                hook: hook.name.to_string(),
            });
            return self;
        }
        if hook.shadow && hook.observer {
            self.problems.push(BuildProblem::ObserverCannotShadow {
                event: C::KIND,
                hook: hook.name.to_string(),
            });
            return self;
        }
        if hook.on_error == Some(OnError::Deny) && !C::KIND.can_fail_closed() {
            self.problems.push(BuildProblem::CannotDeny {
                event: C::KIND,
                hook: hook.name.to_string(),
            });
            return self;
        }
        let runner = match hook.timeout {
            Some(limit) => Arc::new(Timed {
                inner: hook.runner,
                limit,
            }),
            None => hook.runner,
        };
        C::__table_mut(&mut self.runtime).entries.push(Entry {
            meta: HookMeta {
                name: hook.name,
                priority: hook.priority,
                group: hook.group,
                matcher,
                on_error: on_error(hook.observer, hook.on_error, C::KIND),
                timeout: hook.timeout,
                shape: hook.shape,
                observer: hook.observer,
                shadow: hook.shadow,
                state: hook.state,
                origin: hook.origin,
            },
            runner: Runner::Runtime(runner),
            state: State::default(),
        });
        self
    }

    /// Sets who answers [`Decision::Ask`](crate::Decision::Ask). Without one,
    /// every approval is denied.
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Wraps the approver set so far (if any) in another: how a transport
    /// that can ask the person itself (an MCP client, by elicitation) falls
    /// back to the configured one (a store and a CLI) when it cannot.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hooks_core::prelude::*;
    /// use hooks_core::{ApprovalRequest, Approver, BoxFuture};
    ///
    /// struct Louder(Option<Arc<dyn Approver>>);
    ///
    /// impl Approver for Louder {
    ///     fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
    ///         match &self.0 {
    ///             Some(inner) => inner.decide(request),
    ///             None => Box::pin(async { ApprovalAnswer::deny("nobody to ask") }),
    ///         }
    ///     }
    /// }
    ///
    /// let hooks = Hooks::builder()
    ///     .approver(|_: &ApprovalRequest| ApprovalAnswer::approve())
    ///     .wrap_approver(Louder)
    ///     .build()
    ///     .unwrap();
    /// # drop(hooks);
    /// ```
    pub fn wrap_approver<A: Approver>(
        mut self,
        wrap: impl FnOnce(Option<Arc<dyn Approver>>) -> A,
    ) -> Self {
        let inner = self.approver.take();
        self.approver = Some(Arc::new(wrap(inner)));
        self
    }

    /// Sets what hooks' words pass through: every hook error before it is
    /// logged, recorded or turned into a denial reason, every denial reason,
    /// and every approval prompt before an approver sees it. It allocates
    /// nothing for text with no secret in it. (See [`Redact`] for an example.)
    ///
    /// Hooks read it as state of its own type too (`&R`): `hooks_std`'s audit
    /// log, approval store and result scrubber redact with the
    /// `hooks_std::redact::Redactor` given here. Approvers reach it through
    /// [`ApprovalRequest::redactor`](crate::ApprovalRequest::redactor). A
    /// later call replaces an earlier one.
    pub fn redactor<R: Redact>(mut self, redactor: R) -> Self {
        let redactor = Arc::new(redactor);
        self.states.insert(Arc::clone(&redactor));
        self.redactor = Some(redactor);
        self
    }

    /// Sets the byte budget for injected context per event (default 10 KiB).
    pub fn injection_budget(mut self, bytes: usize) -> Self {
        self.injection_budget = bytes;
        self
    }

    /// When a hook rewrites the arguments after another asked for approval,
    /// asks the person about the call as it now stands — the asking hook's
    /// prompt, the rewritten arguments, and which hook changed them — and
    /// lets it go on if they approve. Without it (the default) such an ask
    /// is superseded: the call is denied and nobody is asked, so rewrites
    /// belong before approval.
    pub fn ask_again_after_rewrite(mut self) -> Self {
        self.ask_again_after_rewrite = true;
        self
    }

    /// Caps how many times in a row `stop` (or `subagent_stop`) hooks may
    /// keep an agent going (default 8, as Claude Code does): past the cap
    /// the agent stops, and the outcome says so
    /// ([`Outcome::stop_capped`](crate::Outcome::stop_capped)). The count is
    /// kept per [`Session`](crate::Session) (shared by its clones) and starts
    /// again when a stop is allowed.
    pub fn stop_denial_cap(mut self, cap: u32) -> Self {
        self.stop_denial_cap = cap;
        self
    }

    /// Runs the deciding hooks of these groups in shadow (see
    /// [`Hook::shadow`](crate::Hook::shadow)): what they would have decided
    /// is recorded, not enforced.
    pub fn shadow_groups<I: IntoIterator<Item = S>, S: Into<String>>(mut self, groups: I) -> Self {
        self.shadow_groups
            .extend(groups.into_iter().map(Into::into));
        self
    }

    /// Runs the deciding hooks with these names in shadow, as
    /// [`shadow_groups`](Self::shadow_groups) does for groups: a linked
    /// standard hook can be tried on live traffic before it enforces. A
    /// name no hook has is a build error.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hooks = Hooks::builder()
    ///     .without_linked()
    ///     .hook(Hook::new("no_rm", |ctx: &PreToolUse| {
    ///         if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
    ///     }))
    ///     .shadow_hooks(["no_rm"])
    ///     .require_shadow(["no_rm"])
    ///     .build();
    /// assert!(hooks.is_ok());
    ///
    /// let typo = Hooks::builder().without_linked().shadow_hooks(["no_rn"]).build();
    /// assert!(typo.unwrap_err().to_string().contains("`shadow_hooks` names hook `no_rn`"));
    /// ```
    pub fn shadow_hooks<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.shadow_hooks.extend(names.into_iter().map(Into::into));
        self
    }

    /// Tells the dispatcher the agent's tools, and what is known about them.
    ///
    /// A tool hook whose pattern matches none of them is then a start-up
    /// error naming the hook (with the tool it most likely meant), not a
    /// guard that silently never runs; and [`describe`](Hooks::describe)
    /// lists, for each tool, the hooks on it. Each tool is a name or a
    /// [`ToolFacts`] (its effects, schema, argument roles), which goes into
    /// the dispatcher's [`ToolCatalog`] for guards to read.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    /// use hooks_core::{ArgRole, ToolFacts};
    ///
    /// let error = Hooks::builder()
    ///     .without_linked()
    ///     .tools(["sql_query", "read_file"])
    ///     .hook(Hook::<PreToolUse>::new("guard", |_: &mut PreToolUse| {}).matches("sql_qeury"))
    ///     .build()
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("did you mean `sql_query`?"));
    ///
    /// let hooks = Hooks::builder()
    ///     .without_linked()
    ///     .tools([
    ///         ToolFacts::new("sql_query").arg("query", ArgRole::Sql),
    ///         ToolFacts::new("read_file").only_reads(),
    ///     ])
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(hooks.catalog().len(), 2);
    /// ```
    pub fn tools<I: IntoIterator<Item = T>, T: Into<ToolFacts>>(mut self, tools: I) -> Self {
        let names = self.tools.get_or_insert_with(Vec::new);
        for tool in tools {
            let tool = tool.into();
            names.push(tool.name().to_owned());
            self.facts.push(tool);
        }
        self
    }

    /// Adds facts about tools to the dispatcher's [`ToolCatalog`] without
    /// saying they are all the agent's tools: facts an integration knows
    /// (a host's built-in tools, say) while other tools may come and go.
    /// Unlike [`tools`](Self::tools), hook patterns are not checked against them.
    pub fn tool_facts<I: IntoIterator<Item = T>, T: Into<ToolFacts>>(mut self, tools: I) -> Self {
        self.facts.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Records something a configuration file asked for that this dispatcher
    /// does not run (a hook for an event it lacks, say), so that
    /// [`describe`](Hooks::describe) lists it with its file and line instead
    /// of it vanishing. It changes nothing else.
    pub fn skipped(
        mut self,
        file: impl std::fmt::Display,
        line: u32,
        what: impl std::fmt::Display,
    ) -> Self {
        self.skipped.push(format!("{file}:{line}: {what}"));
        self
    }

    /// Builds the dispatcher, or reports every problem found.
    pub fn build(mut self) -> Result<Hooks, BuildError> {
        let mut tables = Tables::default();
        let mut collect = Collect {
            builder: &mut self,
            known_names: BTreeSet::new(),
            known_groups: BTreeSet::new(),
        };
        tables.each_mut(&mut collect);
        let (known_names, known_groups) = (collect.known_names, collect.known_groups);
        let mut leave_out = LeaveOut {
            states: &self.states,
            left_out: BTreeMap::new(),
        };
        tables.each_mut(&mut leave_out);
        let left_out = leave_out.left_out;

        let mut problems = std::mem::take(&mut self.problems);
        self.check_filters(&known_names, &known_groups, &mut problems);
        problems.extend(self.check_required(&tables, &known_names, &left_out));
        problems.extend(duplicates(&tables));
        if let Some(tools) = &self.tools {
            problems.extend(unmatched(&tables, tools));
        }
        let catalog = Arc::new(ToolCatalog::new(std::mem::take(&mut self.facts)));
        self.states.insert(Arc::clone(&catalog));
        let mut resolve = Resolve {
            states: &mut self.states,
            problems: &mut problems,
            defaults_failed: BTreeSet::new(),
        };
        tables.each_mut(&mut resolve);
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        Ok(Hooks {
            inner: Arc::new(Inner {
                tables,
                approver: self.approver,
                redactor: self.redactor,
                injection_budget: self.injection_budget,
                stop_denial_cap: self.stop_denial_cap,
                ask_again_after_rewrite: self.ask_again_after_rewrite,
                tools: self.tools.unwrap_or_default(),
                catalog,
                states: self.states,
                skipped: self.skipped,
            }),
        })
    }

    /// Whether a hook passes the scoping filters.
    fn keeps(&self, name: &str, group: Option<&str>) -> bool {
        self.groups
            .as_ref()
            .is_none_or(|groups| group.is_some_and(|group| groups.contains(group)))
            && group.is_none_or(|group| !self.without_groups.contains(group))
            && self.only.as_ref().is_none_or(|only| only.contains(name))
            && !self.without.contains(name)
    }

    /// A filter naming nothing is a typo, not a no-op: say so.
    /// What `require` and `require_shadow` find wrong: a hook missing
    /// (and why: never known, filtered out, or its opt-in state not given),
    /// or present in the wrong mode.
    fn check_required(
        &self,
        tables: &Tables,
        known_names: &BTreeSet<String>,
        left_out: &BTreeMap<String, &'static str>,
    ) -> Vec<BuildProblem> {
        // A name may be on several events: in shadow if it is on any.
        let mut present: BTreeMap<&str, bool> = BTreeMap::new();
        for (_, meta) in tables.metas() {
            *present.entry(meta.name.as_str()).or_default() |= meta.shadow;
        }
        let missing = |name: &String| match left_out.get(name.as_str()) {
            Some(&type_name) => BuildProblem::RequiredNotGiven {
                name: name.clone(),
                type_name,
            },
            None if known_names.contains(name) => {
                BuildProblem::RequiredLeftOut { name: name.clone() }
            }
            None => BuildProblem::MissingRequired { name: name.clone() },
        };
        let enforcing = self.required.iter().map(|name| (name, false));
        let shadow = self.required_shadow.iter().map(|name| (name, true));
        enforcing
            .chain(shadow)
            .filter_map(|(name, want_shadow)| match present.get(name.as_str()) {
                None => Some(missing(name)),
                Some(&true) if !want_shadow => {
                    Some(BuildProblem::RequiredInShadow { name: name.clone() })
                }
                Some(&false) if want_shadow => {
                    Some(BuildProblem::RequiredShadowEnforces { name: name.clone() })
                }
                Some(_) => None,
            })
            .collect()
    }

    fn check_filters(
        &self,
        names: &BTreeSet<String>,
        groups: &BTreeSet<String>,
        problems: &mut Vec<BuildProblem>,
    ) {
        let unknown_names = |filter: &'static str, given: &BTreeSet<String>| {
            given
                .iter()
                .filter(|name| !names.contains(*name))
                .map(move |name| BuildProblem::UnknownHook {
                    filter,
                    name: name.clone(),
                })
                .collect::<Vec<_>>()
        };
        let unknown_groups = |filter: &'static str, given: &BTreeSet<String>| {
            given
                .iter()
                .filter(|group| !groups.contains(*group))
                .map(move |group| BuildProblem::UnknownGroup {
                    filter,
                    group: group.clone(),
                })
                .collect::<Vec<_>>()
        };
        if let Some(only) = &self.only {
            problems.extend(unknown_names("only", only));
        }
        problems.extend(unknown_names("without", &self.without));
        if let Some(given) = &self.groups {
            problems.extend(unknown_groups("groups", given));
        }
        problems.extend(unknown_groups("without_groups", &self.without_groups));
        problems.extend(unknown_groups("shadow_groups", &self.shadow_groups));
        problems.extend(unknown_names("shadow_hooks", &self.shadow_hooks));
    }
}

/// Gathers each event's hooks: the linked ones (unless left out) and the
/// runtime ones, through the same filters, in dispatch order.
struct Collect<'b> {
    builder: &'b mut HooksBuilder,
    known_names: BTreeSet<String>,
    known_groups: BTreeSet<String>,
}

impl VisitTable for Collect<'_> {
    fn visit<C: Event>(&mut self, table: &mut Table<C>) {
        if self.builder.linked {
            for hook in C::__linked() {
                self.known_names.insert(hook.name.to_owned());
                self.known_groups.extend(hook.more.group.map(str::to_owned));
                if !self.builder.keeps(hook.name, hook.more.group) {
                    continue;
                }
                match Entry::linked(hook) {
                    Ok(entry) => table.entries.push(entry),
                    // The macro checked the pattern with the same grammar:
                    // only a mismatched build of the two crates gets here.
                    Err(error) => self.builder.problems.push(BuildProblem::BadPattern {
                        event: C::KIND,
                        hook: hook.name.to_owned(),
                        pattern: hook.matches.to_owned(),
                        error,
                    }),
                }
            }
        }
        let runtime = std::mem::take(&mut C::__table_mut(&mut self.builder.runtime).entries);
        for entry in runtime {
            let (name, group) = (entry.meta.name.as_str(), entry.meta.group.as_deref());
            self.known_names.insert(name.to_owned());
            self.known_groups.extend(group.map(str::to_owned));
            if self.builder.keeps(name, group) {
                table.entries.push(entry);
            }
        }
        for entry in &mut table.entries {
            let group = entry.meta.group.as_deref();
            if !entry.meta.observer
                && (group.is_some_and(|group| self.builder.shadow_groups.contains(group))
                    || self.builder.shadow_hooks.contains(entry.meta.name.as_str()))
            {
                entry.meta.shadow = true;
            }
        }
        table.sort();
    }
}

/// Leaves out every hook whose policy — its first state parameter — is an
/// opt-in type ([`opt_in!`](crate::opt_in)) the builder was given no value of.
struct LeaveOut<'b> {
    states: &'b StateMap,
    /// Each hook left out, and the state type it was not given.
    left_out: BTreeMap<String, &'static str>,
}

impl VisitTable for LeaveOut<'_> {
    fn visit<C: Event>(&mut self, table: &mut Table<C>) {
        let (states, left_out) = (self.states, &mut self.left_out);
        table.entries.retain(|entry| {
            // A hook's first state parameter is its policy: the rest only help it.
            let not_given = entry.meta.state.first().filter(|&&ty| {
                states.get(ty).is_none()
                    && __HOOKS_CORE_V1_OPT_IN
                        .iter()
                        .any(|opt_in| (opt_in.id)() == (ty.id)())
            });
            if let Some(ty) = not_given {
                left_out.insert(entry.meta.name.to_string(), (ty.name)());
            }
            not_given.is_none()
        });
        table.sort();
    }
}

/// Gives every hook the state it reads: the builder's value of each type,
/// else the default a crate offers (made once per dispatcher), else a problem.
struct Resolve<'b> {
    states: &'b mut StateMap,
    problems: &'b mut Vec<BuildProblem>,
    /// Types whose default failed, reported once.
    defaults_failed: BTreeSet<&'static str>,
}

impl Resolve<'_> {
    fn value(&mut self, ty: StateType) -> Option<Shared> {
        if let Some(value) = self.states.get(ty) {
            return Some(Arc::clone(value));
        }
        let name = (ty.name)();
        if self.defaults_failed.contains(name) {
            return None;
        }
        let offered = __HOOKS_CORE_V1_STATE_DEFAULTS
            .iter()
            .find(|default| (default.ty.id)() == (ty.id)())?;
        match (offered.make)() {
            Ok(value) => {
                self.states.insert_shared(ty, Arc::clone(&value));
                Some(value)
            }
            Err(error) => {
                self.defaults_failed.insert(name);
                self.problems.push(BuildProblem::StateDefaultFailed {
                    type_name: name,
                    offered_at: format!("{}:{}", offered.file, offered.line),
                    error,
                });
                None
            }
        }
    }
}

impl VisitTable for Resolve<'_> {
    fn visit<C: Event>(&mut self, table: &mut Table<C>) {
        for entry in &mut table.entries {
            let state = &entry.meta.state;
            let repeated = state
                .iter()
                .enumerate()
                .find(|(index, ty)| state[..*index].iter().any(|seen| (seen.id)() == (ty.id)()));
            if let Some((_, ty)) = repeated {
                self.problems.push(BuildProblem::RepeatedState {
                    event: C::KIND,
                    hook: entry.meta.name.to_string(),
                    type_name: (ty.name)(),
                });
            }
            let mut values = Vec::with_capacity(entry.meta.state.len());
            for &ty in &entry.meta.state {
                match self.value(ty) {
                    Some(value) => values.push(value),
                    None if self.defaults_failed.contains((ty.name)()) => {}
                    None => self.problems.push(BuildProblem::MissingState {
                        event: C::KIND,
                        hook: entry.meta.name.to_string(),
                        type_name: (ty.name)(),
                    }),
                }
            }
            entry.state = State::new(values);
        }
    }
}

fn duplicates(tables: &Tables) -> Vec<BuildProblem> {
    let mut seen: BTreeMap<(EventKind, &str), &Origin> = BTreeMap::new();
    let mut problems = Vec::new();
    for (event, meta) in tables.metas() {
        if let Some(first) = seen.insert((event, meta.name.as_str()), &meta.origin) {
            problems.push(BuildProblem::DuplicateName {
                event,
                name: meta.name.to_string(),
                first: first.clone(),
                second: meta.origin.clone(),
            });
        }
    }
    problems
}

/// Tool hooks whose pattern matches none of the agent's tools.
fn unmatched(tables: &Tables, tools: &[String]) -> Vec<BuildProblem> {
    tables
        .metas()
        .filter_map(|(event, meta)| {
            let matcher = meta.matcher.as_ref()?;
            if tools.iter().any(|tool| matcher.may_match_tool(tool)) {
                return None;
            }
            Some(BuildProblem::MatchesNoTool {
                event,
                hook: meta.name.to_string(),
                pattern: matcher.as_str().to_owned(),
                suggestion: closest_tool(matcher.as_str(), tools),
            })
        })
        .collect()
}

/// The tool a pattern most likely meant: the one nearest to a tool name
/// written in it, within a third of its length (at least two edits).
fn closest_tool(pattern: &str, tools: &[String]) -> Option<String> {
    pattern
        .split('|')
        .map(|alternative| alternative.split('(').next().unwrap_or("").trim())
        .flat_map(|written| {
            tools.iter().map(move |tool| {
                (
                    hooks_events::pattern::edit_distance(written, tool),
                    written.len(),
                    tool,
                )
            })
        })
        .filter(|(distance, len, _)| *distance <= (len / 3).max(2))
        .min_by_key(|(distance, _, _)| *distance)
        .map(|(_, _, tool)| tool.clone())
}
