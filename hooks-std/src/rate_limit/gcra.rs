//! The generic cell rate algorithm: one number of state per bucket, exact
//! bursts, smooth refill.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// At most `max` calls per `per`, as a burst or spread out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    /// How many calls.
    pub max: u32,
    /// In how long.
    #[serde(with = "crate::config::duration")]
    pub per: Duration,
}

impl Limit {
    /// `max` calls per `per`.
    pub const fn new(max: u32, per: Duration) -> Self {
        Limit { max, per }
    }

    // Time is counted in units of `1/max` nanosecond, so that one call costs
    // exactly `per` in nanoseconds — no division, no rounding: `2000 calls
    // per 1µs` costs 1000 units a call, not the 0 ns `1µs / 2000` would
    // round to (which admitted every call). In `u128`, nothing can overflow:
    // now (< 2^64 ns) times max (< 2^32) is below 2^96, and `per` (a
    // `Duration`, < 2^94 ns) times max is below 2^126.

    /// What one call costs, in units of `1/max` ns: `per` in nanoseconds.
    fn interval(self) -> u128 {
        self.per.as_nanos()
    }

    /// How far ahead of now a bucket may run: a burst of `max` calls.
    fn tolerance(self) -> u128 {
        self.interval() * u128::from(self.max.max(1) - 1)
    }

    /// `now` in units of `1/max` ns.
    pub(crate) fn scaled(self, now: Duration) -> u128 {
        now.as_nanos() * u128::from(self.max.max(1))
    }

    /// `units` of `1/max` ns as a duration, rounded up (a wait never ends early).
    fn duration(self, units: u128) -> Duration {
        let nanos = units.div_ceil(u128::from(self.max.max(1)));
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// Admits a call at `now` against the bucket's theoretical arrival time
    /// `tat` (in units of `1/max` ns; updated in place), or says how long
    /// until one would be admitted.
    pub(crate) fn acquire(self, tat: &mut u128, now: Duration) -> Result<(), Duration> {
        let now = self.scaled(now);
        let arrival = (*tat).max(now);
        let ahead = arrival - now;
        if ahead > self.tolerance() {
            return Err(self.duration(ahead - self.tolerance()));
        }
        *tat = arrival + self.interval();
        Ok(())
    }

    /// Gives back a call admitted by [`acquire`](Self::acquire) that did not go ahead.
    pub(crate) fn release(self, tat: &mut u128) {
        *tat = tat.saturating_sub(self.interval());
    }

    /// Whether a bucket at `tat` is full again at `now` (dropping it loses nothing).
    pub(crate) fn idle(self, tat: u128, now: Duration) -> bool {
        tat <= self.scaled(now)
    }

    /// How long until a bucket at `tat` is full again.
    pub(crate) fn until_idle(self, tat: u128, now: Duration) -> Duration {
        self.duration(tat.saturating_sub(self.scaled(now)))
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} calls per {}",
            self.max,
            humantime::format_duration(self.per)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_burst_of_max_then_one_per_interval() {
        let limit = Limit::new(3, 3 * SECOND);
        let mut tat = 0;
        let now = Duration::from_secs(100);
        for _ in 0..3 {
            assert_eq!(limit.acquire(&mut tat, now), Ok(()));
        }
        assert_eq!(limit.acquire(&mut tat, now), Err(SECOND));
        assert_eq!(limit.acquire(&mut tat, now + SECOND / 2), Err(SECOND / 2));
        assert_eq!(limit.acquire(&mut tat, now + SECOND), Ok(()));
        assert_eq!(limit.acquire(&mut tat, now + SECOND), Err(SECOND));
    }

    #[test]
    fn an_idle_bucket_refills_to_a_full_burst_and_no_more() {
        let limit = Limit::new(2, 2 * SECOND);
        let mut tat = 0;
        let later = Duration::from_secs(1_000);
        assert!(limit.acquire(&mut tat, later).is_ok());
        assert!(limit.acquire(&mut tat, later).is_ok());
        assert!(limit.acquire(&mut tat, later).is_err());
    }

    #[test]
    fn more_calls_than_nanoseconds_in_the_window_are_still_counted() {
        // 1µs / 2000 rounds to 0 ns a call: every call would be admitted.
        let limit = Limit::new(2_000, Duration::from_micros(1));
        let mut tat = 0;
        let now = Duration::from_secs(5);
        for _ in 0..2_000 {
            assert_eq!(limit.acquire(&mut tat, now), Ok(()));
        }
        assert!(limit.acquire(&mut tat, now).is_err());
        // One call's worth later (0.5 ns: rounded up, 1 ns), one more.
        assert_eq!(
            limit.acquire(&mut tat, now + Duration::from_nanos(1)),
            Ok(())
        );
    }

    #[test]
    fn the_longest_windows_and_largest_counts_do_not_overflow() {
        for limit in [
            Limit::new(u32::MAX, Duration::MAX),
            Limit::new(1, Duration::MAX),
            Limit::new(u32::MAX, Duration::from_nanos(1)),
        ] {
            let mut tat = 0;
            let now = Duration::from_nanos(u64::MAX);
            assert_eq!(limit.acquire(&mut tat, now), Ok(()));
            if limit.max == 1 {
                let wait = limit.acquire(&mut tat, now).unwrap_err();
                assert_eq!(wait, Duration::from_nanos(u64::MAX), "capped, not wrapped");
            }
        }
    }

    #[test]
    fn a_released_call_can_be_taken_again() {
        let limit = Limit::new(1, SECOND);
        let mut tat = 0;
        assert!(limit.acquire(&mut tat, SECOND).is_ok());
        assert!(limit.acquire(&mut tat, SECOND).is_err());
        limit.release(&mut tat);
        assert!(limit.acquire(&mut tat, SECOND).is_ok());
    }
}
