//! The compiled policy set and the decision for one call.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use cedar_policy::{
    Authorizer, Context, Decision as CedarDecision, Effect, Entities, EntityId, EntityTypeName,
    EntityUid, Policy, PolicyId, PolicySet, Request, ResourceConstraint, RestrictedExpression,
};
use hooks_core::prelude::*;
use hooks_core::{Refusal, Session, ToolCatalog};
use serde_json::Value;

use super::config::{Cedar, DefaultDecision, SchemaCheck};
use super::entities::{self, TOOL};
use super::files::{self, Files, Stamp};
use super::schema;
use super::value::{self, Unrepresentable};
use crate::config::ConfigError;

/// The id of the policy `default = "allow"` adds: `permit(principal, action, resource);`.
pub const DEFAULT_ALLOW: &str = "hooks_std::cedar::default_allow";

/// The tool a gateway's resource reads arrive as (hooks-mcp's `READ_RESOURCE`).
const READ_RESOURCE: &str = "resources:read";
/// The prefix of a gateway's prompt gets (hooks-mcp's `GET_PROMPT`).
const GET_PROMPT: &str = "prompts:get:";

/// The Cedar guard's policy, compiled: the state the `cedar::guard` and
/// `cedar::offer` hooks read. Give one to the builder
/// (`.state(CedarGuard::new(config)?)`).
pub struct CedarGuard {
    config: Cedar,
    authorizer: Authorizer,
    files: RwLock<Arc<Files>>,
    compiled: RwLock<Option<Arc<Compiled>>>,
    reload: Mutex<Reload>,
    /// The last reload that failed, until one succeeds.
    problem: Mutex<Option<String>>,
    types: Types,
}

// The guard runs only in a dispatcher given a `CedarGuard`.
hooks_core::opt_in!(CedarGuard);

struct Reload {
    next: Instant,
    stamp: Stamp,
}

/// The entity types and actions a request names, parsed once.
struct Types {
    user: EntityTypeName,
    agent: EntityTypeName,
    tool: EntityTypeName,
    call_tool: EntityUid,
    read_resource: EntityUid,
    get_prompt: EntityUid,
}

impl Types {
    fn new() -> Self {
        let name = |name: &str| EntityTypeName::from_str(name).expect("a valid type name");
        let action = |id: &str| EntityUid::from_type_name_and_id(name("Action"), EntityId::new(id));
        Types {
            user: name(schema::USER),
            agent: name(schema::AGENT),
            tool: name(TOOL),
            call_tool: action(schema::CALL_TOOL),
            read_resource: action(schema::READ_RESOURCE),
            get_prompt: action(schema::GET_PROMPT),
        }
    }
}

/// The policies as they apply to one catalog.
struct Compiled {
    /// The catalog they were checked against (its address: a dispatcher's
    /// catalog lives as long as the dispatcher).
    catalog: usize,
    files: Arc<Files>,
    /// The policies that can apply to a call of each catalog tool (those
    /// whose resource is not `== Tool::"<another>"`): Cedar evaluates every
    /// policy of the set it is given, and most are about one tool.
    by_tool: HashMap<String, PolicySet>,
    /// All of them, for a tool not in the catalog.
    policies: PolicySet,
    /// What decides whether a tool is offered at all: each `permit` without
    /// its conditions on the context, each `forbid` that has none.
    listing: PolicySet,
    entities: Entities,
}

impl CedarGuard {
    /// Reads and parses the policy and entities files; a file that cannot
    /// be read or parsed is refused, naming the file and line. The policies
    /// are checked against the tool catalog's schema by
    /// [`validate`](Self::validate), or on the first call.
    pub fn new(config: Cedar) -> Result<Self, ConfigError> {
        let files = Files::load(&config)?;
        let stamp = files.stamp.clone();
        Ok(CedarGuard {
            authorizer: Authorizer::new(),
            reload: Mutex::new(Reload {
                next: Instant::now() + Duration::from_millis(config.reload_ms),
                stamp,
            }),
            config,
            files: RwLock::new(Arc::new(files)),
            compiled: RwLock::new(None),
            problem: Mutex::new(None),
            types: Types::new(),
        })
    }

