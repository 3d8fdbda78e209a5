//! Audit records in a PostgreSQL table, shared by every replica of a service.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use hooks_core::Deferred;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};

use super::AuditRecord;
use super::sink::Sink;
use crate::postgres::{Connected, Server, block_on, failure, spawn_on_driver};

/// The schema, one step per entry, recorded in `hooks_schema_migrations`.
const MIGRATIONS: &[&str] = &[
    // 1: one row a record, the record whole; session and tool for lookups.
    "CREATE TABLE hooks_audit_log (
         id         BIGSERIAL PRIMARY KEY,
         written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
         record     JSONB NOT NULL,
         session    TEXT GENERATED ALWAYS AS (record ->> 'session') STORED,
         tool       TEXT GENERATED ALWAYS AS (record ->> 'tool') STORED
     );
     CREATE INDEX hooks_audit_log_by_session ON hooks_audit_log (session, id);",
];

/// The most records one `INSERT` carries.
const BATCH: usize = 1_000;

/// Records as rows of `hooks_audit_log` (the record as `jsonb`, with its
/// session and tool as columns), in batches.
///
/// Records written while a batch is on its way to the server make up the
/// next one, so a busy process sends few large `INSERT`s and an idle one a
/// record at a time. A record is acknowledged — [`write`](Sink::write)'s
/// future resolves — only once the transaction carrying it has committed
/// with `synchronous_commit = on` (set for that transaction, whatever the
/// server's or the role's default): a record the dispatcher was told is
/// written is in the table, whatever happens to the process after.
///
/// **Before each call.** This sink asks the audit gate to record each call
/// before it runs (a record whose `decision` is `started`, with the final
/// arguments), and the call runs only once that record committed: a server
/// killed mid-run costs calls, never a call without its row. Its `allowed`
/// record follows when it finished.
///
/// **Bounded.** A record not committed within the
/// [timeout](PostgresSinkBuilder::timeout) (5 s by default) fails — the
/// server frozen, the network dropping packets — and the gate refuses the
/// call (fail-closed; see [`OnFailure`](super::OnFailure)). At most
/// [`queue`](PostgresSinkBuilder::queue) records wait for the server (10,000
/// by default); past that a record is refused at once instead of queued.
///
/// The connection is driven on a thread of its own, not on the caller's
/// runtime: the sink works from any runtime, and outlives each. It connects
/// again after the connection is lost.
pub struct PostgresSink {
    server: Server,
    queue: mpsc::Sender<Queued>,
    capacity: usize,
    timeout: Duration,
}

/// How a [`PostgresSink`] connects, waits and queues; from
/// [`PostgresSink::builder`].
#[derive(Debug, Clone)]
#[must_use = "a builder connects nothing until `open` or `connect`"]
pub struct PostgresSinkBuilder {
    connection: String,
    timeout: Duration,
    connect_timeout: Duration,
    queue: usize,
}

struct Queued {
    record: String,
    deadline: Instant,
    written: oneshot::Sender<Result<(), String>>,
}

impl PostgresSink {
    /// A sink on the server `connection` names (`postgres://...` or
    /// `host=... dbname=...`, each `${NAME}` replaced by that environment
    /// variable), with the default timeouts and queue, connected and migrated
    /// now: a server that cannot be reached is refused here, not at the first call.
    pub fn open(connection: &str) -> io::Result<Self> {
        Self::builder(connection).open()
    }

    /// [`open`](Self::open), awaited.
    pub async fn connect(connection: &str) -> io::Result<Self> {
        Self::builder(connection).connect().await
    }

    /// A sink with other timeouts or another queue.
    pub fn builder(connection: &str) -> PostgresSinkBuilder {
        PostgresSinkBuilder {
            connection: connection.to_owned(),
            timeout: crate::postgres::STATEMENT_TIMEOUT,
            connect_timeout: crate::postgres::CONNECT_TIMEOUT,
            queue: 10_000,
        }
    }

    /// The server, user and database, for messages (never the password).
    pub fn server(&self) -> &str {
        self.server.shown()
    }
}

impl PostgresSinkBuilder {
    /// How long a record may take to be committed, from the call that
    /// writes it: past it, the record fails and the gate refuses its call.
    /// Default 5 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long connecting may take (TCP, TLS, authentication). Default 5 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many records may wait for the server; past it a record is
    /// refused at once. Default 10,000.
    pub fn queue(mut self, records: usize) -> Self {
        self.queue = records;
        self
    }

    /// Connects and migrates now, on a thread of its own (from synchronous
    /// code, inside a runtime or not).
    pub fn open(self) -> io::Result<PostgresSink> {
        let server = self.server()?;
        let connected = block_on(async {
            server
                .connect_migrated("audit_log", MIGRATIONS)
                .await
                .map_err(|error| io::Error::other(format!("{}: {error}", server.shown())))
        })
        .map_err(io::Error::other)??;
        self.start(server, connected)
    }

    /// Connects and migrates now.
    pub async fn connect(self) -> io::Result<PostgresSink> {
        let server = self.server()?;
        let connected = server
            .connect_migrated("audit_log", MIGRATIONS)
            .await
            .map_err(|error| io::Error::other(format!("{}: {error}", server.shown())))?;
        self.start(server, connected)
    }

    fn server(&self) -> io::Result<Server> {
        if self.queue == 0 {
            return Err(io::Error::other(
                "the audit queue must hold at least one record",
            ));
        }
        let mut server = Server::parse(&self.connection).map_err(io::Error::other)?;
        server.connect_timeout(self.connect_timeout);
        server.statement_timeout(self.timeout);
        Ok(server)
    }

