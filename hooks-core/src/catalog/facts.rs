//! What is known about one tool: its effects, its input schema, the roles of
//! its arguments; each fact with where it came from.

use serde::Serialize;
use serde_json::Value;

use super::role::{ArgFact, ArgRole};
use super::source::{Fact, Source};

/// What is known about one tool, in the vocabulary of MCP's tool
/// annotations: whether it only reads, destroys, is idempotent, reaches an
/// open world; its input schema; and what its arguments hold.
///
/// Built in code with the methods below (facts from [`Source::Code`] unless
/// [`from`](Self::from) says otherwise), or by integrations from what defines
/// the tool (an MCP server's `tools/list`, a rig definition, a host's tools,
/// a `[tools.NAME]` table).
///
/// ```
/// use hooks_core::{ArgRole, ToolFacts};
///
/// let query = ToolFacts::new("run_query").writes().arg("sql", ArgRole::Sql);
/// assert_eq!(query.read_only().map(|fact| fact.value), Some(false));
/// assert_eq!(query.args_with(ArgRole::Sql).next().unwrap().path, "sql");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolFacts {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_only: Option<Fact<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    destructive: Option<Fact<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    idempotent: Option<Fact<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    open_world: Option<Fact<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<Fact<Value>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    args: Vec<ArgFact>,
    /// Warnings about how the tool is described (hidden instructions,
    /// invisible characters), each saying where and what.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flags: Vec<String>,
    /// The source of the facts the builder methods add.
    #[serde(skip)]
    source: Source,
}

impl From<&str> for ToolFacts {
    /// A tool known by name only.
    fn from(name: &str) -> Self {
        ToolFacts::new(name)
    }
}

impl From<String> for ToolFacts {
    /// A tool known by name only.
    fn from(name: String) -> Self {
        ToolFacts::new(name)
    }
}

impl From<&String> for ToolFacts {
    /// A tool known by name only.
    fn from(name: &String) -> Self {
        ToolFacts::new(name.as_str())
    }
}

impl ToolFacts {
    /// A tool known by name only; facts added to it come from [`Source::Code`].
    pub fn new(name: impl Into<String>) -> Self {
        ToolFacts {
            name: name.into(),
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
            schema: None,
            args: Vec::new(),
            flags: Vec::new(),
            source: Source::Code,
        }
    }

    /// Facts added after this call come from `source`.
    #[must_use]
    pub fn from(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// It only reads: it changes nothing anywhere (MCP `readOnlyHint: true`).
    #[must_use]
    pub fn only_reads(self) -> Self {
        self.with_read_only(true)
    }

    /// It may change something (MCP `readOnlyHint: false`).
    #[must_use]
    pub fn writes(self) -> Self {
        self.with_read_only(false)
    }

    /// It may destroy or overwrite what exists (MCP `destructiveHint: true`);
    /// implies it writes.
    #[must_use]
    pub fn destroys(self) -> Self {
        self.writes().with_destructive(true)
    }

    /// Sets whether it only reads.
    #[must_use]
    pub fn with_read_only(mut self, value: bool) -> Self {
        self.read_only = Some(Fact::new(value, self.source.clone()));
        self
    }

    /// Sets whether its writes may destroy (meaningful for a tool that writes).
    #[must_use]
    pub fn with_destructive(mut self, value: bool) -> Self {
        self.destructive = Some(Fact::new(value, self.source.clone()));
        self
    }

    /// Sets whether calling it twice with the same arguments does no more
    /// than calling it once (MCP `idempotentHint`).
    #[must_use]
    pub fn with_idempotent(mut self, value: bool) -> Self {
        self.idempotent = Some(Fact::new(value, self.source.clone()));
        self
    }

    /// Sets whether it reaches beyond a closed domain (the web, other
    /// people's systems; MCP `openWorldHint`).
    #[must_use]
    pub fn with_open_world(mut self, value: bool) -> Self {
        self.open_world = Some(Fact::new(value, self.source.clone()));
        self
    }

    /// Its input's JSON Schema.
    #[must_use]
    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = Some(Fact::new(schema, self.source.clone()));
        self
    }

    /// Its argument `path` (a key, or a JSON Pointer such as `/params/sql`)
    /// holds `role`.
    #[must_use]
    pub fn arg(mut self, path: impl Into<String>, role: ArgRole) -> Self {
        let path = path.into();
        self.args.retain(|arg| arg.path != path);
        self.args.push(ArgFact {
            path,
            role,
            source: self.source.clone(),
        });
        self
    }

