//! The content model: what a publisher writes under `content/`, as typed structs.
//!
//! Field names follow the files (Spanish), so the structs double as the reference for
//! the book's format pages (`docs/src/publicar/`). Everything derives `Serialize` too: the synthetic-corpus writer
//! (`synth`) produces content through the same types the loader reads, so the two can
//! never disagree about the format.

use std::collections::BTreeMap;

use contract::Price;
use serde::{Deserialize, Serialize};

/// `content/servicio.toml`: service-wide settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSettings {
    /// Service name in Spanish.
    #[serde(rename = "nombre")]
    pub name: String,
    /// Service name in English.
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    pub editor: String,
    /// The publisher's web site (absolute URL).
    pub web: String,
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "descripcion_en")]
    pub description_en: String,
    /// Absolute URL the gate is reached at, without a trailing slash.
    pub base_url: String,
    /// Contact e-mail shown on the privacy page and in the packages.
    #[serde(rename = "contacto")]
    pub contact: String,
    /// The one setting that decides networks and facilitator: `local`, `testnet` or `mainnet`.
    #[serde(rename = "modo")]
    pub mode: Mode,
    /// Default price of a study, written in US dollars ("0.99"), held in atomic units.
    #[serde(rename = "precio_usd")]
    pub price_usd: Price,
    /// Currency the price is paid in (USDC).
    #[serde(rename = "moneda")]
    pub currency: String,
    /// How long the signed download links stay valid, in days.
    #[serde(rename = "vigencia_enlaces_dias")]
    pub link_validity_days: u32,
    /// EVM address (0x + 40 hex) that receives payments on Base / Base Sepolia.
    #[serde(rename = "pagar_a_evm")]
    pub pay_to_evm: String,
    /// Optional Solana address (base58 public key) that receives payments on Solana devnet
    /// (testnet mode) or Solana mainnet (mainnet mode). Local mode never offers Solana: the
    /// local facilitator verifies EVM signatures only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "pagar_a_solana")]
    pub pay_to_solana: Option<String>,
    /// Optional URL of the license or terms of use the studies are sold under; published as
    /// the schema.org `license` of every study's `Dataset` markup when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "licencia")]
    pub license: Option<String>,
    /// Optional absolute `https` URL of the service's icon: x402 Bazaar's `resource.iconUrl`
    /// on every 402 and the `icon` of MPP's directory entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "icono_url")]
    pub icon_url: Option<String>,
    #[serde(rename = "privacidad")]
    pub privacy: Privacy,
}

/// Payment mode (defined with the manifest, which carries it to the gate).
pub use contract::Mode;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Privacy {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "titulo_en")]
    pub title_en: String,
    #[serde(rename = "texto")]
    pub text: String,
    #[serde(rename = "texto_en")]
    pub text_en: String,
}

/// `content/metricas.toml`: the metric definitions published at `/metricas` and in every package.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsFile {
    #[serde(rename = "metricas")]
    pub metrics: Vec<MetricDefinition>,
    /// How a change between a study's run and its previous run is computed (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "cambio")]
    pub change: Option<ChangeDefinition>,
}

/// `[cambio]` in `metricas.toml`: the change tables' method, published at `/metricas` and in
/// every package of a study compared with its previous run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeDefinition {
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    #[serde(rename = "definicion")]
    pub definition: String,
    #[serde(rename = "definicion_en")]
    pub definition_en: String,
    /// Which questions and answers enter each run's value.
    pub base: String,
    pub base_en: String,
    /// The difference and its interval, precisely enough to reproduce every cell.
    #[serde(rename = "intervalo")]
    pub interval: String,
    #[serde(rename = "intervalo_en")]
    pub interval_en: String,
    #[serde(rename = "veredicto")]
    pub verdict: String,
    #[serde(rename = "veredicto_en")]
    pub verdict_en: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricDefinition {
    /// One of the metric ids the engine knows (see [`Metric`]).
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    #[serde(rename = "definicion")]
    pub definition: String,
    #[serde(rename = "definicion_en")]
    pub definition_en: String,
    /// The formula in words.
    pub formula: String,
    pub formula_en: String,
    /// Scale of the published number ("0 a 1", "0 a 10", "0 a 10.000", "posición 1 o más").
    #[serde(rename = "escala")]
    pub scale: String,
    #[serde(rename = "escala_en")]
    pub scale_en: String,
    /// What a buyer needs to reproduce the number: unit of analysis, numerator, denominator,
    /// weighting, null rules, ties, rounding and interval (each also in English).
    #[serde(rename = "unidad")]
    pub unit: String,
    #[serde(rename = "unidad_en")]
    pub unit_en: String,
    #[serde(rename = "numerador")]
    pub numerator: String,
    #[serde(rename = "numerador_en")]
    pub numerator_en: String,
    #[serde(rename = "denominador")]
    pub denominator: String,
    #[serde(rename = "denominador_en")]
    pub denominator_en: String,
    #[serde(rename = "ponderacion")]
    pub weighting: String,
    #[serde(rename = "ponderacion_en")]
    pub weighting_en: String,
    #[serde(rename = "nulo")]
    pub null_case: String,
    #[serde(rename = "nulo_en")]
    pub null_case_en: String,
    #[serde(rename = "empates")]
    pub ties: String,
    #[serde(rename = "empates_en")]
    pub ties_en: String,
    #[serde(rename = "redondeo")]
    pub rounding: String,
    #[serde(rename = "redondeo_en")]
    pub rounding_en: String,
    #[serde(rename = "intervalo")]
    pub interval: String,
    #[serde(rename = "intervalo_en")]
    pub interval_en: String,
}

