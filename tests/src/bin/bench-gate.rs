//! Gate benchmark: the gate against nginx serving the same files, in one run, with `wrk`.
//!
//! It builds a corpus 5× the sample (so one download is about 5 MB), starts the release `gate`
//! (access log at `warn`, as nginx runs with `access_log off`), nginx on the same `dist/public`
//! and `dist/private/descargas`, and the local facilitator over HTTP, then prints:
//! free small JSON (req/s and p99 against nginx), the 402 answer and `/buscar` against the
//! gate's own free path, a ~5 MB download through a signed link against nginx (MB/s), paid
//! purchases per second at 8 and 64 concurrent buyers with the gate's own latency (from its
//! `Server-Timing` header, minus the facilitator), first with the sales journal in a file and
//! then with the shared record in PostgreSQL (a throwaway local cluster), the free JSON over
//! HTTPS against nginx with TLS (same certificate; HTTP/1.1 with wrk, HTTP/2 with h2load), and
//! the RSS growth while serving 50 concurrent downloads of the largest file.
//! The wrk cases run in alternating rounds and each ratio is the median of its rounds' ratios.
//!
//! ```sh
//! apt-get install -y wrk nginx-light nghttp2-client openssl     # once
//! cargo build --release -p gate -p generator -p synth -p tests --bins
//! cargo run --release -p tests --bin bench-gate [-- --segundos 10 --rondas 3] [--solo-compras]
//! ```

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use gate::links::LinkSigner;
use serde_json::Value;
use tests::programs::bench_gate::Args;

const LINK_SECRET: &str = "bench-link-secret-0123456789abcdef-0123456789";
const SCALE: &str = "5";

