//! The report's change section: each brand's change since the previous run, drawn with its
//! 95% interval.
//!
//! Only a study that names its previous run has it. Every number is a cell of the change
//! tables the package carries (`cambio_*`, [`crate::metrics::change`]): per brand, the value
//! in each run, the difference as a dot and its multiplicity-adjusted interval as a bar around
//! a zero line, and the verdict (which follows that interval: [`crate::metrics::multiplicity`]). The whole-study table is drawn for every metric it compares; the per-model and
//! per-tier tables for the mention rate. The geometry (positions on a symmetric axis around
//! zero) is computed here so the template only draws.

use serde::Serialize;

use super::Lang;
use super::charts::Tick;
use super::format::{Unit, format_value, long_date, metric_unit, signed, signed_interval};
use crate::metrics::analysis::{Cell, Table};
use crate::metrics::change::{self, FELL, GREW, METRICS, NO_CHANGE};
use crate::metrics::multiplicity::Family;
use crate::model::{Metric, Study};

/// The section: heading, how to read it, one panel per table and metric.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeSection {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "parrafos")]
    pub paragraphs: Vec<String>,
    /// Column headings of every panel: brand, previous, current, difference [95% CI], verdict.
    #[serde(rename = "columnas")]
    pub columns: [String; 5],
    #[serde(rename = "paneles")]
    pub panels: Vec<ChangePanel>,
}

/// One change table and metric: a row per brand.
#[derive(Debug, Clone, Serialize)]
pub struct ChangePanel {
    #[serde(rename = "titulo")]
    pub title: String,
    /// The table, its scope note and how the axis reads.
    #[serde(rename = "fuente")]
    pub source: String,
    /// Ticks of the difference axis, symmetric around zero (at 0.5).
    #[serde(rename = "eje")]
    pub axis: Vec<Tick>,
    #[serde(rename = "filas")]
    pub rows: Vec<ChangeRow>,
}

/// One brand's change in one metric.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeRow {
    #[serde(rename = "marca")]
    pub brand: String,
    #[serde(rename = "anterior")]
    pub previous: String,
    pub actual: String,
    /// The difference, signed, in the metric's unit (percentage points for rates).
    #[serde(rename = "diferencia")]
    pub difference: String,
    /// Its 95% interval, `[low – high]` signed, or an en dash.
    pub ic95: String,
    #[serde(rename = "veredicto")]
    pub verdict: String,
    pub color: &'static str,
    /// The difference on the axis (0 to 1), when there is one.
    #[serde(rename = "punto")]
    pub point: Option<f64>,
    /// The interval on the axis (low, high), when there is one.
    #[serde(rename = "barra")]
    pub bar: Option<(f64, f64)>,
}

const GREW_COLOUR: &str = "#00785A";
const FELL_COLOUR: &str = "#C24E1C";
const NEUTRAL_COLOUR: &str = "#5B6770";

