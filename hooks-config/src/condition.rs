//! `condition`: which tool calls a declared hook runs on, with paths read as
//! paths. It holds alongside `matches` (both must), and differs from it on
//! file paths only:
//!
//! - A `file_path` or `path` subject is normalised first, without touching
//!   the disk: `.` and empty segments dropped, `..` taken back, and an
//!   absolute path under the event's `cwd` made relative to it. So
//!   `./src//a.ts`, `lib/../src/a.ts` and `$PWD/src/a.ts` are all `src/a.ts`,
//!   and `src/../../etc/x.ts` is `../etc/x.ts`, outside `src/`.
//! - The glob is matched segment by segment: `*` is any run of characters
//!   within one segment, `**` any number of whole segments. A glob starting
//!   with `/` is matched against the absolute path; one without `/` against
//!   the file name, at any depth (`*.env`); any other against the path
//!   relative to `cwd`, which a path outside `cwd` never matches.
//!
//! A `command` subject is read as bash and a `url` matched as written, exactly
//! as `matches` does. Symbolic links are not followed: a guard for a directory
//! that links may point into should deny by default rather than rely on the
//! path's spelling.

use std::path::{Component, Path, PathBuf};

use hooks_core::{Matcher, ToolCall, Value};

/// A checked `condition`.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    alternatives: Vec<Alternative>,
}

#[derive(Debug, Clone)]
struct Alternative {
    /// The alternative alone, for the tool's name and non-path subjects.
    whole: Matcher,
    /// Its tool-name part.
    tool: Matcher,
    /// The glob in `Tool(glob)`, for path subjects.
    glob: Option<String>,
}

/// The arguments read as paths.
const PATH_KEYS: [&str; 2] = ["file_path", "path"];

impl Condition {
    /// Parses `source`, a `matches`-style pattern.
    pub(crate) fn parse(source: &str) -> Result<Self, String> {
        Matcher::parse(source).map_err(|error| error.to_string())?;
        let alternatives = split_alternatives(source)
            .into_iter()
            .map(|alternative| {
                let alternative = alternative.trim();
                let (tool, glob) = match alternative.split_once('(') {
                    Some((tool, rest)) => (tool, rest.strip_suffix(')').map(str::to_owned)),
                    None => (alternative, None),
                };
                let matcher = |text: &str| Matcher::parse(text).map_err(|error| error.to_string());
                Ok(Alternative {
                    whole: matcher(alternative)?,
                    tool: matcher(tool.trim())?,
                    glob,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Condition { alternatives })
    }

    /// Whether the call in `event` (the hook's input JSON) is one the hook runs on.
    pub(crate) fn holds(&self, event: &Value) -> bool {
        let tool = event
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let empty = Value::Object(serde_json::Map::new());
        let args = event.get("tool_input").unwrap_or(&empty);
        let cwd = event.get("cwd").and_then(Value::as_str).unwrap_or_default();
        let call = ToolCall::new(tool, args);
        let path = subject_path(args);
        self.alternatives
            .iter()
            .any(|alternative| match (&alternative.glob, path) {
                (Some(glob), Some(path)) => {
                    alternative.tool.matches(call) && path_matches(glob, path, Path::new(cwd))
                }
                _ => alternative.whole.matches(call),
            })
    }
}

/// The call's subject, when it is a path (the first subject key that is a string).
fn subject_path(args: &Value) -> Option<&str> {
    let key = ToolCall::SUBJECT_KEYS
        .iter()
        .find(|key| args.get(**key).is_some_and(Value::is_string))?;
    PATH_KEYS
        .contains(key)
        .then(|| args.get(*key).and_then(Value::as_str))
        .flatten()
}

/// `|`-separated alternatives, not splitting inside a subject's parentheses.
fn split_alternatives(source: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (at, c) in source.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '|' if depth == 0 => {
                parts.push(&source[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&source[start..]);
    parts
}

/// `path` without `.`, empty segments or `..` that can be taken back; `..`
/// above its start is kept, so it can never look like a path inside.
fn normalise(path: &Path) -> PathBuf {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(Component::Normal(_)) => {
                    parts.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => parts.push(component),
            },
            other => parts.push(other),
        }
    }
    parts.iter().collect()
}

/// Whether `path` matches `glob` (see the module's documentation).
fn path_matches(glob: &str, path: &str, cwd: &Path) -> bool {
    let path = Path::new(path);
    let absolute = normalise(&if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    });
    let glob_segments: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let segments = |path: &Path| -> Vec<String> {
        path.components()
            .filter_map(|component| match component {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                Component::ParentDir => Some("..".to_owned()),
                _ => None,
            })
            .collect()
    };
    if glob.starts_with('/') {
        return segments_match(&glob_segments, &segments(&absolute));
    }
    if !glob.contains('/') {
        return absolute
            .file_name()
            .is_some_and(|name| segment_matches(glob, &name.to_string_lossy()));
    }
    let relative = if path.is_absolute() || cwd.is_absolute() {
        match absolute.strip_prefix(normalise(cwd)) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => return false,
        }
    } else {
        normalise(path)
    };
    let relative = segments(&relative);
    relative.first().is_none_or(|first| first != "..") && segments_match(&glob_segments, &relative)
}

fn segments_match(glob: &[&str], path: &[String]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments_match(rest, &path[skip..])),
        Some((first, rest)) => path
            .split_first()
            .is_some_and(|(head, tail)| segment_matches(first, head) && segments_match(rest, tail)),
    }
}

/// One segment against a glob where `*` is any run of characters.
fn segment_matches(glob: &str, text: &str) -> bool {
    let mut pieces = glob.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{normalise, path_matches, segment_matches};

    #[test]
    fn paths_are_normalised_without_the_disk() {
        assert_eq!(
            normalise(Path::new("./src//a/../b.ts")),
            Path::new("src/b.ts")
        );
        assert_eq!(
            normalise(Path::new("src/../../etc/x")),
            Path::new("../etc/x")
        );
        assert_eq!(normalise(Path::new("/a/../../etc")), Path::new("/etc"));
    }

    #[test]
    fn globs_match_segments() {
        let cwd = Path::new("/work/project");
        let matches = |glob: &str, path: &str| path_matches(glob, path, cwd);
        assert!(matches("src/**/*.ts", "src/a.ts"));
        assert!(matches("src/**/*.ts", "src/a/b.ts"));
        assert!(matches("src/**/*.ts", "/work/project/src/a/b.ts"));
        assert!(matches("src/**/*.ts", "lib/../src/x.ts"));
        assert!(!matches("src/**/*.ts", "src/a.js"));
        assert!(!matches("src/**/*.ts", "src/../../etc/passwd.ts"));
        assert!(!matches("src/**/*.ts", "/work/project/../src/x.ts"));
        assert!(!matches("src/**/*.ts", "/elsewhere/src/x.ts"));
        assert!(
            !matches("src/*.ts", "src/a/b.ts"),
            "`*` stays in its segment"
        );
        assert!(matches(
            "*.env",
            "config/deep/.env".replace(".env", "prod.env").as_str()
        ));
        assert!(matches("/etc/**", "../../../etc/passwd"));
        assert!(!matches("/etc/**", "/work/project/etc/passwd"));
        assert!(segment_matches("a*b*c", "aXbYc"));
        assert!(!segment_matches("a*a", "a"));
    }
}
