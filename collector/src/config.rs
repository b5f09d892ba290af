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
    pub repeticiones: u32,
    /// The hard cap on what the run may spend, in USD, at the prices below.
    pub presupuesto_usd: f64,
    /// Generation settings for every model (each model may override some).
    #[serde(default)]
    pub generacion: Generation,
    /// Expected tokens and searches per call, for `--plan` and for the budget's reservations.
    #[serde(default)]
    pub estimacion: Estimate,
    /// Retries, backoff and timeouts.
    #[serde(default)]
    pub reintentos: Retries,
    /// Where the searches say the user is (OpenAI, Anthropic and Perplexity take it).
    pub ubicacion: Option<Location>,
    /// Providers by name: kind, base URL, key variable, concurrency, requests per minute.
    pub proveedores: BTreeMap<String, ProviderSettings>,
    /// The models asked: one per model id of the study.
    pub modelos: Vec<ModelSettings>,
    /// The judge that labels tone (`recolector tono`).
    pub juez: Option<Judge>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    /// System instructions; none by default (a consumer's question, as typed).
    pub instrucciones: Option<String>,
    pub temperatura: Option<f64>,
    #[serde(default = "default_max_tokens")]
    pub max_tokens_salida: u32,
}

impl Default for Generation {
    fn default() -> Self {
        Generation { instrucciones: None, temperatura: None, max_tokens_salida: default_max_tokens() }
    }
}

fn default_max_tokens() -> u32 {
    2048
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    #[serde(default = "default_input_tokens")]
    pub tokens_entrada: u64,
    #[serde(default = "default_output_tokens")]
    pub tokens_salida: u64,
    #[serde(default = "default_searches")]
    pub busquedas: f64,
    /// Seconds an answer takes (web search answers take tens of seconds): with the concurrency,
    /// it bounds the calls per minute as much as the rate limit does.
    #[serde(default = "default_seconds")]
    pub segundos: f64,
}

