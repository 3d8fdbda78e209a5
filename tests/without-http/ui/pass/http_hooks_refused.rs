//! Run by trybuild, against hooks-config built without `http`.

fn refused(file: &str, text: &str, claude_settings: bool) -> Vec<String> {
    match hooks_config::parse(file, text, claude_settings) {
        Ok(_) => panic!("{file} loaded without an HTTP client"),
        Err(error) => error.problems().to_vec(),
    }
}

fn main() {
    let problems = refused(
        "hooks.toml",
        "[[hooks]]\nevent = \"post_tool_use\"\nname = \"audit\"\n\
         http = { url = \"https://hooks.example.com/audit\" }\n",
        false,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("hooks.toml:1: hook `audit`: an `http` hook needs hooks-config's `http` feature"), "{problems:?}");
    assert!(problems[0].contains("features = [\"http\"]"), "{problems:?}");

    // Not skipped as something this project does not run: refused.
    let problems = refused(
        "settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "http", "url": "https://hooks.example.com/check"}
        ]}]}}"#,
        true,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("an \"http\" hook needs hooks-config's `http` feature"), "{problems:?}");

    let problems = refused(
        "hooks.toml",
        "[approval]\ntools = [\"payments_*\"]\ndatabase = \"/nonexistent/approvals.sqlite3\"\n\n\
         [approval_webhook]\nurl = \"https://hooks.slack.com/services/T/B/x\"\n",
        false,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("hooks.toml:5: `[approval_webhook]` needs hooks-config's `http` feature"), "{problems:?}");

    // What needs no HTTP client loads as ever.
    let config = hooks_config::parse(
        "hooks.toml",
        "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"check\"\ncommand = [\"true\"]\n",
        false,
    );
    assert!(config.is_ok(), "{:?}", config.err().map(|error| error.to_string()));
}
