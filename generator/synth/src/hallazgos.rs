//! Findings computed from the study's own analysis tables.
//!
//! A finding is only worth publishing if a buyer can check it: every number in its text is
//! read from a computed table cell, rounded once, printed from that rounded value and
//! declared in `respaldo` with the same value and decimals. Evidence ids point at answers
//! that show the fact (the leader named first, the domain cited, the two models that
//! disagree on the same question).

use generator::metrics::analysis::{Cell, Table};
use generator::metrics::mentions::{host_matches, host_of};
use generator::model::{Backing, Finding, Metric, Study, TableKind, Tone};

use crate::industria::Industria;

const VISIBILIDAD: &str = "Visibilidad de marcas";
const MODELOS: &str = "Diferencias entre modelos";
const FUENTES: &str = "Fuentes";
const TONO: &str = "Tono";

/// A number as a finding states it: rounded value, decimals, and how to print it.
#[derive(Clone, Copy)]
struct Dato {
    valor: f64,
    dec: u32,
    pct: bool,
}

impl Dato {
    fn es(&self) -> String {
        formatear(self, true)
    }
    fn en(&self) -> String {
        formatear(self, false)
    }
}

fn formatear(d: &Dato, es: bool) -> String {
    let (v, dec) = if d.pct { (d.valor * 100.0, d.dec.saturating_sub(2)) } else { (d.valor, d.dec) };
    let neg = v < 0.0;
    let s = format!("{:.*}", dec as usize, v.abs());
    let (ent, frac) = match s.split_once('.') {
        Some((a, b)) => (a.to_owned(), Some(b.to_owned())),
        None => (s, None),
    };
    let (miles, coma) = if es { ('.', ',') } else { (',', '.') };
    // Spanish keeps four-digit numbers together ("2345"); English groups them ("2,345").
    let agrupar = ent.len() > 4 || (!es && ent.len() == 4);
    let mut agrupado = String::new();
    for (i, c) in ent.chars().enumerate() {
        if agrupar && i > 0 && (ent.len() - i) % 3 == 0 {
            agrupado.push(miles);
        }
        agrupado.push(c);
    }
    let mut out = String::new();
    if neg {
        out.push('−');
    }
    out.push_str(&agrupado);
    if let Some(f) = frac {
        out.push(coma);
        out.push_str(&f);
    }
    if d.pct {
        out.push_str(if es { " %" } else { "%" });
    }
    out
}

/// Rounds to `dec` decimals, adding one when the value sits too close to a half unit.
fn redondear(v: f64, dec: u32) -> (f64, u32) {
    let mut d = dec;
    loop {
        let f = 10f64.powi(d as i32);
        let r = (v * f).round() / f;
        if (r - v).abs() <= 0.499 / f || d >= 4 {
            return (if r == 0.0 { 0.0 } else { r }, d);
        }
        d += 1;
    }
}

/// Collects findings and their backings.
struct Redactor<'a> {
    study: &'a Study,
    tablas: &'a [Table],
    ordenes: &'a [Vec<usize>],
    hallazgos: Vec<Finding>,
    respaldo: Vec<Backing>,
}

