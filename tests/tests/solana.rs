//! Solana offers: one setting (`pagar_a_solana`) adds Solana devnet in testnet mode (Solana
//! mainnet in mainnet mode) to every document and to the 402; the gate fills the facilitator's
//! fee payer from `/supported` at start, withdraws the network when the facilitator cannot pay
//! for it, and sends Solana payments through `/verify` before settling (local checks are not
//! authoritative there).
//!
//! No Solana facilitator can run on this machine (the public one needs the network), so the
//! remote facilitator is stood in by [`SolanaCapable`], which answers like x402.org for Solana
//! and hands EVM to the real local facilitator.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use common::gate::client;
use common::{build_into, copy_tree, read_json};
use gate::app::Gate;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::{Facilitator, FacilitatorError};
use gate::links::LinkSigner;
use gate::x402::header::encode_json;
use gate::x402::{
    PaymentPayload, PaymentRequirements, SettlementResponse, SupportedKind, SupportedResponse, VerifyResponse,
};
use gate_http::spawn;
use serde_json::{Value, json};

const SOLANA_PAYEE: &str = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const DEVNET: &str = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const DEVNET_USDC: &str = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const FEE_PAYER: &str = "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9";

/// The sample content in testnet mode with a Solana payee, built into `dir/dist`.
fn build_testnet_with_solana(dir: &Path) -> std::path::PathBuf {
    let content = dir.join("content");
    copy_tree(&common::sample_dir(), &content);
    let settings = content.join("servicio.toml");
    let text = std::fs::read_to_string(&settings).expect("servicio.toml");
    let text = text.replace("modo = \"local\"", "modo = \"testnet\"").replacen(
        "pagar_a_evm =",
        &format!("pagar_a_solana = \"{SOLANA_PAYEE}\"\npagar_a_evm ="),
        1,
    );
    assert!(text.contains("modo = \"testnet\"") && text.contains("pagar_a_solana"), "settings edited");
    std::fs::write(&settings, text).expect("write servicio.toml");
    let dist = dir.join("dist");
    build_into(&content, &dist);
    dist
}

/// Stands in for a public facilitator that supports Solana devnet: `/supported` lists it with
/// a fee payer; Solana payments verify when their transaction is present and settle with a
/// base58 signature. EVM goes to the real local facilitator.
struct SolanaCapable {
    evm: LocalFacilitator,
    valid: bool,
    /// What `/verify` says of the payer of a valid payment (`None`: the field left out).
    payer: Option<&'static str>,
    verifies: AtomicUsize,
    settles: AtomicUsize,
}

impl SolanaCapable {
    fn new(valid: bool) -> SolanaCapable {
        SolanaCapable {
            evm: LocalFacilitator::new(LocalConfig::default()),
            valid,
            payer: Some(SOLANA_PAYEE),
            verifies: AtomicUsize::new(0),
            settles: AtomicUsize::new(0),
        }
    }
}

#[async_trait::async_trait]
impl Facilitator for SolanaCapable {
    fn name(&self) -> String {
        "solana-capable (test)".into()
    }

    async fn verify(&self, p: &PaymentPayload, r: &PaymentRequirements) -> Result<VerifyResponse, FacilitatorError> {
        if !r.network.starts_with("solana:") {
            return self.evm.verify(p, r).await;
        }
        self.verifies.fetch_add(1, Ordering::SeqCst);
        let has_tx = p.payload.get("transaction").and_then(Value::as_str).is_some_and(|t| !t.is_empty());
        Ok(if self.valid && has_tx {
            VerifyResponse {
                is_valid: true,
                invalid_reason: None,
                invalid_message: None,
                payer: self.payer.map(str::to_owned),
            }
        } else {
            VerifyResponse {
                is_valid: false,
                invalid_reason: Some("invalid_exact_svm_payload_transaction".into()),
                invalid_message: Some("transaction does not transfer the exact amount".into()),
                payer: None,
            }
        })
    }

