//! The hook binary as Claude Code and Codex run it: a new process per
//! event, the event on stdin, the answer in the exit code, stdout and
//! stderr. This program is both the tests and the binary: run with
//! `HOOKS_CLAUDE_TEST_CHILD` set, it is a hook binary whose linked hooks are
//! the guards below (so no child entry point shows up as a passing test).

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output, Stdio};

use hooks_core::prelude::*;
use hooks_core::{Approval, json};

hooks_core::link!(hooks_std);

const CHILD: &str = "HOOKS_CLAUDE_TEST_CHILD";

/// A guard that falls over: the binary must block, naming it.
#[pre_tool_use(matches = "explode")]
fn exploding_guard(_ctx: &PreToolUse) -> Decision {
    panic!("the guard fell over");
}

/// Caps every query at 10 rows.
#[pre_tool_use(matches = "sql_query")]
fn cap_rows(ctx: &mut PreToolUse) -> Decision {
    ctx.args_mut()["limit"] = json!(10);
    Decision::Continue
}

/// Deploys need a person.
#[pre_tool_use(matches = "deploy")]
fn confirm_deploys(_ctx: &PreToolUse) -> Decision {
    Decision::Ask(Approval::new("deploy to production?"))
}

/// Never answers: the binary's deadline must block.
#[pre_tool_use(matches = "hang")]
async fn hanging_guard(_ctx: &PreToolUse) -> Decision {
    std::future::pending::<()>().await;
    Decision::Continue
}

/// Out of budget: this call is refused and the whole session ends.
#[pre_tool_use(matches = "spend")]
fn budget(ctx: &PreToolUse) -> Decision {
    ctx.end_session("the budget for this session is spent");
    Decision::deny("no budget left")
}

/// Status checks need nobody's yes.
#[permission_request(matches = "Bash(git status*)")]
fn status_is_fine(ctx: &mut PermissionRequest) {
    ctx.grant();
}

/// Nobody is asked about removing files: it is refused outright.
#[permission_request(matches = "Bash(rm *)")]
fn no_rm_dialogs(_ctx: &PermissionRequest) -> Decision {
    Decision::deny("delete files by hand")
}

/// One test: it gets a scratch directory of its own.
type Test = fn(&Path);

