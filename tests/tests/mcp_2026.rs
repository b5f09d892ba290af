//! MCP 2026-07-28 end to end: a client of the stateless revision (no `initialize`, the
//! protocol version and capabilities in every request's `_meta`, the method and tool name
//! mirrored in headers) against the real gate on an ephemeral port. It discovers both
//! endpoints, lists the tools with their caching hints, buys a study through `comprar_estudio`
//! with a real secp256k1 signature and downloads it, and walks every envelope and header rule
//! the revision makes a server refuse, while a legacy client keeps working on the same
//! endpoint.

mod common;

use common::gate::*;
use common::{SLUGS, built, read_json, sha256_hex};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const ACCEPT: &str = "application/json, text/event-stream";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The `_meta` every modern request carries.
fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "prueba-2026", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A modern MCP client over HTTP: one JSON-RPC request per POST with the mirrored headers.
struct ModernClient {
    http: reqwest::Client,
    url: String,
}

impl ModernClient {
    fn new(gate: &TestGate, path: &str) -> ModernClient {
        ModernClient { http: client(), url: gate.url(path) }
    }

    /// The POST a conforming client sends for `method` with `params` (the envelope added to
    /// `params._meta`, keeping what the caller put there).
    fn post(&self, id: i64, method: &str, mut params: Value) -> reqwest::RequestBuilder {
        let mut meta = envelope();
        if let Some(extra) = params.get("_meta").and_then(Value::as_object) {
            meta.as_object_mut().expect("object").extend(extra.clone());
        }
        params["_meta"] = meta;
        let mut builder = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT)
            .header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", method);
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            builder = builder.header("Mcp-Name", name);
        }
        builder.body(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string())
    }

    /// A request that must succeed: HTTP 200, JSON, no session, the id echoed, a complete
    /// result that names the server.
    async fn result(&self, method: &str, params: Value) -> Value {
        let response = self.post(7, method, params).send().await.expect("POST");
        assert_eq!(response.status(), 200, "{method}");
        assert!(response.headers().get("mcp-session-id").is_none());
        let body = json_of(response).await;
        assert_eq!(body["id"], 7);
        assert!(body.get("error").is_none(), "{method}: {body}");
        let result = body["result"].clone();
        assert_eq!(result["resultType"], "complete", "{method}");
        assert!(result["_meta"][SERVER_INFO]["name"].as_str().is_some_and(|n| n.starts_with("estudios-ia")));
        assert!(result["_meta"][SERVER_INFO]["version"].is_string());
        result
    }

    async fn call(&self, name: &str, arguments: Value, meta: Option<Value>) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        self.result("tools/call", params).await
    }
}

async fn json_of(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.expect("body");
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
}

/// An error answer: the status, the JSON-RPC code, the request's id, a message.
async fn expect_error(response: reqwest::Response, status: u16, code: i64, id: i64) -> Value {
    assert_eq!(response.status(), status);
    let body = json_of(response).await;
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["id"], id, "errors carry the request id: {body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    body
}

