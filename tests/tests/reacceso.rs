//! Re-access with x402 `sign-in-with-x`, end to end: the real gate on an ephemeral port, real
//! purchases settled by the local facilitator, and sign-in proofs signed with real secp256k1
//! keys (EIP-4361 messages, EIP-191 signatures) from the gate's own 402s. The gate's clock is
//! moved forward (a week and a day) so the purchase's links are dead when the buyer comes back;
//! every bad proof is refused with the requirements again; a restart keeps both the sale and
//! the used sign-ins.

mod common;

use std::path::Path;
use std::sync::Arc;

use alloy_signer_local::PrivateKeySigner;
use common::gate::*;
use common::{built, sha256_hex};
use gate::app::{Gate, Services};
use gate::clock::Clock;
use gate::facilitator::Facilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::payment::limits::{Limiter, RefusalLimits};
use gate::sales::Sales;
use gate::x402::header::decode_json;
use gate::x402::siwx::{self, Proof};
use gate_http::{Running, spawn};
use serde_json::{Value, json};

const WEEK_AND_A_DAY: i64 = 8 * 86_400;
const STUDY: &str = "banca-2026";

/// A gate over the built `dist/` with its data folder and clock chosen by the test, settling
/// through an in-process local facilitator.
struct Running402 {
    server: Running,
    local: Arc<LocalFacilitator>,
}

fn start_at(data: &Path, clock: &Clock, local: Arc<LocalFacilitator>) -> Running402 {
    let journal = data.join(gate::sales::journal::JOURNAL_FILE);
    let services = Services {
        facilitator: Arc::new(SharedLocal(Arc::clone(&local))) as Arc<dyn Facilitator>,
        links: links(),
        sales: Arc::new(Sales::open(&journal, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("journal")),
        limiter: Arc::new(Limiter::new(RefusalLimits::default())),
        receipts: gate::x402::receipt::ReceiptKey::development(),
        clock: clock.clone(),
        chains: gate::chain::Chains::new(),
    };
    let gate = Gate::load_with(built(), services).expect("gate loads dist/");
    Running402 { server: spawn(Arc::new(gate), 2).expect("gate starts"), local }
}

fn start(data: &Path, clock: &Clock) -> Running402 {
    start_at(data, clock, Arc::new(LocalFacilitator::new(LocalConfig::default())))
}

impl Running402 {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.url())
    }

    /// A link the gate issued (built for port 8080) pointed at this server.
    fn local_url(&self, issued: &str) -> String {
        issued.replacen(BUILT_BASE_URL, &self.server.url(), 1)
    }
}

async fn body_of(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.expect("body");
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
}

/// The 402 of a study view and its `sign-in-with-x` declaration.
async fn challenge(gate: &Running402, view: &str) -> (Value, Value) {
    let response = client().get(gate.url(&format!("/estudio/{STUDY}?vista={view}"))).send().await.expect("402");
    assert_eq!(response.status(), 402);
    let header = response.headers()["payment-required"].to_str().expect("ascii").to_owned();
    let required: Value = decode_json(&header).expect("PAYMENT-REQUIRED");
    let declaration = required["extensions"][siwx::SIGN_IN_WITH_X].clone();
    assert!(declaration.is_object(), "the 402 declares sign-in-with-x: {required}");
    (required, declaration)
}

/// A proof for a study view's fresh challenge, signed by `key` after `tweak` may change what
/// the challenge says (so the signature is valid for whatever it then says).
async fn proof(gate: &Running402, view: &str, key: &str, tweak: impl FnOnce(&mut Value)) -> Proof {
    let (_, mut declaration) = challenge(gate, view).await;
    tweak(&mut declaration);
    siwx::sign(&declaration, None, &signer(key)).expect("signed")
}

async fn sign_in(gate: &Running402, view: &str, proof: &Proof) -> reqwest::Response {
    client()
        .get(gate.url(&format!("/estudio/{STUDY}?vista={view}")))
        .header(siwx::HEADER, siwx::encode_header(proof))
        .send()
        .await
        .expect("request")
}

