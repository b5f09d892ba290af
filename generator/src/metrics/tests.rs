use super::*;

/// An answer of `model` to `question` naming `order`, citing `cited`.
fn facts(question: usize, model: usize, order: &[usize], cited: &[usize]) -> AnswerFacts {
    AnswerFacts {
        answer: 0,
        question,
        model,
        repetition: 1,
        brands: AnswerBrands { order: order.to_vec(), cited: cited.to_vec(), consulted: None },
        tone: Vec::new(),
    }
}

fn weights(raw: &[f64]) -> ModelWeights {
    ModelWeights::new(raw)
}

/// The published value of `metric` for brand `b`.
fn value(stats: &ScopeStats<'_, '_>, b: usize, metric: Metric) -> Option<f64> {
    stats.estimate(b, metric).map(|e| e.value)
}

fn rounded(x: f64) -> Option<f64> {
    Some(exact::round_float(x, 4))
}

#[test]
fn prominence_scale() {
    let points: Vec<f64> = [None, Some(1), Some(2), Some(3), Some(4), Some(5), Some(9)].map(prominence_points).into();
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
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 4);
    // A: named in 3 of 4; positions 1, 2, 1.
    assert_eq!(value(&s, 0, Metric::Mention), Some(0.75));
    assert_eq!(s.brands[0].n_mention, 3);
    assert_eq!(value(&s, 0, Metric::Order), rounded(4.0 / 3.0));
    assert_eq!(value(&s, 0, Metric::Prominence), Some(7.0));
    assert_eq!(value(&s, 0, Metric::Citation), Some(0.5));
    assert_eq!(value(&s, 0, Metric::PhantomCitation), Some(0.25));
    // Top1: 3 answers have a brand; A first in 2 of them.
    assert_eq!(value(&s, 0, Metric::Top1), Some(0.6667));
    // SoV: 6 mentions in all; A has 3.
    assert_eq!(value(&s, 0, Metric::Sov), Some(0.5));
    // B: positions 2 and 1.
    assert_eq!(value(&s, 1, Metric::Order), Some(1.5));
    assert_eq!(value(&s, 1, Metric::Top1), Some(0.3333));
    assert_eq!(value(&s, 1, Metric::Citation), Some(0.25));
    assert_eq!(value(&s, 1, Metric::PhantomCitation), Some(0.0));
    // C: third once.
    assert_eq!(value(&s, 2, Metric::Prominence), Some(1.75));
    assert_eq!(value(&s, 2, Metric::Top1), Some(0.0));
}

#[test]
fn every_rate_carries_its_base_and_interval() {
    let data = tiny();
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 4);
    // One model, one answer per question: A's mention rate 3/4 is plain Wilson on n = 4.
    let mention = s.estimate(0, Metric::Mention).map(|e| e.uncertainty);
    assert_eq!(mention, Some(Uncertainty { n: 4, n_ef: 4.0, ic95: wilson_rounded(0.75, 4.0) }));
    // Order's base is the answers naming A; Top1's those naming any brand.
    assert_eq!(s.estimate(0, Metric::Order).map(|e| e.uncertainty.n), Some(3));
    assert_eq!(s.estimate(0, Metric::Top1).map(|e| e.uncertainty.n), Some(3));
    // C is named in one answer (one question): no interval for its order.
    assert_eq!(s.estimate(2, Metric::Order).map(|e| e.uncertainty.ic95), Some(None));
}

/// Wilson bounds rounded as published.
fn wilson_rounded(p: f64, n: f64) -> Option<(f64, f64)> {
    let (low, high) = interval::wilson(p, n);
    Some((exact::round_float(low, 4), exact::round_float(high, 4)))
}

