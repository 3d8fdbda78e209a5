//! The read-only guard in front of the four reference MCP servers, as a
//! user runs it: `hooks-mcp --config hooks.toml` with `[read_only] enabled =
//! true`, every tool of each server called once through the official MCP
//! Python SDK's client, and the server's own state (the git repository, the
//! folder on disk, the memory file) read back afterwards.
//!
//! With the servers' annotations trusted (`--trust-annotations`), every read
//! works and every write is refused, naming the server as the source: no
//! false refusals. Untrusted (the default), the annotations can only refuse:
//! every write is still refused, and only the reads whose names hold no
//! reading word are (each listed here, as in SECURITY.md's table). Run
//! without the guard, the same write calls do change the state: the attacks
//! are real.

mod support;

use serde_json::{Value, json};
use support::{Folder, Memory, Repo, Scratch, answer, drive, server_command};

/// One call of the script: the tool, its arguments, and whether it writes.
struct Call {
    tool: &'static str,
    args: Value,
    writes: bool,
}

fn read(tool: &'static str, args: Value) -> Call {
    Call {
        tool,
        args,
        writes: false,
    }
}

fn write(tool: &'static str, args: Value) -> Call {
    Call {
        tool,
        args,
        writes: true,
    }
}

/// How the gateway runs: the guard on or off, the server's annotations
/// trusted or not.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Setting {
    Unguarded,
    Trusted,
    Untrusted,
}

/// Calls each of `calls` through a gateway in front of `upstream` (named
/// `name`) and returns, per call, whether it failed and its text.
fn run(name: &str, upstream: &[String], calls: &[Call], setting: Setting) -> Vec<(bool, String)> {
    let scratch = Scratch::new("read-only-servers");
    let config = scratch.path().join("hooks.toml");
    // The audit log in the scratch directory: nowhere else is written.
    let audit = scratch.path().join("audit.jsonl");
    let mut toml = format!(
        "[audit_log]\npath = {}\n",
        Value::from(audit.to_str().unwrap())
    );
    if setting != Setting::Unguarded {
        toml.push_str("[read_only]\nenabled = true\n");
    }
    std::fs::write(&config, toml).unwrap();
    let mut command = vec![
        env!("CARGO_BIN_EXE_hooks-mcp").to_owned(),
        "--config".to_owned(),
        config.display().to_string(),
        "--name".to_owned(),
        name.to_owned(),
    ];
    if setting == Setting::Trusted {
        command.push("--trust-annotations".to_owned());
    }
    command.push("--".to_owned());
    command.extend(upstream.iter().cloned());
    let steps: Vec<Value> = calls
        .iter()
        .map(|call| json!({ "call": call.tool, "arguments": call.args }))
        .collect();
    let transcript = drive(&json!({ "server": command, "steps": steps }));
    transcript["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| match step["content"][0]["text"].as_str() {
            Some(_) => {
                let (failed, text) = answer(step);
                (failed, text.to_owned())
            }
            // An image, say: what it is is enough to tell it from a refusal.
            None => (step["is_error"] == true, step["content"].to_string()),
        })
        .collect()
}

/// Runs the guarded settings and checks each call's fate: writes refused
/// with the guard's reason; reads answered, but `refused_untrusted`, which
/// an untrusted server's annotations cannot open.
fn guarded(name: &str, upstream: &[String], calls: &[Call], refused_untrusted: &[&str]) {
    for setting in [Setting::Trusted, Setting::Untrusted] {
        let answers = run(name, upstream, calls, setting);
        for (call, (failed, text)) in calls.iter().zip(&answers) {
            let refused_by_name =
                setting == Setting::Untrusted && refused_untrusted.contains(&call.tool);
            if call.writes || refused_by_name {
                assert!(
                    *failed && text.starts_with("read-only mode is on"),
                    "{name} {setting:?}: `{}` must be refused, got: {text}",
                    call.tool
                );
            } else {
                assert!(
                    !*failed,
                    "{name} {setting:?}: the read `{}` must work, got: {text}",
                    call.tool
                );
            }
            if call.writes && setting == Setting::Trusted {
                let source = format!("(MCP server `{name}` (annotations trusted))");
                assert!(text.contains(&source), "{text}");
            }
            if refused_by_name {
                assert!(
                    text.contains("says it only reads; set `trust_annotations = true`"),
                    "{text}"
                );
            }
        }
        let refused: Vec<&str> = calls
            .iter()
            .zip(&answers)
            .filter(|(call, (failed, _))| !call.writes && *failed)
            .map(|(call, _)| call.tool)
            .collect();
        let expected: &[&str] = if setting == Setting::Trusted {
            &[]
        } else {
            refused_untrusted
        };
        assert_eq!(refused, expected, "{name} {setting:?}: reads refused");
    }
}

