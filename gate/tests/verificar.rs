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
use gate::http::server::{Running, spawn};
use serde_json::Value;

const KEY_ID: &str = "organizations/prueba/apiKeys/verificar";
const LINK_SECRET: &str = "secreto-de-enlaces-de-prueba-0123456789abcdef";
/// The receipt key of these tests: 32 bytes in hex (a seed only they use).
const RECEIPT_KEY: &str = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";
const BASE_URL: &str = "https://estudios.example.com";

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

/// The real content built for going live: mainnet mode, an https base_url (built once).
fn mainnet_dist() -> &'static Path {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, dist) = DIST.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let content = dir.path().join("content");
        std::fs::create_dir_all(&content).unwrap();
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../content"), &content);
        let settings = content.join("servicio.toml");
        let text = std::fs::read_to_string(&settings)
            .unwrap()
            .replace("modo = \"local\"", "modo = \"mainnet\"")
            .replace("base_url = \"http://127.0.0.1:8080\"", &format!("base_url = \"{BASE_URL}\""));
        assert!(text.contains("modo = \"mainnet\"") && text.contains(BASE_URL));
        std::fs::write(&settings, text).unwrap();
        let dist = dir.path().join("dist");
        let options = generator::build::BuildOptions { content, out: dist.clone(), quiet: true };
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

/// Runs `gate verificar` with only `env` in its environment; returns (exit code, stdout).
fn verificar(dist: &Path, extra_args: &[&str], env: &[(&str, String)]) -> (i32, String) {
    let data = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_gate"))
        .args(["verificar", "--dist", &dist.display().to_string(), "--data", &data.path().display().to_string()])
        .args(extra_args)
        .env_clear()
        .env("GATE_FACILITATOR_TIMEOUT", "5")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(std::fs::read_dir(data.path()).unwrap().next().is_none(), "verificar writes nothing into --data");
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
        let (code, output) = verificar(mainnet_dist(), &["--modo", "mainnet"], &stub.env());
        assert_eq!(code, 0, "{output}");
        for line in output.lines().filter(|l| !l.ends_with("ninguna falla")) {
            assert!(line.starts_with("ok "), "{line}");
        }
        for expected in [
            "ok    modo: mainnet, como se pidió",
            "ok    red eip155:8453: Base, USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913, dominio EIP-712 \"USD Coin\" versión 2",
            "ok    pagar_a 0x70997970C51812dc3A010C7d01b50e0d17dc79C8: dirección EVM con checksum EIP-55",
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
    assert_fails(verificar(dist, &["--modo", "testnet"], &good), "modo", "se construyó en modo mainnet");

    // The link secret: missing, then too short.
    assert_fails(
        verificar(dist, &[], &with(&good, "GATE_LINK_SECRET", None)),
        "clave de enlaces",
        "falta GATE_LINK_SECRET",
    );
    assert_fails(
        verificar(dist, &[], &with(&good, "GATE_LINK_SECRET", Some("corta"))),
        "clave de enlaces",
        "al menos 32",
    );

    // The receipt key: missing, then not 32 bytes of hex.
    assert_fails(
        verificar(dist, &[], &with(&good, "GATE_RECEIPT_KEY", None)),
        "clave de recibos",
        "falta GATE_RECEIPT_KEY",
    );
    assert_fails(
        verificar(dist, &[], &with(&good, "GATE_RECEIPT_KEY", Some("corta"))),
        "clave de recibos",
        "hexadecimal",
    );

    // A payee without its EIP-55 checksum.
    let lower = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    let lowercase = edited_dist(&dir.path().join("minusculas"), |m| {
        m["servicio"]["redes"][0]["pagar_a"] = lower.into();
        each_requirement(m, |r| r["payTo"] = lower.into());
    });
    assert_fails(
        verificar(&lowercase, &[], &good),
        &format!("pagar_a {lower}"),
        "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    );

    // base_url over plain http.
    let http =
        edited_dist(&dir.path().join("http"), |m| m["servicio"]["base_url"] = "http://estudios.example.com".into());
    assert_fails(verificar(&http, &[], &good), "base_url", "no es https");

    // Base mainnet under the testnet USDC's EIP-712 domain, and the testnet asset on mainnet.
    let domain = edited_dist(&dir.path().join("dominio"), |m| {
        m["servicio"]["redes"][0]["eip712_name"] = "USDC".into();
        each_requirement(m, |r| r["extra"]["name"] = "USDC".into());
    });
    assert_fails(verificar(&domain, &[], &good), "red eip155:8453", "no es la red canónica del modo mainnet");
    let asset = edited_dist(&dir.path().join("activo"), |m| {
        m["servicio"]["redes"][0]["asset"] = "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into();
    });
    assert_fails(verificar(&asset, &[], &good), "red eip155:8453", "activo 0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    assert_fails(
        verificar(&asset, &[], &good),
        "requisitos de pago",
        "activo 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    );

    // The facilitator refuses our token: signed by another key.
    let foreign = with(&good, "CDP_API_KEY_SECRET", Some(&new_ec_key()));
    assert_fails(verificar(dist, &[], &foreign), "facilitador /supported", "401");

    // The facilitator does not settle Base mainnet.
    let sepolia_only = Stub::start(new_ed25519_key(), Some(vec!["eip155:84532".into()]));
    assert_fails(
        verificar(dist, &[], &sepolia_only.env()),
        "facilitador /supported",
        "no admite exact (x402 v2) en eip155:8453",
    );

    // x402.org settles testnets only.
    let x402_org = with(&good, "GATE_FACILITATOR_URL", Some("https://x402.org/facilitator"));
    assert_fails(verificar(dist, &[], &x402_org), "facilitador", "solo redes de prueba");

    // No facilitator it can authenticate to, half a key, a malformed key, two kinds of auth.
    let none =
        with(&with(&with(&good, "GATE_FACILITATOR_URL", None), "CDP_API_KEY_ID", None), "CDP_API_KEY_SECRET", None);
    assert_fails(verificar(dist, &[], &none), "facilitador", "defina CDP_API_KEY_ID y CDP_API_KEY_SECRET");
    assert_fails(
        verificar(dist, &[], &with(&good, "CDP_API_KEY_SECRET", None)),
        "facilitador",
        "falta CDP_API_KEY_SECRET",
    );
    assert_fails(
        verificar(dist, &[], &with(&good, "CDP_API_KEY_SECRET", Some("AAAA"))),
        "facilitador",
        "una clave Ed25519 en base64 mide 64 bytes",
    );
    assert_fails(
        verificar(dist, &[], &with(&good, "GATE_FACILITATOR_AUTH", Some("Authorization: Bearer x"))),
        "facilitador",
        "no van juntas",
    );

    // No dist/ at all.
    assert_fails(verificar(&dir.path().join("no-existe"), &[], &good), "manifiesto", "generator build");
}
