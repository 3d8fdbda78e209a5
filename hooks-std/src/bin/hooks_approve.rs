//! `hooks-approve`: answers approval requests from another terminal or process.
//!
//! ```text
//! hooks-approve [--db PATH] list                          pending requests
//! hooks-approve [--db PATH] show ID                       one request, as JSON
//! hooks-approve [--db PATH] approve ID [--always] [--by NAME]
//! hooks-approve [--db PATH] deny ID --reason TEXT [--by NAME]
//! ```
//!
//! The database is `--db`, else `$HOOKS_APPROVALS_DB`, else `hooks-approvals.sqlite3`.
//! `--by` defaults to `$USER`. Exit status: 0 done, 1 refused (no such
//! request, already answered, store error), 2 bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use hooks_std::approval::store::Answering;
use hooks_std::approval::{Approvals, Database, Scope, Status, printable};

const USAGE: &str = "usage: hooks-approve [--db PATH] list
       hooks-approve [--db PATH] show ID
       hooks-approve [--db PATH] approve ID [--always] [--by NAME]
       hooks-approve [--db PATH] deny ID --reason TEXT [--by NAME]";

/// A parsed command line.
struct Invocation {
    database: PathBuf,
    command: Command,
}

enum Command {
    List,
    Show(i64),
    Approve { id: i64, always: bool, by: String },
    Deny { id: i64, reason: String, by: String },
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
    let mut by = std::env::var("USER").unwrap_or_else(|_| "hooks-approve".to_owned());
    let mut reason = None;
    let mut always = false;
    let mut words = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match arg.as_str() {
            "--db" => database = PathBuf::from(value("--db")?),
            "--by" => by = value("--by")?,
            "--reason" => reason = Some(value("--reason")?),
            "--always" => always = true,
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
        Some(_) => {
            return Err(format!(
                "unknown command or wrong arguments: `{}`",
                words.join(" ")
            ));
        }
        None => return Err("no command".to_owned()),
    };
    Ok(Invocation { database, command })
}

fn run(invocation: Invocation) -> Result<(), String> {
    let store = Database::open(&invocation.database, Approvals::default().busy_timeout)
        .map_err(|error| error.to_string())?;
    match invocation.command {
        Command::List => {
            let pending = store
                .list(Status::Pending)
                .map_err(|error| error.to_string())?;
            if pending.is_empty() {
                println!("no pending requests in {}", store.path().display());
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
                .map_err(|error| error.to_string())?
                .ok_or_else(|| format!("no request #{id}"))?;
            let json = serde_json::to_string_pretty(&request).map_err(|error| error.to_string())?;
            // JSON escapes control characters but not bidirectional ones.
            println!("{}", printable(&json, true));
        }
        Command::Approve { id, always, by } => {
            let scope = if always { Scope::Session } else { Scope::Once };
            answer(&store, id, true, scope, &by, None)?;
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
            answer(&store, id, false, Scope::Once, &by, Some(&reason))?;
            println!("#{id} denied by {by}: {reason}");
        }
    }
    Ok(())
}

fn answer(
    store: &Database,
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
        .answer(id, &answering)
        .map_err(|error| error.to_string())?
    {
        return Ok(());
    }
    match store.get(id).map_err(|error| error.to_string())? {
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
