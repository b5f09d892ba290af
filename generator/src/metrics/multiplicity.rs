//! Multiplicity: the change verdicts of a study judged as one family of tests.
//!
//! A study compared with its previous run publishes a verdict for every brand × metric ×
//! change table (overall, per model, per tier): hundreds of tests. At 95% each, a few dozen
//! "changed" verdicts would appear by chance alone, and findings would pick from them. So the
//! verdicts control the false discovery rate of the whole family at [`FDR`] with the
//! Benjamini–Hochberg procedure, and each cell also publishes the Benjamini–Yekutieli (2005)
//! false-coverage-rate adjusted interval, which excludes 0 exactly when the cell is a
//! discovery (up to the rounding of its bounds):
//!
//! 1. **p-value of a cell**, from its own 95% MOVER interval `[L, U]` around the unrounded
//!    difference `D` (`metrics::change`): the side of the interval towards zero gives the
//!    standard error, `s = (D − L)/z` when `D > 0` and `s = (U − D)/z` when `D < 0`
//!    (`z = 1.959964`), and `p = 2·(1 − Φ(|D|/s)) = erfc(|D|/(s·√2))`; `p = 1` when `D = 0`,
//!    `p = 0` when `D ≠ 0` and `s = 0`. So `p < 0.05` exactly when the 95% interval excludes
//!    0: the p-values agree with the intervals already published (Altman and Bland 2011 read a
//!    p-value off an interval the same way; for a mean the side is the paired cluster-robust
//!    standard error itself).
//! 2. **Benjamini–Hochberg** over the `m` cells that have a p-value: with `p(1) ≤ … ≤ p(m)`,
//!    `R` is the largest `k` with `p(k) ≤ k·q/m` (0 if none); the cells with `p ≤ R·q/m` are
//!    the discoveries ("creció" or "cayó", by the sign of `D`), the others "sin cambio más allá
//!    del ruido".
//! 3. **Adjusted interval** (Benjamini and Yekutieli 2005): every cell's interval at level
//!    `1 − max(R, 1)·q/m`, `[D − z*·s_L, D + z*·s_U]` with `z*` the standard normal quantile
//!    of `1 − max(R, 1)·q/(2m)` and `s_L`, `s_U` the two sides' standard errors above.
//!
//! Everything here is floating point; `z*` is found by bisection on `erfc`, so a second
//! implementation with its own `erfc` agrees to the last published decimal.

use serde::Serialize;

/// The false discovery rate the change verdicts of a study control.
pub const FDR: f64 = 0.05;

/// The two-sided p-value of a difference `d` whose unrounded 95% interval is `[low, high]`.
pub fn p_value(d: f64, low: f64, high: f64) -> f64 {
    if d == 0.0 {
        return 1.0;
    }
    let side = if d > 0.0 { d - low } else { high - d };
    if side <= 0.0 {
        return 0.0;
    }
    two_sided_tail(d.abs() * crate::metrics::interval::Z95 / side)
}

/// `P(|Z| ≥ t)` for a standard normal `Z`: `erfc(t/√2)`.
pub fn two_sided_tail(t: f64) -> f64 {
    libm::erfc(t / std::f64::consts::SQRT_2)
}

/// The `z` with `P(|Z| ≥ z) = alpha` (0 < alpha ≤ 1), by bisection on [`two_sided_tail`].
pub fn two_sided_quantile(alpha: f64) -> f64 {
    let (mut low, mut high) = (0.0_f64, 40.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if two_sided_tail(mid) > alpha {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
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
    /// Cells whose published (rounded) 95% interval excludes 0: the verdicts each cell would
    /// give alone, as the tables gave them before the adjustment.
    #[serde(rename = "cambios_sin_ajuste")]
    pub unadjusted: usize,
    /// A p-value at most this is a discovery (`R·q/m`; 0 without discoveries).
    #[serde(rename = "umbral_p")]
    pub threshold: f64,
    /// Level of the adjusted intervals, `1 − max(R, 1)·q/m`.
    #[serde(rename = "nivel_ajustado")]
    pub level: f64,
    /// The normal quantile of the adjusted intervals.
    #[serde(rename = "z_ajustado")]
    pub z: f64,
}

impl Family {
    /// The family of `p_values` at rate [`FDR`]; `unadjusted` cells of it exclude 0 at 95%.
    pub fn new(p_values: &[f64], unadjusted: usize) -> Family {
        let m = p_values.len();
        let r = rejections(p_values, FDR);
        let threshold = if m == 0 { 0.0 } else { r as f64 * FDR / m as f64 };
        let alpha = if m == 0 { FDR } else { r.max(1) as f64 * FDR / m as f64 };
        Family { tests: m, discoveries: r, unadjusted, threshold, level: 1.0 - alpha, z: two_sided_quantile(alpha) }
    }

    /// True when a cell with this p-value is a discovery.
    pub fn discovers(&self, p: f64) -> bool {
        self.discoveries > 0 && p <= self.threshold
    }

    /// The adjusted interval of a difference `d` with unrounded 95% interval `[low, high]`.
    pub fn adjusted(&self, d: f64, low: f64, high: f64) -> (f64, f64) {
        let scale = self.z / crate::metrics::interval::Z95;
        (d - scale * (d - low).max(0.0), d + scale * (high - d).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::interval::Z95;

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
    fn a_p_value_agrees_with_its_95_interval() {
        // A symmetric interval D ± 1.96·s: p = 2·(1 − Φ(D/s)).
        let (d, s) = (0.1, 0.05);
        let p = p_value(d, d - Z95 * s, d + Z95 * s);
        assert!((p - 0.045_500_263_896_358).abs() < 1e-12, "{p}");
        // At the boundary of the 95% interval, p = 0.05; inside, more; outside, less.
        assert!((p_value(0.1, 0.0, 0.3) - 0.05).abs() < 1e-12);
        assert!(p_value(0.1, -0.01, 0.3) > 0.05 && p_value(0.1, 0.01, 0.3) < 0.05);
        // Only the side towards zero matters.
        assert_eq!(p_value(-0.1, -0.9, 0.0), p_value(0.1, 0.0, 0.7));
        assert_eq!(p_value(0.0, -0.1, 0.1), 1.0);
        assert_eq!(p_value(0.2, 0.2, 0.2), 0.0);
    }

    #[test]
    fn quantiles_invert_the_tail() {
        assert!((two_sided_quantile(0.05) - Z95).abs() < 1e-9);
        assert!((two_sided_quantile(0.01) - 2.575_829_303_549).abs() < 1e-9);
        let z = two_sided_quantile(1e-6);
        assert!((two_sided_tail(z) - 1e-6).abs() < 1e-15);
    }

    #[test]
    fn the_adjusted_interval_excludes_zero_exactly_for_discoveries() {
        // Three cells: two clear changes, one within the noise.
        let cells = [(0.3, 0.2, 0.4), (-0.25, -0.4, -0.1), (0.05, -0.02, 0.12)];
        let p: Vec<f64> = cells.iter().map(|&(d, l, h)| p_value(d, l, h)).collect();
        let family = Family::new(&p, 2);
        assert_eq!(family.discoveries, 2);
        assert!((family.level - (1.0 - 2.0 * 0.05 / 3.0)).abs() < 1e-15);
        for (&(d, l, h), &p) in cells.iter().zip(&p) {
            let (low, high) = family.adjusted(d, l, h);
            assert!(low <= l && high >= h, "wider than the 95% interval");
            assert_eq!(low > 0.0 || high < 0.0, family.discovers(p), "{d}");
        }
    }
}
