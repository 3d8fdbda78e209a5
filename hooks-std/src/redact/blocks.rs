//! Private keys as whole blocks: PEM (`-----BEGIN … PRIVATE KEY-----`, PGP's
//! `PRIVATE KEY BLOCK` and OpenSSH's included) and `PuTTY`'s `.ppk` files.
//! Each block goes whole, or to the end of the text when its end is missing:
//! a truncated key is still a key.

use std::ops::Range;

/// `-----BEGIN RSA PRIVATE KEY-----` … `-----END RSA PRIVATE KEY-----`, and
/// PGP's `PRIVATE KEY BLOCK`: the whole block, or to the end of the text
/// when the end is missing (a truncated key is still a key).
pub(crate) fn private_key_blocks(text: &str, spans: &mut Vec<Range<usize>>) {
    let mut from = 0;
    while let Some(found) = text[from..].find("-----BEGIN ") {
        let start = from + found;
        let Some(header_end) = text[start + 11..]
            .find("-----")
            .map(|at| start + 11 + at + 5)
        else {
            break;
        };
        if !text[start..header_end].contains("PRIVATE KEY") {
            from = header_end;
            continue;
        }
        let end = text[header_end..]
            .find("-----END ")
            .and_then(|at| {
                let end_start = header_end + at;
                text[end_start + 9..]
                    .find("-----")
                    .map(|close| end_start + 9 + close + 5)
            })
            .unwrap_or(text.len());
        spans.push(start..end);
        from = end;
    }
}

/// A `PuTTY` key file, `PuTTY-User-Key-File-2:` or `-3:`, to the end of its
/// `Private-MAC:` (or version 1's `Private-Hash:`) line.
pub(crate) fn putty_keys(text: &str, spans: &mut Vec<Range<usize>>) {
    let mut from = 0;
    while let Some(found) = text[from..].find("PuTTY-User-Key-File-") {
        let start = from + found;
        let end = ["Private-MAC:", "Private-Hash:"]
            .iter()
            .filter_map(|last| text[start..].find(last).map(|at| start + at))
            .min()
            .map_or(text.len(), |last| {
                text[last..]
                    .find('\n')
                    .map_or(text.len(), |line_end| last + line_end)
            });
        spans.push(start..end);
        from = end.max(start + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_putty_key_goes_whole_and_what_follows_stays() {
        let text = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAAIs3cr3t\nPrivate-MAC: 9c2e\nnext line";
        let mut spans = Vec::new();
        putty_keys(text, &mut spans);
        assert_eq!(&text[spans[0].end..], "\nnext line");
        assert_eq!(spans[0].start, 0);
    }
}
