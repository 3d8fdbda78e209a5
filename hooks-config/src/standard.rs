//! The standard hooks' tables: `[read_only]`, `[truncate]`, `[rate_limit]`,
//! `[audit_log]`, `[approval]` and `[cedar]`. Each configures its hook for the dispatcher
//! the file is applied to, and no other.
//!
//! A table needs its hook compiled into the program: hooks-config forces no
//! hooks-std feature, so a program turns on the ones it wants (hooks-config's
//! features of the same names turn on hooks-std's). A table for a hook the
//! program was built without is refused at load, naming the feature, rather
//! than read and silently ignored.

use std::path::{Path, PathBuf};

use hooks_core::HooksBuilder;
use serde::Deserialize;

use crate::{LoadError, Problems};

/// A table type, or [`Absent`] when its hook is not compiled in.
macro_rules! table_type {
    ($feature:literal, $alias:ident, $ty:ty) => {
        #[cfg(feature = $feature)]
        pub(crate) type $alias = $ty;
        #[cfg(not(feature = $feature))]
        pub(crate) type $alias = Absent;
    };
}

table_type!("read-only", ReadOnlyTable, hooks_std::read_only::ReadOnly);
table_type!("truncate", TruncateTable, hooks_std::truncate::Truncate);
table_type!(
    "rate-limit",
    RateLimitTable,
    hooks_std::rate_limit::RateLimit
);
table_type!("audit-log", AuditTable, hooks_std::audit::Audit);
table_type!("approval", ApprovalTable, hooks_std::approval::Approvals);
table_type!("cedar", CedarTable, hooks_std::cedar::Cedar);

/// A table for a hook this program was built without: read whole, then refused.
#[derive(Deserialize)]
#[allow(dead_code)] // read to be refused, never used
pub(crate) struct Absent(serde::de::IgnoredAny);

/// The standard hooks' tables, with the line each starts on.
#[derive(Default)]
pub(crate) struct StdSettings {
    pub(crate) read_only: Option<(u32, ReadOnlyTable)>,
    pub(crate) truncate: Option<(u32, TruncateTable)>,
    pub(crate) rate_limit: Option<(u32, RateLimitTable)>,
    pub(crate) audit_log: Option<(u32, AuditTable)>,
    pub(crate) approval: Option<(u32, ApprovalTable)>,
    pub(crate) cedar: Option<(u32, CedarTable)>,
    /// `approval_channel = "terminal"`, and its line.
    pub(crate) terminal_approvals: Option<u32>,
    /// `[approval_webhook]`: the channel announcing new requests, and its line.
    #[cfg(all(feature = "approval", feature = "http"))]
    pub(crate) webhook: Option<(u32, crate::webhook::WebhookChannel)>,
    /// `[redact]`: the dispatcher's redactor.
    pub(crate) redact: Option<crate::redact::RedactSettings>,
    /// Where the stores of tables that name no file live, when the program
    /// says (a hook binary, a new process per call): see `Config::state_dir`.
    pub(crate) state_dir: Option<PathBuf>,
}

impl StdSettings {
    /// Refuses the tables of hooks this program was built without.
    pub(crate) fn check(&self, file: &str, problems: &mut Problems) {
        self.check_against(file, problems, compiled_in);
    }

