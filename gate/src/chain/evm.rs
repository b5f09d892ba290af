//! [`RpcChain`]: the proof of a payment read from an EVM node, from USDC's own events.
//!
//! FiatToken (USDC) emits, in one `transferWithAuthorization`, `AuthorizationUsed(authorizer,
//! nonce)` and right after it the ERC-20 `Transfer(from, to, value)`; `cancelAuthorization`
//! emits `AuthorizationCanceled(authorizer, nonce)` and moves nothing. `authorizationState` is
//! true after either, so it only says where to look. A payment is proven by a successful
//! receipt whose `AuthorizationUsed(payer, nonce)` from the asset is followed by a
//! `Transfer(payer, payTo, value ≥ price)` from the asset.

use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolEvent, sol};
use async_trait::async_trait;

use super::rpc::{BlockTime, Log, Receipt, Rpc};
use super::{Audit, Chain, ChainError, Expected, Verdict};

sol! {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    function name() external view returns (string);
    function version() external view returns (string);
    function decimals() external view returns (uint8);
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
    function balanceOf(address account) external view returns (uint256);
}

/// Blocks asked for in one `eth_getLogs` (public RPCs refuse wide ranges).
const LOG_RANGE: u64 = 2_000;

/// An EVM network read through its JSON-RPC.
#[derive(Debug)]
pub struct RpcChain {
    rpc: Rpc,
    network: String,
}

/// What one receipt says about an authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ReceiptSays {
    /// It used the authorization and paid payTo at least the price.
    Pays,
    /// It used the authorization without paying payTo the price.
    UsesWithoutPaying,
    /// It canceled the authorization.
    Cancels,
    /// It has nothing to do with the authorization (or it reverted).
    Unrelated,
}

impl RpcChain {
    /// The chain of `network` (`eip155:<id>`) through the RPC at `url`.
    pub fn new(network: &str, url: &str, timeout: Duration) -> Result<RpcChain, ChainError> {
        Ok(RpcChain { rpc: Rpc::new(url, timeout)?, network: network.to_owned() })
    }

    /// The chain of `network` through an RPC client already made.
    pub fn from_rpc(network: &str, rpc: &Rpc) -> Result<RpcChain, ChainError> {
        Ok(RpcChain { rpc: rpc.clone(), network: network.to_owned() })
    }

    pub fn rpc(&self) -> &Rpc {
        &self.rpc
    }

    pub fn network(&self) -> &str {
        &self.network
    }

    /// The token's `name()` and `version()`, the EIP-712 domain's two strings.
    pub async fn token_domain(&self, asset: Address) -> Result<(String, String), ChainError> {
        let name = self.rpc.view(asset, nameCall {}.abi_encode()).await?;
        let version = self.rpc.view(asset, versionCall {}.abi_encode()).await?;
        let decode = |what: &str, e: alloy_sol_types::Error| ChainError(format!("{what}() ilegible: {e}"));
        Ok((
            nameCall::abi_decode_returns(&name).map_err(|e| decode("name", e))?,
            versionCall::abi_decode_returns(&version).map_err(|e| decode("version", e))?,
        ))
    }

    /// Whether `authorizer`'s `nonce` is marked used (by a transfer or a cancellation).
    pub async fn authorization_used(
        &self,
        asset: Address,
        authorizer: Address,
        nonce: B256,
    ) -> Result<bool, ChainError> {
        let answer = self.rpc.view(asset, authorizationStateCall { authorizer, nonce }.abi_encode()).await?;
        authorizationStateCall::abi_decode_returns(&answer)
            .map_err(|e| ChainError(format!("authorizationState() ilegible: {e}")))
    }

    pub async fn balance_of(&self, asset: Address, account: Address) -> Result<U256, ChainError> {
        let answer = self.rpc.view(asset, balanceOfCall { account }.abi_encode()).await?;
        balanceOfCall::abi_decode_returns(&answer).map_err(|e| ChainError(format!("balanceOf() ilegible: {e}")))
    }

