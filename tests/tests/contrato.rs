//! The published contract holds: every answer a real gate gives (free documents, searches,
//! 402s, real purchases of both views, downloads whole and by range, 416, 403, did.json,
//! `/salud`, `/listo`, and the facilitator's failures as 502 and 503) is declared in
//! `openapi.json` under its path and status, with its content type and headers, and its body
//! validates against the declared schema (JSON Schema 2020-12, by the `jsonschema` package of
//! `tests/tools/requirements.txt`).

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use common::gate::*;
use common::{built, read_json};
use gate::facilitator::http::HttpFacilitator;
use gate_http::response::{Body, Reply};
use gate_http::{Handler, Request, spawn};
use serde_json::{Value, json};

/// Validates `body` against `schema` (which may `$ref` the spec's components); the errors.
fn schema_errors(spec: &Value, schema: &Value, body: &Value) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp");
    let wrapped = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": spec["components"],
        "allOf": [schema],
    });
    let (schema_file, body_file) = (dir.path().join("schema.json"), dir.path().join("body.json"));
    std::fs::write(&schema_file, serde_json::to_vec(&wrapped).expect("json")).expect("write");
    std::fs::write(&body_file, serde_json::to_vec(body).expect("json")).expect("write");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/validate_json_schema.py");
    let output = Command::new("python3").arg(script).arg(&schema_file).arg(&body_file).output().expect("python3 runs");
    assert!(
        output.status.success(),
        "validate_json_schema.py failed (install tests/tools/requirements.txt):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let errors: Value = serde_json::from_slice(&output.stdout).expect("error list");
    errors.as_array().expect("list").iter().map(|e| format!("{}: {}", e["path"], e["message"])).collect()
}

/// The contract of one operation's answer, checked against a real response.
struct Contract {
    spec: Value,
}

impl Contract {
    /// Asserts `response` (to GET `template`) is declared with its status, its content type and
    /// the headers declared for it, and that a JSON body validates. Returns the body as JSON
    /// (null when it is not JSON).
    async fn holds(&self, template: &str, response: reqwest::Response) -> Value {
        let status = response.status().as_u16();
        let at = format!("paths.{template}.get.responses.{status}");
        let declared = &self.spec["paths"][template]["get"]["responses"][status.to_string()];
        assert!(declared.is_object(), "openapi.json does not declare {at}");
        let headers = response.headers().clone();
        for name in declared["headers"].as_object().into_iter().flat_map(|h| h.keys()) {
            let optional = ["PAYMENT-RESPONSE", "Retry-After"].contains(&name.as_str());
            assert!(optional || headers.contains_key(name.as_str()), "{at}: header {name} declared, not sent");
        }
        let kind = headers.get("content-type").map(|v| v.to_str().expect("ascii")).unwrap_or_default();
        let media = kind.split(';').next().unwrap_or_default().trim().to_owned();
        let content = &declared["content"];
        if content.is_null() {
            return Value::Null;
        }
        let schema = &content[media.as_str()]["schema"];
        assert!(schema.is_object(), "{at}: content type {media} not declared (declared: {content})");
        let bytes = response.bytes().await.expect("body");
        if !media.ends_with("json") || schema["format"] == "binary" {
            return Value::Null;
        }
        let body: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{at}: body is not JSON: {e}"));
        let errors = schema_errors(&self.spec, schema, &body);
        assert!(errors.is_empty(), "{at}: the answer does not hold to the schema:\n{}\n{body:#}", errors.join("\n"));
        body
    }
}

/// A facilitator URL that points at the wrong place: every request gets an HTML 404.
struct Broken;

