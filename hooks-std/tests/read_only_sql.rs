//! The read-only guard against real databases, as an attacker would test it.
//!
//! Two corpora live next to this file: `sql/writes.toml`, hidden writes, and
//! `sql/reads.toml`, ordinary reads. Every write is judged with no dialect
//! configured and with each single dialect; whatever a setting lets through
//! runs on the databases that setting applies to — PostgreSQL (a real server,
//! started here) and SQLite — the way an agent's tool would run it (the simple
//! query protocol, several statements at once), and must change nothing:
//! rows, sequences, large objects, catalogs, session state, files. With no
//! dialect configured, every write must be denied. The attacks are real: run without the
//! guard, the ones marked so change their database. Every read must pass the
//! guard in its dialect and run without error where that dialect applies.

#[path = "support/postgres.rs"]
mod postgres;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::read_only::{ReadOnly, ReadOnlyGuard, ToolDialect};
use postgres::{Connection, Postgres};
use serde::Deserialize;

hooks_core::link!(hooks_std);

/// A hidden write.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Attack {
    /// What it attacks.
    what: String,
    sql: String,
    /// Where it changes something when run without the guard.
    #[serde(default)]
    changes: Vec<Database>,
    /// Why the guard may let it through with no dialect configured: it
    /// changes nothing anywhere. Without this, it must be denied there.
    may_pass: Option<String>,
}

/// An ordinary read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Read {
    what: String,
    sql: String,
    /// The tool's configured dialect; none: every common dialect must agree.
    dialect: Option<String>,
    /// Where it must run without error.
    runs_on: Vec<Database>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum Database {
    Postgres,
    Sqlite,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Writes {
    attack: Vec<Attack>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reads {
    read: Vec<Read>,
}

fn corpus<T: for<'de> Deserialize<'de>>(name: &str) -> T {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sql")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// No dialect (all must agree), then each single one.
const SETTINGS: [Option<&str>; 6] = [
    None,
    Some("postgres"),
    Some("sqlite"),
    Some("mysql"),
    Some("mssql"),
    Some("generic"),
];

/// Where what a setting lets through is run: the databases its dialect applies
/// to (no dialect, or `generic`: any of them).
fn databases(setting: Option<&str>) -> &'static [Database] {
    match setting {
        None | Some("generic") => &[Database::Postgres, Database::Sqlite],
        Some("postgres") => &[Database::Postgres],
        Some("sqlite") => &[Database::Sqlite],
        _ => &[],
    }
}

fn guard(dialect: Option<&str>) -> ReadOnlyGuard {
    ReadOnlyGuard::new(ReadOnly {
        enabled: true,
        dialects: dialect
            .map(|dialect| ToolDialect::new("*", dialect))
            .into_iter()
            .collect(),
        ..ReadOnly::default()
    })
    .unwrap()
}

/// `Ok` if the guard lets `sql` run through a `run_query` tool; else its reason.
fn judge(guard: &ReadOnlyGuard, sql: &str) -> Result<(), String> {
    let session = Session::new("attacker");
    let ctx = PreToolUse::new(&session, "run_query", json!({"query": sql}));
    match guard.check(&ctx) {
        Decision::Continue => Ok(()),
        Decision::Deny(refusal) => Err(refusal.reason().to_owned()),
        ask @ Decision::Ask(_) => Err(format!("{ask:?}")),
    }
}

/// The rows of `orders`.
const ORDER_ROWS: &str = "INSERT INTO orders VALUES
    (1, 1, 12.50, 'paid', '2026-01-02 10:00:00', 'first order', 'light', 'no', true),
    (2, 1, 99.00, 'open', '2026-02-03 11:30:00', NULL, 'heavy', 'yes', false),
    (3, 2, 5.25, 'paid', '2026-02-04 09:15:00', 'it''s a gift', 'light', NULL, true),
    (4, 3, 40.00, 'refunded', '2026-03-01 17:45:00', 'late', NULL, 'no', false);
";

/// The same tables in both databases (and `ORDER_ROWS`).
const TABLES: &str = "
CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text, country text);
CREATE TABLE orders (
    id integer PRIMARY KEY, customer_id integer REFERENCES customers (id), total numeric(10, 2),
    status text, created_at timestamp, comment text, load text, replace text, paid boolean
);
CREATE TABLE events (id integer PRIMARY KEY, order_id integer, kind text, at timestamp, payload text);
INSERT INTO customers VALUES (1, 'ada', 'ada@example.com', 'UK'), (2, 'linus', NULL, 'FI'),
    (3, 'grace', 'grace@example.com', 'US');
INSERT INTO events VALUES (1, 1, 'created', '2026-01-02 10:00:00', '{\"kind\": \"created\"}'),
    (2, 2, 'paid', '2026-02-03 12:00:00', '{\"kind\": \"paid\", \"amount\": 99}');
CREATE VIEW paid_orders AS SELECT * FROM orders WHERE paid;
";

/// What only PostgreSQL has: a sequence, a large object, a procedure, dblink.
const POSTGRES_EXTRAS: &str = "
CREATE EXTENSION dblink;
CREATE SEQUENCE order_ids;
SELECT lo_from_bytea(4242, 'a large object');
CREATE PROCEDURE purge() LANGUAGE sql AS $$ DELETE FROM events $$;
";

/// Fills the placeholders of a corpus statement for where it runs.
struct Place<'a> {
    dir: &'a Path,
    socket: &'a Path,
    database: &'a str,
}

