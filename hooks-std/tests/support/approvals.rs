//! Setup the approval test suites share: a fresh database file, a runtime,
//! and a dispatcher whose approver is the gate under test.

use std::path::PathBuf;

use hooks_core::prelude::*;
use hooks_std::approval::ApprovalGate;

/// A path for a new database `name` in `suite`'s directory, with any file a
/// previous run left there (and its `-wal`, `-shm`) removed.
pub(crate) fn fresh_database(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-{suite}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// A multi-threaded runtime: the SQLite store answers on its blocking pool.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The standard gate hook (and any hooks named in `also`), with `gate`'s
/// policy as state and `gate` as the approver.
pub(crate) fn gated(gate: ApprovalGate, also: &[&str]) -> Hooks {
    let mut names = vec!["hooks_std::approval::gate"];
    names.extend(also);
    Hooks::builder()
        .only(names)
        .state(gate.policy().clone())
        .approver(gate)
        .build()
        .unwrap()
}