/// Every test, in the order they run.
const TESTS: &[(&str, Test)] = &[
    (
        "a_hundred_invocations_admit_exactly_ten",
        a_hundred_invocations_admit_exactly_ten,
    ),
    (
        "a_panicking_guard_blocks_naming_it",
        a_panicking_guard_blocks_naming_it,
    ),
    (
        "printed_settings_load_in_our_loader",
        printed_settings_load_in_our_loader,
    ),
    (
        "rewrites_go_back_as_updated_input",
        rewrites_go_back_as_updated_input,
    ),
    (
        "asks_go_to_claude_and_are_refused_on_codex",
        asks_go_to_claude_and_are_refused_on_codex,
    ),
    (
        "a_hook_past_the_deadline_blocks",
        a_hook_past_the_deadline_blocks,
    ),
    (
        "bad_input_and_broken_stores_block",
        bad_input_and_broken_stores_block,
    ),
    (
        "ending_the_session_goes_back_as_continue_false",
        ending_the_session_goes_back_as_continue_false,
    ),
    (
        "events_without_a_counterpart_pass_silently",
        events_without_a_counterpart_pass_silently,
    ),
    (
        "permission_dialogs_are_granted_denied_or_shown",
        permission_dialogs_are_granted_denied_or_shown,
    ),
    (
        "a_notification_command_hook_runs_as_its_matcher_says",
        a_notification_command_hook_runs_as_its_matcher_says,
    ),
    (
        "a_config_with_hooks_that_never_run_is_refused",
        a_config_with_hooks_that_never_run_is_refused,
    ),
    (
        "an_answer_given_before_reading_the_input_is_the_answer",
        an_answer_given_before_reading_the_input_is_the_answer,
    ),
    (
        "twenty_stops_in_a_row_are_capped_across_processes",
        twenty_stops_in_a_row_are_capped_across_processes,
    ),
    (
        "a_stop_let_through_starts_the_count_again",
        a_stop_let_through_starts_the_count_again,
    ),
    (
        "concurrent_stops_of_a_session_count_one_by_one",
        concurrent_stops_of_a_session_count_one_by_one,
    ),
    (
        "the_stop_cap_is_set_on_the_command_line",
        the_stop_cap_is_set_on_the_command_line,
    ),
    (
        "without_a_usable_state_dir_a_stop_hook_keeps_the_agent_going_once",
        without_a_usable_state_dir_a_stop_hook_keeps_the_agent_going_once,
    ),
    ("session_ids_name_no_path", session_ids_name_no_path),
    (
        "a_stop_frozen_or_killed_mid_hooks_counts_as_refused",
        a_stop_frozen_or_killed_mid_hooks_counts_as_refused,
    ),
];

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return hooks_claude::HookBinary::new().run();
    }
    let tests = TESTS;
    let root = scratch();
    let mut failed = 0;
    for (name, test) in tests {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let result = std::panic::catch_unwind(|| test(&dir));
        println!(
            "test {name} ... {}",
            if result.is_ok() { "ok" } else { "FAILED" }
        );
        failed += usize::from(result.is_err());
    }
    println!("\n{} passed; {failed} failed", tests.len() - failed);
    if failed == 0 {
        let _ = std::fs::remove_dir_all(&root);
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn scratch() -> PathBuf {
    let root =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hooks-claude-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    root
}

/// Runs this program as the hook binary, in `dir` (its state directory).
fn hook(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .env(CHILD, "1")
        .env_remove("HOOKS_STATE_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the hook binary");
    let mut input = child.stdin.take().expect("stdin");
    // Written beside the reading: a binary may answer before it reads its
    // input (a bad argument, a broken store), closing the pipe, and that is
    // its answer, not a failed test; nor may a large event and a large
    // answer wait on each other.
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || match input.write_all(stdin.as_bytes()) {
            Err(error) if error.kind() == ErrorKind::BrokenPipe => Ok(()),
            written => written,
        });
        let output = child.wait_with_output().expect("hook binary output");
        writer
            .join()
            .expect("the event's writer")
            .expect("write the event");
        output
    })
}

#[allow(clippy::needless_pass_by_value)] // called with `json!(...)` literals
fn pre_tool_use(tool: &str, input: serde_json::Value) -> String {
    json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_01"
    })
    .to_string()
}