    fn check_against(&self, file: &str, problems: &mut Problems, compiled_in: fn(&str) -> bool) {
        let tables = [
            (
                "read_only",
                "read-only",
                self.read_only.as_ref().map(|t| t.0),
            ),
            ("truncate", "truncate", self.truncate.as_ref().map(|t| t.0)),
            (
                "rate_limit",
                "rate-limit",
                self.rate_limit.as_ref().map(|t| t.0),
            ),
            (
                "audit_log",
                "audit-log",
                self.audit_log.as_ref().map(|t| t.0),
            ),
            ("approval", "approval", self.approval.as_ref().map(|t| t.0)),
            ("cedar", "cedar", self.cedar.as_ref().map(|t| t.0)),
            ("redact", "redact", self.redact.as_ref().map(|t| t.line)),
        ];
        #[cfg(all(feature = "approval", feature = "http"))]
        if let Some((line, _)) = &self.webhook {
            if self.approval.is_none() {
                problems.push(
                    file,
                    *line,
                    None,
                    "`[approval_webhook]` is set, but there is no `[approval]` table for it to announce",
                );
            }
            if self.terminal_approvals.is_some() {
                problems.push(
                    file,
                    *line,
                    None,
                    "`[approval_webhook]` and `approval_channel = \"terminal\"`: choose one channel",
                );
            }
        }
        if let (Some(line), None) = (self.terminal_approvals, &self.approval) {
            problems.push(
                file,
                line,
                None,
                "`approval_channel` is set, but there is no `[approval]` table for it to answer",
            );
        }
        for (table, feature, line) in tables {
            if let Some(line) = line
                && !compiled_in(feature)
            {
                problems.push(
                    file,
                    line,
                    None,
                    format!(
                        "`[{table}]` configures a standard hook this program is built without: \
                         turn on the `{feature}` feature of hooks-config (it turns on hooks-std's)"
                    ),
                );
            }
        }
    }

