//! JSON as Cedar values: arguments and metadata become records a policy
//! compares. What Cedar cannot hold exactly is refused, never dropped or
//! rounded: a dropped key or a rounded amount would be a way around a rule.

use cedar_policy::RestrictedExpression;
use serde_json::Value;

/// Nesting deeper than this is refused (a policy never needs it, and the
/// conversion recurses).
const MAX_DEPTH: usize = 32;

/// Why a value could not become a Cedar value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unrepresentable {
    /// Where: `args.amount`, `args.items[2]`.
    pub(crate) at: String,
    pub(crate) why: &'static str,
}

/// A JSON object as a Cedar record; `null` members are left out (a key
/// given as `null` is a key not given, to Cedar's `has`).
pub(crate) fn record(
    at: &str,
    object: &serde_json::Map<String, Value>,
) -> Result<RestrictedExpression, Unrepresentable> {
    record_at(at, object, 0)
}

fn record_at(
    at: &str,
    object: &serde_json::Map<String, Value>,
    depth: usize,
) -> Result<RestrictedExpression, Unrepresentable> {
    let mut fields = Vec::with_capacity(object.len());
    for (key, value) in object {
        if value.is_null() {
            continue;
        }
        let here = format!("{at}.{key}");
        fields.push((key.clone(), value_at(&here, value, depth + 1)?));
    }
    RestrictedExpression::new_record(fields).map_err(|_| Unrepresentable {
        at: at.to_owned(),
        why: "a key appears twice",
    })
}

/// One JSON value as a Cedar value.
pub(crate) fn value(at: &str, value: &Value) -> Result<RestrictedExpression, Unrepresentable> {
    value_at(at, value, 0)
}

fn value_at(
    at: &str,
    value: &Value,
    depth: usize,
) -> Result<RestrictedExpression, Unrepresentable> {
    if depth > MAX_DEPTH {
        return Err(Unrepresentable {
            at: at.to_owned(),
            why: "it is nested more than 32 deep",
        });
    }
    match value {
        Value::String(text) => Ok(RestrictedExpression::new_string(text.clone())),
        Value::Bool(flag) => Ok(RestrictedExpression::new_bool(*flag)),
        Value::Number(number) => long(number)
            .map(RestrictedExpression::new_long)
            .ok_or_else(|| Unrepresentable {
                at: at.to_owned(),
                why: "it is a number Cedar cannot hold exactly (Cedar compares whole numbers in 64 bits)",
            }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(n, item)| {
                if item.is_null() {
                    Err(Unrepresentable {
                        at: format!("{at}[{n}]"),
                        why: "Cedar has no null",
                    })
                } else {
                    value_at(&format!("{at}[{n}]"), item, depth + 1)
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map(RestrictedExpression::new_set),
        Value::Object(object) => record_at(at, object, depth),
        Value::Null => Err(Unrepresentable {
            at: at.to_owned(),
            why: "Cedar has no null",
        }),
    }
}

/// A JSON number as a 64-bit integer, if it is one exactly (`5000` and
/// `5000.0` are; `4999.5` and `1e30` are not).
fn long(number: &serde_json::Number) -> Option<i64> {
    if let Some(n) = number.as_i64() {
        return Some(n);
    }
    let float = number.as_f64()?;
    // i64::MAX is not a float: compare against 2^63, the first float beyond.
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    (float.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&float))
        .then_some(float as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_whole_or_refused() {
        assert_eq!(long(&serde_json::from_str("5000").unwrap()), Some(5000));
        assert_eq!(long(&serde_json::from_str("5000.0").unwrap()), Some(5000));
        assert_eq!(long(&serde_json::from_str("-3").unwrap()), Some(-3));
        assert_eq!(long(&serde_json::from_str("4999.5").unwrap()), None);
        assert_eq!(long(&serde_json::from_str("1e30").unwrap()), None);
        assert_eq!(
            long(&serde_json::from_str("18446744073709551615").unwrap()),
            None
        );
    }

    #[test]
    fn what_cedar_cannot_hold_is_refused_naming_where() {
        let refused = value("args", &json!({"items": [1, null]})).unwrap_err();
        assert_eq!(refused.at, "args.items[1]");
        let refused = value("args", &json!({"amount": 0.5})).unwrap_err();
        assert_eq!(refused.at, "args.amount");
        let mut deep = json!(1);
        for _ in 0..40 {
            deep = json!([deep]);
        }
        assert!(value("args", &deep).is_err());
        assert!(value("args", &json!({"amount": null, "note": "x"})).is_ok());
    }
}
