//! Words as bash hands them to a program, the parts of them only known at
//! run time, and globs matched over both.

use std::ops::Range;

use brush_parser::word::{self, BraceExpressionMember, BraceExpressionOrText};

use super::command::Word;

/// One word of a simple command after quote removal: its text, and the parts
/// of it that bash decides at run time (`$x`, `$(…)`, `*`), kept as written.
#[derive(Debug, Default, Clone)]
pub(super) struct ShellWord {
    text: String,
    runtime: Vec<Range<usize>>,
}

impl ShellWord {
    /// Text that reaches the program as it is.
    pub(super) fn push_literal(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// A part decided at run time, which may become any text (or several words).
    pub(super) fn push_runtime(&mut self, as_written: &str) {
        let start = self.text.len();
        self.text.push_str(as_written);
        self.runtime.push(start..self.text.len());
    }

    /// The parts of it decided at run time, as written.
    pub(super) fn runtime_parts(&self) -> impl Iterator<Item = &str> {
        self.runtime.iter().map(|part| &self.text[part.clone()])
    }

    /// Makes every occurrence of `needle` in literal text a run-time part
    /// (`{}`, which `find -exec` replaces with a file name); whether any was.
    pub(super) fn mark_runtime(&mut self, needle: &str) -> bool {
        let mut marked = false;
        let mut from = 0;
        while let Some(found) = self.text[from..].find(needle) {
            let start = from + found;
            let end = start + needle.len();
            if !self
                .runtime
                .iter()
                .any(|part| part.start < end && start < part.end)
            {
                self.runtime.push(start..end);
                marked = true;
            }
            from = end;
        }
        marked
    }

    /// Unquoted text: its pathname-glob characters (`*`, `?`, `[…]`) become
    /// file names at run time, when files match them.
    pub(super) fn push_unquoted(&mut self, text: &str) {
        let mut rest = text;
        while let Some(at) = rest.find(['*', '?', '[']) {
            self.push_literal(&rest[..at]);
            let end = match rest.as_bytes()[at] {
                // `[` alone (the `[` command) is no glob.
                b'[' => match rest[at + 1..].find(']') {
                    Some(close) => at + 1 + close + 1,
                    None => {
                        self.push_literal("[");
                        rest = &rest[at + 1..];
                        continue;
                    }
                },
                _ => at + 1,
            };
            self.push_runtime(&rest[at..end]);
            rest = &rest[end..];
        }
        self.push_literal(rest);
    }
}

impl Word for ShellWord {
    fn text(&self) -> &str {
        &self.text
    }

    fn is_literal(&self) -> bool {
        self.runtime.is_empty()
    }

    fn literal_len(&self) -> usize {
        self.runtime
            .iter()
            .map(|part| part.start)
            .min()
            .unwrap_or(self.text.len())
    }
}

/// One character of a command line as a glob sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Byte(u8),
    /// A run-time part: any text at all.
    Any,
}

/// The words of a simple command joined by single spaces, as a glob sees
/// them, and the places in it where the program that runs may start.
#[derive(Debug)]
pub(super) struct Line {
    tokens: Vec<Token>,
    starts: Vec<usize>,
}

