//! The paid JSON documents: the full package (every table and every raw answer) and the
//! summary (sheet, design, findings and metrics, without the answers). Both embed the free
//! sheet of [`super::json`], so a buyer reads one shape wherever it comes from.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::metrics::analysis::Table;
use crate::metrics::compare::{self, Comparison};
use crate::metrics::mentions::AnswerBrands;
use crate::metrics::multiplicity::Family;
use crate::model::{Answer, Brand, MetricDefinition, Question, Source, Study, Tone};
use crate::render::json::{ChangesDocument, Sheet, TableIndex, changes_document, sheet};
use crate::render::site::Site;

#[derive(Serialize)]
pub struct Design<'a> {
    #[serde(rename = "dimensiones")]
    pub dimensions: &'a [crate::model::Dimension],
    #[serde(rename = "modelos")]
    pub models: &'a [crate::model::ModelSpec],
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "ponderacion")]
    pub weighting: Option<&'a crate::model::Weighting>,
    #[serde(rename = "marcas")]
    pub brands: &'a [Brand],
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "preguntas")]
    pub questions: Option<&'a [Question]>,
}

fn design(study: &Study, with_questions: bool) -> Design<'_> {
    Design {
        dimensions: &study.design.dimensions,
        models: &study.design.models,
        weighting: study.design.weighting.as_ref(),
        brands: &study.brands,
        questions: with_questions.then_some(study.questions.as_slice()),
    }
}

/// A finding with each backing value beside the computed cell.
#[derive(Serialize)]
pub struct PublishedFinding<'a> {
    pub id: &'a str,
    #[serde(rename = "tipo")]
    pub kind: &'a str,
    #[serde(rename = "seccion")]
    pub section: &'a str,
    #[serde(rename = "texto")]
    pub text: &'a str,
    #[serde(rename = "texto_en")]
    pub text_en: &'a str,
    #[serde(rename = "respaldo")]
    pub backing: Vec<PublishedBacking<'a>>,
    /// Each comparison the finding makes and whether it holds at 95%.
    #[serde(rename = "comparaciones")]
    pub comparisons: Vec<Comparison>,
    /// Each change between runs the finding claims, and whether the cell's verdict bears it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[serde(rename = "cambios")]
    pub changes: Vec<crate::metrics::change::ChangeClaim>,
    #[serde(rename = "evidencia")]
    pub evidence: &'a [String],
}

#[derive(Serialize)]
pub struct PublishedBacking<'a> {
    #[serde(rename = "tabla")]
    pub table: &'a str,
    #[serde(rename = "fila")]
    pub row: &'a str,
    #[serde(rename = "columna")]
    pub column: &'a str,
    #[serde(rename = "valor")]
    pub value: f64,
    #[serde(rename = "decimales")]
    pub decimals: u32,
    #[serde(rename = "valor_calculado")]
    pub computed_value: Option<f64>,
    /// The cell's base and 95% interval, when it is a rate or a mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ic95: Option<(f64, f64)>,
    /// As the finding declares it: cited for context only, or not claimed to differ.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "contexto")]
    pub context: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "empate")]
    pub tie: bool,
}

fn findings<'a>(study: &'a Study, tables: &[Table], changes: &[Table]) -> Vec<PublishedFinding<'a>> {
    let all: Vec<&Table> = tables.iter().chain(changes).collect();
    study
        .findings
        .iter()
        .map(|f| PublishedFinding {
            id: &f.id,
            kind: &f.kind,
            section: &f.section,
            text: &f.text,
            text_en: &f.text_en,
            backing: f
                .backing
                .iter()
                .map(|b| {
                    let table = all.iter().copied().find(|t| t.id == b.table);
                    let (n, ic95) = table.and_then(|t| t.uncertainty(&b.row, &b.column)).unwrap_or((None, None));
                    PublishedBacking {
                        table: &b.table,
                        row: &b.row,
                        column: &b.column,
                        value: b.value,
                        decimals: b.decimals,
                        computed_value: table.and_then(|t| t.cell(&b.row, &b.column)).and_then(|c| c.as_f64()),
                        n,
                        ic95,
                        context: b.context,
                        tie: b.tie,
                    }
                })
                .collect(),
            comparisons: compare::comparisons(study, f, tables),
            changes: crate::metrics::change::claims(f, changes),
            evidence: &f.evidence,
        })
        .collect()
}

/// A raw answer plus what the engine detected in it.
#[derive(Serialize)]
pub struct PublishedAnswer<'a> {
    pub id: &'a str,
    #[serde(rename = "pregunta")]
    pub question: &'a str,
    #[serde(rename = "modelo")]
    pub model: &'a str,
    pub version: &'a str,
    #[serde(rename = "fecha")]
    pub date: &'a str,
    #[serde(rename = "respuesta")]
    pub answer: &'a str,
    /// Where the answer was seen: `api` or a consumer surface (`docs/src/publicar/preguntas-y-respuestas.md`).
    #[serde(rename = "superficie")]
    pub surface: &'a str,
    /// The sources the answer cites.
    #[serde(rename = "fuentes")]
    pub sources: &'a [Source],
    /// Every source the provider says it consulted, cited or not; `null` when the collection
    /// did not record them (never left out, so a dataset loader reads one value per answer).
    #[serde(rename = "fuentes_consultadas")]
    pub consulted: Option<&'a [Source]>,
    /// Brand ids in order of first appearance.
    #[serde(rename = "marcas_nombradas")]
    pub named_brands: Vec<&'a str>,
    /// Brand ids whose domains are among the sources.
    #[serde(rename = "marcas_citadas")]
    pub cited_brands: Vec<&'a str>,
    /// Brand ids whose domains are among the consulted sources; `null` when not recorded.
    #[serde(rename = "marcas_consultadas")]
    pub consulted_brands: Option<Vec<&'a str>>,
    #[serde(rename = "tono")]
    pub tone: &'a BTreeMap<String, Tone>,
    /// The repetition, when the study asked questions more than once (`respuestas.jsonl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "repeticion")]
    pub repetition: Option<u32>,
}

