//! Backups and restores, with exactly the commands the book's *Operar* chapters give
//! (`docs/src/operar/respaldos.md`, `instalar.md`, `escalar.md`): each shell block a test runs
//! follows a `<!-- probado: NAME -->` marker in the guide, and is run from there,
//! as written, by bash with the guide's variables (`DATOS`, `SECRETOS`, `RESPALDOS`,
//! `CLAVE_RESPALDO`) pointed at temporary folders.
//!
//! Each test: a real gate (started from its settings as `gate` starts: secrets from the
//! environment file, local mode's facilitator and ledger in `--data`) on an ephemeral port, a
//! real purchase, the backup, everything wiped (the data folder, the environment file, the
//! database), a gate on the wiped state that does not know the buyer (the test can fail), the
//! restore, and a new gate where the past buyer gets the study again by signing in with the
//! same wallet (x402 `sign-in-with-x`), the old signed link still downloads, and the old
//! receipt verifies against the key the new gate publishes. The file journal's test rotates
//! the journal at every step, so the sale lives only in rotated segments; it goes on to the
//! guide's chapter on rotation (`secretos.md`): a new link secret kills the old link and the buyer signs in for
//! fresh ones; a new receipt key publishes only itself until the old one is named in
//! `GATE_RECEIPT_KEYS_ANTERIORES`. The PostgreSQL test makes the role and the database with
//! the guide's own commands, on the first server and again on the "new" one it restores to.
//!
//! Also what an older gate does with a newer sales record (`actualizar.md`, *Records across versions*):
//! a journal line of an unknown kind is skipped and kept; a database migrated past the gate's
//! newest migration stops the gate at start.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use clap::Parser;
use common::built;
use common::gate::{BUILT_BASE_URL, DEV_KEY, client, now, signer};
use common::operar::block;
use gate::app::{Gate, Services};
use gate::sales::Sales;
use gate::sales::postgres::Shared;
use gate::settings::{Args, Env, Settings};
use gate::x402::header::decode_json;
use gate::x402::receipt::{self, PublicKey};
use gate::x402::siwx;
use gate_http::{Running, spawn};
use serde_json::Value;

const STUDY: &str = "banca-2026";
const VIEW: &str = "resumen";
const PASSPHRASE: &str = "frase de prueba del respaldo de secretos";
/// The password the guide's `base-nueva` gives the role `gate`.
const DB_PASSWORD: &str = "clave-de-la-base-de-prueba";

/// The folders the guide's variables name, inside one temporary folder.
struct Machine {
    _root: tempfile::TempDir,
    data: PathBuf,
    secrets: PathBuf,
    backups: PathBuf,
    /// The port of the PostgreSQL server `psql` reaches as its superuser (`PGHOST`, `PGPORT`,
    /// `PGUSER`, as the guide says for a managed database).
    postgres: Option<u16>,
}

impl Machine {
    fn new() -> Machine {
        let root = tempfile::tempdir().expect("temp");
        let (data, secrets, backups) =
            (root.path().join("datos"), root.path().join("secretos"), root.path().join("respaldos"));
        Machine { _root: root, data, secrets, backups, postgres: None }
    }

    fn env_file(&self) -> PathBuf {
        self.secrets.join("gate.env")
    }

