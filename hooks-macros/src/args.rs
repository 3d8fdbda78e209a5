//! Parsing `#[pre_tool_use(priority = 5, matches = "sql_*", ...)]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Path, Token, UnOp};

/// Every argument, in the order the docs list them.
const KEYS: [&str; 9] = [
    "priority",
    "matches",
    "name",
    "group",
    "timeout_ms",
    "on_error",
    "observe",
    "shadow",
    "crate",
];

/// An argument's value, with the span of its key for errors about the key.
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) key: Span,
}

#[derive(Default)]
pub(crate) struct Args {
    pub(crate) priority: Option<Spanned<i32>>,
    pub(crate) matches: Option<Spanned<LitStr>>,
    pub(crate) name: Option<Spanned<LitStr>>,
    pub(crate) group: Option<Spanned<LitStr>>,
    pub(crate) timeout_ms: Option<Spanned<u64>>,
    pub(crate) on_error: Option<Spanned<OnError>>,
    /// `observe`: a flag, so only its span.
    pub(crate) observe: Option<Span>,
    /// `shadow`: a flag, so only its span.
    pub(crate) shadow: Option<Span>,
    pub(crate) krate: Option<Spanned<Path>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnError {
    Deny,
    Continue,
}

/// Parses the arguments, collecting every error rather than stopping at the first.
pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut args = Args::default();
    let mut seen: [Option<Span>; KEYS.len()] = [None; KEYS.len()];
    let parser = syn::meta::parser(|meta| {
        let ident = meta.path.get_ident();
        let key = ident.map(ToString::to_string);
        let Some((index, ident)) = ident.and_then(|ident| {
            let index = KEYS.iter().position(|known| ident == known)?;
            Some((index, ident))
        }) else {
            let suggestion = key.as_deref().and_then(suggest);
            if suggestion == Some("observe") {
                // Taken as meant, so the signature check does not add a
                // second, confusing error about the borrow.
                args.observe = Some(syn::spanned::Spanned::span(&meta.path));
            }
            errors.push(unknown(&meta, key.as_deref(), suggestion));
            return skip_value(&meta);
        };
        let key_name = KEYS[index];
        let key_span = ident.span();
        if seen[index].replace(key_span).is_some() {
            errors.push(syn::Error::new(
                key_span,
                format!("`{key_name}` is given twice; keep one"),
            ));
            return skip_value(&meta);
        }
        if key_name == "observe" || key_name == "shadow" {
            // Taken as meant even when given a value, so the signature
            // check does not add a second, confusing error.
            if key_name == "observe" {
                args.observe = Some(key_span);
            } else {
                args.shadow = Some(key_span);
            }
            if meta.input.peek(Token![=]) {
                errors.push(syn::Error::new(
                    key_span,
                    format!("`{key_name}` is a flag and takes no value: write `{key_name}`"),
                ));
                return skip_value(&meta);
            }
            return Ok(());
        }
        if !meta.input.peek(Token![=]) {
            errors.push(syn::Error::new(
                key_span,
                format!("`{key_name}` takes a value: {}", example(key_name)),
            ));
            return skip_value(&meta);
        }
        let value = meta.value()?;
        let result = match key_name {
            "priority" => parse_priority(value).map(|v| args.priority = spanned(v, key_span)),
            // An empty pattern is the pattern grammar's to explain (`"*"`).
            "matches" => {
                parse_literal(value, key_name).map(|v| args.matches = spanned(v, key_span))
            }
            "name" => parse_text(value, key_name).map(|v| args.name = spanned(v, key_span)),
            "group" => parse_text(value, key_name).map(|v| args.group = spanned(v, key_span)),
            "timeout_ms" => parse_timeout(value).map(|v| args.timeout_ms = spanned(v, key_span)),
            "on_error" => parse_on_error(value).map(|v| args.on_error = spanned(v, key_span)),
            "crate" => parse_crate(value).map(|v| args.krate = spanned(v, key_span)),
            _ => unreachable!("every key in KEYS is handled"),
        };
        if let Err(error) = result {
            errors.push(error);
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(tokens) {
        // syn's words for a missing separator, said in ours.
        errors.push(if error.to_string() == "expected `,`" {
            syn::Error::new(
                error.span(),
                "expected `,` between arguments, as in `priority = 5, matches = \"sql_*\"`",
            )
        } else {
            error
        });
    }
    args
}

#[allow(clippy::unnecessary_wraps)] // it fills `Option` fields
fn spanned<T>(value: T, key: Span) -> Option<Spanned<T>> {
    Some(Spanned { value, key })
}

/// Consumes `= <expr>` after an argument already reported, so parsing goes on.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    }
    Ok(())
}

/// The argument a misspelled key most likely meant.
fn suggest(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .map(|known| (hooks_events::pattern::edit_distance(key, known), *known))
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, known)| known)
}

