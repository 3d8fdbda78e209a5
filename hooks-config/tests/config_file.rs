//! The TOML file: hooks join the dispatcher in order with their file and
//! line; every problem is reported with file, line and hook, all at once;
//! standard hooks are configured from their tables.

use hooks_core::prelude::*;
use hooks_core::{EventKind, Origin};

mod common;
use common::{apply_error, dispatcher, parse_error};

const GOOD: &str = r#"
[[hooks]]
event = "pre_tool_use"
name = "late"
priority = 50
matches = "Bash(git push*)"
command = ["bash", "-c", "cat > /dev/null; exit 0"]

[[hooks]]
event = "PreToolUse"
name = "early"
priority = -50
group = "ops"
timeout = "2s"
on_error = "continue"
command = ["true"]

[[hooks]]
event = "session_end"
command = ["true"]

[truncate]
max_chars = 500
"#;

#[test]
fn hooks_join_with_their_origin_and_options() {
    let config = hooks_config::parse("hooks.toml", GOOD, false).unwrap();
    assert_eq!(config.len(), 3);
    let hooks = dispatcher(config);
    let description = hooks.describe();
    let infos = description.hooks();
    assert_eq!(infos.len(), 3);
    assert_eq!((infos[0].name.as_str(), infos[0].priority), ("early", -50));
    assert_eq!(infos[0].group.as_deref(), Some("ops"));
    assert_eq!(infos[0].on_error, OnError::Continue);
    assert_eq!(
        infos[0].timeout_ms,
        Some(3_000),
        "2s, plus the dispatcher's one-second backstop"
    );
    assert_eq!(
        infos[0].origin,
        Origin::Config {
            file: "hooks.toml".into(),
            line: 9
        }
    );
    assert_eq!(
        (infos[1].name.as_str(), infos[1].matcher.as_deref()),
        ("late", Some("Bash(git push*)"))
    );
    assert_eq!(
        infos[1].origin,
        Origin::Config {
            file: "hooks.toml".into(),
            line: 2
        }
    );
    assert_eq!(
        (infos[2].event, infos[2].name.as_str()),
        (EventKind::SessionEnd, "hooks.toml:18")
    );
    assert!(description.to_string().contains("hooks.toml:9 (config)"));
}

#[test]
fn every_problem_is_reported_with_file_line_and_hook() {
    let text = r#"
[[hooks]]
event = "pre_tool_use"
name = "no_mode"

[[hooks]]
event = "post_tool_use"
name = "strict_observer"
on_error = "deny"
matches = "sql_.*+"
command = ["true"]

[[hooks]]
event = "stop"
name = "shell_string"
matches = "x"
command = "rm -rf / | true"
timeout = "soon"

[[hooks]]
event = "before_lunch"
command = ["true"]

[[hooks]]
event = "session_end"
name = "strict_farewell"
on_error = "deny"
command = ["true"]
"#;
    let error = parse_error("bad.toml", text, false);
    let problems = error.problems();
    assert_eq!(
        problems,
        [
            "bad.toml:2: hook `no_mode`: needs exactly one of `command`, `http`, `prompt`, `agent` or `mcp_tool`",
            "bad.toml:6: hook `strict_observer`: bad pattern \"sql_.*+\" in `matches`: `*` may only start or end a tool name, as in `sql_*` or `*_write`",
            "bad.toml:13: hook `shell_string`: `matches` only applies to tool events (pre_tool_use, permission_request, post_tool_use, post_tool_use_failure), not stop",
            "bad.toml:13: hook `shell_string`: bad `timeout` \"soon\": expected number at 0 (write e.g. \"5s\")",
            "bad.toml:13: hook `shell_string`: `command = \"rm -rf / | true\"` would need a shell: write it as an array (exec form, no shell), or add `shell = true`",
            "bad.toml:20: hook `bad.toml:20`: unknown event \"before_lunch\"; events are: session_start, user_prompt_submit, pre_model_request, post_model_response, pre_tool_use, permission_request, post_tool_use, post_tool_use_failure, notification, subagent_start, subagent_stop, pre_compact, stop, session_end",
            "bad.toml:24: hook `strict_farewell`: `on_error = \"deny\"` is not possible on session_end: that event can neither block nor withhold its output",
        ]
    );
    assert!(
        error
            .to_string()
            .starts_with("the hooks configuration is invalid (7 problems)")
    );
}

