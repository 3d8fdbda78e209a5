//! Text split into words as a shell would, closely enough to find what
//! follows a flag: blanks separate words, quotes group them (`-b 'a=1;
//! sid=x'` is two words), and `;`, `|`, `&` or a line break outside quotes
//! start a new command. A word is what a program would get: its quotes, if
//! it is quoted whole, left out.
//!
//! This reads command lines to *redact* them, never to decide what runs:
//! a word split wrongly here costs a redaction, not a guard.

use std::ops::Range;

/// A word of a command line, or an element of an argv array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word<'t> {
    /// What a program would get.
    pub(crate) text: &'t str,
    /// Where that is in the text.
    pub(crate) at: Range<usize>,
    /// Whether a new command starts here (`a && b`, `a; b`, a new line).
    pub(crate) starts_command: bool,
}

impl<'t> Word<'t> {
    /// An argv element: the whole of it, in a command of its own array.
    pub(crate) fn element(text: &'t str, first: bool) -> Self {
        Word {
            text,
            at: 0..text.len(),
            starts_command: first,
        }
    }
}

/// The words of `text`.
pub(crate) fn words(text: &str) -> Vec<Word<'_>> {
    let bytes = text.as_bytes();
    let mut words = Vec::new();
    let mut at = 0;
    let mut new_command = true;
    while at < bytes.len() {
        match bytes[at] {
            b';' | b'|' | b'&' | b'\n' => {
                new_command = true;
                at += 1;
            }
            byte if byte.is_ascii_whitespace() => at += 1,
            _ => {
                let start = at;
                let mut quote = None;
                while at < bytes.len() {
                    let byte = bytes[at];
                    match quote {
                        Some(open) if byte == open => quote = None,
                        None if matches!(byte, b'\'' | b'"') => quote = Some(byte),
                        None if byte.is_ascii_whitespace()
                            || matches!(byte, b';' | b'|' | b'&') =>
                        {
                            break;
                        }
                        Some(_) | None => {}
                    }
                    at += 1;
                }
                let raw = start..at;
                let inner = unquoted(text, raw);
                words.push(Word {
                    text: &text[inner.clone()],
                    at: inner,
                    starts_command: std::mem::take(&mut new_command),
                });
            }
        }
    }
    words
}

/// `raw` without the quotes around it, if it is quoted whole.
fn unquoted(text: &str, raw: Range<usize>) -> Range<usize> {
    let word = &text.as_bytes()[raw.clone()];
    match (word.first(), word.last()) {
        (Some(&first @ (b'\'' | b'"')), Some(&last)) if word.len() >= 2 && first == last => {
            raw.start + 1..raw.end - 1
        }
        // An unclosed quote (a command cut short): what follows it.
        (Some(b'\'' | b'"'), _) if word.len() == 1 || !word[1..].contains(&word[0]) => {
            raw.start + 1..raw.end
        }
        _ => raw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<(&str, bool)> {
        words(text)
            .into_iter()
            .map(|word| (word.text, word.starts_command))
            .collect()
    }

    #[test]
    fn quotes_group_and_separators_start_commands() {
        assert_eq!(
            texts("curl -b 'a=1; sid=x' https://h && docker login -p \"p w\"\nls"),
            [
                ("curl", true),
                ("-b", false),
                ("a=1; sid=x", false),
                ("https://h", false),
                ("docker", true),
                ("login", false),
                ("-p", false),
                ("p w", false),
                ("ls", true),
            ]
        );
        assert_eq!(texts("pass:'x y'"), [("pass:'x y'", true)]);
        assert_eq!(texts("-p 'cut short"), [("-p", true), ("cut short", false)]);
        let text = "a  'b c'";
        let b = &words(text)[1];
        assert_eq!(&text[b.at.clone()], "b c");
    }
}