impl Place<'_> {
    fn fill(&self, sql: &str) -> String {
        sql.replace("@DIR@", &self.dir.display().to_string())
            .replace("@SOCKET@", &self.socket.display().to_string())
            .replace("@DB@", self.database)
    }
}

// PostgreSQL ------------------------------------------------------------------

async fn create_database(server: &Postgres, name: &str, template: Option<&str>) {
    let admin = server.connect("postgres").await.unwrap();
    let template = template.map_or(String::new(), |t| format!(" TEMPLATE {t}"));
    admin
        .client
        .batch_execute(&format!("CREATE DATABASE {name}{template}"))
        .await
        .unwrap();
}

async fn fixture_database(server: &Postgres, name: &str) {
    create_database(server, name, None).await;
    let connection = server.connect(name).await.unwrap();
    connection
        .client
        .batch_execute(&format!("{TABLES}{ORDER_ROWS}{POSTGRES_EXTRAS}"))
        .await
        .unwrap();
}

/// A connection as an agent's tool would hold one, watched by a bystander.
struct PgSession {
    connection: Connection,
    bystander: Connection,
    bystander_pid: String,
}

async fn session(server: &Postgres, database: &str) -> PgSession {
    let connection = server.connect(database).await.unwrap();
    connection
        .client
        .batch_execute("SET statement_timeout = '5s'; SET lock_timeout = '2s'; LISTEN watched")
        .await
        .unwrap();
    let bystander = server.connect(database).await.unwrap();
    let bystander_pid = text(&bystander, "SELECT pg_backend_pid()").await.unwrap();
    PgSession {
        connection,
        bystander,
        bystander_pid,
    }
}

/// The first column of the first row, as text.
async fn text(connection: &Connection, sql: &str) -> Result<String, tokio_postgres::Error> {
    let messages = connection.client.simple_query(sql).await?;
    Ok(messages
        .iter()
        .find_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => {
                Some(row.get(0).unwrap_or("NULL").to_owned())
            }
            _ => None,
        })
        .unwrap_or_default())
}

const CATALOGS: [&str; 36] = [
    "pg_class",
    "pg_attribute",
    "pg_proc",
    "pg_namespace",
    "pg_type",
    "pg_constraint",
    "pg_index",
    "pg_trigger",
    "pg_event_trigger",
    "pg_rewrite",
    "pg_policy",
    "pg_extension",
    "pg_description",
    "pg_statistic",
    "pg_sequence",
    "pg_largeobject_metadata",
    "pg_largeobject",
    "pg_authid",
    "pg_auth_members",
    "pg_database",
    "pg_db_role_setting",
    "pg_tablespace",
    "pg_shdescription",
    "pg_default_acl",
    "pg_foreign_data_wrapper",
    "pg_foreign_server",
    "pg_user_mapping",
    "pg_publication",
    "pg_subscription",
    "pg_operator",
    "pg_cast",
    "pg_language",
    "pg_collation",
    "pg_am",
    "pg_opclass",
    "pg_init_privs",
];