    async fn settle(
        &self,
        p: &PaymentPayload,
        r: &PaymentRequirements,
    ) -> Result<SettlementResponse, FacilitatorError> {
        if !r.network.starts_with("solana:") {
            return self.evm.settle(p, r).await;
        }
        self.settles.fetch_add(1, Ordering::SeqCst);
        Ok(SettlementResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some(SOLANA_PAYEE.into()),
            transaction: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
                .into(),
            network: r.network.clone(),
            amount: Some(r.amount.clone()),
            extensions: None,
        })
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        let mut supported = self.evm.supported().await?;
        supported.kinds.push(SupportedKind {
            x402_version: 2,
            scheme: "exact".into(),
            network: DEVNET.into(),
            extra: Some(json!({"feePayer": FEE_PAYER})),
        });
        Ok(supported)
    }
}

fn links() -> LinkSigner {
    common::gate::links()
}

/// The gate over `dist` after reading `facilitator`'s `/supported`, as `main` does.
async fn gate_after_supported(dist: &Path, facilitator: Arc<dyn Facilitator>) -> (Gate, Vec<String>) {
    let mut gate = Gate::load(dist, Arc::clone(&facilitator), links(), None).expect("gate loads");
    assert!(gate.offers_solana());
    let supported = facilitator.supported().await.expect("supported");
    let withdrawn = gate.apply_supported(&supported);
    (gate, withdrawn)
}

fn decode_header(value: &str) -> Value {
    let bytes = base64::engine::general_purpose::STANDARD.decode(value).expect("base64");
    serde_json::from_slice(&bytes).expect("json")
}

#[test]
fn one_setting_puts_solana_in_every_document() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_testnet_with_solana(dir.path());
    let public = dist.join("public");

    let index = read_json(&public.join("index.json"));
    let networks: Vec<&str> =
        index["como_comprar"]["redes"].as_array().expect("redes").iter().filter_map(|r| r["caip2"].as_str()).collect();
    assert_eq!(networks, ["eip155:84532", DEVNET]);
    assert_eq!(index["como_comprar"]["modo"], "testnet");
    assert!(index["como_comprar"]["pasos"][1].as_str().expect("step").contains("feePayer"));

    let sheet = read_json(&public.join("estudio/banca-2026/ficha.json"));
    assert_eq!(sheet["como_comprar"]["redes"], index["como_comprar"]["redes"]);

    let openapi = read_json(&public.join("openapi.json"));
    assert_eq!(openapi["x-x402"]["networks"], json!(["eip155:84532", DEVNET]));
    assert_eq!(openapi["x-x402"]["payTo"][DEVNET], SOLANA_PAYEE);

    let discovery = std::fs::read_to_string(public.join(".well-known/x402.json")).expect("discovery");
    assert!(discovery.contains(DEVNET) && discovery.contains(SOLANA_PAYEE));
    let llms = std::fs::read_to_string(public.join("llms.txt")).expect("llms.txt");
    assert!(llms.contains(DEVNET) && llms.contains(DEVNET_USDC) && llms.contains(SOLANA_PAYEE));

    let manifest = read_json(&dist.join("gate.json"));
    let accepts = &manifest["estudios"]["banca-2026"]["vistas"]["completo"]["pago_requerido"]["accepts"];
    assert_eq!(accepts.as_array().expect("accepts").len(), 2);
    assert_eq!(accepts[1]["network"], DEVNET);
    assert_eq!(accepts[1]["asset"], DEVNET_USDC);
    assert_eq!(accepts[1]["payTo"], SOLANA_PAYEE);
    assert_eq!(accepts[1]["amount"], "990000");
    assert_eq!(accepts[1]["extra"], json!({}), "the fee payer is the gate's to fill");
}

#[test]
fn local_mode_never_offers_solana() {
    let dir = tempfile::tempdir().expect("temp");
    let content = dir.path().join("content");
    copy_tree(&common::sample_dir(), &content);
    let settings = content.join("servicio.toml");
    let text = std::fs::read_to_string(&settings).expect("servicio.toml");
    std::fs::write(
        &settings,
        text.replacen("pagar_a_evm =", &format!("pagar_a_solana = \"{SOLANA_PAYEE}\"\npagar_a_evm ="), 1),
    )
    .expect("write");
    let dist = dir.path().join("dist");
    build_into(&content, &dist);
    let manifest = read_json(&dist.join("gate.json"));
    let accepts = &manifest["estudios"]["banca-2026"]["vistas"]["completo"]["pago_requerido"]["accepts"];
    assert_eq!(accepts.as_array().expect("accepts").len(), 1);
    assert_eq!(accepts[0]["network"], "eip155:84532");
}

