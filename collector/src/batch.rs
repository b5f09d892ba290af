//! `recolectar --lote`: the study's calls as batches, at the batch price, where a provider's batch
//! API takes the same request with web search: OpenAI's Batch API on `/v1/responses`, Anthropic's
//! Message Batches, Gemini's batch mode. Perplexity, SerpApi and OpenAI-compatible servers have no
//! such API: their calls go one by one in the same run.
//!
//! A batch is journaled like a direct call, so the budget and a `kill -9` treat it the same way:
//! each call of the batch gets its `envio` line (with its reservation, at the batch price) before
//! the batch leaves; `lotes.jsonl` then says the batch was prepared (its calls), sent (the
//! provider's id: written as soon as the provider answers) and finished. A run that finds a batch
//! sent and not finished asks the provider how it is going instead of sending its calls again, and
//! records each answer exactly as the direct path does (the same parser, the same lines), closing
//! each call's `envio`. A batch prepared but never confirmed as sent (the run died in the
//! milliseconds between the provider's answer and the line) stays counted at its reservations and
//! its calls are asked again: the batch may exist at the provider.
//!
//! References: OpenAI, *Batch API* (`platform.openai.com/docs/guides/batch`, API reference
//! *Batch*, *Files*); Anthropic, *Batch processing* and *Message Batches*
//! (`docs.anthropic.com/en/docs/build-with-claude/batch-processing`); Google, *Batch Mode*
//! (`ai.google.dev/gemini-api/docs/batch-mode`, API reference `ai.google.dev/api/batch-mode`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::client::{self, Failure};
use crate::config::{Kind, ModelSettings};
use crate::journal::{self, SentLine, Triple};
use crate::providers::{self, Method, Request};
use crate::session::{self, Job, Shared};

pub const BATCHES: &str = "lotes.jsonl";

/// Whether a provider's batch API takes the collector's request with its web search.
pub fn batchable(kind: Kind) -> bool {
    matches!(kind, Kind::Openai | Kind::Anthropic | Kind::Google)
}

/// One line of `lotes.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "evento")]
pub enum BatchEvent {
    /// Written before the batch leaves (after its calls' `envio` lines).
    #[serde(rename = "preparado")]
    Prepared(Prepared),
    /// The provider took it: its id.
    #[serde(rename = "enviado")]
    Submitted {
        #[serde(rename = "lote")]
        batch: String,
        #[serde(rename = "id_proveedor")]
        provider_id: String,
        #[serde(rename = "hora")]
        time: String,
    },
    /// Every call of it recorded (or the provider refused it, or it was never confirmed sent).
    #[serde(rename = "terminado")]
    Finished {
        #[serde(rename = "lote")]
        batch: String,
        #[serde(rename = "estado")]
        state: String,
        #[serde(rename = "hora")]
        time: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Prepared {
    #[serde(rename = "lote")]
    pub batch: String,
    #[serde(rename = "proveedor")]
    pub provider: String,
    /// The study's model id (one model per batch).
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "hora")]
    pub time: String,
    #[serde(rename = "pedidos")]
    pub items: Vec<Item>,
}

/// One call of a batch: its `envio` (also the batch's `custom_id`) and its question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Item {
    #[serde(rename = "envio")]
    pub id: String,
    #[serde(rename = "pregunta")]
    pub question: String,
    #[serde(rename = "repeticion")]
    pub repetition: u32,
}

/// A batch not finished: sent (with the provider's id) or only prepared.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub prepared: Prepared,
    pub provider_id: Option<String>,
}

/// The batches of `lotes.jsonl` that are not finished.
pub fn pending(study: &Path) -> io::Result<Vec<Pending>> {
    let mut open: BTreeMap<String, Pending> = BTreeMap::new();
    let mut order = Vec::new();
    for line in journal::whole_lines(&study.join(BATCHES))? {
        match serde_json::from_str::<BatchEvent>(&line) {
            Ok(BatchEvent::Prepared(prepared)) => {
                order.push(prepared.batch.clone());
                open.insert(prepared.batch.clone(), Pending { prepared, provider_id: None });
            }
            Ok(BatchEvent::Submitted { batch, provider_id, .. }) => {
                if let Some(pending) = open.get_mut(&batch) {
                    pending.provider_id = Some(provider_id);
                }
            }
            Ok(BatchEvent::Finished { batch, .. }) => {
                open.remove(&batch);
            }
            Err(_) => {}
        }
    }
    Ok(order.into_iter().filter_map(|id| open.remove(&id)).collect())
}

