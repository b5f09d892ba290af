//! Sending one call: timeouts, retries with exponential backoff and jitter on 429, 408 and 5xx
//! (honouring `Retry-After` and `retry-after-ms`), a pacer per provider (requests per minute,
//! shared pauses after a 429), and Gemini's grounding redirects resolved to the real pages.
//! Keys travel only in request headers; nothing here prints or stores them.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use crate::config::{Kind, Retries};
use crate::providers::{self, Reply, Request, google};

/// Why a run stops early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    Interrupted,
    Budget,
    Fatal(String),
}

/// A stop every task sees: set once, awaited anywhere.
#[derive(Debug, Clone)]
pub struct Stop {
    sender: watch::Sender<Option<StopReason>>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop { sender: watch::channel(None).0 }
    }
}

impl Stop {
    /// Stops the run (the first reason is kept).
    pub fn trigger(&self, reason: StopReason) {
        self.sender.send_if_modified(|current| {
            if current.is_none() {
                *current = Some(reason);
                true
            } else {
                false
            }
        });
    }

    pub fn reason(&self) -> Option<StopReason> {
        self.sender.borrow().clone()
    }

    pub fn is_set(&self) -> bool {
        self.sender.borrow().is_some()
    }

    /// Resolves when the run is stopped.
    pub async fn wait(&self) {
        let mut receiver = self.sender.subscribe();
        let _ = receiver.wait_for(Option::is_some).await;
    }
}

/// Starts at most one call per interval; a 429's pause holds every caller of the provider.
#[derive(Debug)]
pub struct Pacer {
    interval: Duration,
    next: Mutex<Instant>,
}

impl Pacer {
    pub fn per_minute(requests: u32) -> Pacer {
        Pacer { interval: Duration::from_secs(60) / requests.max(1), next: Mutex::new(Instant::now()) }
    }

    /// Waits for this caller's slot.
    pub async fn slot(&self) {
        let at = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let at = (*next).max(now);
            *next = at + self.interval;
            at
        };
        tokio::time::sleep_until(at.into()).await;
    }

    /// No call starts before `until`.
    pub fn hold(&self, until: Instant) {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if until > *next {
            *next = until;
        }
    }
}

/// Why a call gave no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// 401 or 403: the key is wrong or lacks access; the run stops.
    Auth { status: u16 },
    /// Another 4xx: the request itself is wrong; retrying would not help.
    Rejected { status: u16, detail: String },
    /// Retries used up; the last cause.
    Exhausted { attempts: u32, last: String },
    /// The run was stopped while the call waited to retry.
    Stopped,
}

impl Failure {
    /// The cause as the summary and `incidencias.jsonl` name it.
    pub fn cause(&self) -> String {
        match self {
            Failure::Auth { status } => format!("http_{status}"),
            Failure::Rejected { status, .. } => format!("http_{status}"),
            Failure::Exhausted { last, .. } => last.split(':').next().unwrap_or("error").to_owned(),
            Failure::Stopped => "detenida".to_owned(),
        }
    }

    pub fn detail(&self) -> String {
        match self {
            Failure::Auth { status } => {
                format!("HTTP {status}: la clave no es válida o no tiene acceso a este modelo")
            }
            Failure::Rejected { status, detail } => format!("HTTP {status}: {detail}"),
            Failure::Exhausted { attempts, last } => format!("{attempts} intentos; el último: {last}"),
            Failure::Stopped => "la corrida se detuvo antes de terminar esta llamada".to_owned(),
        }
    }
}

/// One provider as the collector reaches it.
#[derive(Debug)]
pub struct Endpoint {
    pub name: String,
    pub kind: Kind,
    pub base_url: String,
    pub key: Option<String>,
    pub pacer: Pacer,
}

/// What happened on the way to a reply.
#[derive(Debug, Default, Clone, Copy)]
pub struct Attempts {
    pub count: u32,
}

/// What one request came back with.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A readable answer.
    Reply(Reply),
    /// Worth another attempt: the cause (`http_429: …`), the wait the provider asked for, and
    /// whether the provider may have billed it (a timeout or a cut mid-answer: the provider may
    /// have finished; a 429 or a 5xx: it did not).
    Retry { cause: String, hint: Option<Duration>, maybe_billed: bool },
    /// 401 or 403.
    Auth { status: u16 },
    /// Another 4xx.
    Rejected { status: u16, detail: String },
}

static JITTER: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);

/// A number in [0, 1) for jitter (xorshift; no need for a cryptographic source).
fn jitter() -> f64 {
    let seed = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut x = JITTER.fetch_add(seed | 1, Ordering::Relaxed) ^ seed;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// The wait before retry number `retry` (1 for the first retry): exponential with "equal
/// jitter" (half fixed, half random), at most `espera_maxima_s`.
pub fn backoff(retries: &Retries, retry: u32) -> Duration {
    let base = retries.first_wait_ms as f64 * 2f64.powi(retry.saturating_sub(1).min(30) as i32);
    let capped = base.min(retries.max_wait_s as f64 * 1000.0);
    Duration::from_millis((capped / 2.0 + capped / 2.0 * jitter()) as u64)
}

/// The provider's own hint: `retry-after-ms`, or `Retry-After` as seconds or an HTTP date.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) =
        headers.get("retry-after-ms").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok())
    {
        return Some(Duration::from_millis(ms.max(0.0) as u64));
    }
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return Some(Duration::from_millis((seconds.max(0.0) * 1000.0) as u64));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

