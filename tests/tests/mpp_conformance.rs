//! The gate's MPP wire code (`gate::payment::mpp::wire`) against the conformance vectors of
//! `tempoxyz/mpp-tools` (`tests/mpp-conformance/`, verbatim copies; their sources and commits
//! are in its README): every scenario of `www-authenticate.json`, `authorization.json`,
//! `receipt.json`, `base64url.json` and `challenge-id.json`, each operation the scenario tests
//! (`parse`, `format`, `roundtrip`, `generate`, and the expected failures).
//!
//! Compared as the suite's runner compares: challenges and receipts byte for byte (the gate
//! writes parameters and members in the vectors' order), credentials as the JSON their base64url
//! carries (member order is not significant), decoded objects as JSON values with `request`
//! decoded, base64url and ids exactly. Then the gate itself against the vectors' refused
//! credentials.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::built;
use common::gate::{client, start_with};
use gate::payment::mpp::wire;
use serde_json::{Map, Value};

fn vectors(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mpp-conformance").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: Value = serde_json::from_str(&text).expect("vector JSON");
    file["scenarios"].as_array().expect("scenarios").clone()
}

/// What a scenario expects of `op`: `Some(true)` success, `Some(false)` an error, `None` untested.
fn expects(scenario: &Value, op: &str) -> Option<bool> {
    match scenario["tests"].get(op)? {
        Value::Bool(run) => run.then_some(true),
        expected => Some(expected["success"].as_bool().unwrap_or(true)),
    }
}

/// A scenario's wire text, `{prefix, repeat, count}` expanded.
fn wire_of(scenario: &Value) -> String {
    match &scenario["wire"] {
        Value::String(text) => text.clone(),
        Value::Object(parts) => {
            let count = parts["count"].as_u64().expect("count") as usize;
            format!(
                "{}{}",
                parts["prefix"].as_str().expect("prefix"),
                parts["repeat"].as_str().expect("repeat").repeat(count)
            )
        }
        other => panic!("wire {other}"),
    }
}

/// The JSON a credential header's base64url carries.
fn credential_json(header: &str) -> Value {
    let token = wire::credential_token(header.as_bytes()).expect("Payment scheme");
    serde_json::from_slice(&wire::decode(std::str::from_utf8(token).expect("ascii")).expect("base64url")).expect("JSON")
}

/// A credential in the vectors' canonical form: `request` decoded, absent `source` omitted.
fn credential_object(credential: &wire::Credential) -> Value {
    let mut object = Map::new();
    object.insert("challenge".into(), credential.challenge.to_json());
    object.insert("payload".into(), credential.payload.clone());
    if let Some(source) = &credential.source {
        object.insert("source".into(), Value::String(source.clone()));
    }
    Value::Object(object)
}

/// Runs every scenario of a file through `check`, which returns what went wrong; fails with
/// all of it, and if fewer than `at_least` operations ran.
fn run(file: &str, at_least: usize, check: impl Fn(&Value, &mut Vec<String>) -> usize) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for scenario in vectors(file) {
        let before = failures.len();
        ran += check(&scenario, &mut failures);
        for failure in &mut failures[before..] {
            *failure = format!("{file} {}: {failure}", scenario["name"].as_str().unwrap_or("?"));
        }
    }
    assert!(failures.is_empty(), "{} of {ran} checks failed:\n{}", failures.len(), failures.join("\n"));
    assert!(ran >= at_least, "{file}: only {ran} checks ran");
}

