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
    pub fila: String,
    pub columna: String,
    pub valor: Option<f64>,
    pub ic95: Option<(f64, f64)>,
}

/// What a finding says about two values it sets against each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Claim {
    /// They differ (the default).
    Diferencia,
    /// They are tied within the margin of error (a backing marked `empate`).
    Empate,
}

/// Two cells of one table that a finding sets against each other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub tabla: String,
    pub a: Side,
    pub b: Side,
    /// What the finding claims about them.
    pub afirma: Claim,
    /// `Some(true)`: the intervals do not overlap; `Some(false)`: they do; `None`: a side has
    /// no interval (fewer than two questions in its base).
    pub se_sostiene: Option<bool>,
    pub veredicto: String,
    pub veredicto_en: String,
}

impl Comparison {
    /// True when what the finding claims agrees with the verdict: a claimed difference that
    /// holds, or a claimed tie that does not.
    pub fn claim_is_supported(&self) -> bool {
        match self.afirma {
            Claim::Diferencia => self.se_sostiene == Some(true),
            Claim::Empate => self.se_sostiene != Some(true),
        }
    }

    fn new(tabla: &str, a: Side, b: Side, afirma: Claim) -> Comparison {
        let se_sostiene = match (a.ic95, b.ic95) {
            (Some(x), Some(y)) => Some(x.1 < y.0 || y.1 < x.0),
            _ => None,
        };
        let (veredicto, veredicto_en) = match se_sostiene {
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
            tabla: tabla.to_owned(),
            a,
            b,
            afirma,
            se_sostiene,
            veredicto: veredicto.to_owned(),
            veredicto_en: veredicto_en.to_owned(),
        }
    }

    /// `A01 Bayer/mencion 0,4404 [0,39–0,49] vs Roemmers/mencion …` for messages.
    pub fn describe(&self) -> String {
        let side = |s: &Side| {
            let value = s.valor.map_or("null".to_owned(), |v| v.to_string());
            let interval = s.ic95.map_or("sin intervalo".to_owned(), |(l, h)| format!("[{l}, {h}]"));
            format!("{} / {} = {value} {interval}", s.fila, s.columna)
        };
        format!("{}: {} frente a {}", self.tabla, side(&self.a), side(&self.b))
    }
}

/// Every comparison `finding` makes, in the order of its backings.
pub fn comparisons(study: &Study, finding: &Finding, tables: &[Table]) -> Vec<Comparison> {
    let mut found = Vec::new();
    for (i, first) in finding.respaldo.iter().enumerate() {
        for second in &finding.respaldo[i + 1..] {
            if first.tabla != second.tabla || first.contexto || second.contexto {
                continue;
            }
            // A change table's cells are judged one by one, by their own verdict
            // (`metrics::change::claims`), not against each other.
            if crate::metrics::change::is_change_table(&first.tabla) {
                continue;
            }
            let Some(table) = tables.iter().find(|t| t.id == first.tabla) else { continue };
            let same_column = first.columna == second.columna && first.fila != second.fila;
            let same_row_across =
                first.fila == second.fila && first.columna != second.columna && is_cross_table(study, &table.id);
            if !(same_column || same_row_across) {
                continue;
            }
            let (Some(a), Some(b)) =
                (side(table, &first.fila, &first.columna), side(table, &second.fila, &second.columna))
            else {
                continue;
            };
            let afirma = if first.empate || second.empate { Claim::Empate } else { Claim::Diferencia };
            found.push(Comparison::new(&table.id, a, b, afirma));
        }
    }
    found
}

/// A table whose value columns are one metric over several groups.
fn is_cross_table(study: &Study, table: &str) -> bool {
    study.design.analisis.iter().find(|spec| spec.id == table).is_some_and(|spec| {
        matches!(spec.tipo, TableKind::MarcaPorModelo | TableKind::MarcaPorDimension | TableKind::ModeloPorDimension)
    })
}

/// The cell as one side of a comparison; `None` when the column carries no interval.
fn side(table: &Table, fila: &str, columna: &str) -> Option<Side> {
    let (_, ic95) = table.uncertainty(fila, columna)?;
    Some(Side {
        fila: fila.to_owned(),
        columna: columna.to_owned(),
        valor: table.cell(fila, columna).and_then(|c| c.as_f64()),
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
            nombre: "marcas".into(),
            titulo: "t".into(),
            titulo_en: "t".into(),
            columnas: ["marca", "mencion", "mencion_n", "mencion_n_ef", "mencion_ic95", "n_orden"]
                .map(str::to_owned)
                .to_vec(),
            filas: rows
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
            nota: None,
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
        let side = |fila: &str| side(&t, fila, "mencion").unwrap_or_else(|| panic!("{fila}"));
        let d = Claim::Diferencia;
        assert_eq!(Comparison::new("A01", side("A"), side("B"), d).se_sostiene, Some(true));
        assert_eq!(Comparison::new("A01", side("B"), side("C"), d).se_sostiene, Some(false));
        assert_eq!(Comparison::new("A01", side("A"), side("D"), d).se_sostiene, None);
        // A claimed difference needs the verdict; a claimed tie needs its absence.
        assert!(Comparison::new("A01", side("A"), side("B"), d).claim_is_supported());
        assert!(!Comparison::new("A01", side("B"), side("C"), d).claim_is_supported());
        assert!(!Comparison::new("A01", side("A"), side("D"), d).claim_is_supported());
        assert!(Comparison::new("A01", side("B"), side("C"), Claim::Empate).claim_is_supported());
        assert!(!Comparison::new("A01", side("A"), side("B"), Claim::Empate).claim_is_supported());
        // Touching intervals overlap.
        let t = table(vec![("A", 0.5, Some((0.4, 0.6))), ("B", 0.3, Some((0.2, 0.4)))]);
        let (a, b) = (super::side(&t, "A", "mencion"), super::side(&t, "B", "mencion"));
        assert_eq!(
            a.zip(b).map(|(a, b)| Comparison::new("A01", a, b, Claim::Diferencia).se_sostiene),
            Some(Some(false))
        );
        // A count column is not a rate: no side.
        assert_eq!(super::side(&t, "A", "n_orden"), None);
    }
}