fn unknown(meta: &ParseNestedMeta<'_>, key: Option<&str>, suggestion: Option<&str>) -> syn::Error {
    let shown = key.map_or_else(
        || {
            quote::ToTokens::to_token_stream(&meta.path)
                .to_string()
                .replace(' ', "")
        },
        ToOwned::to_owned,
    );
    let message = match suggestion {
        Some(known) => format!("unknown argument `{shown}`; did you mean `{known}`?"),
        None => format!(
            "unknown argument `{shown}`; expected one of: {}",
            KEYS.map(|k| format!("`{k}`")).join(", ")
        ),
    };
    syn::Error::new_spanned(&meta.path, message)
}

fn example(key: &str) -> &'static str {
    match key {
        "priority" => "`priority = 5` (lower runs earlier)",
        "matches" => "`matches = \"sql_*\"`",
        "name" => "`name = \"sql_guard\"`",
        "group" => "`group = \"db\"`",
        "timeout_ms" => "`timeout_ms = 500`",
        "on_error" => "`on_error = \"deny\"` or `on_error = \"continue\"`",
        _ => "`crate = my_crate::hooks_core`",
    }
}

fn parse_priority(input: syn::parse::ParseStream<'_>) -> syn::Result<i32> {
    let expr: Expr = input.parse()?;
    let (negative, literal) = match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => (false, int),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr: inner,
            ..
        }) => match &**inner {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => (true, int),
            _ => return Err(not_an_integer(&expr)),
        },
        // "First of all" and "last of all", spelled as users would.
        Expr::Path(path) if path_is(&path.path, "MIN") => return Ok(i32::MIN),
        Expr::Path(path) if path_is(&path.path, "MAX") => return Ok(i32::MAX),
        _ => return Err(not_an_integer(&expr)),
    };
    let magnitude: i64 = literal
        .base10_parse()
        .map_err(|_| syn::Error::new_spanned(&expr, "`priority` must fit in an `i32`"))?;
    let value = if negative { -magnitude } else { magnitude };
    i32::try_from(value)
        .map_err(|_| syn::Error::new_spanned(&expr, "`priority` must fit in an `i32`"))
}

/// Whether `path` is `i32::<name>` (or `core::i32::<name>`, `std::i32::<name>`).
fn path_is(path: &Path, name: &str) -> bool {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(segments.as_slice(), [.., ty, last] if ty == "i32" && last == name)
}

fn not_an_integer(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "`priority` takes an integer literal, like `priority = 5` or `priority = -10` (lower runs earlier), or `i32::MIN` / `i32::MAX`",
    )
}

/// A non-empty string literal.
fn parse_text(input: syn::parse::ParseStream<'_>, key: &str) -> syn::Result<LitStr> {
    let text = parse_literal(input, key)?;
    if text.value().trim().is_empty() {
        return Err(syn::Error::new_spanned(
            text,
            format!("`{key}` cannot be empty: {}", example(key)),
        ));
    }
    Ok(text)
}

fn parse_literal(input: syn::parse::ParseStream<'_>, key: &str) -> syn::Result<LitStr> {
    match input.parse::<Expr>()? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(text),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal: {}", example(key)),
        )),
    }
}

/// A path to the `hooks_core` crate. Read as an expression so a wrong value
/// (a string, say) is one error rather than a cascade.
fn parse_crate(input: syn::parse::ParseStream<'_>) -> syn::Result<Path> {
    match input.parse::<Expr>()? {
        Expr::Path(path)
            if path.qself.is_none() && path.path.segments.iter().all(|s| s.arguments.is_none()) =>
        {
            Ok(path.path)
        }
        other => Err(syn::Error::new_spanned(
            other,
            format!("`crate` takes a path: {}", example("crate")),
        )),
    }
}

fn parse_timeout(input: syn::parse::ParseStream<'_>) -> syn::Result<u64> {
    let expr: Expr = input.parse()?;
    let error = || {
        syn::Error::new_spanned(
            &expr,
            "`timeout_ms` takes a positive integer of milliseconds, like `timeout_ms = 500`",
        )
    };
    match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => match int.base10_parse::<u64>() {
            Ok(0) | Err(_) => Err(error()),
            Ok(ms) => Ok(ms),
        },
        _ => Err(error()),
    }
}

fn parse_on_error(input: syn::parse::ParseStream<'_>) -> syn::Result<OnError> {
    let expr: Expr = input.parse()?;
    match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) if text.value() == "deny" => Ok(OnError::Deny),
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) if text.value() == "continue" => Ok(OnError::Continue),
        _ => Err(syn::Error::new_spanned(
            &expr,
            "`on_error` is \"deny\" (fail closed) or \"continue\" (fail open)",
        )),
    }
}

/// Errors collected across arguments and signature, reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            None => self.0 = Some(error),
            Some(errors) => errors.combine(error),
        }
    }

    pub(crate) fn append(&mut self, other: Errors) {
        if let Some(error) = other.0 {
            self.push(error);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub(crate) fn into_result(self) -> Result<(), syn::Error> {
        self.0.map_or(Ok(()), Err)
    }
}
