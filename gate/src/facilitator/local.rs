//! The project's own facilitator: real EIP-712 signature checks, exact amounts, time windows and
//! single-use nonces, settling either against a local ledger or on a real EVM chain.
//!
//! With no chain (the default) it lets a fresh machine sell and buy with nothing but this
//! repository: the gate offers Base Sepolia's USDC requirements exactly as on testnet, official
//! clients sign them unchanged, and this settles them against a ledger where each new payer
//! starts with an opening balance. No real money moves. The ledger can live in a file so
//! balances and used nonces survive a restart; in that mode the ledger is the chain, and it
//! answers the gate's questions about a payment ([`Chain`]) the way a node would.
//!
//! With a chain backend ([`LocalConfig::chain`], a [`Settler`]) it submits each authorization
//! as a `transferWithAuthorization` transaction, reads balances and nonces from the token
//! contract, and answers from the transaction's receipt: `success` once it is mined,
//! `settlement_pending` with the transaction if it is not mined in time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, U256, keccak256};
use async_trait::async_trait;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Facilitator, FacilitatorError};
use crate::chain::evm::RpcChain;
use crate::chain::settler::Settler;
use crate::chain::signature::{Checked, check_exact_on};
use crate::chain::{Audit, Chain, ChainError, Expected, Verdict};
use crate::clock::now;
use crate::x402::evm::{ContractSignature, Erc6492, ExactEvmPayload, check_exact, parse_exact_payload};
use crate::x402::{
    PaymentPayload, PaymentRequirements, SettlementResponse, SupportedKind, SupportedResponse, VerifyResponse,
    X402_VERSION,
};
use contract::x402::FacilitatorRequest;

/// How the local facilitator starts.
#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// Atomic units each new payer gets.
    pub opening_balance: U256,
    /// CAIP-2 networks it settles.
    pub networks: Vec<String>,
    /// Where the ledger is kept between runs (none: memory only).
    pub ledger_file: Option<PathBuf>,
    /// Settle on this chain instead of the ledger (then `networks` is the chain's network).
    pub chain: Option<Arc<Settler>>,
    /// How long a settlement waits for its transaction to be mined before answering
    /// `settlement_pending`.
    pub settle_wait: Duration,
    /// Factories whose ERC-6492 calls the chain backend sends to deploy a payer's wallet before
    /// settling (the settler's account makes the call, and the payer chose its calldata, so
    /// only these): [`DEFAULT_ERC6492_FACTORIES`] and what the operator adds.
    pub erc6492_factories: Vec<Address>,
}

/// The factories allowed by default: Coinbase Smart Wallet's, versions 1 and 1.1 (the addresses
/// viem 2.57.20's `toCoinbaseSmartAccount` signs for), whose only state-changing function,
/// `createAccount(owners, nonce)`, deploys a wallet for the owners it is given.
pub const DEFAULT_ERC6492_FACTORIES: [Address; 2] = [
    alloy_primitives::address!("0ba5ed0c6aa8c49038f819e587e2633c4a9f428a"),
    alloy_primitives::address!("ba5ed110efdba3d005bfc882d75358acbbb85842"),
];

/// Environment variable adding factories to [`LocalConfig::erc6492_factories`] (addresses
/// separated by commas).
pub const ERC6492_FACTORIES_ENV: &str = "GATE_FABRICAS_6492";

/// Parses a list of factory addresses (`0x…`, separated by commas or spaces).
pub fn parse_factories(text: &str) -> Result<Vec<Address>, String> {
    text.split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<Address>()
                .map_err(|_| format!("{t:?} no es una dirección de fábrica (0x y 40 dígitos hexadecimales)"))
        })
        .collect()
}

impl Default for LocalConfig {
    fn default() -> Self {
        LocalConfig {
            opening_balance: U256::from(100_000_000u64),
            networks: vec!["eip155:84532".into(), "eip155:8453".into()],
            ledger_file: None,
            chain: None,
            settle_wait: Duration::from_secs(20),
            erc6492_factories: DEFAULT_ERC6492_FACTORIES.to_vec(),
        }
    }
}

