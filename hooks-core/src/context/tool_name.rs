//! A tool's name as a tool's contexts and its handle keep it.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// A tool's name: borrowed for the whole program, owned, or shared with the
/// tool's handle, so that a context made from a handle
/// ([`ToolHandle::pre_tool_use`](crate::ToolHandle::pre_tool_use)) copies
/// a pointer, not the name, and the contexts after the call share it too.
#[derive(Clone)]
pub(crate) enum ToolName {
    Static(&'static str),
    /// As an integration handed it over: not copied again into a shared
    /// allocation (cloning it copies it, as cloning a `Cow` did).
    Owned(String),
    Shared(Arc<str>),
}

impl ToolName {
    /// The name as a handle keeps it: shared, once, if it was owned.
    pub(crate) fn shared(name: Cow<'static, str>) -> Self {
        match name {
            Cow::Borrowed(name) => ToolName::Static(name),
            Cow::Owned(name) => ToolName::Shared(name.into()),
        }
    }
}

impl From<Cow<'static, str>> for ToolName {
    #[inline]
    fn from(name: Cow<'static, str>) -> Self {
        match name {
            Cow::Borrowed(name) => ToolName::Static(name),
            Cow::Owned(name) => ToolName::Owned(name),
        }
    }
}

impl Deref for ToolName {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        match self {
            ToolName::Static(name) => name,
            ToolName::Owned(name) => name,
            ToolName::Shared(name) => name,
        }
    }
}

impl fmt::Debug for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for ToolName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_and_serializes_as_the_name() {
        for name in [
            ToolName::from(Cow::Borrowed("sql_query")),
            ToolName::from(Cow::Owned("sql_query".to_owned())),
            ToolName::shared(Cow::Owned("sql_query".to_owned())),
        ] {
            assert_eq!(&*name, "sql_query");
            assert_eq!(format!("{name:?}"), "\"sql_query\"");
            assert_eq!(
                serde_json::to_value(&name).expect("serializes"),
                serde_json::json!("sql_query")
            );
        }
    }

    #[test]
    fn a_shared_name_is_shared_by_its_clones() {
        let name = ToolName::shared(Cow::Owned("sql_query".to_owned()));
        let clone = name.clone();
        assert!(std::ptr::eq(name.as_ptr(), clone.as_ptr()));
    }
}
