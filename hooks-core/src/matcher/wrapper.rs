//! Programs that run another program named in their arguments (`sudo`,
//! `timeout 5`, `xargs`, `find -exec`): where, read from their options as
//! each reads them (an allow-list checks the program they run too), and the
//! arguments `xargs` and `find` add at run time.

use std::ops::Range;

use super::command::{self, Part, Word, basename, is_exec};
use super::hidden::Unseen;
use super::options::{self, Opt, Spec};
use super::word::ShellWord;

/// What a wrapper runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Wrapped {
    /// Nothing: `command -v x`, `nice` alone, `sudo -l`.
    Nothing,
    /// The words in each range, as commands (`find` may have several `-exec`).
    Commands(Vec<Range<usize>>),
    /// It cannot be told from its words (an unknown option, a run-time word
    /// where an option may be, a shell it starts, a script it builds).
    Unknown,
}

/// A wrapper's options, how many words it takes before the command
/// (`timeout`'s duration), and which options mean it runs no command, or
/// one that cannot be read.
struct Grammar {
    options: Spec,
    operands: usize,
    /// `NAME=value` words before the command (`env`, `sudo`): part of the
    /// command's environment, so part of the command an allow-list sees.
    assignments: bool,
    /// Options after which it runs no command.
    nothing: &'static [&'static str],
    /// Options after which what it runs cannot be read (`sudo -s`: a shell).
    unknown: &'static [&'static str],
}

const fn spec(
    values: &'static str,
    flags: &'static str,
    long_values: &'static [&'static str],
    long_flags: &'static [&'static str],
) -> Spec {
    Spec {
        values,
        optional: "",
        flags,
        long_values,
        long_flags,
        numbers: false,
    }
}

const ENV: Grammar = Grammar {
    options: spec(
        "uCS",
        "i0v",
        &["unset", "chdir", "split-string"],
        &[
            "ignore-environment",
            "null",
            "debug",
            "default-signal",
            "ignore-signal",
            "block-signal",
            "list-signal-handling",
        ],
    ),
    operands: 0,
    assignments: true,
    nothing: &["list-signal-handling"],
    // `-S` splits a string its own way (`\_` is a space).
    unknown: &["S", "split-string"],
};

const SUDO: Grammar = Grammar {
    options: spec(
        "CDghpRrTtUu",
        "AbEHKkNnPSVvlise",
        &[
            "close-from",
            "chdir",
            "group",
            "host",
            "prompt",
            "chroot",
            "role",
            "command-timeout",
            "type",
            "other-user",
            "user",
        ],
        &[
            "askpass",
            "background",
            "preserve-env",
            "set-home",
            "remove-timestamp",
            "reset-timestamp",
            "no-update",
            "non-interactive",
            "preserve-groups",
            "stdin",
            "version",
            "validate",
            "list",
            "login",
            "shell",
            "edit",
        ],
    ),
    operands: 0,
    assignments: true,
    nothing: &[
        "K",
        "k",
        "V",
        "v",
        "l",
        "version",
        "validate",
        "list",
        "remove-timestamp",
    ],
    unknown: &["i", "s", "e", "login", "shell", "edit"],
};

const DOAS: Grammar = Grammar {
    options: spec("uC", "nLs", &[], &[]),
    operands: 0,
    assignments: false,
    nothing: &["L", "C"],
    unknown: &["s"],
};

