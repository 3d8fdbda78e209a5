//! A global allocator that counts this thread's allocations and the bytes
//! they hold, for tests that prove a path allocates nothing, or keeps no
//! more than so much. Install it in the test binary:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: hooks_tests::alloc::Counting = hooks_tests::alloc::Counting;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts allocations and reallocations per thread, and the bytes they
/// hold, then delegates to [`System`].
pub struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Bytes allocated less bytes freed by this thread (wrapping: a block
    /// freed by another thread than the one that allocated it skews both).
    static HELD: Cell<usize> = const { Cell::new(0) };
}

fn hold(grown: usize, shrunk: usize) {
    HELD.with(|held| held.set(held.get().wrapping_add(grown).wrapping_sub(shrunk)));
}

#[allow(unsafe_code)] // a global allocator is an unsafe trait; this one only counts and delegates
// SAFETY: every method passes the caller's contract on to `System` unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        hold(layout.size(), 0);
        // SAFETY: as above.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        hold(0, layout.size());
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        hold(new_size, layout.size());
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` and returns its value with the number of allocations this thread
/// made meanwhile. Meaningful only where [`Counting`] is the global allocator.
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let value = f();
    (value, ALLOCATIONS.with(Cell::get) - before)
}

/// Runs `f` and returns its value with the bytes this thread allocated
/// meanwhile and still holds (negative if it freed more than it allocated).
/// Meaningful only where [`Counting`] is the global allocator.
pub fn bytes_held_after<T>(f: impl FnOnce() -> T) -> (T, isize) {
    let before = HELD.with(Cell::get);
    let value = f();
    #[allow(clippy::cast_possible_wrap)] // a wrapped difference is the signed one
    let held = HELD.with(Cell::get).wrapping_sub(before) as isize;
    (value, held)
}
