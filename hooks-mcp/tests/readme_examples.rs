//! The README's examples, run: the Python client (`examples/python_client.py`,
//! which the README shows whole) calls a real server through the binary.

mod support;

use std::path::Path;
use std::process::Command;

use support::{Scratch, audit_records, python, server_command};

#[test]
fn the_python_client_of_the_readme_calls_a_tool_through_the_gateway() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/python_client.py");
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let code = std::fs::read_to_string(&example).unwrap();
    // Past its docstring.
    let body = code.split_once("\"\"\"\n\n").map(|(_, body)| body).unwrap();
    assert!(
        readme.contains(body.trim()),
        "README.md shows examples/python_client.py as it is"
    );

    let scratch = Scratch::new("readme-python");
    let audit = scratch.path().join("audit.jsonl");
    scratch.write(
        "hooks.toml",
        &format!("[audit_log]\npath = \"{}\"\n", audit.display()),
    );
    // `hooks-mcp` on PATH, as the README's install leaves it.
    let bin = Path::new(env!("CARGO_BIN_EXE_hooks-mcp")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let output = Command::new(python())
        .arg(&example)
        .arg(scratch.path().join("hooks.toml"))
        .arg("--")
        .args(server_command("mcp-server-time"))
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("tools: get_current_time, convert_time"),
        "{stdout}"
    );
    assert!(stdout.contains("answer: {"), "{stdout}");
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["tool"], "get_current_time");
}

#[test]
fn the_configuration_of_the_readme_loads() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```toml\n")
        .skip(1)
        .map(|rest| rest.split_once("```").unwrap().0)
        .collect();
    assert!(blocks.len() >= 2, "README.md shows its configuration");
    let scratch = Scratch::new("readme-config");
    for (index, block) in blocks.iter().enumerate() {
        let file = format!("hooks-{index}.toml");
        scratch.write(&file, block);
        let config = hooks_config::load(scratch.path().join(&file))
            .unwrap_or_else(|error| panic!("README.md's block {index}:\n{block}\n{error}"));
        drop(config);
    }
}