#[test]
fn challenges_parse_and_format_as_the_vectors_say() {
    run("www-authenticate.json", 38, |s, failures| {
        let mut ran = 0;
        let limit = s["maxDurationMsByAdapter"].as_object().and_then(|m| m.values().filter_map(Value::as_u64).max());
        if let Some(ok) = expects(s, "parse") {
            ran += 1;
            let wire_text = wire_of(s);
            let started = Instant::now();
            let parsed = wire::parse_challenge(&wire_text);
            let took = started.elapsed();
            if let Some(limit) = limit
                && took > Duration::from_millis(limit)
            {
                failures.push(format!("parse took {took:?}"));
            }
            match (ok, parsed) {
                (true, Ok(challenge)) if challenge.to_json() == s["object"] => {}
                (true, Ok(challenge)) => failures.push(format!("parse: {} ≠ {}", challenge.to_json(), s["object"])),
                (true, Err(e)) => failures.push(format!("parse refused: {e}")),
                (false, Ok(challenge)) => failures.push(format!("parse accepted {}", challenge.to_json())),
                (false, Err(_)) => {}
            }
        }
        if let Some(ok) = expects(s, "format") {
            ran += 1;
            let formatted = wire::Challenge::from_json(&s["object"]).and_then(|c| wire::format_challenge(&c));
            match (ok, formatted) {
                (true, Ok(header)) if header == wire_of(s) => {}
                (true, other) => failures.push(format!("format: {other:?}")),
                (false, Ok(header)) => failures.push(format!("format wrote {header}")),
                (false, Err(_)) => {}
            }
        }
        if expects(s, "roundtrip") == Some(true) {
            ran += 1;
            let again = wire::parse_challenge(&wire_of(s)).and_then(|c| wire::format_challenge(&c));
            if again.as_ref() != Ok(&wire_of(s)) {
                failures.push(format!("roundtrip: {again:?}"));
            }
        }
        ran
    });
}

#[test]
fn credentials_parse_and_format_as_the_vectors_say() {
    run("authorization.json", 14, |s, failures| {
        let mut ran = 0;
        if let Some(ok) = expects(s, "parse") {
            ran += 1;
            match (ok, wire::parse_credential(&wire_of(s))) {
                (true, Ok(credential)) if credential_object(&credential) == s["object"] => {}
                (true, Ok(credential)) => {
                    failures.push(format!("parse: {} ≠ {}", credential_object(&credential), s["object"]))
                }
                (true, Err(e)) => failures.push(format!("parse refused: {e}")),
                (false, Ok(credential)) => failures.push(format!("parse accepted {}", credential_object(&credential))),
                (false, Err(_)) => {}
            }
        }
        if let Some(ok) = expects(s, "format") {
            ran += 1;
            match (ok, wire::credential_from_json(&s["object"])) {
                (true, Ok(credential)) => {
                    let header = wire::format_credential(&credential);
                    if credential_json(&header) != credential_json(&wire_of(s)) {
                        failures.push(format!("format: {}", credential_json(&header)));
                    }
                }
                (true, Err(e)) => failures.push(format!("format refused: {e}")),
                (false, Ok(_)) => failures.push("format accepted".into()),
                (false, Err(_)) => {}
            }
        }
        if expects(s, "roundtrip") == Some(true) {
            ran += 1;
            match wire::parse_credential(&wire_of(s)) {
                Ok(credential)
                    if credential_json(&wire::format_credential(&credential)) == credential_json(&wire_of(s)) => {}
                other => failures.push(format!("roundtrip: {other:?}")),
            }
        }
        ran
    });
}

#[test]
fn receipts_parse_and_format_as_the_vectors_say() {
    run("receipt.json", 10, |s, failures| {
        let mut ran = 0;
        if let Some(ok) = expects(s, "parse") {
            ran += 1;
            match (ok, wire::parse_receipt(&wire_of(s))) {
                (true, Ok(receipt)) if serde_json::to_value(&receipt).ok().as_ref() == Some(&s["object"]) => {}
                (true, other) => failures.push(format!("parse: {other:?}")),
                (false, Ok(receipt)) => failures.push(format!("parse accepted {receipt:?}")),
                (false, Err(_)) => {}
            }
        }
        if expects(s, "format") == Some(true) {
            ran += 1;
            let receipt: wire::Receipt = serde_json::from_value(s["object"].clone()).expect("receipt object");
            let header = wire::format_receipt(&receipt);
            if header != wire_of(s) {
                failures.push(format!("format: {header}"));
            }
        }
        if expects(s, "roundtrip") == Some(true) {
            ran += 1;
            let again = wire::parse_receipt(&wire_of(s)).map(|r| wire::format_receipt(&r));
            if again.as_ref() != Ok(&wire_of(s)) {
                failures.push(format!("roundtrip: {again:?}"));
            }
        }
        ran
    });
}

