//! Facilitators: who verifies and settles a payment, behind one trait.
//!
//! [`http::HttpFacilitator`] talks the x402 facilitator API to any conformant URL (x402.org on
//! testnet, a configured one on mainnet). [`local::LocalFacilitator`] verifies real signatures
//! and settles against a local ledger with no chain: the default on a fresh machine and in
//! tests; [`service::FacilitatorService`] serves it over HTTP (the `facilitador-local`
//! binary). [`cdp`] signs the per-request JWT Coinbase's hosted facilitator wants. The gate
//! never knows which one it has.

pub mod cdp;
pub mod cli;
pub mod http;
pub mod local;
pub mod service;

use async_trait::async_trait;

use crate::x402::{PaymentPayload, PaymentRequirements, SettlementResponse, SupportedResponse, VerifyResponse};

#[async_trait]
pub trait Facilitator: Send + Sync + 'static {
    /// Short name for logs ("local", "http https://x402.org/facilitator").
    fn name(&self) -> String;
    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError>;
    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettlementResponse, FacilitatorError>;
    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError>;
}

/// A facilitator that did not give a usable answer (a refusal is an answer, not an error).
///
/// Only [`FacilitatorError::NotReached`] proves the request never arrived; after any other
/// error a settlement may have happened ([`crate::payment::settlement`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FacilitatorError {
    /// No connection could be made: the request was never sent.
    NotReached(String),
    /// No answer within the timeout.
    Timeout,
    /// The connection broke after the request was sent.
    Broken(String),
    /// An error status without an x402 answer in the body.
    Status { status: u16, body: String },
    /// An answer that could not be read.
    BadBody(String),
}

impl std::fmt::Display for FacilitatorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FacilitatorError::NotReached(e) => write!(f, "no se pudo conectar con el facilitador: {e}"),
            FacilitatorError::Timeout => f.write_str("el facilitador no respondió a tiempo"),
            FacilitatorError::Broken(e) => write!(f, "se cortó la conexión con el facilitador: {e}"),
            FacilitatorError::Status { status, .. } => write!(f, "el facilitador respondió con estado {status}"),
            FacilitatorError::BadBody(e) => write!(f, "la respuesta del facilitador no se entiende: {e}"),
        }
    }
}

impl std::error::Error for FacilitatorError {}

impl FacilitatorError {
    /// The kind, as the metrics label it.
    pub fn kind(&self) -> &'static str {
        match self {
            FacilitatorError::NotReached(_) => "sin_conexion",
            FacilitatorError::Timeout => "tiempo_agotado",
            FacilitatorError::Broken(_) => "conexion_cortada",
            FacilitatorError::Status { .. } => "estado_http",
            FacilitatorError::BadBody(_) => "respuesta_ilegible",
        }
    }
}