/// The change section of `study`'s report, from its change tables (`None` without a
/// previous run).
pub(super) fn section(study: &Study, changes: &[Table], family: Option<&Family>, lang: Lang) -> Option<ChangeSection> {
    let family = family?;
    let spec = study.design.previous_run.as_ref()?;
    let previous = study.previous.as_deref()?;
    let counts = change::question_counts(study)?;
    let total = changes.iter().find(|t| t.id == format!("{}total", change::PREFIX))?;
    let mut panels: Vec<ChangePanel> = METRICS.iter().map(|&m| panel(total, m, lang)).collect();
    panels.extend(changes.iter().filter(|t| t.id != total.id).map(|t| panel(t, Metric::Mention, lang)));
    let dates = crate::render::site::run_dates(previous);
    let (from, to) = (dates.since.as_str(), dates.until.as_str());
    let models = spec.models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ");
    let paragraphs = match lang {
        Lang::Es => vec![
            format!(
                "Este estudio se compara con su corrida anterior: {} Se hizo del {} al {}, con {models}, y dio {} respuestas. La comparación usa las {} preguntas que comparten las dos corridas (el mismo id); las {} agregadas desde entonces y las {} retiradas quedan fuera.",
                spec.description,
                long_date(from, lang),
                long_date(to, lang),
                previous.answers.len(),
                counts.shared,
                counts.added,
                counts.withdrawn
            ),
            "Cada fila es una marca: su valor en la corrida anterior y en la actual, y la diferencia (actual − anterior) como un punto, con su intervalo de confianza como una barra alrededor de la línea del cero. El intervalo empareja las dos corridas por pregunta (las mismas preguntas hechas otra vez) y tiene en cuenta que las respuestas a una misma pregunta se parecen. Si la barra no cruza el cero, el cambio es mayor que el ruido de volver a preguntarle a un asistente que no responde siempre igual: «creció» o «cayó»; si lo cruza, «sin cambio más allá del ruido». En las tasas la diferencia está en puntos porcentuales. En el orden de aparición, menor es mejor: «creció» quiere decir que la marca aparece más tarde.".to_owned(),
            format!(
                "El estudio prueba {} celdas (marca, métrica y tabla con al menos 10 preguntas en su base) y con tantas comparaciones algunas cruzarían el cero por azar: al 95 % cada una, {} celdas dirían «creció» o «cayó». Por eso los veredictos controlan la tasa de falsos descubrimientos en el 5 % (Benjamini–Hochberg) sobre todas las celdas juntas, y la barra es el intervalo ajustado al {} % (Benjamini–Yekutieli), que deja fuera del cero solo los {} cambios que quedan. Las celdas con menos de 10 preguntas quedan sin veredicto. Los intervalos al 95 % sin ajuste y el valor p de cada celda están en las tablas cambio_* del paquete.",
                family.tests,
                family.unadjusted,
                level_text(family.level, lang),
                family.discoveries
            ),
            "El primer grupo compara todos los modelos de cada corrida, en las siete métricas. Los siguientes comparan la tasa de mención del mismo modelo preguntado en las dos corridas, o de un nivel cuyo modelo cambió (el título dice cuál reemplazó a cuál). Cada número es una celda de las tablas cambio_* del paquete de datos, que tienen además las bases y las demás métricas por modelo.".to_owned(),
        ],
        Lang::En => vec![
            format!(
                "This study is compared with its previous run: {} It ran from {} to {}, with {models}, and gave {} answers. The comparison uses the {} questions both runs share (the same id); the {} added since and the {} retired are left out.",
                spec.description_en,
                long_date(from, lang),
                long_date(to, lang),
                previous.answers.len(),
                counts.shared,
                counts.added,
                counts.withdrawn
            ),
            "Each row is a brand: its value in the previous run and in the current one, and the difference (current − previous) as a dot, with its confidence interval as a bar around the zero line. The interval pairs the two runs by question (the same questions asked again) and allows for answers to one question being alike. When the bar does not cross zero, the change is larger than the noise of asking an assistant that does not always answer the same way again: \"grew\" or \"fell\"; when it does, \"no change beyond the noise\". For rates the difference is in percentage points. In order of appearance lower is better: \"grew\" means the brand appears later.".to_owned(),
            format!(
                "The study tests {} cells (brand, metric and table with at least 10 questions in their base), and with so many comparisons some would cross zero by chance: at 95% each, {} cells would say \"grew\" or \"fell\". So the verdicts control the false discovery rate at 5% (Benjamini–Hochberg) over all the cells together, and the bar is the interval adjusted to {}% (Benjamini–Yekutieli), which leaves out of zero only the {} changes that remain. Cells with fewer than 10 questions get no verdict. The unadjusted 95% intervals and each cell's p-value are in the package's cambio_* tables.",
                family.tests,
                family.unadjusted,
                level_text(family.level, lang),
                family.discoveries
            ),
            "The first group compares all models of each run, in the seven metrics. The next ones compare the mention rate of the same model asked in both runs, or of a tier whose model changed (the title says which replaced which). Every number is a cell of the package's cambio_* tables, which also carry the bases and the other metrics by model.".to_owned(),
        ],
    };
    Some(ChangeSection {
        title: lang.pick("Cambio desde la corrida anterior", "Change since the previous run").to_owned(),
        paragraphs,
        columns: match lang {
            Lang::Es => ["Marca", "Anterior", "Actual", "Diferencia [IC ajustado]", "Veredicto"],
            Lang::En => ["Brand", "Previous", "Current", "Difference [adjusted CI]", "Verdict"],
        }
        .map(str::to_owned),
        panels,
    })
}

