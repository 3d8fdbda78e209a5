use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A hook's name: `module::path::fn_name` for attribute hooks, or the name given.
///
/// Cloning never allocates: linked hooks borrow their `'static` name and
/// runtime hooks share theirs, so a dispatch result can name the deciding hook
/// without touching the heap.
#[derive(Clone)]
pub struct HookName(Repr);

#[derive(Clone)]
enum Repr {
    Static(&'static str),
    Shared(Arc<str>),
}

impl HookName {
    /// A name that lives for the whole program.
    pub const fn from_static(name: &'static str) -> Self {
        HookName(Repr::Static(name))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(name) => name,
            Repr::Shared(name) => name,
        }
    }
}

impl From<&'static str> for HookName {
    fn from(name: &'static str) -> Self {
        HookName::from_static(name)
    }
}

impl From<String> for HookName {
    fn from(name: String) -> Self {
        HookName(Repr::Shared(name.into()))
    }
}

impl From<Arc<str>> for HookName {
    fn from(name: Arc<str>) -> Self {
        HookName(Repr::Shared(name))
    }
}

impl AsRef<str> for HookName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for HookName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for HookName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for HookName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for HookName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for HookName {}

impl PartialEq<str> for HookName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for HookName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for HookName {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for HookName {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for HookName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl serde::Serialize for HookName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
