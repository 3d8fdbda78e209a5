//! Command hooks against real scripts (bash and python3): block, allow,
//! rewrite, add context, time out (killing the whole process group), leave a
//! grandchild behind in a session of its own (killed all the same, whether
//! the hook exits, times out or is dropped), crash, print garbage, print
//! megabytes, or fail to start.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_core::{DenialCause, HookError};

mod common;
use common::{denial, dispatcher};

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts")
}

/// A dispatcher with one command hook on `pre_tool_use`, declared in TOML.
fn hooks_with(command: &str, extra: &str) -> Hooks {
    hooks_from(&format!(
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"under_test\"\ncommand = {command}\n{extra}\n"
    ))
}

/// A dispatcher with the hooks a TOML text declares.
fn hooks_from(text: &str) -> Hooks {
    dispatcher(hooks_config::parse("test.toml", text, false).unwrap())
}

fn script(name: &str) -> String {
    let path = scripts().join(name);
    let interpreter = if Path::new(name)
        .extension()
        .is_some_and(|extension| extension == "py")
    {
        "python3"
    } else {
        "bash"
    };
    format!("[\"{interpreter}\", \"{}\"]", path.display())
}

fn call(tool: &'static str, args: Value) -> PreToolUse {
    PreToolUse::new(&Session::new("sess-7").with_user("dana"), tool, args)
}

#[tokio::test]
async fn exit_2_blocks_with_stderr_as_the_reason() {
    let hooks = hooks_with(&script("block.sh"), "");
    let outcome = hooks
        .dispatch(&mut call("Bash", json!({"command": "ls"})))
        .await;
    let denial = outcome.denial().unwrap();
    assert_eq!(denial.hook(), &"under_test");
    assert_eq!(denial.reason(), "blocked by policy: ask an operator");
    assert_eq!(denial.cause(), &DenialCause::Decided);
}

#[tokio::test]
async fn json_allow_lets_the_call_through() {
    let hooks = hooks_with(&script("allow.sh"), "");
    assert!(
        hooks
            .dispatch(&mut call("Bash", json!({})))
            .await
            .is_continue()
    );
}

#[tokio::test]
async fn updated_input_rewrites_the_arguments() {
    let hooks = hooks_with(&script("rewrite.py"), "");
    let mut ctx = call("read_file", json!({"path": "/etc/passwd"}));
    assert!(hooks.dispatch(&mut ctx).await.is_continue());
    assert_eq!(ctx.args(), &json!({"path": "/sandbox/passwd"}));
    assert_eq!(ctx.rewrites()[0].hook, "under_test");
}

#[tokio::test]
async fn additional_context_reaches_the_model_and_the_input_is_the_protocols() {
    let hooks = hooks_with(&script("context.py"), "");
    let mut ctx = call("search", json!({"q": "x"}));
    assert!(hooks.dispatch(&mut ctx).await.is_continue());
    assert_eq!(
        ctx.injected().text(),
        "context hook saw PreToolUse of search in session sess-7 for dana"
    );
}

/// `slow.sh`, which starts a background `sleep` and writes its pid to `pid_file`.
fn slow(pid_file: &Path) -> String {
    format!(
        "[\"bash\", \"{}\", \"{}\"]",
        scripts().join("slow.sh").display(),
        pid_file.display()
    )
}

/// The pid `slow.sh` wrote, once it has written it (within `within`).
fn grandchild(pid_file: &Path, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        if let Ok(pid) = std::fs::read_to_string(pid_file)
            && pid.ends_with('\n')
        {
            return pid.trim().to_owned();
        }
        assert!(Instant::now() < deadline, "slow.sh never wrote its pid");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The state of a process: `gone`, or its `State:` line.
fn process_state(pid: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("State:"))
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "gone".to_owned())
}

