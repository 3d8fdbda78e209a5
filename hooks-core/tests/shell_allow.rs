//! Allow-lists that fail closed, tested as an attacker would: each refused
//! command, run by real bash, really runs a program no glob allows; each
//! allowed one runs only programs the globs allow.

mod support;

use hooks_core::{Decision, Matcher, ShellAllowList, ToolCall, json};
use hooks_events::pattern::{collapse_whitespace, glob_matches_words};
use support::Bash;

const GLOBS: &[&str] = &[
    "git status*",
    "git log*",
    "ls*",
    "cat*",
    "wc *",
    "echo *",
    "bash -c *",
    "xargs *",
    "timeout *",
    "find *",
    "true",
];

fn list() -> ShellAllowList {
    ShellAllowList::new(GLOBS)
}

fn allowed(argv: &[String]) -> bool {
    let line = argv.join(" ");
    GLOBS
        .iter()
        .any(|glob| glob_matches_words(&collapse_whitespace(glob), &line))
}

fn fakes() -> Bash {
    let bash = Bash::new(&[
        ("git", "rm"),
        ("ls", "a"),
        ("cat", "b"),
        ("wc", "1"),
        ("rm", ""),
        ("sudo", ""),
    ]);
    std::fs::write(bash.work().join("steps.sh"), "rm -rf x\n").unwrap();
    bash
}

#[test]
fn commands_that_run_a_program_no_glob_allows_are_refused() {
    let attacks = [
        "git status; rm -rf x",
        "git status && rm -rf x",
        "! git status || rm -rf x",
        "ls -la\nrm -rf x",
        "ls | rm -rf x",
        "ls & rm -rf x; wait",
        "ls $(rm -rf x)",
        "ls `rm -rf x`",
        "ls \"$(rm -rf x)\"",
        "ls ${x:-$(rm -rf x)}",
        "cat <(rm -rf x); wait",
        "cat <<EOF\n$(rm -rf x)\nEOF",
        "(rm -rf x)",
        "{ rm -rf x; }",
        "if ls; then rm -rf x; fi",
        "for f in a; do rm -rf x; done",
        "while true; do rm -rf x; break; done",
        "case a in a) rm -rf x;; esac",
        "bash -c 'rm -rf x'",
        "bash -c \"ls; rm -rf x\"",
        "timeout 5 rm -rf x",
        "timeout 5 bash -c 'rm -rf x'",
        "sudo rm -rf x",
        "sudo git status",
        "echo x | xargs rm",
        "echo x | xargs -I{} bash -c 'rm -rf {}'",
        "find . -maxdepth 0 -exec rm {} \\;",
        "find . -maxdepth 0 -exec bash -c 'rm -rf x' \\;",
        "$(echo rm) -rf x",
        "x=rm; $x -rf x",
        "l? ; rm -rf x",
        "\\rm -rf x",
        "r\\m -rf x",
        "'rm' -rf x",
        "RM=1 rm -rf x",
        "f() { rm -rf x; }; f",
        "git() { rm -rf x; }; git status",
        "ls() { command rm -rf x; }; ls",
        "echo rm -rf x | bash",
        "bash < steps.sh",
        "source steps.sh",
        ". ./steps.sh",
        "eval 'rm -rf x'",
        "x='a[$(rm -rf x)]'; echo $((x))",
        "x='a[$(rm -rf x)]'; [[ $x -eq 0 ]]",
        "x='$(rm -rf x)'; echo ${x@P}",
        "PS4='$(rm -rf x)'; set -x; ls",
        "BASH_ENV=steps.sh bash -c true",
        "env 'BASH_FUNC_ls%%=() { rm -rf x; }' bash -c ls",
        "mapfile -C 'rm -rf x' -c 1 a <<< x",
        "trap 'rm -rf x' EXIT",
        "hash -p \"$(command -v rm)\" ls; ls",
    ];
    let bash = fakes();
    let list = list();
    // Today's matcher, used as an allow-list, lets these through.
    let matcher = Matcher::parse(
        &GLOBS
            .iter()
            .map(|glob| format!("Bash({glob})"))
            .collect::<Vec<_>>()
            .join("|"),
    )
    .unwrap();
    let mut passed = Vec::new();
    let mut open = 0;
    for attack in attacks {
        let ran = bash.run(attack);
        assert!(
            ran.iter().any(|argv| !allowed(argv)),
            "{attack:?} ran only allowed programs ({ran:?}): the attack is not real"
        );
        if list.allows(attack).is_ok() {
            passed.push(attack);
        }
        open += usize::from(matcher.matches(ToolCall::new("Bash", &json!({ "command": attack }))));
    }
    assert!(passed.is_empty(), "the allow-list passed: {passed:#?}");
    assert!(open > attacks.len() / 2, "{open}");
}

