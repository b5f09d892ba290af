//! The real binary: a study of 20 questions × 6 models × 3 repetitions collected from the local
//! simulator, killed with SIGKILL mid-run and resumed (every triple answered once, no duplicate,
//! no loss), keys never in the files or the output, `--plan` asking nothing, `--help` in Spanish;
//! then the collected study goes through the generator's `check`.

#![allow(clippy::unwrap_used)] // helpers of the tests panic on failure, like the tests

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use collector::simulator::{Behaviour, Simulator};
use common::{BRANDS, FileSpec, lines, write_questions};

const EXE: &str = env!("CARGO_BIN_EXE_recolector");
const KEYS: [(&str, &str); 4] = [
    ("OPENAI_API_KEY", "sk-proj-secretisima-0001"),
    ("ANTHROPIC_API_KEY", "sk-ant-secretisima-0002"),
    ("GEMINI_API_KEY", "AIza-secretisima-0003"),
    ("PERPLEXITY_API_KEY", "pplx-secretisima-0004"),
];

const STUDY_TOML: &str = r#"nombre = "Telefonía móvil, recolectada"
nombre_en = "Mobile carriers, collected"
descripcion = "Prueba del recolector contra el simulador local."
descripcion_en = "Collector test against the local simulator."
industria = "Telecomunicaciones"
subindustria = "Telefonía móvil"
pais = ["Argentina"]
idioma = ["es"]
publicado = "2026-04-15"
version_paquete = "1.0.0"
tags = []
como_citar = "Prueba."
nota = "Respuestas del simulador local, no de los proveedores."

[[metodologia]]
titulo = "Recolección"
texto = "Cada pregunta se hizo tres veces a cada modelo, con búsqueda web."

[[dimensiones]]
id = "tema"
etiqueta = "Tema"
etiqueta_en = "Topic"
valores = ["planes", "cobertura"]

[[modelos]]
id = "gpt-5-mini"
nombre = "GPT-5 mini"
proveedor = "OpenAI"
nivel = "estándar"

[[modelos]]
id = "gpt-5"
nombre = "GPT-5"
proveedor = "OpenAI"
nivel = "estándar"

[[modelos]]
id = "claude-haiku-4-5"
nombre = "Claude Haiku 4.5"
proveedor = "Anthropic"
nivel = "estándar"

[[modelos]]
id = "claude-sonnet-4-5"
nombre = "Claude Sonnet 4.5"
proveedor = "Anthropic"
nivel = "estándar"

[[modelos]]
id = "gemini-2.5-flash"
nombre = "Gemini 2.5 Flash"
proveedor = "Google"
nivel = "estándar"

[[modelos]]
id = "sonar"
nombre = "Sonar"
proveedor = "Perplexity"
nivel = "estándar"

[[analisis]]
id = "A01"
nombre = "visibilidad_marcas"
titulo = "Visibilidad de marcas"
titulo_en = "Brand visibility"
tipo = "marcas"
metricas = ["mencion", "orden", "citacion", "top1", "sov"]

[[analisis]]
id = "A02"
nombre = "mencion_por_modelo"
titulo = "Tasa de mención por modelo"
titulo_en = "Mention rate by model"
tipo = "marca_por_modelo"
metricas = ["mencion"]

[[analisis]]
id = "A03"
nombre = "acuerdo"
titulo = "Acuerdo entre modelos"
titulo_en = "Agreement between models"
tipo = "acuerdo"

[[analisis]]
id = "A04"
nombre = "estabilidad"
titulo = "Estabilidad entre repeticiones"
titulo_en = "Stability across repetitions"
tipo = "estabilidad"
"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A content folder with the repository's service files and one study to collect.
fn content(root: &Path, url: &str) -> PathBuf {
    std::fs::create_dir_all(root.join("estudios")).unwrap();
    for file in ["servicio.toml", "metricas.toml"] {
        std::fs::copy(repo().join("tests/muestra").join(file), root.join(file)).unwrap();
    }
    let study = root.join("estudios/telefonia-recolectada-2026");
    write_questions(&study, 20);
    std::fs::write(study.join("estudio.toml"), STUDY_TOML).unwrap();
    std::fs::write(study.join("marcas.toml"), BRANDS).unwrap();
    std::fs::write(study.join("hallazgos.toml"), "").unwrap();
    std::fs::write(study.join("recoleccion.toml"), FileSpec { concurrency: 2, ..FileSpec::new(url) }.render()).unwrap();
    study
}

