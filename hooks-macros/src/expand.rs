//! Generating the registration: a `static` in the event's distributed slice,
//! and a wrapper that adapts the user's function to the dispatcher.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{LitStr, ReturnType, Signature, Type};

use crate::args::{self, Args, Errors, OnError};
use crate::event::Event;
use crate::item::HookItem;
use crate::repair;
use crate::signature::{self, HookSignature};

/// The one entry point of every attribute macro.
pub(crate) fn expand_with(event: Event, args: TokenStream, item: &TokenStream) -> TokenStream {
    let Ok(parsed) = syn::parse2::<HookItem>(item.clone()) else {
        let message = format!(
            "`#[{}]` goes on a function: `fn hook(ctx: &mut {}) {{ .. }}`",
            event.attr(),
            event.context()
        );
        let error = syn::Error::new(Span::call_site(), message).into_compile_error();
        return quote!(#error #item);
    };
    let mut errors = Errors::default();
    let args = args::parse(args, &mut errors);
    check_args(event, &args, &parsed.sig, &mut errors);
    let signature = signature::check(event, args.observe.is_some(), &parsed.sig, &mut errors);
    // The user's function is emitted as written, whatever else happens, so
    // the only errors they see are ours.
    match (errors.into_result(), signature) {
        (Ok(()), Some(signature)) => {
            let registration = registration(event, &args, &parsed.sig, &signature);
            quote!(#item #registration)
        }
        (Err(error), _) => {
            let error = error.into_compile_error();
            let item = repair::emitted(&parsed, item);
            quote!(#item #error)
        }
        (Ok(()), None) => unreachable!("an invalid signature always reports an error"),
    }
}

/// Arguments that are well-formed alone but wrong for this event or function.
/// The `matches` pattern is checked here, by the grammar the runtime uses, so
/// a bad one is an error on the string; the runtime compiles it.
fn check_args(event: Event, args: &Args, sig: &Signature, errors: &mut Errors) {
    match &args.matches {
        Some(matches) if !event.has_tool() => errors.push(syn::Error::new(
            matches.key,
            format!(
                "`matches` only applies to tool events ({}); `#[{}]` hooks run on every {} event",
                Event::tool_attrs(),
                event.attr(),
                event.attr()
            ),
        )),
        Some(matches) => match hooks_events::pattern::parse(&matches.value.value()) {
            Ok(_) => {}
            Err(error) => errors.push(syn::Error::new(
                matches.value.span(),
                format!(
                    "invalid pattern {}: {error}",
                    matches.value.to_token_stream()
                ),
            )),
        },
        None => {}
    }
    if let Some(timeout) = &args.timeout_ms
        && sig.asyncness.is_none()
        && !signature::returns_deferred(sig)
    {
        errors.push(syn::Error::new(
            timeout.key,
            "`timeout_ms` needs an `async fn` (or a `Deferred` return): a plain call cannot be \
             interrupted, so make the hook async or drop `timeout_ms`",
        ));
    }
    if let (Some(shadow), Some(_)) = (args.shadow, args.observe) {
        errors.push(syn::Error::new(
            shadow,
            "an observer cannot run in `shadow`: observers enforce nothing, so there is nothing \
             to hold back; drop `shadow`, or `observe` to shadow a deciding hook",
        ));
    } else if let Some(shadow) = args.shadow
        && !event.can_hold_back()
    {
        errors.push(syn::Error::new(
            shadow,
            format!(
                "`shadow` holds back what a hook would do, but a `#[{}]` hook can neither block, \
                 add context nor withhold anything, so there is nothing to hold back: drop `shadow`",
                event.attr()
            ),
        ));
    }
    if let Some(on_error) = &args.on_error
        && on_error.value == OnError::Deny
        && args.observe.is_some()
    {
        errors.push(syn::Error::new(
            on_error.key,
            "`on_error = \"deny\"` is not possible on an observer: observers run after the decision, so a failing one is logged",
        ));
    } else if let Some(on_error) = &args.on_error
        && on_error.value == OnError::Deny
        && !event.can_block()
        && !event.can_withhold()
    {
        errors.push(syn::Error::new(
            on_error.key,
            format!(
                "`on_error = \"deny\"` is not possible on `#[{}]`: the event can neither block nor withhold anything, so a failing hook is logged and the agent goes on",
                event.attr()
            ),
        ));
    }
}

fn registration(
    event: Event,
    args: &Args,
    sig: &Signature,
    signature: &HookSignature<'_>,
) -> TokenStream {
    let krate = args.krate.as_ref().map_or_else(
        || syn::parse_quote!(::hooks_core),
        |krate| krate.value.clone(),
    );
    let private = quote!(#krate::__private);
    let context_name = event.context_ident();
    let slice = event.slice_ident();
    let function = &sig.ident;
    let function_name = function.to_string();
    let name = match &args.name {
        Some(name) => name.value.to_token_stream(),
        None => quote!(::core::concat!(::core::module_path!(), "::", #function_name)),
    };
    let priority = args.priority.as_ref().map_or(0, |priority| priority.value);
    let matches = args.matches.as_ref().map_or_else(
        || LitStr::new("", Span::call_site()),
        |matches| matches.value.clone(),
    );
    let line = quote_spanned!(function.span()=> ::core::line!());
    let subject = subject_check(args);
    let more = more(args, signature);
    let (run, wrapper) = match direct(args, sig, signature) {
        Some(run) => (run, quote!()),
        None => {
            let context = quote!(#krate::#context_name);
            let timeout = args.timeout_ms.as_ref().map_or(0, |ms| ms.value);
            wrapper(
                &private,
                &context,
                timeout,
                args.observe.is_some(),
                function,
                signature,
            )
        }
    };
    // The slice's own `macro_rules!` places the static in the link section
    // (what `#[distributed_slice]` on an element expands to, minus a second
    // proc macro and a type check: the type is ours and always right).
    // Every token emitted here costs compile time in every hook: paths go
    // through one short alias.
    //
    // Named, not `const _`: a hook in an `impl` block cannot be registered
    // (nothing outside the block can name an associated function, and the
    // macro cannot tell where it is), and there an unnamed `const` would add
    // a second error to rustc's "cannot find value" at the function's name.
    let holder = format_ident!("__HOOKS_CORE_HOOK_{}", function.unraw());
    quote! {
        #[allow(dead_code, non_upper_case_globals)]
        const #holder: () = {
            use #private as __h;
            __h::#slice! {
                #![linkme_macro = __h::#slice]
                static __HOOKS_CORE_HOOK: __h::LinkedHook<__h::#context_name> = __h::LinkedHook {
                    name: #name,
                    priority: #priority,
                    matches: #matches,
                    file: ::core::file!(),
                    line: #line,
                    run: #run,
                    more: #more,
                };
            }
            #wrapper
            #subject
        };
    }
}

/// A pattern with a subject (`Bash(git push*)`) needs hooks-core's `shell`
/// feature, which this crate cannot see: hooks-core's own macro refuses it
/// there, spanned on the pattern.
fn subject_check(args: &Args) -> TokenStream {
    let Some(matches) = &args.matches else {
        return quote!();
    };
    let has_subject = hooks_events::pattern::parse(&matches.value.value())
        .is_ok_and(|alternatives| alternatives.iter().any(|a| a.subject.is_some()));
    if !has_subject {
        return quote!();
    }
    let pattern = &matches.value;
    quote_spanned!(pattern.span()=> __h::subject_pattern!(#pattern);)
}

/// The user's own function, when its shape is one the dispatcher calls
/// directly: `fn(&mut Ctx)`, `fn(&mut Ctx) -> Decision`, an observer's
/// `fn(&Ctx)`. No wrapper is generated for these: most hooks cost a static
/// and nothing else.
fn direct(args: &Args, sig: &Signature, signature: &HookSignature<'_>) -> Option<TokenStream> {
    if signature.asyncness.is_some()
        || signature.deferred
        || signature.guard
        || !signature.state.is_empty()
    {
        return None;
    }
    let function = &sig.ident;
    let returns = match &sig.output {
        ReturnType::Default => Returns::Unit,
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(tuple) if tuple.elems.is_empty() => Returns::Unit,
            Type::Path(path)
                if path.qself.is_none()
                    && path.path.segments.last().is_some_and(|last| {
                        last.ident == "Decision" && last.arguments.is_none()
                    }) =>
            {
                Returns::Decision
            }
            _ => return None,
        },
    };
    match (args.observe.is_some(), returns) {
        (true, Returns::Unit) => Some(quote!(__h::HookFn::Observe(#function))),
        (false, Returns::Unit) => Some(quote!(__h::HookFn::Unit(#function))),
        // The capability check (only events that may block take `Decision`)
        // is `decide`'s bound, spanned on the return type.
        (false, Returns::Decision) => {
            // The function is bound first, under its own name's span, so
            // that in an `impl` block rustc's "cannot find value" is on
            // the name; the call is the return type's, where a bound fails.
            let decide = quote_spanned!(signature.output_span=> __h::decide);
            let bound = syn::Ident::new("f", signature.output_span);
            Some(
                quote_spanned!(signature.output_span=> { let #bound = #function; #decide(#bound) }),
            )
        }
        (true, Returns::Decision) => None,
    }
}

#[derive(Clone, Copy)]
enum Returns {
    Unit,
    Decision,
}

/// The options few hooks set: a shared static when none is.
fn more(args: &Args, signature: &HookSignature<'_>) -> TokenStream {
    let unset = args.group.is_none()
        && args.on_error.is_none()
        && args.timeout_ms.is_none()
        && args.observe.is_none()
        && args.shadow.is_none()
        && signature.state.is_empty();
    if unset {
        return quote!(&__h::NO_MORE);
    }
    let group = match &args.group {
        Some(group) => {
            let group = &group.value;
            quote!(__h::Some(#group))
        }
        None => quote!(__h::None),
    };
    let on_error = match args.on_error.as_ref().map(|on_error| on_error.value) {
        Some(OnError::Deny) => quote!(__h::Some(__h::OnError::Deny)),
        Some(OnError::Continue) => quote!(__h::Some(__h::OnError::Continue)),
        None => quote!(__h::None),
    };
    let timeout_ms = args.timeout_ms.as_ref().map_or(0, |ms| ms.value);
    let observe = args.observe.is_some();
    let shadow = args.shadow.is_some();
    let state = signature.state.iter().map(|ty| {
        quote_spanned! {syn::spanned::Spanned::span(ty)=>
            __h::StateType {
                id: ::core::any::TypeId::of::<#ty>,
                name: ::core::any::type_name::<#ty>,
            }
        }
    });
    quote! {
        &__h::More {
            group: #group,
            on_error: #on_error,
            timeout_ms: #timeout_ms,
            observe: #observe,
            shadow: #shadow,
            state: &[#(#state),*],
        }
    }
}

/// The function the dispatcher calls, adapting the user's, and the `HookFn`
/// variant holding it.
fn wrapper(
    private: &TokenStream,
    context: &TokenStream,
    timeout_ms: u64,
    observe: bool,
    function: &syn::Ident,
    signature: &HookSignature<'_>,
) -> (TokenStream, TokenStream) {
    // Spanned on the user's tokens: a wrong context type, return type or
    // state type is reported on the parameter or the return type, in our words.
    let context_span = syn::spanned::Spanned::span(signature.context);
    let (cast, output, converter) = if signature.guard {
        (
            quote_spanned!(context_span=> #private::guarded_context::<#context, _>),
            quote_spanned!(signature.output_span=> #private::output::<#context, _>),
            quote_spanned!(signature.output_span=> #private::decided::<#context, _>),
        )
    } else if observe {
        (
            quote_spanned!(context_span=> #private::observed_context::<#context, _>),
            quote_spanned!(signature.output_span=> #private::observed::<#context, _>),
            quote_spanned!(signature.output_span=> #private::noted::<#context, _>),
        )
    } else {
        (
            quote_spanned!(context_span=> #private::context::<#context, _>),
            quote_spanned!(signature.output_span=> #private::output::<#context, _>),
            quote_spanned!(signature.output_span=> #private::decided::<#context, _>),
        )
    };
    let reads: Vec<TokenStream> = signature
        .state
        .iter()
        .enumerate()
        .map(|(index, ty)| {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> #private::state::<#ty>(state, #index))
        })
        .collect();
    let state = if reads.is_empty() {
        quote!(_)
    } else {
        quote!(state)
    };
    if signature.deferred {
        return (
            quote!(#private::HookFn::Deferred(__hooks_core_run)),
            quote! {
                fn __hooks_core_run<'a>(ctx: &'a mut #context, #state: &'a #private::State) -> #private::Started<'a, #context> {
                    #private::deferred(ctx, #timeout_ms, #converter, |ctx| #function(#cast(ctx) #(, #reads)*))
                }
            },
        );
    }
    match signature.asyncness {
        None => (
            quote!(#private::HookFn::Plain(__hooks_core_run)),
            quote! {
                fn __hooks_core_run(ctx: &mut #context, #state: &#private::State) -> #private::Verdict {
                    #output(#function(#cast(ctx) #(, #reads)*))
                }
            },
        ),
        Some(async_span) => {
            // The boxed future hands the context back when the hook is done
            // (even after a timeout or a panic, which `guard` turns into a
            // verdict), so the dispatcher needs no future of its own to go on.
            // Spanned on the user's `async`, path included: a non-`Send`
            // future is reported there rather than on the attribute.
            let boxed = respan(quote!(#private::boxed), async_span);
            let future = quote_spanned! {async_span=>
                #boxed(async move {
                    let verdict = #private::guard(#timeout_ms, async {
                        #output(#function(#cast(&mut *ctx) #(, #reads)*).await)
                    })
                    .await;
                    (verdict, ctx)
                })
            };
            (
                quote!(#private::HookFn::Async(__hooks_core_run)),
                quote! {
                    fn __hooks_core_run<'a>(ctx: &'a mut #context, #state: &'a #private::State) -> #private::Started<'a, #context> {
                        #private::Started::Pending(#future)
                    }
                },
            )
        }
    }
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                token = TokenTree::Group(respanned);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}
