use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

pub use hooks_events::pattern::PatternError;
#[cfg(feature = "shell")]
use hooks_events::pattern::collapse_whitespace;
use hooks_events::pattern::{NameGlob, glob_matches};

use serde_json::Value;

// The shell reader: a `command` subject read as bash reads it.
#[cfg(feature = "shell")]
mod allow;
#[cfg(feature = "shell")]
mod command;
#[cfg(feature = "shell")]
mod hidden;
#[cfg(feature = "shell")]
mod options;
#[cfg(feature = "shell")]
mod shell;
#[cfg(feature = "shell")]
mod word;
#[cfg(feature = "shell")]
mod wrapper;

#[cfg(feature = "shell")]
pub use allow::{NotAllowed, ShellAllowList};

/// Which tool calls a hook applies to, from a `matches = "..."` pattern.
///
/// Patterns: exact `sql_query`, prefix `sql_*`, suffix `*_write`, infix
/// `*secret*`, any `*`, alternatives `read_file|write_file`, and the
/// permission-rule form `Bash(git push*)`, which also matches the call's
/// subject (its `command`, `file_path`, `path` or `url` argument) against a
/// glob where `*` is any run of characters.
///
/// Attribute hooks have their pattern checked while the macro expands (a bad
/// one is a compile error on the string) and compiled once per dispatcher;
/// hooks added at run time parse it here.
///
/// Subject patterns need the **`shell` feature**, which reads a `command`
/// subject as bash (below). Without it, a subject pattern is refused: a
/// compile error on an attribute hook's `matches`, an error from
/// [`Matcher::parse`] (a [`BuildProblem`](crate::BuildProblem) for a hook
/// added at run time), never a pattern that reads commands as plain text.
///
/// ```
/// use hooks_core::{Matcher, ToolCall, json};
///
/// let matcher = Matcher::parse("Bash(rm -rf *)|*_write").unwrap();
/// assert!(matcher.matches(ToolCall::new("Bash", &json!({"command": "rm -rf /"}))));
/// assert!(matcher.matches(ToolCall::new("file_write", &json!({}))));
/// assert!(!matcher.matches(ToolCall::new("Bash", &json!({"command": "ls"}))));
/// assert!(Matcher::parse("^sql_.+").is_err()); // globs, not regular expressions
/// ```
///
/// # Shell commands
///
/// A subject found under the `command` key is read as a bash command, and the
/// glob matches if it matches **any simple command** bash would run — or the
/// command as written:
///
/// ```
/// use hooks_core::{Matcher, ToolCall, json};
///
/// let push = Matcher::parse("Bash(git push --force*)").unwrap();
/// let matches = |command: &str| push.matches(ToolCall::new("Bash", &json!({"command": command})));
/// assert!(matches("cd repo && git  push --force"));        // `;` `&&` `||` `|` `&`, newlines
/// assert!(matches("echo $(sudo 'git' push --force)"));     // `$(…)`, quotes, wrappers
/// assert!(matches("bash -c 'true; git push --force'"));    // scripts handed to a shell
/// assert!(matches("git push $FLAGS"));                     // run-time parts may be anything
/// assert!(matches("echo push | xargs git"));               // so may what `xargs` adds
/// assert!(matches("x='a[$(id)]'; echo $((x))"));           // text bash runs unseen: anything
/// assert!(matches("echo 'unclosed"));                      // not bash: fails closed
/// assert!(!matches("echo 'git push --force'"));            // an argument, not a command
/// assert!(!matches("git push -f"));                        // words, not meaning
/// ```
///
/// - **Simple commands** are found everywhere bash has them: lists (`;`, `&&`,
///   `||`, `&`, newlines), pipelines, subshells and `{ …; }` groups,
///   `if`/`while`/`until`/`for`/`case` and function bodies, `$(…)` and
///   backquotes, `<(…)` and `>(…)`, arithmetic, `[[ … ]]`, unquoted
///   here-documents, and scripts handed to a shell: `sh`/`bash`/`zsh`/… `-c`,
///   `eval`, `su`/`script`/`flock` `-c`, `env -S`, `watch`, `trap` and `alias`
///   values, read recursively up to 8 scripts deep.
/// - **Words** are compared as bash passes them to the program: quotes and
///   backslashes removed, `$'…'` decoded, braces expanded (`--{force,}`), one
///   space between words however many were written, leading `NAME=value`
///   assignments dropped, and a program named by a path also tried by its last
///   component (`/usr/bin/git` as `git`) and, if it has capitals, in lowercase
///   (`GIT` is git where file names ignore case).
/// - **Wrappers** that run the rest of their words as a command (`env`,
///   `command`, `builtin`, `exec`, `nohup`, `nice`, `ionice`, `time`, `timeout`,
///   `sudo`, `doas`, `xargs`, `find`, `parallel`, `watch`, `stdbuf`, `setsid`,
///   `chroot`, `flock`, `taskset`, `chrt`, `unbuffer`, `busybox`, `toybox`) are
///   seen through: the glob is tried at every word after them, whatever their
///   options.
/// - **Run-time parts may be anything**: a parameter (`$FLAGS`, `${x}`), a
///   command substitution or arithmetic in a word, a pathname glob (`--forc?`),
///   and the arguments `xargs` reads and `find -exec` puts for `{}` match
///   whatever the glob needs there. So `$GIT push --force`,
///   `git push "$REMOTE"` and `echo --force | xargs git push` match
///   `git push --force*`.
/// - **What bash runs unseen fails closed**: a command that does not parse as
///   bash, nests deeper than the limits, hands a shell a script it cannot read
///   (`… | sh`, `bash < x`, `bash "$f"`, `sudo -s`), or makes bash run text no
///   command shows — `source`, arithmetic on a variable (`$((x))`,
///   `[[ $x -eq 1 ]]`, `${a[$i]}`, `declare -i`), `${x@P}`, `${!x}`, `PS4`,
///   `BASH_ENV`, `BASH_FUNC_f%%`, `BASH_ALIASES`, `hash -p`, `mapfile -C`,
///   `compgen -C`, history expansion, `parallel` — matches every subject glob,
///   so a guard runs and can deny it.
///
/// Not seen: what programs do with their arguments (`git -C x push`, aliases,
/// `make`, `python -c`, `ssh host …`), script files (`bash x.sh`), what an earlier
/// call wrote, and options spelled another way (`-f` for `--force`). Patterns
/// match words, not meaning: a guard that must hold denies by default, or reads
/// the options itself. To let commands through, use a `ShellAllowList`,
/// which refuses whatever this matches as "anything".
///
/// Other subjects (`file_path`, `path`, `url`) are matched as written.
///
/// Cost: a command of plain words (no quotes, `$`, operators, globs, braces or
/// capitals in a program's name; at most 32 words) is matched where it lies,
/// without allocating; any other command is parsed, with
/// [brush-parser](https://docs.rs/brush-parser), once per call, which allocates.
#[derive(Clone)]
pub struct Matcher {
    source: Cow<'static, str>,
    alternatives: Arc<[Alternative]>,
}

