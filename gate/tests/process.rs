//! The real `gate` binary as a child process: killed with SIGKILL between settlement and
//! response and restarted (the sale is in the journal, the buyer recovers it, nothing is
//! settled twice, the embedded facilitator's ledger survives), a torn journal line, `gate
//! ventas`, a new `dist/` picked up on SIGHUP without dropping requests, and HTTPS whose
//! certificate SIGHUP reloads while open connections keep theirs.

#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use alloy_signer_local::PrivateKeySigner;
use gate::x402::PaymentRequirements;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
use gate::x402::header::encode_json;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The public Anvil/Hardhat development key #0 (never for real funds).
const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const BUILT_BASE_URL: &str = "http://127.0.0.1:8080";

/// The sample content the tests carry (not `content/`, which is the publisher's).
fn content() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/muestra")
}

fn build(content: &Path, out: &Path) {
    let options = generator::build::BuildOptions {
        content: content.to_owned(),
        out: out.to_owned(),
        quiet: true,
        discard_previous: false,
    };
    generator::build::build(&options).unwrap_or_else(|e| panic!("build failed: {e}"));
}

/// The sample content (`tests/muestra/`) built once for this test binary.
fn built() -> &'static Path {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, dist) = DIST.get_or_init(|| {
        // Under cargo's temp folder for tests: a static is never dropped, so the folder stays, and
        // `./tienda probar` empties it before each run (in the system's temp folder they piled up).
        let tmp = env!("CARGO_TARGET_TMPDIR");
        std::fs::create_dir_all(tmp).unwrap();
        let dir = tempfile::tempdir_in(tmp).unwrap();
        let dist = dir.path().join("dist");
        build(&content(), &dist);
        (dir, dist)
    });
    dist
}

/// A `gate` child process.
struct GateProcess {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl GateProcess {
    fn start(dist: &Path, data: &Path, env: &[(&str, &str)]) -> GateProcess {
        GateProcess::start_with(dist, data, env, &[])
    }

    fn start_with(dist: &Path, data: &Path, env: &[(&str, &str)], args: &[&str]) -> GateProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let log_path = data.join(format!("gate-{port}.log"));
        std::fs::create_dir_all(data).unwrap();
        let log = std::fs::File::create(&log_path).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_gate"));
        command
            .args(["--dist", &dist.display().to_string(), "--data", &data.display().to_string()])
            .args(["--listen", &format!("127.0.0.1:{port}"), "--threads", "2"])
            .env_remove("GATE_LINK_SECRET")
            .env_remove("GATE_FACILITATOR_URL")
            .env("GATE_LOG", "info")
            .current_dir(data)
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        for (name, value) in env {
            command.env(name, value);
        }
        command.args(args);
        let child = command.spawn().unwrap();
        let gate = GateProcess { child, port, log: log_path };
        gate.wait_ready();
        gate
    }

    fn wait_ready(&self) {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the gate did not start: {}", self.log());
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill").args([&format!("-{name}"), &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
    }
}

impl Drop for GateProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap()
}

fn accepted_of(dist: &Path, slug: &str, view: &str) -> Value {
    let manifest: Value = serde_json::from_slice(&std::fs::read(dist.join("gate.json")).unwrap()).unwrap();
    manifest["estudios"][slug]["vistas"][view]["pago_requerido"]["accepts"][0].clone()
}

fn signed_header(accepted: &Value) -> String {
    let key: PrivateKeySigner = DEV_KEY.parse().unwrap();
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone()).unwrap();
    let auth = client_authorization(&requirements, key.address(), gate::clock::now(), random_nonce()).unwrap();
    let signature = sign_authorization(&key, &domain_for(&requirements).unwrap(), &auth).unwrap();
    encode_json(&json!({"x402Version": 2, "accepted": accepted, "payload": exact_payload_json(&auth, &signature)}))
}

fn sales(data: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(["ventas", "--json", "--data", &data.display().to_string()])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    // 0, or 3 exactly when purchases wait to be reconciled: what monitoring alerts on.
    let pending = !report["pendientes"].as_array().unwrap().is_empty();
    let expected = if pending { gate::sales::export::PENDING_EXIT_CODE } else { 0 };
    assert_eq!(output.status.code(), Some(expected), "{}", String::from_utf8_lossy(&output.stderr));
    report
}