/// The calls waiting in batches sent and not finished: a plan leaves them out.
pub fn waiting(study: &Path) -> io::Result<BTreeSet<Triple>> {
    Ok(pending(study)?
        .into_iter()
        .filter(|p| p.provider_id.is_some())
        .flat_map(|p| {
            let model = p.prepared.model.clone();
            p.prepared.items.into_iter().map(move |i| (i.question, model.clone(), i.repetition))
        })
        .collect())
}

fn append(study: &Path, event: &BatchEvent) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(event).map_err(io::Error::other)?;
    bytes.push(b'\n');
    let mut file = OpenOptions::new().create(true).append(true).open(study.join(BATCHES))?;
    file.write_all(&bytes)?;
    file.sync_data()
}

fn now() -> String {
    journal::date_and_time(SystemTime::now()).1
}

// ---- The wire: each provider's batch API ----

/// The headers that carry the key, as the provider's direct requests do.
fn auth(kind: Kind, key: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = Vec::new();
    match (kind, key) {
        (Kind::Openai, Some(key)) => headers.push(("authorization", format!("Bearer {key}"))),
        (Kind::Anthropic, key) => {
            headers.push(("anthropic-version", providers::anthropic::API_VERSION.to_owned()));
            if let Some(key) = key {
                headers.push(("x-api-key", key.to_owned()));
            }
        }
        (Kind::Google, Some(key)) => headers.push(("x-goog-api-key", key.to_owned())),
        _ => {}
    }
    headers
}

fn post_json(kind: Kind, key: Option<&str>, path: String, body: &Value) -> Request {
    let mut headers = auth(kind, key);
    headers.push(("content-type", "application/json".to_owned()));
    Request { method: Method::Post, path, headers, body: serde_json::to_vec(body).unwrap_or_default() }
}

fn get(kind: Kind, key: Option<&str>, path: String) -> Request {
    Request { method: Method::Get, path, headers: auth(kind, key), body: Vec::new() }
}

/// The body of each call's direct request: the batch carries the very same request.
fn bodies(requests: &[(String, Request)]) -> Vec<(String, Value)> {
    requests.iter().map(|(id, r)| (id.clone(), serde_json::from_slice(&r.body).unwrap_or(Value::Null))).collect()
}

const BOUNDARY: &str = "recolector-lote-7d1f0c2e9a";

/// OpenAI's file upload (`POST /v1/files`, `purpose=batch`): a multipart body with the JSONL
/// input file, one `{"custom_id", "method", "url", "body"}` per call.
fn openai_upload(key: Option<&str>, calls: &[(String, Value)], batch: &str) -> Request {
    let mut jsonl = Vec::new();
    for (id, body) in calls {
        let line = json!({"custom_id": id, "method": "POST", "url": "/v1/responses", "body": body});
        let _ = serde_json::to_writer(&mut jsonl, &line);
        jsonl.push(b'\n');
    }
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{batch}.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&jsonl);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    let mut headers = auth(Kind::Openai, key);
    headers.push(("content-type", format!("multipart/form-data; boundary={BOUNDARY}")));
    Request { method: Method::Post, path: "/v1/files".to_owned(), headers, body }
}

/// Sends a batch; returns the provider's id for it.
async fn submit(
    shared: &Shared,
    kind: Kind,
    model: &ModelSettings,
    batch: &str,
    calls: &[(String, Value)],
) -> Result<String, Failure> {
    let endpoint = &shared.endpoints[&model.provider];
    let key = endpoint.key.as_deref();
    let fetch = |request: Request| async move {
        let body = client::fetch(&shared.api, endpoint, &request, &shared.file.retries, &shared.stop).await?;
        serde_json::from_slice::<Value>(&body).map_err(|e| Failure::Rejected { status: 200, detail: e.to_string() })
    };
    let id = match kind {
        Kind::Openai => {
            let file = fetch(openai_upload(key, calls, batch)).await?;
            let file_id = file["id"].as_str().unwrap_or_default().to_owned();
            let created = fetch(post_json(
                kind,
                key,
                "/v1/batches".to_owned(),
                &json!({"input_file_id": file_id, "endpoint": "/v1/responses", "completion_window": "24h", "metadata": {"recolector_lote": batch}}),
            ))
            .await?;
            created["id"].as_str().map(str::to_owned)
        }
        Kind::Anthropic => {
            let requests: Vec<Value> =
                calls.iter().map(|(id, body)| json!({"custom_id": id, "params": body})).collect();
            let created =
                fetch(post_json(kind, key, "/v1/messages/batches".to_owned(), &json!({"requests": requests}))).await?;
            created["id"].as_str().map(str::to_owned)
        }
        _ => {
            let requests: Vec<Value> =
                calls.iter().map(|(id, body)| json!({"request": body, "metadata": {"key": id}})).collect();
            let body = json!({"batch": {"display_name": batch, "input_config": {"requests": {"requests": requests}}}});
            let path = format!("/v1beta/models/{}:batchGenerateContent", model.asked());
            let created = fetch(post_json(kind, key, path, &body)).await?;
            created["name"].as_str().map(str::to_owned)
        }
    };
    id.filter(|id| !id.is_empty())
        .ok_or_else(|| Failure::Rejected { status: 200, detail: "el proveedor no dio el id del lote".to_owned() })
}