/// Everything an attack could change, by name; an error if the session died.
async fn pg_snapshot(
    session: &PgSession,
    out: &Path,
) -> Result<BTreeMap<String, String>, tokio_postgres::Error> {
    let c = &session.connection;
    let mut state = BTreeMap::new();
    let tables = c
        .client
        .simple_query(
            "SELECT format('%I.%I', schemaname, tablename) FROM pg_tables \
             WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
        )
        .await?;
    for message in tables {
        if let tokio_postgres::SimpleQueryMessage::Row(row) = message {
            let table = row.get(0).unwrap_or_default().to_owned();
            let rows = text(
                c,
                &format!(
                    "SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) FROM {table} t"
                ),
            )
            .await?;
            state.insert(format!("rows of {table}"), rows);
        }
    }
    for catalog in CATALOGS {
        let digest = text(
            c,
            &format!(
                "SELECT md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) FROM pg_catalog.{catalog} x"
            ),
        )
        .await?;
        state.insert(format!("catalog {catalog}"), digest);
    }
    for (name, sql) in [
        (
            "sequences",
            "SELECT string_agg(format('%s=%s', sequencename, last_value), ',' ORDER BY sequencename) FROM pg_sequences",
        ),
        (
            "settings",
            "SELECT md5(string_agg(name || '=' || setting, ',' ORDER BY name)) FROM pg_settings",
        ),
        (
            "advisory locks",
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
        ),
        (
            "prepared statements",
            "SELECT string_agg(name, ',' ORDER BY name) FROM pg_prepared_statements",
        ),
        (
            "cursors",
            "SELECT string_agg(name, ',' ORDER BY name) FROM pg_cursors",
        ),
        (
            "listening",
            "SELECT string_agg(c, ',' ORDER BY c) FROM pg_listening_channels() c",
        ),
        (
            "prepared transactions",
            "SELECT count(*) FROM pg_prepared_xacts",
        ),
        (
            "dblink connections",
            "SELECT dblink_get_connections()::text",
        ),
        (
            "open transaction",
            "SELECT pg_current_xact_id_if_assigned()::text",
        ),
        (
            "bystander",
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = {}",
                session.bystander_pid
            ),
        ),
    ] {
        state.insert(name.to_owned(), text(c, sql).await?);
    }
    let bystander = text(&session.bystander, "SELECT 'alive'").await;
    state.insert(
        "bystander answers".to_owned(),
        bystander.unwrap_or_else(|error| error.to_string()),
    );
    state.insert("notifications".to_owned(), c.notifications().to_string());
    state.insert("files".to_owned(), files(out));
    Ok(state)
}

async fn pg_run(session: &PgSession, sql: &str) -> Result<(), String> {
    let run = session.connection.client.batch_execute(sql);
    match tokio::time::timeout(Duration::from_secs(20), run).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(error
            .as_db_error()
            .map_or_else(|| error.to_string(), |db| db.message().to_owned())),
        Err(_) => Err("timed out".to_owned()),
    }
}

// SQLite ----------------------------------------------------------------------

struct Sqlite {
    dir: PathBuf,
    connection: rusqlite::Connection,
}

impl Sqlite {
    fn fixture(dir: &Path) -> Sqlite {
        std::fs::create_dir_all(dir).unwrap();
        let connection = rusqlite::Connection::open(dir.join("shop.db")).unwrap();
        connection.execute_batch(TABLES).unwrap();
        connection.execute_batch(ORDER_ROWS).unwrap();
        let sqlite = Sqlite {
            dir: dir.to_owned(),
            connection,
        };
        // The first look at `temp` adds it to the database list: look once now.
        sqlite.snapshot();
        sqlite
    }

    /// A copy of `self`'s database in `dir`, for a run that may change it.
    fn copy(&self, dir: &Path) -> Sqlite {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
        std::fs::copy(self.dir.join("shop.db"), dir.join("shop.db")).unwrap();
        let sqlite = Sqlite {
            dir: dir.to_owned(),
            connection: rusqlite::Connection::open(dir.join("shop.db")).unwrap(),
        };
        sqlite.snapshot();
        sqlite
    }

    fn run(&self, sql: &str) -> Result<(), String> {
        self.connection
            .execute_batch(sql)
            .map_err(|error| error.to_string())
    }

