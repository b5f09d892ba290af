//! The content model: what a publisher writes under `content/`, as typed structs.
//!
//! Field names follow the files (Spanish), so the structs double as the reference for
//! `content/README.md`. Everything derives `Serialize` too: the synthetic-corpus writer
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
    pub nombre: String,
    /// Service name in English.
    pub nombre_en: String,
    pub editor: String,
    /// The publisher's web site (absolute URL).
    pub web: String,
    pub descripcion: String,
    pub descripcion_en: String,
    /// Absolute URL the gate is reached at, without a trailing slash.
    pub base_url: String,
    /// Contact e-mail shown on the privacy page and in the packages.
    pub contacto: String,
    /// The one setting that decides networks and facilitator: `local`, `testnet` or `mainnet`.
    pub modo: Mode,
    /// Default price of a study, written in US dollars ("0.99"), held in atomic units.
    pub precio_usd: Price,
    /// Currency the price is paid in (USDC).
    pub moneda: String,
    /// How long the signed download links stay valid, in days.
    pub vigencia_enlaces_dias: u32,
    /// EVM address (0x + 40 hex) that receives payments on Base / Base Sepolia.
    pub pagar_a_evm: String,
    /// Optional Solana address (base58 public key) that receives payments on Solana devnet
    /// (testnet mode) or Solana mainnet (mainnet mode). Local mode never offers Solana: the
    /// local facilitator verifies EVM signatures only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagar_a_solana: Option<String>,
    /// Optional URL of the license or terms of use the studies are sold under; published as
    /// the schema.org `license` of every study's `Dataset` markup when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licencia: Option<String>,
    pub privacidad: Privacy,
}

/// Payment mode (defined with the manifest, which carries it to the gate).
pub use contract::Mode;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Privacy {
    pub titulo: String,
    pub titulo_en: String,
    pub texto: String,
    pub texto_en: String,
}

/// `content/metricas.toml`: the metric definitions published at `/metricas` and in every package.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsFile {
    pub metricas: Vec<MetricDefinition>,
    /// How a change between a study's run and its previous run is computed (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cambio: Option<ChangeDefinition>,
}

/// `[cambio]` in `metricas.toml`: the change tables' method, published at `/metricas` and in
/// every package of a study compared with its previous run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeDefinition {
    pub nombre: String,
    pub nombre_en: String,
    pub definicion: String,
    pub definicion_en: String,
    /// Which questions and answers enter each run's value.
    pub base: String,
    pub base_en: String,
    /// The difference and its interval, precisely enough to reproduce every cell.
    pub intervalo: String,
    pub intervalo_en: String,
    pub veredicto: String,
    pub veredicto_en: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricDefinition {
    /// One of the metric ids the engine knows (see [`Metric`]).
    pub id: String,
    pub nombre: String,
    pub nombre_en: String,
    pub definicion: String,
    pub definicion_en: String,
    /// The formula in words.
    pub formula: String,
    pub formula_en: String,
    /// Scale of the published number ("0 a 1", "0 a 10", "0 a 10.000", "posición 1 o más").
    pub escala: String,
    pub escala_en: String,
    /// What a buyer needs to reproduce the number: unit of analysis, numerator, denominator,
    /// weighting, null rules, ties, rounding and interval (each also in English).
    pub unidad: String,
    pub unidad_en: String,
    pub numerador: String,
    pub numerador_en: String,
    pub denominador: String,
    pub denominador_en: String,
    pub ponderacion: String,
    pub ponderacion_en: String,
    pub nulo: String,
    pub nulo_en: String,
    pub empates: String,
    pub empates_en: String,
    pub redondeo: String,
    pub redondeo_en: String,
    pub intervalo: String,
    pub intervalo_en: String,
}

/// `content/estudios/<slug>/estudio.toml`: the design of one study.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyFile {
    pub nombre: String,
    pub nombre_en: String,
    pub descripcion: String,
    pub descripcion_en: String,
    pub industria: String,
    pub subindustria: String,
    /// One or more countries.
    pub pais: Vec<String>,
    /// Languages of the questions (ISO 639-1: "es", "en", "pt").
    pub idioma: Vec<String>,
    /// Publication date (YYYY-MM-DD). Fixes the timestamps inside the ZIP and xlsx.
    pub publicado: String,
    /// Price override in US dollars; the service default applies when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precio_usd: Option<Price>,
    pub version_paquete: String,
    pub tags: Vec<String>,
    pub como_citar: String,
    pub nota: String,
    pub metodologia: Vec<MethodSection>,
    pub dimensiones: Vec<Dimension>,
    pub modelos: Vec<ModelSpec>,
    /// Optional market-share weights per model; models weigh equally when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ponderacion: Option<Weighting>,
    pub analisis: Vec<TableSpec>,
    /// The previous run of the same questions, compared with this one (its answers live in
    /// `anterior/`); absent for a first run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrida_anterior: Option<PreviousRunSpec>,
}

