//! MPP's `Accept-Payment` (`tempoxyz/mpp-specs` f9506cd, "Client Payment Preferences"): what a
//! buyer says it can pay with filters and orders the 402's x402 requirements and MPP
//! challenges, over HTTP and over MCP, on the real gate. An x402 `exact` requirement is
//! `evm/charge` on an EVM network and `solana/charge` on Solana (as `mppx` reads x402's
//! `accepts`); preferences that name nothing the store takes get a 402 that offers everything
//! and says, in Spanish and English, what it takes.
//!
//! Ordering needs two requirements, so the offer is the sample content in testnet mode with a
//! Solana payee (Base Sepolia and Solana devnet), behind a facilitator that lists Solana devnet
//! with a fee payer (the local facilitator for EVM, as in `tests/tests/solana.rs`).

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use common::gate::client;
use common::{build_into, copy_tree};
use gate::app::Gate;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::{Facilitator, FacilitatorError};
use gate::x402::{
    PaymentPayload, PaymentRequirements, SettlementResponse, SupportedKind, SupportedResponse, VerifyResponse,
};
use gate_http::{Running, spawn};
use serde_json::{Value, json};

const BASE_SEPOLIA: &str = "eip155:84532";
const DEVNET: &str = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const SLUG: &str = "banca-2026";

/// The local facilitator, plus Solana devnet in `/supported` (with a fee payer), so the gate
/// keeps the Solana requirement; these tests never pay on Solana.
struct WithSolana(LocalFacilitator);

#[async_trait::async_trait]
impl Facilitator for WithSolana {
    fn name(&self) -> String {
        "local + solana devnet (test)".into()
    }

    async fn verify(&self, p: &PaymentPayload, r: &PaymentRequirements) -> Result<VerifyResponse, FacilitatorError> {
        self.0.verify(p, r).await
    }

    async fn settle(
        &self,
        p: &PaymentPayload,
        r: &PaymentRequirements,
    ) -> Result<SettlementResponse, FacilitatorError> {
        self.0.settle(p, r).await
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        let mut supported = self.0.supported().await?;
        supported.kinds.push(SupportedKind {
            x402_version: 2,
            scheme: "exact".into(),
            network: DEVNET.into(),
            extra: Some(json!({"feePayer": "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9"})),
        });
        Ok(supported)
    }
}

/// The sample content in testnet mode with a Solana payee, built into `dir/dist`.
fn build_two_networks(dir: &Path) -> PathBuf {
    let content = dir.join("content");
    copy_tree(&common::sample_dir(), &content);
    let settings = content.join("servicio.toml");
    let text = std::fs::read_to_string(&settings).expect("servicio.toml");
    let text = text.replace("modo = \"local\"", "modo = \"testnet\"").replacen(
        "pagar_a_evm =",
        "pagar_a_solana = \"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM\"\npagar_a_evm =",
        1,
    );
    std::fs::write(&settings, text).expect("write servicio.toml");
    let dist = dir.join("dist");
    build_into(&content, &dist);
    dist
}

async fn start(dist: &Path) -> Running {
    let facilitator: Arc<dyn Facilitator> = Arc::new(WithSolana(LocalFacilitator::new(LocalConfig::default())));
    let mut gate = Gate::load(dist, Arc::clone(&facilitator), common::gate::links(), None).expect("gate loads");
    let supported = facilitator.supported().await.expect("supported");
    assert!(gate.apply_supported(&supported).is_empty(), "Solana devnet stays offered");
    spawn(Arc::new(gate), 2).expect("gate starts")
}

/// An unpaid 402, as (x402 networks of the header, the body's, MPP challenges' chain ids, body).
struct Unpaid {
    header: Vec<String>,
    body_networks: Vec<String>,
    mpp_chains: Vec<u64>,
    body: Value,
    vary: Option<String>,
}

fn networks(required: &Value) -> Vec<String> {
    required["accepts"]
        .as_array()
        .expect("accepts")
        .iter()
        .map(|a| a["network"].as_str().expect("network").to_owned())
        .collect()
}

/// The chain ids of the MPP challenges of a `WWW-Authenticate` value.
fn mpp_chains(www_authenticate: Option<&str>) -> Vec<u64> {
    let Some(value) = www_authenticate else { return Vec::new() };
    gate::payment::mpp::wire::parse_challenges(value)
        .expect("challenges parse")
        .iter()
        .map(|c| {
            let request: Value =
                serde_json::from_slice(&gate::payment::mpp::wire::decode(&c.request).expect("b64")).expect("json");
            request["methodDetails"]["chainId"].as_u64().expect("chainId")
        })
        .collect()
}