impl<'a> Redactor<'a> {
    fn tabla(&self, pred: impl Fn(&generator::model::TableSpec) -> bool) -> Option<&'a Table> {
        let spec = self.study.design.analisis.iter().find(|s| s.filtro.is_empty() && pred(s))?;
        self.tablas.iter().find(|t| t.id == spec.id)
    }

    /// Reads a cell, rounds it and records the backing.
    fn dato(&mut self, t: &Table, fila: &str, columna: &str, dec: u32, pct: bool) -> Option<Dato> {
        let v = t.cell(fila, columna)?.as_f64()?;
        let (valor, dec) = redondear(v, dec);
        self.respaldo.push(Backing {
            tabla: t.id.clone(),
            fila: fila.into(),
            columna: columna.into(),
            valor,
            decimales: dec,
            contexto: false,
            empate: false,
        });
        Some(Dato { valor, dec, pct })
    }

    fn cerrar(&mut self, tipo: &str, seccion: &str, texto: String, texto_en: String, evidencia: Vec<String>) {
        let respaldo = std::mem::take(&mut self.respaldo);
        self.hallazgos.push(Finding {
            id: format!("H{:02}", self.hallazgos.len() + 1),
            tipo: tipo.into(),
            seccion: seccion.into(),
            texto,
            texto_en,
            respaldo,
            evidencia,
        });
    }

    fn descartar(&mut self) {
        self.respaldo.clear();
    }

    fn marca_idx(&self, nombre: &str) -> Option<usize> {
        self.study.brands.iter().position(|b| b.nombre == nombre)
    }

    fn modelo_de(&self, i: usize) -> &str {
        &self.study.answers[i].modelo
    }

    /// Up to `n` answers matching `pred`, spread over the study (one per question).
    fn evidencia(&self, n: usize, pred: impl Fn(usize) -> bool) -> Vec<String> {
        let candidatas: Vec<usize> = (0..self.study.answers.len()).filter(|&i| pred(i)).collect();
        if candidatas.is_empty() {
            return Vec::new();
        }
        let paso = (candidatas.len() / n).max(1);
        let mut out: Vec<String> = Vec::new();
        let mut vistas: Vec<&str> = Vec::new();
        for &i in candidatas.iter().step_by(paso) {
            let a = &self.study.answers[i];
            if vistas.contains(&a.pregunta.as_str()) {
                continue;
            }
            vistas.push(&a.pregunta);
            out.push(a.id.clone());
            if out.len() == n {
                break;
            }
        }
        out
    }
}

fn texto_celda(t: &Table, fila: &str, columna: &str) -> Option<String> {
    match t.cell(fila, columna)? {
        Cell::Text(s) => Some(s.clone()),
        _ => None,
    }
}

fn filas(t: &Table) -> Vec<String> {
    t.row_keys().map(str::to_owned).collect()
}

/// Builds 5–10 findings from the computed tables of a study.
pub(crate) fn hallazgos(_ind: &Industria, study: &Study, tablas: &[Table], ordenes: &[Vec<usize>]) -> Vec<Finding> {
    let mut r = Redactor { study, tablas, ordenes, hallazgos: Vec::new(), respaldo: Vec::new() };
    liderazgo(&mut r);
    brecha(&mut r);
    por_dimension(&mut r);
    preferencia_de_modelo(&mut r);
    ausencia(&mut r);
    concentracion(&mut r);
    divergencia(&mut r);
    fuentes(&mut r);
    fantasma(&mut r);
    tono(&mut r);
    r.hallazgos.truncate(10);
    r.hallazgos
}

/// How the top-1 gap compares with the mention gap.
enum PrimerLugar {
    Amplia,
    Achica,
    Invierte,
}

fn tabla_marcas<'a>(r: &Redactor<'a>) -> Option<&'a Table> {
    r.tabla(|s| s.tipo == TableKind::Marcas && s.metricas.first() == Some(&Metric::Mencion))
}

fn liderazgo(r: &mut Redactor<'_>) -> Option<()> {
    let t = tabla_marcas(r)?;
    let lider = filas(t).first()?.clone();
    let li = r.marca_idx(&lider)?;
    let m = r.dato(t, &lider, "mencion", 2, true)?;
    let p = r.dato(t, &lider, "protagonismo", 1, false)?;
    let ev = r.evidencia(3, |i| r.ordenes[i].first() == Some(&li));
    r.cerrar(
        "liderazgo",
        VISIBILIDAD,
        format!(
            "{lider} es la marca más mencionada por los asistentes: aparece en el {} de las respuestas, con un Protagonismo IA de {} sobre 10.",
            m.es(),
            p.es()
        ),
        format!(
            "{lider} is the brand the assistants mention most: it appears in {} of answers, with an AI Prominence score of {} out of 10.",
            m.en(),
            p.en()
        ),
        ev,
    );
    Some(())
}

