//! Submitting `transferWithAuthorization` to an EVM node: the local facilitator's chain
//! backend. It signs an EIP-1559 transaction with the settler's key (it pays the gas; the
//! payer signed only the authorization), sends it, and waits for its receipt. An EOA's
//! signature goes as `(v, r, s)` with a fixed gas limit; a smart wallet's as FiatToken v2.2's
//! `bytes signature` overload with the gas the node estimates (its contract's ERC-1271 check
//! costs what it costs), after, for a wallet not yet deployed, its ERC-6492 factory call.
//!
//! Transactions of one settler are numbered from a counter held under a lock only while a number
//! is taken, so concurrent settlements never reuse an account nonce and never wait for each
//! other's sends (a node that mines on send, like anvil's automine, answers only once the block
//! is sealed; a remote RPC costs a round trip). A failed send makes the next one re-read the
//! count from the node, which fills the gap the failed number left. So does a sent transaction
//! the node no longer knows ([`Settler::dropped`]): a mempool that evicts one of a settler's
//! transactions leaves a gap every later number waits behind, until it is filled.

use std::time::Duration;

use alloy_consensus::{SignableTransaction, TxEip1559};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::{SolCall, sol};

use super::ChainError;
use super::rpc::{Receipt, Rpc};
use crate::x402::evm::{Authorization, ExactEvmPayload};

sol! {
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

mod with_bytes {
    alloy_sol_types::sol! {
        /// FiatToken v2.2's overload for any signature: an EOA's packed `r ‖ s ‖ v`, or a
        /// contract wallet's bytes, checked with ERC-1271 when `from` has code.
        function transferWithAuthorization(
            address from,
            address to,
            uint256 value,
            uint256 validAfter,
            uint256 validBefore,
            bytes32 nonce,
            bytes signature
        ) external;
    }
}

/// Gas a `transferWithAuthorization` may use (FiatToken v2.2 uses about 80,000).
const GAS_LIMIT: u64 = 200_000;
/// The most gas a smart wallet's settlement or deployment may be given (its estimate plus a
/// quarter): a wallet's `isValidSignature` may verify a passkey or several owners.
const MAX_CONTRACT_GAS: u64 = 3_000_000;
/// The first pause between two asks for a receipt; it doubles up to [`POLL_MAX`] (a local
/// node mines within milliseconds, a real chain every second or two). Short, because the
/// settlement is the buyer's wait: anvil with automine mines a transaction 1–10 ms after
/// accepting it, and a first pause of 10 ms made every sale on it wait at least that long.
const POLL_FIRST: Duration = Duration::from_millis(2);
const POLL_MAX: Duration = Duration::from_millis(250);

/// One account that submits authorizations on one chain.
pub struct Settler {
    rpc: Rpc,
    signer: PrivateKeySigner,
    chain_id: u64,
    next_nonce: tokio::sync::Mutex<Option<u64>>,
}

impl std::fmt::Debug for Settler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settler")
            .field("rpc", &self.rpc)
            .field("address", &self.signer.address())
            .field("chain_id", &self.chain_id)
            .finish_non_exhaustive()
    }
}

impl Settler {
    /// A settler signing with `key` (hex) on the chain the RPC at `url` serves.
    pub async fn connect(url: &str, key: &str, timeout: Duration) -> Result<Settler, ChainError> {
        let signer: PrivateKeySigner = key
            .trim()
            .parse()
            .map_err(|_| ChainError("la clave del liquidador no es una clave privada secp256k1 en hex".into()))?;
        let rpc = Rpc::new(url, timeout)?;
        let chain_id = rpc.chain_id().await?;
        Ok(Settler { rpc, signer, chain_id, next_nonce: tokio::sync::Mutex::new(None) })
    }

    pub fn rpc(&self) -> &Rpc {
        &self.rpc
    }

    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The account that pays the gas.
    pub fn address(&self) -> Address {
        self.signer.address()
    }

    /// Signs and sends `transferWithAuthorization` for `payment` on `asset`; returns the
    /// transaction's hash as soon as the node accepted it.
    pub async fn submit(&self, asset: Address, payment: &ExactEvmPayload) -> Result<B256, ChainError> {
        let call = transfer_call(payment)?;
        self.send(asset, call, GAS_LIMIT).await
    }

    /// Signs and sends the `bytes signature` overload of `transferWithAuthorization` for a smart
    /// wallet's authorization (`signature` as USDC must get it: ERC-1271's bytes, never an
    /// ERC-6492 wrapper), with the gas the node estimates. `Ok(Err(why))`: the node says it
    /// would revert, and nothing was sent.
    pub async fn submit_signed_by_contract(
        &self,
        asset: Address,
        authorization: &Authorization,
        signature: &[u8],
    ) -> Result<Result<B256, String>, ChainError> {
        let call = transfer_call_with_bytes(authorization, signature);
        match self.gas_for(asset, &call).await? {
            Ok(gas) => self.send(asset, call, gas).await.map(Ok),
            Err(why) => Ok(Err(why)),
        }
    }