fn git_calls(repo: &Repo) -> Vec<Call> {
    let repo_path = repo.path_str();
    let at = |more: Value| {
        let mut args = json!({ "repo_path": repo_path });
        args.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        args
    };
    vec![
        read("git_status", at(json!({}))),
        read("git_diff_unstaged", at(json!({}))),
        read("git_diff_staged", at(json!({}))),
        read("git_diff", at(json!({ "target": "HEAD" }))),
        read("git_log", at(json!({}))),
        read("git_show", at(json!({ "revision": "HEAD" }))),
        read("git_branch", at(json!({ "branch_type": "local" }))),
        write("git_add", at(json!({ "files": ["notes.txt"] }))),
        write("git_commit", at(json!({ "message": "loot" }))),
        write("git_create_branch", at(json!({ "branch_name": "loot" }))),
        write("git_checkout", at(json!({ "branch_name": "loot" }))),
        write("git_reset", at(json!({}))),
    ]
}

/// What git says of the repository: every commit of every branch, the
/// branches, where HEAD is, the index and the work tree.
fn git_state(repo: &Repo) -> Vec<String> {
    [
        vec!["log", "--all", "--format=%H %s"],
        vec!["branch", "--list"],
        vec!["rev-parse", "--abbrev-ref", "HEAD"],
        vec!["diff", "--cached", "--name-only"],
        vec!["status", "--porcelain"],
    ]
    .iter()
    .map(|args| repo.git(args))
    .collect()
}

#[test]
fn git_reads_work_and_writes_are_refused() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    let before = git_state(&repo);
    guarded("git", &repo.server(), &git_calls(&repo), &["git_branch"]);
    assert_eq!(
        git_state(&repo),
        before,
        "the guarded calls changed the repository"
    );

    let control = Repo::with_one_commit();
    control.write("notes.txt", "draft\n");
    let before = git_state(&control);
    let answers = run(
        "git",
        &control.server(),
        &git_calls(&control),
        Setting::Unguarded,
    );
    assert!(answers.iter().all(|(failed, _)| !failed), "{answers:?}");
    assert_ne!(git_state(&control), before, "unguarded, the writes write");
    assert_eq!(control.git(&["log", "--format=%s", "-1"]), "loot\n");
}

#[test]
fn time_reads_work() {
    let calls = [
        read("get_current_time", json!({ "timezone": "UTC" })),
        read(
            "convert_time",
            json!({ "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo" }),
        ),
    ];
    guarded(
        "time",
        &server_command("mcp-server-time"),
        &calls,
        &["convert_time"],
    );
}