impl LocalConfig {
    /// Settling on the chain that `settler` submits to (its network only).
    pub fn on_chain(settler: Arc<Settler>) -> LocalConfig {
        LocalConfig {
            networks: vec![format!("eip155:{}", settler.chain_id())],
            chain: Some(settler),
            ..LocalConfig::default()
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Ledger {
    /// "network|address" → balance in atomic units (decimal string).
    #[serde(rename = "saldos")]
    balances: BTreeMap<String, String>,
    /// "network|from|nonce" of every settled authorization.
    #[serde(rename = "nonces_usados")]
    used_nonces: BTreeSet<String>,
    /// "network|from|nonce" → what it paid, for the gate's questions ([`Chain`]).
    #[serde(default)]
    #[serde(rename = "pagos")]
    payments: BTreeMap<String, LedgerPayment>,
    #[serde(rename = "liquidaciones")]
    settlements: usize,
}

/// One settled authorization in the ledger.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct LedgerPayment {
    a: String,
    #[serde(rename = "valor")]
    value: String,
    #[serde(rename = "transaccion")]
    transaction: String,
}

pub struct LocalFacilitator {
    config: LocalConfig,
    ledger: Mutex<Ledger>,
    /// The chain backend's reader (the same RPC as its settler).
    reader: Option<RpcChain>,
    /// Authorizations being submitted on chain right now ("network|from|nonce").
    in_flight: Mutex<BTreeSet<String>>,
    /// Transactions sent and not yet mined, by authorization: asked again, a settlement waits
    /// for the same transaction instead of sending another.
    submitted: Mutex<BTreeMap<String, alloy_primitives::B256>>,
}

impl LocalFacilitator {
    pub fn new(config: LocalConfig) -> Self {
        let ledger = config
            .ledger_file
            .as_ref()
            .and_then(|path| std::fs::read(path).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let reader = config.chain.as_ref().and_then(|settler| {
            let network = format!("eip155:{}", settler.chain_id());
            RpcChain::from_rpc(&network, settler.rpc()).ok()
        });
        LocalFacilitator {
            config,
            ledger: Mutex::new(ledger),
            reader,
            in_flight: Mutex::new(BTreeSet::new()),
            submitted: Mutex::new(BTreeMap::new()),
        }
    }

    /// A balance (new addresses have the opening balance).
    pub fn balance(&self, network: &str, address: Address) -> U256 {
        let ledger = self.ledger.lock();
        self.balance_in(&ledger, network, address)
    }

    /// Settlements done so far.
    pub fn settlements(&self) -> usize {
        self.ledger.lock().settlements
    }

    fn balance_in(&self, ledger: &Ledger, network: &str, address: Address) -> U256 {
        ledger
            .balances
            .get(&account(network, address))
            .and_then(|v| U256::from_str_radix(v, 10).ok())
            .unwrap_or(self.config.opening_balance)
    }

    /// What `/verify` checks of the payment itself, wherever it settles: the x402 version, a
    /// network served, the `accepted` requirement equal to the one asked. Returns the payload.
    fn read_payment(
        &self,
        payload: &PaymentPayload,
        req: &PaymentRequirements,
    ) -> Result<ExactEvmPayload, (String, Option<Address>)> {
        if payload.x402_version != X402_VERSION {
            return Err(("invalid_x402_version".into(), None));
        }
        if !self.config.networks.contains(&req.network) {
            return Err(("invalid_network".into(), None));
        }
        let accepted: Option<PaymentRequirements> = serde_json::from_value(payload.accepted.clone()).ok();
        if accepted.as_ref() != Some(req) {
            return Err(("invalid_payment_requirements".into(), None));
        }
        parse_exact_payload(&payload.payload).map_err(|_| ("invalid_payload".to_owned(), None))
    }

    /// [`Self::read_payment`], then the signature, recipient, amount and time window, on the
    /// ledger (no chain: a smart wallet's signature cannot be checked, and is refused with
    /// `firma_de_contrato_sin_rpc`). Returns the payer and the payload.
    fn check_payment(
        &self,
        payload: &PaymentPayload,
        req: &PaymentRequirements,
    ) -> Result<(Address, ExactEvmPayload), (String, Option<Address>)> {
        let exact = self.read_payment(payload, req)?;
        let from = exact.authorization.from;
        let payer = check_exact(req, &exact, now()).map_err(|e| (e.code().to_owned(), Some(from)))?;
        Ok((payer, exact))
    }

    /// Everything `/verify` checks, against the ledger as it is; returns (payer, value, nonce key).
    fn check(
        &self,
        ledger: &Ledger,
        payload: &PaymentPayload,
        req: &PaymentRequirements,
    ) -> Result<(Address, U256, String), (String, Option<Address>)> {
        let (payer, exact) = self.check_payment(payload, req)?;
        let from = exact.authorization.from;
        let key = format!("{}|{:#x}|{:#x}", req.network, from, exact.authorization.nonce);
        if ledger.used_nonces.contains(&key) {
            return Err(("invalid_exact_evm_nonce_already_used".into(), Some(payer)));
        }
        if self.balance_in(ledger, &req.network, payer) < exact.authorization.value {
            return Err(("insufficient_funds".into(), Some(payer)));
        }
        Ok((payer, exact.authorization.value, key))
    }

    fn verify_now(&self, payload: &PaymentPayload, req: &PaymentRequirements) -> VerifyResponse {
        let ledger = self.ledger.lock();
        verify_answer(self.check(&ledger, payload, req).map(|(payer, _, _)| payer))
    }

    fn settle_now(&self, payload: &PaymentPayload, req: &PaymentRequirements) -> SettlementResponse {
        // One lock across check, debit and marking the nonce: concurrent settles of one payload
        // see each other.
        let mut ledger = self.ledger.lock();
        let (payer, value, key) = match self.check(&ledger, payload, req) {
            Ok(ok) => ok,
            Err((reason, payer)) => {
                return SettlementResponse::failure(&req.network, &reason, None, payer.map(|p| p.to_checksum(None)));
            }
        };
        let Ok(pay_to) = req.pay_to.parse::<Address>() else {
            return SettlementResponse::failure(&req.network, "invalid_payment_requirements", None, None);
        };
        let payer_balance = self.balance_in(&ledger, &req.network, payer) - value;
        ledger.balances.insert(account(&req.network, payer), payer_balance.to_string());
        let payee_balance = self.balance_in(&ledger, &req.network, pay_to) + value;
        ledger.balances.insert(account(&req.network, pay_to), payee_balance.to_string());
        let transaction = format!("{:#x}", keccak256(key.as_bytes()));
        ledger.payments.insert(
            key.clone(),
            LedgerPayment { a: format!("{pay_to:#x}"), value: value.to_string(), transaction: transaction.clone() },
        );
        ledger.used_nonces.insert(key);
        ledger.settlements += 1;
        self.save(&ledger);
        SettlementResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some(payer.to_checksum(None)),
            transaction,
            network: req.network.clone(),
            amount: Some(value.to_string()),
            extensions: None,
        }
    }

    /// Writes the ledger atomically and durably (temporary file, fsync, rename), so a
    /// settlement survives a crash or a kill right after it.
    fn save(&self, ledger: &Ledger) {
        let Some(path) = &self.config.ledger_file else { return };
        let tmp = path.with_extension("json.nuevo");
        let result = serde_json::to_vec_pretty(ledger)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                use std::io::Write as _;
                let mut file = std::fs::File::create(&tmp)?;
                file.write_all(&bytes)?;
                file.sync_all()
            })
            .and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = result {
            tracing::error!("facilitador local: no se pudo guardar el libro {}: {e}", path.display());
        }
    }

