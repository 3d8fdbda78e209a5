//! The connection to one upstream, kept up: an upstream started as a child
//! process that exits (a crash, a kill, a closed stdout) is started again,
//! after a delay that doubles with each failed start (from
//! [`Backoff::FIRST`] to [`Backoff::MAX`], back to the first once it has
//! stayed up [`Backoff::STABLE`]). While it is down, calls to it fail at once
//! with a tool error saying so, instead of waiting for their timeout.
//!
//! A call in flight when the upstream exits fails (it is not sent again: it
//! may have done its work). The tools offered are those of the first start,
//! checked against their pins again: a tool whose definition changed across
//! the restart is hidden until accepted, and a new tool is not offered until
//! the gateway restarts.

use std::process::ExitStatus;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RunningService};
use rmcp::{RoleClient, ServiceExt};
use tokio::io::BufReader;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::line_limit::{self, MAX_MESSAGE_BYTES};
use super::lines::Lines;
use super::ordered::Ordered;
use crate::forward::{Forwarder, InFlight};
use crate::pins::watch::ToolWatch;

/// How an upstream is reached, again when needed.
#[derive(Clone, Debug)]
pub(crate) enum Recipe {
    /// A program and its arguments, spoken to over its stdin and stdout.
    Command(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// A live connection: the MCP client on it, and the child process under it.
pub(crate) struct Connected {
    pub(crate) service: RunningService<RoleClient, Forwarder>,
    child: Option<Child>,
}

/// Starts (or reaches) the upstream and completes the MCP handshake.
pub(crate) async fn connect(
    name: &str,
    recipe: &Recipe,
    in_flight: &Arc<InFlight>,
    tool_watch: &Arc<ToolWatch>,
) -> Result<Connected, String> {
    let forwarder = Forwarder(Arc::clone(in_flight), Arc::clone(tool_watch));
    match recipe {
        Recipe::Command(command) => {
            let (program, args) = command
                .split_first()
                .ok_or_else(|| "no command given".to_owned())?;
            let mut child = Command::new(program)
                .args(args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                // Its stderr is the gateway's: the gateway's own stdout
                // carries only protocol messages.
                .stderr(std::process::Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|error| format!("cannot start `{program}`: {error}"))?;
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                return Err(format!("`{program}` was started without pipes"));
            };
            // The upstream's lines reach rmcp through the relay, which
            // bounds them.
            let (to_rmcp, from_relay) = tokio::sync::mpsc::channel(16);
            let relay_name = name.to_owned();
            tokio::spawn(async move {
                let stdout = BufReader::with_capacity(64 * 1024, stdout);
                line_limit::relay(&relay_name, stdout, to_rmcp, MAX_MESSAGE_BYTES).await;
            });
            let transport = Ordered::new(Lines::new(from_relay, stdin), Arc::clone(in_flight));
            let service = forwarder.serve(transport).await.map_err(|error| {
                format!("`{program}` did not complete the MCP handshake: {error}")
            })?;
            Ok(Connected {
                service,
                child: Some(child),
            })
        }
        Recipe::Url(url) => {
            let transport = Ordered::new(
                rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned()),
                Arc::clone(in_flight),
            );
            // The stateless revision 2026-07-28 first (`server/discover`,
            // each request carrying its own `_meta`); a server that answers
            // as an older one is spoken to in the handshake of the revisions before.
            let lifecycle = ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: None,
            };
            let service = forwarder
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|error| super::handshake_error(url, &error))?;
            Ok(Connected {
                service,
                child: None,
            })
        }
    }
}

/// Where calls find the upstream's current connection.
pub(crate) struct Link {
    name: String,
    state: RwLock<State>,
}

enum State {
    Up(Peer<RoleClient>),
    /// Why it is down, and what is being done about it.
    Down(String),
}

impl Link {
    pub(crate) fn new(name: &str, peer: Peer<RoleClient>) -> Self {
        Link {
            name: name.to_owned(),
            state: RwLock::new(State::Up(peer)),
        }
    }

    /// The connection to call on, or why there is none now.
    pub(crate) fn peer(&self) -> Result<Peer<RoleClient>, String> {
        match &*self.state.read().unwrap_or_else(PoisonError::into_inner) {
            State::Up(peer) => Ok(peer.clone()),
            State::Down(why) => Err(format!(
                "the upstream MCP server `{}` is down: {why}",
                self.name
            )),
        }
    }

    /// The upstream's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    fn set(&self, state: State) {
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = state;
    }
}

/// The delays between attempts to start an upstream again.
#[derive(Debug)]
pub(crate) struct Backoff {
    next: Duration,
    attempt: u32,
}

