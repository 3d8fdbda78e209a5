//! Nothing but its tests: hooks-core without the `shell` feature, as a user
//! who did not ask for it has it.
