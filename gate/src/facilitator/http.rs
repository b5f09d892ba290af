//! A facilitator reached over the x402 facilitator HTTP API (`/verify`, `/settle`, `/supported`).
//!
//! Facilitators disagree on status codes (x402-rs answers a refusal with 400 and a spec body),
//! so any 2xx or 4xx body that carries `isValid`/`success` is an answer; 5xx, timeouts and
//! unreadable bodies are errors. The payment payload is never logged.

use std::time::Duration;

use anyhow::Result;
use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::cdp::CdpKey;
use super::{Facilitator, FacilitatorError};
use crate::x402::{
    PaymentPayload, PaymentRequirements, SettlementResponse, SupportedResponse, VerifyResponse, X402_VERSION,
};
use contract::x402::FacilitatorRequest;

pub struct HttpFacilitator {
    base: String,
    auth: Option<(String, String)>,
    /// Signs a fresh `Authorization: Bearer <JWT>` for each request (Coinbase CDP).
    cdp: Option<CdpKey>,
    client: reqwest::Client,
}

impl HttpFacilitator {
    pub fn new(base_url: &str, auth_header: Option<(String, String)>, timeout: Duration) -> Result<Self> {
        // reqwest is built without its own crypto provider: one stack (ring) for the whole process.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .timeout(timeout)
            .pool_max_idle_per_host(32)
            .build()?;
        Ok(HttpFacilitator { base: base_url.trim_end_matches('/').to_owned(), auth: auth_header, cdp: None, client })
    }

    /// Authenticates every call with a JWT minted for it from a CDP Secret API key.
    pub fn with_cdp(mut self, key: CdpKey) -> Self {
        self.cdp = Some(key);
        self
    }

    async fn call<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        answer_key: &str,
    ) -> Result<T, FacilitatorError> {
        let request = match &self.auth {
            Some((name, value)) => request.header(name.as_str(), value.as_str()),
            None => request,
        };
        // A request that cannot be built or signed is never sent: nothing can have moved.
        let mut request = request.build().map_err(|e| FacilitatorError::NotReached(e.without_url().to_string()))?;
        if let Some(key) = &self.cdp {
            key.authorize(&mut request).map_err(|e| FacilitatorError::NotReached(format!("{e:#}")))?;
        }
        let response = self.client.execute(request).await.map_err(classify)?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(classify)?;
        let parsed: Option<Value> = serde_json::from_slice(&bytes).ok();
        let answers = parsed.as_ref().is_some_and(|v| answer_key.is_empty() || v.get(answer_key).is_some());
        if status >= 500 || !(200..500).contains(&status) || !answers {
            // A 2xx that is not the answer asked for (a body that is not JSON, or JSON without
            // the answer's field, as an "accepted, still settling" 202 may be) is unreadable:
            // for a settlement, the money may have moved.
            if (200..300).contains(&status) {
                let what = if parsed.is_none() { "que no son JSON" } else { "sin la respuesta esperada" };
                return Err(FacilitatorError::BadBody(format!("HTTP {status}, {} bytes {what}", bytes.len())));
            }
            return Err(FacilitatorError::Status {
                status,
                body: String::from_utf8_lossy(&bytes).chars().take(300).collect(),
            });
        }
        serde_json::from_value(parsed.unwrap_or(Value::Null)).map_err(|e| FacilitatorError::BadBody(e.to_string()))
    }

    fn body(payload: &PaymentPayload, requirements: &PaymentRequirements) -> FacilitatorRequest {
        FacilitatorRequest {
            x402_version: X402_VERSION,
            payment_payload: payload.clone(),
            payment_requirements: requirements.clone(),
        }
    }
}

/// Whether the request may have reached the facilitator decides what a failure means for the
/// money: only a failed connection proves it did not.
fn classify(e: reqwest::Error) -> FacilitatorError {
    let (connect, timeout, body) = (e.is_connect(), e.is_timeout(), e.is_body() || e.is_decode());
    let text = e.without_url().to_string();
    if connect {
        FacilitatorError::NotReached(text)
    } else if timeout {
        FacilitatorError::Timeout
    } else if body {
        FacilitatorError::BadBody(text)
    } else {
        FacilitatorError::Broken(text)
    }
}

#[async_trait]
impl Facilitator for HttpFacilitator {
    fn name(&self) -> String {
        match &self.cdp {
            Some(key) => format!("http {} (JWT de CDP, clave {})", self.base, key.id()),
            None => format!("http {}", self.base),
        }
    }

    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        let request = self.client.post(format!("{}/verify", self.base)).json(&Self::body(payload, requirements));
        self.call(request, "isValid").await
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettlementResponse, FacilitatorError> {
        let request = self.client.post(format!("{}/settle", self.base)).json(&Self::body(payload, requirements));
        self.call(request, "success").await
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        self.call(self.client.get(format!("{}/supported", self.base)), "kinds").await
    }
}
