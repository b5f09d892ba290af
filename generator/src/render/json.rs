//! The JSON documents, as serde structs built from the analysed content.
//!
//! JSON goes through serde (never through templates), so escaping and number formats cannot
//! go wrong and the compiler checks every field. Free documents (service index, catalog,
//! metrics, sheets, discovery) carry nothing of the paid content: no analysis number, no
//! finding text, no complete answer. Paid documents (full package, summary) carry the sheet
//! without `archivos`, since a package cannot contain its own hash.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::metrics::analysis::Table;
use crate::metrics::compare::{self, Comparison};
use crate::metrics::mentions::{AnswerBrands, BrandMatcher};
use crate::model::{Answer, Brand, MetricDefinition, Question, Source, Study, Tone};
use crate::render::offer::HowToBuy;
use crate::render::site::{RunDates, Site, metrics_used, run_dates};

// ---------------------------------------------------------------------------------------
// Service index (`/`)

#[derive(Serialize)]
pub struct ServiceIndex {
    pub servicio: String,
    pub service: String,
    pub editor: String,
    pub web: String,
    pub descripcion: String,
    pub description: String,
    pub modo: String,
    pub precio_usd: f64,
    pub moneda: String,
    pub estudios_disponibles: usize,
    pub estudios: Vec<String>,
    pub endpoints: BTreeMap<&'static str, String>,
    pub como_comprar: HowToBuy,
    pub contacto: String,
    pub privacidad: String,
}

pub fn service_index(site: &Site<'_>) -> ServiceIndex {
    let s = &site.content.service;
    ServiceIndex {
        servicio: s.nombre.clone(),
        service: s.nombre_en.clone(),
        editor: s.editor.clone(),
        web: s.web.clone(),
        descripcion: s.descripcion.clone(),
        description: s.descripcion_en.clone(),
        modo: s.modo.as_str().to_owned(),
        // The price every study is sold at; the service's default only when they differ (then
        // como_comprar.precios_usd lists each).
        precio_usd: site.common_price().unwrap_or(s.precio_usd).usd_number(),
        moneda: s.moneda.clone(),
        estudios_disponibles: site.content.studies.len(),
        estudios: site.content.studies.iter().map(|st| st.slug.clone()).collect(),
        endpoints: endpoints(site),
        como_comprar: site.how_to_buy(None),
        contacto: s.contacto.clone(),
        privacidad: site.url("/privacidad"),
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
    ])
}

// ---------------------------------------------------------------------------------------
// Catalog (`/catalogo`)

