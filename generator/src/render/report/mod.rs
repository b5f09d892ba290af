//! The PDF reports' content: one localized document model per study and language.
//!
//! Every number a report prints comes from the analysis tables the build publishes in the
//! package JSON (the same [`Table`]s, the same findings with their computed backing cells), and
//! every word and number is chosen and formatted here, in Rust, so the typesetting template
//! (`templates/informe.typ`) only lays the model out. This half needs no typesetting engine and
//! is always compiled; [`pdf`] (cargo feature `pdf`) turns the model into PDF bytes with typst.

#[cfg(feature = "pdf")]
pub mod pdf;

use serde::Serialize;

use crate::metrics::analysis::{Cell, Table};
use crate::model::{Metric, Study, TableKind, TableSpec};
use crate::render::{Site, run_dates};

/// Folder of a study (under `content/estudios/<slug>/`) that holds its reports.
pub const REPORTS_DIR: &str = crate::load::REPORTS_DIR;

/// The report languages, in file order.
pub const LANGUAGES: [Lang; 2] = [Lang::Es, Lang::En];

/// A report language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Es,
    En,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::Es => "es",
            Lang::En => "en",
        }
    }

    /// `es` text or `en` text.
    fn pick<'a>(self, es: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Es => es,
            Lang::En => en,
        }
    }
}

/// File name of a study's report in one language (inside `informes/` and the ZIP).
pub fn report_file_name(lang: Lang) -> String {
    format!("informe-{}.pdf", lang.code())
}

/// Everything one report shows, already in its language.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub lang: Lang,
    /// Stable document identifier (`<slug>-<lang>`): the PDF's `/ID` is derived from it.
    pub ident: String,
    pub etiquetas: Labels,
    pub servicio: String,
    pub editor: String,
    pub web: String,
    pub titulo: String,
    pub descripcion: String,
    /// Publication date, written out.
    pub publicado: String,
    /// Label/value pairs of the study's design, for the cover.
    pub ficha: Vec<[String; 2]>,
    pub cifras: Vec<KeyFigure>,
    pub nota: Note,
    pub hallazgos: Vec<FindingView>,
    pub graficos: Vec<Chart>,
    pub tablas: Vec<TableView>,
    pub metodologia: Vec<Section>,
    pub metricas: Vec<MetricView>,
    pub como_citar: Note,
    pub colofon: String,
}

