//! One simple command: where in its words the program that runs may start
//! (after assignments, behind wrappers such as `sudo`), and the scripts it
//! hands to a shell. Shared by plain commands, matched where they lie, and
//! parsed ones.

use hooks_events::pattern::glob_matches_words;
use smallvec::SmallVec;

use super::hidden::{self, Unseen};

/// Commands that run the rest of their words as a command. Their options are
/// not parsed: every later word is tried as the start of the command.
pub(super) const WRAPPERS: &[&str] = &[
    "busybox", "builtin", "chroot", "chrt", "command", "doas", "env", "exec", "find", "flock",
    "ionice", "nice", "nohup", "parallel", "setsid", "stdbuf", "sudo", "taskset", "time",
    "timeout", "toybox", "unbuffer", "watch", "xargs",
];

/// Shells whose `-c` takes a script, and which otherwise read one from a file
/// or their standard input.
const SHELLS: &[&str] = &[
    "ash", "bash", "dash", "fish", "ksh", "mksh", "sh", "yash", "zsh",
];

/// Whether the program `name` runs a command from its arguments (a wrapper)
/// or a script (a shell).
pub(super) fn runs_its_arguments(name: &str) -> bool {
    WRAPPERS.contains(&name) || SHELLS.contains(&name) || name == "eval"
}

/// Words bash reads as syntax at the start of a command.
const RESERVED: &[&str] = &[
    "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while",
];

/// A word of a simple command.
pub(super) trait Word {
    /// The word after quote removal, its run-time parts (`$x`) as written.
    fn text(&self) -> &str;
    /// Whether nothing in it is decided at run time.
    fn is_literal(&self) -> bool;
    /// How many bytes of its text come before its first run-time part.
    fn literal_len(&self) -> usize;
}

impl<W: Word> Word for &W {
    fn text(&self) -> &str {
        (**self).text()
    }

    fn is_literal(&self) -> bool {
        (**self).is_literal()
    }

    fn literal_len(&self) -> usize {
        (**self).literal_len()
    }
}

impl Word for &str {
    fn text(&self) -> &str {
        self
    }

    fn is_literal(&self) -> bool {
        true
    }

    fn literal_len(&self) -> usize {
        self.len()
    }
}

/// What a simple command tells the matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// A command may start at word `word`, `skip` bytes in (a path's directory left out).
    Start { word: usize, skip: usize },
    /// Word `word`, from byte `skip` on, is a script a shell runs.
    Script { word: usize, skip: usize },
    /// The words from this one on, joined by spaces, are a script (`eval`).
    Joined(usize),
    /// Bash may run text the matcher cannot read: a shell's standard input, a
    /// file, a variable's value evaluated as arithmetic, … (see [`Unseen`]).
    Unseen(Unseen),
}

/// Calls `visit` with each part of the simple command `words`, until it returns `true`.
pub(super) fn scan<W: Word>(words: &[W], visit: &mut impl FnMut(Part) -> bool) -> bool {
    if let Some(unseen) = hidden::in_words(words)
        && visit(Part::Unseen(unseen))
    {
        return true;
    }
    let Some(first) = words
        .iter()
        .position(|word| !(word.is_literal() && is_assignment(word.text())))
    else {
        return false;
    };
    if start(words, first, visit) {
        return true;
    }
    // A run-time name may be a wrapper, or expand to nothing at all.
    let name = &words[first];
    if !name.is_literal() || WRAPPERS.contains(&basename(name.text())) {
        // `find`'s paths and tests (`find . -name x`) are no commands: only
        // what follows `-exec` and the like is. Only where `find` is the
        // program: after a wrapper, `find` may be an option's value
        // (`env -u find git push`).
        let mut in_find = is_find(name);
        return (first + 1..words.len()).any(|word| {
            if in_find {
                in_find = !is_exec(&words[word]);
                return false;
            }
            start(words, word, visit)
        });
    }
    false
}

fn is_find<W: Word>(word: &W) -> bool {
    word.is_literal() && basename(word.text()) == "find"
}

/// `find`'s options that run a command.
pub(super) fn is_exec<W: Word>(word: &W) -> bool {
    word.is_literal() && matches!(word.text(), "-exec" | "-execdir" | "-ok" | "-okdir")
}

