//! Bounded cost of refused purchase attempts.
//!
//! Anyone can sign a well-formed payment from a key with no funds: it passes the local checks
//! and costs a facilitator call and two journal lines before the facilitator refuses it. So
//! refused attempts are counted per client address (IPv6 by /64) and, once the signature has
//! shown who pays, per payer; past their limit within the window, an attempt gets 429 with
//! `Retry-After` before anything is settled or journaled. A global budget of refused
//! settlements is the circuit breaker against many addresses at once. The tables hold at most
//! [`MAX_TRACKED`] keys each, so a flood cannot grow memory either. Successful purchases and
//! repeats of a paid or uncertain purchase are never counted or blocked.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::time::Duration;

use parking_lot::Mutex;

/// Most keys each table tracks (≈ 64 bytes each).
pub const MAX_TRACKED: usize = 65_536;

/// The limits, as the command line sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefusalLimits {
    /// Refused attempts a client address may make per window.
    pub per_client: u32,
    /// Refused settlements a payer may have per window.
    pub per_payer: u32,
    /// Refused settlements the whole gate accepts per window before refusing new ones.
    pub global: u32,
    pub window: Duration,
}

impl Default for RefusalLimits {
    fn default() -> Self {
        RefusalLimits { per_client: 20, per_payer: 5, global: 600, window: Duration::from_secs(600) }
    }
}

/// Why an attempt is turned away, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    pub scope: Scope,
    pub retry_after: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Client,
    Payer,
    Global,
}

/// One fixed-window counter per key, and the keys in the order their windows started.
///
/// Every insertion or window restart appends `(started, key)` to `starts`; `add` first pops the
/// front records whose windows have ended (removing their keys when the record is still the
/// key's current one), so each record is pushed and popped once: eviction costs amortized O(1)
/// per refused attempt and never scans the table under the lock. A record left behind by a
/// restart is stale (its `started` differs from the key's) and is dropped when it reaches the
/// front.
#[derive(Debug)]
struct Windows<K> {
    limit: u32,
    window: u64,
    entries: HashMap<K, (u64, u32)>,
    starts: VecDeque<(u64, K)>,
}

impl<K: std::hash::Hash + Eq + Clone> Windows<K> {
    fn new(limit: u32, window: u64) -> Self {
        Windows { limit, window, entries: HashMap::new(), starts: VecDeque::new() }
    }

    /// Seconds until `key` may try again, if it is over its limit now.
    fn over(&self, key: &K, now: u64) -> Option<u64> {
        let (started, count) = self.entries.get(key)?;
        let ends = started.saturating_add(self.window);
        (now < ends && *count >= self.limit).then(|| ends - now)
    }

    fn add(&mut self, key: K, now: u64) {
        self.evict_ended(now);
        let full = self.entries.len() >= MAX_TRACKED;
        match self.entries.entry(key) {
            Entry::Occupied(mut occupied) => {
                let entry = occupied.get_mut();
                if now >= entry.0.saturating_add(self.window) {
                    *entry = (now, 0);
                    self.starts.push_back((now, occupied.key().clone()));
                }
                let entry = occupied.into_mut();
                entry.1 = entry.1.saturating_add(1);
            }
            // Full of live keys: the global budget is what holds the line now.
            Entry::Vacant(_) if full => return,
            Entry::Vacant(vacant) => {
                self.starts.push_back((now, vacant.key().clone()));
                vacant.insert((now, 1));
            }
        }
        if self.starts.len() > 2 * MAX_TRACKED {
            // Only a clock that went back can leave stale records behind a live front; dropping
            // them costs O(n) once per MAX_TRACKED pushes at most.
            let entries = &self.entries;
            self.starts.retain(|(started, key)| entries.get(key).is_some_and(|(s, _)| s == started));
        }
    }

    /// Forgets the keys whose windows ended by `now`, oldest first, stopping at the first window
    /// still running: O(keys forgotten).
    fn evict_ended(&mut self, now: u64) {
        while let Some((started, _)) = self.starts.front() {
            if now < started.saturating_add(self.window) {
                break;
            }
            let Some((started, key)) = self.starts.pop_front() else { break };
            if self.entries.get(&key).is_some_and(|(current, _)| *current == started) {
                self.entries.remove(&key);
            }
        }
    }
}

/// The counters of refused attempts.
#[derive(Debug)]
pub struct Limiter {
    limits: RefusalLimits,
    clients: Mutex<Windows<IpAddr>>,
    payers: Mutex<Windows<String>>,
    global: Mutex<Windows<()>>,
}

impl Limiter {
    pub fn new(limits: RefusalLimits) -> Limiter {
        let window = limits.window.as_secs().max(1);
        Limiter {
            limits,
            clients: Mutex::new(Windows::new(limits.per_client, window)),
            payers: Mutex::new(Windows::new(limits.per_payer, window)),
            global: Mutex::new(Windows::new(limits.global, window)),
        }
    }

    pub fn limits(&self) -> RefusalLimits {
        self.limits
    }

    /// Turns away a client address over its limit (checked before anything else).
    pub fn check_client(&self, client: Option<IpAddr>, now: u64) -> Result<(), Limited> {
        let Some(client) = client.map(prefix) else { return Ok(()) };
        match self.clients.lock().over(&client, now) {
            Some(retry_after) => Err(Limited { scope: Scope::Client, retry_after }),
            None => Ok(()),
        }
    }

    /// Turns away a payer over its limit, or everyone while the global budget is spent
    /// (checked once the signature is verified, before the facilitator is called).
    pub fn check_payer(&self, payer: &str, now: u64) -> Result<(), Limited> {
        if let Some(retry_after) = self.payers.lock().over(&payer.to_ascii_lowercase(), now) {
            return Err(Limited { scope: Scope::Payer, retry_after });
        }
        if let Some(retry_after) = self.global.lock().over(&(), now) {
            return Err(Limited { scope: Scope::Global, retry_after });
        }
        Ok(())
    }

