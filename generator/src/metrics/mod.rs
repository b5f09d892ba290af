//! Stage 3, metrics: every number a study publishes comes from these functions.
//!
//! [`mentions`] finds the brands each answer names and cites; the formulas below turn those
//! into weighted rates and scores; [`analysis`] arranges them into the study's tables.
//!
//! Formulas (stated to buyers in `content/metricas.toml`, and to publishers in
//! `docs/src/publicar/metricas.md`):
//!
//! - **Mención**: weighted share of answers that name the brand.
//! - **Orden**: mean 1-based position of first appearance, over answers naming the brand
//!   only; `None` when no answer names it (never 0). `n_orden` is published beside it.
//! - **Citación**: weighted share of answers whose sources include a brand domain or a
//!   subdomain of it. **Citación fantasma**: cited but not named.
//! - **Consultada y no citada**: among the answers that record the sources the provider
//!   consulted, the weighted share that consulted a brand domain (or a subdomain) and cited
//!   none; `None` when no answer in scope records them (not recorded is not 0).
//! - **Protagonismo IA**: 10, 8, 7, 6, 5 for positions 1, 2, 3, 4, 5+, 0 when absent,
//!   averaged over all answers in scope (0–10).
//! - **Top1**: share of the answers that name some brand in which this brand comes first.
//! - **SoV**: the brand's mentions over all tracked-brand mentions.
//! - **HHI**: Σ share² × 10,000 over SoV (or Top1) shares of the tracked brands.
//! - **Acuerdo**: per question and pair of models, Jaccard of the brand sets (pairs where
//!   both sets are empty are skipped and counted) and whether the first brand matches.
//! - **Tono neto**: (pos − neg) / labelled, from the labels in the content.
//!
//! **Weighting.** Models weigh equally unless the study declares market-share weights. In a
//! scope (a table cell's set of answers) each answer of model *m* weighs `w_m / n_m`, where
//! `w_m` is the model's weight renormalised over the models present and `n_m` its number of
//! answers in the scope. So each model contributes its weight whatever its answer count.
//! Agreement is per question and is not weighted.
//!
//! **Exactness.** Every number is a ratio of per-model integer counts under those weights,
//! computed exactly ([`exact`]) and rounded once, half away from zero, to 4 decimals. Beside
//! each rate or mean the tables publish its base `n`, the effective `n` and a 95% interval
//! that treats the answers to one question as a cluster ([`interval`]).
//!
//! Everything is computed serially in a fixed order, so the numbers are identical on every
//! run and thread count.

pub mod analysis;
pub mod change;
pub mod compare;
pub mod exact;
pub mod interval;
pub mod mentions;
pub mod multiplicity;

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::Zero;

use crate::metrics::exact::{Exact, Term};
use crate::metrics::interval::{Spread, Uncertainty};
use crate::metrics::mentions::{AnswerBrands, BrandMatcher};
use crate::model::{Metric, Study, Tone};

/// Protagonismo IA points for a 1-based position (`None` = absent).
pub fn prominence_points(position: Option<usize>) -> f64 {
    match position {
        None | Some(0) => 0.0,
        Some(1) => 10.0,
        Some(2) => 8.0,
        Some(3) => 7.0,
        Some(4) => 6.0,
        Some(_) => 5.0,
    }
}

/// What the engine needs of one answer, extracted once per study.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerFacts {
    /// Index in `study.answers`.
    pub answer: usize,
    /// Index in `study.questions`.
    pub question: usize,
    /// Index in `study.design.modelos`.
    pub model: usize,
    /// The answer's repetition (1 when the line does not say).
    pub repetition: u32,
    pub brands: AnswerBrands,
    /// Tone labels by brand index, sorted.
    pub tone: Vec<(usize, Tone)>,
}

impl AnswerFacts {
    pub fn names(&self, brand: usize) -> bool {
        self.brands.order.contains(&brand)
    }
}