fn brecha(r: &mut Redactor<'_>) -> Option<()> {
    let t = tabla_marcas(r)?;
    let fs = filas(t);
    let (l, s) = (fs.first()?.clone(), fs.get(1)?.clone());
    let (li, si) = (r.marca_idx(&l)?, r.marca_idx(&s)?);
    // When the rounded mention rates tie, one more decimal tells them apart.
    let dec = match (t.cell(&l, "mencion").and_then(Cell::as_f64), t.cell(&s, "mencion").and_then(Cell::as_f64)) {
        (Some(a), Some(b)) if redondear(a, 2).0 == redondear(b, 2).0 => 3,
        _ => 2,
    };
    let (Some(m1), Some(m2), Some(t1), Some(t2)) = (
        r.dato(t, &l, "mencion", dec, true),
        r.dato(t, &s, "mencion", dec, true),
        r.dato(t, &l, "top1", 2, true),
        r.dato(t, &s, "top1", 2, true),
    ) else {
        r.descartar();
        return None;
    };
    let primer_lugar = if t2.valor > t1.valor {
        PrimerLugar::Invierte
    } else if t1.valor - t2.valor > m1.valor - m2.valor {
        PrimerLugar::Amplia
    } else {
        PrimerLugar::Achica
    };
    let ev = r.evidencia(2, |i| {
        let o = &r.ordenes[i];
        o.first() == Some(&si) && o.contains(&li)
    });
    let mut ev2 = r.evidencia(1, |i| {
        let o = &r.ordenes[i];
        o.first() == Some(&li) && o.contains(&si)
    });
    ev2.extend(ev);
    if ev2.is_empty() {
        // The two never share an answer (e.g. shoes and watches): show one of each.
        ev2 = r.evidencia(1, |i| r.ordenes[i].first() == Some(&li));
        ev2.extend(r.evidencia(1, |i| r.ordenes[i].first() == Some(&si)));
    }
    r.cerrar(
        "brecha",
        VISIBILIDAD,
        format!(
            "{s} es la principal retadora: la mencionan el {} de las respuestas, frente al {} de {l}. {}",
            m2.es(),
            m1.es(),
            match primer_lugar {
                PrimerLugar::Amplia => format!("En el primer lugar la distancia crece: {l} abre el {} de las respuestas con marca y {s}, el {}.", t1.es(), t2.es()),
                PrimerLugar::Achica => format!("En el primer lugar la distancia se achica: {l} abre el {} de las respuestas con marca y {s}, el {}.", t1.es(), t2.es()),
                PrimerLugar::Invierte => format!("Pero en el primer lugar el orden se invierte: {s} abre el {} de las respuestas con marca y {l}, el {}.", t2.es(), t1.es()),
            }
        ),
        format!(
            "{s} is the main challenger: {} of answers mention it, against {} for {l}. {}",
            m2.en(),
            m1.en(),
            match primer_lugar {
                PrimerLugar::Amplia => format!("The gap widens at the top: {l} comes first in {} of answers that name a brand, {s} in {}.", t1.en(), t2.en()),
                PrimerLugar::Achica => format!("The gap narrows at the top: {l} comes first in {} of answers that name a brand, {s} in {}.", t1.en(), t2.en()),
                PrimerLugar::Invierte => format!("But the order flips at the top: {s} comes first in {} of answers that name a brand, {l} in {}.", t2.en(), t1.en()),
            }
        ),
        ev2,
    );
    Some(())
}