    /// Checks the policies against the schema generated from `catalog`
    /// (a dispatcher's: [`Hooks::catalog`]): a policy naming a tool,
    /// argument, attribute or action it does not have is an error naming
    /// the policy's file and line. What passes is kept for the calls.
    pub fn validate(&self, catalog: &ToolCatalog) -> Result<(), ConfigError> {
        self.compiled(catalog).map(drop)
    }

    /// What the last reload found wrong, while the policies before it stay
    /// in force; `None` once a reload succeeds.
    pub fn problem(&self) -> Option<String> {
        self.problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Reads the files again now, whatever `reload_ms` says; on a problem
    /// the policies in force stay, and the problem is returned (and kept
    /// for [`problem`](Self::problem)).
    pub fn reload(&self, catalog: &ToolCatalog) -> Result<(), ConfigError> {
        let mut reload = self.reload.lock().unwrap_or_else(PoisonError::into_inner);
        self.reload_now(&mut reload, catalog)
    }

    fn reload_now(&self, reload: &mut Reload, catalog: &ToolCatalog) -> Result<(), ConfigError> {
        let result = files::stamp(&self.config)
            .and_then(|stamp| {
                reload.stamp = stamp;
                Files::load(&self.config)
            })
            .and_then(|files| {
                let files = Arc::new(files);
                let compiled = self.compile(&files, catalog)?;
                *self.files.write().unwrap_or_else(PoisonError::into_inner) = files;
                *self
                    .compiled
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(compiled));
                Ok(())
            });
        let mut problem = self.problem.lock().unwrap_or_else(PoisonError::into_inner);
        match &result {
            Ok(()) => {
                *problem = None;
                tracing::info!(policies = %self.config.policies.display(), "cedar policies reloaded");
            }
            Err(error) => {
                tracing::error!(%error, "cedar policies not reloaded: the ones before stay in force");
                *problem = Some(error.to_string());
            }
        }
        result
    }

    /// Reloads if `reload_ms` has passed and a file changed. One caller
    /// looks; the others go on with the policies in force.
    fn maybe_reload(&self, catalog: &ToolCatalog) {
        if self.config.reload_ms == 0 {
            return;
        }
        let Ok(mut reload) = self.reload.try_lock() else {
            return;
        };
        let now = Instant::now();
        if now < reload.next {
            return;
        }
        reload.next = now + Duration::from_millis(self.config.reload_ms);
        match files::stamp(&self.config) {
            Ok(stamp) if stamp == reload.stamp => {}
            // Changed, or gone (an error, reported by the reload).
            _ => {
                let _ = self.reload_now(&mut reload, catalog);
            }
        }
    }

    /// The policies compiled for `catalog`, compiling them if need be.
    fn compiled(&self, catalog: &ToolCatalog) -> Result<Arc<Compiled>, ConfigError> {
        let key = std::ptr::from_ref(catalog) as usize;
        let files = self
            .files
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(compiled) = &*self.compiled.read().unwrap_or_else(PoisonError::into_inner)
            && compiled.catalog == key
            && Arc::ptr_eq(&compiled.files, &files)
        {
            return Ok(compiled.clone());
        }
        let compiled = Arc::new(self.compile(&files, catalog)?);
        *self
            .compiled
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(compiled.clone());
        Ok(compiled)
    }

    fn compile(&self, files: &Arc<Files>, catalog: &ToolCatalog) -> Result<Compiled, ConfigError> {
        let schema = match self.config.schema {
            SchemaCheck::Strict => {
                let schema = schema::generate(files, catalog)?;
                schema::validate(files, &schema, catalog)?;
                Some(schema)
            }
            SchemaCheck::Off => None,
        };
        let entities = entities::store(files, catalog, schema.as_ref())?;
        let mut policies = files.policies.clone();
        let mut listing = PolicySet::new();
        for policy in files.policies.policies() {
            match policy.effect() {
                Effect::Permit => listing
                    .add(without_context(policy)?)
                    .map_err(|error| ConfigError::new("cedar", error.to_string()))?,
                Effect::Forbid if !reads_context(policy)? => listing
                    .add(policy.clone())
                    .map_err(|error| ConfigError::new("cedar", error.to_string()))?,
                Effect::Forbid => {}
            }
        }
        if self.config.default == DefaultDecision::Allow {
            let allow = Policy::parse(
                Some(PolicyId::new(DEFAULT_ALLOW)),
                "permit(principal, action, resource);",
            )
            .expect("the default-allow policy parses");
            for set in [&mut policies, &mut listing] {
                set.add(allow.clone())
                    .map_err(|error| ConfigError::new("cedar", error.to_string()))?;
            }
        }
        let by_tool = slices(&policies, catalog)?;
        Ok(Compiled {
            catalog: std::ptr::from_ref(catalog) as usize,
            files: files.clone(),
            by_tool,
            policies,
            listing,
            entities,
        })
    }

