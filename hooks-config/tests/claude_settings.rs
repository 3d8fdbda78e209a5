//! Claude Code's `settings.json` loads as it is, and hook scripts written
//! the way public Claude Code hook collections write them run unchanged:
//! an `rm -rf` blocker (exit 2), a `.env` guard (JSON deny), a logger.

use std::path::{Path, PathBuf};

use hooks_core::prelude::*;

mod common;
use common::{denial, dispatcher, parse_error};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-config-claude-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn settings(log: &Path) -> PathBuf {
    // `$CLAUDE_PROJECT_DIR` is the working directory: this crate, when testing.
    let text = format!(
        r#"{{
  "permissions": {{"allow": ["Bash(ls:*)"]}},
  "hooks": {{
    "PreToolUse": [
      {{
        "matcher": "Bash",
        "hooks": [
          {{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/tests/scripts/claude/block_rm.py", "timeout": 10}}
        ]
      }},
      {{
        "matcher": "Read|Edit|Write",
        "hooks": [
          {{"type": "command", "command": "python3 $CLAUDE_PROJECT_DIR/tests/scripts/claude/env_guard.py"}}
        ]
      }}
    ],
    "PostToolUse": [
      {{
        "matcher": "*",
        "hooks": [
          {{"type": "command", "command": "bash $CLAUDE_PROJECT_DIR/tests/scripts/claude/log_tool.sh {}"}}
        ]
      }}
    ]
  }}
}}"#,
        log.display()
    );
    let path = temp("settings.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn public_style_hook_scripts_run_unchanged() {
    let log = temp("tool-usage.jsonl");
    let _ = std::fs::remove_file(&log);
    let path = settings(&log);
    let config = hooks_config::load(&path).unwrap();
    assert_eq!(config.len(), 3);
    let hooks = dispatcher(config);

    assert_eq!(
        denial(&hooks, "Bash", json!({"command": "rm -rf /tmp/build"}))
            .await
            .as_deref(),
        Some(
            "Blocked: 'rm -rf /tmp/build' is a recursive forced delete. Remove specific files instead."
        )
    );
    assert_eq!(
        denial(&hooks, "Bash", json!({"command": "ls -la"})).await,
        None
    );

    assert_eq!(
        denial(&hooks, "Read", json!({"file_path": "/app/.env"}))
            .await
            .as_deref(),
        Some("Access to /app/.env is blocked: environment files hold secrets.")
    );
    assert_eq!(
        denial(&hooks, "Read", json!({"file_path": "/app/main.rs"})).await,
        None
    );
    assert_eq!(
        denial(&hooks, "Grep", json!({"path": "/app/.env"})).await,
        None,
        "the guard's matcher does not cover Grep"
    );

    let session = Session::new("sess-claude");
    let tool = hooks.tool("Read");
    let run = tool
        .run(
            &session,
            json!({"file_path": "/app/main.rs"}),
            async |_: &Value| Ok::<_, String>(json!("fn main() {}")),
        )
        .await;
    assert!(run.ran());
    let logged: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0]["hook_event_name"], "PostToolUse");
    assert_eq!(logged[0]["tool_name"], "Read");
    assert_eq!(logged[0]["tool_response"], "fn main() {}");

    let described = hooks.describe().to_string();
    assert!(
        described.contains(&format!("{}:8 (config)", path.display())),
        "{described}"
    );
}