#[test]
fn syntax_and_unknown_fields_name_the_line() {
    let error = parse_error(
        "syntax.toml",
        "[[hooks]]\nevent = \"stop\"\ncomand = [\"true\"]\n",
        false,
    );
    assert!(
        error.problems()[0].starts_with("syntax.toml:3: unknown field `comand`"),
        "{error}"
    );
    let error = parse_error("syntax.toml", "\n\n[[hooks]\n", false);
    assert!(
        error.problems()[0].starts_with("syntax.toml:3: "),
        "{error}"
    );
    let missing = hooks_config::load("/no/such/hooks.toml").err().unwrap();
    assert!(
        missing.problems()[0].starts_with("/no/such/hooks.toml: cannot read it: No such file"),
        "{missing}"
    );
}

#[test]
fn a_bad_standard_table_names_its_line() {
    let text = "\n[truncate]\nmax_chars = 5\n";
    let config = hooks_config::parse("std.toml", text, false).unwrap();
    assert_eq!(
        apply_error(config, "the limit is too small").problems(),
        [
            "std.toml:2: [truncate]: truncate configuration: `max_chars` is 5 characters; the smallest limit is 200"
        ]
    );
}

#[test]
fn a_bad_entry_never_disables_the_others_silently() {
    // One bad hook fails the whole file: nothing runs half-configured.
    let text = "[[hooks]]\nevent = \"pre_tool_use\"\ncommand = [\"true\"]\n\n[[hooks]]\nevent = \"pre_tool_use\"\n";
    assert!(hooks_config::parse("half.toml", text, false).is_err());
}

#[test]
fn the_example_config_loads() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hooks.toml");
    let config = hooks_config::load(&path).unwrap();
    assert_eq!(config.len(), 2);
}

#[test]
fn top_level_settings_name_their_own_line_not_the_words_first_use() {
    // "allow" and "approval_channel" appear in comments above the settings.
    let text = "# allow only what we need; see approval_channel below\n\
                approval_channel = \"pager\"\n\
                \n\
                [http]\n\
                allow = [\"not an address\"]\n";
    let problems = parse_error("top.toml", text, false).problems().to_vec();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("top.toml:5: `[http] allow`: ")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with(
            "top.toml:2: `approval_channel` is \"cli\" or \"terminal\", not \"pager\""
        )),
        "{problems:?}"
    );
}

#[test]
fn zero_timeouts_are_refused_naming_the_line() {
    let text = "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"instant\"\ncommand = [\"true\"]\ntimeout = \"0s\"\n";
    let error = parse_error("zero.toml", text, false);
    assert_eq!(
        error.problems(),
        [
            "zero.toml:1: hook `instant`: `timeout` \"0s\" is zero: the hook could never finish, so every call would fail (write e.g. \"5s\")"
        ]
    );
    let settings = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "true", "timeout": 0}
]}]}}"#;
    let error = parse_error("settings.json", settings, true);
    assert!(
        error.problems()[0].starts_with("settings.json:2: hook `settings.json:2"),
        "{error}"
    );
    assert!(error.problems()[0].contains("`timeout` is 0"), "{error}");
}

#[test]
fn a_byte_order_mark_at_the_start_of_a_file_is_not_part_of_it() {
    let toml = "\u{feff}[[hooks]]\nevent = \"pre_tool_use\"\nname = \"ok\"\ncommand = [\"true\"]\n";
    assert!(hooks_config::parse("bom.toml", toml, false).is_ok());
    let json = "\u{feff}{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]}}";
    let config = hooks_config::parse("settings.json", json, true).unwrap();
    assert_eq!(config.len(), 1);
}

#[test]
fn an_event_declared_twice_in_settings_is_reported_not_half_dropped() {
    let settings = r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard-a"}]}],
  "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "guard-b"}]}]
}}"#;
    let error = parse_error("settings.json", settings, true);
    assert!(
        error.problems()[0]
            .starts_with("settings.json:3: not valid settings JSON: duplicate key `PreToolUse`"),
        "{error}"
    );
}

