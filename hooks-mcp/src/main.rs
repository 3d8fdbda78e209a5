//! `hooks-mcp`: serves MCP on stdin/stdout to one client (or over
//! Streamable HTTP to many, with `--http`), in front of an upstream MCP
//! server started as a child process (or reached over Streamable HTTP),
//! running every tool call through the standard hooks and a configuration
//! file's.
//!
//! ```text
//! hooks-mcp [--config hooks.toml] [--http ADDR (--tokens FILE | --no-auth)] [--name NAME]
//!           [--timeout SECONDS] [--trust-annotations] [--upstream-url URL | -- <server command> [args...]]
//! ```
//!
//! The upstream servers are the command after `--` (or the server at
//! `--upstream-url`), and the file's `[[upstream]]` entries; with more than
//! one, each server's tools are namespaced (`git__git_status`). The file's
//! `mcp_tool` hooks may name any of them, by its name, as their server.
//!
//! In Claude Code's `.mcp.json`:
//!
//! ```json
//! {"mcpServers": {"git": {"command": "hooks-mcp",
//!   "args": ["--config", "hooks.toml", "--", "uvx", "mcp-server-git"]}}}
//! ```

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use hooks_core::Hooks;
use hooks_mcp::{ClientApprovals, Gateway, PinMode, Pins, Upstream};

hooks_core::link!(hooks_std);

const USAGE: &str = "usage: hooks-mcp [--config FILE] [--http ADDR (--tokens FILE | --no-auth)] [--name NAME] [--timeout SECONDS] [--trust-annotations] [--state-dir DIR] [--pins trust|strict] [--hide-flagged] [--upstream-url URL | -- <server command> [args...]]
       hooks-mcp pins list|accept [TOOL...]|diff TOOL [--state-dir DIR]";

const HELP: &str = "\
Serves MCP on stdin/stdout, in front of the MCP server the command starts
(and the `[[upstream]]` servers of the configuration file; with several, tools
are named `upstream__tool`).
Every tools/call runs through the standard hooks and the configuration
file's: a refused call comes back as a tool error with the reason; results
pass the post-tool-use hooks; tools/list is filtered by the tool filters.