#[test]
fn a_bad_solana_address_is_reported_with_file_and_field() {
    let dir = tempfile::tempdir().expect("temp");
    let content = dir.path().join("content");
    copy_tree(&common::sample_dir(), &content);
    let settings = content.join("servicio.toml");
    let text = std::fs::read_to_string(&settings).expect("servicio.toml");
    std::fs::write(&settings, text.replacen("pagar_a_evm =", "pagar_a_solana = \"0xnot-base58\"\npagar_a_evm =", 1))
        .expect("write");
    let options = generator::build::BuildOptions {
        content: content.clone(),
        out: dir.path().join("dist"),
        quiet: true,
        discard_previous: false,
    };
    let error = format!("{:#}", generator::build::build(&options).expect_err("build refuses"));
    assert!(error.contains("servicio.toml") && error.contains("pagar_a_solana"), "{error}");
    assert!(!dir.path().join("dist").exists(), "nothing written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_402_carries_the_fee_payer_and_a_solana_payment_is_verified_then_settled() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_testnet_with_solana(dir.path());
    let facilitator = Arc::new(SolanaCapable::new(true));
    let (gate, withdrawn) = gate_after_supported(&dist, Arc::clone(&facilitator) as Arc<dyn Facilitator>).await;
    assert!(withdrawn.is_empty(), "{withdrawn:?}");
    let server = spawn(Arc::new(gate), 2).expect("gate starts");
    let http = client();
    let url = format!("{}/estudio/banca-2026?vista=resumen", server.url());

    let unpaid = http.get(&url).send().await.expect("402");
    assert_eq!(unpaid.status(), 402);
    let header = decode_header(unpaid.headers()["payment-required"].to_str().expect("ascii"));
    let body: Value = unpaid.json().await.expect("json");
    assert_eq!(body["x402"]["accepts"], header["accepts"], "the body's whole object offers the same");
    assert_eq!(header["accepts"].as_array().map(Vec::len), Some(2), "Base Sepolia and Solana devnet");
    // Two networks, two signed offers in the body: the head still fits a default proxy's 4 KB.
    for accept in ["application/json", "text/html"] {
        let head = raw_head(
            &server.url(),
            &format!("GET /estudio/banca-2026?vista=resumen HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {accept}\r\n\r\n"),
        );
        assert!(head.starts_with("HTTP/1.1 402 ") && head.len() <= 4096, "{accept}: {} bytes\n{head}", head.len());
    }
    let solana =
        header["accepts"].as_array().expect("accepts").iter().find(|a| a["network"] == DEVNET).expect("solana").clone();
    assert_eq!(solana["extra"], json!({"feePayer": FEE_PAYER}));

    let payment = PaymentPayload {
        x402_version: 2,
        resource: Some(header["resource"].clone()),
        accepted: solana.clone(),
        payload: json!({"transaction": "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}),
        extensions: None,
    };
    let paid = http.get(&url).header("PAYMENT-SIGNATURE", encode_json(&payment)).send().await.expect("paid");
    assert_eq!(paid.status(), 200);
    let receipt = decode_header(paid.headers()["payment-response"].to_str().expect("ascii"));
    assert_eq!(receipt["success"], true);
    assert_eq!(receipt["network"], DEVNET);
    let study: Value = paid.json().await.expect("json");
    assert!(
        study["acceso"]["descargas"]["zip"].is_string() || study["acceso"]["descargas"]["zip"].is_object(),
        "{study}"
    );
    assert_eq!((facilitator.verifies.load(Ordering::SeqCst), facilitator.settles.load(Ordering::SeqCst)), (1, 1));

    let replay = http.get(&url).header("PAYMENT-SIGNATURE", encode_json(&payment)).send().await.expect("replay");
    assert_eq!(replay.status(), 200, "a buyer who lost the answer gets the study again");
    assert_eq!(
        decode_header(replay.headers()["payment-response"].to_str().expect("ascii")),
        receipt,
        "the first receipt"
    );
    let other = format!("{}/estudio/farma-2026?vista=resumen", server.url());
    let elsewhere =
        http.get(&other).header("PAYMENT-SIGNATURE", encode_json(&payment)).send().await.expect("elsewhere");
    assert_eq!(elsewhere.status(), 409, "the same transaction does not buy another study");
    assert_eq!(facilitator.settles.load(Ordering::SeqCst), 1, "no second settlement");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solana_payment_the_facilitator_rejects_is_never_settled() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_testnet_with_solana(dir.path());
    let facilitator = Arc::new(SolanaCapable::new(false));
    let (gate, _) = gate_after_supported(&dist, Arc::clone(&facilitator) as Arc<dyn Facilitator>).await;
    let server = spawn(Arc::new(gate), 2).expect("gate starts");
    let http = client();
    let url = format!("{}/estudio/farma-2026", server.url());
    let header =
        decode_header(http.get(&url).send().await.expect("402").headers()["payment-required"].to_str().expect("ascii"));
    let solana = header["accepts"][1].clone();
    let payment = PaymentPayload {
        x402_version: 2,
        resource: None,
        accepted: solana,
        payload: json!({"transaction": "AQID"}),
        extensions: None,
    };
    let refused = http.get(&url).header("PAYMENT-SIGNATURE", encode_json(&payment)).send().await.expect("refused");
    assert_eq!(refused.status(), 402);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["error"], "invalid_exact_svm_payload_transaction");
    assert!(body.get("paquete").is_none() && body.get("acceso").is_none(), "nothing delivered");
    assert_eq!(facilitator.settles.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_facilitator_without_solana_withdraws_the_network_from_the_402() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_testnet_with_solana(dir.path());
    let local: Arc<dyn Facilitator> = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let (gate, withdrawn) = gate_after_supported(&dist, Arc::clone(&local)).await;
    assert_eq!(withdrawn, [DEVNET]);
    assert!(!gate.offers_solana());
    let server = spawn(Arc::new(gate), 1).expect("gate starts");
    let response = client().get(format!("{}/estudio/banca-2026", server.url())).send().await.expect("402");
    let header = decode_header(response.headers()["payment-required"].to_str().expect("ascii"));
    let networks: Vec<&str> =
        header["accepts"].as_array().expect("accepts").iter().filter_map(|a| a["network"].as_str()).collect();
    assert_eq!(networks, ["eip155:84532"]);
}

/// A facilitator that approves a payment without naming its payer (or naming `""`): the gate
/// cannot tell that buyer from another (a payment-identifier's re-delivery compares payers), so
/// it settles nothing and delivers nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_solana_payment_without_a_payer_is_never_settled() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_testnet_with_solana(dir.path());
    for payer in [None, Some(""), Some("  ")] {
        let facilitator = Arc::new(SolanaCapable { payer, ..SolanaCapable::new(true) });
        let (gate, _) = gate_after_supported(&dist, Arc::clone(&facilitator) as Arc<dyn Facilitator>).await;
        let server = spawn(Arc::new(gate), 2).expect("gate starts");
        let http = client();
        let url = format!("{}/estudio/banca-2026", server.url());
        let header = decode_header(
            http.get(&url).send().await.expect("402").headers()["payment-required"].to_str().expect("ascii"),
        );
        let solana = header["accepts"][1].clone();
        assert_eq!(solana["network"], DEVNET);
        let id = "pay_0123456789abcdef0123456789abcdef";
        let payment = |transaction: &str| PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted: solana.clone(),
            payload: json!({"transaction": transaction}),
            extensions: Some(json!({"payment-identifier": {"info": {"required": false, "id": id}}})),
        };
        for transaction in ["AQID", "BAUG"] {
            let refused = http
                .get(&url)
                .header("PAYMENT-SIGNATURE", encode_json(&payment(transaction)))
                .send()
                .await
                .expect("sent");
            assert_eq!(refused.status(), 502, "{payer:?}");
            let body: Value = refused.json().await.expect("json");
            assert_eq!(body["error"], "facilitador_con_error", "{payer:?}");
            assert!(body.get("paquete").is_none() && body.get("acceso").is_none(), "nothing delivered");
        }
        assert_eq!(facilitator.verifies.load(Ordering::SeqCst), 2);
        assert_eq!(facilitator.settles.load(Ordering::SeqCst), 0, "{payer:?}: nothing settled");
    }
}

/// The head of one answer, read from a raw socket as a proxy in front of the gate reads it.
fn raw_head(server: &str, request: &str) -> String {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect(server.trim_start_matches("http://")).expect("connect");
    stream.write_all(request.as_bytes()).expect("send");
    common::read_answer(&mut stream).0
}