    /// Decides one call.
    pub(crate) fn check(&self, ctx: &PreToolUse, catalog: &ToolCatalog) -> Decision {
        self.maybe_reload(catalog);
        let compiled = match self.compiled(catalog) {
            Ok(compiled) => compiled,
            Err(error) => {
                return failed(format!("the Cedar policies cannot be used: {error}"), &[]);
            }
        };
        let tool = ctx.tool();
        if let Some(like) = lookalike(tool, catalog) {
            return Decision::Deny(
                Refusal::new(format!(
                    "`{tool}` is not a tool of this agent, but looks like `{like}`: call tools by their exact names"
                ))
                .kind("policy_denied", serde_json::json!({"policies": [], "lookalike": like})),
            );
        }
        let request = match self.request(ctx.session(), tool, Some(ctx.args())) {
            Ok(request) => request,
            Err(refused) => {
                return failed(
                    format!(
                        "the call's `{}` cannot be judged by the Cedar policies: {}",
                        refused.at, refused.why
                    ),
                    &[],
                );
            }
        };
        let policies = compiled.by_tool.get(tool).unwrap_or(&compiled.policies);
        let response = self
            .authorizer
            .is_authorized(&request.0, policies, &compiled.entities);
        let diagnostics = response.diagnostics();
        let errored: Vec<String> = diagnostics
            .errors()
            .map(|error| match error {
                cedar_policy::AuthorizationError::PolicyEvaluationError(error) => {
                    format!("`{}`: {}", error.policy_id(), error.inner())
                }
            })
            .collect();
        if !errored.is_empty() {
            // Fail closed: a policy that could not be evaluated might have
            // forbidden the call (Cedar itself would skip it).
            let ids: Vec<String> = diagnostics
                .errors()
                .map(
                    |cedar_policy::AuthorizationError::PolicyEvaluationError(error)| {
                        error.policy_id().to_string()
                    },
                )
                .collect();
            return failed(
                format!(
                    "a Cedar policy could not be evaluated for this call, so it is denied: {}",
                    errored.join("; ")
                ),
                &ids,
            );
        }
        match response.decision() {
            CedarDecision::Allow => Decision::Continue,
            CedarDecision::Deny => {
                let mut ids: Vec<String> = diagnostics.reason().map(ToString::to_string).collect();
                ids.sort();
                let reason = if ids.is_empty() {
                    format!(
                        "no Cedar policy permits {} to {} `{tool}`",
                        request.1, request.2
                    )
                } else {
                    let files = &compiled.files;
                    let named: Vec<String> = ids
                        .iter()
                        .map(|id| match files.source_of(&PolicyId::new(id)) {
                            Some(source) => format!("`{id}` ({})", source.path.display()),
                            None => format!("`{id}`"),
                        })
                        .collect();
                    format!("forbidden by Cedar policy {}", named.join(", "))
                };
                Decision::Deny(Refusal::new(reason).kind(
                    "policy_denied",
                    serde_json::json!({
                        "policies": ids,
                        "principal": request.1,
                        "action": request.2,
                        "resource": format!("{TOOL}::{tool:?}"),
                    }),
                ))
            }
        }
    }

