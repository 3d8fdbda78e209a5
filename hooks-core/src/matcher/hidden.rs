//! Text bash runs that no command of the script shows: a variable's value
//! evaluated as arithmetic (whose array subscripts run `$(…)`), prompt
//! expansion, callbacks, startup files, command tables, history. Where one
//! may run, what runs is only known at run time.

use brush_parser::word::{Parameter, ParameterExpr, ParameterTransformOp};

use super::command::{Word, basename};
use super::options::{self, Opt, Spec};

/// Why bash may run text that no command of the script shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unseen {
    /// The command does not parse as bash, nests too deep, expands to too
    /// many words, or made the parser fail.
    Unreadable,
    /// A shell reads its script from its input or from a file named at run time.
    ShellInput,
    /// `source` or `.`: a file's commands, run by this shell.
    Sourced,
    /// `parallel`, `xargs -I` with a run-time string: commands made at run time.
    MadeAtRunTime,
    /// Arithmetic evaluates a variable: array subscripts in its value run commands.
    Arithmetic,
    /// An array subscript that is not a number is evaluated as arithmetic.
    Subscript,
    /// A variable whose name is decided at run time: `${!x}`, `read "$x"`.
    RunTimeName,
    /// `declare -i` (later assignments are arithmetic) or `-n` (a name reference).
    Attribute,
    /// `${x@P}`: prompt expansion runs the `$(…)` in a value.
    PromptExpansion,
    /// A variable bash runs text from: `PS4`, `PROMPT_COMMAND`, `BASH_ENV`, `SHELLOPTS`…
    ShellVariable,
    /// A function passed in the environment (`BASH_FUNC_name%%`).
    ExportedFunction,
    /// `BASH_ALIASES`, `BASH_CMDS` or `hash -p`: a name made to run another program.
    CommandTable,
    /// A command a builtin runs on each line or completion: `mapfile -C`, `compgen -C`, `bind -x`.
    Callback,
    /// `enable -f`: a builtin loaded from a shared library.
    Loadable,
    /// History expansion (`set -H`) or `fc`: commands from the history list.
    History,
}

impl Unseen {
    /// Why it may run anything, in words.
    pub(super) fn explain(self) -> &'static str {
        match self {
            Unseen::Unreadable => {
                "it cannot be read as bash (it does not parse, nests too deep, or expands to too \
                 many words)"
            }
            Unseen::ShellInput => {
                "a shell runs a script from its input or from a file named at run time"
            }
            Unseen::Sourced => "`source` runs the commands of a file, which are not known here",
            Unseen::MadeAtRunTime => "the commands it runs are made at run time",
            Unseen::Arithmetic => {
                "arithmetic evaluates a variable, and array subscripts in its value run commands"
            }
            Unseen::Subscript => {
                "an array subscript that is not a number is evaluated as arithmetic, which can \
                 run commands"
            }
            Unseen::RunTimeName => {
                "a variable named at run time may be an array element whose subscript runs \
                 commands"
            }
            Unseen::Attribute => {
                "`-i` makes every later assignment arithmetic, and `-n` makes a name stand for \
                 another, either of which can run commands"
            }
            Unseen::PromptExpansion => "prompt expansion (`@P`) runs the commands in a value",
            Unseen::ShellVariable => {
                "bash runs text from this variable (a prompt, a startup file or shell options)"
            }
            Unseen::ExportedFunction => {
                "a function passed in the environment runs in place of a command"
            }
            Unseen::CommandTable => "it makes a command name run another program",
            Unseen::Callback => "a builtin runs a command given as text",
            Unseen::Loadable => "`enable -f` loads a builtin from a shared library",
            Unseen::History => "commands from the history list run again",
        }
    }
}

/// Variables bash takes text to run from, or shell options: assigning one
/// may run anything later (in this shell or a child).
const SHELL_VARIABLES: &[&str] = &[
    "BASHOPTS",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS0",
    "PS1",
    "PS2",
    "PS4",
    "SHELLOPTS",
];

/// Tables of what a command name runs.
const COMMAND_TABLES: &[&str] = &["BASH_ALIASES", "BASH_CMDS"];

