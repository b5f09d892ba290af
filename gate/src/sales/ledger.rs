//! What the journal adds up to: sales, purchases to reconcile, failures.
//!
//! Each purchase (`compra`) is folded step by step. Its attempts start with `aceptado` and
//! end with `liquidado`, a certain `fallido`, an uncertain `fallido`, or nothing (the gate
//! stopped mid-settle). The rules keep every paid or possibly-paid purchase on the books:
//!
//! - once settled (by the facilitator, by recovery, or by hand), a purchase is a sale for good;
//! - once an attempt ended uncertain or without a result, the purchase stays *to reconcile*
//!   until it is settled or the publisher records, after checking the chain, that the money
//!   did not move (`conciliado`). A later attempt that fails for certain proves nothing about
//!   the earlier one, so it does not clear it;
//! - only a purchase whose every attempt failed for certain is a plain failure.
//!
//! So no sequence of later events can make a settled or uncertain purchase disappear.
//!
//! A `reacceso` (a past buyer signed in and got the study again) moves no money: it is counted
//! on the sale it proved and listed apart.

use std::collections::BTreeMap;

use serde::Serialize;

use super::journal::{Accepted, Event, Protocol, Reaccess, Record};

/// One settled sale, as the journal tells it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sale {
    #[serde(rename = "fecha")]
    pub date: String,
    pub unix: u64,
    #[serde(rename = "compra")]
    pub purchase: String,
    #[serde(rename = "estudio")]
    pub study: String,
    #[serde(rename = "vista")]
    pub view: String,
    #[serde(rename = "red")]
    pub network: String,
    #[serde(rename = "pagador")]
    pub payer: String,
    #[serde(rename = "monto")]
    pub amount: String,
    #[serde(rename = "activo")]
    pub asset: String,
    /// The protocol the buyer paid with.
    #[serde(rename = "protocolo")]
    pub protocol: Protocol,
    #[serde(rename = "transaccion")]
    pub transaction: String,
    /// Whether an `entregado` (or `reentregado`) step followed.
    #[serde(rename = "entregado")]
    pub delivered: bool,
    #[serde(rename = "reentregas")]
    pub redeliveries: u32,
    /// Times the buyer's wallet signed in and got the study again (x402 `sign-in-with-x`).
    #[serde(rename = "reaccesos")]
    pub reaccesses: u32,
    /// How the sale was established: `liquidada` (the facilitator settled it), `recuperada`
    /// (the facilitator's answer left it open and the chain proved the payment) or
    /// `conciliada` (the publisher found it on chain).
    #[serde(rename = "origen")]
    pub origin: Origin,
    /// Why the chain does not confirm this sale, when it does not (a facilitator's success
    /// that did not pay payTo): such a sale is listed apart and left out of the totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "impugnada")]
    pub disputed: Option<String>,
    /// Kept for recovery, not shown.
    #[serde(skip)]
    pub accepted: Option<Accepted>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    #[serde(rename = "liquidada")]
    Settled,
    #[serde(rename = "recuperada")]
    Recovered,
    #[serde(rename = "conciliada")]
    Reconciled,
}

/// A purchase with no certain result: the gate stopped while settling it, or the facilitator
/// gave an uncertain answer. Reconcile it with the chain (is its nonce used?).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    #[serde(rename = "fecha")]
    pub date: String,
    #[serde(rename = "compra")]
    pub purchase: String,
    #[serde(rename = "estudio")]
    pub study: String,
    #[serde(rename = "vista")]
    pub view: String,
    #[serde(rename = "red")]
    pub network: String,
    #[serde(rename = "pagador")]
    pub payer: String,
    pub nonce: String,
    #[serde(rename = "monto")]
    pub amount: String,
    /// Unix time the authorization expires; until then a repeat by the buyer can resolve it.
    #[serde(rename = "valido_hasta")]
    pub valid_until: u64,
    /// `sin_resultado`: its last attempt has no recorded answer (the gate stopped mid-settle,
    /// or it is still running); `incierta`: an attempt's outcome is unknown (the facilitator's
    /// answer left it open, or the gate stopped mid-settle and it was tried again).
    #[serde(rename = "estado")]
    pub status: &'static str,
    /// The uncertain answer's reason, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "motivo")]
    pub reason: Option<String>,
    /// A transaction the facilitator named for it (a pending settlement).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "transaccion")]
    pub transaction: Option<String>,
    #[serde(rename = "intentos")]
    pub attempts: u32,
    /// Kept for recovery, not shown.
    #[serde(skip)]
    pub accepted: Accepted,
}

