//! Generating the registration: a `static` in the event's distributed slice,
//! and a wrapper that adapts the user's function to the dispatcher.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::{ItemFn, LitStr};

use crate::args::{self, Args, Errors, OnError};
use crate::event::Event;
use crate::signature::{self, HookSignature};

/// The one entry point of all seven macros.
pub(crate) fn expand_with(event: Event, args: TokenStream, item: &TokenStream) -> TokenStream {
    let Ok(item) = syn::parse2::<ItemFn>(item.clone()) else {
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
    let pattern = check_args(event, &args, &item, &mut errors);
    let signature = signature::check(event, args.observe.is_some(), &item, &mut errors);
    match (errors.into_result(), signature) {
        (Ok(()), Some(signature)) => {
            let registration = registration(event, &args, pattern, &item, &signature);
            quote!(#item #registration)
        }
        // The user's function is still emitted, so the only errors they see are ours.
        (Err(error), _) => {
            let error = error.into_compile_error();
            quote!(#item #error)
        }
        (Ok(()), None) => unreachable!("an invalid signature always reports an error"),
    }
}

/// Arguments that are well-formed alone but wrong for this event or function.
/// Returns the `matches` pattern, parsed, when it is valid.
fn check_args(event: Event, args: &Args, item: &ItemFn, errors: &mut Errors) -> Option<Pattern> {
    let mut pattern = None;
    match &args.matches {
        Some(matches) if !event.has_tool() => errors.push(syn::Error::new(
            matches.key,
            format!(
                "`matches` only applies to tool events (`#[pre_tool_use]`, `#[post_tool_use]`); \
                 `#[{}]` hooks run on every {} event",
                event.attr(),
                event.attr()
            ),
        )),
        Some(matches) => match hooks_pattern::parse(&matches.value.value()) {
            Ok(alternatives) => pattern = Some(alternatives),
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
        && item.sig.asyncness.is_none()
    {
        errors.push(syn::Error::new(
                timeout.key,
                "`timeout_ms` needs an `async fn`: a sync hook cannot be interrupted, so make the hook async or drop `timeout_ms`",
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
    {
        errors.push(syn::Error::new(
                on_error.key,
                format!(
                    "`on_error = \"deny\"` is not possible on `#[{}]`: the event cannot block, so a failing hook is logged and the agent goes on",
                    event.attr()
                ),
            ));
    }
    pattern
}

/// A `matches` pattern, parsed by the grammar the runtime uses.
type Pattern = Vec<hooks_pattern::Alternative<String>>;

fn registration(
    event: Event,
    args: &Args,
    pattern: Option<Pattern>,
    item: &ItemFn,
    signature: &HookSignature<'_>,
) -> TokenStream {
    let krate = args.krate.as_ref().map_or_else(
        || syn::parse_quote!(::hooks_core),
        |krate| krate.value.clone(),
    );
    let private = quote!(#krate::__private);
    let context = event.context_ident();
    let context = quote!(#krate::#context);
    let slice = event.slice_ident();
    let function = &item.sig.ident;
    let function_name = function.to_string();

    let name = match &args.name {
        Some(name) => name.value.to_token_stream(),
        None => quote!(::core::concat!(::core::module_path!(), "::", #function_name)),
    };
    let priority = args.priority.as_ref().map_or(0, |priority| priority.value);
    let group = option(
        &private,
        args.group
            .as_ref()
            .map(|group| group.value.to_token_stream()),
    );
    let matcher = option(
        &private,
        args.matches
            .as_ref()
            .zip(pattern)
            .map(|(matches, pattern)| matcher(&private, &matches.value, pattern)),
    );
    let on_error = option(
        &private,
        args.on_error.as_ref().map(|on_error| match on_error.value {
            OnError::Deny => quote!(#private::OnError::Deny),
            OnError::Continue => quote!(#private::OnError::Continue),
        }),
    );
    let timeout = option(
        &private,
        args.timeout_ms.as_ref().map(|ms| {
            let ms = ms.value;
            quote!(#private::Duration::from_millis(#ms))
        }),
    );
    let location = function.span();
    let file = quote_spanned!(location=> ::core::file!());
    let line = quote_spanned!(location=> ::core::line!());

    let (run, wrapper) = wrapper(
        &private,
        &context,
        &timeout,
        args.observe.is_some(),
        &item.sig.ident,
        signature,
    );

    quote! {
        const _: () = {
            #[#private::linkme::distributed_slice(#private::#slice)]
            #[linkme(crate = #private::linkme)]
            static __HOOKS_CORE_HOOK: #private::LinkedHook<#context> = #private::LinkedHook {
                name: #name,
                priority: #priority,
                group: #group,
                matcher: #matcher,
                on_error: #on_error,
                timeout: #timeout,
                file: #file,
                line: #line,
                run: #run,
            };
            #wrapper
        };
    }
}

/// The function the dispatcher calls, adapting the user's, and the `HookFn`
/// variant holding it.
fn wrapper(
    private: &TokenStream,
    context: &TokenStream,
    timeout: &TokenStream,
    observe: bool,
    function: &syn::Ident,
    signature: &HookSignature<'_>,
) -> (TokenStream, TokenStream) {
    // Spanned on the user's tokens: a wrong context type or return type is
    // reported on the parameter or the return type, in our words.
    let context_span = syn::spanned::Spanned::span(signature.context);
    let (cast, output, sync, asynchronous) = if observe {
        (
            quote_spanned!(context_span=> #private::observed_context::<#context, _>),
            quote_spanned!(signature.output_span=> #private::observed::<#context, _>),
            quote!(Observe),
            quote!(ObserveAsync),
        )
    } else {
        (
            quote_spanned!(context_span=> #private::context::<#context, _>),
            quote_spanned!(signature.output_span=> #private::output::<#context, _>),
            quote!(Sync),
            quote!(Async),
        )
    };
    let borrow = if observe { quote!(&) } else { quote!(&mut) };
    match signature.asyncness {
        None => (
            quote!(#private::HookFn::#sync(__hooks_core_run)),
            quote! {
                fn __hooks_core_run(ctx: #borrow #context) -> #private::Verdict {
                    #output(#function(#cast(ctx)))
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
                    let verdict = #private::guard(#timeout, async {
                        #output(#function(#cast(#borrow *ctx)).await)
                    })
                    .await;
                    (verdict, ctx)
                })
            };
            (
                quote!(#private::HookFn::#asynchronous(__hooks_core_run)),
                quote! {
                    fn __hooks_core_run<'ctx>(ctx: &'ctx mut #context) -> #private::HandBack<'ctx, #context> {
                        #future
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

fn option(private: &TokenStream, value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(#private::Some(#value)),
        None => quote!(#private::None),
    }
}

/// The pattern, compiled now into a constant the runtime matches without parsing.
fn matcher(private: &TokenStream, source: &LitStr, pattern: Pattern) -> TokenStream {
    let alternatives = pattern.into_iter().map(|alternative| {
        let tool = match alternative.tool {
            hooks_pattern::NameGlob::Any => quote!(#private::NameGlob::Any),
            hooks_pattern::NameGlob::Exact(s) => quote!(#private::NameGlob::Exact(#s)),
            hooks_pattern::NameGlob::Prefix(s) => quote!(#private::NameGlob::Prefix(#s)),
            hooks_pattern::NameGlob::Suffix(s) => quote!(#private::NameGlob::Suffix(#s)),
            hooks_pattern::NameGlob::Contains(s) => quote!(#private::NameGlob::Contains(#s)),
        };
        let subject = option(private, alternative.subject.map(|s| s.to_token_stream()));
        quote!(#private::Alternative { tool: #tool, subject: #subject })
    });
    quote!(#private::Matcher::__from_static(#source, &[#(#alternatives),*]))
}
