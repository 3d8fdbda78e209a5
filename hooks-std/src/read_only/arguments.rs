//! Where SQL sits in a call's arguments: under the arguments the catalog
//! declares as SQL, or — guessing — under any key whose words name SQL, at
//! any depth and in arrays (`{"params": {"Query": ...}}`, `{"queries": [...]}`).
//! Every string leaf under such a key is a text to judge.

use std::ops::ControlFlow;

use serde_json::Value;

use super::words;

/// Arguments nested deeper than this are not searched: the call is refused
/// (no tool's arguments nest so deep; a model's could, to hide a key).
pub(crate) const MAX_DEPTH: usize = 64;

/// The arguments nest deeper than [`MAX_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooDeep;

/// Calls `visit` with each string leaf of `value`, until it breaks.
pub(crate) fn leaves<'a, B>(
    value: &'a Value,
    depth: usize,
    visit: &mut impl FnMut(&'a str) -> ControlFlow<B>,
) -> Result<ControlFlow<B>, TooDeep> {
    if depth > MAX_DEPTH {
        return Err(TooDeep);
    }
    match value {
        Value::String(text) => Ok(visit(text)),
        Value::Array(items) => {
            for item in items {
                if let ControlFlow::Break(b) = leaves(item, depth + 1, visit)? {
                    return Ok(ControlFlow::Break(b));
                }
            }
            Ok(ControlFlow::Continue(()))
        }
        Value::Object(members) => {
            for member in members.values() {
                if let ControlFlow::Break(b) = leaves(member, depth + 1, visit)? {
                    return Ok(ControlFlow::Break(b));
                }
            }
            Ok(ControlFlow::Continue(()))
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(ControlFlow::Continue(())),
    }
}

/// Calls `visit(key, text)` with each string leaf under every key of
/// `args` (at any depth) whose words include one of `sql_keys`.
pub(crate) fn under_sql_keys<'a, B>(
    args: &'a Value,
    sql_keys: &[String],
    visit: &mut impl FnMut(&'a str, &'a str) -> ControlFlow<B>,
) -> Result<ControlFlow<B>, TooDeep> {
    search(args, sql_keys, 0, visit)
}

fn search<'a, B>(
    value: &'a Value,
    sql_keys: &[String],
    depth: usize,
    visit: &mut impl FnMut(&'a str, &'a str) -> ControlFlow<B>,
) -> Result<ControlFlow<B>, TooDeep> {
    if depth > MAX_DEPTH {
        return Err(TooDeep);
    }
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                let flow = if words::find(key, sql_keys).is_some() {
                    leaves(member, depth + 1, &mut |text| visit(key, text))?
                } else {
                    search(member, sql_keys, depth + 1, visit)?
                };
                if let ControlFlow::Break(b) = flow {
                    return Ok(ControlFlow::Break(b));
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if let ControlFlow::Break(b) = search(item, sql_keys, depth + 1, visit)? {
                    return Ok(ControlFlow::Break(b));
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    Ok(ControlFlow::Continue(()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn found(args: &Value) -> Vec<(String, String)> {
        let keys: Vec<String> = ["sql", "query", "queries"].map(String::from).to_vec();
        let mut seen = Vec::new();
        let _ = under_sql_keys(args, &keys, &mut |key, text| {
            seen.push((key.to_owned(), text.to_owned()));
            ControlFlow::<()>::Continue(())
        })
        .unwrap();
        seen
    }

    #[test]
    fn sql_is_found_under_any_key_naming_it_at_any_depth() {
        let args = json!({
            "Query": "a",
            "sql_query": "b",
            "params": {"query": "c", "limit": 5},
            "queries": ["d", {"text": "e"}],
            "batch": [{"SQL": "f"}],
            "question": "not sql",
        });
        let texts: Vec<String> = found(&args).into_iter().map(|(_, text)| text).collect();
        assert_eq!(texts.len(), 6, "{texts:?}");
        for text in ["a", "b", "c", "d", "e", "f"] {
            assert!(texts.iter().any(|t| t == text), "{text}");
        }
        assert!(found(&json!({"queryable": "x", "mysql_host": "y"})).is_empty());
    }

    #[test]
    fn arguments_too_deep_are_refused() {
        let mut deep = json!("DELETE FROM t");
        for _ in 0..=MAX_DEPTH {
            deep = json!([deep]);
        }
        let args = json!({"sql": deep});
        let keys = vec!["sql".to_owned()];
        assert_eq!(
            under_sql_keys(&args, &keys, &mut |_, _| ControlFlow::<()>::Continue(())),
            Err(TooDeep)
        );
    }
}