/// A re-access: a past buyer signed in and got the study again, without paying.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reaccessed {
    #[serde(rename = "fecha")]
    pub date: String,
    /// The sale it proved.
    #[serde(rename = "compra")]
    pub purchase: String,
    #[serde(rename = "estudio")]
    pub study: String,
    /// The view delivered.
    #[serde(rename = "vista")]
    pub view: String,
    #[serde(rename = "red")]
    pub network: String,
    #[serde(rename = "pagador")]
    pub payer: String,
    pub nonce: String,
    /// Unix time the sign-in's nonce expires (until then a replay is refused).
    #[serde(skip)]
    #[serde(rename = "valido_hasta")]
    pub valid_until: u64,
}

/// A purchase the publisher recorded as not paid after checking the chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unsold {
    #[serde(rename = "compra")]
    pub purchase: String,
    #[serde(rename = "estudio")]
    pub study: String,
    #[serde(rename = "pagador")]
    pub payer: String,
    #[serde(rename = "nota")]
    pub note: String,
    /// Kept for the replay book, not shown.
    #[serde(skip)]
    pub accepted: Accepted,
}

/// The journal folded into sales.
#[derive(Debug, Default, PartialEq)]
pub struct Ledger {
    /// In the order they were settled.
    pub sales: Vec<Sale>,
    /// By time of first acceptance.
    pub pending: Vec<Pending>,
    /// Failed attempts by reason (every attempt, certain or not).
    pub failures: BTreeMap<String, u64>,
    /// Purchases reconciled as not paid.
    pub unsold: Vec<Unsold>,
    /// Re-accesses, in the order they happened.
    pub reaccesses: Vec<Reaccessed>,
}

/// The fold's state of one purchase.
#[derive(Debug, Default)]
struct Purchase {
    first_unix: u64,
    first_date: String,
    accepted: Option<Accepted>,
    attempts: u32,
    /// The latest attempt has no result yet.
    open: bool,
    /// An earlier attempt ended uncertain or without result, and nothing resolved it.
    doubt: bool,
    uncertain_reason: Option<String>,
    uncertain_transaction: Option<String>,
    /// Index into the ledger's sales once settled.
    sale: Option<usize>,
    unsold_note: Option<String>,
}

