//! A small EVM JSON-RPC client: only the calls the gate and its local facilitator make (chain
//! id, blocks, receipts, logs, contract views, nonces and fees, raw transactions), over the same
//! reqwest and rustls stack as the facilitators.
//!
//! An RPC URL often carries an API key in its path or query, so it is never logged or shown
//! whole: [`redact`] keeps the scheme and the host.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use alloy_primitives::{Address, B256, Bytes, U256};
use serde_json::{Value, json};

use super::ChainError;

/// `scheme://host[:port]` of a URL, without path, query or credentials.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => {
            let host = parsed.host_str().unwrap_or("?");
            match parsed.port() {
                Some(port) => format!("{}://{host}:{port}", parsed.scheme()),
                None => format!("{}://{host}", parsed.scheme()),
            }
        }
        Err(_) => "(URL inválida)".to_owned(),
    }
}

/// One JSON-RPC endpoint.
pub struct Rpc {
    url: String,
    client: reqwest::Client,
    next_id: AtomicU64,
}

impl Clone for Rpc {
    fn clone(&self) -> Rpc {
        Rpc { url: self.url.clone(), client: self.client.clone(), next_id: AtomicU64::new(1) }
    }
}

impl std::fmt::Debug for Rpc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rpc").field("url", &redact(&self.url)).finish_non_exhaustive()
    }
}

/// A log as the node reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    pub address: Address,
    pub topics: Vec<B256>,
    pub data: Bytes,
    pub transaction: B256,
    pub block: u64,
}

/// A transaction receipt: its status and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub transaction: B256,
    /// `status == 1`.
    pub success: bool,
    pub block: u64,
    pub logs: Vec<Log>,
}

/// A JSON-RPC error answer: the node was reached and said no.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NodeError {
    code: Option<i64>,
    message: String,
}

impl NodeError {
    /// Whether the node says the call reverted (code 3 in geth, reth and anvil, or a message
    /// naming a revert, as others word it), as opposed to failing to run it.
    fn is_revert(&self) -> bool {
        self.code == Some(3) || self.message.to_ascii_lowercase().contains("revert")
    }
}

/// What an `eth_call` came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Called {
    Returned(Bytes),
    /// The call reverted; the node's message.
    Reverted(String),
}

/// A block's number and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockTime {
    pub number: u64,
    pub timestamp: u64,
}

impl Rpc {
    pub fn new(url: &str, timeout: Duration) -> Result<Rpc, ChainError> {
        url::Url::parse(url).map_err(|_| ChainError(format!("URL de RPC inválida: {}", redact(url))))?;
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .timeout(timeout)
            .build()
            .map_err(|e| ChainError(format!("cliente RPC: {e}")))?;
        Ok(Rpc { url: url.to_owned(), client, next_id: AtomicU64::new(1) })
    }

    /// The endpoint as logs may show it.
    pub fn describe(&self) -> String {
        redact(&self.url)
    }

    /// One call; the node's error, a transport error or an unreadable answer is a [`ChainError`].
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, ChainError> {
        self.call_answered(method, params).await?.map_err(|refused| {
            ChainError(format!("RPC {} ({method}): el nodo respondió: {}", redact(&self.url), refused.message))
        })
    }

