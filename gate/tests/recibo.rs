//! `comprar verificar-recibo`, the binary: a receipt signed with a real Ed25519 key over real
//! files is accepted (exit 0, in Spanish, each file `coincide`); one byte changed in the receipt
//! or in a file, another publisher's key, a malformed key or a file that is not a receipt are
//! refused with exit 1 and a Spanish reason. (The whole purchase, from the gate to the saved
//! receipt, runs in `tests/tests/receipts.rs` and in the interop suite.)

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use gate::x402::receipt::{ReceiptFile, ReceiptKey, ReceiptPayload};
use sha2::{Digest, Sha256};

fn key() -> ReceiptKey {
    ReceiptKey::from_seed([0x42; 32])
}

/// Two delivered files in `folder` and the receipt of their sale, saved as `comprar` saves it.
fn sale(folder: &Path) -> std::path::PathBuf {
    let mut files = BTreeMap::new();
    for (kind, name, bytes) in [
        ("json", "banca-2026.json", b"{\"estudio\":\"banca-2026\"}".to_vec()),
        ("zip", "banca-2026.zip", vec![7u8; 4096]),
    ] {
        std::fs::write(folder.join(name), &bytes).unwrap();
        let file = ReceiptFile {
            file: name.into(),
            media_type: format!("application/{kind}"),
            bytes: bytes.len() as u64,
            sha256: hex::encode(Sha256::digest(&bytes)),
        };
        files.insert(kind.to_owned(), file);
    }
    let payload = ReceiptPayload {
        version: 1,
        network: "eip155:84532".into(),
        resource_url: "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen".into(),
        payer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266".into(),
        issued_at: 1_800_000_000,
        transaction: Some(format!("0x{}", "ab".repeat(32))),
        scheme: "exact".into(),
        asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
        amount: "990000".into(),
        pay_to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(),
        study: "banca-2026".into(),
        view: "resumen".into(),
        files,
    };
    let path = folder.join("banca-2026.resumen.recibo.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&key().sign_receipt(&payload)).unwrap()).unwrap();
    path
}

/// Runs `comprar verificar-recibo` with `args`; returns (exit code, stdout, stderr).
fn verify(args: &[&str]) -> (i32, String, String) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_comprar")).arg("verificar-recibo").args(args).env_clear().output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap(), text(output.stdout), text(output.stderr))
}

fn assert_refused((code, stdout, stderr): (i32, String, String), says: &str) {
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.starts_with("comprar: ") && stderr.contains(says), "no `{says}` in {stderr:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_good_receipt_and_its_files_verify() {
    let folder = tempfile::tempdir().unwrap();
    let receipt = sale(folder.path());
    let path = receipt.to_str().unwrap();
    let did = key().did_key();
    for args in [vec![path, "--clave-publica", did.as_str()], vec![path, "--clave-publica", &key().kid()], vec![path]] {
        let (code, stdout, stderr) = verify(&args);
        assert_eq!(code, 0, "{args:?}: {stdout}{stderr}");
        assert!(stdout.starts_with(&format!("Firma válida: recibo firmado por {did}")), "{stdout}");
        assert!(stdout.contains("Estudio: banca-2026 (vista resumen)"), "{stdout}");
        assert!(stdout.contains("Liquidado: 2027-01-15T08:00:00Z"), "{stdout}");
        assert_eq!(stdout.matches(": coincide").count(), 2, "{stdout}");
    }
    let (_, unchecked, _) = verify(&[path]);
    assert!(unchecked.contains("sin --clave-publica"), "says the key was not compared: {unchecked}");
    // The files elsewhere: named with --archivos; missing ones are then a failure.
    let elsewhere = tempfile::tempdir().unwrap();
    assert_refused(verify(&[path, "--archivos", &elsewhere.path().display().to_string()]), "faltan en");
}

#[test]
fn one_byte_changed_in_the_receipt_or_a_file_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let receipt = sale(folder.path());
    let path = receipt.to_str().unwrap();
    let did = key().did_key();
    let text = std::fs::read_to_string(&receipt).unwrap();
    let jws_start = text.find("eyJ").unwrap();
    let payload_start = jws_start + text[jws_start..].find('.').unwrap() + 1;
    // In the header, the payload and the signature: each one-character change is refused.
    for at in [jws_start + 4, payload_start + 30, text.rfind('"').unwrap() - 2] {
        let mut bytes = text.clone().into_bytes();
        bytes[at] = if bytes[at] == b'Q' { b'R' } else { b'Q' };
        let changed = folder.path().join("cambiado.recibo.json");
        std::fs::write(&changed, bytes).unwrap();
        assert_refused(verify(&[changed.to_str().unwrap(), "--clave-publica", &did]), "no es válido");
    }
    let mut zip = std::fs::read(folder.path().join("banca-2026.zip")).unwrap();
    zip[10] ^= 1;
    std::fs::write(folder.path().join("banca-2026.zip"), zip).unwrap();
    let result = verify(&[path, "--clave-publica", &did]);
    assert!(result.1.contains("Archivo zip: banca-2026.zip") && result.1.contains("NO COINCIDE"), "{}", result.1);
    assert_refused(result, "algún archivo no coincide con el recibo");
}

#[test]
fn another_key_a_bad_key_or_no_receipt_are_refused_in_spanish() {
    let folder = tempfile::tempdir().unwrap();
    let receipt = sale(folder.path());
    let path = receipt.to_str().unwrap();
    let other = ReceiptKey::from_seed([0x43; 32]).did_key();
    assert_refused(verify(&[path, "--clave-publica", &other]), "no por la clave esperada");
    assert_refused(
        verify(&[path, "--clave-publica", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"]),
        "no es una clave pública Ed25519",
    );
    let not_json = folder.path().join("nada.json");
    std::fs::write(&not_json, "hola").unwrap();
    assert_refused(verify(&[not_json.to_str().unwrap()]), "no es JSON");
    std::fs::write(&not_json, "{\"success\": true}").unwrap();
    assert_refused(verify(&[not_json.to_str().unwrap()]), "no hay un recibo firmado");
    assert_refused(verify(&["/no/existe.json"]), "no existe");
}
