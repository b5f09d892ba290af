//! What a study's `estudio.toml` says: texts, the run calendar, the methodology and the
//! analysis-table specs, derived from the industry file.
//!
//! Keeping this in one place is what makes the studies comparable: the same metric
//! definitions in every `metodologia`, and table specs built by one function so titles and
//! names follow one convention.

use std::collections::BTreeMap;

use generator::model::{Dimension, MethodSection, Metric, ModelSpec, StudyFile, TableKind, TableSpec};

use crate::engine::wording::{join_list, slug};
use crate::industry::{Day, Industry, ShortTable};
use crate::models::Model;

const DAYS_IN_MONTH: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// `YYYY-MM-DD` of the day `offset` days after `start` in 2026.
pub(crate) fn date(start: Day, offset: u32) -> String {
    let Day { mut month, mut day } = start;
    day += offset;
    while day > DAYS_IN_MONTH[(month - 1) as usize] {
        day -= DAYS_IN_MONTH[(month - 1) as usize];
        month += 1;
    }
    format!("2026-{month:02}-{day:02}")
}

/// Lowercases a metric name for use inside a title, keeping acronyms ("Protagonismo IA",
/// "AI Prominence", "Top 1").
fn title_case_metric(name: &str) -> String {
    match name {
        "Protagonismo IA" | "AI Prominence" | "Top 1" => name.to_owned(),
        _ => name.to_lowercase(),
    }
}

fn metric(m: Metric) -> (&'static str, &'static str) {
    match m {
        Metric::Mention => ("Tasa de mención", "Mention rate"),
        Metric::Order => ("Orden promedio", "Average order"),
        Metric::Citation => ("Tasa de citación", "Citation rate"),
        Metric::PhantomCitation => ("Citación fantasma", "Ghost citation"),
        Metric::ConsultedNotCited => ("Consultada y no citada", "Consulted, not cited"),
        Metric::Prominence => ("Protagonismo IA", "AI Prominence"),
        Metric::Top1 => ("Top 1", "Top-1 share"),
        Metric::Sov => ("Share of voice", "Share of voice"),
        Metric::NetTone => ("Tono neto", "Net tone"),
    }
}

