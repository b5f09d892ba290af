//! Purchases that move real USDC on a real chain: anvil running Circle's FiatToken v2.2 at Base
//! Sepolia USDC's address (`tests::chain`), the gate proving on it through its RPC, and two
//! facilitators settling there: the project's own (its chain backend, served over HTTP) and
//! one written elsewhere (the official `@x402/evm` facilitator). Balances are read from the
//! token contract, never from a facilitator's word.
//!
//! - every study × view bought over HTTP and over MCP moves exactly its price from the buyer
//!   to `payTo`, once; a replay moves nothing;
//! - the cancel attack: the first settlement times out, the buyer cancels the authorization on
//!   chain and repeats: no study, the purchase voided, `gate ventas` says why;
//! - with automine off, a pending settlement mined later is delivered once; one dropped until
//!   `validBefore` passes is never delivered, and reconciling with the chain voids it;
//! - a facilitator answering success with a transaction that paid someone else is flagged;
//! - `gate verificar` reads the chain: chain id, the asset's EIP-712 domain, payTo.
//!
//! Needs `npm ci` in `tests/chain` (`./tienda probar` runs it before the Rust tests).

mod common;

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, sol};
use async_trait::async_trait;
use common::gate::{TestGate, accepted_of, client, signed_payload, start_with_chains};
use common::{SLUGS, built, read_json};
use gate::chain::evm::RpcChain;
use gate::chain::settler::Settler;
use gate::chain::{Chain, Chains};
use gate::facilitator::Facilitator;
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::sales::report::{Report, report};
use gate::x402::PaymentPayload;
use gate::x402::header::encode_json;
use gate_http::response::{Body, JSON, Reply};
use gate_http::{Handler, Request, Running, spawn};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tests::chain::{
    ChainOptions, FacilitatorOptions, IndependentFacilitator, LocalChain, Mining, cancel_authorization,
};

const NETWORK: &str = "eip155:84532";

sol! {
    function transfer(address to, uint256 value) external returns (bool);
}

/// Which facilitator settles on the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settles {
    /// The project's own facilitator with its chain backend, reached over HTTP.
    Ours,
    /// The official `@x402/evm` facilitator (`tests/chain/facilitador-x402.mjs`).
    Independent,
}

/// A gate selling on the chain, its facilitator, and whatever serves that facilitator.
struct Store {
    gate: TestGate,
    _facilitator: Option<Running>,
    _independent: Option<IndependentFacilitator>,
    _proxy: Option<Running>,
}

impl Store {
    fn sales(&self) -> Report {
        report(self.gate.data.path()).expect("gate ventas")
    }
}

fn chains(chain: &LocalChain) -> Chains {
    let reader = RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).expect("rpc");
    Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn Chain>)
}

/// The project's facilitator on `chain`, served over HTTP, waiting `settle_wait` for a receipt.
async fn our_facilitator(chain: &LocalChain, settle_wait: Duration) -> Running {
    let key = &chain.account("settler").private_key;
    let settler = Settler::connect(chain.rpc_url(), key, Duration::from_secs(10)).await.expect("settler");
    let config = LocalConfig { settle_wait, ..LocalConfig::on_chain(Arc::new(settler)) };
    spawn(Arc::new(FacilitatorService(LocalFacilitator::new(config))), 1).expect("facilitator starts")
}

/// A gate on `chain` whose facilitator calls go through `proxy` (when given) to `settles`.
async fn store(chain: &LocalChain, settles: Settles, proxy: Option<Arc<Proxy>>, settle_wait: Duration) -> Store {
    let (url, ours, independent) = match settles {
        Settles::Ours => {
            let running = our_facilitator(chain, settle_wait).await;
            (running.url(), Some(running), None)
        }
        Settles::Independent => {
            let options = FacilitatorOptions { confirmation_timeout: settle_wait, ..FacilitatorOptions::default() };
            let started = IndependentFacilitator::start_with(chain, options).expect("independent facilitator");
            (started.url().to_owned(), None, Some(started))
        }
    };
    let (url, proxy_server) = match proxy {
        Some(proxy) => {
            *proxy.upstream.lock() = url;
            let running = spawn(proxy, 1).expect("proxy starts");
            (running.url(), Some(running))
        }
        None => (url, None),
    };
    let facilitator = HttpFacilitator::new(&url, None, Duration::from_secs(3)).expect("client");
    let gate = start_with_chains(built(), Arc::new(facilitator), chains(chain));
    Store { gate, _facilitator: ours, _independent: independent, _proxy: proxy_server }
}

