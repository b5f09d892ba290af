//! Exact arithmetic for published numbers.
//!
//! Every rate and mean a study publishes is a ratio of weighted integer counts: per model,
//! an integer sum over its answers (answers naming a brand, positions, points), weighted by
//! the model's weight over its number of answers in scope. Summing those weights in floating
//! point before rounding put 24 half-way cells one unit low (229/800 = 0.28625 published as
//! 0.2862). Here the ratio is computed exactly, in `i128` while it fits and with big integers
//! when it does not, and rounded once, half away from zero, to [`DECIMALS`] places.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

/// Decimals every published non-integer number is rounded to.
pub const DECIMALS: u32 = 4;

/// `10^DECIMALS`.
const SCALE: i128 = 10_i128.pow(DECIMALS);

/// One model's part of a weighted ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// The model's weight as an integer on the study's common decimal scale (see
    /// [`decimal_weights`]); only ratios of weights matter.
    pub weight: u128,
    /// The model's answers in scope (each weighs `weight / answers`). Terms with 0 answers
    /// contribute nothing.
    pub answers: u64,
    /// Integer sum of the numerator over the model's answers.
    pub num: i64,
    /// Integer sum of the denominator over the model's answers.
    pub den: i64,
}

/// A ratio computed exactly: its value rounded once, and as a float for the intervals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exact {
    /// Rounded half away from zero to [`DECIMALS`] places (the nearest `f64` to that decimal).
    pub rounded: f64,
    /// The unrounded value, to `f64` precision.
    pub value: f64,
}

/// `factor · Σ w_m·num_m/n_m ÷ Σ w_m·den_m/n_m`, exactly; `None` when the denominator is 0.
pub fn weighted_ratio(terms: &[Term], factor: i64) -> Option<Exact> {
    // Weights and counts are never negative: the denominator is 0 exactly when no model
    // present has both weight and denominator (a null cell; no need to try big integers).
    if !terms.iter().any(|t| t.answers > 0 && t.weight > 0 && t.den != 0) {
        return None;
    }
    small_ratio(terms, factor).or_else(|| big_ratio(terms, factor))
}

/// `num / den` of plain integers, exactly (the same rounding); `None` when `den` is 0.
pub fn ratio(num: i128, den: i128) -> Option<Exact> {
    if den == 0 {
        return None;
    }
    let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
    match num.checked_mul(2 * SCALE).and_then(|twice| round_scaled(twice, den)) {
        Some(rounded) => Some(Exact { rounded, value: num as f64 / den as f64 }),
        None => big_exact(BigInt::from(num), BigInt::from(den)),
    }
}

/// The `i128` path: `None` on overflow (or a zero denominator, which the big path repeats).
fn small_ratio(terms: &[Term], factor: i64) -> Option<Exact> {
    let mut common: i128 = 1;
    for t in terms.iter().filter(|t| t.answers > 0) {
        common = common.checked_mul(i128::from(t.answers) / common.gcd(&i128::from(t.answers)))?;
    }
    let (mut num, mut den) = (0_i128, 0_i128);
    for t in terms.iter().filter(|t| t.answers > 0) {
        let scale = i128::try_from(t.weight).ok()?.checked_mul(common / i128::from(t.answers))?;
        num = num.checked_add(scale.checked_mul(i128::from(t.num))?)?;
        den = den.checked_add(scale.checked_mul(i128::from(t.den))?)?;
    }
    num = num.checked_mul(i128::from(factor))?;
    if den <= 0 {
        return None;
    }
    let rounded = round_scaled(num.checked_mul(2 * SCALE)?, den)?;
    Some(Exact { rounded, value: num as f64 / den as f64 })
}

/// The same sum with big integers: never overflows.
fn big_ratio(terms: &[Term], factor: i64) -> Option<Exact> {
    let mut common = BigInt::from(1);
    for t in terms.iter().filter(|t| t.answers > 0) {
        common = common.lcm(&BigInt::from(t.answers));
    }
    let (mut num, mut den) = (BigInt::zero(), BigInt::zero());
    for t in terms.iter().filter(|t| t.answers > 0) {
        let scale = BigInt::from(t.weight) * (&common / BigInt::from(t.answers));
        num += &scale * t.num;
        den += &scale * t.den;
    }
    big_exact(num * factor, den)
}

