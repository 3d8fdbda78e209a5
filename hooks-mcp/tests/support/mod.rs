//! What the end-to-end tests share: the real MCP parts from the package
//! registries (the official Python SDK and the reference servers, in a venv
//! the tests build; the reference servers on npm, installed the same way), a
//! scripted client on that SDK, and the servers' throwaway state (git
//! repositories, folders, memory files).
//!
//! Each test binary compiles its own copy of this module and uses a part of it.
#![allow(dead_code, unused_imports)]

mod client;
pub(crate) mod conformance;
mod folder;
mod git;
mod install;
mod mcp;
mod memory;
mod npm;
mod python;
mod scratch;

pub(crate) use client::drive;
pub(crate) use folder::Folder;
pub(crate) use git::Repo;
pub(crate) use mcp::{answer, audit_records, call, connect, test_server, text};
pub(crate) use memory::Memory;
pub(crate) use npm::npm_server;
pub(crate) use python::{python, server_command, venv};
pub(crate) use scratch::Scratch;
