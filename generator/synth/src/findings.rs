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

use crate::industry::Industry;

const VISIBILITY: &str = "Visibilidad de marcas";
const MODELS: &str = "Diferencias entre modelos";
const SOURCES: &str = "Fuentes";
const TONE: &str = "Tono";

/// What a text says after a difference that holds at 95%.
const SIGNIFICANT: (&str, &str) = ("diferencia significativa al 95 %", "significant at 95%");

/// What a text says after two values tied within the margin of error: why (`distinguishable`
/// gave `Some(false)`, or `None` when a value has no interval).
fn overlapping(verdict: Option<bool>) -> (&'static str, &'static str) {
    match verdict {
        None => ("sin intervalo al 95 % para separarlos", "no 95% interval to tell them apart"),
        Some(_) => ("intervalos al 95 % superpuestos", "overlapping 95% intervals"),
    }
}

/// A number as a finding states it: rounded value, decimals, how to print it, and its place
/// in the finding's `respaldo`.
#[derive(Clone, Copy)]
struct Figure {
    value: f64,
    dec: u32,
    pct: bool,
    idx: usize,
}

impl Figure {
    fn es(&self) -> String {
        format_figure(self, true)
    }
    fn en(&self) -> String {
        format_figure(self, false)
    }
}

fn format_figure(d: &Figure, es: bool) -> String {
    let (v, dec) = if d.pct { (d.value * 100.0, d.dec.saturating_sub(2)) } else { (d.value, d.dec) };
    let neg = v < 0.0;
    let s = format!("{:.*}", dec as usize, v.abs());
    let (int_part, frac) = match s.split_once('.') {
        Some((a, b)) => (a.to_owned(), Some(b.to_owned())),
        None => (s, None),
    };
    let (thousands_mark, decimal_mark) = if es { ('.', ',') } else { (',', '.') };
    // Spanish keeps four-digit numbers together ("2345"); English groups them ("2,345").
    let group = int_part.len() > 4 || (!es && int_part.len() == 4);
    let mut grouped = String::new();
    for (i, c) in int_part.chars().enumerate() {
        if group && i > 0 && (int_part.len() - i) % 3 == 0 {
            grouped.push(thousands_mark);
        }
        grouped.push(c);
    }
    let mut out = String::new();
    if neg {
        out.push('−');
    }
    out.push_str(&grouped);
    if let Some(f) = frac {
        out.push(decimal_mark);
        out.push_str(&f);
    }
    if d.pct {
        out.push_str(if es { " %" } else { "%" });
    }
    out
}

/// Rounds to `dec` decimals, adding one when the value sits too close to a half unit.
fn round_to(v: f64, dec: u32) -> (f64, u32) {
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
struct FindingsWriter<'a> {
    study: &'a Study,
    tables: &'a [Table],
    orders: &'a [Vec<usize>],
    findings: Vec<Finding>,
    backing: Vec<Backing>,
}

