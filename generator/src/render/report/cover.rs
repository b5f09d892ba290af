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
    #[serde(rename = "etiqueta")]
    pub label: String,
    #[serde(rename = "valor")]
    pub value: String,
    #[serde(rename = "detalle")]
    pub detail: String,
}

/// Label/value pairs of the study's design, for the cover.
pub(super) fn design_facts(study: &Study, lang: Lang) -> Vec<[String; 2]> {
    let d = &study.design;
    let dates = run_dates(study);
    let fact = |es: &str, en: &str, value: String| [lang.pick(es, en).to_owned(), value];
    let mut facts = vec![
        fact("Industria", "Industry", format!("{} · {}", d.industry, d.subindustry)),
        fact("País", "Country", d.country.join(", ")),
        fact("Idiomas de las preguntas", "Question languages", d.language.join(", ")),
        fact("Corrida", "Fieldwork", format!("{} – {}", long_date(&dates.since, lang), long_date(&dates.until, lang))),
        fact("Preguntas", "Questions", study.questions.len().to_string()),
        fact("Respuestas", "Answers", study.answers.len().to_string()),
        fact("Modelos", "Models", d.models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")),
        fact("Marcas seguidas", "Tracked brands", study.brands.len().to_string()),
        fact(
            "Ponderación",
            "Weighting",
            match &d.weighting {
                Some(_) => lang.pick("por cuota de mercado de cada modelo", "by each model's market share").to_owned(),
                None => lang.pick("todos los modelos pesan lo mismo", "every model weighs the same").to_owned(),
            },
        ),
        fact("Versión del paquete", "Package version", d.package_version.clone()),
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
                    long_date(&before.since, lang),
                    long_date(&before.until, lang),
                    counts.shared
                ),
                Lang::En => format!(
                    "the previous run, {} – {} ({} shared questions)",
                    long_date(&before.since, lang),
                    long_date(&before.until, lang),
                    counts.shared
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
        label: lang.pick("Respuestas analizadas", "Answers analysed").to_owned(),
        value: study.answers.len().to_string(),
        detail: match lang {
            Lang::Es => format!("{} preguntas, {} modelos", study.questions.len(), study.design.models.len()),
            Lang::En => format!("{} questions, {} models", study.questions.len(), study.design.models.len()),
        },
    }];
    if let Some((_, table)) = brand_table(study, tables, Metric::Mention)
        && let Some((brand, value)) = best_row(table, Metric::Mention.id())
    {
        figures.push(KeyFigure {
            label: lang.pick("Marca más mencionada", "Most mentioned brand").to_owned(),
            value: match lang {
                Lang::Es => format!("{} %", format_value(Some(value), Unit::Percent, lang)),
                Lang::En => format!("{}%", format_value(Some(value), Unit::Percent, lang)),
            },
            detail: match lang {
                Lang::Es => format!("{brand}, tasa de mención ({})", table.id),
                Lang::En => format!("{brand}, mention rate ({})", table.id),
            },
        });
    }
    if let Some((_, table)) = brand_table(study, tables, Metric::Prominence)
        && let Some((brand, value)) = best_row(table, Metric::Prominence.id())
    {
        figures.push(KeyFigure {
            label: lang.pick("Mayor Protagonismo IA", "Highest AI Prominence").to_owned(),
            value: format_value(Some(value), Unit::Decimal2, lang),
            detail: match lang {
                Lang::Es => format!("{brand}, sobre 10 ({})", table.id),
                Lang::En => format!("{brand}, out of 10 ({})", table.id),
            },
        });
    }
    let concentration = specs_and_tables(study, tables)
        .find(|(s, _)| s.kind == TableKind::Concentration && s.dimension.is_none() && s.filter.is_empty());
    if let Some((_, table)) = concentration
        && let Some(value) = table.cell("total", "hhi_sov").and_then(Cell::as_f64)
    {
        figures.push(KeyFigure {
            label: lang.pick("Concentración (HHI)", "Concentration (HHI)").to_owned(),
            value: format_value(Some(value), Unit::Whole, lang),
            detail: match lang {
                Lang::Es => format!("sobre share of voice, de 0 a 10.000 ({})", table.id),
                Lang::En => format!("on share of voice, 0 to 10,000 ({})", table.id),
            },
        });
    }
    figures
}
