//! Stage 3, metrics: every number a study publishes comes from these functions.
//!
//! [`mentions`] finds the brands each answer names and cites; the formulas below turn those
//! into weighted rates and scores; [`analysis`] arranges them into the study's tables.
//!
//! Formulas (stated to buyers in `content/metricas.toml`, and to publishers in
//! `content/README.md` §5):
//!
//! - **Mención**: weighted share of answers that name the brand.
//! - **Orden**: mean 1-based position of first appearance, over answers naming the brand
//!   only; `None` when no answer names it (never 0). `n_orden` is published beside it.
//! - **Citación**: weighted share of answers whose sources include a brand domain or a
//!   subdomain of it. **Citación fantasma**: cited but not named.
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
//! Everything is computed serially in a fixed order, and rounded with [`round`] before it is
//! published, so the numbers are identical on every run and thread count.

pub mod analysis;
pub mod mentions;

use std::collections::BTreeMap;

use crate::metrics::mentions::{AnswerBrands, BrandMatcher};
use crate::model::{Study, Tone};

/// Decimals every published non-integer number is rounded to.
pub const DECIMALS: i32 = 4;

/// Rounds half away from zero to [`DECIMALS`] places; never returns `-0.0`.
pub fn round(value: f64) -> f64 {
    let factor = 10f64.powi(DECIMALS);
    let rounded = (value * factor).round() / factor;
    if rounded == 0.0 { 0.0 } else { rounded }
}

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
            let urls: Vec<&str> = answer.fuentes.iter().map(|s| s.url.as_str()).collect();
            matcher.analyse(&answer.respuesta, &urls)
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
        study.design.modelos.iter().enumerate().map(|(i, m)| (m.id.as_str(), i)).collect();
    let brand_index: BTreeMap<&str, usize> = study.brands.iter().enumerate().map(|(i, b)| (b.id.as_str(), i)).collect();

    let mut facts = Vec::with_capacity(study.answers.len());
    for ((answer_index, answer), found) in study.answers.iter().enumerate().zip(brands) {
        let (Some(&question), Some(&model)) =
            (question_index.get(answer.pregunta.as_str()), model_index.get(answer.modelo.as_str()))
        else {
            continue;
        };
        let tone = answer
            .tono
            .iter()
            .filter_map(|(id, tone)| brand_index.get(id.as_str()).map(|&b| (b, *tone)))
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect();
        facts.push(AnswerFacts { answer: answer_index, question, model, brands: found.clone(), tone });
    }
    facts
}

/// Per-model weights of a study, normalised to sum 1 (equal unless declared).
pub fn model_weights(study: &Study) -> Vec<f64> {
    let models = &study.design.modelos;
    let raw: Vec<f64> = match &study.design.ponderacion {
        Some(weighting) => models.iter().map(|m| weighting.pesos.get(&m.id).copied().unwrap_or(0.0).max(0.0)).collect(),
        None => vec![1.0; models.len()],
    };
    let total: f64 = raw.iter().sum();
    if total > 0.0 { raw.iter().map(|w| w / total).collect() } else { raw }
}

/// A set of answers and the weight each one carries in aggregates.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    pub answers: Vec<&'a AnswerFacts>,
    pub weights: Vec<f64>,
}

