//! The JSON documents, as serde structs built from the analysed content.
//!
//! JSON goes through serde (never through templates), so escaping and number formats cannot
//! go wrong and the compiler checks every field. Free documents (service index, catalog,
//! metrics, sheets, discovery) carry nothing of the paid content: no analysis number, no
//! finding text, no complete answer. The paid documents (full package, summary) are built in
//! [`super::paid`]; they carry the sheet without `archivos`, since a package cannot contain its
//! own hash.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::metrics::analysis::Table;
use crate::metrics::mentions::BrandMatcher;
use crate::model::{MetricDefinition, Question, Source, Study};
use crate::render::offer::HowToBuy;
use crate::render::site::{RunDates, Site, metrics_used, run_dates};

// ---------------------------------------------------------------------------------------
// Service index (`/`)

#[derive(Serialize)]
pub struct ServiceIndex {
    #[serde(rename = "servicio")]
    pub service: String,
    #[serde(rename = "service")]
    pub service_en: String,
    pub editor: String,
    pub web: String,
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "description")]
    pub description_en: String,
    #[serde(rename = "modo")]
    pub mode: String,
    #[serde(rename = "precio_usd")]
    pub price_usd: f64,
    #[serde(rename = "moneda")]
    pub currency: String,
    #[serde(rename = "estudios_disponibles")]
    pub available_studies: usize,
    #[serde(rename = "estudios")]
    pub studies: Vec<String>,
    pub endpoints: BTreeMap<&'static str, String>,
    #[serde(rename = "como_comprar")]
    pub how_to_buy: HowToBuy,
    #[serde(rename = "contacto")]
    pub contact: String,
    #[serde(rename = "privacidad")]
    pub privacy: String,
}

pub fn service_index(site: &Site<'_>) -> ServiceIndex {
    let s = &site.content.service;
    ServiceIndex {
        service: s.name.clone(),
        service_en: s.name_en.clone(),
        editor: s.editor.clone(),
        web: s.web.clone(),
        description: s.description.clone(),
        description_en: s.description_en.clone(),
        mode: s.mode.as_str().to_owned(),
        // The price every study is sold at; the service's default only when they differ (then
        // como_comprar.precios_usd lists each).
        price_usd: site.common_price().unwrap_or(s.price_usd).usd_number(),
        currency: s.currency.clone(),
        available_studies: site.content.studies.len(),
        studies: site.content.studies.iter().map(|st| st.slug.clone()).collect(),
        endpoints: endpoints(site),
        how_to_buy: site.how_to_buy(None),
        contact: s.contact.clone(),
        privacy: site.url("/privacidad"),
    }
}

/// Every public endpoint as an absolute URL template.
pub fn endpoints(site: &Site<'_>) -> BTreeMap<&'static str, String> {
    BTreeMap::from([
        ("catalogo", site.url("/catalogo")),
        ("ficha_gratis", site.url("/estudio/{slug}/ficha")),
        ("estudio_pago", site.url("/estudio/{slug}?vista=completo|resumen")),
        ("buscar", site.url("/buscar?q={consulta}")),
        ("metricas", site.url("/metricas")),
        ("llms_txt", site.url("/llms.txt")),
        ("openapi", site.url("/openapi.json")),
        ("descubrimiento_x402", site.url("/.well-known/x402")),
        ("descarga", site.url("/descarga/{archivo}?vence={unix}&firma={hmac}")),
        ("mcp", site.url("/mcp")),
        ("mcp_catalogo", site.url("/mcp/catalogo")),
        ("mcp_server_json", site.url(crate::paths::MCP_SERVER_URL)),
        ("croissant", site.url(crate::paths::CROISSANT_CATALOG_URL)),
        ("croissant_estudio", site.url("/estudio/{slug}/croissant.jsonld")),
        ("directorio_mpp", site.url(crate::paths::MPP_DIRECTORY_URL)),
    ])
}

// ---------------------------------------------------------------------------------------
// Catalog (`/catalogo`)

#[derive(Serialize)]
pub struct Catalog {
    #[serde(rename = "servicio")]
    pub service: String,
    #[serde(rename = "modo")]
    pub mode: String,
    #[serde(rename = "moneda")]
    pub currency: String,
    pub total: usize,
    #[serde(rename = "estudios")]
    pub studies: Vec<CatalogEntry>,
    pub mcp: BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
pub struct CatalogEntry {
    pub slug: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "industria")]
    pub industry: String,
    #[serde(rename = "subindustria")]
    pub subindustry: String,
    #[serde(rename = "pais")]
    pub country: Vec<String>,
    #[serde(rename = "idioma")]
    pub language: Vec<String>,
    #[serde(rename = "fecha_corrida")]
    pub run_date: RunDates,
    #[serde(rename = "publicado")]
    pub published: String,
    #[serde(rename = "n_preguntas")]
    pub n_questions: usize,
    #[serde(rename = "n_respuestas")]
    pub n_answers: usize,
    #[serde(rename = "n_modelos")]
    pub n_models: usize,
    #[serde(rename = "n_analisis")]
    pub n_analyses: usize,
    #[serde(rename = "n_hallazgos")]
    pub n_findings: usize,
    /// When the study is compared with a previous run: that run's dates and the questions
    /// both share (filter the catalog on it); `null` for a first run.
    #[serde(rename = "corrida_anterior")]
    pub previous_run: Option<CatalogPreviousRun>,
    pub tags: Vec<String>,
    #[serde(rename = "precio_usd")]
    pub price_usd: f64,
    #[serde(rename = "moneda")]
    pub currency: String,
    #[serde(rename = "ficha")]
    pub sheet: String,
    #[serde(rename = "comprar")]
    pub buy: String,
    #[serde(rename = "comprar_resumen")]
    pub buy_summary: String,
    /// The study's Croissant 1.1 description, for dataset tools.
    pub croissant: String,
}