    /// Takes out of a tool list every tool no policy could permit this
    /// session, whatever the arguments: judged by each `permit` without its
    /// conditions on the context, and each `forbid` that reads no context.
    pub(crate) fn offer(&self, ctx: &mut PreModelRequest, catalog: &ToolCatalog) {
        self.maybe_reload(catalog);
        let listed: Vec<String> = ctx.tools().map(str::to_owned).collect();
        let compiled = self.compiled(catalog).ok();
        let hidden: Vec<&str> = listed
            .iter()
            .map(String::as_str)
            .filter(|tool| {
                let Some(compiled) = &compiled else {
                    return true;
                };
                match self.request(ctx.session(), tool, None) {
                    Ok(request) => {
                        let response = self.authorizer.is_authorized(
                            &request.0,
                            &compiled.listing,
                            &compiled.entities,
                        );
                        response.decision() == CedarDecision::Deny
                            || response.diagnostics().errors().next().is_some()
                    }
                    Err(_) => true,
                }
            })
            .collect();
        if !hidden.is_empty() {
            ctx.exclude_tools(&hidden);
        }
    }

    /// The request for a call (or, without arguments, for offering the tool),
    /// with the principal and action as text for messages.
    fn request(
        &self,
        session: &Session,
        tool: &str,
        args: Option<&Value>,
    ) -> Result<(Request, String, &'static str), Unrepresentable> {
        let principal = match session.user_id() {
            Some(user) => {
                EntityUid::from_type_name_and_id(self.types.user.clone(), EntityId::new(user))
            }
            None => EntityUid::from_type_name_and_id(
                self.types.agent.clone(),
                EntityId::new(session.agent_id()),
            ),
        };
        let (action, verb) = if tool == READ_RESOURCE {
            (&self.types.read_resource, "read resources with")
        } else if tool.starts_with(GET_PROMPT) {
            (&self.types.get_prompt, "get the prompt")
        } else {
            (&self.types.call_tool, "call")
        };
        let resource =
            EntityUid::from_type_name_and_id(self.types.tool.clone(), EntityId::new(tool));
        let args = match args {
            None | Some(Value::Null) => {
                RestrictedExpression::new_record([]).expect("an empty record")
            }
            Some(Value::Object(object)) => value::record("args", object)?,
            Some(other) => value::value("args", other)?,
        };
        let context = Context::from_pairs([
            ("args".to_owned(), args),
            ("session".to_owned(), session_record(session)?),
        ])
        .map_err(|_| Unrepresentable {
            at: "context".to_owned(),
            why: "it is not a record",
        })?;
        let shown = principal.to_string();
        let request =
            Request::new(principal, action.clone(), resource, context, None).map_err(|_| {
                Unrepresentable {
                    at: "request".to_owned(),
                    why: "Cedar refused it",
                }
            })?;
        Ok((request, shown, verb))
    }
}

/// The session as a record: `id`, `agent`, `user`, `tenant` (metadata
/// `tenant`), `client` (metadata `mcp.client`), and all its `metadata`.
fn session_record(session: &Session) -> Result<RestrictedExpression, Unrepresentable> {
    let mut fields = vec![
        (
            "id".to_owned(),
            RestrictedExpression::new_string(session.id().to_owned()),
        ),
        (
            "agent".to_owned(),
            RestrictedExpression::new_string(session.agent_id().to_owned()),
        ),
    ];
    if let Some(user) = session.user_id() {
        fields.push((
            "user".to_owned(),
            RestrictedExpression::new_string(user.to_owned()),
        ));
    }
    for (field, key) in [("tenant", "tenant"), ("client", "mcp.client")] {
        if let Some(Value::String(value)) = session.metadata_value(key) {
            fields.push((
                field.to_owned(),
                RestrictedExpression::new_string(value.clone()),
            ));
        }
    }
    fields.push((
        "metadata".to_owned(),
        value::record("session.metadata", session.metadata())?,
    ));
    RestrictedExpression::new_record(fields).map_err(|_| Unrepresentable {
        at: "session".to_owned(),
        why: "a key appears twice",
    })
}