    fn start(self, server: Server, connected: Connected) -> io::Result<PostgresSink> {
        let (queue, records) = mpsc::channel(self.queue);
        spawn_on_driver(write_batches(
            server.clone(),
            connected,
            records,
            self.timeout,
        ))
        .map_err(io::Error::other)?;
        Ok(PostgresSink {
            server,
            queue,
            capacity: self.queue,
            timeout: self.timeout,
        })
    }
}

impl Sink for PostgresSink {
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        let record = match serde_json::to_string(record) {
            Ok(record) => record,
            Err(error) => return Deferred::Ready(Err(error.into())),
        };
        let (written, acknowledged) = oneshot::channel();
        let queued = Queued {
            record,
            deadline: Instant::now() + self.timeout,
            written,
        };
        match self.queue.try_send(queued) {
            Ok(()) => Deferred::Later(Box::pin(async move {
                match acknowledged.await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(error)) => Err(io::Error::other(format!("{}: {error}", self.server()))),
                    Err(_) => Err(io::Error::other("the audit writer stopped")),
                }
            })),
            Err(TrySendError::Full(_)) => Deferred::Ready(Err(io::Error::other(format!(
                "{}: {} audit records already wait for the server, the most the queue holds; \
                 this one is refused rather than queued (raise `queue` if the server is just slow)",
                self.server(),
                self.capacity
            )))),
            Err(TrySendError::Closed(_)) => {
                Deferred::Ready(Err(io::Error::other("the audit writer stopped")))
            }
        }
    }

    fn records_before_call(&self) -> bool {
        true
    }
}

/// Writes what is queued, a batch at a time, and acknowledges each batch's
/// records once it committed, or fails them once the earliest deadline among
/// them passed. Ends when the sink is dropped and the queue drained.
async fn write_batches(
    server: Server,
    connected: Connected,
    mut records: mpsc::Receiver<Queued>,
    timeout: Duration,
) {
    let mut client = Writing::prepare(connected).await.ok();
    let mut batch = Vec::with_capacity(BATCH);
    let late = || {
        format!(
            "not committed within {} (the sink's timeout): the server did not answer in time",
            humantime::format_duration(timeout)
        )
    };
    while records.recv_many(&mut batch, BATCH).await > 0 {
        // Waited past their deadline behind a batch the server did not answer.
        let now = Instant::now();
        let (late_ones, waiting): (Vec<_>, Vec<_>) =
            batch.drain(..).partition(|queued| queued.deadline <= now);
        for queued in late_ones {
            let _ = queued.written.send(Err(late()));
        }
        batch.extend(waiting);
        let Some(deadline) = batch.iter().map(|queued| queued.deadline).min() else {
            continue;
        };
        let result = tokio::time::timeout_at(deadline.into(), insert(&server, &mut client, &batch))
            .await
            .unwrap_or_else(|_| Err(late()));
        if result.is_err() {
            // Given up: a connection to a frozen server stays stuck.
            client = None;
        }
        for queued in batch.drain(..) {
            let _ = queued.written.send(result.clone());
        }
    }
}

/// A connection with the `INSERT` prepared on it.
struct Writing {
    connected: Connected,
    insert: tokio_postgres::Statement,
}

impl Writing {
    /// Prepares the `INSERT` once, so that it is sent at once, between
    /// `BEGIN` and `COMMIT`, not after a round trip to prepare it.
    async fn prepare(connected: Connected) -> Result<Self, String> {
        let insert = connected
            .prepare(
                "INSERT INTO hooks_audit_log (record) SELECT record::jsonb FROM unnest($1::text[]) AS record",
            )
            .await
            .map_err(|error| failure(&error))?;
        Ok(Writing { connected, insert })
    }
}

async fn insert(
    server: &Server,
    client: &mut Option<Writing>,
    batch: &[Queued],
) -> Result<(), String> {
    if client
        .as_ref()
        .is_none_or(|open| open.connected.is_closed())
    {
        let connected = server.connect_migrated("audit_log", MIGRATIONS).await?;
        *client = Some(Writing::prepare(connected).await?);
    }
    let open = client.as_ref().expect("connected just now");
    let records: Vec<&str> = batch.iter().map(|queued| queued.record.as_str()).collect();
    let parameters: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&records];
    // One transaction, committed synchronously whatever the server's default;
    // the three sent together, one round trip. A failed `INSERT` makes
    // `COMMIT` a rollback: the whole batch commits, or none of it.
    let (began, inserted, committed) = pipelined(
        open.connected
            .batch_execute("BEGIN; SET LOCAL synchronous_commit = on"),
        open.connected.execute(&open.insert, &parameters),
        open.connected.batch_execute("COMMIT"),
    )
    .await;
    began
        .and(inserted.map(drop))
        .and(committed)
        .map_err(|error| failure(&error))
}

/// Awaits three requests on one connection, sent in this order on their
/// first poll, before any answer is read: one round trip for the three.
async fn pipelined<A, B, C>(
    first: impl Future<Output = A>,
    second: impl Future<Output = B>,
    third: impl Future<Output = C>,
) -> (A, B, C) {
    let (mut first, mut second, mut third) = (pin!(first), pin!(second), pin!(third));
    let (mut a, mut b, mut c) = (None, None, None);
    poll_fn(|cx| {
        if a.is_none() {
            a = ready(first.as_mut().poll(cx));
        }
        if b.is_none() {
            b = ready(second.as_mut().poll(cx));
        }
        if c.is_none() {
            c = ready(third.as_mut().poll(cx));
        }
        if a.is_some() && b.is_some() && c.is_some() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    (a.expect("ready"), b.expect("ready"), c.expect("ready"))
}

fn ready<T>(poll: Poll<T>) -> Option<T> {
    match poll {
        Poll::Ready(value) => Some(value),
        Poll::Pending => None,
    }
}
