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
use crate::journal::{
    self, AnswerLine, CloseLine, Collected, IncidentLine, Journal, Question, SentLine, SourceLine, Triple,
};
use crate::providers::{self, Call};

/// One (question, model, repetition) to ask.
#[derive(Debug, Clone)]
pub struct Job {
    pub question: Arc<Question>,
    pub model: usize,
    pub repetition: u32,
}

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

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub planned: usize,
    pub already_done: usize,
    pub answers: u64,
    pub refusals: u64,
    pub empty: u64,
    pub failures: BTreeMap<String, u64>,
    pub not_asked: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub searches: u64,
    pub cost: f64,
    pub elapsed: Duration,
    pub stop: Option<StopReason>,
    /// Versions each model reported, and the first and last day of the answers written.
    pub versions: BTreeMap<String, BTreeSet<String>>,
    pub days: Option<(String, String)>,
    pub repetitions: u32,
    /// Requests that may have been billed without giving an answer (timeouts, cuts mid-answer):
    /// how many, and what they count for.
    pub maybe_billed: u64,
    pub maybe_billed_cost: f64,
    /// What the study had spent when the run started and when it ended, and its cap.
    pub study_spent_before: f64,
    pub study_spent_after: f64,
    pub budget: f64,
    /// Batches sent by this run, and batches collected (this run's and earlier runs').
    pub batches_sent: u64,
    pub batches_collected: u64,
}

impl Summary {
    pub fn render(&self, budget: f64) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Resumen de la recolección");
        let _ = writeln!(out, "  llamadas planeadas:    {} ({} ya estaban hechas)", self.planned, self.already_done);
        let _ =
            writeln!(out, "  respuestas escritas:   {} (de ellas {} rechazos con texto)", self.answers, self.refusals);
        let _ = writeln!(out, "  respuestas vacías:     {}", self.empty);
        let failed: u64 = self.failures.values().sum();
        let causes = self.failures.iter().map(|(cause, n)| format!("{cause}: {n}")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            out,
            "  fallas:                {failed}{}",
            if causes.is_empty() { String::new() } else { format!(" ({causes})") }
        );
        let _ = writeln!(out, "  sin preguntar:         {}", self.not_asked);
        if self.batches_sent + self.batches_collected > 0 {
            let _ = writeln!(
                out,
                "  lotes:                 {} enviados, {} recogidos (los que no terminaron siguen en el proveedor: `recolectar --lote` los recoge)",
                self.batches_sent, self.batches_collected
            );
        }
        let _ = writeln!(
            out,
            "  tokens:                {} de entrada, {} de salida; {} búsquedas",
            self.input_tokens, self.output_tokens, self.searches
        );
        let _ = writeln!(out, "  costo de esta corrida: {:.4} USD", self.cost + self.maybe_billed_cost);
        if self.maybe_billed > 0 {
            let _ = writeln!(
                out,
                "  quizá cobradas:        {} llamadas sin respuesta (tiempo agotado, corte a mitad), contadas a su costo reservado: {:.4} USD",
                self.maybe_billed, self.maybe_billed_cost
            );
        }
        let _ = writeln!(
            out,
            "  gastado en el estudio: {:.4} USD de {budget:.2} USD de presupuesto (antes de esta corrida: {:.4} USD)",
            self.study_spent_after, self.study_spent_before
        );
        let _ = writeln!(out, "  tiempo:                {:.1} s", self.elapsed.as_secs_f64());
        if let Some((first, last)) = &self.days {
            let versions = self
                .versions
                .iter()
                .map(|(model, v)| format!("{model} ({})", v.iter().cloned().collect::<Vec<_>>().join(", ")))
                .collect::<Vec<_>>()
                .join("; ");
            let when = if first == last { format!("el {first}") } else { format!("entre el {first} y el {last}") };
            let serp = self.versions.values().flatten().any(|v| v.starts_with("serpapi "));
            let how = if serp {
                "por la API de su proveedor y con búsqueda web (las superficies de consumo de Google, por SerpApi, como las ve una persona)"
            } else {
                "por la API de su proveedor y con búsqueda web"
            };
            let _ = writeln!(
                out,
                "  para la metodología:   «Cada pregunta se hizo {} {} a cada modelo de su nivel, {how}, {when} (UTC). Versiones informadas: {versions}.»",
                self.repetitions,
                if self.repetitions == 1 { "vez" } else { "veces" }
            );
        }
        match &self.stop {
            None => {}
            Some(StopReason::Interrupted) => {
                let _ = writeln!(out, "  detenida con Ctrl-C: lo escrito queda; vuelva a correr para seguir.");
            }
            Some(StopReason::Budget) => {
                let _ = writeln!(
                    out,
                    "  detenida por presupuesto: la próxima llamada habría llevado el estudio más allá de presupuesto_usd. El tope es del estudio, no de la corrida: volver a correr sin subirlo no pregunta nada más; para seguir, suba presupuesto_usd en recoleccion.toml y vuelva a correr."
                );
            }
            Some(StopReason::Fatal(why)) => {
                let _ = writeln!(out, "  detenida: {why}");
            }
        }
        out
    }

    /// The exit code: 0 when everything planned has its line.
    pub fn complete(&self) -> bool {
        self.stop.is_none() && self.failures.is_empty() && self.not_asked == 0
    }
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

