//! Sign-in throttling: each client address may present a limited number of
//! tokens a minute (a bucket of [`Throttle::ATTEMPTS`], refilled evenly over a
//! minute). Every attempt spends one before the token is even compared, and a
//! right token gives it back, so neither a burst nor concurrent requests get
//! more guesses than the bucket holds.
//!
//! The choice, for the person who must get in: an address with no attempt
//! left is answered `429` with `Retry-After`, *whatever* token it sends — a
//! guesser learns nothing more. That slows everyone on the guesser's address
//! (behind one reverse proxy: everyone) while the guessing goes on, and locks
//! nobody out for good: a bucket refills one attempt every
//! `60 / ATTEMPTS` seconds, and other addresses are never slowed.
//! IPv6 addresses are counted by their /64, which one host commonly holds whole.
//! Clients are remembered up to [`Throttle::CLIENTS`]; beyond that, new
//! addresses share one bucket (slowed together rather than not at all).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where a request comes from, as the throttle counts it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Client {
    /// An IPv4 address.
    V4(u32),
    /// An IPv6 address's first 64 bits.
    V6(u64),
    /// The connection's address is unknown (a router mounted without
    /// `ConnectInfo`), or too many clients are remembered: one shared bucket.
    Unknown,
}

impl Client {
    pub(super) fn of(address: Option<SocketAddr>) -> Client {
        match address.map(|address| address.ip().to_canonical()) {
            Some(IpAddr::V4(v4)) => Client::V4(u32::from(v4)),
            // The upper half: the cast keeps exactly the network's 64 bits.
            #[allow(clippy::cast_possible_truncation)]
            Some(IpAddr::V6(v6)) => Client::V6((u128::from(v6) >> 64) as u64),
            None => Client::Unknown,
        }
    }
}

struct Bucket {
    left: f64,
    at: Instant,
}

/// Attempts left per client.
pub(super) struct Throttle {
    attempts: f64,
    per: Duration,
    buckets: Mutex<HashMap<Client, Bucket>>,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new(Throttle::ATTEMPTS, Duration::from_secs(60))
    }
}

impl Throttle {
    /// Tokens a client may present in a minute.
    pub(super) const ATTEMPTS: u32 = 10;
    /// Clients remembered at once.
    pub(super) const CLIENTS: usize = 65_536;

    pub(super) fn new(attempts: u32, per: Duration) -> Self {
        Throttle {
            attempts: f64::from(attempts.max(1)),
            per,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Spends one attempt for `client`: `Err` with how long to wait if none is left.
    pub(super) fn attempt(&self, client: Client) -> Result<(), Duration> {
        let now = Instant::now();
        let refill = self.attempts / self.per.as_secs_f64();
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let client = if buckets.contains_key(&client) || buckets.len() < Self::CLIENTS {
            client
        } else {
            // Forget the clients whose buckets are full again, then share.
            buckets.retain(|_, bucket| {
                bucket.left + now.duration_since(bucket.at).as_secs_f64() * refill < self.attempts
            });
            if buckets.len() < Self::CLIENTS {
                client
            } else {
                Client::Unknown
            }
        };
        let bucket = buckets.entry(client).or_insert(Bucket {
            left: self.attempts,
            at: now,
        });
        bucket.left =
            (bucket.left + now.duration_since(bucket.at).as_secs_f64() * refill).min(self.attempts);
        bucket.at = now;
        if bucket.left >= 1.0 {
            bucket.left -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.left) / refill))
        }
    }

    /// Gives back the attempt a right token spent.
    pub(super) fn succeeded(&self, client: Client) {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bucket) = buckets.get_mut(&client) {
            bucket.left = (bucket.left + 1.0).min(self.attempts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(text: &str) -> Client {
        Client::of(Some(SocketAddr::new(text.parse().unwrap(), 1234)))
    }

    #[test]
    fn a_client_gets_its_attempts_then_waits() {
        let throttle = Throttle::new(3, Duration::from_secs(3600));
        let guesser = client("192.0.2.7");
        for _ in 0..3 {
            throttle.attempt(guesser).unwrap();
        }
        let wait = throttle.attempt(guesser).unwrap_err();
        assert!(wait > Duration::from_secs(1000), "{wait:?}");
        // Others are not slowed.
        throttle.attempt(client("192.0.2.8")).unwrap();
        // A right token gives its attempt back.
        throttle.succeeded(guesser);
        throttle.attempt(guesser).unwrap();
        throttle.attempt(guesser).unwrap_err();
    }

    #[test]
    fn ipv6_counts_by_its_64_and_mapped_v4_as_v4() {
        assert_eq!(client("2001:db8::1"), client("2001:db8::ffff:1234"));
        assert_ne!(client("2001:db8::1"), client("2001:db8:0:1::1"));
        assert_eq!(client("::ffff:192.0.2.7"), client("192.0.2.7"));
        assert_ne!(client("::1"), client("0.0.0.0"));
        assert_eq!(Client::of(None), Client::Unknown);
    }
}
