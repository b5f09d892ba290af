//! Change since the previous run: every brand metric with an interval, in each run, their
//! difference, the 95% interval of the difference and a verdict.
//!
//! A study that names its previous run (`[corrida_anterior]` in `estudio.toml`, answers in
//! `anterior/`) is compared with it over the questions both runs share (the same `id`):
//! questions added since, or retired, are counted and left out. Each run's value is computed
//! exactly as in the analysis tables, over its answers to the shared questions, with its own
//! models and weights. The tables are:
//!
//! - `cambio_total`: all models of each run;
//! - `cambio_<model>`: one per model id present in both runs (the same model asked again);
//! - `cambio_nivel_estandar`, `cambio_nivel_avanzado`: one per tier whose models changed
//!   between the runs (a model replaced by its newer version), all the tier's models of each
//!   run, said as such in the title.
//!
//! **The interval of the difference** pairs the runs by question. For each run the clustered
//! linearisation of [`crate::metrics::interval`] gives, per question *g*, the residual
//! `e_g = Σ_{i∈g} c_i·(y_i − R·x_i) / Σ_i c_i·x_i` (so `V = Σ_g e_g²`), and the run's own
//! interval `[l, u]` (Wilson at `n_ef` for rates, `R ± z·√V` cut to the range for means).
//! The correlation of the two runs across the shared questions is
//! `ρ = Σ_g e1_g·e2_g / √(V1·V2)` (0 when either `V` is 0), and the interval of
//! `D = R2 − R1` is the MOVER of Zou and Donner (2008) for correlated estimates:
//!
//! `L = D − √((R2 − l2)² + (u1 − R1)² − 2ρ·(R2 − l2)·(u1 − R1))`
//! `U = D + √((u2 − R2)² + (R1 − l1)² − 2ρ·(u2 − R2)·(R1 − l1))`
//!
//! with `[l, u]` each run's unrounded interval as its analysis cell would carry it, ends already
//! clipped to the metric's range. For a mean clipped in neither run it is exactly
//! `D ± z·√Σ_g (e2_g − e1_g)²`, the paired cluster-robust interval; where a run's interval was
//! clipped, the clipped distance enters instead of `z·√V`, on the one side of the difference
//! that end feeds (`l2`, `u1` the lower, `u2`, `l1` the upper), so the published interval is no
//! longer that symmetric one. For a rate it inherits Wilson's behaviour near 0 and 1. The
//! verdict is the family's ([`crate::metrics::multiplicity`]): a p-value read off this
//! interval, Benjamini–Hochberg over every tested cell of the study. Without an interval in
//! either run (fewer than two questions in its base) there is no interval and no verdict.

use std::collections::{BTreeMap, BTreeSet};

use crate::metrics::analysis::{Cell, Table};
use crate::metrics::exact::round_float;
use crate::metrics::interval::{self, Z95};
use crate::metrics::multiplicity::{self, Family};
use crate::metrics::{self, AnswerFacts, Estimate, Scope, brand_stats, prominence_points};
use crate::model::{Metric, Study, Tier, Tone};

/// Table ids of change tables start with this; analysis table ids never do (`A01`).
pub const PREFIX: &str = "cambio_";

/// The metrics compared, in column order (every brand metric with an interval a buyer
/// watches; ghost citation is left out).
pub const METRICS: [Metric; 7] =
    [Metric::Mention, Metric::Order, Metric::Citation, Metric::Prominence, Metric::Top1, Metric::Sov, Metric::NetTone];

/// Column suffixes of each metric, in order.
pub const COLUMNS: [&str; 9] = [
    "_anterior",
    "_anterior_n",
    "_actual",
    "_actual_n",
    "_diferencia",
    "_diferencia_ic95",
    "_diferencia_p",
    "_diferencia_ic_ajustado",
    "_veredicto",
];

/// The three verdicts.
pub const GREW: &str = "creció";
pub const FELL: &str = "cayó";
pub const NO_CHANGE: &str = "sin cambio más allá del ruido";

/// What a change table compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeScope {
    /// Every model of each run.
    Total,
    /// One model id present in both runs.
    Model(String),
    /// The models of one tier, which changed between the runs.
    Tier(Tier),
}