fn start<W: Word>(words: &[W], at: usize, visit: &mut impl FnMut(Part) -> bool) -> bool {
    let text = words[at].text();
    let name = basename(text);
    if visit(Part::Start { word: at, skip: 0 })
        || (name.len() < text.len()
            && visit(Part::Start {
                word: at,
                skip: text.len() - name.len(),
            }))
    {
        return true;
    }
    if !words[at].is_literal() {
        return false;
    }
    if let Some(unseen) = hidden::in_command(words, at)
        && visit(Part::Unseen(unseen))
    {
        return true;
    }
    let rest = at + 1;
    let script = |word| Part::Script { word, skip: 0 };
    match name {
        _ if SHELLS.contains(&name) => shell_script(words, rest).is_some_and(visit),
        "eval" => {
            let from = rest + usize::from(words.get(rest).is_some_and(|w| w.text() == "--"));
            from < words.len() && visit(Part::Joined(from))
        }
        "trap" => operand(words, rest).is_some_and(|w| visit(script(w))),
        "alias" => (rest..words.len()).any(|w| {
            words[w].is_literal()
                && words[w].text().find('=').is_some_and(|eq| {
                    visit(Part::Script {
                        word: w,
                        skip: eq + 1,
                    })
                })
        }),
        "watch" => {
            (rest..words.len()).any(|w| !words[w].text().starts_with('-') && visit(script(w)))
        }
        "env" => split_string(words, rest).is_some_and(visit),
        "su" | "runuser" | "script" | "flock" => match command_option(words, rest) {
            Some(part) => visit(part),
            // `su` alone starts a shell, which reads its standard input.
            None => matches!(name, "su" | "runuser") && visit(Part::Unseen(Unseen::ShellInput)),
        },
        "sudo" | "doas" => {
            sudo_shell_reads_input(words, rest) && visit(Part::Unseen(Unseen::ShellInput))
        }
        _ => false,
    }
}

/// The script of a shell whose options start at `at`.
fn shell_script<W: Word>(words: &[W], mut at: usize) -> Option<Part> {
    let (mut command_string, mut stdin) = (false, false);
    while let Some(word) = words.get(at) {
        if !word.is_literal() {
            // An option or a script file decided at run time.
            return Some(Part::Unseen(Unseen::ShellInput));
        }
        match word.text() {
            "-" | "--" => {
                at += 1;
                break;
            }
            // A file of commands an interactive shell runs first.
            "--rcfile" | "--init-file" => return Some(Part::Unseen(Unseen::Sourced)),
            long if long.starts_with("--") => {}
            short if short.len() > 1 && (short.starts_with('-') || short.starts_with('+')) => {
                let flags = &short[1..];
                command_string |= short.starts_with('-') && flags.contains('c');
                stdin |= flags.contains('s');
                if short.starts_with('-') && flags.contains('H') {
                    return Some(Part::Unseen(Unseen::History));
                }
                if flags.contains(['o', 'O']) {
                    at += 1; // the option's name
                    if words
                        .get(at)
                        .is_some_and(|name| name.text() == "histexpand")
                    {
                        return Some(Part::Unseen(Unseen::History));
                    }
                }
            }
            _ => break,
        }
        at += 1;
    }
    if command_string {
        // Without its script, `sh -c` runs nothing.
        return (at < words.len()).then_some(Part::Script { word: at, skip: 0 });
    }
    if stdin || words.get(at).is_none_or(reads_input) {
        return Some(Part::Unseen(Unseen::ShellInput));
    }
    None // a script file: not read
}

/// The first word from `at` that is not an option.
fn operand<W: Word>(words: &[W], mut at: usize) -> Option<usize> {
    while let Some(word) = words.get(at) {
        match word.text() {
            "--" => return (at + 1 < words.len()).then_some(at + 1),
            option if word.is_literal() && option.starts_with('-') && option.len() > 1 => at += 1,
            _ => return Some(at),
        }
    }
    None
}

/// A script file bash cannot name in advance: standard input, a pipe
/// (`<(…)` is `/dev/fd/63`), or a name decided at run time.
fn reads_input<W: Word>(word: &W) -> bool {
    let path = word.text();
    !word.is_literal() || path == "-" || path.starts_with("/dev/") || path.starts_with("/proc/")
}

/// `-c script`, `-lc script` or `--command=script`, from word `at` on.
fn command_option<W: Word>(words: &[W], at: usize) -> Option<Part> {
    (at..words.len()).find_map(|w| {
        let text = words[w].text();
        let short = text.starts_with('-') && !text.starts_with("--") && text.ends_with('c');
        if short || text == "--command" {
            return (w + 1 < words.len()).then_some(Part::Script {
                word: w + 1,
                skip: 0,
            });
        }
        text.strip_prefix("--command=").map(|_| Part::Script {
            word: w,
            skip: "--command=".len(),
        })
    })
}

