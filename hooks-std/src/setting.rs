//! Process-wide settings for the standard hooks.
//!
//! The standard hooks are linked functions, so their configuration lives in
//! statics: set once at start-up (or replaced later), read on every call
//! without allocating.

use std::sync::{Arc, PoisonError, RwLock};

/// A value that can be replaced at any time; readers get a consistent snapshot.
pub(crate) struct Setting<T> {
    current: RwLock<Option<Arc<T>>>,
}

impl<T> Setting<T> {
    pub(crate) const fn new() -> Self {
        Setting {
            current: RwLock::new(None),
        }
    }

    /// The current value, or `default()` installed on first use.
    pub(crate) fn get_or_init(&self, default: impl FnOnce() -> T) -> Arc<T> {
        if let Some(value) = &*self.current.read().unwrap_or_else(PoisonError::into_inner) {
            return Arc::clone(value);
        }
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(current.get_or_insert_with(|| Arc::new(default())))
    }

    /// Replaces the value for every later reader.
    pub(crate) fn set(&self, value: T) {
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(value));
    }
}
