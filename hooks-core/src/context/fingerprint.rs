//! Telling whether a hook changed a field it borrowed mutably, without
//! copying it: a 64-bit keyed hash of the field before and after.
//!
//! The keys are random per process, so arguments a model writes cannot be
//! crafted to make a change hash like the original (with a fixed key they
//! could: `SipHash` is only collision-resistant while its key is secret).
//! Values are hashed by walking them — a tag per node, lengths before
//! contents, so no two different values feed the hasher the same bytes —
//! not by printing their JSON: no allocation, and no number formatting or
//! string escaping on the path of every rewriting hook.

use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::OnceLock;

use serde_json::Value;

/// A field whose changes are recorded as rewrites.
pub(crate) trait Fingerprint {
    /// Feeds the field's content into `hasher`, unambiguously.
    fn feed(&self, hasher: &mut impl Hasher);

    /// A hash of its content, the same for equal content within this process.
    fn fingerprint(&self) -> u64 {
        let mut hasher = hasher();
        self.feed(&mut hasher);
        hasher.finish()
    }
}

fn hasher() -> impl Hasher {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    KEYS.get_or_init(RandomState::new).build_hasher()
}

/// A node's tag and length in one write (each write costs the hasher a
/// round of bookkeeping, and most values are small).
fn feed_head(tag: u8, len: usize, hasher: &mut impl Hasher) {
    hasher.write_u64(u64::from(tag) << 56 | (len as u64 & ((1 << 56) - 1)));
}

/// Text, its length first (so `"ab","c"` and `"a","bc"` differ).
fn feed_str(text: &str, hasher: &mut impl Hasher) {
    feed_head(3, text.len(), hasher);
    hasher.write(text.as_bytes());
}

impl Fingerprint for Value {
    fn feed(&self, hasher: &mut impl Hasher) {
        match self {
            Value::Null => feed_head(0, 0, hasher),
            Value::Bool(value) => feed_head(1, usize::from(*value), hasher),
            Value::Number(number) => {
                // 1 and 1.0 are different JSON, as they print differently.
                let (kind, bits) = if let Some(value) = number.as_u64() {
                    (0, value)
                } else if let Some(value) = number.as_i64() {
                    (1, value.cast_unsigned())
                } else {
                    (2, number.as_f64().map_or(0, f64::to_bits))
                };
                feed_head(2, kind, hasher);
                hasher.write_u64(bits);
            }
            Value::String(text) => feed_str(text, hasher),
            Value::Array(items) => {
                feed_head(4, items.len(), hasher);
                for item in items {
                    item.feed(hasher);
                }
            }
            Value::Object(fields) => {
                feed_head(5, fields.len(), hasher);
                for (key, value) in fields {
                    feed_str(key, hasher);
                    value.feed(hasher);
                }
            }
        }
    }
}

impl Fingerprint for String {
    fn feed(&self, hasher: &mut impl Hasher) {
        feed_str(self, hasher);
    }
}

impl<T: Fingerprint> Fingerprint for Option<T> {
    fn feed(&self, hasher: &mut impl Hasher) {
        match self {
            None => hasher.write_u8(0),
            Some(value) => {
                hasher.write_u8(1);
                value.feed(hasher);
            }
        }
    }
}

impl<T: Fingerprint, E: Fingerprint> Fingerprint for Result<T, E> {
    fn feed(&self, hasher: &mut impl Hasher) {
        match self {
            Ok(value) => {
                hasher.write_u8(0);
                value.feed(hasher);
            }
            Err(error) => {
                hasher.write_u8(1);
                error.feed(hasher);
            }
        }
    }
}

impl<T: Fingerprint> Fingerprint for [T] {
    fn feed(&self, hasher: &mut impl Hasher) {
        hasher.write_usize(self.len());
        for item in self {
            item.feed(hasher);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_content_hashes_alike_and_a_change_does_not() {
        let a = json!({"amount": 10, "to": "acct"});
        assert_eq!(a.fingerprint(), a.clone().fingerprint());
        assert_ne!(
            a.fingerprint(),
            json!({"amount": 11, "to": "acct"}).fingerprint()
        );
        let ok: Result<serde_json::Value, String> = Ok(json!("x"));
        let err: Result<serde_json::Value, String> = Err("x".into());
        assert_ne!(ok.fingerprint(), err.fingerprint());
        assert_ne!("a".to_owned().fingerprint(), "b".to_owned().fingerprint());
    }

    #[test]
    fn values_that_would_feed_alike_without_tags_and_lengths_differ() {
        let pairs = [
            (json!(["ab", "c"]), json!(["a", "bc"])),
            (json!({"a": "bc"}), json!({"ab": "c"})),
            (json!(1), json!(1.0)),
            (json!(1), json!("1")),
            (json!(null), json!(false)),
            (json!([[]]), json!([])),
            (json!(-1), json!(u64::MAX)),
            (json!({"a": 1, "b": 2}), json!({"a": 1})),
        ];
        for (a, b) in pairs {
            assert_ne!(a.fingerprint(), b.fingerprint(), "{a} and {b}");
        }
    }
}