/// `content/estudios/<slug>/estudio.toml`: the design of one study.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyFile {
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "descripcion_en")]
    pub description_en: String,
    #[serde(rename = "industria")]
    pub industry: String,
    #[serde(rename = "subindustria")]
    pub subindustry: String,
    /// One or more countries.
    #[serde(rename = "pais")]
    pub country: Vec<String>,
    /// Languages of the questions (ISO 639-1: "es", "en", "pt").
    #[serde(rename = "idioma")]
    pub language: Vec<String>,
    /// Publication date (YYYY-MM-DD). Fixes the timestamps inside the ZIP and xlsx.
    #[serde(rename = "publicado")]
    pub published: String,
    /// Price override in US dollars; the service default applies when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "precio_usd")]
    pub price_usd: Option<Price>,
    #[serde(rename = "version_paquete")]
    pub package_version: String,
    pub tags: Vec<String>,
    #[serde(rename = "como_citar")]
    pub how_to_cite: String,
    #[serde(rename = "nota")]
    pub note: String,
    #[serde(rename = "metodologia")]
    pub methodology: Vec<MethodSection>,
    #[serde(rename = "dimensiones")]
    pub dimensions: Vec<Dimension>,
    #[serde(rename = "modelos")]
    pub models: Vec<ModelSpec>,
    /// Optional market-share weights per model; models weigh equally when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "ponderacion")]
    pub weighting: Option<Weighting>,
    #[serde(rename = "analisis")]
    pub analyses: Vec<TableSpec>,
    /// The previous run of the same questions, compared with this one (its answers live in
    /// `anterior/`); absent for a first run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "corrida_anterior")]
    pub previous_run: Option<PreviousRunSpec>,
}

/// `[corrida_anterior]` in `estudio.toml`: what the previous run asked with. Its questions and
/// answers are `anterior/preguntas.jsonl` and `anterior/respuestas.jsonl`; questions pair with
/// this run's by `id`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviousRunSpec {
    /// What that run was ("Corrida de octubre de 2025"), in Spanish and English.
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "descripcion_en")]
    pub description_en: String,
    /// The models that answered then (an id shared with `modelos` is the same model).
    #[serde(rename = "modelos")]
    pub models: Vec<ModelSpec>,
    /// Market-share weights of the previous run's models; equal when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "ponderacion")]
    pub weighting: Option<Weighting>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSection {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "texto")]
    pub text: String,
}

/// A way the questions are classified (seccion, producto, idioma, ...).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dimension {
    /// Field name used in `preguntas.jsonl` (lowercase ASCII, digits and `_`).
    pub id: String,
    #[serde(rename = "etiqueta")]
    pub label: String,
    #[serde(rename = "etiqueta_en")]
    pub label_en: String,
    /// Allowed values, in display order. Every question must use one of them.
    #[serde(rename = "valores")]
    pub values: Vec<String>,
}

/// Model tier. Questions carry one too: the tier of the models that answered them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Tier {
    #[serde(rename = "estándar")]
    Standard,
    #[serde(rename = "avanzado")]
    Advanced,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Standard => "estándar",
            Tier::Advanced => "avanzado",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// Identifier used in `respuestas.jsonl` (e.g. "gpt-4.1-mini").
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "proveedor")]
    pub provider: String,
    #[serde(rename = "nivel")]
    pub level: Tier,
}

