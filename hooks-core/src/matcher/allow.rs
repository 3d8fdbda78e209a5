//! Allow-lists of shell commands that fail closed: a command passes only if
//! everything bash would run for it is known before it runs and allowed.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use hooks_events::pattern::collapse_whitespace;

use super::ToolCall;
use super::command::{Word, written};
use super::hidden::Unseen;
use super::shell::{Parsed, Redirect};
use super::word::{Line, ShellWord};
use super::wrapper::{self, Wrapped};

/// The shell commands an agent may run, as globs over their words: a command
/// passes only when **every** command bash would run for it is known before
/// it runs and matched by one of the globs.
///
/// Where [`Matcher`](crate::Matcher) asks "may this command run `git push`?"
/// (and answers yes to anything it cannot read, so a deny guard runs), an
/// allow-list asks "is everything this command runs allowed?" and answers no
/// to anything it cannot read.
///
/// ```
/// use hooks_core::ShellAllowList;
///
/// let reads = ShellAllowList::new(["git status*", "git log *", "ls*", "grep *", "wc *"]);
/// assert!(reads.allows("git status && ls -la | grep src").is_ok());
/// assert!(reads.allows("git ls-files | xargs wc -l").is_err()); // `xargs` is not allowed
/// assert!(reads.allows("ls $(rm -rf ~)").is_err());             // every command, anywhere
/// assert!(reads.allows("sudo git status").is_err());            // wrappers must be allowed too
/// assert!(reads.allows("git status > notes.txt").is_err());     // writes a file
/// assert!(reads.allows("echo $((x))").is_err());                // `x` may run a command
/// assert!(reads.allows("lsblk").is_err());                      // `ls*` names `ls`, whole
///
/// let refusal = reads.allows("git status; git push").unwrap_err();
/// assert_eq!(refusal.to_string(), "`git push` is not allowed: no allowed pattern matches it");
/// ```
///
/// # What passes
///
/// Each glob is matched like the subject of a `Bash(…)` pattern: `*` is any
/// run of characters, against the words a program receives (quotes removed,
/// one space between words), **from its first word**: leading `NAME=value`
/// assignments and wrappers are part of the command, so `sudo git status`
/// and `GIT_DIR=x git status` do not pass `git status*` (the first needs
/// `sudo *` too, the second `GIT_DIR=x git status*` too: the program must be
/// allowed as it runs, and its assignments spelled). A command passes when
/// all of these hold:
///
/// - **Every simple command matches a glob**, wherever bash would run it:
///   lists, pipelines, subshells, `if`/`for`/`while`/`case` bodies, `$(…)`,
///   `<(…)`, scripts handed to `bash -c` or `eval` (the shell or `eval`
///   itself must be allowed too), and the command a wrapper runs (`sudo`,
///   `env`, `timeout`, `nice`, `xargs`, `find -exec`, …, read with their
///   own options): `timeout 5 git status` needs `timeout *` and `git status*`.
/// - **A glob names its program in full**: its `*` never extends a program's
///   name, so `ls*` allows `ls` and `ls -la`, not `lsblk` or `ls/../rm` (a
///   glob that starts with `*` allows any program).
/// - **Run-time parts lie inside a `*`**: `$x`, `$(…)`, a pathname glob, or
///   what `xargs` and `find -exec` add may be any text, so they pass only
///   where the glob has a `*` (`ls $DIR` passes `ls*`, not `ls`).
/// - **Nothing runs unseen**: no arithmetic on variables (`$((x))`,
///   `[[ $x -eq 1 ]]`, `${a[$i]}`), `${x@P}`, `${!x}`, `declare -i`/`-n`,
///   `source`, `mapfile -C`, `hash -p`, `BASH_ENV`/`PS4`/`BASH_FUNC_…`
///   assignments, history expansion, `parallel`, nor anything that does not
///   parse as bash.
/// - **No function or alias is defined** (it would run in place of a command
///   of its name).
/// - **No file is written**: output redirections only to `/dev/null`,
///   `/dev/stdout` or `/dev/stderr`; no input redirection from a file named
///   at run time or from `/dev/tcp` and `/dev/udp`.
///
/// What a program does with the arguments a glob allows is its own: `find *`
/// allows `find . -delete`, and `git *` allows `git push`. Allow programs by
/// the arguments they may take.
///
/// # In a hook
///
/// ```
/// use std::sync::LazyLock;
/// use hooks_core::prelude::*;
/// use hooks_core::{ShellAllowList, ToolCall};
///
/// static READS: LazyLock<ShellAllowList> =
///     LazyLock::new(|| ShellAllowList::new(["git status*", "git diff*", "ls*", "cat *"]));
///
/// #[pre_tool_use(matches = "Bash")]
/// fn only_reads(ctx: &mut PreToolUse) -> Decision {
///     READS.check(ToolCall::new(ctx.tool(), ctx.args())).into()
/// }
/// # fn main() {}
/// ```
#[derive(Clone)]
pub struct ShellAllowList {
    /// The globs as given, and with one space between words.
    globs: Arc<[(Box<str>, Box<str>)]>,
}

