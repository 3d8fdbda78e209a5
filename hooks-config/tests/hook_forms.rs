//! The hook forms beyond command, HTTP and prompt, and what they share: agent
//! hooks with a scripted verifier, MCP tool hooks with a fake caller, event
//! variables in exec-form arguments (checked with a real program printing its
//! argv, and with the real `sort`, which must never take a value as an
//! option) and in HTTP payloads (checked against a local server echoing the
//! body), and `condition`, with paths that try to escape.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_config::{AgentStep, Config, McpCaller, Turn, Verifier};
use hooks_core::prelude::*;
use hooks_core::{BoxFuture, DenialCause, HookError};

mod common;
use common::{PythonServer, apply_error, denial, dispatcher, parse_error};

fn parse(text: &str) -> Config {
    hooks_config::parse("forms.toml", text, false).unwrap()
}

/// What a call of `tool` with `args` was told (its injected context).
async fn context(hooks: &Hooks, tool: &str, args: Value) -> String {
    let mut ctx = PreToolUse::new(&Session::new("s1"), tool.to_owned(), args);
    let outcome = hooks.dispatch(&mut ctx).await;
    assert!(outcome.is_continue(), "{:?}", outcome.denial());
    ctx.injected().text().to_owned()
}

/// The failure a call of `tool` with `args` was denied with.
async fn failure(hooks: &Hooks, tool: &str, args: Value) -> String {
    let mut ctx = PreToolUse::new(&Session::new("s1"), tool.to_owned(), args);
    let outcome = hooks.dispatch(&mut ctx).await;
    match outcome.denial().map(hooks_core::Denial::cause) {
        Some(DenialCause::Failed(HookError::Failed(message))) => message.clone(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

// ---- agent ----

/// Thinks for `think` turns (or forever), sleeping `delay` each, then refuses
/// `rm` and allows the rest. Records each conversation it is shown.
struct Scripted {
    think: Option<usize>,
    delay: Duration,
    seen: Arc<Mutex<Vec<Vec<Turn>>>>,
}

impl Verifier for Scripted {
    fn turn<'a>(&'a self, conversation: &'a [Turn]) -> BoxFuture<'a, Result<AgentStep, String>> {
        Box::pin(async move {
            self.seen.lock().unwrap().push(conversation.to_vec());
            tokio::time::sleep(self.delay).await;
            let Turn::Task { event, .. } = &conversation[0] else {
                return Err("the task is not first".to_owned());
            };
            if self.think.is_none_or(|think| conversation.len() <= think) {
                return Ok(AgentStep::Continue(format!(
                    "turn {}: read {}",
                    conversation.len(),
                    event["tool_input"]["path"]
                )));
            }
            Ok(AgentStep::Answer(if event["tool_name"] == "rm" {
                "```json\n{\"ok\": false, \"reason\": \"deleting needs a ticket\"}\n```".to_owned()
            } else {
                "{\"ok\": true}".to_owned()
            }))
        })
    }
}

fn agent_hooks(
    think: Option<usize>,
    delay: Duration,
    extra: &str,
) -> (Hooks, Arc<Mutex<Vec<Vec<Turn>>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let config = parse(&format!(
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"verify\"\nagent = {{ prompt = \"Check the call.\"{extra} }}\ntimeout = \"1s\"\n"
    ))
    .verifier(
        "default",
        Scripted {
            think,
            delay,
            seen: Arc::clone(&seen),
        },
    );
    (dispatcher(config), seen)
}

#[tokio::test]
async fn an_agent_answering_after_two_turns_decides() {
    let (hooks, seen) = agent_hooks(Some(1), Duration::ZERO, "");
    assert_eq!(
        denial(&hooks, "rm", json!({"path": "a.txt"}))
            .await
            .as_deref(),
        Some("deleting needs a ticket")
    );
    assert_eq!(denial(&hooks, "ls", json!({"path": "."})).await, None);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4, "two turns per call");
    let Turn::Task { instruction, event } = &seen[1][0] else {
        panic!("the task comes first");
    };
    assert_eq!(instruction, "Check the call.");
    assert_eq!(event["tool_name"], "rm");
    assert_eq!(seen[1][1], Turn::Step("turn 1: read \"a.txt\"".to_owned()));
    assert!(
        seen[0][0]
            .text()
            .contains("{\"ok\": false, \"reason\": \"...\"}")
    );
}

#[tokio::test]
async fn an_agent_that_never_answers_fails_at_its_turn_cap_and_a_guard_denies() {
    let (hooks, seen) = agent_hooks(None, Duration::ZERO, ", max_turns = 3");
    let message = failure(&hooks, "ls", json!({"path": "."})).await;
    assert_eq!(
        message,
        "the verifier did not answer within 3 turns (`max_turns` = 3)"
    );
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn a_slow_agent_times_out_naming_its_turn() {
    let (hooks, seen) = agent_hooks(None, Duration::from_millis(400), ", max_turns = 10");
    let message = failure(&hooks, "ls", json!({"path": "."})).await;
    assert_eq!(
        message,
        "the verifier did not answer within the hook's timeout (1s), on turn 3 of at most 10 (`max_turns`)"
    );
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[test]
fn agent_mistakes_are_refused_with_file_line_and_hook() {
    let text = "[[hooks]]\nevent = \"stop\"\nname = \"done\"\nagent = { prompt = \"Done?\", verifier = \"strict\" }\n\n[[hooks]]\nevent = \"stop\"\nname = \"never\"\nagent = { prompt = \"Done?\", max_turns = 0 }\n";
    assert_eq!(
        parse_error("forms.toml", text, false).problems(),
        [
            "forms.toml:6: hook `never`: `agent`: `max_turns` is 0: the verifier could never answer (write e.g. 3)"
        ]
    );
    let config = parse(&text[..text.find("\n\n").unwrap()]);
    assert_eq!(
        apply_error(config, "a missing verifier is an error").problems(),
        [
            "forms.toml:1: hook `done`: uses verifier `strict`, which the program did not provide (Config::verifier)"
        ]
    );
}

// ---- mcp_tool ----

/// Records each call; answers by the path it is asked about.
#[derive(Clone, Default)]
struct FakeMcp(Arc<Mutex<Vec<(String, String, Value)>>>);

impl McpCaller for FakeMcp {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
    ) -> BoxFuture<'a, Result<String, String>> {
        let answer = match arguments["path"].as_str() {
            Some(".env") => Ok(r#"{"ok": false, "reason": "secrets stay put"}"#.to_owned()),
            Some("down") => Err("the server went away".to_owned()),
            Some("deny-json") => Ok(r#"{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "policy"}}"#.to_owned()),
            _ => Ok("looks fine".to_owned()),
        };
        self.0
            .lock()
            .unwrap()
            .push((server.to_owned(), tool.to_owned(), arguments));
        Box::pin(async move { answer })
    }
}

const MCP: &str = r#"
[[hooks]]
event = "pre_tool_use"
name = "guard"
mcp_tool = { server = "guard", tool = "check", arguments = { path = "${tool_input.path}", who = "user ${session_id}", limits = [1, "${tool_input.n}"] } }
"#;

#[tokio::test]
async fn an_mcp_tool_judges_with_the_events_values() {
    let mcp = FakeMcp::default();
    let hooks = dispatcher(parse(MCP).mcp("guard", mcp.clone()));
    assert_eq!(
        denial(&hooks, "write", json!({"path": ".env", "n": 2}))
            .await
            .as_deref(),
        Some("secrets stay put")
    );
    assert_eq!(
        denial(&hooks, "write", json!({"path": "deny-json", "n": 2}))
            .await
            .as_deref(),
        Some("policy")
    );
    assert_eq!(
        denial(&hooks, "write", json!({"path": "a.txt", "n": {"x": 1}})).await,
        None
    );
    assert_eq!(
        failure(&hooks, "write", json!({"path": "down", "n": 1})).await,
        "MCP tool `check` on `guard` failed: the server went away"
    );
    assert!(
        failure(&hooks, "write", json!({"path": "a.txt"}))
            .await
            .contains("no `${tool_input.n}`"),
        "a missing variable fails the call before the tool is called"
    );
    let calls = mcp.0.lock().unwrap();
    assert_eq!(calls.len(), 4);
    assert_eq!(
        calls[0],
        (
            "guard".to_owned(),
            "check".to_owned(),
            json!({"path": ".env", "who": "user s", "limits": [1, 2]})
        )
    );
    assert_eq!(calls[2].2["limits"], json!([1, {"x": 1}]));
}

#[test]
fn an_mcp_tool_hook_without_its_server_is_an_error_naming_it() {
    assert_eq!(
        apply_error(parse(MCP), "a missing server is an error").problems(),
        [
            "forms.toml:2: hook `guard`: uses MCP server `guard`, which the program did not provide (Config::mcp)"
        ]
    );
}

// ---- variables in exec-form arguments ----

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts")
}

fn argv_hooks(args: &str, extra: &str) -> Hooks {
    dispatcher(parse(&format!(
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"argv\"\ncommand = [\"python3\", \"{}\", {args}]\n{extra}\n",
        scripts().join("argv.py").display()
    )))
}

#[tokio::test]
async fn each_argument_is_filled_in_alone_and_never_read_by_a_shell() {
    let hooks = argv_hooks(
        r#""${tool_input.file_path}", "${tool_name}", "--n=${tool_input.n}", "$${tool_name} costs $5", "${tool_input}""#,
        "",
    );
    let hostile = "a b; touch pwned $(touch pwned) `id` \"q\" 'r' $HOME";
    let told = context(&hooks, "Write", json!({"file_path": hostile, "n": 3})).await;
    let argv: Vec<String> = serde_json::from_str(&told).unwrap();
    assert_eq!(
        argv,
        [
            hostile,
            "Write",
            "--n=3",
            "${tool_name} costs $5",
            &json!({"file_path": hostile, "n": 3}).to_string(),
        ]
    );
    assert!(!Path::new("pwned").exists());
}

/// A directory of this run's own for files a program may write.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("hooks-config-forms-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn a_value_is_never_an_option_to_the_real_sort() {
    let dir = scratch("sort");
    // The real sort writes where `--output` / `-o` says: the attack is real.
    let control = dir.join("control");
    let sorted = std::process::Command::new("sort")
        .arg(format!("--output={}", control.display()))
        .stdin(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(
        sorted.success() && control.exists(),
        "sort did not write its --output"
    );

    let hooks = dispatcher(parse(
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"sort\"\ncommand = [\"sort\", \"${tool_input.file}\"]\n",
    ));
    let written = dir.join("written");
    for file in [
        format!("--output={}", written.display()),
        format!("-o{}", written.display()),
        format!("-mo{}", written.display()),
    ] {
        let mut ctx = PreToolUse::new(&Session::new("s1"), "Read", json!({ "file": file }));
        let outcome = hooks.dispatch(&mut ctx).await;
        assert!(
            !written.exists(),
            "sort wrote {}: `{file}` was read as an option",
            written.display()
        );
        let Some(DenialCause::Failed(HookError::Failed(reason))) =
            outcome.denial().map(hooks_core::Denial::cause)
        else {
            panic!("`{file}`: expected a failure, got {:?}", outcome.denial());
        };
        assert_eq!(
            reason,
            &"the value of `${tool_input.file}` starts with `-`, and `sort` would read it as an \
              option: refused (a value may start an argument only after text of the hook's own, \
              e.g. `--file=${tool_input.file}`)"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_value_after_text_of_the_hooks_own_may_start_with_a_dash() {
    let hooks = argv_hooks(
        r#""--n=${tool_input.n}", "./${tool_input.path}", "-${tool_input.flag}", "${tool_input.plain}""#,
        "",
    );
    let told = context(
        &hooks,
        "Write",
        json!({"n": "-5", "path": "-rf", "flag": "v", "plain": "a-b"}),
    )
    .await;
    let argv: Vec<String> = serde_json::from_str(&told).unwrap();
    assert_eq!(argv, ["--n=-5", "./-rf", "-v", "a-b"]);
    // `+` starts options too (`vim +cmd`, `less +cmd`), also after an empty value.
    let hooks = argv_hooks(r#""${tool_input.empty}${tool_input.plus}""#, "");
    assert_eq!(
        failure(&hooks, "Write", json!({"empty": "", "plus": "+!id"})).await,
        "the value of `${tool_input.plus}` starts with `+`, and `python3` would read it as an \
         option: refused (a value may start an argument only after text of the hook's own, \
         e.g. `--file=${tool_input.plus}`)"
    );
}

#[tokio::test]
async fn a_missing_variable_fails_the_call_naming_it_so_a_guard_denies() {
    let hooks = argv_hooks(r#""${tool_input.file_path}""#, "on_error = \"deny\"");
    assert_eq!(
        failure(&hooks, "Write", json!({"path": "x"})).await,
        "the event has no `${tool_input.file_path}` for its variable"
    );
}

#[tokio::test]
async fn shell_commands_are_not_filled_in() {
    let hooks = dispatcher(parse(
        "[[hooks]]\nevent = \"pre_tool_use\"\ncommand = \"printf '%s' '${tool_name}' >&2; exit 2\"\nshell = true\n",
    ));
    assert_eq!(
        denial(&hooks, "Write", json!({})).await.as_deref(),
        Some("${tool_name}")
    );
}

#[test]
fn variables_where_they_would_be_code_or_a_shell_variable_are_refused() {
    let text = r#"
[[hooks]]
event = "pre_tool_use"
name = "sh"
command = ["sh", "-c", "cat ${tool_input.path}"]

[[hooks]]
event = "pre_tool_use"
name = "bare"
command = ["cat", "$tool_input_path"]

[[hooks]]
event = "pre_tool_use"
name = "positional"
command = ["sh", "-c", "cat \"$1\"", "sh", "${tool_input.path}"]
"#;
    let problems = parse_error("forms.toml", text, false).problems().to_vec();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].starts_with(
            "forms.toml:2: hook `sh`: `command`: `sh` runs \"cat ${tool_input.path}\" as code"
        ),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].starts_with("forms.toml:7: hook `bare`: `command`: `$tool_input_path` in \"$tool_input_path\" is not a variable here")
            && problems[1].contains("write `${tool_input.path}`"),
        "{}",
        problems[1]
    );
}

// ---- HTTP payload templates ----

fn payload_hooks(port: u16, template: &str) -> Hooks {
    dispatcher(parse(&format!(
        "[http]\nallow = [\"127.0.0.1\"]\n\n[[hooks]]\nevent = \"pre_tool_use\"\nhttp = {{ url = \"http://127.0.0.1:{port}/\", payload_template = {template} }}\ntimeout = \"5s\"\n"
    )))
}

#[tokio::test]
async fn a_payload_is_its_template_filled_in_and_a_value_cannot_break_out() {
    let server = PythonServer::start("echo_server.py");
    let escape = "x\", \"admin\": true, \"y\": {\"z\": \"}";
    for template in [
        r#"{ file = "${tool_input.file_path}", who = "${session_id}", said = "path: ${tool_input.file_path}", args = "${tool_input}" }"#,
        r#"'{"file": "${tool_input.file_path}", "who": "${session_id}", "said": "path: ${tool_input.file_path}", "args": "${tool_input}"}'"#,
    ] {
        let hooks = payload_hooks(server.port, template);
        let body = context(&hooks, "Write", json!({"file_path": escape})).await;
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            body,
            json!({
                "file": escape,
                "who": "s1",
                "said": format!("path: {escape}"),
                "args": {"file_path": escape},
            }),
            "{template}"
        );
    }
}

#[test]
fn a_payload_template_that_is_not_json_is_refused_saying_how_to_write_it() {
    let problems = parse_error(
        "forms.toml",
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"post\"\nhttp = { url = \"https://example.com/\", payload_template = '{\"file\": ${tool_input.file_path}}' }\n",
        false,
    )
    .problems()
    .to_vec();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("forms.toml:1: hook `post`: `http`: `payload_template` is a string, so it must hold JSON")
            && problems[0].contains("\"${tool_input.path}\""),
        "{}",
        problems[0]
    );
}

// ---- conditions ----

fn guarded(condition: &str, extra: &str) -> Hooks {
    dispatcher(parse(&format!(
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"guard\"\ncondition = \"{condition}\"\n{extra}\ncommand = [\"bash\", \"{}\"]\n",
        scripts().join("block.sh").display()
    )))
}

#[tokio::test]
async fn a_path_condition_reads_paths_as_paths() {
    let hooks = guarded("Write(src/**/*.ts)", "");
    let cwd = std::env::current_dir().unwrap();
    let denied = |path: String| {
        let hooks = &hooks;
        async move {
            denial(hooks, "Write", json!({"file_path": path}))
                .await
                .is_some()
        }
    };
    for inside in [
        "src/a.ts",
        "src/a/b.ts",
        "./src//deep/er/c.ts",
        "lib/../src/x.ts",
        &format!("{}/src/a/b.ts", cwd.display()),
    ] {
        assert!(denied(inside.to_owned()).await, "{inside} is under src/");
    }
    for outside in [
        "src/a.js",
        "src/../../etc/passwd.ts",
        "src/../x.ts",
        "../src/x.ts",
        "/elsewhere/src/x.ts",
        "lib/src/x.ts",
    ] {
        assert!(
            !denied(outside.to_owned()).await,
            "{outside} is not under src/"
        );
    }
    assert_eq!(
        denial(&hooks, "Edit", json!({"file_path": "src/a.ts"})).await,
        None
    );
}

#[tokio::test]
async fn condition_and_matches_must_both_hold() {
    let hooks = guarded("Bash(git push*)", "matches = \"Bash|Write\"");
    assert!(
        denial(
            &hooks,
            "Bash",
            json!({"command": "cd x && git push --force"})
        )
        .await
        .is_some()
    );
    assert_eq!(
        denial(&hooks, "Bash", json!({"command": "git status"})).await,
        None
    );
    assert_eq!(
        denial(&hooks, "Write", json!({"file_path": "git push"})).await,
        None
    );
}

#[test]
fn a_condition_on_an_event_without_a_tool_call_is_refused() {
    let problems = parse_error(
        "forms.toml",
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"ok\"\ncommand = [\"true\"]\n\n[[hooks]]\nevent = \"stop\"\nname = \"done\"\ncondition = \"Write(src/**)\"\ncommand = [\"true\"]\n\n[[hooks]]\nevent = \"pre_tool_use\"\nname = \"bad\"\ncondition = \"^Write$\"\ncommand = [\"true\"]\n",
        false,
    )
    .problems()
    .to_vec();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].starts_with("forms.toml:6: hook `done`: `condition` is about a tool call"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1]
            .starts_with("forms.toml:12: hook `bad`: bad pattern \"^Write$\" in `condition`"),
        "{}",
        problems[1]
    );
}

#[test]
fn the_documented_example_file_loads() {
    let source = include_str!("../src/toml_file.rs");
    let start = source.find("//! ```toml\n").unwrap() + "//! ```toml\n".len();
    let end = start + source[start..].find("//! ```\n").unwrap();
    let text = source[start..end]
        .lines()
        .map(|line| line.trim_start_matches("//!").trim_start_matches(' '))
        .collect::<Vec<_>>()
        .join("\n");
    let config = hooks_config::parse("example.toml", &text, false).unwrap();
    assert_eq!(config.len(), 6);
}
