//! Sending one call: timeouts, retries with exponential backoff and jitter on 429, 408 and 5xx,
//! a pacer per provider (requests per minute) and one pause per provider: a 429's `Retry-After`
//! (or `retry-after-ms`, or the provider's rate-limit reset headers, or Gemini's `RetryInfo`)
//! holds every request to that provider, retries included, until it passes; and Gemini's
//! grounding redirects resolved to the real pages.
//! Keys travel only in request headers; nothing here prints or stores them.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use crate::config::{Kind, Retries};
use crate::providers::{self, Method, Reply, Request, google};

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

/// One provider's pace and pause. Calls start at most one per interval (`solicitudes_por_minuto`),
/// and while the provider is paused (a 429's wait, or its rate-limit headers saying nothing is
/// left until a reset) no request leaves: not a new call, not a retry, not a call that booked its
/// start earlier. Every request waits in [`Pacer::clear`] right before it is sent.
#[derive(Debug)]
pub struct Pacer {
    interval: Duration,
    next: Mutex<Instant>,
    paused_until: Mutex<Option<Instant>>,
}

impl Pacer {
    pub fn per_minute(requests: u32) -> Pacer {
        Pacer {
            interval: Duration::from_secs(60) / requests.max(1),
            next: Mutex::new(Instant::now()),
            paused_until: Mutex::new(None),
        }
    }

    /// Waits for this caller's slot, then for any pause set in the meantime.
    pub async fn slot(&self) {
        let at = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let at = (*next).max(now);
            *next = at + self.interval;
            at
        };
        tokio::time::sleep_until(at.into()).await;
        self.clear().await;
    }

    /// Returns once the provider is not paused (at once when it is not).
    pub async fn clear(&self) {
        loop {
            let until = *self.paused_until.lock().unwrap_or_else(|e| e.into_inner());
            match until {
                Some(until) if until > Instant::now() => tokio::time::sleep_until(until.into()).await,
                _ => return,
            }
        }
    }

    /// Pauses the provider until `until` (a longer pause already set stands).
    pub fn hold(&self, until: Instant) {
        {
            let mut paused = self.paused_until.lock().unwrap_or_else(|e| e.into_inner());
            if paused.is_none_or(|p| until > p) {
                *paused = Some(until);
            }
        }
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if until > *next {
            *next = until;
        }
    }

    /// When the pause ends, if the provider is paused now.
    pub fn paused_until(&self) -> Option<Instant> {
        let until = *self.paused_until.lock().unwrap_or_else(|e| e.into_inner());
        until.filter(|u| *u > Instant::now())
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
    Reply(Box<Reply>),
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

/// How long the provider says to wait before it takes another request, from its rate-limit
/// headers: OpenAI's `x-ratelimit-reset-requests`/`-tokens` (durations such as `6m0s`, `1s`,
/// `20ms`) and Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset`
/// (RFC 3339 times). Only limits whose `…-remaining` is 0 count; on a 429 (`any`), when no
/// header says which limit ran out, the latest reset counts.
pub fn reset_wait(headers: &reqwest::header::HeaderMap, any: bool) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    let mut exhausted = Vec::new();
    let mut all = Vec::new();
    for limit in ["requests", "tokens"] {
        let Some(wait) = text(&format!("x-ratelimit-reset-{limit}")).and_then(go_duration) else { continue };
        if text(&format!("x-ratelimit-remaining-{limit}")) == Some("0") {
            exhausted.push(wait);
        }
        all.push(wait);
    }
    for limit in ["requests", "tokens", "input-tokens", "output-tokens"] {
        let Some(at) = text(&format!("anthropic-ratelimit-{limit}-reset")).and_then(rfc3339) else { continue };
        let wait = at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO);
        if text(&format!("anthropic-ratelimit-{limit}-remaining")) == Some("0") {
            exhausted.push(wait);
        }
        all.push(wait);
    }
    exhausted.into_iter().max().or_else(|| if any { all.into_iter().max() } else { None })
}

/// Gemini's wait on a 429: the `retryDelay` of the `google.rpc.RetryInfo` in the error's `details`.
pub fn retry_info(body: &[u8]) -> Option<Duration> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value["error"]["details"].as_array()?.iter().find_map(|detail| {
        let kind = detail["@type"].as_str()?;
        if !kind.ends_with("google.rpc.RetryInfo") {
            return None;
        }
        go_duration(detail["retryDelay"].as_str()?)
    })
}

