//! The MCP tools' declared schemas against their real answers, with a real JSON Schema
//! validator (the `jsonschema` package of `tests/tools/requirements.txt`, JSON Schema 2020-12,
//! as `tests/tests/contrato.rs` uses for `openapi.json`): a real gate on an ephemeral port lists
//! its tools on `/mcp` and `/mcp/catalogo`; every tool declares an `inputSchema` and an
//! `outputSchema`; arguments the input schema accepts are served and arguments it refuses are
//! refused by the gate (the two agree); every answer's `structuredContent` holds to the tool's
//! output schema, a paid `comprar_estudio` of each view, a past buyer's re-access, the
//! payment-required answer and every tool error among them (the MCP TypeScript SDK 1.x checks
//! error results too, so the output schema names every shape: the route's answer, the
//! contract's `PaymentRequired` for `comprar_estudio`, its `Error`).

mod common;

use std::path::Path;
use std::process::Command;

use common::gate::*;
use common::{SLUGS, built, read_json};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";
const VERSION: &str = "2025-11-25";

/// The errors of `document` against `schema` (standalone, or with `$ref`s into `components`).
fn errors(schema: &Value, components: &Value, document: &Value) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp");
    let wrapped = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": components,
        "allOf": [schema],
    });
    let (schema_file, document_file) = (dir.path().join("schema.json"), dir.path().join("document.json"));
    std::fs::write(&schema_file, serde_json::to_vec(&wrapped).expect("json")).expect("write");
    std::fs::write(&document_file, serde_json::to_vec(document).expect("json")).expect("write");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/validate_json_schema.py");
    let output = Command::new("python3").arg(script).arg(&schema_file).arg(&document_file).output().expect("python3");
    assert!(
        output.status.success(),
        "validate_json_schema.py failed (install tests/tools/requirements.txt):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found: Value = serde_json::from_slice(&output.stdout).expect("error list");
    found.as_array().expect("list").iter().map(|e| format!("{}: {}", e["path"], e["message"])).collect()
}

struct Mcp {
    http: reqwest::Client,
    url: String,
}

impl Mcp {
    async fn request(&self, method: &str, params: Value) -> Value {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT)
            .header("MCP-Protocol-Version", VERSION)
            .body(message.to_string())
            .send()
            .await
            .expect("POST");
        assert_eq!(response.status(), 200, "{method}");
        let body: Value = response.json().await.expect("JSON-RPC");
        assert!(body.get("error").is_none(), "{method}: {body}");
        body["result"].clone()
    }

    async fn call(&self, name: &str, arguments: &Value, meta: Option<Value>) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        self.request("tools/call", params).await
    }
}

/// Every tool of `tools/list`, by name.
async fn tools(mcp: &Mcp) -> Vec<Value> {
    mcp.request("tools/list", json!({})).await["tools"].as_array().expect("tools").clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} is listed"))
}

/// The contract's schemas, for the error and payment-required shapes.
fn components() -> Value {
    read_json(&built().join("public/openapi.json"))["components"].clone()
}

/// A result the gate answered as a success, checked against the tool's output schema.
fn holds_to_output(tool: &Value, result: &Value) -> Value {
    let name = &tool["name"];
    assert_eq!(result["isError"], false, "{name}: {result}");
    let structured = &result["structuredContent"];
    let found = errors(&tool["outputSchema"], &Value::Null, structured);
    assert!(found.is_empty(), "{name}: structuredContent does not hold to outputSchema:\n{}", found.join("\n"));
    structured.clone()
}