fn structured(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().expect("content[0].text");
    let parsed: Value = serde_json::from_str(text).expect("JSON text");
    assert_eq!(parsed, result["structuredContent"]);
    parsed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_and_tool_lists_follow_the_stateless_revision_on_both_endpoints() {
    let gate = start_local(built());
    for (path, name, tool_count) in [("/mcp", "estudios-ia", 6), ("/mcp/catalogo", "estudios-ia-catalogo", 5)] {
        let mcp = ModernClient::new(&gate, path);
        let discovered = mcp.result("server/discover", json!({})).await;
        assert_eq!(discovered["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]));
        let mut capabilities = json!({"tools": {"listChanged": false}});
        if path == "/mcp" {
            // How /mcp is paid: x402's MCP extension and MPP's payment capability.
            capabilities["extensions"] = json!({"org.x402/payment": {}});
            capabilities["experimental"] = json!({"payment": {"methods": {"evm": {"intents": ["charge"]}}}});
        }
        assert_eq!(discovered["capabilities"], capabilities, "{path}");
        assert_eq!(discovered["_meta"][SERVER_INFO]["name"], name);
        assert!(discovered["instructions"].as_str().is_some_and(|i| i.contains("x402") && i.contains("EN: ")));
        assert_eq!(
            (discovered["ttlMs"].as_u64(), discovered["cacheScope"].as_str()),
            (Some(3_600_000), Some("public"))
        );

        let list = mcp.result("tools/list", json!({})).await;
        let tools = list["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), tool_count, "{path}");
        assert_eq!((list["ttlMs"].as_u64(), list["cacheScope"].as_str()), (Some(3_600_000), Some("public")));
        for tool in tools {
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert!(tool["inputSchema"].get("$schema").is_none(), "no $schema: the 2020-12 default applies");
        }
        // The same tools, in the same order, as the legacy era and as a second request.
        let again = mcp.result("tools/list", json!({})).await;
        assert_eq!(again["tools"], list["tools"]);
        let legacy = client()
            .post(gate.url(path))
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT)
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .send()
            .await
            .expect("POST");
        let legacy = json_of(legacy).await;
        assert_eq!(legacy["result"]["tools"], list["tools"]);
        assert!(legacy["result"].get("resultType").is_none(), "legacy answers are unchanged");

        let catalog = mcp.call("listar_estudios", json!({}), None).await;
        assert_eq!(catalog["isError"], false);
        assert_eq!(structured(&catalog)["total"], 9);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_is_bought_over_the_stateless_revision() {
    let dist = built();
    let gate = start_local(dist);
    let mcp = ModernClient::new(&gate, "/mcp");
    let slug = SLUGS[0];
    let refused = mcp.call("comprar_estudio", json!({"slug": slug}), None).await;
    assert_eq!(refused["isError"], true);
    let required = structured(&refused);
    let manifest = read_json(&dist.join("gate.json"));
    assert_eq!(required["accepts"], manifest["estudios"][slug]["vistas"]["resumen"]["pago_requerido"]["accepts"]);

    let mut payload =
        serde_json::to_value(signed_payload(&required["accepts"][0], &signer(DEV_KEY), |_, _| {})).expect("payload");
    payload["resource"] = required["resource"].clone();
    let bought = mcp.call("comprar_estudio", json!({"slug": slug}), Some(json!({"x402/payment": payload}))).await;
    assert_eq!(bought["isError"], false, "{bought}");
    let receipt = &bought["_meta"]["x402/payment-response"];
    assert_eq!(receipt["success"], true);
    assert!(receipt["transaction"].as_str().is_some_and(|t| t.len() == 66));
    assert_eq!(bought["_meta"][SERVER_INFO]["name"], "estudios-ia", "the receipt and the identity side by side");
    let study = structured(&bought);
    let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
    let link = study["acceso"]["descargas"]["zip"]["url"].as_str().expect("zip link");
    let zip = client().get(gate.local_url(link)).send().await.expect("download");
    assert_eq!(zip.status(), 200);
    assert_eq!(
        sha256_hex(&zip.bytes().await.expect("bytes")),
        sheet["archivos"]["zip"]["sha256"].as_str().expect("sha")
    );
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incomplete_envelopes_and_mismatched_headers_are_refused() {
    let gate = start_local(built());
    let mcp = ModernClient::new(&gate, "/mcp");
    let raw = |body: Value, headers: &[(&str, &str)]| {
        let mut builder = client()
            .post(gate.url("/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT)
            .body(body.to_string());
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.send()
    };
    let discover =
        |id: i64, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params});
    let modern_headers = [("MCP-Protocol-Version", MODERN), ("Mcp-Method", "server/discover")];

    // The envelope: _meta, its protocol version and the client's capabilities are required;
    // clientInfo is not.
    let without_meta = raw(discover(1, json!({})), &modern_headers).await.expect("send");
    expect_error(without_meta, 400, -32602, 1).await;
    let mut meta = envelope();
    meta.as_object_mut().expect("object").remove("io.modelcontextprotocol/protocolVersion");
    expect_error(raw(discover(2, json!({"_meta": meta})), &modern_headers).await.expect("send"), 400, -32602, 2).await;
    let mut meta = envelope();
    meta.as_object_mut().expect("object").remove("io.modelcontextprotocol/clientCapabilities");
    expect_error(raw(discover(3, json!({"_meta": meta})), &modern_headers).await.expect("send"), 400, -32602, 3).await;
    let mut meta = envelope();
    meta.as_object_mut().expect("object").remove("io.modelcontextprotocol/clientInfo");
    let served = raw(discover(4, json!({"_meta": meta})), &modern_headers).await.expect("send");
    assert_eq!(served.status(), 200, "clientInfo is optional");
    // server/discover without any envelope is an incomplete modern request, not a legacy one.
    let bare = raw(discover(5, json!({})), &[]).await.expect("send");
    expect_error(bare, 400, -32602, 5).await;

    // Versions: one we do not speak in both places, or the header and the body disagreeing.
    let mut meta = envelope();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let unknown = raw(
        discover(6, json!({"_meta": meta.clone()})),
        &[("MCP-Protocol-Version", "v999.0.0"), ("Mcp-Method", "server/discover")],
    )
    .await
    .expect("send");
    let body = expect_error(unknown, 400, -32022, 6).await;
    assert_eq!(body["error"]["data"]["requested"], "v999.0.0");
    assert_eq!(body["error"]["data"]["supported"][0], MODERN);
    let mismatched = raw(discover(7, json!({"_meta": meta})), &modern_headers).await.expect("send");
    expect_error(mismatched, 400, -32020, 7).await;
    let no_version_header =
        raw(discover(8, json!({"_meta": envelope()})), &[("Mcp-Method", "server/discover")]).await.expect("send");
    expect_error(no_version_header, 400, -32020, 8).await;

    // Mirrored headers: Mcp-Method always, Mcp-Name for tools/call, both equal to the body;
    // a non-ASCII-safe name may come base64-encoded.
    let list = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": envelope()}});
    expect_error(raw(list.clone(), &[("MCP-Protocol-Version", MODERN)]).await.expect("send"), 400, -32020, 9).await;
    let wrong_method =
        raw(list, &[("MCP-Protocol-Version", MODERN), ("Mcp-Method", "tools/call")]).await.expect("send");
    expect_error(wrong_method, 400, -32020, 9).await;
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
                      "params": {"name": "ver_metricas", "arguments": {}, "_meta": envelope()}});
    let call_headers = [("MCP-Protocol-Version", MODERN), ("Mcp-Method", "tools/call")];
    expect_error(raw(call.clone(), &call_headers).await.expect("send"), 400, -32020, 10).await;
    let wrong_name =
        raw(call.clone(), &[call_headers[0], call_headers[1], ("Mcp-Name", "listar_estudios")]).await.expect("send");
    expect_error(wrong_name, 400, -32020, 10).await;
    let encoded = raw(call, &[call_headers[0], call_headers[1], ("Mcp-Name", "=?base64?dmVyX21ldHJpY2Fz?=")])
        .await
        .expect("send");
    assert_eq!(encoded.status(), 200, "Mcp-Name: base64 of ver_metricas");
    assert_eq!(json_of(encoded).await["result"]["isError"], false);

    // Methods the revision removed, and unknown ones: 404 with -32601 and the id.
    for (id, method) in
        [(11, "initialize"), (12, "ping"), (13, "logging/setLevel"), (14, "resources/subscribe"), (15, "no/existe")]
    {
        let response = mcp.post(id, method, json!({})).send().await.expect("send");
        expect_error(response, 404, -32601, id).await;
    }
    // An unknown tool is still a well-formed request answered with invalid params.
    let unknown_tool =
        mcp.post(16, "tools/call", json!({"name": "no_existe", "arguments": {}})).send().await.expect("send");
    expect_error(unknown_tool, 200, -32602, 16).await;

    // The legacy era keeps working on the same endpoint, with its own rules.
    let legacy = raw(
        json!({"jsonrpc": "2.0", "id": 17, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "viejo", "version": "1"}}}),
        &[],
    )
    .await
    .expect("send");
    assert_eq!(legacy.status(), 200);
    assert_eq!(json_of(legacy).await["result"]["protocolVersion"], "2025-11-25");
    let ping = raw(json!({"jsonrpc": "2.0", "id": 18, "method": "ping"}), &[("MCP-Protocol-Version", "2025-06-18")])
        .await
        .expect("send");
    assert_eq!(json_of(ping).await["result"], json!({}));
    let unknown_legacy =
        raw(json!({"jsonrpc": "2.0", "id": 19, "method": "ping"}), &[("MCP-Protocol-Version", "2024-01-01")])
            .await
            .expect("send");
    let body = expect_error(unknown_legacy, 400, -32022, 19).await;
    assert_eq!(body["error"]["data"]["requested"], "2024-01-01");
}

/// The client capabilities of a 2026-07-28 request that speaks x402's MCP extension.
fn x402_extension() -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {"org.x402/payment": {}}}})
}