impl<'a> Scope<'a> {
    /// Weighs `answers` so that each model present contributes its (renormalised) weight.
    pub fn new(answers: Vec<&'a AnswerFacts>, model_weights: &[f64]) -> Scope<'a> {
        let mut per_model: BTreeMap<usize, usize> = BTreeMap::new();
        for a in &answers {
            *per_model.entry(a.model).or_default() += 1;
        }
        let weight_of = |m: usize| model_weights.get(m).copied().unwrap_or(0.0);
        let present: f64 = per_model.keys().map(|&m| weight_of(m)).sum();
        let weights = answers
            .iter()
            .map(|a| {
                let n = per_model[&a.model] as f64;
                if present > 0.0 { weight_of(a.model) / present / n } else { 0.0 }
            })
            .collect();
        Scope { answers, weights }
    }

    pub fn len(&self) -> usize {
        self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    fn iter(&self) -> impl Iterator<Item = (&'a AnswerFacts, f64)> + '_ {
        self.answers.iter().copied().zip(self.weights.iter().copied())
    }

    /// Σ weight over answers where `pred` holds, and Σ weight over all answers.
    fn weighted_share(&self, pred: impl Fn(&AnswerFacts) -> bool) -> Option<f64> {
        let total: f64 = self.weights.iter().sum();
        let hits: f64 = self.iter().filter(|(a, _)| pred(a)).map(|(_, w)| w).sum();
        (total > 0.0).then(|| hits / total)
    }
}

/// Every brand-level number of one brand in one scope. Rates are unrounded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BrandStats {
    pub mention: Option<f64>,
    pub n_mention: usize,
    pub order: Option<f64>,
    pub citation: Option<f64>,
    pub n_citation: usize,
    pub ghost_citation: Option<f64>,
    pub prominence: Option<f64>,
    pub top1: Option<f64>,
    pub n_top1: usize,
    pub sov: Option<f64>,
    pub net_tone: Option<f64>,
    pub pos: usize,
    pub neu: usize,
    pub neg: usize,
}

impl BrandStats {
    pub fn n_tone(&self) -> usize {
        self.pos + self.neu + self.neg
    }
}

/// Brand statistics for every brand `0..n_brands` over a scope.
///
/// One pass over the answers, touching only the brands each one names, cites or rates: the
/// cost follows the mentions, not answers × brands. Each brand's sums still add its answers'
/// weights in scope order, so every figure is the same to the last bit as summing brand by
/// brand over the whole scope (an answer that does not name a brand added exactly 0 there).
pub fn brand_stats(scope: &Scope<'_>, n_brands: usize) -> Vec<BrandStats> {
    // Denominators shared by all brands.
    let with_brand = scope.weighted_share(|a| !a.brands.order.is_empty());
    let total_weight: f64 = scope.weights.iter().sum();
    let all_mentions: f64 = scope.iter().map(|(a, w)| w * a.brands.order.len() as f64).sum();

    let mut sums = vec![BrandSums::default(); n_brands];
    for (a, w) in scope.iter() {
        for (index, &b) in a.brands.order.iter().enumerate() {
            if let Some(s) = sums.get_mut(b) {
                s.add_mention(index + 1, w);
            }
        }
        for &b in &a.brands.cited {
            if let Some(s) = sums.get_mut(b) {
                s.add_citation(w, !a.names(b));
            }
        }
        for &(b, tone) in &a.tone {
            if let Some(s) = sums.get_mut(b) {
                s.add_tone(tone, w);
            }
        }
    }
    let share = |hits: f64| (total_weight > 0.0).then(|| hits / total_weight);
    sums.into_iter()
        .map(|s| BrandStats {
            mention: share(s.mention_weight),
            n_mention: s.n_mention,
            order: (s.n_mention > 0).then(|| s.order_sum / s.mention_weight),
            citation: share(s.citation_weight),
            n_citation: s.n_citation,
            ghost_citation: share(s.ghost_weight),
            prominence: share(s.points),
            top1: with_brand.filter(|share| *share > 0.0).map(|share| s.top1_weight / (share * total_weight)),
            n_top1: s.n_top1,
            sov: (all_mentions > 0.0).then(|| s.mention_weight / all_mentions),
            net_tone: (s.tone_weight > 0.0).then(|| s.tone_net / s.tone_weight),
            pos: s.pos,
            neu: s.neu,
            neg: s.neg,
        })
        .collect()
}

/// Running weighted sums and counts of one brand over a scope.
#[derive(Debug, Clone, Default)]
struct BrandSums {
    n_mention: usize,
    mention_weight: f64,
    order_sum: f64,
    points: f64,
    n_top1: usize,
    top1_weight: f64,
    n_citation: usize,
    citation_weight: f64,
    ghost_weight: f64,
    tone_weight: f64,
    tone_net: f64,
    pos: usize,
    neu: usize,
    neg: usize,
}

impl BrandSums {
    /// The brand is named at 1-based `position` in an answer of weight `w`.
    fn add_mention(&mut self, position: usize, w: f64) {
        self.n_mention += 1;
        self.mention_weight += w;
        self.order_sum += w * position as f64;
        self.points += w * prominence_points(Some(position));
        if position == 1 {
            self.n_top1 += 1;
            self.top1_weight += w;
        }
    }

    /// One of the brand's domains is among the sources; `ghost` when the text does not name it.
    fn add_citation(&mut self, w: f64, ghost: bool) {
        self.n_citation += 1;
        self.citation_weight += w;
        if ghost {
            self.ghost_weight += w;
        }
    }

    fn add_tone(&mut self, tone: Tone, w: f64) {
        self.tone_weight += w;
        match tone {
            Tone::Pos => {
                self.pos += 1;
                self.tone_net += w;
            }
            Tone::Neu => self.neu += 1,
            Tone::Neg => {
                self.neg += 1;
                self.tone_net -= w;
            }
        }
    }
}

/// Herfindahl–Hirschman index on the 0–10,000 scale from shares in [0, 1].
/// `None` when there are no shares (no brand named in the scope).
pub fn hhi(shares: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let shares: Vec<f64> = shares.into_iter().flatten().collect();
    if shares.iter().all(|s| *s == 0.0) {
        return None;
    }
    Some(shares.iter().map(|s| s * s).sum::<f64>() * 10_000.0)
}

/// Concentration of one scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Concentration {
    pub answers: usize,
    /// Weighted share of answers naming at least one tracked brand.
    pub with_brand: Option<f64>,
    pub distinct_brands: usize,
    /// Brand index with the highest Top1 share (ties: lowest index).
    pub leader: Option<usize>,
    pub leader_top1: Option<f64>,
    pub hhi_sov: Option<f64>,
    pub hhi_top1: Option<f64>,
}

pub fn concentration(scope: &Scope<'_>, n_brands: usize) -> Concentration {
    let stats = brand_stats(scope, n_brands);
    let mut leader: Option<(usize, f64)> = None;
    for (b, s) in stats.iter().enumerate() {
        // Compare published (rounded) values, so a tie in the table is a tie here: the first
        // brand in `marcas.toml` wins it.
        if let Some(t) = s.top1.map(round).filter(|t| *t > 0.0)
            && leader.is_none_or(|(_, best)| t > best)
        {
            leader = Some((b, t));
        }
    }
    Concentration {
        answers: scope.len(),
        with_brand: scope.weighted_share(|a| !a.brands.order.is_empty()),
        distinct_brands: stats.iter().filter(|s| s.n_mention > 0).count(),
        leader: leader.map(|(b, _)| b),
        leader_top1: leader.and_then(|(b, _)| stats[b].top1),
        hhi_sov: hhi(stats.iter().map(|s| s.sov)),
        hhi_top1: hhi(stats.iter().map(|s| s.top1)),
    }
}

/// Agreement between two models over the questions both answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agreement {
    /// Questions both models answered.
    pub questions: usize,
    /// Of those, questions where neither named a brand (left out of the Jaccard mean).
    pub skipped: usize,
    pub jaccard_sum: f64,
    /// Questions where both named some brand (the top-1 denominator).
    pub top1_compared: usize,
    pub top1_matches: usize,
}

