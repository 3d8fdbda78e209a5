//! The hook bodies every implementation runs, so only the dispatch differs.

use hooks_core::{ArgsNotObject, PreToolUse, Value};

/// The statements the eight guards refuse, one each.
pub const KEYWORDS: [&str; 8] = [
    "DROP", "TRUNCATE", "ALTER", "GRANT", "REVOKE", "DELETE", "CREATE", "INSERT",
];

/// The refusal of each guard.
pub const REASONS: [&str; 8] = [
    "DROP is not allowed",
    "TRUNCATE is not allowed",
    "ALTER is not allowed",
    "GRANT is not allowed",
    "REVOKE is not allowed",
    "DELETE is not allowed",
    "CREATE is not allowed",
    "INSERT is not allowed",
];

/// Whether `query` starts with `keyword`, ignoring case and leading spaces.
pub fn starts_with_keyword(query: &str, keyword: &str) -> bool {
    query
        .trim_start()
        .get(..keyword.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(keyword))
}

/// Guard `index`: `Some(reason)` refuses the call.
#[inline]
pub fn guard(args: &Value, index: usize) -> Option<&'static str> {
    match args["query"].as_str() {
        Some(query) if starts_with_keyword(query, KEYWORDS[index]) => Some(REASONS[index]),
        _ => None,
    }
}

/// Where the rewrites read and write the arguments: a `Value` written in
/// place (direct calls, the dynamic registry, our hooks through
/// `args_mut`), or a context's tracked writes (our hooks through `set_arg`).
pub trait Args {
    /// The argument `key` (`Null` if absent).
    fn arg(&self, key: &str) -> &Value;
    /// Sets the argument `key`.
    ///
    /// # Errors
    ///
    /// If the arguments are not an object.
    fn set(&mut self, key: &str, value: Value) -> Result<(), ArgsNotObject>;
}

impl Args for Value {
    fn arg(&self, key: &str) -> &Value {
        &self[key]
    }

    fn set(&mut self, key: &str, value: Value) -> Result<(), ArgsNotObject> {
        self[key] = value;
        Ok(())
    }
}

impl Args for PreToolUse {
    fn arg(&self, key: &str) -> &Value {
        &self.args()[key]
    }

    fn set(&mut self, key: &str, value: Value) -> Result<(), ArgsNotObject> {
        self.set_arg(key, value)
    }
}

/// The first rewrite: pins the host.
///
/// # Errors
///
/// If the arguments are not an object.
pub fn pin_host<A: Args + ?Sized>(args: &mut A) -> Result<(), ArgsNotObject> {
    if args.arg("host") != "api.internal" {
        args.set("host", Value::from("api.internal"))?;
    }
    Ok(())
}

/// The second rewrite: caps the timeout the first hook's host allows.
///
/// # Errors
///
/// If the arguments are not an object.
pub fn cap_timeout<A: Args + ?Sized>(args: &mut A) -> Result<(), ArgsNotObject> {
    let cap = if args.arg("host") == "api.internal" {
        5_000
    } else {
        1_000
    };
    if args.arg("timeout_ms").as_u64().is_none_or(|ms| ms > cap) {
        args.set("timeout_ms", Value::from(cap))?;
    }
    Ok(())
}

/// The third rewrite: upgrades the scheme.
///
/// # Errors
///
/// If the arguments are not an object.
pub fn force_https<A: Args + ?Sized>(args: &mut A) -> Result<(), ArgsNotObject> {
    if let Some(path) = args
        .arg("url")
        .as_str()
        .and_then(|url| url.strip_prefix("http://"))
    {
        let https = Value::from(format!("https://{path}"));
        args.set("url", https)?;
    }
    Ok(())
}

/// The arguments of the rewrite workload, before any rewrite.
pub fn rewrite_input() -> Value {
    hooks_core::json!({"url": "http://example.com/v1/orders", "host": "example.com", "timeout_ms": 30_000})
}