/// The change tables a study has, from its design alone (findings can name them before
/// anything is computed): `(id, scope)`, total first, then models in `modelos` order, then
/// tiers (estándar, avanzado). Empty without `[corrida_anterior]`.
pub fn table_ids(study: &Study) -> Vec<(String, ChangeScope)> {
    let Some(previous) = &study.design.previous_run else { return Vec::new() };
    let mut ids = vec![(format!("{PREFIX}total"), ChangeScope::Total)];
    for model in &study.design.models {
        if previous.models.iter().any(|m| m.id == model.id && m.level == model.level) {
            ids.push((format!("{PREFIX}{}", model.id), ChangeScope::Model(model.id.clone())));
        }
    }
    for tier in [Tier::Standard, Tier::Advanced] {
        let of = |models: &[crate::model::ModelSpec]| -> BTreeSet<String> {
            models.iter().filter(|m| m.level == tier).map(|m| m.id.clone()).collect()
        };
        let (now, before) = (of(&study.design.models), of(&previous.models));
        if now != before && !now.is_empty() && !before.is_empty() {
            ids.push((format!("{PREFIX}nivel_{}", tier_slug(tier)), ChangeScope::Tier(tier)));
        }
    }
    ids
}

fn tier_slug(tier: Tier) -> &'static str {
    match tier {
        Tier::Standard => "estandar",
        Tier::Advanced => "avanzado",
    }
}

/// Questions of the two runs: shared (same id), added since, retired since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuestionCounts {
    pub shared: usize,
    pub added: usize,
    pub withdrawn: usize,
}

/// How the question sets of a study and its previous run overlap; `None` without one.
pub fn question_counts(study: &Study) -> Option<QuestionCounts> {
    let previous = study.previous.as_deref()?;
    let now: BTreeSet<&str> = study.questions.iter().map(|q| q.id.as_str()).collect();
    let before: BTreeSet<&str> = previous.questions.iter().map(|q| q.id.as_str()).collect();
    let shared = now.intersection(&before).count();
    Some(QuestionCounts { shared, added: now.len() - shared, withdrawn: before.len() - shared })
}

/// The change tables of a study (empty without a previous run); `facts` are the current
/// run's, as the analysis tables use them.
pub fn change_tables(study: &Study, facts: &[AnswerFacts]) -> Vec<Table> {
    change_analysis(study, facts).0
}

/// The change tables of a study and the family of their tests ([`Family`]: how many, how many
/// changes, the adjusted level); empty and `None` without a previous run.
pub fn change_analysis(study: &Study, facts: &[AnswerFacts]) -> (Vec<Table>, Option<Family>) {
    let Some(previous) = study.previous.as_deref() else { return (Vec::new(), None) };
    let Some(counts) = question_counts(study) else { return (Vec::new(), None) };
    let previous_facts = metrics::extract_facts(previous);
    // Shared questions by id, keyed by their index in this run's questions.
    let key_now: BTreeMap<&str, usize> = study.questions.iter().enumerate().map(|(i, q)| (q.id.as_str(), i)).collect();
    let previous_key: Vec<Option<usize>> =
        previous.questions.iter().map(|q| key_now.get(q.id.as_str()).copied()).collect();
    let shared: BTreeSet<usize> = previous_key.iter().flatten().copied().collect();
    let now_runs = Run { study, facts, key: (0..study.questions.len()).map(Some).collect(), shared: &shared };
    let before_runs = Run { study: previous, facts: &previous_facts, key: previous_key, shared: &shared };
    let tested: Vec<(String, ChangeScope, Vec<Vec<ChangeCell>>)> = table_ids(study)
        .into_iter()
        .map(|(id, scope)| {
            let now = now_runs.side(&scope);
            let before = before_runs.side(&scope);
            let cells = test_cells(study.brands.len(), &before, &now);
            (id, scope, cells)
        })
        .collect();
    // One family: every cell of every change table of the study that has a test.
    let p_values: Vec<f64> =
        tested.iter().flat_map(|(_, _, rows)| rows.iter().flatten().filter_map(|c| c.test.and_then(|t| t.p))).collect();
    // What each cell with an interval would say alone, as the tables said before the family:
    // its published 95% interval excludes 0 (tested or not).
    let unadjusted = tested
        .iter()
        .flat_map(|(_, _, rows)| rows.iter().flatten().filter_map(|c| c.test))
        .filter(|t| round_float(t.low, 4) > 0.0 || round_float(t.high, 4) < 0.0)
        .count();
    let family = Family::new(&p_values, unadjusted);
    let tables = tested
        .into_iter()
        .map(|(id, scope, cells)| table(study, previous, &id, &scope, &cells, counts, &family))
        .collect();
    (tables, Some(family))
}