/// For each catalog tool, the policies whose resource constraint does not
/// name another tool. A policy left out could not apply: its scope is false.
fn slices(
    policies: &PolicySet,
    catalog: &ToolCatalog,
) -> Result<HashMap<String, PolicySet>, ConfigError> {
    let mut general = Vec::new();
    let mut named: HashMap<String, Vec<Policy>> = HashMap::new();
    for policy in policies.policies() {
        match policy.resource_constraint() {
            ResourceConstraint::Eq(uid) if uid.type_name().to_string() == TOOL => named
                .entry(uid.id().unescaped().to_owned())
                .or_default()
                .push(policy.clone()),
            _ => general.push(policy.clone()),
        }
    }
    let mut slices = HashMap::with_capacity(catalog.len());
    for tool in catalog.iter() {
        let own = named.get(tool.name()).map_or(&[][..], Vec::as_slice);
        let set = PolicySet::from_policies(general.iter().chain(own).cloned())
            .map_err(|error| ConfigError::new("cedar", error.to_string()))?;
        slices.insert(tool.name().to_owned(), set);
    }
    Ok(slices)
}

/// A permit policy with every condition on the context taken out: each
/// `when` keeps its `&&` parts that do not read `context`, an `unless`
/// that reads it goes. It applies wherever the policy could, whatever
/// the arguments.
fn without_context(policy: &Policy) -> Result<Policy, ConfigError> {
    let mut json = policy
        .to_json()
        .map_err(|error| ConfigError::new("cedar", error.to_string()))?;
    if let Some(Value::Array(conditions)) = json.get_mut("conditions") {
        let kept: Vec<Value> = conditions
            .drain(..)
            .filter_map(|mut condition| {
                let when = condition.get("kind") == Some(&Value::String("when".to_owned()));
                let body = condition.get_mut("body")?;
                if !when {
                    return (!mentions_context(body)).then_some(condition);
                }
                let mut parts = Vec::new();
                conjuncts(body.take(), &mut parts);
                let mut parts = parts.into_iter().filter(|part| !mentions_context(part));
                let first = parts.next()?;
                *body = parts.fold(
                    first,
                    |left, right| serde_json::json!({"&&": {"left": left, "right": right}}),
                );
                Some(condition)
            })
            .collect();
        *conditions = kept;
    }
    Policy::from_json(Some(policy.id().clone()), json)
        .map_err(|error| ConfigError::new("cedar", error.to_string()))
}

/// The parts of a chain of `&&`, in the policy's JSON form.
fn conjuncts(expr: Value, parts: &mut Vec<Value>) {
    match expr {
        Value::Object(mut object) if object.len() == 1 && object.contains_key("&&") => {
            let mut and = object.remove("&&").unwrap_or_default();
            conjuncts(and["left"].take(), parts);
            conjuncts(and["right"].take(), parts);
        }
        other => parts.push(other),
    }
}

/// Whether an expression (in the policy's JSON form) reads `context`.
fn mentions_context(expr: &Value) -> bool {
    match expr {
        Value::Object(object) => {
            object.get("Var") == Some(&Value::String("context".to_owned()))
                || object.values().any(mentions_context)
        }
        Value::Array(items) => items.iter().any(mentions_context),
        _ => false,
    }
}

/// Whether a policy has a condition that reads `context`.
fn reads_context(policy: &Policy) -> Result<bool, ConfigError> {
    let json = policy
        .to_json()
        .map_err(|error| ConfigError::new("cedar", error.to_string()))?;
    Ok(json.get("conditions").is_some_and(mentions_context))
}

/// A catalog tool the name is not, but could be taken for: the same name
/// in another case, or the same last part after a namespace (`__`). A
/// guess, so it only ever refuses.
fn lookalike<'c>(tool: &str, catalog: &'c ToolCatalog) -> Option<&'c str> {
    if catalog.is_empty() || catalog.get(tool).is_some() {
        return None;
    }
    let last = |name: &str| {
        name.rsplit("__")
            .next()
            .unwrap_or(name)
            .to_ascii_lowercase()
    };
    let short = last(tool);
    catalog
        .iter()
        .map(hooks_core::ToolFacts::name)
        .find(|name| name.eq_ignore_ascii_case(tool) || last(name) == short)
}

/// A denial because the policies could not judge the call.
fn failed(reason: String, policies: &[String]) -> Decision {
    Decision::Deny(
        Refusal::new(reason).kind("policy_error", serde_json::json!({ "policies": policies })),
    )
}