fn stdout_json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}): {:?}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn a_hundred_invocations_admit_exactly_ten(dir: &Path) {
    let config = dir.join("hooks.toml");
    std::fs::write(
        &config,
        "[rate_limit]\nrules = [{ tools = \"web_fetch\", by = [], max = 10, per = \"1m\" }]\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let event = pre_tool_use("web_fetch", json!({"url": "https://example.com"}));
    let mut admitted = 0;
    let mut refused = 0;
    // Ten at a time: separate processes racing for the same slots.
    for _ in 0..10 {
        let children: Vec<_> = (0..10)
            .map(|_| {
                let dir = dir.to_owned();
                let event = event.clone();
                let config = config.to_owned();
                std::thread::spawn(move || hook(&dir, &["--config", &config], &event))
            })
            .collect();
        for child in children {
            let output = child.join().expect("invocation thread");
            match output.status.code() {
                Some(0) => admitted += 1,
                Some(2) => {
                    assert!(
                        stderr(&output).contains("rate limit"),
                        "{}",
                        stderr(&output)
                    );
                    refused += 1;
                }
                other => panic!("exit {other:?}: {}", stderr(&output)),
            }
        }
    }
    assert_eq!((admitted, refused), (10, 90));
}

fn a_panicking_guard_blocks_naming_it(dir: &Path) {
    let output = hook(dir, &[], &pre_tool_use("explode", json!({})));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let reason = stderr(&output);
    assert!(reason.contains("exploding_guard"), "{reason}");
    assert!(reason.contains("the guard fell over"), "{reason}");
    assert!(output.stdout.is_empty());
}

fn printed_settings_load_in_our_loader(dir: &Path) {
    let config = dir.join("hooks.toml");
    std::fs::write(&config, "[truncate]\nmax_bytes = 4096\n").unwrap();
    for host in [hooks_claude::Host::Claude, hooks_claude::Host::Codex] {
        let output = hook(
            dir,
            &[
                "--print-settings",
                host.as_str(),
                "--config",
                config.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = String::from_utf8(output.stdout).unwrap();
        let file = dir.join(format!("{host}.json"));
        std::fs::write(&file, &text).unwrap();
        let loaded = hooks_config::load_strict(&file)
            .unwrap_or_else(|error| panic!("{host} settings do not load: {error}\n{text}"));
        assert_eq!(loaded.len(), host.events().len(), "{text}");
        // Each entry runs this binary, with the config made absolute.
        assert!(text.contains(&format!("--host {host}")), "{text}");
        assert!(text.contains(config.to_str().unwrap()), "{text}");
        let hooks = loaded
            .apply(Hooks::builder().without_linked())
            .expect("applies")
            .build()
            .expect("builds");
        assert_eq!(hooks.describe().hooks().len(), host.events().len());
    }
}

fn rewrites_go_back_as_updated_input(dir: &Path) {
    let event = pre_tool_use("sql_query", json!({"sql": "select * from users"}));
    for (args, decision) in [
        (&[][..], "ask"),
        (&["--rewrites", "allow"][..], "allow"),
        (&["--host", "codex"][..], "allow"),
    ] {
        let output = hook(dir, args, &event);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let answer = stdout_json(&output);
        let specific = &answer["hookSpecificOutput"];
        assert_eq!(specific["hookEventName"], "PreToolUse");
        assert_eq!(specific["permissionDecision"], decision, "{args:?}");
        assert_eq!(
            specific["updatedInput"],
            json!({"sql": "select * from users", "limit": 10})
        );
    }
}

fn asks_go_to_claude_and_are_refused_on_codex(dir: &Path) {
    let event = pre_tool_use("deploy", json!({"env": "prod"}));
    let claude = hook(dir, &[], &event);
    assert_eq!(claude.status.code(), Some(0), "{}", stderr(&claude));
    let answer = stdout_json(&claude);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
    assert!(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("deploy to production?")
    );
    // Codex cannot ask; with no approval store, nobody can: refused.
    let codex = hook(dir, &["--host", "codex"], &event);
    assert_eq!(codex.status.code(), Some(2));
    assert!(stderr(&codex).contains("cannot ask"), "{}", stderr(&codex));
}

fn a_hook_past_the_deadline_blocks(dir: &Path) {
    let output = hook(dir, &["--timeout", "1"], &pre_tool_use("hang", json!({})));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("did not finish within 1s"),
        "{}",
        stderr(&output)
    );
}

fn bad_input_and_broken_stores_block(dir: &Path) {
    for input in ["", "{not json", r#"{"hook_event_name": "PreToolUse"}"#] {
        let output = hook(dir, &[], input);
        assert_eq!(output.status.code(), Some(2), "{input:?}");
        assert!(
            stderr(&output).contains("cannot read the hook event"),
            "{}",
            stderr(&output)
        );
    }
    // A rate-limit database that is not a database: every call blocks, naming it.
    let broken = dir.join("not-a-database.db");
    std::fs::write(&broken, "this is not SQLite ".repeat(100)).unwrap();
    let config = dir.join("broken.toml");
    std::fs::write(
        &config,
        format!(
            "[rate_limit]\ndatabase = {:?}\nrules = [{{ max = 5, per = \"1m\" }}]\n",
            broken.to_str().unwrap()
        ),
    )
    .unwrap();
    let output = hook(
        dir,
        &["--config", config.to_str().unwrap()],
        &pre_tool_use("web_fetch", json!({})),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not-a-database.db"),
        "{}",
        stderr(&output)
    );
    // An unknown option is not ignored.
    let output = hook(
        dir,
        &["--hots", "claude"],
        &pre_tool_use("web_fetch", json!({})),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown argument `--hots`"));
}

fn events_without_a_counterpart_pass_silently(dir: &Path) {
    let output = hook(
        dir,
        &[],
        r#"{"session_id": "s", "hook_event_name": "WorktreeCreate", "name": "feature"}"#,
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
}

fn permission_request(command: &str) -> String {
    json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": command},
        "permission_suggestions": [{"type": "addRules", "behavior": "allow",
            "destination": "localSettings", "rules": [{"toolName": "Bash"}]}]
    })
    .to_string()
}

fn permission_dialogs_are_granted_denied_or_shown(dir: &Path) {
    for host in ["claude", "codex"] {
        let output = hook(dir, &["--host", host], &permission_request("git status -s"));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(
            stdout_json(&output),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                          "decision": {"behavior": "allow"}}})
        );
        let output = hook(dir, &["--host", host], &permission_request("rm -rf target"));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(
            stdout_json(&output),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny",
                             "message": "delete files by hand (hook `binary::no_rm_dialogs`)"}}})
        );
        let output = hook(dir, &["--host", host], &permission_request("cargo publish"));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            output.stdout.is_empty() && output.stderr.is_empty(),
            "nobody decided: the dialog is shown"
        );
    }
}

