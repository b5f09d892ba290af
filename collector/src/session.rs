//! One run's shared state, and how every outcome is written: the study's budget (reserved and
//! spent), the progress line, the summary, and the lines of `envios.jsonl`, `respuestas.jsonl`
//! and `incidencias.jsonl` for a call that answered or failed, whether it went one by one (`run`)
//! or in a batch (`batch`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Semaphore;

use crate::client::{self, Endpoint, Stop, StopReason};
use crate::config::{CollectionFile, Kind, ModelSettings};
use crate::journal::{self, AnswerLine, CloseLine, Collected, IncidentLine, Journal, Question, SourceLine, Triple};
use crate::providers::{self, Call};
use crate::summary::Summary;

/// One (question, model, repetition) to ask.
#[derive(Debug, Clone)]
pub struct Job {
    pub question: Arc<Question>,
    pub model: usize,
    pub repetition: u32,
}

/// The hard cap, for the study: a request starts only if what the study has spent (its files, at
/// the start), what requests in flight reserved and this request's reservation fit.
#[derive(Debug)]
pub(crate) struct Budget {
    pub(crate) cap: f64,
    pub(crate) spent: f64,
    pub(crate) reserved: f64,
}

impl Budget {
    pub(crate) fn reserve(&mut self, amount: f64) -> bool {
        if self.spent + self.reserved + amount > self.cap + 1e-9 {
            return false;
        }
        self.reserved += amount;
        true
    }

    pub(crate) fn settle(&mut self, reserved: f64, actual: f64) {
        self.reserved = (self.reserved - reserved).max(0.0);
        self.spent += actual;
    }

    /// A request closed at what it cost: its reservation leaves this run's reservations, or, for
    /// a request of an earlier run (counted in the study's spending at its reservation), the
    /// spending takes its cost instead.
    fn settle_billed(&mut self, billed: &Billed) {
        if billed.counted {
            self.spent += billed.cost - billed.reserved;
        } else {
            self.settle(billed.reserved, billed.cost);
        }
    }
}

pub(crate) struct Progress {
    pub(crate) enabled: bool,
    pub(crate) total: usize,
    pub(crate) finished: usize,
    pub(crate) started: Instant,
    pub(crate) drawn: Option<Instant>,
}

impl Progress {
    pub(crate) fn tick(&mut self, cost: f64) {
        self.finished += 1;
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self.finished < self.total && self.drawn.is_some_and(|d| now.duration_since(d) < Duration::from_millis(200))
        {
            return;
        }
        self.drawn = Some(now);
        let elapsed = now.duration_since(self.started).as_secs_f64().max(1e-3);
        let rate = self.finished as f64 / elapsed;
        let left = self.total.saturating_sub(self.finished) as f64;
        let eta = if rate > 0.0 { left / rate } else { 0.0 };
        let width = 30;
        let filled = (self.finished * width).checked_div(self.total).unwrap_or(width);
        eprint!(
            "\r[{}{}] {}/{} · {:.1} llamadas/s · faltan {} · {:.2} USD   ",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.finished,
            self.total,
            rate,
            clock(eta),
            cost
        );
        if self.finished >= self.total {
            eprintln!();
        }
    }

    pub(crate) fn finish(&self) {
        if self.enabled && self.finished < self.total {
            eprintln!();
        }
    }
}

pub(crate) fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 { format!("{}h{:02}m", s / 3600, s % 3600 / 60) } else { format!("{}m{:02}s", s / 60, s % 60) }
}

pub(crate) struct Shared {
    pub(crate) study: PathBuf,
    pub(crate) file: CollectionFile,
    pub(crate) journal: Journal,
    pub(crate) endpoints: BTreeMap<String, Arc<Endpoint>>,
    pub(crate) semaphores: BTreeMap<String, Arc<Semaphore>>,
    pub(crate) api: reqwest::Client,
    pub(crate) redirects: reqwest::Client,
    pub(crate) budget: Mutex<Budget>,
    /// The most expensive answer of each model so far: a request reserves at least that.
    pub(crate) most: Mutex<BTreeMap<String, f64>>,
    pub(crate) summary: Mutex<Summary>,
    pub(crate) progress: Mutex<Progress>,
    pub(crate) stop: Stop,
}

impl Shared {
    /// What one request of a model reserves: its expected cost, or the most an answer of that
    /// model has cost in this study, whichever is more.
    pub(crate) fn reservation(&self, model: &ModelSettings) -> f64 {
        if self.file.providers[&model.provider].kind == Kind::Serpapi {
            // A SERP request costs one search, exactly (a deferred overview is two requests).
            return model.price.search + model.price.request;
        }
        let expected = self.file.expected_cost(model);
        lock(&self.most).get(&model.id).copied().unwrap_or(0.0).max(expected)
    }