fn filesystem_calls(folder: &Folder) -> Vec<Call> {
    let path = |file: &str| folder.path().join(file).display().to_string();
    vec![
        read("read_file", json!({ "path": path("docs/plan.md") })),
        read("read_text_file", json!({ "path": path("docs/plan.md") })),
        read("read_media_file", json!({ "path": path("pixel.png") })),
        read(
            "read_multiple_files",
            json!({ "paths": [path("docs/plan.md"), path("pixel.png")] }),
        ),
        read("list_directory", json!({ "path": path("docs") })),
        read(
            "list_directory_with_sizes",
            json!({ "path": folder.path_str() }),
        ),
        read("directory_tree", json!({ "path": folder.path_str() })),
        read(
            "search_files",
            json!({ "path": folder.path_str(), "pattern": "plan" }),
        ),
        read("get_file_info", json!({ "path": path("docs/plan.md") })),
        read("list_allowed_directories", json!({})),
        write(
            "write_file",
            json!({ "path": path("docs/loot.md"), "content": "x" }),
        ),
        write(
            "edit_file",
            json!({ "path": path("docs/plan.md"),
                    "edits": [{ "oldText": "ship it", "newText": "burn it" }] }),
        ),
        write("create_directory", json!({ "path": path("loot") })),
        write(
            "move_file",
            json!({ "source": path("pixel.png"), "destination": path("moved.png") }),
        ),
    ]
}

fn folder() -> Folder {
    let folder = Folder::new();
    folder.write("docs/plan.md", "# Plan\nship it\n");
    std::fs::write(
        folder.path().join("pixel.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    folder
}

#[test]
fn filesystem_reads_work_and_writes_are_refused() {
    let guarded_folder = folder();
    let before = guarded_folder.listing();
    guarded(
        "filesystem",
        &guarded_folder.server(),
        &filesystem_calls(&guarded_folder),
        &[],
    );
    assert_eq!(
        guarded_folder.listing(),
        before,
        "the guarded calls changed the folder"
    );

    let control = folder();
    let before = control.listing();
    let answers = run(
        "filesystem",
        &control.server(),
        &filesystem_calls(&control),
        Setting::Unguarded,
    );
    assert!(answers.iter().all(|(failed, _)| !failed), "{answers:?}");
    let after = control.listing();
    assert_ne!(after, before, "unguarded, the writes write");
    assert!(
        after.contains(&"docs/plan.md: # Plan\nburn it\n".to_owned()),
        "{after:?}"
    );
}

fn memory_calls() -> Vec<Call> {
    vec![
        read("read_graph", json!({})),
        read(
            "search_nodes",
            json!({ "query": "who wrote the first program" }),
        ),
        read("open_nodes", json!({ "names": ["Ada"] })),
        write(
            "create_entities",
            json!({ "entities": [{ "name": "Loot", "entityType": "thing", "observations": [] }] }),
        ),
        write(
            "create_relations",
            json!({ "relations": [{ "from": "Engine", "to": "Ada", "relationType": "owns" }] }),
        ),
        write(
            "add_observations",
            json!({ "observations": [{ "entityName": "Ada", "contents": ["was wrong"] }] }),
        ),
        write(
            "delete_observations",
            json!({ "deletions": [{ "entityName": "Ada", "observations": ["wrote the first program"] }] }),
        ),
        write(
            "delete_relations",
            json!({ "relations": [{ "from": "Ada", "to": "Engine", "relationType": "programmed" }] }),
        ),
        write("delete_entities", json!({ "entityNames": ["Engine"] })),
    ]
}

fn memory() -> Memory {
    let memory = Memory::new();
    memory.seed(&[
        json!({ "type": "entity", "name": "Ada", "entityType": "person",
                "observations": ["wrote the first program"] }),
        json!({ "type": "entity", "name": "Engine", "entityType": "machine", "observations": [] }),
        json!({ "type": "relation", "from": "Ada", "to": "Engine", "relationType": "programmed" }),
    ]);
    memory
}

#[test]
fn memory_reads_work_and_writes_are_refused() {
    let guarded_memory = memory();
    let before = guarded_memory.records();
    guarded(
        "memory",
        &guarded_memory.server(),
        &memory_calls(),
        &["open_nodes"],
    );
    assert_eq!(
        guarded_memory.records(),
        before,
        "the guarded calls changed the graph"
    );

    let control = memory();
    let before = control.records();
    let answers = run(
        "memory",
        &control.server(),
        &memory_calls(),
        Setting::Unguarded,
    );
    assert!(answers.iter().all(|(failed, _)| !failed), "{answers:?}");
    assert_ne!(control.records(), before, "unguarded, the writes write");
}
