//! The finding about tone: how the assistants speak of the brands they name.

use super::*;

pub(super) fn tono(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::Tono)?;
    let mut cand: Vec<(f64, String)> = filas(t)
        .into_iter()
        .filter(|f| t.cell(f, "n_tono").and_then(Cell::as_f64).unwrap_or(0.0) >= 15.0)
        .filter_map(|f| Some((t.cell(&f, "tono_neto")?.as_f64()?, f)))
        .collect();
    cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (_, peor) = cand.first()?.clone();
    let (_, mejor) = cand.last()?.clone();
    let tn = r.dato(t, &peor, "tono_neto", 2, false)?;
    let neg = r.dato(t, &peor, "neg", 0, false)?;
    let n = r.dato(t, &peor, "n_tono", 0, false)?;
    let tm = r.dato(t, &mejor, "tono_neto", 2, false)?;
    let veredicto = r.se_distinguen(t, (&peor, "tono_neto"), (&mejor, "tono_neto"));
    let (extremo, extremo_en) = if veredicto == Some(true) {
        let sig_en = SIGNIFICATIVA.1;
        (
            format!(
                "En el otro extremo, {mejor} tiene el tono más favorable ({}): la distancia entre las dos es significativa al 95 %.",
                tm.es()
            ),
            format!("At the other end, {mejor} has the most favourable tone ({}), a difference {sig_en}.", tm.en()),
        )
    } else {
        r.empate(&[tn, tm]);
        let (sup, sup_en) = superpuestos(veredicto);
        (
            format!(
                "En el otro extremo, {mejor} tiene el tono más favorable ({}), aunque los dos extremos están empatados dentro del margen de error ({sup}).",
                tm.es()
            ),
            format!(
                "At the other end, {mejor} has the most favourable tone ({}), though the two ends are tied within the margin of error ({sup_en}).",
                tm.en()
            ),
        )
    };
    let id = r.study.brands.iter().find(|b| b.nombre == peor)?.id.clone();
    let mut ev = r.evidencia(3, |i| r.study.answers[i].tono.get(&id) == Some(&Tone::Neg));
    if ev.is_empty() {
        ev = r.evidencia(2, |i| r.study.answers[i].tono.contains_key(&id));
    }
    r.cerrar(
        "tono",
        TONO,
        format!(
            "{peor} recibe el tono neto más bajo ({}): {} de sus {} menciones etiquetadas son negativas, sobre todo por las advertencias que acompañan la recomendación. {extremo}",
            tn.es(),
            neg.es(),
            n.es(),
        ),
        format!(
            "{peor} gets the lowest net tone ({}): {} of its {} labelled mentions are negative, mostly because of caveats attached to the recommendation. {extremo_en}",
            tn.en(),
            neg.en(),
            n.en(),
        ),
        ev,
    );
    Some(())
}
