//! What the gateway adds to a tool call: the same client (rmcp's) calls the
//! same server's tool 1,000 times on each path — directly, through `relay`
//! (a process copying bytes, the floor of any gateway in a process of its
//! own), through `hooks-mcp` with no configuration (the standard hooks
//! linked, none asked for) and with an audit log — one path after the other
//! call by call so the machine's drift hits all alike, and prints p50 and
//! p99 of each.
//!
//! ```text
//! cargo build --release -p hooks-mcp --bin hooks-mcp --examples
//! cargo run --release -p hooks-mcp --example overhead -- <server command> [args...]
//! ```
//!
//! e.g. with the venv the tests build: `-- target/tmp/mcp-venv/bin/mcp-server-time`.

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;
use tokio::process::Command;

const CALLS: usize = 1_000;
const WARM_UP: usize = 50;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server: Vec<String> = std::env::args().skip(1).collect();
    if server.is_empty() {
        return Err("give the server command after `--`".into());
    }
    let examples = std::env::current_exe()?
        .parent()
        .map(std::path::Path::to_path_buf)
        .ok_or("no target directory")?;
    let gateway = examples
        .parent()
        .map(|dir| dir.join("hooks-mcp"))
        .ok_or("no target directory")?;
    // Built beside this example: `cargo build --release --examples`.
    let relay = examples.join("relay");
    let scratch = std::env::temp_dir().join(format!("hooks-mcp-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let config = scratch.join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            "[audit_log]\npath = \"{}\"\n",
            scratch.join("audit.jsonl").display()
        ),
    )?;

    let mut audited = vec![
        gateway.display().to_string(),
        "--config".to_owned(),
        config.display().to_string(),
        "--".to_owned(),
    ];
    audited.extend(server.iter().cloned());
    // No configuration: the standard hooks are linked but none is asked for.
    let mut bare = vec![gateway.display().to_string(), "--".to_owned()];
    bare.extend(server.iter().cloned());
    let mut relayed = vec![relay.display().to_string()];
    relayed.extend(server.iter().cloned());
    let paths = [
        ("direct", server.clone()),
        ("through a byte relay (the floor)", relayed),
        ("through hooks-mcp, no configuration", bare),
        ("through hooks-mcp, audit log", audited),
    ];
    let mut clients = Vec::new();
    for (_, command) in &paths {
        clients.push(connect(command).await?);
    }
    let mut times = vec![Vec::with_capacity(CALLS); paths.len()];
    for index in 0..WARM_UP + CALLS {
        for (client, times) in clients.iter().zip(&mut times) {
            let took = time_call(client).await?;
            if index >= WARM_UP {
                times.push(took);
            }
        }
    }
    for client in clients {
        client.cancel().await?;
    }
    let results: Vec<(Duration, Duration)> = times.into_iter().map(percentiles).collect();
    let direct = results[0];

    println!("{CALLS} calls of get_current_time on each path, in turn, after {WARM_UP} to warm up");
    println!("| path | p50 | p99 | added p50 | added p99 |\n|---|---|---|---|---|");
    for ((name, _), (p50, p99)) in paths.iter().zip(&results) {
        println!(
            "| {name} | {} | {} | {} | {} |",
            show(*p50),
            show(*p99),
            show(p50.saturating_sub(direct.0)),
            show(p99.saturating_sub(direct.1)),
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

async fn connect(command: &[String]) -> Result<Client, Box<dyn std::error::Error + Send + Sync>> {
    let (program, args) = command.split_first().ok_or("empty command")?;
    let transport = TokioChildProcess::new(Command::new(program).configure(|cmd| {
        cmd.args(args);
    }))?;
    Ok(().serve(transport).await?)
}

/// One call of `get_current_time`, timed.
async fn time_call(client: &Client) -> Result<Duration, Box<dyn std::error::Error + Send + Sync>> {
    let mut params = CallToolRequestParams::new("get_current_time");
    params.arguments = json!({"timezone": "UTC"}).as_object().cloned();
    let started = Instant::now();
    let result = client.call_tool(params).await?;
    let elapsed = started.elapsed();
    if result.is_error == Some(true) {
        return Err(format!("the call failed: {result:?}").into());
    }
    Ok(elapsed)
}

/// p50 and p99.
fn percentiles(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

fn show(duration: Duration) -> String {
    format!("{:.0} µs", duration.as_secs_f64() * 1e6)
}
