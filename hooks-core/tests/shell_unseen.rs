//! Text bash runs that no command shows: real bash runs `git push` through
//! each of these, and a deny pattern on `Bash(git push*)` must match them
//! all, because what they run is only known at run time ("may be anything").

mod support;

use hooks_core::{Matcher, ToolCall, json};
use support::Bash;

fn push_guard_matches(command: &str) -> bool {
    let matcher = Matcher::parse("Bash(git push*)").unwrap();
    matcher.matches(ToolCall::new("Bash", &json!({ "command": command })))
}

/// Runs each script with real bash: it must run `git push` (the attack is
/// real), and the guard must match it (or the attack walks past it).
fn assert_caught(scripts: &[&str]) {
    let bash = Bash::new(&[("git", "")]);
    std::fs::write(bash.work().join("push"), "").unwrap();
    std::fs::write(bash.work().join("steps.sh"), "git push\n").unwrap();
    let mut missed = Vec::new();
    for script in scripts {
        let ran = bash.run(script);
        assert!(
            ran.iter()
                .any(|argv| argv.len() >= 2 && argv[..2] == ["git", "push"]),
            "bash did not run `git push` for {script:?} (it ran {ran:?}): the attack is not real"
        );
        if !push_guard_matches(script) {
            missed.push(*script);
        }
    }
    assert!(
        missed.is_empty(),
        "git push ran past the guard: {missed:#?}"
    );
}

#[test]
fn arguments_xargs_and_find_add_at_run_time() {
    assert_caught(&[
        "echo push | xargs git",
        "echo push | xargs -n1 git",
        "echo push | xargs -r -- git",
        "echo git | xargs -I X env X push",
        "echo push | xargs -IX git X",
        "echo git | xargs -i sh -c '{} push'",
        "find push -maxdepth 0 -exec git {} \\;",
        "find push -maxdepth 0 -exec git {} +",
        "find . -maxdepth 0 -exec sh -c 'git $0' push \\;",
        "echo git push | xargs env",
        // `find` here is an option's value: what follows is still a command.
        "env -u find git push",
        "env -u find bash -c 'true; git push'",
        "echo push | xargs -I{} env git {}",
    ]);
}

#[test]
fn arithmetic_evaluates_array_subscripts_in_values() {
    let x = "x='a[$(git push)]'; a=(1 2); s=hello;";
    let attacks = [
        "echo $((x))",
        "echo $(($x))",
        "echo $[x]",
        "((x))",
        "for ((i = x; i < 0; i++)); do :; done",
        "let x",
        "let 'y = x + 1'",
        "[[ $x -eq 0 ]]",
        "[[ x -lt 1 ]]",
        "[[ 0 -ne \"$x\" ]]",
        "declare -i y; y=$x",
        "typeset -i y=$x",
        "declare -ai y; y[0]=$x",
        "f() { local -i y=$x; }; f",
        "echo ${a[$x]}",
        "echo ${a[x]}",
        "echo ${#a[x]}",
        "echo ${a[x]:-default}",
        "a[$x]=1",
        "a[x]=1",
        "b=([x]=1)",
        "declare \"a[x]=1\"",
        "echo ${s:$x}",
        "echo ${s:1:x}",
        "echo ${a[@]:x}",
        "set -- 1 2; echo ${@:x}",
        "case 1 in $((x))) ;; esac",
        "printf -v 'a[x]' 1",
        "read 'a[x]' <<< 1",
        "unset 'a[x]'",
        "test -v 'a[x]'",
        "[ -v 'a[x]' ]",
        "[[ -v a[x] ]]",
        "exec {a[x]}>/dev/null",
        "echo ${!x}",
        "declare -n r=$x; echo $r",
        "v=x; declare -n r=v; echo $((r))",
        "declare \"$x=1\"",
        "read \"$x\" <<< 1",
    ];
    let scripts: Vec<String> = attacks.iter().map(|a| format!("{x} {a}")).collect();
    let scripts: Vec<&str> = scripts.iter().map(String::as_str).collect();
    assert_caught(&scripts);
}