#[test]
fn each_metric_has_its_own_base_and_spread() {
    // tiny(): one model, four questions answered once (c = 1/4 each), so V is
    // Σ (c·(y − R·x))² / (Σ c·x)² over the answers, worked out here by hand.
    let mut data = tiny();
    data[0].tone = vec![(0, Tone::Pos)];
    data[1].tone = vec![(0, Tone::Neu)];
    data[3].tone = vec![(0, Tone::Pos)];
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 4);
    let u = |metric| s.estimate(0, metric).map(|e| e.uncertainty).unwrap_or_else(|| panic!("{metric:?}"));

    // Top1 of A: y = first, x = names a brand (answers 0, 1, 3): R = 2/3, residuals
    // 1/12, −1/6, 1/12 → V = (6/144)/(3/4)² = 2/27, R(1−R)/V = 3 = n_kish: Wilson on 3.
    assert_eq!(u(Metric::Top1), Uncertainty { n: 3, n_ef: 3.0, ic95: wilson_rounded(2.0 / 3.0, 3.0) });

    // SoV of A: y = named, x = brands named (2, 3, 0, 1): R = 1/2, residuals 0, −1/8, 1/8
    // → V = (2/64)/1.5² ; R(1−R)/V = 18 > n_kish = 1.5²/(0.5² + 0.75² + 0.25²) = 2.571…
    let kish = 2.25 / 0.875;
    assert_eq!(u(Metric::Sov), Uncertainty { n: 3, n_ef: 2.6, ic95: wilson_rounded(0.5, kish) });

    // Order of A: positions 1, 2, 1 over the answers naming it: R = 4/3, V = 2/27.
    let half = interval::Z95 * (2.0_f64 / 27.0).sqrt();
    let order = u(Metric::Order);
    assert_eq!((order.n, order.n_ef), (3, 3.0));
    assert_eq!(order.ic95, Some((1.0, exact::round_float(4.0 / 3.0 + half, 4))));

    // Net tone of A: labels +1, 0, +1: R = 2/3, V = 2/27, cut at 1.
    let tone = u(Metric::NetTone);
    assert_eq!(tone.ic95, Some((exact::round_float(2.0 / 3.0 - half, 4), 1.0)));

    // Prominence of A: points 10, 8, 0, 10 over all four answers: R = 7, residuals
    // (1/4)·(3, 1, −7, 3) → V = 68/16.
    let prominence = u(Metric::Prominence);
    let half = interval::Z95 * (68.0_f64 / 16.0).sqrt();
    assert_eq!(prominence.ic95, Some((exact::round_float(7.0 - half, 4), 10.0)));

    // Citation of A (answers 2 and 3) and ghost citation (answer 2): plain Wilson on 4.
    assert_eq!(u(Metric::Citation).ic95, wilson_rounded(0.5, 4.0));
    assert_eq!(u(Metric::PhantomCitation).ic95, wilson_rounded(0.25, 4.0));
}

#[test]
fn consulted_not_cited_counts_only_answers_that_record_their_consulted_sources() {
    // Two models (equal weight), three questions. Model 0 records what it consulted, model 1
    // does not (its answers are outside the base). A = brand 0, B = brand 1.
    let mut data = [
        facts(0, 0, &[0], &[]),  // consulted A and B, cited nothing: A and B consulted, not cited
        facts(1, 0, &[0], &[0]), // consulted A, cited A: not counted for A
        facts(2, 0, &[], &[]),   // recorded, consulted nothing
        facts(0, 1, &[0], &[]),  // not recorded
        facts(1, 1, &[1], &[]),  // not recorded
    ];
    data[0].brands.consulted = Some(vec![0, 1]);
    data[1].brands.consulted = Some(vec![0]);
    data[2].brands.consulted = Some(vec![]);
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0, 1.0]));
    let s = brand_stats(&scope, 3);
    // Base: model 0's three answers (each 1/2 · 1/3 = 1/6 of the scope); A in one of them.
    let a = s.estimate(0, Metric::ConsultedNotCited).expect("recorded");
    assert_eq!(a.value, 0.3333);
    // One model, one answer per question: plain Wilson on the three recorded answers.
    assert_eq!(a.uncertainty, Uncertainty { n: 3, n_ef: 3.0, ic95: wilson_rounded(1.0 / 3.0, 3.0) });
    assert_eq!(value(&s, 1, Metric::ConsultedNotCited), Some(0.3333));
    assert_eq!(value(&s, 2, Metric::ConsultedNotCited), Some(0.0), "recorded and never consulted: 0");
    // The other metrics keep every answer in their base.
    assert_eq!(s.estimate(0, Metric::Mention).map(|e| e.uncertainty.n), Some(5));

    // Nothing recorded: null, not 0.
    let none: Vec<AnswerFacts> = data.iter().filter(|a| a.model == 1).cloned().collect();
    let scope = Scope::new(none.iter().collect(), &weights(&[1.0, 1.0]));
    let s = brand_stats(&scope, 3);
    assert_eq!(s.estimate(0, Metric::ConsultedNotCited), None);
    assert_eq!(value(&s, 0, Metric::Mention), Some(0.5));
}

#[test]
fn never_mentioned_brand_has_null_order_not_zero() {
    let data = tiny();
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 4);
    assert_eq!(value(&s, 3, Metric::Order), None);
    assert_eq!(s.brands[3].n_mention, 0);
    assert_eq!(value(&s, 3, Metric::Mention), Some(0.0));
    assert_eq!(value(&s, 3, Metric::Prominence), Some(0.0));
}

#[test]
fn top1_shares_sum_to_one_and_empty_scope_is_null() {
    let data = tiny();
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 4);
    let total: f64 = (0..4).filter_map(|b| s.estimate(b, Metric::Top1)).map(|e| e.raw).sum();
    assert!((total - 1.0).abs() < 1e-12);

    let no_brand = [facts(0, 0, &[], &[])];
    let scope = Scope::new(no_brand.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 2);
    assert_eq!(
        (value(&s, 0, Metric::Top1), value(&s, 0, Metric::Sov), value(&s, 0, Metric::Order)),
        (None, None, None)
    );
    assert_eq!(value(&s, 0, Metric::Mention), Some(0.0));
    let empty = Scope::new(Vec::new(), &weights(&[1.0]));
    assert_eq!(value(&brand_stats(&empty, 1), 0, Metric::Mention), None);
}

