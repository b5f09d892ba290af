//! What offering MPP beside x402 costs, and how MPP purchases compare with x402's, in one run.
//!
//! 1. The unpaid 402 of `GET /estudio/{slug}`: the gate as it runs (x402 and MPP on one 402) against
//!    the same gate selling with x402 only ([`gate::app::Gate::without_mpp`]), both in this process
//!    on ephemeral ports, `--conexiones` keep-alive clients each for `--segundos`, in alternating
//!    rounds; it prints requests/s of each, the ratio (median of the rounds' ratios), and the
//!    exact bytes of one answer on the wire (status line, headers and body, read from a socket).
//! 2. Purchases settled on a real local chain (anvil with Circle's USDC, the project's
//!    facilitator settling there, as `tests/tests/mpp.rs`): the same gate sells `--compras`
//!    purchases with x402 (`PAYMENT-SIGNATURE`) and as many with MPP (`Authorization: Payment`,
//!    credentials built as `mppx` builds them), `--compradores` at a time, in alternating rounds;
//!    every answer must be 200 with its receipt. Credentials are signed before the clock starts;
//!    an MPP challenge's nonce is bound to its id, which changes once a second, so each buyer
//!    gets one per study view and each round fetches its challenges in seconds of its own.
//!
//! ```sh
//! cd tests/chain && npm ci && cd ../..                      # anvil and USDC, once
//! cargo build --release -p generator -p tests --bin generator --bin bench-mpp
//! target/release/bench-mpp [--segundos 5 --rondas 3 --conexiones 16 --compras 36 --compradores 6]
//! ```

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use gate::app::{Gate, Services};
use gate::facilitator::Facilitator;
use gate::x402::PaymentRequirements;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
use gate::x402::header::encode_json;
use gate_http::{Running, spawn};
use serde_json::{Value, json};
use tests::chain::{ChainOptions, LocalChain};
use tests::programs::bench_mpp::Args;

const LINK_SECRET: &[u8] = b"bench-mpp-link-secret-0123456789abcdef";
const NETWORK: &str = "eip155:84532";