/// Headings and fixed words of the template.
#[derive(Debug, Clone, Serialize)]
pub struct Labels {
    pub serie: &'static str,
    pub cifras: &'static str,
    pub hallazgos: &'static str,
    pub sin_hallazgos: &'static str,
    pub respaldo: &'static str,
    pub respaldo_columnas: [&'static str; 4],
    pub evidencia: &'static str,
    pub graficos: &'static str,
    pub graficos_intro: &'static str,
    pub tablas: &'static str,
    pub tablas_intro: &'static str,
    pub metodologia: &'static str,
    pub metricas: &'static str,
    pub metricas_columnas: [&'static str; 3],
    pub pagina: &'static str,
    pub de: &'static str,
    pub contenido: &'static str,
}

fn labels(lang: Lang) -> Labels {
    match lang {
        Lang::Es => Labels {
            serie: "Informe de visibilidad en IA",
            cifras: "Cifras clave",
            hallazgos: "Hallazgos",
            sin_hallazgos: "Este estudio no publica hallazgos redactados: sus resultados son las tablas de análisis que siguen.",
            respaldo: "Respaldo",
            respaldo_columnas: ["Tabla", "Fila", "Columna", "Valor"],
            evidencia: "Respuestas de ejemplo",
            graficos: "Visibilidad por marca y por modelo",
            graficos_intro: "Tasa de mención y Protagonismo IA de las marcas seguidas, en el total del estudio y según el modelo que responde. Los valores salen de las tablas de análisis indicadas en cada gráfico.",
            tablas: "Tablas de análisis",
            tablas_intro: "Las tablas del paquete de datos, con los mismos números que el JSON y la planilla. Las tasas se muestran en porcentaje; Protagonismo IA va de 0 a 10 y el HHI de 0 a 10.000.",
            metodologia: "Metodología",
            metricas: "Definiciones de las métricas",
            metricas_columnas: ["Métrica", "Definición y fórmula", "Escala"],
            pagina: "Página",
            de: "de",
            contenido: "Contenido",
        },
        Lang::En => Labels {
            serie: "AI visibility report",
            cifras: "Key figures",
            hallazgos: "Findings",
            sin_hallazgos: "This study publishes no written findings: its results are the analysis tables that follow.",
            respaldo: "Backing",
            respaldo_columnas: ["Table", "Row", "Column", "Value"],
            evidencia: "Example answers",
            graficos: "Visibility by brand and by model",
            graficos_intro: "Mention rate and AI Prominence (Protagonismo IA) of the tracked brands, over the whole study and by the model answering. The values come from the analysis tables named under each chart.",
            tablas: "Analysis tables",
            tablas_intro: "The tables of the data package, with the same numbers as the JSON and the spreadsheet. Rates are shown as percentages; AI Prominence runs from 0 to 10 and HHI from 0 to 10,000.",
            metodologia: "Methodology",
            metricas: "Metric definitions",
            metricas_columnas: ["Metric", "Definition and formula", "Scale"],
            pagina: "Page",
            de: "of",
            contenido: "Contents",
        },
    }
}

/// A headline number of the cover.
#[derive(Debug, Clone, Serialize)]
pub struct KeyFigure {
    pub etiqueta: String,
    pub valor: String,
    pub detalle: String,
}

/// A text block with a heading; `original` marks Spanish-only content shown in another language.
#[derive(Debug, Clone, Serialize)]
pub struct Note {
    pub titulo: String,
    pub texto: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    pub id: String,
    pub seccion: String,
    pub texto: String,
    /// Table, row, column label and the computed value, formatted as in the tables.
    pub respaldo: Vec<[String; 4]>,
    pub evidencia: String,
}

/// A horizontal bar chart: one group per row label, one bar per series in each group.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    pub titulo: String,
    pub fuente: String,
    /// Legend entries (empty when there is a single series).
    pub series: Vec<Series>,
    /// Axis ticks, from 0 to the scale's maximum.
    pub eje: Vec<Tick>,
    pub grupos: Vec<BarGroup>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub nombre: String,
    pub color: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tick {
    /// Position on the axis, 0 to 1.
    pub fraccion: f64,
    pub texto: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BarGroup {
    pub etiqueta: String,
    pub barras: Vec<Bar>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Bar {
    /// Length as a fraction of the axis (0 to 1).
    pub fraccion: f64,
    pub texto: String,
    pub color: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableView {
    pub id: String,
    pub titulo: String,
    pub nota: String,
    pub columnas: Vec<String>,
    /// `true` for columns of numbers (right-aligned).
    pub numericas: Vec<bool>,
    pub filas: Vec<Vec<String>>,
    /// Index of the row holding the total, if any (set in bold).
    pub fila_total: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub titulo: String,
    pub parrafos: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricView {
    pub nombre: String,
    pub definicion: String,
    pub formula: String,
    pub escala: String,
}

// ---------------------------------------------------------------------------------------
// Number formats

/// How the numbers of one column are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Labels and names.
    Text,
    /// Whole counts.
    Count,
    /// A share from 0 to 1, shown as a percentage with one decimal.
    Percent,
    /// A score or mean shown with two decimals (Protagonismo IA, average order, Jaccard).
    Decimal2,
    /// Net tone, −1 to 1, two decimals with an explicit sign.
    Signed2,
    /// HHI, 0 to 10,000, no decimals.
    Whole,
}

/// Formats `value` in `unit` for `lang`: decimal comma in Spanish, point in English; a true
/// minus sign; an en dash for a value that is not defined.
pub fn format_value(value: Option<f64>, unit: Unit, lang: Lang) -> String {
    let Some(v) = value else { return "–".to_owned() };
    let text = match unit {
        Unit::Text => return v.to_string(),
        Unit::Count | Unit::Whole => format!("{v:.0}"),
        Unit::Percent => format!("{:.1}", v * 100.0),
        Unit::Decimal2 => format!("{v:.2}"),
        Unit::Signed2 if v > 0.0 => format!("+{v:.2}"),
        Unit::Signed2 => format!("{v:.2}"),
    };
    let text = if text.starts_with('-') && text.trim_start_matches(['-', '0', '.']).is_empty() {
        text.trim_start_matches('-').to_owned()
    } else {
        text.replacen('-', "\u{2212}", 1)
    };
    match lang {
        Lang::Es => text.replace('.', ","),
        Lang::En => text,
    }
}

fn format_cell(cell: &Cell, unit: Unit, lang: Lang) -> String {
    match cell {
        Cell::Text(t) => t.clone(),
        Cell::Int(n) => n.to_string(),
        Cell::Num(x) if unit == Unit::Text || unit == Unit::Count => format_value(Some(*x), Unit::Decimal2, lang),
        Cell::Num(x) => format_value(Some(*x), unit, lang),
        Cell::Null => "–".to_owned(),
    }
}

fn metric_unit(metric: Metric) -> Unit {
    match metric {
        Metric::Mencion | Metric::Citacion | Metric::CitacionFantasma | Metric::Top1 | Metric::Sov => Unit::Percent,
        Metric::Orden | Metric::Protagonismo => Unit::Decimal2,
        Metric::TonoNeto => Unit::Signed2,
    }
}

/// The unit of column `column` of a table built from `spec`.
pub fn column_unit(spec: &TableSpec, column: &str, first: bool) -> Unit {
    if first {
        return Unit::Text;
    }
    if let Some(metric) = Metric::ALL.iter().find(|m| m.id() == column) {
        return metric_unit(*metric);
    }
    match column {
        "n_orden" | "n_tono" | "respuestas" | "marcas_distintas" | "preguntas" | "omitidas" | "pos" | "neu" | "neg" => {
            Unit::Count
        }
        "con_marca" | "top1_lider" | "tasa" | "top1_coincide" => Unit::Percent,
        "hhi_sov" | "hhi_top1" => Unit::Whole,
        "jaccard" => Unit::Decimal2,
        "lider" | "modelo_a" | "modelo_b" | "marca" | "dominio" => Unit::Text,
        // Crossed tables: one column per model or dimension value, plus the total.
        _ => match (spec.tipo, spec.metricas.as_slice()) {
            (TableKind::MarcaPorModelo | TableKind::MarcaPorDimension | TableKind::ModeloPorDimension, [metric]) => {
                metric_unit(*metric)
            }
            _ => Unit::Text,
        },
    }
}

fn unit_suffix(unit: Unit) -> &'static str {
    match unit {
        Unit::Percent => " (%)",
        _ => "",
    }
}

/// A column header in `lang`: metric names, model names, translated fixed columns.
fn column_label(study: &Study, spec: &TableSpec, column: &str, first: bool, lang: Lang) -> String {
    let unit = column_unit(spec, column, first);
    let base = match column {
        "marca" => lang.pick("Marca", "Brand"),
        "mencion" => lang.pick("Mención", "Mention"),
        "orden" => lang.pick("Orden prom.", "Avg. order"),
        "n_orden" => lang.pick("n orden", "n order"),
        "citacion" => lang.pick("Citación", "Citation"),
        "citacion_fantasma" => lang.pick("Cit. fantasma", "Ghost cit."),
        "protagonismo" => lang.pick("Protagonismo IA", "AI Prominence"),
        "top1" => "Top 1",
        "sov" => "Share of voice",
        "tono_neto" => lang.pick("Tono neto", "Net tone"),
        "n_tono" => lang.pick("n tono", "n tone"),
        "modelo" => lang.pick("Modelo", "Model"),
        "total" => "Total",
        "grupo" => lang.pick("Grupo", "Group"),
        "respuestas" => lang.pick("Respuestas", "Answers"),
        "con_marca" => lang.pick("Con marca", "With a brand"),
        "marcas_distintas" => lang.pick("Marcas distintas", "Distinct brands"),
        "lider" => lang.pick("Líder", "Leader"),
        "top1_lider" => lang.pick("Top 1 del líder", "Leader's top 1"),
        "hhi_sov" => "HHI (SoV)",
        "hhi_top1" => "HHI (Top 1)",
        "par" => lang.pick("Par de modelos", "Model pair"),
        "modelo_a" => lang.pick("Modelo A", "Model A"),
        "modelo_b" => lang.pick("Modelo B", "Model B"),
        "preguntas" => lang.pick("Preguntas", "Questions"),
        "omitidas" => lang.pick("Omitidas", "Skipped"),
        "jaccard" => "Jaccard",
        "top1_coincide" => lang.pick("Coincide Top 1", "Top-1 match"),
        "pos" => lang.pick("Positivas", "Positive"),
        "neu" => lang.pick("Neutras", "Neutral"),
        "neg" => lang.pick("Negativas", "Negative"),
        "dominio" => lang.pick("Dominio", "Domain"),
        "tasa" => lang.pick("Tasa", "Rate"),
        other => match study.design.modelos.iter().find(|m| m.id == other) {
            Some(model) => model.nombre.as_str(),
            None => other,
        },
    };
    format!("{base}{}", unit_suffix(unit))
}

// ---------------------------------------------------------------------------------------
// Building the report

/// The analysis tables of a study paired with the specs they were computed from.
fn specs_and_tables<'a>(study: &'a Study, tables: &'a [Table]) -> impl Iterator<Item = (&'a TableSpec, &'a Table)> {
    study.design.analisis.iter().zip(tables)
}

/// The whole-study brand table (kind `marcas`, no filter) that has `metric`.
fn brand_table<'a>(study: &'a Study, tables: &'a [Table], metric: Metric) -> Option<(&'a TableSpec, &'a Table)> {
    specs_and_tables(study, tables)
        .find(|(s, _)| s.tipo == TableKind::Marcas && s.filtro.is_empty() && s.metricas.contains(&metric))
}

/// The whole-study brand-by-model table of `metric`.
fn by_model_table<'a>(study: &'a Study, tables: &'a [Table], metric: Metric) -> Option<(&'a TableSpec, &'a Table)> {
    specs_and_tables(study, tables)
        .find(|(s, _)| s.tipo == TableKind::MarcaPorModelo && s.filtro.is_empty() && s.metricas == [metric])
}

/// Builds the report of `study` in `lang` from its computed tables.
pub fn report(site: &Site<'_>, study: &Study, tables: &[Table], lang: Lang) -> Report {
    let d = &study.design;
    let service = &site.content.service;
    Report {
        lang,
        ident: format!("{}-{}", study.slug, lang.code()),
        etiquetas: labels(lang),
        servicio: lang.pick(&service.nombre, &service.nombre_en).to_owned(),
        editor: service.editor.clone(),
        web: service.web.clone(),
        titulo: lang.pick(&d.nombre, &d.nombre_en).to_owned(),
        descripcion: lang.pick(&d.descripcion, &d.descripcion_en).to_owned(),
        publicado: long_date(&d.publicado, lang),
        ficha: design_facts(study, lang),
        cifras: key_figures(study, tables, lang),
        nota: Note {
            titulo: lang.pick("Nota del editor", "Publisher's note (original in Spanish)").to_owned(),
            texto: d.nota.clone(),
        },
        hallazgos: findings(study, tables, lang),
        graficos: charts(study, tables, lang),
        tablas: specs_and_tables(study, tables).map(|(spec, table)| table_view(study, spec, table, lang)).collect(),
        metodologia: methodology(study, lang),
        metricas: metric_definitions(site, study, lang),
        como_citar: Note {
            titulo: lang.pick("Cómo citar", "How to cite (as published, in Spanish)").to_owned(),
            texto: d.como_citar.clone(),
        },
        colofon: colophon(site, study, lang),
    }
}

const MONTHS_ES: [&str; 12] = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];
const MONTHS_EN: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `2026-03-10` → "10 de marzo de 2026" / "10 March 2026" (unchanged when not a date).
pub fn long_date(date: &str, lang: Lang) -> String {
    let parts: Vec<&str> = date.split('-').collect();
    let parsed = match parts.as_slice() {
        [y, m, d] => match (y.parse::<u32>(), m.parse::<usize>(), d.parse::<u32>()) {
            (Ok(y), Ok(m @ 1..=12), Ok(d)) => Some((y, m, d)),
            _ => None,
        },
        _ => None,
    };
    match parsed {
        Some((y, m, d)) => match lang {
            Lang::Es => format!("{d} de {} de {y}", MONTHS_ES[m - 1]),
            Lang::En => format!("{d} {} {y}", MONTHS_EN[m - 1]),
        },
        None => date.to_owned(),
    }
}