#[test]
fn hooks_for_events_this_project_lacks_are_skipped_and_named_or_refused_when_strict() {
    let text = r#"{
  "hooks": {
    "WorktreeCreate": [{"hooks": [{"type": "command", "command": "make-worktree"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
  }
}"#;
    let config = hooks_config::parse("settings.json", text, true).unwrap();
    assert_eq!(config.len(), 1, "the rest of the file loads");
    assert_eq!(config.skipped().len(), 1);
    assert!(
        config.skipped()[0].starts_with(
            "settings.json:3: `WorktreeCreate` hooks replace Claude Code's own worktree creation"
        ),
        "{:?}",
        config.skipped()
    );
    assert!(config.skipped()[0].ends_with(": skipped"));
    let Err(strict) = hooks_config::parse_strict("settings.json", text, true) else {
        panic!("strict refuses the file");
    };
    assert!(strict.problems()[0].starts_with(
        "settings.json:3: `WorktreeCreate` hooks replace Claude Code's own worktree creation"
    ));
}

#[test]
fn unsupported_events_and_matchers_are_errors_naming_the_line() {
    let text = r#"{
  "hooks": {
    "WorktreeCreate": [{"hooks": [{"type": "command", "command": "make-worktree"}]}],
    "PreToolUse": [{"matcher": "mcp__(github", "hooks": [{"type": "command", "command": "true"}]}],
    "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "webhook"}]}]
  }
}"#;
    let Err(error) = hooks_config::parse_strict("settings.json", text, true) else {
        panic!("the file is refused");
    };
    let problems = error.problems();
    assert_eq!(problems.len(), 3, "{error}");
    // In the order of the events' names: PostToolUse, PreToolUse, WorktreeCreate.
    assert!(
        problems[2].starts_with(
            "settings.json:3: `WorktreeCreate` hooks replace Claude Code's own worktree creation"
        ),
        "{error}"
    );
    assert!(problems[0].starts_with("settings.json:5: hook `settings.json:5 (PostToolUse[0].hooks[0])`: unknown hook type \"webhook\""), "{error}");
    assert!(
        problems[1]
            .starts_with("settings.json:4: PreToolUse matcher \"mcp__(github\" is not a valid regular expression for the tool name"),
        "{error}"
    );
    let broken = parse_error("settings.json", "{\n  \"hooks\": [\n", true);
    assert!(
        broken.problems()[0].starts_with("settings.json:2: not valid settings JSON"),
        "{broken}"
    );
}

#[test]
fn a_timeout_too_large_to_add_to_still_loads() {
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": 18446744073709551615}]}]}}"#;
    let hooks = dispatcher(hooks_config::parse("settings.json", text, true).unwrap());
    assert_eq!(hooks.count::<Stop>(), 1);
}

#[test]
fn repeated_values_get_the_line_of_their_own_occurrence() {
    let text = r#"{
  "permissions": {"deny": ["(Bash"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]},
      {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}
    ]
  }
}"#;
    let hooks = dispatcher(hooks_config::parse("settings.json", text, true).unwrap());
    let lines: Vec<String> = hooks
        .describe()
        .hooks()
        .iter()
        .map(|hook| hook.origin.to_string())
        .collect();
    assert_eq!(
        lines,
        ["settings.json:5 (config)", "settings.json:6 (config)"]
    );

    let bad = text.replace("\"Write\"", "\"(Bash\"");
    let error = parse_error("settings.json", &bad, true);
    assert!(
        error.problems()[0].starts_with("settings.json:6: PreToolUse matcher \"(Bash\""),
        "{error}"
    );
}

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let dir = temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `text` written to `path` (its directories made), and `path`.
fn write(path: PathBuf, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// What the hooks logged to `path`, or nothing if they never ran.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// JSON for a string, to put a path into a settings file.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

#[tokio::test]
async fn regex_matchers_run_the_hook_for_matching_tools_only() {
    let dir = dir("regex");
    let log = dir.join("seen.log");
    let command = format!(
        "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_name\"])' >> {}",
        log.display()
    );
    let text = format!(
        r#"{{"hooks": {{"PreToolUse": [
  {{"matcher": "mcp__.*__write.*", "hooks": [{{"type": "command", "command": {}}}]}},
  {{"matcher": "Edit|Write", "hooks": [{{"type": "command", "command": "echo no edits >&2; exit 2"}}]}}
]}}}}"#,
        quoted(&command)
    );
    let hooks = dispatcher(hooks_config::parse("settings.json", &text, true).unwrap());
    for tool in ["mcp__github__write_file", "mcp__github__read_file", "Read"] {
        assert_eq!(denial(&hooks, tool, json!({})).await, None);
    }
    assert_eq!(read(&log), "mcp__github__write_file\n");

    assert_eq!(
        denial(&hooks, "Write", json!({})).await.as_deref(),
        Some("no edits")
    );
    assert_eq!(
        denial(&hooks, "Edit", json!({})).await.as_deref(),
        Some("no edits")
    );
    assert_eq!(
        denial(&hooks, "NotebookEdit", json!({})).await,
        None,
        "plain names match exactly"
    );
    let described = hooks.describe().to_string();
    assert!(described.contains("Edit|Write"), "{described}");
}