/// The brands named and cited in every answer of a study, in the order of `study.answers`.
/// Computed once per build: the metrics and the package's per-answer mentions both read it.
pub fn answer_brands(study: &Study) -> Vec<AnswerBrands> {
    let matcher = BrandMatcher::new(&study.brands);
    study
        .answers
        .iter()
        .map(|answer| {
            let urls: Vec<&str> = answer.sources.iter().map(|s| s.url.as_str()).collect();
            let consulted: Option<Vec<&str>> =
                answer.consulted.as_ref().map(|c| c.iter().map(|s| s.url.as_str()).collect());
            matcher.analyse(&answer.answer, &urls, consulted.as_deref())
        })
        .collect()
}

/// Extracts the facts of every answer of a validated study (unknown references are skipped;
/// validation reports them).
pub fn extract_facts(study: &Study) -> Vec<AnswerFacts> {
    extract_facts_with(study, &answer_brands(study))
}

/// [`extract_facts`] from the brands already found, `brands[i]` for `study.answers[i]`.
pub fn extract_facts_with(study: &Study, brands: &[AnswerBrands]) -> Vec<AnswerFacts> {
    let question_index: BTreeMap<&str, usize> =
        study.questions.iter().enumerate().map(|(i, q)| (q.id.as_str(), i)).collect();
    let model_index: BTreeMap<&str, usize> =
        study.design.models.iter().enumerate().map(|(i, m)| (m.id.as_str(), i)).collect();
    let brand_index: BTreeMap<&str, usize> = study.brands.iter().enumerate().map(|(i, b)| (b.id.as_str(), i)).collect();

    let mut facts = Vec::with_capacity(study.answers.len());
    for ((answer_index, answer), found) in study.answers.iter().enumerate().zip(brands) {
        let (Some(&question), Some(&model)) =
            (question_index.get(answer.question.as_str()), model_index.get(answer.model.as_str()))
        else {
            continue;
        };
        let tone = answer
            .tone
            .iter()
            .filter_map(|(id, tone)| brand_index.get(id.as_str()).map(|&b| (b, *tone)))
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect();
        let repetition = answer.repetition();
        facts.push(AnswerFacts { answer: answer_index, question, model, repetition, brands: found.clone(), tone });
    }
    facts
}

/// Puts the answers of each question together, questions in order of first appearance and
/// scope order inside each (a stable sort); answers already grouped are left as they are.
fn group_by_question(answers: &mut [&AnswerFacts]) {
    let size = answers.iter().map(|a| a.question + 1).max().unwrap_or(0);
    let mut rank = vec![usize::MAX; size];
    let mut next = 0;
    let mut grouped = true;
    for (i, a) in answers.iter().enumerate() {
        if rank[a.question] == usize::MAX {
            rank[a.question] = next;
            next += 1;
        } else if i > 0 && answers[i - 1].question != a.question {
            grouped = false; // the question came back after another one
        }
    }
    if !grouped {
        answers.sort_by_key(|a| rank[a.question]);
    }
}

/// A study's model weights: as declared (1 each when the study declares none), as floats for
/// the intervals and as integers on one decimal scale for the exact numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelWeights {
    raw: Vec<f64>,
    decimal: Vec<u128>,
}

impl ModelWeights {
    /// Weights by model index; only their ratios matter (they are renormalised per scope).
    pub fn new(raw: &[f64]) -> ModelWeights {
        let raw: Vec<f64> = raw.iter().map(|w| if w.is_finite() { w.max(0.0) } else { 0.0 }).collect();
        ModelWeights { decimal: exact::decimal_weights(&raw), raw }
    }

    fn float(&self, model: usize) -> f64 {
        self.raw.get(model).copied().unwrap_or(0.0)
    }

    fn decimal(&self, model: usize) -> u128 {
        self.decimal.get(model).copied().unwrap_or(0)
    }
}

/// The weights of a study's models, as declared in `ponderacion` (or equal).
pub fn model_weights(study: &Study) -> ModelWeights {
    let raw: Vec<f64> = match &study.design.weighting {
        Some(weighting) => {
            study.design.models.iter().map(|m| weighting.weights.get(&m.id).copied().unwrap_or(0.0)).collect()
        }
        None => vec![1.0; study.design.models.len()],
    };
    ModelWeights::new(&raw)
}