/// `env -S 'cmd args'` (or `--split-string`): a command line in one word.
fn split_string<W: Word>(words: &[W], at: usize) -> Option<Part> {
    (at..words.len()).find_map(|w| {
        let text = words[w].text();
        let skip = match text {
            "-S" | "--split-string" => {
                return (w + 1 < words.len()).then_some(Part::Script {
                    word: w + 1,
                    skip: 0,
                });
            }
            _ if text.starts_with("--split-string=") => "--split-string=".len(),
            _ if text.starts_with("-S") => 2,
            _ => return None,
        };
        Some(Part::Script { word: w, skip })
    })
}

/// `sudo -s` or `sudo -i` with no command: a shell reading its standard input.
fn sudo_shell_reads_input<W: Word>(words: &[W], mut at: usize) -> bool {
    let mut shell = false;
    while let Some(word) = words.get(at) {
        match word.text() {
            "--shell" | "--login" => shell = true,
            "--" => return shell && at + 1 == words.len(),
            long if long.starts_with("--") => {}
            short if short.starts_with('-') && short.len() > 1 => {
                shell |= short.contains(['s', 'i']);
                // The options that take a value: `-u root`.
                if short.len() == 2 && "CDTUghprtu".contains(&short[1..]) {
                    at += 1;
                }
            }
            _ => return false,
        }
        at += 1;
    }
    shell
}

/// `NAME=value` or `NAME+=value`: an assignment, not a command.
fn is_assignment(word: &str) -> bool {
    let name = word.split_once('=').map_or("", |(name, _)| name);
    let name = name.strip_suffix('+').unwrap_or(name);
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A command's words as written, for messages.
pub(super) fn written<W: Word>(words: &[W]) -> String {
    let texts: Vec<&str> = words.iter().map(Word::text).collect();
    texts.join(" ")
}

/// The last component of a path.
pub(super) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// A plain command is words only: nothing bash would expand, quote, redirect
/// or read as syntax.
fn is_plain(command: &str) -> bool {
    command
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b >= 0x80 || b" \t-_./:,+=@%^~".contains(&b))
}

/// Whether `glob` matches the plain command `command` at a place a command
/// starts, matched where it lies without allocating (for up to 32 words).
///
/// `None` when the command is not plain, hands a script to a shell, or names
/// a program in capitals: then it must be parsed.
pub(super) fn plain_matches(glob: &str, command: &str) -> Option<bool> {
    if !is_plain(command) {
        return None;
    }
    let words: SmallVec<[&str; 32]> = command.split_ascii_whitespace().collect();
    if words.first().is_some_and(|first| RESERVED.contains(first)) {
        return None;
    }
    let mut parse = false;
    let mut unseen = false;
    let found = scan(&words, &mut |part| match part {
        // A program named in capitals is also tried in lowercase; the
        // arguments `xargs` and `find` add are run-time parts.
        Part::Start { word, skip }
            if has_capitals(&words[word][skip..])
                || ((words[word].ends_with("xargs") || words[word].ends_with("find"))
                    && matches!(basename(words[word]), "xargs" | "find")) =>
        {
            parse = true;
            true
        }
        Part::Start { word, skip } => {
            // Every word is a slice of `command`: match from where it starts.
            let at = words[word].as_ptr() as usize - command.as_ptr() as usize + skip;
            glob_matches_words(glob, &command[at..])
        }
        Part::Script { .. } | Part::Joined(_) => {
            parse = true;
            true
        }
        Part::Unseen(_) => {
            unseen = true;
            true
        }
    });
    if parse { None } else { Some(found || unseen) }
}