/// Asserts the background process `slow.sh` started is killed: gone, or
/// dead and waiting for its new parent to reap it (a container's init may
/// not). A kill is delivered asynchronously, so the state is read until it
/// changes, for up to five seconds.
fn assert_grandchild_killed(pid_file: &Path) {
    let pid = grandchild(pid_file, Duration::from_secs(5));
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut state = process_state(&pid);
    while !(state == "gone" || state.contains("zombie")) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        state = process_state(&pid);
    }
    assert!(
        state == "gone" || state.contains("zombie"),
        "the background `sleep` the hook started was killed with it; it is {state}"
    );
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group_and_denies() {
    let pid_file =
        std::env::temp_dir().join(format!("hooks-config-slow-{}.pid", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    // Long enough for bash to start its grandchild, however loaded the machine.
    let hooks = hooks_with(&slow(&pid_file), "timeout = \"1s\"");
    let started = Instant::now();
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::TimedOut(Duration::from_secs(1)))
    );
    assert_grandchild_killed(&pid_file);
}

#[tokio::test]
async fn a_dropped_dispatch_kills_the_whole_process_group() {
    let pid_file =
        std::env::temp_dir().join(format!("hooks-config-dropped-{}.pid", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    let hooks = hooks_with(&slow(&pid_file), "timeout = \"30s\"");
    let mut ctx = call("Bash", json!({}));
    {
        let dispatch = hooks.dispatch(&mut ctx);
        tokio::pin!(dispatch);
        // Drive the dispatch until the hook has started its grandchild...
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(&pid_file).map_or(true, |pid| !pid.ends_with('\n')) {
            assert!(Instant::now() < deadline, "slow.sh never started");
            assert!(
                tokio::time::timeout(Duration::from_millis(10), &mut dispatch)
                    .await
                    .is_err(),
                "the hook answered though it sleeps for minutes"
            );
        }
        // ...then the caller gives up on it, long before the hook's timeout.
    }
    assert_grandchild_killed(&pid_file);
}

/// `detached.sh`, which starts a grandchild in a session of its own (setsid
/// and a double fork), writes its pid to `pid_file`, then exits or hangs.
fn detached(pid_file: &Path, then: &str) -> String {
    format!(
        "[\"bash\", \"{}\", \"{}\", \"{then}\"]",
        scripts().join("detached.sh").display(),
        pid_file.display()
    )
}

/// Whether the grandchild `detached.sh` started runs: a live `sleep 987654`
/// at that pid (gone, a zombie, or another program there is not it).
fn detached_runs(pid: &str) -> bool {
    let ours = std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline == b"sleep\x00987654\x00");
    ours && !process_state(pid).contains("zombie")
}

/// Asserts the detached grandchild is gone already: a hook's call returns
/// only once everything it started has been killed and reaped.
fn assert_detached_gone(pid_file: &Path) {
    let pid = grandchild(pid_file, Duration::ZERO);
    assert!(
        !detached_runs(&pid),
        "the grandchild started with setsid outlived the hook: pid {pid} still runs"
    );
}

/// Asserts the detached grandchild is killed, reading its state until it
/// changes, for up to five seconds (a kill is delivered asynchronously).
fn assert_detached_killed(pid_file: &Path) {
    let pid = grandchild(pid_file, Duration::from_secs(5));
    let deadline = Instant::now() + Duration::from_secs(5);
    while detached_runs(&pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        !detached_runs(&pid),
        "the grandchild started with setsid outlived the hook: pid {pid} still runs"
    );
}

fn pid_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("hooks-config-{name}-{}.pid", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test]
async fn a_detached_grandchild_does_not_outlive_a_hook_that_exits() {
    let pid_file = pid_file("detached-exit");
    let hooks = hooks_with(&detached(&pid_file, "exit"), "timeout = \"30s\"");
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    assert!(outcome.is_continue(), "{:?}", outcome.denial());
    assert_detached_gone(&pid_file);
}

#[tokio::test]
async fn a_detached_grandchild_does_not_outlive_a_hook_that_times_out() {
    let pid_file = pid_file("detached-timeout");
    let hooks = hooks_with(&detached(&pid_file, "hang"), "timeout = \"2s\"");
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::TimedOut(Duration::from_secs(2)))
    );
    assert_detached_gone(&pid_file);
}