impl Line {
    /// `words`, from which a command may start at each `(word, byte)` of `starts`.
    pub(super) fn new<'w>(
        words: impl IntoIterator<Item = &'w ShellWord>,
        starts: &[(usize, usize)],
    ) -> Self {
        let mut tokens = Vec::new();
        let mut at_token = Vec::with_capacity(starts.len());
        for (n, word) in words.into_iter().enumerate() {
            let mut wanted: Vec<usize> = starts
                .iter()
                .filter(|(w, _)| *w == n)
                .map(|&(_, byte)| byte)
                .collect();
            if word.text.is_empty() {
                // `''` and `{a,}` leave an empty word: nothing starts there.
                at_token.extend(wanted.drain(..).map(|_| tokens.len()));
                continue;
            }
            // A run-time part may be empty, so it stands for the spaces around it too.
            let runtime_first = word.runtime.first().is_some_and(|part| part.start == 0);
            if !runtime_first
                && !matches!(tokens.last(), None | Some(Token::Any | Token::Byte(b' ')))
            {
                tokens.push(Token::Byte(b' '));
            }
            let mut at = 0;
            while at < word.text.len() {
                let part = word.runtime.iter().find(|part| part.contains(&at));
                let next = part.map_or(at + 1, |part| part.end);
                wanted.retain(|&byte| {
                    let here = (at..next).contains(&byte);
                    if here {
                        at_token.push(tokens.len());
                    }
                    !here
                });
                let byte = word.text.as_bytes()[at];
                if part.is_some() {
                    if tokens.last() != Some(&Token::Any) {
                        tokens.push(Token::Any);
                    }
                } else if !byte.is_ascii_whitespace() {
                    tokens.push(Token::Byte(byte));
                } else if !matches!(tokens.last(), None | Some(Token::Byte(b' '))) {
                    tokens.push(Token::Byte(b' '));
                }
                at = next;
            }
            at_token.extend(wanted.iter().map(|_| tokens.len()));
        }
        if tokens.last() == Some(&Token::Byte(b' ')) {
            tokens.pop();
        }
        for at in &mut at_token {
            *at = (*at).min(tokens.len());
        }
        Line {
            tokens,
            starts: at_token,
        }
    }

    /// Whether some text this line can become at run time matches `glob` (`*`
    /// is any run of characters, one space between words) from one of its starts.
    pub(super) fn matches(&self, glob: &str) -> bool {
        if self.starts.is_empty() {
            return false;
        }
        // from[i][j]: glob[i..] and tokens[j..] can become the same text. Kept
        // one row of `i` at a time, from the end; row 0 answers every start at once.
        let (glob, line) = (glob.as_bytes(), &self.tokens);
        let mut below = vec![false; line.len() + 1];
        let mut row = vec![false; line.len() + 1];
        below[line.len()] = true;
        for j in (0..line.len()).rev() {
            below[j] = line[j] == Token::Any && below[j + 1];
        }
        for &g in glob.iter().rev() {
            for j in (0..=line.len()).rev() {
                row[j] = match (g, line.get(j)) {
                    // A star may stop, or take the other side's next character.
                    (b'*', Some(_)) => below[j] || row[j + 1],
                    (b'*', None) => below[j],
                    (_, Some(Token::Any)) => row[j + 1] || below[j],
                    (c, Some(&Token::Byte(b))) => c == b && below[j + 1],
                    (_, None) => false,
                };
            }
            std::mem::swap(&mut below, &mut row);
        }
        self.starts.iter().any(|&start| below[start])
    }
}

impl Line {
    /// `words` as one command, from its first word, for [`always_matches`](Self::always_matches).
    ///
    /// A word that is all run-time parts may expand to nothing, taking one
    /// space with it, so it is one run-time part with the space before it
    /// (after it, at the start). Any other word is there, spaces around it.
    pub(super) fn whole<'w>(words: impl IntoIterator<Item = &'w ShellWord>) -> Self {
        let mut tokens = Vec::new();
        let push = |tokens: &mut Vec<Token>, token: Token| {
            let repeated = match token {
                Token::Any => tokens.last() == Some(&Token::Any),
                Token::Byte(b' ') => {
                    matches!(tokens.last(), None | Some(Token::Byte(b' ')))
                }
                Token::Byte(_) => false,
            };
            if !repeated {
                tokens.push(token);
            }
        };
        for word in words {
            if word.text.is_empty() {
                continue;
            }
            let vanishes = word
                .runtime
                .iter()
                .map(ExactSizeIterator::len)
                .sum::<usize>()
                == word.text.len();
            if vanishes {
                if tokens.last() == Some(&Token::Byte(b' ')) {
                    tokens.pop();
                }
                push(&mut tokens, Token::Any);
                continue;
            }
            // At the start, a run-time part stands for the space after it.
            if !tokens.is_empty() && tokens[..] != [Token::Any] {
                push(&mut tokens, Token::Byte(b' '));
            }
            let mut at = 0;
            while at < word.text.len() {
                if let Some(part) = word.runtime.iter().find(|part| part.contains(&at)) {
                    push(&mut tokens, Token::Any);
                    at = part.end;
                    continue;
                }
                let byte = word.text.as_bytes()[at];
                let byte = if byte.is_ascii_whitespace() {
                    b' '
                } else {
                    byte
                };
                push(&mut tokens, Token::Byte(byte));
                at += 1;
            }
        }
        if tokens.last() == Some(&Token::Byte(b' ')) {
            tokens.pop();
        }
        Line {
            tokens,
            starts: vec![0],
        }
    }

    /// Whether `glob` matches every text this line can become at run time,
    /// from its first token: each run-time part must lie inside one of the
    /// glob's `*`, which is the only thing that matches any text.
    pub(super) fn always_matches(&self, glob: &str) -> bool {
        // from[i][j]: glob[i..] matches tokens[j..] whatever the run-time
        // parts become. Kept one row of `i` at a time, from the end.
        let (glob, line) = (glob.as_bytes(), &self.tokens);
        let mut below = vec![false; line.len() + 1];
        let mut row = vec![false; line.len() + 1];
        below[line.len()] = true;
        for &g in glob.iter().rev() {
            for j in (0..=line.len()).rev() {
                row[j] = match (g, line.get(j)) {
                    (b'*', Some(_)) => below[j] || row[j + 1],
                    (b'*', None) => below[j],
                    (c, Some(&Token::Byte(b))) => c == b && below[j + 1],
                    (_, Some(Token::Any) | None) => false,
                };
            }
            std::mem::swap(&mut below, &mut row);
        }
        below[0]
    }
}

