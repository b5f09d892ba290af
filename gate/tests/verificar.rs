//! `gate verificar` as a process: a good mainnet configuration against the CDP stub passes
//! every check (exit 0); each broken case exits 1 with the `FALLA` line that names it.
//!
//! The stub is the `tests` crate's `cdp_stub.rs`, compiled here from the same file (this
//! crate cannot depend on `tests`, which depends on it).

#![allow(clippy::unwrap_used)]

#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/src/cdp_stub.rs"]
mod cdp_stub;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use cdp_stub::{CdpStub, PREFIX, new_ec_key, new_ed25519_key};
use gate::facilitator::cdp::CdpKey;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate_http::{Running, spawn};
use serde_json::Value;

const KEY_ID: &str = "organizations/prueba/apiKeys/verificar";
const LINK_SECRET: &str = "secreto-de-enlaces-de-prueba-0123456789abcdef";
/// The receipt key of these tests: 32 bytes in hex (a seed only they use).
const RECEIPT_KEY: &str = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";
const BASE_URL: &str = "https://estudios.example.com";
/// `content/servicio.toml`'s payee: Hardhat/Anvil's development account #1.
const DEV_PAYEE: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/// The `nota` of a publisher's own study.
const OWN_NOTE: &str = "nota = \"Respuestas recogidas por el editor entre el 2 y el 9 de abril de 2026.\"";
/// Where a gate behind a TLS proxy on the same machine serves, as verificar is told.
const SERVING: [&str; 4] = ["--listen", "127.0.0.1:8080", "--proxies", "127.0.0.1"];

/// A publisher's own payee (no development account), with its EIP-55 checksum.
fn payee() -> String {
    alloy_primitives::Address::from([0x5a; 20]).to_checksum(None)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// The sample content built for going live: mainnet mode, an https base_url (built once).
fn mainnet_dist() -> &'static Path {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, dist) = DIST.get_or_init(|| {
        // Under cargo's temp folder for tests: a static is never dropped, so the folder stays, and
        // `./tienda probar` empties it before each run (in the system's temp folder they piled up).
        let tmp = env!("CARGO_TARGET_TMPDIR");
        std::fs::create_dir_all(tmp).unwrap();
        let dir = tempfile::tempdir_in(tmp).unwrap();
        let content = dir.path().join("content");
        std::fs::create_dir_all(&content).unwrap();
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/muestra"), &content);
        let settings = content.join("servicio.toml");
        let text = std::fs::read_to_string(&settings)
            .unwrap()
            .replace("modo = \"local\"", "modo = \"mainnet\"")
            .replace("base_url = \"http://127.0.0.1:8080\"", &format!("base_url = \"{BASE_URL}\""));
        assert!(text.contains("modo = \"mainnet\"") && text.contains(BASE_URL));
        // The sample's payee is Hardhat/Anvil's development account #1 and its studies are
        // synthetic: a real publisher's own address and studies.
        let text = text.replace(DEV_PAYEE, &payee());
        assert!(text.contains(&payee()));
        std::fs::write(&settings, text).unwrap();
        for study in std::fs::read_dir(content.join("estudios")).unwrap() {
            let path = study.unwrap().path().join("estudio.toml");
            let text = std::fs::read_to_string(&path).unwrap();
            let own: Vec<String> = text
                .lines()
                .map(|l| if l.starts_with("nota = ") { OWN_NOTE.to_owned() } else { l.to_owned() })
                .collect();
            assert!(own.contains(&OWN_NOTE.to_owned()), "{}", path.display());
            std::fs::write(&path, own.join("\n") + "\n").unwrap();
        }
        let dist = dir.path().join("dist");
        let options =
            generator::build::BuildOptions { content, out: dist.clone(), quiet: true, discard_previous: false };
        generator::build::build(&options).unwrap_or_else(|e| panic!("build failed: {e}"));
        (dir, dist)
    });
    dist
}

/// A `dist/` whose files are the good build's (symlinked) and whose `gate.json` is edited.
fn edited_dist(dir: &Path, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let good = mainnet_dist();
    let dist = dir.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    for entry in std::fs::read_dir(good).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() != "gate.json" {
            std::os::unix::fs::symlink(&path, dist.join(path.file_name().unwrap())).unwrap();
        }
    }
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(good.join("gate.json")).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(dist.join("gate.json"), serde_json::to_vec(&manifest).unwrap()).unwrap();
    dist
}