    /// Builds every table's state and opens every store, or changes nothing:
    /// the pure checks first, then the files, and a file this created is
    /// removed again if anything after it fails.
    #[cfg_attr(
        not(any(
            feature = "read-only",
            feature = "truncate",
            feature = "rate-limit",
            feature = "audit-log",
            feature = "approval",
            feature = "cedar"
        )),
        allow(clippy::unnecessary_wraps, clippy::unused_self, unused_variables)
    )]
    // Each store is pushed to only by the hooks built in.
    #[cfg_attr(
        not(all(
            feature = "read-only",
            feature = "truncate",
            feature = "rate-limit",
            feature = "audit-log",
            feature = "approval"
        )),
        allow(unused_mut)
    )]
    // Every table in order, its checks then its files: one place to see that
    // nothing is opened until everything checked out.
    #[allow(clippy::too_many_lines)]
    pub(crate) fn prepare(self, file: &str) -> Result<Prepared, LoadError> {
        let mut problems = Problems::default();
        let mut prepared = Prepared::default();
        #[cfg(feature = "read-only")]
        if let Some((line, table)) = self.read_only {
            match hooks_std::read_only::ReadOnlyGuard::new(table) {
                Ok(guard) => prepared.step(move |builder| builder.state(guard)),
                Err(error) => problems.push(file, line, None, format!("[read_only]: {error}")),
            }
        }
        #[cfg(feature = "truncate")]
        if let Some((line, table)) = self.truncate {
            match hooks_std::truncate::Truncator::new(table) {
                Ok(truncator) => prepared.step(move |builder| builder.state(truncator)),
                Err(error) => problems.push(file, line, None, format!("[truncate]: {error}")),
            }
        }
        // The rules checked here, without opening a database (that is a file).
        #[cfg(feature = "rate-limit")]
        let rate_limit = match self.rate_limit {
            Some((line, mut table)) => {
                // A table counting in a shared `store` keeps to it: no default file.
                let default = self
                    .state_dir
                    .as_ref()
                    .filter(|_| table.store.is_none())
                    .map(|dir| dir.join("rate-limit.db"));
                let database = table.database.take().or(default);
                match hooks_std::rate_limit::RateLimiter::new(table.clone()) {
                    Ok(limiter) if database.is_none() => {
                        prepared.step(move |builder| builder.state(limiter));
                        None
                    }
                    Ok(_) => Some((line, hooks_std::rate_limit::RateLimit { database, ..table })),
                    Err(error) => {
                        problems.push(file, line, None, format!("[rate_limit]: {error}"));
                        None
                    }
                }
            }
            None => None,
        };
        // Files read and parsed now: a policy that does not parse names its file and line.
        #[cfg(feature = "cedar")]
        if let Some((line, table)) = self.cedar {
            let shadow = table.shadow;
            match hooks_std::cedar::CedarGuard::new(table) {
                Ok(guard) => prepared.step(move |builder| {
                    let builder = builder.state(guard);
                    if shadow {
                        builder.shadow_hooks(hooks_std::cedar::HOOKS)
                    } else {
                        builder
                    }
                }),
                Err(error) => problems.push(file, line, None, format!("[cedar]: {error}")),
            }
        }
        #[cfg(feature = "approval")]
        if let Some((line, table)) = &self.approval
            && let Err(error) = hooks_std::approval::ApprovalPolicy::new(table)
        {
            problems.push(file, *line, None, format!("[approval]: {error}"));
        }
        #[cfg(feature = "redact")]
        if let Some(redact) = self.redact {
            redact.prepare(file, &mut problems, &mut prepared);
        }
        problems.into_result()?;

        // Only now, with everything else right, the files.
        let mut problems = Problems::default();
        #[cfg_attr(
            not(any(feature = "audit-log", feature = "approval", feature = "rate-limit")),
            allow(unused_mut)
        )]
        let mut created = Created::default();
        #[cfg(feature = "rate-limit")]
        let counts_in = |dir: &Path| {
            rate_limit
                .as_ref()
                .and_then(|(_, table)| table.database.as_deref())
                .is_some_and(|database| database.starts_with(dir))
        };
        #[cfg(not(feature = "rate-limit"))]
        let counts_in = |_: &Path| false;
        if let Some(dir) = &self.state_dir
            && (self.audit_log.is_some() || counts_in(dir) || self.approval.is_some())
            && let Err(error) = std::fs::create_dir_all(dir)
        {
            problems.push(
                file,
                0,
                None,
                format!("cannot make the state directory {}: {error}", dir.display()),
            );
            return problems.into_result().map(|()| prepared);
        }
        #[cfg(feature = "audit-log")]
        if let Some((line, mut table)) = self.audit_log {
            if table.sink.is_none()
                && table.path.as_os_str().is_empty()
                && let Some(dir) = &self.state_dir
            {
                table.path = dir.join("audit.jsonl");
            }
            // A server sink (`sink = "postgres://…"`) creates no file.
            if table.sink.is_none() {
                created.watch(&table.path);
            }
            match hooks_std::audit::Auditor::from_config(table) {
                Ok(auditor) => prepared.step(move |builder| builder.state(auditor)),
                Err(error) => problems.push(file, line, None, format!("[audit_log]: {error}")),
            }
        }
        #[cfg(feature = "rate-limit")]
        if let Some((line, table)) = rate_limit
            && problems.is_empty()
        {
            if let Some(database) = &table.database {
                watch_database(&mut created, database);
            }
            match hooks_std::rate_limit::RateLimiter::new(table) {
                Ok(limiter) => prepared.step(move |builder| builder.state(limiter)),
                Err(error) => problems.push(file, line, None, format!("[rate_limit]: {error}")),
            }
        }
        #[cfg(feature = "approval")]
        if let Some((line, mut table)) = self.approval
            && problems.is_empty()
        {
            use hooks_std::approval::{ApprovalGate, CliChannel, TerminalChannel};
            if table.store.is_none()
                && table.database.as_os_str().is_empty()
                && let Some(dir) = &self.state_dir
            {
                table.database = dir.join("approvals.sqlite3");
            }
            if table.store.is_none() {
                watch_database(&mut created, &table.database);
            }
            match ApprovalGate::open(&table) {
                Ok(gate) => {
                    #[cfg(feature = "http")]
                    let webhook = self.webhook.map(|(_, webhook)| webhook);
                    // Refused at load without the HTTP client.
                    #[cfg(not(feature = "http"))]
                    let webhook: Option<CliChannel> = None;
                    let gate = if let Some(webhook) = webhook {
                        gate.channel(webhook)
                    } else if self.terminal_approvals.is_some() {
                        let who = std::env::var("USER").unwrap_or_else(|_| "terminal".to_owned());
                        gate.channel(TerminalChannel::new(who))
                    } else {
                        gate.channel(CliChannel)
                    };
                    prepared
                        .step(move |builder| builder.state(gate.policy().clone()).approver(gate));
                }
                Err(error) => problems.push(file, line, None, format!("[approval]: {error}")),
            }
        }
        if !problems.is_empty() {
            created.remove();
        }
        problems.into_result().map(|()| prepared)
    }
}