/// One run: its study, answer facts, and the shared key of each of its questions.
struct Run<'a> {
    study: &'a Study,
    facts: &'a [AnswerFacts],
    key: Vec<Option<usize>>,
    shared: &'a BTreeSet<usize>,
}

impl Run<'_> {
    /// The run's answers to shared questions within `scope`, with every brand's sums.
    fn side(&self, scope: &ChangeScope) -> Side {
        let models = &self.study.design.models;
        let answers: Vec<&AnswerFacts> = self
            .facts
            .iter()
            .filter(|a| self.key[a.question].is_some_and(|k| self.shared.contains(&k)))
            .filter(|a| match scope {
                ChangeScope::Total => true,
                ChangeScope::Model(id) => models[a.model].id == *id,
                ChangeScope::Tier(tier) => models[a.model].level == *tier,
            })
            .collect();
        let weights = metrics::model_weights(self.study);
        let scope = Scope::new(answers, &weights);
        let n_brands = self.study.brands.len();
        let stats = brand_stats(&scope, n_brands);
        let estimates: Vec<Vec<Option<Estimate>>> =
            (0..n_brands).map(|b| METRICS.iter().map(|&m| stats.estimate(b, m)).collect()).collect();
        Side { estimates, sums: cluster_sums(&scope, &self.key, n_brands) }
    }
}

/// One run's side of a change table: estimates by brand and metric, and the per-question
/// sums behind their intervals.
struct Side {
    estimates: Vec<Vec<Option<Estimate>>>,
    sums: Sums,
}

/// Per brand and metric: per shared question key, `(Σ c·y, Σ c·x)`; and over answers,
/// `Σ (c·x)²`.
struct Sums {
    clusters: Vec<Vec<Vec<(usize, f64, f64)>>>,
    cx2: Vec<Vec<f64>>,
}

/// The numerator `y` and denominator `x` of one answer for `metric` and brand `b` (the
/// definition [`cluster_sums`] follows; the tests hold one to the other).
#[cfg(test)]
fn y_x(a: &AnswerFacts, b: usize, metric: Metric) -> (f64, f64) {
    let position = a.brands.order.iter().position(|&x| x == b).map(|p| p + 1);
    let named = f64::from(u8::from(position.is_some()));
    let k = a.brands.order.len() as f64;
    match metric {
        Metric::Mention => (named, 1.0),
        Metric::Citation => (f64::from(u8::from(a.brands.cited.contains(&b))), 1.0),
        Metric::PhantomCitation => (f64::from(u8::from(a.brands.cited.contains(&b) && position.is_none())), 1.0),
        Metric::ConsultedNotCited => {
            (f64::from(u8::from(a.brands.consulted_not_cited(b))), f64::from(u8::from(a.brands.consulted.is_some())))
        }
        Metric::Prominence => (prominence_points(position), 1.0),
        Metric::Order => (position.map_or(0.0, |p| p as f64), named),
        Metric::Top1 => (f64::from(u8::from(position == Some(1))), f64::from(u8::from(k > 0.0))),
        Metric::Sov => (named, k),
        Metric::NetTone => match a.tone.iter().find(|(x, _)| *x == b) {
            Some((_, Tone::Pos)) => (1.0, 1.0),
            Some((_, Tone::Neu)) => (0.0, 1.0),
            Some((_, Tone::Neg)) => (-1.0, 1.0),
            None => (0.0, 0.0),
        },
    }
}