/// A Go-style duration (`1h2m3.5s`, `6m0s`, `20ms`, `37s`), as OpenAI and Google write them.
pub fn go_duration(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let number_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let number: f64 = rest[..number_len].parse().ok()?;
        rest = &rest[number_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += number * seconds;
        rest = &rest[unit_len..];
    }
    Some(Duration::from_secs_f64(total))
}

/// An RFC 3339 time (`2026-11-29T00:53:13Z`, with fractions or an offset).
pub fn rfc3339(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', 't', ' '])?;
    let mut date_parts = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date_parts.next()?.ok()?, date_parts.next()?.ok()?, date_parts.next()?.ok()?);
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, 0)
    } else {
        let at = time.rfind(['+', '-'])?;
        let (clock, zone) = time.split_at(at);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let (h, m) = zone[1..].split_once(':')?;
        (clock, sign * (h.parse::<i64>().ok()? * 3600 + m.parse::<i64>().ok()? * 60))
    };
    let mut clock_parts = clock.splitn(3, ':');
    let hour: i64 = clock_parts.next()?.parse().ok()?;
    let minute: i64 = clock_parts.next()?.parse().ok()?;
    let second: f64 = clock_parts.next()?.parse().ok()?;
    // Howard Hinnant's days_from_civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = (days * 86_400 + hour * 3600 + minute * 60 - offset) as f64 + second;
    if seconds < 0.0 {
        return None;
    }
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs_f64(seconds))
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

/// What one exchange came back with, before the body is read as an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Exchange {
    /// A 2xx and its body.
    Body(Vec<u8>),
    /// See [`Outcome::Retry`].
    Retry {
        cause: String,
        hint: Option<Duration>,
        maybe_billed: bool,
    },
    Auth {
        status: u16,
    },
    Rejected {
        status: u16,
        detail: String,
    },
}

/// Sends one request. It waits for the provider's pause right before it leaves; a 429 (or
/// headers saying a limit ran out) pauses the provider (see [`Pacer`]).
pub async fn exchange(client: &reqwest::Client, endpoint: &Endpoint, request: &Request, timeout: Duration) -> Exchange {
    let url = format!("{}{}", endpoint.base_url, request.path);
    let key = endpoint.key.as_deref();
    let mut builder = match request.method {
        Method::Post => client.post(&url).body(request.body.clone()),
        Method::Get => client.get(&url),
    }
    .timeout(timeout);
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    endpoint.pacer.clear().await;
    let response = match builder.send().await {
        Ok(response) => response,
        Err(e) if e.is_timeout() => {
            let cause = format!("tiempo_agotado: sin respuesta en {} s", timeout.as_secs());
            return Exchange::Retry { cause, hint: None, maybe_billed: true };
        }
        // Refused before anything left: nothing to bill.
        Err(e) if e.is_connect() => {
            let cause = format!("red: {}", scrub(&e.without_url().to_string(), key));
            return Exchange::Retry { cause, hint: None, maybe_billed: false };
        }
        Err(e) => {
            let cause = format!("red: {}", scrub(&e.without_url().to_string(), key));
            return Exchange::Retry { cause, hint: None, maybe_billed: true };
        }
    };
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = match response.bytes().await {
        Ok(body) => body,
        Err(e) if e.is_timeout() => {
            let cause = "tiempo_agotado: la respuesta no terminó a tiempo".to_owned();
            return Exchange::Retry { cause, hint: None, maybe_billed: true };
        }
        Err(e) => {
            let cause = format!("red: {}", scrub(&e.without_url().to_string(), key));
            return Exchange::Retry { cause, hint: None, maybe_billed: true };
        }
    };
    if (200..300).contains(&status) {
        // A limit that ran out with this answer pauses the provider until its reset.
        if let Some(wait) = reset_wait(&headers, false).filter(|w| !w.is_zero()) {
            endpoint.pacer.hold(Instant::now() + wait);
        }
        return Exchange::Body(body.to_vec());
    }
    if status == 401 || status == 403 {
        return Exchange::Auth { status };
    }
    let detail = scrub(&String::from_utf8_lossy(&body), key);
    if !retryable(status) {
        return Exchange::Rejected { status, detail };
    }
    let hint = if status == 429 {
        let wait = retry_after(&headers).or_else(|| reset_wait(&headers, true)).or_else(|| retry_info(&body));
        if let Some(wait) = wait {
            endpoint.pacer.hold(Instant::now() + wait);
        }
        wait
    } else {
        retry_after(&headers)
    };
    Exchange::Retry { cause: format!("http_{status}: {detail}"), hint, maybe_billed: false }
}