    /// The facilitator HTTP API: `(status, JSON body)` for a method, path and body.
    pub async fn handle_http(&self, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
        match (method, path) {
            ("POST", "/verify") => match serde_json::from_slice::<FacilitatorRequest>(body) {
                Ok(r) => (200, to_json(&self.verify_any(&r.payment_payload, &r.payment_requirements).await)),
                Err(e) => (
                    400,
                    json!({"isValid": false, "invalidReason": "invalid_payload", "invalidMessage": e.to_string(), "payer": ""}),
                ),
            },
            ("POST", "/settle") => match serde_json::from_slice::<FacilitatorRequest>(body) {
                Ok(r) => (200, to_json(&self.settle_any(&r.payment_payload, &r.payment_requirements).await)),
                Err(e) => (
                    400,
                    json!({"success": false, "errorReason": "invalid_payload", "errorMessage": e.to_string(), "transaction": "", "network": "", "payer": ""}),
                ),
            },
            ("GET", "/supported") => (200, to_json(&self.supported_now())),
            ("GET", "/health") => (200, json!({"status": "ok"})),
            (_, "/verify" | "/settle" | "/supported" | "/health") => {
                (405, json!({"error": "metodo_no_permitido", "mensaje": format!("{method} no se admite en {path}")}))
            }
            _ => (
                404,
                json!({"error": "no_encontrado", "mensaje": format!("{path} no existe; rutas: /verify, /settle, /supported, /health")}),
            ),
        }
    }