/// Market-share weights: model id → weight (any positive scale; normalised by the engine).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weighting {
    /// Where the shares come from (published next to every weighted table).
    #[serde(rename = "fuente")]
    pub source: String,
    #[serde(rename = "pesos")]
    pub weights: BTreeMap<String, f64>,
}

/// One analysis table to compute: a metric (or several) crossed with a grouping.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// "A01", "A02", ... unique in the study.
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "titulo_en")]
    pub title_en: String,
    #[serde(rename = "tipo")]
    pub kind: TableKind,
    /// Metrics shown. `marcas` takes one or more; the crossed kinds take exactly one;
    /// `concentracion`, `acuerdo`, `tono` and `fuentes` take none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(rename = "metricas")]
    pub metrics: Vec<Metric>,
    /// Dimension id, for `marca_por_dimension`, `modelo_por_dimension` and optionally `concentracion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<String>,
    /// Brand id, for `modelo_por_dimension`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "marca")]
    pub brand: Option<String>,
    /// Restricts the table to questions with these dimension values (dimension id → value).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(rename = "filtro")]
    pub filter: BTreeMap<String, String>,
    /// For `fuentes`: how many domains to list (default 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "limite")]
    pub limit: Option<usize>,
}

impl TableKind {
    /// The name used in `estudio.toml`.
    pub fn id(self) -> &'static str {
        match self {
            TableKind::Brands => "marcas",
            TableKind::BrandByModel => "marca_por_modelo",
            TableKind::BrandByDimension => "marca_por_dimension",
            TableKind::ModelByDimension => "modelo_por_dimension",
            TableKind::Concentration => "concentracion",
            TableKind::Agreement => "acuerdo",
            TableKind::Stability => "estabilidad",
            TableKind::Tone => "tono",
            TableKind::Sources => "fuentes",
        }
    }
}

/// The shapes an analysis table can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableKind {
    /// Rows: brands. Columns: the listed metrics (with their counts).
    #[serde(rename = "marcas")]
    Brands,
    /// Rows: brands. Columns: one metric per model, plus the weighted total.
    #[serde(rename = "marca_por_modelo")]
    BrandByModel,
    /// Rows: brands. Columns: one metric per value of a dimension, plus the total.
    #[serde(rename = "marca_por_dimension")]
    BrandByDimension,
    /// Rows: models plus the total. Columns: one brand's metric per value of a dimension.
    #[serde(rename = "modelo_por_dimension")]
    ModelByDimension,
    /// Rows: models (or dimension values) plus the total. Columns: concentration measures.
    #[serde(rename = "concentracion")]
    Concentration,
    /// Rows: pairs of models asked the same questions. Columns: Jaccard, top-1 match, skips.
    #[serde(rename = "acuerdo")]
    Agreement,
    /// Rows: models asked a question more than once. Columns: agreement of each model with
    /// itself across the repetitions of a question (Jaccard, top-1 match), plus the total.
    #[serde(rename = "estabilidad")]
    Stability,
    /// Rows: brands with tone labels. Columns: label counts and net tone.
    #[serde(rename = "tono")]
    Tone,
    /// Rows: the most cited source domains. Columns: answers citing them, rate, owner brand.
    #[serde(rename = "fuentes")]
    Sources,
}

/// Brand-level metrics the engine computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Share of answers naming the brand.
    #[serde(rename = "mencion")]
    Mention,
    /// Average order of first appearance, over answers naming the brand.
    #[serde(rename = "orden")]
    Order,
    /// Share of answers citing a brand domain (or subdomain) among the sources.
    #[serde(rename = "citacion")]
    Citation,
    /// Share of answers citing a brand domain without naming the brand.
    #[serde(rename = "citacion_fantasma")]
    PhantomCitation,
    /// Among the answers that record the sources the provider consulted, the share whose
    /// consulted sources hold a brand domain (or subdomain) that no cited source holds.
    #[serde(rename = "consultada_no_citada")]
    ConsultedNotCited,
    /// Protagonismo IA: 10/8/7/6/5 by position, 0 when absent, averaged.
    #[serde(rename = "protagonismo")]
    Prominence,
    /// Share of answers with some brand in which this brand comes first.
    Top1,
    /// Share of voice: the brand's mentions over all brand mentions.
    Sov,
    /// Net tone from labels: (pos − neg) / labelled.
    #[serde(rename = "tono_neto")]
    NetTone,
}