impl ShellAllowList {
    /// An allow-list of `globs`, each the glob of a `Bash(…)` pattern
    /// (`"git status*"`, not `"Bash(git status*)"`).
    pub fn new<I>(globs: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let globs = globs
            .into_iter()
            .map(|glob| {
                let glob = glob.as_ref();
                (Box::from(glob), collapse_whitespace(glob).into_boxed_str())
            })
            .collect();
        ShellAllowList { globs }
    }

    /// The globs, as given.
    pub fn globs(&self) -> impl Iterator<Item = &str> {
        self.globs.iter().map(|(glob, _)| &**glob)
    }

    /// Whether bash may run `command`: `Ok` only if everything it would run
    /// is known before it runs and allowed; otherwise which command, or which
    /// part of it, is not.
    pub fn allows(&self, command: &str) -> Result<(), NotAllowed> {
        let parsed = Parsed::new(command);
        if let Some((why, part)) = &parsed.unseen {
            return Err(NotAllowed::new(part, Reason::Unseen(*why)));
        }
        if let Some(name) = parsed.functions.first() {
            return Err(NotAllowed::new(name, Reason::Function));
        }
        if let Some(redirect) = parsed.redirects.iter().find(|r| !harmless(r)) {
            let reason = if redirect.writes {
                Reason::Writes
            } else {
                Reason::Reads
            };
            return Err(NotAllowed::new(redirect.target.text(), reason));
        }
        parsed.commands.iter().try_for_each(|simple| {
            let words: Vec<&ShellWord> = simple.assignments.iter().chain(&simple.words).collect();
            self.command(&words, simple.assignments.len())
        })
    }

    /// Whether a tool call may run: its `command` argument, read as by
    /// [`allows`](Self::allows). A call without one is not allowed.
    pub fn check(&self, call: ToolCall<'_>) -> Result<(), NotAllowed> {
        match call
            .args()
            .get(ToolCall::COMMAND_KEY)
            .and_then(|c| c.as_str())
        {
            Some(command) => self.allows(command),
            None => Err(NotAllowed::new(call.tool(), Reason::NoCommand)),
        }
    }

    /// One command, whose program is word `program` (after its assignments).
    fn command(&self, words: &[&ShellWord], program: usize) -> Result<(), NotAllowed> {
        let Some(name) = words.get(program) else {
            // Assignments alone, or redirections alone.
            return self.matched(words, None);
        };
        if name.is_literal() && name.text().contains(char::is_whitespace) {
            return Err(NotAllowed::new(&written(words), Reason::SpacedName));
        }
        // `alias ls='sudo '` makes `ls rm` run `sudo rm`: as a function would.
        if name.is_literal()
            && name.text() == "alias"
            && words[program + 1..]
                .iter()
                .any(|word| !word.is_literal() || word.text().contains('='))
        {
            return Err(NotAllowed::new(&written(words), Reason::Alias));
        }
        // The assignments must be spelled, and the program allowed as it runs.
        if program > 0 {
            self.matched(words, None)?;
        }
        self.matched(&words[program..], Some(name))?;
        match wrapper::wrapped(&words[program..]) {
            None | Some(Wrapped::Nothing) => Ok(()),
            Some(Wrapped::Unknown) => Err(NotAllowed::new(
                &written(words),
                Reason::Wrapper(name.text().to_owned()),
            )),
            Some(Wrapped::Commands(ranges)) => ranges.into_iter().try_for_each(|range| {
                let inner = &words[program..][range];
                // `env A=1 cmd`, `sudo A=1 cmd`: assignments, then the program.
                let assignments = inner
                    .iter()
                    .take_while(|word| word.is_literal() && word.text().contains('='))
                    .count();
                self.command(inner, assignments)
            }),
        }
    }

