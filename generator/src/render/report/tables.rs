//! The analysis tables and the findings as a report prints them, every cell formatted.
//!
//! Tables are the package's own, paired with the specs they were computed from; each finding
//! shows the table cells that back its numbers, looked up in the same tables.

use serde::Serialize;

use super::Lang;
use super::format::{Unit, column_label, column_unit, format_cell, format_value, translate_note};
use crate::metrics::analysis::{Cell, Table};
use crate::metrics::compare;
use crate::model::{Metric, Study, TableKind, TableSpec};

/// An analysis table with the spec it was computed from.
pub(super) type SpecAndTable<'a> = (&'a TableSpec, &'a Table);

/// The analysis tables of a study paired with the specs they were computed from.
pub(super) fn specs_and_tables<'a>(study: &'a Study, tables: &'a [Table]) -> impl Iterator<Item = SpecAndTable<'a>> {
    study.design.analyses.iter().zip(tables)
}

/// The whole-study brand table (kind `marcas`, no filter) that has `metric`.
pub(super) fn brand_table<'a>(study: &'a Study, tables: &'a [Table], metric: Metric) -> Option<SpecAndTable<'a>> {
    specs_and_tables(study, tables)
        .find(|(s, _)| s.kind == TableKind::Brands && s.filter.is_empty() && s.metrics.contains(&metric))
}

/// The whole-study brand-by-model table of `metric`.
pub(super) fn by_model_table<'a>(study: &'a Study, tables: &'a [Table], metric: Metric) -> Option<SpecAndTable<'a>> {
    specs_and_tables(study, tables)
        .find(|(s, _)| s.kind == TableKind::BrandByModel && s.filter.is_empty() && s.metrics == [metric])
}

#[derive(Debug, Clone, Serialize)]
pub struct TableView {
    pub id: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "nota")]
    pub note: String,
    /// The table's columns without the companions of rates and means (`_n`, `_n_ef`,
    /// `_ic95`): the interval is printed under its value instead.
    #[serde(rename = "columnas")]
    pub columns: Vec<String>,
    /// `true` for columns of numbers (right-aligned).
    #[serde(rename = "numericas")]
    pub numeric: Vec<bool>,
    #[serde(rename = "filas")]
    pub rows: Vec<Vec<String>>,
    /// Per cell, the 95% interval printed under the value (`None` for other cells).
    #[serde(rename = "intervalos")]
    pub intervals: Vec<Vec<Option<String>>>,
    /// Index of the row holding the total, if any (set in bold).
    #[serde(rename = "fila_total")]
    pub total_row: Option<usize>,
}