/// Every `accepts` entry of every study view, over HTTP and MCP alike.
fn each_requirement(manifest: &mut Value, mut edit: impl FnMut(&mut Value)) {
    for study in manifest["estudios"].as_object_mut().unwrap().values_mut() {
        for view in study["vistas"].as_object_mut().unwrap().values_mut() {
            for binding in ["pago_requerido", "pago_requerido_mcp"] {
                for requirement in view[binding]["accepts"].as_array_mut().unwrap() {
                    edit(requirement);
                }
            }
        }
    }
}

struct Stub {
    server: Running,
    stub: Arc<CdpStub>,
    secret: String,
}

impl Stub {
    fn start(secret: String, networks: Option<Vec<String>>) -> Stub {
        let key = CdpKey::parse(KEY_ID, &secret).unwrap();
        let config = LocalConfig {
            networks: networks.unwrap_or_else(|| LocalConfig::default().networks),
            ..LocalConfig::default()
        };
        let stub = Arc::new(CdpStub::new(&key, LocalFacilitator::new(config)));
        let server = spawn(Arc::clone(&stub), 1).unwrap();
        Stub { server, stub, secret }
    }

    fn url(&self) -> String {
        format!("{}{PREFIX}", self.server.url())
    }

    /// The environment of a gate going live against this stub.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("GATE_FACILITATOR_URL", self.url()),
            ("CDP_API_KEY_ID", KEY_ID.to_owned()),
            ("CDP_API_KEY_SECRET", self.secret.clone()),
            ("GATE_LINK_SECRET", LINK_SECRET.to_owned()),
            ("GATE_RECEIPT_KEY", RECEIPT_KEY.to_owned()),
        ]
    }
}

/// Runs `gate verificar` as a gate behind a TLS proxy ([`SERVING`]) with only `env` in its
/// environment; returns (exit code, stdout).
fn verify(dist: &Path, extra_args: &[&str], env: &[(&str, String)]) -> (i32, String) {
    let data = tempfile::tempdir().unwrap();
    let args: Vec<&str> = SERVING.iter().copied().chain(extra_args.iter().copied()).collect();
    let result = verify_in(dist, data.path(), &args, env);
    assert!(std::fs::read_dir(data.path()).unwrap().next().is_none(), "verificar writes nothing into --data");
    result
}

/// `gate verificar` with exactly these arguments and `--data`.
fn verify_in(dist: &Path, data: &Path, extra_args: &[&str], env: &[(&str, String)]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(["verificar", "--dist", &dist.display().to_string(), "--data", &data.display().to_string()])
        .args(extra_args)
        .env_clear()
        .env("GATE_FACILITATOR_TIMEOUT", "5")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    (output.status.code().unwrap(), format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)))
}