/// A refused sign-in: 402 with its code, a Spanish reason, the requirements again with a fresh
/// challenge, and nothing delivered.
async fn refused(response: reqwest::Response, code: &str) -> Value {
    assert_eq!(response.status(), 402, "{code}");
    let header = response.headers().get("payment-required").map(|v| v.to_str().expect("ascii").to_owned());
    assert!(response.headers().get("payment-response").is_none());
    let body = body_of(response).await;
    assert_eq!(body["error"], code, "{body}");
    assert!(body["mensaje"].as_str().is_some_and(|m| m.len() > 20), "{body}");
    assert!(body.get("acceso").is_none() && body.get("resumen").is_none(), "nothing delivered: {body}");
    let required: Value = decode_json(&header.expect("PAYMENT-REQUIRED again")).expect("decodes");
    assert_eq!(required["accepts"], body["x402"]["accepts"]);
    let nonce = &required["extensions"][siwx::SIGN_IN_WITH_X]["info"]["nonce"];
    assert!(nonce.is_string(), "a fresh challenge");
    assert_eq!(&body["x402"]["extensions"][siwx::SIGN_IN_WITH_X]["info"]["nonce"], nonce, "the body's is the header's");
    body
}

/// Buys a view with the dev key over HTTP, as an official client does; returns the answer.
async fn buy(gate: &Running402, view: &str) -> Value {
    let url = gate.url(&format!("/estudio/{STUDY}?vista={view}"));
    let purchase = gate::buyer::buy(&client(), &url, &signer(DEV_KEY), now()).await.expect("purchase");
    assert_eq!(purchase.status, 200, "{}", purchase.body);
    purchase.body
}

async fn download_status(gate: &Running402, link: &Value) -> u16 {
    let url = gate.local_url(link["url"].as_str().expect("url"));
    client().get(url).send().await.expect("download").status().as_u16()
}