async fn unpaid(server: &Running, accept_payment: Option<&str>, method: reqwest::Method) -> Unpaid {
    let mut request = client().request(method, format!("{}/estudio/{SLUG}?vista=resumen", server.url()));
    if let Some(value) = accept_payment {
        request = request.header("Accept-Payment", value);
    }
    let response = request.send().await.expect("request");
    assert_eq!(response.status(), 402, "{accept_payment:?}");
    let headers = response.headers().clone();
    let required: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(headers["payment-required"].to_str().expect("ascii"))
            .expect("base64"),
    )
    .expect("json");
    let text = response.text().await.expect("body");
    let body: Value = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).expect("json body") };
    Unpaid {
        header: networks(&required),
        body_networks: if body.is_null() { Vec::new() } else { networks(&body["x402"]) },
        mpp_chains: mpp_chains(headers.get("www-authenticate").and_then(|v| v.to_str().ok())),
        body,
        vary: headers.get("vary").and_then(|v| v.to_str().ok()).map(str::to_owned),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accept_payment_filters_and_orders_the_402_over_http() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_two_networks(dir.path());
    let server = start(&dist).await;
    let get = reqwest::Method::GET;

    // Without preferences: both networks, the offer's order, one MPP challenge (EVM).
    let plain = unpaid(&server, None, get.clone()).await;
    assert_eq!(plain.header, [BASE_SEPOLIA, DEVNET]);
    assert_eq!(plain.mpp_chains, [84532]);
    assert_eq!(plain.body["error"], "pago_requerido");
    assert_eq!(plain.vary.as_deref(), Some("Accept, Accept-Payment"));

    for (preferences, expected, challenges) in [
        // Ordered by q: Solana first.
        ("solana/charge, evm/charge;q=0.5", vec![DEVNET, BASE_SEPOLIA], vec![84532]),
        ("evm/charge;q=0.2, solana/*;q=0.9, stripe/charge", vec![DEVNET, BASE_SEPOLIA], vec![84532]),
        // Filtered: only what is named with q > 0 (q=0 excludes).
        ("solana/charge", vec![DEVNET], vec![]),
        ("evm/charge", vec![BASE_SEPOLIA], vec![84532]),
        ("*/*, evm/charge;q=0", vec![DEVNET], vec![]),
        ("evm/*", vec![BASE_SEPOLIA], vec![84532]),
        // Equal q: the store's order.
        ("solana/charge, evm/charge", vec![BASE_SEPOLIA, DEVNET], vec![84532]),
        // Malformed (x402 is not a payment-method-id): ignored, as the draft allows.
        ("x402/exact", vec![BASE_SEPOLIA, DEVNET], vec![84532]),
    ] {
        let got = unpaid(&server, Some(preferences), get.clone()).await;
        assert_eq!(got.header, expected, "{preferences}: PAYMENT-REQUIRED");
        assert_eq!(got.body_networks, expected, "{preferences}: the body's x402");
        assert_eq!(got.mpp_chains, challenges, "{preferences}: WWW-Authenticate");
        assert_eq!(got.body["error"], "pago_requerido", "{preferences}");
        assert_eq!(got.vary.as_deref(), Some("Accept, Accept-Payment"));
    }
    // HEAD answers the same head.
    let head = unpaid(&server, Some("solana/charge"), reqwest::Method::HEAD).await;
    assert_eq!(head.header, [DEVNET]);
    assert!(head.mpp_chains.is_empty());

    // Nothing the store takes: everything offered, and what it takes said in both languages.
    for preferences in ["stripe/charge", "evm/charge;q=0, solana/charge;q=0", "card/*, tempo/charge;q=0.5"] {
        let got = unpaid(&server, Some(preferences), get.clone()).await;
        assert_eq!(got.header, [BASE_SEPOLIA, DEVNET], "{preferences}");
        assert_eq!(got.body_networks, [BASE_SEPOLIA, DEVNET], "{preferences}");
        assert_eq!(got.mpp_chains, [84532], "{preferences}");
        assert_eq!(got.body["error"], "medio_de_pago_no_aceptado", "{preferences}");
        let takes = got.body["acepta"].clone();
        assert_eq!(
            takes,
            json!([
                {"medio": "evm/charge", "protocolos": ["x402", "mpp"], "redes": [BASE_SEPOLIA]},
                {"medio": "solana/charge", "protocolos": ["x402"], "redes": [DEVNET]},
            ]),
            "{preferences}"
        );
        let mensaje = got.body["mensaje"].as_str().expect("mensaje");
        let message = got.body["message"].as_str().expect("message");
        assert!(mensaje.contains(preferences) && mensaje.contains("Acepta: evm/charge, solana/charge"), "{mensaje}");
        assert!(message.contains("It takes: evm/charge, solana/charge"), "{message}");
        assert!(got.body["como_comprar"].is_object());
    }

    // A browser gets the HTML 402 with the header its preferences ask for.
    let browser = client()
        .get(format!("{}/estudio/{SLUG}?vista=resumen", server.url()))
        .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .header("Accept-Payment", "solana/charge")
        .send()
        .await
        .expect("browser");
    assert_eq!(browser.status(), 402);
    assert!(browser.headers()["content-type"].to_str().expect("ascii").starts_with("text/html"));
    assert!(browser.headers().get("www-authenticate").is_none());
    let required: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(browser.headers()["payment-required"].to_str().expect("ascii"))
            .expect("b64"),
    )
    .expect("json");
    assert_eq!(networks(&required), [DEVNET]);

    // A preflight lets a page send it.
    let preflight = client()
        .request(reqwest::Method::OPTIONS, format!("{}/estudio/{SLUG}", server.url()))
        .header("Origin", "https://tienda.example")
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "accept-payment")
        .send()
        .await
        .expect("preflight");
    let allowed = preflight.headers()["access-control-allow-headers"].to_str().expect("ascii").to_owned();
    assert!(allowed.split(", ").any(|h| h.eq_ignore_ascii_case("Accept-Payment")), "{allowed}");
}