/// The study's table specs, numbered A01, A02, ... in order.
pub(crate) fn tables(ind: &Industry) -> Vec<TableSpec> {
    let dim = |id: &str| -> (String, String) {
        ind.dimensions
            .iter()
            .find(|d| d.id == id)
            .map(|d| (d.label.clone(), d.label_en.clone()))
            .unwrap_or((id.to_owned(), id.to_owned()))
    };
    let brand = |id: &str| -> String {
        ind.brands.iter().find(|m| m.id == id).map_or_else(|| id.to_owned(), |m| m.name.clone())
    };
    ind.analysis
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let base = TableSpec {
                id: format!("A{:02}", i + 1),
                name: String::new(),
                title: String::new(),
                title_en: String::new(),
                kind: TableKind::Brands,
                metrics: Vec::new(),
                dimension: None,
                brand: None,
                filter: BTreeMap::new(),
                limit: None,
            };
            match t {
                ShortTable::Brands { metrics, filter } => match filter.iter().next() {
                    None => {
                        let (es, en): (Vec<String>, Vec<String>) = metrics
                            .iter()
                            .map(|m| {
                                let (e, n) = metric(*m);
                                (title_case_metric(e), title_case_metric(n))
                            })
                            .unzip();
                        TableSpec {
                            name: "visibilidad_marcas".into(),
                            title: format!("Visibilidad de marcas: {}", join_list(&es, "es")),
                            title_en: format!("Brand visibility: {}", join_list(&en, "en")),
                            metrics: metrics.clone(),
                            ..base
                        }
                    }
                    Some((d, v)) => {
                        let (e, en) = dim(d);
                        TableSpec {
                            name: format!("visibilidad_{}", slug(v).replace('-', "_")),
                            title: format!("Visibilidad de marcas, solo {} = {v}", e.to_lowercase()),
                            title_en: format!("Brand visibility, {} = {v} only", en.to_lowercase()),
                            metrics: metrics.clone(),
                            filter: filter.clone(),
                            ..base
                        }
                    }
                },
                ShortTable::BrandByModel { metric: m } => {
                    let (e, en) = metric(*m);
                    TableSpec {
                        name: format!("{}_por_modelo", m.id()),
                        title: format!("{e} por modelo"),
                        title_en: format!("{en} by model"),
                        kind: TableKind::BrandByModel,
                        metrics: vec![*m],
                        ..base
                    }
                }
                ShortTable::BrandByDimension { metric: m, dimension: d } => {
                    let (e, en) = metric(*m);
                    let (dim_es, dim_en) = dim(d);
                    TableSpec {
                        name: format!("{}_por_{d}", m.id()),
                        title: format!("{e} por {}", dim_es.to_lowercase()),
                        title_en: format!("{en} by {}", dim_en.to_lowercase()),
                        kind: TableKind::BrandByDimension,
                        metrics: vec![*m],
                        dimension: Some(d.clone()),
                        ..base
                    }
                }
                ShortTable::ModelByDimension { metric: m, dimension: d, brand: b } => {
                    let (e, en) = metric(*m);
                    let (dim_es, dim_en) = dim(d);
                    TableSpec {
                        name: format!("{}_{}_modelo_{d}", b.replace('-', "_"), m.id()),
                        title: format!("{}: {} por modelo y {}", brand(b), title_case_metric(e), dim_es.to_lowercase()),
                        title_en: format!(
                            "{}: {} by model and {}",
                            brand(b),
                            title_case_metric(en),
                            dim_en.to_lowercase()
                        ),
                        kind: TableKind::ModelByDimension,
                        metrics: vec![*m],
                        dimension: Some(d.clone()),
                        brand: Some(b.clone()),
                        ..base
                    }
                }
                ShortTable::Concentration { dimension: None } => TableSpec {
                    name: "concentracion_por_modelo".into(),
                    title: "Concentración por modelo (HHI sobre share of voice y Top 1)".into(),
                    title_en: "Concentration by model (HHI on share of voice and top-1)".into(),
                    kind: TableKind::Concentration,
                    ..base
                },
                ShortTable::Concentration { dimension: Some(d) } => {
                    let (dim_es, dim_en) = dim(d);
                    TableSpec {
                        name: format!("concentracion_por_{d}"),
                        title: format!(
                            "Concentración por {} (HHI sobre share of voice y Top 1)",
                            dim_es.to_lowercase()
                        ),
                        title_en: format!(
                            "Concentration by {} (HHI on share of voice and top-1)",
                            dim_en.to_lowercase()
                        ),
                        kind: TableKind::Concentration,
                        dimension: Some(d.clone()),
                        ..base
                    }
                }
                ShortTable::Agreement => TableSpec {
                    name: "acuerdo_entre_modelos".into(),
                    title: "Acuerdo entre modelos: Jaccard de marcas y coincidencia del primer lugar".into(),
                    title_en: "Agreement between models: Jaccard of brand sets and top-1 match".into(),
                    kind: TableKind::Agreement,
                    ..base
                },
                ShortTable::Tone => TableSpec {
                    name: "tono_por_marca".into(),
                    title: "Tono de las menciones por marca".into(),
                    title_en: "Tone of mentions by brand".into(),
                    kind: TableKind::Tone,
                    ..base
                },
                ShortTable::Sources { limit } => TableSpec {
                    name: "fuentes_citadas".into(),
                    title: "Dominios más citados como fuente".into(),
                    title_en: "Most cited source domains".into(),
                    kind: TableKind::Sources,
                    limit: Some(*limit),
                    ..base
                },
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// estudio.toml
// ---------------------------------------------------------------------------------------

fn methodology(
    ind: &Industry,
    models: &[Model],
    n_questions: usize,
    n_answers: usize,
    seed: u64,
) -> Vec<MethodSection> {
    let dims: Vec<String> =
        ind.dimensions.iter().map(|d| format!("{} ({})", d.label.to_lowercase(), d.values.join(", "))).collect();
    let end = date(ind.start, ind.days - 1);
    let first_day = date(ind.start, 0);
    let consumer: Vec<&Model> = models.iter().filter(|m| m.surface.is_some()).collect();
    let surfaces = if consumer.is_empty() {
        "Las respuestas se pidieron a la API de cada proveedor, con la búsqueda web activada (superficie `api`)."
            .to_owned()
    } else {
        let names: Vec<String> = consumer.iter().map(|m| m.name.clone()).collect();
        format!(
            "Las respuestas de esos seis modelos se pidieron a la API de cada proveedor, con la búsqueda web activada (superficie `api`). \
             Además, cada pregunta de nivel estándar se buscó tal cual en Google y se registró el resumen creado con IA que mostró \
             ({}, superficie `google_ai_overview`, capturado con una API de resultados de búsqueda): lo que ve una persona en el buscador, \
             que se publica como un modelo más y se puede separar con la dimensión `superficie`. En esas respuestas, las fuentes \
             consultadas son todos los enlaces que muestra el resumen y las citadas, los que su texto señala.",
            join_list(&names, "es")
        )
    };
    // The published texts still name the program `generator synth` (its name when the sample
    // was written): renaming it here would change every committed study, its ZIP and its PDF
    // reports, so it waits for the next regeneration of the sample.
    let mut sections = vec![
        MethodSection {
            title: "Diseño y corpus".into(),
            text: format!(
                "El estudio reúne {n_questions} preguntas y {n_answers} respuestas, recogidas entre el {first_day} y el {end}.\n\
                 Cada pregunta se clasifica por {}.\n\
                 Cada pregunta tiene un nivel de modelo: las de nivel estándar las responden GPT-5 mini, Gemini 2.5 Flash y Claude Haiku 4.5; \
                 las de nivel avanzado, GPT-5, Gemini 2.5 Pro y Claude Sonnet 4.5. Cada modelo responde una vez cada pregunta de su nivel.\n\
                 {surfaces}\n\
                 {}\n\
                 Importante: las respuestas de este paquete son datos sintéticos de demostración generados con `generator synth` (semilla {seed}); \
                 no son salidas reales de los modelos.",
                dims.join("; "),
                ind.method_extra
            ),
        },
        MethodSection {
            title: "Detección de marcas y fuentes".into(),
            text: "Cada marca tiene un nombre, alias y frases de exclusión (marcas.toml). Una marca está mencionada en una respuesta \
                    cuando aparece alguno de sus nombres como palabra completa, sin distinguir mayúsculas ni acentos; si dos alias se \
                    superponen gana el más largo, y no cuentan las apariciones dentro de una frase de exclusión.\n\
                    Orden de aparición: la posición (1, 2, 3...) de la primera mención de la marca entre las marcas distintas de la respuesta; \
                    el orden promedio se calcula solo sobre las respuestas que la mencionan y se publica con su base (n_orden).\n\
                    Citación como fuente: la respuesta cita un dominio de la marca o un subdominio suyo entre sus fuentes. \
                    Citación fantasma: la cita sin que la marca aparezca en el texto.\n\
                    Fuentes consultadas: cada respuesta de la API registra también todas las fuentes que el proveedor dice haber \
                    consultado, citadas o no. Consultada y no citada: entre las respuestas que las registran, la proporción que consultó \
                    un dominio de la marca y no lo citó."
                .into(),
        },
        MethodSection {
            title: "Métricas".into(),
            text: "Tasa de mención: respuestas que nombran la marca sobre el total de respuestas del alcance (0 a 1).\n\
                    Protagonismo IA: 10 puntos si la marca aparece primera, 8 si segunda, 7 si tercera, 6 si cuarta, 5 desde la quinta \
                    y 0 si no aparece, promediado sobre todas las respuestas (0 a 10).\n\
                    Top 1: proporción de las respuestas con alguna marca en las que la marca aparece primera.\n\
                    Share of voice: menciones de la marca sobre el total de menciones de marcas seguidas.\n\
                    Concentración: índice HHI en escala 0 a 10.000, suma de los cuadrados de las participaciones (en porcentaje) \
                    de share of voice (y, aparte, de Top 1); solo cubre las marcas seguidas.\n\
                    Tono: cada mención lleva una etiqueta positiva, neutra o negativa; el tono neto es (positivas − negativas) / etiquetadas."
                .into(),
        },
        MethodSection {
            title: "Acuerdo entre modelos".into(),
            text: "Para cada pregunta y cada par de modelos que la respondieron se calcula el índice de Jaccard entre los conjuntos de \
                    marcas mencionadas (intersección sobre unión) y si coincide la marca en primer lugar.\n\
                    Los pares en que ningún modelo nombra una marca se omiten y se cuentan aparte (columna omitidas).\n\
                    Se publica el promedio por par de modelos y el promedio general; como cada pregunta la responden los modelos \
                    de su nivel, los pares comparan modelos del mismo nivel."
                .into(),
        },
    ];
    let weighting_text = match &ind.weighting {
        Some(w) => {
            let weights: Vec<String> = models
                .iter()
                .filter_map(|m| w.weights.get(&m.id).map(|p| format!("{} {}", m.id, format!("{p}").replace('.', ","))))
                .collect();
            format!(
                "Los totales ponderan cada modelo por su cuota de mercado declarada: {}.\n\
                 Fuente de las cuotas: {}.\n\
                 Dentro de cada celda, las respuestas de un modelo pesan su cuota repartida entre ellas, de modo que cada modelo \
                 aporta su peso aunque responda distinta cantidad de preguntas. El acuerdo entre modelos no se pondera.",
                weights.join("; "),
                w.source
            )
        }
        None => format!(
            "Los {} modelos pesan lo mismo.\n\
             Dentro de cada celda, las respuestas de cada modelo presente aportan el mismo peso total, repartido entre sus \
             respuestas, de modo que un modelo con más respuestas no pesa más. El acuerdo entre modelos no se pondera.",
            if models.len() == 7 { "siete" } else { "seis" }
        ),
    };
    sections.push(MethodSection { title: "Ponderación de modelos".into(), text: weighting_text });
    sections
}

/// The study's dimensions: the industry's, and `superficie` when a consumer surface answers too
/// (its values: `api` and each surface, read from the answers).
fn dimensions(ind: &Industry, models: &[Model]) -> Vec<Dimension> {
    let mut dimensions = ind.dimensions.clone();
    let surfaces: Vec<String> = models.iter().filter_map(|m| m.surface.clone()).collect();
    if !surfaces.is_empty() {
        dimensions.push(Dimension {
            id: generator::model::SURFACE_DIMENSION.to_owned(),
            label: "Superficie".to_owned(),
            label_en: "Surface".to_owned(),
            values: std::iter::once(generator::model::API_SURFACE.to_owned()).chain(surfaces).collect(),
        });
    }
    dimensions
}

/// The `estudio.toml` of a study.
pub(crate) fn design(ind: &Industry, models: &[Model], n_questions: usize, n_answers: usize, seed: u64) -> StudyFile {
    let specs = models
        .iter()
        .map(|m| ModelSpec { id: m.id.clone(), name: m.name.clone(), provider: m.provider.clone(), level: m.tier })
        .collect();
    StudyFile {
        name: ind.name.clone(),
        name_en: ind.name_en.clone(),
        description: ind.description.clone(),
        description_en: ind.description_en.clone(),
        industry: ind.industry.clone(),
        subindustry: ind.subindustry.clone(),
        country: ind.country.clone(),
        language: ind.languages.clone(),
        published: ind.published.clone(),
        price_usd: None,
        package_version: "1.0.0".into(),
        tags: ind.tags.clone(),
        how_to_cite: format!(
            "Visibilidad IA Cono Sur ({}). {}. Paquete de datos, versión 1.0.0, publicado el {}. Datos sintéticos de demostración.",
            &ind.published[..4],
            ind.name,
            ind.published
        ),
        note: format!(
            "Las respuestas de este estudio son datos sintéticos de demostración generados con `generator synth` (semilla {seed}); \
             no son salidas reales de los modelos. Las marcas, dominios y fuentes son reales, pero lo que las respuestas dicen de \
             ellas es ilustrativo."
        ),
        methodology: methodology(ind, models, n_questions, n_answers, seed),
        dimensions: dimensions(ind, models),
        models: specs,
        weighting: ind.weighting.clone(),
        analyses: tables(ind),
        previous_run: None,
    }
}