impl Agreement {
    pub fn jaccard(&self) -> Option<f64> {
        let compared = self.questions - self.skipped;
        (compared > 0).then(|| self.jaccard_sum / compared as f64)
    }

    pub fn top1_match(&self) -> Option<f64> {
        (self.top1_compared > 0).then(|| self.top1_matches as f64 / self.top1_compared as f64)
    }

    fn add(&mut self, a: &AnswerFacts, b: &AnswerFacts) {
        self.questions += 1;
        let (sa, sb) = (&a.brands.order, &b.brands.order);
        if sa.is_empty() && sb.is_empty() {
            self.skipped += 1;
            return;
        }
        let inter = sa.iter().filter(|x| sb.contains(x)).count();
        let union = sa.len() + sb.len() - inter;
        self.jaccard_sum += inter as f64 / union as f64;
        if let (Some(fa), Some(fb)) = (sa.first(), sb.first()) {
            self.top1_compared += 1;
            if fa == fb {
                self.top1_matches += 1;
            }
        }
    }

    fn merge(&mut self, other: &Agreement) {
        self.questions += other.questions;
        self.skipped += other.skipped;
        self.jaccard_sum += other.jaccard_sum;
        self.top1_compared += other.top1_compared;
        self.top1_matches += other.top1_matches;
    }
}

/// Agreement of each pair of models (indexes, first < second).
pub type PairAgreements = Vec<((usize, usize), Agreement)>;

