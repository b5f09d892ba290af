//! How a report writes numbers, dates and column headings in each language.
//!
//! A rate is a percentage with one decimal, a score two decimals, HHI a whole number; Spanish
//! takes the decimal comma, English the point; an undefined value is an en dash. The table
//! notes the metrics stage writes in Spanish are translated here for the English report.

use crate::metrics::analysis::Cell;
use crate::model::{Metric, Study, TableKind, TableSpec};

use super::Lang;

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

pub(super) fn format_cell(cell: &Cell, unit: Unit, lang: Lang) -> String {
    match cell {
        Cell::Text(t) => t.clone(),
        Cell::Int(n) => n.to_string(),
        Cell::Num(x) if unit == Unit::Text || unit == Unit::Count => format_value(Some(*x), Unit::Decimal2, lang),
        Cell::Num(x) => format_value(Some(*x), unit, lang),
        Cell::Interval(low, high) => {
            format!("[{} – {}]", format_value(Some(*low), unit, lang), format_value(Some(*high), unit, lang))
        }
        Cell::Null => "–".to_owned(),
    }
}

pub(super) fn metric_unit(metric: Metric) -> Unit {
    match metric {
        Metric::Mention
        | Metric::Citation
        | Metric::PhantomCitation
        | Metric::ConsultedNotCited
        | Metric::Top1
        | Metric::Sov => Unit::Percent,
        Metric::Order | Metric::Prominence => Unit::Decimal2,
        Metric::NetTone => Unit::Signed2,
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
    // The companions of a rate or mean: its base is a count, its effective size a decimal;
    // its interval (`_ic95`) is in the unit of the value it accompanies.
    if column.ends_with("_n") {
        return Unit::Count;
    }
    if column.ends_with("_n_ef") {
        return Unit::Decimal2;
    }
    if let Some(value) = column.strip_suffix("_ic95") {
        return column_unit(spec, value, false);
    }
    match column {
        "n_orden" | "n_tono" | "respuestas" | "marcas_distintas" | "preguntas" | "omitidas" | "pares" | "omitidos"
        | "pos" | "neu" | "neg" => Unit::Count,
        "con_marca" | "top1_lider" | "tasa" | "top1_coincide" => Unit::Percent,
        "hhi_sov" | "hhi_top1" => Unit::Whole,
        "jaccard" => Unit::Decimal2,
        "lider" | "modelo_a" | "modelo_b" | "marca" | "dominio" => Unit::Text,
        // Crossed tables: one column per model or dimension value, plus the total.
        _ => match (spec.kind, spec.metrics.as_slice()) {
            (TableKind::BrandByModel | TableKind::BrandByDimension | TableKind::ModelByDimension, [metric]) => {
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

/// A metric's column header in `lang`, without a unit (`Mención`, `Top 1`).
pub(super) fn column_label_plain(metric_id: &str, lang: Lang) -> &'static str {
    match metric_id {
        "mencion" => lang.pick("Mención", "Mention"),
        "orden" => lang.pick("Orden prom.", "Avg. order"),
        "citacion" => lang.pick("Citación", "Citation"),
        "citacion_fantasma" => lang.pick("Cit. fantasma", "Ghost cit."),
        "consultada_no_citada" => lang.pick("Consult. no cit.", "Consult. uncited"),
        "protagonismo" => lang.pick("Protagonismo IA", "AI Prominence"),
        "top1" => "Top 1",
        "sov" => "Share of voice",
        "tono_neto" => lang.pick("Tono neto", "Net tone"),
        _ => "",
    }
}

/// A column header in `lang`: metric names, model names, translated fixed columns.
pub(super) fn column_label(study: &Study, spec: &TableSpec, column: &str, first: bool, lang: Lang) -> String {
    let unit = column_unit(spec, column, first);
    let base = match column {
        "marca" => lang.pick("Marca", "Brand"),
        "mencion" => lang.pick("Mención", "Mention"),
        "orden" => lang.pick("Orden prom.", "Avg. order"),
        "n_orden" => lang.pick("n orden", "n order"),
        "citacion" => lang.pick("Citación", "Citation"),
        "citacion_fantasma" => lang.pick("Cit. fantasma", "Ghost cit."),
        "consultada_no_citada" => lang.pick("Consult. no cit.", "Consult. uncited"),
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
        "pares" => lang.pick("Pares de repeticiones", "Repetition pairs"),
        "omitidos" => lang.pick("Omitidos", "Skipped"),
        "jaccard" => "Jaccard",
        "top1_coincide" => lang.pick("Coincide Top 1", "Top-1 match"),
        "pos" => lang.pick("Positivas", "Positive"),
        "neu" => lang.pick("Neutras", "Neutral"),
        "neg" => lang.pick("Negativas", "Negative"),
        "dominio" => lang.pick("Dominio", "Domain"),
        "tasa" => lang.pick("Tasa", "Rate"),
        other => match study.design.models.iter().find(|m| m.id == other) {
            Some(model) => model.name.as_str(),
            // A column of a table cut by surface: the surface's name.
            None if spec.dimension.as_deref() == Some(crate::model::SURFACE_DIMENSION) => {
                crate::surfaces::known(other).map_or(other, |s| lang.pick(s.name, s.name_en))
            }
            None => other,
        },
    };
    format!("{base}{}", unit_suffix(unit))
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

/// The Spanish scope note of a table, in `lang` (the phrases [`crate::metrics::analysis`] writes).
pub(super) fn translate_note(note: &str, lang: Lang) -> String {
    let mut text = note.to_owned();
    if lang == Lang::En {
        for (es, en) in [
            (
                "Promedio simple por pregunta; se omiten los pares en que ningún modelo nombra una marca.",
                "Simple mean over questions; pairs where neither model names a brand are skipped.",
            ),
            (
                "Consultada y no citada: no registrada (ninguna respuesta de la tabla registra las fuentes que consultó el proveedor; la columna queda vacía, no en 0).",
                "Consulted, not cited: not recorded (no answer in the table records the sources the provider consulted; the column is empty, not 0).",
            ),
            ("Consultada y no citada: sobre las ", "Consulted, not cited: over the "),
            (
                " respuestas que registran las fuentes que consultó el proveedor (vacía donde ninguna las registra).",
                " answers that record the sources the provider consulted (empty where none does).",
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

/// A difference in `unit`, with its sign: `+9,1`, `−0,25`, `0,0`.
pub fn signed(value: f64, unit: Unit, lang: Lang) -> String {
    let text = format_value(Some(value), unit, lang);
    if text.starts_with(['+', '\u{2212}']) || text.trim_start_matches(['0', '.', ',']).is_empty() {
        text
    } else {
        format!("+{text}")
    }
}

/// A difference's 95% interval, `[low – high]`, each bound signed.
pub fn signed_interval(low: f64, high: f64, unit: Unit, lang: Lang) -> String {
    format!("[{} – {}]", signed(low, unit, lang), signed(high, unit, lang))
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
    fn notes_are_translated() {
        let note = "Base: 600 respuestas (filtro: idioma = en). Modelos con igual peso.";
        assert_eq!(translate_note(note, Lang::En), "Base: 600 answers (filter: idioma = en). Models weigh equally.");
        assert_eq!(translate_note(note, Lang::Es), note);
    }
}
