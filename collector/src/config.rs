//! `recoleccion.toml`: what a collection asks, of which models, how fast and for how much.
//!
//! The file sits in the study's folder next to `preguntas.jsonl` (the generator does not read it).
//! Field names are Spanish like the rest of `content/`; unknown keys are errors; every problem is
//! reported at once, each with its field path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

/// The whole collection file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionFile {
    /// How many times each (question, model) is asked.
    #[serde(rename = "repeticiones")]
    pub repetitions: u32,
    /// The hard cap on what the run may spend, in USD, at the prices below.
    #[serde(rename = "presupuesto_usd")]
    pub budget_usd: f64,
    /// Generation settings for every model (each model may override some).
    #[serde(default)]
    #[serde(rename = "generacion")]
    pub generation: Generation,
    /// Expected tokens and searches per call, for `--plan` and for the budget's reservations.
    #[serde(default)]
    #[serde(rename = "estimacion")]
    pub estimate: Estimate,
    /// Retries, backoff and timeouts.
    #[serde(default)]
    #[serde(rename = "reintentos")]
    pub retries: Retries,
    /// Where the searches say the user is (OpenAI, Anthropic and Perplexity take it).
    #[serde(rename = "ubicacion")]
    pub location: Option<Location>,
    /// Providers by name: kind, base URL, key variable, concurrency, requests per minute.
    #[serde(rename = "proveedores")]
    pub providers: BTreeMap<String, ProviderSettings>,
    /// The models asked: one per model id of the study.
    #[serde(rename = "modelos")]
    pub models: Vec<ModelSettings>,
    /// The judge that labels tone (`recolector tono`).
    #[serde(rename = "juez")]
    pub judge: Option<Judge>,
    /// Batches (`recolectar --lote`): how often to ask how they are going, and their size.
    #[serde(default)]
    #[serde(rename = "lotes")]
    pub batches: Batches,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batches {
    /// Seconds between two questions about a batch's progress (batches take minutes to a day).
    #[serde(default = "default_poll")]
    #[serde(rename = "sondeo_s")]
    pub poll_s: f64,
    /// Calls per batch at most (OpenAI takes 50,000 per batch; Anthropic 100,000; Gemini's
    /// inline batches up to 20 MB).
    #[serde(default = "default_batch_size")]
    #[serde(rename = "max_llamadas")]
    pub max_calls: usize,
}

impl Default for Batches {
    fn default() -> Self {
        Batches { poll_s: default_poll(), max_calls: default_batch_size() }
    }
}

fn default_poll() -> f64 {
    60.0
}
fn default_batch_size() -> usize {
    2000
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    /// System instructions; none by default (a consumer's question, as typed).
    #[serde(rename = "instrucciones")]
    pub instructions: Option<String>,
    #[serde(rename = "temperatura")]
    pub temperature: Option<f64>,
    #[serde(default = "default_max_tokens")]
    #[serde(rename = "max_tokens_salida")]
    pub max_output_tokens: u32,
}

impl Default for Generation {
    fn default() -> Self {
        Generation { instructions: None, temperature: None, max_output_tokens: default_max_tokens() }
    }
}

fn default_max_tokens() -> u32 {
    2048
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    #[serde(default = "default_input_tokens")]
    #[serde(rename = "tokens_entrada")]
    pub input_tokens: u64,
    #[serde(default = "default_output_tokens")]
    #[serde(rename = "tokens_salida")]
    pub output_tokens: u64,
    #[serde(default = "default_searches")]
    #[serde(rename = "busquedas")]
    pub searches: f64,
    /// Seconds an answer takes (web search answers take tens of seconds): with the concurrency,
    /// it bounds the calls per minute as much as the rate limit does.
    #[serde(default = "default_seconds")]
    #[serde(rename = "segundos")]
    pub seconds: f64,
}

impl Default for Estimate {
    fn default() -> Self {
        Estimate {
            input_tokens: default_input_tokens(),
            output_tokens: default_output_tokens(),
            searches: default_searches(),
            seconds: default_seconds(),
        }
    }
}

