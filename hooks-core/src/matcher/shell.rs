//! Shell commands read as bash reads them (with brush-parser): every simple
//! command bash would run, its words as the program receives them.

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast::{
    AndOr, BinaryPredicate, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    ExtendedTestExpr, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Program, RedirectList,
    SimpleCommand, UnaryPredicate,
};
use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions, ast};
use hooks_events::pattern::glob_matches_words;

use super::command::{self, Part, Word, written};
use super::hidden::{self, Unseen};
use super::word::{Line, ShellWord, decode_ansi_c, expand_braces};
use super::wrapper::added_arguments;

/// How many scripts deep (`$(…)` in `bash -c '…'` in `eval …`) commands are read.
const MAX_DEPTH: usize = 8;
/// The most words one brace expansion may make.
const MAX_BRACE_WORDS: usize = 256;
/// The most places a script may open a nesting level.
const MAX_OPENERS: usize = 1_000;
/// Stack for parsing: the parser recurses once per nesting level, about
/// 20 KiB a level in a debug build; this leaves room to spare.
const STACK_BASE: usize = 256 * 1024;
const STACK_PER_OPENER: usize = 64 * 1024;

/// Bash's syntax as a non-interactive bash reads it. Without `extglob` (off
/// unless a script turns it on), `!(cmd)` is a command, not a pattern.
pub(super) fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// A command subject, parsed at most once however many globs ask about it.
#[derive(Default)]
pub(super) struct Command {
    parsed: Option<Parsed>,
}

impl Command {
    /// Whether `glob` (one space between words) matches `command` as written,
    /// or any simple command in it.
    pub(super) fn matches(&mut self, glob: &str, command: &str) -> bool {
        if glob_matches_words(glob, command) {
            return true;
        }
        if let Some(parsed) = &self.parsed {
            return parsed.matches(glob);
        }
        if let Some(found) = command::plain_matches(glob, command) {
            return found;
        }
        self.parsed.insert(Parsed::new(command)).matches(glob)
    }
}

/// Everything bash would run for a command: each simple command, and the
/// first place where it may run text no command shows.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// Each simple command as globs see it, from every place a program may start.
    lines: Vec<Line>,
    /// Each simple command as written: for allow-lists.
    pub(super) commands: Vec<Simple>,
    /// The first place bash may run text no command shows, and its text.
    pub(super) unseen: Option<(Unseen, String)>,
    /// Files redirections open, in order.
    pub(super) redirects: Vec<Redirect>,
    /// Functions defined, by name.
    pub(super) functions: Vec<String>,
}

/// One simple command: its leading assignments, and its words.
#[derive(Debug)]
pub(super) struct Simple {
    pub(super) assignments: Vec<ShellWord>,
    pub(super) words: Vec<ShellWord>,
}

/// A file a redirection opens.
#[derive(Debug)]
pub(super) struct Redirect {
    /// `>`, `>>`, `>|`, `<>`, `&>`, `>&file`: opened for writing.
    pub(super) writes: bool,
    pub(super) target: ShellWord,
}

impl Parsed {
    pub(super) fn new(command: &str) -> Self {
        let mut parsed = Parsed::default();
        // The parser is someone else's code fed an attacker's text: if it
        // panics, the command is unreadable, not the agent down.
        if catch_unwind(AssertUnwindSafe(|| parsed.read(command, 0))).is_err() {
            parsed.unseen(Unseen::Unreadable, command);
        }
        parsed
    }

    /// What bash may run unseen matches every glob: a guard on it runs.
    fn matches(&self, glob: &str) -> bool {
        self.unseen.is_some() || self.lines.iter().any(|line| line.matches(glob))
    }

    /// Keeps the first place bash may run text no command shows.
    fn unseen(&mut self, why: Unseen, part: &str) {
        if self.unseen.is_none() {
            self.unseen = Some((why, part.to_owned()));
        }
    }

    fn read(&mut self, script: &str, depth: usize) {
        let openers = openers(script);
        if depth > MAX_DEPTH || openers > MAX_OPENERS {
            self.unseen(Unseen::Unreadable, script);
            return;
        }
        let stack = STACK_BASE + openers * STACK_PER_OPENER;
        stacker::maybe_grow(stack, stack, || {
            match Parser::new(script.as_bytes(), &options()).parse_program() {
                Ok(program) => Walk {
                    parsed: self,
                    depth,
                }
                .program(&program),
                Err(_) => self.unseen(Unseen::Unreadable, script),
            }
        });
    }
}

