//! Paid purchases per second against any x402 v2 seller: the gate, `@x402/express`
//! (`tests/interop/peer-server.mjs`) or `x402-axum` (`tests/peer-axum`), so the peer benchmark
//! (`tests/interop/bench-peer.sh`) compares the whole sale, not only the 402 answer.
//!
//! For each `--url` it reads the offer from the seller's own 402 (the `PAYMENT-REQUIRED` header of
//! `--ruta`), takes its exact EVM requirement as sent, signs `--compras` fresh EIP-3009
//! authorizations with the public development key the tests use (Anvil/Hardhat #0) before the
//! clock starts, then `--compradores` concurrent buyers, one keep-alive connection each, spend
//! them for `--segundos`. Every answer must be 200 with a `PAYMENT-RESPONSE` that says
//! `success: true`; anything else stops the run with the seller's answer. It prints purchases/s
//! and the p50 and p99 of the total latency per purchase (request sent to body read), the body
//! size, and for scripts a line `RESULTADO <compras/s> <p50 ms> <p99 ms> <compras> <bytes>`.
//! When the seller sends `Server-Timing: liquidacion;dur=…` (the gate does), it also splits the
//! latency into settlement and the rest.
//!
//! ```sh
//! cargo build --release -p tests --bin bench-compras
//! bench-compras --url http://127.0.0.1:8080 --compradores 8 --segundos 10
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use gate::x402::PaymentPayload;
use gate::x402::PaymentRequirements;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
use gate::x402::header::{decode_json, encode_json};
use serde_json::Value;
use tests::programs::bench_compras::Args;

/// Anvil/Hardhat development account #0: public, never for real funds (the gate's tests use it).
const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

fn main() {
    if let Err(e) = run() {
        eprintln!("bench-compras: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Args = cli::parse();
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    // Two workers, as the machines the benchmarks run on have two cores shared with the servers.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("no se pudo crear el runtime de tokio")?;
    let key: alloy_signer_local::PrivateKeySigner = DEV_KEY.parse().context("clave de desarrollo inválida")?;
    let buyers = usize::try_from(args.buyers)?;
    let count = usize::try_from(args.purchases)?;
    for url in &args.urls {
        let target = format!("{}{}", url.trim_end_matches('/'), args.route);
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(buyers)
            .timeout(Duration::from_secs(30))
            .build()
            .context("no se pudo crear el cliente HTTP")?;
        let accepted = runtime.block_on(offer(&client, &target))?;
        let started = Instant::now();
        let headers = sign(&key, &accepted, count)?;
        eprintln!("bench-compras: {count} firmas para {target} en {:.2} s", started.elapsed().as_secs_f64());
        let run = runtime.block_on(buy(&client, &target, headers, buyers, Duration::from_secs(args.seconds)))?;
        run.print(&target, buyers, args.seconds);
    }
    Ok(())
}

/// The exact EVM requirement of the seller's 402 for `url`, as the seller sent it.
async fn offer(client: &reqwest::Client, url: &str) -> Result<Value> {
    let response = client.get(url).send().await.with_context(|| format!("GET {url}"))?;
    let status = response.status().as_u16();
    if status != 402 {
        bail!("GET {url} respondió {status}, se esperaba 402 con la oferta");
    }
    let header = response
        .headers()
        .get("payment-required")
        .and_then(|v| v.to_str().ok())
        .with_context(|| format!("el 402 de {url} no trae PAYMENT-REQUIRED"))?
        .to_owned();
    let required: Value = decode_json(&header).with_context(|| format!("PAYMENT-REQUIRED de {url} ilegible"))?;
    required["accepts"]
        .as_array()
        .and_then(|accepts| {
            accepts
                .iter()
                .find(|a| a["scheme"] == "exact" && a["network"].as_str().is_some_and(|n| n.starts_with("eip155:")))
        })
        .cloned()
        .with_context(|| format!("el 402 de {url} no ofrece el esquema exact en una red EVM: {required}"))
}

/// `count` PAYMENT-SIGNATURE headers, each a fresh authorization (random nonce) of `accepted`,
/// signed on every core before the measurement starts.
fn sign(key: &alloy_signer_local::PrivateKeySigner, accepted: &Value, count: usize) -> Result<Vec<String>> {
    let requirements: PaymentRequirements =
        serde_json::from_value(accepted.clone()).context("la oferta no es un PaymentRequirements v2")?;
    let domain = domain_for(&requirements)?;
    let now = gate::clock::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = count.div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (requirements, domain) = (&requirements, &domain);
                let n = per_thread.min(count.saturating_sub(t * per_thread));
                scope.spawn(move || {
                    (0..n)
                        .map(|_| {
                            let auth = client_authorization(requirements, key.address(), now, random_nonce())?;
                            let signature = sign_authorization(key, domain, &auth)?;
                            Ok(encode_json(&PaymentPayload {
                                x402_version: 2,
                                resource: None,
                                accepted: accepted.clone(),
                                payload: exact_payload_json(&auth, &signature),
                                extensions: None,
                            }))
                        })
                        .collect::<Result<Vec<String>>>()
                })
            })
            .collect();
        let mut headers = Vec::with_capacity(count);
        for worker in workers {
            headers.extend(worker.join().map_err(|_| anyhow::anyhow!("un hilo de firma falló"))??);
        }
        Ok(headers)
    })
}