/// Folds records (every segment, in order) into sales, purchases to reconcile and failures.
pub fn fold(records: &[Record]) -> Ledger {
    let mut ledger = Ledger::default();
    let mut purchases: BTreeMap<&str, Purchase> = BTreeMap::new();
    for record in records {
        let purchase = purchases.entry(&record.purchase).or_insert_with(|| Purchase {
            first_unix: record.unix,
            first_date: record.date.clone(),
            ..Purchase::default()
        });
        match &record.event {
            Event::Accepted(accepted) => {
                if purchase.open {
                    purchase.doubt = true;
                }
                purchase.open = purchase.sale.is_none();
                purchase.attempts += 1;
                purchase.unsold_note = None;
                purchase.accepted = Some(accepted.clone());
            }
            Event::Settled(settled) => {
                purchase.open = false;
                let origin = if settled.recovered { Origin::Recovered } else { Origin::Settled };
                // A recovery may not learn the transaction; an earlier pending answer may have named it.
                let transaction = match (settled.transaction.as_str(), &purchase.uncertain_transaction) {
                    ("", Some(earlier)) => earlier.clone(),
                    (known, _) => known.to_owned(),
                };
                settle(&mut ledger, purchase, record, &transaction, &settled.network, &settled.payer, origin);
            }
            Event::Failed(failed) => {
                purchase.open = false;
                if failed.uncertain && purchase.sale.is_none() {
                    purchase.doubt = true;
                    purchase.uncertain_reason = Some(failed.reason.clone());
                    purchase.uncertain_transaction =
                        failed.transaction.clone().or(purchase.uncertain_transaction.take());
                }
                *ledger.failures.entry(failed.reason.clone()).or_default() += 1;
            }
            Event::Reconciled(reconciled) => {
                purchase.open = false;
                if reconciled.settled_at {
                    let (network, payer) =
                        purchase.accepted.as_ref().map(|a| (a.network.clone(), a.payer.clone())).unwrap_or_default();
                    let transaction = reconciled.transaction.clone().unwrap_or_default();
                    settle(&mut ledger, purchase, record, &transaction, &network, &payer, Origin::Reconciled);
                } else if purchase.sale.is_none() {
                    purchase.doubt = false;
                    purchase.unsold_note = Some(reconciled.note.clone());
                }
            }
            Event::Reaccess(reaccess) => {
                if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
                    sale.reaccesses += 1;
                }
                ledger.reaccesses.push(reaccessed(record, reaccess));
            }
            Event::Disputed(disputed) => {
                if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
                    sale.disputed = Some(format!("{} ({})", disputed.reason, disputed.transaction));
                }
            }
            Event::Delivered(_) | Event::Redelivered(_) => {
                if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
                    if matches!(record.event, Event::Redelivered(_)) {
                        sale.redeliveries += 1;
                    }
                    sale.delivered = true;
                }
            }
        }
    }
    let mut pending: Vec<(u64, Pending)> = Vec::new();
    for (key, purchase) in purchases {
        if purchase.sale.is_some() {
            continue;
        }
        let Some(accepted) = purchase.accepted else { continue };
        if let Some(note) = purchase.unsold_note {
            ledger.unsold.push(Unsold {
                purchase: key.to_owned(),
                study: accepted.study.clone(),
                payer: accepted.payer.clone(),
                note,
                accepted: accepted.clone(),
            });
            continue;
        }
        if !(purchase.open || purchase.doubt) {
            continue;
        }
        let status = if purchase.doubt { "incierta" } else { "sin_resultado" };
        pending.push((
            purchase.first_unix,
            Pending {
                date: purchase.first_date,
                purchase: key.to_owned(),
                study: accepted.study.clone(),
                view: accepted.view.clone(),
                network: accepted.network.clone(),
                payer: accepted.payer.clone(),
                nonce: accepted.nonce.clone(),
                amount: accepted.amount.clone(),
                valid_until: accepted.valid_until,
                status,
                reason: purchase.uncertain_reason,
                transaction: purchase.uncertain_transaction,
                attempts: purchase.attempts,
                accepted,
            },
        ));
    }
    pending.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.purchase.cmp(&b.1.purchase)));
    ledger.pending = pending.into_iter().map(|(_, p)| p).collect();
    ledger
}

fn reaccessed(record: &Record, reaccess: &Reaccess) -> Reaccessed {
    Reaccessed {
        date: record.date.clone(),
        purchase: record.purchase.clone(),
        study: reaccess.study.clone(),
        view: reaccess.view.clone(),
        network: reaccess.network.clone(),
        payer: reaccess.payer.clone(),
        nonce: reaccess.nonce.clone(),
        valid_until: reaccess.valid_until,
    }
}

