//! Checking the hook function's signature: what the macro can see
//! syntactically. Type mismatches the macro cannot see (a wrong context type,
//! an unsupported return type, state that is not `Send + Sync`) are left to
//! the compiler, through spanned trait checks in the generated code.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{
    FnArg, GenericArgument, GenericParam, PathArguments, ReturnType, Safety, Signature, Type,
};

use crate::args::Errors;
use crate::event::Event;
use crate::shown::shown;
use crate::state;

/// The parts of a valid hook function the expansion needs.
pub(crate) struct HookSignature<'a> {
    /// The type behind `&mut`, as the user wrote it.
    pub(crate) context: &'a Type,
    /// The types behind the state parameters' `&`, in order.
    pub(crate) state: Vec<&'a Type>,
    /// Where the return type is, or the function's name if there is none.
    pub(crate) output_span: Span,
    pub(crate) asyncness: Option<Span>,
    /// Whether the function returns `Deferred`: an answer now, or a future.
    pub(crate) deferred: bool,
    /// A guard: it takes `&Ctx` (not `&mut`) on an event that may block,
    /// so the compiler proves it cannot change the call.
    pub(crate) guard: bool,
}

/// Whether the return type is written `Deferred<..>` (any path ending so).
pub(crate) fn returns_deferred(sig: &Signature) -> bool {
    match &sig.output {
        ReturnType::Type(_, ty) => match &**ty {
            Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "Deferred"),
            _ => false,
        },
        ReturnType::Default => false,
    }
}

pub(crate) fn check<'a>(
    event: Event,
    observe: bool,
    sig: &'a Signature,
    errors: &mut Errors,
) -> Option<HookSignature<'a>> {
    let mut problems = Errors::default();
    let mut fail = |error: syn::Error| problems.push(error);
    let borrow = if observe { "&" } else { "&mut " };
    let expected = format!("`ctx: {borrow}{}`", event.context());
    let deferred = returns_deferred(sig);

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
    if let (Some(token), true) = (&sig.asyncness, deferred) {
        fail(syn::Error::new(
            token.span,
            "an `async fn` already waits: return the answer itself, not a `Deferred`",
        ));
    } else if deferred && let Some(error) = elided_deferred_lifetime(sig, borrow, event) {
        fail(error);
    }
    // State written before the context: one error saying the order, rather
    // than one about each parameter read in the wrong role.
    if let Some(error) = context_not_first(sig) {
        fail(error);
        errors.append(problems);
        return None;
    }

    let mut inputs = sig.inputs.iter();
    let context = match inputs.next() {
        None => {
            fail(syn::Error::new(
                sig.paren_token.span.join(),
                format!(
                    "a `#[{}]` hook takes its context as its first parameter: {expected}",
                    event.attr()
                ),
            ));
            None
        }
        Some(first) => context_type(event, first, observe, deferred, &expected)
            .map_err(&mut fail)
            .ok(),
    };
    let guard = !observe && is_shared(sig.inputs.first());
    let mut state = Vec::new();
    for extra in inputs {
        match state::param(event, extra) {
            Ok(param) => state.push(param),
            Err(error) => fail(error),
        }
    }
    if let Some(error) = state::repeated(&state) {
        fail(error);
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
            state: state.iter().map(|param| param.ty).collect(),
            output_span,
            asyncness: sig.asyncness.map(|token| token.span),
            deferred,
            guard,
        }),
        _ => None,
    }
}

