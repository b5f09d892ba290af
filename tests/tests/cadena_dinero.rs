//! The money's edges on a real chain (issue 44): anvil running Circle's USDC, the project's
//! facilitator really submitting every authorization, and a proxy in front of it
//! ([`tests::faults::FaultProxy`]) that hides, rewrites or invents its answers. Balances are read
//! from the token contract.
//!
//! - a transfer mined behind a 504, then "nonce used" in a wording the gate did not know, is
//!   uncertain (503, listed to reconcile), never "nothing charged" with a fresh 402;
//! - with an RPC, a facilitator's success is confirmed on chain before the study leaves; when
//!   the RPC does not answer then, the sale goes on the facilitator's word, the chain disputes
//!   it after the delivery, and it is never delivered again (its repeat says why);
//! - a success naming a transaction another sale holds is not believed, before delivering;
//! - an authorization someone else submitted first (front-running) is a paid sale with an RPC,
//!   uncertain and listed without one;
//! - `gate ventas conciliar` reaches the running gate: the buyer's next repeat gets the study (or
//!   the refusal, for `--sin-pago`) without a restart;
//! - `gate ventas` counts what its totals add up.
//!
//! Needs `npm ci` in `tests/chain` (`./tienda probar` runs it before the Rust tests).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, sol};
use common::built;
use common::gate::{TestGate, accepted_of, client, signed_payload, start_with_chains};
use gate::chain::evm::RpcChain;
use gate::chain::settler::Settler;
use gate::chain::{Audit, Chain, ChainError, Chains, Expected, Verdict};
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::sales::postgres::Shared;
use gate::sales::report::{Report, Resolution, reconcile, reconcile_shared, report, report_shared};
use gate::x402::PaymentPayload;
use gate::x402::header::encode_json;
use gate_http::{Running, spawn};
use serde_json::Value;
use tests::chain::{ChainOptions, LocalChain, front_run};
use tests::faults::{Fault, FaultProxy};

const NETWORK: &str = "eip155:84532";
const SLUG: &str = "banca-2026";

sol! {
    function transfer(address to, uint256 value) external returns (bool);
}

/// A gate selling on the chain through the project's facilitator behind a fault proxy.
struct Store {
    gate: TestGate,
    proxy: Arc<FaultProxy>,
    /// The shared record, when the sales live in PostgreSQL.
    shared: Option<Arc<Shared>>,
    /// The gate's RPC, when it has one.
    rpc: Option<Arc<FlakyRpc>>,
    _facilitator: Running,
    _proxy_server: Running,
}

impl Store {
    fn sales(&self) -> Report {
        match &self.shared {
            Some(shared) => report_shared(shared).expect("gate ventas"),
            None => report(self.gate.data.path()).expect("gate ventas"),
        }
    }

    async fn buy(&self, view: &str, header: &str) -> (u16, Value, bool) {
        let response = client()
            .get(self.gate.url(&format!("/estudio/{SLUG}?vista={view}")))
            .header("PAYMENT-SIGNATURE", header)
            .send()
            .await
            .expect("request");
        let status = response.status().as_u16();
        let asks_to_pay = response.headers().contains_key("payment-required");
        (status, response.json().await.expect("json"), asks_to_pay)
    }
}

/// The store on `chain` with its sales in a journal file; the gate proves on the chain only
/// `with_rpc`.
async fn store(chain: &LocalChain, with_rpc: bool) -> Store {
    store_on(chain, with_rpc, None).await
}

