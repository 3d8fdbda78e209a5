//! Throwaway directories for `@modelcontextprotocol/server-filesystem`.

use std::fs;
use std::path::Path;

use super::npm::npm_server;
use super::scratch::Scratch;

/// A directory the filesystem server is allowed (and the only one); removed
/// when dropped.
pub(crate) struct Folder(Scratch);

impl Folder {
    pub(crate) fn new() -> Folder {
        Folder(Scratch::new("mcp-folder"))
    }

    /// The command line of `mcp-server-filesystem` serving this directory alone.
    pub(crate) fn server(&self) -> Vec<String> {
        vec![
            npm_server("mcp-server-filesystem"),
            self.path_str().to_owned(),
        ]
    }

    pub(crate) fn path(&self) -> &Path {
        self.0.path()
    }

    /// The path as a string, for JSON arguments and command lines.
    pub(crate) fn path_str(&self) -> &str {
        self.0.path_str()
    }

    /// Writes `contents` to `file`, a path relative to the directory, making
    /// the directories on the way.
    pub(crate) fn write(&self, file: &str, contents: &str) {
        if let Some(parent) = self.path().join(file).parent() {
            fs::create_dir_all(parent)
                .unwrap_or_else(|error| panic!("creating {}: {error}", parent.display()));
        }
        self.0.write(file, contents);
    }

    /// Everything in the directory, sorted: `dir/` for a directory, `file: contents`
    /// for a file. Equal listings before and after a call show it changed nothing.
    pub(crate) fn listing(&self) -> Vec<String> {
        let mut entries = Vec::new();
        walk(self.path(), "", &mut entries);
        entries.sort();
        entries
    }
}

fn walk(dir: &Path, prefix: &str, entries: &mut Vec<String>) {
    let read =
        fs::read_dir(dir).unwrap_or_else(|error| panic!("listing {}: {error}", dir.display()));
    for entry in read {
        let entry = entry.unwrap_or_else(|error| panic!("listing {}: {error}", dir.display()));
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let path = entry.path();
        // Not followed: a link the server made is listed as one, not as its target.
        let kind = fs::symlink_metadata(&path)
            .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
        if kind.is_dir() {
            entries.push(format!("{name}/"));
            walk(&path, &format!("{name}/"), entries);
        } else if kind.is_symlink() {
            let target = fs::read_link(&path).unwrap_or_default();
            entries.push(format!("{name} -> {}", target.display()));
        } else {
            let contents = fs::read(&path)
                .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
            entries.push(format!("{name}: {}", String::from_utf8_lossy(&contents)));
        }
    }
}