/// Makes a purchase a sale (once: a second settlement record of the same purchase only fills
/// a transaction the first did not know).
fn settle(
    ledger: &mut Ledger,
    purchase: &mut Purchase,
    record: &Record,
    transaction: &str,
    network: &str,
    payer: &str,
    origin: Origin,
) {
    purchase.doubt = false;
    purchase.unsold_note = None;
    if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
        if sale.transaction.is_empty() {
            sale.transaction = transaction.to_owned();
        }
        return;
    }
    let accepted = purchase.accepted.clone();
    let field = |get: fn(&Accepted) -> &String| accepted.as_ref().map(|a| get(a).clone()).unwrap_or_default();
    purchase.sale = Some(ledger.sales.len());
    ledger.sales.push(Sale {
        date: record.date.clone(),
        unix: record.unix,
        purchase: record.purchase.clone(),
        study: field(|a| &a.study),
        view: field(|a| &a.view),
        network: if network.is_empty() { field(|a| &a.network) } else { network.to_owned() },
        payer: if payer.is_empty() { field(|a| &a.payer) } else { payer.to_owned() },
        amount: field(|a| &a.amount),
        asset: field(|a| &a.asset),
        protocol: accepted.as_ref().map(|a| a.protocol).unwrap_or_default(),
        transaction: transaction.to_owned(),
        delivered: false,
        redeliveries: 0,
        reaccesses: 0,
        origin,
        disputed: None,
        accepted,
    });
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::sales::journal::tests::{accepted, settled};
    use crate::sales::journal::{Failed, Handed, Reaccess, Reconciled, Settled, parse};

    fn failed(purchase: &str, unix: u64, uncertain: bool) -> Record {
        Record {
            date: String::new(),
            unix,
            purchase: purchase.into(),
            event: Event::Failed(Failed {
                reason: if uncertain { "liquidacion_incierta" } else { "insufficient_funds" }.into(),
                message: String::new(),
                uncertain,
                transaction: None,
            }),
        }
    }

    fn recovered(purchase: &str, unix: u64) -> Record {
        Record {
            date: String::new(),
            unix,
            purchase: purchase.into(),
            event: Event::Settled(Settled {
                transaction: String::new(),
                network: "eip155:84532".into(),
                payer: "0xabc".into(),
                recovered: true,
            }),
        }
    }

    fn handed(purchase: &str, unix: u64) -> Record {
        Record {
            date: String::new(),
            unix,
            purchase: purchase.into(),
            event: Event::Delivered(Handed { transaction: "0x".into(), bytes: 9 }),
        }
    }

    fn reconciled(purchase: &str, unix: u64, settled_at: bool) -> Record {
        Record {
            date: String::new(),
            unix,
            purchase: purchase.into(),
            event: Event::Reconciled(Reconciled {
                settled_at,
                transaction: settled_at.then(|| "0xfound".to_owned()),
                note: "revisado en la cadena".into(),
            }),
        }
    }

    fn keys(list: impl Iterator<Item = String>) -> Vec<String> {
        list.collect()
    }

    #[test]
    fn steps_join_into_sales_pending_and_failures() {
        let records = vec![
            accepted("a", 10),
            settled("a", 11),
            handed("a", 12),
            accepted("b", 20),
            failed("b", 21, false),
            accepted("c", 30),
        ];
        let ledger = fold(&records);
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].study, "banca-2026");
        assert_eq!(ledger.sales[0].transaction, "0xtxa");
        assert_eq!(ledger.sales[0].origin, Origin::Settled);
        assert!(ledger.sales[0].delivered);
        assert_eq!(ledger.failures.get("insufficient_funds"), Some(&1));
        assert_eq!(keys(ledger.pending.iter().map(|p| p.purchase.clone())), ["c"]);
        assert_eq!(ledger.pending[0].status, "sin_resultado");
    }

    #[test]
    fn an_uncertain_purchase_survives_a_repeat_refused_for_certain_and_ends_as_a_recovered_sale() {
        // The issue's sequence: uncertain, then the buyer repeats and the chain says the nonce
        // is used (recovered); and the variant where the repeat is refused for another reason.
        let uncertain_then_refused =
            vec![accepted("k", 1), failed("k", 2, true), accepted("k", 3), failed("k", 4, false)];
        let ledger = fold(&uncertain_then_refused);
        assert!(ledger.sales.is_empty());
        assert_eq!(ledger.pending.len(), 1, "a later certain failure does not clear an uncertain one");
        assert_eq!(ledger.pending[0].status, "incierta");
        assert_eq!(ledger.pending[0].attempts, 2);

        let crash_then_refused = vec![accepted("k", 1), accepted("k", 3), failed("k", 4, false)];
        assert_eq!(fold(&crash_then_refused).pending.len(), 1, "nor does it clear a stop mid-settle");

        let recovered_sale =
            [uncertain_then_refused, vec![accepted("k", 5), recovered("k", 6), handed("k", 7)]].concat();
        let ledger = fold(&recovered_sale);
        assert!(ledger.pending.is_empty());
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].origin, Origin::Recovered);
        assert!(ledger.sales[0].delivered);
    }

    fn reaccessed_record(purchase: &str, unix: u64) -> Record {
        Record {
            date: String::new(),
            unix,
            purchase: purchase.into(),
            event: Event::Reaccess(Reaccess {
                study: "banca-2026".into(),
                view: "resumen".into(),
                network: "eip155:84532".into(),
                payer: "0xabc".into(),
                nonce: format!("n{unix}"),
                valid_until: unix + 300,
                transaction: format!("0xtx{purchase}"),
                bytes: 9,
            }),
        }
    }

    #[test]
    fn a_reaccess_counts_on_its_sale_and_moves_no_money() {
        let records = vec![
            accepted("a", 10),
            settled("a", 11),
            handed("a", 12),
            reaccessed_record("a", 20),
            reaccessed_record("a", 30),
        ];
        let ledger = fold(&records);
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].reaccesses, 2);
        assert_eq!(ledger.reaccesses.len(), 2);
        assert_eq!(ledger.reaccesses[1].nonce, "n30");
        assert_eq!(ledger.reaccesses[1].valid_until, 330);
        assert!(ledger.pending.is_empty() && ledger.failures.is_empty());
        let line = serde_json::to_string(&records[3]).unwrap();
        assert!(line.contains(r#""evento":"reacceso""#), "{line}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), records[3]);
    }

    #[test]
    fn the_publisher_reconciles_by_hand_either_way() {
        let base = vec![accepted("k", 1), failed("k", 2, true)];
        let paid = fold(&[base.clone(), vec![reconciled("k", 3, true)]].concat());
        assert_eq!(paid.sales.len(), 1);
        assert_eq!(paid.sales[0].origin, Origin::Reconciled);
        assert_eq!(paid.sales[0].transaction, "0xfound");
        assert!(paid.pending.is_empty());
        let unpaid = fold(&[base, vec![reconciled("k", 3, false)]].concat());
        assert!(unpaid.sales.is_empty() && unpaid.pending.is_empty());
        assert_eq!(unpaid.unsold.len(), 1);
        // A sale stays a sale whatever is recorded after it.
        let sold = fold(&[accepted("s", 1), settled("s", 2), reconciled("s", 3, false), failed("s", 4, true)]);
        assert_eq!(sold.sales.len(), 1);
        assert!(sold.pending.is_empty() && sold.unsold.is_empty());
    }

    /// A random journal: steps of a few purchases in any order, duplicated or missing.
    fn arbitrary_records() -> impl Strategy<Value = Vec<Record>> {
        let step = (0u8..4, 0u8..9).prop_map(|(key, kind)| {
            let purchase = format!("k{key}");
            match kind {
                0 | 1 => accepted(&purchase, 1),
                2 => settled(&purchase, 1),
                3 => recovered(&purchase, 1),
                4 => failed(&purchase, 1, true),
                5 => failed(&purchase, 1, false),
                6 => handed(&purchase, 1),
                7 => reaccessed_record(&purchase, 1),
                _ => reconciled(&purchase, 1, false),
            }
        });
        proptest::collection::vec(step, 0..24)
    }

    fn settled_keys(ledger: &Ledger) -> Vec<String> {
        let mut keys: Vec<String> = ledger.sales.iter().map(|s| s.purchase.clone()).collect();
        keys.sort();
        keys
    }

    proptest! {
        /// Whatever comes after a prefix of the journal, a purchase settled in the prefix is a
        /// sale in the whole, exactly once; one uncertain in the prefix is a sale or still
        /// pending, unless the publisher reconciled it as unpaid after the prefix.
        #[test]
        fn nothing_recorded_later_removes_a_sale_or_an_uncertain_purchase(records in arbitrary_records(), cut in 0usize..24) {
            let cut = cut.min(records.len());
            let whole = fold(&records);
            let prefix = fold(&records[..cut]);
            let mut sold = settled_keys(&whole);
            let count = sold.len();
            sold.dedup();
            prop_assert_eq!(sold.len(), count, "a purchase is at most one sale");
            for sale in &prefix.sales {
                prop_assert!(sold.contains(&sale.purchase), "sale {} disappeared", sale.purchase);
            }
            for pending in prefix.pending.iter().filter(|p| p.status == "incierta") {
                let reconciled_later = records[cut..].iter().any(|r| r.purchase == pending.purchase && matches!(&r.event, Event::Reconciled(c) if !c.settled_at));
                let kept = sold.contains(&pending.purchase) || whole.pending.iter().any(|p| p.purchase == pending.purchase);
                prop_assert!(kept || reconciled_later, "pending {} disappeared", pending.purchase);
            }
        }

        /// A torn last line (a crash mid-write) loses only that line: the fold of what parses
        /// equals the fold of the complete lines before it.
        #[test]
        fn a_torn_write_loses_only_its_own_line(records in arbitrary_records(), cut_fraction in 0.0f64..1.0) {
            let mut bytes = Vec::new();
            let mut ends = vec![0usize];
            for record in &records {
                bytes.extend(serde_json::to_vec(record).unwrap());
                bytes.push(b'\n');
                ends.push(bytes.len());
            }
            let cut = (bytes.len() as f64 * cut_fraction) as usize;
            let contents = parse(&bytes[..cut], "x");
            let complete = ends.iter().filter(|end| **end <= cut).count() - 1;
            prop_assert_eq!(&contents.records[..], &records[..complete]);
            prop_assert_eq!(fold(&contents.records), fold(&records[..complete]));
        }
    }
}