fn default_input_tokens() -> u64 {
    3000
}
fn default_output_tokens() -> u64 {
    800
}
fn default_searches() -> f64 {
    1.0
}
fn default_seconds() -> f64 {
    15.0
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retries {
    /// Attempts per call, the first included.
    #[serde(default = "default_attempts")]
    #[serde(rename = "intentos")]
    pub attempts: u32,
    /// First backoff, doubled on each retry (with jitter), unless the provider says how long.
    #[serde(default = "default_first_wait")]
    #[serde(rename = "espera_inicial_ms")]
    pub first_wait_ms: u64,
    /// Longest wait between two attempts.
    #[serde(default = "default_max_wait")]
    #[serde(rename = "espera_maxima_s")]
    pub max_wait_s: u64,
    /// Longest a call may take (web search answers take tens of seconds).
    #[serde(default = "default_timeout")]
    #[serde(rename = "tiempo_limite_s")]
    pub timeout_s: u64,
}

impl Default for Retries {
    fn default() -> Self {
        Retries {
            attempts: default_attempts(),
            first_wait_ms: default_first_wait(),
            max_wait_s: default_max_wait(),
            timeout_s: default_timeout(),
        }
    }
}

fn default_attempts() -> u32 {
    6
}
fn default_first_wait() -> u64 {
    1000
}
fn default_max_wait() -> u64 {
    60
}
fn default_timeout() -> u64 {
    180
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Location {
    /// ISO 3166-1 alpha-2 ("AR").
    #[serde(rename = "pais")]
    pub country: String,
    #[serde(rename = "ciudad")]
    pub city: Option<String>,
    pub region: Option<String>,
    /// IANA time zone ("America/Argentina/Buenos_Aires").
    #[serde(rename = "zona_horaria")]
    pub timezone: Option<String>,
}

/// The wire protocols the collector speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// OpenAI's Responses API (`POST /v1/responses`).
    Openai,
    /// Anthropic's Messages API (`POST /v1/messages`).
    Anthropic,
    /// Google's Gemini API (`POST /v1beta/models/{model}:generateContent`).
    Google,
    /// Perplexity's Sonar API (`POST /chat/completions` at `api.perplexity.ai`): every call
    /// searches; `citations` and `search_results`; a fee per request besides the tokens.
    Perplexity,
    /// SerpApi, a SERP API (`GET /search.json`): Google's AI Overview (`engine=google`) and AI Mode
    /// (`engine=google_ai_mode`), the consumer surfaces of `collector::surface`.
    Serpapi,
    /// Any OpenAI-compatible chat completions endpoint (`POST {url_base}/chat/completions`):
    /// vLLM, llama.cpp.
    Compatible,
}

impl Kind {
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Kind::Openai => Some("https://api.openai.com"),
            Kind::Anthropic => Some("https://api.anthropic.com"),
            Kind::Google => Some("https://generativelanguage.googleapis.com"),
            Kind::Perplexity => Some("https://api.perplexity.ai"),
            Kind::Serpapi => Some("https://serpapi.com"),
            Kind::Compatible => None,
        }
    }

    pub fn default_key_variable(self) -> Option<&'static str> {
        match self {
            Kind::Openai => Some("OPENAI_API_KEY"),
            Kind::Anthropic => Some("ANTHROPIC_API_KEY"),
            Kind::Google => Some("GEMINI_API_KEY"),
            Kind::Perplexity => Some("PERPLEXITY_API_KEY"),
            Kind::Serpapi => Some("SERPAPI_API_KEY"),
            Kind::Compatible => None,
        }
    }

    /// The name `tipo` takes in the collection file.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Openai => "openai",
            Kind::Anthropic => "anthropic",
            Kind::Google => "google",
            Kind::Perplexity => "perplexity",
            Kind::Serpapi => "serpapi",
            Kind::Compatible => "compatible",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    #[serde(rename = "tipo")]
    pub kind: Kind,
    /// Overrides the provider's public URL (and is overridden by `RECOLECTOR_URL_<NOMBRE>`).
    #[serde(rename = "url_base")]
    pub base_url: Option<String>,
    /// The environment variable holding the key (the key itself never goes in a file).
    #[serde(rename = "clave_env")]
    pub key_env: Option<String>,
    /// Calls in flight at once to this provider.
    #[serde(default = "default_concurrency")]
    #[serde(rename = "concurrencia")]
    pub concurrency: u32,
    /// Calls started per minute, at most (the provider's rate tier).
    #[serde(default = "default_rpm")]
    #[serde(rename = "solicitudes_por_minuto")]
    pub requests_per_minute: u32,
}