/// The store on `chain` with its sales in `shared` (PostgreSQL), or in a journal file.
async fn store_on(chain: &LocalChain, with_rpc: bool, shared: Option<Arc<Shared>>) -> Store {
    let key = &chain.account("settler").private_key;
    let settler = Settler::connect(chain.rpc_url(), key, Duration::from_secs(10)).await.expect("settler");
    let config = LocalConfig { settle_wait: Duration::from_secs(20), ..LocalConfig::on_chain(Arc::new(settler)) };
    let facilitator = spawn(Arc::new(FacilitatorService(LocalFacilitator::new(config))), 1).expect("facilitator");
    let proxy = FaultProxy::new(&facilitator.url(), Duration::from_millis(200));
    let proxy_server = spawn(Arc::clone(&proxy), 1).expect("proxy");
    let client = HttpFacilitator::new(&proxy_server.url(), None, Duration::from_secs(3)).expect("client");
    let rpc = with_rpc.then(|| {
        let reader = RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).expect("rpc");
        Arc::new(FlakyRpc { rpc: reader, fail_next_audit: AtomicBool::new(false) })
    });
    let chains = match &rpc {
        Some(rpc) => Chains::new().with(NETWORK, Arc::clone(rpc) as Arc<dyn Chain>),
        None => Chains::new(),
    };
    let gate = match &shared {
        None => start_with_chains(built(), Arc::new(client), chains),
        Some(shared) => {
            let sales = gate::sales::Sales::open_shared(Arc::clone(shared)).expect("the shared record opens");
            let services = common::gate::services(Arc::new(client), sales, chains);
            let gate = gate::app::Gate::load_with(built(), services).expect("gate loads dist/");
            let server = spawn(Arc::new(gate), 2).expect("gate starts");
            TestGate { server, data: tempfile::tempdir().expect("data dir"), local: None }
        }
    };
    Store { gate, proxy, shared, rpc, _facilitator: facilitator, _proxy_server: proxy_server }
}

/// The gate's real RPC, whose next transaction check can be made to fail as an RPC that does
/// not answer fails: the one a sale's confirmation before delivery makes.
struct FlakyRpc {
    rpc: RpcChain,
    fail_next_audit: AtomicBool,
}

#[async_trait]
impl Chain for FlakyRpc {
    fn name(&self) -> String {
        self.rpc.name()
    }
    async fn find(&self, expected: &Expected, hint: Option<&str>) -> Result<Verdict, ChainError> {
        self.rpc.find(expected, hint).await
    }
    async fn audit(&self, expected: &Expected, transaction: &str) -> Result<Audit, ChainError> {
        if self.fail_next_audit.swap(false, Ordering::SeqCst) {
            return Err(ChainError("el RPC no respondió (prueba)".into()));
        }
        self.rpc.audit(expected, transaction).await
    }
}

impl Store {
    /// The gate's RPC fails its next transaction check (the confirmation before delivery).
    fn rpc_down_once(&self) {
        self.rpc.as_ref().expect("a gate with an RPC").fail_next_audit.store(true, Ordering::SeqCst);
    }
}

/// The chain as `gate ventas conciliar --rpc` reads it.
fn chain_reader(chain: &LocalChain) -> Chains {
    let reader = RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).expect("rpc");
    Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn Chain>)
}

fn offer(view: &str) -> Value {
    accepted_of(built(), SLUG, view)
}

fn price(offer: &Value) -> U256 {
    U256::from_str_radix(offer["amount"].as_str().expect("amount"), 10).expect("amount")
}

fn pay_to(offer: &Value) -> Address {
    offer["payTo"].as_str().expect("payTo").parse().expect("payTo")
}

fn purchase_key(payment: &PaymentPayload) -> String {
    let authorization = &payment.payload["authorization"];
    let from: Address = authorization["from"].as_str().expect("from").parse().expect("from");
    let nonce: B256 = authorization["nonce"].as_str().expect("nonce").parse().expect("nonce");
    format!("{NETWORK}|{from:#x}|{nonce:#x}")
}