    /// Every payment by authorization to `pay_to` in blocks `from..=to`: each successful
    /// transaction's `AuthorizationUsed(payer, nonce)` from `asset` followed by its `Transfer(payer,
    /// pay_to, value)`, as (payer, nonce, value, transaction), in block order. What `gate
    /// verificar` compares with the sales record, and the chaos tier's invariants read.
    pub async fn payments_to(
        &self,
        asset: Address,
        pay_to: Address,
        from: u64,
        to: u64,
    ) -> Result<Vec<AuthorizedPayment>, ChainError> {
        let topics = [Some(Transfer::SIGNATURE_HASH), None, Some(pay_to.into_word())];
        let mut transactions: Vec<B256> = Vec::new();
        let mut start = from;
        while start <= to {
            let end = to.min(start.saturating_add(LOG_RANGE - 1));
            for log in self.rpc.logs(asset, &topics, start, end).await? {
                if !transactions.contains(&log.transaction) {
                    transactions.push(log.transaction);
                }
            }
            start = end + 1;
        }
        let mut payments = Vec::new();
        for transaction in transactions {
            let Some(receipt) = self.rpc.receipt(transaction).await? else { continue };
            payments.extend(authorized_payments(&receipt, asset, pay_to));
        }
        Ok(payments)
    }

    /// The first block whose time is after `time` (`latest.number + 1` when none is yet):
    /// an exponential search back from the head, then a binary search.
    async fn first_block_after(&self, time: u64, latest: BlockTime) -> Result<u64, ChainError> {
        if latest.timestamp <= time {
            return Ok(latest.number + 1);
        }
        // Invariant: block `hi` is after `time`; every block below `lo` is not (or lo is 0).
        let mut hi = latest.number;
        let mut step = 1u64;
        let lo = loop {
            let probe = hi.saturating_sub(step);
            let block = self.block(probe).await?;
            if block.timestamp <= time {
                break probe + 1;
            }
            hi = probe;
            if probe == 0 {
                return Ok(0);
            }
            step = step.saturating_mul(2);
        };
        let (mut lo, mut hi) = (lo, hi);
        while lo < hi {
            let middle = lo + (hi - lo) / 2;
            if self.block(middle).await?.timestamp > time {
                hi = middle;
            } else {
                lo = middle + 1;
            }
        }
        Ok(hi)
    }

    async fn block(&self, number: u64) -> Result<BlockTime, ChainError> {
        self.rpc.block_at(number).await?.ok_or_else(|| ChainError(format!("el nodo no tiene el bloque {number}")))
    }

    /// Logs of one of the authorization events for (payer, nonce) in `from..=to`, in chunks.
    async fn authorization_logs(
        &self,
        expected: &Expected,
        signature: B256,
        from: u64,
        to: u64,
    ) -> Result<Vec<Log>, ChainError> {
        let topics = [Some(signature), Some(expected.payer.into_word()), Some(expected.nonce)];
        let mut found = Vec::new();
        let mut start = from;
        while start <= to {
            let end = to.min(start.saturating_add(LOG_RANGE - 1));
            found.extend(self.rpc.logs(expected.asset, &topics, start, end).await?);
            start = end + 1;
        }
        Ok(found)
    }

    async fn receipt_says(&self, expected: &Expected, transaction: B256) -> Result<Option<ReceiptSays>, ChainError> {
        Ok(self.rpc.receipt(transaction).await?.map(|receipt| judge(&receipt, expected)))
    }
}

/// One payment by authorization found on chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizedPayment {
    pub payer: Address,
    pub nonce: B256,
    pub value: U256,
    pub transaction: B256,
}

/// The payments by authorization to `pay_to` in `receipt`: each `AuthorizationUsed` from `asset`
/// followed by a `Transfer` from `asset` of the same payer to `pay_to`.
fn authorized_payments(receipt: &Receipt, asset: Address, pay_to: Address) -> Vec<AuthorizedPayment> {
    if !receipt.success {
        return Vec::new();
    }
    let from_asset: Vec<&Log> = receipt.logs.iter().filter(|l| l.address == asset).collect();
    let mut found = Vec::new();
    for pair in from_asset.windows(2) {
        let (used, transfer) = (pair[0], pair[1]);
        let (Some(payer), Some(nonce)) = (used.topics.get(1), used.topics.get(2)) else { continue };
        if used.topics.first() == Some(&AuthorizationUsed::SIGNATURE_HASH)
            && transfer.topics.first() == Some(&Transfer::SIGNATURE_HASH)
            && transfer.topics.get(1) == Some(payer)
            && transfer.topics.get(2) == Some(&pay_to.into_word())
            && transfer.data.len() == 32
        {
            found.push(AuthorizedPayment {
                payer: Address::from_word(*payer),
                nonce: *nonce,
                value: U256::from_be_slice(&transfer.data),
                transaction: receipt.transaction,
            });
        }
    }
    found
}

