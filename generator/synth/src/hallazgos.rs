//! Findings computed from the study's own analysis tables.
//!
//! A finding is only worth publishing if a buyer can check it: every number in its text is
//! read from a computed table cell, rounded once, printed from that rounded value and
//! declared in `respaldo` with the same value and decimals. Evidence ids point at answers
//! that show the fact (the leader named first, the domain cited, the two models that
//! disagree on the same question).
//!
//! Findings are also honest about uncertainty. Whenever a finding sets two values against
//! each other (the comparisons of `generator::metrics::compare`), it first reads both 95%
//! intervals: when they do not overlap the text may claim the difference and says it is
//! significant at 95%; when they overlap (or a value has no interval) the text claims no
//! ordering and no gap, says the two are tied within the margin of error, and marks both
//! backings `empate`. Where a finding can pick its subject (the model that favours a brand,
//! the dimension value where leadership changes, the model that leaves a brand out) it
//! prefers one whose difference holds. A value cited only beside another for context (a
//! total next to a model's figure) is marked `contexto` and compared with nothing. So
//! `generator check` has no claim to warn about.

use generator::metrics::analysis::{Cell, Table};
use generator::metrics::mentions::{host_matches, host_of};
use generator::model::{Backing, Finding, Metric, Study, TableKind, Tone};

use crate::industria::Industria;

const VISIBILIDAD: &str = "Visibilidad de marcas";
const MODELOS: &str = "Diferencias entre modelos";
const FUENTES: &str = "Fuentes";
const TONO: &str = "Tono";

/// What a text says after a difference that holds at 95%.
const SIGNIFICATIVA: (&str, &str) = ("diferencia significativa al 95 %", "significant at 95%");

/// What a text says after two values tied within the margin of error: why (`se_distinguen`
/// gave `Some(false)`, or `None` when a value has no interval).
fn superpuestos(veredicto: Option<bool>) -> (&'static str, &'static str) {
    match veredicto {
        None => ("sin intervalo al 95 % para separarlos", "no 95% interval to tell them apart"),
        Some(_) => ("intervalos al 95 % superpuestos", "overlapping 95% intervals"),
    }
}

