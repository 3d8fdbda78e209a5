//! The annotated function, read only as far as the macro needs: attributes,
//! visibility and signature. The body stays an opaque group of tokens, and
//! the function is emitted as the user wrote it, token for token: parsing and
//! printing a body costs more than everything else the macro does. (The
//! parts are kept for the one function emitted otherwise: see `repair`.)

use proc_macro2::Group;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Signature, Visibility};

pub(crate) struct HookItem {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) sig: Signature,
    pub(crate) body: Group,
}

impl Parse for HookItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse::<Visibility>()?;
        let sig: Signature = input.parse()?;
        let body: Group = input.parse()?;
        if body.delimiter() != proc_macro2::Delimiter::Brace {
            return Err(syn::Error::new(body.span(), "expected the function's body"));
        }
        Ok(HookItem {
            attrs,
            vis,
            sig,
            body,
        })
    }
}
