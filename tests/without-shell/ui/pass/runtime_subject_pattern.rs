//! Run by trybuild: without the `shell` feature, a hook added at run time
//! with a subject pattern is a build problem naming the feature, and plain
//! patterns work as ever.

use hooks_core::prelude::*;
use hooks_core::{BuildProblem, Matcher, ToolCall};

#[pre_tool_use(matches = "sql_*")]
fn sql(_ctx: &mut PreToolUse) {}

fn main() {
    let error = Matcher::parse("read_file| Bash(git push*)").unwrap_err();
    assert!(error.message().contains("`shell` feature"), "{error}");
    assert!(error.message().contains("features = [\"shell\"]"), "{error}");
    assert_eq!(error.at(), 11..26, "spans the alternative");

    let hook = Hook::<PreToolUse>::new("no_push", |_: &mut PreToolUse| Decision::deny("no"))
        .matches("Bash(git push*)");
    let error = Hooks::builder().hook(hook).build().unwrap_err();
    match error.problems() {
        [BuildProblem::BadPattern { hook, error, .. }] => {
            assert_eq!(hook, "no_push");
            assert!(error.message().contains("`shell` feature"), "{error}");
        }
        problems => panic!("expected one bad pattern, got {problems:?}"),
    }

    let plain = Matcher::parse("sql_*|*_write").unwrap();
    assert!(plain.matches(ToolCall::new("sql_query", &json!({"command": "rm -rf /"}))));
    assert!(!plain.matches(ToolCall::new("Bash", &json!({"command": "git push"}))));
    let hooks = Hooks::builder().build().unwrap();
    assert_eq!(hooks.count::<PreToolUse>(), 1, "the linked `sql` hook");
}