fn design_facts(study: &Study, lang: Lang) -> Vec<[String; 2]> {
    let d = &study.design;
    let dates = run_dates(study);
    let fact = |es: &str, en: &str, value: String| [lang.pick(es, en).to_owned(), value];
    vec![
        fact("Industria", "Industry", format!("{} · {}", d.industria, d.subindustria)),
        fact("País", "Country", d.pais.join(", ")),
        fact("Idiomas de las preguntas", "Question languages", d.idioma.join(", ")),
        fact("Corrida", "Fieldwork", format!("{} – {}", long_date(&dates.desde, lang), long_date(&dates.hasta, lang))),
        fact("Preguntas", "Questions", study.questions.len().to_string()),
        fact("Respuestas", "Answers", study.answers.len().to_string()),
        fact("Modelos", "Models", d.modelos.iter().map(|m| m.nombre.as_str()).collect::<Vec<_>>().join(", ")),
        fact("Marcas seguidas", "Tracked brands", study.brands.len().to_string()),
        fact(
            "Ponderación",
            "Weighting",
            match &d.ponderacion {
                Some(_) => lang.pick("por cuota de mercado de cada modelo", "by each model's market share").to_owned(),
                None => lang.pick("todos los modelos pesan lo mismo", "every model weighs the same").to_owned(),
            },
        ),
        fact("Versión del paquete", "Package version", d.version_paquete.clone()),
    ]
}

