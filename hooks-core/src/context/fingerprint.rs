//! Telling whether a hook changed a field it borrowed mutably, without
//! copying it: a print of the field before and after.
//!
//! A field's content is walked into words — a tag per node, lengths before
//! contents, so no two different values give the same words — not printed
//! as JSON: no allocation, no number formatting or string escaping on the
//! path of every rewriting hook. Up to [`WORDS`] words (most tool
//! arguments) are kept as they are: comparing them is exact, and cheaper
//! than hashing them. Longer content is kept as a 64-bit keyed hash of its
//! words. The keys are random per process, so arguments a model writes
//! cannot be crafted to make a change hash like the original (with a fixed
//! key they could: `SipHash` is only collision-resistant while its key is
//! secret).

use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::OnceLock;

use serde_json::Value;

/// How many words of content a print keeps as they are.
const WORDS: usize = 16;

/// A field whose changes are recorded as rewrites.
pub(crate) trait Fingerprint {
    /// Feeds the field's content into `hasher`, unambiguously.
    fn feed(&self, hasher: &mut impl Hasher);

    /// A print of its content: equal for equal content, within this
    /// process; different for different content (exactly, for content of
    /// up to [`WORDS`] words; but for a keyed 64-bit hash's collisions,
    /// beyond).
    fn print(&self) -> Print {
        let mut recorder = Recorder::default();
        self.feed(&mut recorder);
        recorder.print()
    }
}

/// What a field's content was, to tell whether a hook changed it.
#[derive(Debug, Clone)]
pub(crate) enum Print {
    /// The content's words (the first `len` of them).
    Words { len: usize, words: [u64; WORDS] },
    /// Content of more words than that, hashed.
    Hash(u64),
}

impl Print {
    /// The print of a field a context does not have.
    pub(crate) const NONE: Print = Print::Words {
        len: 0,
        words: [0; WORDS],
    };
}

impl PartialEq for Print {
    fn eq(&self, other: &Print) -> bool {
        match (self, other) {
            (
                Print::Words { len, words },
                Print::Words {
                    len: other,
                    words: theirs,
                },
            ) => len == other && words.get(..*len) == theirs.get(..*len),
            (Print::Hash(hash), Print::Hash(theirs)) => hash == theirs,
            // Content of up to `WORDS` words against content of more.
            _ => false,
        }
    }
}

/// Takes a field's words: keeps the first [`WORDS`] of them, and hashes
/// them all if there are more.
struct Recorder {
    words: [u64; WORDS],
    len: usize,
    /// Every word so far, hashed, once there are more than `WORDS` (`len`
    /// stays at `WORDS` then).
    hasher: Option<Sip13>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            words: [0; WORDS],
            len: 0,
            hasher: None,
        }
    }
}

impl Recorder {
    #[inline]
    fn word(&mut self, word: u64) {
        if self.len < WORDS {
            self.words[self.len] = word;
            self.len += 1;
        } else if let Some(hasher) = &mut self.hasher {
            // Long content (a tool's whole output): hashed as it comes.
            hasher.write_u64(word);
        } else {
            self.start_hashing(word);
        }
    }

    /// The first word past `WORDS`: hashes those kept, then it.
    #[cold]
    #[inline(never)]
    fn start_hashing(&mut self, word: u64) {
        let mut hasher = Sip13::keyed();
        for kept in self.words {
            hasher.write_u64(kept);
        }
        hasher.write_u64(word);
        self.hasher = Some(hasher);
    }

    fn print(&self) -> Print {
        match &self.hasher {
            Some(hasher) => Print::Hash(hasher.finish()),
            None => Print::Words {
                len: self.len,
                words: self.words,
            },
        }
    }
}