pub(super) fn table_view(study: &Study, spec: &TableSpec, table: &Table, lang: Lang) -> TableView {
    let shown: Vec<(usize, &String)> =
        table.columns.iter().enumerate().filter(|(_, c)| !table.is_companion(c)).collect();
    let units: Vec<Unit> = shown.iter().map(|(i, c)| column_unit(spec, c, *i == 0)).collect();
    let interval_columns: Vec<Option<usize>> =
        shown.iter().map(|(_, c)| table.columns.iter().position(|other| *other == format!("{c}_ic95"))).collect();
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| {
            shown
                .iter()
                .zip(&units)
                .map(|((i, _), unit)| {
                    let text = row.get(*i).map_or_else(|| "–".to_owned(), |cell| format_cell(cell, *unit, lang));
                    let is_key = *i == 0 || (spec.kind == TableKind::Agreement && (*i == 1 || *i == 2));
                    if is_key { display_key(study, &text) } else { text }
                })
                .collect()
        })
        .collect();
    let intervals = table
        .rows
        .iter()
        .map(|row| {
            interval_columns
                .iter()
                .zip(&units)
                .map(|(column, unit)| match column.and_then(|c| row.get(c)) {
                    Some(cell @ Cell::Interval(..)) => Some(format_cell(cell, *unit, lang)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let total_row = table.row_keys().position(|k| k == "total");
    TableView {
        id: table.id.clone(),
        title: lang.pick(&table.title, &table.title_en).to_owned(),
        note: translate_note(table.note.as_deref().unwrap_or(""), lang),
        columns: shown.iter().map(|(i, c)| column_label(study, spec, c, *i == 0, lang)).collect(),
        numeric: units.iter().map(|u| !matches!(u, Unit::Text)).collect(),
        rows,
        intervals,
        total_row,
    }
}

/// A row key as a reader sees it: model ids, and "a vs b" pairs of them, by their names.
pub fn display_key(study: &Study, key: &str) -> String {
    let name = |id: &str| study.design.models.iter().find(|m| m.id == id).map(|m| m.name.clone());
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

#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    pub id: String,
    #[serde(rename = "seccion")]
    pub section: String,
    #[serde(rename = "texto")]
    pub text: String,
    /// Table, row, column label, the computed value and its 95% interval ("–" when the
    /// cell has none), formatted as in the tables.
    #[serde(rename = "respaldo")]
    pub backing: Vec<[String; 5]>,
    /// Each comparison the finding makes, with its verdict at 95%.
    #[serde(rename = "comparaciones")]
    pub comparisons: Vec<String>,
    #[serde(rename = "evidencia")]
    pub evidence: String,
}

/// The findings with their backing cells, looked up in the analysis tables or, for a change
/// finding, in the change tables (where a difference and its interval print signed).
pub(super) fn findings(study: &Study, tables: &[Table], changes: &[Table], lang: Lang) -> Vec<FindingView> {
    study
        .findings
        .iter()
        .map(|f| FindingView {
            id: f.id.clone(),
            section: match lang {
                Lang::Es => f.section.clone(),
                Lang::En => finding_kind_en(&f.kind),
            },
            text: lang.pick(&f.text, &f.text_en).to_owned(),
            backing: f
                .backing
                .iter()
                .map(|b| {
                    let found = specs_and_tables(study, tables).find(|(_, t)| t.id == b.table);
                    let (column, value, interval) = match found {
                        Some((spec, table)) => {
                            let first = table.columns.first().is_some_and(|c| *c == b.column);
                            let unit = column_unit(spec, &b.column, first);
                            let value = table.cell(&b.row, &b.column).and_then(Cell::as_f64);
                            let interval = match table.uncertainty(&b.row, &b.column) {
                                Some((_, Some((low, high)))) => format_cell(&Cell::Interval(low, high), unit, lang),
                                _ => "–".to_owned(),
                            };
                            (
                                column_label(study, spec, &b.column, first, lang),
                                format_value(value, unit, lang),
                                interval,
                            )
                        }
                        None => match changes.iter().find(|t| t.id == b.table) {
                            Some(table) => change_backing(table, &b.row, &b.column, lang),
                            None => (b.column.clone(), "–".to_owned(), "–".to_owned()),
                        },
                    };
                    [b.table.clone(), display_key(study, &b.row), column, value, interval]
                })
                .collect(),
            comparisons: compare::comparisons(study, f, tables)
                .iter()
                .map(|c| {
                    let side = |s: &compare::Side| {
                        format!("{} ({})", display_key(study, &s.row), display_key(study, &s.column))
                    };
                    let claim = match (c.claims, lang) {
                        (compare::Claim::Difference, Lang::Es) => "se afirma una diferencia",
                        (compare::Claim::Difference, Lang::En) => "a difference is claimed",
                        (compare::Claim::Tie, Lang::Es) => "se afirma un empate",
                        (compare::Claim::Tie, Lang::En) => "a tie is claimed",
                    };
                    let verdict = lang.pick(&c.verdict, &c.verdict_en);
                    format!("{} {} {}: {claim}. {verdict}", side(&c.a), lang.pick("frente a", "against"), side(&c.b))
                })
                .collect(),
            evidence: f.evidence.join(", "),
        })
        .collect()
}

/// A change table's backing cell: its column label, value and interval (a difference signed).
fn change_backing(table: &Table, row: &str, column: &str, lang: Lang) -> (String, String, String) {
    let Some((metric, part)) =
        crate::metrics::change::METRICS.iter().find_map(|m| Some((*m, column.strip_prefix(m.id())?)))
    else {
        return (column.to_owned(), "–".to_owned(), "–".to_owned());
    };
    let unit = super::format::metric_unit(metric);
    let name = super::format::column_label_plain(metric.id(), lang);
    let value = table.cell(row, column).and_then(Cell::as_f64);
    let (label, text) = match part {
        "_anterior" => (format!("{name}: {}", lang.pick("anterior", "previous")), format_value(value, unit, lang)),
        "_actual" => (format!("{name}: {}", lang.pick("actual", "current")), format_value(value, unit, lang)),
        "_diferencia" => (
            format!("{name}: {}", lang.pick("diferencia", "difference")),
            value.map_or_else(|| "–".to_owned(), |v| super::format::signed(v, unit, lang)),
        ),
        _ => (column.to_owned(), value.map_or_else(|| "–".to_owned(), |v| format_value(Some(v), unit, lang))),
    };
    let interval = match table.uncertainty(row, column) {
        Some((_, Some((low, high)))) => super::format::signed_interval(low, high, unit, lang),
        _ => "–".to_owned(),
    };
    let suffix = if unit == Unit::Percent { " (%)" } else { "" };
    (format!("{label}{suffix}"), text, interval)
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
        "cambio" => "Change since the previous run",
        other => other,
    };
    name.to_owned()
}