fn por_dimension(r: &mut Redactor<'_>) -> Option<()> {
    let spec =
        r.study.design.analisis.iter().find(|s| s.tipo == TableKind::MarcaPorDimension && s.filtro.is_empty())?;
    let t = r.tablas.iter().find(|t| t.id == spec.id)?;
    let metric = *spec.metricas.first()?;
    let dim_id = spec.dimension.clone()?;
    let dim = r.study.design.dimensiones.iter().find(|d| d.id == dim_id)?;
    let lider_total = filas(t).first()?.clone();
    // The dimension value whose leader differs most from the overall leader.
    let mut mejor: Option<(f64, String, String)> = None;
    for valor in &dim.valores {
        let mut top: Option<(f64, String)> = None;
        for fila in filas(t) {
            if let Some(v) = t.cell(&fila, valor).and_then(Cell::as_f64)
                && top.as_ref().is_none_or(|(x, _)| v > *x)
            {
                top = Some((v, fila));
            }
        }
        let Some((v, fila)) = top else { continue };
        let lider_v = t.cell(&lider_total, valor).and_then(Cell::as_f64).unwrap_or(0.0);
        let margen = if fila == lider_total { -1.0 } else { v - lider_v };
        if mejor.as_ref().is_none_or(|(m, _, _)| margen > *m) {
            mejor = Some((margen, valor.clone(), fila));
        }
    }
    let (_, valor, marca) = mejor?;
    let (pct, dec, nombre, nombre_en, simple) = match metric {
        Metric::Protagonismo => (false, 1, "el mayor Protagonismo IA", "AI Prominence", "Protagonismo IA"),
        _ => (true, 2, "la mayor tasa de mención", "mention rate", "tasa de mención"),
    };
    let x = r.dato(t, &marca, &valor, dec, pct)?;
    let etiqueta = dim.etiqueta.to_lowercase();
    let etiqueta_en = dim.etiqueta_en.to_lowercase();
    let (texto, texto_en) = if marca == lider_total {
        (
            format!(
                "{marca} lidera en todos los valores de {etiqueta}; en «{valor}», por ejemplo, su {simple} es {}.",
                x.es()
            ),
            format!("{marca} leads in every {etiqueta_en}; in “{valor}”, for instance, its {nombre_en} is {}.", x.en()),
        )
    } else {
        let y = r.dato(t, &lider_total, &valor, dec, pct)?;
        (
            format!(
                "El liderazgo cambia según {etiqueta}: en «{valor}», {marca} tiene {nombre} ({}), por encima de {lider_total} ({}), que lidera el total.",
                x.es(),
                y.es()
            ),
            format!(
                "Leadership shifts with {etiqueta_en}: in “{valor}”, {marca} has the highest {nombre_en} ({}), ahead of {lider_total} ({}), the overall leader.",
                x.en(),
                y.en()
            ),
        )
    };
    let mi = r.marca_idx(&marca)?;
    let preguntas: std::collections::BTreeSet<&str> = r
        .study
        .questions
        .iter()
        .filter(|q| q.dimension(&dim_id) == Some(valor.as_str()))
        .map(|q| q.id.as_str())
        .collect();
    let ev = r.evidencia(2, |i| {
        r.ordenes[i].first() == Some(&mi) && preguntas.contains(r.study.answers[i].pregunta.as_str())
    });
    r.cerrar("liderazgo", VISIBILIDAD, texto, texto_en, ev);
    Some(())
}

fn preferencia_de_modelo(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::MarcaPorModelo && s.metricas.first() == Some(&Metric::Protagonismo))?;
    let lider = filas(t).first()?.clone();
    let modelos: Vec<String> = r.study.design.modelos.iter().map(|m| m.id.clone()).collect();
    let mut mejor: Option<(f64, String, String)> = None;
    for m in &modelos {
        let mut top: Option<(f64, String)> = None;
        for fila in filas(t) {
            if let Some(v) = t.cell(&fila, m).and_then(Cell::as_f64)
                && top.as_ref().is_none_or(|(x, _)| v > *x)
            {
                top = Some((v, fila));
            }
        }
        let Some((v, fila)) = top else { continue };
        if fila == lider {
            continue;
        }
        let lv = t.cell(&lider, m).and_then(Cell::as_f64).unwrap_or(0.0);
        if mejor.as_ref().is_none_or(|(x, _, _)| v - lv > *x) {
            mejor = Some((v - lv, m.clone(), fila));
        }
    }
    let (_, modelo, marca) = mejor?;
    let x = r.dato(t, &marca, &modelo, 1, false)?;
    let y = r.dato(t, &lider, &modelo, 1, false)?;
    let z = r.dato(t, &lider, "total", 1, false)?;
    let ponderado = r.study.design.ponderacion.is_some();
    let mi = r.marca_idx(&marca)?;
    let ev = r.evidencia(3, |i| r.modelo_de(i) == modelo && r.ordenes[i].first() == Some(&mi));
    r.cerrar(
        "divergencia",
        MODELOS,
        format!(
            "{modelo} favorece a {marca}: en ese modelo su Protagonismo IA es {}, por encima de {lider} ({}), que en el total {}de los seis modelos lidera con {}.",
            x.es(),
            y.es(),
            if ponderado { "ponderado " } else { "" },
            z.es()
        ),
        format!(
            "{modelo} favours {marca}: its AI Prominence there is {}, ahead of {lider} ({}), which leads the {}total of the six models with {}.",
            x.en(),
            y.en(),
            if ponderado { "weighted " } else { "" },
            z.en()
        ),
        ev,
    );
    Some(())
}

