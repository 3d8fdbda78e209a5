use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::fingerprint::{Fingerprint, Print};
use super::{Rewritable, Saved, Trail, restored};
use crate::session::Session;

/// The context of `#[pre_model_request]` hooks: a request to the model is about to go out.
///
/// Hooks cannot block, but may narrow the tools offered to the model and
/// change request parameters. Tool filters compose: include-lists intersect
/// (a tool stays only if every include-list names it) and exclude-lists union
/// (a tool named by any exclude-list goes).
///
/// ```
/// use hooks_core::{PreModelRequest, Session, json};
///
/// let mut ctx = PreModelRequest::new(&Session::new("s"), ["read", "write", "search"], json!({}));
/// ctx.include_tools(&["read", "write"]);
/// ctx.include_tools(&["write", "search"]);
/// assert_eq!(ctx.tools().collect::<Vec<_>>(), ["write"]);
/// ctx.exclude_tools(&["write"]);
/// assert_eq!(ctx.tools().count(), 0);
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "pre_model_request")]
pub struct PreModelRequest {
    pub(crate) session: Session,
    tools: Vec<Cow<'static, str>>,
    params: Value,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl PreModelRequest {
    /// The context for a request offering `tools`, with request `params`
    /// (model, temperature, ... as the agent loop represents them).
    pub fn new<I, S>(session: &Session, tools: I, params: Value) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        PreModelRequest {
            session: session.clone(),
            tools: tools.into_iter().map(Into::into).collect(),
            params,
            trail: Trail::default(),
        }
    }

    /// The tools still offered, after earlier hooks' filters.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &str> {
        self.tools.iter().map(|tool| &**tool)
    }

    /// Keeps only the offered tools that are also in `tools` (intersects with
    /// earlier include-lists).
    pub fn include_tools(&mut self, tools: &[&str]) {
        let before = self.tools.len();
        self.tools.retain(|tool| tools.contains(&&**tool));
        if self.tools.len() != before {
            self.trail.record_rewrite("tools");
        }
    }

    /// Withdraws `tools` from the offer (unions with earlier exclude-lists).
    pub fn exclude_tools(&mut self, tools: &[&str]) {
        let before = self.tools.len();
        self.tools.retain(|tool| !tools.contains(&&**tool));
        if self.tools.len() != before {
            self.trail.record_rewrite("tools");
        }
    }

    /// The request parameters.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// The request parameters, to rewrite. If the hook changes them, the
    /// rewrite is recorded under its name when it returns.
    pub fn params_mut(&mut self) -> &mut Value {
        super::touch(&mut self.trail, "params", &self.params);
        &mut self.params
    }
}

impl Rewritable for PreModelRequest {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "params" => self.params.print(),
            _ => Print::NONE,
        }
    }

    fn save(&self) -> Saved {
        Box::new((self.tools.clone(), self.params.clone()))
    }

    fn restore(&mut self, saved: Saved) {
        if let Some((tools, params)) = restored(saved) {
            self.tools = tools;
            self.params = params;
        }
    }
}