fn journal_events(data: &Path, event: &str) -> usize {
    let text = std::fs::read_to_string(data.join(gate::sales::journal::JOURNAL_FILE)).expect("journal");
    text.lines().filter(|l| l.contains(&format!("\"evento\":\"{event}\""))).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_whose_links_expired_signs_in_and_gets_the_study_again_free() {
    let data = tempfile::tempdir().expect("data");
    let clock = Clock::system();
    let gate = start(data.path(), &clock);
    let bought = buy(&gate, "resumen").await;
    let old_zip = bought["acceso"]["descargas"]["zip"].clone();
    assert_eq!(download_status(&gate, &old_zip).await, 200);

    clock.advance(WEEK_AND_A_DAY);
    assert_eq!(download_status(&gate, &old_zip).await, 403, "a week later the purchase's links are dead");

    // The 402 declares the extension as the official server does, bound to this study.
    let (required, declaration) = challenge(&gate, "resumen").await;
    let info = &declaration["info"];
    assert_eq!(info["domain"], "127.0.0.1:8080");
    assert_eq!(info["uri"], required["resource"]["url"]);
    assert_eq!(info["resources"], json!([required["resource"]["url"]]));
    assert_eq!(info["version"], "1");
    assert_eq!(declaration["supportedChains"], json!([{"chainId": "eip155:84532", "type": "eip191"}]));
    // The header carries what a client signs with; the declaration's JSON Schema (the official
    // `buildSIWxSchema`) is in the body's whole object.
    assert!(declaration.get("schema").is_none(), "PAYMENT-REQUIRED leaves the schema to the body");
    let body: Value = client()
        .get(gate.url(&format!("/estudio/{STUDY}?vista=resumen")))
        .send()
        .await
        .expect("402")
        .json()
        .await
        .expect("JSON body");
    assert_eq!(body["x402"]["extensions"][siwx::SIGN_IN_WITH_X]["schema"], siwx::schema());
    let issued = siwx::parse_time(info["issuedAt"].as_str().expect("issuedAt")).expect("ISO 8601");
    assert!(issued.abs_diff(clock.now() as i64) <= 2, "issued on the gate's clock");
    assert_eq!(
        siwx::parse_time(info["expirationTime"].as_str().expect("expirationTime")),
        Some(issued + 300),
        "good for five minutes"
    );

    let signed = siwx::sign(&declaration, None, &signer(DEV_KEY)).expect("signed");
    let again = sign_in(&gate, "resumen", &signed).await;
    assert_eq!(again.status(), 200);
    assert!(again.headers().get("payment-response").is_none(), "nothing was paid now");
    assert_eq!(again.headers()["cache-control"], "private, no-store");
    let body = body_of(again).await;
    assert_eq!(body["estudio"], STUDY);
    assert_eq!(body["vista"], "resumen");
    assert!(body["resumen"].is_object(), "the same answer as a purchase");
    assert_eq!(body["pago"], bought["pago"]);
    assert_eq!(body["liquidacion"], bought["liquidacion"], "the sale it proved, with its very signed receipt");
    assert!(bought["liquidacion"]["recibo"]["signature"].is_string(), "a purchase carries its receipt");
    assert_eq!(body["reacceso"]["transaccion"], bought["liquidacion"]["transaccion"]);
    assert_eq!(body["reacceso"]["billetera"], "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    let fresh = &body["acceso"]["descargas"];
    assert!(body["acceso"]["vence_unix"].as_u64().expect("vence") > clock.now() + 6 * 86_400, "fresh links");
    for kind in ["json", "zip"] {
        assert_ne!(fresh[kind]["url"], bought["acceso"]["descargas"][kind]["url"]);
        let url = gate.local_url(fresh[kind]["url"].as_str().expect("url"));
        let bytes = client().get(url).send().await.expect("download").bytes().await.expect("bytes");
        assert_eq!(sha256_hex(&bytes), fresh[kind]["sha256"].as_str().expect("sha"), "{kind}");
    }

    // The view asked, whichever was bought: the full package too, from its own 402's challenge.
    let full = proof(&gate, "completo", DEV_KEY, |_| {}).await;
    let body = body_of(sign_in(&gate, "completo", &full).await).await;
    assert_eq!(body["vista"], "completo");
    assert!(body["paquete"]["respuestas"].as_array().is_some_and(|a| !a.is_empty()), "the full package");
    assert_eq!(body["reacceso"]["vista_comprada"], "resumen");
    assert!(body["liquidacion"].get("recibo").is_none(), "the receipt is of the view bought");

    assert_eq!(gate.local.settlements(), 1, "no facilitator call, no charge");
    assert_eq!(journal_events(data.path(), "reacceso"), 2);
    let report = gate::sales::report::report(data.path()).expect("report");
    assert_eq!(report.totals.general.sales, 1, "a re-access is no sale");
    assert_eq!(report.sales[0].reaccesses, 2);
    assert_eq!(report.reaccesses.len(), 2);
    assert_eq!((report.reaccesses[0].view.as_str(), report.reaccesses[1].view.as_str()), ("resumen", "completo"));
    assert_eq!(report.reaccesses[0].purchase, report.sales[0].purchase);
    let table = gate::sales::report::table(&report);
    assert!(table.contains("Reaccesos") && table.contains("sin cobro"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_402_carries_a_challenge_of_its_own() {
    let data = tempfile::tempdir().expect("data");
    let gate = start(data.path(), &Clock::system());
    let (first, _) = challenge(&gate, "resumen").await;
    let (second, _) = challenge(&gate, "resumen").await;
    let nonce = |r: &Value| r["extensions"][siwx::SIGN_IN_WITH_X]["info"]["nonce"].clone();
    assert_ne!(nonce(&first), nonce(&second));
    assert!(nonce(&first).as_str().is_some_and(|n| n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit())));
    let without_challenge = |r: &Value| {
        let mut r = r.clone();
        let info = &mut r["extensions"][siwx::SIGN_IN_WITH_X]["info"];
        for field in ["nonce", "issuedAt", "expirationTime"] {
            info[field] = Value::Null;
        }
        r
    };
    assert_eq!(without_challenge(&first), without_challenge(&second), "only the challenge changes");
    // The browser's 402 page carries one in its header too.
    let browser = client()
        .get(gate.url(&format!("/estudio/{STUDY}")))
        .header("Accept", "text/html,application/xhtml+xml")
        .send()
        .await
        .expect("browser");
    assert_eq!(browser.status(), 402);
    let header = browser.headers()["payment-required"].to_str().expect("ascii").to_owned();
    let required: Value = decode_json(&header).expect("decodes");
    assert_ne!(nonce(&required), nonce(&first));
    assert!(required["resource"]["url"].as_str().is_some_and(|u| u.ends_with("vista=completo")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_misdirected_stale_forged_and_foreign_proofs_are_refused() {
    let data = tempfile::tempdir().expect("data");
    let clock = Clock::system();
    let gate = start(data.path(), &clock);
    buy(&gate, "resumen").await;

    let good = proof(&gate, "resumen", DEV_KEY, |_| {}).await;
    assert_eq!(sign_in(&gate, "resumen", &good).await.status(), 200);
    let replay = refused(sign_in(&gate, "resumen", &good).await, "prueba_ya_usada").await;
    assert_ne!(replay["x402"]["extensions"][siwx::SIGN_IN_WITH_X]["info"]["nonce"], json!(good.nonce));

    // Validly signed, but for another domain, another study or view, another chain.
    let domain = proof(&gate, "resumen", DEV_KEY, |d| d["info"]["domain"] = json!("estudios.example.com")).await;
    refused(sign_in(&gate, "resumen", &domain).await, "invalid_siwx_domain_mismatch").await;
    let elsewhere = proof(&gate, "resumen", DEV_KEY, |_| {}).await;
    let response = client()
        .get(gate.url("/estudio/farma-2026?vista=resumen"))
        .header(siwx::HEADER, siwx::encode_header(&elsewhere))
        .send()
        .await
        .expect("request");
    refused(response, "invalid_siwx_uri_mismatch").await;
    refused(sign_in(&gate, "completo", &elsewhere).await, "invalid_siwx_uri_mismatch").await;
    let chain = proof(&gate, "resumen", DEV_KEY, |d| {
        d["supportedChains"] = json!([{"chainId": "eip155:8453", "type": "eip191"}]);
    })
    .await;
    assert_eq!(chain.chain_id, "eip155:8453");
    refused(sign_in(&gate, "resumen", &chain).await, "invalid_siwx_unsupported_chain").await;

    // A nonce the gate never issued, or one it issued with another time.
    let forged =
        proof(&gate, "resumen", DEV_KEY, |d| d["info"]["nonce"] = json!("0123456789abcdef0123456789abcdef")).await;
    refused(sign_in(&gate, "resumen", &forged).await, "invalid_siwx_nonce").await;
    let backdated =
        proof(&gate, "resumen", DEV_KEY, |d| d["info"]["issuedAt"] = json!("2026-01-01T00:00:00.000Z")).await;
    refused(sign_in(&gate, "resumen", &backdated).await, "invalid_siwx_issued_at").await;

    // A signature that does not cover what the proof says, and a malformed header.
    let mut tampered = proof(&gate, "resumen", DEV_KEY, |_| {}).await;
    tampered.statement = Some("Otra cosa".into());
    refused(sign_in(&gate, "resumen", &tampered).await, "invalid_siwx_signature").await;
    let malformed = client()
        .get(gate.url(&format!("/estudio/{STUDY}?vista=resumen")))
        .header(siwx::HEADER, "no-es-base64")
        .send()
        .await
        .expect("request");
    refused(malformed, "invalid_siwx_payload").await;

    // A wallet that never bought it: a valid sign-in, no study.
    let stranger = proof(&gate, "resumen", OTHER_KEY, |_| {}).await;
    let body = refused(sign_in(&gate, "resumen", &stranger).await, "sin_compra").await;
    assert!(body["mensaje"].as_str().is_some_and(|m| m.contains("pague con x402")), "{body}");

    // A challenge left past its five minutes.
    let stale = proof(&gate, "resumen", DEV_KEY, |_| {}).await;
    clock.advance(301);
    refused(sign_in(&gate, "resumen", &stale).await, "invalid_siwx_expired").await;

    assert_eq!(gate.local.settlements(), 1);
    assert_eq!(journal_events(data.path(), "reacceso"), 1, "only the good proof delivered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_beside_a_failing_sign_in_still_buys() {
    let data = tempfile::tempdir().expect("data");
    let gate = start(data.path(), &Clock::system());
    let stranger = proof(&gate, "resumen", OTHER_KEY, |_| {}).await;
    let accepted = accepted_of(built(), STUDY, "resumen");
    let response = client()
        .get(gate.url(&format!("/estudio/{STUDY}?vista=resumen")))
        .header(siwx::HEADER, siwx::encode_header(&stranger))
        .header("PAYMENT-SIGNATURE", signed_header(&accepted, &signer(OTHER_KEY), |_, _| {}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200, "the official server lets the payment go ahead");
    assert!(response.headers().get("payment-response").is_some());
    // Now that wallet bought it, and its next sign-in is honoured.
    let signed = proof(&gate, "resumen", OTHER_KEY, |_| {}).await;
    assert_eq!(sign_in(&gate, "resumen", &signed).await.status(), 200);
    assert_eq!(gate.local.settlements(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_gate_remembers_the_sale_and_refuses_a_used_sign_in() {
    let data = tempfile::tempdir().expect("data");
    let clock = Clock::system();
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let first = start_at(data.path(), &clock, Arc::clone(&local));
    buy(&first, "completo").await;
    clock.advance(WEEK_AND_A_DAY);
    let used = proof(&first, "completo", DEV_KEY, |_| {}).await;
    assert_eq!(sign_in(&first, "completo", &used).await.status(), 200);
    let unused = proof(&first, "completo", DEV_KEY, |_| {}).await;
    drop(first);

    let second = start_at(data.path(), &clock, local);
    refused(sign_in(&second, "completo", &used).await, "prueba_ya_usada").await;
    assert_eq!(sign_in(&second, "completo", &unused).await.status(), 200, "a nonce issued before the restart");
    let fresh = proof(&second, "completo", DEV_KEY, |_| {}).await;
    let body = body_of(sign_in(&second, "completo", &fresh).await).await;
    assert_eq!(body["vista"], "completo");
    assert_eq!(download_status(&second, &body["acceso"]["descargas"]["zip"]).await, 200);
    assert_eq!(second.local.settlements(), 1, "bought once, before the restart");
    assert_eq!(journal_events(data.path(), "reacceso"), 3);
}

/// `tools/call comprar_estudio` on `/mcp` with optional `_meta`; returns the CallToolResult.
async fn buy_tool(gate: &Running402, view: &str, meta: Option<Value>) -> Value {
    let mut params = json!({"name": "comprar_estudio", "arguments": {"slug": STUDY, "vista": view}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = client()
        .post(gate.url("/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(message.to_string())
        .send()
        .await
        .expect("POST /mcp");
    assert_eq!(response.status(), 200);
    let body = body_of(response).await;
    assert!(body.get("error").is_none(), "{body}");
    body["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_mcp_the_same_sign_in_gets_the_study_again() {
    let data = tempfile::tempdir().expect("data");
    let clock = Clock::system();
    let gate = start(data.path(), &clock);
    let unpaid = buy_tool(&gate, "resumen", None).await;
    assert_eq!(unpaid["isError"], true);
    let declaration = unpaid["structuredContent"]["extensions"][siwx::SIGN_IN_WITH_X].clone();
    assert_eq!(
        declaration["info"]["uri"],
        format!("{BUILT_BASE_URL}/estudio/{STUDY}?vista=resumen"),
        "the study's URL, as over HTTP"
    );
    let early: Proof = siwx::sign(&declaration, None, &signer(DEV_KEY)).expect("signed");
    let not_yet = buy_tool(&gate, "resumen", Some(json!({"x402/sign-in-with-x": early}))).await;
    assert_eq!(not_yet["isError"], true);
    assert!(not_yet["structuredContent"]["error"].as_str().is_some_and(|e| e.starts_with("sin_compra")), "{not_yet}");
    assert!(not_yet["structuredContent"]["accepts"].is_array(), "the requirements again");

    buy(&gate, "resumen").await;
    clock.advance(WEEK_AND_A_DAY);
    let unpaid = buy_tool(&gate, "resumen", None).await;
    let declaration = unpaid["structuredContent"]["extensions"][siwx::SIGN_IN_WITH_X].clone();
    let signed = siwx::sign(&declaration, None, &signer(DEV_KEY)).expect("signed");
    let again = buy_tool(&gate, "resumen", Some(json!({"x402/sign-in-with-x": signed}))).await;
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(again["structuredContent"]["estudio"], STUDY);
    assert!(again["structuredContent"]["reacceso"]["compra"].is_string());
    assert!(again.get("_meta").is_none(), "no receipt: nothing was paid now");
    let zip = &again["structuredContent"]["acceso"]["descargas"]["zip"];
    assert_eq!(download_status(&gate, zip).await, 200);

    // One store of used sign-ins for both transports; the header's base64 is taken as well.
    let replay = buy_tool(&gate, "resumen", Some(json!({"x402/sign-in-with-x": signed}))).await;
    assert!(replay["structuredContent"]["error"].as_str().is_some_and(|e| e.starts_with("prueba_ya_usada")));
    refused(sign_in(&gate, "resumen", &signed).await, "prueba_ya_usada").await;
    let fresh = proof(&gate, "resumen", DEV_KEY, |_| {}).await;
    let encoded = siwx::encode_header(&fresh);
    let again = buy_tool(&gate, "resumen", Some(json!({"x402/sign-in-with-x": encoded}))).await;
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(gate.local.settlements(), 1);
}

/// `comprar --reacceso`: the buyer client signs in with its key instead of paying.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_client_signs_in_instead_of_paying() {
    let data = tempfile::tempdir().expect("data");
    let clock = Clock::system();
    let gate = start(data.path(), &clock);
    let url = gate.url(&format!("/estudio/{STUDY}?vista=resumen"));
    let key: PrivateKeySigner = signer(DEV_KEY);
    // The dist is built for port 8080: that is the public origin the challenge is bound to.
    let before = gate::buyer::reaccess(&client(), &url, BUILT_BASE_URL, &key).await.expect("sign-in sent");
    assert_eq!(before.status, 402, "not bought yet: {}", before.body);
    assert_eq!(before.body["error"], "sin_compra");
    buy(&gate, "resumen").await;
    clock.advance(WEEK_AND_A_DAY);
    let again = gate::buyer::reaccess(&client(), &url, BUILT_BASE_URL, &key).await.expect("sign-in sent");
    // A challenge for another origin is never signed.
    let elsewhere = gate::buyer::reaccess(&client(), &url, &gate.url(""), &key).await;
    assert!(elsewhere.is_err_and(|e| e.to_string().contains("no se firma")));
    assert_eq!(again.status, 200, "{}", again.body);
    assert!(again.payment_response.is_none());
    assert_eq!(again.body["reacceso"]["vista_comprada"], "resumen");
    assert_eq!(gate.local.settlements(), 1);
}
