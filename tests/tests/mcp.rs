//! End to end over MCP: a JSON-RPC client speaking Streamable HTTP (legacy era, stateless; the
//! 2026-07-28 revision has its own file, mcp_2026.rs) to
//! the real gate on an ephemeral port, on both `/mcp` and `/mcp/catalogo`. It initializes,
//! lists and calls every tool, buys each of the nine studies through `comprar_estudio` with a
//! real secp256k1 signature settled by the local facilitator, downloads what it bought, and
//! walks every transport rule and bad input an MCP server must refuse.

mod common;

use std::sync::Arc;

use alloy_primitives::U256;
use common::gate::*;
use common::{SLUGS, built, read_json, sha256_hex};
use gate::app::Gate;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";
const VERSION: &str = "2025-11-25";
const FREE_TOOLS: [&str; 5] = ["listar_estudios", "buscar_estudios", "ver_ficha", "ver_metricas", "como_comprar"];

/// A minimal MCP client over HTTP: one JSON-RPC message per POST, as the official SDKs send it.
struct McpClient {
    http: reqwest::Client,
    url: String,
    next_id: std::sync::atomic::AtomicI64,
}

impl McpClient {
    fn new(gate: &TestGate, path: &str) -> McpClient {
        McpClient { http: client(), url: gate.url(path), next_id: 1.into() }
    }

    fn post(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        self.post_with(body, &[])
    }

    /// A POST with the usual headers, each replaced by `overrides` when named there.
    fn post_with(&self, body: impl Into<reqwest::Body>, overrides: &[(&str, &str)]) -> reqwest::RequestBuilder {
        let mut builder = self.http.post(&self.url).body(body);
        let defaults = [("Content-Type", "application/json"), ("Accept", ACCEPT), ("MCP-Protocol-Version", VERSION)];
        for (name, value) in defaults {
            if !overrides.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                builder = builder.header(name, value);
            }
        }
        for (name, value) in overrides {
            builder = builder.header(*name, *value);
        }
        builder
    }

    /// Sends a request and returns the whole JSON-RPC response (HTTP 200, JSON, no session).
    async fn request(&self, method: &str, params: Value) -> Value {
        let id = self.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(message.to_string()).send().await.expect("POST");
        assert_eq!(response.status(), 200, "{method}");
        assert!(response.headers().get("mcp-session-id").is_none(), "a stateless server never issues a session");
        let content_type = header(&response, "content-type").unwrap_or_default();
        assert!(content_type.starts_with("application/json"), "{content_type}");
        let body = json_of(response).await;
        assert_eq!(body["jsonrpc"], "2.0");
        assert_eq!(body["id"], id, "the answer carries the request id");
        body
    }

    /// `tools/call` that must succeed at the protocol level; returns the CallToolResult.
    async fn call(&self, name: &str, arguments: Value, meta: Option<Value>) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let body = self.request("tools/call", params).await;
        assert!(body.get("error").is_none(), "{name}: {body}");
        body["result"].clone()
    }
}

async fn json_of(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.expect("body");
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).map(|v| v.to_str().expect("ascii").to_owned())
}

/// The JSON of `content[0].text`, which must equal `structuredContent`.
fn mirrored(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().expect("content[0].text");
    assert_eq!(result["content"][0]["type"], "text");
    let parsed: Value = serde_json::from_str(text).expect("content[0].text is JSON");
    assert_eq!(parsed, result["structuredContent"], "structuredContent and content[0].text carry the same JSON");
    parsed
}