/// The words bash makes of `word` by brace expansion (`--{force,x}` is
/// `--force --x`), or `None` when they would be more than `limit`.
pub(super) fn expand_braces(word: &str, limit: usize) -> Option<Vec<String>> {
    if !word.contains('{') {
        return Some(vec![word.to_owned()]);
    }
    match word::parse_brace_expansions(word, &super::shell::options()) {
        Ok(Some(pieces)) => expand(&pieces, limit),
        Ok(None) => Some(vec![word.to_owned()]),
        Err(_) => None,
    }
}

fn expand(pieces: &[BraceExpressionOrText], limit: usize) -> Option<Vec<String>> {
    let mut words = vec![String::new()];
    for piece in pieces {
        match piece {
            BraceExpressionOrText::Text(text) => {
                for word in &mut words {
                    word.push_str(text);
                }
            }
            BraceExpressionOrText::Expr(members) => {
                let mut alternatives = Vec::new();
                for member in members {
                    alternatives.extend(expand_member(member, limit)?);
                    if alternatives.len() > limit {
                        return None;
                    }
                }
                if words.len().saturating_mul(alternatives.len()) > limit {
                    return None;
                }
                words = words
                    .iter()
                    .flat_map(|w| alternatives.iter().map(move |a| format!("{w}{a}")))
                    .collect();
            }
        }
    }
    Some(words)
}

fn expand_member(member: &BraceExpressionMember, limit: usize) -> Option<Vec<String>> {
    match *member {
        BraceExpressionMember::Child(ref pieces) => expand(pieces, limit),
        BraceExpressionMember::NumberSequence {
            start,
            end,
            increment,
        } => Some(
            sequence(start, end, increment, limit)?
                .map(|n| n.to_string())
                .collect(),
        ),
        BraceExpressionMember::CharSequence {
            start,
            end,
            increment,
        } => Some(
            sequence(
                u32::from(start).into(),
                u32::from(end).into(),
                increment,
                limit,
            )?
            .filter_map(|c| u32::try_from(c).ok().and_then(char::from_u32))
            .map(String::from)
            .collect(),
        ),
    }
}

/// `start` to `end` inclusive, by `increment` (its sign ignored, as bash does).
fn sequence(
    start: i64,
    end: i64,
    increment: i64,
    limit: usize,
) -> Option<impl Iterator<Item = i64>> {
    let step = increment.unsigned_abs().max(1);
    let count = start.abs_diff(end) / step + 1;
    if count > u64::try_from(limit).unwrap_or(u64::MAX) {
        return None;
    }
    let step = i64::try_from(step).ok()?;
    let step = if end < start { -step } else { step };
    Some((0..count.cast_signed()).map(move |n| start + n * step))
}

