//! The x402 HTTP headers: standard base64 of compact JSON, decoded strictly.
//!
//! A payment header is untrusted input on the hottest path of the gate, so decoding is
//! bounded (size first), strict (standard alphabet with padding, as the reference SDKs use)
//! and precise about what is wrong, because the buyer is usually a program that must log why.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use contract::x402::{PaymentPayload, X402_VERSION};

/// Largest `PAYMENT-SIGNATURE` value accepted (the published contract states it).
pub const MAX_HEADER_BYTES: usize = contract::x402::MAX_PAYMENT_HEADER_BYTES;

/// Why a header could not be decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeError {
    Empty,
    TooLarge(usize),
    NotBase64,
    NotUtf8,
    NotJson(String),
    WrongVersion(Option<u64>),
    Shape(String),
}

impl DecodeError {
    /// The x402 error code.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeError::WrongVersion(_) => "invalid_x402_version",
            _ => "invalid_payload",
        }
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Empty => f.write_str("el encabezado PAYMENT-SIGNATURE está vacío"),
            DecodeError::TooLarge(n) => {
                write!(f, "el encabezado PAYMENT-SIGNATURE mide {n} bytes; el máximo es {MAX_HEADER_BYTES}")
            }
            DecodeError::NotBase64 => {
                f.write_str("el encabezado PAYMENT-SIGNATURE no es base64 estándar (alfabeto +/ con relleno =)")
            }
            DecodeError::NotUtf8 => f.write_str("el encabezado PAYMENT-SIGNATURE no decodifica a texto UTF-8"),
            DecodeError::NotJson(e) => write!(f, "el encabezado PAYMENT-SIGNATURE no decodifica a JSON: {e}"),
            DecodeError::WrongVersion(Some(v)) => {
                write!(f, "x402Version es {v}; este servicio habla x402 v{X402_VERSION}")
            }
            DecodeError::WrongVersion(None) => {
                write!(f, "falta x402Version (debe ser {X402_VERSION})")
            }
            DecodeError::Shape(e) => write!(f, "el PaymentPayload no tiene la forma de x402 v2: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes a `PAYMENT-SIGNATURE` value into a v2 payment payload.
pub fn decode_payment_signature(raw: &[u8]) -> Result<PaymentPayload, DecodeError> {
    payload_from_value(decode_value(raw)?)
}

/// A v2 payment payload from its JSON object (MCP sends it as an object in
/// `_meta["x402/payment"]`, not base64).
pub fn payload_from_value(value: Value) -> Result<PaymentPayload, DecodeError> {
    match value.get("x402Version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(X402_VERSION) => {}
        other => return Err(DecodeError::WrongVersion(other)),
    }
    serde_json::from_value(value).map_err(|e| DecodeError::Shape(e.to_string()))
}

/// Standard base64 of the compact JSON of a value.
pub fn encode_json<T: Serialize>(value: &T) -> String {
    STANDARD.encode(serde_json::to_vec(value).unwrap_or_default())
}

/// Decodes a base64 JSON header (`PAYMENT-REQUIRED`, `PAYMENT-RESPONSE`) into any type.
pub fn decode_json<T: DeserializeOwned>(header: &str) -> Result<T, DecodeError> {
    let value = decode_value(header.as_bytes())?;
    serde_json::from_value(value).map_err(|e| DecodeError::Shape(e.to_string()))
}

fn decode_value(raw: &[u8]) -> Result<Value, DecodeError> {
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() {
        return Err(DecodeError::Empty);
    }
    if trimmed.len() > MAX_HEADER_BYTES {
        return Err(DecodeError::TooLarge(trimmed.len()));
    }
    let bytes = STANDARD.decode(trimmed).map_err(|_| DecodeError::NotBase64)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| DecodeError::NotUtf8)?;
    serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b64(v: &Value) -> String {
        encode_json(v)
    }

    /// The published pattern of `PAYMENT-SIGNATURE` (openapi.json) accepts exactly what the
    /// decoder's base64 step accepts: nothing schema-valid is refused as "not base64", nothing
    /// refused as that is schema-valid.
    mod published_pattern {
        use base64::Engine;
        use base64::engine::general_purpose::STANDARD;
        use contract::x402::PAYMENT_HEADER_PATTERN;
        use proptest::prelude::*;

        /// Compiled once: the long property run (`./tienda probar`) asks it thousands of times.
        fn pattern() -> &'static regex::Regex {
            static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                regex::Regex::new(PAYMENT_HEADER_PATTERN).expect("the published pattern is a regular expression")
            });
            &PATTERN
        }

        fn unanchored() -> &'static str {
            PAYMENT_HEADER_PATTERN.strip_prefix('^').and_then(|p| p.strip_suffix('$')).expect("anchored")
        }

        proptest! {
            #[test]
            fn agrees_with_the_decoder_on_short_strings(text in "[A-Za-z0-9+/=_ -]{1,13}") {
                let decodes = STANDARD.decode(&text).is_ok_and(|bytes| !bytes.is_empty());
                prop_assert_eq!(pattern().is_match(&text), decodes, "{:?}", text);
            }

            /// Groups of four, then a short tail and some padding: where the stray bits and the
            /// padding rules bite.
            #[test]
            fn agrees_with_the_decoder_on_padded_tails(text in "([A-Za-z0-9+/]{4}){0,2}[A-Za-z0-9+/]{0,3}={0,3}") {
                let decodes = STANDARD.decode(&text).is_ok_and(|bytes| !bytes.is_empty());
                prop_assert_eq!(pattern().is_match(&text), decodes, "{:?}", text);
            }

            #[test]
            fn accepts_every_encoding(bytes in proptest::collection::vec(any::<u8>(), 1..300)) {
                prop_assert!(pattern().is_match(&STANDARD.encode(&bytes)));
            }

            /// (Generated from the pattern without its anchors, which proptest cannot generate.)
            #[test]
            fn everything_it_accepts_decodes(text in unanchored()) {
                prop_assert!(STANDARD.decode(&text).is_ok(), "{:?}", text);
            }
        }
    }

    #[test]
    fn decodes_a_v2_payload() {
        let v = json!({"x402Version": 2, "accepted": {"scheme": "exact"}, "payload": {"signature": "0x"}});
        let p = decode_payment_signature(b64(&v).as_bytes()).unwrap();
        assert_eq!(p.accepted, json!({"scheme": "exact"}));
        assert_eq!(decode_json::<Value>(&b64(&v)).unwrap(), v);
    }

    #[test]
    fn rejects_each_malformation_with_its_reason() {
        assert_eq!(decode_payment_signature(b"  ").unwrap_err(), DecodeError::Empty);
        assert_eq!(
            decode_payment_signature(&[b'A'; MAX_HEADER_BYTES + 4]).unwrap_err(),
            DecodeError::TooLarge(MAX_HEADER_BYTES + 4)
        );
        assert_eq!(decode_payment_signature(b"%%%").unwrap_err(), DecodeError::NotBase64);
        // URL-safe alphabet is refused: "-_" are not standard base64.
        assert_eq!(decode_payment_signature(b"eyJ4-_8=").unwrap_err(), DecodeError::NotBase64);
        assert_eq!(
            decode_payment_signature(STANDARD.encode([0xff, 0xfe]).as_bytes()).unwrap_err(),
            DecodeError::NotUtf8
        );
        assert!(matches!(decode_payment_signature(STANDARD.encode("hola").as_bytes()), Err(DecodeError::NotJson(_))));
        let v1 = json!({"x402Version": 1, "scheme": "exact", "network": "base-sepolia", "payload": {}});
        assert_eq!(decode_payment_signature(b64(&v1).as_bytes()).unwrap_err(), DecodeError::WrongVersion(Some(1)));
        assert_eq!(
            decode_payment_signature(b64(&json!({"payload": {}})).as_bytes()).unwrap_err(),
            DecodeError::WrongVersion(None)
        );
        let shape = json!({"x402Version": 2, "payload": {}});
        assert!(matches!(decode_payment_signature(b64(&shape).as_bytes()), Err(DecodeError::Shape(_))));
        assert_eq!(DecodeError::WrongVersion(Some(1)).code(), "invalid_x402_version");
        assert_eq!(DecodeError::NotBase64.code(), "invalid_payload");
    }

    proptest::proptest! {
        /// Any bytes at all: an answer, never a panic; a rejection always has a reason code.
        #[test]
        fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(proptest::num::u8::ANY, 0..2048)) {
            if let Err(e) = decode_payment_signature(&raw) {
                proptest::prop_assert!(!e.code().is_empty());
                proptest::prop_assert!(!e.to_string().is_empty());
            }
        }

        /// Base64 of arbitrary text (valid base64, rarely JSON): still an answer.
        #[test]
        fn arbitrary_base64_never_panics(text in "\\PC{0,600}") {
            let _ = decode_payment_signature(STANDARD.encode(text.as_bytes()).as_bytes());
        }

        /// Every well-formed v2 payload survives encode → decode unchanged.
        #[test]
        fn payloads_round_trip(
            scheme in "[a-z]{1,12}",
            network in "[a-z0-9:]{1,24}",
            signature in "0x[0-9a-f]{0,130}",
            extra in proptest::option::of("\\PC{0,40}"),
        ) {
            let mut v = json!({"x402Version": 2, "accepted": {"scheme": scheme, "network": network}, "payload": {"signature": signature}});
            if let Some(extra) = extra {
                v["extensions"] = json!({"payment-identifier": {"info": {"id": extra}}});
            }
            let decoded = decode_payment_signature(b64(&v).as_bytes()).unwrap();
            proptest::prop_assert_eq!(serde_json::to_value(&decoded).unwrap(), v);
        }
    }
}