fn retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 520..=529)
}

/// Removes the key from a text that might echo it.
fn scrub(text: &str, key: Option<&str>) -> String {
    let mut text: String = text.chars().take(300).collect();
    if let Some(key) = key.filter(|k| k.len() >= 4) {
        text = text.replace(key, "[clave]");
    }
    text.replace(['\n', '\r'], " ")
}

/// Sends one request and reads what came back. A 429 pauses the provider (see [`Pacer`]).
pub async fn attempt(client: &reqwest::Client, endpoint: &Endpoint, request: &Request, timeout: Duration) -> Outcome {
    let url = format!("{}{}", endpoint.base_url, request.path);
    let key = endpoint.key.as_deref();
    let mut builder = client.post(&url).timeout(timeout).body(request.body.clone());
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    let response = match builder.send().await {
        Ok(response) => response,
        Err(e) if e.is_timeout() => {
            let cause = format!("tiempo_agotado: sin respuesta en {} s", timeout.as_secs());
            return Outcome::Retry { cause, hint: None, maybe_billed: true };
        }
        // Refused before anything left: nothing to bill.
        Err(e) if e.is_connect() => {
            let cause = format!("red: {}", scrub(&e.without_url().to_string(), key));
            return Outcome::Retry { cause, hint: None, maybe_billed: false };
        }
        Err(e) => {
            let cause = format!("red: {}", scrub(&e.without_url().to_string(), key));
            return Outcome::Retry { cause, hint: None, maybe_billed: true };
        }
    };
    let status = response.status().as_u16();
    let hint = retry_after(response.headers());
    let body = match response.bytes().await {
        Ok(body) => body,
        Err(e) if e.is_timeout() => {
            let cause = "tiempo_agotado: la respuesta no terminó a tiempo".to_owned();
            return Outcome::Retry { cause, hint: None, maybe_billed: true };
        }
        Err(e) => {
            let cause = format!("red: {}", scrub(&e.without_url().to_string(), key));
            return Outcome::Retry { cause, hint: None, maybe_billed: true };
        }
    };
    if (200..300).contains(&status) {
        return match providers::parse(endpoint.kind, &body) {
            Ok(reply) => Outcome::Reply(reply),
            // The provider answered (and billed); the body is not what its reference says.
            Err(e) => {
                Outcome::Retry { cause: format!("cuerpo_ilegible: {}", scrub(&e, key)), hint: None, maybe_billed: true }
            }
        };
    }
    if status == 401 || status == 403 {
        return Outcome::Auth { status };
    }
    let detail = scrub(&String::from_utf8_lossy(&body), key);
    if !retryable(status) {
        return Outcome::Rejected { status, detail };
    }
    if status == 429
        && let Some(wait) = hint
    {
        endpoint.pacer.hold(Instant::now() + wait);
    }
    Outcome::Retry { cause: format!("http_{status}: {detail}"), hint, maybe_billed: false }
}

/// Sends one call until it gives a reply, fails for good, uses up its attempts or the run stops
/// (the judge's calls; a collection journals each attempt itself, see `run`).
pub async fn send(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    request: &Request,
    retries: &Retries,
    stop: &Stop,
) -> Result<(Reply, Attempts), Failure> {
    let mut attempts = Attempts::default();
    let mut last = String::new();
    while attempts.count < retries.attempts {
        if attempts.count > 0 && stop.is_set() {
            return Err(Failure::Stopped);
        }
        attempts.count += 1;
        let hint = match attempt(client, endpoint, request, Duration::from_secs(retries.timeout_s)).await {
            Outcome::Reply(reply) => return Ok((reply, attempts)),
            Outcome::Auth { status } => return Err(Failure::Auth { status }),
            Outcome::Rejected { status, detail } => return Err(Failure::Rejected { status, detail }),
            Outcome::Retry { cause, hint, .. } => {
                last = cause;
                hint
            }
        };
        if attempts.count >= retries.attempts {
            break;
        }
        let wait = hint.unwrap_or_else(|| backoff(retries, attempts.count));
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = stop.wait() => return Err(Failure::Stopped),
        }
    }
    Err(Failure::Exhausted { attempts: attempts.count, last })
}

/// Replaces Gemini's grounding redirects by the pages they lead to (one GET each, redirects not
/// followed, `Location` read); when that fails, by the site named in the title; otherwise the
/// source is left as it came.
pub async fn resolve_redirects(client: &reqwest::Client, reply: &mut Reply) {
    for source in &mut reply.sources {
        if !google::redirect_of(&source.url) {
            continue;
        }
        let located = match client.get(&source.url).timeout(Duration::from_secs(15)).send().await {
            Ok(response) if response.status().is_redirection() => response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .filter(|l| l.starts_with("http://") || l.starts_with("https://"))
                .map(str::to_owned),
            _ => None,
        };
        if let Some(url) = located.or_else(|| google::fallback_of(&source.title)) {
            source.url = url;
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    reply.sources.retain(|s| seen.insert(s.url.clone()));
}
