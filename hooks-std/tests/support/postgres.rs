//! A throwaway PostgreSQL server for tests: its own cluster in a temporary
//! directory, reached over a unix socket only, stopped (with its whole
//! process group) and removed when dropped — when a test fails too.
//!
//! The server comes from Debian's `postgresql` package. When `initdb` is not
//! under `/usr/lib/postgresql/*/bin`, the package is installed with apt (as
//! root, or through `sudo -n`), serialized by a file lock so that parallel
//! tests do not race; if that fails, the test fails and says why. PostgreSQL
//! refuses to run as root: as root, the cluster belongs to the `postgres` user
//! and its programs run through `runuser`.

#![allow(
    dead_code,
    reason = "each program including this file uses a part of it"
)]

#[path = "debian.rs"]
mod debian;

use std::fs;
use std::future::poll_fn;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio_postgres::{AsyncMessage, Client, NoTls};

/// The superuser of every test cluster, with `trust` authentication on the socket.
pub(crate) const USER: &str = "postgres";

/// A running server; dropping it stops it and removes its files.
pub(crate) struct Postgres {
    dir: PathBuf,
    server: Child,
    /// How it was started, to start it again on the same data.
    command: Vec<std::ffi::OsString>,
    /// The TCP port on 127.0.0.1, when it listens there.
    port: Option<u16>,
}

/// How a test server is set up beyond the defaults.
#[derive(Default)]
pub(crate) struct Setup {
    /// Listen on 127.0.0.1 at a free port too (see [`Postgres::port`]).
    pub(crate) tcp: bool,
    /// `ssl = on` with this certificate chain and key (PEM).
    pub(crate) tls: Option<(String, String)>,
    /// The whole of `pg_hba.conf`, instead of `initdb`'s (`trust` for all).
    pub(crate) hba: Option<String>,
    /// `fsync = on`: a synchronous commit waits for the disk (for
    /// measurements; the server's `synchronous_commit` stays `off`).
    pub(crate) durable: bool,
}

/// A connection, with a count of the notifications it has received (`NOTIFY`).
pub(crate) struct Connection {
    pub(crate) client: Client,
    notifications: Arc<AtomicUsize>,
}

impl Connection {
    pub(crate) fn notifications(&self) -> usize {
        self.notifications.load(Ordering::SeqCst)
    }
}

impl Postgres {
    /// Initializes a cluster in a new temporary directory and starts a server on it.
    pub(crate) fn start() -> Postgres {
        Self::start_with(&Setup::default())
    }