    /// `/verify` against the ledger, or against the chain when settling on one.
    async fn verify_any(&self, payload: &PaymentPayload, req: &PaymentRequirements) -> VerifyResponse {
        if self.config.chain.is_none() {
            return self.verify_now(payload, req);
        }
        verify_answer(self.check_on_chain(payload, req).await.map(|checked| checked.payer))
    }

    /// `/settle` against the ledger, or on the chain when settling on one.
    async fn settle_any(&self, payload: &PaymentPayload, req: &PaymentRequirements) -> SettlementResponse {
        match &self.config.chain {
            None => self.settle_now(payload, req),
            Some(settler) => self.settle_on_chain(settler, payload, req).await,
        }
    }

    /// The checks of `/verify` (signature, recipient, amount, time window; a smart wallet's
    /// signature asked of the chain) plus the token's own state: the nonce unused and the
    /// payer's balance enough; and for a wallet to deploy, a factory this facilitator calls.
    async fn check_on_chain(
        &self,
        payload: &PaymentPayload,
        req: &PaymentRequirements,
    ) -> Result<OnChain, (String, Option<Address>)> {
        let exact = self.read_payment(payload, req)?;
        let from = exact.authorization.from;
        let (Some(reader), Ok(asset)) = (&self.reader, req.asset.parse::<Address>()) else {
            return Err(("invalid_payment_requirements".into(), Some(from)));
        };
        let Checked { payer, contract } = check_exact_on(Some(reader as &dyn Chain), req, &exact, now())
            .await
            .map_err(|e| (e.code().to_owned(), Some(from)))?;
        let unreadable = |e: ChainError| {
            tracing::warn!("facilitador local: {e}");
            ("unexpected_verify_error".to_owned(), Some(payer))
        };
        if reader.authorization_used(asset, payer, exact.authorization.nonce).await.map_err(unreadable)? {
            return Err(("invalid_exact_evm_nonce_already_used".into(), Some(payer)));
        }
        if reader.balance_of(asset, payer).await.map_err(unreadable)? < exact.authorization.value {
            return Err(("insufficient_funds".into(), Some(payer)));
        }
        let deploy = match contract.as_ref().and_then(|c| c.erc6492.as_ref()) {
            Some(wrapper) if reader.rpc().code(payer).await.map_err(unreadable)?.is_empty() => {
                if !self.config.erc6492_factories.contains(&wrapper.factory) {
                    tracing::warn!(
                        "facilitador local: la billetera {payer} no está desplegada y su fábrica {} no está entre las permitidas ({ERC6492_FACTORIES_ENV})",
                        wrapper.factory
                    );
                    return Err(("eip6492_factory_not_allowed".into(), Some(payer)));
                }
                Some(wrapper.clone())
            }
            _ => None,
        };
        Ok(OnChain { payer, exact, contract, deploy })
    }

