//! Signed offers and receipts (x402 `offer-receipt`, JWS over Ed25519) from the real gate on an
//! ephemeral port, bought with real secp256k1 payments: every 402 carries offers signed by the
//! publisher's key, every sale (HTTP, MCP, and the repeat of a paid request, before and after a
//! restart) carries the same receipt, which names the study, view, terms, payer, transaction,
//! settlement time and the sha256 of both delivered files, verifies under the key the gate
//! publishes at `/.well-known/did.json`, and stops verifying when one byte of it changes.
//! Signatures are checked here with `ed25519-dalek` directly as well as with the buyer's checker.

mod common;

use std::path::Path;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::gate::*;
use common::{built, read_json};
use ed25519_dalek::{Signature, SigningKey, VerifyingKey};
use gate::app::{Gate, Services};
use gate::buyer::{FileCheck, buy, check_receipt, download_verified, receipt_of};
use gate::facilitator::Facilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::payment::limits::{Limiter, RefusalLimits};
use gate::sales::Sales;
use gate::x402::SettlementResponse;
use gate::x402::header::decode_json;
use gate::x402::receipt::{OFFER_RECEIPT, PublicKey, ReceiptError, ReceiptKey};
use gate_http::{Running, spawn};
use serde_json::{Value, json};

/// The publisher's receipt key of these tests (a seed only they use).
const SEED: [u8; 32] = [0x5e; 32];
const SLUG: &str = "banca-2026";

/// The key's public half, worked out with ed25519-dalek alone (not through the gate).
fn publisher_key() -> VerifyingKey {
    SigningKey::from_bytes(&SEED).verifying_key()
}

fn publisher() -> PublicKey {
    PublicKey::parse(&hex_of(publisher_key().as_bytes())).expect("32-byte key")
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A gate over the built `dist/` signing with [`SEED`], its journal in `data`, settling with
/// `local` (shared across restarts, as the embedded facilitator's ledger file would be).
fn start(data: &Path, local: &Arc<LocalFacilitator>) -> Running {
    let journal = data.join(gate::sales::journal::JOURNAL_FILE);
    let services = Services {
        facilitator: Arc::new(SharedLocal(Arc::clone(local))) as Arc<dyn Facilitator>,
        links: links(),
        sales: Arc::new(Sales::open(&journal, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("journal")),
        limiter: Arc::new(Limiter::new(RefusalLimits::default())),
        receipts: ReceiptKey::from_seed(SEED),
        clock: gate::clock::Clock::system(),
        chains: gate::chain::Chains::new(),
    };
    let gate = Gate::load_with(built(), services).expect("gate loads dist/");
    spawn(Arc::new(gate), 2).expect("gate starts")
}

/// Checks a compact JWS with ed25519-dalek and the publisher's key; returns its header and payload.
fn jws_parts(jws: &str) -> (Value, Value) {
    let parts: Vec<&str> = jws.split('.').collect();
    assert_eq!(parts.len(), 3, "{jws}");
    let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).expect("b64")).expect("64 bytes");
    let signing_input = format!("{}.{}", parts[0], parts[1]);
    publisher_key().verify_strict(signing_input.as_bytes(), &signature).expect("signed by the publisher's key");
    let decode =
        |part: &str| -> Value { serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("b64")).expect("JSON") };
    (decode(parts[0]), decode(parts[1]))
}

fn decoded_header(response: &reqwest::Response, name: &str) -> Value {
    let value = response.headers().get(name).unwrap_or_else(|| panic!("no {name}")).to_str().expect("ascii");
    decode_json(value).expect("base64 JSON")
}

