//! The x402 v2 protocol objects, field by field as the x402 specification (`specs/x402-specification-v2.md`
//! of the x402 foundation) defines them.
//!
//! The generator writes the 402 requirements of every offer into `gate.json` with these
//! types, and the gate reads them back, answers with them and talks to facilitators with
//! them, so both halves agree on the wire format by construction.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The only protocol version the gate speaks.
pub const X402_VERSION: u32 = 2;
/// Largest `PAYMENT-SIGNATURE` (or `SIGN-IN-WITH-X`) value the gate decodes, in bytes.
pub const MAX_PAYMENT_HEADER_BYTES: usize = 16 * 1024;
/// What a `PAYMENT-SIGNATURE` value must look like to be decoded, as the published contract
/// states it: standard base64 with its padding (whole groups of four, a last group of two or
/// three characters padded with `=`, no stray bits in its last character: `QQ==`, not `QR==`).
pub const PAYMENT_HEADER_PATTERN: &str =
    "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=|[A-Za-z0-9+/][AQgw]==)$";
/// The extension a client uses to send an idempotency key (`extensions["payment-identifier"]`).
pub const PAYMENT_IDENTIFIER: &str = "payment-identifier";
/// The discovery extension facilitators index resources by.
pub const BAZAAR: &str = "bazaar";

/// What the server asks for: sent base64-encoded in `PAYMENT-REQUIRED` (and in the 402 body).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequired {
    pub x402_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub resource: ResourceInfo,
    pub accepts: Vec<PaymentRequirements>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Value>,
}

/// The resource being paid for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The service's name for discovery catalogs (bazaar: at most 32 printable ASCII characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// Discovery tags (bazaar: at most 5, each at most 32 printable ASCII characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
}

/// One way to pay: scheme, network, asset, amount and recipient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequirements {
    pub scheme: String,
    /// CAIP-2 network id, e.g. `eip155:84532`.
    pub network: String,
    /// Atomic units as a decimal string (`"990000"` for USD 0.99 of USDC).
    pub amount: String,
    pub asset: String,
    pub pay_to: String,
    pub max_timeout_seconds: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

impl PaymentRequired {
    /// The same object with a reason in `error` (how every refusal reports why).
    pub fn with_error(&self, error: &str) -> PaymentRequired {
        PaymentRequired { error: Some(error.to_owned()), ..self.clone() }
    }
}

impl PaymentRequirements {
    /// A string field of `extra` (EVM: `name`, `version`; SVM: `feePayer`).
    pub fn extra_str(&self, key: &str) -> Option<&str> {
        self.extra.as_ref()?.get(key)?.as_str()
    }
}

/// What the client sends: base64-encoded in `PAYMENT-SIGNATURE` (MCP: `_meta["x402/payment"]`).
///
/// `accepted` stays raw JSON so it can be deep-compared with our offers exactly as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayload {
    pub x402_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<Value>,
    pub accepted: Value,
    pub payload: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Value>,
}

/// A facilitator's answer to `/verify`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponse {
    pub is_valid: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
}

/// A facilitator's answer to `/settle`; sent to the buyer base64-encoded in `PAYMENT-RESPONSE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementResponse {
    pub success: bool,
    /// x402-rs writes it `error_reason` (gate/src/payment/razones/README.md): read either.
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "error_reason")]
    pub error_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "error_message")]
    pub error_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
    /// Transaction hash; `""` on failure (Nethereum's facilitator sends `null`: read as `""`).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub transaction: String,
    #[serde(default)]
    pub network: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Value>,
}

/// A string that may come as `null`, read as `""`.
fn null_as_empty<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(<Option<String> as serde::Deserialize>::deserialize(deserializer)?.unwrap_or_default())
}

impl SettlementResponse {
    /// A settlement already recorded (journal, shared record): success, with its payer,
    /// transaction, network and amount, and no extensions.
    pub fn recorded(network: String, transaction: String, payer: String, amount: String) -> Self {
        SettlementResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some(payer),
            transaction,
            network,
            amount: Some(amount),
            extensions: None,
        }
    }

    /// A failed settlement with a reason code and no transaction.
    pub fn failure(network: &str, reason: &str, message: Option<String>, payer: Option<String>) -> Self {
        SettlementResponse {
            success: false,
            error_reason: Some(reason.to_owned()),
            error_message: message,
            payer,
            transaction: String::new(),
            network: network.to_owned(),
            amount: None,
            extensions: None,
        }
    }
}

/// A facilitator's answer to `GET /supported`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SupportedResponse {
    pub kinds: Vec<SupportedKind>,
    #[serde(default)]
    pub extensions: Vec<String>,
    #[serde(default)]
    pub signers: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SupportedKind {
    pub x402_version: u32,
    pub scheme: String,
    pub network: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

/// The body of `POST /verify` and `POST /settle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorRequest {
    pub x402_version: u32,
    pub payment_payload: PaymentPayload,
    pub payment_requirements: PaymentRequirements,
}