#[derive(Serialize)]
pub struct CatalogPreviousRun {
    #[serde(rename = "desde")]
    pub since: String,
    #[serde(rename = "hasta")]
    pub until: String,
    #[serde(rename = "preguntas_compartidas")]
    pub shared_questions: usize,
}

pub fn catalog(site: &Site<'_>) -> Catalog {
    let studies = site
        .content
        .studies
        .iter()
        .map(|study| {
            let d = &study.design;
            CatalogEntry {
                slug: study.slug.clone(),
                name: d.name.clone(),
                name_en: d.name_en.clone(),
                description: d.description.clone(),
                industry: d.industry.clone(),
                subindustry: d.subindustry.clone(),
                country: d.country.clone(),
                language: d.language.clone(),
                run_date: run_dates(study),
                published: d.published.clone(),
                n_questions: study.questions.len(),
                n_answers: study.answers.len(),
                n_models: d.models.len(),
                n_analyses: d.analyses.len(),
                n_findings: study.findings.len(),
                previous_run: previous_run_sheet(study).map(|p| CatalogPreviousRun {
                    since: p.run_date.since,
                    until: p.run_date.until,
                    shared_questions: p.shared_questions,
                }),
                tags: d.tags.clone(),
                price_usd: site.price_of(study).usd_number(),
                currency: site.content.service.currency.clone(),
                sheet: site.url(&format!("/estudio/{}/ficha", study.slug)),
                buy: site.url(&format!("/estudio/{}", study.slug)),
                buy_summary: site.url(&format!("/estudio/{}?vista=resumen", study.slug)),
                croissant: site.url(&crate::paths::croissant_url(&study.slug)),
            }
        })
        .collect::<Vec<_>>();
    Catalog {
        service: site.content.service.name.clone(),
        mode: site.content.service.mode.as_str().to_owned(),
        currency: site.content.service.currency.clone(),
        total: studies.len(),
        studies,
        mcp: BTreeMap::from([("completo", site.url("/mcp")), ("solo_catalogo", site.url("/mcp/catalogo"))]),
    }
}

// ---------------------------------------------------------------------------------------
// Metrics (`/metricas`)

#[derive(Serialize)]
pub struct MetricsDocument<'a> {
    #[serde(rename = "servicio")]
    pub service: &'a str,
    #[serde(rename = "ponderacion")]
    pub weighting: &'static str,
    #[serde(rename = "ponderacion_en")]
    pub weighting_en: &'static str,
    #[serde(rename = "redondeo")]
    pub rounding: &'static str,
    #[serde(rename = "redondeo_en")]
    pub rounding_en: &'static str,
    /// How every rate and mean carries its base and 95% interval, and what a comparison in a
    /// finding needs to hold.
    #[serde(rename = "incertidumbre")]
    pub uncertainty: UncertaintyText,
    #[serde(rename = "metricas")]
    pub metrics: &'a [MetricDefinition],
    /// How change since a study's previous run is computed (`[cambio]` of metricas.toml).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "cambio")]
    pub change: Option<&'a crate::model::ChangeDefinition>,
}

