//! Faults around settlement, with real money semantics: a facilitator that settles and then
//! answers too late, with 502 or 504, or with `settlement_pending`; and one that refuses a
//! repeat for another reason. With no chain to ask, the purchase stays uncertain whatever the
//! facilitator says on a repeat ("nonce already used" is no proof: the payer can cancel an
//! authorization), and the publisher reconciles it. With the chain (here the local
//! facilitator's ledger, local mode's chain) the gate finds the payment at once and the buyer
//! gets the study from the first request, exactly one settlement in the ledger, and `gate
//! ventas` showing the sale; at no point does the purchase disappear from the books.

mod common;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use common::built;
use common::gate::*;
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::sales::report::{Report, report};
use gate::x402::SettlementResponse;
use gate::x402::header::decode_json;
use gate_http::response::{Body, JSON, Reply};
use gate_http::{Handler, Request, Running, spawn};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// What the stub does on one `/settle` call.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Settles for real, then answers after this long (past the gate's timeout).
    SlowAnswer(Duration),
    /// Settles for real, then answers this status with an HTML body.
    StatusAfterSettling(u16),
    /// Settles for real (the first time), then answers `settlement_pending` with the transaction.
    Pending,
    /// Answers `insufficient_funds` without touching the ledger.
    RefuseForCertain,
}

/// The local facilitator over HTTP, with a queue of faults for the next `/settle` calls.
struct FaultyFacilitator {
    local: Arc<LocalFacilitator>,
    faults: Mutex<VecDeque<Fault>>,
    settle_calls: Mutex<u32>,
    /// The transaction of the real settlement, once it happened.
    settled_transaction: Mutex<Option<String>>,
}

#[async_trait]
impl Handler for FaultyFacilitator {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let (method, path) = (request.method().as_str().to_owned(), request.path().to_owned());
        let fault = if path == "/settle" {
            *self.settle_calls.lock() += 1;
            self.faults.lock().pop_front()
        } else {
            None
        };
        let (status, body) = match fault {
            Some(Fault::RefuseForCertain) => (
                200,
                json!({"success": false, "errorReason": "insufficient_funds", "transaction": "", "network": "eip155:84532"}),
            ),
            _ => self.local.handle_http(&method, &path, &request.body).await,
        };
        if let Some(transaction) = body["transaction"].as_str().filter(|t| !t.is_empty() && body["success"] == true) {
            *self.settled_transaction.lock() = Some(transaction.to_owned());
        }
        let reply =
            |status: u16, body: &Value| Reply::new(status, JSON, Body::Bytes(body.to_string().into_bytes().into()));
        match fault {
            None | Some(Fault::RefuseForCertain) => reply(status, &body),
            Some(Fault::SlowAnswer(delay)) => {
                tokio::time::sleep(delay).await;
                reply(status, &body)
            }
            Some(Fault::StatusAfterSettling(status)) => {
                assert_eq!(body["success"], true, "the stub settled for real first: {body}");
                Reply::new(status, "text/html", Body::Bytes(format!("<h1>{status}</h1>").into_bytes().into()))
            }
            Some(Fault::Pending) => {
                let transaction = self.pending_transaction();
                reply(
                    200,
                    &json!({"success": false, "errorReason": "settlement_pending", "transaction": transaction, "network": "eip155:84532"}),
                )
            }
        }
    }
}

impl FaultyFacilitator {
    /// The transaction the stub reports as pending: the real settlement's.
    fn pending_transaction(&self) -> String {
        self.settled_transaction.lock().clone().expect("settled before answering pending")
    }
}

struct Setup {
    gate: TestGate,
    stub: Arc<FaultyFacilitator>,
    _server: Running,
}

fn start(faults: &[Fault]) -> Setup {
    start_proving(faults, false)
}

/// With `chain`, the gate proves uncertain outcomes on the local facilitator's ledger.
fn start_proving(faults: &[Fault], chain: bool) -> Setup {
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let stub = Arc::new(FaultyFacilitator {
        local,
        faults: Mutex::new(faults.iter().copied().collect()),
        settle_calls: Mutex::new(0),
        settled_transaction: Mutex::new(None),
    });
    let server = spawn(Arc::clone(&stub), 2).expect("stub starts");
    let facilitator = HttpFacilitator::new(&server.url(), None, Duration::from_millis(700)).expect("client");
    let gate = if chain {
        let ledger: Arc<dyn gate::chain::Chain> = Arc::clone(&stub.local) as Arc<dyn gate::chain::Chain>;
        start_with_chains(built(), Arc::new(facilitator), gate::chain::Chains::new().with("eip155:84532", ledger))
    } else {
        start_with(built(), Arc::new(facilitator))
    };
    Setup { gate, stub, _server: server }
}

async fn pay(setup: &Setup, client: &reqwest::Client, path: &str, header: &str) -> (u16, Value, Option<String>) {
    let response = client.get(setup.gate.url(path)).header("PAYMENT-SIGNATURE", header).send().await.expect("request");
    let status = response.status().as_u16();
    let receipt = response.headers().get("payment-response").map(|v| v.to_str().expect("ascii").to_owned());
    let body: Value = response.json().await.expect("json");
    (status, body, receipt)
}

