//! Checking the hook function's signature: what the macro can see
//! syntactically. Type mismatches the macro cannot see (a wrong context type,
//! an unsupported return type) are left to the compiler, through spanned
//! trait checks in the generated code.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, ItemFn, ReturnType, Safety, Type};

use crate::args::Errors;
use crate::event::Event;

/// The parts of a valid hook function the expansion needs.
pub(crate) struct HookSignature<'a> {
    /// The type behind `&mut`, as the user wrote it.
    pub(crate) context: &'a Type,
    /// Where the return type is, or the function's name if there is none.
    pub(crate) output_span: Span,
    pub(crate) asyncness: Option<Span>,
}

pub(crate) fn check<'a>(
    event: Event,
    observe: bool,
    item: &'a ItemFn,
    errors: &mut Errors,
) -> Option<HookSignature<'a>> {
    let sig = &item.sig;
    let mut problems = Errors::default();
    let mut fail = |error: syn::Error| problems.push(error);
    let borrow = if observe { "&" } else { "&mut " };
    let expected = format!("`ctx: {borrow}{}`", event.context());

    if let Safety::Unsafe(token) = &sig.safety {
        fail(syn::Error::new(
            token.span,
            "a hook cannot be an `unsafe fn`",
        ));
    }
    if let Some(abi) = &sig.abi {
        fail(syn::Error::new_spanned(
            abi,
            "a hook cannot have an `extern` ABI: it is called as a Rust function",
        ));
    }
    for param in &sig.generics.params {
        if !matches!(param, GenericParam::Lifetime(_)) {
            fail(syn::Error::new_spanned(
                param,
                "a hook cannot be generic: it is registered as one concrete function",
            ));
        }
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        fail(syn::Error::new_spanned(
            where_clause,
            "a hook cannot have a `where` clause: it is registered as one concrete function",
        ));
    }

    let mut context = None;
    let mut inputs = sig.inputs.iter();
    match inputs.next() {
        None => fail(syn::Error::new(
            sig.paren_token.span.join(),
            format!(
                "a `#[{}]` hook takes its context as its one parameter: {expected}",
                event.attr()
            ),
        )),
        Some(FnArg::Receiver(receiver)) => fail(syn::Error::new_spanned(
            receiver,
            format!("a hook is a free function and cannot take `self`; take {expected} instead"),
        )),
        Some(FnArg::Typed(arg)) => match &*arg.ty {
            Type::Reference(reference) if reference.mutability.is_none() && !observe => {
                fail(syn::Error::new(
                    reference.and_token.span,
                    format!("the context must be borrowed mutably: {expected}"),
                ));
            }
            Type::Reference(reference) if observe && reference.mutability.is_some() => {
                fail(syn::Error::new_spanned(
                    reference.mutability,
                    format!(
                        "an observer runs after the decision and cannot change the call: take {expected}"
                    ),
                ));
            }
            Type::Reference(reference) if matches!(&*reference.elem, Type::ImplTrait(_)) => {
                fail(syn::Error::new_spanned(
                    &reference.elem,
                    format!("a hook cannot be generic: take {expected}"),
                ));
            }
            Type::Reference(reference) => context = Some(&*reference.elem),
            other => fail(syn::Error::new_spanned(
                other,
                format!("the context is borrowed, not taken by value: {expected}"),
            )),
        },
    }
    for extra in inputs {
        fail(syn::Error::new_spanned(
            extra,
            format!(
                "a `#[{}]` hook takes only its context, {expected}; remove this parameter",
                event.attr()
            ),
        ));
    }

    let output_span = match &sig.output {
        ReturnType::Default => sig.ident.span(),
        ReturnType::Type(_, ty) => ty.span(),
    };
    let valid = problems.is_empty();
    errors.append(problems);
    match context {
        Some(context) if valid => Some(HookSignature {
            context,
            output_span,
            asyncness: sig.asyncness.map(|token| token.span),
        }),
        _ => None,
    }
}