/// `text` with the byte at `at` replaced by another base64url character.
fn one_byte_changed(text: &str, at: usize) -> String {
    let mut bytes = text.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'Q' { b'R' } else { b'Q' };
    String::from_utf8(bytes).expect("ascii")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_402_carries_offers_signed_by_the_key_the_gate_publishes() {
    let data = tempfile::tempdir().expect("data");
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let server = start(data.path(), &local);
    let http = client();

    let document = http.get(format!("{}/.well-known/did.json", server.url())).send().await.expect("did.json");
    assert_eq!(document.status(), 200);
    assert_eq!(document.headers()["content-type"], "application/did+json");
    let document: Value = document.json().await.expect("JSON");
    assert_eq!(document["id"], "did:web:127.0.0.1%3A8080", "the domain of base_url");
    let method = &document["verificationMethod"][0];
    assert_eq!(method["id"], "did:web:127.0.0.1%3A8080#recibos");
    assert_eq!(document["assertionMethod"][0], method["id"]);
    let published =
        PublicKey::parse(method["publicKeyMultibase"].as_str().expect("multibase")).expect("an Ed25519 key");
    assert_eq!(published, publisher(), "the gate publishes the key it signs with");
    let llms =
        http.get(format!("{}/llms.txt", server.url())).send().await.expect("llms.txt").text().await.expect("text");
    assert!(
        llms.contains(&format!("{BUILT_BASE_URL}/.well-known/did.json")) && llms.contains("offer-receipt"),
        "{llms}"
    );

    for view in ["completo", "resumen"] {
        let response = http.get(format!("{}/estudio/{SLUG}?vista={view}", server.url())).send().await.expect("402");
        assert_eq!(response.status(), 402);
        let header = decoded_header(&response, "payment-required");
        // The signed offers serve whoever keeps proof of what was offered, not the payment: they
        // are in the body's whole object, and out of the header, which carries what pays.
        let body: Value = response.json().await.expect("JSON body");
        let required = &body["x402"];
        assert!(header["extensions"].get(OFFER_RECEIPT).is_none(), "no signed offers in PAYMENT-REQUIRED");
        assert_eq!(header["accepts"], required["accepts"]);
        let declared = &required["extensions"][OFFER_RECEIPT];
        assert_eq!(declared["schema"]["required"], json!(["offers"]));
        let offers = declared["info"]["offers"].as_array().expect("offers");
        let accepts = required["accepts"].as_array().expect("accepts");
        assert_eq!(offers.len(), accepts.len());
        for (index, (offer, accepted)) in offers.iter().zip(accepts).enumerate() {
            assert_eq!(offer["format"], "jws");
            assert_eq!(offer["acceptIndex"], index);
            let (header, payload) = jws_parts(offer["signature"].as_str().expect("jws"));
            assert_eq!(header["alg"], "EdDSA");
            assert_eq!(PublicKey::parse(header["kid"].as_str().expect("kid")).expect("did:key"), publisher());
            assert_eq!(payload["version"], 1);
            assert_eq!(payload["resourceUrl"], required["resource"]["url"]);
            for (field, accepted_field) in [
                ("scheme", "scheme"),
                ("network", "network"),
                ("asset", "asset"),
                ("payTo", "payTo"),
                ("amount", "amount"),
            ] {
                assert_eq!(payload[field], accepted[accepted_field], "{view} offer {index}: {field}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sale_returns_a_receipt_of_what_was_sold_that_fails_after_one_byte_changes() {
    let data = tempfile::tempdir().expect("data");
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let server = start(data.path(), &local);
    let http = client();
    let manifest = read_json(&built().join("gate.json"));
    let url = format!("{}/estudio/{SLUG}?vista=resumen", server.url());

    let before = now();
    let purchase = buy(&http, &url, &signer(DEV_KEY), now()).await.expect("purchase");
    let after = now();
    assert_eq!(purchase.status, 200, "{}", purchase.body);
    let settlement: SettlementResponse = purchase.payment_response.clone().expect("PAYMENT-RESPONSE");
    let signed = receipt_of(&settlement).expect("the PAYMENT-RESPONSE carries the receipt").clone();
    assert_eq!(
        settlement.extensions.as_ref().expect("extensions")[OFFER_RECEIPT]["schema"]["required"],
        json!(["receipt"])
    );
    assert_eq!(purchase.body["liquidacion"]["recibo"], signed, "the answer's body carries the same receipt");

    // The signature, checked with ed25519-dalek alone, and every field the receipt states.
    let (header, payload) = jws_parts(signed["signature"].as_str().expect("jws"));
    assert_eq!(header, json!({"alg": "EdDSA", "kid": ReceiptKey::from_seed(SEED).kid()}));
    let accepted = &manifest["estudios"][SLUG]["vistas"]["resumen"]["pago_requerido"]["accepts"][0];
    assert_eq!(payload["version"], 1);
    assert_eq!(payload["resourceUrl"], format!("{BUILT_BASE_URL}/estudio/{SLUG}?vista=resumen"));
    assert_eq!((&payload["estudio"], &payload["vista"]), (&json!(SLUG), &json!("resumen")));
    assert_eq!(payload["network"], accepted["network"]);
    assert_eq!(payload["asset"], accepted["asset"]);
    assert_eq!(payload["amount"], accepted["amount"]);
    assert_eq!(payload["payTo"], accepted["payTo"]);
    assert_eq!(payload["scheme"], "exact");
    assert_eq!(payload["transaction"], settlement.transaction.as_str());
    assert_eq!(payload["payer"], signer(DEV_KEY).address().to_checksum(None));
    let issued_at = payload["issuedAt"].as_u64().expect("issuedAt");
    assert!((before..=after).contains(&issued_at), "settled between {before} and {after}: {issued_at}");
    let journal = std::fs::read_to_string(data.path().join(gate::sales::journal::JOURNAL_FILE)).expect("journal");
    let settled_line = journal.lines().find(|l| l.contains("\"liquidado\"")).expect("liquidado line");
    assert!(settled_line.contains(&format!("\"unix\":{issued_at}")), "issuedAt is the journaled settlement time");
    assert!(!journal.contains(&hex_of(&SEED)), "the key never reaches the journal");
    for kind in ["json", "zip"] {
        let name = manifest["estudios"][SLUG]["descargas"]
            .as_array()
            .and_then(|names| names.iter().filter_map(Value::as_str).find(|n| n.ends_with(&format!(".{kind}"))))
            .expect("a download of this kind");
        let file = &payload["archivos"][kind];
        assert_eq!(file["archivo"], name);
        assert_eq!(file["sha256"], manifest["descargas"][name]["sha256"], "{kind}: the manifest's sha256");
        assert_eq!(file["bytes"], manifest["descargas"][name]["bytes"]);
    }

    // The buyer downloads both files through the signed links and checks them against the receipt.
    let folder = tempfile::tempdir().expect("downloads");
    for kind in ["json", "zip"] {
        let link = &purchase.body["acceso"]["descargas"][kind];
        let url = link["url"].as_str().expect("url").replacen(BUILT_BASE_URL, &server.url(), 1);
        let dest = folder.path().join(link["archivo"].as_str().expect("archivo"));
        download_verified(&http, &url, link["sha256"].as_str().expect("sha256"), &dest).await.expect("download");
    }
    let report = check_receipt(&signed, Some(&publisher()), Some(folder.path())).expect("the receipt verifies");
    assert!(report.key_checked);
    assert_eq!(report.files.len(), 2);
    assert!(report.files.iter().all(|(_, check)| *check == FileCheck::Matches), "{:?}", report.files);
    // Held in a PAYMENT-RESPONSE or a paid answer, it is found and checked the same.
    let whole = serde_json::to_value(&settlement).expect("json");
    assert_eq!(check_receipt(&whole, Some(&publisher()), None).expect("verifies").payload, report.payload);
    assert_eq!(check_receipt(&purchase.body, None, None).expect("verifies").signer, publisher().did_key());

    // One byte of a delivered file changed: that file no longer matches.
    let zip = folder.path().join(payload["archivos"]["zip"]["archivo"].as_str().expect("zip"));
    let mut bytes = std::fs::read(&zip).expect("zip");
    bytes[100] ^= 1;
    std::fs::write(&zip, bytes).expect("write");
    let report = check_receipt(&signed, Some(&publisher()), Some(folder.path())).expect("the signature still holds");
    assert!(!report.files_ok());
    assert!(matches!(report.files.iter().find(|(k, _)| k == "zip"), Some((_, FileCheck::Differs { .. }))));

    // One byte of the receipt changed, in its header, its payload or its signature: refused.
    let jws = signed["signature"].as_str().expect("jws");
    let payload_at = jws.find('.').expect("dot") + 1;
    for at in [3, payload_at + 10, payload_at + 200, jws.len() - 2] {
        let tampered = json!({"format": "jws", "signature": one_byte_changed(jws, at)});
        assert!(check_receipt(&tampered, None, None).is_err(), "changed at {at}");
        assert!(check_receipt(&tampered, Some(&publisher()), None).is_err(), "changed at {at}");
    }
    // A payload rewritten to claim another file, under the original signature: refused.
    let mut parts: Vec<String> = jws.split('.').map(str::to_owned).collect();
    let mut forged = payload.clone();
    forged["archivos"]["zip"]["sha256"] = json!("0".repeat(64));
    parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).expect("json"));
    let forged = json!({"format": "jws", "signature": parts.join(".")});
    let error = check_receipt(&forged, None, None).expect_err("forged");
    assert_eq!(error.downcast_ref::<ReceiptError>(), Some(&ReceiptError::Signature));
    // Signed, but by someone else's key: refused when the publisher's key is asked for.
    let other = ReceiptKey::from_seed([1u8; 32]);
    let error = check_receipt(&signed, Some(&other.public()), None).expect_err("other key");
    assert!(matches!(error.downcast_ref::<ReceiptError>(), Some(ReceiptError::OtherSigner { .. })), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeat_of_a_paid_request_gets_the_same_receipt_before_and_after_a_restart() {
    let data = tempfile::tempdir().expect("data");
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let accepted = accepted_of(built(), SLUG, "completo");
    let payment = signed_header(&accepted, &signer(DEV_KEY), |_, _| {});
    let http = client();
    let paid = |server: &Running| {
        let request = http
            .get(format!("{}/estudio/{SLUG}?vista=completo", server.url()))
            .header("PAYMENT-SIGNATURE", payment.clone());
        async move {
            let response = request.send().await.expect("paid request");
            assert_eq!(response.status(), 200);
            decoded_header(&response, "payment-response")
        }
    };

    let server = start(data.path(), &local);
    let first = paid(&server).await;
    let receipt = first["extensions"][OFFER_RECEIPT].clone();
    assert!(receipt["info"]["receipt"]["signature"].is_string(), "{first}");
    jws_parts(receipt["info"]["receipt"]["signature"].as_str().expect("jws"));
    let again = paid(&server).await;
    assert_eq!(again["extensions"][OFFER_RECEIPT], receipt, "the repeat carries the first receipt");
    drop(server);

    // A new gate over the same journal: the sale is restored without its receipt, which is
    // re-signed from the sale's fields, byte for byte the same.
    let server = start(data.path(), &local);
    let restored = paid(&server).await;
    assert_eq!(restored["extensions"][OFFER_RECEIPT], receipt, "the same receipt after a restart");
    assert_eq!(local.settlements(), 1, "settled once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purchase_over_mcp_carries_the_same_offers_and_a_receipt_for_the_study_url() {
    let data = tempfile::tempdir().expect("data");
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let server = start(data.path(), &local);
    let http = client();
    let call = |meta: Option<Value>| {
        let mut params = json!({"name": "comprar_estudio", "arguments": {"slug": SLUG}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        http.post(format!("{}/mcp", server.url()))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
            .send()
    };
    let unpaid: Value = call(None).await.expect("call").json().await.expect("JSON");
    let required = unpaid["result"]["structuredContent"].clone();
    let over_http = http.get(format!("{}/estudio/{SLUG}?vista=resumen", server.url())).send().await.expect("402");
    let http_required: Value = over_http.json::<Value>().await.expect("JSON body")["x402"].clone();
    assert_eq!(
        required["extensions"][OFFER_RECEIPT], http_required["extensions"][OFFER_RECEIPT],
        "the MCP 402 carries the same signed offers as the HTTP 402"
    );

    let mut payload =
        serde_json::to_value(signed_payload(&required["accepts"][0], &signer(DEV_KEY), |_, _| {})).expect("payload");
    payload["resource"] = required["resource"].clone();
    let paid: Value = call(Some(json!({"x402/payment": payload}))).await.expect("call").json().await.expect("JSON");
    let result = &paid["result"];
    assert_eq!(result["isError"], false, "{result}");
    let report = check_receipt(result, Some(&publisher()), None).expect("the MCP receipt verifies");
    assert_eq!(report.payload.resource_url, format!("{BUILT_BASE_URL}/estudio/{SLUG}?vista=resumen"));
    assert_eq!(report.payload.view, "resumen");
    assert_eq!(
        result["structuredContent"]["liquidacion"]["recibo"],
        result["_meta"]["x402/payment-response"]["extensions"][OFFER_RECEIPT]["info"]["receipt"]
    );
}
