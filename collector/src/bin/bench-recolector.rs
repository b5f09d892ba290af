//! `bench-recolector`: the collector's own overhead per call, against the local simulator, as a
//! ratio to raw reqwest calls of the same bodies to the same simulator in the same run, with and
//! without `envios.jsonl` (the line each request writes, fsync'd, before it leaves, and the line
//! that closes it: what the study's budget costs, against the collector as it was before); then
//! the throughput it reaches with the rate limits set to the providers' published tiers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use collector::client::Stop;
use collector::config::CollectionFile;
use collector::run::{self, Options};
use collector::simulator::{Behaviour, Simulator};
use tokio::sync::Semaphore;

#[derive(Parser)]
#[command(
    name = "bench-recolector",
    about = "Mide el costo propio del recolector por llamada y su ritmo con los límites publicados"
)]
struct Cli {
    /// Preguntas del estudio de prueba (× 4 modelos × 2 repeticiones llamadas).
    #[arg(long = "preguntas", default_value_t = 250)]
    questions: usize,
    /// Rondas de cada medición (se informa la mediana).
    #[arg(long = "rondas", default_value_t = 3)]
    rounds: usize,
    /// Llamadas en paralelo por proveedor.
    #[arg(long = "concurrencia", default_value_t = 8)]
    concurrency: u32,
    /// Segundos de cada medición de ritmo con límites publicados (0: no medir).
    #[arg(long = "segundos", default_value_t = 20)]
    seconds: u64,
    /// Carpeta donde crear los estudios de prueba (en disco: cada línea hace fsync).
    #[arg(long = "carpeta", default_value = "target/bench-recolector")]
    folder: PathBuf,
}

const PROVIDERS: [(&str, &str, &str); 4] = [
    ("openai", "openai", "gpt-5-mini"),
    ("anthropic", "anthropic", "claude-sonnet-4-5"),
    ("google", "google", "gemini-2.5-flash"),
    ("perplexity", "perplexity", "sonar"),
];

fn collection_file(url: &str, concurrency: u32, rpm: &BTreeMap<&str, u32>) -> String {
    let mut text = String::from("repeticiones = 2\npresupuesto_usd = 1000000.0\n\n[reintentos]\nintentos = 1\n\n");
    for (name, kind, _) in PROVIDERS {
        text.push_str(&format!(
            "[proveedores.{name}]\ntipo = \"{kind}\"\nurl_base = \"{url}\"\nconcurrencia = {concurrency}\nsolicitudes_por_minuto = {}\n\n",
            rpm.get(name).copied().unwrap_or(1_000_000)
        ));
    }
    for (name, _, model) in PROVIDERS {
        text.push_str(&format!(
            "[[modelos]]\nid = \"{model}\"\nproveedor = \"{name}\"\nmodelo = \"{model}\"\nnivel = \"estándar\"\nprecio = {{ entrada = 0.25, salida = 2.0, busqueda = 0.01 }}\n\n"
        ));
    }
    text
}

fn study(dir: &Path, questions: usize, file: &str) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let mut lines = String::new();
    for i in 1..=questions {
        lines.push_str(&format!(
            "{{\"id\":\"P{i:04}\",\"texto\":\"¿Qué compañía de celular me conviene para la pregunta {i}?\",\"idioma\":\"es\",\"modelo\":\"estándar\"}}\n"
        ));
    }
    std::fs::write(dir.join("preguntas.jsonl"), lines)?;
    std::fs::write(dir.join("recoleccion.toml"), file)
}

/// One collection of the study in `dir`; `request_lines`: with `envios.jsonl` (as it runs now),
/// or without it (the reference: the collector before the study's budget).
async fn collector_round(dir: &Path, request_lines: bool) -> (Duration, u64) {
    let settings = CollectionFile::read(&dir.join("recoleccion.toml")).expect("recoleccion.toml");
    let plan = run::plan(dir, &settings).expect("plan");
    let keys = test_keys(&settings);
    let options = Options { study: dir.to_path_buf(), progress: false, keys, batches: false };
    let started = Instant::now();
    let summary = if request_lines {
        run::collect(settings, plan, options, Stop::default()).await
    } else {
        run::collect_without_request_lines(settings, plan, options, Stop::default()).await
    }
    .expect("recolección");
    (started.elapsed(), summary.answers)
}