impl Default for Estimate {
    fn default() -> Self {
        Estimate {
            tokens_entrada: default_input_tokens(),
            tokens_salida: default_output_tokens(),
            busquedas: default_searches(),
            segundos: default_seconds(),
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
    pub intentos: u32,
    /// First backoff, doubled on each retry (with jitter), unless the provider says how long.
    #[serde(default = "default_first_wait")]
    pub espera_inicial_ms: u64,
    /// Longest wait between two attempts.
    #[serde(default = "default_max_wait")]
    pub espera_maxima_s: u64,
    /// Longest a call may take (web search answers take tens of seconds).
    #[serde(default = "default_timeout")]
    pub tiempo_limite_s: u64,
}

impl Default for Retries {
    fn default() -> Self {
        Retries {
            intentos: default_attempts(),
            espera_inicial_ms: default_first_wait(),
            espera_maxima_s: default_max_wait(),
            tiempo_limite_s: default_timeout(),
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
    pub pais: String,
    pub ciudad: Option<String>,
    pub region: Option<String>,
    /// IANA time zone ("America/Argentina/Buenos_Aires").
    pub zona_horaria: Option<String>,
}

/// The four wire protocols the collector speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// OpenAI's Responses API (`POST /v1/responses`).
    Openai,
    /// Anthropic's Messages API (`POST /v1/messages`).
    Anthropic,
    /// Google's Gemini API (`POST /v1beta/models/{model}:generateContent`).
    Google,
    /// Any OpenAI-compatible chat completions endpoint (`POST {url_base}/chat/completions`):
    /// Perplexity, vLLM, llama.cpp.
    Compatible,
}

impl Kind {
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Kind::Openai => Some("https://api.openai.com"),
            Kind::Anthropic => Some("https://api.anthropic.com"),
            Kind::Google => Some("https://generativelanguage.googleapis.com"),
            Kind::Compatible => None,
        }
    }

    pub fn default_key_variable(self) -> Option<&'static str> {
        match self {
            Kind::Openai => Some("OPENAI_API_KEY"),
            Kind::Anthropic => Some("ANTHROPIC_API_KEY"),
            Kind::Google => Some("GEMINI_API_KEY"),
            Kind::Compatible => None,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    pub tipo: Kind,
    /// Overrides the provider's public URL (and is overridden by `RECOLECTOR_URL_<NOMBRE>`).
    pub url_base: Option<String>,
    /// The environment variable holding the key (the key itself never goes in a file).
    pub clave_env: Option<String>,
    /// Calls in flight at once to this provider.
    #[serde(default = "default_concurrency")]
    pub concurrencia: u32,
    /// Calls started per minute, at most (the provider's rate tier).
    #[serde(default = "default_rpm")]
    pub solicitudes_por_minuto: u32,
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
    pub proveedor: String,
    /// The provider's model id ("gpt-5-mini", "claude-sonnet-4-5", "gemini-2.5-flash").
    pub modelo: String,
    /// The tier the sheets show: "estándar" or "avanzado"; the model answers that tier's questions.
    pub nivel: String,
    /// Web search on (the studies measure what assistants cite).
    #[serde(default = "yes")]
    pub busqueda_web: bool,
    /// Searches per call at most (Anthropic's `max_uses`).
    pub busquedas_max: Option<u32>,
    /// What the search price is per: `"consulta"` (each search the provider reports: OpenAI,
    /// Anthropic, Gemini 3) or `"llamada"` (once per call that searched: Gemini 2.5's grounded
    /// prompts, Perplexity's request fee).
    #[serde(default)]
    pub cobro_busqueda: SearchBilling,
    /// OpenAI's `reasoning.effort` ("minimal", "low", "medium", "high").
    pub esfuerzo: Option<String>,
    pub temperatura: Option<f64>,
    pub max_tokens_salida: Option<u32>,
    pub precio: Price,
    pub estimacion: Option<Estimate>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchBilling {
    #[default]
    Consulta,
    Llamada,
}

impl SearchBilling {
    /// Searches billed for a call that reported `searches`.
    pub fn billed(self, searches: u64) -> u64 {
        match self {
            SearchBilling::Consulta => searches,
            SearchBilling::Llamada => searches.min(1),
        }
    }
}

fn yes() -> bool {
    true
}

/// USD per million tokens, and per web search.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub entrada: f64,
    pub salida: f64,
    #[serde(default)]
    pub busqueda: f64,
}

impl Price {
    pub fn cost(&self, input_tokens: u64, output_tokens: u64, searches: f64) -> f64 {
        input_tokens as f64 * self.entrada / 1e6 + output_tokens as f64 * self.salida / 1e6 + searches * self.busqueda
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judge {
    pub proveedor: String,
    pub modelo: String,
    pub precio: Price,
    pub max_tokens_salida: Option<u32>,
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
        if self.repeticiones == 0 {
            problems.push("campo `repeticiones`: al menos 1".to_owned());
        }
        if !(self.presupuesto_usd.is_finite() && self.presupuesto_usd > 0.0) {
            problems.push("campo `presupuesto_usd`: se esperaba un monto positivo en dólares".to_owned());
        }
        if self.reintentos.intentos == 0 {
            problems.push("reintentos.intentos: al menos 1 (el primer intento cuenta)".to_owned());
        }
        if self.reintentos.tiempo_limite_s == 0 {
            problems.push("reintentos.tiempo_limite_s: al menos 1 segundo".to_owned());
        }
        for (name, provider) in &self.proveedores {
            if provider.concurrencia == 0 {
                problems.push(format!("proveedores.{name}.concurrencia: al menos 1"));
            }
            if provider.solicitudes_por_minuto == 0 {
                problems.push(format!("proveedores.{name}.solicitudes_por_minuto: al menos 1"));
            }
            match &provider.url_base {
                Some(url) => {
                    if let Err(e) = url::Url::parse(url) {
                        problems.push(format!("proveedores.{name}.url_base: `{url}` no es una URL: {e}"));
                    } else if url.ends_with('/') {
                        problems.push(format!("proveedores.{name}.url_base: sin barra final"));
                    }
                }
                None if provider.tipo == Kind::Compatible => {
                    problems.push(format!(
                        "proveedores.{name}.url_base: un proveedor `compatible` necesita su URL (https://api.perplexity.ai, http://127.0.0.1:8000/v1)"
                    ));
                }
                None => {}
            }
        }
        let mut ids = BTreeSet::new();
        if self.modelos.is_empty() {
            problems.push("modelos: al menos un modelo".to_owned());
        }
        for (i, model) in self.modelos.iter().enumerate() {
            if !ids.insert(model.id.as_str()) {
                problems.push(format!("modelos[{i}].id: `{}` está repetido", model.id));
            }
            if model.id.trim().is_empty() || model.modelo.trim().is_empty() {
                problems.push(format!("modelos[{i}]: `id` y `modelo` no pueden estar vacíos"));
            }
            if !self.proveedores.contains_key(&model.proveedor) {
                problems.push(format!(
                    "modelos[{i}].proveedor: `{}` no está en [proveedores] ({})",
                    model.proveedor,
                    self.proveedores.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            if !TIERS.contains(&model.nivel.as_str()) {
                problems
                    .push(format!("modelos[{i}].nivel: `{}`: se esperaba \"estándar\" o \"avanzado\"", model.nivel));
            }
            price_problems(&model.precio, &format!("modelos[{i}].precio"), &mut problems);
        }
        if let Some(judge) = &self.juez {
            if !self.proveedores.contains_key(&judge.proveedor) {
                problems.push(format!("juez.proveedor: `{}` no está en [proveedores]", judge.proveedor));
            }
            price_problems(&judge.precio, "juez.precio", &mut problems);
        }
        problems
    }

    pub fn model(&self, id: &str) -> Option<&ModelSettings> {
        self.modelos.iter().find(|m| m.id == id)
    }

    /// The estimate for one call of a model.
    pub fn estimate(&self, model: &ModelSettings) -> Estimate {
        let mut estimate = model.estimacion.unwrap_or(self.estimacion);
        if !model.busqueda_web {
            estimate.busquedas = 0.0;
        }
        estimate
    }

    /// The expected cost of one call of a model.
    pub fn expected_cost(&self, model: &ModelSettings) -> f64 {
        let e = self.estimate(model);
        model.precio.cost(e.tokens_entrada, e.tokens_salida, e.busquedas)
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
    for (field, value) in [("entrada", price.entrada), ("salida", price.salida), ("busqueda", price.busqueda)] {
        if !(value.is_finite() && value >= 0.0) {
            problems.push(format!("{path}.{field}: se esperaba un precio en dólares, 0 o más"));
        }
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
        .or_else(|| provider.url_base.clone())
        .or_else(|| provider.tipo.default_base_url().map(str::to_owned))
        .map(|url| url.trim_end_matches('/').to_owned())
}

/// The name of the variable that holds a provider's key, if it needs one.
pub fn key_variable(provider: &ProviderSettings) -> Option<String> {
    provider.clave_env.clone().or_else(|| provider.tipo.default_key_variable().map(str::to_owned))
}
