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

    /// The time one call "costs": `per / max`, in nanoseconds.
    fn interval(self) -> u64 {
        u64::try_from(self.per.as_nanos() / u128::from(self.max.max(1))).unwrap_or(u64::MAX)
    }

    /// How far ahead of now the bucket may run: a burst of `max` calls.
    fn tolerance(self) -> u64 {
        u64::try_from(self.per.as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_sub(self.interval())
    }

    /// Admits a call at `now` against the bucket's theoretical arrival time
    /// `tat` (updated in place), or says how long until one would be admitted.
    pub(crate) fn acquire(self, tat: &mut u64, now: Duration) -> Result<(), Duration> {
        let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let arrival = (*tat).max(now);
        let ahead = arrival - now;
        if ahead > self.tolerance() {
            return Err(Duration::from_nanos(ahead - self.tolerance()));
        }
        *tat = arrival.saturating_add(self.interval());
        Ok(())
    }

    /// Gives back a call admitted by [`acquire`](Self::acquire) that did not go ahead.
    pub(crate) fn release(self, tat: &mut u64) {
        *tat = tat.saturating_sub(self.interval());
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
    fn a_released_call_can_be_taken_again() {
        let limit = Limit::new(1, SECOND);
        let mut tat = 0;
        assert!(limit.acquire(&mut tat, SECOND).is_ok());
        assert!(limit.acquire(&mut tat, SECOND).is_err());
        limit.release(&mut tat);
        assert!(limit.acquire(&mut tat, SECOND).is_ok());
    }
}