fn default_concurrency() -> u32 {
    4
}
fn default_rpm() -> u32 {
    60
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The study's model id (`modelos` of `estudio.toml`, `modelo` of each answer).
    pub id: String,
    /// A key of `[proveedores]`.
    #[serde(rename = "proveedor")]
    pub provider: String,
    /// The provider's model id ("gpt-5-mini", "claude-sonnet-4-5", "gemini-2.5-flash", "sonar");
    /// none for a SERP surface, which has no model to choose.
    #[serde(default, rename = "modelo")]
    pub model: Option<String>,
    /// Where the answer is seen: `api`, or a consumer surface (`collector::surface`), which a SERP
    /// provider collects.
    #[serde(default = "api_surface", rename = "superficie")]
    pub surface: String,
    /// Perplexity's `web_search_options.search_context_size` (`"low"`, `"medium"`, `"high"`): how
    /// much of the search goes into the answer, and which request fee applies.
    #[serde(rename = "contexto_busqueda")]
    pub search_context: Option<String>,
    /// The tier the sheets show: "estándar" or "avanzado"; the model answers that tier's questions.
    #[serde(rename = "nivel")]
    pub level: String,
    /// Web search on (the studies measure what assistants cite).
    #[serde(default = "yes")]
    #[serde(rename = "busqueda_web")]
    pub web_search_on: bool,
    /// Searches per call at most (Anthropic's `max_uses`).
    #[serde(rename = "busquedas_max")]
    pub max_searches: Option<u32>,
    /// What the search price is per: `"consulta"` (each search the provider reports: OpenAI,
    /// Anthropic, Gemini 3) or `"llamada"` (once per call that searched: Gemini 2.5's grounded
    /// prompts, Perplexity's request fee).
    #[serde(default)]
    #[serde(rename = "cobro_busqueda")]
    pub search_billing: SearchBilling,
    /// OpenAI's `reasoning.effort` ("minimal", "low", "medium", "high").
    #[serde(rename = "esfuerzo")]
    pub effort: Option<String>,
    #[serde(rename = "temperatura")]
    pub temperature: Option<f64>,
    #[serde(rename = "max_tokens_salida")]
    pub max_output_tokens: Option<u32>,
    #[serde(rename = "precio")]
    pub price: Price,
    /// The price in a batch (`recolectar --lote`); by default `precio` with its tokens at half
    /// price (the three providers' batch discount) and its searches and request fee as they are.
    #[serde(rename = "precio_lote")]
    pub batch_price: Option<Price>,
    #[serde(rename = "estimacion")]
    pub estimate: Option<Estimate>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchBilling {
    #[default]
    #[serde(rename = "consulta")]
    Query,
    #[serde(rename = "llamada")]
    Call,
}

impl SearchBilling {
    /// Searches billed for a call that reported `searches`.
    pub fn billed(self, searches: u64) -> u64 {
        match self {
            SearchBilling::Query => searches,
            SearchBilling::Call => searches.min(1),
        }
    }
}

fn yes() -> bool {
    true
}

fn api_surface() -> String {
    crate::surface::API.to_owned()
}

impl ModelSettings {
    /// The price of a call in a batch: `precio_lote`, or `precio` with its tokens at half price.
    pub fn batch_price(&self) -> Price {
        self.batch_price.unwrap_or(Price {
            input: self.price.input.map(|p| p / 2.0),
            output: self.price.output.map(|p| p / 2.0),
            ..self.price
        })
    }

    /// What is asked of the provider: the model id, or for a SERP surface the engine
    /// (`modelo_proveedor` of each answer).
    pub fn asked(&self) -> &str {
        match self.surface.as_str() {
            crate::surface::GOOGLE_AI_OVERVIEW => "google",
            crate::surface::GOOGLE_AI_MODE => "google_ai_mode",
            _ => self.model.as_deref().unwrap_or(""),
        }
    }
}

/// USD per million tokens, per web search (a SERP API's search, for a consumer surface) and per
/// request (Perplexity's request fee).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    #[serde(default, rename = "entrada")]
    pub input: Option<f64>,
    #[serde(default, rename = "salida")]
    pub output: Option<f64>,
    #[serde(default)]
    #[serde(rename = "busqueda")]
    pub search: f64,
    #[serde(default)]
    #[serde(rename = "solicitud")]
    pub request: f64,
}

impl Price {
    /// What a call that answered costs: its tokens, its billed searches and the request fee.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64, searches: f64) -> f64 {
        input_tokens as f64 * self.input.unwrap_or(0.0) / 1e6
            + output_tokens as f64 * self.output.unwrap_or(0.0) / 1e6
            + searches * self.search
            + self.request
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judge {
    #[serde(rename = "proveedor")]
    pub provider: String,
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "precio")]
    pub price: Price,
    #[serde(rename = "max_tokens_salida")]
    pub max_output_tokens: Option<u32>,
}

pub const TIERS: [&str; 2] = ["estándar", "avanzado"];