/// A tool error: `isError`, and its JSON holds to the contract's `Error` and to the tool's
/// output schema (clients check error results against it too: the TypeScript SDK 1.x does).
fn tool_error(tool: &Value, result: &Value) -> String {
    let name = &tool["name"];
    assert_eq!(result["isError"], true, "{name}: {result}");
    let structured = &result["structuredContent"];
    let found = errors(&json!({"$ref": "#/components/schemas/Error"}), &components(), structured);
    assert!(found.is_empty(), "{name}: {}", found.join("\n"));
    let found = errors(&tool["outputSchema"], &Value::Null, structured);
    assert!(found.is_empty(), "{name}: the error does not hold to outputSchema:\n{}", found.join("\n"));
    structured["error"].as_str().expect("code").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_declares_schemas_that_its_answers_hold_to() {
    let gate = start_local(built());
    let mcp = Mcp { http: client(), url: gate.url("/mcp") };
    let catalog = Mcp { http: client(), url: gate.url("/mcp/catalogo") };
    let listed = tools(&mcp).await;
    let listed_catalog = tools(&catalog).await;
    assert_eq!(listed.len(), 6);
    assert_eq!(listed_catalog.len(), 5);
    for tool in listed.iter().chain(&listed_catalog) {
        for key in ["inputSchema", "outputSchema"] {
            assert_eq!(tool[key]["type"], "object", "{}: {key} is an object schema (MCP)", tool["name"]);
            // A schema the validator accepts as a schema: it checks it first (`check_schema`)
            // and fails, failing `errors`, when it is not one.
            errors(&tool[key], &Value::Null, &json!({}));
        }
        let same = self::tool(&listed, tool["name"].as_str().expect("name"));
        assert_eq!(tool, same, "the catalog lists its tools as /mcp does");
    }

    // Inputs: the schema and the gate agree on what is accepted.
    let slug = SLUGS[0];
    let long = "a".repeat(201);
    let cases: Vec<(&str, Value, Option<&str>)> = vec![
        ("listar_estudios", json!({}), None),
        ("listar_estudios", json!({"x": 1}), Some("argumento_desconocido")),
        ("buscar_estudios", json!({"q": "bancos argentina"}), None),
        ("buscar_estudios", json!({}), Some("falta_q")),
        ("buscar_estudios", json!({"q": 5}), Some("argumento_invalido")),
        ("buscar_estudios", json!({"q": "   "}), Some("falta_q")),
        ("buscar_estudios", json!({"q": long}), Some("q_demasiado_larga")),
        ("buscar_estudios", json!({"q": "ñ".repeat(128)}), None),
        ("buscar_estudios", json!({"q": "?!, ..."}), Some("q_sin_terminos")),
        ("buscar_estudios", json!({"q": "¿…?"}), None),
        ("buscar_estudios", json!({"q": "de la"}), None),
        ("ver_ficha", json!({"slug": slug}), None),
        ("ver_ficha", json!({"slug": "no-existe-2026"}), Some("estudio_desconocido")),
        ("ver_ficha", json!({}), Some("falta_argumento")),
        ("ver_metricas", json!({}), None),
        ("como_comprar", json!({}), None),
        ("como_comprar", json!({"slug": slug}), None),
        ("como_comprar", json!({"slug": "no-existe-2026"}), Some("estudio_desconocido")),
        ("comprar_estudio", json!({"slug": slug, "vista": "todo"}), Some("vista_desconocida")),
        ("comprar_estudio", json!({"vista": "resumen"}), Some("falta_argumento")),
    ];
    for (name, arguments, refused) in &cases {
        let declared = tool(&listed, name);
        let verdict = errors(&declared["inputSchema"], &Value::Null, arguments);
        assert_eq!(verdict.is_empty(), refused.is_none(), "{name} {arguments}: the input schema says {verdict:?}");
        let result = mcp.call(name, arguments, None).await;
        match refused {
            None => {
                holds_to_output(declared, &result);
            }
            Some(code) => assert_eq!(tool_error(declared, &result), *code, "{name} {arguments}"),
        }
    }
    // Every study's sheet and a search per study hold to their schemas.
    for slug in SLUGS {
        holds_to_output(tool(&listed, "ver_ficha"), &mcp.call("ver_ficha", &json!({"slug": slug}), None).await);
    }

    // The payment-required answer: the contract's PaymentRequired, mirrored in the text.
    let buy = tool(&listed, "comprar_estudio");
    for view in ["resumen", "completo"] {
        let arguments = json!({"slug": slug, "vista": view});
        assert!(errors(&buy["inputSchema"], &Value::Null, &arguments).is_empty());
        let unpaid = mcp.call("comprar_estudio", &arguments, None).await;
        assert_eq!(unpaid["isError"], true);
        let required = &unpaid["structuredContent"];
        let found = errors(&json!({"$ref": "#/components/schemas/PaymentRequired"}), &components(), required);
        assert!(found.is_empty(), "the payment-required answer: {}", found.join("\n"));
        let found = errors(&buy["outputSchema"], &Value::Null, required);
        assert!(found.is_empty(), "the payment-required answer against outputSchema: {}", found.join("\n"));
        let text: Value = serde_json::from_str(unpaid["content"][0]["text"].as_str().expect("text")).expect("JSON");
        assert_eq!(&text, required);

        // Paid: the study, holding to the output schema.
        let accepted = &required["accepts"][0];
        let mut payload = serde_json::to_value(signed_payload(accepted, &signer(DEV_KEY), |_, _| {})).expect("payload");
        payload["resource"] = required["resource"].clone();
        let paid = mcp.call("comprar_estudio", &arguments, Some(json!({"x402/payment": payload}))).await;
        let study = holds_to_output(buy, &paid);
        assert_eq!(study["vista"], view);
        assert!(study[if view == "resumen" { "resumen" } else { "paquete" }].is_object(), "{view}");

        // A past buyer's re-access answers the same shape.
        let unpaid = mcp.call("comprar_estudio", &arguments, None).await;
        let challenge = &unpaid["structuredContent"]["extensions"][gate::x402::siwx::SIGN_IN_WITH_X];
        let proof = gate::x402::siwx::sign(challenge, None, &signer(DEV_KEY)).expect("signed");
        let meta = json!({(gate::payment::reaccess::PROOF_META): serde_json::to_value(&proof).expect("proof")});
        let again = mcp.call("comprar_estudio", &arguments, Some(meta)).await;
        let study = holds_to_output(buy, &again);
        assert!(study["reacceso"].is_object(), "{study}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_output_schemas_are_the_published_contract_s() {
    let gate = start_local(built());
    let mcp = Mcp { http: client(), url: gate.url("/mcp") };
    let listed = tools(&mcp).await;
    let openapi = read_json(&built().join("public/openapi.json"));
    // The schema of the route each tool mirrors, with its references written out, is the tool's.
    for (name, route) in [
        ("listar_estudios", "/catalogo"),
        ("buscar_estudios", "/buscar"),
        ("ver_ficha", "/estudio/{slug}/ficha"),
        ("ver_metricas", "/metricas"),
        ("comprar_estudio", "/estudio/{slug}"),
    ] {
        let declared = &openapi["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        let whole = &tool(&listed, name)["outputSchema"];
        assert!(!whole.to_string().contains("$ref"), "{name}: a standalone schema");
        // Any of: the route's answer, (comprar_estudio) the PaymentRequired, the Error.
        let shapes = whole["anyOf"].as_array().expect("anyOf");
        let error = shapes.last().expect("Error");
        assert_eq!(error["required"], openapi["components"]["schemas"]["Error"]["required"], "{name}");
        let paid = name == "comprar_estudio";
        assert_eq!(shapes.len(), if paid { 3 } else { 2 }, "{name}");
        if paid {
            assert_eq!(shapes[1]["required"], openapi["components"]["schemas"]["PaymentRequired"]["required"]);
        }
        let output = &shapes[0];
        match declared.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let component = reference.rsplit('/').next().expect("name");
                let schema = &openapi["components"]["schemas"][component];
                assert_eq!(output["required"], schema["required"], "{name}");
                assert_eq!(
                    output["properties"].as_object().map(|p| p.keys().collect::<Vec<_>>()),
                    schema["properties"].as_object().map(|p| p.keys().collect::<Vec<_>>()),
                    "{name}"
                );
            }
            None => assert_eq!(output, declared, "{name}"),
        }
    }
}
