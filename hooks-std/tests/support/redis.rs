//! A throwaway Redis server for tests and benchmarks: its own process on
//! 127.0.0.1 and a free port, its own temporary directory, nothing saved to
//! disk; stopped and removed when dropped — when a test fails too. It can be
//! stopped and started again on the same port, for outage tests, and can
//! require a password ([`Redis::start_with_password`]).
//!
//! The server comes from Debian's `redis-server` package. When
//! `redis-server` is not on the path, the package is installed with apt (as
//! root, or through `sudo -n`), serialized by the same file lock as the
//! PostgreSQL tests' install; if that fails, the test fails and says why.
//!
//! Only the standard library: the benchmarks include this file too.

#![allow(
    dead_code,
    reason = "each program including this file uses a part of it"
)]

#[path = "debian.rs"]
mod debian;

use std::fs;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A Redis server; dropping it stops it and removes its directory.
pub(crate) struct Redis {
    dir: PathBuf,
    port: u16,
    password: Option<String>,
    /// Serving TLS only, with the certificate and key in `dir`.
    tls: bool,
    /// More arguments for `redis-server` (a cluster node's).
    args: Vec<String>,
    server: Option<Child>,
}

impl Redis {
    /// Starts a server on a free port, in a new temporary directory.
    pub(crate) fn start() -> Redis {
        Self::start_as(None, None)
    }

    /// Starts a server speaking TLS only (`--tls-port`, no plain port),
    /// showing `certificate` (a PEM chain) with its `key` (PEM); clients
    /// show none. Its address is [`tls_url`](Self::tls_url).
    pub(crate) fn start_tls(certificate: &str, key: &str) -> Redis {
        Self::start_as(None, Some((certificate, key)))
    }

    /// Starts a server that requires `password` (`--requirepass`): a
    /// client must `AUTH` before anything else. [`url`](Self::url) still
    /// names no password.
    pub(crate) fn start_with_password(password: &str) -> Redis {
        assert!(!password.is_empty(), "an empty password requires none");
        Self::start_as(Some(password.to_owned()), None)
    }

    fn start_as(password: Option<String>, tls: Option<(&str, &str)>) -> Redis {
        let mut redis = Self::prepare(password, tls);
        redis.spawn(binary());
        redis
    }

