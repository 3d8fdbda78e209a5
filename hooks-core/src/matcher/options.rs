//! Options as programs read them (getopt): short ones clustered (`-rp x`),
//! some taking a value from the rest of the word or the next one, long ones
//! with `=value` or the next word, and `--` ending them.

use super::command::Word;

/// The options one program takes.
pub(super) struct Spec {
    /// Short options that take a value: the rest of the word, or the next word.
    pub(super) values: &'static str,
    /// Short options whose value, if any, is the rest of the word (`-i{}`).
    pub(super) optional: &'static str,
    /// Short options that take none.
    pub(super) flags: &'static str,
    /// Long options that take a value: `--name=value` or `--name value`.
    pub(super) long_values: &'static [&'static str],
    /// Long options that take none, or only as `--name=value`.
    pub(super) long_flags: &'static [&'static str],
    /// Whether `-5` (a number for an option) is read as a flag (`nice -10`).
    pub(super) numbers: bool,
}

/// One option read, with where its value is: `(word, byte)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opt<'a> {
    Short(char, Option<(usize, usize)>),
    Long(&'a str, Option<(usize, usize)>),
}

/// Why the options could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unread {
    /// An option this spec does not know, or a value missing at the end.
    Unknown,
    /// A word among the options decided at run time: it may be any option.
    RunTime,
}

/// Reads the options of `spec` from word `at` on, calling `visit` with each;
/// returns the index of the first operand (`words.len()` if none).
pub(super) fn read<'a, W: Word>(
    spec: &Spec,
    words: &'a [W],
    mut at: usize,
    visit: &mut impl FnMut(Opt<'a>),
) -> Result<usize, Unread> {
    while let Some(word) = words.get(at) {
        let text = word.text();
        if !word.is_literal() {
            return Err(Unread::RunTime);
        }
        if text == "--" {
            return Ok(at + 1);
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, _)) => (name, Some((at, 2 + name.len() + 1))),
                None => (long, None),
            };
            if spec.long_values.contains(&name) {
                let value = match value {
                    Some(value) => value,
                    None if at + 1 < words.len() => {
                        at += 1;
                        (at, 0)
                    }
                    None => return Err(Unread::Unknown),
                };
                visit(Opt::Long(name, Some(value)));
            } else if spec.long_flags.contains(&name) {
                visit(Opt::Long(name, value));
            } else {
                return Err(Unread::Unknown);
            }
            at += 1;
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return Ok(at);
        };
        if spec.numbers && cluster.bytes().all(|b| b.is_ascii_digit()) {
            visit(Opt::Short('0', Some((at, 1))));
            at += 1;
            continue;
        }
        let mut next = at + 1;
        for (offset, letter) in cluster.char_indices() {
            let rest = 1 + offset + letter.len_utf8();
            if spec.values.contains(letter) {
                let value = if rest < text.len() {
                    (at, rest)
                } else if next < words.len() {
                    next += 1;
                    (next - 1, 0)
                } else {
                    return Err(Unread::Unknown);
                };
                visit(Opt::Short(letter, Some(value)));
                break;
            }
            if spec.optional.contains(letter) {
                visit(Opt::Short(
                    letter,
                    (rest < text.len()).then_some((at, rest)),
                ));
                break;
            }
            if !spec.flags.contains(letter) {
                return Err(Unread::Unknown);
            }
            visit(Opt::Short(letter, None));
        }
        at = next;
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    const XARGS: Spec = Spec {
        values: "adEILnPs",
        optional: "eil",
        flags: "0prtx",
        long_values: &["max-args"],
        long_flags: &["null", "replace"],
        numbers: false,
    };

    fn opts(command: &'static str) -> (Vec<Opt<'static>>, Result<usize, Unread>) {
        let words: &'static [&'static str] = Vec::leak(command.split(' ').collect());
        let mut seen = Vec::new();
        let end = read(&XARGS, words, 1, &mut |opt| seen.push(opt));
        (seen, end)
    }

    #[test]
    fn clusters_values_and_long_options() {
        let (seen, end) = opts("xargs -0rn 1 -I{} --null --max-args=3 git {}");
        assert_eq!(end, Ok(6));
        assert_eq!(
            seen,
            [
                Opt::Short('0', None),
                Opt::Short('r', None),
                Opt::Short('n', Some((2, 0))),
                Opt::Short('I', Some((3, 2))),
                Opt::Long("null", None),
                Opt::Long("max-args", Some((5, 11))),
            ]
        );
        assert_eq!(opts("xargs -i git").0, [Opt::Short('i', None)]);
        assert_eq!(opts("xargs -iX git").0, [Opt::Short('i', Some((1, 2)))]);
        assert_eq!(opts("xargs -- -git").1, Ok(2));
        assert_eq!(opts("xargs git -n 1").1, Ok(1));
    }

    #[test]
    fn what_it_does_not_know_is_unread() {
        assert_eq!(opts("xargs -q git").1, Err(Unread::Unknown));
        assert_eq!(opts("xargs --frobnicate git").1, Err(Unread::Unknown));
        assert_eq!(opts("xargs -n").1, Err(Unread::Unknown));
    }
}