/// What the simple command `words` runs unseen, whatever its program: any
/// word assigning a variable bash runs text from (as `env`, `sudo`,
/// `declare` or a prefix assignment would), and `{a[x]}` redirection names.
pub(super) fn in_words<W: Word>(words: &[W]) -> Option<Unseen> {
    words.iter().find_map(|word| {
        // `{a[x]}>file` names a variable for the descriptor (its `[x]` looks
        // like a pathname glob, a run-time part, but is not).
        if let Some(name) = word
            .text()
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
        {
            return variable(name, true);
        }
        let text = &word.text()[..word.literal_len()];
        if text.starts_with("BASH_FUNC_") {
            return Some(Unseen::ExportedFunction);
        }
        // Byte by byte: this runs on every word of every command.
        let end = text.bytes().position(|b| b == b'=' || b == b'[')?;
        let name = text[..end].strip_suffix('+').unwrap_or(&text[..end]);
        assigned(name)
    })
}

/// What assigning the variable `name` may run.
pub(super) fn assigned(name: &str) -> Option<Unseen> {
    if SHELL_VARIABLES.contains(&name) {
        Some(Unseen::ShellVariable)
    } else if COMMAND_TABLES.contains(&name) {
        Some(Unseen::CommandTable)
    } else if name.starts_with("BASH_FUNC_") {
        Some(Unseen::ExportedFunction)
    } else {
        None
    }
}

/// What the builtin or program at word `at` of `words` runs unseen.
pub(super) fn in_command<W: Word>(words: &[W], at: usize) -> Option<Unseen> {
    let word = &words[at];
    if !word.is_literal() {
        return None;
    }
    let rest = at + 1;
    match word.text() {
        "source" | "." => Some(Unseen::Sourced),
        "fc" => Some(Unseen::History),
        "let" => words[rest..].iter().find_map(arithmetic_word),
        "declare" | "typeset" | "local" => declared(words, rest, true),
        "export" | "readonly" => declared(words, rest, false),
        "unset" => names(words, rest, &UNSET, &mut |_| None, |_| true),
        "read" => names(words, rest, &READ, &mut |opt| named_by(opt, 'a'), |_| true),
        "printf" => names(words, rest, &PRINTF, &mut |opt| named_by(opt, 'v'), |_| {
            false
        }),
        "wait" => names(words, rest, &WAIT, &mut |opt| named_by(opt, 'p'), |_| false),
        "getopts" => words.get(rest + 1).and_then(|w| variable_word(w)),
        "mapfile" | "readarray" => {
            let mut callback = false;
            let mut is_callback = |opt: Opt<'_>| {
                callback |= matches!(opt, Opt::Short('C', _));
                None
            };
            let named = names(words, rest, &MAPFILE, &mut is_callback, |_| true);
            named.or(callback.then_some(Unseen::Callback))
        }
        "test" | "[" => words
            .windows(2)
            .skip(rest)
            .find(|pair| pair[0].is_literal() && pair[0].text() == "-v")
            .and_then(|pair| variable_word(&pair[1])),
        "compgen" | "complete" => has_letter(words, rest, &COMPLETE, "CF", Unseen::Callback),
        "bind" => has_letter(words, rest, &BIND, "x", Unseen::Callback),
        "hash" => has_letter(words, rest, &HASH, "p", Unseen::CommandTable),
        "enable" => has_letter(words, rest, &ENABLE, "f", Unseen::Loadable),
        "set" => set_options(words, rest),
        "shopt" => (words[rest..]
            .iter()
            .any(|w| w.text().starts_with('-') && w.text().contains('o'))
            && words[rest..].iter().any(|w| w.text() == "histexpand"))
        .then_some(Unseen::History),
        text if (text.ends_with("parallel") || text.ends_with("sem"))
            && matches!(basename(text), "parallel" | "sem") =>
        {
            Some(Unseen::MadeAtRunTime)
        }
        _ => None,
    }
}