fn cluster_sums(scope: &Scope<'_>, key: &[Option<usize>], n_brands: usize) -> Sums {
    // Indexes into METRICS.
    const MENTION: usize = 0;
    const ORDER: usize = 1;
    const CITATION: usize = 2;
    const PROMINENCE: usize = 3;
    const TOP1: usize = 4;
    const SOV: usize = 5;
    const TONE: usize = 6;
    let mut clusters: Vec<Vec<Vec<(usize, f64, f64)>>> = vec![vec![Vec::new(); METRICS.len()]; n_brands];
    let mut cx2 = vec![vec![0.0; METRICS.len()]; n_brands];
    // Per brand inside the current question: Σ c·y by metric, and the denominators that are
    // the brand's own (order: answers naming it; tone: answers labelling it) with their Σ (c·x)².
    let mut y = vec![[0.0; METRICS.len()]; n_brands];
    let mut own = vec![[0.0; 4]; n_brands];
    // The scope holds each question's answers together, in runs.
    let mut start = 0;
    while start < scope.answers.len() {
        let question = scope.answers[start].question;
        let end = (start..scope.answers.len())
            .find(|&i| scope.answers[i].question != question)
            .unwrap_or(scope.answers.len());
        let range = start..end;
        start = end;
        let Some(g) = key[question] else { continue };
        // Denominators every brand shares: all answers, answers naming a brand, mentions.
        let (mut x_all, mut x_any, mut x_k, mut q_all, mut q_any, mut q_k) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for i in range {
            let (a, c) = (scope.answers[i], scope.weights[i]);
            let k = a.brands.order.len() as f64;
            x_all += c;
            q_all += c * c;
            if k > 0.0 {
                x_any += c;
                q_any += c * c;
                x_k += c * k;
                q_k += (c * k) * (c * k);
            }
            for (index, &b) in a.brands.order.iter().enumerate() {
                let Some(sums) = y.get_mut(b) else { continue };
                let position = index + 1;
                sums[MENTION] += c;
                sums[ORDER] += c * position as f64;
                sums[PROMINENCE] += c * prominence_points(Some(position));
                sums[SOV] += c;
                if position == 1 {
                    sums[TOP1] += c;
                }
                own[b][0] += c;
                own[b][1] += c * c;
            }
            for &b in &a.brands.cited {
                if let Some(sums) = y.get_mut(b) {
                    sums[CITATION] += c;
                }
            }
            for &(b, tone) in &a.tone {
                let Some(sums) = y.get_mut(b) else { continue };
                sums[TONE] += c * match tone {
                    Tone::Pos => 1.0,
                    Tone::Neu => 0.0,
                    Tone::Neg => -1.0,
                };
                own[b][2] += c;
                own[b][3] += c * c;
            }
        }
        for b in 0..n_brands {
            let sums = std::mem::take(&mut y[b]);
            let [x_order, q_order, x_tone, q_tone] = std::mem::take(&mut own[b]);
            let x = [x_all, x_order, x_all, x_all, x_any, x_k, x_tone];
            let q = [q_all, q_order, q_all, q_all, q_any, q_k, q_tone];
            for m in 0..METRICS.len() {
                // A question where the brand's own denominator is 0 adds nothing.
                if x[m] != 0.0 || sums[m] != 0.0 {
                    clusters[b][m].push((g, sums[m], x[m]));
                }
                cx2[b][m] += q[m];
            }
        }
    }
    Sums { clusters, cx2 }
}

/// [`cluster_sums`] the slow way, answer by answer and brand by brand, from [`y_x`].
#[cfg(test)]
fn cluster_sums_by_answer(scope: &Scope<'_>, key: &[Option<usize>], n_brands: usize) -> Sums {
    let mut clusters: Vec<Vec<Vec<(usize, f64, f64)>>> = vec![vec![Vec::new(); METRICS.len()]; n_brands];
    let mut cx2 = vec![vec![0.0; METRICS.len()]; n_brands];
    for (a, &c) in scope.answers.iter().zip(&scope.weights) {
        let Some(g) = key[a.question] else { continue };
        for (b, per_metric) in clusters.iter_mut().enumerate() {
            for (m, &metric) in METRICS.iter().enumerate() {
                let (y, x) = y_x(a, b, metric);
                let list = &mut per_metric[m];
                match list.last_mut() {
                    Some(last) if last.0 == g => {
                        last.1 += c * y;
                        last.2 += c * x;
                    }
                    _ => list.push((g, c * y, c * x)),
                }
                cx2[b][m] += (c * x) * (c * x);
            }
        }
    }
    for per_metric in &mut clusters {
        for list in per_metric {
            list.retain(|&(_, y, x)| x != 0.0 || y != 0.0);
        }
    }
    Sums { clusters, cx2 }
}

