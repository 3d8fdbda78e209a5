//! Generated compound commands, run by real bash over fake programs that
//! record what ran: whenever an allow-list passes a command, every program
//! that ran is allowed; whenever a deny pattern does not match a command, no
//! program that ran matches it.

mod support;

use std::cell::Cell;

use hooks_core::{Matcher, ShellAllowList, ToolCall, json};
use hooks_events::pattern::{collapse_whitespace, glob_matches_words};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use support::Bash;

/// Two allow-lists: one strict about arguments, one that allows every
/// program but `kd`; and what the deny patterns look for.
const BROAD: &[&str] = &[
    "ka*",
    "kb*",
    "kc*",
    "echo*",
    "true",
    "xargs *",
    "bash -c *",
    "eval *",
    "find *",
    "timeout *",
    "V=*",
];
const STRICT: &[&str] = &[
    "ka",
    "ka *",
    "kb x*",
    "kc*",
    "echo",
    "echo *",
    "true",
    "xargs *",
    "bash -c *",
    "eval *",
    "find *",
    "timeout *",
    "V=*",
];
const DENIED: &[&str] = &["ka*", "ka x*", "kb*", "kb x", "kc y*", "kd*"];

/// The fake programs, and the line each prints.
const PROGRAMS: &[(&str, &str)] = &[("ka", "kb x"), ("kb", "kc"), ("kc", "ka y"), ("kd", "")];
/// Files in the directory commands run in, for globs (`f?`, `*`) to find.
const FILES: &[&str] = &["kb", "x"];

fn matches_glob(glob: &str, argv: &[String]) -> bool {
    glob_matches_words(&collapse_whitespace(glob), &argv.join(" "))
}

/// Words a program may be named by: mostly plain, some made at run time.
fn name() -> impl Strategy<Value = &'static str> {
    let plain =
        prop::sample::select(&["ka", "ka", "ka", "kc", "kc", "echo", "true", "kb", "kd"][..]);
    let written = prop::sample::select(&["\\kb", "'ka'", "{ka,kb}", "$'k\\x61'", "k\"c\""][..]);
    let runtime = prop::sample::select(&["$V", "\"$V\"", "k?", "$(echo ka)"][..]);
    prop_oneof![8 => plain, 2 => written, 1 => runtime]
}

/// Words a program may be given: mostly plain, some made at run time, some
/// that run text no command shows.
fn argument() -> impl Strategy<Value = &'static str> {
    let plain = prop::sample::select(&["x", "y", "'x y'", "kb", "$'x'", "''", "-n1", "{x,y}"][..]);
    let runtime =
        prop::sample::select(&["$V", "\"$V\"", "$((1+2))", "${V:-x}", "*", "k?", "${V:1}"][..]);
    let hidden = prop::sample::select(&["$((V))", "${a[$V]}", "${V@P}", "${!V}"][..]);
    prop_oneof![6 => plain, 3 => runtime, 1 => hidden]
}

fn simple() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(&["", "", "", "V=x ", "V=kb ", "W=1 "][..]);
    let command = (prefix, name(), prop::collection::vec(argument(), 0..3)).prop_map(
        |(prefix, name, args)| {
            let mut words = vec![name];
            words.extend(args);
            format!("{prefix}{}", words.join(" "))
        },
    );
    let other = prop::sample::select(
        &[
            "V=kb",
            "V=x",
            "V='a[$(kd)]'",
            "V='$(kd)'",
            "V=$(ka)",
            "((V))",
            "((1 + 2))",
            "[[ $V -eq 0 ]]",
            "[[ 1 -lt 2 ]]",
            "let V",
            "PS4='$(kd)'; set -x",
            "mapfile -C kd -c 1 z <<< q",
            "declare -i W; W=V",
            "true > /dev/null",
        ][..],
    )
    .prop_map(str::to_owned);
    prop_oneof![6 => command, 1 => other]
}

