//! One collection run: the plan (what is left to ask and what it costs), then every call under
//! its provider's concurrency and rate, a hard budget, a progress line and a stop on Ctrl-C,
//! each outcome appended to the study's files as it arrives, and a summary at the end.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Semaphore;

use crate::batch;
use crate::client::{self, Endpoint, Failure, Outcome, Pacer, Stop, StopReason};
use crate::config::{self, CollectionFile, Kind, ModelSettings};
use crate::journal::{self, IncidentLine, Journal, Question, SentLine, Triple};
use crate::providers;
use crate::session::{Billed, Budget, Progress, Shared, close_orphans, close_unbilled, cost_of, lock, record_reply};
pub use crate::session::{Job, call_of, round6};
pub use crate::summary::Summary;

/// What is left to ask, and what it is expected to cost.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub jobs: Vec<Job>,
    /// Triples of the design already answered (or definitively empty).
    pub already_done: usize,
    /// Per model id: calls, input tokens, output tokens, searches, USD.
    pub per_model: BTreeMap<String, PlanRow>,
    pub questions: usize,
    pub repetitions: u32,
    /// What the study has spent so far (its files), and its cap.
    pub spent: journal::Spent,
    pub budget: f64,
    /// Calls waiting in batches sent by earlier runs (`recolectar --lote` collects them), and
    /// the providers of the batches earlier runs left unfinished.
    pub in_batches: usize,
    pub waiting_providers: BTreeSet<String>,
}

#[derive(Debug, Clone, Default)]
pub struct PlanRow {
    pub provider: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub searches: f64,
    pub cost: f64,
    /// The same calls in batches, where the provider has a batch API.
    pub batch_cost: Option<f64>,
}

impl Plan {
    pub fn calls(&self) -> u64 {
        self.per_model.values().map(|r| r.calls).sum()
    }
    pub fn cost(&self) -> f64 {
        self.per_model.values().map(|r| r.cost).sum()
    }
    /// The expected cost with `--lote`: batches where the provider has them, the rest direct.
    pub fn batch_cost(&self) -> f64 {
        self.per_model.values().map(|r| r.batch_cost.unwrap_or(r.cost)).sum()
    }
    /// What is left of the study's budget.
    pub fn remaining(&self) -> f64 {
        (self.budget - self.spent.total()).max(0.0)
    }
}

/// The line printed before a run asks anything: calls, expected cost, and the study's budget.
pub fn cost_line(plan: &Plan, batches: bool) -> String {
    let waiting = if plan.in_batches > 0 {
        format!(
            "\n{} llamadas esperan en lotes enviados antes; {}",
            plan.in_batches,
            if batches { "esta corrida los recoge." } else { "`recolectar --lote` los recoge." }
        )
    } else {
        String::new()
    };
    let (cost, how) = if batches {
        (plan.batch_cost(), "a los precios de recoleccion.toml, en lotes donde el proveedor los tiene")
    } else {
        (plan.cost(), "a los precios de recoleccion.toml")
    };
    format!(
        "Por hacer: {} llamadas ({} ya hechas); costo esperado {cost:.4} USD {how}.{waiting}\n{}",
        plan.calls(),
        plan.already_done,
        budget_line(plan)
    )
}

/// «Presupuesto del estudio: …», the same sentence in `--plan`, before a run and in the summary.
pub fn budget_line(plan: &Plan) -> String {
    let open = if plan.spent.open > 0 {
        format!(
            " (incluye {} pedidos sin respuesta escrita, contados a su costo reservado: enviados cuando una corrida se cortó)",
            plan.spent.open
        )
    } else {
        String::new()
    };
    format!(
        "Presupuesto del estudio: {:.2} USD (tope duro para todas las corridas); gastado hasta ahora {:.4} USD{open}; quedan {:.4} USD.",
        plan.budget,
        plan.spent.total(),
        plan.remaining()
    )
}

