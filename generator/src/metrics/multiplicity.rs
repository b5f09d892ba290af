//! Multiplicity: the change verdicts of a study judged as one family of tests.
//!
//! A study compared with its previous run publishes a verdict for every brand × metric ×
//! change table (overall, per model, per tier): hundreds of tests. At 95% each, a few dozen
//! "changed" verdicts would appear by chance alone, and findings would pick from them. So the
//! verdicts control the false discovery rate of the whole family at [`FDR`] with the
//! Benjamini–Hochberg procedure, and each cell also publishes its Benjamini–Yekutieli (2005)
//! false-coverage-rate adjusted interval, which excludes 0 exactly when the cell is a
//! discovery (up to the rounding of its bounds):
//!
//! 1. **p-value of a cell**, from its own 95% MOVER interval `[L, U]` around the unrounded
//!    difference `D` (`metrics::change`): the side of the interval towards zero gives the
//!    standard error, `s = (D − L)/z` when `D > 0` and `s = (U − D)/z` when `D < 0`
//!    (`z = 1.959964`, the interval's own quantile), and `p = 2·(1 − T_k(|D|/s))` with `T_k`
//!    Student's t distribution on `k = G − 1` degrees of freedom, `G` the shared questions in
//!    the base of either run (the clusters of the paired difference); `p = 1` when `D = 0`,
//!    `p = 0` when `D ≠ 0` and `s = 0`. Reading the standard error off the interval is how
//!    Altman and Bland (2011) get a p-value from an interval; the t distribution is the
//!    small-sample reference of a cluster-robust statistic with `G` clusters (its `G − 1`
//!    degrees of freedom). It matters here: Benjamini–Hochberg works in the far tail (`q/m`
//!    is a few in 100,000), where the normal approximation of a statistic from a few dozen
//!    questions, or from a handful, is many times too optimistic (`BENCHMARKS.md`, «Cambios
//!    sin falsas alarmas», measures it).
//!    A cell with fewer than [`MIN_CLUSTERS`] such questions is not tested (no p-value, no
//!    verdict): with a handful of questions the variance says nothing of the tail.
//! 2. **Benjamini–Hochberg** over the `m` cells that have a p-value: with `p(1) ≤ … ≤ p(m)`,
//!    `R` is the largest `k` with `p(k) ≤ k·q/m` (0 if none); the cells with `p ≤ R·q/m` are
//!    the discoveries ("creció" or "cayó", by the sign of `D`), the others "sin cambio más allá
//!    del ruido".
//! 3. **Adjusted interval** (Benjamini and Yekutieli 2005): every cell's interval at level
//!    `1 − α*`, `α* = max(R, 1)·q/m`: `[D − t*·s_L, D + t*·s_U]`, with `t*` the quantile of
//!    `T_k` at `1 − α*/2` and `s_L`, `s_U` the two sides' standard errors above.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::metrics::interval::Z95;

/// The false discovery rate the change verdicts of a study control.
pub const FDR: f64 = 0.05;

/// Fewest shared questions behind a difference for it to be tested. Below it, a cluster-robust
/// variance rests on too few clusters to say anything in the far tail where the family's
/// thresholds lie (two questions whose answers all agree give a variance of 0): the cell keeps
/// its 95% interval but gets no p-value, no adjusted interval and no verdict, and does not
/// enter the family.
pub const MIN_CLUSTERS: usize = 10;

/// Student's t distribution on `df` degrees of freedom (at least 1).
fn students_t(df: usize) -> StudentsT {
    StudentsT::new(0.0, 1.0, df.max(1) as f64).expect("a t distribution with positive degrees of freedom")
}

/// `P(|T| ≥ t)` for Student's t on `df` degrees of freedom.
pub fn two_sided_tail(t: f64, df: usize) -> f64 {
    let dist = students_t(df);
    // sf (the upper tail) keeps its precision where 1 − cdf would lose it.
    (2.0 * dist.sf(t.abs())).min(1.0)
}

/// The `t` with `P(|T| ≥ t) = alpha` (0 < alpha ≤ 1) on `df` degrees of freedom.
pub fn two_sided_quantile(alpha: f64, df: usize) -> f64 {
    students_t(df).inverse_cdf(1.0 - alpha / 2.0)
}

/// The two-sided p-value of a difference `d` whose unrounded 95% interval is `[low, high]`,
/// with `clusters` questions behind it.
pub fn p_value(d: f64, low: f64, high: f64, clusters: usize) -> f64 {
    if d == 0.0 {
        return 1.0;
    }
    let side = if d > 0.0 { d - low } else { high - d };
    if side <= 0.0 {
        return 0.0;
    }
    two_sided_tail(d.abs() * Z95 / side, clusters.saturating_sub(1))
}

/// The Benjamini–Hochberg procedure at false discovery rate `q` over `p_values`: the number of
/// discoveries `R` (a p-value is a discovery when it is at most `R·q/m`).
pub fn rejections(p_values: &[f64], q: f64) -> usize {
    let mut sorted = p_values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len() as f64;
    (1..=sorted.len()).rev().find(|&k| sorted[k - 1] <= k as f64 * q / m).unwrap_or(0)
}

