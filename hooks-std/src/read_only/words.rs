//! Tool names read as words: the last resort when nothing declares what a
//! tool does. `git_status`, `gitStatus`, `git-status` and
//! `mcp__repo-reader__git_status` are the words `git` and `status`: a name is
//! split on `_ - . / :` and spaces and at case changes, its namespace (what
//! comes before the last `__`) left out, and words compare whole, ignoring
//! case. `reply_to_thread` holds no `read`; `forget_memory` holds no `get`.

/// The part of a tool's name after its namespace: `git_add` of
/// `repo-reader__git_add` (a gateway's upstream) or of `mcp__git__git_add`
/// (Claude Code's MCP tools). A server's name says nothing of its tools.
pub(crate) fn own_name(tool: &str) -> &str {
    tool.rfind("__").map_or(tool, |at| &tool[at + 2..])
}

/// The words of `name`, in order, without allocating.
pub(crate) fn words(name: &str) -> impl Iterator<Item = &str> {
    let bytes = name.as_bytes();
    let mut start = 0;
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let here = at;
            at += 1;
            if is_separator(bytes[here]) {
                let word = &name[start..here];
                start = at;
                if !word.is_empty() {
                    return Some(word);
                }
                continue;
            }
            if here > start && starts_word(bytes, here) {
                let word = &name[start..here];
                start = here;
                return Some(word);
            }
        }
        if start < bytes.len() {
            let word = &name[start..];
            start = bytes.len();
            return Some(word);
        }
        None
    })
}

fn is_separator(byte: u8) -> bool {
    matches!(byte, b'_' | b'-' | b'.' | b'/' | b':' | b' ')
}

/// Whether a word starts at `at`: `aB` (camelCase), `ABc` (the `B` of
/// `HTTPServer`'s `Server`).
fn starts_word(bytes: &[u8], at: usize) -> bool {
    let (before, here) = (bytes[at - 1], bytes[at]);
    if !here.is_ascii_uppercase() {
        return false;
    }
    before.is_ascii_lowercase()
        || before.is_ascii_digit()
        || (before.is_ascii_uppercase() && bytes.get(at + 1).is_some_and(u8::is_ascii_lowercase))
}

/// The first word of `name` that is in `vocabulary` (lowercase words), as
/// written in the vocabulary.
pub(crate) fn find<'v>(name: &str, vocabulary: &'v [String]) -> Option<&'v str> {
    words(name).find_map(|word| {
        vocabulary
            .iter()
            .find(|known| known.eq_ignore_ascii_case(word))
            .map(String::as_str)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(name: &str) -> Vec<&str> {
        words(name).collect()
    }

    #[test]
    fn names_split_on_separators_and_case_changes() {
        assert_eq!(split("git_status"), ["git", "status"]);
        assert_eq!(split("gitStatus"), ["git", "Status"]);
        assert_eq!(split("GitStatus"), ["Git", "Status"]);
        assert_eq!(split("HTTPServerGet"), ["HTTP", "Server", "Get"]);
        assert_eq!(
            split("s3-list.objects/v2:all items"),
            ["s3", "list", "objects", "v2", "all", "items"]
        );
        assert_eq!(split("__a__"), ["a"]);
        assert_eq!(split("WRITE_FILE"), ["WRITE", "FILE"]);
        assert_eq!(split(""), Vec::<&str>::new());
        assert_eq!(split("get2Files"), ["get2", "Files"]);
    }

    #[test]
    fn words_are_whole() {
        let reads: Vec<String> = ["read", "get"].map(String::from).to_vec();
        assert_eq!(find("reply_to_thread", &reads), None);
        assert_eq!(find("forget_memory", &reads), None);
        assert_eq!(find("ReadFile", &reads), Some("read"));
        assert_eq!(find("GET_user", &reads), Some("get"));
    }

    #[test]
    fn the_namespace_is_left_out() {
        assert_eq!(own_name("repo-reader__git_add"), "git_add");
        assert_eq!(own_name("mcp__read_only_fs__write_file"), "write_file");
        assert_eq!(own_name("Read"), "Read");
    }
}