#[tokio::test]
async fn session_start_matchers_match_the_source() {
    let dir = dir("session-start");
    let log = dir.join("sources.log");
    let command = format!(
        "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"source\"])' >> {}",
        log.display()
    );
    let text = format!(
        r#"{{"hooks": {{"SessionStart": [{{"matcher": "resume|compact", "hooks": [{{"type": "command", "command": {}}}]}}]}}}}"#,
        quoted(&command)
    );
    let hooks = dispatcher(hooks_config::parse("settings.json", &text, true).unwrap());
    let session = Session::new("s");
    for source in ["startup", "resume", "clear", "compact"] {
        let _ = hooks
            .dispatch(&mut SessionStart::new(&session).with_source(source))
            .await;
    }
    assert_eq!(read(&log), "resume\ncompact\n");
}

#[test]
fn matchers_on_events_with_nothing_to_match_and_async_hooks_are_skipped_with_their_line() {
    let text = r#"{
  "hooks": {
    "Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "true"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [
      {"type": "command", "command": "echo later", "async": true},
      {"type": "command", "command": "true", "statusMessage": "Checking", "once": false}
    ]}]
  }
}"#;
    let config = hooks_config::parse("settings.json", text, true).unwrap();
    assert_eq!(config.len(), 1, "{:?}", config.skipped());
    let skipped = config.skipped();
    assert!(
        skipped[0].starts_with(
            "settings.json:5: hook settings.json:5 (PreToolUse[0].hooks[0]): `\"async\": true`"
        ),
        "{skipped:?}"
    );
    assert!(
        skipped[1].starts_with("settings.json:3: Stop hooks have nothing here to match \"x\""),
        "{skipped:?}"
    );
    let Err(strict) = hooks_config::parse_strict("settings.json", text, true) else {
        panic!("strict refuses the file");
    };
    assert_eq!(strict.problems().len(), 2, "{strict}");
}

#[tokio::test]
async fn a_plugin_hooks_file_gets_its_root_and_runs_its_scripts() {
    let plugin = dir("plugin").join("formatter");
    let log = plugin.join("seen.log");
    write(
        plugin.join("scripts/x.sh"),
        &format!(
            "#!/bin/sh\nprintf '%s' \"$CLAUDE_PLUGIN_ROOT\" > {}\necho 'plugin says no' >&2\nexit 2\n",
            log.display()
        ),
    );
    let path = write(
        plugin.join("hooks/hooks.json"),
        r#"{
  "description": "Formats what it writes",
  "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
    {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}\"/scripts/x.sh", "timeout": 30}
  ]}]}
}"#,
    );
    assert_eq!(
        hooks_config::Format::of(&path),
        hooks_config::Format::ClaudePlugin {
            root: plugin.clone()
        }
    );
    let hooks = dispatcher(hooks_config::load(&path).unwrap());
    assert_eq!(
        denial(&hooks, "Write", json!({"file_path": "a.rs"}))
            .await
            .as_deref(),
        Some("plugin says no")
    );
    assert_eq!(read(&log), plugin.display().to_string());
}