/// The uncertainty explanation, in Spanish and English (the sheet's methodology and
/// `/metricas` both carry it).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UncertaintyText {
    #[serde(rename = "titulo")]
    pub title: &'static str,
    #[serde(rename = "texto")]
    pub text: &'static str,
    #[serde(rename = "titulo_en")]
    pub title_en: &'static str,
    #[serde(rename = "texto_en")]
    pub text_en: &'static str,
}

/// See [`UncertaintyText`].
pub const UNCERTAINTY: UncertaintyText = UncertaintyText {
    title: "Incertidumbre: base e intervalo de cada número",
    text: "Las respuestas de un asistente varían de una corrida a otra y algunas celdas se apoyan en pocas decenas de respuestas, así que cada tasa o promedio de las tablas va con su base y un intervalo de confianza al 95 %: la columna x va seguida de x_n (respuestas de su base), x_n_ef (tamaño efectivo, descontando la ponderación y la dependencia entre respuestas) y x_ic95 [inferior, superior]. Las respuestas de distintos modelos a una misma pregunta no son independientes: el intervalo trata cada pregunta como un conglomerado (varianza linealizada robusta por conglomerados); en las tasas es el intervalo de Wilson con el tamaño efectivo, en los promedios el valor ± 1,96 errores estándar, recortado al rango de la métrica. Con menos de dos preguntas en la base no hay intervalo. Un hallazgo que compara dos valores (marca contra marca, modelo contra modelo) dice si la diferencia se sostiene al 95 %: se sostiene cuando los dos intervalos no se superponen, un criterio conservador. Las fórmulas están en /metricas.",
    title_en: "Uncertainty: the base and interval of every number",
    text_en: "An assistant's answers vary from run to run and some cells rest on a few dozen answers, so every rate or mean in the tables comes with its base and a 95% confidence interval: column x is followed by x_n (answers in its base), x_n_ef (effective size, net of the weighting and of the dependence between answers) and x_ic95 [low, high]. Different models' answers to the same question are not independent: the interval treats each question as a cluster (cluster-robust linearised variance); for rates it is Wilson's interval at the effective size, for means the value ± 1.96 standard errors, cut to the metric's range. With fewer than two questions in the base there is no interval. A finding that compares two values (brand against brand, model against model) says whether the difference holds at 95%: it holds when the two intervals do not overlap, a conservative test. The formulas are at /metricas.",
};

pub fn metrics_document<'a>(site: &Site<'a>) -> MetricsDocument<'a> {
    MetricsDocument {
        service: &site.content.service.name,
        weighting: "Cada modelo pesa lo mismo en todo agregado, salvo que el estudio declare cuotas de mercado; entonces cada respuesta de un modelo pesa su cuota dividida por sus respuestas en el alcance, y la tabla lo dice en su nota.",
        weighting_en: "Every model weighs the same in every aggregate unless the study declares market shares; then each answer of a model weighs its share divided by its answers in scope, and the table says so in its note.",
        rounding: "Cada número se calcula exacto, como fracción de conteos enteros ponderados, y se redondea una sola vez a 4 decimales, la mitad lejos de cero.",
        rounding_en: "Every number is computed exactly, as a fraction of weighted integer counts, and rounded once to 4 decimals, half away from zero.",
        uncertainty: UNCERTAINTY,
        metrics: &site.content.metrics,
        change: site.content.change_method.as_ref(),
    }
}

// ---------------------------------------------------------------------------------------
// Study sheet (`/estudio/{slug}/ficha`)