/// What the report says of a cell with a 95% interval but too few questions to be tested.
const FEW: &str = "pocas preguntas";

/// The verdict in `lang`, and its colour.
pub fn verdict_words(verdict: &str, lang: Lang) -> (&'static str, &'static str) {
    match verdict {
        GREW => (lang.pick("creció", "grew"), GREW_COLOUR),
        FELL => (lang.pick("cayó", "fell"), FELL_COLOUR),
        NO_CHANGE => (lang.pick("sin cambio más allá del ruido", "no change beyond the noise"), NEUTRAL_COLOUR),
        FEW => (lang.pick("pocas preguntas, sin veredicto", "too few questions, no verdict"), NEUTRAL_COLOUR),
        _ => (lang.pick("sin intervalo", "no interval"), NEUTRAL_COLOUR),
    }
}

fn metric_name(metric: Metric, lang: Lang) -> &'static str {
    match metric {
        Metric::Mention => lang.pick("Tasa de mención", "Mention rate"),
        Metric::Order => lang.pick("Orden promedio de aparición", "Average order of appearance"),
        Metric::Citation => lang.pick("Citación como fuente", "Citation as a source"),
        Metric::PhantomCitation => lang.pick("Citación fantasma", "Ghost citation"),
        Metric::ConsultedNotCited => lang.pick("Consultada y no citada", "Consulted, not cited"),
        Metric::Prominence => lang.pick("Protagonismo IA (0 a 10)", "AI Prominence, Protagonismo IA (0 to 10)"),
        Metric::Top1 => lang.pick("Top 1", "Top 1"),
        Metric::Sov => lang.pick("Participación de voz (share of voice)", "Share of voice"),
        Metric::NetTone => lang.pick("Tono neto (−1 a 1)", "Net tone (−1 to 1)"),
    }
}

/// A brand, its difference and the difference's 95% interval.
type BrandDifference<'a> = (&'a str, Option<f64>, Option<(f64, f64)>);

fn panel(table: &Table, metric: Metric, lang: Lang) -> ChangePanel {
    let unit = metric_unit(metric);
    let column = |suffix: &str| format!("{}{suffix}", metric.id());
    let number = |row: &str, suffix: &str| table.cell(row, &column(suffix)).and_then(Cell::as_f64);
    let rows: Vec<BrandDifference<'_>> = table
        .row_keys()
        .map(|brand| {
            let interval = match table.cell(brand, &column("_diferencia_ic_ajustado")) {
                Some(Cell::Interval(low, high)) => Some((*low, *high)),
                _ => None,
            };
            (brand, number(brand, "_diferencia"), interval)
        })
        .collect();
    let reach = rows.iter().flat_map(|(_, d, i)| [d.map(f64::abs), i.map(|i| i.0.abs().max(i.1.abs()))]).flatten();
    let top = axis_top(reach.fold(0.0, f64::max), unit);
    let at = |v: f64| (0.5 + v / (2.0 * top)).clamp(0.0, 1.0);
    let rows = rows
        .into_iter()
        .map(|(brand, difference, interval)| {
            let verdict = match table.cell(brand, &column("_veredicto")) {
                Some(Cell::Text(v)) => v.as_str(),
                // A 95% interval and no verdict: too few questions to test.
                _ if matches!(table.cell(brand, &column("_diferencia_ic95")), Some(Cell::Interval(..))) => FEW,
                _ => "",
            };
            let (verdict, color) = verdict_words(verdict, lang);
            ChangeRow {
                brand: brand.to_owned(),
                previous: format_value(number(brand, "_anterior"), unit, lang),
                actual: format_value(number(brand, "_actual"), unit, lang),
                difference: difference.map_or_else(|| "–".to_owned(), |d| signed(d, unit, lang)),
                ic95: interval.map_or_else(|| "–".to_owned(), |(l, h)| signed_interval(l, h, unit, lang)),
                verdict: verdict.to_owned(),
                color,
                point: difference.map(at),
                bar: interval.map(|(l, h)| (at(l), at(h))),
            }
        })
        .collect();
    let in_points = unit == Unit::Percent;
    let scope = lang.pick(&table.title, &table.title_en);
    let scope = scope.split_once(": ").map_or(scope, |(_, s)| s);
    ChangePanel {
        title: match (lang, in_points) {
            (Lang::Es, true) => format!("{}: {scope} (diferencia en puntos porcentuales)", metric_name(metric, lang)),
            (Lang::En, true) => format!("{}: {scope} (difference in percentage points)", metric_name(metric, lang)),
            _ => format!("{}: {scope}", metric_name(metric, lang)),
        },
        source: match lang {
            Lang::Es => format!(
                "Fuente: tabla {}, columnas {m}_anterior, {m}_actual, {m}_diferencia, {m}_diferencia_ic_ajustado y {m}_veredicto. {}",
                table.id,
                table.note.as_deref().unwrap_or(""),
                m = metric.id()
            ),
            Lang::En => format!(
                "Source: table {}, columns {m}_anterior (previous), {m}_actual (current), {m}_diferencia (difference), {m}_diferencia_ic_ajustado (adjusted interval) and {m}_veredicto (verdict). Base: the questions both runs share.",
                table.id,
                m = metric.id()
            ),
        },
        axis: [-1.0, -0.5, 0.0, 0.5, 1.0]
            .into_iter()
            .map(|f| Tick { fraction: 0.5 + f / 2.0, text: tick_text(f * top, unit, lang) })
            .collect(),
        rows,
    }
}