fn notification(kind: &str) -> String {
    json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": "Notification",
        "message": "Claude is waiting for your input", "title": "Waiting",
        "notification_type": kind
    })
    .to_string()
}

fn a_notification_command_hook_runs_as_its_matcher_says(dir: &Path) {
    let seen = dir.join("notified.json");
    let settings = dir.join("settings.json");
    let command = format!("cat >> '{}'", seen.display());
    std::fs::write(
        &settings,
        json!({"hooks": {"Notification": [{"matcher": "idle_prompt",
            "hooks": [{"type": "command", "command": command}]}]}})
        .to_string(),
    )
    .unwrap();
    let args = ["--config", settings.to_str().unwrap()];
    let output = hook(dir, &args, &notification("permission_prompt"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!seen.exists(), "the matcher filters on notification_type");
    let output = hook(dir, &args, &notification("idle_prompt"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout.is_empty(), "a notification answers nothing");
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "Notification");
    assert_eq!(input["message"], "Claude is waiting for your input");
    assert_eq!(input["title"], "Waiting");
    assert_eq!(input["notification_type"], "idle_prompt");
}

fn a_config_with_hooks_that_never_run_is_refused(dir: &Path) {
    let settings = dir.join("settings.json");
    std::fs::write(
        &settings,
        "{\"hooks\": {\n  \"WorktreeCreate\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"mk\"}]}]\n}}\n",
    )
    .unwrap();
    let output = hook(
        dir,
        &["--config", settings.to_str().unwrap()],
        &pre_tool_use("web_fetch", json!({})),
    );
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(
        said.contains(
            "settings.json:2: `WorktreeCreate` hooks replace Claude Code's own worktree creation"
        ) && said.contains("configure them in Claude Code's own settings instead"),
        "{said}"
    );
}

fn ending_the_session_goes_back_as_continue_false(dir: &Path) {
    let output = hook(
        dir,
        &["--host", "claude"],
        &pre_tool_use("spend", json!({})),
    );
    // JSON, not exit 2: exit 2 would drop `continue: false`.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer = stdout_json(&output);
    assert_eq!(answer["continue"], false);
    assert_eq!(answer["stopReason"], "the budget for this session is spent");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("no budget left")
    );
    // Codex marks a PreToolUse answer with `continue: false` or `stopReason`
    // invalid as a whole ("PreToolUse hook returned unsupported
    // continue:false", codex-rs/hooks output_parser.rs), deny and all, and
    // the call goes on: so the call is refused with exit 2, saying the
    // session could not be ended from here.
    let output = hook(dir, &["--host", "codex"], &pre_tool_use("spend", json!({})));
    let reason = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{reason}");
    assert!(output.stdout.is_empty());
    assert!(reason.contains("no budget left"), "{reason}");
    assert!(
        reason.contains("the budget for this session is spent"),
        "{reason}"
    );
}