#[derive(Debug, Clone, Serialize)]
pub struct Sheet {
    pub slug: String,
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
    #[serde(rename = "pais")]
    pub country: Vec<String>,
    #[serde(rename = "idioma")]
    pub language: Vec<String>,
    #[serde(rename = "precio_usd")]
    pub price_usd: f64,
    #[serde(rename = "moneda")]
    pub currency: String,
    #[serde(rename = "fecha_corrida")]
    pub run_date: RunDates,
    #[serde(rename = "n_preguntas")]
    pub n_questions: usize,
    #[serde(rename = "n_respuestas")]
    pub n_answers: usize,
    #[serde(rename = "n_analisis")]
    pub n_analyses: usize,
    #[serde(rename = "n_hallazgos")]
    pub n_findings: usize,
    #[serde(rename = "modelos")]
    pub models: Vec<ModelCount>,
    #[serde(rename = "ponderacion")]
    pub weighting: String,
    #[serde(rename = "metricas_usadas")]
    pub metrics_used: Vec<String>,
    #[serde(rename = "contenido")]
    pub content: BTreeMap<&'static str, &'static str>,
    pub tags: Vec<String>,
    #[serde(rename = "version_paquete")]
    pub package_version: String,
    #[serde(rename = "generado")]
    pub generated: String,
    /// Sizes and hashes of the downloads; left out of the copy inside the package.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "archivos")]
    pub files: Option<Files>,
    /// The study's own sections, then the generated ones on surfaces and consulted sources
    /// and on uncertainty (which alone have English texts).
    #[serde(rename = "metodologia")]
    pub methodology: Vec<SheetMethodSection>,
    /// The surfaces the answers come from, with how many answers each and how many of those
    /// record the sources the provider consulted.
    #[serde(rename = "superficies")]
    pub surfaces: Vec<SurfaceCount>,
    #[serde(rename = "universo")]
    pub universe: Vec<Universe>,
    #[serde(rename = "analisis_indice")]
    pub analyses_index: Vec<TableIndex>,
    /// The previous run this study is compared with, and how many questions both share
    /// (no numbers); absent for a first run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "corrida_anterior")]
    pub previous_run: Option<PreviousRunSheet>,
    #[serde(rename = "hallazgos_indice")]
    pub findings_index: FindingsIndex,
    #[serde(rename = "ejemplos")]
    pub examples: Examples,
    #[serde(rename = "como_citar")]
    pub how_to_cite: String,
    #[serde(rename = "nota")]
    pub note: String,
    pub urls: SheetUrls,
    #[serde(rename = "como_comprar")]
    pub how_to_buy: HowToBuy,
}

#[derive(Debug, Clone, Serialize)]
pub struct SurfaceCount {
    /// The surface id (`api`, `google_ai_overview`, …).
    pub id: String,
    /// Its name, when the generator knows the surface (`docs/src/publicar/preguntas-y-respuestas.md`).
    #[serde(rename = "nombre")]
    pub name: Option<&'static str>,
    #[serde(rename = "nombre_en")]
    pub name_en: Option<&'static str>,
    #[serde(rename = "respuestas")]
    pub answers: usize,
    /// Of those, the answers that record their consulted sources (`fuentes_consultadas`).
    #[serde(rename = "con_fuentes_consultadas")]
    pub with_consulted: usize,
}