/// The same calls, as bare reqwest POSTs of the same bodies with the same concurrency per
/// provider: what any client must pay, without parsing, budgeting or writing.
async fn reference_round(url: &str, dir: &Path, concurrency: u32) -> (Duration, u64) {
    let settings = CollectionFile::read(&dir.join("recoleccion.toml")).expect("recoleccion.toml");
    let plan = run::plan(dir, &settings).expect("plan");
    let (client, _) = run::clients().expect("cliente");
    let semaphores: BTreeMap<String, Arc<Semaphore>> =
        settings.providers.keys().map(|n| (n.clone(), Arc::new(Semaphore::new(concurrency as usize)))).collect();
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for job in &plan.jobs {
        let model = &settings.models[job.model];
        let kind = settings.providers[&model.provider].kind;
        let call = run::call_of(&settings, model, &job.question);
        let request = collector::providers::request(kind, &call, Some("clave-de-prueba"));
        let semaphore = Arc::clone(&semaphores[&model.provider]);
        let client = client.clone();
        let target = format!("{url}{}", request.path);
        tasks.spawn(async move {
            let _permit = semaphore.acquire_owned().await.expect("permiso");
            let mut builder = client.post(&target).body(request.body);
            for (name, value) in request.headers {
                builder = builder.header(name, value);
            }
            let response = builder.send().await.expect("envío");
            let body = response.bytes().await.expect("cuerpo");
            body.len() as u64
        });
    }
    let mut calls = 0;
    while let Some(done) = tasks.join_next().await {
        if done.is_ok() {
            calls += 1;
        }
    }
    (started.elapsed(), calls)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main]