async fn http_json(gate: &TestGate, path: &str) -> Value {
    json_of(client().get(gate.url(path)).send().await.expect("GET")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_negotiates_and_ping_and_notifications_work_on_both_endpoints() {
    let gate = start_local(built());
    for (path, name) in [("/mcp", "estudios-ia"), ("/mcp/catalogo", "estudios-ia-catalogo")] {
        let mcp = McpClient::new(&gate, path);
        let init = mcp
            .request(
                "initialize",
                json!({"protocolVersion": VERSION, "capabilities": {"roots": {}, "extensions": {}}, "clientInfo": {"name": "prueba", "version": "1.0.0"}}),
            )
            .await;
        let result = &init["result"];
        assert_eq!(result["protocolVersion"], VERSION, "{path}");
        assert_eq!(result["capabilities"]["tools"]["listChanged"], false);
        // MPP's payment capability (draft-payment-transport-mcp-00) where something is sold.
        let payment = &result["capabilities"]["experimental"]["payment"];
        assert_eq!(payment["methods"]["evm"]["intents"] == json!(["charge"]), path == "/mcp", "{path}: {payment}");
        assert_eq!(result["serverInfo"]["name"], name);
        assert!(result["serverInfo"]["version"].is_string());
        let instructions = result["instructions"].as_str().expect("instructions");
        assert!(instructions.contains("x402") && instructions.contains("\n\nEN: "), "{instructions}");
        if path == "/mcp" {
            assert!(
                instructions.contains("comprar_estudio") && instructions.contains("x402/payment"),
                "{instructions}"
            );
        } else {
            assert!(instructions.contains("/mcp (herramienta comprar_estudio)"), "{instructions}");
        }
        for (asked, answered) in [
            ("2025-06-18", "2025-06-18"),
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", VERSION),
            ("2099-01-01", VERSION),
        ] {
            let init = mcp
                .request(
                    "initialize",
                    json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
                )
                .await;
            assert_eq!(init["result"]["protocolVersion"], answered, "{asked}");
        }
        let missing = mcp.request("initialize", json!({"capabilities": {}})).await;
        assert_eq!(missing["error"]["code"], -32602);

        let notification =
            mcp.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).send().await.expect("POST");
        assert_eq!(notification.status(), 202);
        assert!(notification.headers().get("mcp-session-id").is_none());
        assert!(notification.bytes().await.expect("body").is_empty(), "202 has no body");
        let response = mcp.post(r#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#).send().await.expect("POST");
        assert_eq!(response.status(), 202, "a client response is accepted");

        let ping = mcp.request("ping", json!({})).await;
        assert_eq!(ping["result"], json!({}));
        let ping = mcp.post(r#"{"jsonrpc":"2.0","id":"abc","method":"ping"}"#).send().await.expect("POST");
        assert_eq!(json_of(ping).await, json!({"jsonrpc": "2.0", "id": "abc", "result": {}}));
        let unknown = mcp.request("resources/list", json!({})).await;
        assert_eq!(unknown["error"]["code"], -32601);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_with_titles_schemas_and_hints_and_the_catalog_has_no_purchase() {
    let gate = start_local(built());
    for (path, expected) in
        [("/mcp", [&FREE_TOOLS[..], &["comprar_estudio"]].concat()), ("/mcp/catalogo", FREE_TOOLS.to_vec())]
    {
        let mcp = McpClient::new(&gate, path);
        // Stateless: tools/list without any initialize first.
        let list = mcp.request("tools/list", json!({})).await;
        let tools = list["result"]["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().expect("name")).collect();
        assert_eq!(names, expected, "{path}");
        assert!(list["result"].get("nextCursor").is_none());
        for tool in tools {
            let name = tool["name"].as_str().expect("name");
            assert!(tool["title"].as_str().is_some_and(|t| !t.is_empty()), "{name}");
            assert!(tool["description"].as_str().is_some_and(|d| d.contains("EN: ")), "{name}");
            assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
            assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{name}");
            assert_eq!(tool["outputSchema"]["type"], "object", "{name}: its outputSchema, from openapi.json");
            let paid = name == "comprar_estudio";
            assert_eq!(tool["annotations"]["readOnlyHint"], !paid, "{name}");
            assert_eq!(tool["annotations"]["destructiveHint"], false, "{name}");
        }
        let sheet = tools.iter().find(|t| t["name"] == "ver_ficha").expect("ver_ficha");
        assert_eq!(sheet["inputSchema"]["properties"]["slug"]["enum"], json!(SLUGS));
        assert_eq!(sheet["inputSchema"]["required"], json!(["slug"]));
        // Deterministic: the same list every time.
        assert_eq!(mcp.request("tools/list", json!({})).await["result"], list["result"]);
        let cursor = mcp.request("tools/list", json!({"cursor": "2"})).await;
        assert_eq!(cursor["error"]["code"], -32602);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn free_tools_answer_what_the_http_routes_serve() {
    let dist = built();
    let gate = start_local(dist);
    let search_url = |q: &str| reqwest::Url::parse_with_params(&gate.url("/buscar"), [("q", q)]).expect("url");
    for path in ["/mcp", "/mcp/catalogo"] {
        let mcp = McpClient::new(&gate, path);
        let catalog = mcp.call("listar_estudios", json!({}), None).await;
        assert_eq!(catalog["isError"], false);
        assert_eq!(mirrored(&catalog), http_json(&gate, "/catalogo").await);
        assert_eq!(catalog["structuredContent"]["total"], 9);

        let metrics = mcp.call("ver_metricas", json!({}), None).await;
        assert_eq!(mirrored(&metrics), http_json(&gate, "/metricas").await);

        for slug in SLUGS {
            let sheet = mcp.call("ver_ficha", json!({"slug": slug}), None).await;
            assert_eq!(sheet["isError"], false, "{slug}");
            assert_eq!(mirrored(&sheet), http_json(&gate, &format!("/estudio/{slug}/ficha")).await, "{slug}");
        }

        for q in ["bancos billeteras virtuales", "galicia", "CÓRDOBA sierras", "hoteles", "zzzxxyy"] {
            let found = mcp.call("buscar_estudios", json!({"q": q}), None).await;
            assert_eq!(found["isError"], false, "{q}");
            let http = json_of(client().get(search_url(q)).send().await.expect("search")).await;
            assert_eq!(mirrored(&found), http, "same ranking as /buscar for {q:?}");
        }
        let banks = mcp.call("buscar_estudios", json!({"q": "galicia"}), None).await;
        assert_eq!(banks["structuredContent"]["resultados"][0]["slug"], "banca-2026");

        let general = mcp.call("como_comprar", json!({}), None).await;
        let general = mirrored(&general);
        assert_eq!(general["http"], http_json(&gate, "/").await["como_comprar"]);
        assert_eq!(general["mcp"]["herramienta"], "comprar_estudio");
        assert!(general.get("pago_requerido").is_none());
        for slug in SLUGS {
            let specific = mcp.call("como_comprar", json!({"slug": slug}), None).await;
            let specific = mirrored(&specific);
            assert_eq!(specific["estudio"], slug);
            assert_eq!(specific["http"], http_json(&gate, &format!("/estudio/{slug}/ficha")).await["como_comprar"]);
            let manifest = read_json(&dist.join("gate.json"));
            assert_eq!(
                specific["pago_requerido"]["accepts"],
                manifest["estudios"][slug]["vistas"]["resumen"]["pago_requerido"]["accepts"]
            );
            // A number, as in the catalog and the sheet (the manifest keeps the text "0.99").
            let sheet = http_json(&gate, &format!("/estudio/{slug}/ficha")).await;
            assert!(specific["precio_usd"].is_number(), "{specific}");
            assert_eq!(specific["precio_usd"], sheet["precio_usd"]);
            let text = manifest["estudios"][slug]["precio_usd"].as_str().expect("text");
            assert_eq!(specific["precio_usd"].as_f64(), text.parse::<f64>().ok());
        }
    }
}

/// Calls comprar_estudio without payment and checks the x402 tool-result binding.
async fn payment_required(mcp: &McpClient, dist: &std::path::Path, slug: &str, view: &str) -> Value {
    let mut arguments = json!({"slug": slug});
    if view != "resumen" {
        arguments["vista"] = json!(view);
    }
    let result = mcp.call("comprar_estudio", arguments, None).await;
    assert_eq!(result["isError"], true, "{slug}");
    let required = mirrored(&result);
    assert_eq!(required["x402Version"], 2);
    assert_eq!(required["resource"]["url"], format!("mcp://tool/comprar_estudio?slug={slug}&vista={view}"));
    assert_eq!(required["resource"]["mimeType"], "application/json");
    assert!(required["error"].as_str().is_some_and(|e| e.contains("x402/payment")));
    let manifest = read_json(&dist.join("gate.json"));
    assert_eq!(
        required["accepts"], manifest["estudios"][slug]["vistas"][view]["pago_requerido"]["accepts"],
        "{slug}: same accepts as HTTP"
    );
    // Beside x402's PaymentRequired, only MPP's challenges (which `mppx/mcp/client` reads).
    let meta: Option<Vec<&String>> = result["_meta"].as_object().map(|m| m.keys().collect());
    assert_eq!(meta, Some(vec![&"org.paymentauth/payment-required".to_owned()]), "{slug}");
    let challenges = &result["_meta"]["org.paymentauth/payment-required"]["challenges"];
    assert_eq!(challenges[0]["method"], "evm", "{slug}");
    assert_eq!(challenges[0]["request"]["amount"], required["accepts"][0]["amount"], "{slug}");
    required
}

/// The PaymentPayload object an x402 MCP client puts in `_meta["x402/payment"]`.
fn payment_meta(required: &Value, key: &str) -> Value {
    let accepted = &required["accepts"][0];
    let mut payload = serde_json::to_value(signed_payload(accepted, &signer(key), |_, _| {})).expect("payload");
    payload["resource"] = required["resource"].clone();
    json!({"x402/payment": payload})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_study_is_bought_through_comprar_estudio_and_its_links_download() {
    let dist = built();
    let gate = start_local(dist);
    let mcp = McpClient::new(&gate, "/mcp");
    let http = client();
    let payer = signer(DEV_KEY).address();
    for slug in SLUGS {
        let required = payment_required(&mcp, dist, slug, "resumen").await;
        let meta = payment_meta(&required, DEV_KEY);
        let result = mcp.call("comprar_estudio", json!({"slug": slug}), Some(meta)).await;
        assert_eq!(result["isError"], false, "{slug}: {result}");
        let receipt = &result["_meta"]["x402/payment-response"];
        assert_eq!(receipt["success"], true, "{slug}");
        assert_eq!(receipt["network"], "eip155:84532");
        assert!(receipt["transaction"].as_str().is_some_and(|t| t.starts_with("0x") && t.len() == 66));
        assert_eq!(receipt["payer"].as_str().map(str::to_lowercase), Some(format!("{payer:#x}")));
        let study = mirrored(&result);
        assert_eq!(study["estudio"], slug);
        assert_eq!(study["vista"], "resumen");
        assert!(study["resumen"].is_object(), "{slug}: the summary");
        assert!(study["resumen"].get("respuestas").is_none());
        assert_eq!(study["liquidacion"]["transaccion"], receipt["transaction"]);
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        for kind in ["json", "zip"] {
            let link = &study["acceso"]["descargas"][kind];
            let url = gate.local_url(link["url"].as_str().expect("url"));
            let download = http.get(&url).send().await.expect("download");
            assert_eq!(download.status(), 200, "{slug} {kind}");
            let bytes = download.bytes().await.expect("bytes");
            assert_eq!(sha256_hex(&bytes), sheet["archivos"][kind]["sha256"].as_str().expect("sha"), "{slug} {kind}");
            assert_eq!(link["bytes"], sheet["archivos"][kind]["bytes"]);
        }
    }
    // The full view inline, once.
    let required = payment_required(&mcp, dist, "banca-2026", "completo").await;
    let result = mcp
        .call(
            "comprar_estudio",
            json!({"slug": "banca-2026", "vista": "completo"}),
            Some(payment_meta(&required, DEV_KEY)),
        )
        .await;
    assert_eq!(result["isError"], false);
    let study = mirrored(&result);
    assert_eq!(study["vista"], "completo");
    assert!(study["paquete"]["respuestas"].as_array().is_some_and(|a| a.len() > 100), "every answer");

    let local = gate.local.as_ref().expect("local");
    assert_eq!(local.settlements(), 10);
    assert_eq!(local.balance("eip155:84532", payer), units(100_000_000 - 10 * 990_000));
    let log =
        std::fs::read_to_string(gate.data.path().join(gate::sales::journal::JOURNAL_FILE)).expect("sales journal");
    let delivered = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["evento"] == "entregado")
        .count();
    assert_eq!(delivered, 10, "one journaled delivery per purchase");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn purchases_settle_through_the_local_facilitator_over_http() {
    let dist = built();
    let (_facilitator, client_side) = start_facilitator_over_http();
    let gate = start_with(dist, client_side);
    let mcp = McpClient::new(&gate, "/mcp");
    for slug in ["farma-2026", "seguros-automotores-2026"] {
        let required = payment_required(&mcp, dist, slug, "resumen").await;
        let result = mcp.call("comprar_estudio", json!({"slug": slug}), Some(payment_meta(&required, DEV_KEY))).await;
        assert_eq!(result["isError"], false, "{result}");
        assert_eq!(result["_meta"]["x402/payment-response"]["success"], true);
    }
}

/// A refused purchase: PaymentRequired again, with `error`, and no study content.
fn assert_refused(result: &Value, code: &str) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    let required = mirrored(result);
    assert_eq!(required["x402Version"], 2);
    assert!(required["accepts"].is_array());
    let error = required["error"].as_str().expect("error");
    assert!(error.starts_with(code), "expected {code}, got {error}");
    assert!(required.get("estudio").is_none() && required.get("resumen").is_none(), "no study content");
    required
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_get_protocol_or_tool_errors_and_nothing_is_charged_twice() {
    let dist = built();
    let gate = start_local(dist);
    let mcp = McpClient::new(&gate, "/mcp");

    // Unknown tool: a JSON-RPC error.
    let unknown = mcp.request("tools/call", json!({"name": "borrar_todo", "arguments": {}})).await;
    assert_eq!(unknown["error"]["code"], -32602);
    assert!(unknown["error"]["message"].as_str().is_some_and(|m| m.contains("borrar_todo")));
    let nameless = mcp.request("tools/call", json!({"arguments": {}})).await;
    assert_eq!(nameless["error"]["code"], -32602);
    let not_object = mcp.request("tools/call", json!({"name": "ver_ficha", "arguments": ["banca-2026"]})).await;
    assert_eq!(not_object["error"]["code"], -32602);

    // Bad arguments: tool errors the model can read.
    let cases = [
        ("ver_ficha", json!({}), "falta_argumento"),
        ("ver_ficha", json!({"slug": 5}), "argumento_invalido"),
        ("ver_ficha", json!({"slug": "no-existe"}), "estudio_desconocido"),
        ("ver_ficha", json!({"slug": "banca-2026", "extra": true}), "argumento_desconocido"),
        ("listar_estudios", json!({"todo": 1}), "argumento_desconocido"),
        ("buscar_estudios", json!({}), "falta_q"),
        ("buscar_estudios", json!({"q": "   "}), "falta_q"),
        ("buscar_estudios", json!({"q": "x".repeat(201)}), "q_demasiado_larga"),
        ("como_comprar", json!({"slug": "no-existe"}), "estudio_desconocido"),
        ("comprar_estudio", json!({}), "falta_argumento"),
        ("comprar_estudio", json!({"slug": "no-existe"}), "estudio_desconocido"),
        ("comprar_estudio", json!({"slug": "banca-2026", "vista": "todo"}), "vista_desconocida"),
    ];
    for (tool, arguments, code) in cases {
        let result = mcp.call(tool, arguments.clone(), None).await;
        assert_eq!(result["isError"], true, "{tool} {arguments}");
        let body = mirrored(&result);
        assert_eq!(body["error"], code, "{tool} {arguments}");
        assert!(body["mensaje"].as_str().is_some_and(|m| m.len() > 10));
    }
    let unknown_slug = mcp.call("ver_ficha", json!({"slug": "no-existe"}), None).await;
    let text = unknown_slug["content"][0]["text"].as_str().expect("text");
    for slug in SLUGS {
        assert!(text.contains(slug), "the error names every valid slug ({slug})");
    }

    // Malformed payments in _meta: PaymentRequired again with the reason.
    let required = payment_required(&mcp, dist, "banca-2026", "resumen").await;
    let good = payment_meta(&required, DEV_KEY);
    let base64 = gate::x402::header::encode_json(&good["x402/payment"]);
    let mut wrong_amount = good.clone();
    wrong_amount["x402/payment"]["accepted"]["amount"] = json!("1");
    let mut no_signature = good.clone();
    no_signature["x402/payment"]["payload"]["signature"] = json!("0x1234");
    let mut v1 = good.clone();
    v1["x402/payment"]["x402Version"] = json!(1);
    let mut no_payload = good.clone();
    no_payload["x402/payment"].as_object_mut().expect("object").remove("payload");
    let other_signer = {
        let mut meta = payment_meta(&required, OTHER_KEY);
        meta["x402/payment"]["payload"]["authorization"]["from"] =
            good["x402/payment"]["payload"]["authorization"]["from"].clone();
        meta
    };
    let malformed = [
        (json!({"x402/payment": base64}), "invalid_payload"),
        (json!({"x402/payment": 7}), "invalid_payload"),
        (json!({"x402/payment": {}}), "invalid_x402_version"),
        (v1, "invalid_x402_version"),
        (no_payload, "invalid_payload"),
        (no_signature, "invalid_payload"),
        (wrong_amount, "invalid_payment_requirements"),
        (other_signer, "invalid_exact_evm_payload_signature"),
    ];
    for (meta, code) in malformed {
        let result = mcp.call("comprar_estudio", json!({"slug": "banca-2026"}), Some(meta.clone())).await;
        assert_refused(&result, code);
        assert!(result["_meta"].get("x402/payment-response").is_none(), "no receipt when nothing settled");
        assert!(result["_meta"]["org.paymentauth/payment-required"]["challenges"].is_array(), "MPP offered again");
    }
    let local = gate.local.as_ref().expect("local");
    assert_eq!(local.settlements(), 0, "nothing was settled");

    // Reused payment: the first settles; the same call again (a buyer who lost the answer) gets
    // the study again with the first receipt and no second settlement; the same authorization
    // for another study is refused and charges nothing.
    let first = mcp.call("comprar_estudio", json!({"slug": "banca-2026"}), Some(good.clone())).await;
    assert_eq!(first["isError"], false);
    let again = mcp.call("comprar_estudio", json!({"slug": "banca-2026"}), Some(good.clone())).await;
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(again["_meta"]["x402/payment-response"], first["_meta"]["x402/payment-response"], "the first receipt");
    let elsewhere = mcp.call("comprar_estudio", json!({"slug": "farma-2026"}), Some(good)).await;
    assert_refused(&elsewhere, "pago_ya_usado");
    assert_eq!(local.settlements(), 1);

    // One replay guard for both bindings: a payment spent over HTTP is recovered over MCP for
    // the same study and view (no second settlement) and refused for another study.
    let over_http = payment_meta(&required, DEV_KEY);
    let header = gate::x402::header::encode_json(&over_http["x402/payment"]);
    let paid = client()
        .get(gate.url("/estudio/banca-2026?vista=resumen"))
        .header("PAYMENT-SIGNATURE", header)
        .send()
        .await
        .expect("HTTP purchase");
    assert_eq!(paid.status(), 200);
    let recovered = mcp.call("comprar_estudio", json!({"slug": "banca-2026"}), Some(over_http.clone())).await;
    assert_eq!(recovered["isError"], false, "{recovered}");
    let reused = mcp.call("comprar_estudio", json!({"slug": "cosmetica-2026"}), Some(over_http)).await;
    assert_refused(&reused, "pago_ya_usado");
    assert_eq!(local.settlements(), 2);
    assert_eq!(local.balance("eip155:84532", signer(DEV_KEY).address()), units(100_000_000 - 2 * 990_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_settlement_returns_payment_required_with_the_receipt_and_no_study() {
    let dist = built();
    let broke = Arc::new(LocalFacilitator::new(LocalConfig { opening_balance: U256::ZERO, ..LocalConfig::default() }));
    let gate = start_with(dist, Arc::new(SharedLocal(Arc::clone(&broke))));
    let mcp = McpClient::new(&gate, "/mcp");
    let required = payment_required(&mcp, dist, "cosmetica-2026", "resumen").await;
    let result =
        mcp.call("comprar_estudio", json!({"slug": "cosmetica-2026"}), Some(payment_meta(&required, DEV_KEY))).await;
    let refused = assert_refused(&result, "insufficient_funds");
    assert_eq!(refused["resource"], required["resource"]);
    let receipt = &result["_meta"]["x402/payment-response"];
    assert_eq!(receipt["success"], false);
    assert_eq!(receipt["transaction"], "");
    assert_eq!(broke.settlements(), 0);
    let log = std::fs::read_to_string(gate.data.path().join("compras.jsonl")).unwrap_or_default();
    assert!(log.is_empty(), "no sale recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_endpoint_refuses_the_purchase_tool_even_with_a_valid_payment() {
    let dist = built();
    let gate = start_local(dist);
    let catalog = McpClient::new(&gate, "/mcp/catalogo");
    let full = McpClient::new(&gate, "/mcp");
    let required = payment_required(&full, dist, "banca-2026", "resumen").await;
    for meta in [None, Some(payment_meta(&required, DEV_KEY))] {
        let mut params = json!({"name": "comprar_estudio", "arguments": {"slug": "banca-2026"}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let answer = catalog.request("tools/call", params).await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("/mcp")));
        assert_eq!(answer["error"]["data"]["herramientas"], json!(FREE_TOOLS));
        assert!(answer.get("result").is_none());
    }
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 0);
}

/// Expects an HTTP status with a JSON-RPC error body of `code` and a null id.
async fn expect_rpc_error(response: reqwest::Response, status: u16, code: i64) -> Value {
    assert_eq!(response.status().as_u16(), status);
    assert!(response.headers().get("mcp-session-id").is_none());
    let body = json_of(response).await;
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transport_rules_are_enforced() {
    let dist = built();
    let gate = start_local(dist);
    let http = client();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for path in ["/mcp", "/mcp/catalogo"] {
        let mcp = McpClient::new(&gate, path);
        let url = gate.url(path);
        for method in [reqwest::Method::GET, reqwest::Method::DELETE, reqwest::Method::PUT, reqwest::Method::HEAD] {
            let response =
                http.request(method.clone(), &url).header("Accept", "text/event-stream").send().await.expect("send");
            assert_eq!(response.status(), 405, "{method} {path}");
            assert_eq!(header(&response, "allow").as_deref(), Some("POST"), "{method} {path}");
        }
        let preflight = http.request(reqwest::Method::OPTIONS, &url).send().await.expect("OPTIONS");
        assert_eq!(preflight.status(), 204);
        assert!(
            header(&preflight, "access-control-allow-headers").unwrap_or_default().contains("MCP-Protocol-Version")
        );

        // Origin and Host (DNS rebinding).
        let evil = mcp.post(ping).header("Origin", "http://evil.example").send().await.expect("send");
        expect_rpc_error(evil, 403, -32000).await;
        let null_origin = mcp.post(ping).header("Origin", "null").send().await.expect("send");
        expect_rpc_error(null_origin, 403, -32000).await;
        let evil_host =
            mcp.post(ping).header("Host", "evil").header("Origin", "http://evil").send().await.expect("send");
        expect_rpc_error(evil_host, 403, -32000).await;
        let evil_host_only = mcp.post(ping).header("Host", "evil.example:8080").send().await.expect("send");
        expect_rpc_error(evil_host_only, 403, -32000).await;
        for origin in ["http://localhost:6274", "http://127.0.0.1:8080", "http://[::1]:3000"] {
            let ok = mcp.post(ping).header("Origin", origin).send().await.expect("send");
            assert_eq!(ok.status(), 200, "{origin}");
        }
        let localhost = mcp.post(ping).header("Host", "localhost:8080").send().await.expect("send");
        assert_eq!(localhost.status(), 200);

        // Accept and Content-Type.
        for accept in ["application/json", "text/event-stream", "text/html"] {
            let response = mcp.post_with(ping, &[("Accept", accept)]).send().await.expect("send");
            expect_rpc_error(response, 406, -32000).await;
        }
        let wildcard = mcp.post_with(ping, &[("Accept", "*/*")]).send().await.expect("send");
        assert_eq!(wildcard.status(), 200);
        let text = mcp.post_with(ping, &[("Content-Type", "text/plain")]).send().await.expect("send");
        expect_rpc_error(text, 415, -32000).await;
        let charset =
            mcp.post_with(ping, &[("Content-Type", "application/json; charset=utf-8")]).send().await.expect("send");
        assert_eq!(charset.status(), 200);

        // Body: too large, not JSON, batches, bad envelopes.
        let huge =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#, "a".repeat(70 * 1024));
        assert_eq!(mcp.post(huge).send().await.expect("send").status(), 413);
        expect_rpc_error(mcp.post("{no es json").send().await.expect("send"), 400, -32700).await;
        let batch = format!("[{ping}]");
        let body = expect_rpc_error(mcp.post(batch).send().await.expect("send"), 400, -32600).await;
        assert_eq!(body["id"], Value::Null);
        expect_rpc_error(
            mcp.post(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).send().await.expect("send"),
            400,
            -32600,
        )
        .await;
        expect_rpc_error(mcp.post(r#"{"id":1,"method":"ping"}"#).send().await.expect("send"), 400, -32600).await;

        // Protocol version header: a revision this server does not speak is refused with the
        // list it does speak; 2026-07-28 without its per-request envelope is an incomplete
        // modern request (tests/mcp_2026.rs walks that era).
        for bad in ["2024-01-01", "latest"] {
            let response = mcp.post_with(ping, &[("MCP-Protocol-Version", bad)]).send().await.expect("send");
            let body = expect_rpc_error(response, 400, -32022).await;
            assert_eq!(body["error"]["data"]["requested"], bad);
            assert_eq!(body["error"]["data"]["supported"][0], "2026-07-28");
        }
        let modern_without_envelope =
            mcp.post_with(ping, &[("MCP-Protocol-Version", "2026-07-28")]).send().await.expect("send");
        expect_rpc_error(modern_without_envelope, 400, -32602).await;
        let none = http
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT)
            .body(ping)
            .send()
            .await
            .expect("send");
        assert_eq!(none.status(), 200, "no version header = 2025-03-26");
        for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
            let response = mcp.post_with(ping, &[("MCP-Protocol-Version", version)]).send().await.expect("send");
            assert_eq!(response.status(), 200, "{version}");
        }

        // A session id a client sends anyway is ignored, never echoed.
        let with_session = mcp.post(ping).header("Mcp-Session-Id", "abc").send().await.expect("send");
        assert_eq!(with_session.status(), 200);
        assert!(with_session.headers().get("mcp-session-id").is_none());
    }
    // The gate keeps serving everything else.
    assert_eq!(http.get(gate.url("/catalogo")).send().await.expect("GET").status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_host_and_configured_hosts_are_allowed() {
    let dist = built();
    let facilitator: Arc<dyn gate::facilitator::Facilitator> = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let loaded =
        Gate::load(dist, facilitator, links(), None).expect("gate").with_mcp_hosts(&["agentes.example".into()]);
    let allowed: Vec<&str> = loaded.mcp.allowed.hosts().collect();
    assert!(allowed.contains(&"127.0.0.1") && allowed.contains(&"agentes.example"), "{allowed:?}");
    let server = gate_http::spawn(Arc::new(loaded), 1).expect("spawn");
    let http = client();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let send = |origin: &'static str, host: &'static str| {
        http.post(format!("{}/mcp", server.url()))
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT)
            .header("Origin", origin)
            .header("Host", host)
            .body(ping)
            .send()
    };
    assert_eq!(send("https://agentes.example", "agentes.example").await.expect("send").status(), 200);
    assert_eq!(send("https://agentes.example", "agentes.example:443").await.expect("send").status(), 200);
    assert_eq!(send("https://otro.example", "agentes.example").await.expect("send").status(), 403);
    assert_eq!(send("https://agentes.example", "otro.example").await.expect("send").status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_documents_point_to_both_mcp_endpoints() {
    let gate = start_local(built());
    let base = BUILT_BASE_URL;
    let index = http_json(&gate, "/").await;
    assert_eq!(index["endpoints"]["mcp"], format!("{base}/mcp"));
    assert_eq!(index["endpoints"]["mcp_catalogo"], format!("{base}/mcp/catalogo"));
    let catalog = http_json(&gate, "/catalogo").await;
    assert_eq!(
        catalog["mcp"],
        json!({"completo": format!("{base}/mcp"), "solo_catalogo": format!("{base}/mcp/catalogo")})
    );
    let openapi = http_json(&gate, "/openapi.json").await;
    for path in ["/mcp", "/mcp/catalogo"] {
        assert!(openapi["paths"][path]["post"]["operationId"].is_string(), "openapi.json documents POST {path}");
    }
    let llms = client().get(gate.url("/llms.txt")).send().await.expect("GET").text().await.expect("text");
    assert!(llms.contains(&format!("{base}/mcp`")) && llms.contains(&format!("{base}/mcp/catalogo`")), "{llms}");
    assert!(llms.contains("comprar_estudio"));
}