fn surface_counts(study: &Study) -> Vec<SurfaceCount> {
    crate::surfaces::counts(study)
        .into_iter()
        .map(|(id, answers, with_consulted)| {
            let known = crate::surfaces::known(&id);
            SurfaceCount { name: known.map(|s| s.name), name_en: known.map(|s| s.name_en), id, answers, with_consulted }
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelCount {
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "proveedor")]
    pub provider: String,
    #[serde(rename = "nivel")]
    pub level: String,
    #[serde(rename = "respuestas")]
    pub answers: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Files {
    pub json: FileInfo,
    pub zip: ZipInfo,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileInfo {
    #[serde(rename = "nombre")]
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ZipInfo {
    #[serde(rename = "nombre")]
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
    #[serde(rename = "contiene")]
    pub contains: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Universe {
    pub dimension: String,
    #[serde(rename = "etiqueta")]
    pub label: String,
    #[serde(rename = "etiqueta_en")]
    pub label_en: String,
    #[serde(rename = "n_valores")]
    pub n_values: usize,
    #[serde(rename = "valores")]
    pub values: Vec<ValueCount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ValueCount {
    #[serde(rename = "valor")]
    pub value: String,
    #[serde(rename = "n_preguntas")]
    pub n_questions: usize,
}

/// One section of a sheet's methodology.
#[derive(Debug, Clone, Serialize)]
pub struct SheetMethodSection {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "texto")]
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "titulo_en")]
    pub title_en: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "texto_en")]
    pub text_en: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableIndex {
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "titulo_en")]
    pub title_en: String,
    #[serde(rename = "columnas")]
    pub columns: Vec<String>,
    /// The columns without the companions of rates and means (`_n`, `_n_ef`, `_ic95`).
    #[serde(rename = "columnas_valor")]
    pub value_columns: Vec<String>,
    #[serde(rename = "filas")]
    pub rows: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FindingsIndex {
    pub total: usize,
    #[serde(rename = "por_tipo")]
    pub per_kind: BTreeMap<String, usize>,
    #[serde(rename = "secciones")]
    pub sections: Vec<SectionCount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SectionCount {
    #[serde(rename = "seccion")]
    pub section: String,
    #[serde(rename = "hallazgos")]
    pub findings: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Examples {
    #[serde(rename = "preguntas")]
    pub questions: Vec<Question>,
    #[serde(rename = "respuesta")]
    pub answer: Option<SampleAnswer>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SampleAnswer {
    #[serde(rename = "pregunta")]
    pub question: String,
    #[serde(rename = "texto_pregunta")]
    pub question_text: String,
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "fecha")]
    pub date: String,
    #[serde(rename = "respuesta")]
    pub answer: String,
    #[serde(rename = "fuentes")]
    pub sources: Vec<Source>,
    #[serde(rename = "nota")]
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SheetUrls {
    #[serde(rename = "ficha")]
    pub sheet: String,
    #[serde(rename = "comprar")]
    pub buy: String,
    #[serde(rename = "comprar_resumen")]
    pub buy_summary: String,
    #[serde(rename = "catalogo")]
    pub catalog: String,
    /// The study's Croissant 1.1 description, for dataset tools.
    pub croissant: String,
}

/// What each part of the package holds.
fn package_contents(has_findings: bool, has_previous: bool) -> BTreeMap<&'static str, &'static str> {
    let mut contents = BTreeMap::from([
        ("ficha", "Esta ficha, sin tamaños ni hashes de descarga."),
        (
            "diseno",
            "Dimensiones, modelos, ponderación, marcas seguidas con alias y dominios, y todas las preguntas con sus etiquetas.",
        ),
        ("analisis", "Todas las tablas de análisis (A01, A02, ...) con sus números calculados desde las respuestas."),
        ("metricas", "Las definiciones y fórmulas de cada métrica."),
        (
            "respuestas",
            "Cada respuesta original: modelo, superficie, versión, fecha, texto completo, fuentes citadas y consultadas (nulas si no se registraron), marcas nombradas, citadas y consultadas, y etiquetas de tono.",
        ),
    ]);
    if has_previous {
        contents.insert(
            "cambios",
            "Cambio desde la corrida anterior: por marca y métrica, el valor en cada corrida, la diferencia, su intervalo al 95 % y el veredicto (creció, cayó o sin cambio más allá del ruido), en total, por modelo y por nivel.",
        );
    }
    if has_findings {
        contents.insert(
            "hallazgos",
            "Los hallazgos, cada número con la celda de tabla que lo respalda y respuestas de evidencia.",
        );
    }
    contents
}

fn universe(study: &Study) -> Vec<Universe> {
    study
        .design
        .dimensions
        .iter()
        .map(|d| Universe {
            dimension: d.id.clone(),
            label: d.label.clone(),
            label_en: d.label_en.clone(),
            n_values: d.values.len(),
            values: d
                .values
                .iter()
                .map(|v| ValueCount { value: v.clone(), n_questions: questions_with(study, &d.id, v) })
                .collect(),
        })
        .collect()
}

/// Questions with value `value` of dimension `dimension`; for `superficie`, an answer-level
/// dimension, the questions answered at least once on that surface.
fn questions_with(study: &Study, dimension: &str, value: &str) -> usize {
    if dimension == crate::model::SURFACE_DIMENSION {
        let asked: std::collections::BTreeSet<&str> =
            study.answers.iter().filter(|a| a.surface() == value).map(|a| a.question.as_str()).collect();
        return asked.len();
    }
    study.questions.iter().filter(|q| q.dimension(dimension) == Some(value)).count()
}

fn findings_index(study: &Study) -> FindingsIndex {
    let mut per_kind = BTreeMap::new();
    let mut sections: Vec<SectionCount> = Vec::new();
    for f in &study.findings {
        *per_kind.entry(f.kind.clone()).or_default() += 1;
        match sections.iter_mut().find(|s| s.section == f.section) {
            Some(s) => s.findings += 1,
            None => sections.push(SectionCount { section: f.section.clone(), findings: 1 }),
        }
    }
    FindingsIndex { total: study.findings.len(), per_kind, sections }
}

/// Up to five sample questions, spread over the values of the first dimension.
fn sample_questions(study: &Study) -> Vec<Question> {
    let first = study.design.dimensions.first();
    let mut picked: Vec<Question> = Vec::new();
    if let Some(d) = first {
        for value in &d.values {
            if let Some(q) = study.questions.iter().find(|q| q.dimension(&d.id) == Some(value.as_str())) {
                picked.push(q.clone());
            }
            if picked.len() == 5 {
                break;
            }
        }
    }
    for q in &study.questions {
        if picked.len() >= 5 {
            break;
        }
        if !picked.iter().any(|p| p.id == q.id) {
            picked.push(q.clone());
        }
    }
    picked
}

/// Characters of the sample answer shown for free.
const SAMPLE_CHARS: usize = 320;

/// One answer, trimmed, as a free sample: the first (by position) that names a brand and is
/// long enough that trimming hides most of it.
fn sample_answer(study: &Study) -> Option<SampleAnswer> {
    let matcher = BrandMatcher::new(&study.brands);
    let answer = study
        .answers
        .iter()
        .find(|a| a.answer.chars().count() > 2 * SAMPLE_CHARS && !matcher.brands_in_text(&a.answer).is_empty())
        .or_else(|| study.answers.first())?;
    let question = study.questions.iter().find(|q| q.id == answer.question);
    Some(SampleAnswer {
        question: answer.question.clone(),
        question_text: question.map(|q| q.text.clone()).unwrap_or_default(),
        model: answer.model.clone(),
        date: answer.date.clone(),
        answer: trim_text(&answer.answer, SAMPLE_CHARS.min(answer.answer.chars().count() / 2)),
        sources: answer.sources.clone(),
        note: format!(
            "Muestra recortada de 1 de {} respuestas; el paquete trae todas completas. / Trimmed sample of 1 of {} answers; the package has them all in full.",
            study.answers.len(),
            study.answers.len()
        ),
    })
}

/// The generated methodology section on the study's surfaces and consulted sources.
fn surfaces_method_section(study: &Study) -> SheetMethodSection {
    let text = crate::surfaces::methodology(study);
    SheetMethodSection {
        title: text.title.to_owned(),
        text: text.paragraphs.join("\n"),
        title_en: Some(text.title_en.to_owned()),
        text_en: Some(text.paragraphs_en.join("\n")),
    }
}

/// Cuts `text` at a word boundary before `max` characters and adds an ellipsis.
pub fn trim_text(text: &str, max: usize) -> String {
    let cut: String = text.chars().take(max).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{} […]", cut.trim_end())
}

/// The study sheet; `files` is `None` for the copy inside the package.
pub fn sheet(site: &Site<'_>, study: &Study, tables: &[Table], files: Option<Files>) -> Sheet {
    let d = &study.design;
    let models = d
        .models
        .iter()
        .map(|m| ModelCount {
            model: m.id.clone(),
            name: m.name.clone(),
            provider: m.provider.clone(),
            level: m.level.as_str().to_owned(),
            answers: study.answers.iter().filter(|a| a.model == m.id).count(),
        })
        .collect();
    let weighting = match &d.weighting {
        Some(w) => format!("Modelos ponderados por cuota de mercado (fuente: {}).", w.source),
        None => "Todos los modelos pesan lo mismo.".to_owned(),
    };
    Sheet {
        slug: study.slug.clone(),
        name: d.name.clone(),
        name_en: d.name_en.clone(),
        description: d.description.clone(),
        description_en: d.description_en.clone(),
        industry: d.industry.clone(),
        subindustry: d.subindustry.clone(),
        country: d.country.clone(),
        language: d.language.clone(),
        price_usd: site.price_of(study).usd_number(),
        currency: site.content.service.currency.clone(),
        run_date: run_dates(study),
        n_questions: study.questions.len(),
        n_answers: study.answers.len(),
        n_analyses: tables.len(),
        n_findings: study.findings.len(),
        models,
        weighting,
        metrics_used: metrics_used(study),
        content: package_contents(!study.findings.is_empty(), study.previous.is_some()),
        tags: d.tags.clone(),
        package_version: d.package_version.clone(),
        generated: d.published.clone(),
        files,
        methodology: d
            .methodology
            .iter()
            .map(|m| SheetMethodSection { title: m.title.clone(), text: m.text.clone(), title_en: None, text_en: None })
            .chain(std::iter::once(surfaces_method_section(study)))
            .chain(std::iter::once(SheetMethodSection {
                title: UNCERTAINTY.title.to_owned(),
                text: UNCERTAINTY.text.to_owned(),
                title_en: Some(UNCERTAINTY.title_en.to_owned()),
                text_en: Some(UNCERTAINTY.text_en.to_owned()),
            }))
            .collect(),
        surfaces: surface_counts(study),
        universe: universe(study),
        analyses_index: tables
            .iter()
            .map(|t| TableIndex {
                id: t.id.clone(),
                name: t.name.clone(),
                title: t.title.clone(),
                title_en: t.title_en.clone(),
                columns: t.columns.clone(),
                value_columns: t.value_columns().map(str::to_owned).collect(),
                rows: t.rows.len(),
            })
            .collect(),
        previous_run: previous_run_sheet(study),
        findings_index: findings_index(study),
        examples: Examples { questions: sample_questions(study), answer: sample_answer(study) },
        how_to_cite: d.how_to_cite.clone(),
        note: d.note.clone(),
        urls: SheetUrls {
            sheet: site.url(&format!("/estudio/{}/ficha", study.slug)),
            buy: site.url(&format!("/estudio/{}", study.slug)),
            buy_summary: site.url(&format!("/estudio/{}?vista=resumen", study.slug)),
            catalog: site.url("/catalogo"),
            croissant: site.url(&crate::paths::croissant_url(&study.slug)),
        },
        how_to_buy: site.how_to_buy(Some(study)),
    }
}

/// What the sheet says of the previous run: which one, and the questions both runs share.
#[derive(Debug, Clone, Serialize)]
pub struct PreviousRunSheet {
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "descripcion_en")]
    pub description_en: String,
    #[serde(rename = "fecha_corrida")]
    pub run_date: RunDates,
    /// Models of the previous run (ids).
    #[serde(rename = "modelos")]
    pub models: Vec<String>,
    #[serde(rename = "n_respuestas")]
    pub n_answers: usize,
    /// Questions with the same id in both runs: the base of every change table.
    #[serde(rename = "preguntas_compartidas")]
    pub shared_questions: usize,
    /// Questions of this run the previous one did not ask, and the other way round.
    #[serde(rename = "preguntas_agregadas")]
    pub added_questions: usize,
    #[serde(rename = "preguntas_retiradas")]
    pub withdrawn_questions: usize,
    /// The change tables in the package (ids, titles).
    #[serde(rename = "tablas_cambio")]
    pub change_tables: Vec<TableTitle>,
    #[serde(rename = "metodo")]
    pub method: &'static str,
    #[serde(rename = "metodo_en")]
    pub method_en: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableTitle {
    pub id: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "titulo_en")]
    pub title_en: String,
}

