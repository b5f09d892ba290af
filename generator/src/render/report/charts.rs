//! The report's bar charts: mention rate and Protagonismo IA by brand and by model.
//!
//! The geometry (bar lengths as fractions of the axis, the ticks, each bar's 95% interval
//! as a whisker) is computed here so the template only draws; every value is read from a
//! whole-study analysis table.

use serde::Serialize;

use super::Lang;
use super::format::{Unit, column_unit, format_value, metric_unit, translate_note};
use super::tables::{brand_table, by_model_table};
use crate::metrics::analysis::{Cell, Table};
use crate::model::{Metric, ModelSpec, Study, TableSpec};

/// A horizontal bar chart: one group per row label, one bar per series in each group.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "fuente")]
    pub source: String,
    /// Legend entries (empty when there is a single series).
    pub series: Vec<Series>,
    /// Axis ticks, from 0 to the scale's maximum.
    #[serde(rename = "eje")]
    pub axis: Vec<Tick>,
    #[serde(rename = "grupos")]
    pub groups: Vec<BarGroup>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Series {
    #[serde(rename = "nombre")]
    pub name: String,
    pub color: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tick {
    /// Position on the axis, 0 to 1.
    #[serde(rename = "fraccion")]
    pub fraction: f64,
    #[serde(rename = "texto")]
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BarGroup {
    #[serde(rename = "etiqueta")]
    pub label: String,
    #[serde(rename = "barras")]
    pub bars: Vec<Bar>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Bar {
    /// Length as a fraction of the axis (0 to 1).
    #[serde(rename = "fraccion")]
    pub fraction: f64,
    #[serde(rename = "texto")]
    pub text: String,
    pub color: &'static str,
    /// The 95% interval as fractions of the axis (low, high), drawn as a whisker.
    #[serde(rename = "bigote")]
    pub whisker: Option<(f64, f64)>,
}

/// A cell's value and its 95% interval.
type ValueAndInterval = (Option<f64>, Option<(f64, f64)>);

/// A cell's value and 95% interval.
fn value_and_interval(table: &Table, row: &str, column: &str) -> ValueAndInterval {
    let value = table.cell(row, column).and_then(Cell::as_f64);
    let interval = table.uncertainty(row, column).and_then(|(_, ic95)| ic95);
    (value, interval)
}

fn whisker(interval: Option<(f64, f64)>, top: f64) -> Option<(f64, f64)> {
    interval.map(|(low, high)| (fraction(Some(low), top), fraction(Some(high), top)))
}

/// Colour of each series (Okabe–Ito, colour-blind safe), light and dark of one hue per provider.
const PALETTE: [&str; 8] = ["#56B4E9", "#0072B2", "#E5B94A", "#B07A00", "#E69A7A", "#C24E1C", "#8FCFB5", "#00785A"];
const BRAND_COLOUR: &str = "#1F3A5F";
/// Brands shown in a by-model chart.
const BRANDS_BY_MODEL: usize = 5;

pub(super) fn charts(study: &Study, tables: &[Table], lang: Lang) -> Vec<Chart> {
    let mut charts = Vec::new();
    for metric in [Metric::Mention, Metric::Prominence] {
        if let Some((spec, table)) = brand_table(study, tables, metric) {
            charts.push(brand_chart(spec, table, metric, lang));
        }
    }
    for metric in [Metric::Mention, Metric::Prominence] {
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
        Metric::Mention => lang.pick("Tasa de mención (%)", "Mention rate (%)"),
        Metric::Prominence => lang.pick("Protagonismo IA (0 a 10)", "AI Prominence, Protagonismo IA (0 to 10)"),
        _ => "",
    }
}

fn source_line(table: &Table, lang: Lang) -> String {
    match lang {
        Lang::Es => format!(
            "Fuente: tabla {}, {} Las líneas sobre las barras marcan el intervalo de confianza al 95 %.",
            table.id,
            translate_note(table.note.as_deref().unwrap_or(""), lang)
        ),
        Lang::En => format!(
            "Source: table {}, {} The lines over the bars mark the 95% confidence interval.",
            table.id,
            translate_note(table.note.as_deref().unwrap_or(""), lang)
        ),
    }
}

fn axis_ticks(ticks: &[(f64, f64)], unit: Unit, lang: Lang) -> Vec<Tick> {
    ticks
        .iter()
        .map(|(position, value)| Tick {
            fraction: *position,
            text: match unit {
                Unit::Percent => format!("{:.0}", value * 100.0),
                _ => format_value(Some(*value), Unit::Whole, lang),
            },
        })
        .collect()
}

fn brand_chart(spec: &TableSpec, table: &Table, metric: Metric, lang: Lang) -> Chart {
    let unit = column_unit(spec, metric.id(), false);
    let mut rows: Vec<(&str, ValueAndInterval)> =
        table.row_keys().map(|k| (k, value_and_interval(table, k, metric.id()))).collect();
    // Best first (the table is sorted by its first metric); ties keep the table order.
    rows.sort_by(|a, b| b.1.0.unwrap_or(f64::MIN).total_cmp(&a.1.0.unwrap_or(f64::MIN)));
    // The axis reaches the highest whisker, not only the highest bar.
    let max = rows.iter().flat_map(|r| [r.1.0, r.1.1.map(|i| i.1)]).flatten().fold(0.0, f64::max);
    let (top, ticks) = axis(metric, max);
    Chart {
        title: match lang {
            Lang::Es => format!("{} por marca", metric_title(metric, lang)),
            Lang::En => format!("{} by brand", metric_title(metric, lang)),
        },
        source: source_line(table, lang),
        series: Vec::new(),
        axis: axis_ticks(&ticks, unit, lang),
        groups: rows
            .into_iter()
            .map(|(brand, (value, interval))| BarGroup {
                label: brand.to_owned(),
                bars: vec![Bar {
                    fraction: fraction(value, top),
                    text: format_value(value, unit, lang),
                    color: BRAND_COLOUR,
                    whisker: whisker(interval, top),
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
    let models: Vec<(usize, &ModelSpec)> =
        study.design.models.iter().filter(|m| table.columns.contains(&m.id)).enumerate().collect();
    let brands: Vec<&str> = table.row_keys().take(BRANDS_BY_MODEL).collect();
    let max = brands
        .iter()
        .flat_map(|b| models.iter().map(move |(_, m)| value_and_interval(table, b, &m.id)))
        .flat_map(|(value, interval)| [value, interval.map(|i| i.1)])
        .flatten()
        .fold(0.0, f64::max);
    let (top, ticks) = axis(metric, max);
    let colour = |i: usize| PALETTE[i % PALETTE.len()];
    Chart {
        title: match lang {
            Lang::Es => format!(
                "{} por modelo, {} marcas con más {}",
                metric_title(metric, lang),
                brands.len(),
                if metric == Metric::Mention { "menciones" } else { "Protagonismo IA" }
            ),
            Lang::En => format!("{} by model, top {} brands", metric_title(metric, lang), brands.len()),
        },
        source: source_line(table, lang),
        series: models.iter().map(|(i, m)| Series { name: m.name.clone(), color: colour(*i) }).collect(),
        axis: axis_ticks(&ticks, unit, lang),
        groups: brands
            .iter()
            .map(|brand| BarGroup {
                label: (*brand).to_owned(),
                bars: models
                    .iter()
                    .map(|(i, m)| {
                        let (value, interval) = value_and_interval(table, brand, &m.id);
                        Bar {
                            fraction: fraction(value, top),
                            text: format_value(value, unit, lang),
                            color: colour(*i),
                            whisker: whisker(interval, top),
                        }
                    })
                    .collect(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_carry_their_interval_as_a_whisker_inside_the_axis() {
        use crate::model::TableKind;
        let spec = TableSpec {
            id: "A01".into(),
            name: "marcas".into(),
            title: "t".into(),
            title_en: "t".into(),
            kind: TableKind::Brands,
            metrics: vec![Metric::Mention],
            dimension: None,
            brand: None,
            filter: Default::default(),
            limit: None,
        };
        let row = |brand: &str, value: f64, interval: Option<(f64, f64)>| {
            vec![
                Cell::Text(brand.into()),
                Cell::Num(value),
                Cell::Int(40),
                Cell::Num(40.0),
                interval.map_or(Cell::Null, |(low, high)| Cell::Interval(low, high)),
            ]
        };
        let table = Table {
            id: "A01".into(),
            name: "marcas".into(),
            title: "t".into(),
            title_en: "t".into(),
            columns: ["marca", "mencion", "mencion_n", "mencion_n_ef", "mencion_ic95"].map(str::to_owned).to_vec(),
            rows: vec![row("A", 0.42, Some((0.3, 0.56))), row("B", 0.1, None)],
            note: None,
        };
        let chart = brand_chart(&spec, &table, Metric::Mention, Lang::Es);
        // The axis reaches the highest whisker (0.56 → 0.6), not only the highest bar.
        assert_eq!(chart.axis.last().map(|t| t.text.as_str()), Some("60"));
        let a = &chart.groups[0].bars[0];
        let (low, high) = a.whisker.unwrap_or_default();
        assert!((low - 0.5).abs() < 1e-9 && (high - 0.56 / 0.6).abs() < 1e-9 && (a.fraction - 0.7).abs() < 1e-9);
        assert_eq!(chart.groups[1].bars[0].whisker, None);
        assert!(chart.source.contains("intervalo de confianza al 95 %"));
    }

    #[test]
    fn axis_rounds_up_to_a_tick() {
        let (top, ticks) = axis(Metric::Mention, 0.42);
        assert!((top - 0.5).abs() < 1e-9);
        assert_eq!(ticks.len(), 6);
        let (top, ticks) = axis(Metric::Prominence, 3.52);
        assert!((top - 4.0).abs() < 1e-9);
        assert_eq!(ticks.iter().map(|t| t.1).collect::<Vec<_>>(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        // Seven steps become eight, labelled every other one, so the last tick is the top.
        let (top, ticks) = axis(Metric::Prominence, 6.2);
        assert!((top - 8.0).abs() < 1e-9);
        assert_eq!(ticks.iter().map(|t| t.1).collect::<Vec<_>>(), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(ticks.last().map(|t| t.0), Some(1.0));
        let (top, _) = axis(Metric::Mention, 1.0);
        assert!((top - 1.0).abs() < 1e-9);
        let (top, _) = axis(Metric::Mention, 0.4);
        assert!((top - 0.4).abs() < 1e-9);
    }
}