impl<'a> FindingsWriter<'a> {
    fn table(&self, pred: impl Fn(&generator::model::TableSpec) -> bool) -> Option<&'a Table> {
        let spec = self.study.design.analyses.iter().find(|s| s.filter.is_empty() && pred(s))?;
        self.tables.iter().find(|t| t.id == spec.id)
    }

    /// Reads a cell, rounds it and records the backing.
    fn figure(&mut self, t: &Table, row: &str, column: &str, dec: u32, pct: bool) -> Option<Figure> {
        let v = t.cell(row, column)?.as_f64()?;
        let (value, dec) = round_to(v, dec);
        let idx = self.backing.len();
        self.backing.push(Backing {
            table: t.id.clone(),
            row: row.into(),
            column: column.into(),
            value,
            decimals: dec,
            context: false,
            tie: false,
        });
        Some(Figure { value, dec, pct, idx })
    }

    /// Whether the 95% intervals of two cells of `t` are disjoint, so the difference between
    /// them holds (the rule of `generator::metrics::compare`: intervals that touch overlap).
    /// `None` when either cell has no interval: no difference can be claimed then either.
    fn distinguishable(&self, t: &Table, a: (&str, &str), b: (&str, &str)) -> Option<bool> {
        let (_, x) = t.uncertainty(a.0, a.1)?;
        let (_, y) = t.uncertainty(b.0, b.1)?;
        let (x, y) = (x?, y?);
        Some(x.1 < y.0 || y.1 < x.0)
    }

    /// True only when the difference between the two cells holds at 95%.
    fn differ(&self, t: &Table, a: (&str, &str), b: (&str, &str)) -> bool {
        self.distinguishable(t, a, b) == Some(true)
    }

    /// Marks the backings of `figures` as tied within the margin of error: the finding does
    /// not claim they differ.
    fn mark_tied(&mut self, figures: &[Figure]) {
        for d in figures {
            self.backing[d.idx].tie = true;
        }
    }

    /// Marks the backing of `d` as context only: compared with nothing.
    fn mark_context(&mut self, d: Figure) {
        self.backing[d.idx].context = true;
    }

    fn finish(&mut self, kind: &str, section: &str, text: String, text_en: String, evidence: Vec<String>) {
        let backing = std::mem::take(&mut self.backing);
        self.findings.push(Finding {
            id: format!("H{:02}", self.findings.len() + 1),
            kind: kind.into(),
            section: section.into(),
            text,
            text_en,
            backing,
            evidence,
        });
    }

    fn discard(&mut self) {
        self.backing.clear();
    }

    fn brand_by_name(&self, name: &str) -> Option<usize> {
        self.study.brands.iter().position(|b| b.name == name)
    }

    fn model_of(&self, i: usize) -> &str {
        &self.study.answers[i].model
    }

    /// Up to `n` answers matching `pred`, spread over the study (one per question).
    fn evidence(&self, n: usize, pred: impl Fn(usize) -> bool) -> Vec<String> {
        let candidates: Vec<usize> = (0..self.study.answers.len()).filter(|&i| pred(i)).collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        let step = (candidates.len() / n).max(1);
        let mut out: Vec<String> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for &i in candidates.iter().step_by(step) {
            let a = &self.study.answers[i];
            if seen.contains(&a.question.as_str()) {
                continue;
            }
            seen.push(&a.question);
            out.push(a.id.clone());
            if out.len() == n {
                break;
            }
        }
        out
    }
}

fn cell_text(t: &Table, row: &str, column: &str) -> Option<String> {
    match t.cell(row, column)? {
        Cell::Text(s) => Some(s.clone()),
        _ => None,
    }
}

fn rows(t: &Table) -> Vec<String> {
    t.row_keys().map(str::to_owned).collect()
}

/// Builds 5–10 findings from the computed tables of a study.
pub(crate) fn findings(_ind: &Industry, study: &Study, tables: &[Table], orders: &[Vec<usize>]) -> Vec<Finding> {
    let mut r = FindingsWriter { study, tables, orders, findings: Vec::new(), backing: Vec::new() };
    let steps: [fn(&mut FindingsWriter<'_>) -> Option<()>; 10] =
        [leadership, gap, by_dimension, model_preference, absence, concentration, divergence, top_source, ghost, tone];
    for step in steps {
        // A finding given up half-way leaves no backing behind for the next one.
        if step(&mut r).is_none() {
            r.discard();
        }
    }
    r.findings.truncate(10);
    r.findings
}

fn brands_table<'a>(r: &FindingsWriter<'a>) -> Option<&'a Table> {
    r.table(|s| s.kind == TableKind::Brands && s.metrics.first() == Some(&Metric::Mention))
}

