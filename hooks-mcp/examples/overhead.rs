//! What the gateway adds to a tool call: the same client (rmcp's) calls the
//! same server's tool 1,000 times directly and 1,000 times through
//! `hooks-mcp` (with the standard hooks linked, audit log included),
//! and through `relay` (a process copying bytes, the floor of any gateway in
//! a process of its own), alternating call by call so the machine's drift
//! hits all alike, and prints p50 and p99 of each.
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
            "[audit_log]\npath = \"{}\"\n\n# 1,000 calls a minute would trip the default limit.\n[rate_limit]\nrules = []\n",
            scratch.join("audit.jsonl").display()
        ),
    )?;

    let mut through = vec![
        gateway.display().to_string(),
        "--config".to_owned(),
        config.display().to_string(),
        "--".to_owned(),
    ];
    through.extend(server.iter().cloned());
    let mut relayed = vec![relay.display().to_string()];
    relayed.extend(server.iter().cloned());
    let direct_client = connect(&server).await?;
    let relay_client = connect(&relayed).await?;
    let gated_client = connect(&through).await?;
    let mut direct = Vec::with_capacity(CALLS);
    let mut floor = Vec::with_capacity(CALLS);
    let mut gated = Vec::with_capacity(CALLS);
    for index in 0..WARM_UP + CALLS {
        let one = time_call(&direct_client).await?;
        let two = time_call(&relay_client).await?;
        let three = time_call(&gated_client).await?;
        if index >= WARM_UP {
            direct.push(one);
            floor.push(two);
            gated.push(three);
        }
    }
    direct_client.cancel().await?;
    relay_client.cancel().await?;
    gated_client.cancel().await?;
    let (direct, floor, gated) = (percentiles(direct), percentiles(floor), percentiles(gated));

    println!("{CALLS} calls of get_current_time each, after {WARM_UP} to warm up");
    println!("| path | p50 | p99 |\n|---|---|---|");
    println!("| direct | {} | {} |", show(direct.0), show(direct.1));
    println!(
        "| through a byte relay (the floor) | {} | {} |",
        show(floor.0),
        show(floor.1)
    );
    println!(
        "| through hooks-mcp | {} | {} |",
        show(gated.0),
        show(gated.1)
    );
    println!(
        "added: p50 {} ({:+.1} %), p99 {}",
        show(gated.0.saturating_sub(direct.0)),
        (gated.0.as_secs_f64() / direct.0.as_secs_f64() - 1.0) * 100.0,
        show(gated.1.saturating_sub(direct.1)),
    );
    println!(
        "the floor adds: p50 {}, p99 {}; the gateway's own work: p50 {}",
        show(floor.0.saturating_sub(direct.0)),
        show(floor.1.saturating_sub(direct.1)),
        show(gated.0.saturating_sub(floor.0)),
    );
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
