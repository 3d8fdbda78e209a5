//! Without a config file, the hook binary runs the program's own hooks and
//! nothing else: no rate limit, no audit log, no approval store, and no file
//! written — not in the working directory, not in a state directory.

use std::ffi::OsString;

use hooks_claude::HookBinary;
use hooks_core::json;

hooks_core::link!(hooks_std);

#[test]
fn without_a_config_the_binary_limits_nothing_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("hooks-claude-unasked-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The only test of this binary: the working directory is its own to change.
    std::env::set_current_dir(&dir).unwrap();
    let event = |tool: &str| {
        json!({
            "session_id": "s",
            "transcript_path": dir.join("t.jsonl"),
            "cwd": dir,
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": {"amount": 250},
        })
        .to_string()
    };
    for _ in 0..70 {
        for tool in ["payments_refund", "deploy_production", "search"] {
            let answer = HookBinary::new()
                .run_with(std::iter::empty::<OsString>(), &mut event(tool).as_bytes());
            assert_eq!(answer.code(), 0, "{tool}: {}", answer.stderr());
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "written unasked: {left:?}");
    std::env::set_current_dir(std::env::temp_dir()).unwrap();
    std::fs::remove_dir(&dir).unwrap();
}
