//! The stand-in's state and its public types: what it is told to do (faults, behaviour), what it
//! records (requests, pauses, served sources, bills) and the batches it holds.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use serde_json::Value;

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
pub(super) struct SimBatch {
    pub(super) kind: Kind,
    pub(super) model: String,
    pub(super) host: String,
    pub(super) created: Instant,
    pub(super) display_name: String,
    /// (`custom_id`, the request body of the call).
    pub(super) items: Vec<(String, Value)>,
    /// Each call's response, or an error, once the batch ended.
    pub(super) results: Option<Vec<(String, Result<Value, String>)>>,
}

#[derive(Debug)]
pub(super) struct State {
    pub(super) behaviour: Behaviour,
    pub(super) faults: Mutex<BTreeMap<&'static str, VecDeque<Fault>>>,
    pub(super) requests: Mutex<Vec<Recorded>>,
    pub(super) record: bool,
    pub(super) counter: AtomicU64,
    /// Pauses the stand-in asked for, per route: when the 429 left, and when the pause ends.
    pub(super) pauses: Mutex<BTreeMap<&'static str, Vec<(Instant, Instant)>>>,
    pub(super) pause_arrivals: Mutex<PauseArrivals>,
    /// Every answer served with the sources it cited and consulted.
    pub(super) served_sources: Mutex<Vec<Served>>,
    /// Answers generated (200s with a body a provider bills), counted when the request arrives:
    /// a provider bills what it generates even if the client is gone before it is delivered.
    pub(super) billed: AtomicU64,
    /// Batches by id, uploaded files by id (OpenAI's input and output files), batches created,
    /// and batch calls that will error.
    pub(super) batches: Mutex<BTreeMap<String, SimBatch>>,
    pub(super) files: Mutex<BTreeMap<String, Vec<u8>>>,
    pub(super) batches_created: AtomicU64,
    pub(super) failing_batch_items: AtomicU64,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) headers: Vec<(&'static str, String)>,
    pub(super) body: Vec<u8>,
}

pub(super) fn json_reply(status: u16, value: &Value) -> Reply {
    Reply {
        status,
        headers: vec![("content-type", "application/json".to_owned())],
        body: serde_json::to_vec(value).unwrap_or_default(),
    }
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
