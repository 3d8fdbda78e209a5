//! The SQL dialects a statement can be judged in.

use std::fmt;

use sqlparser::dialect::{
    AnsiDialect, BigQueryDialect, DuckDbDialect, GenericDialect, MsSqlDialect, MySqlDialect,
    PostgreSqlDialect, RedshiftSqlDialect, SQLiteDialect, SnowflakeDialect,
};

/// A dialect: how SQL text is split into words, strings and comments, and
/// which functions are known to only read there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Dialect {
    Generic,
    Ansi,
    Postgres,
    MySql,
    Sqlite,
    MsSql,
    DuckDb,
    BigQuery,
    Snowflake,
    Redshift,
}

impl Dialect {
    /// Every dialect, by the name configuration uses.
    const NAMED: [(&'static str, Dialect); 12] = [
        ("generic", Dialect::Generic),
        ("ansi", Dialect::Ansi),
        ("postgres", Dialect::Postgres),
        ("postgresql", Dialect::Postgres),
        ("mysql", Dialect::MySql),
        ("sqlite", Dialect::Sqlite),
        ("mssql", Dialect::MsSql),
        ("duckdb", Dialect::DuckDb),
        ("bigquery", Dialect::BigQuery),
        ("snowflake", Dialect::Snowflake),
        ("redshift", Dialect::Redshift),
        ("sqlserver", Dialect::MsSql),
    ];

    /// The dialects judged when a tool's dialect is not configured: text
    /// passes only if each of them parses it and finds that it only reads, so
    /// a quoting or comment rule one database has and another lacks cannot
    /// hide a statement.
    pub(crate) const COMMON: [Dialect; 5] = [
        Dialect::Generic,
        Dialect::Postgres,
        Dialect::MySql,
        Dialect::Sqlite,
        Dialect::MsSql,
    ];

    /// The dialect with this name (`postgres`, `mysql`, ...), in any case.
    pub(crate) fn named(name: &str) -> Option<Dialect> {
        Self::NAMED
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
            .map(|&(_, dialect)| dialect)
    }

    /// The names configuration accepts, for error messages.
    pub(crate) fn names() -> String {
        let names: Vec<&str> = Self::NAMED.iter().map(|&(name, _)| name).collect();
        names.join(", ")
    }

    pub(crate) fn name(self) -> &'static str {
        Self::NAMED
            .iter()
            .find(|&&(_, dialect)| dialect == self)
            .map_or("generic", |&(name, _)| name)
    }

    /// Whether the dialect's databases quote strings with `$tag$ ... $tag$`.
    pub(crate) fn has_dollar_quotes(self) -> bool {
        matches!(
            self,
            Dialect::Postgres | Dialect::Redshift | Dialect::DuckDb | Dialect::Snowflake
        )
    }

    /// sqlparser's rules for this dialect.
    pub(crate) fn rules(self) -> &'static dyn sqlparser::dialect::Dialect {
        static GENERIC: GenericDialect = GenericDialect;
        static ANSI: AnsiDialect = AnsiDialect {};
        static POSTGRES: PostgreSqlDialect = PostgreSqlDialect {};
        static MYSQL: MySqlDialect = MySqlDialect {};
        static SQLITE: SQLiteDialect = SQLiteDialect {};
        static MSSQL: MsSqlDialect = MsSqlDialect {};
        static DUCKDB: DuckDbDialect = DuckDbDialect;
        static BIGQUERY: BigQueryDialect = BigQueryDialect;
        static SNOWFLAKE: SnowflakeDialect = SnowflakeDialect;
        static REDSHIFT: RedshiftSqlDialect = RedshiftSqlDialect {};
        match self {
            Dialect::Generic => &GENERIC,
            Dialect::Ansi => &ANSI,
            Dialect::Postgres => &POSTGRES,
            Dialect::MySql => &MYSQL,
            Dialect::Sqlite => &SQLITE,
            Dialect::MsSql => &MSSQL,
            Dialect::DuckDb => &DUCKDB,
            Dialect::BigQuery => &BIGQUERY,
            Dialect::Snowflake => &SNOWFLAKE,
            Dialect::Redshift => &REDSHIFT,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect;

    #[test]
    fn names_round_trip_in_any_case() {
        for (name, dialect) in Dialect::NAMED {
            assert_eq!(Dialect::named(name), Some(dialect));
            assert_eq!(Dialect::named(&name.to_uppercase()), Some(dialect));
            assert_eq!(Dialect::named(dialect.name()), Some(dialect));
        }
        assert_eq!(Dialect::named("oracle"), None);
        assert_eq!(Dialect::Postgres.name(), "postgres");
    }
}