    /// Counts a refused attempt against its client address.
    pub fn refused_client(&self, client: Option<IpAddr>, now: u64) {
        if let Some(client) = client.map(prefix) {
            self.clients.lock().add(client, now);
        }
    }

    /// Counts a settlement the facilitator refused against its payer and the global budget.
    pub fn refused_settlement(&self, payer: &str, now: u64) {
        self.payers.lock().add(payer.to_ascii_lowercase(), now);
        self.global.lock().add((), now);
    }

    /// Keys tracked now (clients, payers), for the tests and the benchmark.
    pub fn tracked(&self) -> (usize, usize) {
        (self.clients.lock().entries.len(), self.payers.lock().entries.len())
    }
}

/// IPv4 as is; IPv6 by its /64, which one subscriber usually holds whole.
fn prefix(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter() -> Limiter {
        Limiter::new(RefusalLimits { per_client: 3, per_payer: 2, global: 5, window: Duration::from_secs(60) })
    }

    #[test]
    fn a_client_is_turned_away_after_its_limit_until_the_window_ends() {
        let l = limiter();
        let client = Some("203.0.113.7".parse().unwrap());
        for _ in 0..3 {
            assert!(l.check_client(client, 100).is_ok());
            l.refused_client(client, 100);
        }
        assert_eq!(l.check_client(client, 130), Err(Limited { scope: Scope::Client, retry_after: 30 }));
        assert!(l.check_client(Some("203.0.113.8".parse().unwrap()), 130).is_ok(), "another address is not");
        assert!(l.check_client(client, 160).is_ok(), "a new window");
        assert!(l.check_client(None, 130).is_ok(), "no address, no client limit");
    }

    #[test]
    fn ipv6_counts_by_its_64_prefix() {
        let l = limiter();
        for host in 1..=3 {
            l.refused_client(Some(format!("2001:db8:1:2::{host}").parse().unwrap()), 0);
        }
        assert!(l.check_client(Some("2001:db8:1:2:ffff::9".parse().unwrap()), 1).is_err());
        assert!(l.check_client(Some("2001:db8:1:3::1".parse().unwrap()), 1).is_ok());
        assert_eq!(prefix("::ffff:198.51.100.4".parse().unwrap()), "198.51.100.4".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn payers_and_the_global_budget_are_limited_by_refused_settlements() {
        let l = limiter();
        l.refused_settlement("0xABC", 0);
        l.refused_settlement("0xabc", 0);
        assert_eq!(l.check_payer("0xAbC", 10).map_err(|e| e.scope), Err(Scope::Payer), "case-insensitive");
        assert!(l.check_payer("0xdef", 10).is_ok());
        for payer in ["0x1", "0x2", "0x3"] {
            l.refused_settlement(payer, 0);
        }
        assert_eq!(l.check_payer("0xnew", 10).map_err(|e| e.scope), Err(Scope::Global), "the breaker is open");
        assert!(l.check_payer("0xnew", 60).is_ok(), "and closes with the window");
    }

    #[test]
    fn the_tables_never_hold_more_than_their_bound() {
        let l = Limiter::new(RefusalLimits { per_client: 1, ..RefusalLimits::default() });
        for n in 0..(MAX_TRACKED as u32 + 1000) {
            l.refused_client(Some(IpAddr::V4(n.into())), 0);
        }
        assert_eq!(l.tracked().0, MAX_TRACKED);
        // Once their windows end, old keys make room.
        l.refused_client(Some("192.0.2.1".parse().unwrap()), 10_000);
        assert_eq!(l.tracked().0, 1);
    }

    #[test]
    fn ended_windows_are_forgotten_oldest_first_without_waiting_for_a_full_table() {
        let l = limiter();
        // Two new keys a second for 50 s (window 60 s): none has ended yet.
        for n in 0..100u32 {
            l.refused_client(Some(IpAddr::V4(n.into())), u64::from(n / 2));
        }
        assert_eq!(l.tracked().0, 100);
        // At 100 the windows started at 40 or before have ended: the 18 newest keys remain.
        l.refused_client(Some("192.0.2.1".parse().unwrap()), 100);
        assert_eq!(l.tracked().0, 19);
        assert_eq!(l.clients.lock().starts.len(), 19, "one record per live key");
        assert!(l.check_client(Some(IpAddr::V4(99.into())), 100).is_ok());
    }

    #[test]
    fn a_restarted_window_survives_the_record_of_its_previous_one() {
        let mut w: Windows<&str> = Windows::new(1, 60);
        w.add("b", 150);
        // A clock that went back: "a" starts behind a live front, then restarts.
        w.add("a", 100);
        w.add("a", 200);
        assert_eq!(w.entries.get("a"), Some(&(200, 1)));
        // At 215 "b" and the stale record of "a" go; "a"'s current window stays.
        w.add("c", 215);
        assert!(!w.entries.contains_key("b"));
        assert_eq!(w.over(&"a", 215), Some(45));
        assert_eq!(w.starts.len(), 2);
    }

    #[test]
    fn the_order_of_windows_stays_bounded_when_the_clock_goes_back_and_forth() {
        let mut w: Windows<u32> = Windows::new(1, 10);
        // A live front at 1,000 holds everything behind it; each key restarts many times.
        w.add(u32::MAX, 1_000);
        for round in 0..40u64 {
            for key in 0..10_000u32 {
                w.add(key, round * 10);
            }
        }
        assert!(w.starts.len() <= 2 * MAX_TRACKED + 1, "{}", w.starts.len());
        assert!(w.entries.len() <= MAX_TRACKED);
    }
}
