//! Throwaway directories for the servers' state (a repository, a folder, a
//! memory file), in the target directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// An empty directory of its own, named after `prefix`, this process and a
/// counter; removed when dropped.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new(prefix: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        // Left by an earlier process that had this pid and was killed.
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir)
            .unwrap_or_else(|error| panic!("creating {}: {error}", dir.display()));
        Scratch(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// The path as a string, for JSON arguments and command lines.
    pub(crate) fn path_str(&self) -> &str {
        self.0
            .to_str()
            .expect("the target directory's path is UTF-8")
    }

    /// Writes `contents` to `file` (a path relative to the directory).
    pub(crate) fn write(&self, file: &str, contents: &str) {
        let path = self.0.join(file);
        fs::write(&path, contents)
            .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
