//! The events Claude Code and Codex document that this project does not
//! run, each with why: a hook declared on one in a settings file would never
//! run here, so loading says so (skipped by `load`, refused by
//! `load_strict` and by the hook binary), naming the event and the reason.

use hooks_core::EventKind;

/// Each event the hosts document without a counterpart here: its name, what
/// its hooks do in the host, and which host's own settings can run it.
const UNMAPPED: &[(&str, &str, &str)] = &[
    (
        "Setup",
        "run for a repository's setup (`claude --init`, `--maintenance`), outside any session \
         these hooks guard",
        CLAUDE,
    ),
    (
        "UserPromptExpansion",
        "decide whether a slash command expands into a prompt, an event hooks-core has no \
         context for",
        CLAUDE,
    ),
    (
        "PermissionDenied",
        "run after the host's auto mode refused a call (and may ask it to retry), an event \
         hooks-core does not have",
        CLAUDE,
    ),
    (
        "PostToolBatch",
        "run once after a batch of parallel tool calls, while hooks-core dispatches each call \
         on its own (PostToolUse runs for every one)",
        CLAUDE,
    ),
    (
        "TaskCreated",
        "decide on a task created in an agent team, which hooks-core has no context for",
        CLAUDE,
    ),
    (
        "TaskCompleted",
        "decide whether an agent team's task may be marked complete, which hooks-core has no \
         context for",
        CLAUDE,
    ),
    (
        "StopFailure",
        "run when a turn ended on an API error (the host ignores their answer), an event \
         hooks-core does not have",
        CLAUDE,
    ),
    (
        "TeammateIdle",
        "keep an agent team's teammate working, which hooks-core has no context for",
        CLAUDE,
    ),
    (
        "PostCompact",
        "run after the conversation was compacted, an event hooks-core does not have (PreCompact \
         runs before it)",
        HOSTS,
    ),
    (
        "Elicitation",
        "answer an MCP server's request for input in the person's place, which hooks-core has \
         no context for",
        CLAUDE,
    ),
    (
        "ElicitationResult",
        "see or change the person's answer to an MCP server's request for input, which \
         hooks-core has no context for",
        CLAUDE,
    ),
    (
        "ConfigChange",
        "decide whether a change to the host's own settings files takes effect, which only the \
         host sees",
        CLAUDE,
    ),
    (
        "InstructionsLoaded",
        "run when the host loads its instruction files (CLAUDE.md), which only the host sees",
        CLAUDE,
    ),
    (
        "CwdChanged",
        "follow the host's working directory as it changes, which only the host sees",
        CLAUDE,
    ),
    (
        "FileChanged",
        "run when files the host watches change (their matcher names the files), which only \
         the host watches",
        CLAUDE,
    ),
    (
        "WorktreeCreate",
        "replace Claude Code's own worktree creation (its output is the path), which this \
         project does not do",
        CLAUDE,
    ),
    (
        "WorktreeRemove",
        "replace Claude Code's own worktree removal, which this project does not do",
        CLAUDE,
    ),
    (
        "Interrupt",
        "run when the person interrupts a turn, an event hooks-core does not have",
        "Codex's",
    ),
];

const CLAUDE: &str = "Claude Code's";
const HOSTS: &str = "Claude Code's or Codex's";

/// Why hooks on `event`, which has no counterpart here, cannot be loaded.
pub(crate) fn why_not(event: &str) -> String {
    match UNMAPPED.iter().find(|(name, _, _)| *name == event) {
        Some((name, what, host)) => format!(
            "`{name}` hooks {what}: this project cannot run them; configure them in {host} \
             own settings instead"
        ),
        None => {
            let run: Vec<&str> = EventKind::ALL
                .iter()
                .map(|kind| kind.context_name())
                .collect();
            format!(
                "`{event}` is not an event this project knows (it runs {}); a newer host's \
                 event belongs in its own settings",
                run.join(", ")
            )
        }
    }
}

/// Every event the hosts document that has no counterpart here.
pub fn events_not_run() -> impl Iterator<Item = &'static str> {
    UNMAPPED.iter().map(|(name, _, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_has_its_own_reason() {
        let worktree = why_not("WorktreeCreate");
        assert!(
            worktree.contains("replace Claude Code's own worktree creation")
                && worktree.ends_with("configure them in Claude Code's own settings instead"),
            "{worktree}"
        );
        assert!(why_not("Interrupt").contains("Codex's own settings"));
        assert!(why_not("Nonsense").starts_with("`Nonsense` is not an event"));
        let reasons: std::collections::BTreeSet<_> = events_not_run().map(why_not).collect();
        assert_eq!(reasons.len(), UNMAPPED.len(), "no two alike");
    }
}