#[test]
fn prompt_expansion_runs_what_a_value_says() {
    assert_caught(&[
        "x='$(git push)'; echo ${x@P}",
        "x='\\044(git push)'; echo \"${x@P}\"",
        "PS4='$(git push)'; set -x; true",
        "PS4='$(git push)'; set -o xtrace; :",
        "PS4='\\044(git push)'; set -ex; :",
        "declare PS4='`git push`'; set -x; :",
    ]);
}

#[test]
fn callbacks_and_command_tables_run_hidden_text() {
    assert_caught(&[
        "mapfile -C 'git push' -c 1 a <<< x",
        "readarray -t -C 'git push' -c 1 a <<< x",
        "compgen -C 'git push' x",
        "env 'BASH_FUNC_ls%%=() { git push; }' bash -c ls",
        "shopt -s expand_aliases; BASH_ALIASES[ls]='git push'\nls",
        "BASH_CMDS[ls]=$(command -v git); ls push",
        "hash -p \"$(command -v git)\" ls; ls push",
        "BASH_ENV=steps.sh bash -c true",
        "export BASH_ENV=steps.sh; bash -c :",
        "ENV=steps.sh sh -i -c true",
        "source steps.sh",
        "bash --rcfile steps.sh -ic true",
        ". ./steps.sh",
        "set -o history -o histexpand; history -s 'git push'\n!!",
        "set -H -o history; history -s 'git push'\n!-1",
    ]);
}

#[test]
fn everyday_commands_are_read_not_assumed() {
    // Numbers, literal subscripts and `find`/`xargs` running other programs
    // run nothing unseen: a deny pattern does not match them.
    for command in [
        "echo $((1 + 2)) $(( $# * 2 ))",
        "[[ $? -eq 0 ]] && echo ok",
        "x=${a[0]}; echo ${#x} ${x:0:3} ${a[@]} ${!a[@]}",
        "declare -r X=1; local -a list; export -n X",
        "read -r line < notes.txt; printf '%s\\n' \"$line\"",
        "find . -name '*.rs' -exec wc -l {} +",
        "git ls-files | xargs wc -l",
        "git ls-files | xargs -I{} git log -1 -- {}",
        "export PATH=\"$PATH:$HOME/bin\"; set -euo pipefail",
        "for f in *.rs; do echo \"$f\"; done",
        "test -f x && [ -d y ]",
        "PS4_NOTE=x git status; echo PS4",
    ] {
        assert!(!push_guard_matches(command), "{command:?}");
    }
}

#[test]
fn what_already_held_still_holds() {
    // Forms the parser already read: kept here so a change cannot lose them.
    assert_caught(&[
        "x='git push'; trap \"$x\" EXIT",
        "trap 'git push' EXIT",
        "ls() { git \"$@\"; }; ls push",
        "git() { command git push; }; git status",
        "f() { git push; }; compgen -F f x",
        "shopt -s expand_aliases; alias ls='git push'\nls",
        "command_not_found_handle() { git push; }; no-such-program",
    ]);
}

#[test]
fn forms_that_run_only_elsewhere_are_matched_too() {
    // These run text only in an interactive shell, for a user other than
    // root, or with a library on disk; they are matched all the same.
    for command in [
        "complete -C 'git push' x",
        "bind -x '\"\\C-x\": git push'",
        "enable -f ./push.so push",
        "SHELLOPTS=xtrace PS4='$(git push)' bash -c true",
        "env BASHOPTS=expand_aliases bash -c true",
        "PROMPT_COMMAND='git push' bash -i",
        "echo push | parallel git",
        "parallel git ::: push",
        "fc -s git",
        "find . -name push -execdir git {} \\;",
        "find . -name push -ok git {} \\;",
        "find . -name git -exec {} push \\;",
        "echo push | xargs -J % git %",
        "x='$(git push)'; echo ${x@P}",
    ] {
        assert!(push_guard_matches(command), "{command:?}");
    }
}