fn leadership(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = brands_table(r)?;
    let leader = rows(t).first()?.clone();
    let li = r.brand_by_name(&leader)?;
    let m = r.figure(t, &leader, "mencion", 2, true)?;
    let p = r.figure(t, &leader, "protagonismo", 1, false)?;
    let ev = r.evidence(3, |i| r.orders[i].first() == Some(&li));
    // The lead is only stated as such when it holds against the second brand (whose
    // figures the next finding gives).
    let tie = rows(t).get(1).cloned().map(|s| {
        let v = r.distinguishable(t, (&leader, "mencion"), (&s, "mencion"));
        (s, v)
    });
    let (text, text_en) = match tie {
        Some((second, v)) if v != Some(true) => {
            let (sup, sup_en) = overlapping(v);
            (
                format!(
                    "{leader} comparte el primer lugar en menciones con {second}, con la que está empatada dentro del margen de error ({sup}): aparece en el {} de las respuestas, con un Protagonismo IA de {} sobre 10.",
                    m.es(),
                    p.es()
                ),
                format!(
                    "{leader} shares the top of the assistants' mentions with {second}, tied within the margin of error ({sup_en}): it appears in {} of answers, with an AI Prominence score of {} out of 10.",
                    m.en(),
                    p.en()
                ),
            )
        }
        _ => (
            format!(
                "{leader} es la marca más mencionada por los asistentes: aparece en el {} de las respuestas, con un Protagonismo IA de {} sobre 10.",
                m.es(),
                p.es()
            ),
            format!(
                "{leader} is the brand the assistants mention most: it appears in {} of answers, with an AI Prominence score of {} out of 10.",
                m.en(),
                p.en()
            ),
        ),
    };
    r.finish("liderazgo", VISIBILITY, text, text_en, ev);
    Some(())
}