/// How a change cell is computed, in one paragraph (the full text is in `metricas.toml`).
pub const CHANGE_METHOD: (&str, &str) = (
    "Cada tabla de cambio compara, marca por marca, mención, orden, citación, Protagonismo IA, Top1, participación de voz y tono neto entre las dos corridas, sobre las preguntas que comparten (mismo id): el valor en cada corrida (calculado como en las tablas de análisis, con los modelos y pesos de esa corrida), la diferencia (actual − anterior, de los valores publicados), su intervalo al 95 % pareado por pregunta (MOVER de Zou y Donner con la correlación entre corridas de los residuos por pregunta), su valor p y un veredicto: creció, cayó o sin cambio más allá del ruido, con control de multiplicidad sobre todas las celdas de cambio del estudio (Benjamini–Hochberg, tasa de falsos descubrimientos del 5 %, con el intervalo ajustado que sigue cada veredicto).",
    "Each change table compares, brand by brand, mention, order, citation, AI Prominence, Top-1, share of voice and net tone between the two runs, over the questions they share (same id): the value in each run (computed as in the analysis tables, with that run's models and weights), the difference (current − previous, of the published values), its 95% interval paired by question (Zou and Donner's MOVER with the between-run correlation of the per-question residuals), its p-value and a verdict: grew (creció), fell (cayó) or no change beyond the noise (sin cambio más allá del ruido), controlled for multiplicity over all the study's change cells (Benjamini–Hochberg, 5% false discovery rate, with the adjusted interval each verdict follows).",
);

