//! What the PostgreSQL stores (approvals, audit) share: connection strings
//! with `${NAME}` secrets, connections driven on a runtime of their own
//! (never the caller's), timeouts on connecting and on every statement, and
//! migrations serialized by an advisory lock.

use std::future::{Future, poll_fn};
use std::str::FromStr as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio_postgres::config::Host;
use tokio_postgres::{AsyncMessage, Client, Connection, NoTls, Notification};

mod tls;

/// How long connecting (TCP, TLS, authentication) may take by default.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one statement may take by default, from sending it to its answer.
pub(crate) const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

/// A PostgreSQL server to connect to, from a connection string whose
/// `${NAME}`s were replaced by environment variables.
#[derive(Clone)]
pub(crate) struct Server {
    pub(crate) config: tokio_postgres::Config,
    /// The handshake and the certificate check; `None` for `sslmode=disable`.
    tls: Option<Arc<rustls::ClientConfig>>,
    shown: Arc<str>,
    connect_timeout: Duration,
    statement_timeout: Duration,
}

/// What a connection's driver does with a notification (`NOTIFY`).
pub(crate) type OnNotification = Arc<dyn Fn(&Notification) + Send + Sync>;

/// A connection: the client, and the task on the driver runtime that drives
/// it, stopped when this is dropped (a connection to a frozen server is
/// given up, not left waiting forever).
pub(crate) struct Connected {
    client: Client,
    driving: JoinHandle<String>,
}

impl std::ops::Deref for Connected {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Drop for Connected {
    fn drop(&mut self) {
        self.driving.abort();
    }
}

impl Connected {
    /// Resolves when the connection ends, with why.
    pub(crate) async fn ended(&mut self) -> String {
        (&mut self.driving)
            .await
            .unwrap_or_else(|error| error.to_string())
    }
}

impl Server {
    /// Parses `connection` (`postgres://...` or `host=... dbname=...`) after
    /// replacing each `${NAME}` with the environment variable `NAME`.
    pub(crate) fn parse(connection: &str) -> Result<Self, String> {
        let expanded = crate::config::expand_env(connection)
            .map_err(|error| format!("the connection string {error}"))?;
        let (rest, tls) = tls::split(&expanded)?;
        let mut config = tokio_postgres::Config::from_str(&rest)
            .map_err(|error| format!("not a PostgreSQL connection string: {error}"))?;
        config.ssl_mode(tls.mode);
        let shown = describe(&config).into();
        Ok(Server {
            config,
            tls: tls.config,
            shown,
            connect_timeout: CONNECT_TIMEOUT,
            statement_timeout: STATEMENT_TIMEOUT,
        })
    }

    /// Sets how long connecting may take (TCP, TLS and authentication).
    pub(crate) fn connect_timeout(&mut self, timeout: Duration) {
        self.connect_timeout = timeout;
        self.config.connect_timeout(timeout);
    }

    /// Sets how long a statement may take; the server is told too
    /// (`statement_timeout`), so it stops what nobody waits for.
    pub(crate) fn statement_timeout(&mut self, timeout: Duration) {
        self.statement_timeout = timeout;
    }

    /// The server, user and database, never the password: for messages.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// Connects, on the driver runtime, within the connect timeout. The
    /// connection is driven there, whatever runtime (if any) awaits this.
    pub(crate) async fn connect(&self) -> Result<Connected, String> {
        self.connect_notified(None).await
    }

    /// [`connect`](Self::connect), handing each notification to `notified`.
    pub(crate) async fn connect_notified(
        &self,
        notified: Option<OnNotification>,
    ) -> Result<Connected, String> {
        let server = self.clone();
        on_driver(async move { server.connect_here(notified).await }).await?
    }

    async fn connect_here(&self, notified: Option<OnNotification>) -> Result<Connected, String> {
        let mut config = self.config.clone();
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(self.connect_timeout);
        }
        let late = || {
            format!(
                "could not connect within {} (the connect timeout)",
                humantime::format_duration(self.connect_timeout)
            )
        };
        let (client, driving) = match &self.tls {
            None => {
                let (client, connection) =
                    tokio::time::timeout(self.connect_timeout, config.connect(NoTls))
                        .await
                        .map_err(|_| late())?
                        .map_err(|error| failure(&error))?;
                (client, self.drive(connection, notified))
            }
            Some(tls) => {
                let tls = tokio_postgres_rustls::MakeRustlsConnect::new((**tls).clone());
                let (client, connection) =
                    tokio::time::timeout(self.connect_timeout, config.connect(tls))
                        .await
                        .map_err(|_| late())?
                        .map_err(|error| failure(&error))?;
                (client, self.drive(connection, notified))
            }
        };
        let connected = Connected { client, driving };
        // The server stops a statement nobody waits for any more.
        let millis = self.statement_timeout.as_millis().max(1);
        self.within(connected.batch_execute(&format!("SET statement_timeout = {millis}")))
            .await?;
        Ok(connected)
    }

