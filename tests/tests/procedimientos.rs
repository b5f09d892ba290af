//! The book's operating procedures run as an operator runs them, in order, from an empty root
//! folder: install (`docs/src/operar/instalar.md`), going live on a fresh data folder
//! (`mainnet.md`), an upgrade and a rollback (`actualizar.md`). Each step is the chapters' own
//! shell blocks (`<!-- probado: NAME -->`), read from the pages and run by bash with the real
//! `gate` and `generator` binaries cargo builds, and each step's outcome is checked: the gate
//! answers `/listo`, `gate verificar` refuses the sample and passes the publisher's content on
//! the fresh data folder, the first sale is the only one `gate ventas` lists, the upgrade serves
//! the new `dist/` and keeps the links issued before it, the rollback serves the old release.
//!
//! It exists because procedures that nobody runs drift: the guide once started the service
//! before its secrets existed, built a `dist/` it never deployed, and nested `dist/dist` on a
//! second copy.
//!
//! **The substitution rule** (the only change made to a block or to the unit file the blocks
//! install, never an edit by hand): every path under [`PREFIXES`] gets the temporary root in
//! front, `127.0.0.1:8080` becomes a free loopback port, and `ROOT/usr/local/bin` leads the
//! `PATH`. The blocks run from a copy of the checkout whose `target/release/` holds the debug
//! binaries and whose `content/` is the sample (`tests/muestra`). What cannot run here (no
//! systemd as PID 1, no money) is marked `no se prueba` in the book, and this test does its
//! equivalent: `systemd-analyze verify` on the installed unit, then the unit's `ExecStart`
//! started with its `EnvironmentFile` read as systemd reads it; on mainnet, Coinbase's
//! facilitator is the CDP stand-in ([`tests::cdp_stub`], which checks each JWT and the payment's
//! EIP-712 signature under Base's USDC domain) and the buyer a test wallet.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::gate::{DEV_KEY, client, now, signer};
use common::operar::block;
use gate::facilitator::cdp::CdpKey;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate_http::spawn;
use serde_json::Value;
use tests::cdp_stub::{CdpStub, PREFIX, new_ed25519_key};

/// The absolute paths of the book that live under the test's root.
const PREFIXES: [&str; 6] = [
    "/srv/estudios-ia",
    "/etc/estudios-ia",
    "/var/lib/estudios-ia",
    "/var/backups/estudios-ia",
    "/etc/systemd/system",
    "/usr/local/bin",
];
/// The gate's address in the book and the unit.
const SERVED: &str = "127.0.0.1:8080";
const UNIT: &str = "estudios-ia-gate.service";
const STUDY: &str = "banca-2026";
const KEY_ID: &str = "organizations/procedimientos/apiKeys/salir";
/// What the publisher's edit before the upgrade adds to a study's name.
const NEW_NAME: &str = " (edición 2)";
const PUBLIC_URL: &str = "https://estudios.example.com";
const SAMPLE_PAYEE: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/// The debug binary `name` of this workspace (built by cargo for the tests; built here if a
/// narrow `cargo test` left it out).
fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let debug = exe.parent().and_then(Path::parent).expect("target/debug").to_path_buf();
    let path = debug.join(name);
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = Command::new(cargo)
            .args(["build", "--locked", "-p", "gate", "-p", "generator", "-p", "tests"])
            .args(["--bin", "gate", "--bin", "generator"])
            .current_dir(repository())
            .status()
            .expect("cargo");
        assert!(status.success(), "cargo build of gate and generator");
    }
    path
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// One machine: the root the book's paths live under, the operator's checkout, the service.
struct Machine {
    _base: tempfile::TempDir,
    root: PathBuf,
    checkout: PathBuf,
    port: u16,
    gate: Option<Child>,
}