/// One `|`-separated alternative, compiled.
#[derive(Debug)]
struct Alternative {
    tool: NameGlob<Box<str>>,
    subject: Option<SubjectGlob>,
}

/// A subject glob, in both the forms it is matched in.
#[derive(Debug)]
struct SubjectGlob {
    /// As written: for paths and URLs.
    written: Box<str>,
    /// One space between words: for shell commands.
    #[cfg(feature = "shell")]
    words: Box<str>,
}

impl Matcher {
    /// Parses a pattern.
    pub fn parse(pattern: &str) -> Result<Self, PatternError> {
        Self::compile(Cow::Owned(pattern.to_owned()))
    }

    /// Parses a pattern that lives for the whole program.
    pub(crate) fn parse_static(pattern: &'static str) -> Result<Self, PatternError> {
        Self::compile(Cow::Borrowed(pattern))
    }

    fn compile(source: Cow<'static, str>) -> Result<Self, PatternError> {
        let alternatives = hooks_events::pattern::parse(&source)?;
        #[cfg(not(feature = "shell"))]
        if alternatives
            .iter()
            .any(|alternative| alternative.subject.is_some())
        {
            return Err(needs_shell(&source));
        }
        let alternatives = alternatives
            .into_iter()
            .map(|alternative| Alternative {
                tool: alternative.tool.map(String::into_boxed_str),
                subject: alternative.subject.map(|glob| SubjectGlob {
                    #[cfg(feature = "shell")]
                    words: collapse_whitespace(&glob).into_boxed_str(),
                    written: glob.into_boxed_str(),
                }),
            })
            .collect();
        Ok(Matcher {
            source,
            alternatives,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the call is matched.
    pub fn matches(&self, call: ToolCall<'_>) -> bool {
        any_matches(&self.alternatives, call)
    }

    /// Whether some call of `tool` may be matched (the subject is not known yet).
    pub fn may_match_tool(&self, tool: &str) -> bool {
        self.relevance(tool) != Relevance::Never
    }

    /// How calls of `tool` relate to this matcher, known from the name alone.
    pub(crate) fn relevance(&self, tool: &str) -> Relevance {
        let mut relevance = Relevance::Never;
        for alternative in self.alternatives.iter() {
            if alternative.tool.matches(tool) {
                if alternative.subject.is_none() {
                    return Relevance::Always;
                }
                relevance = Relevance::PerCall;
            }
        }
        relevance
    }
}

/// Why a subject pattern is refused without the shell reader: a `command`
/// subject matched as plain text would miss `cd x && git push`.
#[cfg(not(feature = "shell"))]
fn needs_shell(pattern: &str) -> PatternError {
    // The first alternative with a subject: no `(` comes before its own.
    let open = pattern.find('(').unwrap_or(0);
    let close = pattern[open..]
        .find(')')
        .map_or(pattern.len(), |at| open + at + 1);
    let start = pattern[..open].rfind('|').map_or(0, |bar| bar + 1);
    let start = start + (pattern[start..open].len() - pattern[start..open].trim_start().len());
    PatternError::new(crate::__private::NEEDS_SHELL, start..close)
}

/// What a tool's name alone says about a matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relevance {
    /// No call of the tool is matched.
    Never,
    /// Every call of the tool is matched.
    Always,
    /// Some calls are, depending on their subject.
    PerCall,
}

fn any_matches(alternatives: &[Alternative], call: ToolCall<'_>) -> bool {
    // The subject is looked up at most once, and a command parsed at most
    // once, however many alternatives need them.
    let mut subject = None;
    #[cfg(feature = "shell")]
    let mut command = shell::Command::default();
    alternatives.iter().any(|alternative| {
        if !alternative.tool.matches(call.tool()) {
            return false;
        }
        let Some(glob) = &alternative.subject else {
            return true;
        };
        match *subject.get_or_insert_with(|| call.keyed_subject()) {
            None => false,
            // Reading the shell only adds matches to the plain glob's.
            #[cfg(feature = "shell")]
            Some((ToolCall::COMMAND_KEY, text)) => {
                glob_matches(&glob.written, text) || command.matches(&glob.words, text)
            }
            Some((_, text)) => glob_matches(&glob.written, text),
        }
    })
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Matcher").field(&self.as_str()).finish()
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

/// A tool call as matchers see it: the tool's name and its arguments.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    tool: &'a str,
    args: &'a Value,
    call_id: Option<&'a str>,
}

impl<'a> ToolCall<'a> {
    /// The arguments that may be a call's subject, in the order they are looked
    /// for. A `command` subject is read as a bash command by [`Matcher`]; the
    /// others are matched as written.
    pub const SUBJECT_KEYS: [&'static str; 4] = [Self::COMMAND_KEY, "file_path", "path", "url"];

    /// The argument whose subject is a shell command, read as bash by [`Matcher`].
    const COMMAND_KEY: &'static str = "command";

    /// A view of a call.
    pub fn new(tool: &'a str, args: &'a Value) -> Self {
        ToolCall {
            tool,
            args,
            call_id: None,
        }
    }

    /// The same view, with the provider's id for the call.
    #[must_use]
    pub fn with_call_id(mut self, call_id: Option<&'a str>) -> Self {
        self.call_id = call_id;
        self
    }

    /// The provider's id for the call, if the context has one.
    pub fn call_id(&self) -> Option<&'a str> {
        self.call_id
    }

    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The arguments.
    pub fn args(&self) -> &'a Value {
        self.args
    }

    /// The first of the [`SUBJECT_KEYS`](Self::SUBJECT_KEYS) arguments that is a string.
    pub fn subject(&self) -> Option<&'a str> {
        self.keyed_subject().map(|(_, subject)| subject)
    }

    /// The subject and the key it was found under.
    fn keyed_subject(&self) -> Option<(&'static str, &'a str)> {
        Self::SUBJECT_KEYS.iter().find_map(|&key| {
            self.args
                .get(key)
                .and_then(Value::as_str)
                .map(|subject| (key, subject))
        })
    }
}