#[test]
fn models_weigh_equally_whatever_their_answer_counts() {
    // Model 0: 1 answer naming A. Model 1: 3 answers, none naming A.
    let data = [facts(0, 0, &[0], &[]), facts(0, 1, &[], &[]), facts(1, 1, &[], &[]), facts(2, 1, &[], &[])];
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0, 1.0]));
    assert_eq!(value(&brand_stats(&scope, 1), 0, Metric::Mention), Some(0.5));
}

#[test]
fn market_share_weights_apply_and_renormalise() {
    let data = [facts(0, 0, &[0], &[]), facts(0, 1, &[], &[]), facts(0, 1, &[0], &[])];
    // Model 0 weighs 0.8, model 1 weighs 0.2: 0.8·1 + 0.2·(1/2) = 0.9.
    let scope = Scope::new(data.iter().collect(), &weights(&[0.8, 0.2, 5.0]));
    assert_eq!(value(&brand_stats(&scope, 1), 0, Metric::Mention), Some(0.9));
    // Only model 1 present: its weight renormalises to 1.
    let scope = Scope::new(data[1..].iter().collect(), &weights(&[0.8, 0.2]));
    assert_eq!(value(&brand_stats(&scope, 1), 0, Metric::Mention), Some(0.5));
}

#[test]
fn hhi_on_the_ten_thousand_scale() {
    let data = tiny();
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    // SoV shares 3/6, 2/6, 1/6 → (9 + 4 + 1) / 36 · 10,000 = 3888.888…
    let c = concentration(&scope, 4);
    assert_eq!(c.hhi_sov, Some(3888.8889));
    // Top1 shares 2/3, 1/3 → 5/9 · 10,000.
    assert_eq!(c.hhi_top1, Some(5555.5556));
    assert_eq!(c.leader, Some(0));
    assert_eq!(c.distinct_brands, 3);
    assert_eq!(c.with_brand.map(|e| e.value), Some(0.75));
    let none = [facts(0, 0, &[], &[])];
    let c = concentration(&Scope::new(none.iter().collect(), &weights(&[1.0])), 2);
    assert_eq!((c.hhi_sov, c.hhi_top1, c.leader), (None, None, None));
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
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0, 1.0]));
    let (pairs, total) = agreement(&scope);
    assert_eq!(pairs.len(), 1);
    let (models, a) = &pairs[0];
    assert_eq!(*models, (0, 1));
    assert_eq!((a.questions, a.skipped, a.top1_compared, a.top1_matches), (4, 1, 2, 1));
    // (1/3 + 0 + 1) / 3 = 4/9.
    assert_eq!(a.jaccard().map(|e| e.value), Some(0.4444));
    assert_eq!(a.jaccard().map(|e| e.uncertainty.n), Some(3));
    assert_eq!(a.top1_match().map(|e| e.value), Some(0.5));
    assert_eq!(total, *a);
}

#[test]
fn tone_is_counted_and_netted() {
    let mut data = tiny();
    data[0].tone = vec![(0, Tone::Pos), (1, Tone::Neg)];
    data[1].tone = vec![(0, Tone::Neu), (1, Tone::Neg)];
    data[3].tone = vec![(0, Tone::Pos)];
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let s = brand_stats(&scope, 4);
    assert_eq!((s.brands[0].pos, s.brands[0].neu, s.brands[0].neg), (2, 1, 0));
    assert_eq!(value(&s, 0, Metric::NetTone), Some(0.6667));
    assert_eq!(value(&s, 1, Metric::NetTone), Some(-1.0));
    assert_eq!(value(&s, 2, Metric::NetTone), None);
    assert_eq!(s.brands[2].n_tone(), 0);
}

#[test]
fn scopes_group_answers_by_question_in_first_appearance_order() {
    let data = [facts(2, 0, &[], &[]), facts(0, 1, &[], &[]), facts(2, 1, &[], &[]), facts(0, 0, &[], &[])];
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0, 1.0]));
    let order: Vec<(usize, usize)> = scope.answers.iter().map(|a| (a.question, a.model)).collect();
    assert_eq!(order, [(2, 0), (2, 1), (0, 1), (0, 0)]);
    assert_eq!(scope.clusters, [0, 2, 4]);
    assert_eq!(scope.models, [(1, 2), (1, 2)]);
    let grouped = [facts(1, 1, &[], &[]), facts(1, 0, &[], &[]), facts(0, 0, &[], &[])];
    let scope = Scope::new(grouped.iter().collect(), &weights(&[1.0, 1.0]));
    let order: Vec<(usize, usize)> = scope.answers.iter().map(|a| (a.question, a.model)).collect();
    assert_eq!(order, [(1, 1), (1, 0), (0, 0)]);
    assert_eq!(scope.slots, [1, 0, 0]);
}

#[test]
fn a_share_of_answers_is_exact_and_has_an_interval() {
    let data = tiny();
    let scope = Scope::new(data.iter().collect(), &weights(&[1.0]));
    let share = scope.share(|a| !a.brands.cited.is_empty());
    assert_eq!(share.map(|e| (e.value, e.uncertainty.n)), Some((0.75, 4)));
}
