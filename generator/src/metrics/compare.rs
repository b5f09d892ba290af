//! Comparisons a finding makes, and whether each difference holds at 95%.
//!
//! A finding compares two values when two of its backing cells come from the same table and
//! either share the column (brand against brand, model against model in the concentration or
//! agreement tables) or share the row in a cross table (one column per model or dimension
//! value). The difference holds when the two 95% intervals do not overlap: conservative (two
//! intervals that touch count as overlapping), and simple enough for a buyer to check by eye.
//! The package publishes every verdict and `generator check` warns about each one that does
//! not hold, so no finding claims a difference the data do not support.

use serde::Serialize;

use crate::metrics::analysis::Table;
use crate::model::{Finding, Study, TableKind};

/// One side of a comparison: a published cell and its interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    #[serde(rename = "fila")]
    pub row: String,
    #[serde(rename = "columna")]
    pub column: String,
    #[serde(rename = "valor")]
    pub value: Option<f64>,
    pub ic95: Option<(f64, f64)>,
}

/// What a finding says about two values it sets against each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Claim {
    /// They differ (the default).
    #[serde(rename = "diferencia")]
    Difference,
    /// They are tied within the margin of error (a backing marked `empate`).
    #[serde(rename = "empate")]
    Tie,
}

/// Two cells of one table that a finding sets against each other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    #[serde(rename = "tabla")]
    pub table: String,
    pub a: Side,
    pub b: Side,
    /// What the finding claims about them.
    #[serde(rename = "afirma")]
    pub claims: Claim,
    /// `Some(true)`: the intervals do not overlap; `Some(false)`: they do; `None`: a side has
    /// no interval (fewer than two questions in its base).
    #[serde(rename = "se_sostiene")]
    pub holds: Option<bool>,
    #[serde(rename = "veredicto")]
    pub verdict: String,
    #[serde(rename = "veredicto_en")]
    pub verdict_en: String,
}

impl Comparison {
    /// True when what the finding claims agrees with the verdict: a claimed difference that
    /// holds, or a claimed tie that does not.
    pub fn claim_is_supported(&self) -> bool {
        match self.claims {
            Claim::Difference => self.holds == Some(true),
            Claim::Tie => self.holds != Some(true),
        }
    }

    fn new(table: &str, a: Side, b: Side, claims: Claim) -> Comparison {
        let holds = match (a.ic95, b.ic95) {
            (Some(x), Some(y)) => Some(x.1 < y.0 || y.1 < x.0),
            _ => None,
        };
        let (verdict, verdict_en) = match holds {
            Some(true) => (
                "La diferencia se sostiene al 95 %: los intervalos no se superponen.",
                "The difference holds at 95%: the intervals do not overlap.",
            ),
            Some(false) => (
                "La diferencia no se sostiene al 95 %: los intervalos se superponen.",
                "The difference does not hold at 95%: the intervals overlap.",
            ),
            None => (
                "Sin veredicto: uno de los valores no tiene intervalo (menos de dos preguntas en su base).",
                "No verdict: one of the values has no interval (fewer than two questions in its base).",
            ),
        };
        Comparison {
            table: table.to_owned(),
            a,
            b,
            claims,
            holds,
            verdict: verdict.to_owned(),
            verdict_en: verdict_en.to_owned(),
        }
    }

    /// `A01 Bayer/mencion 0,4404 [0,39–0,49] vs Roemmers/mencion …` for messages.
    pub fn describe(&self) -> String {
        let side = |s: &Side| {
            let value = s.value.map_or("null".to_owned(), |v| v.to_string());
            let interval = s.ic95.map_or("sin intervalo".to_owned(), |(l, h)| format!("[{l}, {h}]"));
            format!("{} / {} = {value} {interval}", s.row, s.column)
        };
        format!("{}: {} frente a {}", self.table, side(&self.a), side(&self.b))
    }
}