/// Agreement for every pair of models (i < j, in design order) that shares a question,
/// plus the pooled total over all pairs.
pub fn agreement(scope: &Scope<'_>) -> (PairAgreements, Agreement) {
    // question → model → answer (the first one, if a model answered twice).
    let mut by_question: BTreeMap<usize, BTreeMap<usize, &AnswerFacts>> = BTreeMap::new();
    for a in &scope.answers {
        by_question.entry(a.question).or_default().entry(a.model).or_insert(a);
    }
    let mut pairs: BTreeMap<(usize, usize), Agreement> = BTreeMap::new();
    for answers in by_question.values() {
        let models: Vec<(&usize, &&AnswerFacts)> = answers.iter().collect();
        for (i, (ma, a)) in models.iter().enumerate() {
            for (mb, b) in &models[i + 1..] {
                pairs.entry((**ma, **mb)).or_default().add(a, b);
            }
        }
    }
    let mut total = Agreement::default();
    for pair in pairs.values() {
        total.merge(pair);
    }
    (pairs.into_iter().collect(), total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer of `model` to `question` naming `order`, citing `cited`.
    fn facts(question: usize, model: usize, order: &[usize], cited: &[usize]) -> AnswerFacts {
        AnswerFacts {
            answer: 0,
            question,
            model,
            brands: AnswerBrands { order: order.to_vec(), cited: cited.to_vec() },
            tone: Vec::new(),
        }
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-12)
    }

    #[test]
    fn rounding_is_fixed_and_never_negative_zero() {
        assert_eq!(round(0.123_449), 0.1234);
        assert_eq!(round(0.123_45), 0.1235);
        assert_eq!(round(2.0 / 3.0), 0.6667);
        assert!(round(-0.000_01).is_sign_positive());
    }

    #[test]
    fn prominence_scale() {
        let points: Vec<f64> =
            [None, Some(1), Some(2), Some(3), Some(4), Some(5), Some(9)].map(prominence_points).into();
        assert_eq!(points, vec![0.0, 10.0, 8.0, 7.0, 6.0, 5.0, 5.0]);
    }

    /// Four answers of one model, three brands; hand-computed below.
    fn tiny() -> Vec<AnswerFacts> {
        vec![
            facts(0, 0, &[0, 1], &[1]),   // A first, B second; cites B
            facts(1, 0, &[1, 0, 2], &[]), // B, A, C
            facts(2, 0, &[], &[0]),       // no brand; ghost citation of A
            facts(3, 0, &[0], &[0]),      // A alone, cited
        ]
    }

    #[test]
    fn hand_computed_brand_metrics() {
        let data = tiny();
        let scope = Scope::new(data.iter().collect(), &[1.0]);
        let s = brand_stats(&scope, 4);
        // A: named in 3 of 4; positions 1, 2, 1.
        assert!(close(s[0].mention, 0.75));
        assert_eq!(s[0].n_mention, 3);
        assert!(close(s[0].order, 4.0 / 3.0));
        assert!(close(s[0].prominence, (10.0 + 8.0 + 0.0 + 10.0) / 4.0));
        assert!(close(s[0].citation, 0.5));
        assert!(close(s[0].ghost_citation, 0.25));
        // Top1: 3 answers have a brand; A first in 2 of them.
        assert!(close(s[0].top1, 2.0 / 3.0));
        // SoV: 6 mentions in all; A has 3.
        assert!(close(s[0].sov, 0.5));
        // B: positions 2 and 1.
        assert!(close(s[1].order, 1.5));
        assert!(close(s[1].top1, 1.0 / 3.0));
        assert!(close(s[1].citation, 0.25));
        assert!(close(s[1].ghost_citation, 0.0));
        // C: third once.
        assert!(close(s[2].prominence, 7.0 / 4.0));
        assert!(close(s[2].top1, 0.0));
    }

    #[test]
    fn never_mentioned_brand_has_null_order_not_zero() {
        let data = tiny();
        let scope = Scope::new(data.iter().collect(), &[1.0]);
        let d = &brand_stats(&scope, 4)[3];
        assert_eq!(d.order, None);
        assert_eq!(d.n_mention, 0);
        assert!(close(d.mention, 0.0));
        assert!(close(d.prominence, 0.0));
    }

    #[test]
    fn top1_shares_sum_to_one_and_empty_scope_is_null() {
        let data = tiny();
        let scope = Scope::new(data.iter().collect(), &[1.0]);
        let total: f64 = brand_stats(&scope, 4).iter().filter_map(|s| s.top1).sum();
        assert!((total - 1.0).abs() < 1e-12);

        let no_brand = [facts(0, 0, &[], &[])];
        let scope = Scope::new(no_brand.iter().collect(), &[1.0]);
        let s = &brand_stats(&scope, 2)[0];
        assert_eq!((s.top1, s.sov, s.order), (None, None, None));
        assert!(close(s.mention, 0.0));
        let empty = Scope::new(Vec::new(), &[1.0]);
        assert_eq!(brand_stats(&empty, 1)[0].mention, None);
    }

    #[test]
    fn models_weigh_equally_whatever_their_answer_counts() {
        // Model 0: 1 answer naming A. Model 1: 3 answers, none naming A.
        let data = [facts(0, 0, &[0], &[]), facts(0, 1, &[], &[]), facts(1, 1, &[], &[]), facts(2, 1, &[], &[])];
        let scope = Scope::new(data.iter().collect(), &[0.5, 0.5]);
        assert!(close(brand_stats(&scope, 1)[0].mention, 0.5));
    }

    #[test]
    fn market_share_weights_apply_and_renormalise() {
        let data = [facts(0, 0, &[0], &[]), facts(0, 1, &[], &[]), facts(0, 1, &[0], &[])];
        // Model 0 weighs 0.8, model 1 weighs 0.2: 0.8·1 + 0.2·(1/2) = 0.9.
        let scope = Scope::new(data.iter().collect(), &[0.8, 0.2, 5.0]);
        assert!(close(brand_stats(&scope, 1)[0].mention, 0.9));
        // Only model 1 present: its weight renormalises to 1.
        let scope = Scope::new(data[1..].iter().collect(), &[0.8, 0.2]);
        assert!(close(brand_stats(&scope, 1)[0].mention, 0.5));
    }

    #[test]
    fn hhi_on_the_ten_thousand_scale() {
        assert!(close(hhi([Some(0.3), Some(0.3), Some(0.2), Some(0.2)]), 2600.0));
        assert!(close(hhi([Some(1.0), None]), 10_000.0));
        assert_eq!(hhi([None, Some(0.0)]), None);
        let data = tiny();
        let scope = Scope::new(data.iter().collect(), &[1.0]);
        // SoV shares 3/6, 2/6, 1/6 → (9 + 4 + 1) / 36 · 10,000.
        let c = concentration(&scope, 4);
        assert!(close(c.hhi_sov, 14.0 / 36.0 * 10_000.0));
        assert_eq!(c.leader, Some(0));
        assert_eq!(c.distinct_brands, 3);
        assert!(close(c.with_brand, 0.75));
    }

    #[test]
    fn agreement_jaccard_top1_and_skips() {
        let data = [
            // Question 0: {A,B} vs {B,C}: J = 1/3, top-1 differs.
            facts(0, 0, &[0, 1], &[]),
            facts(0, 1, &[1, 2], &[]),
            // Question 1: both empty: skipped.
            facts(1, 0, &[], &[]),
            facts(1, 1, &[], &[]),
            // Question 2: {A} vs {}: J = 0, no top-1 comparison.
            facts(2, 0, &[0], &[]),
            facts(2, 1, &[], &[]),
            // Question 3: {A,B} vs {A,B}: J = 1, top-1 matches.
            facts(3, 0, &[0, 1], &[]),
            facts(3, 1, &[0, 1], &[]),
            // Question 4: only model 0 answered: no pair.
            facts(4, 0, &[0], &[]),
        ];
        let scope = Scope::new(data.iter().collect(), &[0.5, 0.5]);
        let (pairs, total) = agreement(&scope);
        assert_eq!(pairs.len(), 1);
        let (models, a) = &pairs[0];
        assert_eq!(*models, (0, 1));
        assert_eq!((a.questions, a.skipped, a.top1_compared, a.top1_matches), (4, 1, 2, 1));
        assert!(close(a.jaccard(), (1.0 / 3.0 + 0.0 + 1.0) / 3.0));
        assert!(close(a.top1_match(), 0.5));
        assert_eq!(total, *a);
    }

    #[test]
    fn tone_is_counted_and_netted() {
        let mut data = tiny();
        data[0].tone = vec![(0, Tone::Pos), (1, Tone::Neg)];
        data[1].tone = vec![(0, Tone::Neu), (1, Tone::Neg)];
        data[3].tone = vec![(0, Tone::Pos)];
        let scope = Scope::new(data.iter().collect(), &[1.0]);
        let s = brand_stats(&scope, 4);
        assert_eq!((s[0].pos, s[0].neu, s[0].neg), (2, 1, 0));
        assert!(close(s[0].net_tone, 2.0 / 3.0));
        assert!(close(s[1].net_tone, -1.0));
        assert_eq!(s[2].net_tone, None);
        assert_eq!(s[2].n_tone(), 0);
    }
}