/// A binary refusing its arguments answers without reading the event: with
/// more than a pipe holds, it has surely exited before the writer is done,
/// which the writer sees as a closed pipe. Its answer is the answer.
fn an_answer_given_before_reading_the_input_is_the_answer(dir: &Path) {
    let event = pre_tool_use("web_fetch", json!({"url": "x".repeat(1 << 20)}));
    let output = hook(dir, &["--hots", "claude"], &event);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown argument `--hots`"));
}

/// A config whose `stop` hook refuses every stop, unless a file named
/// `allow` is in `dir`; its path.
fn keep_going_config(dir: &Path) -> String {
    let config = dir.join("keep-going.toml");
    let allow = dir.join("allow");
    std::fs::write(
        &config,
        format!(
            "[[hooks]]\nevent = \"stop\"\ncommand = [\"sh\", \"-c\", \
             \"test -e '{}' || {{ echo 'the tests fail: keep going' >&2; exit 2; }}\"]\n",
            allow.display()
        ),
    )
    .unwrap();
    config.to_str().unwrap().to_owned()
}

fn stop_event(session: &str, active: bool) -> String {
    json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": "Stop",
        "stop_hook_active": active, "last_assistant_message": "done"
    })
    .to_string()
}

/// What one stop was answered: `Blocked`, or `Stopped` with the note left
/// for the person (if any).
#[derive(Debug, PartialEq)]
enum Stopping {
    Blocked,
    Stopped(Option<String>),
}

fn stop(dir: &Path, args: &[&str], session: &str, active: bool) -> Stopping {
    let output = hook(dir, args, &stop_event(session, active));
    match output.status.code() {
        Some(2) => {
            assert!(
                stderr(&output).contains("the tests fail: keep going"),
                "{}",
                stderr(&output)
            );
            Stopping::Blocked
        }
        Some(0) if output.stdout.is_empty() => Stopping::Stopped(None),
        Some(0) => {
            let answer = stdout_json(&output);
            let note = answer["systemMessage"].as_str().map(str::to_owned);
            assert!(note.is_some(), "{answer}");
            Stopping::Stopped(note)
        }
        other => panic!("exit {other:?}: {}", stderr(&output)),
    }
}

/// Runs `count` stops of `session` as the host would send them:
/// `stop_hook_active` says whether the one before was blocked, starting
/// from `active`. Returns the answers.
fn stops(
    dir: &Path,
    args: &[&str],
    session: &str,
    mut active: bool,
    count: usize,
) -> Vec<Stopping> {
    (0..count)
        .map(|_| {
            let answer = stop(dir, args, session, active);
            active = answer == Stopping::Blocked;
            answer
        })
        .collect()
}

/// Where each stop was let through (its index), checking its note names the cap.
fn let_through(answers: &[Stopping], cap: u32) -> Vec<usize> {
    answers
        .iter()
        .enumerate()
        .filter_map(|(index, answer)| match answer {
            Stopping::Blocked => None,
            Stopping::Stopped(note) => {
                let note = note.as_deref().unwrap_or_default();
                assert!(
                    note.contains(&format!("{cap} times in a row")) && note.contains("keep going"),
                    "{note:?}"
                );
                Some(index)
            }
        })
        .collect()
}

/// Each stop is a process of its own: the cap must hold across them, or an
/// always-refusing stop hook holds the agent in a loop for ever.
fn twenty_stops_in_a_row_are_capped_across_processes(dir: &Path) {
    let config = keep_going_config(dir);
    let args = ["--config", config.as_str()];
    let cap = hooks_core::DEFAULT_STOP_DENIAL_CAP;
    let first = stops(dir, &args, "loop-1", false, 20);
    // Eight refusals in a row, then the agent stops; the next turn starts over.
    assert_eq!(let_through(&first, cap), [8, 17], "{first:?}");
    // Another session counts on its own...
    let other = stops(dir, &args, "loop-2", false, 9);
    assert_eq!(let_through(&other, cap), [8], "{other:?}");
    // ...and left the first one's count alone: it was at 2.
    let on = stops(dir, &args, "loop-1", true, 7);
    assert_eq!(let_through(&on, cap), [6], "{on:?}");
    // What the user saw: ten stops, each saying the one before was blocked.
    let told = (0..10)
        .map(|_| stop(dir, &args, "loop-3", true))
        .collect::<Vec<_>>();
    assert!(let_through(&told, cap).len() == 1, "{told:?}");
}

