//! Sample sizes and 95% intervals for every published rate and mean.
//!
//! The answers of several models to one question are not independent (they share the
//! question), so the variance of a weighted ratio `R = Σ c·y / Σ c·x` is the cluster-robust
//! linearisation with questions as clusters:
//!
//! `V = Σ_g (Σ_{i∈g} c_i·(y_i − R·x_i))² / (Σ_i c_i·x_i)²`
//!
//! A rate's interval is Wilson's score interval at the effective sample size
//! `n_ef = min(R(1−R)/V, n_kish)` (`n_kish = (Σ c·x)² / Σ (c·x)²`, the size the weights
//! leave; `n_kish` alone when `V` is 0); for one model answering each question once that is
//! the plain Wilson interval on `n`. A mean's interval is `R ± 1.96·√V`, cut to the metric's
//! range, with `n_ef = n_kish`. With fewer than two questions in the base there is no
//! interval (`null`): nothing measures how answers vary between questions. Everything here
//! is floating point; the bounds are rounded to 4 decimals and `n_ef` to 1.

use crate::metrics::exact::round_float;

/// The 0.975 quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Sums over a base, enough for a ratio's interval: fed cluster by cluster.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spread {
    /// Σ_g Y_g², Σ_g Y_g·X_g and Σ_g X_g², with `Y_g = Σ_{i∈g} c_i·y_i`, `X_g = Σ c_i·x_i`.
    pub yy: f64,
    pub yx: f64,
    pub xx: f64,
    /// Σ c_i·x_i and Σ (c_i·x_i)² over answers (for `n_kish`).
    pub cx: f64,
    pub cx2: f64,
    /// Answers with `x_i` ≠ 0.
    pub n: usize,
    /// Clusters (questions) with some `x_i` ≠ 0.
    pub clusters: usize,
}

impl Spread {
    /// Adds one cluster's sums `Y_g`, `X_g`.
    pub fn add_cluster(&mut self, y: f64, x: f64) {
        self.yy += y * y;
        self.yx += y * x;
        self.xx += x * x;
        if x != 0.0 {
            self.clusters += 1;
        }
    }

    /// Adds one answer's weighted denominator `c_i·x_i` (for `n` and `n_kish`).
    pub fn add_answer(&mut self, cx: f64) {
        if cx != 0.0 {
            self.cx += cx;
            self.cx2 += cx * cx;
            self.n += 1;
        }
    }

    /// Adds `count` answers of weight 1 and denominator 1 (agreement: each pair counts once).
    pub fn add_unit_answers(&mut self, count: usize) {
        for _ in 0..count {
            self.add_answer(1.0);
        }
    }

    /// Adds the cross terms of a cluster whose numerator is `y` against a shared
    /// denominator already accounted in `xx` (see [`Spread::with_shared`]).
    pub fn add_numerator(&mut self, y: f64, x: f64) {
        self.yy += y * y;
        self.yx += y * x;
    }

    /// This numerator's sums completed with a denominator shared by many numerators.
    pub fn with_shared(self, shared: &Spread) -> Spread {
        Spread { xx: shared.xx, cx: shared.cx, cx2: shared.cx2, n: shared.n, clusters: shared.clusters, ..self }
    }

    /// `V` at the ratio's value `r` (never negative).
    fn variance(&self, r: f64) -> f64 {
        if self.cx <= 0.0 {
            return 0.0;
        }
        ((self.yy - 2.0 * r * self.yx + r * r * self.xx) / (self.cx * self.cx)).max(0.0)
    }

    fn kish(&self) -> f64 {
        if self.cx2 > 0.0 { self.cx * self.cx / self.cx2 } else { 0.0 }
    }
}

/// What a published rate or mean carries beside its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uncertainty {
    /// Answers in the base.
    pub n: usize,
    /// Effective sample size (rounded to 1 decimal).
    pub n_ef: f64,
    /// 95% interval (rounded to 4 decimals); `None` with fewer than two questions.
    pub ic95: Option<(f64, f64)>,
}

/// Interval of a rate `r` in [0, 1].
pub fn rate(r: f64, spread: &Spread) -> Uncertainty {
    let kish = spread.kish();
    let variance = spread.variance(r);
    let n_ef = if variance > 0.0 { (r * (1.0 - r) / variance).min(kish) } else { kish };
    let ic95 = (spread.clusters >= 2 && n_ef > 0.0).then(|| {
        let (low, high) = wilson(r, n_ef);
        (round_float(low, 4), round_float(high, 4))
    });
    Uncertainty { n: spread.n, n_ef: round_float(n_ef, 1), ic95 }
}

