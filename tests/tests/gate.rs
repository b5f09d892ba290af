//! End to end: the real gate on an ephemeral port over the real `dist/`, walked as a buyer
//! would, with real secp256k1 payments settled by the local facilitator (in-process and over
//! HTTP), and every bad input the gate must refuse without delivering or charging.

mod common;

use std::sync::Arc;

use common::gate::*;
use common::{SLUGS, built, read_json, sha256_hex};
use gate::x402::header::{decode_json, encode_json};
use gate::x402::{PaymentRequired, SettlementResponse};
use serde_json::{Value, json};

async fn get(client: &reqwest::Client, url: &str) -> reqwest::Response {
    client.get(url).send().await.expect("request")
}

async fn json_of(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.expect("body");
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).map(|v| v.to_str().expect("ascii header").to_owned())
}

/// Asserts a JSON error with a code and a non-empty Spanish message.
async fn expect_error(response: reqwest::Response, status: u16) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    assert!(header(&response, "content-type").unwrap_or_default().starts_with("application/json"));
    let body = json_of(response).await;
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
    assert!(body["mensaje"].as_str().is_some_and(|m| m.len() > 10), "{body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn free_routes_are_served_from_memory_with_etags_and_cors() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let manifest = read_json(&dist.join("gate.json"));
    let routes = manifest["rutas"].as_object().expect("rutas");
    assert!(routes.len() >= 16, "{} routes", routes.len());
    for (url, route) in routes {
        let response = get(&client, &gate.url(url)).await;
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(header(&response, "content-type").as_deref(), route["tipo"].as_str(), "{url}");
        assert_eq!(header(&response, "etag").as_deref(), route["etag"].as_str(), "{url}");
        assert_eq!(header(&response, "access-control-allow-origin").as_deref(), Some("*"));
        assert_eq!(
            header(&response, "access-control-expose-headers").as_deref(),
            Some("PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate, Payment-Receipt")
        );
        let body = response.bytes().await.expect("body");
        let file = std::fs::read(dist.join(route["archivo"].as_str().expect("archivo"))).expect("file");
        assert_eq!(body.as_ref(), file.as_slice(), "{url} serves its file");

        let etag = route["etag"].as_str().expect("etag");
        let cached = client.get(gate.url(url)).header("If-None-Match", etag).send().await.expect("304");
        assert_eq!(cached.status(), 304, "{url}");
        assert!(cached.bytes().await.expect("body").is_empty());

        let head = client.head(gate.url(url)).send().await.expect("head");
        assert_eq!(head.status(), 200);
        assert_eq!(header(&head, "content-length"), Some(file.len().to_string()), "{url}");
        assert!(head.bytes().await.expect("body").is_empty(), "HEAD has no body");
    }
    let index = json_of(get(&client, &gate.url("/")).await).await;
    assert_eq!(index["estudios_disponibles"], 9);
    let trailing = get(&client, &gate.url("/catalogo/")).await;
    assert_eq!(trailing.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_paths_and_wrong_methods_get_json_errors() {
    let gate = start_local(built());
    let client = client();
    expect_error(get(&client, &gate.url("/no-existe")).await, 404).await;
    expect_error(get(&client, &gate.url("/estudio/no-existe")).await, 404).await;
    expect_error(get(&client, &gate.url("/estudio/no-existe/ficha")).await, 404).await;
    let post = client.post(gate.url("/catalogo")).body("{}").send().await.expect("post");
    assert_eq!(header(&post, "allow").as_deref(), Some("GET, HEAD, OPTIONS"));
    expect_error(post, 405).await;
    let delete = client.delete(gate.url("/estudio/banca-2026")).send().await.expect("delete");
    expect_error(delete, 405).await;
    let preflight =
        client.request(reqwest::Method::OPTIONS, gate.url("/estudio/banca-2026")).send().await.expect("options");
    assert_eq!(preflight.status(), 204);
    assert!(header(&preflight, "access-control-allow-headers").unwrap_or_default().contains("PAYMENT-SIGNATURE"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_ranks_by_topic_industry_country_and_brand() {
    let gate = start_local(built());
    let client = client();
    let search = |q: &str| {
        let url = reqwest::Url::parse_with_params(&gate.url("/buscar"), [("q", q)]).expect("url");
        let client = client.clone();
        async move { json_of(client.get(url).send().await.expect("search")).await }
    };
    let first = |v: &Value| v["resultados"][0]["slug"].as_str().unwrap_or_default().to_owned();

    let banks = search("bancos billeteras virtuales").await;
    assert_eq!(first(&banks), "banca-2026", "{banks}");
    let brand = search("galicia").await;
    assert_eq!(first(&brand), "banca-2026");
    assert_eq!(brand["resultados"][0]["marcas_coincidentes"], json!(["Banco Galicia"]));
    assert_eq!(search("CÓRDOBA sierras").await["resultados"][0]["slug"], "turismo-sierras-cordoba-2026");
    assert_eq!(search("cordoba SIERRAS").await, {
        let mut v = search("Córdoba sierras").await;
        v["q"] = json!("cordoba SIERRAS");
        v
    });
    let hotels = search("hoteles").await;
    assert_eq!(first(&hotels), "cadenas-hoteleras-cono-sur-2026");
    let result = &hotels["resultados"][0];
    assert!(result["por_que"].as_array().is_some_and(|w| !w.is_empty()));
    assert!(
        result["urls"]["comprar"].as_str().is_some_and(|u| u.ends_with("/estudio/cadenas-hoteleras-cono-sur-2026"))
    );
    assert_eq!(search("zzzxxyy").await["total"], 0);

    expect_error(get(&client, &gate.url("/buscar")).await, 400).await;
    expect_error(get(&client, &gate.url("/buscar?q=")).await, 400).await;
    expect_error(get(&client, &gate.url("/buscar?q=%20%20")).await, 400).await;
    let long = format!("/buscar?q={}", "a".repeat(10 * 1024));
    expect_error(get(&client, &gate.url(&long)).await, 400).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unpaid_requests_get_402_with_the_same_object_in_header_and_body() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    for slug in SLUGS {
        for (query, view) in [("", "completo"), ("?vista=completo", "completo"), ("?vista=resumen", "resumen")] {
            let response = get(&client, &gate.url(&format!("/estudio/{slug}{query}"))).await;
            assert_eq!(response.status(), 402);
            let encoded = header(&response, "payment-required").expect("PAYMENT-REQUIRED");
            let from_header: Value = decode_json(&encoded).expect("standard base64 JSON");
            let body = json_of(response).await;
            assert_is_the_header_form_of(&from_header, &body["x402"]);
            let required: PaymentRequired = serde_json::from_value(from_header.clone()).expect("typed");
            assert_eq!(required.x402_version, 2);
            assert_eq!(required.resource.url, format!("{BUILT_BASE_URL}/estudio/{slug}?vista={view}"));
            let accepts = &required.accepts;
            assert_eq!(accepts.len(), 1);
            assert_eq!(accepts[0].amount, "990000");
            assert_eq!(accepts[0].network, "eip155:84532");
            assert_eq!(accepts[0].asset, "0x036CbD53842c5426634e7929541eC2318f3dCF7e");
            assert_eq!(accepts[0].extra, Some(json!({"name": "USDC", "version": "2"})));
            assert_eq!(from_header["accepts"][0], accepted_of(dist, slug, view));
            assert!(body["mensaje"].as_str().is_some_and(|m| m.contains("0.99")));
            assert_carries_what_pays_and_names_the_whole_guide(&client, &gate, slug, &body).await;
        }
    }
    expect_error(get(&client, &gate.url("/estudio/banca-2026?vista=todo")).await, 400).await;
}

/// A JSON 402's `como_comprar` is what pays now, as the study's sheet states it (price, networks,
/// the steps, MPP in one line), and names the sheet whose `como_comprar` is the whole guide: the
/// guide stays within 3 KB and the body within 9 KB (15.7 KB, 10 KB of guide, before issue 47's
/// last change), most of it the x402 object's extensions (Bazaar's schemas, the signed offers).
async fn assert_carries_what_pays_and_names_the_whole_guide(
    client: &reqwest::Client,
    gate: &TestGate,
    slug: &str,
    body: &Value,
) {
    let size = serde_json::to_vec(body).expect("JSON").len();
    let guide = serde_json::to_vec(&body["como_comprar"]).expect("JSON").len();
    assert!(size <= 9 * 1024 && guide <= 3 * 1024, "{slug}: a 402 body of {size} bytes, {guide} of them the guide");
    let block = &body["como_comprar"];
    let sheet_url = block["guia_completa"]["url"].as_str().expect("guia_completa.url");
    assert_eq!(sheet_url, format!("{BUILT_BASE_URL}/estudio/{slug}/ficha"));
    let sheet = json_of(get(client, &gate.url(&format!("/estudio/{slug}/ficha"))).await).await;
    let whole = &sheet["como_comprar"];
    assert_eq!(block["guia_completa"]["campo"], "como_comprar");
    for key in ["protocolo", "precio_usd", "monto_atomico", "redes", "pasos", "tope_de_tu_cliente"] {
        assert_eq!(block[key], whole[key], "{slug}: como_comprar.{key}");
    }
    assert_eq!(block["mpp"]["resumen"], whole["mpp"]["resumen"]);
    assert_eq!(block["en"]["steps"], whole["en"]["steps"]);
    for only_in_the_sheet in ["reintentos", "si_ya_lo_compro", "recibo_firmado", "si_la_liquidacion_es_incierta"] {
        assert!(block.get(only_in_the_sheet).is_none() && whole[only_in_the_sheet].is_string(), "{only_in_the_sheet}");
    }
    assert!(whole["mpp"]["pasos"].is_array() && block["mpp"].get("pasos").is_none());
}

/// The `PAYMENT-REQUIRED` object is the body's `x402` object less what only discovery needs:
/// the same version, error, requirements and resource URL; of the extensions, the
/// `payment-identifier` and `sign-in-with-x` members a client reads to pay; the Bazaar
/// declaration, the signed offers and the schemas only in the body.
fn assert_is_the_header_form_of(header: &Value, whole: &Value) {
    for key in ["x402Version", "error", "accepts"] {
        assert_eq!(header[key], whole[key], "{key}");
    }
    for key in ["url", "description", "mimeType"] {
        assert_eq!(header["resource"][key], whole["resource"][key], "resource.{key}");
    }
    assert!(whole["resource"]["serviceName"].is_string(), "the body names the service for catalogs");
    assert!(header["resource"].get("serviceName").is_none() && header["resource"].get("tags").is_none());
    let names = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
    assert_eq!(names(&header["extensions"]), ["payment-identifier", "sign-in-with-x"]);
    assert_eq!(names(&whole["extensions"]), ["bazaar", "offer-receipt", "payment-identifier", "sign-in-with-x"]);
    assert_eq!(
        header["extensions"]["payment-identifier"],
        json!({"info": whole["extensions"]["payment-identifier"]["info"]})
    );
    let siwx = &whole["extensions"]["sign-in-with-x"];
    assert_eq!(
        header["extensions"]["sign-in-with-x"],
        json!({"info": siwx["info"], "supportedChains": siwx["supportedChains"]})
    );
    assert!(siwx["schema"].is_object() && whole["extensions"]["bazaar"]["schema"].is_object());
}

/// The bytes of an answer's head (status line, header lines, the blank line), read from a raw
/// socket as a proxy in front of the gate reads them.
fn head_of(server: &str, request: &str) -> String {
    use std::io::Write;
    let address = server.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream.write_all(request.as_bytes()).expect("send");
    common::read_answer(&mut stream).0
}

/// Every unpaid 402's head fits in 4 KB: what nginx reads a response head into by default
/// (`proxy_buffer_size`, one memory page), for every study, view and kind of `Accept`, GET and
/// HEAD, with the MPP challenge, as the gate sends it; a refused payment's 402 and the MCP
/// tool's unpaid answer too.
#[test]
fn every_402_head_fits_in_4_kb() {
    const BUDGET: usize = 4096;
    let gate = start_local(built());
    let server = gate.server.url();
    let accepts = [
        None,
        Some("application/json"),
        Some("*/*"),
        Some("text/html"),
        Some("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"),
    ];
    let mut largest = (0, String::new());
    for slug in SLUGS {
        for query in ["", "?vista=completo", "?vista=resumen"] {
            for accept in accepts {
                for method in ["GET", "HEAD"] {
                    let accept_line = accept.map(|a| format!("Accept: {a}\r\n")).unwrap_or_default();
                    let request =
                        format!("{method} /estudio/{slug}{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n{accept_line}\r\n");
                    let head = if method == "HEAD" { head_only(&server, &request) } else { head_of(&server, &request) };
                    let what = format!("{method} /estudio/{slug}{query} Accept {accept:?}");
                    assert!(head.starts_with("HTTP/1.1 402 "), "{what}: {head}");
                    let lower = head.to_ascii_lowercase();
                    assert!(
                        lower.contains("\r\npayment-required: ") && lower.contains("\r\nwww-authenticate: payment "),
                        "{what}"
                    );
                    assert!(head.len() <= BUDGET, "{what}: a head of {} bytes, over {BUDGET}:\n{head}", head.len());
                    if head.len() > largest.0 {
                        largest = (head.len(), what);
                    }
                }
            }
        }
    }
    eprintln!("the largest unpaid 402 head: {} bytes ({})", largest.0, largest.1);
    // A refused payment (a signature that is not base64): its 402 carries the same header.
    let refused = head_of(
        &server,
        "GET /estudio/banca-2026 HTTP/1.1\r\nHost: 127.0.0.1\r\nPAYMENT-SIGNATURE: no-es-base64!\r\n\r\n",
    );
    assert!(refused.starts_with("HTTP/1.1 400 ") && refused.len() <= BUDGET, "{refused}");
    // The MCP tool's 402 travels in the body: its head is small.
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"comprar_estudio","arguments":{"slug":"banca-2026"}}}"#;
    let mcp = head_of(
        &server,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{call}",
            call.len()
        ),
    );
    assert!(mcp.starts_with("HTTP/1.1 200 ") && mcp.len() <= BUDGET, "{mcp}");
}

/// The head of an answer to HEAD (no body follows, whatever `Content-Length` says).
fn head_only(server: &str, request: &str) -> String {
    use std::io::{Read, Write};
    let address = server.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream.write_all(request.as_bytes()).expect("send");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("answer head");
        head.push(byte[0]);
    }
    String::from_utf8(head).expect("UTF-8 head")
}

/// Buys one view and checks the delivery, the settlement and both downloads.
async fn buy_and_check(gate: &TestGate, client: &reqwest::Client, dist: &std::path::Path, slug: &str, view: &str) {
    let key = signer(DEV_KEY);
    let accepted = accepted_of(dist, slug, view);
    let response = client
        .get(gate.url(&format!("/estudio/{slug}?vista={view}")))
        .header("PAYMENT-SIGNATURE", signed_header(&accepted, &key, |_, _| {}))
        .send()
        .await
        .expect("paid request");
    assert_eq!(response.status(), 200, "{slug} {view}");
    let settlement: SettlementResponse =
        decode_json(&header(&response, "payment-response").expect("PAYMENT-RESPONSE")).expect("settlement");
    assert!(settlement.success);
    assert_eq!(settlement.network, "eip155:84532");
    assert!(settlement.transaction.starts_with("0x") && settlement.transaction.len() == 66);
    assert_eq!(settlement.payer.as_deref().map(str::to_lowercase), Some(format!("{:#x}", key.address())));
    let body = json_of(response).await;
    assert_eq!(body["estudio"], slug);
    assert_eq!(body["vista"], view);
    let content_key = if view == "resumen" { "resumen" } else { "paquete" };
    assert!(body[content_key].is_object(), "{slug} {view} carries {content_key}");
    if view == "completo" {
        let answers = body["paquete"]["respuestas"].as_array().map_or(0, Vec::len);
        assert!(answers > 100, "{slug}: the full package has every answer ({answers})");
    } else {
        assert!(body["resumen"].get("respuestas").is_none(), "the summary has no answers");
    }
    let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
    for kind in ["json", "zip"] {
        let link = &body["acceso"]["descargas"][kind];
        let url = gate.local_url(link["url"].as_str().expect("url"));
        let download = get(client, &url).await;
        assert_eq!(download.status(), 200, "{slug} {kind}");
        let length: usize = header(&download, "content-length").and_then(|l| l.parse().ok()).expect("length");
        let bytes = download.bytes().await.expect("download");
        assert_eq!(bytes.len(), length);
        assert_eq!(sha256_hex(&bytes), sheet["archivos"][kind]["sha256"].as_str().expect("sha"), "{slug} {kind}");
        assert_eq!(link["sha256"], sheet["archivos"][kind]["sha256"]);
    }
    assert!(body["acceso"]["vence"].as_str().is_some_and(|v| v.ends_with('Z')));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_study_is_bought_in_both_views_with_the_in_process_facilitator() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    for slug in SLUGS {
        for view in ["completo", "resumen"] {
            buy_and_check(&gate, &client, dist, slug, view).await;
        }
    }
    let local = gate.local.as_ref().expect("local");
    assert_eq!(local.settlements(), 18);
    let payer = signer(DEV_KEY).address();
    let pay_to = address("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    assert_eq!(local.balance("eip155:84532", payer), units(100_000_000 - 18 * 990_000));
    assert_eq!(local.balance("eip155:84532", pay_to), units(100_000_000 + 18 * 990_000));
    let log =
        std::fs::read_to_string(gate.data.path().join(gate::sales::journal::JOURNAL_FILE)).expect("sales journal");
    let steps: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).expect("one JSON record a line")).collect();
    for step in ["aceptado", "liquidado", "entregado"] {
        assert_eq!(steps.iter().filter(|r| r["evento"] == step).count(), 18, "{step}");
    }
    assert!(!log.contains("signature"), "the journal keeps no signatures");
    let report = gate::sales::report::report(gate.data.path()).expect("report");
    assert_eq!(report.totals.general.sales, 18);
    assert_eq!(report.totals.general.usdc, "17.82");
    assert_eq!(report.totals.per_study.len(), 9);
    assert!(report.totals.per_study.values().all(|t| t.sales == 2 && t.usdc == "1.98"));
    assert_eq!(report.totals.per_network["eip155:84532"].sales, 18);
    assert!(report.pending.is_empty() && report.warnings.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_study_is_bought_through_the_local_facilitator_over_http() {
    let dist = built();
    let (_facilitator, client_side) = start_facilitator_over_http();
    let gate = start_with(dist, client_side);
    let client = client();
    for slug in SLUGS {
        for view in ["completo", "resumen"] {
            buy_and_check(&gate, &client, dist, slug, view).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_client_pays_like_an_official_client() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let purchase = gate::buyer::buy(&client, &gate.url("/estudio/farma-2026?vista=resumen"), &signer(DEV_KEY), now())
        .await
        .expect("purchase");
    assert_eq!(purchase.status, 200);
    assert!(purchase.payment_response.as_ref().is_some_and(|s| s.success));
    let zip = &purchase.body["acceso"]["descargas"]["zip"];
    let out = tempfile::tempdir().expect("out");
    let done = gate::buyer::download_verified(
        &client,
        &gate.local_url(zip["url"].as_str().expect("url")),
        zip["sha256"].as_str().expect("sha"),
        &out.path().join("farma-2026.zip"),
    )
    .await
    .expect("verified download");
    assert_eq!(done.bytes, zip["bytes"].as_u64().expect("bytes"));
    assert_eq!(done.resumes, 0);
    // A wrong expected hash is caught.
    let wrong = gate::buyer::download_verified(
        &client,
        &gate.local_url(zip["url"].as_str().expect("url")),
        &"0".repeat(64),
        &out.path().join("x.zip"),
    )
    .await;
    assert!(wrong.is_err());
    assert!(!out.path().join("x.zip").exists() && !out.path().join("x.zip.parcial").exists(), "nothing kept");
}

/// Sends a `PAYMENT-SIGNATURE` value to banca-2026 and returns the response.
async fn pay_with(gate: &TestGate, client: &reqwest::Client, value: &str) -> reqwest::Response {
    client.get(gate.url("/estudio/banca-2026")).header("PAYMENT-SIGNATURE", value).send().await.expect("request")
}

/// A refused payment: the status, a JSON error, the 402 object again, and no study.
async fn expect_refused(response: reqwest::Response, status: u16, code_part: &str) -> Value {
    assert!(header(&response, "payment-response").is_none() || status == 402);
    let body = expect_error(response, status).await;
    assert!(body["error"].as_str().is_some_and(|e| e.contains(code_part)), "expected {code_part}: {body}");
    assert!(body.get("paquete").is_none() && body.get("acceso").is_none(), "nothing delivered");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_payment_headers_are_400_json() {
    let gate = start_local(built());
    let client = client();
    let b64 = |text: &str| encode_json(&serde_json::from_str::<Value>(text).expect("json"));
    let raw_b64 = |bytes: &[u8]| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(bytes)
    };
    let cases: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("garbage", "%%%not base64%%%".into()),
        ("url-safe base64", raw_b64(b"{\"x402Version\":2}??>>").replace('+', "-").replace('/', "_")),
        ("oversized", "A".repeat(20 * 1024)),
        ("not JSON", raw_b64(b"hola, esto no es JSON")),
        ("wrong version", b64(r#"{"x402Version":1,"accepted":{},"payload":{}}"#)),
        ("no version", b64(r#"{"accepted":{},"payload":{}}"#)),
        ("wrong shape", b64(r#"{"x402Version":2,"payload":{}}"#)),
    ];
    for (name, value) in cases {
        let response = pay_with(&gate, &client, &value).await;
        assert_eq!(response.status(), 400, "{name}");
        let body = expect_error(response, 400).await;
        assert!(body["x402"]["accepts"].is_array(), "{name}: the 402 object comes back");
    }
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payments_that_do_not_match_or_do_not_verify_are_refused() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let key = signer(DEV_KEY);
    let accepted = accepted_of(dist, "banca-2026", "completo");

    // `accepted` must deep-equal one of our offers.
    for (field, value) in [
        ("network", json!("eip155:8453")),
        ("asset", json!("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")),
        ("payTo", json!("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")),
        ("amount", json!("1")),
        ("maxTimeoutSeconds", json!(3600)),
    ] {
        let mut other = accepted.clone();
        other[field] = value;
        let header = signed_header(&other, &key, |_, _| {});
        expect_refused(pay_with(&gate, &client, &header).await, 402, "invalid_payment_requirements").await;
    }
    // The other view's requirement is not this view's.
    let summary = accepted_of(dist, "banca-2026", "resumen");
    assert_eq!(summary, accepted, "same price, same requirement: accepted is per network, not per view");

    let other_key = signer(OTHER_KEY);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "signed by another key",
            {
                let p = signed_payload(&accepted, &other_key, |_, _| {});
                let mut v = serde_json::to_value(&p).expect("v");
                v["payload"]["authorization"]["from"] = json!(format!("{:#x}", key.address()));
                encode_json(&v)
            },
            "signature",
        ),
        (
            "signed under Base mainnet's domain",
            signed_header(&accepted, &key, |_, d| {
                d.name = "USD Coin".into();
                d.chain_id = 8453;
            }),
            "signature",
        ),
        ("signed for another chain", signed_header(&accepted, &key, |_, d| d.chain_id = 8453), "signature"),
        ("one unit short", signed_header(&accepted, &key, |a, _| a.value = units(989_999)), "value"),
        ("one unit over", signed_header(&accepted, &key, |a, _| a.value = units(990_001)), "value"),
        (
            "expired",
            signed_header(&accepted, &key, |a, _| {
                a.valid_after = now() - 1000;
                a.valid_before = now() - 1;
            }),
            "valid_before",
        ),
        ("too close to expiry", signed_header(&accepted, &key, |a, _| a.valid_before = now() + 2), "valid_before"),
        ("absurdly far", signed_header(&accepted, &key, |a, _| a.valid_before = now() + 86_400 * 30), "valid_before"),
        ("not yet valid", signed_header(&accepted, &key, |a, _| a.valid_after = now() + 600), "valid_after"),
        (
            "another recipient",
            signed_header(&accepted, &key, |a, _| a.to = address("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")),
            "recipient",
        ),
    ];
    for (name, value, code) in cases {
        let response = pay_with(&gate, &client, &value).await;
        let status = response.status().as_u16();
        assert_eq!(status, 402, "{name}");
        let body = expect_refused(response, 402, code).await;
        assert!(body["x402"]["error"].is_string(), "{name}");
    }
    // A payload that is JSON but not an EIP-3009 authorization is malformed.
    let mut broken = serde_json::to_value(signed_payload(&accepted, &key, |_, _| {})).expect("v");
    broken["payload"]["signature"] = json!("0x1234");
    expect_refused(pay_with(&gate, &client, &encode_json(&broken)).await, 400, "invalid_payload").await;
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 0, "nothing was settled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_payment_is_settled_once_in_sequence_and_concurrently() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let key = signer(DEV_KEY);
    let accepted = accepted_of(dist, "banca-2026", "completo");

    // Repeated in sequence: the buyer who lost the answer gets the study again, same settlement.
    let header = signed_header(&accepted, &key, |_, _| {});
    let first = pay_with(&gate, &client, &header).await;
    assert_eq!(first.status(), 200);
    let first_tx = json_of(first).await["liquidacion"]["transaccion"].clone();
    let again = pay_with(&gate, &client, &header).await;
    assert_eq!(again.status(), 200);
    assert_eq!(json_of(again).await["liquidacion"]["transaccion"], first_tx);
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 1);
    // The same authorization for another study is a conflict, not a sale.
    let other = gate.url("/estudio/banca-2026?vista=resumen");
    let response = client.get(&other).header("PAYMENT-SIGNATURE", &header).send().await.expect("request");
    expect_refused(response, 409, "pago_ya_usado").await;

    // Fired concurrently: one settlement; the others are told it is in progress or get it again.
    let header = signed_header(&accepted, &key, |_, _| {});
    let gate = Arc::new(gate);
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (gate, client, header) = (Arc::clone(&gate), client.clone(), header.clone());
            tokio::spawn(async move { pay_with(&gate, &client, &header).await.status().as_u16() })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.expect("task"));
    }
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(statuses.iter().all(|s| *s == 200 || *s == 409), "{statuses:?}");
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_never_buys_and_leaves_the_payment_usable() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let accepted = accepted_of(dist, "banca-2026", "completo");
    let payment_header = signed_header(&accepted, &signer(DEV_KEY), |_, _| {});
    let url = gate.url("/estudio/banca-2026");
    let journal = gate.data.path().join(gate::sales::journal::JOURNAL_FILE);
    let journal_len = || std::fs::metadata(&journal).map(|m| m.len()).unwrap_or(0);
    let before = journal_len();
    for payment in [Some(payment_header.as_str()), None] {
        let mut request = client.head(&url);
        if let Some(payment) = payment {
            request = request.header("PAYMENT-SIGNATURE", payment);
        }
        let head = request.send().await.expect("head");
        assert_eq!(head.status(), 402, "HEAD answers the unpaid 402 ({payment:?})");
        assert!(header(&head, "payment-required").is_some());
        assert!(header(&head, "payment-response").is_none());
        assert!(head.bytes().await.expect("body").is_empty());
    }
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 0, "HEAD settled nothing");
    assert_eq!(journal_len(), before, "HEAD wrote no journal line");
    let bought = pay_with(&gate, &client, &payment_header).await;
    assert_eq!(bought.status(), 200, "the payment still buys with a GET");
    assert_eq!(gate.local.as_ref().expect("local").settlements(), 1);
}

/// A facilitator that misbehaves in one way, on a real socket.
async fn faulty_facilitator(behaviour: &'static str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = socket.read(&mut buf).await;
                if behaviour == "reset" {
                    // Linger 0: closing sends RST instead of FIN (and cannot block).
                    #[allow(deprecated)]
                    let _ = socket.set_linger(Some(std::time::Duration::ZERO));
                    return;
                }
                let (status, body) = match behaviour {
                    "garbage" => ("200 OK", "<html>no soy JSON".to_owned()),
                    "slow" => {
                        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
                        ("200 OK", "{}".to_owned())
                    }
                    "500" => ("500 Internal Server Error", "{\"error\":\"boom\"}".to_owned()),
                    _ => (
                        "200 OK",
                        json!({"success": false, "errorReason": "insufficient_funds", "transaction": "", "network": "eip155:84532"})
                            .to_string(),
                    ),
                };
                let response = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facilitator_failures_deliver_nothing_and_the_gate_keeps_serving() {
    let dist = built();
    let client = client();
    let key = signer(DEV_KEY);
    let accepted = accepted_of(dist, "banca-2026", "completo");
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", l.local_addr().expect("addr"))
    };
    // Only a facilitator never reached, or one that refused on a check, proves nothing moved;
    // everything else may come after the money moved and is left to reconcile.
    let cases = [
        ("unreachable", closed, 503, "facilitador_no_disponible"),
        ("slow", faulty_facilitator("slow").await, 503, "liquidacion_incierta"),
        ("500", faulty_facilitator("500").await, 503, "liquidacion_incierta"),
        ("reset", faulty_facilitator("reset").await, 503, "liquidacion_incierta"),
        ("garbage", faulty_facilitator("garbage").await, 503, "liquidacion_incierta"),
        ("success false", faulty_facilitator("false").await, 402, "insufficient_funds"),
    ];
    for (name, url, status, code) in cases {
        let timeout = std::time::Duration::from_millis(if name == "slow" { 3000 } else { 800 });
        let facilitator = gate::facilitator::http::HttpFacilitator::new(&url, None, timeout).expect("client");
        let gate = Arc::new(start_with(dist, Arc::new(facilitator)));
        let header = signed_header(&accepted, &key, |_, _| {});
        let purchase = {
            let (gate, client, header) = (Arc::clone(&gate), client.clone(), header.clone());
            tokio::spawn(async move { pay_with(&gate, &client, &header).await })
        };
        if name == "slow" {
            // While the purchase waits on the facilitator, free routes keep answering.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            for _ in 0..20 {
                assert_eq!(get(&client, &gate.url("/catalogo")).await.status(), 200);
            }
            assert!(!purchase.is_finished(), "free routes answered while the purchase was still waiting");
        }
        let response = purchase.await.expect("task");
        if name == "success false" {
            let settlement: SettlementResponse =
                decode_json(&header_of(&response, "payment-response")).expect("failed settlement rides along");
            assert!(!settlement.success);
        }
        let uncertain = code == "liquidacion_incierta";
        let asks_payment = response.headers().get("payment-required").is_some();
        assert_eq!(asks_payment, status == 402, "{name}: a new payment is asked for only when refused for certain");
        let body = expect_refused(response, status, code).await;
        assert_eq!(body["x402"]["accepts"].is_array(), !uncertain, "{name}");
        if uncertain {
            assert!(body["mensaje"].as_str().is_some_and(|m| m.contains("misma PAYMENT-SIGNATURE")), "{name}: {body}");
        }
        // Still serving.
        assert_eq!(get(&client, &gate.url("/catalogo")).await.status(), 200, "{name}");
        assert_eq!(get(&client, &gate.url("/estudio/banca-2026")).await.status(), 402, "{name}");
        // The journal says it was accepted and failed, and no sale.
        let report = gate::sales::report::report(gate.data.path()).expect("report");
        assert_eq!(report.totals.general.sales, 0, "{name}");
        assert_eq!(report.failed.get(code), Some(&1), "{name}: {:?}", report.failed);
        // A facilitator that may have settled: left for reconciliation.
        assert_eq!(report.pending.len(), usize::from(uncertain), "{name}");
    }
}

fn header_of(response: &reqwest::Response, name: &str) -> String {
    header(response, name).unwrap_or_else(|| panic!("missing {name}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_links_refuse_anything_not_signed_for_that_file_and_time() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let links = links();
    let now = now();
    let exp = links.expiry(now);
    let good = links.link("banca-2026.zip", exp);
    assert_eq!(get(&client, &gate.url(&good)).await.status(), 200);

    let forged_far = now + 365 * 86_400;
    let bad = [
        format!("/descarga/../gate.json?vence={exp}&firma={}", links.sign("../gate.json", exp)),
        format!("/descarga/%2e%2e%2fgate.json?vence={exp}&firma={}", links.sign("%2e%2e%2fgate.json", exp)),
        format!("/descarga//etc/passwd?vence={exp}&firma={}", links.sign("/etc/passwd", exp)),
        format!("/descarga/banca-2026.zip%00.json?vence={exp}&firma={}", links.sign("banca-2026.zip%00.json", exp)),
        format!("/descarga/otro-2026.zip?vence={exp}&firma={}", links.sign("otro-2026.zip", exp)),
        format!("/descarga/banca-2026.zip?vence=mañana&firma={}", links.sign("banca-2026.zip", exp)),
        format!("/descarga/banca-2026.zip?vence=-5&firma={}", links.sign("banca-2026.zip", exp)),
        format!("/descarga/banca-2026.zip?vence={}&firma={}", now - 10, links.sign("banca-2026.zip", now - 10)),
        format!("/descarga/banca-2026.zip?vence={forged_far}&firma={}", "ab".repeat(32)),
        format!("/descarga/banca-2026.zip?vence={exp}&firma={}", links.sign("banca-2026.json", exp)),
        format!("/descarga/banca-2026.zip?vence={exp}"),
        "/descarga/banca-2026.zip".to_owned(),
    ];
    for path in bad {
        let response = get(&client, &gate.url(&path)).await;
        let status = response.status().as_u16();
        // The URL parser may normalize `..` away before the request leaves; whatever arrives is refused.
        assert!(status == 403 || status == 404, "{path}: {status}");
        let body = json_of(response).await;
        assert!(body["error"].is_string(), "{path}");
        assert!(body.get("paquete").is_none());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_downloads_stream_with_content_length() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let links = links();
    let exp = links.expiry(now());
    let manifest = read_json(&dist.join("gate.json"));
    let biggest = manifest["descargas"]
        .as_object()
        .expect("descargas")
        .iter()
        .max_by_key(|(_, d)| d["bytes"].as_u64())
        .map(|(name, d)| (name.clone(), d.clone()))
        .expect("one");
    let response = get(&client, &gate.url(&links.link(&biggest.0, exp))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "content-type").as_deref(), biggest.1["tipo"].as_str());
    assert_eq!(header(&response, "content-length"), Some(biggest.1["bytes"].to_string()));
    let bytes = response.bytes().await.expect("body");
    assert_eq!(sha256_hex(&bytes), biggest.1["sha256"].as_str().expect("sha"));
}
