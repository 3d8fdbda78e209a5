//! Walking a parsed statement: every node must be known to only read.
//!
//! The visitor sees every statement (nested ones too: a data-modifying CTE,
//! the target of `EXPLAIN`), every query and `SELECT`, every `FROM` item and
//! every expression, wherever it sits (subqueries, CTEs, set operations,
//! joins, window specifications, `ORDER BY`, `LIMIT`, `VALUES`, ...).
//! Statements and `FROM` items pass only if listed as reads; functions only
//! if on the dialect's list.

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, ForClause, ObjectName, ObjectNamePart, Query, Select, Statement,
    TableFactor, Visit, Visitor,
};

use super::dialect::Dialect;
use super::functions::AllowedFunctions;
use super::sql::Why;

/// `Ok` if every statement only reads. `scope`: the dialects whose
/// databases may run the text (a function passes if one of them lists it).
pub(crate) fn check(
    statements: &[Statement],
    dialect: Dialect,
    scope: &[Dialect],
    functions: &AllowedFunctions,
) -> Result<(), Why> {
    let mut judge = Judge {
        dialect,
        scope,
        functions,
    };
    for statement in statements {
        if let ControlFlow::Break(why) = statement.visit(&mut judge) {
            return Err(why);
        }
    }
    Ok(())
}

/// `SQLite` and `DuckDB` pragmas that only report, given a table or index name.
const PRAGMAS_OF_A_NAME: &[&str] = &[
    "foreign_key_check",
    "foreign_key_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "quick_check",
    "show",
    "storage_info",
    "table_info",
    "table_list",
    "table_xinfo",
];

/// Pragmas that only report when given nothing (with a value, many set).
const PRAGMAS_ALONE: &[&str] = &[
    "application_id",
    "collation_list",
    "compile_options",
    "data_version",
    "database_list",
    "database_size",
    "encoding",
    "foreign_key_check",
    "foreign_key_list",
    "foreign_keys",
    "freelist_count",
    "function_list",
    "integrity_check",
    "journal_mode",
    "module_list",
    "page_count",
    "page_size",
    "platform",
    "pragma_list",
    "quick_check",
    "schema_version",
    "show_tables",
    "show_tables_expanded",
    "table_list",
    "user_version",
    "version",
];

/// Whether `PRAGMA name`, `PRAGMA name(value)` only reports: a listed name,
/// unquoted, never with `=`.
fn pragma_reads(name: &ObjectName, has_value: bool, is_eq: bool) -> bool {
    let Some(ObjectNamePart::Identifier(last)) = name.0.last() else {
        return false;
    };
    let known = if has_value {
        PRAGMAS_OF_A_NAME
    } else {
        PRAGMAS_ALONE
    };
    !is_eq
        && last.quote_style.is_none()
        && name.0.len() <= 2
        && known
            .iter()
            .any(|pragma| pragma.eq_ignore_ascii_case(&last.value))
}

struct Judge<'a> {
    dialect: Dialect,
    scope: &'a [Dialect],
    functions: &'a AllowedFunctions,
}

impl Judge<'_> {
    fn function(&self, name: &ObjectName) -> ControlFlow<Why> {
        let mut parts = Vec::with_capacity(name.0.len());
        for part in &name.0 {
            match part {
                ObjectNamePart::Identifier(ident) if ident.quote_style.is_none() => {
                    parts.push(ident.value.to_ascii_lowercase());
                }
                // A quoted name (`"nextval"`, `U&"..."`, `[x]`) is matched by no
                // list: quoting is how a name slips past one.
                ObjectNamePart::Identifier(_) => return ControlFlow::Break(Why::QuotedFunction),
                ObjectNamePart::Function(_) => {
                    return ControlFlow::Break(Why::Construct(
                        "a function name computed by a function",
                    ));
                }
            }
        }
        let name = parts.join(".");
        if self.functions.allows_in_any(self.scope, &name) {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(Why::Function(name))
        }
    }
}

