//! Refused-attempt limiter benchmark: the gate's limiter against the algorithm it replaced, in
//! one run.
//!
//! A flood from one IPv6 /48 holds 65,536 /64 blocks, each a client address of its own. The
//! limiter counts each refused attempt under a mutex every refused request takes; the previous
//! algorithm, kept here as the reference, scanned its whole table (`HashMap::retain`) for every
//! new key once the table held [`MAX_TRACKED`] live keys. For `--rechazos` distinct /64 clients,
//! each refused once (`check_client`, then `refused_client`, as the shop does), it prints for
//! both the total time, the mean, the p50, p99 and p99.9 of one refusal and the slowest (how
//! long one request held the lock), and their ratios, in two scenarios: every refusal within one
//! window (the flood), and the clock moving one second every `--rechazos / 1200` refusals (keys
//! expire as new ones come, and the table never fills). Run it in release mode:
//!
//! ```sh
//! cargo run --release -p tests --bin bench-limits [-- --rechazos 100000 --rondas 3]
//! ```

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::time::{Duration, Instant};

use gate::payment::limits::{Limiter, MAX_TRACKED, RefusalLimits};
use parking_lot::Mutex;
use tests::programs::bench_limits::Args;

fn main() {
    let args: Args = cli::parse();
    let refusals = args.refusals as usize;
    let limits = RefusalLimits::default();
    println!(
        "{refusals} clientes /64 distintos, un rechazo cada uno; ventana {} s, tabla de {MAX_TRACKED} claves; mejor de {} rondas",
        limits.window.as_secs(),
        args.rounds
    );
    println!(
        "{:<17} {:<16} {:>9} {:>11} {:>9} {:>9} {:>10} {:>10} {:>7}",
        "escenario", "limitador", "total ms", "media ns", "p50 ns", "p99 ns", "p99.9 ns", "máx µs", "claves"
    );
    for (scenario, seconds_every) in [("una ventana", 0), ("reloj que avanza", (refusals / 1200).max(1))] {
        let clock = |n: usize| 1_000 + n.checked_div(seconds_every).unwrap_or(0) as u64;
        let new = best_of(args.rounds, || {
            let limiter = Limiter::new(limits);
            let run = measure(refusals, clock, |client, now| {
                let _ = limiter.check_client(Some(client), now);
                limiter.refused_client(Some(client), now);
            });
            (run, limiter.tracked().0)
        });
        let old = best_of(args.rounds, || {
            let limiter = ScanningLimiter::new(limits);
            let run = measure(refusals, clock, |client, now| {
                let _ = limiter.check_client(client, now);
                limiter.refused_client(client, now);
            });
            (run, limiter.clients.lock().entries.len())
        });
        for (name, (run, keys)) in [("actual", &new), ("anterior (ref.)", &old)] {
            println!(
                "{:<17} {:<16} {:>9.1} {:>11.0} {:>9} {:>9} {:>10} {:>10.1} {:>7}",
                scenario,
                name,
                run.total.as_secs_f64() * 1e3,
                run.total.as_secs_f64() * 1e9 / refusals as f64,
                run.percentile(0.50),
                run.percentile(0.99),
                run.percentile(0.999),
                run.percentile(1.0) as f64 / 1e3,
                keys,
            );
        }
        let ratio = |f: &dyn Fn(&Run) -> f64| f(&old.0) / f(&new.0).max(1e-9);
        println!(
            "{:<17} anterior ÷ actual: total {:.2}×, p99 {:.1}×, p99.9 {:.1}×, máx {:.1}×",
            scenario,
            ratio(&|r| r.total.as_secs_f64()),
            ratio(&|r| r.percentile(0.99) as f64),
            ratio(&|r| r.percentile(0.999) as f64),
            ratio(&|r| r.percentile(1.0) as f64),
        );
    }
    println!(
        "cada rechazo = check_client + refused_client (dos tomas del candado), medido con Instant alrededor; \
         total incluye esas mediciones en ambos"
    );
}

/// One run: its total time and each refusal's, in nanoseconds, sorted.
struct Run {
    total: Duration,
    each: Vec<u64>,
}

impl Run {
    /// The refusal time at quantile `q` (1.0: the slowest), nanoseconds.
    fn percentile(&self, q: f64) -> u64 {
        let last = self.each.len().saturating_sub(1);
        self.each.get(((last as f64) * q).round() as usize).copied().unwrap_or(0)
    }
}

/// The run with the shortest total of `rounds` (with the keys it left).
fn best_of(rounds: u64, mut once: impl FnMut() -> (Run, usize)) -> (Run, usize) {
    (0..rounds)
        .map(|_| once())
        .min_by_key(|(run, _)| run.total)
        .unwrap_or((Run { total: Duration::MAX, each: Vec::new() }, 0))
}

/// Refuses `refusals` distinct /64 clients of 2001:db8::/32 (65,536 per /48), the n-th at `clock(n)`.
fn measure(refusals: usize, clock: impl Fn(usize) -> u64, refuse: impl Fn(IpAddr, u64)) -> Run {
    let clients: Vec<IpAddr> = (0..refusals)
        .map(|n| {
            let n = n as u64;
            let segments = [0x2001, 0x0db8, (n >> 16) as u16, n as u16, 0, 0, 0, 1];
            IpAddr::V6(Ipv6Addr::from(segments))
        })
        .collect();
    let mut each = Vec::with_capacity(refusals);
    let started = Instant::now();
    for (n, client) in clients.iter().enumerate() {
        let one = Instant::now();
        refuse(*client, clock(n));
        each.push(one.elapsed().as_nanos() as u64);
    }
    let total = started.elapsed();
    each.sort_unstable();
    Run { total, each }
}

/// The reference: the client table of the limiter before eviction by time order, as it was
/// (fixed window per key, a full-table `retain` under the lock for each new key once full).
struct ScanningLimiter {
    clients: Mutex<ScanningWindows>,
}

struct ScanningWindows {
    limit: u32,
    window: u64,
    entries: HashMap<IpAddr, (u64, u32)>,
}

impl ScanningLimiter {
    fn new(limits: RefusalLimits) -> ScanningLimiter {
        let window = limits.window.as_secs().max(1);
        ScanningLimiter {
            clients: Mutex::new(ScanningWindows { limit: limits.per_client, window, entries: HashMap::new() }),
        }
    }

    fn check_client(&self, client: IpAddr, now: u64) -> Option<u64> {
        let windows = self.clients.lock();
        let (started, count) = windows.entries.get(&prefix(client))?;
        let ends = started + windows.window;
        (now < ends && *count >= windows.limit).then(|| ends - now)
    }

    fn refused_client(&self, client: IpAddr, now: u64) {
        let key = prefix(client);
        let mut windows = self.clients.lock();
        if windows.entries.len() >= MAX_TRACKED && !windows.entries.contains_key(&key) {
            let window = windows.window;
            windows.entries.retain(|_, (started, _)| now < *started + window);
            if windows.entries.len() >= MAX_TRACKED {
                return;
            }
        }
        let window = windows.window;
        let entry = windows.entries.entry(key).or_insert((now, 0));
        if now >= entry.0 + window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }
}

/// IPv4 as is; IPv6 by its /64 (as the gate's limiter).
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