fn main() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    if let Err(e) = run() {
        eprintln!("bench-mpp: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Args = cli::parse();
    println!("cpu: {}", cpu_model());
    let work = tempfile::tempdir()?;
    let dist = match &args.dist {
        Some(dist) => dist.clone(),
        None => build_dist(work.path())?,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(unpaid(&dist, &args))?;
    runtime.block_on(purchases(&dist, &args))
}

fn build_dist(work: &Path) -> Result<PathBuf> {
    let bin = std::env::current_exe()?.parent().context("bin dir")?.to_path_buf();
    let content = Path::new(env!("CARGO_MANIFEST_DIR")).join("muestra");
    let dist = work.join("dist");
    let status = Command::new(bin.join("generator"))
        .args(["build", "--quiet", "--content"])
        .arg(&content)
        .arg("--out")
        .arg(&dist)
        .status()
        .context("falta generator junto a bench-mpp: cargo build --release -p generator")?;
    if !status.success() {
        bail!("generator build falló");
    }
    Ok(dist)
}

fn services(facilitator: Arc<dyn Facilitator>, data: &Path, chains: gate::chain::Chains) -> Result<Services> {
    let log = data.join(gate::sales::journal::JOURNAL_FILE);
    Ok(Services {
        facilitator,
        links: gate::links::LinkSigner::new(LINK_SECRET.to_vec(), 7 * 86_400)?,
        sales: Arc::new(gate::sales::Sales::open(&log, gate::sales::journal::DEFAULT_SEGMENT_BYTES)?),
        limiter: Arc::new(gate::payment::limits::Limiter::new(gate::payment::limits::RefusalLimits::default())),
        receipts: gate::x402::receipt::ReceiptKey::development(),
        clock: gate::clock::Clock::system(),
        chains,
    })
}

/// Part 1: the unpaid 402, both protocols against x402 only.
async fn unpaid(dist: &Path, args: &Args) -> Result<()> {
    let path = "/estudio/banca-2026";
    let local: Arc<dyn Facilitator> =
        Arc::new(gate::facilitator::local::LocalFacilitator::new(gate::facilitator::local::LocalConfig::default()));
    let (data_both, data_x402) = (tempfile::tempdir()?, tempfile::tempdir()?);
    let both = Gate::load_with(dist, services(Arc::clone(&local), data_both.path(), gate::chain::Chains::new())?)?;
    let x402 = Gate::load_with(dist, services(local, data_x402.path(), gate::chain::Chains::new())?)?.without_mpp();
    let both = spawn(Arc::new(both), 2)?;
    let x402 = spawn(Arc::new(x402), 2)?;
    let (bytes_both, bytes_x402) = (wire_bytes(&both, path)?, wire_bytes(&x402, path)?);
    let mut ratios = Vec::new();
    let (mut sum_both, mut sum_x402) = (0.0, 0.0);
    for round in 0..args.rounds {
        // Alternate which goes first, so warm-up and drift fall on both.
        let (first, second) = if round % 2 == 0 { (&both, &x402) } else { (&x402, &both) };
        let a = load(first, path, args.connections, args.seconds).await?;
        let b = load(second, path, args.connections, args.seconds).await?;
        let (rps_both, rps_x402) = if round % 2 == 0 { (a, b) } else { (b, a) };
        println!(
            "402 ronda {}: x402+MPP {rps_both:.0} req/s, solo x402 {rps_x402:.0} req/s ({:.3})",
            round + 1,
            rps_both / rps_x402
        );
        ratios.push(rps_both / rps_x402);
        sum_both += rps_both;
        sum_x402 += rps_x402;
    }
    let rounds = args.rounds as f64;
    println!(
        "402 sin pago: x402+MPP {:.0} req/s, solo x402 {:.0} req/s; razón (mediana de {} rondas) {:.3}",
        sum_both / rounds,
        sum_x402 / rounds,
        args.rounds,
        median(ratios)
    );
    println!(
        "402 en el cable: x402+MPP {bytes_both} bytes, solo x402 {bytes_x402} bytes (+{} bytes, {:.3})",
        bytes_both.saturating_sub(bytes_x402),
        bytes_both as f64 / bytes_x402 as f64
    );
    Ok(())
}

/// The exact bytes of one unpaid answer (status line, headers, body), read from a socket.
fn wire_bytes(server: &Running, path: &str) -> Result<usize> {
    let address = server.url().trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: application/json\r\nConnection: close\r\n\r\n")?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    if !answer.starts_with(b"HTTP/1.1 402") {
        bail!("{path} no respondió 402: {}", String::from_utf8_lossy(&answer[..answer.len().min(200)]));
    }
    Ok(answer.len())
}

/// Requests/s of `connections` keep-alive clients asking `path` for `seconds`.
async fn load(server: &Running, path: &str, connections: u64, seconds: u64) -> Result<f64> {
    let url = format!("{}{path}", server.url());
    let done = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let (url, done) = (url.clone(), Arc::clone(&done));
        let client = reqwest::Client::builder().pool_max_idle_per_host(1).build()?;
        tasks.push(tokio::spawn(async move {
            while Instant::now() < deadline {
                let response = client.get(&url).header("Accept", "application/json").send().await?;
                if response.status() != 402 {
                    bail!("{url}: {} en lugar de 402", response.status());
                }
                response.bytes().await?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64())
}

/// One prepared purchase: the URL and the header that pays it.
struct Purchase {
    url: String,
    header: (&'static str, String),
}

/// Part 2: purchases on the local chain, x402 against MPP.
async fn purchases(dist: &Path, args: &Args) -> Result<()> {
    let buyers = usize::try_from(args.buyers)?;
    let chain = LocalChain::start(ChainOptions { buyers, ..ChainOptions::default() })?;
    let key = &chain.account("settler").private_key;
    let settler = gate::chain::settler::Settler::connect(chain.rpc_url(), key, Duration::from_secs(10)).await?;
    let config = gate::facilitator::local::LocalConfig {
        settle_wait: Duration::from_secs(20),
        ..gate::facilitator::local::LocalConfig::on_chain(Arc::new(settler))
    };
    let facilitator = spawn(
        Arc::new(gate::facilitator::service::FacilitatorService(gate::facilitator::local::LocalFacilitator::new(
            config,
        ))),
        1,
    )?;
    let http = gate::facilitator::http::HttpFacilitator::new(&facilitator.url(), None, Duration::from_secs(10))?;
    let reader = gate::chain::evm::RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10))?;
    let chains = gate::chain::Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn gate::chain::Chain>);
    let data = tempfile::tempdir()?;
    let server = spawn(Arc::new(Gate::load_with(dist, services(Arc::new(http), data.path(), chains)?)?), 2)?;
    let manifest: Value = serde_json::from_slice(&std::fs::read(dist.join("gate.json"))?)?;
    let views: Vec<(String, String, Value)> = manifest["estudios"]
        .as_object()
        .context("gate.json sin estudios")?
        .iter()
        .flat_map(|(slug, study)| {
            ["completo", "resumen"].map(|view| {
                (slug.clone(), view.to_owned(), study["vistas"][view]["pago_requerido"]["accepts"][0].clone())
            })
        })
        .collect();
    let count = usize::try_from(args.purchases)?;
    let signers: Vec<_> = chain.buyers().iter().map(|b| b.signer()).collect();
    let client = reqwest::Client::new();
    let (mut ratios, mut sum_x402, mut sum_mpp) = (Vec::new(), 0.0, 0.0);
    let mut last_second = 0;
    for round in 0..args.rounds {
        // A challenge is the same for a whole second, and so is the credential a buyer signs
        // for it (deterministic signatures): a round fetching in a second an earlier round used
        // would replay that round's purchases instead of making new ones.
        while gate::clock::now() <= last_second {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut x402 = Vec::new();
        let mut mpp = Vec::new();
        for i in 0..count {
            let (slug, view, accepted) = &views[i % views.len()];
            let buyer = &signers[(i / views.len()) % signers.len()];
            let url = format!("{}/estudio/{slug}?vista={view}", server.url());
            x402.push(Purchase { url: url.clone(), header: ("PAYMENT-SIGNATURE", x402_header(accepted, buyer)?) });
            let answer = client.get(&url).send().await?;
            let challenge = answer
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .context("el 402 no trae WWW-Authenticate")?
                .to_owned();
            let challenge = tests::mpp::parse_challenge(&challenge);
            mpp.push(Purchase { url, header: ("Authorization", tests::mpp::credential(&challenge, accepted, buyer)) });
        }
        last_second = gate::clock::now();
        let (first, second) = if round % 2 == 0 { (x402, mpp) } else { (mpp, x402) };
        let a = buy(first, buyers).await?;
        let b = buy(second, buyers).await?;
        let (per_x402, per_mpp) = if round % 2 == 0 { (a, b) } else { (b, a) };
        println!("compras ronda {}: x402 {per_x402:.2}/s, MPP {per_mpp:.2}/s ({:.3})", round + 1, per_mpp / per_x402);
        ratios.push(per_mpp / per_x402);
        sum_x402 += per_x402;
        sum_mpp += per_mpp;
    }
    let rounds = args.rounds as f64;
    println!(
        "compras en la cadena local ({count} por protocolo y ronda, {buyers} a la vez): x402 {:.2}/s, MPP {:.2}/s; razón MPP/x402 (mediana de {} rondas) {:.3}",
        sum_x402 / rounds,
        sum_mpp / rounds,
        args.rounds,
        median(ratios)
    );
    Ok(())
}

fn x402_header(accepted: &Value, buyer: &alloy_signer_local::PrivateKeySigner) -> Result<String> {
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone())?;
    let domain = domain_for(&requirements)?;
    let auth = client_authorization(&requirements, buyer.address(), gate::clock::now(), random_nonce())?;
    let signature = sign_authorization(buyer, &domain, &auth)?;
    let payload = json!({
        "x402Version": 2,
        "accepted": accepted,
        "payload": exact_payload_json(&auth, &signature),
    });
    Ok(encode_json(&payload))
}

/// Purchases/s of `purchases` spent `concurrency` at a time; every answer must be a 200 with
/// its receipt (`Payment-Receipt` for MPP, `PAYMENT-RESPONSE` for x402).
async fn buy(purchases: Vec<Purchase>, concurrency: usize) -> Result<f64> {
    let total = purchases.len();
    let queue = Arc::new(parking_lot::Mutex::new(purchases));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let queue = Arc::clone(&queue);
        let client = reqwest::Client::builder().timeout(Duration::from_secs(60)).build()?;
        tasks.push(tokio::spawn(async move {
            loop {
                let Some(purchase) = queue.lock().pop() else { return Ok::<(), anyhow::Error>(()) };
                let (name, value) = &purchase.header;
                let response = client.get(&purchase.url).header(*name, value).send().await?;
                let receipt = if *name == "Authorization" { "payment-receipt" } else { "payment-response" };
                if response.status() != 200 || response.headers().get(receipt).is_none() {
                    bail!("{}: {} {}", purchase.url, response.status(), response.text().await.unwrap_or_default());
                }
                response.bytes().await?;
            }
        }));
    }
    for task in tasks {
        task.await??;
    }
    Ok(total as f64 / start.elapsed().as_secs_f64())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(str::trim)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "desconocida".to_owned())
}