/// A `tools/call` of `comprar_estudio`, legacy era (no capabilities), with an optional
/// `Accept-Payment` header and `_meta`.
async fn buy_call(server: &Running, header: Option<&str>, meta: Value, modern: Option<Value>) -> Value {
    let mut params = json!({"name": "comprar_estudio", "arguments": {"slug": SLUG, "vista": "resumen"}, "_meta": meta});
    let mut request = client()
        .post(format!("{}/mcp", server.url()))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    match &modern {
        Some(capabilities) => {
            params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities.clone();
            request = request
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "comprar_estudio");
        }
        None => request = request.header("MCP-Protocol-Version", "2025-11-25"),
    }
    if let Some(value) = header {
        request = request.header("Accept-Payment", value);
    }
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    let response = request.body(body.to_string()).send().await.expect("POST /mcp");
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

/// The chain ids of the MPP challenges (objects, `request` decoded) of an MCP answer.
fn object_chains(challenges: &Value) -> Vec<u64> {
    challenges
        .as_array()
        .map(|list| list.iter().map(|c| c["request"]["methodDetails"]["chainId"].as_u64().expect("chainId")).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accept_payment_filters_and_orders_comprar_estudio_over_mcp() {
    let dir = tempfile::tempdir().expect("temp");
    let dist = build_two_networks(dir.path());
    let server = start(&dist).await;

    // No preferences: both networks, the MPP challenge in _meta.
    let answer = buy_call(&server, None, json!({}), None).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(networks(&result["structuredContent"]), [BASE_SEPOLIA, DEVNET]);
    assert_eq!(object_chains(&result["_meta"]["org.paymentauth/payment-required"]["challenges"]), [84532]);

    // The HTTP request's header.
    let answer = buy_call(&server, Some("solana/charge, evm/charge;q=0.5"), json!({}), None).await;
    let result = &answer["result"];
    assert_eq!(networks(&result["structuredContent"]), [DEVNET, BASE_SEPOLIA]);
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("json");
    assert_eq!(text, result["structuredContent"], "content[0] mirrors structuredContent");
    assert_eq!(object_chains(&result["_meta"]["org.paymentauth/payment-required"]["challenges"]), [84532]);

    // _meta's string wins over the header.
    let answer =
        buy_call(&server, Some("evm/charge"), json!({"org.paymentauth/accept-payment": "solana/charge"}), None).await;
    let result = &answer["result"];
    assert_eq!(networks(&result["structuredContent"]), [DEVNET]);
    assert!(result["_meta"].get("org.paymentauth/payment-required").is_none(), "no MPP challenge for Solana: {result}");

    // Nothing the store takes: everything offered, and the words say what it takes.
    let answer = buy_call(&server, Some("stripe/charge"), json!({}), None).await;
    let result = &answer["result"];
    assert_eq!(networks(&result["structuredContent"]), [BASE_SEPOLIA, DEVNET]);
    let error = result["structuredContent"]["error"].as_str().expect("error");
    assert!(error.starts_with("medio_de_pago_no_aceptado:") && error.contains("evm/charge, solana/charge"), "{error}");
    let hint = result["content"][1]["text"].as_str().expect("hint");
    assert!(hint.contains("acepta evm/charge, solana/charge") && hint.contains("It takes"), "{hint}");

    // 2026-07-28 with MPP's capability: -32042, its challenges and x402's requirements filtered.
    let mpp = json!({"experimental": {"payment": {"methods": {"evm": {"intents": ["charge"]}}}}});
    let answer =
        buy_call(&server, None, json!({"org.paymentauth/accept-payment": "evm/charge"}), Some(mpp.clone())).await;
    assert_eq!(answer["error"]["code"], -32042, "{answer}");
    assert_eq!(object_chains(&answer["error"]["data"]["challenges"]), [84532]);
    assert_eq!(networks(&answer["error"]["data"]["x402"]), [BASE_SEPOLIA]);
    let answer = buy_call(&server, Some("card/charge"), json!({}), Some(mpp)).await;
    assert_eq!(answer["error"]["code"], -32042, "{answer}");
    assert_eq!(answer["error"]["data"]["acepta"][0]["medio"], "evm/charge");
    assert!(answer["error"]["data"]["problem"]["detail"].as_str().expect("detail").contains("card/charge"));

    // x402's extension binding: paymentRequired filtered.
    let extension = json!({"extensions": {"org.x402/payment": {}}});
    let answer = buy_call(&server, Some("solana/*"), json!({}), Some(extension)).await;
    assert_eq!(answer["result"]["resultType"], "payment_required", "{answer}");
    assert_eq!(networks(&answer["result"]["paymentRequired"]), [DEVNET]);
}