    /// [`start`](Self::start), listening on TCP or with TLS as `setup` says.
    pub(crate) fn start_with(setup: &Setup) -> Postgres {
        let bin = binaries();
        let owner = Owner::find();
        let dir = std::env::temp_dir().join(format!(
            "hooks-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("out")).expect("create the cluster directory");
        owner.give(&dir);
        owner.give(&dir.join("out"));
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::set_permissions(dir.join("out"), fs::Permissions::from_mode(0o777)).expect("chmod");

        let data = dir.join("data");
        let init = owner
            .command(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .output()
            .expect("run initdb");
        assert!(
            init.status.success(),
            "initdb failed: {}",
            debian::describe(&init)
        );

        if let Some(hba) = &setup.hba {
            fs::write(data.join("pg_hba.conf"), hba).expect("write pg_hba.conf");
        }
        let mut settings: Vec<String> = [
            "listen_addresses=",
            if setup.durable {
                "fsync=on"
            } else {
                "fsync=off"
            },
            "full_page_writes=off",
            // The sinks must commit synchronously whatever the server's default.
            "synchronous_commit=off",
            // Nothing changes the catalogs behind a test's back.
            "autovacuum=off",
            "max_connections=40",
            "shared_buffers=16MB",
        ]
        .map(str::to_owned)
        .to_vec();
        let port = setup.tcp.then(free_port);
        if let Some(port) = port {
            settings.push("listen_addresses=127.0.0.1".to_owned());
            settings.push(format!("port={port}"));
        }
        if let Some((chain, key)) = &setup.tls {
            let private = |name: &str, contents: &str| {
                let path = dir.join(name);
                fs::write(&path, contents).expect("write a TLS file");
                fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).expect("chmod");
                owner.give(&path);
                path
            };
            let chain = private("server.crt", chain);
            let key = private("server.key", key);
            settings.push("ssl=on".to_owned());
            settings.push(format!("ssl_cert_file={}", chain.display()));
            settings.push(format!("ssl_key_file={}", key.display()));
        }
        let mut command: Vec<std::ffi::OsString> = vec![
            bin.join("postgres").into(),
            "-D".into(),
            data.into(),
            "-k".into(),
            dir.clone().into(),
        ];
        for setting in settings {
            command.push("-c".into());
            command.push(setting.into());
        }
        let server = spawn(&owner, &dir, &command);
        let mut postgres = Postgres {
            dir,
            server,
            command,
            port,
        };
        postgres.wait_until_ready(&bin);
        postgres
    }

    /// The port on 127.0.0.1, for a server started with [`Setup::tcp`].
    pub(crate) fn port(&self) -> u16 {
        self.port.expect("the server was started with `tcp`")
    }

    /// Sends `signal` (`KILL`, `STOP`, `CONT`, ...) to the server and every
    /// backend: a crash, a freeze, a thaw.
    pub(crate) fn signal(&self, signal: &str) {
        // The server leads its own process group (with `runuser`), but each
        // backend starts a session of its own: signal every descendant,
        // parents first, so a stopped server forks no new backend unsignalled.
        for pid in descendants(self.server.id()) {
            let _ = Command::new("kill")
                .args(["-s", signal, "--", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }

    /// Kills the server with SIGKILL (every backend with it) and waits for it to be gone.
    pub(crate) fn crash(&mut self) {
        let lock = self.dir.join("data/postmaster.pid");
        let postmaster = fs::read_to_string(&lock)
            .ok()
            .and_then(|text| text.lines().next()?.trim().parse::<u32>().ok());
        self.signal("KILL");
        let _ = self.server.wait();
        // Dead, or a zombie nobody reaps (a container's init may not): its
        // lock files would stop the restart, as after a real crash.
        if let Some(pid) = postmaster {
            let deadline = Instant::now() + Duration::from_secs(60);
            while fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "))
            {
                assert!(Instant::now() < deadline, "postgres survived SIGKILL");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = fs::remove_file(lock);
        // So are its socket's lock file and the socket.
        for entry in fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(".s.PGSQL.") {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Starts the server again on the same data (after [`crash`](Self::crash)),
    /// recovering from its write-ahead log.
    pub(crate) fn restart(&mut self) {
        self.server = spawn(&Owner::find(), &self.dir, &self.command);
        self.wait_until_ready(&binaries());
    }

    /// The directory holding the socket (a connection's `host`).
    pub(crate) fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// A directory the server may write files into, for tests to watch.
    pub(crate) fn out_dir(&self) -> PathBuf {
        self.dir.join("out")
    }

    /// Connects to `database` as the superuser.
    pub(crate) async fn connect(
        &self,
        database: &str,
    ) -> Result<Connection, tokio_postgres::Error> {
        let (client, mut connection) = tokio_postgres::Config::new()
            .host_path(&self.dir)
            .port(self.port.unwrap_or(5432))
            .user(USER)
            .dbname(database)
            .connect(NoTls)
            .await?;
        let notifications = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&notifications);
        tokio::spawn(async move {
            while let Some(message) = poll_fn(|cx| connection.poll_message(cx)).await {
                match message {
                    Ok(AsyncMessage::Notification(_)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        });
        Ok(Connection {
            client,
            notifications,
        })
    }

    fn wait_until_ready(&mut self, bin: &Path) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.server.try_wait().expect("poll postgres") {
                panic!("postgres exited ({status}) while starting:\n{}", self.log());
            }
            let ready = Command::new(bin.join("pg_isready"))
                .arg("-h")
                .arg(&self.dir)
                .args(["-p", &self.port.unwrap_or(5432).to_string()])
                .args(["-U", USER, "-q"])
                .status()
                .is_ok_and(|status| status.success());
            if ready {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "postgres did not start within 60 s:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

/// Starts `command` (the server) in a process group of its own, logging to
/// `dir/server.log`.
fn spawn(owner: &Owner, dir: &Path, command: &[std::ffi::OsString]) -> Child {
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("server.log"))
        .expect("open the server log");
    owner.give(&dir.join("server.log"));
    owner
        .command(Path::new(&command[0]))
        .args(&command[1..])
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("log"))
        .stderr(log)
        .process_group(0)
        .spawn()
        .expect("start postgres")
}

/// `root` and every process under it, parents before children.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (name) state ppid ...`: the name may hold spaces.
            let parent = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, parent))
        })
        .collect();
    let mut found = vec![root];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        found.extend(
            parents
                .iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(pid, _)| *pid),
        );
        next += 1;
    }
    found
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("find a free port")
        .port()
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // Thawed if a test froze it; then a fast shutdown: open sessions
        // are ended, nothing is waited for.
        self.signal("CONT");
        self.signal("INT");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if matches!(self.server.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.signal("KILL");
        let _ = self.server.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The newest `/usr/lib/postgresql/<version>/bin`, installing the package if there is none.
fn binaries() -> PathBuf {
    if let Some(bin) = installed() {
        return bin;
    }
    install();
    installed().unwrap_or_else(|| {
        panic!("PostgreSQL was installed, but no initdb is under /usr/lib/postgresql/*/bin")
    })
}

fn installed() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// `apt-get install postgresql`, once at a time across test processes.
fn install() {
    debian::install(
        "postgresql",
        "ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1",
        "these tests need PostgreSQL",
    );
}

/// Who runs the server: the `postgres` user when we are root, else ourselves.
enum Owner {
    Me,
    User { uid: u32, gid: u32 },
}

impl Owner {
    fn find() -> Owner {
        if !debian::is_root() {
            return Owner::Me;
        }
        let id = |flag: &str| -> Option<u32> {
            let output = Command::new("id").args([flag, USER]).output().ok()?;
            if !output.status.success() {
                return None;
            }
            std::str::from_utf8(&output.stdout)
                .ok()?
                .trim()
                .parse()
                .ok()
        };
        if id("-u").is_none() {
            let created = Command::new("useradd")
                .args([
                    "--system",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    USER,
                ])
                .output()
                .expect("run useradd");
            assert!(
                created.status.success(),
                "PostgreSQL refuses to run as root, and creating a `{USER}` user failed: {}",
                debian::describe(&created)
            );
        }
        match (id("-u"), id("-g")) {
            (Some(uid), Some(gid)) => Owner::User { uid, gid },
            _ => panic!("cannot find the `{USER}` user's ids"),
        }
    }

    fn give(&self, path: &Path) {
        if let Owner::User { uid, gid } = self {
            std::os::unix::fs::chown(path, Some(*uid), Some(*gid)).expect("chown to postgres");
        }
    }

    fn command(&self, program: &Path) -> Command {
        match self {
            Owner::Me => Command::new(program),
            Owner::User { .. } => {
                let mut command = Command::new("runuser");
                command.args(["-u", USER, "--"]).arg(program);
                command
            }
        }
    }
}
