//! Password guessing, slowed in the console itself: the cluster sees every login come from
//! the console's address, so only the console can tell one guesser from another.
//!
//! Failed logins are counted per user name and per source address (the peer of the HTTP
//! connection; behind a reverse proxy that is the proxy). Past a few free failures every
//! further attempt waits for a delay that doubles with each failure, up to a cap; an attempt
//! within the delay is refused with 429 and `Retry-After` before any connection to the
//! cluster is made (the right password included, or waiting would not slow a guesser). An
//! attempt counts as a failure from the moment it is let through (so guesses sent in parallel
//! are counted before any of them is answered); a login that succeeds clears its user name's
//! count and takes its own attempt off its source's, one that fails for another reason than
//! its credentials (the cluster unreachable) takes its attempt off both. A source's count is
//! not cleared by a success: a guesser with an account of its own could reset it. Counts are
//! forgotten once a key has been quiet for an hour; the table is bounded.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures of one user name before the delay starts.
pub(crate) const FREE_PER_USER: u32 = 3;
/// Failures from one source before the delay starts (more: several people may share an
/// address).
pub(crate) const FREE_PER_SOURCE: u32 = 10;
/// The first delay; each further failure doubles it.
pub(crate) const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The longest delay.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(15 * 60);
/// A key without a failure for this long is forgotten.
const FORGET_AFTER: Duration = Duration::from_secs(60 * 60);
/// Keys kept at most; past it the longest-quiet ones are dropped.
const MAX_KEYS: usize = 100_000;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    User(String),
    Source(IpAddr),
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

impl Failures {
    /// When the next attempt may be made.
    fn next_allowed(&self, free: u32) -> Instant {
        if self.count < free {
            return self.last;
        }
        let doublings = (self.count - free).min(20);
        let delay = FIRST_DELAY.saturating_mul(1 << doublings).min(MAX_DELAY);
        self.last + delay
    }
}

/// The failure counts (see the module documentation).
#[derive(Debug, Default)]
pub(crate) struct Throttle {
    keys: Mutex<HashMap<Key, Failures>>,
}

impl Throttle {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Failures>> {
        self.keys.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn keys(user: &str, source: Option<IpAddr>) -> [(Option<Key>, u32); 2] {
        [
            (Some(Key::User(user.to_owned())), FREE_PER_USER),
            (source.map(Key::Source), FREE_PER_SOURCE),
        ]
    }

    /// Lets a login of `user` from `source` through, counting it as a failure until it is
    /// known to be none, or `Err(wait)`: it must wait that long more (and is not counted).
    pub(crate) fn attempt(&self, user: &str, source: Option<IpAddr>) -> Result<(), Duration> {
        let now = Instant::now();
        let mut keys = self.lock();
        let mut wait = Duration::ZERO;
        for (key, free) in Self::keys(user, source) {
            if let Some(f) = key.and_then(|k| keys.get(&k)) {
                wait = wait.max(f.next_allowed(free).saturating_duration_since(now));
            }
        }
        if !wait.is_zero() {
            return Err(wait);
        }
        if keys.len() >= MAX_KEYS {
            keys.retain(|_, f| now.duration_since(f.last) < FORGET_AFTER);
            if keys.len() >= MAX_KEYS {
                // Still full: the quieter half goes (a flood of names must not grow memory).
                let mut lasts: Vec<Instant> = keys.values().map(|f| f.last).collect();
                lasts.sort_unstable();
                let cut = lasts[lasts.len() / 2];
                keys.retain(|_, f| f.last > cut);
            }
        }
        for (key, _) in Self::keys(user, source) {
            if let Some(key) = key {
                let f = keys.entry(key).or_insert(Failures {
                    count: 0,
                    last: now,
                });
                f.count = f.count.saturating_add(1);
                f.last = now;
            }
        }
        Ok(())
    }

    /// The login let through for `user` from `source` succeeded.
    pub(crate) fn succeeded(&self, user: &str, source: Option<IpAddr>) {
        let mut keys = self.lock();
        keys.remove(&Key::User(user.to_owned()));
        if let Some(source) = source {
            forgive(&mut keys, Key::Source(source));
        }
    }

    /// The login let through for `user` from `source` failed, but not on its credentials.
    pub(crate) fn not_a_guess(&self, user: &str, source: Option<IpAddr>) {
        let mut keys = self.lock();
        for (key, _) in Self::keys(user, source) {
            if let Some(key) = key {
                forgive(&mut keys, key);
            }
        }
    }

    /// Forgets keys quiet for [`FORGET_AFTER`] (from the background task).
    pub(crate) fn expire(&self) {
        let now = Instant::now();
        self.lock()
            .retain(|_, f| now.duration_since(f.last) < FORGET_AFTER);
    }
}

/// Takes one attempt off `key`'s count.
fn forgive(keys: &mut HashMap<Key, Failures>, key: Key) {
    if let Some(f) = keys.get_mut(&key) {
        f.count = f.count.saturating_sub(1);
        if f.count == 0 {
            keys.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_starts_after_the_free_failures_and_doubles() {
        let f = |count| Failures {
            count,
            last: Instant::now(),
        };
        let delay = |count| {
            let x = f(count);
            x.next_allowed(FREE_PER_USER) - x.last
        };
        assert_eq!(delay(2), Duration::ZERO);
        assert_eq!(delay(3), FIRST_DELAY);
        assert_eq!(delay(4), FIRST_DELAY * 2);
        assert_eq!(delay(5), FIRST_DELAY * 4);
        assert_eq!(delay(100), MAX_DELAY);
    }

    #[test]
    fn a_user_and_a_source_are_throttled_apart_and_success_clears_the_user() {
        let t = Throttle::default();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..FREE_PER_USER {
            assert!(t.attempt("alice", Some(a)).is_ok());
        }
        // alice waits from any source; bob from a does not (yet).
        let wait = t.attempt("alice", Some(b)).unwrap_err();
        assert!(wait > Duration::ZERO && wait <= FIRST_DELAY, "{wait:?}");
        assert!(t.attempt("bob", Some(a)).is_ok());
        t.succeeded("bob", Some(a));
        t.succeeded("alice", Some(a));
        assert!(t.attempt("alice", Some(b)).is_ok());
        t.not_a_guess("alice", Some(b));
        // Many names from one source: the source waits, whatever the name.
        for i in 0..FREE_PER_SOURCE {
            assert!(t.attempt(&format!("user{i}"), Some(b)).is_ok());
        }
        assert!(t.attempt("someone-new", Some(b)).is_err());
        assert!(t.attempt("someone-new", Some(a)).is_ok());
        // A success does not reset the source's count.
        t.succeeded("someone-new", Some(a));
        t.succeeded("user0", Some(b));
        assert!(t.attempt("someone-else", Some(b)).is_ok());
        assert!(t.attempt("someone-else2", Some(b)).is_err());
    }
}