/// A set of answers (a table cell's base) and the weight each one carries in aggregates.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    /// Grouped by question (clusters), in first-appearance order; scope order inside each.
    pub answers: Vec<&'a AnswerFacts>,
    /// `c_i = w_m / W / n_m` for each answer (floating point, for the intervals).
    pub weights: Vec<f64>,
    /// Slot (index in `models`) of each answer.
    slots: Vec<usize>,
    /// Models present, in model order: (decimal weight, answers in scope), and their indexes.
    models: Vec<(u128, u64)>,
    model_slots: Vec<usize>,
    /// `answers[clusters[k]..clusters[k + 1]]` share a question.
    clusters: Vec<usize>,
}

impl<'a> Scope<'a> {
    /// Weighs `answers` so that each model present contributes its (renormalised) weight.
    pub fn new(mut answers: Vec<&'a AnswerFacts>, weights: &ModelWeights) -> Scope<'a> {
        group_by_question(&mut answers);
        let mut clusters = vec![0];
        clusters.extend((1..answers.len()).filter(|&i| answers[i].question != answers[i - 1].question));
        if !answers.is_empty() {
            clusters.push(answers.len());
        } else {
            clusters.clear();
        }

        // Answers per model index, then the models present in model order (their slots).
        let mut per_model: Vec<u64> = Vec::new();
        for a in &answers {
            if per_model.len() <= a.model {
                per_model.resize(a.model + 1, 0);
            }
            per_model[a.model] += 1;
        }
        let model_slots: Vec<usize> = (0..per_model.len()).filter(|&m| per_model[m] > 0).collect();
        let mut slot_of = vec![0; per_model.len()];
        for (slot, &m) in model_slots.iter().enumerate() {
            slot_of[m] = slot;
        }
        let models = model_slots.iter().map(|&m| (weights.decimal(m), per_model[m])).collect();
        let present: f64 = model_slots.iter().map(|&m| weights.float(m)).sum();
        let floats = answers
            .iter()
            .map(|a| {
                let n = per_model[a.model] as f64;
                if present > 0.0 { weights.float(a.model) / present / n } else { 0.0 }
            })
            .collect();
        let slots = answers.iter().map(|a| slot_of[a.model]).collect();
        Scope { answers, weights: floats, slots, models, model_slots, clusters }
    }

    pub fn len(&self) -> usize {
        self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The answers of each question: ranges of indexes into `answers`.
    fn cluster_ranges(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.clusters.windows(2).map(|w| w[0]..w[1])
    }

    /// Exact ratio of per-model integer sums (`num[slot]`, `den[slot]`), times `factor`.
    fn ratio(&self, num: impl Fn(usize) -> i64, den: impl Fn(usize) -> i64, factor: i64) -> Option<Exact> {
        let terms: Vec<Term> = self
            .models
            .iter()
            .enumerate()
            .map(|(slot, &(weight, answers))| Term { weight, answers, num: num(slot), den: den(slot) })
            .collect();
        exact::weighted_ratio(&terms, factor)
    }

    /// The published (rounded) weighted share of the scope made by `hits`, answers of it.
    pub fn rounded_share(&self, hits: &[&AnswerFacts]) -> Option<f64> {
        let mut counts = vec![0_i64; self.models.len()];
        for a in hits {
            if let Some(slot) = self.model_slots.iter().position(|&m| m == a.model) {
                counts[slot] += 1;
            }
        }
        Some(self.ratio(|s| counts[s], |s| self.models[s].1 as i64, 1)?.rounded)
    }

    /// The weighted share of answers for which `holds` is true, with its interval.
    pub fn share(&self, holds: impl Fn(&AnswerFacts) -> bool) -> Option<Estimate> {
        let mut hits = vec![0_i64; self.models.len()];
        let mut spread = Spread::default();
        for range in self.cluster_ranges() {
            let (mut y, mut x) = (0.0, 0.0);
            for i in range {
                let c = self.weights[i];
                x += c;
                spread.add_answer(c);
                if holds(self.answers[i]) {
                    y += c;
                    hits[self.slots[i]] += 1;
                }
            }
            spread.add_cluster(y, x);
        }
        let value = self.ratio(|s| hits[s], |s| self.models[s].1 as i64, 1)?;
        Some(Estimate::rate(value, &spread))
    }
}

/// A published rate or mean: exact and rounded once, with its base and 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Rounded half away from zero to 4 decimals.
    pub value: f64,
    /// Unrounded (floating point), for the intervals and for comparisons.
    pub raw: f64,
    pub uncertainty: Uncertainty,
}

impl Estimate {
    fn rate(value: Exact, spread: &Spread) -> Estimate {
        Estimate { value: value.rounded, raw: value.value, uncertainty: interval::rate(value.value, spread) }
    }