#[async_trait]
impl Handler for Broken {
    async fn handle(&self, _request: &Request<'_>) -> Reply {
        Reply::new(404, "text/html", Body::Bytes(b"<h1>404</h1>".to_vec().into()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_of_a_real_gate_holds_to_openapi_json() {
    let dist = built();
    let contract = Contract { spec: read_json(&dist.join("public/openapi.json")) };
    let gate = start_local(dist);
    let http = client();
    let get = |path: &str| http.get(gate.url(path)).send();

    contract.holds("/catalogo", get("/catalogo").await.expect("catalogo")).await;
    contract.holds("/buscar", get("/buscar?q=banca").await.expect("buscar")).await;
    contract.holds("/buscar", get("/buscar").await.expect("buscar sin q")).await;
    contract.holds("/estudio/{slug}/ficha", get("/estudio/banca-2026/ficha").await.expect("ficha")).await;
    contract.holds("/estudio/{slug}", get("/estudio/banca-2026").await.expect("402")).await;
    contract.holds("/estudio/{slug}", get("/estudio/banca-2026?vista=otra").await.expect("400")).await;
    contract.holds("/estudio/{slug}", get("/estudio/no-existe").await.expect("404")).await;
    contract.holds("/.well-known/did.json", get("/.well-known/did.json").await.expect("did")).await;
    contract.holds("/salud", get("/salud").await.expect("salud")).await;
    let ready = contract.holds("/listo", get("/listo").await.expect("listo")).await;
    assert_eq!(ready["listo"], true);

    // Real purchases of both views: the answer a generated client reads.
    let key = signer(DEV_KEY);
    let mut zip = None;
    for view in ["completo", "resumen"] {
        let accepted = accepted_of(dist, "farma-2026", view);
        let header = signed_header(&accepted, &key, |_, _| {});
        let response = http
            .get(gate.url(&format!("/estudio/farma-2026?vista={view}")))
            .header("PAYMENT-SIGNATURE", header)
            .send()
            .await
            .expect("purchase");
        assert_eq!(response.status(), 200);
        let body = contract.holds("/estudio/{slug}", response).await;
        for kind in ["json", "zip"] {
            let download = &body["acceso"]["descargas"][kind];
            assert!(download["url"].as_str().is_some_and(|u| u.contains("/descarga/")), "{download}");
        }
        zip = Some(body["acceso"]["descargas"]["zip"].clone());
    }

    // Its downloads: whole, a range, a range past the end, a forged link.
    let zip = zip.expect("a purchase");
    let link = gate.local_url(zip["url"].as_str().expect("url"));
    let path = link.trim_start_matches(&gate.server.url()).to_owned();
    contract.holds("/descarga/{archivo}", http.get(&link).send().await.expect("whole")).await;
    let part = http.get(&link).header("Range", "bytes=0-99").send().await.expect("part");
    assert_eq!(part.status(), 206);
    contract.holds("/descarga/{archivo}", part).await;
    let bytes = zip["bytes"].as_u64().expect("bytes");
    let past = http.get(&link).header("Range", format!("bytes={}-", bytes + 10)).send().await.expect("past");
    assert_eq!(past.status(), 416);
    contract.holds("/descarga/{archivo}", past).await;
    let forged = path.replace("firma=", "firma=0");
    contract.holds("/descarga/{archivo}", get(&forged).await.expect("forged")).await;

    // The facilitator unreachable (503) and refusing the request without an x402 answer (502):
    // nothing charged.
    let unreachable = HttpFacilitator::new("http://127.0.0.1:9", None, Duration::from_secs(2)).expect("client");
    let down = start_with(dist, Arc::new(unreachable));
    let broken_server = spawn(Arc::new(Broken), 1).expect("broken facilitator");
    let garbage = HttpFacilitator::new(&broken_server.url(), None, Duration::from_secs(2)).expect("client");
    let broken = start_with(dist, Arc::new(garbage));
    for (gate, status, code) in [(&down, 503, "facilitador_no_disponible"), (&broken, 502, "facilitador_con_error")] {
        let accepted = accepted_of(dist, "banca-2026", "resumen");
        let header = signed_header(&accepted, &key, |_, _| {});
        let response = http
            .get(gate.url("/estudio/banca-2026?vista=resumen"))
            .header("PAYMENT-SIGNATURE", header)
            .send()
            .await
            .expect("purchase");
        assert_eq!(response.status(), status);
        let body = contract.holds("/estudio/{slug}", response).await;
        assert_eq!(body["error"], code, "{body}");
    }
}

/// Every operation the gate serves is in openapi.json, and nothing it lists is missing.
#[test]
fn openapi_lists_the_operational_endpoints() {
    let spec = read_json(&built().join("public/openapi.json"));
    for path in ["/salud", "/listo", "/.well-known/did.json", "/descarga/{archivo}"] {
        assert!(spec["paths"][path]["get"].is_object(), "openapi lacks {path}");
    }
    let purchase = &spec["components"]["schemas"]["Compra"]["properties"]["acceso"]["properties"]["descargas"];
    assert_eq!(purchase["properties"]["zip"]["$ref"], "#/components/schemas/Descarga");
    let download = &spec["components"]["schemas"]["Descarga"]["required"];
    assert_eq!(download, &json!(["url", "archivo", "tipo", "bytes", "sha256"]));
    let paid = &spec["paths"]["/estudio/{slug}"]["get"]["responses"];
    for status in ["200", "400", "402", "404", "409", "429", "500", "502", "503"] {
        assert!(paid[status].is_object(), "the purchase lacks {status}");
    }
    let download = &spec["paths"]["/descarga/{archivo}"]["get"]["responses"];
    for status in ["200", "206", "403", "416"] {
        assert!(download[status].is_object(), "/descarga lacks {status}");
    }
}
