//! The finding about tone: how the assistants speak of the brands they name.

use super::*;

pub(super) fn tone(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = r.table(|s| s.kind == TableKind::Tone)?;
    let mut candidates: Vec<(f64, String)> = rows(t)
        .into_iter()
        .filter(|f| t.cell(f, "n_tono").and_then(Cell::as_f64).unwrap_or(0.0) >= 15.0)
        .filter_map(|f| Some((t.cell(&f, "tono_neto")?.as_f64()?, f)))
        .collect();
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (_, worst) = candidates.first()?.clone();
    let (_, best) = candidates.last()?.clone();
    let tn = r.figure(t, &worst, "tono_neto", 2, false)?;
    let neg = r.figure(t, &worst, "neg", 0, false)?;
    let n = r.figure(t, &worst, "n_tono", 0, false)?;
    let tm = r.figure(t, &best, "tono_neto", 2, false)?;
    let verdict = r.distinguishable(t, (&worst, "tono_neto"), (&best, "tono_neto"));
    let (other_end, other_end_en) = if verdict == Some(true) {
        let sig_en = SIGNIFICANT.1;
        (
            format!(
                "En el otro extremo, {best} tiene el tono más favorable ({}): la distancia entre las dos es significativa al 95 %.",
                tm.es()
            ),
            format!("At the other end, {best} has the most favourable tone ({}), a difference {sig_en}.", tm.en()),
        )
    } else {
        r.mark_tied(&[tn, tm]);
        let (sup, sup_en) = overlapping(verdict);
        (
            format!(
                "En el otro extremo, {best} tiene el tono más favorable ({}), aunque los dos extremos están empatados dentro del margen de error ({sup}).",
                tm.es()
            ),
            format!(
                "At the other end, {best} has the most favourable tone ({}), though the two ends are tied within the margin of error ({sup_en}).",
                tm.en()
            ),
        )
    };
    let id = r.study.brands.iter().find(|b| b.name == worst)?.id.clone();
    let mut ev = r.evidence(3, |i| r.study.answers[i].tone.get(&id) == Some(&Tone::Neg));
    if ev.is_empty() {
        ev = r.evidence(2, |i| r.study.answers[i].tone.contains_key(&id));
    }
    r.finish(
        "tono",
        TONE,
        format!(
            "{worst} recibe el tono neto más bajo ({}): {} de sus {} menciones etiquetadas son negativas, sobre todo por las advertencias que acompañan la recomendación. {other_end}",
            tn.es(),
            neg.es(),
            n.es(),
        ),
        format!(
            "{worst} gets the lowest net tone ({}): {} of its {} labelled mentions are negative, mostly because of caveats attached to the recommendation. {other_end_en}",
            tn.en(),
            neg.en(),
            n.en(),
        ),
        ev,
    );
    Some(())
}