const UNSET: Spec = Spec {
    values: "",
    optional: "",
    flags: "fvn",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const READ: Spec = Spec {
    values: "adinNptu",
    optional: "",
    flags: "ers",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const PRINTF: Spec = Spec {
    values: "v",
    optional: "",
    flags: "",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const WAIT: Spec = Spec {
    values: "p",
    optional: "",
    flags: "fn",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const MAPFILE: Spec = Spec {
    values: "dnOsuCc",
    optional: "",
    flags: "t",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const COMPLETE: Spec = Spec {
    values: "oAGWFCXPS",
    optional: "",
    flags: "abcdefgjksuvprDEI",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const BIND: Spec = Spec {
    values: "mqurfxX",
    optional: "",
    flags: "lpsvPSV",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const HASH: Spec = Spec {
    values: "pdt",
    optional: "",
    flags: "lr",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};
const ENABLE: Spec = Spec {
    values: "fd",
    optional: "",
    flags: "apsn",
    long_values: &[],
    long_flags: &[],
    numbers: false,
};

fn named_by(opt: Opt<'_>, letter: char) -> Option<(usize, usize)> {
    match opt {
        Opt::Short(l, value) if l == letter => value,
        _ => None,
    }
}

/// The variable names a builtin is given: option values `named` picks, and
/// its operands if `operands` says so. A builtin whose options cannot be read
/// may be given any name.
fn names<W: Word>(
    words: &[W],
    at: usize,
    spec: &Spec,
    named: &mut impl FnMut(Opt<'_>) -> Option<(usize, usize)>,
    operands: impl Fn(usize) -> bool,
) -> Option<Unseen> {
    let mut found = None;
    let end = options::read(spec, words, at, &mut |opt| {
        if let Some((word, skip)) = named(opt) {
            found = found.or_else(|| variable_in(&words[word], skip));
        }
    });
    match end {
        Err(options::Unread::RunTime) => Some(Unseen::RunTimeName),
        // An unknown option: the builtin refuses to run.
        Err(options::Unread::Unknown) => found,
        Ok(end) => found.or_else(|| {
            (end..words.len())
                .filter(|&w| operands(w))
                .find_map(|w| variable_word(&words[w]))
        }),
    }
}

/// `declare`-like builtins: `-i` and `-n` (where `attributes`), names with
/// subscripts, names decided at run time.
fn declared<W: Word>(words: &[W], at: usize, attributes: bool) -> Option<Unseen> {
    let mut operands = false;
    for word in &words[at..] {
        let text = word.text();
        if !operands && word.is_literal() && text == "--" {
            operands = true;
        } else if !operands && word.is_literal() && (text.starts_with('-') || text.starts_with('+'))
        {
            if attributes && text.starts_with('-') && text.contains(['i', 'n']) {
                return Some(Unseen::Attribute);
            }
        } else if let Some(unseen) = variable_word(word) {
            return Some(unseen);
        }
    }
    None
}

/// `set -H` or `set -o histexpand`.
fn set_options<W: Word>(words: &[W], at: usize) -> Option<Unseen> {
    let mut option_name = false;
    for word in &words[at..] {
        let text = word.text();
        if !word.is_literal() {
            return Some(Unseen::History);
        }
        if option_name {
            if text == "histexpand" {
                return Some(Unseen::History);
            }
            option_name = false;
            continue;
        }
        if let Some(flags) = text.strip_prefix('-').filter(|_| text != "--") {
            if flags.contains('H') {
                return Some(Unseen::History);
            }
            option_name = flags.contains('o');
        } else if !text.starts_with('+') {
            break; // the positional parameters
        }
    }
    None
}

/// Whether a builtin is given one of the option `letters`: an unreadable
/// option word may be any of them.
fn has_letter<W: Word>(
    words: &[W],
    at: usize,
    spec: &Spec,
    letters: &str,
    unseen: Unseen,
) -> Option<Unseen> {
    let mut found = false;
    let end = options::read(spec, words, at, &mut |opt| {
        found |= matches!(opt, Opt::Short(letter, _) if letters.contains(letter));
    });
    (found || end == Err(options::Unread::RunTime)).then_some(unseen)
}

/// A word naming a variable (`x`, `a[1]`, `x=value`): what naming it may run.
fn variable_word<W: Word>(word: &W) -> Option<Unseen> {
    variable_in(word, 0)
}

/// The variable named in `word` from byte `skip` on, up to any `=`.
fn variable_in<W: Word>(word: &W, skip: usize) -> Option<Unseen> {
    let text = word.text().get(skip..)?;
    let literal = word.literal_len().saturating_sub(skip);
    let end = text.find('=').unwrap_or(text.len());
    if literal < end {
        return Some(Unseen::RunTimeName);
    }
    let name = &text[..end];
    variable(name.strip_suffix('+').unwrap_or(name), false)
}

/// A variable name, with any subscript (`a[$i]`).
fn variable(name: &str, only_subscripts: bool) -> Option<Unseen> {
    if let Some((array, index)) = name.split_once('[') {
        let index = index.strip_suffix(']').unwrap_or(index);
        return subscript(index).or_else(|| {
            if only_subscripts {
                None
            } else {
                assigned(array)
            }
        });
    }
    if only_subscripts {
        None
    } else {
        assigned(name)
    }
}

/// An array subscript: a number is safe, anything else is arithmetic on
/// variables (or an associative array's key, which cannot be told apart).
pub(super) fn subscript(index: &str) -> Option<Unseen> {
    if matches!(index, "@" | "*") || arithmetic(index).is_none() {
        None
    } else {
        Some(Unseen::Subscript)
    }
}

/// An arithmetic expression, as written: only numbers, operators and the
/// parameters that are always numbers (`$#`, `$?`, `$$`, `$!`) are safe; a
/// name, `$x`, `$(…)` or a quote may evaluate a variable's value.
pub(super) fn arithmetic(expr: &str) -> Option<Unseen> {
    let bytes = expr.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'$' => match (bytes.get(at + 1), bytes.get(at + 2), bytes.get(at + 3)) {
                (Some(b'#' | b'?' | b'$' | b'!'), _, _) => at += 1,
                (Some(b'{'), Some(b'#' | b'?' | b'$' | b'!'), Some(b'}')) => at += 3,
                _ => return Some(Unseen::Arithmetic),
            },
            b'0'..=b'9'
            | b'+'
            | b'-'
            | b'*'
            | b'/'
            | b'%'
            | b'<'
            | b'>'
            | b'='
            | b'!'
            | b'&'
            | b'|'
            | b'^'
            | b'~'
            | b'?'
            | b':'
            | b','
            | b'('
            | b')'
            | b'#' => {}
            b if b.is_ascii_whitespace() => {}
            _ => return Some(Unseen::Arithmetic),
        }
        at += 1;
    }
    None
}

/// A word evaluated as arithmetic (`let` arguments, `[[ -eq ]]` operands).
pub(super) fn arithmetic_word<W: Word>(word: &W) -> Option<Unseen> {
    if word.is_literal() {
        arithmetic(word.text())
    } else {
        Some(Unseen::Arithmetic)
    }
}

/// What a parameter expansion runs unseen: `${a[$i]}`, `${!x}`, `${x:$n}`, `${x@P}`.
pub(super) fn parameter(expr: &ParameterExpr) -> Option<Unseen> {
    let (parameter, indirect) = expanded(expr)?;
    if indirect {
        return Some(Unseen::RunTimeName);
    }
    if let Parameter::NamedWithIndex { index, .. } = parameter
        && let Some(unseen) = subscript(index)
    {
        return Some(unseen);
    }
    match expr {
        ParameterExpr::Substring { offset, length, .. } => arithmetic(&offset.value)
            .or_else(|| length.as_ref().and_then(|length| arithmetic(&length.value))),
        ParameterExpr::Transform {
            op: ParameterTransformOp::PromptExpand,
            ..
        } => Some(Unseen::PromptExpansion),
        _ => None,
    }
}

/// The parameter an expansion reads, and whether through its value (`${!x}`).
fn expanded(expr: &ParameterExpr) -> Option<(&Parameter, bool)> {
    Some(match expr {
        ParameterExpr::Parameter {
            parameter,
            indirect,
        }
        | ParameterExpr::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ParameterLength {
            parameter,
            indirect,
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Substring {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Transform {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => (parameter, *indirect),
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> Option<Unseen> {
        let words: Vec<&str> = text.split_whitespace().collect();
        in_words(&words).or_else(|| in_command(&words, 0))
    }

    #[test]
    fn arithmetic_is_safe_on_numbers_only() {
        for safe in [
            "1 + 2",
            "(1 << 4) % 3",
            "$# > 0",
            "${?} == 0",
            "$$",
            "2#101",
            "",
        ] {
            assert_eq!(arithmetic(safe), None, "{safe}");
        }
        for unsafe_ in ["x", "x + 1", "$x", "a[0]", "$(id)", "\"1\"", "0x1f", "$1"] {
            assert_eq!(arithmetic(unsafe_), Some(Unseen::Arithmetic), "{unsafe_}");
        }
        assert_eq!(subscript("0"), None);
        assert_eq!(subscript("-1"), None);
        assert_eq!(subscript("@"), None);
        assert_eq!(subscript("i"), Some(Unseen::Subscript));
        assert_eq!(subscript("$i"), Some(Unseen::Subscript));
    }

    #[test]
    fn builtins_that_run_text_are_found() {
        let found = [
            ("source x", Unseen::Sourced),
            (". x", Unseen::Sourced),
            ("let x", Unseen::Arithmetic),
            // Names are variables, even assigned: `let` is safe on numbers only.
            ("let x=1+2", Unseen::Arithmetic),
            ("declare -i x", Unseen::Attribute),
            ("local -rn x=y", Unseen::Attribute),
            ("declare a[i]=1", Unseen::Subscript),
            ("read -r a[i]", Unseen::Subscript),
            ("read -ra a[i]", Unseen::Subscript),
            ("printf -v a[i] x", Unseen::Subscript),
            ("unset a[i]", Unseen::Subscript),
            ("mapfile -C cb -c 1 lines", Unseen::Callback),
            ("readarray -tC cb", Unseen::Callback),
            ("compgen -C cmd x", Unseen::Callback),
            ("complete -F f x", Unseen::Callback),
            ("bind -x keys:cmd", Unseen::Callback),
            ("hash -p /bin/git ls", Unseen::CommandTable),
            ("enable -f ./x.so x", Unseen::Loadable),
            ("set -eH", Unseen::History),
            ("set -o histexpand", Unseen::History),
            ("shopt -so histexpand", Unseen::History),
            ("fc -s", Unseen::History),
            ("test -v a[i]", Unseen::Subscript),
            ("getopts ab a[i]", Unseen::Subscript),
            ("parallel git ::: push", Unseen::MadeAtRunTime),
            ("sem git push", Unseen::MadeAtRunTime),
            ("mapfile -t a[i]", Unseen::Subscript),
            ("wait -p a[i]", Unseen::Subscript),
            ("local a[i]=1", Unseen::Subscript),
            ("PS1=x", Unseen::ShellVariable),
            ("PS0=x", Unseen::ShellVariable),
            ("export PROMPT_COMMAND=x", Unseen::ShellVariable),
            ("SHELLOPTS=xtrace bash", Unseen::ShellVariable),
            ("read PS4", Unseen::ShellVariable),
            ("export BASH_ENV=x", Unseen::ShellVariable),
            ("env BASH_ENV=x bash", Unseen::ShellVariable),
            ("BASH_ENV=x bash", Unseen::ShellVariable),
            ("PS4=x", Unseen::ShellVariable),
            ("env BASH_FUNC_ls%%=x bash", Unseen::ExportedFunction),
            ("BASH_CMDS[ls]=/bin/git", Unseen::CommandTable),
            ("exec {a[i]}", Unseen::Subscript),
        ];
        for (text, unseen) in found {
            assert_eq!(command(text), Some(unseen), "{text}");
        }
        for safe in [
            "let 1+2",
            "declare -r x=1",
            "declare -p",
            "export -n x",
            "read -r line",
            "read -p prompt x",
            "printf '%s' a[i]",
            "mapfile -t lines",
            "hash -r",
            "enable -n echo",
            "set -ex",
            "set -o errexit -- -H",
            "test -f a[i]",
            "complete -W words x",
            "echo a[i]=1",
            "grep PS4 x",
            "exec {fd}",
        ] {
            assert_eq!(command(safe), None, "{safe}");
        }
    }
}
