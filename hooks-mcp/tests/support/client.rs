//! Runs `tests/clients/drive.py`, a scripted client on the official MCP Python
//! SDK, and hands back its transcript.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::python;

/// A whole script, server start-up included. The client bounds each request at
/// 30 s itself, so this is reached only when it hangs outside one.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `script` (see `drive.py` for its shape) and returns the transcript it
/// printed: `{"protocol_version", "server_info", "steps": [...], "elicitations": [...]}`.
///
/// Panics, with everything the client printed, when it fails, times out or
/// prints something other than one JSON object.
pub(crate) fn drive(script: &Value) -> Value {
    let path = script_path();
    fs::write(&path, script.to_string())
        .unwrap_or_else(|error| panic!("writing the client script {}: {error}", path.display()));
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/drive.py");

    let mut child = Command::new(python::python())
        .arg(&client)
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("starting {}: {error}", client.display()));
    let stdout = collect(child.stdout.take());
    let stderr = collect(child.stderr.take());

    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Err(error) => panic!("waiting for the MCP client: {error}"),
        }
    };
    let _ = fs::remove_file(&path);
    let (stdout, stderr) = (finish(&stdout), finish(&stderr));
    // Shown only when the test fails: the server's own log is on stderr.
    eprint!("{stderr}");

    let Some(status) = status else {
        panic!(
            "the MCP client ran past {TIMEOUT:?} on {script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
        );
    };
    assert!(
        status.success(),
        "the MCP client failed ({status}) on {script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("the MCP client printed no JSON transcript ({error})\n--- stdout\n{stdout}\n--- stderr\n{stderr}")
    })
}

fn script_path() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-scripts");
    fs::create_dir_all(&dir).unwrap_or_else(|error| panic!("creating {}: {error}", dir.display()));
    dir.join(format!(
        "{}-{}.json",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Reads a pipe to its end on a thread of its own, so that neither pipe can
/// fill up and stall the client while the other is read. Chunks are passed on
/// as they come, so a hung run still shows what it printed.
fn collect(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (send, receive) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        thread::spawn(move || {
            let mut buffer = [0; 8192];
            while let Ok(read @ 1..) = pipe.read(&mut buffer) {
                if send.send(buffer[..read].to_vec()).is_err() {
                    return;
                }
            }
        });
    }
    receive
}

/// What a pipe carried. A server that a killed client left behind may still
/// hold the pipe open, so the wait for its end is bounded.
fn finish(output: &mpsc::Receiver<Vec<u8>>) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut bytes = Vec::new();
    loop {
        match output.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(chunk) => bytes.extend(chunk),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                bytes.extend(b"\n(the pipe is still open: a server outlived the client)");
                break;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