/// The range a metric's values lie in (for its interval).
fn range(metric: Metric) -> (f64, f64) {
    match metric {
        Metric::Order => (1.0, f64::INFINITY),
        Metric::Prominence => (0.0, 10.0),
        Metric::NetTone => (-1.0, 1.0),
        _ => (0.0, 1.0),
    }
}

fn is_rate(metric: Metric) -> bool {
    !matches!(metric, Metric::Order | Metric::Prominence | Metric::NetTone)
}

/// One run's residuals by question and its unrounded interval (`None`: fewer than two
/// questions in the base).
struct Linear {
    /// `(question key, e_g)`, sorted by key.
    residuals: Vec<(usize, f64)>,
    variance: f64,
    bounds: Option<(f64, f64)>,
}

fn linearise(r: f64, clusters: &[(usize, f64, f64)], cx2: f64, metric: Metric) -> Linear {
    let cx: f64 = clusters.iter().map(|(_, _, x)| x).sum();
    let mut residuals: Vec<(usize, f64)> =
        clusters.iter().map(|&(g, y, x)| (g, if cx > 0.0 { (y - r * x) / cx } else { 0.0 })).collect();
    residuals.sort_unstable_by_key(|&(g, _)| g);
    let variance: f64 = residuals.iter().map(|(_, e)| e * e).sum();
    let questions = clusters.iter().filter(|(_, _, x)| *x != 0.0).count();
    let (low, high) = range(metric);
    let bounds = if is_rate(metric) {
        let kish = if cx2 > 0.0 { cx * cx / cx2 } else { 0.0 };
        let n_ef = if variance > 0.0 { (r * (1.0 - r) / variance).min(kish) } else { kish };
        (questions >= 2 && n_ef > 0.0).then(|| interval::wilson(r, n_ef))
    } else {
        let half = Z95 * variance.sqrt();
        (questions >= 2).then(|| ((r - half).clamp(low, high), (r + half).clamp(low, high)))
    };
    Linear { residuals, variance, bounds }
}

