use std::fmt;
use std::ops::Range;

use super::{Alternative, NameGlob};

/// Why a pattern was refused, and where in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    message: String,
    at: Range<usize>,
}

impl PatternError {
    /// An error about `at`: for a user of the grammar that refuses more than
    /// the grammar does (hooks-core without its `shell` feature refuses subjects).
    pub fn new(message: impl Into<String>, at: Range<usize>) -> Self {
        PatternError {
            message: message.into(),
            at,
        }
    }

    /// The byte range of the pattern the error is about.
    pub fn at(&self) -> Range<usize> {
        self.at.clone()
    }

    /// The message, lowercase and without the pattern's location.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PatternError {}

/// Parses a pattern into its alternatives.
///
/// ```
/// use hooks_events::pattern::{parse, Alternative, NameGlob};
/// assert_eq!(
///     parse("sql_*").unwrap(),
///     vec![Alternative { tool: NameGlob::Prefix("sql_".to_owned()), subject: None }],
/// );
/// assert_eq!(
///     parse("^sql_").unwrap_err().to_string(),
///     "`^` cannot appear in a tool name: patterns are globs (`sql_*`, `*_write`, `read|write`), \
///      not regular expressions",
/// );
/// ```
pub fn parse(pattern: &str) -> Result<Vec<Alternative<String>>, PatternError> {
    if pattern.trim().is_empty() {
        return Err(PatternError::new(
            "the pattern is empty: use \"*\" to match every tool",
            0..pattern.len(),
        ));
    }
    split_alternatives(pattern)?
        .into_iter()
        .map(|range| parse_alternative(pattern, range))
        .collect()
}

/// Splits at every `|` outside parentheses: inside a subject, `|` is a
/// literal character (shell pipelines are common subjects).
fn split_alternatives(pattern: &str) -> Result<Vec<Range<usize>>, PatternError> {
    let mut alternatives = Vec::new();
    let mut start = 0;
    let mut open: Option<usize> = None;
    for (i, c) in pattern.char_indices() {
        match c {
            '(' if open.is_none() => open = Some(i),
            '(' => {
                return Err(PatternError::new(
                    "`(` cannot appear inside a subject pattern",
                    i..i + 1,
                ));
            }
            ')' if open.is_some() => open = None,
            ')' => return Err(PatternError::new("unmatched `)`", i..i + 1)),
            '|' if open.is_none() => {
                alternatives.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    if let Some(open) = open {
        return Err(PatternError::new(
            format!(
                "missing `)`: the subject opened here is never closed, as in `{})`",
                pattern[..].trim_end()
            ),
            open..pattern.len(),
        ));
    }
    alternatives.push(start..pattern.len());
    Ok(alternatives)
}

fn parse_alternative(
    pattern: &str,
    range: Range<usize>,
) -> Result<Alternative<String>, PatternError> {
    let text = &pattern[range.clone()];
    let leading = text.len() - text.trim_start().len();
    let text = text.trim();
    let start = range.start + leading;
    if text.is_empty() {
        return Err(PatternError::new(
            "empty alternative: remove the extra `|`",
            range,
        ));
    }
    let (tool, subject) = match text.find('(') {
        None => (text, None),
        Some(open) => {
            // split_alternatives guarantees the matching `)` exists.
            let close = open + text[open..].find(')').unwrap_or(text.len() - open);
            if close + 1 != text.len() {
                let after = start + close + 1;
                return Err(PatternError::new(
                    format!(
                        "unexpected `{}` after `)`: a subject pattern ends its alternative",
                        text[close + 1..].trim()
                    ),
                    after..start + text.len(),
                ));
            }
            let subject = &text[open + 1..close];
            if subject.is_empty() {
                return Err(PatternError::new(
                    format!(
                        "empty subject in `{text}`: write a glob such as `{}(git push*)`, or drop the parentheses",
                        &text[..open]
                    ),
                    start + open..start + close + 1,
                ));
            }
            (&text[..open], Some(subject.to_owned()))
        }
    };
    let tool = parse_name_glob(tool, start)?;
    Ok(Alternative { tool, subject })
}

fn parse_name_glob(glob: &str, start: usize) -> Result<NameGlob<String>, PatternError> {
    let whole = start..start + glob.len();
    if glob.is_empty() {
        return Err(PatternError::new(
            "a subject needs a tool name before it, as in `Bash(git push*)`; use `*(...)` for any tool",
            whole,
        ));
    }
    if glob == "*" {
        return Ok(NameGlob::Any);
    }
    if glob.contains("**") {
        return Err(PatternError::new(
            "`**` is not a pattern: a single `*` already matches any run of characters",
            whole,
        ));
    }
    let leading = glob.starts_with('*');
    let trailing = glob.ends_with('*');
    let name = &glob[usize::from(leading)..glob.len() - usize::from(trailing)];
    if let Some(offset) = name.find('*') {
        let at = start + usize::from(leading) + offset;
        return Err(PatternError::new(
            "`*` may only start or end a tool name, as in `sql_*` or `*_write`",
            at..at + 1,
        ));
    }
    if let Some((offset, c)) = name.char_indices().find(|&(_, c)| !is_name_char(c)) {
        let at = start + usize::from(leading) + offset;
        let hint = if c.is_whitespace() {
            "tool names have no spaces; to match a call's arguments, use the subject form `Tool(glob)`"
        } else {
            "patterns are globs (`sql_*`, `*_write`, `read|write`), not regular expressions"
        };
        return Err(PatternError::new(
            format!("`{c}` cannot appear in a tool name: {hint}"),
            at..at + c.len_utf8(),
        ));
    }
    let name = name.to_owned();
    Ok(match (leading, trailing) {
        (false, false) => NameGlob::Exact(name),
        (false, true) => NameGlob::Prefix(name),
        (true, false) => NameGlob::Suffix(name),
        (true, true) => NameGlob::Contains(name),
    })
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(pattern: &str) -> NameGlob<String> {
        let mut alternatives = parse(pattern).unwrap();
        assert_eq!(alternatives.len(), 1, "{pattern}");
        alternatives.remove(0).tool
    }

    fn error(pattern: &str) -> (String, &str) {
        let err = parse(pattern).unwrap_err();
        (err.to_string(), &pattern[err.at()])
    }

    #[test]
    fn every_name_form_parses() {
        assert_eq!(tool("*"), NameGlob::Any);
        assert_eq!(tool("sql_query"), NameGlob::Exact("sql_query".into()));
        assert_eq!(tool("sql_*"), NameGlob::Prefix("sql_".into()));
        assert_eq!(tool("*_write"), NameGlob::Suffix("_write".into()));
        assert_eq!(tool("*secret*"), NameGlob::Contains("secret".into()));
        assert_eq!(
            tool("mcp__github__create_issue"),
            NameGlob::Exact("mcp__github__create_issue".into())
        );
        assert_eq!(tool("fs.read:v2"), NameGlob::Exact("fs.read:v2".into()));
    }

    #[test]
    fn alternatives_split_outside_parentheses_only() {
        let alternatives = parse("read_file | write_file|Bash(cat x | grep y)").unwrap();
        assert_eq!(alternatives.len(), 3);
        assert_eq!(alternatives[1].tool, NameGlob::Exact("write_file".into()));
        assert_eq!(alternatives[2].subject.as_deref(), Some("cat x | grep y"));
    }

    #[test]
    fn subject_forms_parse() {
        let alternative = parse("Bash(git push*)").unwrap().remove(0);
        assert_eq!(alternative.tool, NameGlob::Exact("Bash".into()));
        assert_eq!(alternative.subject.as_deref(), Some("git push*"));
        assert!(alternative.matches("Bash", Some("git push origin main")));
        assert!(!alternative.matches("Bash", Some("git pull")));
        assert!(!alternative.matches("Bash", None));
        assert!(alternative.may_match_tool("Bash"));
        let any_tool = parse("*(*.env)").unwrap().remove(0);
        assert!(any_tool.matches("Read", Some("app/.env")));
    }

    #[test]
    fn refusals_say_why_and_point_at_the_culprit() {
        assert_eq!(error("sql_*x*y").1, "*");
        assert_eq!(error("^sql_").1, "^");
        assert!(error("sql_.+").0.contains("not regular expressions"));
        assert_eq!(
            error("sql_?").0.split(':').next(),
            Some("`?` cannot appear in a tool name")
        );
        assert_eq!(error("sql_?").1, "?");
        assert!(error("read file").0.contains("no spaces"));
        assert_eq!(error("a*b").1, "*");
        assert!(error("**").0.contains("`**` is not a pattern"));
        assert!(error("a||b").0.starts_with("empty alternative"));
        assert!(error("a|").0.starts_with("empty alternative"));
        assert!(error("").0.starts_with("the pattern is empty"));
        assert!(error("   ").0.starts_with("the pattern is empty"));
        assert_eq!(error("Bash(git push*").1, "(git push*");
        assert!(error("Bash(git push*").0.starts_with("missing `)`"));
        assert_eq!(error("Bash()").1, "()");
        assert!(error("Bash(ls)x").0.starts_with("unexpected `x` after `)`"));
        assert!(error("Bash(a(b))").0.contains("`(` cannot appear"));
        assert_eq!(error("Bash)").0, "unmatched `)`");
        assert!(error("(ls)").0.contains("needs a tool name"));
    }
}