/// Every (question, model, repetition) of the design that has no line yet, in the order they are
/// asked: repetition by repetition, so a run cut short leaves whole repetitions behind.
pub fn plan(study: &Path, file: &CollectionFile) -> Result<Plan, String> {
    let questions = journal::questions(study)?;
    let done = journal::done(study).map_err(|e| format!("{}: {e}", study.display()))?;
    let waiting = batch::waiting(study).map_err(|e| format!("{}: {e}", study.display()))?;
    let spent = journal::spent(study).map_err(|e| format!("{}: {e}", study.display()))?;
    let mut plan = Plan {
        questions: questions.len(),
        repetitions: file.repetitions,
        spent,
        budget: file.budget_usd,
        ..Plan::default()
    };
    for pending in batch::pending(study).map_err(|e| format!("{}: {e}", study.display()))? {
        if let Some(model) = file.model(&pending.prepared.model) {
            plan.waiting_providers.insert(model.provider.clone());
        }
    }
    let questions: Vec<Arc<Question>> = questions.into_iter().map(Arc::new).collect();
    for repetition in 1..=file.repetitions {
        for question in &questions {
            for (index, model) in file.models.iter().enumerate() {
                if model.level != question.model {
                    continue;
                }
                let triple = (question.id.clone(), model.id.clone(), repetition);
                if done.contains(&triple) {
                    plan.already_done += 1;
                    continue;
                }
                if waiting.contains(&triple) {
                    plan.in_batches += 1;
                    continue;
                }
                let estimate = file.estimate(model);
                let row = plan.per_model.entry(model.id.clone()).or_default();
                row.provider.clone_from(&model.provider);
                row.calls += 1;
                row.input_tokens += estimate.input_tokens;
                row.output_tokens += estimate.output_tokens;
                row.searches += estimate.searches;
                row.cost += file.expected_cost(model);
                if batch::batchable(file.providers[&model.provider].kind) {
                    *row.batch_cost.get_or_insert(0.0) += file.expected_batch_cost(model);
                }
                plan.jobs.push(Job { question: Arc::clone(question), model: index, repetition });
            }
        }
    }
    Ok(plan)
}

/// `--plan`: the table a person reads before paying for anything.
pub fn render_plan(plan: &Plan, file: &CollectionFile) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Plan: {} preguntas × {} repeticiones; {} llamadas por hacer ({} ya hechas).\n",
        plan.questions,
        plan.repetitions,
        plan.calls(),
        plan.already_done
    );
    let _ = writeln!(
        out,
        "{:<24} {:<12} {:>8} {:>14} {:>14} {:>10} {:>12} {:>12}",
        "modelo", "proveedor", "llamadas", "tokens entrada", "tokens salida", "búsquedas", "costo USD", "en lotes USD"
    );
    let mut by_provider: BTreeMap<&str, u64> = BTreeMap::new();
    for (id, row) in &plan.per_model {
        let batch = row.batch_cost.map_or_else(|| "—".to_owned(), |c| format!("{c:.2}"));
        let _ = writeln!(
            out,
            "{:<24} {:<12} {:>8} {:>14} {:>14} {:>10.0} {:>12.2} {:>12}",
            id, row.provider, row.calls, row.input_tokens, row.output_tokens, row.searches, row.cost, batch
        );
        *by_provider.entry(row.provider.as_str()).or_default() += row.calls;
    }
    let total_in: u64 = plan.per_model.values().map(|r| r.input_tokens).sum();
    let total_out: u64 = plan.per_model.values().map(|r| r.output_tokens).sum();
    let searches: f64 = plan.per_model.values().map(|r| r.searches).sum();
    let _ = writeln!(
        out,
        "{:<24} {:<12} {:>8} {:>14} {:>14} {:>10.0} {:>12.2} {:>12.2}",
        "total",
        "",
        plan.calls(),
        total_in,
        total_out,
        searches,
        plan.cost(),
        plan.batch_cost()
    );
    let _ = writeln!(
        out,
        "\nEn lotes (`recolectar --lote`): {:.2} USD, {:.2} USD menos; las llamadas de proveedores sin lotes («—») van una a una. Un lote tarda de minutos a 24 horas.",
        plan.batch_cost(),
        plan.cost() - plan.batch_cost()
    );
    if plan.in_batches > 0 {
        let _ = writeln!(
            out,
            "{} llamadas esperan en lotes enviados antes: `recolectar --lote` los recoge.",
            plan.in_batches
        );
    }
    let _ = writeln!(out, "\n{}", budget_line(plan));
    if plan.cost() > plan.remaining() {
        let _ = writeln!(
            out,
            "Aviso: el costo esperado supera lo que queda del presupuesto; la corrida se detendrá al llegar al tope."
        );
    }
    let seconds = file.estimate.seconds.max(0.001);
    for (provider, calls) in by_provider {
        if let Some(settings) = file.providers.get(provider) {
            let by_concurrency = f64::from(settings.concurrency) * 60.0 / seconds;
            let per_minute = f64::from(settings.requests_per_minute).min(by_concurrency);
            let _ = writeln!(
                out,
                "{provider}: {calls} llamadas; {} por minuto como máximo, y {} en paralelo con ~{seconds:.0} s por respuesta dan {by_concurrency:.0} por minuto: unos {:.0} min.",
                settings.requests_per_minute,
                settings.concurrency,
                calls as f64 / per_minute
            );
        }
    }
    let _ = writeln!(
        out,
        "\nLas cifras son estimaciones ([estimacion] de recoleccion.toml); el costo real sale del uso que informa cada proveedor."
    );
    out
}

