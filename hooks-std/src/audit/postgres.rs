//! Audit records in a PostgreSQL table, shared by every replica of a service.

use std::io;
use std::sync::{Arc, OnceLock};

use hooks_core::Deferred;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::Client;

use super::AuditRecord;
use super::sink::Sink;
use crate::postgres::{Server, block_on, failure};

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
/// future resolves — only once the `INSERT` carrying it has committed: a
/// record the dispatcher was told is written is in the table, whatever
/// happens to the process after. A failed batch fails every record in it,
/// and the audit gate closes (see [`OnFailure`](super::OnFailure)).
///
/// Connects lazily, on the runtime of the first write, and again after the
/// connection is lost.
pub struct PostgresSink {
    server: Server,
    queue: OnceLock<mpsc::UnboundedSender<Queued>>,
}

struct Queued {
    record: String,
    written: oneshot::Sender<Result<(), String>>,
}

impl PostgresSink {
    /// A sink on the server `connection` names (`postgres://...` or
    /// `host=... dbname=...`, each `${NAME}` replaced by that environment
    /// variable), connected and migrated now, on a thread of its own: a
    /// server that cannot be reached is refused here, not at the first call.
    pub fn open(connection: &str) -> io::Result<Self> {
        let sink = Self::lazy(connection)?;
        let server = sink.server.clone();
        block_on(async move {
            server
                .connect_migrated("audit_log", MIGRATIONS)
                .await
                .map(drop)
        })
        .and_then(|connected| connected)
        .map_err(|error| io::Error::other(format!("{}: {error}", sink.server.shown())))?;
        Ok(sink)
    }

    /// Connects and migrates, on the current runtime.
    pub async fn connect(connection: &str) -> io::Result<Self> {
        let sink = Self::lazy(connection)?;
        sink.server
            .connect_migrated("audit_log", MIGRATIONS)
            .await
            .map_err(|error| io::Error::other(format!("{}: {error}", sink.server.shown())))?;
        Ok(sink)
    }

    fn lazy(connection: &str) -> io::Result<Self> {
        Ok(PostgresSink {
            server: Server::parse(connection).map_err(io::Error::other)?,
            queue: OnceLock::new(),
        })
    }

    /// The server, user and database, for messages (never the password).
    pub fn server(&self) -> &str {
        self.server.shown()
    }

    /// The queue to the task that writes batches, started on the current
    /// runtime by the first write.
    fn queue(&self) -> io::Result<&mpsc::UnboundedSender<Queued>> {
        if let Some(queue) = self.queue.get() {
            return Ok(queue);
        }
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            io::Error::other("the PostgreSQL audit sink needs a Tokio runtime to write on")
        })?;
        let (queue, records) = mpsc::unbounded_channel();
        if self.queue.set(queue).is_ok() {
            runtime.spawn(write_batches(self.server.clone(), records));
        }
        Ok(self.queue.get().expect("set just now"))
    }
}

impl Sink for PostgresSink {
    fn write<'a>(&'a self, record: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        let queued = serde_json::to_string(record)
            .map_err(io::Error::from)
            .and_then(|record| {
                let (written, acknowledged) = oneshot::channel();
                self.queue()?
                    .send(Queued { record, written })
                    .map_err(|_| io::Error::other("the audit writer task stopped"))?;
                Ok(acknowledged)
            });
        match queued {
            Err(error) => Deferred::Ready(Err(error)),
            Ok(acknowledged) => Deferred::Later(Box::pin(async move {
                match acknowledged.await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(error)) => Err(io::Error::other(format!("{}: {error}", self.server()))),
                    Err(_) => Err(io::Error::other("the audit writer task stopped")),
                }
            })),
        }
    }
}

/// Writes what is queued, a batch at a time, and acknowledges each batch's
/// records once it committed. Ends when the sink is dropped and the queue drained.
async fn write_batches(server: Server, mut records: mpsc::UnboundedReceiver<Queued>) {
    let mut client: Option<Arc<Client>> = None;
    let mut batch = Vec::with_capacity(BATCH);
    while records.recv_many(&mut batch, BATCH).await > 0 {
        let result = insert(&server, &mut client, &batch).await;
        if result.is_err() {
            client = None;
        }
        for queued in batch.drain(..) {
            let _ = queued.written.send(result.clone());
        }
    }
}

async fn insert(
    server: &Server,
    client: &mut Option<Arc<Client>>,
    batch: &[Queued],
) -> Result<(), String> {
    let open = match client.as_ref().filter(|open| !open.is_closed()) {
        Some(open) => Arc::clone(open),
        None => {
            let fresh = Arc::new(server.connect_migrated("audit_log", MIGRATIONS).await?);
            *client = Some(Arc::clone(&fresh));
            fresh
        }
    };
    let records: Vec<&str> = batch.iter().map(|queued| queued.record.as_str()).collect();
    // One statement: the whole batch commits, or none of it.
    open.execute(
        "INSERT INTO hooks_audit_log (record) SELECT record::jsonb FROM unnest($1::text[]) AS record",
        &[&records],
    )
    .await
    .map(drop)
    .map_err(|error| failure(&error))
}
