use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use crate::approval::Approver;
use crate::context::{
    DEFAULT_INJECTION_BUDGET, PostToolUse, PreModelRequest, PreToolUse, SessionEnd, SessionStart,
    Stop, UserPromptSubmit,
};
use crate::dispatch::{Hooks, Inner};
use crate::event::{Event, EventKind};
use crate::failure::OnError;
use crate::hook::{Hook, Timed};
use crate::matcher::{Matcher, PatternError};
use crate::table::{Entry, HookMeta, Origin, Runner, Tables, on_error};

/// Builds a [`Hooks`] dispatcher: which linked hooks to keep, which runtime
/// hooks to add, who answers approvals, and what must be present.
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
///     .groups(["billing"])                               // linked hooks of this group only
///     .require([concat!(module_path!(), "::invoices_only")])    // fail now if it is missing
///     .build()
///     .unwrap();
/// assert_eq!(hooks.count::<PreToolUse>(), 1);
///
/// let err = Hooks::builder().require(["billing::refund_guard"]).build().unwrap_err();
/// assert!(err.to_string().contains("`billing::refund_guard` is required but not linked"));
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct HooksBuilder {
    linked: bool,
    groups: Option<BTreeSet<String>>,
    only: Option<BTreeSet<String>>,
    without: BTreeSet<String>,
    required: BTreeSet<String>,
    runtime: Tables,
    problems: Vec<BuildProblem>,
    approver: Option<Arc<dyn Approver>>,
    injection_budget: usize,
}

impl HooksBuilder {
    pub(crate) fn new() -> Self {
        HooksBuilder {
            linked: true,
            groups: None,
            only: None,
            without: BTreeSet::new(),
            required: BTreeSet::new(),
            runtime: Tables::default(),
            problems: Vec::new(),
            approver: None,
            injection_budget: DEFAULT_INJECTION_BUDGET,
        }
    }

    /// Leaves out every linked hook: the dispatcher runs runtime hooks only.
    pub fn without_linked(mut self) -> Self {
        self.linked = false;
        self
    }

    /// Keeps only the linked hooks in one of these groups.
    pub fn groups<I: IntoIterator<Item = S>, S: Into<String>>(mut self, groups: I) -> Self {
        self.groups
            .get_or_insert_with(BTreeSet::new)
            .extend(groups.into_iter().map(Into::into));
        self
    }

    /// Keeps only the linked hooks with these names.
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.only
            .get_or_insert_with(BTreeSet::new)
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Leaves out the linked hooks with these names.
    pub fn without<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.without.extend(names.into_iter().map(Into::into));
        self
    }

    /// Fails [`build`](Self::build) unless hooks with these names are in the
    /// dispatcher: the start-up check that a crate of hooks was really linked.
    pub fn require<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.required.extend(names.into_iter().map(Into::into));
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
        if hook.on_error == Some(OnError::Deny) && hook.runner.observes() {
            self.problems.push(BuildProblem::ObserverCannotDeny {
                event: C::KIND,
                hook: hook.name.to_string(),
            });
            return self;
        }
        if hook.on_error == Some(OnError::Deny) && !C::KIND.can_block() {
            self.problems.push(BuildProblem::CannotDeny {
                event: C::KIND,
                hook: hook.name.to_string(),
            });
            return self;
        }
        C::__table_mut(&mut self.runtime).entries.push(Entry {
            meta: HookMeta {
                name: hook.name,
                priority: hook.priority,
                group: hook.group,
                matcher,
                on_error: on_error(&hook.runner, hook.on_error, C::KIND),
                timeout: hook.timeout,
                asynchronous: hook.asynchronous,
                observer: hook.runner.observes(),
                origin: hook.origin,
            },
            runner: match (hook.runner, hook.timeout) {
                (Runner::Runtime(inner), Some(limit)) => {
                    Runner::Runtime(Arc::new(Timed { inner, limit }))
                }
                (runner, _) => runner,
            },
        });
        self
    }

    /// Sets who answers [`Decision::Ask`](crate::Decision::Ask). Without one,
    /// every approval is denied.
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Sets the byte budget for injected context per event (default 10 KiB).
    pub fn injection_budget(mut self, bytes: usize) -> Self {
        self.injection_budget = bytes;
        self
    }

    /// Builds the dispatcher, or reports every problem found.
    pub fn build(mut self) -> Result<Hooks, BuildError> {
        let mut tables = Tables::default();
        let mut linked_names = BTreeSet::new();
        let mut linked_groups = BTreeSet::new();
        self.collect::<SessionStart>(&mut tables, &mut linked_names, &mut linked_groups);
        self.collect::<UserPromptSubmit>(&mut tables, &mut linked_names, &mut linked_groups);
        self.collect::<PreModelRequest>(&mut tables, &mut linked_names, &mut linked_groups);
        self.collect::<PreToolUse>(&mut tables, &mut linked_names, &mut linked_groups);
        self.collect::<PostToolUse>(&mut tables, &mut linked_names, &mut linked_groups);
        self.collect::<Stop>(&mut tables, &mut linked_names, &mut linked_groups);
        self.collect::<SessionEnd>(&mut tables, &mut linked_names, &mut linked_groups);

        let mut problems = std::mem::take(&mut self.problems);
        self.check_filters(&linked_names, &linked_groups, &mut problems);
        let present: BTreeSet<&str> = tables.metas().map(|(_, meta)| meta.name.as_str()).collect();
        problems.extend(
            self.required
                .iter()
                .filter(|name| !present.contains(name.as_str()))
                .map(|name| BuildProblem::MissingRequired { name: name.clone() }),
        );
        problems.extend(duplicates(&tables));
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        Ok(Hooks {
            inner: Arc::new(Inner {
                tables,
                approver: self.approver,
                injection_budget: self.injection_budget,
            }),
        })
    }

    fn collect<C: Event>(
        &mut self,
        tables: &mut Tables,
        linked_names: &mut BTreeSet<&'static str>,
        linked_groups: &mut BTreeSet<&'static str>,
    ) {
        let table = C::__table_mut(tables);
        for hook in C::__linked() {
            linked_names.insert(hook.name);
            linked_groups.extend(hook.group);
            if self.keeps(hook.name, hook.group) {
                table.entries.push(Entry::linked(hook));
            }
        }
        table
            .entries
            .append(&mut C::__table_mut(&mut self.runtime).entries);
        table.sort();
    }

    fn keeps(&self, name: &str, group: Option<&str>) -> bool {
        self.linked
            && self
                .groups
                .as_ref()
                .is_none_or(|groups| group.is_some_and(|group| groups.contains(group)))
            && self.only.as_ref().is_none_or(|only| only.contains(name))
            && !self.without.contains(name)
    }

    /// A filter naming nothing is a typo, not a no-op: say so.
    fn check_filters(
        &self,
        linked_names: &BTreeSet<&'static str>,
        linked_groups: &BTreeSet<&'static str>,
        problems: &mut Vec<BuildProblem>,
    ) {
        let unknown = |filter: &'static str, names: &BTreeSet<String>| {
            names
                .iter()
                .filter(|name| !linked_names.contains(name.as_str()))
                .map(move |name| BuildProblem::UnknownHook {
                    filter,
                    name: name.clone(),
                })
                .collect::<Vec<_>>()
        };
        if let Some(only) = &self.only {
            problems.extend(unknown("only", only));
        }
        problems.extend(unknown("without", &self.without));
        if let Some(groups) = &self.groups {
            problems.extend(
                groups
                    .iter()
                    .filter(|group| !linked_groups.contains(group.as_str()))
                    .map(|group| BuildProblem::UnknownGroup {
                        group: group.clone(),
                    }),
            );
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

/// Why a dispatcher could not be built: every problem found, one per line.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildError {
    problems: Vec<BuildProblem>,
}