#[tokio::test]
async fn a_detached_grandchild_does_not_outlive_a_dropped_dispatch() {
    let pid_file = pid_file("detached-dropped");
    let hooks = hooks_with(&detached(&pid_file, "hang"), "timeout = \"30s\"");
    let mut ctx = call("Bash", json!({}));
    {
        let dispatch = hooks.dispatch(&mut ctx);
        tokio::pin!(dispatch);
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(&pid_file).map_or(true, |pid| !pid.ends_with('\n')) {
            assert!(
                Instant::now() < deadline,
                "detached.sh never started its grandchild"
            );
            assert!(
                tokio::time::timeout(Duration::from_millis(10), &mut dispatch)
                    .await
                    .is_err(),
                "the hook answered though it hangs"
            );
        }
    }
    assert_detached_killed(&pid_file);
}

#[tokio::test]
async fn a_supervisor_asked_to_stop_ends_everything_first() {
    let pid_file = pid_file("detached-stopped");
    let hooks = hooks_with(&detached(&pid_file, "hang"), "timeout = \"30s\"");
    let mut ctx = call("Bash", json!({}));
    let dispatch = hooks.dispatch(&mut ctx);
    tokio::pin!(dispatch);
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::fs::read_to_string(&pid_file).map_or(true, |pid| !pid.ends_with('\n')) {
        assert!(
            Instant::now() < deadline,
            "detached.sh never started its grandchild"
        );
        assert!(
            tokio::time::timeout(Duration::from_millis(10), &mut dispatch)
                .await
                .is_err(),
            "the hook answered though it hangs"
        );
    }
    // The hook's parent is its supervisor: asked to stop (as `kill` asks).
    let supervisor = std::fs::read_to_string(pid_file.with_extension("pid.parent")).unwrap();
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", supervisor.trim()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let outcome = dispatch.await;
    assert_eq!(
        outcome.denial().map(hooks_core::Denial::cause),
        Some(&DenialCause::Failed(HookError::failed(
            "was killed by a signal"
        )))
    );
    assert_detached_gone(&pid_file);
}

#[tokio::test]
async fn a_hook_killed_by_a_signal_is_a_failure_saying_so() {
    for signal in ["KILL", "TERM", "SEGV"] {
        let command = format!(r#"["bash", "-c", "ulimit -c 0; kill -{signal} $$"]"#);
        let outcome = hooks_with(&command, "")
            .dispatch(&mut call("Bash", json!({})))
            .await;
        assert_eq!(
            outcome.denial().map(hooks_core::Denial::cause),
            Some(&DenialCause::Failed(HookError::failed(
                "was killed by a signal"
            ))),
            "SIG{signal}"
        );
    }
}

#[tokio::test]
async fn the_timeout_covers_the_output_and_the_exit_together() {
    // Each half fits in the timeout; together they do not.
    let command = r#"["bash", "-c", "cat > /dev/null; sleep 0.7; exec >&- 2>&-; sleep 0.7"]"#;
    let hooks = hooks_with(command, "timeout = \"1s\"");
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::TimedOut(Duration::from_secs(1)))
    );
}

#[tokio::test]
async fn a_crash_is_a_failure_and_guards_fail_closed_unless_told_otherwise() {
    let hooks = hooks_with(&script("crash.py"), "");
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    let denial = outcome.denial().unwrap();
    let DenialCause::Failed(HookError::Failed(message)) = denial.cause() else {
        panic!("{denial:?}")
    };
    assert!(message.starts_with("exited with 1: Traceback"), "{message}");
    assert!(
        message.contains("RuntimeError: the policy file is missing"),
        "{message}"
    );

    let lenient = hooks_with(&script("crash.py"), "on_error = \"continue\"");
    let mut ctx = call("Bash", json!({}));
    assert!(lenient.dispatch(&mut ctx).await.is_continue());
    assert_eq!(ctx.failures().len(), 1);
}

#[tokio::test]
async fn a_crashing_post_tool_use_scrubber_with_on_error_deny_withholds_the_result() {
    let text = format!(
        "[[hooks]]\nevent = \"post_tool_use\"\nname = \"scrubber\"\ncommand = {}\non_error = \"deny\"\n",
        script("crash.py")
    );
    let hooks = dispatcher(hooks_config::parse("test.toml", &text, false).unwrap());
    let mut ctx = PostToolUse::new(
        &Session::new("s"),
        "read_file",
        json!({"path": ".env"}),
        Ok(json!("API_KEY=sk-live-123")),
    );
    assert!(hooks.dispatch(&mut ctx).await.is_continue());
    let error = ctx.result().expect_err("withheld");
    assert_eq!(
        error,
        "the tool's result was withheld: hook `scrubber` returned an error, and it fails closed \
         (`on_error = \"deny\"`)"
    );
    assert!(
        ctx.failures()[0]
            .error
            .to_string()
            .contains("the policy file is missing")
    );
    assert!(!error.contains("sk-live"), "{error}");
}