/// Whether a program name has capitals: where file names ignore case (macOS),
/// `GIT` runs git, so a parsed command is also tried in lowercase.
pub(super) fn has_capitals(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(command: &str) -> Vec<Part> {
        let words: Vec<&str> = command.split_whitespace().collect();
        let mut parts = Vec::new();
        scan(&words, &mut |part| {
            parts.push(part);
            false
        });
        parts
    }

    fn starts(command: &str) -> Vec<usize> {
        parts(command)
            .into_iter()
            .filter_map(|part| match part {
                Part::Start { word, skip: 0 } => Some(word),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_command_starts_after_its_assignments() {
        assert_eq!(starts("git push"), [0]);
        assert_eq!(starts("A=1 B+=2 _c=3 git push"), [3]);
        assert_eq!(starts("a.b=1 git"), [0]);
        assert_eq!(starts("=1 git"), [0]);
        assert_eq!(starts("A=1"), [] as [usize; 0]);
    }

    #[test]
    fn wrappers_make_every_later_word_a_start() {
        assert_eq!(starts("sudo -u root git push"), [0, 1, 2, 3, 4]);
        assert_eq!(starts("/usr/bin/env git"), [0, 1]);
        assert_eq!(starts("echo git push"), [0]);
    }

    #[test]
    fn paths_are_also_tried_by_their_last_component() {
        assert_eq!(
            parts("/usr/bin/git push"),
            [
                Part::Start { word: 0, skip: 0 },
                Part::Start { word: 0, skip: 9 }
            ]
        );
    }

    #[test]
    fn shells_hand_over_their_scripts() {
        let script = |word| Part::Script { word, skip: 0 };
        assert!(parts("bash -c x").contains(&script(2)));
        assert!(parts("sh -lc x").contains(&script(2)));
        assert!(parts("bash -o errexit -c x").contains(&script(4)));
        assert!(parts("bash --norc -c x").contains(&script(3)));
        assert!(parts("sudo sh -c x").contains(&script(3)));
        let after_dashes = parts("sh -- -c x");
        assert!(
            !after_dashes
                .iter()
                .any(|part| matches!(part, Part::Script { .. }))
        );
        assert!(!parts("sh -c").iter().any(|p| matches!(p, Part::Unseen(_))));
        assert!(parts("eval git push").contains(&Part::Joined(1)));
        assert!(parts("eval -- git push").contains(&Part::Joined(2)));
        assert!(parts("su -c x root").contains(&script(2)));
        assert!(parts("su root --command=x").contains(&Part::Script { word: 2, skip: 10 }));
        assert!(parts("flock /tmp/l -c x").contains(&script(3)));
        assert!(parts("env -S x").contains(&script(2)));
        assert!(parts("env -Sx").contains(&Part::Script { word: 1, skip: 2 }));
        assert!(parts("trap -- x EXIT").contains(&script(2)));
        assert!(parts("alias p=x").contains(&Part::Script { word: 1, skip: 2 }));
        assert!(parts("watch -n 1 x").contains(&script(3)));
    }

    #[test]
    fn shells_reading_input_are_unseen() {
        for unseen in [
            "bash",
            "sh -s x",
            "bash -",
            "bash /dev/stdin",
            "sh /dev/fd/63",
            "su",
            "sudo -s",
            "sudo -u root -i",
        ] {
            assert!(
                parts(unseen).contains(&Part::Unseen(Unseen::ShellInput)),
                "{unseen}"
            );
        }
        for seen in ["bash script.sh", "sudo -s ls", "sudo -u s ls"] {
            assert!(
                !parts(seen).iter().any(|p| matches!(p, Part::Unseen(_))),
                "{seen}"
            );
        }
        // A file's commands, run in this shell, are not read.
        for sourced in [
            "source venv/bin/activate",
            "source /dev/fd/63",
            ". /proc/self/fd/0",
        ] {
            assert!(parts(sourced).contains(&Part::Unseen(Unseen::Sourced)));
        }
        assert!(parts("bash -H -c x").contains(&Part::Unseen(Unseen::History)));
        assert!(parts("bash -o histexpand -c x").contains(&Part::Unseen(Unseen::History)));
        assert!(parts("bash --rcfile x -ic y").contains(&Part::Unseen(Unseen::Sourced)));
    }

    #[test]
    fn plain_commands_match_without_parsing() {
        assert_eq!(plain_matches("rm -rf *", "rm -rf /"), Some(true));
        assert_eq!(plain_matches("rm -rf *", "  rm  -rf   / "), Some(true));
        assert_eq!(plain_matches("rm -rf *", "ls"), Some(false));
        assert_eq!(
            plain_matches("rm -rf *", "FOO=1 timeout 5 /bin/rm -rf /"),
            Some(true)
        );
        assert_eq!(plain_matches("rm -rf *", "echo rm -rf /"), Some(false));
        assert_eq!(plain_matches("rm -rf *", "ls | rm -rf /"), None);
        assert_eq!(plain_matches("rm -rf *", "echo 'x'"), None);
        assert_eq!(plain_matches("rm -rf *", "if true"), None);
        assert_eq!(plain_matches("rm -rf *", "bash -c ls"), None);
        assert_eq!(plain_matches("rm -rf *", "RM -rf /"), None);
        assert_eq!(plain_matches("rm -rf *", "bash"), Some(true));
        assert_eq!(plain_matches("rm -rf *", ""), Some(false));
    }
}
