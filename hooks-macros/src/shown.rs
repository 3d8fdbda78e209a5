//! Code quoted in error messages, written as a person would write it:
//! `&Option<&Limits>`, not the token printer's `& Option < & Limits >`.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// `tokens` as source text, spaced the way rustfmt would space them.
pub(crate) fn shown(tokens: &impl ToTokens) -> String {
    let mut text = String::new();
    write(tokens.to_token_stream(), &mut text);
    text
}

fn write(tokens: TokenStream, text: &mut String) {
    let mut tokens = tokens.into_iter().peekable();
    let mut after_word = false;
    while let Some(token) = tokens.next() {
        let word = matches!(token, TokenTree::Ident(_) | TokenTree::Literal(_));
        if word && after_word {
            text.push(' ');
        }
        after_word = word;
        match token {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                text.push_str(open);
                write(group.stream(), text);
                text.push_str(close);
            }
            TokenTree::Punct(punct) => match punct.as_char() {
                '-' if punct.spacing() == Spacing::Joint
                    && matches!(tokens.peek(), Some(TokenTree::Punct(next)) if next.as_char() == '>') =>
                {
                    tokens.next();
                    text.push_str(" -> ");
                }
                '+' | '=' => {
                    text.push(' ');
                    text.push(punct.as_char());
                    text.push(' ');
                }
                ':' if punct.spacing() == Spacing::Joint
                    && matches!(tokens.peek(), Some(TokenTree::Punct(next)) if next.as_char() == ':') =>
                {
                    tokens.next();
                    text.push_str("::");
                }
                ',' | ';' | ':' => {
                    text.push(punct.as_char());
                    text.push(' ');
                }
                other => text.push(other),
            },
            TokenTree::Ident(ident) => text.push_str(&ident.to_string()),
            TokenTree::Literal(literal) => text.push_str(&literal.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::shown;

    #[test]
    fn types_read_as_written() {
        assert_eq!(shown(&quote!(&Option<&Limits>)), "&Option<&Limits>");
        assert_eq!(shown(&quote!(&'a mut T)), "&'a mut T");
        assert_eq!(
            shown(&quote!(dyn Policy + Send + Sync)),
            "dyn Policy + Send + Sync"
        );
        assert_eq!(
            shown(&quote!(hooks_core::PreToolUse)),
            "hooks_core::PreToolUse"
        );
        assert_eq!(
            shown(&quote!(HashMap<String, Vec<u8>>)),
            "HashMap<String, Vec<u8>>"
        );
        assert_eq!(shown(&quote!([u8; 4])), "[u8; 4]");
        assert_eq!(
            shown(&quote!(Deferred<'static, Decision>)),
            "Deferred<'static, Decision>"
        );
        assert_eq!(
            shown(&quote!(Box<dyn Fn(&u8) -> bool>)),
            "Box<dyn Fn(&u8) -> bool>"
        );
        assert_eq!(
            shown(&quote!(limits: &::std::sync::Arc<Limits>)),
            "limits: &::std::sync::Arc<Limits>"
        );
    }
}
