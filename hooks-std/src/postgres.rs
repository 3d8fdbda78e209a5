//! What the PostgreSQL stores (approvals, audit) share: connection strings
//! with `${NAME}` secrets, connections driven on the caller's runtime, and
//! migrations serialized by an advisory lock.

use std::future::Future;
use std::str::FromStr as _;
use std::sync::Arc;

use tokio_postgres::config::Host;
use tokio_postgres::{Client, NoTls};

/// A PostgreSQL server to connect to, from a connection string whose
/// `${NAME}`s were replaced by environment variables.
#[derive(Clone)]
pub(crate) struct Server {
    pub(crate) config: tokio_postgres::Config,
    shown: Arc<str>,
}

impl Server {
    /// Parses `connection` (`postgres://...` or `host=... dbname=...`) after
    /// replacing each `${NAME}` with the environment variable `NAME`.
    pub(crate) fn parse(connection: &str) -> Result<Self, String> {
        let expanded = crate::config::expand_env(connection)
            .map_err(|error| format!("the connection string {error}"))?;
        let config = tokio_postgres::Config::from_str(&expanded)
            .map_err(|error| format!("not a PostgreSQL connection string: {error}"))?;
        let shown = describe(&config).into();
        Ok(Server { config, shown })
    }

    /// The server, user and database, never the password: for messages.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// Connects; the connection is driven by a task on the current runtime.
    pub(crate) async fn connect(&self) -> Result<Client, String> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err("PostgreSQL connections need a Tokio runtime to run on".to_owned());
        }
        let (client, connection) = self
            .config
            .connect(NoTls)
            .await
            .map_err(|error| failure(&error))?;
        let shown = Arc::clone(&self.shown);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(target: "hooks_std::postgres", server = %shown, error = %failure(&error), "connection lost");
            }
        });
        Ok(client)
    }

    /// Connects and applies `component`'s missing migration steps, each
    /// recorded, in one transaction under an advisory lock: replicas starting
    /// together apply each step once.
    pub(crate) async fn connect_migrated(
        &self,
        component: &str,
        steps: &[&str],
    ) -> Result<Client, String> {
        let mut client = self.connect().await?;
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
        Ok(client)
    }
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