/// A facilitator proxy that swallows the next `/settle` calls (answers 504 after the gate's
/// timeout, never forwarding them) and forwards everything else.
struct Proxy {
    upstream: Mutex<String>,
    swallow: Mutex<u32>,
    http: reqwest::Client,
}

impl Proxy {
    fn swallowing(settles: u32) -> Arc<Proxy> {
        Arc::new(Proxy { upstream: Mutex::new(String::new()), swallow: Mutex::new(settles), http: client() })
    }
}

#[async_trait]
impl Handler for Proxy {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let path = request.path().to_owned();
        let swallow = path == "/settle" && {
            let mut left = self.swallow.lock();
            let take = *left > 0;
            *left = left.saturating_sub(1);
            take
        };
        if swallow {
            tokio::time::sleep(Duration::from_secs(4)).await;
            return Reply::new(504, "text/html", Body::Bytes(b"<h1>504</h1>".to_vec().into()));
        }
        let url = format!("{}{path}", self.upstream.lock().clone());
        let forwarded = match request.method().as_str() {
            "POST" => {
                self.http.post(&url).header("content-type", "application/json").body(request.body.to_vec()).send().await
            }
            _ => self.http.get(&url).send().await,
        };
        match forwarded {
            Ok(answer) => {
                let status = answer.status().as_u16();
                let bytes = answer.bytes().await.unwrap_or_default();
                Reply::new(status, JSON, Body::Bytes(bytes))
            }
            Err(e) => Reply::error(502, "proxy", e.to_string()),
        }
    }
}

/// The 402's first `accepts` entry for a study view, with the chain's `payTo`.
fn accepted(slug: &str, view: &str) -> Value {
    accepted_of(built(), slug, view)
}

fn price(accepted: &Value) -> U256 {
    U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount")
}

fn pay_to(accepted: &Value) -> Address {
    accepted["payTo"].as_str().expect("payTo").parse().expect("payTo")
}

async fn buy_http(store: &Store, slug: &str, view: &str, header: &str) -> (u16, Value) {
    let response = client()
        .get(store.gate.url(&format!("/estudio/{slug}?vista={view}")))
        .header("PAYMENT-SIGNATURE", header)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json"))
}

/// `comprar_estudio` over MCP with `payment` in `_meta["x402/payment"]`: (isError, result).
async fn buy_mcp(store: &Store, slug: &str, view: &str, payment: &PaymentPayload) -> (bool, Value) {
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "comprar_estudio", "arguments": {"slug": slug, "vista": view}, "_meta": {"x402/payment": payment}},
    });
    let response = client()
        .post(store.gate.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(message.to_string())
        .send()
        .await
        .expect("mcp");
    let body: Value = response.json().await.expect("json");
    let result = body["result"].clone();
    (result["isError"] == true, result)
}

