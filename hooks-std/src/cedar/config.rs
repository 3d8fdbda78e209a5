//! The `[cedar]` table: where the policies and entities are, what happens
//! when no policy decides, how strictly policies are checked, how often the
//! files are looked at again.

use std::path::PathBuf;

use serde::Deserialize;

/// The Cedar guard's configuration (the `[cedar]` table).
///
/// ```toml
/// [cedar]
/// policies = "policies/"          # a .cedar file, or a directory of them
/// entities = "policies/entities.json"
/// default = "deny"                # or "allow": what happens when no policy decides
/// schema = "strict"               # or "off": validate against the catalog's schema
/// reload_ms = 1000                # look at the files again at most this often; 0: never
/// shadow = false                  # true: record what it would deny, enforce nothing
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cedar {
    /// A `.cedar` file, or a directory whose `*.cedar` files (not its
    /// subdirectories) are read, in name order.
    pub policies: PathBuf,
    /// Cedar's entities JSON: users, groups, tenants and their parents, so
    /// `principal in Group::"finance"` holds for the users the file says.
    #[serde(default)]
    pub entities: Option<PathBuf>,
    /// What a call no policy permits or forbids gets.
    #[serde(default)]
    pub default: DefaultDecision,
    /// How the policies are checked against the schema generated from the
    /// tool catalog.
    #[serde(default)]
    pub schema: SchemaCheck,
    /// The files are looked at again (size, modification time, then
    /// content) at most this often, on a call; `0` never.
    #[serde(default = "reload_ms")]
    pub reload_ms: u64,
    /// Evaluate and record, enforce nothing: what the guard would deny is
    /// in each outcome's `shadowed` notes (and the audit log), and no tool
    /// is hidden. hooks-config applies it to the dispatcher it builds; in
    /// code, give the builder `.shadow_hooks(hooks_std::cedar::HOOKS)`.
    #[serde(default)]
    pub shadow: bool,
}

fn reload_ms() -> u64 {
    1000
}

impl Cedar {
    /// Policies from `policies` (a file or a directory), default deny,
    /// strict schema, looked at again every second.
    pub fn new(policies: impl Into<PathBuf>) -> Self {
        Cedar {
            policies: policies.into(),
            entities: None,
            default: DefaultDecision::Deny,
            schema: SchemaCheck::Strict,
            reload_ms: reload_ms(),
            shadow: false,
        }
    }
}

/// What a call no policy decides gets. Either way a `forbid` that applies wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefaultDecision {
    /// Denied: a call runs only if some `permit` applies (and no `forbid`).
    #[default]
    Deny,
    /// Allowed unless a `forbid` applies.
    Allow,
}

/// How policies are checked against the schema generated from the tool catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaCheck {
    /// Cedar's strict validation: a policy naming a tool, argument,
    /// attribute or action the schema does not have is refused.
    #[default]
    Strict,
    /// No validation: policies are parsed only, and a wrong name is found
    /// when a call evaluates it (an evaluation error: the call is denied).
    Off,
}