/// The hard cap, for the study: a request starts only if what the study has spent (its files, at
/// the start), what requests in flight reserved and this request's reservation fit.
#[derive(Debug)]
pub(crate) struct Budget {
    cap: f64,
    spent: f64,
    reserved: f64,
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
    enabled: bool,
    total: usize,
    finished: usize,
    started: Instant,
    drawn: Option<Instant>,
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

    fn finish(&self) {
        if self.enabled && self.finished < self.total {
            eprintln!();
        }
    }
}

fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 { format!("{}h{:02}m", s / 3600, s % 3600 / 60) } else { format!("{}m{:02}s", s / 60, s % 60) }
}

pub(crate) struct Shared {
    pub(crate) study: PathBuf,
    pub(crate) file: CollectionFile,
    pub(crate) journal: Journal,
    pub(crate) endpoints: BTreeMap<String, Arc<Endpoint>>,
    semaphores: BTreeMap<String, Arc<Semaphore>>,
    pub(crate) api: reqwest::Client,
    pub(crate) redirects: reqwest::Client,
    pub(crate) budget: Mutex<Budget>,
    /// The most expensive answer of each model so far: a request reserves at least that.
    most: Mutex<BTreeMap<String, f64>>,
    pub(crate) summary: Mutex<Summary>,
    pub(crate) progress: Mutex<Progress>,
    pub(crate) stop: Stop,
}

impl Shared {
    /// What one request of a model reserves: its expected cost, or the most an answer of that
    /// model has cost in this study, whichever is more.
    fn reservation(&self, model: &ModelSettings) -> f64 {
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

/// Whether stderr is a terminal (the progress line is drawn only there).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Runs a plan to the end, to the budget, or to a stop.
pub async fn collect(file: CollectionFile, plan: Plan, options: Options, stop: Stop) -> Result<Summary, String> {
    let started = Instant::now();
    let journal = Journal::open(&options.study).map_err(|e| format!("{}: {e}", options.study.display()))?;
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
    drop(permit);
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

/// Closes requests that were billed for a call that ends without a record (the first search of
/// a deferred AI Overview whose second request failed): each at its own cost.
fn close_orphans(shared: &Shared, billed: Vec<Billed>) {
    for b in billed {
        close_request(shared, &b, None);
    }
}

/// Closes a request that led to no record, at what it may have cost.
fn close_unbilled(shared: &Shared, id: String, reserved: f64, cost: f64) {
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
fn cost_of(model: &ModelSettings, reply: &providers::Reply) -> f64 {
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