fn nonce_of(payment: &PaymentPayload) -> B256 {
    payment.payload["authorization"]["nonce"].as_str().expect("nonce").parse().expect("nonce")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_study_and_view_bought_over_http_and_mcp_moves_its_price_once() {
    let chain = LocalChain::start(ChainOptions { buyers: 2, ..ChainOptions::default() }).expect("chain");
    let store = store(&chain, Settles::Ours, None, Duration::from_secs(20)).await;
    let buyers = chain.buyers();
    let (http_buyer, mcp_buyer) = (buyers[0].signer(), buyers[1].signer());
    let receiver = pay_to(&accepted(SLUGS[0], "completo"));
    assert_eq!(receiver, chain.pay_to(), "the sample content's payTo is the chain's");
    let mut expected_total = U256::ZERO;
    let start_receiver = chain.usdc_balance(receiver).await.expect("balance");
    let mut replay = None;
    for slug in SLUGS {
        for view in ["completo", "resumen"] {
            let offer = accepted(slug, view);
            let price = price(&offer);
            for (buyer, over) in [(&http_buyer, "http"), (&mcp_buyer, "mcp")] {
                let before = chain.usdc_balance(buyer.address()).await.expect("balance");
                let payment = signed_payload(&offer, buyer, |_, _| {});
                match over {
                    "http" => {
                        let header = encode_json(&payment);
                        let (status, body) = buy_http(&store, slug, view, &header).await;
                        assert_eq!(status, 200, "{slug}/{view} over HTTP: {body}");
                        replay.get_or_insert((slug, view, header));
                    }
                    _ => {
                        let (error, result) = buy_mcp(&store, slug, view, &payment).await;
                        assert!(!error, "{slug}/{view} over MCP: {result}");
                        assert_eq!(result["_meta"]["x402/payment-response"]["success"], true);
                    }
                }
                let after = chain.usdc_balance(buyer.address()).await.expect("balance");
                assert_eq!(before - after, price, "{slug}/{view} over {over}: exactly the price left the buyer");
                assert!(chain.authorization_state(buyer.address(), nonce_of(&payment)).await.expect("state"));
                expected_total += price;
            }
        }
    }
    let end_receiver = chain.usdc_balance(receiver).await.expect("balance");
    assert_eq!(end_receiver - start_receiver, expected_total, "payTo received every price, once each");

    // A replay of a paid request gets the study again and moves nothing.
    let (slug, view, header) = replay.expect("one HTTP purchase");
    let before = chain.usdc_balance(http_buyer.address()).await.expect("balance");
    let (status, _) = buy_http(&store, slug, view, &header).await;
    assert_eq!(status, 200);
    assert_eq!(chain.usdc_balance(http_buyer.address()).await.expect("balance"), before, "a replay moves nothing");
    assert_eq!(chain.usdc_balance(receiver).await.expect("balance"), end_receiver);
    let sales = store.sales();
    assert_eq!(sales.sales.len(), SLUGS.len() * 4);
    assert!(sales.pending.is_empty());
    // Every settled sale's transaction is checked after the fact: none is disputed.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(store.sales().sales.iter().all(|s| s.disputed.is_none()));
}

/// Sixteen purchases at once through one settler account: each takes its own account nonce
/// (the settler no longer holds its lock across a send), none is lost or repeated, and payTo
/// receives sixteen prices.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_concurrent_purchases_through_one_settler_each_move_the_price_once() {
    const AT_ONCE: usize = 16;
    let chain = LocalChain::start(ChainOptions { buyers: 2, ..ChainOptions::default() }).expect("chain");
    let store = Arc::new(store(&chain, Settles::Ours, None, Duration::from_secs(20)).await);
    let offer = accepted(SLUGS[0], "resumen");
    let receiver = pay_to(&offer);
    let start = chain.usdc_balance(receiver).await.expect("balance");
    let buyers = chain.buyers();
    let mut tasks = Vec::new();
    for i in 0..AT_ONCE {
        let payment = signed_payload(&offer, &buyers[i % 2].signer(), |_, _| {});
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move { buy_http(&store, SLUGS[0], "resumen", &encode_json(&payment)).await }));
    }
    for task in tasks {
        let (status, body) = task.await.expect("join");
        assert_eq!(status, 200, "{body}");
    }
    let received = chain.usdc_balance(receiver).await.expect("balance") - start;
    assert_eq!(received, price(&offer) * U256::from(AT_ONCE), "sixteen prices, once each");
    let sales = store.sales();
    assert_eq!(sales.sales.len(), AT_ONCE);
    assert!(sales.pending.is_empty());
}