    /// One call whose error answer is the node's word (for `eth_call`, a revert), kept apart
    /// from a transport error or an unreadable answer (the outer [`ChainError`]).
    async fn call_answered(&self, method: &str, params: Value) -> Result<Result<Value, NodeError>, ChainError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let fail = |what: String| ChainError(format!("RPC {} ({method}): {what}", redact(&self.url)));
        let response =
            self.client.post(&self.url).json(&body).send().await.map_err(|e| fail(e.without_url().to_string()))?;
        let status = response.status();
        let answer: Value = response.json().await.map_err(|e| fail(format!("{status}: {}", e.without_url())))?;
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            let message = error.get("message").and_then(Value::as_str).unwrap_or("error sin mensaje").to_owned();
            let code = error.get("code").and_then(Value::as_i64);
            return Ok(Err(NodeError { code, message }));
        }
        answer.get("result").cloned().map(Ok).ok_or_else(|| fail(format!("{status}: respuesta sin result")))
    }

    /// `eth_call` at the latest block of `data`, sent to `to` (or, without `to`, run as a
    /// contract's creation code: a "deployless" call, whose constructor's return is the answer).
    /// A revert is an answer ([`Called::Reverted`]); only a node that could not be asked is an
    /// error.
    pub async fn try_call(&self, to: Option<Address>, data: &[u8]) -> Result<Called, ChainError> {
        let mut call = json!({"data": format!("0x{}", hex::encode(data))});
        if let Some(to) = to {
            call["to"] = json!(format!("{to:#x}"));
        }
        match self.call_answered("eth_call", json!([call, "latest"])).await? {
            Ok(answer) => Ok(Called::Returned(bytes(&answer)?)),
            Err(refused) if refused.is_revert() => Ok(Called::Reverted(refused.message)),
            Err(refused) => {
                Err(ChainError(format!("RPC {} (eth_call): el nodo respondió: {}", redact(&self.url), refused.message)))
            }
        }
    }

    /// The gas `from` would spend sending `data` to `to`; `Ok(Err(message))` when the node says
    /// it would revert.
    pub async fn estimate_gas(
        &self,
        from: Address,
        to: Address,
        data: &[u8],
    ) -> Result<Result<u64, String>, ChainError> {
        let call =
            json!({"from": format!("{from:#x}"), "to": format!("{to:#x}"), "data": format!("0x{}", hex::encode(data))});
        match self.call_answered("eth_estimateGas", json!([call])).await? {
            Ok(answer) => Ok(Ok(quantity(&answer)?)),
            Err(refused) if refused.is_revert() => Ok(Err(refused.message)),
            Err(refused) => Err(ChainError(format!(
                "RPC {} (eth_estimateGas): el nodo respondió: {}",
                redact(&self.url),
                refused.message
            ))),
        }
    }

    pub async fn chain_id(&self) -> Result<u64, ChainError> {
        quantity(&self.call("eth_chainId", json!([])).await?)
    }

    /// The latest block's number and time.
    pub async fn latest(&self) -> Result<BlockTime, ChainError> {
        self.block("latest").await?.ok_or_else(|| ChainError("el nodo no tiene un bloque latest".into()))
    }

    /// A block's number and time, by number; `None` past the head.
    pub async fn block_at(&self, number: u64) -> Result<Option<BlockTime>, ChainError> {
        self.block(&format!("{number:#x}")).await
    }

    async fn block(&self, tag: &str) -> Result<Option<BlockTime>, ChainError> {
        let block = self.call("eth_getBlockByNumber", json!([tag, false])).await?;
        if block.is_null() {
            return Ok(None);
        }
        Ok(Some(BlockTime { number: quantity(&block["number"])?, timestamp: quantity(&block["timestamp"])? }))
    }

    /// Whether the node knows a transaction at all (pending in its pool or mined): `false` once
    /// it was dropped from the mempool, or never reached this node.
    pub async fn knows(&self, transaction: B256) -> Result<bool, ChainError> {
        let found = self.call("eth_getTransactionByHash", json!([format!("{transaction:#x}")])).await?;
        Ok(!found.is_null())
    }

    /// A transaction's receipt; `None` while it is not mined (or unknown).
    pub async fn receipt(&self, transaction: B256) -> Result<Option<Receipt>, ChainError> {
        let receipt = self.call("eth_getTransactionReceipt", json!([format!("{transaction:#x}")])).await?;
        if receipt.is_null() {
            return Ok(None);
        }
        let logs = receipt["logs"].as_array().map(Vec::as_slice).unwrap_or_default();
        Ok(Some(Receipt {
            transaction,
            success: quantity(&receipt["status"])? == 1,
            block: quantity(&receipt["blockNumber"])?,
            logs: logs.iter().map(log).collect::<Result<_, _>>()?,
        }))
    }

    /// Logs of `address` whose topics match `topics` (`None` matches any) in blocks `from..=to`.
    pub async fn logs(
        &self,
        address: Address,
        topics: &[Option<B256>],
        from: u64,
        to: u64,
    ) -> Result<Vec<Log>, ChainError> {
        let filter = json!({
            "address": format!("{address:#x}"),
            "topics": topics.iter().map(|t| t.map(|t| format!("{t:#x}"))).collect::<Vec<_>>(),
            "fromBlock": format!("{from:#x}"),
            "toBlock": format!("{to:#x}"),
        });
        let logs = self.call("eth_getLogs", json!([filter])).await?;
        logs.as_array().map(Vec::as_slice).unwrap_or_default().iter().map(log).collect()
    }

    /// `eth_call` of `data` on `to` at the latest block.
    pub async fn view(&self, to: Address, data: Vec<u8>) -> Result<Bytes, ChainError> {
        let answer = self
            .call("eth_call", json!([{"to": format!("{to:#x}"), "data": format!("0x{}", hex::encode(data))}, "latest"]))
            .await?;
        bytes(&answer)
    }

    pub async fn code(&self, address: Address) -> Result<Bytes, ChainError> {
        bytes(&self.call("eth_getCode", json!([format!("{address:#x}"), "latest"])).await?)
    }

    /// The next nonce of `address`, counting pending transactions.
    pub async fn pending_nonce(&self, address: Address) -> Result<u64, ChainError> {
        quantity(&self.call("eth_getTransactionCount", json!([format!("{address:#x}"), "pending"])).await?)
    }

    pub async fn gas_price(&self) -> Result<u128, ChainError> {
        u128::try_from(big_quantity(&self.call("eth_gasPrice", json!([])).await?)?)
            .map_err(|_| ChainError("precio del gas fuera de rango".into()))
    }

    /// Sends a signed transaction; returns its hash.
    pub async fn send_raw(&self, raw: &[u8]) -> Result<B256, ChainError> {
        let hash = self.call("eth_sendRawTransaction", json!([format!("0x{}", hex::encode(raw))])).await?;
        word(&hash)
    }
}