impl Metric {
    pub const ALL: [Metric; 9] = [
        Metric::Mention,
        Metric::Order,
        Metric::Citation,
        Metric::PhantomCitation,
        Metric::ConsultedNotCited,
        Metric::Prominence,
        Metric::Top1,
        Metric::Sov,
        Metric::NetTone,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Metric::Mention => "mencion",
            Metric::Order => "orden",
            Metric::Citation => "citacion",
            Metric::PhantomCitation => "citacion_fantasma",
            Metric::ConsultedNotCited => "consultada_no_citada",
            Metric::Prominence => "protagonismo",
            Metric::Top1 => "top1",
            Metric::Sov => "sov",
            Metric::NetTone => "tono_neto",
        }
    }
}

/// `marcas.toml`: the tracked brands and entities of a study.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrandsFile {
    #[serde(rename = "marcas")]
    pub brands: Vec<Brand>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Brand {
    /// Short identifier (lowercase ASCII, digits, `-`), used by tone labels and table specs.
    pub id: String,
    /// Display name; also the row label in every table.
    #[serde(rename = "nombre")]
    pub name: String,
    /// Other names the answers may use. The display name always counts as an alias.
    #[serde(default)]
    pub alias: Vec<String>,
    /// Phrases that contain an alias but do not refer to the brand ("jugo de naranja").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(rename = "excluir")]
    pub exclude: Vec<String>,
    /// Web domains of the brand (hosts, without scheme); subdomains count too.
    #[serde(default)]
    #[serde(rename = "dominios")]
    pub domains: Vec<String>,
}

/// One line of `preguntas.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    #[serde(rename = "texto")]
    pub text: String,
    #[serde(rename = "idioma")]
    pub language: String,
    /// The tier of the models that answered this question.
    #[serde(rename = "modelo")]
    pub model: Tier,
    /// One value per declared dimension, as `"dimension_id": "value"`. A dimension named
    /// `idioma` is the question's own `idioma` field and is not repeated here.
    #[serde(flatten)]
    pub dimensions: BTreeMap<String, String>,
}

/// Dimension id that reads the question's language instead of a field of its own.
pub const LANGUAGE_DIMENSION: &str = "idioma";

/// Dimension id that reads each answer's surface (`superficie`): an answer-level cut, so a
/// question's own [`Question::dimension`] never has it.
pub const SURFACE_DIMENSION: &str = "superficie";

/// The surface of an answer whose line does not say: a provider's API.
pub const API_SURFACE: &str = "api";

impl Question {
    /// The question's value for a dimension (`idioma` is its language).
    pub fn dimension(&self, id: &str) -> Option<&str> {
        if id == LANGUAGE_DIMENSION { Some(&self.language) } else { self.dimensions.get(id).map(String::as_str) }
    }
}

/// One line of `respuestas.jsonl`: a raw answer exactly as the model gave it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Unique in the study ("R0001").
    pub id: String,
    /// Question id.
    #[serde(rename = "pregunta")]
    pub question: String,
    /// Model id (declared in `estudio.toml`).
    #[serde(rename = "modelo")]
    pub model: String,
    /// Exact model version the provider reported.
    pub version: String,
    /// Date the answer was collected (YYYY-MM-DD).
    #[serde(rename = "fecha")]
    pub date: String,
    #[serde(rename = "respuesta")]
    pub answer: String,
    #[serde(default)]
    #[serde(rename = "fuentes")]
    pub sources: Vec<Source>,
    /// Tone labels: brand id → `pos`, `neu` or `neg`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(rename = "tono")]
    pub tone: BTreeMap<String, Tone>,
    /// Which asking of the same question to the same model this is (1, 2, …). Answers to one
    /// question are one cluster in the intervals whatever their repetition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "repeticion")]
    pub repetition: Option<u32>,
    /// What the collector (`recolector`) recorded about the call; the metrics do not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "recoleccion")]
    pub collection: Option<Collection>,
    /// Where the answer was seen: `api` (a provider's API, what a line without the field means)
    /// or a consumer surface people use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "superficie")]
    pub surface: Option<String>,
    /// Every source the provider says it consulted for this answer, cited or not (`fuentes`
    /// holds the cited ones). `None`: the collection did not record them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "fuentes_consultadas")]
    pub consulted: Option<Vec<Source>>,
}

impl Answer {
    /// The repetition, 1 when the line does not say.
    pub fn repetition(&self) -> u32 {
        self.repetition.unwrap_or(1)
    }

    /// The surface the answer was seen on, `api` when the line does not say.
    pub fn surface(&self) -> &str {
        self.surface.as_deref().unwrap_or(API_SURFACE)
    }