/// A confidence level as a percentage with the decimals it needs (99,98 / 99.98).
fn level_text(level: f64, lang: Lang) -> String {
    let mut text = format!("{:.4}", level * 100.0);
    while text.ends_with('0') {
        text.pop();
    }
    let text = text.trim_end_matches('.').to_owned();
    match lang {
        Lang::Es => text.replace('.', ","),
        Lang::En => text,
    }
}

/// Half the width of a symmetric difference axis: the smallest 1, 2 or 5 × 10^k at or above
/// `reach` (at least a tenth of a point for rates, a hundredth for scores).
fn axis_top(reach: f64, unit: Unit) -> f64 {
    let floor = if unit == Unit::Percent { 0.001 } else { 0.01 };
    let reach = reach.max(floor);
    let mut power = 10f64.powi(reach.log10().floor() as i32);
    loop {
        for step in [1.0, 2.0, 5.0] {
            // A relative margin keeps a reach of exactly 0.2 on 0.2, not 0.5.
            if step * power >= reach * (1.0 - 1e-9) {
                return step * power;
            }
        }
        power *= 10.0;
    }
}

/// A tick: percentage points for rates, the value for scores; the fewest decimals that show it.
fn tick_text(value: f64, unit: Unit, lang: Lang) -> String {
    let v = if unit == Unit::Percent { value * 100.0 } else { value };
    let mut text = format!("{v:.3}");
    while text.contains('.') && (text.ends_with('0') || text.ends_with('.')) {
        text.pop();
    }
    if text == "-0" {
        text = "0".to_owned();
    }
    let text = match text.strip_prefix('-') {
        Some(rest) => format!("\u{2212}{rest}"),
        None if text != "0" => format!("+{text}"),
        None => text,
    };
    match lang {
        Lang::Es => text.replace('.', ","),
        Lang::En => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_carry_their_sign() {
        assert_eq!(signed(0.091, Unit::Percent, Lang::Es), "+9,1");
        assert_eq!(signed(-0.0345, Unit::Percent, Lang::En), "\u{2212}3.5");
        assert_eq!(signed(0.0, Unit::Percent, Lang::Es), "0,0");
        assert_eq!(signed(-0.00001, Unit::Percent, Lang::Es), "0,0");
        assert_eq!(signed(0.25, Unit::Signed2, Lang::Es), "+0,25");
        assert_eq!(signed(-1.5, Unit::Decimal2, Lang::En), "\u{2212}1.50");
        assert_eq!(signed_interval(0.057, 0.128, Unit::Percent, Lang::Es), "[+5,7 – +12,8]");
    }

    #[test]
    fn the_axis_is_symmetric_and_reaches_every_bar() {
        assert!((axis_top(0.128, Unit::Percent) - 0.2).abs() < 1e-12);
        assert!((axis_top(0.2, Unit::Percent) - 0.2).abs() < 1e-12);
        assert!((axis_top(0.21, Unit::Percent) - 0.5).abs() < 1e-12);
        assert!((axis_top(0.0, Unit::Percent) - 0.001).abs() < 1e-12);
        assert!((axis_top(1.3, Unit::Decimal2) - 2.0).abs() < 1e-12);
        assert_eq!(tick_text(-0.1, Unit::Percent, Lang::Es), "\u{2212}10");
        assert_eq!(tick_text(0.025, Unit::Percent, Lang::En), "+2.5");
        assert_eq!(tick_text(0.0, Unit::Decimal2, Lang::Es), "0");
        assert_eq!(tick_text(0.5, Unit::Decimal2, Lang::Es), "+0,5");
    }

    #[test]
    fn a_panel_places_dot_and_bar_around_zero_with_the_verdict() {
        let mut columns = vec!["marca".to_owned()];
        for m in METRICS {
            columns.extend(change::COLUMNS.iter().map(|s| format!("{}{s}", m.id())));
        }
        let row = |brand: &str, before: f64, now: f64, ic: Option<(f64, f64)>, verdict: Option<&str>| {
            let mut r = vec![Cell::Text(brand.into())];
            for _ in METRICS {
                r.extend([
                    Cell::Num(before),
                    Cell::Int(100),
                    Cell::Num(now),
                    Cell::Int(100),
                    Cell::Num(change::published_difference(before, now)),
                    // The 95% interval (not drawn), the p-value, the adjusted interval (drawn).
                    ic.map_or(Cell::Null, |_| Cell::Interval(-9.0, 9.0)),
                    Cell::Num(0.5),
                    ic.map_or(Cell::Null, |(l, h)| Cell::Interval(l, h)),
                    verdict.map_or(Cell::Null, |v| Cell::Text(v.into())),
                ]);
            }
            r
        };
        let table = Table {
            id: "cambio_total".into(),
            name: String::new(),
            title: "Cambio desde la corrida anterior: todos los modelos".into(),
            title_en: "Change since the previous run: all models".into(),
            columns,
            rows: vec![
                row("A", 0.055, 0.146, Some((0.057, 0.128)), Some(GREW)),
                row("B", 0.30, 0.25, Some((-0.12, 0.02)), Some(NO_CHANGE)),
                row("C", 0.0, 0.0, None, None),
            ],
            note: None,
        };
        let p = panel(&table, Metric::Mention, Lang::Es);
        let title = p.title.clone();
        assert_eq!(title, "Tasa de mención: todos los modelos (diferencia en puntos porcentuales)");
        // The axis reaches ±0.2 (the widest bound, 0.128, rounds up to 0.2).
        assert_eq!(
            p.axis.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(),
            ["\u{2212}20", "\u{2212}10", "0", "+10", "+20"]
        );
        let a = &p.rows[0];
        assert_eq!((a.previous.as_str(), a.actual.as_str(), a.difference.as_str()), ("5,5", "14,6", "+9,1"));
        assert_eq!((a.ic95.as_str(), a.verdict.as_str(), a.color), ("[+5,7 – +12,8]", "creció", GREW_COLOUR));
        let (dot, (low, high)) = (a.point.unwrap_or_default(), a.bar.unwrap_or_default());
        assert!((dot - (0.5 + 0.091 / 0.4)).abs() < 1e-9);
        assert!((low - (0.5 + 0.057 / 0.4)).abs() < 1e-9 && (high - (0.5 + 0.128 / 0.4)).abs() < 1e-9);
        let b = &p.rows[1];
        assert!(b.bar.is_some_and(|(l, h)| l < 0.5 && h > 0.5), "the bar crosses the zero line");
        assert_eq!(b.verdict, "sin cambio más allá del ruido");
        let c = &p.rows[2];
        assert_eq!((c.ic95.as_str(), c.verdict.as_str(), c.bar), ("–", "sin intervalo", None));
        let p = panel(&table, Metric::Mention, Lang::En);
        assert_eq!(p.rows[0].verdict, "grew");
        assert_eq!(p.rows[0].ic95, "[+5.7 – +12.8]");
    }
}