#[tokio::test]
async fn a_codex_hooks_file_loads() {
    let path = write(
        dir("codex").join(".codex/hooks.json"),
        r#"{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [
      {"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; } || exit 0",
       "timeoutSec": 5, "statusMessage": "Checking the command"}
    ]}],
    "PermissionRequest": [{"hooks": [{"type": "command", "command": "true"}]}],
    "Interrupt": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}"#,
    );
    assert_eq!(hooks_config::Format::of(&path), hooks_config::Format::Codex);
    let config = hooks_config::load(&path).unwrap();
    assert_eq!(config.len(), 2, "PermissionRequest loads");
    assert_eq!(
        config.skipped().len(),
        1,
        "Interrupt is skipped: {:?}",
        config.skipped()
    );
    assert_eq!(config.skipped_events(), config.skipped());
    assert!(config.skipped()[0].contains("configure them in Codex's own settings"));
    let hooks = dispatcher(config);
    assert_eq!(
        denial(&hooks, "Bash", json!({"command": "rm -rf /"}))
            .await
            .as_deref(),
        Some("no rm -rf")
    );
    assert_eq!(denial(&hooks, "Bash", json!({"command": "ls"})).await, None);
    assert_eq!(
        hooks.describe().hooks()[0].timeout_ms,
        Some(6000),
        "timeoutSec is the timeout (and a second's backstop)"
    );
}

#[tokio::test]
async fn env_block_and_env_file_reach_later_command_hooks_of_the_same_dispatcher() {
    let dir = dir("env");
    let log = dir.join("env.log");
    let text = format!(
        r#"{{
  "env": {{"FOO": "bar"}},
  "hooks": {{
    "SessionStart": [{{"hooks": [{{"type": "command", "command": "echo 'export GREETING=\"hello world\"' >> \"$CLAUDE_ENV_FILE\"; echo 'PLAIN=1' >> \"$CLAUDE_ENV_FILE\""}}]}}],
    "PreToolUse": [{{"hooks": [{{"type": "command", "command": {}}}]}}]
  }}
}}"#,
        quoted(&format!(
            "echo \"$FOO|$GREETING|$PLAIN|${{CLAUDE_ENV_FILE:-none}}\" >> {}",
            log.display()
        ))
    );
    let path = write(dir.join("settings.json"), &text);
    let hooks = dispatcher(hooks_config::load(&path).unwrap());
    let other = dispatcher(hooks_config::load(&path).unwrap());
    let session = Session::new("s");

    assert_eq!(denial(&hooks, "Read", json!({})).await, None);
    let _ = hooks.dispatch(&mut SessionStart::new(&session)).await;
    assert_eq!(denial(&hooks, "Read", json!({})).await, None);
    assert_eq!(denial(&other, "Read", json!({})).await, None);
    assert_eq!(
        read(&log),
        "bar|||none\nbar|hello world|1|none\nbar|||none\n",
        "before the SessionStart hook, after it, and another dispatcher"
    );
}

#[test]
fn skipped_entries_show_in_describe_with_their_line() {
    let text = r#"{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
    "WorktreeCreate": [{"hooks": [{"type": "command", "command": "make-worktree"}]}]
  }
}"#;
    let hooks = dispatcher(hooks_config::parse("settings.json", text, true).unwrap());
    let description = hooks.describe();
    assert_eq!(description.skipped().len(), 1);
    assert!(
        description.skipped()[0].starts_with(
            "settings.json:4: `WorktreeCreate` hooks replace Claude Code's own worktree creation"
        ),
        "{:?}",
        description.skipped()
    );
    assert!(
        description
            .to_string()
            .contains("skipped settings.json:4: `WorktreeCreate` hooks"),
        "{description}"
    );
}