/// Row with the highest value in `column` (first wins ties: rows are sorted by name on ties).
fn best_row<'a>(table: &'a Table, column: &str) -> Option<(&'a str, f64)> {
    let mut best: Option<(&str, f64)> = None;
    for key in table.row_keys() {
        if let Some(v) = table.cell(key, column).and_then(Cell::as_f64)
            && best.is_none_or(|(_, b)| v > b)
        {
            best = Some((key, v));
        }
    }
    best
}

fn key_figures(study: &Study, tables: &[Table], lang: Lang) -> Vec<KeyFigure> {
    let mut figures = vec![KeyFigure {
        etiqueta: lang.pick("Respuestas analizadas", "Answers analysed").to_owned(),
        valor: study.answers.len().to_string(),
        detalle: match lang {
            Lang::Es => format!("{} preguntas, {} modelos", study.questions.len(), study.design.modelos.len()),
            Lang::En => format!("{} questions, {} models", study.questions.len(), study.design.modelos.len()),
        },
    }];
    if let Some((_, table)) = brand_table(study, tables, Metric::Mencion)
        && let Some((brand, value)) = best_row(table, Metric::Mencion.id())
    {
        figures.push(KeyFigure {
            etiqueta: lang.pick("Marca más mencionada", "Most mentioned brand").to_owned(),
            valor: match lang {
                Lang::Es => format!("{} %", format_value(Some(value), Unit::Percent, lang)),
                Lang::En => format!("{}%", format_value(Some(value), Unit::Percent, lang)),
            },
            detalle: match lang {
                Lang::Es => format!("{brand}, tasa de mención ({})", table.id),
                Lang::En => format!("{brand}, mention rate ({})", table.id),
            },
        });
    }
    if let Some((_, table)) = brand_table(study, tables, Metric::Protagonismo)
        && let Some((brand, value)) = best_row(table, Metric::Protagonismo.id())
    {
        figures.push(KeyFigure {
            etiqueta: lang.pick("Mayor Protagonismo IA", "Highest AI Prominence").to_owned(),
            valor: format_value(Some(value), Unit::Decimal2, lang),
            detalle: match lang {
                Lang::Es => format!("{brand}, sobre 10 ({})", table.id),
                Lang::En => format!("{brand}, out of 10 ({})", table.id),
            },
        });
    }
    let concentration = specs_and_tables(study, tables)
        .find(|(s, _)| s.tipo == TableKind::Concentracion && s.dimension.is_none() && s.filtro.is_empty());
    if let Some((_, table)) = concentration
        && let Some(value) = table.cell("total", "hhi_sov").and_then(Cell::as_f64)
    {
        figures.push(KeyFigure {
            etiqueta: lang.pick("Concentración (HHI)", "Concentration (HHI)").to_owned(),
            valor: format_value(Some(value), Unit::Whole, lang),
            detalle: match lang {
                Lang::Es => format!("sobre share of voice, de 0 a 10.000 ({})", table.id),
                Lang::En => format!("on share of voice, 0 to 10,000 ({})", table.id),
            },
        });
    }
    figures
}

