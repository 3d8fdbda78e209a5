//! Only its test: see `tests/empty_directory.rs`.