#[test]
fn allowed_commands_run_only_allowed_programs() {
    let allowed_commands = [
        "git status",
        "git status --short && git log --oneline -3",
        "ls -la | cat -n",
        "ls \"$HOME\" | wc -l",
        "ls $(git status --porcelain) > /dev/null 2>&1",
        "for f in a b; do cat \"$f\"; done",
        "git status | xargs wc -l",
        "find . -maxdepth 1 -exec wc -c {} +",
        "timeout 5 git status",
        "bash -c 'git status; ls'",
        "ls *.rs",
        "[[ $? -eq 0 ]] && ls",
        "if git status; then ls; else cat x; fi",
        "true",
    ];
    let bash = fakes();
    let list = list();
    for command in allowed_commands {
        if let Err(refusal) = list.allows(command) {
            panic!("{command:?} was refused: {refusal}");
        }
        let ran = bash.run(command);
        assert!(
            ran.iter().all(|argv| allowed(argv)),
            "{command:?} ran {ran:?}"
        );
    }
}

#[test]
fn a_star_never_extends_a_programs_name() {
    // `ls*` allows `ls -la`; a path that starts with `ls` runs another file.
    let bash = fakes();
    std::fs::create_dir(bash.work().join("ls")).unwrap();
    std::fs::copy(bash.program("rm"), bash.work().join("rm")).unwrap();
    let ran = bash.run("ls/../rm -rf x");
    assert_eq!(ran, [["rm", "-rf", "x"]]);
    let list = list();
    assert!(list.allows("ls -la").is_ok());
    assert!(list.allows("ls/../rm -rf x").is_err());
    assert!(list.allows("lsblk").is_err());
    assert!(ShellAllowList::new(["*"]).allows("ls/../rm -rf x").is_ok());
}

#[test]
fn aliases_are_refused_as_functions_are() {
    // An alias runs in place of a command of its name: here `ls rm -rf x`,
    // which the list allows, runs `sudo rm -rf x`, which it does not.
    let list = ShellAllowList::new(["shopt *", "alias *", "sudo*", "ls*"]);
    let script = "shopt -s expand_aliases\nalias ls='sudo '\nls rm -rf x";
    let bash = fakes();
    let ran = bash.run(script);
    assert_eq!(ran, [["sudo", "rm", "-rf", "x"]]);
    assert!(list.allows("sudo rm -rf x").is_err());
    let refusal = list.allows(script).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "`alias ls=sudo` is not allowed: an alias runs in place of any command of its name"
    );
}

#[test]
fn a_refusal_says_what_is_not_allowed() {
    let list = ShellAllowList::new(["git status*", "ls*", "xargs *", "sudo *"]);
    let said = |command: &str| list.allows(command).unwrap_err().to_string();
    assert_eq!(
        said("ls && rm -rf /"),
        "`rm -rf /` is not allowed: no allowed pattern matches it"
    );
    assert_eq!(
        said("git $SUB"),
        "`git $SUB` is not allowed: `$SUB` is only known when it runs, and no allowed \
         pattern has a `*` where it is"
    );
    assert_eq!(
        said("x='a[$(id)]'; ls $((x))"),
        "`$((x))` is not allowed: arithmetic evaluates a variable, and array subscripts in \
         its value run commands"
    );
    assert_eq!(
        said("sudo -Q ls"),
        "`sudo -Q ls` is not allowed: which command `sudo` runs cannot be told from its \
         arguments"
    );
    assert_eq!(
        said("ls() { :; }"),
        "the function `ls` is not allowed: it would run in place of any command of that name"
    );
    assert_eq!(
        said("ls > out.txt"),
        "writing to `out.txt` is not allowed: output may go only to /dev/null"
    );
    assert_eq!(
        said("ls 'unclosed"),
        "`ls 'unclosed` is not allowed: it cannot be read as bash (it does not parse, nests \
         too deep, or expands to too many words)"
    );
    let refusal = list.allows("git status; git push").unwrap_err();
    assert_eq!(refusal.part(), "git push");
}

#[test]
fn a_hook_denies_in_one_line() {
    let list = ShellAllowList::new(["git status*"]);
    let call = |args| -> Decision { list.check(ToolCall::new("Bash", &args)).into() };
    assert_eq!(call(json!({ "command": "git status" })), Decision::Continue);
    assert!(matches!(
        call(json!({ "command": "git push" })),
        Decision::Deny(refusal) if refusal.reason() == "`git push` is not allowed: no allowed pattern matches it"
    ));
    // A call whose command is elsewhere (or missing) is not judged as empty.
    assert!(matches!(
        call(json!({ "cmd": "rm -rf /" })),
        Decision::Deny(_)
    ));
    assert!(matches!(
        call(json!({ "command": ["rm"] })),
        Decision::Deny(_)
    ));
}