    /// Submits the authorization and answers from its receipt: success once mined,
    /// `settlement_pending` (with the transaction) if not mined within `settle_wait`.
    async fn settle_on_chain(
        &self,
        settler: &Settler,
        payload: &PaymentPayload,
        req: &PaymentRequirements,
    ) -> SettlementResponse {
        let earlier = parse_exact_payload(&payload.payload).ok().and_then(|exact| {
            let key = format!("{}|{:#x}|{:#x}", req.network, exact.authorization.from, exact.authorization.nonce);
            self.submitted.lock().get(&key).map(|tx| (key, *tx, exact))
        });
        if let Some((key, transaction, exact)) = earlier {
            let payer = exact.authorization.from.to_checksum(None);
            return self.answer_from_chain(settler, req, key, transaction, payer, exact.authorization.value).await;
        }
        let OnChain { payer, exact, contract, deploy } = match self.check_on_chain(payload, req).await {
            Ok(checked) => checked,
            Err((reason, payer)) => {
                return SettlementResponse::failure(&req.network, &reason, None, payer.map(|p| p.to_checksum(None)));
            }
        };
        let payer_text = payer.to_checksum(None);
        let key = format!("{}|{:#x}|{:#x}", req.network, payer, exact.authorization.nonce);
        if !self.in_flight.lock().insert(key.clone()) {
            return SettlementResponse::failure(
                &req.network,
                "invalid_exact_evm_nonce_already_used",
                None,
                Some(payer_text),
            );
        }
        let _release = InFlight { set: &self.in_flight, key };
        let asset = match req.asset.parse::<Address>() {
            Ok(asset) => asset,
            Err(_) => return SettlementResponse::failure(&req.network, "invalid_payment_requirements", None, None),
        };
        let sent = match &contract {
            None => settler.submit(asset, &exact).await.map(Ok),
            Some(contract) => {
                if let Some(wrapper) = &deploy
                    && let Err(failure) = self.deploy_wallet(settler, payer, wrapper).await
                {
                    return SettlementResponse::failure(&req.network, failure.0, Some(failure.1), Some(payer_text));
                }
                settler.submit_signed_by_contract(asset, &exact.authorization, contract.for_token()).await
            }
        };
        let transaction = match sent {
            Ok(Ok(transaction)) => transaction,
            Ok(Err(revert)) => {
                tracing::warn!("facilitador local: la transferencia de la billetera {payer} revertiría: {revert}");
                return SettlementResponse::failure(
                    &req.network,
                    "invalid_exact_evm_transaction_simulation_failed",
                    Some(format!("la transferencia revertiría: {revert}")),
                    Some(payer_text),
                );
            }
            Err(e) => {
                tracing::warn!("facilitador local: no se pudo enviar la transacción: {e}");
                return SettlementResponse::failure(&req.network, "unexpected_settle_error", None, Some(payer_text));
            }
        };
        self.submitted.lock().insert(_release.key.clone(), transaction);
        let key = _release.key.clone();
        self.answer_from_chain(settler, req, key, transaction, payer_text, exact.authorization.value).await
    }

    /// Deploys a payer's wallet with its ERC-6492 factory call (from an allowed factory) and
    /// waits until its code is there. Nothing of the payment moves here: a failure is a certain
    /// refusal (code, message), and a deployment mined later only makes the next try shorter.
    async fn deploy_wallet(
        &self,
        settler: &Settler,
        wallet: Address,
        wrapper: &Erc6492,
    ) -> Result<(), (&'static str, String)> {
        let failed = |why: String| ("smart_wallet_deployment_failed", why);
        let transaction = match settler.deploy_wallet(wrapper.factory, &wrapper.factory_calldata).await {
            Ok(Ok(transaction)) => transaction,
            Ok(Err(revert)) => {
                return Err(failed(format!("la llamada a la fábrica {} revertiría: {revert}", wrapper.factory)));
            }
            Err(e) => return Err(failed(format!("no se pudo enviar el despliegue: {e}"))),
        };
        tracing::info!(
            "facilitador local: despliegue de la billetera {wallet} por su fábrica {} enviado (transacción {transaction:#x})",
            wrapper.factory
        );
        match settler.wait(transaction, self.config.settle_wait).await {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(failed(format!("el despliegue {transaction:#x} no se minó a tiempo; repita el pago")));
            }
            Err(e) => return Err(failed(format!("no se pudo leer el despliegue {transaction:#x}: {e}"))),
        }
        // A deployment that reverted because another settlement deployed the wallet first is fine.
        match settler.rpc().code(wallet).await {
            Ok(code) if !code.is_empty() => Ok(()),
            Ok(_) => Err(failed(format!("tras la transacción {transaction:#x} no hay contrato en {wallet}"))),
            Err(e) => Err(failed(format!("no se pudo leer el código de {wallet}: {e}"))),
        }
    }

    /// Waits for `transaction` and answers from its receipt (pending if it is not mined in time).
    async fn answer_from_chain(
        &self,
        settler: &Settler,
        req: &PaymentRequirements,
        key: String,
        transaction: alloy_primitives::B256,
        payer_text: String,
        value: U256,
    ) -> SettlementResponse {
        let hash = format!("{transaction:#x}");
        let mined = settler.wait(transaction, self.config.settle_wait).await;
        if matches!(mined, Ok(Some(_))) {
            self.submitted.lock().remove(&key);
        }
        if matches!(mined, Ok(None)) && matches!(settler.dropped(transaction).await, Ok(true)) {
            // Still pending for this answer; the next try checks the authorization on chain
            // again and sends it in a new transaction.
            tracing::warn!("facilitador local: el nodo ya no conoce la transacción {hash} (descartada del mempool)");
            self.submitted.lock().remove(&key);
        }
        match mined {
            Ok(Some(receipt)) if receipt.success => {
                self.ledger.lock().settlements += 1;
                SettlementResponse {
                    success: true,
                    error_reason: None,
                    error_message: None,
                    payer: Some(payer_text),
                    transaction: hash,
                    network: req.network.clone(),
                    amount: Some(value.to_string()),
                    extensions: None,
                }
            }
            Ok(Some(_reverted)) => SettlementResponse {
                transaction: hash,
                ..SettlementResponse::failure(
                    &req.network,
                    "invalid_exact_evm_transaction_failed",
                    None,
                    Some(payer_text),
                )
            },
            Ok(None) | Err(_) => SettlementResponse {
                transaction: hash,
                ..SettlementResponse::failure(&req.network, "settlement_pending", None, Some(payer_text))
            },
        }
    }

    fn supported_now(&self) -> SupportedResponse {
        let mut signers = serde_json::Map::new();
        signers.insert("eip155:*".into(), json!([]));
        SupportedResponse {
            kinds: self
                .config
                .networks
                .iter()
                .map(|n| SupportedKind {
                    x402_version: X402_VERSION,
                    scheme: "exact".into(),
                    network: n.clone(),
                    extra: None,
                })
                .collect(),
            extensions: Vec::new(),
            signers,
        }
    }
}