    /// Whether a glob matches `words` whatever their run-time parts become;
    /// and, if they start with a `program`, names it in full.
    fn matched(&self, words: &[&ShellWord], program: Option<&ShellWord>) -> Result<(), NotAllowed> {
        if words.is_empty() {
            return Ok(());
        }
        let line = Line::whole(words.iter().copied());
        let allowed = |glob: &str| {
            program.is_none_or(|program| names(glob, program)) && line.always_matches(glob)
        };
        if self.globs.iter().any(|(_, glob)| allowed(glob)) {
            return Ok(());
        }
        let runtime = words.iter().find_map(|word| word.runtime_parts().next());
        let reason = match runtime {
            Some(part) => Reason::RunTime(part.to_owned()),
            None => Reason::NoPattern,
        };
        Err(NotAllowed::new(&written(words), reason))
    }
}

/// Whether `glob` spells the whole name of `program`, so that its `*` never
/// extends it: `ls*` allows `ls -la`, not `lsblk` nor `ls/../rm`. A glob that
/// starts with `*` allows any program, as it says.
fn names(glob: &str, program: &ShellWord) -> bool {
    let name = program.text();
    glob.starts_with('*')
        || (program.is_literal()
            && glob.starts_with(name)
            && matches!(glob.as_bytes().get(name.len()), None | Some(b' ' | b'*')))
}

/// Writes only where nothing is kept; reads from a file named in advance.
fn harmless(redirect: &Redirect) -> bool {
    let target = &redirect.target;
    if redirect.writes {
        target.is_literal() && matches!(target.text(), "/dev/null" | "/dev/stdout" | "/dev/stderr")
    } else {
        target.is_literal()
            && !target.text().starts_with("/dev/tcp/")
            && !target.text().starts_with("/dev/udp/")
    }
}

impl fmt::Debug for ShellAllowList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.globs()).finish()
    }
}

/// Why an allow-list refused a command: the command, or the part of it, that
/// is not allowed, and why, in words a model can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAllowed {
    part: String,
    reason: Reason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Reason {
    NoPattern,
    RunTime(String),
    Unseen(Unseen),
    Wrapper(String),
    Function,
    Alias,
    Writes,
    Reads,
    SpacedName,
    NoCommand,
}

impl NotAllowed {
    fn new(part: &str, reason: Reason) -> Self {
        NotAllowed {
            part: part.to_owned(),
            reason,
        }
    }

    /// The command, or the part of it, that was not allowed, as written.
    pub fn part(&self) -> &str {
        &self.part
    }
}

impl fmt::Display for NotAllowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = self.part.trim();
        match &self.reason {
            Reason::NoPattern => {
                write!(f, "`{part}` is not allowed: no allowed pattern matches it")
            }
            Reason::RunTime(runtime) => write!(
                f,
                "`{part}` is not allowed: `{runtime}` is only known when it runs, and no \
                 allowed pattern has a `*` where it is"
            ),
            Reason::Unseen(why) => write!(f, "`{part}` is not allowed: {}", why.explain()),
            Reason::Wrapper(name) => write!(
                f,
                "`{part}` is not allowed: which command `{name}` runs cannot be told from its \
                 arguments"
            ),
            Reason::Function => write!(
                f,
                "the function `{part}` is not allowed: it would run in place of any command \
                 of that name"
            ),
            Reason::Alias => write!(
                f,
                "`{part}` is not allowed: an alias runs in place of any command of its name"
            ),
            Reason::Writes => write!(
                f,
                "writing to `{part}` is not allowed: output may go only to /dev/null"
            ),
            Reason::Reads => write!(
                f,
                "reading from `{part}` is not allowed: it is a file named at run time, or a \
                 network connection"
            ),
            Reason::SpacedName => write!(
                f,
                "`{part}` is not allowed: its program's name has a space in it"
            ),
            Reason::NoCommand => write!(
                f,
                "this `{part}` call is not allowed: it has no `command` argument to check"
            ),
        }
    }
}

impl Error for NotAllowed {}