/// Watches a SQLite database's files (and its journal's) for removal on failure.
#[cfg(any(feature = "rate-limit", feature = "approval"))]
fn watch_database(created: &mut Created, database: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut path = database.as_os_str().to_owned();
        path.push(suffix);
        created.watch(Path::new(&path));
    }
}

/// Whether the standard hook behind `feature` is compiled into this program.
fn compiled_in(feature: &str) -> bool {
    [
        ("read-only", cfg!(feature = "read-only")),
        ("truncate", cfg!(feature = "truncate")),
        ("rate-limit", cfg!(feature = "rate-limit")),
        ("audit-log", cfg!(feature = "audit-log")),
        ("approval", cfg!(feature = "approval")),
        ("redact", cfg!(feature = "redact")),
        ("cedar", cfg!(feature = "cedar")),
    ]
    .contains(&(feature, true))
}

type Step = Box<dyn FnOnce(HooksBuilder) -> HooksBuilder>;

/// What applying the tables does to a builder, ready to do.
#[derive(Default)]
pub(crate) struct Prepared {
    steps: Vec<Step>,
}

impl Prepared {
    #[cfg_attr(
        not(any(
            feature = "read-only",
            feature = "truncate",
            feature = "rate-limit",
            feature = "audit-log",
            feature = "approval",
            feature = "cedar"
        )),
        allow(dead_code)
    )]
    pub(crate) fn step(&mut self, step: impl FnOnce(HooksBuilder) -> HooksBuilder + 'static) {
        self.steps.push(Box::new(step));
    }

    pub(crate) fn apply(self, builder: HooksBuilder) -> HooksBuilder {
        self.steps
            .into_iter()
            .fold(builder, |builder, step| step(builder))
    }
}

/// Files that did not exist before this load: removed if the load fails.
#[derive(Default)]
struct Created(Vec<PathBuf>);

impl Created {
    #[cfg_attr(
        not(any(feature = "audit-log", feature = "approval", feature = "rate-limit")),
        allow(dead_code)
    )]
    fn watch(&mut self, path: &Path) {
        if !path.exists() {
            self.0.push(path.to_owned());
        }
    }

    fn remove(self) {
        for path in self.0 {
            if path.exists()
                && let Err(error) = std::fs::remove_file(&path)
            {
                tracing::warn!(path = %path.display(), %error, "a file made by a failed configuration load could not be removed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_for_a_hook_not_compiled_in_is_refused_naming_the_feature() {
        let text = "[truncate]\nmax_chars = 500\n\n[rate_limit]\nrules = []\n";
        let mut problems = Problems::default();
        let settings = crate::toml_file::parse(&"std.toml".into(), text, &mut problems).settings;
        assert!(problems.is_empty());
        // A program built without the rate limit: hooks-config's feature off.
        settings.check_against("std.toml", &mut problems, |feature| feature != "rate-limit");
        let error = problems.into_result().unwrap_err();
        assert_eq!(
            error.problems(),
            [
                "std.toml:4: `[rate_limit]` configures a standard hook this program is built \
                 without: turn on the `rate-limit` feature of hooks-config (it turns on hooks-std's)"
            ]
        );
    }
}