/// A payment checked against the chain: its payer and payload, a smart wallet's signature as
/// the chain took it, and the ERC-6492 deployment the wallet still needs (if not deployed).
struct OnChain {
    payer: Address,
    exact: ExactEvmPayload,
    contract: Option<ContractSignature>,
    deploy: Option<Erc6492>,
}

/// The `/verify` answer for a check's outcome: the payer, or the reason and the payer if known.
fn verify_answer(checked: Result<Address, (String, Option<Address>)>) -> VerifyResponse {
    match checked {
        Ok(payer) => VerifyResponse {
            is_valid: true,
            invalid_reason: None,
            invalid_message: None,
            payer: Some(payer.to_checksum(None)),
        },
        Err((reason, payer)) => VerifyResponse {
            is_valid: false,
            invalid_reason: Some(reason),
            invalid_message: None,
            payer: payer.map(|p| p.to_checksum(None)),
        },
    }
}

/// Takes an authorization out of the in-flight set when its settlement ends.
struct InFlight<'a> {
    set: &'a Mutex<BTreeSet<String>>,
    key: String,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.set.lock().remove(&self.key);
    }
}

/// In local mode the ledger is the chain: it answers what a node would about a payment it
/// settled (it has no cancellations; an unused authorization past `validBefore` is expired).
/// With a chain backend it asks the chain.
#[async_trait]
impl Chain for LocalFacilitator {
    fn name(&self) -> String {
        match &self.reader {
            Some(reader) => reader.name(),
            None => "libro del facilitador local".into(),
        }
    }

    async fn find(&self, expected: &Expected, hint: Option<&str>) -> Result<Verdict, ChainError> {
        if let Some(reader) = &self.reader {
            return reader.find(expected, hint).await;
        }
        let key = format!("{}|{:#x}|{:#x}", expected.network, expected.payer, expected.nonce);
        let ledger = self.ledger.lock();
        Ok(match ledger.payments.get(&key) {
            Some(payment) if pays(payment, expected) => Verdict::Paid { transaction: payment.transaction.clone() },
            Some(payment) => Verdict::UsedElsewhere { transaction: payment.transaction.clone() },
            None if ledger.used_nonces.contains(&key) => Verdict::Unexplained,
            None if now() >= expected.valid_before => Verdict::Expired,
            None => Verdict::Unused,
        })
    }

    async fn contract_signature(
        &self,
        signature: &ContractSignature,
    ) -> Result<Option<crate::chain::signature::ContractCheck>, ChainError> {
        match &self.reader {
            Some(reader) => reader.contract_signature(signature).await,
            None => Ok(None),
        }
    }