/// An upper bound on how deeply `script` nests: every character that may open
/// a level, and every word that may open a compound command.
fn openers(script: &str) -> usize {
    let characters = script
        .bytes()
        .filter(|b| matches!(b, b'(' | b'{' | b'`' | b'!' | b'&' | b'|'))
        .count();
    let keywords = script
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| {
            matches!(
                *word,
                "if" | "then" | "while" | "until" | "do" | "for" | "case" | "select" | "coproc"
            )
        })
        .count();
    characters + keywords
}

/// A walk over one script's syntax tree.
struct Walk<'p> {
    parsed: &'p mut Parsed,
    depth: usize,
}

impl Walk<'_> {
    fn program(&mut self, program: &Program) {
        for list in &program.complete_commands {
            self.list(list);
        }
    }

    fn list(&mut self, list: &CompoundList) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first);
            for AndOr::And(pipeline) | AndOr::Or(pipeline) in &and_or.additional {
                self.pipeline(pipeline);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline) {
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &ast::Command) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound);
                self.redirects(redirects.as_ref());
            }
            ast::Command::Function(function) => {
                self.parsed.functions.push(function.fname.value.clone());
                // Its body runs whenever it is called: read it where it is defined.
                self.compound(&function.body.0);
                self.redirects(function.body.1.as_ref());
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.test(&test.expr);
                self.redirects(redirects.as_ref());
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::Arithmetic(arithmetic) => self.arithmetic(&arithmetic.expr.value),
            CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value);
                }
                self.list(&clause.body.list);
            }
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.expansions(&value.value);
                }
                self.list(&clause.body.list);
            }
            CompoundCommand::CaseClause(clause) => {
                self.expansions(&clause.value.value);
                for case in &clause.cases {
                    for pattern in &case.patterns {
                        self.expansions(&pattern.value);
                    }
                    if let Some(list) = &case.cmd {
                        self.list(list);
                    }
                }
            }
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition);
                self.list(&clause.then);
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.list(condition);
                    }
                    self.list(&branch.body);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0);
                self.list(&clause.1.list);
            }
            CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body),
        }
    }

    fn test(&mut self, expr: &ExtendedTestExpr) {
        match expr {
            ExtendedTestExpr::And(left, right) | ExtendedTestExpr::Or(left, right) => {
                self.test(left);
                self.test(right);
            }
            ExtendedTestExpr::Not(expr) | ExtendedTestExpr::Parenthesized(expr) => self.test(expr),
            ExtendedTestExpr::UnaryTest(predicate, word) => {
                let name = self.word(&word.value);
                if matches!(
                    predicate,
                    UnaryPredicate::ShellVariableIsSetAndAssigned
                        | UnaryPredicate::ShellVariableIsSetAndNameRef
                ) {
                    let why = if name.is_literal() {
                        name.text()
                            .split_once('[')
                            .and_then(|(_, index)| hidden::subscript(index.trim_end_matches(']')))
                    } else {
                        Some(Unseen::RunTimeName)
                    };
                    if let Some(why) = why {
                        self.parsed.unseen(why, &word.value);
                    }
                }
            }
            ExtendedTestExpr::BinaryTest(predicate, left, right) => {
                // `-eq` and the like evaluate both sides as arithmetic.
                let arithmetic = matches!(
                    predicate,
                    BinaryPredicate::ArithmeticEqualTo
                        | BinaryPredicate::ArithmeticNotEqualTo
                        | BinaryPredicate::ArithmeticLessThan
                        | BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | BinaryPredicate::ArithmeticGreaterThan
                        | BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                );
                for side in [left, right] {
                    self.expansions(&side.value);
                    if arithmetic && let Some(why) = hidden::arithmetic(&side.value) {
                        self.parsed.unseen(why, &side.value);
                    }
                }
            }
        }
    }

    /// An arithmetic expression bash evaluates: its `$(…)` run, and any
    /// variable it names may hold subscripts that run more.
    fn arithmetic(&mut self, expr: &str) {
        self.expansions(expr);
        if let Some(why) = hidden::arithmetic(expr) {
            self.parsed.unseen(why, expr);
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let mut assignments = Vec::new();
        let mut words = Vec::new();
        for item in simple.prefix.iter().flat_map(|prefix| &prefix.0) {
            match item {
                // `A=$(…) cmd`: the assignment is no word of the command.
                CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                    assignments.push(self.assignment(assignment, &word.value));
                }
                item => self.item(item, &mut words),
            }
        }
        if let Some(name) = &simple.word_or_name {
            self.words(&name.value, &mut words);
        }
        for item in simple.suffix.iter().flat_map(|suffix| &suffix.0) {
            self.item(item, &mut words);
        }
        let added = added_arguments(&mut words).unwrap_or_else(|why| {
            self.parsed.unseen(why, &written(&words));
            Vec::new()
        });
        let mut starts = Vec::new();
        command::scan(&words, &mut |part| {
            match part {
                Part::Start { word, skip } => starts.push((word, skip)),
                Part::Script { word, skip } => self.script(&words[word].text()[skip..]),
                Part::Joined(from) => {
                    let joined: Vec<&str> = words[from..].iter().map(Word::text).collect();
                    self.script(&joined.join(" "));
                }
                Part::Unseen(why) => self.parsed.unseen(why, &written(&words)),
            }
            false
        });
        // An argument `xargs` or `find` adds is no program, unless it may be one.
        starts.retain(|&(word, _)| {
            added
                .iter()
                .filter(|added| added.word == word)
                .all(|added| added.may_run(&words))
        });
        if !starts.is_empty() {
            self.parsed.lines.push(Line::new(&words, &starts));
        }
        // `GIT` runs git where file names ignore case (macOS).
        for &(word, skip) in &starts {
            if words[word].is_literal() && command::has_capitals(&words[word].text()[skip..]) {
                let mut lowered = words.clone();
                lowered[word] = ShellWord::default();
                lowered[word].push_literal(&words[word].text().to_ascii_lowercase());
                self.parsed.lines.push(Line::new(&lowered, &[(word, skip)]));
            }
        }
        self.parsed.commands.push(Simple { assignments, words });
    }

    fn item(&mut self, item: &CommandPrefixOrSuffixItem, words: &mut Vec<ShellWord>) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect),
            // `export A=$(…)`: an argument.
            CommandPrefixOrSuffixItem::Word(word)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => self.words(&word.value, words),
            // Its word is a path to a pipe, which bash makes.
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.list(&subshell.list);
                let mut pipe = ShellWord::default();
                pipe.push_literal("/dev/fd/63");
                words.push(pipe);
            }
        }
    }

    /// A leading `NAME=value`: what it runs, and the word it is as written.
    fn assignment(&mut self, assignment: &ast::Assignment, raw: &str) -> ShellWord {
        let (name, index) = match &assignment.name {
            ast::AssignmentName::VariableName(name) => (name, None),
            ast::AssignmentName::ArrayElementName(name, index) => (name, Some(index)),
        };
        let why = hidden::assigned(name).or_else(|| index.and_then(|i| hidden::subscript(i)));
        if let Some(why) = why {
            self.parsed.unseen(why, raw);
        }
        if let ast::AssignmentValue::Array(values) = &assignment.value {
            for key in values.iter().filter_map(|(key, _)| key.as_ref()) {
                if let Some(why) = hidden::subscript(&key.value) {
                    self.parsed.unseen(why, raw);
                }
            }
        }
        // Read as one word: its `$(…)` run, and its value is its text.
        self.word(raw)
    }

    fn redirects(&mut self, redirects: Option<&RedirectList>) {
        for redirect in redirects.iter().flat_map(|list| &list.0) {
            self.redirect(redirect);
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect) {
        match redirect {
            IoRedirect::File(_, kind, target) => match target {
                IoFileRedirectTarget::Filename(word) | IoFileRedirectTarget::Duplicate(word) => {
                    let target = self.word(&word.value);
                    // `>&2`, `<&0`, `>&-`: a descriptor, not a file.
                    let descriptor = matches!(
                        kind,
                        IoFileRedirectKind::DuplicateInput | IoFileRedirectKind::DuplicateOutput
                    ) && target.is_literal()
                        && !target.text().is_empty()
                        && target
                            .text()
                            .trim_end_matches('-')
                            .bytes()
                            .all(|b| b.is_ascii_digit());
                    if !descriptor {
                        let writes = !matches!(
                            kind,
                            IoFileRedirectKind::Read | IoFileRedirectKind::DuplicateInput
                        );
                        self.parsed.redirects.push(Redirect { writes, target });
                    }
                }
                IoFileRedirectTarget::Fd(_) => {}
                IoFileRedirectTarget::ProcessSubstitution(_, subshell) => self.list(&subshell.list),
            },
            // `<<'EOF'` is not expanded: its `$(…)` is text.
            IoRedirect::HereDocument(_, doc) if doc.requires_expansion => {
                match word::parse_heredoc(&doc.doc.value, &options()) {
                    Ok(pieces) => {
                        let mut text = ShellWord::default();
                        self.pieces(&pieces, &doc.doc.value, true, &mut text);
                    }
                    Err(_) => self.parsed.unseen(Unseen::Unreadable, &doc.doc.value),
                }
            }
            IoRedirect::HereDocument(..) => {}
            IoRedirect::HereString(_, word) => self.expansions(&word.value),
            IoRedirect::OutputAndError(word, _) => {
                let target = self.word(&word.value);
                self.parsed.redirects.push(Redirect {
                    writes: true,
                    target,
                });
            }
        }
    }

    /// The words bash makes of the word written `raw`.
    fn words(&mut self, raw: &str, words: &mut Vec<ShellWord>) {
        match expand_braces(raw, MAX_BRACE_WORDS) {
            Some(expanded) => words.extend(expanded.iter().map(|raw| self.word(raw))),
            None => self.parsed.unseen(Unseen::Unreadable, raw),
        }
    }

    fn word(&mut self, raw: &str) -> ShellWord {
        let mut word = ShellWord::default();
        match word::parse(raw, &options()) {
            Ok(pieces) => self.pieces(&pieces, raw, false, &mut word),
            Err(_) => {
                self.parsed.unseen(Unseen::Unreadable, raw);
                word.push_runtime(raw);
            }
        }
        word
    }

    /// Reads the commands a word that is no command's runs (`>"$(…)"`, `A=$(…)`).
    fn expansions(&mut self, raw: &str) {
        self.word(raw);
    }

    fn pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        source: &str,
        quoted: bool,
        word: &mut ShellWord,
    ) {
        for piece in pieces {
            let written = &source[piece.start_index..piece.end_index];
            match &piece.piece {
                WordPiece::Text(text) if quoted => word.push_literal(text),
                WordPiece::Text(text) => word.push_unquoted(text),
                WordPiece::SingleQuotedText(text) => word.push_literal(text),
                WordPiece::AnsiCQuotedText(text) => word.push_literal(&decode_ansi_c(text)),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(inner, source, true, word);
                }
                // A home directory: a path, whose last component is what it is.
                WordPiece::TildeExpansion(_) => word.push_literal(written),
                WordPiece::EscapeSequence(escape) => word.push_literal(unescape(escape, quoted)),
                WordPiece::ParameterExpansion(expr) => {
                    word.push_runtime(written);
                    if let Some(why) = hidden::parameter(expr) {
                        self.parsed.unseen(why, written);
                    }
                    // `${x:-$(…)}` runs what its default says.
                    if let Some(inner) =
                        written.strip_prefix("${").and_then(|w| w.strip_suffix('}'))
                    {
                        self.expansions(inner);
                    }
                }
                WordPiece::CommandSubstitution(script)
                | WordPiece::BackquotedCommandSubstitution(script) => {
                    word.push_runtime(written);
                    self.script(script);
                }
                WordPiece::ArithmeticExpression(expr) => {
                    word.push_runtime(written);
                    self.expansions(&expr.value);
                    if let Some(why) = hidden::arithmetic(&expr.value) {
                        self.parsed.unseen(why, written);
                    }
                }
            }
        }
    }

    fn script(&mut self, script: &str) {
        self.parsed.read(script, self.depth + 1);
    }
}

