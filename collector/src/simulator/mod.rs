//! A local server that speaks the providers' APIs as their public references describe them (the
//! same shapes as the fixtures in `collector/tests/fixtures/`), for the tests, the benchmark and
//! `recolector simulador` (a rehearsal of a study without keys or money).
//!
//! Routes: `POST /v1/responses` (OpenAI), `POST /v1/messages` (Anthropic),
//! `POST /v1beta/models/{model}:generateContent` (Gemini), `POST /chat/completions` and
//! `POST /v1/chat/completions` (Perplexity's Sonar API and OpenAI-compatible servers),
//! `GET /search.json` (SerpApi: `engine=google` with its AI Overview, inline, deferred to a
//! `page_token` or absent; `engine=google_ai_overview`; `engine=google_ai_mode`), the batch APIs
//! (`batches`), and `GET /grounding-api-redirect/{hex}` (the 302 Gemini's grounding links go
//! through). Answers name brands from a list and cite their domains, deterministically, and
//! consult more sources than they cite. Faults queued per route (429 with `Retry-After` or with
//! the provider's rate-limit headers, 500, a delay past the client's timeout, a malformed body,
//! an empty answer, a refusal) are served first. Every request is recorded for the tests to check
//! field by field; the stand-in also counts what a provider would bill and the requests that
//! arrive inside a pause it asked for.
//!
//! Modules: `state` (what it holds), `answers` (what it says), `batches` (the batch APIs).

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::config::Kind;

mod answers;
mod batches;
mod state;

pub use answers::{Overview, overview_of};
pub use state::{Behaviour, Fault, PAUSE_GRACE, PauseArrivals, Recorded, Served};

use answers::{Mode, compose, hash, hex, respond, serp_blocks, unhex};
use batches::batch_route;
use state::{Reply, State, json_reply, lock};

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