/// `[corrida_anterior]` in `estudio.toml`: what the previous run asked with. Its questions and
/// answers are `anterior/preguntas.jsonl` and `anterior/respuestas.jsonl`; questions pair with
/// this run's by `id`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviousRunSpec {
    /// What that run was ("Corrida de octubre de 2025"), in Spanish and English.
    pub descripcion: String,
    pub descripcion_en: String,
    /// The models that answered then (an id shared with `modelos` is the same model).
    pub modelos: Vec<ModelSpec>,
    /// Market-share weights of the previous run's models; equal when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ponderacion: Option<Weighting>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSection {
    pub titulo: String,
    pub texto: String,
}

/// A way the questions are classified (seccion, producto, idioma, ...).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dimension {
    /// Field name used in `preguntas.jsonl` (lowercase ASCII, digits and `_`).
    pub id: String,
    pub etiqueta: String,
    pub etiqueta_en: String,
    /// Allowed values, in display order. Every question must use one of them.
    pub valores: Vec<String>,
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
    pub nombre: String,
    pub proveedor: String,
    pub nivel: Tier,
}

/// Market-share weights: model id → weight (any positive scale; normalised by the engine).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weighting {
    /// Where the shares come from (published next to every weighted table).
    pub fuente: String,
    pub pesos: BTreeMap<String, f64>,
}

/// One analysis table to compute: a metric (or several) crossed with a grouping.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// "A01", "A02", ... unique in the study.
    pub id: String,
    pub nombre: String,
    pub titulo: String,
    pub titulo_en: String,
    pub tipo: TableKind,
    /// Metrics shown. `marcas` takes one or more; the crossed kinds take exactly one;
    /// `concentracion`, `acuerdo`, `tono` and `fuentes` take none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metricas: Vec<Metric>,
    /// Dimension id, for `marca_por_dimension`, `modelo_por_dimension` and optionally `concentracion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<String>,
    /// Brand id, for `modelo_por_dimension`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marca: Option<String>,
    /// Restricts the table to questions with these dimension values (dimension id → value).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub filtro: BTreeMap<String, String>,
    /// For `fuentes`: how many domains to list (default 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limite: Option<usize>,
}

impl TableKind {
    /// The name used in `estudio.toml`.
    pub fn id(self) -> &'static str {
        match self {
            TableKind::Marcas => "marcas",
            TableKind::MarcaPorModelo => "marca_por_modelo",
            TableKind::MarcaPorDimension => "marca_por_dimension",
            TableKind::ModeloPorDimension => "modelo_por_dimension",
            TableKind::Concentracion => "concentracion",
            TableKind::Acuerdo => "acuerdo",
            TableKind::Estabilidad => "estabilidad",
            TableKind::Tono => "tono",
            TableKind::Fuentes => "fuentes",
        }
    }
}

/// The shapes an analysis table can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableKind {
    /// Rows: brands. Columns: the listed metrics (with their counts).
    Marcas,
    /// Rows: brands. Columns: one metric per model, plus the weighted total.
    MarcaPorModelo,
    /// Rows: brands. Columns: one metric per value of a dimension, plus the total.
    MarcaPorDimension,
    /// Rows: models plus the total. Columns: one brand's metric per value of a dimension.
    ModeloPorDimension,
    /// Rows: models (or dimension values) plus the total. Columns: concentration measures.
    Concentracion,
    /// Rows: pairs of models asked the same questions. Columns: Jaccard, top-1 match, skips.
    Acuerdo,
    /// Rows: models asked a question more than once. Columns: agreement of each model with
    /// itself across the repetitions of a question (Jaccard, top-1 match), plus the total.
    Estabilidad,
    /// Rows: brands with tone labels. Columns: label counts and net tone.
    Tono,
    /// Rows: the most cited source domains. Columns: answers citing them, rate, owner brand.
    Fuentes,
}

/// Brand-level metrics the engine computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Share of answers naming the brand.
    Mencion,
    /// Average order of first appearance, over answers naming the brand.
    Orden,
    /// Share of answers citing a brand domain (or subdomain) among the sources.
    Citacion,
    /// Share of answers citing a brand domain without naming the brand.
    CitacionFantasma,
    /// Protagonismo IA: 10/8/7/6/5 by position, 0 when absent, averaged.
    Protagonismo,
    /// Share of answers with some brand in which this brand comes first.
    Top1,
    /// Share of voice: the brand's mentions over all brand mentions.
    Sov,
    /// Net tone from labels: (pos − neg) / labelled.
    TonoNeto,
}