async fn main() {
    let cli: Cli = cli::parse();
    let simulator = Simulator::start("127.0.0.1:0", Behaviour::default(), false).await.expect("simulador");
    let url = simulator.url();
    let unlimited = BTreeMap::new();
    let file = collection_file(&url, cli.concurrency, &unlimited);
    let calls = cli.questions * PROVIDERS.len() * 2;
    println!(
        "Costo propio por llamada: {calls} llamadas ({} preguntas × {} modelos × 2 repeticiones), {} en paralelo por proveedor, simulador local sin demora",
        cli.questions,
        PROVIDERS.len(),
        cli.concurrency
    );
    let (mut bare, mut before, mut now) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=cli.rounds {
        let dir = cli.folder.join(format!("ronda-{round}"));
        let reference_dir = cli.folder.join(format!("ronda-{round}-sin-envios"));
        study(&dir, cli.questions, &file).expect("estudio de prueba");
        study(&reference_dir, cli.questions, &file).expect("estudio de prueba");
        let (reference, n_ref) = reference_round(&url, &dir, cli.concurrency).await;
        // The two collectors one after the other, in alternating order, so neither always runs
        // on a warmer disk.
        let ((without, n_without), (with, n_with)) = if round % 2 == 1 {
            let without = collector_round(&reference_dir, false).await;
            (without, collector_round(&dir, true).await)
        } else {
            let with = collector_round(&dir, true).await;
            (collector_round(&reference_dir, false).await, with)
        };
        assert_eq!(
            (n_without as usize, n_with as usize),
            (calls, calls),
            "el recolector escribió todas las respuestas"
        );
        let sent = std::fs::read_to_string(dir.join("envios.jsonl")).map(|t| t.lines().count()).unwrap_or(0);
        assert_eq!(sent, 2 * calls, "una línea al enviar y una al cerrar, por llamada");
        assert!(
            !reference_dir.join("envios.jsonl").exists()
                || std::fs::read_to_string(reference_dir.join("envios.jsonl")).unwrap_or_default().is_empty()
        );
        let per = |d: Duration, n: u64| d.as_secs_f64() * 1e6 / n as f64;
        let (per_ref, per_without, per_with) = (per(reference, n_ref), per(without, n_without), per(with, n_with));
        println!(
            "  ronda {round}: reqwest solo {per_ref:.0} µs/llamada · recolector sin envios.jsonl {per_without:.0} µs/llamada (razón {:.2}) · con envios.jsonl {per_with:.0} µs/llamada (razón {:.2}) · con/sin {:.2}",
            per_without / per_ref,
            per_with / per_ref,
            per_with / per_without
        );
        bare.push(per_ref);
        before.push(per_without);
        now.push(per_with);
    }
    let ratios: Vec<f64> = now.iter().zip(&before).map(|(n, b)| n / b).collect();
    let (r, b, n) = (median(bare), median(before), median(now));
    println!(
        "  mediana: reqwest solo {r:.0} µs/llamada; recolector sin envios.jsonl {b:.0} µs/llamada (razón {:.2}, costo propio ≈ {:.0} µs: leer, armar, medir, fsync de la respuesta); con envios.jsonl {n:.0} µs/llamada (razón {:.2}); las dos líneas de envios.jsonl (dos fsync más por llamada) suman ≈ {:.0} µs por llamada, razón con/sin {:.2}",
        b / r,
        b - r,
        n / r,
        n - b,
        median(ratios)
    );
    if cli.seconds == 0 {
        return;
    }
    // Published tiers (requests per minute) of each provider's entry paid tier; the simulator
    // answers in 2 s, like a short web-search answer.
    let tiers: BTreeMap<&str, u32> =
        [("openai", 500), ("anthropic", 50), ("google", 1000), ("perplexity", 50)].into_iter().collect();
    drop(simulator);
    let slow =
        Simulator::start("127.0.0.1:0", Behaviour { latency: Duration::from_secs(2), ..Behaviour::default() }, false)
            .await
            .expect("simulador");
    println!(
        "\nRitmo con los límites publicados (simulador con 2 s por respuesta, {} en paralelo por proveedor, {} s por proveedor):",
        cli.concurrency, cli.seconds
    );
    for (name, kind, model) in PROVIDERS {
        let rpm = tiers[name];
        let mut only = BTreeMap::new();
        only.insert(name, rpm);
        let mut text = String::from("repeticiones = 1\npresupuesto_usd = 1000000.0\n\n");
        text.push_str(&format!(
            "[proveedores.{name}]\ntipo = \"{kind}\"\nurl_base = \"{}\"\nconcurrencia = {}\nsolicitudes_por_minuto = {rpm}\n\n",
            slow.url(),
            cli.concurrency
        ));
        text.push_str(&format!(
            "[[modelos]]\nid = \"{model}\"\nproveedor = \"{name}\"\nmodelo = \"{model}\"\nnivel = \"estándar\"\nprecio = {{ entrada = 0.25, salida = 2.0 }}\n"
        ));
        let dir = cli.folder.join(format!("ritmo-{name}"));
        study(&dir, 2000, &text).expect("estudio de prueba");
        let settings = CollectionFile::read(&dir.join("recoleccion.toml")).expect("recoleccion.toml");
        let plan = run::plan(&dir, &settings).expect("plan");
        let keys = test_keys(&settings);
        let stop = Stop::default();
        let timer = stop.clone();
        let seconds = cli.seconds;
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            timer.trigger(collector::client::StopReason::Interrupted);
        });
        let started = Instant::now();
        let summary =
            run::collect(settings, plan, Options { study: dir.clone(), progress: false, keys, batches: false }, stop)
                .await
                .expect("recolección");
        let minutes = started.elapsed().as_secs_f64() / 60.0;
        let ceiling = f64::from(rpm).min(f64::from(cli.concurrency) * 60.0 / 2.0);
        println!(
            "  {name:<11} límite {rpm:>5}/min · techo con {} en paralelo y 2 s: {ceiling:.0}/min · logrado {:.0}/min ({} respuestas en {:.1} s)",
            cli.concurrency,
            summary.answers as f64 / minutes,
            summary.answers,
            minutes * 60.0
        );
    }
}

/// A made-up key per provider: the simulator takes any.
fn test_keys(settings: &CollectionFile) -> BTreeMap<String, Option<String>> {
    settings.providers.keys().map(|name| (name.clone(), Some("clave-de-prueba".to_owned()))).collect()
}
