//! A local server that speaks the four providers' APIs as their public references describe them
//! (the same shapes as the fixtures in `collector/tests/fixtures/`), for the tests, the benchmark
//! and `recolector simulador` (a rehearsal of a study without keys or money).
//!
//! Routes: `POST /v1/responses` (OpenAI), `POST /v1/messages` (Anthropic),
//! `POST /v1beta/models/{model}:generateContent` (Gemini), `POST /chat/completions` and
//! `POST /v1/chat/completions` (OpenAI-compatible, Perplexity's fields), and
//! `GET /grounding-api-redirect/{hex}` (the 302 Gemini's grounding links go through). Answers name
//! brands from a list and cite their domains, deterministically. Faults queued per route (429
//! with `Retry-After`, 500, a delay past the client's timeout, a malformed body, an empty answer,
//! a refusal) are served first. Every request is recorded for the tests to check field by field.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::config::Kind;

/// A fault served instead of a normal answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// This status, with `Retry-After: seconds` when given, and a JSON error body.
    Status(u16, Option<u64>),
    /// Waits this long, then answers normally (a client with a shorter timeout gives up first).
    Delay(Duration),
    /// 200 with a body that is not the API's JSON.
    Malformed,
    /// 200 with an answer without text.
    Empty,
    /// 200 with the provider's refusal.
    Refusal,
    /// 429 saying the wait the way the provider does without `Retry-After`: OpenAI's
    /// `x-ratelimit-remaining-requests: 0` and `x-ratelimit-reset-requests`, Anthropic's
    /// `anthropic-ratelimit-requests-remaining: 0` and `…-reset` (RFC 3339), Gemini's
    /// `RetryInfo.retryDelay` in the error body; `retry-after-ms` for the others.
    RateLimit(Duration),
}

/// Requests that arrived while the provider had told the client to wait (after a 429 it served):
/// `inside` arrived more than [`PAUSE_GRACE`] after the 429 left the stand-in, so the client
/// sent them knowing of the pause; `at_start` arrived within the grace, in flight already when
/// the 429 was written (a client cannot know of a pause before the 429 reaches it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PauseArrivals {
    pub inside: u64,
    pub at_start: u64,
}

/// See [`PauseArrivals`].
pub const PAUSE_GRACE: Duration = Duration::from_millis(50);

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names in lowercase.
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// How the simulator answers.
#[derive(Debug, Clone)]
pub struct Behaviour {
    /// Brands to name: (name, domain).
    pub brands: Vec<(String, String)>,
    /// Time taken by every answer.
    pub latency: Duration,
    /// Usage reported by every answer: input and output tokens.
    pub usage: (u64, u64),
    /// How long a batch takes, from its creation until it ends.
    pub batch_latency: Duration,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            brands: vec![
                ("Movistar".into(), "movistar.com.ar".into()),
                ("Claro".into(), "claro.com.ar".into()),
                ("Personal".into(), "personal.com.ar".into()),
            ],
            latency: Duration::ZERO,
            usage: (1000, 300),
            batch_latency: Duration::from_millis(200),
        }
    }
}

/// A batch the stand-in holds: its calls, and their results once it ended.
#[derive(Debug)]
struct SimBatch {
    kind: Kind,
    model: String,
    host: String,
    created: Instant,
    display_name: String,
    /// (`custom_id`, the request body of the call).
    items: Vec<(String, Value)>,
    /// Each call's response, or an error, once the batch ended.
    results: Option<Vec<(String, Result<Value, String>)>>,
}

#[derive(Debug)]
struct State {
    behaviour: Behaviour,
    faults: Mutex<BTreeMap<&'static str, VecDeque<Fault>>>,
    requests: Mutex<Vec<Recorded>>,
    record: bool,
    counter: AtomicU64,
    /// Pauses the stand-in asked for, per route: when the 429 left, and when the pause ends.
    pauses: Mutex<BTreeMap<&'static str, Vec<(Instant, Instant)>>>,
    pause_arrivals: Mutex<PauseArrivals>,
    /// Every answer served with the sources it cited and consulted.
    served_sources: Mutex<Vec<Served>>,
    /// Answers generated (200s with a body a provider bills), counted when the request arrives:
    /// a provider bills what it generates even if the client is gone before it is delivered.
    billed: AtomicU64,
    /// Batches by id, uploaded files by id (OpenAI's input and output files), batches created,
    /// and batch calls that will error.
    batches: Mutex<BTreeMap<String, SimBatch>>,
    files: Mutex<BTreeMap<String, Vec<u8>>>,
    batches_created: AtomicU64,
    failing_batch_items: AtomicU64,
}

