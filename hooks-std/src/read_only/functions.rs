//! The functions a read-only statement may call, per dialect.
//!
//! A function is trusted only if it is listed here (or in `allowed_functions`)
//! for the dialect the statement is judged in. The lists hold pure functions:
//! none runs SQL text (`query_to_xml`, `dblink`), touches files
//! (`pg_read_file`, `lo_import`, `load_file`, `writefile`), sessions or the
//! server (`set_config`, `pg_terminate_backend`, `setseed`), takes locks
//! (`pg_advisory_lock`, `get_lock`), advances sequences (`nextval`, `setval`)
//! or waits (`pg_sleep`, `sleep`, `benchmark`). A name nobody listed is refused.

use std::collections::{BTreeMap, BTreeSet};

use super::dialect::Dialect;
use crate::config::ConfigError;

/// Standard SQL functions, in every dialect.
const EVERYWHERE: &[&str] = &[
    "abs",
    "ascii",
    "avg",
    "ceil",
    "ceiling",
    "char_length",
    "character_length",
    "coalesce",
    "concat",
    "concat_ws",
    "count",
    "cume_dist",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "dense_rank",
    "exp",
    "first_value",
    "floor",
    "greatest",
    "lag",
    "last_value",
    "lead",
    "least",
    "left",
    "length",
    "ln",
    "localtime",
    "localtimestamp",
    "log",
    "log10",
    "lower",
    "lpad",
    "ltrim",
    "max",
    "min",
    "mod",
    "now",
    "nth_value",
    "ntile",
    "nullif",
    "octet_length",
    "percent_rank",
    "pi",
    "position",
    "power",
    "rank",
    "repeat",
    "replace",
    "reverse",
    "right",
    "round",
    "row_number",
    "rpad",
    "rtrim",
    "session_user",
    "sign",
    "sqrt",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "substr",
    "substring",
    "sum",
    "trim",
    "upper",
    "var_pop",
    "var_samp",
    "variance",
];

const POSTGRES: &[&str] = &[
    "age",
    "array",
    "array_agg",
    "array_append",
    "array_cat",
    "array_dims",
    "array_length",
    "array_lower",
    "array_position",
    "array_positions",
    "array_prepend",
    "array_remove",
    "array_replace",
    "array_to_json",
    "array_to_string",
    "array_upper",
    "bit_and",
    "bit_length",
    "bit_or",
    "bool_and",
    "bool_or",
    "btrim",
    "cardinality",
    "cbrt",
    "chr",
    "clock_timestamp",
    "corr",
    "covar_pop",
    "covar_samp",
    "date_bin",
    "date_part",
    "date_trunc",
    "decode",
    "degrees",
    "div",
    "encode",
    "every",
    "factorial",
    "format",
    "gcd",
    "gen_random_uuid",
    "generate_series",
    "generate_subscripts",
    "initcap",
    "isfinite",
    "json_agg",
    "json_array_elements",
    "json_array_elements_text",
    "json_array_length",
    "json_build_array",
    "json_build_object",
    "json_each",
    "json_each_text",
    "json_extract_path",
    "json_extract_path_text",
    "json_object_agg",
    "json_object_keys",
    "json_strip_nulls",
    "json_typeof",
    "jsonb_agg",
    "jsonb_array_elements",
    "jsonb_array_elements_text",
    "jsonb_array_length",
    "jsonb_build_array",
    "jsonb_build_object",
    "jsonb_each",
    "jsonb_each_text",
    "jsonb_extract_path",
    "jsonb_extract_path_text",
    "jsonb_insert",
    "jsonb_object_agg",
    "jsonb_object_keys",
    "jsonb_path_exists",
    "jsonb_path_query",
    "jsonb_path_query_array",
    "jsonb_path_query_first",
    "jsonb_pretty",
    "jsonb_set",
    "jsonb_strip_nulls",
    "jsonb_typeof",
    "justify_days",
    "justify_hours",
    "justify_interval",
    "lcm",
    "make_date",
    "make_interval",
    "make_time",
    "make_timestamp",
    "make_timestamptz",
    "md5",
    "mode",
    "num_nonnulls",
    "num_nulls",
    "percentile_cont",
    "percentile_disc",
    "pg_typeof",
    "quote_ident",
    "quote_literal",
    "quote_nullable",
    "radians",
    "random",
    "regexp_count",
    "regexp_instr",
    "regexp_like",
    "regexp_match",
    "regexp_matches",
    "regexp_replace",
    "regexp_split_to_array",
    "regexp_split_to_table",
    "regexp_substr",
    "regr_avgx",
    "regr_avgy",
    "regr_count",
    "regr_intercept",
    "regr_r2",
    "regr_slope",
    "row",
    "row_to_json",
    "sha256",
    "sha512",
    "split_part",
    "starts_with",
    "statement_timestamp",
    "string_agg",
    "string_to_array",
    "strpos",
    "timezone",
    "to_char",
    "to_date",
    "to_hex",
    "to_json",
    "to_jsonb",
    "to_number",
    "to_timestamp",
    "transaction_timestamp",
    "translate",
    "trunc",
    "unnest",
    "width_bucket",
    // What the server and its catalogs say: sizes, settings, definitions.
    "col_description",
    "current_database",
    "current_schema",
    "current_schemas",
    "current_setting",
    "format_type",
    "has_schema_privilege",
    "has_table_privilege",
    "obj_description",
    "pg_column_size",
    "pg_database_size",
    "pg_get_constraintdef",
    "pg_get_indexdef",
    "pg_get_viewdef",
    "pg_indexes_size",
    "pg_is_in_recovery",
    "pg_postmaster_start_time",
    "pg_relation_size",
    "pg_size_pretty",
    "pg_table_size",
    "pg_total_relation_size",
    "to_regclass",
    "version",
];

