//! The tool catalog: what the dispatcher knows about each tool, from where
//! the tool is defined, so guards decide from facts instead of guessing from
//! names.
//!
//! Facts come from the builder ([`HooksBuilder::tools`](crate::HooksBuilder::tools),
//! [`tool_facts`](crate::HooksBuilder::tool_facts)), which integrations fill
//! from what defines their tools: an MCP server's `tools/list` annotations
//! (hooks-mcp), rig tool definitions (hooks-rig), the host's own tools
//! (hooks-claude), `[tools.NAME]` tables (hooks-config). Hooks read a
//! call's facts from its context ([`PreToolUse::facts`](crate::PreToolUse::facts)),
//! or the whole catalog as state (`&ToolCatalog`).

mod facts;
mod role;
mod source;

use std::collections::HashMap;
use std::sync::Arc;

pub use facts::ToolFacts;
pub use role::{ArgFact, ArgRole, UnknownRole};
pub use source::{Fact, Source};

/// What a dispatcher knows about its tools, each with where it came from.
///
/// Made once by [`HooksBuilder::build`](crate::HooksBuilder::build) from every
/// declaration given to it (several declarations of one tool are merged:
/// [`Source`] says which wins), and given to hooks as state: a hook taking
/// `&ToolCatalog` after its context reads it.
///
/// ```
/// use hooks_core::prelude::*;
/// use hooks_core::{ToolCatalog, ToolFacts};
///
/// let hooks = Hooks::builder()
///     .without_linked()
///     .tools([ToolFacts::new("git_status").only_reads(), "deploy".into()])
///     .build()
///     .unwrap();
/// let catalog = hooks.catalog();
/// assert!(catalog.get("git_status").unwrap().read_only().unwrap().value);
/// assert!(catalog.get("deploy").unwrap().read_only().is_none());
/// assert!(catalog.get("rm").is_none());
/// ```
#[derive(Debug)]
pub struct ToolCatalog {
    /// In the order first declared.
    tools: Vec<Arc<ToolFacts>>,
    index: HashMap<Box<str>, usize>,
}

impl ToolCatalog {
    /// The catalog of `declarations`, merged per tool in the order given.
    pub(crate) fn new(declarations: impl IntoIterator<Item = ToolFacts>) -> Self {
        let mut merged: Vec<ToolFacts> = Vec::new();
        let mut index: HashMap<Box<str>, usize> = HashMap::new();
        for declared in declarations {
            match index.get(declared.name()) {
                Some(&at) => merged[at].merge(declared),
                None => {
                    index.insert(declared.name().into(), merged.len());
                    merged.push(declared);
                }
            }
        }
        ToolCatalog {
            tools: merged.into_iter().map(Arc::new).collect(),
            index,
        }
    }

    /// What is known about `tool` (its exact name), if it was declared.
    #[inline]
    pub fn get(&self, tool: &str) -> Option<&Arc<ToolFacts>> {
        if self.tools.is_empty() {
            return None;
        }
        self.index.get(tool).map(|&at| &self.tools[at])
    }

    /// Every tool declared, in the order first declared.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ToolFacts> {
        self.tools.iter().map(|tool| &**tool)
    }

    /// How many tools are declared.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is declared.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_of_one_tool_are_merged_in_order() {
        let catalog = ToolCatalog::new([
            ToolFacts::new("a").only_reads(),
            ToolFacts::new("b"),
            ToolFacts::new("a").arg("q", ArgRole::Sql),
        ]);
        let names: Vec<&str> = catalog.iter().map(ToolFacts::name).collect();
        assert_eq!(names, ["a", "b"]);
        let a = catalog.get("a").unwrap();
        assert!(a.read_only().unwrap().value);
        assert_eq!(a.args().len(), 1);
        assert!(catalog.get("A").is_none(), "names are exact");
    }
}