/// What a backslash escape leaves: the character, except inside double
/// quotes where only `$`, `` ` ``, `"`, `\` and a newline are escaped.
fn unescape(escape: &str, quoted: bool) -> &str {
    let escaped = escape.strip_prefix('\\').unwrap_or(escape);
    match escaped {
        "\n" => "",
        "$" | "`" | "\"" | "\\" => escaped,
        _ if quoted => escape,
        _ => escaped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(script: &str) -> Parsed {
        Parsed::new(script)
    }

    fn unreadable(parsed: &Parsed) -> bool {
        matches!(parsed.unseen, Some((Unseen::Unreadable, _)))
    }

    #[test]
    fn each_simple_command_is_a_line() {
        let parsed = commands("cd x && git push; ls | wc -l");
        assert_eq!(parsed.lines.len(), 4);
        assert!(parsed.unseen.is_none());
        assert!(parsed.matches("git push"));
        assert!(parsed.matches("wc -l"));
        assert!(!parsed.matches("x"));
    }

    #[test]
    fn scripts_inside_words_are_read() {
        let parsed = commands("echo \"$(git push)\" `ls` ${x:-$(pwd)} $((1 + $(id -u)))");
        assert!(parsed.matches("git push"));
        assert!(parsed.matches("ls"));
        assert!(parsed.matches("pwd"));
        assert!(parsed.matches("id -u"));
        assert!(parsed.matches("echo *"));
    }

    #[test]
    fn every_place_bash_runs_a_command_is_read_not_guessed() {
        let scripts = [
            "a; git push --force",
            "a || git push --force &",
            "a | git push --force",
            "ls\r\ngit push --force",
            "echo `echo \\`git push --force\\``",
            "tee >(git push --force) < <(ls)",
            "( cd x; { git push --force; } )",
            "if a; then :; elif b; then :; else git push --force; fi",
            "until a; do git push --force; done",
            "for ((i = 0; i < 1; i++)); do git push --force; done",
            "case x in x) git push --force;; esac",
            "function f { git push --force; }",
            "! time git push --force",
            "coproc git push --force",
            "ls > \"$(git push --force)\" 2>&1",
            "(( $(git push --force) ))",
            "[[ -n $(git push --force) && ! -z x ]]",
            "cat <<EOF\n$(git push --force)\nEOF",
            "A=(x $(git push --force)) ls",
            "sudo -u x bash -lc 'cd r && eval \"git push --force\"'",
            "git push $'--for\\x63e'",
            "git push --{force,}",
        ];
        for script in scripts {
            let parsed = commands(script);
            assert!(!unreadable(&parsed), "{script:?} did not parse");
            assert!(parsed.matches("git push --force*"), "{script:?}");
        }
    }

    #[test]
    fn quoted_text_is_not_read() {
        let parsed = commands("echo '$(git push)' \"\\$(ls)\"; cat <<'EOF'\n$(pwd)\nEOF");
        assert!(!parsed.matches("git push"));
        assert!(!parsed.matches("ls"));
        assert!(!parsed.matches("pwd"));
    }

    #[test]
    fn escapes_leave_what_bash_leaves() {
        assert_eq!(unescape("\\g", false), "g");
        assert_eq!(unescape("\\g", true), "\\g");
        assert_eq!(unescape("\\$", true), "$");
        assert_eq!(unescape("\\\n", false), "");
        assert!(commands("g\\it \"pu\\sh\"").matches("git pu\\sh"));
    }

    #[test]
    fn what_does_not_parse_is_unreadable() {
        assert!(unreadable(&commands("echo 'open")));
        assert!(unreadable(&commands("fi")));
        assert!(unreadable(&commands(&"$(".repeat(20))));
        assert!(unreadable(&commands(&format!(
            "{}ls{}",
            "$(".repeat(9),
            ")".repeat(9)
        ))));
        assert!(!unreadable(&commands(&format!(
            "{}ls{}",
            "$(".repeat(8),
            ")".repeat(8)
        ))));
        assert!(unreadable(&commands(&"(".repeat(MAX_OPENERS + 1))));
    }

    #[test]
    fn plain_commands_match_as_parsed_ones_do() {
        let globs = [
            "rm -rf *",
            "git push*",
            "push*",
            "*",
            "ls",
            "nice*",
            "git",
            "-rf /",
        ];
        let plain = [
            "rm -rf /",
            "  rm   -rf  / ",
            "ls",
            "FOO=1 BAR=2 rm -rf /",
            "FOO=1",
            "sudo -u root nice -n 5 /bin/rm -rf /",
            "echo rm -rf /",
            "./git push x",
            "env",
            "~/bin/git push",
            "a.b=1 git push",
            "",
        ];
        for command in plain {
            let parsed = commands(command);
            for glob in globs {
                assert_eq!(
                    command::plain_matches(glob, command),
                    Some(parsed.matches(glob)),
                    "{glob:?} on {command:?}"
                );
            }
        }
    }

    #[test]
    fn openers_bound_the_nesting() {
        assert_eq!(openers("ls -la"), 0);
        assert_eq!(openers("if x; then $(y); fi"), 3);
        assert_eq!(openers("for f in *; do { a && b; }; done"), 5);
    }
}