#[derive(Serialize)]
pub struct Catalog {
    pub servicio: String,
    pub modo: String,
    pub moneda: String,
    pub total: usize,
    pub estudios: Vec<CatalogEntry>,
    pub mcp: BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
pub struct CatalogEntry {
    pub slug: String,
    pub nombre: String,
    pub nombre_en: String,
    pub descripcion: String,
    pub industria: String,
    pub subindustria: String,
    pub pais: Vec<String>,
    pub idioma: Vec<String>,
    pub fecha_corrida: RunDates,
    pub publicado: String,
    pub n_preguntas: usize,
    pub n_respuestas: usize,
    pub n_modelos: usize,
    pub n_analisis: usize,
    pub n_hallazgos: usize,
    /// When the study is compared with a previous run: that run's dates and the questions
    /// both share (filter the catalog on it); `null` for a first run.
    pub corrida_anterior: Option<CatalogPreviousRun>,
    pub tags: Vec<String>,
    pub precio_usd: f64,
    pub moneda: String,
    pub ficha: String,
    pub comprar: String,
    pub comprar_resumen: String,
}

#[derive(Serialize)]
pub struct CatalogPreviousRun {
    pub desde: String,
    pub hasta: String,
    pub preguntas_compartidas: usize,
}

pub fn catalog(site: &Site<'_>) -> Catalog {
    let estudios = site
        .content
        .studies
        .iter()
        .map(|study| {
            let d = &study.design;
            CatalogEntry {
                slug: study.slug.clone(),
                nombre: d.nombre.clone(),
                nombre_en: d.nombre_en.clone(),
                descripcion: d.descripcion.clone(),
                industria: d.industria.clone(),
                subindustria: d.subindustria.clone(),
                pais: d.pais.clone(),
                idioma: d.idioma.clone(),
                fecha_corrida: run_dates(study),
                publicado: d.publicado.clone(),
                n_preguntas: study.questions.len(),
                n_respuestas: study.answers.len(),
                n_modelos: d.modelos.len(),
                n_analisis: d.analisis.len(),
                n_hallazgos: study.findings.len(),
                corrida_anterior: previous_run_sheet(study).map(|p| CatalogPreviousRun {
                    desde: p.fecha_corrida.desde,
                    hasta: p.fecha_corrida.hasta,
                    preguntas_compartidas: p.preguntas_compartidas,
                }),
                tags: d.tags.clone(),
                precio_usd: site.price_of(study).usd_number(),
                moneda: site.content.service.moneda.clone(),
                ficha: site.url(&format!("/estudio/{}/ficha", study.slug)),
                comprar: site.url(&format!("/estudio/{}", study.slug)),
                comprar_resumen: site.url(&format!("/estudio/{}?vista=resumen", study.slug)),
            }
        })
        .collect::<Vec<_>>();
    Catalog {
        servicio: site.content.service.nombre.clone(),
        modo: site.content.service.modo.as_str().to_owned(),
        moneda: site.content.service.moneda.clone(),
        total: estudios.len(),
        estudios,
        mcp: BTreeMap::from([("completo", site.url("/mcp")), ("solo_catalogo", site.url("/mcp/catalogo"))]),
    }
}

// ---------------------------------------------------------------------------------------
// Metrics (`/metricas`)

#[derive(Serialize)]
pub struct MetricsDocument<'a> {
    pub servicio: &'a str,
    pub ponderacion: &'static str,
    pub ponderacion_en: &'static str,
    pub redondeo: &'static str,
    pub redondeo_en: &'static str,
    /// How every rate and mean carries its base and 95% interval, and what a comparison in a
    /// finding needs to hold.
    pub incertidumbre: UncertaintyText,
    pub metricas: &'a [MetricDefinition],
    /// How change since a study's previous run is computed (`[cambio]` of metricas.toml).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cambio: Option<&'a crate::model::ChangeDefinition>,
}

/// The uncertainty explanation, in Spanish and English (the sheet's methodology and
/// `/metricas` both carry it).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UncertaintyText {
    pub titulo: &'static str,
    pub texto: &'static str,
    pub titulo_en: &'static str,
    pub texto_en: &'static str,
}

/// See [`UncertaintyText`].
pub const UNCERTAINTY: UncertaintyText = UncertaintyText {
    titulo: "Incertidumbre: base e intervalo de cada número",
    texto: "Las respuestas de un asistente varían de una corrida a otra y algunas celdas se apoyan en pocas decenas de respuestas, así que cada tasa o promedio de las tablas va con su base y un intervalo de confianza al 95 %: la columna x va seguida de x_n (respuestas de su base), x_n_ef (tamaño efectivo, descontando la ponderación y la dependencia entre respuestas) y x_ic95 [inferior, superior]. Las respuestas de distintos modelos a una misma pregunta no son independientes: el intervalo trata cada pregunta como un conglomerado (varianza linealizada robusta por conglomerados); en las tasas es el intervalo de Wilson con el tamaño efectivo, en los promedios el valor ± 1,96 errores estándar, recortado al rango de la métrica. Con menos de dos preguntas en la base no hay intervalo. Un hallazgo que compara dos valores (marca contra marca, modelo contra modelo) dice si la diferencia se sostiene al 95 %: se sostiene cuando los dos intervalos no se superponen, un criterio conservador. Las fórmulas están en /metricas.",
    titulo_en: "Uncertainty: the base and interval of every number",
    texto_en: "An assistant's answers vary from run to run and some cells rest on a few dozen answers, so every rate or mean in the tables comes with its base and a 95% confidence interval: column x is followed by x_n (answers in its base), x_n_ef (effective size, net of the weighting and of the dependence between answers) and x_ic95 [low, high]. Different models' answers to the same question are not independent: the interval treats each question as a cluster (cluster-robust linearised variance); for rates it is Wilson's interval at the effective size, for means the value ± 1.96 standard errors, cut to the metric's range. With fewer than two questions in the base there is no interval. A finding that compares two values (brand against brand, model against model) says whether the difference holds at 95%: it holds when the two intervals do not overlap, a conservative test. The formulas are at /metricas.",
};