/// Options of a run that are not in the collection file.
#[derive(Debug, Clone)]
pub struct Options {
    pub study: PathBuf,
    /// Draw the progress line (only on a terminal).
    pub progress: bool,
    /// Keys by provider name (read from the environment by [`keys_from_env`]).
    pub keys: BTreeMap<String, Option<String>>,
    /// `--lote`: the calls of models whose provider has a batch API go as batches, and the
    /// batches earlier runs sent are collected.
    pub batches: bool,
}

/// A run that does not write `envios.jsonl`, as the collector ran before the study's budget:
/// only for `bench-recolector`'s reference run. A collection without those lines can pass its
/// budget after a kill.
pub async fn collect_without_request_lines(
    file: CollectionFile,
    plan: Plan,
    options: Options,
    stop: Stop,
) -> Result<Summary, String> {
    collect_journaled(file, plan, options, stop, false).await
}

/// The key of every provider the plan uses; a missing variable is an error before any call.
pub fn keys_from_env(
    file: &CollectionFile,
    plan: &Plan,
    batches: bool,
) -> Result<BTreeMap<String, Option<String>>, Vec<String>> {
    let mut used: BTreeSet<&str> = plan.jobs.iter().map(|j| file.models[j.model].provider.as_str()).collect();
    if batches {
        used.extend(plan.waiting_providers.iter().map(String::as_str));
    }
    keys_for(file, &used)
}

pub fn keys_for(file: &CollectionFile, used: &BTreeSet<&str>) -> Result<BTreeMap<String, Option<String>>, Vec<String>> {
    let mut keys = BTreeMap::new();
    let mut problems = Vec::new();
    for name in used {
        let Some(provider) = file.providers.get(*name) else { continue };
        match config::key_variable(provider) {
            None => {
                keys.insert((*name).to_owned(), None);
            }
            Some(variable) => match std::env::var(&variable) {
                Ok(key) if !key.trim().is_empty() => {
                    keys.insert((*name).to_owned(), Some(key.trim().to_owned()));
                }
                _ => problems.push(format!("falta la variable de entorno {variable} (la clave de `{name}`)")),
            },
        }
    }
    if problems.is_empty() { Ok(keys) } else { Err(problems) }
}