/// The first settlement times out, the buyer cancels the authorization on chain, repeats the
/// same request: nothing delivered, nothing moved, the purchase voided with the reason.
async fn cancel_attack(settles: Settles) {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, settles, Some(Proxy::swallowing(1)), Duration::from_secs(20)).await;
    let buyer = chain.buyers()[0].signer();
    let offer = accepted("banca-2026", "completo");
    let payment = signed_payload(&offer, &buyer, |_, _| {});
    let header = encode_json(&payment);
    let receiver_before = chain.usdc_balance(pay_to(&offer)).await.expect("balance");

    let (status, body) = buy_http(&store, "banca-2026", "completo", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{settles:?}: {body}");
    assert_eq!(store.sales().pending.len(), 1, "{settles:?}: uncertain, on the books");

    cancel_authorization(&chain, &buyer, nonce_of(&payment)).await.expect("cancelAuthorization");
    let (status, body) = buy_http(&store, "banca-2026", "completo", &header).await;
    assert_eq!((status, body["error"].as_str()), (402, Some("autorizacion_cancelada")), "{settles:?}: {body}");
    assert!(body.get("paquete").is_none(), "{settles:?}: no study");
    assert_eq!(chain.usdc_balance(pay_to(&offer)).await.expect("balance"), receiver_before, "nothing moved");

    let sales = store.sales();
    assert!(sales.sales.is_empty() && sales.pending.is_empty(), "{settles:?}: voided, not pending");
    assert_eq!(sales.reconciled_without_payment.len(), 1);
    assert!(sales.reconciled_without_payment[0].note.contains("canceló"), "{:?}", sales.reconciled_without_payment);
    let table = gate::sales::report::table(&sales);
    assert!(table.contains("cancelAuthorization"), "{table}");

    // Repeating again changes nothing.
    let (status, _) = buy_http(&store, "banca-2026", "completo", &header).await;
    assert_eq!(status, 402);
    assert!(store.sales().sales.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_who_cancels_after_an_uncertain_settlement_gets_nothing_through_our_facilitator() {
    cancel_attack(Settles::Ours).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_who_cancels_after_an_uncertain_settlement_gets_nothing_through_the_independent_facilitator() {
    cancel_attack(Settles::Independent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_independent_facilitator_sells_every_study_once() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, Settles::Independent, None, Duration::from_secs(20)).await;
    let buyer = chain.buyers()[0].signer();
    let receiver = chain.pay_to();
    let before = chain.usdc_balance(receiver).await.expect("balance");
    let mut total = U256::ZERO;
    for slug in SLUGS {
        let offer = accepted(slug, "resumen");
        let header = encode_json(&signed_payload(&offer, &buyer, |_, _| {}));
        let (status, body) = buy_http(&store, slug, "resumen", &header).await;
        assert_eq!(status, 200, "{slug}: {body}");
        total += price(&offer);
        let (status, _) = buy_http(&store, slug, "resumen", &header).await;
        assert_eq!(status, 200, "{slug}: the replay");
    }
    assert_eq!(chain.usdc_balance(receiver).await.expect("balance") - before, total);
}

/// A purchase whose settlement is pending: nothing is mined, so the facilitator answers
/// `settlement_pending` and the buyer gets 503 with the transaction kept to reconcile.
struct Pending {
    chain: LocalChain,
    store: Store,
    buyer: alloy_signer_local::PrivateKeySigner,
    offer: Value,
    payment: PaymentPayload,
    header: String,
    /// The buyer's USDC before the purchase.
    before: U256,
    transaction: String,
}

async fn pending_purchase() -> Pending {
    let chain = LocalChain::start(ChainOptions { mining: Mining::Manual, ..ChainOptions::default() }).expect("chain");
    let store = store(&chain, Settles::Ours, None, Duration::from_millis(500)).await;
    let buyer = chain.buyers()[0].signer();
    let offer = accepted("farma-2026", "resumen");
    let payment = signed_payload(&offer, &buyer, |_, _| {});
    let header = encode_json(&payment);
    let before = chain.usdc_balance(buyer.address()).await.expect("balance");
    let (status, body) = buy_http(&store, "farma-2026", "resumen", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
    let pending = store.sales().pending;
    assert_eq!(pending.len(), 1);
    let transaction = pending[0].transaction.clone().expect("the pending transaction is kept");
    Pending { chain, store, buyer, offer, payment, header, before, transaction }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_settlement_mined_later_is_delivered_once() {
    let Pending { chain, store, buyer, offer, header, before, transaction, .. } = pending_purchase().await;

    chain.rpc().mine().await.expect("mine");
    let (status, body) = buy_http(&store, "farma-2026", "resumen", &header).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["liquidacion"]["transaccion"], transaction.as_str());
    let (status, _) = buy_http(&store, "farma-2026", "resumen", &header).await;
    assert_eq!(status, 200);
    chain.rpc().mine().await.expect("mine");
    let after = chain.usdc_balance(buyer.address()).await.expect("balance");
    assert_eq!(before - after, price(&offer), "moved once");
    let sales = store.sales();
    assert_eq!(sales.sales.len(), 1);
    assert!(sales.pending.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_settlement_dropped_until_it_expires_is_never_delivered_and_is_voided() {
    let Pending { chain, store, buyer, payment, before, transaction, .. } = pending_purchase().await;
    let transaction: B256 = transaction.parse().expect("hash");
    chain.rpc().drop_transaction(transaction).await.expect("drop");
    // The chain's time passes the authorization's validBefore: it can never move money now.
    let valid_before = payment.payload["authorization"]["validBefore"].as_str().expect("validBefore");
    chain.rpc().set_next_block_timestamp(valid_before.parse::<u64>().expect("number") + 1).await.expect("time");
    chain.rpc().mine().await.expect("mine");

    let (done, disputed) = gate::payment::proof::reconcile_record(store.gate.data.path(), None, &chains(&chain))
        .await
        .expect("reconciled");
    assert!(disputed.is_empty(), "{disputed:?}");
    assert_eq!(done.len(), 1);
    assert!(matches!(&done[0].1, gate::payment::proof::Resolved::Void(why) if why.contains("venció")), "{done:?}");
    let sales = store.sales();
    assert!(sales.sales.is_empty() && sales.pending.is_empty());
    assert!(sales.reconciled_without_payment[0].note.contains("venció sin usarse"));
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("balance"), before, "nothing moved");
}

/// A mempool that evicts the settler's transaction leaves a gap in its account's numbers: every
/// later transaction of the settler waits behind it, and a repeat that only waits for the
/// evicted one waits forever. Our facilitator notices the node no longer knows it, reads the
/// number again and sends the authorization anew: the purchase and the next one both settle,
/// each moving its price once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transaction_dropped_from_the_mempool_is_sent_again_and_later_sales_do_not_wait_behind_it() {
    let Pending { chain, store, buyer, offer, header, before, transaction, .. } = pending_purchase().await;
    let dropped: B256 = transaction.parse().expect("hash");
    chain.rpc().drop_transaction(dropped).await.expect("drop");
    let known = chain.rpc().call("eth_getTransactionByHash", json!([transaction])).await.expect("asked");
    assert!(known.is_null(), "the node forgot it: {known}");

    // Repeats until delivered, mining a block after each uncertain answer.
    async fn until_delivered(chain: &LocalChain, store: &Store, slug: &str, view: &str, header: &str) -> Value {
        for _ in 0..6 {
            let (status, body) = buy_http(store, slug, view, header).await;
            if status == 200 {
                return body;
            }
            assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
            chain.rpc().mine().await.expect("mine");
        }
        panic!("{slug} was never delivered: its settlement waits behind the dropped transaction");
    }
    // Sent again with the number it had (the gap's): the same signed transaction, so the same
    // hash, now mined.
    let body = until_delivered(&chain, &store, "farma-2026", "resumen", &header).await;
    let mined: B256 = body["liquidacion"]["transaccion"].as_str().expect("transaction").parse().expect("hash");
    assert!(chain.rpc().receipt(mined).await.expect("receipt").is_some_and(|r| r.succeeded()));

    // The settler's next sale is not stuck behind the gap.
    let other = chain.buyers()[1].signer();
    let next_offer = accepted("banca-2026", "resumen");
    let next = encode_json(&signed_payload(&next_offer, &other, |_, _| {}));
    let other_before = chain.usdc_balance(other.address()).await.expect("balance");
    until_delivered(&chain, &store, "banca-2026", "resumen", &next).await;

    chain.rpc().mine().await.expect("mine");
    let moved = before - chain.usdc_balance(buyer.address()).await.expect("balance");
    assert_eq!(moved, price(&offer), "the dropped purchase moved its price once");
    let moved = other_before - chain.usdc_balance(other.address()).await.expect("balance");
    assert_eq!(moved, price(&next_offer), "the next purchase moved its price once");
    let sales = store.sales();
    assert_eq!(sales.sales.len(), 2);
    assert!(sales.pending.is_empty(), "{:?}", sales.pending);
}

/// A facilitator that answers success naming a real transaction that paid someone else.
struct Liar {
    transaction: Mutex<String>,
}

#[async_trait]
impl Facilitator for Liar {
    fn name(&self) -> String {
        "mentiroso".into()
    }
    async fn verify(
        &self,
        _: &PaymentPayload,
        _: &gate::x402::PaymentRequirements,
    ) -> Result<gate::x402::VerifyResponse, gate::facilitator::FacilitatorError> {
        unreachable!("EVM payments are verified locally")
    }
    async fn settle(
        &self,
        _: &PaymentPayload,
        r: &gate::x402::PaymentRequirements,
    ) -> Result<gate::x402::SettlementResponse, gate::facilitator::FacilitatorError> {
        Ok(gate::x402::SettlementResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: None,
            transaction: self.transaction.lock().clone(),
            network: r.network.clone(),
            amount: Some(r.amount.clone()),
            extensions: None,
        })
    }
    async fn supported(&self) -> Result<gate::x402::SupportedResponse, gate::facilitator::FacilitatorError> {
        unreachable!()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_whose_transaction_paid_someone_else_is_never_delivered() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    // A real USDC transfer of the price, from another buyer to an address that is not payTo.
    let other = chain.buyers()[1].address;
    let stranger: Address = "0x000000000000000000000000000000000000dEaD".parse().expect("address");
    let data = transferCall { to: stranger, value: U256::from(990_000u64) }.abi_encode();
    let hash = chain.rpc().send_transaction(other, chain.asset(), &data).await.expect("transfer");
    chain.rpc().wait_receipt(hash, Duration::from_secs(10)).await.expect("mined");
    let liar = Arc::new(Liar { transaction: Mutex::new(format!("{hash:#x}")) });
    let gate = start_with_chains(built(), liar, chains(&chain));
    let offer = accepted("banca-2026", "resumen");
    let header = encode_json(&signed_payload(&offer, &chain.buyers()[0].signer(), |_, _| {}));
    let response = client()
        .get(gate.url("/estudio/banca-2026?vista=resumen"))
        .header("PAYMENT-SIGNATURE", &header)
        .send()
        .await
        .expect("request");
    // With a chain, a success is confirmed before the study leaves: this transaction did not
    // use the buyer's authorization, which the chain shows unused and still valid (the
    // facilitator may yet submit it): uncertain, nothing delivered, listed to reconcile.
    assert_eq!(response.status(), 503, "a success the chain contradicts releases nothing");
    let body: serde_json::Value = response.json().await.expect("JSON");
    assert_eq!(body["error"], "liquidacion_incierta", "{body}");
    assert!(body.get("paquete").is_none(), "{body}");
    assert!(body["mensaje"].as_str().is_some_and(|m| m.contains("no prueba esta compra")), "{body}");
    let sales = report(gate.data.path()).expect("report");
    assert!(sales.sales.is_empty(), "{:?}", sales.sales);
    assert_eq!(sales.pending.len(), 1, "listed to reconcile: {:?}", sales.pending);
}

fn env_with_rpc(url: &str) -> gate::settings::Env {
    gate::settings::Env { rpc: vec![("GATE_RPC_EIP155_84532".to_owned(), url.to_owned())], ..Default::default() }
}

async fn verify_against(dist: &std::path::Path, env: &gate::settings::Env) -> gate::preflight::Report {
    let data = tempfile::tempdir().expect("data");
    gate::preflight::run(gate::preflight::Inputs {
        dist,
        data: data.path(),
        facilitator_url: Some("http://127.0.0.1:9".into()),
        expected_mode: None,
        env,
        rpc_flags: Vec::new(),
        serving: Default::default(),
    })
    .await
}

fn line<'a>(report: &'a gate::preflight::Report, what: &str) -> &'a gate::preflight::Line {
    report.lines.iter().find(|l| l.what.starts_with(what)).unwrap_or_else(|| panic!("no line {what}: {report}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verificar_reads_the_chain_and_catches_a_wrong_chain_and_a_wrong_domain() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    // The development accounts verificar refuses on mainnet are the ones cadena.mjs derives
    // from the standard mnemonic, by index, keys included.
    let accounts = &chain.info().accounts;
    assert_eq!(accounts.len(), gate::preflight::output::DEVELOPMENT_ACCOUNTS.len());
    for account in accounts {
        let (address, key) = gate::preflight::output::DEVELOPMENT_ACCOUNTS[account.index as usize];
        assert_eq!(account.address.to_checksum(None), address, "account #{}", account.index);
        assert_eq!(account.private_key.trim_start_matches("0x"), key, "account #{}", account.index);
    }
    let good = verify_against(built(), &env_with_rpc(chain.rpc_url())).await;
    assert!(line(&good, "cadena eip155:84532").ok, "{good}");
    assert!(line(&good, "cadena eip155:84532 al día").ok, "{good}");
    assert!(line(&good, "dominio EIP-712").ok, "{good}");
    assert!(line(&good, "payTo").ok, "{good}");

    // The same RPC named for another chain: the id does not match.
    let wrong_chain = gate::settings::Env {
        rpc: vec![("GATE_RPC_EIP155_84532".to_owned(), "http://127.0.0.1:9".to_owned())],
        ..Default::default()
    };
    let unreachable = verify_against(built(), &wrong_chain).await;
    assert!(!line(&unreachable, "cadena eip155:84532").ok, "{unreachable}");
    let other = LocalChain::start(ChainOptions::default()).expect("second chain");
    other.rpc().call("anvil_setChainId", json!([8453])).await.expect("chain id");
    let mismatch = verify_against(built(), &env_with_rpc(other.rpc_url())).await;
    let id_line = line(&mismatch, "cadena eip155:84532");
    assert!(!id_line.ok && id_line.detail.contains("cadena 8453,"), "{mismatch}");

    // A dist whose 402 advertises another EIP-712 domain than the contract's.
    let dist = tempfile::tempdir().expect("dist");
    common::copy_tree(built(), dist.path());
    let manifest_path = dist.path().join("gate.json");
    let mut manifest = read_json(&manifest_path);
    for network in manifest["servicio"]["redes"].as_array_mut().expect("redes") {
        if network["caip2"] == NETWORK {
            network["eip712_name"] = json!("USD Coin");
        }
    }
    std::fs::write(&manifest_path, serde_json::to_vec_pretty(&manifest).expect("json")).expect("write");
    let wrong_domain = verify_against(dist.path(), &env_with_rpc(chain.rpc_url())).await;
    let domain = line(&wrong_domain, "dominio EIP-712");
    assert!(!domain.ok && domain.detail.contains("USD Coin"), "{wrong_domain}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_shared_record_the_chain_voids_a_canceled_purchase_by_reconciliation() {
    let db = tests::postgres::Postgres::start().expect("PostgreSQL starts");
    let chain = LocalChain::start(ChainOptions { mining: Mining::Manual, ..ChainOptions::default() }).expect("chain");
    let facilitator_server = our_facilitator(&chain, Duration::from_millis(500)).await;
    let facilitator = HttpFacilitator::new(&facilitator_server.url(), None, Duration::from_secs(3)).expect("client");
    let shared = gate::sales::postgres::Shared::connect(&db.url()).expect("the record opens");
    let sales = gate::sales::Sales::open_shared(Arc::clone(&shared)).expect("sales");
    let services = common::gate::services(Arc::new(facilitator), sales, chains(&chain));
    let loaded = gate::app::Gate::load_with(built(), services).expect("gate loads");
    let server = spawn(Arc::new(loaded), 2).expect("gate starts");
    let buyer = chain.buyers()[0].signer();
    let offer = accepted("banca-2026", "resumen");
    let payment = signed_payload(&offer, &buyer, |_, _| {});
    let header = encode_json(&payment);
    let url = format!("{}/estudio/banca-2026?vista=resumen", server.url());
    let send = || client().get(&url).header("PAYMENT-SIGNATURE", &header).send();

    // Pending (nothing is mined), then the transaction vanishes and the payer cancels.
    let response = send().await.expect("request");
    assert_eq!(response.status(), 503);
    let report = gate::sales::report::report_shared(&shared).expect("report");
    let transaction: B256 = report.pending[0].transaction.clone().expect("pending").parse().expect("hash");
    chain.rpc().drop_transaction(transaction).await.expect("drop");
    let canceled = tests::chain::submit_cancel_authorization(&chain, &buyer, nonce_of(&payment)).await.expect("cancel");
    chain.rpc().mine().await.expect("mine");
    chain.rpc().wait_receipt(canceled, Duration::from_secs(10)).await.expect("the cancel is mined");

    let (done, _) =
        gate::payment::proof::reconcile_record(std::path::Path::new("/nonexistent"), Some(&shared), &chains(&chain))
            .await
            .expect("reconciled");
    assert!(matches!(&done[0].1, gate::payment::proof::Resolved::Void(why) if why.contains("canceló")), "{done:?}");
    let report = gate::sales::report::report_shared(&shared).expect("report");
    assert!(report.pending.is_empty() && report.sales.is_empty(), "{report:?}");
    assert!(report.reconciled_without_payment[0].note.contains("cancelAuthorization"));
    // The repeat finds a used nonce on a new attempt: refused, nothing delivered.
    let response = send().await.expect("request");
    assert_eq!(response.status(), 402);
    assert_eq!(chain.usdc_balance(chain.pay_to()).await.expect("balance"), U256::ZERO);
}