impl Visitor for Judge<'_> {
    type Break = Why;

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<Why> {
        match statement {
            // `EXPLAIN ANALYZE` runs its statement: that one is visited next.
            Statement::Query(_)
            | Statement::Explain { .. }
            | Statement::ExplainTable { .. }
            | Statement::ShowFunctions { .. }
            | Statement::ShowVariable { .. }
            | Statement::ShowStatus { .. }
            | Statement::ShowVariables { .. }
            | Statement::ShowCreate { .. }
            | Statement::ShowColumns { .. }
            | Statement::ShowCatalogs { .. }
            | Statement::ShowDatabases { .. }
            | Statement::ShowSchemas { .. }
            | Statement::ShowCharset(_)
            | Statement::ShowObjects(_)
            | Statement::ShowTables { .. }
            | Statement::ShowViews { .. }
            | Statement::ShowCollation { .. } => ControlFlow::Continue(()),
            Statement::Pragma { name, value, is_eq }
                if pragma_reads(name, value.is_some(), *is_eq) =>
            {
                ControlFlow::Continue(())
            }
            other => ControlFlow::Break(Why::Statement(kind(other))),
        }
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<Why> {
        if !query.locks.is_empty() {
            return ControlFlow::Break(Why::Locks);
        }
        if matches!(query.for_clause, Some(ForClause::Browse)) {
            return ControlFlow::Break(Why::Construct("`FOR BROWSE`"));
        }
        if query.settings.is_some() || query.format_clause.is_some() {
            return ControlFlow::Break(Why::Construct("`SETTINGS` or `FORMAT` clauses"));
        }
        if !query.pipe_operators.is_empty() {
            return ControlFlow::Break(Why::Construct("pipe operators (`|>`)"));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<Why> {
        if select.into.is_some() {
            return ControlFlow::Break(Why::SelectInto);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<Why> {
        for part in &relation.0 {
            match part {
                ObjectNamePart::Function(_) => {
                    return ControlFlow::Break(Why::Construct(
                        "a table name computed by a function",
                    ));
                }
                // DuckDB reads the file a quoted table name names (`FROM 'x.csv'`).
                ObjectNamePart::Identifier(ident)
                    if ident.quote_style == Some('\'')
                        || (self.dialect == Dialect::DuckDb && ident.quote_style.is_some()) =>
                {
                    return ControlFlow::Break(Why::Construct(
                        "a table named by a string, which DuckDB reads as a file",
                    ));
                }
                ObjectNamePart::Identifier(_) => {}
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<Why> {
        match factor {
            // `FROM f(...)`: a table function, judged like any function.
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => self.function(name),
            TableFactor::Table { .. }
            | TableFactor::Derived { .. }
            | TableFactor::TableFunction { .. }
            | TableFactor::NestedJoin { .. }
            | TableFactor::UNNEST { .. }
            | TableFactor::JsonTable { .. }
            | TableFactor::OpenJsonTable { .. }
            | TableFactor::XmlTable { .. }
            | TableFactor::Pivot { .. }
            | TableFactor::Unpivot { .. }
            | TableFactor::MatchRecognize { .. } => ControlFlow::Continue(()),
            _ => ControlFlow::Break(Why::Construct("this kind of `FROM` item")),
        }
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<Why> {
        match expr {
            // Method calls (`x.f()`) are functions inside a field access: visited too.
            Expr::Function(function) => self.function(&function.name),
            // `SELECT INTO t FROM x` creates a table in PostgreSQL; the parser
            // reads a column named `INTO`. A word PostgreSQL reserves is never
            // a bare column there, so one the parser took for a column is refused.
            Expr::Identifier(name) if name.quote_style.is_none() && is_reserved(&name.value) => {
                ControlFlow::Break(Why::ReservedName(name.value.to_ascii_uppercase()))
            }
            // `seq.nextval` advances a sequence in Oracle, Snowflake and MariaDB.
            Expr::CompoundIdentifier(parts)
                if parts
                    .last()
                    .is_some_and(|name| name.value.eq_ignore_ascii_case("nextval")) =>
            {
                ControlFlow::Break(Why::Construct(
                    "`sequence.nextval`, which advances a sequence",
                ))
            }
            Expr::CompoundIdentifier(parts)
                if parts
                    .first()
                    .is_some_and(|name| name.quote_style.is_none() && is_reserved(&name.value)) =>
            {
                ControlFlow::Break(Why::ReservedName(parts[0].value.to_ascii_uppercase()))
            }
            Expr::BinaryOp {
                op: BinaryOperator::Assignment,
                ..
            } => ControlFlow::Break(Why::Construct("`:=` assignments")),
            _ => ControlFlow::Continue(()),
        }
    }
}

/// PostgreSQL's reserved words, less those that are expressions by
/// themselves (`CURRENT_DATE`, `USER`, ...), which the parser keeps as names.
const RESERVED: [&str; 66] = [
    "ALL",
    "ANALYSE",
    "ANALYZE",
    "AND",
    "ANY",
    "AS",
    "ASC",
    "ASYMMETRIC",
    "BOTH",
    "CASE",
    "CAST",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "CONSTRAINT",
    "CREATE",
    "DEFAULT",
    "DEFERRABLE",
    "DESC",
    "DISTINCT",
    "DO",
    "ELSE",
    "END",
    "EXCEPT",
    "FALSE",
    "FETCH",
    "FOR",
    "FOREIGN",
    "FROM",
    "GRANT",
    "GROUP",
    "HAVING",
    "IN",
    "INITIALLY",
    "INTERSECT",
    "INTO",
    "LATERAL",
    "LEADING",
    "LIMIT",
    "NOT",
    "NULL",
    "OFFSET",
    "ON",
    "ONLY",
    "OR",
    "ORDER",
    "PLACING",
    "PRIMARY",
    "REFERENCES",
    "RETURNING",
    "SELECT",
    "SOME",
    "SYMMETRIC",
    "TABLE",
    "THEN",
    "TO",
    "TRAILING",
    "TRUE",
    "UNION",
    "UNIQUE",
    "USING",
    "VARIADIC",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
];

fn is_reserved(word: &str) -> bool {
    RESERVED
        .iter()
        .any(|reserved| reserved.eq_ignore_ascii_case(word))
}

/// What kind of statement this is, in its leading keywords (`DELETE`,
/// `CREATE TABLE`): never names or values from the statement.
fn kind(statement: &Statement) -> String {
    let text = statement.to_string();
    let keywords: Vec<&str> = text
        .split_whitespace()
        .take(2)
        .take_while(|word| {
            word.len() <= 12 && word.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        })
        .collect();
    match keywords.as_slice() {
        [] => "unknown".to_owned(),
        [first, second] if matches!(*first, "CREATE" | "DROP" | "ALTER") => {
            format!("{first} {second}")
        }
        [first, ..] => (*first).to_owned(),
    }
}