    /// Drives `connection` on the current (driver) runtime, handing each
    /// notification to `notified`; ends with why the connection ended.
    fn drive<S, T>(
        &self,
        mut connection: Connection<S, T>,
        notified: Option<OnNotification>,
    ) -> JoinHandle<String>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let shown = Arc::clone(&self.shown);
        tokio::spawn(async move {
            while let Some(message) = poll_fn(|cx| connection.poll_message(cx)).await {
                match message {
                    Ok(AsyncMessage::Notification(note)) => {
                        if let Some(notified) = &notified {
                            notified(&note);
                        }
                    }
                    Ok(_) => {}
                    Err(error) => {
                        let error = failure(&error);
                        tracing::warn!(target: "hooks_std::postgres", server = %shown, %error, "connection lost");
                        return error;
                    }
                }
            }
            "the server closed the connection".to_owned()
        })
    }

    /// `statement`'s answer, or an error once the statement timeout passed.
    pub(crate) async fn within<T>(
        &self,
        statement: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, String> {
        tokio::time::timeout(self.statement_timeout, statement)
            .await
            .map_err(|_| {
                format!(
                    "the server did not answer within {} (the statement timeout)",
                    humantime::format_duration(self.statement_timeout)
                )
            })?
            .map_err(|error| failure(&error))
    }

    /// Connects and applies `component`'s missing migration steps, each
    /// recorded, in one transaction under an advisory lock: replicas starting
    /// together apply each step once.
    pub(crate) async fn connect_migrated(
        &self,
        component: &str,
        steps: &[&str],
    ) -> Result<Connected, String> {
        let mut connected = self.connect().await?;
        let server = self.clone();
        let component = component.to_owned();
        let steps: Vec<String> = steps.iter().map(|step| (*step).to_owned()).collect();
        // Run where the connection is driven, bounded as a whole.
        on_driver(async move {
            let limit = server.statement_timeout * 4;
            tokio::time::timeout(limit, migrate(&mut connected.client, &component, &steps))
                .await
                .map_err(|_| {
                    format!(
                        "the migration did not finish within {}",
                        humantime::format_duration(limit)
                    )
                })?
                .map(|()| connected)
        })
        .await?
    }
}

/// Applies `component`'s missing `steps` in one transaction.
async fn migrate(client: &mut Client, component: &str, steps: &[String]) -> Result<(), String> {
    let transaction = client
        .transaction()
        .await
        .map_err(|error| failure(&error))?;
    // One key for every hooks schema: the migrations table is shared.
    transaction
        .execute("SELECT pg_advisory_xact_lock(7400173111)", &[])
        .await
        .map_err(|error| failure(&error))?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS hooks_schema_migrations (
                 component  TEXT NOT NULL,
                 version    INTEGER NOT NULL,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                 PRIMARY KEY (component, version)
             )",
        )
        .await
        .map_err(|error| failure(&error))?;
    let applied: i32 = transaction
        .query_one(
            "SELECT COALESCE(max(version), 0) FROM hooks_schema_migrations WHERE component = $1",
            &[&component],
        )
        .await
        .map_err(|error| failure(&error))?
        .get(0);
    let applied = usize::try_from(applied).unwrap_or(0);
    if applied > steps.len() {
        return Err(format!(
            "the `{component}` schema is at version {applied}, newer than this program's {}: upgrade it",
            steps.len()
        ));
    }
    for (version, step) in (1_i32..).zip(steps).skip(applied) {
        transaction
            .batch_execute(step)
            .await
            .map_err(|error| failure(&error))?;
        transaction
            .execute(
                "INSERT INTO hooks_schema_migrations (component, version) VALUES ($1, $2)",
                &[&component, &version],
            )
            .await
            .map_err(|error| failure(&error))?;
    }
    transaction
        .commit()
        .await
        .map_err(|error| failure(&error))?;
    Ok(())
}

/// The runtime every PostgreSQL connection of this process is driven on: one
/// thread of its own, started on first use, never tied to a caller's runtime
/// (a caller's runtime may be dropped; its connections would die with it).
fn driver() -> Result<&'static Handle, String> {
    static DRIVER: OnceLock<Result<Handle, String>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|error| format!("cannot start the PostgreSQL runtime: {error}"))?;
            let handle = runtime.handle().clone();
            std::thread::Builder::new()
                .name("hooks-postgres".to_owned())
                .spawn(move || runtime.block_on(std::future::pending::<()>()))
                .map_err(|error| format!("cannot start the PostgreSQL thread: {error}"))?;
            Ok(handle)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Runs `future` on the driver runtime; awaitable from any runtime or none.
pub(crate) async fn on_driver<T: Send + 'static>(
    future: impl Future<Output = T> + Send + 'static,
) -> Result<T, String> {
    driver()?
        .spawn(future)
        .await
        .map_err(|_| "the PostgreSQL runtime stopped".to_owned())
}

/// Starts `future` on the driver runtime, for a store's long-lived task.
pub(crate) fn spawn_on_driver(
    future: impl Future<Output = ()> + Send + 'static,
) -> Result<JoinHandle<()>, String> {
    Ok(driver()?.spawn(future))
}

/// Runs `future` to completion on a runtime of its own, on a thread of its
/// own, so it works from synchronous code inside or outside a runtime: for
/// start-up work (connecting and migrating when a configuration is opened).
pub(crate) fn block_on<T: Send>(future: impl Future<Output = T> + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map(|runtime| runtime.block_on(future))
                    .map_err(|error| format!("cannot start a runtime to connect on: {error}"))
            })
            .join()
            .map_err(|_| "the connecting thread panicked".to_owned())?
    })
}

fn describe(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or(""),
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}

/// A PostgreSQL error with the server's own message when there is one.
pub(crate) fn failure(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => db.to_string(),
        None => match std::error::Error::source(error) {
            Some(source) => format!("{error}: {source}"),
            None => error.to_string(),
        },
    }
}