#[tokio::test]
async fn a_debug_line_before_the_json_cannot_turn_a_block_into_context() {
    let hooks = hooks_with(&script("debug_then_block.py"), "");
    let mut ctx = call("Bash", json!({"command": "git push --force"}));
    let outcome = hooks.dispatch(&mut ctx).await;
    let denial = outcome
        .denial()
        .expect("a guard whose answer cannot be read fails closed");
    let DenialCause::Failed(HookError::Failed(message)) = denial.cause() else {
        panic!("{denial:?}")
    };
    assert!(
        message.contains("its output has text before its JSON (from line 2)"),
        "{message}"
    );
    assert!(ctx.injected().is_empty(), "nothing was taken as context");
}

#[tokio::test]
async fn a_byte_order_mark_before_the_json_is_dropped_and_the_block_holds() {
    let hooks = hooks_with(&script("bom_block.py"), "");
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    let denial = outcome.denial().expect("blocked");
    assert_eq!(denial.reason(), "outside business hours");
    assert_eq!(denial.cause(), &DenialCause::Decided);
}

#[tokio::test]
async fn an_answer_with_a_key_twice_is_a_failure_not_the_last_key() {
    let hooks = hooks_with(&script("duplicate_keys.sh"), "");
    let mut ctx = call("Bash", json!({"command": "pwd"}));
    let outcome = hooks.dispatch(&mut ctx).await;
    let denial = outcome.denial().expect("fails closed");
    assert!(
        denial.reason().contains("duplicate key `command`"),
        "{}",
        denial.reason()
    );
    assert_eq!(
        ctx.args(),
        &json!({"command": "pwd"}),
        "no rewrite happened"
    );
}

#[tokio::test]
async fn broken_json_is_a_failure_not_a_silent_allow() {
    let hooks = hooks_with(&script("garbage.sh"), "");
    assert!(
        denial(&hooks, "Bash", json!({}))
            .await
            .unwrap()
            .contains("its output is not valid hook JSON")
    );
}

#[tokio::test]
async fn megabytes_of_output_stop_the_hook() {
    let hooks = hooks_with(&script("megabytes.py"), "");
    assert!(
        denial(&hooks, "Bash", json!({}))
            .await
            .unwrap()
            .contains("(1048576, plus 3 times its ")
    );
    let roomy = hooks_with(&script("megabytes.py"), "max_output = 10_000_000");
    let outcome = roomy.dispatch(&mut call("Bash", json!({}))).await;
    assert!(
        outcome.is_continue(),
        "plain text on stdout is not an objection: {outcome:?}"
    );
}

#[tokio::test]
async fn a_program_that_cannot_start_says_so() {
    let hooks = hooks_with("[\"/no/such/program\", \"--flag\"]", "");
    let outcome = hooks.dispatch(&mut call("Bash", json!({}))).await;
    let reason = outcome.denial().unwrap().reason().to_owned();
    assert!(
        reason.contains("could not start `/no/such/program`: No such file or directory"),
        "{reason}"
    );
    let DenialCause::Failed(_) = outcome.denial().unwrap().cause() else {
        panic!("a failure, not a block")
    };
}

#[tokio::test]
async fn shell_form_runs_only_when_asked() {
    let hooks = hooks_with(
        "\"cat > /dev/null; echo blocked >&2; exit 2\"",
        "shell = true",
    );
    assert_eq!(
        denial(&hooks, "Bash", json!({})).await.as_deref(),
        Some("blocked")
    );
}