pub fn metrics_document<'a>(site: &Site<'a>) -> MetricsDocument<'a> {
    MetricsDocument {
        servicio: &site.content.service.nombre,
        ponderacion: "Cada modelo pesa lo mismo en todo agregado, salvo que el estudio declare cuotas de mercado; entonces cada respuesta de un modelo pesa su cuota dividida por sus respuestas en el alcance, y la tabla lo dice en su nota.",
        ponderacion_en: "Every model weighs the same in every aggregate unless the study declares market shares; then each answer of a model weighs its share divided by its answers in scope, and the table says so in its note.",
        redondeo: "Cada número se calcula exacto, como fracción de conteos enteros ponderados, y se redondea una sola vez a 4 decimales, la mitad lejos de cero.",
        redondeo_en: "Every number is computed exactly, as a fraction of weighted integer counts, and rounded once to 4 decimals, half away from zero.",
        incertidumbre: UNCERTAINTY,
        metricas: &site.content.metrics,
        cambio: site.content.change_method.as_ref(),
    }
}

// ---------------------------------------------------------------------------------------
// Study sheet (`/estudio/{slug}/ficha`)

#[derive(Debug, Clone, Serialize)]
pub struct Sheet {
    pub slug: String,
    pub nombre: String,
    pub nombre_en: String,
    pub descripcion: String,
    pub descripcion_en: String,
    pub industria: String,
    pub subindustria: String,
    pub pais: Vec<String>,
    pub idioma: Vec<String>,
    pub precio_usd: f64,
    pub moneda: String,
    pub fecha_corrida: RunDates,
    pub n_preguntas: usize,
    pub n_respuestas: usize,
    pub n_analisis: usize,
    pub n_hallazgos: usize,
    pub modelos: Vec<ModelCount>,
    pub ponderacion: String,
    pub metricas_usadas: Vec<String>,
    pub contenido: BTreeMap<&'static str, &'static str>,
    pub tags: Vec<String>,
    pub version_paquete: String,
    pub generado: String,
    /// Sizes and hashes of the downloads; left out of the copy inside the package.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archivos: Option<Files>,
    /// The study's own sections, then the generated one on uncertainty (which alone has
    /// English texts).
    pub metodologia: Vec<SheetMethodSection>,
    pub universo: Vec<Universe>,
    pub analisis_indice: Vec<TableIndex>,
    /// The previous run this study is compared with, and how many questions both share
    /// (no numbers); absent for a first run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrida_anterior: Option<PreviousRunSheet>,
    pub hallazgos_indice: FindingsIndex,
    pub ejemplos: Examples,
    pub como_citar: String,
    pub nota: String,
    pub urls: SheetUrls,
    pub como_comprar: HowToBuy,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelCount {
    pub modelo: String,
    pub nombre: String,
    pub proveedor: String,
    pub nivel: String,
    pub respuestas: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Files {
    pub json: FileInfo,
    pub zip: ZipInfo,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileInfo {
    pub nombre: String,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ZipInfo {
    pub nombre: String,
    pub bytes: u64,
    pub sha256: String,
    pub contiene: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Universe {
    pub dimension: String,
    pub etiqueta: String,
    pub etiqueta_en: String,
    pub n_valores: usize,
    pub valores: Vec<ValueCount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ValueCount {
    pub valor: String,
    pub n_preguntas: usize,
}

/// One section of a sheet's methodology.
#[derive(Debug, Clone, Serialize)]
pub struct SheetMethodSection {
    pub titulo: String,
    pub texto: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub titulo_en: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texto_en: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableIndex {
    pub id: String,
    pub nombre: String,
    pub titulo: String,
    pub titulo_en: String,
    pub columnas: Vec<String>,
    /// The columns without the companions of rates and means (`_n`, `_n_ef`, `_ic95`).
    pub columnas_valor: Vec<String>,
    pub filas: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FindingsIndex {
    pub total: usize,
    pub por_tipo: BTreeMap<String, usize>,
    pub secciones: Vec<SectionCount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SectionCount {
    pub seccion: String,
    pub hallazgos: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Examples {
    pub preguntas: Vec<Question>,
    pub respuesta: Option<SampleAnswer>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SampleAnswer {
    pub pregunta: String,
    pub texto_pregunta: String,
    pub modelo: String,
    pub fecha: String,
    pub respuesta: String,
    pub fuentes: Vec<Source>,
    pub nota: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SheetUrls {
    pub ficha: String,
    pub comprar: String,
    pub comprar_resumen: String,
    pub catalogo: String,
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
            "Cada respuesta original: modelo, versión, fecha, texto completo, fuentes citadas, marcas detectadas y etiquetas de tono.",
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
        .dimensiones
        .iter()
        .map(|d| Universe {
            dimension: d.id.clone(),
            etiqueta: d.etiqueta.clone(),
            etiqueta_en: d.etiqueta_en.clone(),
            n_valores: d.valores.len(),
            valores: d
                .valores
                .iter()
                .map(|v| ValueCount {
                    valor: v.clone(),
                    n_preguntas: study.questions.iter().filter(|q| q.dimension(&d.id) == Some(v.as_str())).count(),
                })
                .collect(),
        })
        .collect()
}

fn findings_index(study: &Study) -> FindingsIndex {
    let mut por_tipo = BTreeMap::new();
    let mut secciones: Vec<SectionCount> = Vec::new();
    for f in &study.findings {
        *por_tipo.entry(f.tipo.clone()).or_default() += 1;
        match secciones.iter_mut().find(|s| s.seccion == f.seccion) {
            Some(s) => s.hallazgos += 1,
            None => secciones.push(SectionCount { seccion: f.seccion.clone(), hallazgos: 1 }),
        }
    }
    FindingsIndex { total: study.findings.len(), por_tipo, secciones }
}

/// Up to five sample questions, spread over the values of the first dimension.
fn sample_questions(study: &Study) -> Vec<Question> {
    let first = study.design.dimensiones.first();
    let mut picked: Vec<Question> = Vec::new();
    if let Some(d) = first {
        for value in &d.valores {
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
        .find(|a| a.respuesta.chars().count() > 2 * SAMPLE_CHARS && !matcher.brands_in_text(&a.respuesta).is_empty())
        .or_else(|| study.answers.first())?;
    let question = study.questions.iter().find(|q| q.id == answer.pregunta);
    Some(SampleAnswer {
        pregunta: answer.pregunta.clone(),
        texto_pregunta: question.map(|q| q.texto.clone()).unwrap_or_default(),
        modelo: answer.modelo.clone(),
        fecha: answer.fecha.clone(),
        respuesta: trim_text(&answer.respuesta, SAMPLE_CHARS.min(answer.respuesta.chars().count() / 2)),
        fuentes: answer.fuentes.clone(),
        nota: format!(
            "Muestra recortada de 1 de {} respuestas; el paquete trae todas completas. / Trimmed sample of 1 of {} answers; the package has them all in full.",
            study.answers.len(),
            study.answers.len()
        ),
    })
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
    let modelos = d
        .modelos
        .iter()
        .map(|m| ModelCount {
            modelo: m.id.clone(),
            nombre: m.nombre.clone(),
            proveedor: m.proveedor.clone(),
            nivel: m.nivel.as_str().to_owned(),
            respuestas: study.answers.iter().filter(|a| a.modelo == m.id).count(),
        })
        .collect();
    let ponderacion = match &d.ponderacion {
        Some(w) => format!("Modelos ponderados por cuota de mercado (fuente: {}).", w.fuente),
        None => "Todos los modelos pesan lo mismo.".to_owned(),
    };
    Sheet {
        slug: study.slug.clone(),
        nombre: d.nombre.clone(),
        nombre_en: d.nombre_en.clone(),
        descripcion: d.descripcion.clone(),
        descripcion_en: d.descripcion_en.clone(),
        industria: d.industria.clone(),
        subindustria: d.subindustria.clone(),
        pais: d.pais.clone(),
        idioma: d.idioma.clone(),
        precio_usd: site.price_of(study).usd_number(),
        moneda: site.content.service.moneda.clone(),
        fecha_corrida: run_dates(study),
        n_preguntas: study.questions.len(),
        n_respuestas: study.answers.len(),
        n_analisis: tables.len(),
        n_hallazgos: study.findings.len(),
        modelos,
        ponderacion,
        metricas_usadas: metrics_used(study),
        contenido: package_contents(!study.findings.is_empty(), study.previous.is_some()),
        tags: d.tags.clone(),
        version_paquete: d.version_paquete.clone(),
        generado: d.publicado.clone(),
        archivos: files,
        metodologia: d
            .metodologia
            .iter()
            .map(|m| SheetMethodSection {
                titulo: m.titulo.clone(),
                texto: m.texto.clone(),
                titulo_en: None,
                texto_en: None,
            })
            .chain(std::iter::once(SheetMethodSection {
                titulo: UNCERTAINTY.titulo.to_owned(),
                texto: UNCERTAINTY.texto.to_owned(),
                titulo_en: Some(UNCERTAINTY.titulo_en.to_owned()),
                texto_en: Some(UNCERTAINTY.texto_en.to_owned()),
            }))
            .collect(),
        universo: universe(study),
        analisis_indice: tables
            .iter()
            .map(|t| TableIndex {
                id: t.id.clone(),
                nombre: t.nombre.clone(),
                titulo: t.titulo.clone(),
                titulo_en: t.titulo_en.clone(),
                columnas: t.columnas.clone(),
                columnas_valor: t.value_columns().map(str::to_owned).collect(),
                filas: t.filas.len(),
            })
            .collect(),
        corrida_anterior: previous_run_sheet(study),
        hallazgos_indice: findings_index(study),
        ejemplos: Examples { preguntas: sample_questions(study), respuesta: sample_answer(study) },
        como_citar: d.como_citar.clone(),
        nota: d.nota.clone(),
        urls: SheetUrls {
            ficha: site.url(&format!("/estudio/{}/ficha", study.slug)),
            comprar: site.url(&format!("/estudio/{}", study.slug)),
            comprar_resumen: site.url(&format!("/estudio/{}?vista=resumen", study.slug)),
            catalogo: site.url("/catalogo"),
        },
        como_comprar: site.how_to_buy(Some(study)),
    }
}

/// What the sheet says of the previous run: which one, and the questions both runs share.
#[derive(Debug, Clone, Serialize)]
pub struct PreviousRunSheet {
    pub descripcion: String,
    pub descripcion_en: String,
    pub fecha_corrida: RunDates,
    /// Models of the previous run (ids).
    pub modelos: Vec<String>,
    pub n_respuestas: usize,
    /// Questions with the same id in both runs: the base of every change table.
    pub preguntas_compartidas: usize,
    /// Questions of this run the previous one did not ask, and the other way round.
    pub preguntas_agregadas: usize,
    pub preguntas_retiradas: usize,
    /// The change tables in the package (ids, titles).
    pub tablas_cambio: Vec<TableTitle>,
    pub metodo: &'static str,
    pub metodo_en: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableTitle {
    pub id: String,
    pub titulo: String,
    pub titulo_en: String,
}

/// How a change cell is computed, in one paragraph (the full text is in `metricas.toml`).
pub const CHANGE_METHOD: (&str, &str) = (
    "Cada tabla de cambio compara, marca por marca, mención, orden, citación, Protagonismo IA, Top1, participación de voz y tono neto entre las dos corridas, sobre las preguntas que comparten (mismo id): el valor en cada corrida (calculado como en las tablas de análisis, con los modelos y pesos de esa corrida), la diferencia (actual − anterior, de los valores publicados), su intervalo al 95 % pareado por pregunta (MOVER de Zou y Donner con la correlación entre corridas de los residuos por pregunta) y un veredicto: creció, cayó o sin cambio más allá del ruido.",
    "Each change table compares, brand by brand, mention, order, citation, AI Prominence, Top-1, share of voice and net tone between the two runs, over the questions they share (same id): the value in each run (computed as in the analysis tables, with that run's models and weights), the difference (current − previous, of the published values), its 95% interval paired by question (Zou and Donner's MOVER with the between-run correlation of the per-question residuals) and a verdict: grew (creció), fell (cayó) or no change beyond the noise (sin cambio más allá del ruido).",
);

fn previous_run_sheet(study: &Study) -> Option<PreviousRunSheet> {
    let spec = study.design.corrida_anterior.as_ref()?;
    let previous = study.previous.as_deref()?;
    let counts = crate::metrics::change::question_counts(study)?;
    Some(PreviousRunSheet {
        descripcion: spec.descripcion.clone(),
        descripcion_en: spec.descripcion_en.clone(),
        fecha_corrida: run_dates(previous),
        modelos: spec.modelos.iter().map(|m| m.id.clone()).collect(),
        n_respuestas: previous.answers.len(),
        preguntas_compartidas: counts.compartidas,
        preguntas_agregadas: counts.agregadas,
        preguntas_retiradas: counts.retiradas,
        tablas_cambio: crate::metrics::change::table_ids(study)
            .into_iter()
            .map(|(id, scope)| {
                let (titulo, titulo_en) = crate::metrics::change::titles(study, &scope);
                TableTitle { id, titulo, titulo_en }
            })
            .collect(),
        metodo: CHANGE_METHOD.0,
        metodo_en: CHANGE_METHOD.1,
    })
}

/// The change tables as the package and the summary carry them.
#[derive(Serialize)]
pub struct ChangesDocument<'a> {
    pub corrida_anterior: PreviousRunSheet,
    /// The method, as `metricas.toml` states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metodo: Option<&'a crate::model::ChangeDefinition>,
    pub tablas: &'a [Table],
}

fn changes_document<'a>(site: &Site<'a>, study: &Study, changes: &'a [Table]) -> Option<ChangesDocument<'a>> {
    let corrida_anterior = previous_run_sheet(study)?;
    Some(ChangesDocument { corrida_anterior, metodo: site.content.change_method.as_ref(), tablas: changes })
}

// ---------------------------------------------------------------------------------------
// Paid package (full) and summary

#[derive(Serialize)]
pub struct Design<'a> {
    pub dimensiones: &'a [crate::model::Dimension],
    pub modelos: &'a [crate::model::ModelSpec],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ponderacion: Option<&'a crate::model::Weighting>,
    pub marcas: &'a [Brand],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preguntas: Option<&'a [Question]>,
}

fn design(study: &Study, with_questions: bool) -> Design<'_> {
    Design {
        dimensiones: &study.design.dimensiones,
        modelos: &study.design.modelos,
        ponderacion: study.design.ponderacion.as_ref(),
        marcas: &study.brands,
        preguntas: with_questions.then_some(study.questions.as_slice()),
    }
}

/// A finding with each backing value beside the computed cell.
#[derive(Serialize)]
pub struct PublishedFinding<'a> {
    pub id: &'a str,
    pub tipo: &'a str,
    pub seccion: &'a str,
    pub texto: &'a str,
    pub texto_en: &'a str,
    pub respaldo: Vec<PublishedBacking<'a>>,
    /// Each comparison the finding makes and whether it holds at 95%.
    pub comparaciones: Vec<Comparison>,
    /// Each change between runs the finding claims, and whether the cell's verdict bears it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cambios: Vec<crate::metrics::change::ChangeClaim>,
    pub evidencia: &'a [String],
}

#[derive(Serialize)]
pub struct PublishedBacking<'a> {
    pub tabla: &'a str,
    pub fila: &'a str,
    pub columna: &'a str,
    pub valor: f64,
    pub decimales: u32,
    pub valor_calculado: Option<f64>,
    /// The cell's base and 95% interval, when it is a rate or a mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ic95: Option<(f64, f64)>,
    /// As the finding declares it: cited for context only, or not claimed to differ.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub contexto: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub empate: bool,
}

fn findings<'a>(study: &'a Study, tables: &[Table], changes: &[Table]) -> Vec<PublishedFinding<'a>> {
    let all: Vec<&Table> = tables.iter().chain(changes).collect();
    study
        .findings
        .iter()
        .map(|f| PublishedFinding {
            id: &f.id,
            tipo: &f.tipo,
            seccion: &f.seccion,
            texto: &f.texto,
            texto_en: &f.texto_en,
            respaldo: f
                .respaldo
                .iter()
                .map(|b| {
                    let table = all.iter().copied().find(|t| t.id == b.tabla);
                    let (n, ic95) = table.and_then(|t| t.uncertainty(&b.fila, &b.columna)).unwrap_or((None, None));
                    PublishedBacking {
                        tabla: &b.tabla,
                        fila: &b.fila,
                        columna: &b.columna,
                        valor: b.valor,
                        decimales: b.decimales,
                        valor_calculado: table.and_then(|t| t.cell(&b.fila, &b.columna)).and_then(|c| c.as_f64()),
                        n,
                        ic95,
                        contexto: b.contexto,
                        empate: b.empate,
                    }
                })
                .collect(),
            comparaciones: compare::comparisons(study, f, tables),
            cambios: crate::metrics::change::claims(f, changes),
            evidencia: &f.evidencia,
        })
        .collect()
}

/// A raw answer plus what the engine detected in it.
#[derive(Serialize)]
pub struct PublishedAnswer<'a> {
    pub id: &'a str,
    pub pregunta: &'a str,
    pub modelo: &'a str,
    pub version: &'a str,
    pub fecha: &'a str,
    pub respuesta: &'a str,
    pub fuentes: &'a [Source],
    /// Brand ids in order of first appearance.
    pub marcas_nombradas: Vec<&'a str>,
    /// Brand ids whose domains are among the sources.
    pub marcas_citadas: Vec<&'a str>,
    pub tono: &'a BTreeMap<String, Tone>,
    /// The repetition, when the study asked questions more than once (`respuestas.jsonl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeticion: Option<u32>,
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
            pregunta: &a.pregunta,
            modelo: &a.modelo,
            version: &a.version,
            fecha: &a.fecha,
            respuesta: &a.respuesta,
            fuentes: &a.fuentes,
            marcas_nombradas: found.order.iter().map(id).collect(),
            marcas_citadas: found.cited.iter().map(id).collect(),
            tono: &a.tono,
            repeticion: a.repeticion,
        })
        .collect()
}

/// Format marker of the package JSON, bumped on incompatible changes.
pub const PACKAGE_FORMAT: &str = "estudio-visibilidad-ia/1";

#[derive(Serialize)]
pub struct Package<'a> {
    pub formato: &'static str,
    pub ficha: Sheet,
    pub diseno: Design<'a>,
    pub analisis: &'a [Table],
    /// Change since the previous run (absent for a first run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cambios: Option<ChangesDocument<'a>>,
    pub hallazgos: Vec<PublishedFinding<'a>>,
    pub metricas: &'a [MetricDefinition],
    pub respuestas: Vec<PublishedAnswer<'a>>,
}

/// The full package; `brands[i]` holds what was found in `study.answers[i]`.
pub fn package<'a>(
    site: &Site<'a>,
    study: &'a Study,
    tables: &'a [Table],
    changes: &'a [Table],
    brands: &[AnswerBrands],
) -> Package<'a> {
    debug_assert_eq!(study.answers.len(), brands.len());
    Package {
        formato: PACKAGE_FORMAT,
        ficha: sheet(site, study, tables, None),
        diseno: design(study, true),
        analisis: tables,
        cambios: changes_document(site, study, changes),
        hallazgos: findings(study, tables, changes),
        metricas: &site.content.metrics,
        respuestas: answers(study, brands),
    }
}

#[derive(Serialize)]
pub struct Summary<'a> {
    pub formato: &'static str,
    pub vista: &'static str,
    pub ficha: Sheet,
    pub diseno: Design<'a>,
    pub hallazgos: Vec<PublishedFinding<'a>>,
    pub metricas: &'a [MetricDefinition],
    pub analisis_indice: Vec<TableIndex>,
    /// Change since the previous run, every table in full (absent for a first run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cambios: Option<ChangesDocument<'a>>,
    /// Filled by the gate: the signed links arrive in the purchase answer's `acceso`.
    pub descargas: Value,
}

pub fn summary<'a>(site: &Site<'a>, study: &'a Study, tables: &'a [Table], changes: &'a [Table]) -> Summary<'a> {
    let ficha = sheet(site, study, tables, None);
    Summary {
        formato: PACKAGE_FORMAT,
        vista: "resumen",
        analisis_indice: ficha.analisis_indice.clone(),
        ficha,
        diseno: design(study, false),
        cambios: changes_document(site, study, changes),
        hallazgos: findings(study, tables, changes),
        metricas: &site.content.metrics,
        descargas: serde_json::json!({
            "nota": "Los enlaces firmados al paquete completo (JSON y ZIP) llegan en el campo `acceso` de la respuesta de compra.",
            "note": "Signed links to the full package (JSON and ZIP) arrive in the purchase answer's `acceso` field."
        }),
    }
}