    fn mean(value: Exact, spread: &Spread, low: f64, high: f64) -> Estimate {
        Estimate { value: value.rounded, raw: value.value, uncertainty: interval::mean(value.value, spread, low, high) }
    }
}

/// Per model, the integer sums of one brand over its answers in a scope.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    named: i64,
    positions: i64,
    points: i64,
    first: i64,
    cited: i64,
    ghost: i64,
    /// Answers recording their consulted sources, one on a brand domain, none cited.
    consulted: i64,
    labelled: i64,
    net: i64,
}

/// One brand's weighted sums inside the current question (see [`brand_stats`]).
#[derive(Debug, Clone, Copy, Default)]
struct ClusterSums {
    named: f64,
    positions: f64,
    points: f64,
    first: f64,
    cited: f64,
    ghost: f64,
    consulted: f64,
    labelled: f64,
    net: f64,
}

/// Every brand-level number of one brand in one scope, from exact per-model counts.
#[derive(Debug, Clone, Default)]
pub struct BrandStats {
    /// By model slot of the scope.
    counts: Vec<Counts>,
    spreads: BrandSpreads,
    pub n_mention: usize,
    pub pos: usize,
    pub neu: usize,
    pub neg: usize,
}

/// The numerators' spreads of one brand (denominators shared by all brands live in
/// [`ScopeStats`]).
#[derive(Debug, Clone, Default)]
struct BrandSpreads {
    mention: Spread,
    citation: Spread,
    ghost: Spread,
    consulted: Spread,
    prominence: Spread,
    top1: Spread,
    sov: Spread,
    order: Spread,
    tone: Spread,
}

impl BrandStats {
    pub fn n_tone(&self) -> usize {
        self.pos + self.neu + self.neg
    }
}

/// The brand statistics of a scope and what its brands share.
#[derive(Debug, Clone)]
pub struct ScopeStats<'s, 'a> {
    scope: &'s Scope<'a>,
    pub brands: Vec<BrandStats>,
    /// By model slot: answers naming some tracked brand, mentions (brands named) in all, and
    /// answers that record their consulted sources.
    with_brand: Vec<i64>,
    mentions: Vec<i64>,
    recorded: Vec<i64>,
    /// Denominator spreads: every answer, answers naming a brand, mentions, answers recording
    /// their consulted sources.
    all: Spread,
    any: Spread,
    per_mention: Spread,
    recorded_spread: Spread,
    /// Numerator spread of "names some brand" over all answers.
    with_brand_spread: Spread,
}

impl ScopeStats<'_, '_> {
    /// One brand-level metric of brand `b` (`None`: not defined in this scope).
    pub fn estimate(&self, b: usize, metric: Metric) -> Option<Estimate> {
        let s = self.brands.get(b)?;
        let scope = self.scope;
        let answers = |slot: usize| scope.models[slot].1 as i64;
        let count = |f: fn(&Counts) -> i64| move |slot: usize| f(&s.counts[slot]);
        let sp = &s.spreads;
        match metric {
            Metric::Mention => {
                Some(Estimate::rate(scope.ratio(count(|c| c.named), answers, 1)?, &sp.mention.with_shared(&self.all)))
            }
            Metric::Citation => {
                Some(Estimate::rate(scope.ratio(count(|c| c.cited), answers, 1)?, &sp.citation.with_shared(&self.all)))
            }
            Metric::PhantomCitation => {
                Some(Estimate::rate(scope.ratio(count(|c| c.ghost), answers, 1)?, &sp.ghost.with_shared(&self.all)))
            }
            Metric::ConsultedNotCited => Some(Estimate::rate(
                scope.ratio(count(|c| c.consulted), |slot| self.recorded[slot], 1)?,
                &sp.consulted.with_shared(&self.recorded_spread),
            )),
            Metric::Prominence => Some(Estimate::mean(
                scope.ratio(count(|c| c.points), answers, 1)?,
                &sp.prominence.with_shared(&self.all),
                0.0,
                10.0,
            )),
            Metric::Order => Some(Estimate::mean(
                scope.ratio(count(|c| c.positions), count(|c| c.named), 1)?,
                &sp.order,
                1.0,
                f64::INFINITY,
            )),
            Metric::Top1 => Some(Estimate::rate(
                scope.ratio(count(|c| c.first), |slot| self.with_brand[slot], 1)?,
                &sp.top1.with_shared(&self.any),
            )),
            Metric::Sov => Some(Estimate::rate(
                scope.ratio(count(|c| c.named), |slot| self.mentions[slot], 1)?,
                &sp.sov.with_shared(&self.per_mention),
            )),
            Metric::NetTone => {
                Some(Estimate::mean(scope.ratio(count(|c| c.net), count(|c| c.labelled), 1)?, &sp.tone, -1.0, 1.0))
            }
        }
    }