#[test]
fn a_block_on_an_event_that_cannot_block_is_told_and_logged_not_lost() {
    let text = "[[hooks]]\nevent = \"session_start\"\nname = \"gatekeeper\"\n\
                command = [\"bash\", \"-c\", \"cat > /dev/null; echo 'not on a Friday' >&2; exit 2\"]\n";
    let hooks = hooks_from(text);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let session = Session::new("s1");
    let mut ctx = SessionStart::new(&session);
    let (outcome, logs) = hooks_tests::capture_logs(|| runtime.block_on(hooks.dispatch(&mut ctx)));
    assert!(outcome.is_continue(), "a session start cannot be blocked");
    // Told to the person, naming the hook, as Claude Code shows its stderr.
    let message = &outcome.messages()[0];
    assert!(
        message
            .text
            .contains("hook `gatekeeper` said to block SessionStart")
            && message.text.contains("not on a Friday"),
        "{message:?}"
    );
    assert!(
        logs.contains("a hook tried to block an event that cannot block; not enforced")
            && logs.contains("gatekeeper")
            && logs.contains("not on a Friday"),
        "{logs}"
    );
}

#[tokio::test]
async fn a_shadow_command_hook_records_its_block_without_enforcing_it() {
    let hooks = hooks_with(&script("block.sh"), "shadow = true");
    let outcome = hooks
        .dispatch(&mut call("Bash", json!({"command": "ls"})))
        .await;
    assert!(outcome.is_continue(), "a shadow hook enforces nothing");
    let shadowed = &outcome.shadowed()[0];
    assert_eq!(shadowed.hook, "under_test");
    assert_eq!(
        shadowed.would,
        hooks_core::notes::Would::Deny {
            reason: "blocked by policy: ask an operator".into(),
            kind: "denied".into()
        }
    );
}

#[tokio::test]
async fn the_script_sees_the_tool_use_id_and_its_system_message_reaches_the_person() {
    // The script echoes the id it was given back as a message for the person.
    let script = r#"["python3", "-c", "import json,sys; i=json.load(sys.stdin); print(json.dumps({'systemMessage': 'checked ' + i['tool_use_id']}))"]"#;
    let hooks = hooks_with(script, "");
    let mut ctx = call("Bash", json!({"command": "ls"})).with_call_id("toolu_01");
    let outcome = hooks.dispatch(&mut ctx).await;
    assert!(outcome.is_continue());
    assert_eq!(outcome.messages()[0].text, "checked toolu_01");
    assert_eq!(outcome.messages()[0].level, MessageLevel::Warning);
}

#[tokio::test]
async fn the_new_events_reach_scripts_under_their_claude_code_names() {
    let text = r#"
[[hooks]]
event = "PostToolUseFailure"
name = "names_the_event"
command = ["python3", "-c", "import json,sys; i=json.load(sys.stdin); print(json.dumps({'hookSpecificOutput': {'additionalContext': i['hook_event_name'] + ': ' + i['error']}}))"]
"#;
    let hooks = hooks_from(text);
    let mut ctx = PostToolUseFailure::new(
        &Session::new("s"),
        "sql_query",
        json!({}),
        ToolError::new("timeout"),
    );
    let _ = hooks.dispatch(&mut ctx).await;
    assert_eq!(ctx.injected().text(), "PostToolUseFailure: timeout");
}

/// Claude Code reads a hook's plain stdout as context on `UserPromptSubmit`
/// and `SessionStart` only; elsewhere it is not context.
#[tokio::test]
async fn plain_text_is_context_only_on_prompts_and_session_start() {
    let text = r#"
[[hooks]]
event = "user_prompt_submit"
name = "prompt_note"
command = ["sh", "-c", "cat > /dev/null; echo 'mind the style guide'"]

[[hooks]]
event = "pre_tool_use"
name = "tool_note"
command = ["sh", "-c", "cat > /dev/null; echo 'printed, not context'"]
"#;
    let hooks = hooks_from(text);
    let session = Session::new("s");
    let mut prompt = UserPromptSubmit::new(&session, "hi");
    assert!(hooks.dispatch(&mut prompt).await.is_continue());
    assert_eq!(prompt.injected().text(), "mind the style guide");
    let mut tool = PreToolUse::new(&session, "Bash", json!({}));
    assert!(hooks.dispatch(&mut tool).await.is_continue());
    assert!(tool.injected().is_empty(), "{:?}", tool.injected().text());
}

