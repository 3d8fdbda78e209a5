//! The npm side of the end-to-end tests: the reference servers
//! `@modelcontextprotocol/server-filesystem` and `@modelcontextprotocol/server-memory`,
//! pinned (every package, with its hash) by `npm/package-lock.json` beside
//! this file and installed with `npm ci` into the target directory
//! (`target/tmp/mcp-npm`), built once and shared as `install.rs` says.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::install::{self, run};

const PACKAGE: &str = include_str!("npm/package.json");
const LOCK: &str = include_str!("npm/package-lock.json");

/// The installed packages' directory, built or checked on first use in this process.
pub(crate) fn node_modules() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| install::built("mcp-npm", &format!("{PACKAGE}{LOCK}"), build))
        .join("node_modules")
}

/// The program that starts the stdio MCP server `name`, one of those the
/// packages install (`mcp-server-filesystem`, `mcp-server-memory`): a script
/// run by the `node` on PATH.
pub(crate) fn npm_server(name: &str) -> String {
    let script = node_modules().join(".bin").join(name);
    assert!(
        script.exists(),
        "{} is not in the npm test packages: add the package that provides it to hooks-mcp/tests/support/npm/package.json",
        script.display()
    );
    script
        .into_os_string()
        .into_string()
        .unwrap_or_else(|path| panic!("the path {} is not UTF-8", Path::new(&path).display()))
}

fn build(dir: &Path) {
    install::write(&dir.join("package.json"), PACKAGE);
    install::write(&dir.join("package-lock.json"), LOCK);
    // `ci`: exactly the lock, or an error. No install scripts run (none of
    // these packages needs one), and a package whose `engines` this Node
    // does not meet fails here, by name.
    run(
        Command::new("npm")
            .current_dir(dir)
            .args(["ci", "--ignore-scripts", "--engine-strict", "--omit=dev"])
            .args(["--no-audit", "--no-fund", "--no-update-notifier"]),
        "the tests need Node.js >= 20 and npm on PATH",
    );
}