#[tokio::test]
async fn on_error_continue_lets_a_crashing_guard_through_while_the_default_denies() {
    let settings = |handler: &str, file: &str| {
        format!(
            r#"{{{file}"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "echo boom >&2; exit 1"{handler}}}]}}]}}}}"#
        )
    };
    let run = async |text: String| {
        let hooks = dispatcher(hooks_config::parse("settings.json", &text, true).unwrap());
        denial(&hooks, "Bash", json!({"command": "ls"})).await
    };
    let denied = run(settings("", "")).await;
    assert!(
        denied
            .as_deref()
            .is_some_and(|reason| reason.contains("boom")),
        "fail-closed by default: {denied:?}"
    );
    assert_eq!(run(settings(r#", "onError": "continue""#, "")).await, None);
    assert_eq!(run(settings(r#", "on_error": "continue""#, "")).await, None);
    assert_eq!(
        run(settings("", r#""hooksOnError": "continue", "#)).await,
        None
    );
    assert!(
        run(settings(
            r#", "onError": "deny""#,
            r#""hooksOnError": "continue", "#
        ))
        .await
        .is_some(),
        "the handler's own setting wins"
    );
    let error = parse_error(
        "settings.json",
        &settings(r#", "onError": "maybe""#, ""),
        true,
    );
    assert!(
        error.problems()[0].contains("`onError`: \"deny\" or \"continue\", not \"maybe\""),
        "{error}"
    );
}

/// Claude Code's other handler types, and `if`, from a settings file.
mod handler_types {
    use std::sync::{Arc, Mutex};

    use hooks_config::{AgentStep, McpCaller, Turn, Verifier};
    use hooks_core::BoxFuture;
    use hooks_core::prelude::*;

    /// Answers at once: deny `rm`, allow anything else.
    struct Reviewer;

    impl Verifier for Reviewer {
        fn turn<'a>(
            &'a self,
            conversation: &'a [Turn],
        ) -> BoxFuture<'a, Result<AgentStep, String>> {
            let Turn::Task { event, .. } = &conversation[0] else {
                return Box::pin(async { Err("no task".to_owned()) });
            };
            let answer = if event["tool_name"] == "rm" {
                r#"{"ok": false, "reason": "deleting needs a ticket"}"#
            } else {
                r#"{"ok": true}"#
            };
            Box::pin(async move { Ok(AgentStep::Answer(answer.to_owned())) })
        }
    }

    /// Records each call; refuses `.env`.
    #[derive(Clone, Default)]
    struct Scanner(Arc<Mutex<Vec<(String, String, Value)>>>);

    impl McpCaller for Scanner {
        fn call<'a>(
            &'a self,
            server: &'a str,
            tool: &'a str,
            arguments: Value,
        ) -> BoxFuture<'a, Result<String, String>> {
            let answer = if arguments["file"] == ".env" {
                r#"{"decision": "block", "reason": "secrets stay put"}"#
            } else {
                ""
            };
            self.0
                .lock()
                .unwrap()
                .push((server.to_owned(), tool.to_owned(), arguments));
            Box::pin(async move { Ok(answer.to_owned()) })
        }
    }

    const SETTINGS: &str = r#"{"hooks": {"PreToolUse": [
      {"matcher": "rm|ls", "hooks": [{"type": "agent", "prompt": "Is this call safe?", "timeout": 30}]},
      {"matcher": "Read", "hooks": [{"type": "mcp_tool", "server": "scanner", "tool": "scan_file",
                                     "input": {"file": "${tool_input.file_path}"}}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "if": "Bash(git push*)",
                                     "command": "echo 'no pushing from agents' >&2; exit 2"}]},
      {"matcher": "WebFetch", "hooks": [{"type": "http", "url": "http://127.0.0.1:9/never",
                                         "headers": {"Authorization": "Bearer $NOT_ALLOWED"}}]}
    ]}}"#;

    async fn denial(hooks: &Hooks, tool: &str, args: Value) -> Option<String> {
        super::denial(hooks, tool, args).await
    }

    #[tokio::test]
    async fn agent_mcp_tool_http_and_if_load_from_settings() {
        let scanner = Scanner::default();
        let config = hooks_config::parse("settings.json", SETTINGS, true)
            .unwrap()
            .verifier("default", Reviewer)
            .mcp("scanner", scanner.clone());
        assert_eq!(config.len(), 4);
        let hooks = super::dispatcher(config);
        // agent
        assert_eq!(
            denial(&hooks, "rm", json!({"path": "a"})).await.as_deref(),
            Some("deleting needs a ticket")
        );
        assert_eq!(denial(&hooks, "ls", json!({})).await, None);
        // mcp_tool, with the event's value filled into its input
        assert_eq!(
            denial(&hooks, "Read", json!({"file_path": ".env"}))
                .await
                .as_deref(),
            Some("secrets stay put")
        );
        assert_eq!(
            denial(&hooks, "Read", json!({"file_path": "src/a.rs"})).await,
            None
        );
        let calls = scanner.0.lock().unwrap().clone();
        assert_eq!(
            calls[1],
            (
                "scanner".into(),
                "scan_file".into(),
                json!({"file": "src/a.rs"})
            )
        );
        // `if`: the command runs for `git push` only
        assert_eq!(
            denial(&hooks, "Bash", json!({"command": "git push origin main"}))
                .await
                .as_deref(),
            Some("no pushing from agents")
        );
        assert_eq!(
            denial(&hooks, "Bash", json!({"command": "git status"})).await,
            None
        );
    }

    #[test]
    fn missing_fields_and_misplaced_if_are_errors_with_their_line() {
        for (settings, says) in [
            (
                r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "s"}]}]}}"#,
                "needs its `server` and `tool`",
            ),
            (
                r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "http"}]}]}}"#,
                "needs its `url`",
            ),
            (
                r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(*)"}]}]}}"#,
                "`if` is a rule about a tool call",
            ),
            (
                r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "webhook", "url": "x"}]}]}}"#,
                "unknown hook type \"webhook\"",
            ),
        ] {
            let error = super::parse_error("settings.json", settings, true).to_string();
            assert!(error.contains(says), "{error}");
            assert!(error.contains("settings.json:1:"), "{error}");
        }
    }
}