fn previous_run_sheet(study: &Study) -> Option<PreviousRunSheet> {
    let spec = study.design.previous_run.as_ref()?;
    let previous = study.previous.as_deref()?;
    let counts = crate::metrics::change::question_counts(study)?;
    Some(PreviousRunSheet {
        description: spec.description.clone(),
        description_en: spec.description_en.clone(),
        run_date: run_dates(previous),
        models: spec.models.iter().map(|m| m.id.clone()).collect(),
        n_answers: previous.answers.len(),
        shared_questions: counts.shared,
        added_questions: counts.added,
        withdrawn_questions: counts.withdrawn,
        change_tables: crate::metrics::change::table_ids(study)
            .into_iter()
            .map(|(id, scope)| {
                let (title, title_en) = crate::metrics::change::titles(study, &scope);
                TableTitle { id, title, title_en }
            })
            .collect(),
        method: CHANGE_METHOD.0,
        method_en: CHANGE_METHOD.1,
    })
}

/// The change tables as the package and the summary carry them.
#[derive(Serialize)]
pub struct ChangesDocument<'a> {
    #[serde(rename = "corrida_anterior")]
    pub previous_run: PreviousRunSheet,
    /// The family of the study's change tests and the outcome of its multiplicity control
    /// (`metrics::multiplicity`).
    #[serde(rename = "multiplicidad")]
    pub multiplicity: Option<Multiplicity>,
    /// The method, as `metricas.toml` states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "metodo")]
    pub method: Option<&'a crate::model::ChangeDefinition>,
    #[serde(rename = "tablas")]
    pub tables: &'a [Table],
}