#[test]
fn upstream_servers_are_read_for_a_gateway_and_checked_with_their_lines() {
    let text = r#"
[[upstream]]
name = "git"
command = ["uvx", "mcp-server-git"]
timeout = "30s"

[[upstream]]
name = "time"
command = ["mcp-server-time"]

[[upstream]]
name = "search"
url = "https://search.example:8443/mcp"
"#;
    let config = hooks_config::parse("gw.toml", text, false).unwrap();
    let upstreams = config.upstreams();
    assert_eq!(upstreams.len(), 3);
    assert_eq!(
        (
            upstreams[0].name.as_str(),
            upstreams[0].command.as_slice(),
            upstreams[0].line
        ),
        (
            "git",
            &["uvx".to_owned(), "mcp-server-git".to_owned()][..],
            2
        )
    );
    assert_eq!(upstreams[0].timeout, std::time::Duration::from_secs(30));
    assert_eq!(upstreams[1].timeout, hooks_config::DEFAULT_UPSTREAM_TIMEOUT);
    assert_eq!(upstreams[0].url, None);
    // A server reached over Streamable HTTP: a URL, no command.
    assert_eq!(
        (
            upstreams[2].name.as_str(),
            upstreams[2].url.as_deref(),
            upstreams[2].command.as_slice(),
            upstreams[2].line
        ),
        (
            "search",
            Some("https://search.example:8443/mcp"),
            &[][..],
            11
        )
    );

    let bad = r#"
[[upstream]]
name = "git tools"
command = []

[[upstream]]
name = "time"
command = ["t"]
timeout = "0s"

[[upstream]]
name = "time"
command = ["t"]

[[upstream]]
name = "both"
command = ["t"]
url = "http://127.0.0.1:8000/mcp"

[[upstream]]
name = "neither"
timeout = "5s"

[[upstream]]
name = "ftp"
url = "ftp://files.example/mcp"

[[upstream]]
name = "hostless"
url = "http:///mcp"
"#;
    let Err(error) = hooks_config::parse("gw.toml", bad, false) else {
        panic!("bad upstreams are refused");
    };
    assert_eq!(
        error.problems(),
        [
            "gw.toml:2: `[[upstream]]` `git tools`: a name is letters, digits, `-` and `_` (it prefixes the server's tools)",
            "gw.toml:2: `[[upstream]]` `git tools`: `command` names no program: write `command = [\"program\", \"arg\", ...]`",
            "gw.toml:6: `[[upstream]]` `time`: `timeout` is zero: every call would fail (write e.g. \"30s\")",
            "gw.toml:11: `[[upstream]]` `time`: the name is used by an earlier `[[upstream]]`",
            "gw.toml:15: `[[upstream]]` `both`: give `command` (a server to start) or `url` (a server to reach), not both",
            "gw.toml:20: `[[upstream]]` `neither`: no server: give `command = [\"program\", \"arg\", ...]` (started, spoken to over stdio) or `url = \"http://host:port/mcp\"` (reached over Streamable HTTP)",
            "gw.toml:24: `[[upstream]]` `ftp`: `url = \"ftp://files.example/mcp\"` is not an http:// or https:// address with a host (write e.g. \"http://127.0.0.1:8000/mcp\")",
            "gw.toml:28: `[[upstream]]` `hostless`: `url = \"http:///mcp\"` is not an http:// or https:// address with a host (write e.g. \"http://127.0.0.1:8000/mcp\")",
        ]
    );
}

#[tokio::test]
async fn a_file_wide_on_error_is_the_default_of_its_hooks() {
    // Claude Code's behaviour for a whole file: failing hooks let calls through,
    // except a hook that says otherwise.
    let text = r#"
on_error = "continue"

[[hooks]]
name = "lenient"
event = "pre_tool_use"
matches = "ls"
command = ["sh", "-c", "exit 1"]

[[hooks]]
name = "strict"
event = "pre_tool_use"
matches = "rm"
command = ["sh", "-c", "exit 1"]
on_error = "deny"

[[hooks]]
name = "farewell"
event = "session_end"
command = ["sh", "-c", "exit 1"]
"#;
    let hooks = common::dispatcher(hooks_config::parse("lenient.toml", text, false).unwrap());
    assert_eq!(common::denial(&hooks, "ls", json!({})).await, None);
    assert!(common::denial(&hooks, "rm", json!({})).await.is_some());
    let error = common::parse_error("bad.toml", "on_error = \"maybe\"\n", false);
    assert!(
        error.problems()[0].starts_with("bad.toml:1: `on_error` is \"deny\" or \"continue\""),
        "{error}"
    );
}

#[test]
fn a_toml_hook_on_a_host_event_that_never_runs_here_says_why() {
    for event in ["WorktreeCreate", "worktree_create"] {
        let text = format!("[[hooks]]\nname = \"wt\"\nevent = \"{event}\"\ncommand = [\"true\"]\n");
        let error = parse_error("hooks.toml", &text, false);
        assert!(
            error.problems()[0].starts_with(
                "hooks.toml:1: hook `wt`: `WorktreeCreate` hooks replace Claude Code's own worktree creation"
            ),
            "{error}"
        );
    }
    // Both new events load from TOML by their snake-case names.
    let text = "[[hooks]]\nevent = \"notification\"\ncommand = [\"true\"]\n\n\
                [[hooks]]\nevent = \"permission_request\"\nmatches = \"Bash\"\ncommand = [\"true\"]\n";
    assert_eq!(
        hooks_config::parse("hooks.toml", text, false)
            .unwrap()
            .len(),
        2
    );
}