/// Sends one request and reads its body as the provider's answer.
pub async fn attempt(client: &reqwest::Client, endpoint: &Endpoint, request: &Request, timeout: Duration) -> Outcome {
    match exchange(client, endpoint, request, timeout).await {
        Exchange::Body(body) => match providers::parse(endpoint.kind, &body) {
            Ok(reply) => Outcome::Reply(Box::new(reply)),
            // The provider answered (and billed); the body is not what its reference says.
            Err(e) => Outcome::Retry {
                cause: format!("cuerpo_ilegible: {}", scrub(&e, endpoint.key.as_deref())),
                hint: None,
                maybe_billed: true,
            },
        },
        Exchange::Retry { cause, hint, maybe_billed } => Outcome::Retry { cause, hint, maybe_billed },
        Exchange::Auth { status } => Outcome::Auth { status },
        Exchange::Rejected { status, detail } => Outcome::Rejected { status, detail },
    }
}

/// Sends a request that costs nothing (a batch's creation, its progress, its results) until it
/// gives a body, fails for good, uses up its attempts or the run stops.
pub async fn fetch(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    request: &Request,
    retries: &Retries,
    stop: &Stop,
) -> Result<Vec<u8>, Failure> {
    let mut attempts = 0;
    let mut last = String::new();
    while attempts < retries.attempts {
        attempts += 1;
        let hint = match exchange(client, endpoint, request, Duration::from_secs(retries.timeout_s)).await {
            Exchange::Body(body) => return Ok(body),
            Exchange::Auth { status } => return Err(Failure::Auth { status }),
            Exchange::Rejected { status, detail } => return Err(Failure::Rejected { status, detail }),
            Exchange::Retry { cause, hint, .. } => {
                last = cause;
                hint
            }
        };
        if attempts >= retries.attempts {
            break;
        }
        let wait = hint.unwrap_or_else(|| backoff(retries, attempts));
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = stop.wait() => return Err(Failure::Stopped),
        }
    }
    Err(Failure::Exhausted { attempts, last })
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
            Outcome::Reply(reply) => return Ok((*reply, attempts)),
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

/// Replaces Gemini's grounding redirects, in the cited and the consulted sources, by the pages
/// they lead to (one GET per redirect, redirects not followed, `Location` read); when that fails,
/// by the site named in the title; otherwise the source is left as it came.
pub async fn resolve_redirects(client: &reqwest::Client, reply: &mut Reply) {
    let mut resolved: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    let listed = reply.sources.iter().chain(reply.consulted.iter().flatten());
    let redirects: Vec<(String, String)> =
        listed.filter(|s| google::redirect_of(&s.url)).map(|s| (s.url.clone(), s.title.clone())).collect();
    for (url, title) in redirects {
        if resolved.contains_key(&url) {
            continue;
        }
        let located = match client.get(&url).timeout(Duration::from_secs(15)).send().await {
            Ok(response) if response.status().is_redirection() => response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .filter(|l| l.starts_with("http://") || l.starts_with("https://"))
                .map(str::to_owned),
            _ => None,
        };
        if let Some(page) = located.or_else(|| google::fallback_of(&title)) {
            resolved.insert(url, page);
        }
    }
    let apply = |sources: &mut Vec<crate::providers::Source>| {
        for source in sources.iter_mut() {
            if let Some(page) = resolved.get(&source.url) {
                source.url.clone_from(page);
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        sources.retain(|s| seen.insert(s.url.clone()));
    };
    apply(&mut reply.sources);
    if let Some(consulted) = reply.consulted.as_mut() {
        apply(consulted);
    }
}
