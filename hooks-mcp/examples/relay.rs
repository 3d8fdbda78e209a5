//! The floor under any gateway that runs in a process of its own: copies
//! bytes between its stdin/stdout and a child server's, and does nothing
//! else — no parsing, no hooks. `overhead` measures a call through it beside
//! one through `hooks-mcp`, so what the gateway adds can be split into the
//! process hop, which no gateway in its own process avoids, and its own work.
//!
//! ```text
//! relay <server command> [args...]
//! ```

use std::process::Stdio;

use tokio::process::Command;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let command: Vec<String> = std::env::args().skip(1).collect();
    let Some((program, args)) = command.split_first() else {
        return Err(std::io::Error::other("give the server command"));
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let (mut to_child, mut from_child) = (
        child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?,
        child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?,
    );
    // The same non-blocking pipes the gateway reads and writes.
    let (mut input, mut output) = rmcp::transport::stdio_pipes();
    tokio::select! {
        _ = tokio::io::copy(&mut input, &mut to_child) => {}
        _ = tokio::io::copy(&mut from_child, &mut output) => {}
    }
    Ok(())
}