    /// The value of dimension `id` for this answer: its surface for `superficie`, otherwise
    /// its question's value (`question` is the answer's question).
    pub fn dimension<'a>(&'a self, question: &'a Question, id: &str) -> Option<&'a str> {
        if id == SURFACE_DIMENSION { Some(self.surface()) } else { question.dimension(id) }
    }
}

/// What the collector recorded about one answer (`recoleccion` of a line of `respuestas.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collection {
    /// When the answer arrived, UTC (`AAAA-MM-DDTHH:MM:SSZ`).
    #[serde(rename = "hora")]
    pub time: String,
    /// The provider's model id that was asked.
    #[serde(rename = "modelo_proveedor")]
    pub provider_model: String,
    #[serde(rename = "tokens_entrada")]
    pub input_tokens: u64,
    #[serde(rename = "tokens_salida")]
    pub output_tokens: u64,
    #[serde(rename = "busquedas")]
    pub searches: u64,
    #[serde(rename = "costo_usd")]
    pub cost_usd: f64,
    /// The provider flagged the answer as a refusal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "rechazo")]
    pub refused: bool,
    /// Who labelled the tone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "tono")]
    pub tone: Option<ToneOrigin>,
}

/// Who labelled an answer's tone: a judge model (its id and the version it reported) or people.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToneOrigin {
    /// `juez` or `humano`.
    #[serde(rename = "origen")]
    pub origin: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "modelo")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "archivo")]
    pub file: Option<String>,
    #[serde(rename = "hora")]
    pub time: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub url: String,
    #[serde(rename = "titulo")]
    pub title: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    Pos,
    Neu,
    Neg,
}

/// `hallazgos.toml`: the findings of a study (may hold an empty list).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindingsFile {
    #[serde(default)]
    #[serde(rename = "hallazgos")]
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub id: String,
    /// Kind of finding: liderazgo, brecha, concentracion, fuentes, divergencia, tono, ausencia, ...
    #[serde(rename = "tipo")]
    pub kind: String,
    /// Section of the report it belongs to.
    #[serde(rename = "seccion")]
    pub section: String,
    #[serde(rename = "texto")]
    pub text: String,
    #[serde(rename = "texto_en")]
    pub text_en: String,
    /// The numbers the text claims, each tied to a table cell.
    #[serde(default)]
    #[serde(rename = "respaldo")]
    pub backing: Vec<Backing>,
    /// Answer ids that illustrate the finding.
    #[serde(default)]
    #[serde(rename = "evidencia")]
    pub evidence: Vec<String>,
}

/// A number a finding claims, and the table cell it must equal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backing {
    /// Table id ("A01").
    #[serde(rename = "tabla")]
    pub table: String,
    /// Row label: the value of the table's first column.
    #[serde(rename = "fila")]
    pub row: String,
    /// Column name.
    #[serde(rename = "columna")]
    pub column: String,
    /// The value as the finding states it.
    #[serde(rename = "valor")]
    pub value: f64,
    /// Decimals the value was rounded to; the build accepts a difference up to half a unit there.
    #[serde(rename = "decimales")]
    pub decimals: u32,
    /// A value cited for context only (the total beside a model's figure): it is compared
    /// with nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "contexto")]
    pub context: bool,
    /// The finding does not claim this value differs from the others it is set against (a
    /// tie within the margin of error); `generator check` then warns if the difference holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "empate")]
    pub tie: bool,
}

/// One study after loading: its folder name plus every file, parsed.
#[derive(Debug, Clone)]
pub struct Study {
    pub slug: String,
    pub design: StudyFile,
    pub brands: Vec<Brand>,
    pub questions: Vec<Question>,
    pub answers: Vec<Answer>,
    pub findings: Vec<Finding>,
    /// PDF reports found in `informes/`: (file name, bytes), sorted by name.
    pub reports: Vec<(String, Vec<u8>)>,
    /// File line of each question and answer (1-based), for problems.
    pub question_lines: Vec<usize>,
    pub answer_lines: Vec<usize>,
    /// The previous run (`[corrida_anterior]` and `anterior/`), loaded as a study of its own:
    /// the same slug and brands, the previous models, questions and answers, no tables and
    /// no findings.
    pub previous: Option<Box<Study>>,
}

/// Everything under `content/`, loaded. Studies are sorted by slug.
#[derive(Debug, Clone)]
pub struct Content {
    pub service: ServiceSettings,
    pub metrics: Vec<MetricDefinition>,
    /// `[cambio]` of `metricas.toml`, when present.
    pub change_method: Option<ChangeDefinition>,
    pub studies: Vec<Study>,
}
