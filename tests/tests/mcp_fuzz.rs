//! Hostile input on the MCP request path: arbitrary bodies and arbitrary JSON-RPC messages,
//! sent straight into the gate's handler (no network, so thousands of cases run in seconds),
//! never panic and always get an answer a client can read: a status from the transport's
//! list, and a JSON body (a JSON-RPC response for 200) unless the status is 202.
//!
//! `PROPTEST_CASES` raises the case count (`.ci/run` runs it longer).

mod common;

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use common::built;
use common::gate::links;
use gate::app::Gate;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate_http::{Handler, Request};
use pingora_http::RequestHeader;
use proptest::prelude::*;
use serde_json::{Value, json};

fn gate() -> &'static Gate {
    static GATE: OnceLock<Gate> = OnceLock::new();
    GATE.get_or_init(|| {
        Gate::load(built(), Arc::new(LocalFacilitator::new(LocalConfig::default())), links(), None).expect("gate loads")
    })
}

/// Runs one POST through the gate's handler and checks the answer's shape.
fn post(path: &str, body: Vec<u8>, protocol: Option<&str>) -> Result<(), TestCaseError> {
    post_with(path, body, protocol, &[])
}

/// The same with more headers (the mirrored `Mcp-Method` and `Mcp-Name` of 2026-07-28).
fn post_with(path: &str, body: Vec<u8>, protocol: Option<&str>, extra: &[(&str, &str)]) -> Result<(), TestCaseError> {
    let mut head = RequestHeader::build("POST", path.as_bytes(), None).expect("head");
    head.insert_header("Host", "127.0.0.1:8080").expect("host");
    head.insert_header("Content-Type", "application/json").expect("content type");
    head.insert_header("Accept", "application/json, text/event-stream").expect("accept");
    if let Some(version) = protocol {
        head.insert_header("MCP-Protocol-Version", version).expect("version");
    }
    for (name, value) in extra {
        head.insert_header(name.to_string(), *value).expect("header");
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let request = Request { head: &head, body: Bytes::from(body), client: None };
    let reply = runtime.block_on(gate().handle(&request));
    prop_assert!(
        [200, 202, 400, 403, 404, 406, 413, 415].contains(&reply.status),
        "unexpected status {}",
        reply.status
    );
    if reply.status == 202 {
        prop_assert!(reply.body.is_empty());
        return Ok(());
    }
    let gate_http::response::Body::Bytes(bytes) = &reply.body else {
        return Err(TestCaseError::fail("an MCP answer is bytes in memory"));
    };
    let answer: Value = serde_json::from_slice(bytes).map_err(|e| TestCaseError::fail(format!("not JSON: {e}")))?;
    if reply.status == 200 {
        prop_assert_eq!(&answer["jsonrpc"], "2.0");
        prop_assert!(answer.get("result").is_some() != answer.get("error").is_some(), "result xor error: {}", answer);
    }
    Ok(())
}

/// JSON values of bounded depth, to put anywhere in a message.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "\\PC{0,24}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("\\PC{0,12}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Messages shaped like the ones clients send, with every part open to garbage.
fn json_rpc_message() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        Just("initialize".to_owned()),
        Just("ping".to_owned()),
        Just("tools/list".to_owned()),
        Just("tools/call".to_owned()),
        Just("notifications/initialized".to_owned()),
        Just("server/discover".to_owned()),
        "\\PC{0,20}",
    ];
    let tool = prop_oneof![
        Just("listar_estudios"),
        Just("buscar_estudios"),
        Just("ver_ficha"),
        Just("ver_metricas"),
        Just("como_comprar"),
        Just("comprar_estudio"),
        Just("no_existe"),
    ];
    (method, any_json(), tool, any_json(), any_json(), any_json(), any::<bool>()).prop_map(
        |(method, id, tool, arguments, payment, extra, with_id)| {
            let mut message = json!({
                "jsonrpc": "2.0",
                "method": method,
                "params": {"name": tool, "arguments": arguments, "_meta": {"x402/payment": payment}, "extra": extra},
            });
            if with_id {
                message["id"] = id;
            }
            message
        },
    )
}

proptest! {
    #[test]
    fn arbitrary_bodies_get_an_answer(body in proptest::collection::vec(any::<u8>(), 0..4096)) {
        post("/mcp", body, None)?;
    }

    #[test]
    fn arbitrary_json_rpc_messages_get_an_answer(
        message in json_rpc_message(),
        catalog in any::<bool>(),
        protocol in proptest::option::of(prop_oneof![Just("2025-11-25".to_owned()), Just("2025-03-26".to_owned()), Just("2026-07-28".to_owned()), "[ -~]{0,12}"]),
    ) {
        let path = if catalog { "/mcp/catalogo" } else { "/mcp" };
        post(path, serde_json::to_vec(&message).expect("json"), protocol.as_deref())?;
    }

    #[test]
    fn arbitrary_modern_envelopes_and_mirrored_headers_get_an_answer(
        mut message in json_rpc_message(),
        catalog in any::<bool>(),
        version in prop_oneof![Just("2026-07-28".to_owned()), "[ -~]{0,12}"],
        capabilities in prop_oneof![Just(json!({})), any_json()],
        header_method in proptest::option::of(prop_oneof![Just("tools/call".to_owned()), Just("tools/list".to_owned()), "[!-~]{0,16}"]),
        header_name in proptest::option::of(prop_oneof![Just("ver_ficha".to_owned()), Just("=?base64?dmVyX2ZpY2hh?=".to_owned()), "[!-~]{0,16}"]),
    ) {
        // The 2026-07-28 envelope beside the x402 payment, each part possibly wrong or missing.
        message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(version);
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
        let mut headers = Vec::new();
        if let Some(method) = &header_method {
            headers.push(("Mcp-Method", method.as_str()));
        }
        if let Some(name) = &header_name {
            headers.push(("Mcp-Name", name.as_str()));
        }
        let path = if catalog { "/mcp/catalogo" } else { "/mcp" };
        post_with(path, serde_json::to_vec(&message).expect("json"), Some("2026-07-28"), &headers)?;
    }

    #[test]
    fn arbitrary_batches_and_scalars_get_an_answer(value in any_json()) {
        post("/mcp", serde_json::to_vec(&value).expect("json"), None)?;
    }
}
