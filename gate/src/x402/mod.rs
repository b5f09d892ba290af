//! The x402 v2 wire format: the objects that cross the wire, their header encoding, the EVM
//! `exact` scheme (EIP-3009 authorizations signed under USDC's EIP-712 domain), the signed
//! offers and receipts of the `offer-receipt` extension, and the `sign-in-with-x` extension's
//! proofs (EIP-4361 messages signed by a past buyer's wallet).
//!
//! Payloads are kept as typed structs where the gate reads fields and as raw JSON where it
//! must compare them exactly (`accepted` deep-equals one of our offers, byte for byte in
//! meaning), so nothing a client sends is silently normalized away.

pub mod evm;
pub mod header;
pub mod receipt;
pub mod siwx;

pub use contract::x402::{
    BAZAAR, PAYMENT_IDENTIFIER, PaymentPayload, PaymentRequired, PaymentRequirements, ResourceInfo, SettlementResponse,
    SupportedKind, SupportedResponse, VerifyResponse, X402_VERSION,
};