/// Rounds `num / den` (any sign, `den` ≠ 0) with big integers.
pub fn big_exact(num: BigInt, den: BigInt) -> Option<Exact> {
    if den.is_zero() {
        return None;
    }
    let (num, den) = if den.is_negative() { (-num, -den) } else { (num, den) };
    let twice = &num * BigInt::from(2 * SCALE);
    // ⌊(2·|num|·SCALE + den) / (2·den)⌋ with the sign of num: half away from zero.
    let magnitude: BigInt = (twice.abs() + &den) / (&den * 2);
    let units = if num.is_negative() { -magnitude } else { magnitude };
    let rounded = from_units(units.to_i64()?);
    let value = big_to_f64(&num, &den);
    Some(Exact { rounded, value })
}

/// `num / den` as a float without overflowing: both shifted down to 64 significant bits.
fn big_to_f64(num: &BigInt, den: &BigInt) -> f64 {
    let shift = num.bits().max(den.bits()).saturating_sub(60);
    let n = (num >> shift).to_f64().unwrap_or(0.0);
    let d = (den >> shift).to_f64().unwrap_or(f64::NAN);
    n / d
}

/// Rounds `twice / (2·den)` (that is `num·SCALE / den`) half away from zero; `den` > 0.
fn round_scaled(twice: i128, den: i128) -> Option<f64> {
    let magnitude = twice.checked_abs()?.checked_add(den)? / den.checked_mul(2)?;
    let units = if twice < 0 { -magnitude } else { magnitude };
    Some(from_units(i64::try_from(units).ok()?))
}

/// `units / 10^DECIMALS` as the nearest `f64`, never `-0.0`.
fn from_units(units: i64) -> f64 {
    if units == 0 { 0.0 } else { units as f64 / SCALE as f64 }
}

/// The models' weights as integers on one decimal scale, read from the shortest decimal
/// that writes each `f64` (what the publisher typed in `estudio.toml`: `0.35` is 35/100,
/// not the binary double nearest to it). Negative or non-finite weights count as 0.
pub fn decimal_weights(weights: &[f64]) -> Vec<u128> {
    // Validation keeps weights to at most `MAX_WEIGHT_DECIMALS` decimals and below 10^9, so
    // the common scale fits a u128 with room for the counts.
    let parts: Vec<(u128, u32)> = weights.iter().map(|w| decimal_parts(*w)).collect();
    let scale = parts.iter().map(|(_, decimals)| *decimals).max().unwrap_or(0);
    parts.iter().map(|(mantissa, decimals)| mantissa.saturating_mul(10_u128.saturating_pow(scale - decimals))).collect()
}

/// Decimals a model weight may be written with (`0.123456789` at most).
pub const MAX_WEIGHT_DECIMALS: u32 = 9;

/// True when `weight` is written with at most [`MAX_WEIGHT_DECIMALS`] decimals and is below
/// 10^9, so every exact computation over weights fits.
pub fn weight_fits(weight: f64) -> bool {
    let (_, decimals) = decimal_parts(weight);
    weight.is_finite() && weight < 1e9 && decimals <= MAX_WEIGHT_DECIMALS
}

/// `value = mantissa / 10^decimals`, from Rust's shortest round-trip decimal of `value`.
fn decimal_parts(value: f64) -> (u128, u32) {
    if !value.is_finite() || value <= 0.0 {
        return (0, 0);
    }
    // `Display` for f64 never uses an exponent and prints the shortest round-trip digits.
    let text = value.to_string();
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let digits = format!("{whole}{fraction}");
    let mantissa = digits.parse::<u128>().unwrap_or(u128::MAX);
    (mantissa, u32::try_from(fraction.len()).unwrap_or(u32::MAX))
}