    /// Flags the tool with a warning about how it is described: text that
    /// reads as instructions to the model, or characters a person cannot
    /// see (`description: invisible character U+200B`). A flag is no fact
    /// about the tool's effects: it is shown by
    /// [`Hooks::describe`](crate::Hooks::describe) and may make a guard
    /// refuse, never allow.
    ///
    /// ```
    /// use hooks_core::ToolFacts;
    ///
    /// let tool = ToolFacts::new("echo").flag("description: instruction-like text \"<important>\"");
    /// assert_eq!(tool.flags().len(), 1);
    /// ```
    #[must_use]
    pub fn flag(mut self, warning: impl Into<String>) -> Self {
        let warning = warning.into();
        if !self.flags.contains(&warning) {
            self.flags.push(warning);
        }
        self
    }

    /// The warnings about how the tool is described ([`flag`](Self::flag)).
    pub fn flags(&self) -> &[String] {
        &self.flags
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it only reads (`false`: it writes), if known.
    pub fn read_only(&self) -> Option<&Fact<bool>> {
        self.read_only.as_ref()
    }

    /// Whether its writes may destroy, if known.
    pub fn destructive(&self) -> Option<&Fact<bool>> {
        self.destructive.as_ref()
    }

    /// Whether it is idempotent, if known.
    pub fn idempotent(&self) -> Option<&Fact<bool>> {
        self.idempotent.as_ref()
    }

    /// Whether it reaches an open world, if known.
    pub fn open_world(&self) -> Option<&Fact<bool>> {
        self.open_world.as_ref()
    }

    /// Its input schema, if known.
    pub fn input_schema(&self) -> Option<&Fact<Value>> {
        self.schema.as_ref()
    }

    /// Every argument whose role is known.
    pub fn args(&self) -> &[ArgFact] {
        &self.args
    }

    /// The arguments holding `role`.
    pub fn args_with(&self, role: ArgRole) -> impl Iterator<Item = &ArgFact> {
        self.args.iter().filter(move |arg| arg.role == role)
    }

    /// Whether anything beyond the name is known.
    pub fn is_bare(&self) -> bool {
        self.read_only.is_none()
            && self.destructive.is_none()
            && self.idempotent.is_none()
            && self.open_world.is_none()
            && self.schema.is_none()
            && self.args.is_empty()
    }

    /// Adds what `other` (about the same tool) knows: each fact of `other`
    /// replaces this one's unless this one's source outranks it (what the
    /// operator declares beats what the tool says of itself).
    pub(crate) fn merge(&mut self, other: ToolFacts) {
        fn keep<T>(mine: &mut Option<Fact<T>>, theirs: Option<Fact<T>>) {
            if let Some(theirs) = theirs
                && mine
                    .as_ref()
                    .is_none_or(|mine| theirs.source.rank() >= mine.source.rank())
            {
                *mine = Some(theirs);
            }
        }
        keep(&mut self.read_only, other.read_only);
        keep(&mut self.destructive, other.destructive);
        keep(&mut self.idempotent, other.idempotent);
        keep(&mut self.open_world, other.open_world);
        keep(&mut self.schema, other.schema);
        for flag in other.flags {
            if !self.flags.contains(&flag) {
                self.flags.push(flag);
            }
        }
        for arg in other.args {
            match self.args.iter_mut().find(|mine| mine.path == arg.path) {
                Some(mine) if arg.source.rank() >= mine.source.rank() => *mine = arg,
                Some(_) => {}
                None => self.args.push(arg),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn server(trusted: bool) -> Source {
        Source::Mcp {
            server: Arc::from("git"),
            trusted,
        }
    }

    #[test]
    fn facts_remember_their_source() {
        let tool = ToolFacts::new("git_status")
            .from(server(true))
            .only_reads()
            .from(Source::Code)
            .with_idempotent(true);
        assert_eq!(tool.read_only().unwrap().source, server(true));
        assert_eq!(tool.idempotent().unwrap().source, Source::Code);
        assert!(!tool.is_bare());
        assert!(ToolFacts::new("x").is_bare());
    }

    #[test]
    fn destructive_implies_writes() {
        let tool = ToolFacts::new("rm").destroys();
        assert!(!tool.read_only().unwrap().value);
        assert!(tool.destructive().unwrap().value);
    }

    #[test]
    fn the_operator_outranks_what_a_tool_says_of_itself() {
        let mut declared = ToolFacts::new("q").writes().arg("sql", ArgRole::Sql);
        declared.merge(
            ToolFacts::new("q")
                .from(server(true))
                .only_reads()
                .with_idempotent(true)
                .arg("sql", ArgRole::Path),
        );
        assert!(!declared.read_only().unwrap().value);
        assert_eq!(declared.idempotent().unwrap().source, server(true));
        assert_eq!(declared.args_with(ArgRole::Sql).count(), 1);

        let mut announced = ToolFacts::new("q").from(server(false)).only_reads();
        announced.merge(ToolFacts::new("q").writes());
        assert!(!announced.read_only().unwrap().value);
        announced.merge(ToolFacts::new("q").only_reads());
        assert!(
            announced.read_only().unwrap().value,
            "a later declaration of equal rank wins"
        );
    }
}