fn findings(study: &Study, tables: &[Table], lang: Lang) -> Vec<FindingView> {
    study
        .findings
        .iter()
        .map(|f| FindingView {
            id: f.id.clone(),
            seccion: match lang {
                Lang::Es => f.seccion.clone(),
                Lang::En => finding_kind_en(&f.tipo),
            },
            texto: lang.pick(&f.texto, &f.texto_en).to_owned(),
            respaldo: f
                .respaldo
                .iter()
                .map(|b| {
                    let found = specs_and_tables(study, tables).find(|(_, t)| t.id == b.tabla);
                    let (column, value) = match found {
                        Some((spec, table)) => {
                            let first = table.columnas.first().is_some_and(|c| *c == b.columna);
                            let unit = column_unit(spec, &b.columna, first);
                            let value = table.cell(&b.fila, &b.columna).and_then(Cell::as_f64);
                            (column_label(study, spec, &b.columna, first, lang), format_value(value, unit, lang))
                        }
                        None => (b.columna.clone(), "–".to_owned()),
                    };
                    [b.tabla.clone(), display_key(study, &b.fila), column, value]
                })
                .collect(),
            evidencia: f.evidencia.join(", "),
        })
        .collect()
}

/// The English name of a kind of finding (sections are written in Spanish only).
fn finding_kind_en(kind: &str) -> String {
    let name = match kind {
        "liderazgo" => "Leadership",
        "brecha" => "Gap",
        "concentracion" => "Concentration",
        "fuentes" => "Sources",
        "divergencia" => "Divergence between models",
        "tono" => "Tone",
        "ausencia" => "Absence",
        other => other,
    };
    name.to_owned()
}

/// Colour of each series (Okabe–Ito, colour-blind safe), light and dark of one hue per provider.
const PALETTE: [&str; 8] = ["#56B4E9", "#0072B2", "#E5B94A", "#B07A00", "#E69A7A", "#C24E1C", "#8FCFB5", "#00785A"];
const BRAND_COLOUR: &str = "#1F3A5F";
/// Brands shown in a by-model chart.
const BRANDS_BY_MODEL: usize = 5;

fn charts(study: &Study, tables: &[Table], lang: Lang) -> Vec<Chart> {
    let mut charts = Vec::new();
    for metric in [Metric::Mencion, Metric::Protagonismo] {
        if let Some((spec, table)) = brand_table(study, tables, metric) {
            charts.push(brand_chart(spec, table, metric, lang));
        }
    }
    for metric in [Metric::Mencion, Metric::Protagonismo] {
        if let Some((spec, table)) = by_model_table(study, tables, metric) {
            charts.push(model_chart(study, spec, table, metric, lang));
        }
    }
    charts
}

/// Axis maximum and ticks (position on the axis from 0 to 1, value): 0–100 % in steps of 10
/// points, 0–10 in whole points; every other tick when there would be more than six.
fn axis(metric: Metric, max: f64) -> (f64, Vec<(f64, f64)>) {
    let (step, cap) = if metric_unit(metric) == Unit::Percent { (0.1, 1.0) } else { (1.0, 10.0) };
    let mut steps = (max / step - 1e-9).ceil().max(1.0) as usize;
    let every = if steps > 6 { 2 } else { 1 };
    steps = steps.div_ceil(every) * every;
    let top = (steps as f64 * step).min(cap);
    let ticks = (0..=steps).step_by(every).map(|i| (i as f64 / steps as f64, i as f64 * step)).collect();
    (top, ticks)
}

