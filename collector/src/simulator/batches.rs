//! The stand-ins of the three batch APIs (OpenAI's Files and Batch, Anthropic's Message Batches,
//! Gemini's batch mode), as their references describe them.

use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::{Value, json};

use super::answers::{Mode, hash, respond};
use super::state::{Recorded, Reply, SimBatch, State, json_reply, lock};
use crate::config::Kind;

/// The batch routes of the three providers, as their references describe them: OpenAI's Files
/// (`POST /v1/files`, `GET /v1/files/{id}/content`) and Batch (`POST /v1/batches`,
/// `GET /v1/batches/{id}`); Anthropic's Message Batches (`POST /v1/messages/batches`,
/// `GET /v1/messages/batches/{id}`, `…/results`); Gemini's batch mode
/// (`POST /v1beta/models/{model}:batchGenerateContent`, `GET /v1beta/batches/{id}`).
pub(super) fn batch_route(state: &State, request: &Recorded, path: &str) -> Option<Reply> {
    let host = request.headers.get("host").cloned().unwrap_or_default();
    let get = request.method == "GET";
    if !get && path == "/v1/files" {
        let boundary = request
            .headers
            .get("content-type")
            .and_then(|t| t.split("boundary=").nth(1))
            .map(|b| b.trim_matches('"').to_owned())
            .unwrap_or_default();
        let Some(content) = multipart_file(&request.body, &boundary) else {
            return Some(json_reply(
                400,
                &json!({"error": {"message": "no file part", "type": "invalid_request_error"}}),
            ));
        };
        let id = format!("file-{:024x}", hash(&String::from_utf8_lossy(&content)) as u128);
        let bytes = content.len();
        lock(&state.files).insert(id.clone(), content);
        return Some(json_reply(
            200,
            &json!({"id": id, "object": "file", "bytes": bytes, "created_at": 1_764_300_000, "filename": "lote.jsonl", "purpose": "batch"}),
        ));
    }
    if !get && path == "/v1/batches" {
        let body = request.json();
        let file = body["input_file_id"].as_str().unwrap_or_default();
        let Some(content) = lock(&state.files).get(file).cloned() else {
            return Some(json_reply(
                404,
                &json!({"error": {"message": "No such File object", "type": "invalid_request_error"}}),
            ));
        };
        let items: Vec<(String, Value)> = String::from_utf8_lossy(&content)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|l| (l["custom_id"].as_str().unwrap_or("").to_owned(), l["body"].clone()))
            .collect();
        let model = items.first().and_then(|(_, b)| b["model"].as_str()).unwrap_or("").to_owned();
        let id = create_batch(state, Kind::Openai, &model, &host, String::new(), items);
        return Some(json_reply(200, &openai_batch(state, &id, &body["metadata"])));
    }
    if get && let Some(id) = path.strip_prefix("/v1/batches/") {
        return Some(json_reply(200, &openai_batch(state, id, &Value::Null)));
    }
    if get && let Some(file) = path.strip_prefix("/v1/files/").and_then(|p| p.strip_suffix("/content")) {
        return Some(match lock(&state.files).get(file) {
            Some(content) => Reply {
                status: 200,
                headers: vec![("content-type", "application/octet-stream".to_owned())],
                body: content.clone(),
            },
            None => json_reply(404, &json!({"error": {"message": "No such File object"}})),
        });
    }
    if !get && path == "/v1/messages/batches" {
        let body = request.json();
        let items: Vec<(String, Value)> = body["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| (r["custom_id"].as_str().unwrap_or("").to_owned(), r["params"].clone()))
            .collect();
        let model = items.first().and_then(|(_, b)| b["model"].as_str()).unwrap_or("").to_owned();
        let id = create_batch(state, Kind::Anthropic, &model, &host, String::new(), items);
        return Some(json_reply(200, &anthropic_batch(state, &id)));
    }
    if get && let Some(rest) = path.strip_prefix("/v1/messages/batches/") {
        if let Some(id) = rest.strip_suffix("/results") {
            let lines = batch_results(state, id).unwrap_or_default();
            let mut out = Vec::new();
            for (custom_id, result) in lines {
                let line = match result {
                    Ok(message) => json!({"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}),
                    Err(why) => {
                        json!({"custom_id": custom_id, "result": {"type": "errored", "error": {"type": "error", "error": {"type": "api_error", "message": why}}}})
                    }
                };
                let _ = serde_json::to_writer(&mut out, &line);
                out.push(b'\n');
            }
            return Some(Reply {
                status: 200,
                headers: vec![("content-type", "application/binary".to_owned())],
                body: out,
            });
        }
        return Some(json_reply(200, &anthropic_batch(state, rest)));
    }
    if !get && path.starts_with("/v1beta/models/") && path.ends_with(":batchGenerateContent") {
        let model = path.trim_start_matches("/v1beta/models/").trim_end_matches(":batchGenerateContent").to_owned();
        let body = request.json();
        let batch = &body["batch"];
        let items: Vec<(String, Value)> = batch["input_config"]["requests"]["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| (r["metadata"]["key"].as_str().unwrap_or("").to_owned(), r["request"].clone()))
            .collect();
        let name = batch["display_name"].as_str().unwrap_or("").to_owned();
        let id = create_batch(state, Kind::Google, &model, &host, name, items);
        return Some(json_reply(200, &gemini_batch(state, &id)));
    }
    if get && let Some(id) = path.strip_prefix("/v1beta/batches/") {
        return Some(json_reply(200, &gemini_batch(state, id)));
    }
    None
}

/// The file part of a multipart body.
pub(super) fn multipart_file(body: &[u8], boundary: &str) -> Option<Vec<u8>> {
    let text = body;
    let find = |hay: &[u8], needle: &[u8], from: usize| {
        hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
    };
    let mut at = 0;
    let delimiter = format!("--{boundary}");
    while let Some(start) = find(text, delimiter.as_bytes(), at) {
        let head_start = start + delimiter.len();
        let head_end = find(text, b"\r\n\r\n", head_start)?;
        let head = String::from_utf8_lossy(&text[head_start..head_end]);
        let content_start = head_end + 4;
        let content_end = find(text, format!("\r\n{delimiter}").as_bytes(), content_start)?;
        if head.contains("name=\"file\"") {
            return Some(text[content_start..content_end].to_vec());
        }
        at = content_end;
    }
    None
}

pub(super) fn create_batch(
    state: &State,
    kind: Kind,
    model: &str,
    host: &str,
    display_name: String,
    items: Vec<(String, Value)>,
) -> String {
    let n = state.batches_created.fetch_add(1, Ordering::Relaxed);
    let id = match kind {
        Kind::Openai => format!("batch_sim{n:04}"),
        Kind::Anthropic => format!("msgbatch_sim{n:04}"),
        _ => format!("batches/sim{n:04}"),
    };
    let key = id.trim_start_matches("batches/").to_owned();
    lock(&state.batches).insert(
        key,
        SimBatch {
            kind,
            model: model.to_owned(),
            host: host.to_owned(),
            created: Instant::now(),
            display_name,
            items,
            results: None,
        },
    );
    id
}

/// The results of a batch that ended (computing them, and billing its calls, the first time);
/// `None` while it is still working.
pub(super) fn batch_results(state: &State, id: &str) -> Option<Vec<(String, Result<Value, String>)>> {
    let key = id.trim_start_matches("batches/");
    let mut batches = lock(&state.batches);
    let batch = batches.get_mut(key)?;
    if batch.created.elapsed() < state.behaviour.batch_latency {
        return None;
    }
    if batch.results.is_none() {
        let mut results = Vec::new();
        for (custom_id, body) in &batch.items {
            let failing = state
                .failing_batch_items
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
            if failing {
                results.push((custom_id.clone(), Err("simulated batch error".to_owned())));
                continue;
            }
            let n = state.counter.fetch_add(1, Ordering::Relaxed);
            state.billed.fetch_add(1, Ordering::Relaxed);
            let value = respond(state, batch.kind, &batch.model, body, Mode::Normal, n, &batch.host);
            results.push((custom_id.clone(), Ok(value)));
        }
        batch.results = Some(results);
    }
    batch.results.clone()
}

pub(super) fn openai_batch(state: &State, id: &str, metadata: &Value) -> Value {
    let results = batch_results(state, id);
    let total = lock(&state.batches).get(id).map_or(0, |b| b.items.len());
    let mut value = json!({
        "id": id, "object": "batch", "endpoint": "/v1/responses", "errors": null,
        "input_file_id": "file-input", "completion_window": "24h",
        "status": "in_progress", "output_file_id": null, "error_file_id": null,
        "created_at": 1_764_300_000, "in_progress_at": 1_764_300_001,
        "request_counts": {"total": total, "completed": 0, "failed": 0},
        "metadata": metadata
    });
    if let Some(results) = results {
        let (mut output, mut errors) = (Vec::new(), Vec::new());
        let mut failed = 0;
        for (i, (custom_id, result)) in results.iter().enumerate() {
            let line = match result {
                Ok(body) => {
                    json!({"id": format!("batch_req_{i}"), "custom_id": custom_id, "response": {"status_code": 200, "request_id": format!("req_{i}"), "body": body}, "error": null})
                }
                Err(why) => {
                    failed += 1;
                    json!({"id": format!("batch_req_{i}"), "custom_id": custom_id, "response": {"status_code": 500, "request_id": format!("req_{i}"), "body": {"error": {"message": why, "type": "server_error"}}}, "error": null})
                }
            };
            let target = if result.is_ok() { &mut output } else { &mut errors };
            let _ = serde_json::to_writer(&mut *target, &line);
            target.push(b'\n');
        }
        let output_id = format!("file-out-{id}");
        lock(&state.files).insert(output_id.clone(), output);
        value["status"] = json!("completed");
        value["output_file_id"] = json!(output_id);
        if failed > 0 {
            let error_id = format!("file-err-{id}");
            lock(&state.files).insert(error_id.clone(), errors);
            value["error_file_id"] = json!(error_id);
        }
        value["request_counts"] = json!({"total": total, "completed": total - failed, "failed": failed});
    }
    value
}

pub(super) fn anthropic_batch(state: &State, id: &str) -> Value {
    let results = batch_results(state, id);
    let total = lock(&state.batches).get(id).map_or(0, |b| b.items.len());
    let ended = results.is_some();
    let errored = results.as_ref().map_or(0, |r| r.iter().filter(|(_, r)| r.is_err()).count());
    json!({
        "id": id, "type": "message_batch",
        "processing_status": if ended { "ended" } else { "in_progress" },
        "request_counts": {"processing": if ended { 0 } else { total }, "succeeded": if ended { total - errored } else { 0 }, "errored": errored, "canceled": 0, "expired": 0},
        "ended_at": if ended { json!("2026-11-28T14:30:00Z") } else { Value::Null },
        "created_at": "2026-11-28T14:03:11Z", "expires_at": "2026-11-29T14:03:11Z",
        "cancel_initiated_at": null,
        "results_url": if ended { json!(format!("https://api.anthropic.com/v1/messages/batches/{id}/results")) } else { Value::Null }
    })
}

pub(super) fn gemini_batch(state: &State, id: &str) -> Value {
    let results = batch_results(state, id);
    let (model, name) = lock(&state.batches)
        .get(id.trim_start_matches("batches/"))
        .map(|b| (b.model.clone(), b.display_name.clone()))
        .unwrap_or_default();
    let name_of = format!("batches/{}", id.trim_start_matches("batches/"));
    let mut metadata = json!({
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
        "model": format!("models/{model}"), "displayName": name, "name": name_of,
        "createTime": "2026-11-28T14:03:11Z", "state": "BATCH_STATE_RUNNING"
    });
    let Some(results) = results else { return json!({"name": name_of, "metadata": metadata}) };
    metadata["state"] = json!("BATCH_STATE_SUCCEEDED");
    let inlined: Vec<Value> = results
        .into_iter()
        .map(|(key, result)| match result {
            Ok(response) => json!({"response": response, "metadata": {"key": key}}),
            Err(why) => json!({"error": {"code": 13, "message": why}, "metadata": {"key": key}}),
        })
        .collect();
    json!({
        "name": name_of, "metadata": metadata, "done": true,
        "response": {"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput", "inlinedResponses": {"inlinedResponses": inlined}}
    })
}