/// Rounds a float half away from zero to `decimals` places (intervals and effective sizes,
/// which are not exact by nature); never returns `-0.0`.
pub fn round_float(value: f64, decimals: i32) -> f64 {
    let factor = 10f64.powi(decimals);
    let rounded = (value * factor).round() / factor;
    if rounded == 0.0 { 0.0 } else { rounded }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_rational::BigRational;
    use proptest::prelude::*;

    fn term(weight: u128, answers: u64, num: i64, den: i64) -> Term {
        Term { weight, answers, num, den }
    }

    #[test]
    fn a_half_rounds_away_from_zero() {
        // Roemmers' mention rate in farma-2026: 229 of 800 answers, exactly 0.28625.
        assert_eq!(ratio(229, 800).map(|e| e.rounded), Some(0.2863));
        // The same count spread over four models of 200 answers each, equal weights.
        let terms = [term(1, 200, 60, 200), term(1, 200, 57, 200), term(1, 200, 55, 200), term(1, 200, 57, 200)];
        assert_eq!(weighted_ratio(&terms, 1).map(|e| e.rounded), Some(0.2863));
        assert_eq!(ratio(-229, 800).map(|e| e.rounded), Some(-0.2863));
        assert_eq!(ratio(1, 3).map(|e| e.rounded), Some(0.3333));
        assert_eq!(ratio(2, 3).map(|e| e.rounded), Some(0.6667));
        assert_eq!(ratio(-1, 100_000).map(|e| e.rounded.to_bits()), Some(0.0_f64.to_bits()));
        assert_eq!(ratio(1, 0), None);
    }

    #[test]
    fn weights_are_the_decimals_written() {
        assert_eq!(decimal_weights(&[0.35, 0.4, 0.25]), vec![35, 40, 25]);
        assert_eq!(decimal_weights(&[1.0, 1.0]), vec![1, 1]);
        assert_eq!(decimal_weights(&[1.0, 0.05]), vec![100, 5]);
        assert_eq!(decimal_weights(&[0.1, 2.0, -1.0]), vec![1, 20, 0]);
        assert_eq!(decimal_weights(&[]), Vec::<u128>::new());
        assert!(weight_fits(0.123_456_789) && weight_fits(50.0) && weight_fits(999_999_999.0));
        assert!(!weight_fits(0.123_456_789_1) && !weight_fits(1e-39) && !weight_fits(1e9));
    }

    #[test]
    fn the_big_path_agrees_with_the_small_one_and_takes_over_on_overflow() {
        let terms = [term(3, 7, 5, 7), term(11, 13, 2, 13), term(0, 5, 5, 5)];
        assert_eq!(small_ratio(&terms, 1), big_ratio(&terms, 1).map(|e| Exact { value: e.value, ..e }));
        // Coprime answer counts and a long weight overflow i128: the result stays exact.
        let huge: Vec<Term> = [1_000_003_u64, 1_000_033, 1_000_037, 1_000_039, 1_000_081]
            .iter()
            .map(|&n| term(u128::MAX >> 2, n, 1, 2))
            .collect();
        assert_eq!(small_ratio(&huge, 1), None);
        assert_eq!(weighted_ratio(&huge, 1).map(|e| e.rounded), Some(0.5));
    }

    /// The definition, answer by answer: each answer of model m weighs w_m / n_m.
    fn reference(terms: &[(u128, Vec<(i64, i64)>)], factor: i64) -> Option<BigRational> {
        let (mut num, mut den) = (BigRational::zero(), BigRational::zero());
        for (weight, answers) in terms {
            for (y, x) in answers {
                let w = BigRational::new(BigInt::from(*weight), BigInt::from(answers.len()));
                num += &w * BigInt::from(*y);
                den += &w * BigInt::from(*x);
            }
        }
        (!den.is_zero()).then(|| num * BigInt::from(factor) / den)
    }

    /// Half away from zero on an exact rational.
    fn round_reference(value: &BigRational) -> f64 {
        let scaled = value * BigInt::from(SCALE);
        let half = BigRational::new(BigInt::from(1), BigInt::from(2));
        let magnitude = (scaled.abs() + half).floor().to_integer();
        let units = if scaled.is_negative() { -magnitude } else { magnitude };
        from_units(units.to_i64().unwrap_or(i64::MAX))
    }

    proptest! {
        #[test]
        fn equals_the_answer_by_answer_rational(
            models in prop::collection::vec(
                (0_u128..2_000, prop::collection::vec((0_i64..12, 0_i64..3), 0..40)),
                1..6,
            ),
            factor in prop::sample::select(vec![1_i64, 10, 10_000]),
            negate in any::<bool>(),
        ) {
            let models: Vec<(u128, Vec<(i64, i64)>)> = models
                .into_iter()
                .map(|(w, answers)| (w, answers.into_iter().map(|(y, x)| (if negate { -y } else { y }, x)).collect()))
                .collect();
            let terms: Vec<Term> = models
                .iter()
                .map(|(w, answers)| Term {
                    weight: *w,
                    answers: answers.len() as u64,
                    num: answers.iter().map(|a| a.0).sum(),
                    den: answers.iter().map(|a| a.1).sum(),
                })
                .collect();
            let expected = reference(&models, factor).map(|r| round_reference(&r));
            prop_assert_eq!(weighted_ratio(&terms, factor).map(|e| e.rounded), expected);
            prop_assert_eq!(big_ratio(&terms, factor).map(|e| e.rounded), expected);
        }
    }
}