impl Machine {
    fn new() -> Machine {
        let tmp = env!("CARGO_TARGET_TMPDIR");
        std::fs::create_dir_all(tmp).expect("temp dir");
        let base = tempfile::tempdir_in(tmp).expect("temp dir");
        let root = base.path().join("raiz");
        // Empty, but for the folders every Debian system has.
        for dir in ["usr/local/bin", "etc/systemd/system", "var/lib", "var/backups", "srv"] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        let checkout = base.path().join("checkout");
        std::fs::create_dir_all(checkout.join("target/release")).expect("mkdir");
        for name in ["gate", "generator"] {
            std::os::unix::fs::symlink(binary(name), checkout.join("target/release").join(name)).expect("symlink");
        }
        std::os::unix::fs::symlink(repository().join("deploy"), checkout.join("deploy")).expect("symlink");
        common::copy_tree(&common::sample_dir(), &checkout.join("content"));
        Machine { _base: base, root, checkout, port: free_port(), gate: None }
    }

    /// The substitution rule, on a block or the installed unit.
    fn substitute(&self, text: &str) -> String {
        let mut out = text.replace(SERVED, &format!("127.0.0.1:{}", self.port));
        for (i, prefix) in PREFIXES.iter().enumerate() {
            out = out.replace(prefix, &format!("\u{0}{i}\u{0}"));
        }
        for (i, prefix) in PREFIXES.iter().enumerate() {
            out = out.replace(&format!("\u{0}{i}\u{0}"), &format!("{}{prefix}", self.root.display()));
        }
        out
    }

    /// A path of the book, under the root.
    fn path(&self, book_path: &str) -> PathBuf {
        PathBuf::from(self.substitute(book_path))
    }

    /// The blocks `names`, one after the other in one bash session (as an operator pastes them
    /// into one shell), with `env` set beforehand.
    fn session(&self, names: &[&str], env: &[(&str, &Path)]) -> Output {
        let script: String = names.iter().map(|name| self.substitute(&block(name))).collect();
        let path = format!("{}:{}", self.path("/usr/local/bin").display(), std::env::var("PATH").unwrap_or_default());
        let mut command = Command::new("bash");
        command.args(["-e", "-o", "pipefail", "-c", &script]).env("PATH", path).current_dir(&self.checkout);
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("bash runs")
    }