/// `brands[i]` holds what was found in `study.answers[i]` (see [`crate::metrics::answer_brands`]).
fn answers<'a>(study: &'a Study, brands: &[AnswerBrands]) -> Vec<PublishedAnswer<'a>> {
    let id = |b: &usize| study.brands[*b].id.as_str();
    study
        .answers
        .iter()
        .zip(brands)
        .map(|(a, found): (&Answer, &AnswerBrands)| PublishedAnswer {
            id: &a.id,
            question: &a.question,
            model: &a.model,
            version: &a.version,
            date: &a.date,
            answer: &a.answer,
            surface: a.surface(),
            sources: &a.sources,
            consulted: a.consulted.as_deref(),
            named_brands: found.order.iter().map(id).collect(),
            cited_brands: found.cited.iter().map(id).collect(),
            consulted_brands: found.consulted.as_ref().map(|c| c.iter().map(id).collect()),
            tone: &a.tone,
            repetition: a.repetition,
        })
        .collect()
}

/// Format marker of the package JSON, bumped on incompatible changes.
pub const PACKAGE_FORMAT: &str = "estudio-visibilidad-ia/1";

#[derive(Serialize)]
pub struct Package<'a> {
    #[serde(rename = "formato")]
    pub format: &'static str,
    #[serde(rename = "ficha")]
    pub sheet: Sheet,
    #[serde(rename = "diseno")]
    pub design: Design<'a>,
    #[serde(rename = "analisis")]
    pub analyses: &'a [Table],
    /// Change since the previous run (absent for a first run).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "cambios")]
    pub changes: Option<ChangesDocument<'a>>,
    #[serde(rename = "hallazgos")]
    pub findings: Vec<PublishedFinding<'a>>,
    #[serde(rename = "metricas")]
    pub metrics: &'a [MetricDefinition],
    #[serde(rename = "respuestas")]
    pub answers: Vec<PublishedAnswer<'a>>,
}

/// The full package; `brands[i]` holds what was found in `study.answers[i]`.
pub fn package<'a>(
    site: &Site<'a>,
    study: &'a Study,
    tables: &'a [Table],
    changes: &'a [Table],
    family: Option<&Family>,
    brands: &[AnswerBrands],
) -> Package<'a> {
    debug_assert_eq!(study.answers.len(), brands.len());
    Package {
        format: PACKAGE_FORMAT,
        sheet: sheet(site, study, tables, None),
        design: design(study, true),
        analyses: tables,
        changes: changes_document(site, study, changes, family),
        findings: findings(study, tables, changes),
        metrics: &site.content.metrics,
        answers: answers(study, brands),
    }
}

#[derive(Serialize)]
pub struct Summary<'a> {
    #[serde(rename = "formato")]
    pub format: &'static str,
    #[serde(rename = "vista")]
    pub view: &'static str,
    #[serde(rename = "ficha")]
    pub sheet: Sheet,
    #[serde(rename = "diseno")]
    pub design: Design<'a>,
    #[serde(rename = "hallazgos")]
    pub findings: Vec<PublishedFinding<'a>>,
    #[serde(rename = "metricas")]
    pub metrics: &'a [MetricDefinition],
    #[serde(rename = "analisis_indice")]
    pub analyses_index: Vec<TableIndex>,
    /// Change since the previous run, every table in full (absent for a first run).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "cambios")]
    pub changes: Option<ChangesDocument<'a>>,
    /// Filled by the gate: the signed links arrive in the purchase answer's `acceso`.
    #[serde(rename = "descargas")]
    pub downloads: Value,
}

pub fn summary<'a>(
    site: &Site<'a>,
    study: &'a Study,
    tables: &'a [Table],
    changes: &'a [Table],
    family: Option<&Family>,
) -> Summary<'a> {
    let sheet = sheet(site, study, tables, None);
    Summary {
        format: PACKAGE_FORMAT,
        view: "resumen",
        analyses_index: sheet.analyses_index.clone(),
        sheet,
        design: design(study, false),
        changes: changes_document(site, study, changes, family),
        findings: findings(study, tables, changes),
        metrics: &site.content.metrics,
        downloads: serde_json::json!({
            "nota": "Los enlaces firmados al paquete completo (JSON y ZIP) llegan en el campo `acceso` de la respuesta de compra.",
            "note": "Signed links to the full package (JSON and ZIP) arrive in the purchase answer's `acceso` field."
        }),
    }
}