/// What became of one call of a batch.
enum ItemResult {
    /// The provider's response body for it, as a direct call would have received it.
    Body(Vec<u8>),
    /// Errored, expired or canceled: not billed, asked again by the next run.
    Failed(String),
}

/// How a batch is going: still working, or its results by `custom_id`.
enum Progress {
    Working,
    Done(String, BTreeMap<String, ItemResult>),
}

/// Asks the provider how a batch is going and, when it ended, reads its results.
async fn progress(
    shared: &Shared,
    kind: Kind,
    model: &ModelSettings,
    provider_id: &str,
    items: &[Item],
) -> Result<Progress, Failure> {
    let endpoint = &shared.endpoints[&model.provider];
    let key = endpoint.key.as_deref();
    let fetch = |request: Request| async move {
        client::fetch(&shared.api, endpoint, &request, &shared.file.retries, &shared.stop).await
    };
    let json = |bytes: Vec<u8>| {
        serde_json::from_slice::<Value>(&bytes).map_err(|e| Failure::Rejected { status: 200, detail: e.to_string() })
    };
    let mut results = BTreeMap::new();
    match kind {
        Kind::Openai => {
            let batch = json(fetch(get(kind, key, format!("/v1/batches/{provider_id}"))).await?)?;
            let status = batch["status"].as_str().unwrap_or("").to_owned();
            if ["validating", "in_progress", "finalizing", "cancelling"].contains(&status.as_str()) {
                return Ok(Progress::Working);
            }
            for field in ["output_file_id", "error_file_id"] {
                let Some(file) = batch[field].as_str().filter(|f| !f.is_empty()) else { continue };
                let content = fetch(get(kind, key, format!("/v1/files/{file}/content"))).await?;
                for line in String::from_utf8_lossy(&content).lines().filter(|l| !l.trim().is_empty()) {
                    let Ok(line) = serde_json::from_str::<Value>(line) else { continue };
                    let Some(id) = line["custom_id"].as_str() else { continue };
                    let response = &line["response"];
                    let result = if response["status_code"].as_u64().is_some_and(|s| (200..300).contains(&s)) {
                        ItemResult::Body(serde_json::to_vec(&response["body"]).unwrap_or_default())
                    } else {
                        let why = line["error"]["message"].as_str().or(response["body"]["error"]["message"].as_str());
                        ItemResult::Failed(format!("lote {status}: {}", why.unwrap_or("sin detalle")))
                    };
                    results.insert(id.to_owned(), result);
                }
            }
            Ok(Progress::Done(status, results))
        }
        Kind::Anthropic => {
            let batch = json(fetch(get(kind, key, format!("/v1/messages/batches/{provider_id}"))).await?)?;
            let status = batch["processing_status"].as_str().unwrap_or("").to_owned();
            if status != "ended" {
                return Ok(Progress::Working);
            }
            // `results_url` is absolute; its path is read under the configured base URL.
            let url = batch["results_url"].as_str().unwrap_or_default();
            let path = url::Url::parse(url)
                .map(|u| u.path().to_owned())
                .unwrap_or_else(|_| format!("/v1/messages/batches/{provider_id}/results"));
            let content = fetch(get(kind, key, path)).await?;
            for line in String::from_utf8_lossy(&content).lines().filter(|l| !l.trim().is_empty()) {
                let Ok(line) = serde_json::from_str::<Value>(line) else { continue };
                let Some(id) = line["custom_id"].as_str() else { continue };
                let result = match line["result"]["type"].as_str() {
                    Some("succeeded") => {
                        ItemResult::Body(serde_json::to_vec(&line["result"]["message"]).unwrap_or_default())
                    }
                    other => ItemResult::Failed(format!(
                        "lote {}: {}",
                        other.unwrap_or("sin resultado"),
                        line["result"]["error"]["error"]["message"].as_str().unwrap_or("sin detalle")
                    )),
                };
                results.insert(id.to_owned(), result);
            }
            Ok(Progress::Done(status, results))
        }
        _ => {
            let operation = json(fetch(get(kind, key, format!("/v1beta/{provider_id}"))).await?)?;
            let state = operation["metadata"]["state"].as_str().unwrap_or("").to_owned();
            if !operation["done"].as_bool().unwrap_or(false)
                && ["BATCH_STATE_PENDING", "BATCH_STATE_RUNNING", ""].contains(&state.as_str())
            {
                return Ok(Progress::Working);
            }
            let listed = operation["response"]["inlinedResponses"]["inlinedResponses"]
                .as_array()
                .or(operation["metadata"]["output"]["inlinedResponses"]["inlinedResponses"].as_array())
                .cloned()
                .unwrap_or_default();
            // In the order of the requests; each with its `metadata.key` when the API returns it.
            for (index, entry) in listed.iter().enumerate() {
                let id = entry["metadata"]["key"]
                    .as_str()
                    .map(str::to_owned)
                    .or_else(|| items.get(index).map(|i| i.id.clone()));
                let Some(id) = id else { continue };
                let result = if entry.get("response").is_some() {
                    ItemResult::Body(serde_json::to_vec(&entry["response"]).unwrap_or_default())
                } else {
                    ItemResult::Failed(format!(
                        "lote {state}: {}",
                        entry["error"]["message"].as_str().unwrap_or("sin detalle")
                    ))
                };
                results.insert(id, result);
            }
            Ok(Progress::Done(state, results))
        }
    }
}

