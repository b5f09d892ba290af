//! Soak: mixed traffic against the release `gate` for a while at many connections, to show it
//! stays correct and flat under load: free routes, 402 answers, purchases (each journaled and
//! fsync'd) settled by the local facilitator in a process of its own, as a gate's facilitator
//! is another service (the one embedded in the gate for development keeps every settled nonce,
//! as a chain does, and would count in the gate's memory), downloads through the links they
//! return, and MCP calls when the gate serves `/mcp`. Prints unexpected statuses (target 0),
//! p99 per route, and the gate's RSS at start and end (target: growth under 64 MB), sampled
//! every `--muestras` seconds with the sales still live in the gate's replay memory (those whose
//! authorization has not expired: the gate keeps each until then, to recognise a repeat) and
//! the bytes the gate holds per live sale: RSS growth since the start over live sales.
//!
//! ```sh
//! cargo build --release -p gate -p generator -p tests --bins
//! target/release/soak [--segundos 60 --conexiones 100 --muestras 30]
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_signer_local::PrivateKeySigner;
use anyhow::{Context, Result, bail};
use gate::x402::PaymentRequirements;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
use gate::x402::header::encode_json;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tests::programs::soak::Args;

const BUILT_BASE_URL: &str = "http://127.0.0.1:8080";