    /// Weighted share of answers naming at least one tracked brand.
    pub fn with_brand(&self) -> Option<Estimate> {
        let value = self.scope.ratio(|slot| self.with_brand[slot], |slot| self.scope.models[slot].1 as i64, 1)?;
        Some(Estimate::rate(value, &self.with_brand_spread.with_shared(&self.all)))
    }

    /// Herfindahl–Hirschman index (0–10,000) over the brands' shares of `numerator` within
    /// the per-model `denominator`, exactly; `None` when every share is 0.
    fn hhi(&self, numerator: fn(&Counts) -> i64, denominator: &[i64]) -> Option<f64> {
        let common = self.scope.models.iter().fold(BigInt::from(1), |l, m| l.lcm(&BigInt::from(m.1)));
        let weights: Vec<BigInt> = self
            .scope
            .models
            .iter()
            .map(|&(weight, answers)| BigInt::from(weight) * (&common / BigInt::from(answers)))
            .collect();
        let weighted =
            |sums: Vec<i64>| -> BigInt { sums.iter().zip(&weights).map(|(v, w)| w * BigInt::from(*v)).sum() };
        let den = weighted(denominator.to_vec());
        let shares: Vec<BigInt> =
            self.brands.iter().map(|b| weighted(b.counts.iter().map(numerator).collect())).collect();
        if den.is_zero() || shares.iter().all(Zero::is_zero) {
            return None;
        }
        let squares: BigInt = shares.iter().map(|n| n * n).sum();
        exact::big_exact(squares * BigInt::from(10_000), &den * &den).map(|e| e.rounded)
    }
}