/// The first parameter: the context, `&mut Ctx` (`&Ctx` for observers).
fn context_type<'a>(
    event: Event,
    first: &'a FnArg,
    observe: bool,
    deferred: bool,
    expected: &str,
) -> syn::Result<&'a Type> {
    let arg = match first {
        FnArg::Receiver(receiver) => {
            return Err(syn::Error::new_spanned(
                receiver,
                format!(
                    "a hook is a free function and cannot take `self`; take {expected} instead"
                ),
            ));
        }
        FnArg::Typed(arg) => arg,
    };
    match &*arg.ty {
        // A guard: reads the call, decides, and the compiler proves it changes nothing.
        Type::Reference(reference)
            if reference.mutability.is_none() && !observe && !event.can_block() =>
        {
            Err(syn::Error::new(
                reference.and_token.span,
                format!(
                    "the context must be borrowed mutably: {expected} (`&{}` is for guards, \
                     which decide, and `#[{}]` cannot block; to only look, add `observe`)",
                    event.context(),
                    event.attr()
                ),
            ))
        }
        Type::Reference(reference) if observe && reference.mutability.is_some() => {
            Err(syn::Error::new_spanned(
                reference.mutability,
                format!(
                    "an observer runs after the decision and cannot change the call: take {expected}"
                ),
            ))
        }
        Type::Reference(reference) if matches!(&*reference.elem, Type::ImplTrait(_)) => {
            Err(syn::Error::new_spanned(
                &reference.elem,
                format!("a hook cannot be generic: take {expected}"),
            ))
        }
        Type::Reference(reference) => match &reference.lifetime {
            _ if context_name(&reference.elem).is_some_and(|name| name != event.context()) => {
                let borrow = if observe { "&" } else { "&mut " };
                Err(syn::Error::new_spanned(
                    &reference.elem,
                    format!(
                        "this hook takes `{borrow}{}`, but `#[{}]` hooks take `{borrow}{}`: each \
                         event has its own context type",
                        reference.elem.to_token_stream(),
                        event.attr(),
                        event.context()
                    ),
                ))
            }
            Some(lifetime) if deferred => Err(syn::Error::new_spanned(
                lifetime,
                "the future of a `Deferred` answer cannot borrow the context: leave the \
                 context's lifetime elided and name the state's, as in \
                 `fn f<'s>(ctx: &mut PreToolUse, state: &'s S) -> Deferred<'s, Decision>`",
            )),
            _ => Ok(&*reference.elem),
        },
        other => Err(syn::Error::new_spanned(
            other,
            format!("the context is borrowed, not taken by value: {expected}"),
        )),
    }
}

/// Whether the first parameter borrows the context immutably.
fn is_shared(first: Option<&FnArg>) -> bool {
    match first {
        Some(FnArg::Typed(arg)) => {
            matches!(&*arg.ty, Type::Reference(reference) if reference.mutability.is_none())
        }
        _ => false,
    }
}

/// The context type a parameter names, if it names one: its last path segment.
pub(crate) fn context_name(ty: &Type) -> Option<String> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?.ident.to_string();
    Event::ALL
        .iter()
        .any(|event| event.context() == last)
        .then_some(last)
}

/// A parameter naming a context (`&mut PreToolUse`) after one that does not:
/// the hook was written with its state first.
fn context_not_first(sig: &Signature) -> Option<syn::Error> {
    let names_context = |input: &FnArg| match input {
        FnArg::Typed(arg) => match &*arg.ty {
            Type::Reference(reference) => context_name(&reference.elem).is_some(),
            other => context_name(other).is_some(),
        },
        FnArg::Receiver(_) => false,
    };
    let first = sig.inputs.first()?;
    if matches!(first, FnArg::Receiver(_)) || names_context(first) {
        return None;
    }
    let context = sig.inputs.iter().find(|input| names_context(input))?;
    let reordered: Vec<String> = std::iter::once(context)
        .chain(
            sig.inputs
                .iter()
                .filter(|input| !std::ptr::eq(*input, context)),
        )
        .map(shown)
        .collect();
    Some(syn::Error::new_spanned(
        context,
        format!(
            "the context comes first, then the state the hook reads: `fn {}({})`",
            sig.ident,
            reordered.join(", ")
        ),
    ))
}

/// `Deferred<Decision>` or `Deferred<'_, Decision>`: the elided lifetime
/// would be the context's (or ambiguous), and the future cannot borrow the
/// context; the lifetime is written, `'static` or the state's.
fn elided_deferred_lifetime(sig: &Signature, borrow: &str, event: Event) -> Option<syn::Error> {
    let ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    let Type::Path(path) = &**ty else { return None };
    let deferred = path.path.segments.last()?;
    let (span, answer) = match &deferred.arguments {
        PathArguments::AngleBracketed(args) => {
            let answer = args.args.iter().find_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(shown(ty)),
                _ => None,
            });
            match args.args.first() {
                Some(GenericArgument::Lifetime(lifetime)) if lifetime.ident == "_" => {
                    (lifetime.span(), answer)
                }
                Some(GenericArgument::Lifetime(_)) => return None,
                _ => (deferred.ident.span(), answer),
            }
        }
        _ => (deferred.ident.span(), None),
    };
    let answer = answer.unwrap_or_else(|| "Decision".to_owned());
    Some(syn::Error::new(
        span,
        format!(
            "name the lifetime of `Deferred`, which its future may borrow: \
             `Deferred<'static, {answer}>` when it borrows nothing, or `'s` from the state it \
             reads, as in `fn {name}<'s>(ctx: {borrow}{context}, state: &'s S) -> Deferred<'s, {answer}>` \
             (it can never borrow the context, which the dispatcher holds)",
            name = sig.ident,
            context = event.context(),
        ),
    ))
}