impl Hasher for Recorder {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for_each_word(bytes, |word| self.word(word));
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.word(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.word(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.word(value as u64);
    }

    /// Not a hash: [`print`](Recorder::print) is what it gives.
    fn finish(&self) -> u64 {
        match self.print() {
            Print::Hash(hash) => hash,
            Print::Words { .. } => 0,
        }
    }
}

/// `SipHash-1-3` (the algorithm of std's `DefaultHasher`), keyed at random
/// once per process, over whole 8-byte blocks: every write is zero-padded
/// to a block boundary, so no write waits in a tail buffer for the next
/// one. Padding is unambiguous because every variable-length write is of
/// text whose length was written first, and every other write has a fixed
/// size. Values are fed as many small writes (a tag, a key, a short
/// string): std's hasher buffered each; this hashes each at once (the
/// 3-hook rewrite benchmark: 6,642 → 4,842 instructions above the direct
/// calls, with the short strings below packed into one block each).
#[derive(Clone, Copy)]
struct Sip13 {
    v0: u64,
    v1: u64,
    v2: u64,
    v3: u64,
    /// Blocks compressed, for the final block (as `SipHash` counts bytes).
    blocks: u64,
}

impl Sip13 {
    fn keyed() -> Self {
        static KEYS: OnceLock<(u64, u64)> = OnceLock::new();
        // Two outputs of std's randomly keyed SipHash: 128 secret bits.
        let &(k0, k1) = KEYS.get_or_init(|| {
            let state = RandomState::new();
            (state.hash_one(0_u64), state.hash_one(1_u64))
        });
        Sip13::with_keys(k0, k1)
    }

    fn with_keys(k0: u64, k1: u64) -> Self {
        Sip13 {
            v0: k0 ^ 0x736f_6d65_7073_6575,
            v1: k1 ^ 0x646f_7261_6e64_6f6d,
            v2: k0 ^ 0x6c79_6765_6e65_7261,
            v3: k1 ^ 0x7465_6462_7974_6573,
            blocks: 0,
        }
    }

    #[inline]
    fn round(&mut self) {
        self.v0 = self.v0.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(13) ^ self.v0;
        self.v0 = self.v0.rotate_left(32);
        self.v2 = self.v2.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(16) ^ self.v2;
        self.v0 = self.v0.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(21) ^ self.v0;
        self.v2 = self.v2.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(17) ^ self.v2;
        self.v2 = self.v2.rotate_left(32);
    }

    #[inline]
    fn block(&mut self, m: u64) {
        self.v3 ^= m;
        self.round();
        self.v0 ^= m;
        self.blocks = self.blocks.wrapping_add(1);
    }
}

impl Hasher for Sip13 {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for_each_word(bytes, |word| self.block(word));
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.block(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.block(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.block(value as u64);
    }

    fn finish(&self) -> u64 {
        let mut last = *self;
        // SipHash's final block: the message length's low byte on top.
        last.block(last.blocks.wrapping_mul(8) << 56);
        last.v2 ^= 0xff;
        last.round();
        last.round();
        last.round();
        last.v0 ^ last.v1 ^ last.v2 ^ last.v3
    }
}

/// A node's tag and length in one write (each write costs the hasher a
/// round of bookkeeping, and most values are small).
fn feed_head(tag: u8, len: usize, hasher: &mut impl Hasher) {
    hasher.write_u64(u64::from(tag) << 56 | (len as u64 & ((1 << 56) - 1)));
}

/// Text, its length first (so `"ab","c"` and `"a","bc"` differ), in its
/// first block with a tag saying how the length is written: up to six
/// bytes (most keys, many values) fit in that block whole (tag 6); text
/// shorter than 64 KiB has its length in two bytes and its first five
/// bytes there (tag 7); longer text has a block of its own for the length
/// (tag 3). No other node has these tags, and each tells how many blocks
/// follow.
#[inline]
fn feed_str(text: &str, hasher: &mut impl Hasher) {
    let bytes = text.as_bytes();
    let len = bytes.len();
    match bytes.split_at_checked(5) {
        _ if len <= 6 => {
            hasher.write_u64(partial_word(bytes) | (len as u64) << 48 | 6 << 56);
        }
        Some((first, rest)) if len <= 0xFFFF => {
            hasher.write_u64(partial_word(first) | (len as u64) << 40 | 7 << 56);
            hasher.write(rest);
        }
        _ => {
            feed_head(3, len, hasher);
            hasher.write(bytes);
        }
    }
}

/// `bytes` as little-endian 8-byte words, the last zero-padded: how both
/// hashers take a write.
#[inline]
fn for_each_word(bytes: &[u8], mut word: impl FnMut(u64)) {
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut whole = [0; 8];
        whole.copy_from_slice(chunk);
        word(u64::from_le_bytes(whole));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        word(partial_word(rest));
    }
}

/// Up to eight bytes as a little-endian word, zero-padded: what copying
/// them into a zeroed `[u8; 8]` gives, without the call to `memcpy` a
/// copy of variable length compiles to (it was a tenth of a rewriting
/// dispatch's hashing). Two overlapping loads cover 4 to 8 bytes; three
/// single bytes cover 1 to 3.
#[inline]
fn partial_word(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    debug_assert!(len <= 8, "a partial word is at most a word");
    match bytes {
        [] => 0,
        [_, _, _, _, ..] => {
            let four = |at: usize| {
                u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
            };
            u64::from(four(0)) | u64::from(four(len - 4)) << (8 * (len - 4))
        }
        [first, ..] => {
            let (mid, last) = (bytes[len / 2], bytes[len - 1]);
            u64::from(*first)
                | u64::from(mid) << (8 * (len / 2))
                | u64::from(last) << (8 * (len - 1))
        }
    }
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
        let big = json!({"body": "x".repeat(1000), "to": "acct"});
        for a in [json!({"amount": 10, "to": "acct"}), big.clone()] {
            assert_eq!(a.print(), a.clone().print());
        }
        assert!(
            matches!(big.print(), Print::Hash(_)),
            "a long value is hashed"
        );
        assert_ne!(
            json!({"amount": 10, "to": "acct"}).print(),
            json!({"amount": 11, "to": "acct"}).print()
        );
        let mut changed = big.clone();
        changed["to"] = json!("acct2");
        assert_ne!(big.print(), changed.print());
        let ok: Result<serde_json::Value, String> = Ok(json!("x"));
        let err: Result<serde_json::Value, String> = Err("x".into());
        assert_ne!(ok.print(), err.print());
        assert_ne!("a".to_owned().print(), "b".to_owned().print());
    }

