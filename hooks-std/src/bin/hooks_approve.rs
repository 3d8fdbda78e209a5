//! `hooks-approve`: answers approval requests from another terminal or process.
//!
//! ```text
//! hooks-approve [--db PATH | --store URL] list                          pending requests
//! hooks-approve [--db PATH] show ID                       one request, as JSON
//! hooks-approve [--db PATH] approve ID [--always] [--by NAME]
//! hooks-approve [--db PATH] deny ID --reason TEXT [--by NAME]
//! hooks-approve [--db PATH] serve [--bind ADDR] [--token-file PATH | --trusted-header NAME]
//!                                 [--origin URL] [--by NAME] [--session-lifetime 8h]
//! ```
//!
//! `serve` (feature `console`) runs the approval console, a web page listing
//! pending requests with approve once / approve for the session / deny, on
//! `--bind` (`127.0.0.1:8787` by default; port 0 picks a free one). It prints
//! `console on http://ADDR/` once it listens. Callers prove themselves with a token in
//! `--token-file`, else `$HOOKS_CONSOLE_TOKEN` (as `Authorization: Bearer`, or
//! through the login form), and answer under its holder's name: each line of
//! the file is `NAME TOKEN`, or a lone `TOKEN` held by `--by` (tokens hold no
//! spaces); a token easy to guess is refused at start. Or, with
//! `--trusted-header X-Forwarded-User`, they are named by
//! the header a reverse proxy sets: anyone reaching the console directly could
//! set it too, so it is refused unless the console is bound to loopback, and
//! the proxy must overwrite the header. `--origin` names the URL people use
//! through a proxy (or under the machine's own name): the console answers only
//! to loopback names, its bound address and those, so a page under another
//! domain that resolves here (DNS rebinding) is refused. A login (and a
//! proxy user's CSRF token) lasts `--session-lifetime` (8 hours by default).
//!
//! The database is `--db`, else `$HOOKS_APPROVALS_DB` (one of them is needed:
//! a database nobody named is never made);
//! or a fleet's shared store: `--store postgres://…` (or `$HOOKS_APPROVALS_STORE`,
//! feature `postgres`), for every command, the console too.
//! `--by` defaults to `$USER`. Exit status: 0 done, 1 refused (no such
//! request, already answered, store error), 2 bad usage.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use hooks_std::approval::store::Answering;
use hooks_std::approval::{ApprovalStore, Approvals, Scope, SqliteStore, Status, printable};

const USAGE: &str = "usage: hooks-approve [--db PATH | --store postgres://...] list
       hooks-approve [--db PATH] show ID
       hooks-approve [--db PATH] approve ID [--always] [--by NAME]
       hooks-approve [--db PATH] deny ID --reason TEXT [--by NAME]
       hooks-approve [--db PATH] serve [--bind ADDR] [--token-file PATH | --trusted-header NAME] [--origin URL] [--by NAME] [--session-lifetime 8h]";

/// A parsed command line.
struct Invocation {
    database: PathBuf,
    /// A shared store (`postgres://…`) instead of the SQLite file.
    store: Option<String>,
    command: Command,
}

enum Command {
    List,
    Show(i64),
    Approve { id: i64, always: bool, by: String },
    Deny { id: i64, reason: String, by: String },
    Serve(Serve),
}

/// `serve`'s options.
#[cfg_attr(not(feature = "console"), allow(dead_code))] // read, then refused: no console
struct Serve {
    bind: String,
    token_file: Option<PathBuf>,
    trusted_header: Option<String>,
    origins: Vec<String>,
    by: String,
    session_lifetime: Option<String>,
}

fn main() -> ExitCode {
    if std::env::args().any(|arg| arg == "-h" || arg == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let invocation = match parse(std::env::args().skip(1).collect()) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("hooks-approve: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(invocation) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hooks-approve: {message}");
            ExitCode::from(1)
        }
    }
}

