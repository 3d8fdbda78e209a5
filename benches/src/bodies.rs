//! The hook bodies every implementation runs, so only the dispatch differs.

use hooks_core::Value;

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

/// The first rewrite: pins the host.
pub fn pin_host(args: &mut Value) {
    if args["host"] != "api.internal" {
        args["host"] = Value::from("api.internal");
    }
}

/// The second rewrite: caps the timeout the first hook's host allows.
pub fn cap_timeout(args: &mut Value) {
    let cap = if args["host"] == "api.internal" {
        5_000
    } else {
        1_000
    };
    if args["timeout_ms"].as_u64().is_none_or(|ms| ms > cap) {
        args["timeout_ms"] = Value::from(cap);
    }
}

/// The third rewrite: upgrades the scheme.
pub fn force_https(args: &mut Value) {
    if let Some(path) = args["url"]
        .as_str()
        .and_then(|url| url.strip_prefix("http://"))
    {
        args["url"] = Value::from(format!("https://{path}"));
    }
}

/// The arguments of the rewrite workload, before any rewrite.
pub fn rewrite_input() -> Value {
    hooks_core::json!({"url": "http://example.com/v1/orders", "host": "example.com", "timeout_ms": 30_000})
}
