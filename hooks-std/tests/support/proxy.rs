//! A TCP proxy that becomes a network black hole on demand: what is sent
//! is dropped, nothing answers, and the connections open when it happened
//! stay dead after it ends (as when a firewall or NAT forgets them).

#![allow(
    dead_code,
    reason = "each program including this file uses a part of it"
)]

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// A proxy to `127.0.0.1:upstream`, listening on `127.0.0.1:port`.
pub(crate) struct Proxy {
    pub(crate) port: u16,
    state: Arc<State>,
}

struct State {
    open: AtomicBool,
    /// Bumped by each black hole: connections from before forward no more.
    generation: AtomicU64,
}

impl State {
    fn forwards(&self, generation: u64) -> bool {
        self.open.load(Ordering::SeqCst) && self.generation.load(Ordering::SeqCst) == generation
    }
}

impl Proxy {
    pub(crate) fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(State {
            open: AtomicBool::new(true),
            generation: AtomicU64::new(0),
        });
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let state = Arc::clone(&shared);
                std::thread::spawn(move || {
                    // Held, never answered, until the hole closes.
                    while !state.open.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    let generation = state.generation.load(Ordering::SeqCst);
                    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                        return;
                    };
                    forward(&client, &server, &state, generation);
                });
            }
        });
        Proxy { port, state }
    }

    /// From now on nothing gets through, and open connections are cut for good.
    pub(crate) fn black_hole(&self) {
        self.state.open.store(false, Ordering::SeqCst);
        self.state.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// New connections get through again.
    pub(crate) fn restore(&self) {
        self.state.open.store(true, Ordering::SeqCst);
    }
}

/// Copies both ways while the connection's generation is the current one,
/// dropping the bytes otherwise.
fn forward(client: &TcpStream, server: &TcpStream, state: &Arc<State>, generation: u64) {
    let pipe = |mut from: TcpStream, mut to: TcpStream, state: Arc<State>| {
        std::thread::spawn(move || {
            let mut buffer = [0; 16 * 1024];
            loop {
                let read = match from.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => read,
                };
                if state.forwards(generation) && to.write_all(&buffer[..read]).is_err() {
                    break;
                }
            }
            let _ = to.shutdown(std::net::Shutdown::Both);
        })
    };
    let up = pipe(
        client.try_clone().unwrap(),
        server.try_clone().unwrap(),
        Arc::clone(state),
    );
    let down = pipe(
        server.try_clone().unwrap(),
        client.try_clone().unwrap(),
        Arc::clone(state),
    );
    let _ = up.join();
    let _ = down.join();
}