fn ledger(data: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(data.join("libro-local.json")).unwrap()).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sale_killed_between_settlement_and_response_is_journaled_and_recovered_after_restart() {
    let dist = built();
    let data_dir = tempfile::tempdir().unwrap();
    let data = data_dir.path();
    let client = client();
    let accepted = accepted_of(dist, "banca-2026", "completo");
    let header = signed_header(&accepted);

    // 1. The gate settles, journals the settlement, then stalls; SIGKILL it there.
    let mut gate = GateProcess::start(dist, data, &[("GATE_FALLA_PRUEBA", "pausar-tras-liquidar")]);
    let request = client.get(gate.url("/estudio/banca-2026")).header("PAYMENT-SIGNATURE", &header).send();
    let pending = tokio::spawn(request);
    let journal = data.join(gate::sales::journal::JOURNAL_FILE);
    let started = Instant::now();
    while !std::fs::read_to_string(&journal).unwrap_or_default().contains("\"liquidado\"") {
        assert!(started.elapsed() < Duration::from_secs(20), "no settlement journaled: {}", gate.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    gate.child.kill().unwrap();
    let status = gate.child.wait().unwrap();
    assert!(!status.success(), "killed, not exited");
    assert!(pending.await.unwrap().is_err(), "the buyer never got an answer");
    drop(gate);

    // The journal holds the settled sale, not yet delivered; the facilitator's ledger, one settlement.
    let report = sales(data);
    assert_eq!(report["ventas"].as_array().unwrap().len(), 1, "{report:#}");
    let sale = &report["ventas"][0];
    assert_eq!(sale["estudio"], "banca-2026");
    assert_eq!(sale["vista"], "completo");
    assert_eq!(sale["red"], "eip155:84532");
    assert_eq!(sale["pagador"], "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    assert_eq!(sale["monto"], "990000");
    assert_eq!(sale["entregado"], false);
    let transaction = sale["transaccion"].as_str().unwrap().to_owned();
    assert_eq!(transaction.len(), 66);
    assert_eq!(ledger(data)["liquidaciones"], 1);

    // A crash can also tear the last line: the gate must still start and cut it off.
    let mut file = std::fs::OpenOptions::new().append(true).open(&journal).unwrap();
    file.write_all(br#"{"fecha":"2026-11-23T00:00:00Z","unix":1,"compra":"x","evento":"acep"#).unwrap();
    drop(file);
    assert_eq!(sales(data)["avisos"].as_array().unwrap().len(), 1, "ventas reports the torn line");

    // 2. Restart: the buyer repeats the same request and gets the study, with no second settlement.
    let gate = GateProcess::start(dist, data, &[]);
    assert!(gate.log().contains("cortada"), "the torn line is reported: {}", gate.log());
    let response =
        client.get(gate.url("/estudio/banca-2026")).header("PAYMENT-SIGNATURE", &header).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("payment-response"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["liquidacion"]["transaccion"], transaction.as_str());
    assert_eq!(body["estudio"], "banca-2026");
    assert!(body["paquete"].is_object());
    assert_eq!(ledger(data)["liquidaciones"], 1, "not settled again");
    // Its fresh links work.
    let zip = body["acceso"]["descargas"]["zip"].clone();
    let url = zip["url"].as_str().unwrap().replacen(BUILT_BASE_URL, &gate.url(""), 1);
    let bytes = client.get(&url).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(sha256_hex(&bytes), zip["sha256"].as_str().unwrap());

    // Replayed for another view after the restart: refused, nothing settled.
    let other = client
        .get(gate.url("/estudio/banca-2026?vista=resumen"))
        .header("PAYMENT-SIGNATURE", &header)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 409);
    assert_eq!(other.json::<Value>().await.unwrap()["error"], "pago_ya_usado");

    // 3. A new purchase settles against the same ledger: balances carried over the restart.
    let fresh = client
        .get(gate.url("/estudio/farma-2026"))
        .header("PAYMENT-SIGNATURE", signed_header(&accepted_of(dist, "farma-2026", "completo")))
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), 200);
    let book = ledger(data);
    assert_eq!(book["liquidaciones"], 2);
    assert_eq!(
        book["saldos"]["eip155:84532|0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"],
        (100_000_000u64 - 2 * 990_000).to_string()
    );

    let report = sales(data);
    assert!(report["avisos"].as_array().unwrap().is_empty(), "the torn tail was cut off");
    assert_eq!(report["ventas"][0]["entregado"], true);
    assert_eq!(report["ventas"][0]["reentregas"], 1);
    assert_eq!(report["totales"]["general"]["ventas"], 2);
    assert_eq!(report["totales"]["general"]["usdc"], "1.98");
    assert_eq!(report["totales"]["por_estudio"]["farma-2026"]["ventas"], 1);
    assert_eq!(report["totales"]["por_red"]["eip155:84532"]["monto"], "1980000");
    assert_eq!(report["totales"]["por_dia"].as_object().unwrap().len(), 1);
    assert!(report["pendientes"].as_array().unwrap().is_empty());

    // The table form says the same.
    let table = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(["ventas", "--data", &data.display().to_string()])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains(&transaction) && table.contains("farma-2026") && table.contains("1.98"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_right_after_settlement_loses_no_sale() {
    let dist = built();
    let data_dir = tempfile::tempdir().unwrap();
    let data = data_dir.path();
    let client = client();
    let header = signed_header(&accepted_of(dist, "cosmetica-2026", "resumen"));
    let mut gate = GateProcess::start(dist, data, &[("GATE_FALLA_PRUEBA", "abortar-tras-liquidar")]);
    let answer =
        client.get(gate.url("/estudio/cosmetica-2026?vista=resumen")).header("PAYMENT-SIGNATURE", &header).send().await;
    assert!(answer.is_err(), "no answer left the aborted gate");
    assert!(!gate.child.wait().unwrap().success());
    drop(gate);
    let report = sales(data);
    assert_eq!(report["ventas"][0]["estudio"], "cosmetica-2026");
    assert_eq!(report["ventas"][0]["vista"], "resumen");
    let gate = GateProcess::start(dist, data, &[]);
    let again = client
        .get(gate.url("/estudio/cosmetica-2026?vista=resumen"))
        .header("PAYMENT-SIGNATURE", &header)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    let body: Value = again.json().await.unwrap();
    assert_eq!(body["liquidacion"]["transaccion"], report["ventas"][0]["transaccion"]);
    assert!(body["resumen"].is_object());
    assert_eq!(ledger(data)["liquidaciones"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_after_the_settle_and_before_the_journal_loses_no_sale() {
    let dist = built();
    let data_dir = tempfile::tempdir().unwrap();
    let data = data_dir.path();
    let client = client();
    let header = signed_header(&accepted_of(dist, "seguros-automotores-2026", "completo"));

    // 1. The facilitator settles (the money moves), and the gate is killed before it can
    //    journal the settlement: the journal holds only the acceptance.
    let mut gate = GateProcess::start(dist, data, &[("GATE_FALLA_PRUEBA", "pausar-antes-de-registrar")]);
    let request = client.get(gate.url("/estudio/seguros-automotores-2026")).header("PAYMENT-SIGNATURE", &header).send();
    let pending = tokio::spawn(request);
    let started = Instant::now();
    while std::fs::read(data.join("libro-local.json")).map_or(true, |_| ledger(data)["liquidaciones"] != 1) {
        assert!(started.elapsed() < Duration::from_secs(20), "no settlement: {}", gate.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    gate.child.kill().unwrap();
    assert!(!gate.child.wait().unwrap().success());
    assert!(pending.await.unwrap().is_err(), "the buyer never got an answer");
    drop(gate);
    let report = sales(data);
    assert!(report["ventas"].as_array().unwrap().is_empty(), "{report:#}");
    assert_eq!(report["pendientes"].as_array().unwrap().len(), 1, "listed to reconcile: {report:#}");
    assert_eq!(report["pendientes"][0]["estado"], "sin_resultado");

    // 2. Restart; the buyer repeats the same request. The money moved for this authorization,
    //    and the chain says so (in local mode the ledger is the chain): the study is delivered,
    //    nothing is settled twice. The gate's own reconciliation at start may find the payment
    //    before the repeat does (`conciliada`), or the repeat first (`recuperada`).
    let gate = GateProcess::start(dist, data, &[]);
    let response = client
        .get(gate.url("/estudio/seguros-automotores-2026"))
        .header("PAYMENT-SIGNATURE", &header)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", gate.log());
    let body: Value = response.json().await.unwrap();
    assert!(body["paquete"].is_object());
    assert_eq!(ledger(data)["liquidaciones"], 1, "exactly one settlement");
    let report = sales(data);
    assert!(report["pendientes"].as_array().unwrap().is_empty(), "{report:#}");
    assert_eq!(report["ventas"].as_array().unwrap().len(), 1, "{report:#}");
    let origin = report["ventas"][0]["origen"].as_str().unwrap_or_default();
    assert!(["recuperada", "conciliada"].contains(&origin), "{report:#}");
    assert_eq!(report["ventas"][0]["entregado"], true);
}

/// Sends a GET whose declared body arrives in two parts, `pause` apart; returns the status line.
fn slow_request(port: u16, path: &str, pause: impl FnOnce()) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\n01234").unwrap();
    pause();
    stream.write_all(b"56789").unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_dist_is_picked_up_on_sighup_without_dropping_requests() {
    let work = tempfile::tempdir().unwrap();
    let dist = work.path().join("dist");
    build(&content(), &dist);
    let data = work.path().join("var");
    let gate = GateProcess::start(&dist, &data, &[]);
    let client = client();
    assert_eq!(client.get(gate.url("/estudio/farma-2026")).send().await.unwrap().status(), 402);

    // A new build without one study, swapped in by the generator under the running gate.
    let content_copy = work.path().join("content");
    copy_dir(&content(), &content_copy);
    std::fs::remove_dir_all(content_copy.join("estudios/farma-2026")).unwrap();
    build(&content_copy, &dist);
    // Still the old gate until the signal.
    assert_eq!(client.get(gate.url("/estudio/farma-2026")).send().await.unwrap().status(), 402);

    // Free routes keep answering while the reload happens; a request whose body is still
    // arriving during the reload completes.
    let hammer = {
        let (client, url) = (client.clone(), gate.url("/catalogo"));
        tokio::spawn(async move {
            let mut statuses = Vec::new();
            for _ in 0..200 {
                statuses.push(client.get(&url).send().await.map(|r| r.status().as_u16()).unwrap_or(0));
            }
            statuses
        })
    };
    let port = gate.port;
    let status_line = {
        let gate = &gate;
        slow_request(port, "/catalogo", || {
            gate.signal("HUP");
            let started = Instant::now();
            while !gate.log().contains("dist/ recargado") {
                assert!(started.elapsed() < Duration::from_secs(20), "no reload: {}", gate.log());
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    assert!(status_line.contains("200"), "{status_line}");
    let statuses = hammer.await.unwrap();
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");

    assert_eq!(
        client.get(gate.url("/estudio/farma-2026")).send().await.unwrap().status(),
        404,
        "the new dist is served"
    );
    let catalog: Value = client.get(gate.url("/catalogo")).send().await.unwrap().json().await.unwrap();
    assert!(!catalog.to_string().contains("farma-2026"));
    assert_eq!(client.get(gate.url("/estudio/banca-2026")).send().await.unwrap().status(), 402);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Starts the gate expecting it to refuse: its exit code and what it printed on stderr, within
/// `limit` (a gate still running then fails the test). `RUST_BACKTRACE=1`, so a panic would
/// show its backtrace.
fn refused_start(args: &[String], env: &[(&str, &str)], limit: Duration) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gate"));
    command
        .args(args)
        .env_remove("GATE_LINK_SECRET")
        .env_remove("GATE_FACILITATOR_URL")
        .env("RUST_BACKTRACE", "1")
        .env("GATE_LOG", "info")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "the gate still ran after {limit:?} with {args:?}: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned());
    (status.code().unwrap_or(-1), stdout, stderr)
}

/// One line on stderr naming what to fix, no panic, no backtrace, nothing claims to listen.
fn assert_clean_refusal(what: &str, (code, stdout, stderr): &(i32, String, String), expected: &[&str]) {
    assert_ne!(*code, 0, "{what}: exit code");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{what}: one line on stderr, got:\n{stderr}");
    for word in expected {
        assert!(stderr.contains(word), "{what}: {word:?} missing in {stderr:?}");
    }
    for output in [stdout, stderr] {
        for sign in ["panicked", "backtrace", "RUST_BACKTRACE", "escuchando"] {
            assert!(!output.contains(sign), "{what}: {sign:?} in the output:\n{output}");
        }
    }
}

#[test]
fn a_second_gate_on_a_busy_port_exits_at_once_naming_the_address() {
    let dir = tempfile::tempdir().unwrap();
    let first = GateProcess::start(built(), &dir.path().join("primero"), &[]);
    let address = format!("127.0.0.1:{}", first.port);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !first.log().contains(&format!("escuchando en http://{address}")) {
        assert!(Instant::now() < deadline, "the first gate never said it listens: {}", first.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let args = [
        "--dist".to_owned(),
        built().display().to_string(),
        "--data".to_owned(),
        dir.path().join("segundo").display().to_string(),
        "--listen".to_owned(),
        address.clone(),
    ];
    let refused = refused_start(&args, &[], Duration::from_secs(2));
    assert_clean_refusal("busy port", &refused, &[&address, "--escuchar", "en uso"]);
    // The first gate is untouched.
    assert!(TcpStream::connect(("127.0.0.1", first.port)).is_ok());
}

#[test]
fn start_up_mistakes_end_with_one_line_and_no_backtrace() {
    let dir = tempfile::tempdir().unwrap();
    let dist = built().display().to_string();
    let data = dir.path().join("var").display().to_string();
    let a_file = dir.path().join("un-archivo");
    std::fs::write(&a_file, "no es una carpeta").unwrap();
    let missing = dir.path().join("no-existe").display().to_string();
    let args = |extra: &[&str], dist: &str, data: &str| -> Vec<String> {
        let mut args: Vec<String> = ["--dist", dist, "--data", data].map(String::from).to_vec();
        if !extra.contains(&"--escuchar") {
            args.extend(["--listen".to_owned(), "127.0.0.1:0".to_owned()]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let limit = Duration::from_secs(10);
    type Case<'a> = (&'a str, Vec<String>, Vec<(&'a str, &'a str)>, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        ("missing dist", args(&[], &missing, &data), vec![], vec![missing.as_str(), "no existe"]),
        ("data folder is a file", args(&[], &dist, &a_file.display().to_string()), vec![], vec!["un-archivo"]),
        (
            "bad environment variable",
            args(&[], &dist, &data),
            vec![("GATE_FACILITATOR_TIMEOUT", "pronto")],
            vec!["GATE_FACILITATOR_TIMEOUT"],
        ),
        ("short link secret", args(&[], &dist, &data), vec![("GATE_LINK_SECRET", "corto")], vec!["GATE_LINK_SECRET"]),
        ("listen without a port", args(&["--escuchar", "localhost"], &dist, &data), vec![], vec!["--escuchar"]),
        (
            "an address of another machine",
            args(&["--escuchar", "192.0.2.1:8080"], &dist, &data),
            vec![],
            vec!["192.0.2.1:8080", "--escuchar"],
        ),
        ("zero threads", args(&["--hilos", "0"], &dist, &data), vec![], vec!["--hilos"]),
    ];
    for (what, args, env, expected) in cases {
        let refused = refused_start(&args, &env, limit);
        assert_clean_refusal(what, &refused, &expected);
    }
    // A mistyped option: clap's usage error, in Spanish, exit 2.
    let (code, _, stderr) = refused_start(&args(&["--puerto", "8080"], &dist, &data), &[], limit);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("error: argumento inesperado '--puerto'"), "{stderr}");
    assert!(stderr.contains("pruebe '--help'") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_gate_started_with_relevo_takes_the_socket_over_on_sigquit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("var");
    let mut old = GateProcess::start(built(), &data, &[]);
    let log_path = data.join("relevo.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut new = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(["--dist", &built().display().to_string(), "--data", &data.display().to_string()])
        .args(["--listen", &format!("127.0.0.1:{}", old.port), "--threads", "2", "--relevo"])
        .env_remove("GATE_LINK_SECRET")
        .env_remove("GATE_FACILITATOR_URL")
        .env("GATE_LOG", "info")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let new_log = || std::fs::read_to_string(&log_path).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !new_log().contains("esperando el socket") {
        assert!(Instant::now() < deadline, "the new gate never waited for the socket: {}", new_log());
        std::thread::sleep(Duration::from_millis(20));
    }
    // The new gate listens on the upgrade socket right after that line.
    std::thread::sleep(Duration::from_millis(300));
    old.signal("QUIT");
    let deadline = Instant::now() + Duration::from_secs(15);
    while old.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the old gate did not exit after SIGQUIT: {}", old.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    while !new_log().contains("escuchando en") {
        assert!(Instant::now() < deadline, "the new gate did not take over: {}", new_log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let answer = slow_request(old.port, "/catalogo", || {});
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(new.try_wait().unwrap().is_none(), "the new gate keeps running");
    let _ = new.kill();
    let _ = new.wait();
}

/// A self-signed certificate for localhost written to `dir/name.{crt,key}`; returns its PEM.
fn write_certificate(dir: &Path, name: &str) -> String {
    let issued = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    std::fs::write(dir.join(format!("{name}.crt")), issued.cert.pem()).unwrap();
    std::fs::write(dir.join(format!("{name}.key")), issued.signing_key.serialize_pem()).unwrap();
    issued.cert.pem()
}

/// A client that trusts only `pem` (HTTP/2 by ALPN).
fn trusting(pem: &str) -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let trusted = reqwest::Certificate::from_pem(pem.as_bytes()).unwrap();
    reqwest::Client::builder().tls_certs_only([trusted]).timeout(Duration::from_secs(20)).build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_serves_and_sighup_swaps_the_certificate_without_dropping_connections() {
    let data_dir = tempfile::tempdir().unwrap();
    let data = data_dir.path();
    let first = write_certificate(data, "tls");
    let (cert, key) = (data.join("tls.crt").display().to_string(), data.join("tls.key").display().to_string());
    let gate = GateProcess::start_with(built(), data, &[], &["--tls-cert", &cert, "--tls-key", &key]);
    let url = format!("https://localhost:{}/catalogo", gate.port);
    let open = trusting(&first);
    let response = open.get(&url).send().await.unwrap();
    assert_eq!((response.status().as_u16(), response.version()), (200, reqwest::Version::HTTP_2));
    // The announcement comes from its own thread once the port answers: wait for it.
    let announced = format!("escuchando en https://127.0.0.1:{}", gate.port);
    let started = Instant::now();
    while !gate.log().contains(&announced) {
        assert!(started.elapsed() < Duration::from_secs(20), "no https announcement: {}", gate.log());
        std::thread::sleep(Duration::from_millis(20));
    }

    // New files, then SIGHUP.
    let second = write_certificate(data, "next");
    std::fs::rename(data.join("next.crt"), &cert).unwrap();
    std::fs::rename(data.join("next.key"), &key).unwrap();
    gate.signal("HUP");
    let started = Instant::now();
    while !gate.log().contains("certificado TLS recargado") {
        assert!(started.elapsed() < Duration::from_secs(20), "no reload: {}", gate.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    // The open connection keeps its session; new handshakes get the new certificate.
    assert_eq!(open.get(&url).send().await.unwrap().status(), 200, "the open connection still answers");
    assert!(trusting(&first).get(&url).send().await.is_err(), "a new handshake no longer gets the old certificate");
    assert_eq!(trusting(&second).get(&url).send().await.unwrap().status(), 200);
}

/// What the access log holds is what the sample privacy page says it holds: each field of an
/// access line is named in the page (a new field fails here until the page says it), and the
/// query, where download links carry their signatures, is never written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_privacy_page_names_every_field_of_the_access_log() {
    // Each field of the `acceso` line, and how the privacy page names it.
    const NAMED_AS: [(&str, &str); 6] = [
        ("client", "dirección IP"),
        ("method", "método"),
        ("path", "ruta sin parámetros"),
        ("status", "estado"),
        ("bytes", "tamaño"),
        ("ms", "duración"),
    ];
    let dist = built();
    let data_dir = tempfile::tempdir().unwrap();
    let gate = GateProcess::start(dist, data_dir.path(), &[]);
    let page = client().get(gate.url("/privacidad")).send().await.unwrap().text().await.unwrap();
    let secret_query = "/descarga/banca-2026.zip?vence=1&firma=no-debe-quedar-escrita";
    let _ = client().get(gate.url(secret_query)).send().await.unwrap();
    let started = Instant::now();
    let line = loop {
        let log = gate.log();
        if let Some(line) = log.lines().find(|l| l.contains("acceso") && l.contains("/descarga/banca-2026.zip")) {
            break line.to_owned();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no access line: {log}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!gate.log().contains("no-debe-quedar-escrita"), "the query is never logged: {line}");
    let fields: Vec<&str> =
        line.split_whitespace().filter_map(|word| word.split_once('=').map(|(name, _)| name)).collect();
    assert_eq!(fields, NAMED_AS.map(|(field, _)| field), "the access line's fields: {line}");
    let section = page.split("Registros de acceso").nth(1).expect("the page has a section on access logs");
    for (field, words) in NAMED_AS {
        assert!(section.contains(words), "the privacy page does not say that the log keeps {field} ({words})");
    }
    assert!(section.contains("se borran a los 30 días"), "how long they are kept");
}
