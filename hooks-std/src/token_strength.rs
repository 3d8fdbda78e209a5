//! How hard a bearer token (the approval console's, hooks-mcp's over HTTP) is
//! to guess, estimated from the token alone: a person who picks
//! "aaaaaaaaaaaaaaaa" or a keyboard run is refused at start, told how to make a
//! good one. Always built: it needs nothing but `std`.
//!
//! The estimate is the smaller of two counts, each generous to real random
//! tokens and stingy with patterns:
//! - by position: each character costs `log2` of the pool its kinds span
//!   (lower case 26, upper case 26, digits 10, anything else 33), except one
//!   that repeats the character before it, continues a run (`abc`, `987`), or
//!   continues a stretch seen earlier in the token (`abab…`): those cost nothing;
//! - by frequency: the token's length times the Shannon entropy of its own
//!   characters (a token of two letters is worth at most 1 bit a character).
//!
//! It is a guess, so it may only refuse: a token it passes can still be a
//! word a dictionary holds. Tokens from a random source pass:
//! `openssl rand -hex 32` scores about 240 bits, `openssl rand -base64 24` about 170.

use std::collections::HashMap;

/// The least a token must score.
pub const MIN_BITS: f64 = 100.0;

/// The estimated strength of `token`, in bits.
pub fn bits(token: &str) -> f64 {
    by_position(token).min(by_frequency(token))
}

/// Whether `token` is strong enough; if not, why and how to make one.
///
/// # Errors
///
/// The token scores under [`MIN_BITS`]: the message says its length, its
/// kinds of character, its score, and how to make a good one.
pub fn check(token: &str) -> Result<(), String> {
    let bits = bits(token);
    if bits >= MIN_BITS {
        return Ok(());
    }
    let length = token.chars().count();
    if length == 0 {
        return Err("the token is empty; make one with `openssl rand -hex 32`".to_owned());
    }
    let kinds = kinds(token);
    let count = match kinds.len() {
        1 => "one kind".to_owned(),
        n => format!("{n} kinds"),
    };
    Err(format!(
        "the token is too easy to guess: {length} characters of {count} ({}), \
         about {bits:.0} bits by its own characters (repeats, runs and repeated \
         stretches count for nothing), and it needs {MIN_BITS:.0}; make one with \
         `openssl rand -hex 32` (or `head -c 32 /dev/urandom | base64`)",
        kinds.join(", "),
    ))
}

/// The kinds of character `token` has, by name.
fn kinds(token: &str) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    for (name, test) in [
        ("lower case", char::is_lowercase as fn(char) -> bool),
        ("upper case", char::is_uppercase),
        ("digits", |c: char| c.is_ascii_digit()),
        ("other characters", |c: char| !c.is_alphanumeric()),
    ] {
        if token.chars().any(test) {
            kinds.push(name);
        }
    }
    kinds
}

/// Bits a character costs, from the kinds the whole token spans.
fn pool_bits(token: &str) -> f64 {
    let pool: u32 = kinds(token)
        .iter()
        .map(|kind| match *kind {
            "lower case" | "upper case" => 26,
            "digits" => 10,
            _ => 33,
        })
        .sum();
    f64::from(pool.max(1)).log2()
}

fn by_position(token: &str) -> f64 {
    let chars: Vec<char> = token.chars().collect();
    let each = pool_bits(token);
    let mut bits = 0.0;
    for (at, &c) in chars.iter().enumerate() {
        let predictable = at > 0 && {
            let before = chars[at - 1];
            let step = i64::from(u32::from(c)) - i64::from(u32::from(before));
            step.abs() <= 1 || seen_before(&chars, at)
        };
        if !predictable {
            bits += each;
        }
    }
    bits
}

/// Whether the three characters ending at `at` appear earlier in the token.
fn seen_before(chars: &[char], at: usize) -> bool {
    if at < 2 {
        return false;
    }
    let stretch = &chars[at - 2..=at];
    chars[..at].windows(3).any(|window| window == stretch)
}

fn by_frequency(token: &str) -> f64 {
    let mut counts: HashMap<char, u32> = HashMap::new();
    let mut length = 0u32;
    for c in token.chars() {
        *counts.entry(c).or_default() += 1;
        length += 1;
    }
    if length == 0 {
        return 0.0;
    }
    let total = f64::from(length);
    let per_char: f64 = counts
        .values()
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum();
    per_char * total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_score_little() {
        for weak in [
            "",
            "aaaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "abcdefghijklmnopqrstuvwxyz",
            "0123456789012345678901234567890123456789",
            "abababababababababababababababababababab",
            "Passw0rd!Passw0rd!Passw0rd!Passw0rd!",
            "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA",
            "sixteen-chars-ok",
        ] {
            assert!(bits(weak) < MIN_BITS, "{weak}: {}", bits(weak));
            let error = check(weak).unwrap_err();
            assert!(error.contains("openssl rand -hex 32"), "{error}");
        }
    }

    #[test]
    fn random_tokens_pass() {
        for strong in [
            // openssl rand -hex 32
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            // openssl rand -base64 24
            "q3T0vX9mK2pL8wZr4YbN6cHsJd1fGuEa",
            // openssl rand -base64 32
            "Zx3v9Q2mT8kL1pW7rY4bN6cH0sJd5fGuE+a/VtRyXo0=",
        ] {
            assert!(bits(strong) >= MIN_BITS, "{strong}: {}", bits(strong));
            assert!(check(strong).is_ok());
        }
    }

    #[test]
    fn the_error_names_length_and_kinds() {
        let error = check("aaaaaaaaaaaaaaaa").unwrap_err();
        assert!(
            error.contains("16 characters of one kind (lower case)"),
            "{error}"
        );
        assert!(error.contains("bits"), "{error}");
        let error = check("").unwrap_err();
        assert!(error.contains("empty"), "{error}");
    }
}
