//! A buyer: what an agent with a wallet does to buy a study (402 → sign EIP-3009 → pay → save
//! the study and download the files through the signed links, checking their sha256).
//!
//! It behaves like the official x402 clients: it reads `PAYMENT-REQUIRED`, copies the chosen
//! `accepts` entry verbatim into `accepted`, signs with the requirement's EIP-712 domain and
//! sends standard base64 in `PAYMENT-SIGNATURE`. Used by the `comprar` binary and the tests.

use std::path::Path;

use alloy_signer_local::PrivateKeySigner;
use anyhow::{Context, Result, bail};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::x402::evm::{client_authorization, domain_for, exact_payload_json, sign_authorization};
use crate::x402::header::{decode_json, encode_json};
use crate::x402::{
    PAYMENT_IDENTIFIER, PaymentPayload, PaymentRequired, PaymentRequirements, SettlementResponse, X402_VERSION,
};

/// The outcome of a purchase attempt.
#[derive(Debug, Clone)]
pub struct Purchase {
    pub status: u16,
    pub body: Value,
    pub payment_response: Option<SettlementResponse>,
    pub payment_required: Option<PaymentRequired>,
}

/// Picks the EVM exact requirement, signs it and returns the `PAYMENT-SIGNATURE` value.
/// `raw` is the decoded `PAYMENT-REQUIRED` JSON, kept verbatim for `accepted`.
pub fn payment_header_from(raw: &Value, signer: &PrivateKeySigner, now: u64) -> Result<String> {
    let accepts = raw.get("accepts").and_then(Value::as_array).context("PAYMENT-REQUIRED sin accepts")?;
    let accepted = accepts
        .iter()
        .find(|a| {
            a.get("scheme").and_then(Value::as_str) == Some("exact")
                && a.get("network").and_then(Value::as_str).is_some_and(|n| n.starts_with("eip155:"))
        })
        .context("el servicio no ofrece una red EVM con el esquema exact")?;
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone())?;
    let domain = domain_for(&requirements)?;
    let auth = client_authorization(&requirements, signer.address(), now, crate::x402::evm::random_nonce())?;
    let signature = sign_authorization(signer, &domain, &auth)?;
    let payload = PaymentPayload {
        x402_version: X402_VERSION,
        resource: raw.get("resource").cloned(),
        accepted: accepted.clone(),
        payload: exact_payload_json(&auth, &signature),
        extensions: echoed_extensions(raw),
    };
    Ok(encode_json(&payload))
}

/// The 402's extensions echoed back, as x402 asks, with a fresh `payment-identifier` id when
/// the server declares that extension (so a retry under the same id is recognised).
fn echoed_extensions(raw: &Value) -> Option<Value> {
    let mut extensions = raw.get("extensions").filter(|e| e.as_object().is_some_and(|m| !m.is_empty())).cloned()?;
    if let Some(declared) = extensions.get_mut(PAYMENT_IDENTIFIER).and_then(Value::as_object_mut) {
        let mut info = declared.get("info").cloned().unwrap_or_else(|| serde_json::json!({}));
        info["id"] = Value::String(new_payment_id());
        declared.insert("info".to_owned(), info);
    }
    Some(extensions)
}

/// `pay_` and 32 random hex digits, as the official helper generates them.
pub fn new_payment_id() -> String {
    format!("pay_{}", hex::encode(&crate::x402::evm::random_nonce()[..16]))
}

/// GET → 402 → sign → GET with `PAYMENT-SIGNATURE`.
pub async fn buy(client: &reqwest::Client, url: &str, signer: &PrivateKeySigner, now: u64) -> Result<Purchase> {
    let first = client.get(url).send().await.with_context(|| format!("no se pudo pedir {url}"))?;
    let status = first.status().as_u16();
    if status != 402 {
        let body = json_body(first).await;
        return Ok(Purchase { status, body, payment_response: None, payment_required: None });
    }
    let header = first
        .headers()
        .get("payment-required")
        .and_then(|v| v.to_str().ok())
        .context("la respuesta 402 no trae el encabezado PAYMENT-REQUIRED")?
        .to_owned();
    let raw: Value = decode_json(&header)?;
    let required: PaymentRequired =
        serde_json::from_value(raw.clone()).context("PAYMENT-REQUIRED no es un objeto x402 v2")?;
    let signature = payment_header_from(&raw, signer, now)?;
    let paid = client.get(url).header("PAYMENT-SIGNATURE", signature).send().await?;
    let status = paid.status().as_u16();
    let payment_response =
        paid.headers().get("payment-response").and_then(|v| v.to_str().ok()).and_then(|v| decode_json(v).ok());
    let body = json_body(paid).await;
    Ok(Purchase { status, body, payment_response, payment_required: Some(required) })
}

async fn json_body(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Streams a download to `dest` and checks its sha256; returns the bytes written.
pub async fn download_verified(client: &reqwest::Client, url: &str, expected_sha256: &str, dest: &Path) -> Result<u64> {
    let mut response = client.get(url).send().await?;
    if !response.status().is_success() {
        let status = response.status();
        let body = json_body(response).await;
        bail!("la descarga respondió {status}: {body}");
    }
    let mut file =
        tokio::fs::File::create(dest).await.with_context(|| format!("no se pudo crear {}", dest.display()))?;
    let mut hasher = Sha256::new();
    let mut written = 0u64;
    while let Some(chunk) = response.chunk().await? {
        hasher.update(&chunk);
        file.write_all(&chunk).await?;
        written += chunk.len() as u64;
    }
    file.flush().await?;
    let actual = hex::encode(hasher.finalize());
    if !actual.eq_ignore_ascii_case(expected_sha256) {
        let _ = tokio::fs::remove_file(dest).await;
        bail!("sha256 de {} es {actual}, la ficha dice {expected_sha256}", dest.display());
    }
    Ok(written)
}