/// Single-quotes a script for `bash -c` or `eval`.
fn quoted(script: &str) -> String {
    format!("'{}'", script.replace('\'', "'\\''"))
}

fn command() -> impl Strategy<Value = String> {
    simple().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}; {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            inner.clone().prop_map(|a| format!("({a})")),
            inner.clone().prop_map(|a| format!("{{ {a}; }}")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("if {a}; then {b}; else {c}; fi")),
            inner
                .clone()
                .prop_map(|a| format!("for V in ka kb; do {a}; done")),
            inner
                .clone()
                .prop_map(|a| format!("case x in x) {a};; esac")),
            inner.clone().prop_map(|a| format!("g() {{ {a}; }}; g")),
            inner.clone().prop_map(|a| format!("! {a}")),
            inner
                .clone()
                .prop_map(|a| format!("bash -c {}", quoted(&a))),
            inner.clone().prop_map(|a| format!("eval {}", quoted(&a))),
            inner.clone().prop_map(|a| format!("ka $({a})")),
            inner.clone().prop_map(|a| format!("kb \"$({a})\"")),
            inner.clone().prop_map(|a| format!("$({a}) x")),
            inner
                .clone()
                .prop_map(|a| format!("ka `{}`", a.replace('`', "\\`"))),
            inner.clone().prop_map(|a| format!("{a} | xargs kb")),
            inner
                .clone()
                .prop_map(|a| format!("{a} | xargs -I{{}} ka {{}}")),
            inner.clone().prop_map(|a| format!("timeout 5 {a}")),
            name().prop_map(|n| format!("find . -maxdepth 0 -exec {n} {{}} \\;")),
            name().prop_map(|n| format!("env V=x {n} y")),
        ]
    })
}

#[test]
fn allow_lists_and_deny_patterns_hold_against_what_bash_runs() {
    let bash = Bash::new(PROGRAMS);
    let lists = [STRICT, BROAD].map(|globs| (globs, ShellAllowList::new(globs), Cell::new(0)));
    let deny: Vec<(&str, Matcher)> = DENIED
        .iter()
        .map(|glob| (*glob, Matcher::parse(&format!("Bash({glob})")).unwrap()))
        .collect();
    let (cases, unmatched_runs) = (Cell::new(0), Cell::new(0));
    let config = Config {
        cases: 160,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    };
    // A fixed seed: the same commands on every run, so the counts below are facts.
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[20; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&command(), |script| {
        bash.reset_work(FILES);
        let ran = bash.run(&script);
        cases.set(cases.get() + 1);
        for (globs, list, passed) in &lists {
            if list.allows(&script).is_err() {
                continue;
            }
            passed.set(passed.get() + 1);
            if let Some(argv) = ran
                .iter()
                .find(|argv| !globs.iter().any(|glob| matches_glob(glob, argv)))
            {
                return Err(TestCaseError::fail(format!(
                    "the allow-list {globs:?} passed {script:?}, which ran {argv:?}"
                )));
            }
        }
        let args = json!({ "command": script });
        for (glob, matcher) in &deny {
            if matcher.matches(ToolCall::new("Bash", &args)) {
                continue;
            }
            unmatched_runs.set(unmatched_runs.get() + usize::from(!ran.is_empty()));
            if let Some(argv) = ran.iter().find(|argv| matches_glob(glob, argv)) {
                return Err(TestCaseError::fail(format!(
                    "`Bash({glob})` did not match {script:?}, which ran {argv:?}"
                )));
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    // The property is not vacuous: many commands pass each list, and many
    // that ran programs were left unmatched by some deny pattern.
    let [(_, _, strict), (_, _, broad)] = &lists;
    assert!(
        strict.get() * 8 >= cases.get(),
        "{} of {} passed",
        strict.get(),
        cases.get()
    );
    assert!(
        broad.get() * 3 >= cases.get(),
        "{} of {} passed",
        broad.get(),
        cases.get()
    );
    assert!(
        unmatched_runs.get() >= cases.get(),
        "{}",
        unmatched_runs.get()
    );
}