fn metric_title(metric: Metric, lang: Lang) -> &'static str {
    match metric {
        Metric::Mencion => lang.pick("Tasa de mención (%)", "Mention rate (%)"),
        Metric::Protagonismo => lang.pick("Protagonismo IA (0 a 10)", "AI Prominence, Protagonismo IA (0 to 10)"),
        _ => "",
    }
}

fn source_line(table: &Table, lang: Lang) -> String {
    match lang {
        Lang::Es => {
            format!("Fuente: tabla {}, {}", table.id, translate_note(table.nota.as_deref().unwrap_or(""), lang))
        }
        Lang::En => {
            format!("Source: table {}, {}", table.id, translate_note(table.nota.as_deref().unwrap_or(""), lang))
        }
    }
}

fn axis_ticks(ticks: &[(f64, f64)], unit: Unit, lang: Lang) -> Vec<Tick> {
    ticks
        .iter()
        .map(|(position, value)| Tick {
            fraccion: *position,
            texto: match unit {
                Unit::Percent => format!("{:.0}", value * 100.0),
                _ => format_value(Some(*value), Unit::Whole, lang),
            },
        })
        .collect()
}

fn brand_chart(spec: &TableSpec, table: &Table, metric: Metric, lang: Lang) -> Chart {
    let unit = column_unit(spec, metric.id(), false);
    let mut rows: Vec<(&str, Option<f64>)> =
        table.row_keys().map(|k| (k, table.cell(k, metric.id()).and_then(Cell::as_f64))).collect();
    // Best first (the table is sorted by its first metric); ties keep the table order.
    rows.sort_by(|a, b| b.1.unwrap_or(f64::MIN).total_cmp(&a.1.unwrap_or(f64::MIN)));
    let max = rows.iter().filter_map(|r| r.1).fold(0.0, f64::max);
    let (top, ticks) = axis(metric, max);
    Chart {
        titulo: match lang {
            Lang::Es => format!("{} por marca", metric_title(metric, lang)),
            Lang::En => format!("{} by brand", metric_title(metric, lang)),
        },
        fuente: source_line(table, lang),
        series: Vec::new(),
        eje: axis_ticks(&ticks, unit, lang),
        grupos: rows
            .into_iter()
            .map(|(brand, value)| BarGroup {
                etiqueta: brand.to_owned(),
                barras: vec![Bar {
                    fraccion: fraction(value, top),
                    texto: format_value(value, unit, lang),
                    color: BRAND_COLOUR,
                }],
            })
            .collect(),
    }
}