/// A running simulator; dropped, it stops.
#[derive(Debug)]
pub struct Simulator {
    pub addr: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Simulator {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn route_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Openai => "openai",
        Kind::Anthropic => "anthropic",
        Kind::Google => "google",
        // Perplexity's Sonar API is an OpenAI-compatible route with Perplexity's fields.
        Kind::Perplexity | Kind::Compatible => "compatible",
        Kind::Serpapi => "serpapi",
    }
}

impl Simulator {
    /// Starts on `addr` (`127.0.0.1:0` for any free port). `record`: keep every request.
    pub async fn start(addr: &str, behaviour: Behaviour, record: bool) -> std::io::Result<Simulator> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            behaviour,
            faults: Mutex::new(BTreeMap::new()),
            requests: Mutex::new(Vec::new()),
            record,
            counter: AtomicU64::new(0),
            billed: AtomicU64::new(0),
            pauses: Mutex::new(BTreeMap::new()),
            pause_arrivals: Mutex::new(PauseArrivals::default()),
            served_sources: Mutex::new(Vec::new()),
            batches: Mutex::new(BTreeMap::new()),
            files: Mutex::new(BTreeMap::new()),
            batches_created: AtomicU64::new(0),
            failing_batch_items: AtomicU64::new(0),
        });
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&shared);
                tokio::spawn(async move {
                    let _ = serve(stream, state).await;
                });
            }
        });
        Ok(Simulator { addr, state, task })
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queues a fault for the next request of a provider's route.
    pub fn push_fault(&self, kind: Kind, fault: Fault) {
        lock(&self.state.faults).entry(route_of(kind)).or_default().push_back(fault);
    }

    /// Every request so far (when recording).
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state.requests).clone()
    }

    /// Answers given so far (faults included).
    pub fn served(&self) -> u64 {
        self.state.counter.load(Ordering::Relaxed)
    }

    /// Requests that arrived inside a pause the stand-in asked for (see [`PauseArrivals`]).
    pub fn pause_arrivals(&self) -> PauseArrivals {
        *lock(&self.state.pause_arrivals)
    }

    /// Batches created so far (every provider).
    pub fn batches_created(&self) -> u64 {
        self.state.batches_created.load(Ordering::Relaxed)
    }

    /// The next `calls` calls of batches that end error (not billed), each as its provider says it.
    pub fn fail_batch_items(&self, calls: u64) {
        self.state.failing_batch_items.fetch_add(calls, Ordering::Relaxed);
    }

    /// Every answer served so far, with the sources it cited and consulted.
    pub fn served_sources(&self) -> Vec<Served> {
        lock(&self.state.served_sources).clone()
    }

    /// Pauses the stand-in asked for so far.
    pub fn pauses(&self) -> usize {
        lock(&self.state.pauses).values().map(Vec::len).sum()
    }

    /// Answers a provider would bill (normal, empty and refused answers; not faults), counted
    /// on arrival, whether or not the client stayed to read them.
    pub fn billed(&self) -> u64 {
        self.state.billed.load(Ordering::Relaxed)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn json_reply(status: u16, value: &Value) -> Reply {
    Reply {
        status,
        headers: vec![("content-type", "application/json".to_owned())],
        body: serde_json::to_vec(value).unwrap_or_default(),
    }
}

async fn serve(mut stream: TcpStream, state: Arc<State>) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut buffer = Vec::with_capacity(8192);
    loop {
        // Read until a whole head is there.
        let (head_len, method, path, headers) = loop {
            let mut slots = [httparse::EMPTY_HEADER; 64];
            let mut request = httparse::Request::new(&mut slots);
            match request.parse(&buffer) {
                Ok(httparse::Status::Complete(len)) => {
                    let headers: BTreeMap<String, String> = request
                        .headers
                        .iter()
                        .map(|h| (h.name.to_ascii_lowercase(), String::from_utf8_lossy(h.value).into_owned()))
                        .collect();
                    break (
                        len,
                        request.method.unwrap_or("").to_owned(),
                        request.path.unwrap_or("").to_owned(),
                        headers,
                    );
                }
                Ok(httparse::Status::Partial) => {
                    let mut chunk = [0u8; 8192];
                    let n = stream.read(&mut chunk).await?;
                    if n == 0 {
                        return Ok(());
                    }
                    buffer.extend_from_slice(&chunk[..n]);
                }
                Err(_) => return Ok(()),
            }
        };
        let length: usize = headers.get("content-length").and_then(|v| v.trim().parse().ok()).unwrap_or(0);
        while buffer.len() < head_len + length {
            let mut chunk = [0u8; 8192];
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        let body = buffer[head_len..head_len + length].to_vec();
        buffer.drain(..head_len + length);
        let recorded = Recorded { method, path, headers, body };
        let reply = answer(&state, &recorded).await;
        if state.record {
            lock(&state.requests).push(recorded);
        }
        let mut out =
            format!("HTTP/1.1 {} {}\r\ncontent-length: {}\r\n", reply.status, reason(reply.status), reply.body.len());
        for (name, value) in &reply.headers {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        bytes.extend_from_slice(&reply.body);
        stream.write_all(&bytes).await?;
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

async fn answer(state: &State, request: &Recorded) -> Reply {
    let path = request.path.split('?').next().unwrap_or("");
    if let Some(reply) = batch_route(state, request, path) {
        return reply;
    }
    if request.method == "GET" {
        if let Some(hex) = request.path.strip_prefix("/grounding-api-redirect/") {
            return match unhex(hex) {
                Some(target) => Reply { status: 302, headers: vec![("location", target)], body: Vec::new() },
                None => json_reply(404, &json!({"error": "not found"})),
            };
        }
        if path == "/search.json" || path == "/search" {
            return serp(state, request).await;
        }
        return json_reply(404, &json!({"error": "not found"}));
    }
    let kind = match path {
        "/v1/responses" => Kind::Openai,
        "/v1/messages" => Kind::Anthropic,
        "/chat/completions" | "/v1/chat/completions" => Kind::Compatible,
        p if p.starts_with("/v1beta/models/") && p.ends_with(":generateContent") => Kind::Google,
        _ => return json_reply(404, &json!({"error": {"message": "not found"}})),
    };
    let (n, fault) = arrive(state, kind);
    let body = request.json();
    let model = match kind {
        Kind::Google => path.trim_start_matches("/v1beta/models/").trim_end_matches(":generateContent").to_owned(),
        _ => body["model"].as_str().unwrap_or("").to_owned(),
    };
    let mut delay = state.behaviour.latency;
    let mut mode = Mode::Normal;
    match fault {
        Some(Fault::Status(status, retry_after)) => {
            let mut reply =
                json_reply(status, &json!({"error": {"type": "simulated", "message": format!("simulated {status}")}}));
            if let Some(seconds) = retry_after {
                reply.headers.push(("retry-after", seconds.to_string()));
                if status == 429 {
                    pause(state, kind, Duration::from_secs(seconds));
                }
            }
            return reply;
        }
        Some(Fault::RateLimit(wait)) => {
            pause(state, kind, wait);
            return rate_limited(kind, wait);
        }
        Some(Fault::Delay(extra)) => delay += extra,
        Some(Fault::Malformed) => {
            return Reply {
                status: 200,
                headers: vec![("content-type", "application/json".to_owned())],
                body: b"{\"output\": [ this is not json".to_vec(),
            };
        }
        Some(Fault::Empty) => mode = Mode::Empty,
        Some(Fault::Refusal) => mode = Mode::Refusal,
        None => {}
    }
    state.billed.fetch_add(1, Ordering::Relaxed);
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let host = request.headers.get("host").cloned().unwrap_or_default();
    json_reply(200, &respond(state, kind, &model, &body, mode, n, &host))
}

// ---- Batch APIs ----

/// The batch routes of the three providers, as their references describe them: OpenAI's Files
/// (`POST /v1/files`, `GET /v1/files/{id}/content`) and Batch (`POST /v1/batches`,
/// `GET /v1/batches/{id}`); Anthropic's Message Batches (`POST /v1/messages/batches`,
/// `GET /v1/messages/batches/{id}`, `…/results`); Gemini's batch mode
/// (`POST /v1beta/models/{model}:batchGenerateContent`, `GET /v1beta/batches/{id}`).
fn batch_route(state: &State, request: &Recorded, path: &str) -> Option<Reply> {
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
fn multipart_file(body: &[u8], boundary: &str) -> Option<Vec<u8>> {
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

fn create_batch(
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
fn batch_results(state: &State, id: &str) -> Option<Vec<(String, Result<Value, String>)>> {
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

fn openai_batch(state: &State, id: &str, metadata: &Value) -> Value {
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

fn anthropic_batch(state: &State, id: &str) -> Value {
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

fn gemini_batch(state: &State, id: &str) -> Value {
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

/// The question of a request body, as each API carries it.
fn prompt_of(kind: Kind, body: &Value) -> String {
    match kind {
        Kind::Openai => body["input"].as_str().unwrap_or(""),
        Kind::Anthropic => body["messages"][0]["content"].as_str().unwrap_or(""),
        Kind::Google => body["contents"][0]["parts"][0]["text"].as_str().unwrap_or(""),
        _ => body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or(""),
    }
    .to_owned()
}

/// The response body of one request (direct, or an item of a batch), recorded with its sources.
fn respond(state: &State, kind: Kind, model: &str, body: &Value, mode: Mode, n: u64, host: &str) -> Value {
    let prompt = prompt_of(kind, body);
    let composed = match mode {
        Mode::Normal if prompt.starts_with("MARCAS: ") => Composed { text: judge(&prompt), ..Composed::default() },
        Mode::Normal => compose(&state.behaviour, &prompt, model, n),
        Mode::Empty | Mode::Refusal => Composed::default(),
    };
    let refusal = mode == Mode::Refusal;
    let (input, output) = state.behaviour.usage;
    // OpenAI lists the consulted sources only when `include` asks for them.
    let with_sources =
        body["include"].as_array().is_some_and(|i| i.iter().any(|v| v == "web_search_call.action.sources"));
    let value = match kind {
        Kind::Openai => openai(model, &prompt, &composed, with_sources, refusal, input, output, n),
        Kind::Anthropic => anthropic(model, &prompt, &composed, refusal, input, output, n),
        Kind::Google => google(model, &composed, refusal, input, output, host),
        _ => compatible(model, &composed, refusal, input, output, n),
    };
    lock(&state.served_sources).push(Served {
        kind,
        model: model.to_owned(),
        prompt,
        cited: composed.cited,
        consulted: composed.consulted,
    });
    value
}

/// Counts a request of a route (inside a pause or not) and takes the fault queued for it.
fn arrive(state: &State, kind: Kind) -> (u64, Option<Fault>) {
    let n = state.counter.fetch_add(1, Ordering::Relaxed);
    let arrived = Instant::now();
    if let Some(windows) = lock(&state.pauses).get(route_of(kind)) {
        let mut arrivals = lock(&state.pause_arrivals);
        for (from, until) in windows {
            if arrived > *from + PAUSE_GRACE && arrived < *until {
                arrivals.inside += 1;
            } else if arrived >= *from && arrived <= *from + PAUSE_GRACE {
                arrivals.at_start += 1;
            }
        }
    }
    (n, lock(&state.faults).get_mut(route_of(kind)).and_then(VecDeque::pop_front))
}

/// What an ordinary Google search shows of an AI Overview, in the stand-in: decided by the query,
/// so tests know which searches have one, which Google defers, and which have none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overview {
    /// In the results page (`ai_overview` with `text_blocks`).
    Inline,
    /// Deferred: the page holds a `page_token`, and `engine=google_ai_overview` fetches it.
    Deferred,
    /// No AI Overview for this search.
    Absent,
}

/// See [`Overview`].
pub fn overview_of(query: &str) -> Overview {
    match hash(query) % 4 {
        0 => Overview::Absent,
        1 => Overview::Deferred,
        _ => Overview::Inline,
    }
}

/// SerpApi's `GET /search.json`, as its references show it (SerpApi's *Google AI Overview
/// Results*, *Google AI Overview API*, *Google AI Mode API*): `engine=google` with the
/// `ai_overview` block (inline, deferred to a `page_token`, or absent), `engine=google_ai_overview`
/// with the `page_token`, and `engine=google_ai_mode`. The key comes as `api_key`.
async fn serp(state: &State, request: &Recorded) -> Reply {
    let query: BTreeMap<String, String> =
        url::form_urlencoded::parse(request.path.split_once('?').map_or("", |q| q.1).as_bytes()).into_owned().collect();
    let get = |name: &str| query.get(name).cloned().unwrap_or_default();
    if get("api_key").is_empty() {
        return json_reply(
            401,
            &json!({"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}),
        );
    }
    let (n, fault) = arrive(state, Kind::Serpapi);
    match fault {
        Some(Fault::Status(status, retry_after)) => {
            let mut reply = json_reply(status, &json!({"error": format!("simulated {status}")}));
            if let Some(seconds) = retry_after {
                reply.headers.push(("retry-after", seconds.to_string()));
                if status == 429 {
                    pause(state, Kind::Serpapi, Duration::from_secs(seconds));
                }
            }
            return reply;
        }
        Some(Fault::RateLimit(wait)) => {
            pause(state, Kind::Serpapi, wait);
            return rate_limited(Kind::Serpapi, wait);
        }
        Some(Fault::Malformed) => {
            return Reply {
                status: 200,
                headers: vec![("content-type", "application/json".to_owned())],
                body: b"{\"search_metadata\": [ this is not json".to_vec(),
            };
        }
        Some(Fault::Delay(extra)) => tokio::time::sleep(extra).await,
        _ => {}
    }
    let engine = get("engine");
    let (q, hl, gl, location) = if engine == "google_ai_overview" {
        // The page token carries the search it belongs to.
        let token = unhex(&get("page_token")).unwrap_or_default();
        let mut parts = token.split('\u{1f}').map(str::to_owned);
        (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        )
    } else {
        (get("q"), get("hl"), get("gl"), get("location"))
    };
    if q.is_empty() {
        return json_reply(400, &json!({"error": "Missing query `q` parameter."}));
    }
    state.billed.fetch_add(1, Ordering::Relaxed);
    if !state.behaviour.latency.is_zero() {
        tokio::time::sleep(state.behaviour.latency).await;
    }
    let id = format!("{:024x}", hash(&format!("{q}{n}")) as u128 * 0x1_0000_0001);
    let metadata = json!({
        "id": id,
        "status": "Success",
        "json_endpoint": format!("https://serpapi.com/searches/{id}.json"),
        "created_at": "2026-11-28 14:03:11 UTC",
        "processed_at": "2026-11-28 14:03:11 UTC",
        "google_url": format!("https://www.google.com/search?q={}&hl={hl}&gl={gl}", url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()),
        "total_time_taken": 2.41
    });
    let mut parameters = json!({"engine": engine, "q": q, "hl": hl, "gl": gl, "device": "desktop"});
    if !location.is_empty() {
        parameters["location_requested"] = json!(location);
        parameters["location_used"] = json!(format!("{location},Argentina"));
    }
    let surface =
        if engine == "google_ai_mode" { crate::surface::GOOGLE_AI_MODE } else { crate::surface::GOOGLE_AI_OVERVIEW };
    let composed = compose(&state.behaviour, &q, surface, 0);
    let (blocks, references) = serp_blocks(&composed);
    let mut value = json!({"search_metadata": metadata, "search_parameters": parameters});
    match engine.as_str() {
        "google" => {
            value["organic_results"] =
                json!([{"position": 1, "title": "Resultado", "link": "https://www.example.com/"}]);
            match overview_of(&q) {
                Overview::Absent => return json_reply(200, &value),
                Overview::Deferred => {
                    let token = hex(&[q.as_str(), &hl, &gl, &location].join("\u{1f}"));
                    value["ai_overview"] = json!({
                        "page_token": token,
                        "serpapi_link": format!("https://serpapi.com/search.json?engine=google_ai_overview&page_token={token}")
                    });
                    return json_reply(200, &value);
                }
                Overview::Inline => value["ai_overview"] = json!({"text_blocks": blocks, "references": references}),
            }
        }
        "google_ai_overview" => value["ai_overview"] = json!({"text_blocks": blocks, "references": references}),
        "google_ai_mode" => {
            value["text_blocks"] = blocks;
            value["references"] = references;
            value["search_metadata"]["google_ai_mode_url"] =
                json!(format!("https://www.google.com/search?udm=50&q={q}"));
        }
        other => return json_reply(400, &json!({"error": format!("Unsupported `{other}` search engine.")})),
    }
    lock(&state.served_sources).push(Served {
        kind: Kind::Serpapi,
        model: surface.to_owned(),
        prompt: q,
        cited: composed.cited,
        consulted: composed.consulted,
    });
    json_reply(200, &value)
}

/// The `text_blocks` and `references` of an AI answer, as SerpApi shapes them: a paragraph citing
/// the first source, a list of the brands each citing its page, the consulted sources numbered.
fn serp_blocks(composed: &Composed) -> (Value, Value) {
    let index_of = |source: &(String, String)| composed.consulted.iter().position(|c| c == source);
    let first: Vec<usize> = composed.cited.first().and_then(index_of).into_iter().collect();
    let items: Vec<Value> = composed
        .cited
        .iter()
        .skip(1)
        .map(|source| {
            let name = source.1.split(':').next().unwrap_or("").to_owned();
            json!({"title": name, "snippet": "planes, precios y cobertura", "reference_indexes": index_of(source).into_iter().collect::<Vec<_>>()})
        })
        .collect();
    let mut blocks = vec![json!({"type": "paragraph", "snippet": composed.text, "reference_indexes": first})];
    if !items.is_empty() {
        blocks.push(json!({"type": "heading", "snippet": "Para comparar"}));
        blocks.push(json!({"type": "list", "list": items}));
    }
    let references: Vec<Value> = composed
        .consulted
        .iter()
        .enumerate()
        .map(|(index, (link, title))| {
            let source = url::Url::parse(link).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
            json!({"title": title, "link": link, "snippet": "…", "source": source, "index": index})
        })
        .collect();
    (Value::Array(blocks), Value::Array(references))
}

/// What the stand-in answered: the text, the sources it cites and the ones it consulted, as
/// (URL of the page, title). Each API serves them in its own shape.
#[derive(Debug, Clone, Default)]
struct Composed {
    text: String,
    cited: Vec<(String, String)>,
    consulted: Vec<(String, String)>,
}

/// One answer the stand-in served, with the sources it cited and consulted, in the API-neutral
/// form of [`Composed`] (Gemini's redirects stand for these URLs; OpenAI's consulted sources carry
/// only the URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub kind: Kind,
    /// The model asked (for Gemini, from the path).
    pub model: String,
    pub prompt: String,
    pub cited: Vec<(String, String)>,
    pub consulted: Vec<(String, String)>,
}

/// Records a pause the stand-in asks for, from now.
fn pause(state: &State, kind: Kind, wait: Duration) {
    let now = Instant::now();
    lock(&state.pauses).entry(route_of(kind)).or_default().push((now, now + wait));
}

/// A 429 as each provider says it without `Retry-After` (OpenAI's and Anthropic's rate-limit
/// headers, Gemini's `RetryInfo`; `retry-after-ms` elsewhere).
fn rate_limited(kind: Kind, wait: Duration) -> Reply {
    let seconds = wait.as_secs_f64();
    match kind {
        Kind::Openai => {
            let mut reply = json_reply(
                429,
                &json!({"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}),
            );
            reply.headers.push(("x-ratelimit-limit-requests", "500".to_owned()));
            reply.headers.push(("x-ratelimit-remaining-requests", "0".to_owned()));
            reply.headers.push(("x-ratelimit-reset-requests", format!("{}ms", wait.as_millis())));
            reply.headers.push(("x-ratelimit-remaining-tokens", "150000".to_owned()));
            reply.headers.push(("x-ratelimit-reset-tokens", "0s".to_owned()));
            reply
        }
        Kind::Anthropic => {
            let mut reply = json_reply(
                429,
                &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"}}),
            );
            let reset = SystemTime::now() + wait;
            reply.headers.push(("anthropic-ratelimit-requests-limit", "50".to_owned()));
            reply.headers.push(("anthropic-ratelimit-requests-remaining", "0".to_owned()));
            reply.headers.push(("anthropic-ratelimit-requests-reset", rfc3339_of(reset)));
            reply
        }
        Kind::Google => json_reply(
            429,
            &json!({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": format!("{seconds}s")}
            ]}}),
        ),
        _ => {
            let mut reply = json_reply(429, &json!({"error": {"message": "rate limited", "type": "rate_limit"}}));
            reply.headers.push(("retry-after-ms", wait.as_millis().to_string()));
            reply
        }
    }
}

/// A time as RFC 3339 with milliseconds, UTC.
fn rfc3339_of(time: SystemTime) -> String {
    let since = time.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let (_, whole) = crate::journal::date_and_time(SystemTime::UNIX_EPOCH + Duration::from_secs(since.as_secs()));
    format!("{}.{:03}Z", whole.trim_end_matches('Z'), since.subsec_millis())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    Empty,
    Refusal,
}

fn hash(text: &str) -> u64 {
    // FNV-1a: stable across runs and platforms.
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A deterministic answer: two or three brands in an order that depends on the question, the
/// model and the answer's number, each cited by its domain, and one neutral source cited; it also
/// consulted, without citing them, another brand's page (when there is one left) and a neutral
/// comparison site.
fn compose(behaviour: &Behaviour, prompt: &str, model: &str, n: u64) -> Composed {
    let brands = &behaviour.brands;
    if brands.is_empty() {
        return Composed { text: format!("Sobre «{prompt}»: depende de lo que busque."), ..Composed::default() };
    }
    let seed = hash(prompt) ^ hash(model).rotate_left(17) ^ (n % 3);
    let count = 2 + (seed % 2) as usize;
    let first = (seed / 7) as usize % brands.len();
    let chosen: Vec<&(String, String)> =
        (0..count.min(brands.len())).map(|i| &brands[(first + i * 2) % brands.len()]).collect();
    let names: Vec<&str> = chosen.iter().map(|b| b.0.as_str()).collect();
    let text = format!(
        "Para «{prompt}», las opciones que más se recomiendan son {}. {} suele destacar por precio y atención.",
        names.join(", "),
        names[0]
    );
    let page = |(name, domain): &(String, String)| (format!("https://www.{domain}/planes"), format!("{name}: planes"));
    let mut cited: Vec<(String, String)> = chosen.iter().map(|b| page(b)).collect();
    cited.push(("https://www.infobae.com/economia/comparativa-2026/".to_owned(), "Comparativa 2026".to_owned()));
    let mut consulted = vec![("https://www.xataka.com.ar/moviles/guia-2026".to_owned(), "Guía 2026".to_owned())];
    consulted.extend(cited.iter().cloned());
    if let Some(other) = brands.iter().find(|b| !chosen.contains(b)) {
        let (name, domain) = other;
        consulted.push((format!("https://www.{domain}/ofertas"), format!("{name}: ofertas")));
    }
    Composed { text, cited, consulted }
}

/// A tone judge's reply to `tone::judge_prompt`: a label per listed brand, from a hash.
fn judge(prompt: &str) -> String {
    let first_line = prompt.lines().next().unwrap_or("").trim_start_matches("MARCAS: ");
    let labels: Vec<String> = first_line
        .split("; ")
        .filter_map(|pair| pair.split('=').next())
        .filter(|id| !id.is_empty())
        .map(|id| {
            let label = ["pos", "neu", "neg"][(hash(prompt) ^ hash(id)) as usize % 3];
            format!("\"{id}\": \"{label}\"")
        })
        .collect();
    format!("{{{}}}", labels.join(", "))
}

#[allow(clippy::too_many_arguments)]
fn openai(
    model: &str,
    prompt: &str,
    composed: &Composed,
    with_sources: bool,
    refusal: bool,
    input: u64,
    output: u64,
    n: u64,
) -> Value {
    let text = &composed.text;
    let content = if refusal {
        json!([{"type": "refusal", "refusal": ""}])
    } else {
        let annotations: Vec<Value> = composed
            .cited
            .iter()
            .map(|(url, title)| json!({"type": "url_citation", "start_index": 0, "end_index": text.len(), "url": url, "title": title}))
            .collect();
        json!([{"type": "output_text", "text": text, "annotations": annotations}])
    };
    let mut action = json!({"type": "search", "query": prompt, "queries": [prompt]});
    if with_sources {
        let mut sources: Vec<Value> =
            composed.consulted.iter().map(|(url, _)| json!({"type": "url", "url": url})).collect();
        // OpenAI's own data sources are listed too; they are not web pages.
        sources.push(json!({"type": "api", "name": "oai-sports"}));
        action["sources"] = Value::Array(sources);
    }
    json!({
        "id": format!("resp_sim{n}"),
        "object": "response",
        "created_at": 1_741_476_542,
        "status": "completed",
        "model": format!("{model}-2025-08-07"),
        "output": [
            {"type": "web_search_call", "id": format!("ws_sim{n}"), "status": "completed", "action": action},
            {"id": format!("msg_sim{n}"), "type": "message", "status": "completed", "role": "assistant", "content": content}
        ],
        "usage": {"input_tokens": input, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input + output}
    })
}

fn anthropic(model: &str, prompt: &str, composed: &Composed, refusal: bool, input: u64, output: u64, n: u64) -> Value {
    let results: Vec<Value> = composed
        .consulted
        .iter()
        .map(|(url, title)| json!({"type": "web_search_result", "url": url, "title": title, "encrypted_content": "EqgfCioIARgB", "page_age": "April 30, 2025"}))
        .collect();
    let citations: Vec<Value> = composed
        .cited
        .iter()
        .map(|(url, title)| json!({"type": "web_search_result_location", "url": url, "title": title, "encrypted_index": "Eo8BCioIAhgB", "cited_text": "…"}))
        .collect();
    let mut content = vec![
        json!({"type": "server_tool_use", "id": format!("srvtoolu_sim{n}"), "name": "web_search", "input": {"query": prompt}}),
        json!({"type": "web_search_tool_result", "tool_use_id": format!("srvtoolu_sim{n}"), "content": results}),
    ];
    if !refusal && !composed.text.is_empty() {
        content.push(json!({"type": "text", "text": composed.text, "citations": citations}));
    }
    json!({
        "id": format!("msg_sim{n}"),
        "type": "message",
        "role": "assistant",
        "model": if model.ends_with("-20250929") { model.to_owned() } else { format!("{model}-20250929") },
        "content": content,
        "stop_reason": if refusal { "refusal" } else { "end_turn" },
        "stop_sequence": null,
        "usage": {"input_tokens": input, "output_tokens": output, "server_tool_use": {"web_search_requests": 1}}
    })
}

fn google(model: &str, composed: &Composed, refusal: bool, input: u64, output: u64, host: &str) -> Value {
    let text = &composed.text;
    let chunks: Vec<Value> = composed
        .consulted
        .iter()
        .map(|(url, _)| {
            let domain = url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(|h| h.trim_start_matches("www.").to_owned()))
                .unwrap_or_default();
            json!({"web": {"uri": format!("http://{host}/grounding-api-redirect/{}", hex(url)), "title": domain}})
        })
        .collect();
    // One support per sentence of the text, each naming the chunks it rests on: together, every
    // cited source; the other chunks were consulted and are supported by nothing.
    let cited: Vec<usize> =
        composed.cited.iter().filter_map(|c| composed.consulted.iter().position(|s| s == c)).collect();
    let (first, rest) = cited.split_at(cited.len().min(1));
    let supports: Vec<Value> = [first, rest]
        .iter()
        .filter(|indices| !indices.is_empty())
        .map(|indices| json!({"segment": {"startIndex": 0, "endIndex": text.len(), "text": text}, "groundingChunkIndices": indices}))
        .collect();
    let parts = if text.is_empty() { json!([]) } else { json!([{"text": text}]) };
    json!({
        "candidates": [{
            "content": {"parts": parts, "role": "model"},
            "finishReason": if refusal { "SAFETY" } else { "STOP" },
            "groundingMetadata": {
                "webSearchQueries": ["consulta simulada"],
                "searchEntryPoint": {"renderedContent": "<!-- HTML and CSS for the search widget -->"},
                "groundingChunks": chunks,
                "groundingSupports": supports
            }
        }],
        "usageMetadata": {"promptTokenCount": input, "candidatesTokenCount": output, "totalTokenCount": input + output},
        "modelVersion": format!("{model}-001")
    })
}

fn compatible(model: &str, composed: &Composed, refusal: bool, input: u64, output: u64, n: u64) -> Value {
    let citations: Vec<&str> = composed.cited.iter().map(|(url, _)| url.as_str()).collect();
    let results: Vec<Value> = composed
        .consulted
        .iter()
        .map(|(url, title)| json!({"title": title, "url": url, "date": "2026-03-01"}))
        .collect();
    json!({
        "id": format!("sim-{n}"),
        "model": model,
        "created": 1_724_369_245,
        "object": "chat.completion",
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output, "search_context_size": "low", "num_search_queries": 1},
        "citations": citations,
        "search_results": results,
        "choices": [{"index": 0, "finish_reason": if refusal { "content_filter" } else { "stop" }, "message": {"role": "assistant", "content": composed.text}}]
    })
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<String> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect();
    String::from_utf8(bytes?).ok()
}