    /// What one call of a batch reserves: as [`Shared::reservation`], at the batch price.
    pub(crate) fn batch_reservation(&self, model: &ModelSettings) -> f64 {
        let expected = self.file.expected_batch_cost(model);
        lock(&self.most).get(&model.id).copied().unwrap_or(0.0).max(expected)
    }

    pub(crate) fn fail_to_write(&self, e: &std::io::Error) {
        self.stop.trigger(StopReason::Fatal(format!("no se pudo escribir en {}: {e}", self.study.display())));
    }

    pub(crate) fn study(&self) -> &Path {
        &self.study
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A request of a call that was sent and billed, waiting for the call's record.
pub(crate) struct Billed {
    pub(crate) id: String,
    pub(crate) reserved: f64,
    pub(crate) cost: f64,
    /// Its reservation is already in the study's spending (a batch sent by an earlier run), not
    /// in this run's reservations.
    pub(crate) counted: bool,
}

/// Closes requests that were billed for a call that ends without a record (the first search of
/// a deferred AI Overview whose second request failed): each at its own cost.
pub(crate) fn close_orphans(shared: &Shared, billed: Vec<Billed>) {
    for b in billed {
        close_request(shared, &b, None);
    }
}

/// Closes a request that led to no record, at what it may have cost.
pub(crate) fn close_unbilled(shared: &Shared, id: String, reserved: f64, cost: f64) {
    close_request(shared, &Billed { id, reserved, cost, counted: false }, None);
}

/// Writes a request's `cierre` (naming `record` when it led to one) and moves its reservation to
/// what it cost.
pub(crate) fn close_request(shared: &Shared, billed: &Billed, record: Option<String>) {
    let call = record.as_ref().map(|_| billed.id.clone());
    let line = CloseLine { id: billed.id.clone(), cost_usd: round6(billed.cost), record, call };
    let written = shared.journal.close(vec![line]);
    lock(&shared.budget).settle_billed(billed);
    if let Err(e) = written {
        shared.fail_to_write(&e);
    }
}

/// Records a call that gave no answer (asked again by the next run).
pub(crate) fn record_failure(shared: &Shared, triple: &Triple, cause: &str, detail: &str) {
    lock(&shared.summary).failures.entry(cause.to_owned()).and_modify(|n| *n += 1).or_insert(1);
    let line = IncidentLine {
        question: triple.0.clone(),
        model: triple.1.clone(),
        repetition: triple.2,
        time: journal::date_and_time(SystemTime::now()).1,
        cause: cause.to_owned(),
        detail: detail.to_owned(),
        final_refusal: false,
        version: None,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0.0,
    };
    if let Err(e) = shared.journal.incident(&line) {
        shared.fail_to_write(&e);
    }
}

/// Counts calls not asked.
pub(crate) fn not_asked(shared: &Shared, calls: u64) {
    lock(&shared.summary).not_asked += calls;
}

/// One call of a batch that ended: its response body read and recorded exactly as a direct
/// call's (same parser, same lines, at the batch price), or its failure recorded.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn collected_from_batch(
    shared: &Shared,
    model: &ModelSettings,
    kind: Kind,
    triple: &Triple,
    id: &str,
    reserved: f64,
    counted: bool,
    body: Result<Vec<u8>, String>,
    already_done: bool,
) {
    let unbilled = |cost: f64| Billed { id: id.to_owned(), reserved, cost, counted };
    match body.map(|body| providers::parse(kind, &body)) {
        Ok(Ok(mut reply)) => {
            let cost = round6(model.batch_price().cost(
                reply.input_tokens,
                reply.output_tokens,
                model.search_billing.billed(reply.searches) as f64,
            ));
            if already_done {
                // Answered meanwhile by another run: paid, not written twice.
                close_request(shared, &unbilled(cost), None);
            } else {
                if kind == Kind::Google {
                    client::resolve_redirects(&shared.redirects, &mut reply).await;
                }
                let (date, time) = journal::date_and_time(SystemTime::now());
                if let Err(e) = record_reply(shared, triple, model, reply, vec![unbilled(cost)], date, time) {
                    shared.fail_to_write(&e);
                }
            }
        }
        // Answered, but not readable: it may have been billed.
        Ok(Err(why)) => {
            close_request(shared, &unbilled(reserved), None);
            record_failure(shared, triple, "cuerpo_ilegible", &why);
        }
        // Errored, expired or canceled in the batch: not billed.
        Err(why) => {
            close_request(shared, &unbilled(0.0), None);
            record_failure(shared, triple, "lote", &why);
        }
    }
    let spent = lock(&shared.budget).spent;
    lock(&shared.progress).tick(spent);
}

/// What a reply cost at the collection file's prices.
pub(crate) fn cost_of(model: &ModelSettings, reply: &providers::Reply) -> f64 {
    let billed = model.search_billing.billed(reply.searches) as f64;
    round6(model.price.cost(reply.input_tokens, reply.output_tokens, billed))
}

/// Writes a reply: first the `cierre` lines of its requests naming the record, then the record
/// (an answer, or an incident for an empty answer or a refusal without text).
pub(crate) fn record_reply(
    shared: &Shared,
    triple: &Triple,
    model: &ModelSettings,
    reply: providers::Reply,
    billed: Vec<Billed>,
    date: String,
    time: String,
) -> std::io::Result<()> {
    let cost = round6(billed.iter().map(|b| b.cost).sum());
    {
        let mut summary = lock(&shared.summary);
        summary.input_tokens += reply.input_tokens;
        summary.output_tokens += reply.output_tokens;
        summary.searches += reply.searches;
        summary.cost += cost;
    }
    let version = reply.version.clone().filter(|v| !v.trim().is_empty()).unwrap_or_else(|| model.asked().to_owned());
    // What the summary says of the version: for a SERP surface, the engine and the place (each
    // search has its own id and date).
    let reported = reply.search.as_ref().map_or_else(|| version.clone(), providers::serpapi::Search::family);
    let close = |record: String| -> std::io::Result<()> {
        let call = billed.first().map(|b| b.id.clone());
        let lines = billed
            .iter()
            .map(|b| CloseLine { id: b.id.clone(), cost_usd: b.cost, record: Some(record.clone()), call: call.clone() })
            .collect();
        let written = shared.journal.close(lines);
        let mut budget = lock(&shared.budget);
        for b in &billed {
            budget.settle_billed(b);
        }
        written
    };
    if reply.text.trim().is_empty() {
        let cause = if reply.refusal { "rechazo" } else { "vacia" };
        lock(&shared.summary).empty += 1;
        let line = IncidentLine {
            question: triple.0.clone(),
            model: triple.1.clone(),
            repetition: triple.2,
            time,
            cause: cause.to_owned(),
            detail: if reply.refusal {
                "el proveedor rechazó la pregunta sin texto".to_owned()
            } else {
                "el proveedor respondió sin texto".to_owned()
            },
            final_refusal: true,
            version: Some(version),
            input_tokens: reply.input_tokens,
            output_tokens: reply.output_tokens,
            cost_usd: cost,
        };
        close(journal::incident_fingerprint(&line))?;
        return shared.journal.incident(&line);
    }
    {
        let mut summary = lock(&shared.summary);
        summary.answers += 1;
        if reply.refusal {
            summary.refusals += 1;
        }
        summary.versions.entry(triple.1.clone()).or_default().insert(reported);
        summary.days = Some(match summary.days.take() {
            None => (date.clone(), date.clone()),
            Some((first, last)) => (first.min(date.clone()), last.max(date.clone())),
        });
    }
    {
        let mut most = lock(&shared.most);
        let entry = most.entry(model.id.clone()).or_default();
        *entry = entry.max(cost);
    }
    let consulted = reply.consulted;
    let line = AnswerLine {
        id: journal::answer_id(&triple.0, &triple.1, triple.2),
        question: triple.0.clone(),
        model: triple.1.clone(),
        version,
        date,
        answer: reply.text,
        sources: reply.sources.into_iter().map(|s| SourceLine { url: s.url, title: s.title }).collect(),
        tone: BTreeMap::new(),
        repetition: Some(triple.2),
        collection: Some(Collected {
            time,
            provider_model: model.asked().to_owned(),
            input_tokens: reply.input_tokens,
            output_tokens: reply.output_tokens,
            searches: reply.searches,
            cost_usd: cost,
            refusal: reply.refusal,
            tone: None,
        }),
        surface: Some(model.surface.clone()),
        consulted: consulted.map(|list| list.into_iter().map(|s| SourceLine { url: s.url, title: s.title }).collect()),
    };
    close(journal::answer_fingerprint(&line))?;
    shared.journal.answer(&line)
}

/// The call of one question to one model, with the file's generation settings.
pub fn call_of<'a>(file: &'a CollectionFile, model: &'a ModelSettings, question: &'a Question) -> Call<'a> {
    Call {
        model: model.asked(),
        prompt: &question.text,
        language: Some(question.language.as_str()),
        search_context: model.search_context.as_deref(),
        surface: &model.surface,
        instructions: file.generation.instructions.as_deref(),
        temperature: model.temperature.or(file.generation.temperature),
        max_output_tokens: model.max_output_tokens.unwrap_or(file.generation.max_output_tokens),
        web_search: model.web_search_on,
        max_searches: model.max_searches,
        effort: model.effort.as_deref(),
        location: file.location.as_ref(),
    }
}

pub fn round6(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}
