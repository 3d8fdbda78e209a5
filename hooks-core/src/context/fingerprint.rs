//! Telling whether a hook changed a field it borrowed mutably, without
//! copying it: a 64-bit keyed hash of the field before and after.
//!
//! The keys are random per process, so arguments a model writes cannot be
//! crafted to make a change hash like the original (with a fixed key they
//! could: `SipHash` is only collision-resistant while its key is secret).
//! Hashing streams the value's JSON into the hasher: no allocation.

use std::hash::{BuildHasher, Hasher, RandomState};
use std::io;
use std::sync::OnceLock;

use serde::Serialize;

/// A field whose changes are recorded as rewrites.
pub(crate) trait Fingerprint {
    /// A hash of its content, the same for equal content within this process.
    fn fingerprint(&self) -> u64;
}

fn hasher() -> impl Hasher {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    KEYS.get_or_init(RandomState::new).build_hasher()
}

/// Feeds what is written into a hasher.
struct Feed<H>(H);

impl<H: Hasher> io::Write for Feed<H> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Any serializable value, by its JSON text.
pub(crate) fn of_json<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut feed = Feed(hasher());
    // Writing into a hasher cannot fail, and JSON values always serialize.
    let _ = serde_json::to_writer(&mut feed, value);
    feed.0.finish()
}

impl Fingerprint for serde_json::Value {
    fn fingerprint(&self) -> u64 {
        of_json(self)
    }
}

impl Fingerprint for String {
    fn fingerprint(&self) -> u64 {
        let mut hasher = hasher();
        hasher.write(self.as_bytes());
        hasher.finish()
    }
}

impl<T: Serialize, E: Serialize> Fingerprint for Result<T, E> {
    fn fingerprint(&self) -> u64 {
        // `Ok(x)` and `Err(x)` serialize differently (`{"Ok":..}`, `{"Err":..}`).
        of_json(self)
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
}