const MYSQL: &[&str] = &[
    "adddate",
    "bin",
    "bit_and",
    "bit_count",
    "bit_or",
    "bit_xor",
    "char",
    "conv",
    "convert_tz",
    "crc32",
    "curdate",
    "curtime",
    "database",
    "date",
    "date_add",
    "date_format",
    "date_sub",
    "datediff",
    "day",
    "dayname",
    "dayofmonth",
    "dayofweek",
    "dayofyear",
    "elt",
    "field",
    "find_in_set",
    "format",
    "from_days",
    "from_unixtime",
    "group_concat",
    "hex",
    "hour",
    "if",
    "ifnull",
    "instr",
    "json_array",
    "json_arrayagg",
    "json_contains",
    "json_contains_path",
    "json_extract",
    "json_keys",
    "json_length",
    "json_object",
    "json_objectagg",
    "json_quote",
    "json_search",
    "json_type",
    "json_unquote",
    "json_valid",
    "last_day",
    "lcase",
    "locate",
    "makedate",
    "maketime",
    "md5",
    "mid",
    "minute",
    "month",
    "monthname",
    "oct",
    "ord",
    "period_add",
    "period_diff",
    "quarter",
    "rand",
    "regexp_instr",
    "regexp_like",
    "regexp_replace",
    "regexp_substr",
    "sec_to_time",
    "second",
    "sha1",
    "sha2",
    "soundex",
    "space",
    "std",
    "str_to_date",
    "strcmp",
    "subdate",
    "substring_index",
    "sysdate",
    "time",
    "time_format",
    "time_to_sec",
    "timediff",
    "timestamp",
    "timestampadd",
    "timestampdiff",
    "to_days",
    "truncate",
    "ucase",
    "unhex",
    "unix_timestamp",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "uuid",
    "week",
    "weekday",
    "weekofyear",
    "year",
    "yearweek",
];

const SQLITE: &[&str] = &[
    "char",
    "date",
    "datetime",
    "format",
    "glob",
    "group_concat",
    "hex",
    "iif",
    "ifnull",
    "instr",
    "json",
    "json_array",
    "json_array_length",
    "json_each",
    "json_error_position",
    "json_extract",
    "json_group_array",
    "json_group_object",
    "json_insert",
    "json_object",
    "json_patch",
    "json_quote",
    "json_remove",
    "json_replace",
    "json_set",
    "json_tree",
    "json_type",
    "json_valid",
    "julianday",
    "like",
    "likelihood",
    "likely",
    "printf",
    "quote",
    "random",
    "randomblob",
    "sqlite_version",
    "strftime",
    "string_agg",
    "time",
    "timediff",
    "total",
    "typeof",
    "unhex",
    "unicode",
    "unixepoch",
    "unlikely",
];