impl BuildError {
    /// The problems, in the order they were found.
    pub fn problems(&self) -> &[BuildProblem] {
        &self.problems
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "the hooks dispatcher cannot be built ({count} problem{})",
            if count == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}

/// One problem found while building a dispatcher.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuildProblem {
    /// Two hooks of one event have the same name, so their order would be ambiguous.
    DuplicateName {
        /// The event.
        event: EventKind,
        /// The shared name.
        name: String,
        /// Where the first one comes from.
        first: Origin,
        /// Where the second one comes from.
        second: Origin,
    },
    /// `require` names a hook the dispatcher does not have.
    MissingRequired {
        /// The missing hook.
        name: String,
    },
    /// `only` or `without` names a hook that is not linked.
    UnknownHook {
        /// `only` or `without`.
        filter: &'static str,
        /// The name given.
        name: String,
    },
    /// `groups` names a group no linked hook is in.
    UnknownGroup {
        /// The group given.
        group: String,
    },
    /// A runtime hook's pattern does not parse.
    BadPattern {
        /// The event.
        event: EventKind,
        /// The hook.
        hook: String,
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        error: PatternError,
    },
    /// A runtime hook on an event that cannot block asks to fail closed.
    CannotDeny {
        /// The event.
        event: EventKind,
        /// The hook.
        hook: String,
    },
    /// An observer asks to fail closed, but observers run after the decision.
    ObserverCannotDeny {
        /// The event.
        event: EventKind,
        /// The hook.
        hook: String,
    },
}

impl fmt::Display for BuildProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildProblem::DuplicateName {
                event,
                name,
                first,
                second,
            } => write!(
                f,
                "two {event} hooks are named `{name}` ({first} and {second}): give one a different `name`"
            ),
            BuildProblem::MissingRequired { name } => write!(
                f,
                "hook `{name}` is required but not linked into this binary: if it is defined in \
                 another crate, reference that crate with `hooks_core::link!(that_crate);` \
                 (a crate nothing refers to is dropped by the linker)"
            ),
            BuildProblem::UnknownHook { filter, name } => write!(
                f,
                "`{filter}` names hook `{name}`, which is not linked into this binary (names are `module::path::fn_name` unless set with `name = \"...\"`)"
            ),
            BuildProblem::UnknownGroup { group } => {
                write!(
                    f,
                    "`groups` names group `{group}`, which no linked hook is in"
                )
            }
            BuildProblem::BadPattern {
                event,
                hook,
                pattern,
                error,
            } => write!(
                f,
                "{event} hook `{hook}`: bad pattern \"{pattern}\": {error}"
            ),
            BuildProblem::CannotDeny { event, hook } => write!(
                f,
                "{event} hook `{hook}`: `on_error = deny` is not possible because {event} hooks cannot block"
            ),
            BuildProblem::ObserverCannotDeny { event, hook } => write!(
                f,
                "{event} observer `{hook}`: `on_error = deny` is not possible because observers run after the decision"
            ),
        }
    }
}