/// Interval of a mean `r` whose values lie in `[low, high]`.
pub fn mean(r: f64, spread: &Spread, low: f64, high: f64) -> Uncertainty {
    let half = Z95 * spread.variance(r).sqrt();
    let ic95 = (spread.clusters >= 2)
        .then(|| (round_float((r - half).clamp(low, high), 4), round_float((r + half).clamp(low, high), 4)));
    Uncertainty { n: spread.n, n_ef: round_float(spread.kish(), 1), ic95 }
}

/// Wilson's score interval for a proportion `p` observed on `n` (> 0) trials.
pub fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z2 = Z95 * Z95;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z95 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_textbook_values() {
        // 8 of 10: Wilson 95% = (0.4902, 0.9433) (Newcombe 1998, table I, row 3).
        let (low, high) = wilson(0.8, 10.0);
        assert_eq!((round_float(low, 4), round_float(high, 4)), (0.4902, 0.9433));
        // 0 of 10: (0, 0.2775).
        let (low, high) = wilson(0.0, 10.0);
        assert_eq!((round_float(low, 4), round_float(high, 4)), (0.0, 0.2775));
    }

    /// One model, one answer per question, `hits` of `n` answers: every cluster is one answer.
    fn single_model(hits: usize, n: usize) -> (f64, Spread) {
        let c = 1.0 / n as f64;
        let mut spread = Spread::default();
        for i in 0..n {
            let y = if i < hits { c } else { 0.0 };
            spread.add_cluster(y, c);
            spread.add_answer(c);
        }
        (hits as f64 / n as f64, spread)
    }

    #[test]
    fn one_model_one_answer_per_question_is_plain_wilson() {
        let (r, spread) = single_model(8, 10);
        let u = rate(r, &spread);
        assert_eq!((u.n, u.n_ef, u.ic95), (10, 10.0, Some((0.4902, 0.9433))));
        let (r, spread) = single_model(0, 10);
        assert_eq!(rate(r, &spread).ic95, Some((0.0, 0.2775)));
    }

    #[test]
    fn answers_that_move_together_count_less() {
        // Two models always agree: 10 questions, each answered twice the same way.
        let mut spread = Spread::default();
        for q in 0..10 {
            let y = if q < 4 { 2.0 / 20.0 } else { 0.0 };
            spread.add_cluster(y, 2.0 / 20.0);
            spread.add_answer(1.0 / 20.0);
            spread.add_answer(1.0 / 20.0);
        }
        let u = rate(0.4, &spread);
        assert_eq!(u.n, 20);
        // Twenty answers carry the information of ten questions.
        assert_eq!(u.n_ef, 10.0);
        let (low, high) = wilson(0.4, 10.0);
        assert_eq!(u.ic95, Some((round_float(low, 4), round_float(high, 4))));
    }

    #[test]
    fn one_question_gives_no_interval() {
        let mut spread = Spread::default();
        spread.add_cluster(0.5, 1.0);
        spread.add_answer(0.5);
        spread.add_answer(0.5);
        assert_eq!(rate(0.5, &spread).ic95, None);
        assert_eq!(mean(0.5, &spread, 0.0, 1.0).ic95, None);
    }

    #[test]
    fn a_mean_interval_stays_in_range() {
        // Positions 1 and 1 and 5 over three questions.
        let mut spread = Spread::default();
        for y in [1.0, 1.0, 5.0] {
            spread.add_cluster(y / 3.0, 1.0 / 3.0);
            spread.add_answer(1.0 / 3.0);
        }
        let r = 7.0 / 3.0;
        let u = mean(r, &spread, 1.0, f64::INFINITY);
        let (low, high) = u.ic95.unwrap_or_default();
        // V = Σ ((y − r)/3)² / 1 = (16/9 + 16/9 + 64/9) / 9.
        let half = Z95 * ((16.0 + 16.0 + 64.0) / 81.0_f64).sqrt();
        assert_eq!(low, 1.0);
        assert_eq!(high, round_float(r + half, 4));
        assert_eq!(u.n_ef, 3.0);
    }
}