    /// A server not started yet: its directory and port.
    fn prepare(password: Option<String>, tls: Option<(&str, &str)>) -> Redis {
        let dir = std::env::temp_dir().join(format!(
            "hooks-redis-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the server's directory");
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| listener.local_addr())
            .expect("find a free port")
            .port();
        if let Some((certificate, key)) = tls {
            fs::write(dir.join("server.crt"), certificate).expect("write the certificate");
            fs::write(dir.join("server.key"), key).expect("write the key");
        }
        Redis {
            dir,
            port,
            password,
            tls: tls.is_some(),
            args: Vec::new(),
            server: None,
        }
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// `rediss://127.0.0.1:<port>/0`: a TLS server's address.
    pub(crate) fn tls_url(&self) -> String {
        format!("rediss://127.0.0.1:{}/0", self.port)
    }

    /// The server's own directory, removed with it: for a test's files.
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// `127.0.0.1:<port>`: what the store's errors name.
    pub(crate) fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The port the server listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The password the server requires, if any.
    pub(crate) fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Kills the server (SIGKILL: an outage, a crash); [`resume`](Self::resume)
    /// starts it again.
    pub(crate) fn stop(&mut self) {
        if let Some(mut server) = self.server.take() {
            let _ = server.kill();
            let _ = server.wait();
        }
    }

    /// Asks the server to stop (`SHUTDOWN NOSAVE`: nothing saved, as
    /// without persistence) and waits for it to exit; [`resume`](Self::resume)
    /// starts it again.
    pub(crate) fn shutdown(&mut self) {
        let mut server = self.server.take().expect("the server is running");
        let _ = self.send(&["SHUTDOWN", "NOSAVE"]);
        let deadline = Instant::now() + Duration::from_secs(30);
        while server.try_wait().expect("poll redis-server").is_none() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not exit within 30 s of SHUTDOWN"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Runs one command (`["SAVE"]`) and returns the first line of its
    /// answer (`+OK`).
    /// A bulk string answer (`CLUSTER INFO`'s) is returned whole.
    pub(crate) fn command(&self, args: &[&str]) -> String {
        use std::io::BufRead as _;
        let mut reader = std::io::BufReader::new(self.send(args));
        let mut answer = String::new();
        reader.read_line(&mut answer).expect("read Redis's answer");
        let answer = answer.trim_end().to_owned();
        if let Some(len) = answer
            .strip_prefix('$')
            .and_then(|len| len.parse::<usize>().ok())
        {
            let mut bulk = vec![0; len + 2];
            reader.read_exact(&mut bulk).expect("read the bulk answer");
            bulk.truncate(len);
            return String::from_utf8_lossy(&bulk).into_owned();
        }
        answer
    }

    /// Sends one command (after `AUTH`, with a password, whose answer is read
    /// first); the connection, to read the command's answer from.
    fn send(&self, args: &[&str]) -> TcpStream {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let mut stream =
            TcpStream::connect_timeout(&address, Duration::from_secs(5)).expect("connect to Redis");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a read timeout");
        if let Some(password) = &self.password {
            stream
                .write_all(&resp(&["AUTH", password]))
                .expect("send AUTH");
            let mut ok = [0; 5];
            stream.read_exact(&mut ok).expect("AUTH's answer");
            assert_eq!(&ok, b"+OK\r\n", "AUTH refused");
        }
        stream.write_all(&resp(args)).expect("send the command");
        stream
    }

    /// Starts the server again on the same port, empty (and with the same password).
    pub(crate) fn resume(&mut self) {
        assert!(self.server.is_none(), "the server is running");
        self.spawn(binary());
    }

    fn spawn(&mut self, program: &str) {
        let log = fs::File::create(self.dir.join("server.log")).expect("create the server log");
        let mut command = Command::new(program);
        if self.tls {
            command
                .args(["--port", "0", "--tls-port", &self.port.to_string()])
                .arg("--tls-cert-file")
                .arg(self.dir.join("server.crt"))
                .arg("--tls-key-file")
                .arg(self.dir.join("server.key"))
                .args(["--tls-auth-clients", "no"]);
        } else {
            command.args(["--port", &self.port.to_string()]);
        }
        command
            .args(["--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"]);
        if let Some(password) = &self.password {
            command.args(["--requirepass", password]);
        }
        command.args(&self.args);
        let server = command
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("start redis-server");
        self.server = Some(server);
        self.wait_until_ready();
    }

    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let server = self.server.as_mut().expect("started");
            if let Some(status) = server.try_wait().expect("poll redis-server") {
                panic!(
                    "redis-server exited ({status}) while starting:\n{}",
                    self.log()
                );
            }
            // A TLS server cannot be pinged in plain text: it says when it is ready.
            if (self.tls && self.log().contains("Ready to accept connections"))
                || (!self.tls && self.ping())
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer within 30 s:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server answers `PING` (after `AUTH`, with a password).
    fn ping(&self) -> bool {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut request = Vec::new();
        let mut expected = Vec::new();
        if let Some(password) = &self.password {
            // As a RESP array: the password is sent as is, whatever it holds.
            request.extend_from_slice(b"*2\r\n$4\r\nAUTH\r\n");
            request.extend_from_slice(format!("${}\r\n", password.len()).as_bytes());
            request.extend_from_slice(password.as_bytes());
            request.extend_from_slice(b"\r\n");
            expected.extend_from_slice(b"+OK\r\n");
        }
        request.extend_from_slice(b"PING\r\n");
        expected.extend_from_slice(b"+PONG\r\n");
        let mut answer = vec![0; expected.len()];
        stream.write_all(&request).is_ok()
            && stream.read_exact(&mut answer).is_ok()
            && answer == expected
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A Redis Cluster of three primaries, no replicas, each node a [`Redis`]
/// of its own (its own port, cluster bus port and directory); stopped and
/// removed when dropped.
pub(crate) struct Cluster {
    pub(crate) nodes: Vec<Redis>,
    /// With TLS: the CA file the nodes and `redis-cli` trust.
    ca: Option<PathBuf>,
}

impl Cluster {
    /// Starts three nodes, joins them (`redis-cli --cluster create`, the
    /// slots split three ways) and waits until each says `cluster_state:ok`.
    pub(crate) fn start() -> Cluster {
        Self::start_with(None)
    }

    /// The same over TLS only, clients and cluster bus: every node shows
    /// `certificate` (PEM) with its `key`, and trusts `ca` (PEM) for its peers.
    pub(crate) fn start_tls(ca: &str, certificate: &str, key: &str) -> Cluster {
        Self::start_with(Some((ca, certificate, key)))
    }

    fn start_with(tls: Option<(&str, &str, &str)>) -> Cluster {
        let program = binary();
        let mut ca_file = None;
        let nodes: Vec<Redis> = (0..3)
            .map(|_| {
                let mut node = Redis::prepare(None, tls.map(|(_, cert, key)| (cert, key)));
                let bus = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                    .and_then(|listener| listener.local_addr())
                    .expect("find a free port")
                    .port();
                node.args = vec![
                    "--cluster-enabled".into(),
                    "yes".into(),
                    "--cluster-port".into(),
                    bus.to_string(),
                    "--cluster-config-file".into(),
                    node.dir.join("nodes.conf").display().to_string(),
                    "--cluster-node-timeout".into(),
                    "5000".into(),
                ];
                if let Some((ca, _, _)) = tls {
                    let file = node.dir.join("ca.pem");
                    fs::write(&file, ca).expect("write the CA");
                    node.args.extend([
                        "--tls-cluster".into(),
                        "yes".into(),
                        "--tls-ca-cert-file".into(),
                        file.display().to_string(),
                    ]);
                    ca_file = Some(file);
                }
                node.spawn(program);
                node
            })
            .collect();
        let cluster = Cluster { nodes, ca: ca_file };
        let mut create = cluster.cli();
        create.arg("--cluster").arg("create");
        for node in &cluster.nodes {
            create.arg(node.address());
        }
        let output = create
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .expect("run redis-cli --cluster create");
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed: {}",
            debian::describe(&output)
        );
        cluster.wait_until_ok();
        cluster
    }

    /// `redis-cli`, with TLS and the CA if the cluster has them.
    fn cli(&self) -> Command {
        let mut cli = Command::new("redis-cli");
        if let Some(ca) = &self.ca {
            cli.arg("--tls").arg("--cacert").arg(ca);
        }
        cli
    }

    /// What `node` says to `CLUSTER INFO`.
    fn info(&self, node: &Redis) -> String {
        let output = self
            .cli()
            .args(["-h", "127.0.0.1", "-p", &node.port().to_string()])
            .args(["CLUSTER", "INFO"])
            .stdin(Stdio::null())
            .output()
            .expect("run redis-cli");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until every node says the cluster is up (every slot served).
    pub(crate) fn wait_until_ok(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        for node in &self.nodes {
            while !self.info(node).contains("cluster_state:ok") {
                assert!(
                    Instant::now() < deadline,
                    "the cluster was not ok within 60 s: {}",
                    self.info(node)
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// `redis+cluster://127.0.0.1:<port>,…` (`rediss+cluster://` with TLS):
    /// every node.
    pub(crate) fn url(&self) -> String {
        let nodes: Vec<String> = self.nodes.iter().map(Redis::address).collect();
        let scheme = if self.ca.is_some() {
            "rediss+cluster"
        } else {
            "redis+cluster"
        };
        format!("{scheme}://{}", nodes.join(","))
    }
}

/// A command as a RESP array: every argument sent as is, whatever it holds.
fn resp(args: &[&str]) -> Vec<u8> {
    let mut request = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        request.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        request.extend_from_slice(arg.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// `redis-server`, installing Debian's package if it is not on the path.
fn binary() -> &'static str {
    const PROGRAM: &str = "redis-server";
    let installed = || {
        Command::new(PROGRAM)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    if !installed() {
        install();
        assert!(
            installed(),
            "redis-server was installed, but is not on the path"
        );
    }
    PROGRAM
}

/// `apt-get install redis-server`, once at a time across test processes.
fn install() {
    debian::install(
        "redis-server",
        "command -v redis-server >/dev/null 2>&1",
        "these tests need Redis",
    );
}