/// A stop the hooks let through ends the run: the next refusals count from
/// the start, whatever the host says of the stop before.
fn a_stop_let_through_starts_the_count_again(dir: &Path) {
    let config = keep_going_config(dir);
    let args = ["--config", config.as_str()];
    let cap = hooks_core::DEFAULT_STOP_DENIAL_CAP;
    let five = stops(dir, &args, "s", false, 5);
    assert!(let_through(&five, cap).is_empty(), "{five:?}");
    // The tests pass: the hook lets the agent stop, with nothing to say.
    std::fs::write(dir.join("allow"), "").unwrap();
    assert_eq!(stop(dir, &args, "s", true), Stopping::Stopped(None));
    std::fs::remove_file(dir.join("allow")).unwrap();
    assert!(
        std::fs::read_dir(dir.join(".hooks/stops"))
            .unwrap()
            .next()
            .is_none(),
        "a stop let through leaves no files"
    );
    // Even told the stop before was refused, the run is at one, not six:
    // seven more refusals (to eight), then the agent stops.
    let again = stops(dir, &args, "s", true, 8);
    assert_eq!(let_through(&again, cap), [7], "{again:?}");
    // A new turn (`stop_hook_active` false) starts over too.
    let five = stops(dir, &args, "t", false, 5);
    assert!(let_through(&five, cap).is_empty(), "{five:?}");
    let turn = stops(dir, &args, "t", false, 9);
    assert_eq!(let_through(&turn, cap), [8], "{turn:?}");
}

/// Twenty processes of one session at once, each told the stop before was
/// refused: they take turns with the count, so exactly every eighth run of
/// the hooks (the first counted from one) is let through.
fn concurrent_stops_of_a_session_count_one_by_one(dir: &Path) {
    let config = keep_going_config(dir);
    let cap = hooks_core::DEFAULT_STOP_DENIAL_CAP;
    let answers: Vec<Stopping> = std::thread::scope(|scope| {
        let children: Vec<_> = (0..20)
            .map(|_| {
                let config = config.as_str();
                scope.spawn(move || stop(dir, &["--config", config], "together", true))
            })
            .collect();
        children
            .into_iter()
            .map(|child| child.join().expect("a stop's thread"))
            .collect()
    });
    // One by one: refusals 2..=8, let through, 2..=8, let through, 2..=5.
    assert_eq!(let_through(&answers, cap).len(), 2, "{answers:?}");
    // And the count was left at five, not torn or lost: three more refusals.
    let on = stops(dir, &["--config", &config], "together", true, 4);
    assert_eq!(let_through(&on, cap), [3], "{on:?}");
}

