//! Nothing but its tests: hooks-config without the `http` feature, as a
//! program that declares no HTTP hook has it.