impl Metric {
    pub const ALL: [Metric; 8] = [
        Metric::Mencion,
        Metric::Orden,
        Metric::Citacion,
        Metric::CitacionFantasma,
        Metric::Protagonismo,
        Metric::Top1,
        Metric::Sov,
        Metric::TonoNeto,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Metric::Mencion => "mencion",
            Metric::Orden => "orden",
            Metric::Citacion => "citacion",
            Metric::CitacionFantasma => "citacion_fantasma",
            Metric::Protagonismo => "protagonismo",
            Metric::Top1 => "top1",
            Metric::Sov => "sov",
            Metric::TonoNeto => "tono_neto",
        }
    }
}

/// `marcas.toml`: the tracked brands and entities of a study.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrandsFile {
    pub marcas: Vec<Brand>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Brand {
    /// Short identifier (lowercase ASCII, digits, `-`), used by tone labels and table specs.
    pub id: String,
    /// Display name; also the row label in every table.
    pub nombre: String,
    /// Other names the answers may use. The display name always counts as an alias.
    #[serde(default)]
    pub alias: Vec<String>,
    /// Phrases that contain an alias but do not refer to the brand ("jugo de naranja").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluir: Vec<String>,
    /// Web domains of the brand (hosts, without scheme); subdomains count too.
    #[serde(default)]
    pub dominios: Vec<String>,
}

/// One line of `preguntas.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub texto: String,
    pub idioma: String,
    /// The tier of the models that answered this question.
    pub modelo: Tier,
    /// One value per declared dimension, as `"dimension_id": "value"`. A dimension named
    /// `idioma` is the question's own `idioma` field and is not repeated here.
    #[serde(flatten)]
    pub dimensiones: BTreeMap<String, String>,
}

/// Dimension id that reads the question's language instead of a field of its own.
pub const LANGUAGE_DIMENSION: &str = "idioma";

impl Question {
    /// The question's value for a dimension (`idioma` is its language).
    pub fn dimension(&self, id: &str) -> Option<&str> {
        if id == LANGUAGE_DIMENSION { Some(&self.idioma) } else { self.dimensiones.get(id).map(String::as_str) }
    }
}

/// One line of `respuestas.jsonl`: a raw answer exactly as the model gave it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Unique in the study ("R0001").
    pub id: String,
    /// Question id.
    pub pregunta: String,
    /// Model id (declared in `estudio.toml`).
    pub modelo: String,
    /// Exact model version the provider reported.
    pub version: String,
    /// Date the answer was collected (YYYY-MM-DD).
    pub fecha: String,
    pub respuesta: String,
    #[serde(default)]
    pub fuentes: Vec<Source>,
    /// Tone labels: brand id → `pos`, `neu` or `neg`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tono: BTreeMap<String, Tone>,
    /// Which asking of the same question to the same model this is (1, 2, …). Answers to one
    /// question are one cluster in the intervals whatever their repetition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeticion: Option<u32>,
    /// What the collector (`recolector`) recorded about the call; the metrics do not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recoleccion: Option<Collection>,
}

impl Answer {
    /// The repetition, 1 when the line does not say.
    pub fn repetition(&self) -> u32 {
        self.repeticion.unwrap_or(1)
    }
}

/// What the collector recorded about one answer (`recoleccion` of a line of `respuestas.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collection {
    /// When the answer arrived, UTC (`AAAA-MM-DDTHH:MM:SSZ`).
    pub hora: String,
    /// The provider's model id that was asked.
    pub modelo_proveedor: String,
    pub tokens_entrada: u64,
    pub tokens_salida: u64,
    pub busquedas: u64,
    pub costo_usd: f64,
    /// The provider flagged the answer as a refusal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rechazo: bool,
    /// Who labelled the tone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tono: Option<ToneOrigin>,
}

/// Who labelled an answer's tone: a judge model (its id and the version it reported) or people.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToneOrigin {
    /// `juez` or `humano`.
    pub origen: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modelo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archivo: Option<String>,
    pub hora: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub url: String,
    pub titulo: String,
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
    pub hallazgos: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub id: String,
    /// Kind of finding: liderazgo, brecha, concentracion, fuentes, divergencia, tono, ausencia, ...
    pub tipo: String,
    /// Section of the report it belongs to.
    pub seccion: String,
    pub texto: String,
    pub texto_en: String,
    /// The numbers the text claims, each tied to a table cell.
    #[serde(default)]
    pub respaldo: Vec<Backing>,
    /// Answer ids that illustrate the finding.
    #[serde(default)]
    pub evidencia: Vec<String>,
}

/// A number a finding claims, and the table cell it must equal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backing {
    /// Table id ("A01").
    pub tabla: String,
    /// Row label: the value of the table's first column.
    pub fila: String,
    /// Column name.
    pub columna: String,
    /// The value as the finding states it.
    pub valor: f64,
    /// Decimals the value was rounded to; the build accepts a difference up to half a unit there.
    pub decimales: u32,
    /// A value cited for context only (the total beside a model's figure): it is compared
    /// with nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contexto: bool,
    /// The finding does not claim this value differs from the others it is set against (a
    /// tie within the margin of error); `generator check` then warns if the difference holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub empate: bool,
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