fn the_stop_cap_is_set_on_the_command_line(dir: &Path) {
    let config = keep_going_config(dir);
    let args = ["--config", config.as_str(), "--stop-cap", "3"];
    let answers = stops(dir, &args, "s", false, 8);
    assert_eq!(let_through(&answers, 3), [3, 7], "{answers:?}");
    for bad in ["0", "-1", "three"] {
        let output = hook(dir, &["--stop-cap", bad], &stop_event("s", false));
        assert_eq!(output.status.code(), Some(2));
        assert!(
            stderr(&output).contains(&format!("`--stop-cap {bad}`: expected a whole number")),
            "{}",
            stderr(&output)
        );
    }
    let help = hook(dir, &["--help"], "");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--stop-cap N") && help.contains("stop_hook_active false starts over"),
        "{help}"
    );
    // The printed settings run the binary with the same cap.
    let output = hook(dir, &["--print-settings", "claude", "--stop-cap", "3"], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("--stop-cap 3"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// A state directory that is a file: the count cannot be kept, so the run
/// rests on `stop_hook_active` alone — one refusal, then the agent stops,
/// and the person is told why.
fn without_a_usable_state_dir_a_stop_hook_keeps_the_agent_going_once(dir: &Path) {
    let config = keep_going_config(dir);
    let file = dir.join("not-a-directory");
    std::fs::write(&file, "").unwrap();
    let args = [
        "--config",
        config.as_str(),
        "--state-dir",
        file.to_str().unwrap(),
    ];
    assert_eq!(stop(dir, &args, "s", false), Stopping::Blocked);
    let Stopping::Stopped(Some(note)) = stop(dir, &args, "s", true) else {
        panic!("a stop after a refused one is let through");
    };
    for says in [
        "could not be kept",
        "not-a-directory",
        "at most once in a row",
        "keep going",
    ] {
        assert!(note.contains(says), "{note}");
    }
}

/// A session id is the host's, but it names no file: whatever it holds,
/// the count is a hashed name under `stops/`.
fn session_ids_name_no_path(dir: &Path) {
    let config = keep_going_config(dir);
    let args = ["--config", config.as_str()];
    for session in ["../../escaped", "/tmp/absolute", "a\0b", ""] {
        assert_eq!(stop(dir, &args, session, false), Stopping::Blocked);
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.join(".hooks/stops"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Each a count and the lock beside it.
    assert_eq!(names.len(), 8, "{names:?}");
    for name in &names {
        let (hash, ending) = name.split_once('.').unwrap();
        assert!(ending == "count" || ending == "lock", "{name}");
        assert!(hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
    }
    assert!(!dir.join("escaped").exists() && !Path::new("/tmp/absolute").exists());
}

/// A stop whose process is frozen (SIGSTOP) while its hooks run holds its
/// session's turn: another stop of the session waits, and is answered at
/// its deadline — blocked, as any hook past it. Killed (SIGKILL), the stop
/// counts as refused: the count was written before the hooks ran.
fn a_stop_frozen_or_killed_mid_hooks_counts_as_refused(dir: &Path) {
    let running = dir.join("running");
    let hang = dir.join("hang");
    let config = dir.join("slow.toml");
    std::fs::write(
        &config,
        format!(
            "[[hooks]]\nevent = \"stop\"\ncommand = [\"sh\", \"-c\", \
             \"if test -e '{hang}'; then touch '{running}'; sleep 60; fi; \
             echo 'the tests fail: keep going' >&2; exit 2\"]\n",
            hang = hang.display(),
            running = running.display()
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let args = ["--config", config];
    assert_eq!(stop(dir, &args, "s", false), Stopping::Blocked);
    std::fs::write(&hang, "").unwrap();
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .env(CHILD, "1")
        .env_remove("HOOKS_STATE_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the hook binary");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stop_event("s", true).as_bytes())
        .unwrap();
    // Its hooks are running (so it holds the session's turn): then freeze it.
    let started = std::time::Instant::now();
    while !running.exists() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the stop hook never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let frozen = Command::new("kill").args(["-STOP", &pid]).status().unwrap();
    assert!(frozen.success());
    std::fs::remove_file(&hang).unwrap();
    let waited = std::time::Instant::now();
    let output = hook(
        dir,
        &["--config", config, "--timeout", "2"],
        &stop_event("s", true),
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("did not finish within 2s"),
        "{}",
        stderr(&output)
    );
    // Answered, not left waiting on the frozen one (a generous bound).
    assert!(waited.elapsed() < std::time::Duration::from_secs(60));
    child.kill().unwrap();
    child.wait().unwrap();
    // One refused before it, and the killed one: six more, then it stops.
    let on = stops(dir, &args, "s", true, 7);
    assert_eq!(
        let_through(&on, hooks_core::DEFAULT_STOP_DENIAL_CAP),
        [6],
        "{on:?}"
    );
}