const MSSQL: &[&str] = &[
    "charindex",
    "checksum",
    "choose",
    "count_big",
    "datalength",
    "dateadd",
    "datediff",
    "datefromparts",
    "datename",
    "datepart",
    "datetrunc",
    "day",
    "eomonth",
    "format",
    "getdate",
    "getutcdate",
    "iif",
    "isjson",
    "isnull",
    "isnumeric",
    "json_query",
    "json_value",
    "len",
    "month",
    "newid",
    "patindex",
    "quotename",
    "replicate",
    "soundex",
    "space",
    "square",
    "stdev",
    "stdevp",
    "str",
    "string_agg",
    "string_split",
    "stuff",
    "sysdatetime",
    "sysdatetimeoffset",
    "sysutcdatetime",
    "translate",
    "var",
    "varp",
    "year",
];

const DUCKDB: &[&str] = &[
    "array_agg",
    "date_diff",
    "date_part",
    "date_trunc",
    "list_value",
    "regexp_matches",
    "regexp_replace",
    "string_agg",
    "strftime",
    "unnest",
];

const BIGQUERY: &[&str] = &[
    "array_agg",
    "date_diff",
    "date_trunc",
    "format_date",
    "ifnull",
    "regexp_contains",
    "regexp_extract",
    "regexp_replace",
    "safe_divide",
    "string_agg",
    "timestamp_trunc",
    "unnest",
];

const SNOWFLAKE: &[&str] = &[
    "array_agg",
    "dateadd",
    "datediff",
    "date_trunc",
    "iff",
    "ifnull",
    "listagg",
    "nvl",
    "object_construct",
    "parse_json",
    "regexp_replace",
    "split_part",
    "to_char",
    "to_date",
];

const REDSHIFT: &[&str] = &[
    "convert_timezone",
    "dateadd",
    "datediff",
    "date_trunc",
    "getdate",
    "listagg",
    "nvl",
    "regexp_replace",
    "split_part",
    "to_char",
    "to_date",
];

fn listed(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::Generic | Dialect::Ansi => &[],
        Dialect::Postgres => POSTGRES,
        Dialect::MySql => MYSQL,
        Dialect::Sqlite => SQLITE,
        Dialect::MsSql => MSSQL,
        Dialect::DuckDb => DUCKDB,
        Dialect::BigQuery => BIGQUERY,
        Dialect::Snowflake => SNOWFLAKE,
        Dialect::Redshift => REDSHIFT,
    }
}

/// The key of `allowed_functions` that adds to every dialect's list.
const EVERY_DIALECT: &str = "*";

/// The functions each dialect may call: the built-in lists plus configuration.
#[derive(Debug)]
pub(crate) struct AllowedFunctions {
    added: BTreeMap<Dialect, BTreeSet<String>>,
    everywhere: BTreeSet<String>,
}

impl AllowedFunctions {
    /// Checks `allowed_functions`: keys are dialect names or `*`, values are
    /// function names (`name` or `schema.name`), matched without regard to case.
    pub(crate) fn new(configured: &BTreeMap<String, Vec<String>>) -> Result<Self, ConfigError> {
        let mut allowed = AllowedFunctions {
            added: BTreeMap::new(),
            everywhere: BTreeSet::new(),
        };
        for (key, names) in configured {
            let set = if key == EVERY_DIALECT {
                &mut allowed.everywhere
            } else {
                let dialect = Dialect::named(key).ok_or_else(|| {
                    ConfigError::new(
                        "read-only",
                        format!(
                            "`allowed_functions`: unknown dialect \"{key}\" (known: {}, or \"*\" for all)",
                            Dialect::names()
                        ),
                    )
                })?;
                allowed.added.entry(dialect).or_default()
            };
            for name in names {
                if !is_function_name(name) {
                    return Err(ConfigError::new(
                        "read-only",
                        format!(
                            "`allowed_functions.{key}`: {name:?} is not a function name \
                             (write `name` or `schema.name`, unquoted)"
                        ),
                    ));
                }
                set.insert(name.to_ascii_lowercase());
            }
        }
        Ok(allowed)
    }