    async fn audit(&self, expected: &Expected, transaction: &str) -> Result<Audit, ChainError> {
        if let Some(reader) = &self.reader {
            return reader.audit(expected, transaction).await;
        }
        let key = format!("{}|{:#x}|{:#x}", expected.network, expected.payer, expected.nonce);
        Ok(match self.ledger.lock().payments.get(&key) {
            Some(payment) if payment.transaction == transaction && pays(payment, expected) => Audit::Confirmed,
            Some(_) => Audit::Wrong(format!("el libro local no registra que {transaction} pagara esta compra")),
            None => Audit::NotFound,
        })
    }
}

/// Whether a ledger payment paid payTo at least the price.
fn pays(payment: &LedgerPayment, expected: &Expected) -> bool {
    let to = payment.a.parse::<Address>().ok();
    let value = U256::from_str_radix(&payment.value, 10).ok();
    to == Some(expected.pay_to) && value.is_some_and(|v| v >= expected.amount)
}

fn account(network: &str, address: Address) -> String {
    format!("{network}|{address:#x}")
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[async_trait]
impl Facilitator for LocalFacilitator {
    fn name(&self) -> String {
        match &self.config.chain {
            Some(settler) => format!("local en la cadena {} ({})", settler.chain_id(), settler.rpc().describe()),
            None => "local (sin cadena, sin dinero real)".into(),
        }
    }

    async fn verify(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<VerifyResponse, FacilitatorError> {
        Ok(self.verify_any(payload, requirements).await)
    }

    async fn settle(
        &self,
        payload: &PaymentPayload,
        requirements: &PaymentRequirements,
    ) -> Result<SettlementResponse, FacilitatorError> {
        Ok(self.settle_any(payload, requirements).await)
    }

    async fn supported(&self) -> Result<SupportedResponse, FacilitatorError> {
        Ok(self.supported_now())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alloy_signer_local::PrivateKeySigner;

    use super::*;
    use crate::x402::evm::{client_authorization, domain_for, exact_payload_json, sign_authorization};

    fn requirement() -> PaymentRequirements {
        crate::x402::evm::tests::requirement_paying("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
    }

    fn payment(key: &PrivateKeySigner) -> PaymentPayload {
        let req = requirement();
        let auth = client_authorization(&req, key.address(), now(), crate::x402::evm::random_nonce()).unwrap();
        let sig = sign_authorization(key, &domain_for(&req).unwrap(), &auth).unwrap();
        PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted: serde_json::to_value(&req).unwrap(),
            payload: exact_payload_json(&auth, &sig),
            extensions: None,
        }
    }

    #[tokio::test]
    async fn settles_once_and_moves_balances() {
        let f = LocalFacilitator::new(LocalConfig::default());
        let key = PrivateKeySigner::random();
        let p = payment(&key);
        let req = requirement();
        assert!(f.verify(&p, &req).await.unwrap().is_valid);
        let s = f.settle(&p, &req).await.unwrap();
        assert!(s.success, "{s:?}");
        assert_eq!(s.transaction.len(), 66);
        assert_eq!(s.amount.as_deref(), Some("990000"));
        assert_eq!(f.balance("eip155:84532", key.address()), U256::from(100_000_000u64 - 990_000));
        let again = f.settle(&p, &req).await.unwrap();
        assert!(!again.success);
        assert_eq!(again.error_reason.as_deref(), Some("invalid_exact_evm_nonce_already_used"));
        assert_eq!(again.transaction, "");
        assert_eq!(f.settlements(), 1);
    }

    #[tokio::test]
    async fn a_malleated_or_v01_signature_never_settles() {
        let f = LocalFacilitator::new(LocalConfig::default());
        let good = payment(&PrivateKeySigner::random());
        let signature_of = |p: &PaymentPayload| {
            hex::decode(p.payload["signature"].as_str().unwrap().trim_start_matches("0x")).unwrap()
        };
        let with_signature = |bytes: Vec<u8>| {
            let mut p = good.clone();
            p.payload["signature"] = json!(format!("0x{}", hex::encode(bytes)));
            p
        };
        let mut v01 = signature_of(&good);
        v01[64] -= 27;
        let twins = [with_signature(crate::x402::evm::tests::malleate(&signature_of(&good))), with_signature(v01)];
        for twin in &twins {
            let refused = f.settle(twin, &requirement()).await.unwrap();
            assert!(!refused.success);
            assert_eq!(refused.error_reason.as_deref(), Some("invalid_exact_evm_payload_signature"));
            assert!(!f.verify(twin, &requirement()).await.unwrap().is_valid);
        }
        assert_eq!(f.settlements(), 0);
        assert!(f.settle(&good, &requirement()).await.unwrap().success, "the canonical original still settles");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_settles_of_one_payment_succeed_once() {
        let f = Arc::new(LocalFacilitator::new(LocalConfig::default()));
        let p = Arc::new(payment(&PrivateKeySigner::random()));
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let (f, p) = (Arc::clone(&f), Arc::clone(&p));
                tokio::spawn(async move { f.settle(&p, &requirement()).await.unwrap().success })
            })
            .collect();
        let mut ok = 0;
        for t in tasks {
            ok += usize::from(t.await.unwrap());
        }
        assert_eq!(ok, 1);
    }

    #[tokio::test]
    async fn insufficient_funds_and_ledger_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("libro.json");
        let config = LocalConfig {
            opening_balance: U256::from(1_000_000u64),
            ledger_file: Some(file.clone()),
            ..LocalConfig::default()
        };
        let key = PrivateKeySigner::random();
        let f = LocalFacilitator::new(config.clone());
        assert!(f.settle(&payment(&key), &requirement()).await.unwrap().success);
        let poor = f.settle(&payment(&key), &requirement()).await.unwrap();
        assert_eq!(poor.error_reason.as_deref(), Some("insufficient_funds"));
        let reopened = LocalFacilitator::new(config);
        assert_eq!(reopened.balance("eip155:84532", key.address()), U256::from(10_000u64));
        assert_eq!(reopened.settlements(), 1);
    }

    #[tokio::test]
    async fn without_a_chain_a_smart_wallets_signature_is_refused_for_want_of_an_rpc() {
        let f = LocalFacilitator::new(LocalConfig::default());
        let mut p = payment(&PrivateKeySigner::random());
        let wrapped = crate::x402::evm::wrap_erc6492(Address::repeat_byte(0xfa), &[1, 2], &[7u8; 65]);
        for signature in [vec![7u8; 130], wrapped.to_vec()] {
            p.payload["signature"] = json!(format!("0x{}", hex::encode(&signature)));
            let verified = f.verify(&p, &requirement()).await.unwrap();
            assert_eq!(verified.invalid_reason.as_deref(), Some("firma_de_contrato_sin_rpc"));
            let settled = f.settle(&p, &requirement()).await.unwrap();
            assert_eq!((settled.success, settled.error_reason.as_deref()), (false, Some("firma_de_contrato_sin_rpc")));
        }
        assert_eq!(f.settlements(), 0);
    }

    #[test]
    fn factories_are_read_from_a_list_and_coinbases_are_allowed_by_default() {
        let parsed =
            parse_factories(" 0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67,0xba5ed110efdba3d005bfc882d75358acbbb85842 ")
                .unwrap();
        assert_eq!(parsed.len(), 2);
        assert!(parse_factories("").unwrap().is_empty());
        let error = parse_factories("0x12, 0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67").unwrap_err();
        assert!(error.contains("0x12"), "{error}");
        assert_eq!(LocalConfig::default().erc6492_factories, DEFAULT_ERC6492_FACTORIES.to_vec());
    }

    #[tokio::test]
    async fn http_api_shapes() {
        let f = LocalFacilitator::new(LocalConfig::default());
        let (status, body) = f.handle_http("POST", "/settle", b"{").await;
        assert_eq!(status, 400);
        assert_eq!(body["success"], false);
        let (status, body) = f.handle_http("GET", "/supported", b"").await;
        assert_eq!(status, 200);
        assert_eq!(body["kinds"][0]["network"], "eip155:84532");
        let request = json!({"x402Version": 2, "paymentPayload": payment(&PrivateKeySigner::random()), "paymentRequirements": requirement()});
        let (status, body) = f.handle_http("POST", "/verify", request.to_string().as_bytes()).await;
        assert_eq!((status, body["isValid"].clone()), (200, json!(true)));
        assert_eq!(f.handle_http("GET", "/settle", b"").await.0, 405);
        assert_eq!(f.handle_http("GET", "/x", b"").await.0, 404);
    }
}