fn with(env: &[(&'static str, String)], name: &'static str, value: Option<&str>) -> Vec<(&'static str, String)> {
    let mut env: Vec<_> = env.iter().filter(|(k, _)| *k != name).cloned().collect();
    if let Some(value) = value {
        env.push((name, value.to_owned()));
    }
    env
}

/// Exit 1, and a `FALLA` line starting with `what` that contains `says`.
fn assert_fails(result: (i32, String), what: &str, says: &str) {
    let (code, output) = result;
    assert_eq!(code, 1, "{output}");
    let prefix = format!("FALLA {what}");
    assert!(
        output.lines().any(|l| l.starts_with(&prefix) && l.contains(says)),
        "no line `{prefix}…{says}…` in:\n{output}"
    );
}

#[test]
fn a_good_mainnet_configuration_passes_every_check_with_either_key_kind() {
    for secret in [new_ec_key(), new_ed25519_key()] {
        let stub = Stub::start(secret, None);
        let (code, output) = verify(mainnet_dist(), &["--modo", "mainnet"], &stub.env());
        assert_eq!(code, 0, "{output}");
        for line in output.lines().filter(|l| !l.ends_with("ninguna falla")) {
            assert!(line.starts_with("ok "), "{line}");
        }
        for expected in [
            "ok    modo: mainnet, como se pidió",
            "ok    red eip155:8453: Base, USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913, dominio EIP-712 \"USD Coin\" versión 2",
            &format!("ok    pagar_a {}: dirección EVM con checksum EIP-55", payee()),
            &format!("ok    pagar_a {} propia: no es una cuenta de desarrollo conocida", payee()),
            "ok    estudios: ninguno de los 9 estudios dice ser sintético",
            "ok    proxies: TLS en el proxy de --proxies",
            "ok    diario de ventas: 0 ventas",
            "ok    base_url: https://estudios.example.com",
            "ok    facilitador /supported: admite exact (x402 v2) en eip155:8453",
        ] {
            assert!(output.contains(expected), "no `{expected}` in:\n{output}");
        }
        assert!(output.contains(&format!("JWT de CDP por pedido, clave {KEY_ID}")), "{output}");
        let did = gate::x402::receipt::ReceiptKey::parse(RECEIPT_KEY).unwrap().did_key();
        assert!(
            output.contains(&format!("ok    clave de recibos: GATE_RECEIPT_KEY definida: firma como {did}")),
            "{output}"
        );
        assert!(!output.contains(RECEIPT_KEY), "the receipt key itself is never printed");
        assert_eq!((stub.stub.accepted(), stub.stub.refused()), (1, 0), "one authenticated /supported");
    }
    // The English alias runs the same checks.
    let stub = Stub::start(new_ec_key(), None);
    let data = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(["preflight", "--dist", &mainnet_dist().display().to_string()])
        .args(SERVING)
        .args(["--data", &data.path().display().to_string()])
        .env_clear()
        .envs(stub.env())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn each_broken_case_exits_1_with_its_falla_line() {
    let stub = Stub::start(new_ec_key(), None);
    let good = stub.env();
    let dist = mainnet_dist();
    let dir = tempfile::tempdir().unwrap();

    // dist/ built for another mode than the one being checked.
    assert_fails(verify(dist, &["--modo", "testnet"], &good), "modo", "se construyó en modo mainnet");

    // The link secret: missing, then too short.
    assert_fails(
        verify(dist, &[], &with(&good, "GATE_LINK_SECRET", None)),
        "clave de enlaces",
        "falta GATE_LINK_SECRET",
    );
    assert_fails(verify(dist, &[], &with(&good, "GATE_LINK_SECRET", Some("corta"))), "clave de enlaces", "al menos 32");

    // The receipt key: missing, then not 32 bytes of hex.
    assert_fails(
        verify(dist, &[], &with(&good, "GATE_RECEIPT_KEY", None)),
        "clave de recibos",
        "falta GATE_RECEIPT_KEY",
    );
    assert_fails(verify(dist, &[], &with(&good, "GATE_RECEIPT_KEY", Some("corta"))), "clave de recibos", "hexadecimal");

    // A payee without its EIP-55 checksum.
    let lower = payee().to_lowercase();
    let lowercase = edited_dist(&dir.path().join("minusculas"), |m| {
        m["servicio"]["redes"][0]["pagar_a"] = lower.as_str().into();
        each_requirement(m, |r| r["payTo"] = lower.as_str().into());
    });
    assert_fails(verify(&lowercase, &[], &good), &format!("pagar_a {lower}"), &payee());

    // base_url over plain http.
    let http =
        edited_dist(&dir.path().join("http"), |m| m["servicio"]["base_url"] = "http://estudios.example.com".into());
    assert_fails(verify(&http, &[], &good), "base_url", "no es https");

    // Base mainnet under the testnet USDC's EIP-712 domain, and the testnet asset on mainnet.
    let domain = edited_dist(&dir.path().join("dominio"), |m| {
        m["servicio"]["redes"][0]["eip712_name"] = "USDC".into();
        each_requirement(m, |r| r["extra"]["name"] = "USDC".into());
    });
    assert_fails(verify(&domain, &[], &good), "red eip155:8453", "no es la red canónica del modo mainnet");
    let asset = edited_dist(&dir.path().join("activo"), |m| {
        m["servicio"]["redes"][0]["asset"] = "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into();
    });
    assert_fails(verify(&asset, &[], &good), "red eip155:8453", "activo 0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    assert_fails(verify(&asset, &[], &good), "requisitos de pago", "activo 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");

    // The facilitator refuses our token: signed by another key.
    let foreign = with(&good, "CDP_API_KEY_SECRET", Some(&new_ec_key()));
    assert_fails(verify(dist, &[], &foreign), "facilitador /supported", "401");

    // The facilitator does not settle Base mainnet.
    let sepolia_only = Stub::start(new_ed25519_key(), Some(vec!["eip155:84532".into()]));
    assert_fails(
        verify(dist, &[], &sepolia_only.env()),
        "facilitador /supported",
        "no admite exact (x402 v2) en eip155:8453",
    );

    // x402.org settles testnets only.
    let x402_org = with(&good, "GATE_FACILITATOR_URL", Some("https://x402.org/facilitator"));
    assert_fails(verify(dist, &[], &x402_org), "facilitador", "solo redes de prueba");

    // No facilitator it can authenticate to, half a key, a malformed key, two kinds of auth.
    let none =
        with(&with(&with(&good, "GATE_FACILITATOR_URL", None), "CDP_API_KEY_ID", None), "CDP_API_KEY_SECRET", None);
    assert_fails(verify(dist, &[], &none), "facilitador", "defina CDP_API_KEY_ID y CDP_API_KEY_SECRET");
    assert_fails(
        verify(dist, &[], &with(&good, "CDP_API_KEY_SECRET", None)),
        "facilitador",
        "falta CDP_API_KEY_SECRET",
    );
    assert_fails(
        verify(dist, &[], &with(&good, "CDP_API_KEY_SECRET", Some("AAAA"))),
        "facilitador",
        "una clave Ed25519 en base64 mide 64 bytes",
    );
    assert_fails(
        verify(dist, &[], &with(&good, "GATE_FACILITATOR_AUTH", Some("Authorization: Bearer x"))),
        "facilitador",
        "no van juntas",
    );

    // No dist/ at all.
    assert_fails(verify(&dir.path().join("no-existe"), &[], &good), "manifiesto", "generator build");
}

/// The sample's payee, and each of the ten development accounts of the Hardhat/Anvil mnemonic,
/// is refused on mainnet (its private key is public); and in local mode it is only named.
#[test]
fn a_development_account_as_payee_is_refused_on_mainnet() {
    let stub = Stub::start(new_ec_key(), None);
    let dir = tempfile::tempdir().unwrap();
    for (index, (address, _)) in gate::preflight::output::DEVELOPMENT_ACCOUNTS.iter().enumerate() {
        let dist = edited_dist(&dir.path().join(index.to_string()), |m| {
            m["servicio"]["redes"][0]["pagar_a"] = (*address).into();
            each_requirement(m, |r| r["payTo"] = (*address).into());
        });
        let result = verify(&dist, &[], &stub.env());
        assert_fails(result.clone(), &format!("pagar_a {address} propia"), &format!("cuenta #{index} de desarrollo"));
        assert_eq!(
            result.1.lines().filter(|l| l.starts_with("FALLA")).count(),
            1,
            "only the payee fails: {}",
            result.1
        );
    }
    assert!(
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/muestra/servicio.toml"))
            .unwrap()
            .contains(&format!("pagar_a_evm = \"{DEV_PAYEE}\""))
    );
}

/// Studies whose `nota` says their data are synthetic (the samples `generator synth` writes)
/// are refused on mainnet.
#[test]
fn synthetic_studies_are_refused_on_mainnet() {
    let stub = Stub::start(new_ec_key(), None);
    let dir = tempfile::tempdir().unwrap();
    let sheet = "public/estudio/banca-2026/ficha.json";
    let mut value: Value = serde_json::from_slice(&std::fs::read(mainnet_dist().join(sheet)).unwrap()).unwrap();
    value["nota"] = "Las respuestas de este estudio son datos sintéticos de demostración generados con `generator synth` (semilla 2026).".into();
    let synthetic = serde_json::to_vec(&value).unwrap();
    // The sheet's size as the manifest lists it, so the edited dist/ still loads.
    let dist = edited_dist(&dir.path().join("sinteticos"), |m| {
        m["rutas"]["/estudio/banca-2026/ficha"]["bytes"] = synthetic.len().into();
    });
    std::fs::remove_file(dist.join("public")).unwrap();
    copy_dir(&mainnet_dist().join("public"), &dist.join("public"));
    std::fs::write(dist.join(sheet), &synthetic).unwrap();
    let result = verify(&dist, &[], &stub.env());
    assert_fails(
        result.clone(),
        "estudios",
        "1 de 9 estudios dicen en su nota que sus datos son sintéticos (banca-2026)",
    );
    assert_eq!(result.1.lines().filter(|l| l.starts_with("FALLA")).count(), 1, "{}", result.1);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    copy_tree(from, to);
}

/// Behind a TLS terminator (https base_url, no --tls-cert), --proxies must name it; and it
/// must not trust the whole internet. Listening on every interface beside it is a warning.
#[test]
fn a_proxy_setting_that_does_not_match_the_traffic_is_refused() {
    let stub = Stub::start(new_ec_key(), None);
    let data = tempfile::tempdir().unwrap();
    let dist = mainnet_dist();
    let env = stub.env();
    assert_fails(verify_in(dist, data.path(), &["--listen", "127.0.0.1:8080"], &env), "proxies", "sin --proxies");
    assert_fails(
        verify_in(dist, data.path(), &["--proxies", "0.0.0.0/0"], &env),
        "proxies",
        "cualquier dirección de internet",
    );
    let (code, output) = verify_in(dist, data.path(), &["--listen", "0.0.0.0:8080", "--proxies", "10.0.0.0/8"], &env);
    assert_eq!(code, 0, "a warning is no failure: {output}");
    assert!(output.lines().any(|l| l.starts_with("AVISO proxies: --escuchar 0.0.0.0:8080")), "{output}");
    // A gate that serves TLS itself needs no proxy.
    let cert = data.path().join("cert.pem");
    std::fs::write(&cert, "no se lee").unwrap();
    let (code, output) = verify_in(dist, data.path(), &["--tls-cert", &cert.display().to_string()], &env);
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("ok    proxies: el gate sirve TLS él mismo"), "{output}");
}

/// A journal in --data holding the local test sale (`./tienda servir`) or sales on another
/// network than mainnet's gets a warning: `gate ventas` would count them with the real ones.
#[test]
fn a_journal_with_local_mode_sales_is_warned_about() {
    use gate::sales::journal::{Accepted, Event, Handed, Protocol, Record, Settled, append_one};
    let stub = Stub::start(new_ec_key(), None);
    let data = tempfile::tempdir().unwrap();
    let journal = data.path().join(gate::settings::PURCHASES_FILE);
    let sale = |purchase: &str, network: &str, transaction: &str| {
        let accepted = Accepted {
            study: "banca-2026".into(),
            view: "completo".into(),
            network: network.into(),
            payer: DEV_PAYEE.into(),
            nonce: format!("0x{purchase}"),
            amount: "990000".into(),
            asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
            pay_to: DEV_PAYEE.into(),
            valid_until: 2_000_000_000,
            valid_from: 0,
            fingerprint: "h".into(),
            identifier: None,
            protocol: Protocol::X402,
        };
        let at = |event| Record {
            date: "2026-11-01T00:00:00Z".into(),
            unix: 1_793_491_200,
            purchase: purchase.into(),
            event,
        };
        append_one(&journal, &at(Event::Accepted(accepted))).unwrap();
        let settled = Settled {
            transaction: transaction.into(),
            network: network.into(),
            payer: DEV_PAYEE.into(),
            recovered: false,
        };
        append_one(&journal, &at(Event::Settled(settled))).unwrap();
        append_one(&journal, &at(Event::Delivered(Handed { transaction: transaction.into(), bytes: 10 }))).unwrap();
    };
    let local_tx = format!("0x{}", "ab".repeat(32));
    sale("uno", "eip155:8453", &local_tx);
    let ledger = serde_json::json!({"saldos": {}, "nonces_usados": [], "pagos": {"eip155:8453|x|uno": {"a": "x", "valor": "990000", "transaccion": local_tx}}, "liquidaciones": 1});
    std::fs::write(data.path().join("libro-local.json"), ledger.to_string()).unwrap();
    let (code, output) = verify_in(mainnet_dist(), data.path(), &SERVING, &stub.env());
    assert_eq!(code, 0, "a warning is no failure: {output}");
    assert!(
        output.lines().any(|l| l.starts_with("AVISO diario de ventas:") && l.contains("1 del modo local")),
        "{output}"
    );

    // A testnet sale (Base Sepolia) left beside: the other warning, in the same line.
    sale("dos", "eip155:84532", &format!("0x{}", "cd".repeat(32)));
    let (_, output) = verify_in(mainnet_dist(), data.path(), &SERVING, &stub.env());
    let line = output.lines().find(|l| l.starts_with("AVISO diario de ventas:")).unwrap_or_else(|| panic!("{output}"));
    assert!(
        line.contains("1 del modo local")
            && line.contains("1 en redes que el modo mainnet no vende")
            && line.contains("de 2 ventas"),
        "{line}"
    );
}