/// The multiplicity control of a study's change verdicts, as the package states it.
#[derive(Debug, Clone, Serialize)]
pub struct Multiplicity {
    #[serde(rename = "metodo")]
    pub method: &'static str,
    #[serde(rename = "metodo_en")]
    pub method_en: &'static str,
    /// The false discovery rate controlled.
    pub fdr: f64,
    #[serde(flatten)]
    pub family: crate::metrics::multiplicity::Family,
}

pub fn changes_document<'a>(
    site: &Site<'a>,
    study: &Study,
    changes: &'a [Table],
    family: Option<&crate::metrics::multiplicity::Family>,
) -> Option<ChangesDocument<'a>> {
    let previous_run = previous_run_sheet(study)?;
    let multiplicity = family.map(|f| Multiplicity {
        method: MULTIPLICITY_METHOD.0,
        method_en: MULTIPLICITY_METHOD.1,
        fdr: crate::metrics::multiplicity::FDR,
        family: *f,
    });
    Some(ChangesDocument { previous_run, multiplicity, method: site.content.change_method.as_ref(), tables: changes })
}

/// How the change verdicts of a study are controlled for multiplicity, in one paragraph (the
/// full text is `[cambio]` of `metricas.toml`).
pub const MULTIPLICITY_METHOD: (&str, &str) = (
    "Todas las celdas de cambio del estudio con al menos 10 preguntas en su base (cada marca, métrica y tabla de cambio) forman una familia de pruebas; las de menos no se prueban y quedan sin veredicto. Cada una tiene su valor p, leído de su intervalo al 95 % (el lado que mira al cero da el error estándar) con la t de Student de G − 1 grados, G sus preguntas. El procedimiento de Benjamini–Hochberg controla en el 5 % la tasa de falsos descubrimientos de la familia: con los m valores p ordenados, R es el mayor k con p(k) ≤ k·0,05/m, y solo las celdas con p ≤ R·0,05/m dicen «creció» o «cayó». Cada celda publica además su intervalo ajustado al nivel 1 − max(R, 1)·0,05/m (Benjamini–Yekutieli), que excluye el 0 justo en esas celdas.",
    "Every change cell of the study with at least 10 questions in its base (each brand, metric and change table) is one test of a family; those with fewer are not tested and get no verdict. Each has its p-value, read off its 95% interval (the side towards zero gives the standard error) with Student's t on G − 1 degrees of freedom, G its questions. The Benjamini–Hochberg procedure controls the family's false discovery rate at 5%: with the m p-values sorted, R is the largest k with p(k) ≤ k·0.05/m, and only the cells with p ≤ R·0.05/m say «creció» (grew) or «cayó» (fell). Each cell also publishes its interval adjusted to level 1 − max(R, 1)·0.05/m (Benjamini–Yekutieli), which excludes 0 exactly in those cells.",
);