fn parse(args: Vec<String>) -> Result<Invocation, String> {
    // The gate's own default, so both sides find the same file.
    let mut database = Approvals::default().database;
    let mut store = std::env::var("HOOKS_APPROVALS_STORE").ok();
    let mut by = std::env::var("USER").unwrap_or_else(|_| "hooks-approve".to_owned());
    let mut reason = None;
    let mut always = false;
    let mut bind = "127.0.0.1:8787".to_owned();
    let (mut token_file, mut trusted_header, mut origins) = (None, None, Vec::new());
    let mut session_lifetime = None;
    let mut words = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match arg.as_str() {
            "--db" => database = PathBuf::from(value("--db")?),
            "--store" => store = Some(value("--store")?),
            "--by" => by = value("--by")?,
            "--reason" => reason = Some(value("--reason")?),
            "--always" => always = true,
            "--bind" => bind = value("--bind")?,
            "--token-file" => token_file = Some(PathBuf::from(value("--token-file")?)),
            "--trusted-header" => trusted_header = Some(value("--trusted-header")?),
            "--origin" => origins.push(value("--origin")?),
            "--session-lifetime" => session_lifetime = Some(value("--session-lifetime")?),
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
            _ => words.push(arg),
        }
    }
    let id = |word: &String| -> Result<i64, String> {
        word.trim_start_matches('#')
            .parse()
            .map_err(|_| format!("`{word}` is not a request ID"))
    };
    let command = match words.first().map(String::as_str) {
        Some("list") if words.len() == 1 => Command::List,
        Some("show") if words.len() == 2 => Command::Show(id(&words[1])?),
        Some("approve") if words.len() == 2 => Command::Approve {
            id: id(&words[1])?,
            always,
            by,
        },
        Some("deny") if words.len() == 2 => {
            let reason = reason.ok_or("`deny` needs `--reason TEXT`: the model reads it")?;
            Command::Deny {
                id: id(&words[1])?,
                reason,
                by,
            }
        }
        Some("serve") if words.len() == 1 => Command::Serve(Serve {
            bind,
            token_file,
            trusted_header,
            origins,
            by,
            session_lifetime,
        }),
        Some(_) => {
            return Err(format!(
                "unknown command or wrong arguments: `{}`",
                words.join(" ")
            ));
        }
        None => return Err("no command".to_owned()),
    };
    Ok(Invocation {
        database,
        store,
        command,
    })
}

fn run(invocation: Invocation) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start a runtime: {error}"))?;
    let (store, place) = open(&invocation, &runtime)?;
    let Command::Serve(options) = invocation.command else {
        return runtime.block_on(answer_from_terminal(&*store, &place, invocation.command));
    };
    serve(store, options, &runtime)
}

/// The store the invocation names: `--store` (PostgreSQL), else the SQLite file.
fn open(
    invocation: &Invocation,
    runtime: &tokio::runtime::Runtime,
) -> Result<(Arc<dyn ApprovalStore>, String), String> {
    match &invocation.store {
        Some(store) => open_shared(store, runtime),
        None if invocation.database.as_os_str().is_empty() => Err(
            "no database: give `--db PATH` (the `[approval]` table's `database`), set \
             `HOOKS_APPROVALS_DB`, or `--store URL`"
                .to_owned(),
        ),
        None => {
            let store = SqliteStore::open(&invocation.database, Approvals::default().busy_timeout)
                .map_err(|error| error.to_string())?;
            Ok((Arc::new(store), invocation.database.display().to_string()))
        }
    }
}

#[cfg(feature = "postgres")]
fn open_shared(
    store: &str,
    runtime: &tokio::runtime::Runtime,
) -> Result<(Arc<dyn ApprovalStore>, String), String> {
    let store = runtime
        .block_on(hooks_std::approval::PostgresStore::connect(store))
        .map_err(|error| error.to_string())?;
    let place = store.server().to_owned();
    Ok((Arc::new(store), place))
}

#[cfg(not(feature = "postgres"))]
fn open_shared(
    _: &str,
    _: &tokio::runtime::Runtime,
) -> Result<(Arc<dyn ApprovalStore>, String), String> {
    Err("`--store` needs hooks-approve built with the `postgres` feature".to_owned())
}

async fn answer_from_terminal(
    store: &dyn ApprovalStore,
    place: &str,
    command: Command,
) -> Result<(), String> {
    match command {
        Command::List => {
            let pending = store
                .list(Status::Pending)
                .await
                .map_err(|error| error.to_string())?;
            if pending.is_empty() {
                println!("no pending requests in {place}");
            }
            // Every stored text was written by an agent or a model: shown
            // with its control and bidirectional characters escaped, so
            // what the person reads is what is stored.
            let shown = |text: &str| printable(text, false).into_owned();
            for request in pending {
                println!(
                    "#{:<5} {:<20} session {:<12} user {:<10} since {}\n       {}",
                    request.id,
                    shown(&request.tool),
                    shown(&request.session),
                    shown(request.user.as_deref().unwrap_or("-")),
                    shown(&request.created_at),
                    printable(&request.prompt, true)
                );
            }
        }
        Command::Show(id) => {
            let request = store
                .get(id)
                .await
                .map_err(|error| error.to_string())?
                .ok_or_else(|| format!("no request #{id}"))?;
            let json = serde_json::to_string_pretty(&request).map_err(|error| error.to_string())?;
            // JSON escapes control characters but not bidirectional ones.
            println!("{}", printable(&json, true));
        }
        Command::Approve { id, always, by } => {
            let scope = if always { Scope::Session } else { Scope::Once };
            answer(store, id, true, scope, &by, None).await?;
            println!(
                "#{id} approved by {by}{}",
                if always {
                    " for the rest of the session"
                } else {
                    ""
                }
            );
        }
        Command::Deny { id, reason, by } => {
            answer(store, id, false, Scope::Once, &by, Some(&reason)).await?;
            println!("#{id} denied by {by}: {reason}");
        }
        Command::Serve(_) => unreachable!("served by `run`"),
    }
    Ok(())
}