/// `updatedToolOutput` replaces what the model reads after a tool ran.
#[tokio::test]
async fn updated_tool_output_replaces_the_result() {
    let text = r#"
[[hooks]]
event = "post_tool_use"
name = "scrub"
command = ["python3", "-c", "import json,sys; i=json.load(sys.stdin); r=i['tool_response']; r['token']='[scrubbed]'; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse', 'updatedToolOutput': r}}))"]
"#;
    let hooks = hooks_from(text);
    let mut post = PostToolUse::new(
        &Session::new("s"),
        "login",
        json!({}),
        Ok(json!({"user": "dana", "token": "abc123"})),
    );
    let _ = hooks.dispatch(&mut post).await;
    assert_eq!(
        post.result().unwrap(),
        &json!({"user": "dana", "token": "[scrubbed]"})
    );
    assert_eq!(post.rewrites()[0].hook, "scrub");
}

/// As Claude Code: `agent_id` (and here `parent_agent_id`) only inside a sub-agent.
#[tokio::test]
async fn agent_id_is_sent_only_inside_a_sub_agent() {
    let text = r#"
[[hooks]]
event = "pre_tool_use"
name = "who"
command = ["python3", "-c", "import json,sys; i=json.load(sys.stdin); print(json.dumps({'hookSpecificOutput': {'additionalContext': str(i.get('agent_id')) + '/' + str(i.get('parent_agent_id'))}}))"]
"#;
    let hooks = hooks_from(text);
    let main = Session::new("s");
    let mut top = PreToolUse::new(&main, "Bash", json!({}));
    let _ = hooks.dispatch(&mut top).await;
    assert_eq!(top.injected().text(), "None/None");
    let mut sub = PreToolUse::new(&main.sub_agent("researcher"), "Bash", json!({}));
    let _ = hooks.dispatch(&mut sub).await;
    assert_eq!(sub.injected().text(), "researcher/main");
}

/// What only the host knows (`transcript_path`, `permission_mode`, `model`)
/// reaches scripts under Claude Code's names when the session carries it: a
/// Stop hook that reads the transcript finds it.
#[tokio::test]
async fn host_fields_reach_scripts_under_claude_codes_names() {
    let transcript =
        std::env::temp_dir().join(format!("hooks-transcript-{}.jsonl", std::process::id()));
    std::fs::write(
        &transcript,
        "{\"type\":\"assistant\",\"text\":\"tests pass\"}\n",
    )
    .unwrap();
    let text = r#"
[[hooks]]
event = "stop"
name = "read_transcript"
command = ["python3", "-c", "import json,sys; i=json.load(sys.stdin); last=open(i['transcript_path']).read(); print(json.dumps({} if 'tests pass' in last else {'decision': 'block', 'reason': 'run the tests (' + i['permission_mode'] + ')'}))"]
"#;
    let hooks = hooks_from(text);
    let session = Session::new("s")
        .with_metadata("transcript_path", transcript.display().to_string())
        .with_metadata("permission_mode", "acceptEdits");
    assert!(hooks.dispatch(&mut Stop::new(&session)).await.is_continue());
    std::fs::write(&transcript, "{\"type\":\"assistant\",\"text\":\"done\"}\n").unwrap();
    let outcome = hooks.dispatch(&mut Stop::new(&session)).await;
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "run the tests (acceptEdits)"
    );
    let _ = std::fs::remove_file(&transcript);
}

/// `continue: false` with only `reason` keeps the script's reason.
#[tokio::test]
async fn continue_false_keeps_the_scripts_reason_when_stop_reason_is_absent() {
    let text = r#"
[[hooks]]
event = "pre_tool_use"
name = "halt"
command = ["sh", "-c", "cat > /dev/null; echo '{\"continue\": false, \"reason\": \"budget spent\"}'"]
"#;
    let hooks = hooks_from(text);
    let outcome = hooks
        .dispatch(&mut PreToolUse::new(&Session::new("s"), "Bash", json!({})))
        .await;
    assert_eq!(outcome.denial().unwrap().reason(), "budget spent");
}