/// The outcome of the procedure for one family.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Family {
    /// Tests in the family (cells with a p-value).
    #[serde(rename = "pruebas")]
    pub tests: usize,
    /// Discoveries: the cells whose verdict is a change.
    #[serde(rename = "cambios")]
    pub discoveries: usize,
    /// Cells (tested or not) whose published (rounded) 95% interval excludes 0: the verdicts
    /// each cell would give alone, as the tables gave them before the adjustment.
    #[serde(rename = "cambios_sin_ajuste")]
    pub unadjusted: usize,
    /// A p-value at most this is a discovery (`R·q/m`; 0 without discoveries).
    #[serde(rename = "umbral_p")]
    pub threshold: f64,
    /// Level of the adjusted intervals, `1 − max(R, 1)·q/m`.
    #[serde(rename = "nivel_ajustado")]
    pub level: f64,
}

impl Family {
    /// The family of `p_values` at rate [`FDR`]; `unadjusted` cells of it exclude 0 at 95%.
    pub fn new(p_values: &[f64], unadjusted: usize) -> Family {
        let m = p_values.len();
        let r = rejections(p_values, FDR);
        let threshold = if m == 0 { 0.0 } else { r as f64 * FDR / m as f64 };
        Family { tests: m, discoveries: r, unadjusted, threshold, level: 1.0 - self_alpha(r, m) }
    }

    /// `α* = max(R, 1)·q/m`, the adjusted intervals' miss rate.
    pub fn alpha(&self) -> f64 {
        self_alpha(self.discoveries, self.tests)
    }

    /// True when a cell with this p-value is a discovery.
    pub fn discovers(&self, p: f64) -> bool {
        self.discoveries > 0 && p <= self.threshold
    }

    /// The adjusted interval of a difference `d` with unrounded 95% interval `[low, high]` and
    /// `clusters` questions behind it.
    pub fn adjusted(&self, d: f64, low: f64, high: f64, clusters: usize) -> (f64, f64) {
        let scale = two_sided_quantile(self.alpha(), clusters.saturating_sub(1)) / Z95;
        (d - scale * (d - low).max(0.0), d + scale * (high - d).max(0.0))
    }
}

fn self_alpha(r: usize, m: usize) -> f64 {
    if m == 0 { FDR } else { r.max(1) as f64 * FDR / m as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_textbook_example_rejects_four() {
        // Benjamini and Hochberg (1995), section 4.2: 15 p-values, q = 0.05 → 4 discoveries.
        let p = [
            0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528,
            0.7590, 1.0,
        ];
        assert_eq!(rejections(&p, 0.05), 4);
        let family = Family::new(&p, 9);
        assert!(family.discovers(0.0095) && !family.discovers(0.0201));
        assert!((family.threshold - 4.0 * 0.05 / 15.0).abs() < 1e-15);
        // A step-up: a small p-value far down the list still counts once a later one passes.
        assert_eq!(rejections(&[0.04, 0.04], 0.05), 2);
        assert_eq!(rejections(&[0.06, 0.5], 0.05), 0);
        assert_eq!(rejections(&[], 0.05), 0);
    }

    #[test]
    fn p_values_come_from_the_interval_and_the_t_distribution() {
        // A symmetric interval D ± 1.96·s with 61 questions: t = 2 on 60 degrees of freedom,
        // p = 0.0500 (tables: t(0.975, 60) = 2.000); the normal would say 0.0455.
        let (d, s) = (0.1, 0.05);
        let p = p_value(d, d - Z95 * s, d + Z95 * s, 61);
        assert!((p - 0.05).abs() < 2e-4, "{p}");
        // Many questions: the normal's 0.0455.
        assert!((p_value(d, d - Z95 * s, d + Z95 * s, 10_000) - 0.0455).abs() < 1e-4);
        // Few questions: far less sure (t = 2 on 3 degrees of freedom: p = 0.139).
        assert!((p_value(d, d - Z95 * s, d + Z95 * s, 4) - 0.1393).abs() < 1e-3);
        // Only the side towards zero matters.
        assert_eq!(p_value(-0.1, -0.9, 0.0, 30), p_value(0.1, 0.0, 0.7, 30));
        assert_eq!(p_value(0.0, -0.1, 0.1, 30), 1.0);
        assert_eq!(p_value(0.2, 0.2, 0.2, 30), 0.0);
    }

    #[test]
    fn quantiles_invert_the_tail() {
        // t(0.975, 10) = 2.228 (tables); the normal's 1.96 for many degrees of freedom.
        assert!((two_sided_quantile(0.05, 10) - 2.228_138_851_986).abs() < 1e-6);
        // t(0.975, 10,000) = 1.96020: the normal's 1.95996 for many degrees of freedom.
        assert!((two_sided_quantile(0.05, 10_000) - 1.960_201).abs() < 1e-5);
        let t = two_sided_quantile(1e-6, 40);
        assert!((two_sided_tail(t, 40) / 1e-6 - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_adjusted_interval_excludes_zero_exactly_for_discoveries() {
        // Three cells of 50 questions: two clear changes, one within the noise.
        let cells = [(0.3, 0.2, 0.4), (-0.25, -0.4, -0.1), (0.05, -0.02, 0.12)];
        let p: Vec<f64> = cells.iter().map(|&(d, l, h)| p_value(d, l, h, 50)).collect();
        let family = Family::new(&p, 2);
        assert_eq!(family.discoveries, 2);
        assert!((family.level - (1.0 - 2.0 * 0.05 / 3.0)).abs() < 1e-15);
        for (&(d, l, h), &p) in cells.iter().zip(&p) {
            let (low, high) = family.adjusted(d, l, h, 50);
            assert!(low <= l && high >= h, "wider than the 95% interval");
            assert_eq!(low > 0.0 || high < 0.0, family.discovers(p), "{d}");
        }
    }
}
