//! The report's cover: the study's design at a glance and its headline figures.

use serde::Serialize;

use super::Lang;
use super::format::{Unit, format_value, long_date};
use super::tables::{brand_table, specs_and_tables};
use crate::metrics::analysis::{Cell, Table};
use crate::model::{Metric, Study, TableKind};
use crate::render::site::run_dates;

/// A headline number of the cover.
#[derive(Debug, Clone, Serialize)]
pub struct KeyFigure {
    pub etiqueta: String,
    pub valor: String,
    pub detalle: String,
}

/// Label/value pairs of the study's design, for the cover.
pub(super) fn design_facts(study: &Study, lang: Lang) -> Vec<[String; 2]> {
    let d = &study.design;
    let dates = run_dates(study);
    let fact = |es: &str, en: &str, value: String| [lang.pick(es, en).to_owned(), value];
    let mut facts = vec![
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
    ];
    if let (Some(previous), Some(counts)) = (study.previous.as_deref(), crate::metrics::change::question_counts(study))
    {
        let before = run_dates(previous);
        facts.push(fact(
            "Comparado con",
            "Compared with",
            match lang {
                Lang::Es => format!(
                    "la corrida anterior, {} – {} ({} preguntas compartidas)",
                    long_date(&before.desde, lang),
                    long_date(&before.hasta, lang),
                    counts.compartidas
                ),
                Lang::En => format!(
                    "the previous run, {} – {} ({} shared questions)",
                    long_date(&before.desde, lang),
                    long_date(&before.hasta, lang),
                    counts.compartidas
                ),
            },
        ));
    }
    facts
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

pub(super) fn key_figures(study: &Study, tables: &[Table], lang: Lang) -> Vec<KeyFigure> {
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