#[test]
fn base64url_encodes_and_decodes_as_the_vectors_say() {
    run("base64url.json", 32, |s, failures| {
        let mut ran = 0;
        let encoded = s["encoded"].as_str().expect("encoded");
        if let Some(ok) = expects(s, "parse") {
            ran += 1;
            let decoded = wire::decode(encoded).ok().and_then(|bytes| String::from_utf8(bytes).ok());
            match (ok, decoded) {
                (true, Some(text)) if s["decoded"].as_str() == Some(text.as_str()) => {}
                (true, other) => failures.push(format!("decode: {other:?}")),
                (false, Some(text)) => failures.push(format!("decode accepted {text:?}")),
                (false, None) => {}
            }
        }
        if expects(s, "format") == Some(true) {
            ran += 1;
            let text = s["decoded"].as_str().expect("decoded");
            if wire::encode(text.as_bytes()) != encoded {
                failures.push(format!("encode: {}", wire::encode(text.as_bytes())));
            }
        }
        if expects(s, "roundtrip") == Some(true) {
            ran += 1;
            let text = s["decoded"].as_str().expect("decoded");
            if wire::decode(&wire::encode(text.as_bytes())).ok().as_deref() != Some(text.as_bytes()) {
                failures.push("roundtrip".into());
            }
        }
        ran
    });
}

#[test]
fn challenge_ids_are_the_vectors_hmacs() {
    run("challenge-id.json", 29, |s, failures| {
        let mut input = s["input"].as_object().expect("input").clone();
        let key = input.remove("secretKey").and_then(|k| k.as_str().map(str::to_owned)).expect("secretKey");
        input.insert("id".into(), Value::String(String::new()));
        let id = wire::Challenge::from_json(&Value::Object(input)).and_then(|c| wire::challenge_id(key.as_bytes(), &c));
        match (expects(s, "generate").unwrap_or(true), id) {
            (true, Ok(id)) if s["expected"].as_str() == Some(id.as_str()) => {}
            (true, other) => failures.push(format!("id {other:?}, expected {}", s["expected"])),
            (false, Ok(id)) => failures.push(format!("generated {id} from a weak key")),
            (false, Err(_)) => {}
        }
        1
    });
}

/// The gate itself against the credentials the vectors refuse: each `Authorization: Payment` one
/// answers 402 with a `malformed-credential` problem body (never a 500) and a fresh challenge;
/// the one of another scheme is no MPP credential and gets the plain 402. Nothing is settled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_answers_the_credentials_the_vectors_refuse_with_problems() {
    let local =
        Arc::new(gate::facilitator::local::LocalFacilitator::new(gate::facilitator::local::LocalConfig::default()));
    let store = start_with(built(), local.clone());
    let client = client();
    let url = store.url("/estudio/banca-2026");
    let mut checked = 0;
    for s in vectors("authorization.json") {
        if expects(&s, "parse") != Some(false) {
            continue;
        }
        let header = wire_of(&s);
        let response = client.get(&url).header("Authorization", &header).send().await.expect("request");
        let status = response.status().as_u16();
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let challenge = response.headers().get("www-authenticate").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body: Value = response.json().await.expect("JSON body");
        assert_eq!(status, 402, "{header}: {body}");
        assert!(wire::parse_challenge(challenge.as_deref().unwrap_or_default()).is_ok(), "{header}: a fresh challenge");
        if header.starts_with("Payment ") {
            assert_eq!(content_type.as_deref(), Some("application/problem+json"), "{header}");
            assert_eq!(body["type"], "https://paymentauth.org/problems/malformed-credential", "{header}: {body}");
            assert_eq!(body["status"], 402, "{header}: {body}");
        } else {
            assert_ne!(content_type.as_deref(), Some("application/problem+json"), "{header}: {body}");
            assert!(body.get("x402").is_some(), "{header}: the plain 402: {body}");
        }
        checked += 1;
    }
    assert_eq!(checked, 5, "the five refused credentials of authorization.json");
    assert_eq!(local.settlements(), 0);
}