/// One purchase as the buyer saw it.
struct Sample {
    /// Request sent to body read, ms.
    total_ms: f64,
    /// The seller's own account of its settlement call (`Server-Timing: liquidacion;dur=`), ms.
    settle_ms: Option<f64>,
    /// Body bytes delivered.
    bytes: usize,
}

/// What one seller did.
struct Run {
    samples: Vec<Sample>,
    elapsed: Duration,
    /// The prepared signatures ran out before the time was up.
    exhausted: bool,
}

impl Run {
    fn print(&self, target: &str, buyers: usize, seconds: u64) {
        let n = self.samples.len();
        let rate = n as f64 / self.elapsed.as_secs_f64();
        let totals = sorted(self.samples.iter().map(|s| s.total_ms));
        let (p50, p99) = (percentile(&totals, 0.50), percentile(&totals, 0.99));
        let bytes = self.samples.iter().map(|s| s.bytes).sum::<usize>() / n.max(1);
        println!(
            "bench-compras: {target}, {buyers} compradores: {n} compras en {:.2} s = {rate:.0} compras/s; latencia total p50 {p50:.2} ms, p99 {p99:.2} ms; {bytes} bytes por respuesta",
            self.elapsed.as_secs_f64()
        );
        // Only the gate says how long its facilitator call took; then its own share can be shown.
        let settles: Option<Vec<f64>> = self.samples.iter().map(|s| s.settle_ms).collect();
        if let Some(settles) = settles.filter(|s| !s.is_empty()) {
            let own = sorted(self.samples.iter().zip(&settles).map(|(s, settle)| s.total_ms - settle));
            let settle = sorted(settles.into_iter());
            println!(
                "bench-compras: según su Server-Timing, liquidación p50 {:.2} ms, p99 {:.2} ms; el resto (vendedor y red local) p50 {:.2} ms, p99 {:.2} ms",
                percentile(&settle, 0.50),
                percentile(&settle, 0.99),
                percentile(&own, 0.50),
                percentile(&own, 0.99)
            );
        }
        if self.exhausted {
            println!(
                "bench-compras: se acabaron las firmas antes de {seconds} s; con --compras mayor la medición dura lo pedido"
            );
        }
        println!("RESULTADO {rate:.1} {p50:.3} {p99:.3} {n} {bytes}");
    }
}

/// `buyers` concurrent buyers spend the prepared headers until `duration` is up.
async fn buy(
    client: &reqwest::Client,
    url: &str,
    headers: Vec<String>,
    buyers: usize,
    duration: Duration,
) -> Result<Run> {
    let headers = Arc::new(headers);
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::with_capacity(buyers);
    for _ in 0..buyers {
        let (client, url, headers, next) = (client.clone(), url.to_owned(), Arc::clone(&headers), Arc::clone(&next));
        tasks.push(tokio::spawn(async move {
            let mut samples = Vec::new();
            while Instant::now() < deadline {
                let Some(header) = headers.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                samples.push(purchase(&client, &url, header).await?);
            }
            Ok::<_, anyhow::Error>(samples)
        }));
    }
    let mut samples = Vec::new();
    for task in tasks {
        samples.extend(task.await.context("un comprador se interrumpió")??);
    }
    let elapsed = started.elapsed();
    let exhausted = samples.len() == headers.len() && elapsed < duration;
    Ok(Run { samples, elapsed, exhausted })
}

/// One paid request: 200 and a successful settlement, or an error with what the seller said.
async fn purchase(client: &reqwest::Client, url: &str, header: &str) -> Result<Sample> {
    let sent = Instant::now();
    let response =
        client.get(url).header("PAYMENT-SIGNATURE", header).send().await.with_context(|| format!("compra en {url}"))?;
    let status = response.status().as_u16();
    let text = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (settled, timing) = (text("payment-response"), text("server-timing"));
    let body = response.bytes().await.with_context(|| format!("cuerpo de la compra en {url}"))?;
    let total_ms = sent.elapsed().as_secs_f64() * 1000.0;
    if status != 200 {
        bail!("compra en {url}: estado {status}, se esperaba 200: {}", String::from_utf8_lossy(&body));
    }
    let settled = settled.with_context(|| format!("compra en {url}: 200 sin PAYMENT-RESPONSE"))?;
    let settlement: Value =
        decode_json(&settled).with_context(|| format!("compra en {url}: PAYMENT-RESPONSE ilegible"))?;
    if settlement["success"] != true {
        bail!("compra en {url}: la liquidación no fue exitosa: {settlement}");
    }
    let settle_ms = timing.as_deref().and_then(|t| {
        t.split(',').find_map(|metric| metric.trim().strip_prefix("liquidacion;dur=")?.parse::<f64>().ok())
    });
    Ok(Sample { total_ms, settle_ms, bytes: body.len() })
}

fn sorted(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values
}

/// The value at fraction `p` of a sorted sample (nearest rank).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}
