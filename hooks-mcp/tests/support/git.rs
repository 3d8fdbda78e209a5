//! Throwaway git repositories for `mcp-server-git`, made with the git CLI.

use std::path::Path;
use std::process::Command;

use super::scratch::Scratch;

/// A repository with one commit (`README.md`, message "first"), in a
/// scratch directory; removed when dropped.
pub(crate) struct Repo(Scratch);

impl Repo {
    pub(crate) fn with_one_commit() -> Repo {
        let repo = Repo(Scratch::new("mcp-repo"));
        repo.git(&["init", "--quiet", "--initial-branch=main"]);
        // The server commits through GitPython, which reads the identity from
        // the repository's config; signing would need a key the test lacks.
        repo.git(&["config", "user.name", "Hooks Test"]);
        repo.git(&["config", "user.email", "hooks-test@example.invalid"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo.write("README.md", "hello\n");
        repo.git(&["add", "README.md"]);
        repo.git(&["commit", "--quiet", "--message", "first"]);
        repo
    }

    pub(crate) fn path(&self) -> &Path {
        self.0.path()
    }

    /// The command line of `mcp-server-git` serving this repository.
    pub(crate) fn server(&self) -> Vec<String> {
        let mut command = super::server_command("mcp-server-git");
        command.extend(["--repository".to_owned(), self.path_str().to_owned()]);
        command
    }

    /// The path as a string, for JSON arguments and command lines.
    pub(crate) fn path_str(&self) -> &str {
        self.0.path_str()
    }

    pub(crate) fn write(&self, file: &str, contents: &str) {
        self.0.write(file, contents);
    }

    /// Runs git in the repository and returns its stdout; panics on failure.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(args)
            // The user's global config (hooks, templates, signing) stays out of the test.
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap_or_else(|error| panic!("running git {args:?}: {error}"));
        assert!(
            output.status.success(),
            "git {args:?} failed ({}) in {}\n{}",
            output.status,
            self.path().display(),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}