fn ausencia(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::MarcaPorModelo && s.metricas.first() == Some(&Metric::Mencion))?;
    let modelos: Vec<String> = r.study.design.modelos.iter().map(|m| m.id.clone()).collect();
    // The (brand, model) with the lowest mention relative to the brand's total.
    let mut peor: Option<(f64, String, String)> = None;
    for fila in filas(t) {
        let Some(total) = t.cell(&fila, "total").and_then(Cell::as_f64) else {
            continue;
        };
        if total < 0.08 {
            continue;
        }
        for m in &modelos {
            let Some(v) = t.cell(&fila, m).and_then(Cell::as_f64) else {
                continue;
            };
            let ratio = v / total;
            if peor.as_ref().is_none_or(|(x, _, _)| ratio < *x) {
                peor = Some((ratio, fila.clone(), m.clone()));
            }
        }
    }
    let (_, marca, modelo) = peor?;
    let x = r.dato(t, &marca, &modelo, 2, true)?;
    let tot = r.dato(t, &marca, "total", 2, true)?;
    let mi = r.marca_idx(&marca)?;
    let mut ev = r.evidencia(2, |i| {
        let o = &r.ordenes[i];
        r.modelo_de(i) == modelo && o.len() >= 3 && !o.contains(&mi)
    });
    if ev.is_empty() {
        ev = r.evidencia(2, |i| r.modelo_de(i) == modelo && !r.ordenes[i].contains(&mi));
    }
    let (texto, texto_en) = if x.valor == 0.0 {
        (
            format!(
                "{marca} no aparece en ninguna respuesta de {modelo} ({}), aunque el conjunto de los modelos la menciona en el {} de las respuestas.",
                x.es(),
                tot.es()
            ),
            format!(
                "{marca} does not appear in any answer from {modelo} ({}), although the models as a whole mention it in {} of answers.",
                x.en(),
                tot.en()
            ),
        )
    } else {
        (
            format!(
                "{modelo} casi no nombra a {marca}: la menciona en el {} de sus respuestas, frente al {} del total de modelos.",
                x.es(),
                tot.es()
            ),
            format!(
                "{modelo} hardly names {marca}: it mentions it in {} of its answers, against {} across all models.",
                x.en(),
                tot.en()
            ),
        )
    };
    r.cerrar("ausencia", MODELOS, texto, texto_en, ev);
    Some(())
}

fn concentracion(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::Concentracion && s.dimension.is_none())?;
    let mut filas_m: Vec<(f64, String)> = filas(t)
        .into_iter()
        .filter(|f| f != "total")
        .filter_map(|f| Some((t.cell(&f, "hhi_sov")?.as_f64()?, f)))
        .collect();
    filas_m.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (_, alto) = filas_m.first()?.clone();
    let (_, bajo) = filas_m.last()?.clone();
    let h1 = r.dato(t, &alto, "hhi_sov", 0, false)?;
    let h2 = r.dato(t, &bajo, "hhi_sov", 0, false)?;
    let ht = r.dato(t, "total", "hhi_sov", 0, false)?;
    let lider = texto_celda(t, &alto, "lider").unwrap_or_default();
    let li = r.marca_idx(&lider);
    let mut ev = r.evidencia(2, |i| r.modelo_de(i) == alto && li.is_some() && r.ordenes[i].first() == li.as_ref());
    if ev.is_empty() {
        ev = r.evidencia(2, |i| r.modelo_de(i) == alto && !r.ordenes[i].is_empty());
    }
    r.cerrar(
        "concentracion",
        MODELOS,
        format!(
            "{alto} es el modelo más concentrado: su HHI sobre share of voice es {} (escala 0 a 10.000), frente a {} en el total y {} en {bajo}, el más disperso.",
            h1.es(),
            ht.es(),
            h2.es()
        ),
        format!(
            "{alto} is the most concentrated model: its HHI on share of voice is {} (0 to 10,000 scale), against {} overall and {} for {bajo}, the most dispersed.",
            h1.en(),
            ht.en(),
            h2.en()
        ),
        ev,
    );
    Some(())
}