/// What `receipt` proves about `expected`'s authorization.
fn judge(receipt: &Receipt, expected: &Expected) -> ReceiptSays {
    if !receipt.success {
        return ReceiptSays::Unrelated;
    }
    let ours = |log: &Log, signature: B256| {
        log.address == expected.asset
            && log.topics.first() == Some(&signature)
            && log.topics.get(1) == Some(&expected.payer.into_word())
            && log.topics.get(2) == Some(&expected.nonce)
    };
    let from_asset: Vec<&Log> = receipt.logs.iter().filter(|l| l.address == expected.asset).collect();
    for (index, log) in from_asset.iter().enumerate() {
        if ours(log, AuthorizationCanceled::SIGNATURE_HASH) {
            return ReceiptSays::Cancels;
        }
        if !ours(log, AuthorizationUsed::SIGNATURE_HASH) {
            continue;
        }
        // FiatToken emits the Transfer of an authorization right after its AuthorizationUsed.
        let pays = from_asset.get(index + 1).is_some_and(|next| {
            next.topics.first() == Some(&Transfer::SIGNATURE_HASH)
                && next.topics.get(1) == Some(&expected.payer.into_word())
                && next.topics.get(2) == Some(&expected.pay_to.into_word())
                && next.data.len() == 32
                && U256::from_be_slice(&next.data) >= expected.amount
        });
        return if pays { ReceiptSays::Pays } else { ReceiptSays::UsesWithoutPaying };
    }
    ReceiptSays::Unrelated
}

fn parse_hash(transaction: &str) -> Option<B256> {
    transaction.parse::<B256>().ok()
}

fn hex_of(transaction: B256) -> String {
    format!("{transaction:#x}")
}

#[async_trait]
impl Chain for RpcChain {
    fn name(&self) -> String {
        format!("rpc {}", self.rpc.describe())
    }

    async fn find(&self, expected: &Expected, hint: Option<&str>) -> Result<Verdict, ChainError> {
        if let Some(hash) = hint.and_then(parse_hash) {
            match self.receipt_says(expected, hash).await? {
                Some(ReceiptSays::Pays) => return Ok(Verdict::Paid { transaction: hex_of(hash) }),
                Some(ReceiptSays::UsesWithoutPaying) => {
                    return Ok(Verdict::UsedElsewhere { transaction: hex_of(hash) });
                }
                Some(ReceiptSays::Cancels) => return Ok(Verdict::Canceled { transaction: Some(hex_of(hash)) }),
                Some(ReceiptSays::Unrelated) | None => {}
            }
        }
        let used = self.authorization_used(expected.asset, expected.payer, expected.nonce).await?;
        let latest = self.rpc.latest().await?;
        if !used {
            return Ok(if latest.timestamp >= expected.valid_before { Verdict::Expired } else { Verdict::Unused });
        }
        // Used: by a transfer (only inside its validity window) or by a cancellation.
        let from = self.first_block_after(expected.valid_after, latest).await?;
        let used = self.authorization_logs(expected, AuthorizationUsed::SIGNATURE_HASH, from, latest.number).await?;
        if let Some(log) = used.first() {
            return Ok(match self.receipt_says(expected, log.transaction).await? {
                Some(ReceiptSays::Pays) => Verdict::Paid { transaction: hex_of(log.transaction) },
                _ => Verdict::UsedElsewhere { transaction: hex_of(log.transaction) },
            });
        }
        let canceled =
            self.authorization_logs(expected, AuthorizationCanceled::SIGNATURE_HASH, from, latest.number).await?;
        Ok(match canceled.first() {
            Some(log) => Verdict::Canceled { transaction: Some(hex_of(log.transaction)) },
            None => Verdict::Unexplained,
        })
    }

    async fn contract_signature(
        &self,
        signature: &crate::x402::evm::ContractSignature,
    ) -> Result<Option<super::signature::ContractCheck>, ChainError> {
        super::signature::verify(&self.rpc, signature).await.map(Some)
    }