// ---- The flow ----

/// Sends the jobs of one model as batches (as many as the budget holds), then collects them.
pub(crate) async fn send_and_collect(shared: Arc<Shared>, model_index: usize, jobs: Vec<Job>) {
    let model = &shared.file.models[model_index];
    let kind = shared.file.providers[&model.provider].kind;
    let mut jobs = jobs.into_iter();
    loop {
        let mut chosen = Vec::new();
        let reservation = shared.batch_reservation(model);
        for job in jobs.by_ref() {
            if shared.stop.is_set() {
                session::not_asked(&shared, 1);
                continue;
            }
            if !session::lock(&shared.budget).reserve(reservation) {
                shared.stop.trigger(client::StopReason::Budget);
                session::not_asked(&shared, 1);
                continue;
            }
            chosen.push(job);
            if chosen.len() >= shared.file.batches.max_calls {
                break;
            }
        }
        if chosen.is_empty() {
            return;
        }
        if let Some(pending) = send(&shared, kind, model, chosen, reservation).await {
            collect(&shared, kind, model, pending, false).await;
        }
    }
}

/// Journals and sends one batch; the pending batch, once the provider took it.
async fn send(shared: &Shared, kind: Kind, model: &ModelSettings, jobs: Vec<Job>, reservation: f64) -> Option<Pending> {
    let study = shared.study();
    let batch = format!("lote-{}", shared.journal.next_id());
    let time = now();
    let endpoint = &shared.endpoints[&model.provider];
    let mut items = Vec::new();
    let mut sent = Vec::new();
    let mut requests = Vec::new();
    for job in &jobs {
        let id = shared.journal.next_id();
        let call = session::call_of(&shared.file, model, &job.question);
        requests.push((id.clone(), providers::request(kind, &call, endpoint.key.as_deref())));
        sent.push(SentLine {
            id: id.clone(),
            question: job.question.id.clone(),
            model: model.id.clone(),
            repetition: job.repetition,
            attempt: 1,
            time: time.clone(),
            reserved_usd: session::round6(reservation),
            batch: Some(batch.clone()),
        });
        items.push(Item { id, question: job.question.id.clone(), repetition: job.repetition });
    }
    let prepared =
        Prepared { batch: batch.clone(), provider: model.provider.clone(), model: model.id.clone(), time, items };
    let written = shared.journal.sent_many(sent).and_then(|()| append(study, &BatchEvent::Prepared(prepared.clone())));
    if let Err(e) = written {
        session::lock(&shared.budget).settle(reservation * jobs.len() as f64, 0.0);
        session::not_asked(shared, jobs.len() as u64);
        shared.fail_to_write(&e);
        return None;
    }
    match submit(shared, kind, model, &batch, &bodies(&requests)).await {
        Ok(provider_id) => {
            let event = BatchEvent::Submitted { batch: batch.clone(), provider_id: provider_id.clone(), time: now() };
            if let Err(e) = append(study, &event) {
                shared.fail_to_write(&e);
            }
            session::lock(&shared.summary).batches_sent += 1;
            Some(Pending { prepared, provider_id: Some(provider_id) })
        }
        Err(failure) => {
            // Refused (or never answered): nothing was billed; each call is asked again next run.
            for item in &prepared.items {
                let triple = (item.question.clone(), model.id.clone(), item.repetition);
                session::close_request(
                    shared,
                    &session::Billed { id: item.id.clone(), reserved: reservation, cost: 0.0, counted: false },
                    None,
                );
                session::record_failure(shared, &triple, &format!("lote_{}", failure.cause()), &failure.detail());
            }
            if let Failure::Auth { status } = failure {
                shared.stop.trigger(client::StopReason::Fatal(format!(
                    "`{}` respondió HTTP {status} al enviar un lote: revise la clave",
                    model.provider
                )));
            }
            let event = BatchEvent::Finished { batch, state: format!("rechazado: {}", failure.cause()), time: now() };
            if let Err(e) = append(study, &event) {
                shared.fail_to_write(&e);
            }
            None
        }
    }
}

