//! What the macro emits for the user's function when it reports an error.
//!
//! The function is emitted as written, so the only errors are the macro's
//! and code calling it still compiles. One exception: a `Deferred` return
//! whose lifetime is elided with state parameters is also rustc's error
//! (`missing lifetime specifier`), so that function is emitted with the
//! lifetime the macro's error suggests: the state's.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{
    AngleBracketedGenericArguments, FnArg, GenericArgument, GenericParam, Lifetime, LifetimeParam,
    PathArguments, ReturnType, Type,
};

use crate::item::HookItem;

/// The user's function, as written or repaired.
pub(crate) fn emitted(item: &HookItem, written: &TokenStream) -> TokenStream {
    match repaired(item) {
        Some(repaired) => repaired,
        None => written.clone(),
    }
}

fn repaired(item: &HookItem) -> Option<TokenStream> {
    let mut sig = item.sig.clone();
    let elided = match deferred_args(&mut sig.output)?.args.first() {
        Some(GenericArgument::Lifetime(lifetime)) => lifetime.ident == "_",
        _ => true,
    };
    if !elided {
        return None;
    }
    // The state's lifetime: a fresh one for state borrowed with an elided
    // lifetime, else the first one written.
    let fresh = Lifetime::new("'__hooks_state", Span::call_site());
    let mut chosen = None;
    for input in sig.inputs.iter_mut().skip(1) {
        if let FnArg::Typed(arg) = input
            && let Type::Reference(reference) = &mut *arg.ty
        {
            let lifetime = reference.lifetime.get_or_insert_with(|| fresh.clone());
            chosen.get_or_insert_with(|| lifetime.clone());
        }
    }
    // Without state, the elided lifetime is the context's: valid Rust, and
    // the macro's error is the only one.
    let chosen = chosen?;
    if chosen == fresh {
        let param = GenericParam::Lifetime(LifetimeParam::new(fresh));
        sig.generics.params.insert(0, param);
    }
    let args = deferred_args(&mut sig.output)?;
    match args.args.first_mut() {
        Some(GenericArgument::Lifetime(lifetime)) => *lifetime = chosen,
        _ => args.args.insert(0, GenericArgument::Lifetime(chosen)),
    }
    let HookItem {
        attrs, vis, body, ..
    } = item;
    Some(quote!(#(#attrs)* #vis #sig #body))
}

/// The `<..>` of a `Deferred<..>` return type.
fn deferred_args(output: &mut ReturnType) -> Option<&mut AngleBracketedGenericArguments> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::Path(path) = &mut **ty else {
        return None;
    };
    let last = path.path.segments.last_mut()?;
    if last.ident != "Deferred" {
        return None;
    }
    match &mut last.arguments {
        PathArguments::AngleBracketed(args) => Some(args),
        _ => None,
    }
}
