//! Wall-clock time for the few things that need it: authorization windows, link expiry and
//! the dates written into the sales journal. Nothing the generator hashes reads the clock.
//!
//! A gate reads the time through its [`Clock`], the system clock moved by an offset that only
//! the end-to-end tests change: so a test can let a week pass (links expire, a sign-in challenge
//! goes stale) on one in-process gate without touching any other.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Seconds a test build's gate process moves its clock by (see [`Clock::for_process`]).
pub const TEST_OFFSET_ENV: &str = "GATE_RELOJ_PRUEBA";

/// A gate's clock: the system clock plus an offset shared by every clone (zero unless a test
/// moved it with [`Clock::advance`]).
#[derive(Debug, Clone, Default)]
pub struct Clock {
    offset: Arc<AtomicI64>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// The clock a gate process starts with: the system clock, except in builds with the
    /// `test-faults` feature, where [`TEST_OFFSET_ENV`] moves it by that many seconds (the
    /// interop suite starts a second gate a week ahead, where a purchase's links are dead).
    pub fn for_process() -> Clock {
        let clock = Clock::system();
        #[cfg(feature = "test-faults")]
        if let Some(seconds) = std::env::var(TEST_OFFSET_ENV).ok().and_then(|v| v.trim().parse::<i64>().ok()) {
            tracing::warn!("{TEST_OFFSET_ENV}: el reloj de este gate va {seconds} s adelantado (solo pruebas)");
            clock.advance(seconds);
        }
        clock
    }

    /// Seconds since the Unix epoch, as this gate sees them.
    pub fn now(&self) -> u64 {
        now().saturating_add_signed(self.offset.load(Ordering::Relaxed))
    }

    /// Moves this clock (and every clone of it) by `seconds`. Tests only: the server never calls it.
    pub fn advance(&self, seconds: i64) {
        self.offset.fetch_add(seconds, Ordering::Relaxed);
    }
}

/// `2026-11-29T12:00:00Z` from Unix seconds (UTC, proleptic Gregorian).
pub fn iso8601(unix: u64) -> String {
    let mut out = String::with_capacity(20);
    push_date_time(&mut out, unix);
    out.push('Z');
    out
}

/// Appends `2026-11-29T12:00:00` (no zone) for Unix seconds. Written digit by digit: the
/// unpaid 402 writes two of these per request, where `format!` was a tenth of its cost.
pub fn push_date_time(out: &mut String, unix: u64) {
    let days = (unix / 86_400) as i64;
    let secs = (unix % 86_400) as i64;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let fields = [(year, 4, '-'), (month, 2, '-'), (day, 2, 'T'), (secs / 3600, 2, ':'), (secs % 3600 / 60, 2, ':')];
    for (value, width, separator) in fields {
        push_digits(out, value, width);
        out.push(separator);
    }
    push_digits(out, secs % 60, 2);
}

/// Appends `value` in decimal, zero-padded to `width` digits (more if it needs them).
fn push_digits(out: &mut String, value: i64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut rest = value.unsigned_abs();
    let mut n = 0;
    while rest > 0 || n < width {
        digits[n] = b'0' + (rest % 10) as u8;
        rest /= 10;
        n += 1;
    }
    out.extend(digits[..n].iter().rev().map(|&d| char::from(d)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(iso8601(1_709_164_800), "2024-02-29T00:00:00Z");
        assert_eq!(iso8601(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(iso8601(253_402_300_800), "10000-01-01T00:00:00Z");
    }

    #[test]
    fn a_moved_clock_moves_every_clone() {
        let clock = Clock::system();
        let twin = clock.clone();
        let before = clock.now();
        twin.advance(8 * 86_400);
        assert!(clock.now() >= before + 8 * 86_400);
        assert!(Clock::system().now() < before + 86_400, "other clocks stay put");
    }
}