impl Backoff {
    /// The delay before the first attempt.
    pub(crate) const FIRST: Duration = Duration::from_millis(250);
    /// The longest delay between two attempts.
    pub(crate) const MAX: Duration = Duration::from_secs(30);
    /// How long a connection must have lived for its end to start the
    /// delays over from [`FIRST`](Self::FIRST) (a crash now and then is not
    /// a crash loop).
    pub(crate) const STABLE: Duration = Duration::from_secs(60);

    pub(crate) fn new() -> Self {
        Backoff {
            next: Self::FIRST,
            attempt: 0,
        }
    }

    /// The next attempt's number and the delay before it.
    pub(crate) fn next(&mut self) -> (u32, Duration) {
        let delay = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        self.attempt += 1;
        (self.attempt, delay)
    }

    fn reset(&mut self) {
        *self = Self::new();
    }
}

/// Keeps `link` pointing at a live connection to the upstream `recipe`
/// reaches, starting from `connected`, until the handle is dropped (which
/// ends the upstream's process).
pub(crate) fn supervise(
    link: Arc<Link>,
    recipe: Recipe,
    in_flight: Arc<InFlight>,
    tool_watch: Arc<ToolWatch>,
    connected: Connected,
) -> Supervisor {
    Supervisor(tokio::spawn(keep_up(
        link, recipe, in_flight, tool_watch, connected,
    )))
}

/// The task keeping an upstream up; stopped (and the upstream with it) when dropped.
pub(crate) struct Supervisor(JoinHandle<()>);

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn keep_up(
    link: Arc<Link>,
    recipe: Recipe,
    in_flight: Arc<InFlight>,
    tool_watch: Arc<ToolWatch>,
    mut connected: Connected,
) {
    let name = link.name.clone();
    let mut backoff = Backoff::new();
    loop {
        let since = Instant::now();
        let mut why = ended(connected).await;
        if matches!(recipe, Recipe::Url(_)) {
            // rmcp's HTTP client opens a new MCP session by itself when the
            // server forgets one; its service ending is the gateway's end.
            link.set(State::Down(why));
            return;
        }
        if since.elapsed() >= Backoff::STABLE {
            backoff.reset();
        }
        connected = loop {
            let (attempt, delay) = backoff.next();
            tracing::error!(upstream = %name, "{why}: starting it again in {delay:?} (attempt {attempt})");
            link.set(State::Down(format!(
                "{why}; starting it again (attempt {attempt}, in {:.1} s)",
                delay.as_secs_f64()
            )));
            tokio::time::sleep(delay).await;
            match connect(&name, &recipe, &in_flight, &tool_watch).await {
                Ok(connected) => break connected,
                Err(error) => why = format!("it could not be started again: {error}"),
            }
        };
        // Its tools are checked against their pins again, as when it says
        // its list changed: a server that comes back with other definitions
        // has them hidden until accepted.
        tool_watch.changed(connected.service.peer()).await;
        tracing::info!(upstream = %name, "started again");
        link.set(State::Up(connected.service.peer().clone()));
    }
}

/// Waits for the connection to end; why it did.
async fn ended(connected: Connected) -> String {
    let Connected { service, child } = connected;
    let Some(mut child) = child else {
        let _ = service.waiting().await;
        return "the connection closed".to_owned();
    };
    tokio::select! {
        // The process is gone (and the service on its pipes, dropped with
        // this select).
        status = child.wait() => exited(status),
        _ = service.waiting() => {
            // Its stdout closed: it is exiting, or it lives on but stopped
            // speaking MCP, and is stopped for good before it starts again.
            match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
                Ok(status) => exited(status),
                Err(_still_running) => {
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                    "it closed its stdout and was killed".to_owned()
                }
            }
        }
    }
}

/// How long a process whose stdout closed has to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

fn exited(status: std::io::Result<ExitStatus>) -> String {
    match status {
        Ok(status) => format!("it exited ({status})"),
        Err(error) => format!("it could not be waited for: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_from_the_first_up_to_the_most_and_start_over_when_reset() {
        let mut backoff = Backoff::new();
        let delays: Vec<(u32, Duration)> = (0..10).map(|_| backoff.next()).collect();
        assert_eq!(delays[0], (1, Backoff::FIRST));
        assert_eq!(delays[1], (2, Backoff::FIRST * 2));
        assert_eq!(delays[2], (3, Backoff::FIRST * 4));
        assert_eq!(delays[9], (10, Backoff::MAX));
        assert!(delays.windows(2).all(|pair| pair[0].1 <= pair[1].1));
        backoff.reset();
        assert_eq!(backoff.next(), (1, Backoff::FIRST));
    }
}