fn collector(args: &[&str], out: &Path) -> Command {
    let mut command = Command::new(EXE);
    command.args(args).env_remove("RUST_LOG");
    for (variable, key) in KEYS {
        command.env(variable, key);
    }
    let stdout = std::fs::OpenOptions::new().create(true).append(true).open(out.join("stdout.txt")).unwrap();
    let stderr = std::fs::OpenOptions::new().create(true).append(true).open(out.join("stderr.txt")).unwrap();
    command.stdout(Stdio::from(stdout)).stderr(Stdio::from(stderr));
    command
}

fn count_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_with_sigkill_and_resumed_every_triple_is_answered_once() {
    let behaviour = Behaviour { latency: Duration::from_millis(100), ..Behaviour::default() };
    let sim = Simulator::start("127.0.0.1:0", behaviour, false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    let answers = study.join("respuestas.jsonl");
    let study_arg = study.to_str().unwrap();

    // --plan asks nothing.
    let status = collector(&["recolectar", study_arg, "--plan"], logs.path()).status().unwrap();
    assert!(status.success());
    assert_eq!(sim.served(), 0);
    let plan = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(plan.contains("360 llamadas por hacer"), "{plan}");

    // Killed mid-run.
    let mut child = collector(&["recolectar", study_arg, "--si"], logs.path()).spawn().unwrap();
    let started = Instant::now();
    while count_lines(&answers) < 60 {
        assert!(started.elapsed() < Duration::from_secs(60), "the run did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success());
    let at_kill = count_lines(&answers);
    assert!(at_kill < 360, "killed mid-run ({at_kill} lines)");

    // Resumed to the end.
    let status = collector(&["recolectar", study_arg, "--si"], logs.path()).status().unwrap();
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(status.success(), "{stdout}");
    assert!(stdout.contains("ya estaban hechas"), "{stdout}");
    assert!(stdout.contains("para la metodología:   «Cada pregunta se hizo 3 veces"), "{stdout}");
    assert!(stdout.contains("gemini-2.5-flash (gemini-2.5-flash-001)"), "{stdout}");
    let written = lines(&answers);
    assert_eq!(written.len(), 360);
    let triples: BTreeSet<(String, String, u64)> = written
        .iter()
        .map(|a| {
            (
                a["pregunta"].as_str().unwrap().into(),
                a["modelo"].as_str().unwrap().into(),
                a["repeticion"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(triples.len(), 360, "no duplicates, no loss");
    let ids: BTreeSet<&str> = written.iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 360);
    assert!(sim.served() >= 360);

    // Keys: nowhere in the study's files, the output or the errors.
    let mut texts = vec![
        std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap(),
        std::fs::read_to_string(logs.path().join("stderr.txt")).unwrap(),
    ];
    for entry in std::fs::read_dir(&study).unwrap() {
        texts.push(std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
    }
    for (variable, key) in KEYS {
        assert!(texts.iter().all(|t| !t.contains(key) && !t.contains("secretisima")), "{variable} leaked");
    }

    // The collected study, as the generator reads it.
    match generator::check(&root.path().join("content")) {
        Ok(checked) => {
            let study = checked.content.studies.iter().position(|s| s.answers.len() == 360).unwrap();
            let stability = checked.tables[study].iter().find(|t| t.id == "A04").unwrap();
            // 20 questions × 3 repetitions: 3 pairs per question and model.
            let keys: Vec<&str> = stability.row_keys().collect();
            assert_eq!(keys.len(), 7, "six models and the total: {keys:?}");
            assert_eq!(stability.cell("total", "pares"), Some(&generator::metrics::analysis::Cell::Int(6 * 20 * 3)));
        }
        Err(problems) => panic!("generator check:\n{problems}"),
    }

    // Built, and every published cell recomputed by the independent implementation
    // (tests/recalculo, Python), repetitions clustered by question.
    let dist = root.path().join("dist");
    let options = generator::build::BuildOptions {
        content: root.path().join("content"),
        out: dist.clone(),
        quiet: true,
        discard_previous: false,
    };
    generator::build::build(&options).unwrap_or_else(|e| panic!("generator build: {e}"));
    match Command::new("python3")
        .arg(repo().join("tests/recalculo/recalcular.py"))
        .args(["--content", root.path().join("content").to_str().unwrap(), "--dist", dist.to_str().unwrap()])
        .output()
    {
        Ok(output) => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "recalculo:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
            assert!(stdout.contains(", 0 mismatches"), "{stdout}");
        }
        Err(e) => eprintln!("python3 no está: se omite el recálculo independiente ({e})"),
    }

    // Sold by the gate: the 402, a payment signed with the public development key, the study.
    sell(&dist, "telefonia-recolectada-2026", 360).await;
}

/// Starts the gate over `dist` (local mode, its local facilitator), buys `slug` in full with
/// the public Anvil/Hardhat development key #0 and checks the package holds every answer.
async fn sell(dist: &Path, slug: &str, answers: usize) {
    use gate::facilitator::local::{LocalConfig, LocalFacilitator};
    use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
    use gate::x402::{PaymentPayload, PaymentRequirements};
    let links = gate::links::LinkSigner::new(vec![7; 32], 7 * 86_400).unwrap();
    let facilitator = std::sync::Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let loaded = gate::app::Gate::load(dist, facilitator, links, None).unwrap();
    let server = gate_http::spawn(std::sync::Arc::new(loaded), 1).unwrap();
    let url = format!("{}/estudio/{slug}?vista=completo", server.url());
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let http = reqwest::Client::new();
    let unpaid = http.get(&url).send().await.unwrap();
    assert_eq!(unpaid.status(), 402);
    let offer: serde_json::Value = unpaid.json().await.unwrap();
    let accepted = offer["x402"]["accepts"][0].clone();
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone()).unwrap();
    let key: alloy_signer_local::PrivateKeySigner =
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80".parse().unwrap();
    let authorization = client_authorization(&requirements, key.address(), gate::clock::now(), random_nonce()).unwrap();
    let signature = sign_authorization(&key, &domain_for(&requirements).unwrap(), &authorization).unwrap();
    let payload = PaymentPayload {
        x402_version: 2,
        resource: None,
        accepted,
        payload: exact_payload_json(&authorization, &signature),
        extensions: None,
    };
    let paid =
        http.get(&url).header("PAYMENT-SIGNATURE", gate::x402::header::encode_json(&payload)).send().await.unwrap();
    assert_eq!(paid.status(), 200);
    let study: serde_json::Value = paid.json().await.unwrap();
    assert_eq!(study["estudio"], slug);
    assert_eq!(study["paquete"]["respuestas"].as_array().map(Vec::len), Some(answers), "every collected answer");
}

#[test]
fn help_is_in_spanish_and_describes_every_option() {
    let mut problems = cli::binary_help_problems(Path::new(EXE), &[]);
    problems.extend(cli::binary_help_problems(Path::new(EXE), &["recolectar"]));
    problems.extend(cli::binary_help_problems(Path::new(EXE), &["simulador"]));
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_missing_key_is_reported_before_anything_is_asked() {
    let root = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), "http://127.0.0.1:9");
    let output = Command::new(EXE)
        .args(["recolectar", study.to_str().unwrap()])
        .env_remove("OPENAI_API_KEY")
        .env("ANTHROPIC_API_KEY", "x")
        .env("GEMINI_API_KEY", "x")
        .env("PERPLEXITY_API_KEY", "x")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("falta la variable de entorno OPENAI_API_KEY"), "{stderr}");
    assert!(!study.join("respuestas.jsonl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_finishes_the_calls_in_flight_writes_them_and_stops() {
    let behaviour = Behaviour { latency: Duration::from_millis(200), ..Behaviour::default() };
    let sim = Simulator::start("127.0.0.1:0", behaviour, false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    let answers = study.join("respuestas.jsonl");
    let mut child = collector(&["recolectar", study.to_str().unwrap(), "--si"], logs.path()).spawn().unwrap();
    let started = Instant::now();
    while count_lines(&answers) < 10 {
        assert!(started.elapsed() < Duration::from_secs(60), "the run did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let interrupt = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(interrupt.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(stdout.contains("detenida con Ctrl-C"), "{stdout}");
    let written = lines(&answers); // every line whole
    assert!(written.len() < 360);
    assert!(sim.served() as usize <= written.len() + 8, "at most the calls in flight were lost");
    let status = collector(&["recolectar", study.to_str().unwrap(), "--si"], logs.path()).status().unwrap();
    assert!(status.success());
    assert_eq!(lines(&answers).len(), 360);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tone_by_the_judge_then_peoples_labels_and_the_generator_accepts_both() {
    let sim = Simulator::start("127.0.0.1:0", Behaviour::default(), true).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    let file = study.join("recoleccion.toml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text = text.replace("repeticiones = 3", "repeticiones = 1");
    text.push_str(
        "[juez]\nproveedor = \"openai\"\nmodelo = \"gpt-5-mini\"\nprecio = { entrada = 0.25, salida = 2.0 }\n",
    );
    std::fs::write(&file, text).unwrap();
    let study_arg = study.to_str().unwrap();
    assert!(collector(&["recolectar", study_arg, "--si"], logs.path()).status().unwrap().success());
    let collected = sim.requests().len();

    assert!(collector(&["tono", study_arg, "--plan"], logs.path()).status().unwrap().success());
    assert_eq!(sim.requests().len(), collected, "--plan asks nothing");
    let status = collector(&["tono", study_arg], logs.path()).status().unwrap();
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(status.success(), "{stdout}");
    assert!(stdout.contains("lo etiquetó el modelo gpt-5-mini (versión gpt-5-mini-2025-08-07)"), "{stdout}");
    let judged = &sim.requests()[collected..];
    assert_eq!(judged.len(), 120, "one judge call per answer naming a brand");
    for request in judged {
        let body = request.json();
        assert_eq!(request.path, "/v1/responses");
        assert!(body.get("tools").is_none(), "the judge does not search");
        assert!(body["instructions"].as_str().unwrap().contains("anotador de tono"));
        assert!(body["input"].as_str().unwrap().starts_with("MARCAS: "));
    }
    let answers = lines(&study.join("respuestas.jsonl"));
    assert_eq!(answers.len(), 120);
    for answer in &answers {
        let labels = answer["tono"].as_object().unwrap();
        assert!(!labels.is_empty());
        for brand in labels.keys() {
            let name = match brand.as_str() {
                "movistar" => "Movistar",
                "claro" => "Claro",
                _ => "Personal",
            };
            assert!(answer["respuesta"].as_str().unwrap().contains(name), "a label only on a brand named");
        }
        let origin = &answer["recoleccion"]["tono"];
        assert_eq!(origin["origen"], "juez");
        assert_eq!(origin["modelo"], "gpt-5-mini");
        assert_eq!(origin["version"], "gpt-5-mini-2025-08-07");
    }
    // A rerun has nothing left to label.
    assert!(collector(&["tono", study_arg], logs.path()).status().unwrap().success());
    assert_eq!(sim.requests().len(), collected + 120);

    // People's labels replace the judge's for those answers; a wrong one is refused whole.
    let first = answers[0]["id"].as_str().unwrap();
    let named = answers[0]["tono"].as_object().unwrap().keys().next().unwrap().clone();
    let labels = logs.path().join("etiquetas.jsonl");
    std::fs::write(
        &labels,
        format!("{{\"id\": \"{first}\", \"tono\": {{\"{named}\": \"neg\"}}}}\n{{\"id\": \"nadie\", \"tono\": {{}}}}\n"),
    )
    .unwrap();
    let refused = Command::new(EXE).args(["importar-tono", study_arg, labels.to_str().unwrap()]).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("`nadie` no está en respuestas.jsonl"));
    std::fs::write(&labels, format!("{{\"id\": \"{first}\", \"tono\": {{\"{named}\": \"neg\"}}}}\n")).unwrap();
    let imported = Command::new(EXE).args(["importar-tono", study_arg, labels.to_str().unwrap()]).output().unwrap();
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    let answers = lines(&study.join("respuestas.jsonl"));
    assert_eq!(answers[0]["tono"], serde_json::json!({ named.clone(): "neg" }));
    assert_eq!(answers[0]["recoleccion"]["tono"]["origen"], "humano");
    assert_eq!(answers[0]["recoleccion"]["tono"]["archivo"], "etiquetas.jsonl");

    match generator::check(&root.path().join("content")) {
        Ok(_) => {}
        Err(problems) => panic!("generator check:\n{problems}"),
    }
}

/// What the study's files say it spent, as `recolector` reads them.
fn study_spent(study: &Path) -> f64 {
    collector::journal::spent(study).unwrap().total()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_under_a_cap_never_passes_it_across_runs_and_sigkills() {
    // 150 ms per answer and two calls in flight per provider (eight at once): every kill lands
    // with requests in flight, which the simulator bills as a provider would.
    let behaviour = Behaviour { latency: Duration::from_millis(150), ..Behaviour::default() };
    let sim = Simulator::start("127.0.0.1:0", behaviour, false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    std::fs::write(
        study.join("recoleccion.toml"),
        FileSpec { concurrency: 2, budget: 1.0, ..FileSpec::new(&sim.url()) }.render(),
    )
    .unwrap();
    let answers = study.join("respuestas.jsonl");
    let study_arg = study.to_str().unwrap();
    let bill = |sim: &Simulator| sim.billed() as f64 * common::CALL_COST;
    // Killed with SIGKILL five times, each a few answers after it started.
    for kill in 1..=5 {
        let before = count_lines(&answers);
        let lost_before = collector::journal::spent(&study).unwrap().unrecorded;
        let mut child = collector(&["recolectar", study_arg, "--si"], logs.path()).spawn().unwrap();
        let started = Instant::now();
        while count_lines(&answers) < before + 4 && child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < Duration::from_secs(60), "run {kill} did not start");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let (billed, spent) = (bill(&sim), study_spent(&study));
        assert!(billed <= 1.0 + 1e-9, "kill {kill}: the providers billed {billed} USD");
        assert!(spent + 1e-9 >= billed, "kill {kill}: the study counts {spent} USD, the providers billed {billed}");
        assert!(spent <= 1.0 + 1e-9, "kill {kill}: the study counts {spent} USD");
        // A call is in progress until its line is written: a kill loses at most the eight calls
        // the providers' `concurrencia` lets run at once, each counted at its reservation.
        let lost = collector::journal::spent(&study).unwrap().unrecorded - lost_before;
        assert!(lost <= 8.0 * common::CALL_COST + 1e-9, "kill {kill} lost {:.1} calls", lost / common::CALL_COST);
    }
    // Run to the cap, then again: the second run asks nothing.
    for _ in 0..2 {
        let status = collector(&["recolectar", study_arg, "--si"], logs.path()).status().unwrap();
        assert_eq!(status.code(), Some(3));
    }
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(stdout.contains("detenida por presupuesto"), "{stdout}");
    let billed = bill(&sim);
    let asked_at_the_cap = sim.billed();
    let status = collector(&["recolectar", study_arg, "--si"], logs.path()).status().unwrap();
    assert_eq!(status.code(), Some(3));
    assert_eq!(sim.billed(), asked_at_the_cap, "at the cap, a run asks nothing");
    let spent = study_spent(&study);
    assert!(billed <= 1.0 + 1e-9 && spent <= 1.0 + 1e-9, "billed {billed}, counted {spent}");
    assert!(spent + 1e-9 >= billed);
    // The budget was used to within one call: requests lost in flight at the kills count at
    // their reservation (the providers billed those that had arrived), the rest are answers.
    assert!(spent > 1.0 - common::CALL_COST, "the budget was used: {spent}");
    assert!(count_lines(&answers) >= 92 - 5 * 8, "{} answers", count_lines(&answers));
}

/// `recolector` on a real terminal: run under util-linux's `script`, which gives it a
/// pseudo-terminal for stdin, stdout and stderr; what it prints is read as it comes, and what it
/// reads is written into the terminal.
struct OnTerminal {
    child: std::process::Child,
    output: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl OnTerminal {
    fn start(args: &[&str]) -> OnTerminal {
        use std::io::Read;
        let mut command_line = EXE.to_owned();
        for arg in args {
            command_line.push_str(&format!(" '{arg}'"));
        }
        let mut command = Command::new("script");
        command.args(["-qefc", &command_line, "/dev/null"]).env_remove("RUST_LOG");
        for (variable, key) in KEYS {
            command.env(variable, key);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("script (util-linux) runs the binary on a pseudo-terminal");
        let mut stdout = child.stdout.take().unwrap();
        let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&output);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        OnTerminal { child, output }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    async fn wait_for(&self, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let text = self.text();
            if text.contains(needle) {
                return text;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "no {needle:?} on the terminal:\n{text}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn type_line(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    async fn finish(mut self) -> (Option<i32>, String) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                tokio::time::sleep(Duration::from_millis(50)).await;
                return (status.code(), self.text());
            }
            assert!(started.elapsed() < Duration::from_secs(60), "did not finish:\n{}", self.text());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

const QUESTION: &str = "¿Hacer estas llamadas?";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_the_cost_and_the_question_come_before_any_call() {
    let sim = Simulator::start("127.0.0.1:0", Behaviour::default(), false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    std::fs::write(study.join("recoleccion.toml"), FileSpec { repetitions: 1, ..FileSpec::new(&sim.url()) }.render())
        .unwrap();
    let study_arg = study.to_str().unwrap();

    // Answered «n»: nothing is asked.
    let mut run = OnTerminal::start(&["recolectar", study_arg]);
    let shown = run.wait_for(QUESTION).await;
    assert_eq!(sim.served(), 0, "the question comes before any call");
    let cost = shown.find("Por hacer: 120 llamadas (0 ya hechas); costo esperado 1.3020 USD").expect(&shown);
    assert!(cost < shown.find(QUESTION).unwrap(), "the cost line first:\n{shown}");
    assert!(shown.contains("Presupuesto del estudio: 100.00 USD"), "{shown}");
    run.type_line("n");
    let (code, text) = run.finish().await;
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("No se hizo ninguna llamada."), "{text}");
    assert_eq!(sim.served(), 0);

    // Answered «s»: the calls are made after the answer.
    let mut run = OnTerminal::start(&["recolectar", study_arg]);
    run.wait_for(QUESTION).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sim.served(), 0, "nothing is asked while the question waits");
    run.type_line("s");
    let (code, text) = run.finish().await;
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(sim.served(), 120);

    // --si on a terminal: the cost line, no question.
    std::fs::write(study.join("recoleccion.toml"), FileSpec { repetitions: 2, ..FileSpec::new(&sim.url()) }.render())
        .unwrap();
    let run = OnTerminal::start(&["recolectar", study_arg, "--si"]);
    let (code, text) = run.finish().await;
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("Por hacer: 120 llamadas (120 ya hechas)"), "{text}");
    assert!(!text.contains(QUESTION), "{text}");
    assert_eq!(sim.served(), 240);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_it_refuses_to_spend_unless_told_and_says_how_to_resume() {
    let sim = Simulator::start("127.0.0.1:0", Behaviour::default(), false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    let url = sim.url();
    let file = FileSpec { repetitions: 1, attempts: 1, concurrency: 1, ..FileSpec::new(&url) };
    std::fs::write(study.join("recoleccion.toml"), file.render()).unwrap();
    let study_arg = study.to_str().unwrap();
    let status = collector(&["recolectar", study_arg], logs.path()).stdin(Stdio::null()).status().unwrap();
    assert_eq!(status.code(), Some(2));
    let stderr = std::fs::read_to_string(logs.path().join("stderr.txt")).unwrap();
    assert!(stderr.contains("no hay una terminal donde preguntar si seguir: agregue --si (o --yes)"), "{stderr}");
    assert_eq!(sim.served(), 0);

    // With --yes (the English alias), and failures: the summary says the command to run again.
    for _ in 0..3 {
        sim.push_fault(collector::config::Kind::Anthropic, collector::simulator::Fault::Status(500, None));
    }
    let status = collector(&["recolectar", study_arg, "--yes"], logs.path()).stdin(Stdio::null()).status().unwrap();
    assert_eq!(status.code(), Some(3));
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(stdout.contains("fallas:                3 (http_500: 3)"), "{stdout}");
    let advice = format!(
        "Para seguir donde quedó (pregunta solo lo que falta, y lo gastado cuenta para el mismo presupuesto):\n  {EXE} recolectar {study_arg} --yes\n"
    );
    assert!(stdout.contains(&advice), "{stdout}");
    // That command finishes the study.
    let status = Command::new(EXE)
        .args(["recolectar", study_arg, "--yes"])
        .envs(KEYS)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(count_lines(&study.join("respuestas.jsonl")), 120);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_with_consumer_surfaces_is_collected_and_the_generator_checks_and_builds_it() {
    let sim = Simulator::start("127.0.0.1:0", Behaviour::default(), false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    // The same study, asked of an API model, Perplexity's Sonar API and Google's two consumer
    // surfaces (through SerpApi).
    let models_start = STUDY_TOML.find("[[modelos]]").unwrap();
    let analyses_start = STUDY_TOML.find("[[analisis]]").unwrap();
    let models = r#"[[modelos]]
id = "gpt-5-mini"
nombre = "GPT-5 mini"
proveedor = "OpenAI"
nivel = "estándar"

[[modelos]]
id = "sonar-perplexity"
nombre = "Sonar"
proveedor = "Perplexity"
nivel = "estándar"

[[modelos]]
id = "google-ai-overview"
nombre = "Google AI Overview"
proveedor = "Google"
nivel = "estándar"

[[modelos]]
id = "google-ai-mode"
nombre = "Google AI Mode"
proveedor = "Google"
nivel = "estándar"

"#;
    let estudio = format!("{}{models}{}", &STUDY_TOML[..models_start], &STUDY_TOML[analyses_start..]);
    std::fs::write(study.join("estudio.toml"), estudio).unwrap();
    let url = sim.url();
    let surfaces = [
        ("gpt-5-mini", "openai", "openai", "gpt-5-mini"),
        common::SURFACE_MODELS[0],
        common::SURFACE_MODELS[1],
        common::SURFACE_MODELS[2],
    ];
    let file = FileSpec { models: &surfaces, repetitions: 2, ..FileSpec::new(&url) };
    std::fs::write(study.join("recoleccion.toml"), file.render()).unwrap();
    let mut command = collector(&["recolectar", study.to_str().unwrap(), "--si"], logs.path());
    command.env("SERPAPI_API_KEY", "serp-secretisima-0005");
    let status = command.status().unwrap();
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(status.success(), "{stdout}");
    assert!(stdout.contains("las superficies de consumo de Google, por SerpApi"), "{stdout}");
    let written = lines(&study.join("respuestas.jsonl"));
    let surfaces_written: BTreeSet<&str> = written.iter().map(|a| a["superficie"].as_str().unwrap()).collect();
    assert_eq!(surfaces_written, BTreeSet::from(["api", "google_ai_mode", "google_ai_overview"]));
    assert!(written.iter().all(|a| a["fuentes_consultadas"].is_array()));
    for file in ["respuestas.jsonl", "envios.jsonl", "incidencias.jsonl"] {
        let text = std::fs::read_to_string(study.join(file)).unwrap_or_default();
        assert!(!text.contains("serp-secretisima"), "the SerpApi key stays out of {file}");
    }
    assert!(!stdout.contains("serp-secretisima"));
    match generator::check(&root.path().join("content")) {
        Ok(checked) => {
            let answers = &checked.content.studies[0].answers;
            assert_eq!(answers.len(), written.len());
            let read: BTreeSet<&str> = answers.iter().filter_map(|a| a.surface.as_deref()).collect();
            assert_eq!(read, surfaces_written, "the generator reads each answer's surface");
            assert!(answers.iter().all(|a| a.consulted.is_some()));
        }
        Err(problems) => panic!("generator check:\n{problems}"),
    }
    let options = generator::build::BuildOptions {
        content: root.path().join("content"),
        out: root.path().join("dist"),
        quiet: true,
        discard_previous: false,
    };
    generator::build::build(&options).unwrap_or_else(|e| panic!("generator build: {e}"));
}

fn events(path: &Path, event: &str) -> usize {
    lines(path).iter().filter(|l| l["evento"] == event).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_sent_before_a_sigkill_are_collected_by_the_next_run_not_sent_again() {
    // Batches that take two seconds: the kill lands while the run waits for them.
    let behaviour = Behaviour { batch_latency: Duration::from_secs(2), ..Behaviour::default() };
    let sim = Simulator::start("127.0.0.1:0", behaviour, false).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let study = content(&root.path().join("content"), &sim.url());
    std::fs::write(study.join("recoleccion.toml"), FileSpec { repetitions: 1, ..FileSpec::new(&sim.url()) }.render())
        .unwrap();
    let study_arg = study.to_str().unwrap();
    let batches = study.join("lotes.jsonl");
    let mut child = collector(&["recolectar", study_arg, "--lote", "--si"], logs.path()).spawn().unwrap();
    let started = Instant::now();
    while events(&batches, "enviado") < 5 {
        assert!(started.elapsed() < Duration::from_secs(60), "the batches were not sent");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap(); // SIGKILL, while the run waits for the batches
    child.wait().unwrap();
    assert_eq!(sim.batches_created(), 5, "one batch per model with a batch API");
    assert_eq!(events(&batches, "terminado"), 0);
    // Their calls count at their reservations until they are collected.
    let spent = collector::journal::spent(&study).unwrap();
    assert!(spent.open >= 100, "{spent:?}");

    // A run without --lote leaves them alone, and says so.
    let plan = Command::new(EXE).args(["recolectar", study_arg, "--plan"]).output().unwrap();
    let plan = String::from_utf8_lossy(&plan.stdout);
    assert!(plan.contains("100 llamadas esperan en lotes enviados antes"), "{plan}");

    // The next `--lote` run collects them, sending nothing again.
    let status = collector(&["recolectar", study_arg, "--lote", "--si"], logs.path()).status().unwrap();
    let stdout = std::fs::read_to_string(logs.path().join("stdout.txt")).unwrap();
    assert!(status.success(), "{stdout}");
    assert!(stdout.contains("esta corrida los recoge"), "{stdout}");
    assert_eq!(sim.batches_created(), 5, "no batch sent twice");
    assert_eq!(events(&batches, "terminado"), 5);
    let written = lines(&study.join("respuestas.jsonl"));
    let triples: BTreeSet<(String, String)> = written
        .iter()
        .map(|a| (a["pregunta"].as_str().unwrap().into(), a["modelo"].as_str().unwrap().into()))
        .collect();
    assert_eq!((written.len(), triples.len()), (120, 120), "every call answered once");
    // Every call of the batches closed; what stays open is what was in flight one by one (the
    // OpenAI-compatible model has no batch API) when the run was killed.
    let (sent, closed) = collector::journal::sends(&study).unwrap();
    assert!(sent.values().filter(|s| s.batch.is_some()).all(|s| closed.contains(&s.id)));
    let spent = collector::journal::spent(&study).unwrap();
    let recorded: f64 = written.iter().map(|a| a["recoleccion"]["costo_usd"].as_f64().unwrap()).sum();
    assert!((spent.recorded - recorded).abs() < 1e-9, "{spent:?} vs {recorded}");
    // Four in flight at most (its concurrency), lost with the killed run, count at their
    // reservation (and one closed whose answer the kill kept from being written, at its cost).
    assert!(spent.unrecorded <= 5.0 * common::CALL_COST + 1e-9, "{spent:?}");
    // The providers billed each batch call once, and each direct call that reached them.
    let batch_call = 0.000125 + 0.0003 + 0.01;
    let billed = 100.0 * batch_call + (sim.billed() - 100) as f64 * common::CALL_COST;
    assert!(spent.total() + 1e-9 >= billed, "counted {} USD, billed {billed}", spent.total());
    match generator::check(&root.path().join("content")) {
        Ok(_) => {}
        Err(problems) => panic!("generator check:\n{problems}"),
    }
}