/// Waits for a batch to end and records each of its answers as the direct path does. `earlier`:
/// the batch comes from an earlier run, whose reservations the study's spending already counts.
pub(crate) async fn collect(shared: &Shared, kind: Kind, model: &ModelSettings, pending: Pending, earlier: bool) {
    let study = shared.study();
    let Some(provider_id) = pending.provider_id.clone() else { return };
    let poll = Duration::from_secs_f64(shared.file.batches.poll_s);
    let (state, mut results) = loop {
        match progress(shared, kind, model, &provider_id, &pending.prepared.items).await {
            Ok(Progress::Done(state, results)) => break (state, results),
            Ok(Progress::Working) => {}
            // The batch stays sent; the next `recolectar --lote` asks again.
            Err(Failure::Stopped) => return,
            Err(failure) => {
                if let Failure::Auth { status } = failure {
                    shared.stop.trigger(client::StopReason::Fatal(format!(
                        "`{}` respondió HTTP {status} sobre el lote {provider_id}: revise la clave",
                        model.provider
                    )));
                }
                return;
            }
        }
        tokio::select! {
            () = tokio::time::sleep(poll) => {}
            () = shared.stop.wait() => return,
        }
    };
    let (sent, closed) = match journal::sends(study) {
        Ok(found) => found,
        Err(e) => return shared.fail_to_write(&e),
    };
    let done = journal::done(study).unwrap_or_default();
    for item in &pending.prepared.items {
        if closed.contains(&item.id) {
            continue; // recorded by an earlier run, before it stopped
        }
        let reserved = sent.get(&item.id).map_or(0.0, |s| s.reserved_usd);
        let triple: Triple = (item.question.clone(), model.id.clone(), item.repetition);
        let result = results.remove(&item.id).unwrap_or(ItemResult::Failed(format!("lote {state}: sin resultado")));
        session::collected_from_batch(
            shared,
            model,
            kind,
            &triple,
            &item.id,
            reserved,
            earlier,
            result_body(result),
            done.contains(&triple),
        )
        .await;
    }
    session::lock(&shared.summary).batches_collected += 1;
    let event = BatchEvent::Finished { batch: pending.prepared.batch.clone(), state, time: now() };
    if let Err(e) = append(study, &event) {
        shared.fail_to_write(&e);
    }
}

fn result_body(result: ItemResult) -> Result<Vec<u8>, String> {
    match result {
        ItemResult::Body(body) => Ok(body),
        ItemResult::Failed(why) => Err(why),
    }
}

/// Batches of earlier runs: the sent ones are collected; the ones only prepared (never confirmed
/// sent) are closed as such, their calls left counted and asked again.
pub(crate) async fn resume(shared: Arc<Shared>, pending: Vec<Pending>) {
    for batch in pending {
        let Some(model) = shared.file.model(&batch.prepared.model) else { continue };
        let Some(provider) = shared.file.providers.get(&model.provider) else { continue };
        if !shared.endpoints.contains_key(&model.provider) {
            continue;
        }
        if batch.provider_id.is_none() {
            let event = BatchEvent::Finished {
                batch: batch.prepared.batch.clone(),
                state: "sin_confirmar".to_owned(),
                time: now(),
            };
            if let Err(e) = append(shared.study(), &event) {
                shared.fail_to_write(&e);
            }
            continue;
        }
        collect(&shared, provider.kind, model, batch, true).await;
    }
}
