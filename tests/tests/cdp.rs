//! Coinbase CDP authentication end to end: a gate in mainnet mode, configured as for going
//! live (`GATE_FACILITATOR_URL` plus `CDP_API_KEY_ID`/`CDP_API_KEY_SECRET`), sells a study
//! through [`CdpStub`], which checks the JWT of every request, for both kinds of CDP key; and
//! the stub refuses replayed, expired, misdirected, foreign and nonce-less tokens.
//!
//! The stub settles with the gate's local facilitator, which checks real EIP-712 signatures
//! under Base mainnet's USDC domain (`eip155:8453` is one of its networks): the mainnet dist
//! is sold exactly as built, only no chain is involved.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::Parser as _;
use common::gate::{DEV_KEY, client, signer, start_with};
use common::{build_into, copy_tree};
use gate::facilitator::Facilitator;
use gate::facilitator::cdp::{CdpKey, KeyKind, request_uri};
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::settings::{Args, Env, FacilitatorChoice, Settings};
use gate_http::{Running, spawn};
use serde_json::Value;
use tests::cdp_stub::{CdpStub, PREFIX, new_ec_key, new_ed25519_key};

const KEY_ID: &str = "organizations/0b1c2d3e-prueba/apiKeys/4f5a6b7c-prueba";
const LINK_SECRET: &str = "secreto-de-enlaces-de-prueba-0123456789abcdef";

/// The sample content in mainnet mode, built once for this test binary.
fn mainnet_dist() -> &'static Path {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, dist) = DIST.get_or_init(|| {
        // Under cargo's temp folder for tests: a static is never dropped, so the folder stays, and
        // `./tienda probar` empties it before each run (in the system's temp folder they piled up).
        let tmp = env!("CARGO_TARGET_TMPDIR");
        std::fs::create_dir_all(tmp).expect("temp dir");
        let dir = tempfile::tempdir_in(tmp).expect("temp dir");
        let content = dir.path().join("content");
        copy_tree(&common::sample_dir(), &content);
        let settings = content.join("servicio.toml");
        let text = std::fs::read_to_string(&settings).expect("servicio.toml");
        let text = text.replace("modo = \"local\"", "modo = \"mainnet\"");
        assert!(text.contains("modo = \"mainnet\""), "settings edited");
        std::fs::write(&settings, text).expect("write servicio.toml");
        let dist = dir.path().join("dist");
        build_into(&content, &dist);
        (dir, dist)
    });
    dist
}

fn start_stub(key: &CdpKey) -> (Running, Arc<CdpStub>) {
    let stub = Arc::new(CdpStub::new(key, LocalFacilitator::new(LocalConfig::default())));
    let server = spawn(Arc::clone(&stub), 1).expect("stub starts");
    (server, stub)
}

/// The environment of a gate going live against `facilitator_url` with this CDP key.
fn live_env(facilitator_url: &str, secret: &str) -> Env {
    Env {
        link_secret: Some(LINK_SECRET.into()),
        receipt_key: Some("5e".repeat(32)),
        facilitator_url: Some(facilitator_url.into()),
        cdp_key_id: Some(KEY_ID.into()),
        cdp_key_secret: Some(secret.into()),
        ..Env::default()
    }
}