/// A number as a finding states it: rounded value, decimals, how to print it, and its place
/// in the finding's `respaldo`.
#[derive(Clone, Copy)]
struct Dato {
    valor: f64,
    dec: u32,
    pct: bool,
    idx: usize,
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
        let idx = self.respaldo.len();
        self.respaldo.push(Backing {
            tabla: t.id.clone(),
            fila: fila.into(),
            columna: columna.into(),
            valor,
            decimales: dec,
            contexto: false,
            empate: false,
        });
        Some(Dato { valor, dec, pct, idx })
    }

    /// Whether the 95% intervals of two cells of `t` are disjoint, so the difference between
    /// them holds (the rule of `generator::metrics::compare`: intervals that touch overlap).
    /// `None` when either cell has no interval: no difference can be claimed then either.
    fn se_distinguen(&self, t: &Table, a: (&str, &str), b: (&str, &str)) -> Option<bool> {
        let (_, x) = t.uncertainty(a.0, a.1)?;
        let (_, y) = t.uncertainty(b.0, b.1)?;
        let (x, y) = (x?, y?);
        Some(x.1 < y.0 || y.1 < x.0)
    }

    /// True only when the difference between the two cells holds at 95%.
    fn difieren(&self, t: &Table, a: (&str, &str), b: (&str, &str)) -> bool {
        self.se_distinguen(t, a, b) == Some(true)
    }

    /// Marks the backings of `datos` as tied within the margin of error: the finding does
    /// not claim they differ.
    fn empate(&mut self, datos: &[Dato]) {
        for d in datos {
            self.respaldo[d.idx].empate = true;
        }
    }

    /// Marks the backing of `d` as context only: compared with nothing.
    fn contexto(&mut self, d: Dato) {
        self.respaldo[d.idx].contexto = true;
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
    let pasos: [fn(&mut Redactor<'_>) -> Option<()>; 10] = [
        liderazgo,
        brecha,
        por_dimension,
        preferencia_de_modelo,
        ausencia,
        concentracion,
        divergencia,
        fuentes,
        fantasma,
        tono,
    ];
    for paso in pasos {
        // A finding given up half-way leaves no backing behind for the next one.
        if paso(&mut r).is_none() {
            r.descartar();
        }
    }
    r.hallazgos.truncate(10);
    r.hallazgos
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
    // The lead is only stated as such when it holds against the second brand (whose
    // figures the next finding gives).
    let empatada = filas(t).get(1).cloned().map(|s| {
        let v = r.se_distinguen(t, (&lider, "mencion"), (&s, "mencion"));
        (s, v)
    });
    let (texto, texto_en) = match empatada {
        Some((segunda, v)) if v != Some(true) => {
            let (sup, sup_en) = superpuestos(v);
            (
                format!(
                    "{lider} comparte el primer lugar en menciones con {segunda}, con la que está empatada dentro del margen de error ({sup}): aparece en el {} de las respuestas, con un Protagonismo IA de {} sobre 10.",
                    m.es(),
                    p.es()
                ),
                format!(
                    "{lider} shares the top of the assistants' mentions with {segunda}, tied within the margin of error ({sup_en}): it appears in {} of answers, with an AI Prominence score of {} out of 10.",
                    m.en(),
                    p.en()
                ),
            )
        }
        _ => (
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
        ),
    };
    r.cerrar("liderazgo", VISIBILIDAD, texto, texto_en, ev);
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
    let vm = r.se_distinguen(t, (&l, "mencion"), (&s, "mencion"));
    let vt = r.se_distinguen(t, (&l, "top1"), (&s, "top1"));
    let (menciones, primero) = (vm == Some(true), vt == Some(true));
    if !menciones {
        r.empate(&[m1, m2]);
    }
    if !primero {
        r.empate(&[t1, t2]);
    }
    let invierte = t2.valor > t1.valor;
    let (sig, sig_en) = SIGNIFICATIVA;
    let (sm, sm_en) = superpuestos(vm);
    let (st, st_en) = superpuestos(vt);
    let (m1, m2, t1, t2) = ((m1.es(), m1.en()), (m2.es(), m2.en()), (t1.es(), t1.en()), (t2.es(), t2.en()));
    let (frase_m, frase_m_en) = if !menciones && m1 == m2 {
        (
            format!(
                "{l} y {s} están empatadas en menciones: cada una aparece en el {} de las respuestas ({sm}).",
                m1.0
            ),
            format!("{l} and {s} are tied on mentions: each appears in {} of answers ({sm_en}).", m1.1),
        )
    } else if menciones {
        (
            format!(
                "{s} es la principal retadora: la mencionan el {} de las respuestas, frente al {} de {l} ({sig}).",
                m2.0, m1.0
            ),
            format!("{s} is the main challenger: {} of answers mention it, against {} for {l} ({sig_en}).", m2.1, m1.1),
        )
    } else {
        (
            format!(
                "{l} y {s} están empatadas en menciones: las nombran el {} y el {} de las respuestas, una diferencia dentro del margen de error ({sm}).",
                m1.0, m2.0
            ),
            format!(
                "{l} and {s} are tied on mentions: {} and {} of answers name them, a difference within the margin of error ({sm_en}).",
                m1.1, m2.1
            ),
        )
    };
    // The order at the top is only stated when it holds.
    let (frase_t, frase_t_en) = match (primero, menciones) {
        (true, _) => {
            // The brand that comes first more often, then the other.
            let ((a, ta), (b, tb)) = if invierte { ((&s, &t2), (&l, &t1)) } else { ((&l, &t1), (&s, &t2)) };
            let (es, en) = match (menciones, invierte) {
                (true, false) => (
                    format!("En el primer lugar la ventaja se mantiene: {a} abre"),
                    format!("The lead holds at the top: {a} comes first in"),
                ),
                (true, true) => (
                    format!("Pero en el primer lugar el orden se invierte: {a} abre"),
                    format!("But the order flips at the top: {a} comes first in"),
                ),
                (false, _) => (
                    format!("En el primer lugar, en cambio, {a} se despega: abre"),
                    format!("At the top, though, {a} pulls ahead: it comes first in"),
                ),
            };
            (
                format!("{es} el {} de las respuestas con marca y {b}, el {} ({sig}).", ta.0, tb.0),
                format!("{en} {} of answers that name a brand, {b} in {} ({sig_en}).", ta.1, tb.1),
            )
        }
        (false, true) => (
            format!(
                "En el primer lugar, en cambio, la diferencia no se sostiene: {l} abre el {} de las respuestas con marca y {s}, el {}, un empate dentro del margen de error ({st}).",
                t1.0, t2.0
            ),
            format!(
                "At the top, though, the difference does not hold: {l} comes first in {} of answers that name a brand, {s} in {}, a tie within the margin of error ({st_en}).",
                t1.1, t2.1
            ),
        ),
        (false, false) => (
            format!(
                "En el primer lugar también empatan dentro del margen de error: {l} abre el {} de las respuestas con marca y {s}, el {} ({st}).",
                t1.0, t2.0
            ),
            format!(
                "They are also tied at the top, within the margin of error: {l} comes first in {} of answers that name a brand, {s} in {} ({st_en}).",
                t1.1, t2.1
            ),
        ),
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
    r.cerrar("brecha", VISIBILIDAD, format!("{frase_m} {frase_t}"), format!("{frase_m_en} {frase_t_en}"), ev2);
    Some(())
}

/// Another brand above the overall leader in one column of a cross table.
struct Adelante {
    columna: String,
    marca: String,
    /// The difference with the leader holds at 95%.
    sostiene: bool,
    /// `marca` has the column's highest value.
    primera: bool,
}

/// Among `columnas` of the cross table `t`, the (column, brand) where a brand other than
/// `lider` is furthest above it among those whose difference holds at 95%, or, when none
/// holds, furthest above it. `None` when no brand is above `lider` in any of the columns.
fn adelante(r: &Redactor<'_>, t: &Table, lider: &str, columnas: &[String]) -> Option<Adelante> {
    let mut mejor: Option<(bool, f64, Adelante)> = None;
    for columna in columnas {
        let valores: Vec<(String, f64)> =
            filas(t).into_iter().filter_map(|f| Some((f.clone(), t.cell(&f, columna)?.as_f64()?))).collect();
        // The column's first brand: the first row with its highest value.
        let mut top: Option<(f64, &str)> = None;
        for (fila, v) in &valores {
            if top.is_none_or(|(x, _)| *v > x) {
                top = Some((*v, fila));
            }
        }
        let lv = t.cell(lider, columna).and_then(Cell::as_f64).unwrap_or(0.0);
        for (fila, v) in &valores {
            if fila == lider || *v <= lv {
                continue;
            }
            let sostiene = r.difieren(t, (fila, columna), (lider, columna));
            if mejor.as_ref().is_none_or(|(s, m, _)| (sostiene, v - lv) > (*s, *m)) {
                let primera = top.is_some_and(|(_, f)| f == fila);
                let a = Adelante { columna: columna.clone(), marca: fila.clone(), sostiene, primera };
                mejor = Some((sostiene, v - lv, a));
            }
        }
    }
    mejor.map(|(_, _, a)| a)
}

fn por_dimension(r: &mut Redactor<'_>) -> Option<()> {
    let spec =
        r.study.design.analisis.iter().find(|s| s.tipo == TableKind::MarcaPorDimension && s.filtro.is_empty())?;
    let t = r.tablas.iter().find(|t| t.id == spec.id)?;
    let metric = *spec.metricas.first()?;
    let dim_id = spec.dimension.clone()?;
    let dim = r.study.design.dimensiones.iter().find(|d| d.id == dim_id)?;
    let lider_total = filas(t).first()?.clone();
    // The dimension value where another brand is furthest ahead of the overall leader,
    // preferring one where that difference holds at 95%.
    let otra = adelante(r, t, &lider_total, &dim.valores);
    let (valor, marca) = match &otra {
        Some(a) => (a.columna.clone(), a.marca.clone()),
        None => (dim.valores.first()?.clone(), lider_total.clone()),
    };
    let (pct, dec, nombre, nombre_en, simple, art) = match metric {
        Metric::Protagonismo => (false, 1, "el mayor Protagonismo IA", "AI Prominence", "Protagonismo IA", "el"),
        _ => (true, 2, "la mayor tasa de mención", "mention rate", "tasa de mención", "la"),
    };
    let x = r.dato(t, &marca, &valor, dec, pct)?;
    let etiqueta = dim.etiqueta.to_lowercase();
    let etiqueta_en = dim.etiqueta_en.to_lowercase();
    let (sig, sig_en) = SIGNIFICATIVA;
    let (texto, texto_en) = match otra {
        None => (
            format!(
                "{marca} lidera en todos los valores de {etiqueta}; en «{valor}», por ejemplo, su {simple} es {}.",
                x.es()
            ),
            format!("{marca} leads in every {etiqueta_en}; in “{valor}”, for instance, its {nombre_en} is {}.", x.en()),
        ),
        Some(Adelante { sostiene: true, primera: true, .. }) => {
            let y = r.dato(t, &lider_total, &valor, dec, pct)?;
            (
                format!(
                    "El liderazgo cambia según {etiqueta}: en «{valor}», {marca} tiene {nombre} ({}), por encima de {lider_total} ({}), que lidera el total ({sig}).",
                    x.es(),
                    y.es()
                ),
                format!(
                    "Leadership shifts with {etiqueta_en}: in “{valor}”, {marca} has the highest {nombre_en} ({}), ahead of {lider_total} ({}), the overall leader ({sig_en}).",
                    x.en(),
                    y.en()
                ),
            )
        }
        Some(Adelante { sostiene: true, primera: false, .. }) => {
            let y = r.dato(t, &lider_total, &valor, dec, pct)?;
            (
                format!(
                    "El liderazgo cambia según {etiqueta}: en «{valor}», {marca} supera a {lider_total}, que lidera el total, con {art} {simple} de {} frente a {} ({sig}).",
                    x.es(),
                    y.es()
                ),
                format!(
                    "Leadership shifts with {etiqueta_en}: in “{valor}”, {marca} is ahead of {lider_total}, the overall leader, with an {nombre_en} of {} against {} ({sig_en}).",
                    x.en(),
                    y.en()
                ),
            )
        }
        Some(Adelante { sostiene: false, .. }) => {
            // No brand is ahead of the overall leader by a difference that holds: the
            // largest lead, stated as the tie it is.
            let y = r.dato(t, &lider_total, &valor, dec, pct)?;
            r.empate(&[x, y]);
            let (sup, sup_en) = superpuestos(r.se_distinguen(t, (&marca, &valor), (&lider_total, &valor)));
            (
                format!(
                    "En ningún valor de {etiqueta} otra marca supera a {lider_total} con una diferencia significativa al 95 %. El caso que más se acerca es «{valor}»: {art} {simple} de {marca} es {} y {art} de {lider_total}, {}, un empate dentro del margen de error ({sup}).",
                    x.es(),
                    y.es()
                ),
                format!(
                    "No {etiqueta_en} has another brand ahead of {lider_total} by a difference significant at 95%. The closest case is “{valor}”: {marca}'s {nombre_en} is {} and {lider_total}'s {}, a tie within the margin of error ({sup_en}).",
                    x.en(),
                    y.en()
                ),
            )
        }
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
    // The model where another brand is furthest ahead of the overall leader, preferring a
    // difference that holds at 95%.
    let Adelante { columna: modelo, marca, sostiene, .. } = adelante(r, t, &lider, &modelos)?;
    let x = r.dato(t, &marca, &modelo, 1, false)?;
    let y = r.dato(t, &lider, &modelo, 1, false)?;
    let z = r.dato(t, &lider, "total", 1, false)?;
    // The overall figure only places the leader: it is not set against the model's.
    r.contexto(z);
    let ponderado = r.study.design.ponderacion.is_some();
    let (total, total_en) = if ponderado {
        ("En el total ponderado", "Across the weighted total")
    } else {
        ("En el total", "Across the total")
    };
    let mi = r.marca_idx(&marca)?;
    let ev = r.evidencia(3, |i| r.modelo_de(i) == modelo && r.ordenes[i].first() == Some(&mi));
    let (texto, texto_en) = if sostiene {
        let (sig, sig_en) = SIGNIFICATIVA;
        (
            format!(
                "{modelo} favorece a {marca}: en ese modelo su Protagonismo IA es {}, por encima del {} de {lider} ({sig}). {total} de los seis modelos lidera {lider}, con {}.",
                x.es(),
                y.es(),
                z.es()
            ),
            format!(
                "{modelo} favours {marca}: its AI Prominence there is {}, ahead of {lider}'s {} ({sig_en}). {total_en} of the six models, {lider} leads with {}.",
                x.en(),
                y.en(),
                z.en()
            ),
        )
    } else {
        r.empate(&[x, y]);
        let (sup, sup_en) = superpuestos(r.se_distinguen(t, (&marca, &modelo), (&lider, &modelo)));
        (
            format!(
                "Ningún modelo pone a otra marca por encima de {lider} con una diferencia significativa al 95 %. El caso que más se acerca es {modelo}: allí el Protagonismo IA de {marca} es {} y el de {lider}, {}, un empate dentro del margen de error ({sup}). {total} de los seis modelos lidera {lider}, con {}.",
                x.es(),
                y.es(),
                z.es()
            ),
            format!(
                "No model puts another brand above {lider} by a difference significant at 95%. The closest case is {modelo}: there {marca}'s AI Prominence is {} and {lider}'s {}, a tie within the margin of error ({sup_en}). {total_en} of the six models, {lider} leads with {}.",
                x.en(),
                y.en(),
                z.en()
            ),
        )
    };
    r.cerrar("divergencia", MODELOS, texto, texto_en, ev);
    Some(())
}

fn ausencia(r: &mut Redactor<'_>) -> Option<()> {
    let t = r.tabla(|s| s.tipo == TableKind::MarcaPorModelo && s.metricas.first() == Some(&Metric::Mencion))?;
    let modelos: Vec<String> = r.study.design.modelos.iter().map(|m| m.id.clone()).collect();
    // The (brand, model) with the lowest mention relative to the brand's total: first among
    // those below the total by a difference that holds at 95%, brands named in at least 8% of
    // answers before the rest; when none holds, among those brands.
    let mut peor: Option<((bool, bool, f64), String, String)> = None;
    for fila in filas(t) {
        let Some(total) = t.cell(&fila, "total").and_then(Cell::as_f64).filter(|x| *x > 0.0) else {
            continue;
        };
        let frecuente = total >= 0.08;
        for m in &modelos {
            let Some(v) = t.cell(&fila, m).and_then(Cell::as_f64) else {
                continue;
            };
            let sostiene = v < total && r.difieren(t, (&fila, m), (&fila, "total"));
            if !(sostiene || frecuente) {
                continue;
            }
            let clave = (sostiene, frecuente, -v / total);
            if peor.as_ref().is_none_or(|(c, _, _)| clave > *c) {
                peor = Some((clave, fila.clone(), m.clone()));
            }
        }
    }
    let ((sostiene, _, _), marca, modelo) = peor?;
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
    let (sig, sig_en) = SIGNIFICATIVA;
    let (texto, texto_en) = match (sostiene, x.valor == 0.0) {
        (true, true) => (
            format!(
                "{marca} no aparece en ninguna respuesta de {modelo} ({}), aunque el conjunto de los modelos la menciona en el {} de las respuestas ({sig}).",
                x.es(),
                tot.es()
            ),
            format!(
                "{marca} does not appear in any answer from {modelo} ({}), although the models as a whole mention it in {} of answers ({sig_en}).",
                x.en(),
                tot.en()
            ),
        ),
        (true, false) => (
            format!(
                "{modelo} casi no nombra a {marca}: la menciona en el {} de sus respuestas, frente al {} del total de modelos ({sig}).",
                x.es(),
                tot.es()
            ),
            format!(
                "{modelo} hardly names {marca}: it mentions it in {} of its answers, against {} across all models ({sig_en}).",
                x.en(),
                tot.en()
            ),
        ),
        (false, cero) => {
            // No model leaves any brand out by a difference that holds: the largest relative
            // gap, stated as the tie it is.
            r.empate(&[x, tot]);
            let (sup, sup_en) = superpuestos(r.se_distinguen(t, (&marca, &modelo), (&marca, "total")));
            let (cuanto, cuanto_en) = if cero {
                (
                    format!("no la nombra en ninguna de sus respuestas ({})", x.es()),
                    format!("names it in none of its answers ({})", x.en()),
                )
            } else {
                (
                    format!("la menciona en el {} de sus respuestas", x.es()),
                    format!("mentions it in {} of its answers", x.en()),
                )
            };
            (
                format!(
                    "Ningún modelo deja de lado a una marca con una diferencia significativa al 95 %. El caso que más se acerca es el de {modelo} con {marca}: {cuanto}, frente al {} del total de modelos, un empate dentro del margen de error ({sup}).",
                    tot.es()
                ),
                format!(
                    "No model leaves a brand out by a difference significant at 95%. The closest case is {modelo} with {marca}: it {cuanto_en}, against {} across all models, a tie within the margin of error ({sup_en}).",
                    tot.en()
                ),
            )
        }
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
    let veredicto = r.se_distinguen(t, (&par, "jaccard"), ("total", "jaccard"));
    let (texto, texto_en) = if veredicto == Some(true) {
        let (sig, sig_en) = SIGNIFICATIVA;
        (
            format!(
                "{a} y {b} son el par de modelos que menos coincide: el índice de Jaccard promedio entre sus marcas es {}, frente a {} en el total ({sig}), y nombran la misma marca en primer lugar en el {} de las preguntas.",
                j.es(),
                jt.es(),
                c.es()
            ),
            format!(
                "{a} and {b} are the pair of models that agree least: the average Jaccard index of their brand sets is {}, against {} overall ({sig_en}), and they put the same brand first in {} of questions.",
                j.en(),
                jt.en(),
                c.en()
            ),
        )
    } else {
        r.empate(&[j, jt]);
        let (sup, sup_en) = superpuestos(veredicto);
        (
            format!(
                "{a} y {b} son el par de modelos con el índice de Jaccard promedio más bajo entre sus marcas, {}, aunque no se distingue del {} del total: un empate dentro del margen de error ({sup}). Nombran la misma marca en primer lugar en el {} de las preguntas.",
                j.es(),
                jt.es(),
                c.es()
            ),
            format!(
                "{a} and {b} are the pair of models with the lowest average Jaccard index of their brand sets, {}, though it cannot be told apart from the {} overall: a tie within the margin of error ({sup_en}). They put the same brand first in {} of questions.",
                j.en(),
                jt.en(),
                c.en()
            ),
        )
    };
    r.cerrar("divergencia", MODELOS, texto, texto_en, ev);
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
            let veredicto = r.se_distinguen(t, (&dominio, "tasa"), (&d, "tasa"));
            if veredicto == Some(true) {
                let (sig, sig_en) = SIGNIFICATIVA;
                texto.push_str(&format!(
                    " El sitio de marca más citado es {d} ({marca}), en el {} de las respuestas, por debajo de {dominio} ({sig}).",
                    x.es()
                ));
                texto_en.push_str(&format!(
                    " The most cited brand site is {d} ({marca}), in {} of answers, below {dominio} ({sig_en}).",
                    x.en()
                ));
            } else {
                r.empate(&[tasa, x]);
                let (sup, sup_en) = superpuestos(veredicto);
                texto.push_str(&format!(
                    " El sitio de marca más citado es {d} ({marca}), en el {} de las respuestas: una tasa empatada con la de {dominio} dentro del margen de error ({sup}).",
                    x.es()
                ));
                texto_en.push_str(&format!(
                    " The most cited brand site is {d} ({marca}), in {} of answers: a rate tied with {dominio}'s within the margin of error ({sup_en}).",
                    x.en()
                ));
            }
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
    // The overall citation rate sizes the ghost share: it is not set against it.
    r.contexto(c);
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

mod tono;

use tono::tono;

#[cfg(test)]
mod tests;