/// Two hundred calls at once: no more command hooks run at a time than the
/// cap, and every call is still answered (the wait counts in each hook's
/// timeout, which is long enough here however loaded the machine).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_hooks_run_at_most_the_cap_at_once_and_every_call_is_answered() {
    let dir = std::env::temp_dir().join(format!("hooks-config-cap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.with_extension("log");
    // Each run leaves a file while it runs and logs how many it saw.
    let body = format!(
        "touch {dir}/$$; ls {dir} | wc -l >> {log}; sleep 0.5; rm {dir}/$$",
        dir = dir.display(),
        log = log.display()
    );
    let hooks = std::sync::Arc::new(hooks_with(
        &format!(
            "[\"sh\", \"-c\", {}]",
            serde_json::to_string(&body).unwrap()
        ),
        "timeout = \"120s\"",
    ));
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let hooks = std::sync::Arc::clone(&hooks);
        calls.spawn(async move {
            hooks
                .dispatch(&mut call("Bash", json!({})))
                .await
                .is_continue()
        });
    }
    let mut allowed = 0;
    while let Some(answer) = calls.join_next().await {
        allowed += usize::from(answer.unwrap());
    }
    assert_eq!(allowed, 200);
    let seen: Vec<usize> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| line.trim().parse().unwrap())
        .collect();
    assert_eq!(seen.len(), 200);
    let most = seen.iter().max().copied().unwrap();
    assert!(
        most <= hooks_config::MAX_COMMAND_HOOKS_RUNNING,
        "{most} command hooks ran at once"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&log);
}

/// A config-file hook hides tools from the model (`pre_model_request`,
/// `hiddenTools`): what MCP's `tools/list` and a call by name go by. It can
/// only hide: a name it gives that was not offered adds nothing.
#[tokio::test]
async fn a_model_request_hook_hides_tools() {
    let answer = r#"{"hookSpecificOutput": {"hookEventName": "PreModelRequest", "hiddenTools": ["git_commit", "not_offered"]}}"#;
    let hooks = hooks_from(&format!(
        "[[hooks]]\nevent = \"pre_model_request\"\nname = \"hide_writes\"\ncommand = [\"printf\", \"%s\", {}]\n",
        serde_json::to_string(answer).unwrap()
    ));
    let mut request = PreModelRequest::new(
        &Session::new("s"),
        ["git_status", "git_commit", "git_log"],
        json!({}),
    );
    assert!(hooks.dispatch(&mut request).await.is_continue());
    assert_eq!(
        request.tools().collect::<Vec<_>>(),
        ["git_status", "git_log"]
    );
}

/// hooks-mcp asks the filters about prompts and resources in requests of
/// their own (`params.mcp_method`): a config-file hook hides prompts with
/// `hiddenPrompts` and resources with `hiddenResources`, each only from its
/// own list, so a tool's name hides no prompt or resource of the same name.
#[tokio::test]
async fn a_model_request_hook_hides_prompts_and_resources_each_from_its_own_list() {
    let answer = r#"{"hookSpecificOutput": {"hookEventName": "PreModelRequest", "hiddenTools": ["shared"], "hiddenPrompts": ["deploy"], "hiddenResources": ["file:///secret"]}}"#;
    let hooks = hooks_from(&format!(
        "[[hooks]]\nevent = \"pre_model_request\"\nname = \"hide\"\ncommand = [\"printf\", \"%s\", {}]\n",
        serde_json::to_string(answer).unwrap()
    ));
    let offered = |method: &str, names: &[&'static str]| {
        PreModelRequest::new(
            &Session::new("s"),
            names.iter().copied(),
            json!({"mcp_method": method}),
        )
    };
    let mut prompts = offered("prompts/list", &["deploy", "review", "shared"]);
    assert!(hooks.dispatch(&mut prompts).await.is_continue());
    assert_eq!(prompts.tools().collect::<Vec<_>>(), ["review", "shared"]);
    let mut get = offered("prompts/get", &["deploy"]);
    assert!(hooks.dispatch(&mut get).await.is_continue());
    assert_eq!(get.tools().count(), 0);
    let mut resources = offered(
        "resources/list",
        &["file:///secret", "file:///open", "deploy"],
    );
    assert!(hooks.dispatch(&mut resources).await.is_continue());
    assert_eq!(
        resources.tools().collect::<Vec<_>>(),
        ["file:///open", "deploy"]
    );
    let mut tools = offered("tools/list", &["shared", "deploy"]);
    assert!(hooks.dispatch(&mut tools).await.is_continue());
    assert_eq!(tools.tools().collect::<Vec<_>>(), ["deploy"]);
}