fn main() {
    if let Err(e) = run() {
        eprintln!("soak: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

struct Options {
    seconds: u64,
    connections: usize,
    /// Seconds of the same traffic before the starting RSS is taken (thread pools, buffers
    /// and caches reach their working size), so growth measures the soak, not the start-up.
    warmup: u64,
    /// Seconds between two samples of the gate's memory.
    every: u64,
}

fn options() -> Result<Options> {
    let args: Args = cli::parse();
    if args.samples == 0 {
        bail!("--muestras debe ser al menos 1");
    }
    Ok(Options { seconds: args.seconds, connections: args.connections, warmup: args.warmup, every: args.samples })
}

/// The sales the soak made that the gate still holds for replay: each until its
/// authorization's `validBefore`, in the order they were made.
#[derive(Default)]
struct Live {
    until: std::collections::VecDeque<u64>,
    sold: u64,
}

impl Live {
    fn sold(&mut self, valid_before: u64) {
        self.until.push_back(valid_before);
        self.sold += 1;
    }

    /// Sales whose authorization is still valid at `now` (the gate's replay memory keeps
    /// those; it may drop the others).
    fn at(&mut self, now: u64) -> usize {
        while self.until.front().is_some_and(|until| *until < now) {
            self.until.pop_front();
        }
        self.until.len()
    }
}

type Sold = Arc<Mutex<Live>>;

/// Kills the child when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Latencies and statuses of one route.
#[derive(Default)]
struct RouteStats {
    ms: Vec<f64>,
    unexpected: BTreeMap<String, u64>,
}

type Stats = Arc<Mutex<BTreeMap<&'static str, RouteStats>>>;

fn record(
    stats: &Stats,
    route: &'static str,
    started: Instant,
    outcome: std::result::Result<u16, String>,
    expected: &[u16],
) {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut stats = stats.lock();
    let entry = stats.entry(route).or_default();
    entry.ms.push(ms);
    match outcome {
        Ok(status) if expected.contains(&status) => {}
        Ok(status) => *entry.unexpected.entry(status.to_string()).or_default() += 1,
        Err(e) => *entry.unexpected.entry(e).or_default() += 1,
    }
}

fn run() -> Result<()> {
    let options = options()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = std::env::current_exe()?.parent().context("bin dir")?.to_path_buf();
    let work = std::env::temp_dir().join(format!("soak-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let dist = work.join("dist");
    let status = Command::new(bin.join("generator"))
        .args(["build", "--quiet", "--content"])
        .arg(root.join("tests/muestra"))
        .arg("--out")
        .arg(&dist)
        .status()
        .context("falta target/release/generator: cargo build --release -p gate -p generator --bins")?;
    if !status.success() {
        bail!("generator build falló");
    }
    let port_fac = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let facilitator = Command::new(bin.join("facilitador-local"))
        .args(["--listen", &format!("127.0.0.1:{port_fac}"), "--sin-libro", "--threads", "1", "--data"])
        .arg(work.join("fac"))
        .env("GATE_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .context("falta target/release/facilitador-local")?;
    let facilitator_pid = facilitator.id();
    let _facilitator = Guard(facilitator);
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = Command::new(bin.join("gate"))
        .arg("--dist")
        .arg(&dist)
        .arg("--data")
        .arg(work.join("var"))
        .args(["--listen", &format!("127.0.0.1:{port}"), "--threads", "2"])
        .args(["--facilitador", &format!("http://127.0.0.1:{port_fac}")])
        .env("GATE_LOG", "warn")
        .env_remove("GATE_FACILITATOR_URL")
        .stdout(Stdio::null())
        .spawn()
        .context("falta target/release/gate")?;
    let pid = child.id();
    let _gate = Guard(child);
    let base = format!("http://127.0.0.1:{port}");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(soak(&base, &dist, (pid, facilitator_pid), &options))?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

async fn soak(base: &str, dist: &Path, (pid, facilitator_pid): (u32, u32), options: &Options) -> Result<()> {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    // The gate says how long it keeps an idle connection (`Keep-Alive: timeout=14`); reqwest
    // does not read that hint, so the pool is told: a client that reuses a connection past it
    // races the gate's close and loses the request at the transport.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(options.connections)
        .pool_idle_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .build()?;
    let started = Instant::now();
    while client.get(format!("{base}/")).send().await.is_err() {
        if started.elapsed() > Duration::from_secs(30) {
            bail!("el gate no arrancó");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let manifest: Value = serde_json::from_slice(&std::fs::read(dist.join("gate.json"))?)?;
    let slugs: Vec<String> = manifest["estudios"].as_object().context("estudios")?.keys().cloned().collect();
    let mcp = client
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .map(|r| r.status().as_u16() == 200)
        .unwrap_or(false);
    // Warm up with the same traffic, then take the starting RSS and soak.
    let warmup: Stats = Arc::default();
    let sold: Sold = Arc::default();
    let load = Load { client: &client, base, slugs: &slugs, manifest: &manifest, mcp, sold: &sold };
    traffic(&load, options.connections, Duration::from_secs(options.warmup), &warmup).await?;
    let rss_start = rss_kb(pid)?;
    let facilitator_start = rss_kb(facilitator_pid)?;
    let live_start = sold.lock().at(gate::clock::now());
    let stats: Stats = Arc::default();
    let sampling = sample(pid, Arc::clone(&sold), (rss_start, live_start), options.every);
    traffic(&load, options.connections, Duration::from_secs(options.seconds), &stats).await?;
    sampling.abort();
    let rss_end = rss_kb(pid)?;
    let live_end = sold.lock().at(gate::clock::now());
    report(&stats, options, mcp, rss_start, rss_end);
    println!(
        "ventas vivas en la memoria de reventa del gate al final: {live_end} ({} al inicio); bytes por venta viva: {}",
        live_start,
        per_sale(rss_end, rss_start, live_end, live_start)
    );
    println!(
        "RSS del facilitador local (proceso aparte, guarda cada nonce como una cadena): {:.1} MB al inicio, {:.1} MB al final",
        facilitator_start as f64 / 1024.0,
        rss_kb(facilitator_pid)? as f64 / 1024.0
    );
    Ok(())
}

/// Bytes of RSS grown since the start per live sale added since then, as text.
fn per_sale(rss_kb: u64, rss_start_kb: u64, live: usize, live_start: usize) -> String {
    let added = live.saturating_sub(live_start);
    if added == 0 {
        return "sin ventas vivas nuevas".to_owned();
    }
    format!("{:.0}", (rss_kb as f64 - rss_start_kb as f64) * 1024.0 / added as f64)
}

/// Prints, every `every` seconds, the gate's RSS, the live sales and the bytes per live sale.
fn sample(pid: u32, sold: Sold, (rss_start, live_start): (u64, usize), every: u64) -> tokio::task::JoinHandle<()> {
    println!("muestra    s   RSS MB   crec. MB   ventas   vivas   bytes/venta viva");
    tokio::spawn(async move {
        let started = Instant::now();
        let mut ticks = tokio::time::interval_at(
            tokio::time::Instant::now() + Duration::from_secs(every),
            Duration::from_secs(every),
        );
        for n in 1.. {
            ticks.tick().await;
            let Ok(rss) = rss_kb(pid) else { return };
            let (live, total) = {
                let mut sold = sold.lock();
                (sold.at(gate::clock::now()), sold.sold)
            };
            println!(
                "{n:>7} {:>5.0} {:>8.1} {:>10.1} {total:>8} {live:>7}   {}",
                started.elapsed().as_secs_f64(),
                rss as f64 / 1024.0,
                (rss as f64 - rss_start as f64) / 1024.0,
                per_sale(rss, rss_start, live, live_start)
            );
        }
    })
}

/// What every worker sends its traffic with.
struct Load<'a> {
    client: &'a reqwest::Client,
    base: &'a str,
    slugs: &'a [String],
    manifest: &'a Value,
    mcp: bool,
    sold: &'a Sold,
}

/// `connections` workers sending mixed traffic until `length` has passed.
async fn traffic(load: &Load<'_>, connections: usize, length: Duration, stats: &Stats) -> Result<()> {
    let deadline = Instant::now() + length;
    let mcp = load.mcp;
    let tasks: Vec<_> = (0..connections)
        .map(|worker| {
            let (client, base, stats, slugs, manifest, sold) = (
                load.client.clone(),
                load.base.to_owned(),
                Arc::clone(stats),
                load.slugs.to_vec(),
                load.manifest.clone(),
                Arc::clone(load.sold),
            );
            tokio::spawn(async move {
                // Each worker pays as its own buyer (the local facilitator opens 100 USDC each).
                let mut key = PrivateKeySigner::random();
                let mut bought = 0u32;
                let mut step = worker;
                while Instant::now() < deadline {
                    let slug = &slugs[step % slugs.len()];
                    match step % 10 {
                        0..=3 => {
                            let path = ["/", "/catalogo", "/metricas", "/llms.txt"][step % 4];
                            get(&client, &stats, "libres", &format!("{base}{path}"), &[200]).await;
                        }
                        4 => get(&client, &stats, "ficha", &format!("{base}/estudio/{slug}/ficha"), &[200]).await,
                        5 => {
                            get(&client, &stats, "buscar", &format!("{base}/buscar?q=bancos+{}", step % 7), &[200])
                                .await
                        }
                        6 | 7 => get(&client, &stats, "402", &format!("{base}/estudio/{slug}"), &[402]).await,
                        8 => {
                            if bought >= 90 {
                                key = PrivateKeySigner::random();
                                bought = 0;
                            }
                            bought += 1;
                            buy(&client, (&stats, &sold), &base, &manifest, slug, &key).await;
                        }
                        _ if mcp => mcp_call(&client, &stats, &base, step).await,
                        _ => get(&client, &stats, "libres", &format!("{base}/catalogo"), &[200]).await,
                    }
                    step += 1;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await?;
    }
    Ok(())
}

async fn get(client: &reqwest::Client, stats: &Stats, route: &'static str, url: &str, expected: &[u16]) {
    let started = Instant::now();
    let outcome = match client.get(url).send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            response.bytes().await.map(|_| status).map_err(|e| format!("cuerpo: {e}"))
        }
        Err(e) => Err(format!("pedido: {}", with_causes(&e))),
    };
    record(stats, route, started, outcome, expected);
}

async fn buy(
    client: &reqwest::Client,
    (stats, sold): (&Stats, &Sold),
    base: &str,
    manifest: &Value,
    slug: &str,
    key: &PrivateKeySigner,
) {
    let accepted = manifest["estudios"][slug]["vistas"]["completo"]["pago_requerido"]["accepts"][0].clone();
    let Ok((header, valid_before)) = sign(&accepted, key) else {
        record(stats, "compra", Instant::now(), Err("firma".into()), &[200]);
        return;
    };
    let started = Instant::now();
    let response = client.get(format!("{base}/estudio/{slug}")).header("PAYMENT-SIGNATURE", header).send().await;
    let body = match response {
        Ok(response) => {
            let status = response.status().as_u16();
            let body = response.json::<Value>().await.ok();
            if status == 200 {
                sold.lock().sold(valid_before);
            }
            record(stats, "compra", started, Ok(status), &[200]);
            body
        }
        Err(e) => {
            record(stats, "compra", started, Err(format!("pedido: {}", with_causes(&e))), &[200]);
            None
        }
    };
    if let Some(url) = body.as_ref().and_then(|b| b["acceso"]["descargas"]["json"]["url"].as_str()) {
        let url = url.replacen(BUILT_BASE_URL, base, 1);
        get(client, stats, "descarga", &url, &[200]).await;
    }
}

/// The `PAYMENT-SIGNATURE` header of a fresh authorization, and its `validBefore`.
fn sign(accepted: &Value, key: &PrivateKeySigner) -> Result<(String, u64)> {
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone())?;
    let auth = client_authorization(&requirements, key.address(), gate::clock::now(), random_nonce())?;
    let signature = sign_authorization(key, &domain_for(&requirements)?, &auth)?;
    let header =
        encode_json(&json!({"x402Version": 2, "accepted": accepted, "payload": exact_payload_json(&auth, &signature)}));
    Ok((header, auth.valid_before))
}

async fn mcp_call(client: &reqwest::Client, stats: &Stats, base: &str, step: usize) {
    let started = Instant::now();
    let body = json!({"jsonrpc": "2.0", "id": step, "method": "tools/list"});
    let outcome = match client
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
    {
        Ok(response) => {
            let status = response.status().as_u16();
            response.bytes().await.map(|_| status).map_err(|e| format!("cuerpo: {e}"))
        }
        Err(e) => Err(format!("pedido: {}", with_causes(&e))),
    };
    record(stats, "mcp", started, outcome, &[200]);
}

fn report(stats: &Stats, options: &Options, mcp: bool, rss_start: u64, rss_end: u64) {
    let stats = stats.lock();
    println!(
        "soak: {} s, {} conexiones, MCP {}",
        options.seconds,
        options.connections,
        if mcp { "sí" } else { "no (el gate no sirve /mcp)" }
    );
    println!("{:<10} {:>9} {:>9} {:>9} {:>9}  inesperados", "ruta", "pedidos", "p50 ms", "p99 ms", "máx ms");
    let mut unexpected_total = 0;
    for (route, route_stats) in stats.iter() {
        let mut ms = route_stats.ms.clone();
        ms.sort_by(f64::total_cmp);
        let unexpected: u64 = route_stats.unexpected.values().sum();
        unexpected_total += unexpected;
        println!(
            "{route:<10} {:>9} {:>9.2} {:>9.2} {:>9.2}  {unexpected} {:?}",
            ms.len(),
            pct(&ms, 0.50),
            pct(&ms, 0.99),
            ms.last().copied().unwrap_or(0.0),
            route_stats.unexpected
        );
    }
    let growth_mb = (rss_end as f64 - rss_start as f64) / 1024.0;
    println!("estados inesperados: {unexpected_total} (objetivo 0)");
    println!(
        "RSS del gate: {:.1} MB al inicio, {:.1} MB al final, crecimiento {growth_mb:.1} MB (objetivo ≤ 64 MB)",
        rss_start as f64 / 1024.0,
        rss_end as f64 / 1024.0
    );
}

/// An error and its causes on one line ("error sending request" alone does not say whether the
/// connection was reset, closed or timed out).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn rss_kb(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .context("VmRSS")
}