/// Brand statistics for every brand `0..n_brands` over a scope.
///
/// One pass over the answers, question by question, touching only the brands each answer
/// names, cites or rates: the cost follows the mentions, not answers × brands. The numbers
/// come from exact per-model counts; the per-question sums feed the intervals.
pub fn brand_stats<'s, 'a>(scope: &'s Scope<'a>, n_brands: usize) -> ScopeStats<'s, 'a> {
    let slots = scope.models.len();
    let mut brands: Vec<BrandStats> =
        (0..n_brands).map(|_| BrandStats { counts: vec![Counts::default(); slots], ..Default::default() }).collect();
    let mut stats = ScopeStats {
        scope,
        brands: Vec::new(),
        with_brand: vec![0; slots],
        mentions: vec![0; slots],
        recorded: vec![0; slots],
        all: Spread::default(),
        any: Spread::default(),
        per_mention: Spread::default(),
        recorded_spread: Spread::default(),
        with_brand_spread: Spread::default(),
    };
    let mut cluster = vec![ClusterSums::default(); n_brands];
    let mut touched: Vec<usize> = Vec::new();
    for range in scope.cluster_ranges() {
        let (mut x_all, mut x_any, mut x_mentions, mut x_recorded) = (0.0, 0.0, 0.0, 0.0);
        for i in range {
            let (a, c, slot) = (scope.answers[i], scope.weights[i], scope.slots[i]);
            let k = a.brands.order.len();
            x_all += c;
            stats.all.add_answer(c);
            if let Some(consulted) = &a.brands.consulted {
                x_recorded += c;
                stats.recorded_spread.add_answer(c);
                stats.recorded[slot] += 1;
                for &b in consulted.iter().filter(|&&b| !a.brands.cited.contains(&b)) {
                    let Some(brand) = brands.get_mut(b) else { continue };
                    brand.counts[slot].consulted += 1;
                    cluster[b].consulted += c;
                    touched.push(b);
                }
            }
            if k > 0 {
                x_any += c;
                x_mentions += c * k as f64;
                stats.any.add_answer(c);
                stats.per_mention.add_answer(c * k as f64);
                stats.with_brand[slot] += 1;
                stats.mentions[slot] += k as i64;
            }
            for (index, &b) in a.brands.order.iter().enumerate() {
                let Some(brand) = brands.get_mut(b) else { continue };
                let position = index + 1;
                let points = prominence_points(Some(position));
                let counts = &mut brand.counts[slot];
                counts.named += 1;
                counts.positions += position as i64;
                counts.points += points as i64;
                brand.n_mention += 1;
                brand.spreads.order.add_answer(c);
                let sums = &mut cluster[b];
                sums.named += c;
                sums.positions += c * position as f64;
                sums.points += c * points;
                if position == 1 {
                    counts.first += 1;
                    sums.first += c;
                }
                touched.push(b);
            }
            for &b in &a.brands.cited {
                let Some(brand) = brands.get_mut(b) else { continue };
                let ghost = !a.names(b);
                brand.counts[slot].cited += 1;
                cluster[b].cited += c;
                if ghost {
                    brand.counts[slot].ghost += 1;
                    cluster[b].ghost += c;
                }
                touched.push(b);
            }
            for &(b, tone) in &a.tone {
                let Some(brand) = brands.get_mut(b) else { continue };
                let net = match tone {
                    Tone::Pos => {
                        brand.pos += 1;
                        1
                    }
                    Tone::Neu => {
                        brand.neu += 1;
                        0
                    }
                    Tone::Neg => {
                        brand.neg += 1;
                        -1
                    }
                };
                brand.counts[slot].labelled += 1;
                brand.counts[slot].net += net;
                brand.spreads.tone.add_answer(c);
                cluster[b].labelled += c;
                cluster[b].net += c * net as f64;
                touched.push(b);
            }
        }
        stats.all.add_cluster(0.0, x_all);
        stats.any.add_cluster(0.0, x_any);
        stats.per_mention.add_cluster(0.0, x_mentions);
        stats.recorded_spread.add_cluster(0.0, x_recorded);
        stats.with_brand_spread.add_numerator(x_any, x_all);
        touched.sort_unstable();
        touched.dedup();
        for &b in &touched {
            let sums = std::mem::take(&mut cluster[b]);
            let spreads = &mut brands[b].spreads;
            spreads.mention.add_numerator(sums.named, x_all);
            spreads.citation.add_numerator(sums.cited, x_all);
            spreads.ghost.add_numerator(sums.ghost, x_all);
            spreads.consulted.add_numerator(sums.consulted, x_recorded);
            spreads.prominence.add_numerator(sums.points, x_all);
            spreads.top1.add_numerator(sums.first, x_any);
            spreads.sov.add_numerator(sums.named, x_mentions);
            spreads.order.add_cluster(sums.positions, sums.named);
            spreads.tone.add_cluster(sums.net, sums.labelled);
        }
        touched.clear();
    }
    stats.brands = brands;
    stats
}

/// Concentration of one scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Concentration {
    pub answers: usize,
    /// Weighted share of answers naming at least one tracked brand.
    pub with_brand: Option<Estimate>,
    pub distinct_brands: usize,
    /// Brand index with the highest Top1 share (ties: lowest index).
    pub leader: Option<usize>,
    pub leader_top1: Option<Estimate>,
    pub hhi_sov: Option<f64>,
    pub hhi_top1: Option<f64>,
}

