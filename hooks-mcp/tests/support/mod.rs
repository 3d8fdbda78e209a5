//! What the end-to-end tests share: the real MCP parts from the Python package
//! index (the official SDK and the reference servers, in a venv the tests build),
//! a scripted client on that SDK, and throwaway git repositories.
//!
//! Each test binary compiles its own copy of this module and uses a part of it.
#![allow(dead_code, unused_imports)]

mod client;
mod git;
mod install;
mod mcp;
mod python;
mod scratch;

pub(crate) use client::drive;
pub(crate) use git::Repo;
pub(crate) use mcp::{answer, audit_records, call, connect, test_server, text};
pub(crate) use python::{python, server_command, venv};
pub(crate) use scratch::Scratch;