fn gap(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = brands_table(r)?;
    let fs = rows(t);
    let (l, s) = (fs.first()?.clone(), fs.get(1)?.clone());
    let (li, si) = (r.brand_by_name(&l)?, r.brand_by_name(&s)?);
    // When the rounded mention rates tie, one more decimal tells them apart.
    let dec = match (t.cell(&l, "mencion").and_then(Cell::as_f64), t.cell(&s, "mencion").and_then(Cell::as_f64)) {
        (Some(a), Some(b)) if round_to(a, 2).0 == round_to(b, 2).0 => 3,
        _ => 2,
    };
    let (Some(m1), Some(m2), Some(t1), Some(t2)) = (
        r.figure(t, &l, "mencion", dec, true),
        r.figure(t, &s, "mencion", dec, true),
        r.figure(t, &l, "top1", 2, true),
        r.figure(t, &s, "top1", 2, true),
    ) else {
        r.discard();
        return None;
    };
    let vm = r.distinguishable(t, (&l, "mencion"), (&s, "mencion"));
    let vt = r.distinguishable(t, (&l, "top1"), (&s, "top1"));
    let (mentions, first) = (vm == Some(true), vt == Some(true));
    if !mentions {
        r.mark_tied(&[m1, m2]);
    }
    if !first {
        r.mark_tied(&[t1, t2]);
    }
    let flipped = t2.value > t1.value;
    let (sig, sig_en) = SIGNIFICANT;
    let (sm, sm_en) = overlapping(vm);
    let (st, st_en) = overlapping(vt);
    let (m1, m2, t1, t2) = ((m1.es(), m1.en()), (m2.es(), m2.en()), (t1.es(), t1.en()), (t2.es(), t2.en()));
    let (mention_sentence, mention_sentence_en) = if !mentions && m1 == m2 {
        (
            format!(
                "{l} y {s} están empatadas en menciones: cada una aparece en el {} de las respuestas ({sm}).",
                m1.0
            ),
            format!("{l} and {s} are tied on mentions: each appears in {} of answers ({sm_en}).", m1.1),
        )
    } else if mentions {
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
    let (top_sentence, top_sentence_en) = match (first, mentions) {
        (true, _) => {
            // The brand that comes first more often, then the other.
            let ((a, ta), (b, tb)) = if flipped { ((&s, &t2), (&l, &t1)) } else { ((&l, &t1), (&s, &t2)) };
            let (es, en) = match (mentions, flipped) {
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
    let ev = r.evidence(2, |i| {
        let o = &r.orders[i];
        o.first() == Some(&si) && o.contains(&li)
    });
    let mut ev2 = r.evidence(1, |i| {
        let o = &r.orders[i];
        o.first() == Some(&li) && o.contains(&si)
    });
    ev2.extend(ev);
    if ev2.is_empty() {
        // The two never share an answer (e.g. shoes and watches): show one of each.
        ev2 = r.evidence(1, |i| r.orders[i].first() == Some(&li));
        ev2.extend(r.evidence(1, |i| r.orders[i].first() == Some(&si)));
    }
    r.finish(
        "brecha",
        VISIBILITY,
        format!("{mention_sentence} {top_sentence}"),
        format!("{mention_sentence_en} {top_sentence_en}"),
        ev2,
    );
    Some(())
}

/// Another brand above the overall leader in one column of a cross table.
struct Ahead {
    column: String,
    brand: String,
    /// The difference with the leader holds at 95%.
    holds: bool,
    /// `brand` has the column's highest value.
    first: bool,
}

/// Among `columns` of the cross table `t`, the (column, brand) where a brand other than
/// `leader` is furthest above it among those whose difference holds at 95%, or, when none
/// holds, furthest above it. `None` when no brand is above `leader` in any of the columns.
fn ahead_of(r: &FindingsWriter<'_>, t: &Table, leader: &str, columns: &[String]) -> Option<Ahead> {
    let mut best: Option<(bool, f64, Ahead)> = None;
    for column in columns {
        let values: Vec<(String, f64)> =
            rows(t).into_iter().filter_map(|f| Some((f.clone(), t.cell(&f, column)?.as_f64()?))).collect();
        // The column's first brand: the first row with its highest value.
        let mut top: Option<(f64, &str)> = None;
        for (row, v) in &values {
            if top.is_none_or(|(x, _)| *v > x) {
                top = Some((*v, row));
            }
        }
        let lv = t.cell(leader, column).and_then(Cell::as_f64).unwrap_or(0.0);
        for (row, v) in &values {
            if row == leader || *v <= lv {
                continue;
            }
            let holds = r.differ(t, (row, column), (leader, column));
            if best.as_ref().is_none_or(|(s, m, _)| (holds, v - lv) > (*s, *m)) {
                let first = top.is_some_and(|(_, f)| f == row);
                let a = Ahead { column: column.clone(), brand: row.clone(), holds, first };
                best = Some((holds, v - lv, a));
            }
        }
    }
    best.map(|(_, _, a)| a)
}

fn by_dimension(r: &mut FindingsWriter<'_>) -> Option<()> {
    let spec = r.study.design.analyses.iter().find(|s| s.kind == TableKind::BrandByDimension && s.filter.is_empty())?;
    let t = r.tables.iter().find(|t| t.id == spec.id)?;
    let metric = *spec.metrics.first()?;
    let dim_id = spec.dimension.clone()?;
    let dim = r.study.design.dimensions.iter().find(|d| d.id == dim_id)?;
    let overall_leader = rows(t).first()?.clone();
    // The dimension value where another brand is furthest ahead of the overall leader,
    // preferring one where that difference holds at 95%.
    let other = ahead_of(r, t, &overall_leader, &dim.values);
    let (value, brand) = match &other {
        Some(a) => (a.column.clone(), a.brand.clone()),
        None => (dim.values.first()?.clone(), overall_leader.clone()),
    };
    let (pct, dec, name, name_en, simple, art) = match metric {
        Metric::Prominence => (false, 1, "el mayor Protagonismo IA", "AI Prominence", "Protagonismo IA", "el"),
        _ => (true, 2, "la mayor tasa de mención", "mention rate", "tasa de mención", "la"),
    };
    let x = r.figure(t, &brand, &value, dec, pct)?;
    let label = dim.label.to_lowercase();
    let label_en = dim.label_en.to_lowercase();
    let (sig, sig_en) = SIGNIFICANT;
    let (text, text_en) = match other {
        None => (
            format!(
                "{brand} lidera en todos los valores de {label}; en «{value}», por ejemplo, su {simple} es {}.",
                x.es()
            ),
            format!("{brand} leads in every {label_en}; in “{value}”, for instance, its {name_en} is {}.", x.en()),
        ),
        Some(Ahead { holds: true, first: true, .. }) => {
            let y = r.figure(t, &overall_leader, &value, dec, pct)?;
            (
                format!(
                    "El liderazgo cambia según {label}: en «{value}», {brand} tiene {name} ({}), por encima de {overall_leader} ({}), que lidera el total ({sig}).",
                    x.es(),
                    y.es()
                ),
                format!(
                    "Leadership shifts with {label_en}: in “{value}”, {brand} has the highest {name_en} ({}), ahead of {overall_leader} ({}), the overall leader ({sig_en}).",
                    x.en(),
                    y.en()
                ),
            )
        }
        Some(Ahead { holds: true, first: false, .. }) => {
            let y = r.figure(t, &overall_leader, &value, dec, pct)?;
            (
                format!(
                    "El liderazgo cambia según {label}: en «{value}», {brand} supera a {overall_leader}, que lidera el total, con {art} {simple} de {} frente a {} ({sig}).",
                    x.es(),
                    y.es()
                ),
                format!(
                    "Leadership shifts with {label_en}: in “{value}”, {brand} is ahead of {overall_leader}, the overall leader, with an {name_en} of {} against {} ({sig_en}).",
                    x.en(),
                    y.en()
                ),
            )
        }
        Some(Ahead { holds: false, .. }) => {
            // No brand is ahead of the overall leader by a difference that holds: the
            // largest lead, stated as the tie it is.
            let y = r.figure(t, &overall_leader, &value, dec, pct)?;
            r.mark_tied(&[x, y]);
            let (sup, sup_en) = overlapping(r.distinguishable(t, (&brand, &value), (&overall_leader, &value)));
            (
                format!(
                    "En ningún valor de {label} otra marca supera a {overall_leader} con una diferencia significativa al 95 %. El caso que más se acerca es «{value}»: {art} {simple} de {brand} es {} y {art} de {overall_leader}, {}, un empate dentro del margen de error ({sup}).",
                    x.es(),
                    y.es()
                ),
                format!(
                    "No {label_en} has another brand ahead of {overall_leader} by a difference significant at 95%. The closest case is “{value}”: {brand}'s {name_en} is {} and {overall_leader}'s {}, a tie within the margin of error ({sup_en}).",
                    x.en(),
                    y.en()
                ),
            )
        }
    };
    let mi = r.brand_by_name(&brand)?;
    let questions: std::collections::BTreeSet<&str> = r
        .study
        .questions
        .iter()
        .filter(|q| q.dimension(&dim_id) == Some(value.as_str()))
        .map(|q| q.id.as_str())
        .collect();
    let ev =
        r.evidence(2, |i| r.orders[i].first() == Some(&mi) && questions.contains(r.study.answers[i].question.as_str()));
    r.finish("liderazgo", VISIBILITY, text, text_en, ev);
    Some(())
}

fn model_preference(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = r.table(|s| s.kind == TableKind::BrandByModel && s.metrics.first() == Some(&Metric::Prominence))?;
    let leader = rows(t).first()?.clone();
    let models: Vec<String> = r.study.design.models.iter().map(|m| m.id.clone()).collect();
    // The model where another brand is furthest ahead of the overall leader, preferring a
    // difference that holds at 95%.
    let Ahead { column: model, brand, holds, .. } = ahead_of(r, t, &leader, &models)?;
    let x = r.figure(t, &brand, &model, 1, false)?;
    let y = r.figure(t, &leader, &model, 1, false)?;
    let z = r.figure(t, &leader, "total", 1, false)?;
    // The overall figure only places the leader: it is not set against the model's.
    r.mark_context(z);
    let weighted = r.study.design.weighting.is_some();
    let (total, total_en) = if weighted {
        ("En el total ponderado", "Across the weighted total")
    } else {
        ("En el total", "Across the total")
    };
    let mi = r.brand_by_name(&brand)?;
    let ev = r.evidence(3, |i| r.model_of(i) == model && r.orders[i].first() == Some(&mi));
    let (n, n_en) = match r.study.design.models.len() {
        7 => ("siete", "seven"),
        _ => ("seis", "six"),
    };
    let (text, text_en) = if holds {
        let (sig, sig_en) = SIGNIFICANT;
        (
            format!(
                "{model} favorece a {brand}: en ese modelo su Protagonismo IA es {}, por encima del {} de {leader} ({sig}). {total} de los {n} modelos lidera {leader}, con {}.",
                x.es(),
                y.es(),
                z.es()
            ),
            format!(
                "{model} favours {brand}: its AI Prominence there is {}, ahead of {leader}'s {} ({sig_en}). {total_en} of the {n_en} models, {leader} leads with {}.",
                x.en(),
                y.en(),
                z.en()
            ),
        )
    } else {
        r.mark_tied(&[x, y]);
        let (sup, sup_en) = overlapping(r.distinguishable(t, (&brand, &model), (&leader, &model)));
        (
            format!(
                "Ningún modelo pone a otra marca por encima de {leader} con una diferencia significativa al 95 %. El caso que más se acerca es {model}: allí el Protagonismo IA de {brand} es {} y el de {leader}, {}, un empate dentro del margen de error ({sup}). {total} de los {n} modelos lidera {leader}, con {}.",
                x.es(),
                y.es(),
                z.es()
            ),
            format!(
                "No model puts another brand above {leader} by a difference significant at 95%. The closest case is {model}: there {brand}'s AI Prominence is {} and {leader}'s {}, a tie within the margin of error ({sup_en}). {total_en} of the {n_en} models, {leader} leads with {}.",
                x.en(),
                y.en(),
                z.en()
            ),
        )
    };
    r.finish("divergencia", MODELS, text, text_en, ev);
    Some(())
}

fn absence(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = r.table(|s| s.kind == TableKind::BrandByModel && s.metrics.first() == Some(&Metric::Mention))?;
    let models: Vec<String> = r.study.design.models.iter().map(|m| m.id.clone()).collect();
    // The (brand, model) with the lowest mention relative to the brand's total: first among
    // those below the total by a difference that holds at 95%, brands named in at least 8% of
    // answers before the rest; when none holds, among those brands.
    let mut worst: Option<((bool, bool, f64), String, String)> = None;
    for row in rows(t) {
        let Some(total) = t.cell(&row, "total").and_then(Cell::as_f64).filter(|x| *x > 0.0) else {
            continue;
        };
        let frequent = total >= 0.08;
        for m in &models {
            let Some(v) = t.cell(&row, m).and_then(Cell::as_f64) else {
                continue;
            };
            let holds = v < total && r.differ(t, (&row, m), (&row, "total"));
            if !(holds || frequent) {
                continue;
            }
            let key = (holds, frequent, -v / total);
            if worst.as_ref().is_none_or(|(c, _, _)| key > *c) {
                worst = Some((key, row.clone(), m.clone()));
            }
        }
    }
    let ((holds, _, _), brand, model) = worst?;
    let x = r.figure(t, &brand, &model, 2, true)?;
    let tot = r.figure(t, &brand, "total", 2, true)?;
    let mi = r.brand_by_name(&brand)?;
    let mut ev = r.evidence(2, |i| {
        let o = &r.orders[i];
        r.model_of(i) == model && o.len() >= 3 && !o.contains(&mi)
    });
    if ev.is_empty() {
        ev = r.evidence(2, |i| r.model_of(i) == model && !r.orders[i].contains(&mi));
    }
    let (sig, sig_en) = SIGNIFICANT;
    let (text, text_en) = match (holds, x.value == 0.0) {
        (true, true) => (
            format!(
                "{brand} no aparece en ninguna respuesta de {model} ({}), aunque el conjunto de los modelos la menciona en el {} de las respuestas ({sig}).",
                x.es(),
                tot.es()
            ),
            format!(
                "{brand} does not appear in any answer from {model} ({}), although the models as a whole mention it in {} of answers ({sig_en}).",
                x.en(),
                tot.en()
            ),
        ),
        (true, false) => (
            format!(
                "{model} casi no nombra a {brand}: la menciona en el {} de sus respuestas, frente al {} del total de modelos ({sig}).",
                x.es(),
                tot.es()
            ),
            format!(
                "{model} hardly names {brand}: it mentions it in {} of its answers, against {} across all models ({sig_en}).",
                x.en(),
                tot.en()
            ),
        ),
        (false, zero) => {
            // No model leaves any brand out by a difference that holds: the largest relative
            // gap, stated as the tie it is.
            r.mark_tied(&[x, tot]);
            let (sup, sup_en) = overlapping(r.distinguishable(t, (&brand, &model), (&brand, "total")));
            let (how_much, how_much_en) = if zero {
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
                    "Ningún modelo deja de lado a una marca con una diferencia significativa al 95 %. El caso que más se acerca es el de {model} con {brand}: {how_much}, frente al {} del total de modelos, un empate dentro del margen de error ({sup}).",
                    tot.es()
                ),
                format!(
                    "No model leaves a brand out by a difference significant at 95%. The closest case is {model} with {brand}: it {how_much_en}, against {} across all models, a tie within the margin of error ({sup_en}).",
                    tot.en()
                ),
            )
        }
    };
    r.finish("ausencia", MODELS, text, text_en, ev);
    Some(())
}

fn concentration(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = r.table(|s| s.kind == TableKind::Concentration && s.dimension.is_none())?;
    let mut model_rows: Vec<(f64, String)> = rows(t)
        .into_iter()
        .filter(|f| f != "total")
        .filter_map(|f| Some((t.cell(&f, "hhi_sov")?.as_f64()?, f)))
        .collect();
    model_rows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (_, highest) = model_rows.first()?.clone();
    let (_, lowest) = model_rows.last()?.clone();
    let h1 = r.figure(t, &highest, "hhi_sov", 0, false)?;
    let h2 = r.figure(t, &lowest, "hhi_sov", 0, false)?;
    let ht = r.figure(t, "total", "hhi_sov", 0, false)?;
    let leader = cell_text(t, &highest, "lider").unwrap_or_default();
    let li = r.brand_by_name(&leader);
    let mut ev = r.evidence(2, |i| r.model_of(i) == highest && li.is_some() && r.orders[i].first() == li.as_ref());
    if ev.is_empty() {
        ev = r.evidence(2, |i| r.model_of(i) == highest && !r.orders[i].is_empty());
    }
    r.finish(
        "concentracion",
        MODELS,
        format!(
            "{highest} es el modelo más concentrado: su HHI sobre share of voice es {} (escala 0 a 10.000), frente a {} en el total y {} en {lowest}, el más disperso.",
            h1.es(),
            ht.es(),
            h2.es()
        ),
        format!(
            "{highest} is the most concentrated model: its HHI on share of voice is {} (0 to 10,000 scale), against {} overall and {} for {lowest}, the most dispersed.",
            h1.en(),
            ht.en(),
            h2.en()
        ),
        ev,
    );
    Some(())
}

fn divergence(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = r.table(|s| s.kind == TableKind::Agreement)?;
    let mut pairs: Vec<(f64, String)> = rows(t)
        .into_iter()
        .filter(|f| f != "total")
        .filter_map(|f| Some((t.cell(&f, "jaccard")?.as_f64()?, f)))
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (_, pair) = pairs.first()?.clone();
    let a = cell_text(t, &pair, "modelo_a")?;
    let b = cell_text(t, &pair, "modelo_b")?;
    let j = r.figure(t, &pair, "jaccard", 2, false)?;
    let c = r.figure(t, &pair, "top1_coincide", 2, true)?;
    let jt = r.figure(t, "total", "jaccard", 2, false)?;
    // Evidence: the two answers to one question where the first brands differ.
    let mut ev = Vec::new();
    let of_b: std::collections::BTreeMap<&str, usize> = r
        .study
        .answers
        .iter()
        .enumerate()
        .filter(|(_, y)| y.model == b)
        .map(|(k, y)| (y.question.as_str(), k))
        .collect();
    for (i, x) in r.study.answers.iter().enumerate() {
        if x.model != a || r.orders[i].is_empty() {
            continue;
        }
        if let Some(&k) = of_b.get(x.question.as_str())
            && !r.orders[k].is_empty()
            && r.orders[k].first() != r.orders[i].first()
        {
            ev = vec![x.id.clone(), r.study.answers[k].id.clone()];
            break;
        }
    }
    if ev.is_empty() {
        ev = r.evidence(1, |i| r.model_of(i) == a);
        ev.extend(r.evidence(1, |i| r.model_of(i) == b));
    }
    let verdict = r.distinguishable(t, (&pair, "jaccard"), ("total", "jaccard"));
    let (text, text_en) = if verdict == Some(true) {
        let (sig, sig_en) = SIGNIFICANT;
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
        r.mark_tied(&[j, jt]);
        let (sup, sup_en) = overlapping(verdict);
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
    r.finish("divergencia", MODELS, text, text_en, ev);
    Some(())
}

fn top_source(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = r.table(|s| s.kind == TableKind::Sources)?;
    let fs = rows(t);
    let domain = fs.first()?.clone();
    let rate = r.figure(t, &domain, "tasa", 2, true)?;
    let n = r.figure(t, &domain, "respuestas", 0, false)?;
    let own_site = fs.iter().find(|f| matches!(t.cell(f, "marca"), Some(Cell::Text(_)))).cloned();
    let ev = r.evidence(2, |i| {
        r.study.answers[i].sources.iter().any(|s| host_of(&s.url).is_some_and(|h| host_matches(&h, &domain)))
    });
    let (mut text, mut text_en) = (
        format!(
            "{domain} es el dominio más citado como fuente: aparece en {} respuestas, el {} del total.",
            n.es(),
            rate.es()
        ),
        format!(
            "{domain} is the most cited source domain: it appears in {} answers, {} of the total.",
            n.en(),
            rate.en()
        ),
    );
    if let Some(brand) = cell_text(t, &domain, "marca") {
        text.push_str(&format!(
            " Es el sitio de {brand}, una de las marcas seguidas, lo que suma a su tasa de citación."
        ));
        text_en.push_str(&format!(
            " It is the site of {brand}, one of the tracked brands, which adds to its citation rate."
        ));
    }
    if let Some(d) = own_site.filter(|d| *d != domain) {
        let brand = cell_text(t, &d, "marca").unwrap_or_default();
        if let Some(x) = r.figure(t, &d, "tasa", 2, true) {
            let verdict = r.distinguishable(t, (&domain, "tasa"), (&d, "tasa"));
            if verdict == Some(true) {
                let (sig, sig_en) = SIGNIFICANT;
                text.push_str(&format!(
                    " El sitio de marca más citado es {d} ({brand}), en el {} de las respuestas, por debajo de {domain} ({sig}).",
                    x.es()
                ));
                text_en.push_str(&format!(
                    " The most cited brand site is {d} ({brand}), in {} of answers, below {domain} ({sig_en}).",
                    x.en()
                ));
            } else {
                r.mark_tied(&[rate, x]);
                let (sup, sup_en) = overlapping(verdict);
                text.push_str(&format!(
                    " El sitio de marca más citado es {d} ({brand}), en el {} de las respuestas: una tasa empatada con la de {domain} dentro del margen de error ({sup}).",
                    x.es()
                ));
                text_en.push_str(&format!(
                    " The most cited brand site is {d} ({brand}), in {} of answers: a rate tied with {domain}'s within the margin of error ({sup_en}).",
                    x.en()
                ));
            }
        }
    }
    r.finish("fuentes", SOURCES, text, text_en, ev);
    Some(())
}

fn ghost(r: &mut FindingsWriter<'_>) -> Option<()> {
    let t = brands_table(r)?;
    if !t.columns.iter().any(|c| c == "citacion_fantasma") {
        return None;
    }
    let mut best: Option<(f64, String)> = None;
    for f in rows(t) {
        if let Some(v) = t.cell(&f, "citacion_fantasma").and_then(Cell::as_f64)
            && best.as_ref().is_none_or(|(x, _)| v > *x)
        {
            best = Some((v, f));
        }
    }
    let (v, brand) = best?;
    if v <= 0.0 {
        return None;
    }
    let g = r.figure(t, &brand, "citacion_fantasma", 3, true)?;
    let c = r.figure(t, &brand, "citacion", 3, true)?;
    // The overall citation rate sizes the ghost share: it is not set against it.
    r.mark_context(c);
    let mi = r.brand_by_name(&brand)?;
    let domains = r.study.brands[mi].domains.clone();
    let ev = r.evidence(2, |i| {
        !r.orders[i].contains(&mi)
            && r.study.answers[i]
                .sources
                .iter()
                .any(|s| host_of(&s.url).is_some_and(|h| domains.iter().any(|d| host_matches(&h, d))))
    });
    r.finish(
        "fuentes",
        SOURCES,
        format!(
            "Citas fantasma: el sitio de {brand} aparece como fuente sin que la marca se nombre en el texto en el {} de las respuestas (su tasa de citación total es {}).",
            g.es(),
            c.es()
        ),
        format!(
            "Ghost citations: {brand}'s site is cited as a source without the brand being named in {} of answers (its overall citation rate is {}).",
            g.en(),
            c.en()
        ),
        ev,
    );
    Some(())
}

mod tone;

use tone::tone;

#[cfg(test)]
mod tests;