    async fn audit(&self, expected: &Expected, transaction: &str) -> Result<Audit, ChainError> {
        let Some(hash) = parse_hash(transaction) else {
            return Ok(Audit::Wrong(format!("{transaction:?} no es un hash de transacción")));
        };
        let Some(receipt) = self.rpc.receipt(hash).await? else { return Ok(Audit::NotFound) };
        Ok(match judge(&receipt, expected) {
            ReceiptSays::Pays => Audit::Confirmed,
            _ if !receipt.success => Audit::Wrong(format!("la transacción {transaction} revirtió")),
            ReceiptSays::UsesWithoutPaying => {
                Audit::Wrong(format!("la transacción {transaction} usó la autorización sin pagar el precio a payTo"))
            }
            ReceiptSays::Cancels => Audit::Wrong(format!("la transacción {transaction} canceló la autorización")),
            ReceiptSays::Unrelated => Audit::Wrong(format!(
                "la transacción {transaction} no usó esta autorización (ni AuthorizationUsed ni Transfer a payTo)"
            )),
        })
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Bytes, address, b256};

    use super::*;

    fn expected() -> Expected {
        Expected {
            network: "eip155:84532".into(),
            asset: address!("036CbD53842c5426634e7929541eC2318f3dCF7e"),
            payer: address!("f39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
            nonce: b256!("00000000000000000000000000000000000000000000000000000000000000aa"),
            pay_to: address!("70997970C51812dc3A010C7d01b50e0d17dc79C8"),
            amount: U256::from(990_000u64),
            valid_after: 0,
            valid_before: 100,
        }
    }

    fn log(address: Address, topics: Vec<B256>, value: Option<u64>) -> Log {
        Log {
            address,
            topics,
            data: value.map(|v| Bytes::from(U256::from(v).to_be_bytes::<32>().to_vec())).unwrap_or_default(),
            transaction: B256::ZERO,
            block: 1,
        }
    }

    fn used(e: &Expected) -> Log {
        log(e.asset, vec![AuthorizationUsed::SIGNATURE_HASH, e.payer.into_word(), e.nonce], None)
    }

    fn transfer(e: &Expected, to: Address, value: u64) -> Log {
        log(e.asset, vec![Transfer::SIGNATURE_HASH, e.payer.into_word(), to.into_word()], Some(value))
    }

    fn receipt(success: bool, logs: Vec<Log>) -> Receipt {
        Receipt { transaction: B256::ZERO, success, block: 1, logs }
    }

    #[test]
    fn the_events_are_usdcs() {
        assert_eq!(Transfer::SIGNATURE_HASH, b256!("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"));
        assert_eq!(
            AuthorizationUsed::SIGNATURE_HASH,
            b256!("98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5")
        );
        assert_eq!(
            AuthorizationCanceled::SIGNATURE_HASH,
            b256!("1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81")
        );
    }

    #[test]
    fn only_a_used_authorization_followed_by_the_price_to_pay_to_pays() {
        let e = expected();
        assert_eq!(judge(&receipt(true, vec![used(&e), transfer(&e, e.pay_to, 990_000)]), &e), ReceiptSays::Pays);
        assert_eq!(judge(&receipt(true, vec![used(&e), transfer(&e, e.pay_to, 1_000_000)]), &e), ReceiptSays::Pays);
        assert_eq!(judge(&receipt(false, vec![used(&e), transfer(&e, e.pay_to, 990_000)]), &e), ReceiptSays::Unrelated);
        let elsewhere = address!("3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
        assert_eq!(
            judge(&receipt(true, vec![used(&e), transfer(&e, elsewhere, 990_000)]), &e),
            ReceiptSays::UsesWithoutPaying
        );
        assert_eq!(
            judge(&receipt(true, vec![used(&e), transfer(&e, e.pay_to, 989_999)]), &e),
            ReceiptSays::UsesWithoutPaying
        );
        // A transfer to payTo that is not the one of this authorization proves nothing.
        assert_eq!(
            judge(&receipt(true, vec![transfer(&e, e.pay_to, 990_000), used(&e)]), &e),
            ReceiptSays::UsesWithoutPaying
        );
        let mut other_nonce = used(&e);
        other_nonce.topics[2] = B256::repeat_byte(1);
        assert_eq!(
            judge(&receipt(true, vec![other_nonce, transfer(&e, e.pay_to, 990_000)]), &e),
            ReceiptSays::Unrelated
        );
        let mut other_token = used(&e);
        other_token.address = elsewhere;
        assert_eq!(
            judge(&receipt(true, vec![other_token, transfer(&e, e.pay_to, 990_000)]), &e),
            ReceiptSays::Unrelated
        );
        let canceled = log(e.asset, vec![AuthorizationCanceled::SIGNATURE_HASH, e.payer.into_word(), e.nonce], None);
        assert_eq!(judge(&receipt(true, vec![canceled]), &e), ReceiptSays::Cancels);
    }
}