    /// Whether `name` only reads in one of `dialects`: text judged in
    /// several dialects at once (no dialect configured) runs on one of
    /// their databases, where a function of another is no built-in at all
    /// (calling it fails).
    pub(crate) fn allows_in_any(&self, dialects: &[Dialect], name: &str) -> bool {
        dialects.iter().any(|&dialect| self.allows(dialect, name))
    }

    /// Whether `name` (lowercase, parts joined by `.`) only reads in `dialect`.
    pub(crate) fn allows(&self, dialect: Dialect, name: &str) -> bool {
        let built_in = |name: &str| EVERYWHERE.contains(&name) || listed(dialect).contains(&name);
        // Only superusers create functions in `pg_catalog`: its built-ins are the listed ones.
        let built_in = built_in(name)
            || (dialect == Dialect::Postgres
                && name.strip_prefix("pg_catalog.").is_some_and(built_in));
        built_in
            || self.everywhere.contains(name)
            || self
                .added
                .get(&dialect)
                .is_some_and(|set| set.contains(name))
    }
}

fn is_function_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{AllowedFunctions, Dialect, EVERYWHERE, listed};

    #[test]
    fn nothing_that_writes_is_listed() {
        let refused = [
            "nextval",
            "setval",
            "dblink",
            "dblink_exec",
            "lo_import",
            "lo_export",
            "lo_unlink",
            "lo_create",
            "pg_read_file",
            "pg_ls_dir",
            "set_config",
            "setseed",
            "pg_advisory_lock",
            "pg_terminate_backend",
            "pg_sleep",
            "query_to_xml",
            "load_extension",
            "writefile",
            "readfile",
            "load_file",
            "sleep",
            "benchmark",
            "get_lock",
            "last_insert_id",
            "txid_current",
        ];
        let allowed = AllowedFunctions::new(&BTreeMap::new()).unwrap();
        for dialect in [
            Dialect::Generic,
            Dialect::Ansi,
            Dialect::Postgres,
            Dialect::MySql,
            Dialect::Sqlite,
            Dialect::MsSql,
            Dialect::DuckDb,
            Dialect::BigQuery,
            Dialect::Snowflake,
            Dialect::Redshift,
        ] {
            for name in refused {
                assert!(!allowed.allows(dialect, name), "{dialect}: {name}");
            }
            for name in EVERYWHERE.iter().chain(listed(dialect)) {
                assert_eq!(name.to_ascii_lowercase(), *name, "lists are lowercase");
            }
        }
        assert!(allowed.allows(Dialect::Postgres, "pg_catalog.lower"));
        assert!(!allowed.allows(Dialect::Postgres, "public.lower"));
        assert!(!allowed.allows(Dialect::MySql, "pg_catalog.lower"));
    }

    #[test]
    fn configuration_adds_per_dialect_and_everywhere() {
        let configured = BTreeMap::from([
            ("postgres".to_owned(), vec!["Similarity".to_owned()]),
            ("*".to_owned(), vec!["reports.monthly_total".to_owned()]),
        ]);
        let allowed = AllowedFunctions::new(&configured).unwrap();
        assert!(allowed.allows(Dialect::Postgres, "similarity"));
        assert!(!allowed.allows(Dialect::MySql, "similarity"));
        assert!(allowed.allows(Dialect::Sqlite, "reports.monthly_total"));

        let bad_dialect = BTreeMap::from([("oracle".to_owned(), vec!["f".to_owned()])]);
        let error = AllowedFunctions::new(&bad_dialect).unwrap_err().to_string();
        assert!(
            error.contains("`allowed_functions`: unknown dialect \"oracle\""),
            "{error}"
        );
        let bad_name = BTreeMap::from([("mysql".to_owned(), vec!["\"f\"".to_owned()])]);
        let error = AllowedFunctions::new(&bad_name).unwrap_err().to_string();
        assert!(
            error.contains(r#"`allowed_functions.mysql`: "\"f\"" is not"#),
            "{error}"
        );
    }
}
