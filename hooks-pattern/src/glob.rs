/// Whether `text` matches `glob`, where `*` stands for any run of characters
/// (including none and including `/`) and every other character stands for itself.
///
/// Runs in O(len(glob) × len(text)) at worst and allocates nothing.
///
/// ```
/// use hooks_pattern::glob_matches;
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

#[cfg(test)]
mod tests {
    use super::glob_matches;

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
}