/// A `PermissionRequest` command hook printing `answer` (or exiting 2),
/// dispatched on a `Bash` call; the outcome and the context after.
async fn permission_hook(name: &str, command: &str) -> (Outcome, PermissionRequest) {
    let dir = dir(name);
    let path = write(
        dir.join("settings.json"),
        &format!(
            r#"{{"hooks": {{"PermissionRequest": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": {}}}]}}]}}}}"#,
            quoted(command)
        ),
    );
    let hooks = dispatcher(hooks_config::load(&path).unwrap());
    let mut ctx = PermissionRequest::new(
        &Session::new("s"),
        "Bash",
        json!({"command": "rm -rf target"}),
    );
    let outcome = hooks.dispatch(&mut ctx).await;
    (outcome, ctx)
}

#[tokio::test]
async fn a_permission_request_script_grants_denies_or_leaves_it_to_the_person() {
    let (outcome, ctx) = permission_hook(
        "perm-allow",
        r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "rm -rf target/tmp"}}}}'"#,
    )
    .await;
    assert!(!outcome.is_denied());
    let grant = ctx.granted().expect("the script granted it");
    assert_eq!(grant.args(), &json!({"command": "rm -rf target/tmp"}));

    let (outcome, _) = permission_hook(
        "perm-deny",
        r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not here"}}}'"#,
    )
    .await;
    assert_eq!(
        outcome.denial().map(|d| d.reason().to_owned()).as_deref(),
        Some("not here")
    );

    // PreToolUse's `allow` is not this event's answer: it grants nothing.
    let (outcome, ctx) = permission_hook(
        "perm-pretool",
        r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#,
    )
    .await;
    assert!(!outcome.is_denied() && ctx.granted().is_none());

    let (outcome, _) = permission_hook("perm-exit2", "echo 'no rm' >&2; exit 2").await;
    assert_eq!(
        outcome.denial().map(|d| d.reason().to_owned()).as_deref(),
        Some("no rm")
    );
    // A script that crashes denies (fail-closed), it does not show the dialog.
    let (outcome, ctx) = permission_hook("perm-crash", "exit 1").await;
    assert!(outcome.is_denied() && ctx.granted().is_none());
    let (outcome, _) = permission_hook(
        "perm-unknown",
        r#"cat >/dev/null; echo '{"hookSpecificOutput": {"decision": {"behavior": "maybe"}}}'"#,
    )
    .await;
    assert!(outcome.is_denied(), "an unknown behavior is a broken hook");
}