/// Every comparison `finding` makes, in the order of its backings.
pub fn comparisons(study: &Study, finding: &Finding, tables: &[Table]) -> Vec<Comparison> {
    let mut found = Vec::new();
    for (i, first) in finding.backing.iter().enumerate() {
        for second in &finding.backing[i + 1..] {
            if first.table != second.table || first.context || second.context {
                continue;
            }
            // A change table's cells are judged one by one, by their own verdict
            // (`metrics::change::claims`), not against each other.
            if crate::metrics::change::is_change_table(&first.table) {
                continue;
            }
            let Some(table) = tables.iter().find(|t| t.id == first.table) else { continue };
            let same_column = first.column == second.column && first.row != second.row;
            let same_row_across =
                first.row == second.row && first.column != second.column && is_cross_table(study, &table.id);
            if !(same_column || same_row_across) {
                continue;
            }
            let (Some(a), Some(b)) = (side(table, &first.row, &first.column), side(table, &second.row, &second.column))
            else {
                continue;
            };
            let claims = if first.tie || second.tie { Claim::Tie } else { Claim::Difference };
            found.push(Comparison::new(&table.id, a, b, claims));
        }
    }
    found
}

/// A table whose value columns are one metric over several groups.
fn is_cross_table(study: &Study, table: &str) -> bool {
    study.design.analyses.iter().find(|spec| spec.id == table).is_some_and(|spec| {
        matches!(spec.kind, TableKind::BrandByModel | TableKind::BrandByDimension | TableKind::ModelByDimension)
    })
}

/// The cell as one side of a comparison; `None` when the column carries no interval.
fn side(table: &Table, row: &str, column: &str) -> Option<Side> {
    let (_, ic95) = table.uncertainty(row, column)?;
    Some(Side {
        row: row.to_owned(),
        column: column.to_owned(),
        value: table.cell(row, column).and_then(|c| c.as_f64()),
        ic95,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::analysis::Cell;

    /// A row: brand, mention rate, its interval.
    type Row<'a> = (&'a str, f64, Option<(f64, f64)>);

    fn table(rows: Vec<Row<'_>>) -> Table {
        Table {
            id: "A01".into(),
            name: "marcas".into(),
            title: "t".into(),
            title_en: "t".into(),
            columns: ["marca", "mencion", "mencion_n", "mencion_n_ef", "mencion_ic95", "n_orden"]
                .map(str::to_owned)
                .to_vec(),
            rows: rows
                .into_iter()
                .map(|(name, value, ic)| {
                    vec![
                        Cell::Text(name.into()),
                        Cell::Num(value),
                        Cell::Int(100),
                        Cell::Num(100.0),
                        ic.map_or(Cell::Null, |(l, h)| Cell::Interval(l, h)),
                        Cell::Int(3),
                    ]
                })
                .collect(),
            note: None,
        }
    }

    #[test]
    fn overlapping_intervals_do_not_hold_and_separate_ones_do() {
        let t = table(vec![
            ("A", 0.44, Some((0.39, 0.49))),
            ("B", 0.29, Some((0.25, 0.33))),
            ("C", 0.27, Some((0.23, 0.31))),
            ("D", 0.1, None),
        ]);
        let side = |row: &str| side(&t, row, "mencion").unwrap_or_else(|| panic!("{row}"));
        let d = Claim::Difference;
        assert_eq!(Comparison::new("A01", side("A"), side("B"), d).holds, Some(true));
        assert_eq!(Comparison::new("A01", side("B"), side("C"), d).holds, Some(false));
        assert_eq!(Comparison::new("A01", side("A"), side("D"), d).holds, None);
        // A claimed difference needs the verdict; a claimed tie needs its absence.
        assert!(Comparison::new("A01", side("A"), side("B"), d).claim_is_supported());
        assert!(!Comparison::new("A01", side("B"), side("C"), d).claim_is_supported());
        assert!(!Comparison::new("A01", side("A"), side("D"), d).claim_is_supported());
        assert!(Comparison::new("A01", side("B"), side("C"), Claim::Tie).claim_is_supported());
        assert!(!Comparison::new("A01", side("A"), side("B"), Claim::Tie).claim_is_supported());
        // Touching intervals overlap.
        let t = table(vec![("A", 0.5, Some((0.4, 0.6))), ("B", 0.3, Some((0.2, 0.4)))]);
        let (a, b) = (super::side(&t, "A", "mencion"), super::side(&t, "B", "mencion"));
        assert_eq!(a.zip(b).map(|(a, b)| Comparison::new("A01", a, b, Claim::Difference).holds), Some(Some(false)));
        // A count column is not a rate: no side.
        assert_eq!(super::side(&t, "A", "n_orden"), None);
    }
}