impl CollectionFile {
    /// Reads and checks the file; every problem at once.
    pub fn read(path: &Path) -> Result<CollectionFile, Vec<String>> {
        let shown = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| vec![format!("{shown}: no se pudo leer: {e}")])?;
        let file: CollectionFile = toml::from_str(&text).map_err(|e| {
            let line = line_of_error(&text, e.message(), e.span().map_or(0, |s| s.start));
            vec![format!("{shown}: línea {line}, {}", e.message())]
        })?;
        let problems = file.problems();
        if problems.is_empty() {
            Ok(file)
        } else {
            Err(problems.into_iter().map(|p| format!("{shown}: {p}")).collect())
        }
    }

    /// What is wrong with a parsed file.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.repetitions == 0 {
            problems.push("campo `repeticiones`: al menos 1".to_owned());
        }
        if !(self.budget_usd.is_finite() && self.budget_usd > 0.0) {
            problems.push("campo `presupuesto_usd`: se esperaba un monto positivo en dólares".to_owned());
        }
        if self.retries.attempts == 0 {
            problems.push("reintentos.intentos: al menos 1 (el primer intento cuenta)".to_owned());
        }
        if self.retries.timeout_s == 0 {
            problems.push("reintentos.tiempo_limite_s: al menos 1 segundo".to_owned());
        }
        for (name, provider) in &self.providers {
            if provider.concurrency == 0 {
                problems.push(format!("proveedores.{name}.concurrencia: al menos 1"));
            }
            if provider.requests_per_minute == 0 {
                problems.push(format!("proveedores.{name}.solicitudes_por_minuto: al menos 1"));
            }
            match &provider.base_url {
                Some(url) => {
                    if let Err(e) = url::Url::parse(url) {
                        problems.push(format!("proveedores.{name}.url_base: `{url}` no es una URL: {e}"));
                    } else if url.ends_with('/') {
                        problems.push(format!("proveedores.{name}.url_base: sin barra final"));
                    }
                }
                None if provider.kind == Kind::Compatible => {
                    problems.push(format!(
                        "proveedores.{name}.url_base: un proveedor `compatible` necesita su URL (https://api.perplexity.ai, http://127.0.0.1:8000/v1)"
                    ));
                }
                None => {}
            }
        }
        let mut ids = BTreeSet::new();
        if self.models.is_empty() {
            problems.push("modelos: al menos un modelo".to_owned());
        }
        for (i, model) in self.models.iter().enumerate() {
            if !ids.insert(model.id.as_str()) {
                problems.push(format!("modelos[{i}].id: `{}` está repetido", model.id));
            }
            if model.id.trim().is_empty() {
                problems.push(format!("modelos[{i}].id: no puede estar vacío"));
            }
            match self.providers.get(&model.provider) {
                None => problems.push(format!(
                    "modelos[{i}].proveedor: `{}` no está en [proveedores] ({})",
                    model.provider,
                    self.providers.keys().cloned().collect::<Vec<_>>().join(", ")
                )),
                Some(provider) => model_problems(i, model, provider.kind, &mut problems),
            }
            if !TIERS.contains(&model.level.as_str()) {
                problems
                    .push(format!("modelos[{i}].nivel: `{}`: se esperaba \"estándar\" o \"avanzado\"", model.level));
            }
            price_problems(&model.price, &format!("modelos[{i}].precio"), &mut problems);
            if let Some(price) = &model.batch_price {
                price_problems(price, &format!("modelos[{i}].precio_lote"), &mut problems);
            }
        }
        if !(self.batches.poll_s.is_finite() && self.batches.poll_s >= 0.0) {
            problems.push("lotes.sondeo_s: segundos, 0 o más".to_owned());
        }
        if self.batches.max_calls == 0 {
            problems.push("lotes.max_llamadas: al menos 1".to_owned());
        }
        if let Some(judge) = &self.judge {
            match self.providers.get(&judge.provider) {
                None => problems.push(format!("juez.proveedor: `{}` no está en [proveedores]", judge.provider)),
                Some(provider) if provider.kind == Kind::Serpapi => {
                    problems
                        .push("juez.proveedor: el juez es un modelo de lenguaje, no una API de búsqueda".to_owned());
                }
                Some(_) => {}
            }
            price_problems(&judge.price, "juez.precio", &mut problems);
            if judge.price.input.is_none() || judge.price.output.is_none() {
                problems.push("juez.precio: faltan `entrada` y `salida` (dólares por millón de tokens)".to_owned());
            }
        }
        problems
    }

    pub fn model(&self, id: &str) -> Option<&ModelSettings> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The estimate for one call of a model.
    pub fn estimate(&self, model: &ModelSettings) -> Estimate {
        let mut estimate = model.estimate.unwrap_or(self.estimate);
        if !model.web_search_on {
            estimate.searches = 0.0;
        }
        estimate
    }

    /// The expected cost of one call of a model.
    pub fn expected_cost(&self, model: &ModelSettings) -> f64 {
        let e = self.estimate(model);
        model.price.cost(e.input_tokens, e.output_tokens, e.searches)
    }

    /// The expected cost of one call of a model in a batch.
    pub fn expected_batch_cost(&self, model: &ModelSettings) -> f64 {
        let e = self.estimate(model);
        model.batch_price().cost(e.input_tokens, e.output_tokens, e.searches)
    }
}