/// The client capabilities of a 2026-07-28 request that declares MPP (the draft's
/// `experimental.payment`).
fn mpp_capable() -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities":
        {"experimental": {"payment": {"methods": {"evm": {"intents": ["charge"]}}}}}})
}

/// A `tools/call` of `comprar_estudio` with `meta` merged over the envelope: the whole answer.
async fn buy_call(mcp: &ModernClient, id: i64, slug: &str, meta: Value) -> Value {
    let params = json!({"name": "comprar_estudio", "arguments": {"slug": slug}, "_meta": meta});
    let response = mcp.post(id, "tools/call", params).send().await.expect("POST");
    assert_eq!(response.status(), 200, "JSON-RPC answers of a well-formed call travel with 200");
    let body = json_of(response).await;
    assert_eq!(body["id"], id);
    body
}

fn merged(mut base: Value, extra: Value) -> Value {
    base.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x402_s_extension_binding_and_mpp_s_error_binding_are_chosen_per_request() {
    let dist = built();
    let gate = start_local(dist);
    let mcp = ModernClient::new(&gate, "/mcp");
    let slug = SLUGS[1];
    let manifest = read_json(&dist.join("gate.json"));
    let accepts = manifest["estudios"][slug]["vistas"]["resumen"]["pago_requerido"]["accepts"].clone();

    // /mcp advertises both: x402's extension and MPP's payment capability; the catalog neither.
    let discovered = mcp.result("server/discover", json!({})).await;
    assert_eq!(discovered["capabilities"]["extensions"], json!({"org.x402/payment": {}}));
    assert_eq!(discovered["capabilities"]["experimental"]["payment"]["methods"]["evm"]["intents"], json!(["charge"]));

    // x402's extension: a payment_required result, no tool error, MPP's challenges beside it.
    let body = buy_call(&mcp, 1, slug, x402_extension()).await;
    let result = &body["result"];
    assert_eq!(result["resultType"], "payment_required", "{body}");
    assert_eq!(result["paymentRequired"]["x402Version"], 2);
    assert_eq!(result["paymentRequired"]["accepts"], accepts);
    assert!(result.get("isError").is_none() && result.get("content").is_none(), "{result}");
    assert_eq!(result["_meta"]["org.paymentauth/payment-required"]["challenges"][0]["method"], "evm");
    assert_eq!(result["_meta"][SERVER_INFO]["name"], "estudios-ia");
    // A bad payment under the extension: payment_required again, with the reason.
    let key = signer(DEV_KEY);
    let mut cheap =
        serde_json::to_value(signed_payload(&accepts[0], &key, |auth, _| auth.value = units(1))).expect("payload");
    cheap["resource"] = result["paymentRequired"]["resource"].clone();
    let refused = buy_call(&mcp, 2, slug, merged(x402_extension(), json!({"x402/payment": cheap}))).await;
    assert_eq!(refused["result"]["resultType"], "payment_required", "{refused}");
    assert!(refused["result"]["paymentRequired"]["error"].as_str().is_some_and(|e| !e.is_empty()));
    // And a good one: the study, complete, with the receipt.
    let mut payload = serde_json::to_value(signed_payload(&accepts[0], &key, |_, _| {})).expect("payload");
    payload["resource"] = result["paymentRequired"]["resource"].clone();
    let bought = buy_call(&mcp, 3, slug, merged(x402_extension(), json!({"x402/payment": payload}))).await;
    assert_eq!(bought["result"]["resultType"], "complete", "{bought}");
    assert_eq!(bought["result"]["isError"], false);
    assert_eq!(bought["result"]["_meta"]["x402/payment-response"]["success"], true);

    // MPP declared: JSON-RPC error -32042 with the challenges (request as an object), the
    // problem, and x402's PaymentRequired beside them.
    let body = buy_call(&mcp, 4, slug, mpp_capable()).await;
    assert!(body.get("result").is_none(), "{body}");
    let error = &body["error"];
    assert_eq!(error["code"], -32042, "{body}");
    assert_eq!(error["message"], "Payment Required");
    let data = &error["data"];
    assert_eq!(data["httpStatus"], 402);
    assert_eq!(data["problem"]["type"], "https://paymentauth.org/problems/payment-required");
    assert_eq!(data["problem"]["status"], 402);
    assert_eq!(data["x402"]["accepts"], accepts);
    let challenge = data["challenges"][0].as_object().expect("a challenge").clone();
    assert_eq!((challenge["method"].as_str(), challenge["intent"].as_str()), (Some("evm"), Some("charge")));
    assert_eq!(challenge["request"]["amount"], accepts[0]["amount"]);
    assert!(challenge["expires"].is_string() && challenge["id"].is_string());

    // Paid with that challenge: the study and MPP's receipt naming it.
    let credential = tests::mpp::credential_value(&challenge, &accepts[0], &key);
    let paid = buy_call(&mcp, 5, slug, json!({"org.paymentauth/credential": credential})).await;
    assert_eq!(paid["result"]["isError"], false, "{paid}");
    let receipt = &paid["result"]["_meta"]["org.paymentauth/receipt"];
    assert_eq!(receipt["challengeId"], challenge["id"]);
    assert_eq!(receipt["status"], "success");
    assert!(receipt["reference"].as_str().is_some_and(|r| r.len() == 66));
    // The same credential again: the same purchase, nothing settled twice.
    let again = buy_call(&mcp, 6, slug, json!({"org.paymentauth/credential": credential})).await;
    assert_eq!(again["result"]["_meta"]["org.paymentauth/receipt"]["reference"], receipt["reference"], "{again}");

    // A tampered challenge: -32043 with fresh challenges and the failure; nothing settled.
    let mut tampered = challenge.clone();
    tampered["request"]["amount"] = json!("1");
    let credential = tests::mpp::credential_value(&tampered, &accepts[0], &key);
    let failed = buy_call(&mcp, 7, slug, json!({"org.paymentauth/credential": credential})).await;
    assert_eq!(failed["error"]["code"], -32043, "{failed}");
    assert_eq!(failed["error"]["data"]["failure"]["reason"], "invalid-challenge");
    assert_eq!(failed["error"]["data"]["problem"]["type"], "https://paymentauth.org/problems/invalid-challenge");
    assert_ne!(failed["error"]["data"]["challenges"][0]["id"], json!(null));
    assert_eq!(failed["error"]["data"]["x402"]["accepts"], accepts);
    // A malformed credential and two payments at once: invalid params, never a result.
    let malformed = buy_call(&mcp, 8, slug, json!({"org.paymentauth/credential": {"challenge": 1}})).await;
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
    assert_eq!(malformed["error"]["data"]["problem"]["type"], "https://paymentauth.org/problems/malformed-credential");
    let both = json!({"org.paymentauth/credential": tests::mpp::credential_value(&challenge, &accepts[0], &key),
                      "x402/payment": {"x402Version": 2}});
    assert_eq!(buy_call(&mcp, 9, slug, both).await["error"]["code"], -32602);
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 2, "one x402 and one MPP purchase");

    // Declaring nothing, and in the legacy era (whose requests carry no capabilities: a
    // stateless server never sees what initialize declared): x402's tool-result binding, which
    // every older client reads, with MPP's challenges in _meta.
    let plain = buy_call(&mcp, 10, slug, json!({})).await;
    assert_eq!(plain["result"]["isError"], true, "{plain}");
    assert_eq!(plain["result"]["resultType"], "complete");
    assert_eq!(structured(&plain["result"])["accepts"], accepts);
    assert_eq!(plain["result"]["_meta"]["org.paymentauth/payment-required"]["httpStatus"], 402);
    let legacy = client()
        .post(gate.url("/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", ACCEPT)
        .body(
            json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "comprar_estudio",
                   "arguments": {"slug": slug}, "_meta": mpp_capable()}})
            .to_string(),
        )
        .send()
        .await
        .expect("POST");
    let legacy = json_of(legacy).await;
    assert_eq!(legacy["result"]["isError"], true, "legacy era: {legacy}");
    assert!(legacy["result"].get("resultType").is_none());
}