    /// [`Machine::session`], which must succeed; its stdout.
    fn run(&self, names: &[&str], env: &[(&str, &Path)]) -> String {
        let output = self.session(names, env);
        assert!(
            output.status.success(),
            "the blocks {names:?} failed ({}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn unit(&self) -> PathBuf {
        self.path("/etc/systemd/system").join(UNIT)
    }

    /// The unit the blocks installed, with the substitution rule applied, verified by systemd.
    fn verify_unit(&self) {
        let text = std::fs::read_to_string(self.unit()).expect("the installed unit");
        std::fs::write(self.unit(), self.substitute(&text)).expect("write the unit");
        let verified =
            Command::new("systemd-analyze").arg("verify").arg(self.unit()).output().expect("systemd-analyze");
        let said =
            format!("{}{}", String::from_utf8_lossy(&verified.stdout), String::from_utf8_lossy(&verified.stderr));
        assert!(verified.status.success(), "systemd-analyze verify:\n{said}");
        assert!(!said.lines().any(|l| l.contains(UNIT)), "systemd-analyze warns about the unit:\n{said}");
    }

    /// The unit's `EnvironmentFile` as systemd reads it: `NAME=value` lines, comments skipped,
    /// one pair of enclosing quotes removed, no command run.
    fn environment(&self) -> Vec<(String, String)> {
        let unit = std::fs::read_to_string(self.unit()).expect("unit");
        let file = unit.lines().find_map(|l| l.strip_prefix("EnvironmentFile=")).expect("EnvironmentFile=");
        let text = std::fs::read_to_string(file).expect("the environment file");
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))
            .filter_map(|l| l.split_once('='))
            .map(|(name, value)| {
                let value = value.trim();
                let unquoted = ['\'', '"']
                    .iter()
                    .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
                    .unwrap_or(value);
                (name.trim().to_owned(), unquoted.to_owned())
            })
            .collect()
    }

    /// `systemctl start`: the unit's `ExecStart` with its environment, until it accepts connections.
    fn start(&mut self) {
        let unit = std::fs::read_to_string(self.unit()).expect("unit");
        let words: Vec<&str> =
            unit.lines().find_map(|l| l.strip_prefix("ExecStart=")).expect("ExecStart=").split_whitespace().collect();
        let log = std::fs::File::create(self.root.join("gate.log")).expect("log");
        let child = Command::new(words[0])
            .args(&words[1..])
            .env_clear()
            .envs(self.environment())
            .env("PATH", "/usr/bin:/bin")
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("the unit's ExecStart");
        self.gate = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self.gate.as_mut().and_then(|c| c.try_wait().expect("wait")) {
                panic!("the gate stopped ({status}):\n{}", self.log());
            }
            assert!(Instant::now() < deadline, "the gate did not listen:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `systemctl stop`: SIGTERM, as the unit's `KillSignal=`.
    fn stop(&mut self) {
        if let Some(mut child) = self.gate.take() {
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
            let deadline = Instant::now() + Duration::from_secs(20);
            while child.try_wait().expect("wait").is_none() {
                if Instant::now() > deadline {
                    let _ = child.kill();
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.root.join("gate.log")).unwrap_or_default()
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The book's `listo` block: `/listo` answers 200 with `"listo":true`.
    fn ready(&self) {
        let answer = self.run(&["listo"], &[]);
        assert!(answer.contains("\"listo\":true"), "{answer}");
    }

    /// The release a link of the book points to, as `versiones/<time>`.
    fn release(&self, link: &str) -> String {
        let target = std::fs::canonicalize(self.path(link)).expect("the link resolves");
        let versions = std::fs::canonicalize(self.path("/srv/estudios-ia/versiones")).expect("versiones");
        let relative = target.strip_prefix(&versions).expect("inside versiones");
        relative.components().next().expect("a release").as_os_str().to_string_lossy().into_owned()
    }

    /// Waits for the next UTC second, so the next release gets a folder name of its own.
    fn next_second(&self) {
        std::thread::sleep(Duration::from_millis(1100));
    }

    /// Edits a file of the checkout's content.
    fn edit(&self, file: &str, edit: impl FnOnce(String) -> String) {
        let path = self.checkout.join("content").join(file);
        let text = std::fs::read_to_string(&path).expect("content file");
        let edited = edit(text.clone());
        assert_ne!(edited, text, "{file} edited");
        std::fs::write(&path, edited).expect("write");
    }

    fn append_env(&self, lines: &str) {
        let path = self.path("/etc/estudios-ia/gate.env");
        let mut text = std::fs::read_to_string(&path).expect("gate.env");
        text.push_str(lines);
        std::fs::write(&path, text).expect("gate.env");
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        if let Some(mut child) = self.gate.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

async fn get(url: &str) -> (u16, String) {
    let response = client().get(url).send().await.expect("GET");
    (response.status().as_u16(), response.text().await.expect("body"))
}

/// The publisher's edits before going live (`mainnet.md`, step 2): mainnet, the public https
/// address, their own payee, their own studies (the sample's notes say they are synthetic).
fn make_it_the_publishers(machine: &Machine) {
    let payee = alloy_primitives::Address::from([0x5a; 20]).to_checksum(None);
    machine.edit("servicio.toml", |text| {
        text.replace("modo = \"local\"", "modo = \"mainnet\"")
            .replace("base_url = \"http://127.0.0.1:8080\"", &format!("base_url = \"{PUBLIC_URL}\""))
            .replace(SAMPLE_PAYEE, &payee)
    });
    let studies = machine.checkout.join("content/estudios");
    for study in std::fs::read_dir(&studies).expect("estudios").flatten() {
        let name = study.file_name().to_string_lossy().into_owned();
        machine.edit(&format!("estudios/{name}/estudio.toml"), |text| {
            text.lines()
                .map(|l| {
                    if l.starts_with("nota = ") {
                        "nota = \"Respuestas recogidas por el editor en abril de 2026.\"".to_owned()
                    } else {
                        l.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
                + "\n"
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_go_live_upgrade_and_rollback_run_as_the_book_says() {
    let started = Instant::now();
    let mut machine = Machine::new();
    let served = machine.path("/srv/estudios-ia/actual");

    // Install: a release, the switch, the unit's links and the unit, the secrets; then start.
    machine.run(&["variables", "desplegar", "activar", "instalar-unidad", "secretos-nuevos"], &[]);
    let first = machine.release("/srv/estudios-ia/dist");
    assert_eq!(machine.release("/usr/local/bin/gate"), first, "the unit's binary and dist/ are one release");
    assert!(!machine.path("/srv/estudios-ia/anterior").exists(), "no release before the first");
    machine.verify_unit();
    machine.start();
    machine.ready();
    // A trial sale in local mode, as `./tienda servir` or a trial leaves in the data folder.
    let trial = format!("{}?vista=resumen", machine.url(&format!("/estudio/{STUDY}")));
    let bought = gate::buyer::buy(&client(), &trial, &signer(DEV_KEY), now()).await.expect("trial purchase");
    assert_eq!(bought.status, 200, "{}", bought.body);

    // The sample is refused for mainnet, as the book says right after install.
    let refused = machine.session(&["verificar-version"], &[("destino", &served)]);
    let said = String::from_utf8_lossy(&refused.stdout);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(said.lines().any(|l| l.starts_with("FALLA modo")), "{said}");

    // Going live: the gate stopped, the trial's data set aside, the publisher's content and
    // CDP key, a release checked on the fresh folder, the switch, the start, a first sale.
    machine.stop();
    machine.run(&["datos-nuevos"], &[]);
    let data = machine.path("/var/lib/estudios-ia");
    assert!(!data.exists(), "a fresh data folder");
    let set_aside: Vec<PathBuf> = std::fs::read_dir(machine.root.join("var/lib"))
        .expect("var/lib")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("estudios-ia.ensayo-")))
        .collect();
    assert_eq!(set_aside.len(), 1, "{set_aside:?}");
    assert!(set_aside[0].join("ventas.jsonl").exists(), "the trial's journal is kept aside");
    make_it_the_publishers(&machine);
    let secret = new_ed25519_key();
    let key = CdpKey::parse(KEY_ID, &secret).expect("CDP key");
    let stub = Arc::new(CdpStub::new(&key, LocalFacilitator::new(LocalConfig::default())));
    let stub_server = spawn(Arc::clone(&stub), 1).expect("CDP stand-in");
    machine.append_env(&format!(
        "CDP_API_KEY_ID={KEY_ID}\nCDP_API_KEY_SECRET='{secret}'\nGATE_FACILITATOR_URL={}{PREFIX}\n",
        stub_server.url()
    ));
    machine.next_second();
    let checked = machine.run(&["desplegar", "verificar-version", "activar"], &[]);
    assert!(checked.contains("ninguna falla"), "{checked}");
    assert!(checked.contains("diario de ventas: 0 ventas"), "verificar read the fresh folder:\n{checked}");
    let live = machine.release("/srv/estudios-ia/dist");
    assert_ne!(live, first);
    assert_eq!(machine.release("/srv/estudios-ia/anterior"), first);
    // The same check on the trial's folder warns: the fresh folder is what keeps it quiet.
    let on_trial = Command::new(machine.path("/usr/local/bin/gate"))
        .args(["verificar", "--modo", "mainnet", "--dist"])
        .arg(served.join("dist"))
        .arg("--datos")
        .arg(&set_aside[0])
        .args(["--escuchar", &format!("127.0.0.1:{}", machine.port), "--proxies", "127.0.0.1"])
        .env_clear()
        .envs(machine.environment())
        .output()
        .expect("gate verificar");
    let warned = String::from_utf8_lossy(&on_trial.stdout);
    assert!(
        warned.lines().any(|l| l.starts_with("AVISO diario de ventas:") && l.contains("1 del modo local")),
        "{warned}"
    );
    machine.start();
    machine.ready();
    let study = format!("{}?vista=resumen", machine.url(&format!("/estudio/{STUDY}")));
    let sale = gate::buyer::buy(&client(), &study, &signer(DEV_KEY), now()).await.expect("first sale");
    assert_eq!(sale.status, 200, "{}", sale.body);
    assert!(stub.accepted() > 0, "settled through the CDP stand-in, under its JWT");
    let zip = &sale.body["acceso"]["descargas"]["zip"];
    let (zip_url, zip_sha256) = (zip["url"].as_str().expect("url").to_owned(), zip["sha256"].clone());
    let listed = machine.run(&["ventas-primera"], &[]);
    assert!(listed.contains("eip155:8453"), "{listed}");
    assert!(!listed.contains("eip155:84532"), "the trial's sale is not among the real ones:\n{listed}");

    // Upgrade: a study renamed, backups, a release built on a copy of the served one, checked,
    // switched, the gate restarted.
    machine.edit(&format!("estudios/{STUDY}/estudio.toml"), |text| {
        text.replacen(
            "nombre = \"Bancos y billeteras virtuales en Argentina 2026\"",
            &format!("nombre = \"Bancos y billeteras virtuales en Argentina 2026{NEW_NAME}\""),
            1,
        )
    });
    machine.next_second();
    machine.run(&["variables", "respaldo-datos", "desplegar", "verificar-version", "activar"], &[]);
    let upgraded = machine.release("/srv/estudios-ia/dist");
    assert!(upgraded != live && upgraded != first);
    assert_eq!(machine.release("/srv/estudios-ia/anterior"), live);
    assert_eq!(machine.release("/usr/local/bin/gate"), upgraded);
    assert!(!served.join("dist/dist").exists(), "no dist/ nested in dist/");
    let backups: Vec<_> =
        std::fs::read_dir(machine.path("/var/backups/estudios-ia")).expect("backups").flatten().collect();
    assert_eq!(backups.len(), 1, "the journal's backup before the upgrade");
    machine.stop();
    machine.start();
    machine.ready();
    let sheet = machine.url(&format!("/estudio/{STUDY}/ficha"));
    let (status, body) = get(&sheet).await;
    assert_eq!(status, 200);
    assert!(body.contains(NEW_NAME), "the new dist/ is served: {body}");
    let old_link = zip_url.replacen(PUBLIC_URL, &machine.url(""), 1);
    let response = client().get(&old_link).send().await.expect("download");
    assert_eq!(response.status(), 200, "a link issued before the upgrade still opens");
    let bytes = response.bytes().await.expect("bytes");
    assert_eq!(Value::from(common::sha256_hex(&bytes)), zip_sha256);

    // Rollback: the release before, switched back, restarted.
    machine.run(&["volver-atras", "activar"], &[]);
    assert_eq!(machine.release("/srv/estudios-ia/dist"), live);
    assert_eq!(machine.release("/usr/local/bin/gate"), live);
    assert_eq!(machine.release("/srv/estudios-ia/anterior"), upgraded, "forward again is the same step");
    machine.stop();
    machine.start();
    machine.ready();
    let (status, body) = get(&sheet).await;
    assert_eq!(status, 200);
    assert!(!body.contains(NEW_NAME) && body.contains("Bancos y billeteras"), "the old dist/ is served: {body}");
    machine.stop();
    eprintln!("procedimientos: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn a_machine_installed_before_releases_moves_to_them() {
    let mut machine = Machine::new();
    // The layout before releases: dist/ a folder the unit serves, the binary a file.
    let old_dist = machine.path("/srv/estudios-ia/dist");
    common::build_into(&machine.checkout.join("content"), &old_dist);
    std::fs::copy(binary("gate"), machine.path("/usr/local/bin/gate")).expect("the old binary");
    let manifest = std::fs::read(old_dist.join("gate.json")).expect("gate.json");
    machine.run(&["migrar", "activar", "instalar-unidad", "variables", "secretos-nuevos"], &[]);
    let release = machine.release("/srv/estudios-ia/dist");
    assert_eq!(machine.release("/usr/local/bin/gate"), release);
    assert!(std::fs::symlink_metadata(&old_dist).expect("dist").file_type().is_symlink(), "dist/ is the link now");
    assert!(!old_dist.join("dist").exists(), "no link made inside the old folder");
    assert_eq!(std::fs::read(old_dist.join("gate.json")).expect("gate.json"), manifest, "the same build is served");
    machine.verify_unit();
    machine.start();
    machine.ready();
    machine.stop();
}