pub fn concentration(scope: &Scope<'_>, n_brands: usize) -> Concentration {
    let stats = brand_stats(scope, n_brands);
    let mut leader: Option<(usize, Estimate)> = None;
    for b in 0..n_brands {
        // Compare published (rounded) values, so a tie in the table is a tie here: the first
        // brand in `marcas.toml` wins it.
        if let Some(t) = stats.estimate(b, Metric::Top1).filter(|t| t.value > 0.0)
            && leader.is_none_or(|(_, best)| t.value > best.value)
        {
            leader = Some((b, t));
        }
    }
    Concentration {
        answers: scope.len(),
        with_brand: stats.with_brand(),
        distinct_brands: stats.brands.iter().filter(|s| s.n_mention > 0).count(),
        leader: leader.map(|(b, _)| b),
        leader_top1: leader.map(|(_, t)| t),
        hhi_sov: stats.hhi(|c| c.named, &stats.mentions),
        hhi_top1: stats.hhi(|c| c.first, &stats.with_brand),
    }
}

/// Agreement between two models (or every pair) over the questions both answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agreement {
    /// Questions both models answered (pairs of answers, for the pooled total).
    pub questions: usize,
    /// Of those, questions where neither named a brand (left out of the Jaccard mean).
    pub skipped: usize,
    /// How many compared questions had each Jaccard fraction (shared, either): summed
    /// exactly at the end.
    jaccards: BTreeMap<(u32, u32), i64>,
    /// Questions where both named some brand (the top-1 denominator).
    pub top1_compared: usize,
    pub top1_matches: usize,
    /// Per question: Σ Jaccard and compared pairs; top-1 matches and comparisons.
    jaccard_spread: Spread,
    top1_spread: Spread,
}

impl Agreement {
    /// Mean Jaccard over the compared questions, exact, with its interval.
    pub fn jaccard(&self) -> Option<Estimate> {
        let compared = self.questions - self.skipped;
        let mut num = BigInt::zero();
        let mut den = BigInt::from(1);
        // Σ count · shared / either over distinct fractions, as one fraction num / den.
        for (&(shared, either), &count) in &self.jaccards {
            let either = BigInt::from(either);
            num = num * &either + BigInt::from(count) * BigInt::from(shared) * &den;
            den *= either;
        }
        let value = exact::big_exact(num, den * BigInt::from(compared))?;
        Some(Estimate::mean(value, &self.jaccard_spread, 0.0, 1.0))
    }

    /// Share of the questions where both named a brand whose first brand is the same.
    pub fn top1_match(&self) -> Option<Estimate> {
        let value = exact::ratio(self.top1_matches as i128, self.top1_compared as i128)?;
        Some(Estimate::rate(value, &self.top1_spread))
    }

    /// Adds one question's pair of answers; returns (Jaccard, compared, matched, top-1 compared).
    fn add(&mut self, a: &AnswerFacts, b: &AnswerFacts) -> (f64, f64, f64, f64) {
        self.questions += 1;
        let (sa, sb) = (&a.brands.order, &b.brands.order);
        if sa.is_empty() && sb.is_empty() {
            self.skipped += 1;
            return (0.0, 0.0, 0.0, 0.0);
        }
        let shared = sa.iter().filter(|x| sb.contains(x)).count();
        let either = sa.len() + sb.len() - shared;
        let key = (u32::try_from(shared).unwrap_or(u32::MAX), u32::try_from(either).unwrap_or(u32::MAX));
        *self.jaccards.entry(key).or_default() += 1;
        let jaccard = shared as f64 / either as f64;
        let mut top1 = (0.0, 0.0);
        if let (Some(fa), Some(fb)) = (sa.first(), sb.first()) {
            self.top1_compared += 1;
            top1.1 = 1.0;
            if fa == fb {
                self.top1_matches += 1;
                top1.0 = 1.0;
            }
        }
        (jaccard, 1.0, top1.0, top1.1)
    }

    /// Closes one question of this pair (or of the pooled total) with its sums.
    fn close_question(&mut self, sums: (f64, f64, f64, f64)) {
        let (jaccard, compared, matched, top1) = sums;
        if compared > 0.0 {
            self.jaccard_spread.add_cluster(jaccard, compared);
            self.jaccard_spread.add_unit_answers(compared as usize);
        }
        if top1 > 0.0 {
            self.top1_spread.add_cluster(matched, top1);
            self.top1_spread.add_unit_answers(top1 as usize);
        }
    }

    fn merge_counts(&mut self, other: &Agreement) {
        self.questions += other.questions;
        self.skipped += other.skipped;
        for (key, count) in &other.jaccards {
            *self.jaccards.entry(*key).or_default() += count;
        }
        self.top1_compared += other.top1_compared;
        self.top1_matches += other.top1_matches;
    }
}

