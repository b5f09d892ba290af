//! What tells one payment from another: the buyer's idempotency key (x402's
//! `payment-identifier` extension) and the fingerprint of a payload as decoded.

use sha2::{Digest, Sha256};

use crate::x402::{PAYMENT_IDENTIFIER, PaymentPayload};

/// Length limits of a `payment-identifier` id (x402 `payment-identifier` extension).
const ID_CHARS: std::ops::RangeInclusive<usize> = 16..=128;

/// The buyer's idempotency key from the x402 `payment-identifier` extension, if sent. The
/// extension echoed without an `id` (a client that does not use it echoes the declaration, as
/// x402 asks) is no key: the gate declares the id optional.
pub fn payment_identifier(payload: &PaymentPayload) -> std::result::Result<Option<String>, String> {
    let Some(extension) = payload.extensions.as_ref().and_then(|e| e.get(PAYMENT_IDENTIFIER)) else {
        return Ok(None);
    };
    let Some(id) = extension.pointer("/info/id").filter(|id| !id.is_null()) else { return Ok(None) };
    let id = id.as_str().ok_or_else(|| {
        "La extensión payment-identifier debe traer info.id como texto de 16 a 128 caracteres.".to_owned()
    })?;
    let valid_chars = id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ID_CHARS.contains(&id.len()) || !valid_chars {
        return Err(format!(
            "payment-identifier info.id debe tener de {} a {} caracteres (letras, dígitos, - o _); tiene {}.",
            ID_CHARS.start(),
            ID_CHARS.end(),
            id.chars().count()
        ));
    }
    Ok(Some(id.to_owned()))
}

/// sha256 of a payment payload as decoded: tells a repeated request from a different one.
pub fn fingerprint(payload: &PaymentPayload) -> String {
    let bytes = serde_json::to_vec(payload).unwrap_or_default();
    hex::encode(Sha256::digest(&bytes))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn with_extensions(extensions: Value) -> PaymentPayload {
        PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted: json!({}),
            payload: json!({}),
            extensions: Some(extensions),
        }
    }

    #[test]
    fn a_payment_identifier_is_read_only_when_an_id_is_sent() {
        let declared_only = with_extensions(json!({"payment-identifier": {"info": {"required": false}, "schema": {}}}));
        assert_eq!(payment_identifier(&declared_only), Ok(None), "an echoed declaration is no key");
        let id = "pay_0123456789abcdef0123456789abcdef";
        let sent = with_extensions(json!({"payment-identifier": {"info": {"required": false, "id": id}}}));
        assert_eq!(payment_identifier(&sent), Ok(Some(id.to_owned())));
        for bad in [json!("corto"), json!(42), json!("con espacios 0123456789")] {
            let payload = with_extensions(json!({"payment-identifier": {"info": {"id": bad}}}));
            assert!(payment_identifier(&payload).is_err(), "{bad}");
        }
    }
}