fn fraction(value: Option<f64>, top: f64) -> f64 {
    match value {
        Some(v) if top > 0.0 => (v / top).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

fn model_chart(study: &Study, spec: &TableSpec, table: &Table, metric: Metric, lang: Lang) -> Chart {
    let unit = column_unit(spec, "total", false);
    let models: Vec<(usize, &crate::model::ModelSpec)> =
        study.design.modelos.iter().filter(|m| table.columnas.contains(&m.id)).enumerate().collect();
    let brands: Vec<&str> = table.row_keys().take(BRANDS_BY_MODEL).collect();
    let max = brands
        .iter()
        .flat_map(|b| models.iter().filter_map(move |(_, m)| table.cell(b, &m.id).and_then(Cell::as_f64)))
        .fold(0.0, f64::max);
    let (top, ticks) = axis(metric, max);
    let colour = |i: usize| PALETTE[i % PALETTE.len()];
    Chart {
        titulo: match lang {
            Lang::Es => format!(
                "{} por modelo, {} marcas con más {}",
                metric_title(metric, lang),
                brands.len(),
                if metric == Metric::Mencion { "menciones" } else { "Protagonismo IA" }
            ),
            Lang::En => format!("{} by model, top {} brands", metric_title(metric, lang), brands.len()),
        },
        fuente: source_line(table, lang),
        series: models.iter().map(|(i, m)| Series { nombre: m.nombre.clone(), color: colour(*i) }).collect(),
        eje: axis_ticks(&ticks, unit, lang),
        grupos: brands
            .iter()
            .map(|brand| BarGroup {
                etiqueta: (*brand).to_owned(),
                barras: models
                    .iter()
                    .map(|(i, m)| {
                        let value = table.cell(brand, &m.id).and_then(Cell::as_f64);
                        Bar {
                            fraccion: fraction(value, top),
                            texto: format_value(value, unit, lang),
                            color: colour(*i),
                        }
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The Spanish scope note of a table, in `lang` (the phrases [`crate::metrics::analysis`] writes).
fn translate_note(note: &str, lang: Lang) -> String {
    let mut text = note.to_owned();
    if lang == Lang::En {
        for (es, en) in [
            (
                "Promedio simple por pregunta; se omiten los pares en que ningún modelo nombra una marca.",
                "Simple mean over questions; pairs where neither model names a brand are skipped.",
            ),
            ("Modelos ponderados por cuota de mercado", "Models weighted by market share"),
            ("Modelos con igual peso.", "Models weigh equally."),
            (" respuestas", " answers"),
            ("(filtro: ", "(filter: "),
            ("(fuente: ", "(source: "),
        ] {
            text = text.replace(es, en);
        }
    }
    text
}

/// A row key as a reader sees it: model ids, and "a vs b" pairs of them, by their names.
pub fn display_key(study: &Study, key: &str) -> String {
    let name = |id: &str| study.design.modelos.iter().find(|m| m.id == id).map(|m| m.nombre.clone());
    if let Some(n) = name(key) {
        return n;
    }
    if let Some((a, b)) = key.split_once(" vs ")
        && let (Some(a), Some(b)) = (name(a), name(b))
    {
        return format!("{a} vs {b}");
    }
    key.to_owned()
}

fn table_view(study: &Study, spec: &TableSpec, table: &Table, lang: Lang) -> TableView {
    let units: Vec<Unit> = table.columnas.iter().enumerate().map(|(i, c)| column_unit(spec, c, i == 0)).collect();
    let filas: Vec<Vec<String>> = table
        .filas
        .iter()
        .map(|row| {
            row.iter()
                .zip(&units)
                .enumerate()
                .map(|(i, (cell, unit))| {
                    let text = format_cell(cell, *unit, lang);
                    let is_key = i == 0 || (spec.tipo == TableKind::Acuerdo && (i == 1 || i == 2));
                    if is_key { display_key(study, &text) } else { text }
                })
                .collect()
        })
        .collect();
    let fila_total = table.row_keys().position(|k| k == "total");
    TableView {
        id: table.id.clone(),
        titulo: lang.pick(&table.titulo, &table.titulo_en).to_owned(),
        nota: translate_note(table.nota.as_deref().unwrap_or(""), lang),
        columnas: table.columnas.iter().enumerate().map(|(i, c)| column_label(study, spec, c, i == 0, lang)).collect(),
        numericas: units.iter().map(|u| !matches!(u, Unit::Text)).collect(),
        filas,
        fila_total,
    }
}

fn methodology(study: &Study, lang: Lang) -> Vec<Section> {
    match lang {
        Lang::Es => study
            .design
            .metodologia
            .iter()
            .map(|s| Section {
                titulo: s.titulo.clone(),
                parrafos: s.texto.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect(),
            })
            .collect(),
        Lang::En => methodology_en(study),
    }
}

/// The English methodology, written from the study's design (its prose is Spanish only).
fn methodology_en(study: &Study) -> Vec<Section> {
    let d = &study.design;
    let dates = run_dates(study);
    let dimensions: Vec<String> = d
        .dimensiones
        .iter()
        .map(|dim| format!("{} ({})", dim.etiqueta_en.to_lowercase(), dim.valores.join(", ")))
        .collect();
    let tier = |t: crate::model::Tier| match t {
        crate::model::Tier::Standard => "standard",
        crate::model::Tier::Advanced => "advanced",
    };
    let models: Vec<String> = d
        .modelos
        .iter()
        .map(|m| {
            let n = study.answers.iter().filter(|a| a.modelo == m.id).count();
            format!("{} ({}, {} tier, {n} answers)", m.nombre, m.proveedor, tier(m.nivel))
        })
        .collect();
    let mut sections = vec![
        Section {
            titulo: "Design and corpus".to_owned(),
            parrafos: vec![
                format!(
                    "The study gathers {} questions and {} answers, collected between {} and {}.",
                    study.questions.len(),
                    study.answers.len(),
                    long_date(&dates.desde, Lang::En),
                    long_date(&dates.hasta, Lang::En)
                ),
                format!("Each question is classified by {}.", dimensions.join("; ")),
                format!(
                    "Each question carries a model tier and is answered by the models of that tier: {}.",
                    models.join("; ")
                ),
                format!("{} brands are tracked, each with its aliases, exclusions and web domains.", study.brands.len()),
            ],
        },
        Section {
            titulo: "Brand and source detection".to_owned(),
            parrafos: vec![
                "A brand is mentioned in an answer when one of its names appears as a whole word, ignoring case and accents; when two aliases overlap the longer one wins, and occurrences inside an exclusion phrase do not count.".to_owned(),
                "Order of appearance is the position (1, 2, 3...) of the brand's first mention among the distinct brands of the answer; the average order is computed over the answers that mention the brand only, and published with its base (n order).".to_owned(),
                "Citation as a source: the answer cites a domain of the brand, or a subdomain of it, among its sources. Ghost citation: it cites it without naming the brand in the text.".to_owned(),
            ],
        },
        Section {
            titulo: "Agreement between models".to_owned(),
            parrafos: vec![
                "For each question and each pair of models that answered it, the Jaccard index of the sets of brands mentioned (intersection over union) is computed, together with whether the first brand matches.".to_owned(),
                "Pairs in which neither model names a brand are skipped and counted apart (column skipped). The mean per pair of models and the overall mean are published.".to_owned(),
            ],
        },
    ];
    let weighting = match &d.ponderacion {
        Some(w) => {
            let shares: Vec<String> = d
                .modelos
                .iter()
                .filter_map(|m| w.pesos.get(&m.id).map(|p| format!("{} {}", m.id, trim_number(*p))))
                .collect();
            vec![
                format!("Totals weight each model by its declared market share: {}.", shares.join("; ")),
                format!("Source of the shares (in Spanish): {}.", w.fuente),
                "Within each cell a model's answers share its weight, so each model contributes its weight whatever its number of answers. Agreement between models is not weighted.".to_owned(),
            ]
        }
        None => vec!["Every model weighs the same in every aggregate.".to_owned()],
    };
    sections.push(Section { titulo: "Model weighting".to_owned(), parrafos: weighting });
    sections
}

/// A weight as written by a person: no trailing zeros.
fn trim_number(value: f64) -> String {
    let text = format!("{value:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Definitions of the metrics the study's tables use, in `lang`.
fn metric_definitions(site: &Site<'_>, study: &Study, lang: Lang) -> Vec<MetricView> {
    let used = crate::render::metrics_used(study);
    site.content
        .metrics
        .iter()
        .filter(|m| used.contains(&m.id))
        .map(|m| MetricView {
            nombre: lang.pick(&m.nombre, &m.nombre_en).to_owned(),
            definicion: lang.pick(&m.definicion, &m.definicion_en).to_owned(),
            formula: lang.pick(&m.formula, &m.formula_en).to_owned(),
            escala: lang.pick(&m.escala, &m.escala_en).to_owned(),
        })
        .collect()
}

fn colophon(site: &Site<'_>, study: &Study, lang: Lang) -> String {
    let service = &site.content.service;
    let d = &study.design;
    match lang {
        Lang::Es => format!(
            "{} · {} · {}. Informe generado a partir del paquete de datos {} versión {}, publicado el {}: cada número sale de las mismas tablas que el JSON y la planilla del paquete. Contacto: {}.",
            service.nombre,
            service.editor,
            service.web,
            study.slug,
            d.version_paquete,
            long_date(&d.publicado, lang),
            service.contacto
        ),
        Lang::En => format!(
            "{} · {} · {}. Report generated from data package {} version {}, published {}: every number comes from the same tables as the package's JSON and spreadsheet. Contact: {}.",
            service.nombre_en,
            service.editor,
            service.web,
            study.slug,
            d.version_paquete,
            long_date(&d.publicado, lang),
            service.contacto
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_each_language() {
        assert_eq!(format_value(Some(0.4213), Unit::Percent, Lang::Es), "42,1");
        assert_eq!(format_value(Some(0.4213), Unit::Percent, Lang::En), "42.1");
        assert_eq!(format_value(Some(3.5167), Unit::Decimal2, Lang::Es), "3,52");
        assert_eq!(format_value(Some(-0.25), Unit::Signed2, Lang::En), "\u{2212}0.25");
        assert_eq!(format_value(Some(0.25), Unit::Signed2, Lang::Es), "+0,25");
        assert_eq!(format_value(Some(-0.0001), Unit::Decimal2, Lang::Es), "0,00");
        assert_eq!(format_value(Some(1834.4999), Unit::Whole, Lang::Es), "1834");
        assert_eq!(format_value(None, Unit::Percent, Lang::Es), "–");
    }

    #[test]
    fn dates_are_written_out() {
        assert_eq!(long_date("2026-03-10", Lang::Es), "10 de marzo de 2026");
        assert_eq!(long_date("2026-03-10", Lang::En), "10 March 2026");
        assert_eq!(long_date("marzo", Lang::En), "marzo");
    }

    #[test]
    fn axis_rounds_up_to_a_tick() {
        let (top, ticks) = axis(Metric::Mencion, 0.42);
        assert!((top - 0.5).abs() < 1e-9);
        assert_eq!(ticks.len(), 6);
        let (top, ticks) = axis(Metric::Protagonismo, 3.52);
        assert!((top - 4.0).abs() < 1e-9);
        assert_eq!(ticks.iter().map(|t| t.1).collect::<Vec<_>>(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        // Seven steps become eight, labelled every other one, so the last tick is the top.
        let (top, ticks) = axis(Metric::Protagonismo, 6.2);
        assert!((top - 8.0).abs() < 1e-9);
        assert_eq!(ticks.iter().map(|t| t.1).collect::<Vec<_>>(), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(ticks.last().map(|t| t.0), Some(1.0));
        let (top, _) = axis(Metric::Mencion, 1.0);
        assert!((top - 1.0).abs() < 1e-9);
        let (top, _) = axis(Metric::Mencion, 0.4);
        assert!((top - 0.4).abs() < 1e-9);
    }

    #[test]
    fn notes_are_translated() {
        let note = "Base: 600 respuestas (filtro: idioma = en). Modelos con igual peso.";
        assert_eq!(translate_note(note, Lang::En), "Base: 600 answers (filter: idioma = en). Models weigh equally.");
        assert_eq!(translate_note(note, Lang::Es), note);
    }
}
