//! The real `gate` binaries on one shared sales record in a real PostgreSQL server (a
//! throwaway cluster, see `tests/src/postgres.rs`): a gate that cannot reach its database
//! refuses to start without showing the password; a gate killed between settlement and reply
//! is recovered through another gate; `gate ventas --ventas` reads the database, `gate ventas
//! importar` loads a journal file once.

#![allow(clippy::unwrap_used)]

#[path = "../../tests/src/postgres.rs"]
#[allow(dead_code, unreachable_pub)]
mod postgres;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use alloy_signer_local::PrivateKeySigner;
use gate::x402::PaymentRequirements;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
use gate::x402::header::encode_json;
use postgres::Postgres;
use serde_json::{Value, json};

/// The public Anvil/Hardhat development key #0 (never for real funds).
const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

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
        let content = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/muestra");
        let options =
            generator::build::BuildOptions { content, out: dist.clone(), quiet: true, discard_previous: false };
        generator::build::build(&options).unwrap_or_else(|e| panic!("build failed: {e}"));
        (dir, dist)
    });
    dist
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A child process listening on a port, killed on drop.
struct Process {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Process {
    fn start(exe: &str, args: &[String], env: &[(&str, &str)], dir: &Path) -> Process {
        let port = free_port();
        std::fs::create_dir_all(dir).unwrap();
        let log = dir.join(format!("proceso-{port}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let mut command = Command::new(exe);
        command
            .args(args)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env_remove("GATE_LINK_SECRET")
            .env_remove("GATE_FACILITATOR_URL")
            .env_remove("GATE_VENTAS")
            .env("GATE_LOG", "info")
            .current_dir(dir)
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        for (name, value) in env {
            command.env(name, value);
        }
        let process = Process { child: command.spawn().unwrap(), port, log };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "{exe} did not start: {}", process.log());
            std::thread::sleep(Duration::from_millis(50));
        }
        process
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A gate over the built `dist/` with its data in `data`.
fn gate(data: &Path, facilitator: Option<&str>, args: &[&str], env: &[(&str, &str)]) -> Process {
    let mut all = vec!["--dist".to_owned(), built().display().to_string(), "--data".to_owned()];
    all.push(data.display().to_string());
    all.extend(["--threads".to_owned(), "2".to_owned()]);
    if let Some(url) = facilitator {
        all.extend(["--facilitador".to_owned(), url.to_owned()]);
    }
    all.extend(args.iter().map(|a| (*a).to_owned()));
    Process::start(env!("CARGO_BIN_EXE_gate"), &all, env, data)
}

fn client() -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap()
}

fn signed_header(slug: &str, view: &str) -> String {
    let manifest: Value = serde_json::from_slice(&std::fs::read(built().join("gate.json")).unwrap()).unwrap();
    let accepted = manifest["estudios"][slug]["vistas"][view]["pago_requerido"]["accepts"][0].clone();
    let key: PrivateKeySigner = DEV_KEY.parse().unwrap();
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone()).unwrap();
    let auth = client_authorization(&requirements, key.address(), gate::clock::now(), random_nonce()).unwrap();
    let signature = sign_authorization(&key, &domain_for(&requirements).unwrap(), &auth).unwrap();
    encode_json(&json!({"x402Version": 2, "accepted": accepted, "payload": exact_payload_json(&auth, &signature)}))
}

/// `gate ventas ARGS…`: whether it succeeded (exit 0, or 3 for "purchases to reconcile"),
/// stdout and stderr.
fn sales(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gate"));
    command.arg("ventas").args(args).env_remove("GATE_VENTAS");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    (
        matches!(output.status.code(), Some(0 | gate::sales::export::PENDING_EXIT_CODE)),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn sales_json(url: &str) -> Value {
    let (ok, stdout, stderr) = sales(&["--json", "--ventas", url], &[]);
    assert!(ok, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    // Exit 3 says so exactly when purchases wait to be reconciled (stderr says how many).
    let pending = report["pendientes"].as_array().unwrap().len();
    assert_eq!(stderr.contains("compras inciertas por conciliar"), pending > 0, "{stderr}");
    report
}

#[test]
fn a_gate_that_cannot_reach_its_database_refuses_to_start_without_showing_the_password() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on this port.
    let url = format!("postgres://vendedor:secreto-de-prueba@127.0.0.1:{}/ventas", free_port());
    let dist = built().display().to_string();
    let data = dir.path().display().to_string();
    for (args, env) in [
        (vec!["--dist", &dist, "--data", &data, "--ventas", &url], vec![]),
        (vec!["--dist", &dist, "--data", &data], vec![("GATE_VENTAS", url.as_str())]),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_gate"))
            .args(&args)
            .args(["--listen", &format!("127.0.0.1:{}", free_port())])
            .envs(env)
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
        let line = stderr.lines().last().unwrap_or_default();
        assert!(line.starts_with("gate: no se pudo usar la base de ventas postgres://vendedor@127.0.0.1:"), "{stderr}");
        assert!(line.contains("el gate no arranca sin su registro de ventas"), "{stderr}");
        for output in [&stdout, &stderr] {
            assert!(!output.contains("secreto-de-prueba"), "the password leaked: {output}");
            assert!(!output.contains("panicked") && !output.contains("escuchando"), "{output}");
        }
    }
    // A URL that is not PostgreSQL's is refused before anything.
    let (ok, _, stderr) = sales(&["--ventas", "mysql://x@y/z"], &[]);
    assert!(!ok && stderr.contains("se espera una URL postgres://"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_killed_between_settlement_and_reply_is_recovered_through_the_other() {
    let db = Postgres::start().expect("PostgreSQL starts");
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    let facilitator_data = dir.path().join("facilitador");
    let facilitator = Process::start(
        env!("CARGO_BIN_EXE_facilitador-local"),
        &["--data".to_owned(), facilitator_data.display().to_string()],
        &[],
        &facilitator_data,
    );
    let settlements = || -> u64 {
        let book: Value =
            serde_json::from_slice(&std::fs::read(facilitator_data.join("libro-local.json")).unwrap()).unwrap();
        book["liquidaciones"].as_u64().unwrap()
    };
    let facilitator_url = facilitator.url("");
    let mut a = gate(
        &dir.path().join("a"),
        Some(&facilitator_url),
        &["--ventas", &url],
        &[("GATE_FALLA_PRUEBA", "pausar-tras-liquidar")],
    );
    let b = gate(&dir.path().join("b"), Some(&facilitator_url), &[], &[("GATE_VENTAS", &url)]);
    let described = format!("ventas en la base postgres://postgres@127.0.0.1:{}/ventas", db.port());
    assert!(a.log().contains(&described) && b.log().contains(&described), "{}", a.log());

    // Gate A settles, commits the settlement, then stalls: SIGKILL it there.
    let client = client();
    let header = signed_header("banca-2026", "completo");
    let pending = tokio::spawn(client.get(a.url("/estudio/banca-2026")).header("PAYMENT-SIGNATURE", &header).send());
    let started = Instant::now();
    while db.psql("SELECT count(*) FROM eventos WHERE evento = 'liquidado'").unwrap() != "1" {
        assert!(started.elapsed() < Duration::from_secs(20), "no settlement committed: {}", a.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    a.child.kill().unwrap();
    assert!(!a.child.wait().unwrap().success(), "killed");
    assert!(pending.await.unwrap().is_err(), "the buyer never got an answer");
    let report = sales_json(&url);
    assert_eq!(report["ventas"].as_array().unwrap().len(), 1, "{report:#}");
    assert_eq!(report["ventas"][0]["entregado"], false);
    let transaction = report["ventas"][0]["transaccion"].as_str().unwrap().to_owned();
    assert_eq!(settlements(), 1);

    // The buyer's repeat lands on gate B: the study, the same transaction, no second settlement.
    let response = client.get(b.url("/estudio/banca-2026")).header("PAYMENT-SIGNATURE", &header).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("payment-response"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["liquidacion"]["transaccion"], transaction.as_str());
    assert!(body["paquete"].is_object());
    assert_eq!(settlements(), 1, "not settled again");

    let report = sales_json(&url);
    assert_eq!(report["diario"], format!("postgres://postgres@127.0.0.1:{}/ventas", db.port()));
    assert_eq!(
        (report["ventas"][0]["entregado"].clone(), report["ventas"][0]["reentregas"].clone()),
        (json!(true), json!(1))
    );
    assert!(report["pendientes"].as_array().unwrap().is_empty());

    // A journal file of a gate that sold alone, imported into the shared record, twice.
    let alone = dir.path().join("solo");
    let single = gate(&alone, None, &[], &[]);
    let response = client
        .get(single.url("/estudio/farma-2026"))
        .header("PAYMENT-SIGNATURE", signed_header("farma-2026", "completo"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    drop(single);
    let alone = alone.display().to_string();
    let (ok, first, stderr) = sales(&["importar", "--data", &alone, "--ventas", &url], &[]);
    assert!(ok, "{stderr}");
    assert!(first.contains("3 registros nuevos de 3"), "{first}");
    let (ok, second, stderr) = sales(&["importar", "--data", &alone], &[("GATE_VENTAS", &url)]);
    assert!(ok, "{stderr}");
    assert!(second.contains("0 registros nuevos de 3 (3 ya estaban)"), "{second}");
    let (ok, table, stderr) = sales(&["--ventas", &url], &[]);
    assert!(ok, "{stderr}");
    assert!(table.contains(&transaction) && table.contains("farma-2026") && table.contains("1.98"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_killed_after_the_settle_and_before_the_record_loses_no_sale() {
    let db = Postgres::start().expect("PostgreSQL starts");
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    let facilitator_data = dir.path().join("facilitador");
    let facilitator = Process::start(
        env!("CARGO_BIN_EXE_facilitador-local"),
        &["--data".to_owned(), facilitator_data.display().to_string()],
        &[],
        &facilitator_data,
    );
    let settlements = || -> u64 {
        std::fs::read(facilitator_data.join("libro-local.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|book| book["liquidaciones"].as_u64())
            .unwrap_or(0)
    };
    let facilitator_url = facilitator.url("");
    // Holds of 3 s instead of minutes, so the stopped gate's purchase counts as uncertain soon.
    let hold = ("GATE_VENTAS_PLAZO_PRUEBA", "3");
    let mut a = gate(
        &dir.path().join("a"),
        Some(&facilitator_url),
        &["--ventas", &url],
        &[("GATE_FALLA_PRUEBA", "pausar-antes-de-registrar"), hold],
    );
    let b = gate(&dir.path().join("b"), Some(&facilitator_url), &["--ventas", &url], &[hold]);

    // The facilitator settles (the money moves); gate A is killed before the record knows.
    let client = client();
    let header = signed_header("seguros-automotores-2026", "completo");
    let path = "/estudio/seguros-automotores-2026";
    let pending = tokio::spawn(client.get(a.url(path)).header("PAYMENT-SIGNATURE", &header).send());
    let started = Instant::now();
    while settlements() != 1 {
        assert!(started.elapsed() < Duration::from_secs(20), "no settlement: {}", a.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    a.child.kill().unwrap();
    assert!(!a.child.wait().unwrap().success());
    assert!(pending.await.unwrap().is_err(), "the buyer never got an answer");
    let report = sales_json(&url);
    assert!(report["ventas"].as_array().unwrap().is_empty(), "{report:#}");
    assert_eq!(report["pendientes"][0]["estado"], "sin_resultado", "listed to reconcile: {report:#}");

    // Within A's hold, gate B takes the repeat for a purchase still in flight: nothing settled.
    let response = client.get(b.url(path)).header("PAYMENT-SIGNATURE", &header).send().await.unwrap();
    assert_eq!(response.status(), 409);
    assert_eq!(response.json::<Value>().await.unwrap()["error"], "pago_en_curso");
    // Past it, the purchase is uncertain: the repeat settles again and the facilitator says the
    // nonce is used. With no chain to read (these gates have no RPC), that is no proof of
    // payment (the payer could have canceled the authorization): still uncertain, nothing
    // delivered, nothing settled twice.
    std::thread::sleep(Duration::from_millis(4200));
    let response = client.get(b.url(path)).header("PAYMENT-SIGNATURE", &header).send().await.unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!((status.as_u16(), body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
    assert_eq!(settlements(), 1, "exactly one settlement");
    let report = sales_json(&url);
    assert_eq!(report["pendientes"].as_array().unwrap().len(), 1, "{report:#}");
    // The publisher finds the transaction (here in the facilitator's ledger, in production on a
    // block explorer) and reconciles it: then any gate delivers the sale to the same repeat.
    let ledger: Value =
        serde_json::from_slice(&std::fs::read(facilitator_data.join("libro-local.json")).unwrap()).unwrap();
    let transaction = ledger["pagos"].as_object().unwrap().values().next().unwrap()["transaccion"].as_str().unwrap();
    let purchase = report["pendientes"][0]["compra"].as_str().unwrap();
    let (ok, _, stderr) = sales(&["conciliar", purchase, "--liquidada", transaction, "--ventas", &url], &[]);
    assert!(ok, "{stderr}");
    let response = client.get(b.url(path)).header("PAYMENT-SIGNATURE", &header).send().await.unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body["paquete"].is_object());
    assert_eq!(body["liquidacion"]["transaccion"], transaction);
    assert_eq!(settlements(), 1, "exactly one settlement");
    let report = sales_json(&url);
    assert!(report["pendientes"].as_array().unwrap().is_empty(), "{report:#}");
    assert_eq!(report["ventas"].as_array().unwrap().len(), 1, "{report:#}");
    assert_eq!(report["ventas"][0]["origen"], "conciliada");
    assert_eq!(report["ventas"][0]["entregado"], true);
    // A further repeat is a plain re-delivery of the now paid purchase.
    let response = client.get(b.url(path)).header("PAYMENT-SIGNATURE", &header).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(settlements(), 1);
}
