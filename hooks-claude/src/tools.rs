//! What each host's own tools do, as its documentation describes them: the
//! facts the binary gives the tool catalog, so guards decide from them
//! rather than from the tools' names. MCP tools (`mcp__server__tool`) are
//! the servers' own; nothing is declared of them here.

use std::sync::Arc;

use hooks_core::{ArgRole, Source, ToolFacts};

use crate::host::Host;

impl Host {
    /// The host's built-in tools and what each does ([`Source::Host`]).
    ///
    /// ```
    /// use hooks_claude::Host;
    ///
    /// let tools = Host::Claude.tools();
    /// let read = tools.iter().find(|tool| tool.name() == "Read").unwrap();
    /// assert!(read.read_only().unwrap().value);
    /// let bash = tools.iter().find(|tool| tool.name() == "Bash").unwrap();
    /// assert!(!bash.read_only().unwrap().value);
    /// ```
    pub fn tools(self) -> Vec<ToolFacts> {
        let source = Source::Host {
            host: Arc::from(self.title()),
        };
        let tool = |name: &str| ToolFacts::new(name).from(source.clone());
        match self {
            Host::Claude => vec![
                tool("Read").only_reads().arg("file_path", ArgRole::Path),
                tool("NotebookRead")
                    .only_reads()
                    .arg("notebook_path", ArgRole::Path),
                tool("Glob").only_reads().arg("path", ArgRole::Path),
                tool("Grep").only_reads().arg("path", ArgRole::Path),
                tool("LS").only_reads().arg("path", ArgRole::Path),
                tool("WebFetch")
                    .only_reads()
                    .with_open_world(true)
                    .arg("url", ArgRole::Url),
                tool("WebSearch").only_reads().with_open_world(true),
                // The output of a shell started in the background: read, not run.
                tool("BashOutput").only_reads(),
                // The session's own plan and to-do list: nothing outside the agent.
                tool("TodoWrite").only_reads(),
                tool("ExitPlanMode").only_reads(),
                tool("Write").destroys().arg("file_path", ArgRole::Path),
                tool("Edit").destroys().arg("file_path", ArgRole::Path),
                tool("MultiEdit").destroys().arg("file_path", ArgRole::Path),
                tool("NotebookEdit")
                    .destroys()
                    .arg("notebook_path", ArgRole::Path),
                tool("Bash")
                    .destroys()
                    .with_open_world(true)
                    .arg("command", ArgRole::Shell),
                tool("KillShell").destroys(),
            ],
            Host::Codex => vec![
                tool("Bash")
                    .destroys()
                    .with_open_world(true)
                    .arg("command", ArgRole::Shell),
                tool("apply_patch").destroys(),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_says_whether_it_reads_and_where_that_came_from() {
        for host in [Host::Claude, Host::Codex] {
            for tool in host.tools() {
                let fact = tool.read_only().expect("declared");
                assert_eq!(
                    fact.source,
                    Source::Host {
                        host: Arc::from(host.title())
                    },
                    "{}",
                    tool.name()
                );
                if tool.destructive().is_some_and(|fact| fact.value) {
                    assert!(!fact.value, "{} destroys yet reads only", tool.name());
                }
            }
        }
    }
}