    fn snapshot(&self) -> BTreeMap<String, String> {
        let c = &self.connection;
        let mut state = BTreeMap::new();
        let all = |sql: &str| -> String {
            let Ok(mut statement) = c.prepare(sql) else {
                return format!("cannot prepare {sql}");
            };
            let columns = statement.column_count();
            let mut out = String::new();
            let mut rows = statement.query([]).unwrap();
            while let Ok(Some(row)) = rows.next() {
                for i in 0..columns {
                    let _ = write!(out, "{:?}|", row.get_ref(i).unwrap());
                }
                out.push('\n');
            }
            out
        };
        for pragma in [
            "user_version",
            "application_id",
            "schema_version",
            "journal_mode",
            "foreign_keys",
            "writable_schema",
            "query_only",
            "database_list",
        ] {
            state.insert(format!("pragma {pragma}"), all(&format!("PRAGMA {pragma}")));
        }
        state.insert("changes".to_owned(), all("SELECT total_changes()"));
        state.insert("autocommit".to_owned(), c.is_autocommit().to_string());
        for schema in ["main", "temp"] {
            state.insert(
                format!("{schema} schema"),
                all(&format!(
                    "SELECT type, name, sql FROM {schema}.sqlite_schema ORDER BY name"
                )),
            );
        }
        let tables: Vec<String> = c
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for table in tables {
            state.insert(
                format!("rows of {table}"),
                all(&format!("SELECT * FROM \"{table}\" ORDER BY rowid")),
            );
        }
        state.insert("files".to_owned(), files(&self.dir));
        state
    }
}