async fn buys_a_study_through_cdp_auth(secret: &str, kind: KeyKind) {
    let key = CdpKey::parse(KEY_ID, secret).unwrap();
    assert_eq!(key.kind(), kind);
    let (stub_server, stub) = start_stub(&key);
    let dist = mainnet_dist();
    let data = tempfile::tempdir().unwrap();

    // Settings exactly as `gate` reads them when serving.
    let manifest = gate::manifest::load(dist).unwrap();
    assert_eq!(manifest.service.mode, gate::manifest::Mode::Mainnet);
    let args = Args::try_parse_from([
        "gate",
        "--dist",
        &dist.display().to_string(),
        "--data",
        &data.path().display().to_string(),
    ])
    .unwrap();
    let env = live_env(&format!("{}{PREFIX}", stub_server.url()), secret);
    let settings = Settings::from_args(args, env, &manifest).unwrap();
    assert_eq!(settings.receipt_key.did_key(), gate::x402::receipt::ReceiptKey::from_seed([0x5e; 32]).did_key());
    assert!(matches!(&settings.facilitator, FacilitatorChoice::Http { cdp: Some(k), auth: None, .. } if *k == key));
    let facilitator = settings.build_facilitator().unwrap();
    assert!(facilitator.name().contains(KEY_ID), "{}", facilitator.name());

    // `/supported` under the JWT, as the gate reads it at start.
    let supported = facilitator.supported().await.unwrap();
    assert!(supported.kinds.iter().any(|k| k.network == "eip155:8453" && k.scheme == "exact"));
    assert_eq!((stub.accepted(), stub.refused()), (1, 0));

    let gate = start_with(dist, facilitator);
    let client = client();
    let url = gate.url("/estudio/banca-2026?vista=resumen");
    let purchase = gate::buyer::buy(&client, &url, &signer(DEV_KEY), gate::clock::now()).await.unwrap();
    assert_eq!(purchase.status, 200, "{}", purchase.body);
    let receipt = purchase.payment_response.expect("PAYMENT-RESPONSE");
    assert!(receipt.success);
    assert_eq!(receipt.network, "eip155:8453");
    assert_eq!(receipt.transaction.len(), 66);
    assert_eq!((stub.accepted(), stub.refused()), (2, 0), "one token for /supported, one for /settle");

    let zip = &purchase.body["acceso"]["descargas"]["zip"];
    let dest = data.path().join("estudio.zip");
    let link = gate.local_url(zip["url"].as_str().unwrap());
    let done = gate::buyer::download_verified(&client, &link, zip["sha256"].as_str().unwrap(), &dest).await.unwrap();
    assert!(done.bytes > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mainnet_gate_sells_through_cdp_auth_with_an_ec_key() {
    buys_a_study_through_cdp_auth(&new_ec_key(), KeyKind::Es256).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mainnet_gate_sells_through_cdp_auth_with_an_ed25519_key() {
    buys_a_study_through_cdp_auth(&new_ed25519_key(), KeyKind::EdDsa).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ec_key_with_literal_backslash_n_works_as_well() {
    let escaped = new_ec_key().trim_end().replace('\n', "\\n");
    buys_a_study_through_cdp_auth(&escaped, KeyKind::Es256).await;
}

/// Sends `token` (or none) as `method url` and returns the status and body.
async fn send(method: &str, url: &str, token: Option<&str>) -> (u16, Value) {
    let client = client();
    let mut request = match method {
        "GET" => client.get(url),
        _ => client.post(url).header("Content-Type", "application/json").body("{}"),
    };
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A token with every claim right but no `nonce` in its header.
fn token_without_nonce(secret: &str, kind: KeyKind, uri: &str) -> String {
    let der = match kind {
        KeyKind::Es256 => {
            use p256::pkcs8::EncodePrivateKey as _;
            p256::SecretKey::from_sec1_pem(secret).unwrap().to_pkcs8_der().unwrap()
        }
        KeyKind::EdDsa => {
            use base64::Engine as _;
            use ed25519_dalek::pkcs8::EncodePrivateKey as _;
            let bytes = base64::engine::general_purpose::STANDARD.decode(secret).unwrap();
            ed25519_dalek::SigningKey::from_bytes(&bytes[..32].try_into().unwrap()).to_pkcs8_der().unwrap()
        }
    };
    let encoding = match kind {
        KeyKind::Es256 => jsonwebtoken::EncodingKey::from_ec_der(der.as_bytes()),
        KeyKind::EdDsa => jsonwebtoken::EncodingKey::from_ed_der(der.as_bytes()),
    };
    let mut header = jsonwebtoken::Header::new(kind.algorithm());
    header.kid = Some(KEY_ID.into());
    let now = gate::clock::now();
    let claims =
        serde_json::json!({"sub": KEY_ID, "iss": "cdp", "uris": [uri], "iat": now, "nbf": now, "exp": now + 120});
    jsonwebtoken::encode(&header, &claims, &encoding).unwrap()
}

async fn the_stub_refuses_bad_tokens(secret: &str, other_secret: &str, kind: KeyKind) {
    let key = CdpKey::parse(KEY_ID, secret).unwrap();
    let (server, stub) = start_stub(&key);
    let supported = url::Url::parse(&format!("{}{PREFIX}/supported", server.url())).unwrap();
    let settle = url::Url::parse(&format!("{}{PREFIX}/settle", server.url())).unwrap();
    let verify = url::Url::parse(&format!("{}{PREFIX}/verify", server.url())).unwrap();

    // A good token works once; the same token again is a replay.
    let token = key.token("GET", &supported).unwrap();
    let (status, body) = send("GET", supported.as_str(), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["kinds"].is_array());
    let (status, body) = send("GET", supported.as_str(), Some(&token)).await;
    assert_eq!(status, 401);
    assert!(body["errorMessage"].as_str().unwrap().contains("ya usado"), "{body}");

    // Expired: minted ten minutes ago.
    let old = key.token_at(&request_uri("GET", &supported), gate::clock::now() - 600).unwrap();
    let (status, body) = send("GET", supported.as_str(), Some(&old)).await;
    assert_eq!(status, 401);
    assert!(body["errorMessage"].as_str().unwrap().contains("venció"), "{body}");

    // Minted for /verify, sent to /settle.
    let misdirected = key.token("POST", &verify).unwrap();
    let (status, body) = send("POST", settle.as_str(), Some(&misdirected)).await;
    assert_eq!(status, 401);
    assert!(body["errorMessage"].as_str().unwrap().contains("uris"), "{body}");

    // Signed by another key under the same key id.
    let other = CdpKey::parse(KEY_ID, other_secret).unwrap();
    let foreign = other.token("GET", &supported).unwrap();
    let (status, body) = send("GET", supported.as_str(), Some(&foreign)).await;
    assert_eq!(status, 401);
    assert!(body["errorMessage"].as_str().unwrap().contains("firma inválida"), "{body}");

    // No nonce in the header.
    let bare = token_without_nonce(secret, kind, &request_uri("GET", &supported));
    let (status, body) = send("GET", supported.as_str(), Some(&bare)).await;
    assert_eq!(status, 401);
    assert!(body["errorMessage"].as_str().unwrap().contains("nonce"), "{body}");

    // No token at all.
    let (status, _) = send("GET", supported.as_str(), None).await;
    assert_eq!(status, 401);

    assert_eq!((stub.accepted(), stub.refused()), (1, 6), "{:?}", stub.refusals());

    // The gate's own client with the foreign key gets no answer it could sell on.
    let wrong = HttpFacilitator::new(&format!("{}{PREFIX}", server.url()), None, Duration::from_secs(5))
        .unwrap()
        .with_cdp(other);
    assert!(matches!(wrong.supported().await, Err(gate::facilitator::FacilitatorError::Status { status: 401, .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stub_refuses_replayed_expired_misdirected_foreign_and_nonceless_es256_tokens() {
    the_stub_refuses_bad_tokens(&new_ec_key(), &new_ec_key(), KeyKind::Es256).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stub_refuses_replayed_expired_misdirected_foreign_and_nonceless_eddsa_tokens() {
    the_stub_refuses_bad_tokens(&new_ed25519_key(), &new_ed25519_key(), KeyKind::EdDsa).await;
}