fn main() {
    // reqwest is built without a default crypto provider; the memory case needs one.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    if let Err(e) = run() {
        eprintln!("bench-gate: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

struct Wrk {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    mb_s: f64,
}

fn run() -> Result<()> {
    let Settings { seconds, rounds, purchases_only } = parse_args()?;
    println!("cpu: {}", cpu_model());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = std::env::current_exe()?.parent().context("bin dir")?.to_path_buf();
    for tool in ["wrk", "nginx", "h2load", "openssl"] {
        if Command::new("sh").arg("-c").arg(format!("command -v {tool}")).stdout(Stdio::null()).status()?.code()
            != Some(0)
        {
            bail!("falta {tool}: apt-get install -y wrk nginx-light nghttp2-client openssl");
        }
    }
    for program in ["gate", "generator", "synth", "facilitador-local", "bench-compras"] {
        if !bin.join(program).exists() {
            bail!(
                "falta {}: cargo build --release -p gate -p generator -p synth -p tests --bins",
                bin.join(program).display()
            );
        }
    }
    let work = std::env::temp_dir().join(format!("bench-gate-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let content = work.join("content");
    run_cmd(
        Command::new(bin.join("synth"))
            .args(["--escala", SCALE, "--content"])
            .arg(root.join("tests/muestra"))
            .arg("--out")
            .arg(&content),
    )?;
    // Point the absolute URLs at the port the gate will use.
    let port_gate = free_port()?;
    let service = std::fs::read_to_string(content.join("servicio.toml"))?
        .replace("http://127.0.0.1:8080", &format!("http://127.0.0.1:{port_gate}"));
    std::fs::write(content.join("servicio.toml"), service)?;
    let dist = work.join("dist");
    run_cmd(
        Command::new(bin.join("generator"))
            .args(["build", "--quiet", "--content"])
            .arg(&content)
            .arg("--out")
            .arg(&dist),
    )?;

    let port_nginx = free_port()?;
    let port_nginx_tls = free_port()?;
    let port_fac = free_port()?;
    let (cert, key) = self_signed_certificate(&work)?;
    let _nginx = start_nginx(&work, &dist, port_nginx, (port_nginx_tls, &cert, &key))?;
    let _facilitator = Guard(
        Command::new(bin.join("facilitador-local"))
            .args([
                "--listen",
                &format!("127.0.0.1:{port_fac}"),
                "--sin-libro",
                "--saldo-inicial",
                "1000000000000",
                "--threads",
                "1",
                "--data",
            ])
            .arg(work.join("fac"))
            .env("GATE_LOG", "warn")
            .spawn()?,
    );
    let gate_child = Command::new(bin.join("gate"))
        .arg("--dist")
        .arg(&dist)
        .args([
            "--listen",
            &format!("127.0.0.1:{port_gate}"),
            "--threads",
            "2",
            "--facilitador",
            &format!("http://127.0.0.1:{port_fac}"),
            "--data",
        ])
        .arg(work.join("var"))
        .env("GATE_LOG", "warn")
        .env("GATE_LINK_SECRET", LINK_SECRET)
        .spawn()?;
    let gate_pid = gate_child.id();
    let _gate = Guard(gate_child);
    // The same gate with TLS on its own port, for the HTTPS cases.
    let port_gate_tls = free_port()?;
    let _gate_tls = Guard(
        Command::new(bin.join("gate"))
            .arg("--dist")
            .arg(&dist)
            .args(["--listen", &format!("127.0.0.1:{port_gate_tls}"), "--threads", "2", "--tls-cert"])
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key)
            .arg("--data")
            .arg(work.join("var-tls"))
            .env("GATE_LOG", "warn,rustls=error")
            .env("GATE_LINK_SECRET", LINK_SECRET)
            .spawn()?,
    );
    let gate_url = format!("http://127.0.0.1:{port_gate}");
    let nginx_url = format!("http://127.0.0.1:{port_nginx}");
    wait_up(&format!("{gate_url}/catalogo"))?;
    wait_up(&format!("{nginx_url}/catalogo.json"))?;
    wait_up(&format!("http://127.0.0.1:{port_fac}/health"))?;
    let gate_tls_url = format!("https://127.0.0.1:{port_gate_tls}");
    let nginx_tls_url = format!("https://127.0.0.1:{port_nginx_tls}");
    wait_up_tls(&format!("{gate_tls_url}/catalogo"))?;
    wait_up_tls(&format!("{nginx_tls_url}/catalogo.json"))?;

    let manifest: Value = serde_json::from_slice(&std::fs::read(dist.join("gate.json"))?)?;
    let (big_name, big) = manifest["descargas"]
        .as_object()
        .context("descargas")?
        .iter()
        .max_by_key(|(_, d)| d["bytes"].as_u64())
        .context("no downloads")?;
    let big_bytes = big["bytes"].as_u64().unwrap_or(0);
    let links = LinkSigner::new(LINK_SECRET.as_bytes().to_vec(), 7 * 86_400)?;
    let link = links.link(big_name, links.expiry(gate::clock::now()));

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    if purchases_only {
        purchases_file_and_postgres(&bin, &dist, &work, (&gate_url, port_fac), seconds, rounds)?;
        let _ = std::fs::remove_dir_all(&work);
        return Ok(());
    }
    println!(
        "bench-gate: corpus {SCALE}x, wrk -t2 -c50 -d{seconds}s, {rounds} rondas alternadas, loopback, 2 cores shared with wrk"
    );
    let d = seconds.to_string();
    let distinct = work.join("distinct.lua");
    let distinct_free = work.join("distinct-free.lua");
    // Every case runs once per round, nginx and the gate one after the other, so a slower
    // stretch of the machine hits both; each ratio is taken within its round and the median
    // round is reported (single runs on this shared box vary by ±15 %).
    let mut runs: Vec<[Wrk; 8]> = Vec::new();
    for round in 1..=rounds {
        // Every query of the run is new to the gate: each wrk thread and each round has its
        // own prefix, so neither the answer cache nor a query seen twice can help.
        std::fs::write(&distinct, distinct_queries_script("/buscar", round))?;
        // The same Lua client on the free path (the catalog ignores `q`): a script costs wrk
        // more per request than a fixed URL, and on two shared cores that is taken from the
        // gate, so the searches are also compared with a free path driven the same way.
        std::fs::write(&distinct_free, distinct_queries_script("/catalogo", round))?;
        runs.push([
            wrk(&format!("{nginx_url}/catalogo.json"), &d, 50)?,
            wrk(&format!("{gate_url}/catalogo"), &d, 50)?,
            wrk(&format!("{gate_url}/estudio/banca-2026"), &d, 50)?,
            wrk(&format!("{gate_url}/buscar?q=bancos+billeteras+argentina"), &d, 50)?,
            wrk_script(&format!("{gate_url}/catalogo"), &d, 50, &distinct_free)?,
            wrk_script(&format!("{gate_url}/buscar"), &d, 50, &distinct)?,
            wrk(&format!("{nginx_url}/descargas/{big_name}"), &d, 8)?,
            wrk(&format!("{gate_url}{link}"), &d, 8)?,
        ]);
        eprintln!("bench-gate: ronda {round}/{rounds} lista");
    }
    let names = [
        "nginx /catalogo.json (12 KB)".to_owned(),
        "gate /catalogo".to_owned(),
        "gate 402 /estudio/banca-2026".to_owned(),
        "gate /buscar (misma consulta)".to_owned(),
        "gate /catalogo (cliente Lua)".to_owned(),
        "gate /buscar (consultas distintas)".to_owned(),
        format!("nginx descarga {} MB", big_bytes / 1_000_000),
        "gate descarga firmada".to_owned(),
    ];
    // (case, reference case, compare MB/s instead of req/s)
    let ratios: [Option<(usize, bool)>; 8] = [
        None,
        Some((0, false)),
        Some((1, false)),
        Some((1, false)),
        Some((1, false)),
        Some((1, false)),
        None,
        Some((6, true)),
    ];
    println!(
        "{:<38} {:>10} {:>9} {:>9} {:>10} {:>8}   ratio por ronda",
        "caso (mediana)", "req/s", "p50 ms", "p99 ms", "MB/s", "ratio"
    );
    for (case, name) in names.iter().enumerate() {
        let figure = |f: fn(&Wrk) -> f64| median(runs.iter().map(|r| f(&r[case])).collect());
        let per_round: Vec<f64> = match ratios[case] {
            Some((reference, by_bytes)) => runs
                .iter()
                .map(|r| if by_bytes { r[case].mb_s / r[reference].mb_s } else { r[case].rps / r[reference].rps })
                .collect(),
            None => Vec::new(),
        };
        println!(
            "{name:<38} {:>10.0} {:>9.2} {:>9.2} {:>10.1} {:>8}   {}",
            figure(|w| w.rps),
            figure(|w| w.p50_ms),
            figure(|w| w.p99_ms),
            figure(|w| w.mb_s),
            if per_round.is_empty() { String::new() } else { format!("{:.2}", median(per_round.clone())) },
            rounds_text(&per_round),
        );
    }
    print_per_round("p99 gate/nginx (archivo chico)", runs.iter().map(|r| r[1].p99_ms / r[0].p99_ms).collect());
    // Distinct searches against the free path, with the free path driven by plain wrk (a
    // fixed request) and by the same Lua script as the searches (which costs wrk CPU on the
    // cores the gate shares).
    print_per_round(
        "consultas distintas ÷ /catalogo con wrk sin script",
        runs.iter().map(|r| r[5].rps / r[1].rps).collect(),
    );
    print_per_round(
        "consultas distintas ÷ /catalogo con el mismo cliente Lua",
        runs.iter().map(|r| r[5].rps / r[4].rps).collect(),
    );

    https(&gate_tls_url, &nginx_tls_url, &d, rounds)?;
    purchases_file_and_postgres(&bin, &dist, &work, (&gate_url, port_fac), seconds, rounds)?;
    runtime.block_on(memory(gate_pid, &format!("{gate_url}{link}"), big_bytes))?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// Prints a ratio taken in each round: its median, then each round's.
fn print_per_round(label: &str, per_round: Vec<f64>) {
    println!("{label}: {:.2} (por ronda: {})", median(per_round.clone()), rounds_text(&per_round));
}

/// Each round's ratio, two decimals, in round order.
fn rounds_text(per_round: &[f64]) -> String {
    per_round.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>().join(" ")
}

/// Paid purchases at 8 and 64 buyers with the sales in the JSON Lines journal (the gate
/// already running at `gate_url`) and with them in PostgreSQL: a throwaway local cluster with
/// its own durability on (`fsync`, `synchronous_commit`: `tests::postgres`, the one the tests
/// use) and a second gate on it with `--ventas`. Each round runs the file and then PostgreSQL
/// at each number of buyers, so a slower stretch of the machine hits both; each ratio is taken
/// within its round and the median round is reported.
fn purchases_file_and_postgres(
    bin: &Path,
    dist: &Path,
    work: &Path,
    (gate_url, port_fac): (&str, u16),
    seconds: u64,
    rounds: usize,
) -> Result<()> {
    let db = tests::postgres::Postgres::start_durable().context("PostgreSQL para el caso --ventas")?;
    let port = free_port()?;
    let _gate = Guard(
        Command::new(bin.join("gate"))
            .arg("--dist")
            .arg(dist)
            .args(["--listen", &format!("127.0.0.1:{port}"), "--threads", "2"])
            .args(["--facilitador", &format!("http://127.0.0.1:{port_fac}"), "--data"])
            .arg(work.join("var-postgres"))
            .env("GATE_LOG", "warn")
            .env("GATE_LINK_SECRET", LINK_SECRET)
            .env("GATE_VENTAS", db.url())
            .spawn()?,
    );
    let pg_url = format!("http://127.0.0.1:{port}");
    wait_up(&format!("{pg_url}/catalogo"))?;
    println!(
        "compras: diario en archivo (ventas.jsonl bajo --data, fdatasync agrupado) y registro en PostgreSQL (--ventas, servidor local en la misma máquina, fsync y synchronous_commit activos), {rounds} rondas alternadas"
    );
    // [round][buyers index] = (file, PostgreSQL)
    let mut runs: Vec<[(Purchases, Purchases); 2]> = Vec::new();
    for round in 1..=rounds {
        let pair = |buyers| -> Result<(Purchases, Purchases)> {
            println!("ronda {round}, {buyers} compradores, diario en archivo:");
            let file = purchases(bin, gate_url, seconds, buyers)?;
            println!("ronda {round}, {buyers} compradores, PostgreSQL:");
            let pg = purchases(bin, &pg_url, seconds, buyers)?;
            Ok((file, pg))
        };
        runs.push([pair(8)?, pair(64)?]);
    }
    println!(
        "{:<12} {:>14} {:>14} {:>15} {:>15} {:>8}   PostgreSQL ÷ archivo por ronda",
        "compradores", "archivo c/s", "PG c/s", "archivo p99 ms", "PG p99 ms", "ratio"
    );
    for (index, buyers) in [8, 64].into_iter().enumerate() {
        let figure = |f: fn(&(Purchases, Purchases)) -> f64| median(runs.iter().map(|r| f(&r[index])).collect());
        let per_round: Vec<f64> = runs.iter().map(|r| r[index].1.rate / r[index].0.rate).collect();
        println!(
            "{buyers:<12} {:>14.0} {:>14.0} {:>15.2} {:>15.2} {:>8.2}   {}",
            figure(|r| r.0.rate),
            figure(|r| r.1.rate),
            figure(|r| r.0.p99_ms),
            figure(|r| r.1.p99_ms),
            median(per_round.clone()),
            rounds_text(&per_round)
        );
    }
    Ok(())
}

/// What `bench-compras` measured: purchases per second and the total latency's p99.
struct Purchases {
    rate: f64,
    p99_ms: f64,
}

/// Paid purchases with fresh signatures from `buyers` concurrent buyers, measured by the
/// sibling `bench-compras` (the same program the peer benchmark uses), whose lines are printed
/// as they come: purchases/s, total latency and, from the gate's `Server-Timing`, the gate's own
/// time without the facilitator.
fn purchases(bin: &Path, gate_url: &str, seconds: u64, buyers: usize) -> Result<Purchases> {
    let output = Command::new(bin.join("bench-compras"))
        .args(["--url", gate_url, "--ruta", "/estudio/reumatologia-2026?vista=resumen"])
        .args(["--compradores", &buyers.to_string(), "--segundos", &seconds.to_string()])
        .stderr(Stdio::inherit())
        .output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    print!("{text}");
    if !output.status.success() {
        bail!("bench-compras contra {gate_url} falló");
    }
    let fields: Vec<f64> = text
        .lines()
        .find_map(|l| l.strip_prefix("RESULTADO "))
        .context("bench-compras no dio su línea RESULTADO")?
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    match fields[..] {
        [rate, _p50, p99_ms, ..] => Ok(Purchases { rate, p99_ms }),
        _ => bail!("línea RESULTADO ilegible"),
    }
}

/// RSS growth of the gate while 50 clients download the largest file at once.
async fn memory(pid: u32, url: &str, bytes: u64) -> Result<()> {
    let client = reqwest::Client::new();
    let before = rss_kb(pid)?;
    let peak = Arc::new(std::sync::atomic::AtomicU64::new(before));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(kb) = rss_kb(pid) {
                    peak.fetch_max(kb, std::sync::atomic::Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let (client, url) = (client.clone(), url.to_owned());
            tokio::spawn(async move {
                let mut response = client.get(&url).send().await?;
                let mut n = 0u64;
                while let Some(chunk) = response.chunk().await? {
                    n += chunk.len() as u64;
                    // A slow reader keeps every stream open at once.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                Ok::<_, anyhow::Error>(n)
            })
        })
        .collect();
    for task in tasks {
        let n = task.await??;
        if n != bytes {
            bail!("descarga incompleta: {n} de {bytes}");
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = sampler.join();
    let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "memoria: 50 descargas simultáneas de {:.1} MB: RSS {:.1} MB antes, pico {:.1} MB, crecimiento {:.1} MB (tope 64 MB)",
        bytes as f64 / 1e6,
        before as f64 / 1024.0,
        peak as f64 / 1024.0,
        (peak.saturating_sub(before)) as f64 / 1024.0
    );
    Ok(())
}

fn rss_kb(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .context("VmRSS")
}

fn wrk(url: &str, seconds: &str, connections: u32) -> Result<Wrk> {
    wrk_with(url, seconds, connections, None)
}

fn wrk_script(url: &str, seconds: &str, connections: u32, script: &Path) -> Result<Wrk> {
    wrk_with(url, seconds, connections, Some(script))
}

fn wrk_with(url: &str, seconds: &str, connections: u32, script: Option<&Path>) -> Result<Wrk> {
    let mut command = Command::new("wrk");
    command.args(["-t2", &format!("-c{connections}"), &format!("-d{seconds}s"), "--latency"]);
    if let Some(script) = script {
        command.arg("-s").arg(script);
    }
    let output = command.arg(url).output()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() || text.contains("Non-2xx") && !url.contains("/estudio/") {
        bail!("wrk {url}:\n{text}");
    }
    let field = |prefix: &str| text.lines().find_map(|l| l.trim().strip_prefix(prefix).map(|r| r.trim().to_owned()));
    Ok(Wrk {
        rps: field("Requests/sec:").and_then(|v| v.parse().ok()).context("req/s")?,
        p50_ms: field("50%").map(|v| duration_ms(&v)).context("p50")?,
        p99_ms: field("99%").map(|v| duration_ms(&v)).context("p99")?,
        mb_s: field("Transfer/sec:").map(|v| size_mb(&v)).unwrap_or(0.0),
    })
}

fn duration_ms(text: &str) -> f64 {
    let split = text.find(|c: char| c.is_alphabetic()).unwrap_or(text.len());
    let (n, unit) = text.split_at(split);
    let n: f64 = n.parse().unwrap_or(0.0);
    match unit {
        "us" => n / 1000.0,
        "s" => n * 1000.0,
        "m" => n * 60_000.0,
        _ => n,
    }
}

fn size_mb(text: &str) -> f64 {
    let split = text.find(|c: char| c.is_alphabetic()).unwrap_or(text.len());
    let (n, unit) = text.split_at(split);
    let n: f64 = n.parse().unwrap_or(0.0);
    match unit {
        "KB" => n / 1024.0,
        "GB" => n * 1024.0,
        "B" => n / 1_048_576.0,
        _ => n,
    }
}

/// The free 12 KB JSON over HTTPS, the gate with TLS against nginx with TLS (same certificate,
/// same file): HTTP/1.1 with wrk and HTTP/2 with h2load (50 connections, 10 streams each), in
/// alternating rounds; each ratio is the median of its rounds'.
fn https(gate: &str, nginx: &str, seconds: &str, rounds: usize) -> Result<()> {
    let mut http1 = Vec::new();
    let mut http2 = Vec::new();
    for _ in 0..rounds {
        let n1 = wrk(&format!("{nginx}/catalogo.json"), seconds, 50)?.rps;
        let g1 = wrk(&format!("{gate}/catalogo"), seconds, 50)?.rps;
        let n2 = h2load(&format!("{nginx}/catalogo.json"), seconds)?;
        let g2 = h2load(&format!("{gate}/catalogo"), seconds)?;
        http1.push((n1, g1));
        http2.push((n2, g2));
    }
    for (name, runs) in [("HTTPS HTTP/1.1 (wrk)", &http1), ("HTTPS HTTP/2 (h2load -m10)", &http2)] {
        let ratios: Vec<f64> = runs.iter().map(|(n, g)| g / n).collect();
        println!(
            "{name:<28} nginx {:>8.0} req/s, gate {:>8.0} req/s: gate/nginx {:.2} (por ronda: {})",
            median(runs.iter().map(|(n, _)| *n).collect()),
            median(runs.iter().map(|(_, g)| *g).collect()),
            median(ratios.clone()),
            rounds_text(&ratios)
        );
    }
    Ok(())
}

/// Requests per second of h2load over HTTP/2 for `seconds`.
fn h2load(url: &str, seconds: &str) -> Result<f64> {
    let output = Command::new("h2load").args(["-c50", "-m10", "-t2", "-D", seconds]).arg(url).output()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let failed = text.lines().find_map(|l| l.strip_prefix("requests: ")).is_some_and(|l| !l.contains(" 0 failed"));
    if !output.status.success() || failed || !text.contains("h2") {
        bail!("h2load {url}:\n{text}");
    }
    text.lines()
        .find_map(|l| l.strip_prefix("finished in "))
        .and_then(|l| l.split(", ").nth(1))
        .and_then(|r| r.strip_suffix(" req/s"))
        .and_then(|r| r.parse().ok())
        .context("h2load no informó req/s")
}

/// A self-signed certificate for 127.0.0.1 (P-256), for both servers of the HTTPS cases.
fn self_signed_certificate(work: &Path) -> Result<(std::path::PathBuf, std::path::PathBuf)> {
    let (cert, key) = (work.join("tls.crt"), work.join("tls.key"));
    run_cmd(
        Command::new("openssl")
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30"])
            .args(["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stderr(Stdio::null()),
    )?;
    Ok((cert, key))
}

/// Waits until an HTTPS URL answers (certificate not checked: it is the benchmark's own).
fn wait_up_tls(url: &str) -> Result<()> {
    for _ in 0..150 {
        let ok = Command::new("curl").args(["-ksf", "-o", "/dev/null", url]).status()?.success();
        if ok {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("{url} no responde")
}

fn start_nginx(work: &Path, dist: &Path, port: u16, tls: (u16, &Path, &Path)) -> Result<Guard> {
    let conf = work.join("nginx.conf");
    let public = dist.join("public").canonicalize()?;
    let downloads = dist.join("private/descargas").canonicalize()?;
    std::fs::write(
        &conf,
        format!(
            "worker_processes 2;\npid {pid};\nerror_log {err} warn;\ndaemon off;\nevents {{ worker_connections 1024; }}\nhttp {{\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 100000;\n  types {{ application/json json; application/zip zip; }}\n  client_body_temp_path {tmp};\n  proxy_temp_path {tmp};\n  fastcgi_temp_path {tmp};\n  uwsgi_temp_path {tmp};\n  scgi_temp_path {tmp};\n  server {{\n    listen 127.0.0.1:{port};\n    root {public};\n    location /descargas/ {{ alias {downloads}/; }}\n  }}\n  server {{\n    listen 127.0.0.1:{tls_port} ssl http2;\n    ssl_certificate {cert};\n    ssl_certificate_key {key};\n    ssl_protocols TLSv1.2 TLSv1.3;\n    ssl_session_cache shared:SSL:1m;\n    http2_max_concurrent_streams 128;\n    root {public};\n  }}\n}}\n",
            tls_port = tls.0,
            cert = tls.1.display(),
            key = tls.2.display(),
            pid = work.join("nginx.pid").display(),
            err = work.join("nginx-error.log").display(),
            tmp = work.display(),
            public = public.display(),
            downloads = downloads.display(),
        ),
    )?;
    let child = Command::new("nginx").arg("-c").arg(&conf).arg("-p").arg(work).spawn()?;
    Ok(Guard(child))
}

struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

fn wait_up(url: &str) -> Result<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if Command::new("curl").args(["-sf", "-o", "/dev/null", url]).status().map(|s| s.success()).unwrap_or(false) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("{url} no respondió")
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn run_cmd(command: &mut Command) -> Result<()> {
    let status = command.status()?;
    if !status.success() {
        bail!("{command:?} falló");
    }
    Ok(())
}

/// The run, validated.
struct Settings {
    seconds: u64,
    rounds: usize,
    purchases_only: bool,
}

fn parse_args() -> Result<Settings> {
    let args: Args = cli::parse();
    Ok(Settings { seconds: args.seconds, rounds: usize::try_from(args.rounds)?, purchases_only: args.purchases_only })
}

/// The processor's model name, as `/proc/cpuinfo` gives it, and how many the machine has.
fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, m)| m.trim().to_owned()))
        .unwrap_or_else(|| "desconocido".to_owned());
    let count = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model} ({count} núcleos)")
}

/// The median (the lower middle value for an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len().saturating_sub(1) / 2).copied().unwrap_or(f64::NAN)
}

/// A wrk script whose every request to `path` carries a search never asked before in this
/// benchmark.
fn distinct_queries_script(path: &str, round: usize) -> String {
    format!(
        "local threads = 0\n\
         setup = function(thread)\n  threads = threads + 1\n  thread:set(\"id\", threads)\nend\n\
         counter = 0\n\
         request = function()\n  counter = counter + 1\n  \
         return wrk.format(nil, \"{path}?q=bancos+billeteras+argentina+r{round}t\" .. id .. \"x\" .. counter)\nend\n"
    )
}
