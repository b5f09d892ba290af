//! What the chain says about a payment: the one judge of whether money moved.
//!
//! A facilitator's `success: true` naming a transaction releases a study. Anything else that
//! might mean money moved (a timeout, `settlement_pending`, "nonce already used", a repeat of
//! an uncertain purchase) releases it only with proof read here: a successful transaction whose
//! logs hold the asset's `AuthorizationUsed(payer, nonce)` and a `Transfer(payer, payTo, value ≥
//! price)`. "Nonce used" alone never proves a payment: the payer can mark their own nonce used
//! with `cancelAuthorization` without moving a cent.
//!
//! A [`Chain`] answers for one network: [`evm::RpcChain`] reads a real EVM node over JSON-RPC
//! ([`rpc`]); the local facilitator's ledger answers for itself in local mode (there the ledger
//! is the chain). [`Chains`] holds one per network, from `GATE_RPC_EIP155_<id>` or `--rpc`.
//! [`settler`] submits `transferWithAuthorization` for the local facilitator's chain backend.
//! [`signature`] asks the chain about smart wallets' signatures (ERC-1271, ERC-6492).

pub mod evm;
pub mod rpc;
pub mod settler;
pub mod signature;

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy_primitives::{Address, B256, U256};
use async_trait::async_trait;

/// Environment variables naming an RPC per EVM network: `GATE_RPC_EIP155_8453` for
/// `eip155:8453`.
pub const RPC_ENV_PREFIX: &str = "GATE_RPC_EIP155_";

/// The payment a purchase expects to find on chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// CAIP-2 network (`eip155:84532`).
    pub network: String,
    /// The token contract (USDC).
    pub asset: Address,
    pub payer: Address,
    pub nonce: B256,
    pub pay_to: Address,
    /// The price, in the asset's atomic units: a transfer of at least this much pays.
    pub amount: U256,
    /// The authorization's validity window (unix seconds): it can only be used strictly inside.
    pub valid_after: u64,
    pub valid_before: u64,
}

/// What the chain says about an authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Used by a successful transaction that moved at least the price from the payer to payTo.
    Paid { transaction: String },
    /// The payer canceled it (`AuthorizationCanceled`): it can never move money.
    Canceled { transaction: Option<String> },
    /// Used, but by a transaction that did not pay payTo the price (another authorization with
    /// the same nonce): nothing was paid for this purchase.
    UsedElsewhere { transaction: String },
    /// Unused, and the chain's time is past `validBefore`: it can never move money.
    Expired,
    /// Unused and still valid: it may still be used. No answer yet.
    Unused,
    /// The nonce is marked used but no event explaining it was found: ask again later.
    Unexplained,
}

impl Verdict {
    /// Whether this proves that the authorization never paid and never will.
    pub fn proves_unpaid(&self) -> bool {
        matches!(self, Verdict::Canceled { .. } | Verdict::UsedElsewhere { .. } | Verdict::Expired)
    }

    /// Why the purchase is void, in the words `gate ventas` shows (Spanish).
    pub fn void_reason(&self) -> String {
        match self {
            Verdict::Canceled { transaction: Some(tx) } => {
                format!("cadena: el pagador canceló la autorización (cancelAuthorization, transacción {tx})")
            }
            Verdict::Canceled { transaction: None } => {
                "cadena: el pagador canceló la autorización (cancelAuthorization)".to_owned()
            }
            Verdict::UsedElsewhere { transaction } => {
                format!("cadena: el nonce se usó en la transacción {transaction}, que no pagó el precio a payTo")
            }
            Verdict::Expired => "cadena: la autorización venció sin usarse (validBefore pasado)".to_owned(),
            Verdict::Paid { transaction } => format!("cadena: pagada en la transacción {transaction}"),
            Verdict::Unused => "cadena: autorización aún sin usar y vigente".to_owned(),
            Verdict::Unexplained => "cadena: nonce usado sin evento que lo explique".to_owned(),
        }
    }
}

/// A chain that could not be read (the purchase then stays uncertain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainError(pub String);

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChainError {}

/// How a settled sale's transaction looks on chain, checked after the fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audit {
    /// The transaction used this authorization and paid payTo at least the price.
    Confirmed,
    /// The transaction exists (or not) but does not prove this payment: why, in Spanish.
    Wrong(String),
    /// Not mined (yet): ask again later.
    NotFound,
}