/// Builds the HTTP clients: one for the APIs, one that does not follow redirects (Gemini's).
pub fn clients() -> Result<(reqwest::Client, reqwest::Client), String> {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let api = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(15))
        .pool_idle_timeout(Duration::from_secs(60))
        .user_agent(concat!("recolector/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("no se pudo crear el cliente HTTP: {e}"))?;
    let redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| format!("no se pudo crear el cliente HTTP: {e}"))?;
    Ok((api, redirects))
}

/// The endpoints the plan uses.
pub fn endpoints(
    file: &CollectionFile,
    keys: &BTreeMap<String, Option<String>>,
) -> Result<BTreeMap<String, Arc<Endpoint>>, String> {
    let mut endpoints = BTreeMap::new();
    for (name, key) in keys {
        let provider = file.providers.get(name).ok_or_else(|| format!("proveedor `{name}` desconocido"))?;
        let base_url = config::base_url(name, provider).ok_or_else(|| format!("proveedores.{name}: falta url_base"))?;
        endpoints.insert(
            name.clone(),
            Arc::new(Endpoint {
                name: name.clone(),
                kind: provider.kind,
                base_url,
                key: key.clone(),
                pacer: Pacer::per_minute(provider.requests_per_minute),
            }),
        );
    }
    Ok(endpoints)
}

/// Whether stderr is a terminal (the progress line is drawn only there).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Runs a plan to the end, to the budget, or to a stop.
pub async fn collect(file: CollectionFile, plan: Plan, options: Options, stop: Stop) -> Result<Summary, String> {
    collect_journaled(file, plan, options, stop, true).await
}

async fn collect_journaled(
    file: CollectionFile,
    plan: Plan,
    options: Options,
    stop: Stop,
    request_lines: bool,
) -> Result<Summary, String> {
    let started = Instant::now();
    let journal = Journal::open(&options.study).map_err(|e| format!("{}: {e}", options.study.display()))?;
    if !request_lines {
        journal.without_request_lines();
    }
    let (api, redirects) = clients()?;
    let endpoints = endpoints(&file, &options.keys)?;
    let semaphores = file
        .providers
        .iter()
        .map(|(name, p)| (name.clone(), Arc::new(Semaphore::new(p.concurrency as usize))))
        .collect();
    let total = plan.jobs.len();
    let spent_before = plan.spent.total();
    let shared = Arc::new(Shared {
        study: options.study.clone(),
        budget: Mutex::new(Budget { cap: file.budget_usd, spent: spent_before, reserved: 0.0 }),
        most: Mutex::new(plan.spent.most_per_model.clone()),
        summary: Mutex::new(Summary {
            planned: total,
            already_done: plan.already_done,
            repetitions: plan.repetitions,
            study_spent_before: spent_before,
            budget: file.budget_usd,
            ..Summary::default()
        }),
        progress: Mutex::new(Progress { enabled: options.progress, total, finished: 0, started, drawn: None }),
        file,
        journal,
        endpoints,
        semaphores,
        api,
        redirects,
        stop: stop.clone(),
    });
    let mut tasks = tokio::task::JoinSet::new();
    let mut batched: BTreeMap<usize, Vec<Job>> = BTreeMap::new();
    if options.batches {
        let pending = batch::pending(&options.study).map_err(|e| format!("{}: {e}", options.study.display()))?;
        let resumed = Arc::clone(&shared);
        tasks.spawn(async move { batch::resume(resumed, pending).await });
    }
    for job in plan.jobs {
        let kind = shared.file.providers[&shared.file.models[job.model].provider].kind;
        if options.batches && batch::batchable(kind) {
            batched.entry(job.model).or_default().push(job);
            continue;
        }
        let shared = Arc::clone(&shared);
        tasks.spawn(async move { ask(&shared, job).await });
    }
    for (model, jobs) in batched {
        let shared = Arc::clone(&shared);
        tasks.spawn(async move { batch::send_and_collect(shared, model, jobs).await });
    }
    while let Some(result) = tasks.join_next().await {
        if let Err(e) = result {
            shared.stop.trigger(StopReason::Fatal(format!("una tarea falló: {e}")));
        }
    }
    lock(&shared.progress).finish();
    let mut summary = lock(&shared.summary).clone();
    summary.elapsed = started.elapsed();
    summary.stop = shared.stop.reason();
    summary.study_spent_after = lock(&shared.budget).spent;
    Ok(summary)
}