/// `Σ_g e1_g·e2_g` over the keys both sorted lists hold, in key order.
fn cross_sum(before: &[(usize, f64)], now: &[(usize, f64)]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < before.len() && j < now.len() {
        match before[i].0.cmp(&now[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                sum += before[i].1 * now[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

/// A change cell: the difference's 95% interval by MOVER, rounded as published.
pub fn difference_interval(before: (f64, (f64, f64)), now: (f64, (f64, f64)), rho: f64) -> (f64, f64) {
    let (low, high) = mover(before, now, rho);
    (round_float(low, 4), round_float(high, 4))
}

/// The unrounded MOVER interval of `R2 − R1` from each run's value and interval and their
/// correlation. When a run's interval was clipped to the metric's range (a mean at its
/// bound), the clipped distance is what enters: that side of the difference's interval is
/// narrower than the symmetric `D ± z·√Σ(e2 − e1)²`.
fn mover(before: (f64, (f64, f64)), now: (f64, (f64, f64)), rho: f64) -> (f64, f64) {
    let (r1, (l1, u1)) = before;
    let (r2, (l2, u2)) = now;
    let d = r2 - r1;
    let rho = rho.clamp(-1.0, 1.0);
    let (a, b) = (r2 - l2, u1 - r1);
    let (c, e) = (u2 - r2, r1 - l1);
    let low = d - (a * a + b * b - 2.0 * rho * a * b).max(0.0).sqrt();
    let high = d + (c * c + e * e - 2.0 * rho * c * e).max(0.0).sqrt();
    (low, high)
}

/// The verdict of a (rounded) interval of a difference.
pub fn verdict(low: f64, high: f64) -> &'static str {
    if low > 0.0 {
        GREW
    } else if high < 0.0 {
        FELL
    } else {
        NO_CHANGE
    }
}

/// `now − before` of two published values, exactly at 4 decimals; never −0.
pub fn published_difference(before: f64, now: f64) -> f64 {
    let units = (now * 1e4).round() - (before * 1e4).round();
    let d = units / 1e4;
    if d == 0.0 { 0.0 } else { d }
}

/// One brand and metric of a change table before the family's verdict: each run's estimate
/// and, when both runs have an interval, the test of their difference.
#[derive(Debug, Clone, Copy)]
struct ChangeCell {
    before: Option<Estimate>,
    now: Option<Estimate>,
    test: Option<Test>,
}

/// The difference of a cell whose runs both have an interval.
#[derive(Debug, Clone, Copy)]
struct Test {
    /// `R2 − R1`, unrounded.
    d: f64,
    /// Its unrounded 95% MOVER interval.
    low: f64,
    high: f64,
    /// Shared questions in the base of either run: the clusters of the paired difference.
    clusters: usize,
    /// Its two-sided p-value ([`multiplicity::p_value`]); `None` with fewer than
    /// [`multiplicity::MIN_CLUSTERS`] questions: not tested.
    p: Option<f64>,
}

/// Every brand's and metric's cell of one change table, tested.
fn test_cells(n_brands: usize, before: &Side, now: &Side) -> Vec<Vec<ChangeCell>> {
    (0..n_brands)
        .map(|b| {
            METRICS
                .iter()
                .enumerate()
                .map(|(m, &metric)| {
                    let (eb, en) = (before.estimates[b][m], now.estimates[b][m]);
                    let lb = linearise(
                        eb.map_or(0.0, |e| e.raw),
                        &before.sums.clusters[b][m],
                        before.sums.cx2[b][m],
                        metric,
                    );
                    let ln = linearise(en.map_or(0.0, |e| e.raw), &now.sums.clusters[b][m], now.sums.cx2[b][m], metric);
                    ChangeCell { before: eb, now: en, test: test(eb, en, &lb, &ln) }
                })
                .collect()
        })
        .collect()
}

/// The test of a difference, when both runs have a value and an interval.
fn test(before: Option<Estimate>, now: Option<Estimate>, before_linear: &Linear, now_linear: &Linear) -> Option<Test> {
    let (b, a) = (before?, now?);
    let (lb, la) = (before_linear.bounds?, now_linear.bounds?);
    let cross = cross_sum(&before_linear.residuals, &now_linear.residuals);
    let rho = if before_linear.variance > 0.0 && now_linear.variance > 0.0 {
        cross / (before_linear.variance * now_linear.variance).sqrt()
    } else {
        0.0
    };
    let (low, high) = mover((b.raw, lb), (a.raw, la), rho);
    let d = a.raw - b.raw;
    let clusters = union_size(&before_linear.residuals, &now_linear.residuals);
    let p = (clusters >= multiplicity::MIN_CLUSTERS).then(|| multiplicity::p_value(d, low, high, clusters));
    Some(Test { d, low, high, clusters, p })
}

/// How many keys two lists sorted by key hold between them.
fn union_size(before: &[(usize, f64)], now: &[(usize, f64)]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < before.len() || j < now.len() {
        match (before.get(i), now.get(j)) {
            (Some(a), Some(b)) if a.0 == b.0 => (i, j) = (i + 1, j + 1),
            (Some(a), Some(b)) if a.0 < b.0 => i += 1,
            (Some(_), None) => i += 1,
            _ => j += 1,
        }
        n += 1;
    }
    n
}

/// The nine cells of one brand and metric, with the family's verdict.
fn metric_cells(cell: &ChangeCell, family: &Family) -> [Cell; 9] {
    let value = |e: Option<Estimate>| e.map_or(Cell::Null, |e| Cell::Num(e.value));
    let n = |e: Option<Estimate>| Cell::Int(e.map_or(0, |e| i64::try_from(e.uncertainty.n).unwrap_or(i64::MAX)));
    let diff = match (cell.before, cell.now) {
        (Some(b), Some(a)) => Cell::Num(published_difference(b.value, a.value)),
        _ => Cell::Null,
    };
    let [ic, p, adjusted, word] = match cell.test {
        Some(Test { d, low, high, clusters, p: Some(p) }) => {
            let (adjusted_low, adjusted_high) = family.adjusted(d, low, high, clusters);
            let word = if !family.discovers(p) {
                NO_CHANGE
            } else if d > 0.0 {
                GREW
            } else {
                FELL
            };
            [
                Cell::Interval(round_float(low, 4), round_float(high, 4)),
                Cell::Num(significant(p, 4)),
                Cell::Interval(round_float(adjusted_low, 4), round_float(adjusted_high, 4)),
                Cell::Text(word.to_owned()),
            ]
        }
        // Too few questions to test: the 95% interval alone.
        Some(t) => [Cell::Interval(round_float(t.low, 4), round_float(t.high, 4)), Cell::Null, Cell::Null, Cell::Null],
        None => [Cell::Null, Cell::Null, Cell::Null, Cell::Null],
    };
    [value(cell.before), n(cell.before), value(cell.now), n(cell.now), diff, ic, p, adjusted, word]
}

/// `x` rounded to `digits` significant digits (a p-value: small ones keep their digits).
pub fn significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let exponent = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - exponent);
    (x * scale).round() / scale
}

/// The title of a change table, in Spanish and English, from the design alone.
pub fn titles(study: &Study, scope: &ChangeScope) -> (String, String) {
    match scope {
        ChangeScope::Total => (
            "Cambio desde la corrida anterior: todos los modelos".to_owned(),
            "Change since the previous run: all models".to_owned(),
        ),
        ChangeScope::Model(model) => (
            format!("Cambio desde la corrida anterior: {model} (el mismo modelo en las dos corridas)"),
            format!("Change since the previous run: {model} (the same model in both runs)"),
        ),
        ChangeScope::Tier(tier) => {
            let previous = study.design.previous_run.as_ref().map(|p| p.models.as_slice()).unwrap_or_default();
            let before = model_ids(previous, scope).join(", ");
            let now = model_ids(&study.design.models, scope).join(", ");
            (
                format!(
                    "Cambio desde la corrida anterior: nivel {} (cambió el modelo: {before} → {now})",
                    tier.as_str()
                ),
                format!(
                    "Change since the previous run: {} tier (the model changed: {before} → {now})",
                    match tier {
                        Tier::Standard => "standard",
                        Tier::Advanced => "advanced",
                    }
                ),
            )
        }
    }
}

fn models_of(study: &Study, scope: &ChangeScope) -> Vec<String> {
    model_ids(&study.design.models, scope)
}

fn model_ids(models: &[crate::model::ModelSpec], scope: &ChangeScope) -> Vec<String> {
    models
        .iter()
        .filter(|m| match scope {
            ChangeScope::Total => true,
            ChangeScope::Model(id) => m.id == *id,
            ChangeScope::Tier(tier) => m.level == *tier,
        })
        .map(|m| m.id.clone())
        .collect()
}

fn table(
    study: &Study,
    previous: &Study,
    id: &str,
    scope: &ChangeScope,
    cells: &[Vec<ChangeCell>],
    counts: QuestionCounts,
    family: &Family,
) -> Table {
    let mut columns = vec!["marca".to_owned()];
    for metric in METRICS {
        columns.extend(COLUMNS.iter().map(|suffix| format!("{}{suffix}", metric.id())));
    }
    let rows = study
        .brands
        .iter()
        .enumerate()
        .map(|(b, brand)| {
            let mut row = vec![Cell::Text(brand.name.clone())];
            for cell in &cells[b] {
                row.extend(metric_cells(cell, family));
            }
            row
        })
        .collect();
    let (before_models, now_models) = (models_of(previous, scope).join(", "), models_of(study, scope).join(", "));
    let (title, title_en) = titles(study, scope);
    let note = format!(
        "Base: {} preguntas compartidas por las dos corridas ({} agregadas y {} retiradas quedan fuera). Modelos: anterior {before_models}; actual {now_models}. Diferencia = actual − anterior; intervalo al 95 % de la diferencia pareado por pregunta (MOVER con la correlación entre corridas) y su valor p. {}",
        counts.shared,
        counts.added,
        counts.withdrawn,
        family_note(family)
    );
    Table { id: id.to_owned(), name: String::new(), title, title_en, columns, rows, note: Some(note) }
}

/// What a change table's note says of the family: its tests, its changes, the adjusted level.
pub fn family_note(family: &Family) -> String {
    format!(
        "Veredicto (creció, cayó o sin cambio más allá del ruido) con control de multiplicidad: Benjamini–Hochberg con una tasa de falsos descubrimientos del 5 % sobre las {} pruebas de cambio del estudio (todas sus tablas de cambio), {} cambios (al 95 % sin ajuste serían {}); intervalo ajustado al {} % (Benjamini–Yekutieli), que excluye el 0 en los cambios.",
        family.tests,
        family.discoveries,
        family.unadjusted,
        percent(family.level)
    )
}

/// A level as a percentage with the decimals it needs (99,98).
fn percent(level: f64) -> String {
    let mut text = format!("{:.4}", level * 100.0);
    while text.ends_with('0') {
        text.pop();
    }
    text.trim_end_matches('.').replace('.', ",")
}

/// True for a change table's id.
pub fn is_change_table(id: &str) -> bool {
    id.starts_with(PREFIX)
}

/// The metric of a `<metric>_diferencia` column.
pub fn difference_metric(column: &str) -> Option<Metric> {
    let base = column.strip_suffix("_diferencia")?;
    METRICS.into_iter().find(|m| m.id() == base)
}

/// What a finding backing claims about a change cell, and whether the cell's verdict bears
/// it out.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChangeClaim {
    #[serde(rename = "tabla")]
    pub table: String,
    #[serde(rename = "fila")]
    pub row: String,
    #[serde(rename = "columna")]
    pub column: String,
    /// `creció`, `cayó` or `sin cambio más allá del ruido`: what the text says.
    #[serde(rename = "afirma")]
    pub claims: String,
    /// The cell's verdict, controlled for multiplicity (`None`: no interval).
    #[serde(rename = "veredicto")]
    pub verdict: Option<String>,
    /// The cell's 95% interval, its p-value and its multiplicity-adjusted interval (the one
    /// the verdict follows).
    pub ic95: Option<(f64, f64)>,
    pub p: Option<f64>,
    #[serde(rename = "ic_ajustado")]
    pub adjusted: Option<(f64, f64)>,
    #[serde(rename = "se_sostiene")]
    pub holds: bool,
}

impl ChangeClaim {
    pub fn describe(&self) -> String {
        let cell = match (self.adjusted, self.p, self.ic95) {
            (Some((l, h)), Some(p), Some((l95, h95))) => {
                format!("p = {p}, intervalo ajustado por multiplicidad [{l}, {h}] (al 95 % sin ajuste: [{l95}, {h95}])")
            }
            _ => "sin intervalo".to_owned(),
        };
        format!(
            "{} / {} / {} afirma «{}»; la celda da {cell}, veredicto «{}»",
            self.table,
            self.row,
            self.column,
            self.claims,
            self.verdict.as_deref().unwrap_or("sin veredicto")
        )
    }
}

/// The change claims of a finding: each backing (not `contexto`) on a `<metric>_diferencia`
/// column of a change table claims the change its value's sign says (`creció` above 0,
/// `cayó` below), or no change beyond the noise when marked `empate` (or when the value is 0).
pub fn claims(finding: &crate::model::Finding, tables: &[Table]) -> Vec<ChangeClaim> {
    let mut found = Vec::new();
    for b in &finding.backing {
        if b.context || !is_change_table(&b.table) || difference_metric(&b.column).is_none() {
            continue;
        }
        let Some(table) = tables.iter().find(|t| t.id == b.table) else { continue };
        let claims = if b.tie || b.value == 0.0 {
            NO_CHANGE
        } else if b.value > 0.0 {
            GREW
        } else {
            FELL
        };
        let interval = |suffix: &str| match table.cell(&b.row, &format!("{}{suffix}", b.column)) {
            Some(Cell::Interval(l, h)) => Some((*l, *h)),
            _ => None,
        };
        let (ic95, adjusted) = (interval("_ic95"), interval("_ic_ajustado"));
        let p = table.cell(&b.row, &format!("{}_p", b.column)).and_then(Cell::as_f64);
        let verdict = match table.cell(&b.row, &format!("{}_veredicto", b.column.trim_end_matches("_diferencia"))) {
            Some(Cell::Text(v)) => Some(v.clone()),
            _ => None,
        };
        let holds = verdict.as_deref() == Some(claims);
        found.push(ChangeClaim {
            table: b.table.clone(),
            row: b.row.clone(),
            column: b.column.clone(),
            claims: claims.to_owned(),
            verdict,
            ic95,
            p,
            adjusted,
            holds,
        });
    }
    found
}

#[cfg(test)]
mod tests;