fn bad(what: &str, value: &Value) -> ChainError {
    ChainError(format!("respuesta del RPC ilegible: {what} = {value}"))
}

/// A hex quantity (`0x1a`) as u64.
pub fn quantity(value: &Value) -> Result<u64, ChainError> {
    value
        .as_str()
        .and_then(|s| s.strip_prefix("0x"))
        .and_then(|s| u64::from_str_radix(s, 16).ok())
        .ok_or_else(|| bad("cantidad", value))
}

fn big_quantity(value: &Value) -> Result<U256, ChainError> {
    value
        .as_str()
        .and_then(|s| s.strip_prefix("0x"))
        .and_then(|s| U256::from_str_radix(s, 16).ok())
        .ok_or_else(|| bad("cantidad", value))
}

fn word(value: &Value) -> Result<B256, ChainError> {
    value.as_str().and_then(|s| s.parse::<B256>().ok()).ok_or_else(|| bad("hash", value))
}

fn bytes(value: &Value) -> Result<Bytes, ChainError> {
    value.as_str().and_then(|s| s.parse::<Bytes>().ok()).ok_or_else(|| bad("bytes", value))
}

fn log(value: &Value) -> Result<Log, ChainError> {
    let topics = value["topics"].as_array().map(Vec::as_slice).unwrap_or_default();
    Ok(Log {
        address: value["address"].as_str().and_then(|s| s.parse().ok()).ok_or_else(|| bad("address", value))?,
        topics: topics.iter().map(word).collect::<Result<_, _>>()?,
        data: bytes(&value["data"])?,
        transaction: word(&value["transactionHash"])?,
        block: quantity(&value["blockNumber"])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_rpc_url_is_shown_without_its_key() {
        assert_eq!(redact("https://base-mainnet.g.example.com/v2/s3creto"), "https://base-mainnet.g.example.com");
        assert_eq!(redact("http://user:clave@127.0.0.1:8545/?key=s3creto"), "http://127.0.0.1:8545");
        assert_eq!(redact("no es una url s3creto"), "(URL inválida)");
        let rpc = Rpc::new("https://rpc.example/v2/s3creto", Duration::from_secs(1)).unwrap();
        assert!(!format!("{rpc:?} {rpc:#?} {}", rpc.describe()).contains("s3creto"));
    }

    #[test]
    fn quantities_and_logs_are_read_as_nodes_write_them() {
        assert_eq!(quantity(&json!("0x1a")).unwrap(), 26);
        assert!(quantity(&json!(26)).is_err());
        let parsed = log(&json!({
            "address": "0x036cbd53842c5426634e7929541ec2318f3dcf7e",
            "topics": ["0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5"],
            "data": "0x",
            "transactionHash": "0x0000000000000000000000000000000000000000000000000000000000000001",
            "blockNumber": "0x10"
        }))
        .unwrap();
        assert_eq!(parsed.block, 16);
        assert_eq!(parsed.topics.len(), 1);
    }
}