options:
  --config FILE       hooks and standard-hook tables (TOML, or a Claude Code settings.json)
  --http ADDR         serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio,
                      each MCP session a session of its own (ADDR: 127.0.0.1:8080, or a
                      port alone for 127.0.0.1; port 0 picks a free one); the address is
                      printed to stderr: `hooks-mcp: listening on http://127.0.0.1:8080/mcp`
  --tokens FILE       with --http: every request must carry `Authorization: Bearer TOKEN`
                      with a token of FILE (one `NAME TOKEN` a line, `#` comments; tokens
                      from `openssl rand -hex 32`; the file must be `chmod 600`); NAME is
                      the session's user, for rate limits, approvals and the audit log.
                      Missing or wrong: 401, pointing to the metadata at
                      /.well-known/oauth-protected-resource
  --authorization-server URL
                      with --tokens: an OAuth authorization server that issues the tokens,
                      named in the protected-resource metadata (repeatable); tokens are
                      still checked against FILE only
  --resource-url URL  with --tokens: the URL clients reach the endpoint at (behind a TLS
                      proxy: https://mcp.example/mcp), for the metadata (default: from
                      the request's Host)
  --no-auth           with --http on a loopback address only: no authentication, for
                      development (anyone on this machine can call every tool)
  --upstream-url URL  the upstream is the MCP server at URL (Streamable HTTP), instead of
                      a command after `--`
  --name NAME         the upstream's name, for logs and errors (default: the program's
                      name, or the URL's host)
  --timeout SECONDS   how long a call may take upstream (default 60)
  --trust-annotations believe what the upstream's tools/list annotations say
                      (readOnlyHint: a read-only guard lets such a tool run);
                      untrusted, they can only make guards refuse
                      (`trust_annotations = true` in an `[[upstream]]` table)
  --state-dir DIR     where the gateway keeps what outlives it (default $HOOKS_STATE_DIR; none:
                      nothing is written): the tools' pinned definitions (mcp-pins.json),
                      and the stores of config tables that name no file
  --pins MODE         `trust` (default): a tool never seen is pinned on first sight;
                      `strict`: it is held back until accepted (needs --state-dir).
                      Either way, a tool whose definition differs from the pinned one is
                      hidden and refused until `hooks-mcp pins accept` (without a state
                      directory, pins last as long as the gateway)
  --hide-flagged      hide tools whose definitions carry invisible characters or text
                      that reads as instructions to the model (otherwise only warned of:
                      in the log, describe() and each call's audit record)
  -h, --help          print this help

hooks-mcp pins list|accept [TOOL...]|diff TOOL: the pinned definitions (`hooks-mcp pins --help`).

Logs go to stderr (HOOKS_MCP_LOG=debug for more); stdout carries only MCP
(nothing, with --http).";

/// A parsed command line.
struct Invocation {
    config: Option<String>,
    /// Serve over Streamable HTTP on this address, rather than stdio.
    http: Option<SocketAddr>,
    /// The bearer tokens HTTP clients must present.
    tokens: Option<String>,
    authorization_servers: Vec<String>,
    resource_url: Option<String>,
    /// HTTP on loopback without authentication, asked for explicitly.
    no_auth: bool,
    name: Option<String>,
    timeout: Duration,
    trust_annotations: bool,
    command: Vec<String>,
    /// The upstream's Streamable HTTP endpoint, rather than a command.
    url: Option<String>,
    /// Where pins (and config stores that name no file) are kept.
    state_dir: Option<std::path::PathBuf>,
    pins: PinMode,
    hide_flagged: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Invocation>, String> {
    let mut invocation = Invocation {
        config: None,
        http: None,
        tokens: None,
        authorization_servers: Vec::new(),
        resource_url: None,
        no_auth: false,
        name: None,
        timeout: hooks_mcp::DEFAULT_CALL_TIMEOUT,
        trust_annotations: false,
        command: Vec::new(),
        url: None,
        state_dir: std::env::var_os("HOOKS_STATE_DIR").map(Into::into),
        pins: PinMode::TrustOnFirstUse,
        hide_flagged: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or_else(|| format!("`{arg}` needs {what}"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--config" => invocation.config = Some(value("a file")?),
            "--http" => invocation.http = Some(http_address(&value("an address")?)?),
            "--tokens" => invocation.tokens = Some(value("a file")?),
            "--authorization-server" => invocation.authorization_servers.push(value("a URL")?),
            "--resource-url" => invocation.resource_url = Some(value("a URL")?),
            "--no-auth" => invocation.no_auth = true,
            "--upstream-url" => invocation.url = Some(value("a URL")?),
            "--name" => invocation.name = Some(value("a name")?),
            "--trust-annotations" => invocation.trust_annotations = true,
            "--state-dir" => invocation.state_dir = Some(value("a directory")?.into()),
            "--hide-flagged" => invocation.hide_flagged = true,
            "--pins" => {
                invocation.pins = match value("`trust` or `strict`")?.as_str() {
                    "trust" => PinMode::TrustOnFirstUse,
                    "strict" => PinMode::Strict,
                    other => return Err(format!("`--pins {other}`: expected `trust` or `strict`")),
                }
            }
            "--timeout" => {
                let seconds = value("a number of seconds")?;
                let seconds: u64 = seconds
                    .parse()
                    .ok()
                    .filter(|seconds| *seconds > 0)
                    .ok_or_else(|| {
                        format!("`--timeout {seconds}`: expected a whole number of seconds above 0")
                    })?;
                invocation.timeout = Duration::from_secs(seconds);
            }
            "--" => {
                invocation.command = args.by_ref().collect();
                break;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}` (the server command goes after `--`)"
                ));
            }
        }
    }
    if !invocation.command.is_empty() && invocation.url.is_some() {
        return Err(
            "two upstream servers on the command line: give a command after `--` or `--upstream-url`, not both (more go in `[[upstream]]`)"
                .to_owned(),
        );
    }
    check_auth(&invocation)?;
    if invocation.command.is_empty() && invocation.url.is_none() && invocation.config.is_none() {
        return Err("no upstream server: give its command after `--`, `--upstream-url`, or `[[upstream]]` in a `--config` file".to_owned());
    }
    Ok(Some(invocation))
}

/// Over HTTP, authentication is asked for or refused explicitly: `--tokens`,
/// or `--no-auth` on loopback; the other auth flags only with `--tokens`.
fn check_auth(invocation: &Invocation) -> Result<(), String> {
    let Some(address) = invocation.http else {
        if invocation.tokens.is_some()
            || invocation.no_auth
            || !invocation.authorization_servers.is_empty()
            || invocation.resource_url.is_some()
        {
            return Err("`--tokens`, `--no-auth`, `--authorization-server` and `--resource-url` are for `--http`".to_owned());
        }
        return Ok(());
    };
    if invocation.tokens.is_none()
        && (!invocation.authorization_servers.is_empty() || invocation.resource_url.is_some())
    {
        return Err(
            "`--authorization-server` and `--resource-url` describe `--tokens`: give it too"
                .to_owned(),
        );
    }
    match (&invocation.tokens, invocation.no_auth) {
        (Some(_), true) => Err("`--tokens` and `--no-auth` contradict each other".to_owned()),
        (None, false) => Err(format!(
            "`--http {address}` needs authentication: `--tokens FILE` (one `NAME TOKEN` a line), \
             or `--no-auth` on a loopback address for development"
        )),
        (None, true) if !address.ip().is_loopback() => Err(format!(
            "`--no-auth` serves only a loopback address (127.0.0.1, ::1), not {address}: \
             anyone who can reach it could call every tool; use `--tokens FILE`"
        )),
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("pins") {
        return match hooks_mcp::pins::command(std::env::args().skip(2)) {
            Ok(output) => {
                print!("{output}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("hooks-mcp pins: {message}");
                ExitCode::from(2)
            }
        };
    }
    let invocation = match parse(std::env::args().skip(1)) {
        Ok(Some(invocation)) => invocation,
        Ok(None) => {
            println!("{USAGE}\n\n{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("hooks-mcp: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    logs_to_stderr();
    // Over stdio there is one client, and each call hops between the
    // client's loop, the hooks and the upstream's loop: on one thread those
    // hops are task switches, where a pool pays a wake-up and a CPU hand-off
    // for each (BENCHMARKS.md, gateway). Over HTTP, sessions run side by side.
    let mut builder = if invocation.http.is_some() {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hooks-mcp: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(invocation)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hooks-mcp: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run(invocation: Invocation) -> Result<(), String> {
    // Before any upstream starts: a bad token file is a start-up error.
    let auth = match &invocation.tokens {
        Some(path) => {
            let mut auth = hooks_mcp::HttpAuth::bearer(hooks_mcp::Tokens::load(path)?);
            for server in &invocation.authorization_servers {
                auth = auth.authorization_server(server.clone());
            }
            if let Some(url) = &invocation.resource_url {
                auth = auth.resource(url.clone());
            }
            Some(auth)
        }
        None => None,
    };
    let config = match &invocation.config {
        Some(path) => Some(hooks_config::load(path).map_err(|error| error.to_string())?),
        None => None,
    };
    // Read before any upstream starts: a bad pins file stops the gateway first.
    let pins = match &invocation.state_dir {
        Some(dir) => Pins::in_dir(dir)?,
        None => Pins::in_memory(),
    }
    .mode(invocation.pins)?
    .hide_flagged(invocation.hide_flagged);
    let config = match (config, &invocation.state_dir) {
        (Some(config), Some(dir)) => Some(config.state_dir(dir)),
        (config, _) => config,
    };
    let upstreams = start_upstreams(&invocation, config.as_ref()).await?;
    let mut builder = hooks_mcp::prepare(Hooks::builder(), &upstreams)?;
    if let Some(config) = config {
        // Its `mcp_tool` hooks call tools on the upstreams, by their names.
        let config = hooks_mcp::UpstreamCaller::new(&upstreams).provide(config);
        builder = config.apply(builder).map_err(|error| error.to_string())?;
    }
    // After the file's `[approval]`: its store answers clients that cannot elicit.
    let approvals = ClientApprovals::new();
    let hooks = approvals
        .install(builder)
        .build()
        .map_err(|error| error.to_string())?;
    // The `[cedar]` policies against the upstreams' tools, before any client connects.
    hooks_config::validate(&hooks).map_err(|error| error.to_string())?;
    let gateway = Gateway::with_pins(hooks, upstreams, pins)?.with_client_approvals(approvals);
    let Some(address) = invocation.http else {
        return hooks_mcp::serve_stdio(gateway)
            .await
            .map_err(|error| format!("the client connection failed: {error}"));
    };
    let mut server = hooks_mcp::HttpServer::bind(gateway, address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    match auth {
        Some(auth) => server = server.authenticate(auth),
        None => eprintln!(
            "hooks-mcp: --no-auth: anyone who can reach {address} (every user of this machine) can call every tool"
        ),
    }
    // One whole line, for whoever started the gateway on port 0 to read the port off.
    eprintln!("hooks-mcp: listening on {}", server.url());
    server
        .serve()
        .await
        .map_err(|error| format!("the HTTP server failed: {error}"))
}

/// The command line's upstream, then the file's `[[upstream]]` ones, started
/// or reached; at least one.
async fn start_upstreams(
    invocation: &Invocation,
    config: Option<&hooks_config::Config>,
) -> Result<Vec<Upstream>, String> {
    let mut upstreams = Vec::new();
    if !invocation.command.is_empty() {
        let name = invocation
            .name
            .clone()
            .unwrap_or_else(|| program_name(&invocation.command[0]));
        upstreams.push(
            Upstream::spawn(name, &invocation.command)
                .await
                .map_err(|error| error.to_string())?
                .with_call_timeout(invocation.timeout)
                .with_trusted_annotations(invocation.trust_annotations),
        );
    }
    if let Some(url) = &invocation.url {
        let name = invocation.name.clone().unwrap_or_else(|| host_of(url));
        upstreams.push(
            Upstream::connect_http(name, url)
                .await
                .map_err(|error| error.to_string())?
                .with_call_timeout(invocation.timeout)
                .with_trusted_annotations(invocation.trust_annotations),
        );
    }
    for declared in config.into_iter().flat_map(hooks_config::Config::upstreams) {
        let upstream = match &declared.url {
            Some(url) => Upstream::connect_http(declared.name.clone(), url).await,
            None => Upstream::spawn(declared.name.clone(), &declared.command).await,
        }
        .map_err(|error| format!("{}:{}: {error}", declared.file, declared.line))?;
        upstreams.push(
            upstream
                .with_call_timeout(declared.timeout)
                .with_trusted_annotations(declared.trust_annotations),
        );
    }
    if upstreams.is_empty() {
        return Err(
            "no upstream server: the file declares no `[[upstream]]`, and no command follows `--`"
                .to_owned(),
        );
    }
    Ok(upstreams)
}

/// `--http 127.0.0.1:8080`, `--http [::1]:8080`, or `--http 8080` (on 127.0.0.1).
fn http_address(text: &str) -> Result<SocketAddr, String> {
    text.parse()
        .or_else(|_| text.parse().map(|port| (Ipv4Addr::LOCALHOST, port).into()))
        .map_err(|_| {
            format!("`--http {text}`: expected an address and port (127.0.0.1:8080), or a port")
        })
}

/// `http://user@mcp.example:8080/mcp` → `mcp.example`.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    if host.is_empty() {
        url.to_owned()
    } else {
        host.to_owned()
    }
}

/// `/usr/bin/mcp-server-git` → `mcp-server-git`.
fn program_name(program: &str) -> String {
    std::path::Path::new(program).file_name().map_or_else(
        || program.to_owned(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// Logs go to stderr: stdout is the protocol's.
fn logs_to_stderr() {
    let level = match std::env::var("HOOKS_MCP_LOG").as_deref() {
        Ok("trace") => tracing::Level::TRACE,
        Ok("debug") => tracing::Level::DEBUG,
        Ok("info") => tracing::Level::INFO,
        Ok("error") => tracing::Level::ERROR,
        _ => tracing::Level::WARN,
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .init();
}
