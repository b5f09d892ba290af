//! Prices as integers of USDC atomic units, parsed once where the publisher writes them.
//!
//! USDC has 6 decimals, so USD 0.99 is 990,000 units. The publisher writes a decimal string
//! (`precio_usd = "0.99"`); it is parsed into a [`Price`] when `content/` is loaded, travels as
//! an integer through the generator, the manifest and the gate, and becomes text again only
//! through [`Price::usd`] (for people) or [`Price::atomic_string`] (x402's `amount`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Atomic units in one US dollar of USDC.
pub const UNITS_PER_USD: u64 = 1_000_000;
const DECIMALS: usize = 6;

/// A positive price in USDC atomic units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Price(u64);

/// Why a price text is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceError(String);

impl std::fmt::Display for PriceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PriceError {}

impl Price {
    /// A price of `units` atomic units; `None` for zero.
    pub fn from_atomic(units: u64) -> Option<Price> {
        (units > 0).then_some(Price(units))
    }

    /// Parses a decimal USD amount with at most 6 decimals (`"0.99"`, `"1"`, `"12.000001"`).
    pub fn from_usd(text: &str) -> Result<Price, PriceError> {
        let bad =
            || PriceError(format!("`{text}`: se esperaba un precio decimal positivo con hasta 6 decimales (\"0.99\")"));
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit());
        if whole.is_empty() || fraction.len() > DECIMALS || !digits {
            return Err(bad());
        }
        let whole: u64 = whole.parse().map_err(|_| bad())?;
        let fraction: u64 = format!("{fraction:0<DECIMALS$}").parse().map_err(|_| bad())?;
        let units = whole.checked_mul(UNITS_PER_USD).and_then(|w| w.checked_add(fraction)).ok_or_else(bad)?;
        Price::from_atomic(units).ok_or_else(bad)
    }

    /// Parses x402's `amount`: atomic units as a decimal string.
    pub fn from_atomic_str(text: &str) -> Option<Price> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok().and_then(Price::from_atomic)
    }

    pub fn atomic(self) -> u64 {
        self.0
    }

    /// x402's `amount`: `"990000"`.
    pub fn atomic_string(self) -> String {
        self.0.to_string()
    }

    /// The one formatting for people: dollars with at least two decimals and no trailing
    /// zeros beyond them (`"0.99"`, `"1.00"`, `"0.995"`).
    pub fn usd(self) -> String {
        let fraction = format!("{:06}", self.0 % UNITS_PER_USD);
        let kept = fraction.trim_end_matches('0').len().max(2);
        format!("{}.{}", self.0 / UNITS_PER_USD, &fraction[..kept])
    }

    /// The price as a JSON number of dollars (documents list it as `precio_usd: 0.99`).
    pub fn usd_number(self) -> f64 {
        self.0 as f64 / UNITS_PER_USD as f64
    }
}

impl std::fmt::Display for Price {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.usd())
    }
}

/// In content files a price is the dollar text the publisher writes.
impl Serialize for Price {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.usd())
    }
}

impl<'de> Deserialize<'de> for Price {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Price, D::Error> {
        let text = String::deserialize(deserializer)?;
        Price::from_usd(&text).map_err(serde::de::Error::custom)
    }
}

/// A price as `gate.json` lists it: dollars for people and atomic units for the wire, written
/// and read together so the two can never disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "PriceFields", try_from = "PriceFields")]
pub struct ListedPrice(pub Price);

#[derive(Serialize, Deserialize)]
struct PriceFields {
    #[serde(rename = "precio_usd")]
    price_usd: String,
    #[serde(rename = "monto")]
    amount: String,
}

impl From<ListedPrice> for PriceFields {
    fn from(listed: ListedPrice) -> PriceFields {
        PriceFields { price_usd: listed.0.usd(), amount: listed.0.atomic_string() }
    }
}

impl TryFrom<PriceFields> for ListedPrice {
    type Error = String;

    fn try_from(fields: PriceFields) -> Result<ListedPrice, String> {
        let price = Price::from_atomic_str(&fields.amount)
            .ok_or_else(|| format!("monto {:?} no es un entero positivo de unidades atómicas", fields.amount))?;
        if Price::from_usd(&fields.price_usd).ok() != Some(price) {
            return Err(format!("precio_usd {:?} no coincide con monto {:?}", fields.price_usd, fields.amount));
        }
        Ok(ListedPrice(price))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn dollars_parse_into_atomic_units() {
        let units = |text: &str| Price::from_usd(text).map(Price::atomic);
        assert_eq!(units("0.99"), Ok(990_000));
        assert_eq!(units("1"), Ok(1_000_000));
        assert_eq!(units("12.000001"), Ok(12_000_001));
        for bad in ["", "0", "0.0", "-1", "1.2345678", "1,5", ".5", "1e3", " 1", "18446744073709.551616"] {
            let error = Price::from_usd(bad).expect_err(bad);
            assert!(error.to_string().contains("hasta 6 decimales"), "{bad}: {error}");
        }
    }

    #[test]
    fn people_read_two_decimals_at_least() {
        let usd = |units| Price::from_atomic(units).map(Price::usd);
        assert_eq!(usd(990_000).as_deref(), Some("0.99"));
        assert_eq!(usd(1_000_000).as_deref(), Some("1.00"));
        assert_eq!(usd(995_000).as_deref(), Some("0.995"));
        assert_eq!(usd(1).as_deref(), Some("0.000001"));
        assert_eq!(usd(0), None);
        assert_eq!(Price::from_usd("0.99").map(Price::usd_number), Ok(0.99));
    }

    #[test]
    fn the_manifest_lists_both_faces_and_refuses_a_mismatch() {
        let listed = ListedPrice(Price::from_usd("0.99").expect("price"));
        let json = serde_json::to_string(&listed).expect("serializes");
        assert_eq!(json, r#"{"precio_usd":"0.99","monto":"990000"}"#);
        assert_eq!(serde_json::from_str::<ListedPrice>(&json).expect("parses"), listed);
        for bad in [r#"{"precio_usd":"0.99","monto":"990001"}"#, r#"{"precio_usd":"0.99","monto":"0"}"#] {
            assert!(serde_json::from_str::<ListedPrice>(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn usd_text_round_trips(units in 1u64..10_000_000_000_000) {
            let price = Price::from_atomic(units).expect("positive");
            prop_assert_eq!(Price::from_usd(&price.usd()), Ok(price));
            prop_assert_eq!(Price::from_atomic_str(&price.atomic_string()), Some(price));
        }
    }
}