    /// Sends an ERC-6492 wrapper's factory call, which deploys the wallet; `Ok(Err(why))`: the
    /// node says it would revert, and nothing was sent. The call runs from the settler's
    /// account, so only factories the operator allowed are ever called (the local facilitator's
    /// list): a payer chooses the calldata.
    pub async fn deploy_wallet(&self, factory: Address, calldata: &[u8]) -> Result<Result<B256, String>, ChainError> {
        match self.gas_for(factory, calldata).await? {
            Ok(gas) => self.send(factory, calldata.to_vec(), gas).await.map(Ok),
            Err(why) => Ok(Err(why)),
        }
    }

    /// The gas to give a call: the node's estimate and a quarter more, at most
    /// [`MAX_CONTRACT_GAS`]; `Err(why)` when the node says it reverts.
    async fn gas_for(&self, to: Address, data: &[u8]) -> Result<Result<u64, String>, ChainError> {
        Ok(match self.rpc.estimate_gas(self.address(), to, data).await? {
            Ok(gas) if gas <= MAX_CONTRACT_GAS => Ok((gas.saturating_add(gas / 4)).min(MAX_CONTRACT_GAS)),
            Ok(gas) => Err(format!("necesitaría {gas} de gas, más que el máximo de {MAX_CONTRACT_GAS}")),
            Err(revert) => Err(revert),
        })
    }

    /// Signs and sends an EIP-1559 transaction calling `to` with `input`; returns its hash as
    /// soon as the node accepted it.
    async fn send(&self, to: Address, input: Vec<u8>, gas_limit: u64) -> Result<B256, ChainError> {
        let gas_price = self.rpc.gas_price().await?;
        let tip = (gas_price / 10).max(1);
        let nonce = self.take_nonce().await?;
        let transaction = TxEip1559 {
            chain_id: self.chain_id,
            nonce,
            gas_limit,
            max_fee_per_gas: gas_price.saturating_mul(2).saturating_add(tip),
            max_priority_fee_per_gas: tip,
            to: TxKind::Call(to),
            value: U256::ZERO,
            access_list: Default::default(),
            input: Bytes::from(input),
        };
        let signature = match self.signer.sign_hash_sync(&transaction.signature_hash()) {
            Ok(signature) => signature,
            Err(e) => {
                self.forget_nonces().await;
                return Err(ChainError(format!("no se pudo firmar la transacción: {e}")));
            }
        };
        let raw = transaction.into_signed(signature).encoded_2718();
        let sent = self.rpc.send_raw(&raw).await;
        if sent.is_err() {
            self.forget_nonces().await;
        }
        sent
    }

    /// The next account nonce of this settler: counted here after the first, read from the
    /// node's pending count at the start and after a failure.
    async fn take_nonce(&self) -> Result<u64, ChainError> {
        let mut next = self.next_nonce.lock().await;
        let nonce = match *next {
            Some(nonce) => nonce,
            None => self.rpc.pending_nonce(self.signer.address()).await?,
        };
        *next = Some(nonce + 1);
        Ok(nonce)
    }

    /// After a number was taken but not used: the next one is read from the node again.
    async fn forget_nonces(&self) {
        *self.next_nonce.lock().await = None;
    }

    /// Whether a sent, unmined `transaction` is gone from the node (evicted or dropped from its
    /// mempool). Then the next number is read from the node again, which fills the gap, and
    /// the authorization it carried can be sent again: it can move money once at most.
    pub async fn dropped(&self, transaction: B256) -> Result<bool, ChainError> {
        if self.rpc.knows(transaction).await? {
            return Ok(false);
        }
        self.forget_nonces().await;
        Ok(true)
    }

    /// Waits up to `wait` for `transaction`'s receipt; `None` if it is not mined by then.
    pub async fn wait(&self, transaction: B256, wait: Duration) -> Result<Option<Receipt>, ChainError> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut pause = POLL_FIRST;
        loop {
            if let Some(receipt) = self.rpc.receipt(transaction).await? {
                return Ok(Some(receipt));
            }
            if tokio::time::Instant::now() + pause > deadline {
                return Ok(None);
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(POLL_MAX);
        }
    }
}

/// The calldata of `transferWithAuthorization` for a signed authorization.
fn transfer_call(payment: &ExactEvmPayload) -> Result<Vec<u8>, ChainError> {
    let signature = &payment.signature;
    if signature.len() != 65 {
        return Err(ChainError(format!("firma de {} bytes; se esperan 65", signature.len())));
    }
    let auth = &payment.authorization;
    let v = match signature[64] {
        v @ (27 | 28) => v,
        v @ (0 | 1) => v + 27,
        v => return Err(ChainError(format!("firma con v = {v}"))),
    };
    Ok(transferWithAuthorizationCall {
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: U256::from(auth.valid_after),
        validBefore: U256::from(auth.valid_before),
        nonce: auth.nonce,
        v,
        r: B256::from_slice(&signature[..32]),
        s: B256::from_slice(&signature[32..64]),
    }
    .abi_encode())
}

/// The calldata of `transferWithAuthorization(…, bytes signature)`.
pub fn transfer_call_with_bytes(auth: &Authorization, signature: &[u8]) -> Vec<u8> {
    with_bytes::transferWithAuthorizationCall {
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: U256::from(auth.valid_after),
        validBefore: U256::from(auth.valid_before),
        nonce: auth.nonce,
        signature: Bytes::copy_from_slice(signature),
    }
    .abi_encode()
}