fn divergencia(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::Acuerdo)?;
    let mut pares: Vec<(f64, String)> = filas(t)
        .into_iter()
        .filter(|f| f != "total")
        .filter_map(|f| Some((t.cell(&f, "jaccard")?.as_f64()?, f)))
        .collect();
    pares.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (_, par) = pares.first()?.clone();
    let a = texto_celda(t, &par, "modelo_a")?;
    let b = texto_celda(t, &par, "modelo_b")?;
    let j = r.dato(t, &par, "jaccard", 2, false)?;
    let c = r.dato(t, &par, "top1_coincide", 2, true)?;
    let jt = r.dato(t, "total", "jaccard", 2, false)?;
    // Evidence: the two answers to one question where the first brands differ.
    let mut ev = Vec::new();
    let de_b: std::collections::BTreeMap<&str, usize> = r
        .study
        .answers
        .iter()
        .enumerate()
        .filter(|(_, y)| y.modelo == b)
        .map(|(k, y)| (y.pregunta.as_str(), k))
        .collect();
    for (i, x) in r.study.answers.iter().enumerate() {
        if x.modelo != a || r.ordenes[i].is_empty() {
            continue;
        }
        if let Some(&k) = de_b.get(x.pregunta.as_str())
            && !r.ordenes[k].is_empty()
            && r.ordenes[k].first() != r.ordenes[i].first()
        {
            ev = vec![x.id.clone(), r.study.answers[k].id.clone()];
            break;
        }
    }
    if ev.is_empty() {
        ev = r.evidencia(1, |i| r.modelo_de(i) == a);
        ev.extend(r.evidencia(1, |i| r.modelo_de(i) == b));
    }
    r.cerrar(
        "divergencia",
        MODELOS,
        format!(
            "{a} y {b} son el par de modelos que menos coincide: el índice de Jaccard promedio entre sus marcas es {} (frente a {} en el total) y nombran la misma marca en primer lugar en el {} de las preguntas.",
            j.es(),
            jt.es(),
            c.es()
        ),
        format!(
            "{a} and {b} are the pair of models that agree least: the average Jaccard index of their brand sets is {} (against {} overall) and they put the same brand first in {} of questions.",
            j.en(),
            jt.en(),
            c.en()
        ),
        ev,
    );
    Some(())
}

fn fuentes(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::Fuentes)?;
    let fs = filas(t);
    let dominio = fs.first()?.clone();
    let tasa = r.dato(t, &dominio, "tasa", 2, true)?;
    let n = r.dato(t, &dominio, "respuestas", 0, false)?;
    let propio = fs.iter().find(|f| matches!(t.cell(f, "marca"), Some(Cell::Text(_)))).cloned();
    let ev = r.evidencia(2, |i| {
        r.study.answers[i].fuentes.iter().any(|s| host_of(&s.url).is_some_and(|h| host_matches(&h, &dominio)))
    });
    let (mut texto, mut texto_en) = (
        format!(
            "{dominio} es el dominio más citado como fuente: aparece en {} respuestas, el {} del total.",
            n.es(),
            tasa.es()
        ),
        format!(
            "{dominio} is the most cited source domain: it appears in {} answers, {} of the total.",
            n.en(),
            tasa.en()
        ),
    );
    if let Some(marca) = texto_celda(t, &dominio, "marca") {
        texto.push_str(&format!(
            " Es el sitio de {marca}, una de las marcas seguidas, lo que suma a su tasa de citación."
        ));
        texto_en.push_str(&format!(
            " It is the site of {marca}, one of the tracked brands, which adds to its citation rate."
        ));
    }
    if let Some(d) = propio.filter(|d| *d != dominio) {
        let marca = texto_celda(t, &d, "marca").unwrap_or_default();
        if let Some(x) = r.dato(t, &d, "tasa", 2, true) {
            texto.push_str(&format!(
                " El sitio de marca más citado es {d} ({marca}), en el {} de las respuestas.",
                x.es()
            ));
            texto_en.push_str(&format!(" The most cited brand site is {d} ({marca}), in {} of answers.", x.en()));
        }
    }
    r.cerrar("fuentes", FUENTES, texto, texto_en, ev);
    Some(())
}