const TIMEOUT: Grammar = Grammar {
    options: spec(
        "sk",
        "v",
        &["signal", "kill-after"],
        &["preserve-status", "foreground", "verbose"],
    ),
    operands: 1,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const NICE: Grammar = Grammar {
    options: Spec {
        values: "n",
        optional: "",
        flags: "",
        long_values: &["adjustment"],
        long_flags: &[],
        numbers: true,
    },
    operands: 0,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const NO_OPTIONS: Grammar = Grammar {
    options: spec("", "", &[], &[]),
    operands: 0,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const COMMAND: Grammar = Grammar {
    options: spec("", "pvV", &[], &[]),
    operands: 0,
    assignments: false,
    nothing: &["v", "V"],
    unknown: &[],
};

const EXEC: Grammar = Grammar {
    options: spec("a", "cl", &[], &[]),
    operands: 0,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const TIME: Grammar = Grammar {
    options: spec(
        "fo",
        "pvaq",
        &["format", "output"],
        &["portability", "verbose", "append", "quiet"],
    ),
    operands: 0,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const STDBUF: Grammar = Grammar {
    options: spec("ioe", "", &["input", "output", "error"], &[]),
    operands: 0,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const SETSID: Grammar = Grammar {
    options: spec("", "cfw", &[], &["ctty", "fork", "wait"]),
    operands: 0,
    assignments: false,
    nothing: &[],
    unknown: &[],
};

const XARGS: Grammar = Grammar {
    options: Spec {
        values: "adEILnPsJRS",
        optional: "eil",
        flags: "0oprtx",
        long_values: &[
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
        long_flags: &[
            "null",
            "eof",
            "replace",
            "max-lines",
            "interactive",
            "verbose",
            "exit",
            "no-run-if-empty",
            "open-tty",
            "show-limits",
        ],
        numbers: false,
    },
    operands: 0,
    assignments: false,
    nothing: &["show-limits"],
    unknown: &[],
};

/// The grammar of the wrapper `name`, if it is one this can read.
fn grammar(name: &str) -> Option<&'static Grammar> {
    Some(match name {
        "env" => &ENV,
        "sudo" => &SUDO,
        "doas" => &DOAS,
        "timeout" => &TIMEOUT,
        "nice" => &NICE,
        "nohup" | "builtin" => &NO_OPTIONS,
        "command" => &COMMAND,
        "exec" => &EXEC,
        "time" => &TIME,
        "stdbuf" => &STDBUF,
        "setsid" => &SETSID,
        "xargs" => &XARGS,
        _ => return None,
    })
}

/// What the program at word 0 of `words` runs, if it is a wrapper; `None`
/// for any other program.
pub(super) fn wrapped<W: Word>(words: &[W]) -> Option<Wrapped> {
    let first = words.first()?;
    if !first.is_literal() {
        return None;
    }
    let name = basename(first.text());
    if name == "find" {
        return Some(find_exec(words));
    }
    if super::command::WRAPPERS.contains(&name) {
        return Some(grammar(name).map_or(Wrapped::Unknown, |grammar| read(grammar, words)));
    }
    None
}

fn read<W: Word>(grammar: &Grammar, words: &[W]) -> Wrapped {
    let (mut nothing, mut unknown) = (false, false);
    let mut visit = |opt: Opt<'_>| {
        let name = match opt {
            Opt::Short(letter, _) => {
                let mut buffer = [0; 4];
                let letter: &str = letter.encode_utf8(&mut buffer);
                nothing |= grammar.nothing.contains(&letter);
                unknown |= grammar.unknown.contains(&letter);
                return;
            }
            Opt::Long(name, _) => name,
        };
        nothing |= grammar.nothing.contains(&name);
        unknown |= grammar.unknown.contains(&name);
    };
    let Ok(mut at) = options::read(&grammar.options, words, 1, &mut visit) else {
        return Wrapped::Unknown;
    };
    if unknown {
        return Wrapped::Unknown;
    }
    if nothing {
        return Wrapped::Nothing;
    }
    for _ in 0..grammar.operands {
        match words.get(at) {
            Some(word) if word.is_literal() => at += 1,
            _ => return Wrapped::Unknown,
        }
    }
    let start = at;
    if grammar.assignments {
        while let Some(word) = words.get(at) {
            if !word.is_literal() {
                // An assignment, or the program: cannot be told.
                return Wrapped::Unknown;
            }
            if !word.text().contains('=') {
                break;
            }
            at += 1;
        }
    }
    match words.get(at) {
        // `env A=1` alone prints the environment; `nice` alone its niceness.
        None => Wrapped::Nothing,
        Some(_) => Wrapped::Commands(std::iter::once(start..words.len()).collect()),
    }
}

/// `find … -exec cmd args \;` (or `+`, `-execdir`, `-ok`, `-okdir`): each
/// command, up to its terminator.
fn find_exec<W: Word>(words: &[W]) -> Wrapped {
    let mut commands = Vec::new();
    let mut at = 1;
    while at < words.len() {
        let word = &words[at];
        at += 1;
        if !is_exec(word) {
            continue;
        }
        let start = at;
        let end = (start..words.len()).find(|&w| {
            let text = words[w].text();
            words[w].is_literal()
                && (text == ";" || (text == "+" && w > start && words[w - 1].text() == "{}"))
        });
        match end {
            Some(end) if end > start => {
                commands.push(start..end);
                at = end + 1;
            }
            // Without a command or a terminator, find refuses to run; this
            // does not guess which.
            _ => return Wrapped::Unknown,
        }
    }
    if commands.is_empty() {
        Wrapped::Nothing
    } else {
        Wrapped::Commands(commands)
    }
}

/// Arguments programs add at run time, made run-time parts of `words`:
/// what `xargs` reads (at the end, or where `-I` says), and the file names
/// `find` puts where `{}` is.
pub(super) fn added_arguments(words: &mut Vec<ShellWord>) -> Result<Vec<Added>, Unseen> {
    let mut starts = Vec::new();
    command::scan(words, &mut |part| {
        if let Part::Start { word, skip: 0 } = part {
            starts.push(word);
        }
        false
    });
    let mut added = Vec::new();
    let mut appended = false;
    for at in starts {
        if !words[at].is_literal() {
            continue;
        }
        match basename(words[at].text()) {
            "find" => {
                // `{}` outside `-exec … ;` is a test's argument, no program.
                let mut command = None;
                for (word, text) in words.iter_mut().enumerate().skip(at + 1) {
                    if is_exec(&*text) {
                        command = Some(word + 1);
                    } else if text.mark_runtime("{}") {
                        added.push(Added { command, word });
                    }
                }
            }
            "xargs" => xargs(words, at, &mut added, &mut appended)?,
            _ => {}
        }
    }
    Ok(added)
}

/// A word given an argument added at run time, and where the command it
/// is part of starts (`None`: it is part of no command).
#[derive(Debug, Clone, Copy)]
pub(super) struct Added {
    command: Option<usize>,
    pub(super) word: usize,
}

impl Added {
    /// Whether the word may be a program: the first word of its command, or
    /// one after a wrapper or shell there (`xargs sudo`, `-exec env {} ;`).
    pub(super) fn may_run(self, words: &[ShellWord]) -> bool {
        self.command.is_some_and(|command| {
            self.word <= command
                || words[command..self.word]
                    .iter()
                    .any(|w| w.is_literal() && command::runs_its_arguments(basename(w.text())))
        })
    }
}

fn xargs(
    words: &mut Vec<ShellWord>,
    at: usize,
    added: &mut Vec<Added>,
    appended: &mut bool,
) -> Result<(), Unseen> {
    // `Some(None)`: `-i` or `--replace` alone, which mean `{}`.
    let mut replace = None;
    let end = options::read(&XARGS.options, words, at + 1, &mut |opt| match opt {
        Opt::Short('I' | 'J' | 'i', value) | Opt::Long("replace", value) => {
            replace = Some(value);
        }
        _ => {}
    });
    let command = Some(end.unwrap_or(at + 1));
    let string = match replace {
        // What it reads goes at the end.
        None if *appended => return Ok(()),
        None => {
            *appended = true;
            added.push(Added {
                command,
                word: words.len(),
            });
            let mut read = ShellWord::default();
            read.push_runtime("<arguments xargs reads>");
            words.push(read);
            return Ok(());
        }
        Some(None) => "{}".to_owned(),
        Some(Some((word, skip))) if words[word].is_literal() => {
            words[word].text()[skip..].to_owned()
        }
        Some(Some(_)) => return Err(Unseen::MadeAtRunTime),
    };
    if string.is_empty() {
        return Err(Unseen::MadeAtRunTime);
    }
    for (word, text) in words.iter_mut().enumerate().skip(end.unwrap_or(at + 1)) {
        if text.mark_runtime(&string) {
            added.push(Added { command, word });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(command: &str) -> Option<Wrapped> {
        let words: Vec<&str> = command.split_whitespace().collect();
        wrapped(&words)
    }

    fn at(from: usize, to: usize) -> Wrapped {
        Wrapped::Commands(std::iter::once(from..to).collect())
    }

    #[test]
    fn each_wrapper_is_read_with_its_own_options() {
        assert_eq!(of("git status"), None);
        assert_eq!(of("sudo git status"), Some(at(1, 3)));
        assert_eq!(of("sudo -u root -E git status"), Some(at(4, 6)));
        assert_eq!(of("sudo -uroot A=1 git"), Some(at(2, 4)));
        assert_eq!(of("env -i A=1 B=2 git"), Some(at(2, 5)));
        assert_eq!(of("env -u HOME git"), Some(at(3, 4)));
        assert_eq!(of("timeout -k 5 10s git status"), Some(at(4, 6)));
        assert_eq!(of("timeout --signal=KILL 10 git"), Some(at(3, 4)));
        assert_eq!(of("nice -n 5 git"), Some(at(3, 4)));
        assert_eq!(of("nice -10 git"), Some(at(2, 3)));
        assert_eq!(of("nohup git push"), Some(at(1, 3)));
        assert_eq!(of("command -p git"), Some(at(2, 3)));
        assert_eq!(of("exec -a name git"), Some(at(3, 4)));
        assert_eq!(of("stdbuf -oL git"), Some(at(2, 3)));
        assert_eq!(of("xargs -0 -n 1 grep x"), Some(at(4, 6)));
        assert_eq!(of("xargs -I {} grep {}"), Some(at(3, 5)));
        assert_eq!(of("/usr/bin/env git"), Some(at(1, 2)));
    }

    #[test]
    fn some_run_nothing() {
        for nothing in [
            "command -v git",
            "env",
            "env A=1",
            "nice",
            "sudo -l",
            "find . -name x",
        ] {
            assert_eq!(of(nothing), Some(Wrapped::Nothing), "{nothing}");
        }
    }

    #[test]
    fn what_cannot_be_read_is_unknown() {
        for unknown in [
            "sudo -s git",
            "sudo -i",
            "sudo --frobnicate git",
            "env -S 'git status'",
            "timeout",
            "xargs -Z git",
            "watch git status",
            "parallel git",
            "find . -exec git",
            "find . -exec \\;",
        ] {
            assert_eq!(of(unknown), Some(Wrapped::Unknown), "{unknown}");
        }
    }

    #[test]
    fn find_runs_each_exec() {
        assert_eq!(
            of("find . -name x -exec wc -l {} + -execdir cat {} ;"),
            Some(Wrapped::Commands(vec![5..8, 10..12]))
        );
        // `+` ends a command only after `{}`.
        assert_eq!(of("find . -exec a + b ;"), Some(at(3, 6)));
    }
}