    #[test]
    fn the_hasher_is_siphash_1_3_on_whole_blocks() {
        // std's `DefaultHasher::new()` is SipHash-1-3 with zero keys: on
        // input of whole blocks both must agree, bit for bit.
        let mut std = std::hash::DefaultHasher::new();
        let mut ours = Sip13::with_keys(0, 0);
        for word in [0_u64, 1, u64::MAX, 0x0123_4567_89ab_cdef] {
            std.write(&word.to_le_bytes());
            ours.write_u64(word);
        }
        std.write(b"sixteen  bytes!!");
        ours.write(b"sixteen  bytes!!");
        assert_eq!(ours.finish(), std.finish());
    }

    #[test]
    fn content_of_up_to_sixteen_words_is_kept_and_longer_content_hashed() {
        // An array's words: its head, then one per `null`.
        let kept = json!(vec![Value::Null; WORDS - 1]);
        let hashed = json!(vec![Value::Null; WORDS]);
        assert!(matches!(kept.print(), Print::Words { len: WORDS, .. }));
        assert!(matches!(hashed.print(), Print::Hash(_)));
        assert_ne!(kept.print(), hashed.print());
        let mut last_changed = hashed.clone();
        last_changed[WORDS - 1] = json!(false);
        assert_ne!(
            hashed.print(),
            last_changed.print(),
            "a change past the kept words"
        );
    }

    #[test]
    fn a_partial_word_is_the_bytes_zero_padded() {
        let text = b"abcdefgh";
        for len in 0..=8 {
            let mut word = [0; 8];
            word[..len].copy_from_slice(&text[..len]);
            assert_eq!(
                partial_word(&text[..len]),
                u64::from_le_bytes(word),
                "{len} bytes"
            );
        }
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
            (json!("abcdef"), json!("abcdefg")),
            (json!(["abc\0"]), json!(["abc"])),
            (json!("abcdefg"), json!("abcdefg\0")),
            (json!(["abcdefgh", "i"]), json!(["abcdefghi", ""])),
            (json!("x".repeat(0xFFFF)), json!("x".repeat(0x1_0000))),
            (json!([""]), json!([null])),
        ];
        for (a, b) in pairs {
            assert_ne!(a.print(), b.print(), "{a} and {b}");
        }
    }
}