fn fantasma(r: &mut Redactor<'_>) -> Option<()> {
    let t = tabla_marcas(r)?;
    if !t.columnas.iter().any(|c| c == "citacion_fantasma") {
        return None;
    }
    let mut mejor: Option<(f64, String)> = None;
    for f in filas(t) {
        if let Some(v) = t.cell(&f, "citacion_fantasma").and_then(Cell::as_f64)
            && mejor.as_ref().is_none_or(|(x, _)| v > *x)
        {
            mejor = Some((v, f));
        }
    }
    let (v, marca) = mejor?;
    if v <= 0.0 {
        return None;
    }
    let g = r.dato(t, &marca, "citacion_fantasma", 3, true)?;
    let c = r.dato(t, &marca, "citacion", 3, true)?;
    let mi = r.marca_idx(&marca)?;
    let dominios = r.study.brands[mi].dominios.clone();
    let ev = r.evidencia(2, |i| {
        !r.ordenes[i].contains(&mi)
            && r.study.answers[i]
                .fuentes
                .iter()
                .any(|s| host_of(&s.url).is_some_and(|h| dominios.iter().any(|d| host_matches(&h, d))))
    });
    r.cerrar(
        "fuentes",
        FUENTES,
        format!(
            "Citas fantasma: el sitio de {marca} aparece como fuente sin que la marca se nombre en el texto en el {} de las respuestas (su tasa de citación total es {}).",
            g.es(),
            c.es()
        ),
        format!(
            "Ghost citations: {marca}'s site is cited as a source without the brand being named in {} of answers (its overall citation rate is {}).",
            g.en(),
            c.en()
        ),
        ev,
    );
    Some(())
}

fn tono(r: &mut Redactor<'_>) -> Option<()> {
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
    let id = r.study.brands.iter().find(|b| b.nombre == peor)?.id.clone();
    let mut ev = r.evidencia(3, |i| r.study.answers[i].tono.get(&id) == Some(&Tone::Neg));
    if ev.is_empty() {
        ev = r.evidencia(2, |i| r.study.answers[i].tono.contains_key(&id));
    }
    r.cerrar(
        "tono",
        TONO,
        format!(
            "{peor} recibe el tono neto más bajo ({}): {} de sus {} menciones etiquetadas son negativas, sobre todo por las advertencias que acompañan la recomendación. En el otro extremo, {mejor} tiene el tono más favorable ({}).",
            tn.es(),
            neg.es(),
            n.es(),
            tm.es()
        ),
        format!(
            "{peor} gets the lowest net tone ({}): {} of its {} labelled mentions are negative, mostly because of caveats attached to the recommendation. At the other end, {mejor} has the most favourable tone ({}).",
            tn.en(),
            neg.en(),
            n.en(),
            tm.en()
        ),
        ev,
    );
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_from_the_rounded_value() {
        let d = Dato { valor: 0.42, dec: 2, pct: true };
        assert_eq!(d.es(), "42 %");
        assert_eq!(d.en(), "42%");
        let h = Dato { valor: 12345.0, dec: 0, pct: false };
        assert_eq!(h.es(), "12.345");
        assert_eq!(h.en(), "12,345");
        let n = Dato { valor: -0.12, dec: 2, pct: false };
        assert_eq!(n.es(), "−0,12");
        assert_eq!(redondear(0.4213, 2), (0.42, 2));
        assert_eq!(redondear(848.5, 0).1, 1);
    }
}