/// Agreement of each pair of models (indexes, first < second).
pub type PairAgreements = Vec<((usize, usize), Agreement)>;

/// Agreement for every pair of models (i < j, in design order) that shares a question,
/// plus the pooled total over all pairs (its intervals cluster the pairs by question).
/// With repetitions, the answers of the same repetition are compared (repetition 1 of one
/// model with repetition 1 of the other, and so on); every pair of a question is one cluster.
pub fn agreement(scope: &Scope<'_>) -> (PairAgreements, Agreement) {
    // question → repetition → model → answer (the first one, if a model answered twice).
    let mut by_question: BTreeMap<usize, BTreeMap<u32, BTreeMap<usize, &AnswerFacts>>> = BTreeMap::new();
    for a in &scope.answers {
        by_question.entry(a.question).or_default().entry(a.repetition).or_default().entry(a.model).or_insert(a);
    }
    let mut pairs: BTreeMap<(usize, usize), Agreement> = BTreeMap::new();
    let mut total = Agreement::default();
    let add = |x: (f64, f64, f64, f64), y: (f64, f64, f64, f64)| (x.0 + y.0, x.1 + y.1, x.2 + y.2, x.3 + y.3);
    for repetitions in by_question.values() {
        let mut question = (0.0, 0.0, 0.0, 0.0);
        let mut per_pair: BTreeMap<(usize, usize), (f64, f64, f64, f64)> = BTreeMap::new();
        for answers in repetitions.values() {
            let models: Vec<(&usize, &&AnswerFacts)> = answers.iter().collect();
            for (i, (ma, a)) in models.iter().enumerate() {
                for (mb, b) in &models[i + 1..] {
                    let sums = pairs.entry((**ma, **mb)).or_default().add(a, b);
                    let pair_sums = per_pair.entry((**ma, **mb)).or_insert((0.0, 0.0, 0.0, 0.0));
                    *pair_sums = add(*pair_sums, sums);
                    question = add(question, sums);
                }
            }
        }
        for (key, sums) in per_pair {
            if let Some(pair) = pairs.get_mut(&key) {
                pair.close_question(sums);
            }
        }
        total.close_question(question);
    }
    for pair in pairs.values() {
        total.merge_counts(pair);
    }
    (pairs.into_iter().collect(), total)
}

/// Agreement of each model with itself: per question, every pair of its repetitions (1 with 2, 1
/// with 3, 2 with 3…), one cluster per question; rows only for models that answered some question
/// more than once, in design order; the pooled total clusters every model's pairs by question.
pub fn stability(scope: &Scope<'_>) -> (Vec<(usize, Agreement)>, Agreement) {
    // question → model → repetition → answer.
    let mut by_question: BTreeMap<usize, BTreeMap<usize, BTreeMap<u32, &AnswerFacts>>> = BTreeMap::new();
    for a in &scope.answers {
        by_question.entry(a.question).or_default().entry(a.model).or_default().entry(a.repetition).or_insert(a);
    }
    let add = |x: (f64, f64, f64, f64), y: (f64, f64, f64, f64)| (x.0 + y.0, x.1 + y.1, x.2 + y.2, x.3 + y.3);
    let mut models: BTreeMap<usize, Agreement> = BTreeMap::new();
    let mut total = Agreement::default();
    for per_model in by_question.values() {
        let mut question = (0.0, 0.0, 0.0, 0.0);
        for (model, repetitions) in per_model {
            let answers: Vec<&&AnswerFacts> = repetitions.values().collect();
            if answers.len() < 2 {
                continue;
            }
            let agreement = models.entry(*model).or_default();
            let mut sums = (0.0, 0.0, 0.0, 0.0);
            for (i, a) in answers.iter().enumerate() {
                for b in &answers[i + 1..] {
                    sums = add(sums, agreement.add(a, b));
                }
            }
            agreement.close_question(sums);
            question = add(question, sums);
        }
        total.close_question(question);
    }
    for agreement in models.values() {
        total.merge_counts(agreement);
    }
    (models.into_iter().collect(), total)
}

#[cfg(test)]
mod tests;