fn sales(setup: &Setup) -> Report {
    report(setup.gate.data.path()).expect("report")
}

/// The purchase is on the books as uncertain: listed to reconcile, not a sale.
fn assert_pending(setup: &Setup, case: &str) {
    let report = sales(setup);
    assert!(report.sales.is_empty(), "{case}: no sale yet");
    assert_eq!(report.pending.len(), 1, "{case}: the purchase is listed to reconcile");
    assert_eq!(report.pending[0].status, "incierta", "{case}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_chain_every_fault_after_settling_stays_uncertain_and_on_the_books() {
    let cases: [(&str, &[Fault]); 5] = [
        ("facilitator slower than the timeout", &[Fault::SlowAnswer(Duration::from_millis(2_000))]),
        ("502 after settling", &[Fault::StatusAfterSettling(502)]),
        ("504 after settling", &[Fault::StatusAfterSettling(504)]),
        // The gate asks once more on `settlement_pending`; both answers are pending.
        ("settlement_pending", &[Fault::Pending, Fault::Pending]),
        ("502, then a repeat refused for another reason", &[Fault::StatusAfterSettling(502), Fault::RefuseForCertain]),
    ];
    let client = client();
    let accepted = accepted_of(built(), "banca-2026", "completo");
    for (case, faults) in cases {
        let setup = start(faults);
        let header = signed_header(&accepted, &signer(DEV_KEY), |_, _| {});

        let (status, body, receipt) = pay(&setup, &client, "/estudio/banca-2026", &header).await;
        assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{case}: {body}");
        assert!(receipt.is_none() && body.get("paquete").is_none(), "{case}: nothing delivered");
        assert!(body["mensaje"].as_str().is_some_and(|m| m.contains("misma PAYMENT-SIGNATURE")), "{case}");
        assert_eq!(setup.stub.local.settlements(), 1, "{case}: the money moved");
        assert_pending(&setup, case);

        // Nothing a buyer does removes it: another view with the same authorization, a HEAD,
        // a payload that differs.
        let (status, body, _) = pay(&setup, &client, "/estudio/banca-2026?vista=resumen", &header).await;
        assert_eq!((status, body["error"].as_str()), (409, Some("pago_ya_usado")), "{case}");
        let head = client.head(setup.gate.url("/estudio/banca-2026")).header("PAYMENT-SIGNATURE", &header);
        assert_eq!(head.send().await.expect("head").status(), 402, "{case}");
        assert_pending(&setup, case);

        if faults.len() > 1 && matches!(faults[1], Fault::RefuseForCertain) {
            // A refusal of the repeat proves nothing about the first settle, which may have
            // moved the money (and emptied the balance the facilitator now finds short): with
            // no chain to ask, still uncertain, never "nothing charged".
            let (status, body, _) = pay(&setup, &client, "/estudio/banca-2026", &header).await;
            assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{case}: {body}");
            assert!(!body["mensaje"].as_str().unwrap_or_default().contains("no se cobró"), "{case}: {body}");
            assert_pending(&setup, case);
        }

        // The buyer repeats the same request: the facilitator says the nonce is used. With no
        // chain to prove it, that is no payment (the payer could have canceled the
        // authorization): still uncertain, nothing delivered, nothing settled again.
        let (status, body, receipt) = pay(&setup, &client, "/estudio/banca-2026", &header).await;
        assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{case}: {body}");
        assert!(receipt.is_none() && body.get("paquete").is_none(), "{case}: nothing delivered");
        assert_eq!(setup.stub.local.settlements(), 1, "{case}: exactly one settlement");
        assert_pending(&setup, case);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_chain_every_fault_after_settling_is_a_sale_proven_at_once() {
    let cases: [(&str, &[Fault]); 4] = [
        ("facilitator slower than the timeout", &[Fault::SlowAnswer(Duration::from_millis(2_000))]),
        ("502 after settling", &[Fault::StatusAfterSettling(502)]),
        ("504 after settling", &[Fault::StatusAfterSettling(504)]),
        ("settlement_pending", &[Fault::Pending, Fault::Pending]),
    ];
    let client = client();
    let accepted = accepted_of(built(), "banca-2026", "completo");
    for (case, faults) in cases {
        let setup = start_proving(faults, true);
        let header = signed_header(&accepted, &signer(DEV_KEY), |_, _| {});
        let (status, body, receipt) = pay(&setup, &client, "/estudio/banca-2026", &header).await;
        assert_eq!(status, 200, "{case}: {body}");
        assert!(body["paquete"].is_object(), "{case}");
        let receipt: SettlementResponse = decode_json(&receipt.expect("PAYMENT-RESPONSE")).expect("receipt");
        assert!(receipt.success, "{case}");
        assert_eq!(setup.stub.local.settlements(), 1, "{case}: exactly one settlement");
        let report = sales(&setup);
        assert!(report.pending.is_empty(), "{case}: resolved");
        assert_eq!(report.sales.len(), 1, "{case}");
        let sale = &report.sales[0];
        assert_eq!(
            (sale.study.as_str(), sale.view.as_str(), sale.amount.as_str()),
            ("banca-2026", "completo", "990000")
        );
        assert!(sale.delivered, "{case}");
        assert_eq!(sale.transaction, setup.stub.pending_transaction(), "{case}: the ledger's transaction");
        // Again: delivered from the book, no settlement.
        let (status, _, _) = pay(&setup, &client, "/estudio/banca-2026", &header).await;
        assert_eq!(status, 200, "{case}");
        assert_eq!(setup.stub.local.settlements(), 1, "{case}");
        let table = gate::sales::report::table(&sales(&setup));
        assert!(table.contains("Ventas recuperadas"), "{case}: shown apart\n{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_settlement_confirmed_on_the_retry_is_a_sale_at_once() {
    // One pending answer: the gate asks once more, the facilitator says the nonce is used,
    // and the chain shows the pending transaction paid: the buyer gets the study without
    // repeating. Without the chain, the same answers leave it uncertain.
    let setup = start(&[Fault::Pending]);
    let client = client();
    let header = signed_header(&accepted_of(built(), "farma-2026", "resumen"), &signer(DEV_KEY), |_, _| {});
    let (status, body, _) = pay(&setup, &client, "/estudio/farma-2026?vista=resumen", &header).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("liquidacion_incierta")), "{body}");
    assert_pending(&setup, "pending, then nonce used, no chain");

    let setup = start_proving(&[Fault::Pending], true);
    let header = signed_header(&accepted_of(built(), "farma-2026", "resumen"), &signer(DEV_KEY), |_, _| {});
    let (status, body, _) = pay(&setup, &client, "/estudio/farma-2026?vista=resumen", &header).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["liquidacion"]["transaccion"], setup.stub.pending_transaction());
    assert_eq!(*setup.stub.settle_calls.lock(), 2);
    assert_eq!(setup.stub.local.settlements(), 1);
    let report = sales(&setup);
    assert_eq!(report.sales.len(), 1);
    assert!(report.pending.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_publisher_reconciles_what_no_repeat_resolved() {
    let setup = start(&[Fault::StatusAfterSettling(504)]);
    let client = client();
    let header = signed_header(&accepted_of(built(), "banca-2026", "completo"), &signer(DEV_KEY), |_, _| {});
    let (status, _, _) = pay(&setup, &client, "/estudio/banca-2026", &header).await;
    assert_eq!(status, 503);
    let data = setup.gate.data.path();
    let purchase = sales(&setup).pending[0].purchase.clone();
    let not_pending =
        gate::sales::report::reconcile(data, "no-such-purchase", gate::sales::report::Resolution::Unpaid, "");
    assert!(not_pending.is_err());
    let resolution = gate::sales::report::Resolution::Paid { transaction: "0xfound".into() };
    gate::sales::report::reconcile(data, &purchase, resolution, "visto en el explorador").expect("reconciled");
    let report = sales(&setup);
    assert!(report.pending.is_empty());
    assert_eq!(report.sales.len(), 1);
    assert_eq!(report.sales[0].transaction, "0xfound");
    let again = gate::sales::report::reconcile(data, &purchase, gate::sales::report::Resolution::Unpaid, "");
    assert!(again.is_err(), "a reconciled purchase cannot be reconciled again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_under_the_same_payment_identifier_gets_the_purchase_without_a_second_charge() {
    // As the official clients retry: a fresh 402, a fresh authorization, the same id.
    let setup = start(&[]);
    let client = client();
    let accepted = accepted_of(built(), "banca-2026", "completo");
    let with_id = |key: &str, id: &str| {
        let mut payload = signed_payload(&accepted, &signer(key), |_, _| {});
        payload.extensions = Some(json!({"payment-identifier": {"info": {"required": false, "id": id}}}));
        gate::x402::header::encode_json(&payload)
    };
    let id = "pay_0123456789abcdef0123456789abcdef";
    let (status, first, _) = pay(&setup, &client, "/estudio/banca-2026", &with_id(DEV_KEY, id)).await;
    assert_eq!(status, 200, "{first}");
    let (status, again, _) = pay(&setup, &client, "/estudio/banca-2026", &with_id(DEV_KEY, id)).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["liquidacion"], first["liquidacion"], "the same sale");
    assert_eq!(setup.stub.local.settlements(), 1, "the fresh authorization was not settled");
    // Under the same id, another wallet or another study is a conflict, and nothing is charged.
    let (status, body, _) = pay(&setup, &client, "/estudio/banca-2026", &with_id(OTHER_KEY, id)).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("identificador_en_conflicto")));
    let (status, body, _) = pay(&setup, &client, "/estudio/banca-2026?vista=resumen", &with_id(DEV_KEY, id)).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("identificador_en_conflicto")));
    assert_eq!(setup.stub.local.settlements(), 1);
    let report = sales(&setup);
    assert_eq!(report.sales.len(), 1);
    assert_eq!(report.sales[0].redeliveries, 1, "the retry is journaled against the paid purchase");
}
