/// Whether `text` matches `glob`, where `*` stands for any run of characters
/// (including none and including `/`) and every other character stands for itself.
///
/// Runs in O(len(glob) × len(text)) at worst and allocates nothing.
///
/// ```
/// use hooks_events::pattern::glob_matches;
/// assert!(glob_matches("git push*", "git push --force"));
/// assert!(glob_matches("*.env", "config/.env"));
/// assert!(!glob_matches("*.env", "config/.env.example"));
/// ```
pub fn glob_matches(glob: &str, text: &str) -> bool {
    // Byte-wise matching is exact for UTF-8: literal runs are whole
    // characters, and `*` may swallow any bytes in between.
    let glob = glob.as_bytes();
    let text = text.as_bytes();
    let (mut g, mut t) = (0, 0);
    // Where the last `*` was seen, and the text position it is currently swallowing up to.
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        match glob.get(g) {
            Some(b'*') => {
                backtrack = Some((g, t));
                g += 1;
            }
            Some(&c) if c == text[t] => {
                g += 1;
                t += 1;
            }
            _ => match backtrack {
                Some((star, swallowed)) => {
                    g = star + 1;
                    t = swallowed + 1;
                    backtrack = Some((star, swallowed + 1));
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|&c| c == b'*')
}

/// Whether `text` matches `glob` word by word: every run of whitespace in
/// `text` counts as one space, and whitespace at either end is ignored. `glob`
/// is taken as written, so pass it through [`collapse_whitespace`] first.
///
/// How the words of a shell command are compared: `git  push` is `git push`.
/// Allocates nothing.
///
/// ```
/// use hooks_events::pattern::glob_matches_words;
/// assert!(glob_matches_words("git push*", "  git \t push --force"));
/// assert!(!glob_matches_words("git push*", "git pull"));
/// ```
pub fn glob_matches_words(glob: &str, text: &str) -> bool {
    let glob = glob.as_bytes();
    let text = text.trim_ascii().as_bytes();
    // The text is read through a cursor that steps over a whole run of
    // whitespace at once and reads it as one space.
    let at = |t: usize| {
        if text[t].is_ascii_whitespace() {
            b' '
        } else {
            text[t]
        }
    };
    let step = |t: usize| {
        if text[t].is_ascii_whitespace() {
            t + text[t..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count()
        } else {
            t + 1
        }
    };
    let (mut g, mut t) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        match glob.get(g) {
            Some(b'*') => {
                backtrack = Some((g, t));
                g += 1;
            }
            Some(&c) if c == at(t) => {
                g += 1;
                t = step(t);
            }
            _ => match backtrack {
                Some((star, swallowed)) => {
                    let swallowed = step(swallowed);
                    g = star + 1;
                    t = swallowed;
                    backtrack = Some((star, swallowed));
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|&c| c == b'*')
}

/// `text` with every run of whitespace made one space and none at either end:
/// the form [`glob_matches_words`] expects its glob in.
///
/// ```
/// assert_eq!(hooks_events::pattern::collapse_whitespace(" git \t push  *"), "git push *");
/// ```
pub fn collapse_whitespace(text: &str) -> String {
    text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{collapse_whitespace, glob_matches, glob_matches_words};

    #[test]
    fn literal_globs_match_only_themselves() {
        assert!(glob_matches("ls", "ls"));
        assert!(!glob_matches("ls", "ls -la"));
        assert!(!glob_matches("ls -la", "ls"));
        assert!(glob_matches("", ""));
        assert!(!glob_matches("", "x"));
    }

    #[test]
    fn stars_match_any_run_including_empty() {
        assert!(glob_matches("*", ""));
        assert!(glob_matches("*", "anything at all"));
        assert!(glob_matches("rm -rf *", "rm -rf /"));
        assert!(glob_matches("rm -rf *", "rm -rf "));
        assert!(glob_matches("*/.env", "app/config/.env"));
        assert!(glob_matches("a*b*c", "aXXbYYc"));
        assert!(glob_matches("a*b*c", "abc"));
        assert!(!glob_matches("a*b*c", "aXXbYY"));
    }

    #[test]
    fn backtracking_finds_a_later_occurrence() {
        assert!(glob_matches("*ab", "aab"));
        assert!(glob_matches("*aab", "aaab"));
        assert!(glob_matches("a*ab*b", "aabab"));
        assert!(!glob_matches("*abc", "ababab"));
    }

    #[test]
    fn multibyte_text_is_matched_by_characters() {
        assert!(glob_matches("échec*", "échec et mat"));
        assert!(glob_matches("*→*", "a → b"));
        assert!(!glob_matches("é", "e"));
    }

    #[test]
    fn word_globs_read_any_run_of_whitespace_as_one_space() {
        assert!(glob_matches_words(
            "git push --force*",
            "git  push\t--force"
        ));
        assert!(glob_matches_words(
            "git push --force*",
            "\n git push --force \r\n"
        ));
        assert!(glob_matches_words("rm -rf *", "rm   -rf    /"));
        assert!(glob_matches_words("*push*", "git\n\npush"));
        assert!(glob_matches_words("a * b", "a   x   y   b"));
        assert!(glob_matches_words("*", ""));
        assert!(glob_matches_words("*", "   "));
        assert!(!glob_matches_words("git push", "gitpush"));
        assert!(!glob_matches_words("git push", "git push --force"));
        assert!(!glob_matches_words("", "x"));
    }

    #[test]
    fn word_globs_backtrack_over_collapsed_runs() {
        assert!(glob_matches_words("* b c", "a  b  b  c"));
        assert!(glob_matches_words("*ab", "a  aab"));
        assert!(!glob_matches_words("* c", "a  b  c d"));
        assert!(glob_matches_words("échec *", "échec   et mat"));
    }

    #[test]
    fn collapsing_keeps_one_space_between_words() {
        assert_eq!(collapse_whitespace("  a \t b\n\nc "), "a b c");
        assert_eq!(collapse_whitespace(""), "");
        assert_eq!(collapse_whitespace("rm -rf *"), "rm -rf *");
    }
}