/// How one call ended.
enum Ended {
    /// A reply, and the requests it took (all billed).
    Reply(Box<providers::Reply>, Vec<Billed>),
    Failed(Failure),
    /// Not asked: the run stopped, or the budget had no room, before its first request.
    NotAsked,
}

/// One job: wait for a permit and a slot, then send its requests, each reserved in the budget and
/// journaled before it leaves; write what came back.
async fn ask(shared: &Shared, job: Job) {
    let model = &shared.file.models[job.model];
    let endpoint = Arc::clone(&shared.endpoints[&model.provider]);
    let semaphore = Arc::clone(&shared.semaphores[&model.provider]);
    let not_asked = || lock(&shared.summary).not_asked += 1;
    let permit = tokio::select! {
        biased;
        () = shared.stop.wait() => return not_asked(),
        permit = semaphore.acquire_owned() => match permit { Ok(p) => p, Err(_) => return not_asked() },
    };
    tokio::select! {
        biased;
        () = shared.stop.wait() => return not_asked(),
        () = endpoint.pacer.slot() => {}
    }
    if shared.stop.is_set() {
        return not_asked();
    }
    let triple: Triple = (job.question.id.clone(), model.id.clone(), job.repetition);
    let ended = requests(shared, &endpoint, model, &job, &triple).await;
    if let Ended::Failed(Failure::Auth { status }) = &ended {
        // Before the permit goes: no other call of this provider starts with a rejected key.
        shared.stop.trigger(StopReason::Fatal(format!(
            "`{}` respondió HTTP {status}: revise la clave ({}) y el acceso al modelo `{}`",
            endpoint.name,
            config::key_variable(&shared.file.providers[&model.provider]).unwrap_or_default(),
            model.asked()
        )));
    }
    // The permit is held until the call's line is written: a call is in progress until then, so
    // a `kill -9` loses at most `concurrencia` calls per provider (counted at their reservation).
    let (date, time) = journal::date_and_time(SystemTime::now());
    match ended {
        Ended::NotAsked | Ended::Failed(Failure::Stopped) => return not_asked(),
        Ended::Reply(mut reply, billed) => {
            if endpoint.kind == Kind::Google {
                client::resolve_redirects(&shared.redirects, &mut reply).await;
            }
            if let Err(e) = record_reply(shared, &triple, model, *reply, billed, date, time) {
                shared.fail_to_write(&e);
            }
        }
        Ended::Failed(failure) => {
            lock(&shared.summary).failures.entry(failure.cause()).and_modify(|n| *n += 1).or_insert(1);
            let line = IncidentLine {
                question: triple.0.clone(),
                model: triple.1.clone(),
                repetition: triple.2,
                time,
                cause: failure.cause(),
                detail: failure.detail(),
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
    }
    drop(permit);
    let spent = lock(&shared.budget).spent;
    lock(&shared.progress).tick(spent);
}

/// The requests of one call: each waits for the provider's pause, reserves its cost, is journaled
/// (durably) and only then leaves; a request that failed is closed at what it may have cost.
async fn requests(shared: &Shared, endpoint: &Endpoint, model: &ModelSettings, job: &Job, triple: &Triple) -> Ended {
    let call = call_of(&shared.file, model, &job.question);
    let mut request = providers::request(endpoint.kind, &call, endpoint.key.as_deref());
    let retries = &shared.file.retries;
    let timeout = Duration::from_secs(retries.timeout_s);
    // Requests of this call billed so far, and the reply that asked for a follow-up request.
    let mut billed: Vec<Billed> = Vec::new();
    let mut first: Option<providers::Reply> = None;
    let mut sequence = 0;
    let mut attempts = 0;
    let mut last = String::new();
    while attempts < retries.attempts {
        if (attempts > 0 || !billed.is_empty()) && shared.stop.is_set() {
            close_orphans(shared, billed);
            return Ended::Failed(Failure::Stopped);
        }
        // A pause of the provider holds retries too; waiting here keeps a paused request out of
        // the budget and the journal (it waits again, at once, right before it leaves).
        tokio::select! {
            biased;
            () = shared.stop.wait() => {
                if sequence == 0 {
                    return Ended::NotAsked;
                }
                close_orphans(shared, billed);
                return Ended::Failed(Failure::Stopped);
            }
            () = endpoint.pacer.clear() => {}
        }
        let reserved = shared.reservation(model);
        if !lock(&shared.budget).reserve(reserved) {
            shared.stop.trigger(StopReason::Budget);
            if sequence == 0 {
                return Ended::NotAsked;
            }
            close_orphans(shared, billed);
            return Ended::Failed(Failure::Stopped);
        }
        attempts += 1;
        sequence += 1;
        let id = shared.journal.next_id();
        let (_, time) = journal::date_and_time(SystemTime::now());
        let sent = SentLine {
            id: id.clone(),
            question: triple.0.clone(),
            model: triple.1.clone(),
            repetition: triple.2,
            attempt: sequence,
            time,
            reserved_usd: round6(reserved),
            batch: None,
        };
        if let Err(e) = shared.journal.sent(sent) {
            lock(&shared.budget).settle(reserved, 0.0);
            shared.fail_to_write(&e);
            if sequence == 1 {
                return Ended::NotAsked;
            }
            close_orphans(shared, billed);
            return Ended::Failed(Failure::Stopped);
        }
        let hint = match client::attempt(&shared.api, endpoint, &request, timeout).await {
            Outcome::Reply(reply) => {
                billed.push(Billed { id, reserved, cost: cost_of(model, &reply), counted: false });
                if let Some(path) = &reply.follow_up {
                    // The answer needs a second request (a deferred AI Overview): asked at once,
                    // with its own reservation, attempts and journal line.
                    request = providers::follow_up(endpoint.kind, path, endpoint.key.as_deref());
                    first = Some(*reply);
                    attempts = 0;
                    continue;
                }
                let reply = match first.take() {
                    Some(first) => Box::new(providers::serpapi::merge(first, *reply)),
                    None => reply,
                };
                return Ended::Reply(reply, billed);
            }
            Outcome::Auth { status } => {
                close_unbilled(shared, id, reserved, 0.0);
                close_orphans(shared, billed);
                return Ended::Failed(Failure::Auth { status });
            }
            Outcome::Rejected { status, detail } => {
                close_unbilled(shared, id, reserved, 0.0);
                close_orphans(shared, billed);
                return Ended::Failed(Failure::Rejected { status, detail });
            }
            Outcome::Retry { cause, hint, maybe_billed } => {
                let cost = if maybe_billed { reserved } else { 0.0 };
                if maybe_billed {
                    let mut summary = lock(&shared.summary);
                    summary.maybe_billed += 1;
                    summary.maybe_billed_cost += cost;
                }
                close_unbilled(shared, id, reserved, cost);
                last = cause;
                hint
            }
        };
        if attempts >= retries.attempts {
            break;
        }
        let wait = hint.unwrap_or_else(|| client::backoff(retries, attempts));
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = shared.stop.wait() => {
                close_orphans(shared, billed);
                return Ended::Failed(Failure::Stopped);
            }
        }
    }
    close_orphans(shared, billed);
    Ended::Failed(Failure::Exhausted { attempts, last })
}