/// The line an error is about: the key an "unknown field" names, where it is written; otherwise
/// where the reader's span starts.
fn line_of_error(text: &str, message: &str, start: usize) -> usize {
    if let Some(name) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
        let found = text.lines().position(|l| {
            let l = l.trim_start();
            l.strip_prefix(name).is_some_and(|rest| rest.trim_start().starts_with('='))
        });
        if let Some(index) = found {
            return index + 1;
        }
    }
    text[..start.min(text.len())].matches('\n').count() + 1
}

fn price_problems(price: &Price, path: &str, problems: &mut Vec<String>) {
    for (field, value) in [
        ("entrada", price.input.unwrap_or(0.0)),
        ("salida", price.output.unwrap_or(0.0)),
        ("busqueda", price.search),
        ("solicitud", price.request),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            problems.push(format!("{path}.{field}: se esperaba un precio en dólares, 0 o más"));
        }
    }
}

/// What a model must say for its provider's kind: a model id and token prices for an API; a
/// consumer surface and a price per search, and no model, for a SERP API.
fn model_problems(i: usize, model: &ModelSettings, kind: Kind, problems: &mut Vec<String>) {
    if !crate::surface::known(&model.surface) {
        problems.push(format!(
            "modelos[{i}].superficie: `{}` no es una superficie conocida ({})",
            model.surface,
            crate::surface::ids()
        ));
    }
    if kind == Kind::Serpapi {
        if model.surface == crate::surface::API {
            problems.push(format!(
                "modelos[{i}].superficie: un proveedor `serpapi` recolecta una superficie de consumo: \"{}\" o \"{}\"",
                crate::surface::GOOGLE_AI_OVERVIEW,
                crate::surface::GOOGLE_AI_MODE
            ));
        }
        if model.model.is_some() {
            problems.push(format!(
                "modelos[{i}].modelo: una superficie de consumo no tiene modelo que elegir: quítelo (la superficie dice qué se consulta)"
            ));
        }
        if model.price.search <= 0.0 {
            problems.push(format!(
                "modelos[{i}].precio.busqueda: el precio de cada búsqueda de SerpApi, en dólares (su plan dividido por sus búsquedas)"
            ));
        }
        return;
    }
    if model.surface != crate::surface::API {
        problems.push(format!(
            "modelos[{i}].superficie: `{}` se recolecta con un proveedor `serpapi`; la API de `{}` es la superficie \"api\"",
            model.surface,
            kind.name()
        ));
    }
    if model.model.as_deref().is_none_or(|m| m.trim().is_empty()) {
        problems.push(format!("modelos[{i}].modelo: falta el id de modelo del proveedor"));
    }
    if model.price.input.is_none() || model.price.output.is_none() {
        problems.push(format!("modelos[{i}].precio: faltan `entrada` y `salida` (dólares por millón de tokens)"));
    }
    if let Some(context) = &model.search_context
        && !["low", "medium", "high"].contains(&context.as_str())
    {
        problems
            .push(format!("modelos[{i}].contexto_busqueda: `{context}`: se esperaba \"low\", \"medium\" o \"high\""));
    }
    if model.search_context.is_some() && kind != Kind::Perplexity {
        problems.push(format!("modelos[{i}].contexto_busqueda: solo para un proveedor `perplexity`"));
    }
}

/// Where a provider is reached: `RECOLECTOR_URL_<NAME>` first, then `url_base`, then the public URL.
pub fn base_url(name: &str, provider: &ProviderSettings) -> Option<String> {
    let variable = format!(
        "RECOLECTOR_URL_{}",
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect::<String>()
    );
    std::env::var(variable)
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| provider.base_url.clone())
        .or_else(|| provider.kind.default_base_url().map(str::to_owned))
        .map(|url| url.trim_end_matches('/').to_owned())
}

/// The name of the variable that holds a provider's key, if it needs one.
pub fn key_variable(provider: &ProviderSettings) -> Option<String> {
    provider.key_env.clone().or_else(|| provider.kind.default_key_variable().map(str::to_owned))
}