/// The names and sizes of the files in `dir`.
fn files(dir: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| {
                    let size = entry.metadata().map_or(0, |m| m.len());
                    format!("{}:{size}", entry.file_name().to_string_lossy())
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.join(",")
}

fn differences(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> String {
    let mut changed: Vec<&str> = before
        .iter()
        .filter(|(key, value)| after.get(*key) != Some(value))
        .map(|(key, _)| key.as_str())
        .collect();
    changed.extend(
        after
            .keys()
            .filter(|key| !before.contains_key(*key))
            .map(String::as_str),
    );
    changed.join(", ")
}

/// A directory of this process, removed when dropped (a failing test too).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("hooks-ro-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// The tests -------------------------------------------------------------------

#[tokio::test(flavor = "current_thread")]
async fn hidden_writes_are_denied_or_change_nothing() {
    let writes: Writes = corpus("writes.toml");
    assert!(
        writes.attack.len() >= 100,
        "the corpus has {} hidden writes, fewer than 100",
        writes.attack.len()
    );
    let server = Postgres::start();
    fixture_database(&server, "shop").await;
    let mut pg = session(&server, "shop").await;
    let pg_place = Place {
        dir: &server.out_dir(),
        socket: server.socket_dir(),
        database: "shop",
    };
    let sqlite_dir = TempDir::new("attacks");
    let sqlite = Sqlite::fixture(&sqlite_dir);
    let sqlite_place = Place {
        dir: &sqlite_dir,
        socket: server.socket_dir(),
        database: "shop",
    };
    let guards: Vec<(Option<&str>, ReadOnlyGuard)> = SETTINGS
        .iter()
        .map(|&setting| (setting, guard(setting)))
        .collect();

    let mut failures = Vec::new();
    let mut denied_everywhere = 0;
    let mut allowed_in = Vec::new();
    let mut ran = 0;
    for attack in &writes.attack {
        let mut allowed = false;
        for (setting, guard) in &guards {
            for &database in databases(*setting) {
                let place = match database {
                    Database::Postgres => &pg_place,
                    Database::Sqlite => &sqlite_place,
                };
                let sql = place.fill(&attack.sql);
                if judge(guard, &sql).is_err() {
                    continue;
                }
                allowed = true;
                ran += 1;
                allowed_in.push(format!(
                    "{} ({}, {database:?})",
                    attack.what,
                    setting.unwrap_or("every dialect")
                ));
                if setting.is_none() && attack.may_pass.is_none() {
                    failures.push(format!(
                        "{}: allowed with no dialect configured ({database:?})",
                        attack.what
                    ));
                }
                let changed = match database {
                    Database::Postgres => {
                        let before = pg_snapshot(&pg, &server.out_dir()).await.unwrap();
                        let outcome = pg_run(&pg, &sql).await;
                        match pg_snapshot(&pg, &server.out_dir()).await {
                            Ok(after) => differences(&before, &after),
                            Err(error) => {
                                pg = session(&server, "shop").await;
                                format!("the session ({outcome:?}, then {error})")
                            }
                        }
                    }
                    Database::Sqlite => {
                        let before = sqlite.snapshot();
                        let _ = sqlite.run(&sql);
                        differences(&before, &sqlite.snapshot())
                    }
                };
                if !changed.is_empty() {
                    failures.push(format!(
                        "{}: allowed as {} and it changed {changed} on {database:?}",
                        attack.what,
                        setting.unwrap_or("every dialect")
                    ));
                }
            }
        }
        if !allowed {
            denied_everywhere += 1;
        }
    }
    println!(
        "{} hidden writes: {denied_everywhere} denied in every dialect setting; \
         {ran} runs of the others, in settings that allowed them:\n  {}",
        writes.attack.len(),
        allowed_in.join("\n  ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "current_thread")]
async fn ordinary_reads_pass_and_run() {
    let reads: Reads = corpus("reads.toml");
    assert!(
        reads.read.len() >= 50,
        "the corpus has {} reads, fewer than 50",
        reads.read.len()
    );
    let server = Postgres::start();
    fixture_database(&server, "shop").await;
    let pg = session(&server, "shop").await;
    let sqlite_dir = TempDir::new("reads");
    let sqlite = Sqlite::fixture(&sqlite_dir);

    let mut failures = Vec::new();
    for read in &reads.read {
        let guard = guard(read.dialect.as_deref());
        if let Err(reason) = judge(&guard, &read.sql) {
            failures.push(format!("{}: denied: {reason}", read.what));
            continue;
        }
        for database in &read.runs_on {
            let (outcome, changed) = match database {
                Database::Postgres => {
                    let before = pg_snapshot(&pg, &server.out_dir()).await.unwrap();
                    let outcome = pg_run(&pg, &read.sql).await;
                    let after = pg_snapshot(&pg, &server.out_dir()).await.unwrap();
                    (outcome, differences(&before, &after))
                }
                Database::Sqlite => {
                    let before = sqlite.snapshot();
                    let outcome = sqlite.run(&read.sql);
                    (outcome, differences(&before, &sqlite.snapshot()))
                }
            };
            if let Err(error) = outcome {
                failures.push(format!(
                    "{}: a bad read, it fails on {database:?}: {error}",
                    read.what
                ));
            }
            if !changed.is_empty() {
                failures.push(format!("{}: changed {changed} on {database:?}", read.what));
            }
        }
    }
    println!("{} reads passed the guard and ran", reads.read.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The corpus is made of real writes: run without the guard, each attack
/// marked so changes its database — and the snapshots see it.
#[tokio::test(flavor = "current_thread")]
async fn the_attacks_are_real_writes() {
    let writes: Writes = corpus("writes.toml");
    let server = Postgres::start();
    fixture_database(&server, "template_shop").await;
    let sqlite_dir = TempDir::new("teeth");
    let template = Sqlite::fixture(&sqlite_dir.join("template"));

    let mut failures = Vec::new();
    let mut proven = 0;
    for (n, attack) in writes.attack.iter().enumerate() {
        for database in &attack.changes {
            let (changed, outcome) = match database {
                Database::Postgres => {
                    let name = format!("shop_{n}");
                    create_database(&server, &name, Some("template_shop")).await;
                    let session = session(&server, &name).await;
                    let place = Place {
                        dir: &server.out_dir(),
                        socket: server.socket_dir(),
                        database: &name,
                    };
                    let before = pg_snapshot(&session, &server.out_dir()).await.unwrap();
                    let outcome = pg_run(&session, &place.fill(&attack.sql)).await;
                    match pg_snapshot(&session, &server.out_dir()).await {
                        Ok(after) => (differences(&before, &after), outcome),
                        // The attack ended its own session: a change too.
                        Err(error) => (format!("the session ({error})"), outcome),
                    }
                }
                Database::Sqlite => {
                    let copy = template.copy(&sqlite_dir.join(n.to_string()));
                    let place = Place {
                        dir: &copy.dir,
                        socket: server.socket_dir(),
                        database: "shop",
                    };
                    let before = copy.snapshot();
                    let outcome = copy.run(&place.fill(&attack.sql));
                    (differences(&before, &copy.snapshot()), outcome)
                }
            };
            if changed.is_empty() {
                failures.push(format!(
                    "{}: changed nothing on {database:?} without the guard ({outcome:?})",
                    attack.what
                ));
            } else {
                proven += 1;
            }
        }
    }
    println!("{proven} attacks shown to change their database without the guard");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Texts nobody wrote by hand: random runs of quotes, escapes, comment
/// marks, dollar tags and operators around a hidden `DELETE` / `UPDATE`, and
/// random runs of statement words after `SELECT` (`SELECT INTO loot ...`).
struct Generator {
    state: u64,
}

impl Generator {
    const ATOMS: [&str; 56] = [
        "'", "''", "\"", "`", "$$", "$a$", "$A$", "$1", "E'", "e'", "U&'", "U&\"", "N'", "X'",
        "B'", "\\", "\\'", "\\\\", "--", "-", "/*", "*/", "/", "*", "#", "#-", "@", "@-", "<", ">",
        "|", "||", "::", ":", "+", "%", "^", "~", "!", "?", "&", "[", "]", "(", ")", ",", ".", ";",
        " ", "\n", "\r", "\t", "x", "1", "1e", "0x",
    ];
    /// What opens and closes a string or a comment in some reader, not in another.
    const PAIRS: [(&str, &str); 16] = [
        ("'", "'"),
        ("E'", "'"),
        ("\"", "\""),
        ("`", "`"),
        ("[", "]"),
        ("$$", "$$"),
        ("$a$", "$a$"),
        ("$a$", "$A$"),
        ("/*", "*/"),
        ("/* /*", "*/"),
        ("--", "\n"),
        ("--", "\r"),
        ("#", "\n"),
        ("U&'", "'"),
        ("/*!", "*/"),
        ("'", "\\'"),
    ];
    const HEADS: [&str; 4] = [
        "SELECT 1 ",
        "SELECT 'a' ",
        "SELECT id FROM orders ",
        "SELECT ",
    ];
    const PAYLOADS: [&str; 3] = [
        "; DELETE FROM orders",
        " ; UPDATE orders SET paid = NOT paid ",
        "\nDELETE FROM orders;",
    ];

    fn new(seed: u64) -> Self {
        Generator { state: seed | 1 }
    }

    /// xorshift64: a number below `bound`.
    fn below(&mut self, bound: usize) -> usize {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        usize::try_from(self.state % bound as u64).unwrap()
    }

    fn atoms(&mut self, sql: &mut String) {
        for _ in 0..self.below(5) {
            sql.push_str(Self::ATOMS[self.below(Self::ATOMS.len())]);
        }
    }

    /// Words of statements, for texts that are read by grammar, not by quoting.
    const WORDS: [&str; 48] = [
        "SELECT",
        "INTO",
        "TEMP",
        "UNLOGGED",
        "FROM",
        "orders",
        "o",
        "loot",
        "WITH",
        "AS",
        "(",
        ")",
        ",",
        "*",
        "1",
        "id",
        "FOR",
        "UPDATE",
        "SHARE",
        "DELETE",
        "INSERT",
        "VALUES",
        "RETURNING",
        "UNION",
        "ALL",
        "DISTINCT",
        "TABLE",
        "EXPLAIN",
        "ANALYZE",
        "SHOW",
        "CREATE",
        "ONLY",
        "LATERAL",
        "WHERE",
        "true",
        "ORDER",
        "BY",
        "LIMIT",
        "nextval('order_ids')",
        "setval('order_ids', 9)",
        "EXECUTE",
        "CALL",
        "DESCRIBE",
        "NOT",
        "MATERIALIZED",
        "SET",
        "paid",
        "=",
    ];

    fn words(&mut self) -> String {
        let mut sql = String::from("SELECT");
        for _ in 0..self.below(8) {
            sql.push(' ');
            sql.push_str(Self::WORDS[self.below(Self::WORDS.len())]);
        }
        sql
    }

    fn text(&mut self) -> String {
        if self.below(3) == 0 {
            return self.words();
        }
        // Half the others wrap the payload in a pair.
        let (open, close) = if self.below(2) == 0 {
            Self::PAIRS[self.below(Self::PAIRS.len())]
        } else {
            ("", "")
        };
        let mut sql = Self::HEADS[self.below(Self::HEADS.len())].to_owned();
        self.atoms(&mut sql);
        sql.push_str(open);
        self.atoms(&mut sql);
        sql.push_str(Self::PAYLOADS[self.below(Self::PAYLOADS.len())]);
        self.atoms(&mut sql);
        sql.push_str(close);
        self.atoms(&mut sql);
        sql
    }
}

/// Whatever the guard lets through of [`Generator`]'s texts runs where its
/// setting applies and must leave `orders`, the tables and the sequence as they were. Seeded, so a failure
/// repeats; `HOOKS_SQL_FUZZ_CASES` and `HOOKS_SQL_FUZZ_SEED` run more, or others.
#[tokio::test(flavor = "current_thread")]
async fn generated_texts_hide_no_write() {
    let env = |name: &str| std::env::var(name).ok().and_then(|n| n.parse().ok());
    let cases: u64 = env("HOOKS_SQL_FUZZ_CASES").unwrap_or(3_000);
    let mut generator = Generator::new(env("HOOKS_SQL_FUZZ_SEED").unwrap_or(0x5EED_CAFE_F00D_0001));
    let server = Postgres::start();
    fixture_database(&server, "shop").await;
    let pg = session(&server, "shop").await;
    let sqlite_dir = TempDir::new("fuzz");
    let sqlite = Sqlite::fixture(&sqlite_dir);
    let orders_pg = "SELECT md5(string_agg(o::text, ',' ORDER BY id)) \
                     || (SELECT count(*) FROM pg_class) \
                     || (SELECT last_value || ' ' || is_called FROM order_ids) FROM orders o";
    let pg_orders = text(&pg.connection, orders_pg).await.unwrap();
    let sqlite_orders = |sqlite: &Sqlite| -> String {
        sqlite
            .connection
            .query_row(
                "SELECT group_concat(id || ':' || paid, ',') \
                 || (SELECT count(*) FROM sqlite_schema) FROM orders",
                [],
                |row| row.get(0),
            )
            .unwrap_or_default()
    };
    let sqlite_baseline = sqlite_orders(&sqlite);
    let guards: Vec<(Option<&str>, ReadOnlyGuard)> =
        [None, Some("postgres"), Some("sqlite"), Some("generic")]
            .into_iter()
            .map(|setting| (setting, guard(setting)))
            .collect();

    let mut failures = Vec::new();
    // What the guard let through in each setting, and of that, what ran
    // without an error on PostgreSQL and on SQLite: none would make the
    // test vacuous (a guard that denies everything passes it).
    let mut allowed = vec![0_usize; guards.len()];
    let (mut ran_on_pg, mut ran_on_sqlite) = (0_usize, 0_usize);
    for _ in 0..cases {
        let sql = generator.text();
        for (index, (setting, guard)) in guards.iter().enumerate() {
            if judge(guard, &sql).is_err() {
                continue;
            }
            allowed[index] += 1;
            let runs_on = databases(*setting);
            if runs_on.contains(&Database::Postgres) {
                ran_on_pg += usize::from(pg_run(&pg, &sql).await.is_ok());
                let _ = pg.connection.client.batch_execute("ROLLBACK").await;
                if text(&pg.connection, orders_pg).await.unwrap() != pg_orders {
                    failures.push(format!(
                        "{sql:?} (allowed as {setting:?}) wrote on PostgreSQL"
                    ));
                    let restore = format!("DELETE FROM orders; {ORDER_ROWS}");
                    pg.connection.client.batch_execute(&restore).await.unwrap();
                }
            }
            if runs_on.contains(&Database::Sqlite) {
                ran_on_sqlite += usize::from(sqlite.run(&sql).is_ok());
                let _ = sqlite.run("ROLLBACK");
                if sqlite_orders(&sqlite) != sqlite_baseline {
                    failures.push(format!("{sql:?} (allowed as {setting:?}) wrote on SQLite"));
                    sqlite
                        .run(&format!("DELETE FROM orders; {ORDER_ROWS}"))
                        .unwrap();
                }
            }
        }
    }
    println!(
        "{cases} generated texts; let through in each setting (none, postgres, sqlite, generic): \
         {allowed:?}, all harmless; of those, {ran_on_pg} ran on PostgreSQL and \
         {ran_on_sqlite} on SQLite without an error"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for ((setting, _), allowed) in guards.iter().zip(&allowed) {
        assert!(
            *allowed > 0,
            "the guard set to {setting:?} let none of {cases} texts through: nothing was tested"
        );
    }
    assert!(
        ran_on_pg > 0 && ran_on_sqlite > 0,
        "no text the guard let through ran on PostgreSQL ({ran_on_pg}) or SQLite \
         ({ran_on_sqlite}): no read was compared with the data"
    );
}