    /// Runs the guide's block `name` with bash (`errexit`, `pipefail`) from the repository's
    /// root, the guide's variables and PostgreSQL's client programs on the PATH; its stdout.
    fn run(&self, name: &str) -> String {
        let script = block(name);
        let pg_bin = tests::postgres::bin_dir().map(|d| d.display().to_string()).unwrap_or_default();
        let path = format!("{pg_bin}:{}", std::env::var("PATH").unwrap_or_default());
        let mut command = Command::new("bash");
        if let Some(port) = self.postgres {
            command.env("PGHOST", "127.0.0.1").env("PGPORT", port.to_string()).env("PGUSER", tests::postgres::USER);
            command.env("CLAVE_BASE", DB_PASSWORD).env("PGDATABASE", "postgres");
        }
        let output = command
            .args(["-e", "-o", "pipefail", "-c", &script])
            .env("DATOS", &self.data)
            .env("SECRETOS", &self.secrets)
            .env("RESPALDOS", &self.backups)
            .env("CLAVE_RESPALDO", PASSPHRASE)
            .env("PATH", path)
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "the guide's block {name} failed ({}):\n{script}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The environment file as systemd's `EnvironmentFile=` reads it: `NAME=value` lines,
    /// comments and blank lines skipped, no command run.
    fn environment(&self) -> Env {
        let text = std::fs::read_to_string(self.env_file()).expect("gate.env");
        let value = |name: &str| {
            text.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .map(|v| v.trim().trim_matches(['"', '\'']).to_owned())
                .filter(|v| !v.is_empty())
        };
        Env {
            link_secret: value(gate::links::SECRET_ENV),
            receipt_key: value(receipt::KEY_ENV),
            receipt_keys_previous: value(receipt::PREVIOUS_KEYS_ENV),
            sales: value(gate::sales::postgres::URL_ENV),
            ..Env::default()
        }
    }

    /// A gate over the built `dist/`, started from its settings as `gate --dist … --data
    /// $DATOS` starts with the environment file loaded. `segment_bytes` replaces
    /// `--diario-max-mb` (a byte rotates the journal at every step).
    fn start_gate(&self, env: Env, segment_bytes: Option<u64>) -> Running {
        let dist = built().display().to_string();
        let data = self.data.display().to_string();
        let args = Args::try_parse_from(["gate", "--dist", &dist, "--datos", &data]).expect("the gate's flags");
        let manifest = gate::manifest::load(built()).expect("manifest");
        let settings = Settings::from_args(args, env, &manifest).expect("settings");
        std::fs::create_dir_all(&settings.data).expect("data folder");
        let (facilitator, chains) = settings.build_payment().expect("local facilitator");
        let sales = match &settings.sales {
            Some(url) => Sales::open_shared(Shared::connect(url).expect("database")).expect("shared record"),
            None => Sales::open(
                &settings.data.join(gate::settings::PURCHASES_FILE),
                segment_bytes.unwrap_or(settings.journal_segment_bytes),
            )
            .expect("journal"),
        };
        let services = Services {
            facilitator,
            links: settings.links().expect("link secret"),
            sales: Arc::new(sales),
            limiter: Arc::new(gate::payment::limits::Limiter::new(settings.refusal_limits)),
            receipts: settings.receipt_key.clone(),
            clock: gate::clock::Clock::system(),
            chains,
        };
        let gate = Gate::load_with(&settings.dist, services).expect("gate loads dist/");
        spawn(Arc::new(gate), 2).expect("gate starts")
    }
}

/// What the buyer kept from the purchase: the signed link to the ZIP, its sha256, the receipt.
struct Bought {
    zip_url: String,
    zip_sha256: String,
    receipt: Value,
}

async fn buy(gate: &Running) -> Bought {
    let url = format!("{}/estudio/{STUDY}?vista={VIEW}", gate.url());
    let purchase = gate::buyer::buy(&client(), &url, &signer(DEV_KEY), now()).await.expect("purchase");
    assert_eq!(purchase.status, 200, "{}", purchase.body);
    let zip = &purchase.body["acceso"]["descargas"]["zip"];
    Bought {
        zip_url: zip["url"].as_str().expect("zip url").to_owned(),
        zip_sha256: zip["sha256"].as_str().expect("sha256").to_owned(),
        receipt: receipt::find(&purchase.body).expect("a signed receipt").clone(),
    }
}

/// The buyer signs the gate's fresh `sign-in-with-x` challenge with the same wallet; the
/// status and body of the answer.
async fn sign_in(gate: &Running) -> (u16, Value) {
    let url = format!("{}/estudio/{STUDY}?vista={VIEW}", gate.url());
    let first = client().get(&url).send().await.expect("402");
    assert_eq!(first.status(), 402);
    let required: Value =
        decode_json(first.headers()["payment-required"].to_str().expect("ascii")).expect("PAYMENT-REQUIRED");
    let proof = siwx::sign(&required["extensions"][siwx::SIGN_IN_WITH_X], None, &signer(DEV_KEY)).expect("signed");
    let again = client().get(&url).header(siwx::HEADER, siwx::encode_header(&proof)).send().await.expect("sign-in");
    let status = again.status().as_u16();
    (status, again.json().await.expect("JSON"))
}

/// Downloads a link the gate issued (built for port 8080) from `gate`: status and sha256.
async fn download(gate: &Running, issued: &str) -> (u16, String) {
    let url = issued.replacen(BUILT_BASE_URL, &gate.url(), 1);
    let response = client().get(url).send().await.expect("download");
    let status = response.status().as_u16();
    (status, common::sha256_hex(&response.bytes().await.expect("bytes")))
}

/// The receipt key the gate publishes in its DID document.
async fn published_key(gate: &Running) -> PublicKey {
    let url = format!("{}{}", gate.url(), receipt::DID_DOCUMENT_PATH);
    let document: Value = client().get(url).send().await.expect("did.json").json().await.expect("JSON");
    let multibase = document["verificationMethod"][0]["publicKeyMultibase"].as_str().expect("multibase");
    PublicKey::parse(multibase).expect("key")
}

/// After the restore: the past buyer signs in and gets the study with fresh links, the old
/// link still downloads the same bytes, the old receipt verifies against the published key.
async fn past_buyer_comes_back(gate: &Running, bought: &Bought) {
    let (status, body) = sign_in(gate).await;
    assert_eq!(status, 200, "the restored record knows the buyer: {body}");
    assert!(body["reacceso"].is_object(), "a re-access, not a sale: {body}");
    let fresh = body["acceso"]["descargas"]["zip"]["url"].as_str().expect("fresh link");
    assert_eq!(download(gate, fresh).await, (200, bought.zip_sha256.clone()));
    assert_eq!(download(gate, &bought.zip_url).await, (200, bought.zip_sha256.clone()), "the old link lives");
    let key = published_key(gate).await;
    receipt::verify(&bought.receipt, Some(&key)).expect("the old receipt verifies against the restored key");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_and_secrets_restored_from_backup_serve_a_past_buyer() {
    let machine = Machine::new();
    machine.run("secretos-nuevos");
    let secrets = std::fs::read_to_string(machine.env_file()).expect("gate.env");
    assert!(secrets.lines().filter(|l| !l.starts_with('#')).all(|l| !l.contains("$(")), "literal values: {secrets}");
    let env = machine.environment();
    assert_eq!(env.link_secret.as_deref().map(str::len), Some(64));
    assert_eq!(env.receipt_key.as_deref().map(str::len), Some(64));
    // Run again, it never replaces the secrets issued links and receipts depend on.
    machine.run("secretos-nuevos");
    assert_eq!(std::fs::read_to_string(machine.env_file()).expect("gate.env"), secrets);

    let gate = machine.start_gate(machine.environment(), Some(1));
    let bought = buy(&gate).await;
    drop(gate);
    let journal = machine.data.join(gate::sales::journal::JOURNAL_FILE);
    let segments = gate::sales::journal::segments(&journal).expect("segments");
    assert!(segments.len() >= 3, "each step rotated the journal: {segments:?}");
    assert_eq!(std::fs::metadata(&journal).expect("active file").len(), 0, "the sale is in the segments only");

    machine.run("respaldo-datos");
    machine.run("respaldo-secretos");
    let listed = machine.run("listar-respaldos");
    assert!(listed.contains("datos-") && listed.contains("secretos-"), "{listed}");
    let sealed = std::fs::read_dir(&machine.backups).expect("backups").flatten().map(|e| e.path());
    for file in sealed.filter(|p| p.to_string_lossy().contains("secretos-")) {
        let bytes = std::fs::read(&file).expect("secrets backup");
        let secret = env.link_secret.as_deref().expect("secret");
        assert!(!String::from_utf8_lossy(&bytes).contains(secret), "the secrets' backup is encrypted");
    }

    // The machine is lost: data folder and secrets.
    std::fs::remove_dir_all(&machine.data).expect("wipe data");
    std::fs::remove_dir_all(&machine.secrets).expect("wipe secrets");
    {
        // A gate on the empty state does not know the buyer (so the restore is what counts).
        let other = gate::settings::Env {
            link_secret: Some("otra-clave-de-enlaces-de-32-caracteres-o-mas".into()),
            ..Env::default()
        };
        let blank = machine.start_gate(other, None);
        assert_eq!(sign_in(&blank).await.0, 402, "no sale in an empty journal");
        assert_eq!(download(&blank, &bought.zip_url).await.0, 403, "another link secret refuses the old link");
        drop(blank);
        std::fs::remove_dir_all(&machine.data).expect("wipe again");
    }

    machine.run("restaurar-secretos");
    machine.run("restaurar-datos");
    assert_eq!(std::fs::read_to_string(machine.env_file()).expect("restored gate.env"), secrets);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(machine.env_file()).expect("mode").permissions());
    assert_eq!(mode & 0o777, 0o600, "the restored secrets are the owner's only");
    let restored = gate::sales::journal::segments(&journal).expect("segments");
    assert_eq!(restored.len(), segments.len(), "every rotated segment is back");

    let gate = machine.start_gate(machine.environment(), None);
    past_buyer_comes_back(&gate, &bought).await;
    drop(gate);

    // Rotating the link secret (the guide's section on rotation): the links issued before die,
    // and the past buyer signs in for fresh ones.
    let mut rotated = machine.environment();
    rotated.link_secret = Some("una-clave-de-enlaces-nueva-de-32-caracteres-o-mas".into());
    let gate = machine.start_gate(rotated, None);
    assert_eq!(download(&gate, &bought.zip_url).await.0, 403, "links signed with the old secret");
    let (status, body) = sign_in(&gate).await;
    assert_eq!(status, 200, "{body}");
    let fresh = body["acceso"]["descargas"]["zip"]["url"].as_str().expect("fresh link");
    assert_eq!(download(&gate, fresh).await, (200, bought.zip_sha256.clone()));
    drop(gate);

    // Rotating the receipt key: the old receipt still verifies by its own signature, but the
    // service publishes only the new key, until the old one is named as a previous key.
    let old_key = receipt::verify(&bought.receipt, None).expect("receipt").signer;
    let mut rotated = machine.environment();
    rotated.receipt_key = Some("ab".repeat(32));
    let gate = machine.start_gate(rotated.clone(), None);
    let published = published_keys(&gate).await;
    assert_eq!(published.len(), 1);
    assert_ne!(published[0], old_key, "a new key");
    drop(gate);
    rotated.receipt_keys_previous = Some(old_key.did_key());
    let gate = machine.start_gate(rotated, None);
    let published = published_keys(&gate).await;
    assert_eq!(published.len(), 2, "the new key, then the previous one");
    assert_eq!(published[1], old_key);
    receipt::verify(&bought.receipt, Some(&published[1])).expect("the old receipt, under a key the service publishes");
}

/// Every receipt key the gate publishes in its DID document (the current one first), checking
/// each verification method is also an assertion method.
async fn published_keys(gate: &Running) -> Vec<PublicKey> {
    let url = format!("{}{}", gate.url(), receipt::DID_DOCUMENT_PATH);
    let document: Value = client().get(url).send().await.expect("did.json").json().await.expect("JSON");
    let methods = document["verificationMethod"].as_array().expect("methods");
    assert_eq!(&document["assertionMethod"], &Value::Array(methods.iter().map(|m| m["id"].clone()).collect()));
    methods
        .iter()
        .map(|m| PublicKey::parse(m["publicKeyMultibase"].as_str().expect("multibase")).expect("key"))
        .collect()
}

#[test]
fn the_guide_s_folders_are_the_systemd_unit_s() {
    let variables = block("variables");
    let unit = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/systemd/estudios-ia-gate.service"),
    )
    .expect("unit");
    let value = |name: &str| {
        variables
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .map(|v| v.split_whitespace().next().unwrap_or_default().to_owned())
    };
    let data = value("DATOS").expect("DATOS");
    assert!(unit.contains(&format!("--datos {data} ")), "the unit's --datos is {data}");
    assert!(unit.contains(&format!("StateDirectory={}", data.trim_start_matches("/var/lib/"))));
    let secrets = value("SECRETOS").expect("SECRETOS");
    assert!(unit.contains(&format!("EnvironmentFile={secrets}/gate.env")), "the unit reads {secrets}/gate.env");
    assert!(value("RESPALDOS").is_some_and(|r| !r.starts_with(&data) && !r.starts_with(&secrets)), "backups elsewhere");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_and_secrets_restored_from_backup_serve_a_past_buyer() {
    let db = tests::postgres::Postgres::start().expect("PostgreSQL starts");
    let mut machine = Machine::new();
    machine.postgres = Some(db.port());
    machine.run("base-nueva");
    machine.run("secretos-nuevos");
    // The shared record's URL goes into the same file (as gate.env.example shows), the role's.
    let url = format!("postgres://gate:{DB_PASSWORD}@127.0.0.1:{}/estudios", db.port());
    let mut file = std::fs::OpenOptions::new().append(true).open(machine.env_file()).expect("gate.env");
    std::io::Write::write_all(&mut file, format!("GATE_VENTAS={url}\n").as_bytes()).expect("append");
    drop(file);
    let secrets = std::fs::read_to_string(machine.env_file()).expect("gate.env");

    let gate = machine.start_gate(machine.environment(), None);
    let bought = buy(&gate).await;
    drop(gate);
    assert_eq!(sql(&db, "estudios", "SELECT count(*) FROM compras WHERE estado = 'pagada'"), "1");
    assert_eq!(sql(&db, "estudios", "SELECT tableowner FROM pg_tables WHERE tablename = 'eventos'"), "gate");
    assert!(!machine.data.join(gate::sales::journal::JOURNAL_FILE).exists(), "with the database, --data holds no sale");

    machine.run("respaldo-base");
    machine.run("respaldo-secretos");
    let listed = machine.run("listar-respaldos");
    assert!(listed.contains("ventas-") && listed.contains(".dump"), "{listed}");

    // The database server is lost: a new one has neither the role nor the database. The
    // secrets are lost with the machine.
    lose_database(&db);
    std::fs::remove_dir_all(&machine.secrets).expect("wipe secrets");
    machine.run("base-nueva");
    {
        let empty = Env {
            link_secret: Some("otra-clave-de-enlaces-de-32-caracteres-o-mas".into()),
            sales: Some(url.clone()),
            ..Env::default()
        };
        let blank = machine.start_gate(empty, None);
        assert_eq!(sign_in(&blank).await.0, 402, "no sale in an empty database");
        drop(blank);
        lose_database(&db);
        machine.run("base-nueva");
    }

    machine.run("restaurar-secretos");
    machine.run("restaurar-base");
    assert_eq!(std::fs::read_to_string(machine.env_file()).expect("restored gate.env"), secrets);
    assert_eq!(sql(&db, "estudios", "SELECT count(*) FROM compras WHERE estado = 'pagada'"), "1");
    assert_eq!(sql(&db, "estudios", "SELECT tableowner FROM pg_tables WHERE tablename = 'eventos'"), "gate");

    let gate = machine.start_gate(machine.environment(), None);
    past_buyer_comes_back(&gate, &bought).await;
    let events = sql(&db, "estudios", "SELECT count(*) FROM eventos WHERE registro->>'evento' = 'reacceso'");
    assert_eq!(events, "1", "the re-access is recorded in the restored database");
}

/// Runs SQL on `database` as the superuser; its unaligned, tuples-only output.
fn sql(db: &tests::postgres::Postgres, database: &str, sql: &str) -> String {
    let psql = tests::postgres::bin_dir().expect("PostgreSQL").join("psql");
    let output = Command::new(&psql)
        .args(["-h", "127.0.0.1", "-p", &db.port().to_string(), "-U", tests::postgres::USER, "-d", database])
        .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .expect("psql");
    assert!(output.status.success(), "{sql}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// The database and its role gone, as on a new server.
fn lose_database(db: &tests::postgres::Postgres) {
    sql(db, "postgres", "DROP DATABASE estudios WITH (FORCE)");
    sql(db, "postgres", "DROP ROLE gate");
}

#[test]
fn an_older_gate_skips_and_keeps_a_journal_line_it_does_not_know() {
    let dir = tempfile::tempdir().expect("dir");
    let journal = dir.path().join(gate::sales::journal::JOURNAL_FILE);
    let sale = [
        r#"{"fecha":"2026-11-01T10:00:00Z","unix":1793527200,"compra":"eip155:84532|0xabc|0x01","evento":"aceptado","estudio":"banca-2026","vista":"resumen","red":"eip155:84532","pagador":"0xabc","nonce":"0x01","monto":"10000","activo":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","pagar_a":"0xdef","valido_hasta":1893456000,"huella":"h"}"#,
        // A kind of step a newer gate writes and this one does not know.
        r#"{"fecha":"2026-11-01T10:00:01Z","unix":1793527201,"compra":"eip155:84532|0xabc|0x01","evento":"paso_de_un_gate_nuevo","dato":1}"#,
    ];
    let text = format!("{}\n{}\n", sale[0], sale[1]);
    std::fs::write(&journal, &text).expect("write");
    let contents = gate::sales::journal::read(&journal).expect("read");
    assert_eq!(contents.warnings.len(), 1, "{:?}", contents.warnings);
    assert!(contents.warnings[0].contains("línea 2 ilegible, se omite"), "{:?}", contents.warnings);
    let sales = Sales::open(&journal, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("the gate starts");
    drop(sales);
    assert!(
        std::fs::read_to_string(&journal).expect("journal").starts_with(&text),
        "the line it does not know stays in the file, for the newer gate"
    );
}

#[test]
fn an_older_gate_refuses_a_database_migrated_past_it() {
    let db = tests::postgres::Postgres::start().expect("PostgreSQL starts");
    drop(Shared::connect(&db.url()).expect("migrates"));
    db.psql("INSERT INTO schema_migrations (version, nombre) VALUES (99, 'de_un_gate_nuevo')").expect("psql");
    let refused = Shared::connect(&db.url()).err().expect("an older gate stops at start");
    let said = format!("{refused:#}");
    assert!(said.contains("la base tiene la migración 99, más nueva que este gate: actualice el gate"), "{said}");
    assert_eq!(db.psql("SELECT count(*) FROM schema_migrations WHERE version = 99").expect("psql"), "1", "untouched");
}