/// Waits until `done` holds of the record, or fails after `limit`.
async fn until(store: &Store, limit: Duration, what: &str, done: impl Fn(&Report) -> bool) -> Report {
    let started = Instant::now();
    loop {
        let sales = store.sales();
        if done(&sales) {
            return sales;
        }
        assert!(started.elapsed() < limit, "{what}: not within {limit:?}: {sales:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Facilitators say "nonce used" in many words; the one many say and the gate did not know,
/// after a transfer mined behind a 504, must leave the purchase uncertain and listed, never
/// "nothing was charged" with a fresh request to pay (the buyer would pay twice).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nonce_used_in_an_unknown_wording_after_a_mined_timeout_is_uncertain_never_nothing_charged() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, false).await;
    let offer = offer("completo");
    let buyer = chain.buyers()[0].signer();
    let payment = signed_payload(&offer, &buyer, |_, _| {});
    let header = encode_json(&payment);
    let received = chain.usdc_balance(pay_to(&offer)).await.expect("balance");

    store
        .proxy
        .script([Fault::TimeoutAfter, Fault::Reword("invalid_exact_evm_payload_authorization_nonce_used".into())]);
    let (status, body, _) = store.buy("completo", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
    assert_eq!(
        chain.usdc_balance(pay_to(&offer)).await.expect("balance") - received,
        price(&offer),
        "the transfer was mined behind the 504"
    );

    let (status, body, asks_to_pay) = store.buy("completo", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
    assert!(!asks_to_pay, "no PAYMENT-REQUIRED: the buyer is not invited to pay again");
    let message = body["mensaje"].as_str().unwrap_or_default();
    assert!(!message.contains("no se cobró nada"), "{message}");
    assert!(body.get("paquete").is_none());
    let sales = store.sales();
    assert_eq!(sales.pending.len(), 1, "listed to reconcile: {sales:#?}");
    assert_eq!(sales.pending[0].purchase, purchase_key(&payment));
    assert!(sales.sales.is_empty());
}

/// A gate without an RPC delivers a facilitator's success on its word; the publisher's
/// reconciliation with an RPC (`gate ventas conciliar` reading the chain) checks every such sale
/// and disputes the one whose transaction did not pay, which the running gate then refuses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reconciliation_disputes_a_sale_delivered_on_a_lie_without_an_rpc() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, false).await;
    let offer = offer("resumen");
    let buyers = chain.buyers();
    let paid = encode_json(&signed_payload(&offer, &buyers[0].signer(), |_, _| {}));
    assert_eq!(store.buy("resumen", &paid).await.0, 200, "a plain sale");
    let other = transferCall { to: buyers[2].address, value: U256::from(1u64) }.abi_encode();
    let unrelated = chain.rpc().send_transaction(buyers[1].address, chain.asset(), &other).await.expect("transfer");
    chain.rpc().wait_receipt(unrelated, Duration::from_secs(10)).await.expect("mined");
    store.proxy.script([Fault::Lie(Some(format!("{unrelated:#x}")))]);
    let lied = encode_json(&signed_payload(&offer, &buyers[1].signer(), |_, _| {}));
    assert_eq!(store.buy("resumen", &lied).await.0, 200, "without an RPC, the facilitator's word releases it");
    assert_eq!(store.sales().totals.general.sales, 2);

    let chains = chain_reader(&chain);
    gate::payment::proof::reconcile_record(store.gate.data.path(), None, &chains).await.expect("conciliar");
    let sales = store.sales();
    assert_eq!(sales.totals.general.sales, 1, "the plain sale stands: {sales:#?}");
    let disputed: Vec<_> = sales.sales.iter().filter_map(|s| s.disputed.as_deref()).collect();
    assert_eq!(disputed.len(), 1, "{sales:#?}");
    assert!(disputed[0].contains("no usó esta autorización"), "{}", disputed[0]);

    let reconciled = Instant::now();
    loop {
        let (status, body, _) = store.buy("resumen", &lied).await;
        if status == 409 {
            assert_eq!(body["error"], "venta_impugnada", "{body}");
            break;
        }
        assert!(reconciled.elapsed() < Duration::from_secs(2), "not within 2 s: {status} {body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(store.buy("resumen", &paid).await.0, 200, "the plain sale is delivered again");
}

/// Without an RPC, a lie can name the transaction that really paid another purchase the gate
/// is still uncertain about (its answer was lost behind a timeout): the gate cannot tell, and
/// credits it to the lied-to sale. The reconciliation with an RPC then proves that transaction
/// paid the uncertain purchase: it disputes the lied-to sale (its authorization paid nothing)
/// and lists the uncertain one, with both, for the publisher. It used to stop there with an
/// error, reconciling nothing after it (the CI chaos tier without an RPC found it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lie_naming_an_uncertain_purchases_transaction_is_listed_by_the_reconciliation_not_an_error() {
    use gate::payment::proof::Resolved;
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, false).await;
    let offer = offer("resumen");
    let buyers = chain.buyers();
    let uncertain = signed_payload(&offer, &buyers[0].signer(), |_, _| {});
    store.proxy.script([Fault::TimeoutAfter]);
    assert_eq!(store.buy("resumen", &encode_json(&uncertain)).await.0, 503, "paid behind a timeout");
    let transaction = store.proxy.transactions().last().cloned().expect("the transfer the timeout hid");
    store.proxy.script([Fault::Lie(Some(transaction.clone()))]);
    let lied = signed_payload(&offer, &buyers[1].signer(), |_, _| {});
    assert_eq!(store.buy("resumen", &encode_json(&lied)).await.0, 200, "the facilitator's word, without an RPC");

    let chains = chain_reader(&chain);
    let (done, disputed) = gate::payment::proof::reconcile_record(store.gate.data.path(), None, &chains)
        .await
        .expect("the reconciliation goes on");
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(done[0].0.purchase, purchase_key(&uncertain));
    let Resolved::Open(why) = &done[0].1 else { panic!("listed, not resolved: {done:?}") };
    assert!(why.contains(&transaction) && why.contains(&purchase_key(&lied)), "{why}");
    assert_eq!(disputed.len(), 1, "{disputed:?}");
    assert_eq!(disputed[0].0, purchase_key(&lied));
    let sales = store.sales();
    assert_eq!(sales.totals.general.sales, 0, "the lied-to sale is disputed: {sales:#?}");
    assert_eq!(sales.pending.len(), 1, "the uncertain purchase stays listed");
}

/// With an RPC, a facilitator's success the chain contradicts is never delivered; when the RPC
/// is silent at delivery, the sale is disputed after it, and its buyer's
/// repeat of the same payment gets a clear refusal, never the study again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disputed_sale_is_never_delivered_again() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, true).await;
    let offer = offer("resumen");
    let buyers = chain.buyers();
    // A real transaction that did not use this authorization: another buyer's plain transfer.
    let other = transferCall { to: buyers[2].address, value: U256::from(1u64) }.abi_encode();
    let unrelated = chain.rpc().send_transaction(buyers[1].address, chain.asset(), &other).await.expect("transfer");
    chain.rpc().wait_receipt(unrelated, Duration::from_secs(10)).await.expect("mined");
    store.proxy.script([Fault::Lie(Some(format!("{unrelated:#x}")))]);
    let payment = signed_payload(&offer, &buyers[0].signer(), |_, _| {});
    let header = encode_json(&payment);

    // With the RPC answering, the lie is caught before the study leaves: the authorization is
    // unused and still valid, so the purchase is uncertain (nothing delivered).
    let (status, body, _) = store.buy("resumen", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
    assert!(body.get("resumen").is_none(), "nothing delivered: {body}");

    // Another purchase, the same lie, the RPC silent at delivery: the facilitator's word
    // releases it, and the check after the delivery disputes it.
    store.proxy.script([Fault::Lie(Some(format!("{unrelated:#x}")))]);
    store.rpc_down_once();
    let payment = signed_payload(&offer, &buyers[0].signer(), |_, _| {});
    let header = encode_json(&payment);
    let (status, body, _) = store.buy("resumen", &header).await;
    assert_eq!(status, 200, "the facilitator's word releases it: {body}");
    let sales =
        until(&store, Duration::from_secs(30), "disputed", |s| s.sales.iter().any(|s| s.disputed.is_some())).await;
    assert_eq!(sales.totals.general.sales, 0, "out of the totals");

    let (status, body, _) = store.buy("resumen", &header).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("venta_impugnada")), "{body}");
    assert!(body.get("resumen").is_none(), "no study: {body}");
    let message = body["mensaje"].as_str().unwrap_or_default();
    assert!(message.contains("impugnada") && message.contains("editor"), "says why and what to do: {message}");
    assert!(store.sales().sales.iter().all(|s| s.redeliveries == 0), "never delivered again");
}

/// A success naming a transaction the record already credits to another sale is not believed:
/// with an RPC the chain decides (this authorization is still unused: uncertain), without one
/// the purchase is uncertain; nothing is delivered, and the buyer's repeat, once the facilitator
/// settles for real, is charged once.
async fn one_transaction_never_pays_two_sales(with_rpc: bool) {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, with_rpc).await;
    let offer = offer("resumen");
    let buyers = chain.buyers();
    let first = signed_payload(&offer, &buyers[0].signer(), |_, _| {});
    let (status, body, _) = store.buy("resumen", &encode_json(&first)).await;
    assert_eq!(status, 200, "{body}");
    let received = chain.usdc_balance(pay_to(&offer)).await.expect("balance");

    store.proxy.script([Fault::Lie(None)]);
    let second = signed_payload(&offer, &buyers[1].signer(), |_, _| {});
    let header = encode_json(&second);
    let (status, body, asks_to_pay) = store.buy("resumen", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "rpc {with_rpc}: {body}");
    assert!(!asks_to_pay);
    assert!(body.get("resumen").is_none(), "not delivered: {body}");
    let sales = store.sales();
    assert_eq!(sales.sales.len(), 1, "one transaction, one sale: {sales:#?}");
    assert_eq!(sales.pending.len(), 1, "the second purchase is listed to reconcile");

    let (status, body, _) = store.buy("resumen", &header).await;
    assert_eq!(status, 200, "the repeat settles for real: {body}");
    assert_eq!(chain.usdc_balance(pay_to(&offer)).await.expect("balance") - received, price(&offer), "charged once");
    let sales = store.sales();
    assert_eq!(sales.sales.len(), 2);
    assert_ne!(sales.sales[0].transaction, sales.sales[1].transaction);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_transaction_never_pays_two_sales_with_an_rpc() {
    one_transaction_never_pays_two_sales(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_transaction_never_pays_two_sales_without_an_rpc() {
    one_transaction_never_pays_two_sales(false).await;
}

/// Someone submits the buyer's authorization on chain first. With an RPC the chain proves it
/// paid payTo and no sale holds it: the buyer gets the study, the sale is journaled as
/// recovered. Without one it is uncertain and listed, and the answer never says nothing was
/// charged.
async fn a_front_run_authorization_is_a_paid_sale(with_rpc: bool) {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, with_rpc).await;
    let offer = offer("completo");
    let buyer = chain.buyers()[0].signer();
    let payment = signed_payload(&offer, &buyer, |_, _| {});
    let received = chain.usdc_balance(pay_to(&offer)).await.expect("balance");
    front_run(&chain, &payment.payload).await.expect("front-run");
    assert_eq!(chain.usdc_balance(pay_to(&offer)).await.expect("balance") - received, price(&offer));

    let (status, body, asks_to_pay) = store.buy("completo", &encode_json(&payment)).await;
    let sales = store.sales();
    if with_rpc {
        assert_eq!(status, 200, "{body}");
        assert!(body.get("paquete").is_some());
        assert_eq!(sales.sales.len(), 1, "{sales:#?}");
        assert_eq!(sales.sales[0].origin, gate::sales::ledger::Origin::Recovered);
        assert_eq!(sales.totals.general.sales, 1);
    } else {
        assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
        assert!(!asks_to_pay);
        assert!(!body["mensaje"].as_str().unwrap_or_default().contains("no se cobró nada"), "{body}");
        assert_eq!(sales.pending.len(), 1, "listed to reconcile: {sales:#?}");
    }
    assert_eq!(
        chain.usdc_balance(pay_to(&offer)).await.expect("balance") - received,
        price(&offer),
        "moved once, by the front-runner"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_front_run_authorization_is_a_paid_sale_with_an_rpc() {
    a_front_run_authorization_is_a_paid_sale(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_front_run_authorization_is_uncertain_and_listed_without_an_rpc() {
    a_front_run_authorization_is_a_paid_sale(false).await;
}

/// Without an RPC, `gate ventas conciliar` is how an uncertain purchase is resolved; the running
/// gate takes it within a second: `--liquidada` delivers the study to the buyer's repeat,
/// `--sin-pago` refuses it, without a restart and without a second charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconciliation_reaches_the_running_gate() {
    let chain = LocalChain::start(ChainOptions::default()).expect("chain");
    let store = store(&chain, false).await;
    let offer = offer("completo");
    let buyers = chain.buyers();

    // Paid behind a 504: reconciled by hand as paid, with the transaction found on chain.
    let paid = signed_payload(&offer, &buyers[0].signer(), |_, _| {});
    let paid_header = encode_json(&paid);
    store.proxy.script([Fault::TimeoutAfter]);
    let (status, _, _) = store.buy("completo", &paid_header).await;
    assert_eq!(status, 503);
    let transaction = store.proxy.transactions().last().cloned().expect("the transfer the 504 hid");
    // Never reached: reconciled by hand as unpaid.
    let unpaid = signed_payload(&offer, &buyers[1].signer(), |_, _| {});
    let unpaid_header = encode_json(&unpaid);
    store.proxy.script([Fault::TimeoutBefore]);
    let (status, _, _) = store.buy("completo", &unpaid_header).await;
    assert_eq!(status, 503);
    assert_eq!(store.sales().pending.len(), 2);
    let received = chain.usdc_balance(pay_to(&offer)).await.expect("balance");

    // The publisher's command, while the gate runs (the CLI's own function).
    let data = store.gate.data.path();
    reconcile(data, &purchase_key(&paid), Resolution::Paid { transaction: transaction.clone() }, "visto en la cadena")
        .expect("conciliar --liquidada");
    reconcile(data, &purchase_key(&unpaid), Resolution::Unpaid, "nonce sin usar").expect("conciliar --sin-pago");
    let reconciled = Instant::now();
    let paid_answer = loop {
        let answer = store.buy("completo", &paid_header).await;
        if answer.0 != 503 {
            break answer;
        }
        assert!(reconciled.elapsed() < Duration::from_secs(2), "not within 2 s: {}", answer.1["error"]);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    eprintln!("the running gate took the reconciliation in {:?}", reconciled.elapsed());
    assert_eq!(paid_answer.0, 200, "{}", paid_answer.1["error"]);
    assert_eq!(paid_answer.1["liquidacion"]["transaccion"], transaction.as_str());
    // Both lines were taken in one look at the journal: the unpaid one is refused, not settled.
    let unpaid_answer = store.buy("completo", &unpaid_header).await;
    assert_eq!(
        (unpaid_answer.0, unpaid_answer.1["error"].as_str()),
        (402, Some("compra_anulada")),
        "{}",
        unpaid_answer.1["mensaje"]
    );
    assert_eq!(chain.usdc_balance(pay_to(&offer)).await.expect("balance"), received, "nothing charged again");
    let sales = store.sales();
    assert!(sales.pending.is_empty());
    assert_eq!(sales.sales.len(), 1);
    assert_eq!(sales.reconciled_without_payment.len(), 1);
    // The headline counts what the totals add up.
    let table = gate::sales::report::table(&sales);
    assert!(table.contains("Ventas conciliadas a mano (encontradas en la cadena): 1"), "{table}");
    assert!(table.contains("Ventas liquidadas: 0"), "{table}");
    // And a transaction already credited cannot be reconciled onto another purchase.
    let third = signed_payload(&offer, &buyers[2].signer(), |_, _| {});
    store.proxy.script([Fault::TimeoutBefore]);
    assert_eq!(store.buy("completo", &encode_json(&third)).await.0, 503);
    let error = reconcile(data, &purchase_key(&third), Resolution::Paid { transaction }, "otra").unwrap_err();
    assert!(format!("{error:#}").contains("ya pagó la compra"), "{error:#}");
}

/// The same rules on the record several gates share (PostgreSQL): a transaction credited to one
/// sale is not believed for another, a disputed sale stays disputed, a reconciliation by hand
/// reaches the gates at once, a front-run authorization is a sale.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shared_record_keeps_one_transaction_per_sale_disputes_and_reconciliations() {
    let db = tests::postgres::Postgres::start().expect("PostgreSQL starts");
    let chain = LocalChain::start(ChainOptions { buyers: 5, ..ChainOptions::default() }).expect("chain");
    let shared = Shared::connect(&db.url()).expect("the sales database answers");
    let store = store_on(&chain, true, Some(Arc::clone(&shared))).await;
    let record = || store.sales();
    let offer = offer("resumen");
    let buyers = chain.buyers();
    let pay = |i: usize| signed_payload(&offer, &buyers[i].signer(), |_, _| {});

    // A plain sale, then a lie naming its transaction: not believed, uncertain.
    assert_eq!(store.buy("resumen", &encode_json(&pay(0))).await.0, 200);
    store.proxy.script([Fault::Lie(None)]);
    let lied = pay(1);
    let (status, body, _) = store.buy("resumen", &encode_json(&lied)).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");

    // A lie naming an unrelated transaction, the RPC silent at delivery: delivered, disputed,
    // never again.
    let other = transferCall { to: buyers[4].address, value: U256::from(1u64) }.abi_encode();
    let unrelated = chain.rpc().send_transaction(buyers[3].address, chain.asset(), &other).await.expect("transfer");
    chain.rpc().wait_receipt(unrelated, Duration::from_secs(10)).await.expect("mined");
    store.proxy.script([Fault::Lie(Some(format!("{unrelated:#x}")))]);
    store.rpc_down_once();
    let disputed = encode_json(&pay(2));
    assert_eq!(store.buy("resumen", &disputed).await.0, 200);
    let started = Instant::now();
    while !record().sales.iter().any(|s| s.disputed.is_some()) {
        assert!(started.elapsed() < Duration::from_secs(30), "disputed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body, _) = store.buy("resumen", &disputed).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("venta_impugnada")), "{body}");

    // Front-run: a sale, recovered.
    let front = pay(3);
    front_run(&chain, &front.payload).await.expect("front-run");
    let (status, body, _) = store.buy("resumen", &encode_json(&front)).await;
    assert_eq!(status, 200, "{body}");

    // The lied one, reconciled by hand as unpaid (nothing moved for it): the repeat is refused.
    reconcile_shared(&shared, &purchase_key(&lied), Resolution::Unpaid, "sin uso en la cadena")
        .expect("conciliar --sin-pago");
    let (status, body, _) = store.buy("resumen", &encode_json(&lied)).await;
    assert_eq!((status, body["error"].as_str()), (402, Some("compra_anulada")), "{body}");

    let record = record();
    assert_eq!(record.totals.general.sales, 2, "the plain sale and the front-run one: {record:#?}");
    assert_eq!(record.sales.iter().filter(|s| s.disputed.is_some()).count(), 1);
    assert!(record.pending.is_empty());
    let rows = db.psql("SELECT count(*) FROM transacciones").expect("query");
    assert_eq!(rows, "3", "every credited transaction, the disputed one's included");
}
