//! Why a dispatcher could not be built: every problem, collected and
//! reported together.

use std::fmt;

use crate::event::EventKind;
use crate::matcher::PatternError;
use crate::registry::table::Origin;

/// Why a dispatcher could not be built: every problem found, one per line.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildError {
    pub(crate) problems: Vec<BuildProblem>,
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
    /// `require` or `require_shadow` names a hook the builder knows (linked
    /// or added) but its filters (`only`, `without`, `groups`,
    /// `without_groups`) leave out.
    RequiredLeftOut {
        /// The hook.
        name: String,
    },
    /// `require` names a hook that runs in shadow in this dispatcher: it
    /// records what it would decide and enforces nothing.
    RequiredInShadow {
        /// The hook.
        name: String,
    },
    /// `require_shadow` names a hook that enforces in this dispatcher.
    RequiredShadowEnforces {
        /// The hook.
        name: String,
    },
    /// `require` names a hook left out because the dispatcher was not given
    /// the opt-in state it reads ([`opt_in!`](crate::opt_in)).
    RequiredNotGiven {
        /// The hook.
        name: String,
        /// The state type it needs.
        type_name: &'static str,
    },
    /// `only` or `without` names a hook the builder does not know (linked or added).
    UnknownHook {
        /// `only` or `without`.
        filter: &'static str,
        /// The name given.
        name: String,
    },
    /// `groups` or `without_groups` names a group no hook is in.
    UnknownGroup {
        /// `groups` or `without_groups`.
        filter: &'static str,
        /// The group given.
        group: String,
    },
    /// A hook reads state of a type the builder was given no value of, and
    /// no crate offers a default for.
    MissingState {
        /// The event.
        event: EventKind,
        /// The hook.
        hook: String,
        /// The state's type.
        type_name: &'static str,
    },
    /// A hook reads one state type twice (written as two names, say through
    /// a type alias): state is looked up by type, so both would be one value.
    RepeatedState {
        /// The event.
        event: EventKind,
        /// The hook.
        hook: String,
        /// The state's type.
        type_name: &'static str,
    },
    /// The default of a state type could not be made.
    StateDefaultFailed {
        /// The state's type.
        type_name: &'static str,
        /// Where the default is offered.
        offered_at: String,
        /// What went wrong.
        error: String,
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
    /// A runtime hook on an event that can neither block nor withhold its
    /// output asks to fail closed.
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
    /// A tool hook's pattern matches none of the tools the builder was told.
    MatchesNoTool {
        /// The event.
        event: EventKind,
        /// The hook.
        hook: String,
        /// Its pattern.
        pattern: String,
        /// The tool it most likely meant.
        suggestion: Option<String>,
    },
    /// An observer was marked shadow: it enforces nothing to begin with.
    ObserverCannotShadow {
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
            BuildProblem::MissingRequired { .. }
            | BuildProblem::RequiredLeftOut { .. }
            | BuildProblem::RequiredInShadow { .. }
            | BuildProblem::RequiredShadowEnforces { .. }
            | BuildProblem::RequiredNotGiven { .. } => self.fmt_required(f),
            BuildProblem::UnknownHook { filter, name } => write!(
                f,
                "`{filter}` names hook `{name}`, which is neither linked into this binary nor added to the builder (names are `module::path::fn_name` unless set with `name = \"...\"`)"
            ),
            BuildProblem::UnknownGroup { filter, group } => {
                write!(f, "`{filter}` names group `{group}`, which no hook is in")
            }
            BuildProblem::MissingState {
                event,
                hook,
                type_name,
            } => write!(
                f,
                "{event} hook `{hook}` reads state of type `{type_name}`, but the builder was given none: \
                 add `.state(..)` with a `{type_name}` value"
            ),
            BuildProblem::RepeatedState {
                event,
                hook,
                type_name,
            } => write!(
                f,
                "{event} hook `{hook}` reads state of type `{type_name}` twice, and state is looked \
                 up by type, so both would be the same value: give each its own type (a newtype), \
                 or read one struct that holds both"
            ),
            BuildProblem::StateDefaultFailed {
                type_name,
                offered_at,
                error,
            } => write!(
                f,
                "the default `{type_name}` (offered at {offered_at}) could not be made: {error}; \
                 give the builder one with `.state(..)`"
            ),
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
                "{event} hook `{hook}`: `on_error = deny` is not possible because {event} hooks can neither block nor withhold anything"
            ),
            BuildProblem::ObserverCannotDeny { event, hook } => write!(
                f,
                "{event} observer `{hook}`: `on_error = deny` is not possible because observers run after the decision"
            ),
            BuildProblem::MatchesNoTool {
                event,
                hook,
                pattern,
                suggestion,
            } => {
                write!(
                    f,
                    "{event} hook `{hook}`: its pattern \"{pattern}\" matches none of the agent's tools, so it would never run"
                )?;
                match suggestion {
                    Some(tool) => write!(f, "; did you mean `{tool}`?"),
                    None => Ok(()),
                }
            }
            BuildProblem::ObserverCannotShadow { event, hook } => write!(
                f,
                "{event} observer `{hook}` cannot run in shadow: observers enforce nothing, so there is nothing to hold back"
            ),
        }
    }
}

impl BuildProblem {
    /// What `require` and `require_shadow` found, said.
    fn fmt_required(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildProblem::MissingRequired { name } => write!(
                f,
                "hook `{name}` is required but is neither linked into this binary nor added to \
                 the builder: if it is a hook function defined in another crate, reference that \
                 crate with `hooks_core::link!(that_crate);` (a crate nothing refers to is dropped \
                 by the linker); if it is a runtime hook (`Hook::new`), add it with `.hook(..)` \
                 before `build()`"
            ),
            BuildProblem::RequiredLeftOut { name } => write!(
                f,
                "hook `{name}` is required, but this dispatcher's filters (`only`, `without`, \
                 `groups`, `without_groups`) leave it out: keep it, or do not require it here"
            ),
            BuildProblem::RequiredInShadow { name } => write!(
                f,
                "hook `{name}` is required, but it runs in shadow here (it records what it would \
                 decide and enforces nothing): take it out of shadow (`shadow_groups`, \
                 `.shadow()`, `shadow = true`), or require it with `require_shadow` if recording \
                 is what is meant"
            ),
            BuildProblem::RequiredShadowEnforces { name } => write!(
                f,
                "hook `{name}` is required in shadow (`require_shadow`), but it enforces here: put \
                 it in shadow, or require it with `require`"
            ),
            BuildProblem::RequiredNotGiven { name, type_name } => write!(
                f,
                "hook `{name}` is required, but it runs only in a dispatcher given a \
                 `{type_name}`: give one with `.state(..)` (or the configuration table that sets it)"
            ),
            _ => Ok(()),
        }
    }
}
