//! The arguments `xargs` and `find` add at run time: what `xargs` reads, and
//! the file names `find -exec` puts for `{}`.

use super::command::{self, Part, Word, basename, is_exec};
use super::hidden::Unseen;
use super::options::{self, Opt, Spec};
use super::word::ShellWord;

/// `xargs`'s options (GNU's and BSD's): which take a value, and which may.
const XARGS: Spec = Spec {
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
};

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
    let end = options::read(&XARGS, words, at + 1, &mut |opt| match opt {
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