/// The text of `$'…'` (ANSI-C quoting), escapes decoded as bash decodes them.
pub(super) fn decode_ansi_c(quoted: &str) -> String {
    let mut out = String::with_capacity(quoted.len());
    let mut chars = quoted.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            out.push('\\');
            break;
        };
        let mut digits = |first: Option<char>, radix: u32, max: usize| {
            let mut value: u32 = 0;
            let mut count = 0;
            for digit in first
                .into_iter()
                .chain(std::iter::from_fn(|| chars.next_if(|c| c.is_digit(radix))))
            {
                value = value * radix + digit.to_digit(radix).unwrap_or(0);
                count += 1;
                if count == max {
                    break;
                }
            }
            (count > 0).then(|| char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER))
        };
        let decoded = match escape {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            '0'..='7' => digits(Some(escape), 8, 3),
            'x' => digits(None, 16, 2),
            'u' => digits(None, 16, 4),
            'U' => digits(None, 16, 8),
            'c' => chars
                .next()
                .map(|c| char::from(u8::try_from(u32::from(c) & 0x1f).unwrap_or(0))),
            _ => None,
        };
        match decoded {
            Some(c) => out.push(c),
            None => {
                out.push('\\');
                out.push(escape);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(text: &str) -> ShellWord {
        let mut word = ShellWord::default();
        word.push_literal(text);
        word
    }

    fn line(words: &[ShellWord]) -> Line {
        Line::new(words, &[(0, 0)])
    }

    fn runtime(text: &str) -> ShellWord {
        let mut word = ShellWord::default();
        word.push_runtime(text);
        word
    }

    #[test]
    fn literal_lines_match_like_globs() {
        let push = line(&[literal("git"), literal("push"), literal("--force")]);
        assert!(push.matches("git push --force*"));
        assert!(push.matches("git push*"));
        assert!(push.matches("*force"));
        assert!(!push.matches("git push"));
        assert!(!push.matches("git pull*"));
        assert!(line(&[literal("git  \n push")]).matches("git push"));
        assert!(line(&[literal("git"), literal(""), literal("push")]).matches("git push"));
        let path = [literal("/usr/bin/git"), literal("push")];
        assert!(Line::new(&path, &[(0, 9)]).matches("git push"));
        assert!(!Line::new(&path, &[(0, 0)]).matches("git push"));
        assert!(Line::new(&path, &[(1, 0)]).matches("push"));
        assert!(!Line::new(&path, &[]).matches("*"));
    }

    #[test]
    fn run_time_parts_always_match_only_inside_a_star() {
        let whole = |words: &[ShellWord]| Line::whole(words);
        let push = whole(&[literal("git"), literal("push"), runtime("$FLAGS")]);
        assert!(push.always_matches("git push*"));
        assert!(push.always_matches("git*"));
        assert!(push.always_matches("*"));
        // `$FLAGS` may be empty, and `git push` is not `git push *`.
        assert!(!push.always_matches("git push *"));
        assert!(!push.always_matches("git push --force*"));
        let named = whole(&[runtime("$GIT"), literal("status")]);
        assert!(!named.always_matches("git status"));
        assert!(named.always_matches("*status"));
        assert!(!named.always_matches("* status"));
        // A word with literal text is always there, spaces around it.
        let mut partial = literal("--x=");
        partial.push_runtime("$v");
        let option = whole(&[literal("ls"), partial, literal("-l")]);
        assert!(option.always_matches("ls --x=* -l"));
        assert!(option.always_matches("ls *"));
        assert!(option.always_matches("ls --x=*-l"));
        assert!(!option.always_matches("ls --x=* -la"));
        let middle = whole(&[literal("ls"), runtime("$x"), literal("-l")]);
        assert!(middle.always_matches("ls* -l"));
        assert!(!middle.always_matches("ls * -l"));
        let plain = whole(&[literal("ls"), literal(""), literal("-la  x")]);
        assert!(plain.always_matches("ls -la x"));
        assert!(plain.always_matches("ls*"));
        assert!(!plain.always_matches("ls"));
        assert!(!plain.always_matches("ls -la x *"));
    }

    #[test]
    fn unquoted_globs_are_run_time_parts() {
        let mut word = ShellWord::default();
        word.push_unquoted("--fo[rR]c?");
        assert!(!word.is_literal());
        assert_eq!(word.text(), "--fo[rR]c?");
        assert!(line(&[word]).matches("--force"));
        let mut test = ShellWord::default();
        test.push_unquoted("[");
        assert!(test.is_literal());
    }

    #[test]
    fn braces_expand_as_bash_expands_them() {
        assert_eq!(
            expand_braces("--{force,x}", 10).unwrap(),
            ["--force", "--x"]
        );
        assert_eq!(
            expand_braces("--fo{r,}ce", 10).unwrap(),
            ["--force", "--foce"]
        );
        assert_eq!(expand_braces("{1..3}", 10).unwrap(), ["1", "2", "3"]);
        assert_eq!(expand_braces("{3..1..2}", 10).unwrap(), ["3", "1"]);
        assert_eq!(expand_braces("{a..c}", 10).unwrap(), ["a", "b", "c"]);
        assert_eq!(expand_braces("'{a,b}'", 10).unwrap(), ["'{a,b}'"]);
        assert_eq!(expand_braces("{a,b}{c,d}", 10).unwrap().len(), 4);
        assert_eq!(expand_braces("{1..100000}", 256), None);
        assert_eq!(expand_braces(&"{a,b}".repeat(20), 256), None);
    }

    #[test]
    fn ansi_c_escapes_decode() {
        assert_eq!(decode_ansi_c("--for\\x63e"), "--force");
        assert_eq!(decode_ansi_c("\\055-force"), "--force");
        assert_eq!(decode_ansi_c("a\\nb\\t\\'\\\\"), "a\nb\t'\\");
        assert_eq!(decode_ansi_c("\\u00e9\\U0001F600"), "é😀");
        assert_eq!(decode_ansi_c("\\q\\x"), "\\q\\x");
        assert_eq!(decode_ansi_c("\\cA"), "\x01");
        assert_eq!(decode_ansi_c("end\\"), "end\\");
    }
}
