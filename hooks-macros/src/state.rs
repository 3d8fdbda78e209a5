//! The parameters after the context: state the hook reads, `&T`, each a
//! value of its own type given to the builder. What the macro can see is
//! refused here, in words that say the fix; whether a type can be shared
//! across threads is the compiler's to check (`__private::state`).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{FnArg, GenericArgument, PatType, PathArguments, Type, TypeReference};

use crate::event::Event;
use crate::shown::shown;
use crate::signature::context_name;

/// A state parameter: its name as written and the type behind its `&`.
pub(crate) struct StateParam<'a> {
    pub(crate) arg: &'a PatType,
    pub(crate) ty: &'a Type,
}

/// Checks one parameter after the context.
pub(crate) fn param(event: Event, param: &FnArg) -> syn::Result<StateParam<'_>> {
    let FnArg::Typed(arg) = param else {
        return Err(syn::Error::new_spanned(param, "`self` can only come first"));
    };
    if let Some(inner) = optional(&arg.ty) {
        return Err(syn::Error::new_spanned(
            &arg.ty,
            format!(
                "hook state is always there: a dispatcher with this hook is not built without \
                 a `{inner}`, so take `{}: &{inner}`; for a value that may be absent, give the \
                 builder an `Option<{inner}>` and take `&Option<{inner}>`",
                shown(&arg.pat),
                inner = shown(inner),
            ),
        ));
    }
    let Type::Reference(reference) = &*arg.ty else {
        return Err(syn::Error::new_spanned(
            &arg.ty,
            format!(
                "after its context, a hook takes only state it reads, borrowed: `&{}`, \
                 given to the builder with `.state(..)`",
                shown(&arg.ty)
            ),
        ));
    };
    if let Some(mutability) = &reference.mutability {
        return Err(syn::Error::new_spanned(
            mutability,
            "hook state is shared by every call, on any thread, so it is borrowed immutably: \
             take `&T`, and put what changes behind a `Mutex` or an atomic inside it",
        ));
    }
    let elem = &*reference.elem;
    if let Some(name) = context_name(elem) {
        return Err(syn::Error::new_spanned(
            elem,
            format!(
                "a hook takes one context, first: a `#[{}]` hook takes `&mut {}`; \
                 `{name}` here would be a second",
                event.attr(),
                event.context()
            ),
        ));
    }
    if matches!(elem, Type::ImplTrait(_)) {
        return Err(syn::Error::new_spanned(
            elem,
            "a hook cannot be generic: its state is one concrete type",
        ));
    }
    if let Some(error) = unsized_state(reference) {
        return Err(error);
    }
    if let Some(lifetime) = borrowed_lifetime(elem.to_token_stream()) {
        return Err(syn::Error::new(
            lifetime,
            "hook state lives as long as the dispatcher, so its type cannot borrow: hold owned \
             values or `Arc`s (the type must be `'static`)",
        ));
    }
    Ok(StateParam { arg, ty: elem })
}

/// Two parameters reading one type: state is looked up by type, so both
/// would be the same value. Compared as written; a type alias is caught
/// when the dispatcher is built.
pub(crate) fn repeated(state: &[StateParam<'_>]) -> Option<syn::Error> {
    state.iter().enumerate().find_map(|(index, later)| {
        let first = state[..index]
            .iter()
            .find(|earlier| same_type(earlier.ty, later.ty))?;
        Some(syn::Error::new_spanned(
            later.ty,
            format!(
                "`{first}` and `{later_name}` both read `{ty}`, and state is looked up by type, \
                 so they would be the same value: give each its own type (a newtype such as \
                 `struct {newtype}({ty});`), or read one struct that holds both",
                first = shown(&first.arg.pat),
                later_name = shown(&later.arg.pat),
                ty = shown(later.ty),
                newtype = newtype_name(&shown(&later.arg.pat)),
            ),
        ))
    })
}

fn same_type(a: &Type, b: &Type) -> bool {
    let text = |ty: &Type| {
        ty.to_token_stream()
            .to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    text(a) == text(b)
}

/// `high_water` → `HighWater`, for a suggested newtype.
fn newtype_name(param: &str) -> String {
    let name: String = param
        .trim_start_matches("mut ")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect();
    if name.is_empty() || !name.chars().all(char::is_alphanumeric) {
        "Second".to_owned()
    } else {
        name
    }
}

/// The `T` of an `Option<&T>` parameter.
fn optional(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(Type::Reference(reference)) => Some(&reference.elem),
        _ => None,
    }
}

/// State is found by its type and handed out as `&T`, so `T` is one sized
/// type: not a trait object, `str` or a slice.
fn unsized_state(reference: &TypeReference) -> Option<syn::Error> {
    let (what, instead) = match &*reference.elem {
        Type::TraitObject(object) => {
            let mut bounds = shown(&object.bounds);
            for auto in ["Send", "Sync"] {
                let has = object.bounds.iter().any(|bound| {
                    matches!(bound, syn::TypeParamBound::Trait(t)
                        if t.path.segments.last().is_some_and(|s| s.ident == auto))
                });
                if !has {
                    bounds.push_str(" + ");
                    bounds.push_str(auto);
                }
            }
            (shown(&reference.elem), format!("Box<dyn {bounds}>"))
        }
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
            ("str".to_owned(), "String".to_owned())
        }
        Type::Slice(slice) => (
            shown(&reference.elem),
            format!("Vec<{}>", shown(&slice.elem)),
        ),
        _ => return None,
    };
    Some(syn::Error::new_spanned(
        &reference.elem,
        format!(
            "hook state is found by its type, so it is one sized type, and `{what}` is not: \
             give the builder a `{instead}` and take `&{instead}`"
        ),
    ))
}

/// The span of a lifetime other than `'static` in a type, if it has one.
fn borrowed_lifetime(tokens: TokenStream) -> Option<Span> {
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(punct) if punct.as_char() == '\'' => {
                if let Some(TokenTree::Ident(name)) = tokens.peek()
                    && name != "static"
                {
                    return Some(punct.span().join(name.span()).unwrap_or(punct.span()));
                }
            }
            TokenTree::Group(group) => {
                if let Some(span) = borrowed_lifetime(group.stream()) {
                    return Some(span);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::newtype_name;

    #[test]
    fn newtypes_are_named_after_the_parameter() {
        assert_eq!(newtype_name("high"), "High");
        assert_eq!(newtype_name("high_water"), "HighWater");
        assert_eq!(newtype_name("mut limit"), "Limit");
        assert_eq!(newtype_name("_"), "Second");
        assert_eq!(newtype_name("(a, b)"), "Second");
    }
}
