//! Text shown to the person who approves, made safe to show: a prompt or an
//! argument may carry terminal escapes (`\x1b[2K` erasing the line above),
//! carriage returns, or bidirectional overrides (`U+202E`) that make the
//! screen say something other than what is stored. Every [`Approval`](super::Approval)
//! prompt goes through [`printable`], so every approver shows safe text.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character and every invisible formatting
/// character (bidirectional controls, zero-width characters, tag characters)
/// written as a JSON-style `\uXXXX` escape; line feeds are kept only when
/// `lines` is true. Text without any is returned as it is.
///
/// ```
/// use hooks_core::printable;
///
/// assert_eq!(printable("pay 10\u{202e}0001", false), "pay 10\\u202e0001");
/// assert_eq!(printable("\x1b[2Kok", false), "\\u001b[2Kok");
/// assert_eq!(printable("plain text", false), "plain text");
/// ```
pub fn printable(text: &str, lines: bool) -> Cow<'_, str> {
    let hidden = |c: char| (c != '\n' || !lines) && hides(c);
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(shown, "\\u{unit:04x}");
            }
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// Whether `c` changes how the text around it looks without being seen.
fn hides(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'                  // soft hyphen
            | '\u{061c}'                // Arabic letter mark
            | '\u{115f}' | '\u{1160}'   // Hangul fillers
            | '\u{180e}'                // Mongolian vowel separator
            | '\u{200b}'..='\u{200f}'   // zero-width characters, LRM, RLM
            | '\u{2028}' | '\u{2029}'   // line and paragraph separators
            | '\u{202a}'..='\u{202e}'   // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{2064}'   // word joiner, invisible operators
            | '\u{2066}'..='\u{206f}'   // bidirectional isolates, deprecated formats
            | '\u{3164}'                // Hangul filler
            | '\u{feff}'                // zero-width no-break space
            | '\u{ffa0}'                // halfwidth Hangul filler
            | '\u{fff9}'..='\u{fffb}'   // interlinear annotations
            | '\u{1d173}'..='\u{1d17a}' // musical formatting
            | '\u{e0000}'..='\u{e007f}' // tag characters
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hiding_character_is_escaped_and_the_rest_kept() {
        for hidden in [
            '\x1b', '\r', '\x08', '\u{85}', '\u{202e}', '\u{2066}', '\u{200b}', '\u{feff}',
        ] {
            let text = format!("a{hidden}b");
            let shown = printable(&text, false);
            assert!(shown.is_ascii(), "{shown:?}");
            assert!(!shown.contains(hidden));
        }
        assert_eq!(printable("\u{e0041}", false), "\\udb40\\udc41");
        assert_eq!(printable("line\nnext", true), "line\nnext");
        assert_eq!(printable("line\nnext", false), "line\\u000anext");
        assert_eq!(printable("naïve — ok ✓", false), "naïve — ok ✓");
    }
}