/// One network's source of truth about payments.
#[async_trait]
pub trait Chain: Send + Sync + 'static {
    /// For logs: "rpc http://host:port" (never a URL's path or key), "libro local".
    fn name(&self) -> String;
    /// What the chain says about `expected`, looking first at `hint` (a transaction a
    /// facilitator named) when given.
    async fn find(&self, expected: &Expected, hint: Option<&str>) -> Result<Verdict, ChainError>;
    /// Whether `transaction` used `expected`'s authorization and paid payTo the price.
    async fn audit(&self, expected: &Expected, transaction: &str) -> Result<Audit, ChainError>;
    /// Whether the smart wallet `signature.signer` (deployed, or deployed by its ERC-6492
    /// wrapper in a simulation) takes `signature`. `None`: this chain runs no contracts (the
    /// local facilitator's ledger), so it cannot say.
    async fn contract_signature(
        &self,
        _signature: &crate::x402::evm::ContractSignature,
    ) -> Result<Option<signature::ContractCheck>, ChainError> {
        Ok(None)
    }
}

/// The chains the gate can read, by CAIP-2 network.
#[derive(Clone, Default)]
pub struct Chains {
    by_network: BTreeMap<String, Arc<dyn Chain>>,
}

impl std::fmt::Debug for Chains {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: BTreeMap<&str, String> = self.by_network.iter().map(|(k, c)| (k.as_str(), c.name())).collect();
        f.debug_struct("Chains").field("by_network", &names).finish()
    }
}

impl Chains {
    pub fn new() -> Chains {
        Chains::default()
    }

    /// Adds (or replaces) the chain of `network`.
    pub fn with(mut self, network: &str, chain: Arc<dyn Chain>) -> Chains {
        self.by_network.insert(network.to_owned(), chain);
        self
    }

    /// The chain of `network`, if one is configured.
    pub fn get(&self, network: &str) -> Option<&Arc<dyn Chain>> {
        self.by_network.get(network)
    }

    pub fn is_empty(&self) -> bool {
        self.by_network.is_empty()
    }

    pub fn networks(&self) -> impl Iterator<Item = &str> {
        self.by_network.keys().map(String::as_str)
    }
}

/// The RPC URLs configured by `GATE_RPC_EIP155_<chain id>` variables (among `vars`), by CAIP-2
/// network. A variable whose suffix is not a chain id is an error that names it.
pub fn rpc_urls_from_env(vars: impl Iterator<Item = (String, String)>) -> Result<BTreeMap<String, String>, String> {
    let mut urls = BTreeMap::new();
    for (name, value) in vars {
        let Some(id) = name.strip_prefix(RPC_ENV_PREFIX) else { continue };
        if value.trim().is_empty() {
            continue;
        }
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{name}: se espera {RPC_ENV_PREFIX}<id de cadena>, p. ej. {RPC_ENV_PREFIX}8453"));
        }
        urls.insert(format!("eip155:{id}"), value.trim().to_owned());
    }
    Ok(urls)
}

/// Parses `--rpc RED=URL` values into the same map.
pub fn rpc_urls_from_flags(values: &[String]) -> Result<BTreeMap<String, String>, String> {
    let mut urls = BTreeMap::new();
    for value in values {
        let (network, url) = value.split_once('=').ok_or_else(|| {
            format!("--rpc {:?}: se espera RED=URL (p. ej. eip155:8453=https://…)", rpc::redact(value))
        })?;
        let id = network.strip_prefix("eip155:").unwrap_or_default();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("--rpc: la red {network:?} no es una red EVM eip155:<id>"));
        }
        urls.insert(network.to_owned(), url.trim().to_owned());
    }
    Ok(urls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_urls_come_from_their_variables_only() {
        let vars = [
            ("GATE_RPC_EIP155_8453".to_owned(), "https://base.example/v2/secreto".to_owned()),
            ("GATE_RPC_EIP155_84532".to_owned(), " http://127.0.0.1:8545 ".to_owned()),
            ("GATE_OTRA".to_owned(), "x".to_owned()),
            ("GATE_RPC_EIP155_1".to_owned(), "".to_owned()),
        ];
        let urls = rpc_urls_from_env(vars.into_iter()).unwrap();
        assert_eq!(urls.len(), 2);
        assert_eq!(urls["eip155:84532"], "http://127.0.0.1:8545");
        let bad = rpc_urls_from_env([("GATE_RPC_EIP155_base".to_owned(), "http://x".to_owned())].into_iter());
        assert!(bad.unwrap_err().contains("GATE_RPC_EIP155_base"));
        let flags = rpc_urls_from_flags(&["eip155:8453=https://rpc.example/key".to_owned()]).unwrap();
        assert_eq!(flags["eip155:8453"], "https://rpc.example/key");
        let error = rpc_urls_from_flags(&["solana:x=https://rpc.example/key".to_owned()]).unwrap_err();
        assert!(!error.contains("key"), "{error}");
        let error = rpc_urls_from_flags(&["https://rpc.example/secreto".to_owned()]).unwrap_err();
        assert!(!error.contains("secreto"), "{error}");
    }
}