async fn answer(
    store: &dyn ApprovalStore,
    id: i64,
    approved: bool,
    scope: Scope,
    by: &str,
    reason: Option<&str>,
) -> Result<(), String> {
    let answering = Answering {
        approved,
        scope,
        by: Some(by.to_owned()),
        reason: reason.map(ToOwned::to_owned),
    };
    if store
        .answer(id, answering)
        .await
        .map_err(|error| error.to_string())?
    {
        return Ok(());
    }
    match store.get(id).await.map_err(|error| error.to_string())? {
        None => Err(format!("no request #{id}")),
        Some(request) => Err(format!(
            "request #{id} is already {}{}",
            request.status,
            request
                .responded_by
                .map(|by| format!(" (by {by})"))
                .unwrap_or_default()
        )),
    }
}

#[cfg(not(feature = "console"))]
fn serve(_: Arc<dyn ApprovalStore>, _: Serve, _: &tokio::runtime::Runtime) -> Result<(), String> {
    Err("this hooks-approve was built without the `console` feature".to_owned())
}

#[cfg(feature = "console")]
fn serve(
    store: Arc<dyn ApprovalStore>,
    options: Serve,
    runtime: &tokio::runtime::Runtime,
) -> Result<(), String> {
    use hooks_std::approval::console::{Console, ConsoleAuth};

    let bind: std::net::SocketAddr = options
        .bind
        .parse()
        .map_err(|_| format!("`--bind {}` is not an address and port", options.bind))?;
    let auth = match (options.token_file, options.trusted_header) {
        (Some(_), Some(_)) => {
            return Err("`--token-file` and `--trusted-header`: choose one".to_owned());
        }
        (None, Some(header)) => {
            // Anyone who reaches the console could send the header themselves:
            // only a proxy on this machine may stand between people and it.
            if !bind.ip().is_loopback() {
                return Err(format!(
                    "`--trusted-header` needs a loopback `--bind` (127.0.0.1), not {bind}: \
                     anyone reaching the console directly could set `{header}`"
                ));
            }
            ConsoleAuth::trusted_header(
                header
                    .parse()
                    .map_err(|_| format!("`{header}` is not a header name"))?,
            )
        }
        (Some(file), None) => tokens(
            &std::fs::read_to_string(&file)
                .map_err(|error| format!("cannot read `{}`: {error}", file.display()))?,
            &options.by,
        )
        .map_err(|error| format!("`{}`: {error}", file.display()))?,
        (None, None) => ConsoleAuth::token(
            options.by,
            std::env::var("HOOKS_CONSOLE_TOKEN")
                .map_err(|_| {
                    "`serve` needs `--token-file PATH`, `$HOOKS_CONSOLE_TOKEN`, or `--trusted-header NAME`"
                })?
                .trim(),
        )
        .map_err(|error| format!("`$HOOKS_CONSOLE_TOKEN`: {error}"))?,
    };
    let auth = match options.session_lifetime {
        Some(text) => auth.session_lifetime(
            humantime::parse_duration(&text)
                .ok()
                .filter(|lifetime| !lifetime.is_zero())
                .ok_or_else(|| {
                    format!("`--session-lifetime {text}` is not a duration (`30m`, `8h`)")
                })?,
        ),
        None => auth,
    };
    let console = options
        .origins
        .into_iter()
        .fold(Console::new(store, auth), Console::origin);
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(bind)
            .await
            .map_err(|error| format!("cannot listen on {bind}: {error}"))?;
        let address = listener.local_addr().map_err(|error| error.to_string())?;
        println!("console on http://{address}/");
        console
            .serve(listener)
            .await
            .map_err(|error| format!("the console stopped: {error}"))
    })
}

/// The tokens in a token file: `NAME TOKEN` lines, or a lone `TOKEN` held
/// by `by`; blank lines and `#` comments skipped. Weak tokens are refused.
#[cfg(feature = "console")]
fn tokens(text: &str, by: &str) -> Result<hooks_std::approval::console::ConsoleAuth, String> {
    let mut holders = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            [token] => holders.push((by.to_owned(), token.to_owned())),
            [name, token] => holders.push((name.to_owned(), token.to_owned())),
            _ => {
                return Err(format!(
                    "line {} is not `NAME TOKEN` or `TOKEN` (tokens hold no spaces)",
                    number + 1
                ));
            }
        }
    }
    hooks_std::approval::console::ConsoleAuth::tokens(holders)
}
